/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * guest.h - one UML guest process: boot it, watch its console, kill it.
 *
 * A guest is the UML kernel binary run as the leader of its own process
 * group (UML forks helpers; killing the group leaves nothing behind) with:
 *   fd 1,2  a pipe to the console reader thread (log file + panic watch)
 *   fd 3    ssl1, the agent's line: the other end is guest.link_fd
 *   fd 4    ssl2, the console shell's line: a pty, master in guest.pty_fd
 *           (not for a one-shot guest: no_console)
 *   fd 5    the scratch disk run/NAME/disk.img (ubd0), unless -d 0
 */
#ifndef UMKIT_GUEST_H
#define UMKIT_GUEST_H

#include <pthread.h>
#include <sys/types.h>

struct guest_opts {
	const char	*variant;	/* patches/<variant>, default "base" */
	const char	*kernel;	/* a kernel binary instead of the variant's */
	char		*kpath;		/* resolved by guest_kernel(); caller frees */
	long		 mem_mb;	/* guest RAM, default 256 */
	int		 cpus;		/* guest CPUs, default 2 */
	int		 aslr;		/* leave host ASLR on for the UML process */
	long		 disk_mb;	/* scratch disk (ubd0, /mnt/disk); 0: none */
	int		 verbose;	/* copy the console to stderr */
	const char	*name;		/* run/NAME and the UML umid */
	const char	*logpath;	/* console log file */
	int		 tmpdir_run;	/* TMPDIR=the run directory for UML
					   (preflight.h: the usual one fails) */
	int		 tied;		/* named guests: stop when the starter dies */
	int		 gdb_stop;	/* exec --gdb: the UML process stops itself
					   (SIGSTOP) just before its exec, for gdb
					   to attach; guest_boot waits for that */
	const char	**adds;		/* --add values (initrd.h), nadds of them */
	int		 nadds;
	struct initrd_list *files;	/* what they add, from initrd_prepare() */
	int		 host_cpu;	/* the host CPU UML runs on, or
					   GUEST_HOST_CPU_AUTO / _ANY */
	const char	*karg;		/* one more kernel parameter, the kit's
					   own (kunit.enable=1), or NULL */
	int		 no_console;	/* no shell on ttyS2: a one-shot guest,
					   which 'umkit console' cannot reach */
};

/*
 * Where a guest's UML processes run on the host.  A system call in the
 * guest is a round trip between UML's kernel process and the stub of
 * the calling process; on two host CPUs of a virtual machine each such
 * wake-up is an inter-processor interrupt, and a 4 KiB write costs 63 us
 * instead of 12 (tests/bench-pin.sh).  A 2-CPU guest pinned from its
 * start boots slower, though: smp_prepare_cpus() and __cpu_up() spin
 * until the other CPU's thread has run (arch/um/kernel/smp.c:185,199),
 * and on one host CPU that is until the host preempts them.  So a pinned
 * guest boots where the host puts it and guest_pin() moves every thread
 * of it, once it is up and idle, onto one host CPU: AUTO one that none
 * of our other guests is on (none free: not pinned), or the one
 * --host-cpu N or UMKIT_HOST_CPU=N names (the benchmarks: bench.h).
 * The default is ANY, never: two guest CPUs on one host CPU spin when
 * the host preempts a lock holder, and t-workloads' 64 MiB guest under
 * swap pressure (kvbench --size 200%) ran past its 300 s timeout pinned.
 */
#define GUEST_HOST_CPU_AUTO	(-1)
#define GUEST_HOST_CPU_ANY	(-2)

#define GUEST_DEFAULT_MEM_MB	256
#define GUEST_DEFAULT_CPUS	2
#define GUEST_MAX_CPUS		16
/* How long a guest may take from exec to the agent's hello. */
#define BOOT_TIMEOUT_MS		20000

struct guest {
	struct guest_opts o;
	char		*rundir;	/* run/NAME */
	char		*kernel;	/* the binary that was started */
	pid_t		 pid;		/* the process group: UML's main process,
					   or the sandbox (bwrap) around it */
	pid_t		 kpid;		/* UML's main process (gdb, /proc) */
	pid_t		 initpid;	/* the sandbox's pid 1 (bwrap's), or 0 */
	int		 link_fd;	/* host end of ttyS1 */
	int		 pty_fd;	/* master side of ttyS2 */
	int		 con_fd;	/* read end of the console pipe */
	int		 log_fd;
	pthread_t	 con_thread;
	long long	 start_ms;
	long long	 start_us;	/* monotonic, just before the fork */

	pthread_mutex_t	 lock;
	pthread_cond_t	 cond;
	/* Guarded by lock: */
	int		 panicked;	/* a panic or oops line was seen */
	int		 con_eof;	/* the console closed: UML is gone */
	char		*tail[64];	/* the last console lines, a ring */
	unsigned	 ntail;
	int		 panic_line;	/* index in tail order of the first panic line */
};

/* Once the guest is up (its hello), before any command: pin it if AUTO. */
void	 guest_pin(struct guest *g);
/* Default options. */
void	 guest_opts_init(struct guest_opts *);
/* Whether the options boot one of the kit's own kernels (sandbox.h). */
int	 guest_trusted(const struct guest_opts *);
/*
 * Apply one of the options every booting command shares: -m/-c/-d/-V/-k/
 * -A/-v, and 'a' for --add (recorded; initrd_prepare() checks it).
 * Exits with a clear error on a bad value.
 */
void	 guest_opt(struct guest_opts *, int opt, const char *arg);

/*
 * Path of the options' kernel (-k, or the variant's, built first when
 * missing: kbuild_kernel), remembered in o->kpath.  Exits on failure, so call
 * it before creating anything that would need cleaning up.
 */
const char *guest_kernel(struct guest_opts *);

/*
 * Start the guest.  rundir must exist.  Returns 0, or -1 with a message
 * already printed.
 */
int	 guest_boot(struct guest *, struct guest_opts *, const char *rundir);

/* Kill the guest: no process of it is left on return; idempotent. */
void	 guest_kill(struct guest *);
/* Start killing the guest, without waiting (a signal handler's thread). */
void	 guest_signal_kill(struct guest *);

/* Wait up to ms for the console to close (UML exited); 1 if it did. */
int	 guest_wait_gone(struct guest *, int ms);

/* 1 if a panic/oops was seen; prints its lines to stderr when print != 0. */
int	 guest_panicked(struct guest *, int print);

/*
 * Print the last n non-blank console lines to stderr (after a failed
 * boot: the console says why, the log's path alone does not).
 */
void	 guest_print_tail(struct guest *, unsigned n);

/* Release everything (after guest_kill). */
void	 guest_free(struct guest *);

/* A console log's lines from the first panic line on (at most max),
 * allocated; NULL when it has none. */
char	*guest_log_panic(const char *logpath, int max);

/* Kill a UML process group recorded in a pid file, if still alive. */
void	 guest_kill_pidfile(const char *path);

#endif
