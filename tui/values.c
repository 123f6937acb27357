/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * values.c - named values read through the parsers; see values.h for
 * the spec syntax and docs/values.md for the table.
 *
 * A spec is parsed into a struct spec (source, args, key) by one parser
 * that values_check() and values_get() share; each source then has a
 * getter that reads its file (once per values_refresh), parses it with
 * the TUI's parser and picks or sums the value.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "parse.h"
#include "recfmt.h"
#include "values.h"
#include "util.h"

#define MSG_LEN		256

/* The arguments a source takes inside [...]. */
enum {
	A_ZONE = 1 << 0, A_NODE = 1 << 1, A_MEMCG = 1 << 2, A_TYPE = 1 << 3,
	A_TIER = 1 << 4, A_SEQ = 1 << 5, A_PID = 1 << 6, A_NAME = 1 << 7,
	A_CGROUP = 1 << 8, A_EVENT = 1 << 9, A_PATH = 1 << 10, A_LINE = 1 << 11,
};

/* What follows the source (and its args). */
enum keykind {
	K_NONE,		/* nothing: uptime, trace.count[], file[] */
	K_NAME,		/* any counter name the file may hold */
	K_FIELD,	/* one of the source's fields */
	K_ORDER,	/* a page order */
};

struct spec;
struct source {
	const char		*name;
	const char		*usage;		/* for "want" messages */
	const char		*file;		/* fixed file, or NULL */
	unsigned		 args;		/* A_* allowed */
	unsigned		 bare;		/* the A_* a bare VALUE is */
	enum keykind		 key;
	const char *const	*fields;	/* K_FIELD */
	int			(*get)(struct values *, const struct spec *, double *,
				       char *msg);
};

/* A parsed spec. */
struct spec {
	const struct source	*src;
	unsigned		 given;		/* A_* present */
	char			 zone[P_NAME_LEN];
	int			 node;
	char			 memcg[96];
	char			 type[P_NAME_LEN];
	int			 tier;
	enum { SEQ_N, SEQ_MIN, SEQ_MAX } seqkind;
	u64			 seq;
	long			 pid;
	char			 name[32];
	char			 path[512];	/* cgroup, event or file path */
	char			 line[8];	/* psi: some or full */
	char			 key[64];
	int			 field;		/* K_FIELD: index; K_ORDER: order */
};

/* One file read from the root (kept until values_refresh). */
struct cached {
	char		*rel;
	struct buf	 b;
	int		 rc;		/* 0 or -errno */
};

struct values {
	int		 dirfd;
	struct cached	*files;
	int		 nfiles;
	void		(*on_read)(const char *, void *);
	void		*on_read_arg;
};

/* ---- reading ------------------------------------------------------------- */

/* printf into a message buffer. */
static int __attribute__((format(printf, 2, 3)))
say(char *msg, const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	vsnprintf(msg, MSG_LEN, fmt, ap);
	va_end(ap);
	return -1;
}

/* The content of rel, read on first use; NULL with msg set on error. */
static const struct buf *
file(struct values *v, const char *rel, char *msg)
{
	struct cached	*c = NULL;

	for (int i = 0; i < v->nfiles; i++)
		if (!strcmp(v->files[i].rel, rel))
			c = &v->files[i];
	if (!c) {
		v->files = xrealloc(v->files, (size_t)(v->nfiles + 1) * sizeof(*v->files));
		c = &v->files[v->nfiles++];
		memset(c, 0, sizeof(*c));
		c->rel = xstrdup(rel);
		c->rc = buf_read_at(&c->b, v->dirfd, rel);
		if (v->on_read)
			v->on_read(rel, v->on_read_arg);
	}
	if (c->rc < 0) {
		say(msg, "%s: %s", rel, strerror(-c->rc));
		return NULL;
	}
	return &c->b;
}

/* A parser's verdict: its first error, naming the file. */
static int
parse_failed(char *msg, const char *rel, const char *err)
{
	return say(msg, "%s: %s", rel, err);
}

/* ---- generic sources: name/value files ----------------------------------- */

/* vmstat, meminfo and memory.stat: look the key up in the pairs. */
static int
get_pairs(struct values *v, const char *rel, const char *key,
    int (*parse)(const char *, size_t, struct vmstat *), double *out, char *msg)
{
	const struct buf	*b = file(v, rel, msg);
	struct vmstat		 vs = { 0 };
	u64			 x;
	int			 r = -1;

	if (!b)
		return -1;
	if (parse(b->p, b->len, &vs) < 0)
		parse_failed(msg, rel, vs.err);
	else if (!kv_get(&vs.kv, key, &x))
		say(msg, "%s has no '%s'", rel, key);
	else {
		*out = (double)x;
		r = 0;
	}
	kv_free(&vs.kv);
	return r;
}

/* Adapter: meminfo's struct has the same list. */
static int
parse_meminfo_pairs(const char *b, size_t n, struct vmstat *vs)
{
	struct meminfo	mi = { 0 };
	int		r = parse_meminfo(b, n, &mi);

	vs->kv = mi.kv;
	memcpy(vs->err, mi.err, PERR_LEN);
	return r;
}

/* vmstat.KEY */
static int
get_vmstat(struct values *v, const struct spec *s, double *out, char *msg)
{
	return get_pairs(v, "proc/vmstat", s->key, parse_vmstat, out, msg);
}

/* meminfo.KEY */
static int
get_meminfo(struct values *v, const struct spec *s, double *out, char *msg)
{
	return get_pairs(v, "proc/meminfo", s->key, parse_meminfo_pairs, out, msg);
}

/* memory.stat[CGROUP].KEY */
static int
get_memstat(struct values *v, const struct spec *s, double *out, char *msg)
{
	char		 rel[700];
	const char	*cg = s->path;

	while (*cg == '/')
		cg++;
	snprintf(rel, sizeof(rel), "sys/fs/cgroup/%s%smemory.stat", cg, *cg ? "/" : "");
	return get_pairs(v, rel, s->key, parse_memstat, out, msg);
}

/* ---- lru_gen ------------------------------------------------------------- */

