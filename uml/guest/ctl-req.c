/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ctl-req.c - a control-socket request read (ctl.h): its kind and fields.
 * Apart from ctl.c so that the fuzzer links it alone.
 */
#include <string.h>

#include "ctl.h"
#include "util.h"

/* The kind and fields of the request in buf (ctl.h). */
void
ctl_parse_request(char *buf, size_t len, int nfds, struct ctl_req *r)
{
	size_t	off, first;

	memset(r, 0, sizeof *r);
	r->kind = CTL_REQ_BAD;
	if (len == 0 || len > CTL_MSG_MAX) {
		r->why = "an empty or oversized request";
		return;
	}
	buf[len] = '\0';
	first = strlen(buf);
	if (strcmp(buf, "exec") == 0) {
		r->argv = xcalloc(len + 1, sizeof *r->argv);
		for (off = first + 1; off < len; off += strlen(buf + off) + 1)
			r->argv[r->argc++] = buf + off;
		/* the timeout and the command, with stdout and stderr (and stdin) */
		if (r->argc < 2 || (nfds != 2 && nfds != 3)) {
			r->why = "malformed exec request";
			return;
		}
		r->kind = CTL_REQ_EXEC;
	} else if (strcmp(buf, "trace") == 0 && len > first + 1) {
		r->kind = CTL_REQ_TRACE;
		r->arg = buf + first + 1;
	} else if (strcmp(buf, "console") == 0) {
		r->kind = CTL_REQ_CONSOLE;
	} else if (strcmp(buf, "info") == 0) {
		r->kind = CTL_REQ_INFO;
	} else if (strcmp(buf, "stop") == 0) {
		r->kind = CTL_REQ_STOP;
	} else
		r->why = "unknown request";
}
