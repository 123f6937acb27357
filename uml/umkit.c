/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * umkit.c - the launcher: boots User-Mode Linux guests for memory-
 * management labs.  Each command lives in its own cmd-NAME.c; this file
 * lists them and does for all of them what umkit.h says.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guest/rundir.h"
#include "umkit.h"
#include "util.h"

/* In the order `umkit --help` lists them; each exactly once. */
static const struct cmd *cmds[] = {
	&cmd_run, &cmd_exec, &cmd_start, &cmd_stop, &cmd_list, &cmd_console,
	&cmd_gdb, &cmd_drgn, &cmd_trace, &cmd_lab, &cmd_get, &cmd_tui, &cmd_record, &cmd_variants, &cmd_cleanup,
	&cmd_doctor, &cmd_smoke, &cmd_selftests, &cmd_compare, &cmd_plot, &cmd_coverage,
	&cmd_reproduce, NULL
};

/* The top-level usage text. */
static void
usage(FILE *f)
{
	const struct cmd	**c;

	fprintf(f,
"umkit - User-Mode Linux guests for memory-management labs\n"
"\n"
"usage: umkit COMMAND [ARGS]    (umkit COMMAND --help for details)\n"
"\n");
	for (c = cmds; *c != NULL; c++)
		fprintf(f, "  umkit %s\n", (*c)->usage);
	fprintf(f,
"\n"
"Exit status of exec: the command's own; 123 guest kernel panic,\n"
"124 timeout, 125 umkit error.\n"
"\n"
"Guests and builds of patched trees run in a sandbox (bubblewrap; see\n"
"docs/security.md).  --no-sandbox, given to any command, runs them\n"
"without it: for a host without user namespaces, at your own risk.\n"
"\n"
"Example:\n"
"  umkit exec -c 4 -- cat /sys/devices/system/cpu/online\n");
}

/* Print a command's usage line as an error. */
int
cmd_usage(const struct cmd *c)
{
	fprintf(stderr, "usage: umkit %s\n(umkit %s --help for details)\n",
	    c->usage, c->name);
	return EXIT_KIT;
}

/* Exit unless name is a running guest. */
void
cmd_need_guest(const char *name)
{
	if (run_name_ok(name) < 0 || !run_alive(name))
		fatalx("no running guest '%s' (see 'umkit list')", name);
}

/* Whether -h or --help comes before the first "--" (which starts CMD). */
static int
wants_help(int argc, char **argv)
{
	int	i;

	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
			return 1;
	return 0;
}

/*
 * --no-sandbox, before or after the command's name (not after a "--"): out of
 * argv, it sets UMKIT_SANDBOX=off for this process and its children
 * (sandbox.h).  The new argc.
 */
static int
no_sandbox(int argc, char **argv)
{
	int	i, j;

	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		if (strcmp(argv[i], "--no-sandbox") != 0)
			continue;
		for (j = i; j < argc; j++)
			argv[j] = argv[j + 1];
		argc--;
		i--;
		if (setenv("UMKIT_SANDBOX", "off", 1) < 0)
			fatal("setenv");
	}
	return argc;
}

/* Run one command: help, operand count, the guest it needs, then exec. */
static int
dispatch(const struct cmd *c, int argc, char **argv)
{
	if (wants_help(argc, argv)) {
		printf("usage: umkit %s\n\n%s\n", c->usage, c->help);
		return 0;
	}
	if (argc - 1 < c->min_args || argc - 1 > c->max_args)
		return cmd_usage(c);
	/* Whatever a crashed umkit left, the next command removes. */
	if (c != &cmd_cleanup)
		run_cleanup_stale(1);
	if (c->needs_guest)
		cmd_need_guest(argv[1]);
	return c->exec(argc, argv);
}

/* Dispatch to the command named by argv[1]. */
int
main(int argc, char **argv)
{
	const struct cmd	**c;

	argc = no_sandbox(argc, argv);
	if (argc < 2) {
		usage(stderr);
		return EXIT_KIT;
	}
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		usage(stdout);
		return 0;
	}
	for (c = cmds; *c != NULL; c++)
		if (strcmp((*c)->name, argv[1]) == 0)
			return dispatch(*c, argc - 1, argv + 1);
	fprintf(stderr, "umkit: unknown command '%s'\n\n", argv[1]);
	usage(stderr);
	return EXIT_KIT;
}
