/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bench-host.c - whether this host can run two benchmark boots at once
 * without one changing the other's figures (bench.h: bench_default_jobs).
 *
 * Two boots at once, each on a host CPU of its own, are only as good as
 * one at a time when the two CPUs do not share what a guest's work needs
 * of the host.  Under UML every guest fork is a host fork and every guest
 * page table a host one, and on the kit's own 2-CPU development machine
 * (a KVM guest) two host processes forking at once, one per CPU, each
 * took 2.0x as long a fork as one alone (1381 us against 2801 and 2906,
 * 64 MiB mapped), while getppid() took as long either way.  Two boots at
 * once there made procbench's fork 2.3x slower (umkit compare -j 2: 6463
 * us against 2772 us with -j 1), and diluted the slow-fork fixture's
 * effect from +30% to +11%.  So the probe times exactly that: a process
 * with PROBE_MB mapped forking alone on CPU 0, then two at once on CPUs
 * 0 and 1, three times each, and compares the medians.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"
#include "util.h"

#define PROBE_MB	32	/* mapped in each forking process */
#define PROBE_FORKS	60	/* forks timed per process and round */
#define PROBE_ROUNDS	3	/* alone, then two at once, this many times */
#define PROBE_SLOWER	1.3	/* two at once this much slower: one at a time */

/*
 * A forking process pinned to cpu: maps and touches PROBE_MB, waits for
 * a byte on go, forks PROBE_FORKS children that exit at once, and writes
 * its mean microseconds per fork to res (a double); never returns.
 */
static void
probe_child(int cpu, int go, int res)
{
	cpu_set_t	 set;
	char		*p, c;
	long long	 t0;
	double		 us = -1;
	int		 i;
	pid_t		 q;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof set, &set) < 0)
		_exit(1);
	p = mmap(NULL, (size_t)PROBE_MB << 20, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (p == MAP_FAILED || read(go, &c, 1) != 1)
		_exit(1);
	t0 = now_us();
	for (i = 0; i < PROBE_FORKS; i++) {
		if ((q = fork()) == 0)
			_exit(0);
		if (q < 0 || waitpid(q, NULL, 0) != q)
			break;
	}
	if (i == PROBE_FORKS)
		us = (double)(now_us() - t0) / PROBE_FORKS;
	_exit(write(res, &us, sizeof us) == sizeof us ? 0 : 1);
}

/*
 * One round: n forking processes (1 or 2) on CPUs 0 .. n-1, released
 * together; the slowest one's microseconds per fork, or -1.
 */
static double
probe_round(int n)
{
	int	go[2], res[2], i, ok = 1;
	pid_t	pid[2];
	double	us, worst = 0;

	if (pipe2(go, O_CLOEXEC) < 0 || pipe2(res, O_CLOEXEC) < 0)
		fatal("pipe2");
	for (i = 0; i < n; i++)
		if ((pid[i] = fork()) == 0) {
			close(go[1]);
			close(res[0]);
			probe_child(i, go[0], res[1]);
		} else if (pid[i] < 0)
			fatal("fork");
	close(go[0]);
	close(res[1]);
	if (write(go[1], "gg", n) != n)
		ok = 0;
	close(go[1]);
	for (i = 0; i < n; i++)
		if (read(res[0], &us, sizeof us) != sizeof us || us < 0)
			ok = 0;
		else if (us > worst)
			worst = us;
	close(res[0]);
	for (i = 0; i < n; i++)
		while (waitpid(pid[i], NULL, 0) < 0 && errno == EINTR)
			;
	return ok ? worst : -1;
}

/* The median of three. */
static double
med3(const double *v)
{
	double	a = v[0], b = v[1], c = v[2];

	if ((a <= b && b <= c) || (c <= b && b <= a))
		return b;
	if ((b <= a && a <= c) || (c <= a && a <= b))
		return a;
	return c;
}

/*
 * How much slower a fork is with two processes forking at once on CPUs 0
 * and 1 than with one alone on CPU 0 (about 1 on a host whose CPUs do not
 * share what fork needs), or -1 when the probe could not run.
 */
double
bench_host_pair_slowdown(void)
{
	double	alone[PROBE_ROUNDS], pair[PROBE_ROUNDS];
	int	r;

	for (r = 0; r < PROBE_ROUNDS; r++) {
		if ((alone[r] = probe_round(1)) <= 0 ||
		    (pair[r] = probe_round(2)) <= 0)
			return -1;
	}
	return med3(pair) / med3(alone);
}

/*
 * The probe's answer for this boot of the host, from the cache file
 * (cache/host-pair: "BOOT_ID NCPU SLOWDOWN") or measured now and saved
 * there; -1 when it cannot be known.
 */
static double
host_slowdown(int ncpu)
{
	char	*bid = read_text("/proc/sys/kernel/random/boot_id"), *path, *t;
	char	 id[64] = "";
	double	 s = -1, cs;
	int	 cn;
	FILE	*f;

	if (bid != NULL)
		sscanf(bid, "%63s", id);
	free(bid);
	path = xasprintf("%s/host-pair", kit()->cache);
	if (id[0] != '\0' && (t = read_text(path)) != NULL) {
		char	cid[64];

		if (sscanf(t, "%63s %d %lf", cid, &cn, &cs) == 3 &&
		    strcmp(cid, id) == 0 && cn == ncpu && cs > 0)
			s = cs;
		free(t);
	}
	if (s < 0 && (s = bench_host_pair_slowdown()) > 0 && id[0] != '\0') {
		char	*tmp = xasprintf("%s.%ld", path, (long)getpid());

		mkdir_p(kit()->cache, 0755);
		if ((f = fopen(tmp, "we")) != NULL) {
			fprintf(f, "%s %d %.3f\n", id, ncpu, s);
			if (fclose(f) != 0 || rename(tmp, path) != 0)
				unlink(tmp);
		}
		free(tmp);
	}
	free(path);
	return s;
}

/*
 * 2 (an A and a B boot at once) on a host of two CPUs or more whose two
 * forks at once are less than PROBE_SLOWER times as slow as one, else 1;
 * why, in words, into why (at most whylen bytes).
 */
int
bench_host_jobs(char *why, size_t whylen)
{
	int	ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);
	double	s;

	if (ncpu < 2) {
		snprintf(why, whylen, "one host CPU");
		return 1;
	}
	if ((s = host_slowdown(ncpu)) < 0) {
		snprintf(why, whylen, "the host's fork probe did not run");
		return 2;
	}
	if (s >= PROBE_SLOWER) {
		snprintf(why, whylen, "two forks at once on this host take "
		    "%.1fx as long each as one alone, so two boots at once "
		    "would change each other's figures", s);
		return 1;
	}
	snprintf(why, whylen, "two forks at once on this host take %.1fx "
	    "as long each as one alone", s);
	return 2;
}
