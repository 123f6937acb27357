/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * proto.c - encoders and decoders of guest link frames (docs/protocol.md).
 *
 * Shared by the agent and the host.  Decoders check every length against
 * the buffer they are given before touching a byte.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"
#include "util.h"

/* Release a buffer's memory. */
void
pb_free(struct pbuf *pb)
{
	free(pb->data);
	pb->data = NULL;
	pb->len = pb->cap = 0;
}

/* Empty a buffer, keeping its memory. */
void
pb_reset(struct pbuf *pb)
{
	pb->len = 0;
}

/* Make room for n more bytes. */
static void
pb_grow(struct pbuf *pb, size_t n)
{
	size_t	cap;

	if (pb->len + n <= pb->cap)
		return;
	cap = pb->cap ? pb->cap : 256;
	while (cap < pb->len + n)
		cap *= 2;
	pb->data = xrealloc(pb->data, cap);
	pb->cap = cap;
}

/* Append n bytes. */
void
pb_put(struct pbuf *pb, const void *p, size_t n)
{
	pb_grow(pb, n);
	if (n)
		memcpy(pb->data + pb->len, p, n);
	pb->len += n;
}

/* Append one byte. */
void
pb_u8(struct pbuf *pb, uint8_t v)
{
	pb_put(pb, &v, 1);
}

/* Append a little-endian 16-bit value. */
void
pb_u16(struct pbuf *pb, uint16_t v)
{
	uint8_t	b[2] = { v & 0xff, v >> 8 };

	pb_put(pb, b, 2);
}

/* Append a little-endian 32-bit value. */
void
pb_u32(struct pbuf *pb, uint32_t v)
{
	uint8_t	b[4];

	put_le32(b, v);
	pb_put(pb, b, 4);
}

/* Append a little-endian 64-bit value. */
void
pb_u64(struct pbuf *pb, uint64_t v)
{
	pb_u32(pb, (uint32_t)v);
	pb_u32(pb, (uint32_t)(v >> 32));
}

/* Load a little-endian 16-bit value. */
uint16_t
get_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

