/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test-lab-grade.c - what grades the student, without a guest: the
 * question keywords, per-student params and choice order, the points
 * split, sealed answers and explanations, the result file's MAC, and the
 * expressions that make checks robust (median, within).
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lab/lab-key.h"
#include "lab/lab-out.h"
#include "lab/lab.h"
#include "util.h"

static const char quiz[] =
"title Q\n"
"param size = choice(16, 32, 64, 128)\n"
"param n = range(1, 50, 1)\n"
"step s One\n"
"| Write {{size}} MiB.\n"
"ask choice points=3 answer=c Which?\n"
"  a) one\n"
"    because one is too few\n"
"  b) two\n"
"  c) three\n"
"    because three it is\n"
"  d) four\n"
"explain The answer is three,\n"
"explain said twice.\n"
"run result=w echo \"w: v={{size}}\"\n"
"check result(w.v) == size\n"
"why number points=2 answer=result(w.v) tolerance=5% How much?\n"
"step g Goal\n"
"check points=2 meminfo.MemFree > 0\n"
"goal make {{n}} files\n"
"solve touch /tmp/a\n"
"run result=c echo c: n=1\n"
"check points=4 result(c.n) == 1\n";

/* Parse text for student (NULL: the default); the errors into *errs. */
static struct lab *
parse_as(const char *text, const char *student, char **errs)
{
	struct lab_env	 env = { .student = student };
	struct lab	*l = lab_parse("q.lab", text, strlen(text), &env, errs);

	if (*errs == NULL)
		*errs = xstrdup("");
	return l;
}

/* The keywords land where they belong. */
static void
test_keywords(void **state)
{
	char		*errs;
	struct lab	*l = parse_as(quiz, "alice", &errs);
	struct lstep	*st;

	(void)state;
	assert_string_equal(errs, "");
	assert_non_null(l);
	st = &l->steps[0];
	assert_int_equal(st->ask.points, 3);
	assert_int_equal(st->ask.answer, 'c');
	assert_string_equal(st->ask.explain, "The answer is three, said twice.");
	assert_string_equal(st->ask.choices[0].because, "one is too few");
	assert_null(st->ask.choices[1].because);
	assert_string_equal(st->ask.choices[2].because, "three it is");
	assert_int_equal(st->why.kind, LQ_NUMBER);
	assert_int_equal(st->why.points, 2);
	st = &l->steps[1];
	assert_non_null(st->goal);
	assert_int_equal(st->nsolve, 1);
	assert_int_equal(st->goal_at, 1);
	assert_false(st->acts[0].check.student);	/* before the goal */
	assert_true(st->acts[2].check.student);
	lab_free(l);
	free(errs);
}

/* Params: drawn from their pool, the same for one student every time,
 * different across students, substituted in text and expressions. */
static void
test_params(void **state)
{
	char		*errs, want[64];
	struct lab	*a, *b;
	int		 differ = 0, i;
	char		 id[16];

	(void)state;
	a = parse_as(quiz, "alice", &errs);
	free(errs);
	b = parse_as(quiz, "alice", &errs);
	free(errs);
	assert_non_null(a);
	assert_non_null(b);
	assert_string_equal(a->params[0].value, b->params[0].value);
	assert_string_equal(a->params[1].value, b->params[1].value);
	assert_int_equal(a->params[1].npool, 50);
	snprintf(want, sizeof want, "Write %s MiB.", a->params[0].value);
	assert_string_equal(a->steps[0].text, want);
	snprintf(want, sizeof want, "make %s files", a->params[1].value);
	assert_string_equal(a->steps[1].goal, want);
	lab_free(b);
	for (i = 0; i < 20; i++) {
		snprintf(id, sizeof id, "s%d", i);
		b = parse_as(quiz, id, &errs);
		free(errs);
		differ += strcmp(b->params[1].value, a->params[1].value) != 0;
		lab_free(b);
	}
	/* 50 values: 20 students do not all draw alice's */
	assert_true(differ >= 15);
	lab_free(a);
}

/* The choice order: a permutation, stable for a student, not the same
 * for everybody. */
static void
test_order(void **state)
{
	char		*errs, id[16];
	struct lab	*l;
	int		 p[26], q[26], seen, i, k, moved = 0;

	(void)state;
	l = parse_as(quiz, "alice", &errs);
	free(errs);
	lab_choice_order(l, &l->steps[0], &l->steps[0].ask, p);
	lab_choice_order(l, &l->steps[0], &l->steps[0].ask, q);
	assert_memory_equal(p, q, 4 * sizeof *p);
	for (seen = 0, i = 0; i < 4; i++) {
		assert_in_range(p[i], 0, 3);
		seen |= 1 << p[i];
	}
	assert_int_equal(seen, 0xf);
	lab_free(l);
	for (k = 0; k < 10; k++) {
		snprintf(id, sizeof id, "t%d", k);
		l = parse_as(quiz, id, &errs);
		free(errs);
		lab_choice_order(l, &l->steps[0], &l->steps[0].ask, q);
		moved += memcmp(p, q, 4 * sizeof *p) != 0;
		lab_free(l);
	}
	assert_true(moved >= 5);
}

