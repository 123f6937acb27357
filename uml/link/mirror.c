/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * mirror.c - the FUSE mirror of a guest's /proc and /sys (see mirror.h).
 *
 * Inodes: every guest path the kernel has looked up gets a node with a
 * FUSE inode number (never reused) and a lookup count; forget drops the
 * count and frees the node at zero.  The root (FUSE_ROOT_ID) is virtual
 * and holds "proc" and "sys".
 *
 * Files: open fetches the whole content with one link_read(whole) into
 * the handle; reads are served from it (direct_io, so size 0 in the
 * attributes does not matter), and a read at offset 0 after the content
 * has been served fetches it again, so an fd that is rewound and re-read
 * is fresh too.  Known binary files (/proc/kpageflags ...) and files over
 * the protocol's whole-read limit (EFBIG) use offset reads instead.
 *
 * Threads: MIRROR_WORKERS threads process requests; one at a time reads
 * /dev/fuse (non-blocking, polled together with a stop pipe) and serves
 * what it read.  It keeps that role while a request is served from
 * memory (a read of fetched content, a release, cached attributes) and
 * hands it on only before a call that waits on the guest (mlink()): a
 * sequence of quick requests wakes no other thread (a handoff per
 * request cost about 25 us of a 35-45 us read, make bench-mirror), and a
 * slow one does not hold up the rest.  After such a call the worker goes
 * on reading without the role for up to MIRROR_SPIN_US (spin_receive()),
 * so that the request its answer releases (the read after an open) finds
 * a running thread rather than a sleeping one (a whole read of
 * /proc/vmstat: 211-215 before, 154-164 us p50 after).  mirror_stop()
 * writes the pipe, joins them, unmounts and closes /dev/fuse, which
 * aborts any request still queued so no reader hangs.
 */
#define _GNU_SOURCE
#define FUSE_USE_VERSION 34

#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <fuse_lowlevel.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "link.h"
#include "mirror.h"
#include "mirror-policy.h"
#include "spawn.h"
#include "util.h"

/* Threads serving requests: enough for 8 concurrent readers and a writer. */
#define MIRROR_WORKERS	10
/* How long a worker that waited on the guest reads on without m->rx. */
#define MIRROR_SPIN_US	100
/* The last this many whole reads' link times are kept for the log. */
#define MIRROR_LAT_MAX	8192

/* Files read with offset reads: binary, large, or position-dependent. */
static const char *const offset_files[] = {
	"/proc/kpageflags", "/proc/kpagecount", "/proc/kpagecgroup",
	"/proc/kcore", "/proc/[0-9]*/pagemap", "/proc/self/pagemap",
	"/sys/kernel/mm/page_idle/bitmap",
};

/* This thread is the worker reading /dev/fuse: it holds its mirror's rx. */
static __thread int rx_held;

/* A guest path known to the kernel under an inode number. */
struct node {
	uint64_t	 ino;
	uint64_t	 nlookup;	/* kernel references (lookups - forgets) */
	struct stat	 attr;		/* last attributes fetched ... */
	long long	 attr_ms;	/* ... and when (monotonic ms; 0: none) */
	struct node	*ino_next;	/* hash chains */
	struct node	*path_next;
	char		 path[];	/* normalized guest path */
};

/* An open file. */
struct handle {
	pthread_mutex_t	 lock;		/* guards the fields below it */
	char		*data;		/* whole content (whole mode) */
	size_t		 len;
	int		 served;	/* data has been returned by a read */
	int		 offset_mode;	/* read with offset reads */
	int		 wrote;		/* a write was sent */
	int		 truncated;	/* the O_TRUNC empty write was sent */
	/* Set at open, read-only afterwards. */
	int		 writable;	/* opened for writing (allowlisted) */
	int		 trunc;		/* opened with O_TRUNC */
	struct handle	*prev, *next;	/* the open list; mirror->lock */
	char		 path[];
};

/* An open directory: its entries, fetched at opendir, read-only after. */
struct dent {
	char		*name;
	unsigned	 type;
};
struct dirh {
	size_t		 n;
	struct dent	*ents;
	size_t		 max;		/* the mirror's dir_max */
	int		 capped;	/* more than that */
};

/* The mirror's state; one per mount. */
struct mirror {
	/* Set by mirror_start, read-only while serving. */
	struct link		*link;
	struct allowlist	*allow;
	FILE			*log;
	char			*mountpoint;
	struct fuse_session	*se;
	int			 stopfd[2];	/* stop pipe: written once */
	pthread_mutex_t		 rx;		/* held by the reading worker (rx_held) */
	pthread_t		 workers[MIRROR_WORKERS];
	int			 nworkers;
	uid_t			 uid;
	gid_t			 gid;

	pthread_mutex_t		 lock;	/* guards everything below */
	pthread_cond_t		 cond;	/* signalled when inited is set */
	int			 inited;	/* the kernel's INIT was answered */
	struct node		**by_ino;	/* hash tables, nbuckets each */
	struct node		**by_path;
	size_t			 nbuckets;
	size_t			 nnodes;
	uint64_t		 next_ino;
	int			 eio_logged;	/* the link's EIO was reported */
	struct handle		*handles;	/* open files, freed at stop */
	size_t			 dir_max;	/* entries a directory shows */
	uint32_t		 lat_us[MIRROR_LAT_MAX];	/* a ring */
	size_t			 nlat;		/* reads timed */
};

/* libfuse's own messages go to the log of the last mirror started. */
static pthread_mutex_t	 fuse_log_lock = PTHREAD_MUTEX_INITIALIZER;
static FILE		*fuse_log_file;	/* guarded by fuse_log_lock */

