/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cov.c - patch coverage from the kernel's gcov counters (see cov.h).
 *
 * The guest's side is only files: with CONFIG_GCOV_KERNEL each profiled
 * object has a .gcda under COV_GUEST_ROOT, named by the build directory's
 * path, which reads as the gcda format gcov knows.  The host's gcov (the
 * compiler that built the kernel) turns notes + counters into its JSON
 * format (gcov -j -t), which needs no source file; that is parsed here.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cov.h"
#include "spawn.h"
#include "util.h"

/* Set up an empty coverage set. */
void
cov_init(struct cov *c)
{
	memset(c, 0, sizeof *c);
}

/* Free a coverage set. */
void
cov_free(struct cov *c)
{
	int	i;

	for (i = 0; i < c->n; i++) {
		free(c->v[i].path);
		free(c->v[i].count);
	}
	free(c->v);
	memset(c, 0, sizeof *c);
}

/* The lines of path, or NULL. */
const struct cov_src *
cov_find(const struct cov *c, const char *path)
{
	int	i;

	for (i = 0; i < c->n; i++)
		if (strcmp(c->v[i].path, path) == 0)
			return &c->v[i];
	return NULL;
}

/* The entry of path, made if missing. */
static struct cov_src *
cov_get(struct cov *c, const char *path)
{
	struct cov_src	*s = (struct cov_src *)cov_find(c, path);

	if (s != NULL)
		return s;
	c->v = xrealloc(c->v, (c->n + 1) * sizeof *c->v);
	s = &c->v[c->n++];
	s->path = xstrdup(path);
	s->count = NULL;
	s->nlines = 0;
	return s;
}

/* Lexically normalise an absolute path in place ("//", ".", ".."). */
static void
path_clean(char *p)
{
	char	*out = p, *seg = p;
	size_t	 len;

	while (*seg != '\0') {
		while (*seg == '/')
			seg++;
		len = strcspn(seg, "/");
		if (len == 0)
			break;
		if (len == 1 && seg[0] == '.') {
			/* skip */
		} else if (len == 2 && seg[0] == '.' && seg[1] == '.') {
			while (out > p && *--out != '/')
				;
		} else {
			*out++ = '/';
			memmove(out, seg, len);
			out += len;
		}
		seg += len;
	}
	if (out == p)
		*out++ = '/';
	*out = '\0';
}

/*
 * The tree-relative name of file (as gcov saw it, relative to cwd), or a
 * copy of the absolute path when it is outside tree.
 */
static char *
src_name(const char *file, const char *cwd, const char *tree)
{
	char	*p, *t, *r;
	size_t	 tl;

	p = file[0] == '/' || cwd == NULL ? xstrdup(file) :
	    xasprintf("%s/%s", cwd, file);
	if (p[0] == '/')
		path_clean(p);
	if (tree == NULL)
		return p;
	t = xstrdup(tree);
	if (t[0] == '/')
		path_clean(t);
	tl = strlen(t);
	if (strncmp(p, t, tl) == 0 && p[tl] == '/') {
		r = xstrdup(p + tl + 1);
		free(p);
		p = r;
	}
	free(t);
	return p;
}

