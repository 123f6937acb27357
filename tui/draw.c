/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * draw.c - the canvas every frame is drawn on, its two outputs (curses and
 * plain text for --dump), and drawing helpers: bars, sparklines, colours
 * with a monochrome fallback, UTF-8 blocks with an ASCII fallback.
 */
#include <curses.h>
#include <math.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>
#include <wchar.h>

#include "tui.h"
#include "util.h"

struct ui_caps ui;

static attr_t attr_of[C_COUNT];

/* Resize the canvas and blank it. */
void
cv_resize(struct canvas *cv, int cols, int rows)
{
	if (cols < 1)
		cols = 1;
	if (rows < 1)
		rows = 1;
	if (cols * rows > cv->cols * cv->rows || !cv->c)
		cv->c = xrealloc(cv->c, (size_t)cols * (size_t)rows * sizeof(*cv->c));
	cv->cols = cols;
	cv->rows = rows;
	cv_clear(cv);
}

/* Fill every cell with a blank. */
void
cv_clear(struct canvas *cv)
{
	for (int i = 0; i < cv->cols * cv->rows; i++) {
		cv->c[i].ch[0] = ' ';
		cv->c[i].len = 1;
		cv->c[i].attr = C_NORM;
	}
}

/* Length of the UTF-8 sequence starting with byte c (1 for bad bytes). */
static int
u8len(unsigned char c)
{
	if (c >= 0xf0 && c < 0xf8)
		return 4;
	if (c >= 0xe0)
		return c < 0xf0 ? 3 : 1;
	if (c >= 0xc0)
		return 2;
	return 1;
}

/* Bytes of the character s starts with (a broken sequence: one). */
static int
u8next(const char *s)
{
	int	n = u8len((unsigned char)*s), k;

	for (k = 1; k < n; k++)
		if (((unsigned char)s[k] & 0xc0) != 0x80)
			return 1;
	return n;
}

/* Write text, one cell per character, clipped to [0, xmax). */
int
cv_text(struct canvas *cv, int y, int x, int xmax, int attr, const char *s)
{
	if (xmax > cv->cols)
		xmax = cv->cols;
	while (*s) {
		int	n = u8next(s);

		if (y >= 0 && y < cv->rows && x >= 0 && x < xmax) {
			struct cell	*c = &cv->c[y * cv->cols + x];
			unsigned char	 b = (unsigned char)s[0];

			if (n == 1 && (b < 0x20 || b >= 0x80)) {
				c->ch[0] = '?';	/* control or stray byte */
			} else {
				memcpy(c->ch, s, (size_t)n);
			}
			c->len = (unsigned char)(n == 1 ? 1 : n);
			c->attr = (unsigned char)attr;
		}
		s += n;
		x++;
	}
	return x;
}

/* Print rows as text with trailing blanks removed. */
void
cv_dump(const struct canvas *cv, FILE *f)
{
	for (int y = 0; y < cv->rows; y++) {
		int	end = cv->cols;

		while (end > 0 && cv->c[y * cv->cols + end - 1].len == 1 &&
		    cv->c[y * cv->cols + end - 1].ch[0] == ' ')
			end--;
		for (int x = 0; x < end; x++)
			fwrite(cv->c[y * cv->cols + x].ch, 1, cv->c[y * cv->cols + x].len, f);
		fputc('\n', f);
	}
}

/* Colour pairs for each logical colour, or attributes in monochrome. */
void
draw_init_curses(void)
{
	static const struct { short fg, bg; attr_t mono, extra; } map[C_COUNT] = {
		[C_NORM] = { -1, -1, A_NORMAL, 0 },
		[C_TITLE] = { COLOR_CYAN, -1, A_BOLD, A_BOLD },
		[C_DIM] = { COLOR_BLUE, -1, A_DIM, A_BOLD },
		[C_ANON] = { COLOR_MAGENTA, -1, A_NORMAL, 0 },
		[C_FILE] = { COLOR_GREEN, -1, A_NORMAL, 0 },
		[C_FREE] = { COLOR_GREEN, -1, A_NORMAL, 0 },
		[C_MOVABLE] = { COLOR_CYAN, -1, A_NORMAL, 0 },
		[C_UNMOVABLE] = { COLOR_RED, -1, A_BOLD, 0 },
		[C_HOLE] = { COLOR_BLUE, -1, A_DIM, 0 },
		[C_MIGRATE] = { COLOR_YELLOW, -1, A_BOLD, A_BOLD },
		[C_FREESCAN] = { COLOR_MAGENTA, -1, A_BOLD, A_BOLD },
		[C_WARN] = { COLOR_RED, -1, A_BOLD, A_BOLD },
		[C_GOOD] = { COLOR_GREEN, -1, A_BOLD, 0 },
		[C_STATUS] = { COLOR_BLACK, COLOR_CYAN, A_REVERSE, 0 },
		[C_TAB] = { COLOR_WHITE, COLOR_BLUE, A_REVERSE, 0 },
		[C_TABSEL] = { COLOR_BLACK, COLOR_YELLOW, A_BOLD, A_BOLD },
		[C_MARK] = { COLOR_YELLOW, -1, A_BOLD | A_UNDERLINE, A_BOLD },
		/* strip cells a replayed scanner has passed */
		[C_MIGPASS] = { COLOR_BLACK, COLOR_YELLOW, A_UNDERLINE, 0 },
		[C_FREEPASS] = { COLOR_BLACK, COLOR_MAGENTA, A_UNDERLINE | A_DIM, 0 },
	};

	for (int i = 0; i < C_COUNT; i++) {
		if (ui.color) {
			init_pair((short)(i + 1), map[i].fg, map[i].bg);
			attr_of[i] = COLOR_PAIR(i + 1) | map[i].extra;
		} else {
			attr_of[i] = map[i].mono;
		}
	}
}

