/* SPDX-License-Identifier: GPL-2.0-only */
/* guest.c - boot a UML guest, log and watch its console, kill it. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <dirent.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/file.h>
#include <sys/personality.h>
#include <sys/syscall.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "disk.h"
#include "guest.h"
#include "initrd.h"
#include "kernel/kbuild.h"
#include "rundir.h"
#include "sandbox.h"
#include "util.h"

#define NTAIL	(sizeof ((struct guest *)0)->tail / sizeof (char *))

/* Lines that mean the guest kernel died or is about to. */
static const char *panic_marks[] = {
	"Kernel panic - not syncing",
	"BUG: ",
	"Oops: ",
	"kernel BUG at",
	"general protection fault",
	"Unable to handle kernel",
	NULL
};

/* Fill in the defaults. */
void
guest_opts_init(struct guest_opts *o)
{
	memset(o, 0, sizeof *o);
	o->variant = getenv("UMKIT_VARIANT") ? getenv("UMKIT_VARIANT") : "base";
	o->mem_mb = GUEST_DEFAULT_MEM_MB;
	o->cpus = GUEST_DEFAULT_CPUS;
	o->disk_mb = DISK_DEFAULT_MB;
	o->host_cpu = GUEST_HOST_CPU_ANY;
	if (getenv("UMKIT_HOST_CPU") != NULL && *getenv("UMKIT_HOST_CPU") != '\0')
		guest_opt(o, 'H', getenv("UMKIT_HOST_CPU"));
}

/* -k's kernel, made absolute: the process's one copy. */
static char	*kernel_abs;

/* Apply one option shared by every command that boots a guest. */
void
guest_opt(struct guest_opts *o, int opt, const char *arg)
{
	char	*end;
	long	 v;

	switch (opt) {
	case 'V':
		if (*arg == '\0' || strchr(arg, '/') != NULL || *arg == '.')
			fatalx("-V %s: not a variant name (see 'umkit variants')", arg);
		o->variant = arg;
		break;
	case 'k':
		/* absolute: the sandbox binds it at the same path */
		free(kernel_abs);
		if ((kernel_abs = realpath(arg, NULL)) == NULL)
			fatalx("-k %s: %s", arg, strerror(errno));
		o->kernel = kernel_abs;
		break;
	case 'm':
		if ((o->mem_mb = parse_mem_mb(arg)) < 32)
			fatalx("-m %s: want a size like 256M or 1G (at least 32M)", arg);
		break;
	case 'c':
		v = strtol(arg, &end, 10);
		if (*arg == '\0' || *end != '\0' || v < 1 || v > GUEST_MAX_CPUS)
			fatalx("-c %s: want a CPU count from 1 to %d", arg, GUEST_MAX_CPUS);
		o->cpus = v;
		break;
	case 'd':
		if ((o->disk_mb = disk_parse_mb(arg)) < 0)
			fatal("-d %s: want a disk size like 2G or 512M (at least "
			    "%dM), or 0 for no disk", arg, DISK_MIN_MB);
		break;
	case 'A':
		o->aslr = 1;
		break;
	case 'v':
		o->verbose = 1;
		break;
	case 'a':		/* --add: checked by initrd_prepare() */
		initrd_add(o, arg);
		break;
	case 'H':		/* --host-cpu, or UMKIT_HOST_CPU */
		if (strcmp(arg, "any") == 0) {
			o->host_cpu = GUEST_HOST_CPU_ANY;
			break;
		}
		if (strcmp(arg, "auto") == 0) {
			o->host_cpu = GUEST_HOST_CPU_AUTO;
			break;
		}
		v = strtol(arg, &end, 10);
		if (*arg == '\0' || *end != '\0' || v < 0 || v >= CPU_SETSIZE ||
		    v >= sysconf(_SC_NPROCESSORS_ONLN))
			fatalx("--host-cpu %s: want a host CPU number, 'auto' or 'any' "
			    "(CPUs 0 to %ld here)", arg, sysconf(_SC_NPROCESSORS_ONLN) - 1);
		o->host_cpu = v;
		break;
	}
}

