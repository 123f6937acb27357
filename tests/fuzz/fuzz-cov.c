/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuzz-cov.c - libFuzzer entry point for patch coverage's parsers: the
 * input is a series of diffs (split at NUL bytes) for cov_hunks and, the
 * same bytes, gcov JSON for cov_parse_gcov.  Never crash or leak; every
 * renumbered line is 0 (removed) or a line number, every parsed count
 * -1 (not executable) or at least 0.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cov/cov.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Split, renumber and parse one input. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char		*buf = malloc(size + 1), *d[8];
	struct cov_hunks h;
	struct cov	 c;
	size_t		 off = 0;
	int		 n = 0, i, k;

	if (buf == NULL)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	while (n < 8 && off <= size) {
		d[n++] = buf + off;
		off += strlen(buf + off) + 1;
	}
	cov_hunks(&h, d, n);
	for (i = 0; i < h.n; i++) {
		if (h.v[i].start < 0 || h.v[i].patch < 0 || h.v[i].patch >= n)
			abort();
		for (k = 0; k < h.v[i].nlines; k++)
			if (h.v[i].lines[k] < 0)
				abort();
	}
	cov_hunks_free(&h);
	cov_init(&c);
	cov_parse_gcov(&c, buf, "/b/k/src");
	for (i = 0; i < c.n; i++)
		for (k = 0; k < c.v[i].nlines; k++)
			if (c.v[i].count[k] < -1)
				abort();
	cov_free(&c);
	free(buf);
	return 0;
}
