/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * lab.h - labs: the lab file (docs/labs.md), its expressions, and the
 * runner that steps through a lab on a real guest.
 *
 *   lab-file.c   parse a .lab file into struct lab (pure: no guest, no
 *                I/O beyond reading the file); errors name FILE:LINE
 *   lab-expr.c   the check expressions: parse, validate, evaluate
 *   lab-run.c    run steps on a named guest: commands, waits, checks
 *                (lab-run.h)
 *   lab-batch.c  run labs unattended, or hand one to lab-ui.c
 *                (lab-batch.h)
 *   lab-ui.c     the interactive runner (the TUI with its lab pane)
 *   lab-cat.c    find, load, list and check lab files (lab-cat.h)
 *   lab-state.c  the per-user results and progress (lab-state.h)
 *   lab-out.c    KTAP, JUnit XML and JSON results; 'umkit lab report'
 *   lab-ex.c, lab-exbuild.c  the exercises (lab-ex.h)
 * The command, uml/cmd-lab.c, parses options and calls these.
 */
#ifndef UMKIT_LAB_H
#define UMKIT_LAB_H

#include <stdbool.h>
#include <stdio.h>

#define LAB_ERR_LEN	320
/* The longest WORKLOAD or KEY of result(WORKLOAD.KEY), plus one. */
#define LAB_RESULT_NAME	64

/* ---- expressions (lab-expr.c) ------------------------------------------ */

enum lx_kind {
	LX_NUM,			/* a number */
	LX_SPEC,		/* a value read through the mirror (values.h) */
	LX_DELTA,		/* spec now minus spec at a mark */
	LX_RESULT,		/* NAME.KEY of a workload's result line */
	LX_BIN,			/* a op b, op one of + - * / */
	LX_MEDIAN,		/* the median of every NAME.KEY result line */
};

struct lexpr {
	enum lx_kind	 kind;
	double		 num;
	char		*spec;		/* LX_SPEC, LX_DELTA; LX_RESULT: NAME.KEY */
	char		*mark;		/* LX_DELTA: NULL = the step's start */
	char		 op;
	struct lexpr	*a, *b;
};

enum lcmp { LC_EQ, LC_NE, LC_LT, LC_LE, LC_GT, LC_GE, LC_WITHIN };

/* "left OP right", both expressions; "left within PCT% of right". */
struct lcond {
	struct lexpr	*left, *right;
	enum lcmp	 cmp;
	double		 pct;		/* LC_WITHIN */
	char		*text;		/* as written, for messages */
};

/*
 * Parse a comparison ("delta(vmstat.pgscan_kswapd) > 0").  Returns NULL
 * with a message in err (LAB_ERR_LEN) on a syntax error or a value spec
 * that values_check() refuses.
 */
struct lcond	*lcond_parse(const char *text, char *err);
/* Parse an expression alone (a number prediction's answer=). */
struct lexpr	*lexpr_parse(const char *text, char *err);
void		 lcond_free(struct lcond *);
void		 lexpr_free(struct lexpr *);
/* Call fn for every spec in e (and whether it sits inside a delta, with
 * its mark). */
void		 lexpr_specs(const struct lexpr *e,
		    void (*fn)(const char *spec, const char *mark, void *), void *);
const char	*lcmp_str(enum lcmp);
/*
 * Call fn for every {{EXPR}} of text in order: with the parsed
 * expression, or NULL and the parse error.  Returns -1 when a '{{' has
 * no '}}' (the rest is not walked), else 0.
 */
int		 lexpr_interp(const char *text, void (*fn)(const char *src,
		    const struct lexpr *e, const char *err, void *), void *);

