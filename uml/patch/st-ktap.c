/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * st-ktap.c - a selftest's output read (its KTAP subtests, the line that
 * says why), a run written as KTAP, and base compared with patched
 * (selftests.h).  No guests here: the unit test and the fuzzer link it.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "selftests.h"
#include "util.h"

/* Whether line (n bytes) starts with "ok " or "not ok " after blanks;
 * the subtest's result and where its number starts. */
static int
sub_line(const char *p, size_t n, int *ok, size_t *at)
{
	size_t	i = 0;

	while (i < n && (p[i] == ' ' || p[i] == '\t'))
		i++;
	if (n - i >= 3 && memcmp(p + i, "ok ", 3) == 0) {
		*ok = 1;
		*at = i + 3;
		return 1;
	}
	if (n - i >= 7 && memcmp(p + i, "not ok ", 7) == 0) {
		*ok = 0;
		*at = i + 7;
		return 1;
	}
	return 0;
}

/* Copy at most n bytes of p into out (size outn), controls as '?'. */
static void
clean_copy(char *out, size_t outn, const char *p, size_t n)
{
	size_t	i;

	if (n >= outn)
		n = outn - 1;
	for (i = 0; i < n; i++)
		out[i] = (unsigned char)p[i] < 0x20 || p[i] == 0x7f ? '?' : p[i];
	out[n] = '\0';
}

/* A test's subtests and reason from its output (selftests.h). */
void
st_parse(const char *text, size_t len, struct st_test *t)
{
	const char	*p = text, *end = text + len, *skipline = NULL,
			*lastline = NULL, *firstfail = NULL, *bail = NULL;
	size_t		 skipn = 0, lastn = 0, failn = 0, bailn = 0;

	free(t->subs);
	t->subs = NULL;
	t->nsubs = t->nfailed = 0;
	t->reason[0] = '\0';
	while (p < end) {
		const char	*nl = memchr(p, '\n', (size_t)(end - p));
		size_t		 n = nl ? (size_t)(nl - p) : (size_t)(end - p), at, d;
		int		 ok;

		if (n > 0 && p[n - 1] == '\r')
			n--;
		if (n > 0) {
			lastline = p;
			lastn = n;
		}
		/* kselftest's "Bail out!", or an "ERROR:" line: why it stopped */
		if (bail == NULL && ((n >= 9 && memcmp(p, "Bail out!", 9) == 0) ||
		    (n >= 8 && memcmp(p, "# ERROR:", 8) == 0))) {
			bail = p;
			bailn = n;
		}
		if (memmem(p, n, "SKIP", 4) != NULL) {
			skipline = p;
			skipn = n;
		}
		if (sub_line(p, n, &ok, &at)) {
			const char	*dir;
			struct st_sub	*s;

			/* the number, then the description up to " # " */
			while (at < n && p[at] >= '0' && p[at] <= '9')
				at++;
			while (at < n && (p[at] == ' ' || p[at] == '-'))
				at++;
			/* "ok 1 # XFAIL x": no description, a directive */
			if (n - at >= 1 && p[at] == '#')
				dir = p + at;
			else
				dir = memmem(p + at, n - at, " # ", 3);
			d = dir ? (size_t)(dir - (p + at)) : n - at;
			if (t->nsubs < ST_MAX_SUBS) {
				if (t->subs == NULL)
					t->subs = xcalloc(ST_MAX_SUBS, sizeof *t->subs);
				s = &t->subs[t->nsubs++];
				clean_copy(s->desc, sizeof s->desc, p + at, d);
				s->result = ok;
				if (ok && dir && memmem(dir, n - (size_t)(dir - p), "SKIP", 4))
					s->result = 2;
			}
			if (!ok) {
				t->nfailed++;
				if (firstfail == NULL) {
					firstfail = p;
					failn = n;
				}
			}
		}
		p = nl ? nl + 1 : end;
	}
	if (t->status == ST_SKIP && skipline != NULL) {
		/* "1..0 # SKIP why", "ok 1 # SKIP why": the why */
		const char	*w = memmem(skipline, skipn, "SKIP", 4) + 4;
		size_t		 wn = skipn - (size_t)(w - skipline);

		while (wn > 0 && (*w == ' ' || *w == ':')) {
			w++;
			wn--;
		}
		clean_copy(t->reason, sizeof t->reason, wn ? w : skipline, wn ? wn : skipn);
	}
	else if (t->status != ST_PASS && t->status != ST_SKIP && firstfail != NULL)
		clean_copy(t->reason, sizeof t->reason, firstfail, failn);
	else if (t->status != ST_PASS && t->status != ST_SKIP && bail != NULL)
		clean_copy(t->reason, sizeof t->reason, bail, bailn);
	else if (t->status != ST_PASS && lastline != NULL)
		clean_copy(t->reason, sizeof t->reason, lastline, lastn);
	/* "# SKIP why", "not ok 3 x": without the leading blanks and '#' */
	{
		char	*r = t->reason;
		size_t	 k = strspn(r, " \t#");

		memmove(r, r + k, strlen(r + k) + 1);
	}
}

