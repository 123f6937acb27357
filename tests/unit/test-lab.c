/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test-lab.c - the lab file parser, the check expressions and the result
 * forms (KTAP, JUnit, score), without a guest.
 */
#define _GNU_SOURCE
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lab/lab-ex.h"
#include "lab/lab-out.h"
#include "lab/lab.h"
#include "util.h"

static const char good[] =
"# a comment\n"
"title    A test lab\n"
"minutes  5\n"
"level    beginner\n"
"variants base\n"
"memory   512M\n"
"cpus     4\n"
"seed     000\n"
"| The introduction.\n"
"\n"
"step fill Fill memory\n"
"view lru\n"
"| Step text {{lru_gen.max_seq}}.\n"
"ask choice answer=b Which?\n"
"  a) one\n"
"  b) two\n"
"run timeout=30 kvbench --keys 10\n"
"check points=3 meminfo.Shmem >= 30000\n"
"  fail not there\n"
"  hint use dd\n"
"\n"
"step age Age once\n"
"ask number answer=delta(lru_gen.max_seq) tolerance=10% How many?\n"
"mark before\n"
"write /sys/kernel/debug/lru_gen + 1 0 {{lru_gen.max_seq}}\n"
"wait timeout=5 lru_gen.max_seq > 3\n"
"sleep 500ms\n"
"bg status=0 sleep 100\n"
"check delta(lru_gen.max_seq, before) == 1\n"
"check result(kvbench.ops_per_s) / 2 > 10\n";

/* Parse text; the errors (or "") into *errs. */
static struct lab *
parse(const char *text, char **errs)
{
	struct lab	*l = lab_parse("t.lab", text, strlen(text), NULL, errs);

	if (*errs == NULL)
		*errs = xstrdup("");
	return l;
}

/* A good lab parses with everything in place. */
static void
test_good(void **state)
{
	char		*errs;
	struct lab	*l = parse(good, &errs);
	int		 n;

	(void)state;
	assert_string_equal(errs, "");
	assert_non_null(l);
	assert_string_equal(l->name, "t");
	assert_string_equal(l->title, "A test lab");
	assert_int_equal(l->minutes, 5);
	assert_int_equal(l->mem_mb, 512);
	assert_int_equal(l->cpus, 4);
	assert_string_equal(l->intro, "The introduction.");
	assert_int_equal(l->nsteps, 2);
	assert_string_equal(l->steps[0].view, "lru");
	assert_int_equal(l->steps[0].ask.kind, LQ_CHOICE);
	assert_int_equal(l->steps[0].ask.nchoices, 2);
	assert_int_equal(l->steps[0].ask.answer, 'b');
	assert_int_equal(l->steps[0].nacts, 2);
	assert_int_equal(l->steps[0].acts[0].kind, LA_RUN);
	assert_true(l->steps[0].acts[0].timeout_s == 30);
	assert_string_equal(l->steps[0].acts[0].text, "kvbench --keys 10");
	assert_int_equal(l->steps[0].acts[1].check.points, 3);
	assert_string_equal(l->steps[0].acts[1].check.fail, "not there");
	assert_string_equal(l->steps[0].acts[1].check.hint, "use dd");
	assert_int_equal(l->steps[1].ask.kind, LQ_NUMBER);
	assert_true(l->steps[1].ask.tol_pct && l->steps[1].ask.tol == 10);
	assert_int_equal(l->steps[1].acts[1].kind, LA_WRITE);
	assert_string_equal(l->steps[1].acts[1].path, "/sys/kernel/debug/lru_gen");
	assert_true(fabs(l->steps[1].acts[3].timeout_s - 0.5) < 1e-9);
	/* bg takes no status=: it is part of the command */
	assert_string_equal(l->steps[1].acts[4].text, "status=0 sleep 100");
	assert_int_equal(lab_points(l, &n), 5);
	assert_int_equal(n, 3);
	lab_free(l);
	free(errs);
}

