/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * parse.h - parsers for the kernel text (and binary) files the TUI reads.
 *
 * These parsers, the MGLRU history model (lruhist.h), the value layer
 * (values.h) and the recording format (recfmt.h) make up one library,
 * build/lib/libumkit-parse.a, which the TUI, umkit-value, the launcher
 * (recordings, lab checks), the unit tests and the fuzzers all link, so
 * that every one of them reads a kernel file the same way.  It lives in
 * tui/ because these files were written for the TUI and tui/ is where
 * the code that reads a root directory (a mirror, a recording, /) is;
 * uml/ is the launcher and kernel side, and the fixed top-level layout
 * has no place for a library of its own.  It needs no curses: besides
 * libc it wants xmalloc/xrealloc/xstrdup from util.h, which each program
 * links from its own util.c.
 *
 * Every parser is a pure function of (buf, len): buf need not be
 * NUL-terminated and may be truncated or malformed anywhere.  A parser
 * never reads outside buf, never crashes, keeps whatever it could read in
 * its result, and returns 0 when everything was understood or -1 when
 * something was not; in that case the result's err field says what
 * (the first problem only, with its line number).
 *
 * Result structs are zero-initialised by the caller before first use and
 * may be passed to the same parser again (storage is reused); the ones
 * holding heap memory have a *_free function.
 */
#ifndef UMKIT_PARSE_H
#define UMKIT_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define PERR_LEN	160	/* room for one error message */
#define P_MAX_ZONES	16	/* zones (all nodes) kept per file */
#define P_MAX_ORDERS	16	/* page orders kept per zone */
#define P_MAX_TYPES	8	/* migrate types kept */
#define P_NAME_LEN	16	/* zone / migrate type names */

typedef unsigned long long u64;

/* ---- rdfile.c: whole files into buffers -------------------------------- */

/* A growable byte buffer (always NUL-terminated after a read). */
struct buf {
	char	*p;
	size_t	 len, cap;
};

/* Make room for need bytes plus a NUL. */
void	buf_reserve(struct buf *, size_t need);
/*
 * Read fd into out, after what it already holds: to EOF with read(2)
 * when want is 0, else with pread(2) from off until out holds want bytes
 * (or EOF).  The content is NUL-terminated.  Returns 0 or -errno.
 */
int	buf_read_fd(struct buf *out, int fd, size_t want, off_t off);
/* Replace out's content with all of file rel under directory dirfd
 * (one read loop: procfs and a mirror hand a file over whole).
 * Returns 0 or -errno. */
int	buf_read_at(struct buf *out, int dirfd, const char *rel);
/* Free the buffer's storage. */
void	buf_free(struct buf *);

/* ---- parse-util.c: shared helpers -------------------------------------- */

/* A counted string inside a parser's input. */
struct tok {
	const char	*s;
	size_t		 n;
};

/* A cursor over the lines of (buf, len). */
struct lines {
	const char	*p, *end;
	int		 lineno;
};

/* Start iterating over the lines of buf. */
void	lines_init(struct lines *, const char *buf, size_t len);
/* Next line without its '\n' into *line; 0 at the end of input. */
int	lines_next(struct lines *, struct tok *line);
/* Split s at blanks into at most max tokens; returns the count found
 * (more than max when the line had more, only max stored). */
int	tok_split(struct tok s, struct tok *toks, int max);
/* Whether t equals the C string s exactly. */
bool	tok_eq(struct tok t, const char *s);
/* Parse all of t as a decimal u64; false on anything else or overflow. */
bool	tok_u64(struct tok t, u64 *v);
/* Parse a decimal prefix of t; *rest gets what follows (may be empty). */
bool	tok_u64_prefix(struct tok t, u64 *v, struct tok *rest);
/* Parse all of t as a signed decimal (leading '-' allowed). */
bool	tok_s64(struct tok t, long long *v);
/* Parse all of t as hexadecimal with a "0x" prefix. */
bool	tok_hex(struct tok t, u64 *v);
/* Copy t into dst (size n), NUL-terminated and truncated to fit. */
void	tok_copy(char *dst, size_t n, struct tok t);
/* Read "Node N, zone NAME[,]" from the first four tokens of a line. */
bool	tok_node_zone(const struct tok *t, int n, int *node, char *name);
/* Whether (buf, len) was cut short: not empty and without a final
 * newline (procfs, sysfs and debugfs end every line with one).  Records
 * "line L: WHAT truncated (no final newline)" in err when it was. */
