/* SPDX-License-Identifier: GPL-2.0-only */
/* repro.c - a seed's boots, its table, KTAP and JSON (repro.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernel/kbuild.h"
#include "patch/bench.h"
#include "patch/stats.h"
#include "repro.h"
#include "util.h"

/* What the output callback needs: the data and each boot's group. */
struct run_ctx {
	struct repro_data	*d;
	const int		*group;
};

/* bench_boots()'s callback: boot i's lines into its group's rows. */
static void
run_out(int i, char *out, void *arg)
{
	struct run_ctx	*x = arg;
	int		 before = x->d->refused;

	if (repro_parse_out(x->d, x->group[i], out) == 0)
		warnmsg("reproduce %s: boot %d printed no result the seed reads",
		    x->d->s->id, i + 1);
	else if (x->d->refused > before)
		warnmsg("reproduce %s: boot %d: %d result line(s) or value(s) not "
		    "read (an unknown column, a bad name or number)", x->d->s->id,
		    i + 1, x->d->refused - before);
}

/* The boots, groups interleaved: g0 g1 ... g0 g1 ..., n rounds. */
int
repro_run(const struct repro_seed *s, int n, int quick, int jobs,
    struct repro_data *d)
{
	struct bench_boot *b;
	struct run_ctx	 x;
	char		*kernel, *script[REPRO_MAX_GROUPS], label[64], who[32];
	int		*group, ng, g, i, k, rc, fit;
	long long	 t0 = now_ms();

	repro_data_init(d, s);
	d->quick = quick;
	d->host = bench_host_id();
	if (n <= 0)
		n = quick ? s->quick_boots : s->boots;
	for (ng = 0; ng < REPRO_MAX_GROUPS && s->boot[ng].cpus > 0; ng++)
		;
	fit = repro_jobs(s, jobs, (int)sysconf(_SC_NPROCESSORS_ONLN));
	if (fit < jobs && n * ng > 1)
		fprintf(stderr, "reproduce %s: %d boot%s at a time (-j %d): each "
		    "guest CPU gets a host CPU of its own\n", s->id, fit,
		    fit > 1 ? "s" : "", fit);
	jobs = fit;
	kernel = kbuild_kernel(s->variant);
	b = xcalloc((size_t)n * ng, sizeof *b);
	group = xcalloc((size_t)n * ng, sizeof *group);
	for (g = 0; g < ng; g++) {
		const char *a = quick ? s->boot[g].quick_args : s->boot[g].args;

		script[g] = xasprintf("exec %s %s", s->script, a != NULL ? a : "");
	}
	snprintf(label, sizeof label, "seed %s", s->id);
	for (i = 0, k = 0; i < n; i++)
		for (g = 0; g < ng; g++, k++) {
			b[k].kernel = kernel;
			b[k].script = script[g];
			b[k].label = label;
			b[k].cpus = s->boot[g].cpus;
			b[k].mem_mb = s->mem_mb;
			b[k].disk = s->disk;
			b[k].timeout = s->timeout;
			/* a guest of several CPUs on one host CPU: see repro_jobs() */
			b[k].unpinned = s->boot[g].cpus > 1;
			group[k] = g;
		}
	x.d = d;
	x.group = group;
	/* "reproduce 002: boot ...": not the results line's "reproduce:" */
	snprintf(who, sizeof who, "reproduce %s", s->id);
	rc = bench_boots(b, k, jobs, who, run_out, &x);
	d->boots = k;
	d->secs = (now_ms() - t0) / 1000.0;
	for (g = 0; g < ng; g++)
		free(script[g]);
	free(group);
	free(b);
	free(kernel);
	return rc;
}

/* The unit-scaled figure: 4 significant digits past 1000, else 3 decimals. */
static void
fig(char *buf, size_t len, double v)
{
	if (fabs(v) >= 1000)
		snprintf(buf, len, "%.0f", v);
	else if (fabs(v) >= 10)
		snprintf(buf, len, "%.1f", v);
	else
		snprintf(buf, len, "%.3f", v);
}

