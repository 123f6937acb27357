# SPDX-License-Identifier: GPL-2.0-only
# tests/variants-mm.mk - the rss-lazy and compaction-noacct variants:
# the guest program of the rss-lazy checks and 'make bench-variants-variants-mm'.
# Included by tests/tests.mk, after rootfs/rootfs.mk.

# umkit-rsscheck (tests/rss-guest.c) in every guest, for tests/t-variant-rss-lazy.sh
# (one of umkit-guest's programs).
GUEST_MULTI	+= umkit-rsscheck
umkit-rsscheck_SRCS = tests/rss-guest.c

# Each variant's figures against base, side by side, over several boots.
.PHONY: bench-variants-variants-mm
bench-variants-variants-mm: all
	@sh tests/bench-variant-compaction-noacct.sh
	@sh tests/bench-variant-rss-lazy.sh
	@sh tests/bench-workingset-cgroups.sh