static const char *const lg_fields[] = {
	"max_seq", "min_seq", "gens", "anon", "file", "memcg", NULL,
};
static const char *const lgf_fields[] = {
	"max_seq", "min_seq", "gens", "anon", "file", "memcg", "refaulted",
	"evicted", "protected", "avg_refaulted", "avg_total", NULL,
};
enum { LG_MAX, LG_MIN, LG_GENS, LG_ANON, LG_FILE, LG_MEMCG, LG_REFAULTED,
       LG_EVICTED, LG_PROTECTED, LG_AVG_REFAULTED, LG_AVG_TOTAL };

/* Whether memcg m is the one the spec names: by id, or by path with
 * leading and trailing slashes ignored ("/", "/lab/" and "/lab"). */
static bool
memcg_is(const struct lg_memcg *m, const char *want)
{
	const char	*p = m->path;
	size_t		 np, nw;

	if (want[0] >= '0' && want[0] <= '9')
		return m->id == strtoull(want, NULL, 10);
	p += strspn(p, "/");
	want += strspn(want, "/");
	for (np = strlen(p); np && p[np - 1] == '/'; np--)
		;
	for (nw = strlen(want); nw && want[nw - 1] == '/'; nw--)
		;
	return np == nw && !memcmp(p, want, np);
}

/* Whether generation g of node nd is picked by seq=. */
static bool
gen_picked(const struct spec *s, const struct lg_node *nd,
    const struct lg_gen *g)
{
	if (!(s->given & A_SEQ))
		return true;
	switch (s->seqkind) {
	case SEQ_MIN: return g->seq == lg_min_seq(nd);
	case SEQ_MAX: return g->seq == lg_max_seq(nd);
	default: return g->seq == s->seq;
	}
}

/* The tier fields of one generation, summed over the picked tiers/types. */
static double
tier_sum(const struct spec *s, const struct lg_gen *g)
{
	double	sum = 0;

	for (int t = 0; t < g->ntiers; t++) {
		const struct lg_tier	*tr = &g->tier[t];

		if ((s->given & A_TIER) && tr->tier != s->tier)
			continue;
		for (int ty = 0; ty < 2; ty++) {
			bool	rep = tr->mark[ty][0] == 'r', rt = tr->mark[ty][0] == 'R';

			if ((s->given & A_TYPE) && strcmp(s->type, ty ? "file" : "anon"))
				continue;
			switch (s->field) {
			case LG_REFAULTED: sum += rep ? (double)tr->v[ty][0] : 0; break;
			case LG_EVICTED: sum += rep ? (double)tr->v[ty][1] : 0; break;
			case LG_PROTECTED: sum += rep ? (double)tr->v[ty][2] : 0; break;
			case LG_AVG_REFAULTED: sum += rt ? (double)tr->v[ty][0] : 0; break;
			case LG_AVG_TOTAL: sum += rt ? (double)tr->v[ty][1] : 0; break;
			}
		}
	}
	return sum;
}

/* lru_gen.FIELD and lru_gen_full.FIELD */
static int
get_lrugen(struct values *v, const struct spec *s, double *out, char *msg)
{
	const char		*rel = s->src->file;
	const struct buf	*b = file(v, rel, msg);
	struct lrugen		 lg = { 0 };
	int			 vecs = 0, gens = 0, memcgs = 0, r = -1;
	u64			 id = 0;
	double			 sum = 0;

	if (!b)
		return -1;
	if (parse_lrugen(b->p, b->len, &lg) < 0) {
		parse_failed(msg, rel, lg.err);
		goto out;
	}
	for (int m = 0; m < lg.n; m++) {
		bool	counted = false;

		if ((s->given & A_MEMCG) && !memcg_is(&lg.memcg[m], s->memcg))
			continue;
		for (int k = 0; k < lg.memcg[m].nnodes; k++) {
			const struct lg_node	*nd = &lg.memcg[m].node[k];

			if ((s->given & A_NODE) && nd->nid != s->node)
				continue;
			vecs++;
			if (!counted) {
				counted = true;
				memcgs++;
				id = lg.memcg[m].id;
			}
			if (s->field == LG_MAX)
				sum += (double)lg_max_seq(nd);
			else if (s->field == LG_MIN)
				sum += (double)lg_min_seq(nd);
			for (int i = 0; i < nd->ngens; i++) {
				const struct lg_gen	*g = &nd->gen[i];

				if (!gen_picked(s, nd, g))
					continue;
				gens++;
				if (s->field == LG_ANON || s->field == LG_FILE)
					sum += (double)g->pages[s->field == LG_FILE];
				else if (s->field >= LG_REFAULTED)
					sum += tier_sum(s, g);
			}
		}
	}
	if (s->field == LG_GENS)
		sum = gens;
	if (s->field == LG_MEMCG)
		sum = (double)id;
	if (vecs == 0) {
		char	have[160] = "";
		size_t	n = 0;

		for (int m = 0; m < lg.n && n < sizeof(have) - 32; m++)
			n += (size_t)snprintf(have + n, sizeof(have) - n, "%s%llu %s",
			    m ? ", " : "", lg.memcg[m].id,
			    lg.memcg[m].path[0] ? lg.memcg[m].path : "/");
		if ((s->given & A_NODE) && (s->given & A_MEMCG))
			say(msg, "no node %d of memcg %s in %s (memcgs: %s)", s->node, s->memcg,
			    rel, have);
		else if (s->given & A_NODE)
			say(msg, "no node %d in %s (memcgs: %s)", s->node, rel, have);
		else
			say(msg, "no memcg %s in %s (memcgs: %s)", s->memcg, rel, have);
	} else if ((s->given & A_SEQ) && gens == 0) {
		say(msg, "no generation %llu in %s", s->seq, rel);
	} else if (s->field == LG_MEMCG && memcgs > 1) {
		say(msg, "%d memcgs in %s: pick one (memcg=/PATH)", memcgs, rel);
	} else if (s->field >= LG_REFAULTED && !lg.full) {
		say(msg, "%s has no tier rows", rel);
	} else {
		*out = sum;
		r = 0;
	}
out:
	lrugen_free(&lg);
	return r;
}

