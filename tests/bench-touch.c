// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench-touch - what the host charges a guest for memory it touches the
 * first time: UML's physical memory is a shared mapping
 * (arch/um/kernel/physmem.c:77) of an unlinked file in /dev/shm when that
 * is tmpfs (arch/um/os-Linux/mem.c:83-121, 131), and every page the
 * kernel writes first at boot (struct pages, the initrd read, its
 * unpacking, slabs) is a host page fault on it.  make bench-boot prints this beside the boot's stages.
 *
 *   bench-touch [MIB [ROUNDS]]   fresh MIB (default 4) per round (default 5)
 *
 * Prints one line: the median and the spread of the microseconds per
 * first write of a page of a fresh shared mapping of a file on /dev/shm
 * (as UML maps it), and per write of the same page once more.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bench.h"

/* One round: us per page for the first and the second write of len bytes. */
static int
round_once(size_t len, long pg, double *first, double *again)
{
	char	*m;
	double	 t0, t1, t2;
	size_t	 off;
	int	 fd;

	fd = open("/dev/shm", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0 || ftruncate(fd, (off_t)len) < 0) {
		perror("bench-touch: /dev/shm");
		return -1;
	}
	m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (m == MAP_FAILED) {
		perror("bench-touch: mmap");
		return -1;
	}
	t0 = bench_now_us();
	for (off = 0; off < len; off += (size_t)pg)
		m[off] = 1;
	t1 = bench_now_us();
	for (off = 0; off < len; off += (size_t)pg)
		m[off] = 2;
	t2 = bench_now_us();
	munmap(m, len);
	*first = (t1 - t0) / (double)(len / (size_t)pg);
	*again = (t2 - t1) / (double)(len / (size_t)pg);
	return 0;
}

/* A whole decimal number from lo to hi, or -1. */
static long
number(const char *s, long lo, long hi)
{
	char	*end;
	long	 v = strtol(s, &end, 10);

	return end != s && *end == '\0' && v >= lo && v <= hi ? v : -1;
}

int
main(int argc, char **argv)
{
	long	 mib = argc > 1 ? number(argv[1], 1, 1024) : 4;
	long	 rounds = argc > 2 ? number(argv[2], 1, 64) : 5;
	long	 pg = sysconf(_SC_PAGESIZE);
	double	 first[64], again[64];
	long	 i;

	if (mib < 0 || rounds < 0 || argc > 3) {
		fprintf(stderr, "usage: bench-touch [MIB (1-1024) [ROUNDS (1-64)]]\n");
		return 2;
	}
	for (i = 0; i < rounds; i++)
		if (round_once((size_t)mib << 20, pg, &first[i], &again[i]) < 0)
			return 1;
	printf("host: a page of /dev/shm, first write %.2f us (p10 %.2f, p90 "
	    "%.2f), once more %.3f us; %ld MiB x %ld rounds\n",
	    bench_pct(first, (size_t)rounds, 50), bench_pct(first, (size_t)rounds, 10),
	    bench_pct(first, (size_t)rounds, 90), bench_pct(again, (size_t)rounds, 50),
	    mib, rounds);
	return 0;
}
