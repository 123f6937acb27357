/* SPDX-License-Identifier: GPL-2.0-only */
/* patchin.c - patches from files, directories, mboxes and git (patchin.h). */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdarg.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "patchin.h"
#include "spawn.h"
#include "util.h"

/* Inputs larger than this are refused (a patch series, not a tarball). */
#define PATCHIN_MAX	(64u << 20)

/* ---- a growing string ---------------------------------------------------- */

struct sbuf {
	char	*s;
	size_t	 len, cap;
};

/* Append n bytes to b. */
static void
sb_add(struct sbuf *b, const char *p, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		b->s = xrealloc(b->s, b->cap);
	}
	memcpy(b->s + b->len, p, n);
	b->len += n;
	b->s[b->len] = '\0';
}

/* Append a line and its newline. */
static void
sb_line(struct sbuf *b, const char *p, size_t n)
{
	sb_add(b, p, n);
	sb_add(b, "\n", 1);
}

/* ---- lines --------------------------------------------------------------- */

struct line {
	const char	*p;
	size_t		 n;	/* without the newline */
};

/* Split buf into lines (a last line without newline counts). */
static struct line *
split_lines(const char *buf, size_t len, size_t *nl)
{
	struct line	*v = NULL;
	size_t		 cap = 0, i = 0, start;

	*nl = 0;
	while (i < len) {
		start = i;
		while (i < len && buf[i] != '\n')
			i++;
		if (*nl == cap) {
			cap = cap ? cap * 2 : 256;
			v = xrealloc(v, cap * sizeof *v);
		}
		v[*nl].p = buf + start;
		v[*nl].n = i - start;
		(*nl)++;
		if (i < len)
			i++;
	}
	return v;
}

/* Whether line l starts with the string pfx. */
static int
starts(const struct line *l, const char *pfx)
{
	size_t	n = strlen(pfx);

	return l->n >= n && memcmp(l->p, pfx, n) == 0;
}

/* ---- paths ---------------------------------------------------------------- */

/*
 * Check one path of a diff header and return its -p1 form (allocated),
 * or NULL for /dev/null; on a path that leaves the tree, NULL with err.
 */
static char *
diff_path(const char *p, size_t n, int strip, char *err, size_t errlen)
{
	char	*s, *q, *c;
	size_t	 i, len;

	err[0] = '\0';
	/* The name ends at a tab (a timestamp may follow). */
	for (i = 0; i < n && p[i] != '\t'; i++)
		;
	n = i;
	while (n > 0 && p[n - 1] == ' ')
		n--;
	if (n >= 2 && p[0] == '"' && p[n - 1] == '"') {
		p++;
		n -= 2;
	}
	s = xasprintf("%.*s", (int)n, p);
	if (strcmp(s, "/dev/null") == 0) {
		free(s);
		return NULL;
	}
	if (n == 0 || s[0] == '/' || memchr(s, '\0', n) != NULL ||
	    strchr(s, '\\') != NULL) {
		snprintf(err, errlen, "path '%s' is absolute or malformed", s);
		free(s);
		return NULL;
	}
	/* A name ending in ".." is "..", or a mangled one: refused too. */
	for (c = s; c != NULL; c = q) {
		q = strchr(c, '/');
		len = q ? (size_t)(q - c) : strlen(c);
		if (len >= 2 && c[len - 2] == '.' && c[len - 1] == '.') {
			snprintf(err, errlen, "path '%s' leaves the tree "
			    "(a name ending in ..)", s);
			free(s);
			return NULL;
		}
		if (q != NULL)
			q++;
	}
	if (strip) {
		if ((q = strchr(s, '/')) == NULL || q[1] == '\0') {
			snprintf(err, errlen, "path '%s' has no a/ or b/ prefix "
			    "(patches apply with -p1)", s);
			free(s);
			return NULL;
		}
		if (q[1] == '/') {
			snprintf(err, errlen, "path '%s' is absolute without its "
			    "a/ or b/ prefix", s);
			free(s);
			return NULL;
		}
		memmove(s, q + 1, strlen(q + 1) + 1);
	}
	return s;
}

/* Add f to m's file list unless it is there. */
static void
add_file(struct pmsg *m, char *f)
{
	int	i;

	if (f == NULL)
		return;
	for (i = 0; i < m->nfiles; i++) {
		if (strcmp(m->files[i], f) == 0) {
			free(f);
			return;
		}
	}
	m->files = xrealloc(m->files, (m->nfiles + 1) * sizeof *m->files);
	m->files[m->nfiles++] = f;
}

