/* SPDX-License-Identifier: GPL-2.0-only */
/* gdb.c - gdb on a guest's UML kernel: its files, the set-up, running gdb. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gdb.h"
#include "kernel/kbuild.h"
#include "spawn.h"
#include "util.h"

/*
 * The host signals UML 7.2 uses for itself (arch/um/os-Linux: signal.c,
 * time.c, smp.c, sigio.c, process.c), each seen arriving at the kernel
 * process under gdb on this kit's guests (docs/debugging.md).  gdb must
 * hand them to UML at once and quietly: stopping on each would stop the
 * kernel many times a second.  SIGRTMIN (UML's IPI_SIGNAL) is added at
 * run time, as gdb names it by number.
 */
static const char *const uml_signals[] = {
	"SIGSEGV",	/* kernel-mode faults UML resolves itself */
	"SIGIO",	/* interrupts: console, serial lines, disk, sigio helper */
	"SIGALRM",	/* the per-CPU timers (timer_create, SIGEV_THREAD_ID) */
	"SIGVTALRM",	/* older UML timers; harmless to pass */
	"SIGWINCH",	/* console window changes (the winch helper) */
	"SIGUSR1",	/* power management wake-up (register_pm_wake_signal) */
	"SIGCHLD",	/* seccomp mode: a user-space stub process stopped */
	"SIGPROF",	/* profiling timers inherited from the host */
	NULL
};

/* Whether file exists and is readable. */
static int
readable(const char *path)
{
	return access(path, R_OK) == 0;
}

/*
 * Whether kernel binary path is build/k/VARIANT/linux of one of the
 * kit's own variants (kbuild.h: not a smoke tree, not an exercise).
 */
static int
tree_trusted(const char *path)
{
	char		*k = top_path("build/k"), *rk = realpath(k, NULL), *v, *d;
	size_t		 n;
	int		 yes = 0;

	if (rk != NULL && strncmp(path, rk, n = strlen(rk)) == 0 &&
	    path[n] == '/') {
		v = xstrdup(path + n + 1);
		if ((d = strchr(v, '/')) != NULL && strcmp(d, "/linux") == 0) {
			*d = '\0';
			v[kbuild_base_len(v)] = '\0';
			if (strncmp(v, "smoke-", 6) != 0 && strncmp(v, "ex-", 3) != 0 &&
			    (d = variant_dir(v)) != NULL) {
				yes = 1;
				free(d);
			}
		}
		free(v);
	}
	free(rk);
	free(k);
	return yes;
}

/* Fill k from the binary's path: obj/ and src/ beside it. */
int
gdb_kernel_find(const char *path, struct gdb_kernel *k)
{
	char	*dir, *p, *cfg;

	memset(k, 0, sizeof *k);
	if (!readable(path))
		return -1;
	k->binary = realpath(path, NULL);
	if (k->binary == NULL)
		return -1;
	dir = xstrdup(k->binary);
	if ((p = strrchr(dir, '/')) != NULL)
		*p = '\0';
	p = xasprintf("%s/obj", dir);
	if (readable(p))
		k->obj = p;
	else
		free(p);
	p = xasprintf("%s/src", dir);
	if (readable(p))
		k->src = p;
	else
		free(p);
	free(dir);
	k->trusted = tree_trusted(k->binary);
	if (k->obj != NULL) {
		p = xasprintf("%s/vmlinux-gdb.py", k->obj);
		if (readable(p) && k->trusted)
			k->gdbpy = p;
		else
			free(p);
		/* lx-symbols reloads an objfile whose name ends in vmlinux. */
		p = xasprintf("%s/vmlinux", k->obj);
		if (readable(p))
			k->symbols = p;
		else
			free(p);
		p = xasprintf("%s/.config", k->obj);
		if ((cfg = read_text(p)) != NULL) {
			k->debuginfo = strstr(cfg, "\nCONFIG_DEBUG_INFO=y\n") != NULL;
			free(cfg);
		}
		free(p);
	}
	if (k->symbols == NULL)
		k->symbols = xstrdup(k->binary);
	return 0;
}

/* Fill k for build/k/VARIANT/linux. */
int
gdb_kernel_variant(const char *variant, struct gdb_kernel *k)
{
	char	*p = xasprintf("%s/build/k/%s/linux", top_dir(), variant);
	int	 r = gdb_kernel_find(p, k);

	free(p);
	return r;
}

