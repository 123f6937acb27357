/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test-elfdeps.c - unit tests of uml/guest/elfdeps.c, under ASan/UBSan:
 * the ELF headers of this host's /bin/ls (its interpreter, libc.so.6
 * among its needs), a 32-bit, a foreign and a non-ELF file refused or
 * passed as data with a clear message, damaged and oversized headers
 * built here, this host's /etc/ld.so.cache and caches built here, the
 * search-path expansion, and whole closures: /bin/ls's, a library found
 * through $ORIGIN, through a cache outside the default directories, and
 * one that is missing.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "guest/elfdeps.h"
#include "util.h"

/* A scratch directory for the tests that make files. */
static char	tmpdir[] = "/tmp/umkit-test-elfdeps.XXXXXX";
/* Strings made by str(), freed at the end (LeakSanitizer watches). */
static char	*made[256];
static int	 nmade;

/* A formatted string that lives until teardown. */
static const char * __attribute__((format(printf, 1, 2)))
str(const char *fmt, ...)
{
	va_list	ap;
	char	*s;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	assert_true(nmade < (int)(sizeof made / sizeof *made));
	return made[nmade++] = s;
}

/* Read a whole (small) file into memory; NULL if it cannot be read. */
static uint8_t *
slurp(const char *path, size_t *len)
{
	struct stat	 st;
	uint8_t		*buf;
	int		 fd;

	if ((fd = open(path, O_RDONLY)) < 0)
		return NULL;
	if (fstat(fd, &st) < 0 || st.st_size > (64 << 20)) {
		close(fd);
		return NULL;
	}
	buf = xmalloc((size_t)st.st_size + 1);
	*len = (size_t)read(fd, buf, (size_t)st.st_size);
	close(fd);
	return buf;
}

/* Copy the file from to to. */
static void
copy_file(const char *from, const char *to)
{
	uint8_t	*buf;
	size_t	 len = 0;
	int	 fd;

	assert_non_null(buf = slurp(from, &len));
	assert_true((fd = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0755)) >= 0);
	assert_int_equal(write(fd, buf, len), (ssize_t)len);
	close(fd);
	free(buf);
}

/* The headers of the file at path: elfdeps_read_fd's result. */
static int
read_path(const char *path, struct elfdeps_info *info, char *err, size_t n)
{
	int	fd, rc;

	assert_true((fd = open(path, O_RDONLY)) >= 0);
	rc = elfdeps_read_fd(fd, info, err, n);
	close(fd);
	return rc;
}

/* /bin/ls: the interpreter and libc.so.6 among its needs. */
static void
test_ls(void **st)
{
	struct elfdeps_info	info;
	char			err[256];
	int			i, libc = 0;

	assert_int_equal(read_path("/bin/ls", &info, err, sizeof err), 1);
	assert_int_equal(info.type, ET_DYN);
	assert_string_equal(info.interp, "/lib64/ld-linux-x86-64.so.2");
	for (i = 0; i < info.nneeded; i++)
		libc |= strcmp(info.needed[i], "libc.so.6") == 0;
	assert_true(libc);
	assert_true(elfdeps_dynamic(&info));
	elfdeps_info_free(&info);
	(void)st;
}

/* ld.so itself: a shared object with a soname and no needs. */
static void
test_interp(void **st)
{
	struct elfdeps_info	info;
	char			err[256];

	assert_int_equal(read_path("/lib64/ld-linux-x86-64.so.2", &info, err,
	    sizeof err), 1);
	assert_null(info.interp);
	assert_string_equal(info.soname, "ld-linux-x86-64.so.2");
	assert_int_equal(info.nneeded, 0);
	assert_false(elfdeps_dynamic(&info));
	elfdeps_info_free(&info);
	(void)st;
}

/* /bin/ls with byte off set to v, read from memory. */
static int
ls_patched(size_t off, uint8_t v, struct elfdeps_info *info, char *err,
    size_t n)
{
	uint8_t	*buf;
	size_t	 len = 0;
	int	 rc;

	assert_non_null(buf = slurp("/bin/ls", &len));
	assert_true(len > off);
	buf[off] = v;
	rc = elfdeps_read_mem(buf, len, info, err, n);
	free(buf);
	return rc;
}

