/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test-proto.c - unit tests of the frame codec (uml/link/proto.c): round trips
 * of every frame kind, and every truncated or malformed variant.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <cmocka.h>

#include "link/proto.h"

/* Decode the one frame in pb; returns its payload pointer. */
static const uint8_t *
one_frame(const struct pbuf *pb, struct proto_hdr *h)
{
	assert_int_equal(proto_get_hdr(pb->data, pb->len, h, PROTO_MAX_PAYLOAD),
	    PROTO_HDR_LEN);
	assert_int_equal(PROTO_HDR_LEN + h->len, pb->len);
	return pb->data + PROTO_HDR_LEN;
}

/* Decode the one request in pb into r; returns proto_dec_request's code. */
static int
dec_req(const struct pbuf *pb, struct proto_req *r)
{
	struct proto_hdr	 h;
	const uint8_t		*p = one_frame(pb, &h);

	return proto_dec_request(&h, p, r);
}

/* A request frame with a hand-made payload, decoded. */
static int
raw_req(unsigned op, const void *payload, size_t len, struct proto_req *r)
{
	struct pbuf	pb = { 0 };
	int		rc;

	proto_enc_frame(&pb, op, 7, 0, 0, payload, len);
	rc = dec_req(&pb, r);
	pb_free(&pb);
	return rc;
}

/* A reply frame with a hand-made payload, checked. */
static int
raw_reply(unsigned op, unsigned flags, int err, const void *p, size_t len)
{
	struct pbuf		pb = { 0 };
	struct proto_hdr	h;
	int			rc;

	proto_enc_frame(&pb, op, 9, flags, err, p, len);
	rc = proto_check_reply(&h, one_frame(&pb, &h));
	pb_free(&pb);
	return rc;
}

/* The frame header: byte layout, and every truncation. */
static void
test_header(void **state)
{
	struct pbuf		pb = { 0 };
	struct proto_hdr	h;
	size_t			i;

	proto_enc_frame(&pb, OP_STDOUT, 0xdeadbeef, PF_REPLY, 0, "abc", 3);
	/* Byte-exact layout: little-endian, 20-byte header. */
	static const uint8_t want[] = {
		'U', 'M', 'K', '1', 3, 0, 0, 0, 0xef, 0xbe, 0xad, 0xde,
		8, 0, 1, 0, 0, 0, 0, 0, 'a', 'b', 'c'
	};
	assert_int_equal(pb.len, sizeof(want));
	assert_memory_equal(pb.data, want, sizeof(want));
	assert_int_equal(proto_get_hdr(pb.data, pb.len, &h, PROTO_MAX_PAYLOAD),
	    PROTO_HDR_LEN);
	assert_int_equal(h.len, 3);
	assert_int_equal(h.id, 0xdeadbeef);
	assert_int_equal(h.op, OP_STDOUT);
	assert_int_equal(h.flags, PF_REPLY);
	assert_int_equal(h.err, 0);
	for (i = 0; i < PROTO_HDR_LEN; i++)
		assert_int_equal(proto_get_hdr(pb.data, i, &h,
		    PROTO_MAX_PAYLOAD), 0);
	pb.data[1] ^= 0x20;
	assert_int_equal(proto_get_hdr(pb.data, pb.len, &h, PROTO_MAX_PAYLOAD),
	    -EBADMSG);
	/* Short garbage is caught from its first wrong byte. */
	assert_int_equal(proto_get_hdr(pb.data, 1, &h, PROTO_MAX_PAYLOAD), 0);
	assert_int_equal(proto_get_hdr(pb.data, 2, &h, PROTO_MAX_PAYLOAD),
	    -EBADMSG);
	assert_int_equal(proto_get_hdr((const uint8_t *)"GET", 3, &h,
	    PROTO_MAX_PAYLOAD), -EBADMSG);
	pb.data[1] ^= 0x20;
	put_le32(pb.data + 4, PROTO_MAX_PAYLOAD + 1);
	assert_int_equal(proto_get_hdr(pb.data, pb.len, &h, PROTO_MAX_PAYLOAD),
	    -EMSGSIZE);
	put_le32(pb.data + 4, PROTO_MAX_PAYLOAD);
	assert_int_equal(proto_get_hdr(pb.data, pb.len, &h, PROTO_MAX_PAYLOAD),
	    PROTO_HDR_LEN);
	put_le32(pb.data + 4, 0xffffffffu);
	assert_int_equal(proto_get_hdr(pb.data, pb.len, &h, PROTO_MAX_PAYLOAD),
	    -EMSGSIZE);
	pb_free(&pb);
}

