# uml/lab/lab.mk - the tests and fuzzers of the parsers the launcher links:
# the lab file (uml/lab/), the patch input (uml/patch/patchin.c), patch
# coverage (uml/cov/cov.c) and the statistics (uml/patch/stats.c).  The
# code itself is in LAUNCHER_SRCS (uml/uml.mk), which also builds the
# engine tests (test-smoke, test-lab-batch).
#
# Tests (UNIT_TESTS): test-lab (the lab file parser, expressions, KTAP,
# JUnit, score; ASan/UBSan) and fuzz-lab-replay (the checked-in lab corpus
# through the fuzz entry point), the same pair for patchin and cov, and
# test-stats.  make fuzz runs libFuzzer on each parser.

LAB_CORE	:= uml/lab/lab-file.c uml/lab/lab-expr.c uml/util.c uml/util-core.c
LAB_HDRS	:= uml/lab/lab.h uml/lab/lab-run.h uml/lab/lab-out.h tui/values.h uml/util.h
# the value layer: libumkit-parse (sanitized), or its sources for clang
LAB_VALUES	:= $(B)/lib/libumkit-parse-san.a
LAB_VALUES_SRCS	:= $(wildcard tui/parse-*.c) tui/rdfile.c tui/lruhist.c \
		   tui/recfmt.c tui/values.c

$(LT)/test-lab: tests/unit/test-lab.c uml/lab/lab-out.c uml/lab/lab-ex.c $(LAB_CORE) $(LAB_HDRS) \
		$(LAB_VALUES)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN_FLAGS) -iquote uml -Itui -DTOP='"$(CURDIR)"' -o $@ \
		$(filter %.c %.a,$^) -lcmocka -ljansson

$(LT)/fuzz-lab-replay: tests/fuzz/fuzz-lab.c tests/fuzz/replay.c uml/link/proto.c \
		$(LAB_CORE) $(LAB_HDRS) $(LAB_VALUES)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN_FLAGS) -iquote uml -Itui \
		-DCORPUS='"$(CURDIR)/tests/fuzz-corpus-lab"' -o $@ $(filter %.c %.a,$^)

UNIT_TESTS	+= $(LT)/test-lab $(LT)/fuzz-lab-replay

$(B)/fuzz/fuzz-lab: tests/fuzz/fuzz-lab.c $(LAB_CORE) $(LAB_VALUES_SRCS) $(LAB_HDRS)
	@mkdir -p $(@D)
	$(FUZZ_CC) -g -O1 -std=gnu11 -D_GNU_SOURCE -iquote uml -Itui \
		-fsanitize=fuzzer,address,undefined -o $@ $(filter %.c,$^)

.PHONY: fuzz-lab
fuzz: fuzz-lab
fuzz-lab: $(B)/fuzz/fuzz-lab
	@mkdir -p $(B)/fuzz/corpus-lab
	$(B)/fuzz/fuzz-lab -max_total_time=$(FUZZ_SECONDS) -max_len=8192 \
		-print_final_stats=1 $(B)/fuzz/corpus-lab tests/fuzz-corpus-lab

# Lab 02's kernel exercise graded end to end (two kernel builds).
.PHONY: test-exercises
test-exercises: all
	@sh tests/exercise-kernel.sh

# The patch input parser of 'umkit smoke' (uml/patch/patchin.c): unit tests,
# the corpus replay, and make fuzz.
$(LT)/test-patchin: tests/unit/test-patchin.c uml/patch/patchin.c uml/patch/patchin.h uml/util.c \
		uml/util-core.c uml/spawn.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN_FLAGS) -iquote uml -DTOP='"$(CURDIR)"' -o $@ $(filter %.c,$^) -lcmocka

$(LT)/fuzz-patchin-replay: tests/fuzz/fuzz-patchin.c tests/fuzz/replay.c uml/patch/patchin.c \
		uml/util.c uml/util-core.c uml/spawn.c uml/patch/patchin.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN_FLAGS) -iquote uml \
		-DCORPUS='"$(CURDIR)/tests/fuzz-corpus-patchin"' -o $@ $(filter %.c,$^)

UNIT_TESTS	+= $(LT)/test-patchin $(LT)/fuzz-patchin-replay

$(B)/fuzz/fuzz-patchin: tests/fuzz/fuzz-patchin.c uml/patch/patchin.c uml/util.c uml/util-core.c \
		uml/spawn.c
	@mkdir -p $(@D)
	$(FUZZ_CC) -g -O1 -std=gnu11 -D_GNU_SOURCE -iquote uml \
		-fsanitize=fuzzer,address,undefined -o $@ $(filter %.c,$^)

.PHONY: fuzz-patchin
fuzz: fuzz-patchin
fuzz-patchin: $(B)/fuzz/fuzz-patchin
	@mkdir -p $(B)/fuzz/corpus-patchin
	$(B)/fuzz/fuzz-patchin -max_total_time=$(FUZZ_SECONDS) -max_len=16384 \
		-print_final_stats=1 $(B)/fuzz/corpus-patchin tests/fuzz-corpus-patchin

# Patch coverage (uml/cov/cov.c): unit tests, the corpus replay, make fuzz.
$(LT)/test-cov: tests/unit/test-cov.c uml/cov/cov.c uml/cov/cov.h uml/util.c uml/util-core.c uml/spawn.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN_FLAGS) -iquote uml -DTOP='"$(CURDIR)"' -o $@ $(filter %.c,$^) -lcmocka -ljansson

$(LT)/fuzz-cov-replay: tests/fuzz/fuzz-cov.c tests/fuzz/replay.c uml/cov/cov.c \
		uml/util.c uml/util-core.c uml/spawn.c uml/cov/cov.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN_FLAGS) -iquote uml \
		-DCORPUS='"$(CURDIR)/tests/fuzz-corpus-cov"' -o $@ $(filter %.c,$^) -ljansson

UNIT_TESTS	+= $(LT)/test-cov $(LT)/fuzz-cov-replay

$(B)/fuzz/fuzz-cov: tests/fuzz/fuzz-cov.c uml/cov/cov.c uml/util.c uml/util-core.c \
		uml/spawn.c
	@mkdir -p $(@D)
	$(FUZZ_CC) -g -O1 -std=gnu11 -D_GNU_SOURCE -iquote uml \
		-fsanitize=fuzzer,address,undefined -o $@ $(filter %.c,$^) -ljansson

.PHONY: fuzz-cov
fuzz: fuzz-cov
fuzz-cov: $(B)/fuzz/fuzz-cov
	@mkdir -p $(B)/fuzz/corpus-cov
	$(B)/fuzz/fuzz-cov -max_total_time=$(FUZZ_SECONDS) -max_len=16384 \
		-print_final_stats=1 $(B)/fuzz/corpus-cov tests/fuzz-corpus-cov

# The statistics of umkit compare (uml/patch/stats.c).
$(LT)/test-stats: tests/unit/test-stats.c uml/patch/stats.c uml/patch/stats.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN_FLAGS) -iquote uml -o $@ $(filter %.c,$^) -lcmocka -lm
UNIT_TESTS	+= $(LT)/test-stats
