/* SPDX-License-Identifier: GPL-2.0-only */
/* ctl.c - messages on a named guest's control socket (see ctl.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "ctl.h"
#include "rundir.h"
#include "util.h"

/* One message with SCM_RIGHTS. */
int
ctl_send(int sock, const void *buf, size_t len, const int *fds, int nfds)
{
	struct msghdr	 m = { 0 };
	struct iovec	 iov = { (void *)buf, len };
	union {
		char		b[CMSG_SPACE(4 * sizeof(int))];
		struct cmsghdr	align;
	} u;
	struct cmsghdr	*c;
	struct pollfd	 pfd;
	long long	 until;

	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	if (nfds > 0) {
		memset(&u, 0, sizeof u);
		m.msg_control = u.b;
		m.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
		c = CMSG_FIRSTHDR(&m);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(nfds * sizeof(int));
		memcpy(CMSG_DATA(c), fds, nfds * sizeof(int));
	}
	/* A client that stops reading is dropped, never waited for. */
	until = now_ms() + CTL_SEND_MS;
	while (sendmsg(sock, &m, MSG_NOSIGNAL | MSG_DONTWAIT) < 0) {
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN || now_ms() >= until)
			return -1;
		pfd.fd = sock;
		pfd.events = POLLOUT;
		poll(&pfd, 1, (int)(until - now_ms()));
	}
	return 0;
}

/* Whether the peer of a control connection is this user or root. */
int
ctl_peer_ok(int fd)
{
	struct ucred	cr;
	socklen_t	len = sizeof cr;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) < 0)
		return 0;
	return cr.uid == geteuid() || cr.uid == 0;
}