/* The mirror a request belongs to. */
static struct mirror *
mr(fuse_req_t req)
{
	return fuse_req_userdata(req);
}

/* Write one line to the mirror's log. */
static void __attribute__((format(printf, 2, 3)))
mlog(struct mirror *m, const char *fmt, ...)
{
	FILE	*f = m->log != NULL ? m->log : stderr;
	va_list	 ap;
	char	 line[1024];

	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	fprintf(f, "mirror %s: %s\n", m->mountpoint, line);
	fflush(f);
}

/* Send libfuse's messages to the mirror log instead of stderr. */
static void
fuse_log_to_file(enum fuse_log_level level, const char *fmt, va_list ap)
{
	FILE	*f;

	pthread_mutex_lock(&fuse_log_lock);
	f = fuse_log_file != NULL ? fuse_log_file : stderr;
	fputs("mirror: libfuse: ", f);
	vfprintf(f, fmt, ap);
	fflush(f);
	pthread_mutex_unlock(&fuse_log_lock);
}

/* Note a link error in the log (the first EIO only: a dead guest). */
static int
link_err(struct mirror *m, const char *what, const char *path, int err)
{
	int	first;

	if (err != -EIO)
		return -err;
	pthread_mutex_lock(&m->lock);
	first = !m->eio_logged;
	m->eio_logged = 1;
	pthread_mutex_unlock(&m->lock);
	if (first)
		mlog(m, "%s %s: guest link failed (EIO); every operation "
		    "fails until the guest is back", what, path);
	return EIO;
}

/*
 * The link, for a call that may wait on the guest: another worker takes
 * over reading /dev/fuse first, so requests keep being served meanwhile.
 */
static struct link *
mlink(struct mirror *m)
{
	if (rx_held) {
		rx_held = 0;
		pthread_mutex_unlock(&m->rx);
	}
	return m->link;
}

/* Hash a string (FNV-1a). */
static uint64_t
hash_str(const char *s)
{
	return fnv1a(FNV1A_BASIS, s, strlen(s));
}

/* Whether a guest file is read with offset reads from the start. */
static int
offset_file(const char *path)
{
	size_t	i;

	for (i = 0; i < sizeof offset_files / sizeof offset_files[0]; i++)
		if (fnmatch(offset_files[i], path, FNM_PATHNAME) == 0)
			return 1;
	return 0;
}

/* Grow the hash tables when they get crowded.  Called with m->lock. */
static void
table_grow(struct mirror *m)
{
	struct node	**bi, **bp, *nd, *next;
	size_t		  nb = m->nbuckets * 2, i;

	bi = xcalloc(nb, sizeof *bi);
	bp = xcalloc(nb, sizeof *bp);
	for (i = 0; i < m->nbuckets; i++) {
		for (nd = m->by_ino[i]; nd != NULL; nd = next) {
			next = nd->ino_next;
			nd->ino_next = bi[nd->ino % nb];
			bi[nd->ino % nb] = nd;
		}
		for (nd = m->by_path[i]; nd != NULL; nd = next) {
			next = nd->path_next;
			nd->path_next = bp[hash_str(nd->path) % nb];
			bp[hash_str(nd->path) % nb] = nd;
		}
	}
	free(m->by_ino);
	free(m->by_path);
	m->by_ino = bi;
	m->by_path = bp;
	m->nbuckets = nb;
}

/* Find a node by inode number.  Called with m->lock. */
static struct node *
node_by_ino(struct mirror *m, uint64_t ino)
{
	struct node	*nd;

	for (nd = m->by_ino[ino % m->nbuckets]; nd != NULL; nd = nd->ino_next)
		if (nd->ino == ino)
			return nd;
	return NULL;
}

/* Take a kernel reference on path's node, creating it; returns its ino. */
static uint64_t
node_ref(struct mirror *m, const char *path)
{
	struct node	*nd;
	uint64_t	 h;
	size_t		 len = strlen(path);

	pthread_mutex_lock(&m->lock);
	h = hash_str(path);
	for (nd = m->by_path[h % m->nbuckets]; nd != NULL; nd = nd->path_next)
		if (strcmp(nd->path, path) == 0)
			break;
	if (nd == NULL) {
		if (m->nnodes >= m->nbuckets * 2) {
			table_grow(m);
		}
		nd = xcalloc(1, sizeof *nd + len + 1);
		memcpy(nd->path, path, len + 1);
		nd->ino = m->next_ino++;
		nd->ino_next = m->by_ino[nd->ino % m->nbuckets];
		m->by_ino[nd->ino % m->nbuckets] = nd;
		nd->path_next = m->by_path[h % m->nbuckets];
		m->by_path[h % m->nbuckets] = nd;
		m->nnodes++;
	}
	nd->nlookup++;
	pthread_mutex_unlock(&m->lock);
	return nd->ino;
}

/* Unlink a node from both chains and free it.  Called with m->lock. */
static void
node_free(struct mirror *m, struct node *nd)
{
	struct node	**pp;

	for (pp = &m->by_ino[nd->ino % m->nbuckets]; *pp != nd;
	    pp = &(*pp)->ino_next)
		;
	*pp = nd->ino_next;
	for (pp = &m->by_path[hash_str(nd->path) % m->nbuckets]; *pp != nd;
	    pp = &(*pp)->path_next)
		;
	*pp = nd->path_next;
	m->nnodes--;
	free(nd);
}

/* Drop n kernel references on an inode; free it at zero. */
static void
node_unref(struct mirror *m, uint64_t ino, uint64_t n)
{
	struct node	*nd;

	if (ino == FUSE_ROOT_ID)
		return;
	pthread_mutex_lock(&m->lock);
	if ((nd = node_by_ino(m, ino)) != NULL) {
		nd->nlookup = n >= nd->nlookup ? 0 : nd->nlookup - n;
		if (nd->nlookup == 0)
			node_free(m, nd);
	}
	pthread_mutex_unlock(&m->lock);
}