/* Record an error on m (the first one wins). */
static void
msg_err(struct pmsg *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
msg_err(struct pmsg *m, const char *fmt, ...)
{
	va_list	ap;

	if (m->err != NULL)
		return;
	va_start(ap, fmt);
	m->err = xvasprintf(fmt, ap);
	va_end(ap);
}

/* Check a header path of m; on a bad one, m->err.  Returns 0 or -1. */
static int
check_path(struct pmsg *m, const char *p, size_t n, int strip, int record)
{
	char	 err[512], *f;

	f = diff_path(p, n, strip, err, sizeof err);
	if (err[0] != '\0') {
		msg_err(m, "%s", err);
		return -1;
	}
	if (record)
		add_file(m, f);
	else
		free(f);
	return 0;
}

/*
 * Check the paths of a "diff --git a/X b/Y" line (the words after its
 * prefix; a word with an a/ or b/ prefix as -p1); on a bad one, m->err.
 */
static void
check_git_line(struct pmsg *m, const char *p, size_t n)
{
	size_t	i = 0, j;

	while (i < n && m->err == NULL) {
		while (i < n && p[i] == ' ')
			i++;
		for (j = i; j < n && p[j] != ' '; j++)
			;
		if (j > i) {
			check_path(m, p + i, j - i, j - i > 2 &&
			    (p[i] == 'a' || p[i] == 'b') && p[i + 1] == '/', 0);
		}
		i = j;
	}
}

/* ---- diffs ---------------------------------------------------------------- */

/* Git's extended header lines, kept (index lines are dropped). */
static const char *git_hdrs[] = {
	"old mode ", "new mode ", "deleted file mode ", "new file mode ",
	"similarity index ", "dissimilarity index ", "rename from ",
	"rename to ", "copy from ", "copy to ", NULL
};

/* Parse "@@ -a[,b] +c[,d] @@"; 0 with the two lengths, or -1. */
static int
hunk_head(const struct line *l, long *old, long *new)
{
	char	 buf[128];
	long	 a, b = 1, c, d = 1;
	char	*p, *e;

	if (l->n >= sizeof buf)
		memcpy(buf, l->p, sizeof buf - 1), buf[sizeof buf - 1] = '\0';
	else
		memcpy(buf, l->p, l->n), buf[l->n] = '\0';
	p = buf + 4;
	a = strtol(p, &e, 10);
	if (e == p || a < 0)
		return -1;
	if (*e == ',') {
		p = e + 1;
		b = strtol(p, &e, 10);
		if (e == p || b < 0)
			return -1;
	}
	if (strncmp(e, " +", 2) != 0)
		return -1;
	p = e + 2;
	c = strtol(p, &e, 10);
	if (e == p || c < 0)
		return -1;
	if (*e == ',') {
		p = e + 1;
		d = strtol(p, &e, 10);
		if (e == p || d < 0)
			return -1;
	}
	if (strncmp(e, " @@", 3) != 0 || b > 10000000 || d > 10000000)
		return -1;
	*old = b;
	*new = d;
	return 0;
}

/*
 * Take the diff out of a message body: every file section (git header,
 * ---/+++ and the hunks their ranges count).  Fills m->diff, files,
 * nhunks; a malformed or unsafe diff sets m->err.
 */
static void
extract_diff(struct pmsg *m, const char *body, size_t len)
{
	struct line	*L;
	struct sbuf	 out = { 0 };
	size_t		 n, i = 0, j;
	long		 o, w;
	const char	*cur = "?";
	char		 curbuf[256];
	int		 k, git, found = 0;

	L = split_lines(body, len, &n);
	while (i < n && m->err == NULL) {
		git = 0;
		if (starts(&L[i], "diff --git ")) {
			git = 1;
			check_git_line(m, L[i].p + 11, L[i].n - 11);
			sb_line(&out, L[i].p, L[i].n);
			i++;
			while (i < n && !starts(&L[i], "--- ") &&
			    !starts(&L[i], "diff --git ") && !starts(&L[i], "@@ ")) {
				if (starts(&L[i], "GIT binary patch") ||
				    starts(&L[i], "Binary files ")) {
					msg_err(m, "binary patches are not supported");
					break;
				}
				if (starts(&L[i], "index ")) {
					i++;
					continue;
				}
				for (k = 0; git_hdrs[k] != NULL; k++)
					if (starts(&L[i], git_hdrs[k]))
						break;
				if (git_hdrs[k] == NULL)
					break;
				if (strncmp(git_hdrs[k], "rename ", 7) == 0 ||
				    strncmp(git_hdrs[k], "copy ", 5) == 0) {
					size_t h = strlen(git_hdrs[k]);

					check_path(m, L[i].p + h, L[i].n - h, 0, 1);
				}
				sb_line(&out, L[i].p, L[i].n);
				i++;
			}
			found = 1;
			if (i >= n || !starts(&L[i], "--- "))
				continue;
		}
		if (!starts(&L[i], "--- ") || i + 1 >= n || !starts(&L[i + 1], "+++ ") ||
		    (i + 2 < n && !starts(&L[i + 2], "@@ -") && !git)) {
			i++;
			continue;
		}
		check_path(m, L[i].p + 4, L[i].n - 4, 1, 1);
		check_path(m, L[i + 1].p + 4, L[i + 1].n - 4, 1, 1);
		snprintf(curbuf, sizeof curbuf, "%.*s", (int)(L[i + 1].n - 4 > 200 ?
		    200 : L[i + 1].n - 4), L[i + 1].p + 4);
		cur = curbuf;
		sb_line(&out, L[i].p, L[i].n);
		sb_line(&out, L[i + 1].p, L[i + 1].n);
		i += 2;
		found = 1;
		k = 0;
		while (i < n && starts(&L[i], "@@ -") && m->err == NULL) {
			k++;
			if (hunk_head(&L[i], &o, &w) < 0) {
				msg_err(m, "%s: hunk #%d: malformed @@ line", cur, k);
				break;
			}
			sb_line(&out, L[i].p, L[i].n);
			for (i++; (o > 0 || w > 0) && i < n; i++) {
				char c = L[i].n ? L[i].p[0] : ' ';

				if (c == ' ')
					o--, w--;
				else if (c == '-')
					o--;
				else if (c == '+')
					w--;
				else if (c != '\\')
					break;
				if (o < 0 || w < 0)
					break;
				if (L[i].n == 0)
					sb_line(&out, " ", 1);
				else
					sb_line(&out, L[i].p, L[i].n);
			}
			if (o != 0 || w != 0) {
				msg_err(m, "%s: hunk #%d ends early (line %zu of the "
				    "message: %ld old and %ld new lines missing)", cur, k,
				    i + 1, o > 0 ? o : 0, w > 0 ? w : 0);
				break;
			}
			for (j = i; j < n && L[j].n > 0 && L[j].p[0] == '\\'; j++)
				sb_line(&out, L[j].p, L[j].n);
			i = j;
			m->nhunks++;
		}
		if (k == 0 && m->err == NULL)
			msg_err(m, "%s: ---/+++ lines without a hunk", cur);
	}
	free(L);
	if (found && m->err == NULL)
		m->diff = out.s ? out.s : xstrdup("");
	else
		free(out.s);
}

/* ---- mail ----------------------------------------------------------------- */

/* The value of hex digit c, or -1. */
static int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Decode quoted-printable text (soft breaks, =XX). */
static char *
qp_decode(const char *s, size_t n, size_t *outn)
{
	char	*o = xmalloc(n + 1);
	size_t	 i, k = 0;

	for (i = 0; i < n; i++) {
		if (s[i] == '=' && i + 1 < n && s[i + 1] == '\n') {
			i++;
		} else if (s[i] == '=' && i + 2 < n && hexval(s[i + 1]) >= 0 &&
		    hexval(s[i + 2]) >= 0) {
			o[k++] = (char)(hexval(s[i + 1]) * 16 + hexval(s[i + 2]));
			i += 2;
		} else {
			o[k++] = s[i];
		}
	}
	o[k] = '\0';
	*outn = k;
	return o;
}

static char	*header(const char *, size_t, const char *);

/* The value of base64 digit c, or -1. */
static int
b64val(int c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	return c == '+' ? 62 : c == '/' ? 63 : -1;
}

/* Decode base64 (white space skipped, '=' ends it); NULL on a bad byte. */
static char *
b64_decode(const char *s, size_t n, size_t *outn)
{
	char		*o = xmalloc(n / 4 * 3 + 4);
	unsigned	 v = 0;
	int		 bits = 0, d;
	size_t		 i, k = 0;

	for (i = 0; i < n; i++) {
		if (s[i] == '\n' || s[i] == '\r' || s[i] == ' ' || s[i] == '\t')
			continue;
		if (s[i] == '=')
			break;
		if ((d = b64val((unsigned char)s[i])) < 0) {
			free(o);
			return NULL;
		}
		v = (v << 6 | (unsigned)d) & 0xffffff;
		if ((bits += 6) >= 8) {
			bits -= 8;
			o[k++] = (char)(v >> bits & 0xff);
		}
	}
	o[k] = '\0';
	*outn = k;
	return o;
}

/* multipart's boundary parameter of a Content-Type value, allocated or NULL. */
static char *
mime_boundary(const char *ct)
{
	const char	*p = strcasestr(ct, "boundary="), *e;

	if (p == NULL)
		return NULL;
	p += 9;
	if (*p == '"')
		e = strchr(++p, '"');
	else
		e = p + strcspn(p, "; \t");
	if (e == NULL || e == p || e - p > 200)
		return NULL;
	return xasprintf("%.*s", (int)(e - p), p);
}

/*
 * Append the text of a mail body (headers h) to out: decoded from
 * quoted-printable or base64; of a multipart body the text/plain and
 * patch or diff parts, in order (others, like HTML or a signature, are
 * left out).  Errors go to m.
 */
static void
mime_text(struct pmsg *m, const char *h, size_t hlen, const char *body,
    size_t blen, struct sbuf *out, int depth)
{
	char	*ct = header(h, hlen, "Content-Type");
	char	*cte = header(h, hlen, "Content-Transfer-Encoding");
	char	*b, *dec = NULL;
	size_t	 dn, bn, i, start = 0, ph;
	int	 in = 0;

	if (ct != NULL && strncasecmp(ct, "multipart/", 10) == 0 && depth < 4 &&
	    (b = mime_boundary(ct)) != NULL) {
		bn = strlen(b);
		/* A line "--B" starts a part, "--B--" ends the last. */
		for (i = 0; i <= blen; ) {
			size_t	 e = i;

			while (e < blen && body[e] != '\n')
				e++;
			if (e - i >= bn + 2 && body[i] == '-' && body[i + 1] == '-' &&
			    memcmp(body + i + 2, b, bn) == 0) {
				if (in) {
					/* The part: its headers up to a blank line. */
					for (ph = start; ph < i; ph++)
						if (body[ph] == '\n' && (ph + 1 >= i ||
						    body[ph + 1] == '\n'))
							break;
					if (ph < i)
						mime_text(m, body + start, ph + 1 - start,
						    body + ph + 2 > body + i ? body + i :
						    body + ph + 2, body + ph + 2 > body + i ?
						    0 : i - (ph + 2), out, depth + 1);
				}
				if (e - i >= bn + 4 && body[i + bn + 2] == '-' &&
				    body[i + bn + 3] == '-')
					break;
				in = 1;
				start = e + 1;
			}
			i = e + 1;
		}
		free(b);
		goto out;
	}
	if (ct != NULL && strncasecmp(ct, "text/plain", 10) != 0 &&
	    strcasestr(ct, "patch") == NULL && strcasestr(ct, "diff") == NULL &&
	    !(strncasecmp(ct, "application/octet-stream", 24) == 0 &&
	    (strcasestr(h, ".patch") != NULL || strcasestr(h, ".diff") != NULL)))
		goto out;	/* HTML, a signature, an image: not the patch */
	if (cte != NULL && strcasestr(cte, "quoted-printable") != NULL) {
		dec = qp_decode(body, blen, &dn);
	} else if (cte != NULL && strcasestr(cte, "base64") != NULL) {
		if ((dec = b64_decode(body, blen, &dn)) == NULL) {
			msg_err(m, "its base64 text has a byte that is not base64");
			goto out;
		}
	}
	if (dec != NULL)
		sb_add(out, dec, dn);
	else
		sb_add(out, body, blen);
	if (out->s != NULL && out->len > 0 && out->s[out->len - 1] != '\n')
		sb_add(out, "\n", 1);
out:
	free(dec);
	free(ct);
	free(cte);
}

/* Whether the text starts like a mail: a "From " line or header lines. */
static int
looks_like_mail(const char *buf, size_t len)
{
	size_t	i = 0, ls;
	int	subj = 0, nh = 0;

	if (len >= 5 && memcmp(buf, "From ", 5) == 0)
		return 1;
	while (i < len) {
		ls = i;
		while (i < len && buf[i] != '\n')
			i++;
		if (i == ls)
			break;		/* the blank line after headers */
		if (buf[ls] != ' ' && buf[ls] != '\t') {
			size_t k = ls;

			while (k < i && buf[k] != ':' && buf[k] != ' ')
				k++;
			if (k == ls || k >= i || buf[k] != ':')
				return 0;
			if (k - ls == 7 && strncasecmp(buf + ls, "Subject", 7) == 0)
				subj = 1;
			nh++;
		}
		i++;
	}
	return subj && nh > 0;
}

/* The value of header name in the folded header block, allocated. */
static char *
header(const char *h, size_t n, const char *name)
{
	struct line	*L;
	struct sbuf	 v = { 0 };
	size_t		 nl, i, k = strlen(name);
	int		 in = 0;

	L = split_lines(h, n, &nl);
	for (i = 0; i < nl; i++) {
		if (in && L[i].n > 0 && (L[i].p[0] == ' ' || L[i].p[0] == '\t')) {
			sb_add(&v, " ", 1);
			size_t s = 0;

			while (s < L[i].n && (L[i].p[s] == ' ' || L[i].p[s] == '\t'))
				s++;
			sb_add(&v, L[i].p + s, L[i].n - s);
			continue;
		}
		if (in)
			break;
		if (L[i].n > k && strncasecmp(L[i].p, name, k) == 0 &&
		    L[i].p[k] == ':') {
			size_t s = k + 1;

			while (s < L[i].n && L[i].p[s] == ' ')
				s++;
			sb_add(&v, L[i].p + s, L[i].n - s);
			in = 1;
		}
	}
	free(L);
	return v.s;
}

/* Read the [PATCH vV n/m] tag and the reply prefix of m's subject. */
static void
parse_subject(struct pmsg *m)
{
	const char	*s = m->subject, *b, *e, *p;
	char		 tag[256];
	int		 a, t;

	m->version = 1;
	if (s == NULL)
		return;
	while (*s == ' ')
		s++;
	if (strncasecmp(s, "Re:", 3) == 0 || strncasecmp(s, "Aw:", 3) == 0 ||
	    strncasecmp(s, "Fwd:", 4) == 0 || strncasecmp(s, "Fw:", 3) == 0) {
		m->is_reply = 1;
		return;
	}
	/* Every leading [...] tag; the one that says PATCH counts. */
	for (b = s; *b == '['; b = e + 1) {
		if ((e = strchr(b, ']')) == NULL || (size_t)(e - b) >= sizeof tag)
			break;
		memcpy(tag, b + 1, e - b - 1);
		tag[e - b - 1] = '\0';
		if (strcasestr(tag, "PATCH") != NULL) {
			for (p = strtok(tag, " "); p != NULL; p = strtok(NULL, " ")) {
				if ((p[0] == 'v' || p[0] == 'V') && isdigit((unsigned char)p[1]))
					m->version = atoi(p + 1);
				else if (sscanf(p, "%d/%d", &a, &t) == 2 && a >= 0 &&
				    t > 0 && a <= t && t <= 9999)
					m->num = a, m->total = t;
			}
		}
		while (e[1] == ' ')
			e++;
	}
}

/* Add one message (headers and body) or a plain diff to ps. */
static void
add_message(struct pset *ps, const char *origin, int idx, int nmsg,
    const char *buf, size_t len, int mail)
{
	struct pmsg	*m;
	const char	*body = buf, *h = buf;
	size_t		 hlen = 0, blen = len, i, dn;
	char		*dec = NULL, *un;
	struct line	*L;
	size_t		 nl;
	struct sbuf	 sb = { 0 }, txt = { 0 };

	ps->v = xrealloc(ps->v, (ps->n + 1) * sizeof *ps->v);
	m = &ps->v[ps->n++];
	memset(m, 0, sizeof *m);
	m->origin = nmsg > 1 ? xasprintf("%s: message %d", origin, idx) :
	    xstrdup(origin);
	if (mail) {
		if (len >= 5 && memcmp(buf, "From ", 5) == 0) {
			while (h < buf + len && *h != '\n')
				h++;
			if (h < buf + len)
				h++;
		}
		/* Headers end at the first blank line. */
		for (i = h - buf; i < len; i++)
			if (buf[i] == '\n' && (i + 1 >= len || buf[i + 1] == '\n'))
				break;
		hlen = i < len ? i + 1 - (h - buf) : len - (h - buf);
		body = h + hlen + (i + 1 < len ? 1 : 0);
		if (body > buf + len)
			body = buf + len;
		blen = buf + len - body;
		m->subject = header(h, hlen, "Subject");
		/* Undo mboxrd's ">From " escaping: one '>' off. */
		L = split_lines(body, blen, &nl);
		for (i = 0; i < nl; i++) {
			size_t g = 0;

			while (g < L[i].n && L[i].p[g] == '>')
				g++;
			if (g > 0 && L[i].n - g >= 5 && memcmp(L[i].p + g, "From ", 5) == 0)
				sb_line(&sb, L[i].p + 1, L[i].n - 1);
			else
				sb_line(&sb, L[i].p, L[i].n);
		}
		free(L);
		un = sb.s ? sb.s : xstrdup("");
		mime_text(m, h, hlen, un, strlen(un), &txt, 0);
		free(un);
		dec = txt.s ? txt.s : xstrdup("");
		dn = txt.s ? txt.len : 0;
		parse_subject(m);
		if (m->err == NULL)
			extract_diff(m, dec, dn);
		free(dec);
	} else {
		extract_diff(m, buf, len);
	}
}

/* Split an mbox or a plain diff into messages; CRs before newlines go. */
void
patchin_buf(struct pset *ps, const char *origin, const char *buf, size_t len)
{
	char	*c = xmalloc(len + 1);
	size_t	 i, k = 0, start, *at = NULL, nat = 0;
	int	 mail;

	for (i = 0; i < len; i++) {
		if (buf[i] == '\r' && i + 1 < len && buf[i + 1] == '\n')
			continue;
		c[k++] = buf[i];
	}
	c[k] = '\0';
	len = k;
	mail = looks_like_mail(c, len);
	if (!mail || len < 5 || memcmp(c, "From ", 5) != 0) {
		add_message(ps, origin, 1, 1, c, len, mail);
		free(c);
		return;
	}
	/* mbox: a message starts at a "From " line at the top or after a blank line. */
	for (i = 0; i < len; i++) {
		if ((i == 0 || (i >= 2 && c[i - 1] == '\n' && c[i - 2] == '\n') ||
		    (i == 1 && c[0] == '\n')) && len - i >= 5 &&
		    memcmp(c + i, "From ", 5) == 0) {
			at = xrealloc(at, (nat + 1) * sizeof *at);
			at[nat++] = i;
		}
	}
	for (i = 0; i < nat; i++) {
		start = at[i];
		k = i + 1 < nat ? at[i + 1] : len;
		add_message(ps, origin, (int)i + 1, (int)nat, c + start, k - start, 1);
	}
	free(at);
	free(c);
}

/* ---- selection ------------------------------------------------------------ */

/* Free one message's fields. */
static void
pmsg_free(struct pmsg *m)
{
	int	i;

	free(m->origin);
	free(m->subject);
	free(m->diff);
	free(m->err);
	for (i = 0; i < m->nfiles; i++)
		free(m->files[i]);
	free(m->files);
}

/* An empty list. */
void
pset_init(struct pset *ps)
{
	ps->v = NULL;
	ps->n = 0;
}

/* Free a list and its messages. */
void
pset_free(struct pset *ps)
{
	int	i;

	for (i = 0; i < ps->n; i++)
		pmsg_free(&ps->v[i]);
	free(ps->v);
	pset_init(ps);
}

/* Move message m onto out. */
static void
take(struct pset *out, struct pmsg *m)
{
	out->v = xrealloc(out->v, (out->n + 1) * sizeof *out->v);
	out->v[out->n++] = *m;
	memset(m, 0, sizeof *m);
}

/* Move every message of in onto out, in order; in is left empty. */
void
pset_move(struct pset *out, struct pset *in)
{
	int	i;

	for (i = 0; i < in->n; i++)
		take(out, &in->v[i]);
	pset_free(in);
}

/* Order a thread's patches; refuse gaps, duplicates and bad diffs. */
int
pset_select(struct pset *in, struct pset *out, struct pselect *sel,
    char *err, size_t errlen)
{
	struct pmsg	**slot = NULL;
	int		 i, vmax = 0, total = 0, nnum = 0, nplain = 0, rc = -1;

	err[0] = '\0';
	for (i = 0; i < in->n; i++) {
		struct pmsg *m = &in->v[i];

		if (m->is_reply || (m->total > 0 && m->num == 0))
			continue;
		if (m->err != NULL) {
			snprintf(err, errlen, "%s%s%s%s: %s", m->origin,
			    m->subject ? " (" : "", m->subject ? m->subject : "",
			    m->subject ? ")" : "", m->err);
			goto out;
		}
		if (m->diff == NULL)
			continue;
		if (m->total > 0) {
			if (m->version > vmax)
				vmax = m->version;
			nnum++;
		} else {
			nplain++;
		}
	}
	if (nnum > 0 && nplain > 0 && (sel == NULL || !sel->files)) {
		snprintf(err, errlen, "the input mixes numbered [PATCH n/m] messages "
		    "with unnumbered patches; give them one at a time");
		goto out;
	}
	if (nnum == 0) {
		for (i = 0; i < in->n; i++) {
			struct pmsg *m = &in->v[i];

			if (!m->is_reply && m->diff != NULL && m->total == 0)
				take(out, m);
		}
		if (nplain == 0) {
			snprintf(err, errlen, "no patch found (no diff in any message)");
			goto out;
		}
		rc = 0;
		goto out;
	}
	for (i = 0; i < in->n; i++) {
		struct pmsg *m = &in->v[i];

		if (m->is_reply || m->num == 0 || m->diff == NULL || m->version != vmax)
			continue;
		if (total == 0) {
			total = m->total;
			slot = xcalloc(total + 1, sizeof *slot);
		} else if (m->total != total) {
			snprintf(err, errlen, "%s: [PATCH %d/%d] does not belong to a "
			    "series of %d", m->origin, m->num, m->total, total);
			goto out;
		}
		if (slot[m->num] != NULL) {
			snprintf(err, errlen, "part %d/%d is there twice (%s and %s)",
			    m->num, total, slot[m->num]->origin, m->origin);
			goto out;
		}
		slot[m->num] = m;
	}
	if (sel != NULL)
		sel->missing[0] = '\0';
	for (i = 1; i <= total; i++) {
		size_t	l;

		if (slot[i] != NULL)
			continue;
		if (sel == NULL || !sel->partial) {
			snprintf(err, errlen, "the series of %d is incomplete: "
			    "[PATCH %d/%d] is missing (--partial takes the parts "
			    "that are there)", total, i, total);
			goto out;
		}
		l = strlen(sel->missing);
		snprintf(sel->missing + l, sizeof sel->missing - l, "%s[PATCH %d/%d]",
		    l ? ", " : "", i, total);
	}
	if (sel != NULL && sel->missing[0]) {
		size_t	l = strlen(sel->missing);

		snprintf(sel->missing + l, sizeof sel->missing - l,
		    " of the series of %d", total);
	}
	for (i = 0; sel != NULL && sel->files && i < in->n; i++) {
		struct pmsg *m = &in->v[i];

		/* files: an unnumbered one in its place, the series at its first part */
		if (m->is_reply || m->diff == NULL)
			continue;
		if (m->total == 0)
			take(out, m);
		else if (m->num > 0 && m->version == vmax)
			for (int k = 1; k <= total; k++)
				if (slot[k] != NULL)
					take(out, slot[k]);
	}
	for (i = 1; (sel == NULL || !sel->files) && i <= total; i++)
		if (slot[i] != NULL)
			take(out, slot[i]);
	rc = 0;
out:
	free(slot);
	pset_free(in);
	return rc;
}

/* ---- SHA-256 -------------------------------------------------------------- */

static const uint32_t sha_k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
	0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
	0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
	0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
	0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
	0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
	0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2
};