/* "same way as the thread" and friends, for the table and KTAP. */
static const char *
dir_word(const struct repro_cmp *x)
{
	if (!x->ok)
		return "too few samples";
	if (isnan(x->thread_pct))
		return "the thread has no figure here";
	if (x->dir == 0)
		return "no change either way";
	return x->dir > 0 ? "same direction as the thread" :
	    "opposite to the thread";
}

/* The verdict phrase of a comparison: against what, direction, spread, significance. */
static void
verdict(char *buf, size_t len, const struct repro_seed *s, int c,
    const struct repro_cmp *x)
{
	double	sd = x->sd[0] > x->sd[1] ? x->sd[0] : x->sd[1];
	char	against[64] = "";

	if (s->base[c] > 0)
		snprintf(against, sizeof against, "against %s: ", s->col[s->base[c]]);
	if (!x->ok) {
		snprintf(buf, len, "%s%s", against, dir_word(x));
		return;
	}
	if (sd == 0)
		snprintf(buf, len, "%s%s; %s (no spread: exact counts)", against,
		    dir_word(x), x->mean[1] != x->mean[0] ? "a difference" :
		    "no difference");
	else
		snprintf(buf, len, "%s%s; difference %s the spread (%.1fx)%s", against,
		    dir_word(x), x->beyond ? "larger than" : "within",
		    fabs(x->mean[1] - x->mean[0]) / sd,
		    x->p_holm < 0.05 ? ", significant" : "");
}

void
repro_table(const struct repro_data *d, FILE *f)
{
	const struct repro_seed *s = d->s;
	struct repro_cmp (*cmp)[REPRO_MAX_COLS] = xcalloc(REPRO_MAX_ROWS, sizeof *cmp);
	char		 a[32], b[32], tp[32], v[160];
	int		 r, c, i, g, lw = 20;

	repro_stats(d, cmp);
	/* the column labels' width: "  NAME (THREAD'S NAME)" */
	for (c = 0; c < REPRO_MAX_COLS && s->col[c] != NULL; c++) {
		int w = 2 + (int)strlen(s->col[c]) + (s->thread_col[c] != NULL ?
		    3 + (int)strlen(s->thread_col[c]) : 0);

		lw = w > lw ? w : lw;
	}
	fprintf(f, "== seed %s: %s (%s)\n", s->id, s->title, s->file);
	fprintf(f, "thread: %s\n", s->thread_setup);
	fprintf(f, "kit:    %s\n", s->kit_setup);
	fprintf(f, "        %s, %d boot%s%s in %.0f s on %s\n", s->variant, d->boots,
	    d->boots == 1 ? "" : "s", d->quick ? " (--quick)" : "", d->secs, d->host);
	if (d->from != NULL)
		fprintf(f, "        (a stored run, read from %s)\n", d->from);
	for (g = 0; g < REPRO_MAX_GROUPS && s->boot[g].cpus > 0; g++) {
		int col = 0;

		for (i = 0; i < d->ninfo; i++) {
			if (d->info_g[i] != g)
				continue;
			if (col == 0 || col + strlen(d->info[i]) > 100) {
				col = fprintf(f, "%s        guest, %d CPU%s: ", col ? "\n" : "",
				    s->boot[g].cpus, s->boot[g].cpus > 1 ? "s" : "");
			}
			col += fprintf(f, "%s ", d->info[i]);
		}
		if (col)
			fprintf(f, "\n");
	}
	fprintf(f, "%-*s %-22s %-24s %-22s %s\n", lw, "", "thread", "kit: mean ± sd (n)",
	    "change [95% CI]", "p (Holm)");
	for (r = 0; r < REPRO_MAX_ROWS && s->row[r].name != NULL; r++) {
		const struct repro_row *w = &s->row[r];

		fprintf(f, "%s (kit: %s, %s, %s better)\n", w->name, w->key, w->unit,
		    w->lower_better ? "lower" : "higher");
		for (c = 0; c < REPRO_MAX_COLS && s->col[c] != NULL; c++) {
			const struct repro_cmp *x = &cmp[r][c];
			double m, sd;
			char th[64], col[80];

			snprintf(col, sizeof col, "  %s%s%s%s", s->col[c],
			    s->thread_col[c] != NULL ? " (" : "",
			    s->thread_col[c] != NULL ? s->thread_col[c] : "",
			    s->thread_col[c] != NULL ? ")" : "");
			tp[0] = '\0';
			if (c > 0 && !isnan(x->thread_pct))
				snprintf(tp, sizeof tp, " %+.1f%%", x->thread_pct);
			snprintf(th, sizeof th, "%s%s", w->thread[c] != NULL ?
			    w->thread[c] : "-", tp);
			if (d->n[r][c] == 0) {
				fprintf(f, "%-*s %-22s %s\n", lw, col, th, "no samples");
				continue;
			}
			stats_mean_sd(d->v[r][c], d->n[r][c], &m, &sd);
			fig(a, sizeof a, m);
			fig(b, sizeof b, sd);
			if (d->n[r][c] > 1)
				snprintf(v, sizeof v, "%s ± %s (%d)", a, b, d->n[r][c]);
			else
				snprintf(v, sizeof v, "%s (1: no spread)", a);
			if (c == 0 || !x->ok) {
				fprintf(f, "%-*s %-22s %s\n", lw, col, th, v);
				continue;
			}
			snprintf(a, sizeof a, "%+.1f%% [%+.1f, %+.1f]", x->change_pct,
			    x->ci_lo, x->ci_hi);
			fprintf(f, "%-*s %-22s %-24s %-22s %.2g\n", lw, col, th, v, a, x->p_holm);
			verdict(v, sizeof v, s, c, x);
			fprintf(f, "%-*s %s\n", lw, "", v);
		}
		if (w->note != NULL)
			fprintf(f, "  note: %s\n", w->note);
	}
	fprintf(f, "Welch's t-test per row and column against %s (unless named); p adjusted with "
	    "Holm-Bonferroni over the table's comparisons (significant: < 0.05); "
	    "spread: the larger standard deviation of the two columns.\n", s->col[0]);
	if (d->refused > 0)
		fprintf(f, "%d result line(s) or value(s) from the guest were not read.\n",
		    d->refused);
	free(cmp);
}

