/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * elfdeps.c - a dynamic program's interpreter and shared libraries, found
 * as ld.so finds them (elfdeps.h).
 *
 * The ELF side follows the System V ABI and its x86-64 supplement: the
 * 64-byte header, e_phnum program headers of 56 bytes at e_phoff, the
 * dynamic section (PT_DYNAMIC) as 16-byte tag and value pairs, its
 * strings in the table DT_STRTAB names by address (mapped to a file
 * offset through the PT_LOAD segment holding it).
 *
 * The cache side reads glibc's ld.so.cache as ldconfig writes it: a
 * 48-byte header ("glibc-ld.so.cache" "1.1", the entry count, the string
 * table's length, a byte order flag: 0 unset, 2 little-endian), then
 * 24-byte entries (flags, the name's and the path's offsets from the
 * header, an unused OS version, hwcaps), then the strings.  An x86-64
 * library's entry has flags 0x0303 (libc6, x86-64).  Before glibc 2.32
 * the file could start with the old table ("ld.so-1.7.0", a count,
 * 12-byte entries), the new header following it 8-aligned.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elfdeps.h"
#include "util.h"

#define CACHE_MAGIC	"glibc-ld.so.cache1.1"
#define CACHE_OLD	"ld.so-1.7.0"
#define CACHE_HDR	48
#define CACHE_ENT	24
#define CACHE_OLD_HDR	16
#define CACHE_OLD_ENT	12
#define CACHE_X8664	0x0303		/* FLAG_ELF_LIBC6 | FLAG_X8664_LIB64 */
/* Candidate files one closure may open (a bound on a hostile tree). */
#define MAX_PROBES	100000

static const char *const default_dirs[] = { ELFDEPS_DEFAULT_DIRS, NULL };

/* Reading a file of known size through a pread-like call. */
struct rd {
	elfdeps_pread_fn fn;
	void		*ctx;
	uint64_t	 size;
};

/* Read exactly n bytes at off, all of them inside the file: 0 or -1. */
static int
rd_exact(const struct rd *r, void *buf, size_t n, uint64_t off)
{
	if (off > r->size || n > r->size - off)
		return -1;
	return r->fn(r->ctx, buf, n, off) == (ssize_t)n ? 0 : -1;
}

/*
 * The NUL-terminated string at off that ends before end (and the file's
 * end), at most ELFDEPS_MAX_STR bytes with its NUL; allocated, or NULL.
 */
static char *
rd_string(const struct rd *r, uint64_t off, uint64_t end)
{
	char	buf[ELFDEPS_MAX_STR];
	size_t	n;
	ssize_t	got;

	if (end > r->size)
		end = r->size;
	if (off >= end)
		return NULL;
	n = end - off < sizeof buf ? (size_t)(end - off) : sizeof buf;
	if ((got = r->fn(r->ctx, buf, n, off)) <= 0 ||
	    memchr(buf, '\0', (size_t)got) == NULL)
		return NULL;
	return xstrdup(buf);
}

/* pread on the file descriptor in ctx, whole or to its end. */
static ssize_t
fd_pread(void *ctx, void *buf, size_t n, uint64_t off)
{
	int	fd = *(int *)ctx;
	size_t	done = 0;
	ssize_t	got;

	if (off > INT64_MAX)
		return -1;
	while (done < n) {
		got = pread(fd, (char *)buf + done, n - done,
		    (off_t)(off + done));
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return -1;
		if (got == 0)
			break;
		done += (size_t)got;
	}
	return (ssize_t)done;
}

/* Bytes in memory, for the fuzzer and tests. */
struct mem {
	const uint8_t	*p;
	size_t		 len;
};

/* Copy from the memory in ctx, as far as it goes. */
static ssize_t
mem_pread(void *ctx, void *buf, size_t n, uint64_t off)
{
	const struct mem	*m = ctx;

	if (off >= m->len)
		return 0;
	if (n > m->len - off)
		n = m->len - (size_t)off;
	memcpy(buf, m->p + off, n);
	return (ssize_t)n;
}

/* Free what elfdeps_read filled in. */
void
elfdeps_info_free(struct elfdeps_info *info)
{
	int	i;

	free(info->interp);
	free(info->soname);
	free(info->rpath);
	free(info->runpath);
	for (i = 0; i < info->nneeded; i++)
		free(info->needed[i]);
	free(info->needed);
	memset(info, 0, sizeof *info);
}

/* Whether the object needs an interpreter or libraries. */
int
elfdeps_dynamic(const struct elfdeps_info *info)
{
	return info->interp != NULL || info->nneeded > 0;
}

/* The file offset of address addr, from the PT_LOAD holding it; or -1. */
static int
vaddr_offset(const Elf64_Phdr *ph, int n, uint64_t addr, uint64_t *off)
{
	int	i;

	for (i = 0; i < n; i++) {
		if (ph[i].p_type != PT_LOAD || addr < ph[i].p_vaddr ||
		    addr - ph[i].p_vaddr >= ph[i].p_filesz)
			continue;
		*off = ph[i].p_offset + (addr - ph[i].p_vaddr);
		if (*off < ph[i].p_offset)
			return -1;
		return 0;
	}
	return -1;
}

/*
 * Read the dynamic section (filesz bytes at off) into info: the names
 * and paths it points at, DF_1_NODEFLIB.  0, or -1 with err set.
 */
static int
read_dynamic(const struct rd *r, const Elf64_Phdr *ph, int nph, uint64_t off,
    uint64_t filesz, struct elfdeps_info *info, char *err, size_t errsize)
{
	Elf64_Dyn	*dyn = NULL;
	uint64_t	*need = NULL, strtab = 0, strsz = 0, stroff, end;
	uint64_t	 soname = 0, rpath = 0, runpath = 0;
	size_t		 n, k;
	int		 nneed = 0, have_strtab = 0, rc = -1, i;
	int		 have_soname = 0, have_rpath = 0, have_runpath = 0;
	char		**slot, *s;

	if (filesz > ELFDEPS_MAX_DYN) {
		snprintf(err, errsize, "has a dynamic section over %d KiB",
		    ELFDEPS_MAX_DYN >> 10);
		return -1;
	}
	n = (size_t)filesz / sizeof *dyn;
	dyn = xcalloc(n + 1, sizeof *dyn);
	need = xcalloc(ELFDEPS_MAX_NEEDED, sizeof *need);
	if (n > 0 && rd_exact(r, dyn, n * sizeof *dyn, off) < 0) {
		snprintf(err, errsize, "is a truncated ELF file (its dynamic "
		    "section)");
		goto out;
	}
	for (k = 0; k < n && dyn[k].d_tag != DT_NULL; k++) {
		switch (dyn[k].d_tag) {
		case DT_NEEDED:
			if (nneed == ELFDEPS_MAX_NEEDED) {
				snprintf(err, errsize, "needs more than %d "
				    "shared libraries", ELFDEPS_MAX_NEEDED);
				goto out;
			}
			need[nneed++] = dyn[k].d_un.d_val;
			break;
		case DT_SONAME:
			if (!have_soname++)
				soname = dyn[k].d_un.d_val;
			break;
		case DT_RPATH:
			if (!have_rpath++)
				rpath = dyn[k].d_un.d_val;
			break;
		case DT_RUNPATH:
			if (!have_runpath++)
				runpath = dyn[k].d_un.d_val;
			break;
		case DT_STRTAB:
			strtab = dyn[k].d_un.d_ptr;
			have_strtab = 1;
			break;
		case DT_STRSZ:
			strsz = dyn[k].d_un.d_val;
			break;
		case DT_FLAGS_1:
			info->nodeflib = (dyn[k].d_un.d_val & DF_1_NODEFLIB) != 0;
			break;
		}
	}
	if (nneed + have_soname + have_rpath + have_runpath == 0) {
		rc = 0;
		goto out;
	}
	if (!have_strtab || vaddr_offset(ph, nph, strtab, &stroff) < 0) {
		snprintf(err, errsize, "has a damaged dynamic section (no "
		    "string table in the file)");
		goto out;
	}
	end = stroff + strsz < stroff ? UINT64_MAX : stroff + strsz;
	info->needed = xcalloc((size_t)nneed + 1, sizeof *info->needed);
	for (i = 0; i < nneed + 3; i++) {
		if (i < nneed) {
			slot = &info->needed[i];
			k = need[i];
		} else if (i == nneed && have_soname) {
			slot = &info->soname;
			k = soname;
		} else if (i == nneed + 1 && have_rpath) {
			slot = &info->rpath;
			k = rpath;
		} else if (i == nneed + 2 && have_runpath) {
			slot = &info->runpath;
			k = runpath;
		} else
			continue;
		if (k >= strsz || stroff + k < stroff ||
		    (s = rd_string(r, stroff + k, end)) == NULL) {
			snprintf(err, errsize, "has a damaged dynamic section (a "
			    "name outside its string table, or too long)");
			goto out;
		}
		*slot = s;
		if (i < nneed) {
			info->nneeded++;
			if (*s == '\0') {
				snprintf(err, errsize, "has an empty DT_NEEDED "
				    "name");
				goto out;
			}
		}
	}
	rc = 0;
out:
	free(dyn);
	free(need);
	return rc;
}

/* Read the ELF headers of a size-byte file through fn. */
int
elfdeps_read(elfdeps_pread_fn fn, void *ctx, uint64_t size,
    struct elfdeps_info *info, char *err, size_t errsize)
{
	struct rd	 r = { fn, ctx, size };
	Elf64_Ehdr	 eh;
	Elf64_Phdr	*ph = NULL;
	ssize_t		 got;
	int		 i, rc = -1, have_interp = 0, have_dyn = 0;

	memset(info, 0, sizeof *info);
	memset(&eh, 0, sizeof eh);
	got = fn(ctx, &eh, size < sizeof eh ? (size_t)size : sizeof eh, 0);
	if (got < SELFMAG || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0)
		return 0;
	if (got <= EI_DATA)
		snprintf(err, errsize, "is a truncated ELF file");
	else if (eh.e_ident[EI_CLASS] == ELFCLASS32)
		snprintf(err, errsize, "is a 32-bit ELF file; the guest runs "
		    "x86-64 programs (ELF64)");
	else if (eh.e_ident[EI_CLASS] != ELFCLASS64)
		snprintf(err, errsize, "is an ELF file of unknown class %u; "
		    "the guest runs x86-64 programs", eh.e_ident[EI_CLASS]);
	else if (eh.e_ident[EI_DATA] != ELFDATA2LSB)
		snprintf(err, errsize, "is a big-endian ELF file; the guest "
		    "runs x86-64 programs");
	else if (got != sizeof eh)
		snprintf(err, errsize, "is a truncated ELF file");
	else if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN)
		return 0;	/* object files, core dumps: data */
	else if (eh.e_machine != EM_X86_64)
		snprintf(err, errsize, "is a program for another machine (ELF "
		    "e_machine %u); the guest runs x86-64 programs",
		    eh.e_machine);
	else if (eh.e_phentsize != sizeof *ph || eh.e_phnum == 0 ||
	    eh.e_phnum == PN_XNUM)
		snprintf(err, errsize, "has no usable program headers");
	else if (eh.e_phnum > ELFDEPS_MAX_PHDRS)
		snprintf(err, errsize, "has more than %d program headers",
		    ELFDEPS_MAX_PHDRS);
	else
		rc = 0;
	if (rc < 0)
		return -1;
	rc = -1;
	info->type = eh.e_type;
	ph = xcalloc(eh.e_phnum, sizeof *ph);
	if (rd_exact(&r, ph, eh.e_phnum * sizeof *ph, eh.e_phoff) < 0) {
		snprintf(err, errsize, "is a truncated ELF file");
		goto out;
	}
	for (i = 0; i < eh.e_phnum; i++) {
		if (ph[i].p_type == PT_INTERP && !have_interp++) {
			if (ph[i].p_filesz > ELFDEPS_MAX_STR ||
			    ph[i].p_offset + ph[i].p_filesz < ph[i].p_offset ||
			    (info->interp = rd_string(&r, ph[i].p_offset,
			    ph[i].p_offset + ph[i].p_filesz)) == NULL ||
			    info->interp[0] == '\0') {
				snprintf(err, errsize, "has a damaged "
				    "interpreter name (PT_INTERP)");
				goto out;
			}
		}
		if (ph[i].p_type == PT_DYNAMIC && !have_dyn++ &&
		    read_dynamic(&r, ph, eh.e_phnum, ph[i].p_offset,
		    ph[i].p_filesz, info, err, errsize) < 0)
			goto out;
	}
	rc = 1;
out:
	free(ph);
	if (rc < 0)
		elfdeps_info_free(info);
	return rc;
}