/* ---- zones ---------------------------------------------------------------- */

/* Whether a zone (node, name) is picked: ZONE of node 0 by default, all
 * zones without a zone. */
static bool
zone_picked(const struct spec *s, int node, const char *name)
{
	if ((s->given & A_ZONE) && strcmp(name, s->zone))
		return false;
	if (s->given & A_NODE)
		return node == s->node;
	return !(s->given & A_ZONE) || node == 0;
}

/* The message for a zone that is not there; names lists the zones. */
static int
no_zone(const struct spec *s, const char *rel, const char *names, char *msg)
{
	if (s->given & A_ZONE)
		return say(msg, "no zone '%s' on node %d in %s (zones: %s)", s->zone,
		    s->given & A_NODE ? s->node : 0, rel, names);
	return say(msg, "no node %d in %s (zones: %s)", s->node, rel, names);
}

/* Append a zone's name ("Normal", on other nodes "Normal@1") to a list
 * for messages. */
static void
add_name(char *names, size_t n, int node, const char *name)
{
	size_t	k = strlen(names);

	if (k + 40 > n)
		return;
	if (node)
		snprintf(names + k, n - k, "%s%s@%d", k ? ", " : "", name, node);
	else
		snprintf(names + k, n - k, "%s%s", k ? ", " : "", name);
}

static const char *const zone_fields[] = {
	"free", "min", "low", "high", "boost", "promo", "spanned", "present",
	"managed", "cma", "start_pfn", NULL,
};

/* A zone's own field or counter; false when it has no such key. */
static bool
zone_key(const struct zi_zone *z, const char *key, u64 *x)
{
	const u64	f[] = { z->free, z->min, z->low, z->high, z->boost,
	    z->promo, z->spanned, z->present, z->managed, z->cma,
	    z->start_pfn };

	for (int i = 0; zone_fields[i]; i++)
		if (!strcmp(key, zone_fields[i])) {
			*x = f[i];
			return true;
		}
	return kv_get(&z->stats, key, x);
}

/* zoneinfo[ZONE].KEY */
static int
get_zoneinfo(struct values *v, const struct spec *s, double *out, char *msg)
{
	const char		*rel = "proc/zoneinfo";
	const struct buf	*b = file(v, rel, msg);
	struct zoneinfo		*zi;
	char			 names[200] = "";
	bool			 nodes[P_MAX_ZONES] = { false };
	int			 picked = 0, found = 0, r = -1;
	double			 sum = 0;
	u64			 x;

	if (!b)
		return -1;
	zi = xcalloc(1, sizeof(*zi));
	if (parse_zoneinfo(b->p, b->len, zi) < 0) {
		parse_failed(msg, rel, zi->err);
		goto out;
	}
	for (int i = 0; i < zi->nzones; i++) {
		const struct zi_zone	*z = &zi->zone[i];

		add_name(names, sizeof(names), z->node, z->name);
		if (!zone_picked(s, z->node, z->name))
			continue;
		picked++;
		if (zone_key(z, s->key, &x)) {
			sum += (double)x;
			found++;
		} else if (z->node >= 0 && z->node < P_MAX_ZONES) {
			nodes[z->node] = true;
		}
	}
	/* a node counter: once per node of the picked zones */
	if (picked && !found)
		for (int i = 0; i < zi->nzones; i++) {
			const struct zi_zone	*z = &zi->zone[i];

			if (z->node >= 0 && z->node < P_MAX_ZONES && nodes[z->node] &&
			    kv_get(&z->node_stats, s->key, &x)) {
				sum += (double)x;
				found++;
				nodes[z->node] = false;
			}
		}
	if (!picked)
		no_zone(s, rel, names, msg);
	else if (!found)
		say(msg, "%s has no '%s'%s%s", rel, s->key, s->given & A_ZONE ? " for zone " : "",
		    s->given & A_ZONE ? s->zone : "");
	else {
		*out = sum;
		r = 0;
	}
out:
	zoneinfo_free(zi);
	free(zi);
	return r;
}

/* buddyinfo[ZONE].ORDER and .pages */
static int
get_buddyinfo(struct values *v, const struct spec *s, double *out, char *msg)
{
	const char		*rel = "proc/buddyinfo";
	const struct buf	*b = file(v, rel, msg);
	struct buddyinfo	 bi;
	char			 names[200] = "";
	int			 picked = 0;
	double			 sum = 0;

	if (!b)
		return -1;
	if (parse_buddyinfo(b->p, b->len, &bi) < 0)
		return parse_failed(msg, rel, bi.err);
	for (int i = 0; i < bi.nzones; i++) {
		const struct bi_zone	*z = &bi.zone[i];

		add_name(names, sizeof(names), z->node, z->name);
		if (!zone_picked(s, z->node, z->name))
			continue;
		picked++;
		if (s->field < 0) {
			for (int o = 0; o < z->norders && o < P_MAX_ORDERS; o++)
				sum += (double)(z->nr_free[o] << o);
		} else if (s->field >= z->norders || s->field >= P_MAX_ORDERS) {
			return say(msg, "order %d is not in %s (0..%d)", s->field, rel,
			    z->norders - 1);
		} else {
			sum += (double)z->nr_free[s->field];
		}
	}
	if (!picked)
		return no_zone(s, rel, names, msg);
	*out = sum;
	return 0;
}

/* extfrag[ZONE].ORDER and unusable[ZONE].ORDER: one zone's index. */
static int
get_extfrag(struct values *v, const struct spec *s, double *out, char *msg)
{
	const char		*rel = s->src->file;
	const struct buf	*b = file(v, rel, msg);
	struct extfrag		 ef;
	char			 names[200] = "";

	if (!b)
		return -1;
	if (parse_extfrag(b->p, b->len, &ef) < 0)
		return parse_failed(msg, rel, ef.err);
	for (int i = 0; i < ef.nzones; i++) {
		const struct ef_zone	*z = &ef.zone[i];

		add_name(names, sizeof(names), z->node, z->name);
		if (!zone_picked(s, z->node, z->name))
			continue;
		if (s->field >= z->norders || s->field >= P_MAX_ORDERS)
			return say(msg, "order %d is not in %s (0..%d)", s->field, rel,
			    z->norders - 1);
		*out = z->milli[s->field] / 1000.0;
		return 0;
	}
	return no_zone(s, rel, names, msg);
}

