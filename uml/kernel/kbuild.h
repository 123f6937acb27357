/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kbuild.h - building a variant's kernel: the one C door to
 * uml/kernel/kbuild.sh (the script keeps the steps: tree, config, make;
 * see its header).  Every C caller asks here: guests for their kernel,
 * smoke and compare for patched ones, labs for an exercise's tree.
 *
 * Variant names: a variant of patches/ (base, lru-batch), VARIANT+debug
 * (uml/kernel/debug.config added), VARIANT+cov (gcov for the .c files
 * its patches change), and smoke-HASH[-debug|-cov] (a patch under test,
 * its patches in build/smoke/HASH[-debug|-cov]; built in one tree shared
 * by all smoke variants of that kind, build/k/smoke-tree[-debug|-cov]).
 */
#ifndef UMKIT_KBUILD_H
#define UMKIT_KBUILD_H

/* How a build ended (the script's exit statuses 0-4, typed). */
enum kbuild_status {
	KBUILD_OK = 0,
	KBUILD_FAIL_SETUP,	/* 1: no such variant, a bad KSRC, no source */
	KBUILD_FAIL_APPLY,	/* 2: a patch does not apply (nothing changed) */
	KBUILD_FAIL_CONFIG,	/* 3: configuring failed, an option did not stick */
	KBUILD_FAIL_BUILD,	/* 4: make failed (full_log has its output) */
	KBUILD_INTERRUPTED,	/* a signal ended it, or reached us */
	KBUILD_FAIL_OTHER	/* any other status: the script could not run */
};

/* A build's progress, for a progress line. */
struct kbuild_progress {
	int	 applied;	/* the tree and its config are ready, make runs */
	long	 done;		/* objects compiled so far */
	long	 expect;	/* objects the tree's last build compiled (0: ?) */
	double	 secs;		/* since the build started */
};

struct kbuild_req {
	const char	*variant;
	const char	*patches;	/* the directory of variant's own
					   directory (NULL: $UMKIT_PATCHES or
					   the kit's patches/) */
	int		 tree_only;	/* prepare the patched tree only */
	int		 selftests;	/* the tree and its mm selftests; path:
					   their directory (kbuild.sh --selftests) */
	int		 untrusted;	/* not the kit's own series (an
					   exercise): refused without the
					   sandbox; smoke variants always are */
	const char	*log;		/* the script's messages into this file
					   (NULL: on our stderr) */
	/* Called about every 300 ms while it runs, or NULL. */
	void		(*progress)(const struct kbuild_progress *, void *);
	void		*arg;
};

struct kbuild_res {
	enum kbuild_status status;
	int		 code;		/* the script's exit status */
	char		*path;		/* the kernel binary; tree_only: the tree */
	char		*full_log;	/* KBUILD_FAIL_BUILD: make's whole log */
};

/* Build (or bring up to date); fills res, returns res->status. */
enum kbuild_status kbuild_run(const struct kbuild_req *, struct kbuild_res *);
/* Free what kbuild_run put in res. */
void	 kbuild_res_free(struct kbuild_res *);
/* What a status means, in a few words ("a patch does not apply"). */
const char *kbuild_what(enum kbuild_status);

/* Whether variant is a smoke variant (smoke-HASH...). */
int	 kbuild_is_smoke(const char *variant);
/*
 * The directory of a smoke variant's patches and kernel, allocated:
 * build/smoke/SUFFIX for smoke-SUFFIX (or for SUFFIX itself).
 */
char	*kbuild_smoke_dir(const char *variant);
/* The shared tree a variant builds in, allocated: build/k/NAME. */
char	*kbuild_tree_dir(const char *variant);
/*
 * The kernel binary of variant (allocated): a smoke variant's from
 * build/smoke/, any other from build/k/ (an installed kit's shipped
 * kernels as they are); built first when missing (or always checked
 * with $KSRC), saying so.  Exits with the script's message on failure.
 */
char	*kbuild_kernel(const char *variant);
/* The length of variant without a +debug or +cov suffix. */
size_t	 kbuild_base_len(const char *variant);

#endif
