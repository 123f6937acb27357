/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * mkline.c - a kernel Makefile's line for an object (mkline.h).
 */
#include <stdio.h>
#include <string.h>

#include "mkline.h"

/* Control characters (an escape sequence for the terminal) made '?'. */
static void
clean(char *s)
{
	for (; *s != '\0'; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = '?';
}

/* Whether c ends a word of a Makefile line. */
static int
word_end(char c)
{
	return c == '\0' || c == ' ' || c == '\t' || c == '\\';
}

/* The line naming token, and its option. */
int
mkline_find(char *text, const char *token, char *cfg, size_t cfglen,
    char *line, size_t linelen)
{
	char	*p, *nl, *c;
	size_t	 tl = strlen(token);

	if (tl == 0 || cfglen == 0 || linelen == 0)
		return -1;
	for (p = text; p != NULL && *p != '\0'; p = nl ? nl + 1 : NULL) {
		nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		for (c = p; (c = strstr(c, token)) != NULL; c += tl)
			if ((c == p || c[-1] == ' ' || c[-1] == '\t' || c[-1] == '=') &&
			    word_end(c[tl]))
				break;
		if (c == NULL)
			continue;
		if ((c = strstr(p, "$(CONFIG_")) != NULL)
			snprintf(cfg, cfglen, "%.*s", (int)strcspn(c + 2, ")"), c + 2);
		else
			cfg[0] = '\0';
		snprintf(line, linelen, "%.120s", p + strspn(p, " \t"));
		clean(cfg);
		clean(line);
		return 0;
	}
	return -1;
}
