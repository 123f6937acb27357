/* SPDX-License-Identifier: GPL-2.0-only */
/* cmd-stop.c - umkit stop: end named guests and remove what they left. */
#define _GNU_SOURCE
#include <stdio.h>

#include "guest/ctl.h"
#include "guest/rundir.h"
#include "umkit.h"
#include "util.h"

/* umkit stop NAME... */
static int
stop_main(int argc, char **argv)
{
	int	i, rc = 0;

	for (i = 1; i < argc; i++) {
		if (run_name_ok(argv[i]) < 0)
			fatalx("'%s' is not a guest name", argv[i]);
		if (ctl_stop(argv[i]) < 0) {
			warnmsg("no guest named '%s' (see 'umkit list')", argv[i]);
			rc = EXIT_KIT;
		}
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
