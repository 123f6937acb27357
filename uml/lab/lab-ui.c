/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * lab-ui.c - the interactive lab runner.
 *
 * Three threads: the main one talks to the TUI (a child process, on a
 * socketpair: tui/lab-pane.c has the messages), a worker runs steps (so
 * keys stay live while a step runs), and the recorder snapshots the
 * mirror for a replay.  ui.lock guards the pane state below it; the
 * worker only ever runs one step at a time.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "guest/ctl.h"
#include "lab-out.h"
#include "lab-run.h"
#include "lab-state.h"
#include "lab-ui.h"
#include "tuiexec.h"
#include "link/record.h"
#include "guest/rundir.h"
#include "util.h"

#define NLOG	8		/* command lines shown in the pane */

struct ui {
	struct lab		*lab;
	struct lab_sess		*s;
	struct lab_book		 book;
	bool			 exam;
	int			 sock;		/* to the TUI */
	pid_t			 tui;

	pthread_mutex_t		 lock;
	pthread_cond_t		 cond;
	/* Guarded by lock: */
	int			 cur;		/* the step shown */
	int			 job;		/* a step to run, or -1 */
	int			 running;	/* the step running, or -1 */
	bool			 quit;
	bool			 hints;		/* show hints of failed checks */
	char			*log[NLOG];	/* recent commands of the step */
	int			 nlog;
	enum lres_state		*state;		/* per step; LR_SKIP+1: not run */
	bool			 dirty;		/* the pane must be sent again */
	char			 note[200];	/* one line under the title */
};

#define NOT_RUN	(LR_SKIP + 1)

/* Send one message to the TUI. */
static void
tui_send(struct ui *u, const char *fmt, ...)
{
	va_list	 ap;
	char	*m;

	va_start(ap, fmt);
	m = xvasprintf(fmt, ap);
	va_end(ap);
	send(u->sock, m, strlen(m), MSG_NOSIGNAL);
	free(m);
}

/* Append a styled line to a growing pane text. */
static void __attribute__((format(printf, 3, 4)))
pl(char **t, char style, const char *fmt, ...)
{
	va_list	 ap;
	char	*m, *n;

	va_start(ap, fmt);
	m = xvasprintf(fmt, ap);
	va_end(ap);
	n = xasprintf("%s%c %s\n", *t, style, m);
	free(*t);
	free(m);
	*t = n;
}

/* Compose and send the pane; ui.lock held. */
static void
send_pane(struct ui *u)
{
	const struct lab	*l = u->lab;
	const struct lstep	*st = &l->steps[u->cur];
	const struct lpred	*p = &u->s->pred[u->cur];
	struct lab_score	 sc;
	char			*t = xstrdup("pane\n"), *text, *q, *nl, score[160], ls[64];
	int			 j, i;

	book_score(&u->book, &sc);
	score_line(&sc, score, sizeof score);
	pl(&t, 'T', "%s · step %d/%d: %s%s", l->name, u->cur + 1, l->nsteps,
	    st->title, u->running == u->cur ? "  (running...)" :
	    u->state[u->cur] == LR_PASS ? "  ✓" : u->state[u->cur] == LR_FAIL ? "  ✗" : "");
	if (u->note[0] != '\0')
		pl(&t, 'W', "%s", u->note);
	text = xstrdup(st->text ? st->text : "");
	for (q = text; q != NULL; q = nl ? nl + 1 : NULL) {
		nl = strchr(q, '\n');
		if (nl)
			*nl = '\0';
		pl(&t, 'P', "%s", q);
	}
	free(text);
	if (st->ask.kind != LQ_NONE) {
		pl(&t, 'N', "%s", "");
		pl(&t, 'Q', "Predict: %s", st->ask.question);
		for (j = 0; j < st->ask.nchoices; j++)
			pl(&t, 'N', "  %c) %s", st->ask.choices[j].key, st->ask.choices[j].text);
		/* 'I': where the TUI reads the answer */
		if (!p->answered)
			pl(&t, 'I', "  (Enter: answer, then the step runs)");
		else if (!p->judged)
			pl(&t, 'N', "  your answer: %s%s", p->answer,
			    p->truth_err[0] ? "  (could not be judged)" : "");
		else if (p->right)
			pl(&t, 'G', "  your answer: %s — right", p->answer);
		else if (st->ask.kind == LQ_CHOICE)
			pl(&t, 'W', "  your answer: %s — it was %c", p->answer, st->ask.answer);
		else {
			lab_fmt_num(ls, sizeof ls, p->truth);
			pl(&t, 'W', "  your answer: %s — it was %s", p->answer, ls);
		}
		if (p->answered && !u->exam && u->state[u->cur] == NOT_RUN &&
		    u->running != u->cur)
			pl(&t, 'I', "  (Enter: answer again, then the step runs)");
	}
	if (u->nlog > 0) {
		pl(&t, 'N', "%s", "");
		for (i = 0; i < u->nlog; i++)
			pl(&t, 'D', "%s", u->log[i]);
	}
	for (j = 0; j < st->nacts; j++) {
		const struct lact	*a = &st->acts[j];
		int			 k = book_index(&u->book, a);
		const struct lres	*r;

		if (k < 0)
			continue;
		r = &u->book.res[k];
		if (!u->book.have[k]) {
			pl(&t, 'D', "· %s", a->check.cond->text);
			continue;
		}
		if (r->state == LR_PASS)
			pl(&t, 'G', "✓ %s  [%d/%d]", a->check.cond->text, a->check.points,
			    a->check.points);
		else if (r->state == LR_SKIP)
			pl(&t, 'D', "- %s  (skipped: %s)", a->check.cond->text, r->msg);
		else {
			pl(&t, 'W', "✗ %s  [0/%d]", a->check.cond->text, a->check.points);
			pl(&t, 'W', "    %s", r->msg);
			if (u->hints && a->check.hint != NULL)
				pl(&t, 'Q', "    hint: %s", a->check.hint);
		}
	}
	pl(&t, 'N', "%s", "");
	pl(&t, 'D', "Enter run · n next · b back%s · j/k scroll · q quit",
	    u->exam ? "" : " · H hint");
	pl(&t, 'D', "score: %s", score);
	send(u->sock, t, strlen(t), MSG_NOSIGNAL);
	free(t);
	u->dirty = false;
}