/* 32-bit, big-endian and foreign programs: refused, saying why. */
static void
test_refused(void **st)
{
	struct elfdeps_info	info;
	char			err[256];

	assert_int_equal(ls_patched(EI_CLASS, ELFCLASS32, &info, err,
	    sizeof err), -1);
	assert_string_equal(err, "is a 32-bit ELF file; the guest runs x86-64 "
	    "programs (ELF64)");
	assert_int_equal(ls_patched(EI_DATA, ELFDATA2MSB, &info, err,
	    sizeof err), -1);
	assert_non_null(strstr(err, "big-endian"));
	assert_int_equal(ls_patched(offsetof(Elf64_Ehdr, e_machine), EM_AARCH64,
	    &info, err, sizeof err), -1);
	assert_non_null(strstr(err, "another machine (ELF e_machine 183)"));
	/* A real one where the host has them (gcc-multilib, libc6-i386). */
	if (access("/lib32/libc.so.6", R_OK) == 0) {
		assert_int_equal(read_path("/lib32/libc.so.6", &info, err,
		    sizeof err), -1);
		assert_non_null(strstr(err, "32-bit"));
	}
	(void)st;
}

/* Not ELF, object files: data (0); a cut header: truncated (-1). */
static void
test_not_elf(void **st)
{
	struct elfdeps_info	info;
	char			err[256];
	uint8_t			*buf;
	size_t			 len = 0;

	assert_int_equal(read_path("/etc/passwd", &info, err, sizeof err), 0);
	assert_int_equal(elfdeps_read_mem("", 0, &info, err, sizeof err), 0);
	assert_int_equal(elfdeps_read_mem("#!/bin/sh\n", 10, &info, err,
	    sizeof err), 0);
	assert_int_equal(ls_patched(offsetof(Elf64_Ehdr, e_type), ET_REL, &info,
	    err, sizeof err), 0);
	assert_non_null(buf = slurp("/bin/ls", &len));
	assert_int_equal(elfdeps_read_mem(buf, 40, &info, err, sizeof err), -1);
	assert_string_equal(err, "is a truncated ELF file");
	assert_int_equal(elfdeps_read_mem(buf, 4, &info, err, sizeof err), -1);
	/* Program headers past the end. */
	assert_int_equal(elfdeps_read_mem(buf, 100, &info, err, sizeof err),
	    -1);
	assert_string_equal(err, "is a truncated ELF file");
	free(buf);
	(void)st;
}

/* What mkelf puts in a file. */
struct elfspec {
	int		 nneeded;
	const char	*interp;	/* or NULL */
	const char	*runpath;	/* or NULL */
	int		 interp_unterminated;
	int		 strtab_unmapped;	/* DT_STRTAB outside PT_LOAD */
	int		 name_past_strsz;	/* a DT_NEEDED index >= DT_STRSZ */
	uint64_t	 dyn_filesz;		/* 0: the real size */
	int		 phnum;			/* 0: 3 */
};

/*
 * An x86-64 ELF file built in memory: the header, PT_INTERP, PT_LOAD
 * (the whole file at 0x400000), PT_DYNAMIC, the interpreter's name, the
 * string table, the dynamic section.  Allocated, its length in *len.
 */
