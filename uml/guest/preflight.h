/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * preflight.h - what UML needs from the host, checked before a boot.
 *
 * UML maps the guest's memory from a temporary file that it maps
 * executable, in $TMPDIR ($TMP, $TEMP), else /dev/shm or /tmp; a noexec
 * mount (Docker's /dev/shm, a hardened /tmp) or one too small for the
 * guest's memory makes the boot fail, and the reason only reaches the
 * console log.  SMP guests need the seccomp userspace mode (seccomp
 * filters allowed); named guests need a /dev/fuse they can open for the
 * mirror; a repeatable memory layout needs personality(2) to turn
 * ASLR off.  Each check says ok, or what is wrong and how to fix it.
 */
#ifndef UMKIT_PREFLIGHT_H
#define UMKIT_PREFLIGHT_H

#include <stddef.h>

struct guest_opts;

enum pf_level { PF_OK, PF_WARN, PF_FAIL };

struct pf_result {
	const char	*name;		/* what was checked: "temp dir", ... */
	enum pf_level	 level;
	char		 what[512];	/* what was found */
	char		 fix[512];	/* the remedy (empty when ok) */
};

/*
 * The temp directory UML will use for a guest of mem_mb MiB.  When it is
 * unusable and dir_in_run (run/, where the guest's own run directory
 * lives) is usable, the result is PF_WARN and *use gets "run" (the guest
 * then gets TMPDIR=its run directory); otherwise *use is NULL.
 */
void	pf_tmpdir(long mem_mb, struct pf_result *, const char **use);
/* Seccomp filters can be installed (what UML's seccomp mode does). */
void	pf_seccomp(struct pf_result *);
/*
 * /dev/fuse can be opened (a user who may not cannot mount through the
 * setuid fusermount3 either: it opens the device as that user).
 */
void	pf_fuse(struct pf_result *);
/* personality(ADDR_NO_RANDOMIZE) works (a warning when it does not). */
void	pf_aslr(struct pf_result *);
/* The sandbox (sandbox.h) works here (a warning when it does not). */
void	pf_sandbox(struct pf_result *);

/*
 * Before booting a guest with o: run the checks it needs (the mirror's
 * when need_fuse).  A temp directory that does not work is replaced by
 * the guest's run directory (o->tmpdir_run), said once on stderr; a
 * failed check exits 125 with one line naming it and the remedy;
 * warnings are printed and the boot goes on.
 */
void	preflight(struct guest_opts *o, int need_fuse);

/* Print one result as "ok   NAME: what" or "fix  NAME: what" + remedy. */
void	pf_print(const struct pf_result *);

#endif
