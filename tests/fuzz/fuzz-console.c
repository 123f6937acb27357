/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuzz-console.c - libFuzzer entry point for the scanners of a guest's
 * console text: oops_find (umkit exec's report of a panic or WARN) and
 * smoke's report scan (smoke_reports, smoke_first_report) and flood count
 * (smoke_repeats).  The input's
 * first byte sets oops_find's line limit (1..256), the rest is the text.
 * Never crash or leak; a report found is a piece of the text that holds
 * the line it was found by; the scan counts at least one report exactly
 * when smoke_first_report names a mark; the most repeated line is seen
 * between 0 and as many times as the text has lines, and once or more
 * in a text that is not empty.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "guest/oops.h"
#include "patch/smoke.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* smoke_reports with its printing on, stdout (the replay's TAP) spared. */
static int
reports_printed(const char *text)
{
	static int	null_fd = -1;
	int		saved, n;

	if (null_fd < 0 && (null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC)) < 0)
		fatal("/dev/null");
	fflush(stdout);
	if ((saved = dup(1)) < 0 || dup2(null_fd, 1) < 0)
		fatal("dup");
	n = smoke_reports(text, 1, 12);
	fflush(stdout);
	if (dup2(saved, 1) < 0)
		fatal("dup2");
	close(saved);
	return n;
}

/* Scan one console text. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char	*text, *rep;
	int	 max, warn = -1, n;

	if (size == 0)
		return 0;
	max = 1 + data[0];
	text = xmalloc(size);
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	if ((rep = oops_find(text, max, &warn)) != NULL) {
		if ((warn != 0 && warn != 1) || strstr(text, rep) == NULL)
			abort();
		free(rep);
	}
	{
		size_t	len = strlen(text), lines = 1, i;
		int	r = smoke_repeats(text, len);

		for (i = 0; i < len; i++)
			lines += text[i] == '\n';
		if (r < 0 || (size_t)r > lines || (len > 0) != (r > 0))
			abort();
	}
	n = reports_printed(text);
	if (n < 0 || (n > 0) != (smoke_first_report(text) != NULL) ||
	    n != smoke_reports(text, 0, 0))
		abort();
	free(text);
	return 0;
}
