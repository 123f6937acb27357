/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * mirror.h - the FUSE mirror: a running guest's /proc and /sys as plain
 * files on the host.
 *
 * mirror_start() mounts a private FUSE file system (libfuse3, low-level
 * API) whose root holds exactly two directories:
 *
 *	MOUNTPOINT/proc  <->  guest /proc
 *	MOUNTPOINT/sys   <->  guest /sys (with /sys/kernel/debug, tracing)
 *
 * Every operation is answered through the guest link (link.h); nothing
 * on the host outside the mount is ever looked at.  Content is never
 * cached: each open fetches the file whole in one link_read(), so a read
 * is always fresh and never torn.  Attributes and names are cached for
 * MIRROR_TIMEOUT_S.  The mirror is read-only except for the control files
 * named in an allowlist file (uml/link/allow.conf); a write elsewhere fails
 * with EACCES.  A dead or hung guest makes every operation fail with EIO
 * within the link's timeout (2 s).
 *
 * Writes: each write(2) on the mirror is sent to the guest at once as one
 * link_write() (which opens the guest file O_WRONLY|O_TRUNC and does one
 * write(2)), so the writer sees the guest's errno on the write itself,
 * exactly as for a procfs/sysfs write in the guest.  An open with O_TRUNC
 * (or a truncate to 0) with no write sends an empty write, which clears
 * files like /sys/kernel/tracing/trace.
 *
 * Which paths exist, which may be written and what a symlink reads as
 * are pure functions of the path: mirror-policy.h.
 */
#ifndef UMKIT_MIRROR_H
#define UMKIT_MIRROR_H

#include <stdio.h>

struct link;
struct mirror;

/* Attribute and entry cache time in seconds (content is never cached). */
#define MIRROR_TIMEOUT_S	1.0

/*
 * Mount the mirror of link's guest at mountpoint (an existing directory)
 * and serve it from threads of its own.  Returns once the kernel has
 * initialised the mount.  A stale mount on mountpoint is cleaned first.
 * On failure, logs one line naming the cause to log (stderr when NULL)
 * and returns NULL; nothing is left mounted.  link stays the caller's:
 * close it only after mirror_stop().
 */
struct mirror	*mirror_start(struct link *link, const char *mountpoint,
		    const char *allowlist_path, FILE *log);

/*
 * Stop serving, unmount and free.  Readers still holding files open get
 * errors (ENOTCONN), never a hang.  Safe with NULL and on every exit path;
 * takes at most the link timeout (a request in flight may finish).
 */
void		 mirror_stop(struct mirror *);

/*
 * Lazily unmount a mount left at mountpoint by a crashed process
 * (umount2(MNT_DETACH) as root, fusermount3 -u -z otherwise).  Returns 1
 * when something was unmounted, 0 when nothing was mounted there, or a
 * negative errno.
 */
int		 mirror_cleanup_stale(const char *mountpoint);

/* The most entries a directory of the guest shows through the mirror. */
#define MIRROR_DIR_MAX	65536
/* Show at most n entries per directory (beside . and ..; the tests). */
void	mirror_set_dir_max(struct mirror *, size_t n);

#endif
