/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Unit tests: compaction runs rebuilt from trace events (comprun.h) on the
 * captured fragment-and-compact run (tests/fixtures/compact), checked
 * against the fragment workload's own report of that run (vmstat deltas,
 * fragment.out), and on hand-made traces: interleaved tasks, runs with no
 * end, events outside any run, ranges at the edges of a zone.
 */
#include "tui-test.h"
#include "comprun.h"

static struct trace tr;
static struct cruns rs;

/* KEY=N from the fragment workload's report line. */
static u64
report(const char *key)
{
	size_t	 len, k = strlen(key);
	char	*b = fixture("compact/fragment.out", &len), *p = b;
	u64	 v = 0;

	b = realloc(b, len + 1);
	b[len] = '\0';
	for (p = b; (p = strstr(p, key)) != NULL; p += k)
		if ((p == b || p[-1] == ' ') && p[k] == '=') {
			v = strtoull(p + k + 1, NULL, 10);
			break;
		}
	if (!p)
		fail_msg("fragment.out has no %s", key);
	free(b);
	return v;
}

/* Parse a trace given as text. */
static void
parse(const char *text)
{
	assert_int_equal(parse_trace(text, strlen(text), &tr), 0);
}

/* The captured run: one, whole, its totals the workload's own. */
static void
test_fixture_totals(void **st)
{
	size_t			 len;
	char			*b = fixture("compact/sys/kernel/tracing/trace",
	    &len);
	struct cstate		 s;
	const struct crun	*r;

	assert_int_equal(parse_trace(b, len, &tr), 0);
	free(b);
	assert_int_equal(cruns_find(&tr, &rs), 1);
	r = &rs.run[0];
	assert_true(r->ended);
	assert_int_equal(r->pid, 44);		/* fragment-44 compacted */
	assert_int_equal(crun_event(&tr, &rs, 0, 0)->type, TEV_BEGIN);
	assert_int_equal(crun_event(&tr, &rs, 0, r->nev - 1)->type, TEV_END);
	/* begin, end and the isolate/migrate events between, nothing else */
	assert_int_equal(r->nev, 133);
	crun_state(&tr, &rs, 0, r->nev - 1, &s, NULL, 0, 1024);
	assert_true(s.begun && s.ended && s.sync);
	assert_string_equal(s.status, "complete");
	assert_int_equal(s.zone_start, 0);
	assert_int_equal(s.zone_end, 0x10000);
	assert_int_equal(s.mig, 0x6800);
	assert_int_equal(s.free, 0x6bb8);
	assert_int_equal(s.mig_scanned, report("migrate_scanned"));
	assert_int_equal(s.free_scanned, report("free_scanned"));
	assert_int_equal(s.mig_taken + s.free_taken, report("isolated"));
	/* what was isolated to migrate either moved or failed */
	assert_int_equal(s.migrated + s.failed, s.mig_taken);
	/* every free page taken became a migration target */
	assert_int_equal(s.free_taken, s.migrated);
	assert_true(s.ts_last - s.ts_begin > 0.082 && s.ts_last - s.ts_begin < 0.0822);
	(void)st;
}

/* Step by step: counts only grow, the scanners close in block by block,
 * and the blocks they covered never overlap. */