/* What the terminal is sent for a cell: its character when the
 * terminal draws it in exactly one column (as curses and the canvas
 * count it), else an ASCII stand-in.  A character the locale says is
 * wide (CJK), of no width (combining) or not printable, or one of the
 * East Asian "ambiguous" ones on a terminal that draws them wide, would
 * shift the rest of its row: a view's text past its frame, onto the
 * lab pane. */
static const char *
cell_out(const struct cell *c, size_t *len)
{
	static const struct { const char *u, *a; } tr[] = {
		{ "·", "." }, { "—", "-" }, { "–", "-" }, { "─", "-" },
		{ "│", "|" }, { "✓", "+" }, { "✗", "x" }, { "…", "." },
		{ "→", ">" }, { "█", "#" }, { "▒", "m" }, { "═", "=" },
	};
	unsigned char	 b = (unsigned char)c->ch[0];
	wchar_t		 wc;
	mbstate_t	 st;

	*len = 1;
	if (c->len == 1)
		return b >= 0x20 && b < 0x7f ? c->ch : "?";
	memset(&st, 0, sizeof(st));
	if (!ui.ambiwide && mbrtowc(&wc, c->ch, c->len, &st) == c->len &&
	    wcwidth(wc) == 1) {
		*len = c->len;
		return c->ch;
	}
	for (size_t i = 0; i < sizeof(tr) / sizeof(tr[0]); i++)
		if (strlen(tr[i].u) == c->len && !memcmp(tr[i].u, c->ch, c->len))
			return tr[i].a;
	return "?";
}

/* Send the canvas to curses, one run of equal attributes at a time. */
void
cv_blit(const struct canvas *cv)
{
	char	run[4096];

	for (int y = 0; y < cv->rows; y++) {
		int	x = 0;

		while (x < cv->cols) {
			int	a = cv->c[y * cv->cols + x].attr, x0 = x;
			size_t	n = 0;

			while (x < cv->cols && cv->c[y * cv->cols + x].attr == a &&
			    n + 4 < sizeof(run)) {
				size_t		 len;
				const char	*ch = cell_out(&cv->c[y * cv->cols + x], &len);

				memcpy(run + n, ch, len);
				n += len;
				x++;
			}
			run[n] = '\0';
			attrset(attr_of[a]);
			mvaddstr(y, x0, run);
		}
	}
	attrset(A_NORMAL);
}

/* Ask the terminal how wide it draws "·" (U+00B7, East Asian width
 * "ambiguous", as are the strip's ▒ and █ and the box lines): print it
 * at the start of the line, ask for the cursor position (CSI 6n), wait
 * up to 250 ms for the report, and wipe it.  True when the cursor moved
 * two columns (a terminal set for CJK widths).  Before curses starts. */
bool
term_ambiguous_wide(int in, int out)
{
	static const char	ask[] = "\r\xc2\xb7\033[6n", wipe[] = "\r  \r";
	struct termios		old, raw;
	char			buf[32];
	size_t			n = 0;
	int			row, col = 0;
	double			until = now_us() / 1e3 + 250;
	const char		*esc;
	ssize_t			w;

	if (!isatty(in) || !isatty(out) || tcgetattr(in, &old) < 0)
		return false;
	raw = old;
	raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
	raw.c_cc[VMIN] = 0;
	raw.c_cc[VTIME] = 0;
	if (tcsetattr(in, TCSANOW, &raw) < 0)
		return false;
	if (write(out, ask, sizeof(ask) - 1) == (ssize_t)sizeof(ask) - 1) {
		while (n < sizeof(buf) - 1 && memchr(buf, 'R', n) == NULL) {
			struct pollfd	pfd = { .fd = in, .events = POLLIN };
			double		left = until - now_us() / 1e3;
			ssize_t		r;

			if (left <= 0 || poll(&pfd, 1, (int)left + 1) <= 0)
				break;
			if ((r = read(in, buf + n, sizeof(buf) - 1 - n)) <= 0)
				break;
			n += (size_t)r;
		}
	}
	buf[n] = '\0';
	w = write(out, wipe, sizeof(wipe) - 1);	/* curses clears it anyway */
	(void)w;
	tcsetattr(in, TCSANOW, &old);
	esc = strstr(buf, "\033[");
	if (esc == NULL || sscanf(esc + 2, "%d;%dR", &row, &col) != 2)
		return false;
	return col == 3;
}