/* ---- session callbacks (the worker's thread) -------------------------- */

/* A step starts: forget its old log and results. */
static void
u_step(struct lab_sess *s, int i)
{
	struct ui	*u = s->arg;
	int		 k;

	pthread_mutex_lock(&u->lock);
	for (k = 0; k < u->nlog; k++)
		free(u->log[k]);
	u->nlog = 0;
	u->note[0] = '\0';
	book_clear_step(&u->book, &u->lab->steps[i]);
	if (u->cur == i)
		send_pane(u);
	pthread_mutex_unlock(&u->lock);
}

/* A check's result. */
static void
u_result(struct lab_sess *s, const struct lres *r)
{
	struct ui	*u = s->arg;

	pthread_mutex_lock(&u->lock);
	book_put(&u->book, r);
	if (u->cur == s->cur)
		send_pane(u);
	pthread_mutex_unlock(&u->lock);
}

/* A command or a wait, shown in the pane. */
static void
u_log(struct lab_sess *s, const char *fmt, ...)
{
	struct ui	*u = s->arg;
	va_list		 ap;
	char		*m;

	va_start(ap, fmt);
	m = xvasprintf(fmt, ap);
	va_end(ap);
	pthread_mutex_lock(&u->lock);
	if (u->nlog == NLOG) {
		free(u->log[0]);
		memmove(u->log, u->log + 1, (NLOG - 1) * sizeof *u->log);
		u->nlog--;
	}
	u->log[u->nlog++] = m;
	if (u->cur == s->cur)
		send_pane(u);
	pthread_mutex_unlock(&u->lock);
}

/* Command output is not shown (the TUI shows the kernel instead). */
static void
u_output(struct lab_sess *s, const char *out, const char *err)
{
	(void)s;
	(void)out;
	(void)err;
}

/* A step failure no check carries: a note under the title. */
static void
u_error(struct lab_sess *s, const char *why)
{
	struct ui	*u = s->arg;

	pthread_mutex_lock(&u->lock);
	u->book.nerrors++;
	snprintf(u->note, sizeof u->note, "%s", why);
	send_pane(u);
	pthread_mutex_unlock(&u->lock);
}

