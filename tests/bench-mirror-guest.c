/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * umkit-readbench - the guest half of 'make bench-mirror': time N whole
 * reads (open, read to EOF, close) of each file inside the guest, the
 * baseline for the same reads through the host's mirror.
 *
 *   umkit-readbench N FILE...
 *
 * Prints one line per file: "FILE BYTES p50_us p99_us".  Static, in the
 * rootfs at /usr/lib/umkit/umkit-readbench.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

/* Read a file to EOF once; returns its size or -1. */
static long
read_once(const char *path)
{
	static char	buf[1 << 20];
	long		total = 0;
	ssize_t		n;
	int		fd = open(path, O_RDONLY);

	if (fd < 0)
		return -1;
	while ((n = read(fd, buf, sizeof buf)) > 0)
		total += n;
	close(fd);
	return n < 0 ? -1 : total;
}

int
main(int argc, char **argv)
{
	double	*t, t0;
	long	 n, i, size = 0;
	int	 f;

	if (argc < 3 || (n = atol(argv[1])) < 1) {
		fprintf(stderr, "usage: umkit-readbench N FILE...\n");
		return 2;
	}
	t = malloc(n * sizeof *t);
	for (f = 2; f < argc; f++) {
		for (i = 0; i < n; i++) {
			t0 = bench_now_us();
			size = read_once(argv[f]);
			t[i] = bench_now_us() - t0;
			if (size < 0) {
				perror(argv[f]);
				return 1;
			}
		}
		printf("%s %ld %.1f %.1f\n", argv[f], size, bench_pct(t, n, 50),
		    bench_pct(t, n, 99));
	}
	free(t);
	return 0;
}
