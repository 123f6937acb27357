# SPDX-License-Identifier: GPL-2.0-only
# tests/fuzz/fuzz.mk - make fuzz: libFuzzer on every parser of untrusted
# input, FUZZ_SECONDS (60) each, and the corpus replays of the targets
# defined here.  Included by tests/tests.mk before its 'test' rule, so
# that the replays it adds to UNIT_TESTS are built by make test.
#
# Each target NAME has tests/fuzz/fuzz-NAME.c (the entry point), a
# checked-in corpus tests/fuzz-corpus-NAME (the link's: tests/fuzz-corpus)
# and make fuzz-NAME.  New inputs go to $(B)/fuzz/corpus-NAME, crashes,
# leaks and timeouts (an input that runs 30 s: a hang) to $(B)/fuzz/,
# never the working directory; copy a finding into the checked-in corpus
# under a name that says what it is.
# A replay (fuzz-NAME-replay, gcc with ASan and UBSan: no clang needed)
# feeds the checked-in corpus to the same entry point once.

FUZZ_CFLAGS	:= -g -O1 -std=gnu11 -D_GNU_SOURCE -iquote uml -Itui \
		   -fsanitize=fuzzer,address,undefined

# $(call fuzz_run,NAME,MAX_LEN,CORPUS[,FLAGS]): make fuzz-NAME, part of
# make fuzz; FLAGS go to libFuzzer (-close_fd_mask=2: the target's own
# warnings not in the log; crash reports still are).
define fuzz_run
.PHONY: fuzz-$(1)
fuzz: fuzz-$(1)
fuzz-$(1): $(B)/fuzz/fuzz-$(1)
	@mkdir -p $(B)/fuzz/corpus-$(1)
	$(B)/fuzz/fuzz-$(1) -artifact_prefix=$(B)/fuzz/ -timeout=30 $(4) \
		-max_total_time=$$(FUZZ_SECONDS) -max_len=$(2) \
		-print_final_stats=1 $(B)/fuzz/corpus-$(1) $(3)
endef

# --- the link's frame decoders (uml/link/proto.c) ----------------------------
$(B)/fuzz/fuzz-proto: tests/fuzz/fuzz-proto.c uml/link/proto.c uml/util-core.c \
		uml/link/proto.h
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $(filter %.c,$^)
$(eval $(call fuzz_run,proto,4096,tests/fuzz-corpus))