/* Each kind of mistake is reported at its line, and parsing goes on. */
static void
test_errors(void **state)
{
	static const struct {
		const char	*text;
		const char	*want;
	} cases[] = {
		{ "title T\nbogus 1\nstep a A\n", "t.lab:2: 'bogus' is not a lab header keyword" },
		{ "title T\nstep a A\nfrobnicate x\n", "t.lab:3: 'frobnicate' is not a step keyword" },
		{ "title T\nstep a A\nview lrux\n", "t.lab:3: view lrux: no such view" },
		{ "title T\nstep a A\nstep a B\n", "t.lab:3: step a: the ID is used already at line 2" },
		{ "title T\nstep a A\nask choice Q?\n a) x\n b) y\n", "t.lab:3: ask choice: answer=K" },
		{ "title T\nstep a A\nask choice answer=a Q?\n b) x\n", "t.lab:4: choice b): choices go a), b), c)" },
		{ "title T\nstep a A\nask choice answer=c Q?\n a) x\n b) y\n", "t.lab:3: ask choice: answer=c is not one of the choices" },
		{ "title T\nstep a A\nfail oops\n", "t.lab:3: fail: belongs right after a check" },
		{ "title T\nstep a A\ncheck vmstat.x >\n", "t.lab:3: a value expected at the end" },
		{ "title T\nstep a A\ncheck vmstat.x 5\n", "t.lab:3: a comparison (== != < <= > >=, within) expected" },
		{ "title T\nstep a A\ncheck nosuch.thing > 0\n", "t.lab:3: " },
		{ "title T\nstep a A\ncheck delta(vmstat.x, m) > 0\n", "t.lab:3: delta(vmstat.x, m): no 'mark m' earlier" },
		{ "title T\nstep a A\ncheck result(kvbench.ops_per_s) > 0\n", "t.lab:3: result(kvbench.ops_per_s): no run or bg line before it starts 'kvbench'" },
		{ "title T\nstep a A\nrun timeout=soon true\n", "t.lab:3: timeout=soon: want a duration" },
		{ "title T\nstep a A\nrun true {{vmstat.x\n", "t.lab:3: '{{' without '}}'" },
		{ "title T\nminutes 0\nstep a A\n", "t.lab:2: minutes 0: want the student's time" },
		{ "title T\nmemory 1k\nstep a A\n", "t.lab:2: memory 1k: want a size" },
		{ "minutes 3\nstep a A\n", "t.lab: no 'title' line" },
		{ "title T\n", "t.lab: no steps" },
		{ "title T\nstep a A\nsleep forever\n", "t.lab:3: sleep forever: want a duration" },
		{ "title T\nstep a A\ncheck 1 = 1\n", "t.lab:3: '=' alone is not an operator" },
		{ "title T\nstep a A\ncheck vmstat.x - > 1\n", "t.lab:3: a value expected" },
		{ "title T\nstep a A\nlet x = vmstat.a +\n", "t.lab:3: let x: a value expected" },
		{ "title T\nstep a A\nlet 1x = 3\n", "t.lab:3: let: want 'let NAME = EXPR'" },
		{ "title T\nstep a A\nlet x = 3\nlet x = 4\n", "t.lab:4: let x: defined twice" },
		{ "title T\nstep a A\nlet x = delta(vmstat.a, m)\n", "t.lab:3: delta(vmstat.a, m): no 'mark m'" },
		{ "title T\nstep a A\nlet x = 3\nstep b B\ncheck x > 1\n", "t.lab:5: " },
		/* Lab files are data: paths stay in the mirror, names plain. */
		{ "title T\nstep a A\nwrite /../../../.bashrc x\n", "t.lab:3: write /../../../.bashrc: only a plain path under /proc or /sys" },
		{ "title T\nstep a A\nwrite /proc/../../etc/passwd x\n", "t.lab:3: write /proc/../../etc/passwd: only a plain path" },
		{ "title T\nstep a A\nwrite /etc/passwd x\n", "t.lab:3: write /etc/passwd: only a plain path" },
		{ "title T\nstep a A\nwrite /proc/sys//vm/drop_caches 3\n", "t.lab:3: write /proc/sys//vm/drop_caches: only" },
		{ "title T\nstep a A\nwrite /sys/./kernel/mm x\n", "t.lab:3: write /sys/./kernel/mm: only" },
		{ "title T\nexercise kernel base mm/a'b.c f TODO\nstep a A\n", "t.lab:2: exercise kernel: mm/a'b.c: want a path inside the kernel tree" },
		{ "title T\nexercise program a$(x).c\nstep a A\n", "t.lab:2: exercise program: want one FILE.c" },
		{ "title T\nstep a A\nrun kvbench\ncheck result(kvbench.xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx) > 0\n", "t.lab:4: result(kvbench.xxxx" },
		{ "title T\nstep a A\nrun xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\ncheck result(xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx.k) > 0\n", "want WORKLOAD.KEY (each under 64 characters)" },
	};
	size_t		 i;
	char		*errs;
	struct lab	*l;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		l = parse(cases[i].text, &errs);
		if (l != NULL || strstr(errs, cases[i].want) == NULL)
			fail_msg("case %zu: want '%s', got '%s'", i, cases[i].want, errs);
		free(errs);
	}
}

