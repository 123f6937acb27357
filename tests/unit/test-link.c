/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test-link.c - end-to-end tests of the guest link without UML: the real
 * agent (built for the host) serves the host's own files over a
 * socketpair to the real client (uml/link/link.c).  Fake peers written here
 * stand in for a broken, hung or dead agent.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "cov/cov.h"
#include "link/link.h"
#include "link/proto.h"

#ifndef AGENT
#define AGENT "build/tests/umkit-agent"
#endif

/*
 * Time bounds.  A lower bound (a timeout did not fire early) holds in
 * every build; an upper bound (a call returned promptly) is the plain
 * build's, stretched under the sanitizers, where every call is slower
 * (ThreadSanitizer by 5-15x): SOON(ms) is "within ms, as the plain build
 * counts".  What must hold everywhere is the order of events, which the
 * tests assert with the return codes.
 */
#if defined(__SANITIZE_THREAD__)
#define SLACK	10
#elif defined(__SANITIZE_ADDRESS__)
#define SLACK	3
#else
#define SLACK	1
#endif
#define SOON(ms)	((long long)(ms) * SLACK)

static char	tmp[256];	/* the fixture directory */

/* A running agent and the link to it. */
struct peer {
	struct link	*l;
	pid_t		 pid;
	int		 fd;		/* fake peers: our end */
	char		*logbuf;	/* the link's log */
	size_t		 loglen;
	FILE		*log;
};

/* Monotonic milliseconds. */
static long long
now_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* tmp/name, in a static buffer rotation. */
static const char *
tp(const char *name)
{
	static char	buf[8][512];
	static int	i;

	i = (i + 1) % 8;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", tmp, name);
	return buf[i];
}

/* Write a file with the given content. */
static void
put_file(const char *path, const void *data, size_t len, mode_t mode)
{
	int	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	close(fd);
}

/* Read a whole host file (malloc'ed). */
static char *
get_file(const char *path, size_t *len)
{
	struct stat	 st;
	char		*b;
	int		 fd = open(path, O_RDONLY);

	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	b = malloc((size_t)st.st_size + 1);
	assert_int_equal(read(fd, b, (size_t)st.st_size), st.st_size);
	b[st.st_size] = '\0';
	*len = (size_t)st.st_size;
	close(fd);
	return b;
}

/* Start the real agent on a socketpair; wait for its hello. */
static void
agent_start(struct peer *p)
{
	int	sv[2], lfd;
	char	num[16];

	memset(p, 0, sizeof(*p));
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	p->pid = fork();
	assert_true(p->pid >= 0);
	if (p->pid == 0) {
		close(sv[0]);
		lfd = open(tp("agent.log"), O_WRONLY | O_CREAT | O_APPEND,
		    0644);
		dup2(lfd, 2);
		snprintf(num, sizeof(num), "%d", sv[1]);
		execl(AGENT, "umkit-agent", "--fd", num, (char *)NULL);
		_exit(99);
	}
	close(sv[1]);
	p->fd = -1;
	p->log = open_memstream(&p->logbuf, &p->loglen);
	p->l = link_open(sv[0], p->log);
	assert_int_equal(link_hello(p->l, 5000), 0);
}

/* A fake peer: we hold the other end of the line. */
static void
fake_start(struct peer *p)
{
	int	sv[2];

	memset(p, 0, sizeof(*p));
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	p->pid = -1;
	p->fd = sv[1];
	p->log = open_memstream(&p->logbuf, &p->loglen);
	p->l = link_open(sv[0], p->log);
}

/* Close the link, reap the agent; returns the agent's wait status. */
static int
peer_stop(struct peer *p)
{
	int	st = 0;

	link_close(p->l);
	if (p->pid > 0)
		assert_int_equal(waitpid(p->pid, &st, 0), p->pid);
	if (p->fd >= 0)
		close(p->fd);
	fclose(p->log);
	free(p->logbuf);
	return st;
}

/* The fake peer sends a frame. */
static void
fake_send(struct peer *p, unsigned op, uint32_t id, unsigned flags, int err,
    const void *data, size_t len)
{
	struct pbuf	pb = { 0 };

	proto_enc_frame(&pb, op, id, flags, err, data, len);
	assert_int_equal(write(p->fd, pb.data, pb.len), (ssize_t)pb.len);
	pb_free(&pb);
}

/* The fake peer says hello with the given version. */
static void
fake_hello(struct peer *p, uint32_t version)
{
	struct proto_hello	h = { version, PROTO_MAX_PAYLOAD,
	    PROTO_MAX_PATH, PROTO_MAX_ARGC, "fake" };
	struct pbuf		pb = { 0 };

	proto_enc_hello(&pb, 0, PF_REPLY | PF_END, &h);
	assert_int_equal(write(p->fd, pb.data, pb.len), (ssize_t)pb.len);
	pb_free(&pb);
}

/* The fake peer reads one request frame (header only kept). */
static void
fake_recv(struct peer *p, struct proto_hdr *h)
{
	uint8_t	hdr[PROTO_HDR_LEN], *pl;
	size_t	got = 0;
	ssize_t	n;

	while (got < PROTO_HDR_LEN) {
		n = read(p->fd, hdr + got, PROTO_HDR_LEN - got);
		assert_true(n > 0);
		got += (size_t)n;
	}
	assert_int_equal(proto_get_hdr(hdr, got, h, PROTO_MAX_PAYLOAD),
	    PROTO_HDR_LEN);
	pl = malloc(h->len + 1);
	for (got = 0; got < h->len; got += (size_t)n) {
		n = read(p->fd, pl + got, h->len - got);
		assert_true(n > 0);
	}
	free(pl);
}

/* Does the link's log contain s? */
static int
log_has(struct peer *p, const char *s)
{
	fflush(p->log);
	return p->logbuf != NULL && strstr(p->logbuf, s) != NULL;
}

/* Build the fixture tree. */
static int
setup(void **state)
{
	char	*big;

	snprintf(tmp, sizeof(tmp), "/tmp/umkit-test-link.XXXXXX");
	if (mkdtemp(tmp) == NULL)
		return -1;
	put_file(tp("small"), "hello, guest\n", 13, 0644);
	put_file(tp("empty"), "", 0, 0644);
	big = malloc(PROTO_MAX_PAYLOAD + 1);
	for (size_t i = 0; i <= PROTO_MAX_PAYLOAD; i++)
		big[i] = (char)('a' + i % 26);
	put_file(tp("max"), big, PROTO_MAX_PAYLOAD, 0644);
	put_file(tp("over"), big, PROTO_MAX_PAYLOAD + 1, 0644);
	free(big);
	put_file(tp("script"), "#!/bin/sh\necho hi\n", 18, 0644);
	mkdir(tp("dir"), 0755);
	put_file(tp("dir/a"), "A", 1, 0644);
	mkdir(tp("dir/sub"), 0755);
	symlink("../small", tp("dir/link"));
	mkfifo(tp("fifo"), 0644);
	return 0;
}

/* Remove the fixture tree. */
static int
teardown(void **state)
{
	char	cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	return system(cmd) == 0 ? 0 : -1;
}

/* HELLO and PING with the real agent; closing the link ends it cleanly. */
static void
test_hello_ping(void **state)
{
	struct peer	p;

	agent_start(&p);
	assert_int_equal(link_hello(p.l, 10), 0);
	assert_int_equal(link_ping(p.l, 2000), 0);
	/* Closing the link ends the agent cleanly (EOF, exit 0). */
	assert_int_equal(peer_stop(&p), 0);
}

/* STAT of files, links, directories and bad paths. */
static void
test_stat(void **state)
{
	struct link_stat	ls;
	struct stat		st;
	struct peer		p;
	char			longp[PROTO_MAX_PATH + 8];

	agent_start(&p);
	assert_int_equal(link_stat(p.l, tp("small"), &ls), 0);
	assert_int_equal(lstat(tp("small"), &st), 0);
	assert_int_equal(ls.mode, st.st_mode);
	assert_int_equal(ls.size, 13);
	assert_int_equal(ls.ino, st.st_ino);
	assert_int_equal(ls.nlink, st.st_nlink);
	assert_int_equal(ls.mtime_ns, (int64_t)st.st_mtim.tv_sec * 1000000000 +
	    st.st_mtim.tv_nsec);
	assert_int_equal(link_stat(p.l, tp("dir/link"), &ls), 0);
	assert_true(S_ISLNK(ls.mode));
	assert_int_equal(link_stat(p.l, tp("dir"), &ls), 0);
	assert_true(S_ISDIR(ls.mode));
	assert_int_equal(link_stat(p.l, tp("nope"), &ls), -ENOENT);
	assert_int_equal(link_stat(p.l, tp("small/x"), &ls), -ENOTDIR);
	assert_int_equal(link_stat(p.l, "relative", &ls), -EINVAL);
	memset(longp, 'x', sizeof(longp));
	longp[0] = '/';
	longp[PROTO_MAX_PATH + 1] = '\0';
	assert_int_equal(link_stat(p.l, longp, &ls), -ENAMETOOLONG);
	/* Still serving after all those errors. */
	assert_int_equal(link_stat(p.l, "/", &ls), 0);
	peer_stop(&p);
}

