/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wl-fragment.c - fragment: seed 002's thpcompact idea for a kernel
 * without THP.
 *
 * Faults in --size of anonymous memory (movable pages, taken from the
 * free lists in physical order), then frees all but --keep percent of
 * them, evenly spread, so that most pageblocks hold a mix of free and
 * used pages: free memory is plentiful but no large block is free.
 * --pin takes a page reference on a share of the kept pages (vmsplice
 * into pipes that are never read), so compaction cannot move them: the
 * unmovable pins a real system has.  It prints what it built (from
 * /proc/self/pagemap: the pageblocks its pages sit in) and then holds
 * the memory for a compaction run: until killed, for --hold seconds, or,
 * with --compact, it writes /proc/sys/vm/compact_memory itself and adds
 * the compaction counters of that run (thpcompact's table: pages
 * scanned by each scanner, isolated, scan efficiency) and the pageblocks
 * its pages sit in afterwards.
 *
 * With --file PATH (a file on tmpfs) the pages are the file's instead:
 * written in order in 1 MiB writes, then the ones not kept punched out of
 * it in four passes (punch_passes()).  The file holds the kept pages
 * after fragment exits, with no process mapping them; the pageblock
 * counts are -1 (a process sees a PFN only for a page it maps).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "wl.h"

/* --file: the pages are punched in this many passes (punch_passes()). */
#define FILE_WAYS	4

static long long	o_size, o_keep = 25, o_pin;
static double		o_hold = -1;
static int		o_compact;
static const char	*o_file;

/* Pages per pageblock from /proc/pagetypeinfo, or -1. */
static long
pageblock_pages(void)
{
	char	 line[256];
	long	 n = -1;
	FILE	*f = fopen("/proc/pagetypeinfo", "re");

	if (f == NULL)
		return -1;
	while (fgets(line, sizeof line, f) != NULL)
		if (sscanf(line, "Pages per block: %ld", &n) == 1)
			break;
	fclose(f);
	return n;
}

/* Is page i one of the kept ones?  Evenly spread, keep% of all. */
static int
kept(size_t i)
{
	return (i * o_keep) / 100 != ((i + 1) * o_keep) / 100;
}

/* Compare longs for qsort. */
static int
cmp_long(const void *a, const void *b)
{
	long	x = *(const long *)a, y = *(const long *)b;

	return x < y ? -1 : x > y;
}

/*
 * Read the PFNs of the pages of mem selected by want (1 = kept pages,
 * 0 = all) and count the distinct pageblocks they sit in; -1 if PFNs
 * cannot be read.
 */
