/*
 * smoke-cov.c - 'umkit smoke --coverage': which of a patch's added lines
 * ran under the labs, the reproducers and the benchmarks.
 *
 * After the plain smoke stages (their verdict and table come first), the
 * patched kernel is built once more as the variant smoke-HASH-cov, with
 * CONFIG_GCOV_KERNEL and profiling for the objects of the .c files the
 * patches touch only (kbuild.sh's 'profile', in the shared tree
 * build/k/smoke-tree-cov, never the user's KSRC or the pristine source).
 * Everything runs again on it with $UMKIT_GCOV_DIR set, so each guest's
 * counters are copied out before it stops (cov.h); they are summed, read
 * by the host's gcov, and judged hunk by hunk.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "cov.h"
#include "patchin.h"
#include "smoke.h"
#include "umkit.h"
#include "util.h"

/* The coverage kernel's config: gcov, only where 'profile' says. */
static const char cov_config[] =
"# umkit smoke --coverage: gcov counters for the patched objects only\n"
"CONFIG_DEBUG_FS=y\n"
"CONFIG_GCOV_KERNEL=y\n"
"# CONFIG_GCOV_PROFILE_ALL is not set\n";

/* Counts shown per hunk before "...". */
#define COV_SHOW_COUNTS	8

/* Write build/smoke/HEX-cov: the same patches, gcov, the profile. */
int
smoke_cov_prepare(struct smoke *s, const struct pset *ps, const char *hex)
{
	char	 err[1024], *prof, *tmp;
	FILE	*f;
	int	 i, j, k, dup;

	s->cov_dir = xasprintf("%s/build/smoke/%s-cov", top_dir(), hex);
	if (pset_write(ps, s->cov_dir, cov_config, err, sizeof err) < 0)
		fatalx("%s", err);
	prof = xasprintf("%s/profile", s->cov_dir);
	if (access(prof, F_OK) == 0) {
		free(prof);
		return 0;
	}
	tmp = xasprintf("%s.tmp", prof);
	if ((f = fopen(tmp, "w")) == NULL)
		fatal("%s", tmp);
	fprintf(f, "# umkit smoke --coverage: the objects of the .c files the "
	    "patches change\n");
	for (i = 0; i < ps->n; i++) {
		for (j = 0; j < ps->v[i].nfiles; j++) {
			const char	*p = ps->v[i].files[j];
			size_t		 len = strlen(p);

			if (len < 3 || strcmp(p + len - 2, ".c") != 0)
				continue;
			/* Once each, in the order they first come. */
			for (dup = 0, k = 0; k <= i && !dup; k++) {
				int	m, end = k == i ? j : ps->v[k].nfiles;

				for (m = 0; m < end && !dup; m++)
					dup = strcmp(ps->v[k].files[m], p) == 0;
			}
			if (!dup)
				fprintf(f, "%.*s.o\n", (int)(len - 2), p);
		}
	}
	if (fclose(f) != 0 || rename(tmp, prof) < 0)
		fatal("%s", prof);
	free(tmp);
	free(prof);
	return 0;
}

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
cov_json(const struct cov *c, const struct cov_hunks *hs, char **names,
    double build_s, double report_s)
{
	json_t	*o = json_object(), *arr = json_array();
	int	 i, k;

	for (i = 0; i < hs->n; i++) {
		const struct cov_hunk	*h = &hs->v[i];
		const struct cov_src	*src = cov_find(c, h->file);
		struct cov_hres		 r;
		json_t			*jh = json_object(), *jl = json_array();

		cov_judge(c, h, &r);
		json_object_set_new(jh, "patch", json_string(names[h->patch]));
		json_object_set_new(jh, "file", json_string(h->file));
		json_object_set_new(jh, "start", json_integer(h->start));
		json_object_set_new(jh, "end", json_integer(h->end));
		json_object_set_new(jh, "measured", json_boolean(r.measured));
		json_object_set_new(jh, "executable", json_integer(r.exec));
		json_object_set_new(jh, "ran", json_integer(r.ran));
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
	json_t	*doc = access(path, F_OK) == 0 ? json_load_file(path, 0, NULL) : NULL;
	char	*tmp = xasprintf("%s.tmp", path);

	if (doc == NULL)
		doc = json_object();
	json_object_set_new(doc, "coverage", cov);
	if (json_dump_file(doc, tmp, JSON_INDENT(1)) < 0 || rename(tmp, path) < 0)
		fatalx("cannot write %s", path);
	json_decref(doc);
	free(tmp);
}

/* Run the labs' checks on kernel k (their results do not count here). */
static int
cov_labs(struct smoke *s, const char *k)
{
	char	*log = xasprintf("%s/labs.ktap", s->cov_dir);
	char	*argv[] = { self(), "lab", (char *)s->labs, "--batch", NULL };
	int	 rc;

	setenv("UMKIT_SMOKE_KERNEL", k, 1);
	rc = run_to(argv, log, 1);
	unsetenv("UMKIT_SMOKE_KERNEL");
	free(argv[0]);
	free(log);
	return rc;
}

/* Build the coverage kernel, run everything on it, report per hunk. */
int
smoke_cov(struct smoke *s)
{
	char		*variant, *kernel = NULL, *gdir, *log, *gcno, err[1024];
	char		*name[SMOKE_MAX_PATCHES], *text[SMOKE_MAX_PATCHES];
	char		*origin[SMOKE_MAX_PATCHES], where[512], counts[256];
	const char	*base = strrchr(s->cov_dir, '/') + 1;
	long long	 t0 = now_ms(), t1;
	double		 build_s;
	struct cov	 c;
	struct cov_hunks hs;
	int		 rc, i, nrep, flood, np, exec = 0, ran = 0, nhunks = 0;
	int		 dead = 0, unmeasured = 0;

	variant = xasprintf("smoke-%s", base);
	rc = smoke_kbuild(s, variant, s->cov_dir, "smoke-tree-cov", NULL,
	    "cov-build", &kernel);
	free(variant);
	if (rc != 0)
		return rc;
	build_s = (now_ms() - t0) / 1000.0;

	/* The runs, each guest's counters into gcda/. */
	gdir = xasprintf("%s/gcda", s->cov_dir);
	rm_tree(gdir);
	setenv(COV_ENV, gdir, 1);
	log = xasprintf("%s/boot.log", s->cov_dir);
	rc = boot_run(s, kernel, "true", log, 512 << 10, &nrep, 0, &flood);
	free(log);
	if (rc == 0 && strcmp(s->labs, "none") != 0)
		rc = cov_labs(s, kernel) >= 128 ? 130 : 0;
	for (i = 0; rc == 0 && i < s->nruns; i++) {
		log = xasprintf("%s/run%d.log", s->cov_dir, i + 1);
		rc = boot_run(s, kernel, s->runs[i], log, 64 << 20, &nrep, 0, &flood);
		rc = rc >= 128 && rc != EXIT_PANIC ? rc : 0;
		free(log);
	}
	if (rc == 0 && strcmp(s->bench, "none") != 0) {
		const char	*kern[2] = { s->kernel, kernel };
		const char	*label[2] = { "patched", "patched+gcov" };
		struct bres	 r;

		rc = bench_run(kern, label, NULL, s->bench, s->boots, s->jobs, &r);
		if (rc == 0) {
			printf("    the instrumented kernel against the plain one "
			    "(gcov's run-time cost):\n");
			bench_table(&r, stdout);
		}
		bench_free(&r);
	}
	unsetenv(COV_ENV);
	if (rc != 0) {
		if (rc < 128)
			stage("coverage", "FAIL: the coverage kernel's boot failed "
			    "(status %d; console %s/boot.log)", rc, s->cov_dir);
		free(gdir);
		free(kernel);
		return rc < 128 ? SMOKE_FAIL_CHECK : rc;
	}

	/* The report. */
	t1 = now_ms();
	cov_init(&c);
	gcno = xasprintf("%s/gcno", s->cov_dir);
	if (cov_load(&c, gcno, gdir, 0, err, sizeof err) < 0) {
		stage("coverage", "FAIL: %s", err);
		cov_free(&c);
		free(gcno);
		free(gdir);
		free(kernel);
		return EXIT_KIT;
	}
	np = read_series(s->cov_dir, name, text, origin, SMOKE_MAX_PATCHES);
	cov_hunks(&hs, text, np);
	for (i = 0; i < hs.n; i++) {
		struct cov_hres r;

		cov_judge(&c, &hs.v[i], &r);
		if (!r.measured)
			unmeasured++;
		else if (r.exec > 0) {
			nhunks++;
			exec += r.exec;
			ran += r.ran;
			dead += r.ran == 0;
		}
	}
	if (nhunks == 0)
		stage("coverage", "%s: nothing to measure: no hunk adds an "
		    "executable line to a profiled .c file (%d hunk%s in headers "
		    "or other files)", s->coverage == 2 ? "FAIL" : "ok (warning)",
		    unmeasured, unmeasured == 1 ? "" : "s");
	else
		stage("coverage", "%s: %d of %d hunks ran (%d of %d executable "
		    "added lines); %d guests' counters; built in %.1f s, reported "
		    "in %.1f s", dead == 0 ? "ok" : s->coverage == 2 ? "FAIL" :
		    "ok (warning)", nhunks - dead, nhunks, ran, exec, c.nruns,
		    build_s, (now_ms() - t1) / 1000.0);
	for (i = 0; i < hs.n; i++) {
		const struct cov_hunk	*h = &hs.v[i];
		struct cov_hres		 r;

		cov_judge(&c, h, &r);
		hunk_where(h, where, sizeof where);
		if (!r.measured)
			printf("    not measured: %s in %s (not a profiled .c file)\n",
			    where, name[h->patch]);
		else if (r.exec == 0)
			printf("    nothing executable: %s in %s (declarations, "
			    "comments or removed lines)\n", where, name[h->patch]);
		else if (r.ran == 0)
			printf("    not exercised: %s in %s%s%s%s\n", where,
			    name[h->patch], origin[h->patch] ? " (" : "",
			    origin[h->patch] ? origin[h->patch] : "",
			    origin[h->patch] ? ")" : "");
		else {
			hunk_counts(&c, h, counts, sizeof counts);
			printf("    ran: %s in %s: %d of %d lines (counts %s)\n",
			    where, name[h->patch], r.ran, r.exec, counts);
		}
	}
	/* Per patch, one line for the JUnit file. */
	s->npatches = np;
	for (i = 0; i < np; i++) {
		int	 k, pe = 0, pr = 0, ph = 0, pd = 0;
		char	*nx = xstrdup("");

		for (k = 0; k < hs.n; k++) {
			struct cov_hres r;

			if (hs.v[k].patch != i)
				continue;
			cov_judge(&c, &hs.v[k], &r);
			if (!r.measured || r.exec == 0)
				continue;
			ph++, pe += r.exec, pr += r.ran;
			if (r.ran == 0) {
				char *t;

				hunk_where(&hs.v[k], where, sizeof where);
				pd++;
				t = xasprintf("%s%s%s", nx, *nx ? ", " : "", where);
				free(nx);
				nx = t;
			}
		}
		s->cov_prop[i] = xasprintf("%d of %d hunks ran (%d of %d lines)%s%s",
		    ph - pd, ph, pr, pe, pd ? "; not exercised: " : "", nx);
		free(nx);
	}
	if (s->json != NULL)
		cov_json_write(s->json, cov_json(&c, &hs, name, build_s,
		    (now_ms() - t1) / 1000.0));
	for (i = 0; i < np; i++) {
		free(name[i]);
		free(text[i]);
		free(origin[i]);
	}
	cov_hunks_free(&hs);
	cov_free(&c);
	free(gcno);
	free(gdir);
	free(kernel);
	return dead > 0 || nhunks == 0 ? (s->coverage == 2 ? SMOKE_FAIL_COVERAGE : 0) : 0;
}
