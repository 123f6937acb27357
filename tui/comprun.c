/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * comprun.c - compaction runs rebuilt from trace events: which events
 * make up each run, and where its scanners and counts stand after any of
 * them (comprun.h).
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "comprun.h"
#include "util.h"

/* Apply one event to a run's state. */
void
cstate_apply(struct cstate *s, const struct tev *e)
{
	if (e->type == TEV_OTHER)
		return;
	if (e->type == TEV_BEGIN) {
		memset(s, 0, sizeof(*s));
		s->begun = true;
		s->sync = e->sync;
		s->zone_start = e->a;
		s->zone_end = e->d;
		s->run_mig = s->mig = e->b;
		s->run_free = s->free = e->c;
		s->ts_begin = e->ts;
	}
	s->ts_last = e->ts;
	switch (e->type) {
	case TEV_END:
		s->ended = true;
		s->zone_start = e->a;
		s->zone_end = e->d;
		s->mig = e->b;
		s->free = e->c;
		memcpy(s->status, e->status, sizeof(s->status));
		s->status[sizeof(s->status) - 1] = '\0';
		break;
	case TEV_ISO_MIGRATE:
		s->mig = e->b;
		s->mig_scanned += e->c;
		s->mig_taken += e->d;
		break;
	case TEV_ISO_FREE:
	case TEV_ISO_FAST_FREE:
		if (e->type == TEV_ISO_FREE)
			s->free = e->a;
		s->free_scanned += e->c;
		s->free_taken += e->d;
		break;
	case TEV_MIGRATE:
		s->migrated += e->a;
		s->failed += e->b;
		break;
	case TEV_BEGIN:
	case TEV_OTHER:
		break;
	}
}

/* Mark the pageblocks an isolate event's range covered. */
void
cblocks_apply(unsigned char *blk, int nblk, u64 zone_start, u64 ppb,
    const struct tev *e)
{
	unsigned char	f;
	u64		b0, b1, last;

	if (e->type == TEV_ISO_MIGRATE)
		f = CB_MIG | (e->d ? CB_MIG_TAKEN : 0);
	else if (e->type == TEV_ISO_FREE)
		f = CB_FREE | (e->d ? CB_FREE_TAKEN : 0);
	else
		return;
	if (!blk || nblk <= 0 || !ppb || !e->c || e->b <= e->a || e->b <= zone_start)
		return;
	b0 = e->a > zone_start ? (e->a - zone_start) / ppb : 0;
	b1 = (e->b - 1 - zone_start) / ppb;
	last = (u64)nblk - 1;
	if (b0 > last)
		return;
	if (b1 > last)
		b1 = last;
	for (u64 k = b0; k <= b1; k++)
		blk[k] |= f;
}

/*
 * The key of an event's task: its pid, or its cpu when the pid is unknown
 * (-2 - cpu, held inside int: a trace may claim any cpu number).
 */
static int
task_key(const struct tev *e)
{
	long long	k = -2LL - e->cpu;

	if (e->pid >= 0)
		return e->pid;
	return k < INT_MIN ? INT_MIN : k > -2 ? -2 : (int)k;
}

/* Collect the runs of a trace. */
int
cruns_find(const struct trace *tr, struct cruns *rs)
{
	int	*run_of, *open = NULL, nopen = 0, capopen = 0;

	rs->n = 0;
	rs->nidx = 0;
	run_of = xmalloc((size_t)(tr->n ? tr->n : 1) * sizeof(*run_of));
	/* pass 1: the run of each event, with the runs open per task */
	for (int i = 0; i < tr->n; i++) {
		const struct tev	*e = &tr->ev[i];
		int			 key = task_key(e), o;

		for (o = 0; o < nopen && rs->run[open[o]].pid != key; o++)
			;
		run_of[i] = -1;
		if (e->type == TEV_OTHER)
			continue;
		if (e->type == TEV_BEGIN) {
			if (o == nopen) {
				if (nopen == capopen) {
					capopen = capopen ? capopen * 2 : 8;
					open = xrealloc(open, (size_t)capopen * sizeof(*open));
				}
				nopen++;
			}
			if (rs->n == rs->cap) {
				rs->cap = rs->cap ? rs->cap * 2 : 16;
				rs->run = xrealloc(rs->run, (size_t)rs->cap * sizeof(*rs->run));
			}
			rs->run[rs->n] = (struct crun){ .pid = key };
			open[o] = rs->n++;
		} else if (o == nopen) {
			continue;	/* not inside a run of its task */
		}
		run_of[i] = open[o];
		rs->run[open[o]].nev++;
		if (e->type == TEV_END) {
			rs->run[open[o]].ended = true;
			open[o] = open[--nopen];
		}
	}
	/* pass 2: each run's events, contiguous in idx */
	for (int r = 0, off = 0; r < rs->n; r++) {
		rs->run[r].off = off;
		off += rs->run[r].nev;
		rs->run[r].nev = 0;
		rs->nidx = off;
	}
	if (rs->nidx > rs->capidx) {
		rs->capidx = rs->nidx;
		rs->idx = xrealloc(rs->idx, (size_t)rs->capidx * sizeof(*rs->idx));
	}
	for (int i = 0; i < tr->n; i++) {
		struct crun	*r;

		if (run_of[i] < 0)
			continue;
		r = &rs->run[run_of[i]];
		rs->idx[r->off + r->nev++] = i;
	}
	free(run_of);
	free(open);
	return rs->n;
}

/* Free the runs' storage. */
void
cruns_free(struct cruns *rs)
{
	free(rs->run);
	free(rs->idx);
	memset(rs, 0, sizeof(*rs));
}

/* Event i of run r. */
const struct tev *
crun_event(const struct trace *tr, const struct cruns *rs, int r, int i)
{
	const struct crun	*run = &rs->run[r];

	if (i >= run->nev)
		i = run->nev - 1;
	if (i < 0)
		i = 0;
	return &tr->ev[rs->idx[run->off + i]];
}

/* A run's state after its events 0..upto, and the blocks it covered. */
void
crun_state(const struct trace *tr, const struct cruns *rs, int r, int upto,
    struct cstate *s, unsigned char *blk, int nblk, u64 ppb)
{
	const struct crun	*run = &rs->run[r];
	u64			 zone_start = tr->ev[rs->idx[run->off]].a;

	memset(s, 0, sizeof(*s));
	if (blk && nblk > 0)
		memset(blk, 0, (size_t)nblk);
	if (upto >= run->nev)
		upto = run->nev - 1;
	for (int i = 0; i <= upto; i++) {
		const struct tev	*e = &tr->ev[rs->idx[run->off + i]];

		cstate_apply(s, e);
		cblocks_apply(blk, nblk, zone_start, ppb, e);
	}
}