/* pagetypeinfo.pageblock_order, [ZONE].TYPE, [ZONE,type=T].ORDER */
static int
get_pagetypeinfo(struct values *v, const struct spec *s, double *out, char *msg)
{
	const char		*rel = "proc/pagetypeinfo";
	const struct buf	*b = file(v, rel, msg);
	struct pagetypeinfo	*p;
	char			 names[200] = "";
	int			 r = -1;

	if (!b)
		return -1;
	p = xmalloc(sizeof(*p));
	if (parse_pagetypeinfo(b->p, b->len, p) < 0) {
		parse_failed(msg, rel, p->err);
		goto out;
	}
	if (!(s->given & A_ZONE)) {
		if (!strcmp(s->key, "pageblock_order"))
			*out = p->pageblock_order, r = 0;
		else if (!strcmp(s->key, "pages_per_block"))
			*out = (double)p->pages_per_block, r = 0;
		goto out;
	}
	if (s->given & A_TYPE) {
		for (int i = 0; i < p->nfree; i++) {
			const struct pti_free	*f = &p->free[i];

			add_name(names, sizeof(names), f->node, f->zone);
			if (!zone_picked(s, f->node, f->zone) || strcmp(f->type, s->type))
				continue;
			if (s->field >= p->norders || s->field >= P_MAX_ORDERS) {
				say(msg, "order %d is not in %s (0..%d)", s->field, rel, p->norders - 1);
				goto out;
			}
			*out = (double)f->count[s->field];
			r = 0;
			goto out;
		}
		say(msg, "no zone '%s' with type '%s' on node %d in %s", s->zone, s->type,
		    s->given & A_NODE ? s->node : 0, rel);
		goto out;
	}
	for (int i = 0; i < p->nblocks; i++) {
		const struct pti_blocks	*bl = &p->blocks[i];

		add_name(names, sizeof(names), bl->node, bl->zone);
		if (!zone_picked(s, bl->node, bl->zone))
			continue;
		for (int t = 0; t < p->ntypes; t++)
			if (!strcmp(p->types[t], s->key)) {
				*out = (double)bl->count[t];
				r = 0;
				goto out;
			}
		say(msg, "%s has no migrate type '%s'", rel, s->key);
		goto out;
	}
	no_zone(s, rel, names, msg);
out:
	free(p);
	return r;
}

/* ---- processes, pressure, cpu -------------------------------------------- */

/* The pid a status[]/statm[] spec means: PID, or the lowest pid whose
 * status says Name: COMM.  0 with msg set when there is none. */
