/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * smoke-tested.c - what the build tested of a patch's files: a .c or .S
 * file is tested when the kernel has its object, a header when an object
 * that includes it was built (its .o.cmd dependency list names it), and
 * nothing else is code.  A .c file without an object gets the reason from
 * the tree: its Makefile's obj-$(CONFIG_X) line and X's state in the
 * .config ("is not set": UML offers it, a config fragment can turn it on;
 * absent: its dependencies are not met for ARCH=um).
 *
 * The tree is the patched one, so its Makefiles and .config are data:
 * read bounded, never run.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernel/kbuild.h"
#include "mkline.h"
#include "smoke.h"
#include "util.h"

#define MAKEFILE_MAX	(1 << 20)
#define CMD_MAX		(4 << 20)

/* Read a file of at most max bytes, or NULL. */
static char *
slurp(const char *path, size_t max)
{
	int	 fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	char	*t;

	if (fd < 0)
		return NULL;
	t = read_fd_all(fd, max, NULL);
	close(fd);
	return t;
}

/*
 * The line of dir/Makefile that names token (an object, or "sub/" for a
 * directory), into line; the CONFIG_ name on it into cfg ("" for obj-y).
 * 0, or -1 when no line names it.
 */
static int
make_token(const char *src, const char *dir, const char *token, char *cfg,
    size_t cfglen, char *line, size_t linelen)
{
	char	*mk, *text, l[128];
	int	 rc;

	mk = xasprintf("%s/%s/Makefile", src, dir);
	text = slurp(mk, MAKEFILE_MAX);
	rc = text ? mkline_find(text, token, cfg, cfglen, l, sizeof l) : -1;
	if (rc == 0)
		snprintf(line, linelen, "%s/Makefile: %s", dir, l);
	free(text);
	free(mk);
	return rc;
}

/*
 * The CONFIG_ option that keeps file's object out: its Makefile's
 * obj-$(CONFIG_X) line, or for an obj-y line the one of its directory in
 * the Makefile above (mm/damon/core.o is obj-y; mm/Makefile has
 * obj-$(CONFIG_DAMON) += damon/).  0 with cfg and line, or -1.
 */
static int
make_line(const char *src, const char *file, const char *obj, char *cfg,
    size_t cfglen, char *line, size_t linelen)
{
	char		*dir = xstrdup(file), tok[256], *slash;
	const char	*base = strrchr(obj, '/') ? strrchr(obj, '/') + 1 : obj;
	int		 rc = -1, depth;

	if ((slash = strrchr(dir, '/')) != NULL)
		*slash = '\0';
	else
		strcpy(dir, ".");
	snprintf(tok, sizeof tok, "%s", base);
	for (depth = 0; depth < 8; depth++) {
		if (make_token(src, dir, tok, cfg, cfglen, line, linelen) < 0)
			break;
		if (cfg[0] != '\0') {
			rc = 0;
			break;
		}
		/* obj-y: built when its directory is; one Makefile up */
		if ((slash = strrchr(dir, '/')) == NULL)
			break;
		snprintf(tok, sizeof tok, "%s/", slash + 1);
		*slash = '\0';
	}
	free(dir);
	return rc;
}

/* Why file (a .c or .S) has no object: into why. */
static void
why_unbuilt(const char *src, const char *obj_dir, const char *file,
    const char *obj, char *why, size_t len)
{
	char	 cfg[128], line[300], *conf, *p, *want;

	if (make_line(src, file, obj, cfg, sizeof cfg, line, sizeof line) < 0) {
		snprintf(why, len, "not built (no obj-$(CONFIG_...) line names %s "
		    "in its Makefile)", obj);
		return;
	}
	conf = xasprintf("%s/.config", obj_dir);
	p = slurp(conf, MAKEFILE_MAX);
	free(conf);
	want = xasprintf("# %s is not set\n", cfg);
	if (p != NULL && strstr(p, want) != NULL)
		snprintf(why, len, "not built: %s is not set in this kernel; UML "
		    "offers it: --config %s=y turns it on (%s)", cfg, cfg, line);
	else if (p != NULL && (free(want), want = xasprintf("\n%s=", cfg),
	    strstr(p, want) == NULL))
		snprintf(why, len, "not built: %s cannot be set for ARCH=um (its "
		    "dependencies are not met: it is not in the .config) (%s)", cfg,
		    line);
	else
		snprintf(why, len, "not built, though %s is set (%s)", cfg, line);
	free(want);
	free(p);
}