struct sha256 {
	uint32_t	h[8];
	uint8_t		blk[64];
	size_t		nblk;
	uint64_t	total;
};

/* Rotate right. */
static uint32_t
ror(uint32_t x, int n)
{
	return (x >> n) | (x << (32 - n));
}

/* The compression function on one 64-byte block. */
static void
sha_block(struct sha256 *c, const uint8_t *p)
{
	uint32_t	w[64], a, b, d, e, f, g, h, cc, t1, t2;
	int		i;

	for (i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		    (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (i = 16; i < 64; i++)
		w[i] = w[i - 16] + (ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^
		    (w[i - 15] >> 3)) + w[i - 7] + (ror(w[i - 2], 17) ^
		    ror(w[i - 2], 19) ^ (w[i - 2] >> 10));
	a = c->h[0]; b = c->h[1]; cc = c->h[2]; d = c->h[3];
	e = c->h[4]; f = c->h[5]; g = c->h[6]; h = c->h[7];
	for (i = 0; i < 64; i++) {
		t1 = h + (ror(e, 6) ^ ror(e, 11) ^ ror(e, 25)) +
		    ((e & f) ^ (~e & g)) + sha_k[i] + w[i];
		t2 = (ror(a, 2) ^ ror(a, 13) ^ ror(a, 22)) +
		    ((a & b) ^ (a & cc) ^ (b & cc));
		h = g; g = f; f = e; e = d + t1;
		d = cc; cc = b; b = a; a = t1 + t2;
	}
	c->h[0] += a; c->h[1] += b; c->h[2] += cc; c->h[3] += d;
	c->h[4] += e; c->h[5] += f; c->h[6] += g; c->h[7] += h;
}

/* Start a digest. */
static void
sha_init(struct sha256 *c)
{
	static const uint32_t iv[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372,
	    0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };

	memcpy(c->h, iv, sizeof iv);
	c->nblk = 0;
	c->total = 0;
}

/* Feed bytes. */
static void
sha_add(struct sha256 *c, const void *buf, size_t n)
{
	const uint8_t	*p = buf;

	c->total += n;
	while (n > 0) {
		size_t k = 64 - c->nblk < n ? 64 - c->nblk : n;

		memcpy(c->blk + c->nblk, p, k);
		c->nblk += k;
		p += k;
		n -= k;
		if (c->nblk == 64) {
			sha_block(c, c->blk);
			c->nblk = 0;
		}
	}
}

/* Pad, finish and print the digest as hex. */
static void
sha_end(struct sha256 *c, char hex[65])
{
	uint64_t	bits = c->total * 8;
	uint8_t		pad = 0x80, z = 0, len[8];
	int		i;

	sha_add(c, &pad, 1);
	while (c->nblk != 56)
		sha_add(c, &z, 1);
	for (i = 0; i < 8; i++)
		len[i] = (uint8_t)(bits >> (56 - 8 * i));
	sha_add(c, len, 8);
	for (i = 0; i < 8; i++)
		snprintf(hex + 8 * i, 9, "%08x", c->h[i]);
}

/* SHA-256 of a buffer. */
void
patchin_sha256(const void *buf, size_t len, char hex[65])
{
	struct sha256	c;

	sha_init(&c);
	sha_add(&c, buf, len);
	sha_end(&c, hex);
}

/* The hash of the diffs, in order, each ended by a NUL. */
void
pset_hash(const struct pset *ps, char hex[65])
{
	struct sha256	c;
	int		i;

	sha_init(&c);
	sha_add(&c, "umkit-patches-1", 16);
	for (i = 0; i < ps->n; i++)
		sha_add(&c, ps->v[i].diff, strlen(ps->v[i].diff) + 1);
	sha_end(&c, hex);
}

/* ---- readers --------------------------------------------------------------- */

/* Read a file whole; NULL with err. */
static char *
read_file(const char *path, size_t *len, char *err, size_t errlen)
{
	int	 fd;
	char	*s;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	s = read_fd_all(fd, PATCHIN_MAX, len);
	if (s == NULL)
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
	close(fd);
	return s;
}

/* Put "what: " before err unless it names what already; returns -1. */
static int
name_err(const char *what, char *err, size_t errlen)
{
	char	*t;

	if (strncmp(err, what, strlen(what)) == 0)
		return -1;
	t = xasprintf("%s: %s", what, err);
	snprintf(err, errlen, "%s", t);
	free(t);
	return -1;
}

/* A quilt directory: its series, each patch one diff. */
static int
read_quilt(const char *dir, struct pset *out, char *err, size_t errlen)
{
	char	*series, *buf, *line, *save, *p, *path;
	size_t	 len;
	int	 lineno = 0, rc = 0;
	struct pset in, sel;

	series = xasprintf("%s/series", dir);
	buf = read_file(series, &len, err, errlen);
	if (buf == NULL) {
		free(series);
		return -1;
	}
	for (line = strtok_r(buf, "\n", &save); line != NULL && rc == 0;
	    line = strtok_r(NULL, "\n", &save)) {
		char	*name, *opt, *sp;
		char	*t;
		size_t	 tl;

		lineno++;
		if ((p = strchr(line, '#')) != NULL)
			*p = '\0';
		if ((name = strtok_r(line, " \t", &sp)) == NULL)
			continue;
		if ((opt = strtok_r(NULL, " \t", &sp)) != NULL && strcmp(opt, "-p1") != 0) {
			snprintf(err, errlen, "%s:%d: option %s: only -p1 patches are "
			    "supported", series, lineno, opt);
			rc = -1;
			break;
		}
		if (name[0] == '/' || strstr(name, "..") != NULL) {
			snprintf(err, errlen, "%s:%d: %s is outside the directory",
			    series, lineno, name);
			rc = -1;
			break;
		}
		path = xasprintf("%s/%s", dir, name);
		if ((t = read_file(path, &tl, err, errlen)) == NULL) {
			snprintf(err, errlen, "%s:%d: names %s, which cannot be read",
			    series, lineno, name);
			free(path);
			rc = -1;
			break;
		}
		pset_init(&in);
		pset_init(&sel);
		patchin_buf(&in, path, t, tl);
		free(t);
		/* One quilt patch is one change, whatever its headers say. */
		for (int i = 0; i < in.n; i++)
			in.v[i].num = in.v[i].total = 0, in.v[i].is_reply = 0;
		if (pset_select(&in, &sel, NULL, err, errlen) < 0) {
			rc = -1;
		} else if (sel.n != 1) {
			snprintf(err, errlen, "%s: holds %d messages with diffs; a quilt "
			    "patch is one", path, sel.n);
			rc = -1;
		} else {
			take(out, &sel.v[0]);
		}
		pset_free(&sel);
		free(path);
	}
	free(buf);
	free(series);
	return rc;
}

/* Whether a directory entry's name is a patch or mail file. */
static int
patch_name(const struct dirent *d)
{
	static const char *ext[] = { ".patch", ".diff", ".mbox", ".eml", NULL };
	size_t	n = strlen(d->d_name), k;
	int	i;

	if (d->d_name[0] == '.')
		return 0;
	for (i = 0; ext[i] != NULL; i++) {
		k = strlen(ext[i]);
		if (n > k && strcmp(d->d_name + n - k, ext[i]) == 0)
			return 1;
	}
	return 0;
}

/* A directory of format-patch files: one thread, in name order. */
static int
read_dir(const char *dir, struct pset *out, struct pselect *sel, char *err,
    size_t errlen)
{
	struct dirent	**nl;
	struct pset	  in;
	char		 *path, *t;
	size_t		  tl;
	int		  n, i, rc = 0;

	if ((n = scandir(dir, &nl, patch_name, alphasort)) < 0) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return -1;
	}
	pset_init(&in);
	for (i = 0; i < n; i++) {
		path = xasprintf("%s/%s", dir, nl[i]->d_name);
		if (rc == 0 && (t = read_file(path, &tl, err, errlen)) != NULL) {
			patchin_buf(&in, path, t, tl);
			free(t);
		} else {
			rc = -1;
		}
		free(path);
		free(nl[i]);
	}
	free(nl);
	if (n == 0) {
		snprintf(err, errlen, "%s: no series file and no *.patch, *.diff, "
		    "*.mbox or *.eml files", dir);
		rc = -1;
	}
	if (rc < 0) {
		pset_free(&in);
		return -1;
	}
	if (pset_select(&in, out, sel, err, errlen) < 0)
		return name_err(dir, err, errlen);
	return 0;
}

/* One buffer's patches, selected, appended to out. */
static int
read_buf(const char *origin, const char *buf, size_t len, struct pset *out,
    struct pselect *sel, char *err, size_t errlen)
{
	struct pset	in, got;

	pset_init(&in);
	pset_init(&got);
	patchin_buf(&in, origin, buf, len);
	if (pset_select(&in, &got, sel, err, errlen) < 0)
		return name_err(origin, err, errlen);
	pset_move(out, &got);
	return 0;
}

/* A file, a directory or "-". */
int
patchin_path(const char *input, struct pset *out, struct pselect *sel,
    char *err, size_t errlen)
{
	struct stat	 sb;
	char		*buf, *series;
	size_t		 len;
	int		 rc;

	if (strcmp(input, "-") == 0) {
		if ((buf = read_fd_all(0, PATCHIN_MAX, &len)) == NULL) {
			snprintf(err, errlen, "standard input: %s", strerror(errno));
			return -1;
		}
		rc = read_buf("stdin", buf, len, out, sel, err, errlen);
		free(buf);
		return rc;
	}
	if (stat(input, &sb) < 0) {
		snprintf(err, errlen, "%s: %s", input, strerror(errno));
		return -1;
	}
	if (S_ISDIR(sb.st_mode)) {
		series = xasprintf("%s/series", input);
		rc = access(series, F_OK) == 0 ? read_quilt(input, out, err, errlen) :
		    read_dir(input, out, sel, err, errlen);
		free(series);
		return rc;
	}
	if ((buf = read_file(input, &len, err, errlen)) == NULL)
		return -1;
	rc = read_buf(input, buf, len, out, sel, err, errlen);
	free(buf);
	return rc;
}

/* A file of one message, appended to files unselected (patchin.h). */
int
patchin_file1(const char *input, struct pset *files, char *err, size_t errlen)
{
	struct stat	 sb;
	struct pset	 in;
	char		*buf;
	size_t		 len;

	if (strcmp(input, "-") == 0 || stat(input, &sb) < 0 || !S_ISREG(sb.st_mode))
		return 0;
	if ((buf = read_file(input, &len, err, errlen)) == NULL)
		return -1;
	pset_init(&in);
	patchin_buf(&in, input, buf, len);
	free(buf);
	if (in.n != 1) {
		pset_free(&in);
		return 0;
	}
	/* a file named on its own with no diff, and not a cover letter or
	 * a reply, is a mistake to say, not to skip */
	if (in.v[0].diff == NULL && in.v[0].err == NULL && !in.v[0].is_reply &&
	    !(in.v[0].total > 0 && in.v[0].num == 0)) {
		snprintf(err, errlen, "%s: no patch found (no diff in it)", input);
		pset_free(&in);
		return -1;
	}
	take(files, &in.v[0]);
	pset_free(&in);
	return 1;
}

/* git -C dir format-patch --stdout range, as one mbox thread. */
int
patchin_git(const char *dir, const char *range, struct pset *out, char *err,
    size_t errlen)
{
	char	*argv[] = { "git", "-C", (char *)dir, "format-patch", "--stdout",
		    "--no-color", (char *)range, "--", NULL };
	char	*buf, *origin;
	size_t	 len;
	int	 st, rc;

	if (range[0] == '-') {
		snprintf(err, errlen, "%s: not a commit range", range);
		return -1;
	}
	buf = spawn_output(argv, NULL, 0, PATCHIN_MAX, &len, &st);
	if (buf == NULL || st != 0) {
		snprintf(err, errlen, "git -C %s format-patch --stdout %s failed "
		    "(see above)", dir, range);
		free(buf);
		return -1;
	}
	if (len == 0) {
		snprintf(err, errlen, "%s in %s has no commits", range, dir);
		free(buf);
		return -1;
	}
	origin = xasprintf("%s %s", dir, range);
	rc = read_buf(origin, buf, len, out, NULL, err, errlen);
	free(origin);
	free(buf);
	return rc;
}

/* ---- the variant directory ------------------------------------------------ */

/* Write text to path; 0 or -1. */
static int
write_text(const char *path, const char *text)
{
	int	fd, rc;

	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0)
		return -1;
	rc = write_all(fd, text, strlen(text)) < 0 ? -1 : 0;
	if (close(fd) < 0)
		rc = -1;
	return rc;
}

