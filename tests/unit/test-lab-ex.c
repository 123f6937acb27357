/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test-lab-ex.c - a lab's exercises as the parser reads them: several
 * exercise lines with their ids and levels, the grader cases (case,
 * expect, fail, hint) made steps of their own, and every mistake named
 * FILE:LINE; the listing a student sees (lab-ex.c).
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lab/lab-ex.h"
#include "lab/lab.h"
#include "util.h"

static const char two[] =
"title Two exercises\n"
"variants base rss-lazy lru-batch\n"
"exercise program 04-twothreads.c\n"
"exercise id=touch level=beginner variant=base program 04-rsstouch.c\n"
"  case big timeout=5 points=2 rsstouch 4096 1\n"
"    expect result(rsstouch.touched) == 4096\n"
"      fail every page\n"
"      hint write to it\n"
"    expect status == 0\n"
"  # a comment between cases\n"
"  case bad status=2 rsstouch 1 0\n"
"  case any status=any rsstouch\n"
"    expect status > 0\n"
"exercise level=advanced kernel lru-batch mm/vmscan.c apply_gen_move_batch do it\n"
"  case age cat /proc/vmstat\n"
"    expect delta(vmstat.pgscan_anon) < 100\n"
"level intermediate\n"
"step a A\n"
"run twothreads\n"
"check result(twothreads.threads) == 2\n";

/* Parse text as t.lab; the errors (or "") into *errs. */
static struct lab *
parse(const char *text, char **errs)
{
	struct lab	*l = lab_parse("t.lab", text, strlen(text), NULL, errs);

	if (*errs == NULL)
		*errs = xstrdup("");
	return l;
}

/* The check actions of a step, in order, into c (at most n); how many. */
static int
checks(const struct lstep *st, const struct lact **c, int n)
{
	int	i, k = 0;

	for (i = 0; i < st->nacts && k < n; i++)
		if (st->acts[i].kind == LA_CHECK)
			c[k++] = &st->acts[i];
	return k;
}

/* Several exercises: ids, levels (the lab's by default), kinds. */
static void
test_several(void **state)
{
	char			*errs;
	struct lab		*l = parse(two, &errs);
	const struct lexercise	*e;

	(void)state;
	assert_string_equal(errs, "");
	assert_non_null(l);
	assert_int_equal(l->nexercises, 3);
	e = &l->exercises[0];
	assert_string_equal(e->id, "twothreads");
	assert_string_equal(e->prog, "twothreads");
	assert_string_equal(e->level, "intermediate");	/* the lab's, written after */
	assert_int_equal(e->kind, LEX_PROGRAM);
	assert_string_equal(e->file, "04-twothreads.c");
	assert_int_equal(e->line, 3);
	assert_int_equal(e->ncases, 0);
	e = &l->exercises[1];
	assert_string_equal(e->id, "touch");
	assert_string_equal(e->prog, "rsstouch");
	assert_string_equal(e->level, "beginner");
	assert_string_equal(e->variant, "base");
	assert_int_equal(e->ncases, 3);
	assert_string_equal(e->cases[0].id, "big");
	assert_string_equal(e->cases[0].command, "rsstouch 4096 1");
	assert_true(e->cases[0].timeout_s == 5);
	assert_int_equal(e->cases[0].points, 2);
	assert_int_equal(e->cases[0].status, 0);
	assert_int_equal(e->cases[0].nexpects, 2);
	assert_string_equal(e->cases[0].expects[0].fail, "every page");
	assert_string_equal(e->cases[0].expects[0].hint, "write to it");
	assert_int_equal(e->cases[0].expects[0].line, 6);
	assert_int_equal(e->cases[1].status, 2);
	assert_int_equal(e->cases[2].status, -1);
	e = &l->exercises[2];
	assert_string_equal(e->id, "apply_gen_move_batch");
	assert_string_equal(e->level, "advanced");
	assert_int_equal(e->kind, LEX_KERNEL);
	assert_string_equal(e->variant, "lru-batch");
	assert_string_equal(e->path, "mm/vmscan.c");
	assert_string_equal(e->todo, "do it");
	assert_ptr_equal(ex_find(l, NULL), &l->exercises[0]);
	assert_ptr_equal(ex_find(l, "touch"), &l->exercises[1]);
	assert_null(ex_find(l, "rsstouch"));
	lab_free(l);
	free(errs);
}

