/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * agent.c - umkit-agent: serves the guest link (docs/protocol.md).
 *
 *   umkit-agent /dev/ttyS1     in the guest (started by /init)
 *   umkit-agent --fd N         on an inherited fd (tests, on the host)
 *   umkit-agent --stdio        requests on stdin, replies on stdout
 *
 * One thread, one poll() loop.  Fast requests (stat, readdir, readlink,
 * read, write) are answered inline, without forking; EXEC children and
 * TRACE streams are jobs whose fds sit in the same poll set, so several
 * requests are in flight at once.  An EXEC with PF_STDIN gets a stdin
 * pipe fed from a buffer of PROTO_STDIN_WINDOW bytes: the host sends only
 * what the agent has granted (WINDOW frames), so the buffer never
 * overflows, the loop never blocks on a command that does not read, and
 * the guest's tty never fills up (proto.h says why that matters).
 * Garbage on the line is logged to stderr (the guest console) and ends
 * the agent: there is no resync.  TIMES answers with the guest's clock
 * and the boot's stamps: /init's, passed in UMKIT_BOOT_TIMES (init.c),
 * and the agent's own start and first HELLO.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "link/proto.h"
#include "util.h"

#define MAX_JOBS	64

enum job_kind { JOB_EXEC, JOB_TRACE };

/* An EXEC child or a TRACE stream in flight. */
struct job {
	enum job_kind	 kind;
	uint32_t	 id;
	int		 fd[2];		/* exec: stdout, stderr; trace: [0] */
	/*
	 * exec with PF_STDIN: the write end of the command's stdin, and the
	 * bytes received for it not yet written (at ibuf + ioff).  Always
	 * ilen + room + owed == PROTO_STDIN_WINDOW: room is what the host
	 * may still send, owed what has been passed on (data written, frame
	 * headers read) but not granted back.
	 */
	int		 in_fd;		/* -1: none, or closed */
	int		 with_stdin;
	int		 in_eof;	/* the host sent EOF */
	uint8_t		*ibuf;
	size_t		 ioff, ilen;
	uint32_t	 room, owed;
	pid_t		 pid;		/* exec: child (and its group) */
	int		 reaped;	/* exec: status is valid */
	int		 status;	/* exec: wait status */
	long long	 deadline;	/* exec: ms, monotonic; 0 = none */
	int		 timedout;
	struct job	*next;
};

/* Files kept open for whole reads (keepable()). */
#define KEEP_MAX	64

/* The agent's whole state. */
static struct agent {
	int		 in, out;	/* the link */
	uint8_t		*ibuf;		/* received bytes not yet handled */
	size_t		 ilen;
	size_t		 icap;
	struct pbuf	 ob;		/* frames being sent */
	uint8_t		*rbuf;		/* file contents, max_payload + 1 */
	struct proto_req req;		/* the request being handled */
	struct job	*jobs;
	int		 njobs;
	int		 sigfd[2];	/* SIGCHLD self-pipe */
	cpu_set_t	 cpus;		/* affinity to give commands */
	int		 pinned;	/* the agent runs on CPU 0 only */
	uint64_t	 times[PT_N];	/* the boot's stamps (proto.h) */
	struct kept {
		char	*path;
		int	 fd;
	}		 kept[KEEP_MAX];	/* keepable() files, open */
	int		 nkept;
} A;

/* The guest's CLOCK_MONOTONIC in nanoseconds. */
static uint64_t
mono_ns(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + (uint64_t)ts.tv_nsec;
}

/*
 * /init's stamps from UMKIT_BOOT_TIMES ("INIT MOUNTED DISK SPAWN",
 * nanoseconds), then out of the environment the commands inherit.  A
 * malformed list leaves the rest unknown (0).
 */
static void
boot_times(void)
{
	static const int slot[] = { PT_INIT, PT_MOUNTED, PT_DISK, PT_SPAWN };
	const char	*s = getenv("UMKIT_BOOT_TIMES");
	char		*end;
	size_t		 i;

	for (i = 0; s != NULL && i < sizeof slot / sizeof slot[0]; i++) {
		errno = 0;
		A.times[slot[i]] = strtoull(s, &end, 10);
		if (end == s || errno != 0 || (*end != ' ' && *end != '\0')) {
			A.times[slot[i]] = 0;
			break;
		}
		s = end;
	}
	unsetenv("UMKIT_BOOT_TIMES");
}

