/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuzz-exercise.c - libFuzzer entry point for the exercises' source
 * transforms (lab-ex.c): a program's skeleton (ex_skeleton: TODO-BEGIN
 * ... TODO-END regions cut) and a kernel function's body replaced by a
 * TODO (ex_strip_function).  The input's first line is the function's
 * name, the second the TODO text, the rest the source.  Never crash or
 * leak; NULL comes with a message; a skeleton is no longer than its
 * source; a stripped source holds the TODO text and keeps the source's
 * text up to the function's body.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lab/lab-ex.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The next line of *p (cut at its newline), or "" at the end. */
static char *
cut_line(char **p)
{
	char	*l = *p, *nl = strchr(l, '\n');

	if (nl != NULL) {
		*nl = '\0';
		*p = nl + 1;
	} else
		*p = l + strlen(l);
	return l;
}

/* Transform one source both ways. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char	*buf = xmalloc(size + 1), *p = buf, *fn, *todo, *out, err[256];

	memcpy(buf, data, size);
	buf[size] = '\0';
	fn = cut_line(&p);
	todo = cut_line(&p);

	err[0] = '\0';
	if ((out = ex_skeleton(p, err, sizeof(err))) == NULL) {
		if (err[0] == '\0')
			abort();
	} else {
		if (strlen(out) > strlen(p))
			abort();
		free(out);
	}
	err[0] = '\0';
	if ((out = ex_strip_function(p, fn, todo, err, sizeof(err))) == NULL) {
		if (err[0] == '\0')
			abort();
	} else {
		if (strstr(out, todo) == NULL)
			abort();
		free(out);
	}
	free(buf);
	return 0;
}