/* The ELF headers of an open file. */
int
elfdeps_read_fd(int fd, struct elfdeps_info *info, char *err, size_t errsize)
{
	struct stat	st;

	memset(info, 0, sizeof *info);
	if (fstat(fd, &st) < 0) {
		snprintf(err, errsize, "cannot be read: %s", strerror(errno));
		return -1;
	}
	return elfdeps_read(fd_pread, &fd, (uint64_t)st.st_size, info, err,
	    errsize);
}

/* The ELF headers of bytes in memory. */
int
elfdeps_read_mem(const void *buf, size_t len, struct elfdeps_info *info,
    char *err, size_t errsize)
{
	struct mem	m = { buf, len };

	return elfdeps_read(mem_pread, &m, len, info, err, errsize);
}

/* A little-endian 32-bit number at p. */
static uint32_t
le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	    (uint32_t)p[3] << 24;
}

/* A little-endian 64-bit number at p. */
static uint64_t
le64(const uint8_t *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

/* Check an ld.so.cache's bytes and find its table. */
int
elfdeps_cache_parse(struct elfdeps_cache *c, const void *buf, size_t len,
    char *err, size_t errsize)
{
	const uint8_t	*p = buf;
	size_t		 off = 0;
	uint64_t	 nold;
	uint32_t	 nlibs;
	uint8_t		 order;

	memset(c, 0, sizeof *c);
	if (len >= CACHE_OLD_HDR && memcmp(p, CACHE_OLD,
	    sizeof CACHE_OLD - 1) == 0) {
		nold = le32(p + 12);
		if (nold > (len - CACHE_OLD_HDR) / CACHE_OLD_ENT) {
			snprintf(err, errsize, "its old-format table runs past "
			    "the end");
			return -1;
		}
		off = (CACHE_OLD_HDR + (size_t)nold * CACHE_OLD_ENT + 7) & ~7UL;
	}
	if (off > len || len - off < CACHE_HDR ||
	    memcmp(p + off, CACHE_MAGIC, sizeof CACHE_MAGIC - 1) != 0) {
		snprintf(err, errsize, "is not a glibc-ld.so.cache1.1 file");
		return -1;
	}
	nlibs = le32(p + off + 20);
	order = p[off + 28];
	if (order != 0 && order != 2) {
		snprintf(err, errsize, "is not for a little-endian machine "
		    "(byte order flag %u)", order);
		return -1;
	}
	if (nlibs > (len - off - CACHE_HDR) / CACHE_ENT) {
		snprintf(err, errsize, "its %u entries run past the end", nlibs);
		return -1;
	}
	c->base = p + off;
	c->size = len - off;
	c->nlibs = nlibs;
	return 0;
}

/* Read and check the ld.so.cache at path. */
int
elfdeps_cache_load(struct elfdeps_cache *c, const char *path, char *err,
    size_t errsize)
{
	struct stat	 st;
	uint8_t		*mem = NULL;
	int		 fd, rc = -1;
	ssize_t		 got;

	memset(c, 0, sizeof *c);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		if (errno == ENOENT)
			return 0;
		snprintf(err, errsize, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		snprintf(err, errsize, "%s: not a readable file", path);
	else if (st.st_size > ELFDEPS_MAX_CACHE)
		snprintf(err, errsize, "%s: larger than %d MiB", path,
		    ELFDEPS_MAX_CACHE >> 20);
	else {
		mem = xmalloc((size_t)st.st_size + 1);
		got = fd_pread(&fd, mem, (size_t)st.st_size, 0);
		if (got != (ssize_t)st.st_size)
			snprintf(err, errsize, "%s: changed while read", path);
		else if (elfdeps_cache_parse(c, mem, (size_t)got, err,
		    errsize) == 0) {
			c->mem = mem;
			mem = NULL;
			rc = 0;
		}
	}
	close(fd);
	free(mem);
	return rc;
}

/* The string at offset off from the cache's header, or NULL. */
static const char *
cache_string(const struct elfdeps_cache *c, uint32_t off)
{
	if (off >= c->size ||
	    memchr(c->base + off, '\0', c->size - off) == NULL)
		return NULL;
	return (const char *)c->base + off;
}

/* The cache's paths for an x86-64 library name, baseline first. */
size_t
elfdeps_cache_find(const struct elfdeps_cache *c, const char *name,
    const char **paths, size_t max)
{
	const uint8_t	*e;
	const char	*key, *val;
	size_t		 n = 0;
	uint32_t	 i;
	int		 pass;

	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < c->nlibs && n < max; i++) {
			e = c->base + CACHE_HDR + (size_t)i * CACHE_ENT;
			if (le32(e) != CACHE_X8664 ||
			    (le64(e + 16) != 0) != pass ||
			    (key = cache_string(c, le32(e + 4))) == NULL ||
			    strcmp(key, name) != 0 ||
			    (val = cache_string(c, le32(e + 8))) == NULL ||
			    val[0] != '/' || strlen(val) >= ELFDEPS_MAX_STR)
				continue;
			paths[n++] = val;
		}
	}
	return n;
}

