/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tui-test.h - helpers for the TUI parser unit tests (cmocka).
 *
 * Fixtures are read from tests/fixtures/ under $UMKIT_TOP (or the current
 * directory).  robust_rows() runs a parser on every prefix of an input
 * and on corrupted copies, each in an exact-size heap buffer so that the
 * sanitizers catch any read past the end, and checks that a truncated
 * input either fails or yields exactly the rows that were complete.
 */
#ifndef UMKIT_TUI_TEST_H
#define UMKIT_TUI_TEST_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "parse.h"

/* Read REL of the checkout into a malloc'd buffer; fails the test if absent. */
static inline char *
top_file(const char *rel, size_t *len)
{
	const char	*top = getenv("UMKIT_TOP");
	char		 path[1024];
	size_t		 cap = 4096, n = 0;
	char		*buf = malloc(cap);
	ssize_t		 r;
	int		 fd;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", top ? top : ".", rel) >= sizeof(path))
		fail_msg("path too long: %s", rel);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		fail_msg("cannot open %s", path);
	while ((r = read(fd, buf + n, cap - n)) > 0) {
		n += (size_t)r;
		if (n == cap)
			buf = realloc(buf, cap *= 2);
	}
	close(fd);
	*len = n;
	return buf;
}

/* Read tests/fixtures/REL (see top_file). */
static inline char *
fixture(const char *rel, size_t *len)
{
	char	path[1024];

	if ((size_t)snprintf(path, sizeof(path), "tests/fixtures/%s", rel) >= sizeof(path))
		fail_msg("path too long: %s", rel);
	return top_file(path, len);
}

/* What a parser made of an input, as text rows in a fixed order (one
 * per counter, zone, event...), so that results can be compared. */
struct rows {
	int	 n, cap;
	char	**r;
};

/* Append one row, printf-style. */
static inline void __attribute__((format(printf, 2, 3)))
rows_add(struct rows *rs, const char *fmt, ...)
{
	va_list	ap;
	char	line[512];

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (rs->n == rs->cap)
		rs->r = realloc(rs->r, (size_t)(rs->cap = rs->cap ? 2 * rs->cap : 64) * sizeof(char *));
	rs->r[rs->n++] = strdup(line);
}

/* Empty the rows (storage kept). */
static inline void
rows_clear(struct rows *rs)
{
	for (int i = 0; i < rs->n; i++)
		free(rs->r[i]);
	rs->n = 0;
}

/* Free the rows. */
static inline void
rows_free(struct rows *rs)
{
	rows_clear(rs);
	free(rs->r);
	rs->r = NULL;
	rs->cap = 0;
}

/* The index of the first row where a and b differ, or -1. */
static inline int
rows_diff(const struct rows *a, const struct rows *b)
{
	for (int i = 0; i < a->n || i < b->n; i++)
		if (i >= a->n || i >= b->n || strcmp(a->r[i], b->r[i]))
			return i;
	return -1;
}

/* Whether a's rows appear in full, in the same order (a subsequence):
 * nothing invented, nothing changed. */
static inline bool
rows_within(const struct rows *a, const struct rows *full)
{
	int	j = 0;

	for (int i = 0; i < a->n; i++) {
		while (j < full->n && strcmp(full->r[j], a->r[i]))
			j++;
		if (j++ >= full->n)
			return false;
	}
	return true;
}

/* An adapter: parse (buf, len), copy the error to err, fill rows. */
typedef int (*rows_fn)(const char *buf, size_t len, char *err, struct rows *out);
/* Which lines of a file each yield exactly one row (NULL: not checked). */
typedef bool (*row_line_fn)(const char *line, size_t n);

/* Run fn on a copy of n bytes of buf in an exact-size heap buffer. */
static inline int
rows_of(const char *buf, size_t n, rows_fn fn, char *err, struct rows *out)
{
	char	*p = malloc(n ? n : 1);
	int	 r;

	memcpy(p, buf, n);
	rows_clear(out);
	err[0] = '\0';
	r = fn(p, n, err, out);
	free(p);
	return r;
}

