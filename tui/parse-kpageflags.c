/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * parse-kpageflags.c - /proc/kpageflags: one native-endian u64 of KPF_*
 * bits (include/uapi/linux/kernel-page-flags.h) per pfn, classified for the
 * compaction view's map.
 *
 * Free pages: Linux 7.2 (page_snapshot) sets KPF_BUDDY on every page of
 * a free buddy block; older kernels set it on the head page only and leave
 * the tails flag-less, so a BUDDY page is also taken to start a free block
 * that runs over following flag-less pages up to the largest naturally
 * aligned block it can start.  Pages on per-cpu free lists and other
 * kernel allocations without a flag count as unmovable.
 */
#include <stdio.h>
#include <string.h>

#include "parse.h"

#define F(bit)		(1ULL << (bit))
#define KPF_MAX_ORDER	10

/* Read the u64 of page i. */
static u64
flags_at(const char *buf, size_t i)
{
	u64	f;

	memcpy(&f, buf + i * 8, 8);
	return f;
}

/* Classify each page; see the header comment for the buddy heuristic. */
int
parse_kpageflags(const char *buf, size_t len, u64 first_pfn, unsigned char *cls,
    size_t npfn, char *err)
{
	size_t		have = len / 8, i;
	enum kpc	prev = KPC_UNMOVABLE;

	err[0] = '\0';
	if (len % 8)
		perr(err, 0, "kpageflags: %zu trailing bytes (not a whole entry)", len % 8);
	if (have > npfn)
		have = npfn;
	for (i = 0; i < have; i++) {
		u64		f = flags_at(buf, i);
		enum kpc	c;

		if (f & F(KPF_BIT_NOPAGE)) {
			c = KPC_HOLE;
		} else if (f & F(KPF_BIT_BUDDY)) {
			u64	pfn = first_pfn + i;
			size_t	size = 1;

			/* grow to 2^k while aligned and the next half is flag-less */
			for (int k = 1; k <= KPF_MAX_ORDER; k++) {
				size_t	want = (size_t)1 << k, j;

				if ((pfn & (want - 1)) || i + want > have)
					break;
				for (j = size; j < want; j++)
					if (flags_at(buf, i + j) != 0)
						break;
				if (j < want)
					break;
				size = want;
			}
			memset(cls + i, KPC_FREE, size);
			i += size - 1;
			prev = KPC_FREE;
			continue;
		} else if (f & (F(KPF_BIT_SLAB) | F(KPF_BIT_PGTABLE) | F(KPF_BIT_RESERVED))) {
			c = KPC_UNMOVABLE;
		} else if (f & (F(KPF_BIT_LRU) | F(KPF_BIT_ANON) | F(KPF_BIT_MMAP) |
		    F(KPF_BIT_SWAPBACKED))) {
			c = KPC_MOVABLE;
		} else if (f & F(KPF_BIT_COMPOUND_TAIL)) {
			c = prev;	/* a tail goes with its head */
		} else {
			c = KPC_UNMOVABLE;
		}
		cls[i] = (unsigned char)c;
		prev = c;
	}
	if (have < npfn) {
		memset(cls + have, KPC_UNREAD, npfn - have);
		perr(err, 0, "kpageflags: read %zu of %zu pages", have, npfn);
	}
	return err[0] ? -1 : 0;
}

/* Decide how a pageblock is drawn. */
enum kpc
kpf_block_class(const struct kpf_block *b)
{
	if (b->unmovable)
		return KPC_UNMOVABLE;
	if (b->movable)
		return KPC_MOVABLE;
	if (b->free)
		return KPC_FREE;
	if (b->hole)
		return KPC_HOLE;
	return KPC_UNREAD;
}
