/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * exec.c - one command in a fresh or a named guest (exec.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "cov/cov.h"
#include "ctl.h"
#include "exec.h"
#include "gdb.h"
#include "guest.h"
#include "initrd.h"
#include "link/link.h"
#include "oops.h"
#include "preflight.h"
#include "rundir.h"
#include "util.h"
#include "watch.h"

/* exec --gdb: gdb on the one-shot guest, in a thread of its own. */
struct exec_gdb {
	pid_t			 pid;
	struct gdb_kernel	 k;
	char			*setup;
	const char		*batch;		/* --gdb-x FILE, or NULL */
	pthread_t		 thread;
	int			 status;
};

/* Run gdb on the stopped UML process until it quits. */
static void *
exec_gdb_main(void *arg)
{
	struct exec_gdb	*e = arg;

	e->status = gdb_run(e->pid, &e->k, e->setup, e->batch, NULL, 1);
	return NULL;
}

/* Start gdb on the guest that guest_boot left stopped before its exec. */
static struct exec_gdb *
exec_gdb_start(struct guest *g, const char *rundir, const char *batch)
{
	struct exec_gdb	*e = xcalloc(1, sizeof *e);

	e->pid = g->kpid;
	e->batch = batch;
	if (gdb_kernel_find(g->kernel, &e->k) < 0)
		fatal("%s", g->kernel);
	e->setup = xasprintf("%s/gdb-setup.gdb", rundir);
	if (gdb_write_setup(e->setup, &e->k, 1) < 0)
		fatal("%s", e->setup);
	if (batch == NULL)
		fprintf(stderr, "umkit: gdb on the guest's kernel (%s), stopped "
		    "at its first instruction; 'continue' boots it\n", e->k.binary);
	if (pthread_create(&e->thread, NULL, exec_gdb_main, e) != 0)
		fatalx("cannot start the gdb thread");
	return e;
}

/* Wait for gdb to end; its status. */
static int
exec_gdb_end(struct exec_gdb *e)
{
	int	st;

	pthread_join(e->thread, NULL);
	st = e->status;
	unlink(e->setup);
	free(e->setup);
	gdb_kernel_free(&e->k);
	free(e);
	return st;
}

/*
 * exec --timings: the host's stamps (monotonic microseconds) of one
 * one-shot run, and the guest's (its TIMES reply).
 */
struct exec_clock {
	long long		main_us;	/* umkit exec started */
	long long		checks_us;	/* kernel found, host checked */
	long long		rundir_us;	/* run/NAME made */
	long long		fork_us;	/* UML forked (start_us) */
	long long		exit_us;	/* the command's EXIT came */
	long long		kill_us;	/* the guest is killed now */
	long long		gone_us;	/* its processes are reaped */
	long long		end_us;		/* everything cleaned up */
	int			have_times;	/* link_times answered */
	struct link_times	t;
};

/* One line of the timings: name (indent: its depth) and a duration. */
static void
clock_line(int depth, const char *name, long long us)
{
	fprintf(stderr, "%*s%-*s %9.3f\n", 2 + 2 * depth, "", 16 - 2 * depth,
	    name, us / 1000.0);
}

/*
 * Where the guest's clock started, on the host's clock (microseconds),
 * from the TIMES round trip (its midpoint) and the first HELLO (which
 * cannot arrive before it was sent); -1 when the guest's stamps are
 * missing or out of order.  *err: the bound of the mapping's error.
 */
static long long
clock_offset(const struct exec_clock *c, long long *err)
{
	const uint64_t	*g = c->t.guest_ns;
	const int	 order[] = { PT_INIT, PT_MOUNTED, PT_DISK, PT_SPAWN,
			    PT_AGENT, PT_HELLO, PT_NOW };
	uint64_t	 last = 0;
	long long	 lo, hi, off, cap;
	size_t		 i;

	for (i = 0; i < sizeof order / sizeof order[0]; i++) {
		if (order[i] == PT_DISK && g[PT_DISK] == 0)
			continue;
		/* Unknown, backwards, or past a guest uptime of a day. */
		if (g[order[i]] == 0 || g[order[i]] < last ||
		    g[order[i]] > 86400ULL * 1000000000)
			return -1;
		last = g[order[i]];
	}
	lo = c->t.sent_us - (long long)(g[PT_NOW] / 1000);
	hi = c->t.recv_us - (long long)(g[PT_NOW] / 1000);
	off = lo + (hi - lo) / 2;
	*err = (hi - lo + 1) / 2;
	if (c->t.hello_us > 0) {
		cap = c->t.hello_us - (long long)(g[PT_HELLO] / 1000);
		if (cap < off)
			off = cap;
	}
	return off >= c->fork_us ? off : -1;
}

/*
 * Print where the time of a one-shot exec went, in ms: stages that follow
 * one another from umkit's start to its end, so they add up to the total
 * (sub-stages, indented, add up to their stage).
 */
static void
clock_print(const struct exec_clock *c)
{
	const uint64_t	*g = c->t.guest_ns;
	long long	 off = -1, err = 0, at[PT_N], prev;
	int		 i;

	if (c->have_times)
		off = clock_offset(c, &err);
	for (i = 0; i < PT_N; i++)
		at[i] = off + (long long)(g[i] / 1000);
	fprintf(stderr, "umkit: timings in ms (host monotonic clock");
	if (off >= 0)
		fprintf(stderr, "; guest stamps mapped onto it within "
		    "+-%.3f ms)\n", err / 1000.0);
	else
		fprintf(stderr, "; %s)\n", c->have_times ? "the guest's stamps "
		    "are out of order: its stages are not split" :
		    "no stamps from the guest: its stages are not split");
	clock_line(0, "launcher", c->fork_us - c->main_us);
	clock_line(1, "checks", c->checks_us - c->main_us);
	clock_line(1, "run-dir", c->rundir_us - c->checks_us);
	clock_line(1, "boot-prep", c->fork_us - c->rundir_us);
	if (off >= 0) {
		clock_line(0, "uml-start", off - c->fork_us);
		clock_line(0, "kernel-init", at[PT_INIT] - off);
		clock_line(0, "init", at[PT_SPAWN] - at[PT_INIT]);
		clock_line(1, "mounts", at[PT_MOUNTED] - at[PT_INIT]);
		prev = at[PT_MOUNTED];
		if (g[PT_DISK] != 0) {
			clock_line(1, "disk", at[PT_DISK] - prev);
			prev = at[PT_DISK];
		}
		clock_line(1, "swap", at[PT_SPAWN] - prev);
		clock_line(0, "agent", c->t.hello_us - at[PT_SPAWN]);
		clock_line(1, "fork-exec", at[PT_AGENT] - at[PT_SPAWN]);
		clock_line(1, "setup", at[PT_HELLO] - at[PT_AGENT]);
		clock_line(1, "hello", c->t.hello_us - at[PT_HELLO]);
		clock_line(0, "command", c->exit_us - c->t.hello_us);
	} else
		clock_line(0, "boot+command", c->exit_us - c->fork_us);
	clock_line(0, "shutdown", c->end_us - c->exit_us);
	clock_line(1, "times-query", c->kill_us - c->exit_us);
	clock_line(1, "kill", c->gone_us - c->kill_us);
	clock_line(1, "cleanup", c->end_us - c->gone_us);
	clock_line(0, "total", c->end_us - c->main_us);
}

/* Print a panic, oops or warning from the console log, decoded. */
static int
exec_report(const char *kernel, const char *logpath)
{
	char	*t = read_text(logpath), *r;
	int	 warn = 0;

	if (t == NULL || (r = oops_find(t, 120, &warn)) == NULL) {
		free(t);
		return 0;
	}
	fprintf(stderr, "umkit: guest kernel %s:\n", warn ? "warning" : "panic");
	oops_print(stderr, kernel, r, "    ");
	free(r);
	free(t);
	return 1;
}

/*
 * One-shot: boot, wait for the agent, run argv (stdin from in_fd, or
 * /dev/null when it is -1), kill the guest.  Returns the command's status
 * or one of the EXIT_* codes.
 */
static int
exec_fresh_io(struct guest_opts *o, int timeout_s, int in_fd, int out_fd,
    int err_fd, char **argv, int gdb, const char *gdb_batch,
    struct exec_clock *c);

/* The same with our stdout and stderr; timings: print where time went. */
int
exec_fresh(struct guest_opts *o, int timeout_s, int in_fd, char **argv,
    int gdb, const char *gdb_batch, long long timings_us)
{
	struct exec_clock	c;
	int			rc;

	if (timings_us <= 0)
		return exec_fresh_io(o, timeout_s, in_fd, 1, 2, argv, gdb,
		    gdb_batch, NULL);
	memset(&c, 0, sizeof c);
	c.main_us = timings_us;
	rc = exec_fresh_io(o, timeout_s, in_fd, 1, 2, argv, gdb, gdb_batch, &c);
	if (c.end_us != 0)
		clock_print(&c);
	return rc;
}

/* One-shot, the command's stdout and stderr both into out_fd. */
int
exec_fresh_to(struct guest_opts *o, int timeout_s, char **argv, int out_fd)
{
	return exec_fresh_io(o, timeout_s, -1, out_fd, out_fd, argv, 0, NULL,
	    NULL);
}

/*
 * exec_fresh with the command's output to out_fd and err_fd; c, when not
 * NULL, gets the run's stamps (end_us set only when the command ran).
 */
static int
exec_fresh_io(struct guest_opts *o, int timeout_s, int in_fd, int out_fd,
    int err_fd, char **argv, int gdb, const char *gdb_batch,
    struct exec_clock *c)
{
	struct guest	 g;
	struct watch	*w;
	struct link	*l = NULL;
	struct exec_gdb	*eg = NULL;
	char		 name[32], *rundir, *log, *tmplog;
	int		 r, status = 0, why, rc;

	initrd_prepare(o);	/* --add: checks; exits on a problem */
	guest_kernel(o);	/* may build; exits on failure, before run/ */
	preflight(o, 0);	/* exits on failure, before run/ too */
	if (c != NULL)
		c->checks_us = now_us();
	snprintf(name, sizeof name, "exec-%d", (int)getpid());
	o->name = name;
	if (run_create(name, getpid()) < 0)
		fatal("cannot create run/%s", name);
	if (c != NULL)
		c->rundir_us = now_us();
	rundir = run_dir(name);
	log = run_log("exec");
	tmplog = run_log(name);
	o->logpath = tmplog;

	prctl(PR_SET_CHILD_SUBREAPER, 1);
	watch_block_signals();
	o->gdb_stop = gdb;
	o->no_console = 1;
	if (guest_boot(&g, o, rundir) < 0) {
		run_remove(name);
		free(o->kpath);
		free(rundir);
		free(log);
		free(tmplog);
		return EXIT_KIT;
	}
	w = watch_start(&g, timeout_s);
	if (gdb) {
		watch_pass_sigint(w);
		eg = exec_gdb_start(&g, rundir, gdb_batch);
	}
	l = link_open(g.link_fd, NULL);
	g.link_fd = -1;		/* the link owns it now */
	/* Under gdb the boot takes as long as the person at gdb's prompt. */
	r = link_hello(l, gdb ? INT_MAX / 2 : BOOT_TIMEOUT_MS);
	if (r == 0 && !gdb)
		guest_pin(&g);
	if (r == 0)
		r = link_exec(l, argv, 0, in_fd, out_fd, err_fd, &status);
	if (c != NULL && r == 0) {
		c->exit_us = now_us();
		c->fork_us = g.start_us;
		c->have_times = link_times(l, &c->t) == 0;
	}
	if (r == 0)
		cov_collect(l, name);	/* with $UMKIT_GCOV_DIR: its counters */
	if (eg != NULL && gdb_traced(g.kpid) && gdb_batch == NULL)
		fprintf(stderr, "umkit: the command ended; the guest is killed "
		    "now: quit gdb\n");
	if (c != NULL)
		c->kill_us = now_us();
	guest_kill(&g);
	if (eg != NULL)
		exec_gdb_end(eg);
	why = watch_stop(w);
	guest_wait_gone(&g, 1000);
	link_close(l);
	if (c != NULL)
		c->gone_us = now_us();

	if (why == -1) {
		warnmsg("timed out after %d s; guest killed", timeout_s);
		rc = EXIT_TIMEOUT;
	} else if (why > 0) {
		rc = 128 + why;
	} else if (guest_panicked(&g, 0)) {
		/* From the log: it has the whole report, decoded if it can be. */
		if (!exec_report(g.kernel, tmplog))
			guest_panicked(&g, 1);
		rc = EXIT_PANIC;
	} else if (r < 0) {
		warnmsg("guest link failed: %s (console log: %s)", strerror(-r), log);
		guest_print_tail(&g, 8);
		rc = EXIT_KIT;
	} else {
		rc = status;
		/* A WARN while the command ran: the guest went on, say so. */
		exec_report(g.kernel, tmplog);
	}
	guest_free(&g);
	free(o->kpath);
	o->kpath = NULL;
	rename(tmplog, log);
	run_remove(name);
	free(rundir);
	free(log);
	free(tmplog);
	if (c != NULL && c->exit_us != 0 && rc != EXIT_PANIC)
		c->end_us = now_us();
	return rc;
}

/* Named guest: the supervisor runs the command with our stdio. */
int
exec_named(const char *name, int timeout_s, int in_fd, char **argv)
{
	int	status;

	if (ctl_exec_io(name, argv, timeout_s, in_fd, 1, 2, &status) < 0) {
		const char	*f[] = { "info", NULL };
		char		*r = ctl_call(name, f, NULL, 0, NULL), *log, k[4096];
		int		 i;

		/* The console's end may come a moment after the link's. */
		for (i = 0; i < 10 && r != NULL && strstr(r, "state=running"); i++) {
			free(r);
			usleep(100000);
			r = ctl_call(name, f, NULL, 0, NULL);
		}
		/* The guest's kernel died under the command: show why. */
		ctl_field(r != NULL ? r : "", "kernel", k, sizeof k);
		log = run_log(name);
		if (r != NULL && strstr(r, "state=panicked") != NULL &&
		    exec_report(k, log)) {
			free(log);
			free(r);
			return EXIT_PANIC;
		}
		free(log);
		free(r);
		return EXIT_KIT;
	}
	return status;
}