/*
 * KTAP: one test per row and column; not ok only where the kit's change
 * goes against the thread's, beyond the spread and significant; a skip
 * where the thread has no figure or the kit cannot tell a change.
 */
int
repro_ktap(const struct repro_data *d, FILE *f, int num)
{
	const struct repro_seed *s = d->s;
	struct repro_cmp (*cmp)[REPRO_MAX_COLS] = xcalloc(REPRO_MAX_ROWS, sizeof *cmp);
	char		 v[160];
	int		 r, c, n = 0, ok = 1;

	repro_stats(d, cmp);
	for (r = 0; r < REPRO_MAX_ROWS && s->row[r].name != NULL; r++)
		for (c = 1; c < REPRO_MAX_COLS && s->col[c] != NULL; c++)
			n++;
	fprintf(f, "    KTAP version 1\n    # Subtest: seed-%s\n    1..%d\n", s->id, n);
	n = 0;
	for (r = 0; r < REPRO_MAX_ROWS && s->row[r].name != NULL; r++)
		for (c = 1; c < REPRO_MAX_COLS && s->col[c] != NULL; c++) {
			const struct repro_cmp *x = &cmp[r][c];
			int bad = x->ok && x->dir < 0 && x->beyond && x->p_holm < 0.05;
			int skip = !x->ok || x->dir == 0 || !x->beyond;

			verdict(v, sizeof v, s, c, x);
			ok &= !bad;
			fprintf(f, "    %s %d %s.%s # %s%s\n", bad ? "not ok" : "ok", ++n,
			    s->row[r].key, s->col[c], skip && !bad ? "SKIP " : "", v);
		}
	fprintf(f, "%s %d seed-%s\n", ok ? "ok" : "not ok", num, s->id);
	free(cmp);
	return ok;
}

