/* SPDX-License-Identifier: GPL-2.0-only */
/* util.c - paths, files and configuration lines for host programs (util.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pwd.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

/* An environment variable that holds an absolute path, or NULL. */
static const char *
env_abs(const char *name)
{
	const char	*v = getenv(name);

	return v != NULL && v[0] == '/' ? v : NULL;
}

/* The user's home: $HOME, else the password file's, else NULL. */
static const char *
home_dir(void)
{
	const char	*h = env_abs("HOME");
	struct passwd	*pw;

	if (h == NULL && (pw = getpwuid(getuid())) != NULL &&
	    pw->pw_dir != NULL && pw->pw_dir[0] == '/')
		h = pw->pw_dir;
	return h;
}

/* $VAR/umkit, else ~/DEFAULT/umkit, else /tmp/umkit-WHAT-UID. */
static char *
xdg_dir(const char *var, const char *dflt, const char *what)
{
	const char	*v = env_abs(var), *h;

	if (v != NULL)
		return xasprintf("%s/umkit", v);
	if ((h = home_dir()) != NULL)
		return xasprintf("%s/%s/umkit", h, dflt);
	return xasprintf("/tmp/umkit-%s-%d", what, (int)getuid());
}

/* $XDG_RUNTIME_DIR if it is a directory of this user's, mode 0700. */
static const char *
runtime_dir(void)
{
	const char	*r = env_abs("XDG_RUNTIME_DIR");
	struct stat	 sb;

	if (r == NULL || stat(r, &sb) < 0 || !S_ISDIR(sb.st_mode) ||
	    sb.st_uid != getuid() || (sb.st_mode & 077) != 0 ||
	    access(r, W_OK | X_OK) < 0)
		return NULL;
	return r;
}

/* Whether dir/rel is a readable file (dir "" is the root). */
static int
has_file(const char *dir, const char *rel)
{
	char	*m = xasprintf("%s/%s", dir, rel);
	int	 yes = access(m, R_OK) == 0;

	free(m);
	return yes;
}

/* Fill a layout; see util.h. */
void
kit_layout_init(struct kit_layout *L, const char *exe)
{
	const char	*t = getenv("UMKIT_TOP"), *c = getenv("UMKIT_CACHE"), *r;
	char		*d, *p;
	int		 i;

	memset(L, 0, sizeof *L);
	L->cache = c != NULL && *c != '\0' ? xstrdup(c) :
	    xdg_dir("XDG_CACHE_HOME", ".cache", "cache");
	L->state = xdg_dir("XDG_STATE_HOME", ".local/state", "state");
	if (t != NULL && *t != '\0') {
		if ((L->top = realpath(t, NULL)) == NULL)
			fatal("UMKIT_TOP=%s", t);
	} else {
		/* PREFIX/bin/umkit, else TOP/build/bin/umkit (or build/tests/). */
		d = xstrdup(exe);
		if ((p = strrchr(d, '/')) != NULL) {
			*p = '\0';
			if ((p = strrchr(d, '/')) != NULL && strcmp(p + 1, "bin") == 0) {
				*p = '\0';
				L->installed = has_file(d, "lib/umkit/" KIT_MARKER);
				if (!L->installed)
					*p = '/';
			}
		}
		for (i = 0; !L->installed && i < 2; i++) {
			if ((p = strrchr(d, '/')) == NULL)
				fatalx("cannot find the kit's directory from %s", exe);
			*p = '\0';
		}
		/*
		 * A copy of the binary anywhere else must not take the
		 * directory two up for a checkout: /tmp/x/umkit would take
		 * / and clean "stale guests" out of /run.
		 */
		if (!L->installed && !has_file(d, CHECKOUT_MARKER))
			fatalx("cannot find the kit from %s: neither PREFIX/bin/umkit "
			    "of an install (PREFIX/lib/umkit/%s) nor TOP/build/bin/umkit "
			    "of a checkout (TOP/%s); run the umkit make or make install "
			    "put there, or set UMKIT_TOP to the checkout", exe,
			    KIT_MARKER, CHECKOUT_MARKER);
		L->top = d;
	}
	if (!L->installed) {
		L->run = xasprintf("%s/run", L->top);
		L->logs = xasprintf("%s/run/log", L->top);
		L->patches = xasprintf("%s/patches", L->top);
	} else {
		L->lib = xasprintf("%s/lib/umkit", L->top);
		L->share = xasprintf("%s/share/umkit", L->top);
		L->patches = xasprintf("%s/patches", L->share);
		d = xdg_dir("XDG_DATA_HOME", ".local/share", "data");
		L->own_patches = xasprintf("%s/patches", d);
		free(d);
		L->run = (r = runtime_dir()) != NULL ? xasprintf("%s/umkit", r) :
		    xasprintf("%s/run", L->state);
		L->logs = xasprintf("%s/log", L->state);
	}
	/* $UMKIT_RUN: the run directories elsewhere (a checkout's logs too). */
	if ((r = getenv("UMKIT_RUN")) != NULL && *r != '\0') {
		if (*r != '/')
			fatalx("UMKIT_RUN=%s: not an absolute path", r);
		free(L->run);
		L->run = xstrdup(r);
		if (!L->installed) {
			free(L->logs);
			L->logs = xasprintf("%s/log", r);
		}
	}
}

