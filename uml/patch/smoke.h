/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * smoke.h - the smoke engine: does a patch apply, build, boot clean, pass
 * the labs' checks and the developer's own reproducers, and what does it
 * do to the benchmarks?  ('umkit smoke' is its command, cmd-smoke.c.)
 *
 * The inputs become one patch list (patchin.h) written as the variant
 * smoke-HASH in build/smoke/HASH (content-addressed: the same change in
 * any form is the same variant, and its build is reused; kbuild.h).
 * Each stage is a child of the kit's own tools (kbuild.sh, umkit exec,
 * umkit lab), so their cleanup on failure, timeout and Ctrl-C holds here
 * too.  Stages are recorded in struct smoke as they end, for the KTAP
 * and JUnit reports.
 *
 *   smoke.c        the pipeline: input, apply, build, boot, labs, run,
 *                  bench, coverage; the verdict
 *   smoke-stage.c  the stage record and its KTAP and JUnit writers
 *   smoke-boot.c   the children: kernel build, a boot with its console
 *                  scanned for kernel reports, the labs' batch run
 *   smoke-cov.c    the coverage pass (--coverage)
 */
#ifndef UMKIT_SMOKE_H
#define UMKIT_SMOKE_H

#include <stdio.h>
#include <sys/types.h>

struct pset;

/* Exit status of a smoke run (also in the command's help text). */
#define SMOKE_FAIL_INPUT	2	/* the input was refused */
#define SMOKE_FAIL_APPLY	3	/* a patch does not apply */
#define SMOKE_FAIL_BUILD	4	/* the kernel does not build */
#define SMOKE_FAIL_BOOT		5	/* panic, hang or a kernel report at boot */
#define SMOKE_FAIL_CHECK	6	/* a lab check or a reproducer failed */
#define SMOKE_FAIL_COVERAGE	7	/* --require-coverage: a hunk never ran */
#define SMOKE_NOT_TESTED	8	/* no file it changes is built (smoke-tested.c) */

#define SMOKE_MAX_RUNS		32
#define SMOKE_MAX_PATCHES	256
#define SMOKE_MAX_STAGES	24
#define SMOKE_MAX_CONFIGS	16

/*
 * A quiet boot's console and dmesg are ~10 KiB; dmesg is at most the
 * kernel's 128 KiB log buffer: more console than this is a flood.
 */
#define SMOKE_FLOOD_BYTES	(512 << 10)
#define SMOKE_FLOOD_REPEATS	1000	/* one console line this often: a flood */
#define SMOKE_FLOOD_SLOTS	8192	/* distinct lines smoke_repeats() counts */
/* A reproducer's own output counts too: its run may write this much. */
#define SMOKE_RUN_LOG_MAX	(64 << 20)

/* One stage's result line. */
struct smoke_stage {
	char	*name;
	char	*text;		/* "ok..." passed; anything else failed */
	char	*detail;	/* more lines, or NULL (smoke_stage_detail) */
	double	 secs;		/* since the stage before ended */
};

struct smoke {
	/* The options. */
	const char	*adds[SMOKE_MAX_RUNS];
	int		 nadds;
	const char	*runs[SMOKE_MAX_RUNS];
	int		 nruns;
	const char	*labs;		/* "all", "none" or a list */
	const char	*git;		/* repository of commit ranges */
	const char	*bench;		/* benchmarks, or "none" */
	const char	*json, *junit;	/* report files */
	const char	*plot;		/* chart directory */
	int		 boots, ktap;
	int		 debug, hash_only, timeout_s;
	const char	*configs[SMOKE_MAX_CONFIGS];	/* --config CONFIG_X=y */
	int		 nconfigs;
	int		 jobs;		/* -j: benchmark boots and labs at a
					   time (0: smoke_bench_jobs() chooses
					   the boots, bench_default_jobs() the
					   labs) */
	int		 bench_jobs;	/* smoke_bench_jobs()' answer, or 0 */
	int		 coverage;	/* --coverage; 2: --require-coverage */
	int		 coverage_cost;	/* --coverage-cost: the benchmarks' A/B
					   round on the gcov kernel */
	int		 partial;	/* --partial: a thread with parts missing */
	int		 selftests;	/* --selftests: the tree's mm selftests */
	const char	*selftests_only;	/* --selftests=A,B: only these */
	/* What the run found. */
	char		*dir;		/* build/smoke/HASH */
	char		*variant;	/* smoke-HASH */
	char		*kernel;	/* its binary */
	char		*cov_dir;	/* build/smoke/HASH-cov (--coverage) */
	char		**changed;	/* the files the patches change, once each */
	int		 nchanged;
	/* Per changed file, what the build tested (smoke-tested.c): a state
	 * ("built", "included", "not built", "not included", "not code") and
	 * its line "FILE: ..." with the reason. */
	const char	**file_state;
	char		**file_line;
	int		 json_bench;	/* the bench stage wrote s->json */
	/* Per patch, for the JUnit file: its coverage in one line. */
	char		*cov_prop[SMOKE_MAX_PATCHES];
	int		 npatches;
	/* The stages so far. */
	struct smoke_stage stages[SMOKE_MAX_STAGES];
	int		 nstages;
	long long	 stage_t0;	/* when the last stage ended (now_ms) */
};

