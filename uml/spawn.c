/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * spawn.c - run another program from an argv (spawn.h): its descriptors,
 * a deadline, a tick, captured output, and the stop signals passed on.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "spawn.h"
#include "util.h"

#define TICK_MS		300
#define KILL_GRACE_MS	2000

/* The children a stop signal is passed on to while we wait (fwd_handler). */
static volatile pid_t		fwd_pids[64];
static volatile sig_atomic_t	fwd_n, fwd_sig;
static const int		fwd_sigs[3] = { SIGINT, SIGTERM, SIGHUP };

/* Pass a stop signal on to the children being waited for. */
static void
fwd_handler(int sig)
{
	int	i;

	fwd_sig = sig;
	for (i = 0; i < fwd_n; i++)
		if (fwd_pids[i] > 0)
			kill(fwd_pids[i], sig);
}

/* Pass the stop signals on to v[0..n) from now on (the old actions saved). */
static void
fwd_begin(const struct spawn *v, int n, struct sigaction old[3])
{
	struct sigaction	sa;
	int			i;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = fwd_handler;
	sigemptyset(&sa.sa_mask);
	fwd_sig = 0;
	for (i = 0; i < n && i < (int)(sizeof fwd_pids / sizeof fwd_pids[0]); i++)
		fwd_pids[i] = v[i].pid;
	fwd_n = i;
	for (i = 0; i < 3; i++)
		sigaction(fwd_sigs[i], &sa, &old[i]);
}

/* Stop passing signals on; 128+N when signal N came meanwhile, else 0. */
static int
fwd_end(struct sigaction old[3])
{
	int	i;

	fwd_n = 0;
	for (i = 0; i < 3; i++)
		sigaction(fwd_sigs[i], &old[i], NULL);
	return fwd_sig != 0 ? 128 + fwd_sig : 0;
}

/* An exit status as a shell reports it (a signal: 128+N). */
static int
exit_of(int st)
{
	return WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
}

/* Fill a request with the defaults: everything as ours. */
void
spawn_init(struct spawn *sp, char *const argv[])
{
	memset(sp, 0, sizeof *sp);
	sp->argv = argv;
	sp->in = sp->out = sp->err = SPAWN_KEEP;
	sp->fd3 = -1;
	sp->cap_fd = -1;
	sp->max = 64u << 20;
	sp->pid = -1;
}

/*
 * In the child: fd (an fd of ours or a SPAWN_*) as a descriptor parked
 * above 10, so that one dup2 cannot clobber another's source; -1: keep.
 */
static int
child_park(int fd, int devnull)
{
	if (fd == SPAWN_NULL)
		return devnull;
	if (fd < 0)
		return -1;
	if ((fd = fcntl(fd, F_DUPFD_CLOEXEC, 10)) < 0)
		_exit(126);
	return fd;
}

/* In the child: its descriptors, signals and directory; then exec. */
static void __attribute__((noreturn))
child_exec(struct spawn *sp, int cap_w, int parent)
{
	sigset_t	none;
	int		devnull, fd[4], i;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	for (i = 0; i < 3; i++)
		signal(fwd_sigs[i], SIG_DFL);
	signal(SIGQUIT, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	/* Started by the main thread: it ends when we do. */
	if (parent == syscall(SYS_gettid)) {
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != parent)
			_exit(129);
	}
	if ((devnull = open("/dev/null", O_RDWR | O_CLOEXEC)) < 0)
		_exit(126);
	fd[0] = child_park(sp->in, devnull);
	if (sp->out_file != NULL) {
		fd[1] = open(sp->out_file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
		    0600);
		if (fd[1] < 0) {
			dprintf(2, "%s: %s: %s\n", progname, sp->out_file,
			    strerror(errno));
			_exit(126);
		}
		fd[1] = child_park(fd[1], devnull);
	} else
		fd[1] = child_park(sp->out == SPAWN_CAPTURE ? cap_w : sp->out, devnull);
	fd[2] = sp->err == SPAWN_TO_OUT ? (fd[1] >= 0 ? fd[1] : 1) :
	    child_park(sp->err, devnull);
	fd[3] = child_park(sp->fd3, devnull);
	for (i = 0; i < 4; i++) {
		if (fd[i] < 0)
			continue;
		if (fd[i] == i)
			fcntl(i, F_SETFD, 0);
		else if (dup2(fd[i], i) < 0)
			_exit(126);
	}
	if (sp->dir != NULL && chdir(sp->dir) < 0) {
		dprintf(2, "%s: %s: %s\n", progname, sp->dir, strerror(errno));
		_exit(126);
	}
	for (i = 0; sp->env != NULL && sp->env[i] != NULL; i++)
		putenv(sp->env[i]);
	if (sp->child != NULL)
		sp->child(sp->arg);
	execvp(sp->argv[0], sp->argv);
	if (errno != ENOENT)
		dprintf(2, "%s: cannot run %s: %s\n", progname, sp->argv[0],
		    strerror(errno));
	_exit(127);
}

/* Start a request; its pid. */
pid_t
spawn_start(struct spawn *sp)
{
	int	p[2] = { -1, -1 };
	pid_t	parent = getpid();

	if (sp->out == SPAWN_CAPTURE && sp->out_file == NULL &&
	    pipe2(p, O_CLOEXEC) < 0)
		fatal("pipe");
	fflush(NULL);
	if ((sp->pid = fork()) < 0)
		fatal("fork");
	if (sp->pid == 0)
		child_exec(sp, p[1], parent);
	if (p[1] >= 0)
		close(p[1]);
	sp->cap_fd = p[0];
	sp->timed_out = 0;
	return sp->pid;
}

