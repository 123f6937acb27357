/* SPDX-License-Identifier: GPL-2.0-only */
/* Unit tests: /proc/PID/status and statm, /proc/stat parsers. */
#include "tui-test.h"
#include "tui-fixture.h"

/* Adapter for robust_rows(): a row per field that is set. */
static int
run_status(const char *b, size_t n, char *err, struct rows *out)
{
	struct pidstatus	ps;
	int			r = parse_pidstatus(b, n, &ps);
	const struct { const char *k; u64 v; } f[] = {
		{ "Pid", (u64)ps.pid }, { "Threads", (u64)ps.threads },
		{ "VmRSS", ps.vm_rss }, { "RssAnon", ps.rss_anon },
		{ "RssFile", ps.rss_file }, { "RssShmem", ps.rss_shmem },
		{ "VmSwap", ps.vm_swap },
	};

	memcpy(err, ps.err, PERR_LEN);
	if (ps.name[0])
		rows_add(out, "Name %s", ps.name);
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		if (f[i].v)
			rows_add(out, "%s %llu", f[i].k, f[i].v);
	if (ps.mode[0])
		rows_add(out, "mode %s", ps.mode);
	return r;
}

/* Adapter for robust_rows(): the cpu line, then a row per cpuN line. */
static int
run_stat(const char *b, size_t n, char *err, struct rows *out)
{
	struct cpustat	cs;
	int		r = parse_cpustat(b, n, &cs);

	memcpy(err, cs.err, PERR_LEN);
	rows_add(out, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", cs.user, cs.nice,
	    cs.system, cs.idle, cs.iowait, cs.irq, cs.softirq, cs.steal);
	for (int i = 0; i < cs.ncpus; i++)
		rows_add(out, "cpuN");
	return r;
}

/* Adapter for robust_rows(): major and minor, on success. */
static int
run_osrelease(const char *b, size_t n, char *err, struct rows *out)
{
	struct osrelease	o;
	int			r = parse_osrelease(b, n, &o);

	memcpy(err, o.err, PERR_LEN);
	if (r == 0)
		rows_add(out, "%d.%d", o.major, o.minor);
	return r;
}

/* Adapter for robust_rows(): the seven numbers, on success. */
static int
run_statm(const char *b, size_t n, char *err, struct rows *out)
{
	struct statm	sm;
	int		r = parse_statm(b, n, &sm);

	memcpy(err, sm.err, PERR_LEN);
	if (r == 0)
		rows_add(out, "%llu %llu %llu %llu %llu %llu %llu", sm.size, sm.resident,
		    sm.shared, sm.text, sm.lib, sm.data, sm.dt);
	return r;
}

/* Adapter for robust_rows(): pid and resident pages, on success. */
static int
run_pidstat(const char *b, size_t n, char *err, struct rows *out)
{
	struct pidstat	ps;
	int		r = parse_pidstat(b, n, &ps);

	memcpy(err, ps.err, PERR_LEN);
	if (r == 0)
		rows_add(out, "%d %llu", ps.pid, ps.rss);
	return r;
}

/* A comm with blanks and ')' in it: the fields count from the last ')'. */
static void
test_pidstat_comm(void **st)
{
	const char	*s = "42 (a) b) c) R 1 42 42 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5 1000 77 18446744073709551615\n";
	struct pidstat	 ps;

	(void)st;
	assert_int_equal(parse_pidstat(s, strlen(s), &ps), 0);
	assert_int_equal(ps.pid, 42);
	assert_int_equal(ps.rss, 77);
	assert_int_equal(parse_pidstat("42 (x) R 1\n", 11, &ps), -1);
	assert_string_not_equal(ps.err, "");
	assert_int_equal(parse_pidstat("x (y) R\n", 8, &ps), -1);
}

