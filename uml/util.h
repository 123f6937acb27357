/*
 * util.h - small helpers shared by the host programs: allocation that
 * never returns NULL, fatal errors, paths of the kit's directories.
 */
#ifndef UMKIT_UTIL_H
#define UMKIT_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <sys/types.h>

/* Exit codes of umkit itself (a command's own status passes through). */
#define EXIT_PANIC	123	/* the guest kernel panicked or oopsed */
#define EXIT_TIMEOUT	124	/* -t SECONDS ran out; the guest was killed */
#define EXIT_KIT	125	/* umkit's own error: usage, build, boot */

extern const char *progname;

void	*xmalloc(size_t);
void	*xcalloc(size_t, size_t);
void	*xrealloc(void *, size_t);
char	*xstrdup(const char *);
char	*xasprintf(const char *, ...) __attribute__((format(printf, 1, 2)));
char	*xvasprintf(const char *, va_list) __attribute__((format(printf, 1, 0)));

/* Print "umkit: message" and exit with EXIT_KIT. */
void	 fatal(const char *, ...) __attribute__((format(printf, 1, 2), noreturn));
/* Like fatal, with ": strerror(errno)" appended. */
void	 fatalx(const char *, ...) __attribute__((format(printf, 1, 2), noreturn));
/* Print "umkit: message" and carry on. */
void	 warnmsg(const char *, ...) __attribute__((format(printf, 1, 2)));

/* The checkout's top directory (where Makefile and build/ are). */
const char *top_dir(void);
/* top_dir()/rel, allocated. */
char	*top_path(const char *rel);

/* Monotonic time in milliseconds. */
long long now_ms(void);
/* The CLOCK_REALTIME instant ms from now, for pthread_cond_timedwait. */
struct timespec;
void	 deadline_in(struct timespec *, int ms);

/* Write all of buf; -1 on error. */
ssize_t	 write_all(int, const void *, size_t);
/* Read a whole small file into a NUL-terminated buffer; NULL on error. */
char	*read_text(const char *path);
/* Remove a directory tree (no symlinks followed); 0 or -1. */
int	 rm_tree(const char *path);
/* Parse a memory size like 512M or 1G into megabytes; -1 if malformed. */
long	 parse_mem_mb(const char *);

#endif