/* Free what gdb_kernel_find allocated. */
void
gdb_kernel_free(struct gdb_kernel *k)
{
	free(k->binary);
	free(k->obj);
	free(k->src);
	free(k->gdbpy);
	free(k->symbols);
	memset(k, 0, sizeof *k);
}

/* The hint for kernels without DWARF. */
const char *
gdb_nodebug_hint(void)
{
	return "this kernel has no debug info: for file:line and source-level "
	    "gdb, boot the VARIANT+debug kernel (-V base+debug; "
	    "docs/debugging.md)";
}

/* Write the set-up commands. */
int
gdb_write_setup(const char *path, const struct gdb_kernel *k, int from_exec)
{
	const char *const	*s;
	FILE			*f;

	if ((f = fopen(path, "w")) == NULL)
		return -1;
	fprintf(f,
"# umkit's gdb set-up for %s (uml/guest/gdb.c)\n"
"set pagination off\n"
"set height 0\n"
"set confirm off\n"
"set print pretty on\n"
"# The host signals UML uses itself: straight through, silently.\n",
	    k->binary);
	for (s = uml_signals; *s != NULL; s++)
		fprintf(f, "handle %s nostop noprint pass\n", *s);
	fprintf(f,
"# Ctrl-C: umkit stops the kernel with SIGUSR2, which UML does not use\n"
"# (gdb's own SIGINT stays blocked in UML's threads): stop, never pass.\n"
"handle SIGUSR2 stop print nopass\n");
	fprintf(f, "handle SIG%d nostop noprint pass\n", SIGRTMIN);
	if (from_exec)
		fprintf(f,
"# exec --gdb: the process stopped itself before exec'ing the kernel;\n"
"# run it to the kernel binary's first instruction.\n"
"handle SIGSTOP nostop noprint nopass\n"
"catch exec\n"
"continue\n"
"delete\n"
"# SIGSTOP stays silent: one shows up as UML starts its CPU threads\n"
"# (clone3); Ctrl-C is SIGUSR2 (above).\n");
	if (!k->debuginfo)
		fprintf(f, "echo umkit: %s\\n\n", gdb_nodebug_hint());
	if (k->obj != NULL && !k->trusted)
		fprintf(f, "echo umkit: this kernel's tree is not the kit's own: "
		    "its gdb helpers (lx-*) are not loaded (docs/security.md)\\n\n");
	if (k->gdbpy != NULL)
		fprintf(f,
"# The kernel's own helpers (CONFIG_GDB_SCRIPTS): lx-dmesg, lx-ps, ...\n"
"add-auto-load-safe-path %s\n"
"source %s\n", k->obj, k->gdbpy);
	if (fclose(f) != 0)
		return -1;
	return 0;
}

/* 1 if /proc/PID/status names a tracer. */
int
gdb_traced(pid_t pid)
{
	char	 path[64], *s, *p;
	int	 t = 0;

	snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	if ((s = read_text(path)) == NULL)
		return 0;
	if ((p = strstr(s, "\nTracerPid:")) != NULL)
		t = strtol(p + 11, NULL, 10) != 0;
	free(s);
	return t;
}

/* The state letter of /proc/PID/task/TID/stat, '?' if gone. */
static char
task_state(pid_t pid, const char *tid)
{
	char	 path[320], *s, *p, c = '?';

	snprintf(path, sizeof path, "/proc/%d/task/%s/stat", (int)pid, tid);
	if ((s = read_text(path)) == NULL)
		return c;
	if ((p = strrchr(s, ')')) != NULL && p[1] == ' ')
		c = p[2];
	free(s);
	return c;
}

/* SIGCONT a UML process gdb left group-stopped. */
int
gdb_resume_stopped(pid_t pid)
{
	char		 path[64];
	DIR		*d;
	struct dirent	*de;
	int		 stopped = 0;

	if (gdb_traced(pid))
		return 0;
	snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
	if ((d = opendir(path)) == NULL)
		return 0;
	while ((de = readdir(d)) != NULL)
		if (de->d_name[0] != '.' && task_state(pid, de->d_name) == 'T')
			stopped = 1;
	closedir(d);
	if (stopped)
		kill(pid, SIGCONT);
	return stopped;
}

