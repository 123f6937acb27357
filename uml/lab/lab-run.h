/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * lab-run.h - a lab session: one guest, the steps run on it, their
 * results.  Shared by the batch runner, the interactive runner and the
 * result writers (lab-out.c).
 */
#ifndef UMKIT_LAB_RUN_H
#define UMKIT_LAB_RUN_H

#include <signal.h>
#include <stdbool.h>

#include "lab.h"

#define LAB_MAX_OUTS	16	/* foreground outputs kept for result() */
#define LAB_MAX_BG	16	/* background commands at once */

struct values;
struct ex_build;
struct lab_gdb;

enum lres_state { LR_PASS, LR_FAIL, LR_SKIP };

/* One check's (or failed action's) outcome. */
struct lres {
	const struct lstep	*step;
	const struct lact	*act;		/* the check or the failed action */
	enum lres_state		 state;
	double			 left, right;	/* both sides, when computed */
	int			 points, got;
	char			 msg[LAB_ERR_LEN + 128];
};

/* A student's answer to a question (ask or why) of a step. */
struct lpred {
	bool	 answered, judged, right;
	char	 answer[64];		/* a choice: its letter in the lab file */
	double	 truth;
	char	 truth_err[LAB_ERR_LEN];
	int	 points, got;
};

/* A blind A/B step's two sides and what the student said of them. */
struct lab_abres {
	bool	 ran;			/* both sides ran */
	int	 v1_side;		/* 0: guest X had V1; 1: guest Y */
	double	 val[LAB_AB_MAX_EV][2];	/* each evidence on X and Y */
	bool	 have[LAB_AB_MAX_EV][2];
	bool	 answered;
	char	 ident;			/* the guest the student says had V1 */
	double	 ev[LAB_AB_MAX_EV][2];	/* the student's readings */
	bool	 ev_given[LAB_AB_MAX_EV][2];
	int	 points, got;
};

/* What the student typed in a goal step's guest shell. */
#define LAB_TYPED_MAX	200
struct lab_typed {
	char	**cmd;
	int	  n;
};

/* How a run answers the student's part by itself: make test proves a
 * lab gradable (right) and its graders strict (wrong). */
enum lab_auto { LAB_AUTO_NONE, LAB_AUTO_RIGHT, LAB_AUTO_WRONG };

/* A value saved at a mark (or the step's start, mark ""). */
struct lmark {
	char	*spec, *mark;
	bool	 ok;
	double	 v;
	char	 err[LAB_ERR_LEN];
};

struct lbg {
	long	 pid;		/* its process group in the guest */
	char	 out[64];	/* its output file in the guest */
};

struct lab_sess {
	struct lab	*lab;
	char		*gname;		/* the guest's name (run/NAME) */
	char		*root;		/* its mirror, run/NAME/mnt */
	char		*variant;	/* the variant running, NULL before boot */
	bool		 up;
	double		 slow;		/* timeouts are multiplied by it */
	volatile sig_atomic_t *stop;	/* set: stop at the next action */
	char		 fatal[LAB_ERR_LEN];	/* the guest died: why */
	char		 step_err[LAB_ERR_LEN + 512];	/* why the step stopped */
	int		 nerrors;	/* step failures no check carried */
	int		 cur;		/* the step running or last run */

	struct values	*vals;		/* the mirror's values (values.h) */
	const struct ex_build *ex;	/* the exercise, or NULL (lab-ex.h) */
	/* Base steps run on this kernel; steps on other variants and gdb
	 * steps are skipped (umkit smoke's patched kernel); or NULL. */
	const char	*base_kernel;
	struct lmark	*marks;
	int		 nmarks;
	char		*outs[LAB_MAX_OUTS];	/* recent foreground stdout */
	int		 nouts;
	struct lbg	 bg[LAB_MAX_BG];
	int		 nbg, bgseq;
	struct lpred	*pred;		/* per step: its ask */
	struct lpred	*whyp;		/* per step: its why */
	struct lab_abres *ab;		/* per step: an ab step's sides */
	struct lab_typed *typed;	/* per step: a goal step's commands */
	enum lab_auto	 autoans;
	struct lab_gdb	*gdb;		/* a gdb action's gdb, while it runs */
	int		 nfailed;	/* results that failed, ever */

	/* The runner's sinks; all must be set. */
	void	(*on_step)(struct lab_sess *, int step);
	void	(*on_result)(struct lab_sess *, const struct lres *);
	void	(*log_line)(struct lab_sess *, const char *fmt, ...)
		    __attribute__((format(printf, 2, 3)));
	void	(*log_output)(struct lab_sess *, const char *out, const char *err);
	/* A step stopped and no check was left to carry the reason. */
	void	(*on_error)(struct lab_sess *, const char *why);
	/*
	 * Optional.  A goal step's set-up ran: let the student build the
	 * state (0), or stop (-1).  NULL: the lab's solve lines build it
	 * (not with LAB_AUTO_WRONG).
	 */
	int	(*on_goal)(struct lab_sess *, int step);
	/* Optional.  A guest booted (the mirror is a new one). */
	void	(*on_boot)(struct lab_sess *);
	/* Optional.  Side (0 X, 1 Y) of an ab step ran; 0 goes on, -1 stops. */
	int	(*on_ab_side)(struct lab_sess *, int step, int side);
	void	*arg;
};


/* A session on guest gname (not booted yet); slow scales timeouts. */
struct lab_sess	*lab_sess_new(struct lab *, const char *gname, double slow);
/* Stop background commands and the guest, free the session. */
void		 lab_sess_free(struct lab_sess *);
/*
 * Run step i: boot (or reboot into the step's variant) when needed, skip
 * it when the guest lacks what it needs, run its actions, report every
 * check through on_result.  Returns LR_PASS, LR_FAIL or LR_SKIP.
 */
enum lres_state	 lab_step_run(struct lab_sess *, int i);
/* Boot the session's guest on variant (stopping another one first). */
int		 lab_guest_up(struct lab_sess *, const char *variant);
void		 lab_guest_down(struct lab_sess *);
/* Stop the background commands started so far. */
void		 lab_bg_stop(struct lab_sess *);
/* Run argv in the session's guest, capturing stdout and stderr. */
int		 lab_guest_exec(struct lab_sess *, char *const argv[], int timeout_s,
		    char **out, char **err, int *status);
/* Run a shell command the student typed in a goal step (kept for the
 * result file); its output goes to log_output.  0, or -1. */
int		 lab_goal_command(struct lab_sess *, int step, const char *cmd);
/* Judge an answer now (an ab step's or a why's, once given): fills p. */
void		 lab_judge(struct lab_sess *, int step, bool why);
/* Judge an ab step's answers. */
void		 lab_ab_judge(struct lab_sess *, int step);
/* The right key of a choice question (sealed ones too), or 0. */
char		 lab_right_key(const struct lab *, const struct lstep *,
		    const struct lask *);
/* The explanation of q (label "explain") or of its choice key (label
 * "a" ...), unsealed; NULL when there is none.  Allocated. */
char		*lab_explain(const struct lab *, const struct lstep *,
		    const struct lask *, char key);

#endif