/* The points: the questions and the goal's checks are the student's. */
static void
test_split(void **state)
{
	char			*errs;
	struct lab		*l = parse_as(quiz, "alice", &errs);
	struct lab_book		 b;
	struct lab_score	 sc;
	int			 sp, kp;

	(void)state;
	lab_points_split(l, &sp, &kp);
	assert_int_equal(sp, 3 + 2 + 4);
	assert_int_equal(kp, 1 + 2);
	book_init(&b, l, "batch");
	book_score(&b, &sc);
	assert_int_equal(sc.student_max, 9);
	assert_int_equal(sc.kit_max, 3);
	assert_int_equal(sc.max_points, 12);
	assert_int_equal(sc.points, 0);
	book_free(&b);
	lab_free(l);
	free(errs);
}

/* Sealed: the right key found again, a text read back only with it. */
static void
test_seal(void **state)
{
	char	h[LAB_SEAL_HEX + 1], h2[LAB_SEAL_HEX + 1], *t, *u;

	(void)state;
	lab_seal_answer("q", "s", 'a', 'c', h);
	lab_seal_answer("q", "s", 'a', 'b', h2);
	assert_int_equal(strlen(h), LAB_SEAL_HEX);
	assert_string_not_equal(h, h2);
	lab_seal_answer("q", "s", 'w', 'c', h2);
	assert_string_not_equal(h, h2);	/* the why's is another */
	assert_int_equal(lab_seal_which("q", "s", 'a', "abcd", 4, h), 'c');
	assert_int_equal(lab_seal_which("q", "t", 'a', "abcd", 4, h), 0);
	t = lab_seal_text("q", "s", 'a', 'c', "explain", "three, because");
	assert_true(lab_sealed_text(t));
	assert_null(strstr(t, "three"));
	u = lab_unseal_text("q", "s", 'a', 'c', "explain", t);
	assert_string_equal(u, "three, because");
	free(u);
	/* with the wrong key it does not come back as the text */
	u = lab_unseal_text("q", "s", 'a', 'b', "explain", t);
	assert_true(u == NULL || strcmp(u, "three, because") != 0);
	free(u);
	free(t);
}

/* A sealed lab file parses, holds no answer=K and no explanation. */
static void
test_seal_file(void **state)
{
	char		*buf = NULL, *errs;
	size_t		 len = 0;
	FILE		*f = open_memstream(&buf, &len);
	struct lab	*l;
	char		 right;

	(void)state;
	lab_seal_file("q", quiz, f);
	fclose(f);
	assert_null(strstr(buf, "answer=c"));
	assert_null(strstr(buf, "three it is"));
	assert_null(strstr(buf, "The answer is three"));
	assert_non_null(strstr(buf, "answer=result(w.v)"));	/* numbers stay */
	l = lab_parse("q.lab", buf, len, NULL, &errs);
	assert_null(errs);
	assert_non_null(l);
	assert_int_equal(l->steps[0].ask.answer, 0);
	assert_int_equal(strlen(l->steps[0].ask.sealed), LAB_SEAL_HEX);
	right = lab_seal_which("q", "s", 'a', "abcd", 4, l->steps[0].ask.sealed);
	assert_int_equal(right, 'c');
	assert_true(lab_sealed_text(l->steps[0].ask.explain));
	assert_true(lab_sealed_text(l->steps[0].ask.choices[2].because));
	lab_free(l);
	free(buf);
}

/* The MAC: matches the file written, not a changed one or another key. */
static void
test_mac(void **state)
{
	const char	*ok_json = "{\"a\": 1, \"b\": [1.5, \"x\"]}";
	char		 mac[LAB_MAC_HEX + 1], *with, *forged;

	(void)state;
	lab_mac("k", "{\"a\":1,\"b\":[1.5,\"x\"]}", 21, mac);
	with = xasprintf("{\"b\": [1.5, \"x\"], \"mac\": \"%s\", \"a\": 1}", mac);
	assert_int_equal(lab_result_mac_ok(with, strlen(with), "k"), 1);
	assert_int_equal(lab_result_mac_ok(with, strlen(with), "other"), 0);
	forged = xasprintf("{\"b\": [1.5, \"y\"], \"mac\": \"%s\", \"a\": 1}", mac);
	assert_int_equal(lab_result_mac_ok(forged, strlen(forged), "k"), 0);
	assert_int_equal(lab_result_mac_ok(ok_json, strlen(ok_json), "k"), 0);
	assert_int_equal(lab_result_mac_ok("{", 1, "k"), -1);
	free(with);
	free(forged);
}

/* median() over every result line; within N% of. */
static int
fake_now(void *arg, const char *spec, double *v, char *err)
{
	(void)arg;
	(void)err;
	*v = strcmp(spec, "vmstat.a") == 0 ? 105 : 100;
	return 0;
}

