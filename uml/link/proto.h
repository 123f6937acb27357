/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * proto.h - frames of the guest link (docs/protocol.md), shared byte for
 * byte by the agent (rootfs/agent.c) and the host client (uml/link/link.c).
 *
 * Encoders append whole frames to a growable buffer (grown with util.h's
 * xrealloc); decoders take (buf, len), never read outside it, and return
 * 0 or a negative errno (-EBADMSG for anything malformed).  Nothing here
 * does I/O.
 */
#ifndef UMKIT_PROTO_H
#define UMKIT_PROTO_H

#include <stddef.h>
#include <stdint.h>

#define PROTO_MAGIC		0x314b4d55u	/* "UMK1" on the wire */
#define PROTO_VERSION		3
#define PROTO_HDR_LEN		20
#define PROTO_MAX_PAYLOAD	(1u << 20)
#define PROTO_MAX_PATH		4096
#define PROTO_MAX_ARGC		256
#define PROTO_CHUNK		(64u << 10)	/* stream frames */
#define PROTO_NAME_MAX		64		/* hello name */
#define PROTO_STAT_LEN		40
/*
 * The stdin window of an EXEC with PF_STDIN: bytes of STDIN frames,
 * headers included, that the host may have sent and the agent not yet
 * passed on.  The agent grants it all at once, then what it passes on.
 * Small on purpose: the guest's tty holds 4 KiB before it throttles the
 * line, and UML 7.2's serial driver never resumes a throttled line (its
 * line_unthrottle() does not re-register the fd it stopped polling).
 */
#define PROTO_STDIN_WINDOW	2048u

enum proto_op {
	OP_HELLO = 1,
	OP_STAT,
	OP_READDIR,
	OP_READLINK,
	OP_READ,
	OP_WRITE,
	OP_EXEC,
	OP_STDOUT,
	OP_STDERR,
	OP_EXIT,
	OP_TRACE,
	OP_DATA,
	OP_CANCEL,
	OP_STDIN,
	OP_WINDOW,
	OP_TIMES,
	OP_MAX = OP_TIMES
};

/*
 * The guest's clock stamps a TIMES reply carries (version 3): CLOCK_MONOTONIC
 * nanoseconds in the guest, 0 when unknown, in this order.  A reply may
 * carry more (a later agent's) up to PROTO_TIMES_MAX; readers keep these.
 */
enum proto_time {
	PT_NOW,			/* the agent encoded this reply */
	PT_INIT,		/* /init started */
	PT_MOUNTED,		/* /init mounted the kernel's file systems */
	PT_DISK,		/* /init mounted the scratch disk (0: none) */
	PT_SPAWN,		/* /init set up swap, forks the agent */
	PT_AGENT,		/* the agent's main() started */
	PT_HELLO,		/* the agent sent its first HELLO */
	PT_N
};
#define PROTO_TIMES_MAX		32

#define PF_REPLY	0x1
#define PF_END		0x2
#define PF_TIMEOUT	0x4
#define PF_STDIN	0x8	/* EXEC request: feed stdin with STDIN frames */

#define PROTO_READ_WHOLE 0x1

struct proto_hdr {
	uint32_t	len;
	uint32_t	id;
	uint16_t	op;
	uint16_t	flags;
	int32_t		err;
};

struct proto_hello {
	uint32_t	version;
	uint32_t	max_payload;
	uint32_t	max_path;
	uint32_t	max_argc;
	char		name[PROTO_NAME_MAX + 1];
};

struct proto_stat {
	uint32_t	mode;
	uint32_t	nlink;
	uint32_t	uid;
	uint32_t	gid;
	uint64_t	size;
	uint64_t	ino;
	int64_t		mtime_ns;
};

/* A decoded request (agent side); pointers point into the frame. */
struct proto_req {
	struct proto_hdr hdr;
	char		path[PROTO_MAX_PATH + 1];
	union {
		struct proto_hello hello;
		struct {
			uint64_t	off;
			uint32_t	len;
			uint32_t	flags;
		} read;
		struct {
			const uint8_t	*data;
			size_t		 len;
		} write;
		struct {
			uint32_t	 timeout_s;
			uint32_t	 argc;
			const char	*argv[PROTO_MAX_ARGC + 1];
			int		 with_stdin;	/* PF_STDIN was set */
		} exec;
		struct {
			const uint8_t	*data;		/* empty: EOF */
			size_t		 len;
		} in;
	} u;
};

/* A growable byte buffer that frames are encoded into. */
struct pbuf {
	uint8_t		*data;
	size_t		 len;
	size_t		 cap;
};

/* Buffer helpers. */
void	 pb_free(struct pbuf *);
void	 pb_reset(struct pbuf *);
void	 pb_put(struct pbuf *, const void *, size_t);
void	 pb_u8(struct pbuf *, uint8_t);
void	 pb_u16(struct pbuf *, uint16_t);
void	 pb_u32(struct pbuf *, uint32_t);
void	 pb_u64(struct pbuf *, uint64_t);