/* How many .o.cmd files under dir name header (at most max scanned). */
static int
includers(const char *dir, const char *header, int depth, int *budget)
{
	DIR		*d;
	struct dirent	*e;
	char		*p, *t;
	size_t		 n;
	int		 k = 0;

	if (depth > 12 || (d = opendir(dir)) == NULL)
		return 0;
	while ((e = readdir(d)) != NULL && *budget > 0) {
		if (e->d_name[0] == '.' && (e->d_name[1] == '\0' ||
		    (e->d_name[1] == '.' && e->d_name[2] == '\0')))
			continue;
		p = xasprintf("%s/%s", dir, e->d_name);
		n = strlen(e->d_name);
		if (e->d_type == DT_DIR)
			k += includers(p, header, depth + 1, budget);
		else if (e->d_name[0] == '.' && n > 6 &&
		    strcmp(e->d_name + n - 6, ".o.cmd") == 0) {
			(*budget)--;
			if ((t = slurp(p, CMD_MAX)) != NULL && strstr(t, header) != NULL)
				k++;
			free(t);
		}
		free(p);
	}
	closedir(d);
	return k;
}

/* Whether path ends with suffix. */
static int
ends(const char *path, const char *suffix)
{
	size_t	n = strlen(path), k = strlen(suffix);

	return n >= k && strcmp(path + n - k, suffix) == 0;
}

/* The tested stage: per changed file, built or not and why. */
int
smoke_tested(struct smoke *s)
{
	char	*tree = kbuild_tree_dir(s->variant), *src, *objd, *o, *obj;
	char	 why[1200], hdr[512];
	int	 i, tested = 0, code = 0, budget = 200000, n;
	char	**lines = xcalloc((size_t)s->nchanged + 1, sizeof *lines);
	const char **state = xcalloc((size_t)s->nchanged + 1, sizeof *state);
	struct stat sb;

	src = xasprintf("%s/src", tree);
	objd = xasprintf("%s/obj", tree);
	for (i = 0; i < s->nchanged; i++) {
		const char	*f = s->changed[i];

		if (ends(f, ".c") || ends(f, ".S")) {
			code++;
			obj = xasprintf("%.*s.o", (int)strlen(f) - 2, f);
			o = xasprintf("%s/%s", objd, obj);
			if (stat(o, &sb) == 0) {
				tested++;
				lines[i] = xasprintf("%s: built (%s)", f, obj);
				state[i] = "built";
			} else {
				why_unbuilt(src, objd, f, obj, why, sizeof why);
				lines[i] = xasprintf("%s: %s", f, why);
				state[i] = "not built";
			}
			free(o);
			free(obj);
		} else if (ends(f, ".h")) {
			code++;
			/* the .o.cmd files name it as "$(srctree)/PATH" or a
			 * path relative to the tree: match "/PATH" and " PATH" */
			snprintf(hdr, sizeof hdr, "%s", f);
			n = includers(objd, hdr, 0, &budget);
			if (n > 0) {
				tested++;
				lines[i] = xasprintf("%s: in %d built object%s", f, n,
				    n == 1 ? "" : "s");
				state[i] = "included";
			} else {
				lines[i] = xasprintf("%s: no built object includes it", f);
				state[i] = "not included";
			}
		} else {
			lines[i] = xasprintf("%s: not C (Kconfig, Makefile, docs: "
			    "what it changes shows in the other files)", f);
			state[i] = "not code";
		}
	}
	if (tested > 0)
		smoke_stage(s, "tested", "ok: %d of %d code file%s built into this "
		    "kernel", tested, code, code == 1 ? "" : "s");
	else
		smoke_stage(s, "tested", "NOT TESTED: %s", code == 0 ?
		    "the patch changes no C file or header" :
		    "no file it changes is built into this kernel");
	for (i = 0; i < s->nchanged; i++) {
		printf("    %s\n", lines[i]);
		smoke_stage_detail(s, lines[i]);
	}
	/* kept for --json (smoke_free frees them) */
	s->file_line = lines;
	s->file_state = state;
	free(src);
	free(objd);
	free(tree);
	return tested > 0 ? 0 : SMOKE_NOT_TESTED;
}
