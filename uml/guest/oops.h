/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * oops.h - a guest kernel's oops, panic or WARN report from its console,
 * with the call trace resolved to file:line by the kernel tree's own
 * scripts/decode_stacktrace.sh (run, not reimplemented) when the kernel
 * has debug info; without, the report as it is and a one-line hint.
 *
 * Used by 'umkit exec' (a panic, or a WARN while the command ran) and
 * the lab runner; meant for any command that reports a kernel problem
 * (a smoke test of a patch).
 */
#ifndef UMKIT_OOPS_H
#define UMKIT_OOPS_H

#include <stdio.h>

/*
 * The first report in console text: from a little before its first line
 * (a panic, oops or BUG line, or a WARN's "cut here") to its end marker
 * ("---[ end ") or at most max lines.  Allocated; NULL when there is
 * none.  warn: whether the report is only a warning (the kernel went on).
 */
char	*oops_find(const char *text, int max, int *warn);

/*
 * The same report decoded: each call-trace line with " file:line" after
 * it (decode_stacktrace.sh's output) when kernel (a kernel binary, see
 * gdb_kernel_find) has debug info; NULL when it has none or decoding
 * failed.  Allocated.
 */
char	*oops_decode(const char *kernel, const char *report);

/*
 * Print report to f, each line after indent: decoded when possible,
 * else as it is followed by a hint how to get file:line.  Returns 1 when
 * it was decoded.
 */
int	 oops_print(FILE *f, const char *kernel, const char *report,
	    const char *indent);

#endif