struct names {
	char	 seen[16][64];
	unsigned type[16];
	int	 n;
	int	 stop_after;
	long	 count;
};

/* Collect directory entries. */
static int
collect(const char *name, unsigned type, void *arg)
{
	struct names	*nm = arg;

	if (nm->n < 16) {
		snprintf(nm->seen[nm->n], 64, "%s", name);
		nm->type[nm->n] = type;
	}
	nm->n++;
	return nm->stop_after && nm->n >= nm->stop_after;
}

/* The type collected for name, or -1. */
static int
type_of(struct names *nm, const char *name)
{
	for (int i = 0; i < nm->n && i < 16; i++)
		if (strcmp(nm->seen[i], name) == 0)
			return (int)nm->type[i];
	return -1;
}

/* Count entries and check they are the big directory's names. */
static int
count_big(const char *name, unsigned type, void *arg)
{
	struct names	*nm = arg;

	if (strlen(name) == 200 && type == DT_REG)
		nm->count++;
	return 0;
}

/* READDIR: entry types, stopping early, errors, a directory of many frames. */
static void
test_readdir(void **state)
{
	struct names	nm;
	struct peer	p;
	char		name[256], path[512];
	int		i;

	agent_start(&p);
	memset(&nm, 0, sizeof(nm));
	assert_int_equal(link_readdir(p.l, tp("dir"), collect, &nm), 0);
	assert_int_equal(nm.n, 3);
	assert_int_equal(type_of(&nm, "a"), DT_REG);
	assert_int_equal(type_of(&nm, "sub"), DT_DIR);
	assert_int_equal(type_of(&nm, "link"), DT_LNK);
	memset(&nm, 0, sizeof(nm));
	nm.stop_after = 1;
	assert_int_equal(link_readdir(p.l, tp("dir"), collect, &nm), 0);
	assert_int_equal(nm.n, 1);
	assert_int_equal(link_readdir(p.l, tp("small"), collect, &nm),
	    -ENOTDIR);
	assert_int_equal(link_readdir(p.l, tp("nope"), collect, &nm), -ENOENT);

	/*
	 * 6000 names of 200 bytes: more than one frame's worth.  Hard links
	 * to one empty file: a new inode each is slow on a busy ext4.
	 */
	mkdir(tp("bigdir"), 0755);
	put_file(tp("bigdir.one"), "", 0, 0644);
	for (i = 0; i < 6000; i++) {
		snprintf(name, sizeof(name), "%06d%0194d", i, 0);
		snprintf(path, sizeof(path), "%s/%s", tp("bigdir"), name);
		assert_int_equal(link(tp("bigdir.one"), path), 0);
	}
	memset(&nm, 0, sizeof(nm));
	assert_int_equal(link_readdir(p.l, tp("bigdir"), count_big, &nm), 0);
	assert_int_equal(nm.count, 6000);
	peer_stop(&p);
}

/* READLINK: the target, truncated to the buffer, and errors. */
static void
test_readlink(void **state)
{
	struct peer	p;
	char		buf[64];

	agent_start(&p);
	assert_int_equal(link_readlink(p.l, tp("dir/link"), buf, sizeof(buf)),
	    8);
	assert_string_equal(buf, "../small");
	assert_int_equal(link_readlink(p.l, tp("dir/link"), buf, 4), 3);
	assert_string_equal(buf, "../");
	assert_int_equal(link_readlink(p.l, tp("small"), buf, sizeof(buf)),
	    -EINVAL);
	assert_int_equal(link_readlink(p.l, tp("nope"), buf, sizeof(buf)),
	    -ENOENT);
	peer_stop(&p);
}

/* READ: whole files up to the limit, offsets, pipes and procfs. */
static void
test_read(void **state)
{
	struct peer	 p;
	char		*buf, *want;
	size_t		 wlen;
	ssize_t		 n;
	long long	 t0;

	agent_start(&p);
	n = link_read(p.l, tp("small"), 0, 0, 1, &buf);
	assert_int_equal(n, 13);
	assert_string_equal(buf, "hello, guest\n");
	free(buf);
	n = link_read(p.l, tp("empty"), 0, 0, 1, &buf);
	assert_int_equal(n, 0);
	assert_string_equal(buf, "");
	free(buf);

	/* Exactly the limit: whole; one byte more: EFBIG. */
	want = get_file(tp("max"), &wlen);
	n = link_read(p.l, tp("max"), 0, 0, 1, &buf);
	assert_int_equal(n, PROTO_MAX_PAYLOAD);
	assert_memory_equal(buf, want, wlen);
	free(buf);
	assert_int_equal(link_read(p.l, tp("over"), 0, 0, 1, &buf), -EFBIG);
	assert_null(buf);
	/* The caller's own limit. */
	assert_int_equal(link_read(p.l, tp("small"), 0, 12, 1, &buf), -EFBIG);
	assert_int_equal(link_read(p.l, tp("small"), 0, 13, 1, &buf), 13);
	free(buf);

	/* Offset reads, past EOF, capped length. */
	n = link_read(p.l, tp("max"), 1000, 100, 0, &buf);
	assert_int_equal(n, 100);
	assert_memory_equal(buf, want + 1000, 100);
	free(buf);
	n = link_read(p.l, tp("max"), PROTO_MAX_PAYLOAD - 10, 100, 0, &buf);
	assert_int_equal(n, 10);
	free(buf);
	n = link_read(p.l, tp("max"), PROTO_MAX_PAYLOAD + 10, 100, 0, &buf);
	assert_int_equal(n, 0);
	free(buf);
	n = link_read(p.l, tp("over"), 1, 4u << 20, 0, &buf);
	assert_int_equal(n, PROTO_MAX_PAYLOAD);
	assert_memory_equal(buf, want + 1, PROTO_MAX_PAYLOAD - 1);
	free(buf);
	free(want);

	assert_int_equal(link_read(p.l, tp("small"), 5, 0, 1, &buf), -EINVAL);
	assert_int_equal(link_read(p.l, tp("dir"), 0, 0, 1, &buf), -EISDIR);
	assert_int_equal(link_read(p.l, tp("nope"), 0, 0, 1, &buf), -ENOENT);

	/* A pipe with no data must not stall the agent. */
	t0 = now_ms();
	assert_int_equal(link_read(p.l, tp("fifo"), 0, 0, 1, &buf), 0);
	free(buf);
	assert_true(now_ms() - t0 < SOON(1000));

	/* procfs: size 0 in stat, content in read. */
	n = link_read(p.l, "/proc/self/status", 0, 0, 1, &buf);
	assert_true(n > 100);
	assert_non_null(strstr(buf, "umkit-agent"));
	free(buf);
	peer_stop(&p);
}

/* How many of pid's open descriptors point at path ("*" at the end: a prefix). */
static int
fds_on(pid_t pid, const char *path)
{
	char		 dir[64], l[PATH_MAX], t[PATH_MAX];
	size_t		 plen = strlen(path);
	int		 n = 0, prefix = plen > 0 && path[plen - 1] == '*';
	struct dirent	*de;
	DIR		*d;
	ssize_t		 r;

	snprintf(dir, sizeof dir, "/proc/%d/fd", (int)pid);
	assert_non_null(d = opendir(dir));
	while ((de = readdir(d)) != NULL) {
		snprintf(l, sizeof l, "%s/%s", dir, de->d_name);
		if ((r = readlink(l, t, sizeof t - 1)) <= 0)
			continue;
		t[r] = '\0';
		n += prefix ? strncmp(t, path, plen - 1) == 0 :
		    strcmp(t, path) == 0;
	}
	closedir(d);
	return n;
}

/*
 * Whole reads of /proc's own files reuse one descriptor, and each read is
 * fresh; a process's files and debugfs's tracing are opened every time;
 * at most 64 are kept.
 */