static uint8_t *
mkelf(const struct elfspec *s, size_t *len)
{
	Elf64_Ehdr	*eh;
	Elf64_Phdr	*ph;
	Elf64_Dyn	*dyn;
	uint8_t		*b;
	size_t		 phoff = sizeof *eh, nph = s->phnum ? (size_t)s->phnum : 3;
	size_t		 ioff, soff, doff, o, ndyn, i, cap;
	char		 name[32];

	cap = 1 << 20;
	b = xcalloc(1, cap);
	eh = (Elf64_Ehdr *)b;
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_DYN;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_phoff = phoff;
	eh->e_ehsize = sizeof *eh;
	eh->e_phentsize = sizeof *ph;
	eh->e_phnum = (Elf64_Half)nph;
	ioff = phoff + nph * sizeof *ph;
	o = ioff;
	if (s->interp != NULL) {
		memcpy(b + o, s->interp, strlen(s->interp) + 1);
		o += strlen(s->interp) + 1;
	}
	soff = o;
	b[o++] = '\0';
	if (s->runpath != NULL) {
		memcpy(b + o, s->runpath, strlen(s->runpath) + 1);
		o += strlen(s->runpath) + 1;
	}
	for (i = 0; i < (size_t)s->nneeded; i++) {
		snprintf(name, sizeof name, "libn%zu.so", i);
		memcpy(b + o, name, strlen(name) + 1);
		o += strlen(name) + 1;
	}
	doff = (o + 7) & ~(size_t)7;
	dyn = (Elf64_Dyn *)(b + doff);
	ndyn = 0;
	dyn[ndyn].d_tag = DT_STRTAB;
	dyn[ndyn++].d_un.d_ptr = s->strtab_unmapped ? 0x100 : 0x400000 + soff;
	dyn[ndyn].d_tag = DT_STRSZ;
	dyn[ndyn++].d_un.d_val = doff - soff;
	if (s->runpath != NULL) {
		dyn[ndyn].d_tag = DT_RUNPATH;
		dyn[ndyn++].d_un.d_val = 1;
	}
	o = 1 + (s->runpath != NULL ? strlen(s->runpath) + 1 : 0);
	for (i = 0; i < (size_t)s->nneeded; i++) {
		dyn[ndyn].d_tag = DT_NEEDED;
		dyn[ndyn++].d_un.d_val = s->name_past_strsz ? doff - soff : o;
		snprintf(name, sizeof name, "libn%zu.so", i);
		o += strlen(name) + 1;
	}
	dyn[ndyn++].d_tag = DT_NULL;
	*len = doff + ndyn * sizeof *dyn;
	assert_true(*len < cap);
	ph = (Elf64_Phdr *)(b + phoff);
	for (i = 0; i < nph; i++)
		ph[i].p_type = PT_NULL;
	ph[0].p_type = s->interp != NULL ? PT_INTERP : PT_NULL;
	ph[0].p_offset = ioff;
	ph[0].p_filesz = s->interp != NULL ? strlen(s->interp) +
	    !s->interp_unterminated : 0;
	ph[1].p_type = PT_LOAD;
	ph[1].p_vaddr = 0x400000;
	ph[1].p_filesz = *len;
	ph[2].p_type = PT_DYNAMIC;
	ph[2].p_offset = doff;
	ph[2].p_filesz = s->dyn_filesz ? s->dyn_filesz : ndyn * sizeof *dyn;
	return b;
}

/* mkelf's file read back: elfdeps_read_mem's result. */
static int
read_built(const struct elfspec *s, struct elfdeps_info *info, char *err,
    size_t n)
{
	uint8_t	*b;
	size_t	 len;
	int	 rc;

	b = mkelf(s, &len);
	rc = elfdeps_read_mem(b, len, info, err, n);
	free(b);
	return rc;
}

/* A built file: its names in order; each damage refused by name. */
static void
test_built(void **st)
{
	struct elfdeps_info	info;
	struct elfspec		s;
	char			err[256];

	memset(&s, 0, sizeof s);
	s.nneeded = 3;
	s.interp = "/lib64/ld-linux-x86-64.so.2";
	s.runpath = "$ORIGIN/../lib";
	assert_int_equal(read_built(&s, &info, err, sizeof err), 1);
	assert_int_equal(info.nneeded, 3);
	assert_string_equal(info.needed[0], "libn0.so");
	assert_string_equal(info.needed[2], "libn2.so");
	assert_string_equal(info.runpath, "$ORIGIN/../lib");
	assert_null(info.rpath);
	assert_string_equal(info.interp, "/lib64/ld-linux-x86-64.so.2");
	elfdeps_info_free(&info);

	s.nneeded = ELFDEPS_MAX_NEEDED;
	assert_int_equal(read_built(&s, &info, err, sizeof err), 1);
	elfdeps_info_free(&info);
	s.nneeded = ELFDEPS_MAX_NEEDED + 1;
	assert_int_equal(read_built(&s, &info, err, sizeof err), -1);
	assert_string_equal(err, "needs more than 256 shared libraries");
	assert_null(info.needed);

	s.nneeded = 1;
	s.interp_unterminated = 1;
	assert_int_equal(read_built(&s, &info, err, sizeof err), -1);
	assert_non_null(strstr(err, "interpreter name"));
	s.interp_unterminated = 0;
	s.strtab_unmapped = 1;
	assert_int_equal(read_built(&s, &info, err, sizeof err), -1);
	assert_non_null(strstr(err, "no string table"));
	s.strtab_unmapped = 0;
	s.name_past_strsz = 1;
	assert_int_equal(read_built(&s, &info, err, sizeof err), -1);
	assert_non_null(strstr(err, "outside its string table"));
	s.name_past_strsz = 0;
	s.dyn_filesz = ELFDEPS_MAX_DYN + 16;
	assert_int_equal(read_built(&s, &info, err, sizeof err), -1);
	assert_non_null(strstr(err, "dynamic section over"));
	s.dyn_filesz = 4096;		/* past the end of the file */
	assert_int_equal(read_built(&s, &info, err, sizeof err), -1);
	assert_non_null(strstr(err, "truncated"));
	s.dyn_filesz = 0;
	s.phnum = ELFDEPS_MAX_PHDRS + 1;
	assert_int_equal(read_built(&s, &info, err, sizeof err), -1);
	assert_non_null(strstr(err, "more than 512 program headers"));
	(void)st;
}

