/*
 * util.h - allocation that never returns NULL, and fatal errors.
 */
#ifndef UMKIT_UTIL_H
#define UMKIT_UTIL_H

#include <stddef.h>

/* Print "umkit-tui: message" (after restoring the terminal) and exit 1. */
void	fatal(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));
/* Hook fatal() runs first, e.g. to leave curses mode; NULL for none. */
void	fatal_set_cleanup(void (*fn)(void));
/* malloc that exits through fatal() instead of returning NULL. */
void	*xmalloc(size_t n);
/* calloc that exits through fatal() instead of returning NULL. */
void	*xcalloc(size_t nmemb, size_t size);
/* realloc that exits through fatal() instead of returning NULL. */
void	*xrealloc(void *p, size_t n);
/* strdup that exits through fatal() instead of returning NULL. */
char	*xstrdup(const char *s);

#endif
