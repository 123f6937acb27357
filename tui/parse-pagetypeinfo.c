/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * parse-pagetypeinfo.c - /proc/pagetypeinfo (mm/vmstat.c):
 *   Page block order: O / Pages per block: N
 *   Free pages count per migrate type at order  0 1 ...
 *   Node N, zone Z, type T  c0 c1 ...   (">100000" when capped)
 *   Number of blocks type  T1 T2 ...
 *   Node N, zone Z  b1 b2 ...
 */
#include <string.h>

#include "parse.h"

#define PTI_TOKS (6 + P_MAX_ORDERS + 1)

/* One free-count row: "Node N, zone Z, type T counts...". */
static void
free_row(struct pagetypeinfo *p, struct tok *t, int n, int lineno)
{
	struct pti_free	*f;
	int		 o = 0;

	if (p->nfree >= P_MAX_ZONES * P_MAX_TYPES) {
		perr(p->err, lineno, "too many free-count rows");
		return;
	}
	f = &p->free[p->nfree];
	memset(f, 0, sizeof(*f));
	if (!tok_node_zone(t, n, &f->node, f->zone) || n < 7) {
		perr(p->err, lineno, "bad free-count row");
		return;
	}
	tok_copy(f->type, sizeof(f->type), t[5]);
	for (int i = 6; i < n && o < P_MAX_ORDERS; i++, o++) {
		struct tok	c = t[i];

		if (c.n && c.s[0] == '>') {
			f->overflow[o] = true;
			c.s++;
			c.n--;
		}
		if (!tok_u64(c, &f->count[o])) {
			perr(p->err, lineno, "bad free count for order %d", o);
			return;
		}
	}
	if (!p->norders)
		p->norders = o;
	p->nfree++;
}

/* One block-count row: "Node N, zone Z  counts per type". */
static void
block_row(struct pagetypeinfo *p, struct tok *t, int n, int lineno)
{
	struct pti_blocks	*b;

	if (p->nblocks >= P_MAX_ZONES) {
		perr(p->err, lineno, "too many block-count rows");
		return;
	}
	b = &p->blocks[p->nblocks];
	memset(b, 0, sizeof(*b));
	if (!tok_node_zone(t, n, &b->node, b->zone)) {
		perr(p->err, lineno, "bad block-count row");
		return;
	}
	if (n - 4 != p->ntypes)
		perr(p->err, lineno, "%d block counts for %d types", n - 4, p->ntypes);
	for (int i = 4; i < n && i - 4 < P_MAX_TYPES; i++)
		if (!tok_u64(t[i], &b->count[i - 4])) {
			perr(p->err, lineno, "bad block count");
			return;
		}
	p->nblocks++;
}

/* Parse the whole file section by section. */
int
parse_pagetypeinfo(const char *buf, size_t len, struct pagetypeinfo *p)
{
	struct lines	l;
	struct tok	line, t[PTI_TOKS];
	enum { HEAD, FREE, BLOCKS, OTHER } sec = HEAD;
	u64	v;

	memset(p, 0, sizeof(*p));
	p->pageblock_order = -1;
	lines_init(&l, buf, len);
	while (lines_next(&l, &line)) {
		int	n = tok_split(line, t, PTI_TOKS);

		if (n == 0)
			continue;
		if (n > PTI_TOKS)
			n = PTI_TOKS;
		if (n == 4 && tok_eq(t[0], "Page") && tok_eq(t[1], "block") &&
		    tok_u64(t[3], &v))
			p->pageblock_order = (int)v;
		else if (n == 4 && tok_eq(t[0], "Pages") && tok_u64(t[3], &v))
			p->pages_per_block = v;
		else if (tok_eq(t[0], "Free"))
			sec = FREE;
		else if (n >= 4 && tok_eq(t[0], "Number") && tok_eq(t[2], "blocks")) {
			sec = BLOCKS;
			p->ntypes = 0;
			for (int i = 4; i < n && p->ntypes < P_MAX_TYPES; i++)
				tok_copy(p->types[p->ntypes++], P_NAME_LEN, t[i]);
		} else if (n >= 4 && tok_eq(t[0], "Number")) {
			sec = OTHER;	/* "Number of mixed blocks" (PAGE_OWNER) */
		} else if (tok_eq(t[0], "Node") && sec == FREE)
			free_row(p, t, n, l.lineno);
		else if (tok_eq(t[0], "Node") && sec == BLOCKS)
			block_row(p, t, n, l.lineno);
		else if (sec != OTHER)
			perr(p->err, l.lineno, "unrecognised line");
	}
	cut_short(p->err, buf, len, l.lineno, "pagetypeinfo");
	if (p->pages_per_block == 0)
		perr(p->err, 0, "pagetypeinfo: no 'Pages per block' line");
	else if (p->nblocks == 0)
		perr(p->err, 0, "pagetypeinfo: no block counts");
	return p->err[0] ? -1 : 0;
}
