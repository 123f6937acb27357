# SPDX-License-Identifier: GPL-2.0-only
# tui/tui.mk - the ncurses TUI (build/bin/umkit-tui), its unit tests and
# its benchmark.  Included by the top Makefile (B, CC, CFLAGS, CPPFLAGS).

TUI_NCURSES_CFLAGS := $(shell pkg-config --cflags ncursesw 2>/dev/null)
# the sources use GNU extensions (memmem, strtok_r, pread, openat); "util.h"
# is the kit's support layer, uml/util.h (its libc-only part, util-core)
TUI_CPPFLAGS := -D_GNU_SOURCE -iquote uml
TUI_NCURSES_LIBS := $(shell pkg-config --libs ncursesw 2>/dev/null || echo -lncursesw)

# libumkit-parse: the parsers, the MGLRU history model, the value layer
# and the recording format (see tui/parse.h for why it lives here).  No
# curses; the programs that link it bring util-core (xmalloc).
PARSE_LIB_MODULES := parse-util parse-vmstat parse-meminfo parse-lrugen \
	parse-zoneinfo parse-buddyinfo parse-pagetypeinfo parse-extfrag \
	parse-trace parse-kpageflags parse-proc rdfile lruhist recfmt values \
	comprun
PARSE_LIB := $(B)/lib/libumkit-parse.a
PARSE_LIB_OBJS := $(patsubst %,$(B)/obj/lib/%.o,$(PARSE_LIB_MODULES))
# the same built with ASan and UBSan, for the unit tests and fuzz replays
PARSE_LIB_SAN := $(B)/lib/libumkit-parse-san.a
PARSE_LIB_SAN_OBJS := $(patsubst %,$(B)/obj/tui-test/%.o,$(PARSE_LIB_MODULES))

TUI_MODULES := source draw views view-lru view-compact view-counters \
	view-overview view-help lab-pane tui
TUI_OBJS := $(patsubst %,$(B)/obj/tui/%.o,$(TUI_MODULES))

all-parts: $(B)/bin/umkit-tui $(B)/bin/umkit-value

$(PARSE_LIB): $(PARSE_LIB_OBJS)
	@mkdir -p $(@D)
	rm -f $@
	$(AR) rcs $@ $^

$(PARSE_LIB_SAN): $(PARSE_LIB_SAN_OBJS)
	@mkdir -p $(@D)
	rm -f $@
	$(AR) rcs $@ $^

