/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * umkit.h - the launcher's commands.  Each command is its own file,
 * uml/cmd-NAME.c, exporting one const struct cmd that umkit.c lists.
 *
 * The dispatcher (umkit.c) does what every command would otherwise repeat:
 * it answers -h/--help from the command's help text, checks the number of
 * operands for commands that take no options, checks that the guest a
 * command names is running, and cleans up what a crashed umkit left.
 */
#ifndef UMKIT_UMKIT_H
#define UMKIT_UMKIT_H

#include <limits.h>

/* max_args for a command that parses its own options and operands. */
#define CMD_ARGS_ANY	INT_MAX

struct cmd {
	const char	*name;
	const char	*usage;		/* the synopsis, after "umkit " */
	const char	*help;		/* what it does, options, an example */
	/*
	 * Operands after the command name: fewer than min_args or more than
	 * max_args print the usage and exit 125 before exec runs.  Commands
	 * with options set max_args to CMD_ARGS_ANY and check their own.
	 */
	int		 min_args;
	int		 max_args;
	/* argv[1] names a guest that must be running ("no running guest"). */
	int		 needs_guest;
	/* Run with argv[0] = the command name; returns the exit status. */
	int		(*exec)(int argc, char **argv);
};

extern const struct cmd cmd_run, cmd_exec, cmd_start, cmd_stop, cmd_list,
    cmd_console, cmd_trace, cmd_lab, cmd_tui, cmd_record, cmd_variants,
    cmd_cleanup, cmd_doctor, cmd_get, cmd_gdb, cmd_drgn, cmd_smoke, cmd_selftests, cmd_compare, cmd_plot, cmd_coverage,
    cmd_reproduce;

/* Print a command's usage line to stderr and return EXIT_KIT. */
int	cmd_usage(const struct cmd *);

/* Exit with "no running guest 'NAME'" unless NAME is a running guest. */
void	cmd_need_guest(const char *name);

#endif
