/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * parse-zoneinfo.c - /proc/zoneinfo (mm/vmstat.c zoneinfo_show_print).
 * Each zone starts with "Node N, zone NAME"; the first populated zone of
 * a node carries "per-node stats"; then "pages free", watermarks, spans,
 * "protection: (...)", zone counters, "pagesets" with per-cpu entries,
 * and node_unreclaimable / start_pfn / reserved_highatomic lines.
 */
#include <string.h>

#include "parse.h"

/* Store a "key value" watermark/span line into the matching field. */
static bool
zone_field(struct zi_zone *z, struct tok k, u64 v)
{
	static const struct { const char *name; size_t off; } f[] = {
		{ "boost", offsetof(struct zi_zone, boost) },
		{ "min", offsetof(struct zi_zone, min) },
		{ "low", offsetof(struct zi_zone, low) },
		{ "high", offsetof(struct zi_zone, high) },
		{ "promo", offsetof(struct zi_zone, promo) },
		{ "spanned", offsetof(struct zi_zone, spanned) },
		{ "present", offsetof(struct zi_zone, present) },
		{ "managed", offsetof(struct zi_zone, managed) },
		{ "cma", offsetof(struct zi_zone, cma) },
	};

	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		if (tok_eq(k, f[i].name)) {
			*(u64 *)((char *)z + f[i].off) = v;
			return true;
		}
	return false;
}

/* Parse the whole file; unknown lines are reported, never fatal. */
int
parse_zoneinfo(const char *buf, size_t len, struct zoneinfo *zi)
{
	struct lines	 l;
	struct tok	 line, t[8];
	struct zi_zone	*z = NULL;
	struct zi_pcp	*pc = NULL;
	enum { NONE, NODESTATS, ZONE, PAGESETS } sec = NONE;
	u64	v;

	for (int i = 0; i < zi->nzones; i++) {
		zi->zone[i].stats.n = 0;
		zi->zone[i].node_stats.n = 0;
	}
	zi->nzones = 0;
	zi->err[0] = '\0';
	lines_init(&l, buf, len);
	while (lines_next(&l, &line)) {
		int	n = tok_split(line, t, 8);

		if (n == 0)
			continue;
		if (tok_eq(t[0], "Node")) {
			struct kvlist	s, ns;

			if (zi->nzones >= P_MAX_ZONES) {
				perr(zi->err, l.lineno, "more than %d zones", P_MAX_ZONES);
				z = NULL;
				break;
			}
			z = &zi->zone[zi->nzones];
			s = z->stats;
			ns = z->node_stats;
			s.n = ns.n = 0;
			memset(z, 0, sizeof(*z));
			z->stats = s;
			z->node_stats = ns;
			if (!tok_node_zone(t, n, &z->node, z->name)) {
				perr(zi->err, l.lineno, "bad zone header");
				z = NULL;
				continue;
			}
			zi->nzones++;
			sec = NONE;
			pc = NULL;
			continue;
		}
		if (!z) {
			perr(zi->err, l.lineno, "line outside a zone");
			continue;
		}
		if (n == 2 && tok_eq(t[0], "per-node")) {
			sec = NODESTATS;
		} else if (n == 3 && tok_eq(t[0], "pages") && tok_eq(t[1], "free") &&
		    tok_u64(t[2], &v)) {
			z->free = v;
			sec = ZONE;
		} else if (tok_eq(t[0], "protection:")) {
			sec = ZONE;
		} else if (n == 1 && tok_eq(t[0], "pagesets")) {
			sec = PAGESETS;
		} else if (n == 2 && tok_eq(t[0], "cpu:") && tok_u64(t[1], &v)) {
			if (z->ncpus >= ZI_MAX_CPUS) {
				perr(zi->err, l.lineno, "more than %d cpus", ZI_MAX_CPUS);
				pc = NULL;
				continue;
			}
			pc = &z->pcp[z->ncpus++];
			memset(pc, 0, sizeof(*pc));
			pc->cpu = (int)v;
		} else if (n == 2 && tok_eq(t[0], "start_pfn:") && tok_u64(t[1], &v)) {
			z->start_pfn = v;
			z->has_start = true;
		} else if (n == 2 && sec == PAGESETS && pc && tok_u64(t[1], &v)) {
			if (tok_eq(t[0], "count:"))
				pc->count = (long)v;
			else if (tok_eq(t[0], "high:"))
				pc->high = (long)v;
			else if (tok_eq(t[0], "batch:"))
				pc->batch = (long)v;
			/* high_min/high_max: not needed */
		} else if (n == 4 && tok_eq(t[0], "vm") && pc && tok_u64(t[3], &v)) {
			pc->threshold = (int)v;
		} else if (n == 2 && t[0].s[t[0].n - 1] == ':' && tok_u64(t[1], &v)) {
			/* node_unreclaimable, reserved_highatomic, ... */
		} else if (n == 2 && tok_u64(t[1], &v)) {
			if (sec == NODESTATS)
				kv_add(&z->node_stats, t[0], v);
			else if (sec == ZONE && !zone_field(z, t[0], v))
				kv_add(&z->stats, t[0], v);
			else if (sec != ZONE)
				perr(zi->err, l.lineno, "counter outside a section");
		} else {
			perr(zi->err, l.lineno, "unrecognised line");
		}
	}
	cut_short(zi->err, buf, len, l.lineno, "zoneinfo");
	if (zi->nzones == 0)
		perr(zi->err, 0, "zoneinfo: no zones");
	return zi->err[0] ? -1 : 0;
}

/* Free the counter lists of every zone slot. */
void
zoneinfo_free(struct zoneinfo *zi)
{
	for (int i = 0; i < P_MAX_ZONES; i++) {
		kv_free(&zi->zone[i].stats);
		kv_free(&zi->zone[i].node_stats);
	}
	zi->nzones = 0;
}