/* Kill every child's process group, then leave with status rc. */
static void __attribute__((noreturn))
quit(int rc)
{
	struct job	*j;

	for (j = A.jobs; j != NULL; j = j->next)
		if (j->kind == JOB_EXEC && !j->reaped)
			kill(-j->pid, SIGKILL);
	exit(rc);
}

/* Send everything queued in A.ob; the link being gone ends the agent. */
static void
flush_out(void)
{
	size_t	 off = 0;
	ssize_t	 n;

	while (off < A.ob.len) {
		n = write(A.out, A.ob.data + off, A.ob.len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			warnmsg("link write: %s", n < 0 ? strerror(errno) :
			    "wrote nothing");
			quit(1);
		}
		off += (size_t)n;
	}
	pb_reset(&A.ob);
}

/* Queue a final error reply for the request id/op. */
static void
reply_err(unsigned op, uint32_t id, int err)
{
	proto_enc_frame(&A.ob, op, id, PF_REPLY | PF_END, err, NULL, 0);
}

/* Queue our HELLO with the given id. */
static void
send_hello(uint32_t id)
{
	struct proto_hello h;
	char		   name[PROTO_NAME_MAX + 1];

	snprintf(name, sizeof name, "umkit-agent pid %ld", (long)getpid());
	proto_hello_init(&h, name);
	proto_enc_hello(&A.ob, id, PF_REPLY | PF_END, &h);
}

/* STAT: lstat the path. */
static void
do_stat(uint32_t id, const char *path)
{
	struct proto_stat ps;
	struct stat	  st;

	if (lstat(path, &st) != 0) {
		reply_err(OP_STAT, id, errno);
		return;
	}
	ps.mode = st.st_mode;
	ps.nlink = (uint32_t)st.st_nlink;
	ps.uid = st.st_uid;
	ps.gid = st.st_gid;
	ps.size = (uint64_t)st.st_size;
	ps.ino = st.st_ino;
	ps.mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 +
	    st.st_mtim.tv_nsec;
	proto_enc_stat(&A.ob, id, &ps);
}

/* READDIR: every entry but . and .., in as many frames as needed. */
static void
do_readdir(uint32_t id, const char *path)
{
	struct dirent	*de;
	DIR		*d;
	size_t		 start;

	if ((d = opendir(path)) == NULL) {
		reply_err(OP_READDIR, id, errno);
		return;
	}
	start = proto_frame_begin(&A.ob, OP_READDIR, id, PF_REPLY, 0);
	for (;;) {
		errno = 0;
		if ((de = readdir(d)) == NULL)
			break;
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (A.ob.len - start - PROTO_HDR_LEN +
		    proto_dirent_len(de->d_name) > PROTO_MAX_PAYLOAD) {
			proto_frame_end(&A.ob, start);
			start = proto_frame_begin(&A.ob, OP_READDIR, id,
			    PF_REPLY, 0);
		}
		proto_put_dirent(&A.ob, de->d_name, de->d_type);
	}
	if (errno != 0) {
		/* Drop the unfinished frame; earlier ones stand. */
		A.ob.len = start;
		reply_err(OP_READDIR, id, errno);
	} else {
		proto_frame_end_last(&A.ob, start);
	}
	closedir(d);
}

/* READLINK: the target of a symlink. */
static void
do_readlink(uint32_t id, const char *path)
{
	char	buf[PROTO_MAX_PATH + 1];
	ssize_t	n;

	n = readlink(path, buf, sizeof(buf));
	if (n < 0)
		reply_err(OP_READLINK, id, errno);
	else if ((size_t)n > PROTO_MAX_PATH)
		reply_err(OP_READLINK, id, ENAMETOOLONG);
	else
		proto_enc_frame(&A.ob, OP_READLINK, id, PF_REPLY | PF_END, 0,
		    buf, (size_t)n);
}

/*
 * Read up to want bytes at off (or from the current position when
 * off < 0) into A.rbuf, looping until EOF or want; -errno on error.
 */
