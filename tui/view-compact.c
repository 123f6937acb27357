/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * view-compact.c - compaction: each zone as a strip of pageblocks
 * classified from /proc/kpageflags, the migrate scanner (climbing from the
 * zone start) and the free scanner (descending from the zone end) at their
 * latest positions from the compaction tracepoints, the compact_* counters
 * with rates, scan efficiency (compact_migrate_scanned / compact_free_scanned,
 * as mmtests reports it), the extfrag index and free blocks per order.
 *
 * Key R replays a run from the trace buffer (a run over a 256 MiB zone
 * is over in milliseconds): the events of one mm_compaction_begin .. _end
 * frozen as the buffer held them, stepped one by one or played at a
 * chosen number of events per second, with both scanners moving along
 * the strip, the pageblocks they passed marked, and the counts growing
 * as they did (comprun.h is the model).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "comprun.h"
#include "tui.h"
#include "util.h"

#define MAX_MAP_PFNS	(1u << 20)	/* largest zone mapped (4 GiB) */
#define KPF_LIVE_MS	1000		/* re-read kpageflags at most this often live */

struct zone_map {
	char		 name[P_NAME_LEN];
	int		 node;
	u64		 start, spanned;
	u64		 mapped;	/* pages the map covers: spanned, capped */
	int		 nblocks;
	struct kpf_block *blocks;
	char		 err[PERR_LEN];
	bool		 seen;		/* the trace has events in this zone */
	struct cstate	 st;		/* its latest run as far as traced */
};

static const char *const counters[] = {
	"compact_stall", "compact_success", "compact_fail", "compact_isolated",
	"compact_migrate_scanned", "compact_free_scanned", "compact_daemon_wake",
	"compact_daemon_migrate_scanned", "compact_daemon_free_scanned",
	"pgmigrate_success", "pgmigrate_fail",
};
#define NCOUNTERS (int)(sizeof(counters) / sizeof(counters[0]))

static struct buf fbuf;
static struct vmstat vs;
static struct zoneinfo zi;
static struct pagetypeinfo pti;
static struct extfrag ef;
static struct buddyinfo bi;
static struct trace tr;
static struct zone_map zones[P_MAX_ZONES];
static int nzones;
static unsigned char *cls;
static size_t cls_cap;
static u64 vals[NCOUNTERS];
static struct rate rates[NCOUNTERS];
static double eff_interval = -1;	/* scan efficiency over the last interval */
static u64 prev_mig, prev_free;
static bool have_prev;
static int rc_vm, rc_zi, rc_pti, rc_ef, rc_bi, rc_tr;
static double kpf_at = -1e18;
static u64 zone_ppb = 1024;		/* pages per pageblock */
static struct source *src_last;		/* the source of the last update */

/* Replay speeds, events per second ({ and } step through them). */
static const int speeds[] = { 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000 };
#define NSPEEDS		(int)(sizeof(speeds) / sizeof(speeds[0]))
#define SPEED_DEFAULT	3
#define PLAY_FRAME_MS	20		/* redraw at most 50 times a second */

/* The replay: the events frozen when it began, and where the student is. */
static struct {
	bool		 on, playing;
	struct trace	 tr;		/* a copy of the events at R */
	struct cruns	 runs;
	int		 run, cur;	/* the run shown, its current event */
	int		 speed;		/* index into speeds[] */
	double		 t0;		/* wall ms at which playing was at i0 */
	int		 i0;
	bool		 coarse;	/* the run's times are 10 ms ticks */
	struct cstate	 st;		/* the run after event cur */
	unsigned char	*blk;		/* CB_* per pageblock up to cur */
	int		 blk_cap;
	struct zone_map	 own;		/* the run's zone, if zoneinfo lacks it */
	char		 note[PERR_LEN];	/* why R did not start */
} rp = { .speed = SPEED_DEFAULT };

/* Nothing to set up before the first update. */
static void
compact_init(void)
{
}

/* Summarise a zone's first MAX_MAP_PFNS pages into pageblocks of ppb
 * (1..MAX_MAP_PFNS, so the block count fits an int) from kpageflags. */
