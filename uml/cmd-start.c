/*
 * cmd-start.c - long-lived named guests: start, stop, list, console.
 *
 * 'umkit start' forks a supervisor that owns the guest for its whole life:
 * it boots UML, waits for the agent, mounts the mirror at run/NAME/mnt and
 * serves run/NAME/ctl.sock (see ctl.h).  On 'umkit stop', SIGTERM, SIGINT
 * or SIGHUP it kills the guest, unmounts the mirror and removes run/NAME.
 * When the guest dies by itself the supervisor stays, so the mirror keeps
 * answering EIO, until it is stopped.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "ctl.h"
#include "guest.h"
#include "link.h"
#include "mirror.h"
#include "run.h"
#include "umkit.h"
#include "util.h"

#define BOOT_TIMEOUT_MS	20000

/* The supervisor's state; one per process. */
struct sup {
	const char	*name;
	char		*rundir;
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
};

/* Send one chunk of trace text to the client; stop when it has gone. */
static int
trace_chunk(const char *data, size_t len, void *arg)
{
	struct trace_conn	*t = arg;

	return ctl_send(t->fd, data, len, NULL, 0) < 0 ? 1 : 0;
}

/* Watch the client's end: when it hangs up, stop the stream. */
static void *
trace_watch(void *arg)
{
	struct trace_conn	*t = arg;
	struct pollfd		 p = { .fd = t->fd, .events = POLLIN };

	while (!t->stop) {
		if (poll(&p, 1, 200) > 0 && (p.revents & (POLLIN | POLLHUP | POLLERR))) {
			t->stop = 1;
			break;
		}
	}
	return NULL;
}

/* Stream a tracefs pipe to the client until it hangs up. */
static void
serve_trace(struct sup *s, int fd, const char *path)
{
	struct trace_conn	 t = { .fd = fd };
	pthread_t		 th;
	int			 r;

	if (strncmp(path, "/sys/kernel/tracing/", 20) != 0 || strstr(path, "..")) {
		reply(fd, "error %s: not a tracefs file", path);
		return;
	}
	reply(fd, "ok");
	if (pthread_create(&th, NULL, trace_watch, &t) != 0)
		return;
	r = link_trace(s->link, path, trace_chunk, &t, &t.stop);
	t.stop = 1;
	pthread_join(th, NULL);
	if (r < 0 && r != -ECANCELED)
		reply(fd, "error %s", r == -EIO ? "guest not responding" : strerror(-r));
}

