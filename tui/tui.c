/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tui.c - umkit-tui: main, the key and update loop, the tab bar, the
 * status line, the layout (view + optional lab pane), --dump, and the
 * terminal restored on exit, fatal error or signal.
 *
 *   umkit-tui [--root DIR] [--view NAME] [--dump[=VIEW]] [--interval MS]
 *             [--cols N --rows N] [--ascii] [--lab-pane FILE | --lab-fd N]
 *             [--replay-at [RUN:]EVENT]
 *
 * --lab-fd is how 'umkit lab' drives it (uml/tuiexec.c): the lab pane's
 * text and the runner's keys travel on that socket (tui/lab-pane.c).
 */
#include <curses.h>
#include <errno.h>
#include <getopt.h>
#include <langinfo.h>
#include <locale.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tui.h"
#include "util.h"

static const int intervals[] = { 100, 200, 500, 1000, 2000, 5000, 10000 };
#define NINTERVALS (int)(sizeof(intervals) / sizeof(intervals[0]))

static struct {
	struct source	 src;
	struct canvas	 cv;
	const struct view *view, *back;	/* back: the view help returns to */
	int		 interval_ms;
	bool		 paused;
	int		 scroll[8];		/* per view */
	bool		 curses_on;
	char		 msg[160];		/* transient status message */
	double		 msg_until;
	double		 updated_at;		/* wall time of the last update */
	double		 update_ms;		/* cost of the last update */
	bool		 lab_shown;		/* the lab pane (lab-pane.c) */
	bool		 lab_runner;		/* --lab-fd: 'umkit lab' drives it */
} T;

static volatile sig_atomic_t quit_signal;

/* Leave curses mode if it is on (idempotent; used by fatal and atexit). */
static void
end_curses(void)
{
	if (T.curses_on) {
		T.curses_on = false;
		endwin();
	}
}

/* SIGINT/SIGTERM/SIGHUP: note it; the loop restores the terminal. */
static void
on_signal(int sig)
{
	quit_signal = sig;
}

/* Index of a view in data_views, or -1 (help). */
static int
view_index(const struct view *v)
{
	for (int i = 0; i < ndata_views; i++)
		if (data_views[i] == v)
			return i;
	return -1;
}

/* Find a view by --view / --dump name (prefixes allowed). */
static const struct view *
view_by_name(const char *name)
{
	size_t	n = strlen(name);

	if (!strncmp(name, "help", n) && n)
		return &view_help;
	for (int i = 0; i < ndata_views; i++)
		if (n && !strncmp(data_views[i]->name, name, n))
			return data_views[i];
	if (n == 1 && name[0] >= '1' && name[0] <= '4')
		return data_views[name[0] - '1'];
	fatalx("unknown view '%s' (lru, compaction, counters, overview, help)", name);
}

/* Read the files of the current view (and the lab pane's file). */
static void
update(bool jumped)
{
	struct ctx	c = { .src = &T.src, .jumped = jumped };
	double		t0 = now_us() / 1e3;

	source_tick(&T.src);
	c.now_ms = source_now_ms(&T.src);
	T.view->update(&c);
	lab_pane_update();
	T.updated_at = now_us() / 1e3;
	T.update_ms = T.updated_at - t0;
}

/* Switch views; the new view reads its files at once. */
static void
switch_view(const struct view *v)
{
	if (v == T.view)
		return;
	if (v == &view_help)
		T.back = T.view;
	T.view = v;
	update(false);
}

/* Set a message shown in the status line for a few seconds. */
static void
say(const char *msg)
{
	snprintf(T.msg, sizeof(T.msg), "%s", msg);
	T.msg_until = now_us() / 1e3 + 3000;
}

/* Tab bar: the views, the current one highlighted. */
static void
draw_tabs(struct canvas *cv)
{
	int	x = 0;

	for (int i = 0; i < cv->cols; i++)
		cv_text(cv, 0, i, cv->cols, C_TAB, " ");
	x = cv_text(cv, 0, x, cv->cols, C_TAB, " umkit ");
	for (int i = 0; i < ndata_views; i++) {
		char	t[48];

		snprintf(t, sizeof(t), " %d %s ", i + 1, data_views[i]->title);
		x = cv_text(cv, 0, x, cv->cols, data_views[i] == T.view ? C_TABSEL : C_TAB, t);
	}
	cv_text(cv, 0, x, cv->cols, T.view == &view_help ? C_TABSEL : C_TAB, " ? Help ");
}