static void
map_zone(struct source *src, struct zone_map *z, u64 ppb)
{
	u64	n = z->spanned;

	z->err[0] = '\0';
	if (n > MAX_MAP_PFNS) {
		snprintf(z->err, sizeof(z->err), "zone larger than the map: first %u pages shown",
		    MAX_MAP_PFNS);
		n = MAX_MAP_PFNS;
	}
	z->mapped = n;
	z->nblocks = (int)((n + ppb - 1) / ppb);
	z->blocks = xrealloc(z->blocks, (size_t)(z->nblocks ? z->nblocks : 1) * sizeof(*z->blocks));
	memset(z->blocks, 0, (size_t)z->nblocks * sizeof(*z->blocks));
	if (n > cls_cap) {
		cls_cap = n;
		cls = xrealloc(cls, cls_cap);
	}
	/* a start pfn whose byte offset does not fit an off_t is not read */
	if (z->start > (u64)(INT64_MAX / 8) - n ||
	    source_pread(src, "proc/kpageflags", (off_t)(z->start * 8), (size_t)n * 8, &fbuf) < 0) {
		size_t	l = strlen(z->err);

		/* after the cap's note, if there is one */
		snprintf(z->err + l, sizeof(z->err) - l, "%sproc/kpageflags: not readable",
		    l ? "; " : "");
		fbuf.len = 0;
	}
	{
		char	perr_kpf[PERR_LEN];

		if (parse_kpageflags(fbuf.p, fbuf.len, z->start, cls, (size_t)n, perr_kpf) < 0 &&
		    !z->err[0])
			memcpy(z->err, perr_kpf, sizeof(z->err));
	}
	for (u64 i = 0; i < n; i++) {
		struct kpf_block	*b = &z->blocks[i / ppb];

		switch (i < n ? cls[i] : KPC_UNREAD) {
		case KPC_FREE: b->free++; break;
		case KPC_MOVABLE: b->movable++; break;
		case KPC_UNMOVABLE: b->unmovable++; break;
		case KPC_HOLE: b->hole++; break;
		default: b->unread++; break;
		}
	}
}

/* The zone a pfn belongs to, or NULL. */
static struct zone_map *
zone_of(u64 pfn)
{
	for (int i = 0; i < nzones; i++)
		if (pfn >= zones[i].start && pfn < zones[i].start + zones[i].spanned)
			return &zones[i];
	return NULL;
}

/* Each zone's latest run from the trace, as far as its events go (a run
 * whose begin left the buffer still shows its scanners). */
static void
latest_runs(void)
{
	struct zone_map	*cur = NULL;

	for (int i = 0; i < nzones; i++) {
		zones[i].seen = false;
		memset(&zones[i].st, 0, sizeof(zones[i].st));
	}
	for (int i = 0; i < tr.n; i++) {
		const struct tev	*e = &tr.ev[i];
		struct zone_map		*z;

		if (e->type == TEV_OTHER)
			continue;
		/* migratepages names no pfn: it belongs to the run in progress */
		z = e->type == TEV_MIGRATE ? cur : zone_of(e->a);
		if (!z)
			continue;
		z->seen = true;
		cstate_apply(&z->st, e);
		if (e->type == TEV_BEGIN)
			cur = z;
	}
}

/* The zone map the replayed run is drawn on: the zone of proc/zoneinfo
 * with the run's bounds, else the replay's own. */
static struct zone_map *
replay_zone(void)
{
	const struct tev	*b = crun_event(&rp.tr, &rp.runs, rp.run, 0);

	for (int i = 0; i < nzones; i++)
		if (zones[i].start == b->a && zones[i].start + zones[i].spanned == b->d)
			return &zones[i];
	return &rp.own;
}

/* Set up (and map from kpageflags) the replay's own zone for a run whose
 * zone proc/zoneinfo does not show. */
static void
map_own_zone(void)
{
	const struct tev	*b = crun_event(&rp.tr, &rp.runs, rp.run, 0);

	if (replay_zone() != &rp.own || !src_last)
		return;
	snprintf(rp.own.name, sizeof(rp.own.name), "?");
	rp.own.node = -1;
	rp.own.start = b->a;
	/* a run's bounds from a damaged trace must not make a huge strip */
	rp.own.spanned = b->d > b->a && b->d - b->a <= 4 * (u64)MAX_MAP_PFNS ? b->d - b->a : 0;
	map_zone(src_last, &rp.own, zone_ppb);
}

