/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * lab-ex.c - lab exercises in the linux-kernel-labs manner: a skeleton made
 * from the solution, completed by the student, built and graded by the
 * lab's own checks and the exercise's grader cases.  A lab may have
 * several, each with an id and a level (docs/labs.md, Exercises):
 *
 *   exercise [id=ID] [level=L] program FILE
 *                                         a guest program (FILE.c next to
 *                                         the lab), built static on the
 *                                         host and added to the guest as
 *                                         /usr/local/bin/NAME
 *   exercise [id=ID] [level=L] kernel VARIANT PATH FUNCTION TODO
 *                                         the body of FUNCTION in the
 *                                         variant's PATH (mm/vmscan.c);
 *                                         the graded kernel is the
 *                                         variant plus the student's file
 *     case ID [options] COMMAND           a grader case: a guest command
 *       expect CONDITION                  and what it must give (the
 *                                         parser makes it a step)
 *
 * Program skeletons: every region from a line holding "TODO-BEGIN" to one
 * holding "TODO-END" is cut, and the BEGIN line becomes a "TODO:" line.
 * Kernel skeletons: the function's body becomes a TODO comment.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lab-ex.h"
#include "util.h"

/* The last component of a path. */
static const char *
last_part(const char *path)
{
	const char	*s = strrchr(path, '/');

	return s != NULL ? s + 1 : path;
}

/* Append n bytes to a growing string. */
static void
put(char **o, size_t *len, size_t *cap, const char *s, size_t n)
{
	if (*len + n + 1 > *cap) {
		*cap = (*len + n + 1) * 2;
		*o = xrealloc(*o, *cap);
	}
	memcpy(*o + *len, s, n);
	*len += n;
	(*o)[*len] = '\0';
}

/* The skeleton of a program solution; NULL with err (no or bad markers). */
char *
ex_skeleton(const char *text, char *err, size_t errlen)
{
	const char	*p = text, *nl, *b;
	char		*o = NULL;
	size_t		 len = 0, cap = 0;
	int		 in = 0, n = 0, line = 0, begin = 0;

	put(&o, &len, &cap, "", 0);
	for (; *p != '\0'; p = nl) {
		nl = strchr(p, '\n');
		nl = nl ? nl + 1 : p + strlen(p);
		line++;
		if ((b = memmem(p, (size_t)(nl - p), "TODO-BEGIN", 10)) != NULL) {
			if (in) {
				snprintf(err, errlen, "line %d: TODO-BEGIN inside the "
				    "region that starts at line %d", line, begin);
				free(o);
				return NULL;
			}
			in = 1;
			begin = line;
			n++;
			/* "... TODO-BEGIN: text ..." -> "... TODO: text ..." */
			put(&o, &len, &cap, p, (size_t)(b - p));
			put(&o, &len, &cap, "TODO", 4);
			put(&o, &len, &cap, b + 10, (size_t)(nl - b - 10));
			continue;
		}
		if (memmem(p, (size_t)(nl - p), "TODO-END", 8) != NULL) {
			if (!in) {
				snprintf(err, errlen, "line %d: TODO-END without "
				    "TODO-BEGIN", line);
				free(o);
				return NULL;
			}
			in = 0;
			continue;
		}
		if (!in)
			put(&o, &len, &cap, p, (size_t)(nl - p));
	}
	if (in) {
		snprintf(err, errlen, "line %d: TODO-BEGIN without TODO-END", begin);
		free(o);
		return NULL;
	}
	if (n == 0) {
		snprintf(err, errlen, "no TODO-BEGIN ... TODO-END region");
		free(o);
		return NULL;
	}
	return o;
}

/*
 * text with the body of the C function fn replaced by a TODO comment: the
 * definition is a line starting in column 0 that holds "fn(", not ending
 * in ';', followed (perhaps after continuation lines) by a "{" line; the
 * body ends at the next "}" in column 0.
 */
