/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * link.c - host end of the guest link (API in link.h, wire format in
 * docs/protocol.md).
 *
 * A reader thread owns the read side of the fd: it splits the byte stream
 * into frames, checks each one (proto_check_reply) and queues it on the
 * waiter whose request id it carries.  Callers encode a request, write it
 * under the write mutex, then sleep on their own condition variable until
 * a frame, their deadline or the death of the link.  Anything malformed
 * from the agent kills the link: every pending and future call fails with
 * -EIO at once.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>

#include "link.h"
#include "proto.h"
#include "util.h"

#define NO_DEADLINE	LLONG_MAX
#define TRACE_POLL_MS	200

/* A frame received for a request. */
struct frame {
	struct proto_hdr h;
	struct frame	*next;
	uint8_t		 data[];
};

/* A request in flight: where the reader puts the frames for its id. */
struct waiter {
	uint32_t	 id;
	struct frame	*head;		/* queued frames, oldest first */
	struct frame	**tail;
	size_t		 queued;	/* their payload bytes (LINK_QUEUE_MAX) */
	pthread_cond_t	 cond;		/* signalled on a frame or death */
	struct waiter	*next;
};

/* One call: its waiter, its deadline and its encoded request. */
struct call {
	struct waiter	 w;
	long long	 deadline;	/* ms, monotonic */
	struct pbuf	 pb;
};

struct link {
	int		 fd;
	FILE		*log;		/* may be NULL; FILE has its own lock */
	pthread_t	 reader;
	int		 wake[2];	/* link_close wakes the reader */

	/* wlock serialises writes of whole frames to fd. */
	pthread_mutex_t	 wlock;

	/* lock guards every field below, and the waiters' queues. */
	pthread_mutex_t	 lock;
	pthread_cond_t	 state;		/* hello, death, users == 0 */
	int		 dead;		/* EOF, garbage or closing */
	int		 hello;		/* the agent's HELLO has been seen */
	int		 version_err;	/* the agent speaks another version */
	long long	 hello_us;	/* the agent's first HELLO came */
	struct proto_hello peer;
	uint32_t	 next_id;
	int		 timeout_ms;
	int		 stalled;	/* a call timed out; nothing heard since */
	int		 users;		/* calls between begin and end */
	struct waiter	*waiters;
	int		 sink_ms;	/* copy_out's patience; 0: waits */
};

/* Write one line to the link's log, if it has one. */
static void __attribute__((format(printf, 2, 3)))
link_log(struct link *l, const char *fmt, ...)
{
	va_list	ap;

	if (l->log == NULL)
		return;
	va_start(ap, fmt);
	flockfile(l->log);
	fputs("link: ", l->log);
	vfprintf(l->log, fmt, ap);
	fputc('\n', l->log);
	fflush(l->log);
	funlockfile(l->log);
	va_end(ap);
}

/* Wait on cond until deadline; ETIMEDOUT when it passed. */
static int
wait_until(pthread_cond_t *cond, pthread_mutex_t *mtx, long long deadline)
{
	struct timespec	ts;

	if (deadline == NO_DEADLINE)
		return pthread_cond_wait(cond, mtx);
	if (now_ms() >= deadline)
		return ETIMEDOUT;
	ts.tv_sec = deadline / 1000;
	ts.tv_nsec = (deadline % 1000) * 1000000;
	return pthread_cond_timedwait(cond, mtx, &ts);
}

/* A condition variable that times out on the monotonic clock. */
static void
cond_init(pthread_cond_t *c)
{
	pthread_condattr_t a;

	pthread_condattr_init(&a);
	pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
	pthread_cond_init(c, &a);
	pthread_condattr_destroy(&a);
}

/* Mark the link dead and wake everyone; call with lock held. */
static void
kill_link_locked(struct link *l)
{
	struct waiter	*w;

	if (l->dead)
		return;
	l->dead = 1;
	for (w = l->waiters; w != NULL; w = w->next)
		pthread_cond_broadcast(&w->cond);
	pthread_cond_broadcast(&l->state);
	/* Tell the agent too: it sees EOF.  Fails harmlessly on non-sockets. */
	shutdown(l->fd, SHUT_RDWR);
}

/* Mark the link dead from outside the lock. */
static void
kill_link(struct link *l)
{
	pthread_mutex_lock(&l->lock);
	kill_link_locked(l);
	pthread_mutex_unlock(&l->lock);
}

