/* SPDX-License-Identifier: GPL-2.0-only */
/* cmd-run.c - umkit run: a guest, the TUI on it, then stop it (make run). */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "guest/ctl.h"
#include "guest/guest.h"
#include "guest/rundir.h"
#include "guest/supervisor.h"
#include "tuiexec.h"
#include "umkit.h"
#include "util.h"

/* umkit run [start options]: a guest, the TUI on it, then stop it. */
static int
run_main(int argc, char **argv)
{
	struct guest_opts	 o;
	char			*targs[4], name[32];
	int			 c, rc;

	if (!isatty(0) || !isatty(1))
		fatalx("run needs a terminal (for the TUI); try 'umkit start' and "
		    "'umkit tui'");
	guest_opts_init(&o);
	while ((c = getopt(argc, argv, "+V:m:c:d:k:Avn:")) != -1) {
		if (c == 'n')
			fatalx("run names its guest itself; use 'umkit start -n' "
			    "instead");
		if (c == '?')
			return cmd_usage(&cmd_run);
		guest_opt(&o, c, optarg);
	}
	if (optind != argc)
		return cmd_usage(&cmd_run);
	snprintf(name, sizeof name, "run-%d", (int)getpid());
	if ((rc = supervisor_start(name, &o, 0)) != 0)
		return rc;
	targs[1] = "--root";
	targs[2] = run_mnt(name);
	targs[3] = NULL;
	rc = tuiexec_run(targs);
	ctl_stop(name);
	free(targs[2]);
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
