/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * lab-out.c - a lab run's results as KTAP, JUnit XML and JSON, and the
 * report that merges many students' JSON result files.
 *
 * JSON goes through jansson (Debian's libjansson): the result files are
 * read back by 'umkit lab report' and by other tools, so they must be
 * real JSON whatever a message holds.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lab-ex.h"
#include "lab-key.h"
#include "lab-out.h"
#include "util.h"

/* ---- the book ---------------------------------------------------------- */

/* Set a book up. */
void
book_init(struct lab_book *b, const struct lab *lab, const char *mode)
{
	struct timespec	ts;

	memset(b, 0, sizeof *b);
	b->lab = lab;
	lab_points(lab, &b->nchecks);
	b->res = xcalloc(b->nchecks ? b->nchecks : 1, sizeof *b->res);
	b->have = xcalloc(b->nchecks ? b->nchecks : 1, sizeof *b->have);
	b->at_s = xcalloc(b->nchecks ? b->nchecks : 1, sizeof *b->at_s);
	b->mode = mode;
	b->indent = "";
	b->start_ms = now_ms();
	clock_gettime(CLOCK_REALTIME, &ts);
	b->start_unix = ts.tv_sec;
}

/* Free a book's storage. */
void
book_free(struct lab_book *b)
{
	free(b->res);
	free(b->have);
	free(b->at_s);
	memset(b, 0, sizeof *b);
}

/* The check number of a check action. */
int
book_index(const struct lab_book *b, const struct lact *a)
{
	const struct lab	*l = b->lab;
	int			 i, j, n = 0;

	for (i = 0; i < l->nsteps; i++)
		for (j = 0; j < l->steps[i].nacts; j++) {
			if (&l->steps[i].acts[j] == a)
				return l->steps[i].acts[j].kind == LA_CHECK ? n : -1;
			if (l->steps[i].acts[j].kind == LA_CHECK)
				n++;
		}
	return -1;
}

/* Record a result. */
void
book_put(struct lab_book *b, const struct lres *r)
{
	int	i = book_index(b, r->act);

	if (i < 0)
		return;
	b->res[i] = *r;
	b->have[i] = true;
	b->at_s[i] = (now_ms() - b->start_ms) / 1000.0;
}

/* Forget a step's results. */
void
book_clear_step(struct lab_book *b, const struct lstep *st)
{
	int	j, i;

	for (j = 0; j < st->nacts; j++)
		if ((i = book_index(b, &st->acts[j])) >= 0)
			b->have[i] = false;
}

/* Count what passed. */
void
book_score(const struct lab_book *b, struct lab_score *s)
{
	const struct lab	*l = b->lab;
	int			 i, j, n = 0;
	bool			 mine;

	memset(s, 0, sizeof *s);
	s->checks = b->nchecks;
	for (i = 0; i < l->nsteps; i++)
		for (j = 0; j < l->steps[i].nacts; j++) {
			const struct lact *a = &l->steps[i].acts[j];

			if (a->kind != LA_CHECK)
				continue;
			/* an exercise case grades the student's work with
			 * --exercise DIR, else the kit's solution */
			mine = a->check.student || (a->check.exercise &&
			    b->sess != NULL && b->sess->ex != NULL &&
			    b->sess->ex->student);
			if (mine)
				s->student_max += a->check.points;
			else
				s->kit_max += a->check.points;
			if (!b->have[n])
				s->notrun++;
			else if (b->res[n].state == LR_PASS) {
				s->passed++;
				if (mine)
					s->student_points += a->check.points;
				else
					s->kit_points += a->check.points;
			} else if (b->res[n].state == LR_SKIP)
				s->skipped++;
			else
				s->failed++;
			n++;
		}
	/* The answers: asked or not, their points are the student's. */
	for (i = 0; i < l->nsteps; i++) {
		const struct lstep *st = &l->steps[i];

		if (st->ask.kind != LQ_NONE) {
			s->student_max += st->ask.points;
			if (b->sess != NULL && b->sess->pred[i].judged)
				s->student_points += b->sess->pred[i].got;
		}
		if (st->why.kind != LQ_NONE) {
			s->student_max += st->why.points;
			if (b->sess != NULL && b->sess->whyp[i].judged)
				s->student_points += b->sess->whyp[i].got;
		}
		if (st->ab != NULL) {
			int	k;

			s->student_max += st->ab->points;
			for (k = 0; k < st->ab->nev; k++)
				s->student_max += 2 * st->ab->ev[k].points;
			if (b->sess != NULL)
				s->student_points += b->sess->ab[i].got;
		}
	}
	s->points = s->student_points + s->kit_points;
	s->max_points = s->student_max + s->kit_max;
}

/* The one-line score. */
void
score_line(const struct lab_score *s, char *out, size_t n)
{
	snprintf(out, n, "passed %d/%d, %d/%d points%s", s->passed, s->checks,
	    s->points, s->max_points, s->skipped ? "" : "");
	if (s->skipped > 0) {
		size_t	l = strlen(out);

		snprintf(out + l, n - l, " (%d skipped)", s->skipped);
	}
	if (s->student_max > 0) {
		size_t	l = strlen(out);

		snprintf(out + l, n - l, ": %d/%d yours, %d/%d the kit's",
		    s->student_points, s->student_max, s->kit_points, s->kit_max);
	}
}

/* ---- KTAP -------------------------------------------------------------- */

/* A message as KTAP diagnostic lines. */
static void
ktap_diag(FILE *f, const char *ind, const char *prefix, const char *msg)
{
	const char	*p = msg, *nl;

	while (p != NULL && *p != '\0') {
		nl = strchr(p, '\n');
		fprintf(f, "%s# %s%.*s\n", ind, prefix, nl ? (int)(nl - p) : (int)strlen(p), p);
		p = nl ? nl + 1 : NULL;
	}
}

/* The header and plan. */
void
ktap_begin(FILE *f, const struct lab_book *b)
{
	fprintf(f, "%sKTAP version 1\n", b->indent);
	fprintf(f, "%s# umkit lab %s: %s\n", b->indent, b->lab->name, b->lab->title);
	fprintf(f, "%s1..%d\n", b->indent, b->nchecks);
	fflush(f);
}

/* One result line, with the reason and hint of a failure. */
void
ktap_result(FILE *f, const struct lab_book *b, const struct lres *r, bool hints)
{
	int	i = book_index(b, r->act);

	if (i < 0)
		return;
	fprintf(f, "%s%s %d %s: %s%s%s\n", b->indent, r->state == LR_FAIL ? "not ok" : "ok",
	    i + 1, r->step->id, r->act->check.cond ? r->act->check.cond->text : "?",
	    r->state == LR_SKIP ? " # SKIP " : "",
	    r->state == LR_SKIP ? r->msg : "");
	if (r->state == LR_FAIL) {
		ktap_diag(f, b->indent, "", r->msg);
		if (hints && r->act->check.hint)
			ktap_diag(f, b->indent, "hint: ", r->act->check.hint);
	}
	fflush(f);
}

/* One answer as a diagnostic line. */
static void
ktap_answer(FILE *f, const struct lab_book *b, const char *step,
    const char *what, const struct lpred *p)
{
	char	t[64];

	if (!p->answered) {
		fprintf(f, "%s# %s %s: not answered (0/%d)\n", b->indent, step, what,
		    p->points);
		return;
	}
	if (!p->judged) {
		fprintf(f, "%s# %s %s: %s, not judged: %s\n", b->indent, step, what,
		    p->answer, p->truth_err);
		return;
	}
	lab_fmt_num(t, sizeof t, p->truth);
	fprintf(f, "%s# %s %s: %s, %s (%d/%d)%s%s\n", b->indent, step, what,
	    p->answer, p->right ? "right" : "wrong", p->got, p->points,
	    p->truth_err[0] == '\0' && !isalpha((unsigned char)p->answer[0]) ?
	    "; it was " : "", p->truth_err[0] == '\0' &&
	    !isalpha((unsigned char)p->answer[0]) ? t : "");
}

/* The student's answers of step i. */
void
ktap_answers(FILE *f, const struct lab_book *b, int i)
{
	const struct lstep	*st = &b->lab->steps[i];
	const struct lab_abres	*r;

	if (b->sess == NULL)
		return;
	if (st->ask.kind != LQ_NONE)
		ktap_answer(f, b, st->id, "prediction", &b->sess->pred[i]);
	if (st->why.kind != LQ_NONE)
		ktap_answer(f, b, st->id, "why", &b->sess->whyp[i]);
	if (st->ab != NULL) {
		r = &b->sess->ab[i];
		if (!r->ran)
			fprintf(f, "%s# %s ab: the guests did not both run\n", b->indent,
			    st->id);
		else
			fprintf(f, "%s# %s ab: %s; %d/%d\n", b->indent, st->id,
			    !r->answered ? "not answered" : r->ident == 'X' + r->v1_side ?
			    "told the guests apart" : "mistook the guests", r->got, r->points);
	}
	fflush(f);
}

/* The score line. */
void
ktap_end(FILE *f, const struct lab_book *b)
{
	struct lab_score	s;
	char			line[160];

	book_score(b, &s);
	score_line(&s, line, sizeof line);
	fprintf(f, "%s# %s: %s\n", b->indent, b->lab->name, line);
	fflush(f);
}

/* ---- JSON -------------------------------------------------------------- */

/* A number, or null when it is not finite. */
static json_t *
jnum(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static const char *const state_names[] = { "pass", "fail", "skip" };

/* Write the result file. */
int
book_write_json(const struct lab_book *b, const struct lab_sess *s,
    const char *path)
{
	const struct lab	*l = b->lab;
	struct lab_score	 sc;
	json_t			*o = json_object(), *res = json_array(), *pr = json_array();
	json_t			*vars = json_array(), *abs = json_array();
	json_t			*typed = json_array();
	char			 host[256] = "", mac[LAB_MAC_HEX + 1], *dump;
	const char		*key = getenv("UMKIT_GRADE_KEY");
	int			 i, j, k, n = 0, rc, pright = 0, pn = 0;

	book_score(b, &sc);
	gethostname(host, sizeof host - 1);
	for (i = 0; i < l->nvariants; i++)
		json_array_append_new(vars, json_string(l->variants[i]));
	for (i = 0; i < l->nsteps; i++) {
		for (j = 0; j < l->steps[i].nacts; j++) {
			const struct lact	*a = &l->steps[i].acts[j];
			const struct lres	*r = &b->res[n];
			json_t			*c;

			if (a->kind != LA_CHECK)
				continue;
			c = json_pack("{s:i, s:s, s:s, s:s, s:i, s:i}",
			    "n", n + 1, "step", l->steps[i].id,
			    "check", a->check.cond ? a->check.cond->text : "",
			    "state", b->have[n] ? state_names[r->state] : "notrun",
			    "points", a->check.points,
			    "got", b->have[n] && r->state == LR_PASS ? a->check.points : 0);
			if (b->have[n]) {
				json_object_set_new(c, "left", jnum(r->left));
				json_object_set_new(c, "right", jnum(r->right));
				json_object_set_new(c, "message", json_string(r->msg));
				json_object_set_new(c, "at_s", json_real(b->at_s[n]));
			}
			json_array_append_new(res, c);
			n++;
		}
		for (k = 0; k < 2 && s != NULL; k++) {
			const struct lask	*qq = k ? &l->steps[i].why : &l->steps[i].ask;
			const struct lpred	*p = k ? &s->whyp[i] : &s->pred[i];
			json_t			*q;

			if (qq->kind == LQ_NONE)
				continue;
			q = json_pack("{s:s, s:s, s:s, s:s, s:i, s:i}",
			    "step", l->steps[i].id, "when", k ? "why" : "ask",
			    "question", qq->question,
			    "kind", qq->kind == LQ_CHOICE ? "choice" : "number",
			    "points", qq->points, "got", p->judged ? p->got : 0);
			pn++;
			json_object_set_new(q, "answer", p->answered ?
			    json_string(p->answer) : json_null());
			json_object_set_new(q, "right", p->judged ?
			    json_boolean(p->right) : json_null());
			if (qq->kind == LQ_NUMBER && p->judged)
				json_object_set_new(q, "truth", jnum(p->truth));
			if (p->judged && p->right)
				pright++;
			json_array_append_new(pr, q);
		}
		if (l->steps[i].ab != NULL && s != NULL) {
			const struct lab_ab	*ab = l->steps[i].ab;
			const struct lab_abres	*r = &s->ab[i];
			json_t			*a = json_pack("{s:s, s:s, s:b, s:i, s:i}",
			    "step", l->steps[i].id, "switch", ab->path, "ran", r->ran,
			    "points", r->points, "got", r->got);
			json_t			*ev = json_array();

			if (r->ran) {
				json_object_set_new(a, "v1_on", json_string(r->v1_side ? "Y" : "X"));
				json_object_set_new(a, "said", r->answered ?
				    json_sprintf("%c", r->ident) : json_null());
			}
			for (k = 0; k < ab->nev; k++)
				json_array_append_new(ev, json_pack("{s:s, s:o, s:o, s:o, s:o}",
				    "label", ab->ev[k].label,
				    "x", r->have[k][0] ? jnum(r->val[k][0]) : json_null(),
				    "y", r->have[k][1] ? jnum(r->val[k][1]) : json_null(),
				    "read_x", r->ev_given[k][0] ? jnum(r->ev[k][0]) : json_null(),
				    "read_y", r->ev_given[k][1] ? jnum(r->ev[k][1]) : json_null()));
			json_object_set_new(a, "evidence", ev);
			json_array_append_new(abs, a);
		}
		if (l->steps[i].goal != NULL && s != NULL) {
			json_t	*c = json_array();

			for (k = 0; k < s->typed[i].n; k++)
				json_array_append_new(c, json_string(s->typed[i].cmd[k]));
			json_array_append_new(typed, json_pack("{s:s, s:o}",
			    "step", l->steps[i].id, "commands", c));
		}
	}
	json_object_set_new(o, "umkit_lab_result", json_integer(1));
	json_object_set_new(o, "lab", json_string(l->name));
	json_object_set_new(o, "title", json_string(l->title));
	json_object_set_new(o, "file", json_string(l->path));
	json_object_set_new(o, "student", json_string(lab_student()));
	json_object_set_new(o, "host", json_string(host));
	json_object_set_new(o, "mode", json_string(b->mode));
	json_object_set_new(o, "variants", vars);
	json_object_set_new(o, "started_unix", json_integer(b->start_unix));
	json_object_set_new(o, "duration_s", json_real(b->end_s));
	json_object_set_new(o, "checks", json_integer(sc.checks));
	json_object_set_new(o, "passed", json_integer(sc.passed));
	json_object_set_new(o, "failed", json_integer(sc.failed));
	json_object_set_new(o, "skipped", json_integer(sc.skipped));
	json_object_set_new(o, "points", json_integer(sc.points));
	json_object_set_new(o, "max_points", json_integer(sc.max_points));
	json_object_set_new(o, "student_points", json_integer(sc.student_points));
	json_object_set_new(o, "student_max", json_integer(sc.student_max));
	json_object_set_new(o, "kit_points", json_integer(sc.kit_points));
	json_object_set_new(o, "kit_max", json_integer(sc.kit_max));
	json_object_set_new(o, "student_id_params", json_string(l->student ?
	    l->student : lab_student()));
	json_object_set_new(o, "step_errors", json_integer(b->nerrors));
	json_object_set_new(o, "predictions_right", json_integer(pright));
	json_object_set_new(o, "predictions", json_integer(pn));
	json_object_set_new(o, "results", res);
	json_object_set_new(o, "asked", pr);
	json_object_set_new(o, "ab", abs);
	json_object_set_new(o, "typed", typed);
	if (key != NULL && *key != '\0') {
		dump = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
		lab_mac(key, dump, strlen(dump), mac);
		free(dump);
		json_object_set_new(o, "mac", json_string(mac));
	}
	rc = json_dump_file(o, path, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
	json_decref(o);
	return rc == 0 ? 0 : -1;
}

/* ---- JUnit XML --------------------------------------------------------- */

/* One testsuite element. */
static void
junit_suite(FILE *f, const struct lab_book *b)
{
	const struct lab	*l = b->lab;
	struct lab_score	 sc;
	char			*e1, *e2, score[160], ts[32];
	struct tm		 tm;
	time_t			 t = b->start_unix;
	int			 i, j, n = 0;
	double			 prev = 0;

	book_score(b, &sc);
	score_line(&sc, score, sizeof score);
	gmtime_r(&t, &tm);
	strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%S", &tm);
	e1 = xml_escape(l->name);
	fprintf(f, " <testsuite name=\"%s\" tests=\"%d\" failures=\"%d\" "
	    "skipped=\"%d\" errors=\"%d\" time=\"%.3f\" timestamp=\"%s\">\n", e1,
	    sc.checks, sc.failed, sc.skipped, sc.notrun, b->end_s, ts);
	free(e1);
	e1 = xml_escape(l->title);
	e2 = xml_escape(lab_student());
	fprintf(f, "  <properties>\n"
	    "   <property name=\"title\" value=\"%s\"/>\n"
	    "   <property name=\"student\" value=\"%s\"/>\n"
	    "   <property name=\"mode\" value=\"%s\"/>\n"
	    "   <property name=\"variant\" value=\"%s\"/>\n"
	    "   <property name=\"score\" value=\"%s\"/>\n"
	    "   <property name=\"points\" value=\"%d\"/>\n"
	    "   <property name=\"max_points\" value=\"%d\"/>\n"
	    "  </properties>\n", e1, e2, b->mode, b->variant, score,
	    sc.points, sc.max_points);
	free(e1);
	free(e2);
	for (i = 0; i < l->nsteps; i++)
		for (j = 0; j < l->steps[i].nacts; j++) {
			const struct lact	*a = &l->steps[i].acts[j];
			const struct lres	*r = &b->res[n];
			char			 cls[160];

			if (a->kind != LA_CHECK)
				continue;
			snprintf(cls, sizeof cls, "%s.%s", l->name, l->steps[i].id);
			e1 = xml_escape(cls);
			e2 = xml_escape(a->check.cond ? a->check.cond->text : "");
			fprintf(f, "  <testcase classname=\"%s\" name=\"%s\" time=\"%.3f\"",
			    e1, e2, b->have[n] ? b->at_s[n] - prev : 0);
			if (b->have[n])
				prev = b->at_s[n];
			free(e1);
			free(e2);
			if (!b->have[n]) {
				fprintf(f, ">\n   <error message=\"not run\"/>\n  </testcase>\n");
			} else if (r->state == LR_PASS) {
				fprintf(f, "/>\n");
			} else if (r->state == LR_SKIP) {
				e1 = xml_escape(r->msg);
				fprintf(f, ">\n   <skipped message=\"%s\"/>\n  </testcase>\n", e1);
				free(e1);
			} else {
				e1 = xml_escape(r->msg);
				e2 = xml_escape(a->check.hint ? a->check.hint : "");
				fprintf(f, ">\n   <failure message=\"%s\">%s%s</failure>\n"
				    "  </testcase>\n", e1, a->check.hint ? "hint: " : "", e2);
				free(e1);
				free(e2);
			}
			n++;
		}
	fprintf(f, " </testsuite>\n");
}

/* The testsuites element's start, with the totals of its suites. */
static void
junit_head(FILE *f, const struct junit_sum *t)
{
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	    "<testsuites name=\"umkit labs\" tests=\"%d\" failures=\"%d\" "
	    "skipped=\"%d\" errors=\"%d\" time=\"%.3f\">\n", t->tests, t->fails,
	    t->skips, t->errs, t->time);
}

/* A book's totals added to t. */
static void
junit_add(struct junit_sum *t, const struct lab_book *b)
{
	struct lab_score	sc;

	book_score(b, &sc);
	t->tests += sc.checks;
	t->fails += sc.failed;
	t->skips += sc.skipped;
	t->errs += sc.notrun;
	t->time += b->end_s;
}

/* Write JUnit XML for n books. */
int
books_write_junit(struct lab_book *const *b, int n, const char *path)
{
	struct junit_sum	t = { 0 };
	struct afile		af;
	FILE			*f;
	int			 i;

	if ((f = afile_open(&af, path, 0644)) == NULL)
		return -1;
	for (i = 0; i < n; i++)
		junit_add(&t, b[i]);
	junit_head(f, &t);
	for (i = 0; i < n; i++)
		junit_suite(f, b[i]);
	fprintf(f, "</testsuites>\n");
	return afile_commit(&af);
}

/* A book's JUnit part: its totals on the first line, then its testsuite. */
void
book_junit_part(FILE *f, const struct lab_book *b)
{
	struct junit_sum	t = { 0 };

	junit_add(&t, b);
	fprintf(f, "%d %d %d %d %.3f\n", t.tests, t.fails, t.skips, t.errs, t.time);
	junit_suite(f, b);
}

/* Write JUnit XML from n parts (NULL: none), each read from its start. */
int
junit_join(FILE *const *parts, int n, const char *path)
{
	struct junit_sum	t = { 0 }, one;
	struct afile		af;
	FILE			*f;
	char			 buf[8192];
	size_t			 k;
	int			 i;

	for (i = 0; i < n; i++) {
		if (parts[i] == NULL)
			continue;
		rewind(parts[i]);
		if (fscanf(parts[i], "%d %d %d %d %lf\n", &one.tests, &one.fails,
		    &one.skips, &one.errs, &one.time) != 5) {
			errno = EINVAL;
			return -1;
		}
		t.tests += one.tests;
		t.fails += one.fails;
		t.skips += one.skips;
		t.errs += one.errs;
		t.time += one.time;
	}
	if ((f = afile_open(&af, path, 0644)) == NULL)
		return -1;
	junit_head(f, &t);
	for (i = 0; i < n; i++) {
		if (parts[i] == NULL)
			continue;
		rewind(parts[i]);
		if (fgets(buf, sizeof buf, parts[i]) == NULL)
			continue;
		while ((k = fread(buf, 1, sizeof buf, parts[i])) > 0)
			fwrite(buf, 1, k, f);
	}
	fprintf(f, "</testsuites>\n");
	return afile_commit(&af);
}

/* ---- the classroom report ---------------------------------------------- */

struct rrow {
	const char	*file;
	json_t		*j;
	const char	*mac;		/* "ok", "BAD", "none"; NULL: no key */
};

/* a < b: -1, a == b: 0, a > b: 1. */
static int
cmp_ll(long long a, long long b)
{
	return a < b ? -1 : a > b;
}

/* Compare rows by lab, then student, then start time. */
static int
row_cmp(const void *x, const void *y)
{
	const struct rrow	*a = x, *b = y;
	int			 c;

	c = strcmp(json_string_value(json_object_get(a->j, "lab")),
	    json_string_value(json_object_get(b->j, "lab")));
	if (c == 0)
		c = strcmp(json_string_value(json_object_get(a->j, "student")),
		    json_string_value(json_object_get(b->j, "student")));
	if (c == 0)
		c = cmp_ll(json_integer_value(json_object_get(a->j, "started_unix")),
		    json_integer_value(json_object_get(b->j, "started_unix")));
	return c;
}

/* Whether a result file has the fields the report needs. */
static bool
result_ok(json_t *j)
{
	return json_is_object(j) && json_is_integer(json_object_get(j, "umkit_lab_result")) &&
	    json_is_string(json_object_get(j, "lab")) &&
	    json_is_string(json_object_get(j, "student")) &&
	    json_is_array(json_object_get(j, "results")) &&
	    json_is_integer(json_object_get(j, "checks"));
}

/* One state as a mark in the table. */
static const char *
state_mark(const char *st)
{
	return strcmp(st, "pass") == 0 ? "+" : strcmp(st, "fail") == 0 ? "x" :
	    strcmp(st, "skip") == 0 ? "s" : ".";
}

/* Text for the terminal, padded to width: at most 200 bytes, controls as ?. */
static void
tty_text(FILE *f, const char *s, int width)
{
	int	n = 0;

	for (; *s != '\0' && n < 200; s++, n++)
		fputc((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s, f);
	for (; n < width; n++)
		fputc(' ', f);
}

/*
 * A CSV text field, always quoted ('"' doubled); one that a spreadsheet
 * would take for a formula (= + - @, a tab or CR first) gets a ' first.
 */
static void
csv_text(FILE *f, const char *s, bool last)
{
	fputc('"', f);
	if (strchr("=+-@\t\r", *s) != NULL && *s != '\0')
		fputc('\'', f);
	for (; *s != '\0'; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
	fputc(last ? '\n' : ',', f);
}

/* An integer of a result; a file from before the student/kit split
 * counts every point as the kit's. */
static long long
rint_of(json_t *j, const char *key)
{
	json_t	*v = json_object_get(j, key);

	if (v == NULL && strcmp(key, "kit_points") == 0)
		v = json_object_get(j, "points");
	else if (v == NULL && strcmp(key, "kit_max") == 0)
		v = json_object_get(j, "max_points");
	return json_integer_value(v);
}

/* A CSV number field, quoted like the others. */
static void
csv_int(FILE *f, json_t *j, const char *key)
{
	fprintf(f, "\"%lld\",", rint_of(j, key));
}

/* Print one lab's rows [from, to) and write its CSV. */
static int
report_lab(struct rrow *r, int from, int to, const char *csv_dir, FILE *out)
{
	const char	*lab = json_string_value(json_object_get(r[from].j, "lab"));
	json_t		*j, *res, *c;
	FILE		*csv = NULL;
	char		*path = NULL;
	const char	*st;
	size_t		 k, n = json_array_size(json_object_get(r[from].j, "results"));
	int		 i;

	fprintf(out, "lab %s: ", lab);
	tty_text(out, json_string_value(json_object_get(r[from].j, "title")) ?: "", 0);
	fprintf(out, " (%zu checks, %lld points), %d result%s\n", n,
	    json_integer_value(json_object_get(r[from].j, "max_points")),
	    to - from, to - from == 1 ? "" : "s");
	fprintf(out, "  %-16s %-7s %-9s %-9s %-9s %-11s %-7s %s%s\n", "student",
	    "passed", "points", "yours", "kit's", "predictions", "time",
	    r[from].mac ? "mac   " : "",
	    "checks (+ pass, x fail, s skip, . not run)");
	if (csv_dir != NULL) {
		mkdir(csv_dir, 0755);
		path = xasprintf("%s/%s.csv", csv_dir, lab);
		if ((csv = fopen(path, "w")) == NULL) {
			warnmsg("%s: %s", path, strerror(errno));
			free(path);
			return 2;
		}
		fprintf(csv, "student,file,mode,started_unix,passed,checks,points,"
		    "max_points,student_points,student_max,kit_points,kit_max,"
		    "predictions_right,predictions,mac,duration_s");
		for (k = 0; k < n; k++)
			fprintf(csv, ",check%zu", k + 1);
		fputc('\n', csv);
	}
	for (i = from; i < to; i++) {
		j = r[i].j;
		res = json_object_get(j, "results");
		fputs("  ", out);
		tty_text(out, json_string_value(json_object_get(j, "student")), 16);
		fprintf(out, " %3lld/%-3lld %4lld/%-4lld %4lld/%-4lld %4lld/%-4lld "
		    "%4lld/%-6lld %5.0fs  ",
		    json_integer_value(json_object_get(j, "passed")),
		    json_integer_value(json_object_get(j, "checks")),
		    json_integer_value(json_object_get(j, "points")),
		    json_integer_value(json_object_get(j, "max_points")),
		    rint_of(j, "student_points"), rint_of(j, "student_max"),
		    rint_of(j, "kit_points"), rint_of(j, "kit_max"),
		    json_integer_value(json_object_get(j, "predictions_right")),
		    json_integer_value(json_object_get(j, "predictions")),
		    json_number_value(json_object_get(j, "duration_s")));
		if (r[i].mac != NULL)
			fprintf(out, "%-6s", r[i].mac);
		for (k = 0; k < json_array_size(res); k++) {
			c = json_array_get(res, k);
			fputs(state_mark(json_string_value(json_object_get(c, "state")) ?: ""), out);
		}
		fputc('\n', out);
		if (csv == NULL)
			continue;
		csv_text(csv, json_string_value(json_object_get(j, "student")), false);
		csv_text(csv, r[i].file, false);
		csv_text(csv, json_string_value(json_object_get(j, "mode")) ?: "", false);
		csv_int(csv, j, "started_unix");
		csv_int(csv, j, "passed");
		csv_int(csv, j, "checks");
		csv_int(csv, j, "points");
		csv_int(csv, j, "max_points");
		csv_int(csv, j, "student_points");
		csv_int(csv, j, "student_max");
		csv_int(csv, j, "kit_points");
		csv_int(csv, j, "kit_max");
		csv_int(csv, j, "predictions_right");
		csv_int(csv, j, "predictions");
		csv_text(csv, r[i].mac ? r[i].mac : "", false);
		fprintf(csv, "\"%.1f\"%s", json_number_value(json_object_get(j,
		    "duration_s")), n > 0 ? "," : "\n");
		for (k = 0; k < n; k++) {
			c = json_array_get(res, k);
			st = c != NULL ? json_string_value(json_object_get(c, "state")) : NULL;
			csv_text(csv, st != NULL ? st : "", k + 1 == n);
		}
	}
	if (csv != NULL) {
		if (fclose(csv) != 0)
			warnmsg("%s: %s", path, strerror(errno));
		else
			fprintf(out, "  (csv: %s)\n", path);
		free(path);
	}
	return 0;
}

/* Merge result files' texts. */
int
lab_report_texts(char *const *names, char *const *texts, const size_t *lens,
    int n, const char *csv_dir, FILE *out)
{
	struct rrow	*r = xcalloc(n ? n : 1, sizeof *r);
	json_error_t	 je;
	const char	*key = getenv("UMKIT_GRADE_KEY");
	int		 i, from, rc = 0, bad = 0;

	for (i = 0; i < n; i++) {
		r[i].file = names[i];
		if (key != NULL && *key != '\0' && texts[i] != NULL) {
			int	m = lab_result_mac_ok(texts[i], lens[i], key);

			r[i].mac = m == 1 ? "ok" : strstr(texts[i], "\"mac\"") ?
			    "BAD" : "none";
			if (m != 1)
				bad++;
		}
		r[i].j = texts[i] == NULL ? NULL :
		    json_loadb(texts[i], lens[i], 0, &je);
		if (texts[i] == NULL) {
			rc = 2;
		} else if (r[i].j == NULL) {
			warnmsg("%s:%d: not a JSON result file: %s", names[i],
			    je.line, je.text);
			rc = 2;
		} else if (!result_ok(r[i].j)) {
			warnmsg("%s: not an umkit lab result (no umkit_lab_result, "
			    "lab, student, checks and results)", names[i]);
			rc = 2;
		} else if (!lab_name_ok(json_string_value(json_object_get(r[i].j,
		    "lab")))) {
			warnmsg("%s: its lab is not a plain name ([A-Za-z0-9._-], "
			    "at most 63, not starting with '.')", names[i]);
			rc = 2;
		}
	}
	if (rc == 0) {
		qsort(r, n, sizeof *r, row_cmp);
		for (from = 0; from < n && rc == 0; from = i) {
			for (i = from + 1; i < n &&
			    strcmp(json_string_value(json_object_get(r[i].j, "lab")),
			    json_string_value(json_object_get(r[from].j, "lab"))) == 0; i++)
				;
			rc = report_lab(r, from, i, csv_dir, out);
		}
		if (bad > 0)
			fprintf(out, "%d result file%s without a MAC that matches "
			    "UMKIT_GRADE_KEY (mac BAD: changed after the run, or made "
			    "with another key; none: made without a key)\n", bad,
			    bad == 1 ? "" : "s");
	}
	for (i = 0; i < n; i++)
		json_decref(r[i].j);
	free(r);
	return rc;
}

/* Merge result files. */
int
lab_report(char **files, int nfiles, const char *csv_dir, FILE *out)
{
	char	**texts = xcalloc(nfiles ? nfiles : 1, sizeof *texts);
	size_t	 *lens = xcalloc(nfiles ? nfiles : 1, sizeof *lens);
	int	  i, fd, rc;

	for (i = 0; i < nfiles; i++) {
		if ((fd = open(files[i], O_RDONLY | O_CLOEXEC)) < 0) {
			warnmsg("%s: %s", files[i], strerror(errno));
			continue;
		}
		texts[i] = read_fd_all(fd, LAB_RESULT_MAX, &lens[i]);
		if (texts[i] == NULL)
			warnmsg("%s: %s", files[i], errno == EFBIG ? "larger than "
			    "a result file can be" : strerror(errno));
		close(fd);
	}
	rc = lab_report_texts(files, texts, lens, nfiles, csv_dir, out);
	for (i = 0; i < nfiles; i++)
		free(texts[i]);
	free(texts);
	free(lens);
	return rc;
}

/* Whether a result file's MAC matches under key. */
int
lab_result_mac_ok(const char *text, size_t len, const char *key)
{
	json_t		*o = json_loadb(text, len, 0, NULL);
	const char	*m;
	char		 want[LAB_MAC_HEX + 1], *dump;
	int		 ok;

	if (o == NULL || !json_is_object(o)) {
		json_decref(o);
		return -1;
	}
	if ((m = json_string_value(json_object_get(o, "mac"))) == NULL) {
		json_decref(o);
		return 0;
	}
	m = strdupa(m);
	json_object_del(o, "mac");
	dump = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(o);
	if (dump == NULL)
		return 0;
	lab_mac(key, dump, strlen(dump), want);
	free(dump);
	ok = strlen(m) == LAB_MAC_HEX && strcmp(m, want) == 0;
	return ok;
}