/* Log a frame we refuse and kill the link. */
static void
garbage(struct link *l, const char *why, const uint8_t *p, size_t n)
{
	char	hex[3 * 24 + 1];
	size_t	i;

	hex[0] = '\0';
	for (i = 0; i < n && i < 24; i++)
		snprintf(hex + 3 * i, 4, " %02x", p[i]);
	link_log(l, "garbage from the agent (%s):%s; closing the link", why,
	    hex);
	kill_link(l);
}

/* Route one checked frame to its waiter; call with lock held. */
static void
deliver_locked(struct link *l, const struct proto_hdr *h, const uint8_t *p)
{
	struct waiter	*w;
	struct frame	*f;
	char		 tmp[16];

	for (w = l->waiters; w != NULL; w = w->next)
		if (w->id == h->id)
			break;
	if (w == NULL) {
		link_log(l, "dropped %s frame for id %u: nobody waits for it",
		    proto_op_name(h->op, tmp, sizeof(tmp)), h->id);
		return;
	}
	/* A guest that sends faster than its caller takes: the link goes. */
	if (w->queued + h->len > LINK_QUEUE_MAX) {
		link_log(l, "the agent queued more than %d MiB for request %u "
		    "that its caller has not taken: closing the link",
		    LINK_QUEUE_MAX >> 20, h->id);
		kill_link_locked(l);
		return;
	}
	w->queued += h->len;
	f = xrealloc(NULL, sizeof(*f) + h->len);
	f->h = *h;
	f->next = NULL;
	memcpy(f->data, p, h->len);
	*w->tail = f;
	w->tail = &f->next;
	pthread_cond_signal(&w->cond);
}

/* Handle one whole frame from the agent; 0, or -1 when it is garbage. */
static int
got_frame(struct link *l, const struct proto_hdr *h, const uint8_t *p)
{
	struct proto_hello hello;
	char		   tmp[16];

	if (proto_check_reply(h, p) != 0) {
		garbage(l, "malformed frame", p - PROTO_HDR_LEN,
		    PROTO_HDR_LEN + h->len);
		return -1;
	}
	pthread_mutex_lock(&l->lock);
	l->stalled = 0;		/* the agent is heard from again */
	if (h->op == OP_HELLO && h->err == 0) {
		proto_dec_hello(p, h->len, &hello);
		if (hello.version != PROTO_VERSION && !l->version_err) {
			link_log(l, "agent speaks protocol version %u, not %u",
			    hello.version, PROTO_VERSION);
			l->version_err = 1;
		}
		l->peer = hello;
		if (!l->hello)
			l->hello_us = now_us();
		l->hello = 1;
		pthread_cond_broadcast(&l->state);
		if (h->id == 0) {
			pthread_mutex_unlock(&l->lock);
			return 0;
		}
	} else if (h->id == 0) {
		pthread_mutex_unlock(&l->lock);
		garbage(l, proto_op_name(h->op, tmp, sizeof(tmp)),
		    p - PROTO_HDR_LEN, PROTO_HDR_LEN + h->len);
		return -1;
	}
	deliver_locked(l, h, p);
	pthread_mutex_unlock(&l->lock);
	return 0;
}

/* The reader thread: read, split into frames, route; die on EOF. */
static void *
reader_main(void *arg)
{
	struct link	*l = arg;
	struct proto_hdr h;
	struct pollfd	 pfd[2];
	uint8_t		*buf;
	size_t		 len = 0, off, cap = PROTO_HDR_LEN + PROTO_MAX_PAYLOAD;
	ssize_t		 n;
	int		 rc;

	buf = xrealloc(NULL, cap);
	pfd[0].fd = l->fd;
	pfd[0].events = POLLIN;
	pfd[1].fd = l->wake[0];
	pfd[1].events = POLLIN;
	for (;;) {
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			link_log(l, "poll: %s", strerror(errno));
			break;
		}
		if (pfd[1].revents)
			break;
		n = read(l->fd, buf + len, cap - len);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0) {
			if (n < 0)
				link_log(l, "read: %s", strerror(errno));
			else if (len != 0)
				link_log(l, "agent closed the line inside a "
				    "frame (%zu bytes)", len);
			else
				link_log(l, "agent closed the line");
			break;
		}
		len += (size_t)n;
		off = 0;
		for (;;) {
			rc = proto_get_hdr(buf + off, len - off, &h,
			    PROTO_MAX_PAYLOAD);
			if (rc < 0) {
				garbage(l, rc == -EBADMSG ? "bad magic" :
				    "payload too long", buf + off, len - off);
				goto out;
			}
			if (rc == 0 || len - off - PROTO_HDR_LEN < h.len)
				break;
			if (got_frame(l, &h, buf + off + PROTO_HDR_LEN) < 0)
				goto out;
			off += PROTO_HDR_LEN + h.len;
		}
		memmove(buf, buf + off, len - off);
		len -= off;
	}
