/* SPDX-License-Identifier: GPL-2.0-only */
/* cmd-console.c - umkit console: a shell in a named guest, on its ttyS2. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "guest/ctl.h"
#include "umkit.h"
#include "util.h"

static struct termios		saved_tio;
static int			tio_saved;
static volatile sig_atomic_t	console_stop;

/* SIGTERM, SIGHUP: leave the console (the loop sees the flag). */
static void
console_signal(int sig)
{
	console_stop = sig;
}

/* Put the terminal back as it was. */
static void
console_restore(void)
{
	if (tio_saved)
		tcsetattr(0, TCSAFLUSH, &saved_tio);
	tio_saved = 0;
}

/* umkit console NAME: a shell in the guest, on its ttyS2. */
static int
console_main(int argc, char **argv)
{
	const char	*f[] = { "console", NULL };
	struct termios	 t;
	struct sigaction sa;
	struct pollfd	 pfd[2];
	char		*r, buf[4096];
	int		 pty = -1, tty, in_eof = 0, i;
	ssize_t		 n;
	long long	 quiet_until = 0;

	r = ctl_call(argv[1], f, NULL, 0, &pty);
	if (r == NULL || strcmp(r, "ok") != 0 || pty < 0)
		fatalx("guest %s: %s", argv[1], r ? r : "no console");
	free(r);
	signal(SIGPIPE, SIG_IGN);
	tty = isatty(0);
	if (tty) {
		fprintf(stderr, "umkit: console of guest %s; Ctrl-] leaves\r\n", argv[1]);
		tcgetattr(0, &saved_tio);
		tio_saved = 1;
		atexit(console_restore);
		/* Not exit() from a handler: a flag the loop sees (poll: EINTR). */
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = console_signal;
		sigaction(SIGTERM, &sa, NULL);
		sigaction(SIGHUP, &sa, NULL);
		t = saved_tio;
		cfmakeraw(&t);
		tcsetattr(0, TCSAFLUSH, &t);
		write_all(pty, "\n", 1);
	}
	pfd[0] = (struct pollfd){ .fd = 0, .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = pty, .events = POLLIN };
	for (;;) {
		int	wait = in_eof ? (int)(quiet_until - now_ms()) : -1;

		if (in_eof && wait <= 0)
			break;
		pfd[0].fd = in_eof ? -1 : 0;
		if (console_stop)
			break;
		if (poll(pfd, 2, wait) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pfd[1].revents & (POLLIN | POLLHUP | POLLERR)) {
			n = read(pty, buf, sizeof buf);
			if (n <= 0)
				break;
			write_all(1, buf, n);
			quiet_until = now_ms() + 500;
		}
		if (!in_eof && (pfd[0].revents & (POLLIN | POLLHUP))) {
			n = read(0, buf, sizeof buf);
			if (n <= 0) {
				/* Not a terminal: stop once the guest is quiet. */
				in_eof = 1;
				quiet_until = now_ms() + 1000;
				continue;
			}
			for (i = 0; tty && i < n; i++)
				if (buf[i] == 0x1d)
					goto out;
			write_all(pty, buf, n);
		}
	}
out:
	console_restore();
	if (tty)
		fprintf(stderr, "\numkit: left the console of %s\n", argv[1]);
	return 0;
}

const struct cmd cmd_console = {
	.name = "console",
	.usage = "console NAME",
	.help =
"A shell in the running guest NAME, on its second serial line.  Ctrl-]\n"
"leaves (the shell stays).  Without a terminal, stdin is typed into the\n"
"shell and output is copied until the guest has been quiet for a second.\n"
"\n"
"Example:\n"
"  umkit console lab\n"
"  echo 'cat /proc/loadavg' | umkit console lab",
	.min_args = 1,
	.max_args = 1,
	.needs_guest = 1,
	.exec = console_main,
};
