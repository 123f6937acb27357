/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Recording format tests: record a fixture root and the host's own / for
 * about a second each and check every part of docs/recording.md: the
 * header, the index lines, complete snapshot trees equal to the source,
 * no temporary directory left, symlinked files not followed; a bad line
 * in the file set is named FILE:LINE; a recording directory is never
 * reused.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <regex.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "link/record.h"
#include "util.h"

static char	*tmp;

/* Write a file below tmp, creating directories. */
static void
put(const char *rel, const char *text)
{
	char	*p = xasprintf("%s/%s", tmp, rel), *cmd;
	FILE	*f;

	cmd = xasprintf("mkdir -p \"$(dirname '%s')\"", p);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	free(p);
}

/* Read a whole small file below tmp (NULL when missing). */
static char *
get(const char *fmt, ...)
{
	va_list	 ap;
	char	*rel, *p, *t;

	va_start(ap, fmt);
	if (vasprintf(&rel, fmt, ap) < 0)
		abort();
	va_end(ap);
	p = xasprintf("%s/%s", tmp, rel);
	t = read_text(p);
	free(p);
	free(rel);
	return t;
}

/* Make the temp directory and a fixture root in it. */
static int
setup(void **st)
{
	char	*p, *q;

	tmp = xstrdup("/tmp/umkit-record-XXXXXX");
	assert_non_null(mkdtemp(tmp));
	put("root/proc/vmstat", "nr_free_pages 100\npgfault 7\n");
	put("root/proc/meminfo.real", "MemTotal: 1 kB\n");
	put("root/proc/42/status", "Name:\tsh\nVmRSS:\t100 kB\n");
	put("root/proc/42/statm", "1 2 3 4 5 6 7\n");
	put("root/proc/abc/status", "not a pid\n");
	put("root/sys/kernel/debug/lru_gen", "memcg 0 /\n node 0\n 1 2 3 4\n");
	put("host-secret", "secret\n");
	/* A symlink where a file is expected: never followed. */
	p = xasprintf("%s/root/proc/meminfo", tmp);
	q = xasprintf("%s/host-secret", tmp);
	assert_int_equal(symlink(q, p), 0);
	free(p);
	free(q);
	put("files", "# test set\nproc/vmstat\nproc/meminfo\n"
	    "proc/[0-9]*/status  # per pid\nproc/[0-9]*/statm\n"
	    "sys/kernel/debug/lru_gen\nsys/kernel/debug/no_such_file\n");
	p = xasprintf("%s/files", tmp);
	setenv("UMKIT_RECORD_FILES", p, 1);
	free(p);
	(void)st;
	return 0;
}

/* Remove the temp directory. */
static int
teardown(void **st)
{
	rm_tree(tmp);
	free(tmp);
	(void)st;
	return 0;
}

/* Whether text matches the extended regex re. */
static int
matches(const char *text, const char *re)
{
	regex_t	r;
	int	m;

	assert_int_equal(regcomp(&r, re, REG_EXTENDED | REG_NEWLINE), 0);
	m = regexec(&r, text, 0, NULL, 0) == 0;
	regfree(&r);
	return m;
}

/* Check the index of dir: n lines, in order; returns n. */
static int
check_index(const char *dir, int every_ms)
{
	char		*idx = get("%s/index", dir), *l;
	unsigned	 seq;
	long long	 t, el, prev_t = 0, prev_el = -1;
	int		 n = 0;

	assert_non_null(idx);
	for (l = idx; *l != '\0'; l = strchr(l, '\n') + 1) {
		assert_non_null(strchr(l, '\n'));
		assert_int_equal(sscanf(l, "%u %lld %lld", &seq, &t, &el), 3);
		assert_true(l[6] == ' ');	/* six digits */
		assert_int_equal(seq, n);
		assert_true(t >= prev_t && el > prev_el);
		/* the grid: snapshot n starts at tick n or a later one
		 * (a slow one skips ticks; the gap to the one before may
		 * be short when that one started late) */
		assert_true(el >= (long long)n * every_ms - 5);
		prev_t = t;
		prev_el = el;
		n++;
	}
	if (n > 0)
		assert_true(matches(idx, "^000000 [0-9]{13} [0-9]+$"));
	free(idx);
	return n;
}