static void
test_read_kept(void **state)
{
	struct peer	 p;
	char		*a, *b, path[PATH_MAX];
	struct dirent	*de;
	DIR		*d;
	int		 i, n = 0;

	agent_start(&p);
	assert_true(link_read(p.l, "/proc/uptime", 0, 0, 1, &a) > 0);
	assert_int_equal(fds_on(p.pid, "/proc/uptime"), 1);
	/* /proc/uptime counts hundredths of a second. */
	usleep(30000);
	assert_true(link_read(p.l, "/proc/uptime", 0, 0, 1, &b) > 0);
	assert_string_not_equal(a, b);
	assert_int_equal(fds_on(p.pid, "/proc/uptime"), 1);
	free(a);
	free(b);
	/* Not a process's file, nor one under a "." path. */
	assert_true(link_read(p.l, "/proc/self/stat", 0, 0, 1, &a) > 0);
	free(a);
	assert_true(link_read(p.l, "/proc/./uptime", 0, 0, 1, &a) > 0);
	free(a);
	assert_int_equal(fds_on(p.pid, "/proc/*"), 1);
	/* An offset read opens its own. */
	assert_true(link_read(p.l, "/proc/version", 0, 100, 0, &a) > 0);
	free(a);
	assert_int_equal(fds_on(p.pid, "/proc/version"), 0);
	/* The bound: 64 kept, and every read still answered. */
	assert_non_null(d = opendir("/proc/sys/kernel"));
	while ((de = readdir(d)) != NULL && n < 80) {
		snprintf(path, sizeof path, "/proc/sys/kernel/%s", de->d_name);
		if (de->d_type != DT_REG || access(path, R_OK) != 0)
			continue;
		if (link_read(p.l, path, 0, 0, 1, &a) >= 0) {
			free(a);
			n++;
		}
	}
	closedir(d);
	assert_true(n > 64);
	assert_int_equal(fds_on(p.pid, "/proc/*"), 64);
	for (i = 0; i < 3; i++) {
		assert_true(link_read(p.l, "/proc/uptime", 0, 0, 1, &a) > 0);
		free(a);
	}
	peer_stop(&p);
}

/* WRITE: replaces or truncates an existing file, never creates one. */
static void
test_write(void **state)
{
	struct peer	 p;
	char		*buf;
	void		*big;

	agent_start(&p);
	put_file(tp("w"), "old content that is long\n", 25, 0644);
	assert_int_equal(link_write(p.l, tp("w"), "new\n", 4), 4);
	assert_int_equal(link_read(p.l, tp("w"), 0, 0, 1, &buf), 4);
	assert_string_equal(buf, "new\n");
	free(buf);
	/* Empty write: truncation. */
	assert_int_equal(link_write(p.l, tp("w"), "", 0), 0);
	assert_int_equal(link_read(p.l, tp("w"), 0, 0, 1, &buf), 0);
	free(buf);
	/* Never creates. */
	assert_int_equal(link_write(p.l, tp("new"), "x", 1), -ENOENT);
	assert_int_equal(access(tp("new"), F_OK), -1);
	assert_int_equal(link_write(p.l, tp("dir"), "x", 1), -EISDIR);
	big = calloc(1, PROTO_MAX_PAYLOAD);
	assert_int_equal(link_write(p.l, tp("w"), big, PROTO_MAX_PAYLOAD),
	    -EFBIG);
	free(big);
	peer_stop(&p);
}

/* Run argv through the link, capturing stdout and stderr. */
static int
run(struct link *l, char *const argv[], int timeout_s, int *status,
    char *out, size_t outsz, char *err, size_t errsz)
{
	int	po[2], pe[2], rc;
	ssize_t	n;

	assert_int_equal(pipe2(po, O_NONBLOCK), 0);
	assert_int_equal(pipe2(pe, O_NONBLOCK), 0);
	fcntl(po[1], F_SETFL, 0);
	fcntl(pe[1], F_SETFL, 0);
	rc = link_exec(l, argv, timeout_s, -1, po[1], pe[1], status);
	close(po[1]);
	close(pe[1]);
	n = read(po[0], out, outsz - 1);
	out[n > 0 ? n : 0] = '\0';
	n = read(pe[0], err, errsz - 1);
	err[n > 0 ? n : 0] = '\0';
	close(po[0]);
	close(pe[0]);
	return rc;
}

/* EXEC: output, exit status, missing or unrunnable commands, signals. */
static void
test_exec(void **state)
{
	char *const	 a1[] = { "sh", "-c", "echo out; echo err >&2; exit 3",
	    NULL };
	char *const	 a2[] = { "umkit-no-such-command", NULL };
	char		*a3[] = { NULL, NULL };
	char *const	 a4[] = { "sh", "-c", "kill -TERM $$", NULL };
	char *const	 a5[] = { "cat", NULL };
	char *const	 a6[] = { "sh", "-c", "head -c 3000000 /dev/zero | wc -c",
	    NULL };
	struct peer	 p;
	char		 out[4096], err[4096];
	int		 st = -1;

	agent_start(&p);
	assert_int_equal(run(p.l, a1, 0, &st, out, sizeof(out), err,
	    sizeof(err)), 0);
	assert_int_equal(st, 3);
	assert_string_equal(out, "out\n");
	assert_string_equal(err, "err\n");
	assert_int_equal(run(p.l, a2, 0, &st, out, sizeof(out), err,
	    sizeof(err)), 0);
	assert_int_equal(st, 127);
	assert_string_equal(out, "");
	assert_non_null(strstr(err, "umkit-no-such-command"));
	a3[0] = (char *)tp("script");	/* exists, not executable */
	assert_int_equal(run(p.l, a3, 0, &st, out, sizeof(out), err,
	    sizeof(err)), 0);
	assert_int_equal(st, 126);
	assert_int_equal(run(p.l, a4, 0, &st, out, sizeof(out), err,
	    sizeof(err)), 0);
	assert_int_equal(st, 128 + SIGTERM);
	/* stdin is /dev/null: cat ends at once. */
	assert_int_equal(run(p.l, a5, 5, &st, out, sizeof(out), err,
	    sizeof(err)), 0);
	assert_int_equal(st, 0);
	assert_string_equal(out, "");
	assert_int_equal(run(p.l, a6, 10, &st, out, sizeof(out), err,
	    sizeof(err)), 0);
	assert_int_equal(st, 0);
	assert_string_equal(out, "3000000\n");
	peer_stop(&p);
}

/* Count bytes written to a pipe by link_exec, from another thread. */
struct sink {
	int	fd;
	size_t	bytes;
};

/* Drain a pipe until EOF. */
static void *
sink_main(void *arg)
{
	struct sink	*s = arg;
	char		 b[65536];
	ssize_t		 n;

	while ((n = read(s->fd, b, sizeof(b))) > 0)
		s->bytes += (size_t)n;
	return NULL;
}

/* EXEC with 5 MB of output into a pipe: every byte arrives. */
static void
test_exec_big_output(void **state)
{
	char *const	a[] = { "head", "-c", "5000000", "/dev/zero", NULL };
	struct sink	s = { 0 };
	struct peer	p;
	pthread_t	t;
	int		po[2], st = -1;

	agent_start(&p);
	assert_int_equal(pipe(po), 0);
	s.fd = po[0];
	pthread_create(&t, NULL, sink_main, &s);
	assert_int_equal(link_exec(p.l, a, 20, -1, po[1], -1, &st), 0);
	close(po[1]);
	pthread_join(t, NULL);
	close(po[0]);
	assert_int_equal(st, 0);
	assert_int_equal(s.bytes, 5000000);
	peer_stop(&p);
}

/* Collect what link_exec writes to a pipe, from another thread. */
struct collect {
	int	 fd;
	char	*buf;
	size_t	 len, cap;
};

/* Read a pipe into memory until EOF. */
static void *
collect_main(void *arg)
{
	struct collect	*c = arg;
	ssize_t		 n;

	for (;;) {
		if (c->len == c->cap)
			c->buf = realloc(c->buf, c->cap = c->cap ? c->cap * 2 : 65536);
		if ((n = read(c->fd, c->buf + c->len, c->cap - c->len)) <= 0)
			break;
		c->len += (size_t)n;
	}
	return NULL;
}

/*
 * Run argv with stdin from in_fd, its stdout collected into *out (len in
 * *outlen, malloc'ed); returns link_exec's result.
 */
static int
run_in(struct link *l, char *const argv[], int in_fd, int *status,
    char **out, size_t *outlen)
{
	struct collect	c = { 0 };
	pthread_t	t;
	int		po[2], rc;

	assert_int_equal(pipe(po), 0);
	c.fd = po[0];
	pthread_create(&t, NULL, collect_main, &c);
	rc = link_exec(l, argv, 30, in_fd, po[1], -1, status);
	close(po[1]);
	pthread_join(t, NULL);
	close(po[0]);
	*out = c.buf;
	*outlen = c.len;
	return rc;
}

