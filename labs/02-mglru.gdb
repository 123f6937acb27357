# SPDX-License-Identifier: GPL-2.0-only
# Lab 02, step "debugger": the kernel stopped where aging opens a new
# generation.  Run by the lab in gdb's batch mode, attached to the
# guest's kernel with umkit gdb's set-up (docs/debugging.md).
break inc_max_seq
# The lab waits for this line before it ages: the breakpoint is set.
echo umkit-gdb: ready\n
continue
# Stopped in inc_max_seq(): who asked for the aging?
bt 6
# The lruvec's generation numbers: max_seq is the youngest generation,
# min_seq[0] and min_seq[1] the oldest of anon and file pages; a folio's
# generation is seq % MAX_NR_GENS (4), kept in its flags.
print lruvec->lrugen.max_seq
print lruvec->lrugen.min_seq
print lruvec->lrugen.max_seq % 4
# Pages per generation (anon, file) of the lruvec's zones.
print lruvec->lrugen.nr_pages
# One line for the lab's checks: result(gdb.max_seq) and the others.
printf "gdb: hit=1 seq=%lu max_seq=%lu min_seq_anon=%lu min_seq_file=%lu\n", seq, lruvec->lrugen.max_seq, lruvec->lrugen.min_seq[0], lruvec->lrugen.min_seq[1]
detach
