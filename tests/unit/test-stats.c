/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test-stats.c - unit tests of uml/patch/stats.c against known values: the
 * incomplete beta function, Student's t tail, and Welch's t-test on a
 * textbook pair of samples.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "patch/stats.h"

/* I_x(a, b) at points with closed forms. */
static void
t_incbeta(void **state)
{
	assert_true(fabs(stats_incbeta(0.5, 2, 3) - 0.6875) < 1e-12);
	assert_true(fabs(stats_incbeta(0.3, 1, 1) - 0.3) < 1e-12);
	assert_true(fabs(stats_incbeta(0.7, 3, 1) - pow(0.7, 3)) < 1e-12);
	assert_true(fabs(stats_incbeta(0.2, 1, 4) - (1 - pow(0.8, 4))) < 1e-12);
	/* I_x(1/2, 1/2) = 2/pi asin(sqrt x) */
	assert_true(fabs(stats_incbeta(0.25, 0.5, 0.5) - 2 / M_PI * asin(0.5)) < 1e-10);
	assert_true(stats_incbeta(0, 2, 2) == 0 && stats_incbeta(1, 2, 2) == 1);
}

/* Student's t: critical values from the tables. */
static void
t_student(void **state)
{
	assert_true(fabs(stats_t_p(2.228139, 10) - 0.05) < 1e-5);
	assert_true(fabs(stats_t_p(12.7062, 1) - 0.05) < 1e-4);
	assert_true(fabs(stats_t_p(2.575829, 1e7) - 0.01) < 1e-5);
	assert_true(fabs(stats_t_p(0, 5) - 1) < 1e-12);
	/* df = 1 is Cauchy: p = 1 - 2/pi atan(t) */
	assert_true(fabs(stats_t_p(3, 1) - (1 - 2 / M_PI * atan(3))) < 1e-10);
}

/* Welch's test on two small samples (t and df checked by hand). */
static void
t_welch(void **state)
{
	double		a[] = { 19.8, 20.4, 19.6, 17.8, 18.5, 18.9, 18.3, 18.9, 19.5, 22.0 };
	double		b[] = { 28.2, 26.6, 20.1, 23.3, 25.2, 22.1, 17.7, 27.6, 20.6, 13.7,
	    23.2, 17.5, 20.6, 18.0, 23.9, 21.6, 24.3, 20.4, 23.9, 13.3 };
	double		same[] = { 1, 2, 3, 4, 5 };
	struct welch	w;

	stats_welch(a, 10, b, 20, &w);
	/* t = 2.2255, df = 24.52 (by hand); p ~ 0.036, between the 5% and
	 * 2.5% two-sided critical values of t(24) (2.064 and 2.492) */
	assert_true(fabs(w.mean[0] - 19.37) < 1e-9);
	assert_true(fabs(w.t - 2.225512) < 1e-5);
	assert_true(fabs(w.df - 24.524635) < 1e-5);
	assert_true(w.p > 0.02 && w.p < 0.05);
	assert_true(fabs(w.p - 0.0355) < 0.002);
	stats_welch(same, 5, same, 5, &w);
	assert_true(w.p == 1 && w.t == 0 && w.change_pct == 0);
	stats_welch(same, 1, same, 5, &w);
	assert_true(w.p == 1);
}

/*
 * The test with a two-level block taken out, on a run of compare -n 5
 * --bench procbench base against the slow-fork fixture (fork_min_us):
 * one host CPU ran fork 1541 us slower, the sides alternated CPUs, and
 * Welch's test saw nothing (p 0.128).  Least squares of y = mu + delta
 * side + gamma cpu (solved by matrix inversion elsewhere): delta 632.83,
 * gamma 1540.83, t on 7 df, p 0.0021.
 */