/* Serve one control connection: one request, one reply. */
static void *
conn_main(void *arg)
{
	struct conn	*c = arg;
	struct sup	*s = c->s;
	char		*buf, **argv;
	int		 fds[4], nfds = 0, i, n, status, r, timeout_s;
	ssize_t		 len;
	size_t		 off;

	buf = xmalloc(CTL_MSG_MAX + 1);
	len = ctl_recv(c->fd, buf, fds, &nfds);
	if (len <= 0)
		goto out;
	if (strcmp(buf, "exec") == 0) {
		argv = xcalloc(len + 1, sizeof *argv);
		n = 0;
		for (off = strlen(buf) + 1; off < (size_t)len; off += strlen(buf + off) + 1)
			argv[n++] = buf + off;
		if (n < 2 || nfds != 2) {
			reply(c->fd, "error malformed exec request");
			free(argv);
			goto out;
		}
		timeout_s = atoi(argv[0]);
		r = link_exec(s->link, argv + 1, timeout_s, fds[0], fds[1], &status);
		if (r < 0)
			reply(c->fd, "error %s: %s", argv[1],
			    r == -EIO ? "guest not responding" : strerror(-r));
		else
			reply(c->fd, "status %d", status);
		free(argv);
	} else if (strcmp(buf, "trace") == 0 && (size_t)len > strlen(buf) + 1) {
		serve_trace(s, c->fd, buf + strlen(buf) + 1);
	} else if (strcmp(buf, "console") == 0) {
		if (s->g.pty_fd < 0)
			reply(c->fd, "error this guest has no console line");
		else
			ctl_send(c->fd, "ok", 2, &s->g.pty_fd, 1);
	} else if (strcmp(buf, "info") == 0) {
		int	dead;

		pthread_mutex_lock(&s->g.lock);
		dead = s->g.con_eof;
		pthread_mutex_unlock(&s->g.lock);
		reply(c->fd, "ok\nname=%s\nvariant=%s\ncpus=%d\nmem_mb=%ld\n"
		    "state=%s\numl_pid=%d\nuptime_s=%lld\nmnt=%s/mnt\n",
		    s->name, s->g.o.kernel ? s->g.o.kernel : s->g.o.variant,
		    s->g.o.cpus, s->g.o.mem_mb,
		    dead ? (guest_panicked(&s->g, 0) ? "panicked" : "dead") : "running",
		    (int)s->g.pid, (now_ms() - s->started) / 1000, s->rundir);
	} else if (strcmp(buf, "stop") == 0) {
		reply(c->fd, "ok");
		write_all(s->wake[1], "x", 1);
	} else
		reply(c->fd, "error unknown request '%.40s'", buf);
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
		fatalx("%s", p);
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
	hostlog = xasprintf("%s/run/log/%s.host.log", top_dir(), name);
	if ((log = fopen(hostlog, "w")) == NULL)
		fatalx("%s", hostlog);
	setvbuf(log, NULL, _IOLBF, 0);

	prctl(PR_SET_CHILD_SUBREAPER, 1);
	watch_block_signals();
	if (pipe2(s.wake, O_CLOEXEC) < 0)
		fatalx("pipe");
	if (guest_boot(&s.g, o, s.rundir) < 0)
		goto fail;
	sup_file(&s, "uml.pid", "%d\n", (int)s.g.pid);
	s.started = now_ms();
	s.link = link_open(s.g.link_fd, log);
	s.g.link_fd = -1;
	if ((r = link_hello(s.link, BOOT_TIMEOUT_MS)) < 0) {
		guest_wait_gone(&s.g, 500);
		if (!guest_panicked(&s.g, 1))
			warnmsg("guest %s did not come up: %s (console: %s)",
			    name, strerror(-r), o->logpath);
		goto fail;
	}
	/* Readers of the mirror get EIO within 2 s when the guest hangs. */
	link_set_timeout(s.link, 1500);
	mnt = xasprintf("%s/mnt", s.rundir);
	allow = top_path("uml/allow.conf");
	if (mkdir(mnt, 0755) < 0 ||
	    (s.mirror = mirror_start(s.link, mnt, allow, stderr)) == NULL) {
		warnmsg("guest %s: cannot mount the mirror at %s (see above)", name, mnt);
		goto fail;
	}
	free(allow);
	free(mnt);
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
			c = xmalloc(sizeof *c);
			c->s = &s;
			c->fd = fd;
			pthread_mutex_lock(&s.lock);
			s.active++;
			pthread_mutex_unlock(&s.lock);
			if (pthread_create(&th, NULL, conn_main, c) != 0)
				fatal("cannot start a thread");
			pthread_detach(th);
		}
	}
	fprintf(log, "umkit: guest %s stopping\n", name);
	sup_shutdown(&s);
	_exit(0);
fail:
	sup_shutdown(&s);
	_exit(EXIT_KIT);
}

/* Default guest name: the variant's. */
static const char *
default_name(const struct guest_opts *o)
{
	return o->kernel != NULL ? "custom" : o->variant;
}

/*
 * Start the named guest: fork its supervisor and wait until it reports
 * ready.  Returns 0, or EXIT_KIT with the reason already printed.  With
 * quiet == 0 the "guest NAME started" line goes to stdout.
 */
int
guest_start_named(const char *name, struct guest_opts *o, int quiet)
{
	char		 buf[4096];
	int		 p[2], st;
	size_t		 len = 0;
	ssize_t		 n;
	pid_t		 pid;

	guest_kernel(o);		/* build it here, with output */
	if (pipe2(p, O_CLOEXEC) < 0)
		fatalx("pipe");
	fflush(NULL);
	if ((pid = fork()) < 0)
		fatalx("fork");
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
		if (!quiet)
			printf("guest %s started (%s, %d CPUs, %ld MiB); mirror at run/%s/mnt\n",
			    name, o->kernel ? o->kernel : o->variant, o->cpus,
			    o->mem_mb, name);
		return 0;
	}
	fputs(buf, stderr);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return EXIT_KIT;
}

