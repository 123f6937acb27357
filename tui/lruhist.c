/* SPDX-License-Identifier: GPL-2.0-only */
/* lruhist.c - the MGLRU history model; see lruhist.h. */
#include <stdlib.h>
#include <string.h>

#include "lruhist.h"
#include "util.h"

/* Find or add the history of an lruvec. */
static struct lh_vec *
vec_of(struct lruhist *h, u64 id, int nid)
{
	for (int i = 0; i < h->n; i++)
		if (h->vec[i].id == id && h->vec[i].nid == nid)
			return &h->vec[i];
	h->vec = xrealloc(h->vec, (size_t)(h->n + 1) * sizeof(*h->vec));
	memset(&h->vec[h->n], 0, sizeof(*h->vec));
	h->vec[h->n].id = id;
	h->vec[h->n].nid = nid;
	return &h->vec[h->n++];
}

/* Append each generation's size to its samples, keyed by seq: a
 * generation keeps its samples while it lives, a new one starts empty. */
static void
feed_gens(struct lh_vec *v, const struct lg_node *nd)
{
	struct lh_gen	old[LG_MAX_GENS];

	memcpy(old, v->gen, sizeof(old));
	memset(v->gen, 0, sizeof(v->gen));
	for (int i = 0; i < nd->ngens && i < LG_MAX_GENS; i++) {
		const struct lg_gen	*g = &nd->gen[i];
		struct lh_gen		*s = &v->gen[i];

		s->seq = g->seq;
		for (int k = 0; k < LG_MAX_GENS; k++)
			if (old[k].n && old[k].seq == g->seq) {
				*s = old[k];
				break;
			}
		if (s->n == LH_SAMPLES) {
			memmove(s->v, s->v + 1, (LH_SAMPLES - 1) * sizeof(double));
			s->n--;
		}
		s->v[s->n++] = (double)(g->pages[0] + g->pages[1]);
	}
}

/* Compare each lruvec's seqs with the previous snapshot's. */
void
lruhist_feed(struct lruhist *h, const struct lrugen *lg, double now_ms)
{
	for (int i = 0; i < h->n; i++)
		h->vec[i].seen = false;
	for (int m = 0; m < lg->n; m++)
		for (int k = 0; k < lg->memcg[m].nnodes; k++) {
			const struct lg_node	*nd = &lg->memcg[m].node[k];
			struct lh_vec		*v = vec_of(h, lg->memcg[m].id,
			    nd->nid);
			u64			 mx = lg_max_seq(nd),
			    mn = lg_min_seq(nd);

			if (v->have && mx > v->max_seq) {
				v->aged_at = now_ms;
				v->aged_by = (int)(mx - v->max_seq);
				v->agings += v->aged_by;
			}
			if (v->have && mn > v->min_seq) {
				v->evicted_at = now_ms;
				v->evicted_by = (int)(mn - v->min_seq);
				v->evictions += v->evicted_by;
			}
			v->max_seq = mx;
			v->min_seq = mn;
			v->have = true;
			v->seen = true;
			feed_gens(v, nd);
		}
	h->snapshots++;
}

/* Drop every lruvec (storage kept for reuse). */
void
lruhist_reset(struct lruhist *h)
{
	h->n = 0;
	h->snapshots = 0;
}

/* Free the lruvec array. */
void
lruhist_free(struct lruhist *h)
{
	free(h->vec);
	h->vec = NULL;
	h->n = 0;
	h->snapshots = 0;
}

/* Linear search: a guest has a handful of lruvecs. */
const struct lh_vec *
lruhist_find(const struct lruhist *h, u64 id, int nid)
{
	for (int i = 0; i < h->n; i++)
		if (h->vec[i].id == id && h->vec[i].nid == nid)
			return &h->vec[i];
	return NULL;
}

/* Sum the counts of the selected lruvecs. */
struct lh_count
lruhist_count(const struct lruhist *h, u64 id, int nid)
{
	struct lh_count	c = { 0, 0 };

	for (int i = 0; i < h->n; i++) {
		const struct lh_vec	*v = &h->vec[i];

		if ((id != LH_ANY_MEMCG && v->id != id) ||
		    (nid != LH_ANY_NODE && v->nid != nid))
			continue;
		c.agings += v->agings;
		c.evictions += v->evictions;
	}
	return c;
}

/* A change that happened, not longer ago than the window. */
bool
lh_recent(double at, long count, double now_ms, double window_ms)
{
	return count > 0 && now_ms - at < window_ms;
}
