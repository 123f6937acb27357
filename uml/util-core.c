/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * util-core.c - allocation, errors and clocks (see util.h).  Only libc:
 * the static guest agent links this file too.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

const char	*progname = "umkit";
int		 fatal_status = EXIT_KIT;
static void	(*cleanup_fn)(void);

/* Remember the function fatal() and fatalx() call before printing. */
void
fatal_set_cleanup(void (*fn)(void))
{
	cleanup_fn = fn;
}

/* "PROGNAME: message[: strerror(err)]" on stderr; err 0 adds nothing. */
static void
vsay(int err, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", progname);
	vfprintf(stderr, fmt, ap);
	if (err != 0)
		fprintf(stderr, ": %s", strerror(err));
	fputc('\n', stderr);
}

/* Run the cleanup hook once, print, exit. */
static void __attribute__((noreturn))
vdie(int err, const char *fmt, va_list ap)
{
	void	(*fn)(void) = cleanup_fn;

	cleanup_fn = NULL;
	if (fn != NULL)
		fn();
	vsay(err, fmt, ap);
	exit(fatal_status);
}

/* Print an error with errno's text and exit. */
void
fatal(const char *fmt, ...)
{
	va_list	ap;
	int	e = errno;

	va_start(ap, fmt);
	vdie(e, fmt, ap);
}

/* Print an error and exit. */
void
fatalx(const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	vdie(0, fmt, ap);
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

/* Allocate or die. */
void *
xmalloc(size_t n)
{
	void	*p = malloc(n ? n : 1);

	if (p == NULL)
		fatalx("out of memory (%zu bytes)", n);
	return p;
}

/* Allocate zeroed memory or die. */
void *
xcalloc(size_t n, size_t size)
{
	void	*p = calloc(n ? n : 1, size ? size : 1);

	if (p == NULL)
		fatalx("out of memory (%zu x %zu bytes)", n, size);
	return p;
}

/* Resize or die. */
void *
xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (p == NULL)
		fatalx("out of memory (%zu bytes)", n);
	return p;
}

/* Duplicate a string or die. */
char *
xstrdup(const char *s)
{
	size_t	n = strlen(s) + 1;

	return memcpy(xmalloc(n), s, n);
}

/* Format a va_list into a new string or die. */
char *
xvasprintf(const char *fmt, va_list ap)
{
	char	*s;

	if (vasprintf(&s, fmt, ap) < 0)
		fatalx("out of memory");
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

/* FNV-1a of the n bytes at p, going on from h (FNV1A_BASIS to start). */
unsigned long long
fnv1a(unsigned long long h, const void *p, size_t n)
{
	const unsigned char	*c = p;

	while (n-- > 0)
		h = (h ^ *c++) * 0x100000001b3ULL;
	return h;
}

/* Monotonic microseconds. */
long long
now_us(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* Monotonic milliseconds. */
long long
now_ms(void)
{
	return now_us() / 1000;
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
