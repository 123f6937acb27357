/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Unit test: 'umkit lab report --csv DIR' on result files that students
 * hand in (untrusted), under ASan/UBSan.  A lab that is not a plain name
 * is refused with one line naming the file, and no CSV is written outside
 * DIR; every CSV field is quoted, and a text field that a spreadsheet
 * would take for a formula starts with a '.
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

#include "lab/lab-out.h"
#include "util.h"

static char	tmp[64];

/* A temporary directory for the test's files. */
static int
make_tmp(void **st)
{
	char	*d;

	snprintf(tmp, sizeof(tmp), "/tmp/umkit-test-lab-report.XXXXXX");
	assert_non_null(mkdtemp(tmp));
	d = xasprintf("%s/in", tmp);
	assert_int_equal(mkdir(d, 0755), 0);
	free(d);
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

/* A result file tmp/in/NAME of lab, student, mode and two check states. */
static char *
result(const char *name, const char *lab, const char *student,
    const char *mode, const char *st1, const char *st2)
{
	char	*path = xasprintf("%s/in/%s", tmp, name);
	FILE	*f = fopen(path, "w");

	assert_non_null(f);
	fprintf(f, "{\"umkit_lab_result\": 1, \"lab\": \"%s\", \"title\": \"T\", "
	    "\"student\": \"%s\", \"mode\": \"%s\", \"started_unix\": 1, "
	    "\"duration_s\": 2.5, \"checks\": 2, \"passed\": 1, \"points\": 1, "
	    "\"max_points\": 2, \"predictions_right\": 0, \"predictions\": 0, "
	    "\"results\": [{\"state\": \"%s\"}, {\"state\": \"%s\"}]}\n",
	    lab, student, mode, st1, st2);
	fclose(f);
	return path;
}

/* The report of files into tmp/csv; its exit code, its table in *out. */
static int
report(char **files, int n, char **out)
{
	char	*csv = xasprintf("%s/csv", tmp);
	size_t	 len = 0;
	FILE	*f = open_memstream(out, &len);
	int	 rc;

	rc = lab_report(files, n, csv, f);
	fclose(f);
	free(csv);
	return rc;
}

/* A lab's name that leaves the CSV directory: refused, nothing written. */
static void
test_lab_not_plain(void **st)
{
	static const char *const bad[] = {
		"../escaped", "../../../tmp/umkit-test-escaped", ".hidden", "a/b", "",
		"x\\ny",
	};
	char	*files[1], *out, *path;
	size_t	 i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		files[0] = result("r.json", bad[i], "ada", "batch", "pass", "fail");
		out = NULL;
		assert_int_equal(report(files, 1, &out), 2);
		free(out);
		free(files[0]);
	}
	path = xasprintf("%s/escaped.csv", tmp);
	assert_int_equal(access(path, F_OK), -1);
	free(path);
	assert_int_equal(access("/tmp/umkit-test-escaped.csv", F_OK), -1);
	(void)st;
}

/* Every field quoted; = + - @ first: a ' before it. */
static void
test_csv_quoted_neutralised(void **st)
{
	char	*files[2], *out = NULL, *csv, *path, *want;

	files[0] = result("a.json", "01-tour", "=HYPERLINK(\\\"http://x\\\")",
	    "+cmd", "@SUM(1)", "pass");
	files[1] = result("b.json", "01-tour", "bob, \\\"the\\\" builder", "batch",
	    "-1+2", "fail");
	assert_int_equal(report(files, 2, &out), 0);
	path = xasprintf("%s/csv/01-tour.csv", tmp);
	csv = read_text(path);
	assert_non_null(csv);
	assert_non_null(strstr(csv, "student,file,mode,started_unix,passed,checks,"
	    "points,max_points,student_points,student_max,kit_points,kit_max,"
	    "predictions_right,predictions,mac,duration_s,check1,check2\n"));
	want = xasprintf("\"'=HYPERLINK(\"\"http://x\"\")\",\"%s\",\"'+cmd\","
	    "\"1\",\"1\",\"2\",\"1\",\"2\",\"0\",\"0\",\"1\",\"2\",\"0\",\"0\","
	    "\"\",\"2.5\",\"'@SUM(1)\","
	    "\"pass\"\n", files[0]);
	if (strstr(csv, want) == NULL)
		fail_msg("no row\n%s\nin\n%s", want, csv);
	free(want);
	want = xasprintf("\"bob, \"\"the\"\" builder\",\"%s\",\"batch\",\"1\","
	    "\"1\",\"2\",\"1\",\"2\",\"0\",\"0\",\"1\",\"2\",\"0\",\"0\",\"\","
	    "\"2.5\",\"'-1+2\",\"fail\"\n",
	    files[1]);
	if (strstr(csv, want) == NULL)
		fail_msg("no row\n%s\nin\n%s", want, csv);
	free(want);
	free(csv);
	free(path);
	free(out);
	free(files[0]);
	free(files[1]);
	(void)st;
}

/* A control character in a student's name is not sent to the terminal. */
static void
test_table_no_escapes(void **st)
{
	char	*files[1], *out = NULL;

	files[0] = result("e.json", "02-mglru", "eve\\u001b]0;owned\\u0007",
	    "batch", "pass", "pass");
	assert_int_equal(report(files, 1, &out), 0);
	assert_null(strchr(out, '\033'));
	assert_non_null(strstr(out, "eve?]0;owned?"));
	free(out);
	free(files[0]);
	(void)st;
}

/* Run the report tests. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lab_not_plain),
		cmocka_unit_test(test_csv_quoted_neutralised),
		cmocka_unit_test(test_table_no_escapes),
	};

	return cmocka_run_group_tests_name("lab-report", tests, make_tmp,
	    remove_tmp);
}