/* Every thread of root's descendants (not root's own) onto host CPU cpu; how many moved. */
static int
pin_tree(pid_t root, int cpu)
{
	DIR		*pd, *td;
	struct dirent	*pe, *te;
	cpu_set_t	 set;
	char		 path[300], *st, *p;
	long		(*pp)[2] = NULL, ppid;
	size_t		 np = 0, cap = 0, i;
	int		 n = 0, more, *in;

	/* Every process's parent: UML's processes set their own groups. */
	if ((pd = opendir("/proc")) == NULL)
		return 0;
	while ((pe = readdir(pd)) != NULL) {
		if (pe->d_name[0] < '1' || pe->d_name[0] > '9')
			continue;
		snprintf(path, sizeof path, "/proc/%s/stat", pe->d_name);
		if ((st = read_text(path)) == NULL)
			continue;
		/* "pid (comm) state ppid ...": comm may hold ") " */
		if ((p = strrchr(st, ')')) != NULL && sscanf(p + 1, " %*c %ld", &ppid) == 1) {
			if (np == cap)
				pp = xrealloc(pp, (cap = cap ? 2 * cap : 512) * sizeof *pp);
			pp[np][0] = atol(pe->d_name);
			pp[np++][1] = ppid;
		}
		free(st);
	}
	closedir(pd);
	in = xcalloc(np + 1, sizeof *in);
	do {
		more = 0;
		for (i = 0; i < np; i++) {
			if (in[i])
				continue;
			if (pp[i][0] == root)
				in[i] = more = 1;
			else {
				size_t	j;

				for (j = 0; j < np; j++)
					if (in[j] && pp[j][0] == pp[i][1]) {
						in[i] = more = 1;
						break;
					}
			}
		}
	} while (more);
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	for (i = 0; i < np; i++) {
		if (!in[i] || pp[i][0] == root)
			continue;
		snprintf(path, sizeof path, "/proc/%ld/task", pp[i][0]);
		if ((td = opendir(path)) == NULL)
			continue;
		while ((te = readdir(td)) != NULL) {
			cpu_set_t	now;
			pid_t		tid = atoi(te->d_name);

			/* the ones not pinned yet: a thread born during the scan */
			if (tid > 0 && (sched_getaffinity(tid, sizeof now, &now) < 0 ||
			    !CPU_EQUAL(&now, &set)) &&
			    sched_setaffinity(tid, sizeof set, &set) == 0)
				n++;
		}
		closedir(td);
	}
	free(in);
	free(pp);
	return n;
}

/*
 * The host CPU want, or (want < 0) the lowest one with none of our live
 * guests on it (their run/NAME/hostcpu), or -1 when there is none (more
 * guests than CPUs: then the host's balancing serves a lab's timings
 * better than CPUs pinned three deep); written to rundir/hostcpu under a
 * lock, so that guests starting together spread.
 */
static int
pick_host_cpu(const char *rundir, int want)
{
	int		 ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN), cnt[CPU_SETSIZE] = { 0 };
	int		 lock, cpu, best = 0;
	char		*lk = xasprintf("%s/.hostcpu.lock", kit()->run), *f, *t;
	DIR		*d;
	struct dirent	*e;
	FILE		*fp;

	if (ncpu < 1 || ncpu > CPU_SETSIZE)
		ncpu = 1;
	if ((lock = open(lk, O_RDWR | O_CREAT | O_CLOEXEC, 0600)) >= 0)
		flock(lock, LOCK_EX);
	if (want < 0 && (d = opendir(kit()->run)) != NULL) {
		while ((e = readdir(d)) != NULL) {
			if (e->d_name[0] == '.' || run_name_ok(e->d_name) < 0 ||
			    !run_alive(e->d_name))
				continue;
			f = xasprintf("%s/%s/hostcpu", kit()->run, e->d_name);
			if ((t = read_text(f)) != NULL &&
			    (cpu = atoi(t)) >= 0 && cpu < ncpu)
				cnt[cpu]++;
			free(t);
			free(f);
		}
		closedir(d);
	}
	for (cpu = 1; cpu < ncpu; cpu++)
		if (cnt[cpu] < cnt[best])
			best = cpu;
	/* No CPU free of our guests: the host balances better than we pin. */
	if (want < 0 && cnt[best] > 0)
		best = -1;
	if (want >= 0)
		best = want;
	f = xasprintf("%s/hostcpu", rundir);
	if ((fp = fopen(f, "w")) != NULL) {
		fprintf(fp, "%d\n", best);
		fclose(fp);
	}
	free(f);
	if (lock >= 0)
		close(lock);
	free(lk);
	return best;
}

