/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * record.c - timestamped snapshots of a root's TUI files (see record.h,
 * docs/recording.md).
 *
 * Single-threaded: record_run() owns everything it touches.  A snapshot
 * copies every regular file matching the file set into snap/.tmp-SEQ,
 * renames it to snap/SEQ and appends its index line (the names, lines
 * and the file set's syntax are tui/recfmt.h's).  A file that
 * vanished between glob and open (an exited pid) is skipped quietly; a
 * file the root refuses (EACCES) is skipped with one log line per
 * pattern; an EIO-like error, or a snapshot finding no file at all
 * after earlier ones did (the mount was removed), means the guest behind
 * a mirror is gone: that snapshot is discarded and the recording ends.
 */
#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "recfmt.h"
#include "record.h"
#include "util.h"

/* One pattern of the file set. */
struct pattern {
	char	*glob;		/* root-relative */
	int	 warned;	/* a refusal was logged */
	int	 toobig;	/* matched a file over REC_MAX_FILE: skip */
};

/* The state of one recording. */
struct rec {
	const char	*root;
	char		*dir;
	FILE		*log;
	struct pattern	*pats;
	size_t		 npats;
	char		 buf[65536];	/* copy buffer */
};

/* Write one line to the log. */
static void __attribute__((format(printf, 2, 3)))
rlog(struct rec *r, const char *fmt, ...)
{
	va_list	ap;

	fputs("record: ", r->log);
	va_start(ap, fmt);
	vfprintf(r->log, fmt, ap);
	va_end(ap);
	fputc('\n', r->log);
	fflush(r->log);
}

/* Wall-clock time in milliseconds since the epoch. */
static long long
unix_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Whether an errno means the root itself is gone (a dead guest). */
static int
dead_errno(int e)
{
	return e == EIO || e == ENOTCONN || e == ECONNABORTED || e == ENODEV;
}

struct load_ctx {
	struct rec	*r;
	const char	*path;
};

/* Take one line of the file set; -EINVAL (after logging why) if bad. */
static int
load_pattern(char *p, unsigned lineno, void *arg)
{
	struct load_ctx	*c = arg;
	struct rec	*r = c->r;
	const char	*why;

	if ((why = rec_pattern_bad(p)) != NULL) {
		rlog(r, "%s:%u: %s: %s", c->path, lineno, why, p);
		return -EINVAL;
	}
	r->pats = xrealloc(r->pats, (r->npats + 1) * sizeof *r->pats);
	memset(&r->pats[r->npats], 0, sizeof r->pats[r->npats]);
	r->pats[r->npats].glob = xstrdup(p);
	r->npats++;
	return 0;
}

/* Load the file set; 0 or a negative errno (after logging why). */
static int
load_patterns(struct rec *r)
{
	const char	*env = getenv("UMKIT_RECORD_FILES");
	char		*path;
	struct load_ctx	 c = { .r = r };
	int		 err;

	path = env != NULL && *env != '\0' ? xstrdup(env) :
	    top_path("uml/link/record.files");
	c.path = path;
	if ((err = conf_lines(path, load_pattern, &c)) < 0 && err != -EINVAL)
		rlog(r, "%s: %s", path, strerror(-err));
	free(path);
	return err;
}

/* Create the parent directories of a path below base (which exists). */
static int
make_parents(const char *base, const char *rel)
{
	char	*p = xasprintf("%s/%s", base, rel), *s;
	int	 err = 0;

	for (s = p + strlen(base) + 1; (s = strchr(s, '/')) != NULL; s++) {
		*s = '\0';
		if (mkdir(p, 0755) == -1 && errno != EEXIST) {
			err = -errno;
			break;
		}
		*s = '/';
	}
	free(p);
	return err;
}

/*
 * Copy one root file into the snapshot directory.  Returns 1 when
 * copied, 0 when skipped (not a regular file, vanished), -EFBIG when too
 * big, or a negative errno from the root.
 */
static int
copy_file(struct rec *r, const char *src, const char *snapdir,
    const char *rel)
{
	struct stat	 st;
	char		*dst = NULL;
	size_t		 total = 0;
	ssize_t		 n;
	int		 in, out = -1, ret;

	if ((in = open(src, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC))
	    == -1)
		return errno == ENOENT || errno == ELOOP ? 0 : -errno;
	if (fstat(in, &st) == -1 || !S_ISREG(st.st_mode)) {
		ret = 0;
		goto out;
	}
	if ((ret = make_parents(snapdir, rel)) < 0) {
		rlog(r, "%s/%s: %s", snapdir, rel, strerror(-ret));
		ret = 0;
		goto out;
	}
	dst = xasprintf("%s/%s", snapdir, rel);
	if ((out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
	    0644)) == -1) {
		rlog(r, "%s: %s", dst, strerror(errno));
		ret = 0;
		goto out;
	}
	for (;;) {
		n = read(in, r->buf, sizeof r->buf);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			ret = errno == EAGAIN ? 0 : -errno;
			goto out;
		}
		if (n == 0)
			break;
		if ((total += n) > REC_MAX_FILE) {
			rlog(r, "%s: over %u MiB, not recorded", src,
			    REC_MAX_FILE >> 20);
			ret = -EFBIG;
			goto out;
		}
		if (write_all(out, r->buf, n) == -1) {
			rlog(r, "%s: %s", dst, strerror(errno));
			ret = 0;
			goto out;
		}
	}
	ret = 1;