/* Free a layout's strings. */
void
kit_layout_free(struct kit_layout *L)
{
	free(L->top);
	free(L->lib);
	free(L->share);
	free(L->patches);
	free(L->own_patches);
	free(L->cache);
	free(L->state);
	free(L->run);
	free(L->logs);
	memset(L, 0, sizeof *L);
}

/* The layout of the running program, from /proc/self/exe on first use. */
const struct kit_layout *
kit(void)
{
	static struct kit_layout	L;
	static int			done;
	char				exe[PATH_MAX];
	ssize_t				n;

	if (done)
		return &L;
	n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n < 0)
		fatal("/proc/self/exe");
	exe[n] = '\0';
	kit_layout_init(&L, exe);
	done = 1;
	return &L;
}

/* If rel is pre or starts with pre/, base + the rest of rel; else NULL. */
static char *
swap_prefix(const char *rel, const char *pre, const char *base, const char *sub)
{
	size_t	n = strlen(pre);

	if (strncmp(rel, pre, n) != 0 || (rel[n] != '\0' && rel[n] != '/'))
		return NULL;
	return xasprintf("%s%s%s", base, sub, rel + n);
}

/* Map a checkout-relative path into a layout; see util.h. */
char *
kit_map(const struct kit_layout *L, const char *rel)
{
	/* First match wins: build/k/VARIANT is handled before the table. */
	const struct {
		const char	*pre;
		const char	*base;
		const char	*sub;
	} map[] = {
		{ "run/log",		L->logs,	"" },
		{ "run",		L->run,		"" },
		{ "build/bin",		L->lib,		"" },
		{ "build/rootfs",	L->lib,		"/rootfs" },
		{ "build",		L->cache,	"/build" },
		{ "uml",		L->lib,		"" },
		{ "patches",		L->patches,	"" },
		{ "labs",		L->share,	"/labs" },
	};
	char	 v[256], *p;
	size_t	 i, n;

	if (!L->installed) {
		/* run/ may be elsewhere ($UMKIT_RUN); the rest is top/rel. */
		for (i = 0; i < 2; i++)
			if ((p = swap_prefix(rel, map[i].pre, map[i].base, map[i].sub)) != NULL)
				return p;
		return xasprintf("%s/%s", L->top, rel);
	}
	/* build/k/VARIANT/...: the installed kernel of a shipped variant. */
	if (strncmp(rel, "build/k/", 8) == 0) {
		n = strcspn(rel + 8, "/");
		if (n > 0 && n < sizeof v) {
			snprintf(v, sizeof v, "%.*s", (int)n, rel + 8);
			if (kit_shipped(L, v))
				return xasprintf("%s/k/%s", L->lib, rel + 8);
		}
	}
	for (i = 0; i < sizeof map / sizeof map[0]; i++)
		if ((p = swap_prefix(rel, map[i].pre, map[i].base, map[i].sub)) != NULL)
			return p;
	fatalx("internal error: %s has no place in an installed kit", rel);
}

/* Whether the install has variant's kernel (PREFIX/lib/umkit/k/VARIANT). */
int
kit_shipped(const struct kit_layout *L, const char *variant)
{
	char	*k;
	int	 yes;

	if (!L->installed || strchr(variant, '/') != NULL || variant[0] == '.')
		return 0;
	k = xasprintf("%s/k/%s/linux", L->lib, variant);
	yes = access(k, X_OK) == 0;
	free(k);
	return yes;
}

/*
 * The checkout's top directory; in an installed kit, the per-user cache
 * that stands in for it (top_dir()/build is where builds write).
 */
const char *
top_dir(void)
{
	return kit()->installed ? kit()->cache : kit()->top;
}

/* A kit file by its checkout-relative name (kit_map). */
char *
top_path(const char *rel)
{
	return kit_map(kit(), rel);
}