/* Where an evaluation gets its values from. */
struct lenv {
	/* The value of spec now; 0, or -1 with err filled. */
	int	(*now)(void *arg, const char *spec, double *v, char *err);
	/* The value of spec at mark (NULL: step start); 0 or -1. */
	int	(*at)(void *arg, const char *spec, const char *mark, double *v,
		    char *err);
	/* NAME.KEY of the last result line workload NAME printed; 0 or -1. */
	int	(*result)(void *arg, const char *key, double *v, char *err);
	/* NAME.KEY of every such line, oldest first, at most max: how many
	 * (0: none), or -1 with err. */
	int	(*results)(void *arg, const char *key, double *v, int max,
		    char *err);
	void	*arg;
};

/* Evaluate; 0 with *v, or -1 with err. */
int	lexpr_eval(const struct lexpr *, const struct lenv *, double *v, char *err);
/* Evaluate a comparison: 1 true, 0 false, -1 error (err); *l and *r get
 * both sides' values when they could be computed. */
int	lcond_eval(const struct lcond *, const struct lenv *, double *l,
	    double *r, char *err);
/* Format a value the way messages and interpolation print it. */
void	lab_fmt_num(char *out, size_t n, double v);
/* Whether two expressions are the same tree. */
bool	lexpr_same(const struct lexpr *, const struct lexpr *);
/* The most result lines median() looks at. */
#define LAB_MEDIAN_MAX	256

/* ---- the lab file (lab-file.c) ----------------------------------------- */

enum lact_kind {
	LA_RUN,			/* foreground guest command */
	LA_BG,			/* background guest command */
	LA_WRITE,		/* write a guest file through the mirror */
	LA_WAIT,		/* until a condition holds */
	LA_SLEEP,
	LA_SHOW,		/* a line for the student, values interpolated */
	LA_MARK,		/* remember the values for delta(..., NAME) */
	LA_CHECK,
	LA_GDB,			/* gdb on the guest's kernel, a script, batch */
	LA_DRGN,		/* drgn --gens TARGET on the host (text) */
	LA_REPRO,		/* umkit reproduce SEED --quick on the host (text) */
};

struct lcheck {
	struct lcond	*cond;
	int		 points;
	bool		 student;	/* judges state the student built (goal) */
	bool		 exercise;	/* an exercise case's: the student's when
					   their work is graded (ex_build.student) */
	char		*fail;		/* message when it fails */
	char		*hint;
};

struct lact {
	enum lact_kind	 kind;
	int		 line;
	char		*text;		/* RUN/BG: command; WRITE: data; MARK: name;
					   SHOW: the line */
	char		*path;		/* WRITE: guest path; GDB: the script */
	double		 timeout_s;	/* RUN, WAIT, GDB; SLEEP: its length */
	int		 status;	/* RUN: the status wanted; -1 any */
	struct lcond	*cond;		/* WAIT */
	struct lcheck	 check;		/* CHECK */
};

enum lask_kind { LQ_NONE, LQ_CHOICE, LQ_NUMBER };

struct lchoice {
	char	 key;			/* 'a' .. as written */
	char	*text;
	char	*because;		/* why this choice is right or wrong */
};

/* The length of a sealed choice answer's hex digest (lab-key.c). */
#define LAB_SEAL_HEX	32

/* A question: 'ask' before the step runs, 'why' after it. */
struct lask {
	enum lask_kind	 kind;
	int		 line;
	char		*question;
	struct lchoice	*choices;
	int		 nchoices;
	char		 answer;	/* LQ_CHOICE: the right key; 0 when sealed */
	char		 sealed[LAB_SEAL_HEX + 1];	/* answer=#HEX, or "" */
	struct lexpr	*truth;		/* LQ_NUMBER: what happens */
	double		 tol;		/* LQ_NUMBER */
	bool		 tol_pct;
	int		 points;	/* default 1 */
	char		*explain;	/* shown once the answer is in */
};

