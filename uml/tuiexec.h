/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tuiexec.h - the launcher's way to run its TUI (build/bin/umkit-tui, or
 * an installed kit's): in the foreground for 'umkit tui' and 'umkit run',
 * or beside the lab runner with its lab pane on a socket.
 */
#ifndef UMKIT_TUIEXEC_H
#define UMKIT_TUIEXEC_H

#include <sys/types.h>

/*
 * Run the TUI with args[1...] (args[0] is set here) and wait for it, the
 * stop signals passed on; its exit status.
 */
int	tuiexec_run(char **args);
/*
 * Start the TUI on root, its lab pane on fd (its descriptor 3), showing
 * view first (or NULL); its pid.
 */
pid_t	tuiexec_start_lab(const char *root, int fd, const char *view);

#endif
