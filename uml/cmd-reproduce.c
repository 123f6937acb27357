/* SPDX-License-Identifier: GPL-2.0-only */
/* cmd-reproduce.c - umkit reproduce: each seed thread's table beside the kit's. */
#define _GNU_SOURCE
#include <getopt.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "patch/bench.h"
#include "repro/repro.h"
#include "umkit.h"
#include "util.h"

#define REPRO_SEL_MAX	8	/* seeds in one command */

/* Every seed, or the one called id (fatal if none). */
static int
pick_seeds(const char *id, const struct repro_seed **sel)
{
	int	ns;

	if (strcmp(id, "all") == 0) {
		for (ns = 0; repro_seeds[ns].id != NULL; ns++)
			sel[ns] = &repro_seeds[ns];
		return ns;
	}
	if ((sel[0] = repro_find(id)) == NULL)
		fatalx("no seed '%s' (000 to 004, or all)", id);
	return 1;
}

/* Print seed d's table (and results line) and its KTAP block; 0 or 1. */
static int
report(const struct repro_data *d, int num, int ktap, int results)
{
	int	ok = 1;

	repro_table(d, ktap ? stderr : stdout);
	if (results)
		repro_results_line(d, ktap ? stderr : stdout);
	if (ktap)
		ok = repro_ktap(d, stdout, num);
	fflush(stdout);
	return ok ? 0 : 1;
}

/* umkit reproduce SEED|all [--quick] [-n RUNS] [-j J] [--json F] [--ktap] [--results]
 * umkit reproduce [SEED|all] --from FILE... [--json F] [--ktap] [--results] */
static int
reproduce_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "quick", no_argument, NULL, 'q' },
		{ "json", required_argument, NULL, 'J' },
		{ "ktap", no_argument, NULL, 'K' },
		{ "results", no_argument, NULL, 'R' },
		{ "from", required_argument, NULL, 'F' },
		{ NULL, 0, NULL, 0 }
	};
	const struct repro_seed *sel[REPRO_SEL_MAX];
	struct repro_data d[REPRO_SEL_MAX];
	const char	*json = NULL, *run_opt = NULL;
	char		*e, *from[REPRO_SEL_MAX], err[512];
	int		 o, quick = 0, ktap = 0, results = 0, n = 0, jobs = bench_default_jobs();
	int		 ns = 0, nd = 0, nf = 0, i, rc = 0, r;

	while ((o = getopt_long(argc, argv, "n:j:", longopts, NULL)) != -1) {
		switch (o) {
		case 'q': quick = 1; run_opt = "--quick"; break;
		case 'J': json = optarg; break;
		case 'K': ktap = 1; break;
		case 'R': results = 1; break;
		case 'F':
			if (nf == REPRO_SEL_MAX)
				fatalx("--from %s: at most %d files", optarg, REPRO_SEL_MAX);
			from[nf++] = optarg;
			break;
		case 'n':
			n = (int)strtol(optarg, &e, 10);
			if (*e != '\0' || n < 2 || n > 50)
				fatalx("-n %s: want a number of boots from 2 to 50", optarg);
			run_opt = "-n";
			break;
		case 'j':
			jobs = (int)strtol(optarg, &e, 10);
			if (*e != '\0' || jobs < 1 || jobs > 8)
				fatalx("-j %s: want 1 to 8 boots at a time", optarg);
			run_opt = "-j";
			break;
		default:
			return cmd_usage(&cmd_reproduce);
		}
	}
	if (optind < argc - 1 || (optind == argc && nf == 0))
		return cmd_usage(&cmd_reproduce);
	if (nf > 0 && run_opt != NULL)
		fatalx("%s is for a new run: not with --from (a stored one)", run_opt);
	/* before minutes of boots, not after them */
	if (json != NULL) {
		char *dir = xstrdup(json);

		if (access(dirname(dir), W_OK) < 0)
			fatal("--json %s: cannot write there", json);
		free(dir);
	}
	if (optind < argc)
		ns = pick_seeds(argv[optind], sel);
	if (nf > 0 && (nd = repro_json_load_all(from, nf, ns == 1 ? sel[0] : NULL,
	    d, REPRO_SEL_MAX, err, sizeof err)) < 0)
		fatalx("--from %s", err);
	if (nf == 0)
		nd = ns;
	if (ktap)
		printf("KTAP version 1\n1..%d\n", nd);
	for (i = 0; i < nd; i++) {
		if (nf == 0 && (r = repro_run(sel[i], n, quick, jobs, &d[i])) != 0) {
			warnmsg("reproduce %s: a boot failed (status %d): no table",
			    sel[i]->id, r);
			rc = rc ? rc : EXIT_KIT;
			if (ktap)
				printf("not ok %d seed-%s # a boot failed\n", i + 1, sel[i]->id);
			continue;
		}
		r = report(&d[i], i + 1, ktap, results);
		rc = rc ? rc : r;
	}
	if (json != NULL && repro_json_write(d, nd, json) < 0)
		fatal("%s", json);
	for (i = 0; i < nd; i++)
		repro_data_free(&d[i]);
	return rc;
}

