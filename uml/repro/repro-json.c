/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * repro-json.c - a seed's run as JSON (umkit reproduce --json) and read
 * back (--from).  A stored run is untrusted: a file a colleague sent, or
 * one a lab step kept.  Only the samples and the run's facts are read;
 * the statistics are computed again, and the seed's rows, columns and
 * thread figures are this kit's, so a file must name them exactly as the
 * kit does.  Everything here works on memory: no process, no file.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "patch/stats.h"
#include "repro.h"
#include "util.h"

#define HOST_MAX	320	/* bytes of a host line read back (bench_host_id) */
#define BOOTS_MAX	100000
#define SECS_MAX	1e7

/* One seed as a JSON object. */
static json_t *
seed_json(const struct repro_data *d)
{
	const struct repro_seed *s = d->s;
	struct repro_cmp (*cmp)[REPRO_MAX_COLS] = xcalloc(REPRO_MAX_ROWS, sizeof *cmp);
	json_t		*o = json_object(), *rows = json_array(), *cols = json_array();
	json_t		*info = json_array();
	int		 r, c, i;

	repro_stats(d, cmp);
	for (c = 0; c < REPRO_MAX_COLS && s->col[c] != NULL; c++)
		json_array_append_new(cols, json_pack("{s:s, s:s?}", "name", s->col[c],
		    "thread", s->thread_col[c]));
	for (i = 0; i < d->ninfo; i++)
		json_array_append_new(info, json_pack("{s:i, s:i, s:s}", "group",
		    d->info_g[i], "cpus", s->boot[d->info_g[i]].cpus, "text", d->info[i]));
	for (r = 0; r < REPRO_MAX_ROWS && s->row[r].name != NULL; r++) {
		const struct repro_row *w = &s->row[r];
		json_t *rc = json_array();

		for (c = 0; c < REPRO_MAX_COLS && s->col[c] != NULL; c++) {
			const struct repro_cmp *x = &cmp[r][c];
			json_t *samples = json_array(), *e;
			double m = 0, sd = 0;

			for (i = 0; i < d->n[r][c]; i++)
				json_array_append_new(samples, json_real(d->v[r][c][i]));
			if (d->n[r][c] > 0)
				stats_mean_sd(d->v[r][c], d->n[r][c], &m, &sd);
			e = json_pack("{s:s, s:s?, s:i, s:f, s:f, s:o}", "column", s->col[c],
			    "thread", w->thread[c], "n", d->n[r][c], "mean", m, "sd", sd,
			    "samples", samples);
			if (c > 0)
				json_object_set_new(e, "against", json_string(s->col[s->base[c]]));
			if (c > 0 && x->ok) {
				json_object_set_new(e, "change_pct", json_real(x->change_pct));
				json_object_set_new(e, "ci_pct", json_pack("[f, f]", x->ci_lo,
				    x->ci_hi));
				json_object_set_new(e, "p", json_real(x->p));
				json_object_set_new(e, "p_holm", json_real(x->p_holm));
				json_object_set_new(e, "direction", json_string(x->dir > 0 ?
				    "same" : x->dir < 0 ? "opposite" : "none"));
				json_object_set_new(e, "beyond_spread", json_boolean(x->beyond));
			}
			if (c > 0 && !isnan(x->thread_pct))
				json_object_set_new(e, "thread_change_pct",
				    json_real(x->thread_pct));
			json_array_append_new(rc, e);
		}
		json_array_append_new(rows, json_pack("{s:s, s:s, s:s, s:b, s:s?, s:o}",
		    "name", w->name, "key", w->key, "unit", w->unit, "lower_better",
		    w->lower_better, "note", w->note, "columns", rc));
	}
	json_object_set_new(o, "format", json_integer(REPRO_JSON_FORMAT));
	json_object_set_new(o, "seed", json_string(s->id));
	json_object_set_new(o, "thread_file", json_string(s->file));
	json_object_set_new(o, "title", json_string(s->title));
	json_object_set_new(o, "thread_setup", json_string(s->thread_setup));
	json_object_set_new(o, "kit_setup", json_string(s->kit_setup));
	json_object_set_new(o, "variant", json_string(s->variant));
	json_object_set_new(o, "host", json_string(d->host != NULL ? d->host : "?"));
	json_object_set_new(o, "quick", json_boolean(d->quick));
	json_object_set_new(o, "boots", json_integer(d->boots));
	json_object_set_new(o, "secs", json_real(d->secs));
	json_object_set_new(o, "refused", json_integer(d->refused));
	json_object_set_new(o, "columns", cols);
	json_object_set_new(o, "info", info);
	json_object_set_new(o, "rows", rows);
	free(cmp);
	return o;
}