/* Map a virtual line to a screen row; -1 when scrolled out. */
static int
row_of(struct frame *f, int line)
{
	int	r = line - f->scroll;

	if (line + 1 > f->lines)
		f->lines = line + 1;
	if (r < 0 || r >= f->h)
		return -1;
	return f->y + r;
}

/* Text in a frame: rows outside it are not drawn (row_of), nor
 * characters left of its first column or right of its last. */
int
fr_text(struct frame *f, int line, int col, int attr, const char *s)
{
	int	y = row_of(f, line);

	if (y < 0)
		return col + (int)strlen(s);
	for (; col < 0 && *s != '\0'; col++)
		s += u8next(s);
	return cv_text(f->cv, y, f->x + col, f->x + f->w, attr, s) - f->x;
}

/* printf in a frame. */
int
fr_printf(struct frame *f, int line, int col, int attr, const char *fmt, ...)
{
	char	tmp[1024];
	va_list	ap;

	va_start(ap, fmt);
	vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	return fr_text(f, line, col, attr, tmp);
}

/* Choose a glyph by the terminal's abilities. */
const char *
glyph(const char *utf8, const char *ascii)
{
	return ui.utf8 ? utf8 : ascii;
}

/* A proportional bar with eighth-block resolution. */
void
fr_bar(struct frame *f, int line, int col, int width, double frac, int attr)
{
	static const char *const	part[] = { "", "▏", "▎", "▍", "▌", "▋", "▊", "▉" };
	int				eighths, full, i;

	if (width <= 0)
		return;
	if (!(frac > 0))
		frac = 0;
	if (frac > 1)
		frac = 1;
	eighths = (int)lround(frac * width * 8);
	full = eighths / 8;
	for (i = 0; i < full; i++)
		fr_text(f, line, col + i, attr, glyph("█", "#"));
	if (i < width && eighths % 8) {
		if (ui.utf8)
			fr_text(f, line, col + i, attr, part[eighths % 8]);
		else if (eighths % 8 >= 4)
			fr_text(f, line, col + i, attr, "+");
	}
}

/* A sparkline: each value as one of eight heights (ASCII: " .:-=+*#"). */
void
fr_spark(struct frame *f, int line, int col, int width, const double *v, int n,
    int attr)
{
	static const char *const	u[] = { "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█" };
	static const char		a[] = "_.:-=+*#";
	double				max = 0;
	int				first = n > width ? n - width : 0;

	for (int i = first; i < n; i++)
		if (v[i] > max)
			max = v[i];
	for (int i = first; i < n; i++) {
		int	k = max > 0 ? (int)(v[i] / max * 7.0 + 0.5) : 0;
		char	s[2] = { a[k], 0 };

		fr_text(f, line, col + i - first, attr, ui.utf8 ? u[k] : s);
	}
}

/* Compact count: 999, 12.3k, 4.56M. */
void
fmt_count(char *out, size_t n, double v)
{
	const char	*unit = "";
	double		 a = fabs(v);

	if (a >= 1e9) {
		v /= 1e9;
		unit = "G";
	} else if (a >= 1e6) {
		v /= 1e6;
		unit = "M";
	} else if (a >= 1e4) {
		v /= 1e3;
		unit = "k";
	}
	if (*unit)
		snprintf(out, n, "%.*f%s", fabs(v) < 10 ? 2 : fabs(v) < 100 ? 1 : 0, v, unit);
	else if (v == floor(v))
		snprintf(out, n, "%.0f", v);
	else
		snprintf(out, n, "%.1f", v);
}

/* Size of a number of 4 KiB pages: "512k", "12.3M", "1.50G". */
void
fmt_pages(char *out, size_t n, double pages)
{
	static const char	units[] = "GTPEZY";
	double			kb = pages * 4;

	if (kb >= 1024 * 1024) {
		double	v = kb / 1024 / 1024;
		int	u = 0;

		/* a guest may claim 2^64 pages: a larger unit, never more digits */
		while (v >= 1024 && units[u + 1]) {
			v /= 1024;
			u++;
		}
		snprintf(out, n, "%.2f%c", v, units[u]);
	} else if (kb >= 1024)
		snprintf(out, n, "%.1fM", kb / 1024);
	else
		snprintf(out, n, "%.0fk", kb);
}

/* Rate from the previous sample. */
void
rate_feed(struct rate *r, u64 val, double now_ms, bool jumped)
{
	if (jumped || !r->have_prev || now_ms <= r->prev_ms || val < r->prev) {
		r->valid = false;
	} else {
		r->per_s = (double)(val - r->prev) * 1000.0 / (now_ms - r->prev_ms);
		r->valid = true;
	}
	r->prev = val;
	r->prev_ms = now_ms;
	r->have_prev = true;
}
