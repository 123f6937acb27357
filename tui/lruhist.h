/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * lruhist.h - the MGLRU history model: successive lru_gen snapshots go
 * in, and for each lruvec (memcg id, node) it tells what happened
 * between them: agings (max_seq advanced), evictions (min_seq advanced),
 * when the last one was seen and by how many generations, and each
 * generation's size over the snapshots since it was created.
 *
 * The TUI's LRU view draws it ("aged +1", "evict +1", the sparklines,
 * "agings seen N"); lab checks and umkit-value --history ask it whether
 * an aging or an eviction happened.  It is part of libumkit-parse (see
 * parse.h for why the library lives in tui/): pure computation on parsed
 * snapshots, no I/O, no curses.
 */
#ifndef UMKIT_LRUHIST_H
#define UMKIT_LRUHIST_H

#include <stdbool.h>

#include "parse.h"

#define LH_SAMPLES	48		/* sizes kept per generation */
#define LH_ANY_MEMCG	(~0ULL)		/* lruhist_count(): every memcg */
#define LH_ANY_NODE	(-1)		/* lruhist_count(): every node */

/* One generation's size (anon + file pages), oldest sample first. */
struct lh_gen {
	u64	seq;
	int	n;
	double	v[LH_SAMPLES];
};

/* The history of one lruvec. */
struct lh_vec {
	u64		id;		/* memcg id */
	int		nid;
	bool		seen;		/* present in the latest snapshot */
	bool		have;		/* min_seq / max_seq hold a sample */
	u64		min_seq, max_seq;	/* in the latest snapshot */
	double		aged_at, evicted_at;	/* data time (ms) of the last change */
	int		aged_by, evicted_by;	/* generations that change moved */
	long		agings, evictions;	/* generations moved since the start */
	struct lh_gen	gen[LG_MAX_GENS];	/* the latest snapshot's, in order */
};

/* Zero-initialise before the first lruhist_feed(). */
struct lruhist {
	int		 n;
	struct lh_vec	*vec;
	int		 snapshots;	/* fed since the start or the last reset */
};

/* Agings and evictions (in generations) summed over some lruvecs. */
struct lh_count {
	long	agings, evictions;
};

/*
 * Feed the next snapshot, taken at data time now_ms.  For each lruvec
 * seen before, a max_seq larger than in the previous snapshot counts as
 * (max_seq - previous) agings at now_ms, a larger min_seq as evictions;
 * seqs never go back, so a smaller one is taken as a new start (a
 * restarted guest) and counts nothing.  Lruvecs missing from lg keep
 * their counts with seen false.
 */
void	lruhist_feed(struct lruhist *, const struct lrugen *lg, double now_ms);
/* Forget everything (time jumped: a recording stepped back). */
void	lruhist_reset(struct lruhist *);
/* Release the storage (the history is empty afterwards). */
void	lruhist_free(struct lruhist *);
/* The history of lruvec (memcg id, nid), or NULL if never fed. */
const struct lh_vec *lruhist_find(const struct lruhist *, u64 id, int nid);
/*
 * Agings and evictions since the start (or the last reset) of memcg id
 * (LH_ANY_MEMCG: all) on node nid (LH_ANY_NODE: all).  "Since a moment"
 * is the difference of two counts: keep the one taken then.
 */
struct lh_count lruhist_count(const struct lruhist *, u64 id, int nid);
/* Whether the change at data time `at` (a vec's aged_at or evicted_at,
 * with count > 0) is less than window_ms before now_ms. */
bool	lh_recent(double at, long count, double now_ms, double window_ms);

#endif
