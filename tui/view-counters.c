/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * view-counters.c - counter modes: the mm rss counters (anon, file, shmem,
 * swap) of the largest processes as /proc/PID/status reports them (the
 * exact sums of fs/proc/task_mmu.c:42-44) next to /proc/PID/stat's
 * resident pages, the approximate read (get_mm_rss() at
 * fs/proc/array.c:613: the shared part without the per-cpu ones), and the
 * gap between them; statm is exact too in 7.2 (fs/proc/task_mmu.c:98-103)
 * and only ranks the processes; each mm's counter mode: the
 * RssCounterMode line of a kernel that has one (the rss-lazy variant:
 * atomic until a second thread, then percpu; a switch is marked as it is
 * seen, with the global count from vmstat rss_percpu_switch), else the mode
 * the kernel's version implies for every mm (percpu_counter since Linux
 * 6.2); and global vmstat counters next to the sum of the per-zone
 * counters of /proc/zoneinfo, the bound on the per-cpu deltas not yet
 * folded in (stat threshold x cpus), and their rates.
 */
#include <stdlib.h>
#include <string.h>

#include "tui.h"
#include "util.h"

#define MAX_PROCS	64
/*
 * Each /proc file read through a live mirror costs the guest a request:
 * the whole process list (statm of every pid) is ranked at most once a
 * two seconds; in between only the status of the largest few is refreshed.
 */
#define RANK_EVERY_MS	2000
#define PROCS_EVERY_FRAME 6
#define MARK_MS		5000	/* how long a mode switch stays marked */
#define MAX_SEEN	256	/* processes whose last mode is remembered */

struct proc_row {
	int		 pid;
	u64		 resident;	/* statm, pages */
	struct pidstatus st;
	bool		 have_status;
	u64		 stat_rss;	/* /proc/PID/stat, pages */
	bool		 have_stat;
};

/* Global counters shown, and whether zoneinfo has them per zone or node. */
static const struct { const char *name; bool zone; } gcs[] = {
	{ "nr_free_pages", true }, { "nr_zone_inactive_anon", true },
	{ "nr_zone_active_anon", true }, { "nr_zone_inactive_file", true },
	{ "nr_zone_active_file", true }, { "nr_mlock", true },
	{ "nr_anon_pages", false }, { "nr_file_pages", false },
	{ "nr_shmem", false }, { "nr_mapped", false },
	{ "nr_slab_unreclaimable_B", false }, { "nr_page_table_pages", false },
};
#define NGCS (int)(sizeof(gcs) / sizeof(gcs[0]))

static struct buf fbuf;
static struct vmstat vs;
static struct zoneinfo zi;
static struct proc_row *procs;
static int nprocs, nprocs_all;
static struct rate grates[NGCS];
static int rc_vm, rc_zi, rc_proc, ncpus;
static bool any_mode;

/* The last mode seen per pid, and when it last changed. */
struct mode_seen {
	int	pid;
	char	mode[16];
	double	changed_at, seen_at;
};
static struct mode_seen seen[MAX_SEEN];
static int nseen;
/* The mode every mm has on a kernel without a mode line ("" if unknown). */
static char implied[16];
static struct osrelease osrel;
static bool have_rel;
/* vmstat rss_percpu_switch, and when it last rose. */
static u64 switches;
static bool have_switches;
static double switches_rose_at;
static u64 switches_rose_by;
/* The time of the data last read. */
static double data_now;

/* Nothing to set up before the first update. */
static void
counters_init(void)
{
	procs = xcalloc(MAX_PROCS, sizeof(*procs));
}

struct scan_arg {
	struct source	*src;
	struct proc_row	 all[1024];
	int		 n;
};

