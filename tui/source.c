/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * source.c - where the TUI's files come from: a root directory (fixtures,
 * a live FUSE mirror, "/" of the host) or a recording made by
 * `umkit record` (DIR/umkit-recording, DIR/index, DIR/snap/SEQ/...;
 * recfmt.h reads them).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#include "recfmt.h"
#include "tui.h"
#include "util.h"

#define FUSE_SUPER_MAGIC 0x65735546

/* Read a whole small file of the recording's directory. */
static char *
slurp(int dirfd, const char *rel, size_t *len)
{
	struct buf	b = { 0 };
	int		fd = openat(dirfd, rel, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	buf_read_fd(&b, fd, 0, 0);
	close(fd);
	*len = b.len;
	return b.p;
}

/* Load DIR/index of a recording (recfmt.h has the format). */
static void
load_index(struct source *s, int rootfd)
{
	size_t	 len;
	char	*txt = slurp(rootfd, REC_INDEX, &len);

	if (!txt)
		fatalx("%s: recording without an index file", s->root);
	s->nsnaps = rec_index_parse(txt, len, &s->snaps);
	free(txt);
	if (s->nsnaps == 0)
		fatalx("%s: recording index has no snapshots", s->root);
}

/* Open the snapshot directory for position cur. */
static int
open_snap(struct source *s, int cur)
{
	char	rel[64], path[4096];

	rec_snap_rel(rel, sizeof(rel), s->snaps[cur].seq, false);
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", s->root, rel) >= sizeof(path))
		fatalx("%s: path too long", s->root);
	return open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

/* Decide what kind of root this is and open it. */
void
source_open(struct source *s, const char *root)
{
	struct statfs	 sf;
	size_t		 len;
	char		*hdr;
	int		 rootfd;

	memset(s, 0, sizeof(*s));
	s->root = xstrdup(root);
	rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0)
		fatal("%s", root);
	hdr = slurp(rootfd, REC_HEADER, &len);
	if (hdr) {
		struct rec_header	h;
		char			err[REC_ERR_LEN];

		if (rec_header_parse(hdr, len, &h, err, sizeof(err)) < 0)
			fatalx("%s: %s", root, err);
		free(hdr);
		s->kind = SRC_RECORDING;
		load_index(s, rootfd);
		close(rootfd);
		s->cur = 0;
		s->dirfd = open_snap(s, 0);
		if (s->dirfd < 0)
			fatal("%s: snapshot %06u", root, s->snaps[0].seq);
		return;
	}
	s->dirfd = rootfd;
	if (strcmp(root, "/") == 0)
		s->kind = SRC_HOST;
	else if (fstatfs(rootfd, &sf) == 0 && sf.f_type == FUSE_SUPER_MAGIC)
		s->kind = SRC_LIVE;
	else
		s->kind = SRC_DIR;
}

/* Clear the per-update error. */
void
source_tick(struct source *s)
{
	s->err[0] = '\0';
	s->err_errno = 0;
}

/* Whether e says the guest did not answer. */
static bool
unresponsive(int e)
{
	return e == EIO || e == ENOTCONN || e == ETIMEDOUT;
}

/*
 * Remember the first error of this update in words; a guest that does
 * not answer outranks any other error (that is what the user must see).
 */
static int
note(struct source *s, const char *rel, int e)
{
	if (e == ENOENT || (s->err[0] && (unresponsive(s->err_errno) || !unresponsive(e))))
		return -e;
	s->err_errno = e;
	if (unresponsive(e))
		snprintf(s->err, sizeof(s->err), "guest not responding (%s: %s)",
		    rel, strerror(e));
	else
		snprintf(s->err, sizeof(s->err), "%s: %s", rel, strerror(e));
	return -e;
}

/* Read the whole file with one read loop. */
int
source_read(struct source *s, const char *rel, struct buf *out)
{
	int	r = buf_read_at(out, s->dirfd, rel);

	if (s->on_read)
		s->on_read(rel, s->on_read_arg);
	return r < 0 ? note(s, rel, -r) : 0;
}

/* Read a byte range (kpageflags) with pread. */
int
source_pread(struct source *s, const char *rel, off_t off, size_t len,
    struct buf *out)
{
	int	fd = openat(s->dirfd, rel, O_RDONLY | O_CLOEXEC), r;

	if (s->on_read)
		s->on_read(rel, s->on_read_arg);
	out->len = 0;
	buf_reserve(out, len);
	if (fd < 0)
		return note(s, rel, errno);
	r = buf_read_fd(out, fd, len, off);
	close(fd);
	return r < 0 ? note(s, rel, -r) : 0;
}

/* Enumerate a directory of the tree. */
int
source_list(struct source *s, const char *rel,
    void (*fn)(const char *name, void *arg), void *arg)
{
	int		 fd = openat(s->dirfd, rel,
	    O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct dirent	*de;
	DIR		*d;

	if (fd < 0)
		return note(s, rel, errno);
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return note(s, rel, errno);
	}
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			fn(de->d_name, arg);
	closedir(d);
	return 0;
}

/* Move through a recording's snapshots. */
int
source_step(struct source *s, int delta)
{
	int	to = s->cur + delta, fd;

	if (s->kind != SRC_RECORDING)
		return 0;
	if (to >= s->nsnaps) {
		/* a recording still being written: its index may have grown */
		int	rootfd = open(s->root,
		    O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		if (rootfd >= 0) {
			s->nsnaps = 0;
			load_index(s, rootfd);
			close(rootfd);
		}
	}
	if (to < 0)
		to = 0;
	if (to >= s->nsnaps)
		to = s->nsnaps - 1;
	if (to == s->cur)
		return 0;
	fd = open_snap(s, to);
	if (fd < 0) {
		note(s, "snap", errno);
		return 0;
	}
	close(s->dirfd);
	s->dirfd = fd;
	s->cur = to;
	return 1;
}

/* Data time in ms. */
double
source_now_ms(const struct source *s)
{
	struct timespec	ts;

	if (s->kind == SRC_RECORDING)
		return (double)s->snaps[s->cur].elapsed_ms;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Status-line description of the source. */
void
source_label(const struct source *s, char *out, size_t n)
{
	switch (s->kind) {
	case SRC_RECORDING: {
		const struct rec_snap	*sn = &s->snaps[s->cur];
		time_t			 t = (time_t)(sn->unix_ms / 1000);
		struct tm		 tm;
		char			 when[32];

		/* a recording's time past what struct tm holds: no date */
		if (gmtime_r(&t, &tm) == NULL ||
		    strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm) == 0)
			snprintf(when, sizeof(when), "?");
		snprintf(out, n, "recording %d/%d %s.%03lldZ +%.1fs", s->cur + 1,
		    s->nsnaps, when, sn->unix_ms % 1000, (double)sn->elapsed_ms / 1e3);
		break;
	}
	case SRC_LIVE:
		snprintf(out, n, "live %s", s->root);
		break;
	case SRC_HOST:
		snprintf(out, n, "host /");
		break;
	case SRC_DIR:
		snprintf(out, n, "root %s", s->root);
		break;
	}
}

/* Release what source_open took (the root may be opened again). */
void
source_close(struct source *s)
{
	if (s->dirfd >= 0)
		close(s->dirfd);
	free(s->root);
	free(s->snaps);
	memset(s, 0, sizeof(*s));
	s->dirfd = -1;
}
