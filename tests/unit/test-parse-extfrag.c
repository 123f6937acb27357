/* SPDX-License-Identifier: GPL-2.0-only */
/* Unit tests: parse_extfrag on the guest's extfrag_index and broken input. */
#include "tui-test.h"
#include "tui-fixture.h"

/* Adapter for robust_rows(): a row per zone with its indices. */
static int
run(const char *b, size_t n, char *err, struct rows *out)
{
	struct extfrag	ef;
	int		r = parse_extfrag(b, n, &ef);

	memcpy(err, ef.err, PERR_LEN);
	for (int i = 0; i < ef.nzones; i++) {
		char	line[300];
		int	k = snprintf(line, sizeof(line), "%d %s", ef.zone[i].node, ef.zone[i].name);

		for (int o = 0; o < ef.zone[i].norders; o++)
			k += snprintf(line + k, sizeof(line) - (size_t)k, " %d", ef.zone[i].milli[o]);
		rows_add(out, "%s", line);
	}
	return r;
}

/* One index per order, -1.000 stored as -1000. */
static void
test_fixture(void **st)
{
	size_t		 len;
	char		*b =
	    fixture("guest/sys/kernel/debug/extfrag/extfrag_index", &len);
	struct extfrag	 ef;

	assert_int_equal(parse_extfrag(b, len, &ef), 0);
	assert_int_equal(ef.nzones, 1);
	assert_string_equal(ef.zone[0].name, FX_ZI_POP_NAME);
	assert_int_equal(ef.zone[0].norders, 11);
	assert_int_equal(ef.zone[0].milli[0], FX_EF_ORDER0);
	assert_int_equal(ef.zone[0].milli[10], FX_EF_ORDER10);
	free(b);
	(void)st;
}

/* Values in the kernel's format, and bad ones. */
static void
test_values(void **st)
{
	struct extfrag	ef;
	const char	a[] = "Node 0, zone   Normal -1.000  0.512  1.000 \n";
	const char	c[] = "Node 0, zone   Normal -1.000  0.5 \n";

	assert_int_equal(parse_extfrag(a, sizeof(a) - 1, &ef), 0);
	assert_int_equal(ef.zone[0].milli[0], -1000);
	assert_int_equal(ef.zone[0].milli[1], 512);
	assert_int_equal(ef.zone[0].milli[2], 1000);
	assert_int_equal(parse_extfrag(c, sizeof(c) - 1, &ef), -1);
	assert_string_equal(ef.err, "line 1: bad index for order 1");
	assert_int_equal(parse_extfrag("\n\n", 2, &ef), -1);
	assert_string_equal(ef.err, "extfrag: no zones");
	(void)st;
}

/* Every prefix and corrupted copy is handled. */
static void
test_robust(void **st)
{
	robust_fixture("guest/sys/kernel/debug/extfrag/extfrag_index", SIZE_MAX, run,
	    nonblank_line);
	robust_fixture("guest/sys/kernel/debug/extfrag/unusable_index", SIZE_MAX, run,
	    nonblank_line);
	(void)st;
}

/* Run the extfrag parser tests. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixture),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_robust),
	};

	return cmocka_run_group_tests_name("parse-extfrag", tests, NULL, NULL);
}
