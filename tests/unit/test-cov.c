/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test-cov.c - unit tests of patch coverage (uml/cov/cov.c): hunks of a real
 * fixture patch, added lines renumbered through a later patch of the
 * same file (shifted, removed), gcov's JSON (paths made tree-relative,
 * counts summed over runs, non-executable lines) and the per-hunk
 * judgement.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cov/cov.h"
#include "util.h"

#define FIX	TOP "/tests/fixtures/smoke"

/* The coverage fixture: four hunks in mm/vmscan.c, numbered as patched. */
static void
test_fixture_hunks(void **state)
{
	char			*p = read_text(FIX "/cov.patch");
	char			*d[1] = { p };
	struct cov_hunks	 h;

	(void)state;
	assert_non_null(p);
	cov_hunks(&h, d, 1);
	assert_int_equal(h.n, 4);
	assert_string_equal(h.v[0].file, "mm/vmscan.c");
	/* A comment before inc_max_seq(). */
	assert_int_equal(h.v[0].nlines, 1);
	assert_int_equal(h.v[0].lines[0], 3924);
	/* Two lines in it: after the comment's hunk, one line further down. */
	assert_int_equal(h.v[1].nlines, 2);
	assert_int_equal(h.v[1].lines[0], 3934);
	assert_int_equal(h.v[1].lines[1], 3935);
	assert_int_equal(h.v[1].start, 3934);
	assert_int_equal(h.v[1].end, 3935);
	assert_int_equal(h.v[2].lines[0], 5333);
	assert_int_equal(h.v[3].nlines, 1);
	assert_int_equal(h.v[3].lines[0], 7654);
	assert_int_equal(h.v[3].patch, 0);
	cov_hunks_free(&h);
	free(p);
}

/* A later patch's hunk above shifts the lines; one that removes a line zeroes it. */
static void
test_series_renumber(void **state)
{
	char *d[2] = {
		"--- a/f.c\n+++ b/f.c\n@@ -10,2 +10,4 @@\n a\n+new1\n+new2\n b\n",
		"--- a/f.c\n+++ b/f.c\n@@ -1,0 +2,3 @@\n+x\n+y\n+z\n"
		"@@ -11,2 +14,1 @@\n new1\n-new2\n",
	};
	struct cov_hunks	h;

	(void)state;
	cov_hunks(&h, d, 2);
	assert_int_equal(h.n, 3);
	/* Patch 1's lines 11 and 12: +3 from patch 2's insertion; 12 removed. */
	assert_int_equal(h.v[0].patch, 0);
	assert_int_equal(h.v[0].nlines, 2);
	assert_int_equal(h.v[0].lines[0], 14);
	assert_int_equal(h.v[0].lines[1], 0);
	/* Patch 2's own: lines 2-4, and a removal at 15. */
	assert_int_equal(h.v[1].patch, 1);
	assert_int_equal(h.v[1].lines[0], 2);
	assert_int_equal(h.v[1].lines[2], 4);
	assert_int_equal(h.v[2].nlines, 0);
	assert_int_equal(h.v[2].start, 15);
	cov_hunks_free(&h);
}

/* A new file (from /dev/null) and a deleted one. */
static void
test_new_and_deleted(void **state)
{
	char *d[1] = {
		"--- /dev/null\n+++ b/mm/new.c\n@@ -0,0 +1,2 @@\n+int a;\n+int b;\n"
		"--- a/mm/old.c\n+++ /dev/null\n@@ -1,1 +0,0 @@\n-x\n",
	};
	struct cov_hunks	h;

	(void)state;
	cov_hunks(&h, d, 1);
	assert_int_equal(h.n, 1);
	assert_string_equal(h.v[0].file, "mm/new.c");
	assert_int_equal(h.v[0].lines[0], 1);
	assert_int_equal(h.v[0].lines[1], 2);
	cov_hunks_free(&h);
}