static void
test_fixture_steps(void **st)
{
	size_t		 len;
	char		*b = fixture("compact/sys/kernel/tracing/trace", &len);
	unsigned char	 blk[64];
	struct cstate	 prev, s;
	int		 n;

	assert_int_equal(parse_trace(b, len, &tr), 0);
	free(b);
	assert_int_equal(cruns_find(&tr, &rs), 1);
	n = rs.run[0].nev;
	crun_state(&tr, &rs, 0, 0, &prev, blk, 64, 1024);
	assert_int_equal(prev.mig, 0);
	assert_int_equal(prev.free, 0xfc00);
	assert_int_equal(prev.mig_scanned + prev.free_scanned + prev.migrated, 0);
	for (int k = 0; k < 64; k++)
		assert_int_equal(blk[k], 0);
	for (int i = 1; i < n; i++) {
		crun_state(&tr, &rs, 0, i, &s, blk, 64, 1024);
		assert_true(s.mig_scanned >= prev.mig_scanned);
		assert_true(s.free_scanned >= prev.free_scanned);
		assert_true(s.migrated >= prev.migrated && s.failed >= prev.failed);
		assert_true(s.mig >= prev.mig);
		assert_true(s.free / 1024 <= prev.free / 1024);
		assert_true(s.mig <= s.free);
		assert_true(s.ts_last >= prev.ts_last);
		for (int k = 0; k < 64; k++)
			assert_false((blk[k] & (CB_MIG | CB_MIG_TAKEN)) &&
			    (blk[k] & (CB_FREE | CB_FREE_TAKEN)));
		prev = s;
	}
	/* the first migrate block was scanned (1024 pages) with nothing to
	 * take; block 1 gave pages; the free scanner's first block gave pages;
	 * it passed over 0x8000-0xf3ff without scanning (free pageblocks) */
	assert_int_equal(blk[0], CB_MIG);
	assert_int_equal(blk[1], CB_MIG | CB_MIG_TAKEN);
	assert_int_equal(blk[63], CB_FREE | CB_FREE_TAKEN);
	for (int k = 0x8000 / 1024; k < 0xf400 / 1024; k++)
		assert_int_equal(blk[k], 0);
	assert_int_equal(blk[0x7800 / 1024], CB_FREE);	/* 1024 scanned, 0 taken */
	(void)st;
}

/* The first captured trace ticks in jiffies: one run all the same. */
static void
test_guest_fixture(void **st)
{
	size_t		 len;
	char		*b = fixture("guest/sys/kernel/tracing/trace", &len);
	struct cstate	 s;

	assert_int_equal(parse_trace(b, len, &tr), 0);
	free(b);
	assert_int_equal(cruns_find(&tr, &rs), 1);
	crun_state(&tr, &rs, 0, 1 << 30, &s, NULL, 0, 1024);
	assert_true(s.ended);
	assert_int_equal(s.mig_scanned, 10240);
	assert_int_equal(s.free_scanned, 15944);
	assert_int_equal(s.mig, 0x2800);
	assert_int_equal(s.free, 0x2800);
	(void)st;
}

/* Two tasks compacting at once, one twice: each event goes to its task's
 * run; a begin without an end is cut by the next begin; events before
 * any begin of their task, and other events, belong to no run. */
