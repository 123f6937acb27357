/* SPDX-License-Identifier: GPL-2.0-only */
/* views.c - the data views in key order (1..4): the table tui.c, the
 * help view and test-view-files share. */
#include "tui.h"

const struct view *const data_views[] = {
	&view_lru, &view_compact, &view_counters, &view_overview,
};
const int ndata_views = sizeof(data_views) / sizeof(data_views[0]);
