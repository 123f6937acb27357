/* SPDX-License-Identifier: GPL-2.0-only */
/* run.c - run/NAME directories: create, check, clean up stale ones. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "guest.h"
#include "link/mirror.h"
#include "rundir.h"
#include "util.h"

/* Guest names become paths and umids: keep them plain. */
int
run_name_ok(const char *name)
{
	size_t	i, n = strlen(name);

	if (n == 0 || n > 32 || strcmp(name, "log") == 0)
		return -1;
	for (i = 0; i < n; i++) {
		if (!(name[i] >= 'a' && name[i] <= 'z') &&
		    !(name[i] >= 'A' && name[i] <= 'Z') &&
		    !(name[i] >= '0' && name[i] <= '9') &&
		    name[i] != '-' && name[i] != '_')
			return -1;
	}
	return 0;
}

/*
 * A private directory (0700) of the user's, made if missing; one made
 * before with other modes is made private.  Exits when it is another
 * user's.
 */
static void
private_dir(const char *path)
{
	struct stat	sb;

	if (mkdir_p(path, 0700) < 0 || stat(path, &sb) < 0)
		fatal("cannot create %s", path);
	if (sb.st_uid != geteuid())
		fatalx("%s belongs to another user (uid %u): not using it", path,
		    (unsigned)sb.st_uid);
	if ((sb.st_mode & 077) != 0 && chmod(path, 0700) < 0)
		fatal("chmod 0700 %s", path);
}

/*
 * The run directory, made if missing: private to the user (0700), in a
 * checkout as in an install: its guests' consoles and control sockets
 * are theirs alone.
 */
const char *
run_top(void)
{
	private_dir(kit()->run);
	return kit()->run;
}

/* run/NAME. */
char *
run_dir(const char *name)
{
	return xasprintf("%s/%s", kit()->run, name);
}

/* run/NAME/mnt. */
char *
run_mnt(const char *name)
{
	return xasprintf("%s/%s/mnt", kit()->run, name);
}

/* The console log directory, made if missing. */
const char *
run_log_dir(void)
{
	private_dir(kit()->logs);
	return kit()->logs;
}

/* run/log/NAME.log, making run/log. */
char *
run_log(const char *name)
{
	return xasprintf("%s/%s.log", run_log_dir(), name);
}

/* A path below run/ as messages show it. */
char *
run_shown(const char *rel)
{
	char	*r, *p;
	size_t	 n = strlen(kit()->top);

	/* A checkout's own run/ is shown short; any other in full. */
	if (!kit()->installed && strncmp(kit()->run, kit()->top, n) == 0 &&
	    strcmp(kit()->run + n, "/run") == 0)
		return xasprintf("run/%s", rel);
	r = xasprintf("run/%s", rel);
	p = top_path(r);
	free(r);
	return p;
}

/* Make run/NAME with its pid file, unless a live guest owns the name. */
int
run_create(const char *name, pid_t owner)
{
	char	*dir, *pidf, *tmp;
	FILE	*f;

	run_top();
	if (run_alive(name)) {
		errno = EEXIST;
		return -1;
	}
	run_remove(name);
	dir = run_dir(name);
	if (mkdir(dir, 0700) < 0) {
		free(dir);
		return -1;
	}
	/*
	 * Written aside and renamed: another umkit's run_cleanup_stale()
	 * must never read a pid file half written (empty, it would take
	 * the directory for a dead guest's and remove it under us).
	 */
	tmp = xasprintf("%s/pid.tmp", dir);
	pidf = xasprintf("%s/pid", dir);
	if ((f = fopen(tmp, "w")) == NULL)
		fatal("%s", tmp);
	fprintf(f, "%d %llu\n", (int)owner, proc_starttime(owner));
	if (fclose(f) != 0 || rename(tmp, pidf) < 0)
		fatal("%s", pidf);
	free(tmp);
	free(pidf);
	free(dir);
	return 0;
}

/* Is the process named in run/NAME/pid the one that wrote it? */
int
run_alive(const char *name)
{
	char			*dir, *pidf, *s;
	long			 pid = 0;
	unsigned long long	 st = 0;
	int			 alive = 0;

	dir = run_dir(name);
	pidf = xasprintf("%s/pid", dir);
	if ((s = read_text(pidf)) != NULL) {
		if (sscanf(s, "%ld %llu", &pid, &st) == 2 && pid > 1)
			alive = proc_starttime(pid) == st;
		free(s);
	} else if (access(dir, F_OK) == 0) {
		/* Being created right now: no pid file for a moment. */
		struct stat	sb;

		alive = stat(dir, &sb) == 0 && sb.st_mtime + 5 > time(NULL);
	}
	free(pidf);
	free(dir);
	return alive;
}

/* Kill, unmount and delete what run/NAME describes. */
void
run_remove(const char *name)
{
	char	*dir, *p;

	dir = run_dir(name);
	if (access(dir, F_OK) < 0) {
		free(dir);
		return;
	}
	p = xasprintf("%s/guest.pid", dir);
	guest_kill_pidfile(p);
	free(p);
	p = run_mnt(name);
	if (mirror_cleanup_stale(p) < 0)
		warnmsg("cannot unmount %s", p);
	free(p);
	if (rm_tree(dir) < 0)
		warnmsg("cannot remove %s: %s", dir, strerror(errno));
	free(dir);
}

/* Whether run/NAME is a guest's: a name run_create() takes, its pid file. */
static int
run_is_guest(const char *name)
{
	char		*pidf;
	struct stat	 sb;
	int		 yes;

	if (run_name_ok(name) < 0)
		return 0;
	pidf = xasprintf("%s/%s/pid", kit()->run, name);
	yes = lstat(pidf, &sb) == 0 && S_ISREG(sb.st_mode);
	free(pidf);
	return yes;
}

/*
 * Clean every run/NAME whose owner died without cleaning up.  Only what
 * run_create() made: an entry without its pid file is left alone (a
 * directory made a moment ago has none yet; run_create() of the same
 * name clears one left by a crash in between).
 */
int
run_cleanup_stale(int verbose)
{
	const char	*top = kit()->run;
	DIR		*d;
	struct dirent	*de;
	int		 n = 0;

	if ((d = opendir(top)) == NULL)
		return 0;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' || strcmp(de->d_name, "log") == 0)
			continue;
		if (!run_is_guest(de->d_name) || run_alive(de->d_name))
			continue;
		if (verbose)
			warnmsg("cleaning up stale guest %s", de->d_name);
		run_remove(de->d_name);
		n++;
	}
	closedir(d);
	return n;
}
