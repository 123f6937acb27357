/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuzz-proto.c - libFuzzer entry point for the frame decoders used on both
 * ends of the guest link.
 *
 * The input is a byte stream as it would arrive on the line.  It is split
 * into frames exactly as the agent and the host reader do (proto_get_hdr,
 * then the payload length), and every frame goes through the agent's
 * request decoder and the host's reply checker; reply frames that pass
 * are decoded further the way link.c does, requests the way the agent
 * reads them (argv strings, STDIN data).  Any out-of-bounds access or
 * undefined behaviour is a crash under the sanitizers.
 */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "link/proto.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Decode a reply the way the host client does once it has been checked. */
static void
decode_reply(const struct proto_hdr *h, const uint8_t *p)
{
	struct proto_hello hello;
	struct proto_stat  st;
	uint64_t	   ns[PT_N];
	char		   name[256];
	size_t		   off = 0;
	unsigned	   type;
	uint32_t	   v;

	if (h->err != 0)
		return;
	switch (h->op) {
	case OP_HELLO:
		proto_dec_hello(p, h->len, &hello);
		break;
	case OP_STAT:
		proto_dec_stat(p, h->len, &st);
		break;
	case OP_READDIR:
		while (proto_dec_dirent(p, h->len, &off, name, &type) == 1)
			;
		break;
	case OP_WRITE:
	case OP_EXIT:
	case OP_WINDOW:
		proto_dec_u32(p, h->len, &v);
		break;
	case OP_TIMES:
		proto_dec_times(p, h->len, ns);
		break;
	}
}

/* One input: a stream of frames. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct proto_req req;
	static volatile unsigned sum;
	struct proto_hdr	h;
	size_t			off = 0;
	uint8_t		       *copy;
	int			rc;

	while (off < size) {
		rc = proto_get_hdr(data + off, size - off, &h,
		    PROTO_MAX_PAYLOAD);
		if (rc <= 0 || size - off - PROTO_HDR_LEN < h.len)
			break;
		/* An exact-size copy, so ASan sees any overrun. */
		copy = xrealloc(NULL, h.len);
		memcpy(copy, data + off + PROTO_HDR_LEN, h.len);
		if (proto_dec_request(&h, copy, &req) == 0 && h.op == OP_EXEC)
			for (uint32_t i = 0; i < req.u.exec.argc; i++)
				(void)strlen(req.u.exec.argv[i]);
		/* The agent copies a STDIN payload into its window buffer. */
		if (proto_dec_request(&h, copy, &req) == 0 && h.op == OP_STDIN &&
		    req.u.in.len > 0)
			sum += req.u.in.data[0] + req.u.in.data[req.u.in.len - 1];
		if (proto_check_reply(&h, copy) == 0)
			decode_reply(&h, copy);
		free(copy);
		off += PROTO_HDR_LEN + h.len;
	}
	return 0;
}
