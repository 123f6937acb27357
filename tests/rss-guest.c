/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * umkit-rsscheck - the guest half of the rss-lazy checks: does
 * /proc/self/status count exactly what this process maps, before and after
 * it gains a second thread, and what mode do its rss counters report?
 *
 *   umkit-rsscheck [PAGES [THREADS [HOLD]]]
 *
 * 1. with one thread, maps PAGES anonymous pages and writes to each;
 * 2. starts THREADS - 1 more threads (default 2 in all), each pinned to
 *    its own CPU, then maps PAGES more that the threads write to in equal
 *    shares, so the counters are updated from every CPU;
 * 3. unmaps both while the threads still wait.
 * With HOLD (seconds), it sleeps that long after step 1 and after step 2,
 * so that a watcher (the TUI) sees the process in both modes.
 * After each step, with every thread waiting, it reads RssAnon and
 * RssCounterMode from /proc/self/status (exact sums) and the rss field
 * of /proc/self/stat (the approximate per-cpu read), and prints one line:
 *
 *   rsscheck: threads=T pages=P mode1=M anon1_kB=D mode2=M anon2_kB=D
 *   gap2_pages=G anon3_kB=D
 *
 * anonN_kB is RssAnon's change in step N (exact: P * 4, P * 4 and
 * -2 * P * 4); gap2 is status VmRSS minus stat rss, in pages, after step
 * 2 (0 for exact counters, within the percpu_counter bound for per-cpu
 * ones); modeN is RssCounterMode after step N, "-" on a kernel without
 * the line.  Static, in the rootfs at
 * /usr/lib/umkit/umkit-rsscheck; exits 1 with a message on any failure.
 */
#define _GNU_SOURCE
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MAX_THREADS	64

struct sample {
	long	anon_kb, rss_kb;	/* status RssAnon, VmRSS */
	long	stat_pages;		/* stat field 24 */
	char	mode[16];
};

static long		 npages, nthreads, hold;
static char		*shared;	/* step 2's mapping */
/* ready: all threads exist; go: touch; done: touched; fin: may exit */
static pthread_barrier_t ready, go, done, fin;
/* Read a whole /proc file into a static buffer (no heap: no rss change). */
static const char *
slurp(const char *path)
{
	static char	buf[8192];
	ssize_t		n, len = 0;
	int		fd = open(path, O_RDONLY);

	if (fd < 0)
		err(1, "%s", path);
	while ((n = read(fd, buf + len, sizeof buf - 1 - len)) > 0)
		len += n;
	if (n < 0)
		err(1, "%s", path);
	close(fd);
	buf[len] = '\0';
	return buf;
}

/* The number after "KEY:" in status, or -1. */
static long
status_kb(const char *st, const char *key)
{
	const char	*p = strstr(st, key);

	return p ? atol(p + strlen(key)) : -1;
}

/* Take a sample of the counters. */
static void
sample(struct sample *s)
{
	const char	*st = slurp("/proc/self/status"), *p;
	int		 i;

	s->anon_kb = status_kb(st, "\nRssAnon:");
	s->rss_kb = status_kb(st, "\nVmRSS:");
	if (s->anon_kb < 0 || s->rss_kb < 0)
		errx(1, "/proc/self/status: no RssAnon or VmRSS line");
	snprintf(s->mode, sizeof s->mode, "-");
	if ((p = strstr(st, "\nRssCounterMode:")) != NULL)
		sscanf(p + 16, "%15s", s->mode);
	/* stat: "pid (comm) state ..."; rss is field 24, the 22nd after ')' */
	st = slurp("/proc/self/stat");
	if ((p = strrchr(st, ')')) == NULL)
		errx(1, "/proc/self/stat: no ')'");
	p++;
	for (i = 0; i < 21 && p; i++)
		p = strchr(p + 1, ' ');
	if (p == NULL)
		errx(1, "/proc/self/stat: short");
	s->stat_pages = atol(p + 1);
}

