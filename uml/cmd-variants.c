/* cmd-variants.c - umkit variants: the kernel variants under patches/. */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "umkit.h"
#include "util.h"

/* umkit variants: the directories of patches/ that have a series file. */
static int
variants_main(int argc, char **argv)
{
	struct dirent	**nl;
	char		 *dir, *p, *desc, *k, dbg[300];
	int		  n, i, w = 14;

	dir = getenv("UMKIT_PATCHES") ? xstrdup(getenv("UMKIT_PATCHES")) :
	    top_path("patches");
	if ((n = scandir(dir, &nl, NULL, alphasort)) < 0)
		fatal("%s", dir);
	/* The name column fits the longest name (compaction-noacct). */
	for (i = 0; i < n; i++)
		if ((int)strlen(nl[i]->d_name) > w)
			w = (int)strlen(nl[i]->d_name);
	for (i = 0; i < n; i++) {
		p = xasprintf("%s/%s/series", dir, nl[i]->d_name);
		if (nl[i]->d_name[0] != '.' && access(p, R_OK) == 0) {
			free(p);
			p = xasprintf("%s/%s/description", dir, nl[i]->d_name);
			desc = read_text(p);
			if (desc != NULL)
				desc[strcspn(desc, "\n")] = '\0';
			k = xasprintf("%s/build/k/%s/linux", top_dir(), nl[i]->d_name);
			printf("%-*s %-6s %s\n", w, nl[i]->d_name,
			    access(k, X_OK) == 0 ? "built" : "-",
			    desc ? desc : "(no description)");
			free(k);
			/* Its debug-info twin, when built (docs/debugging.md). */
			k = xasprintf("%s/build/k/%s+debug/linux", top_dir(),
			    nl[i]->d_name);
			if (access(k, X_OK) == 0) {
				snprintf(dbg, sizeof dbg, "%s+debug", nl[i]->d_name);
				printf("%-*s %-6s %s with debug info (umkit gdb, "
				    "decoded oopses)\n", w, dbg, "built",
				    nl[i]->d_name);
			}
			free(k);
			free(desc);
		}
		free(p);
		free(nl[i]);
	}
	free(nl);
	free(dir);
	return 0;
}

const struct cmd cmd_variants = {
	.name = "variants",
	.usage = "variants",
	.help =
"List the kernel variants: each directory patches/VARIANT with a series\n"
"file (quilt format) and a one-line description; 'built' when its kernel\n"
"exists.  Build one with 'make VARIANT=NAME'.  Any VARIANT+debug is the\n"
"same kernel with debug info (uml/debug.config; shown once built).\n"
"\n"
"Example:\n"
"  umkit variants",
	.exec = variants_main,
};
