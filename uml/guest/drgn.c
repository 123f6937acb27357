/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * drgn.c - the argv of drgn on a running guest (drgn.h).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "drgn.h"
#include "kernel/kbuild.h"
#include "util.h"

/* The guest's kernel, when it has the debug info drgn needs. */
int
drgn_kernel(const char *name, const char *kernel, const char *variant,
    struct gdb_kernel *k, char *why, size_t len)
{
	char	v[256], *dbg, *dk;

	if (gdb_kernel_find(kernel, k) < 0) {
		snprintf(why, len, "guest %s: its kernel %s is unknown", name, kernel);
		return -1;
	}
	if (k->debuginfo && k->obj != NULL)
		return 0;
	/* drgn needs this very build's DWARF: another's will not do. */
	snprintf(v, sizeof v, "%s", strchr(variant, '/') ? "base" : variant);
	v[kbuild_base_len(v)] = '\0';
	dbg = xasprintf("build/k/%s+debug/linux", v);
	dk = top_path(dbg);
	snprintf(why, len, "guest %s runs %s, a kernel without debug info: drgn "
	    "needs that build's vmlinux; boot one with it: umkit start -V "
	    "%s+debug -n NAME (%s)", name, v, v, access(dk, X_OK) == 0 ?
	    "built" : "it builds on first use, a few minutes");
	free(dk);
	free(dbg);
	gdb_kernel_free(k);
	return -1;
}

/* The argv of the module on the UML process. */
char **
drgn_argv(const char *name, long pid, const struct gdb_kernel *k,
    const char *opt, char *const args[], int nargs, char *why, size_t len)
{
	char		**av = xcalloc((size_t)nargs + 12, sizeof *av), *mod;
	const char	 *py;
	int		  n = 0, i;

	mod = top_path("uml/guest/umkit_drgn.py");
	if (access(mod, R_OK) < 0) {
		snprintf(why, len, "%s: missing", mod);
		free(mod);
		free(av);
		return NULL;
	}
	if ((py = getenv("UMKIT_PYTHON")) == NULL)
		py = access(DRGN_PYTHON, X_OK) == 0 ? DRGN_PYTHON : "python3";
	av[n++] = xstrdup(py);
	av[n++] = xstrdup("-B");	/* no __pycache__ in the kit's folders */
	av[n++] = mod;
	av[n++] = xstrdup("--pid");
	av[n++] = xasprintf("%ld", pid);
	av[n++] = xstrdup("--vmlinux");
	av[n++] = xstrdup(k->symbols);
	av[n++] = xstrdup("--name");
	av[n++] = xstrdup(name);
	if (opt != NULL)
		av[n++] = xstrdup(opt);
	for (i = 0; i < nargs; i++)
		av[n++] = xstrdup(args[i]);
	av[n] = NULL;
	return av;
}

/* Free an argv of drgn_argv. */
void
drgn_argv_free(char **av)
{
	int	i;

	for (i = 0; av != NULL && av[i] != NULL; i++)
		free(av[i]);
	free(av);
}
