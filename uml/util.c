/* util.c - allocation, errors and paths for the host programs. */
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

const char *progname = "umkit";

/* Allocate or die. */
void *
xmalloc(size_t n)
{
	void	*p = malloc(n ? n : 1);

	if (p == NULL)
		fatal("out of memory");
	return p;
}

/* Allocate zeroed memory or die. */
void *
xcalloc(size_t n, size_t size)
{
	void	*p = calloc(n ? n : 1, size ? size : 1);

	if (p == NULL)
		fatal("out of memory");
	return p;
}

/* Resize or die. */
void *
xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (p == NULL)
		fatal("out of memory");
	return p;
}

/* Duplicate a string or die. */
char *
xstrdup(const char *s)
{
	char	*p = strdup(s);

	if (p == NULL)
		fatal("out of memory");
	return p;
}

/* Format a va_list into a new string or die. */
char *
xvasprintf(const char *fmt, va_list ap)
{
	char	*s;

	if (vasprintf(&s, fmt, ap) < 0)
		fatal("out of memory");
	return s;
}

/* Format into a new string or die. */
char *
xasprintf(const char *fmt, ...)
{
	va_list	 ap;
	char	*s;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	return s;
}

/* "umkit: message[: strerror(err)]" on stderr; err 0 adds nothing. */
static void
vsay(int err, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", progname);
	vfprintf(stderr, fmt, ap);
	if (err != 0)
		fprintf(stderr, ": %s", strerror(err));
	fputc('\n', stderr);
}

/* Print an error and exit with the kit's error code. */
void
fatal(const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	vsay(0, fmt, ap);
	va_end(ap);
	exit(EXIT_KIT);
}

/* Print an error with errno's text and exit with the kit's error code. */
void
fatalx(const char *fmt, ...)
{
	va_list	ap;
	int	e = errno;

	va_start(ap, fmt);
	vsay(e, fmt, ap);
	va_end(ap);
	exit(EXIT_KIT);
}

/* Print a warning. */
void
warnmsg(const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	vsay(0, fmt, ap);
	va_end(ap);
}

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
			fatalx("UMKIT_TOP=%s", p);
		return top;
	}
	n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n < 0)
		fatalx("/proc/self/exe");
	exe[n] = '\0';
	for (i = 0; i < 3; i++) {
		if ((p = strrchr(exe, '/')) == NULL)
			fatal("cannot find the kit's directory from %s", exe);
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

/* Monotonic milliseconds. */
long long
now_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A condition-variable deadline ms milliseconds from now. */
void
deadline_in(struct timespec *ts, int ms)
{
	clock_gettime(CLOCK_REALTIME, ts);
	ts->tv_sec += ms / 1000;
	ts->tv_nsec += (ms % 1000) * 1000000L;
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

/* Write everything, retrying on EINTR and short writes. */
ssize_t
write_all(int fd, const void *buf, size_t len)
{
	const char	*p = buf;
	size_t		 done = 0;
	ssize_t		 n;

	while (done < len) {
		n = write(fd, p + done, len - done);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		done += n;
	}
	return done;
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
