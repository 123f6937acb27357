/*
 * umkit.h - the launcher's commands.  Each command is a cmd-*.c file
 * exporting one const struct cmd, listed in umkit.c's table.
 */
#ifndef UMKIT_UMKIT_H
#define UMKIT_UMKIT_H

#include <getopt.h>

struct guest;

struct cmd {
	const char	*name;
	const char	*usage;		/* the synopsis, after "umkit " */
	const char	*help;		/* what it does, options, an example */
	/* Run with argv[0] = the command name; returns the exit status. */
	int		(*exec)(int argc, char **argv);
};

extern const struct cmd cmd_exec, cmd_start, cmd_stop, cmd_list,
    cmd_console, cmd_variants, cmd_cleanup, cmd_tui, cmd_record, cmd_run, cmd_trace,
    cmd_lab;

/* getopt_long options every command takes: --help (as -h). */
extern const struct option help_opts[];

/* Print a command's help to stdout (--help) and return 0. */
int	cmd_help(const struct cmd *);
/* Print "usage: umkit ..." to stderr and return EXIT_KIT. */
int	cmd_usage(const struct cmd *);

/*
 * Watchdog for a guest owned by this process: SIGINT, SIGTERM, SIGHUP and
 * an optional deadline kill the guest's process group (so blocked link
 * calls fail at once); the caller then asks what happened.
 */
struct watch;
struct watch	*watch_start(struct guest *, int timeout_s);
/* Stop it; returns 0, the signal that arrived, or -1 for the deadline. */
int		 watch_stop(struct watch *);
/* Block the watched signals in the calling thread (before any thread). */
void		 watch_block_signals(void);

#endif
