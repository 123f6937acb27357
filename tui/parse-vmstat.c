/* SPDX-License-Identifier: GPL-2.0-only */
/* parse-vmstat.c - /proc/vmstat, and a cgroup's memory.stat: one
 * "name value" pair per line. */
#include "parse.h"

/* Parse every "name value" line; bad lines are skipped and reported,
 * naming the file as what. */
static int
name_value_lines(const char *buf, size_t len, struct vmstat *vs,
    const char *what)
{
	struct lines	l;
	struct tok	line, t[3];
	u64		v;

	vs->kv.n = 0;
	vs->err[0] = '\0';
	lines_init(&l, buf, len);
	while (lines_next(&l, &line)) {
		int	n = tok_split(line, t, 3);

		if (n == 0)
			continue;
		if (n != 2 || !tok_u64(t[1], &v)) {
			perr(vs->err, l.lineno, "expected 'name value' in %s", what);
			continue;
		}
		kv_add(&vs->kv, t[0], v);
	}
	if (vs->kv.n == 0)
		perr(vs->err, 0, "%s: no counters", what);
	cut_short(vs->err, buf, len, l.lineno, what);
	return vs->err[0] ? -1 : 0;
}

/* /proc/vmstat. */
int
parse_vmstat(const char *buf, size_t len, struct vmstat *vs)
{
	return name_value_lines(buf, len, vs, "vmstat");
}

/* A cgroup's memory.stat (cgroup v2): the same shape as vmstat. */
int
parse_memstat(const char *buf, size_t len, struct vmstat *vs)
{
	return name_value_lines(buf, len, vs, "memory.stat");
}