/* Copy the guest path of an inode into buf; 0 or an errno. */
static int
ino_path(struct mirror *m, fuse_ino_t ino, char *buf, size_t size)
{
	struct node	*nd;
	int		 err = 0;

	if (ino == FUSE_ROOT_ID) {
		snprintf(buf, size, "/");
		return 0;
	}
	pthread_mutex_lock(&m->lock);
	if ((nd = node_by_ino(m, ino)) == NULL)
		err = ESTALE;
	else if (strlen(nd->path) >= size)
		err = ENAMETOOLONG;
	else
		strcpy(buf, nd->path);
	pthread_mutex_unlock(&m->lock);
	return err;
}

/* The guest path of name in directory parent; 0 or an errno. */
static int
child_path(const char *parent, const char *name, char *buf, size_t size)
{
	char	tmp[PATH_MAX + NAME_MAX + 2];

	if (*name == '\0' || strcmp(name, ".") == 0 ||
	    strcmp(name, "..") == 0 || strchr(name, '/') != NULL)
		return ENOENT;
	if (strcmp(parent, "/") == 0 && strcmp(name, "proc") != 0 &&
	    strcmp(name, "sys") != 0)
		return ENOENT;		/* the root holds just these two */
	snprintf(tmp, sizeof tmp, "%s/%s", strcmp(parent, "/") == 0 ? "" :
	    parent, name);
	switch (mirror_path_normalize(tmp, buf, size)) {
	case 0:
		return 0;
	case -ENAMETOOLONG:
		return ENAMETOOLONG;
	default:
		return ENOENT;
	}
}

/* Whether writes to a guest path are allowed. */
static int
writable(struct mirror *m, const char *path)
{
	return allowlist_match(m->allow, path);
}

/*
 * Remember the attributes fetched for a node.  The kernel asks again after
 * every direct-I/O read that passes the size procfs reports (0), so
 * without this each open-read-close of a /proc file would cost a second
 * guest round trip for a stat.  Attributes stay as fresh as promised:
 * MIRROR_TIMEOUT_S.
 */
static void
attr_store(struct mirror *m, uint64_t ino, const struct stat *st)
{
	struct node	*nd;

	pthread_mutex_lock(&m->lock);
	if ((nd = node_by_ino(m, ino)) != NULL) {
		nd->attr = *st;
		nd->attr_ms = now_ms();
	}
	pthread_mutex_unlock(&m->lock);
}

/* Attributes remembered for ino less than MIRROR_TIMEOUT_S ago; 1 if so. */
static int
attr_cached(struct mirror *m, uint64_t ino, struct stat *st)
{
	struct node	*nd;
	int		 fresh = 0;

	pthread_mutex_lock(&m->lock);
	if ((nd = node_by_ino(m, ino)) != NULL && nd->attr_ms != 0 &&
	    now_ms() - nd->attr_ms < (long long)(MIRROR_TIMEOUT_S * 1000)) {
		*st = nd->attr;
		fresh = 1;
	}
	pthread_mutex_unlock(&m->lock);
	return fresh;
}

/* Attributes of a guest path as the mirror shows them; 0 or an errno. */
static int
attr_of(struct mirror *m, const char *path, uint64_t ino, struct stat *st)
{
	struct link_stat	ls;
	int			r;

	memset(st, 0, sizeof *st);
	st->st_ino = ino;
	st->st_uid = m->uid;
	st->st_gid = m->gid;
	st->st_blksize = 4096;
	if (strcmp(path, "/") == 0) {
		st->st_mode = S_IFDIR | 0555;
		st->st_nlink = 4;
		return 0;
	}
	if ((r = link_stat(mlink(m), path, &ls)) < 0)
		return link_err(m, "stat", path, r);
	st->st_mode = ls.mode;
	if (!writable(m, path))
		st->st_mode &= ~0222;
	st->st_nlink = ls.nlink;
	st->st_size = ls.size;
	st->st_mtim.tv_sec = ls.mtime_ns / 1000000000;
	st->st_mtim.tv_nsec = ls.mtime_ns % 1000000000;
	st->st_ctim = st->st_atim = st->st_mtim;
	return 0;
}

/* Fetch a handle's whole content (or switch it to offset reads). */
static int
handle_fetch(struct mirror *m, struct handle *h)
{
	char		*buf;
	ssize_t		 r;
	long long	 t0;

	if (h->offset_mode)
		return 0;
	t0 = now_us();
	r = link_read(mlink(m), h->path, 0, 0, 1, &buf);
	if (r >= 0) {
		t0 = now_us() - t0;
		pthread_mutex_lock(&m->lock);
		m->lat_us[m->nlat++ % MIRROR_LAT_MAX] =
		    t0 > UINT32_MAX ? UINT32_MAX : (uint32_t)t0;
		pthread_mutex_unlock(&m->lock);
	}
	if (r == -EFBIG) {
		h->offset_mode = 1;	/* over the whole-read limit */
		return 0;
	}
	if (r < 0)
		return link_err(m, "read", h->path, r);
	free(h->data);
	h->data = buf;
	h->len = r;
	h->served = 0;
	return 0;
}

