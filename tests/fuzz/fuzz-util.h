/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuzz-util.h - what the fuzz entry points check of text that reaches a
 * terminal.
 */
#ifndef UMKIT_FUZZ_UTIL_H
#define UMKIT_FUZZ_UTIL_H

/* Whether s has a control character. */
static inline int
has_ctl(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 1;
	return 0;
}

#endif
