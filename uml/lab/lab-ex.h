/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * lab-ex.h - lab exercises: skeletons made from solutions (lab-ex.c), and
 * what the lab runner needs to build and grade a student's work.
 */
#ifndef UMKIT_LAB_EX_H
#define UMKIT_LAB_EX_H

#include <stddef.h>

#include "lab.h"

/* What a prepared exercise gives the lab's guests. */
struct ex_build {
	char	*add;		/* program: --add HOST:GUEST, or NULL */
	char	*variant;	/* kernel: this variant's steps boot... */
	char	*kernel;	/* ...this kernel instead */
};

/*
 * Get lab's exercise ready.  dir NULL: the solution (a program is built,
 * a kernel exercise is the variant as it is).  Otherwise the student's
 * file in dir: when it is missing, its skeleton is written there and 1
 * returned (nothing to run yet); else it is built (programs into outdir)
 * and 0 returned.  2: an error, already said.
 */
int	 ex_prepare(const struct lab *, const char *dir, const char *outdir,
	    struct ex_build *);

/* The skeleton of a solution: TODO-BEGIN ... TODO-END regions cut, the
 * BEGIN line kept as a TODO line.  NULL with err when the markers are
 * missing or unbalanced (err names the line). */
char	*ex_skeleton(const char *text, char *err, size_t errlen);
/* A C file with the body of function fn replaced by a TODO comment
 * holding todo; NULL with err when fn has no definition there. */
char	*ex_strip_function(const char *text, const char *fn, const char *todo,
	    char *err, size_t errlen);
/* Write text to path through a temporary file; 0 or -1 with errno. */
int	 ex_write(const char *path, const char *text);

#endif
