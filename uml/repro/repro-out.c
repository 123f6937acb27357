/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * repro-out.c - the guest's "repro:" lines into samples, and the
 * statistics of a seed's table (repro.h).  Everything here reads
 * untrusted bytes or works on what they gave: no process, no file.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "patch/stats.h"
#include "repro.h"
#include "util.h"

/* The seed called id: "002", "02" or "2". */
const struct repro_seed *
repro_find(const char *id)
{
	const struct repro_seed	*s;
	char			*e;
	long			 n;

	if (id[0] == '\0' || strspn(id, "0123456789") != strlen(id) || strlen(id) > 3)
		return NULL;
	n = strtol(id, &e, 10);
	for (s = repro_seeds; s->id != NULL; s++)
		if (atoi(s->id) == n)
			return s;
	return NULL;
}

void
repro_data_init(struct repro_data *d, const struct repro_seed *s)
{
	memset(d, 0, sizeof *d);
	d->s = s;
}

void
repro_data_free(struct repro_data *d)
{
	int	r, c;

	for (r = 0; r < REPRO_MAX_ROWS; r++)
		for (c = 0; c < REPRO_MAX_COLS; c++)
			free(d->v[r][c]);
	for (r = 0; r < d->ninfo; r++)
		free(d->info[r]);
	free(d->host);
	free(d->from);
	memset(d, 0, sizeof *d);
}

/* The length of the name at p ([a-z0-9_], 1 to REPRO_NAME_MAX), or 0. */
static size_t
name_len(const char *p)
{
	size_t	n = strspn(p, "abcdefghijklmnopqrstuvwxyz0123456789_");

	return n <= REPRO_NAME_MAX ? n : 0;
}

/* Column index of the n-byte name p in s, or -1. */
static int
col_of(const struct repro_seed *s, const char *p, size_t n)
{
	int	c;

	for (c = 0; c < REPRO_MAX_COLS && s->col[c] != NULL; c++)
		if (strlen(s->col[c]) == n && memcmp(s->col[c], p, n) == 0)
			return c;
	return -1;
}

/* One sample of row r, column c. */
static void
add(struct repro_data *d, int r, int c, double v)
{
	if (d->n[r][c] == REPRO_MAX_SAMPLES) {
		d->refused++;
		return;
	}
	if (d->v[r][c] == NULL)
		d->v[r][c] = xcalloc(REPRO_MAX_SAMPLES, sizeof (double));
	d->v[r][c][d->n[r][c]++] = v;
}

/* "repro: COLUMN KEY=VALUE ..." of group g: the samples it gives. */
static int
result_line(struct repro_data *d, int g, const char *l)
{
	const struct repro_seed *s = d->s;
	const char	*p = l, *k;
	char		 num[64], *e;
	size_t		 n, kn, vn;
	double		 v;
	int		 c, r, added = 0, bad = 0, used;

	if ((n = name_len(p)) == 0 || (p[n] != ' ' && p[n] != '\0') ||
	    (c = col_of(s, p, n)) < 0) {
		d->refused++;
		return 0;
	}
	for (p += n; *p == ' '; p++)
		;
	while (*p != '\0') {
		k = p;
		kn = name_len(p);
		vn = kn > 0 && p[kn] == '=' ? strcspn(p + kn + 1, " ") : 0;
		if (vn == 0 || vn >= sizeof num) {
			bad = 1;
			break;
		}
		memcpy(num, p + kn + 1, vn);
		num[vn] = '\0';
		v = strtod(num, &e);
		p += kn + 1 + vn;
		while (*p == ' ')
			p++;
		if (*e != '\0' || !isfinite(v)) {
			bad = 1;
			continue;
		}
		used = 0;
		for (r = 0; r < REPRO_MAX_ROWS && s->row[r].name != NULL; r++)
			if (s->row[r].group == g && strlen(s->row[r].key) == kn &&
			    memcmp(s->row[r].key, k, kn) == 0) {
				add(d, r, c, v);
				used = 1;
			}
		added += used;
	}
	d->refused += bad;
	return added;
}

