/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * mirror-policy.h - the mirror's rules as pure functions of paths: which
 * guest paths it exports, which it lets the host write (the allowlist),
 * and what a guest symlink reads as on the host.  No FUSE, no I/O beyond
 * reading the allowlist file: mirror.c applies them, and their unit tests
 * (tests/unit/test-mirror-unit.c) link this file alone.
 *
 * Exported: "/" (the mirror's root), /proc and /sys and everything below.
 *
 * Symlinks: readlink returns the guest's target verbatim when the host
 * kernel, following it inside the mount, reaches what the guest would.
 * Absolute targets and relative ones climbing above the guest's / are
 * returned as the equivalent relative path inside the mount (the host
 * would otherwise resolve them against the host's own tree), so
 * following a link never leaves the mirror.
 */
#ifndef UMKIT_MIRROR_POLICY_H
#define UMKIT_MIRROR_POLICY_H

#include <stddef.h>
#include <stdio.h>

struct allowlist;

/*
 * The allowlist: guest paths or fnmatch(3) globs (FNM_PATHNAME: '*' never
 * crosses '/'), one per line, '#' starts a comment.  allowlist_load()
 * returns NULL after logging "FILE:LINE: reason" for the first bad line
 * (a pattern that is not an absolute, normalized path under /proc or
 * /sys, or a line with two words).
 */
struct allowlist *allowlist_load(const char *path, FILE *log);
void		 allowlist_free(struct allowlist *);
/* 1 when the normalized guest path may be written, else 0. */
int		 allowlist_match(const struct allowlist *, const char *path);

/*
 * Normalize an absolute guest path into out: collapse "//", "." and ".."
 * (".." at "/" stays at "/", as in the guest).  Returns 0; -EINVAL when in
 * is not absolute, -ENAMETOOLONG when out is too small, -EACCES when the
 * result is neither "/" nor under /proc or /sys.
 */
int		 mirror_path_normalize(const char *in, char *out, size_t size);

/*
 * The symlink text the mirror returns for a guest symlink at linkpath
 * (normalized) whose guest target is target: target itself when the host
 * kernel, following it from the link's directory inside the mount, lands
 * where the guest would; otherwise the relative path to the guest's
 * resolution.  Returns the length, or -ENAMETOOLONG.
 */
int		 mirror_link_text(const char *linkpath, const char *target,
		    char *out, size_t size);

#endif
