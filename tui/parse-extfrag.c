/* SPDX-License-Identifier: GPL-2.0-only */
/* parse-extfrag.c - debugfs extfrag/extfrag_index (and unusable_index):
 * "Node N, zone NAME  -1.000 -1.000 0.512 ..." one value per order. */
#include <string.h>

#include "parse.h"

/* Parse "[-]I.FFF" into thousandths. */
static bool
milli(struct tok t, int *out)
{
	bool		neg = t.n && t.s[0] == '-';
	struct tok	rest, frac;
	u64		ip, fp;

	if (neg) {
		t.s++;
		t.n--;
	}
	if (!tok_u64_prefix(t, &ip, &rest) || rest.n != 4 || rest.s[0] != '.')
		return false;
	frac.s = rest.s + 1;
	frac.n = 3;
	if (!tok_u64(frac, &fp) || ip > 1000)
		return false;
	*out = (int)(ip * 1000 + fp) * (neg ? -1 : 1);
	return true;
}

/* Where zone z's header goes. */
static void
slot(void *arg, int z, int **node, char **name, int **norders)
{
	struct ef_zone	*ez = &((struct extfrag *)arg)->zone[z];

	*node = &ez->node;
	*name = ez->name;
	*norders = &ez->norders;
}

/* An index in thousandths. */
static bool
value(void *arg, int z, int order, struct tok t)
{
	return milli(t, &((struct extfrag *)arg)->zone[z].milli[order]);
}

/* Parse one row per zone. */
int
parse_extfrag(const char *buf, size_t len, struct extfrag *ef)
{
	static const struct zone_row_ops ops = {
		.file = "extfrag", .what = "index", .whats = "indices",
		.slot = slot, .value = value,
	};

	memset(ef, 0, sizeof(*ef));
	ef->nzones = zone_rows(buf, len, ef->err, &ops, ef);
	return ef->err[0] ? -1 : 0;
}
