/* SPDX-License-Identifier: GPL-2.0-only */
/* mirror-policy.c - exported paths, the allowlist, symlink text (see
 * mirror-policy.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mirror-policy.h"
#include "util.h"

struct allowlist {
	size_t		 n;
	char		**pat;
};

/* Whether path is "/", /proc, /sys or below one of them. */
static int
exported(const char *path)
{
	if (strcmp(path, "/") == 0)
		return 1;
	if (strncmp(path, "/proc", 5) == 0 &&
	    (path[5] == '\0' || path[5] == '/'))
		return 1;
	if (strncmp(path, "/sys", 4) == 0 &&
	    (path[4] == '\0' || path[4] == '/'))
		return 1;
	return 0;
}

/* Normalize an absolute guest path; see mirror-policy.h. */
int
mirror_path_normalize(const char *in, char *out, size_t size)
{
	const char	*p = in, *q;
	size_t		 o = 0, n;

	if (size < 2)
		return -ENAMETOOLONG;
	if (in[0] != '/')
		return -EINVAL;
	out[0] = '\0';
	while (*p != '\0') {
		while (*p == '/')
			p++;
		for (q = p; *q != '\0' && *q != '/'; q++)
			;
		n = q - p;
		if (n == 0 || (n == 1 && p[0] == '.')) {
			/* nothing */
		} else if (n == 2 && p[0] == '.' && p[1] == '.') {
			while (o > 0 && out[o] != '/')
				o--;
			out[o] = '\0';
		} else {
			if (o + 1 + n + 1 > size)
				return -ENAMETOOLONG;
			out[o++] = '/';
			memcpy(out + o, p, n);
			o += n;
			out[o] = '\0';
		}
		p = q;
	}
	if (o == 0) {
		out[0] = '/';
		out[1] = '\0';
	}
	return exported(out) ? 0 : -EACCES;
}

/* Number of components of a normalized absolute path ("/" has none). */
static int
depth_of(const char *path)
{
	int	d = 0;

	for (; *path != '\0'; path++)
		if (*path == '/' && path[1] != '\0')
			d++;
	return d;
}

/*
 * Whether a relative target is "../" * k then plain components, with k
 * at most depth: the host then resolves it inside the mount exactly as
 * the guest does.
 */
static int
target_safe(const char *target, int depth)
{
	const char	*p = target, *q;
	int		 ups = 0, plain = 0;
	size_t		 n;

	if (*target == '/')
		return 0;
	while (*p != '\0') {
		for (q = p; *q != '\0' && *q != '/'; q++)
			;
		n = q - p;
		if (n == 2 && p[0] == '.' && p[1] == '.') {
			if (plain || ++ups > depth)
				return 0;
		} else if (n != 0 && !(n == 1 && p[0] == '.'))
			plain = 1;
		p = *q == '/' ? q + 1 : q;
	}
	return 1;
}

/* Lexically resolve a target from dir, clamping ".." at "/". */
static int
resolve_lexical(const char *dir, const char *target, char *out, size_t size)
{
	char	*tmp;
	int	 r;

	if (*target == '/')
		tmp = xstrdup(target);
	else
		tmp = xasprintf("%s/%s", dir, target);
	r = mirror_path_normalize(tmp, out, size);
	free(tmp);
	return r == -EACCES ? 0 : r;	/* any guest path is fine here */
}

