/* SPDX-License-Identifier: GPL-2.0-only */
/* watch.c - kill a guest on Ctrl-C, SIGTERM, SIGHUP or a deadline. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>

#include "gdb.h"
#include "guest.h"
#include "watch.h"
#include "util.h"

struct watch {
	struct guest	*g;
	long long	 deadline_ms;	/* 0: none */
	pthread_t	 thread;
	/* Written by the watch thread before it kills the guest, read after
	 * watch_stop joined it. */
	int		 reason;
	volatile int	 pass_int;	/* SIGINT, SIGQUIT: not ours (gdb's) */
};

/* The signals that end a guest; SIGUSR1 only wakes the watcher to quit. */
static void
watch_set(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
	sigaddset(set, SIGQUIT);
	sigaddset(set, SIGUSR1);
}

/* Block them; threads created afterwards inherit the mask. */
void
watch_block_signals(void)
{
	sigset_t	set;

	watch_set(&set);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* Wait for a signal or the deadline; then kill the guest's group. */
static void *
watch_main(void *arg)
{
	struct watch	*w = arg;
	struct timespec	 ts;
	sigset_t	 set;
	long long	 left;
	int		 sig;

	watch_set(&set);
again:
	for (;;) {
		if (w->deadline_ms == 0) {
			sig = sigwaitinfo(&set, NULL);
		} else {
			left = w->deadline_ms - now_ms();
			if (left <= 0) {
				sig = -1;
				errno = EAGAIN;
			} else {
				ts.tv_sec = left / 1000;
				ts.tv_nsec = (left % 1000) * 1000000L;
				sig = sigtimedwait(&set, NULL, &ts);
			}
		}
		if (sig < 0 && errno == EINTR)
			continue;
		break;
	}
	if (sig == SIGUSR1)
		return NULL;
	/* Ctrl-C and Ctrl-\ belong to a gdb on the guest (exec --gdb). */
	if ((sig == SIGINT || sig == SIGQUIT) && w->pass_int) {
		if (sig == SIGINT && w->g->kpid > 0)
			gdb_interrupt(w->g->kpid);
		goto again;
	}
	w->reason = sig < 0 ? -1 : sig;
	guest_signal_kill(w->g);
	return NULL;
}

/* Start watching; timeout_s 0 means no deadline. */
struct watch *
watch_start(struct guest *g, int timeout_s)
{
	struct watch	*w = xcalloc(1, sizeof *w);

	w->g = g;
	if (timeout_s > 0)
		w->deadline_ms = now_ms() + timeout_s * 1000LL;
	if (pthread_create(&w->thread, NULL, watch_main, w) != 0)
		fatalx("cannot start the watch thread");
	return w;
}

/* Leave SIGINT and SIGQUIT to a debugger on the guest. */
void
watch_pass_sigint(struct watch *w)
{
	w->pass_int = 1;
}

/* Stop the watcher (it may already have fired); returns why it fired. */
int
watch_stop(struct watch *w)
{
	int	reason;

	pthread_kill(w->thread, SIGUSR1);
	pthread_join(w->thread, NULL);
	reason = w->reason;
	free(w);
	return reason;
}