/* An error reply carries its errno in the header. */
static void
test_err_field(void **state)
{
	struct pbuf		pb = { 0 };
	struct proto_hdr	h;

	proto_enc_frame(&pb, OP_READ, 1, PF_REPLY | PF_END, ENOENT, NULL, 0);
	one_frame(&pb, &h);
	assert_int_equal(h.err, ENOENT);
	assert_int_equal(proto_check_reply(&h, pb.data + PROTO_HDR_LEN), 0);
	pb_free(&pb);
}

/* HELLO as reply and request, and its malformed forms. */
static void
test_hello(void **state)
{
	struct proto_hello	 a, b;
	struct proto_req	 r;
	struct pbuf		 pb = { 0 };
	struct proto_hdr	 h;
	const uint8_t		*p;
	uint8_t			 raw[16 + PROTO_NAME_MAX + 1];

	memset(&a, 0, sizeof(a));
	a.version = PROTO_VERSION;
	a.max_payload = PROTO_MAX_PAYLOAD;
	a.max_path = PROTO_MAX_PATH;
	a.max_argc = PROTO_MAX_ARGC;
	strcpy(a.name, "test agent");
	proto_enc_hello(&pb, 0, PF_REPLY | PF_END, &a);
	p = one_frame(&pb, &h);
	assert_int_equal(proto_check_reply(&h, p), 0);
	assert_int_equal(proto_dec_hello(p, h.len, &b), 0);
	assert_int_equal(b.version, PROTO_VERSION);
	assert_int_equal(b.max_payload, PROTO_MAX_PAYLOAD);
	assert_int_equal(b.max_path, PROTO_MAX_PATH);
	assert_int_equal(b.max_argc, PROTO_MAX_ARGC);
	assert_string_equal(b.name, "test agent");
	pb_free(&pb);

	/* As a request (host to agent). */
	proto_enc_hello(&pb, 5, 0, &a);
	assert_int_equal(dec_req(&pb, &r), 0);
	assert_int_equal(r.u.hello.version, PROTO_VERSION);
	pb_free(&pb);

	/* Too short, name too long, NUL in the name. */
	memset(raw, 'x', sizeof(raw));
	for (size_t n = 0; n < 16; n++)
		assert_int_equal(proto_dec_hello(raw, n, &b), -EBADMSG);
	assert_int_equal(proto_dec_hello(raw, 16, &b), 0);
	assert_string_equal(b.name, "");
	assert_int_equal(proto_dec_hello(raw, 16 + PROTO_NAME_MAX, &b), 0);
	assert_int_equal(strlen(b.name), PROTO_NAME_MAX);
	assert_int_equal(proto_dec_hello(raw, 17 + PROTO_NAME_MAX, &b),
	    -EBADMSG);
	raw[20] = '\0';
	assert_int_equal(proto_dec_hello(raw, 24, &b), -EBADMSG);
	assert_int_equal(raw_req(OP_HELLO, raw, 8, &r), -EINVAL);
	/* A HELLO reply must end its request. */
	assert_int_equal(raw_reply(OP_HELLO, PF_REPLY, 0, raw, 16), -EBADMSG);
}

