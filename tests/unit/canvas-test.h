/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * canvas-test.h - looking at a view's frame in the TUI's view tests: a
 * canvas (tui.h) searched row by row (cv_dump prints one).
 */
#ifndef UMKIT_CANVAS_TEST_H
#define UMKIT_CANVAS_TEST_H

#include <stdbool.h>
#include <string.h>

#include "tui.h"

/* Row y of cv as text into line (of size bytes), its cells' UTF-8 joined. */
static inline void
cv_row(const struct canvas *cv, int y, char *line, size_t size)
{
	size_t	n = 0;

	for (int x = 0; x < cv->cols && n + 4 < size; x++) {
		memcpy(line + n, cv->c[y * cv->cols + x].ch, cv->c[y * cv->cols + x].len);
		n += cv->c[y * cv->cols + x].len;
	}
	line[n] = '\0';
}

/* Whether some row of cv contains s. */
static inline bool
cv_shows(const struct canvas *cv, const char *s)
{
	char	line[4096];

	for (int y = 0; y < cv->rows; y++) {
		cv_row(cv, y, line, sizeof(line));
		if (strstr(line, s))
			return true;
	}
	return false;
}

#endif
