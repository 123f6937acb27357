/*
 * umkit.c - the launcher: boots User-Mode Linux guests for memory-
 * management labs.  Each subcommand lives in a cmd-*.c file.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"
#include "umkit.h"
#include "util.h"

static const struct cmd *cmds[] = {
	&cmd_run, &cmd_exec, &cmd_start, &cmd_stop, &cmd_list, &cmd_console,
	&cmd_trace, &cmd_lab, &cmd_tui, &cmd_record, &cmd_variants, &cmd_cleanup, NULL
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
"Example:\n"
"  umkit exec -c 4 -- cat /sys/devices/system/cpu/online\n");
}

const struct option help_opts[] = {
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

/* Print a command's help. */
int
cmd_help(const struct cmd *c)
{
	printf("usage: umkit %s\n\n%s\n", c->usage, c->help);
	return 0;
}

/* Print a command's usage line as an error. */
int
cmd_usage(const struct cmd *c)
{
	fprintf(stderr, "usage: umkit %s\n(umkit %s --help for details)\n",
	    c->usage, c->name);
	return EXIT_KIT;
}

/* Dispatch to the command named by argv[1]. */
int
main(int argc, char **argv)
{
	const struct cmd	**c;

	if (argc < 2) {
		usage(stderr);
		return EXIT_KIT;
	}
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		usage(stdout);
		return 0;
	}
	for (c = cmds; *c != NULL; c++) {
		if (strcmp((*c)->name, argv[1]) == 0) {
			/* Whatever a crashed umkit left, the next command removes. */
			if (*c != &cmd_cleanup)
				run_cleanup_stale(1);
			return (*c)->exec(argc - 1, argv + 1);
		}
	}
	fprintf(stderr, "umkit: unknown command '%s'\n\n", argv[1]);
	usage(stderr);
	return EXIT_KIT;
}
