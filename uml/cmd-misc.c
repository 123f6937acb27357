/* cmd-misc.c - variants, cleanup, tui, record and run. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "record.h"
#include "run.h"
#include "umkit.h"
#include "util.h"

/* umkit variants: the directories of patches/ that have a series file. */
static int
variants_main(int argc, char **argv)
{
	struct dirent	**nl;
	char		 *dir, *p, *desc, *k;
	int		  n, i;

	if (argc > 1)
		return strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 ?
		    cmd_help(&cmd_variants) : cmd_usage(&cmd_variants);
	dir = getenv("UMKIT_PATCHES") ? xstrdup(getenv("UMKIT_PATCHES")) :
	    top_path("patches");
	if ((n = scandir(dir, &nl, NULL, alphasort)) < 0)
		fatalx("%s", dir);
	for (i = 0; i < n; i++) {
		p = xasprintf("%s/%s/series", dir, nl[i]->d_name);
		if (nl[i]->d_name[0] != '.' && access(p, R_OK) == 0) {
			free(p);
			p = xasprintf("%s/%s/description", dir, nl[i]->d_name);
			desc = read_text(p);
			if (desc != NULL)
				desc[strcspn(desc, "\n")] = '\0';
			k = xasprintf("%s/build/k/%s/linux", top_dir(), nl[i]->d_name);
			printf("%-14s %-6s %s\n", nl[i]->d_name,
			    access(k, X_OK) == 0 ? "built" : "-",
			    desc ? desc : "(no description)");
			free(k);
			free(desc);
		}
		free(p);
		free(nl[i]);
	}
	free(nl);
	free(dir);
	return 0;
}

/* umkit cleanup: remove what crashed guests left behind. */
static int
cleanup_main(int argc, char **argv)
{
	int	n;

	if (argc > 1)
		return strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 ?
		    cmd_help(&cmd_cleanup) : cmd_usage(&cmd_cleanup);
	n = run_cleanup_stale(1);
	printf("%d stale guest%s cleaned up\n", n, n == 1 ? "" : "s");
	return 0;
}

static volatile pid_t	tui_pid;

/* SIGTERM/SIGHUP while the TUI runs: pass it on, then clean up. */
static void
tui_forward(int sig)
{
	if (tui_pid > 0)
		kill(tui_pid, sig);
}

/* Run the TUI binary with args; returns its status. */
static int
tui_spawn(char **args)
{
	struct sigaction	 sa = { .sa_handler = tui_forward };
	char			*bin = top_path("build/bin/umkit-tui");
	pid_t			 pid;
	int			 st;

	if (access(bin, X_OK) < 0)
		fatal("%s: missing (run 'make')", bin);
	args[0] = bin;
	if ((pid = fork()) < 0)
		fatalx("fork");
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

	if (argc > 1 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0))
		return cmd_help(&cmd_tui);
	args = xcalloc(argc + 3, sizeof *args);
	for (i = 1; i < argc; i++) {
		if (argv[i][0] != '-' && (i == 1 || argv[i - 1][0] != '-' ||
		    strchr(argv[i - 1], '=') != NULL) && run_name_ok(argv[i]) == 0) {
			if (!run_alive(argv[i]))
				fatal("no running guest '%s' (see 'umkit list')", argv[i]);
			args[n++] = "--root";
			args[n++] = xasprintf("%s/run/%s/mnt", top_dir(), argv[i]);
			continue;
		}
		args[n++] = argv[i];
	}
	return tui_spawn(args);
}

/* umkit run [start options]: a guest, the TUI on it, then stop it. */
static int
run_main(int argc, char **argv)
{
	char	**sargv, *stop[3], *targs[4];
	char	  name[32];
	int	  i, n = 0, rc;

	if (argc > 1 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0))
		return cmd_help(&cmd_run);
	if (!isatty(0) || !isatty(1))
		fatal("run needs a terminal (for the TUI); try 'umkit start' and 'umkit tui'");
	snprintf(name, sizeof name, "run-%d", (int)getpid());
	sargv = xcalloc(argc + 4, sizeof *sargv);
	sargv[n++] = "start";
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-n") == 0)
			fatal("run names its guest itself; use 'umkit start -n' instead");
		sargv[n++] = argv[i];
	}
	sargv[n++] = "-n";
	sargv[n++] = name;
	optind = 0;
	if ((rc = cmd_start.exec(n, sargv)) != 0)
		return rc;
	targs[1] = "--root";
	targs[2] = xasprintf("%s/run/%s/mnt", top_dir(), name);
	targs[3] = NULL;
	rc = tui_spawn(targs);
	stop[0] = "stop";
	stop[1] = name;
	stop[2] = NULL;
	cmd_stop.exec(2, stop);
	free(targs[2]);
	free(sargv);
	return rc;
}

