/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuzz-recording.c - libFuzzer entry point for the recording format
 * (tui/recfmt.c): a recording's header file (rec_header_parse), its index
 * (rec_index_parse) and a file set (rec_files_parse, rec_files_match).
 * The input is up to four parts split at NUL bytes: the header, the
 * index, the file set and a path matched against it.  Never crash or
 * leak; an index gives six-digit snapshots with times that are not
 * negative, in file order; a header that parses is version 1 with a
 * NUL-terminated source; every pattern of a file set stays in the root.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "recfmt.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Parse the parts of one input. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char		*part[4] = { "", "", "", "" };
	size_t			 len[4] = { 0, 0, 0, 0 }, off = 0;
	struct rec_header	 h;
	struct rec_snap		*snaps = NULL;
	struct rec_files	 fs = { 0 };
	char			 err[REC_ERR_LEN], *buf = xmalloc(size + 1);
	unsigned		 lineno;
	int			 n = 0, i;

	memcpy(buf, data, size);
	buf[size] = '\0';
	while (n < 4 && off <= size) {
		part[n] = buf + off;
		len[n] = strlen(buf + off);
		off += len[n++] + 1;
	}
	/* The parsers take lengths: the header and index with no NUL cut. */
	if (rec_header_parse((const char *)data, size, &h, err, sizeof(err)) == 0 &&
	    (h.version != REC_VERSION || memchr(h.source, '\0',
	    sizeof(h.source)) == NULL || h.every_ms < 0 || h.started_unix_ms < 0))
		abort();
	rec_header_parse(part[0], len[0], &h, err, sizeof(err));
	n = rec_index_parse(part[1], len[1], &snaps);
	for (i = 0; i < n; i++)
		if (snaps[i].seq > REC_MAX_SEQ || snaps[i].unix_ms < 0 ||
		    snaps[i].elapsed_ms < 0)
			abort();
	free(snaps);
	snaps = NULL;
	n = rec_index_parse((const char *)data, size, &snaps);
	free(snaps);
	rec_files_parse(part[2], len[2], &fs, &lineno, err, sizeof(err));
	for (i = 0; i < fs.n; i++)
		if (rec_pattern_bad(fs.pat[i]) != NULL)
			abort();
	rec_files_match(&fs, part[3]);
	rec_files_has(&fs, part[3]);
	rec_files_free(&fs);
	free(buf);
	return 0;
}
