/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * gap - lab 04's advanced exercise: how far can the quick (approximate)
 * read of a process's rss lag the exact one, against the number of CPUs
 * that update it?  Measure it, and fit the bound.
 *
 *   gap [CPUS [ROUNDS]]
 *   gap: cpus=K max_gap_pages=G per_cpu_pages=S bound_pages=B rounds=R
 *
 * For each K from 1 to CPUS (default: every online CPU), a fresh child
 * process starts K threads, thread i pinned to CPU i.  In each of ROUNDS
 * rounds (default 128) every thread writes one new page of its own, then
 * all wait while the main thread reads the gap:
 *
 *   gap = resident of /proc/self/statm  -  rss of /proc/self/stat
 *         (exact, every CPU's part)          (approximate: the shared part)
 *
 * both in pages.  G is the largest gap of the K-thread run.  The fit is
 * a line through the origin, G = S x K (least squares: S = sum(K x G) /
 * sum(K x K)), the same on every line; B = K x S is the fitted bound at
 * K CPUs, and the last line's is the bound for all CPUS.  One line per K
 * from 1 to CPUS, printed once every K was measured.  Bad arguments: a
 * message and exit status 2.
 *
 * Run it under the rss-lazy kernel's lazy policy (echo lazy >
 * /sys/module/rss_counter/parameters/mode): each child's counters are
 * then exact atomics until its first thread, and every CPU's part starts
 * at 0 at the switch, so nothing from before the threads is in the gap.
 *
 * What the kernel does (Linux 7.2.12; lines of the base tree,
 * build/k/base/src, unless marked rss-lazy: build/k/rss-lazy/src):
 * - an mm's rss counters are percpu_counters; an update adds to the
 *   updating CPU's part with the default batch (base include/linux/mm.h:
 *   3356-3358 add_mm_counter -> percpu_counter_add; rss-lazy mm.h:
 *   3403-3406 once the mm is per-cpu; include/linux/percpu_counter.h:
 *   69-71 percpu_counter_add -> percpu_counter_add_batch(...,
 *   percpu_counter_batch));
 * - the batch is max(32, 2 x online CPUs) (lib/percpu_counter.c:255 and
 *   262, compute_batch_value): 32 on this guest, and on any machine up to
 *   16 CPUs;
 * - a CPU's part is folded into the shared count as soon as it would
 *   reach the batch, and is 0 after that (lib/percpu_counter.c:120-136,
 *   percpu_counter_add_batch as UML builds it, without
 *   HAVE_CMPXCHG_LOCAL: the fold at 127-131; x86's cmpxchg variant at
 *   93-113 does the same): a part is at most batch - 1 = 31 pages, so one
 *   counter's quick read lags by less than CPUs x batch;
 * - /proc/PID/stat's rss is get_mm_rss(): percpu_counter_read, the shared
 *   count alone (fs/proc/array.c:613; base mm.h:3344-3346, 3392);
 *   /proc/PID/statm's resident sums every CPU's part (fs/proc/task_mmu.c:
 *   98-103, task_statm -> get_mm_counter_sum), as status's RssAnon does
 *   (fs/proc/task_mmu.c:42);
 * - the rss-lazy variant sets up the per-cpu parts at 0 when an mm gains
 *   its second thread (rss-lazy kernel/fork.c:1608,
 *   mm_rss_switch_percpu; rss-lazy mm/rss_counter.c:140,
 *   percpu_counter_init_many(..., 0, ...)); the atomic count taken
 *   before is exact and read by both.
 *
 * So the fitted S comes out near batch - 1 = 31, and the bound of one
 * counter is nr_cpus x (batch - 1), just under nr_cpus x batch: 62 pages
 * here, 130816 at 256 CPUs (batch 512), where it grows as 2 x nr_cpus
 * squared.  stat's rss adds three counters (anon, file, shmem): only
 * anon moves here.  Before 6.2 the error was per thread instead (a task
 * cached up to 64 events: nr_threads x 64).
 *
 * Build: gcc -static -O2 -pthread -o gap gap.c
 * (umkit lab 4 --exercise DIR --exercise-id gap builds and grades it).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_CPUS	64
#define MAX_ROUNDS	4096

struct toucher {
	pthread_t	 th;
	int		 cpu;		/* the CPU this thread runs on */
	char		*area;		/* its own pages, one per round */
	long		 rounds;	/* the rounds it went through */
};

static pthread_barrier_t	bar;
static long			psz, rounds;

/* The whole of a small /proc file into buf, NUL-terminated, or exit. */
static void
slurp(const char *path, char *buf, size_t n)
{
	ssize_t	 got;
	int	 fd = open(path, O_RDONLY);

	if (fd < 0 || (got = read(fd, buf, n - 1)) < 0) {
		perror(path);
		exit(1);
	}
	buf[got] = '\0';
	close(fd);
}

/* Field number nr (1 = the first) of a line of blank-separated numbers
 * (not static: the skeleton leaves it to you). */
long
field(const char *s, int nr)
{
	while (--nr > 0) {
		s += strspn(s, " ");
		s += strcspn(s, " ");
	}
	return strtol(s, NULL, 10);
}

/* The exact rss minus the approximate one, in pages, read now. */
static long
gap_pages(void)
{
	char	 stat[1024], statm[256];
	long	 approx = 0, exact = 0;

	slurp("/proc/self/stat", stat, sizeof stat);
	slurp("/proc/self/statm", statm, sizeof statm);
	/* TODO-BEGIN: set approx to stat's rss (field 24: count from the last ')', which ends field 2, the command name) and exact to statm's resident (its field 2); both are in pages */
	approx = field(strrchr(stat, ')') + 1, 22);
	exact = field(statm, 2);
	/* TODO-END */
	return exact - approx;
}

