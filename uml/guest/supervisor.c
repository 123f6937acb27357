/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * supervisor.c - the daemon owning a named guest: UML, the link, the
 * mirror and the control socket server (see supervisor.h; the client is
 * ctl.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cov/cov.h"
#include "ctl.h"
#include "guest.h"
#include "link/link.h"
#include "link/mirror.h"
#include "preflight.h"
#include "rundir.h"
#include "supervisor.h"
#include "util.h"
#include "watch.h"

/* The supervisor's state; one per process. */
struct sup {
	const char	*name;
	char		*rundir;
	char		*mnt;		/* run/NAME/mnt */
	struct guest	 g;
	struct link	*link;
	struct mirror	*mirror;
	int		 listen_fd;
	int		 wake[2];	/* a handler asks the main loop to stop */
	long long	 started;

	pthread_mutex_t	 lock;
	pthread_cond_t	 idle;
	int		 active;	/* handler threads running; lock */
};

struct conn {
	struct sup	*s;
	int		 fd;
};

/* Reply text on a connection. */
static void
reply(int fd, const char *fmt, ...)
{
	va_list	 ap;
	char	*s;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	ctl_send(fd, s, strlen(s), NULL, 0);
	free(s);
}

struct trace_conn {
	int		 fd;
	volatile int	 stop;
	int		 wake;		/* an eventfd: the watcher's end now */
};

/* Send one chunk of trace text to the client; stop when it has gone. */
static int
trace_chunk(const char *data, size_t len, void *arg)
{
	struct trace_conn	*t = arg;

	return ctl_send(t->fd, data, len, NULL, 0) < 0 ? 1 : 0;
}

/* Watch the client's end: when it hangs up, stop the stream; a write
 * to t->wake ends the watch at once (the work ended first). */
static void *
trace_watch(void *arg)
{
	struct trace_conn	*t = arg;
	struct pollfd		 p[2] = { { .fd = t->fd, .events = POLLIN },
				    { .fd = t->wake, .events = POLLIN } };

	while (!t->stop) {
		if (poll(p, t->wake >= 0 ? 2 : 1, 200) <= 0)
			continue;
		if (p[0].revents & (POLLIN | POLLHUP | POLLERR))
			t->stop = 1;
		if (t->wake >= 0 && (p[1].revents & POLLIN))
			break;
	}
	return NULL;
}

/* Start watching t's client (t->wake made here); 0, or -1. */
static int
client_watch(struct trace_conn *t, pthread_t *th)
{
	t->wake = eventfd(0, EFD_CLOEXEC);
	if (pthread_create(th, NULL, trace_watch, t) != 0) {
		if (t->wake >= 0)
			close(t->wake);
		return -1;
	}
	return 0;
}

/* The work ended: stop the watcher without waiting for its poll. */
static void
client_unwatch(struct trace_conn *t, pthread_t th)
{
	uint64_t	one = 1;

	t->stop = 1;
	/* (should the write fail, the 200 ms poll ends it anyway) */
	if (t->wake >= 0 && write(t->wake, &one, sizeof one) < 0)
		t->stop = 1;
	pthread_join(th, NULL);
	if (t->wake >= 0)
		close(t->wake);
}

/* Stream a tracefs pipe to the client until it hangs up. */
static void
serve_trace(struct sup *s, int fd, const char *path)
{
	struct trace_conn	 t = { .fd = fd, .wake = -1 };
	pthread_t		 th;
	int			 r;

	if (strncmp(path, "/sys/kernel/tracing/", 20) != 0 || strstr(path, "..")) {
		reply(fd, "error %s: not a tracefs file", path);
		return;
	}
	reply(fd, "ok");
	if (client_watch(&t, &th) < 0)
		return;
	r = link_trace(s->link, path, trace_chunk, &t, &t.stop);
	client_unwatch(&t, th);
	if (r < 0 && r != -ECANCELED)
		reply(fd, "error %s", r == -EIO ? "guest not responding" : strerror(-r));
}

/* An exec for a client: killed when the client hangs up first. */
static void
serve_exec(struct sup *s, int fd, char **argv, const int *fds, int nfds)
{
	struct trace_conn	 t = { .fd = fd, .wake = -1 };
	pthread_t		 th;
	int			 r, status, watching;

	watching = client_watch(&t, &th) == 0;
	r = link_exec_stop(s->link, argv + 1, atoi(argv[0]),
	    nfds == 3 ? fds[2] : -1, fds[0], fds[1], &t.stop, &status);
	if (watching)
		client_unwatch(&t, th);
	t.stop = 1;
	if (r < 0)
		reply(fd, "error %s: %s", argv[1],
		    r == -EIO ? "guest not responding" : strerror(-r));
	else
		reply(fd, "status %d", status);
}

/* Serve one control connection: one request, one reply. */
static void *
conn_main(void *arg)
{
	struct conn	*c = arg;
	struct sup	*s = c->s;
	struct ctl_req	 req;
	char		*buf;
	int		 fds[4], nfds = 0, i;
	ssize_t		 len;

	buf = xmalloc(CTL_MSG_MAX + 1);
	len = ctl_recv(c->fd, buf, fds, &nfds);
	if (len <= 0)
		goto out;
	ctl_parse_request(buf, (size_t)len, nfds, &req);
	if (req.kind == CTL_REQ_EXEC) {
		serve_exec(s, c->fd, req.argv, fds, nfds);
	} else if (req.kind == CTL_REQ_TRACE) {
		serve_trace(s, c->fd, req.arg);
	} else if (req.kind == CTL_REQ_CONSOLE) {
		if (s->g.pty_fd < 0)
			reply(c->fd, "error this guest has no console line");
		else
			ctl_send(c->fd, "ok", 2, &s->g.pty_fd, 1);
	} else if (req.kind == CTL_REQ_INFO) {
		int	dead;

		pthread_mutex_lock(&s->g.lock);
		dead = s->g.con_eof;
		pthread_mutex_unlock(&s->g.lock);
		reply(c->fd, "ok\nname=%s\nvariant=%s\ncpus=%d\nmem_mb=%ld\n"
		    "state=%s\numl_pid=%d\nuptime_s=%lld\nmnt=%s\nkernel=%s\n",
		    s->name, s->g.o.kernel ? s->g.o.kernel : s->g.o.variant,
		    s->g.o.cpus, s->g.o.mem_mb,
		    dead ? (guest_panicked(&s->g, 0) ? "panicked" : "dead") : "running",
		    (int)s->g.kpid, (now_ms() - s->started) / 1000, s->mnt,
		    s->g.kernel);
	} else if (req.kind == CTL_REQ_STOP) {
		reply(c->fd, "ok");
		write_all(s->wake[1], "x", 1);
	} else if (req.argv != NULL) {
		reply(c->fd, "error %s", req.why);
	} else
		reply(c->fd, "error %s '%.40s'", req.why, buf);
	free(req.argv);
out:
	for (i = 0; i < nfds; i++)
		close(fds[i]);
	close(c->fd);
	free(buf);
	free(c);
	pthread_mutex_lock(&s->lock);
	if (--s->active == 0)
		pthread_cond_broadcast(&s->idle);
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

/* Listen on run/NAME/ctl.sock. */
static int
sup_listen(struct sup *s)
{
	struct sockaddr_un	sa = { .sun_family = AF_UNIX };
	int			fd;

	/* Bind relative to the run directory: checkout paths may be long. */
	if (chdir(s->rundir) < 0)
		return -1;
	snprintf(sa.sun_path, sizeof sa.sun_path, "ctl.sock");
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0 ||
	    listen(fd, 16) < 0)
		return -1;
	if (chdir("/") < 0)
		return -1;
	return fd;
}

/* Write a small file in the run directory. */
static void
sup_file(struct sup *s, const char *file, const char *fmt, ...)
{
	va_list	 ap;
	char	*p = xasprintf("%s/%s", s->rundir, file);
	FILE	*f = fopen(p, "w");

	if (f == NULL)
		fatal("%s", p);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fclose(f);
	free(p);
}

/* Tear down everything the supervisor owns. */
static void
sup_shutdown(struct sup *s)
{
	struct timespec	ts;

	guest_kill(&s->g);	/* pending link calls fail at once */
	if (s->listen_fd >= 0)
		close(s->listen_fd);
	pthread_mutex_lock(&s->lock);
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 3;
	while (s->active > 0 &&
	    pthread_cond_timedwait(&s->idle, &s->lock, &ts) == 0)
		;
	pthread_mutex_unlock(&s->lock);
	mirror_stop(s->mirror);
	s->mirror = NULL;
	guest_wait_gone(&s->g, 1000);
	if (s->link != NULL)
		link_close(s->link);
	s->link = NULL;
	guest_free(&s->g);
	run_remove(s->name);
}

/*
 * The supervisor (a child of 'umkit start'): report "ok" or an error on
 * ready_fd, then serve until told to stop.  Never returns.
 */
static void __attribute__((noreturn))
supervise(const char *name, struct guest_opts *o, int ready_fd)
{
	struct sup	 s = { .name = name, .listen_fd = -1 };
	struct pollfd	 pfd[3];
	sigset_t	 set;
	char		*mnt, *allow, *hostlog;
	FILE		*log;
	int		 sfd, r, devnull;

	setsid();
	/* A guest tied to its starter (a lab runner) stops when it dies. */
	if (o->tied && (prctl(PR_SET_PDEATHSIG, SIGTERM) < 0 || getppid() == 1))
		_exit(EXIT_KIT);
	pthread_mutex_init(&s.lock, NULL);
	pthread_cond_init(&s.idle, NULL);
	/* Until ready, errors go to 'umkit start' through the pipe. */
	dup2(ready_fd, 2);
	if (run_create(name, getpid()) < 0) {
		if (errno == EEXIST)
			warnmsg("a guest named '%s' is already running", name);
		else
			warnmsg("cannot create run/%s: %s", name, strerror(errno));
		_exit(EXIT_KIT);
	}
	s.rundir = run_dir(name);
	o->name = name;
	o->logpath = run_log(name);
	hostlog = xasprintf("%s/%s.host.log", run_log_dir(), name);
	if ((log = fopen(hostlog, "w")) == NULL)
		fatal("%s", hostlog);
	setvbuf(log, NULL, _IOLBF, 0);

	prctl(PR_SET_CHILD_SUBREAPER, 1);
	watch_block_signals();
	if (pipe2(s.wake, O_CLOEXEC) < 0)
		fatal("pipe");
	if (guest_boot(&s.g, o, s.rundir) < 0)
		goto fail;
	sup_file(&s, "uml.pid", "%d\n", (int)s.g.kpid);
	sup_file(&s, "guest.pid", "%d %d %llu\n", (int)s.g.pid,
	    (int)(s.g.initpid > 1 ? s.g.initpid : s.g.kpid), proc_starttime(s.g.pid));
	s.started = now_ms();
	s.link = link_open(s.g.link_fd, log);
	link_sink_deadline(s.link, LINK_SINK_MS);	/* clients that stop reading go */
	s.g.link_fd = -1;
	if ((r = link_hello(s.link, BOOT_TIMEOUT_MS)) < 0) {
		guest_wait_gone(&s.g, 500);
		if (!guest_panicked(&s.g, 1)) {
			warnmsg("guest %s did not come up: %s (console: %s)",
			    name, strerror(-r), o->logpath);
			guest_print_tail(&s.g, 8);
		}
		goto fail;
	}
	guest_pin(&s.g);
	/* Readers of the mirror get EIO within 2 s when the guest hangs. */
	link_set_timeout(s.link, 1500);
	mnt = s.mnt = run_mnt(name);
	allow = top_path("uml/link/allow.conf");
	if (mkdir(mnt, 0755) < 0 ||
	    (s.mirror = mirror_start(s.link, mnt, allow, stderr)) == NULL) {
		warnmsg("guest %s: cannot mount the mirror at %s (see above)", name, mnt);
		goto fail;
	}
	free(allow);
	sup_file(&s, "info", "variant=%s\ncpus=%d\nmem_mb=%ld\n",
	    o->kernel ? o->kernel : o->variant, o->cpus, o->mem_mb);
	if ((s.listen_fd = sup_listen(&s)) < 0) {
		warnmsg("guest %s: control socket: %s", name, strerror(errno));
		goto fail;
	}

	/* Ready: from now on messages go to the host log. */
	write_all(ready_fd, "ok\n", 3);
	devnull = open("/dev/null", O_RDWR);
	dup2(devnull, 0);
	dup2(devnull, 1);
	dup2(fileno(log), 2);
	close(devnull);
	close(ready_fd);

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGQUIT);
	sfd = signalfd(-1, &set, SFD_CLOEXEC);
	pfd[0] = (struct pollfd){ .fd = s.listen_fd, .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = sfd, .events = POLLIN };
	pfd[2] = (struct pollfd){ .fd = s.wake[0], .events = POLLIN };
	for (;;) {
		if (poll(pfd, 3, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pfd[1].revents || pfd[2].revents)
			break;
		if (pfd[0].revents & POLLIN) {
			struct conn	*c;
			pthread_t	 th;
			int		 fd = accept4(s.listen_fd, NULL, NULL, SOCK_CLOEXEC);

			if (fd < 0)
				continue;
			/* Only this user (or root) may drive the guest. */
			if (!ctl_peer_ok(fd)) {
				fprintf(log, "umkit: a connection from another user "
				    "was refused\n");
				close(fd);
				continue;
			}
			c = xmalloc(sizeof *c);
			c->s = &s;
			c->fd = fd;
			pthread_mutex_lock(&s.lock);
			s.active++;
			pthread_mutex_unlock(&s.lock);
			if (pthread_create(&th, NULL, conn_main, c) != 0)
				fatalx("cannot start a thread");
			pthread_detach(th);
		}
	}
	fprintf(log, "umkit: guest %s stopping\n", name);
	cov_collect(s.link, name);	/* with $UMKIT_GCOV_DIR: its counters */
	sup_shutdown(&s);
	_exit(0);
fail:
	sup_shutdown(&s);
	_exit(EXIT_KIT);
}

/* Fork the supervisor and relay what it says until the guest is up. */
int
supervisor_start(const char *name, struct guest_opts *o, int quiet)
{
	char	 buf[4096];
	int	 p[2], st;
	size_t	 len = 0;
	ssize_t	 n;
	pid_t	 pid;

	guest_kernel(o);		/* build it here, with output */
	preflight(o, 1);
	if (pipe2(p, O_CLOEXEC) < 0)
		fatal("pipe");
	fflush(NULL);
	if ((pid = fork()) < 0)
		fatal("fork");
	if (pid == 0) {
		close(p[0]);
		supervise(name, o, p[1]);
	}
	close(p[1]);
	while (len < sizeof buf - 1 &&
	    (n = read(p[0], buf + len, sizeof buf - 1 - len)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		len += n;
		if (len >= 3 && memcmp(buf + len - 3, "ok\n", 3) == 0)
			break;
	}
	buf[len] = '\0';
	close(p[0]);
	free(o->kpath);
	o->kpath = NULL;
	if (len >= 3 && memcmp(buf + len - 3, "ok\n", 3) == 0) {
		buf[len - 3] = '\0';
		fputs(buf, stderr);
		if (!quiet) {
			char	*rel = xasprintf("%s/mnt", name), *mnt = run_shown(rel);

			printf("guest %s started (%s, %d CPUs, %ld MiB); mirror "
			    "at %s\n", name, o->kernel ? o->kernel :
			    o->variant, o->cpus, o->mem_mb, mnt);
			free(mnt);
			free(rel);
		}
		return 0;
	}
	fputs(buf, stderr);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return EXIT_KIT;
}
