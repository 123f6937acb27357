/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * drgn.h - drgn (Debian's python3-drgn) on a running guest's kernel, live:
 * the kit's module uml/guest/umkit_drgn.py run on the UML process.  Used by
 * umkit drgn (cmd-drgn.c) and by a lab's drgn step (lab-run.c).
 */
#ifndef UMKIT_DRGN_H
#define UMKIT_DRGN_H

#include <stddef.h>

#include "gdb.h"

/* The python that has Debian's python3-drgn (dist-packages). */
#define DRGN_PYTHON	"/usr/bin/python3"

/*
 * What drgn reads: the kernel binary kernel of guest name (variant as its
 * supervisor says) into k, with debug info.  0, or -1 with the reason
 * (and the command that boots one with it) in why.
 */
int	 drgn_kernel(const char *name, const char *kernel, const char *variant,
	    struct gdb_kernel *k, char *why, size_t len);
/*
 * The argv that runs the kit's module on UML process pid with kernel k:
 * opt ("-e", "--gens", "--" for a script, or NULL for the prompt) and its
 * arguments args[0..nargs).  NULL-terminated, allocated (drgn_argv_free);
 * NULL with why when the module is missing.
 */
char	**drgn_argv(const char *name, long pid, const struct gdb_kernel *k,
	    const char *opt, char *const args[], int nargs, char *why, size_t len);
void	 drgn_argv_free(char **);

#endif