/* A plain write path, a lab name; a lab's file name that is not plain. */
static void
test_plain_names(void **state)
{
	struct lab	*l;
	char		*errs;

	(void)state;
	assert_true(lab_write_path_ok("/proc/sys/vm/drop_caches"));
	assert_true(lab_write_path_ok("/sys/kernel/debug/lru_gen"));
	assert_false(lab_write_path_ok("/proc/sys/vm/"));
	assert_false(lab_write_path_ok("/proc/.."));
	assert_false(lab_write_path_ok("/procx/a"));
	assert_false(lab_write_path_ok("/"));
	assert_true(lab_name_ok("02-mglru"));
	assert_false(lab_name_ok(".hidden"));
	assert_false(lab_name_ok("a'b"));
	assert_false(lab_name_ok("a/b"));
	assert_false(lab_name_ok(""));
	l = lab_parse("/tmp/it's.lab", "title T\nstep a A\n", 18, NULL, &errs);
	assert_null(l);
	assert_non_null(strstr(errs, "the file name 'it's' is not a lab name"));
	free(errs);
}

/* A gdb step: only in the kit's own labs, or with --trust. */
static void
test_gdb_trust(void **state)
{
	static const char	 t[] = "title T\nstep a A\ngdb x.gdb\n";
	struct lab_env		 env = { .trusted_dir = TOP "/labs" };
	struct lab		*l;
	char			*errs;

	(void)state;
	l = lab_parse("/tmp/elsewhere.lab", t, strlen(t), &env, &errs);
	assert_null(l);
	assert_non_null(strstr(errs, "only the kit's own labs"));
	free(errs);
	env.trust_all = true;
	l = lab_parse("/tmp/elsewhere.lab", t, strlen(t), &env, &errs);
	assert_non_null(l);
	lab_free(l);
	free(errs);
	env.trust_all = false;
	l = lab_parse(TOP "/labs/x.lab", t, strlen(t), &env, &errs);
	assert_null(l);		/* the lab file is not there: realpath fails */
	free(errs);
	l = lab_parse(TOP "/labs/02-mglru.lab", t, strlen(t), &env, &errs);
	assert_non_null(l);
	lab_free(l);
	free(errs);
}

/* let names an expression for the rest of its step only. */
static void
test_let(void **state)
{
	static const char	 t[] = "title T\nstep a A\nmark m\n"
	    "let d = delta(vmstat.a, m)\nlet dd = d * 2\n"
	    "check dd / d == 2\nshow {{dd}} and vmstat.d\n";
	char			*errs;
	struct lab		*l = parse(t, &errs);
	struct lcond		*c;

	(void)state;
	assert_string_equal(errs, "");
	assert_non_null(l);
	c = l->steps[0].acts[1].cond;
	assert_string_equal(c->text, "dd / d == 2");	/* as written */
	assert_int_equal(c->left->kind, LX_BIN);
	assert_int_equal(c->left->a->kind, LX_BIN);	/* dd = (d * 2) */
	assert_int_equal(c->left->a->a->kind, LX_DELTA);
	assert_string_equal(c->left->a->a->mark, "m");
	/* in a show line too, but not inside a spec */
	assert_string_equal(l->steps[0].acts[2].text,
	    "{{((delta(vmstat.a, m)) * 2)}} and vmstat.d");
	lab_free(l);
	free(errs);
}