/* One entry of mkcache. */
struct centry {
	uint32_t	 flags;
	const char	*key;
	const char	*path;
	uint64_t	 hwcap;
};

/* Put a little-endian number of n bytes at p. */
static void
put_le(uint8_t *p, uint64_t v, int n)
{
	int	i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/*
 * An ld.so.cache in ldconfig's format (old_n: that many entries of the
 * old format before it, 0 for none); order is the byte order flag.
 */
static uint8_t *
mkcache(const struct centry *e, int n, int old_n, int order, size_t *len)
{
	uint8_t	*b = xcalloc(1, 65536), *h;
	size_t	 off = 0, s;
	int	 i;

	if (old_n > 0) {
		memcpy(b, "ld.so-1.7.0", 11);
		put_le(b + 12, (uint64_t)old_n, 4);
		off = (16 + (size_t)old_n * 12 + 7) & ~(size_t)7;
	}
	h = b + off;
	memcpy(h, "glibc-ld.so.cache1.1", 20);
	put_le(h + 20, (uint64_t)n, 4);
	h[28] = (uint8_t)order;
	s = 48 + (size_t)n * 24;
	for (i = 0; i < n; i++) {
		put_le(h + 48 + i * 24, e[i].flags, 4);
		put_le(h + 48 + i * 24 + 4, s, 4);
		memcpy(h + s, e[i].key, strlen(e[i].key) + 1);
		s += strlen(e[i].key) + 1;
		put_le(h + 48 + i * 24 + 8, s, 4);
		memcpy(h + s, e[i].path, strlen(e[i].path) + 1);
		s += strlen(e[i].path) + 1;
		put_le(h + 48 + i * 24 + 16, e[i].hwcap, 8);
	}
	put_le(h + 24, s - 48 - (size_t)n * 24, 4);
	*len = off + s;
	return b;
}

/* Caches built here: x86-64 entries only, the baseline first. */
static void
test_cache_built(void **st)
{
	static const struct centry e[] = {
		{ 0x0303, "libfoo.so.1", "/opt/v3/libfoo.so.1",
		    (1ULL << 62) | 1 },
		{ 0x0003, "libfoo.so.1", "/lib32/libfoo.so.1", 0 },
		{ 0x0303, "libfoo.so.1", "/opt/lib/libfoo.so.1", 0 },
		{ 0x0303, "libbar.so.2", "relative/libbar.so.2", 0 },
		{ 0x0303, "libbaz.so", "/usr/lib/libbaz.so", 0 },
	};
	struct elfdeps_cache	 c;
	const char		*p[4];
	uint8_t			*b;
	char			 err[256];
	size_t			 len;

	b = mkcache(e, 5, 0, 2, &len);
	assert_int_equal(elfdeps_cache_parse(&c, b, len, err, sizeof err), 0);
	assert_int_equal(c.nlibs, 5);
	assert_int_equal(elfdeps_cache_find(&c, "libfoo.so.1", p, 4), 2);
	assert_string_equal(p[0], "/opt/lib/libfoo.so.1");
	assert_string_equal(p[1], "/opt/v3/libfoo.so.1");
	assert_int_equal(elfdeps_cache_find(&c, "libfoo.so.1", p, 1), 1);
	assert_int_equal(elfdeps_cache_find(&c, "libbar.so.2", p, 4), 0);
	assert_int_equal(elfdeps_cache_find(&c, "libnone.so", p, 4), 0);
	/* Cut inside the strings: those entries are passed over. */
	assert_int_equal(elfdeps_cache_parse(&c, b, len - 3, err, sizeof err),
	    0);
	assert_int_equal(elfdeps_cache_find(&c, "libbaz.so", p, 4), 0);
	assert_int_equal(elfdeps_cache_find(&c, "libfoo.so.1", p, 4), 2);
	/* Cut inside the entries: refused. */
	assert_int_equal(elfdeps_cache_parse(&c, b, 48 + 4 * 24, err,
	    sizeof err), -1);
	assert_string_equal(err, "its 5 entries run past the end");
	assert_int_equal(elfdeps_cache_parse(&c, b, 30, err, sizeof err), -1);
	assert_string_equal(err, "is not a glibc-ld.so.cache1.1 file");
	free(b);

	b = mkcache(e, 5, 0, 3, &len);
	assert_int_equal(elfdeps_cache_parse(&c, b, len, err, sizeof err), -1);
	assert_non_null(strstr(err, "little-endian"));
	free(b);

	b = mkcache(e, 5, 3, 0, &len);
	assert_int_equal(elfdeps_cache_parse(&c, b, len, err, sizeof err), 0);
	assert_int_equal(elfdeps_cache_find(&c, "libbaz.so", p, 4), 1);
	assert_string_equal(p[0], "/usr/lib/libbaz.so");
	put_le(b + 12, 100000, 4);	/* more old entries than bytes */
	assert_int_equal(elfdeps_cache_parse(&c, b, len, err, sizeof err), -1);
	assert_non_null(strstr(err, "old-format"));
	free(b);
	(void)st;
}

/* This host's cache: libc.so.6 is in it, at an absolute path. */
static void
test_cache_host(void **st)
{
	struct elfdeps_cache	 c;
	const char		*p[4];
	char			 err[256];
	size_t			 n;

	if (access("/etc/ld.so.cache", R_OK) != 0)
		skip();
	assert_int_equal(elfdeps_cache_load(&c, "/etc/ld.so.cache", err,
	    sizeof err), 0);
	assert_true(c.nlibs > 0);
	n = elfdeps_cache_find(&c, "libc.so.6", p, 4);
	assert_true(n >= 1);
	assert_true(p[0][0] == '/');
	assert_string_equal(strrchr(p[0], '/'), "/libc.so.6");
	elfdeps_cache_free(&c);
	assert_int_equal(elfdeps_cache_load(&c, "/nonexistent/ld.so.cache", err,
	    sizeof err), 0);
	assert_int_equal(c.nlibs, 0);
	assert_int_equal(elfdeps_cache_load(&c, "/etc/passwd", err,
	    sizeof err), -1);
	assert_non_null(strstr(err, "not a glibc-ld.so.cache1.1 file"));
	(void)st;
}

/* $ORIGIN and friends; lexical normalisation. */
static void
test_expand(void **st)
{
	char	*s, big[ELFDEPS_MAX_STR + 8];

#define EXPAND(in, origin, want) do {					\
	s = elfdeps_expand(in, strlen(in), origin);			\
	assert_non_null(s);						\
	assert_string_equal(s, want);					\
	free(s);							\
} while (0)
	EXPAND("$ORIGIN/../lib", "/a/b", "/a/b/../lib");
	EXPAND("${ORIGIN}/x", "/o", "/o/x");
	EXPAND("$ORIGINX/y", "/o", "$ORIGINX/y");
	EXPAND("/usr/$LIB", "/o", "/usr/lib/x86_64-linux-gnu");
	EXPAND("/p/$PLATFORM/$", "/o", "/p/x86_64/$");
	EXPAND("${ORIGIN", "/o", "${ORIGIN");
	EXPAND("", "/o", "");
#undef EXPAND
	s = elfdeps_expand("$ORIGIN:/b", 7, "/o");
	assert_string_equal(s, "/o");
	free(s);
	memset(big, 'x', ELFDEPS_MAX_STR - 2);
	big[ELFDEPS_MAX_STR - 2] = '\0';
	assert_null(elfdeps_expand("$ORIGIN/xy", 10, big));

#define NORMAL(in, want) do {						\
	s = elfdeps_normal(in);						\
	assert_non_null(s);						\
	assert_string_equal(s, want);					\
	free(s);							\
} while (0)
	NORMAL("/a/b/../lib", "/a/lib");
	NORMAL("/../a//./b/", "/a/b");
	NORMAL("/", "/");
	NORMAL("/..", "/");
	NORMAL("/a/..", "/");