/* The run's state after the current event, and the blocks covered. */
static void
replay_compute(void)
{
	struct zone_map	*z = replay_zone();

	if (z->nblocks > rp.blk_cap) {
		rp.blk_cap = z->nblocks;
		rp.blk = xrealloc(rp.blk, (size_t)rp.blk_cap);
	}
	crun_state(&rp.tr, &rp.runs, rp.run, rp.cur, &rp.st, rp.blk, z->nblocks, zone_ppb);
}

/* Whether every event of the run is on a 10 ms tick: the trace clock
 * "local" of a UML kernel without patches/base/0003 counts jiffies at
 * HZ=100 (an older recording, a kernel of the user's own). */
static bool
run_is_coarse(void)
{
	const struct crun	*r = &rp.runs.run[rp.run];

	if (r->nev < 3)
		return false;
	for (int i = 0; i < r->nev; i++) {
		double	t = crun_event(&rp.tr, &rp.runs, rp.run, i)->ts * 100;

		/* a guest's timestamp may be any double: no cast to an integer */
		if (!isfinite(t) || fabs(t - nearbyint(t)) > 1e-6)
			return false;
	}
	return true;
}

/* Show run r (0-based) from its event i (clamped), paused. */
static void
replay_select(int r, int i)
{
	rp.run = r;
	rp.cur = i < 0 ? 0 : i >= rp.runs.run[r].nev ? rp.runs.run[r].nev - 1 : i;
	rp.playing = false;
	rp.coarse = run_is_coarse();
	map_own_zone();
}

/* Freeze the trace as last read and find its runs; an error text or NULL. */
static const char *
replay_begin(void)
{
	if (rc_tr)
		return "sys/kernel/tracing/trace not readable";
	rp.tr.n = 0;
	if (tr.n > rp.tr.cap) {
		rp.tr.cap = tr.n;
		rp.tr.ev = xrealloc(rp.tr.ev, (size_t)rp.tr.cap * sizeof(*rp.tr.ev));
	}
	if (tr.n)
		memcpy(rp.tr.ev, tr.ev, (size_t)tr.n * sizeof(*tr.ev));
	rp.tr.n = tr.n;
	if (cruns_find(&rp.tr, &rp.runs) == 0)
		return "no compaction run in the trace buffer (no mm_compaction_begin: "
		    "enable events/compaction, then compact)";
	return NULL;
}

/* Start replaying (see tui.h). */
const char *
compact_replay_start(int run, int event)
{
	static char	 err[PERR_LEN];
	const char	*e = replay_begin();

	if (e)
		return e;
	if (run < 0 || run > rp.runs.n) {
		snprintf(err, sizeof(err), "run %d: the trace buffer has %d run%s", run,
		    rp.runs.n, rp.runs.n == 1 ? "" : "s");
		return err;
	}
	if (run == 0)
		run = rp.runs.n;
	if (event < 1 || event > rp.runs.run[run - 1].nev) {
		snprintf(err, sizeof(err), "event %d: run %d has events 1..%d", event, run,
		    rp.runs.run[run - 1].nev);
		return err;
	}
	rp.on = true;
	rp.note[0] = '\0';
	replay_select(run - 1, event - 1);
	return NULL;
}

/* Re-anchor playing at the current event and now. */
static void
replay_anchor(void)
{
	rp.t0 = (double)now_us() / 1e3;
	rp.i0 = rp.cur;
}

/* Advance a playing replay to wall time now_ms. */
static double
compact_tick(double now_ms, bool *changed)
{
	const struct crun	*r;
	double			 per, due, steps;
	int			 target;

	if (!rp.on || !rp.playing)
		return -1;
	r = &rp.runs.run[rp.run];
	per = 1000.0 / speeds[rp.speed];
	steps = now_ms > rp.t0 ? (now_ms - rp.t0) / per : 0;
	target = steps >= r->nev ? r->nev - 1 : rp.i0 + (int)steps;
	if (target >= r->nev - 1) {
		target = r->nev - 1;
		rp.playing = false;
		*changed = true;
	}
	if (target != rp.cur) {
		rp.cur = target;
		*changed = true;
	}
	if (!rp.playing)
		return -1;
	due = rp.t0 + (target - rp.i0 + 1) * per;
	return due < now_ms + PLAY_FRAME_MS ? now_ms + PLAY_FRAME_MS : due;
}