static long
pick_pid(struct values *v, const struct spec *s, char *msg)
{
	long		 best = 0;
	struct dirent	*de;
	DIR		*d;
	int		 fd;

	if (s->given & A_PID)
		return s->pid;
	fd = openat(v->dirfd, "proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || !(d = fdopendir(fd))) {
		say(msg, "proc: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return 0;
	}
	while ((de = readdir(d))) {
		char			 rel[300], *end, m[MSG_LEN];
		long			 pid = strtol(de->d_name, &end, 10);
		const struct buf	*b;
		struct pidstatus	 ps;

		if (*end || pid <= 0 || (best && pid > best))
			continue;
		snprintf(rel, sizeof(rel), "proc/%ld/status", pid);
		if ((b = file(v, rel, m)) && parse_pidstatus(b->p, b->len, &ps) == 0 &&
		    !strcmp(ps.name, s->name))
			best = pid;
	}
	closedir(d);
	if (!best)
		say(msg, "no process named '%s' under proc", s->name);
	return best;
}

/* proc/PID/NAME of the process the spec picks, read; NULL with msg set.
 * rel (64 bytes) gets the path. */
static const struct buf *
pid_file(struct values *v, const struct spec *s, const char *name, char *rel,
    char *msg)
{
	long	pid = pick_pid(v, s, msg);

	if (!pid)
		return NULL;
	snprintf(rel, 64, "proc/%ld/%s", pid, name);
	return file(v, rel, msg);
}

static const char *const status_fields[] = {
	"Pid", "Threads", "VmRSS", "RssAnon", "RssFile", "RssShmem", "VmSwap", NULL,
};

/* status[PID].KEY */
static int
get_status(struct values *v, const struct spec *s, double *out, char *msg)
{
	char			 rel[64];
	const struct buf	*b = pid_file(v, s, "status", rel, msg);
	struct pidstatus	 ps;

	if (!b)
		return -1;
	if (parse_pidstatus(b->p, b->len, &ps) < 0)
		return parse_failed(msg, rel, ps.err);
	{
		const double	f[] = { ps.pid, ps.threads, (double)ps.vm_rss,
		    (double)ps.rss_anon, (double)ps.rss_file,
		    (double)ps.rss_shmem, (double)ps.vm_swap };

		*out = f[s->field];
	}
	return 0;
}

static const char *const statm_fields[] = {
	"size", "resident", "shared", "text", "lib", "data", "dt", NULL,
};

/* statm[PID].KEY */
static int
get_statm(struct values *v, const struct spec *s, double *out, char *msg)
{
	char			 rel[64];
	const struct buf	*b = pid_file(v, s, "statm", rel, msg);
	struct statm		 sm;

	if (!b)
		return -1;
	if (parse_statm(b->p, b->len, &sm) < 0)
		return parse_failed(msg, rel, sm.err);
	{
		const u64	f[] = { sm.size, sm.resident, sm.shared, sm.text, sm.lib,
		    sm.data, sm.dt };

		*out = (double)f[s->field];
	}
	return 0;
}

static const char *const psi_fields[] = { "avg10", "avg60", "avg300", "total", NULL };

/* psi[some|full].KEY */
static int
get_psi(struct values *v, const struct spec *s, double *out, char *msg)
{
	const char		*rel = "proc/pressure/memory";
	const struct buf	*b = file(v, rel, msg);
	const struct psi_line	*l;
	struct psi		 p;

	if (!b)
		return -1;
	if (parse_psi(b->p, b->len, &p) < 0)
		return parse_failed(msg, rel, p.err);
	l = !strcmp(s->line, "some") ? &p.some : &p.full;
	if (!l->present)
		return say(msg, "%s has no '%s' line", rel, s->line);
	{
		const double	f[] = { l->avg10, l->avg60, l->avg300, (double)l->total_us };

		*out = f[s->field];
	}
	return 0;
}

static const char *const cpu_fields[] = {
	"user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal",
	"ncpus", NULL,
};

/* cpustat.KEY */
static int
get_cpustat(struct values *v, const struct spec *s, double *out, char *msg)
{
	const char		*rel = "proc/stat";
	const struct buf	*b = file(v, rel, msg);
	struct cpustat		 cs;

	if (!b)
		return -1;
	if (parse_cpustat(b->p, b->len, &cs) < 0)
		return parse_failed(msg, rel, cs.err);
	{
		const u64	f[] = { cs.user, cs.nice, cs.system, cs.idle, cs.iowait,
		    cs.irq, cs.softirq, cs.steal, (u64)cs.ncpus };

		*out = (double)f[s->field];
	}
	return 0;
}

/* ---- trace and plain files ------------------------------------------------ */

/* trace.count[EVENT] */
static int
get_trace_count(struct values *v, const struct spec *s, double *out, char *msg)
{
	const char		*rel = "sys/kernel/tracing/trace";
	const struct buf	*b = file(v, rel, msg);
	struct trace		 tr = { 0 };
	u64			 x = 0;
	int			 r = 0;

	if (!b)
		return -1;
	if (parse_trace(b->p, b->len, &tr) < 0)
		r = parse_failed(msg, rel, tr.err);
	else {
		kv_get(&tr.counts, s->path, &x);
		*out = (double)x;
	}
	trace_free(&tr);
	return r;
}

/* Whether c may be part of a word a number must not be glued to. */
static bool
wordch(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	    c == '_' || c == '.';
}

/* The first number in text: decimal (sign and fraction allowed) or 0x
 * hexadecimal, not glued to a word before it ("ttyS1" has none). */
static bool
first_number(const char *p, const char *end, double *out)
{
	for (const char *q = p; q < end; q++) {
		const char	*d = q + (*q == '-');
		char		*e;

		if ((q > p && wordch(q[-1])) || d >= end || *d < '0' || *d > '9')
			continue;
		if (d + 2 < end && d[0] == '0' && (d[1] == 'x' || d[1] == 'X'))
			*out = (double)strtoull(d + 2, &e, 16) * (*q == '-' ? -1 : 1);
		else
			*out = strtod(q, &e);
		return true;
	}
	return false;
}

/* file[PATH] and uptime */
static int
get_file(struct values *v, const struct spec *s, double *out, char *msg)
{
	const char		*rel = s->src->file ? s->src->file : s->path;
	const struct buf	*b;

	while (*rel == '/')
		rel++;
	if (!(b = file(v, rel, msg)))
		return -1;
	if (!first_number(b->p, b->p + b->len, out))
		return say(msg, "no number in %s", rel);
	return 0;
}

/* kv[PATH].KEY: the number after KEY on the first "KEY VALUE" (or "KEY:
 * VALUE") line of any file, blanks before KEY allowed, such as a
 * variant's debugfs statistics. */
static int
get_kv(struct values *v, const struct spec *s, double *out, char *msg)
{
	const char		*rel = s->path, *p, *end, *q;
	size_t			 kl = strlen(s->key);
	const struct buf	*b;
	char			*e;

	while (*rel == '/')
		rel++;
	if (!(b = file(v, rel, msg)))
		return -1;
	for (p = b->p, end = b->p + b->len; p < end; p = q + 1) {
		if (!(q = memchr(p, '\n', (size_t)(end - p))))
			q = end;
		while (p < q && (*p == ' ' || *p == '\t'))
			p++;
		if ((size_t)(q - p) > kl && !memcmp(p, s->key, kl) &&
		    (p[kl] == ' ' || p[kl] == '\t' || p[kl] == ':')) {
			const char	*n = p + kl + (p[kl] == ':');

			while (n < q && (*n == ' ' || *n == '\t'))
				n++;
			*out = strtod(n, &e);
			if (e == n || e > q)
				return say(msg, "%s: '%s' is not followed by a number", rel, s->key);
			return 0;
		}
		if (q == end)
			break;
	}
	return say(msg, "no '%s' line in %s", s->key, rel);
}

/* ---- the sources ----------------------------------------------------------- */

/* Longer names first where one is a prefix of another. */
static const struct source sources[] = {
	{ "vmstat", "vmstat.KEY", "proc/vmstat", 0, 0, K_NAME, NULL, get_vmstat },
	{ "meminfo", "meminfo.KEY", "proc/meminfo", 0, 0, K_NAME, NULL, get_meminfo },
	{ "lru_gen_full", "lru_gen_full[memcg=ID|/PATH,node=N,seq=N|min|max,type=anon|file,"
	  "tier=N].FIELD", "sys/kernel/debug/lru_gen_full",
	  A_MEMCG | A_NODE | A_SEQ | A_TYPE | A_TIER, 0, K_FIELD, lgf_fields, get_lrugen },
	{ "lru_gen", "lru_gen[memcg=ID|/PATH,node=N,seq=N|min|max].FIELD",
	  "sys/kernel/debug/lru_gen", A_MEMCG | A_NODE | A_SEQ, 0, K_FIELD, lg_fields,
	  get_lrugen },
	{ "zoneinfo", "zoneinfo[ZONE,node=N].KEY", "proc/zoneinfo", A_ZONE | A_NODE, A_ZONE,
	  K_NAME, NULL, get_zoneinfo },
	{ "buddyinfo", "buddyinfo[ZONE,node=N].ORDER|pages", "proc/buddyinfo",
	  A_ZONE | A_NODE, A_ZONE, K_ORDER, NULL, get_buddyinfo },
	{ "extfrag", "extfrag[ZONE,node=N].ORDER", "sys/kernel/debug/extfrag/extfrag_index",
	  A_ZONE | A_NODE, A_ZONE, K_ORDER, NULL, get_extfrag },
	{ "unusable", "unusable[ZONE,node=N].ORDER", "sys/kernel/debug/extfrag/unusable_index",
	  A_ZONE | A_NODE, A_ZONE, K_ORDER, NULL, get_extfrag },
	{ "pagetypeinfo", "pagetypeinfo[ZONE,node=N,type=T].ORDER|TYPE", "proc/pagetypeinfo",
	  A_ZONE | A_NODE | A_TYPE, A_ZONE, K_NAME, NULL, get_pagetypeinfo },
	{ "memory.stat", "memory.stat[CGROUP].KEY", NULL, A_CGROUP, A_CGROUP, K_NAME, NULL,
	  get_memstat },
	{ "status", "status[PID|name=COMM].FIELD", NULL, A_PID | A_NAME, A_PID, K_FIELD,
	  status_fields, get_status },
	{ "statm", "statm[PID|name=COMM].FIELD", NULL, A_PID | A_NAME, A_PID, K_FIELD,
	  statm_fields, get_statm },
	{ "psi", "psi[some|full].FIELD", "proc/pressure/memory", A_LINE, A_LINE, K_FIELD,
	  psi_fields, get_psi },
	{ "cpustat", "cpustat.FIELD", "proc/stat", 0, 0, K_FIELD, cpu_fields, get_cpustat },
	{ "uptime", "uptime", "proc/uptime", 0, 0, K_NONE, NULL, get_file },
	{ "trace.count", "trace.count[EVENT]", "sys/kernel/tracing/trace", A_EVENT, A_EVENT,
	  K_NONE, NULL, get_trace_count },
	{ "file", "file[PATH]", NULL, A_PATH, A_PATH, K_NONE, NULL, get_file },
	{ "kv", "kv[PATH].KEY", NULL, A_PATH, A_PATH, K_NAME, NULL, get_kv },
};
#define NSOURCES (int)(sizeof(sources) / sizeof(sources[0]))

const char *const values_files[] = {
	"proc/vmstat", "proc/meminfo", "sys/kernel/debug/lru_gen",
	"sys/kernel/debug/lru_gen_full", "proc/zoneinfo", "proc/buddyinfo",
	"sys/kernel/debug/extfrag/extfrag_index",
	"sys/kernel/debug/extfrag/unusable_index", "proc/pagetypeinfo",
	"sys/fs/cgroup/memory.stat", "sys/fs/cgroup/*/memory.stat",
	"proc/[0-9]*/status", "proc/[0-9]*/statm", "proc/pressure/memory",
	"proc/stat", "proc/uptime", "sys/kernel/tracing/trace", NULL,
};

/* ---- the spec parser --------------------------------------------------------- */

/* "a, b, c" from a NULL-terminated list. */
static void
join(char *out, size_t n, const char *const *list)
{
	size_t	k = 0;

	out[0] = '\0';
	for (int i = 0; list[i] && k < n; i++)
		k += (size_t)snprintf(out + k, n - k, "%s%s", i ? ", " : "", list[i]);
}

/* Whether s is a non-empty run of decimal digits (at most 18). */
static bool
number(const char *s, size_t n)
{
	if (n == 0 || n > 18)
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

/* The number s[0..n) if it is one below lim, else -1 (atoi of 18 digits
 * overflows an int). */
static int
small(const char *s, size_t n, int lim)
{
	long long	v;

	if (!number(s, n))
		return -1;
	v = strtoll(s, NULL, 10);
	return v < lim ? (int)v : -1;
}

/* Whether s is a word of letters, digits, '_' and '-' (zone, type, event
 * and process names). */
static bool
word(const char *s, size_t n)
{
	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!wordch(s[i]) && s[i] != '-')
			return false;
	return true;
}

/* Copy a counted string into a fixed field; false when it does not fit. */
static bool
put(char *dst, size_t size, const char *s, size_t n)
{
	if (n >= size)
		return false;
	memcpy(dst, s, n);
	dst[n] = '\0';
	return true;
}

/* A path under the root: not empty, no '..' component, no blanks. */
static const char *
path_bad(const char *p)
{
	const char	*c, *e;

	for (c = p; *c; c++)
		if (*c == ' ' || *c == '\t' || *c == '\n')
			return "blanks in a path";
	for (c = p; *c; c = *e ? e + 1 : e) {
		e = strchrnul(c, '/');
		if (e - c == 2 && c[0] == '.' && c[1] == '.')
			return "'..' would leave the root";
	}
	return NULL;
}

/* The name an A_* argument is written with. */
static const char *
arg_name(unsigned a)
{
	static const char *const names[] = {
		"zone", "node", "memcg", "type", "tier", "seq", "pid", "name",
		"cgroup", "event", "path", "line",
	};

	for (int i = 0; i < 12; i++)
		if (a == 1u << i)
			return names[i];
	return "?";
}

/* Store one argument of kind a with value (val, n). */
static int
set_arg(struct spec *s, unsigned a, const char *val, size_t n, char *msg)
{
	const char	*src = s->src->name, *why;
	bool		 ok = true;

	if (s->given & a)
		return say(msg, "%s= given twice", arg_name(a));
	s->given |= a;
	switch (a) {
	case A_ZONE:
		ok = word(val, n) && put(s->zone, sizeof(s->zone), val, n);
		break;
	case A_NODE:
		ok = (s->node = small(val, n, 1 << 16)) >= 0;
		break;
	case A_TIER:
		ok = (s->tier = small(val, n, 1 << 16)) >= 0;
		break;
	case A_MEMCG:
		ok = (number(val, n) || (n && val[0] == '/')) &&
		    put(s->memcg, sizeof(s->memcg), val, n);
		break;
	case A_TYPE:
		ok = word(val, n) && put(s->type, sizeof(s->type), val, n);
		if (ok && !strcmp(src, "lru_gen_full") && strcmp(s->type, "anon") &&
		    strcmp(s->type, "file"))
			return say(msg, "type '%s' (want anon or file)", s->type);
		break;
	case A_SEQ:
		if (n == 3 && !memcmp(val, "min", 3))
			s->seqkind = SEQ_MIN;
		else if (n == 3 && !memcmp(val, "max", 3))
			s->seqkind = SEQ_MAX;
		else if ((ok = number(val, n)))
			s->seq = strtoull(val, NULL, 10);
		break;
	case A_PID:
		ok = number(val, n) && (s->pid = atol(val)) > 0;
		break;
	case A_NAME:
		ok = put(s->name, sizeof(s->name), val, n) && n > 0;
		break;
	case A_LINE:
		ok = put(s->line, sizeof(s->line), val, n) &&
		    (!strcmp(s->line, "some") || !strcmp(s->line, "full"));
		if (!ok)
			return say(msg, "'%.*s' (want some or full)", (int)n, val);
		break;
	case A_EVENT:
		ok = word(val, n) && put(s->path, sizeof(s->path), val, n);
		break;
	case A_CGROUP:
	case A_PATH:
		if (!put(s->path, sizeof(s->path), val, n))
			return say(msg, "path too long");
		if ((why = path_bad(s->path)))
			return say(msg, "%s: %s", s->path, why);
		if (a == A_PATH && !s->path[strspn(s->path, "/")])
			return say(msg, "empty path");
		break;
	}
	if (!ok)
		return say(msg, "bad %s '%.*s'", arg_name(a), (int)n, val);
	return 0;
}

/* The A_* named by (name, n) among the source's, or 0. */
static unsigned
arg_kind(const struct source *src, const char *name, size_t n)
{
	for (unsigned a = 1; a <= A_LINE; a <<= 1)
		if ((src->args & a) && strlen(arg_name(a)) == n && !memcmp(arg_name(a), name, n))
			return a;
	return 0;
}

/* Parse the text between [ and ]. */
static int
parse_args(struct spec *s, const char *p, size_t len, char *msg)
{
	const struct source	*src = s->src;
	unsigned		 raw =
	    src->bare & (A_PATH | A_CGROUP | A_EVENT);

	if (len == 0)
		return say(msg, "empty [] (want %s)", src->usage);
	if (!src->args)
		return say(msg, "%s takes no [...] (want %s)", src->name, src->usage);
	if (raw) {
		/* a path or an event is the whole text (may hold ',' or '=') */
		size_t	k = strlen(arg_name(raw));

		if (len > k && !memcmp(p, arg_name(raw), k) && p[k] == '=')
			p += k + 1, len -= k + 1;
		return set_arg(s, raw, p, len, msg);
	}
	while (len > 0) {
		const char	*comma = memchr(p, ',', len), *eq;
		size_t		 n = comma ? (size_t)(comma - p) : len;
		unsigned	 a;

		eq = memchr(p, '=', n);
		if (eq) {
			a = arg_kind(src, p, (size_t)(eq - p));
			if (!a)
				return say(msg, "unknown argument '%.*s' (want %s)", (int)(eq - p), p,
				    src->usage);
			if (set_arg(s, a, eq + 1, n - (size_t)(eq - p) - 1, msg) < 0)
				return -1;
		} else {
			if (!src->bare)
				return say(msg, "'%.*s' needs a name (want %s)", (int)n, p, src->usage);
			if (set_arg(s, src->bare, p, n, msg) < 0)
				return -1;
		}
		if (!comma)
			break;
		p = comma + 1;
		len -= n + 1;
		if (len == 0)
			return say(msg, "empty argument after ','");
	}
	return 0;
}

/* The checks that need both the args and the key. */
static int
check_combination(struct spec *s, char *msg)
{
	const char	*src = s->src->name;

	if (s->src->key == K_FIELD) {
		int	i;

		for (i = 0; s->src->fields[i]; i++)
			if (!strcmp(s->key, s->src->fields[i]))
				break;
		if (!s->src->fields[i]) {
			char	want[200];

			join(want, sizeof(want), s->src->fields);
			return say(msg, "unknown field '%s' (want %s)", s->key, want);
		}
		s->field = i;
	} else if (s->src->key == K_ORDER) {
		if (!strcmp(src, "buddyinfo") && !strcmp(s->key, "pages"))
			s->field = -1;
		else if ((s->field = small(s->key, strlen(s->key), P_MAX_ORDERS)) < 0)
			return say(msg, "'%s' is not a page order (want 0..%d%s)", s->key,
			    P_MAX_ORDERS - 1, strcmp(src, "buddyinfo") ? "" : " or pages");
	}
	if (!strncmp(src, "lru_gen", 7)) {
		bool	tierf = s->field >= LG_REFAULTED;

		if ((s->given & (A_TYPE | A_TIER)) && !tierf)
			return say(msg, "%s= goes with refaulted, evicted, protected, avg_refaulted "
			    "or avg_total", s->given & A_TYPE ? "type" : "tier");
		if ((s->given & A_SEQ) && (s->field == LG_MAX || s->field == LG_MIN ||
		    s->field == LG_MEMCG))
			return say(msg, "seq= picks a generation: not with %s", s->key);
	}
	if ((!strcmp(src, "extfrag") || !strcmp(src, "unusable")) && !(s->given & A_ZONE))
		return say(msg, "name a zone (want %s)", s->src->usage);
	if (!strcmp(src, "pagetypeinfo")) {
		if (!(s->given & A_ZONE) && strcmp(s->key, "pageblock_order") &&
		    strcmp(s->key, "pages_per_block"))
			return say(msg, "name a zone for '%s' (want %s, or pageblock_order, "
			    "pages_per_block)", s->key, s->src->usage);
		if ((s->given & A_TYPE) && !number(s->key, strlen(s->key)))
			return say(msg, "'%s' is not a page order (want 0..%d)", s->key,
			    P_MAX_ORDERS - 1);
		if (s->given & A_TYPE)
			s->field = small(s->key, strlen(s->key), P_MAX_ORDERS);
		if ((s->given & A_TYPE) && s->field < 0)
			return say(msg, "'%s' is not a page order (want 0..%d)", s->key,
			    P_MAX_ORDERS - 1);
	}
	if ((!strcmp(src, "status") || !strcmp(src, "statm")) &&
	    !(s->given & (A_PID | A_NAME)))
		return say(msg, "name a process (want %s)", s->src->usage);
	if ((s->given & A_PID) && (s->given & A_NAME))
		return say(msg, "a pid or a name, not both");
	if (!strcmp(src, "psi") && !(s->given & A_LINE))
		return say(msg, "which line? (want %s)", s->src->usage);
	if ((!strcmp(src, "trace.count") || !strcmp(src, "file") || !strcmp(src, "kv")) &&
	    !(s->given & s->src->bare))
		return say(msg, "missing [...] (want %s)", s->src->usage);
	return 0;
}

/* Parse spec into s; -1 with msg (without the spec) on error. */
static int
parse_spec(const char *spec, struct spec *s, char *msg)
{
	const struct source	*src = NULL;
	const char		*p;
	size_t			 n;

	memset(s, 0, sizeof(*s));
	for (int i = 0; i < NSOURCES && !src; i++) {
		n = strlen(sources[i].name);
		if (!strncmp(spec, sources[i].name, n) &&
		    (spec[n] == '\0' || spec[n] == '[' || spec[n] == '.'))
			src = &sources[i];
	}
	if (!src) {
		char	want[300] = "";
		size_t	k = 0;

		n = strcspn(spec, "[.");
		for (int i = 0; i < NSOURCES; i++)
			k += (size_t)snprintf(want + k, sizeof(want) - k, "%s%s",
			    i ? ", " : "", sources[i].name);
		if (n == 0)
			return say(msg, "empty source (want %s)", want);
		return say(msg, "unknown source '%.*s' (want %s)", (int)(n > 40 ? 40 : n), spec,
		    want);
	}
	s->src = src;
	p = spec + strlen(src->name);
	if (*p == '[') {
		const char	*close = strchr(p, ']');

		if (!close)
			return say(msg, "missing ']'");
		if (parse_args(s, p + 1, (size_t)(close - p - 1), msg) < 0)
			return -1;
		p = close + 1;
	}
	if (*p == '.') {
		p++;
		if (src->key == K_NONE)
			return say(msg, "%s takes no key (want %s)", src->name, src->usage);
		n = strlen(p);
		if (n == 0)
			return say(msg, "empty key after '.' (want %s)", src->usage);
		if (strpbrk(p, " \t\n[]=,") || !put(s->key, sizeof(s->key), p, n))
			return say(msg, "bad key '%.40s'", p);
	} else if (*p) {
		return say(msg, "unexpected '%.20s' (want %s)", p, src->usage);
	} else if (src->key != K_NONE) {
		return say(msg, "missing .%s (want %s)", src->key == K_ORDER ? "ORDER" :
		    src->key == K_FIELD ? "FIELD" : "KEY", src->usage);
	}
	return check_combination(s, msg);
}

/* ---- the API ------------------------------------------------------------------ */

/* "SPEC: message", the spec cut if very long. */
static int
fail(char *err, size_t errlen, const char *spec, const char *msg)
{
	snprintf(err, errlen, "%.60s%s: %s", spec, strlen(spec) > 60 ? "..." : "", msg);
	return -1;
}

/* Syntax only. */
int
values_check(const char *spec, char *err, size_t errlen)
{
	struct spec	s;
	char		msg[MSG_LEN];

	if (parse_spec(spec, &s, msg) < 0)
		return fail(err, errlen, spec, msg);
	return 0;
}

/* Open the root directory; a recording is not a root. */
struct values *
values_open(const char *root, char *err, size_t errlen)
{
	struct values	*v;
	struct stat	 st;
	int		 fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", root, strerror(errno));
		return NULL;
	}
	if (fstatat(fd, REC_HEADER, &st, 0) == 0) {
		snprintf(err, errlen, "%s is a recording: name one snapshot, %s/%s/SEQ", root,
		    root, REC_SNAPS);
		close(fd);
		return NULL;
	}
	v = xcalloc(1, sizeof(*v));
	v->dirfd = fd;
	return v;
}

