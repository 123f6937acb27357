/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * lab-pane.c - the lab pane: what the lab runner ('umkit lab') shows
 * beside or below the view, and the keys the student gives it.
 *
 * Two sources of text:
 *   --lab-pane FILE   FILE's text, re-read on every update (plain lines)
 *   --lab-fd N        a SOCK_SEQPACKET socket to the runner; one message
 *                     per packet, a word and its argument:
 *     runner -> TUI   "pane\n" + lines, each "S text" with S a style
 *                     letter: T title, N normal, D dim, G good, W bad,
 *                     Q question, P paragraph, I input; "view NAME";
 *                     "prompt TEXT" (read an answer; "prompt+ TEXT":
 *                     another prompt follows this one's answer, so keys
 *                     typed in between go to it); "say TEXT" (status
 *                     line); "reopen" (the guest was rebooted: reopen the
 *                     root)
 *     TUI -> runner   "key enter|next|back|hint"; "answer TEXT" (empty:
 *                     cancelled).  Closing the socket means the TUI quit.
 *
 * Lines are word-wrapped to the pane's width (continuations keep the
 * line's indentation).  Consecutive P lines are one paragraph, joined
 * and re-flowed: an empty P line ends it (and stays an empty line), and
 * a P line starting with two blanks or more (code, a table, an indented
 * list) is a line of its own.  While a prompt reads an answer, the I
 * line shows the prompt, the answer typed so far and the keys; without
 * a prompt it shows its text, dim.  A pane with no I line in view has
 * the prompt in the status line instead.
 */
#include <ctype.h>
#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "tui.h"
#include "util.h"

#define MSG_MAX		65536

static struct {
	const char	*file;		/* --lab-pane FILE */
	int		 fd;		/* --lab-fd N, or -1 */
	char		*text;		/* the pane's lines */
	int		 rc;		/* FILE: -errno of the last read */
	char		 view[32];	/* a view the runner asked for */
	char		 say[160];
	bool		 reopen;
	bool		 prompting;	/* reading an answer */
	bool		 prompt_shown;	/* the last draw showed it (an I line) */
	char		 prompt[160];
	char		 input[256];	/* an answer, or a guest$ command line */
	int		 scroll;
	bool		 gone;		/* the runner closed the socket */
	/*
	 * Type-ahead: keys typed just after the answer to a "prompt+" went,
	 * before the runner's next prompt came (an ab step asks several in a
	 * row); they go to that prompt (or, when none came within AHEAD_MS,
	 * to the keys as usual with the next key).
	 */
	int		 ahead[32];
	int		 nahead;
	long long	 ahead_until;	/* ms, CLOCK_MONOTONIC; 0: none */
	bool		 more;		/* "prompt+": another prompt follows it */
} P = { .fd = -1 };

/*
 * The type-ahead window counts from the answer to the moment each later
 * key is read, so a slow TUI shrinks it: at 400 ms, a fresh-clone make
 * test lost a typed-ahead answer (t-lab-grade's ab step, a script running
 * beside it) and the digits went to the view keys.  The runner promised
 * the prompt ("prompt+"), so waiting longer costs nothing when it comes.
 */
#define AHEAD_MS	3000

static void	replay_ahead(void);