/* Write a file of n pseudo-random bytes; returns them (malloc'ed). */
static uint8_t *
random_file(const char *path, size_t n)
{
	uint8_t		*b = malloc(n);
	uint32_t	 x = 2463534242u;
	size_t		 i;

	for (i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		b[i] = (uint8_t)x;
	}
	put_file(path, b, n, 0644);
	return b;
}

/* Feed a pipe's write end from a thread, then close it (or not). */
struct feed {
	int		 fd;
	const char	*data;
	int		 keep_open_ms;	/* keep it open at most this long, */
	int		 release;	/* or until this is readable (-1: none) */
};

/* Write the data, wait until released or keep_open_ms, close. */
static void *
feed_main(void *arg)
{
	struct feed	*f = arg;
	struct pollfd	 pfd = { .fd = f->release, .events = POLLIN };

	if (write(f->fd, f->data, strlen(f->data)) < 0)
		return NULL;
	poll(&pfd, 1, f->keep_open_ms);
	close(f->fd);
	return NULL;
}

/* EXEC with stdin: files, pipes, slow and non-reading commands. */
static void
test_exec_stdin(void **state)
{
	char *const	 cat[] = { "cat", NULL };
	char *const	 wc[] = { "wc", "-c", NULL };
	char *const	 head[] = { "head", "-c", "10", NULL };
	char *const	 late[] = { "sh", "-c", "sleep 0.2; wc -c", NULL };
	char *const	 noread[] = { "true", NULL };
	const size_t	 n = 3000000;
	struct feed	 f;
	struct peer	 p;
	pthread_t	 t;
	uint8_t		*want;
	char		*out;
	size_t		 outlen;
	long long	 t0;
	int		 fd, pi[2], rel[2], st = -1;

	agent_start(&p);
	want = random_file(tp("in3m"), n);

	/* 3 MB of binary data through cat arrive intact, then EOF ends it. */
	fd = open(tp("in3m"), O_RDONLY);
	assert_int_equal(run_in(p.l, cat, fd, &st, &out, &outlen), 0);
	assert_int_equal(st, 0);
	assert_int_equal(outlen, n);
	assert_memory_equal(out, want, n);
	free(out);
	close(fd);

	/* wc counts every byte: EOF came after the last one. */
	fd = open(tp("in3m"), O_RDONLY);
	assert_int_equal(run_in(p.l, wc, fd, &st, &out, &outlen), 0);
	assert_int_equal(st, 0);
	assert_true(outlen > 0);
	assert_int_equal(strtol(out, NULL, 10), (long)n);
	free(out);
	close(fd);

	/*
	 * A command that reads nothing for a while loses nothing: its pipe
	 * and the window fill up (in a few ms, even under TSan), and the
	 * host waits for room.
	 */
	fd = open(tp("in3m"), O_RDONLY);
	assert_int_equal(run_in(p.l, late, fd, &st, &out, &outlen), 0);
	assert_int_equal(st, 0);
	assert_int_equal(strtol(out, NULL, 10), (long)n);
	free(out);
	close(fd);

	/* One that stops reading: it ends, and so does the call. */
	fd = open(tp("in3m"), O_RDONLY);
	assert_int_equal(run_in(p.l, head, fd, &st, &out, &outlen), 0);
	assert_int_equal(st, 0);
	assert_int_equal(outlen, 10);
	assert_memory_equal(out, want, 10);
	free(out);
	close(fd);

	/* A pipe: what was written, then EOF when the writer closes. */
	assert_int_equal(pipe(pi), 0);
	f = (struct feed){ pi[1], "hello\n", 200, -1 };
	pthread_create(&t, NULL, feed_main, &f);
	assert_int_equal(run_in(p.l, cat, pi[0], &st, &out, &outlen), 0);
	pthread_join(t, NULL);
	assert_int_equal(st, 0);
	assert_int_equal(outlen, 6);
	assert_memory_equal(out, "hello\n", 6);
	free(out);
	close(pi[0]);

	/*
	 * Stdin that never ends (a terminal) does not hold the call up: the
	 * writer stays open for 3 s, or until the call has returned.
	 */
	assert_int_equal(pipe(pi), 0);
	assert_int_equal(pipe(rel), 0);
	f = (struct feed){ pi[1], "", 3000, rel[0] };
	pthread_create(&t, NULL, feed_main, &f);
	t0 = now_ms();
	assert_int_equal(run_in(p.l, noread, pi[0], &st, &out, &outlen), 0);
	assert_true(now_ms() - t0 < 1500);
	assert_int_equal(st, 0);
	free(out);
	close(rel[1]);
	pthread_join(t, NULL);
	close(rel[0]);
	close(pi[0]);

	/* The agent still serves after all that. */
	assert_int_equal(run_in(p.l, cat, -1, &st, &out, &outlen), 0);
	assert_int_equal(outlen, 0);
	free(out);
	free(want);
	peer_stop(&p);
}

/* The fake peer reads one frame, keeping its payload (malloc'ed). */
static uint8_t *
fake_recv_pl(struct peer *p, struct proto_hdr *h)
{
	uint8_t	hdr[PROTO_HDR_LEN], *pl;
	size_t	got = 0;
	ssize_t	n;

	while (got < PROTO_HDR_LEN) {
		n = read(p->fd, hdr + got, PROTO_HDR_LEN - got);
		assert_true(n > 0);
		got += (size_t)n;
	}
	assert_int_equal(proto_get_hdr(hdr, got, h, PROTO_MAX_PAYLOAD),
	    PROTO_HDR_LEN);
	pl = malloc(h->len + 1);
	for (got = 0; got < h->len; got += (size_t)n) {
		n = read(p->fd, pl + got, h->len - got);
		assert_true(n > 0);
	}
	return pl;
}

/*
 * Bytes of STDIN data the fake peer receives until EOF or quiet_ms of
 * quiet; *cost gets what they took of the window (headers included).
 */
static size_t
fake_stdin(struct peer *p, uint32_t id, int quiet_ms, int *eof, size_t *cost)
{
	struct pollfd		pfd = { .fd = p->fd, .events = POLLIN };
	struct proto_hdr	h;
	size_t			total = 0;

	*eof = 0;
	*cost = 0;
	while (!*eof && poll(&pfd, 1, quiet_ms) == 1) {
		free(fake_recv_pl(p, &h));
		assert_int_equal(h.op, OP_STDIN);
		assert_int_equal(h.id, id);
		assert_true(h.len <= PROTO_CHUNK);
		total += h.len;
		*cost += PROTO_HDR_LEN + h.len;
		*eof = h.len == 0;
	}
	return total;
}

struct bg_exec {
	struct link	*l;
	int		 in_fd;
	int		 rc, st;
};

/* link_exec "cat" with stdin in a thread. */
static void *
bg_exec_main(void *arg)
{
	struct bg_exec	*b = arg;
	char *const	 a[] = { "cat", NULL };

	b->rc = link_exec(b->l, a, 0, b->in_fd, -1, -1, &b->st);
	return NULL;
}

/* The host sends stdin within the window a fake agent grants. */
static void
test_stdin_window(void **state)
{
	struct proto_hdr	 h;
	struct bg_exec		 b;
	struct peer		 p;
	struct pbuf		 pb = { 0 };
	pthread_t		 t;
	uint8_t			*pl;
	size_t			 got, cost;
	int			 eof;

	/* The host sends exactly what the agent grants, no byte more. */
	free(random_file(tp("in300k"), 300000));
	fake_start(&p);
	fake_hello(&p, PROTO_VERSION);
	b.l = p.l;
	b.in_fd = open(tp("in300k"), O_RDONLY);
	pthread_create(&t, NULL, bg_exec_main, &b);
	pl = fake_recv_pl(&p, &h);
	assert_int_equal(h.op, OP_EXEC);
	assert_int_equal(h.flags, PF_STDIN);
	free(pl);
	/* Nothing before the first grant. */
	assert_int_equal(fake_stdin(&p, h.id, 200, &eof, &cost), 0);
	/* A grant is used up to its last byte, header included. */
	proto_enc_window(&pb, h.id, 1000);
	assert_int_equal(write(p.fd, pb.data, pb.len), (ssize_t)pb.len);
	assert_int_equal(fake_stdin(&p, h.id, 300, &eof, &cost),
	    1000 - PROTO_HDR_LEN);
	assert_int_equal(cost, 1000);
	assert_false(eof);
	/* Too little for a frame with data: nothing is sent. */
	pb_reset(&pb);
	proto_enc_window(&pb, h.id, PROTO_HDR_LEN);
	assert_int_equal(write(p.fd, pb.data, pb.len), (ssize_t)pb.len);
	assert_int_equal(fake_stdin(&p, h.id, 300, &eof, &cost), 0);
	/* Grants add up; then all the rest, and EOF. */
	pb_reset(&pb);
	proto_enc_window(&pb, h.id, 70000);
	proto_enc_window(&pb, h.id, 500000);
	assert_int_equal(write(p.fd, pb.data, pb.len), (ssize_t)pb.len);
	got = fake_stdin(&p, h.id, 2000, &eof, &cost);
	assert_int_equal(got, 300000 - (1000 - PROTO_HDR_LEN));
	assert_true(cost <= PROTO_HDR_LEN + 570000);
	assert_true(eof);
	/* The exit ends the call with the command's status. */
	pb_reset(&pb);
	proto_enc_u32(&pb, OP_EXIT, h.id, PF_REPLY | PF_END, 3);
	assert_int_equal(write(p.fd, pb.data, pb.len), (ssize_t)pb.len);
	pthread_join(t, NULL);
	assert_int_equal(b.rc, 0);
	assert_int_equal(b.st, 3);
	close(b.in_fd);
	pb_free(&pb);
	peer_stop(&p);
}