/* Add gcov's JSON (one document per file it read) to c. */
int
cov_parse_gcov(struct cov *c, const char *text, const char *tree)
{
	json_error_t	 je;
	json_t		*doc, *files, *f, *lines, *ln;
	const char	*p = text, *cwd;
	size_t		 i, j, used;
	int		 total = 0, docs = 0;

	while (*p != '\0') {
		while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')
			p++;
		if (*p == '\0')
			break;
		doc = json_loadb(p, strlen(p), JSON_DISABLE_EOF_CHECK, &je);
		if (doc == NULL || !json_is_object(doc)) {
			json_decref(doc);
			return -1;
		}
		used = je.position;
		docs++;
		cwd = json_string_value(json_object_get(doc, "current_working_directory"));
		files = json_object_get(doc, "files");
		json_array_foreach(files, i, f) {
			const char	*name = json_string_value(json_object_get(f, "file"));
			struct cov_src	*s;
			char		*rel;

			if (name == NULL)
				continue;
			rel = src_name(name, cwd, tree);
			s = cov_get(c, rel);
			free(rel);
			lines = json_object_get(f, "lines");
			json_array_foreach(lines, j, ln) {
				json_int_t no = json_integer_value(json_object_get(ln, "line_number"));
				json_t	*cnt = json_object_get(ln, "count");
				long	 k, v;

				if (no < 1 || no > 10000000 || !json_is_integer(cnt))
					continue;
				v = json_integer_value(cnt);
				if (v < 0)
					v = 0;
				if (no > s->nlines) {
					s->count = xrealloc(s->count, no * sizeof *s->count);
					for (k = s->nlines; k < no; k++)
						s->count[k] = -1;
					s->nlines = no;
				}
				if (s->count[no - 1] < 0)
					s->count[no - 1] = 0;
				/* A line in two functions (inlined) or two runs: summed. */
				if (s->count[no - 1] <= LONG_MAX - v)
					s->count[no - 1] += v;
				total++;
			}
		}
		json_decref(doc);
		p += used;
	}
	return docs > 0 ? total : -1;
}

/* Run gcov -j -t on notes gcno with counters gcda; its output, or NULL. */
static char *
gcov_run(const char *gcno, const char *gcda, char *err, size_t errlen)
{
	char	*tmp = xstrdup("/tmp/umkit-gcov.XXXXXX"), *base, *n, *d, *src;
	char	*out = NULL, *text, *an = NULL, *ad = NULL;
	char	*argv[] = { "gcov", "-j", "-t", "-o", NULL, NULL, NULL };
	int	 st;
	size_t	 len;

	if (mkdtemp(tmp) == NULL) {
		snprintf(err, errlen, "mkdtemp: %s", strerror(errno));
		free(tmp);
		return NULL;
	}
	base = xstrdup(strrchr(gcno, '/') ? strrchr(gcno, '/') + 1 : gcno);
	base[strlen(base) - 5] = '\0';		/* ".gcno" */
	n = xasprintf("%s/%s.gcno", tmp, base);
	d = xasprintf("%s/%s.gcda", tmp, base);
	src = xasprintf("%s.c", base);
	argv[4] = tmp;
	argv[5] = src;
	/* The links are read from tmp: their targets must be absolute. */
	if ((an = realpath(gcno, NULL)) == NULL || (ad = realpath(gcda, NULL)) == NULL ||
	    symlink(an, n) < 0 || symlink(ad, d) < 0) {
		snprintf(err, errlen, "%s: %s", an == NULL ? gcno : ad == NULL ? gcda :
		    tmp, strerror(errno));
		goto out;
	}
	text = spawn_output(argv, tmp, 1, 64u << 20, &len, &st);
	if (st == 127)
		snprintf(err, errlen, "gcov is not installed (it comes with gcc)");
	else if (st != 0 || text == NULL || len == 0)
		snprintf(err, errlen, "gcov failed on %s with %s", gcno, gcda);
	else
		out = text, text = NULL;
	free(text);
out:
	unlink(n);
	unlink(d);
	rmdir(tmp);
	free(an);
	free(ad);
	free(n);
	free(d);
	free(src);
	free(base);
	free(tmp);
	return out;
}

struct load {
	struct cov	*c;
	const char	*gcno_dir;
	char		*objtree, *tree;
	char		*err;
	size_t		 errlen;
};