/* Record that the kernel's INIT has been handled. */
static void
mirror_init(void *userdata, struct fuse_conn_info *conn)
{
	struct mirror	*m = userdata;

	conn->want &= ~(FUSE_CAP_SPLICE_READ | FUSE_CAP_SPLICE_WRITE |
	    FUSE_CAP_SPLICE_MOVE | FUSE_CAP_WRITEBACK_CACHE);
	if (conn->capable & FUSE_CAP_ATOMIC_O_TRUNC)
		conn->want |= FUSE_CAP_ATOMIC_O_TRUNC;
	pthread_mutex_lock(&m->lock);
	m->inited = 1;
	pthread_cond_broadcast(&m->cond);
	pthread_mutex_unlock(&m->lock);
}

/* Look up a name in a directory. */
static void
mirror_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct mirror		*m = mr(req);
	struct fuse_entry_param	 e;
	char			 ppath[PATH_MAX], path[PATH_MAX];
	int			 err;

	memset(&e, 0, sizeof e);
	if ((err = ino_path(m, parent, ppath, sizeof ppath)) != 0)
		goto out;
	if ((err = child_path(ppath, name, path, sizeof path)) != 0)
		goto out;
	if ((err = attr_of(m, path, 0, &e.attr)) != 0)
		goto out;
	e.ino = node_ref(m, path);
	e.attr.st_ino = e.ino;
	attr_store(m, e.ino, &e.attr);
	e.attr_timeout = MIRROR_TIMEOUT_S;
	e.entry_timeout = MIRROR_TIMEOUT_S;
	if (fuse_reply_entry(req, &e) != 0)
		node_unref(m, e.ino, 1);	/* the kernel never saw it */
	return;
out:
	fuse_reply_err(req, err);
}

/* Drop the kernel's references on an inode. */
static void
mirror_forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup)
{
	node_unref(mr(req), ino, nlookup);
	fuse_reply_none(req);
}

/* Drop references on many inodes. */
static void
mirror_forget_multi(fuse_req_t req, size_t count,
    struct fuse_forget_data *forgets)
{
	size_t	i;

	for (i = 0; i < count; i++)
		node_unref(mr(req), forgets[i].ino, forgets[i].nlookup);
	fuse_reply_none(req);
}

/* Attributes of an inode. */
static void
mirror_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct mirror	*m = mr(req);
	struct stat	 st;
	char		 path[PATH_MAX];
	int		 err;

	if (ino != FUSE_ROOT_ID && attr_cached(m, ino, &st)) {
		fuse_reply_attr(req, &st, MIRROR_TIMEOUT_S);
		return;
	}
	if ((err = ino_path(m, ino, path, sizeof path)) != 0)
		goto out;
	if ((err = attr_of(m, path, ino, &st)) != 0)
		goto out;
	if (ino != FUSE_ROOT_ID)
		attr_store(m, ino, &st);
	fuse_reply_attr(req, &st, MIRROR_TIMEOUT_S);
	return;
out:
	fuse_reply_err(req, err);
}

/*
 * Change attributes: only truncation to 0 of an allowlisted file (sent as
 * an empty write, which clears e.g. tracing/trace); times are ignored on
 * allowlisted files; anything else is refused.
 */
static void
mirror_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr, int to_set,
    struct fuse_file_info *fi)
{
	struct mirror	*m = mr(req);
	struct stat	 st;
	char		 path[PATH_MAX];
	ssize_t		 r;
	int		 err;

	if ((err = ino_path(m, ino, path, sizeof path)) != 0)
		goto out;
	if (!writable(m, path) || (to_set & (FUSE_SET_ATTR_MODE |
	    FUSE_SET_ATTR_UID | FUSE_SET_ATTR_GID)) != 0) {
		err = EACCES;
		goto out;
	}
	if (to_set & FUSE_SET_ATTR_SIZE) {
		if (attr->st_size != 0) {
			err = EINVAL;
			goto out;
		}
		if ((r = link_write(mlink(m), path, "", 0)) < 0) {
			err = link_err(m, "truncate", path, r);
			goto out;
		}
	}
	if ((err = attr_of(m, path, ino, &st)) != 0)
		goto out;
	fuse_reply_attr(req, &st, MIRROR_TIMEOUT_S);
	return;
out:
	fuse_reply_err(req, err);
}

/* A symlink's target, made safe to follow on the host (see mirror.h). */
static void
mirror_readlink(fuse_req_t req, fuse_ino_t ino)
{
	struct mirror	*m = mr(req);
	char		 path[PATH_MAX], target[PATH_MAX], text[PATH_MAX];
	int		 err, r;

	if ((err = ino_path(m, ino, path, sizeof path)) != 0)
		goto out;
	if ((r = link_readlink(mlink(m), path, target, sizeof target)) < 0) {
		err = link_err(m, "readlink", path, r);
		goto out;
	}
	if ((r = mirror_link_text(path, target, text, sizeof text)) < 0) {
		err = -r;
		goto out;
	}
	if (strcmp(text, target) != 0 && *target != '/')
		mlog(m, "symlink %s -> %s climbs above the guest's /; "
		    "shown as %s", path, target, text);
	fuse_reply_readlink(req, text);
	return;
out:
	fuse_reply_err(req, err);
}

/* Collect one directory entry from the link. */
static int
collect_dent(const char *name, unsigned type, void *arg)
{
	struct dirh	*d = arg;

	if (d->max > 0 && d->n >= d->max) {
		d->capped = 1;
		return 1;
	}
	d->ents = xrealloc(d->ents, (d->n + 1) * sizeof *d->ents);
	d->ents[d->n].name = xstrdup(name);
	d->ents[d->n].type = type;
	d->n++;
	return 0;
}

/* Free a directory handle. */
static void
dirh_free(struct dirh *d)
{
	size_t	i;

	for (i = 0; i < d->n; i++)
		free(d->ents[i].name);
	free(d->ents);
	free(d);
}

