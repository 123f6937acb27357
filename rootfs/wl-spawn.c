/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wl-spawn.c - spawn: N workers that touch memory at a given rate, for
 * the counter-mode and per-cpu drift experiments (seed 001).
 *
 * Each worker owns a region of --size.  It writes one byte to each page
 * in turn (a page fault when the page is new: the mm's rss counter goes
 * up on the CPU the worker runs on) and, when the region is full, drops
 * it with madvise(MADV_DONTNEED) (the counter goes down), at --rate pages
 * per second or as fast as it can.  Workers are threads of one process
 * (one mm, one set of rss counters updated from several CPUs: where a
 * per-cpu counter drifts from its exact sum) or, with --procs, separate
 * single-threaded processes that share nothing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "wl.h"

static long long	o_workers = 2, o_size = 16 << 20, o_rate;
static double		o_time = 5;
static int		o_procs, o_pin;

static volatile sig_atomic_t	stop;

struct worker {
	pthread_t	th;
	int		id;
	uint64_t	touches, drops;
};

/* SIGINT, SIGTERM, SIGHUP: stop touching, report. */
static void
on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* One worker: touch pages until the deadline (0: until a signal). */
static void *
worker_main(void *arg)
{
	struct worker	*w = arg;
	size_t		 pg = (size_t)sysconf(_SC_PAGESIZE);
	size_t		 npages = (size_t)o_size / pg, p = 0, i, batch;
	unsigned char	*mem;
	struct timespec	 nap = { 0, 1000 * 1000 };
	uint64_t	 start, now, end, target;

	if (o_pin)
		wl_pin(w->id % wl_ncpus());
	mem = mmap(NULL, npages * pg, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		wl_fail("worker %d: cannot map %lld bytes", w->id, o_size);
	start = wl_now_ns();
	end = o_time > 0 ? start + (uint64_t)(o_time * 1e9) : 0;
	for (now = start; !stop && (end == 0 || now < end); now = wl_now_ns()) {
		/*
		 * Rate-limited: catch up with the schedule, then nap.  The
		 * guest's timer may be coarse (10 ms at HZ=100), so the pages
		 * owed since the last wake-up are touched in one go.
		 */
		batch = 256;
		if (o_rate > 0) {
			target = (uint64_t)((double)o_rate * (now - start) / 1e9) + 1;
			if (target <= w->touches) {
				nanosleep(&nap, NULL);
				continue;
			}
			batch = target - w->touches;
		}
		for (i = 0; i < batch; i++) {
			mem[p * pg] = (unsigned char)(w->touches++ | 1);
			if (++p == npages) {
				if (madvise(mem, npages * pg, MADV_DONTNEED) < 0)
					wl_fail("worker %d: madvise", w->id);
				w->drops++;
				p = 0;
			}
		}
	}
	munmap(mem, npages * pg);
	return NULL;
}

/* spawn's main. */
static int
sp_run(void)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct worker	*w, *shared;
	uint64_t	 t0, t1, touches = 0, drops = 0;
	double		 secs;
	int		 i, e, st, failed = 0;
	pid_t		*pids;

	if ((size_t)o_size < 2 * (size_t)sysconf(_SC_PAGESIZE))
		wl_usage("--size %lld: want at least two pages", o_size);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	/* Shared memory, so processes can report their counts too. */
	shared = mmap(NULL, o_workers * sizeof *w, PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared == MAP_FAILED)
		wl_fail("mmap");
	w = shared;
	memset(w, 0, o_workers * sizeof *w);
	pids = wl_alloc(o_workers * sizeof *pids);
	t0 = wl_now_ns();
	for (i = 0; i < o_workers; i++) {
		w[i].id = i;
		if (o_procs) {
			if ((pids[i] = fork()) < 0)
				wl_fail("fork");
			if (pids[i] == 0) {
				worker_main(&w[i]);
				_exit(0);
			}
		} else if ((e = pthread_create(&w[i].th, NULL, worker_main, &w[i])) != 0) {
			errno = e;
			wl_fail("cannot start thread %d", i);
		}
	}
	for (i = 0; i < o_workers; i++) {
		if (!o_procs) {
			pthread_join(w[i].th, NULL);
			continue;
		}
		while (waitpid(pids[i], &st, 0) < 0) {
			if (errno != EINTR)
				wl_fail("waitpid");
			/* Interrupted: the workers got the signal too. */
		}
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
			failed = 1;
	}
	t1 = wl_now_ns();
	if (failed)
		wl_failx("a worker process failed");
	for (i = 0; i < o_workers; i++) {
		touches += w[i].touches;
		drops += w[i].drops;
	}
	secs = (t1 - t0) / 1e9;
	wl_out_begin();
	wl_out_str("mode", o_procs ? "procs" : "threads");
	wl_out_int("workers", o_workers);
	wl_out_int("region_mb", o_size >> 20);
	wl_out_int("rate_pages_per_s", o_rate);
	wl_out_num("seconds", secs, 3);
	wl_out_int("touches", (long long)touches);
	wl_out_int("drops", (long long)drops);
	wl_out_num("touches_per_s", touches / secs, 0);
	wl_out_end();
	return 0;
}

static const struct wl_opt sp_opts[] = {
	{ "workers", WL_INT, &o_workers, "N", "workers (default 2)", 1, 1024,
	  NULL, 0 },
	{ "procs", WL_FLAG, &o_procs, NULL, "workers are processes, not threads",
	  0, 0, NULL, 0 },
	{ "size", WL_SIZE, &o_size, "SIZE", "each worker's region (default 16M)",
	  8192, 0, NULL, WL_PCT },
	{ "rate", WL_INT, &o_rate, "PAGES", "pages touched per second per worker "
	  "(default 0: as fast as possible)", 0, 100000000, NULL, 0 },
	{ "time", WL_SECS, &o_time, "SECONDS", "how long (default 5; 0: until "
	  "interrupted)", 0, 1000000, NULL, 0 },
	{ "pin", WL_FLAG, &o_pin, NULL, "pin worker i to CPU i mod CPUs",
	  0, 0, NULL, 0 },
	{ NULL, 0, NULL, NULL, NULL, 0, 0, NULL, 0 }
};

const struct wl_prog wl_spawn = {
	.name = "spawn",
	.summary =
"Workers touching memory at a rate (seed 001's counter experiments):\n"
"each faults in the pages of its region one by one and drops the region\n"
"when full, so its mm's rss counters move on the CPUs it runs on.\n"
"Threads share one mm; --procs makes them processes that share nothing.",
	.example =
"  spawn --workers 4 --rate 2000 --time 10\n"
"  spawn --workers 2 --procs --pin --time 2 --json",
	.opts = sp_opts,
	.run = sp_run,
};