/*
 * The KUnit results a +debug guest printed: "=== SUITE" then the suite's
 * debugfs results (its KTAP: cases indented, the suite's own line last),
 * each suite a test of run (selftests.h).
 */
void
st_kunit_parse(const char *text, size_t len, struct st_run *run)
{
	const char	*p = text, *end = text + len;

	memset(run, 0, sizeof *run);
	run->v = xcalloc(ST_MAX_TESTS, sizeof *run->v);
	while (p < end) {
		const char	*nl = memchr(p, '\n', (size_t)(end - p)), *q, *sect;
		size_t		 n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		struct st_test	*t;
		int		 ok = -1, skip = 0;

		if (n < 5 || memcmp(p, "=== ", 4) != 0 || run->n >= ST_MAX_TESTS) {
			p = nl ? nl + 1 : end;
			continue;
		}
		t = &run->v[run->n++];
		clean_copy(t->name, sizeof t->name, p + 4, n - 4);
		/* the section: up to the next "=== " line */
		sect = q = nl ? nl + 1 : end;
		while (q < end && !(end - q >= 4 && memcmp(q, "=== ", 4) == 0)) {
			const char	*e = memchr(q, '\n', (size_t)(end - q));
			size_t		 m = e ? (size_t)(e - q) : (size_t)(end - q);

			/* the suite's own result: a line not indented */
			if (m >= 3 && memcmp(q, "ok ", 3) == 0) {
				ok = 1;
				skip = memmem(q, m, "# SKIP", 6) != NULL;
			} else if (m >= 7 && memcmp(q, "not ok ", 7) == 0)
				ok = 0;
			q = e ? e + 1 : end;
		}
		t->status = ok == 1 ? (skip ? ST_SKIP : ST_PASS) : ST_FAIL;
		t->code = ok == 1 ? 0 : 1;
		st_parse(sect, (size_t)(q - sect), t);
		/* the suite's own line is not one of its cases */
		if (ok != -1 && t->nsubs > 0 && t->nsubs < ST_MAX_SUBS) {
			t->nsubs--;
			if (ok == 0)
				t->nfailed--;
		}
		if (ok == -1)
			snprintf(t->reason, sizeof t->reason, "no result line for the suite");
		p = q;
	}
}

/* A status in a word. */
const char *
st_status_name(enum st_status s)
{
	static const char *const names[] = {
		[ST_PASS] = "pass", [ST_FAIL] = "fail", [ST_SKIP] = "skip",
		[ST_TIMEOUT] = "timeout", [ST_PANIC] = "panic", [ST_ERROR] = "error",
	};

	return names[s];
}

