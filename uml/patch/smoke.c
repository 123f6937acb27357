/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * smoke.c - the smoke pipeline (smoke.h): input, apply, build, boot, labs,
 * run, bench and coverage, each a stage with its line; the verdict.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.h"
#include "guest/guest.h"
#include "kernel/kbuild.h"
#include "patchin.h"
#include "selftests.h"
#include "smoke.h"
#include "util.h"

/* The kernel's debug checks for --debug (arch/um/Kconfig: UML 7.2 x86_64
 * selects HAVE_ARCH_KASAN and LOCKDEP_SUPPORT). */
static const char debug_config[] =
"# umkit smoke --debug: the kernel's own checks that help an MM patch\n"
"CONFIG_DEBUG_KERNEL=y\n"
"CONFIG_DEBUG_VM=y\n"
"CONFIG_PROVE_LOCKING=y\n"
"CONFIG_KASAN=y\n"
"CONFIG_KASAN_GENERIC=y\n"
"CONFIG_KASAN_OUTLINE=y\n";

/* Options with their defaults. */
void
smoke_init(struct smoke *s)
{
	memset(s, 0, sizeof *s);
	s->labs = "all";
	s->timeout_s = 60;
	s->bench = "all";
	s->boots = 5;
	s->stage_t0 = now_ms();
}

/* Free what a run filled in. */
void
smoke_free(struct smoke *s)
{
	int	i;

	free(s->dir);
	free(s->variant);
	free(s->kernel);
	free(s->cov_dir);
	for (i = 0; i < s->nchanged; i++) {
		free(s->changed[i]);
		if (s->file_line != NULL)
			free(s->file_line[i]);
	}
	free(s->changed);
	free(s->file_line);
	free(s->file_state);
	s->file_line = NULL;
	s->file_state = NULL;
	s->changed = NULL;
	s->nchanged = 0;
	for (i = 0; i < s->npatches; i++)
		free(s->cov_prop[i]);
	for (i = 0; i < s->nstages; i++) {
		free(s->stages[i].name);
		free(s->stages[i].text);
		free(s->stages[i].detail);
	}
	s->dir = s->variant = s->kernel = s->cov_dir = NULL;
	s->npatches = s->nstages = 0;
}

/* Print the lines of a file after the first report, for evidence. */
static void
print_after(const char *text, const char *mark, int max)
{
	const char	*p = strstr(text, mark), *e;
	int		 i;

	if (p == NULL)
		return;
	while (p > text && p[-1] != '\n')
		p--;
	for (i = 0; i < max && p != NULL && *p != '\0'; i++) {
		e = strchr(p, '\n');
		printf("    | %.*s\n", (int)(e ? e - p : (long)strlen(p)), p);
		p = e ? e + 1 : NULL;
	}
}

/* The benchmark boots at a time: -j, else the host probe's, said once. */
int
smoke_bench_jobs(struct smoke *s)
{
	char	why[256];

	if (s->jobs > 0)
		return s->jobs;
	if (s->bench_jobs == 0 &&
	    (s->bench_jobs = bench_host_jobs(why, sizeof why)) == 1)
		printf("    one benchmark boot at a time: %s (-j 2 to run two "
		    "anyway)\n", why);
	return s->bench_jobs;
}

/* Stage 6: the benchmarks, base against the patch. */
static int
smoke_bench(struct smoke *s)
{
	char		*base = kbuild_kernel("base");
	const char	*kern[2] = { base, s->kernel }, *label[2] = { "base", s->variant };
	struct bres	 r;
	int		 rc;

	rc = bench_run(kern, label, NULL, s->bench, s->boots, smoke_bench_jobs(s), &r);
	if (rc == 0) {
		smoke_stage(s, "bench", "ok: %s, %d boots per kernel%s%s%s", s->bench,
		    s->boots, r.more > 0 ? " and " : "", r.more > 0 ? r.more_names : "",
		    r.more > 0 ? " alone in as many more" : "");
		bench_table(&r, stdout);
		if (s->json != NULL && bench_json_write(&r, s->json) < 0)
			fatalx("cannot write %s", s->json);
		s->json_bench = s->json != NULL;
		if (s->plot != NULL) {
			char err[512];

			if (bench_plot(&r, s->plot, err, sizeof err) < 0)
				fatalx("%s", err);
		}
	} else if (rc < 128) {
		smoke_stage(s, "bench", "FAIL: a benchmark boot failed (status %d)", rc);
		rc = SMOKE_FAIL_CHECK;
	}
	bench_free(&r);
	free(base);
	return rc;
}

