/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Unit tests of the mirror's pure parts: the guest path normalizer, the
 * symlink text it returns, and the allowlist parser and matcher
 * (including the kit's own uml/link/allow.conf).
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
#include <unistd.h>
#include <cmocka.h>

#include "link/mirror-policy.h"
#include "util.h"

/* Normalize in; return the errno and leave the result in out. */
static int
norm(const char *in, char *out)
{
	return mirror_path_normalize(in, out, PATH_MAX);
}

/* ".", "..", "//" collapse; ".." stops at "/" as in the guest. */
static void
test_normalize(void **st)
{
	char	out[PATH_MAX], small[8];

	assert_int_equal(norm("/proc/./self//status", out), 0);
	assert_string_equal(out, "/proc/self/status");
	assert_int_equal(norm("/proc/1/../vmstat/", out), 0);
	assert_string_equal(out, "/proc/vmstat");
	assert_int_equal(norm("/../../../proc/meminfo", out), 0);
	assert_string_equal(out, "/proc/meminfo");
	assert_int_equal(norm("/sys/kernel/../../..", out), 0);
	assert_string_equal(out, "/");
	assert_int_equal(norm("/", out), 0);
	assert_string_equal(out, "/");
	assert_int_equal(norm("//sys", out), 0);
	assert_string_equal(out, "/sys");
	assert_int_equal(norm("/sys/kernel/debug/lru_gen", out), 0);
	assert_string_equal(out, "/sys/kernel/debug/lru_gen");
	/* Escapes out of the exported roots. */
	assert_int_equal(norm("/proc/../etc/passwd", out), -EACCES);
	assert_int_equal(norm("/sys/../../etc/shadow", out), -EACCES);
	assert_int_equal(norm("/procfs", out), -EACCES);
	assert_int_equal(norm("/system", out), -EACCES);
	assert_int_equal(norm("/etc", out), -EACCES);
	/* Not absolute, too long. */
	assert_int_equal(norm("proc/vmstat", out), -EINVAL);
	assert_int_equal(norm("", out), -EINVAL);
	assert_int_equal(mirror_path_normalize("/proc/vmstat", small,
	    sizeof small), -ENAMETOOLONG);
	(void)st;
}

/* Check the text returned for a link at path pointing to target. */
static void
link_is(const char *path, const char *target, const char *want)
{
	char	out[PATH_MAX];
	int	r = mirror_link_text(path, target, out, sizeof out);

	assert_int_equal(r, (int)strlen(want));
	assert_string_equal(out, want);
}

/* Safe targets stay verbatim; others become paths inside the mount. */
static void
test_link_text(void **st)
{
	char	out[4];

	/* Verbatim: resolve inside the mount exactly as in the guest. */
	link_is("/proc/self", "1234", "1234");
	link_is("/proc/thread-self", "1234/task/1234", "1234/task/1234");
	link_is("/sys/class/net/lo", "../../devices/virtual/net/lo",
	    "../../devices/virtual/net/lo");
	link_is("/proc/1/fd/3", "socket:[4242]", "socket:[4242]");
	link_is("/sys/a/b", "../../x", "../../x");	/* up to the root */
	/* Absolute targets: the guest's path, relative inside the mount. */
	link_is("/proc/1/exe", "/bin/busybox", "../../bin/busybox");
	link_is("/proc/1/root", "/", "../..");
	link_is("/proc/1/cwd", "/proc/1", ".");
	link_is("/proc/1/fd/0", "/dev/console", "../../../dev/console");
	link_is("/sys/dev/block/8:0", "/sys/devices/x", "../../devices/x");
	/* Relative targets climbing above the guest's /: clamped there. */
	link_is("/sys/a", "../../../etc/passwd", "../etc/passwd");
	link_is("/proc/1/fd/3", "../../../../../../../etc/shadow",
	    "../../../etc/shadow");
	/* ".." after a name: resolved lexically (no physical escape). */
	link_is("/sys/x/l", "a/../../..", "../..");
	link_is("/proc/1/fd/3", "/proc/self/../../etc", "../../../etc");
	assert_int_equal(mirror_link_text("/proc/1/exe", "/bin/busybox", out,
	    sizeof out), -ENAMETOOLONG);
	(void)st;
}

/* Write text to a new temporary file; returns its path. */
static char *
temp_file(const char *text)
{
	char	*path = xstrdup("/tmp/umkit-allow-XXXXXX");
	int	 fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (int)strlen(text));
	close(fd);
	return path;
}

/* Load text as an allowlist; the log's text goes to msg. */
static struct allowlist *
load_text(const char *text, char **path, char *msg, size_t size)
{
	struct allowlist	*al;
	FILE			*log = tmpfile();
	size_t			 n;

	assert_non_null(log);
	*path = temp_file(text);
	al = allowlist_load(*path, log);
	rewind(log);
	n = fread(msg, 1, size - 1, log);
	msg[n] = '\0';
	fclose(log);
	return al;
}