/* The run as KTAP. */
void
st_ktap(const struct st_run *run, FILE *f)
{
	int	i, k;

	fprintf(f, "KTAP version 1\n1..%d\n", run->n);
	for (i = 0; i < run->n; i++) {
		const struct st_test	*t = &run->v[i];

		for (k = 0; k < t->nsubs; k++)
			if (t->subs[k].result == 0)
				fprintf(f, "# %s: not ok: %s\n", t->name, t->subs[k].desc);
		if (t->status == ST_PASS)
			fprintf(f, "ok %d %s\n", i + 1, t->name);
		else if (t->status == ST_SKIP)
			fprintf(f, "ok %d %s # SKIP %s\n", i + 1, t->name,
			    t->reason[0] ? t->reason : "(no reason printed)");
		else
			fprintf(f, "not ok %d %s # %s, exit %d%s%s\n", i + 1, t->name,
			    st_status_name(t->status), t->code, t->reason[0] ? ": " : "",
			    t->reason);
	}
}

/* Pass, fail and skip counts. */
void
st_counts(const struct st_run *run, int *pass, int *fail, int *skip)
{
	int	i;

	*pass = *fail = *skip = 0;
	for (i = 0; i < run->n; i++) {
		if (run->v[i].status == ST_PASS)
			(*pass)++;
		else if (run->v[i].status == ST_SKIP)
			(*skip)++;
		else
			(*fail)++;
	}
}

/* The test of run named name, or NULL. */
static const struct st_test *
find_test(const struct st_run *run, const char *name)
{
	int	i;

	for (i = 0; i < run->n; i++)
		if (strcmp(run->v[i].name, name) == 0)
			return &run->v[i];
	return NULL;
}

/* How many subtests of t have description desc and result result. */
static int
sub_count(const struct st_test *t, const char *desc, int result)
{
	int	k, n = 0;

	for (k = 0; k < t->nsubs; k++)
		if (t->subs[k].result == result && strcmp(t->subs[k].desc, desc) == 0)
			n++;
	return n;
}

/* Whether subtest k of t is the first failing one with its description. */
static int
first_failing(const struct st_test *t, int k)
{
	int	j;

	for (j = 0; j < k; j++)
		if (t->subs[j].result == 0 && strcmp(t->subs[j].desc, t->subs[k].desc) == 0)
			return 0;
	return 1;
}

/* Base against patched (selftests.h). */
int
st_compare(const struct st_run *base, const struct st_run *patched, FILE *f)
{
	int	i, k, reg = 0;

	for (i = 0; i < patched->n; i++) {
		const struct st_test	*p = &patched->v[i];
		const struct st_test	*b = find_test(base, p->name);
		int			 bad = p->status != ST_PASS && p->status != ST_SKIP;

		if (b == NULL)
			continue;
		if (b->status == ST_PASS && bad) {
			fprintf(f, "  %s: passes on base, %s patched%s%s\n", p->name,
			    st_status_name(p->status), p->reason[0] ? ": " : "", p->reason);
			reg++;
		} else if (bad && b->status != ST_PASS && b->status != ST_SKIP) {
			fprintf(f, "  %s: %s patched, and on base too (%s): not the patch's\n",
			    p->name, st_status_name(p->status), st_status_name(b->status));
		} else if (b->status != p->status) {
			fprintf(f, "  %s: %s on base, %s patched\n", p->name,
			    st_status_name(b->status), st_status_name(p->status));
		}
		/* per subtest description: more failing patched than on base,
		 * and passing there */
		for (k = 0; k < p->nsubs; k++) {
			const char	*d = p->subs[k].desc;

			if (p->subs[k].result != 0 || !first_failing(p, k) ||
			    sub_count(p, d, 0) <= sub_count(b, d, 0) || sub_count(b, d, 1) == 0)
				continue;
			fprintf(f, "  %s: subtest passes on base, fails patched: %s\n",
			    p->name, p->subs[k].desc);
			if (b->status != ST_PASS || !bad)
				reg++;	/* counted once with its test otherwise */
		}
	}
	return reg;
}

/* Free a run. */
void
st_free(struct st_run *run)
{
	int	i;

	for (i = 0; i < run->n; i++)
		free(run->v[i].subs);
	free(run->v);
	memset(run, 0, sizeof *run);
}