struct lstep {
	char		*id;
	char		*title;
	int		 line;
	char		*text;		/* the '|' lines, joined by '\n' */
	char		*view;		/* NULL: keep the current one */
	char		*variant;	/* NULL: keep the running guest */
	char		**needs;	/* guest paths; the step skips without */
	int		 nneeds;
	struct lask	 ask;		/* before the run */
	struct lask	 why;		/* after the run */
	struct lact	*acts;
	int		 nacts;
	/*
	 * A student-built step: the actions before the 'goal' line set up,
	 * then the student works in a guest shell, then the actions from
	 * goal_at on judge what they built.  The 'solve' commands build it
	 * in batch runs (never shown to the student).
	 */
	char		*goal;		/* NULL: an ordinary step */
	int		 goal_at;
	char		**solve;
	int		 nsolve;
	/* A blind A/B step: 'ab' (lab-file.c). */
	struct lab_ab	*ab;
};

/*
 * ab PATH V1 V2 [points=N] WHAT: the step's actions run twice, on
 * guests X and Y booted afresh, with PATH written V1 on one and V2 on
 * the other, which one a per-student draw decides and the student must
 * find out; 'evidence [tolerance=T] [points=N] LABEL = EXPR' lines name
 * a value each guest shows, which the student reads off the views.
 */
/* The most evidence lines of an ab step. */
#define LAB_AB_MAX_EV	4

struct lab_evidence {
	char		*label;
	struct lexpr	*expr;
	double		 tol;
	bool		 tol_pct;
	int		 points;
	int		 line;
};

struct lab_ab {
	char		*path;		/* the switch, under /proc or /sys */
	char		*value[2];	/* V1, V2 */
	char		*what;		/* what V1 means: "the batched path" */
	int		 points;	/* for telling them apart */
	struct lab_evidence *ev;
	int		 nev;
	int		 line;
};

/* param NAME = choice(A, B, ...) | range(LO, HI, STEP): a per-student value. */
struct lparam {
	char		*name;
	char		*value;		/* drawn for this student */
	char		**pool;		/* every value it can take */
	int		 npool;
};

/*
 * A grader case of an exercise (docs/labs.md, Exercises): "case ID
 * [timeout=S] [status=N|any] [points=N] COMMAND" and its "expect
 * CONDITION" lines, each with its fail and hint.  The parser makes each
 * case a step of its own at the end of the lab (struct lexercise.step0).
 */
struct lexpect {
	char		*cond;		/* as written; 'status' is the exit status */
	char		*fail, *hint;
	int		 line;
};

struct lcase {
	char		*id;
	char		*command;	/* a guest command (sh -c) */
	double		 timeout_s;	/* 0: the run default */
	int		 status;	/* the exit status wanted; -1 any */
	int		 points;	/* of each of its checks */
	int		 line;
	struct lexpect	*expects;
	int		 nexpects;
};

#define LAB_MAX_EXERCISES	16	/* per lab */
#define LAB_MAX_CASES		64	/* per exercise */
#define LAB_MAX_EXPECTS		16	/* per case */
#define LAB_EX_ID		24	/* the longest exercise or case id */

/*
 * exercise [id=ID] [level=L] [variant=V] program FILE.c, or ... kernel
 * VARIANT PATH FUNCTION TODO-TEXT: something the student writes
 * (lab-ex.h builds and grades it).
 */
struct lexercise {
	char		*id;		/* --exercise-id; default the program's name
					   or the kernel function's */
	char		*level;		/* beginner|intermediate|advanced; default
					   the lab's (NULL without one) */
	enum { LEX_PROGRAM, LEX_KERNEL } kind;
	int		 line;
	char		*file;		/* program: the solution, beside the lab */
	char		*prog;		/* program: its name in the guest
					   (04-twothreads.c: twothreads) */
	char		*variant;	/* kernel: the variant; both: the one its
					   cases boot (NULL: the running guest) */
	char		*path, *func, *todo;	/* kernel */
	struct lcase	*cases;
	int		 ncases;
	int		 step0;		/* its cases are steps step0 .. +ncases-1 */
	/* Its case steps while another exercise is graded (ex_pick(),
	 * lab-ex.h): out of the lab's steps, freed with the lab. */
	struct lstep	*dropped;
	int		 ndropped;
};

