/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test-selftests.c - unit tests of uml/patch/st-ktap.c: a kselftest's
 * output read into subtests and a reason, KTAP written, and base against
 * patched judged per test and per subtest (what fails on both is not the
 * patch's).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "patch/selftests.h"

/* mremap_test's output in a 256 MiB guest, cut down. */
static const char mremap_out[] =
    "TAP version 13\n"
    "# Test configs:\n"
    "1..4\n"
    "ok 1 # XFAIL mremap - Source and Destination Regions Overlapping\n"
    "ok 2 8KB mremap - Source PTE-aligned, Destination PTE-aligned\n"
    "# Failed to map source region: Cannot allocate memory\n"
    "not ok 3 2GB mremap - Source PUD-aligned, Destination PTE-aligned\n"
    "ok 4 mremap move multiple invalid vmas # SKIP missing uffd\r\n"
    "# Totals: pass:1 fail:1 xfail:1 xpass:0 skip:1 error:0\n";

/* Subtests, their results, and the failure's line as the reason. */
static void
t_parse(void **state)
{
	struct st_test	t = { .status = ST_FAIL };

	st_parse(mremap_out, sizeof mremap_out - 1, &t);
	assert_int_equal(t.nsubs, 4);
	assert_int_equal(t.nfailed, 1);
	assert_string_equal(t.subs[0].desc, "");	/* "ok 1 # XFAIL ..." */
	assert_string_equal(t.subs[1].desc,
	    "8KB mremap - Source PTE-aligned, Destination PTE-aligned");
	assert_int_equal(t.subs[2].result, 0);
	assert_int_equal(t.subs[3].result, 2);
	assert_string_equal(t.subs[3].desc, "mremap move multiple invalid vmas");
	assert_string_equal(t.reason,
	    "not ok 3 2GB mremap - Source PUD-aligned, Destination PTE-aligned");
	free(t.subs);
	(void)state;
}

/* A skip's reason is its SKIP line; controls never reach the terminal. */
static void
t_skip_reason(void **state)
{
	const char	out[] = "# hugetlbfs \033[31m not mounted\n# SKIP no hugetlbfs\n";
	struct st_test	t = { .status = ST_SKIP };

	st_parse(out, sizeof out - 1, &t);
	assert_string_equal(t.reason, "no hugetlbfs");
	t.status = ST_FAIL;
	st_parse(out, (size_t)(strchr(out, '\n') - out), &t);
	assert_string_equal(t.reason, "hugetlbfs ?[31m not mounted");
	assert_int_equal(t.nsubs, 0);
	(void)state;
}

/* A test that bails out: its Bail out! line, not the totals after it. */
static void
t_bail(void **state)
{
	const char	out[] = "TAP version 13\n1..2\n"
	    "Bail out! [FAIL]\tmain:107\tsocketpair():Function not implemented\n"
	    "# Planned tests != run tests (2 != 0)\n"
	    "# Totals: pass:0 fail:0 xfail:0 xpass:0 skip:0 error:0\n";
	struct st_test	t = { .status = ST_FAIL };

	st_parse(out, sizeof out - 1, &t);
	assert_string_equal(t.reason,
	    "Bail out! [FAIL]?main:107?socketpair():Function not implemented");
	(void)state;
}

/* More subtests than kept: counted as failed, never written past. */
static void
t_bounds(void **state)
{
	size_t		 n = (ST_MAX_SUBS + 10) * 16, len = 0;
	char		*buf = malloc(n + 1);
	struct st_test	 t = { .status = ST_FAIL };
	int		 i;

	for (i = 0; i < ST_MAX_SUBS + 10; i++)
		len += (size_t)snprintf(buf + len, n + 1 - len, "not ok %d x\n", i);
	st_parse(buf, len, &t);
	assert_int_equal(t.nsubs, ST_MAX_SUBS);
	assert_int_equal(t.nfailed, ST_MAX_SUBS + 10);
	free(t.subs);
	free(buf);
	(void)state;
}

/* A run of three tests. */
static void
mkrun(struct st_run *r, enum st_status a, enum st_status b, const char *sub3)
{
	static const char *const names[] = { "cow", "mlock2-tests", "mremap_test" };
	int	i;

	memset(r, 0, sizeof *r);
	r->v = calloc(3, sizeof *r->v);
	r->n = 3;
	for (i = 0; i < 3; i++)
		strcpy(r->v[i].name, names[i]);
	r->v[0].status = ST_FAIL;		/* fails everywhere */
	r->v[1].status = a;
	r->v[2].status = b;
	st_parse(sub3, strlen(sub3), &r->v[2]);
}

/* Per test and per subtest: only what passes on base and fails patched. */
static void
t_compare(void **state)
{
	struct st_run	 base, same, worse;
	char		*out = NULL;
	size_t		 outn = 0;
	FILE		*f;

	mkrun(&base, ST_PASS, ST_PASS, "ok 1 a\nnot ok 2 b\n");
	mkrun(&same, ST_PASS, ST_PASS, "ok 1 a\nnot ok 2 b\n");
	mkrun(&worse, ST_FAIL, ST_PASS, "not ok 1 a\nnot ok 2 b\n");
	f = open_memstream(&out, &outn);
	assert_int_equal(st_compare(&base, &same, f), 0);
	fflush(f);
	assert_non_null(strstr(out, "cow: fail patched, and on base too (fail): not the patch's"));
	assert_int_equal(st_compare(&base, &worse, f), 2);
	fclose(f);
	assert_non_null(strstr(out, "mlock2-tests: passes on base, fail patched"));
	assert_non_null(strstr(out, "mremap_test: subtest passes on base, fails patched: a"));
	assert_null(strstr(out, "fails patched: b"));
	free(out);
	st_free(&base);
	st_free(&same);
	st_free(&worse);
	(void)state;
}

/* KTAP: a plan, a line per test, a skip's reason, failed subtests. */
static void
t_ktap(void **state)
{
	struct st_run	 r;
	char		*out = NULL;
	size_t		 outn = 0;
	FILE		*f;
	int		 p, fl, sk;

	mkrun(&r, ST_SKIP, ST_PASS, "ok 1 a\nnot ok 2 b\n");
	strcpy(r.v[1].reason, "no capability");
	f = open_memstream(&out, &outn);
	st_ktap(&r, f);
	fclose(f);
	assert_string_equal(out, "KTAP version 1\n1..3\n"
	    "not ok 1 cow # fail, exit 0\n"
	    "ok 2 mlock2-tests # SKIP no capability\n"
	    "# mremap_test: not ok: b\n"
	    "ok 3 mremap_test\n");
	st_counts(&r, &p, &fl, &sk);
	assert_true(p == 1 && fl == 1 && sk == 1);
	free(out);
	st_free(&r);
	(void)state;
}

/* KUnit suites from debugfs: a suite per "=== NAME", its own line last. */
static void
t_kunit(void **state)
{
	const char	out[] =
	    "=== damon\nKTAP version 1\n# Subtest: damon\n1..2\n"
	    "    ok 1 damon_test_target\n    ok 2 damon_test_regions\nok 1 damon\n"
	    "=== slub_test\nKTAP version 1\n1..2\n    ok 1 test_clobber_zone\n"
	    "    not ok 2 test_next_pointer\nnot ok 2 slub_test\n"
	    "=== empty\n";
	struct st_run	r;

	st_kunit_parse(out, sizeof out - 1, &r);
	assert_int_equal(r.n, 3);
	assert_string_equal(r.v[0].name, "damon");
	assert_int_equal(r.v[0].status, ST_PASS);
	assert_int_equal(r.v[0].nsubs, 2);		/* two cases, not the suite */
	assert_string_equal(r.v[1].name, "slub_test");
	assert_int_equal(r.v[1].status, ST_FAIL);
	assert_string_equal(r.v[1].reason, "not ok 2 test_next_pointer");
	assert_int_equal(r.v[2].status, ST_FAIL);
	assert_string_equal(r.v[2].reason, "no result line for the suite");
	st_free(&r);
	(void)state;
}

/* Run the tests. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_parse),
		cmocka_unit_test(t_skip_reason),
		cmocka_unit_test(t_bail),
		cmocka_unit_test(t_bounds),
		cmocka_unit_test(t_compare),
		cmocka_unit_test(t_ktap),
		cmocka_unit_test(t_kunit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
