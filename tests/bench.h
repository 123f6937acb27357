/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bench.h - timing helpers shared by the benchmark programs
 * (bench-mirror.c, bench-mirror-guest.c, unit/bench-link.c).
 */
#ifndef UMKIT_BENCH_H
#define UMKIT_BENCH_H

#include <stdlib.h>
#include <time.h>

/* Microseconds on the monotonic clock. */
static inline double
bench_now_us(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* Order doubles for qsort. */
static inline int
bench_cmp(const void *a, const void *b)
{
	double	x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The p-th percentile (0-100) of n samples; sorts them in place. */
static inline double
bench_pct(double *v, size_t n, int p)
{
	qsort(v, n, sizeof *v, bench_cmp);
	return v[n * (size_t)p / 100 < n ? n * (size_t)p / 100 : n - 1];
}

#endif
