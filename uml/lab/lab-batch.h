/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * lab-batch.h - running labs: unattended (KTAP, one line per check) or
 * interactively (the TUI with its lab pane, lab-ui.h).  A run boots its
 * own named guest, tied to this process, so nothing outlives it; every
 * run writes its JSON result to the state directory (lab-state.h).
 */
#ifndef UMKIT_LAB_BATCH_H
#define UMKIT_LAB_BATCH_H

#include <stdbool.h>

#include "lab-ex.h"

/* Exit status of a lab run (also documented in the help). */
#define LAB_EXIT_FAILED	1	/* a check failed */
#define LAB_EXIT_FILE	2	/* a lab file error, a bad option */

/* The options of a run. */
struct lab_opts {
	bool		 batch, exam, reset, verbose, hints;
	double		 slow;		/* timeouts are multiplied by it */
	const char	*junit, *json, *record;
	const char	*exercise;	/* --exercise DIR */
	const char	*exercise_id;	/* --exercise-id ID: which (NULL: the first) */
	/*
	 * --base-kernel: steps on the base kernel run on this kernel, steps
	 * that need another variant and debugger steps are skipped (umkit
	 * smoke: the patched kernel, whose patch is against base).  NULL:
	 * every step on its own variant.
	 */
	const char	*base_kernel;
	struct ex_build	 ex;		/* what the exercise gives the guests */
	/* --answers right|wrong: batch answers the student's part itself
	 * (lab-run.h's enum lab_auto; 0: leaves it unanswered). */
	int		 autoans;
	/* Several labs (lab all): how many run at a time, each in a child. */
	int		 jobs;
};

/* Options with their defaults. */
void	lab_opts_init(struct lab_opts *);
/*
 * Run the labs at paths[0..n) unattended, KTAP on stdout (several labs:
 * each a KTAP subtest, run in a child process, jobs of them at a time,
 * printed in order as they end), JUnit and JSON as the options say.  The
 * exit status: 0, LAB_EXIT_FAILED, LAB_EXIT_FILE, EXIT_KIT or 128+N.
 */
int	lab_batch(char **paths, int n, struct lab_opts *);
/* Run the lab at path interactively on this terminal; the exit status. */
int	lab_run_interactive(const char *path, struct lab_opts *);

#endif