void
repro_results_line(const struct repro_data *d, FILE *f)
{
	const struct repro_seed *s = d->s;
	struct repro_cmp (*cmp)[REPRO_MAX_COLS] = xcalloc(REPRO_MAX_ROWS, sizeof *cmp);
	char		 g[16];
	double		 m, sd;
	int		 r, c;

	repro_stats(d, cmp);
	fprintf(f, "reproduce:");
	for (r = 0; r < REPRO_MAX_ROWS && s->row[r].name != NULL; r++) {
		int dup = 0, q;

		/* Two thread rows for one kit figure (seed 003): once. */
		for (q = 0; q < r; q++)
			dup |= s->row[q].group == s->row[r].group &&
			    strcmp(s->row[q].key, s->row[r].key) == 0;
		if (dup)
			continue;
		g[0] = '\0';
		if (s->row[r].group != 0)
			snprintf(g, sizeof g, "_c%d", s->boot[s->row[r].group].cpus);
		for (c = 0; c < REPRO_MAX_COLS && s->col[c] != NULL; c++) {
			if (d->n[r][c] == 0)
				continue;
			stats_mean_sd(d->v[r][c], d->n[r][c], &m, &sd);
			fprintf(f, " %s%s_%s=%.6g", s->row[r].key, g, s->col[c], m);
			if (c > 0 && cmp[r][c].ok)
				fprintf(f, " %s%s_%s_pct=%.4g", s->row[r].key, g, s->col[c],
				    cmp[r][c].change_pct);
		}
	}
	fprintf(f, "\n");
	free(cmp);
}

int
repro_json_load(const char *path, struct repro_data *d, int max, char *err,
    size_t len)
{
	struct stat	 st;
	size_t		 n;
	char		*buf;
	int		 fd, k, i;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) < 0) {
		snprintf(err, len, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		snprintf(err, len, "%s: not a regular file", path);
		close(fd);
		return -1;
	}
	buf = read_fd_all(fd, REPRO_FILE_MAX, &n);
	if (buf == NULL) {
		if (errno == EFBIG)
			snprintf(err, len, "%s: larger than %d MiB", path,
			    REPRO_FILE_MAX >> 20);
		else
			snprintf(err, len, "%s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	close(fd);
	k = repro_json_parse(buf, n, d, max, err, len);
	free(buf);
	if (k < 0) {
		char *why = xstrdup(err);

		snprintf(err, len, "%s: %s", path, why);
		free(why);
		return -1;
	}
	for (i = 0; i < k; i++)
		d[i].from = xstrdup(path);
	return k;
}

int
repro_json_load_all(char **files, int nf, const struct repro_seed *want,
    struct repro_data *d, int max, char *err, size_t len)
{
	int	i, j, k, end, nd = 0;

	for (i = 0; i < nf; i++) {
		if ((k = repro_json_load(files[i], d + nd, max - nd, err, len)) < 0) {
			while (nd > 0)
				repro_data_free(&d[--nd]);
			return -1;
		}
		for (j = nd, end = nd + k; j < end; j++) {
			if (want != NULL && d[j].s != want) {
				repro_data_free(&d[j]);
				continue;
			}
			if (j != nd)
				d[nd] = d[j];
			nd++;
		}
	}
	if (nd == 0 && want != NULL) {
		snprintf(err, len, "%s: no run of seed %s%s", files[0], want->id,
		    nf > 1 ? " (nor in the other files)" : "");
		return -1;
	}
	return nd;
}

int
repro_json_write(const struct repro_data *d, int nd, const char *path)
{
	json_t	*a = repro_json(d, nd);
	char	*text = json_dumps(a, JSON_INDENT(1));
	int	 rc;

	json_decref(a);
	if (text == NULL) {
		errno = ENOMEM;
		return -1;
	}
	rc = write_file_atomic(path, text, strlen(text), 0644);
	free(text);
	return rc;
}
