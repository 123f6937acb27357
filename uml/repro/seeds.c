/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * seeds.c - the five seed threads' tables (../shared/seeds/) and the
 * experiment that stands for each: figures as the threads print them.
 * docs/reproduce.md says, per seed, what the thread measured, what the
 * kit measures instead and why the scales differ.
 */
#include <stddef.h>

#include "repro.h"

const struct repro_seed repro_seeds[] = {
	{
		.id = "000",
		.file = "000_e18c9aaacbf8c5aa.txt",
		.title = "MGLRU: batch the counter updates of aging",
		.thread_setup = "memtier_benchmark on memcached (16 threads) in a 4G "
		    "memcg, EPYC 7K62; average of 18 runs",
		.kit_setup = "lru-batch, one kernel, debugfs lru_gen_batch_aging "
		    "flipped between rounds; kvbench in a memcg smaller than its "
		    "working set (aging and eviction throughout), and file pages "
		    "read through descriptors so tiers fill (protected pages)",
		.variant = "lru-batch",
		.script = "repro-000",
		.mem_mb = 512,
		.timeout = 600,
		.boots = 4, .quick_boots = 1,
		.col = { "perfolio", "batched" },
		.thread_col = { "before", "after" },
		.boot = { { .cpus = 2, .args = "", .quick_args = "--quick --rounds 2" } },
		.row = {
			{ .name = "Ops/sec", .key = "ops_per_s", .unit = "ops/s",
			  .thread = { "44017.78", "44687.08" },
			  .note = "no memcached or memtier in the guest: kvbench "
			    "(get/set on an anonymous table) in a memory cgroup "
			    "below its store, aged every 50 ms and swapping to zram, "
			    "stands for them" },
			{ .name = "aging during that run: ns per moved page (in-kernel)",
			  .key = "aging_ns_per_page", .unit = "ns", .lower_better = 1,
			  .note = "inc_min_seq()'s own time per folio it moved "
			    "(debugfs lru_gen_aging_cost); the thread gives none" },
			{ .name = "aging's share of that run (in-kernel)",
			  .key = "aging_us_per_s", .unit = "us per s", .lower_better = 1,
			  .note = "how much of the run aging is: the bound on what "
			    "batching it can change in ops/s" },
			{ .name = "aging a full oldest generation: ns per moved page",
			  .key = "aging_full_ns_per_page", .unit = "ns", .lower_better = 1 },
			{ .name = "protected pages, into an inactive generation: ns per page",
			  .key = "protect_ns_per_page", .unit = "ns", .lower_better = 1,
			  .note = "the v1 cover letter's case: eviction where every "
			    "folio takes sort_folio()'s protected path (tiers full)" },
			{ .name = "protected pages, into an active generation: ns per page",
			  .key = "protect_active_ns_per_page", .unit = "ns",
			  .lower_better = 1 },
		},
	},
	{
		.id = "001",
		.file = "001_94ad7baabf7797b6.txt",
		.title = "mm: lazy per-cpu rss counters",
		.thread_setup = "lmbench fork_proc, exec_proc, shell_proc; the "
		    "thread prints 'ms' for lmbench's microseconds; machine not "
		    "stated",
		.kit_setup = "rss-lazy, one kernel, rss_counter.mode flipped between "
		    "rounds (latched per mm at its creation); procbench fork, exec "
		    "and shell pinned to a guest CPU; in-kernel cost per mm and per "
		    "counter update",
		.variant = "rss-lazy",
		.script = "repro-001",
		.mem_mb = 256,
		.timeout = 600,
		.boots = 3, .quick_boots = 1,
		.col = { "percpu", "revert", "lazy", "atomic" },
		.thread_col = { "base", "base+revert", "base+lazy_percpu_counter" },
		.boot = {
			{ .cpus = 2, .args = "", .quick_args = "--quick" },
			{ .cpus = 1, .args = "--cpus-sweep --rounds 4", .quick_args = "--quick --cpus-sweep" },
			{ .cpus = 4, .args = "--cpus-sweep --rounds 4", .quick_args = "--quick --cpus-sweep" },
			{ .cpus = 8, .args = "--cpus-sweep --rounds 4", .quick_args = "--quick --cpus-sweep" },
			{ .cpus = 16, .args = "--cpus-sweep --rounds 4", .quick_args = "--quick --cpus-sweep" },
		},
		.row = {
			{ .name = "fork_proc", .key = "fork_us", .unit = "us", .lower_better = 1,
			  .thread = { "427.4", "394.1", "413.9" } },
			{ .name = "exec_proc", .key = "exec_us", .unit = "us", .lower_better = 1,
			  .thread = { "2205.1", "2042.2", "2072.0" } },
			{ .name = "shell_proc", .key = "shell_us", .unit = "us", .lower_better = 1,
			  .thread = { "3180.9", "2963.7", "3010.7" } },
			{ .name = "rss counters per mm, 1 CPU (in-kernel)", .key = "permm_ns",
			  .unit = "ns", .lower_better = 1, .group = 1 },
			{ .name = "rss counters per mm, 2 CPUs (in-kernel)", .key = "permm_ns",
			  .unit = "ns", .lower_better = 1, .group = 0 },
			{ .name = "rss counters per mm, 4 CPUs (in-kernel)", .key = "permm_ns",
			  .unit = "ns", .lower_better = 1, .group = 2 },
			{ .name = "rss counters per mm, 8 CPUs (in-kernel)", .key = "permm_ns",
			  .unit = "ns", .lower_better = 1, .group = 3 },
			{ .name = "rss counters per mm, 16 CPUs (in-kernel)", .key = "permm_ns",
			  .unit = "ns", .lower_better = 1, .group = 4,
			  .note = "UML's CPUs beyond the host's 2 are threads that "
			    "share them: wall times there mean little, the in-kernel "
			    "per-mm cost (percpu allocation and check_mm()'s sums "
			    "grow with nr_cpu_ids) still does" },
			{ .name = "one rss update, single-threaded (Jan Kara's point 3)",
			  .key = "update_ns", .unit = "ns", .lower_better = 1 },
		},
	},
	{
		.id = "002",
		.file = "002_7323bccda471bfcc.txt",
		.title = "mm: compaction: update the cc->nr_migratepages when "
		    "allocating or freeing the freepages",
		.thread_setup = "mmtests thpcompact on an Arm64 server, Linux 6.7 "
		    "before and after the fix",
		.kit_setup = "compaction-noacct, one kernel, compaction.noacct "
		    "flipped between rounds; a zone fragmented the same way each "
		    "round, then order-9 movable allocations with direct "
		    "compaction, kept and freed as thpcompact's huge pages are",
		.variant = "compaction-noacct",
		.script = "repro-002",
		.mem_mb = 256,
		.timeout = 600,
		/* rounds repeat exactly within a boot: the spread is between
		 * boots, so --quick is two boots of one round */
		.boots = 3, .quick_boots = 2,
		.col = { "before", "fixed" },
		.thread_col = { "k6.7", "k6.7_patched" },
		.boot = { { .cpus = 1, .args = "", .quick_args = "--quick" } },
		.row = {
			{ .name = "Compaction pages isolated", .key = "isolated",
			  .unit = "pages", .lower_better = 1, .thread = { "120692036", "118160797" } },
			{ .name = "Compaction migrate scanned", .key = "migrate_scanned",
			  .unit = "pages", .lower_better = 1,
			  .thread = { "131210329", "154093268" },
			  .note = "the thread's rise comes from the scanners meeting "
			    "later over a long fault load; each kit round starts "
			    "from a reset state, so that cannot accumulate here" },
			{ .name = "Compaction free scanned", .key = "free_scanned",
			  .unit = "pages", .lower_better = 1,
			  .thread = { "1090587971", "1080632536" } },
			{ .name = "Compact scan efficiency", .key = "efficiency",
			  .unit = "%", .thread = { "12.03", "14.26" } },
			{ .name = "order-9 allocations that succeeded", .key = "allocated",
			  .unit = "allocations",
			  .note = "UML has no THP: a test driver's order-9 "
			    "GFP_TRANSHUGE allocations, kept until the round ends, "
			    "stand for thpcompact's huge-page faults" },
			{ .name = "direct compaction runs (compact_stall)", .key = "stalls",
			  .unit = "runs" },
			{ .name = "time in the allocator", .key = "alloc_us", .unit = "us",
			  .lower_better = 1,
			  .note = "the thread saw no clear latency change either "
			    "(fault-both -6.7% .. +5.5%)" },
			{ .name = "free scanner passes (in-kernel)", .key = "free_passes",
			  .unit = "pageblocks", .lower_better = 1 },
			{ .name = "free pages isolated, nothing migrated to them (in-kernel)",
			  .key = "free_unused", .unit = "pages", .lower_better = 1,
			  .note = "the thread's \"too many freepages isolated\": "
			    "free_taken - migrated of the compaction tracepoints, "
			    "given back at the end of compact_zone(); it stands for "
			    "the pages-isolated row" },
			{ .name = "free-list searches (in-kernel)", .key = "fast_passes",
			  .unit = "searches", .lower_better = 1 },
		},
	},
	{
		.id = "003",
		.file = "003_f87a33638f33c165.txt",
		.title = "MGLRU aging with secondary MMUs: one notifier call or two",
		.thread_setup = "access_tracking_perf_test -l: x86 (32 vCPUs, "
		    "taskset -c 0-32) and arm64 (16 vCPUs); KVM's secondary MMU",
		.kit_setup = "uml-walk, one kernel, lru_gen_young_separate flipped "
		    "between rounds; a test secondary MMU with a young bitmap its "
		    "accesses set and a lock eviction takes for write",
		.variant = "uml-walk",
		.script = "repro-003",
		.mem_mb = 256,
		.timeout = 600,
		.boots = 3, .quick_boots = 1,
		.col = { "combined", "separate" },
		.thread_col = { "one notifier", "two notifiers" },
		.boot = { { .cpus = 2, .args = "", .quick_args = "--quick --rounds 2" } },
		.row = {
			{ .name = "lru_gen: Aging after writing to idle memory (x86)",
			  .key = "aging_idle_ms", .unit = "ms", .lower_better = 1,
			  .thread = { "0.922719935", "1.539957250" },
			  .note = "the thread's figures are seconds for a VM's memory "
			    "and KVM's MMU; the kit's are one 64 MiB guest process "
			    "and a test secondary MMU whose accesses set its bits" },
			{ .name = "lru_gen: Aging after writing to idle memory (arm64)",
			  .key = "aging_idle_ms", .unit = "ms", .lower_better = 1,
			  .thread = { "0.563424247", "0.971448688" } },
			{ .name = "lru_gen: Aging again, nothing accessed (x86)",
			  .key = "aging_cold_ms", .unit = "ms", .lower_better = 1,
			  .thread = { "0.829129877", "0.797475887" } },
			{ .name = "lru_gen avg pass duration, faulting in (arm64)",
			  .key = "aging_fault_ms", .unit = "ms", .lower_better = 1,
			  .thread = { "0.172128073", "0.175652974" },
			  .note = "the process faults from zram under a memory.max "
			    "while eviction unmaps (the test MMU's write lock)" },
			{ .name = "folio look-ups per idle aging (in-kernel)",
			  .key = "idle_lookups", .unit = "look-ups", .lower_better = 1,
			  .note = "get_pfn_folio() calls: combined pays one for "
			    "every PTE the secondary MMU may have seen young" },
			{ .name = "test_young calls per idle aging (in-kernel)",
			  .key = "idle_test_calls", .unit = "calls", .lower_better = 1 },
			{ .name = "clear_young calls per idle aging (in-kernel)",
			  .key = "idle_clear_calls", .unit = "calls", .lower_better = 1 },
			{ .name = "young callbacks that waited for eviction's lock",
			  .key = "fault_lock_waits", .unit = "waits", .lower_better = 1 },
		},
	},
	{
		.id = "004",
		.file = "004_7529ce34e608a6d7.txt",
		.title = "mm: fix vm-scalability regression in cgroup-aware "
		    "workingset code",
		.thread_setup = "LKP vm-scalability lru-file-readtwice, 23047a96d7cf "
		    "(the regression, -23%) against the fix 063f6715e77a; 2016, "
		    "no MGLRU",
		.kit_setup = "workingset-cost, one kernel: the switch re-creating "
		    "the regression's extra work (an approximation) and "
		    "lru_gen/enabled flipped between rounds; readtwice on the "
		    "guest's disk; in-kernel ns per page on each workingset path",
		.variant = "workingset-cost",
		.script = "repro-004",
		.mem_mb = 256,
		.timeout = 600,
		.boots = 3, .quick_boots = 1,
		.col = { "regressed_classic", "fixed_classic", "regressed_mglru",
			 "fixed_mglru" },
		.thread_col = { "23047a96d7cf", "063f6715e77a" },
		.base = { 0, 0, 0, 2 },
		.boot = { { .cpus = 2, .args = "", .quick_args = "--quick --rounds 2" } },
		.row = {
			{ .name = "vm-scalability.throughput", .key = "mb_per_s",
			  .unit = "MB/s", .thread = { "21621405", "24069657" },
			  .note = "the thread's figure is the sum over many workers "
			    "of a large machine; the kit's two readtwice workers" },
			{ .name = "eviction: ns per page (in-kernel)", .key = "evict_ns",
			  .unit = "ns", .lower_better = 1 },
			{ .name = "refault: ns per page (in-kernel)", .key = "refault_ns",
			  .unit = "ns", .lower_better = 1 },
			{ .name = "activation: ns per page (in-kernel)", .key = "activate_ns",
			  .unit = "ns", .lower_better = 1 },
			{ .name = "refaults", .key = "refaults", .unit = "pages",
			  .lower_better = 1,
			  .note = "context: the switch must not change the counts" },
			{ .name = "hook calls over 50 us (left out of the ns)",
			  .key = "long_calls", .unit = "calls", .lower_better = 1 },
		},
	},
	{ .id = NULL },
};

/*
 * How many of seed s's boots run at once when asked for jobs on a host
 * of ncpu CPUs: no more than give each guest CPU a host CPU of its own
 * (guests of one CPU: as many as asked, each pinned, bench_host_cpu()).
 * Two guest CPUs on one host CPU spin whenever the host preempts the
 * holder of a guest spinlock: seed 004's quick run (readtwice, 2 CPUs)
 * took 3.5-34 s pinned to one host CPU, both CPUs spinning in
 * __remove_mapping() for seconds, and 1.6-1.7 s unpinned.
 */
int
repro_jobs(const struct repro_seed *s, int jobs, int ncpu)
{
	int	g, most = 1;

	for (g = 0; g < REPRO_MAX_GROUPS && s->boot[g].cpus > 0; g++)
		if (s->boot[g].cpus > most)
			most = s->boot[g].cpus;
	if (most > 1 && jobs * most > ncpu)
		jobs = ncpu / most > 1 ? ncpu / most : 1;
	return jobs;
}