/* The worker: run the steps asked for, one at a time. */
static void *
worker_main(void *arg)
{
	struct ui	*u = arg;
	enum lres_state	 st;
	int		 i;
	const char	*before;

	pthread_mutex_lock(&u->lock);
	for (;;) {
		while (u->job < 0 && !u->quit)
			pthread_cond_wait(&u->cond, &u->lock);
		if (u->quit)
			break;
		i = u->job;
		u->job = -1;
		u->running = i;
		send_pane(u);
		before = u->s->variant;
		pthread_mutex_unlock(&u->lock);
		st = lab_step_run(u->s, i);
		pthread_mutex_lock(&u->lock);
		if (u->s->variant != before && before != NULL)
			tui_send(u, "reopen");
		u->state[i] = st;
		u->running = -1;
		send_pane(u);
	}
	pthread_mutex_unlock(&u->lock);
	return NULL;
}

/* ---- progress ---------------------------------------------------------- */

/* The progress file of the lab. */
static char *
progress_path(const struct lab *l)
{
	char	*d = lab_state_dir("progress"), *p;

	p = xasprintf("%s/%s.json", d, l->name);
	free(d);
	return p;
}

static const char *const st_names[] = { "pass", "fail", "skip", "notrun" };

/* Save where the student is: the step, each step's state, the answers. */
static void
progress_save(struct ui *u)
{
	char	*p = progress_path(u->lab);
	json_t	*o = json_object(), *steps = json_object(), *ans = json_object();
	int	 i;

	for (i = 0; i < u->lab->nsteps; i++) {
		json_object_set_new(steps, u->lab->steps[i].id,
		    json_string(st_names[u->state[i]]));
		if (u->s->pred[i].answered)
			json_object_set_new(ans, u->lab->steps[i].id,
			    json_string(u->s->pred[i].answer));
	}
	json_object_set_new(o, "lab", json_string(u->lab->name));
	json_object_set_new(o, "step", json_string(u->lab->steps[u->cur].id));
	json_object_set_new(o, "steps", steps);
	json_object_set_new(o, "answers", ans);
	if (json_dump_file(o, p, JSON_INDENT(1)) < 0)
		warnmsg("%s: cannot save progress", p);
	json_decref(o);
	free(p);
}

/* Resume from saved progress, if any. */
static void
progress_load(struct ui *u)
{
	char		*p = progress_path(u->lab);
	json_t		*o = json_load_file(p, 0, NULL), *v;
	const char	*s;
	int		 i, k;

	free(p);
	if (o == NULL)
		return;
	for (i = 0; i < u->lab->nsteps; i++) {
		const char *id = u->lab->steps[i].id;

		if ((s = json_string_value(json_object_get(o, "step"))) != NULL &&
		    strcmp(s, id) == 0)
			u->cur = i;
		v = json_object_get(json_object_get(o, "steps"), id);
		for (k = 0; v != NULL && k < 4; k++)
			if (strcmp(json_string_value(v) ?: "", st_names[k]) == 0)
				u->state[i] = k;
		s = json_string_value(json_object_get(json_object_get(o, "answers"), id));
		if (s != NULL) {
			snprintf(u->s->pred[i].answer, sizeof u->s->pred[i].answer, "%s", s);
			u->s->pred[i].answered = true;
		}
	}
	json_decref(o);
}

/* ---- keys -------------------------------------------------------------- */

static void	ask(struct ui *, const char *);

/* Show step i (its view too); ui.lock held. */
static void
show_step(struct ui *u, int i)
{
	int	k;

	u->cur = i;
	u->note[0] = '\0';
	for (k = 0; k < u->nlog; k++)
		free(u->log[k]);
	u->nlog = 0;
	if (u->lab->steps[i].view != NULL)
		tui_send(u, "view %s", u->lab->steps[i].view);
	send_pane(u);
	/* a question waiting for its answer is asked at once (after the
	 * pane, which holds its 'I' line): what the student types then goes
	 * to the answer, not to the views */
	if (u->lab->steps[i].ask.kind != LQ_NONE && !u->s->pred[i].answered)
		ask(u, NULL);
}

/* Ask the step's question through the TUI's prompt (why: the reason
 * the last answer was refused, or NULL); ui.lock held. */
static void
ask(struct ui *u, const char *why)
{
	const struct lask	*q = &u->lab->steps[u->cur].ask;

	if (q->kind == LQ_CHOICE)
		tui_send(u, "prompt %s%syour prediction (a letter, a-%c):",
		    why ? why : "", why ? "; " : "", 'a' + q->nchoices - 1);
	else
		tui_send(u, "prompt %s%syour prediction (a number):",
		    why ? why : "", why ? "; " : "");
}

/* Queue the current step; ui.lock held. */
static void
run_current(struct ui *u)
{
	if (u->running >= 0 || u->job >= 0) {
		tui_send(u, "say a step is running; wait for it to finish");
		return;
	}
	u->job = u->cur;
	pthread_cond_signal(&u->cond);
}

