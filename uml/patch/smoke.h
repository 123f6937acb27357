/*
 * smoke.h - the parts of 'umkit smoke' (cmd-smoke.c) that its coverage
 * pass (smoke-cov.c) uses too.
 */
#ifndef UMKIT_SMOKE_H
#define UMKIT_SMOKE_H

#include <sys/types.h>

struct pset;

/* Exit status of umkit smoke (also in the help text). */
#define SMOKE_FAIL_INPUT	2	/* the input was refused */
#define SMOKE_FAIL_APPLY	3	/* a patch does not apply */
#define SMOKE_FAIL_BUILD	4	/* the kernel does not build */
#define SMOKE_FAIL_BOOT		5	/* panic, hang or a kernel report at boot */
#define SMOKE_FAIL_CHECK	6	/* a lab check or a reproducer failed */
#define SMOKE_FAIL_COVERAGE	7	/* --require-coverage: a hunk never ran */

#define SMOKE_MAX_RUNS		32
#define SMOKE_MAX_PATCHES	256

struct smoke {
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
	int		 jobs;		/* -j: benchmark boots at a time */
	int		 coverage;	/* --coverage; 2: --require-coverage */
	char		*dir;		/* build/smoke/HASH */
	char		*variant;	/* smoke-HASH */
	char		*kernel;	/* its binary */
	char		*cov_dir;	/* build/smoke/HASH-cov (--coverage) */
	/* Per patch, for the JUnit file: its coverage in one line. */
	char		*cov_prop[SMOKE_MAX_PATCHES];
	int		 npatches;
};

/* The launcher binary, for subprocesses (malloc'ed). */
char	*self(void);
/* Run argv, its stderr (and stdout_too) into path; its exit status. */
int	 run_to(char *const argv[], const char *path, int stdout_too);
/* Print and record a stage's result ("ok..." passes; anything else fails). */
void	 stage(const char *name, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
/*
 * Build variant (its patches in dir, its shared tree build/k/TREE) with
 * progress; on success *kernel is its binary.  The stages are named
 * apply_stage (NULL: not shown) and build_stage.  0 or a SMOKE_FAIL_*.
 */
int	 smoke_kbuild(struct smoke *, const char *variant, const char *dir,
	    const char *tree, const char *apply_stage, const char *build_stage,
	    char **kernel);
/* Run the labs' batch checks (KTAP into log), base steps on kernel. */
int	 run_labs(struct smoke *, const char *kernel, const char *log);
/*
 * Boot kernel and run cmd, console and output into logfile (stopped
 * past limit bytes: *flood); returns exec's status, *nrep the kernel
 * reports seen.
 */
int	 boot_run(struct smoke *, const char *kernel, const char *cmd,
	    const char *logfile, off_t limit, int *nrep, int print, int *flood);

/* A coverage variant in dir: ps's patches, uml/kernel/gcov.config, a profile. */
void	 cov_variant_write(const struct pset *ps, const char *dir);
/* --coverage: write the variant HASH-cov (profile: the .c files ps touches). */
int	 smoke_cov_prepare(struct smoke *, const struct pset *ps, const char *hex);
/* --coverage: build it, run everything again on it, report per hunk. */
int	 smoke_cov(struct smoke *);

#endif
