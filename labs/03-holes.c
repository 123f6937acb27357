/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * holes - lab 03's exercise: plenty of free memory, and no free block
 * large enough.  Map PAGES anonymous pages, write to each, then keep
 * page 0, page STRIDE, page 2*STRIDE ... and free every other page of
 * the mapping (madvise(MADV_DONTNEED)); read /proc/buddyinfo before,
 * after the writes and after the freeing:
 *
 *   holes PAGES STRIDE [hold]
 *   holes: pages=P stride=S kept=K freed=F resident=R free_before=.. \
 *       high_before=.. free_touched=.. high_touched=.. free_after=.. \
 *       high_after=..
 *
 * kept and freed are the program's own counts; resident is how many of
 * the mapping's pages mincore(2) reports in memory: the kernel's count of
 * the pages kept.  free_* is the number of free pages /proc/buddyinfo
 * shows (every zone), high_* how many of them are in free blocks of order
 * 9 or more (2 MiB: what a huge page or an order-9 allocation needs).
 * With "hold" the program keeps its memory after printing, until
 * SIGTERM or SIGINT, so that the kernel's view of the holes can be read
 * and memory compacted meanwhile.  Bad arguments: a message and exit
 * status 2.
 *
 * What the kernel does (Linux 7.2):
 * - /proc/buddyinfo prints, per zone, the number of free blocks of each
 *   order 0 .. MAX_PAGE_ORDER (mm/vmstat.c:1550-1561, frag_show_print);
 *   a block of order k is 2^k pages (include/linux/mmzone.h:31: 10 on UML);
 * - a freed page merges with its buddy, the block at pfn ^ (1 << order)
 *   (mm/internal.h:768-771), only while that buddy is free and of the same
 *   order, and then the merged block looks for its own buddy, order by
 *   order (mm/page_alloc.c:956-1004, __free_one_page).  A freed page whose
 *   neighbour is kept stays an order-0 block: keep every other page and
 *   half the memory is free in blocks of one page;
 * - an allocation takes the smallest free block that fits and splits it,
 *   keeping the low half and freeing the high halves (mm/page_alloc.c:
 *   1897-1907 __rmqueue_smallest, 1702-1722 expand), so pages faulted in
 *   one after the other lie mostly side by side in physical memory;
 * - freed pages go first to a per-CPU list (mm/page_alloc.c:2851,
 *   free_frozen_page_commit) that buddyinfo does not count, until it is
 *   full and a batch goes back to the buddy lists (free_pcppages_bulk):
 *   buddyinfo can miss a few hundred freed pages;
 * - MADV_DONTNEED zaps the pages' PTEs (mm/madvise.c:859-867) and frees
 *   them; mincore reports an anonymous page without a PTE as not resident
 *   (mm/mincore.c:135-150).
 *
 * Build: gcc -static -O2 -o holes holes.c
 * (umkit lab 3 --exercise DIR --exercise-id holes builds and grades it).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MAX_PAGES	32768		/* 128 MiB */
#define HIGH_ORDER	9		/* 2 MiB blocks of 4 KiB pages */

static volatile sig_atomic_t	stop;

static void
on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/*
 * From /proc/buddyinfo: *free = every free page of every zone, *high =
 * those in free blocks of order HIGH_ORDER or more.  Exit on an error.
 */
static void
buddy(long *free, long *high)
{
	char	 line[512];
	FILE	*f = fopen("/proc/buddyinfo", "r");
	int	 zones = 0;

	if (f == NULL) {
		perror("/proc/buddyinfo");
		exit(1);
	}
	*free = *high = 0;
	while (fgets(line, sizeof line, f) != NULL) {
		/* TODO-BEGIN: a line is "Node 0, zone   Normal" and then the number of free blocks of order 0, 1, 2 ... (a block of order k is 2^k pages): add every line's free pages to *free, and those in blocks of order HIGH_ORDER or more to *high; count the line in zones */
		char	*p = strstr(line, "zone"), *end;
		long	 blocks;
		int	 order;

		if (p == NULL)
			continue;
		p += 4;
		while (*p == ' ')
			p++;
		while (*p != ' ' && *p != '\0')
			p++;			/* the zone's name */
		for (order = 0; ; order++) {
			blocks = strtol(p, &end, 10);
			if (end == p)
				break;
			p = end;
			*free += blocks << order;
			if (order >= HIGH_ORDER)
				*high += blocks << order;
		}
		zones++;
		/* TODO-END */
	}
	fclose(f);
	if (zones == 0) {
		fprintf(stderr, "holes: no zone in /proc/buddyinfo\n");
		exit(1);
	}
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
		fprintf(stderr, "holes: %s %s: want %ld to %ld\n", what, s, lo, hi);
		exit(2);
	}
	return v;
}

int
main(int argc, char **argv)
{
	long		 psz = sysconf(_SC_PAGESIZE), pages, stride, i;
	long		 kept = 0, freed = 0, resident = 0;
	long		 free0, high0, free1, high1, free2, high2;
	unsigned char	*vec;
	char		*p = NULL;
	int		 hold = 0;
	sigset_t	 block, old;

	if (argc == 4 && strcmp(argv[3], "hold") == 0)
		hold = 1;
	else if (argc != 3) {
		fprintf(stderr, "usage: holes PAGES STRIDE [hold]\n");
		return 2;
	}
	pages = number(argv[1], 0, MAX_PAGES, "PAGES");
	stride = number(argv[2], 1, MAX_PAGES, "STRIDE");
	vec = calloc(pages + 1, 1);
	if (vec == NULL) {
		perror("calloc");
		return 1;
	}
	memset(vec, 1, pages + 1);
	buddy(&free0, &high0);
	if (pages > 0) {
		p = mmap(NULL, pages * psz, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED) {
			perror("mmap");
			return 1;
		}
		for (i = 0; i < pages; i++)
			p[i * psz] = 1;
	}
	buddy(&free1, &high1);
	/* TODO-BEGIN: keep page 0, page STRIDE, page 2*STRIDE ... of the mapping p (pages of psz bytes, the last one pages - 1) and free every other page with madvise(..., MADV_DONTNEED); count the pages kept in kept and those freed in freed */
	for (i = 0; i < pages; i++) {
		if (i % stride == 0) {
			kept++;
			continue;
		}
		if (madvise(p + i * psz, psz, MADV_DONTNEED) < 0) {
			perror("madvise");
			return 1;
		}
		freed++;
	}
	/* TODO-END */
	buddy(&free2, &high2);
	if (hold) {
		/* caught from here on, and only inside sigsuspend */
		sigemptyset(&block);
		sigaddset(&block, SIGTERM);
		sigaddset(&block, SIGINT);
		sigprocmask(SIG_BLOCK, &block, &old);
		signal(SIGTERM, on_signal);
		signal(SIGINT, on_signal);
	}
	if (pages > 0) {
		if (mincore(p, pages * psz, vec) < 0) {
			perror("mincore");
			return 1;
		}
		for (i = 0; i < pages; i++)
			resident += vec[i] & 1;
	}
	printf("holes: pages=%ld stride=%ld kept=%ld freed=%ld resident=%ld "
	    "free_before=%ld high_before=%ld free_touched=%ld high_touched=%ld "
	    "free_after=%ld high_after=%ld\n", pages, stride, kept, freed,
	    resident, free0, high0, free1, high1, free2, high2);
	fflush(stdout);
	while (hold && !stop)
		sigsuspend(&old);
	return 0;
}