out:
	kill_link(l);
	free(buf);
	return NULL;
}

/* Take over fd and start the reader. */
struct link *
link_open(int fd, FILE *log)
{
	struct link	*l;
	int		 fl, rc;

	l = xcalloc(1, sizeof(*l));
	l->fd = fd;
	l->log = log;
	l->next_id = 1;
	l->timeout_ms = LINK_TIMEOUT_MS;
	pthread_mutex_init(&l->wlock, NULL);
	pthread_mutex_init(&l->lock, NULL);
	cond_init(&l->state);
	if ((fl = fcntl(fd, F_GETFL)) >= 0)
		fcntl(fd, F_SETFL, fl | O_NONBLOCK);
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	if (pipe2(l->wake, O_CLOEXEC) != 0) {
		fprintf(stderr, "umkit: link: pipe: %s\n", strerror(errno));
		abort();
	}
	if ((rc = pthread_create(&l->reader, NULL, reader_main, l)) != 0) {
		fprintf(stderr, "umkit: link: thread: %s\n", strerror(rc));
		abort();
	}
	return l;
}

/* The per-request timeout (ms), read under the lock that guards it. */
static int
link_timeout(struct link *l)
{
	int	ms;

	pthread_mutex_lock(&l->lock);
	ms = l->timeout_ms;
	pthread_mutex_unlock(&l->lock);
	return ms;
}

/* Set the per-request timeout (ms) of later calls. */
void
link_set_timeout(struct link *l, int timeout_ms)
{
	pthread_mutex_lock(&l->lock);
	l->timeout_ms = timeout_ms > 0 ? timeout_ms : LINK_TIMEOUT_MS;
	pthread_mutex_unlock(&l->lock);
}

/* Wait for the agent's HELLO. */
int
link_hello(struct link *l, int timeout_ms)
{
	long long	deadline = now_ms() + timeout_ms;
	int		rc = 0;

	pthread_mutex_lock(&l->lock);
	while (!l->hello && !l->dead && rc == 0)
		rc = wait_until(&l->state, &l->lock, deadline);
	if (l->dead)
		rc = -EIO;
	else if (!l->hello)
		rc = -ETIMEDOUT;
	else
		rc = l->version_err ? -EPROTO : 0;
	pthread_mutex_unlock(&l->lock);
	return rc;
}

/*
 * Register a call: wait (until its deadline) for the agent's HELLO unless
 * force, then give it an id.  Every successful call_begin needs call_end.
 */
static int
call_begin(struct link *l, struct call *c, int force)
{
	int	rc = 0;

	memset(c, 0, sizeof(*c));
	pthread_mutex_lock(&l->lock);
	c->deadline = now_ms() +
	    (l->stalled ? LINK_STALLED_MS : l->timeout_ms);
	while (!force && !l->hello && !l->dead && rc == 0)
		rc = wait_until(&l->state, &l->lock, c->deadline);
	if (l->dead || (!force && !l->hello)) {
		pthread_mutex_unlock(&l->lock);
		return -EIO;
	}
	if (!force && l->version_err) {
		pthread_mutex_unlock(&l->lock);
		return -EPROTO;
	}
	c->w.id = l->next_id++;
	if (l->next_id == 0)
		l->next_id = 1;
	c->w.tail = &c->w.head;
	cond_init(&c->w.cond);
	c->w.next = l->waiters;
	l->waiters = &c->w;
	l->users++;
	pthread_mutex_unlock(&l->lock);
	return 0;
}

/* Unregister a call and drop what is still queued for it. */
static void
call_end(struct link *l, struct call *c)
{
	struct waiter	**pp;
	struct frame	*f;

	pthread_mutex_lock(&l->lock);
	for (pp = &l->waiters; *pp != NULL; pp = &(*pp)->next)
		if (*pp == &c->w) {
			*pp = c->w.next;
			break;
		}
	while ((f = c->w.head) != NULL) {
		c->w.head = f->next;
		free(f);
	}
	if (--l->users == 0)
		pthread_cond_broadcast(&l->state);
	pthread_mutex_unlock(&l->lock);
	pthread_cond_destroy(&c->w.cond);
	pb_free(&c->pb);
}

/*
 * Write the frames in pb whole, under the write mutex, by the deadline.
 * A frame cut short leaves the stream unusable, so that kills the link.
 */
