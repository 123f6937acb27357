/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * smoke-labs.c - the labs' batch checks of a smoke run (smoke.h): every
 * lab, two at a time, their KTAP documents joined as 'umkit lab all
 * --batch' nests them; or the one lab asked for.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "lab/lab-cat.h"
#include "smoke.h"
#include "spawn.h"
#include "util.h"

/*
 * One lab's KTAP document appended to f as subtest i of the whole, as
 * 'umkit lab all --batch' nests it: indented, then its result line.
 */
static void
labs_append(FILE *f, const char *path, int i, const char *lab, int rc)
{
	char		*text = read_text(path), *l, *nl;
	const char	*base = strrchr(lab, '/') ? strrchr(lab, '/') + 1 : lab;

	for (l = text; l != NULL && *l; l = nl ? nl + 1 : NULL) {
		nl = strchr(l, '\n');
		if (nl)
			*nl = '\0';
		fprintf(f, "    %s\n", l);
	}
	free(text);
	fprintf(f, "%sok %d %.*s\n", rc == 0 ? "" : "not ", i,
	    (int)(strlen(base) > 4 ? strlen(base) - 4 : strlen(base)), base);
}

/*
 * Run the labs' batch checks (KTAP into log), base steps on kernel.  All
 * the labs: as many at a time as the benchmarks' -j default (each lab's
 * guests on a host CPU of their own choosing: guest.h), their documents
 * joined in the labs' order; one lab: as it is.
 */
int
smoke_labs_run(struct smoke *s, const char *kernel, const char *log)
{
	char		*argv[BENCH_MAX_JOBS][7], **paths, *part[64];
	struct spawn	 sp[BENCH_MAX_JOBS];
	int		 n = 0, i, j, k, nj, jobs = bench_default_jobs(), rc = 0, sig;
	int		 rcs[BENCH_MAX_JOBS], st[64];
	FILE		*f;

	if (strcmp(s->labs, "all") == 0)
		n = lab_files(&paths);
	if (n < 2 || n > 64) {
		char	*one[] = { umkit_exe(), "lab", (char *)s->labs, "--batch",
			    "--base-kernel", (char *)kernel, NULL };

		for (i = 0; i < n; i++)
			free(paths[i]);
		if (strcmp(s->labs, "all") == 0)
			free(paths);
		spawn_init(&sp[0], one);
		sp[0].out_file = log;
		sp[0].err = SPAWN_TO_OUT;
		rc = spawn_run(&sp[0]);
		free(one[0]);
		return rc;
	}
	for (k = 0; k < n; k += nj) {
		nj = n - k < jobs ? n - k : jobs;
		for (j = 0; j < nj; j++) {
			part[k + j] = xasprintf("%s.%d", log, k + j + 1);
			argv[j][0] = umkit_exe();
			argv[j][1] = "lab";
			argv[j][2] = paths[k + j];
			argv[j][3] = "--batch";
			argv[j][4] = "--base-kernel";
			argv[j][5] = (char *)kernel;
			argv[j][6] = NULL;
			spawn_init(&sp[j], argv[j]);
			sp[j].out_file = part[k + j];
			sp[j].err = SPAWN_TO_OUT;
			spawn_start(&sp[j]);
		}
		sig = spawn_wait_all(sp, nj, rcs);
		for (j = 0; j < nj; j++) {
			free(argv[j][0]);
			st[k + j] = rcs[j];
			if (rc == 0 && rcs[j] != 0)
				rc = rcs[j];
		}
		if (sig != 0) {
			rc = sig;
			k += nj;
			break;
		}
	}
	if ((f = fopen(log, "w")) == NULL)
		fatal("%s", log);
	fprintf(f, "KTAP version 1\n1..%d\n", n);
	for (i = 0; i < k && i < n; i++) {
		labs_append(f, part[i], i + 1, paths[i], st[i]);
		unlink(part[i]);
		free(part[i]);
	}
	if (fclose(f) != 0)
		fatal("%s", log);
	for (i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
	return rc;
}