/* Status line: source, refresh rate, state, errors; the answer being
 * typed when the lab pane (pane: drawn in this frame) does not show it. */
static void
draw_status(struct canvas *cv, double now, bool pane)
{
	const char	*prompt = lab_pane_prompt(pane);
	char		 src[160], line[512], rate[48];
	int		 y = cv->rows - 1, x;

	for (int i = 0; i < cv->cols; i++)
		cv_text(cv, y, i, cv->cols, C_STATUS, " ");
	source_label(&T.src, src, sizeof(src));
	if (T.src.kind == SRC_RECORDING)
		snprintf(rate, sizeof(rate), "%s every %dms", T.paused ? "stopped" : "playing",
		    T.interval_ms);
	else
		snprintf(rate, sizeof(rate), "%s%dms", T.paused ? "PAUSED " : "every ",
		    T.interval_ms);
	/* An error must fit: a long root path gives way, the source's kind
	 * ("live", the label's first word) and the path's end kept. */
	if (T.src.err[0] && !prompt && !(T.msg[0] && now < T.msg_until)) {
		int	room = cv->cols - 17 - (int)strlen(T.src.err) - (int)strlen(rate) - 5;
		int	len = (int)strlen(src),
		    kind = (int)strcspn(src, " ") + 1;

		if (kind > len || kind > 12)
			kind = 0;
		if (room < kind + 12)
			room = kind + 12;
		if (len > room) {
			int	keep = room - kind - 3;

			memmove(src + kind + 3, src + len - keep, (size_t)keep + 1);
			memcpy(src + kind, "...", 3);
		}
	}
	snprintf(line, sizeof(line), " %s | %s ", src, rate);
	x = cv_text(cv, y, 0, cv->cols, C_STATUS, line);
	if (prompt)
		x = cv_text(cv, y, x, cv->cols, C_MARK, prompt);
	else if (T.msg[0] && now < T.msg_until)
		x = cv_text(cv, y, x, cv->cols, C_STATUS, T.msg);
	else if (T.src.err[0])
		x = cv_text(cv, y, x, cv->cols, C_WARN, T.src.err);
	if (x <= cv->cols - 17)
		cv_text(cv, y, cv->cols - 16, cv->cols, C_STATUS, " F1 help  q quit");
}

/* Lay out and draw one frame into the canvas. */
static void
render(void)
{
	struct canvas	*cv = &T.cv;
	struct frame	 f = { .cv = cv, .x = 0, .y = 1, .w = cv->cols, .h = cv->rows - 2 };
	int		 vi = view_index(T.view),
	    *scroll = &T.scroll[vi < 0 ? 7 : vi];
	bool		 pane = false;

	cv_clear(cv);
	draw_tabs(cv);
	if (lab_pane_on() && T.lab_shown && (cv->cols >= 120 || f.h >= 3)) {
		/* beside the view when wide, below it otherwise (when the
		 * view keeps a row); the lab runner's pane holds more, so it
		 * gets more room */
		struct frame	lf = f;

		if (cv->cols >= 120) {
			lf.w = T.lab_runner ? (cv->cols * 2 / 5 > 64 ? 64 : cv->cols * 2 / 5) : 40;
			f.w = cv->cols - lf.w - 1;
			lf.x = f.w + 1;
			for (int y = f.y; y < f.y + f.h; y++)
				cv_text(cv, y, f.w, cv->cols, C_DIM, glyph("│", "|"));
		} else {
			lf.h = T.lab_runner ? f.h / 2 : f.h / 3;
			f.h -= lf.h + 1;
			lf.y = f.y + f.h + 1;
			for (int x = 0; x < cv->cols; x++)
				cv_text(cv, f.y + f.h, x, cv->cols, C_DIM, glyph("─", "-"));
		}
		lab_pane_draw(&lf);
		pane = true;
	}
	if (f.h < 1)
		f.h = 1;
	f.scroll = *scroll;
	T.view->draw(&f);
	if (f.scroll > 0 && f.scroll > f.lines - f.h) {
		/* scrolled past the end (view shrank or resized): clamp, redraw */
		*scroll = f.lines - f.h > 0 ? f.lines - f.h : 0;
		render();
		return;
	}
	draw_status(cv, now_us() / 1e3, pane);
}

/* Render and put on the terminal. */
static void
show(void)
{
	render();
	cv_blit(&T.cv);
	refresh();
}

