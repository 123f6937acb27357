/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuzz-resultline.c - libFuzzer entry point for the workloads' result
 * lines ("NAME: key=value ...", printed in the guest): umkit compare's
 * parser (bench_parse_out) and a lab's result(NAME.KEY) (lab_result_in).
 * The input's first line is the NAME.KEY asked for, the rest the output.
 * Never crash or leak; every metric has a name bench_name_ok takes and
 * finite samples, at most BENCH_MAX_METRICS and BENCH_MAX_BOOTS; a value
 * found is finite.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lab/lab-result.h"
#include "patch/bench.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Parse one output both ways. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char		*buf = xmalloc(size + 1), *text, *key, *nl;
	struct bres	 r;
	double		 v;
	int		 i, s, k;

	memcpy(buf, data, size);
	buf[size] = '\0';
	if ((nl = strchr(buf, '\n')) != NULL) {
		*nl = '\0';
		text = nl + 1;
	} else
		text = buf + strlen(buf);
	key = strchr(buf, '.');
	if (key != NULL)
		*key++ = '\0';
	else
		key = buf + strlen(buf);
	if (lab_result_in(text, buf, key, &v) == 1 && !isfinite(v))
		abort();

	memset(&r, 0, sizeof(r));
	for (s = 0; s < 2; s++) {
		char *copy = xstrdup(text);

		bench_parse_out(&r, s, copy);
		free(copy);
	}
	if (r.nm > BENCH_MAX_METRICS)
		abort();
	for (i = 0; i < r.nm; i++) {
		if (!bench_name_ok(r.m[i].name))
			abort();
		for (s = 0; s < 2; s++) {
			if (r.m[i].n[s] < 0 || r.m[i].n[s] > BENCH_MAX_BOOTS)
				abort();
			for (k = 0; k < r.m[i].n[s]; k++)
				if (!isfinite(r.m[i].v[s][k]))
					abort();
		}
	}
	bench_free(&r);
	free(buf);
	return 0;
}