struct lab {
	char		*path;		/* the .lab file */
	char		*name;		/* its basename without .lab */
	char		*title;
	int		 minutes;
	char		*level;
	char		**variants;	/* at least one; the first boots first */
	int		 nvariants;
	long		 mem_mb;
	int		 cpus;
	long		 disk_mb;	/* -1: the launcher's default */
	char		*seed;		/* "000".."004" or NULL */
	char		*doc;		/* the .md background, path */
	char		*intro;		/* header '|' lines */
	char		**needs;
	int		 nneeds;
	struct lstep	*steps;
	int		 nsteps;
	struct lparam	*params;
	int		 nparams;
	char		*student;	/* whose params these are */
	char		*warns;		/* "FILE:LINE: warning: ..." lines, or NULL */
	/* the exercise lines, in the order written (lab-ex.h) */
	struct lexercise *exercises;
	int		  nexercises;
};

/*
 * Context for validation: where variants live (patches/), views the TUI
 * has.  NULL fields skip that check (the fuzzer, unit tests).
 */
struct lab_env {
	const char	*patches_dir;
	const char	*own_patches_dir;	/* the user's own variants, or NULL */
	/*
	 * gdb steps run gdb scripts, which can run shell commands and
	 * python: only labs in this directory (the kit's own labs) may have
	 * them, unless trust_all (umkit lab --trust).  NULL: not checked.
	 */
	const char	*trusted_dir;
	bool		 trust_all;
	/*
	 * The keys of the kit's kernels, "vmstat KEY" and "meminfo KEY",
	 * sorted (labs/kernel-keys); NULL: vmstat.KEY and meminfo.KEY are
	 * not checked against them.
	 */
	char		**keys;
	int		  nkeys;
	/* Whose numbers the params draw (NULL: the user, lab_student()). */
	const char	*student;
};

/*
 * Read a kernel-keys file into env (sorted); -1 with a message naming
 * path:line in err when it cannot be read or a line is malformed.
 */
int		 lab_keys_load(const char *path, struct lab_env *, char *err, size_t);

/*
 * Parse and validate a lab file.  Returns NULL with every problem found
 * (one "FILE:LINE: message" per line, at most a screenful) in *errs
 * (allocated; caller frees).
 */
struct lab	*lab_load(const char *path, const struct lab_env *, char **errs);
/* The same from text in memory (path is used in messages only). */
struct lab	*lab_parse(const char *path, const char *text, size_t len,
		    const struct lab_env *, char **errs);
void		 lab_free(struct lab *);
/* Total points of the lab's checks, and the number of checks. */
int		 lab_points(const struct lab *, int *nchecks);
/* Points from the student (questions, goal checks, A/B) and from the
 * kit's own checks. */
void		 lab_points_split(const struct lab *, int *student, int *kit);
/* Whether s is a sealed explanation, "#HEX" (lab-key.c). */
bool		 lab_sealed_text(const char *s);
/* The student: --student, else $UMKIT_STUDENT, else the user's name. */
const char	*lab_student(void);
/* A per-student draw: a 64-bit value from the student, the lab's name
 * and a purpose (a step id, a param name). */
unsigned long long lab_draw(const char *student, const char *lab,
		    const char *what);
/* The order choices of q are shown in for this student: perm[i] is the
 * index (in q->choices) of the i-th shown. */
void		 lab_choice_order(const struct lab *, const struct lstep *,
		    const struct lask *, int *perm);
/* The TUI's view names, for validation. */
extern const char *const lab_views[];

/* Whether name may name a lab: [A-Za-z0-9._-], not starting with '.'. */
bool	 lab_name_ok(const char *name);
/* Whether a write action's path is a plain path under /proc or /sys. */
bool	 lab_write_path_ok(const char *path);

#endif
