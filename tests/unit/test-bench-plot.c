/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Unit test: metric names and labels from a guest's output and from a
 * saved compare file (untrusted) on their way into gnuplot's scripts and
 * file names (uml/patch/bench.c, ASan/UBSan).  A name outside [a-z0-9._]
 * is refused; every string of plot.gp is single-quoted, a quote doubled,
 * so that gnuplot runs no backquoted command and writes nowhere else.
 * gnuplot itself is not run (PATH has none).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "patch/bench.h"
#include "util.h"

static char	tmp[64];

/* A temporary directory for the test's files. */
static int
make_tmp(void **st)
{
	snprintf(tmp, sizeof(tmp), "/tmp/umkit-test-bench-plot.XXXXXX");
	assert_non_null(mkdtemp(tmp));
	(void)st;
	return 0;
}

/* Remove the temporary directory and what is in it. */
static int
remove_tmp(void **st)
{
	assert_int_equal(rm_tree(tmp), 0);
	(void)st;
	return 0;
}

/* Write text to tmp/name; the path, allocated. */
static char *
put(const char *name, const char *text)
{
	char	*path = xasprintf("%s/%s", tmp, name);
	FILE	*f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

/* The whole of a file, allocated. */
static char *
slurp(const char *path)
{
	char	*t = read_text(path);

	if (t == NULL)
		fail_msg("%s: cannot read", path);
	return t;
}

/* A compare file whose second kernel has one metric name and label. */
static char *
compare_file(const char *name, const char *metric, const char *label)
{
	char	*text = xasprintf("{\"umkit_bench\": 1, \"boots\": 2, \"kernels\": "
	    "[{\"label\": \"a\", \"host\": \"h\"}, {\"label\": \"%s\", \"host\": "
	    "\"h\"}], \"metrics\": {\"%s\": {\"lower_is_better\": true, "
	    "\"samples\": [[1, 2], [3, 4]]}}}", label, metric);
	char	*path = put(name, text);

	free(text);
	return path;
}

/* Names from a saved file with backquotes or a path in them: refused. */
static void
test_json_metric_names(void **st)
{
	static const char *const bad[] = {
		"procbench.`touch /tmp/umkit-pwned`_us", "../../x", "a/b",
		"Fork_us", "x\\\"; system \\\"id", "",
	};
	struct bres	 r;
	char		 err[512], *path;
	size_t		 i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&r, 0, sizeof(r));
		path = compare_file("bad.json", bad[i], "b");
		if (bench_json_read(&r, 1, path, err, sizeof(err)) == 0)
			fail_msg("metric '%s' was taken", bad[i]);
		assert_non_null(strstr(err, "not made of [a-z0-9._]"));
		assert_non_null(strstr(err, "bad.json"));
		bench_free(&r);
		free(path);
	}
	memset(&r, 0, sizeof(r));
	path = compare_file("good.json", "procbench.fork_us", "b");
	assert_int_equal(bench_json_read(&r, 1, path, err, sizeof(err)), 0);
	assert_int_equal(r.nm, 1);
	assert_string_equal(r.m[0].name, "procbench.fork_us");
	assert_int_equal(r.m[0].n[1], 2);
	bench_free(&r);
	free(path);
	(void)st;
}

/* procbench's case= from the guest: a name outside [a-z0-9._] is not one. */
static void
test_guest_case_names(void **st)
{
	struct bres	r;
	char		out[] = "procbench: case=../../x`id` us_per_op=5 min_us=4\n"
	    "procbench: case=fork us_per_op=2 min_us=1\n"
	    "kvbench: ops_per_s=nan p99_us=3\n";

	memset(&r, 0, sizeof(r));
	assert_int_equal(bench_parse_out(&r, 0, out), 2);
	/* ops_per_s=nan: not a sample, so no metric */
	assert_int_equal(r.nm, 3);
	assert_string_equal(r.m[0].name, "procbench.fork_us");
	assert_string_equal(r.m[1].name, "procbench.fork_min_us");
	assert_string_equal(r.m[2].name, "kvbench.p99_us");
	assert_int_equal(r.m[2].n[0], 1);
	bench_free(&r);
	(void)st;
}

