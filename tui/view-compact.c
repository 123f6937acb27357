/*
 * view-compact.c - compaction: each zone as a strip of pageblocks
 * classified from /proc/kpageflags, the migrate scanner (climbing from the
 * zone start) and the free scanner (descending from the zone end) at their
 * latest positions from the compaction tracepoints, the compact_* counters
 * with rates, scan efficiency (compact_migrate_scanned / compact_free_scanned,
 * as mmtests reports it), the extfrag index and free blocks per order.
 */
#include <stdlib.h>
#include <string.h>

#include "tui.h"
#include "util.h"

#define MAX_MAP_PFNS	(1u << 20)	/* largest zone mapped (4 GiB) */
#define KPF_LIVE_MS	1000		/* re-read kpageflags at most this often live */

/* What the trace says about the latest compaction run in a zone. */
struct scan {
	bool	seen, running;
	u64	run_mig, run_free;	/* scanner starts of that run */
	u64	mig, free;		/* latest positions */
	double	ts_begin, ts_last;
	bool	sync;
	char	status[20];
	u64	mig_scanned, mig_taken, free_scanned, free_taken;
	u64	migrated, failed;
};

struct zone_map {
	char		 name[P_NAME_LEN];
	int		 node;
	u64		 start, spanned;
	int		 nblocks;
	struct kpf_block *blocks;
	char		 err[PERR_LEN];
	struct scan	 scan;
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

/* Nothing to set up before the first update. */
static void compact_init(void)
{
}

/* Summarise a zone's pages into pageblocks from kpageflags. */
static void map_zone(struct source *src, struct zone_map *z, u64 ppb)
{
	u64 n = z->spanned;

	z->err[0] = '\0';
	if (n > MAX_MAP_PFNS) {
		snprintf(z->err, sizeof(z->err), "zone larger than the map: first %u pages shown",
			 MAX_MAP_PFNS);
		n = MAX_MAP_PFNS;
	}
	z->nblocks = (int)((z->spanned + ppb - 1) / ppb);
	z->blocks = xrealloc(z->blocks, (size_t)(z->nblocks ? z->nblocks : 1) * sizeof(*z->blocks));
	memset(z->blocks, 0, (size_t)z->nblocks * sizeof(*z->blocks));
	if (n > cls_cap) {
		cls_cap = n;
		cls = xrealloc(cls, cls_cap);
	}
	if (source_pread(src, "proc/kpageflags", (off_t)(z->start * 8), (size_t)n * 8, &fbuf) < 0) {
		snprintf(z->err, sizeof(z->err), "proc/kpageflags: not readable");
		fbuf.len = 0;
	}
	{
		char perr_kpf[PERR_LEN];

		if (parse_kpageflags(fbuf.p, fbuf.len, z->start, cls, (size_t)n, perr_kpf) < 0 &&
		    !z->err[0])
			memcpy(z->err, perr_kpf, sizeof(z->err));
	}
	for (u64 i = 0; i < z->spanned; i++) {
		struct kpf_block *b = &z->blocks[i / ppb];

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
static struct zone_map *zone_of(u64 pfn)
{
	for (int i = 0; i < nzones; i++)
		if (pfn >= zones[i].start && pfn < zones[i].start + zones[i].spanned)
			return &zones[i];
	return NULL;
}

/* Replay the trace's compaction events into per-zone scanner state. */
static void replay_trace(void)
{
	for (int i = 0; i < nzones; i++)
		memset(&zones[i].scan, 0, sizeof(zones[i].scan));
	struct zone_map *cur = NULL;

	for (int i = 0; i < tr.n; i++) {
		const struct tev *e = &tr.ev[i];
		struct zone_map *z = NULL;
		struct scan *s;

		switch (e->type) {
		case TEV_BEGIN:
		case TEV_END:
			z = zone_of(e->a);
			break;
		case TEV_ISO_MIGRATE:
		case TEV_ISO_FREE:
		case TEV_ISO_FAST_FREE:
			z = zone_of(e->a);
			break;
		case TEV_MIGRATE:
			z = cur;	/* belongs to the run in progress */
			break;
		case TEV_OTHER:
			break;
		}
		if (!z)
			continue;
		s = &z->scan;
		s->seen = true;
		s->ts_last = e->ts;
		switch (e->type) {
		case TEV_BEGIN:
			s->running = true;
			s->run_mig = s->mig = e->b;
			s->run_free = s->free = e->c;
			s->ts_begin = e->ts;
			s->sync = e->sync;
			s->status[0] = '\0';
			s->mig_scanned = s->mig_taken = s->free_scanned = s->free_taken = 0;
			s->migrated = s->failed = 0;
			cur = z;
			break;
		case TEV_END:
			s->running = false;
			s->mig = e->b;
			s->free = e->c;
			memcpy(s->status, e->status, sizeof(s->status));
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
		case TEV_OTHER:
			break;
		}
	}
}

/* Read every file this view draws from. */
static void compact_update(struct ctx *c)
{
	u64 ppb;

	rc_vm = source_read(c->src, "proc/vmstat", &fbuf);
	if (rc_vm == 0)
		parse_vmstat(fbuf.p, fbuf.len, &vs);
	for (int i = 0; i < NCOUNTERS; i++) {
		vals[i] = rc_vm == 0 ? kv_val(&vs.kv, counters[i]) : 0;
		rate_feed(&rates[i], vals[i], c->now_ms, c->jumped || rc_vm);
	}
	if (rc_vm == 0) {
		u64 m = kv_val(&vs.kv, "compact_migrate_scanned");
		u64 f = kv_val(&vs.kv, "compact_free_scanned");

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
	ppb = rc_pti == 0 && pti.pages_per_block ? pti.pages_per_block : 1024;
	rc_ef = source_read(c->src, "sys/kernel/debug/extfrag/extfrag_index", &fbuf);
	if (rc_ef == 0)
		parse_extfrag(fbuf.p, fbuf.len, &ef);
	rc_bi = source_read(c->src, "proc/buddyinfo", &fbuf);
	if (rc_bi == 0)
		parse_buddyinfo(fbuf.p, fbuf.len, &bi);

	if (rc_zi == 0) {
		bool map = c->src->kind == SRC_DIR || c->src->kind == SRC_RECORDING ||
			   c->jumped || c->now_ms - kpf_at >= KPF_LIVE_MS;
		int n = 0;

		for (int i = 0; i < zi.nzones && n < P_MAX_ZONES; i++) {
			struct zi_zone *s = &zi.zone[i];
			struct zone_map *z = &zones[n];

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
			kpf_at = c->now_ms;
		}
	}
	rc_tr = source_read(c->src, "sys/kernel/tracing/trace", &fbuf);
	if (rc_tr == 0)
		parse_trace(fbuf.p, fbuf.len, &tr);
	else
		tr.n = 0;
	replay_trace();
}

/* Majority class of the blocks [b0, b1) of a zone. */
static enum kpc cell_class(const struct zone_map *z, int b0, int b1)
{
	int cnt[KPC_UNMOVABLE + 1] = { 0 }, best = KPC_UNREAD;

	for (int b = b0; b < b1 && b < z->nblocks; b++)
		cnt[kpf_block_class(&z->blocks[b])]++;
	for (int k = KPC_UNREAD; k <= KPC_UNMOVABLE; k++)
		if (cnt[k] > cnt[best] || (cnt[k] == cnt[best] && k > best && cnt[k]))
			best = k;
	return (enum kpc)best;
}

/* The strip column (of cells in all) where a pfn of the zone falls. */
static long col_of(const struct zone_map *z, u64 pfn, int cells)
{
	long c;

	if (pfn < z->start)
		return 0;
	c = (long)((double)(pfn - z->start) * cells / (double)z->spanned);
	return c >= cells ? cells - 1 : c;
}

/* A zone: header, strip rows with scanner markers beneath. */
static int draw_zone(struct frame *f, int line, struct zone_map *z)
{
	static const char *const gu[] = { "?", " ", "·", "▒", "█" };
	static const char *const ga[] = { "?", " ", ".", "m", "U" };
	static const int at[] = { C_DIM, C_HOLE, C_FREE, C_MOVABLE, C_UNMOVABLE };
	int width = f->w - 1, rows, per, rep, cells;
	const struct scan *s = &z->scan;
	char sz[16];

	fmt_pages(sz, sizeof(sz), (double)z->spanned);
	fr_printf(f, line, 0, C_TITLE, "Node %d zone %s", z->node, z->name);
	fr_printf(f, line, 20, C_NORM, "pfn %#llx-%#llx %s, %d blocks of %llu pages",
		  z->start, z->start + z->spanned, sz, z->nblocks,
		  pti.pages_per_block ? pti.pages_per_block : 1024);
	line++;
	if (width < 8 || z->nblocks == 0)
		return line;
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
			int cell = r * width + x;
			enum kpc k = rep > 1 ? cell_class(z, cell / rep, cell / rep + 1)
					     : cell_class(z, cell * per, (cell + 1) * per);

			fr_text(f, line, x, at[k], glyph(gu[k], ga[k]));
		}
		line++;
		if (s->seen) {
			long mc = col_of(z, s->mig, cells) - (long)r * width;
			long fc = col_of(z, s->free, cells) - (long)r * width;
			long m0 = col_of(z, s->run_mig, cells) - (long)r * width;
			long f0 = col_of(z, s->run_free, cells) - (long)r * width;

			/* the stretch each scanner covered this run, then its head */
			for (long x = m0 < 0 ? 0 : m0; x < mc && x < width; x++)
				fr_text(f, line, (int)x, C_MIGRATE, glyph("─", "-"));
			for (long x = fc + 1 < 0 ? 0 : fc + 1; x <= f0 && x < width; x++)
				fr_text(f, line, (int)x, C_FREESCAN, glyph("─", "-"));
			if (fc >= 0 && fc < width)
				fr_text(f, line, (int)fc, C_FREESCAN, "F");
			if (mc >= 0 && mc < width)
				fr_text(f, line, (int)mc, C_MIGRATE, "M");
			line++;
		}
	}
	if (z->err[0])
		fr_text(f, line++, 0, C_DIM, z->err);
	if (s->seen) {
		fr_printf(f, line++, 0, C_NORM, "last run: %s %s at %.3fs%s%s",
			  s->sync ? "sync" : "async", s->running ? "in progress" : "ended",
			  s->ts_last, s->status[0] ? ", status " : "", s->status);
		fr_printf(f, line, 0, C_MIGRATE, "  M migrate pfn %#-8llx", s->mig);
		fr_printf(f, line++, 26, C_NORM, "scanned %-8llu isolated %-7llu migrated %llu",
			  s->mig_scanned, s->mig_taken, s->migrated);
		fr_printf(f, line, 0, C_FREESCAN, "  F free pfn    %#-8llx", s->free);
		fr_printf(f, line++, 26, C_NORM, "scanned %-8llu isolated %-7llu failed %llu",
			  s->free_scanned, s->free_taken, s->failed);
	} else {
		fr_text(f, line++, 0, C_DIM,
			rc_tr ? "no trace: sys/kernel/tracing/trace not readable"
			      : "no compaction events in the trace buffer (enable events/compaction)");
	}
	return line;
}

/* Two columns of counters with their rates. */
static int draw_counters(struct frame *f, int line)
{
	/* A counter row is 53 columns wide: two side by side need 106. */
	int colw = f->w >= 106 ? f->w / 2 : f->w;
	int per_col = colw == f->w ? NCOUNTERS : (NCOUNTERS + 1) / 2;
	char v[16], r[16];

	if (rc_vm < 0) {
		fr_text(f, line, 0, C_WARN, "proc/vmstat not readable");
		return line + 1;
	}
	for (int i = 0; i < NCOUNTERS; i++) {
		int col = (i / per_col) * colw, l = line + i % per_col;

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
static void compact_draw(struct frame *f)
{
	int line = 0;
	u64 m = vals[4], fs = vals[5];

	if (rc_zi < 0) {
		fr_text(f, line++, 0, C_WARN, "proc/zoneinfo not readable");
	}
	for (int i = 0; i < nzones; i++)
		line = draw_zone(f, line, &zones[i]);
	fr_printf(f, line, 0, C_DIM, "%s free %s movable %s unmovable %s not read %s scanned",
		  glyph("·", "."), glyph("▒", "m"), glyph("█", "U"), "?", glyph("─", "-"));
	fr_text(f, line, 55, C_MIGRATE, "M migrate");
	fr_text(f, line, 65, C_FREESCAN, "F free scanner");
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
		int x = fr_printf(f, line, 0, C_NORM, "%-9.9s", "extfrag");

		for (int o = 0; o < ef.zone[i].norders; o++)
			x = fr_printf(f, line, x, ef.zone[i].milli[o] > 500 ? C_WARN : C_NORM,
				      " %5.2f", ef.zone[i].milli[o] / 1000.0);
		fr_printf(f, line, x + 1, C_DIM, "%s", ef.zone[i].name);
		line++;
	}
	if (rc_ef)
		fr_text(f, line++, 0, C_DIM, "extfrag index: sys/kernel/debug/extfrag not readable");
	for (int i = 0; i < bi.nzones && rc_bi == 0; i++) {
		int x = fr_printf(f, line, 0, C_NORM, "%-9.9s", "free blk");

		for (int o = 0; o < bi.zone[i].norders; o++)
			x = fr_printf(f, line, x, C_NORM, " %5llu", bi.zone[i].nr_free[o]);
		fr_printf(f, line, x + 1, C_DIM, "%s", bi.zone[i].name);
		line++;
	}
}

/* No keys of its own. */
static int compact_key(int ch)
{
	return 0;
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
	.help = "scanners from the compaction tracepoints (events/compaction)",
	.files = compact_files,
};
