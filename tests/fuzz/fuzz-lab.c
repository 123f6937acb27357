/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuzz-lab.c - libFuzzer entry point for the lab file parser (an
 * instructor's or student's text, and the check expressions in it).
 *
 * The input is the whole file, in an exact-size buffer; parsing must
 * either give a lab or an error text that names the file and a line,
 * and never crash or leak.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lab/lab.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Parse one input; an error must start with the file name. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char		*buf = malloc(size ? size : 1), *errs = NULL;
	struct lab	*l;

	if (buf == NULL)
		return 0;
	memcpy(buf, data, size);
	l = lab_parse("fuzz.lab", buf, size, NULL, &errs);
	if ((l == NULL) == (errs == NULL))
		abort();
	if (errs != NULL && strncmp(errs, "fuzz.lab:", 9) != 0)
		abort();
	lab_free(l);
	free(errs);
	free(buf);
	return 0;
}
