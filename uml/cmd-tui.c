/* SPDX-License-Identifier: GPL-2.0-only */
/* cmd-tui.c - umkit tui: the TUI on a named guest's mirror or a root. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "guest/rundir.h"
#include "tuiexec.h"
#include "umkit.h"
#include "util.h"

/* umkit tui [--root DIR | NAME] [TUI options...] */
static int
tui_main(int argc, char **argv)
{
	char	**args;
	int	  i, n = 1;

	args = xcalloc(argc + 3, sizeof *args);
	for (i = 1; i < argc; i++) {
		if (argv[i][0] != '-' && (i == 1 || argv[i - 1][0] != '-' ||
		    strchr(argv[i - 1], '=') != NULL) && run_name_ok(argv[i]) == 0) {
			cmd_need_guest(argv[i]);
			args[n++] = "--root";
			args[n++] = run_mnt(argv[i]);
			continue;
		}
		args[n++] = argv[i];
	}
	return tuiexec_run(args);
}

const struct cmd cmd_tui = {
	.name = "tui",
	.usage = "tui [--root DIR | NAME] [--view VIEW] [--dump] [--interval MS]",
	.help =
"Open the TUI on the running guest NAME's mirror, or on any root\n"
"directory: a recording, or / on a Linux machine with debugfs mounted.\n"
"Press ? in the TUI for its keys.\n"
"\n"
"Examples:\n"
"  umkit tui lab\n"
"  umkit tui --root recordings/aging\n"
"  umkit tui --root / --view lru --dump",
	.max_args = CMD_ARGS_ANY,
	.exec = tui_main,
};
