/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tui.h - the pieces of umkit-tui shared between tui.c, the views and the
 * helpers: the data source (a root directory, live mirror or recording),
 * the drawing canvas, and the view interface.
 */
#ifndef UMKIT_TUI_H
#define UMKIT_TUI_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "parse.h"
#include "recfmt.h"

/* ---- source.c ----------------------------------------------------------- */

enum src_kind {
	SRC_DIR,		/* any directory tree (fixtures) */
	SRC_LIVE,		/* a FUSE mirror of a running guest */
	SRC_HOST,		/* "/" of the machine itself */
	SRC_RECORDING,		/* a directory written by umkit record */
};

struct source {
	enum src_kind	 kind;
	char		*root;		/* as given on the command line */
	int		 dirfd;		/* the tree files are read from */
	struct rec_snap	*snaps;		/* recordings: the index, in time order */
	int		 nsnaps, cur;
	char		 err[200];	/* first error since source_tick() */
	int		 err_errno;
	/* Called with each root-relative path read (tests); may be NULL. */
	void		(*on_read)(const char *rel, void *arg);
	void		*on_read_arg;
};

/* Open root (a directory; a recording when it holds umkit-recording).
 * Exits through fatal() when root cannot be used at all. */
void	source_open(struct source *, const char *root);
/* Release what source_open took. */
void	source_close(struct source *);
/* Forget the errors of the previous update. */
void	source_tick(struct source *);
/* Read all of root-relative file rel into out with one read loop.
 * Returns 0, or -errno (the error is also recorded for the status line,
 * except ENOENT which views report themselves). */
int	source_read(struct source *, const char *rel, struct buf *out);
/* Read up to len bytes of rel from offset off (binary files). */
int	source_pread(struct source *, const char *rel, off_t off, size_t len,
	    struct buf *out);
/* Call fn for each entry name of directory rel; returns -errno or 0. */
int	source_list(struct source *, const char *rel,
	    void (*fn)(const char *name, void *arg), void *arg);
/* Recordings: move delta snapshots (clamped); 1 when the position moved. */
int	source_step(struct source *, int delta);
/* The time of the data in ms: elapsed time of the current snapshot for a
 * recording, the monotonic clock otherwise. */
double	source_now_ms(const struct source *);
/* One-line description for the status line ("live run/x/mnt", ...). */
void	source_label(const struct source *, char *out, size_t n);

/* ---- draw.c ------------------------------------------------------------- */

/* Logical colours; each has a monochrome rendering. */
enum {
	C_NORM, C_TITLE, C_DIM, C_ANON, C_FILE, C_FREE, C_MOVABLE, C_UNMOVABLE,
	C_HOLE, C_MIGRATE, C_FREESCAN, C_WARN, C_GOOD, C_STATUS, C_TAB, C_TABSEL,
	C_MARK, C_MIGPASS, C_FREEPASS, C_COUNT
};

struct cell {
	char		ch[4];		/* one UTF-8 character */
	unsigned char	len, attr;
};

/* What the whole terminal shows; curses and --dump both render it. */
struct canvas {
	int		 cols, rows;
	struct cell	*c;
};

/* A rectangle of the canvas that a view draws into, with scrolling:
 * views draw virtual line numbers; line - scroll lands on screen. */
struct frame {
	struct canvas	*cv;
	int		 x, y, w, h;
	int		 scroll;
	int		 lines;		/* 1 + highest line drawn */
};

struct ui_caps {
	bool	utf8;		/* block characters allowed */
	bool	color;		/* colours allowed (else attributes only) */
	bool	ambiwide;	/* the terminal draws East Asian "ambiguous"
				 * characters (· ▒ █ ─ │) two columns wide */
};
extern struct ui_caps ui;

/* Resize (and clear) the canvas. */
void	cv_resize(struct canvas *, int cols, int rows);
/* Blank every cell. */
void	cv_clear(struct canvas *);
/* Write UTF-8 text at (y, x), clipped before column xmax; returns the
 * column after the text. */
int	cv_text(struct canvas *, int y, int x, int xmax, int attr, const char *s);
/* Print the canvas as plain text, trailing blanks trimmed (--dump). */
void	cv_dump(const struct canvas *, FILE *);
/* Copy the canvas to the curses screen (call refresh() after): one
 * terminal column per cell, whatever the text (a character the terminal
 * would draw wider or narrower goes as ASCII or '?'). */
