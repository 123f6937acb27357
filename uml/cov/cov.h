/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cov.h - patch coverage from the kernel's gcov counters
 * (CONFIG_GCOV_KERNEL, only the objects a variant's 'profile' names).
 *
 * A guest's counters are copied out over the guest link before it stops
 * (cov_collect, from umkit exec and the supervisor), the host's gcov
 * reads them against the notes files the build left beside the kernel
 * (kbuild.sh: gcno/), and each hunk of a patch is told which of its
 * added lines can execute and how often they ran.
 *
 * The parsers (cov_parse_gcov, cov_hunks) are pure and fuzzed.
 */
#ifndef UMKIT_COV_H
#define UMKIT_COV_H

#include <stddef.h>
#include <stdio.h>

/* Where the guest's debugfs keeps the counters. */
#define COV_GUEST_ROOT	"/sys/kernel/debug/gcov"
/* The directory every guest's counters go to, when set. */
#define COV_ENV		"UMKIT_GCOV_DIR"

struct link;

/*
 * Copy every .gcda below COV_GUEST_ROOT into dir (made if missing), the
 * guest's paths kept.  Returns the files copied (0 when the guest's
 * kernel has no gcov), or -errno.
 */
int	cov_save(struct link *, const char *dir);
/*
 * The same from another guest directory (the tests).  A guest decides
 * what it sends: a file over 64 MiB, files past 20000 in a walk and
 * entries past 20000 in a directory are not copied (said on stderr);
 * the others are.
 */
int	cov_save_from(struct link *, const char *root, const char *dir);
/* With $UMKIT_GCOV_DIR set, cov_save into a new NAME.XXXXXX in it. */
void	cov_collect(struct link *, const char *name);
/* Zero the guest's counters (all of them: gcov's reset file). */
int	cov_reset(struct link *);

/* One source file's lines: count[i] is line i+1's; -1: not executable. */
struct cov_src {
	char	*path;		/* relative to the tree: mm/vmscan.c */
	long	*count;
	int	 nlines;
};

struct cov {
	struct cov_src	*v;
	int		 n;
	int		 nruns;		/* guest counter sets summed */
};

void	cov_init(struct cov *);
void	cov_free(struct cov *);
/*
 * Add the counters of each guest directory in gcda_dir (the NAME.XXXXXX
 * of cov_collect; or gcda_dir itself when one_guest) to c, read by the
 * host's gcov against the notes in gcno_dir (kbuild.sh's gcno/, with its
 * objtree file).  0, or -1 with err.
 */
int	cov_load(struct cov *c, const char *gcno_dir, const char *gcda_dir,
	    int one_guest, char *err, size_t errlen);
/* The lines of source path (relative to the tree), or NULL. */
const struct cov_src *cov_find(const struct cov *, const char *path);
/*
 * Add gcov's intermediate text (gcov -t: "COUNT:LINE:SOURCE" lines, one
 * "Source:" line per file) to c.  Paths under tree (an absolute source
 * tree, or a "../src/" relative one) are made relative to it.  Returns
 * the lines taken, or -1 when text is not gcov output.
 */
int	cov_parse_gcov(struct cov *, const char *text, const char *tree);

/* One hunk of a patch, numbered as the tree is after the whole series. */
struct cov_hunk {
	int	 patch;		/* index in the series, 0-based */
	char	*file;		/* the new file's path, -p1 */
	int	 start, end;	/* its lines in the final file (removals: start) */
	int	*lines;		/* its added lines there (0: a later patch removed it) */
	int	 nlines;
};

struct cov_hunks {
	struct cov_hunk	*v;
	int		 n;
};

/* The hunks of diffs (in series order), added lines renumbered. */
void	cov_hunks(struct cov_hunks *, char *const diffs[], int n);
void	cov_hunks_free(struct cov_hunks *);

/* Per hunk: its executable added lines, how many ran. */
struct cov_hres {
	int	 exec;		/* added lines gcov calls executable */
	int	 ran;		/* of those, run at least once */
	int	 measured;	/* its file is profiled */
};

/* Judge hunk h against c. */
void	cov_judge(const struct cov *, const struct cov_hunk *, struct cov_hres *);

/* What cov_report found. */
struct cov_sum {
	int	 nhunks;	/* hunks with executable added lines */
	int	 dead;		/* of those, never run */
	int	 exec, ran;	/* their lines, and those run */
	int	 unmeasured;	/* hunks outside the profiled files */
	int	 guests;	/* counter sets summed */
	double	 report_s;	/* the time gcov and the judging took */
};

/* A report: the patches, the notes, the counters, where it goes. */
struct cov_req {
	const char	*pdir;		/* the variant's series and patches */
	const char	*gcno;		/* the build's notes (kbuild.sh's gcno/) */
	const char	*gcda;		/* the guests' counters ($UMKIT_GCOV_DIR) */
	const char	*json;		/* add a "coverage" object here, or NULL */
	double		 build_s;	/* the coverage build's time, for the JSON */
	FILE		*out;		/* the per-hunk lines */
	/* Called with the totals before the per-hunk lines (may be NULL). */
	void		(*headline)(const struct cov_sum *, void *);
	void		*arg;
};

/*
 * Load the counters, judge every hunk of the series, print one line per
 * hunk ("ran: FILE:A-B in PATCH: n of m lines (counts ...)", "not
 * exercised: ...", "nothing executable: ...", "not measured: ..."), and
 * one line per patch into props (malloc'ed; *nprops of them).  0, or -1
 * with err.
 */
int	cov_report(const struct cov_req *, struct cov_sum *, char **props,
	    int maxprops, int *nprops, char *err, size_t errlen);

#endif
