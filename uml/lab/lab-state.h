/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * lab-state.h - where a user's lab runs keep their files: the per-user
 * state directory ($XDG_STATE_HOME/umkit, default ~/.local/state/umkit;
 * util.h's kit_layout) with results/LAB-TIME-PID.json for every run,
 * progress/LAB.json for the interactive runner's resume, recordings/ and
 * exercise/.
 */
#ifndef UMKIT_LAB_STATE_H
#define UMKIT_LAB_STATE_H

struct lab;

/* The state directory's subdirectory sub, made on demand (allocated). */
char	*lab_state_dir(const char *sub);
/* Where a new run of l writes its JSON result (allocated). */
char	*lab_result_path(const struct lab *l);
/* Forget l's saved progress and old results (--reset). */
void	 lab_reset(const struct lab *l);

#endif
