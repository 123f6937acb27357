/* SPDX-License-Identifier: GPL-2.0-only */
/* cmd-selftests.c - umkit selftests: the kernel's own mm tests in guests. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guest/guest.h"
#include "patch/selftests.h"
#include "umkit.h"
#include "util.h"

/* umkit selftests [-V VARIANT] [-m MEM] [-t SECONDS] [--list] [--ktap] [--kunit] [TEST...] */
static int
selftests_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "list", no_argument, NULL, 'l' },
		{ "ktap", no_argument, NULL, 'K' },
		{ "kunit", no_argument, NULL, 'U' },
		{ NULL, 0, NULL, 0 }
	};
	struct st_req	 req = { .variant = "base", .timeout_s = 120 };
	struct st_run	 run;
	char		 err[512], *end, *dir;
	int		 c, list = 0, ktap = 0, kunit = 0, pass, fail, skip, i;

	while ((c = getopt_long(argc, argv, "+V:m:t:", longopts, NULL)) != -1) {
		switch (c) {
		case 'V':
			req.variant = optarg;
			break;
		case 'm':
			if ((req.mem_mb = parse_mem_mb(optarg)) < 32)
				fatalx("-m %s: want a size like 256M or 1G", optarg);
			break;
		case 't':
			req.timeout_s = strtol(optarg, &end, 10);
			if (*optarg == '\0' || *end != '\0' || req.timeout_s < 1)
				fatalx("-t %s: want whole seconds", optarg);
			break;
		case 'l':
			list = 1;
			break;
		case 'K':
			ktap = 1;
			break;
		case 'U':
			kunit = 1;
			break;
		default:
			return cmd_usage(&cmd_selftests);
		}
	}
	if (kunit) {
		if (list || optind < argc)
			return cmd_usage(&cmd_selftests);
		if (st_kunit(&req, &run, err, sizeof err) < 0)
			fatalx("%s", err);
		for (i = 0; i < run.n && !ktap; i++)
			printf("selftests: kunit %-20s %-7s %d case%s%s%s\n", run.v[i].name,
			    st_status_name(run.v[i].status), run.v[i].nsubs,
			    run.v[i].nsubs == 1 ? "" : "s", run.v[i].reason[0] ? "  " : "",
			    run.v[i].reason);
		if (ktap)
			st_ktap(&run, stdout);
		st_counts(&run, &pass, &fail, &skip);
		fprintf(ktap ? stderr : stdout, "selftests: %s+debug: %d suites passed, "
		    "%d failed, %d skipped\n", req.variant, pass, fail, skip);
		st_free(&run);
		return fail ? 1 : 0;
	}
	dir = st_build(req.variant, 0);
	if (list) {
		if (st_list(dir, &run, err, sizeof err) < 0)
			fatalx("%s", err);
		for (i = 0; i < run.n; i++)
			printf("%-28s %s\n", run.v[i].name, run.v[i].category);
		st_free(&run);
		free(dir);
		return 0;
	}
	req.dir = dir;
	req.tests = argv + optind;
	req.ntests = argc - optind;
	/* build/k/VARIANT/selftests/mm -> build/k/VARIANT/selftests/logs */
	req.logdir = xasprintf("%.*s/logs", (int)(strrchr(dir, '/') - dir), dir);
	req.progress = ktap ? stderr : stdout;
	if (st_run(&req, &run, err, sizeof err) < 0)
		fatalx("%s", err);
	if (ktap)
		st_ktap(&run, stdout);
	st_counts(&run, &pass, &fail, &skip);
	fprintf(ktap ? stderr : stdout, "selftests: %s: %d passed, %d failed, %d "
	    "skipped; each test's output in %s/\n", req.variant, pass, fail, skip,
	    req.logdir);
	st_free(&run);
	free((char *)req.logdir);
	free(dir);
	return fail ? 1 : 0;
}

const struct cmd cmd_selftests = {
	.name = "selftests",
	.usage = "selftests [-V VARIANT] [-m MEM] [-t SECONDS] [--list] [--ktap] [--kunit] [TEST...]",
	.help =
"The kernel's own mm tests (tools/testing/selftests/mm) of VARIANT's tree\n"
"(default base; a smoke-HASH variant is the patched tree), built with the\n"
"tree's Makefile in the sandbox into build/k/VARIANT/selftests/, and run\n"
"in guests, each test in a fresh one: a test that breaks its kernel\n"
"breaks only itself.  The tests are the programs the tree's\n"
"run_vmtests.sh runs without arguments (--list shows them with their\n"
"category); a test whose library is missing on the host is not built.\n"
"Each prints a line: pass, skip (kselftest's exit 4, with the line that\n"
"says why), fail, timeout or panic.\n"
"\n"
"  -V VARIANT    the kernel and the tree (default base)\n"
"  -m MEM        guest memory (default 256M)\n"
"  -t SECONDS    per test (default 120)\n"
"  --list        the tests, and nothing run\n"
"  --ktap        KTAP on stdout (a line per test, failed subtests as\n"
"                diagnostics); the progress lines on stderr\n"
"  --kunit       the mm KUnit suites instead (DAMON's, SLUB's): kernel\n"
"                VARIANT+debug (uml/kernel/debug.config; built on first\n"
"                use, the kernel umkit gdb uses), booted once with\n"
"                kunit.enable=1; they run at boot and each suite's\n"
"                KTAP is read from debugfs\n"
"\n"
"Exit status: 0 no test failed, 1 one did, 125 umkit's own error.\n"
"'umkit smoke --selftests' runs them on base and on the patch and fails\n"
"for a test or subtest that passes on base and fails patched.\n"
"\n"
"Examples:\n"
"  umkit selftests mlock2-tests mremap_test\n"
"  umkit selftests -V lru-batch --ktap > lru-batch.ktap",
	.max_args = CMD_ARGS_ANY,
	.exec = selftests_main,
};
