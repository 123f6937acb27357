/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuzz-values.c - libFuzzer entry point for the value layer's spec
 * parser (tui/values.c), which reads the text of lab files.
 *
 * The input is a spec (NUL-terminated here).  values_check() must give 0
 * or an error that starts with the spec's first bytes; values_get() on
 * the fixture root must agree with it: a spec values_check refuses is
 * refused by values_get with the same message, before any file is read.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "values.h"

#ifndef FIXTURE_ROOT
#define FIXTURE_ROOT "tests/fixtures/guest"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Count the files values_get reads. */
static void
count_read(const char *rel, void *arg)
{
	(void)rel;
	(*(int *)arg)++;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct values	*v;
	char			*spec, err[VALUE_ERR_LEN], err2[VALUE_ERR_LEN];
	double			 x;
	int			 c, g, reads = 0;

	if (size > 4096)
		return 0;
	if (v == NULL && (v = values_open(FIXTURE_ROOT, err, sizeof(err))) == NULL)
		abort();
	if ((spec = malloc(size + 1)) == NULL)
		return 0;
	memcpy(spec, data, size);
	spec[size] = '\0';
	err[0] = err2[0] = '\0';
	c = values_check(spec, err, sizeof(err));
	if ((c != 0 && c != -1) || (c == -1 && memchr(err, '\0', sizeof(err)) == NULL))
		abort();
	values_refresh(v);
	values_on_read(v, count_read, &reads);
	g = values_get(v, spec, &x, err2, sizeof(err2));
	if (c == -1 && (g != -1 || strcmp(err, err2) != 0 || reads != 0))
		abort();
	free(spec);
	return 0;
}
