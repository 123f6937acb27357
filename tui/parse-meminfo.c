/* SPDX-License-Identifier: GPL-2.0-only */
/* parse-meminfo.c - /proc/meminfo: "Name:   value [kB]" lines. */
#include "parse.h"

/* Parse every "Name: value [kB]" line into name/value pairs. */
int
parse_meminfo(const char *buf, size_t len, struct meminfo *mi)
{
	struct lines	l;
	struct tok	line, t[4];
	u64		v;

	mi->kv.n = 0;
	mi->err[0] = '\0';
	lines_init(&l, buf, len);
	while (lines_next(&l, &line)) {
		int	n = tok_split(line, t, 4);

		if (n == 0)
			continue;
		if (n < 2 || n > 3 || t[0].n < 2 || t[0].s[t[0].n - 1] != ':' ||
		    !tok_u64(t[1], &v) || (n == 3 && !tok_eq(t[2], "kB"))) {
			perr(mi->err, l.lineno, "expected 'Name: value [kB]' in meminfo");
			continue;
		}
		t[0].n--;
		kv_add(&mi->kv, t[0], v);
	}
	if (mi->kv.n == 0)
		perr(mi->err, 0, "meminfo: no fields");
	cut_short(mi->err, buf, len, l.lineno, "meminfo");
	return mi->err[0] ? -1 : 0;
}
