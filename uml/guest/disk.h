/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * disk.h - a guest's scratch disk: a sparse ext4 image in run/NAME/,
 * copied from a per-size template (build/disk/ext4-<MB>M.img, made by
 * uml/guest/mkdisk.sh on first use).  The guest sees it as /dev/ubda, mounted
 * by /init at /mnt/disk.  It goes away with run/NAME (run_remove).
 */
#ifndef UMKIT_DISK_H
#define UMKIT_DISK_H

#define DISK_DEFAULT_MB	2048
#define DISK_MIN_MB	16

/*
 * Parse a -d value: a size like 2G or 512M (at least DISK_MIN_MB), or 0
 * for no disk.  Returns megabytes (0 = none), or -1 if malformed.
 */
long	 disk_parse_mb(const char *);

/*
 * Make rundir/disk.img of mb megabytes and open it read-write.  Returns
 * the descriptor (close-on-exec), or -1 with a message already printed.
 */
int	 disk_make(const char *rundir, long mb);

#endif
