/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * lab-batch.c - running labs (lab-batch.h): the batch runner's sinks
 * (KTAP), the stop signals, the exercise's build, and the entry to the
 * interactive runner.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "guest/ctl.h"
#include "guest/rundir.h"
#include "lab-batch.h"
#include "lab-cat.h"
#include "lab-out.h"
#include "lab-run.h"
#include "lab-state.h"
#include "lab-ui.h"
#include "util.h"

static volatile sig_atomic_t	lab_stop;
static char			lab_guest[40];

/* Options with their defaults. */
void
lab_opts_init(struct lab_opts *o)
{
	memset(o, 0, sizeof *o);
	o->slow = 1;
	o->hints = true;
	o->jobs = 1;
}

struct batch {
	struct lab_book	 book;
	struct lab_opts	*o;
	FILE		*out;
};

/* Step header as a KTAP diagnostic. */
static void
b_step(struct lab_sess *s, int i)
{
	struct batch	*b = s->arg;

	fprintf(b->out, "%s# step %s: %s\n", b->book.indent, s->lab->steps[i].id,
	    s->lab->steps[i].title);
	fflush(b->out);
}

/* A result: into the book and out as KTAP. */
static void
b_result(struct lab_sess *s, const struct lres *r)
{
	struct batch	*b = s->arg;

	book_put(&b->book, r);
	ktap_result(b->out, &b->book, r, b->o->hints);
}

/* Log lines are KTAP diagnostics. */
static void
b_log(struct lab_sess *s, const char *fmt, ...)
{
	struct batch	*b = s->arg;
	va_list		 ap;
	char		*m;

	va_start(ap, fmt);
	m = xvasprintf(fmt, ap);
	va_end(ap);
	fprintf(b->out, "%s#   %s\n", b->book.indent, m);
	fflush(b->out);
	free(m);
}

/* Command output: with -v only. */
static void
b_output(struct lab_sess *s, const char *out, const char *err)
{
	struct batch	*b = s->arg;
	const char	*bufs[2] = { out, err }, *p, *nl;
	int		 i;

	if (!b->o->verbose)
		return;
	for (i = 0; i < 2; i++)
		for (p = bufs[i]; p != NULL && *p != '\0'; p = nl ? nl + 1 : NULL) {
			nl = strchr(p, '\n');
			fprintf(b->out, "%s#     %.*s\n", b->book.indent,
			    nl ? (int)(nl - p) : (int)strlen(p), p);
		}
}

/* A step failure without a check to carry it. */
static void
b_error(struct lab_sess *s, const char *why)
{
	struct batch	*b = s->arg;

	b->book.nerrors++;
	fprintf(b->out, "%s# error: step %s: %s\n", b->book.indent,
	    s->lab->steps[s->cur].id, why);
	fflush(b->out);
}

/* Signals: stop the lab's guest and tell the runner. */
static void *
sig_main(void *arg)
{
	sigset_t	*set = arg;
	int		 sig;

	if (sigwait(set, &sig) == 0) {
		lab_stop = sig;
		if (lab_guest[0] != '\0' && run_alive(lab_guest)) {
			const char	*f[] = { "stop", NULL };
			char		*r = ctl_call(lab_guest, f, NULL, 0, NULL);

			free(r);
		}
	}
	return NULL;
}

/* Block the stop signals; a thread waits for them. */
static void
lab_signals(void)
{
	static sigset_t	set;
	pthread_t	th;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	if (pthread_create(&th, NULL, sig_main, &set) != 0)
		fatalx("cannot start a thread");
	pthread_detach(th);
}

/*
 * Build the lab's exercises: the solutions, or with --exercise DIR the
 * student's file of the one --exercise-id names (its skeleton first, when
 * it is not there: 1).  0 ready, 1 nothing to run yet, 2 an error (said).
 */
static int
lab_exercise(struct lab *l, struct lab_opts *o)
{
	char	*out = lab_state_dir("exercise");
	int	 r;

	ex_release(&o->ex);
	r = ex_prepare(l, o->exercise, o->exercise_id, out, &o->ex);
	free(out);
	return r;
}

