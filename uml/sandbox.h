/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sandbox.h - bubblewrap around what the kit runs for others' code.
 *
 * A UML kernel is an ordinary host process with the user's rights, and
 * a patch's kernel code can reach host files through arch/um's os_*
 * layer; a build runs a patched tree's Makefiles.  So every guest (and,
 * in uml/kernel/kbuild.sh, every build of a tree: the same rules in sh)
 * runs in new user, pid, network, IPC and UTS namespaces, with the host's
 * file system read-only, $HOME, the kit's checkout, run, cache and state
 * directories hidden, and only what the run needs bound back
 * (docs/security.md).
 *
 * UMKIT_SANDBOX=off (the commands' --no-sandbox) runs without it, as does
 * a host whose namespaces do not work for a trusted kernel (the kit's
 * own variants); an untrusted one (a smoke variant, a student's
 * exercise, -k) is then refused (sandbox_refuse).
 */
#ifndef UMKIT_SANDBOX_H
#define UMKIT_SANDBOX_H

#include <stddef.h>

/* The bubblewrap program. */
#define SANDBOX_BWRAP	"bwrap"

struct sandbox {
	char	**argv;		/* bwrap and its options so far */
	int	  argc, cap;
	char	**hidden;	/* the directories hidden, shallowest first */
	int	 *ro;		/* each made read-only once the binds are in
				   (sandbox_argv) */
	int	  nhidden;
};

/* Whether the sandbox is wanted (not UMKIT_SANDBOX=off). */
int	 sandbox_wanted(void);
/*
 * Whether bwrap can make its namespaces here (tried once per process:
 * about 5 ms); when not, why in why (one line).
 */
int	 sandbox_works(char *why, size_t len);
/* Forget a remembered success (a sandboxed start failed after all). */
void	 sandbox_forget(void);
/*
 * Whether to run in the sandbox: wanted and working.  When it is wanted
 * but does not work, a trusted run goes on without it (said once on
 * stderr); an untrusted one exits with one line naming --no-sandbox.
 */
int	 sandbox_use(int trusted, const char *what);
/* Start bwrap's options: the namespaces, the file system read-only, the
 * user's and the kit's own directories hidden. */
void	 sandbox_init(struct sandbox *);
/* Bind path back in, read-only or writable (skipped when missing). */
void	 sandbox_ro(struct sandbox *, const char *path);
void	 sandbox_rw(struct sandbox *, const char *path);
/* Add one bwrap option word. */
void	 sandbox_add(struct sandbox *, const char *arg);
/*
 * The whole argv: bwrap, its options, the hidden directories remounted
 * read-only (a write there fails, EROFS), "--", cmd (NULL-ended; owned).
 */
char	**sandbox_argv(struct sandbox *, char *const cmd[]);
void	 sandbox_free(struct sandbox *);

#endif
