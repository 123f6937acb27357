/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rundir.h - the run directory: run/NAME/ for each live guest, run/log/ for
 * console logs that outlive their guest.
 *
 *   run/NAME/pid        "PID STARTTIME" of the process that owns the guest
 *   run/NAME/uml.pid    UML's main process (host pid: gdb attaches to it)
 *   run/NAME/guest.pid  "PGID PID START": the guest's process group
 *                       (bwrap, or UML), the process whose death ends
 *                       the guest (the sandbox's init, or UML), the
 *                       group leader's start time (field 22 of its stat)
 *   run/NAME/info       key=value lines: variant, cpus, mem_mb, started
 *   run/NAME/ctl.sock   the supervisor's control socket (named guests)
 *   run/NAME/mnt/       the FUSE mirror (named guests)
 *   run/NAME/umkit-NAME UML's own umid directory (mconsole socket)
 *   run/log/NAME.log    the console of the last guest called NAME
 *
 * "run/" is the checkout's run/; in an installed kit it is the user's
 * own (kit_layout in util.h: $XDG_RUNTIME_DIR/umkit, else
 * $XDG_STATE_HOME/umkit/run), and the logs are $XDG_STATE_HOME/umkit/log.
 */
#ifndef UMKIT_RUN_H
#define UMKIT_RUN_H

#include <sys/types.h>

/* 0 if name is a valid guest name ([A-Za-z0-9_-], 1-32 chars). */
int	 run_name_ok(const char *name);
/* The run directory, created if missing (0700 in an installed kit). */
const char *run_top(void);
/* run/NAME (allocated). */
char	*run_dir(const char *name);
/* run/NAME/mnt, where the guest's mirror is mounted (allocated). */
char	*run_mnt(const char *name);
/* run/log/NAME.log (allocated; creates run/log). */
char	*run_log(const char *name);
/* The directory of the console logs, run/log (created). */
const char *run_log_dir(void);
/*
 * A path below run/ ("NAME/mnt", "log/NAME.log") as messages show it:
 * "run/REL" in a checkout, the absolute path in an installed kit.
 */
char	*run_shown(const char *rel);
/*
 * Create run/NAME owned by this process (pid file written).  Fails with
 * EEXIST if a live guest has the name.
 */
int	 run_create(const char *name, pid_t owner);
/* 1 if run/NAME's owner process is alive. */
int	 run_alive(const char *name);
/* Remove run/NAME: kill its UML group, unmount its mirror, delete it. */
void	 run_remove(const char *name);
/* Remove every run/NAME whose owner is gone; returns how many. */
int	 run_cleanup_stale(int verbose);

#endif
