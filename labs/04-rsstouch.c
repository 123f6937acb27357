/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rsstouch - lab 04's beginner exercise: a process's rss counters count a
 * page when the process first writes to it.  Map PAGES anonymous pages,
 * write to every STRIDE-th one from the first on, and see what the kernel
 * counted:
 *
 *   rsstouch PAGES STRIDE
 *   rsstouch: pages=P stride=S touched=T resident=R anon_kB=A
 *
 * touched is how many pages the program wrote to (its own count),
 * resident how many of the mapping's pages mincore(2) reports in memory,
 * anon_kB the change of RssAnon in /proc/self/status meanwhile.  A
 * correct program has resident == touched and anon_kB == 4 * touched
 * (4 KiB pages).  Bad arguments: a message and exit status 2.
 *
 * What the kernel does (Linux 7.2):
 * - a write fault on an anonymous page allocates it and counts it in
 *   MM_ANONPAGES (mm/memory.c:5278, map_anon_folio_pte_pf); a read fault
 *   maps the shared zero page instead and counts nothing (mm/memory.c:
 *   5308-5311, do_anonymous_page);
 * - mincore reports a page with a present PTE as resident, the zero page
 *   too (mm/mincore.c:193), and an anonymous page never faulted in as not
 *   (mm/mincore.c:148);
 * - RssAnon is the exact sum of the per-cpu counter (fs/proc/task_mmu.c:42,
 *   get_mm_counter_sum);
 * - mmap of length 0 fails with EINVAL (mm/mmap.c:349): no mapping then.
 *
 * Build: gcc -static -O2 -o rsstouch rsstouch.c
 * (umkit lab 4 --exercise DIR --exercise-id rsstouch builds and grades it).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MAX_PAGES	32768		/* 128 MiB */

/* RssAnon of /proc/self/status in kB, or exit. */
static long
rss_anon_kb(void)
{
	char	 line[256];
	long	 v = -1;
	FILE	*f = fopen("/proc/self/status", "r");

	if (f == NULL) {
		perror("/proc/self/status");
		exit(1);
	}
	while (fgets(line, sizeof line, f) != NULL)
		if (strncmp(line, "RssAnon:", 8) == 0)
			v = strtol(line + 8, NULL, 10);
	fclose(f);
	if (v < 0) {
		fprintf(stderr, "rsstouch: no RssAnon in /proc/self/status\n");
		exit(1);
	}
	return v;
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
		fprintf(stderr, "rsstouch: %s %s: want %ld to %ld\n", what, s, lo, hi);
		exit(2);
	}
	return v;
}

int
main(int argc, char **argv)
{
	long		 psz = sysconf(_SC_PAGESIZE), pages, stride, touched = 0;
	long		 resident = 0, anon0, anon1, i;
	unsigned char	*vec;
	char		*p = NULL;

	if (argc != 3) {
		fprintf(stderr, "usage: rsstouch PAGES STRIDE\n");
		return 2;
	}
	pages = number(argv[1], 0, MAX_PAGES, "PAGES");
	stride = number(argv[2], 1, MAX_PAGES, "STRIDE");
	/* mincore's vector and the stdio buffers are in memory before the
	 * first reading: only the mapping's pages come between the two */
	vec = calloc(pages + 1, 1);
	if (vec == NULL) {
		perror("calloc");
		return 1;
	}
	memset(vec, 1, pages + 1);
	(void)rss_anon_kb();
	anon0 = rss_anon_kb();
	if (pages > 0) {
		p = mmap(NULL, pages * psz, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED) {
			perror("mmap");
			return 1;
		}
	}
	/* TODO-BEGIN: write one byte to page 0, page STRIDE, page 2*STRIDE ... of the mapping p (pages of psz bytes; the last page is pages - 1), counting each page written in touched */
	for (i = 0; i < pages; i += stride) {
		p[i * psz] = 1;
		touched++;
	}
	/* TODO-END */
	if (pages > 0) {
		if (mincore(p, pages * psz, vec) < 0) {
			perror("mincore");
			return 1;
		}
		for (i = 0; i < pages; i++)
			resident += vec[i] & 1;
	}
	anon1 = rss_anon_kb();
	printf("rsstouch: pages=%ld stride=%ld touched=%ld resident=%ld anon_kB=%ld\n",
	    pages, stride, touched, resident, anon1 - anon0);
	return 0;
}