static void
t_blocked(void **state)
{
	double		a[] = { 3625, 4782, 3386, 4775, 3399 };
	double		b[] = { 5526, 3635, 5660, 4106, 5745 };
	int		ca[] = { 0, 1, 0, 1, 0 }, cb[] = { 1, 0, 1, 0, 1 };
	int		one[] = { 0, 0, 0, 0, 0 }, two[] = { 1, 1, 1, 1, 1 };
	double		x[] = { 10, 20, 10, 20 }, y[] = { 25, 15, 25, 15 };
	int		cx[] = { 0, 1, 0, 1 }, cy[] = { 1, 0, 1, 0 };
	struct welch	w;

	stats_welch(a, 5, b, 5, &w);
	assert_true(w.p > 0.12 && w.p < 0.13);
	assert_int_equal(stats_blocked(a, ca, 5, b, cb, 5, &w), 0);
	assert_true(fabs(w.df - 7) < 1e-12);
	assert_true(fabs(w.change_pct - 632.8333333 / w.mean[0] * 100) < 1e-6);
	assert_true(fabs(w.p - 0.002137915) < 1e-6);
	assert_true(w.ci_lo_pct > 0 && w.ci_lo_pct < w.change_pct && w.ci_hi_pct > w.change_pct);
	/* the plain means stay: the table shows them beside the change */
	assert_true(fabs(w.mean[0] - 3993.4) < 1e-9 && fabs(w.mean[1] - 4934.4) < 1e-9);
	/* an exact fit: +5 for b, +10 for block 1; no spread left */
	assert_int_equal(stats_blocked(x, cx, 4, y, cy, 4, &w), 0);
	assert_true(w.p == 0 && fabs(w.change_pct - 5.0 / 15 * 100) < 1e-9);
	/* one block, or each side in a block of its own: not separable */
	assert_int_equal(stats_blocked(a, one, 5, b, one, 5, &w), -1);
	assert_int_equal(stats_blocked(a, one, 5, b, two, 5, &w), -1);
	assert_int_equal(stats_blocked(a, ca, 1, b, cb, 5, &w), -1);
	/* a block that is not 0 or 1 (a third host CPU) */
	cb[2] = 2;
	assert_int_equal(stats_blocked(a, ca, 5, b, cb, 5, &w), -1);
}

/* Student's t quantiles against the textbook table (two-sided 5%, 1%). */
static void
t_quantile(void **state)
{
	assert_true(fabs(stats_t_quantile(0.05, 1) - 12.7062) < 1e-3);
	assert_true(fabs(stats_t_quantile(0.05, 10) - 2.2281) < 1e-4);
	assert_true(fabs(stats_t_quantile(0.05, 24) - 2.0639) < 1e-4);
	assert_true(fabs(stats_t_quantile(0.01, 24) - 2.7969) < 1e-4);
	assert_true(fabs(stats_t_quantile(0.05, 1e6) - 1.95996) < 1e-4);
	assert_true(isnan(stats_t_quantile(0, 5)) && isnan(stats_t_quantile(0.05, 0)));
	(void)state;
}

/* Holm's adjusted p-values, by hand: sorted 0.005 0.01 0.03 0.04 times
 * 4 3 2 1 = 0.02 0.03 0.06 0.04, made monotone: 0.02 0.03 0.06 0.06. */
static void
t_holm(void **state)
{
	double	p[] = { 0.01, 0.04, 0.03, 0.005 }, adj[4];
	double	big[] = { 0.5, 0.9 }, one[] = { 0.03 };

	stats_holm(p, 4, adj);
	assert_true(fabs(adj[0] - 0.03) < 1e-12 && fabs(adj[1] - 0.06) < 1e-12);
	assert_true(fabs(adj[2] - 0.06) < 1e-12 && fabs(adj[3] - 0.02) < 1e-12);
	stats_holm(big, 2, big);			/* in place, capped at 1 */
	assert_true(big[0] == 1 && big[1] == 1);
	stats_holm(one, 1, one);			/* one test: unchanged */
	assert_true(one[0] == 0.03);
	(void)state;
}

/* The change's 95% interval: t(df) standard errors either side, in % of
 * the base mean; it leaves out 0 exactly when p < 0.05. */
static void
t_welch_ci(void **state)
{
	double		a[] = { 19.8, 20.4, 19.6, 17.8, 18.5, 18.9, 18.3, 18.9, 19.5, 22.0 };
	double		b[] = { 28.2, 26.6, 20.1, 23.3, 25.2, 22.1, 17.7, 27.6, 20.6, 13.7,
	    23.2, 17.5, 20.6, 18.0, 23.9, 21.6, 24.3, 20.4, 23.9, 13.3 };
	double		c[] = { 19.0, 20.9, 19.1, 18.4, 19.3, 18.2, 19.9, 18.6, 19.4, 21.5 };
	double		se, h;
	struct welch	w;

	stats_welch(a, 10, b, 20, &w);
	se = (w.mean[1] - w.mean[0]) / w.t;
	h = stats_t_quantile(0.05, w.df) * se / w.mean[0] * 100;
	assert_true(fabs(w.ci_lo_pct - (w.change_pct - h)) < 1e-9);
	assert_true(fabs(w.ci_hi_pct - (w.change_pct + h)) < 1e-9);
	assert_true(w.p < 0.05 && w.ci_lo_pct > 0);
	stats_welch(a, 10, c, 10, &w);
	assert_true(w.p > 0.05 && w.ci_lo_pct < 0 && w.ci_hi_pct > 0);
	(void)state;
}

/* Run the stats tests. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_incbeta),
		cmocka_unit_test(t_student),
		cmocka_unit_test(t_welch),
		cmocka_unit_test(t_blocked),
		cmocka_unit_test(t_quantile),
		cmocka_unit_test(t_holm),
		cmocka_unit_test(t_welch_ci),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
