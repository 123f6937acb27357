/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * lab-exbuild.c - getting a lab's exercises ready: the skeleton written
 * for the student, the programs built for the guest (the student's, or
 * the solutions), or the student's kernel file built as a variant of its
 * own (lab-ex.h).  A lab's grader cases are steps the parser made
 * (lab-file.c): they run on what is prepared here.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kernel/kbuild.h"
#include "lab-ex.h"
#include "spawn.h"
#include "util.h"

/* The last component of a path. */
static const char *
base_name(const char *p)
{
	const char	*s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/* Make dir and its parents. */
static void
mkdirs(const char *dir)
{
	char	*d = xstrdup(dir), *p;

	for (p = d + 1; *p != '\0'; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(d, 0755);
			*p = '/';
		}
	mkdir(d, 0755);
	free(d);
}

/*
 * The patched source tree of a kernel exercise's variant, allocated
 * (top_dir()/build/k/VARIANT/src: an installed kit's is in the user's
 * cache), made by kbuild.sh --tree when it is not there: the kit's
 * kernels, installed ones above all, come without their trees.  NULL
 * when that failed (kbuild said why).
 */
static char *
variant_tree(const struct lab *l, const struct lexercise *e)
{
	struct kbuild_req	 q = { .variant = e->variant, .tree_only = 1 };
	struct kbuild_res	 res;
	char			*tree, *stamp, *vdir, *rel;

	rel = xasprintf("build/k/%s/src", e->variant);
	tree = xasprintf("%s/%s", top_dir(), rel);
	free(rel);
	stamp = xasprintf("%s/.umkit-stamp", tree);
	if (access(stamp, R_OK) == 0) {
		free(stamp);
		return tree;
	}
	free(stamp);
	free(tree);
	if ((vdir = variant_dir(e->variant)) == NULL) {
		warnmsg("lab %s: no variant '%s'", l->name, e->variant);
		return NULL;
	}
	*strrchr(vdir, '/') = '\0';
	q.patches = vdir;
	fprintf(stderr, "umkit: lab %s: preparing the source of variant %s\n",
	    l->name, e->variant);
	kbuild_run(&q, &res);
	free(vdir);
	if (res.status != KBUILD_OK) {
		warnmsg("lab %s: cannot prepare the source of variant %s: %s (see "
		    "above)", l->name, e->variant, kbuild_what(res.status));
		kbuild_res_free(&res);
		return NULL;
	}
	tree = res.path;
	res.path = NULL;
	kbuild_res_free(&res);
	return tree;
}

/* Write the skeleton of exercise e to dst; 0 or -1 (said why). */
static int
write_skeleton(const struct lab *l, const struct lexercise *e, const char *dst)
{
	char	*sol, *sk, err[256], *src, *tree;

	if (e->kind == LEX_PROGRAM)
		src = xstrdup(e->file);
	else {
		if ((tree = variant_tree(l, e)) == NULL)
			return -1;
		src = xasprintf("%s/%s", tree, e->path);
		free(tree);
	}
	if ((sol = read_text(src)) == NULL) {
		warnmsg("%s: %s", src, strerror(errno));
		free(src);
		return -1;
	}
	sk = e->kind == LEX_PROGRAM ? ex_skeleton(sol, err, sizeof err) :
	    ex_strip_function(sol, e->func, e->todo, err, sizeof err);
	if (sk == NULL) {
		warnmsg("%s: %s", src, err);
		free(sol);
		free(src);
		return -1;
	}
	if (ex_write(dst, sk) < 0) {
		warnmsg("%s: %s", dst, strerror(errno));
		free(sk);
		free(sol);
		free(src);
		return -1;
	}
	free(sk);
	free(sol);
	free(src);
	return 0;
}

/*
 * The solutions' programs as an installed kit ships them (PREFIX/lib/
 * umkit/exercise/NAME, built by make), the directory allocated when it
 * has every program exercise of l: without --exercise, nothing is
 * compiled at run time.  NULL otherwise.
 */
static char *
shipped_programs(const struct lab *l)
{
	char	*dir, *bin;
	int	 i, ok = 1;

	if (!kit()->installed)
		return NULL;
	dir = xasprintf("%s/exercise", kit()->lib);
	for (i = 0; i < l->nexercises && ok; i++) {
		if (l->exercises[i].kind != LEX_PROGRAM)
			continue;
		bin = xasprintf("%s/%s", dir, l->exercises[i].prog);
		ok = access(bin, X_OK) == 0;
		free(bin);
	}
	if (!ok) {
		free(dir);
		return NULL;
	}
	return dir;
}

/* Build the student's (or the solution's) program of e into bindir. */
static int
build_program(const struct lab *l, const struct lexercise *e, const char *src,
    const char *bindir)
{
	char		*bin;
	char		*argv[10];
	struct spawn	 sp;
	int		 n = 0;

	bin = xasprintf("%s/%s", bindir, e->prog);
	argv[n++] = "gcc";
	argv[n++] = "-static";
	argv[n++] = "-O2";
	argv[n++] = "-Wall";
	argv[n++] = "-pthread";
	argv[n++] = "-o";
	argv[n++] = bin;
	argv[n++] = (char *)src;
	argv[n] = NULL;
	unlink(bin);
	spawn_init(&sp, argv);
	sp.out = 2;		/* the compiler's messages, all on stderr */
	if (spawn_run(&sp) != 0) {
		warnmsg("lab %s: %s does not build (the compiler's messages are above)",
		    l->name, src);
		free(bin);
		return -1;
	}
	free(bin);
	return 0;
}

/* Copy a file; 0 or -1. */
static int
copy_file(const char *from, const char *to)
{
	char	*t = read_text(from);
	int	 r;

	if (t == NULL)
		return -1;
	r = ex_write(to, t);
	free(t);
	return r;
}

/*
 * The kernel with the student's file: the variant's series plus one patch
 * from the variant's file to the student's, built as its own variant
 * (ex-LAB for a lab's first exercise, ex-LAB-ID for another) in a patches
 * directory of its own.
 */
static int
build_kernel(const struct lab *l, const struct lexercise *e, const char *src,
    struct ex_build *b)
{
	char	*pdir = xasprintf("%s/build/exercise/patches", top_dir());
	char	*vname, *vdir, *s, *orig, *line;
	char			*series, *patch, *from, *to, *la, *lb;
	struct kbuild_req	 q = { 0 };
	struct kbuild_res	 res;
	FILE			*f;
	int			 st;

	vname = e == &l->exercises[0] ? xasprintf("ex-%s", l->name) :
	    xasprintf("ex-%s-%s", l->name, e->id);
	vdir = xasprintf("%s/%s", pdir, vname);
	rm_tree(vdir);
	mkdirs(vdir);
	if ((from = variant_dir(e->variant)) == NULL) {
		warnmsg("lab %s: no variant '%s'", l->name, e->variant);
		return -1;
	}
	series = xasprintf("%s/series", from);
	if ((s = read_text(series)) == NULL) {
		warnmsg("%s: %s", series, strerror(errno));
		return -1;
	}
	/* the variant's patches, config and series */
	for (line = strtok(s, "\n"); line != NULL; line = strtok(NULL, "\n")) {
		char	*name = line + strspn(line, " \t"), *src2, *dst;

		if (*name == '#' || *name == '\0')
			continue;
		name[strcspn(name, " \t#")] = '\0';
		src2 = xasprintf("%s/%s", from, name);
		dst = xasprintf("%s/%s", vdir, name);
		if (copy_file(src2, dst) < 0) {
			warnmsg("%s: %s", src2, strerror(errno));
			return -1;
		}
		free(src2);
		free(dst);
	}
	free(s);
	to = xasprintf("%s/series", vdir);
	copy_file(series, to);
	free(to);
	free(series);
	to = xasprintf("%s/config", vdir);
	s = xasprintf("%s/config", from);
	if (access(s, R_OK) == 0)
		copy_file(s, to);
	free(s);
	free(to);
	/* the student's change on top, unless there is none */
	if ((line = variant_tree(l, e)) == NULL)
		return -1;
	orig = xasprintf("%s/%s", line, e->path);
	free(line);
	patch = xasprintf("%s/zz-exercise.patch", vdir);
	la = xasprintf("a/%s", e->path);
	lb = xasprintf("b/%s", e->path);
	{
		char	*dargv[] = { "diff", "-u", "--label", la, "--label", lb,
			    orig, (char *)src, NULL };
		struct spawn	sp;

		spawn_init(&sp, dargv);
		sp.out_file = patch;
		st = spawn_run(&sp);
	}
	free(la);
	free(lb);
	if (st == 1) {
		to = xasprintf("%s/series", vdir);
		if ((f = fopen(to, "a")) != NULL) {
			fprintf(f, "zz-exercise.patch\n");
			fclose(f);
		}
		free(to);
	} else if (st != 0) {
		warnmsg("lab %s: cannot compare %s with %s", l->name, src, orig);
		return -1;
	} else
		unlink(patch);
	to = xasprintf("%s/description", vdir);
	s = xasprintf("exercise %s of lab %s: %s with %s\n", e->id, l->name,
	    e->variant, src);
	ex_write(to, s);
	free(s);
	free(to);
	fprintf(stderr, "umkit: lab %s: building the kernel with your %s "
	    "(a minute or two)\n", l->name, base_name(e->path));
	q.variant = vname;
	q.patches = pdir;
	q.untrusted = 1;	/* the student's code */
	if (kbuild_run(&q, &res) != KBUILD_OK) {
		warnmsg("lab %s: the kernel with your %s does not build (the "
		    "compiler's messages are above)", l->name, src);
		kbuild_res_free(&res);
		return -1;
	}
	kbuild_res_free(&res);
	b->variant = xstrdup(e->variant);
	b->kernel = xasprintf("%s/build/k/%s/linux", top_dir(), vname);
	free(orig);
	free(patch);
	free(from);
	free(vdir);
	free(vname);
	free(pdir);
	return 0;
}

/* Whether l has an exercise of that kind. */
static bool
ex_find_kind(const struct lab *l, int kind)
{
	int	i;

	for (i = 0; i < l->nexercises; i++)
		if ((int)l->exercises[i].kind == kind)
			return true;
	return false;
}

/*
 * The programs for the guest into bindir: every program exercise's
 * solution (mine NULL), or only mine from the student's src.  0, or -1
 * (said why).
 */
static int
build_programs(const struct lab *l, const struct lexercise *mine,
    const char *src, const char *bindir, int *nbuilt)
{
	int	i;

	*nbuilt = 0;
	for (i = 0; i < l->nexercises; i++) {
		const struct lexercise	*e = &l->exercises[i];

		if (e->kind != LEX_PROGRAM || (mine != NULL && e != mine))
			continue;
		if (build_program(l, e, mine != NULL ? src : e->file, bindir) < 0)
			return -1;
		(*nbuilt)++;
	}
	return 0;
}

/*
 * Remove the program directories (outdir/LAB-PID) of runs of lab l whose
 * process is gone: a run killed before ex_release.
 */
static void
reap_bindirs(const struct lab *l, const char *outdir)
{
	DIR		*d = opendir(outdir);
	struct dirent	*de;
	size_t		 n = strlen(l->name);
	char		*end, *path;
	long		 pid;

	if (d == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (strncmp(de->d_name, l->name, n) != 0 || de->d_name[n] != '-')
			continue;
		/* LAB-PID only: another lab's name may start with LAB- */
		pid = strtol(de->d_name + n + 1, &end, 10);
		if (*end != '\0' || pid <= 0 || pid > INT_MAX)
			continue;
		if (kill((pid_t)pid, 0) < 0 && errno == ESRCH) {
			path = xasprintf("%s/%s", outdir, de->d_name);
			rm_tree(path);
			free(path);
		}
	}
	closedir(d);
}

/* Remove what ex_prepare built for this run and free b's fields. */
void
ex_release(struct ex_build *b)
{
	if (b->bindir != NULL)
		rm_tree(b->bindir);
	free(b->bindir);
	free(b->add);
	free(b->variant);
	free(b->kernel);
	b->bindir = b->add = b->variant = b->kernel = NULL;
}

/* Get the lab's exercises ready. */
int
ex_prepare(struct lab *l, const char *dir, const char *id,
    const char *outdir, struct ex_build *b)
{
	const struct lexercise	*e = NULL;
	char			*src = NULL, *bindir, *shipped;
	int			 r = 0, n;

	memset(b, 0, sizeof *b);
	b->student = dir != NULL;
	if (l->nexercises == 0) {
		if (dir == NULL)
			return 0;
		warnmsg("lab %s has no exercise", l->name);
		return 2;
	}
	if (dir != NULL && (e = ex_find(l, id)) == NULL) {
		warnmsg("lab %s has no exercise '%s'; its exercises:", l->name, id);
		ex_list(l, stderr);
		return 2;
	}
	if (e != NULL && id == NULL && l->nexercises > 1) {
		fprintf(stderr, "umkit: lab %s has %d exercises; this is %s "
		    "(--exercise-id ID picks another):\n", l->name, l->nexercises,
		    e->id);
		ex_list(l, stderr);
	}
	if (e != NULL) {
		mkdirs(dir);
		src = xasprintf("%s/%s", dir, base_name(e->kind == LEX_PROGRAM ?
		    e->file : e->path));
		if (access(src, F_OK) < 0) {
			/* a kernel exercise starts from the variant's tree */
			if (write_skeleton(l, e, src) < 0) {
				free(src);
				return 2;
			}
			printf("The exercise of lab %s is in %s: complete its TODO, "
			    "then run\n  umkit lab %s --exercise %s%s%s\n", l->name,
			    src, l->name, dir, id != NULL ? " --exercise-id " : "",
			    id != NULL ? id : "");
			free(src);
			return 1;
		}
	}
	/*
	 * The programs: the solutions, or only the student's (the other
	 * exercises' cases are then left out, ex_pick, and a lab step that
	 * runs another's program skips by its needs).  A directory of their
	 * own, added to /usr/local/bin.
	 */
	if (e == NULL && (shipped = shipped_programs(l)) != NULL) {
		b->add = xasprintf("%s:/usr/local/bin", shipped);
		free(shipped);
	} else if (e == NULL ? ex_find_kind(l, LEX_PROGRAM) :
	    e->kind == LEX_PROGRAM) {
		reap_bindirs(l, outdir);
		bindir = xasprintf("%s/%s-%d", outdir, l->name, (int)getpid());
		rm_tree(bindir);
		mkdirs(bindir);
		b->bindir = bindir;
		r = build_programs(l, e, src, bindir, &n);
		if (r == 0 && n > 0)
			b->add = xasprintf("%s:/usr/local/bin", bindir);
	}
	if (r == 0 && e != NULL)
		ex_pick(l, e);
	/* The kernel: the variant as it is, or with the student's file. */
	if (r == 0 && e != NULL && e->kind == LEX_KERNEL)
		r = build_kernel(l, e, src, b);
	free(src);
	return r < 0 ? 2 : 0;
}