void	cv_blit(const struct canvas *);
/* Before curses: whether the terminal on in/out draws an East Asian
 * "ambiguous" character two columns wide (asked with a cursor position
 * report; no answer: false). */
bool	term_ambiguous_wide(int in, int out);
/* Set up colour pairs (after start_color) or monochrome attributes. */
void	draw_init_curses(void);

/* Text at virtual line / column of a frame, clipped to the frame on
 * every side; returns the next column. */
int	fr_text(struct frame *, int line, int col, int attr, const char *s);
/* printf at virtual line / column of a frame. */
int	fr_printf(struct frame *, int line, int col, int attr, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* A bar of width columns filled to frac (0..1): eighth blocks in UTF-8,
 * '#' in ASCII. */
void	fr_bar(struct frame *, int line, int col, int width, double frac, int attr);
/* A sparkline of the last n values (scaled to their max) in width columns. */
void	fr_spark(struct frame *, int line, int col, int width, const double *v,
	    int n, int attr);
/* The UTF-8 glyph, or the ASCII one when UTF-8 is off. */
const char *glyph(const char *utf8, const char *ascii);
/* Format a count compactly: 999, 12.3k, 4.56M, 7.8G. */
void	fmt_count(char *out, size_t n, double v);
/* Format pages as a size: 4 kB pages -> "12.3M". */
void	fmt_pages(char *out, size_t n, double pages);

/* ---- rates -------------------------------------------------------------- */

/* A counter's rate per second between successive samples. */
struct rate {
	u64	prev;
	double	prev_ms;
	double	per_s;
	bool	have_prev, valid;
};
/* Feed a new sample; jumped (time went backwards / restarted) resets. */
void	rate_feed(struct rate *, u64 val, double now_ms, bool jumped);

/* ---- lab-pane.c: the lab pane ------------------------------------------ */

/* Text from FILE (re-read on every update) or the lab runner's socket. */
void	lab_pane_init(const char *file, int fd);
bool	lab_pane_on(void);
/* The runner's socket while it is there, else -1. */
int	lab_pane_fd(void);
void	lab_pane_update(void);
/* Read the runner's messages; true when the pane or a request changed. */
bool	lab_pane_read(void);
/* Requests of the runner, each returned once: a view, a status message,
 * reopening the root. */
const char *lab_pane_take_view(void);
const char *lab_pane_take_say(void);
bool	lab_pane_take_reopen(void);
/* The answer being typed, for the status line; NULL when not asking or
 * when the pane (pane_shown: it is on the screen) shows it. */
const char *lab_pane_prompt(bool pane_shown);
/* Typed answers, and the lab keys (Enter, n, b, H, j, k) when the pane
 * is shown; true: consumed. */
bool	lab_pane_key(int ch, bool pane_shown);
void	lab_pane_draw(struct frame *);

/* ---- views -------------------------------------------------------------- */

struct ctx {
	struct source	*src;
	double		 now_ms;	/* time of the data */
	bool		 jumped;	/* time discontinuity: forget history */
};

/* One screen of the TUI; all state is private to its file. */
struct view {
	const char	*name;		/* --view NAME */
	const char	*title;
	void		(*init)(void);
	void		(*update)(struct ctx *);	/* read files */
	void		(*draw)(struct frame *);
	int		(*key)(int ch);			/* 1: consumed */
	/* Optional: advance what the view animates (a replay playing) to
	 * wall-clock time now_ms (the monotonic clock, in ms); sets *changed
	 * when the frame must be drawn again, and returns the wall time of
	 * its next change, or a negative value when nothing is due. */
	double		(*tick)(double now_ms, bool *changed);
	const char	*help;		/* one line, then its keys, '\n' between */
	/* Every root-relative file update() may read, as glob patterns,
	 * NULL-terminated: uml/link/record.files must keep them all
	 * (test-view-files checks both against what the view reads). */
	const char *const *files;
};

extern const struct view view_lru, view_compact, view_counters,
	view_overview, view_help;

/* view-compact.c: replay run number run (1-based; 0: the last run in
 * the trace buffer) from its event number event (1-based), paused, on
 * the trace the last update read.  Returns NULL, or what is wrong ("run
 * 3: the trace buffer has 1 run"). */
const char *compact_replay_start(int run, int event);

/* The data views in key order (1..4), defined in views.c. */
extern const struct view *const data_views[];
extern const int ndata_views;

#endif