/* Read every file this view draws from. */
static void
compact_update(struct ctx *c)
{
	u64	ppb;

	rc_vm = source_read(c->src, "proc/vmstat", &fbuf);
	if (rc_vm == 0)
		parse_vmstat(fbuf.p, fbuf.len, &vs);
	for (int i = 0; i < NCOUNTERS; i++) {
		vals[i] = rc_vm == 0 ? kv_val(&vs.kv, counters[i]) : 0;
		rate_feed(&rates[i], vals[i], c->now_ms, c->jumped || rc_vm);
	}
	if (rc_vm == 0) {
		u64	m = kv_val(&vs.kv, "compact_migrate_scanned");
		u64	f = kv_val(&vs.kv, "compact_free_scanned");

		eff_interval = -1;
		if (have_prev && !c->jumped && f > prev_free && m >= prev_mig)
			eff_interval = (double)(m - prev_mig) / (double)(f - prev_free);
		else if (have_prev && !c->jumped && f == prev_free && m == prev_mig)
			eff_interval = -2;	/* nothing scanned */
		prev_mig = m;
		prev_free = f;
		have_prev = true;
	}
	rc_zi = source_read(c->src, "proc/zoneinfo", &fbuf);
	if (rc_zi == 0)
		parse_zoneinfo(fbuf.p, fbuf.len, &zi);
	rc_pti = source_read(c->src, "proc/pagetypeinfo", &fbuf);
	if (rc_pti == 0)
		parse_pagetypeinfo(fbuf.p, fbuf.len, &pti);
	/* a pageblock of 0 or larger than the map is not believed */
	ppb = rc_pti == 0 && pti.pages_per_block && pti.pages_per_block <= MAX_MAP_PFNS ?
	    pti.pages_per_block : 1024;
	zone_ppb = ppb;
	src_last = c->src;
	rc_ef = source_read(c->src, "sys/kernel/debug/extfrag/extfrag_index", &fbuf);
	if (rc_ef == 0)
		parse_extfrag(fbuf.p, fbuf.len, &ef);
	rc_bi = source_read(c->src, "proc/buddyinfo", &fbuf);
	if (rc_bi == 0)
		parse_buddyinfo(fbuf.p, fbuf.len, &bi);

	if (rc_zi != 0)
		nzones = 0;	/* no zones to draw rather than stale ones */
	if (rc_zi == 0) {
		bool	map = c->src->kind == SRC_DIR || c->src->kind == SRC_RECORDING ||
		    c->jumped || c->now_ms - kpf_at >= KPF_LIVE_MS;
		int	n = 0;

		for (int i = 0; i < zi.nzones && n < P_MAX_ZONES; i++) {
			struct zi_zone	*s = &zi.zone[i];
			struct zone_map	*z = &zones[n];

			if (!s->has_start || !s->spanned)
				continue;
			if (strcmp(z->name, s->name) || z->start != s->start_pfn ||
			    z->spanned != s->spanned)
				map = true;
			memcpy(z->name, s->name, sizeof(z->name));
			z->node = s->node;
			z->start = s->start_pfn;
			z->spanned = s->spanned;
			n++;
		}
		if (n != nzones)
			map = true;
		nzones = n;
		if (map) {
			for (int i = 0; i < nzones; i++)
				map_zone(c->src, &zones[i], ppb);
			if (rp.on)
				map_own_zone();
			kpf_at = c->now_ms;
		}
	}
	rc_tr = source_read(c->src, "sys/kernel/tracing/trace", &fbuf);
	if (rc_tr == 0)
		parse_trace(fbuf.p, fbuf.len, &tr);
	else
		tr.n = 0;
	latest_runs();
}

