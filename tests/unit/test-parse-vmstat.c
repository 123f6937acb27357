/* SPDX-License-Identifier: GPL-2.0-only */
/* Unit tests: parse_vmstat on the guest's /proc/vmstat and broken input. */
#include "tui-test.h"
#include "tui-fixture.h"

static struct vmstat vs;

/* Adapter for robust_rows(): one row per counter. */
static int
run(const char *b, size_t n, char *err, struct rows *out)
{
	int	r = parse_vmstat(b, n, &vs);

	memcpy(err, vs.err, PERR_LEN);
	for (int i = 0; i < vs.kv.n; i++)
		rows_add(out, "%s %llu", vs.kv.v[i].name, vs.kv.v[i].val);
	return r;
}

/* The captured file parses completely and holds the compaction counters. */
static void
test_fixture(void **st)
{
	size_t	 len;
	char	*b = fixture("guest/proc/vmstat", &len);
	u64	 v;

	assert_int_equal(parse_vmstat(b, len, &vs), 0);
	assert_string_equal(vs.err, "");
	assert_true(vs.kv.n > 100);
	assert_string_equal(vs.kv.v[0].name, "nr_free_pages");
	assert_true(kv_get(&vs.kv, "compact_migrate_scanned", &v));
	assert_int_equal(v, FX_MIGRATE_SCANNED);
	assert_true(kv_get(&vs.kv, "compact_free_scanned", &v));
	assert_int_equal(v, FX_FREE_SCANNED);
	assert_false(kv_get(&vs.kv, "no_such_counter", &v));
	free(b);
	(void)st;
}

/* Malformed lines are skipped and named; good lines are kept. */
static void
test_broken(void **st)
{
	const char	in[] =
	    "nr_free_pages 10\nbogus\nnr_x 12abc\npgfault 7\n";

	assert_int_equal(parse_vmstat(in, sizeof(in) - 1, &vs), -1);
	assert_string_equal(vs.err, "line 2: expected 'name value' in vmstat");
	assert_int_equal(vs.kv.n, 2);
	assert_int_equal(kv_val(&vs.kv, "pgfault"), 7);
	assert_int_equal(parse_vmstat("nr_free_pages 1", 15, &vs), -1);
	assert_non_null(strstr(vs.err, "truncated"));
	assert_int_equal(parse_vmstat("", 0, &vs), -1);
	assert_string_equal(vs.err, "vmstat: no counters");
	assert_int_equal(parse_vmstat("x 99999999999999999999999\n", 26, &vs), -1);
	(void)st;
}

/* Every prefix and corrupted copy is handled. */
static void
test_robust(void **st)
{
	robust_fixture("guest/proc/vmstat", SIZE_MAX, run, nonblank_line);
	(void)st;
}

/* Run the vmstat parser tests. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixture),
		cmocka_unit_test(test_broken),
		cmocka_unit_test(test_robust),
	};
	int	r = cmocka_run_group_tests_name("parse-vmstat", tests, NULL,
	    NULL);

	kv_free(&vs.kv);
	return r;
}
