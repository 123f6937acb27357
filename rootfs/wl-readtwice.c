/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wl-readtwice.c - readtwice: seed 004's vm-scalability case
 * lru-file-readtwice.
 *
 * N workers (processes), each with its own sparse file on the guest disk
 * (/mnt/disk), read their file from start to end twice.  Reading a hole
 * allocates zeroed page-cache pages without disk I/O, so the run is all
 * LRU work: the first pass fills the file LRU, and when the files do not
 * fit (files larger than memory, or --memcg LIMIT: each worker in its own
 * memory cgroup with memory.max = LIMIT) the second pass refaults what
 * the first pass had to evict; the workingset code sees those refaults
 * (seed 004 is about its per-cgroup cost).  Reports MB/s (10^6 bytes)
 * over both passes of all workers, each pass's rate, the workingset
 * counters' moves in /proc/vmstat during the run, and the size of the
 * file LRU at the end, before the files are removed (from /proc/vmstat,
 * which lags by the per-cpu deltas and LRU batches: up to ~1%).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "wl.h"

#define CGROOT	"/sys/fs/cgroup"

static long long	o_workers, o_size, o_block = 64 << 10, o_memcg;
static const char	*o_dir = "/mnt/disk";
static int		o_pin;

/* What each worker reports back through shared memory. */
struct wres {
	uint64_t	pass_ns[2];
	uint64_t	bytes;
	int		err;		/* errno of a failed read, or 0 */
};

static volatile sig_atomic_t	got_signal;

/* SIGINT/SIGTERM/SIGHUP in the parent: clean up, then exit 130/143. */
static void
on_signal(int sig)
{
	got_signal = sig;
}

/* One worker: read path to EOF twice, timing each pass. */
static void
worker(const char *path, int start_fd, struct wres *r, int id)
{
	char		*buf = wl_alloc((size_t)o_block), c;
	ssize_t		 n;
	uint64_t	 t0;
	off_t		 off;
	int		 fd, pass;

	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	if (o_pin)
		wl_pin(id % wl_ncpus());
	/* Wait until the parent has put us in our cgroup and closes the pipe. */
	while (read(start_fd, &c, 1) < 0 && errno == EINTR)
		;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		r->err = errno;
		_exit(1);
	}
	for (pass = 0; pass < 2; pass++) {
		t0 = wl_now_ns();
		off = 0;
		while ((n = pread(fd, buf, (size_t)o_block, off)) > 0) {
			off += n;
			r->bytes += (uint64_t)n;
		}
		if (n < 0) {
			r->err = errno;
			_exit(1);
		}
		r->pass_ns[pass] = wl_now_ns() - t0;
	}
	_exit(0);
}

/* Enable the memory controller for children of the root cgroup. */
static void
memcg_enable(void)
{
	if (wl_put(CGROOT "/cgroup.subtree_control", "+memory") < 0)
		wl_fail("--memcg: cannot enable the memory controller in "
		    CGROOT "/cgroup.subtree_control");
}

/* readtwice's main. */
static int
rt_run(void)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct wres	*res;
	char		 path[4096], cg[256], num[64];
	char		**files, **cgs;
	pid_t		*pids;
	int		 go[2], i, st, failed = 0;
	uint64_t	 t0 = 0, t1 = 0, bytes = 0, p1 = 0, p2 = 0;
	long long	 rf0, af0, rs0, rf = 0, af = 0, rs = 0, lru = 0;
	struct stat	 sb;
	double		 secs;

	if (o_workers == 0)
		o_workers = wl_ncpus();
	if (o_size == 0)
		o_size = wl_mem_total() / o_workers;
	if (stat(o_dir, &sb) < 0 || !S_ISDIR(sb.st_mode))
		wl_fail("--dir %s: not a directory (the guest disk is /mnt/disk; "
		    "was the guest started with -d 0?)", o_dir);
	if (o_memcg > 0)
		memcg_enable();
	res = mmap(NULL, o_workers * sizeof *res, PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (res == MAP_FAILED)
		wl_fail("mmap");
	memset(res, 0, o_workers * sizeof *res);
	files = wl_alloc(o_workers * sizeof *files);
	cgs = wl_alloc(o_workers * sizeof *cgs);
	pids = wl_alloc(o_workers * sizeof *pids);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	if (pipe(go) < 0)
		wl_fail("pipe");

	/* Sparse files: a size and no blocks (vm-scalability's create_sparse_file). */
	for (i = 0; i < o_workers; i++) {
		int	fd;

		snprintf(path, sizeof path, "%s/readtwice.%d.%d", o_dir,
		    (int)getpid(), i);
		files[i] = strdup(path);
		if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
		    0600)) < 0 || ftruncate(fd, (off_t)o_size) < 0) {
			failed = errno;
			fprintf(stderr, "readtwice: %s: %s\n", path, strerror(errno));
			if (fd >= 0)
				close(fd);
			o_workers = i + (fd >= 0);
			goto out;
		}
		close(fd);
	}
	rf0 = wl_vmstat("workingset_refault_file");
	af0 = wl_vmstat("workingset_activate_file");
	rs0 = wl_vmstat("workingset_restore_file");
	for (i = 0; i < o_workers; i++) {
		if ((pids[i] = fork()) < 0)
			wl_fail("fork");
		if (pids[i] == 0) {
			close(go[1]);
			worker(files[i], go[0], &res[i], i);
		}
		if (o_memcg > 0) {
			snprintf(cg, sizeof cg, CGROOT "/readtwice.%d.%d",
			    (int)getpid(), i);
			snprintf(path, sizeof path, "%s/memory.max", cg);
			snprintf(num, sizeof num, "%lld", o_memcg);
			if (mkdir(cg, 0755) == 0)
				cgs[i] = strdup(cg);
			if (cgs[i] == NULL || wl_put(path, num) < 0) {
				failed = errno;
				fprintf(stderr, "readtwice: %s: %s\n", cg, strerror(errno));
				break;
			}
			snprintf(path, sizeof path, "%s/cgroup.procs", cg);
			snprintf(num, sizeof num, "%d", (int)pids[i]);
			if (wl_put(path, num) < 0) {
				failed = errno;
				fprintf(stderr, "readtwice: %s: %s\n", path, strerror(errno));
				break;
			}
		}
	}
	close(go[0]);
	t0 = wl_now_ns();
	/* Closing the pipe releases the workers together. */
	close(go[1]);
	for (i = 0; i < o_workers; i++) {
		if (pids[i] <= 0)
			continue;
		if (failed || got_signal)
			kill(pids[i], SIGKILL);
		while (waitpid(pids[i], &st, 0) < 0) {
			if (errno != EINTR)
				break;
			kill(pids[i], SIGKILL);
		}
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			if (res[i].err != 0)
				fprintf(stderr, "readtwice: %s: %s\n", files[i],
				    strerror(res[i].err));
			failed = failed ? failed : -1;
		}
	}
	t1 = wl_now_ns();
	rf = wl_vmstat("workingset_refault_file") - rf0;
	af = wl_vmstat("workingset_activate_file") - af0;
	rs = wl_vmstat("workingset_restore_file") - rs0;
	/* What the files left on the file LRU, before they are removed. */
	lru = wl_vmstat("nr_inactive_file") + wl_vmstat("nr_active_file");