/* One message and its fds (closed if more than 4 arrive). */
ssize_t
ctl_recv(int sock, char *buf, int *fds, int *nfds)
{
	struct msghdr	 m = { 0 };
	struct iovec	 iov = { buf, CTL_MSG_MAX };
	union {
		char		b[CMSG_SPACE(8 * sizeof(int))];
		struct cmsghdr	align;
	} u;
	struct cmsghdr	*c;
	ssize_t		 n;
	int		 i, k, got = 0, *p;

	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	m.msg_control = u.b;
	m.msg_controllen = sizeof u.b;
	do
		n = recvmsg(sock, &m, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	for (c = CMSG_FIRSTHDR(&m); c != NULL; c = CMSG_NXTHDR(&m, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		p = (int *)CMSG_DATA(c);
		for (i = 0; i < k; i++) {
			if (fds != NULL && got < 4)
				fds[got++] = p[i];
			else
				close(p[i]);
		}
	}
	if (nfds != NULL)
		*nfds = got;
	return n;
}

/* Connect to a named guest's supervisor. */
int
ctl_connect(const char *name)
{
	struct sockaddr_un	 sa = { .sun_family = AF_UNIX };
	char			*dir;
	int			 s, dfd = -1;

	dir = run_dir(name);
	if (strlen(dir) + sizeof "/ctl.sock" > sizeof sa.sun_path) {
		/* Long checkout paths: connect through the directory's fd
		 * (no chdir: the process's directory stays as it is). */
		if ((dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
			fatal("%s", dir);
		snprintf(sa.sun_path, sizeof sa.sun_path, "/proc/self/fd/%d/ctl.sock",
		    dfd);
	} else
		snprintf(sa.sun_path, sizeof sa.sun_path, "%s/ctl.sock", dir);
	s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (s < 0 || connect(s, (struct sockaddr *)&sa, sizeof sa) < 0) {
		warnmsg("guest %s: cannot reach its supervisor (%s/ctl.sock): %s",
		    name, dir, strerror(errno));
		if (s >= 0)
			close(s);
		s = -1;
	}
	if (dfd >= 0)
		close(dfd);
	free(dir);
	return s;
}

/* Send fields, return the reply text; *rfd gets a passed fd or -1. */
char *
ctl_call(const char *name, const char *const fields[], const int *fds,
    int nfds, int *rfd)
{
	char	*msg, *reply;
	size_t	 len = 0, n;
	int	 s, i, got[4], ngot = 0;

	if ((s = ctl_connect(name)) < 0)
		return NULL;
	msg = xmalloc(CTL_MSG_MAX + 1);
	for (i = 0; fields[i] != NULL; i++) {
		n = strlen(fields[i]) + 1;
		if (len + n > CTL_MSG_MAX)
			fatalx("command line too long for the control socket");
		memcpy(msg + len, fields[i], n);
		len += n;
	}
	reply = NULL;
	if (ctl_send(s, msg, len, fds, nfds) == 0 &&
	    ctl_recv(s, msg, got, &ngot) > 0)
		reply = xstrdup(msg);
	else
		warnmsg("guest %s: no answer from its supervisor", name);
	for (i = 0; i < ngot; i++) {
		if (rfd != NULL && i == 0)
			*rfd = got[0];
		else
			close(got[i]);
	}
	free(msg);
	close(s);
	return reply;
}

/* exec over the control socket, with our stdout and stderr. */
int
ctl_exec(const char *name, char *const argv[], int timeout_s, int *status)
{
	return ctl_exec_fds(name, argv, timeout_s, 1, 2, status);
}

/* exec over the control socket, output to out_fd and err_fd. */
int
ctl_exec_fds(const char *name, char *const argv[], int timeout_s, int out_fd,
    int err_fd, int *status)
{
	return ctl_exec_io(name, argv, timeout_s, -1, out_fd, err_fd, status);
}

/* exec over the control socket, stdin from in_fd unless it is -1. */
int
ctl_exec_io(const char *name, char *const argv[], int timeout_s, int in_fd,
    int out_fd, int err_fd, int *status)
{
	const char	**f;
	char		  t[16], *r;
	int		  i, n, fds[3] = { out_fd, err_fd, in_fd }, rc = -1;

	for (n = 0; argv[n] != NULL; n++)
		;
	f = xcalloc(n + 3, sizeof *f);
	snprintf(t, sizeof t, "%d", timeout_s);
	f[0] = "exec";
	f[1] = t;
	for (i = 0; i < n; i++)
		f[i + 2] = argv[i];
	r = ctl_call(name, f, fds, in_fd >= 0 ? 3 : 2, NULL);
	free(f);
	if (r == NULL)
		return -1;
	if (sscanf(r, "status %d", status) == 1)
		rc = 0;
	else
		warnmsg("guest %s: %s", name, strncmp(r, "error ", 6) == 0 ? r + 6 : r);
	free(r);
	return rc;
}

/* Value of key in "key=value" lines, copied into out. */
const char *
ctl_field(const char *text, const char *key, char *out, size_t size)
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

/* Stop guest name: ask its supervisor, force it if it does not go. */
int
ctl_stop(const char *name)
{
	const char	*f[] = { "stop", NULL };
	char		*r, *dir, *pidf, *t;
	long long	 until;
	long		 pid;
	int		 rc = 0;

	dir = run_dir(name);
	if (!run_alive(name)) {
		if (access(dir, F_OK) == 0) {
			warnmsg("guest %s was stale; cleaned up", name);
			run_remove(name);
		} else
			rc = -1;
		free(dir);
		return rc;
	}
	r = ctl_call(name, f, NULL, 0, NULL);
	free(r);
	/* Wait for the supervisor to remove run/NAME; force it if not. */
	until = now_ms() + 8000;
	while (access(dir, F_OK) == 0 && now_ms() < until)
		usleep(20000);
	if (access(dir, F_OK) == 0) {
		warnmsg("guest %s: supervisor did not stop; killing it", name);
		pidf = xasprintf("%s/pid", dir);
		if ((t = read_text(pidf)) != NULL) {
			pid = strtol(t, NULL, 10);
			if (pid > 1)
				kill(pid, SIGKILL);
			free(t);
		}
		free(pidf);
		run_remove(name);
	}
	free(dir);
	return 0;
}

/* A running guest's state, UML pid, kernel and variant (ctl.h). */
void
ctl_running(const char *name, const char *what, struct ctl_guest *g)
{
	const char	*f[] = { "info", NULL };
	char		*r, pid[32];

	if ((r = ctl_call(name, f, NULL, 0, NULL)) == NULL || strncmp(r, "ok", 2) != 0)
		fatalx("guest %s: no answer from its supervisor", name);
	ctl_field(r, "state", g->state, sizeof g->state);
	ctl_field(r, "uml_pid", pid, sizeof pid);
	ctl_field(r, "kernel", g->kernel, sizeof g->kernel);
	ctl_field(r, "variant", g->variant, sizeof g->variant);
	free(r);
	if (strcmp(g->state, "running") != 0)
		fatalx("guest %s is %s: nothing to %s (umkit stop %s)", name,
		    g->state, what, name);
	if ((g->uml_pid = strtol(pid, NULL, 10)) <= 1)
		fatalx("guest %s: its supervisor knows no UML process", name);
}