static int
send_pb(struct link *l, struct pbuf *pb, long long deadline)
{
	struct pollfd	pfd;
	size_t		off = 0;
	ssize_t		n;
	long long	left;
	int		rc = 0, sock = 1;

	pthread_mutex_lock(&l->wlock);
	while (off < pb->len) {
		if (sock) {
			n = send(l->fd, pb->data + off, pb->len - off,
			    MSG_NOSIGNAL);
			if (n < 0 && errno == ENOTSOCK) {
				sock = 0;
				continue;
			}
		} else
			n = write(l->fd, pb->data + off, pb->len - off);
		if (n > 0) {
			off += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN) {
			left = deadline == NO_DEADLINE ? -1 :
			    deadline - now_ms();
			if (left != -1 && left <= 0) {
				rc = -ETIMEDOUT;
				break;
			}
			pfd.fd = l->fd;
			pfd.events = POLLOUT;
			poll(&pfd, 1, left > INT_MAX ? INT_MAX : (int)left);
			continue;
		}
		link_log(l, "write: %s", n < 0 ? strerror(errno) : "no progress");
		rc = -EIO;
		break;
	}
	pthread_mutex_unlock(&l->wlock);
	if (rc != 0 && (off != 0 || rc == -EIO)) {
		if (off != 0)
			link_log(l, "a request was cut short; closing the link");
		kill_link(l);
	}
	return rc != 0 ? -EIO : 0;
}

/* Send the call's request. */
static int
call_send(struct link *l, struct call *c)
{
	return send_pb(l, &c->pb, c->deadline);
}

/*
 * Next frame for the call, waiting until deadline: 0 with *fp set (the
 * caller frees it), -ETIMEDOUT, or -EIO when the link is dead.
 */
static int
call_next(struct link *l, struct call *c, long long deadline,
    struct frame **fp)
{
	int	rc = 0;

	pthread_mutex_lock(&l->lock);
	while (c->w.head == NULL && !l->dead && rc == 0)
		rc = wait_until(&c->w.cond, &l->lock, deadline);
	if (c->w.head != NULL) {
		*fp = c->w.head;
		c->w.queued -= (*fp)->h.len;
		c->w.head = (*fp)->next;
		if (c->w.head == NULL)
			c->w.tail = &c->w.head;
		rc = 0;
	} else
		rc = l->dead ? -EIO : -ETIMEDOUT;
	pthread_mutex_unlock(&l->lock);
	return rc;
}

/* Send a request and wait for its one final frame (errors as -errno). */
static int
call_simple(struct link *l, struct call *c, struct frame **fp)
{
	int	rc;

	if ((rc = call_send(l, c)) != 0)
		return rc;
	if ((rc = call_next(l, c, c->deadline, fp)) != 0) {
		if (rc == -ETIMEDOUT) {
			link_log(l, "request %u timed out", c->w.id);
			pthread_mutex_lock(&l->lock);
			l->stalled = 1;
			pthread_mutex_unlock(&l->lock);
		}
		return -EIO;
	}
	if ((*fp)->h.err != 0) {
		rc = -(*fp)->h.err;
		free(*fp);
		return rc;
	}
	return 0;
}

/* Send a HELLO (even before the agent's own) and wait for the reply. */
int
link_ping(struct link *l, int timeout_ms)
{
	struct proto_hello h;
	struct frame	  *f;
	struct call	   c;
	int		   rc;

	if ((rc = call_begin(l, &c, 1)) != 0)
		return rc;
	if (timeout_ms > 0)
		c.deadline = now_ms() + timeout_ms;
	proto_hello_init(&h, "umkit-link");
	proto_enc_hello(&c.pb, c.w.id, 0, &h);
	rc = call_simple(l, &c, &f);
	if (rc == 0) {
		if (f->h.op != OP_HELLO)
			rc = -EIO;
		free(f);
	}
	call_end(l, &c);
	if (rc == 0) {
		pthread_mutex_lock(&l->lock);
		rc = l->version_err ? -EPROTO : 0;
		pthread_mutex_unlock(&l->lock);
	}
	return rc;
}

/* Stop the reader, fail all calls, wait for them to leave, free. */
void
link_close(struct link *l)
{
	char	c = 'x';

	kill_link(l);
	if (write(l->wake[1], &c, 1) < 0)
		link_log(l, "close: %s", strerror(errno));
	pthread_join(l->reader, NULL);
	pthread_mutex_lock(&l->lock);
	while (l->users > 0)
		pthread_cond_wait(&l->state, &l->lock);
	pthread_mutex_unlock(&l->lock);
	close(l->fd);
	close(l->wake[0]);
	close(l->wake[1]);
	pthread_cond_destroy(&l->state);
	pthread_mutex_destroy(&l->lock);
	pthread_mutex_destroy(&l->wlock);
	free(l);
}

