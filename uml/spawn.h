/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * spawn.h - the one way the kit runs another program.
 *
 * A program is an argv, never a shell string: nothing a patch, a lab
 * file or a guest wrote can become a command.  Its descriptors are ours,
 * /dev/null, a file, or (stdout) a buffer; an optional deadline ends it
 * (SIGTERM, then SIGKILL); a tick callback runs while it does; SIGINT,
 * SIGTERM and SIGHUP that reach us while we wait are passed on to it (so
 * its own cleanup runs: umkit exec kills its guest, kbuild.sh removes its
 * half-made tree), and a child started from the main thread gets SIGTERM
 * when we die.
 *
 * Statuses are as a shell reports them: the exit status, 127 the program
 * was not found, 128+N a signal; 128+N too when we got signal N while
 * waiting; SPAWN_TIMEOUT when the deadline ended it.
 */
#ifndef UMKIT_SPAWN_H
#define UMKIT_SPAWN_H

#include <stddef.h>
#include <sys/types.h>

/* A child's descriptor: one of ours, or one of these. */
#define SPAWN_KEEP	(-1)	/* as ours */
#define SPAWN_NULL	(-2)	/* /dev/null */
#define SPAWN_CAPTURE	(-3)	/* stdout only: into output */
#define SPAWN_TO_OUT	(-4)	/* stderr only: where stdout goes */

/* The status of a child the deadline ended (as timeout(1)'s). */
#define SPAWN_TIMEOUT	124

struct spawn {
	/* What to run. */
	char *const	 *argv;		/* argv[0]: a path, or a name in PATH */
	char *const	 *env;		/* NAME=VALUE set for it (NULL-ended), or NULL */
	const char	 *dir;		/* its working directory, or NULL */
	/* Its descriptors 0, 1, 2: an fd of ours or a SPAWN_* above. */
	int		  in, out, err;
	const char	 *out_file;	/* stdout into this file (made 0600,
					   truncated) instead of out */
	int		  fd3;		/* passed on as its fd 3, or -1 */
	size_t		  max;		/* SPAWN_CAPTURE: at most this many
					   bytes (more: dropped, overflow set) */
	/* While it runs. */
	int		  timeout_ms;	/* 0: none */
	void		(*tick)(void *);/* every 300 ms, or NULL */
	void		 *arg;
	void		(*child)(void *);/* in the child, before exec, or NULL */
	/* Filled in. */
	pid_t		  pid;
	char		 *output;	/* SPAWN_CAPTURE: NUL-terminated */
	size_t		  len;
	int		  timed_out;
	int		  overflow;	/* it wrote more than max */
	int		  cap_fd;	/* the capture pipe (internal) */
};

/* A request for argv with everything as ours (SPAWN_KEEP, no deadline). */
void	spawn_init(struct spawn *, char *const argv[]);
/* Start it; its pid (also in sp->pid).  Exits when fork fails. */
pid_t	spawn_start(struct spawn *);
/* Wait for a started child (ticking, capturing, timing out); its status. */
int	spawn_wait(struct spawn *);
/* spawn_start and spawn_wait. */
int	spawn_run(struct spawn *);
/*
 * Wait for n started children at once, passing the stop signals on to
 * all of them; each one's status in rc[i].  128+N when we got signal N
 * meanwhile, else 0.
 */
int	spawn_wait_all(struct spawn *v, int n, int *rc);
/* Free what a finished spawn holds (its output). */
void	spawn_free(struct spawn *);

/* Whether name is a program spawn can run: a path, or a name in $PATH. */
int	spawn_findable(const char *name);
/* The file that would run for name (allocated), or NULL. */
char	*spawn_which(const char *name);

/*
 * Run argv and return its stdout (NUL-terminated, its length in *len
 * unless NULL), its stderr ours or /dev/null when quiet, in directory
 * dir (NULL: here); *status gets its status.  NULL (errno EFBIG) when it
 * wrote more than max bytes.
 */
char	*spawn_output(char *const argv[], const char *dir, int quiet, size_t max,
	    size_t *len, int *status);

#endif
