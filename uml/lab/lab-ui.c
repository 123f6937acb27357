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
	/*
	 * What the prompt reads: the step's ask, its why, a goal step's
	 * guest shell, an ab step's pause between its guests, which guest
	 * had V1, and one evidence reading (ev, side).
	 */
	enum { PR_NONE, PR_ASK, PR_WHY, PR_SHELL, PR_AB_NEXT, PR_AB_IDENT,
	    PR_AB_EV } mode;
	int			 ev, side;
	char			*shell_cmd;	/* a command for the worker to run */
	bool			 resume;	/* the worker may go on (goal, ab) */
	bool			 waiting;	/* the worker waits for the student */
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

/* An explanation's lines (unsealed), if the lab has one. */
static void
pane_explain(struct ui *u, char **t, const struct lask *q, char key,
    const char *lead)
{
	const struct lstep	*st = &u->lab->steps[u->cur];
	char			*e = lab_explain(u->lab, st, q, key);

	if (e != NULL)
		pl(t, 'N', "%s%s", lead, e);
	free(e);
}

/* A question (the step's ask or why) with its choices in this student's
 * order, the answer, and once judged the explanations; ui.lock held. */
static void
pane_question(struct ui *u, char **t, const struct lask *q,
    const struct lpred *p, const char *what)
{
	const struct lstep	*st = &u->lab->steps[u->cur];
	int			 perm[26], j;
	char			 ls[64], right, shown = 0;
	bool			 is_why = q == &st->why;

	if (q->kind == LQ_NONE)
		return;
	/* a why is asked once the step ran */
	if (is_why && u->state[u->cur] == NOT_RUN && !p->answered)
		return;
	lab_choice_order(u->lab, st, q, perm);
	pl(t, 'N', "%s", "");
	pl(t, 'Q', "%s: %s  [%d point%s]", what, q->question, q->points,
	    q->points == 1 ? "" : "s");
	right = lab_right_key(u->lab, st, q);
	for (j = 0; j < q->nchoices; j++) {
		const struct lchoice *c = &q->choices[perm[j]];

		if (p->answered && c->key == p->answer[0])
			shown = (char)('a' + j);
		pl(t, 'N', "  %c) %s", 'a' + j, c->text);
		if (p->judged)
			pane_explain(u, t, q, c->key, c->key == right ?
			    "     right: " : "     wrong: ");
	}
	if (!p->answered) {
		/* 'I': where the TUI reads the answer */
		pl(t, 'I', "  (Enter: answer%s)", is_why ? "" :
		    ", then the step runs");
		return;
	}
	if (q->kind == LQ_CHOICE && shown == 0)
		shown = '?';
	if (!p->judged) {
		if (q->kind == LQ_CHOICE)
			pl(t, 'N', "  your answer: %c%s", shown,
			    p->truth_err[0] ? "  (could not be judged)" : "");
		else
			pl(t, 'N', "  your answer: %s%s", p->answer,
			    p->truth_err[0] ? "  (could not be judged)" :
			    "  (judged once the step ran)");
	} else if (q->kind == LQ_CHOICE) {
		for (j = 0; j < q->nchoices; j++)
			if (q->choices[perm[j]].key == right)
				break;
		pl(t, p->right ? 'G' : 'W', "  your answer: %c — %s%c  [%d/%d]",
		    shown, p->right ? "right" : "wrong; it was ", p->right ? ' ' :
		    'a' + j, p->got, p->points);
	} else {
		lab_fmt_num(ls, sizeof ls, p->truth);
		pl(t, p->right ? 'G' : 'W', "  your answer: %s — %s%s  [%d/%d]",
		    p->answer, p->right ? "right: " : "wrong; it was ", ls, p->got,
		    p->points);
	}
	if (p->judged)
		pane_explain(u, t, q, 0, "  why: ");
	if (!is_why && !u->exam && u->state[u->cur] == NOT_RUN &&
	    u->running != u->cur)
		pl(t, 'I', "  (Enter: answer again, then the step runs)");
}