/* Open a directory: fetch all its entries at once. */
static void
mirror_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct mirror	*m = mr(req);
	struct dirh	*d = xcalloc(1, sizeof *d);
	char		 path[PATH_MAX];
	int		 err, r;

	collect_dent(".", DT_DIR, d);
	collect_dent("..", DT_DIR, d);
	pthread_mutex_lock(&m->lock);
	d->max = m->dir_max + 2;
	pthread_mutex_unlock(&m->lock);
	if ((err = ino_path(m, ino, path, sizeof path)) != 0)
		goto out;
	if (strcmp(path, "/") == 0) {
		collect_dent("proc", DT_DIR, d);
		collect_dent("sys", DT_DIR, d);
	} else if ((r = link_readdir(mlink(m), path, collect_dent, d)) < 0) {
		err = link_err(m, "readdir", path, r);
		goto out;
	}
	if (d->capped)
		mlog(m, "readdir %s: more than %zu entries; the rest are not "
		    "shown", path, d->max - 2);
	fi->fh = (uintptr_t)d;
	fi->cache_readdir = 0;
	if (fuse_reply_open(req, fi) != 0)
		dirh_free(d);
	return;
out:
	dirh_free(d);
	fuse_reply_err(req, err);
}

/* Return directory entries from offset off. */
static void
mirror_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
    struct fuse_file_info *fi)
{
	struct dirh	*d = (struct dirh *)(uintptr_t)fi->fh;
	struct stat	 st;
	char		*buf = xmalloc(size);
	size_t		 used = 0, n;

	memset(&st, 0, sizeof st);
	for (; off >= 0 && (size_t)off < d->n; off++) {
		st.st_ino = (hash_str(d->ents[off].name) | 2) + ino;
		st.st_mode = DTTOIF(d->ents[off].type);
		n = fuse_add_direntry(req, buf + used, size - used,
		    d->ents[off].name, &st, off + 1);
		if (n > size - used)
			break;
		used += n;
	}
	fuse_reply_buf(req, buf, used);
	free(buf);
}

/* Close a directory. */
static void
mirror_releasedir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	dirh_free((struct dirh *)(uintptr_t)fi->fh);
	fuse_reply_err(req, 0);
}

/* Put an open file on the mirror's list (freed at stop if never released). */
static void
handle_link(struct mirror *m, struct handle *h)
{
	pthread_mutex_lock(&m->lock);
	h->prev = NULL;
	h->next = m->handles;
	if (m->handles != NULL)
		m->handles->prev = h;
	m->handles = h;
	pthread_mutex_unlock(&m->lock);
}

/* Take an open file off the mirror's list. */
static void
handle_unlink(struct mirror *m, struct handle *h)
{
	pthread_mutex_lock(&m->lock);
	if (h->prev != NULL)
		h->prev->next = h->next;
	else
		m->handles = h->next;
	if (h->next != NULL)
		h->next->prev = h->prev;
	pthread_mutex_unlock(&m->lock);
}

/* Free a file handle. */
static void
handle_free(struct handle *h)
{
	pthread_mutex_destroy(&h->lock);
	free(h->data);
	free(h);
}

/* Open a file: refuse writes off the allowlist, fetch content to read. */
static void
mirror_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct mirror	*m = mr(req);
	struct handle	*h = NULL;
	char		 path[PATH_MAX];
	int		 acc = fi->flags & O_ACCMODE, err;

	if ((err = ino_path(m, ino, path, sizeof path)) != 0)
		goto out;
	h = xcalloc(1, sizeof *h + strlen(path) + 1);
	pthread_mutex_init(&h->lock, NULL);
	strcpy(h->path, path);
	if (acc != O_RDONLY) {
		if (!writable(m, path)) {
			mlog(m, "write to %s refused: not on the allowlist",
			    path);
			err = EACCES;
			goto out;
		}
		h->writable = 1;
		h->trunc = (fi->flags & O_TRUNC) != 0;
	}
	h->offset_mode = offset_file(path);
	if (acc != O_WRONLY && (err = handle_fetch(m, h)) != 0)
		goto out;
	fi->fh = (uintptr_t)h;
	fi->direct_io = 1;
	fi->keep_cache = 0;
	/* Nothing to flush on a read-only file: spare close(2) a round trip. */
	fi->noflush = !h->writable;
	handle_link(m, h);
	if (fuse_reply_open(req, fi) != 0) {
		handle_unlink(m, h);
		handle_free(h);
	}
	return;
out:
	if (h != NULL)
		handle_free(h);
	fuse_reply_err(req, err);
}

/* Read from a file: from the fetched content, or with an offset read. */
static void
mirror_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
    struct fuse_file_info *fi)
{
	struct mirror	*m = mr(req);
	struct handle	*h = (struct handle *)(uintptr_t)fi->fh;
	char		*buf = NULL;
	ssize_t		 r;
	size_t		 n = 0;
	int		 err = 0, om;

	/* Another read of this file may be waiting on the guest under it. */
	if (pthread_mutex_trylock(&h->lock) != 0) {
		mlink(m);
		pthread_mutex_lock(&h->lock);
	}
	if (!h->offset_mode && off == 0 && (h->served || h->data == NULL))
		err = handle_fetch(m, h);	/* rewound: fresh content */
	if (err == 0 && !h->offset_mode) {
		h->served = 1;
		if ((size_t)off < h->len) {
			n = h->len - off < size ? h->len - off : size;
			buf = xmalloc(n);
			memcpy(buf, h->data + off, n);
		}
	}
	om = h->offset_mode;
	pthread_mutex_unlock(&h->lock);
	if (err != 0)
		goto out;
	if (om) {
		r = link_read(mlink(m), h->path, off, size, 0, &buf);
		if (r < 0) {
			err = link_err(m, "read", h->path, r);
			goto out;
		}
		n = r;
	}
	fuse_reply_buf(req, buf, n);
	free(buf);
	return;
out:
	fuse_reply_err(req, err);
}