/* umkit start [options] [-n NAME] */
static int
start_main(int argc, char **argv)
{
	struct guest_opts	 o;
	const char		*name = NULL;
	int			 c;

	guest_opts_init(&o);
	while ((c = getopt_long(argc, argv, "+V:m:c:k:n:Avh", help_opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			name = optarg;
			break;
		case 'h':
			return cmd_help(&cmd_start);
		case '?':
			return cmd_usage(&cmd_start);
		default:
			guest_opt(&o, c, optarg);
		}
	}
	if (optind != argc)
		return cmd_usage(&cmd_start);
	if (name == NULL)
		name = default_name(&o);
	if (run_name_ok(name) < 0)
		fatal("-n %s: a name is 1-32 letters, digits, '-' or '_'", name);
	return guest_start_named(name, &o, 0);
}

/* umkit stop NAME... */
static int
stop_main(int argc, char **argv)
{
	const char	*f[] = { "stop", NULL };
	char		*r, *dir, *pidf, *s;
	long long	 until;
	int		 i, rc = 0;
	long		 pid;

	if (argc < 2)
		return cmd_usage(&cmd_stop);
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)
		return cmd_help(&cmd_stop);
	for (i = 1; i < argc; i++) {
		if (run_name_ok(argv[i]) < 0)
			fatal("'%s' is not a guest name", argv[i]);
		dir = run_dir(argv[i]);
		if (!run_alive(argv[i])) {
			if (access(dir, F_OK) == 0) {
				warnmsg("guest %s was stale; cleaned up", argv[i]);
				run_remove(argv[i]);
			} else {
				warnmsg("no guest named '%s' (see 'umkit list')", argv[i]);
				rc = EXIT_KIT;
			}
			free(dir);
			continue;
		}
		r = ctl_call(argv[i], f, NULL, 0, NULL);
		free(r);
		/* Wait for the supervisor to remove run/NAME; force it if not. */
		until = now_ms() + 8000;
		while (access(dir, F_OK) == 0 && now_ms() < until)
			usleep(20000);
		if (access(dir, F_OK) == 0) {
			warnmsg("guest %s: supervisor did not stop; killing it", argv[i]);
			pidf = xasprintf("%s/pid", dir);
			if ((s = read_text(pidf)) != NULL) {
				pid = strtol(s, NULL, 10);
				if (pid > 1)
					kill(pid, SIGKILL);
				free(s);
			}
			free(pidf);
			run_remove(argv[i]);
		}
		free(dir);
	}
	return rc;
}

/* Value of key in "key=value" lines, copied into out. */
static const char *
info_get(const char *text, const char *key, char *out, size_t size)
{
	const char	*p = text;
	size_t		 kl = strlen(key), n;

	snprintf(out, size, "-");
	while (p != NULL && *p != '\0') {
		if (strncmp(p, key, kl) == 0 && p[kl] == '=') {
			n = strcspn(p + kl + 1, "\n");
			snprintf(out, size, "%.*s", (int)n, p + kl + 1);
			break;
		}
		p = strchr(p, '\n');
		if (p != NULL)
			p++;
	}
	return out;
}

/* umkit list */
static int
list_main(int argc, char **argv)
{
	const char	*f[] = { "info", NULL };
	char		*top, *r, a[64], b[64], c[64], d[64], e[64];
	struct dirent	**nl;
	int		 n, i, shown = 0;

	if (argc > 1)
		return strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 ?
		    cmd_help(&cmd_list) : cmd_usage(&cmd_list);
	top = xasprintf("%s/run", top_dir());
	n = scandir(top, &nl, NULL, alphasort);
	for (i = 0; i < n; i++) {
		const char *name = nl[i]->d_name;

		if (name[0] != '.' && strcmp(name, "log") != 0 &&
		    strncmp(name, "exec-", 5) != 0 && run_alive(name) &&
		    (r = ctl_call(name, f, NULL, 0, NULL)) != NULL) {
			if (shown++ == 0)
				printf("%-16s %-12s %4s %7s %-9s %8s  %s\n", "NAME",
				    "VARIANT", "CPUS", "MEM", "STATE", "UPTIME", "MIRROR");
			printf("%-16s %-12s %4s %6sM %-9s %7ss  run/%s/mnt\n", name,
			    info_get(r, "variant", a, sizeof a),
			    info_get(r, "cpus", b, sizeof b),
			    info_get(r, "mem_mb", c, sizeof c),
			    info_get(r, "state", d, sizeof d),
			    info_get(r, "uptime_s", e, sizeof e), name);
			free(r);
		}
		free(nl[i]);
	}
	if (n > 0)
		free(nl);
	if (shown == 0)
		printf("no guests running\n");
	free(top);
	return 0;
}

