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

/* Whether bwrap makes its namespaces here; tried once. */
int
sandbox_works(char *why, size_t len)
{
	static int	 tried, works;
	static char	 reason[256];
	char		*argv[] = { SANDBOX_BWRAP, "--unshare-user", "--unshare-pid",
			    "--unshare-net", "--die-with-parent", "--ro-bind", "/",
			    "/", "--proc", "/proc", "--", "true", NULL };
	struct spawn	 sp;
	char		*nl;
	int		 st;

	if (!tried) {
		tried = 1;
		spawn_init(&sp, argv);
		sp.out = SPAWN_NULL;
		sp.err = SPAWN_CAPTURE;
		/* stderr captured: through the stdout pipe */
		sp.out = SPAWN_CAPTURE;
		sp.err = SPAWN_TO_OUT;
		sp.max = 4096;
		st = spawn_run(&sp);
		works = st == 0;
		if (st == 127)
			snprintf(reason, sizeof reason, "bubblewrap is not installed "
			    "(apt-get install bubblewrap)");
		else if (!works) {
			if (sp.output != NULL && (nl = strchr(sp.output, '\n')) != NULL)
				*nl = '\0';
			snprintf(reason, sizeof reason, "bwrap cannot make its "
			    "namespaces here (%s)", sp.output != NULL &&
			    *sp.output != '\0' ? sp.output : "no user namespaces?");
		}
		spawn_free(&sp);
	}
	if (!works && why != NULL)
		snprintf(why, len, "%s", reason);
	return works;
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

/* Hide directory path behind an empty tmpfs (when it is one). */
static void
hide(struct sandbox *sb, const char *path)
{
	struct stat	st;

	if (path == NULL || path[0] != '/' || strcmp(path, "/") == 0 ||
	    stat(path, &st) < 0 || !S_ISDIR(st.st_mode))
		return;
	sandbox_add(sb, "--tmpfs");
	sandbox_add(sb, path);
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
	hide(sb, "/tmp");
	hide(sb, "/var/tmp");
	hide(sb, "/dev/shm");
	hide(sb, "/run/user");
	/* The user's files, and the kit's: its sources, other guests. */
	hide(sb, getenv("HOME"));
	if (!L->installed)
		hide(sb, L->top);
	hide(sb, L->run);
	hide(sb, L->cache);
	hide(sb, L->state);
	hide(sb, L->logs);
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
	memset(sb, 0, sizeof *sb);
}
