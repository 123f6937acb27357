/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The mirror end to end without UML: the agent built for the host
 * (build/tests/umkit-agent) serves the host's own /proc and /sys over a
 * socketpair, and the mirror is mounted on a temporary directory.
 *
 * Checks: the root holds proc and sys only; vmstat keys equal the host's;
 * writes off the allowlist fail with EACCES and change nothing; writes on
 * it reach the "guest" and carry its errno; path escapes and symlinks
 * expose no host file; a rewound fd reads fresh content; offset reads of
 * /proc/kpageflags; 8 concurrent readers get whole files; a hung agent
 * holds up no read of content already fetched; a hung agent
 * and a dead agent make reads fail with EIO within the link timeout; stop
 * leaves no mount even with a reader holding a file open; a stale mount
 * left by a crashed process is cleaned.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "link/link.h"
#include "link/mirror.h"
#include "util.h"

#ifndef AGENT
#error AGENT must name the host build of umkit-agent
#endif

/* The fixture: one agent, one link, one mirror. */
static struct {
	char		*tmp;		/* temp directory */
	char		*mnt;		/* tmp/mnt */
	char		*allow;		/* tmp/allow.conf */
	pid_t		 agent;
	struct link	*link;
	struct mirror	*mirror;
} F;

/* mnt-relative path, allocated. */
static char *
M(const char *fmt, ...)
{
	va_list	 ap;
	char	*rel, *p;

	va_start(ap, fmt);
	if (vasprintf(&rel, fmt, ap) < 0)
		abort();
	va_end(ap);
	p = xasprintf("%s/%s", F.mnt, rel);
	free(rel);
	return p;
}

/* Read a whole file; NULL with errno set on failure. */
static char *
slurp(const char *path, size_t *lenp)
{
	char	*buf = NULL;
	size_t	 len = 0, cap = 0;
	ssize_t	 n;
	int	 fd = open(path, O_RDONLY), e;

	if (fd == -1)
		return NULL;
	for (;;) {
		if (cap - len < 65536)
			buf = xrealloc(buf, cap = cap * 2 + 65536);
		n = read(fd, buf + len, cap - len - 1);
		if (n <= 0)
			break;
		len += n;
	}
	e = errno;
	close(fd);
	if (n < 0) {
		free(buf);
		errno = e;
		return NULL;
	}
	buf[len] = '\0';
	if (lenp != NULL)
		*lenp = len;
	return buf;
}

/* Whether path is a mount point now. */
static int
mounted(const char *path)
{
	char	*mi = slurp("/proc/self/mountinfo", NULL);
	char	*needle = xasprintf(" %s ", path);
	int	 r = mi != NULL && strstr(mi, needle) != NULL;

	free(mi);
	free(needle);
	return r;
}

/* Start the host agent on one end of a socketpair; returns the other. */
static pid_t
spawn_agent(int *fdp)
{
	int	sv[2];
	pid_t	pid;
	char	num[16];

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0,
	    sv), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int	fd = dup(sv[1]);	/* without CLOEXEC */

		snprintf(num, sizeof num, "%d", fd);
		execl(AGENT, "umkit-agent", "--fd", num, (char *)NULL);
		_exit(127);
	}
	close(sv[1]);
	*fdp = sv[0];
	return pid;
}

/* Mount a mirror on the host agent. */
static int
setup(void **st)
{
	FILE	*f;
	int	 fd;

	F.tmp = xstrdup("/tmp/umkit-mirror-XXXXXX");
	assert_non_null(mkdtemp(F.tmp));
	F.mnt = xasprintf("%s/mnt", F.tmp);
	F.allow = xasprintf("%s/allow.conf", F.tmp);
	assert_int_equal(mkdir(F.mnt, 0755), 0);
	f = fopen(F.allow, "w");
	assert_non_null(f);
	fprintf(f, "# test allowlist: harmless files of the agent itself\n"
	    "/proc/[0-9]*/oom_score_adj\n/proc/[0-9]*/comm\n");
	fclose(f);
	setenv("MNT", F.mnt, 1);
	F.agent = spawn_agent(&fd);
	F.link = link_open(fd, stderr);
	assert_int_equal(link_hello(F.link, 2000), 0);
	F.mirror = mirror_start(F.link, F.mnt, F.allow, stderr);
	assert_non_null(F.mirror);
	assert_true(mounted(F.mnt));
	(void)st;
	return 0;
}

