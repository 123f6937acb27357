/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * selftests.h - the kernel's own mm tests: tools/testing/selftests/mm of
 * a variant's tree, built by the tree's Makefile (kbuild.sh --selftests,
 * in the sandbox) and run in guests, one fresh guest per test, so that a
 * test that breaks its kernel breaks only itself.  The tests are the
 * programs the tree's run_vmtests.sh runs without arguments.  Each gives
 * a result (kselftest's exit codes: 0 pass, 4 skip, others fail) and its
 * KTAP subtests; two runs (base, patched) are compared per test and per
 * subtest, so that what fails on base too is not the patch's.
 */
#ifndef UMKIT_SELFTESTS_H
#define UMKIT_SELFTESTS_H

#include <stddef.h>
#include <stdio.h>

#define ST_MAX_TESTS	128		/* tests per run */
#define ST_MAX_SUBS	1024		/* subtests kept per test */
#define ST_NAME_LEN	64		/* a test's name: [A-Za-z0-9_.-] */
#define ST_SUB_LEN	112		/* a subtest's description, cut */
#define ST_OUT_MAX	(4 << 20)	/* a test's output read back */
#define ST_KSFT_SKIP	4		/* kselftest's exit status for a skip */

enum st_status { ST_PASS, ST_FAIL, ST_SKIP, ST_TIMEOUT, ST_PANIC, ST_ERROR };

/* One KTAP subtest line of a test's output. */
struct st_sub {
	char	desc[ST_SUB_LEN];	/* without its number and directive */
	int	result;			/* 1 ok, 0 not ok, 2 ok # SKIP */
};

struct st_test {
	char		 name[ST_NAME_LEN];
	char		 category[32];
	enum st_status	 status;
	int		 code;		/* the guest command's exit status */
	double		 secs;
	char		 reason[160];	/* a skip's or failure's line */
	struct st_sub	*subs;
	int		 nsubs, nfailed;
};

struct st_run {
	struct st_test	*v;
	int		 n;
};

struct st_req {
	const char	*variant;	/* the kernel's variant */
	const char	*kernel;	/* or a kernel binary (NULL: the variant's) */
	const char	*dir;		/* the built tests (st_build) */
	char	       **tests;	/* names to run, ntests (0: all) */
	int		 ntests;
	int		 timeout_s;	/* per test */
	long		 mem_mb;	/* guest memory (0: the default) */
	const char	*logdir;	/* NAME.log per test, or NULL */
	FILE		*progress;	/* a line per test, or NULL */
};

/* Build variant's mm selftests (kbuild.h); their directory, or exits. */
char	*st_build(const char *variant, int untrusted);
/*
 * The tests of dir (its .umkit-tests: "NAME CATEGORY" lines, names
 * checked), sorted by name, into run (statuses unset).  0, or -1 with err.
 */
int	 st_list(const char *dir, struct st_run *run, char *err, size_t errlen);
/* Run the tests of req into run (st_list's, or req->tests of them). */
int	 st_run(const struct st_req *req, struct st_run *run, char *err,
	    size_t errlen);
/* Read a test's output: its subtests and the line that says why
 * (bounded; the output is the guest's, untrusted). */
void	 st_parse(const char *text, size_t len, struct st_test *t);
/*
 * KUnit: VARIANT+debug (uml/kernel/debug.config) booted once with
 * kunit.enable=1; its suites ran at boot and each one's debugfs results is read into run, a test per
 * suite (st_kunit_parse, on the guest's output).  0, or -1 with err.
 */
int	 st_kunit(const struct st_req *req, struct st_run *run, char *err,
	    size_t errlen);
void	 st_kunit_parse(const char *text, size_t len, struct st_run *run);
/* The run as KTAP, a line per test and its subtests' failures as
 * diagnostics. */
void	 st_ktap(const struct st_run *run, FILE *f);
/* Counts of a run: pass, fail (with timeouts, panics), skip. */
void	 st_counts(const struct st_run *run, int *pass, int *fail, int *skip);
/*
 * Compare base and patched: prints a line per test whose result changed
 * and per subtest that passed on base and fails patched; returns how many
 * regressions (passed on base, fail patched), tests and subtests.
 */
int	 st_compare(const struct st_run *base, const struct st_run *patched,
	    FILE *f);
const char *st_status_name(enum st_status);
void	 st_free(struct st_run *);

#endif