/* A program exercise without variant= grades on the lab's first variant,
 * whichever step ran before its cases (lab 03's cases ran on the last
 * step's compaction-noacct guest, its memory as those steps left it). */
static void
test_case_variant_default(void **state)
{
	char		*errs;
	struct lab	*l;

	(void)state;
	l = parse("title T\nvariants rss-lazy base\nexercise program a.c\n"
	    "  case x a 1\n    expect status == 0\nstep s S\nvariant base\n"
	    "run true\n", &errs);
	assert_string_equal(errs, "");
	assert_non_null(l);
	assert_int_equal(l->nsteps, 2);
	assert_string_equal(l->steps[0].variant, "base");
	assert_string_equal(l->steps[1].id, "a-x");
	assert_string_equal(l->steps[1].variant, "rss-lazy");
	lab_free(l);
	free(errs);
	/* no variants line: base is the only kernel, no line needed */
	l = parse("title T\nexercise program a.c\n  case x a 1\n"
	    "    expect status == 0\nstep s S\nrun true\n", &errs);
	assert_string_equal(errs, "");
	assert_non_null(l);
	assert_null(l->steps[1].variant);
	assert_string_equal(l->variants[0], "base");
	lab_free(l);
	free(errs);
}

/* Each case is a step after the lab's own: its command between a line
 * naming the case and one with its exit status, a check of the status,
 * one per expect with its fail and hint. */
static void
test_case_steps(void **state)
{
	char			*errs;
	struct lab		*l = parse(two, &errs);
	const struct lstep	*st;
	const struct lact	*c[8];
	int			 n;

	(void)state;
	assert_non_null(l);
	assert_int_equal(l->nsteps, 1 + 3 + 1);
	assert_int_equal(l->exercises[0].step0, 1);
	assert_int_equal(l->exercises[1].step0, 1);
	assert_int_equal(l->exercises[2].step0, 4);
	st = &l->steps[1];
	assert_string_equal(st->id, "touch-big");
	assert_string_equal(st->variant, "base");
	assert_int_equal(st->line, 5);
	assert_int_equal(st->acts[0].kind, LA_RUN);
	assert_true(st->acts[0].timeout_s == 5);
	assert_int_equal(st->acts[0].status, -1);
	assert_string_equal(st->acts[0].text, "echo 'rsstouch: case=big'; "
	    "rsstouch 4096 1; echo \"case: status=$?\"");
	n = checks(st, c, 8);
	assert_int_equal(n, 3);
	assert_string_equal(c[0]->check.cond->text, "status == 0");
	assert_int_equal(c[0]->check.points, 2);
	assert_string_equal(c[1]->check.cond->text, "result(rsstouch.touched) == 4096");
	assert_string_equal(c[1]->check.fail, "every page");
	assert_string_equal(c[1]->check.hint, "write to it");
	assert_int_equal(c[1]->line, 6);
	assert_string_equal(c[2]->check.cond->text, "status == 0");
	/* status=N alone is a case; status=any wants expects */
	st = &l->steps[2];
	assert_string_equal(st->id, "touch-bad");
	n = checks(st, c, 8);
	assert_int_equal(n, 1);
	assert_string_equal(c[0]->check.cond->text, "status == 2");
	n = checks(&l->steps[3], c, 8);
	assert_int_equal(n, 1);
	assert_string_equal(c[0]->check.cond->text, "status > 0");
	/* a kernel exercise's cases boot its variant */
	st = &l->steps[4];
	assert_string_equal(st->id, "apply_gen_move_batch-age");
	assert_string_equal(st->variant, "lru-batch");
	assert_string_equal(st->acts[0].text, "echo 'case: case=age'; cat "
	    "/proc/vmstat; echo \"case: status=$?\"");
	assert_int_equal(lab_points(l, &n), 1 + 6 + 1 + 1 + 2);
	lab_free(l);
	free(errs);
}

/* Picking an exercise takes the others' case steps out of the lab; the
 * lab still frees them. */