/* gnuplot_str: single quotes, a quote doubled, no line end inside. */
static void
test_gnuplot_str(void **st)
{
	char	*buf = NULL;
	size_t	 n = 0;
	FILE	*f = open_memstream(&buf, &n);

	gnuplot_str(f, "it's `id` \"x\"\n$HOME");
	fclose(f);
	assert_string_equal(buf, "'it''s `id` \"x\"?$HOME'");
	free(buf);
	assert_true(gnuplot_str_ok("a'b`c"));
	assert_false(gnuplot_str_ok("a\nb"));
	(void)st;
}

/* plot.gp: every string single-quoted; a directory with a quote in it. */
static void
test_plot_script(void **st)
{
	struct bres	 r;
	char		 err[512], *dir, *gp, *text, *want, *path;
	char		*path_env = xstrdup(getenv("PATH") ? getenv("PATH") : "");

	memset(&r, 0, sizeof(r));
	path = compare_file("c.json", "kvbench.p99_us", "it's \\\"b\\\"\\n`id`");
	assert_int_equal(bench_json_read(&r, 0, path, err, sizeof(err)), 0);
	assert_int_equal(bench_json_read(&r, 1, path, err, sizeof(err)), 0);
	dir = xasprintf("%s/o'k", tmp);
	setenv("PATH", "/nonexistent", 1);
	bench_plot(&r, dir, err, sizeof(err));	/* gnuplot cannot run */
	setenv("PATH", path_env, 1);
	gp = xasprintf("%s/plot.gp", dir);
	text = slurp(gp);
	/* no double-quoted string, where gnuplot would run `...` */
	assert_null(strchr(text, '"'));
	want = xasprintf("set output '%s/o''k/kvbench.p99_us.png'\n", tmp);
	assert_non_null(strstr(text, want));
	free(want);
	want = xasprintf("plot '%s/o''k/kvbench.p99_us.dat' using", tmp);
	assert_non_null(strstr(text, want));
	assert_non_null(strstr(text, "set ylabel 'kvbench.p99_us' noenhanced\n"));
	free(want);
	free(text);
	/* the label in the data file: one line, no quote of its own */
	free(gp);
	gp = xasprintf("%s/kvbench.p99_us.dat", dir);
	text = slurp(gp);
	assert_non_null(strstr(text, "\"it's ?b??`id`\" "));
	free(text);
	free(gp);
	free(dir);
	free(path);
	free(path_env);
	bench_free(&r);
	(void)st;
}

