/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * stats.c - mean, standard deviation, Welch's t-test with the confidence
 * interval of the change, Holm-Bonferroni across a table (stats.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

/* Mean and sample standard deviation. */
void
stats_mean_sd(const double *v, int n, double *mean, double *sd)
{
	double	s = 0, q = 0;
	int	i;

	for (i = 0; i < n; i++)
		s += v[i];
	*mean = n > 0 ? s / n : 0;
	for (i = 0; i < n; i++)
		q += (v[i] - *mean) * (v[i] - *mean);
	*sd = n > 1 ? sqrt(q / (n - 1)) : 0;
}

/* The continued fraction of I_x(a, b) (modified Lentz), for x < (a+1)/(a+b+2). */
static double
betacf(double x, double a, double b)
{
	const double	tiny = 1e-300, eps = 1e-15;
	double		c = 1, d = 1 - (a + b) * x / (a + 1), h, num, del;
	int		m;

	if (fabs(d) < tiny)
		d = tiny;
	d = 1 / d;
	h = d;
	for (m = 1; m <= 300; m++) {
		/* the even step */
		num = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
		d = 1 + num * d;
		if (fabs(d) < tiny)
			d = tiny;
		c = 1 + num / c;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1 / d;
		h *= d * c;
		/* the odd step */
		num = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
		d = 1 + num * d;
		if (fabs(d) < tiny)
			d = tiny;
		c = 1 + num / c;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1 / d;
		del = d * c;
		h *= del;
		if (fabs(del - 1) < eps)
			break;
	}
	return h;
}

/* I_x(a, b), by the continued fraction on the side where it converges. */
double
stats_incbeta(double x, double a, double b)
{
	double	front;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) +
	    b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return front * betacf(x, a, b) / a;
	return 1 - front * betacf(1 - x, b, a) / b;
}

/* P(|T| >= |t|) for Student's t: I_{df/(df+t^2)}(df/2, 1/2). */
double
stats_t_p(double t, double df)
{
	if (!(df > 0) || isnan(t))
		return 1;
	if (isinf(t))
		return 0;
	return stats_incbeta(df / (df + t * t), df / 2, 0.5);
}