/* Now, in ms. */
static long long
mono_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Use FILE (file != NULL) or the runner's socket (fd >= 0). */
void
lab_pane_init(const char *file, int fd)
{
	P.file = file;
	P.fd = fd;
	if (fd >= 0)
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

/* Whether there is a lab pane at all. */
bool
lab_pane_on(void)
{
	return P.file != NULL || P.fd >= 0;
}

/* The runner's socket, or -1. */
int
lab_pane_fd(void)
{
	return P.gone ? -1 : P.fd;
}

/* Send one message to the runner. */
static void
send_msg(const char *s)
{
	if (P.fd >= 0 && !P.gone)
		send(P.fd, s, strlen(s), MSG_NOSIGNAL);
}

/* FILE mode: re-read the file. */
void
lab_pane_update(void)
{
	FILE	*f;
	size_t	 n;

	if (P.file == NULL)
		return;
	if ((f = fopen(P.file, "r")) == NULL) {
		P.rc = -errno;
		return;
	}
	P.rc = 0;
	free(P.text);
	P.text = xmalloc(MSG_MAX + 1);
	n = fread(P.text, 1, MSG_MAX, f);
	P.text[n] = '\0';
	fclose(f);
}

/* The step number in a pane's title line ("T lab · step 3/6: ..."), or 0. */
static int
step_of(const char *text)
{
	const char	*nl = strchr(text, '\n'), *p = strstr(text, " · step ");

	if (p == NULL || (nl != NULL && p > nl))
		return 0;
	return atoi(p + strlen(" · step "));
}

/* Read the runner's messages; returns true when something changed. */
bool
lab_pane_read(void)
{
	char	*m = xmalloc(MSG_MAX + 1);
	bool	 changed = false;
	ssize_t	 n;

	while (P.fd >= 0 && !P.gone) {
		n = recv(P.fd, m, MSG_MAX, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		if (n == 0) {
			P.gone = true;
			snprintf(P.say, sizeof(P.say), "the lab runner has gone");
			changed = true;
			break;
		}
		m[n] = '\0';
		changed = true;
		if (!strncmp(m, "pane\n", 5)) {
			/* Another step: start at its top, not where the last one was. */
			if (P.text == NULL || step_of(P.text) != step_of(m + 5))
				P.scroll = 0;
			free(P.text);
			P.text = xstrdup(m + 5);
		} else if (!strncmp(m, "view ", 5)) {
			snprintf(P.view, sizeof(P.view), "%s", m + 5);
		} else if (!strncmp(m, "say ", 4)) {
			snprintf(P.say, sizeof(P.say), "%s", m + 4);
		} else if (!strncmp(m, "prompt ", 7) || !strncmp(m, "prompt+ ", 8)) {
			P.more = m[6] == '+';
			snprintf(P.prompt, sizeof(P.prompt), "%s", m + (P.more ? 8 : 7));
			P.input[0] = '\0';
			P.prompting = true;
			replay_ahead();
		} else if (!strcmp(m, "reopen")) {
			P.reopen = true;
		}
	}
	free(m);
	return changed;
}

/* A view the runner asked for (once), or NULL. */
const char *
lab_pane_take_view(void)
{
	static char	v[32];

	if (P.view[0] == '\0')
		return NULL;
	snprintf(v, sizeof(v), "%s", P.view);
	P.view[0] = '\0';
	return v;
}

/* A status message from the runner (once), or NULL. */
const char *
lab_pane_take_say(void)
{
	static char	s[160];

	if (P.say[0] == '\0')
		return NULL;
	snprintf(s, sizeof(s), "%s", P.say);
	P.say[0] = '\0';
	return s;
}

/* Whether the root must be reopened (once). */
bool
lab_pane_take_reopen(void)
{
	bool	r = P.reopen;

	P.reopen = false;
	return r;
}

/* The answer line for the status bar while prompting and the pane
 * (pane_shown: it is on the screen) does not show it, else NULL. */
const char *
lab_pane_prompt(bool pane_shown)
{
	static char	line[sizeof P.prompt + sizeof P.input + 48];

	if (!P.prompting || (pane_shown && P.prompt_shown))
		return NULL;
	snprintf(line, sizeof(line), " %s %s_  (Enter: answer, Esc: cancel) ",
	    P.prompt, P.input);
	return line;
}

/* The keys typed ahead, as if typed now (to a prompt that came). */
static void
replay_ahead(void)
{
	int	k[sizeof P.ahead / sizeof P.ahead[0]], n = P.nahead, i;
	bool	used[sizeof P.ahead / sizeof P.ahead[0]];

	memcpy(k, P.ahead, sizeof k);
	P.nahead = 0;
	P.ahead_until = 0;
	for (i = 0; i < n; i++)
		used[i] = lab_pane_key(k[i], true);
	/* the rest back to curses, in order (ungetch is last in, first out) */
	for (i = n - 1; i >= 0; i--)
		if (!used[i])
			ungetch(k[i]);
}

/* A key: while prompting every key edits the answer; otherwise the lab
 * keys go to the runner when the pane is shown.  Returns true when the
 * key was consumed. */
bool
lab_pane_key(int ch, bool pane_shown)
{
	size_t	n = strlen(P.input);
	char	msg[sizeof P.input + 8];

	if (P.fd < 0 || P.gone)
		return false;
	if (!P.prompting && P.ahead_until != 0) {
		if (mono_ms() < P.ahead_until && P.nahead < (int)(sizeof P.ahead / sizeof P.ahead[0])) {
			P.ahead[P.nahead++] = ch;
			return true;
		}
		P.ahead_until = 0;	/* no prompt came: the keys as usual */
		replay_ahead();
	}
	if (P.prompting) {
		if (ch == '\r' || ch == '\n' || ch == KEY_ENTER) {
			if (n == 0)
				return true;	/* no answer yet: Esc cancels */
			snprintf(msg, sizeof(msg), "answer %s", P.input);
			send_msg(msg);
			P.prompting = false;
			if (P.more)
				P.ahead_until = mono_ms() + AHEAD_MS;
		} else if (ch == 27) {
			send_msg("answer ");
			P.prompting = false;
		} else if (ch == KEY_BACKSPACE || ch == 127 || ch == 8) {
			if (n > 0)
				P.input[n - 1] = '\0';
		} else if (ch >= 32 && ch < 127 && n < sizeof(P.input) - 1) {
			P.input[n] = (char)ch;
			P.input[n + 1] = '\0';
		}
		return true;
	}
	if (!pane_shown)
		return false;
	switch (ch) {
	case '\r': case '\n': case KEY_ENTER: send_msg("key enter"); return true;
	case 'n': send_msg("key next"); return true;
	case 'b': send_msg("key back"); return true;
	case 'H': send_msg("key hint"); return true;
	case 'j': P.scroll++; return true;
	case 'k': if (P.scroll > 0) P.scroll--; return true;
	}
	return false;
}

/* Attribute of a style letter. */
static int
style_attr(char s)
{
	switch (s) {
	case 'T': return C_TITLE;
	case 'D': return C_DIM;
	case 'G': return C_GOOD;
	case 'W': return C_WARN;
	case 'Q': return C_MARK;
	case 'I': return C_DIM;
	default: return C_NORM;
	}
}

/* Bytes of s's longest prefix that fits in cols columns (a UTF-8
 * character takes one column, as on the canvas). */
static size_t
fit_bytes(const char *s, int cols)
{
	size_t	i = 0;

	while (s[i] != '\0' && cols > 0) {
		i++;
		while (((unsigned char)s[i] & 0xc0) == 0x80)
			i++;
		cols--;
	}
	return i;
}

/* Columns a list item's continuations go further in than its first
 * row: past a mark ("a) ", "· ", "✓ ", "- "), else 0. */
static int
hang(const char *s)
{
	size_t	n = fit_bytes(s, 1);

	if (n == 0 || s[n] == '\0')
		return 0;
	if (s[n] == ')' && s[n + 1] == ' ' && n == 1 && isalnum((unsigned char)s[0]))
		return 3;
	if (s[n] == ' ' && !isalnum((unsigned char)s[0]))
		return 2;
	return 0;
}

/* Draw one logical line word-wrapped into the frame from column col
 * (continuations keep its indentation); returns the next line number,
 * and in *end (if not NULL) the column after the text on its last row. */
static int
wrap_at(struct frame *f, int line, int col, int attr, const char *s, int *end)
{
	int	 w = f->w > 8 ? f->w : 8, indent = 0, off = col;
	char	*tmp = xmalloc(strlen(s) + 1);

	while (s[indent] == ' ' && indent < w / 2)
		indent++;
	indent += hang(s + indent);
	if (indent >= w / 2)
		indent = w / 2;
	if (off >= w)
		off = indent, line++;
	do {
		size_t	take = fit_bytes(s, w - off);

		if (s[take] != '\0') {
			/* break at the last blank that fits */
			size_t	b = take;

			while (b > 0 && s[b] != ' ')
				b--;
			if (b > 0)
				take = b;
			else if (off > indent) {
				/* a word too long for what is left: next row */
				off = indent;
				line++;
				continue;
			}
		}
		if (take == 0)
			take = fit_bytes(s, 1);
		memcpy(tmp, s, take);
		tmp[take] = '\0';
		off = fr_text(f, line++, off, attr, tmp);
		s += take;
		while (*s == ' ')
			s++;
		if (*s != '\0')
			off = indent;
	} while (*s != '\0');
	free(tmp);
	if (end != NULL)
		*end = off;
	return line;
}

/* Draw one logical line word-wrapped; returns the next line number. */
static int
wrap_line(struct frame *f, int line, int attr, const char *s)
{
	return wrap_at(f, line, 0, attr, s, NULL);
}

/* The I line while prompting: the prompt and the answer so far, a
 * cursor mark, then the keys; returns the next line number. */
static int
draw_prompt(struct frame *f, int line)
{
	static const char	 keys[] = "(Enter: answer, Esc: cancel)",
				 keys2[] = "  (Enter: answer, Esc: cancel)";
	char			*q = xasprintf("  %s %s_", P.prompt, P.input);
	int			 end, next;

	if (line >= f->scroll && line < f->scroll + f->h)
		P.prompt_shown = true;
	next = wrap_at(f, line, 0, C_MARK, q, &end);
	free(q);
	/* the keys beside the answer, or whole on the next row */
	if (end + 2 + (int)strlen(keys) <= f->w)
		return wrap_at(f, next - 1, end + 2, C_DIM, keys, NULL);
	return wrap_at(f, next, 0, C_DIM, keys2, NULL);
}

/* A paragraph being joined from P lines. */
struct para {
	char	*s;
	size_t	 len, cap;
};

/* Add a P line's words to the paragraph. */
static void
para_add(struct para *pa, const char *s)
{
	size_t	n;

	while (*s == ' ')
		s++;
	n = strlen(s);
	if (pa->len + n + 2 > pa->cap) {
		pa->cap = (pa->len + n + 2) * 2;
		pa->s = xrealloc(pa->s, pa->cap);
	}
	if (pa->len > 0)
		pa->s[pa->len++] = ' ';
	memcpy(pa->s + pa->len, s, n + 1);
	pa->len += n;
}

/* Draw the paragraph (if any) re-flowed and empty it; returns the next
 * line number. */
static int
para_flush(struct frame *f, int line, struct para *pa)
{
	if (pa->len > 0)
		line = wrap_line(f, line, C_NORM, pa->s);
	pa->len = 0;
	return line;
}

/* Draw the pane into its rectangle. */
void
lab_pane_draw(struct frame *f)
{
	struct para	 pa = { 0 };
	int		 line = 0;
	char		*copy, *p, *nl, *text;

	P.prompt_shown = false;
	if (P.file != NULL && P.rc < 0) {
		fr_text(f, line++, 0, C_TITLE, "Lab");
		fr_printf(f, line, 0, C_WARN, "%s: %s", P.file, strerror(-P.rc));
		return;
	}
	if (P.file != NULL)
		fr_text(f, line++, 0, C_TITLE, "Lab");
	else if (P.text == NULL)
		fr_text(f, line++, 0, C_DIM, "waiting for the lab runner...");
	f->scroll = P.scroll;
	copy = xstrdup(P.text ? P.text : "");
	for (p = copy; *p != '\0'; p = nl ? nl + 1 : p + strlen(p)) {
		nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		text = p[0] != '\0' && p[1] == ' ' ? p + 2 : p + (p[0] != '\0');
		if (P.file != NULL)
			fr_text(f, line++, 0, C_NORM, p);
		else if (p[0] == 'P' && text[0] != '\0' && strncmp(text, "  ", 2) != 0)
			para_add(&pa, text);
		else {
			line = para_flush(f, line, &pa);
			if (*p == '\0' || *text == '\0')
				line++;
			else if (p[0] == 'I' && P.prompting)
				line = draw_prompt(f, line);
			else
				line = wrap_line(f, line, style_attr(p[0]), text);
		}
		if (!nl)
			break;
	}
	line = para_flush(f, line, &pa);
	free(pa.s);
	free(copy);
	if (P.scroll > 0 && P.scroll >= line)
		P.scroll = line > 0 ? line - 1 : 0;
}
