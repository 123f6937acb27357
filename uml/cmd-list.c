/* SPDX-License-Identifier: GPL-2.0-only */
/* cmd-list.c - umkit list: the running guests, asked through ctl.sock. */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guest/ctl.h"
#include "guest/rundir.h"
#include "umkit.h"
#include "util.h"

/* umkit list */
static int
list_main(int argc, char **argv)
{
	const char	*f[] = { "info", NULL };
	char		*r, *rel, *mnt, a[64], b[64], c[64], d[64], e[64];
	struct dirent	**nl;
	int		 n, i, shown = 0;

	n = scandir(kit()->run, &nl, NULL, alphasort);
	for (i = 0; i < n; i++) {
		const char *name = nl[i]->d_name;

		if (name[0] != '.' && strcmp(name, "log") != 0 &&
		    strncmp(name, "exec-", 5) != 0 && run_alive(name) &&
		    (r = ctl_call(name, f, NULL, 0, NULL)) != NULL) {
			if (shown++ == 0)
				printf("%-16s %-12s %4s %7s %-9s %8s  %s\n", "NAME",
				    "VARIANT", "CPUS", "MEM", "STATE", "UPTIME", "MIRROR");
			rel = xasprintf("%s/mnt", name);
			mnt = run_shown(rel);
			printf("%-16s %-12s %4s %6sM %-9s %7ss  %s\n", name,
			    ctl_field(r, "variant", a, sizeof a),
			    ctl_field(r, "cpus", b, sizeof b),
			    ctl_field(r, "mem_mb", c, sizeof c),
			    ctl_field(r, "state", d, sizeof d),
			    ctl_field(r, "uptime_s", e, sizeof e), mnt);
			free(mnt);
			free(rel);
			free(r);
		}
		free(nl[i]);
	}
	if (n > 0)
		free(nl);
	if (shown == 0)
		printf("no guests running\n");
	return 0;
}

const struct cmd cmd_list = {
	.name = "list",
	.usage = "list",
	.help =
"List running guests with their variant, CPUs, memory, state (running,\n"
"dead or panicked) and mirror.  Stale entries are cleaned up first.\n"
"\n"
"Example:\n"
"  umkit list",
	.exec = list_main,
};
