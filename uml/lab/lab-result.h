/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * lab-result.h - the workloads' result lines ("NAME: key=value ...") as
 * a lab's result(NAME.KEY) reads them: a pure scanner of a command's
 * output (which comes from the guest: untrusted), fuzzed on its own.
 */
#ifndef UMKIT_LAB_RESULT_H
#define UMKIT_LAB_RESULT_H

/*
 * Find key=value in the last line of text that starts "NAME: ".  The
 * key counts after a blank; its value is a finite number that starts
 * right after the '=' (blanks there, "inf" or "nan" are no number).
 * Returns 1 with *v, 0 when no line starts "NAME: " (or name or key is
 * empty), -1 when that line has no such key or its value is no number.
 */
int	lab_result_in(const char *text, const char *name, const char *key,
	    double *v);

#endif
