/* SPDX-License-Identifier: GPL-2.0-only */
/* parse-util.c - line and token helpers shared by the parsers; see parse.h. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "util.h"

/* Point the cursor at the start of buf. */
void
lines_init(struct lines *l, const char *buf, size_t len)
{
	l->p = buf;
	l->end = buf ? buf + len : buf;
	l->lineno = 0;
}

/* Return the next line (without '\n'); 0 once the input is used up. */
int
lines_next(struct lines *l, struct tok *line)
{
	const char	*nl;

	if (!l->p || l->p >= l->end)
		return 0;
	nl = memchr(l->p, '\n', (size_t)(l->end - l->p));
	line->s = l->p;
	line->n = (size_t)((nl ? nl : l->end) - l->p);
	l->p = nl ? nl + 1 : l->end;
	l->lineno++;
	return 1;
}

/* Whether c separates tokens. */
static bool
blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\0';
}

/* Split at blanks; store at most max tokens, return how many there were. */
int
tok_split(struct tok s, struct tok *toks, int max)
{
	size_t	i = 0;
	int	n = 0;

	while (i < s.n) {
		size_t	st;

		while (i < s.n && blank(s.s[i]))
			i++;
		if (i >= s.n)
			break;
		st = i;
		while (i < s.n && !blank(s.s[i]))
			i++;
		if (n < max) {
			toks[n].s = s.s + st;
			toks[n].n = i - st;
		}
		n++;
	}
	return n;
}

/* Compare a token with a C string. */
bool
tok_eq(struct tok t, const char *s)
{
	size_t	n = strlen(s);

	return t.n == n && memcmp(t.s, s, n) == 0;
}

/* Parse a leading run of decimal digits. */
bool
tok_u64_prefix(struct tok t, u64 *v, struct tok *rest)
{
	size_t	i = 0;
	u64	x = 0;

	while (i < t.n && t.s[i] >= '0' && t.s[i] <= '9') {
		unsigned	d = (unsigned)(t.s[i] - '0');

		if (x > (~0ULL - d) / 10)
			return false;
		x = x * 10 + d;
		i++;
	}
	if (i == 0)
		return false;
	*v = x;
	if (rest) {
		rest->s = t.s + i;
		rest->n = t.n - i;
	}
	return true;
}

/* Parse a whole token as decimal. */
bool
tok_u64(struct tok t, u64 *v)
{
	struct tok	rest;

	return tok_u64_prefix(t, v, &rest) && rest.n == 0;
}

/* Parse a whole token as a signed decimal. */
bool
tok_s64(struct tok t, long long *v)
{
	bool	neg = t.n > 0 && t.s[0] == '-';
	u64	x;

	if (neg) {
		t.s++;
		t.n--;
	}
	if (!tok_u64(t, &x) || x > (u64)1 << 62)
		return false;
	*v = neg ? -(long long)x : (long long)x;
	return true;
}

/* Parse "0x..." hexadecimal. */
bool
tok_hex(struct tok t, u64 *v)
{
	u64	x = 0;
	size_t	i;

	if (t.n < 3 || t.s[0] != '0' || (t.s[1] != 'x' && t.s[1] != 'X'))
		return false;
	for (i = 2; i < t.n; i++) {
		char		c = t.s[i];
		unsigned	d;

		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			d = (unsigned)(c - 'A' + 10);
		else
			return false;
		if (x >> 60)
			return false;
		x = x << 4 | d;
	}
	*v = x;
	return true;
}

/* Copy a token into a fixed buffer. */
void
tok_copy(char *dst, size_t n, struct tok t)
{
	size_t	k = t.n < n - 1 ? t.n : n - 1;

	memcpy(dst, t.s, k);
	dst[k] = '\0';
}

/* A last line without its newline: the read was cut. */
bool
cut_short(char *err, const char *buf, size_t len, int lineno, const char *what)
{
	if (len == 0 || buf[len - 1] == '\n')
		return false;
	perr(err, lineno, "%s truncated (no final newline)", what);
	return true;
}

