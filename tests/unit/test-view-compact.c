/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Unit test: the compaction view's replay, drawn on a canvas under ASan
 * and UBSan.  On the captured fragment-and-compact run (tests/fixtures/
 * compact) every event is drawn at 80x24, 200x60 and 20x5 and says where
 * it is; playing advances by the chosen events per second of wall time
 * and stops at the end; a root holding only the trace still draws the
 * run's zone from the begin event.
 */
#include <sys/stat.h>

#include "canvas-test.h"
#include "tui-test.h"
#include "tui.h"
#include "util.h"

static struct canvas cv;
static struct source src;

/* Open root REL of the checkout and read the compaction view's files. */
static void
open_root(const char *root)
{
	struct ctx	c = { .src = &src };

	source_open(&src, root);
	view_compact.init();
	source_tick(&src);
	c.now_ms = source_now_ms(&src);
	view_compact.update(&c);
}

/* Close the root opened by open_root. */
static void
close_root(void)
{
	source_close(&src);
}

/* Draw the view on a cols x rows canvas. */
static void
draw(int cols, int rows)
{
	struct frame	f = { .cv = &cv, .w = cols, .h = rows };

	cv_resize(&cv, cols, rows);
	view_compact.draw(&f);
}

/* Whether some row of the canvas contains s. */
static bool
shows(const char *s)
{
	return cv_shows(&cv, s);
}

/* The path of a fixture root. */
static const char *
fixture_root(const char *name)
{
	static char	 root[1024];
	const char	*top = getenv("UMKIT_TOP");

	snprintf(root, sizeof(root), "%s/tests/fixtures/%s", top ? top : ".", name);
	return root;
}

/* Every event of the run at three sizes; R leaves and enters again. */
static void
test_every_event(void **st)
{
	char	want[64];

	open_root(fixture_root("compact"));
	assert_null(compact_replay_start(0, 1));
	for (int i = 1; i <= 133; i++) {
		snprintf(want, sizeof(want), "replay: event %d of 133", i);
		draw(80, 24);
		if (!shows(want))
			fail_msg("80x24 does not show '%s'", want);
		draw(200, 60);
		assert_true(shows(want));
		draw(20, 5);
		assert_int_equal(view_compact.key('.'), 1);
	}
	draw(80, 24);
	assert_true(shows("replay: event 133 of 133, t=82.150ms into the run"));
	assert_true(shows("scanned 26624    isolated 6127    migrated 4263"));
	assert_true(shows("at the end"));
	/* back one, to the first, to the last */
	view_compact.key(',');
	draw(80, 24);
	assert_true(shows("replay: event 132 of 133"));
	view_compact.key('<');
	draw(80, 24);
	assert_true(shows("replay: event 1 of 133, t=0.000ms"));
	assert_true(shows("now: begin: sync, zone 0-0x10000"));
	view_compact.key(',');
	draw(80, 24);
	assert_true(shows("replay: event 1 of 133"));
	view_compact.key('>');
	/* one run only: ( and ) stay */
	view_compact.key(')');
	view_compact.key('(');
	draw(80, 24);
	assert_true(shows("replay: event 133 of 133"));
	assert_int_equal(view_compact.key('R'), 1);
	draw(80, 24);
	assert_false(shows("replay: event"));
	assert_true(shows("last run: sync ended at 4.036s, status complete"));
	/* not replaying: the replay keys are not the view's */
	assert_int_equal(view_compact.key('.'), 0);
	assert_int_equal(view_compact.key('p'), 0);
	assert_int_equal(view_compact.key('R'), 1);
	draw(80, 24);
	assert_true(shows("replay: event 1 of 133"));
	view_compact.key('R');
	close_root();
	(void)st;
}

