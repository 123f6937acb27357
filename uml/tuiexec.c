/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tuiexec.c - running the TUI program (tuiexec.h).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "spawn.h"
#include "tuiexec.h"
#include "util.h"

/* The TUI binary (allocated); exits when it is missing. */
static char *
tui_binary(void)
{
	char	*bin = top_path("build/bin/umkit-tui");

	if (access(bin, X_OK) < 0)
		fatalx("%s: missing (run 'make')", bin);
	return bin;
}

/* Run the TUI in the foreground. */
int
tuiexec_run(char **args)
{
	struct spawn	sp;
	int		rc;

	args[0] = tui_binary();
	spawn_init(&sp, args);
	rc = spawn_run(&sp);
	free(args[0]);
	return rc;
}

/* Start the TUI with its lab pane on fd. */
pid_t
tuiexec_start_lab(const char *root, int fd, const char *view)
{
	char		*argv[10], *bin = tui_binary();
	struct spawn	 sp;
	int		 n = 0;

	argv[n++] = bin;
	argv[n++] = "--root";
	argv[n++] = (char *)root;
	argv[n++] = "--lab-fd";
	argv[n++] = "3";
	if (view != NULL) {
		argv[n++] = "--view";
		argv[n++] = (char *)view;
	}
	argv[n] = NULL;
	spawn_init(&sp, argv);
	sp.fd3 = fd;
	spawn_start(&sp);
	free(bin);
	return sp.pid;
}
