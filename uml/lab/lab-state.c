/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * lab-state.c - the per-user state directory of lab runs (lab-state.h).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lab.h"
#include "lab-state.h"
#include "util.h"

/* The per-user state directory, made on demand (private when installed). */
char *
lab_state_dir(const char *sub)
{
	char	*d = xasprintf("%s/%s", kit()->state, sub);

	if (mkdir_p(d, kit()->installed ? 0700 : 0755) < 0)
		fatal("cannot create %s", d);
	return d;
}

/* Where this run's JSON result goes. */
char *
lab_result_path(const struct lab *l)
{
	char		*d = lab_state_dir("results"), *p, ts[32];
	time_t		 t = time(NULL);
	struct tm	 tm;

	localtime_r(&t, &tm);
	strftime(ts, sizeof ts, "%Y%m%d-%H%M%S", &tm);
	p = xasprintf("%s/%s-%s-%d.json", d, l->name, ts, (int)getpid());
	free(d);
	return p;
}

/* Remove saved progress and results of lab (--reset). */
void
lab_reset(const struct lab *l)
{
	struct dirent	**nl;
	char		 *d, *p;
	int		  n, i;
	size_t		  ln = strlen(l->name);

	d = lab_state_dir("progress");
	p = xasprintf("%s/%s.json", d, l->name);
	unlink(p);
	free(p);
	free(d);
	d = lab_state_dir("results");
	if ((n = scandir(d, &nl, NULL, alphasort)) > 0) {
		for (i = 0; i < n; i++) {
			if (strncmp(nl[i]->d_name, l->name, ln) == 0 &&
			    nl[i]->d_name[ln] == '-') {
				p = xasprintf("%s/%s", d, nl[i]->d_name);
				unlink(p);
				free(p);
			}
			free(nl[i]);
		}
		free(nl);
	}
	free(d);
}
