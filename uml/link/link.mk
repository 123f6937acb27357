# SPDX-License-Identifier: GPL-2.0-only
# uml/link/link.mk - the guest link: protocol codec (uml/link/proto.c), host client
# (uml/link/link.c), the agent (rootfs/agent.c), their tests and the fuzzer.
#
#   LINK_OBJS      objects the launcher links (with util-core, the part of
#                  uml/util.h that the static agent links too)
#   AGENT_SRCS     sources of the static guest agent (rootfs/rootfs.mk)
#   make fuzz      libFuzzer on the frame decoders, FUZZ_SECONDS (60)
#
# Tests (in UNIT_TESTS, so 'make test' runs them): test-proto (codec),
# test-link (agent + client on a socketpair, no UML), their ASan/UBSan
# builds, test-link under TSan, and fuzz-replay (the checked-in corpus through the fuzz entry
# point, built with gcc and ASan: no clang needed).

LINK_OBJS	:= $(B)/obj/uml/link/proto.o $(B)/obj/uml/link/link.o $(B)/obj/uml/util-core.o
AGENT_SRCS	:= rootfs/agent.c uml/link/proto.c uml/util-core.c uml/link/proto.h

SAN_FLAGS	:= -fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=all \
		   -fno-omit-frame-pointer
# The kit's sources built once with them, for every sanitized test:
# $(call san,FILES) names uml/X.c's object build/obj/san/uml/X.o and
# leaves the other files (a test's own .c compiles in its link line, with
# its -D paths).  One object per source instead of one compile per test
# that links it: make test's ASan builds were 198 compiles of ~120 files.
SAN_OBJ		:= $(B)/obj/san
san		= $(foreach f,$(1),$(if $(filter uml/%.c,$(f)),$(SAN_OBJ)/$(f:.c=.o),$(f)))
# what a sanitized test's link line takes from its prerequisites
SAN_IN		= $(filter %.c %.o %.a,$^)
$(SAN_OBJ)/uml/%.o: uml/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(SAN_FLAGS) $(FUSE_CFLAGS) -Itui -c -o $@ $<
-include $(shell find $(SAN_OBJ) -name '*.d' 2>/dev/null)
FUZZ_CC		?= clang
FUZZ_SECONDS	?= 60
LT		:= $(B)/tests

$(LINK_OBJS): $(B)/obj/uml/%.o: uml/%.c uml/link/proto.h uml/link/link.h uml/util.h
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

# The agent built for the host, for the end-to-end tests.
$(LT)/umkit-agent: rootfs/agent.c uml/link/proto.c uml/util-core.c uml/link/proto.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -iquote uml -o $@ $(filter %.c,$^)

$(LT)/umkit-agent-asan: $(call san,rootfs/agent.c uml/link/proto.c uml/util-core.c uml/link/proto.h)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN_FLAGS) -iquote uml -o $@ $(SAN_IN)

$(LT)/test-proto: tests/unit/test-proto.c uml/link/proto.c uml/util-core.c uml/link/proto.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -iquote uml -o $@ $(filter %.c,$^) -lcmocka

$(LT)/test-proto-asan: $(call san,tests/unit/test-proto.c uml/link/proto.c uml/util-core.c uml/link/proto.h)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN_FLAGS) -iquote uml -o $@ $(SAN_IN) -lcmocka

$(LT)/test-link: tests/unit/test-link.c uml/link/link.c uml/link/proto.c uml/util-core.c uml/link/proto.h \
		uml/link/link.h uml/cov/cov-link.c uml/util.c $(LT)/umkit-agent
	$(CC) $(CFLAGS) -iquote uml -DAGENT='"$(abspath $(LT))/umkit-agent"' \
		-o $@ $(filter %.c,$^) -lcmocka -pthread

$(LT)/test-link-asan: $(call san,tests/unit/test-link.c uml/link/link.c uml/link/proto.c uml/util-core.c \
		uml/link/proto.h uml/link/link.h uml/cov/cov-link.c uml/util.c $(LT)/umkit-agent-asan)
	$(CC) $(CFLAGS) $(SAN_FLAGS) -iquote uml \
		-DAGENT='"$(abspath $(LT))/umkit-agent-asan"' \
		-o $@ $(SAN_IN) -lcmocka -pthread

# ThreadSanitizer on the client (the agent is single-threaded).
$(LT)/test-link-tsan: tests/unit/test-link.c uml/link/link.c uml/link/proto.c uml/util-core.c \
		uml/link/proto.h uml/link/link.h uml/cov/cov-link.c uml/util.c $(LT)/umkit-agent
	$(CC) $(CFLAGS) -fsanitize=thread -iquote uml \
		-DAGENT='"$(abspath $(LT))/umkit-agent"' \
		-o $@ $(filter %.c,$^) -lcmocka -pthread

$(LT)/fuzz-replay: $(call san,tests/fuzz/fuzz-proto.c tests/fuzz/replay.c uml/link/proto.c uml/util-core.c \
		uml/link/proto.h)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN_FLAGS) -iquote uml \
		-DCORPUS='"$(CURDIR)/tests/fuzz-corpus"' \
		-o $@ $(SAN_IN)

UNIT_TESTS	+= $(LT)/test-proto $(LT)/test-proto-asan $(LT)/test-link \
		   $(LT)/test-link-asan $(LT)/test-link-tsan $(LT)/fuzz-replay

# libFuzzer (make fuzz-proto, part of make fuzz): tests/fuzz/fuzz.mk.



# 'make bench' part: the link's own latency in a real guest, no FUSE.
$(LT)/bench-link: tests/unit/bench-link.c uml/link/link.c uml/link/proto.c uml/util-core.c uml/link/proto.h \
		uml/link/link.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -iquote uml -o $@ $(filter %.c,$^) -pthread

.PHONY: link-bench
bench: link-bench
link-bench: $(LT)/bench-link $(B)/rootfs/initramfs.cpio
	@test -x $(B)/k/$(VARIANT)/linux || \
		{ echo "link-bench: no kernel $(B)/k/$(VARIANT)/linux (make kernel)"; exit 1; }
	$(LT)/bench-link $(B)/k/$(VARIANT)/linux $(B)/rootfs/initramfs.cpio 500
-include $(LINK_OBJS:.o=.d)
