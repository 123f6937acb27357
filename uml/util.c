/* util.c - paths, files and configuration lines for host programs (util.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

/*
 * The checkout's top directory: $UMKIT_TOP, else two levels above the
 * running binary (build/bin/umkit).
 */
const char *
top_dir(void)
{
	static char	*top;
	char		 exe[PATH_MAX], *p;
	ssize_t		 n;
	int		 i;

	if (top != NULL)
		return top;
	if ((p = getenv("UMKIT_TOP")) != NULL && *p != '\0') {
		top = realpath(p, NULL);
		if (top == NULL)
			fatal("UMKIT_TOP=%s", p);
		return top;
	}
	n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n < 0)
		fatal("/proc/self/exe");
	exe[n] = '\0';
	for (i = 0; i < 3; i++) {
		if ((p = strrchr(exe, '/')) == NULL)
			fatalx("cannot find the kit's directory from %s", exe);
		*p = '\0';
	}
	top = xstrdup(exe);
	return top;
}

/* A path below the top directory. */
char *
top_path(const char *rel)
{
	return xasprintf("%s/%s", top_dir(), rel);
}

/* Read a small text file; NULL if it cannot be read. */
char *
read_text(const char *path)
{
	char	*buf;
	size_t	 len = 0, size = 4096;
	ssize_t	 n;
	int	 fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return NULL;
	buf = xmalloc(size);
	for (;;) {
		if (len + 1 >= size)
			buf = xrealloc(buf, size *= 2);
		n = read(fd, buf + len, size - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += n;
	}
	close(fd);
	if (n < 0) {
		free(buf);
		return NULL;
	}
	buf[len] = '\0';
	return buf;
}

/* nftw callback removing one entry. */
static int
rm_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st; (void)ftw;
	if (type == FTW_DP)
		return rmdir(path) < 0 && errno != ENOENT ? -1 : 0;
	return unlink(path) < 0 && errno != ENOENT ? -1 : 0;
}

/* Remove a directory tree without following symlinks or crossing mounts. */
int
rm_tree(const char *path)
{
	if (access(path, F_OK) < 0)
		return errno == ENOENT ? 0 : -1;
	return nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

/* "512M", "1G", "256" (megabytes) -> megabytes. */
long
parse_mem_mb(const char *s)
{
	char	*end;
	long	 v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || end == s || v <= 0)
		return -1;
	if (*end == 'G' || *end == 'g')
		v *= 1024, end++;
	else if (*end == 'M' || *end == 'm')
		end++;
	if (*end != '\0' || v > 65536)
		return -1;
	return v;
}

/* Read path's items, one a line, '#' comments and blanks dropped. */
int
conf_lines(const char *path, int (*fn)(char *, unsigned, void *), void *arg)
{
	FILE		*f;
	char		*line = NULL, *p, *e;
	size_t		 cap = 0;
	unsigned	 lineno = 0;
	int		 r = 0;

	if ((f = fopen(path, "r")) == NULL)
		return -errno;
	while (r == 0 && getline(&line, &cap, f) != -1) {
		lineno++;
		if ((p = strchr(line, '#')) != NULL)
			*p = '\0';
		for (p = line; *p == ' ' || *p == '\t'; p++)
			;
		for (e = p + strlen(p); e > p && strchr(" \t\r\n", e[-1]); e--)
			;
		*e = '\0';
		if (*p != '\0')
			r = fn(p, lineno, arg);
	}
	if (r == 0 && ferror(f))
		r = -EIO;
	free(line);
	fclose(f);
	return r;
}
