/* SPDX-License-Identifier: GPL-2.0-only */
/* parse-buddyinfo.c - /proc/buddyinfo: "Node N, zone NAME  c0 c1 ..." */
#include <string.h>

#include "parse.h"

/* Where zone z's header goes. */
static void
slot(void *arg, int z, int **node, char **name, int **norders)
{
	struct bi_zone	*bz = &((struct buddyinfo *)arg)->zone[z];

	*node = &bz->node;
	*name = bz->name;
	*norders = &bz->norders;
}

/* A free block count. */
static bool
value(void *arg, int z, int order, struct tok t)
{
	return tok_u64(t, &((struct buddyinfo *)arg)->zone[z].nr_free[order]);
}

/* Parse one row per zone with its free block count per order. */
int
parse_buddyinfo(const char *buf, size_t len, struct buddyinfo *bi)
{
	static const struct zone_row_ops ops = {
		.file = "buddyinfo", .what = "count", .whats = "counts",
		.slot = slot, .value = value,
	};

	memset(bi, 0, sizeof(*bi));
	bi->nzones = zone_rows(buf, len, bi->err, &ops, bi);
	return bi->err[0] ? -1 : 0;
}