/* Run one lab unattended; fills b.  Returns the exit status. */
static int
batch_one(struct lab *l, struct lab_opts *o, struct batch *b, const char *indent)
{
	struct lab_sess		*s;
	struct lab_score	 sc;
	char			*res;
	int			 i;

	if ((i = lab_exercise(l, o)) != 0)
		return i == 1 ? 0 : LAB_EXIT_FILE;
	snprintf(lab_guest, sizeof lab_guest, "lab%.8s-%d", l->name, (int)getpid());
	book_init(&b->book, l, o->exam ? "exam" : "batch");
	b->book.indent = indent;
	b->o = o;
	ktap_begin(b->out, &b->book);
	s = lab_sess_new(l, lab_guest, o->slow);
	s->ex = &o->ex;
	s->stop = &lab_stop;
	s->on_step = b_step;
	s->on_result = b_result;
	s->log_line = b_log;
	s->log_output = b_output;
	s->on_error = b_error;
	s->arg = b;
	s->base_kernel = o->base_kernel;
	s->autoans = (enum lab_auto)o->autoans;
	b->book.sess = s;
	for (i = 0; i < l->nsteps && !lab_stop; i++) {
		lab_step_run(s, i);
		ktap_answers(b->out, &b->book, i);
	}
	if (s->variant != NULL)
		snprintf(b->book.variant, sizeof b->book.variant, "%s", s->variant);
	b->book.end_s = (now_ms() - b->book.start_ms) / 1000.0;
	ktap_end(b->out, &b->book);
	res = lab_result_path(l);
	if (book_write_json(&b->book, s, res) < 0)
		warnmsg("%s: cannot write the result file", res);
	if (o->json != NULL && book_write_json(&b->book, s, o->json) < 0)
		warnmsg("%s: cannot write: %s", o->json, strerror(errno));
	free(res);
	book_score(&b->book, &sc);
	b->book.sess = NULL;	/* the score stays in sc */
	lab_sess_free(s);	/* stops the guest */
	lab_guest[0] = '\0';
	if (lab_stop)
		return 128 + lab_stop;
	return sc.failed > 0 || sc.notrun > 0 || b->book.nerrors > 0 ? LAB_EXIT_FAILED : 0;
}

/* One lab of several, run in a child process (batch_all). */
struct batch_child {
	pid_t	 pid;		/* 0: not started */
	FILE	*ktap, *junit;	/* anonymous files it writes */
	int	 rc;		/* its exit status; -1 until it ends */
	bool	 whole;		/* it exited, rather than died */
};

/*
 * In a child: run lab l as a KTAP subtest into c->ktap, its JUnit part
 * into c->junit, and exit with its status.
 */
static void
batch_child_main(struct lab *l, struct lab_opts *o, struct batch_child *c,
    const sigset_t *mask)
{
	struct batch	b = { .out = c->ktap };
	int		r;

	sigprocmask(SIG_SETMASK, mask, NULL);
	lab_signals();
	if (o->reset)
		lab_reset(l);
	r = batch_one(l, o, &b, "    ");
	if (b.book.lab != NULL)
		book_junit_part(c->junit, &b.book);
	ex_release(&o->ex);
	if (fflush(c->ktap) != 0 || fflush(c->junit) != 0)
		r = EXIT_KIT;
	_exit(r);
}

/* Start lab i's child, with the signal mask the process had. */
static void
batch_start(struct lab **labs, int i, struct lab_opts *o, struct batch_child *c,
    const sigset_t *mask)
{
	if ((c->ktap = tmpfile()) == NULL || (c->junit = tmpfile()) == NULL)
		fatal("a temporary file for lab %s", labs[i]->name);
	fflush(stdout);
	fflush(stderr);
	if ((c->pid = fork()) < 0)
		fatal("fork");
	if (c->pid == 0)
		batch_child_main(labs[i], o, c, mask);
}

/* Copy lab i's KTAP to stdout, then its result line. */
static void
batch_print(struct lab **labs, int i, struct batch_child *c)
{
	char	buf[8192];
	size_t	k;

	rewind(c->ktap);
	while ((k = fread(buf, 1, sizeof buf, c->ktap)) > 0)
		fwrite(buf, 1, k, stdout);
	printf("%s %d %s\n", c->rc == 0 ? "ok" : "not ok", i + 1, labs[i]->name);
	fflush(stdout);
}

