/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * view-lru.c - MGLRU generations per memcg and node (debugfs lru_gen, or
 * lru_gen_full when tier statistics are shown), with aging (max_seq
 * advancing) and eviction (min_seq advancing) marked when they happen, a
 * sparkline of each generation's size since it was created, and the
 * enabled bits and min_ttl_ms of /sys/kernel/mm/lru_gen.
 */
#include <stdlib.h>
#include <errno.h>
#include <string.h>

#include "lruhist.h"
#include "tui.h"
#include "util.h"

#define MARK_MS		5000	/* how long an aging / eviction stays marked */

static struct buf fbuf;
static struct lrugen lg;
static struct lruhist hist;
static bool tiers;		/* read lru_gen_full and show tier rows */
static int rc;			/* result of reading the file */
static char enabled[24], min_ttl[24];
static double now;

/* Nothing to set up before the first update. */
static void
lru_init(void)
{
}

/* Read one short sysfs value, without its newline. */
static void
read_value(struct source *src, const char *rel, char *out, size_t n)
{
	if (source_read(src, rel, &fbuf) < 0) {
		snprintf(out, n, "n/a");
		return;
	}
	fbuf.p[strcspn(fbuf.p, "\n")] = '\0';
	snprintf(out, n, "%s", fbuf.p);
}

/* Read and parse lru_gen(_full); compare seqs with the previous sample. */
static void
lru_update(struct ctx *c)
{
	now = c->now_ms;
	read_value(c->src, "sys/kernel/mm/lru_gen/enabled", enabled, sizeof(enabled));
	read_value(c->src, "sys/kernel/mm/lru_gen/min_ttl_ms", min_ttl, sizeof(min_ttl));
	rc = source_read(c->src, tiers ? "sys/kernel/debug/lru_gen_full" :
	    "sys/kernel/debug/lru_gen", &fbuf);
	if (rc < 0) {
		lg.n = 0;
		return;
	}
	parse_lrugen(fbuf.p, fbuf.len, &lg);
	if (c->jumped)
		lruhist_reset(&hist);
	lruhist_feed(&hist, &lg, now);
}

/* Describe the enabled bits (multigen_lru.rst). */
static const char *
enabled_words(void)
{
	unsigned long	v = strtoul(enabled, NULL, 0);

	if (!strcmp(enabled, "n/a"))
		return "";
	if (!(v & 1))
		return "(off: classic LRU)";
	if (!(v & 6))
		return "(on, no A-bit walk)";
	return (v & 4) ? "(on, A-bit walks)" : "(on, leaf A-bit walk)";
}

/* Milliseconds as "850ms", "12.3s", "4.5m". */
static void
fmt_age(char *out, size_t n, u64 ms)
{
	if (ms < 1000)
		snprintf(out, n, "%llums", ms);
	else if (ms < 600000)
		snprintf(out, n, "%.1fs", (double)ms / 1e3);
	else
		snprintf(out, n, "%.1fm", (double)ms / 6e4);
}

/* Tier rows under a generation (lru_gen_full). */
static int
draw_tiers(struct frame *f, int line, const struct lg_gen *g)
{
	for (int t = 0; t < g->ntiers; t++) {
		const struct lg_tier	*tr = &g->tier[t];
		int			 x = fr_printf(f, line, 4, C_DIM,
		    "tier %d", tr->tier);

		for (int ty = 0; ty < 2; ty++) {
			x = fr_text(f, line, x + 2, ty ? C_FILE : C_ANON, ty ? "file" : "anon");
			if (tr->mark[ty][0] == 'R')
				x = fr_printf(f, line, x + 1, C_NORM, "avg refaulted %-6llu total %-7llu",
				    tr->v[ty][0], tr->v[ty][1]);
			else if (tr->mark[ty][0] == 'r')
				x = fr_printf(f, line, x + 1, C_NORM, "refaulted %-6llu evicted %-6llu protected %-6llu",
				    tr->v[ty][0], tr->v[ty][1], tr->v[ty][2]);
			else
				x = fr_text(f, line, x + 1, C_DIM, "-");
		}
		line++;
	}
	return line;
}

