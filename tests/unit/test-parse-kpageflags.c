/* SPDX-License-Identifier: GPL-2.0-only */
/* Unit tests: parse_kpageflags classification on the guest's prefix of
 * /proc/kpageflags, on built inputs, and on truncated input. */
#include "tui-test.h"
#include "tui-fixture.h"

#define B(bit) (1ULL << (bit))

/* Adapter for robust_cut(): classify at pfn 0 the pages the input
 * covers, plus three beyond it (which must come back unread); a row per
 * page. */
static int
run(const char *b, size_t n, char *err, struct rows *out)
{
	size_t		 np = n / 8, extra = 3;
	unsigned char	*cls = malloc(np + extra);
	int		 r = parse_kpageflags(b, n, 0, cls, np + extra, err);

	assert_int_equal(r, -1);		/* three pages were not read */
	for (size_t i = 0; i < extra; i++)
		assert_int_equal(cls[np + i], KPC_UNREAD);
	r = parse_kpageflags(b, n, 0, cls, np, err);
	for (size_t i = 0; i < np; i++) {
		assert_true(cls[i] <= KPC_UNMOVABLE);
		rows_add(out, "%zu %d", i, cls[i]);
	}
	free(cls);
	return r;
}

/* The fixture: every page classified, the classes sum up. */
static void
test_fixture(void **st)
{
	size_t		 len, counts[5] = { 0 };
	char		*b = fixture("guest/proc/kpageflags", &len);
	size_t		 np = len / 8;
	unsigned char	*cls = malloc(np);
	char		 err[PERR_LEN];

	assert_int_equal(len % 8, 0);
	assert_int_equal(parse_kpageflags(b, len, FX_KPF_FIRST_PFN, cls, np, err), 0);
	for (size_t i = 0; i < np; i++)
		counts[cls[i]]++;
	assert_int_equal(counts[KPC_UNREAD], 0);
	assert_int_equal(counts[KPC_FREE], FX_KPF_FREE);
	assert_int_equal(counts[KPC_MOVABLE], FX_KPF_MOVABLE);
	assert_int_equal(counts[KPC_UNMOVABLE], FX_KPF_UNMOVABLE);
	assert_int_equal(counts[KPC_HOLE], FX_KPF_HOLE);
	free(cls);
	free(b);
	(void)st;
}

/* A buddy head grows over flag-less, aligned tails only. */
static void
test_buddy(void **st)
{
	unsigned long long	f[16] = { 0 };
	unsigned char		cls[18];
	char			err[PERR_LEN];

	f[0] = B(KPF_BIT_BUDDY);		/* order-2 block 0..3 */
	f[4] = B(KPF_BIT_LRU);			/* stops growth to 8 */
	f[5] = B(KPF_BIT_BUDDY);		/* unaligned for 2: stays 1 */
	f[6] = 0;				/* stray flag-less: kernel page */
	f[7] = B(KPF_BIT_SLAB);
	f[8] = B(KPF_BIT_BUDDY);		/* 8..15: order 3 */
	assert_int_equal(parse_kpageflags((char *)f, sizeof(f), 0, cls, 18, err), -1);
	assert_string_equal(err, "kpageflags: read 16 of 18 pages");
	for (int i = 0; i < 4; i++)
		assert_int_equal(cls[i], KPC_FREE);
	assert_int_equal(cls[4], KPC_MOVABLE);
	assert_int_equal(cls[5], KPC_FREE);
	assert_int_equal(cls[6], KPC_UNMOVABLE);
	assert_int_equal(cls[7], KPC_UNMOVABLE);
	for (int i = 8; i < 16; i++)
		assert_int_equal(cls[i], KPC_FREE);
	assert_int_equal(cls[16], KPC_UNREAD);
	/* alignment is by absolute pfn: at pfn 2 the block at 0 is order 1 */
	assert_int_equal(parse_kpageflags((char *)f, 4 * 8, 2, cls, 4, err), 0);
	assert_int_equal(cls[0], KPC_FREE);
	assert_int_equal(cls[1], KPC_FREE);
	assert_int_equal(cls[2], KPC_UNMOVABLE);
	(void)st;
}

/* Holes, reserved pages, compound tails; a cut entry is reported. */
static void
test_classes(void **st)
{
	unsigned long long f[5] = {
		B(KPF_BIT_NOPAGE), B(KPF_BIT_RESERVED),
		B(KPF_BIT_ANON) | B(15), B(KPF_BIT_COMPOUND_TAIL), B(KPF_BIT_PGTABLE),
	};
	unsigned char		cls[5];
	char			err[PERR_LEN];
	struct kpf_block	blk = { .free = 3, .movable = 1 };

	assert_int_equal(parse_kpageflags((char *)f, sizeof(f), 0, cls, 5, err), 0);
	assert_int_equal(cls[0], KPC_HOLE);
	assert_int_equal(cls[1], KPC_UNMOVABLE);
	assert_int_equal(cls[2], KPC_MOVABLE);
	assert_int_equal(cls[3], KPC_MOVABLE);
	assert_int_equal(cls[4], KPC_UNMOVABLE);
	assert_int_equal(parse_kpageflags((char *)f, 13, 0, cls, 5, err), -1);
	assert_string_equal(err, "kpageflags: 5 trailing bytes (not a whole entry)");
	assert_int_equal(cls[1], KPC_UNREAD);
	assert_int_equal(kpf_block_class(&blk), KPC_MOVABLE);
	blk.unmovable = 1;
	assert_int_equal(kpf_block_class(&blk), KPC_UNMOVABLE);
	memset(&blk, 0, sizeof(blk));
	blk.free = 1;
	blk.unread = 4;
	assert_int_equal(kpf_block_class(&blk), KPC_FREE);
	(void)st;
}

/* Every prefix and corrupted copy is handled. */
static void
test_robust(void **st)
{
	size_t	 len;
	char	*b = fixture("guest/proc/kpageflags", &len);

	robust_cut(b, len < 4096 ? len : 4096, run, NULL, 8);
	free(b);
	(void)st;
}

/* Run the kpageflags parser tests. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixture),
		cmocka_unit_test(test_buddy),
		cmocka_unit_test(test_classes),
		cmocka_unit_test(test_robust),
	};

	return cmocka_run_group_tests_name("parse-kpageflags", tests, NULL, NULL);
}