/* Free a loaded cache. */
void
elfdeps_cache_free(struct elfdeps_cache *c)
{
	free(c->mem);
	memset(c, 0, sizeof *c);
}

/*
 * The length of dynamic string token name at p ("$NAME" or "${NAME}",
 * the unbraced one not followed by a name character), or 0.
 */
static size_t
dst_len(const char *p, size_t left, const char *name)
{
	size_t	n = strlen(name);

	if (left >= n + 3 && p[1] == '{' && memcmp(p + 2, name, n) == 0 &&
	    p[2 + n] == '}')
		return n + 3;
	if (left >= n + 1 && memcmp(p + 1, name, n) == 0 &&
	    (left == n + 1 || !(p[1 + n] == '_' ||
	    (p[1 + n] >= '0' && p[1 + n] <= '9') ||
	    (p[1 + n] >= 'a' && p[1 + n] <= 'z') ||
	    (p[1 + n] >= 'A' && p[1 + n] <= 'Z'))))
		return n + 1;
	return 0;
}

/* A search directory with its $ORIGIN, $LIB and $PLATFORM replaced. */
char *
elfdeps_expand(const char *dir, size_t len, const char *origin)
{
	static const struct {
		const char	*name;
		const char	*value;
	} tok[] = {
		{ "ORIGIN", NULL },
		{ "LIB", "lib/x86_64-linux-gnu" },
		{ "PLATFORM", "x86_64" },
	};
	char		 out[ELFDEPS_MAX_STR];
	const char	*v;
	size_t		 i, o = 0, t, k, vn;

	for (i = 0; i < len; ) {
		t = 0;
		for (k = 0; dir[i] == '$' && k < 3; k++)
			if ((t = dst_len(dir + i, len - i, tok[k].name)) != 0)
				break;
		if (t != 0) {
			v = tok[k].value != NULL ? tok[k].value : origin;
			vn = strlen(v);
			i += t;
		} else {
			v = dir + i;
			vn = 1;
			i++;
		}
		if (vn >= sizeof out - o)
			return NULL;
		memcpy(out + o, v, vn);
		o += vn;
	}
	out[o] = '\0';
	return xstrdup(out);
}

