/* SPDX-License-Identifier: GPL-2.0-only */
/* cmd-variants.c - umkit variants: the kernel variants under patches/. */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "umkit.h"
#include "util.h"

/* Print the variants of one patches directory (skipping names in skip). */
static void
list_dir(const char *dir, const char *skip, const char *tag, int must)
{
	struct dirent	**nl;
	char		 *p, *desc, *k, *rel, dbg[300];
	int		  n, i, w = 14;

	if ((n = scandir(dir, &nl, NULL, alphasort)) < 0) {
		if (must)
			fatal("%s", dir);
		return;
	}
	/* The name column fits the longest name (compaction-noacct). */
	for (i = 0; i < n; i++)
		if ((int)strlen(nl[i]->d_name) > w)
			w = (int)strlen(nl[i]->d_name);
	for (i = 0; i < n; i++) {
		p = xasprintf("%s/%s/series", dir, nl[i]->d_name);
		if (nl[i]->d_name[0] != '.' && access(p, R_OK) == 0) {
			free(p);
			p = skip != NULL ? xasprintf("%s/%s/series", skip,
			    nl[i]->d_name) : NULL;
			if (p != NULL && access(p, R_OK) == 0) {
				warnmsg("%s/%s: ignored, the kit has a variant "
				    "of that name", dir, nl[i]->d_name);
				goto next;
			}
			free(p);
			p = xasprintf("%s/%s/description", dir, nl[i]->d_name);
			desc = read_text(p);
			if (desc != NULL)
				desc[strcspn(desc, "\n")] = '\0';
			rel = xasprintf("build/k/%s/linux", nl[i]->d_name);
			k = top_path(rel);
			printf("%-*s %-6s %s%s\n", w, nl[i]->d_name,
			    access(k, X_OK) == 0 ? "built" : "-", tag,
			    desc ? desc : "(no description)");
			free(rel);
			free(k);
			/* Its debug-info twin, when built (docs/debugging.md). */
			rel = xasprintf("build/k/%s+debug/linux", nl[i]->d_name);
			k = top_path(rel);
			free(rel);
			if (access(k, X_OK) == 0) {
				snprintf(dbg, sizeof dbg, "%s+debug", nl[i]->d_name);
				printf("%-*s %-6s %s with debug info (umkit gdb, "
				    "decoded oopses)\n", w, dbg, "built",
				    nl[i]->d_name);
			}
			free(k);
			free(desc);
		}
next:
		free(p);
		free(nl[i]);
	}
	free(nl);
}

/*
 * umkit variants: the directories of patches/ that have a series file;
 * in an installed kit, then the user's own.
 */
static int
variants_main(int argc, char **argv)
{
	const char	*env = getenv("UMKIT_PATCHES");

	if (env != NULL && *env != '\0') {
		list_dir(env, NULL, "", 1);
		return 0;
	}
	list_dir(kit()->patches, NULL, "", 1);
	if (kit()->own_patches != NULL)
		list_dir(kit()->own_patches, kit()->patches, "(yours) ", 0);
	return 0;
}

const struct cmd cmd_variants = {
	.name = "variants",
	.usage = "variants",
	.help =
"List the kernel variants: each directory patches/VARIANT with a series\n"
"file (quilt format) and a one-line description; 'built' when its kernel\n"
"exists.  Build one with 'make VARIANT=NAME'.  An installed umkit lists\n"
"its own variants (their kernels are installed), then yours: a directory\n"
"~/.local/share/umkit/patches/VARIANT ($XDG_DATA_HOME) with a series file,\n"
"built into ~/.cache/umkit on first use ('umkit exec -V VARIANT ...').\n"
"Any VARIANT+debug is the same kernel with debug info (uml/kernel/debug.config;\n"
"shown once built).\n"
"\n"
"Example:\n"
"  umkit variants",
	.exec = variants_main,
};