/* Check the reply's op; a mismatch is the agent's fault. */
static int
expect_op(struct link *l, struct frame *f, unsigned op)
{
	char	t1[16], t2[16];

	if (f->h.op == op)
		return 0;
	link_log(l, "got %s for a %s request; closing the link",
	    proto_op_name(f->h.op, t1, sizeof(t1)),
	    proto_op_name(op, t2, sizeof(t2)));
	kill_link(l);
	return -EIO;
}

/* lstat a guest path. */
int
link_stat(struct link *l, const char *path, struct link_stat *st)
{
	struct proto_stat ps;
	struct frame	 *f;
	struct call	  c;
	int		  rc;

	if ((rc = call_begin(l, &c, 0)) != 0)
		return rc;
	if ((rc = proto_enc_path(&c.pb, OP_STAT, c.w.id, path)) == 0 &&
	    (rc = call_simple(l, &c, &f)) == 0) {
		if ((rc = expect_op(l, f, OP_STAT)) == 0) {
			proto_dec_stat(f->data, f->h.len, &ps);
			st->mode = ps.mode;
			st->nlink = ps.nlink;
			st->size = ps.size;
			st->ino = ps.ino;
			st->mtime_ns = ps.mtime_ns;
		}
		free(f);
	}
	call_end(l, &c);
	return rc;
}

/* List a guest directory through fn. */
int
link_readdir(struct link *l, const char *path,
    int (*fn)(const char *name, unsigned type, void *arg), void *arg)
{
	struct frame	*f;
	struct call	 c;
	char		 name[256];
	unsigned	 type;
	size_t		 off;
	int		 rc, end = 0, stopped = 0;

	if ((rc = call_begin(l, &c, 0)) != 0)
		return rc;
	if ((rc = proto_enc_path(&c.pb, OP_READDIR, c.w.id, path)) == 0)
		rc = call_send(l, &c);
	while (rc == 0 && !end) {
		if ((rc = call_next(l, &c, c.deadline, &f)) != 0) {
			rc = -EIO;
			break;
		}
		end = (f->h.flags & PF_END) != 0;
		if (f->h.err != 0)
			rc = -f->h.err;
		else if ((rc = expect_op(l, f, OP_READDIR)) == 0) {
			off = 0;
			while (!stopped && proto_dec_dirent(f->data, f->h.len,
			    &off, name, &type) == 1)
				stopped = fn(name, type, arg) != 0;
		}
		free(f);
	}
	call_end(l, &c);
	return rc;
}

/* Read a guest symlink. */
int
link_readlink(struct link *l, const char *path, char *buf, size_t size)
{
	struct frame	*f;
	struct call	 c;
	size_t		 n;
	int		 rc;

	if (size == 0)
		return -EINVAL;
	if ((rc = call_begin(l, &c, 0)) != 0)
		return rc;
	if ((rc = proto_enc_path(&c.pb, OP_READLINK, c.w.id, path)) == 0 &&
	    (rc = call_simple(l, &c, &f)) == 0) {
		if ((rc = expect_op(l, f, OP_READLINK)) == 0) {
			n = f->h.len < size - 1 ? f->h.len : size - 1;
			memcpy(buf, f->data, n);
			buf[n] = '\0';
			rc = (int)n;
		}
		free(f);
	}
	call_end(l, &c);
	return rc;
}

/* Read a guest file, whole or a range. */
ssize_t
link_read(struct link *l, const char *path, uint64_t off, size_t len,
    int whole, char **buf)
{
	struct frame	*f;
	struct call	 c;
	ssize_t		 rc;
	int		 r;

	*buf = NULL;
	if (whole && off != 0)
		return -EINVAL;
	if (len > PROTO_MAX_PAYLOAD)
		len = whole ? 0 : PROTO_MAX_PAYLOAD;
	if ((r = call_begin(l, &c, 0)) != 0)
		return r;
	if ((r = proto_enc_read(&c.pb, c.w.id, path, off, (uint32_t)len,
	    whole ? PROTO_READ_WHOLE : 0)) == 0 &&
	    (r = call_simple(l, &c, &f)) == 0) {
		if ((r = expect_op(l, f, OP_READ)) == 0 && !whole &&
		    f->h.len > len) {
			link_log(l, "the agent answered a read of %zu bytes with "
			    "%u: closing the link", len, f->h.len);
			kill_link(l);
			r = -EIO;
		}
		if (r == 0) {
			*buf = xrealloc(NULL, f->h.len + 1);
			memcpy(*buf, f->data, f->h.len);
			(*buf)[f->h.len] = '\0';
			r = 0;
		}
		rc = r == 0 ? (ssize_t)f->h.len : r;
		free(f);
	} else
		rc = r;
	call_end(l, &c);
	return rc;
}

