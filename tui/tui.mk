# tui/tui.mk - the ncurses TUI (build/bin/umkit-tui), its unit tests and
# its benchmark.  Included by the top Makefile (B, CC, CFLAGS, CPPFLAGS).

TUI_NCURSES_CFLAGS := $(shell pkg-config --cflags ncursesw 2>/dev/null)
# the sources use GNU extensions (memmem, strtok_r, pread, openat); "util.h"
# is the kit's support layer, uml/util.h (its libc-only part, util-core)
TUI_CPPFLAGS := -D_GNU_SOURCE -Iuml
TUI_NCURSES_LIBS := $(shell pkg-config --libs ncursesw 2>/dev/null || echo -lncursesw)

TUI_PARSERS := parse-util parse-vmstat parse-meminfo parse-lrugen \
	parse-zoneinfo parse-buddyinfo parse-pagetypeinfo parse-extfrag \
	parse-trace parse-kpageflags parse-proc
TUI_MODULES := $(TUI_PARSERS) source draw view-lru view-compact \
	view-counters view-overview view-help lab-pane tui
TUI_OBJS := $(patsubst %,$(B)/obj/tui/%.o,$(TUI_MODULES))

all: $(B)/bin/umkit-tui

$(B)/bin/umkit-tui: $(TUI_OBJS) $(B)/obj/uml/util-core.o
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(TUI_NCURSES_LIBS) -lm

$(B)/obj/tui/%.o: tui/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(TUI_CPPFLAGS) $(TUI_NCURSES_CFLAGS) $(CFLAGS) -c -o $@ $<

-include $(TUI_OBJS:.o=.d)

# --- unit tests: a separate build with sanitizers ---------------------------
TUI_SAN := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
TUI_TEST_PARSERS := $(patsubst %,$(B)/obj/tui-test/%.o,$(TUI_PARSERS) util-core)
TUI_TESTS := lrugen vmstat meminfo zoneinfo buddyinfo pagetypeinfo \
	extfrag trace kpageflags proc
TUI_UNIT := $(patsubst %,$(B)/tests/test-parse-%,$(TUI_TESTS))
UNIT_TESTS += $(TUI_UNIT)
# keep the sanitizer objects (make would delete them as intermediates)
.SECONDARY: $(TUI_TEST_PARSERS) $(patsubst %,$(B)/obj/tui-test/test-parse-%.o,$(TUI_TESTS))

$(B)/obj/tui-test/%.o: tui/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(TUI_CPPFLAGS) $(CFLAGS) $(TUI_SAN) -c -o $@ $<

$(B)/obj/tui-test/util-core.o: uml/util-core.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(TUI_CPPFLAGS) $(CFLAGS) $(TUI_SAN) -c -o $@ $<

$(B)/obj/tui-test/test-parse-%.o: tests/unit/test-parse-%.c tests/unit/tui-test.h
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(TUI_CPPFLAGS) -Itui $(CFLAGS) $(TUI_SAN) -c -o $@ $<

$(B)/tests/test-parse-%: $(B)/obj/tui-test/test-parse-%.o $(TUI_TEST_PARSERS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(TUI_SAN) -o $@ $^ -lcmocka

-include $(wildcard $(B)/obj/tui-test/*.d)

# --- benchmark --------------------------------------------------------------
.PHONY: bench-tui
bench-tui: $(B)/bin/umkit-tui
	@sh tui/bench.sh $(B)/bin/umkit-tui

# --- fuzzing: the parsers read bytes that come from the guest ---------------
# make test replays the checked-in seeds (gcc + ASan, no clang needed);
# make fuzz runs libFuzzer on them for FUZZ_SECONDS.
TUI_FUZZ_SRCS := $(patsubst %,tui/%.c,$(TUI_PARSERS)) uml/util-core.c

$(B)/tests/fuzz-parse-replay: tests/fuzz/fuzz-parse.c tests/fuzz/replay.c \
		uml/proto.c $(TUI_TEST_PARSERS)
	@mkdir -p $(@D)
	$(CC) -Itui -Iuml $(CFLAGS) $(TUI_SAN) \
		-DCORPUS='"$(CURDIR)/tests/fuzz-corpus-parse"' -o $@ \
		$(filter %.c,$^) $(TUI_TEST_PARSERS)
UNIT_TESTS += $(B)/tests/fuzz-parse-replay

$(B)/fuzz/fuzz-parse: tests/fuzz/fuzz-parse.c $(TUI_FUZZ_SRCS) tui/parse.h
	@mkdir -p $(@D)
	$(FUZZ_CC) -g -O1 -std=gnu11 $(TUI_CPPFLAGS) -Itui \
		-fsanitize=fuzzer,address,undefined -o $@ $(filter %.c,$^)

.PHONY: fuzz-parse
fuzz: fuzz-parse
fuzz-parse: $(B)/fuzz/fuzz-parse
	@mkdir -p $(B)/fuzz/corpus-parse
	$(B)/fuzz/fuzz-parse -max_total_time=$(FUZZ_SECONDS) -max_len=16384 \
		-print_final_stats=1 $(B)/fuzz/corpus-parse tests/fuzz-corpus-parse
