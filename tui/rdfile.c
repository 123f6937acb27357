/* SPDX-License-Identifier: GPL-2.0-only */
/* rdfile.c - whole files into growable buffers; see parse.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "parse.h"
#include "util.h"

/* Grow to at least need + 1 bytes (doubling, 4 KiB at least). */
void
buf_reserve(struct buf *b, size_t need)
{
	if (need + 1 > b->cap) {
		b->cap = need + 1 > 2 * b->cap ? need + 1 : 2 * b->cap;
		if (b->cap < 4096)
			b->cap = 4096;
		b->p = xrealloc(b->p, b->cap);
	}
}

/* Free a buffer. */
void
buf_free(struct buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

/* One loop for both modes: read(2) to EOF, or pread(2) up to want. */
int
buf_read_fd(struct buf *out, int fd, size_t want, off_t off)
{
	ssize_t	r;

	buf_reserve(out, want ? want : out->len);
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

/* Open rel under dirfd and read it whole. */
int
buf_read_at(struct buf *out, int dirfd, const char *rel)
{
	int	fd = openat(dirfd, rel, O_RDONLY | O_CLOEXEC), r;

	out->len = 0;
	buf_reserve(out, 0);
	out->p[0] = '\0';
	if (fd < 0)
		return -errno;
	r = buf_read_fd(out, fd, 0, 0);
	close(fd);
	return r;
}
