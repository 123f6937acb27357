/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * lab-file.c - parse and validate a lab file (the format: docs/labs.md).
 *
 * Line oriented: a keyword and its arguments per line, '|' lines of text,
 * '#' comment lines.  Every problem is reported as FILE:LINE: message and
 * parsing goes on, so one --check lists them all.
 *
 * Each keyword has its function, found through one of two tables:
 * header_kws (title ... exercise: hdr_title ...) and step_kws (view ...
 * hint: kw_view ...).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lab.h"
#include "util.h"

#define MAX_ERRS	40
#ifndef nitems
#define nitems(a)	(sizeof (a) / sizeof (a)[0])
#endif

const char *const lab_views[] = { "lru", "compaction", "counters", "overview", NULL };

struct lp {
	const char		*path;
	const struct lab_env	*env;
	struct lab		*lab;
	struct lstep		*step;		/* the current step, NULL in the header */
	struct lact		*check;		/* the last check, for fail/hint */
	struct lask		*ask;		/* the last choice question */
	struct lask		*q;		/* the step's last question (explain) */
	int			 qchoice;	/* ask's last choice line (because), or -1 */
	int			 line;
	char			*errs;
	size_t			 errlen;
	int			 nerrs;
	char			*warns;		/* "FILE:LINE: warning: ..." lines */
	size_t			 warnlen;
	int			 nwarns;
	/* Workload names of run/bg commands so far, for result(). */
	char			**wl;
	int			 nwl;
	/* let NAME = EXPR of the current step: names and "(EXPR)". */
	char			**letn, **letv;
	int			 nlet;
	/* The header's last case line, and its last expect (fail, hint). */
	struct lcase		*xcase;
	struct lexpect		*expect;
};

/* Add "FILE:LINE: message" to the error list. */
static void __attribute__((format(printf, 3, 4)))
perr_at(struct lp *p, int line, const char *fmt, ...)
{
	va_list	 ap;
	char	*m, *l;

	if (p->nerrs++ >= MAX_ERRS)
		return;
	va_start(ap, fmt);
	m = xvasprintf(fmt, ap);
	va_end(ap);
	if (p->nerrs == MAX_ERRS)
		l = xasprintf("%s: too many errors; stopping here\n", p->path);
	else if (line > 0)
		l = xasprintf("%s:%d: %s\n", p->path, line, m);
	else
		l = xasprintf("%s: %s\n", p->path, m);
	p->errs = xrealloc(p->errs, p->errlen + strlen(l) + 1);
	memcpy(p->errs + p->errlen, l, strlen(l) + 1);
	p->errlen += strlen(l);
	free(l);
	free(m);
}

#define PERR(p, ...)	perr_at((p), (p)->line, __VA_ARGS__)

/* Add "FILE:LINE: warning: message" to the warnings (lab --check). */
static void __attribute__((format(printf, 3, 4)))
pwarn_at(struct lp *p, int line, const char *fmt, ...)
{
	va_list	 ap;
	char	*m, *l;

	if (p->nwarns++ >= MAX_ERRS)
		return;
	va_start(ap, fmt);
	m = xvasprintf(fmt, ap);
	va_end(ap);
	l = line > 0 ? xasprintf("%s:%d: warning: %s\n", p->path, line, m) :
	    xasprintf("%s: warning: %s\n", p->path, m);
	p->warns = xrealloc(p->warns, p->warnlen + strlen(l) + 1);
	memcpy(p->warns + p->warnlen, l, strlen(l) + 1);
	p->warnlen += strlen(l);
	free(l);
	free(m);
}

/* Append s to a growing array of strings. */
static void
push_str(char ***v, int *n, const char *s)
{
	*v = xrealloc(*v, (*n + 1) * sizeof **v);
	(*v)[(*n)++] = xstrdup(s);
}

/* Append a line of text to *text. */
static void
add_text(char **text, const char *line)
{
	size_t	old = *text ? strlen(*text) : 0, n = strlen(line);

	*text = xrealloc(*text, old + n + 2);
	if (old > 0)
		(*text)[old++] = '\n';
	memcpy(*text + old, line, n + 1);
}

/* The first word of *s (split at blanks) into w; *s moves past it. */
static bool
word(const char **s, char *w, size_t size)
{
	const char	*p = *s;
	size_t		 n;

	while (isspace((unsigned char)*p))
		p++;
	if (*p == '\0')
		return false;
	n = strcspn(p, " \t");
	snprintf(w, size, "%.*s", (int)n, p);
	p += n;
	while (isspace((unsigned char)*p))
		p++;
	*s = p;
	return true;
}

/* A whole decimal number in [lo, hi]. */
static bool
int_arg(const char *s, long lo, long hi, long *v)
{
	char	*end;

	errno = 0;
	*v = strtol(s, &end, 10);
	return *s != '\0' && *end == '\0' && errno == 0 && *v >= lo && *v <= hi;
}

/* A duration: 10, 10s, 1.5s, 500ms, 2m.  Seconds, or -1. */
static double
duration(const char *s)
{
	char	*end;
	double	 v = strtod(s, &end);

	if (end == s || v < 0)
		return -1;
	if (*end == '\0' || strcmp(end, "s") == 0)
		return v;
	if (strcmp(end, "ms") == 0)
		return v / 1000;
	if (strcmp(end, "m") == 0 || strcmp(end, "min") == 0)
		return v * 60;
	return -1;
}

/*
 * Leading NAME=VALUE options of a line: for each one whose NAME is in
 * names (space-separated), fn is called; *s moves past them.  The first
 * word that is not such an option ends them.
 */
static void
options(struct lp *p, const char **s, const char *names,
    void (*fn)(struct lp *, const char *name, const char *val, void *), void *arg)
{
	char		 w[512], name[64];
	const char	*save, *eq;
	size_t		 n;

	for (;;) {
		save = *s;
		if (!word(s, w, sizeof w) || (eq = strchr(w, '=')) == NULL ||
		    eq == w || (size_t)(eq - w) >= sizeof name) {
			*s = save;
			return;
		}
		/*
		 * NAME="a value with blanks": the value's quote is the one
		 * after the first '=' (w is the word as word() read it from
		 * b), not the first quote of the word, which may come before
		 * it ('""="' left w without its '=').
		 */
		if (eq[1] == '"') {
			const char	*b = save, *q1, *q2;

			while (isspace((unsigned char)*b))
				b++;
			q1 = b + (eq - w) + 1;
			if ((q2 = strchr(q1 + 1, '"')) == NULL ||
			    (size_t)(q2 - b) >= sizeof w - 1) {
				PERR(p, "%.*s: a quoted value without its closing '\"'",
				    (int)(eq - w), w);
				*s = save;
				return;
			}
			snprintf(w, sizeof w, "%.*s%.*s", (int)(q1 - b), b,
			    (int)(q2 - q1 - 1), q1 + 1);
			eq = strchr(w, '=');
			*s = q2 + 1;
			while (isspace((unsigned char)**s))
				(*s)++;
		}
		n = (size_t)(eq - w);
		snprintf(name, sizeof name, "%.*s", (int)n, w);
		/* Whole-word match in the names list. */
		{
			const char *q = names;
			bool found = false;

			while ((q = strstr(q, name)) != NULL) {
				if ((q == names || q[-1] == ' ') &&
				    (q[n] == '\0' || q[n] == ' ')) {
					found = true;
					break;
				}
				q += n;
			}
			if (!found) {
				*s = save;
				return;
			}
		}
		fn(p, name, eq + 1, arg);
	}
}

/* The step's next action slot. */
static struct lact *
new_act(struct lp *p, enum lact_kind k)
{
	struct lstep	*st = p->step;
	struct lact	*a;

	st->acts = xrealloc(st->acts, (st->nacts + 1) * sizeof *st->acts);
	a = &st->acts[st->nacts++];
	memset(a, 0, sizeof *a);
	a->kind = k;
	a->line = p->line;
	a->status = 0;
	return a;
}

/* Whether c can be part of a name (or of a spec next to one). */
static bool
name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/*
 * text with every let name of the step replaced by its "(EXPR)" and every
 * param name by its value: whole names only, never inside a spec ([...]
 * or after a '.'); in a command or shown line (braces) only inside its
 * {{EXPR}}s, the rest being the command's own words.  Allocated.
 */
static char *
expand_names(struct lp *p, const char *text, bool braces)
{
	size_t		 cap = strlen(text) + 1, len = 0, n, vl;
	char		*o = xmalloc(cap);
	const char	*q = text;
	int		 depth = 0, i;
	bool		 in = !braces;

	while (*q != '\0') {
		if (braces && strncmp(q, "{{", 2) == 0)
			in = true;
		else if (braces && strncmp(q, "}}", 2) == 0)
			in = false;
		if (*q == '[')
			depth++;
		else if (*q == ']' && depth > 0)
			depth--;
		if (in && depth == 0 && name_char(*q) && !isdigit((unsigned char)*q) &&
		    (q == text || (!name_char(q[-1]) && q[-1] != '.' && q[-1] != '/'))) {
			for (n = 0; name_char(q[n]); n++)
				;
			const char	*val = NULL;

			for (i = 0; i < p->nlet; i++)
				if (strlen(p->letn[i]) == n && strncmp(q, p->letn[i], n) == 0 &&
				    q[n] != '.' && q[n] != '[' && q[n] != '(')
					val = p->letv[i];
			for (i = 0; val == NULL && i < p->lab->nparams; i++)
				if (strlen(p->lab->params[i].name) == n &&
				    strncmp(q, p->lab->params[i].name, n) == 0 &&
				    q[n] != '.' && q[n] != '[' && q[n] != '(')
					val = p->lab->params[i].value;
			if (val != NULL) {
				vl = strlen(val);
				o = xrealloc(o, cap += vl);
				memcpy(o + len, val, vl);
				len += vl;
			} else {
				o = xrealloc(o, cap += n);
				memcpy(o + len, q, n);
				len += n;
			}
			q += n;
			continue;
		}
		o[len++] = *q++;
	}
	o[len] = '\0';
	return o;
}

/* An expression's text with the step's lets and the lab's params
 * expanded (allocated). */
static char *
expand_lets(struct lp *p, const char *text)
{
	return expand_names(p, text, false);
}

/* A command's or a shown line's text with the lets and params in its
 * {{EXPR}}s expanded (allocated). */
static char *
expand_lets_text(struct lp *p, const char *text)
{
	return expand_names(p, text, true);
}

/* Forget the step's lets. */
static void
lets_clear(struct lp *p)
{
	int	i;

	for (i = 0; i < p->nlet; i++) {
		free(p->letn[i]);
		free(p->letv[i]);
	}
	free(p->letn);
	free(p->letv);
	p->letn = p->letv = NULL;
	p->nlet = 0;
}

/* Parse a condition, reporting its error at the current line. */
static struct lcond *
cond_here(struct lp *p, const char *text)
{
	char		 err[LAB_ERR_LEN], *x;
	struct lcond	*c;

	if (*text == '\0') {
		PERR(p, "a condition expected, like 'vmstat.pgscan_kswapd > 0'");
		return NULL;
	}
	x = expand_lets(p, text);
	if ((c = lcond_parse(x, err)) == NULL)
		PERR(p, "%s (in '%s')", err, text);
	else {
		free(c->text);		/* messages show it as written */
		c->text = xstrdup(text);
	}
	free(x);
	return c;
}

static void	key_ref(const char *spec, const char *mark, void *arg);
static void	check_refs_expr(struct lp *, const struct lexpr *);

struct interpctx {
	struct lp	*p;
	bool		 refs;
};