static void
test_interleaved(void **st)
{
	struct cstate	s;

	parse(
	    "  sh-30 [000] ..... 1.000000: mm_compaction_isolate_migratepages: range=(0x0 ~ 0x400) nr_scanned=1024 nr_taken=5\n"
	    "  sh-10 [000] ..... 1.000100: mm_compaction_begin: zone_start=0x0 migrate_pfn=0x0 free_pfn=0xfc00 zone_end=0x10000, mode=sync\n"
	    "  kcompactd0-20 [001] ..... 1.000200: mm_compaction_begin: zone_start=0x10000 migrate_pfn=0x10000 free_pfn=0x1fc00 zone_end=0x20000, mode=async\n"
	    "  sh-10 [000] ..... 1.000300: mm_compaction_isolate_migratepages: range=(0x0 ~ 0x200) nr_scanned=512 nr_taken=32\n"
	    "  kcompactd0-20 [001] ..... 1.000400: mm_compaction_isolate_migratepages: range=(0x10000 ~ 0x10400) nr_scanned=1024 nr_taken=64\n"
	    "  sh-10 [000] ..... 1.000500: mm_compaction_finished: node=0 zone=Normal   order=-1 ret=continue\n"
	    "  kcompactd0-20 [001] ..... 1.000600: mm_compaction_migratepages: nr_migrated=60 nr_failed=4\n"
	    "  sh-10 [000] ..... 1.000700: mm_compaction_migratepages: nr_migrated=30 nr_failed=2\n"
	    "  sh-10 [000] ..... 1.000800: mm_compaction_end: zone_start=0x0 migrate_pfn=0x200 free_pfn=0xfc00 zone_end=0x10000, mode=sync status=partial_skipped\n"
	    "  sh-10 [000] ..... 1.000900: mm_compaction_begin: zone_start=0x0 migrate_pfn=0x200 free_pfn=0xfc00 zone_end=0x10000, mode=sync\n"
	    "  sh-10 [000] ..... 1.001000: mm_compaction_begin: zone_start=0x0 migrate_pfn=0x400 free_pfn=0xf800 zone_end=0x10000, mode=sync\n"
	    "  sh-10 [000] ..... 1.001100: mm_compaction_isolate_freepages: range=(0xf800 ~ 0xfc00) nr_scanned=1024 nr_taken=16\n");
	assert_int_equal(cruns_find(&tr, &rs), 4);
	/* run 0: sh-10's first, its migratepages and not kcompactd's */
	assert_int_equal(rs.run[0].pid, 10);
	assert_int_equal(rs.run[0].nev, 4);
	assert_true(rs.run[0].ended);
	crun_state(&tr, &rs, 0, 99, &s, NULL, 0, 1024);
	assert_int_equal(s.mig_scanned, 512);
	assert_int_equal(s.migrated, 30);
	assert_int_equal(s.failed, 2);
	assert_string_equal(s.status, "partial_skipped");
	/* run 1: kcompactd, still in progress at the end of the buffer */
	assert_int_equal(rs.run[1].pid, 20);
	assert_int_equal(rs.run[1].nev, 3);
	assert_false(rs.run[1].ended);
	crun_state(&tr, &rs, 1, 99, &s, NULL, 0, 1024);
	assert_false(s.sync);
	assert_false(s.ended);
	assert_int_equal(s.mig, 0x10400);
	assert_int_equal(s.migrated, 60);
	/* run 2: begun again, cut by another begin: only its begin */
	assert_int_equal(rs.run[2].nev, 1);
	assert_false(rs.run[2].ended);
	/* run 3: the last begin and the free scanner's step */
	assert_int_equal(rs.run[3].nev, 2);
	crun_state(&tr, &rs, 3, 99, &s, NULL, 0, 1024);
	assert_int_equal(s.run_mig, 0x400);
	assert_int_equal(s.free, 0xf800);
	assert_int_equal(s.free_taken, 16);
	/* crun_event clamps */
	assert_int_equal(crun_event(&tr, &rs, 3, -5)->type, TEV_BEGIN);
	assert_int_equal(crun_event(&tr, &rs, 3, 99)->type, TEV_ISO_FREE);
	(void)st;
}

/* Without a readable pid, the cpu keeps tasks apart. */
static void
test_no_pid(void **st)
{
	parse(
	    "  kworker [001] ..... 2.000000: mm_compaction_begin: zone_start=0x0 migrate_pfn=0x0 free_pfn=0xfc00 zone_end=0x10000, mode=sync\n"
	    "  kworker [000] ..... 2.000001: mm_compaction_migratepages: nr_migrated=1 nr_failed=0\n"
	    "  kworker [001] ..... 2.000002: mm_compaction_migratepages: nr_migrated=2 nr_failed=0\n"
	    "  kworker [001] ..... 2.000003: mm_compaction_end: zone_start=0x0 migrate_pfn=0x0 free_pfn=0xfc00 zone_end=0x10000, mode=sync status=complete\n");
	assert_int_equal(tr.ev[0].pid, -1);
	assert_int_equal(cruns_find(&tr, &rs), 1);
	assert_int_equal(rs.run[0].nev, 3);
	assert_true(rs.run[0].ended);
	(void)st;
}

