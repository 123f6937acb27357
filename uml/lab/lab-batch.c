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

/* umkit lab LAB|all --batch */
int
lab_batch(char **paths, int n, struct lab_opts *o)
{
	struct batch	 *b = xcalloc(n, sizeof *b);
	struct lab_book	**books = xcalloc(n, sizeof *books);
	struct lab	**labs = xcalloc(n, sizeof *labs);
	int		  i, rc = 0, r, nb = 0;

	for (i = 0; i < n; i++)
		if ((labs[i] = lab_open(paths[i])) == NULL)
			rc = LAB_EXIT_FILE;
	if (rc != 0)
		goto out;
	lab_signals();
	if (n > 1)
		printf("KTAP version 1\n1..%d\n", n);
	for (i = 0; i < n && !lab_stop; i++) {
		b[i].out = stdout;
		if (o->reset)
			lab_reset(labs[i]);
		/* Several labs: each is a KTAP subtest. */
		r = batch_one(labs[i], o, &b[i], n > 1 ? "    " : "");
		books[nb++] = &b[i].book;
		if (n > 1)
			printf("%s %d %s\n", r == 0 ? "ok" : "not ok", i + 1, labs[i]->name);
		if (r > rc)
			rc = r;
	}
	if (o->junit != NULL && books_write_junit(books, nb, o->junit) < 0) {
		warnmsg("%s: %s", o->junit, strerror(errno));
		rc = EXIT_KIT;
	}
	for (i = 0; i < nb; i++)
		book_free(books[i]);
	ex_release(&o->ex);
out:
	for (i = 0; i < n; i++)
		lab_free(labs[i]);
	free(labs);
	free(books);
	free(b);
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
