/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * mkline.h - find the line of a kernel Makefile that names an object or a
 * directory, and the CONFIG_ option on it (smoke's "tested" stage).  The
 * Makefile is a patched tree's: untrusted text.
 */
#ifndef UMKIT_MKLINE_H
#define UMKIT_MKLINE_H

#include <stddef.h>

/*
 * In Makefile text (modified: lines cut), the first line naming token
 * ("vmscan.o", "damon/") as a whole word: 0 with the CONFIG_ name on it
 * in cfg ("" for an obj-y line) and the line (its first 120 bytes) in
 * line, control characters made '?'; -1 when no line names it.
 */
int	mkline_find(char *text, const char *token, char *cfg, size_t cfglen,
	    char *line, size_t linelen);

#endif
