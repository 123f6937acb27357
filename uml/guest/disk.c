/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * disk.c - a guest's scratch disk, copied sparsely from a template.
 *
 * Measured on a 2-core Debian 12 host (ext4): mke2fs of a 2 GiB image
 * takes 16-50 ms (it fsyncs), a sparse copy of the template ~1 ms (1.1 MiB
 * of data), so each guest gets a copy and mke2fs runs once per size.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/fs.h>

#include "disk.h"
#include "spawn.h"
#include "util.h"


/* -d VALUE: megabytes, 0 for none, -1 if malformed or too small. */
long
disk_parse_mb(const char *s)
{
	long	mb;

	if (strcmp(s, "0") == 0)
		return 0;
	if ((mb = parse_mem_mb(s)) < DISK_MIN_MB)
		return -1;
	return mb;
}

/* Run uml/guest/mkdisk.sh MB OUT; 0 on success. */
static int
make_template(long mb, const char *out)
{
	char		*script = top_path("uml/guest/mkdisk.sh"), size[32];
	char		*argv[] = { "/bin/sh", script, size, (char *)out, NULL };
	struct spawn	 sp;
	int		 st;

	snprintf(size, sizeof size, "%ld", mb);
	spawn_init(&sp, argv);
	st = spawn_run(&sp);
	free(script);
	return st == 0 ? 0 : -1;
}

/* The template for mb megabytes, made when missing or older than the script. */
static char *
template(long mb)
{
	struct stat	 ts, ss;
	char		*t, *script, rel[64];
	int		 stale;

	snprintf(rel, sizeof rel, "build/disk/ext4-%ldM.img", mb);
	t = top_path(rel);
	script = top_path("uml/guest/mkdisk.sh");
	stale = stat(t, &ts) < 0 ||
	    (stat(script, &ss) == 0 && ss.st_mtime > ts.st_mtime);
	free(script);
	if (stale && make_template(mb, t) < 0) {
		warnmsg("cannot make the disk template %s (see above; -d 0 boots "
		    "without a disk)", t);
		free(t);
		return NULL;
	}
	return t;
}

/* Copy [off, end) of in to out at the same offsets; 0 or -1. */
static int
copy_range(int in, int out, off_t off, off_t end)
{
	char	buf[65536];
	ssize_t	n;
	loff_t	ri = off, wo = off;

	while (ri < end) {
		n = copy_file_range(in, &ri, out, &wo, end - ri, 0);
		if (n > 0)
			continue;
		if (n == 0 || (errno != EXDEV && errno != EINVAL &&
		    errno != ENOSYS && errno != EOPNOTSUPP))
			return -1;
		/* No in-kernel copy between these files: read and write. */
		while (ri < end) {
			n = pread(in, buf, end - ri < (off_t)sizeof buf ?
			    (size_t)(end - ri) : sizeof buf, ri);
			if (n <= 0 || pwrite(out, buf, n, wo) != n)
				return -1;
			ri += n;
			wo += n;
		}
	}
	return 0;
}

/* Copy in to out keeping holes: a reflink if the file system can. */
static int
copy_sparse(int in, int out, off_t size)
{
	off_t	data = 0, hole;

	if (ioctl(out, FICLONE, in) == 0)
		return 0;
	while ((data = lseek(in, data, SEEK_DATA)) >= 0 && data < size) {
		if ((hole = lseek(in, data, SEEK_HOLE)) < 0)
			return -1;
		if (copy_range(in, out, data, hole) < 0)
			return -1;
		data = hole;
	}
	if (data < 0 && errno != ENXIO)
		return -1;
	return ftruncate(out, size);
}

/* rundir/disk.img, a sparse copy of the template, open read-write. */
int
disk_make(const char *rundir, long mb)
{
	char	*t, *img;
	int	 in, out = -1;

	if ((t = template(mb)) == NULL)
		return -1;
	img = xasprintf("%s/disk.img", rundir);
	if ((in = open(t, O_RDONLY | O_CLOEXEC)) < 0)
		warnmsg("%s: %s", t, strerror(errno));
	else if ((out = open(img, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC,
	    0600)) < 0)
		warnmsg("%s: %s", img, strerror(errno));
	else if (copy_sparse(in, out, (off_t)mb << 20) < 0) {
		warnmsg("cannot copy %s to %s: %s", t, img, strerror(errno));
		close(out);
		unlink(img);
		out = -1;
	}
	if (in >= 0)
		close(in);
	free(img);
	free(t);
	return out;
}