/* Read frames from a raw agent socket until one of op arrives. */
static uint32_t
raw_until(int fd, unsigned op)
{
	struct proto_hdr	h;
	uint8_t			buf[PROTO_HDR_LEN + 64];
	size_t			got;
	ssize_t			n;
	uint32_t		v = 0;

	do {
		for (got = 0; got < PROTO_HDR_LEN; got += (size_t)n)
			assert_true((n = read(fd, buf + got,
			    PROTO_HDR_LEN - got)) > 0);
		assert_int_equal(proto_get_hdr(buf, got, &h, PROTO_MAX_PAYLOAD),
		    PROTO_HDR_LEN);
		assert_true(h.len <= 64);
		for (got = 0; got < h.len; got += (size_t)n)
			assert_true((n = read(fd, buf + PROTO_HDR_LEN + got,
			    h.len - got)) > 0);
		if (h.len == 4)
			v = get_le32(buf + PROTO_HDR_LEN);
	} while (h.op != op);
	return v;
}

/* Start the agent on a raw socket; returns its pid, our end in *fd. */
static pid_t
raw_agent(int *fd)
{
	int	sv[2];
	char	num[16];
	pid_t	pid;

	unlink(tp("agent.log"));
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	pid = fork();
	if (pid == 0) {
		close(sv[0]);
		dup2(open(tp("agent.log"), O_WRONLY | O_CREAT, 0644), 2);
		snprintf(num, sizeof(num), "%d", sv[1]);
		execl(AGENT, "umkit-agent", "--fd", num, (char *)NULL);
		_exit(99);
	}
	close(sv[1]);
	*fd = sv[0];
	raw_until(*fd, OP_HELLO);
	return pid;
}

/* Send frames in pb on fd and empty pb. */
static void
raw_send(int fd, struct pbuf *pb)
{
	assert_int_equal(write(fd, pb->data, pb->len), (ssize_t)pb->len);
	pb_reset(pb);
}

/* Wait for the agent to exit; 1 if with status 2 and why in its log. */
static int
raw_refused(pid_t pid, int fd, const char *why)
{
	char	*log;
	size_t	 len;
	int	 st, ok;

	assert_int_equal(waitpid(pid, &st, 0), pid);
	close(fd);
	log = get_file(tp("agent.log"), &len);
	ok = WIFEXITED(st) && WEXITSTATUS(st) == 2 && strstr(log, why) != NULL;
	if (!ok)
		fprintf(stderr, "# agent status %d, log: %s\n", st, log);
	free(log);
	return ok;
}

/* The agent refuses stdin beyond its window, after EOF or unasked. */
static void
test_agent_stdin_rules(void **state)
{
	static uint8_t	data[PROTO_STDIN_WINDOW];
	char *const	sleeper[] = { "sleep", "5", NULL };
	struct pbuf	pb = { 0 };
	pid_t		pid;
	int		fd;

	/* The whole window at once, header included, granted back... */
	pid = raw_agent(&fd);
	proto_enc_exec(&pb, 5, sleeper, 0, PF_STDIN);
	raw_send(fd, &pb);
	assert_int_equal(raw_until(fd, OP_WINDOW), PROTO_STDIN_WINDOW);
	proto_enc_stdin(&pb, 5, data, PROTO_STDIN_WINDOW - PROTO_HDR_LEN);
	raw_send(fd, &pb);
	assert_int_equal(raw_until(fd, OP_WINDOW), PROTO_STDIN_WINDOW);
	/* ...but one byte more is a host that does not keep count. */
	proto_enc_stdin(&pb, 5, data, PROTO_STDIN_WINDOW - PROTO_HDR_LEN + 1);
	raw_send(fd, &pb);
	assert_true(raw_refused(pid, fd, "beyond the window"));

	/* Nothing after EOF. */
	pid = raw_agent(&fd);
	proto_enc_exec(&pb, 5, sleeper, 0, PF_STDIN);
	raw_send(fd, &pb);
	raw_until(fd, OP_WINDOW);
	proto_enc_stdin(&pb, 5, NULL, 0);
	proto_enc_stdin(&pb, 5, "x", 1);
	raw_send(fd, &pb);
	assert_true(raw_refused(pid, fd, "after its EOF"));

	/* No STDIN for a command started without stdin. */
	pid = raw_agent(&fd);
	proto_enc_exec(&pb, 5, sleeper, 0, 0);
	proto_enc_stdin(&pb, 5, "x", 1);
	raw_send(fd, &pb);
	assert_true(raw_refused(pid, fd, "without stdin"));

	/* STDIN for a finished (or unknown) command is dropped. */
	pid = raw_agent(&fd);
	proto_enc_stdin(&pb, 77, "x", 1);
	proto_enc_path(&pb, OP_STAT, 6, "/");
	raw_send(fd, &pb);
	raw_until(fd, OP_STAT);
	close(fd);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	pb_free(&pb);
}

/* Is pid dead (gone, or a zombie waiting for init to reap it)? */
static int
gone(pid_t pid)
{
	char	 path[64], buf[256], *rp;
	FILE	*f;
	int	 dead = 1;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((f = fopen(path, "r")) == NULL)
		return 1;
	if (fgets(buf, sizeof(buf), f) != NULL &&
	    (rp = strrchr(buf, ')')) != NULL)
		dead = rp[1] == ' ' && (rp[2] == 'Z' || rp[2] == 'X');
	fclose(f);
	return dead;
}

/* A timed exec in a thread, for timeouts that run side by side. */
struct bg_timed {
	struct link	*l;
	char *const	*argv;
	int		 timeout_s;
	int		 rc, st;
	long long	 dt;
};

/* Run b->argv with its timeout, output dropped; time it. */
static void *
bg_timed_main(void *arg)
{
	struct bg_timed	*b = arg;
	long long	 t0 = now_ms();

	b->rc = link_exec(b->l, b->argv, b->timeout_s, -1, -1, -1, &b->st);
	b->dt = now_ms() - t0;
	return NULL;
}

/*
 * EXEC with a timeout kills the whole process group (status 124).  A
 * timeout is whole seconds: the two commands time out side by side.
 */
static void
test_exec_timeout(void **state)
{
	char *const	a1[] = { "sleep", "30", NULL };
	char *const	a2[] = { "sh", "-c", "sleep 30 & echo $!; wait", NULL };
	static struct bg_timed b;	/* outlives us if an assertion fails */
	struct peer	p;
	pthread_t	t;
	char		out[256], err[256];
	long long	t0;
	int		st = -1;
	pid_t		bg;

	agent_start(&p);
	b.l = p.l;
	b.argv = a1;
	b.timeout_s = 1;
	b.st = -1;
	pthread_create(&t, NULL, bg_timed_main, &b);
	/* The whole process group goes, not just the shell. */
	assert_int_equal(run(p.l, a2, 1, &st, out, sizeof(out), err,
	    sizeof(err)), 0);
	assert_int_equal(st, 124);
	bg = (pid_t)atoi(out);
	assert_true(bg > 1);
	/* it goes soon after the reply (polled: order, not a fixed sleep) */
	for (t0 = now_ms(); !gone(bg) && now_ms() - t0 < SOON(500); )
		usleep(10000);
	assert_true(gone(bg));
	pthread_join(t, NULL);
	assert_int_equal(b.rc, 0);
	assert_int_equal(b.st, 124);	/* killed by the timeout, as timeout(1) says */
	assert_true(b.dt >= 900 && b.dt < 1000 + SOON(1500));
	peer_stop(&p);
}