/* smoke.c: the pipeline. */

/* Options with their defaults (all labs, all benchmarks, 5 boots, 60 s). */
void	 smoke_init(struct smoke *);
/*
 * Run every stage on the inputs (files, directories, '-', commit
 * ranges), print each stage's line, the reports and the verdict; 0, a
 * SMOKE_FAIL_*, EXIT_KIT or 128+N (interrupted).
 */
int	 smoke_run(struct smoke *, int n, char **inputs);
/* Whether a --config is CONFIG_NAME=y|n|NUMBER. */
int	 smoke_config_ok(const char *);
/* Free what a run filled in. */
void	 smoke_free(struct smoke *);

/*
 * smoke-tested.c: per changed file, whether the build tested it (an
 * object, or a header some built object includes) and why not; the
 * "tested" stage.  0, or SMOKE_NOT_TESTED when none is.
 */
int	 smoke_tested(struct smoke *);

/* smoke-stage.c: the stage record. */

/*
 * --json: the verdict, the stages and each changed file's state, added
 * to the benchmark samples the bench stage wrote there (or alone when no
 * benchmark ran).  0, or -1 (errno, or a file that is not JSON).
 */
int	 smoke_json_write(const struct smoke *, const char *verdict);

/* Record and print a stage's line: "smoke: STAGE  RESULT". */
void	 smoke_stage(struct smoke *, const char *name, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));
/* One more line of the last stage (KTAP diagnostics, JUnit output). */
void	 smoke_stage_detail(struct smoke *, const char *line);
/* The stages as KTAP. */
void	 smoke_ktap(const struct smoke *, FILE *);
/* The stages as a JUnit XML test suite (with the coverage properties). */
void	 smoke_junit(const struct smoke *, FILE *);
/* Write smoke_junit to path, whole or not at all; 0 or -1 (errno). */
int	 smoke_junit_write(const struct smoke *, const char *path);

/* smoke-boot.c: the children. */

/*
 * Build variant (its patches in dir), a progress line on a terminal; the
 * stages apply_stage (NULL: not shown) and build_stage get its result;
 * on success *kernel is its binary.  0, a SMOKE_FAIL_*, EXIT_KIT or 128+N.
 */
int	 smoke_kbuild(struct smoke *, const char *variant, const char *dir,
	    const char *apply_stage, const char *build_stage, char **kernel);
/*
 * Boot kernel and run cmd (sh -c) with the --add files, the console, cmd's
 * output and then the guest's dmesg into logfile, stopped past limit
 * bytes (*flood 2; 1 when it ended past SMOKE_FLOOD_BYTES).  *nrep gets
 * the kernel reports in the console and dmesg (printed when print).
 * Returns umkit exec's status.
 */
int	 smoke_boot_run(struct smoke *, const char *kernel, const char *cmd,
	    const char *logfile, off_t limit, int *nrep, int print, int *flood);
/*
 * The most times one line of the console's first n bytes of text was
 * printed (printk time stamps left out).
 */
int	 smoke_repeats(const char *text, size_t n);
/* The marker before the guest's dmesg at the end of a boot's log. */
#define SMOKE_DMESG_MARK	"@@umkit-smoke-dmesg@@"
/*
 * Count the lines of text that are kernel reports (BUG, WARNING, oops,
 * panic, lockdep, KASAN, UBSAN ...), printing at most max of them.
 */
int	 smoke_reports(const char *text, int print, int max);
/* The first report mark in text, or NULL. */
const char *smoke_first_report(const char *text);
/* Run the labs' batch checks, base steps on kernel (KTAP into log). */
int	 smoke_labs_run(struct smoke *, const char *kernel, const char *log);
/* The benchmark boots at a time: -j, else bench_host_jobs(), said once. */
int	 smoke_bench_jobs(struct smoke *);

/* smoke-cov.c: the coverage pass. */

/* --coverage: write the variant HASH-cov (profile: the .c files ps touches). */
int	 smoke_cov_prepare(struct smoke *, const struct pset *ps, const char *hex);
/* --coverage: build it, run everything again on it, report per hunk. */
int	 smoke_cov(struct smoke *);

#endif
