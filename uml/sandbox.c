/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sandbox.c - bubblewrap's argv for a sandboxed run (sandbox.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sandbox.h"
#include "spawn.h"
#include "util.h"

/* Whether the sandbox is wanted. */
int
sandbox_wanted(void)
{
	const char	*e = getenv("UMKIT_SANDBOX");

	return e == NULL || strcmp(e, "off") != 0;
}

/* This host boot's id (allocated; "" when unknown). */
static char *
boot_id(void)
{
	char	*t = read_text("/proc/sys/kernel/random/boot_id");

	if (t == NULL)
		return xstrdup("");
	t[strcspn(t, "\n")] = '\0';
	return t;
}

/* Try bwrap once: 1 when it made its namespaces, else 0 with the reason. */
static int
probe(char *reason, size_t len)
{
	char		*argv[] = { SANDBOX_BWRAP, "--unshare-user", "--unshare-pid",
			    "--unshare-net", "--die-with-parent", "--ro-bind", "/",
			    "/", "--proc", "/proc", "--", "true", NULL };
	struct spawn	 sp;
	char		*nl;
	int		 st;

	spawn_init(&sp, argv);
	sp.out = SPAWN_CAPTURE;
	sp.err = SPAWN_TO_OUT;
	sp.max = 4096;
	st = spawn_run(&sp);
	if (st == 127)
		snprintf(reason, len, "bubblewrap is not installed (apt-get "
		    "install bubblewrap)");
	else if (st != 0) {
		if (sp.output != NULL && (nl = strchr(sp.output, '\n')) != NULL)
			*nl = '\0';
		snprintf(reason, len, "bwrap cannot make its namespaces here (%s)",
		    sp.output != NULL && *sp.output != '\0' ? sp.output :
		    "no user namespaces?");
	}
	spawn_free(&sp);
	return st == 0;
}

/*
 * Whether bwrap makes its namespaces here.  Tried once per process; a
 * success is remembered for this host boot and this bwrap in the run
 * directory (run/.sandbox: the boot id and bwrap's path), so that a boot
 * does not pay for the try (about 4 ms).
 */
int
sandbox_works(char *why, size_t len)
{
	static int	 tried, works;
	static char	 reason[256];
	char		*mark, *id, *t, *bw, *want;

	if (!tried) {
		tried = 1;
		mark = xasprintf("%s/.sandbox", kit()->run);
		id = boot_id();
		bw = spawn_which(SANDBOX_BWRAP);
		want = xasprintf("%s\n%s\n", id, bw != NULL ? bw : "");
		t = read_text(mark);
		if (t != NULL && bw != NULL && *id != '\0' && strcmp(t, want) == 0)
			works = 1;
		else if ((works = probe(reason, sizeof reason)) && *id != '\0' &&
		    mkdir_p(kit()->run, 0700) == 0)
			write_file_atomic(mark, want, strlen(want), 0600);
		free(t);
		free(want);
		free(bw);
		free(id);
		free(mark);
	}
	if (!works && why != NULL)
		snprintf(why, len, "%s", reason);
	return works;
}

/* Forget that the sandbox worked (a sandboxed start failed after all). */
void
sandbox_forget(void)
{
	char	*mark = xasprintf("%s/.sandbox", kit()->run);

	unlink(mark);
	free(mark);
}

/* Whether to sandbox this run; refuse an untrusted one without it. */
int
sandbox_use(int trusted, const char *what)
{
	static int	 said;
	char		 why[300];

	if (!sandbox_wanted())
		return 0;
	if (sandbox_works(why, sizeof why))
		return 1;
	if (!trusted)
		fatalx("%s: refused without a sandbox: %s; run it anyway with "
		    "--no-sandbox (UMKIT_SANDBOX=off), at your own risk", what, why);
	if (!said++)
		warnmsg("no sandbox: %s; the kit's own kernels run without it "
		    "('umkit doctor')", why);
	return 0;
}

/* Append one word. */
void
sandbox_add(struct sandbox *sb, const char *arg)
{
	if (sb->argc + 2 > sb->cap) {
		sb->cap = sb->cap ? sb->cap * 2 : 64;
		sb->argv = xrealloc(sb->argv, sb->cap * sizeof *sb->argv);
	}
	sb->argv[sb->argc++] = xstrdup(arg);
	sb->argv[sb->argc] = NULL;
}

/* Append an option and its two paths. */
static void
add3(struct sandbox *sb, const char *opt, const char *a, const char *b)
{
	sandbox_add(sb, opt);
	sandbox_add(sb, a);
	sandbox_add(sb, b);
}

/* Whether path is dir or below it. */
static int
below(const char *path, const char *dir)
{
	size_t	n = strlen(dir);

	return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/' ||
	    (n > 0 && dir[n - 1] == '/'));
}