/* Directory callback: keep numeric entries with their statm resident. */
static void
add_pid(const char *name, void *arg)
{
	struct scan_arg	*a = arg;
	char		 rel[64];
	struct statm	 sm;
	char		*end;
	long		 pid = strtol(name, &end, 10);

	if (*end || pid <= 0 || a->n >= (int)(sizeof(a->all) / sizeof(a->all[0])))
		return;
	snprintf(rel, sizeof(rel), "proc/%ld/statm", pid);
	if (source_read(a->src, rel, &fbuf) < 0 || parse_statm(fbuf.p, fbuf.len, &sm) < 0 ||
	    sm.resident == 0)
		return;		/* gone, or a kernel thread */
	a->all[a->n].pid = (int)pid;
	a->all[a->n].resident = sm.resident;
	a->n++;
}

/* Larger resident first, then lower pid. */
static int
by_rss(const void *x, const void *y)
{
	const struct proc_row	*a = x, *b = y;

	if (a->resident != b->resident)
		return a->resident < b->resident ? 1 : -1;
	return a->pid - b->pid;
}

/* The remembered mode of pid, or a new slot for it (the least recently
 * seen one when all are taken). */
static struct mode_seen *
seen_of(int pid)
{
	struct mode_seen	*old = NULL;

	for (int i = 0; i < nseen; i++) {
		if (seen[i].pid == pid)
			return &seen[i];
		if (!old || seen[i].seen_at < old->seen_at)
			old = &seen[i];
	}
	if (nseen < MAX_SEEN)
		old = &seen[nseen++];
	memset(old, 0, sizeof(*old));
	old->pid = pid;
	return old;
}

/* Remember pid's reported mode; a change from a known mode is a switch. */
static void
note_mode(int pid, const char *mode, double now)
{
	struct mode_seen	*m = seen_of(pid);

	if (m->mode[0] && strcmp(m->mode, mode) != 0)
		m->changed_at = now;
	snprintf(m->mode, sizeof(m->mode), "%.15s", mode);
	m->seen_at = now;
}

/* Whether pid's mode changed less than MARK_MS before now. */
static bool
mode_switched(int pid, double now)
{
	for (int i = 0; i < nseen; i++)
		if (seen[i].pid == pid)
			return seen[i].changed_at > 0 && now - seen[i].changed_at < MARK_MS;
	return false;
}

/* Re-read the status of procs[i]; returns whether it could be read. */
static bool
read_status(struct source *src, int i, double now)
{
	char	path[64];

	struct pidstat	ps;

	snprintf(path, sizeof(path), "proc/%d/status", procs[i].pid);
	procs[i].have_status = source_read(src, path, &fbuf) == 0 &&
	    parse_pidstatus(fbuf.p, fbuf.len, &procs[i].st) == 0;
	snprintf(path, sizeof(path), "proc/%d/stat", procs[i].pid);
	procs[i].have_stat = source_read(src, path, &fbuf) == 0 &&
	    parse_pidstat(fbuf.p, fbuf.len, &ps) == 0;
	procs[i].stat_rss = procs[i].have_stat ? ps.rss : 0;
	if (procs[i].have_status && procs[i].st.mode[0]) {
		any_mode = true;
		note_mode(procs[i].pid, procs[i].st.mode, now);
	}
	return procs[i].have_status;
}

/*
 * The mode of every mm on a kernel whose status has no mode line, from its
 * release: mm rss counters are percpu_counters since Linux 6.2 (commit
 * f1a7941243c1, "mm: convert mm's rss stats into percpu_counter"), atomic
 * counters with per-thread caches before.
 */
static void
read_release(struct source *src)
{
	have_rel = source_read(src, "proc/sys/kernel/osrelease", &fbuf) == 0 &&
	    parse_osrelease(fbuf.p, fbuf.len, &osrel) == 0;
	if (!have_rel)
		implied[0] = '\0';
	else
		snprintf(implied, sizeof(implied), "%s",
		    osrel.major > 6 || (osrel.major == 6 && osrel.minor >= 2) ? "percpu" : "atomic");
}

/*
 * Rank the processes by resident size and read their status, or, less
 * than RANK_EVERY_MS after the last ranking (and without a jump in time),
 * refresh only the status of the largest PROCS_EVERY_FRAME.
 */