/* The symlink text to return for a guest symlink; see mirror-policy.h. */
int
mirror_link_text(const char *linkpath, const char *target, char *out,
    size_t size)
{
	char		 dir[PATH_MAX], res[PATH_MAX];
	const char	*a, *b;
	size_t		 o = 0, n;
	int		 d, common = 0, r, i;

	n = strlen(linkpath);
	if (n >= sizeof dir)
		return -ENAMETOOLONG;
	memcpy(dir, linkpath, n + 1);
	while (n > 1 && dir[n - 1] != '/')
		n--;
	dir[n > 1 ? n - 1 : 1] = '\0';		/* dirname */
	d = depth_of(dir);

	if (target_safe(target, d)) {
		n = strlen(target);
		if (n + 1 > size)
			return -ENAMETOOLONG;
		memcpy(out, target, n + 1);
		return n;
	}
	if ((r = resolve_lexical(dir, target, res, sizeof res)) != 0)
		return r;

	/* Count the leading components dir and res share. */
	a = dir;
	b = res;
	for (;;) {
		const char	*ea, *eb;

		if (*a == '/')
			a++;
		if (*b == '/')
			b++;
		if (*a == '\0' || *b == '\0')
			break;
		ea = strchrnul(a, '/');
		eb = strchrnul(b, '/');
		if (ea - a != eb - b || memcmp(a, b, ea - a) != 0)
			break;
		common++;
		a = ea;
		b = eb;
	}
	out[0] = '\0';
	for (i = common; i < d; i++) {
		if (o + 4 > size)
			return -ENAMETOOLONG;
		memcpy(out + o, o == 0 ? ".." : "/..", o == 0 ? 3 : 4);
		o += o == 0 ? 2 : 3;
	}
	/* b points at the first unshared component of res (or its end). */
	if (*b != '\0') {
		n = strlen(b);
		if (o + 1 + n + 1 > size)
			return -ENAMETOOLONG;
		if (o > 0)
			out[o++] = '/';
		memcpy(out + o, b, n + 1);
		o += n;
	}
	if (o == 0) {
		if (size < 2)
			return -ENAMETOOLONG;
		memcpy(out, ".", 2);
		o = 1;
	}
	return o;
}

/* Check one allowlist pattern; NULL when fine, else the reason. */
static const char *
pattern_bad(const char *pat)
{
	char	norm[PATH_MAX];
	int	r;

	if (pat[0] != '/')
		return "not an absolute path";
	r = mirror_path_normalize(pat, norm, sizeof norm);
	if (r == -ENAMETOOLONG)
		return "path too long";
	if (r != 0 || strcmp(norm, "/") == 0 || strcmp(norm, "/proc") == 0 ||
	    strcmp(norm, "/sys") == 0)
		return "not a path below /proc or /sys";
	if (strcmp(norm, pat) != 0)
		return "not a normalized path (no //, . or .., no trailing /)";
	return NULL;
}

struct allow_ctx {
	struct allowlist	*al;
	const char		*path;
	FILE			*log;
};

/* Take one allowlist line; -EINVAL (after logging why) if bad. */
static int
allow_line(char *p, unsigned lineno, void *arg)
{
	struct allow_ctx	*c = arg;
	struct allowlist	*al = c->al;
	const char		*why;

	if (strpbrk(p, " \t") != NULL)
		why = "expected one path or glob per line";
	else if ((why = pattern_bad(p)) == NULL) {
		al->pat = xrealloc(al->pat, (al->n + 1) * sizeof *al->pat);
		al->pat[al->n++] = xstrdup(p);
		return 0;
	}
	fprintf(c->log, "%s:%u: %s: %s\n", c->path, lineno, why, p);
	return -EINVAL;
}

/* Load the allowlist file; see mirror-policy.h. */
struct allowlist *
allowlist_load(const char *path, FILE *log)
{
	struct allow_ctx	c = { .path = path, .log = log ? log : stderr };
	int			r;

	c.al = xcalloc(1, sizeof *c.al);
	if ((r = conf_lines(path, allow_line, &c)) < 0) {
		if (r != -EINVAL)
			fprintf(c.log, "%s: cannot open allowlist: %s\n", path,
			    strerror(-r));
		allowlist_free(c.al);
		return NULL;
	}
	return c.al;
}

/* Free an allowlist. */
void
allowlist_free(struct allowlist *al)
{
	size_t	i;

	if (al == NULL)
		return;
	for (i = 0; i < al->n; i++)
		free(al->pat[i]);
	free(al->pat);
	free(al);
}

/* Whether a normalized guest path is on the allowlist. */
int
allowlist_match(const struct allowlist *al, const char *path)
{
	size_t	i;

	for (i = 0; i < al->n; i++)
		if (fnmatch(al->pat[i], path, FNM_PATHNAME | FNM_PERIOD) == 0)
			return 1;
	return 0;
}
