/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * lab-exbuild.c - getting a lab's exercise ready: the skeleton written for
 * the student, their program built for the guest, or their kernel file
 * built as a variant of its own (lab-ex.h).
 */
#define _GNU_SOURCE
#include <errno.h>
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
 * The patched source tree of the variant of lab's kernel exercise,
 * allocated (top_dir()/build/k/VARIANT/src: an installed kit's is in the
 * user's cache), made by kbuild.sh --tree when it is not there: the kit's
 * kernels, installed ones above all, come without their trees.  NULL
 * when that failed (kbuild said why).
 */
static char *
variant_tree(const struct lab *l)
{
	struct kbuild_req	 q = { .variant = l->ex_variant, .tree_only = 1 };
	struct kbuild_res	 res;
	char			*tree, *stamp, *vdir, *rel;

	rel = xasprintf("build/k/%s/src", l->ex_variant);
	tree = xasprintf("%s/%s", top_dir(), rel);
	free(rel);
	stamp = xasprintf("%s/.umkit-stamp", tree);
	if (access(stamp, R_OK) == 0) {
		free(stamp);
		return tree;
	}
	free(stamp);
	free(tree);
	if ((vdir = variant_dir(l->ex_variant)) == NULL) {
		warnmsg("lab %s: no variant '%s'", l->name, l->ex_variant);
		return NULL;
	}
	*strrchr(vdir, '/') = '\0';
	q.patches = vdir;
	fprintf(stderr, "umkit: lab %s: preparing the source of variant %s\n",
	    l->name, l->ex_variant);
	kbuild_run(&q, &res);
	free(vdir);
	if (res.status != KBUILD_OK) {
		warnmsg("lab %s: cannot prepare the source of variant %s: %s (see "
		    "above)", l->name, l->ex_variant, kbuild_what(res.status));
		kbuild_res_free(&res);
		return NULL;
	}
	tree = res.path;
	res.path = NULL;
	kbuild_res_free(&res);
	return tree;
}

/* Write the skeleton of lab's exercise to dst; 0 or -1 (said why). */
static int
write_skeleton(const struct lab *l, const char *dst)
{
	char	*sol, *sk, err[256], *src, *tree;

	if (l->ex_kind == LEX_PROGRAM)
		src = xstrdup(l->ex_file);
	else {
		if ((tree = variant_tree(l)) == NULL)
			return -1;
		src = xasprintf("%s/%s", tree, l->ex_path);
		free(tree);
	}
	if ((sol = read_text(src)) == NULL) {
		warnmsg("%s: %s", src, strerror(errno));
		free(src);
		return -1;
	}
	sk = l->ex_kind == LEX_PROGRAM ? ex_skeleton(sol, err, sizeof err) :
	    ex_strip_function(sol, l->ex_func, l->ex_todo, err, sizeof err);
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

/* The name of lab's program in the guest, allocated: 04-twothreads.c is
 * twothreads. */
static char *
program_name(const struct lab *l)
{
	const char	*b0 = base_name(l->ex_file);
	char		*name;

	b0 += strspn(b0, "0123456789");
	if (*b0 == '-' && b0 != base_name(l->ex_file))
		b0++;
	name = xstrdup(b0);
	name[strlen(name) - 2] = '\0';
	return name;
}

/*
 * The solution's program as an installed kit ships it (PREFIX/lib/umkit/
 * exercise/NAME, built by make): without --exercise, nothing is compiled
 * at run time.  0 when there is one (b->add set), else -1.
 */
static int
shipped_program(const struct lab *l, struct ex_build *b)
{
	char	*name, *bin;
	int	 r = -1;

	if (!kit()->installed)
		return -1;
	name = program_name(l);
	bin = xasprintf("%s/exercise/%s", kit()->lib, name);
	if (access(bin, X_OK) == 0) {
		b->add = xasprintf("%s:/usr/local/bin/%s", bin, name);
		r = 0;
	}
	free(bin);
	free(name);
	return r;
}

/* Build the student's (or the solution's) program for the guest. */
static int
build_program(const struct lab *l, const char *src, const char *outdir,
    struct ex_build *b)
{
	char		*name, *bin;
	char		*argv[10];
	struct spawn	 sp;
	int		 n = 0;

	name = program_name(l);
	bin = xasprintf("%s/%s", outdir, name);
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
		free(name);
		return -1;
	}
	b->add = xasprintf("%s:/usr/local/bin/%s", bin, name);
	free(bin);
	free(name);
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
 * (ex-LAB) in a patches directory of its own.
 */
static int
build_kernel(const struct lab *l, const char *src, struct ex_build *b)
{
	char	*pdir = xasprintf("%s/build/exercise/patches", top_dir());
	char	*vname = xasprintf("ex-%s", l->name), *vdir, *s, *orig, *line;
	char			*series, *patch, *from, *to, *la, *lb;
	struct kbuild_req	 q = { 0 };
	struct kbuild_res	 res;
	FILE			*f;
	int			 st;

	vdir = xasprintf("%s/%s", pdir, vname);
	rm_tree(vdir);
	mkdirs(vdir);
	if ((from = variant_dir(l->ex_variant)) == NULL) {
		warnmsg("lab %s: no variant '%s'", l->name, l->ex_variant);
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
	if ((line = variant_tree(l)) == NULL)
		return -1;
	orig = xasprintf("%s/%s", line, l->ex_path);
	free(line);
	patch = xasprintf("%s/zz-exercise.patch", vdir);
	la = xasprintf("a/%s", l->ex_path);
	lb = xasprintf("b/%s", l->ex_path);
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
	s = xasprintf("exercise of lab %s: %s with %s\n", l->name, l->ex_variant, src);
	ex_write(to, s);
	free(s);
	free(to);
	fprintf(stderr, "umkit: lab %s: building the kernel with your %s "
	    "(a minute or two)\n", l->name, base_name(l->ex_path));
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
	b->variant = xstrdup(l->ex_variant);
	b->kernel = xasprintf("%s/build/k/%s/linux", top_dir(), vname);
	free(orig);
	free(patch);
	free(from);
	free(vdir);
	free(vname);
	free(pdir);
	return 0;
}

/* Get the lab's exercise ready. */
int
ex_prepare(const struct lab *l, const char *dir, const char *outdir,
    struct ex_build *b)
{
	const char	*file;
	char		*src;
	int		 r;

	memset(b, 0, sizeof *b);
	if (l->ex_kind == LEX_NONE) {
		if (dir != NULL) {
			warnmsg("lab %s has no exercise", l->name);
			return 2;
		}
		return 0;
	}
	file = l->ex_kind == LEX_PROGRAM ? base_name(l->ex_file) : base_name(l->ex_path);
	if (dir == NULL) {
		/* The solution: what make test grades. */
		if (l->ex_kind == LEX_KERNEL)
			return 0;	/* the variant itself */
		if (shipped_program(l, b) == 0)
			return 0;
		return build_program(l, l->ex_file, outdir, b) < 0 ? 2 : 0;
	}
	mkdirs(dir);
	src = xasprintf("%s/%s", dir, file);
	if (access(src, F_OK) < 0) {
		/* a kernel exercise starts from the variant's tree (variant_tree) */
		if (write_skeleton(l, src) < 0) {
			free(src);
			return 2;
		}
		printf("The exercise of lab %s is in %s: complete its TODO, then run\n"
		    "  umkit lab %s --exercise %s\n", l->name, src, l->name, dir);
		free(src);
		return 1;
	}
	r = l->ex_kind == LEX_PROGRAM ? build_program(l, src, outdir, b) :
	    build_kernel(l, src, b);
	free(src);
	return r < 0 ? 2 : 0;
}