/* Scroll the current view by delta lines (INT_MIN/MAX: home/end). */
static void
scroll_by(int delta)
{
	int	vi = view_index(T.view), *s = &T.scroll[vi < 0 ? 7 : vi];
	long	v = (long)*s + delta;

	*s = v < 0 ? 0 : v > 1000000 ? 1000000 : (int)v;
}

/* Handle one key; returns false to quit. */
static bool
key(int ch)
{
	int	page = T.cv.rows - 3 > 1 ? T.cv.rows - 3 : 1;

	if (lab_pane_key(ch, T.lab_shown))
		return true;
	if (T.view->key(ch))
		return update(false), true;
	switch (ch) {
	case 'q':
	case 'Q':
		return false;
	case KEY_F(1):
	case '?':
	case 'h':
		switch_view(T.view == &view_help ? T.back : &view_help);
		break;
	case 27:	/* Esc */
		if (T.view == &view_help)
			switch_view(T.back);
		break;
	case '\t':
		switch_view(data_views[(view_index(T.view) + 1) % ndata_views]);
		break;
	case KEY_BTAB:
		switch_view(data_views[(view_index(T.view) + ndata_views - 1) % ndata_views]);
		break;
	case '1': case '2': case '3': case '4':
		switch_view(data_views[ch - '1']);
		break;
	case 'p':
	case ' ':
		T.paused = !T.paused;
		say(T.paused ? (T.src.kind == SRC_RECORDING ? "stopped" : "paused")
		    : (T.src.kind == SRC_RECORDING ? "playing" : "running"));
		break;
	case '+':
	case '=':
	case '-':
	case '_': {
		int	i = 0;

		while (i < NINTERVALS - 1 && intervals[i] < T.interval_ms)
			i++;
		i += (ch == '+' || ch == '=') ? 1 : -1;
		i = i < 0 ? 0 : i >= NINTERVALS ? NINTERVALS - 1 : i;
		T.interval_ms = intervals[i];
		break;
	}
	case 'r':
		update(false);
		break;
	case KEY_UP: scroll_by(-1); break;
	case KEY_DOWN: scroll_by(1); break;
	case KEY_PPAGE: scroll_by(-page); break;
	case KEY_NPAGE: scroll_by(page); break;
	case KEY_HOME: scroll_by(-1000000); break;
	case KEY_END: scroll_by(1000000); break;
	case '[':
	case KEY_LEFT:
	case ']':
	case KEY_RIGHT: {
		int	d = (ch == '[' || ch == KEY_LEFT) ? -1 : 1;

		if (T.src.kind != SRC_RECORDING) {
			say("not a recording: nothing to step through");
		} else if (source_step(&T.src, d)) {
			/* going back: rebuild rates from the snapshot before */
			if (d < 0 && T.src.cur > 0) {
				source_step(&T.src, -1);
				update(true);
				source_step(&T.src, 1);
				update(false);
			} else {
				update(d < 0);
			}
		} else {
			say(d < 0 ? "at the first snapshot" : "at the last snapshot");
		}
		break;
	}
	case 'L':
		if (!lab_pane_on())
			say("no lab pane: start with --lab-pane FILE (the lab runner writes it)");
		else
			T.lab_shown = !T.lab_shown;
		break;
	case KEY_RESIZE:
		break;
	default:
		return true;
	}
	return true;
}

/* Apply what the lab runner asked for: a view, a message, a reopened
 * root (the guest was rebooted), then redraw. */
static void
lab_runner_messages(void)
{
	const char	*v = lab_pane_take_view(), *m = lab_pane_take_say();

	if (lab_pane_take_reopen()) {
		char	*root = xstrdup(T.src.root);

		source_close(&T.src);
		source_open(&T.src, root);
		free(root);
		update(true);
	}
	if (v != NULL)
		switch_view(view_by_name(v));
	if (m != NULL)
		say(m);
	show();
}

/* Size the canvas to the terminal. */
static void
fit_canvas(void)
{
	int	rows, cols;

	getmaxyx(stdscr, rows, cols);
	cv_resize(&T.cv, cols, rows);
}

/* Enter curses (restored by end_curses on every exit path), set up colour
 * or its monochrome fallback, and size the canvas to the terminal. */
static void
start_curses(void)
{
	fatal_set_cleanup(end_curses);
	/* a terminal that draws the strip's and the bars' glyphs two
	 * columns wide gets ASCII (cv_blit then keeps texts' ambiguous
	 * characters out too): each cell must stay one column */
	if (ui.utf8 && term_ambiguous_wide(0, 1)) {
		ui.utf8 = false;
		ui.ambiwide = true;
	}
	if (!initscr())
		fatalx("cannot initialise the terminal");
	T.curses_on = true;
	curs_set(0);
	if (ui.color && has_colors()) {
		start_color();
		use_default_colors();
	} else {
		ui.color = false;
	}
	draw_init_curses();
	fit_canvas();
}