/* path made absolute and plain, lexically. */
char *
elfdeps_normal(const char *path)
{
	char		*out;
	const char	*p = path, *seg;
	size_t		 o = 0, n, len;

	if (path[0] != '/' || (len = strlen(path)) >= ELFDEPS_MAX_STR)
		return NULL;
	out = xmalloc(len + 2);
	while (*p != '\0') {
		while (*p == '/')
			p++;
		seg = p;
		while (*p != '\0' && *p != '/')
			p++;
		n = (size_t)(p - seg);
		if (n == 0 || (n == 1 && seg[0] == '.'))
			continue;
		if (n == 2 && seg[0] == '.' && seg[1] == '.') {
			while (o > 0 && out[o - 1] != '/')
				o--;
			if (o > 0)
				o--;
			continue;
		}
		out[o++] = '/';
		memcpy(out + o, seg, n);
		o += n;
	}
	if (o == 0)
		out[o++] = '/';
	out[o] = '\0';
	return out;
}

/* One loaded object of a closure. */
struct obj {
	char		 *host;		/* where it was found */
	char		 *guest;
	char		 *horigin;	/* $ORIGIN on the host, in the guest */
	char		 *gorigin;
	struct elfdeps_info info;
	int		  loader;	/* the object that needed it; -1 */
	int		  depth;
	int		  interp;	/* the interpreter: no search of its own */
	char		**names;	/* DT_NEEDED names it was loaded by */
	int		  nnames;
};