/* Write series, NNNN.patch and sources into a new dir, renamed into place. */
int
pset_write(const struct pset *ps, const char *dir, const char *config,
    char *err, size_t errlen)
{
	struct sbuf	 series = { 0 }, src = { 0 };
	char		*tmp, *p, name[32];
	int		 i, rc = 0;
	struct stat	 sb;

	if (stat(dir, &sb) == 0 && S_ISDIR(sb.st_mode))
		return 0;
	tmp = xasprintf("%s.tmp-%d", dir, (int)getpid());
	rm_tree(tmp);
	if (mkdir(tmp, 0755) < 0) {
		snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
		free(tmp);
		return -1;
	}
	p = "# umkit smoke: patches named by their content hash\n";
	sb_add(&series, p, strlen(p));
	for (i = 0; i < ps->n && rc == 0; i++) {
		snprintf(name, sizeof name, "%04d.patch", i + 1);
		sb_line(&series, name, strlen(name));
		p = xasprintf("%s\t%s\t%s\n", name, ps->v[i].origin,
		    ps->v[i].subject ? ps->v[i].subject : "");
		sb_add(&src, p, strlen(p));
		free(p);
		p = xasprintf("%s/%s", tmp, name);
		rc = write_text(p, ps->v[i].diff);
		free(p);
	}
	if (rc == 0) {
		p = xasprintf("%s/series", tmp);
		rc = write_text(p, series.s);
		free(p);
	}
	if (rc == 0) {
		p = xasprintf("%s/sources", tmp);
		rc = write_text(p, src.s ? src.s : "");
		free(p);
	}
	if (rc == 0 && config != NULL) {
		p = xasprintf("%s/config", tmp);
		rc = write_text(p, config);
		free(p);
	}
	if (rc < 0)
		snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
	else if (rename(tmp, dir) < 0 && errno != ENOTEMPTY && errno != EEXIST) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		rc = -1;
	}
	rm_tree(tmp);
	free(tmp);
	free(series.s);
	free(src.s);
	return rc;
}
