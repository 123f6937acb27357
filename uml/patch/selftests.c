/* SPDX-License-Identifier: GPL-2.0-only */
/* selftests.c - the kernel's own mm tests in guests (selftests.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "guest/exec.h"
#include "guest/guest.h"
#include "guest/initrd.h"
#include "kernel/kbuild.h"
#include "selftests.h"
#include "util.h"

/* The directory of variant's built tests, or exits saying why. */
char *
st_build(const char *variant, int untrusted)
{
	struct kbuild_req	 q = { .variant = variant, .selftests = 1,
				       .untrusted = untrusted };
	struct kbuild_res	 res;
	char			*dir;

	if (kbuild_run(&q, &res) != KBUILD_OK)
		fatalx("variant %s: its mm selftests did not build: %s (the log: "
		    "build/k/%s/selftests.log)", variant, kbuild_what(res.status),
		    variant);
	dir = res.path;
	res.path = NULL;
	kbuild_res_free(&res);
	return dir;
}

/* Whether s is a test name the kit will put on a guest command line. */
static int
name_ok(const char *s)
{
	size_t	n = strlen(s);

	if (n == 0 || n >= ST_NAME_LEN || s[0] == '.' || s[0] == '-')
		return 0;
	return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789_.-") == n;
}

/* Order tests by name. */
static int
test_cmp(const void *a, const void *b)
{
	return strcmp(((const struct st_test *)a)->name,
	    ((const struct st_test *)b)->name);
}

/* The tests dir/.umkit-tests names. */
int
st_list(const char *dir, struct st_run *run, char *err, size_t errlen)
{
	char	*path = xasprintf("%s/.umkit-tests", dir), *text, *line, *save;

	memset(run, 0, sizeof *run);
	if ((text = read_text(path)) == NULL) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		free(path);
		return -1;
	}
	free(path);
	run->v = xcalloc(ST_MAX_TESTS, sizeof *run->v);
	for (line = strtok_r(text, "\n", &save); line != NULL && run->n < ST_MAX_TESTS;
	    line = strtok_r(NULL, "\n", &save)) {
		struct st_test	*t = &run->v[run->n];
		char		*sp = strchr(line, ' ');

		if (sp == NULL)
			continue;
		*sp = '\0';
		if (!name_ok(line) || !name_ok(sp + 1) || strlen(sp + 1) >= sizeof t->category)
			continue;
		snprintf(t->name, sizeof t->name, "%s", line);
		snprintf(t->category, sizeof t->category, "%s", sp + 1);
		run->n++;
	}
	free(text);
	qsort(run->v, (size_t)run->n, sizeof *run->v, test_cmp);
	if (run->n == 0) {
		snprintf(err, errlen, "%s: no tests were built", dir);
		return -1;
	}
	return 0;
}

/* The status a guest command's exit status stands for. */
static enum st_status
status_of(int code)
{
	switch (code) {
	case 0:
		return ST_PASS;
	case ST_KSFT_SKIP:
		return ST_SKIP;
	case EXIT_TIMEOUT:
		return ST_TIMEOUT;
	case EXIT_PANIC:
		return ST_PANIC;
	case EXIT_KIT:
		return ST_ERROR;
	default:
		return ST_FAIL;
	}
}

/* Whether name is among the tests asked for (all when none is). */
static int
wanted(const struct st_req *req, const char *name)
{
	int	i;

	for (i = 0; i < req->ntests; i++)
		if (strcmp(req->tests[i], name) == 0)
			return 1;
	return req->ntests == 0;
}

/* One test in a fresh guest of o; its output into log (or a temporary). */
static void
run_one(const struct st_req *req, struct guest_opts *o, struct st_test *t)
{
	char			*argv[] = { "sh", "-c", "cd /root/mm && exec \"./$0\"",
				    t->name, NULL };
	char			*log, *text;
	size_t			 len;
	long long		 t0 = now_ms();
	int			 fd;

	log = req->logdir ? xasprintf("%s/%s.log", req->logdir, t->name) :
	    xstrdup("/tmp/umkit-selftest.XXXXXX");
	fd = req->logdir ? open(log, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600) :
	    mkostemp(log, O_CLOEXEC);
	if (fd < 0)
		fatal("%s", log);
	fflush(NULL);
	t->code = exec_fresh_to(o, req->timeout_s, argv, fd);
	t->secs = (now_ms() - t0) / 1000.0;
	t->status = status_of(t->code);
	lseek(fd, 0, SEEK_SET);
	text = read_fd_all(fd, ST_OUT_MAX, &len);
	close(fd);
	if (req->logdir == NULL)
		unlink(log);
	st_parse(text ? text : "", text ? len : 0, t);
	if (t->status == ST_TIMEOUT)
		snprintf(t->reason, sizeof t->reason, "timed out after %d s",
		    req->timeout_s);
	else if (t->status == ST_PANIC)
		snprintf(t->reason, sizeof t->reason, "the guest kernel panicked");
	free(text);
	free(log);
}