/* Map n anonymous pages. */
static char *
map_pages(long n)
{
	char	*m = mmap(NULL, n * 4096, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED)
		err(1, "mmap %ld pages", n);
	return m;
}

/* Write one byte to each page in [from, to). */
static void
touch(char *m, long from, long to)
{
	for (long i = from; i < to; i++)
		m[i * 4096] = 1;
}

/* Pin the calling thread to one CPU (ignored where that fails). */
static void
pin(long cpu)
{
	cpu_set_t	set;
	long		ncpus = sysconf(_SC_NPROCESSORS_ONLN);

	CPU_ZERO(&set);
	CPU_SET(ncpus > 0 ? cpu % ncpus : 0, &set);
	sched_setaffinity(0, sizeof set, &set);
}

/* Thread id's part of step 2: touch its share of the shared pages. */
static void
share(long id)
{
	long	per = npages / nthreads;

	pthread_barrier_wait(&go);
	touch(shared, id * per, id == nthreads - 1 ? npages : (id + 1) * per);
	pthread_barrier_wait(&done);
}

/* An extra thread: pinned, counted in, touches its share, waits to exit. */
static void *
thread_main(void *arg)
{
	pin((long)arg);
	pthread_barrier_wait(&ready);
	share((long)arg);
	pthread_barrier_wait(&fin);
	return NULL;
}

int
main(int argc, char **argv)
{
	pthread_t	 th[MAX_THREADS];
	struct sample	 s0, s1, s2, s3, s4;
	char		*first;

	npages = argc > 1 ? atol(argv[1]) : 4096;
	nthreads = argc > 2 ? atol(argv[2]) : 2;
	hold = argc > 3 ? atol(argv[3]) : 0;
	if (npages < 1 || nthreads < 1 || nthreads > MAX_THREADS || hold < 0 || argc > 4)
		errx(2, "usage: umkit-rsscheck [PAGES [THREADS (1..%d) [HOLD]]]", MAX_THREADS);

	/* Step 1: one thread.  The baseline is the second sample: in
	 * umkit-guest (this program is part of it) the first sample's
	 * first use of libc leaves one more anonymous page behind it, and
	 * step 1 counted 16388 kB for the 16384 mapped. */
	pin(0);
	sample(&s0);
	sample(&s0);
	first = map_pages(npages);
	touch(first, 0, npages);
	sample(&s1);
	sleep((unsigned)hold);

	/* Step 2: the other threads, each on its CPU, then the shared pages. */
	shared = map_pages(npages);
	if (pthread_barrier_init(&ready, NULL, nthreads) ||
	    pthread_barrier_init(&go, NULL, nthreads) ||
	    pthread_barrier_init(&done, NULL, nthreads) ||
	    pthread_barrier_init(&fin, NULL, nthreads))
		errx(1, "pthread_barrier_init");
	for (long i = 1; i < nthreads; i++)
		if ((errno = pthread_create(&th[i], NULL, thread_main, (void *)i)) != 0)
			err(1, "pthread_create");
	pthread_barrier_wait(&ready);
	/* The new threads' stacks are in rss now: the baseline is taken here. */
	sample(&s2);
	share(0);
	sample(&s3);
	sleep((unsigned)hold);

	/* Step 3: unmap both while the threads still wait. */
	munmap(first, npages * 4096);
	munmap(shared, npages * 4096);
	sample(&s4);
	pthread_barrier_wait(&fin);
	for (long i = 1; i < nthreads; i++)
		pthread_join(th[i], NULL);

	printf("rsscheck: threads=%ld pages=%ld mode1=%s anon1_kB=%ld mode2=%s anon2_kB=%ld"
	    " gap2_pages=%ld anon3_kB=%ld\n", nthreads, npages, s1.mode,
	    s1.anon_kb - s0.anon_kb, s3.mode, s3.anon_kb - s2.anon_kb,
	    s3.rss_kb / 4 - s3.stat_pages, s4.anon_kb - s3.anon_kb);
	return 0;
}
