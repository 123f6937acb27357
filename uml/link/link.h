/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * link.h - host end of the guest link (the kit's agent protocol).
 *
 * The guest agent (rootfs/agent.c) serves requests over /dev/ttyS1, whose
 * host end is one side of a socketpair handed to UML as ssl1=fd:N.  This
 * is the host-side client.  The wire format is specified in
 * docs/protocol.md and shared with the agent through uml/link/proto.h.
 *
 * Threading: every function may be called from any thread at any time;
 * several requests may be in flight at once (a reader thread owned by the
 * link demultiplexes replies by request id).  No call blocks longer than
 * its timeout: when the guest does not answer in time the call fails with
 * -EIO, and once the guest is gone (EOF or garbage on the line) every
 * pending and future call fails with -EIO at once.
 *
 * After a request has timed out, later requests wait only LINK_STALLED_MS
 * until the agent is heard from again: a hung guest then fails a whole
 * path walk through the mirror (several requests) within about 2 s, not
 * once per step, and the first answer brings full timeouts back.
 *
 * Return values: 0 or a byte count on success, a negative errno on failure
 * (errors the guest reports carry the guest's errno).
 */
#ifndef UMKIT_LINK_H
#define UMKIT_LINK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "proto.h"

struct link;

/*
 * The most payload the agent may have waiting for one call that its
 * caller has not taken yet; more, and the link is closed (said in its
 * log): a guest cannot make the host buffer without bound.
 */
#define LINK_QUEUE_MAX	(16 << 20)

/* How long a supervisor's exec waits for a client's sink that takes nothing. */
#define LINK_SINK_MS	5000

/* Default time a request may take before it fails with -EIO. */
#define LINK_TIMEOUT_MS 2000
/* The same while the agent has not answered since a request timed out. */
#define LINK_STALLED_MS 150
/*
 * What a write may take at least: writing a file can start kernel work the
 * writer waits for (/proc/sys/vm/compact_memory compacts every node before
 * the write returns: mm/compaction.c:3020, compact_nodes() in the sysctl
 * handler), seconds on a loaded host, where reads time out sooner.
 */
#define LINK_WRITE_MS	30000

/*
 * Take over fd (the host end of the line) and start the reader thread.
 * log may be NULL; otherwise protocol errors are reported there, one line
 * each.  Never returns NULL.
 */
struct link	*link_open(int fd, FILE *log);

/* Wait up to timeout_ms for the agent's hello; 0 when the agent is ready. */
int		 link_hello(struct link *, int timeout_ms);

/* Fail every pending request, stop the reader and free everything. */
void		 link_close(struct link *);

/* Attributes of a guest path (lstat semantics). */
struct link_stat {
	uint32_t	mode;	/* st_mode */
	uint32_t	nlink;
	uint64_t	size;
	uint64_t	ino;
	int64_t		mtime_ns;
};
int	link_stat(struct link *, const char *path, struct link_stat *);

/*
 * Directory entries: calls fn once per entry (not "." and ".."), type is
 * a DT_* value.  Stops early when fn returns non-zero.
 */
int	link_readdir(struct link *, const char *path,
	    int (*fn)(const char *name, unsigned type, void *arg), void *arg);

/* Symlink target into buf (NUL-terminated); returns its length. */
int	link_readlink(struct link *, const char *path, char *buf, size_t size);

/*
 * Read a file.  With off == 0 and whole != 0 the agent reads the file in
 * one go (up to the protocol's limit) and the content is never torn; for
 * binary files (/proc/kpageflags) use whole == 0 and offset reads.  On
 * success *buf is malloc'ed (caller frees) and the byte count returned.
 */
ssize_t	link_read(struct link *, const char *path, uint64_t off, size_t len,
	    int whole, char **buf);

/* Write data to a guest file in one write(2).  Returns bytes written. */
ssize_t	link_write(struct link *, const char *path, const void *data,
	    size_t len);

/*
 * Run argv in the guest (argv[0] looked up in PATH).  The command's stdout
 * and stderr are copied to out_fd and err_fd as they arrive (either may be
 * -1 to drop).  Its stdin is /dev/null when in_fd is -1; otherwise what
 * is read from in_fd, as the agent makes room for it, and EOF on in_fd
 * is EOF for the command (a thread of the call reads in_fd; what it has
 * not read when the command ends stays unread).  timeout_s > 0 kills
 * the command after that long.  On success returns 0 and sets *status to
 * a shell-style exit status (0-255; 128+N for signal N; 126 not
 * executable; 127 not found; 124 when the timeout killed it, as
 * timeout(1) reports).
 */
int	link_exec(struct link *, char *const argv[], int timeout_s,
	    int in_fd, int out_fd, int err_fd, int *status);

/*
 * The same, and when *stop becomes non-zero (checked at least every
 * 200 ms) the command's process group is killed; the call then returns
 * as for any command killed by SIGKILL (status 137).
 */
int	link_exec_stop(struct link *, char *const argv[], int timeout_s,
	    int in_fd, int out_fd, int err_fd, volatile int *stop,
	    int *status);

/*
 * Stream a tracefs pipe (e.g. "/sys/kernel/tracing/trace_pipe"): fn gets
 * each chunk of text as it arrives until it returns non-zero or *stop
 * becomes non-zero (checked at least every 200 ms).
 */
int	link_trace(struct link *, const char *path,
	    int (*fn)(const char *data, size_t len, void *arg), void *arg,
	    volatile int *stop);

/*
 * Additions (backwards compatible).  link_set_timeout: the per-request
 * timeout of later calls, in ms (<= 0 restores LINK_TIMEOUT_MS).
 * link_ping: send a HELLO without waiting for the agent's own first (for
 * attaching to an agent that is already running) and wait up to
 * timeout_ms for its reply; 0 when the agent answered.
 */
void	link_set_timeout(struct link *, int timeout_ms);
int	link_ping(struct link *, int timeout_ms);

/*
 * From now on, an exec's output sink that takes nothing for ms (a client
 * that stopped reading) is dropped rather than waited for; 0: wait (the
 * default, for a command's own stdout).
 */
void	link_sink_deadline(struct link *, int ms);

/*
 * The guest's clock stamps (TIMES, proto.h's enum proto_time: guest
 * CLOCK_MONOTONIC ns, 0 unknown) and, on the host's monotonic clock in
 * microseconds, when the request was sent and its reply read and when
 * the agent's first HELLO arrived (0: not seen on this link).
 */
struct link_times {
	long long	sent_us;
	long long	recv_us;
	long long	hello_us;
	uint64_t	guest_ns[PT_N];
};
int	link_times(struct link *, struct link_times *);

#endif
