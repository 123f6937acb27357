/*
 * source.c - where the TUI's files come from: a root directory (fixtures,
 * a live FUSE mirror, "/" of the host) or a recording made by
 * `umkit record` (DIR/umkit-recording, DIR/index, DIR/snap/SEQ/...).
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

#include "tui.h"
#include "util.h"

#define FUSE_SUPER_MAGIC 0x65735546

/* Make room for at least need bytes plus a NUL. */
static void buf_reserve(struct buf *b, size_t need)
{
	if (need + 1 > b->cap) {
		b->cap = need + 1 > 2 * b->cap ? need + 1 : 2 * b->cap;
		if (b->cap < 4096)
			b->cap = 4096;
		b->p = xrealloc(b->p, b->cap);
	}
}

/* Free a buffer. */
void buf_free(struct buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

/*
 * Read fd into out, after what it holds: to EOF with read(2) when want is
 * 0, else with pread(2) from off until out holds want bytes (or EOF).  The
 * content is NUL-terminated.  Returns 0 or -errno.
 */
static int read_fd(int fd, struct buf *out, size_t want, off_t off)
{
	ssize_t r;

	if (want)
		buf_reserve(out, want);
	for (;;) {
		if (!want && out->len + 16384 + 1 > out->cap)
			buf_reserve(out, out->len + 65536);
		if (want && out->len >= want)
			break;
		if (want)
			r = pread(fd, out->p + out->len, want - out->len, off + (off_t)out->len);
		else
			r = read(fd, out->p + out->len, out->cap - 1 - out->len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			out->p[out->len] = '\0';
			return -errno;
		}
		if (r == 0)
			break;
		out->len += (size_t)r;
	}
	out->p[out->len] = '\0';
	return 0;
}

/* Read a whole small file of the recording's directory. */
static char *slurp(int dirfd, const char *rel, size_t *len)
{
	struct buf b = { 0 };
	int fd = openat(dirfd, rel, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	read_fd(fd, &b, 0, 0);
	close(fd);
	*len = b.len;
	return b.p;
}

/* Load DIR/index of a recording: "<seq> <unix_ms> <elapsed_ms>" lines. */
static void load_index(struct source *s, int rootfd)
{
	size_t len;
	char *txt = slurp(rootfd, "index", &len), *line, *save = NULL;

	if (!txt)
		fatal("%s: recording without an index file", s->root);
	for (line = strtok_r(txt, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct snap sn;

		if (sscanf(line, "%u %lld %lld", &sn.seq, &sn.unix_ms, &sn.elapsed_ms) != 3)
			continue;
		s->snaps = xrealloc(s->snaps, (size_t)(s->nsnaps + 1) * sizeof(sn));
		s->snaps[s->nsnaps++] = sn;
	}
	free(txt);
	if (s->nsnaps == 0)
		fatal("%s: recording index has no snapshots", s->root);
}

/* Open the snapshot directory for position cur. */
static int open_snap(struct source *s, int cur)
{
	char rel[4096];

	if ((size_t)snprintf(rel, sizeof(rel), "%s/snap/%06u", s->root,
			     s->snaps[cur].seq) >= sizeof(rel))
		fatal("%s: path too long", s->root);
	return open(rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

/* Decide what kind of root this is and open it. */
void source_open(struct source *s, const char *root)
{
	struct statfs sf;
	size_t len;
	char *hdr;
	int rootfd;

	memset(s, 0, sizeof(*s));
	s->root = xstrdup(root);
	rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0)
		fatal("%s: %s", root, strerror(errno));
	hdr = slurp(rootfd, "umkit-recording", &len);
	if (hdr) {
		if (strncmp(hdr, "umkit-recording 1\n", 18) != 0)
			fatal("%s: unknown recording format (want 'umkit-recording 1')", root);
		free(hdr);
		s->kind = SRC_RECORDING;
		load_index(s, rootfd);
		close(rootfd);
		s->cur = 0;
		s->dirfd = open_snap(s, 0);
		if (s->dirfd < 0)
			fatal("%s: snapshot %06u: %s", root, s->snaps[0].seq, strerror(errno));
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
void source_tick(struct source *s)
{
	s->err[0] = '\0';
	s->err_errno = 0;
}

/* Remember the first error of this update in words. */
static int note(struct source *s, const char *rel, int e)
{
	if (e == ENOENT || s->err[0])
		return -e;
	s->err_errno = e;
	if (e == EIO || e == ENOTCONN || e == ETIMEDOUT)
		snprintf(s->err, sizeof(s->err), "guest not responding (%s: %s)",
			 rel, strerror(e));
	else
		snprintf(s->err, sizeof(s->err), "%s: %s", rel, strerror(e));
	return -e;
}

/* Read the whole file with one read loop. */
int source_read(struct source *s, const char *rel, struct buf *out)
{
	int fd = openat(s->dirfd, rel, O_RDONLY | O_CLOEXEC), r;

	out->len = 0;
	buf_reserve(out, 0);
	out->p[0] = '\0';
	if (fd < 0)
		return note(s, rel, errno);
	r = read_fd(fd, out, 0, 0);
	close(fd);
	return r < 0 ? note(s, rel, -r) : 0;
}

/* Read a byte range (kpageflags) with pread. */
int source_pread(struct source *s, const char *rel, off_t off, size_t len,
		 struct buf *out)
{
	int fd = openat(s->dirfd, rel, O_RDONLY | O_CLOEXEC), r;

	out->len = 0;
	buf_reserve(out, len);
	if (fd < 0)
		return note(s, rel, errno);
	r = read_fd(fd, out, len, off);
	close(fd);
	return r < 0 ? note(s, rel, -r) : 0;
}

/* Enumerate a directory of the tree. */
int source_list(struct source *s, const char *rel,
		void (*fn)(const char *name, void *arg), void *arg)
{
	int fd = openat(s->dirfd, rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct dirent *de;
	DIR *d;

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
int source_step(struct source *s, int delta)
{
	int to = s->cur + delta, fd;

	if (s->kind != SRC_RECORDING)
		return 0;
	if (to >= s->nsnaps) {
		/* a recording still being written: its index may have grown */
		int rootfd = open(s->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

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
double source_now_ms(const struct source *s)
{
	struct timespec ts;

	if (s->kind == SRC_RECORDING)
		return (double)s->snaps[s->cur].elapsed_ms;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Status-line description of the source. */
void source_label(const struct source *s, char *out, size_t n)
{
	switch (s->kind) {
	case SRC_RECORDING: {
		const struct snap *sn = &s->snaps[s->cur];
		time_t t = (time_t)(sn->unix_ms / 1000);
		struct tm tm;
		char when[32];

		gmtime_r(&t, &tm);
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
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
void source_close(struct source *s)
{
	if (s->dirfd >= 0)
		close(s->dirfd);
	free(s->root);
	free(s->snaps);
	memset(s, 0, sizeof(*s));
	s->dirfd = -1;
}
