/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * lab-ex.h - lab exercises: skeletons made from solutions (lab-ex.c), and
 * what the lab runner needs to build and grade a student's work
 * (lab-exbuild.c).  The exercises and their grader cases are parsed with
 * the lab (struct lexercise, lab.h; the cases become steps).
 */
#ifndef UMKIT_LAB_EX_H
#define UMKIT_LAB_EX_H

#include <stddef.h>
#include <stdio.h>

#include <stdbool.h>

#include "lab.h"

/* What prepared exercises give the lab's guests. */
struct ex_build {
	char	*add;		/* programs: --add DIR:/usr/local/bin, or NULL */
	char	*variant;	/* kernel: this variant's steps boot... */
	char	*kernel;	/* ...this kernel instead */
	bool	 student;	/* the student's work (--exercise DIR), not the
				   solution: its cases' points are the student's */
	char	*bindir;	/* the programs built for this run (removed by
				   ex_release), or NULL */
};

/*
 * Get lab's exercises ready.  dir NULL: the solutions (every program
 * exercise's program is built, a kernel exercise is its variant as it
 * is); id must be NULL.  Otherwise the exercise id names (NULL: the
 * first) is the student's, their file in dir: when it is missing, its
 * skeleton is written there and 1 returned (nothing to run yet); else it
 * is built (programs into outdir/LAB-PID, this run's own, so that two runs
 * of one lab never rebuild each other's) and 0 returned, and only it: the
 * other program exercises' programs are not in the guest, and the other
 * exercises' cases are taken out of the lab (ex_pick).  2: an error,
 * already said (no such exercise: the lab's are listed).
 */
int	 ex_prepare(struct lab *, const char *dir, const char *id,
	    const char *outdir, struct ex_build *);
/* Remove what ex_prepare built for this run and free b's fields. */
void	 ex_release(struct ex_build *b);
/* The exercise of the lab that id names (NULL: the first), or NULL. */
const struct lexercise *ex_find(const struct lab *, const char *id);
/* One line per exercise of the lab: id, level, kind, file, cases. */
void	 ex_list(const struct lab *, FILE *);
/* Take the other exercises' case steps out of the lab (before a run):
 * only this one's are graded. */
void	 ex_pick(struct lab *, const struct lexercise *);

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
