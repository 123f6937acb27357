/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * umkit-tlbcheck - does a page taken from a process running on another
 * CPU keep every write the process made to it?  The guest half of
 * tests/t-uml-tlb.sh (patches/base/0007).
 *
 *   umkit-tlbcheck [PAGES [SECONDS]]
 *
 * A child pinned to CPU 1 writes a new value to the first word of each of
 * PAGES anonymous pages (default 64), pass after pass, without a system
 * call, for about a millisecond; then makes one (so that UML syncs its
 * host mappings) and reads every page back: each must hold the last
 * value.  The parent, pinned to CPU 0, meanwhile pages the child's pages
 * out with process_madvise(MADV_PAGEOUT), over and over, for SECONDS
 * (default 2).  A page unmapped while the child kept writing it through
 * a stale host mapping comes back from swap with an older value: a lost
 * write.  Prints one line and exits 1 when a write was lost:
 *
 *   tlbcheck: rounds=R pageouts=P swapped_out=S lost=L
 *
 * rounds: the child's write-sync-check rounds; pageouts: the calls that
 * advised pages; swapped_out: pswpout's rise; lost: pages that read back
 * an older value.  Exits 2 on a usage error, 3 when it could not run
 * (no second CPU, no swap, no process_madvise).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PAGE		4096
#define PASSES		200	/* writes of every page between two syscalls */

/* What the child and the parent share (a MAP_SHARED page). */
struct shared {
	volatile int	 stop;
	volatile long	 rounds, lost;
};

/* Exit 3 with a message: the check could not run here. */
static void
cannot(const char *what)
{
	fprintf(stderr, "umkit-tlbcheck: %s: %s\n", what, strerror(errno));
	exit(3);
}

/* Pin the calling process to one CPU. */
static void
pin(int cpu)
{
	cpu_set_t	set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof set, &set) < 0)
		cannot("sched_setaffinity");
}

/* pswpout of /proc/vmstat, or -1. */
static long
pswpout(void)
{
	char	 line[128];
	long	 v = -1;
	FILE	*f = fopen("/proc/vmstat", "r");

	if (f == NULL)
		return -1;
	while (fgets(line, sizeof line, f) != NULL)
		if (sscanf(line, "pswpout %ld", &v) == 1)
			break;
	fclose(f);
	return v;
}

/* The child: write, sync, check, until told to stop. */
static void
child(struct shared *sh, volatile uint64_t *mem, long npages)
{
	uint64_t	v = 0;
	long		i, pass;

	pin(1);
	while (!sh->stop) {
		for (pass = 0; pass < PASSES; pass++) {
			v++;
			for (i = 0; i < npages; i++)
				mem[i * (PAGE / sizeof *mem)] = v;
		}
		/* A system call: UML syncs the host mappings before return. */
		(void)getppid();
		for (i = 0; i < npages; i++)
			if (mem[i * (PAGE / sizeof *mem)] != v)
				sh->lost++;
		sh->rounds++;
	}
	_exit(0);
}

/* Seconds of CLOCK_MONOTONIC. */
static double
now(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int
main(int argc, char **argv)
{
	long		 npages = 64, pageouts = 0, out0, out1;
	double		 secs = 2, end;
	struct shared	*sh;
	uint64_t	*mem;
	struct iovec	 iov;
	char		*e;
	pid_t		 pid;
	int		 pidfd, st;

	if (argc > 3 || (argc > 1 && argv[1][0] == '-')) {
		fprintf(stderr, "usage: umkit-tlbcheck [PAGES [SECONDS]]\n"
		    "  e.g. umkit-tlbcheck 64 2: 64 pages paged out for 2 s while\n"
		    "  another CPU writes them; exit 1 if a write was lost\n");
		return 2;
	}
	if (argc > 1) {
		npages = strtol(argv[1], &e, 10);
		if (*e != '\0' || npages < 1 || npages > 65536) {
			fprintf(stderr, "umkit-tlbcheck: PAGES %s: not 1..65536\n", argv[1]);
			return 2;
		}
	}
	if (argc > 2) {
		secs = strtod(argv[2], &e);
		if (*e != '\0' || !(secs > 0 && secs <= 600)) {
			fprintf(stderr, "umkit-tlbcheck: SECONDS %s: not in (0, 600]\n", argv[2]);
			return 2;
		}
	}
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		errno = ENODEV;
		cannot("one CPU");
	}
	sh = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	mem = mmap(NULL, npages * PAGE, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED || mem == MAP_FAILED)
		cannot("mmap");
	memset(mem, 1, npages * PAGE);
	out0 = pswpout();
	if ((pid = fork()) < 0)
		cannot("fork");
	if (pid == 0)
		child(sh, mem, npages);
	pin(0);
	if ((pidfd = (int)syscall(SYS_pidfd_open, pid, 0)) < 0) {
		kill(pid, SIGKILL);
		cannot("pidfd_open");
	}
	/* The child's copy of the pages: the same addresses in its mm. */
	iov.iov_base = mem;
	iov.iov_len = npages * PAGE;
	for (end = now() + secs; now() < end;) {
		if (syscall(SYS_process_madvise, pidfd, &iov, 1UL, MADV_PAGEOUT, 0U) > 0)
			pageouts++;
		else if (errno != EAGAIN && errno != EINTR) {
			kill(pid, SIGKILL);
			cannot("process_madvise");
		}
	}
	sh->stop = 1;
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		fprintf(stderr, "umkit-tlbcheck: the child did not exit cleanly\n");
		return 1;
	}
	out1 = pswpout();
	printf("tlbcheck: rounds=%ld pageouts=%ld swapped_out=%ld lost=%ld\n",
	    sh->rounds, pageouts, out0 >= 0 && out1 >= 0 ? out1 - out0 : -1L, sh->lost);
	return sh->lost > 0;
}