/*
 * Hide directory path behind an empty tmpfs (when it is one and not
 * below a directory hidden already read-only: that is empty anyway); ro:
 * made read-only once the binds below it are in (even below a writable
 * scratch tmpfs: a checkout in /tmp stays read-only).  Call shallowest
 * first.
 */
static void
hide(struct sandbox *sb, const char *path, int ro)
{
	struct stat	st;
	int		i;

	if (path == NULL || path[0] != '/' || strcmp(path, "/") == 0 ||
	    stat(path, &st) < 0 || !S_ISDIR(st.st_mode))
		return;
	for (i = 0; i < sb->nhidden; i++)
		if (below(path, sb->hidden[i]) && (sb->ro[i] || !ro))
			return;
	sandbox_add(sb, "--tmpfs");
	sandbox_add(sb, path);
	sb->hidden = xrealloc(sb->hidden, (sb->nhidden + 1) * sizeof *sb->hidden);
	sb->hidden[sb->nhidden++] = xstrdup(path);
	sb->ro = xrealloc(sb->ro, sb->nhidden * sizeof *sb->ro);
	sb->ro[sb->nhidden - 1] = ro;
}

/* The directories to hide, shallowest first (qsort). */
static int
by_depth(const void *a, const void *b)
{
	const char	*const *x = a, *const *y = b;
	const char	*p;
	int		 dx = 0, dy = 0;

	for (p = *x; *p != '\0'; p++)
		dx += *p == '/';
	for (p = *y; *p != '\0'; p++)
		dy += *p == '/';
	return dx != dy ? dx - dy : strcmp(*x, *y);
}

/* The common part. */
void
sandbox_init(struct sandbox *sb)
{
	const struct kit_layout	*L = kit();
	static const char	*const ns[] = { "--unshare-user", "--unshare-pid",
				    "--unshare-net", "--unshare-ipc", "--unshare-uts",
				    "--die-with-parent", NULL };
	int			 i;

	memset(sb, 0, sizeof *sb);
	sandbox_add(sb, SANDBOX_BWRAP);
	for (i = 0; ns[i] != NULL; i++)
		sandbox_add(sb, ns[i]);
	add3(sb, "--ro-bind", "/", "/");
	sandbox_add(sb, "--dev");
	sandbox_add(sb, "/dev");
	sandbox_add(sb, "--proc");
	sandbox_add(sb, "/proc");
	const char		*ro[8];
	size_t			 nro = 0, k;

	/* Private scratch space (UML's memory file goes to TMPDIR). */
	hide(sb, "/tmp", 0);
	hide(sb, "/var/tmp", 0);
	hide(sb, "/dev/shm", 0);
	/* The user's files, and the kit's: its sources, other guests. */
	ro[nro++] = "/run/user";
	if (getenv("HOME") != NULL)
		ro[nro++] = getenv("HOME");
	if (!L->installed)
		ro[nro++] = L->top;
	ro[nro++] = L->run;
	ro[nro++] = L->cache;
	ro[nro++] = L->state;
	ro[nro++] = L->logs;
	qsort(ro, nro, sizeof *ro, by_depth);
	for (k = 0; k < nro; k++)
		hide(sb, ro[k], 1);
	/* Nothing inside learns where it ran from. */
	add3(sb, "--setenv", "HOME", "/nonexistent");
	add3(sb, "--setenv", "TMPDIR", "/tmp");
}

/* Bind path back in read-only. */
void
sandbox_ro(struct sandbox *sb, const char *path)
{
	if (access(path, F_OK) == 0)
		add3(sb, "--ro-bind", path, path);
}

/* Bind path back in writable. */
void
sandbox_rw(struct sandbox *sb, const char *path)
{
	if (access(path, F_OK) == 0)
		add3(sb, "--bind", path, path);
}

/* The whole argv. */
char **
sandbox_argv(struct sandbox *sb, char *const cmd[])
{
	int	i;

	/* Deepest first: a read-only parent must not stop a child's remount. */
	for (i = sb->nhidden - 1; i >= 0; i--) {
		if (!sb->ro[i])
			continue;
		sandbox_add(sb, "--remount-ro");
		sandbox_add(sb, sb->hidden[i]);
	}
	sandbox_add(sb, "--");
	for (i = 0; cmd[i] != NULL; i++)
		sandbox_add(sb, cmd[i]);
	return sb->argv;
}

/* Free the argv. */
void
sandbox_free(struct sandbox *sb)
{
	int	i;

	for (i = 0; i < sb->argc; i++)
		free(sb->argv[i]);
	free(sb->argv);
	for (i = 0; i < sb->nhidden; i++)
		free(sb->hidden[i]);
	free(sb->hidden);
	free(sb->ro);
	memset(sb, 0, sizeof *sb);
}