static void
read_procs(struct source *src, double now, bool jumped)
{
	static struct scan_arg	a;
	static double		last_rank = -1e18;

	if (jumped)
		nseen = 0;
	if (!jumped && now >= last_rank && now - last_rank < RANK_EVERY_MS) {
		for (int i = 0; i < nprocs && i < PROCS_EVERY_FRAME; i++)
			read_status(src, i, now);
		return;
	}
	last_rank = now;
	read_release(src);
	a.src = src;
	a.n = 0;
	rc_proc = source_list(src, "proc", add_pid, &a);
	qsort(a.all, (size_t)a.n, sizeof(a.all[0]), by_rss);
	nprocs_all = a.n;
	nprocs = a.n < MAX_PROCS ? a.n : MAX_PROCS;
	any_mode = false;
	for (int i = 0; i < nprocs; i++) {
		procs[i] = a.all[i];
		read_status(src, i, now);
	}
}

/* Sum of a counter over zones (zone counters) or nodes (node counters). */
static u64
zone_sum(const char *name, bool zone)
{
	u64	sum = 0;

	for (int i = 0; i < zi.nzones; i++)
		sum += kv_val(zone ? &zi.zone[i].stats : &zi.zone[i].node_stats, name);
	return sum;
}

/* Largest possible unfolded per-cpu delta of a zone counter. */
static u64
drift_bound(void)
{
	u64	b = 0;

	for (int i = 0; i < zi.nzones; i++)
		for (int c = 0; c < zi.zone[i].ncpus; c++)
			b += (u64)zi.zone[i].pcp[c].threshold;
	return b;
}

/* Read vmstat, zoneinfo and the processes. */
static void
counters_update(struct ctx *c)
{
	rc_vm = source_read(c->src, "proc/vmstat", &fbuf);
	if (rc_vm == 0)
		parse_vmstat(fbuf.p, fbuf.len, &vs);
	rc_zi = source_read(c->src, "proc/zoneinfo", &fbuf);
	if (rc_zi == 0)
		parse_zoneinfo(fbuf.p, fbuf.len, &zi);
	ncpus = 0;
	for (int i = 0; i < zi.nzones; i++)
		if (zi.zone[i].ncpus > ncpus)
			ncpus = zi.zone[i].ncpus;
	for (int i = 0; i < NGCS; i++)
		rate_feed(&grates[i], kv_val(&vs.kv, gcs[i].name), c->now_ms, c->jumped || rc_vm);
	if (rc_vm == 0) {
		u64	n;
		bool	have = kv_get(&vs.kv, "rss_percpu_switch", &n);

		if (c->jumped || !have)
			switches_rose_at = 0;
		else if (have_switches && n > switches) {
			switches_rose_at = c->now_ms;
			switches_rose_by = n - switches;
		}
		have_switches = have;
		switches = n;
	}
	data_now = c->now_ms;
	read_procs(c->src, c->now_ms, c->jumped);
}

