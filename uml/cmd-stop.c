/* cmd-stop.c - umkit stop: end named guests and remove what they left. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "guest/ctl.h"
#include "guest/rundir.h"
#include "umkit.h"
#include "util.h"

/* umkit stop NAME... */
static int
stop_main(int argc, char **argv)
{
	const char	*f[] = { "stop", NULL };
	char		*r, *dir, *pidf, *s;
	long long	 until;
	int		 i, rc = 0;
	long		 pid;

	for (i = 1; i < argc; i++) {
		if (run_name_ok(argv[i]) < 0)
			fatalx("'%s' is not a guest name", argv[i]);
		dir = run_dir(argv[i]);
		if (!run_alive(argv[i])) {
			if (access(dir, F_OK) == 0) {
				warnmsg("guest %s was stale; cleaned up", argv[i]);
				run_remove(argv[i]);
			} else {
				warnmsg("no guest named '%s' (see 'umkit list')", argv[i]);
				rc = EXIT_KIT;
			}
			free(dir);
			continue;
		}
		r = ctl_call(argv[i], f, NULL, 0, NULL);
		free(r);
		/* Wait for the supervisor to remove run/NAME; force it if not. */
		until = now_ms() + 8000;
		while (access(dir, F_OK) == 0 && now_ms() < until)
			usleep(20000);
		if (access(dir, F_OK) == 0) {
			warnmsg("guest %s: supervisor did not stop; killing it", argv[i]);
			pidf = xasprintf("%s/pid", dir);
			if ((s = read_text(pidf)) != NULL) {
				pid = strtol(s, NULL, 10);
				if (pid > 1)
					kill(pid, SIGKILL);
				free(s);
			}
			free(pidf);
			run_remove(argv[i]);
		}
		free(dir);
	}
	return rc;
}

const struct cmd cmd_stop = {
	.name = "stop",
	.usage = "stop NAME...",
	.help =
"Stop guests: kill the UML processes, unmount the mirror, remove run/NAME.\n"
"A guest whose supervisor died is cleaned up too.\n"
"\n"
"Example:\n"
"  umkit stop lab",
	.min_args = 1,
	.max_args = CMD_ARGS_ANY,
	.exec = stop_main,
};
