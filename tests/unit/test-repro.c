/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test-repro.c - unit tests of umkit reproduce's reading of guest result
 * lines (uml/repro/repro-out.c) and of its per-row verdicts: the
 * thread's direction, the spread, Holm's adjustment.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "repro/repro.h"

static struct repro_cmp cmp[REPRO_MAX_ROWS][REPRO_MAX_COLS];

/* The row of seed s whose key and group are these, or -1. */
static int
row_of(const struct repro_seed *s, const char *key, int group)
{
	int	r;

	for (r = 0; s->row[r].name != NULL; r++)
		if (strcmp(s->row[r].key, key) == 0 && s->row[r].group == group)
			return r;
	return -1;
}

/* Parse text (copied: the parser cuts it) as group g's output. */
static int
parse(struct repro_data *d, int g, const char *text)
{
	char	*b = strdup(text);
	int	 n = repro_parse_out(d, g, b);

	free(b);
	return n;
}

/* Seeds by number, and nothing else. */
static void
t_find(void **state)
{
	assert_non_null(repro_find("002"));
	assert_ptr_equal(repro_find("2"), repro_find("002"));
	assert_string_equal(repro_find("04")->id, "004");
	assert_null(repro_find("5"));
	assert_null(repro_find("x"));
	assert_null(repro_find("0002"));
	assert_null(repro_find(""));
	assert_null(repro_find("-1"));
}

/* Thread figures as the threads print them. */
static void
t_thread_value(void **state)
{
	assert_true(fabs(repro_thread_value("120.69M") - 1.2069e8) < 1);
	assert_true(fabs(repro_thread_value("44017.78") - 44017.78) < 1e-9);
	assert_true(fabs(repro_thread_value("0.92 s") - 0.92) < 1e-12);
	assert_true(isnan(repro_thread_value("-")));
	assert_true(isnan(repro_thread_value(NULL)));
}

/* Good lines give samples; bad columns, names and numbers are refused. */
static void
t_parse(void **state)
{
	const struct repro_seed *s = repro_find("002");
	struct repro_data d;
	int	iso = row_of(s, "isolated", 0), eff = row_of(s, "efficiency", 0);

	repro_data_init(&d, s);
	assert_int_equal(parse(&d, 0,
	    "boot noise\n"
	    "repro: before isolated=100 efficiency=12.5\n"
	    "repro: fixed isolated=98 efficiency=14\n"
	    "repro:fixed isolated=1\n"
	    "x repro: fixed isolated=1\n"), 4);
	assert_int_equal(d.n[iso][0], 1);
	assert_int_equal(d.n[iso][1], 1);
	assert_true(d.v[eff][1][0] == 14);
	assert_int_equal(d.refused, 0);
	/* An unknown column: the whole line. */
	assert_int_equal(parse(&d, 0, "repro: after isolated=3\n"), 0);
	assert_int_equal(d.refused, 1);
	/* Bad values: refused, the line's good pairs kept. */
	assert_int_equal(parse(&d, 0, "repro: fixed isolated=nan efficiency=13 "
	    "isolated=1e999\n"), 1);
	assert_int_equal(d.n[iso][1], 1);
	assert_int_equal(d.n[eff][1], 2);
	assert_int_equal(d.refused, 2);
	/* A key no row has is no sample and no error; a bad name ends the line. */
	assert_int_equal(parse(&d, 0, "repro: fixed unknown_key=5\n"), 0);
	assert_int_equal(parse(&d, 0, "repro: fixed Isolated=5 isolated=6\n"), 0);
	assert_int_equal(parse(&d, 0, "repro: fixed isolated=\n"), 0);
	assert_int_equal(d.n[iso][1], 1);
	repro_data_free(&d);
}

