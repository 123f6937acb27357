/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * smoke-labs.c - the labs' batch checks of a smoke run (smoke.h): 'umkit
 * lab all --batch' (or the one lab asked for), its base steps on the
 * kernel under test, as many labs at a time as the benchmarks' -j.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"
#include "smoke.h"
#include "spawn.h"
#include "util.h"

/*
 * Run the labs' batch checks (KTAP into log), base steps on kernel: one
 * 'umkit lab' process, which runs several labs each in a child of its own
 * and prints their KTAP in the labs' order.
 */
int
smoke_labs_run(struct smoke *s, const char *kernel, const char *log)
{
	char		*jobs = xasprintf("%d", s->jobs > 0 ? s->jobs : bench_default_jobs());
	char		*argv[] = { umkit_exe(), "lab", (char *)s->labs, "--batch",
			    "--jobs", jobs, "--base-kernel", (char *)kernel, NULL };
	struct spawn	 sp;
	int		 rc;

	spawn_init(&sp, argv);
	sp.out_file = log;
	sp.err = SPAWN_TO_OUT;
	rc = spawn_run(&sp);
	free(argv[0]);
	free(jobs);
	return rc;
}
