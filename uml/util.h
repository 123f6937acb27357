/*
 * util.h - the support layer of every program of the kit: the launcher,
 * the TUI, the tests and fuzzers, and the static guest agent.
 *
 * Two files implement it.  util-core.c needs nothing but libc, so the
 * static guest agent links it too: allocation that never returns NULL,
 * fatal errors, warnings, clocks, write_all.  util.c is for host
 * programs only: the checkout's paths, small files, directory trees,
 * configuration lines, sizes.
 *
 * Errors follow tmux: fatal() appends ": strerror(errno)" to its message,
 * fatalx() does not; both run the cleanup hook, print "PROGNAME: message"
 * on stderr and exit with fatal_status.  warnmsg() prints the same line
 * and returns.
 */
#ifndef UMKIT_UML_UTIL_H
#define UMKIT_UML_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <sys/types.h>

/* Exit codes of umkit itself (a command's own status passes through). */
#define EXIT_PANIC	123	/* the guest kernel panicked or oopsed */
#define EXIT_TIMEOUT	124	/* -t SECONDS ran out; the guest was killed */
#define EXIT_KIT	125	/* umkit's own error: usage, build, boot */

/* --- util-core.c: libc only (the static agent links it) ---------------- */

/* The prefix of every message ("umkit"); a program's main may change it. */
extern const char *progname;
/* The exit status of fatal() and fatalx() (EXIT_KIT). */
extern int	 fatal_status;
/* A hook fatal() and fatalx() run first (e.g. to leave curses); or NULL. */
void	 fatal_set_cleanup(void (*fn)(void));

/* Print "PROGNAME: message: strerror(errno)" and exit. */
void	 fatal(const char *, ...) __attribute__((format(printf, 1, 2), noreturn));
/* Print "PROGNAME: message" and exit. */
void	 fatalx(const char *, ...) __attribute__((format(printf, 1, 2), noreturn));
/* Print "PROGNAME: message" and carry on. */
void	 warnmsg(const char *, ...) __attribute__((format(printf, 1, 2)));

/* Allocation that exits through fatalx() instead of returning NULL. */
void	*xmalloc(size_t);
void	*xcalloc(size_t, size_t);
void	*xrealloc(void *, size_t);
char	*xstrdup(const char *);
char	*xasprintf(const char *, ...) __attribute__((format(printf, 1, 2)));
char	*xvasprintf(const char *, va_list) __attribute__((format(printf, 1, 0)));

/* Monotonic time in microseconds, and in milliseconds. */
long long now_us(void);
long long now_ms(void);
/* The CLOCK_REALTIME instant ms from now, for pthread_cond_timedwait. */
struct timespec;
void	 deadline_in(struct timespec *, int ms);

/* Write all of buf, retrying on EINTR and short writes; -1 on error. */
ssize_t	 write_all(int, const void *, size_t);

/* --- util.c: host programs --------------------------------------------- */

/* The checkout's top directory (where Makefile and build/ are). */
const char *top_dir(void);
/* top_dir()/rel, allocated. */
char	*top_path(const char *rel);

/* Read a whole small file into a NUL-terminated buffer; NULL on error. */
char	*read_text(const char *path);
/* Remove a directory tree (no symlinks followed); 0 or -1. */
int	 rm_tree(const char *path);
/* Parse a memory size like 512M or 1G into megabytes; -1 if malformed. */
long	 parse_mem_mb(const char *);

/*
 * Read a configuration file of one-item lines: '#' starts a comment,
 * blanks around an item are dropped, empty lines are skipped.  fn gets
 * each item (NUL-terminated, may be modified) and its line number; a
 * non-zero return stops the reading and is returned.  Returns 0 at the
 * end of the file, or -errno when it cannot be opened or read.
 */
int	 conf_lines(const char *path,
	    int (*fn)(char *item, unsigned lineno, void *arg), void *arg);

#endif