static void
test_pick(void **state)
{
	char		*errs;
	struct lab	*l = parse(two, &errs);

	(void)state;
	assert_non_null(l);
	ex_pick(l, &l->exercises[2]);
	assert_int_equal(l->nsteps, 1 + 1);
	assert_int_equal(l->exercises[1].ndropped, 3);
	assert_int_equal(l->exercises[1].step0, -1);
	assert_int_equal(l->exercises[2].step0, 1);
	assert_string_equal(l->steps[1].id, "apply_gen_move_batch-age");
	assert_string_equal(l->exercises[1].dropped[2].id, "touch-any");
	ex_pick(l, &l->exercises[2]);		/* again: nothing more */
	assert_int_equal(l->nsteps, 2);
	lab_free(l);
	free(errs);
	l = parse(two, &errs);
	assert_non_null(l);
	ex_pick(l, &l->exercises[1]);
	assert_int_equal(l->nsteps, 1 + 3);
	assert_string_equal(l->steps[3].id, "touch-any");
	assert_int_equal(l->exercises[2].ndropped, 1);
	lab_free(l);
	free(errs);
}

/* The listing a student gets: id, level, kind, file, cases. */
static void
test_list(void **state)
{
	char		*errs, *buf = NULL;
	size_t		 len = 0;
	struct lab	*l = parse(two, &errs);
	FILE		*f = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(l);
	ex_list(l, f);
	fclose(f);
	assert_string_equal(buf,
	    "  twothreads       intermediate program 04-twothreads.c (the default)\n"
	    "  touch            beginner     program 04-rsstouch.c, 3 grader cases\n"
	    "  apply_gen_move_batch advanced     kernel mm/vmscan.c, 1 grader case\n");
	free(buf);
	lab_free(l);
	free(errs);
}

