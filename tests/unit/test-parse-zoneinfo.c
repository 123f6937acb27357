/* SPDX-License-Identifier: GPL-2.0-only */
/* Unit tests: parse_zoneinfo on the guest's /proc/zoneinfo and broken input. */
#include "tui-test.h"
#include "tui-fixture.h"

static struct zoneinfo zi;

/* Adapter for robust_rows(): per zone its header, the fields that are
 * set, every counter, each cpu's pageset values and start_pfn. */
static int
run(const char *b, size_t n, char *err, struct rows *out)
{
	int	r = parse_zoneinfo(b, n, &zi);

	memcpy(err, zi.err, PERR_LEN);
	for (int i = 0; i < zi.nzones; i++) {
		const struct zi_zone	*z = &zi.zone[i];
		const struct { const char *k; u64 v; } f[] = {
			{ "free", z->free }, { "boost", z->boost }, { "min", z->min },
			{ "low", z->low }, { "high", z->high }, { "promo", z->promo },
			{ "spanned", z->spanned }, { "present", z->present },
			{ "managed", z->managed }, { "cma", z->cma },
		};

		rows_add(out, "zone %d %s", z->node, z->name);
		for (size_t k = 0; k < sizeof(f) / sizeof(f[0]); k++)
			if (f[k].v)
				rows_add(out, "%d %s %s=%llu", i, z->name, f[k].k, f[k].v);
		for (int k = 0; k < z->stats.n; k++)
			rows_add(out, "%d stat %s %llu", i, z->stats.v[k].name, z->stats.v[k].val);
		for (int k = 0; k < z->node_stats.n; k++)
			rows_add(out, "%d node %s %llu", i, z->node_stats.v[k].name,
			    z->node_stats.v[k].val);
		for (int c = 0; c < z->ncpus; c++) {
			const struct zi_pcp	*pc = &z->pcp[c];

			rows_add(out, "%d cpu %d", i, pc->cpu);
			if (pc->count)
				rows_add(out, "%d cpu %d count %ld", i, pc->cpu, pc->count);
			if (pc->high)
				rows_add(out, "%d cpu %d high %ld", i, pc->cpu, pc->high);
			if (pc->batch)
				rows_add(out, "%d cpu %d batch %ld", i, pc->cpu, pc->batch);
			if (pc->threshold)
				rows_add(out, "%d cpu %d threshold %d", i, pc->cpu, pc->threshold);
		}
		if (z->has_start)
			rows_add(out, "%d start_pfn %llu", i, z->start_pfn);
	}
	return r;
}

/* Zones, spans, watermarks, per-node and per-zone stats, pagesets. */
static void
test_fixture(void **st)
{
	size_t		 len;
	char		*b = fixture("guest/proc/zoneinfo", &len);
	struct zi_zone	*z;

	assert_int_equal(parse_zoneinfo(b, len, &zi), 0);
	assert_int_equal(zi.nzones, FX_ZI_NZONES);
	z = &zi.zone[FX_ZI_POP];
	assert_string_equal(z->name, FX_ZI_POP_NAME);
	assert_true(z->has_start);
	assert_int_equal(z->start_pfn, FX_ZI_START);
	assert_int_equal(z->spanned, FX_ZI_SPANNED);
	assert_int_equal(z->present, FX_ZI_PRESENT);
	assert_int_equal(z->managed, FX_ZI_MANAGED);
	assert_int_equal(z->free, FX_ZI_FREE);
	assert_int_equal(z->min, FX_ZI_MIN);
	assert_int_equal(kv_val(&z->stats, "nr_free_pages"), FX_ZI_FREE);
	assert_true(z->node_stats.n > 20);
	assert_int_equal(z->ncpus, FX_NCPUS);
	assert_int_equal(z->pcp[1].cpu, 1);
	assert_int_equal(z->pcp[0].threshold, FX_ZI_THRESHOLD);
	for (int i = 0; i < zi.nzones; i++)
		if (i != FX_ZI_POP)
			assert_false(zi.zone[i].has_start);
	free(b);
	(void)st;
}

/* Lines outside zones and unknown lines are named. */
static void
test_broken(void **st)
{
	const char	a[] = "  pages free 5\nNode 0, zone Normal\n  pages free 7\n";
	const char	c[] = "Node 0, zone Normal\n  pages free 7\n  what is this\n";
	const char	d[] = "Node x, zone Normal\n";

	assert_int_equal(parse_zoneinfo(a, sizeof(a) - 1, &zi), -1);
	assert_string_equal(zi.err, "line 1: line outside a zone");
	assert_int_equal(zi.zone[0].free, 7);
	assert_int_equal(parse_zoneinfo(c, sizeof(c) - 1, &zi), -1);
	assert_string_equal(zi.err, "line 3: unrecognised line");
	assert_int_equal(parse_zoneinfo(d, sizeof(d) - 1, &zi), -1);
	assert_string_equal(zi.err, "line 1: bad zone header");
	(void)st;
}

/* Every prefix and corrupted copy is handled. */
static void
test_robust(void **st)
{
	robust_fixture("guest/proc/zoneinfo", SIZE_MAX, run, NULL);
	(void)st;
}

/* Run the zoneinfo parser tests. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixture),
		cmocka_unit_test(test_broken),
		cmocka_unit_test(test_robust),
	};
	int	r = cmocka_run_group_tests_name("parse-zoneinfo", tests, NULL, NULL);

	zoneinfo_free(&zi);
	return r;
}
