/* parse-extfrag.c - debugfs extfrag/extfrag_index (and unusable_index):
 * "Node N, zone NAME  -1.000 -1.000 0.512 ..." one value per order. */
#include <string.h>

#include "parse.h"

/* Parse "[-]I.FFF" into thousandths. */
static bool milli(struct tok t, int *out)
{
	bool neg = t.n && t.s[0] == '-';
	struct tok rest, frac;
	u64 ip, fp;

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

/* Parse one row per zone. */
int parse_extfrag(const char *buf, size_t len, struct extfrag *ef)
{
	struct lines l;
	struct tok line, t[4 + P_MAX_ORDERS + 1];
	const int max = 4 + P_MAX_ORDERS + 1;

	memset(ef, 0, sizeof(*ef));
	lines_init(&l, buf, len);
	while (lines_next(&l, &line)) {
		int n = tok_split(line, t, max);
		struct ef_zone *z;

		if (n == 0)
			continue;
		if (n > max)
			n = max;
		if (ef->nzones >= P_MAX_ZONES) {
			perr(ef->err, l.lineno, "more than %d zones", P_MAX_ZONES);
			break;
		}
		z = &ef->zone[ef->nzones];
		if (!tok_node_zone(t, n, &z->node, z->name) || n < 5) {
			perr(ef->err, l.lineno, "expected 'Node N, zone NAME indices...'");
			continue;
		}
		z->norders = 0;
		for (int i = 4; i < n && z->norders < P_MAX_ORDERS; i++) {
			if (!milli(t[i], &z->milli[z->norders])) {
				perr(ef->err, l.lineno, "bad index for order %d", z->norders);
				break;
			}
			z->norders++;
		}
		ef->nzones++;
	}
	cut_short(ef->err, buf, len, l.lineno, "extfrag");
	if (ef->nzones == 0)
		perr(ef->err, 0, "extfrag: no zones");
	return ef->err[0] ? -1 : 0;
}