/* Five runs' samples, the middle one 30. */
static int
fake_results(void *arg, const char *key, double *v, int max, char *err)
{
	static const double	s[] = { 90, 10, 30, 20, 1000 };
	int			i;

	(void)arg;
	if (strcmp(key, "w.t") != 0) {
		snprintf(err, LAB_ERR_LEN, "no %s", key);
		return -1;
	}
	for (i = 0; i < 5 && i < max; i++)
		v[i] = s[i];
	return i;
}

/* Evaluate a condition on the fakes. */
static int
eval(const char *text)
{
	struct lenv	 env = { .now = fake_now, .results = fake_results };
	char		 err[LAB_ERR_LEN];
	struct lcond	*c = lcond_parse(text, err);
	double		 l, r;
	int		 v;

	if (c == NULL)
		fail_msg("%s: %s", text, err);
	v = lcond_eval(c, &env, &l, &r, err);
	lcond_free(c);
	return v;
}

/* Robust checks. */
static void
test_robust(void **state)
{
	char	err[LAB_ERR_LEN];

	(void)state;
	assert_int_equal(eval("median(w.t) == 30"), 1);
	assert_int_equal(eval("median(w.t) > 100"), 0);
	assert_int_equal(eval("vmstat.a within 5% of vmstat.b"), 1);
	assert_int_equal(eval("vmstat.a within 4% of vmstat.b"), 0);
	assert_int_equal(eval("median(w.none) > 0"), -1);
	assert_null(lcond_parse("vmstat.a within 5 of vmstat.b", err));
	assert_non_null(strstr(err, "percentage"));
	assert_null(lcond_parse("vmstat.a within 5%", err));
}

/* --check: the warnings, and the errors of the new keywords. */
static void
test_lint(void **state)
{
	static const struct { const char *text, *want; } bad[] = {
		{ "title T\nstep a A\nexplain x\n", "q.lab:3: explain: belongs after an ask or why" },
		{ "title T\nstep a A\nbecause x\n", "q.lab:3: 'because' choice line belongs after" },
		{ "title T\nstep a A\nsolve true\n", "q.lab:3: solve: belongs after the step's goal" },
		{ "title T\nstep a A\ngoal g\ncheck 1 == 1\n", "q.lab:2: step a: a goal wants 'solve' lines" },
		{ "title T\nstep a A\nab /etc/x 1 2 w\nevidence e = 1\n", "q.lab:3: ab /etc/x: want a plain path" },
		{ "title T\nstep a A\nab /proc/sys/vm/x 1 2 w\n", "q.lab:3: ab: at least one 'evidence" },
		{ "title T\nstep a A\nab /proc/sys/vm/x 1 2 w\nevidence e = 1\ncheck 1 == 1\n", "q.lab:5: check: an ab step has no checks" },
		{ "title T\nparam x = choice(a b)\nstep a A\n", "q.lab:2: param x: 'a b' is not a plain value" },
		{ "title T\nparam x = range(5, 1, 1)\nstep a A\n", "q.lab:2: param x: range(LO, HI, STEP) wants LO <= HI" },
		{ "title T\nparam x = choice(1)\nparam x = choice(2)\nstep a A\n", "q.lab:3: param x: defined twice" },
		{ "title T\nstep a A\nask choice answer=#12 Q?\n a) x\n b) y\n", "q.lab:3: answer=#12: want the letter" },
	};
	char		*errs;
	struct lab	*l;
	size_t		 i;

	(void)state;
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		l = parse_as(bad[i].text, "x", &errs);
		if (l != NULL || strstr(errs, bad[i].want) == NULL)
			fail_msg("case %zu: want '%s', got '%s'", i, bad[i].want, errs);
		free(errs);
	}
	l = parse_as("title T\nstep a A\nrun true\ncheck vmstat.pgfault >= 0\n"
	    "check delta(vmstat.pgfault) >= 0\ncheck delta(meminfo.MemFree) >= 0\n"
	    "check vmstat.x < vmstat.x\n", "x", &errs);
	assert_non_null(l);
	assert_non_null(strstr(l->warns, "q.lab:4: warning: 'vmstat.pgfault >= 0' cannot fail"));
	assert_non_null(strstr(l->warns, "q.lab:5: warning"));
	assert_null(strstr(l->warns, "q.lab:6:"));
	assert_non_null(strstr(l->warns, "q.lab:7: warning: 'vmstat.x < vmstat.x' compares a value with itself: it cannot pass"));
	assert_non_null(strstr(l->warns, "the student earns 0 of the lab's 4 points"));
	lab_free(l);
	free(errs);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_keywords),
		cmocka_unit_test(test_params),
		cmocka_unit_test(test_order),
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_seal),
		cmocka_unit_test(test_seal_file),
		cmocka_unit_test(test_mac),
		cmocka_unit_test(test_robust),
		cmocka_unit_test(test_lint),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
