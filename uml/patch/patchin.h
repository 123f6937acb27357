/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * patchin.h - patch input for 'umkit smoke': a patch file, a quilt
 * directory, a directory of git format-patch files, an mbox (a whole
 * mailing-list thread), standard input or a git commit range become one
 * ordered list of diffs, named by a hash of their content.
 *
 * The parser (patchin_buf, pset_select) is pure: it reads buffers only,
 * so the unit tests and the fuzzer drive it directly.  The readers
 * (patchin_path, patchin_git) read files, directories and git.
 *
 * What counts is the diff: from each message or file only the diff lines
 * are kept (the "diff --git" headers, ---/+++ and the hunks, counted by
 * their @@ ranges; not the "index" lines, the commit message or the
 * signature), so the same change gives the same hash in every form.
 */
#ifndef UMKIT_PATCHIN_H
#define UMKIT_PATCHIN_H

#include <stddef.h>

/* One message or file, before selection. */
struct pmsg {
	char	*origin;	/* "FILE" or "FILE: message N" */
	char	*subject;	/* the Subject header, or NULL */
	char	*diff;		/* the diff lines, or NULL if it has none */
	char	*err;		/* why its diff was refused, or NULL */
	char   **files;		/* the paths it changes (-p1), nfiles */
	int	 nfiles;
	int	 nhunks;
	/* From the subject's [PATCH vV n/m] tag: */
	int	 is_reply;	/* Re:, Aw:, Fwd: */
	int	 num, total;	/* n/m; 0/0 when not numbered */
	int	 version;	/* vN, 1 by default */
};

/* An ordered list of messages. */
struct pset {
	struct pmsg	*v;
	int		 n;
};

/*
 * How a numbered series is taken: strictly (sel NULL or partial 0: a part
 * missing is an error), or with the parts that are there, the missing
 * ones named in missing ("[PATCH 2/3], [PATCH 3/3] of the series of 3",
 * empty when none is).
 */
struct pselect {
	int	partial;
	int	files;		/* files the user named: unnumbered ones keep
				   their place among a series' parts */
	char	missing[256];
};

void	pset_init(struct pset *);
void	pset_free(struct pset *);
/* Move every message of in onto the end of out; in is left empty. */
void	pset_move(struct pset *out, struct pset *in);

/*
 * Split buf into messages and extract each one's diff, appending them to
 * ps.  buf is an mbox (messages starting with "From " lines, or one mail
 * with headers) or a plain diff.  Mail bodies are decoded (quoted-
 * printable; ">From " escapes undone; CRLF).  Never fails: a message
 * whose diff is malformed or leaves the tree carries err.
 */
void	patchin_buf(struct pset *ps, const char *origin, const char *buf,
	    size_t len);

/*
 * Choose the patches of a thread, in order: replies and cover letters
 * (0/m) are skipped, numbered patches are put in order (the highest
 * version only), a series with a part missing or twice is refused.
 * Messages without a diff are dropped.  out gets the patches (moved from
 * in, which is left empty).  0, or -1 with a message in err.
 */
int	pset_select(struct pset *in, struct pset *out, struct pselect *sel,
	    char *err, size_t errlen);

/* The content hash of the selected patches (64 hex digits + NUL). */
void	pset_hash(const struct pset *, char hex[65]);

/* SHA-256 of buf, as 64 hex digits (exposed for the unit tests). */
void	patchin_sha256(const void *buf, size_t len, char hex[65]);

/*
 * Read one INPUT (a file, a directory, "-" for stdin) and append its
 * selected patches to out (sel as for pset_select).  0, or -1 with err.
 */
int	patchin_path(const char *input, struct pset *out, struct pselect *sel,
	    char *err, size_t errlen);

/*
 * Patch files as a developer names them: when INPUT is a file holding one
 * message (a git format-patch file, a plain diff), append that message to
 * files unselected and return 1; the caller gathers the files it is given
 * one after another and selects them together with pselect.partial set
 * (a series' parts from several files are one series, the parts not
 * given named).  Otherwise 0 (a thread, a directory, '-': read it with
 * patchin_path), or -1 with err.
 */
int	patchin_file1(const char *input, struct pset *files, char *err,
	    size_t errlen);

/* The patches of git commit range A..B in repository dir. */
int	patchin_git(const char *dir, const char *range, struct pset *out,
	    char *err, size_t errlen);

/*
 * Write the selected patches as a variant directory dir (series,
 * NNNN.patch, sources), through a temporary directory renamed into
 * place; an existing dir is kept as it is (same hash, same content).
 * config, when not NULL, is written as dir/config.  0, or -1 with err.
 */
int	pset_write(const struct pset *, const char *dir, const char *config,
	    char *err, size_t errlen);
/*
 * pset-cov.c: write the list as a coverage variant in dir: pset_write with
 * uml/kernel/gcov.config, and a profile naming the objects of the .c files
 * it changes (kbuild.sh builds those with gcov); the profile is kept when
 * it exists.  Exits on failure.
 */
void	pset_write_cov(const struct pset *, const char *dir);

#endif
