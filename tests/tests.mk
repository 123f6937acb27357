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
.PHONY: bench bench-build bench-boot
bench: bench-build bench-boot bench-mirror bench-tui

bench-build: all
	@sh tests/bench-build.sh

bench-boot: all
	@sh tests/bench-boot.sh