/* A thread: on its own CPU, one new page a round, then wait for the read. */
static void *
touch(void *arg)
{
	struct toucher	*t = arg;
	long		 r;

	/* TODO-BEGIN: pin this thread to CPU t->cpu alone (a cpu_set_t with that CPU, sched_setaffinity on this thread); exit 1 with a message if that fails */
	cpu_set_t	 set;

	CPU_ZERO(&set);
	CPU_SET(t->cpu, &set);
	if (sched_setaffinity(0, sizeof set, &set) < 0) {
		fprintf(stderr, "gap: cannot pin to CPU %d: %s\n", t->cpu,
		    strerror(errno));
		exit(1);
	}
	/* TODO-END */
	for (r = 0; r < rounds; r++) {
		/* TODO-BEGIN: write one byte to page r of this thread's area t->area (pages of psz bytes), so that its fault counts one anonymous page on this CPU */
		t->area[r * psz] = 1;
		/* TODO-END */
		pthread_barrier_wait(&bar);	/* every thread wrote */
		pthread_barrier_wait(&bar);	/* the main thread read */
	}
	t->rounds = r;
	return NULL;
}

/* In a fresh child: k threads on CPUs 0 .. k-1; the largest gap seen. */
static long
measure(int k)
{
	struct toucher	 t[MAX_CPUS];
	char		*area;
	long		 r, g, max = 0;
	int		 i;

	/* Fault in all the program has mapped while the counters are still
	 * exact atomics (lazy policy: until the first thread), so that
	 * the threads' pages are the only updates after the switch. */
	if (mlockall(MCL_CURRENT) < 0)
		perror("mlockall (going on)");
	(void)gap_pages();
	area = mmap(NULL, (size_t)k * rounds * psz, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (area == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	pthread_barrier_init(&bar, NULL, k + 1);
	for (i = 0; i < k; i++) {
		t[i].cpu = i;
		t[i].area = area + (size_t)i * rounds * psz;
		if (pthread_create(&t[i].th, NULL, touch, &t[i]) != 0) {
			fprintf(stderr, "gap: cannot start thread %d\n", i);
			exit(1);
		}
	}
	for (r = 0; r < rounds; r++) {
		pthread_barrier_wait(&bar);
		g = gap_pages();
		if (g > max)
			max = g;
		pthread_barrier_wait(&bar);
	}
	for (i = 0; i < k; i++)
		if (pthread_join(t[i].th, NULL) != 0 || t[i].rounds != rounds) {
			fprintf(stderr, "gap: thread %d stopped early\n", i);
			exit(1);
		}
	return max;
}

/* A whole number from lo to hi, or exit 2. */
static long
number(const char *s, long lo, long hi, const char *what)
{
	char	*end;
	long	 v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (*s == '\0' || *end != '\0' || errno != 0 || v < lo || v > hi) {
		fprintf(stderr, "gap: %s %s: want %ld to %ld\n", what, s, lo, hi);
		exit(2);
	}
	return v;
}

int
main(int argc, char **argv)
{
	long	 online = sysconf(_SC_NPROCESSORS_ONLN), gap[MAX_CPUS + 1];
	long	 cpus, k;
	double	 per_cpu = 0;
	int	 fd[2], st;
	pid_t	 pid;

	psz = sysconf(_SC_PAGESIZE);
	if (argc > 3) {
		fprintf(stderr, "usage: gap [CPUS [ROUNDS]]\n");
		return 2;
	}
	if (online > MAX_CPUS)
		online = MAX_CPUS;
	cpus = argc > 1 ? number(argv[1], 1, online, "CPUS") : online;
	rounds = argc > 2 ? number(argv[2], 32, MAX_ROUNDS, "ROUNDS") : 128;
	for (k = 1; k <= cpus; k++) {
		if (pipe(fd) < 0 || (pid = fork()) < 0) {
			perror("fork");
			return 1;
		}
		if (pid == 0) {
			close(fd[0]);
			gap[k] = measure(k);
			if (write(fd[1], &gap[k], sizeof gap[k]) != sizeof gap[k])
				_exit(1);
			_exit(0);
		}
		close(fd[1]);
		if (read(fd[0], &gap[k], sizeof gap[k]) != sizeof gap[k])
			gap[k] = -1;
		close(fd[0]);
		if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) ||
		    WEXITSTATUS(st) != 0 || gap[k] < 0) {
			fprintf(stderr, "gap: the run on %ld CPUs failed\n", k);
			return 1;
		}
	}
	/* TODO-BEGIN: fit gap[k] = per_cpu x k through the origin over k = 1 .. cpus (least squares: per_cpu = the sum of k x gap[k] over the sum of k x k) */
	double	 kg = 0, kk = 0;

	for (k = 1; k <= cpus; k++) {
		kg += (double)k * gap[k];
		kk += (double)k * k;
	}
	per_cpu = kg / kk;
	/* TODO-END */
	for (k = 1; k <= cpus; k++)
		printf("gap: cpus=%ld max_gap_pages=%ld per_cpu_pages=%ld "
		    "bound_pages=%ld rounds=%ld\n", k, gap[k],
		    (long)(per_cpu + 0.5), (long)(k * per_cpu + 0.5), rounds);
	return 0;
}
