/* parse-buddyinfo.c - /proc/buddyinfo: "Node N, zone NAME  c0 c1 ..." */
#include <string.h>

#include "parse.h"

/* Parse one row per zone with its free block count per order. */
int parse_buddyinfo(const char *buf, size_t len, struct buddyinfo *bi)
{
	struct lines l;
	struct tok line, t[4 + P_MAX_ORDERS + 1];
	const int max = 4 + P_MAX_ORDERS + 1;

	memset(bi, 0, sizeof(*bi));
	lines_init(&l, buf, len);
	while (lines_next(&l, &line)) {
		int n = tok_split(line, t, max);
		struct bi_zone *z;

		if (n == 0)
			continue;
		if (n > max)
			n = max;
		if (bi->nzones >= P_MAX_ZONES) {
			perr(bi->err, l.lineno, "more than %d zones", P_MAX_ZONES);
			break;
		}
		z = &bi->zone[bi->nzones];
		if (!tok_node_zone(t, n, &z->node, z->name) || n < 5) {
			perr(bi->err, l.lineno, "expected 'Node N, zone NAME counts...'");
			continue;
		}
		z->norders = 0;
		for (int i = 4; i < n && z->norders < P_MAX_ORDERS; i++) {
			if (!tok_u64(t[i], &z->nr_free[z->norders])) {
				perr(bi->err, l.lineno, "bad count for order %d", z->norders);
				break;
			}
			z->norders++;
		}
		bi->nzones++;
	}
	cut_short(bi->err, buf, len, l.lineno, "buddyinfo");
	if (bi->nzones == 0)
		perr(bi->err, 0, "buddyinfo: no zones");
	return bi->err[0] ? -1 : 0;
}