/* Write to an allowlisted file: one link_write per write(2). */
static void
mirror_write(fuse_req_t req, fuse_ino_t ino, const char *data, size_t size,
    off_t off, struct fuse_file_info *fi)
{
	struct mirror	*m = mr(req);
	struct handle	*h = (struct handle *)(uintptr_t)fi->fh;
	ssize_t		 r;
	int		 err;

	if (!h->writable) {
		err = EBADF;
		goto out;
	}
	if ((r = link_write(mlink(m), h->path, data, size)) < 0) {
		err = link_err(m, "write", h->path, r);
		if (err != EIO)
			mlog(m, "write to %s: guest says %s", h->path,
			    strerror(err));
		goto out;
	}
	pthread_mutex_lock(&h->lock);
	h->wrote = 1;
	pthread_mutex_unlock(&h->lock);
	fuse_reply_write(req, r);
	return;
out:
	fuse_reply_err(req, err);
}

/*
 * close(2): an O_TRUNC open that wrote nothing sends one empty write now
 * (synchronously, so ": > trace" has cleared the trace when it returns).
 */
static void
mirror_flush(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct mirror	*m = mr(req);
	struct handle	*h = (struct handle *)(uintptr_t)fi->fh;
	ssize_t		 r;
	int		 err = 0, send;

	pthread_mutex_lock(&h->lock);
	send = h->writable && h->trunc && !h->wrote && !h->truncated;
	h->truncated |= send;
	pthread_mutex_unlock(&h->lock);
	if (send && (r = link_write(mlink(m), h->path, "", 0)) < 0)
		err = link_err(m, "truncate", h->path, r);
	fuse_reply_err(req, err);
}

/* Last close of an open file. */
static void
mirror_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct handle	*h = (struct handle *)(uintptr_t)fi->fh;

	handle_unlink(mr(req), h);
	handle_free(h);
	fuse_reply_err(req, 0);
}

/* access(2): W_OK only on allowlisted files. */
static void
mirror_access(fuse_req_t req, fuse_ino_t ino, int mask)
{
	struct mirror	*m = mr(req);
	char		 path[PATH_MAX];
	int		 err;

	if ((err = ino_path(m, ino, path, sizeof path)) != 0)
		goto out;
	if ((mask & W_OK) && !writable(m, path))
		err = EACCES;
out:
	fuse_reply_err(req, err);
}

/* Refuse creating a node. */
static void
deny_mknod(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode,
    dev_t rdev)
{
	fuse_reply_err(req, EACCES);
}

/* Refuse creating a directory. */
static void
deny_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode)
{
	fuse_reply_err(req, EACCES);
}

/* Refuse removing a name (unlink and rmdir). */
static void
deny_remove(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	fuse_reply_err(req, EACCES);
}

/* Refuse creating a symlink. */
static void
deny_symlink(fuse_req_t req, const char *link, fuse_ino_t parent,
    const char *name)
{
	fuse_reply_err(req, EACCES);
}

/* Refuse renaming. */
static void
deny_rename(fuse_req_t req, fuse_ino_t parent, const char *name,
    fuse_ino_t newparent, const char *newname, unsigned int flags)
{
	fuse_reply_err(req, EACCES);
}

/* Refuse hard links. */
static void
deny_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent,
    const char *newname)
{
	fuse_reply_err(req, EACCES);
}

/* Refuse creating files (O_CREAT on a name that does not exist). */
static void
deny_create(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode,
    struct fuse_file_info *fi)
{
	fuse_reply_err(req, EACCES);
}

/* Refuse setting extended attributes. */
static void
deny_setxattr(fuse_req_t req, fuse_ino_t ino, const char *name,
    const char *value, size_t size, int flags)
{
	fuse_reply_err(req, EACCES);
}

/* Refuse removing extended attributes. */
static void
deny_removexattr(fuse_req_t req, fuse_ino_t ino, const char *name)
{
	fuse_reply_err(req, EACCES);
}

static const struct fuse_lowlevel_ops mirror_ops = {
	.init		= mirror_init,
	.lookup		= mirror_lookup,
	.forget		= mirror_forget,
	.forget_multi	= mirror_forget_multi,
	.getattr	= mirror_getattr,
	.setattr	= mirror_setattr,
	.readlink	= mirror_readlink,
	.opendir	= mirror_opendir,
	.readdir	= mirror_readdir,
	.releasedir	= mirror_releasedir,
	.open		= mirror_open,
	.read		= mirror_read,
	.write		= mirror_write,
	.flush		= mirror_flush,
	.release	= mirror_release,
	.access		= mirror_access,
	.mknod		= deny_mknod,
	.mkdir		= deny_mkdir,
	.unlink		= deny_remove,
	.rmdir		= deny_remove,
	.symlink	= deny_symlink,
	.rename		= deny_rename,
	.link		= deny_link,
	.create		= deny_create,
	.setxattr	= deny_setxattr,
	.removexattr	= deny_removexattr,
};

/*
 * The next request, read without m->rx by a worker whose request gave the
 * role away and has just been answered, if one comes within
 * MIRROR_SPIN_US; > 0 when it came, else 0.
 */
static int
spin_receive(struct mirror *m, struct fuse_buf *fbuf)
{
	long long	 end = now_us() + MIRROR_SPIN_US;
	int		 r;

	do {
		r = fuse_session_receive_buf(m->se, fbuf);
		if (r != -EAGAIN && r != -EINTR)
			return r > 0 ? r : 0;
	} while (now_us() < end);
	return 0;
}