/* The interactive loop: update on the interval, keys, resize, signals. */
static int
run(void)
{
	struct sigaction	sa;
	double			next;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	atexit(end_curses);
	start_curses();
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	set_escdelay(25);
	update(false);
	next = now_us() / 1e3 + T.interval_ms;
	show();
	while (!quit_signal) {
		double	now = now_us() / 1e3;
		int	ch, wait;

		if (!T.paused && now >= next) {
			if (T.src.kind == SRC_RECORDING) {
				if (source_step(&T.src, 1))
					update(false);
				else
					T.paused = true, say("end of recording");
			} else {
				update(false);
			}
			next = now + T.interval_ms;
			show();
		}
		if (lab_pane_fd() >= 0 && lab_pane_read())
			lab_runner_messages();
		wait = T.paused ? 250 : (int)(next - now);
		if (T.view->tick) {
			/* an animation (a replay playing) redraws on its own clock */
			bool	changed = false;
			double	due = T.view->tick(now, &changed);

			if (changed)
				show();
			if (due >= 0 && due - now < wait)
				wait = (int)(due - now);
		}
		/* the lab runner's messages are read at least every 50 ms */
		if (lab_pane_fd() >= 0 && wait > 50)
			wait = 50;
		timeout(wait < 1 ? 1 : wait > 250 ? 250 : wait);
		ch = getch();
		if (ch == ERR) {
			if (T.msg[0] && now_us() / 1e3 >= T.msg_until) {
				T.msg[0] = '\0';
				show();
			}
			continue;
		}
		if (ch == KEY_RESIZE)
			fit_canvas();
		if (!key(ch))
			break;
		show();
	}
	end_curses();
	if (quit_signal) {
		signal(quit_signal, SIG_DFL);
		raise(quit_signal);
	}
	return 0;
}

/* --bench-frames N: time N update+render+refresh cycles on this
 * terminal and print the median, mean and max in ms to stderr after
 * leaving curses. */
static int
bench(int n)
{
	double	*t = xcalloc((size_t)n, sizeof(double)), sum = 0;

	start_curses();
	update(false);
	for (int i = 0; i < n; i++) {
		double	t0 = now_us() / 1e3;

		update(false);
		show();
		t[i] = now_us() / 1e3 - t0;
		sum += t[i];
	}
	end_curses();
	for (int i = 1; i < n; i++)	/* insertion sort: n is small */
		for (int j = i; j > 0 && t[j] < t[j - 1]; j--) {
			double	x = t[j];

			t[j] = t[j - 1];
			t[j - 1] = x;
		}
	fprintf(stderr, "frames %d size %dx%d view %s median_ms %.3f mean_ms %.3f max_ms %.3f\n", n,
	    T.cv.cols, T.cv.rows, T.view->name, t[n / 2], sum / n, t[n - 1]);
	free(t);
	return 0;
}

/* Parse --replay-at's [RUN:]EVENT (numbers from 1; no RUN: 0, the last). */
static bool
parse_replay_at(const char *arg, int *run, int *ev)
{
	const char	*colon = strchr(arg, ':');
	char		*end;
	long		 r = 0, e;

	if (colon) {
		r = strtol(arg, &end, 10);
		if (end != colon || end == arg || r < 1 || r > 1000000)
			return false;
		arg = colon + 1;
	}
	e = strtol(arg, &end, 10);
	if (*end || end == arg || e < 1 || e > 100000000)
		return false;
	*run = (int)r;
	*ev = (int)e;
	return true;
}

/* --replay-at: start the compaction view's replay on the trace just read;
 * what the trace cannot satisfy is an error naming the option. */
static void
start_replay(const char *arg, int run, int ev)
{
	const char	*err;

	if (arg && (err = compact_replay_start(run, ev)) != NULL)
		fatalx("--replay-at %s: %s", arg, err);
}

