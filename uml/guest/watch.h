/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * watch.h - the watchdog of a guest owned by this process: SIGINT,
 * SIGTERM, SIGHUP, SIGQUIT and an optional deadline kill the guest's
 * process group (so blocked link calls fail at once); the caller then
 * asks what happened.
 */
#ifndef UMKIT_WATCH_H
#define UMKIT_WATCH_H

struct guest;
struct watch;

/* Start watching g; timeout_s 0 means no deadline. */
struct watch	*watch_start(struct guest *g, int timeout_s);
/* From now on SIGINT and SIGQUIT do not end the guest (exec --gdb:
 * gdb interrupts the kernel on Ctrl-C). */
void		 watch_pass_sigint(struct watch *);
/* Stop it; returns 0, the signal that arrived, or -1 for the deadline. */
int		 watch_stop(struct watch *);
/* Block the watched signals in the calling thread (before any thread). */
void		 watch_block_signals(void);

#endif