/* A closure being resolved. */
struct res {
	const struct elfdeps_cache *c;
	struct obj	*o;
	int		 n;
	struct elfdeps_list *out;
	unsigned long	 probes;
	char		*err;
	size_t		 errsize;
};

/* The directory part of path (allocated; "/" for "/x"). */
static char *
dir_of(const char *path)
{
	const char	*s = strrchr(path, '/');

	if (s == NULL)
		return xstrdup(".");
	if (s == path)
		return xstrdup("/");
	return xasprintf("%.*s", (int)(s - path), path);
}

/* Append a file to the list unless its guest path is there: 1 if new. */
static int
list_push(struct elfdeps_list *l, const char *host, const char *guest,
    const char *target)
{
	size_t	i;

	for (i = 0; i < l->n; i++)
		if (strcmp(l->v[i].guest, guest) == 0)
			return 0;
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 32;
		l->v = xrealloc(l->v, l->cap * sizeof *l->v);
	}
	l->v[l->n].host = xstrdup(host);
	l->v[l->n].guest = xstrdup(guest);
	l->v[l->n].target = target != NULL ? xstrdup(target) : NULL;
	l->n++;
	return 1;
}

/*
 * Put the file ld.so opens as host (guest in the guest) on the list:
 * each symlink on the way as a symlink, then the file.  0 or -1.
 */
