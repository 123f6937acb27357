/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * comprun.h - compaction runs rebuilt from trace events (part of
 * libumkit-parse, see parse.h).
 *
 * A run is what one mm_compaction_begin starts: the compaction events
 * the same task traced after it, up to that task's mm_compaction_end.
 * The compaction view draws the latest state of each zone's run and
 * replays a run event by event; this is the model underneath, without
 * curses, so the unit tests and the fuzzer drive it on parsed traces.
 *
 * Positions follow the tracepoints (include/trace/events/compaction.h):
 * the migrate scanner climbs from the zone start and stands at the end
 * of the range its last isolate_migratepages covered; the free scanner
 * descends from the zone end and stands at the start of the range its
 * last isolate_freepages covered; begin and end give both.
 */
#ifndef UMKIT_COMPRUN_H
#define UMKIT_COMPRUN_H

#include "parse.h"

/* Where a run stands after some of its events. */
struct cstate {
	bool	begun;			/* a begin was applied */
	bool	ended;			/* an end was applied */
	bool	sync;			/* mode=sync (else async) */
	u64	zone_start, zone_end;	/* from begin / end */
	u64	run_mig, run_free;	/* the scanners' starting pfns */
	u64	mig, free;		/* their latest pfns */
	double	ts_begin, ts_last;	/* seconds, as the trace prints them */
	char	status[20];		/* end's status ("complete", ...) */
	u64	mig_scanned, mig_taken;	/* isolate_migratepages sums */
	u64	free_scanned, free_taken; /* isolate_freepages (and fast) sums */
	u64	migrated, failed;	/* migratepages sums */
};

/*
 * Apply one event to s.  A begin starts afresh (everything zeroed, then
 * the zone and the scanners' starts set); isolate_migratepages moves the
 * migrate scanner to the end of its range, isolate_freepages the free
 * scanner to the start of its range (fast_isolate_freepages only adds to
 * the counts: it takes pages off the free lists, away from the scanner);
 * migratepages adds migrated and failed pages; end sets the final
 * positions and the status.  TEV_OTHER changes nothing.
 */
void	cstate_apply(struct cstate *, const struct tev *);

/* What a pageblock saw (cblocks_apply): flags, or-ed. */
enum {
	CB_MIG		= 1,	/* the migrate scanner scanned in it */
	CB_MIG_TAKEN	= 2,	/* ... and isolated pages to migrate */
	CB_FREE		= 4,	/* the free scanner scanned in it */
	CB_FREE_TAKEN	= 8,	/* ... and isolated free pages */
};

/*
 * Mark the pageblocks an isolate event's range [start, end) covered:
 * blk[k] is block k of nblk, of ppb pages each, counted from zone_start.
 * A range that scanned nothing, lies outside the blocks or is not an
 * isolate_migratepages / isolate_freepages event marks nothing; the
 * parts of a range beyond the blocks are left out.
 */
void	cblocks_apply(unsigned char *blk, int nblk, u64 zone_start, u64 ppb,
	    const struct tev *);

/* One run: its events as indices into trace.ev, begin first. */
struct crun {
	int	pid;		/* the task (its cpu as -2 - cpu without a pid) */
	int	off, nev;	/* its events: cruns.idx[off .. off + nev) */
	bool	ended;		/* its last event is its end */
};

struct cruns {
	int		 n, cap;
	struct crun	*run;		/* in the order of their begins */
	int		 nidx, capidx;
	int		*idx;
};

/*
 * Collect the runs of tr into rs (zero-initialised before first use,
 * reusable).  A run holds its begin and each later event of the same
 * task up to that task's next end, TEV_OTHER events left out; a second
 * begin of the task before an end closes the run unended.  Events of a
 * task outside its runs (the buffer began mid-run) belong to no run.
 * Returns the number of runs.
 */
int	cruns_find(const struct trace *tr, struct cruns *rs);
/* Free the runs' storage. */
void	cruns_free(struct cruns *);
/* The trace event of event i (0-based, clamped) of run r. */
const struct tev *crun_event(const struct trace *, const struct cruns *, int r, int i);
/*
 * The state of run r after its events 0..upto (upto clamped to the run),
 * and, when blk is not NULL, the blocks its scanners covered in that
 * span (blk is cleared first; see cblocks_apply).
 */
void	crun_state(const struct trace *, const struct cruns *, int r, int upto,
	    struct cstate *, unsigned char *blk, int nblk, u64 ppb);

#endif
