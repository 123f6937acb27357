/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * lab-run.c - run a lab's steps on a real guest.
 *
 * A session owns one named guest (started through the supervisor, as
 * 'umkit start' does, and tied to this process: it stops when we die).
 * Each step: the needs are checked, the values its deltas refer to are
 * read at its start, then its actions run in order; every check produces
 * one result.  Values are read through the guest's mirror with the value
 * layer (values.h), the same parsers the TUI draws with.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "guest/ctl.h"
#include "guest/drgn.h"
#include "guest/gdb.h"
#include "guest/guest.h"
#include "guest/initrd.h"
#include "lab-ex.h"
#include "lab-key.h"
#include "lab-run.h"
#include "lab-state.h"
#include "guest/rundir.h"
#include "guest/supervisor.h"
#include "spawn.h"
#include "util.h"
#include "values.h"

#define OUT_KEEP	(256u << 10)	/* bytes of a command's output kept */
#define BG_DIR		"/tmp/umkit-lab"

/* ---- values at marks --------------------------------------------------- */

static int	env_now(void *, const char *, double *, char *);

/* Find the saved value of (spec, mark). */
static struct lmark *
mark_find(struct lab_sess *s, const char *spec, const char *mark)
{
	int	i;

	for (i = 0; i < s->nmarks; i++)
		if (strcmp(s->marks[i].spec, spec) == 0 &&
		    strcmp(s->marks[i].mark, mark) == 0)
			return &s->marks[i];
	return NULL;
}

struct markctx {
	struct lab_sess	*s;
	const char	*mark;		/* which mark is being taken */
};

/* Save the value of a delta spec whose mark is being taken now. */
static void
mark_one(const char *spec, const char *mark, void *arg)
{
	struct markctx	*m = arg;
	struct lab_sess	*s = m->s;
	struct lmark	*k;

	if (mark == NULL || strcmp(mark, m->mark) != 0)
		return;
	if ((k = mark_find(s, spec, mark)) == NULL) {
		s->marks = xrealloc(s->marks, (s->nmarks + 1) * sizeof *s->marks);
		k = &s->marks[s->nmarks++];
		memset(k, 0, sizeof *k);
		k->spec = xstrdup(spec);
		k->mark = xstrdup(mark);
	}
	k->ok = env_now(s, spec, &k->v, k->err) == 0;
}

/* lexpr_interp() callback: the deltas of one {{EXPR}}. */
static void
mark_interp_one(const char *src, const struct lexpr *e, const char *err, void *m)
{
	(void)src;
	(void)err;
	if (e != NULL)
		lexpr_specs(e, mark_one, m);
}

/* The deltas inside the {{EXPR}}s of a line, for take_mark. */
static void
mark_interp(const char *text, struct markctx *m)
{
	lexpr_interp(text, mark_interp_one, m);
}

/* Take mark name ("" is the step's start) for every delta of the step. */
static void
take_mark(struct lab_sess *s, const struct lstep *st, const char *name)
{
	struct markctx	m = { s, name };
	int		i;

	if (s->vals != NULL)
		values_refresh(s->vals);
	for (i = 0; i < st->nacts; i++) {
		if (st->acts[i].cond != NULL) {
			lexpr_specs(st->acts[i].cond->left, mark_one, &m);
			lexpr_specs(st->acts[i].cond->right, mark_one, &m);
		}
		if (st->acts[i].text != NULL)
			mark_interp(st->acts[i].text, &m);
	}
	lexpr_specs(st->ask.truth, mark_one, &m);
}

/* Forget the marks of the previous step. */
static void
marks_clear(struct lab_sess *s)
{
	int	i;

	for (i = 0; i < s->nmarks; i++) {
		free(s->marks[i].spec);
		free(s->marks[i].mark);
	}
	free(s->marks);
	s->marks = NULL;
	s->nmarks = 0;
}

/* ---- the environment expressions are evaluated in ---------------------- */

/*
 * A value now, through the mirror.  One handle serves a whole evaluation
 * (sess_env refreshes it), so two values of one file come from one read.
 */
static int
env_now(void *arg, const char *spec, double *v, char *err)
{
	struct lab_sess	*s = arg;

	if (s->vals == NULL && (s->vals = values_open(s->root, err, LAB_ERR_LEN)) == NULL)
		return -1;
	return values_get(s->vals, spec, v, err, LAB_ERR_LEN);
}

/* A value at a mark. */
static int
env_at(void *arg, const char *spec, const char *mark, double *v, char *err)
{
	struct lab_sess	*s = arg;
	struct lmark	*k = mark_find(s, spec, mark ? mark : "");

	if (k == NULL) {
		snprintf(err, LAB_ERR_LEN, "%s: not read at %s%s", spec,
		    mark ? "mark " : "the step's start", mark ? mark : "");
		return -1;
	}
	if (!k->ok) {
		snprintf(err, LAB_ERR_LEN, "%.100s at %.40s: %.160s", spec,
		    mark && *mark ? mark : "the step's start", k->err);
		return -1;
	}
	*v = k->v;
	return 0;
}

/*
 * Find key=value in the last "NAME: k=v ..." line of text; 1 found,
 * 0 no line of NAME, -1 a line but no such key.
 */
