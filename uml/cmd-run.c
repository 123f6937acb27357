/* cmd-run.c - umkit run: a guest, the TUI on it, then stop it (make run). */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "guest/rundir.h"
#include "umkit.h"
#include "util.h"

/* umkit run [start options]: a guest, the TUI on it, then stop it. */
static int
run_main(int argc, char **argv)
{
	char	**sargv, *stop[3], *targs[4];
	char	  name[32];
	int	  i, n = 0, rc;

	if (!isatty(0) || !isatty(1))
		fatalx("run needs a terminal (for the TUI); try 'umkit start' and 'umkit tui'");
	snprintf(name, sizeof name, "run-%d", (int)getpid());
	sargv = xcalloc(argc + 4, sizeof *sargv);
	sargv[n++] = "start";
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-n") == 0)
			fatalx("run names its guest itself; use 'umkit start -n' instead");
		sargv[n++] = argv[i];
	}
	sargv[n++] = "-n";
	sargv[n++] = name;
	optind = 0;
	if ((rc = cmd_start.exec(n, sargv)) != 0)
		return rc;
	targs[1] = "--root";
	targs[2] = run_mnt(name);
	targs[3] = NULL;
	rc = tui_spawn(targs);
	stop[0] = "stop";
	stop[1] = name;
	stop[2] = NULL;
	cmd_stop.exec(2, stop);
	free(targs[2]);
	free(sargv);
	return rc;
}

const struct cmd cmd_run = {
	.name = "run",
	.usage = "run [-V VARIANT] [-m MEM] [-c CPUS] [-A]",
	.help =
"What 'make run' does: start a guest, open the TUI on its mirror, and\n"
"stop the guest when the TUI quits (q).  Needs a terminal.\n"
"\n"
"Example:\n"
"  umkit run -c 4",
	.max_args = CMD_ARGS_ANY,
	.exec = run_main,
};
