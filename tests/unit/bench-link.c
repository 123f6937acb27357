/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bench-link.c - latency of the guest link itself, without FUSE: boots the
 * kit's kernel with one end of a socketpair as ssl1 (as the launcher
 * does), then times requests through uml/link/link.c.
 *
 *   bench-link KERNEL INITRD [N]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "../bench.h"

#include "link/link.h"

static struct link *L;
static int	N = 500;

/* Time n whole reads of path; print p50/p99. */
static void
lat_read(const char *path)
{
	double	*t = malloc(sizeof(double) * (size_t)N), t0;
	char	*buf;
	ssize_t	 n = 0;
	int	 i;

	for (i = 0; i < N; i++) {
		t0 = bench_now_us();
		n = link_read(L, path, 0, 0, 1, &buf);
		t[i] = bench_now_us() - t0;
		free(buf);
		if (n < 0) {
			printf("%-36s error %zd\n", path, n);
			free(t);
			return;
		}
	}
	printf("read %-31s %6zd B  p50 %6.0f us  p99 %6.0f us\n", path, n,
	    bench_pct(t, (size_t)N, 50), bench_pct(t, (size_t)N, 99));
	free(t);
}

/* One reader thread: N/4 reads of vmstat. */
static void *
reader(void *arg)
{
	char	*buf;
	int	 i;

	for (i = 0; i < N; i++) {
		if (link_read(L, "/proc/vmstat", 0, 0, 1, &buf) < 0)
			__atomic_add_fetch((int *)arg, 1, __ATOMIC_SEQ_CST);
		free(buf);
	}
	return NULL;
}

/* Reads per second with k threads. */
static void
throughput(int k)
{
	pthread_t	t[16];
	double		t0, dt;
	int		i, errs = 0;

	t0 = bench_now_us();
	for (i = 0; i < k; i++)
		pthread_create(&t[i], NULL, reader, &errs);
	for (i = 0; i < k; i++)
		pthread_join(t[i], NULL);
	dt = bench_now_us() - t0;
	printf("read /proc/vmstat, %d thread%s: %8.0f reads/s (%d errors)\n",
	    k, k > 1 ? "s" : "", k * N / (dt / 1e6), errs);
}

/* Boot KERNEL and INITRD on a socketpair, then time requests over the link. */
int
main(int argc, char **argv)
{
	char	 initrd[4200];
	char	*av[] = { "true", NULL };
	double	 t0, t[50];
	int	 sv[2], st, i, nul;
	pid_t	 pid;

	if (argc < 3) {
		fprintf(stderr, "usage: bench-link KERNEL INITRD [N]\n");
		return 2;
	}
	if (argc > 3)
		N = atoi(argv[3]);
	socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	snprintf(initrd, sizeof(initrd), "initrd=%s", argv[2]);
	pid = fork();
	if (pid == 0) {
		dup2(sv[1], 3);
		nul = open("/dev/null", O_RDWR);
		dup2(nul, 0);
		dup2(nul, 1);
		setpgid(0, 0);
		execl(argv[1], argv[1], "mem=256M", "ncpus=2", "seccomp=on",
		    initrd, "con0=null,fd:1", "con=none", "ssl=none",
		    "ssl1=fd:3", "umid=umkit-bench-link", "lpj=10000000",
		    "quiet", (char *)NULL);
		_exit(127);
	}
	close(sv[1]);
	L = link_open(sv[0], stderr);
	t0 = bench_now_us();
	if (link_hello(L, 10000) != 0) {
		fprintf(stderr, "bench-link: no hello from the guest\n");
		kill(-pid, SIGKILL);
		return 1;
	}
	printf("boot to agent hello: %.0f ms\n", (bench_now_us() - t0) / 1e3);
	for (i = 0; i < 50; i++) {
		t0 = bench_now_us();
		link_ping(L, 2000);
		t[i] = bench_now_us() - t0;
	}
	printf("ping (HELLO round trip)                  p50 %6.0f us  p99 %6.0f us\n",
	    bench_pct(t, 50, 50), bench_pct(t, 50, 99));
	lat_read("/proc/uptime");
	lat_read("/proc/vmstat");
	lat_read("/proc/zoneinfo");
	lat_read("/sys/kernel/debug/lru_gen");
	/* Transfer cost apart from generating the content. */
	lat_read("/init");
	lat_read("/usr/lib/umkit/umkit-agent");
	throughput(1);
	throughput(4);
	for (i = 0; i < 50; i++) {
		t0 = bench_now_us();
		link_exec(L, av, 5, -1, -1, -1, &st);
		t[i] = bench_now_us() - t0;
	}
	printf("exec true                                p50 %6.0f us  p99 %6.0f us\n",
	    bench_pct(t, 50, 50), bench_pct(t, 50, 99));
	link_close(L);
	kill(-pid, SIGKILL);
	waitpid(pid, &st, 0);
	return 0;
}