static long
count_blocks(unsigned char *mem, size_t npages, long ppb, int want_kept,
    long *pfn_out)
{
	uint64_t	*pm;
	long		*blk, n = 0, d = 0, i;
	int		 fd;
	size_t		 p, pg = (size_t)sysconf(_SC_PAGESIZE);

	if (ppb <= 0 || (fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	pm = wl_alloc(npages * sizeof *pm);
	if (pread(fd, pm, npages * sizeof *pm,
	    (off_t)((uintptr_t)mem / pg * sizeof *pm)) != (ssize_t)(npages * sizeof *pm))
		wl_fail("reading /proc/self/pagemap");
	close(fd);
	blk = wl_alloc(npages * sizeof *blk);
	for (p = 0; p < npages; p++) {
		if (want_kept && !kept(p))
			continue;
		/* Bit 63: present; bits 0-54: the PFN (0 without CAP_SYS_ADMIN). */
		if (!(pm[p] >> 63) || (pm[p] & ((1ULL << 55) - 1)) == 0)
			continue;
		if (pfn_out != NULL)
			pfn_out[p] = (long)(pm[p] & ((1ULL << 55) - 1));
		blk[n++] = (long)(pm[p] & ((1ULL << 55) - 1)) / ppb;
	}
	qsort(blk, n, sizeof *blk, cmp_long);
	for (i = 0; i < n; i++)
		if (i == 0 || blk[i] != blk[i - 1])
			d++;
	free(blk);
	free(pm);
	return n > 0 ? d : -1;
}

/* Pin every stride-th kept page into pipes; returns how many. */
static long
pin_pages(unsigned char *mem, size_t npages, size_t pg)
{
	struct iovec	 iov;
	long		 want, pinned = 0, in_pipe = 0, cap = 0, nkept = 0;
	size_t		 p, stride;
	int		 fds[2] = { -1, -1 };

	for (p = 0; p < npages; p++)
		nkept += kept(p);
	want = nkept * o_pin / 100;
	if (want == 0)
		return 0;
	stride = (size_t)(nkept / want);
	for (p = 0, nkept = 0; p < npages && pinned < want; p++) {
		if (!kept(p) || nkept++ % stride != 0)
			continue;
		if (in_pipe == cap) {
			/* Both ends stay open, the pipe unread, until we exit. */
			if (pipe(fds) < 0)
				wl_fail("--pin: pipe (pinned %ld of %ld pages)", pinned, want);
			fcntl(fds[1], F_SETPIPE_SZ, 1 << 20);
			cap = fcntl(fds[1], F_GETPIPE_SZ) / (long)pg;
			in_pipe = 0;
		}
		iov.iov_base = mem + p * pg;
		iov.iov_len = pg;
		if (vmsplice(fds[1], &iov, 1, 0) != (ssize_t)pg)
			wl_fail("--pin: vmsplice");
		in_pipe++;
		pinned++;
	}
	return pinned;
}

/*
 * Punch the pages of fd that kept() does not keep out of it, in the order
 * that removing FILE_WAYS files written round-robin one after another
 * would free them; returns how many are kept.
 *
 * The order matters, and the mechanism is not pinned down here.  Punched
 * in address order, a run of three pages a call, compaction-round's
 * round isolated 3700-10800 pages in 7 of 22 boots, where writing four
 * files and removing three gave 14200-15900 in all 26 (the per-CPU lists
 * held 3000-6000 pages before compaction either way: not that alone).
 * Punched pass by pass, as here, none of 32 boots did (14280-15930; the
 * spreads are in uml/patch/bench.c).
 *
 * One process_madvise(MADV_REMOVE) takes up to IOV_MAX pages, where
 * fallocate() takes one run: each system call is a round trip to the
 * host under UML, about 100 us here.  MADV_REMOVE is that punch
 * (madvise_remove() calls vfs_fallocate() with FALLOC_FL_PUNCH_HOLE,
 * mm/madvise.c:1046-1048), and a process may ask it of itself through
 * process_madvise() (only other processes are held to the hints,
 * mm/madvise.c:2135).
 */
static long
punch_passes(int fd, const char *path, size_t npages, size_t pg)
{
	struct iovec	*iov;
	unsigned char	*map;
	size_t		 p, r, n = 0, done;
	long		 nkept = 0, cap = IOV_MAX;
	int		 pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
	ssize_t		 got;

	if (pidfd < 0)
		wl_fail("--file %s: pidfd_open of itself", path);
	map = mmap(NULL, npages * pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		wl_fail("--file %s: mmap", path);
	iov = wl_alloc((size_t)cap * sizeof *iov);
	for (p = 0; p < npages; p++)
		nkept += kept(p);
	/* Pass r punches the pages p = r mod FILE_WAYS that are not kept. */
	for (r = 0, p = 0; r < FILE_WAYS; p = ++r) {
		for (;;) {
			for (; p < npages && n < (size_t)cap; p += FILE_WAYS) {
				if (kept(p))
					continue;
				iov[n].iov_base = map + p * pg;
				iov[n++].iov_len = pg;
			}
			/* A full batch, or the pass's last: advise it. */
			for (done = 0; done < n; ) {
				got = syscall(SYS_process_madvise, pidfd,
				    iov + done, n - done, MADV_REMOVE, 0);
				if (got < 0)
					wl_fail("--file %s: process_madvise(MADV_REMOVE) "
					    "of %zu pages", path, n - done);
				/* Whole pages were done, then maybe part of one. */
				for (; done < n && got >= (ssize_t)iov[done].iov_len; done++)
					got -= (ssize_t)iov[done].iov_len;
				if (got > 0) {
					iov[done].iov_base = (unsigned char *)iov[done].iov_base + got;
					iov[done].iov_len -= (size_t)got;
				}
			}
			n = 0;
			if (p >= npages)
				break;
		}
	}
	free(iov);
	munmap(map, npages * pg);
	close(pidfd);
	return nkept;
}

/*
 * --file: write npages pages to path in order, then punch out the pages
 * not kept; returns how many are kept.
 *
 * The pages are the ones that round-robin writes of single pages to four
 * files took: tmpfs allocates one order-0 page per page written, in the
 * order written (shmem_write_begin() gets each with SGP_WRITE,
 * mm/shmem.c:3252; the large orders come from
 * shmem_allowable_huge_orders(), mm/shmem.c:2497, which is 0 without THP,
 * include/linux/shmem_fs.h:137), so keeping one page in four of one file
 * keeps the same pages as keeping one file of four, with 1 MiB writes
 * and a few process_madvise() calls instead of a system call a page.
 * What differs is the file's page index, which stays four times as wide
 * through the round.  At 40000 pages in 256M the rounds' figures kept
 * their means (uml/patch/bench.c); filling 95% of a zone for
 * rootfs/repro-002.sh they did not (order-9 pages allocated 21.3 +- 3.4
 * a round against 28.9 +- 12.5, umkit reproduce 002), so that one keeps
 * its single-page writes.  The writes come from a mapping never written
 * to, which reads as the zero page: the buffer takes no page of its own,
 * so the file's are the only pages this allocates.
 */
static long
fill_file(const char *path, size_t npages, size_t pg)
{
	char		*buf;
	size_t		 chunk = 256, p, n;
	long		 nkept;
	int		 fd;

	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		wl_fail("--file %s", path);
	buf = mmap(NULL, chunk * pg, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		wl_fail("--file %s: mapping a buffer", path);
	for (p = 0; p < npages; p += n) {
		n = npages - p < chunk ? npages - p : chunk;
		if (write(fd, buf, n * pg) != (ssize_t)(n * pg))
			wl_fail("--file %s: writing page %zu", path, p);
	}
	munmap(buf, chunk * pg);
	nkept = punch_passes(fd, path, npages, pg);
	if (close(fd) < 0)
		wl_fail("--file %s", path);
	return nkept;
}

/* fragment's main. */
static int
fr_run(void)
{
	unsigned char	*mem = NULL;
	size_t		 pg = (size_t)sysconf(_SC_PAGESIZE), npages, p, q;
	long		 ppb = pageblock_pages(), filled = -1, blocks = -1, mixed = 0;
	long		 nkept = 0, pinned = 0, after = -1, *pfn, *kb, i, nb = 0;
	long long	 ms0 = 0, fs0 = 0, is0 = 0, ms, fs, is;
	uint64_t	 t0 = 0, t1 = 0;

	if (o_size == 0)
		o_size = wl_mem_total() / 2;
	npages = (size_t)o_size / pg;
	if (npages < 2)
		wl_usage("--size %lld: want at least two pages", o_size);
	if (o_file != NULL) {
		if (o_pin > 0)
			wl_usage("--pin: the pages of --file are mapped by no one to pin");
		nkept = fill_file(o_file, npages, pg);
		mixed = -1;
		goto compact;
	}
	/*
	 * MAP_POPULATE faults the pages in from mmap() itself, in address
	 * order, through the fault handler a touch goes to (mm/gup.c:1126,
	 * faultin_page() calls handle_mm_fault()): the same pages in the
	 * same order, without a trip to the host per page under UML.  96M
	 * took 3.4 s touched, 1.9 s populated (umkit exec -c 1 -m 256M --
	 * fragment --size 96M --keep 30 --hold 0).  The touch loop stays:
	 * populating is best effort, and the touch makes every page ours.
	 */
	mem = mmap(NULL, npages * pg, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_POPULATE, -1, 0);
	if (mem == MAP_FAILED)
		wl_fail("cannot map %zu pages", npages);
	for (p = 0; p < npages; p++)
		mem[p * pg] = (unsigned char)(p | 1);
	filled = count_blocks(mem, npages, ppb, 0, NULL);

	/* Free the pages not kept, one madvise per run of them. */
	for (p = 0; p < npages; p = q) {
		if (kept(p)) {
			nkept++;
			q = p + 1;
			continue;
		}
		for (q = p; q < npages && !kept(q); q++)
			;
		if (madvise(mem + p * pg, (q - p) * pg, MADV_DONTNEED) < 0)
			wl_fail("madvise");
	}
	pfn = wl_alloc(npages * sizeof *pfn);
	blocks = count_blocks(mem, npages, ppb, 1, pfn);
	/* Mixed: a pageblock our kept pages do not fill (the rest we freed). */
	if (blocks > 0) {
		kb = wl_alloc(npages * sizeof *kb);
		for (p = 0; p < npages; p++)
			if (kept(p) && pfn[p] > 0)
				kb[nb++] = pfn[p] / ppb;
		qsort(kb, nb, sizeof *kb, cmp_long);
		for (i = 0; i < nb; i++) {
			long	j = i;

			while (j + 1 < nb && kb[j + 1] == kb[i])
				j++;
			if (j - i + 1 < ppb)
				mixed++;
			i = j;
		}
		free(kb);
	}
	free(pfn);
	pinned = pin_pages(mem, npages, pg);

compact:
	if (o_compact) {
		ms0 = wl_vmstat("compact_migrate_scanned");
		fs0 = wl_vmstat("compact_free_scanned");
		is0 = wl_vmstat("compact_isolated");
		t0 = wl_now_ns();
		if (wl_put("/proc/sys/vm/compact_memory", "1") < 0)
			wl_fail("writing /proc/sys/vm/compact_memory");
		t1 = wl_now_ns();
		if (o_file == NULL)
			after = count_blocks(mem, npages, ppb, 1, NULL);
	}
	wl_out_begin();
	wl_out_int("pages", (long long)npages);
	wl_out_int("kept_pages", nkept);
	wl_out_int("freed_pages", (long long)npages - nkept);
	wl_out_int("pinned_pages", pinned);
	wl_out_int("pageblock_pages", ppb);
	wl_out_int("pageblocks_filled", filled);
	wl_out_int("pageblocks", blocks);
	wl_out_int("mixed_pageblocks", mixed);
	if (o_compact) {
		ms = wl_vmstat("compact_migrate_scanned") - ms0;
		fs = wl_vmstat("compact_free_scanned") - fs0;
		is = wl_vmstat("compact_isolated") - is0;
		wl_out_num("compact_ms", (t1 - t0) / 1e6, 2);
		wl_out_int("migrate_scanned", ms);
		wl_out_int("free_scanned", fs);
		wl_out_int("isolated", is);
		wl_out_num("scan_efficiency_pct", fs > 0 ? 100.0 * ms / fs : 0, 2);
		wl_out_int("pageblocks_after", after);
	}
	wl_out_end();

	if (o_hold < 0 && (o_compact || o_file != NULL))
		o_hold = 0;
	wl_hold(o_hold);
	return 0;
}

static const struct wl_opt fr_opts[] = {
	{ "size", WL_SIZE, &o_size, "SIZE", "memory to fill, like 128M or 50% "
	  "(default 50% of guest memory)", 4096, 0, NULL, WL_PCT },
	{ "keep", WL_INT, &o_keep, "PCT", "share of the pages kept, evenly "
	  "spread (default 25)", 1, 99, NULL, 0 },
	{ "pin", WL_INT, &o_pin, "PCT", "share of the kept pages pinned so "
	  "compaction cannot move them (default 0)", 0, 100, NULL, 0 },
	{ "compact", WL_FLAG, &o_compact, NULL, "run compaction "
	  "(/proc/sys/vm/compact_memory) and report it", 0, 0, NULL, 0 },
	{ "hold", WL_SECS, &o_hold, "SECONDS", "keep the memory this long after "
	  "the report (default: until killed; 0 with --compact or --file)",
	  0, 1000000, NULL, 0 },
	{ "file", WL_STR, &o_file, "PATH", "the pages are this tmpfs file's, "
	  "which keeps them after exit (no pageblock counts: -1)", 0, 0, NULL, 0 },
	{ NULL, 0, NULL, NULL, NULL, 0, 0, NULL, 0 }
};

const struct wl_prog wl_fragment = {
	.name = "fragment",
	.summary =
"Fragment physical memory for a compaction run (seed 002: thpcompact,\n"
"without THP): fault in --size of memory, free all but --keep% of the\n"
"pages, optionally pin some, report the pageblocks they sit in, then\n"
"hold the memory (or run compaction itself with --compact and report\n"
"the scanners' counts and scan efficiency).",
	.example =
"  fragment --size 100M --keep 25 &    # then: echo 1 > /proc/sys/vm/compact_memory\n"
"  fragment --size 50% --pin 5 --compact --json\n"
"  fragment --size 160M --file /mnt/tmpfs/f   # one page in four left in f",
	.opts = fr_opts,
	.run = fr_run,
};