/* The requests that carry only a path, and bad paths. */
static void
test_path_requests(void **state)
{
	static const unsigned	 ops[] = { OP_STAT, OP_READDIR, OP_READLINK,
	    OP_TRACE };
	struct proto_req	 r;
	struct pbuf		 pb = { 0 };
	char			*longp;
	size_t			 i;

	for (i = 0; i < 4; i++) {
		assert_int_equal(proto_enc_path(&pb, ops[i], 42, "/proc/vmstat"),
		    0);
		assert_int_equal(dec_req(&pb, &r), 0);
		assert_int_equal(r.hdr.op, ops[i]);
		assert_int_equal(r.hdr.id, 42);
		assert_string_equal(r.path, "/proc/vmstat");
		pb_reset(&pb);
	}
	assert_int_equal(proto_enc_path(&pb, OP_STAT, 1, ""), -EINVAL);
	assert_int_equal(proto_enc_path(&pb, OP_STAT, 1, "proc"), -EINVAL);
	assert_int_equal(pb.len, 0);

	longp = malloc(PROTO_MAX_PATH + 2);
	memset(longp, 'a', PROTO_MAX_PATH + 1);
	longp[0] = '/';
	longp[PROTO_MAX_PATH] = '\0';
	assert_int_equal(proto_enc_path(&pb, OP_STAT, 1, longp), 0);
	assert_int_equal(dec_req(&pb, &r), 0);
	assert_int_equal(strlen(r.path), PROTO_MAX_PATH);
	pb_reset(&pb);
	longp[PROTO_MAX_PATH] = 'a';
	longp[PROTO_MAX_PATH + 1] = '\0';
	assert_int_equal(proto_enc_path(&pb, OP_STAT, 1, longp), -ENAMETOOLONG);
	/* Sent anyway by a broken peer: the agent answers ENAMETOOLONG. */
	assert_int_equal(raw_req(OP_STAT, longp, PROTO_MAX_PATH + 1, &r),
	    -ENAMETOOLONG);
	free(longp);
	pb_free(&pb);

	assert_int_equal(raw_req(OP_STAT, "", 0, &r), -EINVAL);
	assert_int_equal(raw_req(OP_STAT, "etc", 3, &r), -EINVAL);
	assert_int_equal(raw_req(OP_STAT, "/a\0b", 4, &r), -EINVAL);
	assert_int_equal(raw_req(OP_READLINK, "/a", 2, &r), 0);
}

/* READ requests: round trip and truncations. */
static void
test_read_request(void **state)
{
	struct proto_req	r;
	struct pbuf		pb = { 0 };
	struct proto_hdr	h;
	size_t			n;

	assert_int_equal(proto_enc_read(&pb, 3, "/proc/kpageflags",
	    0x123456789abcULL, 4096, 0), 0);
	assert_int_equal(dec_req(&pb, &r), 0);
	assert_int_equal(r.u.read.off, 0x123456789abcULL);
	assert_int_equal(r.u.read.len, 4096);
	assert_int_equal(r.u.read.flags, 0);
	assert_string_equal(r.path, "/proc/kpageflags");
	/*
	 * Cut inside the fixed part or before the path: refused.  Cut inside
	 * the path: a shorter path (the frame length is the path's length).
	 */
	one_frame(&pb, &h);
	for (n = 0; n < h.len; n++) {
		struct proto_hdr	t = h;

		t.len = (uint32_t)n;
		assert_int_equal(proto_dec_request(&t,
		    pb.data + PROTO_HDR_LEN, &r), n <= 16 ? -EINVAL : 0);
		if (n > 16)
			assert_int_equal(strlen(r.path), n - 16);
	}
	pb_reset(&pb);
	assert_int_equal(proto_enc_read(&pb, 3, "/proc/vmstat", 0, 0,
	    PROTO_READ_WHOLE), 0);
	assert_int_equal(dec_req(&pb, &r), 0);
	assert_int_equal(r.u.read.flags, PROTO_READ_WHOLE);
	pb_free(&pb);
}

/* WRITE requests: round trip, empty data, data too big. */
static void
test_write_request(void **state)
{
	struct proto_req	 r;
	struct pbuf		 pb = { 0 };
	uint8_t			 raw[32];
	void			*big;

	assert_int_equal(proto_enc_write(&pb, 4, "/sys/kernel/debug/lru_gen",
	    "+ 0 0 7\n", 8), 0);
	assert_int_equal(dec_req(&pb, &r), 0);
	assert_string_equal(r.path, "/sys/kernel/debug/lru_gen");
	assert_int_equal(r.u.write.len, 8);
	assert_memory_equal(r.u.write.data, "+ 0 0 7\n", 8);
	pb_reset(&pb);

	/* Empty data: a truncation. */
	assert_int_equal(proto_enc_write(&pb, 4, "/f", "", 0), 0);
	assert_int_equal(dec_req(&pb, &r), 0);
	assert_int_equal(r.u.write.len, 0);
	pb_reset(&pb);

	/* Data that cannot fit one frame. */
	big = calloc(1, PROTO_MAX_PAYLOAD);
	assert_int_equal(proto_enc_write(&pb, 4, "/f", big,
	    PROTO_MAX_PAYLOAD - 6), 0);
	assert_int_equal(pb.len, PROTO_HDR_LEN + PROTO_MAX_PAYLOAD);
	pb_reset(&pb);
	assert_int_equal(proto_enc_write(&pb, 4, "/f", big,
	    PROTO_MAX_PAYLOAD - 5), -EFBIG);
	free(big);
	pb_free(&pb);

	/* Path length past the payload, missing, zero. */
	put_le32(raw, 100);
	memcpy(raw + 4, "/abc", 4);
	assert_int_equal(raw_req(OP_WRITE, raw, 8, &r), -EINVAL);
	assert_int_equal(raw_req(OP_WRITE, raw, 3, &r), -EINVAL);
	put_le32(raw, 0);
	assert_int_equal(raw_req(OP_WRITE, raw, 8, &r), -EINVAL);
	put_le32(raw, 4);
	assert_int_equal(raw_req(OP_WRITE, raw, 8, &r), 0);
	assert_int_equal(r.u.write.len, 0);
	put_le32(raw, 0xfffffffcu);
	assert_int_equal(raw_req(OP_WRITE, raw, 8, &r), -EINVAL);
}