#undef NORMAL
	assert_null(elfdeps_normal("rel/x"));
	assert_null(elfdeps_normal(""));
	(void)st;
}

/* The list's entry for guest path g, or NULL. */
static const struct elfdeps_file *
entry(const struct elfdeps_list *l, const char *g)
{
	size_t	i;

	for (i = 0; i < l->n; i++)
		if (strcmp(l->v[i].guest, g) == 0)
			return &l->v[i];
	return NULL;
}

/* Each guest path once; each symlink followed by what it names. */
static void
check_list(const struct elfdeps_list *l)
{
	char	*d, *g;
	size_t	 i, j;

	for (i = 0; i < l->n; i++) {
		for (j = i + 1; j < l->n; j++)
			assert_string_not_equal(l->v[i].guest, l->v[j].guest);
		if (l->v[i].target == NULL)
			continue;
		d = xstrdup(l->v[i].guest);
		*strrchr(d, '/') = '\0';
		g = l->v[i].target[0] == '/' ? elfdeps_normal(l->v[i].target) :
		    elfdeps_normal(str("%s/%s", d, l->v[i].target));
		assert_non_null(g);
		assert_non_null(entry(l, g));
		free(d);
		free(g);
	}
}

/* /bin/ls as a program: the interpreter and libc, as ld.so finds them. */
static void
test_resolve_ls(void **st)
{
	struct elfdeps_cache	 c;
	struct elfdeps_info	 info;
	struct elfdeps_list	 l;
	const struct elfdeps_file *f;
	const char		*p[4];
	char			 err[512];

	elfdeps_cache_load(&c, "/etc/ld.so.cache", err, sizeof err);
	assert_int_equal(read_path("/bin/ls", &info, err, sizeof err), 1);
	memset(&l, 0, sizeof l);
	assert_int_equal(elfdeps_resolve(&c, "/bin/ls", "/bin/ls-host", &info,
	    &l, err, sizeof err), 0);
	check_list(&l);
	assert_non_null(f = entry(&l, "/lib64/ld-linux-x86-64.so.2"));
	assert_string_equal(f->host, "/lib64/ld-linux-x86-64.so.2");
	if (elfdeps_cache_find(&c, "libc.so.6", p, 4) > 0)
		assert_non_null(entry(&l, p[0]));
	else
		assert_non_null(entry(&l, "/lib/x86_64-linux-gnu/libc.so.6"));
	assert_null(entry(&l, "/bin/ls-host"));
	assert_int_equal(l.cache_needed, 0);
	elfdeps_list_free(&l);
	elfdeps_info_free(&info);
	elfdeps_cache_free(&c);
	(void)st;
}

