/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * compare-cov.c - 'umkit compare --coverage A B': after the table, which
 * of B's added lines the benchmarks ran.  B is built once more with gcov
 * for the .c files its patches change (VARIANT+cov for a variant of
 * patches/, smoke-HASH-cov for a smoke variant), the same benchmarks run
 * on it against plain B (gcov's own cost), each boot's counters are
 * copied out ($UMKIT_GCOV_DIR, cov.h), and every hunk is reported.
 */
#define _GNU_SOURCE
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "compare.h"
#include "cov/cov.h"
#include "kernel/kbuild.h"
#include "patchin.h"
#include "util.h"

/* The report's first line. */
static void
compare_headline(const struct cov_sum *m, void *arg)
{
	const char	*v = arg;

	if (m->nhunks == 0)
		printf("coverage: %s: nothing to measure: no hunk adds an executable "
		    "line to a profiled .c file\n", v);
	else
		printf("coverage: %s: %d of %d hunks ran (%d of %d executable added "
		    "lines) in %d boots; reported in %.1f s\n", v, m->nhunks - m->dead,
		    m->nhunks, m->ran, m->exec, m->guests, m->report_s);
}

/*
 * The directory of v's patches and its coverage variant's name (both
 * malloc'ed); exits when v has no patches to cover.
 */
static char *
cov_pdir(const char *v, char **name)
{
	char	*pdir, *ser, *t;

	if (kbuild_is_smoke(v)) {
		*name = xasprintf("%s-cov", v);
		pdir = kbuild_smoke_dir(*name);
		t = kbuild_smoke_dir(v);
		ser = xasprintf("%s/series", t);
		free(t);
	} else {
		*name = xasprintf("%s+cov", v);
		if ((pdir = variant_dir(v)) == NULL)
			fatalx("--coverage: no variant '%s'", v);
		ser = xasprintf("%s/series", pdir);
	}
	t = read_text(ser);
	if (t == NULL || strstr(t, ".patch") == NULL)
		fatalx("--coverage: variant %s has no patches to cover (%s)", v, ser);
	free(t);
	free(ser);
	return pdir;
}

/* Exit now (before any benchmark) when v cannot be covered. */
void
compare_cov_check(const char *v)
{
	char	*name, *pdir = cov_pdir(v, &name);

	free(name);
	free(pdir);
}

/*
 * The coverage kernel of variant v (its patches' directory in *pdir),
 * built if needed; exits on failure.
 */
static char *
cov_kernel(const char *v, char **pdir)
{
	char	*k, *name, err[1024];

	*pdir = cov_pdir(v, &name);
	/* smoke-HASH: its -cov twin, written from its patches if missing. */
	if (kbuild_is_smoke(v) && access(*pdir, F_OK) < 0) {
		struct pset	 ps;
		char		*src = kbuild_smoke_dir(v);

		pset_init(&ps);
		if (patchin_path(src, &ps, NULL, err, sizeof err) < 0)
			fatalx("--coverage: %s", err);
		pset_write_cov(&ps, *pdir);
		pset_free(&ps);
		free(src);
	}
	k = kbuild_kernel(name);
	free(name);
	return k;
}

/* Run the coverage pass of compare for variant v (kernel plain). */
int
compare_cov(const char *v, const char *plain, const char *setup,
    const char *names, int n, int jobs, int cost, const char *json)
{
	char		*pdir, *k, *kd, *d, *gdir, *gcno, *lab, err[1024];
	const char	*kern[2], *label[2], *setups[2] = { setup, setup };
	long long	 t0 = now_ms();
	struct cov_req	 q;
	struct cov_sum	 sum;
	struct bres	 r;
	int		 rc, nprops;

	k = cov_kernel(v, &pdir);
	kd = xstrdup(k);
	d = dirname(kd);
	gdir = xasprintf("%s/gcda", d);
	gcno = xasprintf("%s/gcno", d);
	printf("coverage: %s built with gcov (%.1f s): %s\n", v,
	    (now_ms() - t0) / 1000.0, k);
	rm_tree(gdir);
	setenv(COV_ENV, gdir, 1);
	lab = xasprintf("%s+gcov", v);
	kern[0] = plain, kern[1] = k;
	label[0] = v, label[1] = lab;
	memset(&r, 0, sizeof r);
	if (cost)
		rc = bench_run(kern, label, setups, names, n, jobs, &r);
	else
		rc = bench_once(k, lab, setup, names);
	unsetenv(COV_ENV);
	if (rc == 0) {
		if (cost) {
			printf("the instrumented kernel against the plain one "
			    "(gcov's run-time cost):\n");
			bench_table(&r, stdout);
		} else
			printf("the benchmarks ran once on the gcov kernel "
			    "(--coverage-cost: an A/B round against plain %s, "
			    "gcov's run-time cost)\n", v);
		memset(&q, 0, sizeof q);
		q.pdir = pdir;
		q.gcno = gcno;
		q.gcda = gdir;
		q.json = json;
		q.build_s = (now_ms() - t0) / 1000.0;
		q.out = stdout;
		q.headline = compare_headline;
		q.arg = (void *)v;
		if (cov_report(&q, &sum, NULL, 0, &nprops, err, sizeof err) < 0) {
			warnmsg("--coverage: %s", err);
			rc = EXIT_KIT;
		}
	}
	bench_free(&r);
	free(lab);
	free(gcno);
	free(gdir);
	free(kd);
	free(k);
	free(pdir);
	return rc;
}