bool	cut_short(char *err, const char *buf, size_t len, int lineno, const char *what);
/* Record the first error: "line L: message" (L omitted when 0). */
void	perr(char *err, int lineno, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Files of one row per zone, "Node N, zone NAME  v0 v1 ...", one value
 * per page order (buddyinfo, extfrag_index, unusable_index).  For row z
 * (at most P_MAX_ZONES), slot() says where its node, name (P_NAME_LEN)
 * and number of orders go, and value() stores the value of each order
 * (at most P_MAX_ORDERS), false when the token is not one ("bad WHAT for
 * order K" ends the row).  zone_rows() returns the number of rows kept;
 * errors go to err as perr() records them ("line 3: expected 'Node N,
 * zone NAME counts...'", "buddyinfo truncated ...", "buddyinfo: no
 * zones").
 */
struct zone_row_ops {
	const char	*file;		/* "buddyinfo", "extfrag" */
	const char	*what;		/* "count", "index" */
	const char	*whats;		/* "counts", "indices" */
	/* where row z's node and name go */
	void		(*slot)(void *arg, int z, int **node, char **name, int **norders);
	bool		(*value)(void *arg, int z, int order, struct tok t);
};
int	zone_rows(const char *buf, size_t len, char *err, const struct zone_row_ops *,
	    void *arg);

/* A growable list of name/value pairs (vmstat, meminfo, zone stats). */
struct kv {
	char	name[48];
	u64	val;
};
struct kvlist {
	int		 n, cap;
	struct kv	*v;
};

/* Append one pair (name truncated to fit). */
void	kv_add(struct kvlist *, struct tok name, u64 val);
/* The value slot of name, added with value 0 when absent. */
u64	*kv_slot(struct kvlist *, struct tok name);
/* Look a name up; true and *val set when present. */
bool	kv_get(const struct kvlist *, const char *name, u64 *val);
/* The value of name, or 0 when absent. */
u64	kv_val(const struct kvlist *, const char *name);
/* Release the list's storage. */
void	kv_free(struct kvlist *);

/* ---- parse-vmstat.c: /proc/vmstat, cgroup memory.stat ------------------ */

struct vmstat {
	struct kvlist	kv;		/* "name value" in file order */
	char		err[PERR_LEN];
};
int	parse_vmstat(const char *buf, size_t len, struct vmstat *);
/* A cgroup v2 memory.stat file: "name value" lines too. */
int	parse_memstat(const char *buf, size_t len, struct vmstat *);

/* ---- parse-meminfo.c: /proc/meminfo ------------------------------------ */

struct meminfo {
	struct kvlist	kv;		/* values as printed (kB, or counts) */
	char		err[PERR_LEN];
};
int	parse_meminfo(const char *buf, size_t len, struct meminfo *);

/* ---- parse-lrugen.c: debugfs lru_gen and lru_gen_full ------------------ */

#define LG_MAX_GENS	8	/* MAX_NR_GENS is 4; room for variants */
#define LG_MAX_TIERS	4	/* MAX_NR_TIERS */
#define LG_MAX_NODES	8

/* One tier row of lru_gen_full: per type (anon, file) three values and
 * their marks: "RTx" (max_seq: avg refaulted, avg total), "rep"
 * (refaulted, evicted, protected) or "xxx" (none). */
struct lg_tier {
	int	tier;
	u64	v[2][3];
	char	mark[2][3];
};

/* One generation: seq, age and the pages of each type. */
struct lg_gen {
	u64		seq, age_ms;
	u64		pages[2];	/* [0] anon, [1] file */
	bool		gone[2];	/* 'x': seq < min_seq of the type */
	int		ntiers;
	struct lg_tier	tier[LG_MAX_TIERS];
};

struct lg_node {
	int		nid;
	int		ngens;
	struct lg_gen	gen[LG_MAX_GENS];
};

struct lg_memcg {
	u64		id;
	char		path[96];
	int		nnodes;
	struct lg_node	node[LG_MAX_NODES];
};

struct lrugen {
	int		 n, cap;	/* memcgs */
	struct lg_memcg	*memcg;
	bool		 full;		/* tier rows were seen */
	int		 mmstat_rows;	/* walk-stats rows seen (skipped) */
	char		 err[PERR_LEN];
};
int	parse_lrugen(const char *buf, size_t len, struct lrugen *);
void	lrugen_free(struct lrugen *);
/* The youngest generation's seq (max_seq); 0 without generations. */
u64	lg_max_seq(const struct lg_node *);
/* The oldest generation still holding pages of some type (min_seq):
 * the first one not marked gone for both types; the youngest when all
 * are. */
u64	lg_min_seq(const struct lg_node *);

/* ---- parse-zoneinfo.c: /proc/zoneinfo ---------------------------------- */

#define ZI_MAX_CPUS	64

struct zi_pcp {
	int	cpu;
	long	count, high, batch;
	int	threshold;		/* "vm stats threshold" (SMP only) */
};

struct zi_zone {
	int		node;
	char		name[P_NAME_LEN];
	u64		free, boost, min, low, high, promo;
	u64		spanned, present, managed, cma;
	u64		start_pfn;
	bool		has_start;	/* populated zones print start_pfn */
	struct kvlist	stats;		/* per-zone counters */
	struct kvlist	node_stats;	/* "per-node stats" (first zone) */
	int		ncpus;
	struct zi_pcp	pcp[ZI_MAX_CPUS];
};

struct zoneinfo {
	int		nzones;
	struct zi_zone	zone[P_MAX_ZONES];
	char		err[PERR_LEN];
};
int	parse_zoneinfo(const char *buf, size_t len, struct zoneinfo *);
void	zoneinfo_free(struct zoneinfo *);

/* ---- parse-buddyinfo.c: /proc/buddyinfo -------------------------------- */

struct bi_zone {
	int	node;
	char	name[P_NAME_LEN];
	int	norders;
	u64	nr_free[P_MAX_ORDERS];
};
struct buddyinfo {
	int		nzones;
	struct bi_zone	zone[P_MAX_ZONES];
	char		err[PERR_LEN];
};
int	parse_buddyinfo(const char *buf, size_t len, struct buddyinfo *);

/* ---- parse-pagetypeinfo.c: /proc/pagetypeinfo -------------------------- */

struct pti_free {
	int	node;
	char	zone[P_NAME_LEN];
	char	type[P_NAME_LEN];
	u64	count[P_MAX_ORDERS];
	bool	overflow[P_MAX_ORDERS];	/* ">100000" */
};
struct pti_blocks {
	int	node;
	char	zone[P_NAME_LEN];
	u64	count[P_MAX_TYPES];
};
struct pagetypeinfo {
	int			pageblock_order;
	u64			pages_per_block;
	int			norders;
	int			ntypes;
	char			types[P_MAX_TYPES][P_NAME_LEN];
	int			nfree;
	struct pti_free		free[P_MAX_ZONES * P_MAX_TYPES];
	int			nblocks;
	struct pti_blocks	blocks[P_MAX_ZONES];
	char			err[PERR_LEN];
};
int	parse_pagetypeinfo(const char *buf, size_t len, struct pagetypeinfo *);

/* ---- parse-extfrag.c: debugfs extfrag/extfrag_index -------------------- */

struct ef_zone {
	int	node;
	char	name[P_NAME_LEN];
	int	norders;
	int	milli[P_MAX_ORDERS];	/* index x 1000; -1000: would succeed */
};
struct extfrag {
	int		nzones;
	struct ef_zone	zone[P_MAX_ZONES];
	char		err[PERR_LEN];
};
int	parse_extfrag(const char *buf, size_t len, struct extfrag *);

/* ---- parse-trace.c: compaction events in tracing/trace ----------------- */

enum tev_type {
	TEV_BEGIN,		/* a=zone_start b=migrate_pfn c=free_pfn d=zone_end */
	TEV_END,		/* same, plus status */
	TEV_ISO_MIGRATE,	/* a=start b=end c=nr_scanned d=nr_taken */
	TEV_ISO_FREE,		/* same */
	TEV_ISO_FAST_FREE,	/* same */
	TEV_MIGRATE,		/* a=nr_migrated b=nr_failed */
	TEV_OTHER,		/* another mm_compaction_* event */
};

struct tev {
	double		ts;		/* seconds */
	int		cpu;
	int		pid;		/* of TASK-PID; -1 when unreadable */
	enum tev_type	type;
	u64		a, b, c, d;
	bool		sync;
	char		status[20];
};

struct trace {
	int		 n, cap;
	struct tev	*ev;		/* compaction events in file order */
	int		 other_lines;	/* events of other subsystems */
	struct kvlist	 counts;	/* events per name, every subsystem */
	char		 err[PERR_LEN];
};
int	parse_trace(const char *buf, size_t len, struct trace *);
void	trace_free(struct trace *);
/* Short name of an event type ("begin", "isolate_migrate", ...). */
const char *tev_name(enum tev_type);

/* ---- parse-kpageflags.c: /proc/kpageflags ------------------------------ */

enum kpc {
	KPC_UNREAD,		/* not covered by the input */
	KPC_HOLE,		/* KPF_NOPAGE: no struct page */
	KPC_FREE,		/* in the buddy allocator */
	KPC_MOVABLE,		/* on an LRU / anon / mapped: can migrate */
	KPC_UNMOVABLE,		/* slab, page table, reserved, other kernel */
};

#define KPF_BIT_LOCKED		0
#define KPF_BIT_LRU		5
#define KPF_BIT_SLAB		7
#define KPF_BIT_BUDDY		10
#define KPF_BIT_MMAP		11
#define KPF_BIT_ANON		12
#define KPF_BIT_SWAPBACKED	14
#define KPF_BIT_COMPOUND_TAIL	16
#define KPF_BIT_NOPAGE		20
#define KPF_BIT_PGTABLE		26
#define KPF_BIT_RESERVED	32

/* Classify npfn pages starting at first_pfn from kpageflags bytes that
 * start at that pfn; pages beyond the input are KPC_UNREAD.  A free
 * buddy block is its BUDDY head plus the flag-less pages up to the
 * largest aligned block the head can start.  err gets what was wrong. */
int	parse_kpageflags(const char *buf, size_t len, u64 first_pfn,
	    unsigned char *cls, size_t npfn, char *err);

/* A pageblock summarised from its pages' classes. */
struct kpf_block {
	unsigned	free, movable, unmovable, hole, unread;
};
/* The class drawn for a block: unmovable if any page is, else movable if
 * any page is, else free if any is, else hole / unread. */
enum kpc kpf_block_class(const struct kpf_block *);

/* ---- parse-proc.c: /proc/PID/status and statm, /proc/stat, PSI -------- */

struct pidstatus {
	char	name[32];
	int	pid, threads;
	u64	vm_rss, rss_anon, rss_file, rss_shmem, vm_swap;	/* kB */
	char	mode[32];	/* an Rss*Mode line when a kernel has one */
	char	err[PERR_LEN];
};
int	parse_pidstatus(const char *buf, size_t len, struct pidstatus *);

struct statm {
	u64	size, resident, shared, text, lib, data, dt;	/* pages */
	char	err[PERR_LEN];
};
int	parse_statm(const char *buf, size_t len, struct statm *);

/* /proc/PID/stat: the resident pages (field 24), the approximate read of
 * the rss counters in 7.2 (get_mm_rss(), fs/proc/array.c:613), where
 * statm and status are exact sums (fs/proc/task_mmu.c:42-44, 98-103). */
struct pidstat {
	int	pid;
	u64	rss;		/* pages */
	char	err[PERR_LEN];
};
int	parse_pidstat(const char *buf, size_t len, struct pidstat *);

/* /proc/sys/kernel/osrelease: "MAJOR.MINOR[.PATCH][-EXTRA]". */
struct osrelease {
	int	major, minor;
	char	err[PERR_LEN];
};
int	parse_osrelease(const char *buf, size_t len, struct osrelease *);

/* The aggregate "cpu" line of /proc/stat, in USER_HZ ticks. */
struct cpustat {
	u64	user, nice, system, idle, iowait, irq, softirq, steal;
	int	ncpus;		/* "cpuN" lines */
	char	err[PERR_LEN];
};
int	parse_cpustat(const char *buf, size_t len, struct cpustat *);

/* /proc/pressure/memory: "some" and "full" lines. */
struct psi_line {
	bool	present;
	double	avg10, avg60, avg300;
	u64	total_us;
};
struct psi {
	struct psi_line	some, full;
	char		err[PERR_LEN];
};
int	parse_psi(const char *buf, size_t len, struct psi *);

#endif