/* Stop everything (the last tests already did most of it). */
static int
teardown(void **st)
{
	char	*cmd;

	mirror_stop(F.mirror);
	if (F.link != NULL)
		link_close(F.link);
	if (F.agent > 0) {
		kill(F.agent, SIGKILL);
		waitpid(F.agent, NULL, 0);
	}
	cmd = xasprintf("rm -rf '%s'", F.tmp);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", F.tmp);
	free(cmd);
	(void)st;
	return 0;
}

/* A guest directory shows at most the mirror's cap of entries. */
static void
test_dir_cap(void **st)
{
	DIR		*d;
	struct dirent	*de;
	char		*p = M("proc/self");
	int		 n = 0;

	mirror_set_dir_max(F.mirror, 5);
	assert_non_null(d = opendir(p));
	while ((de = readdir(d)) != NULL)
		n++;
	closedir(d);
	assert_int_equal(n, 5 + 2);	/* and . and .. */
	mirror_set_dir_max(F.mirror, MIRROR_DIR_MAX);
	assert_non_null(d = opendir(p));
	n = 0;
	while ((de = readdir(d)) != NULL)
		n++;
	closedir(d);
	assert_true(n > 7);
	free(p);
	(void)st;
}

/* The root holds exactly proc and sys. */
static void
test_root(void **st)
{
	DIR		*d = opendir(F.mnt);
	struct dirent	*e;
	struct stat	 sb;
	char		*p, names[256] = "";

	assert_non_null(d);
	while ((e = readdir(d)) != NULL) {
		strcat(names, e->d_name);
		strcat(names, " ");
	}
	closedir(d);
	assert_string_equal(names, ". .. proc sys ");
	p = M("etc");
	assert_int_equal(stat(p, &sb), -1);
	assert_int_equal(errno, ENOENT);
	free(p);
	p = M("sys/kernel");
	assert_int_equal(stat(p, &sb), 0);
	assert_true(S_ISDIR(sb.st_mode));
	free(p);
	(void)st;
}

/* Append the first word of every line of text to keys. */
static void
first_words(const char *text, char *keys, size_t size)
{
	const char	*l, *sp;

	keys[0] = '\0';
	for (l = text; *l != '\0'; l = strchrnul(l, '\n') + (*strchrnul(l,
	    '\n') != '\0')) {
		sp = l + strcspn(l, " \n");
		if ((size_t)(sp - l) + strlen(keys) + 2 > size)
			fail_msg("too many keys");
		strncat(keys, l, sp - l);
		strcat(keys, "\n");
	}
}

/* /proc/vmstat through the mirror has the host's keys, in order. */
static void
test_vmstat_keys(void **st)
{
	static char	 a[16384], b[16384];
	char		*p = M("proc/vmstat"), *mine, *host;

	mine = slurp(p, NULL);
	host = slurp("/proc/vmstat", NULL);
	assert_non_null(mine);
	assert_non_null(host);
	first_words(mine, a, sizeof a);
	first_words(host, b, sizeof b);
	assert_true(strlen(a) > 100);
	assert_string_equal(a, b);
	free(mine);
	free(host);
	free(p);
	(void)st;
}

/* Writes off the allowlist fail with EACCES and change nothing. */
static void
test_write_denied(void **st)
{
	char		*p = M("proc/sys/vm/swappiness"), *before, *after, *q;
	struct stat	 sb;
	int		 fd;

	before = slurp("/proc/sys/vm/swappiness", NULL);
	assert_non_null(before);
	errno = 0;
	assert_int_equal(open(p, O_WRONLY | O_TRUNC), -1);
	assert_int_equal(errno, EACCES);
	assert_int_equal(open(p, O_RDWR), -1);
	assert_int_equal(errno, EACCES);
	assert_int_equal(truncate(p, 0), -1);
	assert_int_equal(errno, EACCES);
	assert_int_equal(chmod(p, 0666), -1);
	assert_int_equal(errno, EACCES);
	assert_int_equal(access(p, W_OK), -1);
	assert_int_equal(errno, EACCES);
	assert_int_equal(access(p, R_OK), 0);
	assert_int_equal(stat(p, &sb), 0);
	assert_int_equal(sb.st_mode & 0222, 0);	/* shown read-only */
	assert_int_not_equal(system("echo 1 2>/dev/null > \"$MNT\"/proc/sys/"
	    "vm/swappiness"), 0);
	after = slurp("/proc/sys/vm/swappiness", NULL);
	assert_string_equal(before, after);
	free(before);
	free(after);
	/* No creating, removing or renaming anything. */
	q = M("proc/newfile");
	fd = open(q, O_WRONLY | O_CREAT, 0644);
	assert_int_equal(fd, -1);
	assert_int_equal(errno, EACCES);
	free(q);
	q = M("sys/newdir");
	assert_int_equal(mkdir(q, 0755), -1);
	assert_int_equal(errno, EACCES);
	free(q);
	q = M("proc/sys/vm/swappiness2");
	assert_int_equal(rename(p, q), -1);
	assert_int_equal(errno, EACCES);
	assert_int_equal(unlink(p), -1);
	assert_int_equal(errno, EACCES);
	free(q);
	free(p);
	(void)st;
}

