/* parse-vmstat.c - /proc/vmstat: one "name value" pair per line. */
#include "parse.h"

/* Parse every "name value" line; bad lines are skipped and reported. */
int parse_vmstat(const char *buf, size_t len, struct vmstat *vs)
{
	struct lines l;
	struct tok line, t[3];
	u64 v;

	vs->kv.n = 0;
	vs->err[0] = '\0';
	lines_init(&l, buf, len);
	while (lines_next(&l, &line)) {
		int n = tok_split(line, t, 3);

		if (n == 0)
			continue;
		if (n != 2 || !tok_u64(t[1], &v)) {
			perr(vs->err, l.lineno, "expected 'name value' in vmstat");
			continue;
		}
		kv_add(&vs->kv, t[0], v);
	}
	if (vs->kv.n == 0)
		perr(vs->err, 0, "vmstat: no counters");
	if (len > 0 && buf[len - 1] != '\n')
		perr(vs->err, l.lineno, "vmstat truncated (no final newline)");
	return vs->err[0] ? -1 : 0;
}
