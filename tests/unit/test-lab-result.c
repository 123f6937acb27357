/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Unit test: a lab's result(NAME.KEY) on a command's output
 * (lab_result_in, uml/lab/lab-result.c; the guest prints it, so it is
 * untrusted), under ASan/UBSan: the last NAME line counts, the key after
 * a blank, and a value is a finite number right after the '='.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "lab/lab-result.h"

/* What a workload prints: the last line of its name counts. */
static void
test_found(void **st)
{
	const char	*out = "kvbench: ops_per_s=10 p99_us=5\n"
	    "procbench: case=fork us_per_op=1\n"
	    "kvbench: ops_per_s=20 xp99_us=9 p99_us=6.5\n";
	double		 v = 0;

	assert_int_equal(lab_result_in(out, "kvbench", "ops_per_s", &v), 1);
	assert_true(v == 20);
	assert_int_equal(lab_result_in(out, "kvbench", "p99_us", &v), 1);
	assert_true(v == 6.5);
	assert_int_equal(lab_result_in(out, "procbench", "us_per_op", &v), 1);
	assert_true(v == 1);
	(void)st;
}

/* No line of that name: 0; a line without the key or number: -1. */
static void
test_missing(void **st)
{
	double	v = 42;

	assert_int_equal(lab_result_in("readtwice: mb_per_s=1\n", "kvbench",
	    "ops_per_s", &v), 0);
	assert_int_equal(lab_result_in("kvbench:ops_per_s=1\n", "kvbench",
	    "ops_per_s", &v), 0);
	assert_int_equal(lab_result_in("kvbench: p99_us=1\n", "kvbench",
	    "ops_per_s", &v), -1);
	assert_int_equal(lab_result_in("kvbench: ops_per_s=abc\n", "kvbench",
	    "ops_per_s", &v), -1);
	assert_int_equal(lab_result_in("x: k=1\n", "", "k", &v), 0);
	assert_int_equal(lab_result_in("x: k=1\n", "x", "", &v), 0);
	assert_true(v == 42);
	(void)st;
}

/* strtod would skip blanks and the newline: the next line is no value. */
static void
test_no_value_from_the_next_line(void **st)
{
	double	v = 42;

	assert_int_equal(lab_result_in("kvbench: p99_us=\n5\n", "kvbench",
	    "p99_us", &v), -1);
	assert_int_equal(lab_result_in("kvbench: p99_us= 5\n", "kvbench",
	    "p99_us", &v), -1);
	assert_true(v == 42);
	(void)st;
}

/* inf, nan and numbers past a double: no value. */
static void
test_not_finite(void **st)
{
	static const char *const bad[] = {
		"w: k=inf\n", "w: k=-inf\n", "w: k=nan\n", "w: k=+NAN(1)\n",
		"w: k=1e999\n", "w: k=-1e400\n",
	};
	double	v = 42;
	size_t	i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(lab_result_in(bad[i], "w", "k", &v), -1);
	assert_true(v == 42);
	assert_int_equal(lab_result_in("w: k=-1.5e3\n", "w", "k", &v), 1);
	assert_true(v == -1500);
	(void)st;
}

/* Run the result-line tests. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_found),
		cmocka_unit_test(test_missing),
		cmocka_unit_test(test_no_value_from_the_next_line),
		cmocka_unit_test(test_not_finite),
	};

	return cmocka_run_group_tests_name("lab-result", tests, NULL, NULL);
}