/* "repro-info: TEXT": kept once, printable, bounded. */
static void
info_line(struct repro_data *d, int g, const char *t)
{
	char	 buf[REPRO_INFO_LEN + 1];
	size_t	 i;
	int	 j;

	for (i = 0; i < REPRO_INFO_LEN && t[i] != '\0'; i++)
		buf[i] = isprint((unsigned char)t[i]) ? t[i] : '?';
	buf[i] = '\0';
	for (j = 0; j < d->ninfo; j++)
		if (d->info_g[j] == g && strcmp(d->info[j], buf) == 0)
			return;
	if (d->ninfo < REPRO_MAX_INFO) {
		d->info_g[d->ninfo] = g;
		d->info[d->ninfo++] = xstrdup(buf);
	}
}

/* The result lines of one boot of group g. */
int
repro_parse_out(struct repro_data *d, int g, char *out)
{
	char	*l, *nl;
	int	 added = 0;

	for (l = out; l != NULL && *l != '\0'; l = nl != NULL ? nl + 1 : NULL) {
		if ((nl = strchr(l, '\n')) != NULL)
			*nl = '\0';
		if (strncmp(l, "repro: ", 7) == 0)
			added += result_line(d, g, l + 7);
		else if (strncmp(l, "repro-info: ", 12) == 0)
			info_line(d, g, l + 12);
	}
	return added;
}

/* The number a thread's figure starts with, scaled by a k, M or G after it. */
double
repro_thread_value(const char *fig)
{
	char	*e;
	double	 v;

	if (fig == NULL)
		return NAN;
	v = strtod(fig, &e);
	if (e == fig || !isfinite(v))
		return NAN;
	switch (*e) {
	case 'k': return v * 1e3;
	case 'M': return v * 1e6;
	case 'G': return v * 1e9;
	}
	return v;
}

/* Each row's columns against column 0, then Holm over every comparison. */
void
repro_stats(const struct repro_data *d,
    struct repro_cmp cmp[REPRO_MAX_ROWS][REPRO_MAX_COLS])
{
	const struct repro_seed *s = d->s;
	double		 p[REPRO_MAX_ROWS * REPRO_MAX_COLS];
	int		 idx[REPRO_MAX_ROWS * REPRO_MAX_COLS];
	struct welch	 w;
	int		 r, c, np = 0;

	memset(cmp, 0, sizeof (struct repro_cmp) * REPRO_MAX_ROWS * REPRO_MAX_COLS);
	for (r = 0; r < REPRO_MAX_ROWS && s->row[r].name != NULL; r++)
		for (c = 1; c < REPRO_MAX_COLS && s->col[c] != NULL; c++) {
			struct repro_cmp *x = &cmp[r][c];
			int b = s->base[c] >= 0 && s->base[c] < c ? s->base[c] : 0;
			double t0 = repro_thread_value(s->row[r].thread[b]);
			double t1 = repro_thread_value(s->row[r].thread[c]);

			x->thread_pct = isnan(t0) || isnan(t1) || t0 == 0 ? NAN :
			    (t1 - t0) / fabs(t0) * 100;
			x->p = x->p_holm = 1;
			x->n[0] = d->n[r][b];
			x->n[1] = d->n[r][c];
			if (x->n[0] < 2 || x->n[1] < 2)
				continue;
			stats_welch(d->v[r][b], x->n[0], d->v[r][c], x->n[1], &w);
			x->ok = 1;
			x->mean[0] = w.mean[0];
			x->mean[1] = w.mean[1];
			x->sd[0] = w.sd[0];
			x->sd[1] = w.sd[1];
			x->change_pct = w.change_pct;
			x->ci_lo = w.ci_lo_pct;
			x->ci_hi = w.ci_hi_pct;
			x->p = w.p;
			x->beyond = fabs(w.mean[1] - w.mean[0]) >
			    (w.sd[0] > w.sd[1] ? w.sd[0] : w.sd[1]);
			if (!isnan(x->thread_pct) && x->thread_pct != 0 &&
			    w.mean[1] != w.mean[0])
				x->dir = (x->thread_pct > 0) == (w.mean[1] > w.mean[0]) ? 1 : -1;
			idx[np] = r * REPRO_MAX_COLS + c;
			p[np++] = w.p;
		}
	stats_holm(p, np, p);
	for (r = 0; r < np; r++)
		cmp[idx[r] / REPRO_MAX_COLS][idx[r] % REPRO_MAX_COLS].p_holm = p[r];
}
