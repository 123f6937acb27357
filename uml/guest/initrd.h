/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * initrd.h - the initramfs a guest boots, and the user's own files in it
 * (--add HOSTPATH[:GUESTPATH] on exec and start).
 *
 * Without --add a guest boots the prebuilt rootfs,
 * build/rootfs/initramfs.cpio, as it is.  With --add the launcher writes
 * run/NAME/initrd: a copy of that archive followed by a second newc cpio
 * archive holding the added files, which the kernel unpacks over the
 * first (it reads concatenated archives one after another).  Neither the
 * rootfs nor the kernel is rebuilt; the file goes with run/NAME.
 *
 * What may be added, and where it goes:
 *   - regular files, directories (recursively) and symbolic links, with
 *     their permission bits and modification times, owned by root;
 *     a HOSTPATH that is a symlink is followed, symlinks inside an added
 *     directory are copied as symlinks;
 *   - an ELF program must be static: one with an interpreter (PT_INTERP)
 *     or needing shared libraries (DT_NEEDED) is refused, as is one for
 *     another machine than x86-64;
 *   - GUESTPATH is absolute, without "." or ".." components; one ending
 *     in '/' names the directory to put HOSTPATH's last component in.
 *     The default is /usr/local/bin/NAME for a file (on the guest's
 *     PATH) and /root/NAME for a directory (NAME: HOSTPATH's last
 *     component);
 *   - missing parent directories are made (mode 0755); a directory added
 *     where the rootfs has one merges into it (keeping the rootfs's
 *     mode); a file replaces a file or symlink of the rootfs;
 *   - refused: paths that the guest mounts over (/proc, /sys, /dev,
 *     /mnt/disk), the kit's own programs (/init, /usr/lib/umkit), a file
 *     where a directory is, anything below a non-directory, and more data
 *     than half the guest's memory (the initramfs lives in RAM).
 * HOSTPATH and GUESTPATH are split at the last ':' that is followed by
 * '/'; a HOSTPATH with such a ':' in its name needs an explicit GUESTPATH.
 */
#ifndef UMKIT_INITRD_H
#define UMKIT_INITRD_H

struct guest_opts;

/* Remember one --add value in o (initrd_prepare checks it). */
void	 initrd_add(struct guest_opts *o, const char *spec);

/*
 * Check every --add of o and list what it adds: the host files (and, for
 * programs, their ELF headers), the guest paths, the prebuilt rootfs's
 * entries they meet, the guest's memory.  Exits 125 with one line naming
 * the problem; so call it before anything is created that would need
 * cleaning up.  Without --add it does nothing.
 */
void	 initrd_prepare(struct guest_opts *o);

/*
 * The initramfs to boot o with (allocated): the prebuilt one without
 * --add, else rundir/initrd written now from the list initrd_prepare
 * made.  NULL, with a message printed and nothing left, on failure.
 */
char	*initrd_make(const struct guest_opts *o, const char *rundir);

#endif