/* Majority class of the blocks [b0, b1) of a zone. */
static enum kpc
cell_class(const struct zone_map *z, int b0, int b1)
{
	int	cnt[KPC_UNMOVABLE + 1] = { 0 }, best = KPC_UNREAD;

	for (int b = b0; b < b1 && b < z->nblocks; b++)
		cnt[kpf_block_class(&z->blocks[b])]++;
	for (int k = KPC_UNREAD; k <= KPC_UNMOVABLE; k++)
		if (cnt[k] > cnt[best] || (cnt[k] == cnt[best] && k > best && cnt[k]))
			best = k;
	return (enum kpc)best;
}

/* The strip column (of cells in all) where a pfn of the zone falls. */
static long
col_of(const struct zone_map *z, u64 pfn, int cells)
{
	long	c;

	if (pfn < z->start)
		return 0;
	if (z->mapped == 0)
		return 0;
	c = (long)((double)(pfn - z->start) * cells / (double)z->mapped);
	return c >= cells ? cells - 1 : c;
}

/* The CB_* flags of the blocks [b0, b1) in the replay's block marks. */
static unsigned
cell_marks(const struct zone_map *z, int b0, int b1)
{
	unsigned	m = 0;

	for (int b = b0; b < b1 && b < z->nblocks; b++)
		m |= rp.blk[b];
	return m;
}

/* What the current replay event did, in words. */
static void
event_text(char *out, size_t n, const struct tev *e)
{
	switch (e->type) {
	case TEV_BEGIN:
		snprintf(out, n, "begin: %s, zone %#llx-%#llx, migrate from %#llx, free from %#llx",
		    e->sync ? "sync" : "async", e->a, e->d, e->b, e->c);
		break;
	case TEV_END:
		snprintf(out, n, "end: status %s, migrate at %#llx, free at %#llx", e->status,
		    e->b, e->c);
		break;
	case TEV_ISO_MIGRATE:
	case TEV_ISO_FREE:
	case TEV_ISO_FAST_FREE:
		snprintf(out, n, "%s %#llx-%#llx: scanned %llu, isolated %llu",
		    e->type == TEV_ISO_MIGRATE ? "isolate_migratepages" :
		    e->type == TEV_ISO_FREE ? "isolate_freepages" : "fast_isolate_freepages",
		    e->a, e->b, e->c, e->d);
		break;
	case TEV_MIGRATE:
		snprintf(out, n, "migratepages: migrated %llu, failed %llu", e->a, e->b);
		break;
	case TEV_OTHER:
		snprintf(out, n, "%s", tev_name(e->type));
		break;
	}
}

/* The scanners' counts: the M and F rows. */
static int
draw_counts(struct frame *f, int line, const struct cstate *s)
{
	fr_printf(f, line, 0, C_MIGRATE, "  M migrate pfn %#-8llx", s->mig);
	fr_printf(f, line++, 26, C_NORM, "scanned %-8llu isolated %-7llu migrated %llu",
	    s->mig_scanned, s->mig_taken, s->migrated);
	fr_printf(f, line, 0, C_FREESCAN, "  F free pfn    %#-8llx", s->free);
	fr_printf(f, line++, 26, C_NORM, "scanned %-8llu isolated %-7llu failed %llu",
	    s->free_scanned, s->free_taken, s->failed);
	return line;
}

/* The replay's lines under its zone: where in the run, what the event
 * did, the counts so far, and the keys. */
static int
draw_replay_text(struct frame *f, int line)
{
	const struct crun	*r = &rp.runs.run[rp.run];
	const struct tev	*e = crun_event(&rp.tr, &rp.runs, rp.run,
	    rp.cur);
	char			 what[160];
	int			 x;

	x = fr_printf(f, line, 0, C_TITLE, "replay: event %d of %d, t=%.3fms into the run",
	    rp.cur + 1, r->nev, (e->ts - rp.st.ts_begin) * 1e3);
	if (rp.runs.n > 1)
		x = fr_printf(f, line, x, C_NORM, "  (run %d of %d)", rp.run + 1, rp.runs.n);
	if (!r->ended && rp.cur == r->nev - 1)
		fr_text(f, line, x, C_DIM, "  no end traced yet");
	line++;
	event_text(what, sizeof(what), e);
	fr_printf(f, line++, 0, C_MARK, "  now: %s", what);
	line = draw_counts(f, line, &rp.st);
	fr_printf(f, line++, 0, C_DIM, "  %s %d events/s   . , step  p play  { } speed  < > first/last%s  R leave",
	    rp.playing ? "playing," : rp.cur == r->nev - 1 ? "at the end," : "paused,",
	    speeds[rp.speed], rp.runs.n > 1 ? "  ( ) run" : "");
	if (rp.coarse)
		fr_text(f, line++, 0, C_DIM,
		    "  times in 10 ms ticks (trace_clock local): echo mono > tracing/trace_clock");
	return line;
}