/* Write to a guest file in one write(2). */
ssize_t
link_write(struct link *l, const char *path, const void *data, size_t len)
{
	struct frame	*f;
	struct call	 c;
	uint32_t	 v;
	ssize_t		 rc;
	int		 r;

	if ((r = call_begin(l, &c, 0)) != 0)
		return r;
	r = proto_enc_write(&c.pb, c.w.id, path, data, len);
	pthread_mutex_lock(&l->lock);
	if (r == 0 && c.pb.len - PROTO_HDR_LEN > l->peer.max_payload)
		r = -EFBIG;
	/* A write may start slow kernel work: LINK_WRITE_MS at least. */
	if (!l->stalled && c.deadline < now_ms() + LINK_WRITE_MS)
		c.deadline = now_ms() + LINK_WRITE_MS;
	pthread_mutex_unlock(&l->lock);
	if (r == 0 && (r = call_simple(l, &c, &f)) == 0) {
		if ((r = expect_op(l, f, OP_WRITE)) == 0) {
			proto_dec_u32(f->data, f->h.len, &v);
			rc = v;
		} else
			rc = r;
		free(f);
	} else
		rc = r;
	call_end(l, &c);
	return rc;
}

/*
 * Write all of buf to *fd, in pieces a pipe takes without blocking once
 * poll says it has room.  With link_sink_deadline set, a sink that takes
 * nothing for that long (a stopped reader) is dropped (*fd = -1, said in
 * the log): the command's output goes on being read, so neither the
 * guest nor other calls are held up.  A failing sink is dropped too.
 */
static void
copy_out(struct link *l, int *fd, const uint8_t *p, size_t n)
{
	struct pollfd	pfd;
	ssize_t		w;
	size_t		k;
	int		r, ms;

	pthread_mutex_lock(&l->lock);
	ms = l->sink_ms;
	pthread_mutex_unlock(&l->lock);
	while (*fd >= 0 && n > 0) {
		pfd.fd = *fd;
		pfd.events = POLLOUT;
		if ((r = poll(&pfd, 1, ms > 0 ? ms : -1)) < 0 && errno == EINTR)
			continue;
		if (r <= 0 || (pfd.revents & (POLLERR | POLLNVAL))) {
			link_log(l, "a command's output sink (fd %d) took nothing "
			    "for %d ms: dropped", *fd, ms);
			*fd = -1;
			return;
		}
		k = n < PIPE_BUF ? n : PIPE_BUF;
		w = write(*fd, p, k);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			*fd = -1;
			return;
		}
		p += w;
		n -= (size_t)w;
	}
}

/* Drop exec output sinks that take nothing for ms (link.h). */
void
link_sink_deadline(struct link *l, int ms)
{
	pthread_mutex_lock(&l->lock);
	l->sink_ms = ms;
	pthread_mutex_unlock(&l->lock);
}

/* Ask the agent to stop request c (EXEC or TRACE). */
static void
call_cancel(struct link *l, struct call *c)
{
	struct pbuf	pb = { 0 };

	proto_enc_frame(&pb, OP_CANCEL, c->w.id, 0, 0, NULL, 0);
	send_pb(l, &pb, now_ms() + link_timeout(l));
	pb_free(&pb);
}

/*
 * The stdin of one exec: a thread that reads in_fd and sends what it
 * reads as STDIN frames, never more than the agent has granted (WINDOW
 * frames, which link_exec's loop adds to credit; a frame's header counts
 * too), then an empty STDIN at EOF.  It polls in_fd beside a wake pipe, so stopping it never waits
 * for input that may not come (a terminal).
 */
struct stdin_pump {
	struct link	*l;
	uint32_t	 id;
	int		 fd;
	int		 wake[2];
	pthread_t	 thread;
	/* Guarded by l->lock: */
	pthread_cond_t	 cond;		/* credit grew, or stop */
	uint64_t	 credit;	/* bytes the agent will take */
	int		 stop;
};