static int
add_chain(struct res *R, const char *host, const char *guest)
{
	struct stat	 st;
	char		 target[ELFDEPS_MAX_STR], *h, *g, *nh, *ng, *d;
	ssize_t		 n;
	int		 hops, rc = -1;

	h = xstrdup(host);
	g = xstrdup(guest);
	for (hops = 0; hops <= ELFDEPS_MAX_LINKS; hops++) {
		if (lstat(h, &st) < 0) {
			snprintf(R->err, R->errsize, "%s: %s", h,
			    strerror(errno));
			goto out;
		}
		if (!S_ISLNK(st.st_mode)) {
			list_push(R->out, h, g, NULL);
			rc = 0;
			goto out;
		}
		if ((n = readlink(h, target, sizeof target)) < 0 ||
		    (size_t)n >= sizeof target || n == 0) {
			snprintf(R->err, R->errsize, "%s: an unreadable "
			    "symbolic link", h);
			goto out;
		}
		target[n] = '\0';
		if (!list_push(R->out, h, g, target)) {
			rc = 0;		/* the rest is on the list already */
			goto out;
		}
		if (target[0] == '/') {
			nh = xstrdup(target);
			ng = elfdeps_normal(target);
		} else {
			d = dir_of(h);
			nh = xasprintf("%s/%s", d, target);
			free(d);
			d = dir_of(g);
			ng = xasprintf("%s/%s", d, target);
			free(d);
			d = ng;
			ng = elfdeps_normal(d);
			free(d);
		}
		free(h);
		free(g);
		h = nh;
		g = ng;
		if (g == NULL) {
			snprintf(R->err, R->errsize, "%s: a symbolic link "
			    "too long to follow", host);
			goto out;
		}
	}
	snprintf(R->err, R->errsize, "%s: more than %d symbolic links",
	    host, ELFDEPS_MAX_LINKS);
out:
	free(h);
	free(g);
	return rc;
}

/*
 * Whether host is an x86-64 shared object ld.so would take (filling
 * info); anything else is passed over, as ld.so passes it over.
 */
