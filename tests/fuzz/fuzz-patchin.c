/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuzz-patchin.c - libFuzzer entry point for the patch input parser: an
 * mbox, a mail or a plain diff from anyone.  Parsing and selection must
 * give patches or an error, never crash or leak; every selected patch
 * has a diff, and none names a path outside the tree (absolute, or a
 * name ending in "..").
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "patch/patchin.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Whether path f stays in the tree: relative, no name ending in "..". */
static int
inside(const char *f)
{
	size_t	n = strlen(f);

	if (n == 0 || f[0] == '/' || strstr(f, "../") != NULL)
		return 0;
	return n < 2 || f[n - 2] != '.' || f[n - 1] != '.';
}

/* Parse, select and hash one input. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pset	in, out;
	char		err[512], hex[65];
	int		i, j;

	pset_init(&in);
	pset_init(&out);
	patchin_buf(&in, "fuzz", (const char *)data, size);
	if (pset_select(&in, &out, NULL, err, sizeof err) == 0) {
		for (i = 0; i < out.n; i++) {
			if (out.v[i].diff == NULL)
				abort();
			for (j = 0; j < out.v[i].nfiles; j++)
				if (!inside(out.v[i].files[j]))
					abort();
		}
		pset_hash(&out, hex);
	} else if (err[0] == '\0') {
		abort();
	}
	pset_free(&out);
	return 0;
}