char *
ex_strip_function(const char *text, const char *fn, const char *todo,
    char *err, size_t errlen)
{
	const char	*p, *q, *open = NULL, *close, *nl;
	char		*pat = xasprintf("%s(", fn), *o = NULL;
	size_t		 len = 0, cap = 0;
	int		 i;

	for (p = text; *p != '\0' && open == NULL; p = nl + 1) {
		if ((nl = strchr(p, '\n')) == NULL)
			break;
		if (isspace((unsigned char)*p) || *p == '#' || *p == '/' || *p == '*' ||
		    nl[-1] == ';' || memmem(p, (size_t)(nl - p), pat, strlen(pat)) == NULL)
			continue;
		/* the body's "{" line: within the next few (continued) lines */
		for (q = nl + 1, i = 0; i < 6 && *q != '\0'; i++) {
			if (strncmp(q, "{\n", 2) == 0) {
				open = q;
				break;
			}
			if ((q = strchr(q, '\n')) == NULL)
				break;
			if (q[-1] == ';')
				break;
			q++;
		}
	}
	free(pat);
	if (open == NULL) {
		snprintf(err, errlen, "no definition of %s() in the file", fn);
		return NULL;
	}
	if ((close = strstr(open, "\n}\n")) == NULL) {
		snprintf(err, errlen, "%s(): no closing brace in column 0", fn);
		return NULL;
	}
	put(&o, &len, &cap, text, (size_t)(open - text) + 2);
	put(&o, &len, &cap, "\t/*\n\t * TODO: ", strlen("\t/*\n\t * TODO: "));
	put(&o, &len, &cap, todo, strlen(todo));
	put(&o, &len, &cap, "\n\t */\n}", strlen("\n\t */\n}"));
	put(&o, &len, &cap, close + 2, strlen(close + 2));
	return o;
}

/* The exercise of l that id names (NULL: the first), or NULL. */
const struct lexercise *
ex_find(const struct lab *l, const char *id)
{
	int	i;

	for (i = 0; i < l->nexercises; i++)
		if (id == NULL || strcmp(l->exercises[i].id, id) == 0)
			return &l->exercises[i];
	return NULL;
}

/* One line per exercise of l: its id, level, kind and file, its cases. */
void
ex_list(const struct lab *l, FILE *f)
{
	const struct lexercise	*e;
	int			 i;

	for (i = 0; i < l->nexercises; i++) {
		e = &l->exercises[i];
		fprintf(f, "  %-16s %-12s %s %s", e->id,
		    e->level != NULL ? e->level : "-",
		    e->kind == LEX_PROGRAM ? "program" : "kernel",
		    e->kind == LEX_PROGRAM ? last_part(e->file) : e->path);
		if (e->ncases > 0)
			fprintf(f, ", %d grader case%s", e->ncases,
			    e->ncases == 1 ? "" : "s");
		fprintf(f, "%s\n", i == 0 ? " (the default)" : "");
	}
}

/*
 * Take the case steps of l's exercises other than mine out of its steps
 * (into their struct lexercise.dropped, which lab_free frees): only mine
 * is graded.  Before a run only: results point at steps.
 */
void
ex_pick(struct lab *l, const struct lexercise *mine)
{
	struct lexercise	*e;
	size_t			 sz = sizeof *l->steps;
	int			 i, j, at, n;

	for (i = 0; i < l->nexercises; i++) {
		e = &l->exercises[i];
		at = e->step0;
		n = e->ncases;
		if (e == mine || n == 0 || e->ndropped > 0 || at < 0 ||
		    at + n > l->nsteps)
			continue;
		e->dropped = xmalloc(n * sz);
		memcpy(e->dropped, l->steps + at, n * sz);
		memmove(l->steps + at, l->steps + at + n,
		    (l->nsteps - at - n) * sz);
		l->nsteps -= n;
		e->ndropped = n;
		e->step0 = -1;
		for (j = 0; j < l->nexercises; j++)
			if (l->exercises[j].step0 > at)
				l->exercises[j].step0 -= n;
	}
}

/* Write text to path (made whole or not at all). */
int
ex_write(const char *path, const char *text)
{
	return write_file_atomic(path, text, strlen(text), 0644);
}