/* A key in several groups reaches only the rows of the boot's group. */
static void
t_groups(void **state)
{
	const struct repro_seed *s = repro_find("001");
	struct repro_data d;
	int	r1 = row_of(s, "permm_ns", 1), r2 = row_of(s, "permm_ns", 0);

	assert_true(r1 >= 0 && r2 >= 0 && r1 != r2);
	repro_data_init(&d, s);
	parse(&d, 1, "repro: lazy permm_ns=700\nrepro-info: zone\x1b[2J pages=5\n");
	assert_int_equal(d.n[r1][2], 1);
	assert_int_equal(d.n[r2][2], 0);
	assert_int_equal(d.ninfo, 1);
	assert_string_equal(d.info[0], "zone?[2J pages=5");
	assert_int_equal(d.info_g[0], 1);
	/* The same context line twice is kept once. */
	parse(&d, 1, "repro-info: zone\x1b[2J pages=5\n");
	assert_int_equal(d.ninfo, 1);
	repro_data_free(&d);
}

/* Fill row r, column c of d with n samples around mean m, spread sd. */
static void
fill(struct repro_data *d, int r, int c, int n, double m, double sd)
{
	char	line[128];
	int	i;

	for (i = 0; i < n; i++) {
		snprintf(line, sizeof line, "repro: %s %s=%.6f\n", d->s->col[c],
		    d->s->row[r].key, m + (i % 2 ? sd : -sd));
		parse(d, d->s->row[r].group, line);
	}
}

/* The verdicts: direction against the thread's, beyond the spread, Holm. */
static void
t_verdicts(void **state)
{
	const struct repro_seed *s = repro_find("002");
	struct repro_data d;
	int	eff = row_of(s, "efficiency", 0), fs = row_of(s, "free_scanned", 0);
	int	iso = row_of(s, "isolated", 0), al = row_of(s, "allocated", 0);

	repro_data_init(&d, s);
	/* efficiency up, as the thread's 12.03 -> 14.26 */
	fill(&d, eff, 0, 10, 12, 0.2);
	fill(&d, eff, 1, 10, 14, 0.2);
	/* free scanned up, against the thread's fall, by a lot */
	fill(&d, fs, 0, 10, 1000, 5);
	fill(&d, fs, 1, 10, 1100, 5);
	/* isolated: no telling */
	fill(&d, iso, 0, 10, 500, 20);
	fill(&d, iso, 1, 10, 501, 20);
	/* allocated: one side only */
	fill(&d, al, 0, 5, 10, 1);
	repro_stats(&d, cmp);
	assert_true(cmp[eff][1].ok);
	assert_int_equal(cmp[eff][1].dir, 1);
	assert_true(cmp[eff][1].beyond);
	assert_true(cmp[eff][1].p_holm < 0.05);
	assert_true(fabs(cmp[eff][1].thread_pct - (14.26 - 12.03) / 12.03 * 100) < 1e-9);
	assert_true(cmp[eff][1].ci_lo > 0 && cmp[eff][1].ci_hi > cmp[eff][1].ci_lo);
	assert_int_equal(cmp[fs][1].dir, -1);
	assert_true(cmp[fs][1].beyond);
	assert_false(cmp[iso][1].beyond);
	assert_true(cmp[iso][1].p_holm > 0.5);
	/* Holm never lowers a p-value. */
	assert_true(cmp[iso][1].p_holm >= cmp[iso][1].p);
	assert_false(cmp[al][1].ok);
	assert_true(isnan(cmp[al][1].thread_pct));
	repro_data_free(&d);
}

/* Samples past the bound are counted as refused, never written. */
static void
t_bound(void **state)
{
	const struct repro_seed *s = repro_find("002");
	struct repro_data d;
	size_t	len = (size_t)(REPRO_MAX_SAMPLES + 10) * 40 + 1, o = 0;
	char	*big = malloc(len);
	int	i, iso = row_of(s, "isolated", 0);

	for (i = 0; i < REPRO_MAX_SAMPLES + 10; i++)
		o += snprintf(big + o, len - o, "repro: before isolated=%d\n", i);
	repro_data_init(&d, s);
	repro_parse_out(&d, 0, big);
	assert_int_equal(d.n[iso][0], REPRO_MAX_SAMPLES);
	assert_int_equal(d.refused, 10);
	repro_data_free(&d);
	free(big);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_find),
		cmocka_unit_test(t_thread_value),
		cmocka_unit_test(t_parse),
		cmocka_unit_test(t_groups),
		cmocka_unit_test(t_verdicts),
		cmocka_unit_test(t_bound),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
