/* SPDX-License-Identifier: GPL-2.0-only */
/* Unit tests: the MGLRU history model (tui/lruhist.c) on lru_gen
 * snapshots: agings and evictions counted per lruvec, their time and
 * size, restarts, resets, and each generation's samples. */
#include "tui-test.h"
#include "tui-fixture.h"
#include "lruhist.h"

static struct lrugen lg;

/* Parse a snapshot written as text; it must parse cleanly. */
static const struct lrugen *
snap(const char *text)
{
	assert_int_equal(parse_lrugen(text, strlen(text), &lg), 0);
	return &lg;
}

/* One memcg 1 on node 0 with generations lo..hi of 100*seq anon pages. */
static const struct lrugen *
gens(unsigned lo, unsigned hi)
{
	static char	text[1024];
	int		n = snprintf(text, sizeof(text),
	    "memcg     1 /\n node     0\n");

	for (unsigned s = lo; s <= hi; s++)
		n += snprintf(text + n, sizeof(text) - (size_t)n,
		    " %10u %10u %10u %10u\n", s, 1000 * (hi - s), 100 * s, 0);
	return snap(text);
}

/* The fixture alone: seqs known, nothing happened yet. */
static void
test_first_snapshot(void **st)
{
	struct lruhist		 h = { 0 };
	size_t			 len;
	char			*b = fixture("guest/sys/kernel/debug/lru_gen",
	    &len);
	const struct lh_vec	*v;
	struct lh_count		 c;

	assert_int_equal(parse_lrugen(b, len, &lg), 0);
	lruhist_feed(&h, &lg, 1000);
	v = lruhist_find(&h, FX_LG_MEMCG0_ID, 0);
	assert_non_null(v);
	assert_true(v->seen);
	assert_int_equal(v->max_seq, FX_LG_MAX_SEQ);
	assert_int_equal(v->min_seq, FX_LG_MIN_SEQ);
	assert_int_equal(v->agings, 0);
	assert_int_equal(v->evictions, 0);
	assert_false(lh_recent(v->aged_at, v->agings, 1000, 5000));
	c = lruhist_count(&h, LH_ANY_MEMCG, LH_ANY_NODE);
	assert_int_equal(c.agings, 0);
	assert_int_equal(c.evictions, 0);
	assert_null(lruhist_find(&h, FX_LG_MEMCG0_ID, 1));
	assert_int_equal(h.snapshots, 1);
	lruhist_free(&h);
	free(b);
	(void)st;
}

/* An aging and an eviction between two snapshots: counted, timed. */
static void
test_age_and_evict(void **st)
{
	struct lruhist		 h = { 0 };
	const struct lh_vec	*v;

	lruhist_feed(&h, gens(2, 5), 0);
	lruhist_feed(&h, gens(3, 6), 1000);
	v = lruhist_find(&h, 1, 0);
	assert_int_equal(v->agings, 1);
	assert_int_equal(v->aged_by, 1);
	assert_true(v->aged_at == 1000);
	assert_int_equal(v->evictions, 1);
	assert_int_equal(v->evicted_by, 1);
	assert_true(v->evicted_at == 1000);
	assert_true(lh_recent(v->aged_at, v->agings, 5999, 5000));
	assert_false(lh_recent(v->aged_at, v->agings, 6000, 5000));
	/* two agings at once, no eviction */
	lruhist_feed(&h, gens(3, 8), 2000);
	v = lruhist_find(&h, 1, 0);
	assert_int_equal(v->aged_by, 2);
	assert_int_equal(v->agings, 3);
	assert_int_equal(v->evictions, 1);
	assert_true(v->evicted_at == 1000);
	/* nothing changes: nothing counted */
	lruhist_feed(&h, gens(3, 8), 3000);
	assert_int_equal(lruhist_count(&h, 1, 0).agings, 3);
	assert_true(lruhist_find(&h, 1, 0)->aged_at == 2000);
	lruhist_free(&h);
	(void)st;
}

/* "gone" generations (x marks) do not hold min_seq back. */
static void
test_gone_gens(void **st)
{
	struct lruhist	h = { 0 };

	lruhist_feed(&h, snap("memcg 1 /\n node 0\n 2 9 0x 0x\n 3 9 5 6\n 4 9 1 1\n"), 0);
	assert_int_equal(lruhist_find(&h, 1, 0)->min_seq, 3);
	lruhist_feed(&h, snap("memcg 1 /\n node 0\n 2 9 0x 0x\n 3 9 0x 0x\n 4 9 1 1\n"), 10);
	assert_int_equal(lruhist_find(&h, 1, 0)->min_seq, 4);
	assert_int_equal(lruhist_find(&h, 1, 0)->evictions, 1);
	lruhist_free(&h);
	(void)st;
}