/* Add one guest's counters (directory g) for every notes file. */
static int
load_guest(struct load *ld, const char *g, const char *rel)
{
	char		 path[PATH_MAX];
	struct dirent	*e;
	DIR		*dp;
	int		 rc = 0;

	snprintf(path, sizeof path, "%s%s%s", ld->gcno_dir, *rel ? "/" : "", rel);
	if ((dp = opendir(path)) == NULL)
		return 0;
	while (rc == 0 && (e = readdir(dp)) != NULL) {
		size_t	 len = strlen(e->d_name);
		char	*sub, *gcno, *gcda, *text;

		if (e->d_name[0] == '.')
			continue;
		sub = xasprintf("%s%s%s", rel, *rel ? "/" : "", e->d_name);
		gcno = xasprintf("%s/%s", ld->gcno_dir, sub);
		if (e->d_type == DT_DIR) {
			rc = load_guest(ld, g, sub);
		} else if (len > 5 && strcmp(e->d_name + len - 5, ".gcno") == 0) {
			gcda = xasprintf("%s%s/%.*s.gcda", g, ld->objtree,
			    (int)(strlen(sub) - 5), sub);
			if (access(gcda, R_OK) == 0) {
				text = gcov_run(gcno, gcda, ld->err, ld->errlen);
				if (text == NULL)
					rc = -1;
				else if (cov_parse_gcov(ld->c, text, ld->tree) < 0) {
					snprintf(ld->err, ld->errlen, "gcov's output for %s "
					    "is not its JSON format", gcda);
					rc = -1;
				}
				free(text);
			}
			free(gcda);
		}
		free(gcno);
		free(sub);
	}
	closedir(dp);
	return rc;
}

/* Sum every guest's counters in gcda_dir over the notes in gcno_dir. */
int
cov_load(struct cov *c, const char *gcno_dir, const char *gcda_dir,
    int one_guest, char *err, size_t errlen)
{
	struct load	 ld = { .c = c, .gcno_dir = gcno_dir, .err = err,
			    .errlen = errlen };
	char		*f = xasprintf("%s/objtree", gcno_dir), *nl;
	struct dirent	*e;
	DIR		*dp;
	int		 rc = 0;

	if ((ld.objtree = read_text(f)) == NULL || ld.objtree[0] != '/') {
		snprintf(err, errlen, "%s: missing (not a coverage build's notes)", f);
		free(f);
		free(ld.objtree);
		return -1;
	}
	free(f);
	if ((nl = strchr(ld.objtree, '\n')) != NULL)
		*nl = '\0';
	ld.tree = xasprintf("%s/../src", ld.objtree);
	path_clean(ld.tree);
	if (one_guest) {
		rc = load_guest(&ld, gcda_dir, "");
		c->nruns += rc == 0;
	} else if ((dp = opendir(gcda_dir)) != NULL) {
		while (rc == 0 && (e = readdir(dp)) != NULL) {
			char	*g;

			if (e->d_name[0] == '.')
				continue;
			g = xasprintf("%s/%s", gcda_dir, e->d_name);
			rc = load_guest(&ld, g, "");
			c->nruns += rc == 0;
			free(g);
		}
		closedir(dp);
	}
	free(ld.objtree);
	free(ld.tree);
	return rc;
}

/* One file's hunks in one patch: old/new starts and the line ops. */
struct fhunk {
	int	 os, ns;
	char	*ops;		/* ' ', '-', '+' per hunk line */
	int	 nops;
};

struct fdiff {
	int		 patch;
	char		*file;		/* new path; NULL for a deletion */
	struct fhunk	*h;
	int		 nh;
};

/* One number of a hunk's range, 0 to max; -1 when it is not one. */
static int
range_num(const char *p, char **end, long max)
{
	long	v;

	if (*p < '0' || *p > '9')
		return -1;
	errno = 0;
	v = strtol(p, end, 10);
	if (errno != 0 || v > max)
		return -1;
	return (int)v;
}

/*
 * Parse "@@ -a[,b] +c[,d] @@"; 0 or -1.  Starts are at most 100000000,
 * lengths 1000000; a start of 0 is an empty side's (a new file's).
 */
static int
parse_range(const char *l, int *os, int *ol, int *ns, int *nl)
{
	char	*e;

	if (strncmp(l, "@@ -", 4) != 0)
		return -1;
	if ((*os = range_num(l + 4, &e, 100000000)) < 0)
		return -1;
	*ol = 1;
	if (*e == ',' && (*ol = range_num(e + 1, &e, 1000000)) < 0)
		return -1;
	if (strncmp(e, " +", 2) != 0)
		return -1;
	if ((*ns = range_num(e + 2, &e, 100000000)) < 0)
		return -1;
	*nl = 1;
	if (*e == ',' && (*nl = range_num(e + 1, &e, 1000000)) < 0)
		return -1;
	if ((*os == 0 && *ol != 0) || (*ns == 0 && *nl != 0))
		return -1;
	return 0;
}

