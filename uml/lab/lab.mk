# SPDX-License-Identifier: GPL-2.0-only
# uml/lab/lab.mk - the tests and fuzzers of the parsers the launcher links:
# the lab file (uml/lab/), the patch input (uml/patch/patchin.c), patch
# coverage (uml/cov/cov.c) and the statistics (uml/patch/stats.c).  The
# code itself is in LAUNCHER_SRCS (uml/uml.mk), which also builds the
# engine tests (test-smoke, test-lab-batch).
#
# Tests (UNIT_TESTS): test-lab (the lab file parser, expressions, KTAP,
# JUnit, score; ASan/UBSan), test-lab-ex (the exercises and their grader
# cases) and fuzz-lab-replay (the checked-in lab corpus through the fuzz
# entry point), the same pair for patchin and cov, and
# test-stats.  make fuzz runs libFuzzer on each parser (tests/fuzz/fuzz.mk).

LAB_CORE	:= uml/lab/lab-file.c uml/lab/lab-expr.c uml/util.c uml/util-core.c
LAB_HDRS	:= uml/lab/lab.h uml/lab/lab-run.h uml/lab/lab-out.h tui/values.h uml/util.h
# the value layer: libumkit-parse (sanitized), or its sources for clang
LAB_VALUES	:= $(B)/lib/libumkit-parse-san.a
LAB_VALUES_SRCS	:= $(wildcard tui/parse-*.c) tui/rdfile.c tui/lruhist.c \
		   tui/recfmt.c tui/values.c

$(LT)/test-lab: $(call san,tests/unit/test-lab.c uml/lab/lab-out.c uml/lab/lab-key.c uml/lab/lab-ex.c $(LAB_CORE) $(LAB_HDRS) \
		$(LAB_VALUES))
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN_FLAGS) -iquote uml -Itui -DTOP='"$(CURDIR)"' -o $@ \
		$(SAN_IN) -lcmocka -ljansson -lnettle

$(LT)/fuzz-lab-replay: $(call san,tests/fuzz/fuzz-lab.c tests/fuzz/replay.c uml/link/proto.c \
		$(LAB_CORE) $(LAB_HDRS) $(LAB_VALUES))
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN_FLAGS) -iquote uml -Itui \
		-DCORPUS='"$(CURDIR)/tests/fuzz-corpus-lab"' -o $@ $(SAN_IN)

UNIT_TESTS	+= $(LT)/test-lab $(LT)/fuzz-lab-replay

# What grades the student: questions, params, choice order, points split,
# sealed answers, result-file MACs, median() and within (lab-key.c too).
$(LT)/test-lab-grade: $(call san,tests/unit/test-lab-grade.c uml/lab/lab-out.c uml/lab/lab-key.c \
		uml/lab/lab-key.h $(LAB_CORE) $(LAB_HDRS) $(LAB_VALUES))
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN_FLAGS) -iquote uml -Itui -o $@ \
		$(SAN_IN) -lcmocka -ljansson -lnettle
UNIT_TESTS	+= $(LT)/test-lab-grade

# A lab's exercises: several, their levels, the grader cases (lab-file.c,
# lab-ex.c).
$(LT)/test-lab-ex: $(call san,tests/unit/test-lab-ex.c uml/lab/lab-ex.c $(LAB_CORE) $(LAB_HDRS) \
		uml/lab/lab-ex.h $(LAB_VALUES))
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN_FLAGS) -iquote uml -Itui -o $@ $(SAN_IN) \
		-lcmocka -ljansson
UNIT_TESTS	+= $(LT)/test-lab-ex

# Lab 02's kernel exercise graded end to end: the skeleton, the solution
# and four wrong solutions (six kernel builds).
.PHONY: test-exercises
test-exercises: all
	@sh tests/exercise-kernel.sh

# The six labs at once, ROUNDS (10) times in a row.
.PHONY: test-labs-load
test-labs-load: all
	@sh tests/labs-load.sh

# The patch input parser of 'umkit smoke' (uml/patch/patchin.c): unit tests,
# the corpus replay, and make fuzz.
$(LT)/test-patchin: $(call san,tests/unit/test-patchin.c uml/patch/patchin.c uml/patch/patchin.h uml/util.c \
		uml/util-core.c uml/spawn.c)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN_FLAGS) -iquote uml -DTOP='"$(CURDIR)"' -o $@ $(SAN_IN) -lcmocka

$(LT)/fuzz-patchin-replay: $(call san,tests/fuzz/fuzz-patchin.c tests/fuzz/replay.c uml/patch/patchin.c \
		uml/util.c uml/util-core.c uml/spawn.c uml/patch/patchin.h)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN_FLAGS) -iquote uml \
		-DCORPUS='"$(CURDIR)/tests/fuzz-corpus-patchin"' -o $@ $(SAN_IN)

UNIT_TESTS	+= $(LT)/test-patchin $(LT)/fuzz-patchin-replay

# Patch coverage (uml/cov/cov.c): unit tests, the corpus replay, make fuzz.
$(LT)/test-cov: $(call san,tests/unit/test-cov.c uml/cov/cov.c uml/cov/cov.h uml/util.c uml/util-core.c uml/spawn.c)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN_FLAGS) -iquote uml -DTOP='"$(CURDIR)"' -o $@ $(SAN_IN) -lcmocka -ljansson

$(LT)/fuzz-cov-replay: $(call san,tests/fuzz/fuzz-cov.c tests/fuzz/replay.c uml/cov/cov.c \
		uml/util.c uml/util-core.c uml/spawn.c uml/cov/cov.h)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN_FLAGS) -iquote uml \
		-DCORPUS='"$(CURDIR)/tests/fuzz-corpus-cov"' -o $@ $(SAN_IN) -ljansson

UNIT_TESTS	+= $(LT)/test-cov $(LT)/fuzz-cov-replay

# The statistics of umkit compare (uml/patch/stats.c).
$(LT)/test-stats: $(call san,tests/unit/test-stats.c uml/patch/stats.c uml/patch/stats.h)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN_FLAGS) -iquote uml -o $@ $(SAN_IN) -lcmocka -lm
UNIT_TESTS	+= $(LT)/test-stats

# A selftest's output read, KTAP, base against patched (uml/patch/st-ktap.c).
$(LT)/test-selftests: $(call san,tests/unit/test-selftests.c uml/patch/st-ktap.c uml/util-core.c \
		uml/patch/selftests.h)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN_FLAGS) -iquote uml -o $@ $(SAN_IN) -lcmocka
UNIT_TESTS	+= $(LT)/test-selftests