/* Exercise skeletons: regions cut, the TODO kept; bad markers named. */
static void
test_skeleton(void **state)
{
	static const char	sol[] =
	    "int a;\n\t/* TODO-BEGIN: write b */\n\tb = 1;\n\t/* TODO-END */\nint c;\n";
	static const char	fn[] =
	    "/* f() does things */\nstatic int f(int x,\n\t     int y)\n{\n\treturn x + y;\n}\n"
	    "\nint g(void);\nint h(void)\n{\n\treturn f(1, 2);\n}\n";
	char			err[256], *sk;

	(void)state;
	sk = ex_skeleton(sol, err, sizeof err);
	assert_non_null(sk);
	assert_string_equal(sk, "int a;\n\t/* TODO: write b */\nint c;\n");
	free(sk);
	assert_null(ex_skeleton("x\n/* TODO-BEGIN */\ny\n", err, sizeof err));
	assert_string_equal(err, "line 2: TODO-BEGIN without TODO-END");
	assert_null(ex_skeleton("x\n/* TODO-END */\n", err, sizeof err));
	assert_string_equal(err, "line 2: TODO-END without TODO-BEGIN");
	assert_null(ex_skeleton("x\n", err, sizeof err));
	assert_string_equal(err, "no TODO-BEGIN ... TODO-END region");
	sk = ex_strip_function(fn, "f", "add them", err, sizeof err);
	assert_non_null(sk);
	assert_string_equal(sk, "/* f() does things */\nstatic int f(int x,\n\t     int y)\n"
	    "{\n\t/*\n\t * TODO: add them\n\t */\n}\n\nint g(void);\nint h(void)\n"
	    "{\n\treturn f(1, 2);\n}\n");
	free(sk);
	assert_null(ex_strip_function(fn, "g", "x", err, sizeof err));
	assert_string_equal(err, "no definition of g() in the file");
}

/* Several errors in one file are all reported, each with its line. */
static void
test_many_errors(void **state)
{
	char	*errs;

	(void)state;
	assert_null(parse("title T\nstep a A\nview x\nview y\ncheck 1\n", &errs));
	assert_non_null(strstr(errs, "t.lab:3:"));
	assert_non_null(strstr(errs, "t.lab:4:"));
	assert_non_null(strstr(errs, "t.lab:5:"));
	free(errs);
}

/* A NUL byte in a line is an error, not a truncated line. */
static void
test_nul(void **state)
{
	static const char	 t[] =
	    "title T\nstep a A\ncheck 1 == 1\0 junk\n";
	char			*errs;

	(void)state;
	assert_null(lab_parse("t.lab", t, sizeof t - 1, NULL, &errs));
	assert_non_null(strstr(errs, "t.lab:3: a NUL byte"));
	free(errs);
}

/* A fake environment: specs have fixed values. */
static int
fake_now(void *arg, const char *spec, double *v, char *err)
{
	(void)arg;
	if (strcmp(spec, "vmstat.a") == 0)
		*v = 10;
	else if (strcmp(spec, "vmstat.b") == 0)
		*v = 4;
	else {
		snprintf(err, LAB_ERR_LEN, "%s: gone", spec);
		return -1;
	}
	return 0;
}

/* The value at a mark: 3 less than now. */
static int
fake_at(void *arg, const char *spec, const char *mark, double *v, char *err)
{
	(void)mark;
	if (fake_now(arg, spec, v, err) < 0)
		return -1;
	*v -= 3;
	return 0;
}

/* result(): kvbench.ops only. */
static int
fake_result(void *arg, const char *key, double *v, char *err)
{
	(void)arg;
	if (strcmp(key, "kvbench.ops") != 0) {
		snprintf(err, LAB_ERR_LEN, "no %s", key);
		return -1;
	}
	*v = 100;
	return 0;
}

