/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ctl.h - the control socket of a named guest (run/NAME/ctl.sock).
 *
 * A SOCK_SEQPACKET unix socket served by the guest's supervisor process.
 * A request is one message: NUL-separated fields, the first naming the
 * request; file descriptors travel as SCM_RIGHTS.  A reply is one message:
 * "ok [TEXT]", "status N" or "error TEXT".
 *
 *   exec TIMEOUT ARG0 ARG1 ...  (+ fds: stdout, stderr[, stdin])
 *                    -> status N; without a stdin fd the command's stdin
 *                       is /dev/null; a client that hangs up before the
 *                       reply has the command killed
 *   trace PATH       -> ok, then one message per chunk of PATH (a tracefs
 *                       pipe) until the client hangs up
 *   console                                   -> ok (+ fd: pty master)
 *   info                                      -> ok key=value lines
 *   stop                                      -> ok, then it shuts down
 */
#ifndef UMKIT_CTL_H
#define UMKIT_CTL_H

#include <stddef.h>
#include <sys/types.h>

#define CTL_MSG_MAX	65536
/* How long a send may wait for a client that does not read. */
#define CTL_SEND_MS	2000

/*
 * Send one message with up to 4 fds; 0 or -1 (a peer that has not made
 * room within CTL_SEND_MS: ETIMEDOUT-like EAGAIN, and it is dropped).
 */
int	ctl_send(int sock, const void *buf, size_t len, const int *fds, int nfds);
/*
 * Receive one message (NUL-terminated in buf, which holds CTL_MSG_MAX+1)
 * and up to 4 fds; returns its length, 0 on EOF, -1 on error.
 */
ssize_t	ctl_recv(int sock, char *buf, int *fds, int *nfds);

/* Whether the peer of a control connection is this user or root. */
int	ctl_peer_ok(int fd);
/* Connect to run/NAME/ctl.sock; -1 with a message printed on failure. */
int	ctl_connect(const char *name);
/* Send a request of NUL-separated fields and return the reply (allocated). */
char	*ctl_call(const char *name, const char *const fields[], const int *fds,
	    int nfds, int *rfd);
/* Run argv in guest NAME with our stdout/stderr; 0 and *status, or -1. */
int	ctl_exec(const char *name, char *const argv[], int timeout_s, int *status);
/* The same with the command's stdout and stderr going to out_fd, err_fd. */
int	ctl_exec_fds(const char *name, char *const argv[], int timeout_s,
	    int out_fd, int err_fd, int *status);
/* The same with stdin read from in_fd (-1: /dev/null). */
int	ctl_exec_io(const char *name, char *const argv[], int timeout_s,
	    int in_fd, int out_fd, int err_fd, int *status);

/*
 * Stop guest name: ask its supervisor to stop (it kills the UML
 * processes, unmounts the mirror, removes run/NAME), wait up to 8 s, then
 * kill it and clean up; a stale run/NAME is cleaned up (said).  0, or -1
 * when there is no guest of that name.
 */
int	ctl_stop(const char *name);

/* A request as the supervisor reads it (ctl-req.c). */
enum ctl_req_kind {
	CTL_REQ_BAD, CTL_REQ_EXEC, CTL_REQ_TRACE, CTL_REQ_CONSOLE, CTL_REQ_INFO,
	CTL_REQ_STOP
};
struct ctl_req {
	enum ctl_req_kind kind;
	char		**argv;		/* exec: the fields after "exec" (allocated,
					   pointing into the buffer), argc of them */
	int		  argc;
	const char	 *arg;		/* trace: the path */
	const char	 *why;		/* CTL_REQ_BAD: what is wrong */
};
/*
 * Read the request of len bytes in buf (CTL_MSG_MAX + 1 bytes; made
 * NUL-terminated at len) that came with nfds descriptors.  The caller
 * frees r->argv.
 */
void	ctl_parse_request(char *buf, size_t len, int nfds, struct ctl_req *r);

/* What a running guest's supervisor says of it (ctl_running). */
struct ctl_guest {
	char	state[32];
	long	uml_pid;	/* UML's main process */
	char	kernel[4096];	/* the kernel binary */
	char	variant[256];
};

/*
 * Ask guest name's supervisor what it runs; exits with one line when the
 * guest is not there, does not answer, is not running ("nothing to
 * <what>") or has no UML process.
 */
void	ctl_running(const char *name, const char *what, struct ctl_guest *g);

/* The value of key in an info reply's key=value lines, copied into out
 * ("-" when absent); returns out. */
const char *ctl_field(const char *text, const char *key, char *out,
	    size_t size);

#endif