/* The pump thread: read, send within the window, EOF, done. */
static void *
pump_main(void *arg)
{
	struct stdin_pump *p = arg;
	struct link	  *l = p->l;
	struct pollfd	   pfd[2];
	struct pbuf	   pb = { 0 };
	uint8_t		  *buf;
	size_t		   want;
	ssize_t		   n;
	int		   stop;

	buf = xmalloc(PROTO_CHUNK);
	pfd[0] = (struct pollfd){ .fd = p->fd, .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = p->wake[0], .events = POLLIN };
	for (;;) {
		/* A frame costs its header too: wait for room for a byte. */
		pthread_mutex_lock(&l->lock);
		while (p->credit <= PROTO_HDR_LEN && !p->stop && !l->dead)
			pthread_cond_wait(&p->cond, &l->lock);
		stop = p->stop || l->dead;
		want = stop ? 0 : p->credit - PROTO_HDR_LEN < PROTO_CHUNK ?
		    (size_t)(p->credit - PROTO_HDR_LEN) : PROTO_CHUNK;
		pthread_mutex_unlock(&l->lock);
		if (stop)
			break;
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			n = 0;
		} else if (pfd[1].revents)
			break;
		else {
			n = read(p->fd, buf, want);
			if (n < 0 && (errno == EINTR || errno == EAGAIN))
				continue;
		}
		if (n < 0) {
			link_log(l, "exec stdin: read: %s; sending EOF",
			    strerror(errno));
			n = 0;
		}
		pb_reset(&pb);
		proto_enc_stdin(&pb, p->id, buf, (size_t)n);
		if (send_pb(l, &pb, now_ms() + link_timeout(l)) != 0 || n == 0)
			break;
		pthread_mutex_lock(&l->lock);
		p->credit -= PROTO_HDR_LEN + (uint64_t)n;
		pthread_mutex_unlock(&l->lock);
	}
	pb_free(&pb);
	free(buf);
	return NULL;
}

/* Start the pump of exec id reading fd. */
static void
pump_start(struct link *l, struct stdin_pump *p, uint32_t id, int fd)
{
	int	rc;

	memset(p, 0, sizeof(*p));
	p->l = l;
	p->id = id;
	p->fd = fd;
	cond_init(&p->cond);
	if (pipe2(p->wake, O_CLOEXEC) != 0)
		fatal("pipe");
	if ((rc = pthread_create(&p->thread, NULL, pump_main, p)) != 0) {
		errno = rc;
		fatal("cannot start a thread");
	}
}

/* The agent granted n more bytes of stdin. */
static void
pump_grant(struct stdin_pump *p, uint32_t n)
{
	pthread_mutex_lock(&p->l->lock);
	p->credit += n;
	pthread_cond_signal(&p->cond);
	pthread_mutex_unlock(&p->l->lock);
}

/* Stop the pump (wherever it waits) and free it. */
static void
pump_stop(struct stdin_pump *p)
{
	pthread_mutex_lock(&p->l->lock);
	p->stop = 1;
	pthread_cond_signal(&p->cond);
	pthread_mutex_unlock(&p->l->lock);
	if (write(p->wake[1], "x", 1) < 0)
		link_log(p->l, "exec stdin: wake: %s", strerror(errno));
	pthread_join(p->thread, NULL);
	close(p->wake[0]);
	close(p->wake[1]);
	pthread_cond_destroy(&p->cond);
}

/* Run a command in the guest, streaming its output. */
int
link_exec(struct link *l, char *const argv[], int timeout_s, int in_fd,
    int out_fd, int err_fd, int *status)
{
	return link_exec_stop(l, argv, timeout_s, in_fd, out_fd, err_fd, NULL,
	    status);
}

