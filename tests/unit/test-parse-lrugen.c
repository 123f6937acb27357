/* SPDX-License-Identifier: GPL-2.0-only */
/* Unit tests: parse_lrugen on lru_gen and lru_gen_full and broken input. */
#include "tui-test.h"
#include "tui-fixture.h"

static struct lrugen lg;

/* Adapter for robust_rows(): in file order, a row per memcg, node,
 * generation and tier. */
static int
run(const char *b, size_t n, char *err, struct rows *out)
{
	int	r = parse_lrugen(b, n, &lg);

	memcpy(err, lg.err, PERR_LEN);
	for (int m = 0; m < lg.n; m++) {
		rows_add(out, "memcg %llu %s", lg.memcg[m].id, lg.memcg[m].path);
		for (int k = 0; k < lg.memcg[m].nnodes; k++) {
			const struct lg_node	*nd = &lg.memcg[m].node[k];

			rows_add(out, "node %d", nd->nid);
			for (int i = 0; i < nd->ngens; i++) {
				const struct lg_gen	*g = &nd->gen[i];

				rows_add(out, "gen %llu %llu %llu%s %llu%s", g->seq, g->age_ms,
				    g->pages[0], g->gone[0] ? "x" : "", g->pages[1],
				    g->gone[1] ? "x" : "");
				for (int t = 0; t < g->ntiers; t++) {
					const struct lg_tier	*tr =
					    &g->tier[t];

					rows_add(out, "tier %d %llu%c %llu%c %llu%c %llu%c %llu%c %llu%c",
					    tr->tier, tr->v[0][0], tr->mark[0][0], tr->v[0][1],
					    tr->mark[0][1], tr->v[0][2], tr->mark[0][2], tr->v[1][0],
					    tr->mark[1][0], tr->v[1][1], tr->mark[1][1], tr->v[1][2],
					    tr->mark[1][2]);
				}
			}
		}
	}
	return r;
}

/* lru_gen: one memcg, node 0, generations min..max with pages. */
static void
test_fixture(void **st)
{
	size_t		 len;
	char		*b = fixture("guest/sys/kernel/debug/lru_gen", &len);
	struct lg_node	*nd;

	assert_int_equal(parse_lrugen(b, len, &lg), 0);
	assert_false(lg.full);
	assert_int_equal(lg.n, FX_LG_MEMCGS);
	assert_int_equal(lg.memcg[0].id, FX_LG_MEMCG0_ID);
	assert_string_equal(lg.memcg[0].path, FX_LG_MEMCG0_PATH);
	assert_int_equal(lg.memcg[0].nnodes, 1);
	nd = &lg.memcg[0].node[0];
	assert_int_equal(nd->nid, 0);
	assert_int_equal(nd->ngens, FX_LG_NGENS);
	assert_int_equal(nd->gen[0].seq, FX_LG_MIN_SEQ);
	assert_int_equal(nd->gen[nd->ngens - 1].seq, FX_LG_MAX_SEQ);
	assert_int_equal(nd->gen[FX_LG_ROW].pages[0], FX_LG_ROW_ANON);
	assert_int_equal(nd->gen[FX_LG_ROW].pages[1], FX_LG_ROW_FILE);
	assert_int_equal(nd->gen[FX_LG_ROW].age_ms, FX_LG_ROW_AGE);
	free(b);
	(void)st;
}

/* lru_gen_full: four tier rows per generation; marks kept. */
static void
test_full(void **st)
{
	size_t		 len;
	char		*b = fixture("guest/sys/kernel/debug/lru_gen_full",
	    &len);
	struct lg_node	*nd;
	struct lg_gen	*max;

	assert_int_equal(parse_lrugen(b, len, &lg), 0);
	assert_true(lg.full);
	assert_int_equal(lg.mmstat_rows, 0);	/* UML: no page table walk */
	nd = &lg.memcg[0].node[0];
	max = &nd->gen[nd->ngens - 1];
	assert_int_equal(max->ntiers, 4);
	assert_int_equal(max->tier[3].tier, 3);
	assert_int_equal(max->tier[0].mark[0][0], 'R');
	assert_int_equal(max->tier[0].mark[0][1], 'T');
	assert_int_equal(nd->gen[0].tier[1].mark[1][0], FX_LGF_OLD_MARK);
	free(b);
	(void)st;
}

/* A walk-stats row (kernels with ARCH_HAS_HW_PTE_YOUNG) is recognised. */
static void
test_walk_rows(void **st)
{
	const char	in[] =
	    "memcg     0 \n node     0\n"
	    "          5       1000          1           2 \n"
	    "                               0          1r          2e          3p          4r          5e          6p\n"
	    "                               1          0r          0e          0p          0r          0e          0p\n"
	    "                               2          0r          0e          0p          0r          0e          0p\n"
	    "                               3          0r          0e          0p          0r          0e          0p\n"
	    "                               0T          0Y          0F          0A\n";

	assert_int_equal(parse_lrugen(in, sizeof(in) - 1, &lg), 0);
	assert_int_equal(lg.mmstat_rows, 1);
	assert_int_equal(lg.memcg[0].node[0].gen[0].tier[0].v[1][2], 6);
	assert_string_equal(lg.memcg[0].path, "");
	(void)st;
}

/* Broken structure is named with its line. */
static void
test_broken(void **st)
{
	const char	a[] = " node 0\n";
	const char	c[] = "memcg 1 /\n node 0\n 1 2 3\n";
	const char	d[] = "memcg 1 /\n node 0\n          3       8120       2011";
	const char	e[] = "memcg 1 /\n node 0\n 1 2 3 4\n 2 2 3 4\n 3 2 3 4\n 4 2 3 4\n"
	    " 5 2 3 4\n 6 2 3 4\n 7 2 3 4\n 8 2 3 4\n 9 2 3 4\n";

	assert_int_equal(parse_lrugen(a, sizeof(a) - 1, &lg), -1);
	assert_string_equal(lg.err, "line 1: node before memcg");
	assert_int_equal(parse_lrugen(c, sizeof(c) - 1, &lg), -1);
	assert_string_equal(lg.err, "line 3: unrecognised row (3 fields)");
	assert_int_equal(parse_lrugen(d, sizeof(d) - 1, &lg), -1);
	assert_string_equal(lg.err, "line 3: unrecognised row (3 fields)");
	assert_int_equal(parse_lrugen(e, sizeof(e) - 1, &lg), -1);
	assert_string_equal(lg.err, "line 11: more than 8 generations");
	assert_int_equal(lg.memcg[0].node[0].ngens, 8);
	assert_int_equal(parse_lrugen("", 0, &lg), -1);
	(void)st;
}

/* Every prefix and corrupted copy of both files is handled. */
static void
test_robust(void **st)
{
	robust_fixture("guest/sys/kernel/debug/lru_gen_full", SIZE_MAX, run, nonblank_line);
	robust_fixture("guest/sys/kernel/debug/lru_gen", SIZE_MAX, run, nonblank_line);
	(void)st;
}

/* Run the lru_gen parser tests. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixture),
		cmocka_unit_test(test_full),
		cmocka_unit_test(test_walk_rows),
		cmocka_unit_test(test_broken),
		cmocka_unit_test(test_robust),
	};
	int	r = cmocka_run_group_tests_name("parse-lrugen", tests, NULL,
	    NULL);

	lrugen_free(&lg);
	return r;
}