/* How many complete lines of buf[0, n) row_line takes. */
static inline int
row_lines(const char *buf, size_t n, row_line_fn row_line)
{
	int	k = 0;

	for (const char *p = buf, *nl; p < buf + n && (nl = memchr(p, '\n', (size_t)(buf + n - p)));
	    p = nl + 1)
		k += row_line(p, (size_t)(nl - p));
	return k;
}

/*
 * A truncated file either fails or yields exactly the rows that were
 * complete.  For every prefix P of buf (the whole file must parse
 * cleanly), fn returns 0 or -1, and -1 comes with a message; when it
 * returns 0, its rows equal those of P cut after its last newline C (a
 * binary file of unit-byte records, unit > 0: cut to whole records) --
 * the cut line added nothing -- C's rows are a subsequence of the whole
 * file's (nothing invented or changed), and when row_line is given, C
 * has one row per complete line that row_line takes.  Copies with bytes
 * overwritten by junk must give 0 or -1 and never crash; every run is in
 * an exact-size buffer, so the sanitizers catch a read past the end.
 */
static inline void
robust_cut(const char *buf, size_t len, rows_fn fn, row_line_fn row_line,
    size_t unit)
{
	struct rows	full = { 0 }, got = { 0 }, cut = { 0 };
	unsigned	seed = 12345;
	char		err[PERR_LEN];
	size_t		step = len > 4000 ? len / 2000 : 1;

	if (rows_of(buf, len, fn, err, &full) != 0)
		fail_msg("the whole input does not parse: %s", err);
	if (row_line && row_lines(buf, len, row_line) != full.n)
		fail_msg("%d rows from %d row lines", full.n, row_lines(buf, len, row_line));
	for (size_t n = 0; n <= len; n += step) {
		size_t	c = n;
		int	r, d;

		if (unit)
			c = n - n % unit;
		else
			while (c > 0 && buf[c - 1] != '\n')
				c--;
		r = rows_of(buf, n, fn, err, &got);
		assert_true(r == 0 || r == -1);
		if (r == -1) {
			if (!err[0])
				fail_msg("prefix of %zu bytes: -1 without a message", n);
			continue;
		}
		rows_of(buf, c, fn, err, &cut);
		if ((d = rows_diff(&got, &cut)) >= 0)
			fail_msg("prefix of %zu bytes parsed as 0, but its cut last line changed row "
			    "%d: '%s' (whole lines give '%s')", n, d, d < got.n ? got.r[d] : "",
			    d < cut.n ? cut.r[d] : "");
		if (!rows_within(&cut, &full))
			fail_msg("prefix of %zu bytes: rows that the whole file does not have", n);
		if (row_line && row_lines(buf, c, row_line) != cut.n)
			fail_msg("prefix of %zu bytes: %d rows from %d complete row lines", n, cut.n,
			    row_lines(buf, c, row_line));
	}
	for (int round = 0; round < 300; round++) {
		char	*p = malloc(len ? len : 1);
		int	 r;

		memcpy(p, buf, len);
		for (int k = 0; k < 4 && len; k++) {
			seed = seed * 1103515245 + 12345;
			p[(seed >> 8) % len] = (char)(seed >> 3);
		}
		rows_clear(&got);
		err[0] = '\0';
		r = fn(p, len, err, &got);
		assert_true(r == 0 || r == -1);
		if (r == -1 && !err[0])
			fail_msg("corrupted input: -1 without a message");
		free(p);
	}
	rows_free(&full);
	rows_free(&got);
	rows_free(&cut);
}

/* robust_cut() for text: the complete part of a prefix ends at its last
 * newline. */
static inline void
robust_rows(const char *buf, size_t len, rows_fn fn, row_line_fn row_line)
{
	robust_cut(buf, len, fn, row_line, 0);
}

/* robust_rows() on the first max bytes of tests/fixtures/REL. */
static inline void
robust_fixture(const char *rel, size_t max, rows_fn fn, row_line_fn row_line)
{
	size_t	 len;
	char	*b = fixture(rel, &len);

	robust_rows(b, len < max ? len : max, fn, row_line);
	free(b);
}

/* Row lines: every line that is not blank. */
static inline bool
nonblank_line(const char *line, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (line[i] != ' ' && line[i] != '\t')
			return true;
	return false;
}

#endif