/* A zone: header, strip rows with scanner markers beneath; replay marks
 * the blocks each scanner passed (colour on the strip, and beneath it ─
 * scanned, ═ pages isolated there). */
static int
draw_zone(struct frame *f, int line, struct zone_map *z, bool replay)
{
	static const char *const	 gu[] = { "?", " ", "·", "▒", "█" };
	static const char *const	 ga[] = { "?", " ", ".", "m", "U" };
	static const int		 at[] = { C_DIM, C_HOLE, C_FREE, C_MOVABLE, C_UNMOVABLE };
	int				 width = f->w - 1, rows, per, rep,
	    cells;
	const struct cstate		*s = replay ? &rp.st : &z->st;
	bool				 seen = replay || z->seen;
	char				 sz[16];

	fmt_pages(sz, sizeof(sz), (double)z->spanned);
	if (z == &rp.own)
		fr_text(f, line, 0, C_TITLE, "Run's zone (no zoneinfo)");
	else
		fr_printf(f, line, 0, C_TITLE, "Node %d zone %s", z->node, z->name);
	fr_printf(f, line, z == &rp.own ? 26 : 20, C_NORM,
	    "pfn %#llx-%#llx %s, %d blocks of %llu pages",
	    z->start, z->start + z->spanned, sz, z->nblocks, zone_ppb);
	line++;
	if (replay)
		replay_compute();
	if (width < 8 || z->nblocks == 0)
		return replay ? draw_replay_text(f, line) : line;
	/* widen blocks to fill one row, or merge them to fit in 4 rows */
	if (z->nblocks <= width) {
		rep = width / z->nblocks > 16 ? 16 : width / z->nblocks;
		per = 1;
		cells = z->nblocks * rep;
	} else {
		rep = 1;
		per = (z->nblocks + 4 * width - 1) / (4 * width);
		cells = (z->nblocks + per - 1) / per;
	}
	rows = (cells + width - 1) / width;
	for (int r = 0; r < rows; r++) {
		for (int x = 0; x < width && r * width + x < cells; x++) {
			int		cell = r * width + x;
			int		b0 = rep > 1 ? cell / rep : cell * per;
			int		b1 = rep > 1 ? b0 + 1 : b0 + per;
			enum kpc	k = cell_class(z, b0, b1);
			unsigned	m = replay ? cell_marks(z, b0, b1) : 0;
			int		a = m & CB_MIG ? C_MIGPASS : m & CB_FREE ? C_FREEPASS : at[k];

			fr_text(f, line, x, a, glyph(gu[k], ga[k]));
		}
		line++;
		if (seen) {
			long	mc = col_of(z, s->mig, cells) - (long)r * width;
			long	fc = col_of(z, s->free, cells) -
			    (long)r * width;
			long	m0 = col_of(z, s->run_mig, cells) - (long)r * width;
			long	f0 = col_of(z, s->run_free, cells) - (long)r * width;

			if (replay) {
				/* the blocks each scanner scanned so far, and those
				 * it passed over without scanning */
				for (int x = 0; x < width && r * width + x < cells; x++) {
					int		cell = r * width + x;
					int		b0 = rep > 1 ? cell / rep : cell * per;
					unsigned	m = cell_marks(z, b0, rep > 1 ? b0 + 1 : b0 + per);
					long		rx = x;

					if (m & CB_MIG)
						fr_text(f, line, x, C_MIGRATE, m & CB_MIG_TAKEN
						    ? glyph("═", "=") : glyph("─", "-"));
					else if (m & CB_FREE)
						fr_text(f, line, x, C_FREESCAN, m & CB_FREE_TAKEN
						    ? glyph("═", "=") : glyph("─", "-"));
					else if (rx >= m0 && rx < mc)
						fr_text(f, line, x, C_MIGRATE, glyph("┄", "."));
					else if (rx > fc && rx <= f0)
						fr_text(f, line, x, C_FREESCAN, glyph("┄", "."));
				}
			} else {
				/* the stretch each scanner covered this run */
				for (long x = m0 < 0 ? 0 : m0; x < mc && x < width; x++)
					fr_text(f, line, (int)x, C_MIGRATE, glyph("─", "-"));
				for (long x = fc + 1 < 0 ? 0 : fc + 1; x <= f0 && x < width; x++)
					fr_text(f, line, (int)x, C_FREESCAN, glyph("─", "-"));
			}
			if (fc >= 0 && fc < width)
				fr_text(f, line, (int)fc, C_FREESCAN, "F");
			if (mc >= 0 && mc < width)
				fr_text(f, line, (int)mc, C_MIGRATE, "M");
			line++;
		}
	}
	if (z->err[0])
		fr_text(f, line++, 0, C_DIM, z->err);
	if (replay)
		return draw_replay_text(f, line);
	if (seen) {
		if (s->begun)
			fr_printf(f, line++, 0, C_NORM, "last run: %s %s at %.3fs%s%s",
			    s->sync ? "sync" : "async", s->ended ? "ended" : "in progress",
			    s->ts_last, s->status[0] ? ", status " : "", s->status);
		else
			fr_printf(f, line++, 0, C_NORM, "last run: at %.3fs, its begin no longer "
			    "in the trace buffer", s->ts_last);
		line = draw_counts(f, line, s);
	} else {
		fr_text(f, line++, 0, C_DIM,
		    rc_tr ? "no trace: sys/kernel/tracing/trace not readable"
		    : "no compaction events in the trace buffer (enable events/compaction)");
	}
	return line;
}