/* lexpr_interp() callback: the parse error, the keys, the references. */
static void
interp_one(const char *src, const struct lexpr *e, const char *err, void *arg)
{
	struct interpctx	*c = arg;

	if (e == NULL) {
		PERR(c->p, "{{%s}}: %s", src, err);
		return;
	}
	if (c->refs)
		check_refs_expr(c->p, e);	/* the keys too */
	else
		lexpr_specs(e, key_ref, c->p);
}

/*
 * Check every {{EXPR}} in text parses and names known keys, and with
 * refs that the marks and results it names exist.
 */
static void
check_interp(struct lp *p, const char *text, bool refs)
{
	struct interpctx	c = { p, refs };

	if (lexpr_interp(text, interp_one, &c) < 0)
		PERR(p, "'{{' without '}}'");
}

/* Remember the workloads a command runs (its first word's basename, and
 * the NAME of a --name NAME), for result(). */
static void
note_workload(struct lp *p, const char *cmd)
{
	char		 w[128];
	const char	*b;

	if (!word(&cmd, w, sizeof w))
		return;
	b = strrchr(w, '/') ? strrchr(w, '/') + 1 : w;
	push_str(&p->wl, &p->nwl, b);
	/* A program told the name of its result line: --name NAME. */
	while (word(&cmd, w, sizeof w))
		if (strcmp(w, "--name") == 0 && word(&cmd, w, sizeof w))
			push_str(&p->wl, &p->nwl, w);
}

/* run/wait/check options. */
static void
act_opt(struct lp *p, const char *name, const char *val, void *arg)
{
	struct lact	*a = arg;
	long		 v;

	if (strcmp(name, "timeout") == 0) {
		if ((a->timeout_s = duration(val)) <= 0)
			PERR(p, "timeout=%s: want a duration like 10, 10s or 500ms", val);
	} else if (strcmp(name, "status") == 0) {
		if (strcmp(val, "any") == 0)
			a->status = -1;
		else if (int_arg(val, 0, 255, &v))
			a->status = (int)v;
		else
			PERR(p, "status=%s: want 0-255 or any", val);
	} else if (strcmp(name, "result") == 0) {
		char	*names = xstrdup(val), *q, *save = NULL;

		/* result=NAME[,NAME]: the result lines the command prints */
		for (q = strtok_r(names, ",", &save); q; q = strtok_r(NULL, ",", &save))
			push_str(&p->wl, &p->nwl, q);
		free(names);
	} else if (strcmp(name, "points") == 0) {
		if (int_arg(val, 0, 1000, &v))
			a->check.points = (int)v;
		else
			PERR(p, "points=%s: want a whole number 0-1000", val);
	}
}

/* ask options. */
static void
ask_opt(struct lp *p, const char *name, const char *val, void *arg)
{
	struct lask	*q = arg;
	char		 err[LAB_ERR_LEN], *end;
	size_t		 n;

	if (strcmp(name, "points") == 0) {
		long	v;

		if (int_arg(val, 0, 1000, &v))
			q->points = (int)v;
		else
			PERR(p, "points=%s: want a whole number 0-1000", val);
	} else if (strcmp(name, "answer") == 0) {
		if (q->kind == LQ_CHOICE) {
			/* answer=#HEX: sealed by umkit lab --seal (lab-key.c) */
			if (val[0] == '#' && strlen(val + 1) == LAB_SEAL_HEX &&
			    strspn(val + 1, "0123456789abcdef") == LAB_SEAL_HEX)
				snprintf(q->sealed, sizeof q->sealed, "%s", val + 1);
			else if (strlen(val) != 1 || !islower((unsigned char)val[0]))
				PERR(p, "answer=%s: want the letter of a choice", val);
			else
				q->answer = val[0];
		} else {
			char	*x = expand_lets(p, val);

			lexpr_free(q->truth);	/* an earlier answer= */
			if ((q->truth = lexpr_parse(x, err)) == NULL)
				PERR(p, "answer=%s: %s", val, err);
			free(x);
		}
	} else if (strcmp(name, "tolerance") == 0) {
		n = strlen(val);
		q->tol_pct = n > 0 && val[n - 1] == '%';
		q->tol = strtod(val, &end);
		if (end == val || q->tol < 0 || (*end != '\0' && !(q->tol_pct && end == val + n - 1)))
			PERR(p, "tolerance=%s: want a number or a percentage like 10%%", val);
	}
}

/* Whether name is a variant: patches/NAME/series exists, or the user's
 * (NAME+debug too). */
static bool
variant_exists(const struct lab_env *env, const char *name)
{
	char	*s;
	bool	 ok;
	size_t	 n;

	if (env == NULL || env->patches_dir == NULL)
		return true;
	if (strchr(name, '/') != NULL || name[0] == '.')
		return false;
	/* NAME+debug: NAME's kernel with debug info (uml/kernel/kbuild.sh). */
	n = strlen(name);
	if (n > 6 && strcmp(name + n - 6, "+debug") == 0)
		n -= 6;
	s = xasprintf("%s/%.*s/series", env->patches_dir, (int)n, name);
	ok = n > 0 && access(s, R_OK) == 0;
	free(s);
	if (!ok && env->own_patches_dir != NULL) {
		s = xasprintf("%s/%.*s/series", env->own_patches_dir, (int)n, name);
		ok = access(s, R_OK) == 0;
		free(s);
	}
	return ok;
}

/* name beside the lab file: the lab file's directory and name (allocated). */
static char *
beside_lab(const struct lp *p, const char *name)
{
	const char	*slash = strrchr(p->path, '/');
	int		 n = slash != NULL ? (int)(slash + 1 - p->path) : 0;

	return xasprintf("%.*s%s", n, p->path, name);
}

/* The words of rest, guest paths a needs line wants, onto v. */
static void
need_paths(struct lp *p, const char *rest, char ***v, int *n)
{
	char	w[256];

	while (word(&rest, w, sizeof w)) {
		if (w[0] != '/')
			PERR(p, "needs %s: want an absolute guest path", w);
		push_str(v, n, w);
	}
}

/* ---- header keywords --------------------------------------------------- */

/* title TEXT: the lab's title, the one header line a lab must have. */
static void
hdr_title(struct lp *p, const char *kw, const char *rest)
{
	if (*rest == '\0')
		PERR(p, "title: the lab's title expected");
	free(p->lab->title);
	p->lab->title = xstrdup(rest);
}

/* minutes N: the time a student needs, 1-240. */
static void
hdr_minutes(struct lp *p, const char *kw, const char *rest)
{
	long	v;

	if (!int_arg(rest, 1, 240, &v))
		PERR(p, "minutes %s: want the student's time, 1-240", rest);
	else
		p->lab->minutes = (int)v;
}

/* level beginner|intermediate|advanced: the lab's level. */
static void
hdr_level(struct lp *p, const char *kw, const char *rest)
{
	if (strcmp(rest, "beginner") != 0 && strcmp(rest, "intermediate") != 0 &&
	    strcmp(rest, "advanced") != 0)
		PERR(p, "level %s: want beginner, intermediate or advanced", rest);
	free(p->lab->level);
	p->lab->level = xstrdup(rest);
}

/* variants NAME... (or variant): the kernel variants, the first boots first. */
static void
hdr_variants(struct lp *p, const char *kw, const char *rest)
{
	struct lab	*l = p->lab;
	char		 w[256];

	if (*rest == '\0')
		PERR(p, "%s: at least one variant name expected", kw);
	while (word(&rest, w, sizeof w)) {
		if (!variant_exists(p->env, w))
			PERR(p, "variant %s: no such variant (no patches/%s/series)", w, w);
		push_str(&l->variants, &l->nvariants, w);
	}
}

/* memory SIZE: the guest's memory, at least 32M. */
static void
hdr_memory(struct lp *p, const char *kw, const char *rest)
{
	if ((p->lab->mem_mb = parse_mem_mb(rest)) < 32)
		PERR(p, "memory %s: want a size like 256M or 1G (at least 32M)", rest);
}

/* cpus N: the guest's CPUs, 1-16. */
static void
hdr_cpus(struct lp *p, const char *kw, const char *rest)
{
	long	v;

	if (!int_arg(rest, 1, 16, &v))
		PERR(p, "cpus %s: want 1-16", rest);
	else
		p->lab->cpus = (int)v;
}

/* disk SIZE: the guest's disk, 0 for none. */
static void
hdr_disk(struct lp *p, const char *kw, const char *rest)
{
	if (strcmp(rest, "0") == 0)
		p->lab->disk_mb = 0;
	else if ((p->lab->disk_mb = parse_mem_mb(rest)) < 16)
		PERR(p, "disk %s: want a size like 1G, or 0 for none", rest);
}

/* seed NNN: the seed thread the lab reproduces. */
static void
hdr_seed(struct lp *p, const char *kw, const char *rest)
{
	if (strlen(rest) != 3 || !isdigit((unsigned char)rest[0]) ||
	    !isdigit((unsigned char)rest[1]) || !isdigit((unsigned char)rest[2]))
		PERR(p, "seed %s: want a seed thread number like 000", rest);
	free(p->lab->seed);
	p->lab->seed = xstrdup(rest);
}

/* doc FILE: the lab's background document, beside the lab file. */
static void
hdr_doc(struct lp *p, const char *kw, const char *rest)
{
	struct lab	*l = p->lab;

	free(l->doc);
	l->doc = beside_lab(p, rest);
	if (p->env != NULL && p->env->patches_dir != NULL &&
	    access(l->doc, R_OK) < 0)
		PERR(p, "doc %s: %s", rest, strerror(errno));
}

/* needs PATH...: guest paths every step needs (else its checks skip). */
static void
hdr_needs(struct lp *p, const char *kw, const char *rest)
{
	need_paths(p, rest, &p->lab->needs, &p->lab->nneeds);
}

/* Whether s is only letters, digits, '.', '_', '-' and the extra ones. */
static bool
plain_chars(const char *s, const char *extra)
{
	for (; *s != '\0'; s++)
		if (!isalnum((unsigned char)*s) && strchr("._-", *s) == NULL &&
		    strchr(extra, *s) == NULL)
			return false;
	return true;
}

/* Whether name may name a lab (and files made from it). */
bool
lab_name_ok(const char *name)
{
	return name[0] != '\0' && name[0] != '.' && strlen(name) < 64 &&
	    plain_chars(name, "");
}

/* Whether a write action's guest path is a plain one under /proc or /sys. */
bool
lab_write_path_ok(const char *path)
{
	const char	*c, *e;

	if (strncmp(path, "/proc/", 6) != 0 && strncmp(path, "/sys/", 5) != 0)
		return false;
	for (c = path + 1; *c != '\0'; c = *e ? e + 1 : e) {
		e = strchrnul(c, '/');
		if (e == c || (e - c == 1 && c[0] == '.') ||
		    (e - c == 2 && c[0] == '.' && c[1] == '.'))
			return false;
	}
	return path[strlen(path) - 1] != '/';
}

/* ---- exercises (docs/labs.md, Exercises) ------------------------------- */