/* Block marks at the zone's edges and for ranges that scanned nothing. */
static void
test_blocks(void **st)
{
	unsigned char	blk[4];
	struct tev	e = { .type = TEV_ISO_MIGRATE, .a = 0x100, .b = 0x1400, .c = 10, .d = 0 };

	memset(blk, 0, sizeof(blk));
	/* zone from 0x1000, blocks of 0x400: the range starts before the
	 * zone and ends in block 0 */
	cblocks_apply(blk, 4, 0x1000, 0x400, &e);
	assert_memory_equal(blk, ((unsigned char[]){ CB_MIG, 0, 0, 0 }), 4);
	/* a range that runs past the last block stops there */
	e = (struct tev){ .type = TEV_ISO_FREE, .a = 0x1c00, .b = 0x9000, .c = 5, .d = 1 };
	cblocks_apply(blk, 4, 0x1000, 0x400, &e);
	assert_memory_equal(blk, ((unsigned char[]){ CB_MIG, 0, 0, CB_FREE | CB_FREE_TAKEN }), 4);
	/* nothing scanned, empty, below or above the zone, not an isolate
	 * range, no blocks: no marks */
	e = (struct tev){ .type = TEV_ISO_MIGRATE, .a = 0x1400, .b = 0x1800, .c = 0 };
	cblocks_apply(blk, 4, 0x1000, 0x400, &e);
	e = (struct tev){ .type = TEV_ISO_MIGRATE, .a = 0x1800, .b = 0x1800, .c = 3 };
	cblocks_apply(blk, 4, 0x1000, 0x400, &e);
	e = (struct tev){ .type = TEV_ISO_MIGRATE, .a = 0x0, .b = 0x1000, .c = 3 };
	cblocks_apply(blk, 4, 0x1000, 0x400, &e);
	e = (struct tev){ .type = TEV_ISO_MIGRATE, .a = 0x2000, .b = 0x2400, .c = 3 };
	cblocks_apply(blk, 4, 0x1000, 0x400, &e);
	e = (struct tev){ .type = TEV_ISO_FAST_FREE, .a = 0x1400, .b = 0x1800, .c = 3, .d = 3 };
	cblocks_apply(blk, 4, 0x1000, 0x400, &e);
	e = (struct tev){ .type = TEV_ISO_MIGRATE, .a = 0x1400, .b = 0x1800, .c = 3 };
	cblocks_apply(blk, 0, 0x1000, 0x400, &e);
	cblocks_apply(blk, 4, 0x1000, 0, &e);
	cblocks_apply(NULL, 4, 0x1000, 0x400, &e);
	assert_memory_equal(blk, ((unsigned char[]){ CB_MIG, 0, 0, CB_FREE | CB_FREE_TAKEN }), 4);
	(void)st;
}

/* fast_isolate_freepages counts but leaves the free scanner where it is. */
static void
test_fast_free(void **st)
{
	struct cstate	s = { 0 };
	struct tev	b = { .type = TEV_BEGIN, .a = 0, .b = 0, .c = 0xfc00, .d = 0x10000 };
	struct tev	f = { .type = TEV_ISO_FAST_FREE, .a = 0x3000, .b = 0x3400, .c = 7, .d = 6 };

	cstate_apply(&s, &b);
	cstate_apply(&s, &f);
	assert_int_equal(s.free, 0xfc00);
	assert_int_equal(s.free_scanned, 7);
	assert_int_equal(s.free_taken, 6);
	(void)st;
}

/* Run the comprun tests. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixture_totals),
		cmocka_unit_test(test_fixture_steps),
		cmocka_unit_test(test_guest_fixture),
		cmocka_unit_test(test_interleaved),
		cmocka_unit_test(test_no_pid),
		cmocka_unit_test(test_blocks),
		cmocka_unit_test(test_fast_free),
	};
	int	r = cmocka_run_group_tests_name("comprun", tests, NULL, NULL);

	trace_free(&tr);
	cruns_free(&rs);
	return r;
}