/* EXEC requests: round trip, truncations, argument limits. */
static void
test_exec_request(void **state)
{
	char *const		 argv[] = { "sh", "-c", "echo hi", "", NULL };
	char			*many[PROTO_MAX_ARGC + 2];
	char *const		 none[] = { NULL };
	char *const		 empty0[] = { "", NULL };
	struct proto_req	 r;
	struct pbuf		 pb = { 0 };
	struct proto_hdr	 h;
	uint8_t			 raw[64];
	size_t			 i, n;

	assert_int_equal(proto_enc_exec(&pb, 8, argv, 5, 0), 0);
	assert_int_equal(dec_req(&pb, &r), 0);
	assert_int_equal(r.u.exec.timeout_s, 5);
	assert_int_equal(r.u.exec.argc, 4);
	assert_string_equal(r.u.exec.argv[0], "sh");
	assert_string_equal(r.u.exec.argv[1], "-c");
	assert_string_equal(r.u.exec.argv[2], "echo hi");
	assert_string_equal(r.u.exec.argv[3], "");
	assert_null(r.u.exec.argv[4]);
	/* Every truncation fails. */
	one_frame(&pb, &h);
	for (n = 0; n < h.len; n++) {
		struct proto_hdr	t = h;

		t.len = (uint32_t)n;
		assert_int_equal(proto_dec_request(&t,
		    pb.data + PROTO_HDR_LEN, &r), -EINVAL);
	}
	pb_reset(&pb);

	for (i = 0; i < PROTO_MAX_ARGC; i++)
		many[i] = "x";
	many[PROTO_MAX_ARGC] = NULL;
	assert_int_equal(proto_enc_exec(&pb, 8, many, 0, 0), 0);
	assert_int_equal(dec_req(&pb, &r), 0);
	assert_int_equal(r.u.exec.argc, PROTO_MAX_ARGC);
	pb_reset(&pb);
	many[PROTO_MAX_ARGC] = "x";
	many[PROTO_MAX_ARGC + 1] = NULL;
	assert_int_equal(proto_enc_exec(&pb, 8, many, 0, 0), -E2BIG);
	assert_int_equal(proto_enc_exec(&pb, 8, none, 0, 0), -EINVAL);
	assert_int_equal(proto_enc_exec(&pb, 8, empty0, 0, 0), -EINVAL);
	assert_int_equal(pb.len, 0);
	pb_free(&pb);

	/* Hand-made: argc 0, argc too big, trailing bytes, empty argv[0]. */
	memset(raw, 0, sizeof(raw));
	put_le32(raw + 4, 0);
	assert_int_equal(raw_req(OP_EXEC, raw, 8, &r), -EINVAL);
	put_le32(raw + 4, PROTO_MAX_ARGC + 1);
	assert_int_equal(raw_req(OP_EXEC, raw, 8, &r), -E2BIG);
	put_le32(raw + 4, 1);
	memcpy(raw + 8, "ls\0junk", 7);
	assert_int_equal(raw_req(OP_EXEC, raw, 11, &r), 0);
	assert_int_equal(raw_req(OP_EXEC, raw, 15, &r), -EINVAL);
	put_le32(raw + 4, 2);
	assert_int_equal(raw_req(OP_EXEC, raw, 11, &r), -EINVAL);
	put_le32(raw + 4, 1);
	raw[8] = '\0';
	assert_int_equal(raw_req(OP_EXEC, raw, 9, &r), -EINVAL);
}

