/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cov-report.c - the per-hunk coverage report (cov.h) of a variant's
 * patches: umkit smoke --coverage and umkit compare --coverage.
 */
#define _GNU_SOURCE
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cov.h"
#include "util.h"

/* Counts shown per hunk before "...". */
#define COV_SHOW_COUNTS	8
/* Patches of one series the report reads. */
#define COV_MAX_PATCHES	256

/* The patches of dir's series (NNNN.patch), their texts and origins. */
static int
read_series(const char *dir, char **name, char **text, char **origin, int max)
{
	char	*f = xasprintf("%s/series", dir), *ser = read_text(f), *l, *nl;
	char	*src, *sl, *snl;
	int	 n = 0;

	free(f);
	f = xasprintf("%s/sources", dir);
	src = read_text(f);
	free(f);
	for (l = ser; l != NULL && *l != '\0' && n < max; l = nl ? nl + 1 : NULL) {
		if ((nl = strchr(l, '\n')) != NULL)
			*nl = '\0';
		if (*l == '#' || *l == '\0')
			continue;
		name[n] = xstrdup(l);
		f = xasprintf("%s/%s", dir, l);
		text[n] = read_text(f);
		free(f);
		origin[n] = NULL;
		/* sources: "NNNN.patch<TAB>origin<TAB>subject" */
		for (sl = src; sl != NULL && *sl != '\0'; sl = snl ? snl + 1 : NULL) {
			size_t	len = strlen(l);

			snl = strchr(sl, '\n');
			if (strncmp(sl, l, len) == 0 && sl[len] == '\t') {
				char	*o = sl + len + 1;
				size_t	 ol = strcspn(o, "\t\n");

				origin[n] = xasprintf("%.*s", (int)ol, o);
				break;
			}
		}
		n++;
	}
	free(ser);
	free(src);
	return n;
}

/* The report of one hunk: "mm/vmscan.c:12-14" into buf. */
static void
hunk_where(const struct cov_hunk *h, char *buf, size_t len)
{
	if (h->end > h->start)
		snprintf(buf, len, "%s:%d-%d", h->file, h->start, h->end);
	else
		snprintf(buf, len, "%s:%d", h->file, h->start);
}

/* The counts of hunk h's executable added lines, "1, 1, 1379". */
static void
hunk_counts(const struct cov *c, const struct cov_hunk *h, char *buf, size_t len)
{
	const struct cov_src	*src = cov_find(c, h->file);
	size_t			 o = 0;
	int			 i, n = 0;

	buf[0] = '\0';
	for (i = 0; src != NULL && i < h->nlines && o + 32 < len; i++) {
		int L = h->lines[i];

		if (L < 1 || L > src->nlines || src->count[L - 1] < 0)
			continue;
		if (n++ == COV_SHOW_COUNTS) {
			o += snprintf(buf + o, len - o, ", ...");
			break;
		}
		o += snprintf(buf + o, len - o, "%s%ld", n > 1 ? ", " : "",
		    src->count[L - 1]);
	}
}

/* The coverage as JSON: per hunk its lines and counts. */
static json_t *
cov_json(const struct cov *c, const struct cov_hunks *hs,
    const struct cov_hres *res, char **names, double build_s, double report_s)
{
	json_t	*o = json_object(), *arr = json_array();
	int	 i, k;

	for (i = 0; i < hs->n; i++) {
		const struct cov_hunk	*h = &hs->v[i];
		const struct cov_src	*src = cov_find(c, h->file);
		const struct cov_hres	*r = &res[i];
		json_t			*jh = json_object(), *jl = json_array();

		json_object_set_new(jh, "patch", json_string(names[h->patch]));
		json_object_set_new(jh, "file", json_string(h->file));
		json_object_set_new(jh, "start", json_integer(h->start));
		json_object_set_new(jh, "end", json_integer(h->end));
		json_object_set_new(jh, "measured", json_boolean(r->measured));
		json_object_set_new(jh, "executable", json_integer(r->exec));
		json_object_set_new(jh, "ran", json_integer(r->ran));
		for (k = 0; k < h->nlines; k++) {
			int	 L = h->lines[k];
			json_t	*jline = json_object();

			json_object_set_new(jline, "line", json_integer(L));
			/* null: not executable (or not measured) */
			json_object_set_new(jline, "count", src != NULL && L >= 1 &&
			    L <= src->nlines && src->count[L - 1] >= 0 ?
			    json_integer(src->count[L - 1]) : json_null());
			json_array_append_new(jl, jline);
		}
		json_object_set_new(jh, "lines", jl);
		json_array_append_new(arr, jh);
	}
	json_object_set_new(o, "guests", json_integer(c->nruns));
	json_object_set_new(o, "build_s", json_real(build_s));
	json_object_set_new(o, "report_s", json_real(report_s));
	json_object_set_new(o, "hunks", arr);
	return o;
}

