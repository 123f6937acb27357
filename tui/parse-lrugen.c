/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * parse-lrugen.c - debugfs lru_gen / lru_gen_full (mm/vmscan.c
 * lru_gen_seq_show).  Layout:
 *
 *   memcg  ID PATH
 *    node  NID
 *     SEQ AGE_MS ANON[x] FILE[x]          one row per generation
 *                TIER  N[m] N[m] N[m] N[m] N[m] N[m]    (full: 4 per gen)
 *                      N[m] N[m] N[m] N[m]              (full: walk stats)
 */
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "util.h"

/* A number followed by at most one mark character. */
static bool
marked(struct tok t, u64 *v, char *mark)
{
	struct tok	rest;

	if (!tok_u64_prefix(t, v, &rest) || rest.n > 1)
		return false;
	*mark = rest.n ? rest.s[0] : ' ';
	return true;
}

/* Start a new memcg entry. */
static struct lg_memcg *
new_memcg(struct lrugen *lg)
{
	struct lg_memcg	*m;

	if (lg->n == lg->cap) {
		lg->cap = lg->cap ? lg->cap * 2 : 8;
		lg->memcg = xrealloc(lg->memcg, (size_t)lg->cap * sizeof(*m));
	}
	m = &lg->memcg[lg->n++];
	memset(m, 0, sizeof(*m));
	return m;
}

/* Parse one tier row's 7 tokens into the last generation. */
static void
tier_row(struct lrugen *lg, struct lg_gen *g, struct tok *t, int lineno)
{
	struct lg_tier	*tr;
	u64		 tier;

	if (!g) {
		perr(lg->err, lineno, "tier row before any generation");
		return;
	}
	if (g->ntiers >= LG_MAX_TIERS || !tok_u64(t[0], &tier)) {
		perr(lg->err, lineno, "unexpected tier row");
		return;
	}
	tr = &g->tier[g->ntiers];
	tr->tier = (int)tier;
	for (int i = 0; i < 6; i++)
		if (!marked(t[1 + i], &tr->v[i / 3][i % 3], &tr->mark[i / 3][i % 3])) {
			perr(lg->err, lineno, "bad number in tier row");
			return;
		}
	g->ntiers++;
	lg->full = true;
}

/* Parse the whole file; memcg rows start groups, node rows lruvecs. */
int
parse_lrugen(const char *buf, size_t len, struct lrugen *lg)
{
	struct lines	 l;
	struct tok	 line, t[8];
	struct lg_memcg	*m = NULL;
	struct lg_node	*nd = NULL;
	struct lg_gen	*g = NULL;
	u64		 v;

	lg->n = 0;
	lg->full = false;
	lg->mmstat_rows = 0;
	lg->err[0] = '\0';
	lines_init(&l, buf, len);
	while (lines_next(&l, &line)) {
		int	n = tok_split(line, t, 8);

		if (n == 0)
			continue;
		if (tok_eq(t[0], "memcg")) {
			if (n < 2 || !tok_u64(t[1], &v)) {
				perr(lg->err, l.lineno, "bad memcg line");
				m = NULL;
				continue;
			}
			m = new_memcg(lg);
			m->id = v;
			if (n >= 3) {
				/* the path is the rest of the line (may hold blanks) */
				struct tok	p = { t[2].s, (size_t)(line.s + line.n - t[2].s) };

				tok_copy(m->path, sizeof(m->path), p);
			}
			nd = NULL;
			g = NULL;
		} else if (tok_eq(t[0], "node")) {
			if (!m || n != 2 || !tok_u64(t[1], &v) ||
			    m->nnodes >= LG_MAX_NODES) {
				perr(lg->err, l.lineno, m ? "bad node line" : "node before memcg");
				nd = NULL;
				continue;
			}
			nd = &m->node[m->nnodes++];
			memset(nd, 0, sizeof(*nd));
			nd->nid = (int)v;
			g = NULL;
		} else if (n == 4 && tok_u64(t[0], &v)) {
			struct lg_gen	*ng;
			char		 mk[2];

			if (!nd) {
				perr(lg->err, l.lineno, "generation before node");
				continue;
			}
			if (nd->ngens >= LG_MAX_GENS) {
				perr(lg->err, l.lineno, "more than %d generations", LG_MAX_GENS);
				continue;
			}
			ng = &nd->gen[nd->ngens];
			memset(ng, 0, sizeof(*ng));
			ng->seq = v;
			if (!tok_u64(t[1], &ng->age_ms) ||
			    !marked(t[2], &ng->pages[0], &mk[0]) ||
			    !marked(t[3], &ng->pages[1], &mk[1])) {
				perr(lg->err, l.lineno, "bad generation row");
				continue;
			}
			ng->gone[0] = mk[0] == 'x';
			ng->gone[1] = mk[1] == 'x';
			g = ng;
			nd->ngens++;
		} else if (n == 7) {
			tier_row(lg, g, t, l.lineno);
		} else if (n == 4) {
			/* walk stats: four numbers, each with a letter */
			char	mk;

			for (int i = 0; i < 4; i++)
				if (!marked(t[i], &v, &mk) || mk == ' ') {
					perr(lg->err, l.lineno, "unrecognised row");
					break;
				}
			lg->mmstat_rows++;
		} else {
			perr(lg->err, l.lineno, "unrecognised row (%d fields)", n);
		}
	}
	cut_short(lg->err, buf, len, l.lineno, "lru_gen");
	if (lg->n == 0)
		perr(lg->err, 0, "lru_gen: no memcg found");
	return lg->err[0] ? -1 : 0;
}

/* Free the memcg array. */
void
lrugen_free(struct lrugen *lg)
{
	free(lg->memcg);
	lg->memcg = NULL;
	lg->n = lg->cap = 0;
}

/* The last generation is the youngest. */
u64
lg_max_seq(const struct lg_node *nd)
{
	return nd->ngens ? nd->gen[nd->ngens - 1].seq : 0;
}

/* Generations are in seq order: the first not gone for both types. */
u64
lg_min_seq(const struct lg_node *nd)
{
	for (int i = 0; i < nd->ngens; i++)
		if (!nd->gen[i].gone[0] || !nd->gen[i].gone[1])
			return nd->gen[i].seq;
	return lg_max_seq(nd);
}