/* Counts per memcg, per node and over all; a vanished lruvec keeps its. */
static void
test_many_lruvecs(void **st)
{
	const char	*a =
	    "memcg 1 /\n node 0\n 1 0 1 1\n 2 0 1 1\n node 1\n 5 0 1 1\n 6 0 1 1\n"
	    "memcg 7 /lab\n node 0\n 3 0 1 1\n 4 0 1 1\n";
	const char	*b =
	    "memcg 1 /\n node 0\n 1 0 1 1\n 2 0 1 1\n 3 0 1 1\n node 1\n 6 0 1 1\n 8 0 1 1\n"
	    "memcg 7 /lab\n node 0\n 3 0 1 1\n 4 0 1 1\n 5 0 1 1\n";
	const char	*c =
	    "memcg 1 /\n node 0\n 1 0 1 1\n 2 0 1 1\n 3 0 1 1\n";
	struct lruhist	 h = { 0 };
	struct lh_count	 k;

	lruhist_feed(&h, snap(a), 0);
	lruhist_feed(&h, snap(b), 100);
	k = lruhist_count(&h, LH_ANY_MEMCG, LH_ANY_NODE);
	assert_int_equal(k.agings, 1 + 2 + 1);
	assert_int_equal(k.evictions, 1);
	k = lruhist_count(&h, 1, LH_ANY_NODE);
	assert_int_equal(k.agings, 3);
	k = lruhist_count(&h, LH_ANY_MEMCG, 0);
	assert_int_equal(k.agings, 2);
	assert_int_equal(k.evictions, 0);
	k = lruhist_count(&h, 1, 1);
	assert_int_equal(k.agings, 2);
	assert_int_equal(k.evictions, 1);
	k = lruhist_count(&h, 99, LH_ANY_NODE);
	assert_int_equal(k.agings, 0);
	/* memcg 7 goes away: not seen, its counts stay */
	lruhist_feed(&h, snap(c), 200);
	assert_false(lruhist_find(&h, 7, 0)->seen);
	assert_true(lruhist_find(&h, 1, 0)->seen);
	assert_int_equal(lruhist_count(&h, 7, 0).agings, 1);
	lruhist_free(&h);
	(void)st;
}

/* A restarted guest (seqs smaller) is a new start; a reset forgets. */
static void
test_restart_and_reset(void **st)
{
	struct lruhist	h = { 0 };

	lruhist_feed(&h, gens(10, 13), 0);
	lruhist_feed(&h, gens(2, 5), 100);
	assert_int_equal(lruhist_count(&h, 1, 0).agings, 0);
	assert_int_equal(lruhist_count(&h, 1, 0).evictions, 0);
	assert_int_equal(lruhist_find(&h, 1, 0)->max_seq, 5);
	lruhist_feed(&h, gens(2, 6), 200);
	assert_int_equal(lruhist_count(&h, 1, 0).agings, 1);
	lruhist_reset(&h);
	assert_null(lruhist_find(&h, 1, 0));
	assert_int_equal(h.snapshots, 0);
	/* after a reset the next snapshot is a first one again */
	lruhist_feed(&h, gens(2, 9), 300);
	assert_int_equal(lruhist_count(&h, 1, 0).agings, 0);
	lruhist_free(&h);
	(void)st;
}

/* Samples follow a generation by seq; a new one starts with one; the
 * oldest samples drop out after LH_SAMPLES. */
static void
test_samples(void **st)
{
	struct lruhist		 h = { 0 };
	const struct lh_vec	*v;

	lruhist_feed(&h, gens(2, 5), 0);
	lruhist_feed(&h, gens(2, 5), 1);
	lruhist_feed(&h, gens(3, 6), 2);
	v = lruhist_find(&h, 1, 0);
	assert_int_equal(v->gen[0].seq, 3);
	assert_int_equal(v->gen[0].n, 3);
	assert_true(v->gen[0].v[2] == 300);
	assert_int_equal(v->gen[3].seq, 6);
	assert_int_equal(v->gen[3].n, 1);
	assert_true(v->gen[3].v[0] == 600);
	for (int i = 0; i < LH_SAMPLES + 5; i++)
		lruhist_feed(&h, gens(3, 6), 3 + i);
	v = lruhist_find(&h, 1, 0);
	assert_int_equal(v->gen[0].n, LH_SAMPLES);
	assert_int_equal(v->gen[3].n, LH_SAMPLES);
	lruhist_free(&h);
	(void)st;
}

/* Run the lruhist tests. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first_snapshot),
		cmocka_unit_test(test_age_and_evict),
		cmocka_unit_test(test_gone_gens),
		cmocka_unit_test(test_many_lruvecs),
		cmocka_unit_test(test_restart_and_reset),
		cmocka_unit_test(test_samples),
	};
	int	r = cmocka_run_group_tests_name("lruhist", tests, NULL, NULL);

	lrugen_free(&lg);
	return r;
}