/* An ab step: the two guests, the question and the evidence. */
static void
pane_ab(struct ui *u, char **t, const struct lstep *st)
{
	const struct lab_ab	*ab = st->ab;
	const struct lab_abres	*r = &u->s->ab[u->cur];
	char			 v[64];
	int			 k;

	pl(t, 'N', "%s", "");
	pl(t, 'Q', "Blind A/B: guests X and Y run this step one after the "
	    "other; one has %s.  Which?  [%d points, and %d for each reading]",
	    ab->what, ab->points, ab->ev[0].points);
	for (k = 0; k < ab->nev; k++)
		pl(t, 'N', "  evidence: %s, on X and on Y (read it in a view)",
		    ab->ev[k].label);
	if (u->mode == PR_AB_NEXT)
		pl(t, 'I', "  guest X ran: read its values now (Enter: guest Y)");
	else if (u->mode == PR_AB_IDENT)
		pl(t, 'I', "  which guest had it (X or Y)?");
	else if (u->mode == PR_AB_EV)
		pl(t, 'I', "  reading");
	if (!r->ran || !r->answered || u->running == u->cur)
		return;
	pl(t, r->ident == 'X' + r->v1_side ? 'G' : 'W', "  you said %c: %s  "
	    "[%d/%d in all]", r->ident, r->ident == 'X' + r->v1_side ? "right" :
	    "wrong", r->got, r->points);
	for (k = 0; k < ab->nev; k++) {
		lab_fmt_num(v, sizeof v, r->val[k][0]);
		pl(t, 'N', "  %s: X showed %s", ab->ev[k].label, v);
		lab_fmt_num(v, sizeof v, r->val[k][1]);
		pl(t, 'N', "  %s: Y showed %s", ab->ev[k].label, v);
	}
}

/*
 * The lab's introduction as pane lines: paragraphs as P lines, and each
 * item of an indented list ("  - goal", its continuation lines joined)
 * one P line of its own (two blanks keep it out of the paragraph).
 */
static void
pane_intro(char **t, const char *intro)
{
	char	*text = xstrdup(intro), *q, *nl, *item = NULL, *x;
	size_t	 lead;

	for (q = text; q != NULL; q = nl ? nl + 1 : NULL) {
		if ((nl = strchr(q, '\n')) != NULL)
			*nl = '\0';
		lead = strspn(q, " ");
		if (lead > 0 && q[lead] == '-' && q[lead + 1] == ' ') {
			if (item != NULL)
				pl(t, 'P', "%s", item);
			free(item);
			item = xasprintf("  %s", q + lead);
		} else if (lead > 0 && item != NULL && q[lead] != '\0') {
			x = xasprintf("%s %s", item, q + lead);
			free(item);
			item = x;
		} else {
			if (item != NULL)
				pl(t, 'P', "%s", item);
			free(item);
			item = NULL;
			pl(t, 'P', "%s", q);
		}
	}
	if (item != NULL)
		pl(t, 'P', "%s", item);
	free(item);
	free(text);
	pl(t, 'N', "%s", "");
}