/* Usage text. */
static void
usage(FILE *f)
{
	fputs("usage: umkit-tui [--root DIR] [--view NAME] [--dump[=VIEW]] [--interval MS]\n"
	    "                 [--cols N] [--rows N] [--ascii] [--lab-pane FILE | --lab-fd N]\n"
	    "                 [--replay-at [RUN:]EVENT]\n"
	    "  --root DIR      files come from DIR: a live mirror (run/NAME/mnt),\n"
	    "                  a recording (umkit record), or / (default)\n"
	    "  --view NAME     lru, compaction, counters, overview or help\n"
	    "  --dump[=VIEW]   print one frame as plain text (--cols x --rows, default\n"
	    "                  80x24) and exit\n"
	    "  --interval MS   refresh interval (default 1000)\n"
	    "  --ascii         no UTF-8 block characters\n"
	    "  --lab-pane FILE show FILE's text in a lab pane (key L)\n"
	    "  --lab-fd N      the lab pane of 'umkit lab', on socket N\n"
	    "  --replay-at [RUN:]EVENT\n"
	    "                  the compaction view replaying run RUN (default: the\n"
	    "                  last) of the trace buffer at its event EVENT (from 1)\n", f);
}

/* Parse options, then dump one frame or run interactively. */
int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "root", required_argument, NULL, 'R' },
		{ "view", required_argument, NULL, 'v' },
		{ "dump", optional_argument, NULL, 'd' },
		{ "interval", required_argument, NULL, 'i' },
		{ "cols", required_argument, NULL, 'c' },
		{ "rows", required_argument, NULL, 'r' },
		{ "ascii", no_argument, NULL, 'a' },
		{ "lab-pane", required_argument, NULL, 'l' },
		{ "lab-fd", required_argument, NULL, 'L' },
		{ "bench-frames", required_argument, NULL, 'B' },
		{ "replay-at", required_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char	*root = "/", *term = getenv("TERM"), *nc = getenv("NO_COLOR");
	const char	*replay_at = NULL;
	bool		 dump = false, ascii = false, view_given = false;
	int		 cols = 80, rows = 24, bench_n = 0, replay_run = 0,
	    replay_ev = 0, o;

	progname = "umkit-tui";
	fatal_status = 1;
	setlocale(LC_ALL, "");
	T.view = &view_lru;
	T.back = &view_lru;
	T.interval_ms = 1000;
	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case 'R': root = optarg; break;
		case 'v': T.view = view_by_name(optarg); view_given = true; break;
		case 'd':
			dump = true;
			if (optarg)
				T.view = view_by_name(optarg), view_given = true;
			break;
		case 'i':
			T.interval_ms = atoi(optarg);
			if (T.interval_ms < 10 || T.interval_ms > 3600000)
				fatalx("--interval: %s ms is out of range (10..3600000)", optarg);
			break;
		case 'c': cols = atoi(optarg); break;
		case 'r': rows = atoi(optarg); break;
		case 'a': ascii = true; break;
		case 'l': lab_pane_init(optarg, -1); T.lab_shown = true; break;
		case 'L':
			lab_pane_init(NULL, atoi(optarg));
			T.lab_shown = T.lab_runner = true;
			break;
		case 'B': bench_n = atoi(optarg); break;
		case 'P':
			replay_at = optarg;
			if (!parse_replay_at(optarg, &replay_run, &replay_ev))
				fatalx("--replay-at: '%s' is not [RUN:]EVENT (numbers from 1)", optarg);
			break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc) {
		usage(stderr);
		return 2;
	}
	if (cols < 20 || rows < 5 || cols > 1000 || rows > 1000)
		fatalx("--cols/--rows: %dx%d is out of range (20x5 .. 1000x1000)", cols, rows);
	if (replay_at && view_given && T.view != &view_compact)
		fatalx("--replay-at: the compaction view replays, not the %s view", T.view->name);
	if (replay_at)
		T.view = &view_compact;
	if (T.view == &view_help)
		T.back = &view_lru;
	ui.utf8 = !ascii && !strcmp(nl_langinfo(CODESET), "UTF-8") &&
	    !(term && !strncmp(term, "vt100", 5));
	ui.color = !(nc && *nc) && !(term && (!strncmp(term, "vt100", 5) || !strcmp(term, "dumb")));
	source_open(&T.src, root);
	T.paused = T.src.kind == SRC_RECORDING;	/* recordings: step, or p to play */
	for (int i = 0; i < ndata_views; i++)
		data_views[i]->init();
	view_help.init();
	if (dump) {
		cv_resize(&T.cv, cols, rows);
		update(false);
		start_replay(replay_at, replay_run, replay_ev);
		render();
		cv_dump(&T.cv, stdout);
		return 0;
	}
	if (bench_n > 0 || replay_at) {
		update(false);
		start_replay(replay_at, replay_run, replay_ev);
	}
	if (bench_n > 0)
		return bench(bench_n);
	return run();
}