/* A fixture root recorded for a second: the format, snapshot by snapshot. */
static void
test_fixture(void **st)
{
	char		*root = xasprintf("%s/root", tmp);
	char		*dir = xasprintf("%s/rec", tmp), *h, *t, *p;
	volatile int	 stop = 0;
	struct stat	 sb;
	DIR		*d;
	struct dirent	*e;
	int		 n, i;

	/* Ticks at 0, 200, 400, 600, 800 ms; a late one is skipped (on a
	 * loaded host several are: how many is timing, not the format). */
	n = record_run(root, dir, 200, 1, &stop, stderr);
	assert_true(n >= 2 && n <= 5);
	h = get("rec/umkit-recording");
	assert_non_null(h);
	assert_true(matches(h, "^umkit-recording 1\nsource /.*/root\n"
	    "every_ms 200\nstarted_unix_ms [0-9]{13}\n$"));
	free(h);
	assert_int_equal(check_index("rec", 200), n);
	for (i = 0; i < n; i++) {
		t = get("rec/snap/%06d/proc/vmstat", i);
		assert_string_equal(t, "nr_free_pages 100\npgfault 7\n");
		free(t);
		t = get("rec/snap/%06d/proc/42/status", i);
		assert_string_equal(t, "Name:\tsh\nVmRSS:\t100 kB\n");
		free(t);
		t = get("rec/snap/%06d/proc/42/statm", i);
		assert_non_null(t);
		free(t);
		t = get("rec/snap/%06d/sys/kernel/debug/lru_gen", i);
		assert_non_null(t);
		free(t);
		t = get("rec/snap/%06d/proc/meminfo", i);	/* symlink */
		assert_null(t);
		t = get("rec/snap/%06d/proc/abc/status", i);	/* no match */
		assert_null(t);
	}
	/* No temporary snapshot left, only the n indexed ones. */
	p = xasprintf("%s/snap", dir);
	d = opendir(p);
	assert_non_null(d);
	i = 0;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			assert_true(strcmp(e->d_name, ".") == 0 ||
			    strcmp(e->d_name, "..") == 0);
		else
			i++;
	}
	closedir(d);
	assert_int_equal(i, n);
	free(p);
	/* A snapshot is itself a root: recording it works too. */
	p = xasprintf("%s/snap/%06d", dir, n - 1);
	free(root);
	root = p;
	free(dir);
	dir = xasprintf("%s/rec2", tmp);
	n = record_run(root, dir, 100, 1, &stop, stderr);
	assert_true(n >= 2 && n <= 10);
	t = get("rec2/snap/%06d/proc/vmstat", n - 1);
	assert_string_equal(t, "nr_free_pages 100\npgfault 7\n");
	free(t);
	/* Never mixed into an existing recording. */
	assert_int_equal(record_run(root, dir, 100, 1, &stop, stderr),
	    -EEXIST);
	assert_int_equal(stat(dir, &sb), 0);
	free(root);
	free(dir);
	(void)st;
}

/* *stop ends a recording that has no time limit. */
static void
test_stop(void **st)
{
	char		*root = xasprintf("%s/root", tmp);
	char		*dir = xasprintf("%s/rec3", tmp);
	volatile int	 stop = 1;

	assert_int_equal(record_run(root, dir, 100, 0, &stop, stderr), 0);
	assert_int_equal(check_index("rec3", 100), 0);
	free(root);
	free(dir);
	(void)st;
}

/* The kit's own file set on the host's real /: a valid root. */
static void
test_host_root(void **st)
{
	char		*dir = xasprintf("%s/host", tmp), *files, *t;
	char		*mine = getenv("UMKIT_RECORD_FILES");
	volatile int	 stop = 0;
	int		 n;

	mine = xstrdup(mine);
	files = top_path("uml/link/record.files");
	setenv("UMKIT_RECORD_FILES", files, 1);
	n = record_run("/", dir, 250, 2, &stop, stderr);
	setenv("UMKIT_RECORD_FILES", mine, 1);
	/* 8 ticks at most; on a loaded host one snapshot (16 MiB of
	 * proc/kpageflags) may take the whole 2 s. */
	assert_true(n >= 1 && n <= 8);
	assert_int_equal(check_index("host", 250), n);
	t = get("host/snap/000000/proc/vmstat");
	assert_non_null(t);
	assert_true(matches(t, "^nr_free_pages [0-9]+$"));
	free(t);
	t = get("host/snap/%06d/proc/meminfo", n - 1);
	assert_non_null(t);
	assert_true(matches(t, "^MemTotal: +[0-9]+ kB$"));
	free(t);
	t = get("host/snap/000000/proc/1/status");
	assert_non_null(t);
	free(t);
	free(files);
	free(mine);
	free(dir);
	(void)st;
}

/* A bad file-set line fails the recording, naming FILE:LINE. */
static void
test_bad_files(void **st)
{
	char		*root = xasprintf("%s/root", tmp);
	char		*dir = xasprintf("%s/rec4", tmp), msg[512], *want;
	char		*files = xasprintf("%s/badfiles", tmp);
	char		*mine = xstrdup(getenv("UMKIT_RECORD_FILES"));
	volatile int	 stop = 0;
	FILE		*log = tmpfile();
	size_t		 n;

	put("badfiles", "proc/vmstat\n# fine\nproc/../../etc/passwd\n");
	setenv("UMKIT_RECORD_FILES", files, 1);
	assert_int_equal(record_run(root, dir, 100, 1, &stop, log), -EINVAL);
	setenv("UMKIT_RECORD_FILES", mine, 1);
	rewind(log);
	n = fread(msg, 1, sizeof msg - 1, log);
	msg[n] = '\0';
	fclose(log);
	want = xasprintf("%s:3: '..' would leave the root", files);
	if (strstr(msg, want) == NULL)
		fail_msg("log '%s' lacks '%s'", msg, want);
	assert_null(get("rec4/umkit-recording"));
	free(want);
	free(mine);
	free(files);
	free(root);
	free(dir);
	(void)st;
}

/* Run the record tests. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixture),
		cmocka_unit_test(test_stop),
		cmocka_unit_test(test_host_root),
		cmocka_unit_test(test_bad_files),
	};

	return cmocka_run_group_tests_name("record", tests, setup, teardown);
}