/* Allowlisted writes reach the guest; its errno comes back on write. */
static void
test_write_allowed(void **st)
{
	char		*p = M("proc/%d/oom_score_adj", (int)F.agent);
	char		*host = xasprintf("/proc/%d/oom_score_adj", (int)F.agent);
	char		*v, *cmd;
	struct stat	 sb;
	int		 fd;

	assert_int_equal(stat(p, &sb), 0);
	assert_int_not_equal(sb.st_mode & 0200, 0);
	fd = open(p, O_WRONLY | O_TRUNC);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "5\n", 2), 2);
	errno = 0;
	assert_int_equal(write(fd, "abc\n", 4), -1);
	assert_int_equal(errno, EINVAL);	/* the kernel's own errno */
	assert_int_equal(close(fd), 0);
	v = slurp(host, NULL);
	assert_string_equal(v, "5\n");
	free(v);
	/* The shell way, as a lab step does it. */
	cmd = xasprintf("echo 7 > '%s'", p);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	v = slurp(host, NULL);
	assert_string_equal(v, "7\n");
	free(v);
	cmd = xasprintf("echo bad 2>/dev/null > '%s'", p);
	assert_int_not_equal(system(cmd), 0);
	free(cmd);
	v = slurp(p, NULL);		/* read back through the mirror */
	assert_string_equal(v, "7\n");
	free(v);
	free(host);
	free(p);
	(void)st;
}

/* Whether a resolved path is inside the mount. */
static int
inside(const char *real)
{
	size_t	n = strlen(F.mnt);

	return strncmp(real, F.mnt, n) == 0 && (real[n] == '\0' ||
	    real[n] == '/');
}

/* Follow every symlink in dir: none may resolve outside the mount. */
static int
links_stay_inside(const char *dir)
{
	DIR		*d = opendir(dir);
	struct dirent	*e;
	char		*p, *real;
	int		 n = 0;

	assert_non_null(d);
	while ((e = readdir(d)) != NULL) {
		if (e->d_type != DT_LNK)
			continue;
		p = xasprintf("%s/%s", dir, e->d_name);
		if ((real = realpath(p, NULL)) != NULL) {
			if (!inside(real))
				fail_msg("%s resolves to host path %s", p, real);
			free(real);
		}
		free(p);
		n++;
	}
	closedir(d);
	return n;
}

