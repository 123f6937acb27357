/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuzz-views.c - libFuzzer entry point for the TUI's views fed a hostile
 * root: the input is split into the files the views read, each section
 * starting with a line "=== REL" (REL one of the names in files[] below;
 * other names are ignored, a name given twice keeps the last), written
 * into a temporary root directory; then every view (views.c, and help)
 * reads it twice, as tui.c's update does, and draws a frame onto an
 * in-memory canvas at three sizes, in UTF-8 or in ASCII, as --dump
 * does.  The root is made in $TMPDIR, else /dev/shm, else /tmp.  The compaction view also replays the trace's first run (R, a
 * step, the last event, R).  Never crash, leak or hang.
 * UMKIT_FUZZ_DUMP=1 prints each 80-column frame on stderr (to see what
 * an input draws).  Built with FUZZ_NUMBER_MUTATOR (make fuzz-views), it
 * adds a number-aware mutation to libFuzzer's (LLVMFuzzerCustomMutator).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tui.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The files a section may name: what the views read (their files[]). */
static const char *const files[] = {
	"proc/zoneinfo", "proc/pagetypeinfo", "proc/vmstat", "proc/buddyinfo",
	"proc/kpageflags", "proc/meminfo", "proc/stat", "proc/pressure/memory",
	"proc/sys/kernel/osrelease", "proc/1/statm", "proc/1/status",
	"proc/42/statm", "proc/42/status",
	"sys/kernel/debug/extfrag/extfrag_index", "sys/kernel/tracing/trace",
	"sys/kernel/debug/lru_gen", "sys/kernel/debug/lru_gen_full",
	"sys/kernel/mm/lru_gen/enabled", "sys/kernel/mm/lru_gen/min_ttl_ms",
	NULL
};
#define NFILES	(sizeof(files) / sizeof(files[0]) - 1)

/* The directories of files[], parents first. */
static const char *const dirs[] = {
	"proc", "proc/pressure", "proc/sys", "proc/sys/kernel", "proc/1",
	"proc/42", "sys", "sys/kernel", "sys/kernel/debug",
	"sys/kernel/debug/extfrag", "sys/kernel/tracing", "sys/kernel/mm",
	"sys/kernel/mm/lru_gen", NULL
};

static char		 root[64];
static struct canvas	 cv;
static double		 data_ms;
static bool		 dump;		/* UMKIT_FUZZ_DUMP: print 80-column frames */

/* Remove the temporary root (at exit). */
static void
remove_root(void)
{
	char	path[256];
	int	i;

	for (i = 0; files[i] != NULL; i++) {
		snprintf(path, sizeof(path), "%s/%s", root, files[i]);
		unlink(path);
	}
	for (i = (int)(sizeof(dirs) / sizeof(dirs[0])) - 2; i >= 0; i--) {
		snprintf(path, sizeof(path), "%s/%s", root, dirs[i]);
		rmdir(path);
	}
	rmdir(root);
}

/* Make the temporary root and its directories; set the views up. */
static void
setup(void)
{
	const char	*tmp = getenv("TMPDIR");
	char		 path[256];
	unsigned	 i;

	/* Memory, not a disk, when there is /dev/shm: many writes a second. */
	if (tmp == NULL || strlen(tmp) >= 30)
		tmp = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
	snprintf(root, sizeof(root), "%s/umkit-fuzz-views.XXXXXX", tmp);
	if (mkdtemp(root) == NULL)
		fatal("mkdtemp %s", root);
	atexit(remove_root);
	dump = getenv("UMKIT_FUZZ_DUMP") != NULL;
	for (i = 0; dirs[i] != NULL; i++) {
		snprintf(path, sizeof(path), "%s/%s", root, dirs[i]);
		if (mkdir(path, 0755) < 0)
			fatal("mkdir %s", path);
	}
	for (i = 0; i < (unsigned)ndata_views; i++)
		data_views[i]->init();
	view_help.init();
}

/* Write one file of the root (len bytes), or remove it (p NULL). */
static void
put_file(const char *rel, const uint8_t *p, size_t len)
{
	char	path[256];
	int	fd;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	if (p == NULL) {
		if (unlink(path) < 0 && errno != ENOENT)
			fatal("unlink %s", path);
		return;
	}
	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0)
		fatal("open %s", path);
	if (write_all(fd, p, len) < 0)
		fatal("write %s", path);
	close(fd);
}