/*
 * Serve requests until the stop pipe is written or the mount goes away;
 * only the worker holding m->rx polls and reads /dev/fuse, and it keeps
 * m->rx across requests until mlink() gives it up.  A worker that gave
 * it up first reads on its own for a moment (spin_receive()): its answer
 * wakes a reader whose next request (the read after an open) then finds
 * a worker running, not one asleep in poll() on a CPU that may have gone
 * idle meanwhile.
 */
static void *
worker_main(void *arg)
{
	struct mirror	*m = arg;
	struct fuse_buf	 fbuf = { .mem = NULL };
	struct pollfd	 pfd[2];
	int		 r;

	pfd[0].fd = fuse_session_fd(m->se);
	pfd[0].events = POLLIN;
	pfd[1].fd = m->stopfd[0];
	pfd[1].events = POLLIN;
	for (;;) {
		if (!rx_held) {
			pthread_mutex_lock(&m->rx);
			rx_held = 1;
		}
		do {
			if (poll(pfd, 2, -1) == -1) {
				r = errno == EINTR ? -EINTR : -1;
				continue;
			}
			r = pfd[1].revents != 0 ? -1 :
			    fuse_session_receive_buf(m->se, &fbuf);
		} while (r == -EINTR || r == -EAGAIN);
		if (r <= 0)
			break;		/* stop, unmounted (0), a device error */
		fuse_session_process_buf(m->se, &fbuf);
		while (!rx_held && spin_receive(m, &fbuf) > 0)
			fuse_session_process_buf(m->se, &fbuf);
	}
	mlink(m);			/* the next worker sees the stop too */
	free(fbuf.mem);
	return NULL;
}

/* Absolute form of a path whose last component may be a dead mount. */
static char *
abs_mountpoint(const char *mountpoint)
{
	char	*dir = xstrdup(mountpoint), *base, *real, *out;
	size_t	 n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		dir[--n] = '\0';
	if ((base = strrchr(dir, '/')) == NULL) {
		base = dir;
		real = realpath(".", NULL);
	} else {
		*base++ = '\0';
		real = realpath(*dir == '\0' ? "/" : dir, NULL);
	}
	if (real == NULL) {
		free(dir);
		return NULL;
	}
	out = xasprintf("%s/%s", strcmp(real, "/") == 0 ? "" : real, base);
	free(real);
	free(dir);
	return out;
}

/* Whether path is a mount point in /proc/self/mountinfo. */
static int
is_mounted(const char *path)
{
	FILE	*f;
	char	*line = NULL, *p, *mp, *o;
	size_t	 cap = 0;
	int	 found = 0, i;

	if ((f = fopen("/proc/self/mountinfo", "r")) == NULL)
		return 0;
	while (!found && getline(&line, &cap, f) != -1) {
		/* id parent major:minor root MOUNTPOINT ... */
		p = line;
		for (i = 0; i < 4 && p != NULL; i++)
			if ((p = strchr(p, ' ')) != NULL)
				p++;
		if (p == NULL)
			continue;
		mp = p;
		for (o = mp; *p != '\0' && *p != ' '; p++) {
			if (p[0] == '\\' && p[1] >= '0' && p[1] <= '3' &&
			    p[2] >= '0' && p[2] <= '7' && p[3] >= '0' &&
			    p[3] <= '7') {
				*o++ = (p[1] - '0') * 64 + (p[2] - '0') * 8 +
				    (p[3] - '0');
				p += 3;
			} else
				*o++ = *p;
		}
		*o = '\0';
		found = strcmp(mp, path) == 0;
	}
	free(line);
	fclose(f);
	return found;
}

/* Lazily unmount one mount at path; 0 or a negative errno. */
static int
unmount_lazy(const char *path)
{
	char		*argv[] = { "fusermount3", "-u", "-z", "-q", "--",
			    (char *)path, NULL };
	struct spawn	 sp;

	if (geteuid() == 0)
		return umount2(path, MNT_DETACH) == 0 ? 0 : -errno;
	spawn_init(&sp, argv);
	sp.out = sp.err = SPAWN_NULL;
	return spawn_run(&sp) == 0 ? 0 : -EPERM;
}

/* Unmount a stale mount at mountpoint; see mirror.h. */
int
mirror_cleanup_stale(const char *mountpoint)
{
	char	*path = abs_mountpoint(mountpoint);
	int	 done = 0, r = 0, i;

	if (path == NULL)
		return -errno;
	for (i = 0; i < 16 && is_mounted(path); i++) {	/* stacked mounts */
		if ((r = unmount_lazy(path)) < 0)
			break;
		done = 1;
	}
	free(path);
	return r < 0 ? r : done;
}

/* Wait up to timeout_ms for the kernel's INIT to be answered. */
static int
wait_init(struct mirror *m, int timeout_ms)
{
	struct timespec	ts;
	int		inited;

	deadline_in(&ts, timeout_ms);
	pthread_mutex_lock(&m->lock);
	while (!m->inited &&
	    pthread_cond_timedwait(&m->cond, &m->lock, &ts) == 0)
		;
	inited = m->inited;
	pthread_mutex_unlock(&m->lock);
	return inited;
}

