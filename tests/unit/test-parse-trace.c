/* SPDX-License-Identifier: GPL-2.0-only */
/* Unit tests: parse_trace on the guest's compaction trace and broken input. */
#include "tui-test.h"
#include "tui-fixture.h"

static struct trace tr;

/* Adapter for robust_rows(): a row per compaction event, then one per
 * event of another subsystem. */
static int
run(const char *b, size_t n, char *err, struct rows *out)
{
	int	r = parse_trace(b, n, &tr);

	memcpy(err, tr.err, PERR_LEN);
	for (int i = 0; i < tr.n; i++) {
		const struct tev	*e = &tr.ev[i];

		rows_add(out, "%s %.6f %d %d %llx %llx %llx %llx %d %s", tev_name(e->type), e->ts,
		    e->cpu, e->pid, e->a, e->b, e->c, e->d, e->sync, e->status);
	}
	for (int i = 0; i < tr.other_lines; i++)
		rows_add(out, "other");
	return r;
}

/* Every line but blank and '#' comment lines is an event. */
static bool
event_line(const char *l, size_t n)
{
	while (n && *l == ' ')
		l++, n--;
	return n && *l != '#';
}

/* Count the events of one type. */
static int
count(enum tev_type t)
{
	int	n = 0;

	for (int i = 0; i < tr.n; i++)
		n += tr.ev[i].type == t;
	return n;
}

/* Begin/end with zone bounds, both scanners' ranges, migrations. */
static void
test_fixture(void **st)
{
	size_t			 len;
	char			*b = fixture("guest/sys/kernel/tracing/trace",
	    &len);
	const struct tev	*e;

	assert_int_equal(parse_trace(b, len, &tr), 0);
	assert_int_equal(count(TEV_BEGIN), FX_TR_BEGINS);
	assert_int_equal(count(TEV_END), FX_TR_BEGINS);
	assert_true(count(TEV_ISO_MIGRATE) >= 1);
	assert_true(count(TEV_ISO_FREE) + count(TEV_ISO_FAST_FREE) >= 1);
	assert_int_equal(count(TEV_OTHER), FX_TR_OTHER);
	for (e = tr.ev; e->type != TEV_BEGIN; e++)
		;
	assert_int_equal(e->a, FX_TR_ZONE_START);
	assert_int_equal(e->d, FX_TR_ZONE_END);
	assert_true(e->b >= e->a && e->c <= e->d);
	for (int i = 0; i < tr.n; i++) {
		e = &tr.ev[i];
		if (e->type == TEV_ISO_MIGRATE || e->type == TEV_ISO_FREE) {
			assert_true(e->a <= e->b);
			assert_true(e->a + 1 > FX_TR_ZONE_START && e->b <= FX_TR_ZONE_END);
		}
		if (i)
			assert_true(e->ts >= tr.ev[i - 1].ts);
	}
	assert_string_equal(tr.ev[tr.n - 1].status, FX_TR_LAST_STATUS);
	free(b);
	(void)st;
}

