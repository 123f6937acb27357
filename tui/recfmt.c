/* SPDX-License-Identifier: GPL-2.0-only */
/* recfmt.c - the recording format; see recfmt.h and docs/recording.md. */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recfmt.h"
#include "util.h"

/* "snap/SEQ" or "snap/.tmp-SEQ". */
const char *
rec_snap_rel(char *out, size_t n, unsigned seq, bool tmp)
{
	snprintf(out, n, REC_SNAPS "/%s%06u", tmp ? REC_TMP_PREFIX : "", seq);
	return out;
}

/* The version line, then one "key value" line per field. */
int
rec_header_format(char *out, size_t n, const struct rec_header *h)
{
	return snprintf(out, n, REC_HEADER " %d\nsource %s\nevery_ms %d\n"
	    "started_unix_ms %lld\n", REC_VERSION, h->source,
	    h->every_ms, h->started_unix_ms);
}

/* Next line of [p, end) into a NUL-terminated copy; NULL at the end. */
static char *
next_line(const char **p, const char *end, char *line, size_t n)
{
	const char	*nl;
	size_t		 k;

	if (*p >= end)
		return NULL;
	nl = memchr(*p, '\n', (size_t)(end - *p));
	k = (size_t)((nl ? nl : end) - *p);
	if (k >= n)
		k = n - 1;
	memcpy(line, *p, k);
	line[k] = '\0';
	*p = nl ? nl + 1 : end;
	return line;
}

/* Check the version line, then pick the known keys. */
int
rec_header_parse(const char *buf, size_t len, struct rec_header *h, char *err,
    size_t errlen)
{
	const char	*p = buf, *end = buf + len;
	char		 line[4200], want[40];
	int		 lineno = 1;

	memset(h, 0, sizeof(*h));
	snprintf(want, sizeof(want), REC_HEADER " %d", REC_VERSION);
	if (!next_line(&p, end, line, sizeof(line)) || strcmp(line, want) != 0) {
		snprintf(err, errlen, "unknown recording format (want '%s')", want);
		return -1;
	}
	h->version = REC_VERSION;
	while (next_line(&p, end, line, sizeof(line))) {
		char	*v = strchr(line, ' '), *e;

		lineno++;
		if (!v)
			continue;
		*v++ = '\0';
		if (!strcmp(line, "source")) {
			snprintf(h->source, sizeof(h->source), "%s", v);
		} else if (!strcmp(line, "every_ms") || !strcmp(line, "started_unix_ms")) {
			long long	x = strtoll(v, &e, 10);

			if (e == v || *e != '\0' || x < 0) {
				snprintf(err, errlen, "line %d: bad %s", lineno, line);
				return -1;
			}
			if (line[0] == 'e')
				h->every_ms = x > 1 << 30 ? 1 << 30 : (int)x;
			else
				h->started_unix_ms = x;
		}
	}
	return 0;
}

/* "SEQ UNIX_MS ELAPSED_MS\n" with SEQ zero-padded to six digits. */
int
rec_index_format(char *out, size_t n, const struct rec_snap *s)
{
	return snprintf(out, n, "%06u %lld %lld\n", s->seq, s->unix_ms, s->elapsed_ms);
}

/* Whether s holds only decimal digits (and at least one). */
static bool
digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* Keep each complete line of three numbers. */
int
rec_index_parse(const char *buf, size_t len, struct rec_snap **snaps)
{
	const char	*p = buf, *end = buf + len;
	char		 line[128];
	int		 n = 0;

	free(*snaps);
	*snaps = NULL;
	while (p < end) {
		const char	*nl = memchr(p, '\n', (size_t)(end - p));
		char		*f[3], *save = NULL;
		struct rec_snap	 s;
		int		 k = 0;

		if (!nl)
			break;		/* not yet a whole line */
		if ((size_t)(nl - p) >= sizeof(line)) {
			p = nl + 1;	/* too long to be one */
			continue;
		}
		next_line(&p, end, line, sizeof(line));
		for (char *t = strtok_r(line, " ", &save); t; t = strtok_r(NULL, " ", &save))
			if (k < 3)
				f[k++] = t;
			else
				k = 4;
		/* 18 digits at most: a number that fits a long long */
		if (k != 3 || !digits(f[0]) || !digits(f[1]) || !digits(f[2]) ||
		    strlen(f[0]) != 6 || strlen(f[1]) > 18 || strlen(f[2]) > 18)
			continue;
		s.seq = (unsigned)strtoul(f[0], NULL, 10);
		s.unix_ms = strtoll(f[1], NULL, 10);
		s.elapsed_ms = strtoll(f[2], NULL, 10);
		*snaps = xrealloc(*snaps, (size_t)(n + 1) * sizeof(**snaps));
		(*snaps)[n++] = s;
	}
	return n;
}

/* Why a pattern cannot be used; NULL when it can. */
const char *
rec_pattern_bad(const char *p)
{
	const char	*c, *e;

	if (strpbrk(p, " \t"))
		return "expected one path or glob per line";
	if (*p == '/')
		return "absolute path (patterns are relative to the root)";
	for (c = p; *c; c = *e == '/' ? e + 1 : e) {
		e = strchrnul(c, '/');
		if (e - c == 2 && c[0] == '.' && c[1] == '.')
			return "'..' would leave the root";
	}
	return NULL;
}

/* One pattern per line, comments and blanks stripped. */
int
rec_files_parse(const char *buf, size_t len, struct rec_files *fs,
    unsigned *lineno, char *err, size_t errlen)
{
	const char	*p = buf, *end = buf + len, *why;
	char		 line[4096], *s, *e;

	*lineno = 0;
	while (next_line(&p, end, line, sizeof(line))) {
		(*lineno)++;
		if ((s = strchr(line, '#')))
			*s = '\0';
		for (s = line; *s == ' ' || *s == '\t'; s++)
			;
		for (e = s + strlen(s); e > s && strchr(" \t\r", e[-1]); e--)
			;
		*e = '\0';
		if (!*s)
			continue;
		if ((why = rec_pattern_bad(s))) {
			snprintf(err, errlen, "%s: %s", why, s);
			return -1;
		}
		fs->pat = xrealloc(fs->pat, (size_t)(fs->n + 1) * sizeof(*fs->pat));
		fs->pat[fs->n++] = xstrdup(s);
	}
	return 0;
}

/* fnmatch each pattern; '*' stays within one path component. */
bool
rec_files_match(const struct rec_files *fs, const char *rel)
{
	for (int i = 0; i < fs->n; i++)
		if (fnmatch(fs->pat[i], rel, FNM_PATHNAME) == 0)
			return true;
	return false;
}

/* A line equal to pat. */
bool
rec_files_has(const struct rec_files *fs, const char *pat)
{
	for (int i = 0; i < fs->n; i++)
		if (!strcmp(fs->pat[i], pat))
			return true;
	return false;
}

/* Free every pattern and the array. */
void
rec_files_free(struct rec_files *fs)
{
	for (int i = 0; i < fs->n; i++)
		free(fs->pat[i]);
	free(fs->pat);
	fs->pat = NULL;
	fs->n = 0;
}