/*
 * A real shared object of this host to copy: libm's file (its soname is
 * libm.so.6, so it does not stand in for the libc.so.6 it needs).
 */
static char *
some_library(void)
{
	char	*p = realpath("/lib/x86_64-linux-gnu/libm.so.6", NULL);

	assert_non_null(p);
	return p;
}

/* info for a program that needs name (and libc), with runpath. */
static void
fake_program(struct elfdeps_info *info, const char *name, const char *runpath)
{
	memset(info, 0, sizeof *info);
	info->type = ET_DYN;
	info->interp = xstrdup("/lib64/ld-linux-x86-64.so.2");
	info->runpath = runpath != NULL ? xstrdup(runpath) : NULL;
	info->needed = xcalloc(2, sizeof *info->needed);
	info->needed[info->nneeded++] = xstrdup(name);
	info->needed[info->nneeded++] = xstrdup("libc.so.6");
}

/* $ORIGIN: the library goes beside the program's guest path. */
static void
test_resolve_origin(void **st)
{
	struct elfdeps_cache	 c;
	struct elfdeps_info	 info;
	struct elfdeps_list	 l;
	const struct elfdeps_file *f;
	const char		*prog, *so;
	char			*lib = some_library(), err[512];

	elfdeps_cache_load(&c, "/etc/ld.so.cache", err, sizeof err);
	prog = str("%s/o/bin/prog", tmpdir);
	so = str("%s/o/lib/libumkit-o.so.1.0", tmpdir);
	assert_int_equal(system(str("mkdir -p %s/o/bin %s/o/lib", tmpdir,
	    tmpdir)), 0);
	copy_file("/bin/true", prog);
	copy_file(lib, so);
	assert_int_equal(symlink("libumkit-o.so.1.0", str("%s/o/lib/"
	    "libumkit-o.so.1", tmpdir)), 0);
	fake_program(&info, "libumkit-o.so.1", "/nonexistent:$ORIGIN/../lib");
	memset(&l, 0, sizeof l);
	assert_int_equal(elfdeps_resolve(&c, prog, "/opt/p/bin/prog", &info, &l,
	    err, sizeof err), 0);
	check_list(&l);
	assert_non_null(f = entry(&l, "/opt/p/lib/libumkit-o.so.1"));
	assert_string_equal(f->target, "libumkit-o.so.1.0");
	assert_non_null(f = entry(&l, "/opt/p/lib/libumkit-o.so.1.0"));
	assert_null(f->target);
	assert_string_equal(f->host, str("%s/o/bin/../lib/"
	    "libumkit-o.so.1.0", tmpdir));
	elfdeps_list_free(&l);

	/* Not there: named, with the file that needs it. */
	info.needed[0][3] = 'X';
	assert_int_equal(elfdeps_resolve(&c, prog, "/opt/p/bin/prog", &info, &l,
	    err, sizeof err), -1);
	assert_non_null(strstr(err, str("libXmkit-o.so.1, needed by %s, "
	    "is not found (searched its RUNPATH, ld.so.cache", prog)));
	elfdeps_list_free(&l);
	elfdeps_info_free(&info);
	elfdeps_cache_free(&c);
	free(lib);
	(void)st;
}