/* Two columns of counters with their rates. */
static int
draw_counters(struct frame *f, int line)
{
	/* A counter row is 53 columns wide: two side by side need 106. */
	int	colw = f->w >= 106 ? f->w / 2 : f->w;
	int	per_col = colw == f->w ? NCOUNTERS : (NCOUNTERS + 1) / 2;
	char	v[16], r[16];

	if (rc_vm < 0) {
		fr_text(f, line, 0, C_WARN, "proc/vmstat not readable");
		return line + 1;
	}
	for (int i = 0; i < NCOUNTERS; i++) {
		int	col = (i / per_col) * colw, l = line + i % per_col;

		fmt_count(v, sizeof(v), (double)vals[i]);
		if (rates[i].valid)
			fmt_count(r, sizeof(r), rates[i].per_s);
		else
			snprintf(r, sizeof(r), "-");
		fr_printf(f, l, col, C_NORM, "%-31s %9s %8s/s", counters[i], v, r);
	}
	return line + per_col;
}

/* The whole view. */
static void
compact_draw(struct frame *f)
{
	int	line = 0, x;
	u64	m = vals[4], fs = vals[5];

	if (rc_zi < 0) {
		fr_text(f, line++, 0, C_WARN, "proc/zoneinfo not readable");
	}
	if (rp.on && replay_zone() == &rp.own)
		line = draw_zone(f, line, &rp.own, true);
	for (int i = 0; i < nzones; i++)
		line = draw_zone(f, line, &zones[i], rp.on && replay_zone() == &zones[i]);
	if (rp.note[0])
		fr_printf(f, line++, 0, C_WARN, "replay: %s", rp.note);
	x = fr_printf(f, line, 0, C_DIM, "%s free %s movable %s unmovable %s not read",
	    glyph("·", "."), glyph("▒", "m"), glyph("█", "U"), "?");
	if (!rp.on)
		x = fr_printf(f, line, x, C_DIM, " %s scanned", glyph("─", "-"));
	x = fr_text(f, line, x + 2, C_MIGRATE, "M migrate");
	fr_text(f, line, x + 1, C_FREESCAN, "F free scanner");
	if (rp.on)
		fr_printf(f, ++line, 0, C_DIM, "%s scanned  %s pages isolated  %s passed over, "
		    "not scanned", glyph("─", "-"), glyph("═", "="), glyph("┄", "."));
	line += 2;
	if (fs)
		fr_printf(f, line, 0, C_TITLE, "scan efficiency %.1f%% (%llu migrate / %llu free scanned)",
		    100.0 * (double)m / (double)fs, m, fs);
	else
		fr_text(f, line, 0, C_TITLE, "scan efficiency - (no free pages scanned yet)");
	if (eff_interval >= 0)
		fr_printf(f, line + 1, 2, C_NORM, "last interval %.1f%%", 100 * eff_interval);
	else
		fr_text(f, line + 1, 2, C_DIM, eff_interval == -2 ? "last interval: nothing scanned"
		    : "last interval: -");
	line = draw_counters(f, line + 2) + 1;
	fr_printf(f, line++, 0, C_TITLE, "%-9s", "order");
	for (int o = 0; o < 11; o++)
		fr_printf(f, line - 1, 9 + 6 * o, C_TITLE, "%6d", o);
	for (int i = 0; i < ef.nzones && rc_ef == 0; i++) {
		x = fr_printf(f, line, 0, C_NORM, "%-9.9s", "extfrag");

		for (int o = 0; o < ef.zone[i].norders; o++)
			x = fr_printf(f, line, x, ef.zone[i].milli[o] > 500 ? C_WARN : C_NORM,
			    " %5.2f", ef.zone[i].milli[o] / 1000.0);
		fr_printf(f, line, x + 1, C_DIM, "%s", ef.zone[i].name);
		line++;
	}
	if (rc_ef)
		fr_text(f, line++, 0, C_DIM, "extfrag index: sys/kernel/debug/extfrag not readable");
	for (int i = 0; i < bi.nzones && rc_bi == 0; i++) {
		x = fr_printf(f, line, 0, C_NORM, "%-9.9s", "free blk");

		for (int o = 0; o < bi.zone[i].norders; o++)
			x = fr_printf(f, line, x, C_NORM, " %5llu", bi.zone[i].nr_free[o]);
		fr_printf(f, line, x + 1, C_DIM, "%s", bi.zone[i].name);
		line++;
	}
}

