/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuzz-parse.c - libFuzzer entry point for the TUI's parsers, which read
 * bytes that come from the guest (through the mirror or a recording).
 *
 * The first input byte picks the parser (modulo their number); the rest
 * is the file content, in an exact-size buffer so the sanitizers see any
 * read past its end.  A parser must return 0 or -1 and never crash; on -1
 * its error text must be a NUL-terminated string.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "comprun.h"
#include "parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Check the error text is terminated within its buffer. */
static void
check_err(const char *err)
{
	if (memchr(err, '\0', PERR_LEN) == NULL)
		abort();
}

/* One parser per case; each frees what it allocated. */
static void
run(unsigned which, const char *b, size_t n)
{
	switch (which) {
	case 0: { struct vmstat v = { 0 }; parse_vmstat(b, n, &v); check_err(v.err); kv_free(&v.kv); break; }
	case 1: { struct meminfo v = { 0 }; parse_meminfo(b, n, &v); check_err(v.err); kv_free(&v.kv); break; }
	case 2: { struct lrugen v = { 0 }; parse_lrugen(b, n, &v); check_err(v.err); lrugen_free(&v); break; }
	case 3: { struct zoneinfo v = { 0 }; parse_zoneinfo(b, n, &v); check_err(v.err); zoneinfo_free(&v); break; }
	case 4: { struct buddyinfo v; parse_buddyinfo(b, n, &v); check_err(v.err); break; }
	case 5: { struct pagetypeinfo v; parse_pagetypeinfo(b, n, &v); check_err(v.err); break; }
	case 6: { struct extfrag v; parse_extfrag(b, n, &v); check_err(v.err); break; }
	case 7: {
		/* the trace, then the compaction runs rebuilt from it */
		struct trace	v = { 0 };
		struct cruns	rs = { 0 };
		struct cstate	s;
		unsigned char	blk[64];

		parse_trace(b, n, &v);
		check_err(v.err);
		cruns_find(&v, &rs);
		for (int r = 0; r < rs.n; r++) {
			if (rs.run[r].nev < 1 || crun_event(&v, &rs, r, 0)->type != TEV_BEGIN)
				abort();
			crun_state(&v, &rs, r, rs.run[r].nev - 1, &s, blk, 64, 1 + n % 2048);
		}
		cruns_free(&rs);
		trace_free(&v);
		break;
	}
	case 8: { struct pidstatus v; parse_pidstatus(b, n, &v); check_err(v.err); break; }
	case 9: { struct statm v; parse_statm(b, n, &v); check_err(v.err); break; }
	case 10: { struct cpustat v; parse_cpustat(b, n, &v); check_err(v.err); break; }
	case 11: { struct psi v; parse_psi(b, n, &v); check_err(v.err); break; }
	case 12: {
		size_t		 npfn = n / 8 + 1024;
		unsigned char	*cls = malloc(npfn);
		char		 err[PERR_LEN] = "";

		if (cls != NULL) {
			parse_kpageflags(b, n, n % 4096, cls, npfn, err);
			check_err(err);
			free(cls);
		}
		break;
	}
	case 13: { struct osrelease v; parse_osrelease(b, n, &v); check_err(v.err); break; }
	case 14: { struct pidstat v; parse_pidstat(b, n, &v); check_err(v.err); break; }
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char	*b;

	if (size == 0)
		return 0;
	b = malloc(size - 1 ? size - 1 : 1);
	if (b == NULL)
		return 0;
	memcpy(b, data + 1, size - 1);
	run(data[0] % 15, b, size - 1);
	free(b);
	return 0;
}
