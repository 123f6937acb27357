/*
 * tui-test.h - helpers for the TUI parser unit tests (cmocka).
 *
 * Fixtures are read from tests/fixtures/ under $UMKIT_TOP (or the current
 * directory).  robust() runs a parser on every prefix of an input and on
 * corrupted copies, each in an exact-size heap buffer so that the
 * sanitizers catch any read past the end.
 */
#ifndef UMKIT_TUI_TEST_H
#define UMKIT_TUI_TEST_H

#include <stdarg.h>
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
static inline char *top_file(const char *rel, size_t *len)
{
	const char *top = getenv("UMKIT_TOP");
	char path[1024];
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);
	ssize_t r;
	int fd;

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
static inline char *fixture(const char *rel, size_t *len)
{
	char path[1024];

	if ((size_t)snprintf(path, sizeof(path), "tests/fixtures/%s", rel) >= sizeof(path))
		fail_msg("path too long: %s", rel);
	return top_file(path, len);
}

/* Run fn on every prefix of buf and on copies with bytes overwritten by
 * pseudo-random junk; fn must return 0 or -1 and never crash.  Prefixes
 * that cut the input must come back -1 with a message when `strict`. */
static inline void robust(const char *buf, size_t len,
			  int (*fn)(const char *, size_t, char *err))
{
	unsigned seed = 12345;
	char err[PERR_LEN];
	size_t step = len > 4000 ? len / 2000 : 1;

	for (size_t n = 0; n <= len; n += step) {
		char *p = malloc(n ? n : 1);
		int r;

		memcpy(p, buf, n);
		r = fn(p, n, err);
		assert_true(r == 0 || r == -1);
		if (r == -1)
			assert_true(err[0] != '\0');
		free(p);
	}
	for (int round = 0; round < 300; round++) {
		char *p = malloc(len ? len : 1);
		int r;

		memcpy(p, buf, len);
		for (int k = 0; k < 4 && len; k++) {
			seed = seed * 1103515245 + 12345;
			p[(seed >> 8) % len] = (char)(seed >> 3);
		}
		r = fn(p, len, err);
		assert_true(r == 0 || r == -1);
		free(p);
	}
}

/* robust() on the first max bytes of tests/fixtures/REL. */
static inline void robust_fixture(const char *rel, size_t max,
				  int (*fn)(const char *, size_t, char *err))
{
	size_t len;
	char *b = fixture(rel, &len);

	robust(b, len < max ? len : max, fn);
	free(b);
}

#endif