json_t *
repro_json(const struct repro_data *d, int nd)
{
	json_t	*a = json_array();
	int	 i;

	for (i = 0; i < nd; i++)
		json_array_append_new(a, seed_json(&d[i]));
	return a;
}

/* The error of a read: where in the file, then what (always -1). */
static int
bad(char *err, size_t len, const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -1;
}

/* s shown in a message: its first max (< 160) characters, others as '?'
 * (a static buffer). */
static const char *
shown(const char *s, size_t max)
{
	static char	buf[168];
	size_t		i;

	for (i = 0; i < max && s[i] != '\0'; i++)
		buf[i] = isprint((unsigned char)s[i]) ? s[i] : '?';
	strcpy(buf + i, s[i] != '\0' ? "..." : "");
	return buf;
}

/* A string of 1 to max bytes and no control character, or NULL. */
static const char *
text_of(json_t *v, size_t max)
{
	const char	*t = json_string_value(v);
	size_t		 i;

	if (t == NULL || t[0] == '\0' || strlen(t) > max ||
	    strlen(t) != json_string_length(v))
		return NULL;
	for (i = 0; t[i] != '\0'; i++)
		if ((unsigned char)t[i] < 0x20 || t[i] == 0x7f)
			return NULL;
	return t;
}

/* An integer member from lo to hi into *out; 0 or -1. */
static int
int_of(json_t *o, const char *key, long long lo, long long hi, long long *out)
{
	json_t	*v = json_object_get(o, key);

	if (!json_is_integer(v) || json_integer_value(v) < lo ||
	    json_integer_value(v) > hi)
		return -1;
	*out = json_integer_value(v);
	return 0;
}

/* The samples of row r, column c: an array of finite numbers. */
static int
load_samples(json_t *a, struct repro_data *d, int r, int c, const char *at,
    char *err, size_t len)
{
	json_t	*v;
	size_t	 i;

	if (!json_is_array(a))
		return bad(err, len, "%s: no \"samples\" array", at);
	if (json_array_size(a) > REPRO_MAX_SAMPLES)
		return bad(err, len, "%s: %zu samples, at most %d", at,
		    json_array_size(a), REPRO_MAX_SAMPLES);
	if (json_array_size(a) > 0)
		d->v[r][c] = xcalloc(json_array_size(a), sizeof (double));
	json_array_foreach(a, i, v) {
		if (!json_is_number(v) || !isfinite(json_number_value(v)))
			return bad(err, len, "%s: sample %zu is not a finite number",
			    at, i + 1);
		d->v[r][c][d->n[r][c]++] = json_number_value(v);
	}
	return 0;
}

/* The rows of seed d->s, each as the kit names it, in its order. */
static int
load_rows(json_t *rows, struct repro_data *d, const char *at, char *err,
    size_t len)
{
	const struct repro_seed *s = d->s;
	char		 where[192];
	json_t		*o, *cols, *co;
	size_t		 nr, nc, r, c;

	for (nr = 0; nr < REPRO_MAX_ROWS && s->row[nr].name != NULL; nr++)
		;
	for (nc = 0; nc < REPRO_MAX_COLS && s->col[nc] != NULL; nc++)
		;
	if (!json_is_array(rows) || json_array_size(rows) != nr)
		return bad(err, len, "%s: want \"rows\", the seed's %zu", at, nr);
	json_array_foreach(rows, r, o) {
		const char *name = json_string_value(json_object_get(o, "name"));
		const char *key = json_string_value(json_object_get(o, "key"));

		if (name == NULL || key == NULL || strcmp(name, s->row[r].name) != 0 ||
		    strcmp(key, s->row[r].key) != 0)
			return bad(err, len, "%s: row %zu is not the kit's '%s' (%s): the "
			    "file is another kit's, or changed", at, r + 1,
			    s->row[r].name, s->row[r].key);
		cols = json_object_get(o, "columns");
		if (!json_is_array(cols) || json_array_size(cols) != nc)
			return bad(err, len, "%s: row %zu: want \"columns\", the seed's %zu",
			    at, r + 1, nc);
		json_array_foreach(cols, c, co) {
			const char *col = json_string_value(json_object_get(co, "column"));

			snprintf(where, sizeof where, "%s: row %zu (%s), column %zu", at,
			    r + 1, s->row[r].key, c + 1);
			if (col == NULL || strcmp(col, s->col[c]) != 0)
				return bad(err, len, "%s: want the column '%s'", where,
				    s->col[c]);
			if (load_samples(json_object_get(co, "samples"), d, (int)r,
			    (int)c, where, err, len) < 0)
				return -1;
		}
	}
	return 0;
}