/* Process table then global counters. */
static void
counters_draw(struct frame *f)
{
	int	line = 0, x;
	char	r[16];

	fr_printf(f, line++, 0, C_TITLE, "mm rss counters (kB)  %d processes with memory, largest first",
	    nprocs_all);
	fr_printf(f, line++, 0, C_DIM, "%6s %-12s %3s %8s %8s %7s %6s %8s %5s %s", "pid", "name",
	    "thr", "RssAnon", "RssFile", "RssShmem", "Swap", "stat", "gap", "mode");
	if (rc_proc < 0)
		fr_text(f, line++, 0, C_WARN, "proc: not listable");
	for (int i = 0; i < nprocs; i++) {
		const struct proc_row	*p = &procs[i];
		const struct pidstatus	*s = &p->st;
		/* in double: a guest's counters may be anything up to 2^64 */
		double			 gap = ((double)s->rss_anon + (double)s->rss_file +
		    (double)s->rss_shmem) - (double)p->stat_rss * 4;

		if (!p->have_status) {
			fr_printf(f, line++, 0, C_DIM, "%6d (status not readable)", p->pid);
			continue;
		}
		if (p->have_stat)
			x = fr_printf(f, line, 0, C_NORM, "%6d %-12.12s %3d %8llu %8llu %7llu %6llu %8.0f %+5.0f ",
			    p->pid, s->name, s->threads, s->rss_anon, s->rss_file, s->rss_shmem,
			    s->vm_swap, (double)p->stat_rss * 4, gap);
		else
			x = fr_printf(f, line, 0, C_NORM, "%6d %-12.12s %3d %8llu %8llu %7llu %6llu %8s %5s ",
			    p->pid, s->name, s->threads, s->rss_anon, s->rss_file, s->rss_shmem,
			    s->vm_swap, "-", "-");

		if (s->mode[0] && mode_switched(p->pid, data_now))
			fr_printf(f, line, x, C_MARK, ">%s", s->mode);
		else
			fr_text(f, line, x, s->mode[0] || implied[0] ? C_NORM : C_DIM,
			    s->mode[0] ? s->mode : implied[0] ? implied : "-");
		line++;
	}
	if (any_mode && have_switches)
		x = fr_printf(f, line, 0, C_DIM, "mode: from status; >: switched < %d s ago; rss_percpu_switch %llu",
		    MARK_MS / 1000, switches);
	else if (any_mode)
		x = fr_printf(f, line, 0, C_DIM, "mode: from status; >: switched < %d s ago", MARK_MS / 1000);
	else if (implied[0])
		x = fr_printf(f, line, 0, C_DIM, "mode: implied by Linux %d.%d (%s).  gap = status - stat",
		    osrel.major, osrel.minor,
		    strcmp(implied, "percpu") ? "atomic before 6.2" : "percpu since 6.2");
	else
		x = fr_text(f, line, 0, C_DIM, "mode: not exposed by this kernel.  gap = status - stat resident");
	if (have_switches && switches_rose_at > 0 && data_now - switches_rose_at < MARK_MS)
		fr_printf(f, line, x + 1, C_MARK, "+%llu", switches_rose_by);
	line++;
	line++;
	fr_printf(f, line++, 0, C_TITLE, "vmstat vs zoneinfo (pages), %d cpus; bound = stat threshold x cpus",
	    ncpus);
	if (rc_vm < 0 || rc_zi < 0) {
		fr_text(f, line++, 0, C_WARN, rc_vm < 0 ? "proc/vmstat not readable"
		    : "proc/zoneinfo not readable");
		return;
	}
	fr_printf(f, line++, 0, C_DIM, "%-24s %11s %11s %8s %8s %10s", "counter", "vmstat",
	    "zones/nodes", "diff", "+-bound", "rate/s");
	for (int i = 0; i < NGCS; i++) {
		u64	g, zs = zone_sum(gcs[i].name, gcs[i].zone);

		if (!kv_get(&vs.kv, gcs[i].name, &g))
			continue;
		if (grates[i].valid)
			fmt_count(r, sizeof(r), grates[i].per_s);
		else
			snprintf(r, sizeof(r), "-");
		fr_printf(f, line++, 0, C_NORM, "%-24s %11llu %11llu %+8.0f %8llu %10s", gcs[i].name,
		    g, zs, (double)g - (double)zs, gcs[i].zone ? drift_bound() : 0ULL, r);
	}
}

/* No keys of its own. */
static int
counters_key(int ch)
{
	return 0;
}

static const char *const counters_files[] = {
	"proc/vmstat", "proc/zoneinfo", "proc/[0-9]*/statm", "proc/[0-9]*/status",
	"proc/[0-9]*/stat",
	"proc/sys/kernel/osrelease",
	NULL,
};

const struct view view_counters = {
	.name = "counters",
	.title = "Counters",
	.init = counters_init,
	.update = counters_update,
	.draw = counters_draw,
	.key = counters_key,
	.help = "rss counters of the largest processes; vmstat vs zones",
	.files = counters_files,
};
