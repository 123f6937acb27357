/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * init.c - the guest's /init (PID 1), a static program.
 *
 * Mounts the kernel's file systems and the scratch disk (/dev/ubda at
 * /mnt/disk, when the launcher gave one), puts swap on zram (so anonymous
 * pages can be reclaimed in labs), starts the agent on the host link (ttyS1)
 * and a shell on the console line (ttyS2; none with umkit_console=0
 * on the command line: a one-shot guest), prints its markers and then
 * reaps orphans for ever.  Written in C rather than as a shell script
 * because every command a script runs costs a fork and an exec, several
 * milliseconds each under UML: this way the guest is ready ~100 ms sooner.
 *
 * Console markers (the launcher's benchmarks read them from the log):
 *   umkit-init uptime=SECONDS    when /init started
 *   umkit-disk mount_us=N        how long mounting the scratch disk took
 *   umkit-ready uptime=SECONDS   when the agent was started
 *
 * Its clock stamps (CLOCK_MONOTONIC ns: started, file systems mounted,
 * disk mounted, swap on and the agent about to be forked) go to the agent in
 * UMKIT_BOOT_TIMES, which passes them on in its TIMES reply (umkit exec
 * --timings; uml/link/proto.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define AGENT	"/usr/lib/umkit/umkit-agent"
#define SHELL	"/bin/sh"
#define DISK	"/mnt/disk"
#define RCU_EXPEDITED	"/sys/kernel/rcu_expedited"

#define PATH	"PATH=/usr/local/bin:/bin:/sbin:/usr/bin:/usr/lib/umkit"

static char *const env[] = {
	/* /usr/local/bin first: the user's own programs (umkit exec --add) */
	PATH,
	"HOME=/root",
	"TERM=vt100",
	NULL
};

/* The stamps for the agent, in the order UMKIT_BOOT_TIMES lists them. */
enum { T_INIT, T_MOUNTED, T_DISK, T_SPAWN, T_N };
static unsigned long long	stamp[T_N];

/* Stamp slot i with CLOCK_MONOTONIC in nanoseconds. */
static void
mark(int i)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	stamp[i] = (unsigned long long)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Print "umkit-init: what: error" on the console; /init carries on. */
static void
complain(const char *what)
{
	dprintf(2, "umkit-init: %s: %s\n", what, strerror(errno));
}

/* Mount one file system, making its directory first. */
static void
mnt(const char *type, const char *dir, const char *opts)
{
	mkdir(dir, 0755);
	if (mount(type, dir, type, 0, opts) < 0)
		complain(dir);
}

/* Write a string to a sysfs/procfs file; -1 on failure. */
static int
put(const char *path, const char *s)
{
	int	fd = open(path, O_WRONLY | O_CLOEXEC), r;

	if (fd < 0)
		return -1;
	r = write(fd, s, strlen(s)) == (ssize_t)strlen(s) ? 0 : -1;
	close(fd);
	return r;
}

/* Read the first line of a small file into buf; -1 on failure. */
static int
get(const char *path, char *buf, size_t size)
{
	int	fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t	n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* The first field of /proc/uptime. */
static const char *
uptime(void)
{
	static char	buf[64];

	if (get("/proc/uptime", buf, sizeof buf) < 0)
		return "?";
	buf[strcspn(buf, " ")] = '\0';
	return buf;
}

/*
 * The scratch disk: ext4 made by the launcher (uml/guest/mkdisk.sh), its pages
 * on the file LRU.  noatime: reading a file writes nothing to the disk.
 */
static void
disk(void)
{
	struct timespec	a, b;

	if (access("/dev/ubda", F_OK) < 0)
		return;
	mkdir("/mnt", 0755);
	mkdir(DISK, 0755);
	clock_gettime(CLOCK_MONOTONIC, &a);
	if (mount("/dev/ubda", DISK, "ext4", MS_NOATIME, NULL) < 0) {
		complain("mount /dev/ubda on " DISK);
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	stamp[T_DISK] = (unsigned long long)b.tv_sec * 1000000000 + b.tv_nsec;
	dprintf(1, "umkit-disk mount_us=%ld\n", (long)((b.tv_sec - a.tv_sec) *
	    1000000 + (b.tv_nsec - a.tv_nsec) / 1000));
}

/*
 * Swap on /dev/zram0, sized twice RAM: zram keeps pages compressed, and
 * seed 000's case (kvbench with a data set of twice guest memory) needs
 * more swap than RAM; with pages that do not compress, the OOM killer
 * ends the run as it would with any swap.  The swap header is the version-1
 * layout the kernel's swapon reads: "SWAPSPACE2" in the last 10 bytes of
 * the first page, and at byte 1024 the version (1), the last page index
 * and the number of bad pages (0).
 */
static void
zram_swap(void)
{
	static unsigned char	 page[4096];
	unsigned long		 kb = 0;
	unsigned int		 hdr[3];
	char			 buf[128];
	int			 fd;

	if (access("/sys/block/zram0/disksize", W_OK) < 0)
		return;
	if (get("/proc/meminfo", buf, sizeof buf) < 0 ||
	    sscanf(buf, "MemTotal: %lu kB", &kb) != 1 || kb < 8192)
		return;
	put("/sys/block/zram0/comp_algorithm", "lz4");
	snprintf(buf, sizeof buf, "%luK", kb * 2);
	if (put("/sys/block/zram0/disksize", buf) < 0) {
		complain("zram0 disksize");
		return;
	}
	hdr[0] = 1;
	hdr[1] = (unsigned int)(kb * 2 / 4) - 1;
	hdr[2] = 0;
	memcpy(page + 1024, hdr, sizeof hdr);
	memcpy(page + sizeof page - 10, "SWAPSPACE2", 10);
	if ((fd = open("/dev/zram0", O_WRONLY | O_CLOEXEC)) < 0 ||
	    write(fd, page, sizeof page) != sizeof page || fsync(fd) < 0) {
		complain("/dev/zram0");
		if (fd >= 0)
			close(fd);
		return;
	}
	close(fd);
	if (swapon("/dev/zram0", 0) < 0)
		complain("swapon /dev/zram0");
}

/*
 * Start argv with stdio on tty (a new session with it as controlling tty)
 * and the environment e.  vfork: the child only makes system calls before
 * its execve, and borrows /init's memory instead of copying it into a new
 * host process first (agent.c's do_exec has the figures).
 */
static pid_t
spawn(const char *tty, char *const argv[], int ctty, char *const e[])
{
	sigset_t	none;
	pid_t		pid = vfork();
	int		fd;

	if (pid != 0)
		return pid;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	setsid();
	if (tty != NULL) {
		if ((fd = open(tty, O_RDWR)) < 0)
			_exit(127);
		if (ctty)
			ioctl(fd, TIOCSCTTY, 0);
		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		if (fd > 2)
			close(fd);
	}
	execve(argv[0], argv, e);
	_exit(127);
}

/* Set the guest up, start the agent and the shell, then reap for ever. */
int
main(void)
{
	static char *const agent[] = { AGENT, "/dev/ttyS1", NULL };
	static char *const shell[] = { SHELL, "-l", NULL };
	static char	 times[160];
	char		*aenv[] = { PATH, "HOME=/root", "TERM=vt100", times,
			    NULL };
	pid_t		 shell_pid = -1, pid;
	const char	*con;

	mark(T_INIT);
	mnt("proc", "/proc", NULL);
	dprintf(1, "umkit-init uptime=%s\n", uptime());
	mnt("sysfs", "/sys", NULL);
	/*
	 * Expedited RCU grace periods while /init sets up: the first cgroup2
	 * mount waits for a grace period, 15-40 ms at UML's 100 Hz tick, a
	 * few hundred microseconds expedited.  Back to normal before the
	 * agent starts, so nothing a user runs sees the difference.
	 */
	put(RCU_EXPEDITED, "1");
	mnt("devtmpfs", "/dev", NULL);
	mnt("debugfs", "/sys/kernel/debug", NULL);
	mnt("tracefs", "/sys/kernel/tracing", NULL);
	mnt("cgroup2", "/sys/fs/cgroup", NULL);
	mnt("tmpfs", "/dev/shm", "mode=1777");
	mnt("devpts", "/dev/pts", NULL);
	mkdir("/tmp", 01777);
	sethostname("umkit", 5);
	mark(T_MOUNTED);
	disk();
	zram_swap();

	put(RCU_EXPEDITED, "0");
	mark(T_SPAWN);
	snprintf(times, sizeof times, "UMKIT_BOOT_TIMES=%llu %llu %llu %llu",
	    stamp[T_INIT], stamp[T_MOUNTED], stamp[T_DISK], stamp[T_SPAWN]);
	if (access("/dev/ttyS1", F_OK) == 0 && spawn(NULL, agent, 0, aenv) < 0)
		complain("agent");
	dprintf(1, "umkit-ready uptime=%s\n", uptime());
	/*
	 * The console shell, unless the launcher said there is no console
	 * (umkit_console=0 on the kernel's command line: a one-shot guest,
	 * whose ttyS2 is not even registered, as no other unused line is:
	 * ssl=none, patches/base/0002).
	 */
	con = getenv("umkit_console");
	if ((con == NULL || strcmp(con, "0") != 0) &&
	    access("/dev/ttyS2", F_OK) == 0)
		shell_pid = spawn("/dev/ttyS2", shell, 1, env);

	/* PID 1 must never exit: reap, and keep a shell on the console line. */
	for (;;) {
		pid = wait(NULL);
		if (pid < 0 && errno == ECHILD) {
			pause();
			continue;
		}
		if (pid > 0 && pid == shell_pid)
			shell_pid = spawn("/dev/ttyS2", shell, 1, env);
	}
}
