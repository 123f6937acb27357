/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Unit test: the compaction view on a root whose zoneinfo and
 * pagetypeinfo carry hostile values (a guest's files are untrusted), drawn
 * on a canvas under ASan and UBSan.  A zone of 2^32+5 pages with one page
 * per block, or of 2^64-1 pages, or a pageblock of 2^40 pages, must draw
 * the zone capped at the map's size and never write past its blocks.
 */
#include <sys/stat.h>

#include "canvas-test.h"
#include "tui-test.h"
#include "tui.h"
#include "util.h"

static struct canvas	cv;
static char		root[64];

/* A zone of spanned pages from pfn 0; pageblocks of ppb pages. */
static void
make_root(const char *spanned, const char *ppb)
{
	char	path[128];
	FILE	*f;

	snprintf(root, sizeof(root), "/tmp/umkit-test-view-hostile.XXXXXX");
	assert_non_null(mkdtemp(root));
	snprintf(path, sizeof(path), "%s/proc", root);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/proc/zoneinfo", root);
	assert_non_null(f = fopen(path, "w"));
	fprintf(f, "Node 0, zone   Normal\n"
	    "  pages free     27094\n"
	    "        min      498\n"
	    "        low      622\n"
	    "        high     746\n"
	    "        spanned  %s\n"
	    "        present  65536\n"
	    "        managed  62737\n"
	    "  start_pfn:           0\n", spanned);
	fclose(f);
	snprintf(path, sizeof(path), "%s/proc/pagetypeinfo", root);
	assert_non_null(f = fopen(path, "w"));
	fprintf(f, "Page block order: 0\nPages per block:  %s\n", ppb);
	fclose(f);
}

/* Remove the root made by make_root. */
static int
remove_root(void **st)
{
	char	path[128];

	snprintf(path, sizeof(path), "%s/proc/zoneinfo", root);
	unlink(path);
	snprintf(path, sizeof(path), "%s/proc/pagetypeinfo", root);
	unlink(path);
	snprintf(path, sizeof(path), "%s/proc", root);
	rmdir(path);
	rmdir(root);
	(void)st;
	return 0;
}

/* Whether some row of the canvas contains s; the frame printed if not. */
static bool
shows(const char *s)
{
	if (cv_shows(&cv, s))
		return true;
	cv_dump(&cv, stderr);
	return false;
}

/* Read the root with the compaction view and draw it at 80x24. */
static void
update_and_draw(void)
{
	struct source	src;
	struct ctx	c = { .src = &src };
	struct frame	f = { .cv = &cv, .w = 80, .h = 24 };

	source_open(&src, root);
	view_compact.init();
	source_tick(&src);
	c.now_ms = source_now_ms(&src);
	view_compact.update(&c);
	cv_resize(&cv, 80, 24);
	view_compact.draw(&f);
	source_close(&src);
}

/* 2^32+5 pages, one a block: the block count wrapped in int (5 blocks). */
static void
test_spanned_wraps_int(void **st)
{
	make_root("4294967301", "1");
	update_and_draw();
	assert_true(shows("zone larger than the map: first 1048576 pages shown"));
	assert_true(shows("1048576 blocks of 1 pages"));
	(void)st;
}

/* 2^64-1 pages: spanned + ppb - 1 wrapped in u64. */
static void
test_spanned_wraps_u64(void **st)
{
	make_root("18446744073709551615", "1024");
	update_and_draw();
	assert_true(shows("zone larger than the map: first 1048576 pages shown"));
	assert_true(shows("1024 blocks of 1024 pages"));
	(void)st;
}

/* A pageblock larger than the map: the default size instead. */
static void
test_huge_pageblock(void **st)
{
	make_root("65536", "1099511627776");
	update_and_draw();
	assert_true(shows("64 blocks of 1024 pages"));
	(void)st;
}

/* Run the hostile-root tests. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_spanned_wraps_int, remove_root),
		cmocka_unit_test_teardown(test_spanned_wraps_u64, remove_root),
		cmocka_unit_test_teardown(test_huge_pageblock, remove_root),
	};
	int	r;

	ui.utf8 = true;
	r = cmocka_run_group_tests_name("view-hostile", tests, NULL, NULL);
	free(cv.c);
	return r;
}