/* Keep the first error message only. */
void
perr(char *err, int lineno, const char *fmt, ...)
{
	va_list	ap;
	int	k = 0;

	if (err[0])
		return;
	if (lineno > 0)
		k = snprintf(err, PERR_LEN, "line %d: ", lineno);
	va_start(ap, fmt);
	vsnprintf(err + k, PERR_LEN - (size_t)k, fmt, ap);
	va_end(ap);
}

/* Append a pair, growing the array as needed. */
void
kv_add(struct kvlist *l, struct tok name, u64 val)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 64;
		l->v = xrealloc(l->v, (size_t)l->cap * sizeof(*l->v));
	}
	tok_copy(l->v[l->n].name, sizeof(l->v[l->n].name), name);
	l->v[l->n].val = val;
	l->n++;
}

/* Find name, or append it with value 0. */
u64 *
kv_slot(struct kvlist *l, struct tok name)
{
	char key[sizeof(l->v[0].name)];

	tok_copy(key, sizeof(key), name);
	for (int i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].name, key))
			return &l->v[i].val;
	kv_add(l, name, 0);
	return &l->v[l->n - 1].val;
}

/* Linear search by name (lists are a few hundred entries). */
bool
kv_get(const struct kvlist *l, const char *name, u64 *val)
{
	for (int i = 0; i < l->n; i++)
		if (l->v[i].name[0] == name[0] && !strcmp(l->v[i].name, name)) {
			*val = l->v[i].val;
			return true;
		}
	return false;
}

/* The value or 0. */
u64
kv_val(const struct kvlist *l, const char *name)
{
	u64	v = 0;

	kv_get(l, name, &v);
	return v;
}

/* Free the storage and reset to empty. */
void
kv_free(struct kvlist *l)
{
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
}

/* One "Node N, zone NAME v..." row per line; see parse.h. */
int
zone_rows(const char *buf, size_t len, char *err,
    const struct zone_row_ops *ops, void *arg)
{
	struct lines	l;
	struct tok	line, t[4 + P_MAX_ORDERS + 1];
	const int	max = 4 + P_MAX_ORDERS + 1;
	int		nz = 0;

	err[0] = '\0';
	lines_init(&l, buf, len);
	while (lines_next(&l, &line)) {
		int	 n = tok_split(line, t, max), *node, *norders;
		char	*name;

		if (n == 0)
			continue;
		if (n > max)
			n = max;
		if (nz >= P_MAX_ZONES) {
			perr(err, l.lineno, "more than %d zones", P_MAX_ZONES);
			break;
		}
		ops->slot(arg, nz, &node, &name, &norders);
		if (!tok_node_zone(t, n, node, name) || n < 5) {
			perr(err, l.lineno, "expected 'Node N, zone NAME %s...'", ops->whats);
			continue;
		}
		*norders = 0;
		for (int i = 4; i < n && *norders < P_MAX_ORDERS; i++) {
			if (!ops->value(arg, nz, *norders, t[i])) {
				perr(err, l.lineno, "bad %s for order %d", ops->what, *norders);
				break;
			}
			(*norders)++;
		}
		nz++;
	}
	cut_short(err, buf, len, l.lineno, ops->file);
	if (nz == 0)
		perr(err, 0, "%s: no zones", ops->file);
	return nz;
}

/* Match the "Node N, zone NAME" prefix used by several /proc files. */
bool
tok_node_zone(const struct tok *t, int n, int *node, char *name)
{
	struct tok	rest, z;
	u64		v;

	if (n < 4 || !tok_eq(t[0], "Node") || !tok_eq(t[2], "zone"))
		return false;
	if (!tok_u64_prefix(t[1], &v, &rest) || !tok_eq(rest, ",") || v > 1 << 20)
		return false;
	z = t[3];
	if (z.n && z.s[z.n - 1] == ',')
		z.n--;
	if (z.n == 0)
		return false;
	*node = (int)v;
	tok_copy(name, P_NAME_LEN, z);
	return true;
}