static int
usable(struct res *R, const char *host, struct elfdeps_info *info)
{
	struct stat	st;
	char		why[256];
	int		fd, ok = 0;

	R->probes++;
	if ((fd = open(host, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    elfdeps_read_fd(fd, info, why, sizeof why) == 1) {
		if (info->type == ET_DYN)
			ok = 1;
		else
			elfdeps_info_free(info);
	}
	close(fd);
	return ok;
}

/*
 * Record a found object (host, guest; loaded by name for loader) and
 * its files.  Its index, or -1 with err set.
 */
static int
obj_add(struct res *R, const char *host, const char *guest, const char *name,
    int loader, struct elfdeps_info *info)
{
	struct obj	*o;
	int		 i;

	for (i = 0; i < R->n; i++) {
		if (strcmp(R->o[i].guest, guest) != 0)
			continue;
		/* The same file by another name: one object, as in ld.so. */
		elfdeps_info_free(info);
		if (name != NULL) {
			o = &R->o[i];
			o->names = xrealloc(o->names, (o->nnames + 1) *
			    sizeof *o->names);
			o->names[o->nnames++] = xstrdup(name);
		}
		return i;
	}
	if (R->n == ELFDEPS_MAX_OBJS) {
		snprintf(R->err, R->errsize, "needs more than %d shared "
		    "libraries", ELFDEPS_MAX_OBJS);
		goto fail;
	}
	if (loader >= 0 && R->o[loader].depth >= ELFDEPS_MAX_DEPTH) {
		snprintf(R->err, R->errsize, "has libraries nested more than "
		    "%d deep", ELFDEPS_MAX_DEPTH);
		goto fail;
	}
	if (R->n > 0 && add_chain(R, host, guest) < 0)
		goto fail;
	R->o = xrealloc(R->o, (R->n + 1) * sizeof *R->o);
	o = &R->o[R->n];
	memset(o, 0, sizeof *o);
	o->host = xstrdup(host);
	o->guest = xstrdup(guest);
	o->horigin = dir_of(host);
	o->gorigin = dir_of(guest);
	o->info = *info;
	o->loader = loader;
	o->depth = loader >= 0 ? R->o[loader].depth + 1 : 0;
	if (name != NULL) {
		o->names = xcalloc(1, sizeof *o->names);
		o->names[o->nnames++] = xstrdup(name);
	}
	return R->n++;
fail:
	elfdeps_info_free(info);
	return -1;
}

/*
 * Try name in the directory list of object src (its DT_RPATH or
 * DT_RUNPATH) for loader.  The object's index, -2 if not there, -1 on
 * an error.
 */
static int
try_dirs(struct res *R, const char *list, int src, const char *name,
    int loader)
{
	struct elfdeps_info	 info;
	const struct obj	*s = &R->o[src];
	const char		*p = list, *colon;
	char			*hd, *gd, *h, *g, *gn;
	size_t			 len;
	int			 ndirs = 0, found = -2;

	while (found == -2 && *p != '\0' && ndirs++ < ELFDEPS_MAX_DIRS) {
		colon = strchr(p, ':');
		len = colon != NULL ? (size_t)(colon - p) : strlen(p);
		hd = elfdeps_expand(p, len, s->horigin);
		gd = elfdeps_expand(p, len, s->gorigin);
		p += len + (colon != NULL);
		/* Empty and relative directories depend on the cwd. */
		if (hd != NULL && gd != NULL && hd[0] == '/' && gd[0] == '/') {
			h = xasprintf("%s/%s", hd, name);
			g = xasprintf("%s/%s", gd, name);
			gn = elfdeps_normal(g);
			if (gn != NULL && usable(R, h, &info))
				found = obj_add(R, h, gn, name, loader, &info);
			free(h);
			free(g);
			free(gn);
		}
		free(hd);
		free(gd);
	}
	return found;
}

/* Whether path's directory is one ld.so searches by default. */
static int
in_default_dir(const char *path)
{
	const char *const	*d;
	size_t			 n;

	for (d = default_dirs; *d != NULL; d++) {
		n = strlen(*d);
		if (strncmp(path, *d, n) == 0 && path[n] == '/' &&
		    strchr(path + n + 1, '/') == NULL)
			return 1;
	}
	return 0;
}

/*
 * Find name, needed by object loader, as ld.so does, and record it.
 * The object's index, or -1 with err set.
 */
static int
find(struct res *R, const char *name, int loader)
{
	struct elfdeps_info	 info;
	const struct obj	*L = &R->o[loader];
	const char		*paths[16];
	const char *const	*d;
	char			*h, *g;
	size_t			 np, i;
	int			 k, j, found = -2, base;

	for (k = 0; k < R->n; k++) {
		if (R->o[k].info.soname != NULL &&
		    strcmp(R->o[k].info.soname, name) == 0)
			return k;
		for (j = 0; j < R->o[k].nnames; j++)
			if (strcmp(R->o[k].names[j], name) == 0)
				return k;
	}
	if (R->probes > MAX_PROBES) {
		snprintf(R->err, R->errsize, "needs libraries from more than "
		    "%d places tried", MAX_PROBES);
		return -1;
	}
	if (strchr(name, '/') != NULL) {
		if (name[0] != '/') {
			snprintf(R->err, R->errsize, "%s, needed by %s, is a "
			    "relative path: it depends on the directory the "
			    "program runs in", name, L->host);
			return -1;
		}
		if ((g = elfdeps_normal(name)) != NULL && usable(R, name, &info))
			found = obj_add(R, name, g, name, loader, &info);
		free(g);
	}
	if (strchr(name, '/') == NULL && L->info.runpath == NULL)
		for (k = loader; k >= 0 && found == -2; k = R->o[k].loader)
			if (R->o[k].info.rpath != NULL &&
			    R->o[k].info.runpath == NULL)
				found = try_dirs(R, R->o[k].info.rpath, k, name,
				    loader);
	if (strchr(name, '/') == NULL && found == -2 && L->info.runpath != NULL)
		found = try_dirs(R, L->info.runpath, loader, name, loader);
	if (strchr(name, '/') == NULL && found == -2 && !L->info.nodeflib) {
		np = R->c != NULL ? elfdeps_cache_find(R->c, name, paths,
		    sizeof paths / sizeof *paths) : 0;
		if (np > 0 && (g = elfdeps_normal(paths[0])) != NULL) {
			if (usable(R, paths[0], &info))
				found = obj_add(R, paths[0], g, name, loader,
				    &info);
			free(g);
		}
		/*
		 * Outside the default directories the guest's ld.so finds it
		 * through the cache only, and may choose a variant for its
		 * CPU (glibc-hwcaps): the guest gets them all.
		 */
		if (found >= 0 && !in_default_dir(paths[0])) {
			R->out->cache_needed = 1;
			base = found;
			for (i = 1; i < np && found >= 0; i++) {
				if ((g = elfdeps_normal(paths[i])) != NULL &&
				    usable(R, paths[i], &info) &&
				    obj_add(R, paths[i], g, NULL, loader,
				    &info) < 0)
					found = -1;
				free(g);
			}
			if (found >= 0)
				found = base;
		}
	}
	for (d = default_dirs; strchr(name, '/') == NULL && found == -2 &&
	    !L->info.nodeflib && *d != NULL; d++) {
		h = xasprintf("%s/%s", *d, name);
		if (usable(R, h, &info))
			found = obj_add(R, h, h, name, loader, &info);
		free(h);
	}
	if (found == -2 && L->info.nodeflib)
		snprintf(R->err, R->errsize, "%s, needed by %s, is not found "
		    "(in its RPATH or RUNPATH: it is linked with -z "
		    "nodefaultlib)", name, L->host);
	else if (found == -2)
		snprintf(R->err, R->errsize, "%s, needed by %s, is not found "
		    "(searched %sld.so.cache, /lib/x86_64-linux-gnu, "
		    "/usr/lib/x86_64-linux-gnu, /lib and /usr/lib)", name,
		    L->host, L->info.runpath != NULL ? "its RUNPATH, " :
		    L->info.rpath != NULL ? "its RPATH, " : "");
	return found < 0 ? -1 : found;
}

/* The interpreter and libraries a program needs, recursively. */
int
elfdeps_resolve(const struct elfdeps_cache *c, const char *host,
    const char *guest, const struct elfdeps_info *info,
    struct elfdeps_list *out, char *err, size_t errsize)
{
	struct elfdeps_info	 copy, ii;
	struct res		 R;
	char			*real = NULL, *g = NULL;
	int			 i, k, rc = -1;

	memset(&R, 0, sizeof R);
	R.c = c;
	R.out = out;
	R.err = err;
	R.errsize = errsize;
	if ((real = realpath(host, NULL)) == NULL) {
		snprintf(err, errsize, "%s: %s", host, strerror(errno));
		return -1;
	}
	/* The program: a borrowed info, taken back before the end. */
	copy = *info;
	if (obj_add(&R, real, guest, NULL, -1, &copy) < 0)
		goto out;
	free(R.o[0].host);
	R.o[0].host = xstrdup(host);
	if (info->interp != NULL) {
		if (info->interp[0] != '/' ||
		    (g = elfdeps_normal(info->interp)) == NULL) {
			snprintf(err, errsize, "%s names the interpreter %s, "
			    "which is not an absolute path", host, info->interp);
			goto out;
		}
		if (!usable(&R, info->interp, &ii)) {
			snprintf(err, errsize, "%s needs the interpreter %s, "
			    "which is missing or not an x86-64 shared object",
			    host, info->interp);
			goto out;
		}
		if ((k = obj_add(&R, info->interp, g, info->interp, 0, &ii)) < 0)
			goto out;
		R.o[k].interp = 1;
	}
	/* Breadth first: each object's names in order, as ld.so loads. */
	for (i = 0; i < R.n; i++) {
		if (R.o[i].interp)
			continue;
		for (k = 0; k < R.o[i].info.nneeded; k++)
			if (find(&R, R.o[i].info.needed[k], i) < 0)
				goto out;
	}
	rc = 0;
out:
	for (i = 0; i < R.n; i++) {
		free(R.o[i].host);
		free(R.o[i].guest);
		free(R.o[i].horigin);
		free(R.o[i].gorigin);
		if (i > 0)
			elfdeps_info_free(&R.o[i].info);
		for (k = 0; k < R.o[i].nnames; k++)
			free(R.o[i].names[k]);
		free(R.o[i].names);
	}
	free(R.o);
	free(real);
	free(g);
	return rc;
}

/* Free a list's entries. */
void
elfdeps_list_free(struct elfdeps_list *l)
{
	size_t	i;

	for (i = 0; i < l->n; i++) {
		free(l->v[i].host);
		free(l->v[i].guest);
		free(l->v[i].target);
	}
	free(l->v);
	memset(l, 0, sizeof *l);
}