/* Whether s can be an exercise or case id: letters, digits, '-', '_'. */
static bool
ex_id_ok(const char *s)
{
	size_t	n = strlen(s);

	return n > 0 && n <= LAB_EX_ID && strspn(s, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_") == n;
}

/* Whether s is a level: beginner, intermediate or advanced. */
static bool
level_ok(const char *s)
{
	return strcmp(s, "beginner") == 0 || strcmp(s, "intermediate") == 0 ||
	    strcmp(s, "advanced") == 0;
}

/* The last component of a path. */
static const char *
last_part(const char *path)
{
	const char	*s = strrchr(path, '/');

	return s != NULL ? s + 1 : path;
}

/* exercise options: id=, level=, variant=. */
static void
ex_opt(struct lp *p, const char *name, const char *val, void *arg)
{
	struct lexercise	*e = arg;

	if (strcmp(name, "id") == 0) {
		if (!ex_id_ok(val))
			PERR(p, "exercise id=%s: want letters, digits, '-' or '_' "
			    "(up to %d)", val, LAB_EX_ID);
		else {
			free(e->id);
			e->id = xstrdup(val);
		}
	} else if (strcmp(name, "level") == 0) {
		if (!level_ok(val))
			PERR(p, "exercise level=%s: want beginner, intermediate or "
			    "advanced", val);
		else {
			free(e->level);
			e->level = xstrdup(val);
		}
	} else if (strcmp(name, "variant") == 0) {
		free(e->variant);
		e->variant = xstrdup(val);	/* checked with the cases */
	}
}

/* Free what an exercise holds. */
static void
ex_free(struct lexercise *e)
{
	int	i, j;

	free(e->id);
	free(e->level);
	free(e->file);
	free(e->prog);
	free(e->variant);
	free(e->path);
	free(e->func);
	free(e->todo);
	for (i = 0; i < e->ncases; i++) {
		for (j = 0; j < e->cases[i].nexpects; j++) {
			free(e->cases[i].expects[j].cond);
			free(e->cases[i].expects[j].fail);
			free(e->cases[i].expects[j].hint);
		}
		free(e->cases[i].expects);
		free(e->cases[i].id);
		free(e->cases[i].command);
	}
	free(e->cases);
}

/* The case steps ex_pick() took out of the lab, back at its end: lab_free
 * frees them with the others. */
static void
ex_steps_back(struct lab *l)
{
	struct lexercise	*e;
	int			 i;

	for (i = 0; i < l->nexercises; i++) {
		e = &l->exercises[i];
		if (e->ndropped == 0)
			continue;
		l->steps = xrealloc(l->steps, (l->nsteps + e->ndropped) *
		    sizeof *l->steps);
		memcpy(l->steps + l->nsteps, e->dropped, e->ndropped *
		    sizeof *l->steps);
		l->nsteps += e->ndropped;
		free(e->dropped);
		e->dropped = NULL;
		e->ndropped = 0;
	}
}

/* The program-kind rest of an exercise line: FILE.c beside the lab. */
static bool
ex_program(struct lp *p, struct lexercise *e, const char *rest)
{
	char		 a[256];
	const char	*b;
	size_t		 n;

	if (!word(&rest, a, sizeof a) || *rest != '\0' || (n = strlen(a)) < 3 ||
	    strcmp(a + n - 2, ".c") != 0 || strchr(a, '/') != NULL ||
	    a[0] == '.' || !plain_chars(a, "")) {
		PERR(p, "exercise program: want one FILE.c beside the lab file");
		return false;
	}
	e->kind = LEX_PROGRAM;
	e->file = beside_lab(p, a);
	if (p->env != NULL && p->env->patches_dir != NULL &&
	    access(e->file, R_OK) < 0)
		PERR(p, "exercise program %s: %s", a, strerror(errno));
	/* the program's name in the guest: 04-twothreads.c is twothreads */
	b = a + strspn(a, "0123456789");
	if (*b == '-' && b != a)
		b++;
	e->prog = xasprintf("%.*s", (int)strlen(b) - 2, b);
	if (!ex_id_ok(e->prog))
		PERR(p, "exercise program %s: want a name of letters, digits, "
		    "'-', '_' (up to %d) after its NN-", a, LAB_EX_ID);
	else if (e->id == NULL)
		e->id = xstrdup(e->prog);
	return true;
}

/* The kernel-kind rest: VARIANT PATH FUNCTION TODO-TEXT. */
static bool
ex_kernel(struct lp *p, struct lexercise *e, const char *rest)
{
	char	a[256], b[256], c[128];

	if (!word(&rest, a, sizeof a) || !word(&rest, b, sizeof b) ||
	    !word(&rest, c, sizeof c) || *rest == '\0') {
		PERR(p, "exercise kernel: want VARIANT PATH FUNCTION TODO-TEXT");
		return false;
	}
	if (!variant_exists(p->env, a))
		PERR(p, "exercise kernel %s: no such variant (no patches/%s/series)", a, a);
	if (b[0] == '/' || strstr(b, "..") != NULL || !plain_chars(b, "/"))
		PERR(p, "exercise kernel: %s: want a path inside the kernel tree "
		    "(letters, digits, '.', '_', '-', '/'; no '..')", b);
	if (!(isalpha((unsigned char)c[0]) || c[0] == '_') ||
	    strspn(c, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789_") != strlen(c))
		PERR(p, "exercise kernel: %s: want a C function's name", c);
	e->kind = LEX_KERNEL;
	if (e->variant != NULL && strcmp(e->variant, a) != 0)
		PERR(p, "exercise kernel %s: variant=%s: a kernel exercise's cases "
		    "boot its own variant", a, e->variant);
	free(e->variant);
	e->variant = xstrdup(a);
	e->path = xstrdup(b);
	e->func = xstrdup(c);
	e->todo = xstrdup(rest);
	if (e->id == NULL && ex_id_ok(c))
		e->id = xstrdup(c);
	return true;
}

/*
 * exercise [id=ID] [level=L] [variant=V] program FILE.c, or exercise
 * [id=ID] [level=L] kernel VARIANT PATH FUNCTION TODO...: one of the lab's
 * exercises; case and expect lines may follow.
 */
static void
hdr_exercise(struct lp *p, const char *kw, const char *rest)
{
	struct lab		*l = p->lab;
	struct lexercise	 e = { .line = p->line };
	char			 kind[16];
	const char		*file;
	bool			 ok;
	int			 i;

	if (l->nexercises == LAB_MAX_EXERCISES) {
		PERR(p, "exercise: at most %d per lab", LAB_MAX_EXERCISES);
		return;
	}
	options(p, &rest, "id level variant", ex_opt, &e);
	if (!word(&rest, kind, sizeof kind) ||
	    (strcmp(kind, "program") != 0 && strcmp(kind, "kernel") != 0)) {
		PERR(p, "exercise: want 'exercise [id=ID] [level=L] program FILE.c' "
		    "or 'exercise [id=ID] [level=L] kernel VARIANT PATH FUNCTION "
		    "TODO-TEXT'");
		ex_free(&e);
		return;
	}
	ok = kind[0] == 'p' ? ex_program(p, &e, rest) : ex_kernel(p, &e, rest);
	if (ok && e.id == NULL && e.kind == LEX_KERNEL)
		PERR(p, "exercise kernel: name the exercise with id=ID");
	if (!ok || e.id == NULL) {
		ex_free(&e);
		return;
	}
	file = last_part(e.kind == LEX_PROGRAM ? e.file : e.path);
	for (i = 0; i < l->nexercises; i++) {
		const struct lexercise	*o = &l->exercises[i];

		if (strcmp(o->id, e.id) == 0)
			PERR(p, "exercise %s: the id is used already at line %d",
			    e.id, o->line);
		else if (strcmp(last_part(o->kind == LEX_PROGRAM ? o->file :
		    o->path), file) == 0)
			PERR(p, "exercise %s: the student's file would be %s, as "
			    "for the exercise at line %d", e.id, file, o->line);
	}
	l->exercises = xrealloc(l->exercises, (l->nexercises + 1) *
	    sizeof *l->exercises);
	l->exercises[l->nexercises++] = e;
}

/* case options: timeout=, status=, points=. */
static void
case_opt(struct lp *p, const char *name, const char *val, void *arg)
{
	struct lcase	*c = arg;
	long		 v;

	if (strcmp(name, "timeout") == 0) {
		if ((c->timeout_s = duration(val)) <= 0 || c->timeout_s > 600)
			PERR(p, "timeout=%s: want a duration up to 10 minutes, like "
			    "10 or 500ms", val);
	} else if (strcmp(name, "status") == 0) {
		if (strcmp(val, "any") == 0)
			c->status = -1;
		else if (int_arg(val, 0, 255, &v))
			c->status = (int)v;
		else
			PERR(p, "status=%s: want 0-255 or any", val);
	} else if (strcmp(name, "points") == 0) {
		if (int_arg(val, 0, 1000, &v))
			c->points = (int)v;
		else
			PERR(p, "points=%s: want a whole number 0-1000", val);
	}
}

/*
 * case ID [timeout=S] [status=N|any] [points=N] COMMAND: a grader case of
 * the exercise above, a guest command run on the student's work.
 */
static void
hdr_case(struct lp *p, const char *kw, const char *rest)
{
	struct lab		*l = p->lab;
	struct lexercise	*e;
	struct lcase		 c = { .line = p->line, .points = 1 };
	char			 id[64];
	int			 i;

	if (l->nexercises == 0) {
		PERR(p, "case: belongs after an 'exercise' line");
		return;
	}
	e = &l->exercises[l->nexercises - 1];
	if (e->ncases == LAB_MAX_CASES) {
		PERR(p, "case: at most %d per exercise", LAB_MAX_CASES);
		return;
	}
	if (!word(&rest, id, sizeof id) || !ex_id_ok(id)) {
		PERR(p, "case: want 'case ID [timeout=S] [status=N|any] [points=N] "
		    "COMMAND' (ID: letters, digits, '-', '_', up to %d)", LAB_EX_ID);
		return;
	}
	for (i = 0; i < e->ncases; i++)
		if (strcmp(e->cases[i].id, id) == 0)
			PERR(p, "case %s: the id is used already at line %d", id,
			    e->cases[i].line);
	options(p, &rest, "timeout status points", case_opt, &c);
	if (*rest == '\0')
		PERR(p, "case %s: a guest command expected", id);
	c.id = xstrdup(id);
	c.command = xstrdup(rest);
	e->cases = xrealloc(e->cases, (e->ncases + 1) * sizeof *e->cases);
	e->cases[e->ncases++] = c;
	p->xcase = &e->cases[e->ncases - 1];
}

/* expect CONDITION: one check of the case above ('status' is its exit
 * status). */
static void
hdr_expect(struct lp *p, const char *kw, const char *rest)
{
	struct lcase	*c = p->xcase;
	struct lexpect	*x;

	if (c == NULL) {
		PERR(p, "expect: belongs after a 'case' line (of an exercise)");
		return;
	}
	if (c->nexpects == LAB_MAX_EXPECTS) {
		PERR(p, "expect: at most %d per case", LAB_MAX_EXPECTS);
		return;
	}
	if (*rest == '\0') {
		PERR(p, "expect: a condition expected, like 'result(NAME.KEY) == 4'");
		return;
	}
	c->expects = xrealloc(c->expects, (c->nexpects + 1) * sizeof *c->expects);
	x = &c->expects[c->nexpects++];
	memset(x, 0, sizeof *x);
	x->cond = xstrdup(rest);
	x->line = p->line;
	p->expect = x;
}

/* fail TEXT, hint TEXT in the header: of the expect line right above. */
static void
hdr_expect_text(struct lp *p, const char *kw, const char *rest)
{
	char	**dst;

	if (p->expect == NULL) {
		PERR(p, "%s: belongs right after a check or an expect line", kw);
		return;
	}
	dst = kw[0] == 'f' ? &p->expect->fail : &p->expect->hint;
	if (*rest == '\0')
		PERR(p, "%s: the text expected", kw);
	else if (*dst != NULL)
		PERR(p, "%s: given twice for this expect", kw);
	else
		*dst = xstrdup(rest);
}

static void	step_start(struct lp *, const char *);
static void	step_line(struct lp *, const char *, const char *);

/* A step line made by the parser, parsed as if written at line. */
static void __attribute__((format(printf, 4, 5)))
made_line(struct lp *p, int line, const char *kw, const char *fmt, ...)
{
	va_list	 ap;
	char	*rest;

	va_start(ap, fmt);
	rest = xvasprintf(fmt, ap);
	va_end(ap);
	p->line = line;
	if (strcmp(kw, "step") == 0)
		step_start(p, rest);
	else
		step_line(p, kw, rest);
	free(rest);
}

/*
 * The grader cases as steps at the end of the lab, one per case, made of
 * the runner's own actions so that every runner and result file has
 * them: the case's command, between a line that names the case (a stale
 * result line of an earlier case is never read) and one with its exit
 * status, then a check of the status and one per expect line.
 */
static void
exercise_steps(struct lp *p)
{
	struct lab		*l = p->lab;
	struct lexercise	*e;
	struct lcase		*c;
	const char		*name;
	char			 tmo[32];
	int			 i, j, k, line = p->line;

	for (i = 0; i < l->nexercises; i++) {
		e = &l->exercises[i];
		if (e->level == NULL && l->level != NULL)
			e->level = xstrdup(l->level);
		e->step0 = l->nsteps;
		/* a program exercise's result lines are its program's */
		name = e->kind == LEX_PROGRAM ? e->prog : "case";
		if (e->kind == LEX_PROGRAM && e->variant != NULL && e->ncases == 0)
			perr_at(p, e->line, "exercise %s: variant= is the variant "
			    "its cases boot, and it has none", e->id);
		for (j = 0; j < e->ncases; j++) {
			c = &e->cases[j];
			for (k = 0; k < j; k++)
				if (strcmp(e->cases[k].id, c->id) == 0)
					break;
			if (k < j)
				continue;	/* said at its line */
			if (c->status < 0 && c->nexpects == 0)
				perr_at(p, c->line, "case %s: nothing to check: want "
				    "status=N or expect lines", c->id);
			made_line(p, c->line, "step", "%s-%s Exercise %s, case %s: %s",
			    e->id, c->id, e->id, c->id, c->command);
			add_text(&p->step->text, "A grader case of the exercise: "
			    "its checks judge your work (umkit lab --exercise DIR), "
			    "or the solution without --exercise.");
			/* the same kernel whichever step ran last: the
			 * lab's first variant unless the exercise names one
			 * (no 'variants' line: base, the only one) */
			if (e->variant != NULL || l->nvariants > 0)
				made_line(p, e->line, "variant", "%s", e->variant
				    != NULL ? e->variant : l->variants[0]);
			tmo[0] = '\0';
			if (c->timeout_s > 0)
				snprintf(tmo, sizeof tmo, "timeout=%gs ", c->timeout_s);
			note_workload(p, c->command);
			made_line(p, c->line, "run", "%sstatus=any result=case%s%s "
			    "echo '%s: case=%s'; %s; echo \"case: status=$?\"", tmo,
			    e->kind == LEX_PROGRAM ? "," : "",
			    e->kind == LEX_PROGRAM ? name : "", name, c->id, c->command);
			made_line(p, c->line, "let", "status = result(case.status)");
			if (c->status >= 0) {
				made_line(p, c->line, "check", "points=%d status == %d",
				    c->points, c->status);
				/* the student's code, or the solution (lab-out.c) */
				if (p->check != NULL)
					p->check->check.exercise = true;
				made_line(p, c->line, "fail", "'%s' should exit with "
				    "status %d", c->command, c->status);
			}
			for (k = 0; k < c->nexpects; k++) {
				const struct lexpect	*x = &c->expects[k];

				made_line(p, x->line, "check", "points=%d %s",
				    c->points, x->cond);
				if (p->check != NULL)
					p->check->check.exercise = true;
				if (x->fail != NULL)
					made_line(p, x->line, "fail", "%s", x->fail);
				if (x->hint != NULL)
					made_line(p, x->line, "hint", "%s", x->hint);
			}
		}
	}
	p->line = line;
}

/* The student whose params and choice order a parse draws. */
static const char *
parse_student(const struct lp *p)
{
	return p->env != NULL && p->env->student != NULL ? p->env->student :
	    lab_student();
}

/*
 * param NAME = choice(A, B, ...) | range(LO, HI, STEP): a value drawn
 * per student, {{NAME}} in any later line and NAME in expressions.
 */
static void
hdr_param(struct lp *p, const char *kw, const char *rest)
{
	struct lab	*l = p->lab;
	struct lparam	 pr = { 0 };
	char		 name[64], *list, *q, *save = NULL, *end, buf[64];
	size_t		 n;
	int		 i;
	double		 lo, hi, step, v;

	if (!word(&rest, name, sizeof name) || strncmp(rest, "= ", 2) != 0 ||
	    !(isalpha((unsigned char)name[0]) || name[0] == '_') ||
	    !plain_chars(name, "") || strchr(name, '.') || strchr(name, '-')) {
		PERR(p, "param: want 'param NAME = choice(A, B, ...)' or 'param "
		    "NAME = range(LO, HI, STEP)' (NAME: letters, digits, '_')");
		return;
	}
	rest += 2;
	for (i = 0; i < l->nparams; i++)
		if (strcmp(l->params[i].name, name) == 0) {
			PERR(p, "param %s: defined twice", name);
			return;
		}
	n = strlen(rest);
	if ((strncmp(rest, "choice(", 7) != 0 && strncmp(rest, "range(", 6) != 0) ||
	    rest[n - 1] != ')') {
		PERR(p, "param %s: want choice(A, B, ...) or range(LO, HI, STEP)", name);
		return;
	}
	list = xasprintf("%.*s", (int)(n - 1 - (rest[0] == 'c' ? 7 : 6)),
	    rest + (rest[0] == 'c' ? 7 : 6));
	for (q = strtok_r(list, ",", &save); q != NULL; q = strtok_r(NULL, ",", &save)) {
		while (isspace((unsigned char)*q))
			q++;
		for (end = q + strlen(q); end > q && isspace((unsigned char)end[-1]); end--)
			*(end - 1) = '\0';
		if (*q == '\0' || strlen(q) > 32 || !plain_chars(q, "%")) {
			PERR(p, "param %s: '%s' is not a plain value (letters, "
			    "digits, '.', '_', '-', '%%'; up to 32)", name, q);
			break;
		}
		push_str(&pr.pool, &pr.npool, q);
	}
	free(list);
	if (rest[0] == 'r' && pr.npool == 3) {
		char	**nums = pr.pool;

		lo = strtod(nums[0], &end);
		hi = strtod(nums[1], &end);
		step = strtod(nums[2], &end);
		pr.pool = NULL;
		pr.npool = 0;
		if (!(step > 0) || !(hi >= lo) || (hi - lo) / step > 1000)
			PERR(p, "param %s: range(LO, HI, STEP) wants LO <= HI, STEP > 0 "
			    "and at most 1000 values", name);
		else
			for (v = lo; v <= hi + step / 1e9; v += step) {
				lab_fmt_num(buf, sizeof buf, v);
				push_str(&pr.pool, &pr.npool, buf);
			}
		for (i = 0; i < 3; i++)
			free(nums[i]);
		free(nums);
	} else if (rest[0] == 'r')
		PERR(p, "param %s: range(LO, HI, STEP) wants three numbers", name);
	if (pr.npool == 0) {
		if (rest[0] == 'c')
			PERR(p, "param %s: choice() wants at least one value", name);
		free(pr.pool);
		return;
	}
	pr.name = xstrdup(name);
	pr.value = xstrdup(pr.pool[lab_draw(parse_student(p), l->name, name) %
	    (unsigned)pr.npool]);
	l->params = xrealloc(l->params, (l->nparams + 1) * sizeof *l->params);
	l->params[l->nparams++] = pr;
}

/* line with every {{NAME}} of a param replaced by its value (allocated). */
static char *
subst_params(const struct lab *l, const char *line)
{
	char		*o = xstrdup(line), *n, *q;
	const char	*from = o;
	size_t		 k = 0;
	int		 i;

	while ((q = strstr(from, "{{")) != NULL) {
		for (i = 0; i < l->nparams; i++) {
			k = strlen(l->params[i].name);
			if (strncmp(q + 2, l->params[i].name, k) == 0 &&
			    strncmp(q + 2 + k, "}}", 2) == 0)
				break;
		}
		if (i == l->nparams) {
			from = q + 2;
			continue;
		}
		n = xasprintf("%.*s%s%s", (int)(q - o), o, l->params[i].value,
		    q + 4 + k);
		from = n + (q - o) + strlen(l->params[i].value);
		free(o);
		o = n;
	}
	return o;
}

/* A header keyword: its name and the function that parses its line. */
struct header_kw {
	const char	*name;
	void		(*parse)(struct lp *, const char *kw, const char *rest);
};

static const struct header_kw header_kws[] = {
	{ .name = "title",	.parse = hdr_title },
	{ .name = "minutes",	.parse = hdr_minutes },
	{ .name = "level",	.parse = hdr_level },
	{ .name = "variants",	.parse = hdr_variants },
	{ .name = "variant",	.parse = hdr_variants },
	{ .name = "memory",	.parse = hdr_memory },
	{ .name = "cpus",	.parse = hdr_cpus },
	{ .name = "disk",	.parse = hdr_disk },
	{ .name = "seed",	.parse = hdr_seed },
	{ .name = "doc",	.parse = hdr_doc },
	{ .name = "needs",	.parse = hdr_needs },
	{ .name = "exercise",	.parse = hdr_exercise },
	{ .name = "case",	.parse = hdr_case },
	{ .name = "expect",	.parse = hdr_expect },
	{ .name = "fail",	.parse = hdr_expect_text },
	{ .name = "hint",	.parse = hdr_expect_text },
	{ .name = "param",	.parse = hdr_param },
};

/* A header keyword line: its entry in header_kws parses it. */
static void
header_line(struct lp *p, const char *kw, const char *rest)
{
	const struct header_kw	*k;

	for (k = header_kws; k < header_kws + nitems(header_kws); k++) {
		if (strcmp(k->name, kw) == 0) {
			/* an exercise's case, its expects, their fail and hint */
			if (k->parse != hdr_expect && k->parse != hdr_expect_text)
				p->xcase = NULL;
			if (k->parse != hdr_expect_text)
				p->expect = NULL;
			k->parse(p, kw, rest);
			return;
		}
	}
	PERR(p, "'%s' is not a lab header keyword (title, minutes, level, "
	    "variants, memory, cpus, disk, seed, doc, needs, exercise, case, expect, "
	    "param; or 'step' to start the steps)", kw);
}

/* step ID TITLE */
static void
step_start(struct lp *p, const char *rest)
{
	struct lab	*l = p->lab;
	struct lstep	*st;
	char		 id[64];
	const char	*q;
	int		 i;

	l->steps = xrealloc(l->steps, (l->nsteps + 1) * sizeof *l->steps);
	st = &l->steps[l->nsteps++];
	memset(st, 0, sizeof *st);
	st->line = p->line;
	p->step = st;
	p->check = NULL;
	p->ask = NULL;
	p->q = NULL;
	p->qchoice = -1;
	lets_clear(p);
	if (!word(&rest, id, sizeof id)) {
		PERR(p, "step: want 'step ID TITLE' (ID: letters, digits, '-')");
		snprintf(id, sizeof id, "step%d", l->nsteps);
	}
	for (q = id; *q != '\0'; q++)
		if (!isalnum((unsigned char)*q) && *q != '-' && *q != '_') {
			PERR(p, "step %s: an ID is letters, digits, '-' or '_'", id);
			break;
		}
	for (i = 0; i < l->nsteps - 1; i++)
		if (strcmp(l->steps[i].id, id) == 0)
			PERR(p, "step %s: the ID is used already at line %d", id,
			    l->steps[i].line);
	st->id = xstrdup(id);
	st->title = xstrdup(*rest ? rest : id);
}

/* Whether the step has a mark called name before its current end. */
static bool
has_mark(const struct lstep *st, const char *name)
{
	int	i;

	for (i = 0; i < st->nacts; i++)
		if (st->acts[i].kind == LA_MARK && strcmp(st->acts[i].text, name) == 0)
			return true;
	return false;
}

struct refctx {
	struct lp	*p;
	int		 line;
};

/* Compare two strings through pointers, for qsort and bsearch. */
static int
strp_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Edit distance of a and b, or more than max (a cheap bound). */
static int
edit_distance(const char *a, const char *b, int max)
{
	int	la = strlen(a), lb = strlen(b), i, j, d[64 + 1], prev, t;

	if (la > 64 || lb > 64 || abs(la - lb) > max)
		return max + 1;
	for (j = 0; j <= lb; j++)
		d[j] = j;
	for (i = 1; i <= la; i++) {
		prev = d[0];
		d[0] = i;
		for (j = 1; j <= lb; j++) {
			t = d[j];
			d[j] = prev + (tolower((unsigned char)a[i - 1]) !=
			    tolower((unsigned char)b[j - 1]));
			if (d[j - 1] + 1 < d[j])
				d[j] = d[j - 1] + 1;
			if (t + 1 < d[j])
				d[j] = t + 1;
			prev = t;
		}
	}
	return d[lb];
}

/*
 * vmstat.KEY and meminfo.KEY must be keys some kernel of the kit has;
 * the error suggests the nearest one.
 */
static void
check_key(struct lp *p, int line, const char *spec)
{
	const struct lab_env	*env = p->env;
	char			 want[256], *w = want;
	const char		*src, *best = NULL;
	size_t			 sl;
	int			 i, bd = 4, d;

	if (env == NULL || env->keys == NULL)
		return;
	if (strncmp(spec, "vmstat.", 7) == 0)
		src = "vmstat";
	else if (strncmp(spec, "meminfo.", 8) == 0)
		src = "meminfo";
	else
		return;
	sl = strlen(src);
	snprintf(want, sizeof want, "%s %s", src, spec + sl + 1);
	if (bsearch(&w, env->keys, env->nkeys, sizeof *env->keys, strp_cmp) != NULL)
		return;
	for (i = 0; i < env->nkeys; i++) {
		if (strncmp(env->keys[i], want, sl + 1) != 0)
			continue;
		d = edit_distance(env->keys[i] + sl + 1, want + sl + 1, 3);
		if (d < bd) {
			bd = d;
			best = env->keys[i] + sl + 1;
		}
	}
	if (best != NULL)
		perr_at(p, line, "%s: no kernel of the kit has %s key '%s' "
		    "(did you mean %s.%s?)", spec, src, want + sl + 1, src, best);
	else
		perr_at(p, line, "%s: no kernel of the kit has %s key '%s' "
		    "(the keys are in labs/kernel-keys)", spec, src, want + sl + 1);
}

/* lexpr_specs() callback: the key check alone. */
static void
key_ref(const char *spec, const char *mark, void *arg)
{
	struct lp	*p = arg;

	(void)mark;
	check_key(p, p->line, spec);
}

/* Read a kernel-keys file: "SOURCE KEY" lines, '#' comments. */
int
lab_keys_load(const char *path, struct lab_env *env, char *err, size_t errlen)
{
	FILE	*f;
	char	 line[512], *nl;
	int	 n = 0, cap = 256, lineno = 0;

	if ((f = fopen(path, "r")) == NULL) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	env->keys = xmalloc(cap * sizeof *env->keys);
	while (fgets(line, sizeof line, f) != NULL) {
		lineno++;
		if ((nl = strchr(line, '\n')) != NULL)
			*nl = '\0';
		if (line[0] == '#' || line[0] == '\0')
			continue;
		if ((strncmp(line, "vmstat ", 7) != 0 && strncmp(line, "meminfo ", 8) != 0) ||
		    strchr(strchr(line, ' ') + 1, ' ') != NULL || strchr(line, ' ')[1] == '\0') {
			snprintf(err, errlen, "%s:%d: want 'vmstat KEY' or 'meminfo KEY'",
			    path, lineno);
			while (n > 0)
				free(env->keys[--n]);
			free(env->keys);
			env->keys = NULL;
			fclose(f);
			return -1;
		}
		if (n == cap)
			env->keys = xrealloc(env->keys, (cap *= 2) * sizeof *env->keys);
		env->keys[n++] = xstrdup(line);
	}
	fclose(f);
	qsort(env->keys, n, sizeof *env->keys, strp_cmp);
	env->nkeys = n;
	return 0;
}

/*
 * delta(SPEC, MARK) must name a mark set earlier in the step, and every
 * spec a key the kit's kernels have.
 */
static void
check_mark_ref(const char *spec, const char *mark, void *arg)
{
	struct refctx	*r = arg;

	check_key(r->p, r->line, spec);
	if (mark != NULL && mark[0] != '\0' && !has_mark(r->p->step, mark))
		perr_at(r->p, r->line, "delta(%s, %s): no 'mark %s' earlier in "
		    "this step", spec, mark, mark);
}

/* result(NAME.KEY) must name a workload some run/bg line started. */
static void
check_results(struct lp *p, const struct lexpr *e)
{
	char	name[128];
	int	i;

	if (e == NULL)
		return;
	if (e->kind == LX_RESULT || e->kind == LX_MEDIAN) {
		snprintf(name, sizeof name, "%.*s", (int)strcspn(e->spec, "."), e->spec);
		/* the program's name, or its last part (umkit-rsscheck: rsscheck) */
		for (i = 0; i < p->nwl; i++) {
			size_t	wl = strlen(p->wl[i]), nl = strlen(name);

			if (strcmp(p->wl[i], name) == 0 || (wl > nl + 1 &&
			    p->wl[i][wl - nl - 1] == '-' && strcmp(p->wl[i] + wl - nl, name) == 0))
				break;
		}
		if (i == p->nwl)
			PERR(p, "%s(%s): no run or bg line before it starts '%s'",
			    e->kind == LX_RESULT ? "result" : "median", e->spec, name);
	}
	check_results(p, e->a);
	check_results(p, e->b);
}

/* Validate the references of a condition. */
static void
check_refs(struct lp *p, const struct lcond *c)
{
	if (c == NULL)
		return;
	check_refs_expr(p, c->left);
	check_refs_expr(p, c->right);
}

/* Validate the marks and results an expression refers to. */
static void
check_refs_expr(struct lp *p, const struct lexpr *e)
{
	struct refctx	r = { p, p->line };

	lexpr_specs(e, check_mark_ref, &r);
	check_results(p, e);
}

/* Free what a question holds and make it none (a second ask, lab_free). */
static void
ask_clear(struct lask *q)
{
	int	i;

	free(q->question);
	for (i = 0; i < q->nchoices; i++) {
		free(q->choices[i].text);
		free(q->choices[i].because);
	}
	free(q->choices);
	lexpr_free(q->truth);
	free(q->explain);
	memset(q, 0, sizeof *q);
}

/*
 * ---- step keywords ------------------------------------------------------
 *
 * Each returns false when it refused its line as a whole: step_line then
 * leaves the last check and question (p->check, p->ask) as they were, as
 * it does after an entry with SKW_KEEP_CHECK and SKW_KEEP_ASK.
 */

/* view NAME: the TUI view the step focuses. */
static bool
kw_view(struct lp *p, const char *kw, const char *rest)
{
	const char	*const *v;

	for (v = lab_views; *v != NULL; v++)
		if (strcmp(*v, rest) == 0)
			break;
	if (*v == NULL)
		PERR(p, "view %s: no such view (lru, compaction, counters, overview)", rest);
	free(p->step->view);
	p->step->view = xstrdup(rest);
	return true;
}

/* variant NAME: the variant (of the lab's) the step boots. */
static bool
kw_variant(struct lp *p, const char *kw, const char *rest)
{
	struct lab	*l = p->lab;
	int		 i;

	for (i = 0; i < l->nvariants; i++)
		if (strcmp(l->variants[i], rest) == 0)
			break;
	if (i == l->nvariants)
		PERR(p, "variant %s: not in the lab's 'variants' line", rest);
	free(p->step->variant);
	p->step->variant = xstrdup(rest);
	return true;
}

/* needs PATH...: guest paths without which the step's checks skip. */
static bool
kw_needs(struct lp *p, const char *kw, const char *rest)
{
	need_paths(p, rest, &p->step->needs, &p->step->nneeds);
	return true;
}

/*
 * ask|why choice|number [points=N] answer=... QUESTION: the step's
 * prediction (ask, before it runs) or its question about what the
 * student saw (why, after it ran).
 */
static bool
kw_ask(struct lp *p, const char *kw, const char *rest)
{
	struct lask	*q = kw[0] == 'a' ? &p->step->ask : &p->step->why;
	char		 w[256];
	int		 before;
	bool		 bad_answer;

	if (q->kind != LQ_NONE)
		PERR(p, "%s: one per step (the first is at line %d)", kw, q->line);
	ask_clear(q);
	/* what pointed into the question cleared goes with it */
	if (p->ask == q)
		p->ask = NULL;
	if (p->q == q)
		p->q = NULL;
	p->qchoice = -1;
	q->line = p->line;
	q->points = 1;
	if (!word(&rest, w, sizeof w) ||
	    (strcmp(w, "choice") != 0 && strcmp(w, "number") != 0)) {
		PERR(p, "%s: want '%s choice [points=N] answer=K QUESTION' or "
		    "'%s number [points=N] answer=EXPR [tolerance=T] QUESTION'",
		    kw, kw, kw);
		return false;
	}
	q->kind = w[0] == 'c' ? LQ_CHOICE : LQ_NUMBER;
	before = p->nerrs;
	options(p, &rest, "answer tolerance points", ask_opt, q);
	bad_answer = p->nerrs > before;
	if (*rest == '\0')
		PERR(p, "%s: the question text expected", kw);
	else if (q->kind == LQ_NUMBER && strchr("+-*/", rest[0]) != NULL &&
	    rest[1] == ' ')
		PERR(p, "%s: the question starts with '%c ': answer= ends at the "
		    "first blank; write answer=\"EXPR\" for one with blanks", kw,
		    rest[0]);
	q->question = xstrdup(rest);
	if (q->kind == LQ_CHOICE && q->answer == 0 && q->sealed[0] == '\0' &&
	    !bad_answer)
		PERR(p, "%s choice: answer=K (the right choice's letter) expected", kw);
	if (q->kind == LQ_NUMBER && q->truth == NULL && !bad_answer)
		PERR(p, "%s number: answer=EXPR (what will happen) expected", kw);
	if (q->kind == LQ_NUMBER)
		check_results(p, q->truth);
	p->ask = q->kind == LQ_CHOICE ? q : NULL;
	p->q = q;
	p->qchoice = -1;
	return true;
}

/* Append a line to an explanation (a sealed one is one "#HEX" line). */
static void
explain_add(struct lp *p, const char *kw, char **dst, const char *rest)
{
	if (*rest == '\0') {
		PERR(p, "%s: the text expected", kw);
		return;
	}
	if (lab_sealed_text(rest) != lab_sealed_text(*dst) && *dst != NULL) {
		PERR(p, "%s: a sealed text (#HEX) is one line alone", kw);
		return;
	}
	if (*dst == NULL)
		*dst = xstrdup(rest);
	else {
		char	*n = xasprintf("%s %s", *dst, rest);

		free(*dst);
		*dst = n;
	}
}

/* explain TEXT: why the step's last question's right answer is right,
 * shown once the answer is in. */
static bool
kw_explain(struct lp *p, const char *kw, const char *rest)
{
	if (p->q == NULL) {
		PERR(p, "explain: belongs after an ask or why");
		return false;
	}
	explain_add(p, kw, &p->q->explain, rest);
	p->qchoice = -1;
	return true;
}

/* because TEXT: right after a choice line, why that choice is right or
 * wrong. */
static bool
kw_because(struct lp *p, const char *kw, const char *rest)
{
	if (p->qchoice < 0) {
		PERR(p, "because: belongs right after a choice line (a) ...)");
		return false;
	}
	explain_add(p, kw, &p->ask->choices[p->qchoice].because, rest);
	return true;
}

/* goal TEXT: the student builds the state the checks below judge. */
static bool
kw_goal(struct lp *p, const char *kw, const char *rest)
{
	struct lstep	*st = p->step;

	if (*rest == '\0') {
		PERR(p, "goal: what the student must achieve expected");
		return false;
	}
	if (st->ab != NULL)
		PERR(p, "goal: not in an ab step");
	if (st->goal == NULL) {
		st->goal = xstrdup(rest);
		st->goal_at = st->nacts;
	} else if (st->goal_at != st->nacts)
		PERR(p, "goal: one goal per step (its lines together)");
	else
		explain_add(p, kw, &st->goal, rest);
	return true;
}

/* solve COMMAND: a guest command that reaches the goal (batch runs and
 * make test use it; the student never sees it). */
static bool
kw_solve(struct lp *p, const char *kw, const char *rest)
{
	if (p->step->goal == NULL) {
		PERR(p, "solve: belongs after the step's goal");
		return false;
	}
	if (*rest == '\0') {
		PERR(p, "solve: a guest command expected");
		return false;
	}
	check_interp(p, rest, true);
	note_workload(p, rest);
	push_str(&p->step->solve, &p->step->nsolve, rest);
	return true;
}

/* ab / evidence options. */
static void
ab_opt(struct lp *p, const char *name, const char *val, void *arg)
{
	struct lab_evidence	*e = arg;
	long			 v;
	char			*end;
	size_t			 n;

	if (strcmp(name, "points") == 0) {
		if (int_arg(val, 0, 1000, &v))
			e->points = (int)v;
		else
			PERR(p, "points=%s: want a whole number 0-1000", val);
	} else if (strcmp(name, "tolerance") == 0) {
		n = strlen(val);
		e->tol_pct = n > 0 && val[n - 1] == '%';
		e->tol = strtod(val, &end);
		if (end == val || e->tol < 0 ||
		    (*end != '\0' && !(e->tol_pct && end == val + n - 1)))
			PERR(p, "tolerance=%s: want a number or a percentage like 10%%", val);
	}
}

/* ab [points=N] PATH V1 V2 WHAT: a blind A/B step (struct lab_ab). */
static bool
kw_ab(struct lp *p, const char *kw, const char *rest)
{
	struct lstep		*st = p->step;
	struct lab_evidence	 o = { .points = 2 };
	char			 path[256], v1[64], v2[64];

	if (st->ab != NULL) {
		PERR(p, "ab: one per step (the first is at line %d)", st->ab->line);
		return false;
	}
	options(p, &rest, "points", ab_opt, &o);
	if (!word(&rest, path, sizeof path) || !word(&rest, v1, sizeof v1) ||
	    !word(&rest, v2, sizeof v2) || *rest == '\0') {
		PERR(p, "ab: want 'ab [points=N] PATH V1 V2 WHAT' (WHAT: what V1 "
		    "means, for the question)");
		return false;
	}
	if (!lab_write_path_ok(path))
		PERR(p, "ab %s: want a plain path under /proc or /sys", path);
	if (!plain_chars(v1, "") || !plain_chars(v2, "") || strcmp(v1, v2) == 0)
		PERR(p, "ab: V1 and V2 are two different plain values "
		    "(letters, digits, '.', '_', '-')");
	if (st->goal != NULL)
		PERR(p, "ab: not in a goal step");
	st->ab = xcalloc(1, sizeof *st->ab);
	st->ab->path = xstrdup(path);
	st->ab->value[0] = xstrdup(v1);
	st->ab->value[1] = xstrdup(v2);
	st->ab->what = xstrdup(rest);
	st->ab->points = o.points;
	st->ab->line = p->line;
	return true;
}

/* evidence [points=N] [tolerance=T] LABEL = EXPR: a value each guest of
 * the ab step shows, which the student reads off a view. */
static bool
kw_evidence(struct lp *p, const char *kw, const char *rest)
{
	struct lab_ab		*ab = p->step->ab;
	struct lab_evidence	 e = { .points = 1, .tol = 10, .tol_pct = true };
	const char		*eq;
	char			 err[LAB_ERR_LEN], *x;

	if (ab == NULL) {
		PERR(p, "evidence: belongs after the step's ab line");
		return false;
	}
	if (ab->nev == LAB_AB_MAX_EV) {
		PERR(p, "evidence: at most %d per ab step", LAB_AB_MAX_EV);
		return false;
	}
	options(p, &rest, "points tolerance", ab_opt, &e);
	if ((eq = strstr(rest, " = ")) == NULL || eq == rest) {
		PERR(p, "evidence: want 'evidence [points=N] [tolerance=T] LABEL = EXPR'");
		return false;
	}
	x = expand_lets(p, eq + 3);
	if ((e.expr = lexpr_parse(x, err)) == NULL) {
		PERR(p, "evidence: %s", err);
		free(x);
		return false;
	}
	free(x);
	check_refs_expr(p, e.expr);
	e.label = xasprintf("%.*s", (int)(eq - rest), rest);
	e.line = p->line;
	ab->ev = xrealloc(ab->ev, (ab->nev + 1) * sizeof *ab->ev);
	ab->ev[ab->nev++] = e;
	return true;
}

/* a) TEXT, b) TEXT ...: the choices of the ask choice above, in order. */
static bool
kw_choice(struct lp *p, const char *kw, const char *rest)
{
	struct lask	*q = p->ask;

	if (kw[0] != 'a' + q->nchoices)
		PERR(p, "choice %c): choices go a), b), c) ... in order", kw[0]);
	q->choices = xrealloc(q->choices, (q->nchoices + 1) * sizeof *q->choices);
	q->choices[q->nchoices].key = kw[0];
	q->choices[q->nchoices].text = xstrdup(rest);
	q->choices[q->nchoices].because = NULL;
	p->qchoice = q->nchoices++;
	return true;
}

/* The command of a run or bg line (after its options) into a. */
static void
guest_command(struct lp *p, const char *kw, struct lact *a, const char *rest)
{
	if (*rest == '\0')
		PERR(p, "%s: a guest command expected", kw);
	a->text = expand_lets_text(p, rest);
	check_interp(p, a->text, false);
	note_workload(p, rest);
}

/* run [timeout=S] [status=N|any] [result=NAME,...] COMMAND: a guest
 * command in the foreground. */
static bool
kw_run(struct lp *p, const char *kw, const char *rest)
{
	struct lact	*a = new_act(p, LA_RUN);

	a->timeout_s = 60;
	options(p, &rest, "timeout status result", act_opt, a);
	guest_command(p, kw, a, rest);
	return true;
}

/* bg [result=NAME,...] COMMAND: a guest command in the background. */
static bool
kw_bg(struct lp *p, const char *kw, const char *rest)
{
	struct lact	*a = new_act(p, LA_BG);

	a->timeout_s = 0;
	options(p, &rest, "result", act_opt, a);
	guest_command(p, kw, a, rest);
	return true;
}

/* Whether the lab being parsed may have gdb steps (lab_env.trusted_dir). */
static bool
gdb_trusted(const struct lp *p)
{
	char	*rp;
	size_t	 n;
	bool	 yes;

	if (p->env == NULL || p->env->trusted_dir == NULL || p->env->trust_all)
		return true;
	if ((rp = realpath(p->path, NULL)) == NULL)
		return false;
	n = strlen(p->env->trusted_dir);
	yes = strncmp(rp, p->env->trusted_dir, n) == 0 && rp[n] == '/' &&
	    strchr(rp + n + 1, '/') == NULL;
	free(rp);
	return yes;
}

/* gdb [timeout=S] FILE: gdb on the step's kernel with FILE's commands. */
static bool
kw_gdb(struct lp *p, const char *kw, const char *rest)
{
	struct lact	*a = new_act(p, LA_GDB);
	char		 w[256];

	a->timeout_s = 30;
	options(p, &rest, "timeout", act_opt, a);
	if (!word(&rest, w, sizeof w) || *rest != '\0')
		PERR(p, "gdb: want 'gdb [timeout=S] FILE' (gdb commands, "
		    "beside the lab file)");
	else {
		a->path = beside_lab(p, w);
		if (p->env != NULL && p->env->patches_dir != NULL &&
		    access(a->path, R_OK) < 0)
			PERR(p, "gdb %s: %s", w, strerror(errno));
		if (!gdb_trusted(p))
			PERR(p, "gdb %s: a gdb script can run any command; only the "
			    "kit's own labs (%s) may have gdb steps, or run this lab "
			    "with --trust if you trust its author", w,
			    p->env->trusted_dir);
	}
	/* Its "gdb: key=value" lines are result(gdb.KEY). */
	push_str(&p->wl, &p->nwl, "gdb");
	return true;
}

/* drgn [timeout=S] --gens PID|COMM: the generation of each page of a guest
 * process, read on the host by the kit's drgn module (no script: any
 * lab may have it); its "gens: ..." line is result(gens.KEY). */
static bool
kw_drgn(struct lp *p, const char *kw, const char *rest)
{
	struct lact	*a = new_act(p, LA_DRGN);
	char		 w[64], t[64];

	a->timeout_s = 60;
	options(p, &rest, "timeout", act_opt, a);
	if (!word(&rest, w, sizeof w) || strcmp(w, "--gens") != 0 ||
	    !word(&rest, t, sizeof t) || *rest != '\0' || !plain_chars(t, "") ||
	    t[0] == '-') {
		PERR(p, "drgn: want 'drgn [timeout=S] --gens PID|COMM' (COMM: "
		    "letters, digits, '.', '_', '-')");
		return true;
	}
	a->text = xstrdup(t);
	push_str(&p->wl, &p->nwl, "gens");
	return true;
}

/* reproduce [timeout=S] SEED: the seed thread's table beside the kit's
 * (umkit reproduce SEED --quick, its own guests); its "reproduce: ..."
 * line is result(reproduce.KEY_COLUMN). */
static bool
kw_reproduce(struct lp *p, const char *kw, const char *rest)
{
	struct lact	*a = new_act(p, LA_REPRO);
	char		 w[16];

	a->timeout_s = 300;
	options(p, &rest, "timeout", act_opt, a);
	if (!word(&rest, w, sizeof w) || *rest != '\0' || w[0] == '\0' ||
	    strlen(w) > 3 || strspn(w, "0123456789") != strlen(w)) {
		PERR(p, "reproduce: want 'reproduce [timeout=S] SEED' (SEED: 000 "
		    "to 004, see umkit reproduce --help)");
		return true;
	}
	a->text = xstrdup(w);
	push_str(&p->wl, &p->nwl, "reproduce");
	return true;
}

/* write PATH TEXT: TEXT into a guest file, through the mirror. */
static bool
kw_write(struct lp *p, const char *kw, const char *rest)
{
	struct lact	*a = new_act(p, LA_WRITE);
	char		 w[256] = "";

	if (!word(&rest, w, sizeof w) || w[0] != '/')
		PERR(p, "write: want 'write /GUEST/PATH TEXT'");
	else if (!lab_write_path_ok(w))
		PERR(p, "write %s: only a plain path under /proc or /sys (no '.', "
		    "'..' or '//'), written through the mirror", w);
	a->path = xstrdup(w);
	a->text = expand_lets_text(p, rest);
	check_interp(p, a->text, false);
	return true;
}

/* wait [timeout=S] CONDITION: until the condition holds. */
static bool
kw_wait(struct lp *p, const char *kw, const char *rest)
{
	struct lact	*a = new_act(p, LA_WAIT);

	a->timeout_s = 30;
	options(p, &rest, "timeout", act_opt, a);
	a->cond = cond_here(p, rest);
	check_refs(p, a->cond);
	return true;
}

/* let NAME = EXPR: a name for the expression in the rest of the step. */
static bool
kw_let(struct lp *p, const char *kw, const char *rest)
{
	char		 w[256], err[LAB_ERR_LEN], *x;
	struct lexpr	*e;
	const char	*q;
	int		 i;

	if (!word(&rest, w, sizeof w) || !name_char(w[0]) ||
	    isdigit((unsigned char)w[0]) || strncmp(rest, "= ", 2) != 0) {
		PERR(p, "let: want 'let NAME = EXPR'");
		return false;
	}
	for (q = w; *q != '\0'; q++)
		if (!name_char(*q)) {
			PERR(p, "let %s: a name is letters, digits and '_'", w);
			return false;
		}
	for (i = 0; i < p->nlet; i++)
		if (strcmp(p->letn[i], w) == 0) {
			PERR(p, "let %s: defined twice in this step", w);
			return false;
		}
	x = expand_lets(p, rest + 2);
	if ((e = lexpr_parse(x, err)) == NULL) {
		PERR(p, "let %s: %s", w, err);
		free(x);
		return false;
	}
	check_refs_expr(p, e);
	lexpr_free(e);
	push_str(&p->letn, &p->nlet, w);
	p->nlet--;
	p->letv = xrealloc(p->letv, (p->nlet + 1) * sizeof *p->letv);
	p->letv[p->nlet++] = xasprintf("(%s)", x);
	free(x);
	return true;
}

/* show TEXT: a line for the student, with {{EXPR}} values. */
static bool
kw_show(struct lp *p, const char *kw, const char *rest)
{
	struct lact	*a = new_act(p, LA_SHOW);

	if (*rest == '\0')
		PERR(p, "show: the text expected (values as {{EXPR}})");
	a->text = expand_lets_text(p, rest);
	check_interp(p, a->text, true);
	return true;
}

/* sleep S: a pause of up to 10 minutes. */
static bool
kw_sleep(struct lp *p, const char *kw, const char *rest)
{
	struct lact	*a = new_act(p, LA_SLEEP);

	if ((a->timeout_s = duration(rest)) < 0 || a->timeout_s > 600)
		PERR(p, "sleep %s: want a duration up to 10 minutes, like 2 or 500ms", rest);
	return true;
}

/* mark NAME: remember the values, for delta(SPEC, NAME). */
static bool
kw_mark(struct lp *p, const char *kw, const char *rest)
{
	struct lact	*a;
	char		 w[256] = "";

	if (!word(&rest, w, sizeof w) || *rest != '\0')
		PERR(p, "mark: want one name");
	else if (has_mark(p->step, w))
		PERR(p, "mark %s: set twice in this step", w);
	a = new_act(p, LA_MARK);
	a->text = xstrdup(w);
	return true;
}

/* Whether e is a value that never goes below zero: a value now, or the
 * change of a counter (a vmstat event, a trace count). */
static bool
never_negative(const struct lexpr *e)
{
	if (e->kind == LX_SPEC)
		return true;
	if (e->kind != LX_DELTA)
		return false;
	return (strncmp(e->spec, "vmstat.", 7) == 0 &&
	    strncmp(e->spec, "vmstat.nr_", 10) != 0) ||
	    strncmp(e->spec, "trace.count", 11) == 0;
}

/* Warn about a condition whose outcome does not depend on the guest. */
static void
lint_cond(struct lp *p, const struct lcond *c)
{
	const struct lexpr	*v = NULL, *z = NULL;

	if (c == NULL)
		return;
	if (lexpr_same(c->left, c->right)) {
		pwarn_at(p, p->line, "'%s' compares a value with itself: it %s",
		    c->text, c->cmp == LC_EQ || c->cmp == LC_LE || c->cmp == LC_GE ||
		    c->cmp == LC_WITHIN ? "cannot fail" : "cannot pass");
		return;
	}
	if (c->cmp == LC_GE || c->cmp == LC_GT) {
		v = c->left;
		z = c->right;
	} else if (c->cmp == LC_LE || c->cmp == LC_LT) {
		v = c->right;
		z = c->left;
	}
	if (v != NULL && z->kind == LX_NUM && never_negative(v) &&
	    (z->num < 0 || (z->num == 0 && c->cmp != LC_GT && c->cmp != LC_LT)))
		pwarn_at(p, p->line, "'%s' cannot fail: %s is never negative",
		    c->text, v->kind == LX_SPEC ? "a value" : "a counter's change");
}

/* check [points=N] CONDITION: one graded check. */
static bool
kw_check(struct lp *p, const char *kw, const char *rest)
{
	struct lact	*a;

	if (p->step->ab != NULL) {
		PERR(p, "check: an ab step has no checks (they would tell the "
		    "guests apart); its evidence lines grade it");
		return false;
	}
	a = new_act(p, LA_CHECK);
	a->check.points = 1;
	a->check.student = p->step->goal != NULL;
	options(p, &rest, "points", act_opt, a);
	a->check.cond = a->cond = cond_here(p, rest);
	check_refs(p, a->cond);
	lint_cond(p, a->cond);
	p->check = a;
	return true;
}

/* The text of a fail or hint line into *dst, of the check above. */
static void
check_text(struct lp *p, const char *kw, const char *rest, char **dst)
{
	if (*rest == '\0')
		PERR(p, "%s: the text expected", kw);
	if (*dst != NULL)
		PERR(p, "%s: given twice for this check", kw);
	free(*dst);
	*dst = xstrdup(rest);
}

/* fail TEXT: the message when the check above fails. */
static bool
kw_fail(struct lp *p, const char *kw, const char *rest)
{
	check_text(p, kw, rest, &p->check->check.fail);
	return true;
}

/* hint TEXT: the hint for the check above, shown on request. */
static bool
kw_hint(struct lp *p, const char *kw, const char *rest)
{
	check_text(p, kw, rest, &p->check->check.hint);
	return true;
}

/* A step keyword: its name, the function that parses its line, and flags. */
struct step_kw {
	const char	*name;
	bool		(*parse)(struct lp *, const char *kw, const char *rest);
	int		 flags;
#define SKW_LETTER	0x1	/* the name is any letter and ')' */
#define SKW_AFTER_CHECK	0x2	/* only right after a check */
#define SKW_AFTER_ASK	0x4	/* only after an 'ask choice' */
#define SKW_KEEP_CHECK	0x8	/* p->check (for fail, hint) stays as it left it */
#define SKW_KEEP_ASK	0x10	/* p->ask (for a) lines) stays as it left it */
};

static const struct step_kw step_kws[] = {
	{ .name = "view",	.parse = kw_view },
	{ .name = "variant",	.parse = kw_variant },
	{ .name = "needs",	.parse = kw_needs },
	{ .name = "ask",	.parse = kw_ask,	.flags = SKW_KEEP_ASK },
	{ .name = "why",	.parse = kw_ask,	.flags = SKW_KEEP_ASK },
	{ .name = "a)",		.parse = kw_choice,
	  .flags = SKW_LETTER|SKW_AFTER_ASK|SKW_KEEP_CHECK|SKW_KEEP_ASK },
	{ .name = "because",	.parse = kw_because,
	  .flags = SKW_AFTER_ASK|SKW_KEEP_CHECK|SKW_KEEP_ASK },
	{ .name = "explain",	.parse = kw_explain,
	  .flags = SKW_KEEP_CHECK|SKW_KEEP_ASK },
	{ .name = "goal",	.parse = kw_goal },
	{ .name = "solve",	.parse = kw_solve },
	{ .name = "ab",		.parse = kw_ab },
	{ .name = "evidence",	.parse = kw_evidence },
	{ .name = "run",	.parse = kw_run },
	{ .name = "bg",		.parse = kw_bg },
	{ .name = "gdb",	.parse = kw_gdb },
	{ .name = "drgn",	.parse = kw_drgn },
	{ .name = "reproduce",	.parse = kw_reproduce },
	{ .name = "write",	.parse = kw_write },
	{ .name = "wait",	.parse = kw_wait },
	{ .name = "let",	.parse = kw_let },
	{ .name = "show",	.parse = kw_show },
	{ .name = "sleep",	.parse = kw_sleep },
	{ .name = "mark",	.parse = kw_mark },
	{ .name = "check",	.parse = kw_check,
	  .flags = SKW_KEEP_CHECK|SKW_KEEP_ASK },
	{ .name = "fail",	.parse = kw_fail,
	  .flags = SKW_AFTER_CHECK|SKW_KEEP_CHECK|SKW_KEEP_ASK },
	{ .name = "hint",	.parse = kw_hint,
	  .flags = SKW_AFTER_CHECK|SKW_KEEP_CHECK|SKW_KEEP_ASK },
};

/* The entry of step_kws for kw, or NULL. */
static const struct step_kw *
step_kw_find(const char *kw)
{
	const struct step_kw	*k;

	for (k = step_kws; k < step_kws + nitems(step_kws); k++) {
		if (k->flags & SKW_LETTER) {
			if (islower((unsigned char)kw[0]) && kw[1] == ')' &&
			    kw[2] == '\0')
				return k;
		} else if (strcmp(k->name, kw) == 0)
			return k;
	}
	return NULL;
}

/*
 * A keyword line inside a step: its entry in step_kws parses it; after
 * it, the last check and question end unless the entry keeps them.
 */
static void
step_line(struct lp *p, const char *kw, const char *rest)
{
	const struct step_kw	*k;

	if ((k = step_kw_find(kw)) == NULL) {
		PERR(p, "'%s' is not a step keyword (view, variant, needs, ask, why, "
		    "explain, because, goal, solve, ab, evidence, run, bg, gdb, drgn, "
		    "reproduce, write, wait, sleep, show, let, mark, check, fail, hint)", kw);
		p->ask = NULL;
		p->check = NULL;
		return;
	}
	if ((k->flags & SKW_AFTER_CHECK) && p->check == NULL) {
		PERR(p, "%s: belongs right after a check", kw);
		return;
	}
	if ((k->flags & SKW_AFTER_ASK) && p->ask == NULL) {
		PERR(p, "'%s' choice line belongs after 'ask choice'", kw);
		return;
	}
	if (!k->parse(p, kw, rest))
		return;
	if (~k->flags & SKW_KEEP_ASK) {
		p->ask = NULL;
		p->qchoice = -1;
	}
	if (~k->flags & SKW_KEEP_CHECK)
		p->check = NULL;
}

/* Checks that need the whole file. */
static void
finish(struct lp *p)
{
	struct lab	*l = p->lab;
	struct lstep	*st;
	int		 i, j, sp, kp;

	if (l->title == NULL)
		perr_at(p, 0, "no 'title' line");
	if (l->nsteps == 0)
		perr_at(p, 0, "no steps (a step starts with 'step ID TITLE')");
	if (l->nvariants == 0)
		push_str(&l->variants, &l->nvariants, "base");
	for (i = 0; i < l->nsteps; i++) {
		st = &l->steps[i];
		for (j = 0; j < 2; j++) {
			const struct lask *q = j ? &st->why : &st->ask;

			if (q->kind != LQ_CHOICE)
				continue;
			if (q->nchoices < 2)
				perr_at(p, q->line, "%s choice: at least two "
				    "choices (a) ..., b) ...) expected after it",
				    j ? "why" : "ask");
			else if (q->answer != 0 && q->answer >= 'a' + q->nchoices)
				perr_at(p, q->line, "%s choice: answer=%c is not "
				    "one of the choices", j ? "why" : "ask", q->answer);
		}
		if (st->goal != NULL) {
			for (j = st->goal_at; j < st->nacts; j++)
				if (st->acts[j].kind == LA_CHECK)
					break;
			if (j == st->nacts)
				perr_at(p, st->line, "step %s: a goal wants checks after "
				    "it (they judge what the student built)", st->id);
			if (st->nsolve == 0)
				perr_at(p, st->line, "step %s: a goal wants 'solve' "
				    "lines (batch runs and make test reach the goal "
				    "with them)", st->id);
		}
		if (st->ab != NULL && st->ab->nev == 0)
			perr_at(p, st->ab->line, "ab: at least one 'evidence LABEL "
			    "= EXPR' line expected after it");
	}
	lab_points_split(l, &sp, &kp);
	if (p->nerrs == 0 && sp * 2 < sp + kp)
		pwarn_at(p, 0, "the student earns %d of the lab's %d points (under "
		    "half): questions (ask, why), goal steps and ab steps are the "
		    "student's, plain checks the kit's", sp, sp + kp);
}

/* Parse text (len bytes) as the lab file path. */
struct lab *
lab_parse(const char *path, const char *text, size_t len,
    const struct lab_env *env, char **errs)
{
	struct lp	 p = { .path = path, .env = env };
	struct lab	*l = xcalloc(1, sizeof *l);
	const char	*s = text, *end = text + len, *nl, *rest;
	char		*line, kw[64];
	int		 i;

	l->path = xstrdup(path);
	{
		const char *b = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
		size_t n = strlen(b);

		if (n > 4 && strcmp(b + n - 4, ".lab") == 0)
			n -= 4;
		l->name = xasprintf("%.*s", (int)n, b);
	}
	if (!lab_name_ok(l->name))
		perr_at(&p, 0, "the file name '%s' is not a lab name: letters, "
		    "digits, '.', '_' and '-' only, not starting with '.'", l->name);
	p.qchoice = -1;
	l->mem_mb = 256;
	l->cpus = 2;
	l->disk_mb = -1;
	p.lab = l;
	while (s < end) {
		nl = memchr(s, '\n', (size_t)(end - s));
		if (nl == NULL)
			nl = end;
		p.line++;
		line = xasprintf("%.*s", (int)(nl - s), s);
		if (strlen(line) != (size_t)(nl - s)) {
			PERR(&p, "a NUL byte in the line: not a text file");
			s = nl + (nl < end);
			free(line);
			continue;
		}
		s = nl + (nl < end);
		/* Trailing blanks and a CR go. */
		for (i = (int)strlen(line); i > 0 && isspace((unsigned char)line[i - 1]); i--)
			line[i - 1] = '\0';
		if (l->nparams > 0 && strstr(line, "{{") != NULL) {
			char	*x = subst_params(l, line);

			free(line);
			line = x;
		}
		rest = line;
		while (isspace((unsigned char)*rest))
			rest++;
		if (*rest == '\0' || *rest == '#') {
			free(line);
			continue;
		}
		if (*rest == '|') {
			rest++;
			if (*rest == ' ')
				rest++;
			if (p.step != NULL)
				add_text(&p.step->text, rest);
			else
				add_text(&l->intro, rest);
			free(line);
			continue;
		}
		word(&rest, kw, sizeof kw);
		if (strcmp(kw, "step") == 0)
			step_start(&p, rest);
		else if (p.step == NULL)
			header_line(&p, kw, rest);
		else
			step_line(&p, kw, rest);
		free(line);
	}
	exercise_steps(&p);
	finish(&p);
	for (i = 0; i < p.nwl; i++)
		free(p.wl[i]);
	free(p.wl);
	lets_clear(&p);
	if (p.nerrs > 0) {
		*errs = p.errs;
		free(p.warns);
		lab_free(l);
		return NULL;
	}
	*errs = NULL;
	l->warns = p.warns;
	l->student = xstrdup(parse_student(&p));
	return l;
}

/* Read and parse a lab file. */
struct lab *
lab_load(const char *path, const struct lab_env *env, char **errs)
{
	FILE		*f;
	char		*buf;
	size_t		 len = 0, cap = 8192, n;
	struct lab	*l;

	if ((f = fopen(path, "r")) == NULL) {
		*errs = xasprintf("%s: %s\n", path, strerror(errno));
		return NULL;
	}
	buf = xmalloc(cap);
	while ((n = fread(buf + len, 1, cap - len, f)) > 0) {
		len += n;
		if (len == cap) {
			if (cap >= (4u << 20)) {
				fclose(f);
				free(buf);
				*errs = xasprintf("%s: larger than 4 MiB: not a lab file\n", path);
				return NULL;
			}
			buf = xrealloc(buf, cap *= 2);
		}
	}
	if (ferror(f)) {
		*errs = xasprintf("%s: %s\n", path, strerror(errno));
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	l = lab_parse(path, buf, len, env, errs);
	free(buf);
	return l;
}

/* Free an array of strings. */
static void
free_strs(char **v, int n)
{
	int	i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* Free a lab. */
void
lab_free(struct lab *l)
{
	struct lstep	*st;
	int		 i, j;

	if (l == NULL)
		return;
	ex_steps_back(l);
	for (i = 0; i < l->nsteps; i++) {
		st = &l->steps[i];
		free(st->id);
		free(st->title);
		free(st->text);
		free(st->view);
		free(st->variant);
		free_strs(st->needs, st->nneeds);
		ask_clear(&st->ask);
		ask_clear(&st->why);
		free(st->goal);
		free_strs(st->solve, st->nsolve);
		if (st->ab != NULL) {
			free(st->ab->path);
			free(st->ab->value[0]);
			free(st->ab->value[1]);
			free(st->ab->what);
			for (j = 0; j < st->ab->nev; j++) {
				free(st->ab->ev[j].label);
				lexpr_free(st->ab->ev[j].expr);
			}
			free(st->ab->ev);
			free(st->ab);
		}
		for (j = 0; j < st->nacts; j++) {
			free(st->acts[j].text);
			free(st->acts[j].path);
			lcond_free(st->acts[j].cond);
			free(st->acts[j].check.fail);
			free(st->acts[j].check.hint);
		}
		free(st->acts);
	}
	free(l->steps);
	free(l->path);
	free(l->name);
	free(l->title);
	free(l->level);
	free_strs(l->variants, l->nvariants);
	free(l->seed);
	free(l->doc);
	free(l->intro);
	for (i = 0; i < l->nexercises; i++)
		ex_free(&l->exercises[i]);
	free(l->exercises);
	free_strs(l->needs, l->nneeds);
	for (i = 0; i < l->nparams; i++) {
		free(l->params[i].name);
		free(l->params[i].value);
		free_strs(l->params[i].pool, l->params[i].npool);
	}
	free(l->params);
	free(l->student);
	free(l->warns);
	free(l);
}

/* Total points and checks. */
int
lab_points(const struct lab *l, int *nchecks)
{
	int	i, j, pts = 0, n = 0;

	for (i = 0; i < l->nsteps; i++)
		for (j = 0; j < l->steps[i].nacts; j++)
			if (l->steps[i].acts[j].kind == LA_CHECK) {
				pts += l->steps[i].acts[j].check.points;
				n++;
			}
	if (nchecks != NULL)
		*nchecks = n;
	return pts;
}

/* Points from the student and from the kit's checks. */
void
lab_points_split(const struct lab *l, int *student, int *kit)
{
	const struct lstep	*st;
	int			 i, j;

	*student = *kit = 0;
	for (i = 0; i < l->nsteps; i++) {
		st = &l->steps[i];
		if (st->ask.kind != LQ_NONE)
			*student += st->ask.points;
		if (st->why.kind != LQ_NONE)
			*student += st->why.points;
		if (st->ab != NULL) {
			*student += st->ab->points;
			for (j = 0; j < st->ab->nev; j++)
				*student += 2 * st->ab->ev[j].points;	/* X and Y */
		}
		for (j = 0; j < st->nacts; j++)
			if (st->acts[j].kind == LA_CHECK) {
				/* an exercise's cases grade the student's work */
				if (st->acts[j].check.student || st->acts[j].check.exercise)
					*student += st->acts[j].check.points;
				else
					*kit += st->acts[j].check.points;
			}
	}
}

/* The student's name. */
const char *
lab_student(void)
{
	const char	*u = getenv("UMKIT_STUDENT");
	struct passwd	*pw;

	if (u != NULL && *u != '\0')
		return u;
	if ((pw = getpwuid(getuid())) != NULL)
		return pw->pw_name;
	u = getenv("USER");
	return u ? u : "unknown";
}

/* FNV-1a over "STUDENT\0LAB\0WHAT", then splitmix64's finaliser. */
unsigned long long
lab_draw(const char *student, const char *lab, const char *what)
{
	unsigned long long	 h = FNV1A_BASIS;
	const char		*parts[3] = { student, lab, what };
	int			 i;

	for (i = 0; i < 3; i++) {
		h = fnv1a(h, parts[i], strlen(parts[i]));
		h = fnv1a(h, "\xff", 1);	/* the separator */
	}
	h ^= h >> 30;
	h *= 0xbf58476d1ce4e5b9ULL;
	h ^= h >> 27;
	h *= 0x94d049bb133111ebULL;
	h ^= h >> 31;
	return h;
}

/* The shown order of q's choices for the lab's student (Fisher-Yates,
 * one draw per swap). */
void
lab_choice_order(const struct lab *l, const struct lstep *st,
    const struct lask *q, int *perm)
{
	char	what[96];
	int	i, j, t;

	for (i = 0; i < q->nchoices; i++)
		perm[i] = i;
	for (i = q->nchoices - 1; i > 0; i--) {
		snprintf(what, sizeof what, "order:%s:%s:%d", st->id,
		    q == &st->why ? "why" : "ask", i);
		j = (int)(lab_draw(l->student ? l->student : lab_student(),
		    l->name, what) % (unsigned)(i + 1));
		t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
	}
}

/* Whether s is a sealed "#HEX" text (lab-key.c). */
bool
lab_sealed_text(const char *s)
{
	size_t	i;

	if (s == NULL || s[0] != '#' || s[1] == '\0')
		return false;
	for (i = 1; s[i] != '\0'; i++)
		if (!strchr("0123456789abcdef", s[i]))
			return false;
	return (i - 1) % 2 == 0;
}
