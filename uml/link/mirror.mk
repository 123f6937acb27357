# SPDX-License-Identifier: GPL-2.0-only
# uml/link/mirror.mk - the FUSE mirror (uml/link/mirror.c, with its path rules in
# uml/link/mirror-policy.c), recordings (uml/link/record.c), their tests and
# benchmark.  Included by uml/uml.mk.
#
#   MIRROR_OBJS      objects the launcher links (with LINK_OBJS)
#   make bench-mirror  needs a built kernel; boots a guest and prints
#                      latency, throughput and guest-CPU figures
#
# Tests (UNIT_TESTS): test-mirror-unit (path normalizer, symlink text,
# allowlist; cmocka; links mirror-policy and util only, no libfuse),
# test-record (recording format; cmocka) and
# test-mirror-host (the mirror mounted on a temp dir, served by the agent
# built for the host over a socketpair: no UML needed).  The live-guest
# tests are tests/t-mirror-live.sh.

MIRROR_FUSE_CFLAGS := $(shell pkg-config --cflags fuse3 2>/dev/null)
MIRROR_FUSE_LIBS   := $(shell pkg-config --libs fuse3 2>/dev/null || echo -lfuse3)

MIRROR_OBJS	:= $(B)/obj/uml/link/mirror.o $(B)/obj/uml/link/mirror-policy.o \
		   $(B)/obj/uml/link/record.o
MT		:= $(B)/tests

# record.c includes tui/recfmt.h (the recording format, libumkit-parse).
$(MIRROR_OBJS): $(B)/obj/uml/%.o: uml/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(MIRROR_FUSE_CFLAGS) -Itui -c -o $@ $<

# Everything a host program using the mirror links.
MIRROR_LINK	= $(MIRROR_OBJS) $(LINK_OBJS) $(B)/obj/uml/util.o $(B)/obj/uml/spawn.o \
		  $(B)/lib/libumkit-parse.a

# The pure path rules: no FUSE, no link.
POLICY_LINK	= $(B)/obj/uml/link/mirror-policy.o $(B)/obj/uml/util.o \
		  $(B)/obj/uml/util-core.o

$(MT)/test-mirror-unit: tests/unit/test-mirror-unit.c $(POLICY_LINK)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -iquote uml -o $@ $^ -lcmocka

$(MT)/test-record: tests/unit/test-record.c $(MIRROR_LINK)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -iquote uml -o $@ $^ $(MIRROR_FUSE_LIBS) -lcmocka -pthread

$(MT)/test-mirror-host: tests/unit/test-mirror-host.c $(MIRROR_LINK) \
		$(MT)/umkit-agent
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -iquote uml -DAGENT='"$(abspath $(MT))/umkit-agent"' \
		-o $@ $(filter-out $(MT)/umkit-agent,$^) $(MIRROR_FUSE_LIBS) \
		-lcmocka -pthread

UNIT_TESTS	+= $(MT)/test-mirror-unit $(MT)/test-record \
		   $(MT)/test-mirror-host

# The same three built with ASan and UBSan (SAN_FLAGS from uml/link/link.mk),
# from the sources, against the agent built with them too.
MIRROR_SAN_SRCS	:= uml/link/mirror.c uml/link/mirror-policy.c uml/link/record.c uml/link/link.c \
		   uml/link/proto.c uml/util.c uml/util-core.c uml/spawn.c

$(MT)/test-mirror-unit-asan: $(call san,tests/unit/test-mirror-unit.c \
		uml/link/mirror-policy.c uml/util.c uml/util-core.c)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN_FLAGS) -iquote uml -o $@ $(SAN_IN) -lcmocka

$(MT)/test-record-asan: $(call san,tests/unit/test-record.c $(MIRROR_SAN_SRCS) \
		$(B)/lib/libumkit-parse-san.a)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN_FLAGS) $(MIRROR_FUSE_CFLAGS) -iquote uml -Itui -o $@ $(SAN_IN) \
		$(MIRROR_FUSE_LIBS) -lcmocka -pthread

$(MT)/test-mirror-host-asan: $(call san,tests/unit/test-mirror-host.c $(MIRROR_SAN_SRCS) \
		$(MT)/umkit-agent-asan $(B)/lib/libumkit-parse-san.a)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN_FLAGS) $(MIRROR_FUSE_CFLAGS) -iquote uml -Itui \
		-DAGENT='"$(abspath $(MT))/umkit-agent-asan"' -o $@ \
		$(SAN_IN) $(MIRROR_FUSE_LIBS) -lcmocka -pthread

UNIT_TESTS	+= $(MT)/test-mirror-unit-asan $(MT)/test-record-asan \
		   $(MT)/test-mirror-host-asan

# The benchmark: host side (through the mirror) and guest side (the same
# reads inside the guest; a static program in the rootfs).
GUEST_MULTI	+= umkit-readbench
umkit-readbench_SRCS = tests/bench-mirror-guest.c tests/bench.h

$(MT)/bench-mirror: tests/bench-mirror.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $< -pthread
test-parts: $(MT)/bench-mirror

.PHONY: bench-mirror
bench-mirror: all $(MT)/bench-mirror
	@sh tests/bench-mirror.sh

-include $(MIRROR_OBJS:.o=.d)
