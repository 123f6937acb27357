/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test-smoke.c - the smoke engine (uml/patch/smoke.h) linked without the
 * command files: its stage record, the KTAP and JUnit reports, the scan
 * for kernel reports, and a run that stops at its input stage.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "patch/smoke.h"
#include "util.h"

/* What f holds from its start, allocated. */
static char *
contents(FILE *f)
{
	long	 n;
	char	*b;

	fflush(f);
	n = ftell(f);
	b = xmalloc(n + 1);
	rewind(f);
	assert_int_equal(fread(b, 1, n, f), (size_t)n);
	b[n] = '\0';
	return b;
}

/* Stages are kept in order, with their text and a time. */
static void
test_stage_record(void **st)
{
	struct smoke	s;

	smoke_init(&s);
	smoke_stage(&s, "input", "ok: %d patch", 1);
	smoke_stage(&s, "build", "FAIL: the kernel does not build");
	assert_int_equal(s.nstages, 2);
	assert_string_equal(s.stages[0].name, "input");
	assert_string_equal(s.stages[0].text, "ok: 1 patch");
	assert_string_equal(s.stages[1].text, "FAIL: the kernel does not build");
	assert_true(s.stages[1].secs >= 0);
	smoke_free(&s);
	assert_int_equal(s.nstages, 0);
}

/* More stages than the record holds: printed, not kept, nothing lost. */
static void
test_stage_overflow(void **st)
{
	struct smoke	s;
	int		i;

	smoke_init(&s);
	for (i = 0; i < SMOKE_MAX_STAGES + 5; i++)
		smoke_stage(&s, "run", "ok %d", i);
	assert_int_equal(s.nstages, SMOKE_MAX_STAGES);
	assert_string_equal(s.stages[SMOKE_MAX_STAGES - 1].text, "ok 23");
	smoke_free(&s);
}

/* KTAP: a plan, then "ok" or "not ok" per stage with its text. */
static void
test_ktap(void **st)
{
	struct smoke	 s;
	FILE		*f = tmpfile();
	char		*t;

	smoke_init(&s);
	smoke_stage(&s, "input", "ok: 2 patches");
	smoke_stage(&s, "boot", "FAIL: the kernel panicked at boot");
	smoke_ktap(&s, f);
	t = contents(f);
	assert_string_equal(t, "KTAP version 1\n1..2\n"
	    "ok 1 input # ok: 2 patches\n"
	    "not ok 2 boot # FAIL: the kernel panicked at boot\n");
	free(t);
	fclose(f);
	smoke_free(&s);
}

/* JUnit: counts, a failure element, escaping, the coverage properties. */
static void
test_junit(void **st)
{
	struct smoke	 s;
	FILE		*f = tmpfile();
	char		*t;

	smoke_init(&s);
	s.variant = xstrdup("smoke-0123456789ab");
	smoke_stage(&s, "input", "ok");
	smoke_stage(&s, "run", "FAIL: '<a & b>' \"q\"");
	s.cov_prop[0] = xstrdup("2 of 3 hunks ran");
	s.npatches = 1;
	smoke_junit(&s, f);
	t = contents(f);
	assert_non_null(strstr(t, "<testsuite name=\"umkit smoke smoke-0123456789ab\" "
	    "tests=\"2\" failures=\"1\">"));
	assert_non_null(strstr(t, "<property name=\"coverage 0001.patch\" "
	    "value=\"2 of 3 hunks ran\"/>"));
	assert_non_null(strstr(t, "<failure message=\"FAIL: &apos;&lt;a &amp; "
	    "b&gt;&apos; &quot;q&quot;\"/>"));
	assert_null(strstr(t, "<a & b>"));
	assert_non_null(strstr(t, "</testsuite>\n</testsuites>\n"));
	free(t);
	fclose(f);
	smoke_free(&s);
}

/* The JUnit file is written whole, with no temporary left beside it. */
static void
test_junit_write(void **st)
{
	struct smoke	 s;
	char		 dir[] = "/tmp/test-smoke.XXXXXX", *path, *t;
	struct dirent	*de;
	DIR		*d;
	int		 n = 0;

	assert_non_null(mkdtemp(dir));
	path = xasprintf("%s/junit.xml", dir);
	smoke_init(&s);
	smoke_stage(&s, "input", "ok");
	assert_int_equal(smoke_junit_write(&s, path), 0);
	t = read_text(path);
	assert_non_null(t);
	assert_non_null(strstr(t, "tests=\"1\" failures=\"0\""));
	free(t);
	assert_non_null(d = opendir(dir));
	while ((de = readdir(d)) != NULL)
		n += de->d_name[0] != '.';
	closedir(d);
	assert_int_equal(n, 1);
	/* A directory that is not there: -1, nothing made. */
	free(path);
	path = xasprintf("%s/no/junit.xml", dir);
	assert_int_equal(smoke_junit_write(&s, path), -1);
	smoke_free(&s);
	free(path);
	rm_tree(dir);
}

