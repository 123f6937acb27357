/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kbuild.c - run uml/kernel/kbuild.sh for a variant and type its result
 * (kbuild.h); where builds live (build/k/, build/smoke/).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "kbuild.h"
#include "spawn.h"
#include "util.h"

/* A run of the script being watched for progress. */
struct watch {
	const struct kbuild_req	*req;
	char			*log;		/* the tree's build.log */
	struct timespec		 start;		/* CLOCK_REALTIME, as file times */
	long long		 t0;
	struct kbuild_progress	 p;
};

/* What a status means. */
const char *
kbuild_what(enum kbuild_status st)
{
	switch (st) {
	case KBUILD_OK:
		return "built";
	case KBUILD_FAIL_SETUP:
		return "no such variant, or no kernel source";
	case KBUILD_FAIL_APPLY:
		return "a patch does not apply";
	case KBUILD_FAIL_CONFIG:
		return "the kernel's configuration failed";
	case KBUILD_FAIL_BUILD:
		return "the kernel does not build";
	case KBUILD_INTERRUPTED:
		return "interrupted";
	case KBUILD_FAIL_OTHER:
		break;
	}
	return "the build script failed";
}

/* Whether variant names a smoke variant. */
int
kbuild_is_smoke(const char *variant)
{
	return strncmp(variant, "smoke-", 6) == 0;
}

/* build/smoke/SUFFIX for smoke-SUFFIX. */
char *
kbuild_smoke_dir(const char *variant)
{
	char	*rel, *d;

	if (kbuild_is_smoke(variant))
		variant += 6;
	rel = xasprintf("build/smoke/%s", variant);
	d = top_path(rel);
	free(rel);
	return d;
}

/* The length of variant's patches/ name. */
size_t
kbuild_base_len(const char *variant)
{
	size_t	n = strlen(variant);

	if (n > 6 && strcmp(variant + n - 6, "+debug") == 0)
		return n - 6;
	if (n > 4 && strcmp(variant + n - 4, "+cov") == 0)
		return n - 4;
	return n;
}

/*
 * build/k/NAME: a smoke variant's shared tree (kbuild.sh's case on the
 * variant: a profile makes it the coverage tree, a config the debug one),
 * else the variant's own.
 */
char *
kbuild_tree_dir(const char *variant)
{
	char		*d, *f, *rel, *tree;
	const char	*name = "smoke-tree";

	if (!kbuild_is_smoke(variant)) {
		rel = xasprintf("build/k/%s", variant);
		tree = top_path(rel);
		free(rel);
		return tree;
	}
	d = kbuild_smoke_dir(variant);
	f = xasprintf("%s/profile", d);
	if (access(f, F_OK) == 0)
		name = "smoke-tree-cov";
	else {
		free(f);
		f = xasprintf("%s/config", d);
		if (access(f, F_OK) == 0)
			name = "smoke-tree-debug";
	}
	free(f);
	free(d);
	rel = xasprintf("build/k/%s", name);
	tree = top_path(rel);
	free(rel);
	return tree;
}

/* Count the objects a build log shows compiled. */
static long
count_cc(const char *path)
{
	char	*t = read_text(path), *p;
	long	 n = 0;

	for (p = t; p != NULL && (p = strstr(p, "\n  CC ")) != NULL; p++)
		n++;
	free(t);
	return n;
}

/*
 * While the script runs: applied once make starts (kbuild.sh truncates
 * the tree's build.log then: the tree and its config are ready), and the
 * objects compiled so far.
 */
static void
watch_tick(void *arg)
{
	struct watch	*w = arg;
	struct stat	 sb;

	if (!w->p.applied && stat(w->log, &sb) == 0 &&
	    (sb.st_mtim.tv_sec > w->start.tv_sec ||
	    (sb.st_mtim.tv_sec == w->start.tv_sec &&
	    sb.st_mtim.tv_nsec >= w->start.tv_nsec)))
		w->p.applied = 1;
	w->p.done = w->p.applied ? count_cc(w->log) : 0;
	w->p.secs = (now_ms() - w->t0) / 1000.0;
	w->req->progress(&w->p, w->req->arg);
}

/* The status a script's exit status stands for. */
static enum kbuild_status
status_of(int code)
{
	switch (code) {
	case 0:
		return KBUILD_OK;
	case 1:
		return KBUILD_FAIL_SETUP;
	case 2:
		return KBUILD_FAIL_APPLY;
	case 3:
		return KBUILD_FAIL_CONFIG;
	case 4:
		return KBUILD_FAIL_BUILD;
	}
	return code >= 128 ? KBUILD_INTERRUPTED : KBUILD_FAIL_OTHER;
}