/* Add the coverage to the --json file (the benchmarks' if it has them). */
static void
cov_json_write(const char *path, json_t *cov)
{
	json_t		*doc = access(path, F_OK) == 0 ? json_load_file(path, 0, NULL) :
			    NULL;
	struct afile	 af;

	if (doc == NULL)
		doc = json_object();
	json_object_set_new(doc, "coverage", cov);
	if (afile_open(&af, path, 0644) == NULL)
		fatal("cannot write %s", path);
	if (json_dumpf(doc, af.f, JSON_INDENT(1)) < 0) {
		afile_abort(&af);
		fatalx("cannot write %s", path);
	}
	if (afile_commit(&af) < 0)
		fatal("cannot write %s", path);
	json_decref(doc);
}


/* Load the counters, judge every hunk of pdir's series, print, report. */
int
cov_report(const struct cov_req *q, struct cov_sum *sum, char **props,
    int maxprops, int *nprops, char *err, size_t errlen)
{
	char		*name[COV_MAX_PATCHES], *text[COV_MAX_PATCHES];
	char		*origin[COV_MAX_PATCHES], where[512], counts[256];
	long long	 t1 = now_ms();
	struct cov	 c;
	struct cov_hunks hs;
	struct cov_hres	*res;
	int		 i, np;

	memset(sum, 0, sizeof *sum);
	*nprops = 0;
	cov_init(&c);
	if (cov_load(&c, q->gcno, q->gcda, 0, err, errlen) < 0) {
		cov_free(&c);
		return -1;
	}
	sum->guests = c.nruns;
	np = read_series(q->pdir, name, text, origin, COV_MAX_PATCHES);
	cov_hunks(&hs, text, np);
	/* Each hunk judged once; the summary, the lines, the JSON read it. */
	res = xcalloc(hs.n ? hs.n : 1, sizeof *res);
	for (i = 0; i < hs.n; i++) {
		const struct cov_hres *r = &res[i];

		cov_judge(&c, &hs.v[i], &res[i]);
		if (!r->measured)
			sum->unmeasured++;
		else if (r->exec > 0) {
			sum->nhunks++;
			sum->exec += r->exec;
			sum->ran += r->ran;
			sum->dead += r->ran == 0;
		}
	}
	sum->report_s = (now_ms() - t1) / 1000.0;
	if (q->headline != NULL)
		q->headline(sum, q->arg);
	for (i = 0; i < hs.n; i++) {
		const struct cov_hunk	*h = &hs.v[i];
		const struct cov_hres	*r = &res[i];

		hunk_where(h, where, sizeof where);
		if (!r->measured)
			fprintf(q->out, "    not measured: %s in %s (not a profiled .c file)\n",
			    where, name[h->patch]);
		else if (r->exec == 0)
			fprintf(q->out, "    nothing executable: %s in %s (declarations, "
			    "comments or removed lines)\n", where, name[h->patch]);
		else if (r->ran == 0)
			fprintf(q->out, "    not exercised: %s in %s%s%s%s\n", where,
			    name[h->patch], origin[h->patch] ? " (" : "",
			    origin[h->patch] ? origin[h->patch] : "",
			    origin[h->patch] ? ")" : "");
		else {
			hunk_counts(&c, h, counts, sizeof counts);
			fprintf(q->out, "    ran: %s in %s: %d of %d lines (counts %s)\n",
			    where, name[h->patch], r->ran, r->exec, counts);
		}
	}
	/* Per patch, one line (a JUnit property). */
	for (i = 0; props != NULL && i < np && i < maxprops; i++) {
		int	 k, pe = 0, pr = 0, ph = 0, pd = 0;
		char	*nx = xstrdup("");

		for (k = 0; k < hs.n; k++) {
			const struct cov_hres *r = &res[k];

			if (hs.v[k].patch != i || !r->measured || r->exec == 0)
				continue;
			ph++, pe += r->exec, pr += r->ran;
			if (r->ran == 0) {
				char *t;

				hunk_where(&hs.v[k], where, sizeof where);
				pd++;
				t = xasprintf("%s%s%s", nx, *nx ? ", " : "", where);
				free(nx);
				nx = t;
			}
		}
		props[i] = xasprintf("%d of %d hunks ran (%d of %d lines)%s%s",
		    ph - pd, ph, pr, pe, pd ? "; not exercised: " : "", nx);
		free(nx);
		(*nprops)++;
	}
	if (q->json != NULL)
		cov_json_write(q->json, cov_json(&c, &hs, res, name, q->build_s,
		    sum->report_s));
	for (i = 0; i < np; i++) {
		free(name[i]);
		free(text[i]);
		free(origin[i]);
	}
	free(res);
	cov_hunks_free(&hs);
	cov_free(&c);
	return 0;
}
