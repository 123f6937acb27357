/* SPDX-License-Identifier: GPL-2.0-only */
/* cmd-record.c - umkit record: snapshots of the TUI's files (record.h). */
#define _GNU_SOURCE
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "link/record.h"
#include "guest/rundir.h"
#include "umkit.h"
#include "util.h"

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
		{ NULL, 0, NULL, 0 }
	};
	char	*root, *end;
	int	 c, every = 500, secs = 0, r;

	while ((c = getopt_long(argc, argv, "e:f:", lo, NULL)) != -1) {
		switch (c) {
		case 'e':
			every = strtol(optarg, &end, 10);
			if (*end != '\0' || every < 10)
				fatalx("--every %s: want milliseconds, at least 10", optarg);
			break;
		case 'f':
			secs = strtol(optarg, &end, 10);
			if (*end != '\0' || secs < 1)
				fatalx("--for %s: want whole seconds", optarg);
			break;
		default:
			return cmd_usage(&cmd_record);
		}
	}
	if (argc - optind != 2)
		return cmd_usage(&cmd_record);
	if (strchr(argv[optind], '/') != NULL)
		root = xstrdup(argv[optind]);
	else {
		cmd_need_guest(argv[optind]);
		root = run_mnt(argv[optind]);
	}
	signal(SIGINT, record_sig);
	signal(SIGTERM, record_sig);
	r = record_run(root, argv[optind + 1], every, secs, &record_stop, stderr);
	free(root);
	return r < 0 ? EXIT_KIT : 0;
}

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
	.max_args = CMD_ARGS_ANY,
	.exec = record_main,
};