/* Neither "..", nor guest symlinks, reach a host file. */
static void
test_escapes(void **st)
{
	char		*p, buf[PATH_MAX], *want;
	struct stat	 sb;
	ssize_t		 n;

	assert_int_equal(stat("/etc/passwd", &sb), 0);	/* on the host */
	p = M("proc/../../etc/passwd");
	assert_int_equal(open(p, O_RDONLY), -1);
	assert_int_equal(errno, ENOENT);
	free(p);
	p = M("proc/../etc/passwd");
	assert_int_equal(open(p, O_RDONLY), -1);
	assert_int_equal(errno, ENOENT);
	free(p);
	/* /proc/self is the agent: relative target, verbatim. */
	p = M("proc/self");
	n = readlink(p, buf, sizeof buf - 1);
	assert_true(n > 0);
	buf[n] = '\0';
	want = xasprintf("%d", (int)F.agent);
	assert_string_equal(buf, want);
	free(want);
	free(p);
	/* root -> "/" is the guest's root: the mount's own root. */
	p = M("proc/%d/root", (int)F.agent);
	n = readlink(p, buf, sizeof buf - 1);
	assert_true(n > 0);
	buf[n] = '\0';
	assert_string_equal(buf, "../..");
	free(p);
	p = M("proc/%d/root/etc/passwd", (int)F.agent);
	assert_int_equal(open(p, O_RDONLY), -1);
	assert_int_equal(errno, ENOENT);
	free(p);
	p = M("proc/self/root/proc/vmstat");
	assert_int_equal(stat(p, &sb), 0);	/* the guest's, via the mount */
	free(p);
	/* exe -> the agent binary's guest path, not the host file. */
	p = M("proc/%d/exe", (int)F.agent);
	n = readlink(p, buf, sizeof buf - 1);
	assert_true(n > 0);
	buf[n] = '\0';
	assert_true(strncmp(buf, "../../", 6) == 0);
	assert_int_equal(open(p, O_RDONLY), -1);
	assert_int_equal(errno, ENOENT);
	free(p);
	p = M("proc/%d", (int)F.agent);
	assert_true(links_stay_inside(p) >= 3);	/* cwd, exe, root */
	free(p);
	p = M("proc/%d/fd", (int)F.agent);
	assert_true(links_stay_inside(p) >= 1);
	free(p);
	p = M("sys/class/net");
	assert_true(links_stay_inside(p) >= 1);	/* lo at least */
	free(p);
	(void)st;
}

/* A rewound fd reads fresh content (nothing is cached). */
static void
test_fresh(void **st)
{
	char	*p = M("proc/uptime"), a[128], b[128];
	int	 fd = open(p, O_RDONLY);
	ssize_t	 n;

	assert_true(fd >= 0);
	n = pread(fd, a, sizeof a - 1, 0);
	assert_true(n > 0);
	a[n] = '\0';
	usleep(50000);
	n = pread(fd, b, sizeof b - 1, 0);
	assert_true(n > 0);
	b[n] = '\0';
	assert_string_not_equal(a, b);
	close(fd);
	free(p);
	(void)st;
}

