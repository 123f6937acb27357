/* SPDX-License-Identifier: GPL-2.0-only */
/* cmd-get.c - umkit get: named values of a running guest (or any root). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guest/rundir.h"
#include "umkit.h"
#include "util.h"
#include "values.h"

/* umkit get NAME|ROOT SPEC...: "SPEC VALUE" per spec, one read per file. */
static int
get_main(int argc, char **argv)
{
	struct values	*v;
	char		*root, err[512], num[64];
	double		 x;
	int		 i, rc = 0;

	if (strchr(argv[1], '/') != NULL)
		root = xstrdup(argv[1]);
	else {
		cmd_need_guest(argv[1]);
		root = run_mnt(argv[1]);
	}
	for (i = 2; i < argc; i++)
		if (values_check(argv[i], err, sizeof err) < 0) {
			warnmsg("%s", err);
			rc = 1;
		}
	if (rc != 0) {
		free(root);
		return rc;
	}
	if ((v = values_open(root, err, sizeof err)) == NULL)
		fatalx("%s", err);
	for (i = 2; i < argc; i++) {
		if (values_get(v, argv[i], &x, err, sizeof err) < 0) {
			warnmsg("%s", err);
			rc = 1;
			continue;
		}
		values_format(num, sizeof num, x);
		printf("%s %s\n", argv[i], num);
	}
	values_close(v);
	free(root);
	return rc;
}

const struct cmd cmd_get = {
	.name = "get",
	.usage = "get NAME|ROOT SPEC...",
	.help =
"Print named values of the running guest NAME (read through its mirror)\n"
"or of a root directory given as a path (a recording's snapshot\n"
"DIR/snap/SEQ, /): one 'SPEC VALUE' line each, all read from one read of\n"
"each file, with the same parsers the TUI and the lab checks use.  The\n"
"specs are in docs/values.md.  Exit status 1 when a spec failed (its\n"
"error names it).\n"
"\n"
"Examples:\n"
"  umkit get lab lru_gen.max_seq lru_gen.min_seq vmstat.pgscan_kswapd\n"
"  umkit get lab 'memory.stat[wsA].workingset_refault_file'\n"
"  umkit get rec/aging/snap/000003 'zoneinfo[Normal].free'",
	.min_args = 2,
	.max_args = CMD_ARGS_ANY,
	.exec = get_main,
};