/* An answer typed in the TUI; ui.lock held. */
static void
answer(struct ui *u, const char *a)
{
	const struct lstep	*st = &u->lab->steps[u->cur];
	struct lpred		*p = &u->s->pred[u->cur];
	char			*end;
	int			 j;

	while (*a == ' ')
		a++;
	if (*a == '\0')
		return;		/* cancelled */
	if (st->ask.kind == LQ_CHOICE) {
		for (j = 0; j < st->ask.nchoices; j++)
			if (a[0] == st->ask.choices[j].key && a[1] == '\0')
				break;
		if (j == st->ask.nchoices) {
			ask(u, "not one of the choices");
			return;
		}
	} else {
		strtod(a, &end);
		if (end == a || *end != '\0') {
			ask(u, "not a number");
			return;
		}
	}
	snprintf(p->answer, sizeof p->answer, "%s", a);
	p->answered = true;
	p->judged = false;
	run_current(u);
}

/* One message from the TUI; ui.lock held. */
static void
tui_msg(struct ui *u, const char *m)
{
	const struct lstep	*st = &u->lab->steps[u->cur];
	const struct lpred	*p = &u->s->pred[u->cur];

	if (strcmp(m, "key enter") == 0) {
		if (st->ask.kind != LQ_NONE && (!p->answered ||
		    (!u->exam && u->state[u->cur] == NOT_RUN)))
			ask(u, NULL);
		else
			run_current(u);
	} else if (strcmp(m, "key next") == 0) {
		if (u->cur + 1 < u->lab->nsteps)
			show_step(u, u->cur + 1);
		else
			tui_send(u, "say the last step: q ends the lab");
	} else if (strcmp(m, "key back") == 0) {
		if (u->cur > 0)
			show_step(u, u->cur - 1);
	} else if (strcmp(m, "key hint") == 0) {
		if (u->exam)
			tui_send(u, "say no hints in exam mode");
		else {
			u->hints = !u->hints;
			send_pane(u);
		}
	} else if (strncmp(m, "answer ", 7) == 0) {
		if (u->exam && p->answered)
			tui_send(u, "say exam mode: the prediction is locked");
		else
			answer(u, m + 7);
	}
}

/* ---- the recorder ------------------------------------------------------ */

struct rec {
	char		*root, *dir;
	volatile int	 stop;
	pthread_t	 th;
	bool		 on;
};

/* Record the mirror for a replay (quietly). */
static void *
rec_main(void *arg)
{
	struct rec	*r = arg;
	FILE		*devnull = fopen("/dev/null", "w");

	record_run(r->root, r->dir, 500, 0, &r->stop, devnull);
	if (devnull != NULL)
		fclose(devnull);
	return NULL;
}

/* ---- the runner -------------------------------------------------------- */

/* Start the TUI on the mirror, with the lab pane on a socket. */
static pid_t
tui_start(struct ui *u, int *sock)
{
	int	sv[2];
	pid_t	pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		fatal("socketpair");
	pid = tuiexec_start_lab(u->s->root, sv[1], u->lab->steps[u->cur].view);
	close(sv[1]);
	*sock = sv[0];
	return pid;
}