static struct termios	saved_tio;
static int		tio_saved;

/* Put the terminal back as it was. */
static void
console_restore(void)
{
	if (tio_saved)
		tcsetattr(0, TCSAFLUSH, &saved_tio);
	tio_saved = 0;
}

/* umkit console NAME: a shell in the guest, on its ttyS2. */
static int
console_main(int argc, char **argv)
{
	const char	*f[] = { "console", NULL };
	struct termios	 t;
	struct pollfd	 pfd[2];
	char		*r, buf[4096];
	int		 pty = -1, tty, in_eof = 0, i;
	ssize_t		 n;
	long long	 quiet_until = 0;

	if (argc != 2)
		return cmd_usage(&cmd_console);
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)
		return cmd_help(&cmd_console);
	if (run_name_ok(argv[1]) < 0 || !run_alive(argv[1]))
		fatal("no running guest '%s' (see 'umkit list')", argv[1]);
	r = ctl_call(argv[1], f, NULL, 0, &pty);
	if (r == NULL || strcmp(r, "ok") != 0 || pty < 0)
		fatal("guest %s: %s", argv[1], r ? r : "no console");
	free(r);
	signal(SIGPIPE, SIG_IGN);
	tty = isatty(0);
	if (tty) {
		fprintf(stderr, "umkit: console of guest %s; Ctrl-] leaves\r\n", argv[1]);
		tcgetattr(0, &saved_tio);
		tio_saved = 1;
		atexit(console_restore);
		signal(SIGTERM, exit);
		signal(SIGHUP, exit);
		t = saved_tio;
		cfmakeraw(&t);
		tcsetattr(0, TCSAFLUSH, &t);
		write_all(pty, "\n", 1);
	}
	pfd[0] = (struct pollfd){ .fd = 0, .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = pty, .events = POLLIN };
	for (;;) {
		int	wait = in_eof ? (int)(quiet_until - now_ms()) : -1;

		if (in_eof && wait <= 0)
			break;
		pfd[0].fd = in_eof ? -1 : 0;
		if (poll(pfd, 2, wait) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pfd[1].revents & (POLLIN | POLLHUP | POLLERR)) {
			n = read(pty, buf, sizeof buf);
			if (n <= 0)
				break;
			write_all(1, buf, n);
			quiet_until = now_ms() + 500;
		}
		if (!in_eof && (pfd[0].revents & (POLLIN | POLLHUP))) {
			n = read(0, buf, sizeof buf);
			if (n <= 0) {
				/* Not a terminal: stop once the guest is quiet. */
				in_eof = 1;
				quiet_until = now_ms() + 1000;
				continue;
			}
			for (i = 0; tty && i < n; i++)
				if (buf[i] == 0x1d)
					goto out;
			write_all(pty, buf, n);
		}
	}
out:
	console_restore();
	if (tty)
		fprintf(stderr, "\numkit: left the console of %s\n", argv[1]);
	return 0;
}

const struct cmd cmd_start = {
	.name = "start",
	.usage = "start [-V VARIANT] [-m MEM] [-c CPUS] [-A] [-n NAME]",
	.help =
"Boot a long-lived guest called NAME (default: the variant's name) and\n"
"mount its mirror at run/NAME/mnt: the guest's /proc and /sys (with\n"
"debugfs and tracefs) as files.  It runs until 'umkit stop NAME'.  Its\n"
"console goes to run/log/NAME.log.  Several guests may run at once.\n"
"\n"
"  -V VARIANT  kernel variant (default base)   -m MEM   memory (256M)\n"
"  -c CPUS     CPUs (default 2)                -A       host ASLR on\n"
"  -k KERNEL   boot this kernel binary         -n NAME  the guest's name\n"
"\n"
"Example:\n"
"  umkit start -n lab -c 4 && cat run/lab/mnt/proc/meminfo && umkit stop lab",
	.exec = start_main,
};

const struct cmd cmd_stop = {
	.name = "stop",
	.usage = "stop NAME...",
	.help =
"Stop guests: kill the UML processes, unmount the mirror, remove run/NAME.\n"
"A guest whose supervisor died is cleaned up too.\n"
"\n"
"Example:\n"
"  umkit stop lab",
	.exec = stop_main,
};