/* STAT replies: round trip and every wrong length. */
static void
test_stat_reply(void **state)
{
	struct proto_stat	 a = { 0100644, 1, 0, 0, 123456789012ULL, 42,
	    -5 }, b;
	struct pbuf		 pb = { 0 };
	struct proto_hdr	 h;
	const uint8_t		*p;
	size_t			 n;

	proto_enc_stat(&pb, 11, &a);
	p = one_frame(&pb, &h);
	assert_int_equal(h.len, PROTO_STAT_LEN);
	assert_int_equal(h.flags, PF_REPLY | PF_END);
	assert_int_equal(proto_check_reply(&h, p), 0);
	assert_int_equal(proto_dec_stat(p, h.len, &b), 0);
	assert_memory_equal(&a, &b, sizeof(a));
	for (n = 0; n <= PROTO_STAT_LEN + 1; n++)
		if (n != PROTO_STAT_LEN) {
			assert_int_equal(proto_dec_stat(p, n, &b), -EBADMSG);
			assert_int_equal(raw_reply(OP_STAT, PF_REPLY | PF_END,
			    0, p, n < PROTO_STAT_LEN ? n : 0), -EBADMSG);
		}
	pb_free(&pb);
}

/* READDIR replies: dirents, prefixes, bad names and offsets. */
static void
test_dirents(void **state)
{
	static const char	*names[] = { "vmstat", "a", "..x", ".hidden" };
	struct pbuf		 pb = { 0 };
	struct proto_hdr	 h;
	const uint8_t		*p;
	char			 name[256], n255[256];
	size_t			 off, i, n, bounds[8], nb = 0;
	unsigned		 type;
	size_t			 start;

	start = proto_frame_begin(&pb, OP_READDIR, 1, PF_REPLY | PF_END, 0);
	bounds[nb++] = 0;
	for (i = 0; i < 4; i++) {
		proto_put_dirent(&pb, names[i], DT_REG + i);
		bounds[nb++] = pb.len - PROTO_HDR_LEN;
	}
	memset(n255, 'n', 255);
	n255[255] = '\0';
	proto_put_dirent(&pb, n255, DT_DIR);
	bounds[nb++] = pb.len - PROTO_HDR_LEN;
	proto_frame_end(&pb, start);
	p = one_frame(&pb, &h);
	assert_int_equal(proto_check_reply(&h, p), 0);
	off = 0;
	for (i = 0; i < 4; i++) {
		assert_int_equal(proto_dec_dirent(p, h.len, &off, name, &type),
		    1);
		assert_string_equal(name, names[i]);
		assert_int_equal(type, DT_REG + i);
	}
	assert_int_equal(proto_dec_dirent(p, h.len, &off, name, &type), 1);
	assert_string_equal(name, n255);
	assert_int_equal(proto_dec_dirent(p, h.len, &off, name, &type), 0);

	/* A prefix is valid exactly when it ends between dirents. */
	for (n = 0; n <= h.len; n++) {
		int	at_bound = 0;

		for (i = 0; i < nb; i++)
			at_bound |= bounds[i] == n;
		assert_int_equal(raw_reply(OP_READDIR, PF_REPLY, 0, p, n),
		    at_bound ? 0 : -EBADMSG);
	}
	pb_free(&pb);

	/* Bad names: empty, ".", "..", with '/', with NUL, 256 bytes. */
	static const struct { const char *b; size_t n; } bad[] = {
		{ "\x08\x00\x00", 3 },
		{ "\x08\x01\x00" ".", 4 },
		{ "\x08\x02\x00" "..", 5 },
		{ "\x08\x03\x00" "a/b", 6 },
		{ "\x08\x03\x00" "a\0b", 6 },
		{ "\x08\x00\x01", 3 },
		{ "\x08\x05\x00" "abc", 6 },
	};
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		off = 0;
		assert_int_equal(proto_dec_dirent((const uint8_t *)bad[i].b,
		    bad[i].n, &off, name, &type), -EBADMSG);
	}
	/* An offset past the end is refused, not read. */
	off = 10;
	assert_int_equal(proto_dec_dirent((const uint8_t *)"abc", 3, &off,
	    name, &type), -EBADMSG);
}