out:
	close(in);
	if (out != -1)
		close(out);
	if (ret != 1 && dst != NULL)
		unlink(dst);
	free(dst);
	return ret;
}

/* The root with glob metacharacters escaped, for building patterns. */
static char *
escape_glob(const char *s)
{
	char	*out = xmalloc(strlen(s) * 2 + 1), *o = out;

	for (; *s != '\0'; s++) {
		if (strchr("*?[]\\", *s) != NULL)
			*o++ = '\\';
		*o++ = *s;
	}
	*o = '\0';
	return out;
}

/*
 * Take one snapshot into snap/.tmp-SEQ.  Returns the number of files
 * copied, or a negative errno when the root is gone.
 */
static int
snapshot(struct rec *r, const char *tmpdir)
{
	char	*root = xstrdup(r->root), *eroot, *pat;
	glob_t	 g;
	size_t	 i, j, rootlen = strlen(root);
	int	 copied = 0, c, dead = 0;

	while (rootlen > 0 && root[rootlen - 1] == '/')
		root[--rootlen] = '\0';	/* "/" + "proc/..." */
	eroot = escape_glob(root);
	free(root);
	for (i = 0; i < r->npats && !dead; i++) {
		if (r->pats[i].toobig)
			continue;
		pat = xasprintf("%s/%s", eroot, r->pats[i].glob);
		if (glob(pat, 0, NULL, &g) != 0) {
			free(pat);
			continue;		/* no match */
		}
		free(pat);
		for (j = 0; j < g.gl_pathc; j++) {
			c = copy_file(r, g.gl_pathv[j], tmpdir,
			    g.gl_pathv[j] + rootlen + 1);
			if (c > 0)
				copied++;
			else if (c == -EFBIG)
				r->pats[i].toobig = 1;
			else if (c < 0 && dead_errno(-c)) {
				rlog(r, "%s: %s: the root is gone",
				    g.gl_pathv[j], strerror(-c));
				dead = -c;
				break;
			} else if (c < 0 && !r->pats[i].warned) {
				r->pats[i].warned = 1;
				rlog(r, "%s: %s (not recorded)",
				    g.gl_pathv[j], strerror(-c));
			}
		}
		globfree(&g);
	}
	free(eroot);
	return dead ? -dead : copied;
}

/* Write the recording's header file, whole or not at all. */
static int
write_header(struct rec *r, int every_ms, long long started)
{
	char			*fin = xasprintf("%s/" REC_HEADER, r->dir);
	char			*real = realpath(r->root, NULL);
	struct rec_header	 h = { .every_ms = every_ms,
				       .started_unix_ms = started };
	char			 text[sizeof h.source + 128];
	int			 err = 0;

	snprintf(h.source, sizeof h.source, "%s", real != NULL ? real :
	    r->root);
	rec_header_format(text, sizeof text, &h);
	if (write_file_atomic(fin, text, strlen(text), 0644) < 0)
		err = -errno;
	if (err != 0)
		rlog(r, "%s: %s", fin, strerror(-err));
	free(real);
	free(fin);
	return err;
}

/* Make the recording directory; it must not already hold a recording. */
static int
make_dir(struct rec *r)
{
	char	*p;
	int	 err = 0;

	if (mkdir(r->dir, 0755) == -1 && errno != EEXIST)
		err = -errno;
	else {
		p = xasprintf("%s/" REC_HEADER, r->dir);
		if (access(p, F_OK) == 0) {
			rlog(r, "%s already holds a recording", r->dir);
			err = -EEXIST;
		}
		free(p);
	}
	if (err == 0) {
		p = xasprintf("%s/" REC_SNAPS, r->dir);
		if (mkdir(p, 0755) == -1 && errno != EEXIST)
			err = -errno;
		free(p);
	}
	if (err == -EEXIST)
		return err;
	if (err != 0)
		rlog(r, "%s: %s", r->dir, strerror(-err));
	return err;
}

