/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cmd-lab.c - 'umkit lab': list, check, run (interactively or in batch)
 * and report labs.  The engine is uml/lab/: lab-cat.h finds and checks
 * labs, lab-batch.h runs them, lab-out.h reports.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lab/lab-batch.h"
#include "lab/lab-cat.h"
#include "lab/lab-out.h"
#include "lab/lab-run.h"
#include "patch/bench.h"
#include "umkit.h"
#include "util.h"

/* --base-kernel, made absolute: the process's one copy. */
static char	*base_abs;

/* umkit lab ... */
static int
lab_main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "list", no_argument, NULL, 'l' },
		{ "check", no_argument, NULL, 'C' },
		{ "batch", no_argument, NULL, 'b' },
		{ "junit", required_argument, NULL, 'j' },
		{ "json", required_argument, NULL, 'J' },
		{ "slow", required_argument, NULL, 's' },
		{ "reset", no_argument, NULL, 'r' },
		{ "exam", no_argument, NULL, 'x' },
		{ "csv", required_argument, NULL, 'c' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "exercise", required_argument, NULL, 'e' },
		{ "exercise-id", required_argument, NULL, 'E' },
		{ "base-kernel", required_argument, NULL, 'k' },
		{ "trust", no_argument, NULL, 'T' },
		{ "answers", required_argument, NULL, 'A' },
		{ "student", required_argument, NULL, 'S' },
		{ "seal", required_argument, NULL, 'Z' },
		{ "jobs", required_argument, NULL, 'P' },
		{ NULL, 0, NULL, 0 }
	};
	struct lab_opts	 o;
	const char	*csv = NULL;
	bool		 list = false, check = false;
	char		**paths, *end;
	int		 c, i, n, rc;

	lab_opts_init(&o);
	o.jobs = bench_default_jobs();
	while ((c = getopt_long(argc, argv, "bv", lo, NULL)) != -1) {
		switch (c) {
		case 'l': list = true; break;
		case 'C': check = true; break;
		case 'b': o.batch = true; break;
		case 'j': o.junit = optarg; break;
		case 'J': o.json = optarg; break;
		case 's':
			o.slow = strtod(optarg, &end);
			if (*end != '\0' || o.slow < 0.1 || o.slow > 100)
				fatalx("--slow %s: want a factor from 0.1 to 100", optarg);
			break;
		case 'r': o.reset = true; break;
		case 'x': o.exam = true; o.hints = false; break;
		case 'c': csv = optarg; break;
		case 'v': o.verbose = true; break;
		case 'e': o.exercise = optarg; break;
		case 'E': o.exercise_id = optarg; break;
		case 'T': lab_trust_all(); break;
		case 'A':
			if (strcmp(optarg, "right") == 0)
				o.autoans = LAB_AUTO_RIGHT;
			else if (strcmp(optarg, "wrong") == 0)
				o.autoans = LAB_AUTO_WRONG;
			else
				fatalx("--answers %s: want right or wrong", optarg);
			break;
		case 'S':
			if (*optarg == '\0' || strlen(optarg) > 64)
				fatalx("--student: want a name of 1-64 characters");
			setenv("UMKIT_STUDENT", optarg, 1);
			break;
		case 'Z': return lab_seal(optarg);
		case 'P':
			o.jobs = (int)strtol(optarg, &end, 10);
			if (*optarg == '\0' || *end != '\0' || o.jobs < 1 ||
			    o.jobs > BENCH_MAX_JOBS)
				fatalx("--jobs %s: want 1 to %d", optarg, BENCH_MAX_JOBS);
			break;
		case 'k':
			/* absolute: the guests' sandbox binds it at that path */
			free(base_abs);
			if (access(optarg, X_OK) < 0 ||
			    (base_abs = realpath(optarg, NULL)) == NULL)
				fatal("--base-kernel %s", optarg);
			o.base_kernel = base_abs;
			break;
		default: return cmd_usage(&cmd_lab);
		}
	}
	argc -= optind;
	argv += optind;
	if (o.exercise_id != NULL && o.exercise == NULL)
		fatalx("--exercise-id %s goes with --exercise DIR", o.exercise_id);
	if (list)
		return argc == 0 ? lab_list() : cmd_usage(&cmd_lab);
	if (check)
		return argc > 0 ? lab_check(argc, argv) : cmd_usage(&cmd_lab);
	if (argc >= 1 && strcmp(argv[0], "report") == 0) {
		if (argc < 2)
			return cmd_usage(&cmd_lab);
		return lab_report(argv + 1, argc - 1, csv, stdout);
	}
	if (argc != 1)
		return cmd_usage(&cmd_lab);
	if (strcmp(argv[0], "all") == 0) {
		if (o.exercise != NULL)
			fatalx("--exercise DIR grades one lab: name it");
		if (!o.batch)
			fatalx("'all' runs every lab in batch mode: add --batch");
		if (o.json != NULL)
			fatalx("--json %s: one lab's result; 'all' writes each "
			    "lab's into the results directory (--junit FILE: "
			    "one file for all)", o.json);
		n = lab_files(&paths);
		if (n == 0)
			fatalx("no labs in %s", "labs/");
	} else {
		n = 1;
		paths = xcalloc(1, sizeof *paths);
		paths[0] = lab_resolve(argv[0]);
	}
	if (o.autoans != LAB_AUTO_NONE && !o.batch)
		fatalx("--answers goes with --batch");
	if (o.batch)
		rc = lab_batch(paths, n, &o);
	else if (o.base_kernel != NULL)
		fatalx("--base-kernel goes with --batch");
	else
		rc = lab_run_interactive(paths[0], &o);
	for (i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
	return rc;
}