/* Once the guest is up: pin it as its options say (guest.h). */
void
guest_pin(struct guest *g)
{
	int	cpu, pass, quiet = 0;

	if (g->o.host_cpu == GUEST_HOST_CPU_ANY || g->pid <= 0 || g->rundir == NULL)
		return;
	if ((cpu = pick_host_cpu(g->rundir, g->o.host_cpu)) < 0)
		return;
	/*
	 * Our descendants, not only the sandbox's: umkit is the subreaper
	 * of an orphan UML leaves.  Again until two passes 2 ms apart move
	 * none: a thread or process born from one not moved yet while a
	 * pass scanned has its parent's old mask (seen: one thread of a
	 * guest, under load).  Called before any command, so only UML is
	 * below us.
	 */
	for (pass = 0; pass < 32 && quiet < 2; pass++) {
		quiet = pin_tree(getpid(), cpu) > 0 ? 0 : quiet + 1;
		if (quiet < 2)
			usleep(2000);
	}
}

/*
 * The kernel for the options, built on first use (always checked with
 * KSRC; kbuild.h).  An installed kit's kernels are used as they are.
 */
const char *
guest_kernel(struct guest_opts *o)
{
	if (o->kpath != NULL)
		return o->kpath;
	if (o->kernel != NULL) {
		if (access(o->kernel, X_OK) < 0)
			fatal("-k %s", o->kernel);
		return o->kpath = xstrdup(o->kernel);
	}
	return o->kpath = kbuild_kernel(o->variant);
}

/* Append a console line to the ring; note the first panic line. */
static void
con_line(struct guest *g, const char *line)
{
	const char	**m;
	unsigned	  slot = g->ntail % NTAIL;

	pthread_mutex_lock(&g->lock);
	free(g->tail[slot]);
	g->tail[slot] = xstrdup(line);
	g->ntail++;
	if (!g->panicked) {
		for (m = panic_marks; *m != NULL; m++) {
			if (strstr(line, *m) != NULL) {
				g->panicked = 1;
				g->panic_line = g->ntail - 1;
				break;
			}
		}
	}
	pthread_mutex_unlock(&g->lock);
}

