/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test-lab-batch.c - the lab batch runner (uml/lab/lab-batch.h) linked
 * without the command files: a lab whose steps all need another variant
 * than base, run with a base kernel (as umkit smoke runs labs), is judged
 * without booting: every check a skip with the reason, KTAP on stdout,
 * the result file in the state directory and --json's copy, both the same
 * JSON; --reset removes the old results; several labs (lab all) run
 * in children and print in order.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "lab/lab-batch.h"
#include "lab/lab-state.h"
#include "util.h"

static const char lab_text[] =
"title    A lab on another variant\n"
"minutes  1\n"
"level    beginner\n"
"variants lru-batch\n"
"memory   256M\n"
"cpus     1\n"
"| The introduction.\n"
"\n"
"step one The first step\n"
"variant lru-batch\n"
"| Text.\n"
"run true\n"
"check meminfo.MemTotal > 0\n"
"\n"
"step two The second step\n"
"variant lru-batch\n"
"run true\n"
"check points=2 meminfo.MemFree > 0\n"
"check meminfo.Shmem > 0\n";

static char	 tmp[] = "/tmp/test-lab-batch.XXXXXX";
static char	*labpath;

/* Run the lab in batch mode, stdout into out; the exit status. */
static int
run_batch(struct lab_opts *o, const char *out)
{
	char	*paths[1] = { labpath };
	int	 fd = dup(1), rc;

	assert_true(freopen(out, "w", stdout) != NULL);
	rc = lab_batch(paths, 1, o);
	fflush(stdout);
	dup2(fd, 1);
	close(fd);
	return rc;
}

/* The result files of the lab in the state directory. */
static int
results(char *first, size_t size)
{
	char		*d = lab_state_dir("results");
	struct dirent	*de;
	DIR		*dir = opendir(d);
	int		 n = 0;

	assert_non_null(dir);
	while ((de = readdir(dir)) != NULL)
		if (strncmp(de->d_name, "t-", 2) == 0) {
			if (n++ == 0)
				snprintf(first, size, "%s/%s", d, de->d_name);
		}
	closedir(dir);
	free(d);
	return n;
}

/* Skipped steps: status 0, KTAP skips with the reason, the result files. */
static void
test_batch_skips(void **st)
{
	struct lab_opts	 o;
	char		*out = xasprintf("%s/out.ktap", tmp), *t, res[1024];
	char		*json = xasprintf("%s/copy.json", tmp);
	json_t		*a, *b;

	lab_opts_init(&o);
	o.batch = true;
	o.base_kernel = "/nonexistent/linux";
	o.json = json;
	assert_int_equal(run_batch(&o, out), 0);
	t = read_text(out);
	assert_non_null(t);
	assert_non_null(strstr(t, "# step one: The first step"));
	assert_non_null(strstr(t, "# SKIP umkit smoke: needs variant lru-batch"));
	assert_null(strstr(t, "not ok"));
	free(t);
	assert_int_equal(results(res, sizeof res), 1);
	assert_non_null(a = json_load_file(res, 0, NULL));
	assert_non_null(b = json_load_file(json, 0, NULL));
	assert_true(json_equal(a, b));
	assert_string_equal(json_string_value(json_object_get(a, "lab")), "t-lab");
	json_decref(a);
	json_decref(b);
	free(out);
	free(json);
}

/* --reset forgets the old results before the run writes its own. */
static void
test_batch_reset(void **st)
{
	struct lab_opts	 o;
	char		*out = xasprintf("%s/out2.ktap", tmp), res[1024];

	char		*old, *d = lab_state_dir("results");

	old = xasprintf("%s/t-lab-20000101-000000-1.json", d);
	assert_int_equal(write_file_atomic(old, "{}\n", 3, 0644), 0);
	assert_true(results(res, sizeof res) >= 2);
	lab_opts_init(&o);
	o.batch = true;
	o.base_kernel = "/nonexistent/linux";
	o.reset = true;
	assert_int_equal(run_batch(&o, out), 0);
	assert_int_equal(results(res, sizeof res), 1);
	assert_int_equal(access(old, F_OK), -1);
	free(old);
	free(d);
	free(out);
}