/* Run the lab interactively. */
int
lab_interactive(struct lab *l, double slow, bool exam,
    const struct ex_build *ex, volatile sig_atomic_t *stop, char *gname,
    size_t gsize, const char *json, const char *junit)
{
	struct ui		 u;
	struct rec		 rec = { 0 };
	struct lab_score	 sc;
	struct pollfd		 pfd;
	struct lab_book		*bp;
	pthread_t		 worker;
	char			*m, *res, *rd, ts[32], line[200];
	ssize_t			 n;
	int			 i, st, rc;
	time_t			 now = time(NULL);
	struct tm		 tm;

	if (!isatty(0) || !isatty(1))
		fatalx("lab %s needs a terminal for the TUI; use --batch to run "
		    "it unattended", l->name);
	memset(&u, 0, sizeof u);
	u.lab = l;
	u.exam = exam;
	u.job = u.running = -1;
	pthread_mutex_init(&u.lock, NULL);
	pthread_cond_init(&u.cond, NULL);
	u.state = xcalloc(l->nsteps, sizeof *u.state);
	for (i = 0; i < l->nsteps; i++)
		u.state[i] = NOT_RUN;
	snprintf(gname, gsize, "lab%.8s-%d", l->name, (int)getpid());
	book_init(&u.book, l, exam ? "exam" : "interactive");
	u.s = lab_sess_new(l, gname, slow);
	u.s->ex = ex;
	u.s->stop = stop;
	u.s->on_step = u_step;
	u.s->on_result = u_result;
	u.s->log_line = u_log;
	u.s->log_output = u_output;
	u.s->on_error = u_error;
	u.s->arg = &u;
	progress_load(&u);

	/* Boot the guest of the current step before the TUI opens. */
	{
		const char *v = l->variants[0];

		for (i = u.cur; i >= 0; i--)
			if (l->steps[i].variant != NULL) {
				v = l->steps[i].variant;
				break;
			}
		fprintf(stderr, "umkit: lab %s: %s\n", l->name, l->title);
		if (lab_guest_up(u.s, v) < 0) {
			warnmsg("lab %s: %s", l->name, u.s->fatal);
			lab_sess_free(u.s);
			book_free(&u.book);
			free(u.state);
			return EXIT_KIT;
		}
	}
	localtime_r(&now, &tm);
	strftime(ts, sizeof ts, "%Y%m%d-%H%M%S", &tm);
	rd = lab_state_dir("recordings");
	rec.dir = xasprintf("%s/%s-%s", rd, l->name, ts);
	free(rd);
	rec.root = u.s->root;
	rec.on = pthread_create(&rec.th, NULL, rec_main, &rec) == 0;

	u.tui = tui_start(&u, &u.sock);
	if (pthread_create(&worker, NULL, worker_main, &u) != 0)
		fatalx("cannot start a thread");
	pthread_mutex_lock(&u.lock);
	show_step(&u, u.cur);
	pthread_mutex_unlock(&u.lock);

	m = xmalloc(CTL_MSG_MAX + 1);
	pfd.fd = u.sock;
	pfd.events = POLLIN;
	while (!*stop) {
		if (poll(&pfd, 1, 200) <= 0)
			continue;
		n = recv(u.sock, m, CTL_MSG_MAX, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;		/* the TUI quit */
		m[n] = '\0';
		pthread_mutex_lock(&u.lock);
		tui_msg(&u, m);
		pthread_mutex_unlock(&u.lock);
	}
	free(m);

	/* Quit: stop the guest first, so a running step ends at once. */
	pthread_mutex_lock(&u.lock);
	u.quit = true;
	pthread_cond_signal(&u.cond);
	pthread_mutex_unlock(&u.lock);
	*stop = *stop ? *stop : -1;
	if (run_alive(gname)) {
		const char	*f[] = { "stop", NULL };

		free(ctl_call(gname, f, NULL, 0, NULL));
	}
	pthread_join(worker, NULL);
	rec.stop = 1;
	if (rec.on)
		pthread_join(rec.th, NULL);
	close(u.sock);
	kill(u.tui, SIGTERM);
	while (waitpid(u.tui, &st, 0) < 0 && errno == EINTR)
		;
	if (u.s->variant != NULL)
		snprintf(u.book.variant, sizeof u.book.variant, "%s", u.s->variant);
	u.s->up = false;		/* stopped above */
	u.s->nbg = 0;
	progress_save(&u);
	u.book.end_s = (now_ms() - u.book.start_ms) / 1000.0;

	book_score(&u.book, &sc);
	score_line(&sc, line, sizeof line);
	printf("lab %s: %s\n", l->name, line);
	if (rec.on)
		printf("replay this run: umkit tui --root %s\n", rec.dir);
	rd = lab_state_dir("results");
	res = xasprintf("%s/%s-%s-%d.json", rd, l->name, ts, (int)getpid());
	free(rd);
	if (book_write_json(&u.book, u.s, res) == 0)
		printf("results: %s\n", res);
	if (json != NULL && book_write_json(&u.book, u.s, json) < 0)
		warnmsg("%s: cannot write: %s", json, strerror(errno));
	bp = &u.book;
	if (junit != NULL && books_write_junit(&bp, 1, junit) < 0)
		warnmsg("%s: %s", junit, strerror(errno));
	free(res);
	lab_sess_free(u.s);
	rc = *stop > 0 ? 128 + *stop : sc.failed > 0 || sc.notrun > 0 ? 1 : 0;
	book_free(&u.book);
	for (i = 0; i < u.nlog; i++)
		free(u.log[i]);
	free(u.state);
	free(rec.dir);
	return rc;
}