/* Console reader: copy to the log (and stderr when verbose), split lines. */
static void *
con_main(void *arg)
{
	struct guest	*g = arg;
	char		 buf[4096], line[512];
	size_t		 ll = 0;
	ssize_t		 n, i;

	for (;;) {
		n = read(g->con_fd, buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (g->log_fd >= 0)
			write_all(g->log_fd, buf, n);
		if (g->o.verbose)
			write_all(2, buf, n);
		for (i = 0; i < n; i++) {
			if (buf[i] == '\n' || ll == sizeof line - 1) {
				line[ll] = '\0';
				if (ll > 0 && line[ll - 1] == '\r')
					line[ll - 1] = '\0';
				con_line(g, line);
				ll = 0;
				if (buf[i] == '\n')
					continue;
			}
			line[ll++] = buf[i];
		}
	}
	if (ll > 0) {
		line[ll] = '\0';
		con_line(g, line);
	}
	pthread_mutex_lock(&g->lock);
	g->con_eof = 1;
	pthread_cond_broadcast(&g->cond);
	pthread_mutex_unlock(&g->lock);
	return NULL;
}

/*
 * Keep host ASLR on for UML (-A).  UML's main() turns randomisation off
 * itself, by setting ADDR_NO_RANDOMIZE and re-executing, unless
 * personality(2) fails; a seccomp filter that fails just that call keeps
 * the host's randomisation.  Called in the child before exec.
 */
static void
keep_aslr(void)
{
	struct sock_filter	f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_personality, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog	prog = { sizeof f / sizeof f[0], f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0)
		dprintf(2, "umkit: cannot keep ASLR on: %s\n", strerror(errno));
}

/* Move fd to number want in the child (before exec). */
static void
child_fd(int fd, int want)
{
	if (fd == want) {
		fcntl(fd, F_SETFD, 0);
		return;
	}
	if (dup2(fd, want) < 0)
		_exit(126);
}

/*
 * Whether the options' kernel is the kit's own (a variant of patches/,
 * or the user's own variants): a smoke variant, a kernel given as a file
 * (-k, a student's exercise, smoke's patched base) is not.
 */
int
guest_trusted(const struct guest_opts *o)
{
	return o->kernel == NULL && !kbuild_is_smoke(o->variant);
}

/* Whether process pid is in a stop (state T). */
static int
stopped_state(pid_t pid)
{
	char	path[64], *t, *p;
	int	stopped = 0;

	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	if ((t = read_text(path)) != NULL && (p = strrchr(t, ')')) != NULL)
		stopped = p[1] == ' ' && p[2] == 'T';
	free(t);
	return stopped;
}

/* The one child of process pid, or 0 while it has none. */
static pid_t
only_child(pid_t pid)
{
	char	path[64], *t;
	long	c = 0;

	snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)pid,
	    (int)pid);
	if ((t = read_text(path)) != NULL)
		c = strtol(t, NULL, 10);
	free(t);
	return c > 1 ? (pid_t)c : 0;
}

/*
 * Whether bwrap failed because a mount or file it was copying went away
 * meanwhile: its "--ro-bind / /" copies every mount below / (another
 * guest's mirror, a user's FUSE mount) and then remounts each copy
 * read-only, so one unmounted in between fails the start ("Can't bind
 * mount /oldroot/ on /newroot/: Unable to apply mount flags: remount
 * .../run/NAME/mnt: No such file or directory").  Trying again works.
 */
static int
sandbox_raced(struct guest *g)
{
	unsigned	i, first;
	int		r = 0;

	pthread_mutex_lock(&g->lock);
	first = g->ntail > NTAIL ? g->ntail - NTAIL : 0;
	for (i = first; i < g->ntail && !r; i++)
		r = strstr(g->tail[i % NTAIL], "bwrap: Can't ") != NULL &&
		    strstr(g->tail[i % NTAIL], "No such file or directory") != NULL;
	pthread_mutex_unlock(&g->lock);
	return r;
}

/*
 * The sandbox's report: its init's host pid (bwrap's child-pid) into
 * g->initpid, the kernel's (init's child) into g->kpid; exec --gdb: once
 * the kernel's process has stopped itself before its exec.  0, or -1 with
 * bwrap's own words on the console (shown).
 */
static int
sandbox_started(struct guest *g, int info[2], int quiet_race)
{
	char		 buf[1024], *p;
	size_t		 n = 0;
	ssize_t		 r;
	struct pollfd	 pfd = { .fd = info[0], .events = POLLIN };
	long long	 until = now_ms() + 10000;
	pid_t		 k = 0;

	close(info[1]);
	while (n < sizeof buf - 1 && memchr(buf, '}', n) == NULL &&
	    now_ms() < until) {
		if (poll(&pfd, 1, 500) <= 0)
			continue;
		if ((r = read(info[0], buf + n, sizeof buf - 1 - n)) <= 0)
			break;
		n += r;
	}
	buf[n] = '\0';
	close(info[0]);
	if ((p = strstr(buf, "\"child-pid\":")) != NULL)
		g->initpid = strtol(p + 12, NULL, 10);
	while (g->initpid > 1 && (k = only_child(g->initpid)) == 0 &&
	    now_ms() < until && !guest_wait_gone(g, 1))
		;
	while (k > 0 && g->o.gdb_stop && !stopped_state(k) && now_ms() < until)
		usleep(1000);
	if (k <= 0) {
		g->initpid = 0;
		guest_wait_gone(g, 2000);
		if (quiet_race && sandbox_raced(g))
			return -2;
		sandbox_forget();
		warnmsg("the sandbox (bwrap) did not start the kernel:");
		guest_print_tail(g, 8);
		return -1;
	}
	g->kpid = k;
	return 0;
}

