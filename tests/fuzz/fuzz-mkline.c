/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuzz-mkline.c - libFuzzer entry point for a patched tree's Makefile as
 * smoke's "tested" stage reads it (mkline_find): the first line of the
 * input is the object or directory looked for, the rest the Makefile.
 * Never crash or read past it; what is found is NUL-terminated within
 * its buffer, without a control character (it reaches the terminal).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz-util.h"

#include "patch/mkline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);


/* Find the first line's token in the rest. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char	*buf = malloc(size + 1), *nl, cfg[64], line[128];

	if (buf == NULL)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	if ((nl = strchr(buf, '\n')) != NULL) {
		*nl = '\0';
		memset(cfg, 'x', sizeof cfg);
		memset(line, 'x', sizeof line);
		if (mkline_find(nl + 1, buf, cfg, sizeof cfg, line, sizeof line) == 0 &&
		    (memchr(cfg, '\0', sizeof cfg) == NULL ||
		    memchr(line, '\0', sizeof line) == NULL || has_ctl(cfg) ||
		    has_ctl(line)))
			abort();
	}
	free(buf);
	return 0;
}
