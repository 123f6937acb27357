/* values-tmp.c - TEMPORARY: vmstat.KEY, meminfo.KEY, lru_gen.max_seq/min_seq. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util.h"
#include "values.h"

int
values_check(const char *spec, char *err, size_t errsize)
{
	if (strncmp(spec, "vmstat.", 7) == 0 || strncmp(spec, "meminfo.", 8) == 0 ||
	    strcmp(spec, "lru_gen.max_seq") == 0 || strcmp(spec, "lru_gen.min_seq") == 0)
		return 0;
	snprintf(err, errsize, "%s: unknown value", spec);
	return -1;
}

int
values_read(const char *root, const char *spec, double *v, char *err, size_t errsize)
{
	char *p, *t, *q, key[128];
	const char *f;
	if (values_check(spec, err, errsize) < 0)
		return -1;
	f = spec[0] == 'v' ? "proc/vmstat" : spec[0] == 'm' ? "proc/meminfo" : "sys/kernel/debug/lru_gen";
	p = xasprintf("%s/%s", root, f);
	t = read_text(p);
	free(p);
	if (t == NULL) { snprintf(err, errsize, "%s: cannot read %s", spec, f); return -1; }
	if (spec[0] == 'l') {
		long long mx = -1, mn = -1, seq;
		for (q = t; q; q = strchr(q, '\n'), q = q ? q + 1 : NULL) {
			if (sscanf(q, " %lld %*d", &seq) == 1 && strncmp(q, "memcg", 5) && strncmp(q, " node", 5)) {
				if (mn < 0 || seq < mn) mn = seq;
				if (seq > mx) mx = seq;
			}
		}
		free(t);
		*v = strcmp(spec, "lru_gen.max_seq") == 0 ? mx : mn;
		return 0;
	}
	snprintf(key, sizeof key, "%s", strchr(spec, '.') + 1);
	for (q = t; q; q = strchr(q, '\n'), q = q ? q + 1 : NULL) {
		size_t n = strlen(key);
		if (strncmp(q, key, n) == 0 && (q[n] == ' ' || q[n] == ':')) {
			*v = strtod(q + n + 1 + (q[n] == ':'), NULL);
			free(t);
			return 0;
		}
	}
	free(t);
	snprintf(err, errsize, "%s: no %s in %s", spec, key, f);
	return -1;
}