/*
 * A library the cache finds outside the default directories: the guest
 * needs the cache too, and gets every variant the cache lists.
 */
static void
test_resolve_cache(void **st)
{
	struct elfdeps_cache	 c;
	struct elfdeps_info	 info;
	struct elfdeps_list	 l;
	struct centry		 e[2];
	const char		*so, *v3;
	char			*lib = some_library(), err[512];
	uint8_t			*b;
	size_t			 len;

	so = str("%s/c/libumkit-c.so.2", tmpdir);
	v3 = str("%s/c/v3/libumkit-c.so.2", tmpdir);
	assert_int_equal(system(str("mkdir -p %s/c/v3", tmpdir)), 0);
	copy_file(lib, so);
	copy_file(lib, v3);
	e[0] = (struct centry){ 0x0303, "libumkit-c.so.2", v3, 1ULL << 62 };
	e[1] = (struct centry){ 0x0303, "libumkit-c.so.2", so, 0 };
	b = mkcache(e, 2, 0, 2, &len);
	assert_int_equal(elfdeps_cache_parse(&c, b, len, err, sizeof err), 0);
	fake_program(&info, "libumkit-c.so.2", NULL);
	memset(&l, 0, sizeof l);
	assert_int_equal(elfdeps_resolve(&c, "/bin/true", "/usr/local/bin/t",
	    &info, &l, err, sizeof err), 0);
	check_list(&l);
	assert_non_null(entry(&l, so));
	assert_non_null(entry(&l, v3));
	assert_int_equal(l.cache_needed, 1);
	/* libc.so.6 is not in this cache: the default directories. */
	assert_non_null(entry(&l, "/lib/x86_64-linux-gnu/libc.so.6"));
	elfdeps_list_free(&l);
	elfdeps_info_free(&info);
	free(b);
	free(lib);
	(void)st;
}

/* Make the scratch directory. */
static int
setup(void **st)
{
	(void)st;
	return mkdtemp(tmpdir) == NULL ? -1 : 0;
}

/* Remove it. */
static int
teardown(void **st)
{
	int	rc = system(str("rm -rf %s", tmpdir));

	while (nmade > 0)
		free(made[--nmade]);
	(void)st;
	return rc == 0 ? 0 : -1;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ls),
		cmocka_unit_test(test_interp),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_not_elf),
		cmocka_unit_test(test_built),
		cmocka_unit_test(test_cache_built),
		cmocka_unit_test(test_cache_host),
		cmocka_unit_test(test_expand),
		cmocka_unit_test(test_resolve_ls),
		cmocka_unit_test(test_resolve_origin),
		cmocka_unit_test(test_resolve_cache),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