/* Feed a FIFO from a thread, for the trace tests. */
struct feeder {
	const char	*path;
	int		 lines;
	int		 hold_ms;	/* keep the writer open at most this long, */
	int		 release;	/* or until this is readable (-1: none) */
	int		 closed;	/* the writer is closed (atomic) */
};

/* Write lines into the FIFO, then close it when released or after hold_ms. */
static void *
feeder_main(void *arg)
{
	struct feeder	*f = arg;
	struct pollfd	 pfd = { .fd = f->release, .events = POLLIN };
	char		 line[64];
	int		 fd, i, n;

	fd = open(f->path, O_WRONLY);
	for (i = 0; i < f->lines; i++) {
		n = snprintf(line, sizeof(line), "event %d\n", i);
		if (write(fd, line, (size_t)n) != n)
			break;
		usleep(2000);
	}
	poll(&pfd, 1, f->hold_ms);
	close(fd);
	__atomic_store_n(&f->closed, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

/* Start a feeder that holds the FIFO open until feeder_release. */
static void
feeder_start(pthread_t *t, struct feeder *f, int rel[2])
{
	assert_int_equal(pipe(rel), 0);
	f->release = rel[0];
	f->closed = 0;
	pthread_create(t, NULL, feeder_main, f);
}

/* Let the feeder close the FIFO now; wait for it. */
static void
feeder_release(pthread_t t, int rel[2])
{
	close(rel[1]);
	pthread_join(t, NULL);
	close(rel[0]);
}

struct tr {
	char	buf[8192];
	size_t	len;
	int	stop_at;	/* stop after this many bytes */
};

/* Collect trace text. */
static int
tr_collect(const char *data, size_t len, void *arg)
{
	struct tr	*t = arg;

	if (t->len + len < sizeof(t->buf)) {
		memcpy(t->buf + t->len, data, len);
		t->len += len;
	}
	return t->stop_at && t->len >= (size_t)t->stop_at;
}

/* Set *stop after a delay. */
static void *
stopper_main(void *arg)
{
	volatile int	*stop = arg;

	usleep(300000);
	__atomic_store_n(stop, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

/*
 * TRACE of a FIFO: stopped by fn, by EOF or by *stop; errors.  Where the
 * stream must not end by EOF, the writer is held open for seconds, or
 * until the trace has returned.
 */
static void
test_trace(void **state)
{
	struct feeder	 f = { NULL, 50, 3000, -1, 0 };
	struct peer	 p;
	struct tr	*t = calloc(1, sizeof(*t));
	pthread_t	 ft, st;
	volatile int	 stop = 0;
	long long	 t0;
	char		 want[64];
	int		 rel[2];

	agent_start(&p);
	f.path = tp("fifo");
	/* fn stops the stream: everything up to there arrived in order. */
	feeder_start(&ft, &f, rel);
	t->stop_at = 30;
	assert_int_equal(link_trace(p.l, f.path, tr_collect, t, &stop), 0);
	assert_false(__atomic_load_n(&f.closed, __ATOMIC_SEQ_CST));
	assert_true(t->len >= 30);
	assert_memory_equal(t->buf, "event 0\nevent 1\nevent 2\n", 24);
	feeder_release(ft, rel);

	/* EOF of the pipe ends the stream; all 50 lines came through. */
	memset(t, 0, sizeof(*t));
	f.hold_ms = 0;
	f.release = -1;
	pthread_create(&ft, NULL, feeder_main, &f);
	assert_int_equal(link_trace(p.l, f.path, tr_collect, t, &stop), 0);
	pthread_join(ft, NULL);
	snprintf(want, sizeof(want), "event 49\n");
	assert_true(t->len > 9);
	assert_memory_equal(t->buf + t->len - 9, want, 9);

	/* *stop ends a quiet stream within about 200 ms. */
	memset(t, 0, sizeof(*t));
	f.lines = 0;
	f.hold_ms = 3000;
	feeder_start(&ft, &f, rel);
	pthread_create(&st, NULL, stopper_main, (void *)&stop);
	t0 = now_ms();
	assert_int_equal(link_trace(p.l, f.path, tr_collect, t, &stop), 0);
	assert_true(now_ms() - t0 < SOON(800));
	assert_false(__atomic_load_n(&f.closed, __ATOMIC_SEQ_CST));
	pthread_join(st, NULL);
	feeder_release(ft, rel);

	stop = 0;
	assert_int_equal(link_trace(p.l, tp("nope"), tr_collect, t, &stop),
	    -ENOENT);
	assert_int_equal(link_trace(p.l, tp("dir"), tr_collect, t, &stop),
	    -EISDIR);
	free(t);
	peer_stop(&p);
}

/* Shared by the concurrent readers. */
struct conc {
	struct link	*l;
	const char	*path;
	const char	*want;
	size_t		 wlen;
	int		 iters;
	int		 bad;
};

/* Read the same file many times; count mismatches. */
static void *
reader_main(void *arg)
{
	struct conc		*c = arg;
	struct link_stat	 ls;
	char			*buf;
	ssize_t			 n;
	int			 i, bad = 0;

	for (i = 0; i < c->iters; i++) {
		n = link_read(c->l, c->path, 0, 0, 1, &buf);
		if (n != (ssize_t)c->wlen || memcmp(buf, c->want, c->wlen) != 0)
			bad++;
		free(buf);
		if (link_stat(c->l, c->path, &ls) != 0 || ls.size != c->wlen)
			bad++;
	}
	__atomic_add_fetch(&c->bad, bad, __ATOMIC_SEQ_CST);
	return NULL;
}

/* An exec streaming output while the readers run. */
static void *
execer_main(void *arg)
{
	char *const	 a[] = { "sh", "-c",
	    "i=0; while [ $i -lt 200 ]; do echo line $i; i=$((i+1)); done",
	    NULL };
	struct conc	*c = arg;
	int		 st = -1, fd = open("/dev/null", O_WRONLY);

	if (link_exec(c->l, a, 30, -1, fd, -1, &st) != 0 || st != 0)
		__atomic_add_fetch(&c->bad, 1, __ATOMIC_SEQ_CST);
	close(fd);
	return NULL;
}

/* Eight threads reading and one exec at once, over one link. */
static void
test_concurrency(void **state)
{
	struct conc	 c;
	struct peer	 p;
	pthread_t	 t[9];
	char		*want;
	long long	 t0, dt;
	int		 i;

	agent_start(&p);
	want = malloc(20000);
	for (i = 0; i < 20000; i++)
		want[i] = (char)(' ' + i % 90);
	put_file(tp("conc"), want, 20000, 0644);
	c.l = p.l;
	c.path = tp("conc");
	c.want = want;
	c.wlen = 20000;
	c.iters = 300;
	c.bad = 0;
	t0 = now_ms();
	pthread_create(&t[8], NULL, execer_main, &c);
	for (i = 0; i < 8; i++)
		pthread_create(&t[i], NULL, reader_main, &c);
	for (i = 0; i < 9; i++)
		pthread_join(t[i], NULL);
	dt = now_ms() - t0;
	assert_int_equal(c.bad, 0);
	printf("# 8 threads x %d (read 20 KB + stat): %lld ms, %.0f requests/s\n",
	    c.iters, dt, 8.0 * 2 * c.iters * 1000 / (dt ? dt : 1));
	free(want);
	peer_stop(&p);
}

/* Call link_stat from a thread, for the fake-peer tests. */
struct bg_call {
	struct link	*l;
	int		 rc;
	long long	 dt;
};

/* Run one link_stat and time it. */
static void *
bg_stat(void *arg)
{
	struct bg_call		*b = arg;
	struct link_stat	 ls;
	long long		 t0 = now_ms();

	b->rc = link_stat(b->l, "/x", &ls);
	b->dt = now_ms() - t0;
	return NULL;
}

/* A fake peer's bad frames fail the call, not the program. */
static void
test_garbage_from_peer(void **state)
{
	struct link_stat	ls;
	struct proto_hdr	h;
	struct bg_call		b;
	struct peer		p;
	pthread_t		t;
	long long		t0;

	/* Bad magic in the middle of a request. */
	fake_start(&p);
	fake_hello(&p, PROTO_VERSION);
	b.l = p.l;
	pthread_create(&t, NULL, bg_stat, &b);
	fake_recv(&p, &h);
	assert_int_equal(h.op, OP_STAT);
	assert_int_equal(write(p.fd, "garbage garbage garbage!", 24), 24);
	pthread_join(t, NULL);
	assert_int_equal(b.rc, -EIO);
	assert_true(b.dt < SOON(1000));
	t0 = now_ms();
	assert_int_equal(link_stat(p.l, "/x", &ls), -EIO);
	assert_true(now_ms() - t0 < SOON(50));
	assert_true(log_has(&p, "garbage"));
	peer_stop(&p);

	/* Well framed but malformed: a STAT reply of 3 bytes. */
	fake_start(&p);
	fake_hello(&p, PROTO_VERSION);
	b.l = p.l;
	pthread_create(&t, NULL, bg_stat, &b);
	fake_recv(&p, &h);
	fake_send(&p, OP_STAT, h.id, PF_REPLY | PF_END, 0, "abc", 3);
	pthread_join(t, NULL);
	assert_int_equal(b.rc, -EIO);
	assert_int_equal(link_stat(p.l, "/x", &ls), -EIO);
	assert_true(log_has(&p, "malformed"));
	peer_stop(&p);

	/* A frame longer than the limit. */
	fake_start(&p);
	fake_hello(&p, PROTO_VERSION);
	b.l = p.l;
	pthread_create(&t, NULL, bg_stat, &b);
	fake_recv(&p, &h);
	{
		uint8_t		hdr[PROTO_HDR_LEN];
		struct pbuf	pb = { 0 };

		proto_enc_frame(&pb, OP_READ, h.id, PF_REPLY | PF_END, 0,
		    NULL, 0);
		memcpy(hdr, pb.data, PROTO_HDR_LEN);
		put_le32(hdr + 4, PROTO_MAX_PAYLOAD + 1);
		assert_int_equal(write(p.fd, hdr, PROTO_HDR_LEN),
		    PROTO_HDR_LEN);
		pb_free(&pb);
	}
	pthread_join(t, NULL);
	assert_int_equal(b.rc, -EIO);
	assert_true(log_has(&p, "too long"));
	peer_stop(&p);

	/* A reply to nobody is dropped, not fatal; the right one wins. */
	fake_start(&p);
	fake_hello(&p, PROTO_VERSION);
	b.l = p.l;
	pthread_create(&t, NULL, bg_stat, &b);
	fake_recv(&p, &h);
	fake_send(&p, OP_STAT, h.id + 1000, PF_REPLY | PF_END, ENOENT, NULL, 0);
	fake_send(&p, OP_STAT, h.id, PF_REPLY | PF_END, EACCES, NULL, 0);
	pthread_join(t, NULL);
	assert_int_equal(b.rc, -EACCES);
	assert_true(log_has(&p, "dropped"));
	peer_stop(&p);
}

/* The agent dying or closing the line mid-request fails the call. */
static void
test_peer_dies(void **state)
{
	char *const		a[] = { "sleep", "30", NULL };
	struct link_stat	ls;
	struct peer		p;
	struct proto_hdr	h;
	struct bg_call		b;
	pthread_t		t;
	long long		t0;
	int			st = -1, rc;
	pid_t			killer;

	/* The agent is killed while an exec is in flight. */
	agent_start(&p);
	t0 = now_ms();
	if ((killer = fork()) == 0) {
		usleep(200000);
		kill(p.pid, SIGKILL);
		_exit(0);
	}
	rc = link_exec(p.l, a, 0, -1, -1, -1, &st);
	assert_int_equal(rc, -EIO);
	assert_true(now_ms() - t0 < SOON(1500));
	assert_int_equal(waitpid(killer, NULL, 0), killer);
	t0 = now_ms();
	assert_int_equal(link_stat(p.l, "/", &ls), -EIO);
	assert_true(now_ms() - t0 < SOON(50));
	peer_stop(&p);

	/* The peer closes the line mid-request. */
	fake_start(&p);
	fake_hello(&p, PROTO_VERSION);
	b.l = p.l;
	pthread_create(&t, NULL, bg_stat, &b);
	fake_recv(&p, &h);
	close(p.fd);
	p.fd = -1;
	pthread_join(t, NULL);
	assert_int_equal(b.rc, -EIO);
	assert_true(b.dt < SOON(500));
	peer_stop(&p);
}

/*
 * A silent peer: calls time out, quickly while it stays silent.  The
 * default timeout is timed on a link of its own in a thread, while the
 * rest runs with a shorter one.
 */
static void
test_hung_peer(void **state)
{
	static struct bg_call	b;	/* outlives us if an assertion fails */
	struct link_stat	ls;
	struct peer		p, d;
	pthread_t		t;
	long long		t0, dt;

	/* Never answers: EIO after the default timeout, not later. */
	fake_start(&d);
	fake_hello(&d, PROTO_VERSION);
	b.l = d.l;
	pthread_create(&t, NULL, bg_stat, &b);

	/* A shorter timeout: EIO after it, not later. */
	fake_start(&p);
	fake_hello(&p, PROTO_VERSION);
	link_set_timeout(p.l, 300);
	t0 = now_ms();
	assert_int_equal(link_stat(p.l, "/x", &ls), -EIO);
	dt = now_ms() - t0;
	assert_true(dt >= 250 && dt <= 300 + SOON(300));
	assert_true(log_has(&p, "timed out"));
	/* Still silent: the next call gives up after LINK_STALLED_MS... */
	t0 = now_ms();
	assert_int_equal(link_stat(p.l, "/x", &ls), -EIO);
	dt = now_ms() - t0;
	assert_true(dt >= LINK_STALLED_MS - 50 && dt <= LINK_STALLED_MS + SOON(300));
	/* ...until the agent is heard from: then full timeouts again. */
	fake_hello(&p, PROTO_VERSION);
	usleep(100000);
	t0 = now_ms();
	assert_int_equal(link_stat(p.l, "/x", &ls), -EIO);
	dt = now_ms() - t0;
	assert_true(dt >= 250 && dt <= 300 + SOON(300));
	peer_stop(&p);

	/* Never says hello: calls fail within their timeout. */
	fake_start(&p);
	assert_int_equal(link_hello(p.l, 200), -ETIMEDOUT);
	link_set_timeout(p.l, 300);
	t0 = now_ms();
	assert_int_equal(link_stat(p.l, "/x", &ls), -EIO);
	assert_true(now_ms() - t0 < 300 + SOON(300));
	peer_stop(&p);

	/* The default timeout, on the silent link of the start. */
	pthread_join(t, NULL);
	assert_int_equal(b.rc, -EIO);
	assert_true(b.dt >= LINK_TIMEOUT_MS - 50 &&
	    b.dt <= LINK_TIMEOUT_MS + SOON(300));
	assert_true(log_has(&d, "timed out"));
	peer_stop(&d);
}

/* An agent of another protocol version is refused (EPROTO). */
static void
test_version_mismatch(void **state)
{
	struct link_stat	ls;
	struct peer		p;

	fake_start(&p);
	fake_hello(&p, PROTO_VERSION + 1);
	assert_int_equal(link_hello(p.l, 1000), -EPROTO);
	assert_int_equal(link_stat(p.l, "/x", &ls), -EPROTO);
	assert_true(log_has(&p, "version"));
	peer_stop(&p);
}

/* An exec in a thread, for the flood tests. */
struct flood {
	struct link	*l;
	int		 out;
	int		 rc, st;
};

/* Run an exec whose output goes to f->out. */
static void *
flood_exec(void *arg)
{
	char *const	 a[] = { "cat", "/dev/zero", NULL };
	struct flood	*f = arg;

	f->rc = link_exec(f->l, a, 0, -1, f->out, -1, &f->st);
	return NULL;
}

/*
 * The fake peer floods request id with kib KiB of STDOUT, then EXIT
 * status; it stops early when the link shuts the line (EPIPE).
 */
static void
fake_flood(struct peer *p, uint32_t id, size_t kib, uint32_t status)
{
	static char	 chunk[60 << 10];
	struct pbuf	 pb = { 0 };
	size_t		 i, off;
	ssize_t		 n;

	for (i = 0; i <= kib / 60; i++) {
		if (i < kib / 60)
			proto_enc_frame(&pb, OP_STDOUT, id, PF_REPLY, 0, chunk,
			    sizeof chunk);
		else
			proto_enc_u32(&pb, OP_EXIT, id, PF_REPLY | PF_END, status);
		for (off = 0; off < pb.len; off += (size_t)n)
			if ((n = write(p->fd, pb.data + off, pb.len - off)) <= 0)
				break;
		pb_free(&pb);
		if (off < pb.len)
			return;
	}
}

/*
 * A guest that sends faster than the caller takes (its stdout a pipe
 * nobody reads): past LINK_QUEUE_MAX the link is closed, said in the
 * log, and the call fails, instead of the host buffering without bound.
 */
static void
test_flood_queue(void **state)
{
	struct peer	 p;
	struct proto_hdr h;
	struct flood	 f;
	pthread_t	 th;
	int		 pp[2];

	signal(SIGPIPE, SIG_IGN);
	fake_start(&p);
	fake_hello(&p, PROTO_VERSION);
	assert_int_equal(link_hello(p.l, 5000), 0);
	assert_int_equal(pipe(pp), 0);
	f.l = p.l;
	f.out = pp[1];
	pthread_create(&th, NULL, flood_exec, &f);
	fake_recv(&p, &h);
	fake_flood(&p, h.id, (LINK_QUEUE_MAX >> 10) + 1024, 0);
	/* The link is dead: a new call fails at once. */
	assert_int_equal(link_ping(p.l, 1000), -EIO);
	assert_true(log_has(&p, "queued more than 16 MiB"));
	close(pp[0]);		/* the blocked sink fails: the exec ends */
	pthread_join(th, NULL);
	assert_int_equal(f.rc, -EIO);
	close(pp[1]);
	peer_stop(&p);
}

/*
 * With a sink deadline (the supervisor's), a client that stopped reading
 * is dropped and the exec goes on to its end; nothing piles up.
 */
static void
test_flood_sink_dropped(void **state)
{
	struct peer	 p;
	struct proto_hdr h;
	struct flood	 f;
	pthread_t	 th;
	uint32_t	 st = 7;
	int		 pp[2];

	signal(SIGPIPE, SIG_IGN);

	fake_start(&p);
	fake_hello(&p, PROTO_VERSION);
	assert_int_equal(link_hello(p.l, 5000), 0);
	link_sink_deadline(p.l, 200);
	assert_int_equal(pipe(pp), 0);
	f.l = p.l;
	f.out = pp[1];
	pthread_create(&th, NULL, flood_exec, &f);
	fake_recv(&p, &h);
	fake_flood(&p, h.id, 4096, st);
	pthread_join(th, NULL);
	assert_int_equal(f.rc, 0);
	assert_int_equal(f.st, 7);
	assert_true(log_has(&p, "took nothing for 200 ms: dropped"));
	close(pp[0]);
	close(pp[1]);
	peer_stop(&p);
}

/* A read answered with more than was asked for: the link goes. */
static void
test_read_reply_too_long(void **state)
{
	struct peer	 p;
	struct proto_hdr h;
	static char	 big[100];
	char		*buf = NULL;

	fake_start(&p);
	fake_hello(&p, PROTO_VERSION);
	assert_int_equal(link_hello(p.l, 5000), 0);
	if (fork() == 0) {
		/* The peer's side: answer the read with 100 bytes. */
		fake_recv(&p, &h);
		fake_send(&p, OP_READ, h.id, PF_REPLY | PF_END, 0, big, sizeof big);
		_exit(0);
	}
	assert_int_equal(link_read(p.l, "/x", 0, 10, 0, &buf), -EIO);
	assert_null(buf);
	assert_true(log_has(&p, "answered a read of 10 bytes with 100"));
	wait(NULL);
	peer_stop(&p);
}

/*
 * A write outlives the link's timeout (compact_memory compacts before it
 * returns), up to LINK_WRITE_MS; a read answered as late still fails.
 */
static void
test_slow_write(void **state)
{
	struct peer	 p;
	struct proto_hdr h;
	uint8_t		 n[4] = { 2, 0, 0, 0 };
	struct link_stat ls;
	pid_t		 pid;

	fake_start(&p);
	fake_hello(&p, PROTO_VERSION);
	assert_int_equal(link_hello(p.l, 5000), 0);
	link_set_timeout(p.l, 300);
	if ((pid = fork()) == 0) {
		/* The peer's side: each request answered after 700 ms. */
		fake_recv(&p, &h);
		usleep(700000);
		fake_send(&p, OP_WRITE, h.id, PF_REPLY | PF_END, 0, n, sizeof n);
		fake_recv(&p, &h);
		usleep(700000);
		fake_send(&p, OP_STAT, h.id, PF_REPLY | PF_END, 0, NULL, 0);
		_exit(0);
	}
	assert_int_equal(link_write(p.l, "/proc/sys/vm/compact_memory", "1\n", 2), 2);
	assert_int_equal(link_stat(p.l, "/x", &ls), -EIO);
	waitpid(pid, NULL, 0);
	peer_stop(&p);
}

/*
 * gcov copy-out is bounded: a file over 64 MiB is not copied (said), a
 * directory of more than 20000 entries only in part; the rest is copied.
 */
static void
test_cov_copy_bounded(void **state)
{
	struct peer	 p;
	char		 g[512], h[512];
	const char	*f;
	int		 fd, i, fds;

	snprintf(g, sizeof g, "%s", tp("gcov"));
	snprintf(h, sizeof h, "%s", tp("gcov-out"));
	mkdir(g, 0755);
	mkdir(tp("gcov/many"), 0755);
	put_file(tp("gcov/a.gcda"), "gcda", 4, 0644);
	fd = open(tp("gcov/big.gcda"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_int_equal(ftruncate(fd, (65 << 20)), 0);
	close(fd);
	agent_start(&p);
	fds = dup(2);
	assert_true(freopen("/dev/null", "w", stderr) != NULL);
	assert_int_equal(cov_save_from(p.l, g, h), 1);
	f = tp("gcov-out/a.gcda");
	assert_int_equal(access(f, R_OK), 0);
	f = tp("gcov-out/big.gcda");
	assert_int_equal(access(f, F_OK), -1);
	/* A directory of 20001 entries (hard links): the walk stops there. */
	unlink(tp("gcov/big.gcda"));
	put_file(tp("many.one"), "", 0, 0644);
	for (i = 0; i < 20001; i++) {
		char	n[64];

		snprintf(n, sizeof n, "gcov/many/%d.x", i);
		assert_int_equal(link(tp("many.one"), tp(n)), 0);
	}
	assert_true(cov_save_from(p.l, g, h) >= 1);
	dup2(fds, 2);
	close(fds);
	peer_stop(&p);
}

/* The real agent exits on garbage and answers bad requests. */
static void
test_agent_refuses_garbage(void **state)
{
	struct peer	 p;
	char		*log;
	size_t		 len;
	int		 sv[2], st;
	char		 num[16], b[256];
	pid_t		 pid;

	/* Raw socket to the agent: read its hello, send junk. */
	unlink(tp("agent.log"));
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	pid = fork();
	if (pid == 0) {
		close(sv[0]);
		dup2(open(tp("agent.log"), O_WRONLY | O_CREAT, 0644), 2);
		snprintf(num, sizeof(num), "%d", sv[1]);
		execl(AGENT, "umkit-agent", "--fd", num, (char *)NULL);
		_exit(99);
	}
	close(sv[1]);
	assert_true(read(sv[0], b, sizeof(b)) >= PROTO_HDR_LEN);
	assert_int_equal(write(sv[0], "GET / HTTP/1.0\r\n\r\n", 18), 18);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 2);
	assert_int_equal(read(sv[0], b, sizeof(b)), 0);
	close(sv[0]);
	log = get_file(tp("agent.log"), &len);
	assert_non_null(strstr(log, "garbage"));
	free(log);

	/* Well framed but undecodable: answered with EINVAL, still alive. */
	agent_start(&p);
	{
		struct link_stat	ls;

		assert_int_equal(link_stat(p.l, "/a\nb", &ls), -ENOENT);
	}
	peer_stop(&p);
}

/* Run the link tests against the agent in a fixture tree. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hello_ping),
		cmocka_unit_test(test_stat),
		cmocka_unit_test(test_readdir),
		cmocka_unit_test(test_readlink),
		cmocka_unit_test(test_read),
		cmocka_unit_test(test_read_kept),
		cmocka_unit_test(test_write),
		cmocka_unit_test(test_exec),
		cmocka_unit_test(test_exec_big_output),
		cmocka_unit_test(test_exec_stdin),
		cmocka_unit_test(test_stdin_window),
		cmocka_unit_test(test_agent_stdin_rules),
		cmocka_unit_test(test_exec_timeout),
		cmocka_unit_test(test_trace),
		cmocka_unit_test(test_concurrency),
		cmocka_unit_test(test_garbage_from_peer),
		cmocka_unit_test(test_flood_queue),
		cmocka_unit_test(test_flood_sink_dropped),
		cmocka_unit_test(test_read_reply_too_long),
		cmocka_unit_test(test_slow_write),
		cmocka_unit_test(test_cov_copy_bounded),
		cmocka_unit_test(test_peer_dies),
		cmocka_unit_test(test_hung_peer),
		cmocka_unit_test(test_version_mismatch),
		cmocka_unit_test(test_agent_refuses_garbage),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests_name("link", tests, setup, teardown);
}
