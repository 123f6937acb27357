/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Unit tests of the kit's layout (util.h, struct kit_layout): a checkout
 * found from its build/bin/umkit, an install found from PREFIX/bin/umkit
 * and its marker, and where every checkout-relative name lands in each,
 * with the XDG variables set, unset, and pointing somewhere unusable.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "util.h"

static char	tmp[PATH_MAX];		/* a fresh directory per test */

/* Write an empty file at tmp/rel, making its directories. */
static void
touch(const char *rel, mode_t mode)
{
	char	*p = xasprintf("%s/%s", tmp, rel), *d = xstrdup(p);
	FILE	*f;

	*strrchr(d, '/') = '\0';
	assert_int_equal(mkdir_p(d, 0755), 0);
	assert_non_null(f = fopen(p, "w"));
	fclose(f);
	chmod(p, mode);
	free(d);
	free(p);
}

/* A fake install under tmp/pfx: the marker, and base's kernel. */
static void
make_install(void)
{
	touch("pfx/bin/umkit", 0755);
	touch("pfx/lib/umkit/" KIT_MARKER, 0644);
	touch("pfx/lib/umkit/k/base/linux", 0755);
	touch("pfx/share/umkit/patches/base/series", 0644);
}

/* Each test: a temp dir, a clean environment for the layout. */
static int
setup(void **st)
{
	snprintf(tmp, sizeof tmp, "%s/umkit-layout.XXXXXX",
	    getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	assert_non_null(mkdtemp(tmp));
	unsetenv("UMKIT_TOP");
	unsetenv("UMKIT_CACHE");
	unsetenv("UMKIT_PATCHES");
	unsetenv("UMKIT_RUN");
	unsetenv("XDG_CACHE_HOME");
	unsetenv("XDG_STATE_HOME");
	unsetenv("XDG_DATA_HOME");
	unsetenv("XDG_RUNTIME_DIR");
	setenv("HOME", tmp, 1);
	return 0;
}

/* Remove the temp dir. */
static int
teardown(void **st)
{
	return rm_tree(tmp);
}

/* kit_map(L, rel) equals tmp + want; frees the result. */
static void
maps(const struct kit_layout *L, const char *rel, const char *want)
{
	char	*got = kit_map(L, rel), *w = xasprintf("%s%s", tmp, want);

	assert_string_equal(got, w);
	free(got);
	free(w);
}

/* A checkout: everything under its top, as before. */
static void
test_checkout(void **st)
{
	struct kit_layout	 L;
	char			*exe = xasprintf("%s/co/build/bin/umkit", tmp), *got;

	touch("co/build/bin/umkit", 0755);
	touch("co/" CHECKOUT_MARKER, 0644);
	kit_layout_init(&L, exe);
	assert_false(L.installed);
	assert_null(L.own_patches);
	maps(&L, "build/k/base/linux", "/co/build/k/base/linux");
	maps(&L, "run", "/co/run");
	maps(&L, "uml/link/allow.conf", "/co/uml/link/allow.conf");
	maps(&L, "run/log/x.log", "/co/run/log/x.log");
	got = kit_umkit(&L);
	assert_string_equal(got, exe);
	free(got);
	kit_layout_free(&L);
	/* the ASan launcher lives in build/tests/ */
	free(exe);
	exe = xasprintf("%s/co/build/tests/umkit-asan", tmp);
	kit_layout_init(&L, exe);
	assert_false(L.installed);
	maps(&L, "labs", "/co/labs");
	kit_layout_free(&L);
	free(exe);
}

/*
 * kit_layout_init(exe) in a child: its exit status, and what it printed
 * on stderr (into err, NUL-terminated).
 */
static int
init_status(const char *exe, char *err, size_t errlen)
{
	struct kit_layout	 L;
	int			 fds[2], status;
	ssize_t			 n;
	size_t			 got = 0;
	pid_t			 pid;

	assert_int_equal(pipe(fds), 0);
	fflush(NULL);
	if ((pid = fork()) == 0) {
		dup2(fds[1], 2);
		kit_layout_init(&L, exe);
		_exit(0);
	}
	close(fds[1]);
	while (got + 1 < errlen && (n = read(fds[0], err + got, errlen - 1 - got)) > 0)
		got += (size_t)n;
	err[got] = '\0';
	close(fds[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

/*
 * A bin/ without the marker next door is not an install, and a binary
 * copied where no checkout is around it is neither: an error naming it,
 * not a guess at a top (the guess two up from /tmp/x/umkit was /, and
 * its run/ /run, whose entries it cleaned out as stale guests).
 */
static void
test_bin_without_marker(void **st)
{
	struct kit_layout	 L;
	char			*exe = xasprintf("%s/pfx/bin/umkit", tmp), err[1024];

	touch("pfx/bin/umkit", 0755);
	assert_int_equal(init_status(exe, err, sizeof err), EXIT_KIT);
	assert_non_null(strstr(err, "cannot find the kit from "));
	assert_non_null(strstr(err, exe));
	assert_non_null(strstr(err, "UMKIT_TOP"));
	free(exe);
	exe = xasprintf("%s/umkit", tmp);
	touch("umkit", 0755);
	assert_int_equal(init_status(exe, err, sizeof err), EXIT_KIT);
	assert_non_null(strstr(err, exe));
	/* with the checkout's marker two up, it is that checkout's */
	free(exe);
	exe = xasprintf("%s/pfx/bin/umkit", tmp);
	touch(CHECKOUT_MARKER, 0644);
	kit_layout_init(&L, exe);
	assert_false(L.installed);
	maps(&L, "run", "/run");
	kit_layout_free(&L);
	free(exe);
}

/* An install: read-only files in the prefix, the user's in XDG defaults. */
static void
test_install_defaults(void **st)
{
	struct kit_layout	 L;
	char			*exe = xasprintf("%s/pfx/bin/umkit", tmp), *got;

	make_install();
	kit_layout_init(&L, exe);
	assert_true(L.installed);
	maps(&L, "build/bin/umkit-tui", "/pfx/lib/umkit/umkit-tui");
	maps(&L, "build/rootfs/initramfs.cpio", "/pfx/lib/umkit/rootfs/initramfs.cpio");
	maps(&L, "build/k/base/linux", "/pfx/lib/umkit/k/base/linux");
	/* a variant the install has no kernel of: built in the user's cache */
	maps(&L, "build/k/mine/linux", "/.cache/umkit/build/k/mine/linux");
	maps(&L, "build/disk/ext4-2048M.img", "/.cache/umkit/build/disk/ext4-2048M.img");
	maps(&L, "build", "/.cache/umkit/build");
	maps(&L, "uml/kernel/kbuild.sh", "/pfx/lib/umkit/kernel/kbuild.sh");
	maps(&L, "patches", "/pfx/share/umkit/patches");
	maps(&L, "labs", "/pfx/share/umkit/labs");
	maps(&L, "run", "/.local/state/umkit/run");
	maps(&L, "run/x/mnt", "/.local/state/umkit/run/x/mnt");
	maps(&L, "run/log/exec.log", "/.local/state/umkit/log/exec.log");
	/* the launcher a child runs: bin/, not lib/ (compare, smoke, a
	 * lab's reproduce step) */
	got = kit_umkit(&L);
	assert_string_equal(got, exe);
	free(got);
	kit_layout_free(&L);
	free(exe);
}

/* kit_map(rel) in a child of an install's layout: its exit status. */
static int
map_status(const char *rel)
{
	struct kit_layout	 L;
	char			*exe = xasprintf("%s/pfx/bin/umkit", tmp);
	pid_t			 pid;
	int			 status;

	kit_layout_init(&L, exe);
	free(exe);
	fflush(NULL);
	if ((pid = fork()) == 0) {
		if (freopen("/dev/null", "w", stderr) == NULL)
			_exit(99);
		free(kit_map(&L, rel));
		_exit(0);
	}
	kit_layout_free(&L);
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

/* A name outside the table is an internal error, not a guess. */
static void
test_install_unknown(void **st)
{
	make_install();
	assert_int_equal(map_status("labs/01-tour.lab"), 0);
	assert_int_equal(map_status("Makefile"), EXIT_KIT);
	assert_int_equal(map_status("runaway"), EXIT_KIT);	/* not run/ */
	assert_int_equal(map_status("buildx/y"), EXIT_KIT);
	assert_int_equal(map_status("docs/values.md"), EXIT_KIT);
}

/* XDG variables move the user's files; a runtime dir must be the user's. */
static void
test_install_xdg(void **st)
{
	struct kit_layout	 L;
	char			*exe = xasprintf("%s/pfx/bin/umkit", tmp), *v;

	make_install();
	setenv("XDG_CACHE_HOME", v = xasprintf("%s/c", tmp), 1), free(v);
	setenv("XDG_STATE_HOME", v = xasprintf("%s/s", tmp), 1), free(v);
	setenv("XDG_DATA_HOME", v = xasprintf("%s/d", tmp), 1), free(v);
	v = xasprintf("%s/rt", tmp);
	assert_int_equal(mkdir(v, 0700), 0);
	setenv("XDG_RUNTIME_DIR", v, 1);
	kit_layout_init(&L, exe);
	maps(&L, "build/disk", "/c/umkit/build/disk");
	maps(&L, "run/g/ctl.sock", "/rt/umkit/g/ctl.sock");
	maps(&L, "run/log/g.log", "/s/umkit/log/g.log");
	assert_non_null(strstr(L.own_patches, "/d/umkit/patches"));
	kit_layout_free(&L);
	/* group-readable: not a runtime dir (the spec wants 0700) */
	chmod(v, 0750);
	kit_layout_init(&L, exe);
	maps(&L, "run/g", "/s/umkit/run/g");
	kit_layout_free(&L);
	/* relative: ignored, as the XDG spec says */
	setenv("XDG_RUNTIME_DIR", "rt", 1);
	setenv("XDG_STATE_HOME", "s", 1);
	kit_layout_init(&L, exe);
	maps(&L, "run", "/.local/state/umkit/run");
	kit_layout_free(&L);
	/* UMKIT_CACHE wins over XDG_CACHE_HOME */
	setenv("UMKIT_CACHE", v, 1);
	kit_layout_init(&L, exe);
	maps(&L, "build/k/mine", "/rt/build/k/mine");
	kit_layout_free(&L);
	free(v);
	free(exe);
}

/*
 * UMKIT_RUN moves the run directories (and a checkout's console logs
 * with them) out of top/run, e.g. one per test running beside another;
 * a relative one is refused by name (run/NAME holds sockets).
 */
static void
test_umkit_run(void **st)
{
	struct kit_layout	 L;
	char			*exe = xasprintf("%s/co/build/bin/umkit", tmp);
	char			*r = xasprintf("%s/elsewhere", tmp), err[1024];

	touch("co/build/bin/umkit", 0755);
	touch("co/" CHECKOUT_MARKER, 0644);
	setenv("UMKIT_RUN", r, 1);
	kit_layout_init(&L, exe);
	maps(&L, "run", "/elsewhere");
	maps(&L, "run/g/mnt", "/elsewhere/g/mnt");
	maps(&L, "run/log/x.log", "/elsewhere/log/x.log");
	maps(&L, "runner", "/co/runner");	/* a name, not a prefix */
	maps(&L, "build/k/base/linux", "/co/build/k/base/linux");
	kit_layout_free(&L);
	/* an install: the runs move, its logs stay in the state directory */
	free(exe);
	exe = xasprintf("%s/pfx/bin/umkit", tmp);
	make_install();
	kit_layout_init(&L, exe);
	maps(&L, "run/g", "/elsewhere/g");
	maps(&L, "run/log/x.log", "/.local/state/umkit/log/x.log");
	kit_layout_free(&L);
	/* empty: as if unset */
	setenv("UMKIT_RUN", "", 1);
	free(exe);
	exe = xasprintf("%s/co/build/bin/umkit", tmp);
	kit_layout_init(&L, exe);
	maps(&L, "run", "/co/run");
	kit_layout_free(&L);
	setenv("UMKIT_RUN", "rel/run", 1);
	assert_int_equal(init_status(exe, err, sizeof err), EXIT_KIT);
	assert_non_null(strstr(err, "UMKIT_RUN=rel/run: not an absolute path"));
	free(r);
	free(exe);
}

/* UMKIT_TOP names a checkout even when run from an install. */
static void
test_umkit_top(void **st)
{
	struct kit_layout	 L;
	char			*exe = xasprintf("%s/pfx/bin/umkit", tmp), *co;

	make_install();
	co = xasprintf("%s/co", tmp);
	assert_int_equal(mkdir(co, 0755), 0);
	setenv("UMKIT_TOP", co, 1);
	kit_layout_init(&L, exe);
	assert_false(L.installed);
	maps(&L, "run", "/co/run");
	kit_layout_free(&L);
	free(co);
	free(exe);
}

/* Run the kit layout tests. */
/*
 * mkdir_p makes a directory of ours; one that another user made first
 * (a guessed name in /tmp) or their link to one is refused (EPERM).
 */
static void
test_mkdir_p_owner(void **st)
{
	char	*d = xasprintf("%s/mine/a/b", tmp), *o = xasprintf("%s/theirs", tmp);
	char	*l = xasprintf("%s/link", tmp);

	assert_int_equal(mkdir_p(d, 0700), 0);
	assert_int_equal(mkdir_p(d, 0700), 0);		/* again: fine */
	if (geteuid() != 0) {
		skip();
		return;
	}
	assert_int_equal(mkdir(o, 0777), 0);
	assert_int_equal(chown(o, 65534, 65534), 0);
	errno = 0;
	assert_int_equal(mkdir_p(o, 0700), -1);
	assert_int_equal(errno, EPERM);
	assert_int_equal(symlink(o, l), 0);
	assert_int_equal(lchown(l, 65534, 65534), 0);
	assert_int_equal(mkdir_p(l, 0700), -1);
	assert_int_equal(errno, EPERM);
	free(d);
	free(o);
	free(l);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_checkout, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bin_without_marker, setup, teardown),
		cmocka_unit_test_setup_teardown(test_install_defaults, setup, teardown),
		cmocka_unit_test_setup_teardown(test_install_unknown, setup, teardown),
		cmocka_unit_test_setup_teardown(test_install_xdg, setup, teardown),
		cmocka_unit_test_setup_teardown(test_umkit_top, setup, teardown),
		cmocka_unit_test_setup_teardown(test_umkit_run, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mkdir_p_owner, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