/*
 * The files gathered so far (patchin_file1), selected together as one
 * list with the parts of a series that were not given named, appended to
 * ps.  0, or -1 with err.
 */
static int
smoke_flush_files(struct smoke *s, struct pset *files, struct pset *ps, char *err,
    size_t errlen)
{
	struct pselect	 sel = { .partial = 1, .files = 1 };
	struct pset	 got;
	char		*first, *msg;
	int		 nf = files->n;

	if (files->n == 0)
		return 0;
	first = xstrdup(files->v[0].origin);
	pset_init(&got);
	if (pset_select(files, &got, &sel, err, errlen) < 0) {
		/* name the file(s), unless the message does */
		if (strncmp(err, first, strlen(first)) != 0) {
			msg = xstrdup(err);
			if (nf == 1)
				snprintf(err, errlen, "%s: %s", first, msg);
			else
				snprintf(err, errlen, "%s and %d more: %s", first, nf - 1, msg);
			free(msg);
		}
		free(first);
		return -1;
	}
	free(first);
	pset_move(ps, &got);
	if (sel.missing[0])
		smoke_stage(s, "input", "note: not given: %s (the files named are "
		    "taken as they are)", sel.missing);
	return 0;
}

/* Whether a --config is CONFIG_NAME=y|n|NUMBER (a line of a fragment). */
int
smoke_config_ok(const char *c)
{
	const char	*eq = strchr(c, '=');
	size_t		 n;

	if (strncmp(c, "CONFIG_", 7) != 0 || eq == NULL || eq == c + 7 ||
	    (size_t)(eq - c) > 80)
		return 0;
	n = (size_t)(eq - c);
	if (strspn(c, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != n)
		return 0;
	eq++;
	return strcmp(eq, "y") == 0 || strcmp(eq, "n") == 0 ||
	    (*eq != '\0' && strlen(eq) < 20 && strspn(eq, "0123456789") == strlen(eq));
}

/*
 * The config fragment of the variant (--debug's, then the --config
 * lines), or NULL; tag gets "-cXXXXXXXX" (a hash of the --config lines)
 * for the variant's name, or "".
 */
static char *
smoke_config_text(const struct smoke *s, char *tag, size_t len)
{
	char			*t = NULL, *n;
	unsigned long long	 h = FNV1A_BASIS;
	int			 i;

	tag[0] = '\0';
	if (s->debug)
		t = xstrdup(debug_config);
	for (i = 0; i < s->nconfigs; i++) {
		h = fnv1a(h, s->configs[i], strlen(s->configs[i]));
		h = fnv1a(h, "\n", 1);
		n = xasprintf("%s%s%s\n", t ? t : "", i == 0 ?
		    "# umkit smoke --config\n" : "", s->configs[i]);
		free(t);
		t = n;
	}
	if (s->nconfigs > 0)
		snprintf(tag, len, "-c%08llx", h & 0xffffffffULL);
	return t;
}

/* Stage 1: the inputs as one patch list, written as the variant. */
static int
smoke_input(struct smoke *s, int n, char **inputs)
{
	struct pset	 ps, files;
	struct pselect	 sel = { .partial = s->partial };
	char		 err[1024], hex[65], *dir, *config, cfgtag[16];
	const char	*git = s->git ? s->git : getenv("KSRC");
	struct stat	 sb;
	int		 i, j, nfiles = 0, rc = 0;

	pset_init(&ps);
	pset_init(&files);
	for (i = 0; i < n && rc >= 0; i++) {
		int	is_range = strstr(inputs[i], "..") != NULL &&
		    stat(inputs[i], &sb) < 0;

		if (is_range && git == NULL) {
			snprintf(err, sizeof err, "%s: not a file; a commit range needs "
			    "--git DIR or KSRC", inputs[i]);
			rc = -1;
			break;
		}
		/* patch files one after another are one list (patchin.h) */
		if (!is_range && (rc = patchin_file1(inputs[i], &files, err, sizeof err)) != 0)
			continue;	/* 1: gathered; -1: the loop ends */
		if ((rc = smoke_flush_files(s, &files, &ps, err, sizeof err)) < 0)
			break;
		rc = is_range ? patchin_git(git, inputs[i], &ps, err, sizeof err) :
		    patchin_path(inputs[i], &ps, &sel, err, sizeof err);
		if (rc == 0 && sel.missing[0])
			smoke_stage(s, "input", "note: %s: not there: %s (--partial)",
			    inputs[i], sel.missing);
	}
	if (rc >= 0)
		rc = smoke_flush_files(s, &files, &ps, err, sizeof err);
	if (rc < 0) {
		smoke_stage(s, "input", "FAIL: %s", err);
		pset_free(&files);
		pset_free(&ps);
		return SMOKE_FAIL_INPUT;
	}
	for (i = 0; i < ps.n; i++) {
		nfiles += ps.v[i].nfiles;
		for (j = 0; j < ps.v[i].nfiles; j++) {
			int	k;

			for (k = 0; k < s->nchanged; k++)
				if (strcmp(s->changed[k], ps.v[i].files[j]) == 0)
					break;
			if (k == s->nchanged && s->nchanged < 4096) {
				s->changed = xrealloc(s->changed, (s->nchanged + 1) *
				    sizeof *s->changed);
				s->changed[s->nchanged++] = xstrdup(ps.v[i].files[j]);
			}
		}
	}
	pset_hash(&ps, hex);
	hex[12] = '\0';
	config = smoke_config_text(s, cfgtag, sizeof cfgtag);
	s->variant = xasprintf("smoke-%s%s%s", hex, s->debug ? "-debug" : "", cfgtag);
	s->dir = kbuild_smoke_dir(s->variant);
	dir = kbuild_smoke_dir("");
	mkdir(dir, 0755);
	free(dir);
	if (pset_write(&ps, s->dir, config, err, sizeof err) < 0)
		fatalx("%s", err);
	free(config);
	if (s->coverage)
		smoke_cov_prepare(s, &ps, hex);
	smoke_stage(s, "input", "ok: %d patch%s, %d file%s, variant %s", ps.n,
	    ps.n == 1 ? "" : "es", nfiles, nfiles == 1 ? "" : "s", s->variant);
	for (i = 0; i < s->nconfigs; i++)
		printf("    --config %s (turned on for this patch)\n", s->configs[i]);
	for (i = 0; i < ps.n; i++) {
		printf("    %04d.patch  %s%s%s:", i + 1, ps.v[i].origin,
		    ps.v[i].subject ? "  " : "", ps.v[i].subject ? ps.v[i].subject : "");
		for (j = 0; j < ps.v[i].nfiles; j++)
			printf(" %s", ps.v[i].files[j]);
		printf("\n");
	}
	pset_free(&ps);
	return 0;
}

/* Stage 3: boot the patched kernel and scan its console. */
static int
smoke_boot(struct smoke *s)
{
	char		*log = xasprintf("%s/boot.log", s->dir), *text;
	long long	 t0 = now_ms();
	int		 rc, nrep, flood;

	rc = smoke_boot_run(s, s->kernel, "true", log, SMOKE_FLOOD_BYTES, &nrep, 0, &flood);
	text = read_text(log);
	if (rc == 0 && nrep == 0 && !flood) {
		smoke_stage(s, "boot", "ok (%.1f s, no kernel reports; console %s)",
		    (now_ms() - t0) / 1000.0, log);
		rc = 0;
	} else {
		if (flood == 3 && rc != EXIT_PANIC)
			smoke_stage(s, "boot", "FAIL: console flood (one line %d "
			    "times or more before the shell was done)",
			    SMOKE_FLOOD_REPEATS);
		else if (flood && rc != EXIT_PANIC)
			smoke_stage(s, "boot", "FAIL: console flood (more than %d KiB%s)",
			    SMOKE_FLOOD_BYTES >> 10, flood == 2 ? "; the boot was stopped" : "");
		else if (rc == EXIT_PANIC)
			smoke_stage(s, "boot", "FAIL: the kernel panicked at boot");
		else if (rc == EXIT_TIMEOUT)
			smoke_stage(s, "boot", "FAIL: hang: no shell within %d s", s->timeout_s);
		else if (rc == EXIT_KIT && text != NULL &&
		    strstr(text, "guest link failed") != NULL)
			smoke_stage(s, "boot", "FAIL: hang: the guest never answered within "
			    "%d s of boot (its link timed out)", BOOT_TIMEOUT_MS / 1000);
		else if (nrep > 0)
			smoke_stage(s, "boot", "FAIL: %d kernel report line%s at boot", nrep,
			    nrep == 1 ? "" : "s");
		else
			smoke_stage(s, "boot", "FAIL: the guest did not come up (status %d)", rc);
		/* Interrupted (not by the flood watch): pass the status on. */
		if (flood != 2 && rc >= 128 && rc != EXIT_PANIC && rc != EXIT_TIMEOUT &&
		    rc != EXIT_KIT) {
			free(log);
			free(text);
			return rc;
		}
		if (text != NULL) {
			const char *m, *d = strstr(text, SMOKE_DMESG_MARK "\n");

			d = d ? d : text;
			smoke_reports(d, 1, 12);
			if ((m = smoke_first_report(d)) != NULL)
				print_after(d, m, 12);
			if (flood) {
				/* The console's last line before the kernel log: what floods. */
				const char *e = strstr(text, SMOKE_DMESG_MARK "\n"), *b;

				e = e ? e : text + strlen(text);
				while (e > text && e[-1] == '\n')
					e--;
				for (b = e; b > text && b[-1] != '\n'; b--)
					;
				printf("    the console's last line: %.*s\n", (int)(e - b > 200 ?
				    200 : e - b), b);
			}
		}
		printf("    (console: %s)\n", log);
		rc = SMOKE_FAIL_BOOT;
	}
	free(text);
	free(log);
	return rc;
}

/* Stage 4: the labs' batch checks, base steps on the patched kernel. */
static int
smoke_labs(struct smoke *s)
{
	char	*log = xasprintf("%s/labs.ktap", s->dir), *text, *l, *nl;
	int	 rc, pass = 0, fail = 0, skip = 0;

	rc = smoke_labs_run(s, s->kernel, log);
	text = read_text(log);
	for (l = text; l != NULL && *l; l = nl ? nl + 1 : NULL) {
		nl = strchr(l, '\n');
		if (nl)
			*nl = '\0';
		while (*l == ' ')
			l++;
		if (strncmp(l, "not ok ", 7) == 0) {
			fail++;
			printf("    %s\n", l);
		} else if (strncmp(l, "ok ", 3) == 0) {
			if (strstr(l, "# SKIP") || strstr(l, "# skip"))
				skip++;
			else
				pass++;
		}
	}
	free(text);
	if (rc >= 128) {
		free(log);
		return rc;
	}
	if (rc == 0 && fail == 0)
		smoke_stage(s, "labs", "ok: %d checks passed, %d skipped (steps on other "
		    "variants); KTAP in %s", pass, skip, log);
	else
		smoke_stage(s, "labs", "FAIL: %d of %d checks failed (status %d); KTAP in %s",
		    fail, pass + fail, rc, log);
	free(log);
	return rc == 0 && fail == 0 ? 0 : SMOKE_FAIL_CHECK;
}

/*
 * A --run's verdict from both sides' logs: a KTAP subtest that passes on
 * base and fails patched is the patch's; without subtests, a status that
 * is 0 on base and not patched.  What fails on both is said, not failed.
 * Prints the subtests; returns whether the patch is to blame.
 */
static int
smoke_run_verdict(struct smoke *s, int i, const int st[2], const int nrep[2])
{
	struct st_test	 t[2];
	char		*log, *text, why[160] = "";
	size_t		 len;
	int		 k, j, fd, reg = 0, both = 0;

	memset(t, 0, sizeof t);
	for (k = 0; k < 2; k++) {
		log = xasprintf("%s/run%d-%s.log", s->dir, i + 1, k ? "patched" : "base");
		fd = open(log, O_RDONLY | O_CLOEXEC);
		text = fd >= 0 ? read_fd_all(fd, ST_OUT_MAX, &len) : NULL;
		if (fd >= 0)
			close(fd);
		t[k].status = ST_FAIL;
		st_parse(text ? text : "", text ? len : 0, &t[k]);
		free(text);
		free(log);
	}
	if (t[1].nsubs > 0) {
		struct st_run	r[2] = { { &t[0], 1 }, { &t[1], 1 } };

		/* statuses alike: st_compare judges the subtests only */
		t[0].status = t[1].status = ST_PASS;
		snprintf(t[0].name, sizeof t[0].name, "run %d", i + 1);
		snprintf(t[1].name, sizeof t[1].name, "run %d", i + 1);
		reg = st_compare(&r[0], &r[1], stdout);
		for (j = 0; j < t[1].nsubs; j++)
			for (k = 0; k < t[0].nsubs && t[1].subs[j].result == 0; k++)
				if (t[0].subs[k].result == 0 &&
				    strcmp(t[0].subs[k].desc, t[1].subs[j].desc) == 0) {
					both++;
					break;
				}
	}
	if (t[1].nsubs > 0) {
		k = reg > 0 || nrep[1] > 0;
		if (both > 0)
			snprintf(why, sizeof why, " (%d failing subtest%s fail%s on base "
			    "too: not the patch's)", both, both == 1 ? "" : "s",
			    both == 1 ? "s" : "");
	} else {
		k = (st[1] != 0 && st[0] == 0) || nrep[1] > 0;
		if (st[1] != 0 && st[0] != 0)
			snprintf(why, sizeof why, " (fails on base too: not the patch's)");
	}
	smoke_stage(s, "run", "%s: '%s': base status %d, %d report%s; patched status "
	    "%d, %d report%s%s%s", k ? "FAIL" : "ok", s->runs[i], st[0], nrep[0],
	    nrep[0] == 1 ? "" : "s", st[1], nrep[1], nrep[1] == 1 ? "" : "s",
	    st[0] != st[1] ? " (differs from base)" : "", why);
	free(t[0].subs);
	free(t[1].subs);
	return k;
}

/* Stage 5: each --run on base and on the patch. */
static int
smoke_runs(struct smoke *s)
{
	char	*base = kbuild_kernel("base"), *log;
	int	 i, k, st[2], nrep[2], flood, bad = 0;
	const char *kern[2] = { base, s->kernel }, *side[2] = { "base", "patched" };

	for (i = 0; i < s->nruns; i++) {
		for (k = 0; k < 2; k++) {
			log = xasprintf("%s/run%d-%s.log", s->dir, i + 1, side[k]);
			st[k] = smoke_boot_run(s, kern[k], s->runs[i], log, SMOKE_RUN_LOG_MAX,
			    &nrep[k], 0, &flood);
			free(log);
			if (st[k] >= 128 && st[k] != EXIT_PANIC) {
				free(base);
				return st[k];
			}
		}
		k = smoke_run_verdict(s, i, st, nrep);
		if (k) {
			log = xasprintf("%s/run%d-patched.log", s->dir, i + 1);
			printf("    (output and console: %s)\n", log);
			free(log);
		}
		bad |= k;
	}
	free(base);
	return bad ? SMOKE_FAIL_CHECK : 0;
}

/* Stage 6 (--selftests): the patched tree's mm selftests on base and on
 * the patch; a test or subtest that passes on base and fails patched
 * fails the smoke. */
static int
smoke_selftests(struct smoke *s)
{
	struct st_req	 req = { .timeout_s = 120 };
	struct st_run	 run[2];
	char		 err[512], *dir, *list = NULL, *tests[ST_MAX_TESTS], *save, *t;
	int		 k, reg, p[2], f[2], sk[2];

	dir = st_build(s->variant, 1);
	req.dir = dir;
	if (s->selftests_only != NULL) {
		list = xstrdup(s->selftests_only);
		for (t = strtok_r(list, ",", &save); t != NULL && req.ntests < ST_MAX_TESTS;
		    t = strtok_r(NULL, ",", &save))
			tests[req.ntests++] = t;
		req.tests = tests;
	}
	for (k = 0; k < 2; k++) {
		req.variant = k ? s->variant : "base";
		req.kernel = k ? s->kernel : NULL;
		req.logdir = xasprintf("%s/selftests-%s", s->dir, k ? "patched" : "base");
		if (st_run(&req, &run[k], err, sizeof err) < 0) {
			smoke_stage(s, "selftests", "FAIL: %s", err);
			free((char *)req.logdir);
			if (k)
				st_free(&run[0]);
			free(dir);
			free(list);
			return SMOKE_FAIL_CHECK;
		}
		free((char *)req.logdir);
		st_counts(&run[k], &p[k], &f[k], &sk[k]);
	}
	reg = st_compare(&run[0], &run[1], stdout);
	smoke_stage(s, "selftests", "%s: %d tests; base %d pass, %d fail, %d skip; patched "
	    "%d pass, %d fail, %d skip%s", reg ? "FAIL" : "ok", run[1].n, p[0], f[0],
	    sk[0], p[1], f[1], sk[1], reg ? "; passes on base and fails patched: above" : "");
	printf("    (each test's output: %s/selftests-{base,patched}/)\n", s->dir);
	st_free(&run[0]);
	st_free(&run[1]);
	free(dir);
	free(list);
	return reg ? SMOKE_FAIL_CHECK : 0;
}

/* Run every stage. */
int
smoke_run(struct smoke *s, int n, char **inputs)
{
	long long	 t0 = now_ms();
	int		 rc, fails = 0;

	s->stage_t0 = t0;
	if ((rc = smoke_input(s, n, inputs)) != 0)
		return rc;
	if (s->hash_only)
		return 0;
	if ((rc = smoke_kbuild(s, s->variant, s->dir, "apply", "build",
	    &s->kernel)) != 0)
		goto done;
	/* nothing it changes is in this kernel: booting it tests nothing */
	if ((rc = smoke_tested(s)) != 0)
		goto done;
	if ((rc = smoke_boot(s)) != 0)
		goto done;
	if (strcmp(s->labs, "none") != 0) {
		rc = smoke_labs(s);
		if (rc >= 128)
			goto done;
		fails |= rc;
	}
	if (s->nruns > 0) {
		rc = smoke_runs(s);
		if (rc >= 128)
			goto done;
		fails |= rc;
	}
	if (s->selftests) {
		rc = smoke_selftests(s);
		if (rc >= 128)
			goto done;
		fails |= rc;
	}
	if (strcmp(s->bench, "none") != 0) {
		rc = smoke_bench(s);
		if (rc >= 128)
			goto done;
		fails |= rc;
	}
	rc = fails ? SMOKE_FAIL_CHECK : 0;
	if (s->coverage) {
		int	crc = smoke_cov(s);

		if (crc >= 128 || crc == EXIT_KIT) {
			rc = crc;
			goto done;
		}
		if (rc == 0)
			rc = crc;
	}
done:
	if (s->ktap)
		smoke_ktap(s, stdout);
	if (s->junit != NULL && smoke_junit_write(s, s->junit) < 0)
		fatal("%s", s->junit);
	if (s->json != NULL && smoke_json_write(s, rc >= 128 && rc != EXIT_PANIC ?
	    "INTERRUPTED" : rc == 0 ? "PASS" : rc == SMOKE_NOT_TESTED ?
	    "NOT TESTED" : "FAIL") < 0)
		fatal("%s", s->json);
	if (rc >= 128 && rc != EXIT_PANIC)
		printf("smoke: INTERRUPTED after %.1f s\n", (now_ms() - t0) / 1000.0);
	else
		printf("smoke: %s %s (%.1f s)\n", rc == 0 ? "PASS" :
		    rc == SMOKE_NOT_TESTED ? "NOT TESTED" : "FAIL",
		    s->variant, (now_ms() - t0) / 1000.0);
	return rc;
}