/* Append what the capture pipe has; 0 at its end. */
static int
capture_more(struct spawn *sp, size_t *size)
{
	char	buf[8192];
	ssize_t	r;
	size_t	take;

	r = read(sp->cap_fd, buf, sizeof buf);
	if (r < 0)
		return errno == EINTR || errno == EAGAIN ? 1 : 0;
	if (r == 0)
		return 0;
	take = sp->len + (size_t)r > sp->max ? sp->max - sp->len : (size_t)r;
	if (take < (size_t)r)
		sp->overflow = 1;
	if (take > 0) {
		if (sp->len + take + 1 > *size) {
			*size = (sp->len + take + 1) * 2;
			sp->output = xrealloc(sp->output, *size);
		}
		memcpy(sp->output + sp->len, buf, take);
		sp->len += take;
	}
	return 1;
}

/* Wait for one child: capture, tick, deadline; its status. */
int
spawn_wait(struct spawn *sp)
{
	struct sigaction	 old[3];
	struct pollfd		 pfd;
	long long		 start = now_ms(), killed = 0;
	size_t			 size = 0;
	int			 st = 0, sig, done = 0, open_pipe = sp->cap_fd >= 0;
	pid_t			 r;

	if (open_pipe) {
		sp->output = xmalloc(size = 4096);
		sp->len = 0;
		sp->overflow = 0;
	}
	fwd_begin(sp, 1, old);
	while (!done) {
		int	wait_ms = -1;

		if (sp->tick != NULL || sp->timeout_ms > 0)
			wait_ms = TICK_MS;
		if (open_pipe) {
			pfd.fd = sp->cap_fd;
			pfd.events = POLLIN;
			if (poll(&pfd, 1, wait_ms) > 0 && !capture_more(sp, &size))
				open_pipe = 0;
			r = waitpid(sp->pid, &st, WNOHANG);
		} else {
			r = waitpid(sp->pid, &st, wait_ms < 0 ? 0 : WNOHANG);
			if (r == 0)
				usleep(wait_ms * 1000);
		}
		if (r == sp->pid)
			done = 1;
		else if (r < 0 && errno != EINTR)
			fatal("waitpid");
		else if (r == 0) {
			if (sp->tick != NULL)
				sp->tick(sp->arg);
			if (sp->timeout_ms > 0 && now_ms() - start > sp->timeout_ms) {
				if (!sp->timed_out) {
					sp->timed_out = 1;
					killed = now_ms();
					kill(sp->pid, SIGTERM);
				} else if (now_ms() - killed > KILL_GRACE_MS)
					kill(sp->pid, SIGKILL);
			}
		}
	}
	/* What the child's children still write, until the pipe's end. */
	while (open_pipe && capture_more(sp, &size))
		;
	if (sp->cap_fd >= 0) {
		close(sp->cap_fd);
		sp->cap_fd = -1;
	}
	if (sp->output != NULL)
		sp->output[sp->len] = '\0';
	sig = fwd_end(old);
	if (sig != 0)
		return sig;
	return sp->timed_out ? SPAWN_TIMEOUT : exit_of(st);
}

/* Start and wait. */
int
spawn_run(struct spawn *sp)
{
	spawn_start(sp);
	return spawn_wait(sp);
}

/* Wait for v[0..n), each one's status in rc. */
int
spawn_wait_all(struct spawn *v, int n, int *rc)
{
	struct sigaction	old[3];
	int			i, st;

	fwd_begin(v, n, old);
	for (i = 0; i < n; i++) {
		while (waitpid(v[i].pid, &st, 0) < 0)
			if (errno != EINTR)
				fatal("waitpid");
		rc[i] = exit_of(st);
	}
	return fwd_end(old);
}

/* Free the output of a finished request. */
void
spawn_free(struct spawn *sp)
{
	free(sp->output);
	sp->output = NULL;
	sp->len = 0;
}

/* The file execvp would run for name (allocated), or NULL. */
char *
spawn_which(const char *name)
{
	const char	*path = getenv("PATH"), *p, *e;
	char		*f;

	if (*name == '\0')
		return NULL;
	if (strchr(name, '/') != NULL)
		return access(name, X_OK) == 0 ? xstrdup(name) : NULL;
	if (path == NULL)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path;; p = e + 1) {
		e = strchrnul(p, ':');
		f = e == p ? xasprintf("./%s", name) :
		    xasprintf("%.*s/%s", (int)(e - p), p, name);
		if (access(f, X_OK) == 0)
			return f;
		free(f);
		if (*e == '\0')
			return NULL;
	}
}

/* Whether execvp would find name. */
int
spawn_findable(const char *name)
{
	char	*f = spawn_which(name);

	free(f);
	return f != NULL;
}

/* Run argv for its stdout (spawn.h). */
char *
spawn_output(char *const argv[], const char *dir, int quiet, size_t max,
    size_t *len, int *status)
{
	struct spawn	sp;

	spawn_init(&sp, argv);
	sp.dir = dir;
	sp.out = SPAWN_CAPTURE;
	sp.err = quiet ? SPAWN_NULL : SPAWN_KEEP;
	sp.max = max;
	*status = spawn_run(&sp);
	if (sp.overflow) {
		spawn_free(&sp);
		errno = EFBIG;
		return NULL;
	}
	if (len != NULL)
		*len = sp.len;
	return sp.output;
}