static int
result_in(const char *text, const char *name, const char *key, double *v)
{
	const char	*p, *line = NULL, *q;
	size_t		 nl = strlen(name), kl = strlen(key);
	char		*end;

	for (p = text; p != NULL && *p != '\0'; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (strncmp(p, name, nl) == 0 && p[nl] == ':' && p[nl + 1] == ' ')
			line = p;
	if (line == NULL)
		return 0;
	for (q = line + nl + 1; *q != '\0' && *q != '\n'; q++) {
		if (q[-1] == ' ' && strncmp(q, key, kl) == 0 && q[kl] == '=') {
			*v = strtod(q + kl + 1, &end);
			if (end != q + kl + 1)
				return 1;
			return -1;
		}
	}
	return -1;
}

/* result(NAME.KEY): the newest line from a foreground or background run. */
static int
env_result(void *arg, const char *nk, double *v, char *err)
{
	struct lab_sess	*s = arg;
	char		 name[2 * LAB_RESULT_NAME], *key, *out, *cmd[4];
	int		 i, r, st;

	/* The parser bounds both parts (lab-expr.c): no truncation here. */
	snprintf(name, sizeof name, "%s", nk);
	if ((key = strchr(name, '.')) == NULL) {
		snprintf(err, LAB_ERR_LEN, "result(%.80s): not WORKLOAD.KEY", nk);
		return -1;
	}
	*key++ = '\0';
	for (i = s->nouts - 1; i >= 0; i--) {
		r = result_in(s->outs[i], name, key, v);
		if (r == 1)
			return 0;
		if (r < 0) {
			snprintf(err, LAB_ERR_LEN, "result(%s): %s printed no %s=",
			    nk, name, key);
			return -1;
		}
	}
	/* Background workloads write to files in the guest. */
	for (i = s->nbg - 1; i >= 0; i--) {
		cmd[0] = "cat";
		cmd[1] = s->bg[i].out;
		cmd[2] = NULL;
		out = NULL;
		if (lab_guest_exec(s, cmd, 10, &out, NULL, &st) == 0 && out != NULL) {
			r = result_in(out, name, key, v);
			free(out);
			if (r == 1)
				return 0;
			if (r < 0) {
				snprintf(err, LAB_ERR_LEN, "result(%s): %s printed "
				    "no %s=", nk, name, key);
				return -1;
			}
		} else
			free(out);
	}
	snprintf(err, LAB_ERR_LEN, "result(%s): no '%s: ...' result line "
	    "printed (yet)", nk, name);
	return -1;
}

/* Append key's value of every "NAME: k=v ..." line of text to v[*n]
 * (at most max). */
static void
results_in(const char *text, const char *name, const char *key, double *v,
    int max, int *n)
{
	const char	*p, *q;
	size_t		 nl = strlen(name), kl = strlen(key);
	char		*end;
	double		 x;

	for (p = text; p != NULL && *p != '\0' && *n < max;
	    p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (strncmp(p, name, nl) != 0 || p[nl] != ':' || p[nl + 1] != ' ')
			continue;
		for (q = p + nl + 1; *q != '\0' && *q != '\n'; q++)
			if (q[-1] == ' ' && strncmp(q, key, kl) == 0 && q[kl] == '=') {
				x = strtod(q + kl + 1, &end);
				if (end != q + kl + 1 && isfinite(x))
					v[(*n)++] = x;
				break;
			}
	}
}

/* median(NAME.KEY)'s samples: every such line of the foreground runs
 * kept, oldest first. */
static int
env_results(void *arg, const char *nk, double *v, int max, char *err)
{
	struct lab_sess	*s = arg;
	char		 name[2 * LAB_RESULT_NAME], *key;
	int		 i, n = 0;

	snprintf(name, sizeof name, "%s", nk);
	if ((key = strchr(name, '.')) == NULL) {
		snprintf(err, LAB_ERR_LEN, "median(%.80s): not WORKLOAD.KEY", nk);
		return -1;
	}
	*key++ = '\0';
	for (i = 0; i < s->nouts; i++)
		results_in(s->outs[i], name, key, v, max, &n);
	return n;
}

/* The evaluation environment of a session. */
static struct lenv
sess_env(struct lab_sess *s)
{
	struct lenv	e = { env_now, env_at, env_result, env_results, s };

	if (s->vals != NULL)
		values_refresh(s->vals);
	return e;
}

/* Forget the values handle (the guest rebooted: a new mirror). */
static void
vals_close(struct lab_sess *s)
{
	if (s->vals != NULL)
		values_close(s->vals);
	s->vals = NULL;
}

/* ---- guest ------------------------------------------------------------- */

/* Whether the session was interrupted (Ctrl-C, quit). */
static bool
stopped(struct lab_sess *s)
{
	return s->stop != NULL && *s->stop;
}

/* Start the session's guest on variant. */
int
lab_guest_up(struct lab_sess *s, const char *variant)
{
	struct guest_opts	o;
	int			rc;

	if (s->up && strcmp(s->variant, variant) == 0)
		return 0;
	lab_guest_down(s);
	guest_opts_init(&o);
	o.variant = variant;
	o.mem_mb = s->lab->mem_mb;
	o.cpus = s->lab->cpus;
	o.tied = 1;
	/* An exercise: the student's program in the guest, or their kernel. */
	if (s->ex != NULL && s->ex->add != NULL) {
		guest_opt(&o, 'a', s->ex->add);
		initrd_prepare(&o);
	}
	if (s->ex != NULL && s->ex->variant != NULL &&
	    strcmp(s->ex->variant, variant) == 0)
		o.kernel = s->ex->kernel;
	/* umkit smoke: the base steps on the patched kernel. */
	if (s->base_kernel != NULL && strcmp(variant, "base") == 0)
		o.kernel = s->base_kernel;
	s->log_line(s, "booting %s (%d CPU%s, %ld MiB)", variant, o.cpus,
	    o.cpus == 1 ? "" : "s", o.mem_mb);
	rc = supervisor_start(s->gname, &o, 1);
	if (rc != 0) {
		char	*rel = xasprintf("log/%s.log", s->gname), *log = run_shown(rel);

		snprintf(s->fatal, sizeof s->fatal, "the %s guest did not boot "
		    "(console: %s)", variant, log);
		free(log);
		free(rel);
		return -1;
	}
	s->up = true;
	free(s->variant);
	s->variant = xstrdup(variant);
	s->nbg = 0;
	s->fatal[0] = '\0';	/* an earlier guest's end is not this one's */
	if (s->on_boot != NULL)
		s->on_boot(s);
	return 0;
}

/* Stop the session's guest (idempotent). */
void
lab_guest_down(struct lab_sess *s)
{
	char		*dir;
	long long	 until = now_ms() + 8000;

	vals_close(s);
	if (!s->up)
		return;
	s->up = false;
	dir = run_dir(s->gname);
	/* Stopped by a signal: the supervisor is shutting down already. */
	while (stopped(s) && access(dir, F_OK) == 0 && now_ms() < until)
		usleep(20000);
	if (access(dir, F_OK) == 0)
		ctl_stop(s->gname);
	free(dir);
}

struct drain {
	int	 fd;
	char	*buf;
	size_t	 len;
};

/* Read a pipe to EOF, keeping the last OUT_KEEP bytes. */
static void *
drain_main(void *arg)
{
	struct drain	*d = arg;
	char		 tmp[8192];
	ssize_t		 n;

	d->buf = xmalloc(OUT_KEEP + 1);
	for (;;) {
		n = read(d->fd, tmp, sizeof tmp);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (d->len + (size_t)n > OUT_KEEP) {
			size_t drop = d->len + (size_t)n - OUT_KEEP;

			if (drop > d->len)
				drop = d->len;
			memmove(d->buf, d->buf + drop, d->len - drop);
			d->len -= drop;
			if ((size_t)n > OUT_KEEP)
				n = OUT_KEEP;
		}
		memcpy(d->buf + d->len, tmp, (size_t)n);
		d->len += (size_t)n;
	}
	d->buf[d->len] = '\0';
	close(d->fd);
	return NULL;
}

/* Run argv in the guest; its stdout (and stderr) come back allocated. */
int
lab_guest_exec(struct lab_sess *s, char *const argv[], int timeout_s,
    char **out, char **err, int *status)
{
	struct drain	d[2] = { { .fd = -1 }, { .fd = -1 } };
	pthread_t	th[2];
	int		p[2][2], i, rc;

	for (i = 0; i < 2; i++) {
		if (pipe2(p[i], O_CLOEXEC) < 0)
			fatal("pipe");
		d[i].fd = p[i][0];
		if (pthread_create(&th[i], NULL, drain_main, &d[i]) != 0)
			fatalx("cannot start a thread");
	}
	rc = ctl_exec_fds(s->gname, argv, timeout_s, p[0][1], p[1][1], status);
	close(p[0][1]);
	close(p[1][1]);
	for (i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	if (out != NULL)
		*out = d[0].buf;
	else
		free(d[0].buf);
	if (err != NULL)
		*err = d[1].buf;
	else
		free(d[1].buf);
	return rc;
}

/* Replace every {{EXPR}} in text by its value now. */
static char *
interpolate(struct lab_sess *s, const char *text, char *err)
{
	struct lenv	 env = sess_env(s);
	const char	*q = text, *o, *e;
	char		*res = xstrdup(""), *x, num[64];
	struct lexpr	*ex;
	double		 v;

	err[0] = '\0';
	while ((o = strstr(q, "{{")) != NULL && (e = strstr(o + 2, "}}")) != NULL) {
		x = xasprintf("%.*s", (int)(e - o - 2), o + 2);
		ex = lexpr_parse(x, err);
		if (ex == NULL || lexpr_eval(ex, &env, &v, err) < 0) {
			lexpr_free(ex);
			free(x);
			free(res);
			return NULL;
		}
		lexpr_free(ex);
		free(x);
		lab_fmt_num(num, sizeof num, v);
		x = xasprintf("%s%.*s%s", res, (int)(o - q), q, num);
		free(res);
		res = x;
		q = e + 2;
	}
	x = xasprintf("%s%s", res, q);
	free(res);
	return x;
}

/* Whether guest path exists, asked through the mirror. */
static bool
guest_has(struct lab_sess *s, const char *path)
{
	char		*p;
	struct stat	 sb;
	bool		 ok;

	if (strncmp(path, "/proc/", 6) == 0 || strncmp(path, "/sys/", 5) == 0) {
		p = xasprintf("%s%s", s->root, path);
		ok = stat(p, &sb) == 0;
		free(p);
		return ok;
	} else {
		char	*argv[] = { "test", "-e", (char *)path, NULL };
		int	 st = 1;

		return lab_guest_exec(s, argv, 10, NULL, NULL, &st) == 0 && st == 0;
	}
}

/* Show the console's panic lines, if it has any. */
static void
log_panic(struct lab_sess *s)
{
	char	*log = run_log(s->gname), *t, *p, *nl;

	if ((t = guest_log_panic(log, 24)) != NULL) {
		char	*rel = xasprintf("log/lab-%s.log", s->lab->name), *shown = run_shown(rel);

		s->log_line(s, "the guest's console (%s):", shown);
		free(shown);
		free(rel);
		for (p = t; p != NULL && *p != '\0'; p = nl ? nl + 1 : NULL) {
			nl = strchr(p, '\n');
			s->log_line(s, "  %.*s", nl ? (int)(nl - p) : (int)strlen(p), p);
		}
		free(t);
	}
	free(log);
}

/* Whether the guest still answers; fills s->fatal with why not. */
static bool
guest_alive(struct lab_sess *s)
{
	const char	*f[] = { "info", NULL };
	char		*r;
	bool		 ok;

	if (s->fatal[0] != '\0' || stopped(s))
		return false;
	r = run_alive(s->gname) ? ctl_call(s->gname, f, NULL, 0, NULL) : NULL;
	ok = r != NULL && strstr(r, "state=running") != NULL;
	if (!ok) {
		snprintf(s->fatal, sizeof s->fatal, "the guest %s",
		    r && strstr(r, "state=panicked") ? "kernel panicked" :
		    r ? "died" : "is gone");
		log_panic(s);
	}
	free(r);
	return ok;
}

/* ---- actions ----------------------------------------------------------- */

/* Keep a command's output for result() lookups. */
static void
keep_out(struct lab_sess *s, char *out)
{
	if (s->nouts == LAB_MAX_OUTS) {
		free(s->outs[0]);
		memmove(s->outs, s->outs + 1, (LAB_MAX_OUTS - 1) * sizeof *s->outs);
		s->nouts--;
	}
	s->outs[s->nouts++] = out;
}

/* Report one result to the sink and keep it. */
static void
emit(struct lab_sess *s, struct lres *r)
{
	if (r->state == LR_FAIL)
		s->nfailed++;
	s->on_result(s, r);
}

/* The check's description: its text, as KTAP names it. */
static void
res_init(struct lres *r, const struct lstep *st, const struct lact *a)
{
	memset(r, 0, sizeof *r);
	r->step = st;
	r->act = a;
	r->points = a != NULL && a->kind == LA_CHECK ? a->check.points : 0;
}

/*
 * A failed action stops its step: the reason goes to s->step_err and the
 * step's remaining checks fail with it (lab_step_run).
 */
static void
act_failed(struct lab_sess *s, const struct lstep *st, const struct lact *a,
    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void
act_failed(struct lab_sess *s, const struct lstep *st, const struct lact *a,
    const char *fmt, ...)
{
	va_list		ap;

	(void)st;
	(void)a;
	va_start(ap, fmt);
	vsnprintf(s->step_err, sizeof s->step_err, fmt, ap);
	va_end(ap);
}

/* Run one foreground command. */
static int
do_run(struct lab_sess *s, const struct lstep *st, const struct lact *a)
{
	char	 err[LAB_ERR_LEN], *cmd, *out = NULL, *eout = NULL;
	char	*argv[4];
	int	 status = 0, t;

	if ((cmd = interpolate(s, a->text, err)) == NULL) {
		act_failed(s, st, a, "run: %s", err);
		return -1;
	}
	t = (int)ceil(a->timeout_s * s->slow);
	s->log_line(s, "$ %s", cmd);
	argv[0] = "sh";
	argv[1] = "-c";
	argv[2] = cmd;
	argv[3] = NULL;
	if (lab_guest_exec(s, argv, t, &out, &eout, &status) < 0) {
		if (!stopped(s))
			guest_alive(s);
		act_failed(s, st, a, "run %s: %s", cmd,
		    s->fatal[0] ? s->fatal : "the guest did not answer");
		free(out);
		free(eout);
		free(cmd);
		return -1;
	}
	s->log_output(s, out, eout);
	free(eout);
	keep_out(s, out);
	if (status == EXIT_TIMEOUT && t > 0) {
		act_failed(s, st, a, "run %s: still running after %d s (timeout=)",
		    cmd, t);
		free(cmd);
		return -1;
	}
	if (a->status >= 0 && status != a->status) {
		act_failed(s, st, a, "run %s: exit status %d, want %d", cmd,
		    status, a->status);
		free(cmd);
		return -1;
	}
	free(cmd);
	return 0;
}

/* Start a background command; its output goes to a file in the guest. */
static int
do_bg(struct lab_sess *s, const struct lstep *st, const struct lact *a)
{
	char	 err[LAB_ERR_LEN], *cmd, *wrapped, *out = NULL, *argv[4];
	int	 status = 1;
	long	 pid;
	struct lbg *b;

	if (s->nbg == LAB_MAX_BG) {
		act_failed(s, st, a, "bg: more than %d background commands", LAB_MAX_BG);
		return -1;
	}
	if ((cmd = interpolate(s, a->text, err)) == NULL) {
		act_failed(s, st, a, "bg: %s", err);
		return -1;
	}
	b = &s->bg[s->nbg];
	snprintf(b->out, sizeof b->out, BG_DIR "/bg-%d.out", s->bgseq++);
	/* setsid: its own process group, so it can be stopped as a whole. */
	wrapped = xasprintf("mkdir -p " BG_DIR " && setsid sh -c '%s' "
	    "</dev/null >%s 2>&1 & echo $!", cmd, b->out);
	if (strchr(cmd, '\'') != NULL) {
		free(wrapped);
		act_failed(s, st, a, "bg: a background command cannot hold a "
		    "single quote (wrap it in a script)");
		free(cmd);
		return -1;
	}
	s->log_line(s, "$ %s &", cmd);
	argv[0] = "sh";
	argv[1] = "-c";
	argv[2] = wrapped;
	argv[3] = NULL;
	if (lab_guest_exec(s, argv, 10, &out, NULL, &status) < 0 || status != 0 ||
	    (pid = strtol(out, NULL, 10)) <= 1) {
		guest_alive(s);
		act_failed(s, st, a, "bg %s: did not start%s%s", cmd,
		    s->fatal[0] ? ": " : "", s->fatal);
		free(out);
		free(wrapped);
		free(cmd);
		return -1;
	}
	b->pid = pid;
	s->nbg++;
	free(out);
	free(wrapped);
	free(cmd);
	return 0;
}

/* Stop every background command (their process groups). */
void
lab_bg_stop(struct lab_sess *s)
{
	char	 buf[64], *argv[5];
	int	 i, st;

	for (i = 0; i < s->nbg && s->up && s->fatal[0] == '\0'; i++) {
		snprintf(buf, sizeof buf, "-%ld", s->bg[i].pid);
		argv[0] = "kill";
		argv[1] = "-KILL";
		argv[2] = "--";
		argv[3] = buf;
		argv[4] = NULL;
		lab_guest_exec(s, argv, 5, NULL, NULL, &st);
	}
	s->nbg = 0;
}

/*
 * Open rel for writing below directory root, never outside it (openat2's
 * RESOLVE_BENEATH: no '..' out, no absolute symlink, no magic link).
 */
static int
open_beneath(const char *root, const char *rel)
{
	struct open_how	 how = { .flags = O_WRONLY | O_TRUNC | O_CLOEXEC,
			    .resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS };
	int		 dfd, fd, e;

	if ((dfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -1;
	fd = syscall(SYS_openat2, dfd, rel, &how, sizeof how);
	e = errno;
	close(dfd);
	errno = e;
	return fd;
}

/* Write data and a newline to guest file path through the mirror, not
 * logged (an ab step's hidden switch); 0 or -1 with step_err. */
static int
write_quietly(struct lab_sess *s, const char *path, const char *data)
{
	char	*line = xasprintf("%s\n", data);
	int	 fd, e;
	ssize_t	 n;

	fd = lab_write_path_ok(path) ? open_beneath(s->root, path + 1) :
	    (errno = EINVAL, -1);
	n = fd >= 0 ? write(fd, line, strlen(line)) : -1;
	e = errno;
	if (fd >= 0)
		close(fd);
	free(line);
	if (n < 0) {
		snprintf(s->step_err, sizeof s->step_err, "the ab switch %s: %s",
		    path, strerror(e));
		return -1;
	}
	return 0;
}

/* Write a guest file through the mirror (allow.conf decides). */
static int
do_write(struct lab_sess *s, const struct lstep *st, const struct lact *a)
{
	char	 err[LAB_ERR_LEN], *data, *p, *line;
	int	 fd, e;
	ssize_t	 n;

	if ((data = interpolate(s, a->text, err)) == NULL) {
		act_failed(s, st, a, "write: %s", err);
		return -1;
	}
	p = xasprintf("%s%s", s->root, a->path);
	line = xasprintf("%s\n", data);
	s->log_line(s, "> %s: %s", a->path, data);
	/* The parser checked the path; again here, and the open cannot
	 * leave the mirror (no '..', no symlink out of it). */
	fd = lab_write_path_ok(a->path) ? open_beneath(s->root, a->path + 1) :
	    (errno = EINVAL, -1);
	n = fd >= 0 ? write(fd, line, strlen(line)) : -1;
	e = errno;
	if (fd >= 0)
		close(fd);
	free(p);
	free(line);
	if (n < 0) {
		act_failed(s, st, a, "write %s '%s': %s%s", a->path, data,
		    strerror(e), e == EACCES ? " (not writable through the "
		    "mirror: see uml/link/allow.conf)" : "");
		free(data);
		return -1;
	}
	free(data);
	return 0;
}

/* A line for the student: the text with its values. */
static int
do_show(struct lab_sess *s, const struct lstep *st, const struct lact *a)
{
	char	 err[LAB_ERR_LEN], *t;

	if ((t = interpolate(s, a->text, err)) == NULL) {
		act_failed(s, st, a, "show: %s", err);
		return -1;
	}
	s->log_line(s, "%s", t);
	free(t);
	return 0;
}

/* ---- gdb on the guest's kernel (a gdb action) -------------------------- */

struct lab_gdb {
	pid_t			 child;		/* gdb */
	pid_t			 uml;		/* the kernel it is attached to */
	struct gdb_kernel	 k;
	char			*setup;
	const struct lact	*act;
	long long		 deadline;	/* ms: then gdb is killed */
	int			 fd;		/* gdb's output */
	pthread_t		 th;
	pthread_mutex_t		 mu;
	char			*buf;		/* guarded by mu */
	size_t			 len;
	bool			 eof;
};

/* Collect gdb's output until it closes. */
static void *
gdb_reader(void *arg)
{
	struct lab_gdb	*g = arg;
	char		 tmp[4096];
	ssize_t		 n;

	for (;;) {
		n = read(g->fd, tmp, sizeof tmp);
		if (n < 0 && errno == EINTR)
			continue;
		pthread_mutex_lock(&g->mu);
		if (n > 0 && g->len + (size_t)n < OUT_KEEP) {
			g->buf = xrealloc(g->buf, g->len + n + 1);
			memcpy(g->buf + g->len, tmp, n);
			g->len += n;
			g->buf[g->len] = '\0';
		}
		if (n <= 0)
			g->eof = true;
		pthread_mutex_unlock(&g->mu);
		if (n <= 0)
			break;
	}
	return NULL;
}

/* Whether gdb printed marker yet (1), ended without it (-1), or not (0). */
static int
gdb_seen(struct lab_gdb *g, const char *marker)
{
	int	r;

	pthread_mutex_lock(&g->mu);
	r = g->buf != NULL && strstr(g->buf, marker) != NULL ? 1 : g->eof ? -1 : 0;
	pthread_mutex_unlock(&g->mu);
	return r;
}

/* Whether this host can run a step's gdb: NULL, or why not. */
static const char *
gdb_missing(void)
{
	const char	*gdb = getenv("UMKIT_GDB") ? getenv("UMKIT_GDB") : "gdb";

	return spawn_findable(gdb) ? NULL :
	    "gdb is not installed (uml/install/deps.sh installs it)";
}

/* Whether this host and variant can run a step's drgn: NULL, or why not. */
static const char *
drgn_missing(const char *variant)
{
	static int	 have = -1;
	char		*argv[] = { DRGN_PYTHON, "-c", "import drgn", NULL };
	struct spawn	 sp;

	if (strstr(variant, "+debug") == NULL)
		return "a drgn step needs a +debug variant (variant base+debug)";
	if (have < 0) {
		spawn_init(&sp, argv);
		sp.out = sp.err = SPAWN_NULL;
		sp.timeout_ms = 20000;
		have = spawn_run(&sp) == 0;
	}
	return have ? NULL : "python3-drgn is not installed (uml/install/deps.sh "
	    "installs it)";
}

/* Run a host helper of a step (drgn, umkit reproduce): its output and
 * errors captured (1 MiB at most), the step's timeout; spawn_run's status. */
static int
run_helper(struct lab_sess *s, const struct lact *a, char **av, struct spawn *sp)
{
	spawn_init(sp, av);
	sp->out = SPAWN_CAPTURE;
	sp->err = SPAWN_TO_OUT;
	sp->max = 1 << 20;
	sp->timeout_ms = (int)(a->timeout_s * s->slow * 1000);
	return spawn_run(sp);
}

/*
 * Why a host helper (drgn, umkit reproduce) failed, for the step: "timed
 * out", or "failed: " and the last line it printed (sp->output is cut
 * there; a static buffer).
 */
static const char *
why_failed(struct spawn *sp)
{
	static char	 msg[512];
	char		*last = sp->output ? strrchr(sp->output, '\n') : NULL;

	while (last != NULL && last > sp->output && last[1] == '\0') {
		*last = '\0';
		last = strrchr(sp->output, '\n');
	}
	snprintf(msg, sizeof msg, "%s%s", sp->timed_out ? "timed out" : "failed: ",
	    sp->timed_out ? "" : last ? last + 1 : sp->output ? sp->output :
	    "no output");
	return msg;
}

/*
 * drgn --gens PID|COMM: on the host, the kit's drgn module reads which
 * generation each page of the guest process is in, while the guest runs;
 * its last line "gens: pid=N ... age0=N ..." is result(gens.KEY).
 */
static int
do_drgn(struct lab_sess *s, const struct lstep *st, const struct lact *a)
{
	const char		*f[] = { "info", NULL };
	struct gdb_kernel	 k;
	struct spawn		 sp;
	char			*r, pid[32], kernel[4096], variant[256], why[512];
	char			**av, *target = a->text;
	int			 rc;

	if ((r = ctl_call(s->gname, f, NULL, 0, NULL)) == NULL) {
		act_failed(s, st, a, "drgn: the guest's supervisor does not answer");
		return -1;
	}
	ctl_field(r, "uml_pid", pid, sizeof pid);
	ctl_field(r, "kernel", kernel, sizeof kernel);
	ctl_field(r, "variant", variant, sizeof variant);
	free(r);
	if (drgn_kernel(s->gname, kernel, variant, &k, why, sizeof why) < 0) {
		act_failed(s, st, a, "drgn: %s", why);
		return -1;
	}
	av = drgn_argv(s->gname, strtol(pid, NULL, 10), &k, "--gens", &target, 1,
	    why, sizeof why);
	gdb_kernel_free(&k);
	if (av == NULL) {
		act_failed(s, st, a, "drgn: %s", why);
		return -1;
	}
	s->log_line(s, "drgn --gens %s (on the host, the guest runs on)", target);
	rc = run_helper(s, a, av, &sp);
	drgn_argv_free(av);
	if (rc != 0) {
		act_failed(s, st, a, "drgn --gens %s: %s", target, why_failed(&sp));
		free(sp.output);
		return -1;
	}
	s->log_output(s, sp.output, NULL);
	keep_out(s, sp.output);		/* result(gens.KEY) */
	return 0;
}

/*
 * reproduce SEED: umkit reproduce SEED --quick --results on the host (its
 * own guests of the seed's variant); the table goes to the pane, its
 * "reproduce: ..." line is result(reproduce.KEY_COLUMN).  The run is kept
 * in the state directory (reproduce/SEED.json, the last run's) for
 * umkit reproduce --from.
 */
static int
do_repro(struct lab_sess *s, const struct lstep *st, const struct lact *a)
{
	struct spawn	 sp;
	char		*umkit = umkit_exe(), *dir = lab_state_dir("reproduce");
	char		*keep = xasprintf("%s/%03d.json", dir, atoi(a->text));	/* 2: 002 */
	char		*av[] = { umkit, "reproduce", a->text, "--quick", "--results",
			    "--json", keep, NULL };
	int		 rc;

	s->log_line(s, "umkit reproduce %s --quick (on the host: its own guests)",
	    a->text);
	rc = run_helper(s, a, av, &sp);
	free(umkit);
	free(dir);
	if (rc != 0 || sp.output == NULL || strstr(sp.output, "\nreproduce:") == NULL) {
		act_failed(s, st, a, "reproduce %s: %s", a->text, why_failed(&sp));
		free(sp.output);
		free(keep);
		return -1;
	}
	s->log_output(s, sp.output, NULL);
	s->log_line(s, "kept: umkit reproduce --from %s shows this table again", keep);
	keep_out(s, sp.output);		/* result(reproduce.KEY_COLUMN) */
	free(keep);
	return 0;
}

/*
 * End the step's gdb: wait for it (until its timeout, then kill it, which
 * lets the kernel run on), show its output, keep it for result(gdb.KEY).
 */
static int
gdb_finish(struct lab_sess *s, const struct lstep *st)
{
	struct lab_gdb	*g = s->gdb;
	char		*out;
	int		 rc, killed = 0;

	if (g == NULL)
		return 0;
	s->gdb = NULL;
	while (gdb_seen(g, "\001never") == 0 && now_ms() < g->deadline &&
	    !stopped(s))
		usleep(20000);
	if (gdb_seen(g, "\001never") == 0) {
		kill(g->child, SIGKILL);
		killed = 1;
	}
	rc = gdb_wait(g->child, g->uml);
	pthread_join(g->th, NULL);
	close(g->fd);
	out = g->buf != NULL ? g->buf : xstrdup("");
	s->log_output(s, out, "");
	keep_out(s, out);
	unlink(g->setup);
	free(g->setup);
	gdb_kernel_free(&g->k);
	pthread_mutex_destroy(&g->mu);
	if (killed)
		act_failed(s, st, g->act, "gdb %s: still running after %.0f s "
		    "(timeout=); killed, the kernel runs on", g->act->path,
		    g->act->timeout_s * s->slow);
	else if (rc != 0)
		act_failed(s, st, g->act, "gdb %s: exit status %d", g->act->path, rc);
	free(g);
	return killed || rc != 0 ? -1 : 0;
}

/*
 * Attach gdb to the guest's kernel with the action's script, in batch
 * mode, and return once the script printed "umkit-gdb: ready" (its
 * breakpoints are set and the kernel runs again): the step's next
 * actions then drive the kernel into them.
 */
static int
do_gdb(struct lab_sess *s, const struct lstep *st, const struct lact *a)
{
	const char	*f[] = { "info", NULL };
	struct lab_gdb	*g;
	char		*r, pid[32], kernel[4096], *dir;
	int		 p[2], seen;
	long long	 ready_by;

	if (gdb_finish(s, st) < 0)
		return -1;
	if ((r = ctl_call(s->gname, f, NULL, 0, NULL)) == NULL) {
		act_failed(s, st, a, "gdb: the guest's supervisor does not answer");
		return -1;
	}
	ctl_field(r, "uml_pid", pid, sizeof pid);
	ctl_field(r, "kernel", kernel, sizeof kernel);
	free(r);
	g = xcalloc(1, sizeof *g);
	g->act = a;
	g->uml = strtol(pid, NULL, 10);
	if (g->uml <= 1 || gdb_kernel_find(kernel, &g->k) < 0) {
		act_failed(s, st, a, "gdb: the guest's kernel process is unknown");
		free(g);
		return -1;
	}
	dir = run_dir(s->gname);
	g->setup = xasprintf("%s/gdb-lab.gdb", dir);
	free(dir);
	if (gdb_write_setup(g->setup, &g->k, 0) < 0 || pipe2(p, O_CLOEXEC) < 0)
		fatal("%s", g->setup);
	s->log_line(s, "gdb %s (attached to the guest's kernel, pid %ld)",
	    a->path, (long)g->uml);
	g->child = gdb_spawn(g->uml, &g->k, g->setup, a->path, NULL, 0, p[1]);
	close(p[1]);
	g->fd = p[0];
	pthread_mutex_init(&g->mu, NULL);
	g->deadline = now_ms() + (long long)(a->timeout_s * s->slow * 1000);
	if (pthread_create(&g->th, NULL, gdb_reader, g) != 0)
		fatalx("cannot start a thread");
	s->gdb = g;
	ready_by = now_ms() + (long long)(20000 * s->slow);
	while ((seen = gdb_seen(g, "umkit-gdb: ready")) == 0 &&
	    now_ms() < ready_by && !stopped(s))
		usleep(20000);
	if (seen != 1) {
		if (seen == 0)
			g->deadline = 0;	/* kill it now */
		gdb_finish(s, st);
		act_failed(s, st, a, "gdb %s: no 'umkit-gdb: ready' line from "
		    "the script (it prints it before its continue)", a->path);
		return -1;
	}
	return 0;
}

/* Sleep up to ms, waking early when the session is stopped. */
static void
nap(struct lab_sess *s, long ms)
{
	long long	until = now_ms() + ms;
	long		left;

	while (!stopped(s) && (left = (long)(until - now_ms())) > 0)
		usleep((useconds_t)(left > 50 ? 50 : left) * 1000);
}

/* Poll until a condition holds. */
static int
do_wait(struct lab_sess *s, const struct lstep *st, const struct lact *a)
{
	struct lenv	 env = sess_env(s);
	char		 err[LAB_ERR_LEN], ls[64], rs[64];
	long long	 until = now_ms() + (long long)(a->timeout_s * s->slow * 1000);
	double		 l = NAN, r = NAN;
	int		 c;

	s->log_line(s, "waiting for %s", a->cond->text);
	for (;;) {
		env = sess_env(s);	/* fresh values each time */
		c = lcond_eval(a->cond, &env, &l, &r, err);
		if (c == 1)
			return 0;
		if (stopped(s))
			return -1;
		if (now_ms() >= until)
			break;
		nap(s, 100);
	}
	if (c < 0) {
		act_failed(s, st, a, "wait %s: %s", a->cond->text, err);
	} else {
		lab_fmt_num(ls, sizeof ls, l);
		lab_fmt_num(rs, sizeof rs, r);
		act_failed(s, st, a, "wait %s: still %s %s %s after %.0f s",
		    a->cond->text, ls, lcmp_str(a->cond->cmp), rs,
		    a->timeout_s * s->slow);
	}
	if (!guest_alive(s))
		return -1;
	return -1;
}

/* Evaluate a check. */
static void
do_check(struct lab_sess *s, const struct lstep *st, const struct lact *a)
{
	struct lenv	env = sess_env(s);
	struct lres	r;
	double		l = NAN, rv = NAN;
	int		c;

	res_init(&r, st, a);
	c = lcond_eval(a->cond, &env, &l, &rv, r.msg);
	r.left = l;
	r.right = rv;
	if (c == 1) {
		r.state = LR_PASS;
		r.got = r.points;
	} else if (c == 0) {
		char	ls[64], rs[64];

		r.state = LR_FAIL;
		lab_fmt_num(ls, sizeof ls, l);
		lab_fmt_num(rs, sizeof rs, rv);
		snprintf(r.msg, sizeof r.msg, "%s%s%s is %s, want %s %s",
		    a->check.fail ? a->check.fail : "", a->check.fail ? ": " : "",
		    a->cond->text, ls, lcmp_str(a->cond->cmp), rs);
	} else {
		r.state = LR_FAIL;
		if (!guest_alive(s))
			snprintf(r.msg, sizeof r.msg, "%s", s->fatal);
	}
	emit(s, &r);
}

/* Report every remaining check of a step as failed or skipped; returns
 * how many there were. */
static int
rest_of_step(struct lab_sess *s, const struct lstep *st, int from,
    enum lres_state state, const char *why)
{
	struct lres	r;
	int		i, n = 0;

	for (i = from; i < st->nacts; i++) {
		if (st->acts[i].kind != LA_CHECK)
			continue;
		res_init(&r, st, &st->acts[i]);
		r.state = state;
		snprintf(r.msg, sizeof r.msg, "%s", why);
		emit(s, &r);
		n++;
	}
	return n;
}

/* The right key of a choice question, or 0 (a sealed one: found by its
 * seal, lab-key.c). */
char
lab_right_key(const struct lab *l, const struct lstep *st, const struct lask *q)
{
	char	keys[26];
	int	i;

	if (q->kind != LQ_CHOICE)
		return 0;
	if (q->answer != 0)
		return q->answer;
	for (i = 0; i < q->nchoices && i < 26; i++)
		keys[i] = q->choices[i].key;
	return lab_seal_which(l->name, st->id, q == &st->why ? 'w' : 'a', keys, i,
	    q->sealed);
}

/* The explanation of q or of one of its choices, unsealed. */
char *
lab_explain(const struct lab *l, const struct lstep *st, const struct lask *q,
    char key)
{
	const char	*t = NULL;
	char		 label[2] = { key, '\0' }, right;
	int		 i;

	if (key == 0)
		t = q->explain;
	else
		for (i = 0; i < q->nchoices; i++)
			if (q->choices[i].key == key)
				t = q->choices[i].because;
	if (t == NULL)
		return NULL;
	if (!lab_sealed_text(t))
		return xstrdup(t);
	if ((right = lab_right_key(l, st, q)) == 0)
		return NULL;
	return lab_unseal_text(l->name, st->id, q == &st->why ? 'w' : 'a', right,
	    key ? label : "explain", t);
}

/* A wrong number for truth: outside any tolerance a lab can give. */
static double
wrong_number(const struct lask *q, double truth)
{
	return truth + 10 * (q->tol + fabs(truth)) + 1000;
}

/* Judge the answer to the step's ask or why (answered by the run itself
 * under LAB_AUTO_*). */
void
lab_judge(struct lab_sess *s, int i, bool why)
{
	const struct lstep	*st = &s->lab->steps[i];
	const struct lask	*q = why ? &st->why : &st->ask;
	struct lpred		*p = why ? &s->whyp[i] : &s->pred[i];
	struct lenv		 env = sess_env(s);
	char			 err[LAB_ERR_LEN], right = 0, nb[64];
	double			 v = 0, tol;
	int			 k;

	if (q->kind == LQ_NONE)
		return;
	p->points = q->points;
	p->got = 0;
	p->judged = false;
	p->truth_err[0] = '\0';
	if (q->kind == LQ_CHOICE && (right = lab_right_key(s->lab, st, q)) == 0) {
		snprintf(p->truth_err, sizeof p->truth_err, "the lab's sealed answer "
		    "matches none of the choices");
		return;
	}
	if (q->kind == LQ_NUMBER && lexpr_eval(q->truth, &env, &v, err) < 0) {
		snprintf(p->truth_err, sizeof p->truth_err, "%s", err);
		return;
	}
	if (!p->answered && s->autoans != LAB_AUTO_NONE) {
		if (q->kind == LQ_CHOICE) {
			for (k = 0; k < q->nchoices; k++)
				if ((q->choices[k].key == right) ==
				    (s->autoans == LAB_AUTO_RIGHT))
					break;
			snprintf(p->answer, sizeof p->answer, "%c", q->choices[k].key);
		} else {
			lab_fmt_num(nb, sizeof nb, s->autoans == LAB_AUTO_RIGHT ? v :
			    wrong_number(q, v));
			snprintf(p->answer, sizeof p->answer, "%s", nb);
		}
		p->answered = true;
	}
	if (!p->answered)
		return;
	if (q->kind == LQ_CHOICE)
		p->right = p->answer[0] == right && p->answer[1] == '\0';
	else {
		p->truth = v;
		tol = q->tol_pct ? fabs(v) * q->tol / 100 : q->tol;
		p->right = fabs(strtod(p->answer, NULL) - v) <= tol;
	}
	p->judged = true;
	p->got = p->right ? p->points : 0;
}

/* Judge an ab step: which guest had V1, and each reading of evidence. */
void
lab_ab_judge(struct lab_sess *s, int i)
{
	const struct lab_ab	*ab = s->lab->steps[i].ab;
	struct lab_abres	*r = &s->ab[i];
	const struct lab_evidence *e;
	double			 tol;
	int			 k, side;

	r->points = ab->points;
	for (k = 0; k < ab->nev; k++)
		r->points += 2 * ab->ev[k].points;
	r->got = 0;
	if (!r->ran)
		return;
	if (!r->answered && s->autoans != LAB_AUTO_NONE) {
		bool	right = s->autoans == LAB_AUTO_RIGHT;

		r->ident = (char)('X' + (right ? r->v1_side : !r->v1_side));
		for (k = 0; k < ab->nev; k++)
			for (side = 0; side < 2; side++) {
				r->ev[k][side] = right ? r->val[k][side] :
				    r->val[k][side] * 3 + 1000;
				r->ev_given[k][side] = true;
			}
		r->answered = true;
	}
	if (!r->answered)
		return;
	if (r->ident == 'X' + r->v1_side)
		r->got += ab->points;
	for (k = 0; k < ab->nev; k++) {
		e = &ab->ev[k];
		for (side = 0; side < 2; side++) {
			if (!r->have[k][side] || !r->ev_given[k][side])
				continue;
			tol = e->tol_pct ? fabs(r->val[k][side]) * e->tol / 100 : e->tol;
			if (fabs(r->ev[k][side] - r->val[k][side]) <= tol)
				r->got += e->points;
		}
	}
}

/* Keep a command the student typed (bounded). */
static void
typed_add(struct lab_sess *s, int i, const char *cmd)
{
	struct lab_typed	*t = &s->typed[i];

	if (t->n >= LAB_TYPED_MAX)
		return;
	t->cmd = xrealloc(t->cmd, (t->n + 1) * sizeof *t->cmd);
	t->cmd[t->n++] = xasprintf("%.256s", cmd);
}

/* A command typed in a goal step's guest shell. */
int
lab_goal_command(struct lab_sess *s, int i, const char *cmd)
{
	char	*argv[4] = { "sh", "-c", (char *)cmd, NULL }, *out = NULL, *eout = NULL;
	int	 status = 0, rc;

	typed_add(s, i, cmd);
	s->log_line(s, "$ %s", cmd);
	rc = lab_guest_exec(s, argv, (int)ceil(60 * s->slow), &out, &eout, &status);
	if (rc == 0) {
		s->log_output(s, out, eout);
		keep_out(s, out);
		out = NULL;
	} else if (!stopped(s))
		guest_alive(s);
	free(out);
	free(eout);
	return rc;
}

/* Build a goal step's state with the lab's solve lines (batch). */
static int
goal_solve(struct lab_sess *s, const struct lstep *st)
{
	struct lact	a = { .kind = LA_RUN, .line = st->line, .timeout_s = 60 };
	int		k;

	if (s->autoans == LAB_AUTO_WRONG) {
		s->log_line(s, "# goal left undone (--answers wrong)");
		return 0;
	}
	for (k = 0; k < st->nsolve; k++) {
		a.text = st->solve[k];
		if (do_run(s, st, &a) < 0)
			return -1;
	}
	return 0;
}

/*
 * Run actions [from, to) of st; returns 0, or -1 with *at the index of
 * the action that failed plus one (the rest of the step is not run).
 */
static int
run_acts(struct lab_sess *s, const struct lstep *st, int from, int to, int *at)
{
	const struct lact	*a;
	int			 k, r = 0;

	for (k = from; k < to && r == 0 && !stopped(s); k++) {
		a = &st->acts[k];
		switch (a->kind) {
		case LA_RUN:
			r = do_run(s, st, a);
			break;
		case LA_BG:
			r = do_bg(s, st, a);
			break;
		case LA_WRITE:
			r = do_write(s, st, a);
			break;
		case LA_WAIT:
			r = do_wait(s, st, a);
			break;
		case LA_SLEEP:
			nap(s, (long)(a->timeout_s * s->slow * 1000));
			break;
		case LA_SHOW:
			r = do_show(s, st, a);
			break;
		case LA_MARK:
			take_mark(s, st, a->text);
			break;
		case LA_GDB:
			r = do_gdb(s, st, a);
			break;
		case LA_DRGN:
			r = do_drgn(s, st, a);
			break;
		case LA_REPRO:
			r = do_repro(s, st, a);
			break;
		case LA_CHECK:
			/* The checks see what a gdb of the step printed. */
			if (gdb_finish(s, st) < 0) {
				r = -1;
				k--;	/* this check is one of the rest */
				break;
			}
			do_check(s, st, a);
			if (s->fatal[0] != '\0') {
				snprintf(s->step_err, sizeof s->step_err, "%s", s->fatal);
				r = -1;
			}
			break;
		}
	}
	*at = k;
	return r;
}

/* One side of an ab step: a fresh guest, the switch set quietly, the
 * actions, the evidence read. */
static int
ab_side(struct lab_sess *s, int i, int side, const char *variant, int *at)
{
	const struct lstep	*st = &s->lab->steps[i];
	const struct lab_ab	*ab = st->ab;
	struct lab_abres	*r = &s->ab[i];
	struct lenv		 env;
	char			 err[LAB_ERR_LEN];
	int			 k;

	lab_bg_stop(s);
	lab_guest_down(s);
	s->log_line(s, "-- guest %c --", 'X' + side);
	if (lab_guest_up(s, variant) < 0) {
		snprintf(s->step_err, sizeof s->step_err, "%s", s->fatal);
		*at = 0;
		return -1;
	}
	marks_clear(s);
	take_mark(s, st, "");
	if (write_quietly(s, ab->path, ab->value[side == r->v1_side ? 0 : 1]) < 0) {
		*at = 0;
		return -1;
	}
	if (run_acts(s, st, 0, st->nacts, at) < 0)
		return -1;
	env = sess_env(s);
	for (k = 0; k < ab->nev; k++) {
		r->have[k][side] = lexpr_eval(ab->ev[k].expr, &env, &r->val[k][side],
		    err) == 0;
		if (!r->have[k][side])
			s->log_line(s, "# evidence %s on guest %c: %s", ab->ev[k].label,
			    'X' + side, err);
	}
	return 0;
}

/* Run step i.  Returns its state. *//* Run step i.  Returns its state. */
enum lres_state
lab_step_run(struct lab_sess *s, int i)
{
	const struct lstep	*st = &s->lab->steps[i];
	int			 k, k2 = 0, r = 0, nres0 = s->nfailed;
	char			 why[sizeof s->step_err + 64];
	const char		*variant = st->variant;

	s->cur = i;
	s->step_err[0] = '\0';
	s->on_step(s, i);
	marks_clear(s);
	if (variant == NULL && !s->up)
		variant = s->variant ? s->variant : s->lab->variants[0];
	/* umkit smoke: the patch is against base; other variants lack it. */
	if (s->base_kernel != NULL &&
	    strcmp(variant ? variant : s->variant ? s->variant : "base", "base") != 0) {
		snprintf(why, sizeof why, "umkit smoke: needs variant %s, which "
		    "does not carry the patch", variant ? variant : s->variant);
		rest_of_step(s, st, 0, LR_SKIP, why);
		return LR_SKIP;
	}
	for (k = 0; k < st->nacts; k++) {
		const char	*why_not = NULL, *vn;
		char		*kp, *rel;

		if (st->acts[k].kind == LA_REPRO && s->base_kernel != NULL) {
			rest_of_step(s, st, 0, LR_SKIP, "umkit smoke: the thread's "
			    "table runs the seed's variant, not the patch");
			return LR_SKIP;
		}
		if (st->acts[k].kind != LA_GDB && st->acts[k].kind != LA_DRGN)
			continue;
		/* umkit smoke judges the patch, not a debugger session. */
		if (s->base_kernel != NULL) {
			rest_of_step(s, st, 0, LR_SKIP,
			    "umkit smoke: a debugger step is not a check of the patch");
			return LR_SKIP;
		}
		/* A step with gdb: the host's gdb and a built kernel, or SKIP.
		 * The kernel is where kbuild_kernel() looks: an installed kit's
		 * shipped one, or one built into the user's cache. */
		vn = variant ? variant : s->variant;
		rel = xasprintf("build/k/%s/linux", vn);
		kp = top_path(rel);
		free(rel);
		why_not = st->acts[k].kind == LA_GDB ? gdb_missing() : drgn_missing(vn);
		if (why_not == NULL && access(kp, X_OK) < 0) {
			if (kit()->installed)
				snprintf(why, sizeof why, "needs the %s kernel, not "
				    "built yet: umkit exec -V %s -- true builds it "
				    "into %s (a few minutes), then run the lab again",
				    vn, vn, kit()->cache);
			else
				snprintf(why, sizeof why, "needs the %s kernel, not "
				    "built yet: make VARIANT=%s (a few minutes), then "
				    "run the lab again", vn, vn);
			why_not = why;
		}
		free(kp);
		if (why_not != NULL) {
			if (why_not != why)
				snprintf(why, sizeof why, "%s", why_not);
			rest_of_step(s, st, 0, LR_SKIP, why);
			return LR_SKIP;
		}
		break;
	}
	/* an ab step boots its own two guests */
	if (variant != NULL && st->ab == NULL && lab_guest_up(s, variant) < 0) {
		snprintf(s->step_err, sizeof s->step_err, "%s", s->fatal);
		if (rest_of_step(s, st, 0, LR_FAIL, s->fatal) == 0)
			s->on_error(s, s->fatal);
		return LR_FAIL;
	}
	for (k = 0; (st->ab == NULL || s->up) && k < st->nneeds + s->lab->nneeds; k++) {
		const char *n = k < s->lab->nneeds ? s->lab->needs[k] :
		    st->needs[k - s->lab->nneeds];

		if (!guest_has(s, n)) {
			snprintf(why, sizeof why, "needs %s, which this %s kernel "
			    "lacks", n, s->variant);
			rest_of_step(s, st, 0, LR_SKIP, why);
			return LR_SKIP;
		}
	}
	take_mark(s, st, "");
	if (st->ab != NULL) {
		struct lab_abres	*ar = &s->ab[i];
		const char		*v = variant ? variant : s->variant;
		char			 vb[128];

		snprintf(vb, sizeof vb, "%s", v ? v : s->lab->variants[0]);
		memset(ar, 0, sizeof *ar);
		ar->v1_side = (int)(lab_draw(s->lab->student ? s->lab->student :
		    lab_student(), s->lab->name, st->id) & 1);
		for (k = 0; k < 2 && r == 0 && !stopped(s); k++) {
			r = ab_side(s, i, k, vb, &k2);
			if (r == 0 && s->on_ab_side != NULL && s->on_ab_side(s, i, k) < 0)
				r = -1, snprintf(s->step_err, sizeof s->step_err,
				    "stopped between the guests");
		}
		k = k2;
		ar->ran = r == 0 && !stopped(s);
		if (ar->ran)
			lab_ab_judge(s, i);
	} else if (st->goal != NULL) {
		r = run_acts(s, st, 0, st->goal_at, &k);
		if (r == 0 && !stopped(s)) {
			if (s->on_goal != NULL)
				r = s->on_goal(s, i);
			else
				r = goal_solve(s, st);
			if (r < 0 && s->step_err[0] == '\0')
				snprintf(s->step_err, sizeof s->step_err,
				    "the goal was not worked on");
			k = st->goal_at;
		}
		if (r == 0)
			r = run_acts(s, st, st->goal_at, st->nacts, &k);
	} else
		r = run_acts(s, st, 0, st->nacts, &k);
	if (r == 0 && gdb_finish(s, st) < 0) {
		r = -1;
		k = st->nacts;
	} else if (r != 0 && s->gdb != NULL) {
		s->gdb->deadline = 0;	/* the step failed: its gdb goes */
		gdb_finish(s, st);
	}
	if (stopped(s)) {
		rest_of_step(s, st, k, LR_FAIL, "not run: the lab was stopped");
		return LR_FAIL;
	}
	if (r < 0) {
		snprintf(why, sizeof why, "not run: line %d: %s", st->acts[k - 1].line,
		    s->step_err);
		if (rest_of_step(s, st, k, LR_FAIL, why) == 0)
			s->on_error(s, why);
		return LR_FAIL;
	}
	lab_judge(s, i, false);
	if (s->autoans != LAB_AUTO_NONE || s->whyp[i].answered)
		lab_judge(s, i, true);
	return s->nfailed > nres0 ? LR_FAIL : LR_PASS;
}

/* ---- the session ------------------------------------------------------- */

/* A new session for lab; the guest is booted by the first step. */
struct lab_sess *
lab_sess_new(struct lab *lab, const char *gname, double slow)
{
	struct lab_sess	*s = xcalloc(1, sizeof *s);
	int		 i;

	s->lab = lab;
	s->gname = xstrdup(gname);
	s->root = run_mnt(gname);
	s->slow = slow > 0 ? slow : 1;
	s->pred = xcalloc(lab->nsteps ? lab->nsteps : 1, sizeof *s->pred);
	s->whyp = xcalloc(lab->nsteps ? lab->nsteps : 1, sizeof *s->whyp);
	s->ab = xcalloc(lab->nsteps ? lab->nsteps : 1, sizeof *s->ab);
	s->typed = xcalloc(lab->nsteps ? lab->nsteps : 1, sizeof *s->typed);
	for (i = 0; i < lab->nsteps; i++) {
		s->pred[i].points = lab->steps[i].ask.points;
		s->whyp[i].points = lab->steps[i].why.points;
	}
	return s;
}

/* Stop the guest and free the session. */
void
lab_sess_free(struct lab_sess *s)
{
	int	i, j;

	if (s == NULL)
		return;
	lab_bg_stop(s);
	lab_guest_down(s);
	/* Keep the consoles as run/log/lab-NAME.log, not one per pid. */
	{
		char	*a = run_log(s->gname), *n = xasprintf("lab-%s", s->lab->name);
		char	*b = run_log(n), *ah = xasprintf("%.*s.host.log",
			    (int)(strlen(a) - 4), a), *bh = xasprintf("%.*s.host.log",
			    (int)(strlen(b) - 4), b);

		rename(a, b);
		rename(ah, bh);
		free(a);
		free(b);
		free(ah);
		free(bh);
		free(n);
	}
	marks_clear(s);
	for (i = 0; i < s->nouts; i++)
		free(s->outs[i]);
	free(s->pred);
	free(s->whyp);
	free(s->ab);
	for (i = 0; i < s->lab->nsteps; i++) {
		for (j = 0; j < s->typed[i].n; j++)
			free(s->typed[i].cmd[j]);
		free(s->typed[i].cmd);
	}
	free(s->typed);
	free(s->gname);
	free(s->root);
	free(s->variant);
	free(s);
}
