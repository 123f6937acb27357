/* SPDX-License-Identifier: GPL-2.0-only */
/* cmd-cleanup.c - umkit cleanup: remove what crashed umkit processes left. */
#define _GNU_SOURCE
#include <stdio.h>

#include "guest/rundir.h"
#include "umkit.h"
#include "util.h"

/* umkit cleanup: remove what crashed guests left behind. */
static int
cleanup_main(int argc, char **argv)
{
	int	n;

	n = run_cleanup_stale(1);
	printf("%d stale guest%s cleaned up\n", n, n == 1 ? "" : "s");
	return 0;
}

const struct cmd cmd_cleanup = {
	.name = "cleanup",
	.usage = "cleanup",
	.help =
"Remove what crashed umkit processes left: UML processes, FUSE mounts and\n"
"run/NAME directories whose owner is gone.  Every other umkit command\n"
"does this first, too.\n"
"\n"
"Example:\n"
"  umkit cleanup",
	.exec = cleanup_main,
};
