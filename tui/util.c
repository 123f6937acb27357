/* util.c - allocation wrappers and fatal(); see util.h. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static void (*cleanup_fn)(void);

/* Remember the function fatal() calls before printing. */
void fatal_set_cleanup(void (*fn)(void))
{
	cleanup_fn = fn;
}

/* Restore the terminal, print the message and exit with status 1. */
void fatal(const char *fmt, ...)
{
	va_list ap;

	if (cleanup_fn)
		cleanup_fn();
	fputs("umkit-tui: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* Allocate n bytes or die. */
void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		fatal("out of memory (%zu bytes)", n);
	return p;
}

/* Allocate a zeroed array or die. */
void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);

	if (!p)
		fatal("out of memory (%zu x %zu bytes)", nmemb, size);
	return p;
}

/* Resize an allocation or die. */
void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		fatal("out of memory (%zu bytes)", n);
	return p;
}

/* Duplicate a string or die. */
char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(xmalloc(n), s, n);
}
