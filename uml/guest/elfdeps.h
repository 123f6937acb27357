/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * elfdeps.h - what a dynamically linked x86-64 program needs in the
 * guest: its interpreter and its shared libraries, found as the dynamic
 * loader (glibc's ld.so) finds them, for --add (initrd.h).
 *
 * Three parts, all reading untrusted bytes with bounds:
 *   - elfdeps_read_*: an ELF file's header, program headers and dynamic
 *     section (PT_INTERP, DT_NEEDED, DT_SONAME, DT_RPATH, DT_RUNPATH,
 *     DT_FLAGS_1), read through pread-like calls, never more than
 *     ELFDEPS_MAX_DYN bytes of dynamic section or ELFDEPS_MAX_STR bytes
 *     a string;
 *   - elfdeps_cache_*: glibc's /etc/ld.so.cache, the
 *     "glibc-ld.so.cache1.1" format (alone, or after the old "ld.so-1.7.0"
 *     table), at most ELFDEPS_MAX_CACHE bytes;
 *   - elfdeps_resolve: the closure, breadth first as ld.so loads it.
 *     A name with a '/' is that path; otherwise the loader's DT_RPATH
 *     and its loaders' (objects without DT_RUNPATH), DT_RUNPATH, the
 *     cache, then ELFDEPS_DEFAULT_DIRS (the last two not for an object
 *     with DF_1_NODEFLIB).  $ORIGIN, $LIB and $PLATFORM are expanded
 *     (the latter two as Debian's ld.so does on x86-64); a candidate that
 *     is not an x86-64 shared object is passed over, as ld.so does.  Not
 *     modelled: LD_LIBRARY_PATH and LD_PRELOAD (the guest has neither),
 *     the glibc-hwcaps and legacy hwcap subdirectories (the baseline
 *     library in the directory itself serves every CPU), relative search
 *     directories, dlopen().
 */
#ifndef UMKIT_ELFDEPS_H
#define UMKIT_ELFDEPS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define ELFDEPS_MAX_PHDRS	512		/* program headers of a file */
#define ELFDEPS_MAX_DYN		(1 << 20)	/* bytes of dynamic section */
#define ELFDEPS_MAX_NEEDED	256		/* DT_NEEDED of one object */
#define ELFDEPS_MAX_STR		4096		/* a name or path, with NUL */
#define ELFDEPS_MAX_CACHE	(16 << 20)	/* bytes of ld.so.cache */
#define ELFDEPS_MAX_OBJS	1024		/* objects of one closure */
#define ELFDEPS_MAX_DEPTH	64		/* of the dependency tree */
#define ELFDEPS_MAX_LINKS	16		/* symlinks from a name */
#define ELFDEPS_MAX_DIRS	64		/* of one search path */

/* Where ld.so looks last (Debian's glibc on x86-64, in its order). */
#define ELFDEPS_DEFAULT_DIRS \
	"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib", "/usr/lib"

/* What the ELF headers of one file say. */
struct elfdeps_info {
	int		  type;		/* e_type: ET_EXEC or ET_DYN */
	char		 *interp;	/* PT_INTERP, or NULL */
	char		 *soname;	/* DT_SONAME, or NULL */
	char		 *rpath;	/* DT_RPATH, or NULL */
	char		 *runpath;	/* DT_RUNPATH, or NULL */
	char		**needed;	/* DT_NEEDED, in order */
	int		  nneeded;
	int		  nodeflib;	/* DF_1_NODEFLIB */
};

/* Read n bytes at off from ctx; the count read, or -1. */
typedef ssize_t (*elfdeps_pread_fn)(void *ctx, void *buf, size_t n,
    uint64_t off);

/*
 * Read the ELF headers of a size-byte file through rd.  1: an x86-64
 * ELF64 LSB program or shared object, described in *info (free it with
 * elfdeps_info_free); 0: not an ELF program (not ELF at all, or an
 * object file or core dump: data to the guest), *info empty; -1: an ELF
 * file that cannot run in the guest (another class, byte order or
 * machine, or damaged), with the reason in err, a phrase that follows
 * the file's name ("is a 32-bit ELF file; ...").
 */
int	 elfdeps_read(elfdeps_pread_fn rd, void *ctx, uint64_t size,
	    struct elfdeps_info *info, char *err, size_t errsize);
/* The same on an open file, and on bytes in memory. */
int	 elfdeps_read_fd(int fd, struct elfdeps_info *info, char *err,
	    size_t errsize);
int	 elfdeps_read_mem(const void *buf, size_t len,
	    struct elfdeps_info *info, char *err, size_t errsize);
/* Whether the object needs anything at run time (interpreter, libraries). */
int	 elfdeps_dynamic(const struct elfdeps_info *info);
/* Free what elfdeps_read filled in (the struct itself is the caller's). */
void	 elfdeps_info_free(struct elfdeps_info *info);

/* A parsed ld.so.cache: the new-format table inside the file's bytes. */
struct elfdeps_cache {
	uint8_t		*mem;		/* the file's bytes (cache_load) */
	const uint8_t	*base;		/* the "glibc-ld.so.cache" header */
	size_t		 size;		/* bytes from base to the end */
	uint32_t	 nlibs;
};

/*
 * Check len bytes of an ld.so.cache and point c at its table (c keeps
 * pointers into buf).  0, or -1 with the reason in err.
 */
int	 elfdeps_cache_parse(struct elfdeps_cache *c, const void *buf,
	    size_t len, char *err, size_t errsize);
/*
 * Read and check the cache file at path.  A missing file is an empty
 * cache (0); -1 with the reason in err for an unreadable, too large or
 * damaged one (c is then empty too: ld.so ignores such a cache).
 */
int	 elfdeps_cache_load(struct elfdeps_cache *c, const char *path,
	    char *err, size_t errsize);
/*
 * The paths the cache gives for the x86-64 library name: the entries
 * without hwcaps first (the one ld.so takes on any CPU), then the
 * others, in the file's order; up to max of them in paths (pointers
 * into the cache).  Returns how many were stored.  Entries whose
 * strings run past the end or whose path is not absolute are skipped.
 */
size_t	 elfdeps_cache_find(const struct elfdeps_cache *c, const char *name,
	    const char **paths, size_t max);
/* Free a loaded cache (and empty it). */
void	 elfdeps_cache_free(struct elfdeps_cache *c);

/*
 * One search directory of DT_RPATH or DT_RUNPATH with $ORIGIN (or
 * ${ORIGIN}) replaced by origin, $LIB by "lib/x86_64-linux-gnu" and
 * $PLATFORM by "x86_64"; other text is kept.  len bytes of dir (no
 * ':').  Allocated; NULL when the result would be ELFDEPS_MAX_STR bytes
 * or more.
 */
char	*elfdeps_expand(const char *dir, size_t len, const char *origin);
/*
 * path made absolute and plain: single slashes, no "." components, ".."
 * taking the previous component off (none above "/"), no trailing
 * slash.  Allocated; NULL when path is not absolute or too long.
 */
char	*elfdeps_normal(const char *path);

/* One file the guest needs, at guest; its content is the host file's. */
struct elfdeps_file {
	char		*host;		/* the host's name for it */
	char		*guest;		/* where it goes, normalised */
	char		*target;	/* a symlink's text, else NULL */
};

/* The files of a closure, each guest path once, in load order. */
struct elfdeps_list {
	struct elfdeps_file *v;
	size_t		 n, cap;
	int		 cache_needed;	/* a library was found through the
					   cache outside ELFDEPS_DEFAULT_DIRS:
					   the guest's ld.so needs the cache */
};

/*
 * Add to out what the program or library host (its headers in info),
 * placed at guest path guest, needs: the interpreter and every library,
 * recursively, each with the symlinks that lead to it (a symlink is an
 * entry with its target; the file or link it names follows).  Libraries
 * go to the paths ld.so finds them at, those found through $ORIGIN
 * relative to guest.  0, or -1 with one line in err naming what is
 * missing and the file that needs it.
 */
int	 elfdeps_resolve(const struct elfdeps_cache *c, const char *host,
	    const char *guest, const struct elfdeps_info *info,
	    struct elfdeps_list *out, char *err, size_t errsize);
/* Free the list's entries (and empty it). */
void	 elfdeps_list_free(struct elfdeps_list *l);

#endif