static int	boot_once(struct guest *, struct guest_opts *, const char *, int);

/*
 * Start the UML process and the console reader; a sandbox start that lost
 * a race with a mount going away (sandbox_raced) is tried again, twice.
 */
int
guest_boot(struct guest *g, struct guest_opts *o, const char *rundir)
{
	int	try, rc;

	for (try = 0; ; try++) {
		if ((rc = boot_once(g, o, rundir, try < 2)) == 0)
			return 0;
		/* Nothing of a failed start is kept (its names, console). */
		guest_free(g);
		if (rc != -2)
			return rc;
		usleep(20000 * (try + 1));
	}
}

/* One start; -2: the sandbox lost a race (quiet_race: not said). */
static int
boot_once(struct guest *g, struct guest_opts *o, const char *rundir,
    int quiet_race)
{
	char		*argv[28], **exe, *initrd;
	int		 sv[2], con[2], ptys = -1, disk = -1, devnull, argc = 0, i;
	int		 info[2] = { -1, -1 }, sandboxed;
	struct sandbox	 sb;
	pid_t		 pid;

	memset(g, 0, sizeof *g);
	g->o = *o;
	g->link_fd = g->pty_fd = g->con_fd = g->log_fd = -1;
	g->pid = -1;
	pthread_mutex_init(&g->lock, NULL);
	pthread_cond_init(&g->cond, NULL);
	g->rundir = xstrdup(rundir);
	g->kernel = xstrdup(guest_kernel(o));

	initrd = top_path("build/rootfs/initramfs.cpio");
	if (access(initrd, R_OK) < 0) {
		warnmsg("%s: missing (run 'make' first)", initrd);
		free(initrd);
		return -1;
	}
	free(initrd);
	/* With --add: run/NAME/initrd, the rootfs and the added files. */
	if ((initrd = initrd_make(o, rundir)) == NULL)
		return -1;

	if (o->disk_mb > 0 && (disk = disk_make(rundir, o->disk_mb)) < 0) {
		free(initrd);
		return -1;
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0 ||
	    pipe2(con, O_CLOEXEC) < 0)
		fatal("socketpair/pipe");
	/*
	 * /init starts a login shell on ttyS2 (init.c); nobody can reach a
	 * one-shot guest's, and it would run beside the command.
	 */
	if (!o->no_console)
		g->pty_fd = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (g->pty_fd >= 0 && grantpt(g->pty_fd) == 0 &&
	    unlockpt(g->pty_fd) == 0 && ptsname(g->pty_fd) != NULL)
		ptys = open(ptsname(g->pty_fd), O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (ptys < 0 && g->pty_fd >= 0) {
		close(g->pty_fd);
		g->pty_fd = -1;
	}
	if (o->logpath != NULL) {
		g->log_fd = open(o->logpath, O_WRONLY | O_CREAT | O_TRUNC |
		    O_CLOEXEC | O_APPEND, 0600);
		if (g->log_fd < 0)
			warnmsg("%s: %s", o->logpath, strerror(errno));
	}

	argv[argc++] = g->kernel;
	argv[argc++] = xasprintf("mem=%ldM", o->mem_mb);
	argv[argc++] = xasprintf("ncpus=%d", o->cpus);
	argv[argc++] = xstrdup("seccomp=on");
	argv[argc++] = xasprintf("initrd=%s", initrd);
	/*
	 * Only the lines the kit uses: con0 (the log), ssl1 (the agent) and
	 * ssl2 (the console shell).  "none" leaves every other one
	 * unregistered (patches/base/0002: "null" registered a tty device
	 * for each of 64 serial lines and 16 consoles).
	 */
	argv[argc++] = xstrdup("con0=null,fd:1");
	argv[argc++] = xstrdup("con=none");
	argv[argc++] = xstrdup("ssl=none");
	argv[argc++] = xstrdup("ssl1=fd:3");
	if (ptys >= 0)
		argv[argc++] = xstrdup("ssl2=fd:4");
	else
		/* To /init's environment (init/main.c:541-554): no shell. */
		argv[argc++] = xstrdup("umkit_console=0");
	/*
	 * By descriptor: UML's ubd= syntax cannot quote ',' or ':' in paths.
	 * Without a disk, a path that cannot exist: UML would otherwise take
	 * a file called root_fs in the current directory as its disk.
	 */
	argv[argc++] = xstrdup(disk >= 0 ? "ubd0=/proc/self/fd/5" :
	    "ubd0=/dev/null/no-disk");
	argv[argc++] = xasprintf("umid=umkit-%s", o->name);
	argv[argc++] = xasprintf("uml_dir=%s/", rundir);
	/* Skip the 40 ms delay-loop calibration; UML hardly uses udelay. */
	argv[argc++] = xstrdup("lpj=10000000");
	if (o->karg != NULL)
		argv[argc++] = xstrdup(o->karg);
	argv[argc++] = xstrdup("quiet");
	argv[argc] = NULL;

	/* Set here, not in the child: no other thread runs yet. */
	if (o->tmpdir_run && setenv("TMPDIR", rundir, 1) < 0)
		fatal("setenv TMPDIR");
	/* The sandbox: bwrap's init is pid 1 of the namespaces, the kernel
	 * its child; fd 6 tells us init's host pid.  exec --gdb: a shell
	 * stops itself before it execs the kernel (inside, raise(SIGSTOP)
	 * is not ours to run). */
	sandboxed = sandbox_use(guest_trusted(o), g->kernel);
	exe = argv;
	if (sandboxed) {
		sandbox_init(&sb);
		sandbox_ro(&sb, g->kernel);
		sandbox_ro(&sb, initrd);
		sandbox_rw(&sb, rundir);
		if (o->tmpdir_run) {
			sandbox_add(&sb, "--setenv");
			sandbox_add(&sb, "TMPDIR");
			sandbox_add(&sb, rundir);
		}
		sandbox_add(&sb, "--info-fd");
		sandbox_add(&sb, "6");
		if (o->gdb_stop) {
			memmove(argv + 3, argv, (argc + 1) * sizeof *argv);
			argv[0] = "/bin/sh";
			argv[1] = "-c";
			argv[2] = "kill -STOP $$; exec \"$0\" \"$@\"";
			exe = sandbox_argv(&sb, argv);
			memmove(argv, argv + 3, (argc + 1) * sizeof *argv);
		} else
			exe = sandbox_argv(&sb, argv);
		if (pipe2(info, O_CLOEXEC) < 0)
			fatal("pipe");
	}
	g->start_us = now_us();
	g->start_ms = g->start_us / 1000;
	pid = fork();
	if (pid < 0)
		fatal("fork");
	if (pid == 0) {
		setpgid(0, 0);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		/* Off as UML would set it anyway, which spares its re-exec. */
		if (o->aslr)
			keep_aslr();
		else
			personality(ADDR_NO_RANDOMIZE);
		devnull = open("/dev/null", O_RDWR);
		/* Park the fds above 10 first so the dup2s cannot clobber them. */
		sv[1] = fcntl(sv[1], F_DUPFD, 10);
		con[1] = fcntl(con[1], F_DUPFD, 10);
		if (ptys >= 0)
			ptys = fcntl(ptys, F_DUPFD, 10);
		if (disk >= 0)
			disk = fcntl(disk, F_DUPFD, 10);
		if (info[1] >= 0)
			info[1] = fcntl(info[1], F_DUPFD, 10);
		child_fd(devnull, 0);
		child_fd(con[1], 1);
		child_fd(con[1], 2);
		child_fd(sv[1], 3);
		if (ptys >= 0)
			child_fd(ptys, 4);
		if (disk >= 0)
			child_fd(disk, 5);
		if (info[1] >= 0)
			child_fd(info[1], 6);
		for (i = 4; i < 1024; i++)
			if (!(i == 4 && ptys >= 0) && !(i == 5 && disk >= 0) &&
			    !(i == 6 && info[1] >= 0))
				close(i);
		signal(SIGPIPE, SIG_DFL);
		/* exec --gdb: wait here for gdb, which catches the exec. */
		if (o->gdb_stop && !sandboxed)
			raise(SIGSTOP);
		execvp(exe[0], exe);
		dprintf(2, "umkit: exec %s: %s\n", exe[0], strerror(errno));
		_exit(127);
	}
	setpgid(pid, pid);
	g->pid = g->kpid = pid;
	if (o->gdb_stop && !sandboxed) {
		int	st;

		while (waitpid(pid, &st, WUNTRACED) < 0 && errno == EINTR)
			;
	}
	for (i = 1; i < argc; i++)
		free(argv[i]);
	if (sandboxed)
		sandbox_free(&sb);
	free(initrd);
	close(sv[1]);
	close(con[1]);
	if (ptys >= 0)
		close(ptys);
	if (disk >= 0)
		close(disk);
	g->link_fd = sv[0];
	g->con_fd = con[0];
	if (pthread_create(&g->con_thread, NULL, con_main, g) != 0)
		fatalx("cannot start the console thread");
	if (sandboxed)
		return sandbox_started(g, info, quiet_race);
	return 0;
}

/*
 * SIGKILL the guest without waiting: in the sandbox, its init (pid 1 of
 * its pid namespace: its death takes every process there with it, and
 * bwrap exits after); without it, the process group.
 */
void
guest_signal_kill(struct guest *g)
{
	if (g->initpid > 1)
		kill(g->initpid, SIGKILL);
	else if (g->pid > 1)
		kill(-g->pid, SIGKILL);
}

/* Whether process pid is gone (reaped, when it became our child). */
static int
gone(pid_t pid)
{
	waitpid(pid, NULL, WNOHANG);
	return kill(pid, 0) < 0 && errno == ESRCH;
}

/*
 * SIGKILL the guest and reap it; when this returns no UML process of it
 * is left (the sandbox's kernel too, should bwrap have died first).
 * Without the sandbox, helpers re-parented to us are reaped (we are a
 * subreaper).
 */
void
guest_kill(struct guest *g)
{
	long long	until = now_ms() + 5000;
	pid_t		r;

	if (g->pid <= 0)
		return;
	guest_signal_kill(g);
	/*
	 * Polled every 0.1 ms: the sandbox's processes are gone ~8 ms after
	 * the kill, and 1 ms steps cost ~0.7 ms of that (make bench-boot's
	 * shutdown.kill, paired).
	 */
	if (g->initpid > 1) {
		while ((r = waitpid(g->pid, NULL, WNOHANG)) == 0 && now_ms() < until)
			usleep(100);
		if (r != g->pid) {
			kill(-g->pid, SIGKILL);
			while (waitpid(g->pid, NULL, 0) < 0 && errno == EINTR)
				;
		}
		while ((!gone(g->initpid) || !gone(g->kpid)) && now_ms() < until)
			usleep(100);
	} else {
		kill(-g->pid, SIGKILL);
		while (waitpid(g->pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	/* Helpers that were re-parented to us (we are a subreaper). */
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	g->pid = g->kpid = g->initpid = -1;
}

/* Wait for console EOF, which comes when every UML process has exited. */
int
guest_wait_gone(struct guest *g, int ms)
{
	struct timespec	ts;
	int		gone;

	deadline_in(&ts, ms);
	pthread_mutex_lock(&g->lock);
	while (!g->con_eof &&
	    pthread_cond_timedwait(&g->cond, &g->lock, &ts) == 0)
		;
	gone = g->con_eof;
	pthread_mutex_unlock(&g->lock);
	return gone;
}

/* Report a panic, printing its lines from the first panic line on. */
int
guest_panicked(struct guest *g, int print)
{
	unsigned	i, first;
	int		p;

	pthread_mutex_lock(&g->lock);
	p = g->panicked;
	if (p && print) {
		first = g->panic_line;
		if (g->ntail > NTAIL && first < g->ntail - NTAIL)
			first = g->ntail - NTAIL;
		/* A little context before the first panic line. */
		for (i = 0; i < 3 && first > 0 &&
		    (g->ntail <= NTAIL || first > g->ntail - NTAIL); i++)
			first--;
		fprintf(stderr, "umkit: guest kernel panic:\n");
		for (i = first; i < g->ntail; i++)
			fprintf(stderr, "    %s\n", g->tail[i % NTAIL]);
	}
	pthread_mutex_unlock(&g->lock);
	return p;
}

/* Print the last n non-blank console lines, indented, to stderr. */
void
guest_print_tail(struct guest *g, unsigned n)
{
	unsigned	i, first, shown = 0;
	const char	*l;

	pthread_mutex_lock(&g->lock);
	first = g->ntail > NTAIL ? g->ntail - NTAIL : 0;
	/* Walk back to the n-th non-blank line, then print forward. */
	for (i = g->ntail; i > first && shown < n; i--) {
		l = g->tail[(i - 1) % NTAIL];
		if (l[strspn(l, " \t")] != '\0')
			shown++;
	}
	if (shown > 0)
		fprintf(stderr, "umkit: the guest console's last lines:\n");
	for (; i < g->ntail; i++) {
		l = g->tail[i % NTAIL];
		if (l[strspn(l, " \t")] != '\0')
			fprintf(stderr, "    %s\n", l);
	}
	pthread_mutex_unlock(&g->lock);
}

/* Free the guest's resources; the process must be dead. */
void
guest_free(struct guest *g)
{
	unsigned	i;

	guest_kill(g);
	if (g->con_fd >= 0) {
		pthread_join(g->con_thread, NULL);
		close(g->con_fd);
		g->con_fd = -1;
	}
	if (g->log_fd >= 0)
		close(g->log_fd);
	if (g->link_fd >= 0)
		close(g->link_fd);
	if (g->pty_fd >= 0)
		close(g->pty_fd);
	g->log_fd = g->link_fd = g->pty_fd = -1;
	for (i = 0; i < NTAIL; i++) {
		free(g->tail[i]);
		g->tail[i] = NULL;
	}
	free(g->rundir);
	free(g->kernel);
	g->rundir = g->kernel = NULL;
}

/* The lines of a console log from its first panic line (at most max). */
char *
guest_log_panic(const char *logpath, int max)
{
	const char	**m;
	char		 *t = read_text(logpath), *p, *first = NULL, *end;
	int		  n;

	if (t == NULL)
		return NULL;
	for (p = t; p != NULL && first == NULL; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		for (m = panic_marks; *m != NULL; m++) {
			end = strchr(p, '\n');
			if (end)
				*end = '\0';
			if (strstr(p, *m) != NULL)
				first = p;
			if (end)
				*end = '\n';
			if (first != NULL)
				break;
		}
	if (first == NULL) {
		free(t);
		return NULL;
	}
	for (end = first, n = 0; end != NULL && n < max; n++)
		if ((end = strchr(end, '\n')) != NULL)
			end++;
	p = end != NULL ? xasprintf("%.*s", (int)(end - first), first) : xstrdup(first);
	free(t);
	return p;
}

/*
 * Kill the guest a pid file names ("PGID PID STARTTIME", rundir.h),
 * if it is still that process: after a reboot the pid may be another's.
 */
void
guest_kill_pidfile(const char *path)
{
	char			*s;
	long			 pid = 0, kpid = 0;
	unsigned long long	 st = 0;
	int			 n;

	if ((s = read_text(path)) == NULL)
		return;
	n = sscanf(s, "%ld %ld %llu", &pid, &kpid, &st);
	free(s);
	if (n < 3 || pid <= 1 || proc_starttime(pid) != st)
		return;
	if (kpid > 1 && kpid != pid)
		kill((pid_t)kpid, SIGKILL);
	kill(-(pid_t)pid, SIGKILL);
}
