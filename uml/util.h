/* SPDX-License-Identifier: GPL-2.0-only */
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
#include <stdio.h>
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

/* FNV-1a's offset basis, and h carried on over the n bytes at p. */
#define FNV1A_BASIS	0xcbf29ce484222325ULL
unsigned long long fnv1a(unsigned long long h, const void *p, size_t n);
/* Monotonic time in microseconds, and in milliseconds. */
long long now_us(void);
long long now_ms(void);
/* The CLOCK_REALTIME instant ms from now, for pthread_cond_timedwait. */
struct timespec;
void	 deadline_in(struct timespec *, int ms);

/* Write all of buf, retrying on EINTR and short writes; -1 on error. */
ssize_t	 write_all(int, const void *, size_t);

/* --- util.c: host programs --------------------------------------------- */

/*
 * Where the kit's files are.  A checkout has everything under its top
 * directory, as today: top/build, top/run, top/labs.  An installed kit
 * (make install, the Debian package) is PREFIX/bin/umkit beside
 * PREFIX/lib/umkit (programs, kernels, rootfs, scripts; its marker file
 * KIT_MARKER says it is an install) and PREFIX/share/umkit (labs,
 * patches), all read-only; what a user's runs write goes to that user's
 * XDG directories, never the prefix or the current directory.
 */
#define KIT_MARKER	"installed"
#define CHECKOUT_MARKER	"uml/uml.mk"	/* TOP/this: a checkout */

struct kit_layout {
	int	 installed;
	char	*top;		/* the checkout; installed: PREFIX */
	char	*lib;		/* installed: PREFIX/lib/umkit */
	char	*share;		/* installed: PREFIX/share/umkit */
	char	*patches;	/* the kit's variants: top/patches, share/patches */
	char	*own_patches;	/* installed: the user's own variants,
				   $XDG_DATA_HOME/umkit/patches; else NULL */
	char	*cache;		/* $UMKIT_CACHE, $XDG_CACHE_HOME/umkit,
				   ~/.cache/umkit (source, ccache; installed:
				   build/ too) */
	char	*state;		/* $XDG_STATE_HOME/umkit, ~/.local/state/umkit */
	char	*run;		/* run directories: $UMKIT_RUN, else
				   top/run; installed: $XDG_RUNTIME_DIR/umkit
				   (when it is the user's, mode 0700), else
				   state/run */
	char	*logs;		/* console logs: top/run/log ($UMKIT_RUN/
				   log); installed: state/log */
};

/*
 * Fill a layout from the program's path and the environment: $UMKIT_TOP
 * names a checkout; else exe is PREFIX/bin/umkit of an install (PREFIX/
 * lib/umkit/KIT_MARKER exists), else TOP/build/bin/umkit of a checkout
 * (TOP/CHECKOUT_MARKER exists); exits naming exe when it is neither.
 */
void	 kit_layout_init(struct kit_layout *, const char *exe);
/* Free what kit_layout_init() allocated. */
void	 kit_layout_free(struct kit_layout *);
/*
 * The umkit launcher of layout L, for a child process of the kit
 * (allocated): PREFIX/bin/umkit of an install, TOP/build/bin/umkit of a
 * checkout; umkit_exe() is the running kit's.
 */
char	*kit_umkit(const struct kit_layout *L);
char	*umkit_exe(void);
/* The running program's layout (from /proc/self/exe, once). */
const struct kit_layout *kit(void);
/*
 * A kit file by its checkout-relative name, allocated: top/rel in a
 * checkout.  Installed: build/bin/X -> lib/X, build/rootfs -> lib/rootfs,
 * build/k/VARIANT -> lib/k/VARIANT for a shipped variant, other build/ ->
 * cache/build, uml/X -> lib/X, patches -> share/patches, labs ->
 * share/labs, run/log -> logs, run -> run.  Any other name is an
 * internal error (fatalx).
 */
char	*kit_map(const struct kit_layout *, const char *rel);
/* Whether an installed kit ships variant's kernel (lib/k/VARIANT/linux). */
int	 kit_shipped(const struct kit_layout *, const char *variant);
/*
 * The checkout's top directory; in an installed kit, the user's cache
 * directory that stands in for it (top_dir()/build is written there).
 * New code should name files through top_path().
 */
const char *top_dir(void);
/* kit_map(kit(), rel). */
char	*top_path(const char *rel);
/*
 * The directory of variant's patches (it has a series file), allocated,
 * or NULL: $UMKIT_PATCHES/VARIANT when that is set, else the kit's
 * patches/VARIANT, else (installed) the user's own; the kit's name wins.
 */
char	*variant_dir(const char *variant);
/*
 * mkdir -p with mode for each directory made; 0 or -1 (errno).  The
 * directory must end up ours or root's (EPERM: one another user made
 * first, say at a guessed name in /tmp, or a link of theirs to one).
 */
int	 mkdir_p(const char *path, mode_t mode);

/* Read a whole small file into a NUL-terminated buffer; NULL on error. */
char	*read_text(const char *path);
/* The rest of fd (at most max bytes, else EFBIG), NUL-terminated; its
 * length in *len unless NULL; NULL with errno on an error. */
char	*read_fd_all(int fd, size_t max, size_t *len);
/*
 * A file made whole or not at all: written to a private temporary beside
 * it (PATH.XXXXXX), renamed over PATH on afile_commit.  Readers see the
 * old file or the new one, never a half; a failure leaves no temporary.
 */
struct afile {
	FILE	*f;
	char	*tmp;
	char	*path;
};
/* Start writing path (mode for the new file); its stream, or NULL (errno). */
FILE	*afile_open(struct afile *, const char *path, mode_t mode);
/* Close and rename into place; 0, or -1 (errno) with nothing left behind. */
int	 afile_commit(struct afile *);
/* Give up: the temporary is removed, path is as it was. */
void	 afile_abort(struct afile *);
/* Write len bytes of buf as path, whole or not at all; 0 or -1 (errno). */
int	 write_file_atomic(const char *path, const void *buf, size_t len,
	    mode_t mode);
/* Remove a directory tree (no symlinks followed); 0 or -1. */
int	 rm_tree(const char *path);
/*
 * Text escaped for an XML attribute or element (allocated): the five
 * markup characters as entities, other control characters but newline
 * and tab as spaces (XML 1.0 has no place for them).
 */
char	*xml_escape(const char *);
/*
 * When process pid started (field 22 of /proc/PID/stat), or 0 when it is
 * gone or a zombie: a pid with its start time names one process, even
 * after the pid is reused.
 */
unsigned long long proc_starttime(pid_t pid);
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