/* Run kbuild.sh for the request. */
enum kbuild_status
kbuild_run(const struct kbuild_req *q, struct kbuild_res *res)
{
	char		*script = top_path("uml/kernel/kbuild.sh");
	char		*build = top_path("build"), *tree, *cnt, *t, *env[4];
	int		 flag = q->selftests || q->tree_only;
	char		*argv[] = { "/bin/sh", script, q->selftests ? "--selftests" :
			    q->tree_only ? "--tree" : (char *)q->variant,
			    flag ? (char *)q->variant : NULL, NULL };
	struct spawn	 sp;
	struct watch	 w;

	memset(res, 0, sizeof *res);
	memset(&w, 0, sizeof w);
	env[0] = xasprintf("UMKIT_BUILD=%s", build);
	env[1] = env[2] = env[3] = NULL;
	if (q->patches != NULL)
		env[1] = xasprintf("UMKIT_PATCHES=%s", q->patches);
	if (q->untrusted)
		env[env[1] != NULL ? 2 : 1] = xstrdup("UMKIT_UNTRUSTED=1");
	spawn_init(&sp, argv);
	sp.env = env;
	sp.out = SPAWN_CAPTURE;
	sp.max = PATH_MAX;
	if (q->log != NULL) {
		sp.err = open(q->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (sp.err < 0)
			fatal("%s", q->log);
	}
	if (q->progress != NULL) {
		tree = kbuild_tree_dir(q->variant);
		w.req = q;
		w.log = xasprintf("%s/build.log", tree);
		cnt = xasprintf("%s/.umkit-objects", tree);
		t = read_text(cnt);
		w.p.expect = t != NULL ? atol(t) : 0;
		free(t);
		free(cnt);
		free(tree);
		clock_gettime(CLOCK_REALTIME, &w.start);
		w.t0 = now_ms();
		sp.tick = watch_tick;
		sp.arg = &w;
	}
	res->code = spawn_run(&sp);
	if (sp.err >= 0)
		close(sp.err);
	res->status = status_of(res->code);
	if (res->status == KBUILD_OK && sp.output != NULL) {
		sp.output[strcspn(sp.output, "\n")] = '\0';
		if (sp.output[0] == '/' && access(sp.output, F_OK) == 0)
			res->path = xstrdup(sp.output);
		else
			res->status = KBUILD_FAIL_OTHER;
	}
	if (res->status == KBUILD_FAIL_BUILD) {
		tree = kbuild_tree_dir(q->variant);
		res->full_log = xasprintf("%s/build.log", tree);
		free(tree);
	}
	spawn_free(&sp);
	free(w.log);
	free(env[0]);
	free(env[1]);
	free(env[2]);
	free(script);
	free(build);
	return res->status;
}

/* Free a result. */
void
kbuild_res_free(struct kbuild_res *res)
{
	free(res->path);
	free(res->full_log);
	memset(res, 0, sizeof *res);
}

/* The kernel of variant, built when missing. */
char *
kbuild_kernel(const char *variant)
{
	struct kbuild_req	 q = { .variant = variant };
	struct kbuild_res	 res;
	char			*k, *rel, *vdir = NULL;

	if (*variant == '\0' || strchr(variant, '/') != NULL || *variant == '.')
		fatalx("%s: not a variant name (see 'umkit variants')", variant);
	if (kbuild_is_smoke(variant)) {
		rel = kbuild_smoke_dir(variant);
		k = xasprintf("%s/linux", rel);
		free(rel);
	} else {
		rel = xasprintf("build/k/%s/linux", variant);
		k = top_path(rel);
		free(rel);
	}
	/* A built kernel is used as it is, even without its patches (a copy
	 * of the kit with only the kernel).  With KSRC the kernel may be
	 * stale against that tree: let kbuild say. */
	if (access(k, X_OK) == 0 && getenv("KSRC") == NULL)
		return k;
	free(k);
	if (!kbuild_is_smoke(variant)) {
		/* VARIANT+debug, +cov: VARIANT's patches, another config. */
		rel = xasprintf("%.*s", (int)kbuild_base_len(variant), variant);
		if ((vdir = variant_dir(rel)) == NULL)
			fatalx("no variant '%s' (no %s/%s/series; see 'umkit variants')",
			    variant, kit()->patches, rel);
		free(rel);
		*strrchr(vdir, '/') = '\0';
		q.patches = vdir;
	}
	if (getenv("KSRC") == NULL)
		warnmsg("kernel for variant %s not built yet; building it now",
		    variant);
	if (kbuild_run(&q, &res) != KBUILD_OK)
		fatalx("building variant %s failed: %s (see above)", variant,
		    kbuild_what(res.status));
	k = res.path;
	res.path = NULL;
	kbuild_res_free(&res);
	free(vdir);
	return k;
}