/* Playing: events per second of wall time, stopping at the end. */
static void
test_play(void **st)
{
	bool	changed = false;
	double	now, due;

	open_root(fixture_root("compact"));
	assert_null(compact_replay_start(1, 1));
	/* not playing: nothing due */
	assert_true(view_compact.tick((double)now_us() / 1e3, &changed) < 0);
	assert_false(changed);
	view_compact.key('p');		/* 10 events/s */
	now = (double)now_us() / 1e3;
	due = view_compact.tick(now + 1050, &changed);
	assert_true(changed);
	assert_true(due > now + 1050 && due <= now + 1050 + 100);
	draw(80, 24);
	assert_true(shows("replay: event 11 of 133"));
	assert_true(shows("playing, 10 events/s"));
	view_compact.key('}');		/* 20 events/s from here */
	draw(80, 24);
	assert_true(shows("playing, 20 events/s"));
	now = (double)now_us() / 1e3;
	changed = false;
	view_compact.tick(now + 1025, &changed);
	assert_true(changed);
	draw(80, 24);
	assert_true(shows("replay: event 31 of 133"));
	/* far beyond the end: stops there */
	changed = false;
	assert_true(view_compact.tick(now + 1e7, &changed) < 0);
	assert_true(changed);
	draw(80, 24);
	assert_true(shows("replay: event 133 of 133"));
	assert_true(shows("at the end, 20 events/s"));
	/* play at the end starts again from the first event */
	view_compact.key(' ');
	draw(80, 24);
	assert_true(shows("replay: event 1 of 133"));
	assert_true(shows("playing"));
	view_compact.key(' ');
	draw(80, 24);
	assert_true(shows("paused, 20 events/s"));
	for (int i = 0; i < 20; i++)
		view_compact.key('{');
	draw(80, 24);
	assert_true(shows("paused, 1 events/s"));
	for (int i = 0; i < 20; i++)
		view_compact.key('}');
	draw(80, 24);
	assert_true(shows("paused, 1000 events/s"));
	view_compact.key('R');
	close_root();
	(void)st;
}

static const char *const sub[] = { "sys", "sys/kernel", "sys/kernel/tracing", NULL };
static char dir[] = "/tmp/umkit-test-view-compact-XXXXXX";

/* Remove test_trace_only's root, whether it passed or not. */
static int
remove_root(void **st)
{
	char	path[1200];

	snprintf(path, sizeof(path), "%s/sys/kernel/tracing/trace", dir);
	unlink(path);
	for (int i = 2; i >= 0; i--) {
		snprintf(path, sizeof(path), "%s/%s", dir, sub[i]);
		rmdir(path);
	}
	(void)st;
	return rmdir(dir);
}

/* The begin event alone gives the zone when zoneinfo does not. */
static void
test_trace_only(void **st)
{
	char	 path[1200];
	size_t	 len;
	char	*b = fixture("compact/sys/kernel/tracing/trace", &len);
	FILE	*f;

	assert_non_null(mkdtemp(dir));
	for (const char *const *d = sub; *d; d++) {
		snprintf(path, sizeof(path), "%s/%s", dir, *d);
		assert_int_equal(mkdir(path, 0755), 0);
	}
	snprintf(path, sizeof(path), "%s/sys/kernel/tracing/trace", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(b, 1, len, f), len);
	fclose(f);
	free(b);
	open_root(dir);
	assert_null(compact_replay_start(0, 60));
	draw(80, 24);
	assert_true(shows("Run's zone (no zoneinfo)"));
	assert_true(shows("pfn 0-0x10000 256.0M, 64 blocks of 1024 pages"));
	assert_true(shows("????????????????????????????????????????????????????????????????"));
	assert_true(shows("proc/kpageflags: not readable"));
	assert_true(shows("replay: event 60 of 133"));
	view_compact.key('R');
	/* errors name what is wrong */
	assert_string_equal(compact_replay_start(2, 1), "run 2: the trace buffer has 1 run");
	assert_string_equal(compact_replay_start(1, 134), "event 134: run 1 has events 1..133");
	close_root();
	(void)st;
}

/* Run the view-compact tests. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_event),
		cmocka_unit_test(test_play),
		cmocka_unit_test_teardown(test_trace_only, remove_root),
	};
	int	r;

	ui.utf8 = true;
	r = cmocka_run_group_tests_name("view-compact", tests, NULL, NULL);
	free(cv.c);
	return r;
}
