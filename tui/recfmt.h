/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * recfmt.h - the recording format (docs/recording.md), in one place for
 * the writer (uml/link/record.c: umkit record) and the readers (tui/source.c,
 * umkit-value --history): the header file, the index lines, the snapshot
 * directory names and the file set (uml/link/record.files).
 *
 *	DIR/umkit-recording	"umkit-recording 1", then "key value" lines
 *	DIR/index		"SEQ UNIX_MS ELAPSED_MS" per complete snapshot
 *	DIR/snap/SEQ/...	a root tree (SEQ: six digits, zero-padded)
 *	DIR/snap/.tmp-SEQ	a snapshot being written (not part of it)
 *
 * Part of libumkit-parse (parse.h says why it lives in tui/).  Only
 * rec_files_* and rec_index_parse allocate (xmalloc); nothing here does
 * I/O, so both sides read and write the files their own way.
 */
#ifndef UMKIT_RECFMT_H
#define UMKIT_RECFMT_H

#include <stdbool.h>
#include <stddef.h>

#define REC_VERSION	1
#define REC_HEADER	"umkit-recording"	/* the header file's name */
#define REC_INDEX	"index"
#define REC_SNAPS	"snap"
#define REC_TMP_PREFIX	".tmp-"
#define REC_MAX_SEQ	999999u		/* six digits */
#define REC_MAX_FILE	(16u << 20)	/* larger files are not recorded */
#define REC_ERR_LEN	200

/* What the header file says. */
struct rec_header {
	int		version;
	char		source[4096];	/* the recorded root (absolute) */
	int		every_ms;
	long long	started_unix_ms;
};

/* One index line: a complete snapshot. */
struct rec_snap {
	unsigned	seq;
	long long	unix_ms, elapsed_ms;
};

/* Root-relative path of snapshot seq: "snap/000042", or with tmp the
 * directory it is written in first, "snap/.tmp-000042".  Returns out. */
const char *rec_snap_rel(char *out, size_t n, unsigned seq, bool tmp);

/* The header file's text; returns its length (as snprintf does). */
int	rec_header_format(char *out, size_t n, const struct rec_header *);
/* Parse a header file: the first line must be exactly "umkit-recording
 * 1"; known keys fill h, unknown keys are ignored (later versions may add
 * some).  Returns 0, or -1 with err ("unknown recording format (want
 * 'umkit-recording 1')", "line 3: bad every_ms"). */
int	rec_header_parse(const char *buf, size_t len, struct rec_header *h,
	    char *err, size_t errlen);

/* One index line, with its newline; returns its length. */
int	rec_index_format(char *out, size_t n, const struct rec_snap *);
/*
 * Parse index text into *snaps (xrealloc'd; *snaps may be NULL, and is
 * replaced), in file order.  A reader may see the index while it grows,
 * but each line is appended with one write: a line that is not three
 * numbers ending in a newline is not (yet) a snapshot and is skipped
 * (SEQ six digits, the others at most 18: a long long).
 * Returns the number of snapshots.
 */
int	rec_index_parse(const char *buf, size_t len, struct rec_snap **snaps);

/* The file set: root-relative paths or glob(7) patterns. */
struct rec_files {
	int	  n;
	char	**pat;
};
/*
 * Parse the text of a file set (uml/link/record.files): one path or pattern
 * per line, '#' starts a comment, blanks around are ignored.  A pattern
 * with blanks inside, an absolute one or one with a '..' component is an
 * error: returns -1 with *lineno and err ("'..' would leave the root:
 * proc/../x"), after keeping the lines before it.  0 otherwise.
 */
int	rec_files_parse(const char *buf, size_t len, struct rec_files *,
	    unsigned *lineno, char *err, size_t errlen);
/* Why one line of a file set (comment and blanks around already
 * stripped) cannot be a pattern, or NULL when it can: blanks inside, an
 * absolute path, or a '..' component. */
const char *rec_pattern_bad(const char *pat);
/* Whether the root-relative path rel is matched by a pattern of the set
 * (fnmatch(3) with FNM_PATHNAME: '*' does not cross '/'). */
bool	rec_files_match(const struct rec_files *, const char *rel);
/* Whether the set has exactly this pattern (a line equal to pat). */
bool	rec_files_has(const struct rec_files *, const char *pat);
/* Free the patterns. */
void	rec_files_free(struct rec_files *);

#endif
