/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * initrd.c - the guest's initramfs with the user's files added (initrd.h).
 *
 * The newc format (the kernel's Documentation/driver-api/early-userspace/
 * buffer-format.rst): each entry is a 110-byte header, "070701" and
 * thirteen 8-digit hex fields (ino, mode, uid, gid, nlink, mtime,
 * filesize, devmajor, devminor, rdevmajor, rdevminor, namesize, check),
 * then the NUL-terminated name padded to a multiple of 4 bytes, then the
 * data padded to 4; "TRAILER!!!" ends an archive.  Archives may follow
 * one another, each starting 4-aligned, zero padding between them.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <linux/fs.h>

#include "elfdeps.h"
#include "guest.h"
#include "initrd.h"
#include "util.h"

#define NEWC_HDR	110
#define NEWC_MAGIC	"070701"
#define TRAILER		"TRAILER!!!"
/* The guest paths the kernel's unpacker takes (PATH_MAX with the NUL). */
#define GPATH_MAX	(PATH_MAX - 1)
/* Composed initramfs files kept in build/initrd/, the most recent ones. */
#define CACHE_KEEP	4
/* The dynamic loader's cache, read on the host and given to the guest. */
#define LDSO_CACHE	"/etc/ld.so.cache"

/* One entry of the added archive. */
struct ent {
	char		*gpath;		/* absolute, normalised */
	char		*host;		/* regular files: where to read it */
	char		*target;	/* symlinks */
	mode_t		 mode;		/* type and permission bits */
	long long	 mtime;
	unsigned long long size;	/* at prepare time */
};

/* A dynamically linked program or library added: its needs come last. */
struct dyn {
	char		*host;
	char		*gpath;
	const char	*spec;		/* the --add that added it */
	struct elfdeps_info info;
};

/* A guest path the archive sets, and its type: the rootfs's and ours. */
struct known {
	char		*path;		/* without the leading '/' */
	mode_t		 type;		/* S_IFMT bits */
};

struct initrd_list {
	uint64_t	 key;		/* identity of everything in the archive */
	struct ent	*ents;
	size_t		 nents, capents;
	struct known	*known;		/* sorted by path */
	size_t		 nknown, capknown;
	unsigned long long bytes;	/* data of the added entries */
	unsigned long long libbytes;	/* of them: what programs need */
	size_t		 nlibs;		/* files added for programs */
	struct dyn	*dyns;		/* dynamic ELF files added */
	size_t		 ndyns;
	char		*base;		/* the prebuilt archive */
	const char	*spec;		/* the --add being checked */
};

/* Paths the guest mounts over, or that are the kit's own. */
static const char *const reserved[] = {
	"/proc", "/sys", "/dev", "/mnt/disk", "/usr/lib/umkit", "/init", NULL
};

/* Mix n bytes into the archive's identity (FNV-1a, 64 bits). */
static void
key_bytes(struct initrd_list *L, const void *p, size_t n)
{
	L->key = fnv1a(L->key, p, n);
}

/* Mix a number into the archive's identity. */
static void
key_u64(struct initrd_list *L, unsigned long long v)
{
	uint64_t	x = v;

	key_bytes(L, &x, sizeof x);
}

/*
 * Mix what identifies a host file's content: where it is and when it
 * last changed (ctime moves with every write, rename or chmod).
 */
static void
key_stat(struct initrd_list *L, const struct stat *st)
{
	key_u64(L, st->st_dev);
	key_u64(L, st->st_ino);
	key_u64(L, (unsigned long long)st->st_size);
	key_u64(L, (unsigned long long)st->st_mtim.tv_sec * 1000000000ULL +
	    (unsigned long long)st->st_mtim.tv_nsec);
	key_u64(L, (unsigned long long)st->st_ctim.tv_sec * 1000000000ULL +
	    (unsigned long long)st->st_ctim.tv_nsec);
}

