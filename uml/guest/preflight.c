/* SPDX-License-Identifier: GPL-2.0-only */
/* preflight.c - host checks before a boot, and for umkit doctor (see
 * preflight.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/filter.h>
#include <linux/magic.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guest.h"
#include "preflight.h"
#include "rundir.h"
#include "sandbox.h"
#include "util.h"

/* Fill a result. */
static void __attribute__((format(printf, 3, 4)))
pf_set(struct pf_result *r, enum pf_level level, const char *fmt, ...)
{
	va_list	ap;

	r->level = level;
	va_start(ap, fmt);
	vsnprintf(r->what, sizeof r->what, fmt, ap);
	va_end(ap);
	r->fix[0] = '\0';
}

/* Whether dir is on a tmpfs. */
static int
on_tmpfs(const char *dir)
{
	struct statfs	st;

	return statfs(dir, &st) == 0 && st.f_type == TMPFS_MAGIC;
}

/*
 * The directory UML 7.2 takes for its memory file (arch/um/os-Linux/
 * mem.c, choose_tempdir): the first of $TMPDIR, $TMP, $TEMP that is set,
 * else /dev/shm or /tmp when on tmpfs, else /tmp.  label says where it
 * came from.
 */
static const char *
uml_tmpdir(char *label, size_t size)
{
	static const char *const vars[] = { "TMPDIR", "TMP", "TEMP", NULL };
	const char	*d;
	int		 i;

	for (i = 0; vars[i] != NULL; i++) {
		if ((d = getenv(vars[i])) != NULL && *d != '\0') {
			snprintf(label, size, "$%s=%s", vars[i], d);
			return d;
		}
	}
	d = on_tmpfs("/dev/shm") ? "/dev/shm" : "/tmp";
	snprintf(label, size, "%s", d);
	return d;
}

/*
 * What keeps dir from holding a guest's memory file of mem_mb MiB: a
 * file cannot be made there, it cannot be mapped executable, or there is
 * no room.  0 when it is fine (with the free space in *free_mb).
 */
static int
tmp_problem(const char *dir, long mem_mb, long long *free_mb, char *why,
    size_t size)
{
	struct statvfs	 sv;
	char		*tmpl;
	void		*p;
	int		 fd, e;

	fd = open(dir, O_RDWR | O_EXCL | O_TMPFILE | O_CLOEXEC, 0700);
	if (fd < 0 && (errno == EINVAL || errno == EISDIR ||
	    errno == EOPNOTSUPP)) {
		tmpl = xasprintf("%s/umkit-check-XXXXXX", dir);
		if ((fd = mkostemp(tmpl, O_CLOEXEC)) >= 0)
			unlink(tmpl);
		free(tmpl);
	}
	if (fd < 0) {
		snprintf(why, size, "cannot make a file there: %s",
		    strerror(errno));
		return -1;
	}
	if (ftruncate(fd, 4096) < 0) {
		snprintf(why, size, "cannot size a file there: %s",
		    strerror(errno));
		close(fd);
		return -1;
	}
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE,
	    fd, 0);
	if (p == MAP_FAILED) {
		e = errno;
		close(fd);
		if (e == EPERM)
			snprintf(why, size, "mounted noexec (UML maps the "
			    "guest's memory from it executable)");
		else
			snprintf(why, size, "cannot map a file from it "
			    "executable: %s", strerror(e));
		return -1;
	}
	munmap(p, 4096);
	e = fstatvfs(fd, &sv);
	close(fd);
	*free_mb = e == 0 ? (long long)((unsigned long long)sv.f_bavail *
	    sv.f_frsize >> 20) : -1;
	if (e == 0 && *free_mb < mem_mb) {
		snprintf(why, size, "only %lld MiB free, the guest needs %ld MiB",
		    *free_mb, mem_mb);
		return -1;
	}
	return 0;
}

