/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * record.h - recordings: timestamped snapshots of the files the TUI reads.
 *
 * A recording is a directory (docs/recording.md has the format, and
 * tui/recfmt.h is the one module that writes and reads its parts):
 *
 *	DIR/umkit-recording	"umkit-recording 1", then "key value" lines:
 *				source, every_ms, started_unix_ms
 *	DIR/index		one line per snapshot: "SEQ UNIX_MS ELAPSED_MS"
 *				(SEQ six digits, zero-padded)
 *	DIR/snap/SEQ/...	a complete root: snap/000000/proc/vmstat ...
 *
 * Each snapshot is written to snap/.tmp-SEQ, renamed into place, and only
 * then its index line appended, so a reader never sees half a snapshot.
 *
 * The file set is uml/link/record.files (one root-relative path or glob per
 * line, '#' comments), read at the start of each recording; the
 * environment variable UMKIT_RECORD_FILES names another file to use.
 */
#ifndef UMKIT_RECORD_H
#define UMKIT_RECORD_H

#include <stdio.h>

/*
 * Record root (a mirror mount, a recording snapshot, or / on a Linux
 * host) into dir (created; must not already hold a recording), one
 * snapshot every every_ms, for for_s seconds (0: until *stop), stopping
 * early when *stop becomes non-zero or the root becomes unreadable (EIO
 * from a dead guest, or no file found where earlier snapshots found
 * some: the partial snapshot is discarded).  Progress and problems
 * go to log (stderr when NULL), one line each.  Returns the number of
 * snapshots written, or a negative errno when the recording could not be
 * set up.
 */
int	record_run(const char *root, const char *dir, int every_ms, int for_s,
	    volatile int *stop, FILE *log);

#endif
