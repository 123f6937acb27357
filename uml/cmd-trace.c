/* SPDX-License-Identifier: GPL-2.0-only */
/* cmd-trace.c - umkit trace: stream a named guest's trace events. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "guest/ctl.h"
#include "guest/rundir.h"
#include "umkit.h"
#include "util.h"

static volatile sig_atomic_t	trace_stop;

/* Ctrl-C ends 'umkit trace' cleanly. */
static void
trace_sig(int sig)
{
	(void)sig;
	trace_stop = 1;
}

/* Write "0"/"1" into an event's enable file through the mirror. */
static int
trace_enable(const char *name, const char *event, const char *v)
{
	char	*mnt, *p;
	int	 fd, r = -1;

	mnt = run_mnt(name);
	p = xasprintf("%s/sys/kernel/tracing/events/%s/enable", mnt, event);
	free(mnt);
	if ((fd = open(p, O_WRONLY | O_TRUNC)) >= 0) {
		r = write_all(fd, v, 1) == 1 ? 0 : -1;
		close(fd);
	}
	if (r < 0)
		warnmsg("guest %s: cannot set events/%s/enable: %s", name, event,
		    strerror(errno));
	free(p);
	return r;
}

/* umkit trace NAME [EVENT...]: stream trace events of a running guest. */
static int
trace_main(int argc, char **argv)
{
	static const char req[] = "trace\0/sys/kernel/tracing/trace_pipe";
	const char	*def[] = { "compaction", NULL }, **ev;
	struct sigaction sa = { .sa_handler = trace_sig };
	struct pollfd	 p;
	char		*buf;
	ssize_t		 n;
	int		 s, i, nev, rc = 0;

	ev = argc > 2 ? (const char **)argv + 2 : def;
	nev = argc > 2 ? argc - 2 : 1;
	for (i = 0; i < nev; i++) {
		if (strstr(ev[i], "..") != NULL || ev[i][0] == '/')
			fatalx("'%s' is not an event (like compaction or "
			    "compaction/mm_compaction_begin)", ev[i]);
		if (trace_enable(argv[1], ev[i], "1") < 0)
			return EXIT_KIT;
	}
	if ((s = ctl_connect(argv[1])) < 0)
		return EXIT_KIT;
	buf = xmalloc(CTL_MSG_MAX + 1);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (ctl_send(s, req, sizeof req - 1, NULL, 0) < 0 ||
	    ctl_recv(s, buf, NULL, NULL) <= 0 || strcmp(buf, "ok") != 0) {
		warnmsg("guest %s: %s", argv[1], buf);
		rc = EXIT_KIT;
	}
	p = (struct pollfd){ .fd = s, .events = POLLIN };
	while (rc == 0 && !trace_stop) {
		if (poll(&p, 1, 200) <= 0)
			continue;
		if ((n = ctl_recv(s, buf, NULL, NULL)) <= 0)
			break;
		if (strncmp(buf, "error ", 6) == 0) {
			warnmsg("guest %s: %s", argv[1], buf + 6);
			rc = EXIT_KIT;
			break;
		}
		if (write_all(1, buf, n) < 0)
			break;
	}
	close(s);
	free(buf);
	for (i = 0; i < nev; i++)
		trace_enable(argv[1], ev[i], "0");
	return rc;
}

const struct cmd cmd_trace = {
	.name = "trace",
	.usage = "trace NAME [EVENT...]",
	.help =
"Stream trace events of the running guest NAME to stdout until Ctrl-C.\n"
"Each EVENT (default: compaction) is a tracefs subsystem or\n"
"subsystem/event; it is enabled first and disabled again at the end.\n"
"\n"
"Example:\n"
"  umkit trace lab compaction/mm_compaction_begin compaction/mm_compaction_end",
	.min_args = 1,
	.max_args = CMD_ARGS_ANY,
	.needs_guest = 1,
	.exec = trace_main,
};