/* The temp directory check; see preflight.h. */
void
pf_tmpdir(long mem_mb, struct pf_result *r, const char **use)
{
	char		 label[PATH_MAX + 16], why[256], why2[256], *run;
	const char	*dir = uml_tmpdir(label, sizeof label);
	long long	 free_mb = 0;

	r->name = "temp dir";
	*use = NULL;
	if (tmp_problem(dir, mem_mb, &free_mb, why, sizeof why) == 0) {
		pf_set(r, PF_OK, "%s: exec mappings work, %lld MiB free "
		    "for a %ld MiB guest", label, free_mb, mem_mb);
		return;
	}
	run = xstrdup(run_top());
	if (tmp_problem(run, mem_mb, &free_mb, why2, sizeof why2) == 0) {
		pf_set(r, PF_WARN, "%s: %s", label, why);
		snprintf(r->fix, sizeof r->fix, "umkit puts the guest's memory "
		    "in its run directory instead (run/NAME); to choose, set "
		    "TMPDIR to an exec-able directory with %ld MiB free", mem_mb);
		*use = "run";
	} else {
		pf_set(r, PF_FAIL, "%s: %s; %s: %s", label, why, run, why2);
		snprintf(r->fix, sizeof r->fix, "set TMPDIR to a directory "
		    "that is not mounted noexec and has %ld MiB free", mem_mb);
	}
	free(run);
}