/* /proc/kpageflags (bigger than a whole read) works with offset reads. */
static void
test_kpageflags(void **st)
{
	char	*p = M("proc/kpageflags"), buf[65536];
	int	 fd;

	if (access("/proc/kpageflags", R_OK) != 0)
		skip();		/* not root on this host */
	fd = open(p, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(pread(fd, buf, sizeof buf, 0), (int)sizeof buf);
	assert_int_equal(pread(fd, buf, sizeof buf, 4 << 20),
	    (int)sizeof buf);	/* past the 1 MiB whole-read limit */
	assert_int_equal(pread(fd, buf, 8, 8 * 12345), 8);
	close(fd);
	free(p);
	(void)st;
}

/* One of 8 concurrent readers: whole, well-formed vmstat and zoneinfo. */
static void *
reader(void *arg)
{
	char	*v = M("proc/vmstat"), *z = M("proc/zoneinfo"), *t, *l;
	long	 want = (long)(intptr_t)arg, bad = 0, lines;
	size_t	 len;
	int	 i;

	for (i = 0; i < 40 && bad == 0; i++) {
		if ((t = slurp(v, &len)) == NULL) {
			bad = 1;
			break;
		}
		lines = 0;
		for (l = t; *l != '\0'; l = strchr(l, '\n') + 1) {
			char			name[64];
			unsigned long long	val;
			char			end;

			if (strchr(l, '\n') == NULL ||
			    sscanf(l, "%63s %llu%c", name, &val, &end) != 3 ||
			    end != '\n')
				bad = 2;
			if (bad)
				break;
			lines++;
		}
		if (lines != want)
			bad = 3;
		free(t);
		if (bad == 0 && ((t = slurp(z, &len)) == NULL ||
		    strncmp(t, "Node 0, zone", 12) != 0 || t[len - 1] != '\n'))
			bad = 4;
		free(t);
	}
	free(v);
	free(z);
	return (void *)bad;
}

/* 8 readers at once each get complete content every time. */
static void
test_concurrent(void **st)
{
	pthread_t	 th[8];
	char		*host = slurp("/proc/vmstat", NULL), *l;
	long		 lines = 0;
	void		*ret;
	int		 i;

	for (l = host; *l != '\0'; l = strchr(l, '\n') + 1)
		lines++;
	free(host);
	for (i = 0; i < 8; i++)
		pthread_create(&th[i], NULL, reader, (void *)(intptr_t)lines);
	for (i = 0; i < 8; i++) {
		pthread_join(th[i], &ret);
		if (ret != NULL)
			fail_msg("reader %d: failure kind %ld", i, (long)ret);
	}
	(void)st;
}

/* Time one open+read of vmstat; its errno (0 on success) in *err. */
static long long
timed_read(int *err)
{
	char		*p = M("proc/vmstat"), *t;
	long long	 t0 = now_ms();

	t = slurp(p, NULL);
	*err = t == NULL ? errno : 0;
	free(t);
	free(p);
	return now_ms() - t0;
}

/* A read of fd at offset 0 in a thread: the content is fetched again. */
static void *
refetch(void *arg)
{
	char	buf[64];

	return (void *)(intptr_t)pread(*(int *)arg, buf, sizeof buf, 0);
}

/* A read of fd past the start in a thread (served from the handle). */
static void *
read_on(void *arg)
{
	char	buf[64];

	return (void *)(intptr_t)pread(*(int *)arg, buf, sizeof buf, 8);
}

/*
 * While one request waits on a hung agent -- a rewound read fetching
 * again under its handle's lock, then a second read of that handle
 * waiting for the lock -- what the mirror already holds is still served
 * at once: the reading worker hands /dev/fuse on before it waits.
 */
static void
test_hung_quick(void **st)
{
	char		*p1 = M("proc/vmstat"), *p2 = M("proc/meminfo"), buf[64];
	int		 fd1 = open(p1, O_RDONLY), fd2 = open(p2, O_RDONLY);
	pthread_t	 t1, t2;
	long long	 t0, ms;
	ssize_t		 n;
	void		*r1, *r2;

	assert_true(fd1 >= 0 && fd2 >= 0);
	assert_true(read(fd1, buf, sizeof buf) > 0);	/* served: next 0 refetches */
	kill(F.agent, SIGSTOP);
	pthread_create(&t1, NULL, refetch, &fd1);
	usleep(100000);
	pthread_create(&t2, NULL, read_on, &fd1);
	usleep(100000);
	t0 = now_ms();
	n = read(fd2, buf, sizeof buf);		/* fetched at open */
	ms = now_ms() - t0;
	print_message("hung agent: a fetched file read in %lld ms\n", ms);
	pthread_join(t1, &r1);
	pthread_join(t2, &r2);
	kill(F.agent, SIGCONT);
	assert_true(n > 0);
	assert_true(ms < 500);			/* the link times out at 2 s */
	assert_true((intptr_t)r1 < 0);		/* the refetch: EIO */
	assert_true((intptr_t)r2 > 0);		/* after it, the old content */
	close(fd1);
	close(fd2);
	free(p1);
	free(p2);
	usleep(200000);
	(void)st;
}

/* A hung agent (SIGSTOP): reads fail with EIO within the link timeout. */
static void
test_hung_agent(void **st)
{
	long long	ms;
	int		err;

	kill(F.agent, SIGSTOP);
	ms = timed_read(&err);
	kill(F.agent, SIGCONT);
	assert_int_equal(err, EIO);
	print_message("hung agent: EIO after %lld ms\n", ms);
	assert_true(ms <= LINK_TIMEOUT_MS + 300);	/* 2 s + scheduling */
	usleep(200000);
	ms = timed_read(&err);		/* and back once it answers again */
	assert_int_equal(err, 0);
	(void)st;
}

/* State shared with the looping reader of test_dead_agent. */
static struct {
	volatile int	 stop;
	long long	 fail_at;	/* ms of the first failed read */
	int		 err;
	long		 reads;
} R;

/* Read vmstat in a loop until the first failure. */
static void *
loop_reader(void *arg)
{
	int	err;

	while (!R.stop) {
		timed_read(&err);
		if (err != 0) {
			R.fail_at = now_ms();
			R.err = err;
			break;
		}
		R.reads++;
	}
	return NULL;
}

/*
 * Kill the agent while a reader loops: EIO within 2 s; then stop the
 * mirror while another reader holds a file open: no mount is left and
 * the holder gets an error, not a hang.
 */
static void
test_dead_agent(void **st)
{
	pthread_t	 th;
	long long	 t0, t1;
	char		*p = M("proc/meminfo"), buf[64];
	int		 fd = open(p, O_RDONLY);

	assert_true(fd >= 0);
	pthread_create(&th, NULL, loop_reader, NULL);
	usleep(300000);
	t0 = now_ms();
	kill(F.agent, SIGKILL);
	waitpid(F.agent, NULL, 0);
	F.agent = 0;
	while (R.fail_at == 0 && now_ms() - t0 < 5000)
		usleep(10000);
	R.stop = 1;
	pthread_join(th, NULL);
	assert_true(R.reads > 0);
	assert_int_equal(R.err, EIO);
	print_message("dead agent: %ld reads before, EIO %lld ms after kill\n",
	    R.reads, R.fail_at - t0);
	assert_true(R.fail_at - t0 <= 2000);

	t1 = now_ms();
	mirror_stop(F.mirror);
	F.mirror = NULL;
	print_message("mirror_stop with an open file: %lld ms\n",
	    now_ms() - t1);
	assert_true(now_ms() - t1 < 3000);
	assert_false(mounted(F.mnt));
	assert_true(pread(fd, buf, sizeof buf, 1) < 0);	/* not a hang */
	close(fd);
	link_close(F.link);
	F.link = NULL;
	free(p);
	(void)st;
}

/* A mirror left mounted by a crashed process is cleaned by the next. */
static void
test_stale(void **st)
{
	char		*mnt2 = xasprintf("%s/mnt2", F.tmp);
	pid_t		 pid, agent = 0;
	int		 status, fd;
	struct stat	 sb;

	assert_int_equal(mkdir(mnt2, 0755), 0);
	assert_int_equal(mirror_cleanup_stale(mnt2), 0);	/* nothing */
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {		/* mount, then crash */
		struct link	*l;

		agent = spawn_agent(&fd);
		l = link_open(fd, stderr);
		if (link_hello(l, 2000) != 0 ||
		    mirror_start(l, mnt2, F.allow, stderr) == NULL)
			_exit(1);
		kill(agent, SIGKILL);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_true(mounted(mnt2));
	assert_int_equal(stat(mnt2, &sb), -1);		/* dead: ENOTCONN */
	assert_int_equal(errno, ENOTCONN);
	assert_int_equal(mirror_cleanup_stale(mnt2), 1);
	assert_false(mounted(mnt2));
	assert_int_equal(stat(mnt2, &sb), 0);
	assert_int_equal(mirror_cleanup_stale(mnt2), 0);
	free(mnt2);
	(void)st;
}

/* A bad allowlist stops the mount with FILE:LINE in the log. */
static void
test_bad_allowlist(void **st)
{
	char	*bad = xasprintf("%s/bad.conf", F.tmp);
	char	*mnt3 = xasprintf("%s/mnt3", F.tmp), msg[1024], *want;
	FILE	*f = fopen(bad, "w"), *log = tmpfile();
	size_t	 n;

	assert_non_null(f);
	fprintf(f, "/proc/sys/vm/swappiness\n/home/user/.bashrc\n");
	fclose(f);
	assert_int_equal(mkdir(mnt3, 0755), 0);
	assert_null(mirror_start(NULL, mnt3, bad, log));
	rewind(log);
	n = fread(msg, 1, sizeof msg - 1, log);
	msg[n] = '\0';
	fclose(log);
	want = xasprintf("%s:2: not a path below /proc or /sys", bad);
	if (strstr(msg, want) == NULL)
		fail_msg("log '%s' lacks '%s'", msg, want);
	assert_false(mounted(mnt3));
	free(want);
	free(bad);
	free(mnt3);
	(void)st;
}

/* Run the mirror-host tests. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_root),
		cmocka_unit_test(test_dir_cap),
		cmocka_unit_test(test_vmstat_keys),
		cmocka_unit_test(test_write_denied),
		cmocka_unit_test(test_write_allowed),
		cmocka_unit_test(test_escapes),
		cmocka_unit_test(test_fresh),
		cmocka_unit_test(test_kpageflags),
		cmocka_unit_test(test_concurrent),
		cmocka_unit_test(test_hung_quick),
		cmocka_unit_test(test_hung_agent),
		cmocka_unit_test(test_dead_agent),
		cmocka_unit_test(test_stale),
		cmocka_unit_test(test_bad_allowlist),
	};

	if (access("/dev/fuse", R_OK | W_OK) != 0) {
		printf("ok 1 - mirror-host # SKIP /dev/fuse is not usable here\n1..1\n");
		return 0;
	}
	return cmocka_run_group_tests_name("mirror-host", tests, setup,
	    teardown);
}