/* Each test asked for, in its own guest. */
int
st_run(const struct st_req *req, struct st_run *run, char *err, size_t errlen)
{
	struct st_run	 all;
	struct guest_opts o;
	char		*add;
	int		 i, k;

	if (st_list(req->dir, &all, err, errlen) < 0)
		return -1;
	for (i = 0; i < req->ntests; i++) {
		for (k = 0; k < all.n && strcmp(all.v[k].name, req->tests[i]) != 0; k++)
			;
		if (k == all.n) {
			snprintf(err, errlen, "no test '%s' (built: see 'umkit "
			    "selftests --list')", req->tests[i]);
			st_free(&all);
			return -1;
		}
	}
	if (req->logdir != NULL && mkdir_p(req->logdir, 0700) < 0) {
		snprintf(err, errlen, "%s: %s", req->logdir, strerror(errno));
		st_free(&all);
		return -1;
	}
	memset(run, 0, sizeof *run);
	run->v = xcalloc(ST_MAX_TESTS, sizeof *run->v);
	/* One set of options for every guest: the files are checked once. */
	add = xasprintf("%s:/root/mm", req->dir);
	guest_opts_init(&o);
	o.variant = req->variant;
	o.kernel = req->kernel;
	if (req->mem_mb > 0)
		o.mem_mb = req->mem_mb;
	initrd_add(&o, add);
	for (i = 0; i < all.n; i++) {
		struct st_test	*t;

		if (!wanted(req, all.v[i].name))
			continue;
		t = &run->v[run->n++];
		*t = all.v[i];
		run_one(req, &o, t);
		if (req->progress != NULL) {
			fprintf(req->progress, "selftests: %-24s %-7s %5.1f s%s%s\n",
			    t->name, st_status_name(t->status), t->secs,
			    t->reason[0] ? "  " : "", t->reason);
			fflush(req->progress);
		}
	}
	free(o.adds);
	free(add);
	free(all.v);
	return 0;
}

/* The mm KUnit suites of req->variant+debug, from one boot that runs them. */
int
st_kunit(const struct st_req *req, struct st_run *run, char *err, size_t errlen)
{
	struct guest_opts	 o;
	char			*argv[] = { "sh", "-c", "cd /sys/kernel/debug/kunit && "
				    "for d in *; do [ -f \"$d/results\" ] && "
				    "{ echo \"=== $d\"; cat \"$d/results\"; }; done", NULL };
	char			 tmp[] = "/tmp/umkit-kunit.XXXXXX", *text, *v;
	size_t			 len;
	int			 fd, code;

	guest_opts_init(&o);
	v = xasprintf("%s+debug", req->variant);
	o.variant = v;
	o.karg = "kunit.enable=1";
	if (req->mem_mb > 0)
		o.mem_mb = req->mem_mb;
	if ((fd = mkostemp(tmp, O_CLOEXEC)) < 0)
		fatal("%s", tmp);
	unlink(tmp);
	fflush(NULL);
	code = exec_fresh_to(&o, req->timeout_s, argv, fd);
	lseek(fd, 0, SEEK_SET);
	text = read_fd_all(fd, ST_OUT_MAX, &len);
	close(fd);
	free(v);
	if (code != 0 || text == NULL) {
		snprintf(err, errlen, "the %s+debug guest could not list its suites "
		    "(status %d)", req->variant, code);
		free(text);
		return -1;
	}
	st_kunit_parse(text, len, run);
	free(text);
	if (run->n == 0) {
		snprintf(err, errlen, "the %s+debug kernel ran no KUnit suite",
		    req->variant);
		st_free(run);
		return -1;
	}
	return 0;
}
