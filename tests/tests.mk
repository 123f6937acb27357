# tests/tests.mk - 'make test': build everything, then run tests/run.
#
# Components add their cmocka test binaries to UNIT_TESTS; the list is
# written to build/tests/unit.list for tests/run.

.PHONY: unit-list
test: all $(UNIT_TESTS) $(TEST_PROGS) unit-list
	@tests/run

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

bench-boot: all
	@sh tests/bench-boot.sh

# The guest disk's boot cost; the workloads' figures and their spread.
$(B)/tests/bench-disk: tests/bench-disk.c tests/bench.h uml/disk.c uml/disk.h uml/util.c \
		uml/util-core.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Iuml -o $@ $(filter %.c,$^)

bench-disk: all $(B)/tests/bench-disk
	@sh tests/bench-disk.sh

bench-workloads: all
	@sh tests/bench-workloads.sh
