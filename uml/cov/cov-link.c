/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cov-link.c - a guest's gcov counters copied out over the guest link
 * (cov.h), before the guest stops: umkit exec and the supervisor call
 * cov_collect when $UMKIT_GCOV_DIR is set; umkit coverage resets them.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cov.h"
#include "link/link.h"
#include "util.h"

/* A gcda file is a few KiB per object; mm/vmscan.o's is ~40 KiB. */
#define COV_READ_CHUNK	(256u << 10)
#define COV_MAX_DEPTH	32
/* A guest decides what it sends: bounds on a copy-out. */
#define COV_FILE_MAX	(64u << 20)	/* bytes of one .gcda */
#define COV_MAX_FILES	20000		/* files of one walk */
#define COV_DIR_MAX	20000		/* entries of one directory */

struct walk {
	char	       **names;		/* a directory's entries, collected first */
	unsigned	*types;
	int		 n;
	int		 cap;		/* room in names and types */
	int		 capped;	/* more than COV_DIR_MAX entries */
};

/* Collect one directory entry (link_readdir callback). */
static int
walk_dent(const char *name, unsigned type, void *arg)
{
	struct walk	*w = arg;

	if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0 ||
	    strchr(name, '/') != NULL)
		return 0;
	if (w->n >= COV_DIR_MAX) {
		w->capped = 1;
		return 1;
	}
	/* Grown by doubling: one realloc per entry is quadratic (20000). */
	if (w->n == w->cap) {
		w->cap = w->cap == 0 ? 64 : 2 * w->cap;
		w->names = xrealloc(w->names, w->cap * sizeof *w->names);
		w->types = xrealloc(w->types, w->cap * sizeof *w->types);
	}
	w->names[w->n] = xstrdup(name);
	w->types[w->n] = type;
	w->n++;
	return 0;
}

/* Copy one guest file to host path in offset reads, whole or not at all. */
static int
save_file(struct link *l, const char *gpath, const char *hpath)
{
	struct afile	 af;
	char		*buf;
	ssize_t		 n;
	uint64_t	 off = 0;
	int		 rc = 0;

	if (afile_open(&af, hpath, 0644) == NULL)
		return -errno;
	for (;;) {
		n = link_read(l, gpath, off, COV_READ_CHUNK, 0, &buf);
		if (n < 0) {
			rc = (int)n;
			break;
		}
		if (n > 0 && fwrite(buf, 1, n, af.f) != (size_t)n)
			rc = -errno;
		free(buf);
		if (rc != 0 || (size_t)n < COV_READ_CHUNK)
			break;
		off += n;
		if (off >= COV_FILE_MAX) {
			warnmsg("gcov: %s: more than %u MiB; not copied", gpath,
			    COV_FILE_MAX >> 20);
			rc = -EFBIG;
			break;
		}
	}
	if (rc != 0)
		afile_abort(&af);
	else if (afile_commit(&af) < 0)
		rc = -errno;
	return rc;
}

/*
 * Copy the .gcda files below guest directory gpath; files copied or
 * -errno.  *files counts the walk's files against COV_MAX_FILES.
 */
static int
save_dir(struct link *l, const char *gpath, const char *hdir, int depth,
    int *files)
{
	struct walk	 w = { 0 };
	int		 i, r, total = 0;

	if (depth > COV_MAX_DEPTH)
		return -ELOOP;
	if ((r = link_readdir(l, gpath, walk_dent, &w)) < 0)
		return r;
	if (w.capped)
		warnmsg("gcov: %s: more than %d entries; the rest are not copied",
		    gpath, COV_DIR_MAX);
	for (i = 0; i < w.n && total >= 0; i++) {
		char	*g = xasprintf("%s/%s", gpath, w.names[i]);
		char	*h = xasprintf("%s/%s", hdir, w.names[i]);
		size_t	 len = strlen(w.names[i]);

		if (w.types[i] == DT_DIR) {
			r = save_dir(l, g, h, depth + 1, files);
			total = r < 0 ? r : total + r;
		} else if (w.types[i] == DT_REG && len > 5 &&
		    strcmp(w.names[i] + len - 5, ".gcda") == 0) {
			if (++*files > COV_MAX_FILES) {
				if (*files == COV_MAX_FILES + 1)
					warnmsg("gcov: more than %d files; the rest "
					    "are not copied", COV_MAX_FILES);
			} else if (mkdir_p(hdir, 0755) < 0)
				total = -errno;
			else if ((r = save_file(l, g, h)) == -EFBIG)
				;	/* said; the others are copied */
			else if (r < 0)
				total = r;
			else
				total++;
		}
		free(g);
		free(h);
	}
	for (i = 0; i < w.n; i++)
		free(w.names[i]);
	free(w.names);
	free(w.types);
	return total;
}

/* Copy the .gcda files below guest directory root into dir. */
int
cov_save_from(struct link *l, const char *root, const char *dir)
{
	int	files = 0;

	return save_dir(l, root, dir, 0, &files);
}

/* Copy the guest's counters into dir. */
int
cov_save(struct link *l, const char *dir)
{
	int	r = cov_save_from(l, COV_GUEST_ROOT, dir);

	/* No gcov in this kernel (or no debugfs): nothing to copy. */
	return r == -ENOENT ? 0 : r;
}

/* Copy the counters to $UMKIT_GCOV_DIR/NAME.XXXXXX, if it is set. */
void
cov_collect(struct link *l, const char *name)
{
	const char	*root = getenv(COV_ENV);
	char		*dir;
	int		 r;

	if (root == NULL || *root == '\0' || l == NULL)
		return;
	if (mkdir_p(root, 0755) < 0) {
		warnmsg("%s=%s: %s", COV_ENV, root, strerror(errno));
		return;
	}
	dir = xasprintf("%s/%s.XXXXXX", root, name);
	if (mkdtemp(dir) == NULL) {
		warnmsg("%s: %s", dir, strerror(errno));
	} else if ((r = cov_save(l, dir)) < 0) {
		warnmsg("guest %s: copying its coverage counters: %s", name,
		    strerror(-r));
	} else if (r == 0) {
		rmdir(dir);
	}
	free(dir);
}

/* Zero every counter of the guest. */
int
cov_reset(struct link *l)
{
	ssize_t	n = link_write(l, COV_GUEST_ROOT "/reset", "1\n", 2);

	return n < 0 ? (int)n : 0;
}