const struct cmd cmd_list = {
	.name = "list",
	.usage = "list",
	.help =
"List running guests with their variant, CPUs, memory, state (running,\n"
"dead or panicked) and mirror.  Stale entries are cleaned up first.\n"
"\n"
"Example:\n"
"  umkit list",
	.exec = list_main,
};

const struct cmd cmd_console = {
	.name = "console",
	.usage = "console NAME",
	.help =
"A shell in the running guest NAME, on its second serial line.  Ctrl-]\n"
"leaves (the shell stays).  Without a terminal, stdin is typed into the\n"
"shell and output is copied until the guest has been quiet for a second.\n"
"\n"
"Example:\n"
"  umkit console lab\n"
"  echo 'cat /proc/loadavg' | umkit console lab",
	.exec = console_main,
};

static volatile sig_atomic_t	trace_stop;

/* Ctrl-C ends 'umkit trace' cleanly. */
static void
trace_sig(int sig)
{
	(void)sig;
	trace_stop = 1;
}

/* Write "0"/"1" into an event's enable file through the mirror. */
static int
trace_enable(const char *name, const char *event, const char *v)
{
	char	*p;
	int	 fd, r = -1;

	p = xasprintf("%s/run/%s/mnt/sys/kernel/tracing/events/%s/enable",
	    top_dir(), name, event);
	if ((fd = open(p, O_WRONLY | O_TRUNC)) >= 0) {
		r = write_all(fd, v, 1) == 1 ? 0 : -1;
		close(fd);
	}
	if (r < 0)
		warnmsg("guest %s: cannot set events/%s/enable: %s", name, event,
		    strerror(errno));
	free(p);
	return r;
}

/* umkit trace NAME [EVENT...]: stream trace events of a running guest. */
static int
trace_main(int argc, char **argv)
{
	static const char req[] = "trace\0/sys/kernel/tracing/trace_pipe";
	const char	*def[] = { "compaction", NULL }, **ev;
	struct sigaction sa = { .sa_handler = trace_sig };
	struct pollfd	 p;
	char		*buf;
	ssize_t		 n;
	int		 s, i, nev, rc = 0;

	if (argc < 2)
		return cmd_usage(&cmd_trace);
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)
		return cmd_help(&cmd_trace);
	if (run_name_ok(argv[1]) < 0 || !run_alive(argv[1]))
		fatal("no running guest '%s' (see 'umkit list')", argv[1]);
	ev = argc > 2 ? (const char **)argv + 2 : def;
	nev = argc > 2 ? argc - 2 : 1;
	for (i = 0; i < nev; i++) {
		if (strstr(ev[i], "..") != NULL || ev[i][0] == '/')
			fatal("'%s' is not an event (like compaction or "
			    "compaction/mm_compaction_begin)", ev[i]);
		if (trace_enable(argv[1], ev[i], "1") < 0)
			return EXIT_KIT;
	}
	if ((s = ctl_connect(argv[1])) < 0)
		return EXIT_KIT;
	buf = xmalloc(CTL_MSG_MAX + 1);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (ctl_send(s, req, sizeof req - 1, NULL, 0) < 0 ||
	    ctl_recv(s, buf, NULL, NULL) <= 0 || strcmp(buf, "ok") != 0) {
		warnmsg("guest %s: %s", argv[1], buf);
		rc = EXIT_KIT;
	}
	p = (struct pollfd){ .fd = s, .events = POLLIN };
	while (rc == 0 && !trace_stop) {
		if (poll(&p, 1, 200) <= 0)
			continue;
		if ((n = ctl_recv(s, buf, NULL, NULL)) <= 0)
			break;
		if (strncmp(buf, "error ", 6) == 0) {
			warnmsg("guest %s: %s", argv[1], buf + 6);
			rc = EXIT_KIT;
			break;
		}
		if (write_all(1, buf, n) < 0)
			break;
	}
	close(s);
	free(buf);
	for (i = 0; i < nev; i++)
		trace_enable(argv[1], ev[i], "0");
	return rc;
}

const struct cmd cmd_trace = {
	.name = "trace",
	.usage = "trace NAME [EVENT...]",
	.help =
"Stream trace events of the running guest NAME to stdout until Ctrl-C.\n"
"Each EVENT (default: compaction) is a tracefs subsystem or\n"
"subsystem/event; it is enabled first and disabled again at the end.\n"
"\n"
"Example:\n"
"  umkit trace lab compaction/mm_compaction_begin compaction/mm_compaction_end",
	.exec = trace_main,
};
