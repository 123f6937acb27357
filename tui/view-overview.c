/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * view-overview.c - a summary of memory: /proc/meminfo as bars of
 * MemTotal, reclaim / workingset / swap rates from /proc/vmstat with a
 * sparkline each, PSI memory pressure, and CPU use from /proc/stat.
 */
#include <string.h>

#include "tui.h"
#include "util.h"

#define HLEN 60

static const char *const mem_rows[] = {
	"MemFree", "MemAvailable", "Cached", "Buffers", "AnonPages", "Shmem",
	"Active(anon)", "Inactive(anon)", "Active(file)", "Inactive(file)",
	"Unevictable", "Slab", "PageTables", "Dirty", "Writeback",
};
#define NMEM (int)(sizeof(mem_rows) / sizeof(mem_rows[0]))

static const char *const rate_rows[] = {
	"pgscan_kswapd", "pgscan_direct", "pgsteal_kswapd", "pgsteal_direct",
	"workingset_refault_anon", "workingset_refault_file",
	"workingset_activate_anon", "workingset_activate_file",
	"workingset_restore_anon", "workingset_restore_file",
	"pswpin", "pswpout", "pgfault", "pgmajfault",
};
#define NRATE (int)(sizeof(rate_rows) / sizeof(rate_rows[0]))

static struct buf fbuf;
static struct meminfo mi;
static struct vmstat vs;
static struct psi psi;
static struct cpustat cs, cs_prev;
static struct rate rates[NRATE];
static double hist[NRATE][HLEN];
static int nhist;
static double busy = -1;
static int rc_mi, rc_vm, rc_psi, rc_cs;

/* Nothing to set up before the first update. */
static void
overview_init(void)
{
}

/* Read meminfo, vmstat, PSI and stat; extend the rate histories. */
static void
overview_update(struct ctx *c)
{
	rc_mi = source_read(c->src, "proc/meminfo", &fbuf);
	if (rc_mi == 0)
		parse_meminfo(fbuf.p, fbuf.len, &mi);
	rc_vm = source_read(c->src, "proc/vmstat", &fbuf);
	if (rc_vm == 0)
		parse_vmstat(fbuf.p, fbuf.len, &vs);
	rc_psi = source_read(c->src, "proc/pressure/memory", &fbuf);
	if (rc_psi == 0)
		parse_psi(fbuf.p, fbuf.len, &psi);
	if (c->jumped)
		nhist = 0;
	for (int i = 0; i < NRATE; i++)
		rate_feed(&rates[i], kv_val(&vs.kv, rate_rows[i]), c->now_ms, c->jumped || rc_vm);
	if (rates[0].valid) {
		if (nhist == HLEN) {
			for (int i = 0; i < NRATE; i++)
				memmove(hist[i], hist[i] + 1, (HLEN - 1) * sizeof(double));
			nhist--;
		}
		for (int i = 0; i < NRATE; i++)
			hist[i][nhist] = rates[i].per_s;
		nhist++;
	}
	cs_prev = cs;
	rc_cs = source_read(c->src, "proc/stat", &fbuf);
	busy = -1;
	if (rc_cs == 0 && parse_cpustat(fbuf.p, fbuf.len, &cs) == 0 && !c->jumped) {
		u64	idle0 = cs_prev.idle + cs_prev.iowait, idle1 = cs.idle + cs.iowait;
		u64	all0 = idle0 + cs_prev.user + cs_prev.nice + cs_prev.system + cs_prev.irq +
		    cs_prev.softirq + cs_prev.steal;
		u64	all1 = idle1 + cs.user + cs.nice + cs.system + cs.irq + cs.softirq + cs.steal;

		if (cs_prev.idle && all1 > all0 && idle1 >= idle0)
			busy = 1.0 - (double)(idle1 - idle0) / (double)(all1 - all0);
	}
}

/* Meminfo bars, rates with sparklines, PSI and CPU. */
static void
overview_draw(struct frame *f)
{
	int	line = 0, bw = f->w >= 120 ? 40 : 20;
	u64	total = kv_val(&mi.kv, "MemTotal");
	char	a[16], b[16];

	if (rc_mi < 0) {
		fr_text(f, line++, 0, C_WARN, "proc/meminfo not readable");
	} else {
		fr_printf(f, line++, 0, C_TITLE, "memory  MemTotal %llu kB  (%.1f MiB)", total,
		    (double)total / 1024);
		for (int i = 0; i < NMEM; i++) {
			u64	v;

			if (!kv_get(&mi.kv, mem_rows[i], &v))
				continue;
			fr_printf(f, line, 0, C_NORM, "%-15s %9llu kB", mem_rows[i], v);
			fr_bar(f, line, 29, bw, total ? (double)v / (double)total : 0,
			    strstr(mem_rows[i], "anon") || !strcmp(mem_rows[i], "AnonPages") ?
			    C_ANON : C_FILE);
			fr_printf(f, line, 30 + bw, C_DIM, "%5.1f%%",
			    total ? 100.0 * (double)v / (double)total : 0.0);
			line++;
		}
		{
			u64	st = kv_val(&mi.kv, "SwapTotal"), sf = kv_val(&mi.kv, "SwapFree");

			fr_printf(f, line++, 0, C_NORM, "%-15s %9llu kB of %llu kB", "Swap used",
			    st - (sf < st ? sf : st), st);
		}
	}
	line++;
	fr_printf(f, line++, 0, C_TITLE, "%-26s %10s %10s  %s", "vmstat rates", "total", "per s",
	    "history");
	for (int i = 0; i < NRATE && rc_vm == 0; i++) {
		fmt_count(a, sizeof(a), (double)kv_val(&vs.kv, rate_rows[i]));
		if (rates[i].valid)
			fmt_count(b, sizeof(b), rates[i].per_s);
		else
			snprintf(b, sizeof(b), "-");
		fr_printf(f, line, 0, C_NORM, "%-26s %10s %10s", rate_rows[i], a, b);
		fr_spark(f, line, 50, f->w - 51, hist[i], nhist, C_TITLE);
		line++;
	}
	if (rc_vm < 0)
		fr_text(f, line++, 0, C_WARN, "proc/vmstat not readable");
	line++;
	if (rc_psi == 0 && psi.some.present)
		fr_printf(f, line++, 0, C_NORM,
		    "PSI memory  some %.2f %.2f %.2f  full %.2f %.2f %.2f  (avg10/60/300 %%)",
		    psi.some.avg10, psi.some.avg60, psi.some.avg300,
		    psi.full.avg10, psi.full.avg60, psi.full.avg300);
	else
		fr_text(f, line++, 0, C_DIM, "PSI memory: proc/pressure/memory not present");
	if (busy >= 0)
		fr_printf(f, line++, 0, C_NORM, "CPU  %d cpus, %.1f%% busy over the last interval",
		    cs.ncpus, 100 * busy);
	else if (rc_cs == 0)
		fr_printf(f, line++, 0, C_NORM, "CPU  %d cpus", cs.ncpus);
}

/* No keys of its own. */
static int
overview_key(int ch)
{
	return 0;
}

static const char *const overview_files[] = {
	"proc/meminfo", "proc/vmstat", "proc/pressure/memory", "proc/stat", NULL,
};

const struct view view_overview = {
	.name = "overview",
	.title = "Overview",
	.init = overview_init,
	.update = overview_update,
	.draw = overview_draw,
	.key = overview_key,
	.help = "meminfo, reclaim/workingset/swap rates, PSI, CPU",
	.files = overview_files,
};
