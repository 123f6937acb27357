/* SPDX-License-Identifier: GPL-2.0-only */
/* Unit tests: parse_meminfo and parse_psi on guest files and broken input. */
#include "tui-test.h"
#include "tui-fixture.h"

static struct meminfo mi;

/* Adapter for robust_rows(): one row per field. */
static int
run(const char *b, size_t n, char *err, struct rows *out)
{
	int	r = parse_meminfo(b, n, &mi);

	memcpy(err, mi.err, PERR_LEN);
	for (int i = 0; i < mi.kv.n; i++)
		rows_add(out, "%s %llu", mi.kv.v[i].name, mi.kv.v[i].val);
	return r;
}

/* Adapter for robust_rows(): a row per line present. */
static int
run_psi(const char *b, size_t n, char *err, struct rows *out)
{
	struct psi	p;
	int		r = parse_psi(b, n, &p);

	for (int i = 0; i < 2; i++) {
		const struct psi_line	*l = i ? &p.full : &p.some;

		if (l->present)
			rows_add(out, "%s %.2f %.2f %.2f %llu", i ? "full" : "some", l->avg10,
			    l->avg60, l->avg300, l->total_us);
	}
	memcpy(err, p.err, PERR_LEN);
	return r;
}

/* The captured meminfo parses completely. */
static void
test_fixture(void **st)
{
	size_t	 len;
	char	*b = fixture("guest/proc/meminfo", &len);

	assert_int_equal(parse_meminfo(b, len, &mi), 0);
	assert_string_equal(mi.kv.v[0].name, "MemTotal");
	assert_int_equal(kv_val(&mi.kv, "MemTotal"), FX_MEMTOTAL);
	assert_int_equal(kv_val(&mi.kv, "MemFree"), FX_MEMFREE);
	assert_int_equal(kv_val(&mi.kv, "Active(anon)"), FX_ACTIVE_ANON);
	free(b);
	(void)st;
}

/* Lines without a colon or with a wrong unit are named. */
static void
test_broken(void **st)
{
	const char	in[] = "MemTotal:  100 kB\nMemFree  5 kB\nCached: 3 MB\nHugePages_Total:  0\n";

	assert_int_equal(parse_meminfo(in, sizeof(in) - 1, &mi), -1);
	assert_string_equal(mi.err, "line 2: expected 'Name: value [kB]' in meminfo");
	assert_int_equal(mi.kv.n, 2);
	assert_int_equal(kv_val(&mi.kv, "HugePages_Total"), 0);
	(void)st;
}

/* PSI: the guest file, and malformed lines. */
static void
test_psi(void **st)
{
	size_t		 len;
	char		*b = fixture("guest/proc/pressure/memory", &len);
	struct psi	 p;

	assert_int_equal(parse_psi(b, len, &p), 0);
	assert_true(p.some.present && p.full.present);
	assert_int_equal(p.some.total_us, FX_PSI_SOME_TOTAL);
	assert_int_equal(parse_psi("some avg10=1.5 avg60=0.00 avg300=0.00 total=1\n", 46, &p), -1);
	assert_string_equal(p.err, "line 1: psi: bad number");
	robust_rows(b, len, run_psi, nonblank_line);
	free(b);
	(void)st;
}

/* Every prefix and corrupted copy is handled. */
static void
test_robust(void **st)
{
	robust_fixture("guest/proc/meminfo", SIZE_MAX, run, nonblank_line);
	(void)st;
}

/* Run the meminfo parser tests. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixture),
		cmocka_unit_test(test_broken),
		cmocka_unit_test(test_psi),
		cmocka_unit_test(test_robust),
	};
	int	r = cmocka_run_group_tests_name("parse-meminfo", tests, NULL,
	    NULL);

	kv_free(&mi.kv);
	return r;
}