/* One lruvec: header, then a row per generation with bars and history. */
static int
draw_lruvec(struct frame *f, int line, const struct lg_memcg *m,
    const struct lg_node *nd)
{
	static const struct lh_vec	 none;
	const struct lh_vec		*h = lruhist_find(&hist, m->id,
	    nd->nid);
	bool				 wide = f->w >= 120;
	int				 hw = wide ? 24 : 10,
	    nw = wide ? 14 : 7;				/* history, numbers */
	int				 bw =
	    (f->w - 5 - 8 - 10 - 2 * (nw + 2) - hw - 1) / 2;
	double				 max = 1;
	char				 a[16], b[16];
	int				 x;

	if (!h)
		h = &none;
	if (bw < 4)
		bw = 4;
	for (int i = 0; i < nd->ngens; i++)
		for (int t = 0; t < 2; t++)
			if ((double)nd->gen[i].pages[t] > max)
				max = (double)nd->gen[i].pages[t];
	x = fr_printf(f, line, 0, C_TITLE, "memcg %llu %s  node %d", m->id,
	    m->path[0] ? m->path : "(root)", nd->nid);
	if (nd->ngens)
		x = fr_printf(f, line, x + 2, C_NORM, "gens %llu..%llu",
		    nd->gen[0].seq, nd->gen[nd->ngens - 1].seq);
	x = fr_printf(f, line, x + 2, C_DIM, "agings seen %ld, evictions %ld",
	    h->agings, h->evictions);
	line++;
	fr_printf(f, line, 0, C_DIM, "%5s %7s %-9s %-*s %-*s %s", "seq", "age", "",
	    bw + nw + 1, "anon pages", bw + nw + 1, "file pages", "history");
	line++;
	for (int i = 0; i < nd->ngens; i++) {
		const struct lg_gen	*g = &nd->gen[i];
		bool			 young = i == nd->ngens - 1,
		    old = i == 0;
		bool			 mark_new = young && lh_recent(h->aged_at, h->agings, now, MARK_MS);
		bool			 mark_old = old && lh_recent(h->evicted_at, h->evictions, now, MARK_MS);
		int			 col = 23;

		fr_printf(f, line, 0, mark_new || mark_old ? C_MARK : C_NORM, "%5llu", g->seq);
		fmt_age(a, sizeof(a), g->age_ms);
		fr_printf(f, line, 6, C_NORM, "%7s", a);
		if (mark_new)
			fr_printf(f, line, 14, C_MARK, "aged +%d", h->aged_by);
		else if (mark_old)
			fr_printf(f, line, 14, C_MARK, "evict +%d", h->evicted_by);
		for (int t = 0; t < 2; t++) {
			int	attr = g->gone[t] ? C_DIM : t ? C_FILE : C_ANON;

			fr_bar(f, line, col, bw, (double)g->pages[t] / max, attr);
			if (wide) {
				fmt_pages(b, sizeof(b), (double)g->pages[t]);
				fr_printf(f, line, col + bw + 1, g->gone[t] ? C_DIM : C_NORM,
				    "%7llu %6s", g->pages[t], b);
			} else {
				fr_printf(f, line, col + bw + 1, g->gone[t] ? C_DIM : C_NORM,
				    "%7llu", g->pages[t]);
			}
			col += bw + nw + 2;
		}
		fr_spark(f, line, col, hw, h->gen[i].v, h->gen[i].n, C_TITLE);
		line++;
		if (tiers)
			line = draw_tiers(f, line, g);
	}
	return line + 1;
}

/* The whole view. */
static void
lru_draw(struct frame *f)
{
	int	line = 0;

	fr_printf(f, line, 0, C_NORM, "enabled %s %s  min_ttl_ms %s  tiers %s [t]",
	    enabled, enabled_words(), min_ttl, tiers ? "on" : "off");
	line += 2;
	if (rc < 0) {
		fr_printf(f, line, 0, C_WARN, "%s: %s",
		    tiers ? "sys/kernel/debug/lru_gen_full" : "sys/kernel/debug/lru_gen",
		    strerror(-rc));
		if (rc == -ENOENT)
			fr_text(f, line + 1, 0, C_DIM,
			    "(needs CONFIG_LRU_GEN and debugfs at sys/kernel/debug)");
		return;
	}
	if (lg.err[0]) {
		fr_printf(f, line, 0, C_WARN, "lru_gen: %s", lg.err);
		line++;
	}
	for (int m = 0; m < lg.n; m++)
		for (int k = 0; k < lg.memcg[m].nnodes; k++)
			line = draw_lruvec(f, line, &lg.memcg[m], &lg.memcg[m].node[k]);
}

/* 't' toggles tier statistics (reads lru_gen_full). */
static int
lru_key(int ch)
{
	if (ch == 't') {
		tiers = !tiers;
		return 1;
	}
	return 0;
}

static const char *const lru_files[] = {
	"sys/kernel/mm/lru_gen/enabled", "sys/kernel/mm/lru_gen/min_ttl_ms",
	"sys/kernel/debug/lru_gen", "sys/kernel/debug/lru_gen_full", NULL,
};

const struct view view_lru = {
	.name = "lru",
	.title = "LRU generations",
	.init = lru_init,
	.update = lru_update,
	.draw = lru_draw,
	.key = lru_key,
	.help = "t: tier stats (refaulted/evicted/protected, lru_gen_full)",
	.files = lru_files,
};