/* A name that is not one never reaches plot.gp (bench_plot refuses). */
static void
test_plot_refuses(void **st)
{
	struct bres	 r;
	char		 err[512], *dir, *gp;

	memset(&r, 0, sizeof(r));
	r.label[0] = xstrdup("a");
	r.label[1] = xstrdup("b");
	r.nm = 1;
	r.m[0].name = xstrdup("../escape");
	dir = xasprintf("%s/p", tmp);
	assert_int_equal(bench_plot(&r, dir, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not made of [a-z0-9._]"));
	gp = xasprintf("%s/plot.gp", dir);
	assert_int_equal(access(gp, F_OK), -1);
	free(gp);
	free(dir);
	dir = xasprintf("%s/new\nline", tmp);
	free(r.m[0].name);
	r.m[0].name = xstrdup("ok");
	assert_int_equal(bench_plot(&r, dir, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "control character"));
	free(dir);
	bench_free(&r);
	(void)st;
}

/* bench_table()'s legend for a result r, allocated. */
static char *
legend(const struct bres *r)
{
	char	*buf = NULL, *l, *e;
	size_t	 len = 0;
	FILE	*f = open_memstream(&buf, &len);

	assert_non_null(f);
	bench_table(r, f);
	fclose(f);
	assert_non_null(l = strstr(buf, "after Holm-Bonferroni"));
	if ((e = strchr(l, '\n')) != NULL)
		*e = '\0';
	l = xstrdup(l);
	free(buf);
	return l;
}

/*
 * The legend names the test the rows had: the host CPU taken out when
 * every compared metric has its samples' CPUs (a metric only one kernel
 * has is not compared, and does not make it a mix), Welch's without.
 */
static void
test_table_legend(void **st)
{
	static const double	 a[] = { 3625, 4782, 3386, 4775, 3399 };
	static const double	 b[] = { 5526, 3635, 5660, 4106, 5745 };
	struct bres		 r;
	char			*l;
	int			 j;

	memset(&r, 0, sizeof(r));
	r.label[0] = "base";
	r.label[1] = "patched";
	r.boots = 5;
	r.jobs = 2;
	r.nm = 2;
	r.m[0].name = "procbench.fork_min_us";
	r.m[0].lower_better = 1;
	r.m[1].name = "aging.inc_min_seq_ns_per_page";
	for (j = 0; j < 5; j++) {
		r.m[0].v[0][j] = a[j];
		r.m[0].v[1][j] = b[j];
		r.m[0].cpu[0][j] = j % 2;
		r.m[0].cpu[1][j] = (j + 1) % 2;
		r.m[1].v[1][j] = 1 + j;
		r.m[1].cpu[1][j] = (j + 1) % 2;
	}
	r.m[0].n[0] = r.m[0].n[1] = r.m[1].n[1] = 5;
	l = legend(&r);
	assert_non_null(strstr(l, "over the 1 metrics (t-test of the kernel's effect "
	    "with the host CPU's taken out, least squares, two-sided"));
	assert_non_null(strstr(l, "1 of 1 metrics changed significantly"));
	free(l);
	/* without the CPUs (a saved file): Welch's, and p 0.128 marks nothing */
	for (j = 0; j < 5; j++)
		r.m[0].cpu[0][j] = r.m[0].cpu[1][j] = -1;
	l = legend(&r);
	assert_non_null(strstr(l, "(Welch's t-test, two-sided"));
	assert_non_null(strstr(l, "0 of 1 metrics changed significantly"));
	free(l);
	/*
	 * a counter that barely moves: +0.1%, p far below 0.05, not marked
	 * (BENCH_MIN_CHANGE_PCT); ten times the step, +1.0%, marked
	 */
	for (j = 0; j < 5; j++) {
		r.m[0].v[0][j] = 14931 + 9 * (j % 2);
		r.m[0].v[1][j] = 14946 + 9 * (j % 2);
	}
	l = legend(&r);
	assert_non_null(strstr(l, "each p in --json), for a change of 1% or more; "));
	assert_non_null(strstr(l, "0 of 1 metrics changed significantly"));
	free(l);
	for (j = 0; j < 5; j++)
		r.m[0].v[1][j] = r.m[0].v[0][j] + 150;
	l = legend(&r);
	assert_non_null(strstr(l, "1 of 1 metrics changed significantly"));
	free(l);
	(void)st;
}

/*
 * The host CPUs of the benchmark boots: an A B pair on two CPUs, swapped
 * with the next pair, at -j 2 and at -j 1; all on CPU 0 of a 1-CPU host;
 * none pinned with more boots at once than CPUs.
 */
static void
test_host_cpu(void **st)
{
	static const int	want[8] = { 0, 1, 1, 0, 0, 1, 1, 0 };
	int			k, a = 0;

	for (k = 0; k < 8; k++) {
		assert_int_equal(bench_host_cpu(k, 2, 2), want[k]);
		assert_int_equal(bench_host_cpu(k, 1, 2), want[k]);
		assert_int_equal(bench_host_cpu(k, 2, 16), want[k]);
		assert_int_equal(bench_host_cpu(k, 1, 1), 0);
		assert_int_equal(bench_host_cpu(k, 4, 2), -1);
		assert_true(bench_host_cpu(k, 4, 4) >= 0 && bench_host_cpu(k, 4, 4) < 4);
		a += k % 2 == 0 ? bench_host_cpu(k, 2, 2) : 0;
	}
	/* side A (even k) on each CPU as often as on the other */
	assert_int_equal(a, 2);
	(void)st;
}

/* Run the plot tests. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_metric_names),
		cmocka_unit_test(test_guest_case_names),
		cmocka_unit_test(test_gnuplot_str),
		cmocka_unit_test(test_plot_script),
		cmocka_unit_test(test_plot_refuses),
		cmocka_unit_test(test_host_cpu),
		cmocka_unit_test(test_table_legend),
	};

	return cmocka_run_group_tests_name("bench-plot", tests, make_tmp,
	    remove_tmp);
}