/* Split the input at its "=== REL" lines into the root's files. */
static void
write_root(const uint8_t *data, size_t size)
{
	const uint8_t	*at[NFILES], *p = data, *end = data + size, *nl, *body;
	size_t		 len[NFILES], n;
	unsigned	 i;

	memset(at, 0, sizeof(at));
	while (p != NULL && p < end) {
		if (end - p < 4 || memcmp(p, "=== ", 4) != 0) {
			nl = memchr(p, '\n', (size_t)(end - p));
			p = nl != NULL ? nl + 1 : NULL;
			continue;
		}
		nl = memchr(p, '\n', (size_t)(end - p));
		body = nl != NULL ? nl + 1 : end;
		n = (size_t)((nl != NULL ? nl : end) - (p + 4));
		/* The body runs to the next line starting "=== ". */
		for (nl = body; nl < end; nl++)
			if ((nl == body || nl[-1] == '\n') && end - nl >= 4 &&
			    memcmp(nl, "=== ", 4) == 0)
				break;
		for (i = 0; i < NFILES; i++) {
			if (strlen(files[i]) == n &&
			    memcmp(files[i], p + 4, n) == 0) {
				at[i] = body;
				len[i] = (size_t)(nl - body);
			}
		}
		p = nl;
	}
	for (i = 0; i < NFILES; i++)
		put_file(files[i], at[i], at[i] != NULL ? len[i] : 0);
}

/* Draw view v at cols x rows, in UTF-8 or in ASCII. */
static void
draw(const struct view *v, int cols, int rows, bool utf8)
{
	struct frame	f = { .cv = &cv, .w = cols, .h = rows };

	cv_resize(&cv, cols, rows);
	ui.utf8 = ui.color = utf8;
	v->draw(&f);
	if (dump && cols == 80)
		cv_dump(&cv, stderr);
}

/* Update every view from the root, twice, and draw each. */
static void
run_views(void)
{
	static const struct view *const help = &view_help;
	struct source			 src;
	struct ctx			 c = { .src = &src };
	int				 i, k;

	source_open(&src, root);
	for (i = 0; i <= ndata_views; i++) {
		const struct view *v = i < ndata_views ? data_views[i] : help;

		for (k = 0; k < 2; k++) {
			source_tick(&src);
			data_ms += 1000;
			c.now_ms = data_ms;
			c.jumped = k == 0;
			v->update(&c);
		}
		draw(v, 80, 24, true);
		draw(v, 200, 60, false);
		draw(v, 9, 3, true);
	}
	/* The compaction view's replay of the first run, when there is one. */
	if (compact_replay_start(1, 1) == NULL) {
		draw(&view_compact, 80, 24, true);
		view_compact.key('.');
		view_compact.key('>');
		draw(&view_compact, 120, 40, false);
		view_compact.key('R');
	}
	view_lru.key('t');
	source_tick(&src);
	c.now_ms = data_ms += 1000;
	view_lru.update(&c);
	draw(&view_lru, 80, 24, true);
	view_lru.key('t');
	source_close(&src);
}

#ifdef FUZZ_NUMBER_MUTATOR
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max,
    unsigned int seed);

/* Boundary values a decimal field may be given (AFL's interesting ones). */
static const char *const boundaries[] = {
	"0", "1", "2147483647", "2147483648", "4294967295", "4294967296",
	"9223372036854775807", "9223372036854775808", "18446744073709551615",
	"18446744073709551616",
};
#define NBOUNDARIES	(sizeof(boundaries) / sizeof(boundaries[0]))

/*
 * libFuzzer's mutations, and on one in four a number-aware one: a decimal
 * number of the input, chosen among its numbers (not by position, which
 * favours long ones), becomes a boundary value or a million times itself.
 * libFuzzer's own integer mutations seldom take a field of these text
 * files past 2^31 or 2^64.
 */
size_t
LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max,
    unsigned int seed)
{
	const char	*v;
	size_t		 i, n = 0, nums, pick, k, b = 0, e, vl;

	if (seed % 4 != 0 || size == 0)
		return LLVMFuzzerMutate(data, size, max);
	for (i = 0; i < size; i++)
		if (data[i] >= '0' && data[i] <= '9' &&
		    (i == 0 || data[i - 1] < '0' || data[i - 1] > '9'))
			n++;
	if ((nums = n) == 0)
		return LLVMFuzzerMutate(data, size, max);
	pick = (seed / 4) % nums;
	k = (seed / 4 / nums) % (NBOUNDARIES + 1);
	for (i = 0, n = 0; i < size; i++) {
		if (data[i] >= '0' && data[i] <= '9' &&
		    (i == 0 || data[i - 1] < '0' || data[i - 1] > '9') &&
		    n++ == pick) {
			b = i;
			break;
		}
	}
	for (e = b; e < size && data[e] >= '0' && data[e] <= '9'; e++)
		;
	if (k == NBOUNDARIES) {
		v = "000000";		/* a million times itself */
		b = e;
	} else
		v = boundaries[k];
	vl = strlen(v);
	if (size - (e - b) + vl > max)
		return LLVMFuzzerMutate(data, size, max);
	memmove(data + b + vl, data + e, size - e);
	memcpy(data + b, v, vl);
	return size - (e - b) + vl;
}
#endif

/* Write the root, then read and draw it with every view. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (root[0] == '\0')
		setup();
	write_root(data, size);
	run_views();
	return 0;
}