/* Bisection on stats_t_p, which falls as t grows. */
double
stats_t_quantile(double p, double df)
{
	double	lo = 0, hi = 1;
	int	i;

	if (!(p > 0 && p < 1) || !(df > 0))
		return NAN;
	while (stats_t_p(hi, df) > p && hi < 1e12)
		hi *= 2;
	for (i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
		double	mid = (lo + hi) / 2;

		if (stats_t_p(mid, df) > p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

/* One p-value and where it was, for sorting. */
struct pidx {
	double	p;
	int	i;
};

/* Order by p, then by index (a stable order for equal p). */
static int
pidx_cmp(const void *a, const void *b)
{
	const struct pidx	*x = a, *y = b;

	if (x->p != y->p)
		return x->p < y->p ? -1 : 1;
	return x->i - y->i;
}

/*
 * Holm's step-down: the k-th smallest p (k from 0) times n - k, made
 * monotone (never below the adjusted p before it), capped at 1.
 */
void
stats_holm(const double *p, int n, double *adj)
{
	struct pidx	*v;
	double		 run = 0;
	int		 k;

	if (n <= 0)
		return;
	v = calloc((size_t)n, sizeof *v);
	if (v == NULL)
		abort();
	for (k = 0; k < n; k++) {
		v[k].p = isnan(p[k]) ? 1 : p[k];
		v[k].i = k;
	}
	qsort(v, (size_t)n, sizeof *v, pidx_cmp);
	for (k = 0; k < n; k++) {
		double	a = v[k].p * (n - k);

		if (a > 1)
			a = 1;
		if (a < run)
			a = run;
		run = a;
		adj[v[k].i] = a;
	}
	free(v);
}

/* Welch's t-test of a against b, with the Welch-Satterthwaite df. */
void
stats_welch(const double *a, int na, const double *b, int nb, struct welch *w)
{
	double	va, vb, se;

	stats_mean_sd(a, na, &w->mean[0], &w->sd[0]);
	stats_mean_sd(b, nb, &w->mean[1], &w->sd[1]);
	w->n[0] = na;
	w->n[1] = nb;
	w->change_pct = w->mean[0] != 0 ?
	    (w->mean[1] - w->mean[0]) / fabs(w->mean[0]) * 100 : 0;
	w->t = 0;
	w->df = 0;
	w->p = 1;
	w->ci_lo_pct = w->ci_hi_pct = w->change_pct;
	if (na < 2 || nb < 2)
		return;
	va = w->sd[0] * w->sd[0] / na;
	vb = w->sd[1] * w->sd[1] / nb;
	se = sqrt(va + vb);
	if (se == 0) {
		/* No spread at all: identical means are no change, others are. */
		w->p = w->mean[0] == w->mean[1] ? 1 : 0;
		w->t = w->mean[0] == w->mean[1] ? 0 : INFINITY;
		return;
	}
	w->t = (w->mean[1] - w->mean[0]) / se;
	w->df = (va + vb) * (va + vb) / (va * va / (na - 1) + vb * vb / (nb - 1));
	w->p = stats_t_p(w->t, w->df);
	if (w->mean[0] != 0) {
		double	h = stats_t_quantile(0.05, w->df) * se / fabs(w->mean[0]) * 100;

		w->ci_lo_pct = w->change_pct - h;
		w->ci_hi_pct = w->change_pct + h;
	}
}

/*
 * The least-squares fit of y = mu + delta * side + gamma * block over
 * both samples (side 0 for a, 1 for b; block 0 or 1 each): delta, the
 * side's effect with the block's taken out, tested by t = delta / se
 * with n - 3 degrees of freedom.  From the centred sums of squares and
 * products (S_ss, S_bb, S_sb, S_sy, S_by, S_yy) of the 2 x 2 layout:
 * delta = (S_bb S_sy - S_sb S_by) / D, D = S_ss S_bb - S_sb^2,
 * se^2 = s^2 S_bb / D, s^2 = the residual sum of squares / (n - 3).
 * Returns -1 when the layout does not separate side from block (D near
 * 0: one block only, or each side on a block of its own) or n < 4.
 */
int
stats_blocked(const double *a, const int *ba, int na, const double *b,
    const int *bb, int nb, struct welch *w)
{
	double	ms = 0, mb = 0, my = 0, sss = 0, sbb = 0, ssb = 0, ssy = 0;
	double	sby = 0, syy = 0, d, delta, gamma, rss, se, s, bl, y;
	int	n = na + nb, i;

	if (na < 2 || nb < 2 || n < 4)
		return -1;
	for (i = 0; i < n; i++) {
		s = i >= na;
		bl = s ? bb[i - na] : ba[i];
		if (bl != 0 && bl != 1)
			return -1;
		ms += s;
		mb += bl;
		my += s ? b[i - na] : a[i];
	}
	ms /= n;
	mb /= n;
	my /= n;
	for (i = 0; i < n; i++) {
		s = (i >= na) - ms;
		bl = (i >= na ? bb[i - na] : ba[i]) - mb;
		y = (i >= na ? b[i - na] : a[i]) - my;
		sss += s * s;
		sbb += bl * bl;
		ssb += s * bl;
		ssy += s * y;
		sby += bl * y;
		syy += y * y;
	}
	d = sss * sbb - ssb * ssb;
	if (sbb < 1e-9 || d < 1e-9 * sss * sbb)
		return -1;
	stats_welch(a, na, b, nb, w);
	delta = (sbb * ssy - ssb * sby) / d;
	gamma = (sss * sby - ssb * ssy) / d;
	rss = syy - delta * ssy - gamma * sby;
	if (rss < 0)
		rss = 0;
	se = sqrt(rss / (n - 3) * sbb / d);
	w->df = n - 3;
	w->change_pct = w->mean[0] != 0 ? delta / fabs(w->mean[0]) * 100 : 0;
	w->ci_lo_pct = w->ci_hi_pct = w->change_pct;
	if (se == 0) {
		w->p = delta == 0 ? 1 : 0;
		w->t = delta == 0 ? 0 : INFINITY;
		return 0;
	}
	w->t = delta / se;
	w->p = stats_t_p(w->t, w->df);
	if (w->mean[0] != 0) {
		double	h = stats_t_quantile(0.05, w->df) * se / fabs(w->mean[0]) * 100;

		w->ci_lo_pct = w->change_pct - h;
		w->ci_hi_pct = w->change_pct + h;
	}
	return 0;
}