static ssize_t
read_loop(int fd, long long off, size_t want)
{
	size_t	got = 0;
	ssize_t	n;

	while (got < want) {
		if (off < 0)
			n = read(fd, A.rbuf + got, want - got);
		else
			n = pread(fd, A.rbuf + got, want - got,
			    (off_t)(off + (long long)got));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

/*
 * Whether a whole read of path may use a descriptor kept open from an
 * earlier one: the kernel's own files, made afresh by every read from
 * offset 0 (a seq_file starts again when a read's position is not where
 * the last one ended: fs/seq_file.c:194-207; debugfs's and procfs's
 * single values too), and the same file for the agent's life: /proc
 * outside processes' directories, and debugfs outside tracing.  A
 * process's files are not kept (its pid may come back as another's), nor
 * a path with "." or ".." in it.  Under UML a system call costs about
 * 30 us, and a kept file spares two of a whole read's four or five.
 */
static int
keepable(const char *path)
{
	const char	*n;

	if (strstr(path, "/.") != NULL || strstr(path, "//") != NULL)
		return 0;
	if (strncmp(path, "/sys/kernel/debug/", 18) == 0)
		return strncmp(path + 18, "tracing", 7) != 0;
	if (strncmp(path, "/proc/", 6) != 0)
		return 0;
	n = path + 6;
	if (*n < 'a' || *n > 'z')
		return 0;
	return strncmp(n, "self", 4) != 0 && strncmp(n, "thread-self", 11) != 0;
}

/* Forget kept file i (closed). */
static void
kept_drop(int i)
{
	close(A.kept[i].fd);
	free(A.kept[i].path);
	A.kept[i] = A.kept[--A.nkept];
}

/*
 * The whole of a keepable() file into A.rbuf, up to want bytes: read
 * from offset 0 on the descriptor kept for it, opened (and kept while
 * there is room) the first time.  A kept descriptor that fails (the file
 * went away) is closed and the file opened again once.
 */
static ssize_t
read_kept(const char *path, size_t want)
{
	ssize_t	n;
	int	i, fd;

	for (i = 0; i < A.nkept; i++)
		if (strcmp(A.kept[i].path, path) == 0) {
			if ((n = read_loop(A.kept[i].fd, 0, want)) >= 0)
				return n;
			kept_drop(i);
			break;
		}
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read_loop(fd, 0, want);
	if (n >= 0 && A.nkept < KEEP_MAX) {
		A.kept[A.nkept].path = xstrdup(path);
		A.kept[A.nkept++].fd = fd;
	} else
		close(fd);
	return n;
}

/* READ: the whole file in one loop, or a range of it. */
static void
do_read(uint32_t id, const char *path, uint64_t off, uint32_t len,
    uint32_t flags)
{
	size_t	limit;
	ssize_t	n;
	int	fd;

	limit = (len == 0 || len > PROTO_MAX_PAYLOAD) ? PROTO_MAX_PAYLOAD : len;
	if ((flags & PROTO_READ_WHOLE) && off != 0) {
		reply_err(OP_READ, id, EINVAL);
		return;
	}
	if (off > (uint64_t)LLONG_MAX - PROTO_MAX_PAYLOAD) {
		reply_err(OP_READ, id, EINVAL);
		return;
	}
	/* One more byte than allowed tells "too big" from "fits". */
	if ((flags & PROTO_READ_WHOLE) && keepable(path))
		n = read_kept(path, limit + 1);
	else if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY |
	    O_CLOEXEC)) < 0)
		n = -errno;
	else {
		if (flags & PROTO_READ_WHOLE)
			n = read_loop(fd, -1, limit + 1);
		else
			n = read_loop(fd, (long long)off, limit);
		close(fd);
	}
	if ((flags & PROTO_READ_WHOLE) && n > (ssize_t)limit)
		n = -EFBIG;
	if (n < 0)
		reply_err(OP_READ, id, (int)-n);
	else
		proto_enc_frame(&A.ob, OP_READ, id, PF_REPLY | PF_END, 0,
		    A.rbuf, (size_t)n);
}

/* WRITE: open like the shell's '>' (never create) and write(2) once. */
static void
do_write(uint32_t id, const char *path, const uint8_t *data, size_t len)
{
	ssize_t	n;
	int	fd;

	fd = open(path, O_WRONLY | O_TRUNC | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		reply_err(OP_WRITE, id, errno);
		return;
	}
	do
		n = write(fd, data, len);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		reply_err(OP_WRITE, id, errno);
	close(fd);
	if (n >= 0)
		proto_enc_u32(&A.ob, OP_WRITE, id, PF_REPLY | PF_END,
		    (uint32_t)n);
}