/* Parse, then read through the source's getter. */
int
values_get(struct values *v, const char *spec, double *out, char *err,
    size_t errlen)
{
	struct spec	s;
	char		msg[MSG_LEN];

	if (parse_spec(spec, &s, msg) < 0 || s.src->get(v, &s, out, msg) < 0)
		return fail(err, errlen, spec, msg);
	return 0;
}

/* Drop the cached files. */
void
values_refresh(struct values *v)
{
	for (int i = 0; i < v->nfiles; i++) {
		free(v->files[i].rel);
		buf_free(&v->files[i].b);
	}
	free(v->files);
	v->files = NULL;
	v->nfiles = 0;
}

/* Close and free. */
void
values_close(struct values *v)
{
	if (!v)
		return;
	values_refresh(v);
	close(v->dirfd);
	free(v);
}

/* Install the read hook. */
void
values_on_read(struct values *v, void (*fn)(const char *, void *), void *arg)
{
	v->on_read = fn;
	v->on_read_arg = arg;
}

/* One value from a root. */
int
values_read(const char *root, const char *spec, double *out, char *err,
    size_t errlen)
{
	struct values	*v = values_open(root, err, errlen);
	int		 r;

	if (!v)
		return -1;
	r = values_get(v, spec, out, err, errlen);
	values_close(v);
	return r;
}

/* Integers as integers; the rest with 15 significant digits. */
void
values_format(char *out, size_t n, double v)
{
	if (v == (double)(long long)v && v > -9.2e18 && v < 9.2e18)
		snprintf(out, n, "%lld", (long long)v);
	else
		snprintf(out, n, "%.15g", v);
}