/* The launcher of a kit, installed or in a checkout. */
char *
kit_umkit(const struct kit_layout *L)
{
	return L->installed ? xasprintf("%s/bin/umkit", L->top) :
	    kit_map(L, "build/bin/umkit");
}

/* The launcher of the running kit. */
char *
umkit_exe(void)
{
	return kit_umkit(kit());
}

/* mkdir -p path, each new directory with mode; 0 or -1. */
int
mkdir_p(const char *path, mode_t mode)
{
	char		*d = xstrdup(path), *p;
	struct stat	 sb;
	int		 r = 0;

	for (p = d + 1; r == 0; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		if (p[-1] != '/') {
			char	c = *p;

			*p = '\0';
			if (mkdir(d, mode) < 0 && errno != EEXIST)
				r = -1;
			*p = c;
		}
		if (*p == '\0')
			break;
	}
	/*
	 * The directory itself must be ours (or root's): one somebody else
	 * made first (a guessed /tmp name) or a link to one is refused.
	 */
	if (r == 0 && lstat(path, &sb) < 0)
		r = -1;
	else if (r == 0 && S_ISLNK(sb.st_mode) && sb.st_uid != geteuid() &&
	    sb.st_uid != 0)
		r = -1, errno = EPERM;
	else if (r == 0 && stat(path, &sb) < 0)
		r = -1;
	else if (r == 0 && !S_ISDIR(sb.st_mode))
		r = -1, errno = ENOTDIR;
	else if (r == 0 && sb.st_uid != geteuid() && sb.st_uid != 0)
		r = -1, errno = EPERM;
	free(d);
	return r;
}

/* Where variant's patches are: the kit's, or (installed) the user's own. */
char *
variant_dir(const char *variant)
{
	const struct kit_layout	*L = kit();
	const char		*env = getenv("UMKIT_PATCHES");
	char			*d, *s;
	int			 i;

	if (variant[0] == '\0' || variant[0] == '.' || strchr(variant, '/') != NULL)
		return NULL;
	for (i = 0; i < 2; i++) {
		if (i == 0)
			d = xasprintf("%s/%s", env != NULL && *env != '\0' ?
			    env : L->patches, variant);
		else if (L->own_patches != NULL && (env == NULL || *env == '\0'))
			d = xasprintf("%s/%s", L->own_patches, variant);
		else
			break;
		s = xasprintf("%s/series", d);
		if (access(s, R_OK) == 0) {
			free(s);
			return d;
		}
		free(s);
		free(d);
	}
	return NULL;
}

/* Start a file made whole or not at all (util.h). */
FILE *
afile_open(struct afile *af, const char *path, mode_t mode)
{
	int	fd, e;

	af->f = NULL;
	af->path = xstrdup(path);
	af->tmp = xasprintf("%s.XXXXXX", path);
	if ((fd = mkostemp(af->tmp, O_CLOEXEC)) < 0 || fchmod(fd, mode) < 0 ||
	    (af->f = fdopen(fd, "w")) == NULL) {
		e = errno;
		if (fd >= 0) {
			close(fd);
			unlink(af->tmp);
		}
		free(af->tmp);
		free(af->path);
		af->tmp = af->path = NULL;
		errno = e;
		return NULL;
	}
	return af->f;
}

/* Close the temporary and rename it over the file. */
int
afile_commit(struct afile *af)
{
	int	bad, e;

	bad = ferror(af->f);
	bad |= fclose(af->f) != 0;
	af->f = NULL;
	if (bad || rename(af->tmp, af->path) < 0) {
		e = errno != 0 ? errno : EIO;
		afile_abort(af);
		errno = e;
		return -1;
	}
	free(af->tmp);
	free(af->path);
	af->tmp = af->path = NULL;
	return 0;
}

/* Remove the temporary; the file stays as it was. */
void
afile_abort(struct afile *af)
{
	int	e = errno;

	if (af->f != NULL)
		fclose(af->f);
	if (af->tmp != NULL)
		unlink(af->tmp);
	free(af->tmp);
	free(af->path);
	af->f = NULL;
	af->tmp = af->path = NULL;
	errno = e;
}

/* Write buf as path, whole or not at all. */
int
write_file_atomic(const char *path, const void *buf, size_t len, mode_t mode)
{
	struct afile	af;

	if (afile_open(&af, path, mode) == NULL)
		return -1;
	if (len > 0 && fwrite(buf, 1, len, af.f) != len) {
		afile_abort(&af);
		return -1;
	}
	return afile_commit(&af);
}

