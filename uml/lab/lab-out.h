/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * lab-out.h - what a lab run produced: the book of results, and its
 * forms: KTAP on a stream, JUnit XML, the JSON result file, and the
 * classroom report that merges many result files.
 */
#ifndef UMKIT_LAB_OUT_H
#define UMKIT_LAB_OUT_H

#include <stdbool.h>
#include <stdio.h>

#include "lab-run.h"

/* The results of one run of one lab: the latest result of each check. */
struct lab_book {
	const struct lab *lab;
	int		 nchecks;
	struct lres	*res;		/* by check number, file order */
	bool		*have;
	double		*at_s;		/* when each came, since the start */
	long long	 start_ms, start_unix;
	double		 end_s;
	const char	*mode;		/* "batch", "interactive", "exam" */
	char		 variant[64];	/* the last variant booted */
	int		 nerrors;	/* step failures no check carried */
	const char	*indent;	/* KTAP: "" or "    " for a subtest */
	/* The session whose answers count (questions, ab steps), or NULL. */
	const struct lab_sess *sess;
};

/* Set a book up for lab (nothing recorded yet). */
void	book_init(struct lab_book *, const struct lab *, const char *mode);
void	book_free(struct lab_book *);
/* The check number (0-based, file order) of a check action, or -1. */
int	book_index(const struct lab_book *, const struct lact *);
/* Record a result (a re-run replaces the previous one). */
void	book_put(struct lab_book *, const struct lres *);
/* Forget the results of one step (before re-running it). */
void	book_clear_step(struct lab_book *, const struct lstep *);

struct lab_score {
	int	checks, passed, failed, skipped, notrun;
	int	points, max_points;		/* the student's and the kit's */
	int	student_points, student_max;	/* answers, goals, ab steps */
	int	kit_points, kit_max;		/* the kit's own checks */
};
void	book_score(const struct lab_book *, struct lab_score *);
/* "passed 7/9, 18/24 points", and ": 6/12 yours, 12/12 the kit's" when
 * the student has points */
void	score_line(const struct lab_score *, char *out, size_t n);

/* KTAP: the header and plan, one line per result, the score. */
void	ktap_begin(FILE *, const struct lab_book *);
void	ktap_result(FILE *, const struct lab_book *, const struct lres *,
	    bool hints);
/* The student's answers of step i as diagnostic lines. */
void	ktap_answers(FILE *, const struct lab_book *, int step);
void	ktap_end(FILE *, const struct lab_book *);

/* The JSON result file (every check, the predictions, the score). */
int	book_write_json(const struct lab_book *, const struct lab_sess *,
	    const char *path);
/* JUnit XML for one or more books; 0 or -1 with errno. */
int	books_write_junit(struct lab_book *const *, int n, const char *path);
/* A testsuites element's totals. */
struct junit_sum {
	int	tests, fails, skips, errs;
	double	time;
};
/*
 * One book's part of a JUnit file another process writes (lab all, a
 * lab a child): its totals on a line, then its testsuite element.
 */
void	book_junit_part(FILE *, const struct lab_book *);
/* The JUnit file of n such parts (NULL ones left out); 0 or -1 with errno. */
int	junit_join(FILE *const *parts, int n, const char *path);

/* The largest result file 'umkit lab report' reads, bytes. */
#define LAB_RESULT_MAX	(4 << 20)

/*
 * 'umkit lab report': merge JSON result files into a table on out and,
 * with csv_dir, one CSV per lab (csv_dir/LAB.csv: every field quoted, a
 * text field that a spreadsheet would take for a formula starts with
 * ').  Returns 0, or 2 with a message naming the file that could not be
 * read, is larger than LAB_RESULT_MAX, is not a result, or whose lab is
 * not a plain name (lab_name_ok).
 */
int	lab_report(char **files, int nfiles, const char *csv_dir, FILE *out);
/*
 * A result file's MAC check under key: 1 it matches, 0 it does not (or
 * there is none), -1 not JSON.  The MAC is HMAC-SHA256 of the file's JSON
 * without "mac", compact with sorted keys (lab-key.c).
 */
int	lab_result_mac_ok(const char *text, size_t len, const char *key);
/*
 * The same from the files' texts already read (texts[i], lens[i] bytes,
 * named names[i]; a NULL text is a file that could not be read).
 */
int	lab_report_texts(char *const *names, char *const *texts,
	    const size_t *lens, int n, const char *csv_dir, FILE *out);

#endif
