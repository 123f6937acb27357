# tests/tests.mk - 'make test': build everything, then run tests/run.
#
# Components add their cmocka test binaries to UNIT_TESTS; the list is
# written to build/tests/unit.list for tests/run.

.PHONY: unit-list
test: all $(UNIT_TESTS) unit-list
	@tests/run

unit-list: $(UNIT_TESTS)
	@mkdir -p $(B)/tests
	@printf '%s\n' $(UNIT_TESTS) > $(B)/tests/unit.list
