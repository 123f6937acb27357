/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * lab-ui.h - the interactive lab runner: the TUI with its lab pane on
 * the lab's guest, steps run on Enter, predictions asked and judged,
 * progress saved for the next time.
 */
#ifndef UMKIT_LAB_UI_H
#define UMKIT_LAB_UI_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "lab.h"

/*
 * Run lab interactively on this terminal.  *stop (set by a signal)
 * ends it like q does.  gname gets the guest's name (so a signal handler
 * can stop it).  json and junit, when not NULL, also receive the
 * results.  Returns the exit status (0: every check passed).
 */
struct ex_build;
int	lab_interactive(struct lab *, double slow, bool exam,
	    const struct ex_build *, volatile sig_atomic_t *stop, char *gname,
	    size_t gsize, const char *json, const char *junit);

#endif