/* In a child: run fn and return its exit status (-1 if it died). */
static int
in_child(int (*fn)(void))
{
	pid_t	pid;
	int	st;

	fflush(NULL);
	if ((pid = fork()) < 0)
		return -1;
	if (pid == 0)
		_exit(fn());
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Install an allow-all filter the way UML does; 0 or errno. */
static int
try_seccomp(void)
{
	struct sock_filter	f[] = {
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog	prog = { 1, f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return errno ? errno : 1;
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
	    SECCOMP_FILTER_FLAG_TSYNC, &prog) != 0)
		return errno ? errno : 1;
	return 0;
}

/* Turn ASLR off and read it back; 0 when it stuck. */
static int
try_personality(void)
{
	int	p;

	if (personality(ADDR_NO_RANDOMIZE) == -1)
		return errno ? errno : 1;
	p = personality(0xffffffff);
	return p != -1 && (p & ADDR_NO_RANDOMIZE) ? 0 : EPERM;
}

/* A check run in a child: fn returns 0, or the errno that refused it. */
struct child_check {
	const char	*name;
	int		(*fn)(void);
	enum pf_level	 bad;		/* the level when refused */
	const char	*ok;		/* what was found when it works */
	const char	*refused;	/* what is refused ... */
	const char	*so;		/* ... and what follows */
	const char	*fix;
};

static const struct child_check seccomp_check = {
	"seccomp", try_seccomp, PF_FAIL,
	"filters can be installed (UML's seccomp mode, needed for SMP guests)",
	"seccomp filters are refused", "UML's seccomp mode cannot start",
	"run umkit where seccomp(2) is allowed (in Docker: --security-opt "
	"seccomp=unconfined)",
};

static const struct child_check aslr_check = {
	"aslr", try_personality, PF_WARN,
	"personality(ADDR_NO_RANDOMIZE) works: a guest's memory layout is "
	"the same on every boot",
	"personality(ADDR_NO_RANDOMIZE) is refused",
	"guest memory layouts change from boot to boot",
	"allow personality(2) (in Docker: --security-opt seccomp=unconfined), "
	"or accept it (-A says so)",
};

/* Run a child check into r. */
static void
pf_child(struct pf_result *r, const struct child_check *c)
{
	int	e = in_child(c->fn);

	r->name = c->name;
	if (e == 0) {
		pf_set(r, PF_OK, "%s", c->ok);
		return;
	}
	pf_set(r, c->bad, "%s (%s): %s", c->refused,
	    e > 0 ? strerror(e) : "the check died", c->so);
	snprintf(r->fix, sizeof r->fix, "%s", c->fix);
}

/* The seccomp check; see preflight.h. */
void
pf_seccomp(struct pf_result *r)
{
	pf_child(r, &seccomp_check);
}

/* The personality check; see preflight.h. */
void
pf_aslr(struct pf_result *r)
{
	pf_child(r, &aslr_check);
}

/* The sandbox check; see preflight.h. */
void
pf_sandbox(struct pf_result *r)
{
	char	why[300];

	r->name = "sandbox";
	if (!sandbox_wanted()) {
		pf_set(r, PF_WARN, "off (--no-sandbox, UMKIT_SANDBOX=off): guests "
		    "and patched builds run with your rights");
		snprintf(r->fix, sizeof r->fix, "unset UMKIT_SANDBOX");
		return;
	}
	if (sandbox_works(why, sizeof why)) {
		pf_set(r, PF_OK, "bubblewrap makes user, pid and network namespaces: "
		    "guests and patched builds run contained (docs/security.md)");
		return;
	}
	pf_set(r, PF_WARN, "%s: the kit's own kernels run without it, untrusted "
	    "ones (smoke variants, exercises, -k) are refused", why);
	snprintf(r->fix, sizeof r->fix, "apt-get install bubblewrap; allow "
	    "unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, "
	    "in a container: --security-opt seccomp=unconfined); or accept the "
	    "risk with --no-sandbox");
}

/*
 * The FUSE check; see preflight.h.  Opening /dev/fuse is what counts:
 * fusermount3 (setuid root) mounts for other users, but it opens the
 * device with the calling user's file system uid, so it cannot get round
 * a /dev/fuse that user may not open (seen: mode 0600).
 */
void
pf_fuse(struct pf_result *r)
{
	struct stat	st;
	int		fd, e;

	r->name = "fuse";
	if ((fd = open("/dev/fuse", O_RDWR | O_CLOEXEC)) >= 0) {
		close(fd);
		pf_set(r, PF_OK, "/dev/fuse opens: the mirror can mount%s",
		    geteuid() == 0 ? "" : " (through fusermount3)");
		return;
	}
	e = errno;
	if (e == ENOENT) {
		pf_set(r, PF_FAIL, "no /dev/fuse: the mirror (umkit start) "
		    "cannot mount");
		snprintf(r->fix, sizeof r->fix, "load the fuse module "
		    "(modprobe fuse); in a container pass --device /dev/fuse");
		return;
	}
	if (stat("/dev/fuse", &st) == 0)
		pf_set(r, PF_FAIL, "/dev/fuse (mode %04o, uid %d): %s, and "
		    "fusermount3 opens it as you: the mirror (umkit start) "
		    "cannot mount", (unsigned)(st.st_mode & 07777),
		    (int)st.st_uid, strerror(e));
	else
		pf_set(r, PF_FAIL, "/dev/fuse: %s: the mirror (umkit start) "
		    "cannot mount", strerror(e));
	snprintf(r->fix, sizeof r->fix, "let your user open /dev/fuse (as "
	    "root: chmod 0666 /dev/fuse, its usual mode), or run umkit as "
	    "a user who can");
}

/* Print one result. */
void
pf_print(const struct pf_result *r)
{
	static const char *const tag[] = { "ok", "warn", "fix" };

	printf("%-4s %-9s %s\n", tag[r->level], r->name, r->what);
	if (r->fix[0] != '\0')
		printf("%-4s %-9s -> %s\n", "", "", r->fix);
}

/* A failed check ends the command with one line. */
static void
pf_fatal(const struct pf_result *r)
{
	fatalx("%s: %s; %s", r->name, r->what, r->fix);
}

/* The checks before a boot; see preflight.h. */
void
preflight(struct guest_opts *o, int need_fuse)
{
	struct pf_result	 r;
	const char		*use;

	pf_tmpdir(o->mem_mb, &r, &use);
	if (r.level == PF_FAIL)
		pf_fatal(&r);
	if (r.level == PF_WARN) {
		warnmsg("%s: %s; %s", r.name, r.what, r.fix);
		o->tmpdir_run = 1;
	}
	pf_seccomp(&r);
	if (r.level == PF_FAIL)
		pf_fatal(&r);
	if (need_fuse) {
		pf_fuse(&r);
		if (r.level == PF_FAIL)
			pf_fatal(&r);
	}
	if (!o->aslr) {
		pf_aslr(&r);
		if (r.level != PF_OK)
			warnmsg("%s: %s; %s", r.name, r.what, r.fix);
	}
	/* Tried here, before a caller makes itself a subreaper. */
	if (sandbox_wanted())
		sandbox_works(NULL, 0);
}
