/* SPDX-License-Identifier: GPL-2.0-only */
/* lab-result.c - a workload's result line, key by key (lab-result.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lab-result.h"

/* The last line of text starting "NAME: ", or NULL. */
static const char *
last_line(const char *text, const char *name, size_t nl)
{
	const char	*p, *line = NULL;

	for (p = text; p != NULL && *p != '\0'; p = strchr(p, '\n'),
	    p = p ? p + 1 : NULL)
		if (strncmp(p, name, nl) == 0 && p[nl] == ':' && p[nl + 1] == ' ')
			line = p;
	return line;
}

/* key=value in the last NAME line of text. */
int
lab_result_in(const char *text, const char *name, const char *key, double *v)
{
	const char	*line, *q, *val;
	size_t		 nl = strlen(name), kl = strlen(key);
	char		*end;
	double		 d;

	if (nl == 0 || kl == 0 || (line = last_line(text, name, nl)) == NULL)
		return 0;
	for (q = line + nl + 1; *q != '\0' && *q != '\n'; q++) {
		if (q[-1] != ' ' || strncmp(q, key, kl) != 0 || q[kl] != '=')
			continue;
		val = q + kl + 1;
		/* strtod would skip blanks, the newline too, into the next line. */
		if (strchr("0123456789+-.", *val) == NULL || *val == '\0')
			return -1;
		d = strtod(val, &end);
		if (end == val || !isfinite(d))
			return -1;
		*v = d;
		return 1;
	}
	return -1;
}
