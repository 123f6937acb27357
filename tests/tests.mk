# SPDX-License-Identifier: GPL-2.0-only
# tests/tests.mk - 'make test': build everything, then run tests/run.
#
# Components add their cmocka test binaries to UNIT_TESTS; the list is
# written to build/tests/unit.list for tests/run.

# make fuzz and the fuzz targets' corpus replays (before 'test', whose
# prerequisites take UNIT_TESTS as it is here).
include tests/fuzz/fuzz.mk

.PHONY: unit-list test-parts
# The kit and the test programs (ASan builds, fuzz replays) in one
# parallel sub-make, as 'all' does: the test programs compile while the
# kernel's source unpacks and on the core its build leaves idle.
test:
	+@$(PARTS_MAKE) all-parts test-parts
	@tests/run

test-parts: $(UNIT_TESTS) $(TEST_PROGS) unit-list

unit-list: $(UNIT_TESTS)
	@mkdir -p $(B)/tests
	@printf '%s\n' $(UNIT_TESTS) > $(B)/tests/unit.list

# The seed variants rss-lazy and compaction-noacct: a guest program, benchmarks.
include tests/variants-mm.mk

# 'make bench': each bench-* target prints its own figures.
.PHONY: bench bench-build bench-boot bench-disk bench-workloads
bench: bench-build bench-boot bench-disk bench-workloads bench-mirror bench-tui

bench-build: all
	@sh tests/bench-build.sh

bench-boot: all $(B)/tests/bench-touch
	@sh tests/bench-boot.sh

# A command on a running guest: the round trip every lab step pays.
.PHONY: bench-exec
bench: bench-exec
bench-exec: all
	@sh tests/bench-exec.sh

# What the sandbox costs at boot and in a one-file build (paired runs).
.PHONY: bench-sandbox
bench: bench-sandbox
bench-sandbox: all
	@sh tests/bench-sandbox.sh

# The guest disk's boot cost; the workloads' figures and their spread.
$(B)/tests/bench-disk: tests/bench-disk.c tests/bench.h uml/guest/disk.c uml/guest/disk.h uml/util.c uml/spawn.c \
		uml/util-core.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -iquote uml -o $@ $(filter %.c,$^)

bench-disk: all $(B)/tests/bench-disk
	@sh tests/bench-disk.sh

bench-workloads: all
	@sh tests/bench-workloads.sh

# umkit smoke: a one-file mm patch's time to the full report, --debug's cost.
# How often compare marks a row of two equal kernels, and finds slow fork.
.PHONY: bench-compare-fp
bench: bench-compare-fp
bench-compare-fp: all
	@sh tests/bench-compare-fp.sh

# Where a guest's UML runs: pinned once up, from the fork, or not at all.
.PHONY: bench-pin
bench: bench-pin
bench-pin: all
	@sh tests/bench-pin.sh

.PHONY: bench-smoke bench-coverage
bench: bench-smoke bench-coverage
bench-smoke: all
	@sh tests/bench-smoke.sh
# The same from an empty cache (downloads the source; not in make bench).
.PHONY: bench-smoke-empty
bench-smoke-empty:
	@sh tests/bench-smoke-empty.sh
# What umkit smoke --coverage adds: the gcov build, gcov's run-time cost.
bench-coverage: all
	@sh tests/bench-coverage.sh

# What debug info costs (cold builds, slow: not in 'make bench'; see
# docs/debugging.md).  BENCH_QUICK=1: rebuild and size only.
.PHONY: bench-debuginfo
bench-debuginfo: all
	@sh tests/bench-debuginfo.sh

# Your own files (--add) and stdin (-i): their boot cost and throughput.
.PHONY: bench-guest-io
bench: bench-guest-io
# It calls guest.c's build of the initramfs, so it links what the launcher
# does, less its main() and commands.
$(B)/tests/bench-initrd: tests/bench-initrd.c tests/bench.h \
		$(filter-out $(B)/obj/uml/umkit.o $(B)/obj/uml/cmd-%.o,$(LAUNCHER_OBJS)) $(LINK_OBJS) $(MIRROR_OBJS) \
		$(B)/lib/libumkit-parse.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(FUSE_CFLAGS) -iquote uml -o $@ $(filter-out %.h,$^) $(FUSE_LIBS) \
	    -ljansson -lnettle -lpthread -lm

# make test builds the benchmarks' host programs too, so that one whose
# sources moved on fails there, not in the next make bench: bench-initrd
# stopped linking when guest.c started to call rundir.c (fc3e751), and
# nothing built it until make bench-guest-io.
test-parts: $(B)/tests/bench-disk $(B)/tests/bench-initrd $(B)/tests/bench-touch \
	$(B)/tests/bench-run

$(B)/tests/bench-touch: tests/bench-touch.c tests/bench.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ tests/bench-touch.c

$(B)/tests/bench-run: tests/bench-run.c tests/bench.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ tests/bench-run.c

bench-guest-io: all $(B)/tests/bench-initrd $(B)/tests/bench-run
	@sh tests/bench-guest-io.sh

# Seed variants: each tests/bench-variant-*.sh prints one variant's figures
# against base.  bench-variants-variants-lru: lru-batch and uml-walk only,
# with the 10-minute uml-walk stress (bench-uml-walk-stress,
# STRESS_SECONDS=600), which plain 'make bench' leaves out.
.PHONY: bench-variants bench-variants-variants-lru bench-uml-walk-stress
bench: bench-variants
bench-variants: all
	@for f in tests/bench-variant-*.sh; do sh $$f || exit 1; done
bench-variants-variants-lru: all
	@sh tests/bench-variant-lru-batch.sh
	@sh tests/bench-variant-uml-walk.sh
	@sh tests/bench-uml-walk-stress.sh
bench-uml-walk-stress: all
	@sh tests/bench-uml-walk-stress.sh

# Each seed thread's table, the default run (umkit reproduce all: <= 5
# minutes a seed on 2 cores; make test runs --quick).  The JSON, with
# every sample, goes to $(B)/reproduce.json.
.PHONY: bench-reproduce
bench: bench-reproduce
bench-reproduce: all
	@build/bin/umkit reproduce all --json $(B)/reproduce.json

# umkit-touch: a guest process with controlled page accesses (the
# uml-walk tests and benchmarks), one of umkit-guest's programs.
GUEST_MULTI	+= umkit-touch
umkit-touch_SRCS = tests/guest-touch.c

# umkit-tlbcheck: writes lost to a page taken from a process running on
# another CPU (tests/t-uml-tlb.sh), one of umkit-guest's programs.
GUEST_MULTI	+= umkit-tlbcheck
umkit-tlbcheck_SRCS = tests/tlb-guest.c

# How many students can run lab 01 at once (not in make bench: minutes of
# both cores at full load).
.PHONY: bench-classroom
bench-classroom: all
	@sh tests/bench-classroom.sh

# umkit smoke's long tests: every lab on a patched kernel, a WARN at boot,
# compare finding a known effect, patch coverage with a gcov kernel (make
# test runs the quick parts).
.PHONY: test-smoke
test-smoke: all $(UNIT_TESTS) $(TEST_PROGS) unit-list
	@SMOKE_FULL=1 tests/run t-smoke t-coverage

# A student's own variant built on an installed kit with an administrator's
# shared cache (root; one source unpack and one kernel build, so not in
# make test).
.PHONY: test-install-build
test-install-build: all unit-list
	@tests/run --only tests/install-build.sh