static const char gcov_json[] =
"{\"gcc_version\": \"12.2.0\", \"current_working_directory\": \"/b/k/obj\","
" \"files\": [{\"file\": \"../src/mm/x.c\", \"lines\": ["
"{\"line_number\": 3, \"count\": 5}, {\"line_number\": 4, \"count\": 0},"
"{\"line_number\": 6, \"count\": 2}]},"
"{\"file\": \"/b/k/src/include/linux/h.h\", \"lines\": [{\"line_number\": 1, \"count\": 7}]}]}\n"
"{\"current_working_directory\": \"/b/k/obj\", \"files\": [{\"file\": "
"\"../src/./mm/x.c\", \"lines\": [{\"line_number\": 4, \"count\": 1},"
"{\"line_number\": 3, \"count\": 1}]}]}\n";

/* gcov's JSON: two runs summed, paths relative to the tree. */
static void
test_parse_gcov(void **state)
{
	struct cov		 c;
	const struct cov_src	*s;

	(void)state;
	cov_init(&c);
	assert_int_equal(cov_parse_gcov(&c, gcov_json, "/b/k/src"), 6);
	assert_int_equal(c.n, 2);
	s = cov_find(&c, "mm/x.c");
	assert_non_null(s);
	assert_int_equal(s->nlines, 6);
	assert_int_equal(s->count[2], 6);	/* line 3: 5 + 1 */
	assert_int_equal(s->count[3], 1);	/* line 4: 0 + 1 */
	assert_int_equal(s->count[4], -1);	/* line 5: not executable */
	assert_int_equal(s->count[5], 2);
	assert_non_null(cov_find(&c, "include/linux/h.h"));
	assert_int_equal(cov_parse_gcov(&c, "not json", "/b/k/src"), -1);
	assert_int_equal(cov_parse_gcov(&c, "", "/b/k/src"), -1);
	cov_free(&c);
}

/* A hunk's executable added lines, and how many ran. */
static void
test_judge(void **state)
{
	struct cov	c;
	struct cov_hres	r;
	int		lines[3] = { 3, 4, 5 };
	struct cov_hunk	h = { .file = "mm/x.c", .lines = lines, .nlines = 3 },
	    o = { .file = "mm/other.c", .lines = lines, .nlines = 3 };

	(void)state;
	cov_init(&c);
	assert_true(cov_parse_gcov(&c, "{\"current_working_directory\": \"/b/k/obj\","
	    " \"files\": [{\"file\": \"../src/mm/x.c\", \"lines\": ["
	    "{\"line_number\": 3, \"count\": 0}, {\"line_number\": 4, \"count\": 9}]}]}",
	    "/b/k/src") > 0);
	cov_judge(&c, &h, &r);
	assert_int_equal(r.measured, 1);
	assert_int_equal(r.exec, 2);
	assert_int_equal(r.ran, 1);
	cov_judge(&c, &o, &r);
	assert_int_equal(r.measured, 0);
	cov_free(&c);
}

/* A hand-edited patch's wrong "+start" does not move the lines (patch(1)
 * goes by the old side too). */
static void
test_header_off(void **state)
{
	char *d[1] = {
		"--- a/f.c\n+++ b/f.c\n@@ -10,2 +10,3 @@\n a\n+n1\n b\n"
		"@@ -20,2 +99,3 @@\n c\n+n2\n d\n",
	};
	struct cov_hunks	h;

	(void)state;
	cov_hunks(&h, d, 1);
	assert_int_equal(h.n, 2);
	assert_int_equal(h.v[0].lines[0], 11);
	assert_int_equal(h.v[1].lines[0], 22);
	cov_hunks_free(&h);
}

/* Run the coverage tests. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixture_hunks),
		cmocka_unit_test(test_series_renumber),
		cmocka_unit_test(test_new_and_deleted),
		cmocka_unit_test(test_parse_gcov),
		cmocka_unit_test(test_judge),
		cmocka_unit_test(test_header_off),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