/* Evaluate text; -1 on error. */
static int
eval(const char *text, double *l, double *r)
{
	struct lenv	 env = { fake_now, fake_at, fake_result, NULL, NULL };
	char		 err[LAB_ERR_LEN];
	struct lcond	*c = lcond_parse(text, err);
	int		 v;

	if (c == NULL)
		fail_msg("%s: %s", text, err);
	v = lcond_eval(c, &env, l, r, err);
	lcond_free(c);
	return v;
}

/* Precedence, deltas, results, division by zero, all six comparisons. */
static void
test_eval(void **state)
{
	double	l, r;

	(void)state;
	assert_int_equal(eval("vmstat.a + vmstat.b * 2 == 18", &l, &r), 1);
	assert_true(l == 18 && r == 18);
	assert_int_equal(eval("(vmstat.a + vmstat.b) * 2 == 28", &l, &r), 1);
	assert_int_equal(eval("vmstat.a - vmstat.b - 1 == 5", &l, &r), 1);
	assert_int_equal(eval("vmstat.a / vmstat.b > 2.4", &l, &r), 1);
	assert_int_equal(eval("delta(vmstat.a) == 3", &l, &r), 1);
	assert_int_equal(eval("delta(vmstat.a, m) != 3", &l, &r), 0);
	assert_int_equal(eval("result(kvbench.ops) / 4 <= 25", &l, &r), 1);
	assert_int_equal(eval("vmstat.a < -1", &l, &r), 0);
	assert_int_equal(eval("vmstat.b >= 4", &l, &r), 1);
	assert_int_equal(eval("vmstat.a / (vmstat.b - 4) > 0", &l, &r), -1);
	assert_int_equal(eval("vmstat.gone > 0", &l, &r), -1);
	assert_int_equal(eval("result(kvbench.nope) > 0", &l, &r), -1);
}

/* Numbers print without noise. */
static void
test_fmt(void **state)
{
	char	b[64];

	(void)state;
	lab_fmt_num(b, sizeof b, 16384);
	assert_string_equal(b, "16384");
	lab_fmt_num(b, sizeof b, 0.25);
	assert_string_equal(b, "0.25");
	lab_fmt_num(b, sizeof b, -3);
	assert_string_equal(b, "-3");
}

