/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bench-run.c - run a command once; print its wall time and the CPU time
 * (user + system) of it and every descendant it waited for, both in
 * microseconds.  For 'umkit exec' that includes the UML processes, which
 * umkit reaps: CPU time moves far less than wall time when other work
 * shares the host, so benchmarks print both.
 *
 *   bench-run CMD [ARGS...]   prints "wall_us cpu_us"; exits with CMD's status
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

/* Run argv[1...], wait for it, print the times. */
int
main(int argc, char **argv)
{
	struct rusage	 ru;
	double		 t0;
	pid_t		 pid;
	int		 st;

	if (argc < 2) {
		fprintf(stderr, "usage: bench-run CMD [ARGS...]\n");
		return 2;
	}
	t0 = bench_now_us();
	if ((pid = fork()) == 0) {
		execvp(argv[1], argv + 1);
		perror(argv[1]);
		_exit(127);
	}
	if (pid < 0 || wait4(pid, &st, 0, &ru) != pid) {
		perror("bench-run");
		return 2;
	}
	printf("%.0f %ld\n", bench_now_us() - t0,
	    (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000L +
	    ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