/* Split one diff text into per-file hunk lists appended to *fd. */
static void
split_diff(struct fdiff **fd, int *nfd, int patch, const char *text)
{
	const char	*l = text, *nl;
	struct fdiff	*cur = NULL;
	struct fhunk	*h = NULL;
	int		 left_old = 0, left_new = 0, os, ol, ns, nln;

	for (; l != NULL && *l != '\0'; l = nl ? nl + 1 : NULL) {
		size_t	 len;

		nl = strchr(l, '\n');
		len = nl ? (size_t)(nl - l) : strlen(l);
		if (h != NULL && (left_old > 0 || left_new > 0)) {
			char	op = len == 0 ? ' ' : l[0];

			if (op == '\\')
				continue;
			if (op != ' ' && op != '-' && op != '+') {
				h = NULL;
			} else {
				if (op != '+')
					left_old--;
				if (op != '-')
					left_new--;
				h->ops = xrealloc(h->ops, h->nops + 1);
				h->ops[h->nops++] = op;
				continue;
			}
		}
		if (len > 4 && strncmp(l, "+++ ", 4) == 0) {
			char	*f = xasprintf("%.*s", (int)(len - 4), l + 4), *t, *s;

			if ((t = strchr(f, '\t')) != NULL)
				*t = '\0';
			*fd = xrealloc(*fd, (*nfd + 1) * sizeof **fd);
			cur = &(*fd)[(*nfd)++];
			memset(cur, 0, sizeof *cur);
			cur->patch = patch;
			if (strcmp(f, "/dev/null") != 0) {
				s = strchr(f, '/');
				cur->file = xstrdup(s ? s + 1 : f);
			}
			free(f);
			h = NULL;
		} else if (cur != NULL && len > 4 && strncmp(l, "@@ -", 4) == 0) {
			if (parse_range(l, &os, &ol, &ns, &nln) < 0) {
				h = NULL;
				continue;
			}
			cur->h = xrealloc(cur->h, (cur->nh + 1) * sizeof *cur->h);
			h = &cur->h[cur->nh++];
			memset(h, 0, sizeof *h);
			h->os = os;
			h->ns = ns;
			left_old = ol;
			left_new = nln;
		}
	}
}

/*
 * Number each hunk's new side from its old start and the hunks before it
 * (ns: the new number of its first line, or for a removal the line after
 * it), as patch(1) does: a hand-edited patch's "+start" may be off.
 * A hunk that starts before the previous one ends (misordered or
 * overlapping: patch(1) refuses it) is dropped, so that every number
 * stays a line number (1 or more).
 */
static void
renumber(struct fdiff *d)
{
	int	 i, k, n = 0, ol, nl, o, next = 1, delta = 0;

	for (i = 0; i < d->nh; i++) {
		struct fhunk *h = &d->h[i];

		for (k = ol = nl = 0; k < h->nops; k++) {
			ol += h->ops[k] != '+';
			nl += h->ops[k] != '-';
		}
		/* An empty old side's start is the line it comes after. */
		o = ol == 0 ? h->os + 1 : h->os;
		/* A hunk before the end of the one before it: dropped. */
		if (o < next) {
			free(h->ops);
			continue;
		}
		next = o + ol;
		h->ns = o + delta;
		delta += nl - ol;
		d->h[n++] = *h;
	}
	d->nh = n;
}

/*
 * Where line L of a file (before diff d) is after d: its new number, or
 * 0 when d removes it.
 */