/*
 * The rest of fd, NUL-terminated, its length in *len (unless NULL); more
 * than max bytes is an error (EFBIG).  NULL with errno on an error.
 */
char *
read_fd_all(int fd, size_t max, size_t *len)
{
	char	*buf;
	size_t	 n = 0, size = 4096;
	ssize_t	 r;

	buf = xmalloc(size);
	for (;;) {
		if (n + 1 >= size)
			buf = xrealloc(buf, size *= 2);
		r = read(fd, buf + n, size - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		if ((n += r) > max) {
			free(buf);
			errno = EFBIG;
			return NULL;
		}
	}
	if (r < 0) {
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	if (len != NULL)
		*len = n;
	return buf;
}

/* A whole file as a string (allocated), or NULL. */
char *
read_text(const char *path)
{
	char	*buf;
	int	 fd, e;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return NULL;
	buf = read_fd_all(fd, SIZE_MAX, NULL);
	e = errno;
	close(fd);
	errno = e;
	return buf;
}

/* nftw callback removing one entry. */
static int
rm_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st; (void)ftw;
	if (type == FTW_DP)
		return rmdir(path) < 0 && errno != ENOENT ? -1 : 0;
	return unlink(path) < 0 && errno != ENOENT ? -1 : 0;
}

/* Remove a directory tree without following symlinks or crossing mounts. */
int
rm_tree(const char *path)
{
	if (access(path, F_OK) < 0)
		return errno == ENOENT ? 0 : -1;
	return nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

/* "512M", "1G", "256" (megabytes) -> megabytes. */
long
parse_mem_mb(const char *s)
{
	char	*end;
	long	 v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || end == s || v <= 0)
		return -1;
	if (*end == 'G' || *end == 'g')
		v *= 1024, end++;
	else if (*end == 'M' || *end == 'm')
		end++;
	if (*end != '\0' || v > 65536)
		return -1;
	return v;
}

/* Read path's items, one a line, '#' comments and blanks dropped. */
int
conf_lines(const char *path, int (*fn)(char *, unsigned, void *), void *arg)
{
	FILE		*f;
	char		*line = NULL, *p, *e;
	size_t		 cap = 0;
	unsigned	 lineno = 0;
	int		 r = 0;

	if ((f = fopen(path, "r")) == NULL)
		return -errno;
	while (r == 0 && getline(&line, &cap, f) != -1) {
		lineno++;
		if ((p = strchr(line, '#')) != NULL)
			*p = '\0';
		for (p = line; *p == ' ' || *p == '\t'; p++)
			;
		for (e = p + strlen(p); e > p && strchr(" \t\r\n", e[-1]); e--)
			;
		*e = '\0';
		if (*p != '\0')
			r = fn(p, lineno, arg);
	}
	if (r == 0 && ferror(f))
		r = -EIO;
	free(line);
	fclose(f);
	return r;
}

/* Text escaped for an XML attribute or element (util.h). */
char *
xml_escape(const char *s)
{
	size_t	n = 0, i;
	char	*o, *p;

	for (i = 0; s[i] != '\0'; i++)
		n += strchr("<>&\"'", s[i]) ? 6 : 1;
	o = p = xmalloc(n + 1);
	for (i = 0; s[i] != '\0'; i++) {
		unsigned char c = (unsigned char)s[i];

		switch (c) {
		case '<': p = stpcpy(p, "&lt;"); break;
		case '>': p = stpcpy(p, "&gt;"); break;
		case '&': p = stpcpy(p, "&amp;"); break;
		case '"': p = stpcpy(p, "&quot;"); break;
		case '\'': p = stpcpy(p, "&apos;"); break;
		default:
			/* XML 1.0 has no place for other control characters. */
			*p++ = (c < 0x20 && c != '\n' && c != '\t') ? ' ' : (char)c;
		}
	}
	*p = '\0';
	return o;
}

/* Field 22 of /proc/PID/stat: when the process started. */
unsigned long long
proc_starttime(pid_t pid)
{
	char			 path[64], *s, *p;
	unsigned long long	 t = 0;
	int			 i;

	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	if ((s = read_text(path)) == NULL)
		return 0;
	/*
	 * The command name may hold spaces: count fields after its ')'.  A
	 * zombie (its parent may never reap it) counts as gone.
	 */
	if ((p = strrchr(s, ')')) != NULL && p[1] == ' ' && p[2] != 'Z' &&
	    p[2] != 'X') {
		for (i = 2; i < 22 && p != NULL; i++)
			p = strchr(p + 1, ' ');
		if (p != NULL)
			t = strtoull(p + 1, NULL, 10);
	}
	free(s);
	return t;
}
