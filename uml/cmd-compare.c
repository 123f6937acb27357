/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cmd-compare.c - 'umkit compare A B': the benchmarks on two kernels
 * (variants, or smoke-HASH variants), N interleaved boots each, or two
 * saved --json result files; the lkp-style table with a t-test per metric.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "patch/bench.h"
#include "patch/compare.h"
#include "kernel/kbuild.h"
#include "umkit.h"
#include "util.h"

/* Whether arg names a saved result file rather than a variant. */
static int
is_json(const char *arg)
{
	size_t	n = strlen(arg);

	return n > 5 && strcmp(arg + n - 5, ".json") == 0;
}

/* umkit compare [--bench NAMES] [-n N] [--json FILE] A B */
static int
compare_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "bench", required_argument, NULL, 'b' },
		{ "json", required_argument, NULL, 'J' },
		{ "plot", required_argument, NULL, 'p' },
		{ "setup-a", required_argument, NULL, 'A' },
		{ "setup-b", required_argument, NULL, 'B' },
		{ "coverage", no_argument, NULL, 'C' },
		{ "coverage-cost", no_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 }
	};
	struct bres	 r;
	const char	*names = "procbench", *json = NULL, *plot = NULL, *label[2];
	const char	*setup[2] = { NULL, NULL };
	char		*kern[2], err[512], *end, *lab[2] = { NULL, NULL };
	int		 c, n = 5, rc, i, jobs = 0, coverage = 0, cost = 0;

	while ((c = getopt_long(argc, argv, "n:j:", longopts, NULL)) != -1) {
		switch (c) {
		case 'b':
			names = optarg;
			break;
		case 'J':
			json = optarg;
			break;
		case 'p':
			plot = optarg;
			break;
		case 'C':
			coverage = 1;
			break;
		case 'c':
			coverage = cost = 1;
			break;
		case 'A':
		case 'B':
			if (*optarg == '\0')
				fatalx("--setup-%c: an empty command", c == 'A' ? 'a' : 'b');
			setup[c == 'B'] = optarg;
			break;
		case 'j':
			jobs = strtol(optarg, &end, 10);
			if (*optarg == '\0' || *end != '\0' || jobs < 1 || jobs > BENCH_MAX_JOBS)
				fatalx("-j %s: want 1 to %d boots at a time", optarg, BENCH_MAX_JOBS);
			break;
		case 'n':
			n = strtol(optarg, &end, 10);
			if (*optarg == '\0' || *end != '\0' || n < 2 || n > BENCH_MAX_BOOTS)
				fatalx("-n %s: want 2 to %d boots", optarg, BENCH_MAX_BOOTS);
			break;
		default:
			return cmd_usage(&cmd_compare);
		}
	}
	if (argc - optind != 2)
		return cmd_usage(&cmd_compare);
	label[0] = argv[optind];
	label[1] = argv[optind + 1];
	if (is_json(label[0]) != is_json(label[1]))
		fatalx("compare two variants or two .json result files, not one of each");
	if (is_json(label[0])) {
		if (coverage)
			fatalx("--coverage: saved results are not booted again");
		if (setup[0] != NULL || setup[1] != NULL)
			fatalx("--setup-a/--setup-b: saved results are not booted again");
		memset(&r, 0, sizeof r);
		for (i = 0; i < 2; i++)
			if (bench_json_read(&r, i, label[i], err, sizeof err) < 0)
				fatalx("%s", err);
		bench_table(&r, stdout);
		if (plot != NULL && bench_plot(&r, plot, err, sizeof err) < 0)
			fatalx("%s", err);
		bench_free(&r);
		return 0;
	}
	if (bench_check(names, err, sizeof err) < 0)
		fatalx("--bench %s: %s", names, err);
	if (coverage)
		compare_cov_check(label[1]);
	for (i = 0; i < 2; i++) {
		if (strchr(label[i], '/') != NULL || *label[i] == '.')
			fatalx("%s: not a variant name or a .json result file", label[i]);
		kern[i] = kbuild_kernel(label[i]);
	}
	/* One variant against itself with two setups: name the sides. */
	if (strcmp(label[0], label[1]) == 0)
		for (i = 0; i < 2; i++)
			label[i] = lab[i] = xasprintf("%c:%s", 'A' + i, label[i]);
	if (jobs == 0) {
		char	why[256];

		if ((jobs = bench_host_jobs(why, sizeof why)) == 1)
			fprintf(stderr, "compare: one boot at a time: %s (-j 2 "
			    "to run two anyway)\n", why);
	}
	rc = bench_run((const char **)kern, label, setup, names, n, jobs, &r);
	if (rc == 0) {
		bench_table(&r, stdout);
		if (json != NULL && bench_json_write(&r, json) < 0)
			fatalx("cannot write %s", json);
		if (plot != NULL && bench_plot(&r, plot, err, sizeof err) < 0)
			fatalx("%s", err);
	}
	bench_free(&r);
	if (rc == 0 && coverage)
		rc = compare_cov(argv[optind + 1], kern[1], setup[1], names, n, jobs,
		    cost, json);
	free(kern[0]);
	free(kern[1]);
	free(lab[0]);
	free(lab[1]);
	return rc == 0 ? 0 : rc >= 128 ? rc : EXIT_KIT;
}