/* Make fd non-blocking. */
static void
set_nonblock(int fd)
{
	int	fl = fcntl(fd, F_GETFL);

	if (fl >= 0)
		fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

/* Add a job to the list. */
static struct job *
job_new(enum job_kind kind, uint32_t id)
{
	struct job	*j;

	j = xcalloc(1, sizeof(*j));
	j->kind = kind;
	j->id = id;
	j->fd[0] = j->fd[1] = j->in_fd = -1;
	j->next = A.jobs;
	A.jobs = j;
	A.njobs++;
	return j;
}

/* Unlink and free a finished job. */
static void
job_free(struct job *j)
{
	struct job	**pp;

	for (pp = &A.jobs; *pp != NULL; pp = &(*pp)->next)
		if (*pp == j) {
			*pp = j->next;
			break;
		}
	if (j->fd[0] >= 0)
		close(j->fd[0]);
	if (j->fd[1] >= 0)
		close(j->fd[1]);
	if (j->in_fd >= 0)
		close(j->in_fd);
	A.njobs--;
	free(j->ibuf);
	free(j);
}

/*
 * Run on CPU 0 in a UML guest: UML takes every serial-line interrupt
 * (SIGIO) on CPU 0, and waking the agent on another vCPU costs a cross-
 * CPU wakeup that spins on the runqueue lock while the host has the
 * other vCPU thread descheduled.  Measured with a 2-CPU guest polling six
 * files at 10 Hz through the mirror: UML used 11% of a host core with the
 * agent on CPU 1 and 4% with it on CPU 0.  Only done when argv[1] is a
 * tty (in a guest), never for the agent run on the host by the tests.
 */
static void
pin_cpu0(void)
{
	cpu_set_t	zero;

	if (!isatty(A.in) || sched_getaffinity(0, sizeof A.cpus, &A.cpus) < 0)
		return;
	CPU_ZERO(&zero);
	CPU_SET(0, &zero);
	if (sched_setaffinity(0, sizeof zero, &zero) == 0)
		A.pinned = 1;
}

/* Write the strings (ending with NULL) to fd 2; safe in a vfork child. */
static void
child_say(const char *s, ...)
{
	va_list	ap;

	va_start(ap, s);
	for (; s != NULL; s = va_arg(ap, const char *))
		if (write(2, s, strlen(s)) < 0)
			break;
	va_end(ap);
}

/*
 * In the vfork child: become the command or report why not, shell-style.
 * Its stdin is in, or /dev/null when in is -1.  It shares the agent's
 * memory until execve, so it only makes system calls and writes nothing
 * but its own stack; every signal is blocked on entry (do_exec).
 */
static void __attribute__((noreturn))
exec_child(const char *const *argv, int in, int out, int err)
{
	sigset_t	 none;
	int		 nul, e;

	setpgid(0, 0);
	signal(SIGPIPE, SIG_DFL);
	signal(SIGCHLD, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (in >= 0)
		dup2(in, 0);
	else if ((nul = open("/dev/null", O_RDONLY)) >= 0 && nul != 0) {
		dup2(nul, 0);
		close(nul);
	}
	dup2(out, 1);
	dup2(err, 2);
	/* Commands run on every CPU, whatever the agent is pinned to. */
	if (A.pinned)
		sched_setaffinity(0, sizeof A.cpus, &A.cpus);
	execvp(argv[0], (char *const *)argv);
	e = errno;
	child_say("umkit-agent: ", argv[0], ": ", strerrordesc_np(e), "\n",
	    (const char *)NULL);
	_exit(e == ENOENT || e == ENOTDIR ? 127 : 126);
}

/* Whether a running command has a deadline (needs the clock). */
static int
has_deadline(void)
{
	struct job	*j;

	for (j = A.jobs; j != NULL; j = j->next)
		if (j->kind == JOB_EXEC && j->deadline && !j->timedout)
			return 1;
	return 0;
}

/* Close every fd of a pipe array that is open. */
static void
close_pipes(int *fds, int n)
{
	int	i;

	for (i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

/*
 * EXEC: start the child; its output and exit are handled by the loop.
 * With stdin, the first reply frame grants the whole window.
 */
static void
do_exec(uint32_t id, const char *const *argv, uint32_t timeout_s,
    int with_stdin)
{
	struct job	*j;
	int		 p[6] = { -1, -1, -1, -1, -1, -1 };	/* out, err, in */
	sigset_t	 all, old;
	pid_t		 pid;
	int		 e;

	if (A.njobs >= MAX_JOBS) {
		reply_err(OP_EXEC, id, EAGAIN);
		return;
	}
	if (pipe2(p, O_CLOEXEC) != 0 || pipe2(p + 2, O_CLOEXEC) != 0 ||
	    (with_stdin && pipe2(p + 4, O_CLOEXEC) != 0)) {
		reply_err(OP_EXEC, id, errno);
		close_pipes(p, 6);
		return;
	}
	fflush(stderr);
	/*
	 * vfork: under UML a fork copies the agent's page tables into a new
	 * host process only for execve to drop them; a vfork child borrows
	 * them: 'umkit exec -- true' spent 22.8 ms in its command before,
	 * 17.6 ms after (p50, tests/bench-boot.sh paired with the fork).
	 * No handler of ours may run in the child, so every signal is
	 * blocked across it.
	 */
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	pid = vfork();
	if (pid == 0)
		exec_child(argv, p[4], p[1], p[3]);
	e = errno;
	sigprocmask(SIG_SETMASK, &old, NULL);
	close(p[1]);
	close(p[3]);
	if (p[4] >= 0)
		close(p[4]);
	p[1] = p[3] = p[4] = -1;
	if (pid < 0) {
		reply_err(OP_EXEC, id, e);
		close_pipes(p, 6);
		return;
	}
	setpgid(pid, pid);	/* the child did too: a no-op, or EACCES */
	set_nonblock(p[0]);
	set_nonblock(p[2]);
	j = job_new(JOB_EXEC, id);
	j->pid = pid;
	j->fd[0] = p[0];
	j->fd[1] = p[2];
	if (timeout_s > 0)
		j->deadline = now_ms() + (long long)timeout_s * 1000;
	if (with_stdin) {
		set_nonblock(p[5]);
		j->with_stdin = 1;
		j->in_fd = p[5];
		j->ibuf = xmalloc(PROTO_STDIN_WINDOW);
		j->room = PROTO_STDIN_WINDOW;
		proto_enc_window(&A.ob, id, PROTO_STDIN_WINDOW);
	}
}

/*
 * Pass a job's buffered stdin on to the command, as much as its pipe
 * takes, and grant the host what left the buffer: in halves of the
 * window, or all of it once the buffer is empty.  A command that closed
 * its stdin (EPIPE) gets nothing more; what the host sends is dropped
 * and granted back, so the host is never stuck.
 */
static void
stdin_push(struct job *j)
{
	ssize_t	n;

	while (j->ilen > 0 && j->in_fd >= 0) {
		n = write(j->in_fd, j->ibuf + j->ioff, j->ilen);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			break;
		if (n <= 0) {
			close(j->in_fd);
			j->in_fd = -1;
			break;
		}
		j->ioff += (size_t)n;
		j->ilen -= (size_t)n;
		j->owed += (uint32_t)n;
	}
	if (j->in_fd < 0) {
		j->owed += (uint32_t)j->ilen;
		j->ilen = 0;
	}
	if (j->ilen == 0) {
		j->ioff = 0;
		if (j->in_eof && j->in_fd >= 0) {
			close(j->in_fd);	/* EOF reaches the command */
			j->in_fd = -1;
		}
	}
	if (!j->in_eof && j->owed > 0 &&
	    (j->ilen == 0 || j->owed >= PROTO_STDIN_WINDOW / 2)) {
		proto_enc_window(&A.ob, j->id, j->owed);
		j->room += j->owed;
		j->owed = 0;
	}
}

/* TRACE: open the pipe and stream it from the loop. */
static void
do_trace(uint32_t id, const char *path)
{
	struct job	*j;
	struct stat	 st;
	int		 fd;

	if (A.njobs >= MAX_JOBS) {
		reply_err(OP_TRACE, id, EAGAIN);
		return;
	}
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		reply_err(OP_TRACE, id, errno);
		return;
	}
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		close(fd);
		reply_err(OP_TRACE, id, EISDIR);
		return;
	}
	j = job_new(JOB_TRACE, id);
	j->fd[0] = fd;
}

/* Find the job serving request id. */
static struct job *
job_find(uint32_t id)
{
	struct job	*j;

	for (j = A.jobs; j != NULL; j = j->next)
		if (j->id == id)
			return j;
	return NULL;
}

/* CANCEL: kill an EXEC's process group or end a TRACE stream. */
static void
do_cancel(uint32_t id)
{
	struct job	*j;

	if ((j = job_find(id)) == NULL)
		return;
	if (j->kind == JOB_EXEC) {
		if (!j->reaped)
			kill(-j->pid, SIGKILL);
		return;
	}
	proto_enc_frame(&A.ob, OP_TRACE, id, PF_REPLY | PF_END, 0, NULL, 0);
	job_free(j);
}

/* Log a frame we refuse, with its first bytes, then quit. */
static void __attribute__((noreturn))
garbage(const char *why, const uint8_t *p, size_t n)
{
	char	hex[3 * 24 + 1];
	size_t	i;

	hex[0] = '\0';
	for (i = 0; i < n && i < 24; i++)
		snprintf(hex + 3 * i, 4, " %02x", p[i]);
	warnmsg("garbage on the link (%s):%s; closing", why, hex);
	quit(2);
}

/*
 * STDIN: bytes for a command's stdin (none: EOF).  Frames for a command
 * that has finished are dropped (they crossed its EXIT on the line); more
 * than the window, or anything after EOF, is a host that does not follow
 * the protocol.
 */
static void
do_stdin(const struct proto_hdr *h, const uint8_t *data, size_t len)
{
	struct job	*j;

	if ((j = job_find(h->id)) == NULL || j->kind != JOB_EXEC)
		return;
	if (!j->with_stdin || j->in_eof || PROTO_HDR_LEN + len > j->room)
		garbage(!j->with_stdin ? "STDIN for a command without stdin" :
		    j->in_eof ? "STDIN after its EOF" : "STDIN beyond the window",
		    data - PROTO_HDR_LEN, PROTO_HDR_LEN + len);
	if (len == 0)
		j->in_eof = 1;
	j->room -= (uint32_t)(PROTO_HDR_LEN + len);
	j->owed += PROTO_HDR_LEN;
	if (j->ioff + j->ilen + len > PROTO_STDIN_WINDOW) {
		memmove(j->ibuf, j->ibuf + j->ioff, j->ilen);
		j->ioff = 0;
	}
	memcpy(j->ibuf + j->ioff + j->ilen, data, len);
	j->ilen += len;
	stdin_push(j);
}

/* Handle one whole request frame. */
static void
handle(const struct proto_hdr *h, const uint8_t *payload)
{
	struct proto_req *r = &A.req;
	char		  tmp[16];
	int		  rc;

	rc = proto_dec_request(h, payload, r);
	if (rc == -EBADMSG)
		garbage("a reply frame sent to the agent", payload - PROTO_HDR_LEN,
		    PROTO_HDR_LEN + h->len);
	if (rc < 0 && h->op == OP_STDIN)
		garbage("STDIN over one chunk", payload - PROTO_HDR_LEN,
		    PROTO_HDR_LEN + h->len);
	if (rc < 0) {
		warnmsg("%s id %u: %s", proto_op_name(h->op, tmp, sizeof(tmp)),
		    h->id, strerror(-rc));
		if (h->op != OP_CANCEL)
			reply_err(h->op, h->id, -rc);
		return;
	}
	switch (h->op) {
	case OP_HELLO:
		send_hello(h->id);
		break;
	case OP_STAT:
		do_stat(h->id, r->path);
		break;
	case OP_READDIR:
		do_readdir(h->id, r->path);
		break;
	case OP_READLINK:
		do_readlink(h->id, r->path);
		break;
	case OP_READ:
		do_read(h->id, r->path, r->u.read.off, r->u.read.len,
		    r->u.read.flags);
		break;
	case OP_WRITE:
		do_write(h->id, r->path, r->u.write.data, r->u.write.len);
		break;
	case OP_EXEC:
		do_exec(h->id, r->u.exec.argv, r->u.exec.timeout_s,
		    r->u.exec.with_stdin);
		break;
	case OP_TRACE:
		do_trace(h->id, r->path);
		break;
	case OP_CANCEL:
		do_cancel(h->id);
		break;
	case OP_STDIN:
		do_stdin(h, r->u.in.data, r->u.in.len);
		break;
	case OP_TIMES:
		A.times[PT_NOW] = mono_ns();
		proto_enc_times(&A.ob, h->id, A.times, PT_N);
		break;
	}
}

/* Read from the link and handle every complete frame. */
static void
read_link(void)
{
	struct proto_hdr h;
	size_t		 off = 0;
	ssize_t		 n;
	int		 rc;

	n = read(A.in, A.ibuf + A.ilen, A.icap - A.ilen);
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n < 0) {
		warnmsg("link read: %s", strerror(errno));
		quit(1);
	}
	if (n == 0) {
		if (A.ilen != 0)
			warnmsg("link closed inside a frame (%zu bytes)", A.ilen);
		quit(A.ilen != 0);
	}
	A.ilen += (size_t)n;
	for (;;) {
		rc = proto_get_hdr(A.ibuf + off, A.ilen - off, &h,
		    PROTO_MAX_PAYLOAD);
		if (rc == -EBADMSG)
			garbage("bad magic", A.ibuf + off, A.ilen - off);
		if (rc == -EMSGSIZE)
			garbage("payload too long", A.ibuf + off, A.ilen - off);
		if (rc == 0 || A.ilen - off - PROTO_HDR_LEN < h.len)
			break;
		handle(&h, A.ibuf + off + PROTO_HDR_LEN);
		off += PROTO_HDR_LEN + h.len;
		flush_out();
	}
	memmove(A.ibuf, A.ibuf + off, A.ilen - off);
	A.ilen -= off;
}

/* Forward what a job's fd k has; close it at EOF.  Returns bytes read. */
static ssize_t
pump(struct job *j, int k)
{
	static const uint16_t ops[2] = { OP_STDOUT, OP_STDERR };
	ssize_t	n;

	do
		n = read(j->fd[k], A.rbuf, PROTO_CHUNK);
	while (n < 0 && errno == EINTR);
	if (n < 0 && errno == EAGAIN)
		return -1;
	if (n > 0) {
		proto_enc_frame(&A.ob, j->kind == JOB_TRACE ? OP_DATA : ops[k],
		    j->id, PF_REPLY, 0, A.rbuf, (size_t)n);
		return n;
	}
	if (j->kind == JOB_TRACE) {
		proto_enc_frame(&A.ob, OP_TRACE, j->id, PF_REPLY | PF_END,
		    n < 0 ? errno : 0, NULL, 0);
		return 0;		/* the caller frees the job */
	}
	close(j->fd[k]);
	j->fd[k] = -1;
	return 0;
}

/* Reap exited children; mark their jobs. */
static void
reap(void)
{
	struct job	*j;
	char		 b[64];
	pid_t		 pid;
	int		 st;

	while (read(A.sigfd[0], b, sizeof(b)) > 0)
		;
	while ((pid = waitpid(-1, &st, WNOHANG)) > 0)
		for (j = A.jobs; j != NULL; j = j->next)
			if (j->kind == JOB_EXEC && j->pid == pid) {
				j->reaped = 1;
				j->status = st;
			}
}

/* Send EXIT for a reaped child once its output is drained. */
static void
finish_exec(struct job *j)
{
	unsigned code;
	int	 k;

	/* The child is gone: all it wrote is in the pipes already. */
	for (k = 0; k < 2; k++)
		while (j->fd[k] >= 0 && pump(j, k) > 0)
			flush_out();
	if (WIFEXITED(j->status))
		code = (unsigned)WEXITSTATUS(j->status);
	else if (WIFSIGNALED(j->status))
		code = 128 + (unsigned)WTERMSIG(j->status);
	else
		code = 255;
	/* A background grandchild may still hold the pipes: not ours. */
	proto_enc_u32(&A.ob, OP_EXIT, j->id,
	    PF_REPLY | PF_END | (j->timedout ? PF_TIMEOUT : 0), code & 0xff);
	job_free(j);
}

/* SIGCHLD: wake the loop. */
static void
on_sigchld(int sig)
{
	int	e = errno;

	(void)sig;
	if (write(A.sigfd[1], "c", 1) < 0) {
		/* The pipe is full: the loop is already due to wake. */
	}
	errno = e;
}

/* Put a tty into raw mode (no echo, no translation, 8 bits). */
static void
make_raw(int fd)
{
	struct termios	t;

	if (!isatty(fd))
		return;
	if (tcgetattr(fd, &t) != 0)
		fatal("tcgetattr");
	cfmakeraw(&t);
	t.c_cc[VMIN] = 1;
	t.c_cc[VTIME] = 0;
	if (tcsetattr(fd, TCSANOW, &t) != 0)
		fatal("tcsetattr");
	/* Whatever arrived before the line was raw is not ours. */
	tcflush(fd, TCIFLUSH);
}

/* Print usage and exit. */
static void __attribute__((noreturn))
usage(void)
{
	fprintf(stderr, "usage: umkit-agent TTY | --fd N | --stdio\n");
	exit(2);
}

/* Set up the link from the command line. */
static void
open_link(int argc, char **argv)
{
	char	*end;
	long	 v;

	if (argc == 2 && strcmp(argv[1], "--stdio") == 0) {
		A.in = 0;
		A.out = 1;
	} else if (argc == 3 && strcmp(argv[1], "--fd") == 0) {
		v = strtol(argv[2], &end, 10);
		if (*argv[2] == '\0' || *end != '\0' || v < 0 || v > INT_MAX)
			usage();
		A.in = A.out = (int)v;
		if (fcntl(A.in, F_SETFD, FD_CLOEXEC) != 0)
			fatal("fd %d", A.in);
	} else if (argc == 2 && argv[1][0] != '-') {
		A.in = open(argv[1], O_RDWR | O_NOCTTY | O_CLOEXEC);
		if (A.in < 0)
			fatal("%s", argv[1]);
		A.out = A.in;
	} else
		usage();
	make_raw(A.in);
}

/* Milliseconds until the nearest EXEC deadline, or -1. */
static int
poll_timeout(long long now)
{
	struct job	*j;
	long long	 t = -1;

	for (j = A.jobs; j != NULL; j = j->next)
		if (j->kind == JOB_EXEC && j->deadline && !j->timedout &&
		    (t < 0 || j->deadline - now < t))
			t = j->deadline - now > 0 ? j->deadline - now : 0;
	return (int)t;
}

/* Kill the process groups whose time is up. */
static void
check_deadlines(long long now)
{
	struct job	*j;

	for (j = A.jobs; j != NULL; j = j->next)
		if (j->kind == JOB_EXEC && j->deadline && !j->timedout &&
		    !j->reaped && now >= j->deadline) {
			kill(-j->pid, SIGKILL);
			j->timedout = 1;
		}
}

/* The main loop: link, SIGCHLD, job fds. */
static void
serve(void)
{
	struct pollfd	 pfd[2 + 3 * MAX_JOBS];
	struct job	*j, *next;
	uint32_t	 iv[3 * MAX_JOBS];
	int		 kv[3 * MAX_JOBS], nfd, i, k, deadlines;

	for (;;) {
		if (A.jobs == NULL) {
			/* Nothing else to wait for: block in read(2) itself. */
			read_link();
			flush_out();
			continue;
		}
		pfd[0].fd = A.in;
		pfd[0].events = POLLIN;
		pfd[1].fd = A.sigfd[0];
		pfd[1].events = POLLIN;
		nfd = 2;
		for (j = A.jobs; j != NULL; j = j->next)
			for (k = 0; k < 3; k++) {
				/* k == 2: stdin waiting for room in its pipe */
				if (k < 2 ? j->fd[k] < 0 :
				    j->in_fd < 0 || j->ilen == 0)
					continue;
				iv[nfd - 2] = j->id;
				kv[nfd - 2] = k;
				pfd[nfd].fd = k < 2 ? j->fd[k] : j->in_fd;
				pfd[nfd].events = k < 2 ? POLLIN : POLLOUT;
				nfd++;
			}
		/*
		 * Every system call costs tens of microseconds under UML, so
		 * the clock is read only when a command has a deadline and
		 * children are reaped only after a SIGCHLD.
		 */
		deadlines = has_deadline();
		if (poll(pfd, (nfds_t)nfd, deadlines ? poll_timeout(now_ms()) : -1) < 0) {
			if (errno == EINTR)
				continue;
			warnmsg("poll: %s", strerror(errno));
			quit(1);
		}
		if (pfd[0].revents)
			read_link();
		if (pfd[1].revents)
			reap();
		for (i = 2; i < nfd; i++) {
			/* A CANCEL or EOF above may have freed the job. */
			k = kv[i - 2];
			if (pfd[i].revents == 0 ||
			    (j = job_find(iv[i - 2])) == NULL ||
			    (k < 2 ? j->fd[k] : j->in_fd) != pfd[i].fd)
				continue;
			if (k == 2)
				stdin_push(j);
			else if (pump(j, k) == 0 && j->kind == JOB_TRACE)
				job_free(j);
			flush_out();
		}
		if (deadlines)
			check_deadlines(now_ms());
		for (j = A.jobs; j != NULL; j = next) {
			next = j->next;
			if (j->kind == JOB_EXEC && j->reaped)
				finish_exec(j);
		}
		flush_out();
	}
}

/* Set up signals, the link and buffers; say hello; serve. */
int
main(int argc, char **argv)
{
	struct sigaction sa;

	A.times[PT_AGENT] = mono_ns();
	progname = "umkit-agent";
	fatal_status = 1;
	boot_times();
	open_link(argc, argv);
	pin_cpu0();
	if (pipe2(A.sigfd, O_CLOEXEC | O_NONBLOCK) != 0)
		fatal("pipe");
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigchld;
	sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGCHLD, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	A.icap = PROTO_HDR_LEN + PROTO_MAX_PAYLOAD;
	A.ibuf = xrealloc(NULL, A.icap);
	A.rbuf = xrealloc(NULL, PROTO_MAX_PAYLOAD + 1);
	A.times[PT_HELLO] = mono_ns();
	send_hello(0);
	flush_out();
	serve();
	return 0;
}
