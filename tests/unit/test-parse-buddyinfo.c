/* SPDX-License-Identifier: GPL-2.0-only */
/* Unit tests: parse_buddyinfo on the guest's /proc/buddyinfo and broken input. */
#include "tui-test.h"
#include "tui-fixture.h"

/* Adapter for robust_rows(): a row per zone with its counts. */
static int
run(const char *b, size_t n, char *err, struct rows *out)
{
	struct buddyinfo	bi;
	int			r = parse_buddyinfo(b, n, &bi);

	memcpy(err, bi.err, PERR_LEN);
	for (int i = 0; i < bi.nzones; i++) {
		char	line[300];
		int	k = snprintf(line, sizeof(line), "%d %s", bi.zone[i].node, bi.zone[i].name);

		for (int o = 0; o < bi.zone[i].norders; o++)
			k += snprintf(line + k, sizeof(line) - (size_t)k, " %llu", bi.zone[i].nr_free[o]);
		rows_add(out, "%s", line);
	}
	return r;
}

/* Free block counts per order of the populated zone. */
static void
test_fixture(void **st)
{
	size_t			 len;
	char			*b = fixture("guest/proc/buddyinfo", &len);
	struct buddyinfo	 bi;

	assert_int_equal(parse_buddyinfo(b, len, &bi), 0);
	assert_int_equal(bi.nzones, 1);
	assert_string_equal(bi.zone[0].name, FX_ZI_POP_NAME);
	assert_int_equal(bi.zone[0].norders, 11);
	assert_int_equal(bi.zone[0].nr_free[0], FX_BI_ORDER0);
	assert_int_equal(bi.zone[0].nr_free[10], FX_BI_ORDER10);
	free(b);
	(void)st;
}

/* Bad headers and counts are named. */
static void
test_broken(void **st)
{
	struct buddyinfo	bi;
	const char		a[] = "Node 0 zone Normal 1 2\n";
	const char		c[] = "Node 0, zone Normal 1 2 x 4\n";

	assert_int_equal(parse_buddyinfo(a, sizeof(a) - 1, &bi), -1);
	assert_string_equal(bi.err, "line 1: expected 'Node N, zone NAME counts...'");
	assert_int_equal(parse_buddyinfo(c, sizeof(c) - 1, &bi), -1);
	assert_string_equal(bi.err, "line 1: bad count for order 2");
	assert_int_equal(bi.zone[0].norders, 2);
	(void)st;
}

/* Every prefix and corrupted copy is handled. */
static void
test_robust(void **st)
{
	robust_fixture("guest/proc/buddyinfo", SIZE_MAX, run, nonblank_line);
	(void)st;
}

/* Run the buddyinfo parser tests. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixture),
		cmocka_unit_test(test_broken),
		cmocka_unit_test(test_robust),
	};

	return cmocka_run_group_tests_name("parse-buddyinfo", tests, NULL, NULL);
}