/* The run's context lines: each of one of the seed's boot groups. */
static int
load_info(json_t *info, struct repro_data *d, const char *at, char *err,
    size_t len)
{
	const struct repro_seed *s = d->s;
	const char	*t;
	long long	 g;
	json_t		*o;
	size_t		 i;
	int		 ng;

	for (ng = 0; ng < REPRO_MAX_GROUPS && s->boot[ng].cpus > 0; ng++)
		;
	if (!json_is_array(info) || json_array_size(info) > REPRO_MAX_INFO)
		return bad(err, len, "%s: want \"info\", at most %d lines", at,
		    REPRO_MAX_INFO);
	json_array_foreach(info, i, o) {
		if (int_of(o, "group", 0, ng - 1, &g) < 0)
			return bad(err, len, "%s: info %zu: want a \"group\" from 0 to %d",
			    at, i + 1, ng - 1);
		if ((t = text_of(json_object_get(o, "text"), REPRO_INFO_LEN)) == NULL)
			return bad(err, len, "%s: info %zu: want a \"text\" of 1 to %d "
			    "bytes, no control character", at, i + 1, REPRO_INFO_LEN);
		d->info_g[d->ninfo] = (int)g;
		d->info[d->ninfo++] = xstrdup(t);
	}
	return 0;
}

/* Entry k of the file (1-based) into d. */
static int
load_seed(json_t *o, int k, struct repro_data *d, char *err, size_t len)
{
	const struct repro_seed *s;
	const char	*id, *host;
	char		 at[48];
	long long	 v;
	json_t		*x;

	repro_data_init(d, NULL);
	snprintf(at, sizeof at, "entry %d", k);
	if (!json_is_object(o) || int_of(o, "format", REPRO_JSON_FORMAT,
	    REPRO_JSON_FORMAT, &v) < 0)
		return bad(err, len, "%s: not a seed of umkit reproduce --json "
		    "(\"format\": %d)", at, REPRO_JSON_FORMAT);
	id = json_string_value(json_object_get(o, "seed"));
	if (id == NULL || (s = repro_find(id)) == NULL || strcmp(s->id, id) != 0)
		return bad(err, len, "%s: no seed '%s' in this kit", at,
		    id != NULL ? shown(id, 24) : "");
	repro_data_init(d, s);
	snprintf(at, sizeof at, "entry %d (seed %s)", k, s->id);
	x = json_object_get(o, "quick");
	if (!json_is_boolean(x))
		return bad(err, len, "%s: want \"quick\": true or false", at);
	d->quick = json_is_true(x);
	if (int_of(o, "boots", 1, BOOTS_MAX, &v) < 0)
		return bad(err, len, "%s: want \"boots\" from 1 to %d", at, BOOTS_MAX);
	d->boots = (int)v;
	if (int_of(o, "refused", 0, 1 << 30, &v) < 0)
		return bad(err, len, "%s: want \"refused\", a count", at);
	d->refused = (int)v;
	x = json_object_get(o, "secs");
	if (!json_is_number(x) || !(json_number_value(x) >= 0 &&
	    json_number_value(x) <= SECS_MAX))
		return bad(err, len, "%s: want \"secs\", the run's seconds", at);
	d->secs = json_number_value(x);
	if ((host = text_of(json_object_get(o, "host"), HOST_MAX)) == NULL)
		return bad(err, len, "%s: want \"host\", 1 to %d bytes, no control character",
		    at, HOST_MAX);
	d->host = xstrdup(host);
	if (load_info(json_object_get(o, "info"), d, at, err, len) < 0)
		return -1;
	return load_rows(json_object_get(o, "rows"), d, at, err, len);
}

int
repro_json_parse(const char *buf, size_t n, struct repro_data *d, int max,
    char *err, size_t len)
{
	json_error_t	 je;
	json_t		*a, *o;
	size_t		 i;
	int		 k = 0;

	err[0] = '\0';
	if ((a = json_loadb(buf, n, JSON_REJECT_DUPLICATES, &je)) == NULL)
		return bad(err, len, "line %d: not JSON (%s)", je.line, shown(je.text, 159));
	if (!json_is_array(a) || json_array_size(a) == 0) {
		json_decref(a);
		return bad(err, len, "not umkit reproduce --json's array of seeds");
	}
	if (json_array_size(a) > (size_t)max) {
		bad(err, len, "%zu seeds, at most %d", json_array_size(a), max);
		json_decref(a);
		return -1;
	}
	json_array_foreach(a, i, o) {
		if (load_seed(o, (int)i + 1, &d[k], err, len) < 0) {
			repro_data_free(&d[k]);
			while (k > 0)
				repro_data_free(&d[--k]);
			json_decref(a);
			return -1;
		}
		k++;
	}
	json_decref(a);
	return k;
}
