/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cmd-smoke.c - 'umkit smoke INPUT...': its options; the engine is
 * uml/patch/smoke.h.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "patch/bench.h"
#include "patch/smoke.h"
#include "umkit.h"
#include "util.h"

/* umkit smoke [options] INPUT... */
static int
smoke_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "add", required_argument, NULL, 'a' },
		{ "run", required_argument, NULL, 'r' },
		{ "labs", required_argument, NULL, 'L' },
		{ "git", required_argument, NULL, 'g' },
		{ "debug", no_argument, NULL, 'D' },
		{ "config", required_argument, NULL, 'F' },
		{ "hash", no_argument, NULL, 'H' },
		{ "timeout", required_argument, NULL, 't' },
		{ "bench", required_argument, NULL, 'B' },
		{ "json", required_argument, NULL, 'J' },
		{ "junit", required_argument, NULL, 'U' },
		{ "ktap", no_argument, NULL, 'K' },
		{ "plot", required_argument, NULL, 'P' },
		{ "coverage", no_argument, NULL, 'C' },
		{ "require-coverage", no_argument, NULL, 'R' },
		{ "coverage-cost", no_argument, NULL, 'c' },
		{ "partial", no_argument, NULL, 'p' },
		{ "selftests", optional_argument, NULL, 'S' },
		{ NULL, 0, NULL, 0 }
	};
	struct smoke	 s;
	char		 err[512];
	int		 c, rc;
	char		*end;

	smoke_init(&s);
	while ((c = getopt_long(argc, argv, "+t:n:j:", longopts, NULL)) != -1) {
		switch (c) {
		case 'F':
			if (!smoke_config_ok(optarg))
				fatalx("--config %s: want CONFIG_NAME=y, =n or =NUMBER",
				    optarg);
			if (s.nconfigs == SMOKE_MAX_CONFIGS)
				fatalx("--config: at most %d", SMOKE_MAX_CONFIGS);
			s.configs[s.nconfigs++] = optarg;
			break;
		case 'j':
			s.jobs = strtol(optarg, &end, 10);
			if (*optarg == '\0' || *end != '\0' || s.jobs < 1 ||
			    s.jobs > BENCH_MAX_JOBS)
				fatalx("-j %s: want 1 to %d boots at a time", optarg,
				    BENCH_MAX_JOBS);
			break;
		case 'n':
			s.boots = strtol(optarg, &end, 10);
			if (*optarg == '\0' || *end != '\0' || s.boots < 2 ||
			    s.boots > BENCH_MAX_BOOTS)
				fatalx("-n %s: want 2 to %d boots", optarg, BENCH_MAX_BOOTS);
			break;
		case 'B':
			s.bench = optarg;
			if (strcmp(optarg, "none") != 0 && bench_check(optarg, err, sizeof err) < 0)
				fatalx("--bench %s: %s", optarg, err);
			break;
		case 'J':
			s.json = optarg;
			break;
		case 'U':
			s.junit = optarg;
			break;
		case 'K':
			s.ktap = 1;
			break;
		case 'P':
			s.plot = optarg;
			break;
		case 'a':
			if (s.nadds == SMOKE_MAX_RUNS)
				fatalx("--add: at most %d", SMOKE_MAX_RUNS);
			s.adds[s.nadds++] = optarg;
			break;
		case 'r':
			if (s.nruns == SMOKE_MAX_RUNS)
				fatalx("--run: at most %d", SMOKE_MAX_RUNS);
			s.runs[s.nruns++] = optarg;
			break;
		case 'L':
			s.labs = optarg;
			break;
		case 'g':
			s.git = optarg;
			break;
		case 'D':
			s.debug = 1;
			break;
		case 'C':
			if (s.coverage == 0)
				s.coverage = 1;
			break;
		case 'R':
			s.coverage = 2;
			break;
		case 'c':
			if (s.coverage == 0)
				s.coverage = 1;
			s.coverage_cost = 1;
			break;
		case 'H':
			s.hash_only = 1;
			break;
		case 'p':
			s.partial = 1;
			break;
		case 'S':
			s.selftests = 1;
			s.selftests_only = optarg;	/* TEST,... or NULL: all */
			break;
		case 't':
			s.timeout_s = strtol(optarg, &end, 10);
			if (*optarg == '\0' || *end != '\0' || s.timeout_s < 5)
				fatalx("--timeout %s: want whole seconds, at least 5", optarg);
			break;
		default:
			return cmd_usage(&cmd_smoke);
		}
	}
	if (optind >= argc)
		return cmd_usage(&cmd_smoke);
	rc = smoke_run(&s, argc - optind, argv + optind);
	smoke_free(&s);
	return rc;
}