static volatile int	record_stop;

/* SIGINT/SIGTERM end a recording cleanly. */
static void
record_sig(int sig)
{
	(void)sig;
	record_stop = 1;
}

/* umkit record NAME|ROOT DIR [--every MS] [--for SECONDS] */
static int
record_main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "every", required_argument, NULL, 'e' },
		{ "for", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	char	*root, *end;
	int	 c, every = 500, secs = 0, r;

	while ((c = getopt_long(argc, argv, "e:f:h", lo, NULL)) != -1) {
		switch (c) {
		case 'e':
			every = strtol(optarg, &end, 10);
			if (*end != '\0' || every < 10)
				fatal("--every %s: want milliseconds, at least 10", optarg);
			break;
		case 'f':
			secs = strtol(optarg, &end, 10);
			if (*end != '\0' || secs < 1)
				fatal("--for %s: want whole seconds", optarg);
			break;
		case 'h':
			return cmd_help(&cmd_record);
		default:
			return cmd_usage(&cmd_record);
		}
	}
	if (argc - optind != 2)
		return cmd_usage(&cmd_record);
	if (strchr(argv[optind], '/') != NULL)
		root = xstrdup(argv[optind]);
	else {
		if (run_name_ok(argv[optind]) < 0 || !run_alive(argv[optind]))
			fatal("no running guest '%s' (see 'umkit list')", argv[optind]);
		root = xasprintf("%s/run/%s/mnt", top_dir(), argv[optind]);
	}
	signal(SIGINT, record_sig);
	signal(SIGTERM, record_sig);
	r = record_run(root, argv[optind + 1], every, secs, &record_stop, stderr);
	free(root);
	return r < 0 ? EXIT_KIT : 0;
}

const struct cmd cmd_run = {
	.name = "run",
	.usage = "run [-V VARIANT] [-m MEM] [-c CPUS] [-A]",
	.help =
"What 'make run' does: start a guest, open the TUI on its mirror, and\n"
"stop the guest when the TUI quits (q).  Needs a terminal.\n"
"\n"
"Example:\n"
"  umkit run -c 4",
	.exec = run_main,
};

const struct cmd cmd_variants = {
	.name = "variants",
	.usage = "variants",
	.help =
"List the kernel variants: each directory patches/VARIANT with a series\n"
"file (quilt format) and a one-line description; 'built' when its kernel\n"
"exists.  Build one with 'make VARIANT=NAME'.\n"
"\n"
"Example:\n"
"  umkit variants",
	.exec = variants_main,
};

const struct cmd cmd_cleanup = {
	.name = "cleanup",
	.usage = "cleanup",
	.help =
"Remove what crashed umkit processes left: UML processes, FUSE mounts and\n"
"run/NAME directories whose owner is gone.  Every other umkit command\n"
"does this first, too.\n"
"\n"
"Example:\n"
"  umkit cleanup",
	.exec = cleanup_main,
};

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
	.exec = tui_main,
};

const struct cmd cmd_record = {
	.name = "record",
	.usage = "record NAME|ROOT DIR [--every MS] [--for SECONDS]",
	.help =
"Save timestamped snapshots of the files the TUI reads from the running\n"
"guest NAME (or from a root directory given as a path) into DIR, every\n"
"MS milliseconds (default 500) for SECONDS (default: until Ctrl-C).\n"
"'umkit tui --root DIR' replays it; docs/recording.md has the format.\n"
"\n"
"Example:\n"
"  umkit record lab rec/aging --every 200 --for 10",
	.exec = record_main,
};
