/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * umkit-touch - a guest process whose page accesses a test controls:
 * the uml-walk accuracy check, the test secondary MMU and the aging
 * stress drive it.
 *
 *   umkit-touch MIB            map MIB MiB of private anonymous memory,
 *                              write every page, print "ready PID", then
 *                              run the commands read from stdin
 *   umkit-touch -s MIB SECS    stress: touch, free and fork at random for
 *                              SECS seconds, then print "done PASSES"
 *
 * Commands, one a line, each answered by one line "ok ..." on stdout:
 *
 *   r FIRST COUNT      read one byte of each page of MiB FIRST..FIRST+COUNT-1
 *   w FIRST COUNT      write one byte of each of those pages
 *   b FIRST COUNT N    read them N times over, with no system call between
 *                      (N 0: until the process gets SIGUSR1)
 *   q                  exit
 *
 * Static, in the rootfs at /usr/lib/umkit/umkit-touch.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MIB	(1024L * 1024)

static long	pagesz;
static char	*mem;
static long	mem_mib;
static volatile sig_atomic_t stop;

/* SIGUSR1: end a "b ... 0" loop. */
static void
on_usr1(int sig)
{
	stop = 1;
}

/* Print a message and exit with status 1. */
static void
die(const char *what)
{
	perror(what);
	exit(1);
}

/* Map mib MiB of anonymous memory and write every page once. */
static void
map_memory(long mib)
{
	long	i;

	mem_mib = mib;
	mem = mmap(NULL, mib * MIB, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		die("mmap");
	for (i = 0; i < mib * MIB; i += pagesz)
		mem[i] = 1;
}

/* Read (or write) one byte of each page of the MiB range; returns a sum. */
static long
touch(long first, long count, int write)
{
	volatile char	*p = mem;
	long		 i, sum = 0;

	for (i = first * MIB; i < (first + count) * MIB; i += pagesz) {
		if (write)
			p[i]++;
		else
			sum += p[i];
	}
	return sum;
}

/* Run the commands of stdin (see the header) until "q" or EOF. */
static void
serve(void)
{
	char	line[128], cmd;
	long	first, count, n, i, sum;
	int	got;

	printf("ready %ld\n", (long)getpid());
	fflush(stdout);
	while (fgets(line, sizeof line, stdin) != NULL) {
		n = 1;
		got = sscanf(line, " %c %ld %ld %ld", &cmd, &first, &count, &n);
		if (got >= 1 && cmd == 'q')
			break;
		if (got < 3 || first < 0 || count < 0 || n < 0 ||
		    first + count > mem_mib || strchr("rwb", cmd) == NULL) {
			printf("error: bad command: %s", line);
			fflush(stdout);
			continue;
		}
		sum = 0;
		stop = 0;
		if (cmd == 'b' && n == 0) {
			while (!stop)
				sum += touch(first, count, 0);
		} else {
			for (i = 0; i < (cmd == 'b' ? n : 1); i++)
				sum += touch(first, count, cmd == 'w');
		}
		printf("ok %c %ld %ld %ld\n", cmd, first, count, sum & 1);
		fflush(stdout);
	}
}

/* One random step of the stress: touch, free or fork over the mapping. */
static void
stress_step(void)
{
	long	first = random() % mem_mib;
	long	count = 1 + random() % (mem_mib - first);
	pid_t	pid;

	switch (random() % 8) {
	case 0:	/* give a range back: the next touch faults it in again */
		if (madvise(mem + first * MIB, count * MIB, MADV_DONTNEED) != 0)
			die("madvise");
		break;
	case 1:	/* a second mm sharing the pages copy-on-write */
		pid = fork();
		if (pid < 0)
			die("fork");
		if (pid == 0) {
			touch(first, count, random() % 2);
			_exit(0);
		}
		if (waitpid(pid, NULL, 0) < 0)
			die("waitpid");
		break;
	case 2:
	case 3:
		touch(first, count, 1);
		break;
	default:	/* a hot spot read over and over */
		for (int i = 0; i < 16; i++)
			touch(first, count < 4 ? count : 4, 0);
		break;
	}
}

int
main(int argc, char **argv)
{
	long	mib, secs, passes = 0;
	time_t	end;

	pagesz = sysconf(_SC_PAGESIZE);
	signal(SIGUSR1, on_usr1);
	if (argc == 2 && (mib = atol(argv[1])) > 0) {
		map_memory(mib);
		serve();
		return 0;
	}
	if (argc == 4 && strcmp(argv[1], "-s") == 0 &&
	    (mib = atol(argv[2])) > 0 && (secs = atol(argv[3])) > 0) {
		srandom(getpid());
		map_memory(mib);
		end = time(NULL) + secs;
		while (time(NULL) < end) {
			stress_step();
			passes++;
		}
		printf("done %ld\n", passes);
		return 0;
	}
	fprintf(stderr, "usage: umkit-touch MIB | umkit-touch -s MIB SECS\n");
	return 2;
}