/* Mount and serve the mirror; see mirror.h. */
struct mirror *
mirror_start(struct link *link, const char *mountpoint,
    const char *allowlist_path, FILE *log)
{
	struct mirror	*m = xcalloc(1, sizeof *m);
	char		*argv[] = { "umkit-mirror", "-o",
			    "fsname=umkit,subtype=umkit,noatime", NULL };
	struct fuse_args args = FUSE_ARGS_INIT(3, argv);
	int		 r, i, mounted = 0;

	m->dir_max = MIRROR_DIR_MAX;
	m->link = link;
	m->log = log;
	m->mountpoint = xstrdup(mountpoint);
	m->uid = getuid();
	m->gid = getgid();
	m->stopfd[0] = m->stopfd[1] = -1;
	m->nbuckets = 256;
	m->by_ino = xcalloc(m->nbuckets, sizeof *m->by_ino);
	m->by_path = xcalloc(m->nbuckets, sizeof *m->by_path);
	m->next_ino = FUSE_ROOT_ID + 1;
	pthread_mutex_init(&m->lock, NULL);
	pthread_mutex_init(&m->rx, NULL);
	pthread_cond_init(&m->cond, NULL);

	pthread_mutex_lock(&fuse_log_lock);
	fuse_log_file = log;
	pthread_mutex_unlock(&fuse_log_lock);
	fuse_set_log_func(fuse_log_to_file);

	if ((m->allow = allowlist_load(allowlist_path, log)) == NULL) {
		mlog(m, "not mounted: bad allowlist %s", allowlist_path);
		goto fail;
	}
	if ((r = mirror_cleanup_stale(mountpoint)) < 0) {
		mlog(m, "not mounted: cannot clean a stale mount: %s",
		    strerror(-r));
		goto fail;
	} else if (r > 0)
		mlog(m, "cleaned a stale mount");
	m->se = fuse_session_new(&args, &mirror_ops, sizeof mirror_ops, m);
	fuse_opt_free_args(&args);
	if (m->se == NULL) {
		mlog(m, "not mounted: fuse_session_new failed");
		goto fail;
	}
	if (fuse_session_mount(m->se, mountpoint) != 0) {
		mlog(m, "not mounted: fuse_session_mount failed (is it an "
		    "existing directory? is /dev/fuse usable?)");
		goto fail;
	}
	mounted = 1;
	r = fcntl(fuse_session_fd(m->se), F_GETFL);
	if (r == -1 || fcntl(fuse_session_fd(m->se), F_SETFL,
	    r | O_NONBLOCK) == -1 || pipe2(m->stopfd, O_CLOEXEC) == -1) {
		mlog(m, "not mounted: %s", strerror(errno));
		goto fail;
	}
	for (i = 0; i < MIRROR_WORKERS; i++) {
		if ((r = pthread_create(&m->workers[i], NULL, worker_main,
		    m)) != 0) {
			mlog(m, "not mounted: pthread_create: %s",
			    strerror(r));
			goto fail;
		}
		m->nworkers++;
	}
	if (!wait_init(m, LINK_TIMEOUT_MS)) {
		mlog(m, "not mounted: the kernel did not initialise the mount");
		goto fail;
	}
	return m;
fail:
	if (mounted)
		mirror_stop(m);
	else {
		if (m->se != NULL)
			fuse_session_destroy(m->se);
		allowlist_free(m->allow);
		free(m->by_ino);
		free(m->by_path);
		free(m->mountpoint);
		free(m);
	}
	return NULL;
}

/* Order two link times. */
static int
lat_cmp(const void *a, const void *b)
{
	uint32_t	x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Log how long the whole reads' round trips over the link took (the
 * guest's agent included, FUSE not): make bench-mirror's split.
 */
static void
lat_log(struct mirror *m)
{
	size_t	n = m->nlat < MIRROR_LAT_MAX ? m->nlat : MIRROR_LAT_MAX;

	if (n == 0)
		return;
	qsort(m->lat_us, n, sizeof m->lat_us[0], lat_cmp);
	mlog(m, "link: %zu whole reads, the last %zu: p50 %u us, p90 %u us, "
	    "p99 %u us", m->nlat, n, m->lat_us[(n - 1) / 2],
	    m->lat_us[(n - 1) * 9 / 10], m->lat_us[(n - 1) * 99 / 100]);
}

/* Stop serving, unmount and free; see mirror.h. */
void
mirror_stop(struct mirror *m)
{
	struct handle	*h;
	struct node	*nd, *next;
	size_t		 i;
	int		 j;

	if (m == NULL)
		return;
	if (m->stopfd[1] != -1)
		(void)!write(m->stopfd[1], "x", 1);
	for (j = 0; j < m->nworkers; j++)
		pthread_join(m->workers[j], NULL);
	lat_log(m);
	/* Unmount (lazily), then closing /dev/fuse aborts what is queued. */
	fuse_session_unmount(m->se);
	fuse_session_destroy(m->se);
	for (j = 0; j < 2; j++)
		if (m->stopfd[j] != -1)
			close(m->stopfd[j]);
	for (i = 0; i < m->nbuckets; i++)
		for (nd = m->by_ino[i]; nd != NULL; nd = next) {
			next = nd->ino_next;
			free(nd);
		}
	/* Files still open when the mount went away are never released. */
	while ((h = m->handles) != NULL) {
		m->handles = h->next;
		handle_free(h);
	}
	pthread_mutex_lock(&fuse_log_lock);
	if (fuse_log_file == m->log)
		fuse_log_file = NULL;
	pthread_mutex_unlock(&fuse_log_lock);
	free(m->by_ino);
	free(m->by_path);
	allowlist_free(m->allow);
	pthread_mutex_destroy(&m->lock);
	pthread_mutex_destroy(&m->rx);
	pthread_cond_destroy(&m->cond);
	free(m->mountpoint);
	free(m);
}

/* How many entries a directory shows (mirror.h). */
void
mirror_set_dir_max(struct mirror *m, size_t n)
{
	pthread_mutex_lock(&m->lock);
	m->dir_max = n;
	pthread_mutex_unlock(&m->lock);
}