/* Exact field values from hand-checked lines in the kernel's format. */
static void
test_lines(void **st)
{
	const char	in[] =
	    "# tracer: nop\n"
	    "   kcompactd0-20      [000] .....    12.500000: mm_compaction_isolate_freepages: range=(0xfc00 ~ 0xfe00) nr_scanned=512 nr_taken=32\n"
	    "           sh-57      [001] d..1.    12.345001: mm_compaction_end: zone_start=0x100 migrate_pfn=0x1400 free_pfn=0xf800 zone_end=0x10000, mode=async status=partial_skipped\n"
	    "           sh-57 [001] 13.000001: mm_compaction_migratepages: nr_migrated=19 nr_failed=1\n"
	    "           sh-57      [001] .....    14.000000: sched_switch: prev_comm=sh\n"
	    "           sh-57      [001] .....    14.000000: mm_compaction_suitable: node=0 zone=Normal   order=3 ret=continue\n";

	assert_int_equal(parse_trace(in, sizeof(in) - 1, &tr), 0);
	assert_int_equal(tr.n, 4);
	assert_int_equal(tr.other_lines, 1);
	assert_int_equal(tr.ev[0].type, TEV_ISO_FREE);
	assert_int_equal(tr.ev[0].a, 0xfc00);
	assert_int_equal(tr.ev[0].b, 0xfe00);
	assert_int_equal(tr.ev[0].c, 512);
	assert_int_equal(tr.ev[0].d, 32);
	assert_int_equal(tr.ev[0].cpu, 0);
	assert_int_equal(tr.ev[0].pid, 20);
	assert_int_equal(tr.ev[1].pid, 57);
	assert_int_equal(tr.ev[2].pid, 57);
	assert_true(tr.ev[0].ts > 12.4999 && tr.ev[0].ts < 12.5001);
	assert_int_equal(tr.ev[1].type, TEV_END);
	assert_int_equal(tr.ev[1].a, 0x100);
	assert_int_equal(tr.ev[1].c, 0xf800);
	assert_false(tr.ev[1].sync);
	assert_string_equal(tr.ev[1].status, "partial_skipped");
	assert_int_equal(tr.ev[2].type, TEV_MIGRATE);
	assert_int_equal(tr.ev[2].a, 19);
	assert_int_equal(tr.ev[2].b, 1);
	assert_int_equal(tr.ev[3].type, TEV_OTHER);
	assert_string_equal(tev_name(TEV_ISO_MIGRATE), "isolate_migrate");
	(void)st;
}

/* The task's pid: after the last '-' of TASK-PID; -1 without one. */
static void
test_pid(void **st)
{
	const char	in[] =
	    "    kworker/u4:1-37      [000] .....     1.000000: mm_compaction_migratepages: nr_migrated=1 nr_failed=0\n"
	    "           <...>-1234    [001] .....     1.000001: mm_compaction_migratepages: nr_migrated=1 nr_failed=0\n"
	    "         kworker        [001] .....     1.000002: mm_compaction_migratepages: nr_migrated=1 nr_failed=0\n"
	    "          a-b-c-         [001] .....     1.000003: mm_compaction_migratepages: nr_migrated=1 nr_failed=0\n"
	    "  x-12345678901          [001] .....     1.000004: mm_compaction_migratepages: nr_migrated=1 nr_failed=0\n";

	assert_int_equal(parse_trace(in, sizeof(in) - 1, &tr), 0);
	assert_int_equal(tr.n, 5);
	assert_int_equal(tr.ev[0].pid, 37);
	assert_int_equal(tr.ev[1].pid, 1234);
	assert_int_equal(tr.ev[2].pid, -1);
	assert_int_equal(tr.ev[3].pid, -1);
	assert_int_equal(tr.ev[4].pid, -1);	/* too many digits for a pid */
	(void)st;
}

/* Lines missing fields are named, the rest kept. */
static void
test_broken(void **st)
{
	const char	in[] =
	    "   sh-1 [000] ..... 1.000000: mm_compaction_isolate_migratepages: range=(0x0 ~ 0x200) nr_scanned=512\n"
	    "   sh-1 [000] ..... 1.000001: mm_compaction_migratepages: nr_migrated=1 nr_failed=0\n"
	    "garbage without a cpu\n"
	    "   sh-1 [000] ..... 1.000002: mm_compaction_isolate_freepages: range=(0x0 ~ 0x2";

	assert_int_equal(parse_trace(in, sizeof(in) - 1, &tr), -1);
	assert_string_equal(tr.err, "line 1: unreadable trace line");
	assert_int_equal(tr.n, 1);
	assert_int_equal(tr.ev[0].type, TEV_MIGRATE);
	(void)st;
}

/* Every prefix and corrupted copy is handled. */
static void
test_robust(void **st)
{
	robust_fixture("guest/sys/kernel/tracing/trace", SIZE_MAX, run, event_line);
	(void)st;
}

/* Run the trace parser tests. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixture),
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_pid),
		cmocka_unit_test(test_broken),
		cmocka_unit_test(test_robust),
	};
	int	r = cmocka_run_group_tests_name("parse-trace", tests, NULL,
	    NULL);

	trace_free(&tr);
	return r;
}
