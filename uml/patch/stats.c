/* SPDX-License-Identifier: GPL-2.0-only */
/* stats.c - mean, standard deviation, Welch's t-test (stats.h). */
#include <math.h>

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
}
