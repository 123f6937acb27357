/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuzz-ctl.c - libFuzzer entry point for a control-socket request as the
 * supervisor reads it (ctl_parse_request).  The first byte is how many
 * descriptors came with it (0-4), the rest the message.  Never crash or
 * leak; an exec request has at least two fields inside the buffer and
 * two or three descriptors; a trace has its path; a bad one says why.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "guest/ctl.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Read one request. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ctl_req	 r;
	char		*buf;
	size_t		 len;
	int		 nfds, i;

	if (size == 0)
		return 0;
	nfds = data[0] % 5;
	len = size - 1 > CTL_MSG_MAX ? CTL_MSG_MAX : size - 1;
	buf = xmalloc(CTL_MSG_MAX + 1);
	memcpy(buf, data + 1, len);
	ctl_parse_request(buf, len, nfds, &r);
	switch (r.kind) {
	case CTL_REQ_EXEC:
		if (r.argc < 2 || (nfds != 2 && nfds != 3))
			abort();
		for (i = 0; i < r.argc; i++)
			if (r.argv[i] < buf || r.argv[i] > buf + len)
				abort();
		break;
	case CTL_REQ_TRACE:
		if (r.arg == NULL || r.arg <= buf || r.arg > buf + len)
			abort();
		break;
	case CTL_REQ_BAD:
		if (r.why == NULL)
			abort();
		break;
	default:
		break;
	}
	free(r.argv);
	free(buf);
	return 0;
}
