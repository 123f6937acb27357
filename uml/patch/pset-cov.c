/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pset-cov.c - a patch list written as a coverage variant (patchin.h):
 * its patches, uml/kernel/gcov.config as its config, and the profile
 * that kbuild.sh reads (the objects of the .c files the patches change,
 * the only ones built with gcov).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "patchin.h"
#include "util.h"

/*
 * Write a coverage variant directory: ps's patches, uml/kernel/gcov.config as
 * its config, and a profile naming the objects of the .c files they
 * change (kbuild.sh profiles those only).
 */
void
pset_write_cov(const struct pset *ps, const char *dir)
{
	char		 err[1024], *prof, *cfgf = top_path("uml/kernel/gcov.config");
	char		*cfg = read_text(cfgf);
	struct afile	 af;
	FILE		*f;
	const char **seen = NULL;
	int	 i, j, k, nseen = 0;

	if (cfg == NULL)
		fatal("%s", cfgf);
	if (pset_write(ps, dir, cfg, err, sizeof err) < 0)
		fatalx("%s", err);
	free(cfg);
	free(cfgf);
	prof = xasprintf("%s/profile", dir);
	if (access(prof, F_OK) == 0) {
		free(prof);
		return;
	}
	if ((f = afile_open(&af, prof, 0644)) == NULL)
		fatal("%s", prof);
	fprintf(f, "# the objects of the .c files the patches change\n");
	for (i = 0; i < ps->n; i++) {
		for (j = 0; j < ps->v[i].nfiles; j++) {
			const char	*p = ps->v[i].files[j];
			size_t		 len = strlen(p);

			if (len < 3 || strcmp(p + len - 2, ".c") != 0)
				continue;
			/* Once each, in the order they first come. */
			for (k = 0; k < nseen && strcmp(seen[k], p) != 0; k++)
				;
			if (k < nseen)
				continue;
			seen = xrealloc(seen, (nseen + 1) * sizeof *seen);
			seen[nseen++] = p;
			fprintf(f, "%.*s.o\n", (int)(len - 2), p);
		}
	}
	free(seen);
	if (afile_commit(&af) < 0)
		fatal("%s", prof);
	free(prof);
}