/* Paths and globs match; '*' does not cross '/'. */
static void
test_allow_match(void **st)
{
	struct allowlist	*al;
	char			*path, msg[512];

	al = load_text("# comment\n\n  /sys/kernel/debug/lru_gen  # aging\n"
	    "/sys/kernel/tracing/events/*/*/enable\n"
	    "/proc/sys/vm/drop_caches\n", &path, msg, sizeof msg);
	assert_non_null(al);
	assert_string_equal(msg, "");
	assert_true(allowlist_match(al, "/sys/kernel/debug/lru_gen"));
	assert_false(allowlist_match(al, "/sys/kernel/debug/lru_gen_full"));
	assert_true(allowlist_match(al,
	    "/sys/kernel/tracing/events/compaction/mm_compaction_end/enable"));
	assert_false(allowlist_match(al,
	    "/sys/kernel/tracing/events/compaction/enable"));
	assert_false(allowlist_match(al,
	    "/sys/kernel/tracing/events/a/b/c/enable"));
	assert_false(allowlist_match(al,
	    "/sys/kernel/tracing/events/compaction/x/format"));
	assert_true(allowlist_match(al, "/proc/sys/vm/drop_caches"));
	assert_false(allowlist_match(al, "/proc/sys/vm/overcommit_memory"));
	assert_false(allowlist_match(al, "/"));
	allowlist_free(al);
	unlink(path);
	free(path);
	(void)st;
}

/* A bad line fails the whole file with FILE:LINE and the reason. */
static void
bad_line(const char *text, int line, const char *reason)
{
	struct allowlist	*al;
	char			*path, msg[512], *want;

	al = load_text(text, &path, msg, sizeof msg);
	assert_null(al);
	want = xasprintf("%s:%d: %s", path, line, reason);
	if (strstr(msg, want) == NULL)
		fail_msg("log '%s' lacks '%s'", msg, want);
	free(want);
	unlink(path);
	free(path);
}

/* Each kind of bad line is named with its file and line. */
static void
test_allow_bad(void **st)
{
	struct allowlist	*al;
	FILE			*log = tmpfile();

	bad_line("/proc/sys/vm/swappiness\n\nsys/kernel/x\n", 3,
	    "not an absolute path");
	bad_line("# c\n/etc/passwd\n", 2, "not a path below /proc or /sys");
	bad_line("/proc/../etc/passwd\n", 1, "not a path below /proc or /sys");
	bad_line("/proc/sys/../sys/vm/x\n", 1, "not a normalized path");
	bad_line("/proc/sys/vm//x\n", 1, "not a normalized path");
	bad_line("/sys/kernel/\n", 1, "not a normalized path");
	bad_line("/sys\n", 1, "not a path below /proc or /sys");
	bad_line("/proc/sys/vm/swappiness 60\n", 1,
	    "expected one path or glob per line");
	al = allowlist_load("/nonexistent/allow.conf", log);
	assert_null(al);
	fclose(log);
	(void)st;
}

/* The kit's allow.conf parses and allows what the labs need, no more. */
static void
test_allow_kit(void **st)
{
	static const char *const yes[] = {
		"/sys/kernel/debug/lru_gen", "/sys/kernel/mm/lru_gen/enabled",
		"/sys/kernel/mm/lru_gen/min_ttl_ms",
		"/proc/sys/vm/compact_memory", "/proc/sys/vm/drop_caches",
		"/proc/sys/vm/swappiness", "/proc/sys/vm/extfrag_threshold",
		"/sys/kernel/tracing/events/compaction/enable",
		"/sys/kernel/tracing/events/kmem/rss_stat/enable",
		"/sys/kernel/tracing/events/kmem/rss_stat/filter",
		"/sys/kernel/tracing/tracing_on",
		"/sys/kernel/tracing/buffer_size_kb",
		"/sys/kernel/tracing/trace_clock",
		"/sys/kernel/tracing/trace",
	};
	static const char *const no[] = {
		"/sys/kernel/debug/lru_gen_full", "/proc/vmstat",
		"/proc/sys/kernel/core_pattern", "/proc/sysrq-trigger",
		"/sys/kernel/tracing/trace_pipe",
		"/sys/kernel/tracing/events/kmem/rss_stat/format",
		"/sys/power/state", "/proc/1/mem",
	};
	struct allowlist	*al;
	char			*path = top_path("uml/link/allow.conf");
	size_t			 i;

	al = allowlist_load(path, stderr);
	assert_non_null(al);
	for (i = 0; i < sizeof yes / sizeof yes[0]; i++)
		if (!allowlist_match(al, yes[i]))
			fail_msg("%s should be writable", yes[i]);
	for (i = 0; i < sizeof no / sizeof no[0]; i++)
		if (allowlist_match(al, no[i]))
			fail_msg("%s should be read-only", no[i]);
	allowlist_free(al);
	free(path);
	(void)st;
}

/* Run the mirror-unit tests. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_normalize),
		cmocka_unit_test(test_link_text),
		cmocka_unit_test(test_allow_match),
		cmocka_unit_test(test_allow_bad),
		cmocka_unit_test(test_allow_kit),
	};

	return cmocka_run_group_tests_name("mirror-unit", tests, NULL, NULL);
}
