/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bench-disk.c - the launcher's part of a guest disk: disk_make() (the
 * sparse copy of the template into a run directory) timed N times.
 *
 *   bench-disk DIR MB N     prints "median_ms p90_ms data_kib"
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.h"
#include "guest/disk.h"
#include "util.h"

/* Make and remove DIR/disk.img N times; print the times. */
int
main(int argc, char **argv)
{
	struct stat	 sb;
	double		*t;
	char		*img;
	long		 mb;
	int		 n, i, fd;

	if (argc != 4 || (mb = atol(argv[2])) < DISK_MIN_MB || (n = atoi(argv[3])) < 1)
		fatal("usage: bench-disk DIR MB N");
	img = xasprintf("%s/disk.img", argv[1]);
	t = xcalloc(n, sizeof *t);
	for (i = 0; i < n; i++) {
		double	t0 = bench_now_us();

		if ((fd = disk_make(argv[1], mb)) < 0)
			return 1;
		t[i] = (bench_now_us() - t0) / 1000;
		if (i == n - 1 && fstat(fd, &sb) < 0)
			fatalx("%s", img);
		close(fd);
		unlink(img);
	}
	printf("%.2f %.2f %lld\n", bench_pct(t, n, 50), bench_pct(t, n, 90),
	    (long long)sb.st_blocks / 2);
	free(t);
	free(img);
	return 0;
}