/* Create the empty index, so a reader sees it from the start. */
static int
create_index(struct rec *r)
{
	char	*p = xasprintf("%s/" REC_INDEX, r->dir);
	int	 fd, err = 0;

	if ((fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644))
	    == -1) {
		err = -errno;
		rlog(r, "%s: %s", p, strerror(errno));
	} else
		close(fd);
	free(p);
	return err;
}

/* Append one index line with a single write. */
static int
append_index(struct rec *r, unsigned seq, long long t, long long el)
{
	char		*p = xasprintf("%s/" REC_INDEX, r->dir);
	struct rec_snap	 s = { seq, t, el };
	char		 line[96];
	int		 fd, n, err = 0;

	n = rec_index_format(line, sizeof line, &s);
	if ((fd = open(p, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644))
	    == -1 || write_all(fd, line, n) == -1)
		err = -errno;
	if (fd != -1)
		close(fd);
	if (err != 0)
		rlog(r, "%s: %s", p, strerror(-err));
	free(p);
	return err;
}

/* Sleep until monotonic time `until` ms, or until *stop. */
static void
sleep_until(long long until, volatile int *stop)
{
	struct timespec	ts;
	long long	left;

	while ((stop == NULL || !*stop) && (left = until - now_ms()) > 0) {
		if (left > 100)
			left = 100;
		ts.tv_sec = 0;
		ts.tv_nsec = left * 1000000;
		nanosleep(&ts, NULL);
	}
}

/* Record root into dir; see record.h. */
int
record_run(const char *root, const char *dir, int every_ms, int for_s,
    volatile int *stop, FILE *log)
{
	struct rec	*r = xcalloc(1, sizeof *r);
	struct stat	 st;
	char		*tmp, *fin, rel[64];
	long long	 start, started, t, el, next;
	unsigned	 seq;
	int		 err, n, count = 0;
	size_t		 i;

	r->root = root;
	r->dir = xstrdup(dir);
	r->log = log != NULL ? log : stderr;
	if (every_ms < 1)
		every_ms = 1;
	if (stat(root, &st) == -1 || !S_ISDIR(st.st_mode)) {
		err = stat(root, &st) == -1 ? -errno : -ENOTDIR;
		rlog(r, "%s: %s", root, strerror(-err));
		goto out;
	}
	if ((err = load_patterns(r)) != 0 || (err = make_dir(r)) != 0)
		goto out;
	start = now_ms();
	started = unix_ms();
	if ((err = write_header(r, every_ms, started)) != 0 ||
	    (err = create_index(r)) != 0)
		goto out;
	rlog(r, "recording %s into %s every %d ms%s", root, dir, every_ms,
	    for_s > 0 ? "" : " until stopped");

	for (seq = 0; stop == NULL || !*stop; seq++) {
		if (seq > REC_MAX_SEQ) {
			rlog(r, "a million snapshots: stopping");
			break;
		}
		t = unix_ms();
		el = now_ms() - start;
		tmp = xasprintf("%s/%s", r->dir, rec_snap_rel(rel, sizeof rel,
		    seq, 1));
		fin = xasprintf("%s/%s", r->dir, rec_snap_rel(rel, sizeof rel,
		    seq, 0));
		rm_tree(tmp);
		if (mkdir(tmp, 0755) == -1) {
			err = -errno;
			rlog(r, "%s: %s", tmp, strerror(errno));
		} else if ((n = snapshot(r, tmp)) < 0 || (n == 0 && count > 0) ||
		    stat(root, &st) == -1) {
			/* EIO, or files gone: the guest or its mount is. */
			rm_tree(tmp);
			rlog(r, "%s stopped being readable: recording ends",
			    root);
			err = n < 0 ? n : -EIO;
		} else if (rename(tmp, fin) == -1) {
			err = -errno;
			rlog(r, "%s: %s", fin, strerror(errno));
		} else if ((err = append_index(r, seq, t, el)) == 0) {
			count++;
			if (n == 0)
				rlog(r, "snapshot %06u: no file of the set "
				    "under %s", seq, root);
		}
		free(tmp);
		free(fin);
		if (err != 0)
			break;
		next = start + (long long)(seq + 1) * every_ms;
		if (next < now_ms())	/* too slow: skip the missed ticks */
			next = start + ((now_ms() - start) / every_ms + 1) *
			    every_ms;
		if (for_s > 0 && next - start >= (long long)for_s * 1000)
			break;
		sleep_until(next, stop);
	}
	rlog(r, "%d snapshot%s in %s", count, count == 1 ? "" : "s", dir);
	if (count > 0)
		err = 0;	/* a recording that ended early is still one */
out:
	for (i = 0; i < r->npats; i++)
		free(r->pats[i].glob);
	free(r->pats);
	free(r->dir);
	free(r);
	return err < 0 ? err : count;
}