/* Little-endian loads and stores. */
uint16_t get_le16(const uint8_t *);
uint32_t get_le32(const uint8_t *);
uint64_t get_le64(const uint8_t *);
void	 put_le32(uint8_t *, uint32_t);

/* Name of an op for log lines ("op17" style for unknown ones). */
const char *proto_op_name(unsigned op, char *tmp, size_t tmpsize);

/*
 * Start a frame in pb; returns its offset, to be passed to
 * proto_frame_end once the payload has been appended.
 */
size_t	 proto_frame_begin(struct pbuf *, unsigned op, uint32_t id,
	    unsigned flags, int err);
/* Fill in the payload length of the frame started at off. */
void	 proto_frame_end(struct pbuf *, size_t off);
/* The same, marking the frame the last of its reply (PF_END). */
void	 proto_frame_end_last(struct pbuf *, size_t off);
/* A whole frame with the given payload. */
void	 proto_enc_frame(struct pbuf *, unsigned op, uint32_t id,
	    unsigned flags, int err, const void *payload, size_t len);

/*
 * Fill h with this side's PROTO_VERSION and limits, and name (cut at
 * PROTO_NAME_MAX): what the agent and the host both send in a HELLO.
 */
void	 proto_hello_init(struct proto_hello *h, const char *name);

/* Requests (host).  Return 0, or -ENAMETOOLONG / -E2BIG / -EINVAL. */
void	 proto_enc_hello(struct pbuf *, uint32_t id, unsigned flags,
	    const struct proto_hello *);
int	 proto_enc_path(struct pbuf *, unsigned op, uint32_t id,
	    const char *path);
int	 proto_enc_read(struct pbuf *, uint32_t id, const char *path,
	    uint64_t off, uint32_t len, uint32_t rflags);
int	 proto_enc_write(struct pbuf *, uint32_t id, const char *path,
	    const void *data, size_t len);
int	 proto_enc_exec(struct pbuf *, uint32_t id, char *const argv[],
	    uint32_t timeout_s, unsigned flags);
/* A STDIN frame for EXEC id: len <= PROTO_CHUNK bytes, 0 for EOF. */
int	 proto_enc_stdin(struct pbuf *, uint32_t id, const void *data,
	    size_t len);

/* Replies (agent). */
void	 proto_enc_stat(struct pbuf *, uint32_t id, const struct proto_stat *);
void	 proto_enc_u32(struct pbuf *, unsigned op, uint32_t id,
	    unsigned flags, uint32_t v);
/* A WINDOW frame: the host may send n more bytes of stdin to EXEC id. */
void	 proto_enc_window(struct pbuf *, uint32_t id, uint32_t n);
/* A TIMES reply: n (<= PROTO_TIMES_MAX) stamps, in enum proto_time order. */
void	 proto_enc_times(struct pbuf *, uint32_t id, const uint64_t *ns,
	    uint32_t n);
/* Append one dirent to the payload of the frame being built. */
void	 proto_put_dirent(struct pbuf *, const char *name, unsigned type);
/* Bytes a dirent with this name takes. */
size_t	 proto_dirent_len(const char *name);

/*
 * Decode a header from buf.  Returns PROTO_HDR_LEN when buf holds a
 * valid header, 0 when len < PROTO_HDR_LEN, -EBADMSG for a bad magic (as
 * soon as its first wrong byte is in buf) and
 * -EMSGSIZE for a payload length over max_payload.
 */
int	 proto_get_hdr(const uint8_t *buf, size_t len, struct proto_hdr *,
	    uint32_t max_payload);

/* Payload decoders. */
int	 proto_dec_hello(const uint8_t *, size_t, struct proto_hello *);
int	 proto_dec_path(const uint8_t *, size_t, char *path);
int	 proto_dec_stat(const uint8_t *, size_t, struct proto_stat *);
int	 proto_dec_u32(const uint8_t *, size_t, uint32_t *);
/*
 * A TIMES payload into ns[PT_N]: the first PT_N stamps (those it lacks
 * are 0).  -EBADMSG unless it is a u32 count <= PROTO_TIMES_MAX and
 * exactly that many u64s.
 */
int	 proto_dec_times(const uint8_t *, size_t, uint64_t *ns);
/*
 * Next dirent of a READDIR payload at *off: 1 with name (NUL-terminated,
 * at least 256 bytes) and *type filled, 0 at the end, -EBADMSG.
 */
int	 proto_dec_dirent(const uint8_t *, size_t, size_t *off, char *name,
	    unsigned *type);

/*
 * Decode a request frame (the agent's side).  Returns 0, -EBADMSG when the
 * frame is not a request at all (garbage: REPLY set), or the errno to
 * answer with: -EINVAL, -ENAMETOOLONG, -E2BIG, -ENOSYS.
 */
int	 proto_dec_request(const struct proto_hdr *, const uint8_t *payload,
	    struct proto_req *);

/*
 * Check a reply frame (the host's side): 0 when it is a well-formed reply
 * frame for its op, -EBADMSG otherwise.
 */
int	 proto_check_reply(const struct proto_hdr *, const uint8_t *payload);

#endif