const struct cmd cmd_reproduce = {
	.name = "reproduce",
	.usage = "reproduce SEED|all [--quick] [-n RUNS] [-j J] [--from FILE]... [--json FILE] [--ktap] [--results]",
	.help =
"Run a seed thread's experiment (../shared/seeds; docs/reproduce.md) on\n"
"its variant and print the thread's own table - its rows, its numbers,\n"
"its machine - with the kit's figures beside them: per row and setting\n"
"the mean, standard deviation, % change with its 95% interval, Welch's p\n"
"adjusted with Holm-Bonferroni over the table, and whether the change\n"
"goes the thread's way and is larger than the spread.  The settings run\n"
"interleaved in each boot through the variant's runtime switches.\n"
"\n"
"  SEED        000 to 004 (or 0 to 4), or all\n"
"  --quick     a short run (fewer boots and rounds; what make test runs)\n"
"  -n RUNS     boots per boot group (2-50; default: the seed's)\n"
"  -j J        boots at a time (default 2 on a host of 2 CPUs or more;\n"
"              a guest of one CPU on a host CPU of its own; a guest of\n"
"              N CPUs on none in particular, and no more at once than\n"
"              give each guest CPU a host CPU: two on one spin while the\n"
"              host preempts a lock holder; the settings a row compares\n"
"              run in the same boot either way)\n"
"  --json FILE every sample, the statistics and the thread's figures\n"
"  --ktap      KTAP on stdout (the table goes to stderr): a row fails\n"
"              only when the kit's change goes against the thread's,\n"
"              larger than the spread and significant\n"
"  --results   after each table one line 'reproduce: KEY_COLUMN=MEAN ...\n"
"              KEY_COLUMN_pct=CHANGE ...' (a lab's reproduce step reads it)\n"
"  --from FILE no boots: the tables of a stored run, a --json FILE of\n"
"              this kit's (a lab's reproduce step keeps its run in the\n"
"              state directory, ~/.local/state/umkit/reproduce/SEED.json);\n"
"              repeat it for several files (8 seeds in all).  SEED may\n"
"              be left out (every seed in them); a SEED keeps only its\n"
"              runs.  The statistics are computed again from the samples.\n"
"\n"
"Exit status: 0; 1 a row went against the thread (--ktap); 125 a bad\n"
"option or seed, a --json FILE that cannot be written, a --from FILE\n"
"that is not a stored run of this kit's seeds, a failed boot or build.\n"
"\n"
"Examples:\n"
"  umkit reproduce 002\n"
"  umkit reproduce all --quick --json repro.json\n"
"  umkit reproduce --from repro.json --ktap",
	.min_args = 1,
	.max_args = CMD_ARGS_ANY,
	.exec = reproduce_main,
};