/*
 * The labs of lab all, each in a child, o->jobs at a time; the main
 * process waits for them and for the stop signals (passed on to the
 * children) and prints each lab's KTAP in order once it ended.
 */
static int
batch_all(struct lab **labs, int n, struct lab_opts *o)
{
	struct batch_child	*c = xcalloc(n, sizeof *c);
	FILE			**parts = xcalloc(n, sizeof *parts);
	struct timespec		 tick = { 1, 0 };
	sigset_t		 set, mask;
	int			 i, st, sig, next = 0, running = 0, printed = 0;
	int			 stop = 0, rc = 0;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, &mask);
	for (i = 0; i < n; i++)
		c[i].rc = -1;
	printf("KTAP version 1\n1..%d\n", n);
	fflush(stdout);
	for (;;) {
		for (; !stop && running < o->jobs && next < n; next++, running++)
			batch_start(labs, next, o, &c[next], &mask);
		for (; printed < n && c[printed].rc >= 0; printed++)
			batch_print(labs, printed, &c[printed]);
		if (running == 0)
			break;
		sig = sigtimedwait(&set, NULL, &tick);
		if (sig > 0 && sig != SIGCHLD && !stop) {
			stop = sig;
			for (i = 0; i < next; i++)
				if (c[i].rc < 0)
					kill(c[i].pid, sig);
		}
		for (i = 0; i < next; i++)
			if (c[i].rc < 0 && waitpid(c[i].pid, &st, WNOHANG) == c[i].pid) {
				c[i].whole = WIFEXITED(st);
				c[i].rc = WIFEXITED(st) ? WEXITSTATUS(st) :
				    128 + WTERMSIG(st);
				running--;
			}
	}
	sigprocmask(SIG_SETMASK, &mask, NULL);
	for (i = 0; i < next; i++) {
		if (c[i].rc > rc)
			rc = c[i].rc;
		parts[i] = c[i].whole ? c[i].junit : NULL;
	}
	if (o->junit != NULL && junit_join(parts, next, o->junit) < 0) {
		warnmsg("%s: %s", o->junit, strerror(errno));
		rc = rc > EXIT_KIT ? rc : EXIT_KIT;
	}
	for (i = 0; i < next; i++) {
		fclose(c[i].ktap);
		fclose(c[i].junit);
	}
	free(parts);
	free(c);
	return stop ? 128 + stop : rc;
}

/* umkit lab LAB|all --batch */
int
lab_batch(char **paths, int n, struct lab_opts *o)
{
	struct batch	 b = { 0 };
	struct lab_book	*bp = &b.book;
	struct lab	**labs = xcalloc(n, sizeof *labs);
	int		  i, rc = 0;

	for (i = 0; i < n; i++)
		if ((labs[i] = lab_open(paths[i])) == NULL)
			rc = LAB_EXIT_FILE;
	if (rc != 0)
		goto out;
	if (n > 1) {
		rc = batch_all(labs, n, o);
		goto out;
	}
	lab_signals();
	b.out = stdout;
	if (o->reset)
		lab_reset(labs[0]);
	rc = batch_one(labs[0], o, &b, "");
	if (o->junit != NULL && bp->lab != NULL && books_write_junit(&bp, 1, o->junit) < 0) {
		warnmsg("%s: %s", o->junit, strerror(errno));
		rc = EXIT_KIT;
	}
	if (bp->lab != NULL)
		book_free(bp);
	ex_release(&o->ex);
out:
	for (i = 0; i < n; i++)
		lab_free(labs[i]);
	free(labs);
	return rc;
}


/* umkit lab LAB: the TUI with the lab pane. */
int
lab_run_interactive(const char *path, struct lab_opts *o)
{
	struct lab	*l = lab_open(path);
	int		 rc;

	if (l == NULL)
		return LAB_EXIT_FILE;
	if (o->reset)
		lab_reset(l);
	lab_signals();
	if ((rc = lab_exercise(l, o)) != 0) {
		ex_release(&o->ex);
		lab_free(l);
		return rc == 1 ? 0 : LAB_EXIT_FILE;
	}
	rc = lab_interactive(l, o->slow, o->exam, &o->ex, &lab_stop, lab_guest,
	    sizeof lab_guest, o->json, o->junit);
	ex_release(&o->ex);
	lab_free(l);
	return rc;
}
