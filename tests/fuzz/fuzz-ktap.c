/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuzz-ktap.c - libFuzzer entry point for a selftest's output as the kit
 * reads it (st_parse: KTAP subtests, the reason line), written back as
 * KTAP and compared with itself.  The output is the guest's: untrusted.
 * Never crash or leak; at most ST_MAX_SUBS subtests kept, each result 0,
 * 1 or 2, descriptions and the reason without control characters; a run
 * compared with itself has no regression.  The same bytes as a KUnit
 * guest's suites (st_kunit_parse): at most ST_MAX_TESTS, names clean.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz-util.h"

#include "patch/selftests.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);


/* Read one output as each status would, then KTAP and a self-compare. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct st_run	 run;
	FILE		*f;
	int		 s, k;

	run.n = 1;
	run.v = calloc(1, sizeof *run.v);
	strcpy(run.v[0].name, "t");
	for (s = ST_PASS; s <= ST_ERROR; s++) {
		struct st_test	*t = &run.v[0];

		t->status = (enum st_status)s;
		st_parse((const char *)data, size, t);
		if (t->nsubs < 0 || t->nsubs > ST_MAX_SUBS || t->nfailed < 0 ||
		    has_ctl(t->reason))
			abort();
		for (k = 0; k < t->nsubs; k++)
			if (t->subs[k].result < 0 || t->subs[k].result > 2 ||
			    has_ctl(t->subs[k].desc))
				abort();
	}
	if ((f = fopen("/dev/null", "w")) == NULL)
		abort();
	st_ktap(&run, f);
	if (st_compare(&run, &run, f) != 0)
		abort();
	fclose(f);
	st_free(&run);
	st_kunit_parse((const char *)data, size, &run);
	if (run.n < 0 || run.n > ST_MAX_TESTS)
		abort();
	for (k = 0; k < run.n; k++)
		if (has_ctl(run.v[k].name) || has_ctl(run.v[k].reason))
			abort();
	st_free(&run);
	return 0;
}