out:
	for (i = 0; i < o_workers; i++) {
		if (files[i] != NULL)
			unlink(files[i]);
		if (o_memcg > 0 && cgs[i] != NULL && rmdir(cgs[i]) < 0)
			fprintf(stderr, "readtwice: rmdir %s: %s\n", cgs[i], strerror(errno));
	}
	if (got_signal)
		return 128 + got_signal;
	if (failed)
		wl_failx("a worker failed (see above)");

	for (i = 0; i < o_workers; i++) {
		bytes += res[i].bytes;
		p1 = res[i].pass_ns[0] > p1 ? res[i].pass_ns[0] : p1;
		p2 = res[i].pass_ns[1] > p2 ? res[i].pass_ns[1] : p2;
	}
	secs = (t1 - t0) / 1e9;
	wl_out_begin();
	wl_out_int("workers", o_workers);
	wl_out_int("file_mb", o_size >> 20);
	wl_out_int("block_bytes", o_block);
	wl_out_int("memcg_limit_mb", o_memcg >> 20);
	wl_out_num("seconds", secs, 3);
	wl_out_num("mb_per_s", bytes / secs / 1e6, 1);
	wl_out_num("pass1_mb_per_s", o_workers * (double)o_size / (p1 / 1e9) / 1e6, 1);
	wl_out_num("pass2_mb_per_s", o_workers * (double)o_size / (p2 / 1e9) / 1e6, 1);
	wl_out_int("refault_file_pages", rf);
	wl_out_int("activate_file_pages", af);
	wl_out_int("restore_file_pages", rs);
	wl_out_int("file_lru_pages", lru);
	wl_out_end();
	return 0;
}

static const struct wl_opt rt_opts[] = {
	{ "workers", WL_INT, &o_workers, "N", "reader processes (default: one "
	  "per CPU)", 1, 256, NULL, 0 },
	{ "size", WL_SIZE, &o_size, "SIZE", "each worker's file, like 256M or 50% "
	  "(default: guest memory / workers)", 4096, 0, NULL, WL_PCT },
	{ "block", WL_SIZE, &o_block, "BYTES", "read size (default 64K)",
	  512, 16 << 20, NULL, 0 },
	{ "memcg", WL_SIZE, &o_memcg, "LIMIT", "each worker in its own memory "
	  "cgroup with memory.max LIMIT (default: none)", 1 << 20, 0, NULL, WL_PCT },
	{ "dir", WL_STR, &o_dir, "DIR", "where the files go (default /mnt/disk)",
	  0, 0, NULL, 0 },
	{ "pin", WL_FLAG, &o_pin, NULL, "pin worker i to CPU i mod CPUs",
	  0, 0, NULL, 0 },
	{ NULL, 0, NULL, NULL, NULL, 0, 0, NULL, 0 }
};

const struct wl_prog wl_readtwice = {
	.name = "readtwice",
	.summary =
"Read sparse files twice (seed 004: vm-scalability lru-file-readtwice):\n"
"each worker reads its own sparse file on the guest disk from start to end,\n"
"twice; with --memcg each worker runs in its own memory cgroup.  Prints\n"
"MB/s and the workingset counters' moves (refaults, activations).",
	.example =
"  readtwice --workers 2 --size 128M\n"
"  readtwice --workers 2 --size 96M --memcg 64M --json",
	.opts = rt_opts,
	.run = rt_run,
};