/* Load a little-endian 32-bit value. */
uint32_t
get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 |
	    (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Load a little-endian 64-bit value. */
uint64_t
get_le64(const uint8_t *p)
{
	return (uint64_t)get_le32(p) | (uint64_t)get_le32(p + 4) << 32;
}

/* Store a little-endian 32-bit value. */
void
put_le32(uint8_t *p, uint32_t v)
{
	p[0] = v & 0xff;
	p[1] = (v >> 8) & 0xff;
	p[2] = (v >> 16) & 0xff;
	p[3] = v >> 24;
}

/* Printable name of an op. */
const char *
proto_op_name(unsigned op, char *tmp, size_t tmpsize)
{
	static const char *const names[] = {
		NULL, "HELLO", "STAT", "READDIR", "READLINK", "READ", "WRITE",
		"EXEC", "STDOUT", "STDERR", "EXIT", "TRACE", "DATA", "CANCEL",
		"STDIN", "WINDOW", "TIMES"
	};

	if (op >= 1 && op <= OP_MAX)
		return names[op];
	snprintf(tmp, tmpsize, "op%u", op);
	return tmp;
}

/* Append a header with length 0; returns where the frame starts. */
size_t
proto_frame_begin(struct pbuf *pb, unsigned op, uint32_t id, unsigned flags,
    int err)
{
	size_t	off = pb->len;

	pb_u32(pb, PROTO_MAGIC);
	pb_u32(pb, 0);
	pb_u32(pb, id);
	pb_u16(pb, (uint16_t)op);
	pb_u16(pb, (uint16_t)flags);
	pb_u32(pb, (uint32_t)err);
	return off;
}

/* Patch the payload length of the frame starting at off. */
void
proto_frame_end(struct pbuf *pb, size_t off)
{
	put_le32(pb->data + off + 4,
	    (uint32_t)(pb->len - off - PROTO_HDR_LEN));
}

/* Mark the frame starting at off as its reply's last, and end it. */
void
proto_frame_end_last(struct pbuf *pb, size_t off)
{
	uint8_t	*flags = pb->data + off + 14;

	flags[0] |= PF_END & 0xff;
	flags[1] |= PF_END >> 8;
	proto_frame_end(pb, off);
}

/* Append a frame with the given payload. */
void
proto_enc_frame(struct pbuf *pb, unsigned op, uint32_t id, unsigned flags,
    int err, const void *payload, size_t len)
{
	size_t	off;

	off = proto_frame_begin(pb, op, id, flags, err);
	pb_put(pb, payload, len);
	proto_frame_end(pb, off);
}

/* This side's hello: the protocol version and limits it was built with. */
void
proto_hello_init(struct proto_hello *h, const char *name)
{
	memset(h, 0, sizeof *h);
	h->version = PROTO_VERSION;
	h->max_payload = PROTO_MAX_PAYLOAD;
	h->max_path = PROTO_MAX_PATH;
	h->max_argc = PROTO_MAX_ARGC;
	snprintf(h->name, sizeof h->name, "%s", name);
}

/* Append a HELLO frame carrying h. */
void
proto_enc_hello(struct pbuf *pb, uint32_t id, unsigned flags,
    const struct proto_hello *h)
{
	size_t	off;

	off = proto_frame_begin(pb, OP_HELLO, id, flags, 0);
	pb_u32(pb, h->version);
	pb_u32(pb, h->max_payload);
	pb_u32(pb, h->max_path);
	pb_u32(pb, h->max_argc);
	pb_put(pb, h->name, strnlen(h->name, PROTO_NAME_MAX));
	proto_frame_end(pb, off);
}

/* Check a path the host is about to send. */
static int
check_path(const char *path)
{
	size_t	n = strlen(path);

	if (n == 0 || path[0] != '/')
		return -EINVAL;
	if (n > PROTO_MAX_PATH)
		return -ENAMETOOLONG;
	return 0;
}

/* Append a request whose payload is just a path (STAT, READDIR, ...). */
int
proto_enc_path(struct pbuf *pb, unsigned op, uint32_t id, const char *path)
{
	int	rc;

	if ((rc = check_path(path)) != 0)
		return rc;
	proto_enc_frame(pb, op, id, 0, 0, path, strlen(path));
	return 0;
}

/* Append a READ request. */
int
proto_enc_read(struct pbuf *pb, uint32_t id, const char *path, uint64_t off,
    uint32_t len, uint32_t rflags)
{
	size_t	start;
	int	rc;

	if ((rc = check_path(path)) != 0)
		return rc;
	start = proto_frame_begin(pb, OP_READ, id, 0, 0);
	pb_u64(pb, off);
	pb_u32(pb, len);
	pb_u32(pb, rflags);
	pb_put(pb, path, strlen(path));
	proto_frame_end(pb, start);
	return 0;
}

/* Append a WRITE request; -EFBIG when it would not fit in one frame. */
int
proto_enc_write(struct pbuf *pb, uint32_t id, const char *path,
    const void *data, size_t len)
{
	size_t	start, plen = strlen(path);
	int	rc;

	if ((rc = check_path(path)) != 0)
		return rc;
	if (len > PROTO_MAX_PAYLOAD - 4 - plen)
		return -EFBIG;
	start = proto_frame_begin(pb, OP_WRITE, id, 0, 0);
	pb_u32(pb, (uint32_t)plen);
	pb_put(pb, path, plen);
	pb_put(pb, data, len);
	proto_frame_end(pb, start);
	return 0;
}

/*
 * Append an EXEC request (flags: 0 or PF_STDIN); -E2BIG for too many or
 * too long arguments.
 */
int
proto_enc_exec(struct pbuf *pb, uint32_t id, char *const argv[],
    uint32_t timeout_s, unsigned flags)
{
	size_t	 start, total = 8;
	uint32_t argc;

	for (argc = 0; argv[argc] != NULL; argc++) {
		if (argc == PROTO_MAX_ARGC)
			return -E2BIG;
		total += strlen(argv[argc]) + 1;
	}
	if (argc == 0 || argv[0][0] == '\0')
		return -EINVAL;
	if (total > PROTO_MAX_PAYLOAD)
		return -E2BIG;
	start = proto_frame_begin(pb, OP_EXEC, id, flags & PF_STDIN, 0);
	pb_u32(pb, timeout_s);
	pb_u32(pb, argc);
	for (argc = 0; argv[argc] != NULL; argc++)
		pb_put(pb, argv[argc], strlen(argv[argc]) + 1);
	proto_frame_end(pb, start);
	return 0;
}

/* Append a STDIN frame (EOF when len is 0); -E2BIG over one chunk. */
int
proto_enc_stdin(struct pbuf *pb, uint32_t id, const void *data, size_t len)
{
	if (len > PROTO_CHUNK)
		return -E2BIG;
	proto_enc_frame(pb, OP_STDIN, id, 0, 0, data, len);
	return 0;
}

/* Append a WINDOW frame granting n more bytes of stdin. */
void
proto_enc_window(struct pbuf *pb, uint32_t id, uint32_t n)
{
	proto_enc_u32(pb, OP_WINDOW, id, PF_REPLY, n);
}

/* Append a TIMES reply. */
void
proto_enc_times(struct pbuf *pb, uint32_t id, const uint64_t *ns, uint32_t n)
{
	size_t		off;
	uint32_t	i;

	if (n > PROTO_TIMES_MAX)
		n = PROTO_TIMES_MAX;
	off = proto_frame_begin(pb, OP_TIMES, id, PF_REPLY | PF_END, 0);
	pb_u32(pb, n);
	for (i = 0; i < n; i++)
		pb_u64(pb, ns[i]);
	proto_frame_end(pb, off);
}

/* Append a STAT reply. */
void
proto_enc_stat(struct pbuf *pb, uint32_t id, const struct proto_stat *st)
{
	size_t	off;

	off = proto_frame_begin(pb, OP_STAT, id, PF_REPLY | PF_END, 0);
	pb_u32(pb, st->mode);
	pb_u32(pb, st->nlink);
	pb_u32(pb, st->uid);
	pb_u32(pb, st->gid);
	pb_u64(pb, st->size);
	pb_u64(pb, st->ino);
	pb_u64(pb, (uint64_t)st->mtime_ns);
	proto_frame_end(pb, off);
}

/* Append a frame whose payload is one 32-bit value. */
void
proto_enc_u32(struct pbuf *pb, unsigned op, uint32_t id, unsigned flags,
    uint32_t v)
{
	uint8_t	b[4];

	put_le32(b, v);
	proto_enc_frame(pb, op, id, flags, 0, b, 4);
}

/* Bytes one dirent takes on the wire. */
size_t
proto_dirent_len(const char *name)
{
	return 3 + strlen(name);
}

/* Append a dirent to the payload being built. */
void
proto_put_dirent(struct pbuf *pb, const char *name, unsigned type)
{
	size_t	n = strlen(name);

	pb_u8(pb, (uint8_t)type);
	pb_u16(pb, (uint16_t)n);
	pb_put(pb, name, n);
}

/* Decode a header at the start of buf. */
int
proto_get_hdr(const uint8_t *buf, size_t len, struct proto_hdr *h,
    uint32_t max_payload)
{
	static const uint8_t magic[4] = { PROTO_MAGIC & 0xff,
	    (PROTO_MAGIC >> 8) & 0xff, (PROTO_MAGIC >> 16) & 0xff,
	    PROTO_MAGIC >> 24 };

	/* Garbage is recognised from its first wrong byte. */
	if (memcmp(buf, magic, len < 4 ? len : 4) != 0)
		return -EBADMSG;
	if (len < PROTO_HDR_LEN)
		return 0;
	h->len = get_le32(buf + 4);
	h->id = get_le32(buf + 8);
	h->op = get_le16(buf + 12);
	h->flags = get_le16(buf + 14);
	h->err = (int32_t)get_le32(buf + 16);
	if (h->len > max_payload)
		return -EMSGSIZE;
	return PROTO_HDR_LEN;
}

/* Decode a hello block. */
int
proto_dec_hello(const uint8_t *p, size_t n, struct proto_hello *h)
{
	size_t	namelen;

	if (n < 16 || n > 16 + PROTO_NAME_MAX)
		return -EBADMSG;
	h->version = get_le32(p);
	h->max_payload = get_le32(p + 4);
	h->max_path = get_le32(p + 8);
	h->max_argc = get_le32(p + 12);
	namelen = n - 16;
	if (memchr(p + 16, '\0', namelen) != NULL)
		return -EBADMSG;
	memcpy(h->name, p + 16, namelen);
	h->name[namelen] = '\0';
	return 0;
}

/* Decode a path (the whole of p) into path[PROTO_MAX_PATH + 1]. */
int
proto_dec_path(const uint8_t *p, size_t n, char *path)
{
	if (n == 0 || p[0] != '/' || memchr(p, '\0', n) != NULL)
		return -EINVAL;
	if (n > PROTO_MAX_PATH)
		return -ENAMETOOLONG;
	memcpy(path, p, n);
	path[n] = '\0';
	return 0;
}

/* Decode a stat block. */
int
proto_dec_stat(const uint8_t *p, size_t n, struct proto_stat *st)
{
	if (n != PROTO_STAT_LEN)
		return -EBADMSG;
	st->mode = get_le32(p);
	st->nlink = get_le32(p + 4);
	st->uid = get_le32(p + 8);
	st->gid = get_le32(p + 12);
	st->size = get_le64(p + 16);
	st->ino = get_le64(p + 24);
	st->mtime_ns = (int64_t)get_le64(p + 32);
	return 0;
}

/* Decode a payload that is exactly one 32-bit value. */
int
proto_dec_u32(const uint8_t *p, size_t n, uint32_t *v)
{
	if (n != 4)
		return -EBADMSG;
	*v = get_le32(p);
	return 0;
}

/* Decode a TIMES payload. */
int
proto_dec_times(const uint8_t *p, size_t n, uint64_t *ns)
{
	uint32_t	count, i;

	if (n < 4)
		return -EBADMSG;
	count = get_le32(p);
	if (count > PROTO_TIMES_MAX || n != 4 + (size_t)count * 8)
		return -EBADMSG;
	for (i = 0; i < PT_N; i++)
		ns[i] = i < count ? get_le64(p + 4 + (size_t)i * 8) : 0;
	return 0;
}

/* Decode the dirent at *off. */
int
proto_dec_dirent(const uint8_t *p, size_t n, size_t *off, char *name,
    unsigned *type)
{
	size_t	 o = *off, nl;

	if (o == n)
		return 0;
	if (o > n || n - o < 3)
		return -EBADMSG;
	nl = get_le16(p + o + 1);
	if (nl == 0 || nl > 255 || n - o - 3 < nl)
		return -EBADMSG;
	if (memchr(p + o + 3, '\0', nl) != NULL ||
	    memchr(p + o + 3, '/', nl) != NULL)
		return -EBADMSG;
	if ((nl == 1 && p[o + 3] == '.') ||
	    (nl == 2 && p[o + 3] == '.' && p[o + 4] == '.'))
		return -EBADMSG;
	*type = p[o];
	memcpy(name, p + o + 3, nl);
	name[nl] = '\0';
	*off = o + 3 + nl;
	return 1;
}

/* Decode the argument strings of an EXEC request. */
static int
dec_exec(const uint8_t *p, size_t n, struct proto_req *r)
{
	const uint8_t	*end;
	size_t		 o;
	uint32_t	 i;

	if (n < 8)
		return -EINVAL;
	r->u.exec.timeout_s = get_le32(p);
	r->u.exec.argc = get_le32(p + 4);
	if (r->u.exec.argc == 0)
		return -EINVAL;
	if (r->u.exec.argc > PROTO_MAX_ARGC)
		return -E2BIG;
	o = 8;
	for (i = 0; i < r->u.exec.argc; i++) {
		if (o >= n)
			return -EINVAL;
		end = memchr(p + o, '\0', n - o);
		if (end == NULL)
			return -EINVAL;
		r->u.exec.argv[i] = (const char *)p + o;
		o = (size_t)(end - p) + 1;
	}
	if (o != n || r->u.exec.argv[0][0] == '\0')
		return -EINVAL;
	r->u.exec.argv[i] = NULL;
	return 0;
}

/* Decode any request frame (the agent's side). */
int
proto_dec_request(const struct proto_hdr *h, const uint8_t *p,
    struct proto_req *r)
{
	size_t	 n = h->len;
	uint32_t plen;

	r->hdr = *h;
	r->path[0] = '\0';
	if (h->flags & PF_REPLY)
		return -EBADMSG;
	switch (h->op) {
	case OP_HELLO:
		return proto_dec_hello(p, n, &r->u.hello) ? -EINVAL : 0;
	case OP_STAT:
	case OP_READDIR:
	case OP_READLINK:
	case OP_TRACE:
		return proto_dec_path(p, n, r->path);
	case OP_READ:
		if (n < 16)
			return -EINVAL;
		r->u.read.off = get_le64(p);
		r->u.read.len = get_le32(p + 8);
		r->u.read.flags = get_le32(p + 12);
		return proto_dec_path(p + 16, n - 16, r->path);
	case OP_WRITE:
		if (n < 4)
			return -EINVAL;
		plen = get_le32(p);
		if (plen > n - 4)
			return -EINVAL;
		r->u.write.data = p + 4 + plen;
		r->u.write.len = n - 4 - plen;
		return proto_dec_path(p + 4, plen, r->path);
	case OP_EXEC:
		r->u.exec.with_stdin = (h->flags & PF_STDIN) != 0;
		return dec_exec(p, n, r);
	case OP_CANCEL:
	case OP_TIMES:
		return n == 0 ? 0 : -EINVAL;
	case OP_STDIN:
		r->u.in.data = p;
		r->u.in.len = n;
		return n <= PROTO_CHUNK ? 0 : -EINVAL;
	default:
		return -ENOSYS;
	}
}

/* Check that a READDIR payload is a sequence of whole dirents. */
static int
check_dirents(const uint8_t *p, size_t n)
{
	char	 name[256];
	size_t	 off = 0;
	unsigned type;
	int	 rc;

	while ((rc = proto_dec_dirent(p, n, &off, name, &type)) == 1)
		;
	return rc;
}

/* Check a reply frame (the host's side). */
int
proto_check_reply(const struct proto_hdr *h, const uint8_t *p)
{
	struct proto_hello hello;
	struct proto_stat  st;
	uint64_t	   ns[PT_N];
	int		   end = (h->flags & PF_END) != 0;
	uint32_t	   v;

	if (!(h->flags & PF_REPLY))
		return -EBADMSG;
	if (h->err != 0) {
		/* Failures: one final frame, no payload, a sane errno. */
		if (h->err < 0 || h->err > 4095 || !end || h->len != 0)
			return -EBADMSG;
		switch (h->op) {
		case OP_HELLO: case OP_STAT: case OP_READDIR: case OP_READLINK:
		case OP_READ: case OP_WRITE: case OP_EXEC: case OP_TRACE:
		case OP_TIMES:
			return 0;
		default:
			return -EBADMSG;
		}
	}
	switch (h->op) {
	case OP_HELLO:
		return end && !proto_dec_hello(p, h->len, &hello) ? 0 : -EBADMSG;
	case OP_STAT:
		return end && !proto_dec_stat(p, h->len, &st) ? 0 : -EBADMSG;
	case OP_READDIR:
		return check_dirents(p, h->len) ? -EBADMSG : 0;
	case OP_READLINK:
		if (!end || h->len > PROTO_MAX_PATH ||
		    memchr(p, '\0', h->len) != NULL)
			return -EBADMSG;
		return 0;
	case OP_READ:
		return end ? 0 : -EBADMSG;
	case OP_WRITE:
		return end && !proto_dec_u32(p, h->len, &v) ? 0 : -EBADMSG;
	case OP_STDOUT:
	case OP_STDERR:
	case OP_DATA:
		return !end && h->len <= PROTO_CHUNK ? 0 : -EBADMSG;
	case OP_EXIT:
		if (!end || proto_dec_u32(p, h->len, &v) || v > 255)
			return -EBADMSG;
		return 0;
	case OP_WINDOW:
		/* A grant of stdin room, inside an EXEC's reply: never 0. */
		if (end || proto_dec_u32(p, h->len, &v) || v == 0)
			return -EBADMSG;
		return 0;
	case OP_TRACE:
		return end && h->len == 0 ? 0 : -EBADMSG;
	case OP_TIMES:
		return end && !proto_dec_times(p, h->len, ns) ? 0 : -EBADMSG;
	default:
		/* EXEC succeeds with EXIT, never with an EXEC frame. */
		return -EBADMSG;
	}
}