/* Compose and send the pane; ui.lock held. */
static void
send_pane(struct ui *u)
{
	const struct lab	*l = u->lab;
	const struct lstep	*st = &l->steps[u->cur];
	const struct lpred	*p = &u->s->pred[u->cur];
	struct lab_score	 sc;
	char			*t = xstrdup("pane\n"), *text, *q, *nl, score[160];
	int			 j, i, ti;
	bool			 hide;

	book_score(&u->book, &sc);
	score_line(&sc, score, sizeof score);
	pl(&t, 'T', "%s · step %d/%d: %s%s", l->name, u->cur + 1, l->nsteps,
	    st->title, u->running == u->cur ? "  (running...)" :
	    u->state[u->cur] == LR_PASS ? "  ✓" : u->state[u->cur] == LR_FAIL ? "  ✗" : "");
	if (u->note[0] != '\0')
		pl(&t, 'W', "%s", u->note);
	/* The lab's introduction (its goals) above the first step. */
	if (u->cur == 0 && l->intro != NULL && l->intro[0] != '\0')
		pane_intro(&t, l->intro);
	text = xstrdup(st->text ? st->text : "");
	for (q = text; q != NULL; q = nl ? nl + 1 : NULL) {
		nl = strchr(q, '\n');
		if (nl)
			*nl = '\0';
		pl(&t, 'P', "%s", q);
	}
	free(text);
	pane_question(u, &t, &st->ask, p, "Predict");
	if (st->goal != NULL) {
		pl(&t, 'N', "%s", "");
		pl(&t, 'Q', "Your goal: %s", st->goal);
		if (u->mode == PR_SHELL)
			pl(&t, 'I', "  guest$ (a shell command; 'done' when you are done)");
		for (ti = 0; ti < u->s->typed[u->cur].n && ti < 4; ti++)
			pl(&t, 'D', "  typed: %s", u->s->typed[u->cur].cmd[
			    u->s->typed[u->cur].n - 1 - ti]);
	}
	if (st->ab != NULL)
		pane_ab(u, &t, st);
	if (u->nlog > 0) {
		pl(&t, 'N', "%s", "");
		for (i = 0; i < u->nlog; i++)
			pl(&t, 'D', "%s", u->log[i]);
	}
	/* The checks would give the prediction away: not before it. */
	hide = st->ask.kind != LQ_NONE && !p->answered;
	for (j = 0; j < st->nacts && !hide; j++) {
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
	if (hide)
		pl(&t, 'D', "(the step's checks are shown once you have answered)");
	pane_question(u, &t, &st->why, &u->s->whyp[u->cur], "Why");
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

/* Add a line to the pane's log; ui.lock held. */
static void
log_add(struct ui *u, char *m)
{
	if (u->nlog == NLOG) {
		free(u->log[0]);
		memmove(u->log, u->log + 1, (NLOG - 1) * sizeof *u->log);
		u->nlog--;
	}
	u->log[u->nlog++] = m;
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
	log_add(u, m);
	if (u->cur == s->cur)
		send_pane(u);
	pthread_mutex_unlock(&u->lock);
}

/* Command output is not shown (the TUI shows the kernel instead), but
 * for the student's own commands in a goal step's shell: its last lines. */
static void
u_output(struct lab_sess *s, const char *out, const char *err)
{
	struct ui	*u = s->arg;
	const char	*b[2] = { out, err }, *p, *nl;
	int		 k, n;

	pthread_mutex_lock(&u->lock);
	if (u->mode != PR_SHELL) {
		pthread_mutex_unlock(&u->lock);
		return;
	}
	for (k = 0; k < 2; k++) {
		for (n = 0, p = b[k]; p != NULL && *p != '\0' && n < NLOG - 1; n++) {
			nl = strchr(p, '\n');
			log_add(u, xasprintf("  %.*s", nl ? (int)(nl - p) > 200 ? 200 :
			    (int)(nl - p) : (int)strnlen(p, 200), p));
			p = nl ? nl + 1 : NULL;
		}
	}
	if (u->cur == s->cur)
		send_pane(u);
	pthread_mutex_unlock(&u->lock);
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

static void	prompt(struct ui *, int, const char *);
static void	show_step(struct ui *, int);

/* Wait (ui.lock held) until the student lets the worker go on; false
 * when the lab quits. */
static bool
wait_student(struct ui *u, int mode)
{
	u->resume = false;
	u->waiting = true;
	if (u->cur != u->running)
		show_step(u, u->running);
	prompt(u, mode, NULL);
	while (!u->resume && !u->quit && u->shell_cmd == NULL)
		pthread_cond_wait(&u->cond, &u->lock);
	u->waiting = false;
	return !u->quit;
}

/* A goal step's set-up ran: the student works in a guest shell (each
 * line the prompt reads runs in the guest) until 'done'. */
static int
u_goal(struct lab_sess *s, int i)
{
	struct ui	*u = s->arg;
	char		*cmd;

	pthread_mutex_lock(&u->lock);
	for (;;) {
		if (!wait_student(u, PR_SHELL)) {
			pthread_mutex_unlock(&u->lock);
			return -1;
		}
		if ((cmd = u->shell_cmd) == NULL)
			break;		/* done */
		u->shell_cmd = NULL;
		pthread_mutex_unlock(&u->lock);
		lab_goal_command(s, i, cmd);
		free(cmd);
		pthread_mutex_lock(&u->lock);
	}
	u->mode = PR_NONE;
	send_pane(u);
	pthread_mutex_unlock(&u->lock);
	return 0;
}

/* A guest booted in a step (an ab step's X and Y): the TUI reopens its
 * mirror. */
static void
u_boot(struct lab_sess *s)
{
	struct ui	*u = s->arg;

	pthread_mutex_lock(&u->lock);
	if (u->running >= 0)
		tui_send(u, "reopen");
	pthread_mutex_unlock(&u->lock);
}

/* An ab step's guest ran: after X the student reads its values and goes
 * on; after Y says which had V1 and gives the readings. */
static int
u_ab_side(struct lab_sess *s, int i, int side)
{
	struct ui	*u = s->arg;
	bool		 go;

	(void)i;
	pthread_mutex_lock(&u->lock);
	go = wait_student(u, side == 0 ? PR_AB_NEXT : PR_AB_IDENT);
	u->mode = PR_NONE;
	pthread_mutex_unlock(&u->lock);
	return go ? 0 : -1;
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
		/* what the student just saw: the why, now */
		if (u->cur == i && u->lab->steps[i].why.kind != LQ_NONE &&
		    !u->s->whyp[i].answered)
			prompt(u, PR_WHY, NULL);
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
	json_t	*whys = json_object();
	int	 i;

	for (i = 0; i < u->lab->nsteps; i++) {
		json_object_set_new(steps, u->lab->steps[i].id,
		    json_string(st_names[u->state[i]]));
		if (u->s->pred[i].answered)
			json_object_set_new(ans, u->lab->steps[i].id,
			    json_string(u->s->pred[i].answer));
		if (u->s->whyp[i].answered)
			json_object_set_new(whys, u->lab->steps[i].id,
			    json_string(u->s->whyp[i].answer));
	}
	json_object_set_new(o, "lab", json_string(u->lab->name));
	json_object_set_new(o, "step", json_string(u->lab->steps[u->cur].id));
	json_object_set_new(o, "steps", steps);
	json_object_set_new(o, "answers", ans);
	json_object_set_new(o, "why_answers", whys);
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
			if (u->lab->steps[i].ask.kind == LQ_CHOICE)
				lab_judge(u->s, i, false);
		}
		s = json_string_value(json_object_get(json_object_get(o,
		    "why_answers"), id));
		if (s != NULL && u->state[i] != NOT_RUN) {
			snprintf(u->s->whyp[i].answer, sizeof u->s->whyp[i].answer,
			    "%s", s);
			u->s->whyp[i].answered = true;
			if (u->lab->steps[i].why.kind == LQ_CHOICE)
				lab_judge(u->s, i, true);
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
	u->mode = PR_NONE;
	if (u->lab->steps[i].ask.kind != LQ_NONE && !u->s->pred[i].answered)
		ask(u, NULL);
	else if (u->lab->steps[i].why.kind != LQ_NONE && u->state[i] != NOT_RUN &&
	    !u->s->whyp[i].answered)
		prompt(u, PR_WHY, NULL);
}

/* Read an answer of kind mode through the TUI's prompt (why: the reason
 * the last answer was refused, or NULL); ui.lock held. */
static void
prompt(struct ui *u, int mode, const char *why)
{
	const struct lstep	*st = &u->lab->steps[u->cur];
	const struct lask	*q = mode == PR_WHY ? &st->why : &st->ask;
	const char		*sep = why ? "; " : "";

	why = why ? why : "";
	u->mode = mode;
	send_pane(u);
	switch (mode) {
	case PR_ASK:
	case PR_WHY:
		if (q->kind == LQ_CHOICE)
			tui_send(u, "prompt %s%syour %s (a letter, a-%c):", why, sep,
			    mode == PR_ASK ? "prediction" : "answer",
			    'a' + q->nchoices - 1);
		else
			tui_send(u, "prompt %s%syour %s (a number):", why, sep,
			    mode == PR_ASK ? "prediction" : "answer");
		break;
	case PR_SHELL:
		tui_send(u, "prompt %s%sguest$", why, sep);
		break;
	case PR_AB_NEXT:
		/* no prompt: the keys stay live (views, q); Enter goes on */
		break;
	case PR_AB_IDENT:
		/* prompt+: another prompt follows the answer (lab-pane.c) */
		tui_send(u, "prompt+ %s%swhich guest had %s (X or Y)?", why, sep,
		    st->ab->what);
		break;
	case PR_AB_EV:
		tui_send(u, "prompt%s %s%s%s on guest %c (a number):",
		    u->ev + 1 < st->ab->nev || u->side == 0 ? "+" : "", why, sep,
		    st->ab->ev[u->ev].label, 'X' + u->side);
		break;
	}
}

/* The step's ask, if it waits for its answer; ui.lock held. */
static void
ask(struct ui *u, const char *why)
{
	prompt(u, PR_ASK, why);
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

/* The choice key (as in the lab file) of a letter typed for q, or 0. */
static char
choice_of(struct ui *u, const struct lask *q, const char *a)
{
	int	perm[26];

	if (a[0] < 'a' || a[0] >= 'a' + q->nchoices || a[1] != '\0')
		return 0;
	lab_choice_order(u->lab, &u->lab->steps[u->cur], q, perm);
	return q->choices[perm[a[0] - 'a']].key;
}

/* An answer to the step's ask or why; ui.lock held. */
static void
answer_question(struct ui *u, const char *a, bool why)
{
	const struct lstep	*st = &u->lab->steps[u->cur];
	const struct lask	*q = why ? &st->why : &st->ask;
	struct lpred		*p = why ? &u->s->whyp[u->cur] : &u->s->pred[u->cur];
	char			*end, k = 0;

	if (q->kind == LQ_CHOICE) {
		if ((k = choice_of(u, q, a)) == 0) {
			prompt(u, u->mode, "not one of the choices");
			return;
		}
	} else {
		strtod(a, &end);
		if (end == a || *end != '\0') {
			prompt(u, u->mode, "not a number");
			return;
		}
	}
	if (k != 0)
		snprintf(p->answer, sizeof p->answer, "%c", k);
	else
		snprintf(p->answer, sizeof p->answer, "%s", a);
	p->answered = true;
	p->judged = false;
	u->mode = PR_NONE;
	/* a choice is judged at once, its explanation shown, then the step
	 * runs; a number once the step ran (what happens is its answer) */
	if (why || q->kind == LQ_CHOICE)
		lab_judge(u->s, u->cur, why);
	if (why)
		send_pane(u);
	else
		run_current(u);
}

/* An ab step's answer: which guest, then each reading; ui.lock held. */
static void
answer_ab(struct ui *u, const char *a)
{
	const struct lab_ab	*ab = u->lab->steps[u->cur].ab;
	struct lab_abres	*r = &u->s->ab[u->cur];
	char			*end;
	double			 v;

	if (u->mode == PR_AB_IDENT) {
		if ((a[0] != 'X' && a[0] != 'x' && a[0] != 'Y' && a[0] != 'y') ||
		    a[1] != '\0') {
			prompt(u, PR_AB_IDENT, "X or Y");
			return;
		}
		r->ident = (char)(a[0] & ~0x20);
		u->ev = u->side = 0;
		prompt(u, PR_AB_EV, NULL);
		return;
	}
	v = strtod(a, &end);
	if (end == a || *end != '\0') {
		prompt(u, PR_AB_EV, "not a number");
		return;
	}
	r->ev[u->ev][u->side] = v;
	r->ev_given[u->ev][u->side] = true;
	if (++u->side == 2) {
		u->side = 0;
		u->ev++;
	}
	if (u->ev < ab->nev) {
		prompt(u, PR_AB_EV, NULL);
		return;
	}
	r->answered = true;
	u->mode = PR_NONE;
	u->resume = true;		/* the worker judges it */
	pthread_cond_broadcast(&u->cond);
}

/* An answer typed in the TUI, for whatever the prompt reads; ui.lock held. */
static void
answer(struct ui *u, const char *a)
{
	while (*a == ' ')
		a++;
	if (*a == '\0' && u->mode == PR_AB_NEXT) {
		u->mode = PR_NONE;		/* on to guest Y */
		u->resume = true;
		pthread_cond_broadcast(&u->cond);
		return;
	}
	if (*a == '\0') {
		/* cancelled: the keys work again (q quits); a shell or an ab
		 * step still waits, and Enter takes it up again */
		if (!u->waiting)
			u->mode = PR_NONE;
		send_pane(u);
		return;
	}
	switch (u->mode) {
	case PR_ASK:
		answer_question(u, a, false);
		break;
	case PR_WHY:
		answer_question(u, a, true);
		break;
	case PR_SHELL:
		if (strcmp(a, "done") == 0) {
			u->mode = PR_NONE;
			u->resume = true;
		} else if (u->shell_cmd == NULL)
			u->shell_cmd = xstrdup(a);
		pthread_cond_broadcast(&u->cond);
		break;
	case PR_AB_NEXT:
		break;
	case PR_AB_IDENT:
	case PR_AB_EV:
		answer_ab(u, a);
		break;
	default:
		break;
	}
}

/* One message from the TUI; ui.lock held. */
static void
tui_msg(struct ui *u, const char *m)
{
	const struct lstep	*st = &u->lab->steps[u->cur];
	const struct lpred	*p = &u->s->pred[u->cur];

	if (strcmp(m, "key enter") == 0) {
		if (u->mode == PR_AB_NEXT) {
			u->mode = PR_NONE;
			u->resume = true;
			pthread_cond_broadcast(&u->cond);
		} else if (u->mode == PR_SHELL || u->mode == PR_AB_IDENT ||
		    u->mode == PR_AB_EV)
			prompt(u, u->mode, NULL);
		else if (st->ask.kind != LQ_NONE && (!p->answered ||
		    (!u->exam && u->state[u->cur] == NOT_RUN)))
			ask(u, NULL);
		else if (st->why.kind != LQ_NONE && u->state[u->cur] != NOT_RUN &&
		    !u->s->whyp[u->cur].answered)
			prompt(u, PR_WHY, NULL);
		else
			run_current(u);
	} else if (u->waiting && (strcmp(m, "key next") == 0 ||
	    strcmp(m, "key back") == 0)) {
		tui_send(u, "say the step waits for you: %s", u->mode == PR_SHELL ?
		    "type 'done' when the goal is reached" : "answer first");
		prompt(u, u->mode, NULL);
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
		if (u->exam && u->mode == PR_ASK && p->answered)
			tui_send(u, "say exam mode: the prediction is locked");
		else
			answer(u, m + 7);
	} else if (strcmp(m, "answer") == 0)
		answer(u, "");
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
	u.s->on_goal = u_goal;
	u.s->on_ab_side = u_ab_side;
	u.s->on_boot = u_boot;
	u.s->arg = &u;
	u.book.sess = u.s;
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