/* Init's status and statm: rss counters in kB and pages. */
static void
test_fixture(void **st)
{
	size_t			 len;
	char			*b = fixture("guest/proc/1/status", &len);
	struct pidstatus	 ps;
	struct statm		 sm;
	struct pidstat		 pst;
	struct cpustat		 cs;

	assert_int_equal(parse_pidstatus(b, len, &ps), 0);
	assert_int_equal(ps.pid, 1);
	assert_string_equal(ps.name, FX_PID1_NAME);
	assert_int_equal(ps.rss_anon, FX_PID1_ANON);
	assert_int_equal(ps.rss_file, FX_PID1_FILE);
	assert_int_equal(ps.vm_rss, ps.rss_anon + ps.rss_file + ps.rss_shmem);
	assert_string_equal(ps.mode, "");
	robust_rows(b, len, run_status, NULL);
	free(b);
	b = fixture("guest/proc/1/statm", &len);
	assert_int_equal(parse_statm(b, len, &sm), 0);
	assert_int_equal(sm.resident * 4, FX_PID1_ANON + FX_PID1_FILE);
	robust_rows(b, len, run_statm, nonblank_line);
	free(b);
	b = fixture("guest/proc/1/stat", &len);
	assert_int_equal(parse_pidstat(b, len, &pst), 0);
	assert_int_equal(pst.pid, 1);
	assert_int_equal(pst.rss, sm.resident);
	robust_rows(b, len, run_pidstat, NULL);
	free(b);
	b = fixture("guest/proc/stat", &len);
	assert_int_equal(parse_cpustat(b, len, &cs), 0);
	assert_int_equal(cs.ncpus, FX_NCPUS);
	assert_true(cs.idle > 0);
	robust_rows(b, len, run_stat, NULL);
	free(b);
	b = fixture("guest/proc/sys/kernel/osrelease", &len);
	{
		struct osrelease	o;

		assert_int_equal(parse_osrelease(b, len, &o), 0);
		assert_int_equal(o.major, 7);
		assert_int_equal(o.minor, 2);
	}
	robust_rows(b, len, run_osrelease, NULL);
	free(b);
	(void)st;
}

/* Release strings of distribution and development kernels; junk is named. */
static void
test_osrelease(void **st)
{
	static const struct { const char *s; int major, minor; } good[] = {
		{ "6.1.0-28-amd64\n", 6, 1 }, { "6.2\n", 6, 2 },
		{ "7.3.0-rc2+\n", 7, 3 }, { "5.15.0+deb\n", 5, 15 },
	};
	static const char *const	bad[] = { "", "\n", "linux\n", "6\n", "6.\n", "6.x\n",
	    "6.1 extra\n", "6.1x\n", "99999.1\n" };
	struct osrelease		o;

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		assert_int_equal(parse_osrelease(good[i].s, strlen(good[i].s), &o), 0);
		assert_int_equal(o.major, good[i].major);
		assert_int_equal(o.minor, good[i].minor);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(parse_osrelease(bad[i], strlen(bad[i]), &o), -1);
		assert_string_equal(o.err, "line 1: osrelease: expected MAJOR.MINOR");
	}
	(void)st;
}

/* Broken lines are named; a mode line of a variant kernel is kept. */
static void
test_broken(void **st)
{
	struct pidstatus	ps;
	struct statm		sm;
	const char		a[] = "Name:\tmy prog\nPid:\t42\nRssAnon:\t12\nRssCounterMode:\tatomic\n";

	assert_int_equal(parse_pidstatus(a, sizeof(a) - 1, &ps), -1);
	assert_string_equal(ps.err, "line 3: bad RssAnon: line");
	assert_string_equal(ps.name, "my prog");
	assert_string_equal(ps.mode, "atomic");
	assert_int_equal(parse_pidstatus("Name:\tx\n", 8, &ps), -1);
	assert_string_equal(ps.err, "status: no Pid line");
	assert_int_equal(parse_statm("1 2 3\n", 6, &sm), -1);
	assert_string_equal(sm.err, "line 1: statm: expected 7 numbers");
	(void)st;
}

/* Run the proc parsers tests. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixture),
		cmocka_unit_test(test_pidstat_comm),
		cmocka_unit_test(test_broken),
		cmocka_unit_test(test_osrelease),
	};

	return cmocka_run_group_tests_name("parse-proc", tests, NULL, NULL);
}