$(B)/obj/lib/%.o: tui/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(TUI_CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(B)/bin/umkit-tui: $(TUI_OBJS) $(B)/obj/uml/util-core.o $(PARSE_LIB)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(TUI_NCURSES_LIBS) -lm

# values from a root, for tests and (wrapped) the launcher; values.h
$(B)/bin/umkit-value: $(B)/obj/tui/umkit-value.o $(B)/obj/uml/util-core.o $(PARSE_LIB)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^

$(B)/obj/tui/%.o: tui/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(TUI_CPPFLAGS) $(TUI_NCURSES_CFLAGS) $(CFLAGS) -c -o $@ $<

-include $(PARSE_LIB_OBJS:.o=.d)
-include $(TUI_OBJS:.o=.d)

# --- unit tests: a separate build with sanitizers ---------------------------
TUI_SAN := -fsanitize=address,undefined,float-cast-overflow -fno-omit-frame-pointer -fno-sanitize-recover=all
TUI_TEST_LINK := $(B)/obj/tui-test/util-core.o $(PARSE_LIB_SAN)
TUI_TESTS := parse-lrugen parse-vmstat parse-meminfo parse-zoneinfo \
	parse-buddyinfo parse-pagetypeinfo parse-extfrag parse-trace \
	parse-kpageflags parse-proc lruhist recfmt values comprun
TUI_UNIT := $(patsubst %,$(B)/tests/test-%,$(TUI_TESTS))
UNIT_TESTS += $(TUI_UNIT)
# keep the sanitizer objects (make would delete them as intermediates)
.SECONDARY: $(PARSE_LIB_SAN_OBJS) $(B)/obj/tui-test/util-core.o \
	$(patsubst %,$(B)/obj/tui-test/test-%.o,$(TUI_TESTS))

$(B)/obj/tui-test/%.o: tui/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(TUI_CPPFLAGS) $(TUI_NCURSES_CFLAGS) $(CFLAGS) $(TUI_SAN) -c -o $@ $<

$(B)/obj/tui-test/util-core.o: uml/util-core.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(TUI_CPPFLAGS) $(CFLAGS) $(TUI_SAN) -c -o $@ $<

$(B)/obj/tui-test/test-%.o: tests/unit/test-%.c tests/unit/tui-test.h
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(TUI_CPPFLAGS) -Itui $(CFLAGS) $(TUI_SAN) -c -o $@ $<

$(TUI_UNIT): $(B)/tests/test-%: $(B)/obj/tui-test/test-%.o $(TUI_TEST_LINK)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(TUI_SAN) -o $@ $^ -lcmocka

# The views' file tables against what they read and uml/link/record.files:
# the views and their helpers (not tui.c), sanitized, with curses.
TUI_VIEW_TEST_OBJS := $(patsubst %,$(B)/obj/tui-test/%.o,source draw views \
	view-lru view-compact view-counters view-overview view-help)
.SECONDARY: $(TUI_VIEW_TEST_OBJS) $(B)/obj/tui-test/test-view-files.o
$(B)/tests/test-view-files: $(B)/obj/tui-test/test-view-files.o \
		$(TUI_VIEW_TEST_OBJS) $(TUI_TEST_LINK)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(TUI_SAN) -o $@ $^ $(TUI_NCURSES_LIBS) -lm -lcmocka
UNIT_TESTS += $(B)/tests/test-view-files

# The compaction view's replay drawn on a canvas, sanitized.
.SECONDARY: $(B)/obj/tui-test/test-view-compact.o
$(B)/tests/test-view-compact: $(B)/obj/tui-test/test-view-compact.o \
		$(TUI_VIEW_TEST_OBJS) $(TUI_TEST_LINK)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(TUI_SAN) -o $@ $^ $(TUI_NCURSES_LIBS) -lm -lcmocka
UNIT_TESTS += $(B)/tests/test-view-compact

-include $(wildcard $(B)/obj/tui-test/*.d)

# --- benchmark --------------------------------------------------------------
.PHONY: bench-tui
bench-tui: $(B)/bin/umkit-tui
	@sh tui/bench.sh $(B)/bin/umkit-tui

# --- fuzzing: the parsers read bytes that come from the guest ---------------
# make test replays the checked-in seeds (gcc + ASan, no clang needed);
# make fuzz runs libFuzzer on them for FUZZ_SECONDS (tests/fuzz/fuzz.mk).
# (libFuzzer needs clang's sanitizers: the fuzzer compiles the library's
# sources itself; the gcc replay links the sanitized library.)
TUI_FUZZ_SRCS := $(patsubst %,tui/%.c,$(PARSE_LIB_MODULES)) uml/util-core.c

$(B)/tests/fuzz-parse-replay: tests/fuzz/fuzz-parse.c tests/fuzz/replay.c \
		uml/link/proto.c $(TUI_TEST_LINK)
	@mkdir -p $(@D)
	$(CC) -Itui -iquote uml $(CFLAGS) $(TUI_SAN) \
		-DCORPUS='"$(CURDIR)/tests/fuzz-corpus-parse"' -o $@ \
		$(filter %.c,$^) $(TUI_TEST_LINK)
UNIT_TESTS += $(B)/tests/fuzz-parse-replay

# The value layer's spec parser reads lab files' text: its own target,
# run against the fixture root (values_get must agree with values_check).
$(B)/tests/fuzz-values-replay: tests/fuzz/fuzz-values.c tests/fuzz/replay.c \
		uml/link/proto.c $(TUI_TEST_LINK)
	@mkdir -p $(@D)
	$(CC) -Itui -iquote uml $(CFLAGS) $(TUI_SAN) \
		-DCORPUS='"$(CURDIR)/tests/fuzz-corpus-values"' \
		-DFIXTURE_ROOT='"$(CURDIR)/tests/fixtures/guest"' -o $@ \
		$(filter %.c,$^) $(TUI_TEST_LINK)
UNIT_TESTS += $(B)/tests/fuzz-values-replay