# --- the TUI's parsers and the value layer (libumkit-parse) ------------------
$(B)/fuzz/fuzz-parse: tests/fuzz/fuzz-parse.c $(TUI_FUZZ_SRCS) $(wildcard tui/*.h)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $(filter %.c,$^)
$(eval $(call fuzz_run,parse,16384,tests/fuzz-corpus-parse))

$(B)/fuzz/fuzz-values: tests/fuzz/fuzz-values.c $(TUI_FUZZ_SRCS) $(wildcard tui/*.h)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -DFIXTURE_ROOT='"$(CURDIR)/tests/fixtures/guest"' \
		-o $@ $(filter %.c,$^)
$(eval $(call fuzz_run,values,512,tests/fuzz-corpus-values))

# --- the lab file, patch input, patch coverage --------------------------------
$(B)/fuzz/fuzz-lab: tests/fuzz/fuzz-lab.c $(LAB_CORE) $(LAB_VALUES_SRCS) $(LAB_HDRS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $(filter %.c,$^)
$(eval $(call fuzz_run,lab,8192,tests/fuzz-corpus-lab))

$(B)/fuzz/fuzz-patchin: tests/fuzz/fuzz-patchin.c uml/patch/patchin.c uml/util.c \
		uml/util-core.c uml/spawn.c uml/patch/patchin.h
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $(filter %.c,$^)
$(eval $(call fuzz_run,patchin,16384,tests/fuzz-corpus-patchin))

$(B)/fuzz/fuzz-cov: tests/fuzz/fuzz-cov.c uml/cov/cov.c uml/util.c uml/util-core.c \
		uml/spawn.c uml/cov/cov.h
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $(filter %.c,$^) -ljansson
$(eval $(call fuzz_run,cov,16384,tests/fuzz-corpus-cov))

# --- the TUI's views fed a hostile root (tests/fuzz/fuzz-views.c) -------------
FUZZ_VIEW_SRCS	:= $(patsubst %,tui/%.c,source draw views view-lru view-compact \
		   view-counters view-overview view-help)

$(LT)/fuzz-views-replay: tests/fuzz/fuzz-views.c tests/fuzz/replay.c \
		$(TUI_VIEW_TEST_OBJS) $(TUI_TEST_LINK)
	@mkdir -p $(@D)
	$(CC) $(TUI_CPPFLAGS) -Itui $(CFLAGS) $(TUI_SAN) \
		-DCORPUS='"$(CURDIR)/tests/fuzz-corpus-views"' -o $@ \
		$(filter %.c,$^) $(TUI_VIEW_TEST_OBJS) $(TUI_TEST_LINK) \
		$(TUI_NCURSES_LIBS) -lm
UNIT_TESTS	+= $(LT)/fuzz-views-replay

# Without compare tracing: it is most of the time spent in the views'
# per-page and per-cell loops (the seeds hold every keyword already).
$(B)/fuzz/fuzz-views: tests/fuzz/fuzz-views.c $(FUZZ_VIEW_SRCS) $(TUI_FUZZ_SRCS) \
		$(wildcard tui/*.h)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fno-sanitize-coverage=trace-cmp \
		-DFUZZ_NUMBER_MUTATOR $(TUI_NCURSES_CFLAGS) -o $@ $(filter %.c,$^) \
		$(TUI_NCURSES_LIBS) -lm
$(eval $(call fuzz_run,views,65536,tests/fuzz-corpus-views,-dict=tests/fuzz/views.dict))

# --- hostile values: unit tests of what the fuzzers found or could reach ------
# The compaction view on a root with a huge zone or pageblock (map_zone).
.SECONDARY: $(B)/obj/tui-test/test-view-hostile.o
$(LT)/test-view-hostile: $(B)/obj/tui-test/test-view-hostile.o \
		$(TUI_VIEW_TEST_OBJS) $(TUI_TEST_LINK)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(TUI_SAN) -o $@ $^ $(TUI_NCURSES_LIBS) -lm -lcmocka
UNIT_TESTS	+= $(LT)/test-view-hostile

# --- result files read back: lab report, compare A.json B.json ---------------
FUZZ_RESULTS_SRCS := uml/lab/lab-out.c uml/lab/lab-key.c uml/patch/bench.c uml/patch/stats.c \
		   uml/spawn.c $(LAB_CORE)
FUZZ_RESULTS_HDRS := uml/lab/lab-out.h uml/lab/lab-run.h uml/lab/lab.h \
		   uml/patch/bench.h uml/util.h

$(LT)/fuzz-results-replay: $(call san,tests/fuzz/fuzz-results.c tests/fuzz/replay.c \
		$(FUZZ_RESULTS_SRCS) $(FUZZ_RESULTS_HDRS) $(LAB_VALUES))
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN_FLAGS) -iquote uml -Itui \
		-DCORPUS='"$(CURDIR)/tests/fuzz-corpus-results"' -o $@ \
		$(SAN_IN) -ljansson -lnettle -lm
UNIT_TESTS	+= $(LT)/fuzz-results-replay

$(B)/fuzz/fuzz-results: tests/fuzz/fuzz-results.c $(FUZZ_RESULTS_SRCS) \
		$(LAB_VALUES_SRCS) $(FUZZ_RESULTS_HDRS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $(filter %.c,$^) -ljansson -lnettle -lm
$(eval $(call fuzz_run,results,65536,tests/fuzz-corpus-results,-close_fd_mask=2))

# --- the workloads' result lines: compare's parser, a lab's result() ---------
FUZZ_RESULTLINE_SRCS := uml/lab/lab-result.c uml/patch/bench.c uml/patch/stats.c \
		   uml/spawn.c uml/util.c uml/util-core.c
FUZZ_RESULTLINE_HDRS := uml/lab/lab-result.h uml/patch/bench.h uml/util.h

$(LT)/fuzz-resultline-replay: $(call san,tests/fuzz/fuzz-resultline.c tests/fuzz/replay.c \
		$(FUZZ_RESULTLINE_SRCS) $(FUZZ_RESULTLINE_HDRS))
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN_FLAGS) -iquote uml \
		-DCORPUS='"$(CURDIR)/tests/fuzz-corpus-resultline"' -o $@ \
		$(SAN_IN) -ljansson -lm
UNIT_TESTS	+= $(LT)/fuzz-resultline-replay

$(B)/fuzz/fuzz-resultline: tests/fuzz/fuzz-resultline.c $(FUZZ_RESULTLINE_SRCS) \
		$(FUZZ_RESULTLINE_HDRS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $(filter %.c,$^) -ljansson -lm
$(eval $(call fuzz_run,resultline,16384,tests/fuzz-corpus-resultline,-close_fd_mask=2))

# $(call fuzz_plain,NAME,SOURCES,MAX_LEN): a target that is
# tests/fuzz/fuzz-NAME.c and SOURCES (the headers too, for make's
# sake) and nothing else: its corpus replay in make test, make fuzz-NAME.
define fuzz_plain
$(LT)/fuzz-$(1)-replay: $(call san,tests/fuzz/fuzz-$(1).c tests/fuzz/replay.c $(2))
	@mkdir -p $$(@D)
	$$(CC) $$(CFLAGS) $$(SAN_FLAGS) -iquote uml \
		-DCORPUS='"$$(CURDIR)/tests/fuzz-corpus-$(1)"' -o $$@ $$(SAN_IN) -lm
UNIT_TESTS	+= $(LT)/fuzz-$(1)-replay

$(B)/fuzz/fuzz-$(1): tests/fuzz/fuzz-$(1).c $(2)
	@mkdir -p $$(@D)
	$$(FUZZ_CC) $$(FUZZ_CFLAGS) -o $$@ $$(filter %.c,$$^) -lm
$$(eval $$(call fuzz_run,$(1),$(3),tests/fuzz-corpus-$(1)))
endef

# --- a control-socket request (uml/guest/ctl-req.c) ---------------------------
$(eval $(call fuzz_plain,ctl,uml/guest/ctl-req.c uml/util-core.c uml/guest/ctl.h,4096))

# --- a patched tree's Makefile line for an object (uml/patch/mkline.c) -------
$(eval $(call fuzz_plain,mkline,uml/patch/mkline.c uml/util-core.c uml/patch/mkline.h,65536))

# --- a guest's repro: result lines (uml/repro/repro-out.c) ------------------
$(eval $(call fuzz_plain,repro,$(REPRO_CORE),65536))

# --- a stored reproduce run, umkit reproduce --from (uml/repro/repro-json.c) -
$(LT)/fuzz-repro-json-replay: $(call san,tests/fuzz/fuzz-repro-json.c tests/fuzz/replay.c \
		$(REPRO_JSON))
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN_FLAGS) -iquote uml \
		-DCORPUS='"$(CURDIR)/tests/fuzz-corpus-repro-json"' -o $@ \
		$(SAN_IN) -ljansson -lm
UNIT_TESTS	+= $(LT)/fuzz-repro-json-replay

$(B)/fuzz/fuzz-repro-json: tests/fuzz/fuzz-repro-json.c $(REPRO_JSON)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $(filter %.c,$^) -ljansson -lm
$(eval $(call fuzz_run,repro-json,65536,tests/fuzz-corpus-repro-json))

# --- a selftest's output: its KTAP subtests (uml/patch/st-ktap.c) ------------
$(eval $(call fuzz_plain,ktap,uml/patch/st-ktap.c uml/util-core.c uml/patch/selftests.h,65536))

# --- a guest's console: oops_find, smoke's report scan ------------------------
# (the files around them link for their other functions, never called)
FUZZ_CONSOLE_SRCS := uml/guest/oops.c uml/guest/gdb.c uml/patch/smoke-boot.c \
		   uml/patch/smoke-stage.c uml/kernel/kbuild.c uml/sandbox.c \
		   uml/spawn.c uml/util.c uml/util-core.c
FUZZ_CONSOLE_HDRS := uml/guest/oops.h uml/patch/smoke.h uml/util.h

$(LT)/fuzz-console-replay: $(call san,tests/fuzz/fuzz-console.c tests/fuzz/replay.c \
		$(FUZZ_CONSOLE_SRCS) $(FUZZ_CONSOLE_HDRS))
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN_FLAGS) -iquote uml -Itui \
		-DCORPUS='"$(CURDIR)/tests/fuzz-corpus-console"' -o $@ \
		$(SAN_IN) -ljansson -lm
UNIT_TESTS	+= $(LT)/fuzz-console-replay

$(B)/fuzz/fuzz-console: tests/fuzz/fuzz-console.c $(FUZZ_CONSOLE_SRCS) \
		$(FUZZ_CONSOLE_HDRS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $(filter %.c,$^) -ljansson -lm
$(eval $(call fuzz_run,console,65536,tests/fuzz-corpus-console,-close_fd_mask=1))

# --- exercises: skeletons of solutions (uml/lab/lab-ex.c) ---------------------
FUZZ_EXERCISE_SRCS := uml/lab/lab-ex.c uml/spawn.c uml/util.c uml/util-core.c
FUZZ_EXERCISE_HDRS := uml/lab/lab-ex.h uml/lab/lab.h uml/util.h

$(LT)/fuzz-exercise-replay: $(call san,tests/fuzz/fuzz-exercise.c tests/fuzz/replay.c \
		$(FUZZ_EXERCISE_SRCS) $(FUZZ_EXERCISE_HDRS))
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN_FLAGS) -iquote uml -Itui \
		-DCORPUS='"$(CURDIR)/tests/fuzz-corpus-exercise"' -o $@ \
		$(SAN_IN)
UNIT_TESTS	+= $(LT)/fuzz-exercise-replay

$(B)/fuzz/fuzz-exercise: tests/fuzz/fuzz-exercise.c $(FUZZ_EXERCISE_SRCS) \
		$(FUZZ_EXERCISE_HDRS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $(filter %.c,$^)
$(eval $(call fuzz_run,exercise,65536,tests/fuzz-corpus-exercise))

# --- recordings: the header, the index, a file set (tui/recfmt.c) ------------
$(LT)/fuzz-recording-replay: tests/fuzz/fuzz-recording.c tests/fuzz/replay.c \
		$(TUI_TEST_LINK)
	@mkdir -p $(@D)
	$(CC) $(TUI_CPPFLAGS) -Itui $(CFLAGS) $(TUI_SAN) \
		-DCORPUS='"$(CURDIR)/tests/fuzz-corpus-recording"' -o $@ \
		$(filter %.c,$^) $(TUI_TEST_LINK)
UNIT_TESTS	+= $(LT)/fuzz-recording-replay

$(B)/fuzz/fuzz-recording: tests/fuzz/fuzz-recording.c tui/recfmt.c uml/util-core.c \
		tui/recfmt.h
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $(filter %.c,$^)
$(eval $(call fuzz_run,recording,16384,tests/fuzz-corpus-recording))

# Metric names and labels into gnuplot's scripts and file names (bench.c).
$(LT)/test-bench-plot: $(call san,tests/unit/test-bench-plot.c uml/patch/bench.c \
		uml/patch/stats.c uml/spawn.c uml/util.c uml/util-core.c \
		uml/patch/bench.h uml/util.h)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN_FLAGS) -iquote uml -o $@ $(SAN_IN) \
		-lcmocka -ljansson -lm
UNIT_TESTS	+= $(LT)/test-bench-plot

# umkit lab report --csv on hostile result files (lab-out.c).
$(LT)/test-lab-report: $(call san,tests/unit/test-lab-report.c uml/lab/lab-out.c uml/lab/lab-key.c $(LAB_CORE) \
		$(LAB_HDRS) $(LAB_VALUES))
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN_FLAGS) -iquote uml -Itui -o $@ \
		$(SAN_IN) -lcmocka -ljansson -lnettle
UNIT_TESTS	+= $(LT)/test-lab-report

# A lab's result(NAME.KEY) on a guest's output (lab-result.c).
$(LT)/test-lab-result: $(call san,tests/unit/test-lab-result.c uml/lab/lab-result.c \
		uml/lab/lab-result.h)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN_FLAGS) -iquote uml -o $@ $(SAN_IN) -lcmocka
UNIT_TESTS	+= $(LT)/test-lab-result