const struct cmd cmd_smoke = {
	.name = "smoke",
	.usage = "smoke [--debug] [--config CONFIG_X=y]... [--coverage|--require-coverage] [--coverage-cost] [--labs all|none|LAB] [--add HOSTPATH[:GUESTPATH]]... [--run CMD]... [--bench NAMES|none] [-n N] [-j J] [--json FILE] [--junit FILE] [--ktap] [--plot DIR] [--git DIR] [--partial] [--selftests[=TEST,...]] [-t SECONDS] [--hash] INPUT...",
	.help =
"Smoke-test a kernel patch against the base kernel: does it apply, build,\n"
"boot without a kernel report, pass the labs' checks and your reproducers?\n"
"\n"
"INPUT is a patch file; a quilt directory (with series); a directory of\n"
"git format-patch files; an mbox, a whole mailing-list thread too ([PATCH\n"
"n/m] in order; the cover letter and replies skipped; a missing part is\n"
"refused unless --partial); '-' for standard input; or a commit range\n"
"A..B of the git tree --git DIR (default $KSRC).  Patch files named one\n"
"after another are one list in the order given, the parts of one series\n"
"put in their n/m order, and a part not given is named, not refused (to\n"
"test the first patches of a series, as when bisecting it).\n"
"The patches become the variant smoke-HASH,\n"
"named by a hash of their diffs (build/smoke/HASH): the same change in\n"
"any form is the same variant, and its build is reused.  A path that\n"
"leaves the tree (.., absolute) is refused before anything is applied.\n"
"\n"
"Stages, each named in the output: input, apply, build, boot (the\n"
"console is scanned for BUG, WARNING, oops, panic, lockdep, KASAN and\n"
"UBSAN reports), labs (every lab's batch checks; steps on the base kernel\n"
"run on the patched one, steps that need another variant are skipped,\n"
"since the patch is against base), run (each --run CMD on base and on the\n"
"patch, with the --add files: no kernel report patched, and no KTAP\n"
"subtest that passes on base and fails patched, or without subtests a\n"
"status 0 on base and not patched; what fails on both is said, not\n"
"failed), selftests (--selftests), bench (base against the patch, as\n"
"'umkit compare' does: N interleaved boots each, mean, stddev, % change\n"
"with its interval and a t-test per metric, Holm-corrected, marked from\n"
"a change of 1% up).\n"
"\n"
"  --debug       build with DEBUG_VM, PROVE_LOCKING (lockdep) and KASAN\n"
"                (variant smoke-HASH-debug, its own shared tree)\n"
"  --config CONFIG_X=y  an option more in the patched kernel (repeatable;\n"
"                variant smoke-HASH-cN, the debug tree): the 'tested' stage\n"
"                names the option that keeps a changed file out\n"
"  --coverage    after the verdict, a pass that tells which of the\n"
"                patch's added lines ran: the kernel built again with gcov\n"
"                for the .c files the patch changes (smoke-HASH-cov), the\n"
"                same boot, labs, --run commands and one boot of the\n"
"                benchmarks run on it, and each hunk reported as run\n"
"                (with its counts) or not exercised; a warning only\n"
"  --require-coverage  the same, and a hunk never run fails (status 7)\n"
"  --coverage-cost  --coverage, and the benchmarks' whole A/B round on\n"
"                the gcov kernel against the plain patched one: gcov's\n"
"                run-time cost (minutes more)\n"
"  --labs L      'all' (default), 'none', or a lab (as 'umkit lab' takes it)\n"
"  --add H[:G]   files for the guests, as in 'umkit exec' (repeatable)\n"
"  --run CMD     a reproducer, run by sh -c in a fresh guest (repeatable)\n"
"  --git DIR     the repository of commit ranges (default $KSRC)\n"
"  --partial     a thread with parts missing: test the parts it has\n"
"  --selftests[=TEST,...]\n"
"                the patched tree's mm selftests (all, or these) on base\n"
"                and on the patch (umkit selftests); a test or subtest\n"
"                that passes on base and fails patched fails the smoke\n"
"  -t SECONDS    per boot: a hang or console flood fails then (default 60)\n"
"  --hash        print the variant the input makes, and stop\n"
"  --bench NAMES benchmarks, a comma list (default all: procbench,\n"
"                kvbench, readtwice, aging, compaction; or none)\n"
"  -n N          boots per kernel for them (default 5); procbench runs\n"
"                alone in N more (as in umkit compare)\n"
"  -j J          J benchmark boots at a time (default 2 on 2 CPUs or more:\n"
"                an A and a B boot together, each on a host CPU of its own;\n"
"                but 1 where two boots would change each other's figures:\n"
"                see umkit compare --help), and J labs at a time (default 2)\n"
"  --json FILE   every benchmark sample as JSON (see umkit compare), the\n"
"                verdict, the stages and each changed file's state\n"
"  --ktap        the stages as KTAP at the end\n"
"  --junit FILE  the stages as a JUnit XML test suite\n"
"  --plot DIR    a PNG and an SVG chart per benchmark metric (gnuplot)\n"
"\n"
"Exit status: 0 passed; 2 the input was refused; 3 a patch does not\n"
"apply; 4 the kernel does not build; 5 boot: panic, hang, flood or a\n"
"kernel report; 6 a lab check or a reproducer failed; 7 a hunk never ran\n"
"(--require-coverage); 8 NOT TESTED: no file the patch changes is built\n"
"into the kernel (each file's reason is shown); 125 umkit's own\n"
"error; 130/143 interrupted (nothing is left behind).\n"
"\n"
"Examples:\n"
"  umkit smoke fix.patch\n"
"  umkit smoke --labs none --run 'procbench --case fork' thread.mbox\n"
"  umkit smoke --coverage-cost --labs none --bench procbench fix.patch\n"
"  git format-patch -3 --stdout | umkit smoke -\n"
"  umkit smoke --git ~/linux v7.2..my-branch",
	.max_args = CMD_ARGS_ANY,
	.exec = smoke_main,
};
