/* Unit tests: parse_pagetypeinfo on the guest's file and broken input. */
#include "tui-test.h"
#include "tui-fixture.h"

static struct pagetypeinfo pti;

/* Adapter for robust(). */
static int run(const char *b, size_t n, char *err)
{
	int r = parse_pagetypeinfo(b, n, &pti);

	memcpy(err, pti.err, PERR_LEN);
	return r;
}

/* Pageblock size, free counts per type and order, block counts. */
static void test_fixture(void **st)
{
	size_t len;
	char *b = fixture("guest/proc/pagetypeinfo", &len);

	assert_int_equal(parse_pagetypeinfo(b, len, &pti), 0);
	assert_int_equal(pti.pageblock_order, FX_PB_ORDER);
	assert_int_equal(pti.pages_per_block, 1u << FX_PB_ORDER);
	assert_int_equal(pti.norders, 11);
	assert_int_equal(pti.ntypes, FX_PT_NTYPES);
	assert_string_equal(pti.types[0], "Unmovable");
	assert_string_equal(pti.types[1], "Movable");
	assert_int_equal(pti.nfree, FX_PT_NTYPES);
	assert_string_equal(pti.free[1].type, "Movable");
	assert_int_equal(pti.free[1].count[0], FX_PT_MOVABLE_O0);
	assert_int_equal(pti.nblocks, 1);
	assert_int_equal(pti.blocks[0].count[0], FX_PT_BLOCKS_UNMOV);
	assert_int_equal(pti.blocks[0].count[1], FX_PT_BLOCKS_MOV);
	free(b);
	(void)st;
}

/* Overflowed counts, missing sections and unknown lines. */
static void test_broken(void **st)
{
	const char a[] = "Page block order: 9\nPages per block:  512\n\n"
			 "Free pages count per migrate type at order 0 1\n"
			 "Node    0, zone   Normal, type    Movable >100000      3 \n";
	const char c[] = "Page block order: 9\nPages per block:  512\nhello\n";

	assert_int_equal(parse_pagetypeinfo(a, sizeof(a) - 1, &pti), -1);
	assert_string_equal(pti.err, "pagetypeinfo: no block counts");
	assert_true(pti.free[0].overflow[0]);
	assert_int_equal(pti.free[0].count[0], 100000);
	assert_int_equal(pti.free[0].count[1], 3);
	assert_int_equal(parse_pagetypeinfo(c, sizeof(c) - 1, &pti), -1);
	assert_string_equal(pti.err, "line 3: unrecognised line");
	(void)st;
}

/* Every prefix and corrupted copy is handled. */
static void test_robust(void **st)
{
	robust_fixture("guest/proc/pagetypeinfo", SIZE_MAX, run);
	(void)st;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixture),
		cmocka_unit_test(test_broken),
		cmocka_unit_test(test_robust),
	};

	return cmocka_run_group_tests_name("parse-pagetypeinfo", tests, NULL, NULL);
}
