/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bench-initrd.c - the launcher's part of --add: checking the files
 * (initrd_prepare) and writing the guest's initramfs (initrd_make), the
 * first time (the composed file is written) and again (the copy kept in
 * build/initrd/ is linked), each timed N times.
 *
 *   bench-initrd DIR FILE N   prints "prepare_ms miss_ms hit_ms" (medians)
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.h"
#include "guest/guest.h"
#include "guest/initrd.h"
#include "util.h"

/* One initrd_make into DIR, timed; the file is removed again. */
static double
make_once(const struct guest_opts *o, const char *dir)
{
	double	 t0 = bench_now_us(), t;
	char	*p;

	if ((p = initrd_make(o, dir)) == NULL)
		exit(1);
	t = (bench_now_us() - t0) / 1000;
	unlink(p);
	free(p);
	return t;
}

/* Time prepare, a miss (FILE touched first) and a hit, N times each. */
int
main(int argc, char **argv)
{
	struct guest_opts	 o;
	double			*prep, *miss, *hit, t0;
	int			 n, i;

	if (argc != 4 || (n = atoi(argv[3])) < 1)
		fatalx("usage: bench-initrd DIR FILE N");
	prep = xcalloc(n, sizeof *prep);
	miss = xcalloc(n, sizeof *miss);
	hit = xcalloc(n, sizeof *hit);
	for (i = 0; i < n; i++) {
		/* A new ctime: the file counts as changed, nothing cached. */
		if (utimensat(AT_FDCWD, argv[2], NULL, 0) < 0)
			fatal("%s", argv[2]);
		guest_opts_init(&o);
		initrd_add(&o, argv[2]);
		t0 = bench_now_us();
		initrd_prepare(&o);
		prep[i] = (bench_now_us() - t0) / 1000;
		miss[i] = make_once(&o, argv[1]);
		hit[i] = make_once(&o, argv[1]);
	}
	printf("%.2f %.2f %.2f\n", bench_pct(prep, n, 50), bench_pct(miss, n, 50),
	    bench_pct(hit, n, 50));
	return 0;
}