/* R replays; while replaying . , p space { } < > ( ) move through it. */
static int
compact_key(int ch)
{
	const struct crun	*r;
	const char		*e;

	if (ch == 'R') {
		rp.note[0] = '\0';
		if (rp.on) {
			rp.on = rp.playing = false;
		} else if ((e = compact_replay_start(0, 1)) != NULL) {
			snprintf(rp.note, sizeof(rp.note), "%s", e);
		}
		return 1;
	}
	if (!rp.on)
		return 0;
	r = &rp.runs.run[rp.run];
	switch (ch) {
	case '.':
	case ',':
		rp.playing = false;
		rp.cur += ch == '.' ? (rp.cur < r->nev - 1) : -(rp.cur > 0);
		break;
	case '<':
	case '>':
		rp.cur = ch == '<' ? 0 : r->nev - 1;
		rp.playing = false;
		break;
	case 'p':
	case ' ':
		rp.playing = !rp.playing;
		if (rp.playing && rp.cur == r->nev - 1)
			rp.cur = 0;	/* at the end: play again from the start */
		replay_anchor();
		break;
	case '{':
	case '}':
		rp.speed += ch == '}' ? (rp.speed < NSPEEDS - 1) : -(rp.speed > 0);
		replay_anchor();
		break;
	case '(':
	case ')':
		if (ch == '(' ? rp.run == 0 : rp.run == rp.runs.n - 1)
			return 1;
		replay_select(rp.run + (ch == ')' ? 1 : -1), 0);
		break;
	default:
		return 0;
	}
	return 1;
}

static const char *const compact_files[] = {
	"proc/vmstat", "proc/zoneinfo", "proc/pagetypeinfo", "proc/buddyinfo",
	"proc/kpageflags", "sys/kernel/debug/extfrag/extfrag_index",
	"sys/kernel/tracing/trace", NULL,
};

const struct view view_compact = {
	.name = "compaction",
	.title = "Compaction",
	.init = compact_init,
	.update = compact_update,
	.draw = compact_draw,
	.key = compact_key,
	.tick = compact_tick,
	.help = "scanners from the compaction tracepoints (events/compaction)\n"
		"R replay the runs in the trace: . , step  p space play/pause\n"
		"{ } slower/faster  < > first/last event  ( ) previous/next run",
	.files = compact_files,
};