/* Kernel reports in a console: counted, and the first mark named. */
static void
test_reports(void **st)
{
	const char	*clean = "Linux version 7.2.12\nRun /init as init process\n";
	const char	*bad = "booting\n"
	    "WARNING: CPU: 0 PID: 1 at mm/vmscan.c:123 foo+0x1/0x2\n"
	    "some line\n"
	    "BUG: KASAN: use-after-free in bar\n"
	    "Kernel panic - not syncing: Attempted to kill init!";

	assert_int_equal(smoke_reports(clean, 0, 12), 0);
	assert_null(smoke_first_report(clean));
	assert_int_equal(smoke_reports(bad, 0, 12), 3);
	assert_string_equal(smoke_first_report(bad), "Kernel panic - not syncing");
	assert_int_equal(smoke_reports("", 0, 12), 0);
}

/*
 * A flood's repeated line: counted with the printk stamps left out, other
 * lines between, the last line without its newline; only the first n
 * bytes; past a full table of distinct lines, nothing breaks.
 */
static void
test_repeats(void **st)
{
	size_t	 cap = 3000 * 64 + SMOKE_FLOOD_SLOTS * 24 + 64, n = 0;
	char	*t = xmalloc(cap);
	int	 i;

	assert_int_equal(smoke_repeats("", 0), 0);
	assert_int_equal(smoke_repeats("one line", 8), 1);
	for (i = 0; i < 1200; i++)
		n += snprintf(t + n, cap - n, "[    %d.%06d] vmscan: a flood\n%s",
		    i / 1000, i % 1000 * 997, i % 3 ? "" : "other\n");
	n += snprintf(t + n, cap - n, "[    9.000000] vmscan: a flood");
	assert_int_equal(smoke_repeats(t, n), 1201);
	assert_int_equal(smoke_repeats(t, 10), 1);
	assert_true(smoke_repeats(t, n / 2) < 700);
	/* More distinct lines than the table holds: the flood still counts. */
	n = 0;
	for (i = 0; i < SMOKE_FLOOD_SLOTS + 100; i++)
		n += snprintf(t + n, cap - n, "line %d\n", i);
	for (i = 0; i < 1000; i++)
		n += snprintf(t + n, cap - n, "line 5\n");
	assert_int_equal(smoke_repeats(t, n), 1001);
	free(t);
}

/* An input that is not there ends the run at its input stage: status 2. */
static void
test_run_refused_input(void **st)
{
	struct smoke	 s;
	char		*in[] = { "/nonexistent/fix.patch" };
	int		 fd = dup(1);

	assert_true(freopen("/dev/null", "w", stdout) != NULL);
	smoke_init(&s);
	s.ktap = 0;
	assert_int_equal(smoke_run(&s, 1, in), SMOKE_FAIL_INPUT);
	fflush(stdout);
	dup2(fd, 1);
	close(fd);
	assert_int_equal(s.nstages, 1);
	assert_string_equal(s.stages[0].name, "input");
	assert_int_equal(strncmp(s.stages[0].text, "FAIL: ", 6), 0);
	assert_non_null(strstr(s.stages[0].text, "/nonexistent/fix.patch"));
	smoke_free(&s);
}

/* --hash: the variant a patch makes, its directory written, no build. */
static void
test_run_hash_only(void **st)
{
	struct smoke	 s;
	char		*in[] = { TOP "/tests/fixtures/smoke/good.patch" };
	char		*series;
	int		 fd = dup(1);

	assert_true(freopen("/dev/null", "w", stdout) != NULL);
	smoke_init(&s);
	s.hash_only = 1;
	assert_int_equal(smoke_run(&s, 1, in), 0);
	fflush(stdout);
	dup2(fd, 1);
	close(fd);
	assert_int_equal(strncmp(s.variant, "smoke-", 6), 0);
	assert_int_equal(strlen(s.variant), 6 + 12);
	series = xasprintf("%s/series", s.dir);
	assert_int_equal(access(series, R_OK), 0);
	assert_null(s.kernel);
	free(series);
	smoke_free(&s);
}

/* Run the smoke engine tests. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stage_record),
		cmocka_unit_test(test_stage_overflow),
		cmocka_unit_test(test_ktap),
		cmocka_unit_test(test_junit),
		cmocka_unit_test(test_junit_write),
		cmocka_unit_test(test_reports),
		cmocka_unit_test(test_repeats),
		cmocka_unit_test(test_run_refused_input),
		cmocka_unit_test(test_run_hash_only),
	};

	setenv("UMKIT_TOP", TOP, 1);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