/* The same, killing the command when *stop is set. */
int
link_exec_stop(struct link *l, char *const argv[], int timeout_s, int in_fd,
    int out_fd, int err_fd, volatile int *stop, int *status)
{
	struct stdin_pump pump;
	struct frame	 *f;
	struct call	  c;
	long long	  deadline = NO_DEADLINE, wait;
	int		  rc, done = 0, pumping = 0, cancelled = 0;
	uint32_t	  v;

	if ((rc = call_begin(l, &c, 0)) != 0)
		return rc;
	if (timeout_s > 0)
		deadline = now_ms() + (long long)timeout_s * 1000 +
		    link_timeout(l);
	if ((rc = proto_enc_exec(&c.pb, c.w.id, argv,
	    timeout_s > 0 ? (uint32_t)timeout_s : 0,
	    in_fd >= 0 ? PF_STDIN : 0)) == 0)
		rc = call_send(l, &c);
	if (rc == 0 && in_fd >= 0) {
		pump_start(l, &pump, c.w.id, in_fd);
		pumping = 1;
	}
	while (rc == 0 && !done) {
		if (!cancelled && stop != NULL &&
		    __atomic_load_n(stop, __ATOMIC_SEQ_CST)) {
			call_cancel(l, &c);
			cancelled = 1;
			wait = now_ms() + link_timeout(l);
			if (wait < deadline)
				deadline = wait;
		}
		wait = deadline;
		if (stop != NULL && !cancelled && now_ms() + TRACE_POLL_MS < wait)
			wait = now_ms() + TRACE_POLL_MS;
		if ((rc = call_next(l, &c, wait, &f)) != 0) {
			if (rc == -ETIMEDOUT && wait < deadline) {
				rc = 0;
				continue;
			}
			if (rc == -ETIMEDOUT) {
				link_log(l, "exec %s: no exit status in time",
				    argv[0]);
				call_cancel(l, &c);
			}
			rc = -EIO;
			break;
		}
		if (f->h.err != 0) {
			rc = -f->h.err;
			done = 1;
		} else if (f->h.op == OP_STDOUT)
			copy_out(l, &out_fd, f->data, f->h.len);
		else if (f->h.op == OP_STDERR)
			copy_out(l, &err_fd, f->data, f->h.len);
		else if (f->h.op == OP_WINDOW) {
			proto_dec_u32(f->data, f->h.len, &v);
			if (pumping)
				pump_grant(&pump, v);
		} else if ((rc = expect_op(l, f, OP_EXIT)) == 0) {
			proto_dec_u32(f->data, f->h.len, &v);
			/* Killed by its timeout: say so, as timeout(1) does. */
			*status = (f->h.flags & PF_TIMEOUT) ? 124 : (int)v;
			done = 1;
		}
		free(f);
	}
	if (pumping)
		pump_stop(&pump);
	call_end(l, &c);
	return rc;
}

/* The guest's clock and the boot's stamps, with the host's around them. */
int
link_times(struct link *l, struct link_times *t)
{
	struct frame	*f;
	struct call	 c;
	int		 rc;

	memset(t, 0, sizeof *t);
	if ((rc = call_begin(l, &c, 0)) != 0)
		return rc;
	proto_enc_frame(&c.pb, OP_TIMES, c.w.id, 0, 0, NULL, 0);
	pthread_mutex_lock(&l->lock);
	t->hello_us = l->hello_us;
	pthread_mutex_unlock(&l->lock);
	t->sent_us = now_us();
	if ((rc = call_simple(l, &c, &f)) == 0) {
		t->recv_us = now_us();
		if ((rc = expect_op(l, f, OP_TIMES)) == 0)
			proto_dec_times(f->data, f->h.len, t->guest_ns);
		free(f);
	}
	call_end(l, &c);
	return rc;
}

/* Stream a guest trace pipe into fn until fn or *stop says stop. */
int
link_trace(struct link *l, const char *path,
    int (*fn)(const char *data, size_t len, void *arg), void *arg,
    volatile int *stop)
{
	struct frame	*f;
	struct call	 c;
	long long	 deadline = NO_DEADLINE;
	int		 rc, cancelled = 0, end = 0;

	if ((rc = call_begin(l, &c, 0)) != 0)
		return rc;
	if ((rc = proto_enc_path(&c.pb, OP_TRACE, c.w.id, path)) == 0)
		rc = call_send(l, &c);
	while (rc == 0 && !end) {
		if (!cancelled && stop != NULL &&
		    __atomic_load_n(stop, __ATOMIC_SEQ_CST)) {
			call_cancel(l, &c);
			cancelled = 1;
			deadline = now_ms() + link_timeout(l);
		}
		rc = call_next(l, &c, cancelled ? deadline :
		    now_ms() + TRACE_POLL_MS, &f);
		if (rc == -ETIMEDOUT && !cancelled) {
			rc = 0;
			continue;
		}
		if (rc != 0) {
			rc = -EIO;
			break;
		}
		end = (f->h.flags & PF_END) != 0;
		if (f->h.err != 0)
			rc = -f->h.err;
		else if (f->h.op == OP_DATA) {
			if (!cancelled && fn(
			    (const char *)f->data, f->h.len, arg) != 0) {
				call_cancel(l, &c);
				cancelled = 1;
				deadline = now_ms() + link_timeout(l);
			}
		} else
			rc = expect_op(l, f, OP_TRACE);
		free(f);
	}
	call_end(l, &c);
	return rc;
}
