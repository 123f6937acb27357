/* SPDX-License-Identifier: GPL-2.0-only */
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "cov/cov.h"
#include "kernel/kbuild.h"
#include "patchin.h"
#include "smoke.h"
#include "util.h"

/* Write build/smoke/HEX-cov: the same patches, gcov, the profile. */
int
smoke_cov_prepare(struct smoke *s, const struct pset *ps, const char *hex)
{
	char	*v = xasprintf("%s-cov", hex);

	s->cov_dir = kbuild_smoke_dir(v);
	free(v);
	pset_write_cov(ps, s->cov_dir);
	return 0;
}

/* The coverage stage's line, before the hunks'. */
static void
smoke_headline(const struct cov_sum *m, void *arg)
{
	struct smoke	*s = arg;

	if (m->nhunks == 0)
		smoke_stage(s, "coverage", "%s: nothing to measure: no hunk adds an "
		    "executable line to a profiled .c file (%d hunk%s in headers "
		    "or other files)", s->coverage == 2 ? "FAIL" : "ok (warning)",
		    m->unmeasured, m->unmeasured == 1 ? "" : "s");
	else
		smoke_stage(s, "coverage", "%s: %d of %d hunks ran (%d of %d executable "
		    "added lines); %d guests' counters; reported in %.1f s",
		    m->dead == 0 ? "ok" : s->coverage == 2 ? "FAIL" : "ok (warning)",
		    m->nhunks - m->dead, m->nhunks, m->ran, m->exec, m->guests,
		    m->report_s);
}

/* Build the coverage kernel, run everything on it, report per hunk. */
int
smoke_cov(struct smoke *s)
{
	char		*variant, *kernel = NULL, *gdir, *log, *gcno, err[1024];
	const char	*base = strrchr(s->cov_dir, '/') + 1;
	long long	 t0 = now_ms();
	double		 build_s;
	struct cov_req	 q;
	struct cov_sum	 sum;
	int		 rc, i, nrep, flood;

	variant = xasprintf("smoke-%s", base);
	rc = smoke_kbuild(s, variant, s->cov_dir, NULL, "cov-build", &kernel);
	free(variant);
	if (rc != 0)
		return rc;
	build_s = (now_ms() - t0) / 1000.0;

	/* The runs, each guest's counters into gcda/. */
	gdir = xasprintf("%s/gcda", s->cov_dir);
	rm_tree(gdir);
	setenv(COV_ENV, gdir, 1);
	log = xasprintf("%s/boot.log", s->cov_dir);
	rc = smoke_boot_run(s, kernel, "true", log, SMOKE_FLOOD_BYTES, &nrep, 0,
	    &flood);
	free(log);
	if (rc == 0 && strcmp(s->labs, "none") != 0) {
		/* Their results do not count here: the plain stage judged them. */
		log = xasprintf("%s/labs.ktap", s->cov_dir);
		rc = smoke_labs_run(s, kernel, log) >= 128 ? 130 : 0;
		free(log);
	}
	for (i = 0; rc == 0 && i < s->nruns; i++) {
		log = xasprintf("%s/run%d.log", s->cov_dir, i + 1);
		rc = smoke_boot_run(s, kernel, s->runs[i], log, SMOKE_RUN_LOG_MAX, &nrep,
		    0, &flood);
		rc = rc >= 128 && rc != EXIT_PANIC ? rc : 0;
		free(log);
	}
	if (rc == 0 && strcmp(s->bench, "none") != 0 && !s->coverage_cost) {
		/* One boot of the benchmarks: their paths count, not their figures. */
		rc = bench_once(kernel, "patched+gcov", NULL, s->bench);
		if (rc == 0)
			printf("    the benchmarks ran once on the gcov kernel "
			    "(--coverage-cost: an A/B round against the plain one, "
			    "gcov's run-time cost)\n");
	} else if (rc == 0 && strcmp(s->bench, "none") != 0) {
		const char	*kern[2] = { s->kernel, kernel };
		const char	*label[2] = { "patched", "patched+gcov" };
		struct bres	 r;

		rc = bench_run(kern, label, NULL, s->bench, s->boots,
		    smoke_bench_jobs(s), &r);
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
			smoke_stage(s, "coverage", "FAIL: the coverage kernel's boot failed "
			    "(status %d; console %s/boot.log)", rc, s->cov_dir);
		free(gdir);
		free(kernel);
		return rc < 128 ? SMOKE_FAIL_CHECK : rc;
	}

	/* The report. */
	q.pdir = s->cov_dir;
	q.gcno = gcno = xasprintf("%s/gcno", s->cov_dir);
	q.gcda = gdir;
	q.json = s->json;
	q.build_s = build_s;
	q.out = stdout;
	q.headline = smoke_headline;
	q.arg = s;
	if (cov_report(&q, &sum, s->cov_prop, SMOKE_MAX_PATCHES, &s->npatches,
	    err, sizeof err) < 0) {
		smoke_stage(s, "coverage", "FAIL: %s", err);
		rc = EXIT_KIT;
	} else if (sum.dead > 0 || sum.nhunks == 0)
		rc = s->coverage == 2 ? SMOKE_FAIL_COVERAGE : 0;
	free(gcno);
	free(gdir);
	free(kernel);
	return rc;
}