/* KTAP lines, the score, and well-formed JUnit with escaping. */
static void
test_outputs(void **state)
{
	char			*errs, *buf = NULL, *xml = NULL, line[160];
	size_t			 len = 0, xl = 0;
	struct lab		*l = parse(good, &errs);
	struct lab_book		 b, *bp = &b;
	struct lab_score	 sc;
	struct lres		 r;
	FILE			*f = open_memstream(&buf, &len), *x;
	char			 tmpl[] = "/tmp/test-lab-XXXXXX";
	int			 fd = mkstemp(tmpl);

	(void)state;
	assert_non_null(l);
	book_init(&b, l, "batch");
	ktap_begin(f, &b);
	memset(&r, 0, sizeof r);
	r.step = &l->steps[0];
	r.act = &l->steps[0].acts[1];
	r.state = LR_PASS;
	book_put(&b, &r);
	ktap_result(f, &b, &r, true);
	r.step = &l->steps[1];
	r.act = &l->steps[1].acts[5];
	r.state = LR_FAIL;
	snprintf(r.msg, sizeof r.msg, "max_seq <did not> move & \"so\"");
	book_put(&b, &r);
	ktap_result(f, &b, &r, true);
	r.act = &l->steps[1].acts[6];
	r.state = LR_SKIP;
	snprintf(r.msg, sizeof r.msg, "needs /x");
	book_put(&b, &r);
	ktap_result(f, &b, &r, true);
	ktap_end(f, &b);
	fclose(f);
	assert_non_null(strstr(buf, "KTAP version 1\n"));
	assert_non_null(strstr(buf, "\n1..3\n"));
	assert_non_null(strstr(buf, "\nok 1 fill: meminfo.Shmem >= 30000\n"));
	assert_non_null(strstr(buf, "\nnot ok 2 age: delta(lru_gen.max_seq, before) == 1\n# max_seq <did not>"));
	assert_non_null(strstr(buf, "\nok 3 age: result(kvbench.ops_per_s) / 2 > 10 # SKIP needs /x\n"));
	book_score(&b, &sc);
	score_line(&sc, line, sizeof line);
	/* the two questions, unanswered: 2 points the student did not earn */
	assert_string_equal(line, "passed 1/3, 3/7 points (1 skipped): 0/2 yours, "
	    "3/5 the kit's");
	assert_non_null(strstr(buf, "# t: passed 1/3, 3/7 points (1 skipped): 0/2 "
	    "yours, 3/5 the kit's\n"));

	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(books_write_junit(&bp, 1, tmpl), 0);
	x = fopen(tmpl, "r");
	assert_non_null(x);
	xml = xmalloc(65536);
	xl = fread(xml, 1, 65535, x);
	xml[xl] = '\0';
	fclose(x);
	unlink(tmpl);
	assert_non_null(strstr(xml, "<testsuite name=\"t\" tests=\"3\" failures=\"1\" skipped=\"1\""));
	assert_non_null(strstr(xml, "<failure message=\"max_seq &lt;did not&gt; move &amp; &quot;so&quot;\">"));
	assert_non_null(strstr(xml, "<skipped message=\"needs /x\"/>"));
	assert_non_null(strstr(xml, "</testsuites>\n"));
	free(xml);

	/* lab all: the children's parts joined, totals summed, NULL left out */
	{
		FILE	*parts[3] = { tmpfile(), NULL, tmpfile() }, *bad = tmpfile();
		char	*second;

		assert_non_null(parts[0]);
		assert_non_null(parts[2]);
		book_junit_part(parts[0], &b);
		book_junit_part(parts[2], &b);
		assert_int_equal(junit_join(parts, 3, tmpl), 0);
		xml = read_text(tmpl);
		assert_non_null(xml);
		assert_non_null(strstr(xml, "<testsuites name=\"umkit labs\" tests=\"6\" "
		    "failures=\"2\" skipped=\"2\" errors=\"0\""));
		second = strstr(xml, "<testsuite name=\"t\"");
		assert_non_null(second);
		assert_non_null(strstr(second + 1, "<testsuite name=\"t\""));
		assert_null(strstr(strstr(second + 1, "<testsuite name=\"t\"") + 1,
		    "<testsuite "));
		assert_non_null(strstr(xml, "</testsuite>\n</testsuites>\n"));
		free(xml);
		/* a part without its totals line: an error, the file untouched */
		fputs(" <testsuite name=\"x\">\n", bad);
		assert_int_equal(junit_join(&bad, 1, tmpl), -1);
		xml = read_text(tmpl);
		assert_non_null(strstr(xml, "tests=\"6\""));
		free(xml);
		unlink(tmpl);
		fclose(parts[0]);
		fclose(parts[2]);
		fclose(bad);
	}
	free(buf);
	book_free(&b);
	lab_free(l);
	free(errs);
}

/* Every shipped lab passes --check. */
static void
test_shipped(void **state)
{
	char	 cmd[256], out[4096];
	FILE	*p;
	size_t	 n;

	(void)state;
	snprintf(cmd, sizeof cmd, "for f in %s/labs/*.lab; do echo \"$f\"; done", TOP);
	p = popen(cmd, "r");
	assert_non_null(p);
	n = fread(out, 1, sizeof out - 1, p);
	out[n] = '\0';
	pclose(p);
	for (char *s = strtok(out, "\n"); s != NULL; s = strtok(NULL, "\n")) {
		struct lab_env	 env = { .patches_dir = TOP "/patches" };
		char		*errs;
		struct lab	*l;

		if (strchr(s, '*') != NULL)
			skip();
		l = lab_load(s, &env, &errs);
		if (l == NULL)
			fail_msg("%s", errs);
		lab_free(l);
	}
}

/* Run the lab file tests. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_plain_names),
		cmocka_unit_test(test_gdb_trust),
		cmocka_unit_test(test_many_errors),
		cmocka_unit_test(test_let),
		cmocka_unit_test(test_skeleton),
		cmocka_unit_test(test_nul),
		cmocka_unit_test(test_eval),
		cmocka_unit_test(test_fmt),
		cmocka_unit_test(test_outputs),
		cmocka_unit_test(test_shipped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