/* Which flags and lengths a reply of each op may have. */
static void
test_check_reply(void **state)
{
	uint8_t	v[4];

	put_le32(v, 137);
	assert_int_equal(raw_reply(OP_EXIT, PF_REPLY | PF_END, 0, v, 4), 0);
	assert_int_equal(raw_reply(OP_EXIT, PF_REPLY | PF_END | PF_TIMEOUT, 0,
	    v, 4), 0);
	assert_int_equal(raw_reply(OP_EXIT, PF_REPLY, 0, v, 4), -EBADMSG);
	assert_int_equal(raw_reply(OP_EXIT, PF_REPLY | PF_END, 0, v, 3),
	    -EBADMSG);
	put_le32(v, 256);
	assert_int_equal(raw_reply(OP_EXIT, PF_REPLY | PF_END, 0, v, 4),
	    -EBADMSG);
	/* No REPLY flag: a request sent to the host is garbage. */
	assert_int_equal(raw_reply(OP_READ, PF_END, 0, "x", 1), -EBADMSG);
	assert_int_equal(raw_reply(OP_READ, PF_REPLY | PF_END, 0, "x", 1), 0);
	assert_int_equal(raw_reply(OP_READ, PF_REPLY, 0, "x", 1), -EBADMSG);
	/* Stream chunks never end a request and are at most a chunk. */
	assert_int_equal(raw_reply(OP_STDOUT, PF_REPLY, 0, "x", 1), 0);
	assert_int_equal(raw_reply(OP_STDERR, PF_REPLY, 0, "", 0), 0);
	assert_int_equal(raw_reply(OP_DATA, PF_REPLY, 0, "x", 1), 0);
	assert_int_equal(raw_reply(OP_STDOUT, PF_REPLY | PF_END, 0, "x", 1),
	    -EBADMSG);
	assert_int_equal(raw_reply(OP_TRACE, PF_REPLY | PF_END, 0, NULL, 0), 0);
	assert_int_equal(raw_reply(OP_TRACE, PF_REPLY | PF_END, 0, "x", 1),
	    -EBADMSG);
	put_le32(v, 5);
	assert_int_equal(raw_reply(OP_WRITE, PF_REPLY | PF_END, 0, v, 4), 0);
	assert_int_equal(raw_reply(OP_WRITE, PF_REPLY | PF_END, 0, v, 2),
	    -EBADMSG);
	assert_int_equal(raw_reply(OP_READLINK, PF_REPLY | PF_END, 0, "/x", 2),
	    0);
	assert_int_equal(raw_reply(OP_READLINK, PF_REPLY | PF_END, 0, "/\0", 2),
	    -EBADMSG);
	/* EXEC succeeds only through EXIT; CANCEL and unknown ops never. */
	assert_int_equal(raw_reply(OP_EXEC, PF_REPLY | PF_END, 0, NULL, 0),
	    -EBADMSG);
	assert_int_equal(raw_reply(OP_EXEC, PF_REPLY | PF_END, EAGAIN, NULL, 0),
	    0);
	assert_int_equal(raw_reply(OP_CANCEL, PF_REPLY | PF_END, 0, NULL, 0),
	    -EBADMSG);
	assert_int_equal(raw_reply(0, PF_REPLY | PF_END, 0, NULL, 0), -EBADMSG);
	assert_int_equal(raw_reply(OP_MAX + 1, PF_REPLY | PF_END, 0, NULL, 0),
	    -EBADMSG);
	/* Errors: final, empty, a sane errno, a known op. */
	assert_int_equal(raw_reply(OP_STAT, PF_REPLY | PF_END, ENOENT, NULL, 0),
	    0);
	assert_int_equal(raw_reply(OP_STAT, PF_REPLY, ENOENT, NULL, 0),
	    -EBADMSG);
	assert_int_equal(raw_reply(OP_STAT, PF_REPLY | PF_END, ENOENT, "x", 1),
	    -EBADMSG);
	assert_int_equal(raw_reply(OP_STAT, PF_REPLY | PF_END, -1, NULL, 0),
	    -EBADMSG);
	assert_int_equal(raw_reply(OP_STAT, PF_REPLY | PF_END, 4096, NULL, 0),
	    -EBADMSG);
	assert_int_equal(raw_reply(OP_STDOUT, PF_REPLY | PF_END, EIO, NULL, 0),
	    -EBADMSG);
}

