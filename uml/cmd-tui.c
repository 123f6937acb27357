/* cmd-tui.c - umkit tui: the TUI on a named guest's mirror or a root. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guest/rundir.h"
#include "umkit.h"
#include "util.h"

static volatile pid_t	tui_pid;

/* SIGTERM/SIGHUP while the TUI runs: pass it on, then clean up. */
static void
tui_forward(int sig)
{
	if (tui_pid > 0)
		kill(tui_pid, sig);
}

/* Run the TUI binary with args; returns its status. */
int
tui_spawn(char **args)
{
	struct sigaction	 sa = { .sa_handler = tui_forward };
	char			*bin = top_path("build/bin/umkit-tui");
	pid_t			 pid;
	int			 st;

	if (access(bin, X_OK) < 0)
		fatalx("%s: missing (run 'make')", bin);
	args[0] = bin;
	if ((pid = fork()) < 0)
		fatal("fork");
	if (pid == 0) {
		execv(bin, args);
		_exit(127);
	}
	tui_pid = pid;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return EXIT_KIT;
	tui_pid = 0;
	free(bin);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* umkit tui [--root DIR | NAME] [TUI options...] */
static int
tui_main(int argc, char **argv)
{
	char	**args;
	int	  i, n = 1;

	args = xcalloc(argc + 3, sizeof *args);
	for (i = 1; i < argc; i++) {
		if (argv[i][0] != '-' && (i == 1 || argv[i - 1][0] != '-' ||
		    strchr(argv[i - 1], '=') != NULL) && run_name_ok(argv[i]) == 0) {
			cmd_need_guest(argv[i]);
			args[n++] = "--root";
			args[n++] = run_mnt(argv[i]);
			continue;
		}
		args[n++] = argv[i];
	}
	return tui_spawn(args);
}

const struct cmd cmd_tui = {
	.name = "tui",
	.usage = "tui [--root DIR | NAME] [--view VIEW] [--dump] [--interval MS]",
	.help =
"Open the TUI on the running guest NAME's mirror, or on any root\n"
"directory: a recording, or / on a Linux machine with debugfs mounted.\n"
"Press ? in the TUI for its keys.\n"
"\n"
"Examples:\n"
"  umkit tui lab\n"
"  umkit tui --root recordings/aging\n"
"  umkit tui --root / --view lru --dump",
	.max_args = CMD_ARGS_ANY,
	.exec = tui_main,
};