/* A lab file that does not parse: LAB_EXIT_FILE, no result file. */
static void
test_batch_bad_file(void **st)
{
	struct lab_opts	 o;
	char		*bad = xasprintf("%s/bad.lab", tmp), *paths[1] = { bad };
	int		 fd = dup(2);

	assert_int_equal(write_file_atomic(bad, "title x\nnonsense here\n", 21,
	    0644), 0);
	lab_opts_init(&o);
	o.batch = true;
	assert_true(freopen("/dev/null", "w", stderr) != NULL);
	assert_int_equal(lab_batch(paths, 1, &o), LAB_EXIT_FILE);
	dup2(fd, 2);
	close(fd);
	free(bad);
}

/*
 * lab all: three labs, each in a child, two at a time or one: one KTAP
 * document with each lab's whole, indented, in order, its result line
 * after it; one JUnit file with their three suites and the totals.
 */
static void
test_batch_all(void **st)
{
	const char	*names[3] = { "a-lab", "b-lab", "c-lab" };
	char		*paths[3], *out, *junit, *t, *p, *want;
	struct lab_opts	 o;
	int		 i, jobs, fd;

	for (i = 0; i < 3; i++) {
		paths[i] = xasprintf("%s/%s.lab", tmp, names[i]);
		assert_int_equal(write_file_atomic(paths[i], lab_text,
		    strlen(lab_text), 0644), 0);
	}
	for (jobs = 1; jobs <= 2; jobs++) {
		out = xasprintf("%s/all%d.ktap", tmp, jobs);
		junit = xasprintf("%s/all%d.xml", tmp, jobs);
		lab_opts_init(&o);
		o.batch = true;
		o.base_kernel = "/nonexistent/linux";
		o.jobs = jobs;
		o.junit = junit;
		fd = dup(1);
		assert_true(freopen(out, "w", stdout) != NULL);
		assert_int_equal(lab_batch(paths, 3, &o), 0);
		fflush(stdout);
		dup2(fd, 1);
		close(fd);
		t = read_text(out);
		assert_non_null(t);
		assert_true(strncmp(t, "KTAP version 1\n1..3\n", 20) == 0);
		p = t;
		for (i = 0; i < 3; i++) {
			/* lab i's own document, then its line, before lab i+1's */
			want = xasprintf("    # umkit lab %s:", names[i]);
			assert_non_null(p = strstr(p, want));
			free(want);
			assert_non_null(p = strstr(p, "    ok 3 two: meminfo.Shmem > 0 # SKIP"));
			want = xasprintf("\nok %d %s\n", i + 1, names[i]);
			assert_non_null(p = strstr(p, want));
			free(want);
		}
		assert_null(strstr(t, "not ok"));
		free(t);
		t = read_text(junit);
		assert_non_null(t);
		assert_non_null(strstr(t, "<testsuites name=\"umkit labs\" tests=\"9\" "
		    "failures=\"0\" skipped=\"9\""));
		p = t;
		for (i = 0; i < 3; i++) {
			want = xasprintf(" <testsuite name=\"%s\"", names[i]);
			assert_non_null(p = strstr(p, want));
			free(want);
		}
		free(t);
		free(out);
		free(junit);
	}
	for (i = 0; i < 3; i++)
		free(paths[i]);
}

/* A state directory and the lab file in a temporary directory. */
static int
setup(void **st)
{
	char	*v;

	if (mkdtemp(tmp) == NULL)
		return -1;
	setenv("XDG_STATE_HOME", v = xasprintf("%s/state", tmp), 1);
	free(v);
	labpath = xasprintf("%s/t-lab.lab", tmp);
	return write_file_atomic(labpath, lab_text, strlen(lab_text), 0644);
}

/* Remove the temporary directory. */
static int
teardown(void **st)
{
	rm_tree(tmp);
	free(labpath);
	return 0;
}

/* Run the lab batch runner tests. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_batch_skips),
		cmocka_unit_test(test_batch_reset),
		cmocka_unit_test(test_batch_bad_file),
		cmocka_unit_test(test_batch_all),
	};

	setenv("UMKIT_TOP", TOP, 1);
	return cmocka_run_group_tests(tests, setup, teardown);
}
