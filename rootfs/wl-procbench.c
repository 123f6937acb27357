/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wl-procbench.c - procbench: seed 001's lmbench lat_proc cases.
 *
 *   fork   fork(), the child _exit()s at once, the parent waits
 *   exec   fork(), the child execs a tiny static program, the parent waits
 *   shell  fork(), the child execs /bin/sh -c PROGRAM, the parent waits
 *
 * Microseconds per operation over --iterations, after --warmup untimed
 * ones; optionally pinned to one CPU (children inherit it).  --threaded
 * first starts a second thread that sleeps for the whole run, so the
 * process is multi-threaded while it forks: a lazily per-cpu rss counter
 * switches mode when that thread appears (seed 001's idea), so the two
 * modes can be compared on one kernel.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "wl.h"

#define HELLO	"/usr/lib/umkit/umkit-hello"

enum { C_FORK, C_EXEC, C_SHELL };
static const char *const cases[] = { "fork", "exec", "shell", NULL };

static int		 o_case, o_cpu = -1, o_threaded;
static long long	 o_iter, o_warmup = -1;
static const char	*o_prog = HELLO;

static int		 sleeper[2];

extern char **environ;

/* The second thread: blocks until the run is over. */
static void *
sleeper_main(void *arg)
{
	char	c;

	(void)arg;
	while (read(sleeper[0], &c, 1) < 0 && errno == EINTR)
		;
	return NULL;
}

/* One operation of the case; exits 1 if the child did not exit 0. */
static void
one(void)
{
	char	*argv[4];
	pid_t	 pid;
	int	 st;

	pid = fork();
	if (pid < 0)
		wl_fail("fork");
	if (pid == 0) {
		if (o_case == C_EXEC) {
			argv[0] = (char *)o_prog;
			argv[1] = NULL;
			execve(o_prog, argv, environ);
		} else if (o_case == C_SHELL) {
			argv[0] = "sh";
			argv[1] = "-c";
			argv[2] = (char *)o_prog;
			argv[3] = NULL;
			execve("/bin/sh", argv, environ);
		}
		_exit(o_case == C_FORK ? 0 : 127);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			wl_fail("waitpid");
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		wl_failx("%s: the child failed (status %#x; is %s a program?)",
		    cases[o_case], st, o_case == C_FORK ? "fork" : o_prog);
}

/* procbench's main. */
static int
pb_run(void)
{
	pthread_t	 th;
	double		*us, sum = 0;
	uint64_t	 t0, t1;
	long long	 i, n, warm;

	n = o_iter > 0 ? o_iter : o_case == C_FORK ? 2000 : 500;
	warm = o_warmup >= 0 ? o_warmup : n / 10;
	if (o_case != C_FORK && access(o_prog, X_OK) < 0)
		wl_fail("--prog %s", o_prog);
	if (o_cpu >= 0)
		wl_pin(o_cpu);
	if (o_threaded) {
		if (pipe(sleeper) < 0 ||
		    (errno = pthread_create(&th, NULL, sleeper_main, NULL)) != 0)
			wl_fail("cannot start the second thread");
	}
	us = wl_alloc(n * sizeof *us);
	for (i = 0; i < warm; i++)
		one();
	for (i = 0; i < n; i++) {
		t0 = wl_now_ns();
		one();
		t1 = wl_now_ns();
		us[i] = (t1 - t0) / 1000.0;
		sum += us[i];
	}
	if (o_threaded) {
		close(sleeper[1]);
		pthread_join(th, NULL);
	}
	wl_sort(us, n);
	wl_out_begin();
	wl_out_str("case", cases[o_case]);
	wl_out_int("iterations", n);
	wl_out_int("threaded", o_threaded);
	wl_out_int("cpu", o_cpu);
	wl_out_num("us_per_op", sum / n, 1);
	wl_out_num("min_us", us[0], 1);
	wl_out_num("p50_us", wl_pct_sorted(us, n, 50), 1);
	wl_out_num("p99_us", wl_pct_sorted(us, n, 99), 1);
	wl_out_end();
	return 0;
}

static const struct wl_opt pb_opts[] = {
	{ "case", WL_CHOICE, &o_case, "CASE", "fork, exec or shell (default fork)",
	  0, 0, cases, 0 },
	{ "iterations", WL_INT, &o_iter, "N", "timed operations (default 2000 "
	  "for fork, 500 otherwise)", 1, 100000000, NULL, 0 },
	{ "warmup", WL_INT, &o_warmup, "N", "untimed operations first (default "
	  "a tenth of --iterations)", 0, 100000000, NULL, 0 },
	{ "cpu", WL_CPUS, &o_cpu, "CPU", "pin to this CPU (default: not pinned)",
	  0, 0, NULL, 0 },
	{ "threaded", WL_FLAG, &o_threaded, NULL, "start a second (sleeping) "
	  "thread first", 0, 0, NULL, 0 },
	{ "prog", WL_STR, &o_prog, "PATH", "the program exec and shell run "
	  "(default " HELLO ")", 0, 0, NULL, 0 },
	{ NULL, 0, NULL, NULL, NULL, 0, 0, NULL, 0 }
};

const struct wl_prog wl_procbench = {
	.name = "procbench",
	.summary =
"Process creation cost (seed 001: lmbench lat_proc): fork + exit + wait,\n"
"fork + exec of a tiny static program + wait, or fork + exec of\n"
"/bin/sh -c PROGRAM + wait; microseconds per operation.",
	.example =
"  procbench --case fork --cpu 1\n"
"  procbench --case exec --iterations 200 --threaded --json",
	.opts = pb_opts,
	.run = pb_run,
};