/* Each mistake is reported at its line, and parsing goes on. */
static void
test_errors(void **state)
{
	static const struct {
		const char	*text;
		const char	*want;
	} cases[] = {
		{ "title T\nexercise level=expert program a.c\nstep a A\n",
		  "t.lab:2: exercise level=expert: want beginner, intermediate or advanced" },
		{ "title T\nexercise id=a.b program a.c\nstep a A\n",
		  "t.lab:2: exercise id=a.b: want letters, digits, '-' or '_'" },
		{ "title T\nexercise id=x program 04-a.c\nexercise id=x program 05-b.c\nstep a A\n",
		  "t.lab:3: exercise x: the id is used already at line 2" },
		{ "title T\nexercise program 04-a.c\nexercise id=b program 04-a.c\nstep a A\n",
		  "t.lab:3: exercise b: the student's file would be 04-a.c, as for the exercise at line 2" },
		{ "title T\nexercise program a.c\nexercise kernel base mm/a.c b c\nexercise id=z kernel base mm/x/a.c f t\nstep a A\n",
		  "t.lab:4: exercise z: the student's file would be a.c" },
		{ "title T\nexercise frob=1 program a.c\nstep a A\n",
		  "t.lab:2: exercise: want 'exercise [id=ID] [level=L] program FILE.c'" },
		{ "title T\nexercise kernel base mm/a.c f(x) t\nstep a A\n",
		  "t.lab:2: exercise kernel: f(x): want a C function's name" },
		{ "title T\nexercise variant=base kernel lru mm/a.c f t\nstep a A\n",
		  "t.lab:2: exercise kernel lru: variant=base: a kernel exercise's cases boot its own variant" },
		{ "title T\nexercise variant=base program a.c\nstep a A\n",
		  "t.lab:2: exercise a: variant= is the variant its cases boot, and it has none" },
		{ "title T\nvariants base\nexercise variant=other program a.c\n  case x a\nstep a A\n",
		  "t.lab:3: variant other: not in the lab's 'variants' line" },
		{ "title T\ncase x a 1\nstep a A\n",
		  "t.lab:2: case: belongs after an 'exercise' line" },
		{ "title T\nexercise program a.c\ncase 1.5 a 1\nstep a A\n",
		  "t.lab:3: case: want 'case ID [timeout=S] [status=N|any] [points=N] COMMAND'" },
		{ "title T\nexercise program a.c\ncase x a 1\ncase x a 2\nstep a A\n",
		  "t.lab:4: case x: the id is used already at line 3" },
		{ "title T\nexercise program a.c\ncase x status=300 a\nstep a A\n",
		  "t.lab:3: status=300: want 0-255 or any" },
		{ "title T\nexercise program a.c\ncase x timeout=forever a\nstep a A\n",
		  "t.lab:3: timeout=forever: want a duration up to 10 minutes" },
		{ "title T\nexercise program a.c\ncase x timeout=5\nstep a A\n",
		  "t.lab:3: case x: a guest command expected" },
		{ "title T\nexercise program a.c\ncase x status=any a 1\nstep a A\n",
		  "t.lab:3: case x: nothing to check: want status=N or expect lines" },
		{ "title T\nexercise program a.c\nexpect status == 0\nstep a A\n",
		  "t.lab:3: expect: belongs after a 'case' line" },
		{ "title T\nexercise program a.c\ncase x a\nminutes 3\nexpect status == 0\nstep a A\n",
		  "t.lab:5: expect: belongs after a 'case' line" },
		{ "title T\nexercise program a.c\ncase x a\nexpect\nstep a A\n",
		  "t.lab:4: expect: a condition expected" },
		{ "title T\nexercise program a.c\ncase x a\nexpect result(a.b) >\nstep a A\n",
		  "t.lab:4: a value expected at the end" },
		{ "title T\nexercise program a.c\ncase x a\nexpect result(b.c) > 1\nstep a A\n",
		  "t.lab:4: result(b.c): no run or bg line before it starts 'b'" },
		{ "title T\nexercise program a.c\ncase x a\nexpect delta(vmstat.x, m) > 1\nstep a A\n",
		  "t.lab:4: delta(vmstat.x, m): no 'mark m' earlier" },
		{ "title T\nfail oops\nstep a A\n",
		  "t.lab:2: fail: belongs right after a check or an expect line" },
		{ "title T\nexercise program a.c\ncase x a\nexpect status == 0\nfail a\nfail b\nstep a A\n",
		  "t.lab:6: fail: given twice for this expect" },
		{ "title T\nexercise program a.c\ncase x a\nhint h\nstep a A\n",
		  "t.lab:4: hint: belongs right after a check or an expect line" },
		{ "title T\nexercise program a.c\ncase x a\nstep a-x A\n",
		  "t.lab:3: step a-x: the ID is used already at line 4" },
		{ "title T\nexercise program 04-.c\nstep a A\n",
		  "t.lab:2: exercise program 04-.c: want a name of letters" },
		{ "title T\nstep a A\ncase x a\n",
		  "t.lab:3: 'case' is not a step keyword" },
		{ "title T\nexercise program a.c\ncase xxxxxxxxxxxxxxxxxxxxxxxxx a\nstep a A\n",
		  "t.lab:3: case: want 'case ID" },
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

/* The bounds: exercises per lab, cases per exercise, expects per case. */
static void
test_bounds(void **state)
{
	char		*t = xstrdup("title T\n"), *n, *errs;
	struct lab	*l;
	int		 i;

	(void)state;
	for (i = 0; i <= LAB_MAX_EXERCISES; i++) {
		n = xasprintf("%sexercise program %02d-p%d.c\n", t, i, i);
		free(t);
		t = n;
	}
	/* a case, one expect too many for it, then one case too many */
	for (i = 0; i <= LAB_MAX_EXPECTS + 1; i++) {
		n = xasprintf(i == 0 ? "%scase c0 p15\n" : "%sexpect status == 0\n", t);
		free(t);
		t = n;
	}
	for (i = 1; i <= LAB_MAX_CASES; i++) {
		n = xasprintf("%scase c%d p15 %d\n", t, i, i);
		free(t);
		t = n;
	}
	n = xasprintf("%sstep a A\n", t);
	free(t);
	l = parse(n, &errs);
	assert_null(l);
	assert_non_null(strstr(errs, "t.lab:18: exercise: at most 16 per lab"));
	assert_non_null(strstr(errs, "t.lab:36: expect: at most 16 per case"));
	assert_non_null(strstr(errs, "t.lab:100: case: at most 64 per exercise"));
	free(errs);
	free(n);
}

/* Run the exercise parser tests. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_several),
		cmocka_unit_test(test_case_steps),
		cmocka_unit_test(test_case_variant_default),
		cmocka_unit_test(test_pick),
		cmocka_unit_test(test_list),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_bounds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
