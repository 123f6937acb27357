/* SPDX-License-Identifier: GPL-2.0-only */
/* Unit tests: parse_pagetypeinfo on the guest's file and broken input. */
#include "tui-test.h"
#include "tui-fixture.h"

static struct pagetypeinfo pti;

/* Adapter for robust_rows(): the header values, the type names, each
 * free-count row and each block-count row. */
static int
run(const char *b, size_t n, char *err, struct rows *out)
{
	char	line[400];
	int	r = parse_pagetypeinfo(b, n, &pti), k;

	memcpy(err, pti.err, PERR_LEN);
	if (pti.pageblock_order >= 0)
		rows_add(out, "pageblock_order %d", pti.pageblock_order);
	if (pti.pages_per_block)
		rows_add(out, "pages_per_block %llu", pti.pages_per_block);
	for (int i = 0; i < pti.nfree; i++) {
		const struct pti_free	*f = &pti.free[i];

		k = snprintf(line, sizeof(line), "free %d %s %s", f->node, f->zone, f->type);
		for (int o = 0; o < pti.norders && o < P_MAX_ORDERS; o++)
			k += snprintf(line + k, sizeof(line) - (size_t)k, " %s%llu",
			    f->overflow[o] ? ">" : "", f->count[o]);
		rows_add(out, "%s", line);
	}
	if (pti.ntypes) {
		k = snprintf(line, sizeof(line), "types");
		for (int t = 0; t < pti.ntypes; t++)
			k += snprintf(line + k, sizeof(line) - (size_t)k, " %s", pti.types[t]);
		rows_add(out, "%s", line);
	}
	for (int i = 0; i < pti.nblocks; i++) {
		const struct pti_blocks	*bl = &pti.blocks[i];

		k = snprintf(line, sizeof(line), "blocks %d %s", bl->node, bl->zone);
		for (int t = 0; t < pti.ntypes; t++)
			k += snprintf(line + k, sizeof(line) - (size_t)k, " %llu", bl->count[t]);
		rows_add(out, "%s", line);
	}
	return r;
}

/* The lines that yield a row: the two header values, the block-count
 * header (the type names) and every "Node" row. */
static bool
row_line(const char *l, size_t n)
{
	while (n && *l == ' ')
		l++, n--;
	return (n >= 16 && !memcmp(l, "Page block order", 16)) ||
	    (n >= 15 && !memcmp(l, "Pages per block", 15)) ||
	    (n >= 21 && !memcmp(l, "Number of blocks type", 21)) ||
	    (n >= 4 && !memcmp(l, "Node", 4));
}

/* Pageblock size, free counts per type and order, block counts. */
static void
test_fixture(void **st)
{
	size_t	 len;
	char	*b = fixture("guest/proc/pagetypeinfo", &len);

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
static void
test_broken(void **st)
{
	const char	a[] = "Page block order: 9\nPages per block:  512\n\n"
	    "Free pages count per migrate type at order 0 1\n"
	    "Node    0, zone   Normal, type    Movable >100000      3 \n";
	const char	c[] =
	    "Page block order: 9\nPages per block:  512\nhello\n";

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
static void
test_robust(void **st)
{
	robust_fixture("guest/proc/pagetypeinfo", SIZE_MAX, run, row_line);
	(void)st;
}

/* Run the pagetypeinfo parser tests. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixture),
		cmocka_unit_test(test_broken),
		cmocka_unit_test(test_robust),
	};

	return cmocka_run_group_tests_name("parse-pagetypeinfo", tests, NULL, NULL);
}