static int
map_line(const struct fdiff *d, int L)
{
	int	 i, k, o, n, ol, delta = 0;

	for (i = 0; i < d->nh; i++) {
		const struct fhunk *h = &d->h[i];

		for (k = ol = 0; k < h->nops; k++)
			ol += h->ops[k] != '+';
		/* An empty old side's start is the line before the hunk. */
		o = ol == 0 ? h->os + 1 : h->os;
		n = h->ns;
		if (L < o)
			return L + delta;
		for (k = 0; k < h->nops; k++) {
			switch (h->ops[k]) {
			case ' ':
				if (o == L)
					return n;
				o++, n++;
				break;
			case '-':
				if (o == L)
					return 0;
				o++;
				break;
			default:
				n++;
			}
		}
		delta = n - o;
	}
	return L + delta;
}

/* The hunks of diffs, their added lines numbered as after the series. */
void
cov_hunks(struct cov_hunks *out, char *const diffs[], int n)
{
	struct fdiff	*fd = NULL;
	int		 nfd = 0, i, j, k, m, L;

	memset(out, 0, sizeof *out);
	for (i = 0; i < n; i++)
		split_diff(&fd, &nfd, i, diffs[i] ? diffs[i] : "");
	for (i = 0; i < nfd; i++)
		renumber(&fd[i]);
	for (i = 0; i < nfd; i++) {
		if (fd[i].file == NULL)
			continue;
		for (j = 0; j < fd[i].nh; j++) {
			struct fhunk	*h = &fd[i].h[j];
			struct cov_hunk	*c;

			out->v = xrealloc(out->v, (out->n + 1) * sizeof *out->v);
			c = &out->v[out->n++];
			memset(c, 0, sizeof *c);
			c->patch = fd[i].patch;
			c->file = xstrdup(fd[i].file);
			/* The added lines' span; a removal: the line after it. */
			L = h->ns;
			c->start = c->end = 0;
			for (k = 0; k < h->nops; k++) {
				if (h->ops[k] == '-') {
					if (c->start == 0 && c->nlines == 0)
						c->start = c->end = L;
					continue;
				}
				if (h->ops[k] == '+') {
					c->lines = xrealloc(c->lines, (c->nlines + 1) *
					    sizeof *c->lines);
					if (c->nlines == 0)
						c->start = L;
					c->lines[c->nlines++] = c->end = L;
				}
				L++;
			}
			if (c->start == 0)
				c->start = c->end = h->ns > 0 ? h->ns : 1;
			/* Renumber through every later patch of the same file. */
			for (m = i + 1; m < nfd; m++) {
				if (fd[m].file == NULL || strcmp(fd[m].file, c->file) != 0 ||
				    fd[m].patch == fd[i].patch)
					continue;
				for (k = 0; k < c->nlines; k++)
					if (c->lines[k] > 0)
						c->lines[k] = map_line(&fd[m], c->lines[k]);
				L = map_line(&fd[m], c->start);
				c->start = L > 0 ? L : c->start;
				L = map_line(&fd[m], c->end);
				c->end = L > 0 ? L : c->end;
			}
		}
	}
	for (i = 0; i < nfd; i++) {
		for (j = 0; j < fd[i].nh; j++)
			free(fd[i].h[j].ops);
		free(fd[i].h);
		free(fd[i].file);
	}
	free(fd);
}

/* Free a hunk list. */
void
cov_hunks_free(struct cov_hunks *h)
{
	int	i;

	for (i = 0; i < h->n; i++) {
		free(h->v[i].file);
		free(h->v[i].lines);
	}
	free(h->v);
	memset(h, 0, sizeof *h);
}

/* Count hunk h's executable and run added lines in c. */
void
cov_judge(const struct cov *c, const struct cov_hunk *h, struct cov_hres *r)
{
	const struct cov_src	*s = cov_find(c, h->file);
	int			 i, L;

	memset(r, 0, sizeof *r);
	if (s == NULL)
		return;
	r->measured = 1;
	for (i = 0; i < h->nlines; i++) {
		L = h->lines[i];
		if (L < 1 || L > s->nlines || s->count[L - 1] < 0)
			continue;
		r->exec++;
		r->ran += s->count[L - 1] > 0;
	}
}
