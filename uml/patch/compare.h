/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * compare.h - the coverage pass of 'umkit compare --coverage'
 * (compare-cov.c), run after the comparison table (bench.h).
 */
#ifndef UMKIT_COMPARE_H
#define UMKIT_COMPARE_H

/*
 * Build variant v with gcov for the .c files its patches change, run the
 * benchmarks names once on it (cost: n times against plain, gcov's
 * run-time cost; each boot after setup), and report per hunk which added lines ran; the coverage goes into json
 * too when it is not NULL.  0, a failed boot's status, or EXIT_KIT.
 */
int	compare_cov(const char *v, const char *plain, const char *setup,
	    const char *names, int n, int jobs, int cost, const char *json);

/* Exit (naming why) when variant v has no patches for --coverage. */
void	compare_cov_check(const char *v);

#endif