const struct cmd cmd_compare = {
	.name = "compare",
	.usage = "compare [--bench NAMES] [-n N] [-j J] [--setup-a CMD] [--setup-b CMD] [--json FILE] [--plot DIR] [--coverage] [--coverage-cost] A B",
	.help =
"Benchmark two kernels against each other: A and B are variants (see\n"
"'umkit variants'; a smoke-HASH variant of 'umkit smoke' too), booted N\n"
"times each (default 5), interleaved A B A B so that drift hits both (two\n"
"boots at a time by default, -j), each benchmark pinned to guest CPU 1.\n"
"Or A and B are two .json files saved by earlier runs (--json), compared\n"
"by their second kernel's samples; the table says when they come from\n"
"different machines.\n"
"\n"
"  --bench NAMES  comma list, or all (default procbench): procbench (fork, exec,\n"
"                shell), kvbench, readtwice, aging (seed 000: ns per page\n"
"                MGLRU aging moves), compaction (seed 002: one compaction\n"
"                round's scanner counts)\n"
"  -n N           boots per kernel (2-100; default 5); procbench runs\n"
"                alone in N more: its boots are cheap and their spread\n"
"                is as large as a real effect (uml/patch/bench.c)\n"
"  -j J           J boots at a time (default 2 on a host of 2 CPUs or\n"
"                more: an A and a B boot together, each on a host CPU of\n"
"                its own, the CPUs swapped between pairs; but 1 where two\n"
"                processes forking at once on two CPUs each take 1.3x as\n"
"                long or longer, a probe of about a second, once per host\n"
"                boot: there two boots would change each other's figures;\n"
"                1: one at a time, A and B still alternating CPUs)\n"
"  --setup-a CMD, --setup-b CMD\n"
"                guest shell commands each boot of A (B) runs first, e.g.\n"
"                a variant's switch; A and B may then be one variant\n"
"  --json FILE    every sample, both kernels and the machine, as JSON\n"
"  --plot DIR     a PNG and an SVG chart per metric (gnuplot): bars with\n"
"                error bars (standard deviation)\n"
"  --coverage     then build B again with gcov for the .c files its\n"
"                patches change (VARIANT+cov, or smoke-HASH-cov), run the\n"
"                benchmarks once on it, and say per hunk of B's patches\n"
"                which added lines ran, with counts (as umkit smoke\n"
"                --coverage; into --json too)\n"
"  --coverage-cost  --coverage, and the benchmarks -n times on the gcov\n"
"                kernel against plain B: gcov's run-time cost\n"
"\n"
"The table, per metric: A's mean ±stddev (in % of the mean), the % change\n"
"with its 95% confidence interval, B's mean ±stddev; * marks p<0.05 and\n"
"** p<0.01 in a two-sided t-test after Holm-Bonferroni over the table's\n"
"metrics, for a change of 1% or more, with (better) or (worse) by the\n"
"metric's direction.  Boots on two host CPUs (-j 2) are tested with each\n"
"CPU's effect taken out (least squares, kernel + CPU); others with\n"
"Welch's t-test.\n"
"\n"
"Exit status: 0 the table was printed (whatever it shows); 125 a bad\n"
"option, a variant that does not build or a file that is not a result\n"
"file; a failed boot's status; 130/143 interrupted.\n"
"\n"
"Examples:\n"
"  umkit compare base rss-lazy --bench procbench      (seed 001's table)\n"
"  umkit compare base lru-batch --bench aging         (seed 000's figure)\n"
"  umkit compare --bench compaction --setup-b \\\n"
"    'echo 1 > /sys/module/compaction/parameters/noacct' \\\n"
"    compaction-noacct compaction-noacct               (seed 002's table)\n"
"  umkit compare -n 10 --json a.json base smoke-0123456789ab\n"
"  umkit compare --coverage --bench aging -n 2 base lru-batch\n"
"  umkit compare --coverage-cost --bench aging -n 2 base lru-batch\n"
"  umkit compare laptop.json server.json",
	.max_args = CMD_ARGS_ANY,
	.exec = compare_main,
};