const struct cmd cmd_lab = {
	.name = "lab",
	.usage = "lab [--list | --check LAB... | --seal LAB | LAB|all [--batch] [--jobs N] [--base-kernel K] [options] | report RESULTS...]",
	.help =
"Step through a lab: the TUI with the lab pane on a guest booted for the\n"
"lab.  Each step shows its text, asks for a prediction, runs its commands\n"
"(Enter), and shows a check mark or a cross per check with a hint.  Keys in\n"
"the lab pane: Enter run (again), n next, b back, H hint, q quit.  Progress\n"
"is saved, so running the lab again resumes where you stopped.\n"
"\n"
"LAB is a number (2), a name (02-mglru or mglru) or a path to a .lab file.\n"
"\n"
"  --list          the labs with their time, level and kernel variants\n"
"  --check LAB...  validate lab files without booting (FILE:LINE errors,\n"
"                  and warnings: a check that cannot fail, a lab whose\n"
"                  student earns under half its points)\n"
"  --seal LAB      print the lab with its choice answers and their\n"
"                  explanations sealed (what make install ships)\n"
"  --student ID    whose numbers: params and choice order are drawn from\n"
"                  ID and the lab (default: $UMKIT_STUDENT, the user name)\n"
"  --answers right|wrong  batch: answer the student's part (questions,\n"
"                  goal steps, ab steps) rightly or wrongly (make test)\n"
"  --batch         run unattended, print KTAP (one line per check); 'all'\n"
"                  runs every lab\n"
"  --jobs N        all: run N labs at a time, each its own guests, their\n"
"                  KTAP printed in order as each ends (default: 2 on a\n"
"                  host of two CPUs or more, else 1; at most 8)\n"
"  --junit FILE    also write JUnit XML      --json FILE  the JSON result (one lab)\n"
"  --slow FACTOR   multiply every timeout (a slower machine)\n"
"  --reset         forget saved progress and old results of the lab first\n"
"  --exam          no hints; a prediction cannot be changed once given\n"
"  -v, --verbose   batch: show the commands' output\n"
"  --exercise DIR  the lab's exercise: the first time, its skeleton is\n"
"                  written to DIR; complete the TODO and run the same\n"
"                  command again to build and grade your work (the lab's\n"
"                  checks and the exercise's grader cases)\n"
"  --exercise-id ID  with --exercise: which of the lab's exercises (each\n"
"                  has a level; the first is the default; a lab with\n"
"                  several lists them)\n"
"  --base-kernel K with --batch: the steps on the base kernel run on\n"
"                  kernel K, steps on other variants and debugger steps\n"
"                  are skipped (how 'umkit smoke' runs the labs on a\n"
"                  patched kernel)\n"
"  --trust         let a lab from elsewhere have gdb steps (gdb scripts can\n"
"                  run any command: only for labs whose author you trust;\n"
"                  the kit's own labs have them anyway)\n"
"  report [--csv DIR] RESULTS...  merge result files (JSON) of many runs\n"
"                  into one table per lab, and a CSV per lab in DIR\n"
"\n"
"Results: every run writes a JSON result file to\n"
"$XDG_STATE_HOME/umkit/results/ (default ~/.local/state/umkit).\n"
"Exit status: 0 every check passed (or skipped), 1 a check failed, 2 a lab\n"
"file or option error, 125 umkit's own error, 130/143 interrupted.\n"
"\n"
"Examples:\n"
"  umkit lab 1\n"
"  umkit lab 4 --exercise ~/ex4 --exercise-id rsstouch\n"
"  umkit lab --check labs/02-mglru.lab\n"
"  umkit lab all --batch --jobs 1 --junit results.xml\n"
"  umkit lab report --csv grades ~/.local/state/umkit/results/*.json",
	.max_args = CMD_ARGS_ANY,
	.exec = lab_main,
};
