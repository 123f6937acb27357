/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test-repro.c - unit tests of umkit reproduce's reading of guest result
 * lines (uml/repro/repro-out.c) and of its per-row verdicts: the
 * thread's direction, the spread, Holm's adjustment; and of a stored run
 * written and read back (uml/repro/repro-json.c).
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
#include <jansson.h>

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

/* No more boots at once than give each guest CPU a host CPU of its own. */
static void
t_jobs(void **state)
{
	/* 004: a guest of 2 CPUs */
	assert_int_equal(repro_jobs(repro_find("004"), 2, 2), 1);
	assert_int_equal(repro_jobs(repro_find("004"), 2, 4), 2);
	assert_int_equal(repro_jobs(repro_find("004"), 4, 4), 2);
	assert_int_equal(repro_jobs(repro_find("004"), 1, 8), 1);
	/* 002: one CPU, two at a time on two host CPUs as before */
	assert_int_equal(repro_jobs(repro_find("002"), 2, 2), 2);
	assert_int_equal(repro_jobs(repro_find("002"), 3, 2), 3);
	/* 001: its sweep reaches 16 CPUs: one at a time below 32 */
	assert_int_equal(repro_jobs(repro_find("001"), 2, 2), 1);
	assert_int_equal(repro_jobs(repro_find("001"), 2, 16), 1);
	assert_int_equal(repro_jobs(repro_find("001"), 2, 32), 2);
	/* a host of one CPU */
	assert_int_equal(repro_jobs(repro_find("004"), 2, 1), 1);
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

/* Seed 001's run with samples in two boot groups and context lines. */
static void
stored_run(struct repro_data *d)
{
	const struct repro_seed *s = repro_find("001");

	repro_data_init(d, s);
	fill(d, row_of(s, "permm_ns", 0), 0, 5, 1.0 / 3, 0.1);
	fill(d, row_of(s, "permm_ns", 0), 2, 4, 1e-300, 1e-301);
	fill(d, row_of(s, "permm_ns", 1), 1, 3, 123456789.125, 7);
	parse(d, 1, "repro-info: zone pages=5\nrepro-info: cpus=16\n");
	parse(d, 0, "repro-info: zone pages=5\n");
	d->host = strdup("2 CPUs, kernel 6.1.0");
	d->boots = 6;
	d->secs = 41.5;
	d->quick = 1;
	d->refused = 2;
}

/* dumps(repro_json(d)) read back. */
static int
round_trip(const struct repro_data *d, int nd, struct repro_data *out, int max,
    char *err, size_t len)
{
	json_t	*j = repro_json(d, nd);
	char	*t = json_dumps(j, JSON_INDENT(1));
	int	 n = repro_json_parse(t, strlen(t), out, max, err, len);

	json_decref(j);
	free(t);
	return n;
}

/* A stored run reads back with every sample exact and the run's facts. */
static void
t_json_round(void **state)
{
	struct repro_data d[2], e[2];
	char	err[512];
	int	r, c, i;

	stored_run(&d[0]);
	repro_data_init(&d[1], repro_find("004"));
	d[1].host = strdup("h");
	d[1].boots = 1;
	assert_int_equal(round_trip(d, 2, e, 2, err, sizeof err), 2);
	for (i = 0; i < 2; i++) {
		assert_ptr_equal(e[i].s, d[i].s);
		assert_string_equal(e[i].host, d[i].host);
		assert_int_equal(e[i].boots, d[i].boots);
		assert_int_equal(e[i].quick, d[i].quick);
		assert_int_equal(e[i].refused, d[i].refused);
		assert_true(e[i].secs == d[i].secs);
		assert_null(e[i].from);
		for (r = 0; r < REPRO_MAX_ROWS; r++)
			for (c = 0; c < REPRO_MAX_COLS; c++) {
				assert_int_equal(e[i].n[r][c], d[i].n[r][c]);
				if (d[i].n[r][c] > 0)
					assert_memory_equal(e[i].v[r][c], d[i].v[r][c],
					    sizeof (double) * (size_t)d[i].n[r][c]);
			}
	}
	assert_int_equal(e[0].ninfo, 3);
	for (i = 0; i < 3; i++) {
		assert_string_equal(e[0].info[i], d[0].info[i]);
		assert_int_equal(e[0].info_g[i], d[0].info_g[i]);
	}
	/* One seed wanted, two in the file. */
	assert_int_equal(round_trip(d, 2, e + 1, 1, err, sizeof err), -1);
	assert_string_equal(err, "2 seeds, at most 1");
	for (i = 0; i < 2; i++) {
		repro_data_free(&d[i]);
		repro_data_free(&e[i]);
	}
}

/* JSON text of seed 001's stored run, changed by edit (a jansson path). */
static char *
edited(void (*edit)(json_t *seed))
{
	struct repro_data d;
	json_t	*j;
	char	*t;

	stored_run(&d);
	j = repro_json(&d, 1);
	edit(json_array_get(j, 0));
	t = json_dumps(j, 0);
	json_decref(j);
	repro_data_free(&d);
	return t;
}

static json_t *
col_of_row(json_t *seed, int r, int c)
{
	return json_array_get(json_object_get(json_array_get(json_object_get(seed,
	    "rows"), (size_t)r), "columns"), (size_t)c);
}

static void e_format(json_t *o) { json_object_set_new(o, "format", json_integer(2)); }
static void e_seed(json_t *o) { json_object_set_new(o, "seed", json_string("9\x1b[2J")); }
static void e_row(json_t *o) { json_object_set_new(json_array_get(json_object_get(o, "rows"), 1),
	"key", json_string("other")); }
static void e_rows(json_t *o) { json_array_remove(json_object_get(o, "rows"), 0); }
static void e_col(json_t *o) { json_object_set_new(col_of_row(o, 0, 2), "column",
	json_string("revert")); }
static void e_sample(json_t *o) { json_array_append_new(json_object_get(col_of_row(o, 0, 0),
	"samples"), json_string("1e999")); }
static void e_many(json_t *o) {
	json_t *a = json_object_get(col_of_row(o, 0, 0), "samples");
	int i;

	for (i = 0; i <= REPRO_MAX_SAMPLES; i++)
		json_array_append_new(a, json_real(i));
}
static void e_info(json_t *o) { json_object_set_new(json_array_get(json_object_get(o, "info"), 0),
	"text", json_string("a\x1b[2Jb")); }
static void e_group(json_t *o) { json_object_set_new(json_array_get(json_object_get(o, "info"), 0),
	"group", json_integer(5)); }
static void e_host(json_t *o) { json_object_del(o, "host"); }
static void e_secs(json_t *o) { json_object_set_new(o, "secs", json_real(-1)); }

/* A stored run that is not one of this kit's: -1, where, nothing kept. */
static void
t_json_bad(void **state)
{
	static const struct {
		void		(*edit)(json_t *);
		const char	*err;
	} cases[] = {
		{ e_format, "entry 1: not a seed of umkit reproduce --json (\"format\": 1)" },
		{ e_seed, "entry 1: no seed '9?[2J' in this kit" },
		{ e_row, "entry 1 (seed 001): row 2 is not the kit's" },
		{ e_rows, "entry 1 (seed 001): want \"rows\", the seed's" },
		{ e_col, "entry 1 (seed 001): row 1 (fork_us), column 3: want the column 'lazy'" },
		{ e_sample, "entry 1 (seed 001): row 1 (fork_us), column 1: sample 1 is not a finite number" },
		{ e_many, "entry 1 (seed 001): row 1 (fork_us), column 1: 2049 samples, at most 2048" },
		{ e_info, "entry 1 (seed 001): info 1: want a \"text\" of 1 to 160 bytes, no control" },
		{ e_group, "entry 1 (seed 001): info 1: want a \"group\" from 0 to" },
		{ e_host, "entry 1 (seed 001): want \"host\"" },
		{ e_secs, "entry 1 (seed 001): want \"secs\"" },
	};
	struct repro_data d[1];
	char	err[512], *t;
	size_t	i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		t = edited(cases[i].edit);
		assert_int_equal(repro_json_parse(t, strlen(t), d, 1, err, sizeof err), -1);
		if (strncmp(err, cases[i].err, strlen(cases[i].err)) != 0)
			fail_msg("case %zu: got '%s', want '%s...'", i, err, cases[i].err);
		free(t);
	}
	assert_int_equal(repro_json_parse("[1, 2", 5, d, 1, err, sizeof err), -1);
	assert_string_equal(err, "line 1: not JSON (']' expected near end of file)");
	assert_int_equal(repro_json_parse("{}", 2, d, 1, err, sizeof err), -1);
	assert_string_equal(err, "not umkit reproduce --json's array of seeds");
	assert_int_equal(repro_json_parse("[]", 2, d, 1, err, sizeof err), -1);
	assert_int_equal(repro_json_parse("[{\"a\":1,\"a\":2}]", 15, d, 1, err, sizeof err), -1);
	assert_int_equal(strncmp(err, "line 1: not JSON (duplicate object key", 37), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_find),
		cmocka_unit_test(t_jobs),
		cmocka_unit_test(t_thread_value),
		cmocka_unit_test(t_parse),
		cmocka_unit_test(t_groups),
		cmocka_unit_test(t_verdicts),
		cmocka_unit_test(t_bound),
		cmocka_unit_test(t_json_round),
		cmocka_unit_test(t_json_bad),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