/* Start gdb attached to pid; its pid. */
pid_t
gdb_spawn(pid_t pid, const struct gdb_kernel *k, const char *setup,
    const char *batch, char *const extra[], int from_exec, int out_fd)
{
	const char	*gdb = getenv("UMKIT_GDB") ? getenv("UMKIT_GDB") : "gdb";
	char		*argv[32], pidbuf[32];
	struct spawn	 sp;
	int		 argc = 0, i;

	snprintf(pidbuf, sizeof pidbuf, "%d", (int)pid);
	argv[argc++] = (char *)gdb;
	argv[argc++] = "-q";
	/* The helpers are sourced by the set-up, once, for any file name. */
	argv[argc++] = "-iex";
	argv[argc++] = "set auto-load python-scripts off";
	if (batch != NULL) {
		argv[argc++] = "-nx";
		argv[argc++] = "-batch";
	}
	argv[argc++] = "-x";
	argv[argc++] = (char *)setup;
	if (batch != NULL) {
		argv[argc++] = "-x";
		argv[argc++] = (char *)batch;
	}
	for (i = 0; extra != NULL && extra[i] != NULL && argc < 26; i++)
		argv[argc++] = extra[i];
	argv[argc++] = "-p";
	argv[argc++] = pidbuf;
	/* Before its exec the process is still umkit: gdb follows the exec. */
	if (!from_exec)
		argv[argc++] = k->symbols;
	argv[argc] = NULL;

	if (!spawn_findable(gdb))
		fatalx("cannot run %s: not found (install Debian's gdb)", gdb);
	spawn_init(&sp, argv);
	if (out_fd >= 0) {
		sp.in = SPAWN_NULL;
		sp.out = out_fd;
		sp.err = out_fd;
	}
	return spawn_start(&sp);
}

/* Wait for gdb; continue the kernel if gdb left it stopped. */
int
gdb_wait(pid_t child, pid_t pid)
{
	int	st;

	while (waitpid(child, &st, 0) < 0 && errno == EINTR)
		;
	/*
	 * gdb killed: Linux detaches its tracees and they run on; should
	 * one be left in a group stop, continue it.
	 */
	if (gdb_resume_stopped(pid) || WIFSIGNALED(st))
		warnmsg("gdb %s; the guest kernel runs on", WIFSIGNALED(st) ?
		    "was killed" : "left the kernel stopped: continued it");
	if (WIFEXITED(st))
		return WEXITSTATUS(st) == 127 ? -1 : WEXITSTATUS(st);
	return 128 + WTERMSIG(st);
}

static volatile pid_t	interrupt_pid;

/* Ctrl-C: stop the kernel for gdb (see gdb_interrupt). */
static void
interrupt_handler(int sig)
{
	(void)sig;
	gdb_interrupt(interrupt_pid);
}

/* Stop the kernel: gdb sees SIGUSR2 and shows its prompt. */
void
gdb_interrupt(pid_t pid)
{
	if (pid > 1)
		kill(pid, SIGUSR2);
}

/* Run gdb attached to pid and wait for it. */
int
gdb_run(pid_t pid, const struct gdb_kernel *k, const char *setup,
    const char *batch, char *const extra[], int from_exec)
{
	struct sigaction sa, oint, oquit;
	pid_t		 child;
	int		 rc;

	/*
	 * Ctrl-C and Ctrl-\ belong to gdb.  gdb's own interrupt is a
	 * SIGINT to the kernel, which UML's threads keep blocked (the mask
	 * umkit's watchdog set is inherited), so it would never stop:
	 * SIGUSR2 it instead (gdb stops on it and does not pass it on).
	 */
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = SIG_IGN;
	interrupt_pid = pid;
	sigaction(SIGQUIT, &sa, &oquit);
	if (batch == NULL)
		sa.sa_handler = interrupt_handler;
	sigaction(SIGINT, &sa, &oint);
	child = gdb_spawn(pid, k, setup, batch, extra, from_exec, -1);
	rc = gdb_wait(child, pid);
	sigaction(SIGINT, &oint, NULL);
	sigaction(SIGQUIT, &oquit, NULL);
	return rc;
}