/* Replies sent as requests, unknown ops, CANCEL. */
static void
test_request_misc(void **state)
{
	struct proto_req	r;
	struct pbuf		pb = { 0 };
	struct proto_hdr	h;

	/* A reply sent to the agent is garbage; unknown ops get ENOSYS. */
	proto_enc_frame(&pb, OP_STAT, 1, PF_REPLY, 0, "/x", 2);
	one_frame(&pb, &h);
	assert_int_equal(proto_dec_request(&h, pb.data + PROTO_HDR_LEN, &r),
	    -EBADMSG);
	pb_free(&pb);
	assert_int_equal(raw_req(OP_STDOUT, "x", 1, &r), -ENOSYS);
	assert_int_equal(raw_req(OP_EXIT, NULL, 0, &r), -ENOSYS);
	assert_int_equal(raw_req(0, NULL, 0, &r), -ENOSYS);
	assert_int_equal(raw_req(999, NULL, 0, &r), -ENOSYS);
	assert_int_equal(raw_req(OP_CANCEL, NULL, 0, &r), 0);
	assert_int_equal(raw_req(OP_CANCEL, "x", 1, &r), -EINVAL);
}

/* Frames decoded one after another from a stream, and cut. */
static void
test_stream_of_frames(void **state)
{
	struct pbuf		pb = { 0 };
	struct proto_hdr	h;
	size_t			off = 0, cut;
	int			n = 0, rc;
	uint8_t			v[4];

	proto_enc_frame(&pb, OP_STDOUT, 3, PF_REPLY, 0, "one", 3);
	proto_enc_frame(&pb, OP_STDERR, 3, PF_REPLY, 0, "two", 3);
	put_le32(v, 0);
	proto_enc_frame(&pb, OP_EXIT, 3, PF_REPLY | PF_END, 0, v, 4);
	while ((rc = proto_get_hdr(pb.data + off, pb.len - off, &h,
	    PROTO_MAX_PAYLOAD)) > 0) {
		assert_true(pb.len - off - PROTO_HDR_LEN >= h.len);
		assert_int_equal(proto_check_reply(&h,
		    pb.data + off + PROTO_HDR_LEN), 0);
		off += PROTO_HDR_LEN + h.len;
		n++;
	}
	assert_int_equal(rc, 0);
	assert_int_equal(n, 3);
	assert_int_equal(off, pb.len);
	/* A stream cut anywhere leaves an incomplete frame, never garbage. */
	for (cut = 0; cut < pb.len; cut++) {
		off = 0;
		while ((rc = proto_get_hdr(pb.data + off, cut - off, &h,
		    PROTO_MAX_PAYLOAD)) > 0 && cut - off - PROTO_HDR_LEN >= h.len)
			off += PROTO_HDR_LEN + h.len;
		assert_true(rc >= 0);
		assert_true(off < cut || cut == 0 || off == cut);
	}
	pb_free(&pb);
}