/* Remember an --add value. */
void
initrd_add(struct guest_opts *o, const char *spec)
{
	o->adds = xrealloc(o->adds, (o->nadds + 1) * sizeof *o->adds);
	o->adds[o->nadds++] = spec;
}

/* Order known entries by path. */
static int
known_cmp(const void *a, const void *b)
{
	return strcmp(((const struct known *)a)->path,
	    ((const struct known *)b)->path);
}

/* The known entry for path (no leading '/'), or NULL. */
static struct known *
known_find(struct initrd_list *L, const char *path)
{
	struct known	key = { (char *)path, 0 };

	return bsearch(&key, L->known, L->nknown, sizeof *L->known, known_cmp);
}

/* Record that the archives set path to type (replacing what was there). */
static void
known_set(struct initrd_list *L, const char *path, mode_t type, int sorted)
{
	struct known	*k;
	size_t		 lo = 0, hi = L->nknown, mid;

	if (sorted && (k = known_find(L, path)) != NULL) {
		k->type = type;
		return;
	}
	if (L->nknown == L->capknown) {
		L->capknown = L->capknown ? L->capknown * 2 : 1024;
		L->known = xrealloc(L->known, L->capknown * sizeof *L->known);
	}
	if (!sorted) {
		/* Filling from the rootfs: sorted once at the end. */
		L->known[L->nknown++] = (struct known){ xstrdup(path), type };
		return;
	}
	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (strcmp(L->known[mid].path, path) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	memmove(L->known + lo + 1, L->known + lo,
	    (L->nknown - lo) * sizeof *L->known);
	L->known[lo] = (struct known){ xstrdup(path), type };
	L->nknown++;
}

/* Parse n hex digits; -1 if one is not a hex digit. */
static long long
hex(const char *p, int n)
{
	long long	v = 0;
	int		i, d;

	for (i = 0; i < n; i++) {
		if (p[i] >= '0' && p[i] <= '9')
			d = p[i] - '0';
		else if (p[i] >= 'a' && p[i] <= 'f')
			d = p[i] - 'a' + 10;
		else if (p[i] >= 'A' && p[i] <= 'F')
			d = p[i] - 'A' + 10;
		else
			return -1;
		v = v * 16 + d;
	}
	return v;
}

/* Round up to a multiple of 4. */
static unsigned long long
pad4(unsigned long long v)
{
	return (v + 3) & ~3ULL;
}

/*
 * Read the names and types of every entry of the prebuilt archive
 * (concatenated newc archives, as rootfs/rootfs.mk writes it) into
 * L->known.  Only the headers are read, not the file data.
 */
static void
scan_base(struct initrd_list *L)
{
	struct stat	 st;
	char		 h[NEWC_HDR], name[PATH_MAX + 1], z;
	long long	 mode, fsize, nsize;
	off_t		 off = 0;
	int		 fd;

	if ((fd = open(L->base, O_RDONLY | O_CLOEXEC)) < 0 || fstat(fd, &st) < 0)
		fatal("%s (run 'make' first)", L->base);
	key_stat(L, &st);
	while (off + NEWC_HDR <= st.st_size) {
		/* Zero padding between archives. */
		if (pread(fd, &z, 1, off) == 1 && z == '\0') {
			off += 4;
			continue;
		}
		if (pread(fd, h, NEWC_HDR, off) != NEWC_HDR ||
		    memcmp(h, NEWC_MAGIC, 6) != 0)
			fatalx("%s: not a newc cpio archive at byte %lld",
			    L->base, (long long)off);
		mode = hex(h + 6 + 8, 8);
		fsize = hex(h + 6 + 6 * 8, 8);
		nsize = hex(h + 6 + 11 * 8, 8);
		if (mode < 0 || fsize < 0 || nsize < 1 || nsize > PATH_MAX ||
		    pread(fd, name, nsize, off + NEWC_HDR) != nsize ||
		    name[nsize - 1] != '\0')
			fatalx("%s: a bad cpio header at byte %lld", L->base,
			    (long long)off);
		off += pad4(NEWC_HDR + nsize) + pad4(fsize);
		if (strcmp(name, TRAILER) == 0)
			continue;
		/* "./usr" and "usr" are the same entry. */
		known_set(L, strncmp(name, "./", 2) == 0 ? name + 2 : name,
		    (mode_t)mode & S_IFMT, 0);
	}
	close(fd);
	qsort(L->known, L->nknown, sizeof *L->known, known_cmp);
}

/*
 * Refuse host file path: "--add SPEC: PATH why", or "--add: PATH why"
 * when the --add value is just that path; with errno's text when syserr.
 */
static void __attribute__((noreturn, format(printf, 4, 5)))
refuse(struct initrd_list *L, const char *path, int syserr, const char *fmt,
    ...)
{
	va_list	 ap;
	char	*why;
	int	 e = errno;

	va_start(ap, fmt);
	why = xvasprintf(fmt, ap);
	va_end(ap);
	if (strcmp(path, L->spec) == 0)
		fatalx("--add: %s%s%s%s", path, why, syserr ? ": " : "",
		    syserr ? strerror(e) : "");
	fatalx("--add %s: %s%s%s%s", L->spec, path, why, syserr ? ": " : "",
	    syserr ? strerror(e) : "");
}

/* Is gpath one of the reserved paths or below one? */
static const char *
reserved_at(const char *gpath)
{
	const char *const *r;
	size_t		  n;

	for (r = reserved; *r != NULL; r++) {
		n = strlen(*r);
		if (strncmp(gpath, *r, n) == 0 &&
		    (gpath[n] == '\0' || gpath[n] == '/'))
			return *r;
	}
	return NULL;
}

/* Append an entry to the archive's list. */
static struct ent *
ent_push(struct initrd_list *L, const char *gpath, mode_t mode,
    long long mtime)
{
	struct ent	*e;

	if (L->nents == L->capents) {
		L->capents = L->capents ? L->capents * 2 : 64;
		L->ents = xrealloc(L->ents, L->capents * sizeof *L->ents);
	}
	e = &L->ents[L->nents++];
	memset(e, 0, sizeof *e);
	e->gpath = xstrdup(gpath);
	e->mode = mode;
	e->mtime = mtime;
	key_bytes(L, gpath, strlen(gpath) + 1);
	key_u64(L, mode);
	key_u64(L, (unsigned long long)mtime);
	return e;
}

/*
 * Place an entry of type mode at gpath: make the missing parents, check
 * what the rootfs (or an earlier --add) has there.  Returns the new
 * entry, or NULL when a directory merges into an existing one.
 */
static struct ent *
place(struct initrd_list *L, const char *gpath, mode_t mode, long long mtime)
{
	struct known	*k;
	const char	*r;
	char		*p, *slash, *parent;

	if ((r = reserved_at(gpath)) != NULL)
		fatalx("--add %s: %s is %s in the guest; choose another "
		    "GUESTPATH", L->spec, gpath, strcmp(r, "/init") == 0 ||
		    strcmp(r, "/usr/lib/umkit") == 0 ? "the kit's own" :
		    "mounted over");
	if (strcmp(gpath, "/") == 0) {
		if (!S_ISDIR(mode))
			fatalx("--add %s: a file cannot be /", L->spec);
		return NULL;
	}
	p = xstrdup(gpath + 1);
	for (slash = strchr(p, '/'); slash != NULL; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		if ((k = known_find(L, p)) == NULL) {
			parent = xasprintf("/%s", p);
			ent_push(L, parent, S_IFDIR | 0755, mtime);
			free(parent);
			known_set(L, p, S_IFDIR, 1);
		} else if (k->type != S_IFDIR)
			fatalx("--add %s: /%s is not a directory in the guest, so "
			    "nothing can go under it", L->spec, p);
		*slash = '/';
	}
	k = known_find(L, p);
	if (k != NULL && k->type == S_IFDIR && S_ISDIR(mode)) {
		free(p);
		return NULL;
	}
	if (k != NULL && k->type == S_IFDIR)
		fatalx("--add %s: %s is a directory in the guest; a file cannot "
		    "replace it", L->spec, gpath);
	known_set(L, p, mode & S_IFMT, 1);
	free(p);
	return ent_push(L, gpath, mode, mtime);
}

/* gpath + "/" + name, checked for length. */
static char *
gjoin(struct initrd_list *L, const char *gpath, const char *name)
{
	char	*p = xasprintf("%s%s%s", gpath, strcmp(gpath, "/") ? "/" : "",
	    name);

	if (strlen(p) > GPATH_MAX)
		fatalx("--add %s: guest path %.60s... is too long", L->spec, p);
	return p;
}

/* Add host (stat'ed in st) at gpath: a file, a symlink or a whole tree. */
static void
walk(struct initrd_list *L, const char *host, const struct stat *st,
    const char *gpath)
{
	struct dirent	**names;
	struct elfdeps_info info;
	struct stat	  cst;
	struct ent	 *e;
	char		  why[300], *chost, *cgpath, target[PATH_MAX];
	const char	 *kind;
	ssize_t		  n;
	int		  fd, i, nn, elf;

	if (S_ISREG(st->st_mode)) {
		if ((fd = open(host, O_RDONLY | O_CLOEXEC)) < 0)
			refuse(L, host, 1, "%s", "");
		if ((elf = elfdeps_read_fd(fd, &info, why, sizeof why)) < 0)
			refuse(L, host, 0, " %s", why);
		close(fd);
		if (elf == 1 && elfdeps_dynamic(&info)) {
			L->dyns = xrealloc(L->dyns, (L->ndyns + 1) *
			    sizeof *L->dyns);
			L->dyns[L->ndyns++] = (struct dyn){ xstrdup(host),
			    xstrdup(gpath), L->spec, info };
		} else if (elf == 1)
			elfdeps_info_free(&info);
		if ((unsigned long long)st->st_size > 0xffffffffULL)
			refuse(L, host, 0, " is 4 GiB or more, too large for an "
			    "initramfs; put it on the guest disk");
		e = place(L, gpath, st->st_mode, st->st_mtime);
		e->host = xstrdup(host);
		e->size = (unsigned long long)st->st_size;
		L->bytes += e->size;
		key_stat(L, st);
	} else if (S_ISLNK(st->st_mode)) {
		if ((n = readlink(host, target, sizeof target - 1)) < 0)
			refuse(L, host, 1, "%s", "");
		target[n] = '\0';
		e = place(L, gpath, S_IFLNK | 0777, st->st_mtime);
		e->target = xstrdup(target);
		key_bytes(L, target, (size_t)n + 1);
		e->size = (unsigned long long)n;
		L->bytes += e->size;
	} else if (S_ISDIR(st->st_mode)) {
		place(L, gpath, st->st_mode, st->st_mtime);
		if ((nn = scandir(host, &names, NULL, alphasort)) < 0)
			refuse(L, host, 1, "%s", "");
		for (i = 0; i < nn; i++) {
			if (strcmp(names[i]->d_name, ".") != 0 &&
			    strcmp(names[i]->d_name, "..") != 0) {
				chost = xasprintf("%s/%s", host, names[i]->d_name);
				cgpath = gjoin(L, gpath, names[i]->d_name);
				if (lstat(chost, &cst) < 0)
					refuse(L, chost, 1, "%s", "");
				walk(L, chost, &cst, cgpath);
				free(chost);
				free(cgpath);
			}
			free(names[i]);
		}
		free(names);
	} else {
		kind = S_ISFIFO(st->st_mode) ? "a FIFO" : S_ISSOCK(st->st_mode) ?
		    "a socket" : "a device node";
		refuse(L, host, 0, " is %s; only files, directories and "
		    "symlinks can be added", kind);
	}
}

/*
 * Normalise a GUESTPATH: absolute, single slashes, no "." or ".."
 * components, no trailing slash (a trailing slash appends name).
 */
static char *
guest_path(struct initrd_list *L, const char *g, const char *name)
{
	char	*out, *o, *seg, *save, *copy;
	int	 into;

	if (g[0] != '/')
		fatalx("--add %s: GUESTPATH %s is not absolute", L->spec, g);
	into = g[strlen(g) - 1] == '/';
	copy = xstrdup(g);
	out = o = xmalloc(strlen(g) + strlen(name) + 3);
	*o = '\0';
	for (seg = strtok_r(copy, "/", &save); seg != NULL;
	    seg = strtok_r(NULL, "/", &save)) {
		if (strcmp(seg, ".") == 0 || strcmp(seg, "..") == 0)
			fatalx("--add %s: GUESTPATH %s has a '%s' component",
			    L->spec, g, seg);
		o += sprintf(o, "/%s", seg);
	}
	if (into)
		o += sprintf(o, "/%s", name);
	if (out[0] == '\0')
		strcpy(out, "/");
	free(copy);
	if (strlen(out) > GPATH_MAX)
		fatalx("--add %s: GUESTPATH is too long", L->spec);
	return out;
}

/* One --add value: split it, find the host file, walk it. */
static void
prepare_one(struct initrd_list *L, const char *spec)
{
	struct stat	 st;
	const char	*colon;
	char		*host, *real, *name, *gpath, *before;

	L->spec = spec;
	colon = strrchr(spec, ':');
	if (colon != NULL && colon[1] == '/' && colon != spec)
		host = xasprintf("%.*s", (int)(colon - spec), spec);
	else {
		host = xstrdup(spec);
		colon = NULL;
	}
	if (*host == '\0')
		fatalx("--add %s: no HOSTPATH", spec);
	if (stat(host, &st) < 0) {
		/* "prog:bin" is a path; say why it is not HOSTPATH:GUESTPATH. */
		colon = strrchr(spec, ':');
		if (errno == ENOENT && colon != NULL && colon[1] != '/' &&
		    colon != spec) {
			before = xasprintf("%.*s", (int)(colon - spec), spec);
			if (access(before, F_OK) == 0)
				fatalx("--add %s: GUESTPATH %s is not absolute",
				    spec, colon + 1);
			free(before);
			errno = ENOENT;
		}
		refuse(L, host, 1, "%s", "");
	}
	/* NAME: the last component of the real path ("." has a name too). */
	if ((real = realpath(host, NULL)) == NULL)
		fatal("--add %s: %s", spec, host);
	name = strrchr(real, '/') + 1;
	if (*name == '\0')
		fatalx("--add %s: / needs a GUESTPATH", spec);
	if (colon != NULL)
		gpath = guest_path(L, colon + 1, name);
	else
		gpath = xasprintf("%s/%s", S_ISDIR(st.st_mode) ? "/root" :
		    "/usr/local/bin", name);
	walk(L, host, &st, gpath);
	free(gpath);
	free(real);
	free(host);
}

/*
 * Place a file a program needs (a library, a symlink to one) at its
 * guest path, unless an --add or another program put something there.
 */
static void
place_lib(struct initrd_list *L, const struct elfdeps_file *f)
{
	struct known	*k;
	struct stat	 st;
	struct ent	*e;

	if ((k = known_find(L, f->guest + 1)) != NULL && k->type != S_IFDIR)
		return;
	if ((f->target != NULL ? lstat(f->host, &st) : stat(f->host, &st)) < 0)
		refuse(L, f->host, 1, "%s", "");
	if (f->target != NULL ? !S_ISLNK(st.st_mode) : !S_ISREG(st.st_mode))
		refuse(L, f->host, 0, " changed while it was read");
	if ((unsigned long long)st.st_size > 0xffffffffULL)
		refuse(L, f->host, 0, " is 4 GiB or more, too large for an "
		    "initramfs");
	if (f->target != NULL) {
		e = place(L, f->guest, S_IFLNK | 0777, st.st_mtime);
		e->target = xstrdup(f->target);
		e->size = strlen(f->target);
		key_bytes(L, f->target, (size_t)e->size + 1);
	} else {
		e = place(L, f->guest, st.st_mode, st.st_mtime);
		e->host = xstrdup(f->host);
		e->size = (unsigned long long)st.st_size;
		key_stat(L, &st);
	}
	L->bytes += e->size;
	L->libbytes += e->size;
	L->nlibs++;
}

/*
 * Add what the dynamically linked files among the added ones need: the
 * interpreter and the libraries at their host paths (elfdeps.h), and
 * the host's ld.so.cache when a library is found only through it.
 */
static void
prepare_libs(struct initrd_list *L)
{
	static const struct elfdeps_file ldc = { LDSO_CACHE, LDSO_CACHE, NULL };
	struct elfdeps_cache	 c;
	struct elfdeps_list	 need;
	struct dyn		*d;
	char			 err[PATH_MAX + 256];
	size_t			 i, j;
	int			 cache_needed = 0;

	if (L->ndyns == 0)
		return;
	/* A damaged cache is ignored, as ld.so ignores it. */
	elfdeps_cache_load(&c, LDSO_CACHE, err, sizeof err);
	for (i = 0; i < L->ndyns; i++) {
		d = &L->dyns[i];
		L->spec = d->spec;
		memset(&need, 0, sizeof need);
		if (elfdeps_resolve(&c, d->host, d->gpath, &d->info, &need, err,
		    sizeof err) < 0)
			fatalx("--add %s: %s", d->spec, err);
		for (j = 0; j < need.n; j++)
			place_lib(L, &need.v[j]);
		cache_needed |= need.cache_needed;
		elfdeps_list_free(&need);
		elfdeps_info_free(&d->info);
		free(d->host);
		free(d->gpath);
	}
	if (cache_needed)
		place_lib(L, &ldc);
	elfdeps_cache_free(&c);
	free(L->dyns);
	L->dyns = NULL;
	L->ndyns = 0;
}

/* Check every --add and list the archive's entries. */
void
initrd_prepare(struct guest_opts *o)
{
	struct initrd_list	*L;
	unsigned long long	 limit;
	int			 i;

	if (o->nadds == 0 || o->files != NULL)
		return;
	L = xcalloc(1, sizeof *L);
	L->key = FNV1A_BASIS;
	key_bytes(L, "umkit-initrd-1", 14);
	L->base = top_path("build/rootfs/initramfs.cpio");
	scan_base(L);
	for (i = 0; i < o->nadds; i++)
		prepare_one(L, o->adds[i]);
	prepare_libs(L);
	/*
	 * The guest holds the archive twice while it unpacks it (the loaded
	 * initrd and the files), beside the rootfs: 127 MiB panicked a
	 * 256 MiB guest out of memory, 100 MiB did not.
	 */
	limit = (unsigned long long)o->mem_mb << 18;
	if (L->bytes > limit)
		fatalx("--add: %llu MiB of files%s are too much for a %ld MiB "
		    "guest (at most a quarter of its memory, %llu MiB: the "
		    "initramfs is unpacked in it): use a larger -m or fewer "
		    "files", (L->bytes + (1 << 20) - 1) >> 20, L->nlibs == 0 ?
		    "" : xasprintf(" (%llu MiB of them the shared libraries "
		    "the programs need)", (L->libbytes + (1 << 20) - 1) >> 20),
		    o->mem_mb, limit >> 20);
	o->files = L;
}

/* Copy len bytes from in (at its offset) to out (at its offset). */
static int
copy_fd(int in, int out, unsigned long long len)
{
	char		buf[1 << 16];
	ssize_t		n;
	int		fallback = 0;

	while (len > 0) {
		if (!fallback) {
			n = copy_file_range(in, NULL, out, NULL,
			    len > (1u << 30) ? (1u << 30) : (size_t)len, 0);
			if (n < 0 && (errno == EXDEV || errno == EINVAL ||
			    errno == ENOSYS || errno == EOPNOTSUPP)) {
				fallback = 1;
				continue;
			}
		} else
			n = read(in, buf, len < sizeof buf ? (size_t)len : sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = ENODATA;	/* shrank meanwhile */
			return -1;
		}
		if (fallback && write_all(out, buf, (size_t)n) < 0)
			return -1;
		len -= (unsigned long long)n;
	}
	return 0;
}

/* Write one header and name (and padding) to out. */
static int
put_header(int out, unsigned ino, const struct ent *e, const char *name,
    unsigned long long size)
{
	char	buf[NEWC_HDR + PATH_MAX + 4];
	size_t	nsize = strlen(name) + 1, len;

	len = (size_t)snprintf(buf, sizeof buf,
	    "%s%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X",
	    NEWC_MAGIC, ino, e != NULL ? (unsigned)e->mode : 0u, 0u, 0u,
	    e != NULL && S_ISDIR(e->mode) ? 2u : 1u,
	    e != NULL ? (unsigned)e->mtime : 0u, (unsigned)size, 0u, 0u, 0u,
	    0u, (unsigned)nsize, 0u);
	memcpy(buf + len, name, nsize);
	len += nsize;
	while (len % 4)
		buf[len++] = '\0';
	return write_all(out, buf, len) < 0 ? -1 : 0;
}

/* Pad out's end to a multiple of 4 with zeros. */
static int
put_pad(int out, unsigned long long len)
{
	static const char zero[4];

	return len % 4 && write_all(out, zero, 4 - len % 4) < 0 ? -1 : 0;
}

/* Append the added entries to out as one newc archive. */
static int
put_archive(const struct initrd_list *L, int out, char *err, size_t errsize)
{
	const struct ent *e;
	struct stat	  st;
	size_t		  i;
	int		  in;

	for (i = 0; i < L->nents; i++) {
		e = &L->ents[i];
		if (e->host != NULL) {
			if ((in = open(e->host, O_RDONLY | O_CLOEXEC)) < 0 ||
			    fstat(in, &st) < 0 || !S_ISREG(st.st_mode) ||
			    (unsigned long long)st.st_size != e->size) {
				snprintf(err, errsize, "%s changed since it was "
				    "checked", e->host);
				if (in >= 0)
					close(in);
				return -1;
			}
			if (put_header(out, 0x10000 + (unsigned)i, e, e->gpath + 1,
			    e->size) < 0 || copy_fd(in, out, e->size) < 0 ||
			    put_pad(out, e->size) < 0) {
				snprintf(err, errsize, "%s: %s", e->host,
				    strerror(errno));
				close(in);
				return -1;
			}
			close(in);
		} else if (put_header(out, 0x10000 + (unsigned)i, e, e->gpath + 1,
		    e->size) < 0 || (e->target != NULL &&
		    (write_all(out, e->target, e->size) < 0 ||
		    put_pad(out, e->size) < 0))) {
			snprintf(err, errsize, "%s", strerror(errno));
			return -1;
		}
	}
	if (put_header(out, 0, NULL, TRAILER, 0) < 0) {
		snprintf(err, errsize, "%s", strerror(errno));
		return -1;
	}
	return 0;
}

/* A cache entry's name and when it was last used, for cache_trim. */
struct cached {
	char		*path;
	long long	 used;		/* mtime in ns */
};

/* Most recently used first. */
static int
cached_cmp(const void *a, const void *b)
{
	long long	x = ((const struct cached *)a)->used;
	long long	y = ((const struct cached *)b)->used;

	return x < y ? 1 : x > y ? -1 : 0;
}

/*
 * Keep the CACHE_KEEP most recently used files in the cache directory,
 * keep among them; remove the others, and temporary names a crashed
 * umkit left.
 */
static void
cache_trim(const char *dir, const char *keep)
{
	struct cached	*v = NULL;
	struct dirent	*de;
	struct stat	 st;
	size_t		 n = 0, i, len;
	char		*p;
	DIR		*d;

	if ((d = opendir(dir)) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		len = strlen(de->d_name);
		p = xasprintf("%s/%s", dir, de->d_name);
		if (len > 4 && strcmp(de->d_name + len - 4, ".tmp") == 0 &&
		    stat(p, &st) == 0 && st.st_mtime + 60 < time(NULL))
			unlink(p);
		if (len > 5 && strcmp(de->d_name + len - 5, ".cpio") == 0 &&
		    stat(p, &st) == 0) {
			v = xrealloc(v, (n + 1) * sizeof *v);
			v[n++] = (struct cached){ p, strcmp(p, keep) == 0 ?
			    LLONG_MAX : st.st_mtim.tv_sec * 1000000000LL +
			    st.st_mtim.tv_nsec };
			continue;
		}
		free(p);
	}
	closedir(d);
	qsort(v, n, sizeof *v, cached_cmp);
	for (i = 0; i < n; i++) {
		if (i >= CACHE_KEEP)
			unlink(v[i].path);
		free(v[i].path);
	}
	free(v);
}

/*
 * Keep the initrd just written at path for later boots with the same
 * files: a second name for it (a hard link) in build/initrd/.
 */
static void
cache_store(const char *path, const char *cache)
{
	char	*dir, *tmp;

	dir = top_path("build/initrd");
	mkdir(dir, 0755);
	tmp = xasprintf("%s.%ld.tmp", cache, (long)getpid());
	if (link(path, tmp) == 0 && rename(tmp, cache) != 0)
		unlink(tmp);
	free(tmp);
	cache_trim(dir, cache);
	free(dir);
}

/*
 * The initrd for o: the prebuilt one; or rundir/initrd, a hard link to
 * the one a boot with the same files wrote, or written now.
 */
char *
initrd_make(const struct guest_opts *o, const char *rundir)
{
	const struct initrd_list *L = o->files;
	struct stat	 st;
	char		*path, *cache, err[PATH_MAX + 64];
	int		 in = -1, out = -1, ok = 0;

	if (o->nadds == 0)
		return top_path("build/rootfs/initramfs.cpio");
	if (L == NULL)
		fatalx("internal error: --add not prepared");
	path = xasprintf("%s/initrd", rundir);
	cache = xasprintf("%s/build/initrd/%016llx.cpio", top_dir(),
	    (unsigned long long)L->key);
	if (link(cache, path) == 0) {
		utimensat(AT_FDCWD, cache, NULL, 0);	/* used now */
		free(cache);
		return path;
	}
	err[0] = '\0';
	if ((in = open(L->base, O_RDONLY | O_CLOEXEC)) < 0 || fstat(in, &st) < 0)
		snprintf(err, sizeof err, "%s: %s", L->base, strerror(errno));
	else if ((out = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
	    0600)) < 0)
		snprintf(err, sizeof err, "%s: %s", path, strerror(errno));
	/* The rootfs first: a reflink where the file system can. */
	else if (ioctl(out, FICLONE, in) == 0 ?
	    lseek(out, 0, SEEK_END) < 0 :
	    copy_fd(in, out, (unsigned long long)st.st_size) < 0)
		snprintf(err, sizeof err, "%s: %s", L->base, strerror(errno));
	else if (put_pad(out, (unsigned long long)st.st_size) == 0 &&
	    put_archive(L, out, err, sizeof err) == 0)
		ok = 1;
	else if (err[0] == '\0')
		snprintf(err, sizeof err, "%s: %s", path, strerror(errno));
	if (in >= 0)
		close(in);
	if (out >= 0 && close(out) < 0 && ok) {
		snprintf(err, sizeof err, "%s: %s", path, strerror(errno));
		ok = 0;
	}
	if (!ok) {
		warnmsg("cannot write the guest's initramfs: %s", err);
		if (out >= 0)
			unlink(path);
		free(path);
		free(cache);
		return NULL;
	}
	cache_store(path, cache);
	free(cache);
	return path;
}
