/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * stats.h - the statistics of a before/after comparison: mean, standard
 * deviation, Welch's t-test (unequal variances), and a t-test with a
 * two-level block taken out (least squares), with p-values from the
 * regularized incomplete beta function, written here.
 */
#ifndef UMKIT_STATS_H
#define UMKIT_STATS_H

struct welch {
	double	mean[2], sd[2];	/* sample mean and standard deviation */
	int	n[2];
	double	t, df;		/* Welch's t and Welch-Satterthwaite df */
	double	p;		/* two-sided p-value; 1 when undefined */
	double	change_pct;	/* (mean[1] - mean[0]) / mean[0] * 100 */
	/* The 95% confidence interval of the change, in % of |mean[0]|
	 * (Welch's: t at df, two-sided); change_pct both when undefined. */
	double	ci_lo_pct, ci_hi_pct;
};

/* The mean and sample standard deviation (n - 1) of n values. */
void	stats_mean_sd(const double *v, int n, double *mean, double *sd);
/* I_x(a, b), the regularized incomplete beta function (0 <= x <= 1). */
double	stats_incbeta(double x, double a, double b);
/* Two-sided p of Student's t with df degrees of freedom. */
double	stats_t_p(double t, double df);
/* t such that a two-sided p of Student's t with df is p (0 < p < 1). */
double	stats_t_quantile(double p, double df);
/*
 * Holm-Bonferroni: adj[i] is p[i] adjusted for the n tests together, so
 * that "adj[i] < alpha" for any i has a chance of at most alpha when no
 * test has an effect (the family-wise error rate).  adj may be p.
 */
void	stats_holm(const double *p, int n, double *adj);
/* Compare samples a (base) and b (patched). */
void	stats_welch(const double *a, int na, const double *b, int nb,
	    struct welch *);
/*
 * Compare a and b when each sample ran in one of two blocks (ba[i],
 * bb[i]: 0 or 1; the host CPU a benchmark boot ran on): the change is
 * the least-squares effect of b with the block's effect taken out, its
 * t-test on n - 3 degrees of freedom; mean[] and sd[] stay the plain
 * ones of each side.  -1 (w untouched) when the blocks do not separate
 * from the sides, or fewer than 2 samples a side.
 */
int	stats_blocked(const double *a, const int *ba, int na, const double *b,
	    const int *bb, int nb, struct welch *);

#endif