/* The stdin frames: EXEC's flag, STDIN and WINDOW. */
static void
test_stdin_frames(void **state)
{
	char *const		 argv[] = { "cat", NULL };
	static uint8_t		 chunk[PROTO_CHUNK + 1];
	struct proto_req	 r;
	struct pbuf		 pb = { 0 };
	struct proto_hdr	 h;
	const uint8_t		*p;
	uint8_t			 v[4];
	uint32_t		 got;

	/* EXEC asks for a stdin pipe with a header flag; without, none. */
	assert_int_equal(proto_enc_exec(&pb, 8, argv, 0, PF_STDIN), 0);
	one_frame(&pb, &h);
	assert_int_equal(h.flags, PF_STDIN);
	assert_int_equal(dec_req(&pb, &r), 0);
	assert_true(r.u.exec.with_stdin);
	assert_string_equal(r.u.exec.argv[0], "cat");
	pb_reset(&pb);
	/* Other flag bits are not sent. */
	assert_int_equal(proto_enc_exec(&pb, 8, argv, 0, 0x80), 0);
	one_frame(&pb, &h);
	assert_int_equal(h.flags, 0);
	assert_int_equal(dec_req(&pb, &r), 0);
	assert_false(r.u.exec.with_stdin);
	pb_reset(&pb);

	/* STDIN: data for the exec's id, up to one chunk; empty is EOF. */
	memset(chunk, 'z', sizeof(chunk));
	assert_int_equal(proto_enc_stdin(&pb, 8, "abc", 3), 0);
	p = one_frame(&pb, &h);
	assert_int_equal(h.op, OP_STDIN);
	assert_int_equal(h.id, 8);
	assert_int_equal(h.flags, 0);
	assert_int_equal(dec_req(&pb, &r), 0);
	assert_int_equal(r.u.in.len, 3);
	assert_ptr_equal(r.u.in.data, p);
	assert_memory_equal(r.u.in.data, "abc", 3);
	/* A request, never a reply. */
	assert_int_equal(proto_check_reply(&h, p), -EBADMSG);
	pb_reset(&pb);
	assert_int_equal(proto_enc_stdin(&pb, 8, NULL, 0), 0);
	assert_int_equal(dec_req(&pb, &r), 0);
	assert_int_equal(r.u.in.len, 0);
	pb_reset(&pb);
	assert_int_equal(proto_enc_stdin(&pb, 8, chunk, PROTO_CHUNK), 0);
	assert_int_equal(dec_req(&pb, &r), 0);
	assert_int_equal(r.u.in.len, PROTO_CHUNK);
	pb_reset(&pb);
	assert_int_equal(proto_enc_stdin(&pb, 8, chunk, PROTO_CHUNK + 1),
	    -E2BIG);
	assert_int_equal(pb.len, 0);
	assert_int_equal(raw_req(OP_STDIN, chunk, PROTO_CHUNK + 1, &r), -EINVAL);
	/* A STDIN frame with REPLY set is garbage to the agent. */
	proto_enc_frame(&pb, OP_STDIN, 8, PF_REPLY, 0, "x", 1);
	assert_int_equal(dec_req(&pb, &r), -EBADMSG);
	pb_reset(&pb);

	/* WINDOW: a grant inside the EXEC's reply, never its end, never 0. */
	proto_enc_window(&pb, 8, PROTO_STDIN_WINDOW);
	p = one_frame(&pb, &h);
	assert_int_equal(h.op, OP_WINDOW);
	assert_int_equal(h.flags, PF_REPLY);
	assert_int_equal(proto_check_reply(&h, p), 0);
	assert_int_equal(proto_dec_u32(p, h.len, &got), 0);
	assert_int_equal(got, PROTO_STDIN_WINDOW);
	pb_free(&pb);
	put_le32(v, 1);
	assert_int_equal(raw_reply(OP_WINDOW, PF_REPLY, 0, v, 4), 0);
	assert_int_equal(raw_reply(OP_WINDOW, PF_REPLY | PF_END, 0, v, 4),
	    -EBADMSG);
	assert_int_equal(raw_reply(OP_WINDOW, PF_REPLY, 0, v, 3), -EBADMSG);
	assert_int_equal(raw_reply(OP_WINDOW, PF_REPLY, 0, NULL, 0), -EBADMSG);
	assert_int_equal(raw_reply(OP_WINDOW, PF_REPLY | PF_END, EIO, NULL, 0),
	    -EBADMSG);
	put_le32(v, 0);
	assert_int_equal(raw_reply(OP_WINDOW, PF_REPLY, 0, v, 4), -EBADMSG);
	/* A WINDOW sent to the agent is not a request it knows. */
	assert_int_equal(raw_req(OP_WINDOW, v, 4, &r), -ENOSYS);
	/* No error frames of STDIN: it has no reply. */
	assert_int_equal(raw_reply(OP_STDIN, PF_REPLY | PF_END, EIO, NULL, 0),
	    -EBADMSG);
}

/* The names of ops, known and unknown. */
static void
test_op_names(void **state)
{
	char	tmp[16];

	assert_string_equal(proto_op_name(OP_EXEC, tmp, sizeof(tmp)), "EXEC");
	assert_string_equal(proto_op_name(OP_CANCEL, tmp, sizeof(tmp)),
	    "CANCEL");
	assert_string_equal(proto_op_name(OP_STDIN, tmp, sizeof(tmp)), "STDIN");
	assert_string_equal(proto_op_name(OP_WINDOW, tmp, sizeof(tmp)),
	    "WINDOW");
	assert_string_equal(proto_op_name(77, tmp, sizeof(tmp)), "op77");
	assert_string_equal(proto_op_name(0, tmp, sizeof(tmp)), "op0");
}

/* Run the frame codec tests. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_header),
		cmocka_unit_test(test_err_field),
		cmocka_unit_test(test_hello),
		cmocka_unit_test(test_path_requests),
		cmocka_unit_test(test_read_request),
		cmocka_unit_test(test_write_request),
		cmocka_unit_test(test_exec_request),
		cmocka_unit_test(test_stat_reply),
		cmocka_unit_test(test_dirents),
		cmocka_unit_test(test_check_reply),
		cmocka_unit_test(test_request_misc),
		cmocka_unit_test(test_stream_of_frames),
		cmocka_unit_test(test_stdin_frames),
		cmocka_unit_test(test_op_names),
	};

	return cmocka_run_group_tests_name("proto", tests, NULL, NULL);
}
