/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * view-help.c - the help screen (F1 or ?): the global keys, then each
 * view's own keys.
 */
#include <stdio.h>
#include <string.h>

#include "tui.h"

static const char *const global_keys[][2] = {
	{ "F1 ?", "this help (again, or Esc, to go back)" },
	{ "q", "quit" },
	{ "Tab 1-4", "next view / LRU, Compaction, Counters, Overview" },
	{ "p", "pause updates (recordings: play / stop)" },
	{ "+ -", "refresh interval longer / shorter" },
	{ "r", "update now" },
	{ "Up Down PgUp PgDn Home End", "scroll the view" },
	{ "[ ] Left Right", "recordings: step back / forward in time" },
	{ "L", "show / hide the lab pane (with --lab-pane FILE)" },
	{ "Enter n b H j k", "lab: run the step / next / back / hints / scroll the pane" },
	{ "Esc", "lab: while a prediction is asked every key types it; Esc leaves it" },
};

/* Nothing to set up. */
static void
help_init(void)
{
}

/* Help reads no files. */
static void
help_update(struct ctx *c)
{
}

/* Key table, then per-view keys. */
static void
help_draw(struct frame *f)
{
	int	line = 0;

	fr_text(f, line++, 0, C_TITLE, "umkit-tui: what the Linux memory manager does, from /proc and /sys");
	line++;
	fr_text(f, line++, 0, C_TITLE, "Keys");
	for (unsigned i = 0; i < sizeof(global_keys) / sizeof(global_keys[0]); i++) {
		fr_printf(f, line, 2, C_MARK, "%-28s", global_keys[i][0]);
		fr_text(f, line++, 31, C_NORM, global_keys[i][1]);
	}
	line++;
	fr_text(f, line++, 0, C_TITLE, "Views");
	for (int i = 0; i < ndata_views; i++) {
		const char	*h = data_views[i]->help;

		fr_printf(f, line, 2, C_MARK, "%d %-12s", i + 1, data_views[i]->name);
		/* the first line says what it shows, the others list its keys */
		for (int first = 1;; first = 0) {
			const char	*nl = strchr(h, '\n');
			char		 one[160];

			snprintf(one, sizeof(one), "%.*s", nl ? (int)(nl - h) : (int)strlen(h), h);
			fr_text(f, line++, 17, first ? C_NORM : C_DIM, one);
			if (!nl)
				break;
			h = nl + 1;
		}
	}
	line++;
	fr_text(f, line++, 0, C_DIM, "Source: --root DIR: live mirror run/NAME/mnt, a recording, or / (this host)");
	fr_text(f, line++, 0, C_DIM, "No colour: NO_COLOR or TERM=vt100.  ASCII: --ascii or a non-UTF-8 locale.");
}

/* No keys of its own. */
static int
help_key(int ch)
{
	return 0;
}

const struct view view_help = {
	.name = "help",
	.title = "Help",
	.init = help_init,
	.update = help_update,
	.draw = help_draw,
	.key = help_key,
	.help = "",
};
