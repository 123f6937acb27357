# SPDX-License-Identifier: GPL-2.0-only
# uml/uml.mk - the launcher (build/bin/umkit, ./umkit) and the kernels.
#
# The guest link (uml/link/link.mk) and the FUSE mirror (uml/link/mirror.mk) keep
# their own rules and hand their objects over in LINK_OBJS / MIRROR_OBJS.

include $(wildcard uml/link/link.mk uml/link/mirror.mk uml/lab/lab.mk)

FUSE_CFLAGS	:= $(shell pkg-config --cflags fuse3 2>/dev/null)
FUSE_LIBS	:= $(shell pkg-config --libs fuse3 2>/dev/null)

# The launcher: the dispatcher and one thin file per command (uml/cmd-
# NAME.c) over the engines in uml/'s folders (README: "Where things
# live").  util-core.o and the link's objects come with LINK_OBJS (the
# agent links them too), the mirror's with MIRROR_OBJS.
LAUNCHER_CMDS	:= run exec start stop list console trace tui record variants \
		   cleanup doctor lab get gdb drgn smoke selftests compare plot coverage \
		   reproduce
LAUNCHER_SRCS	:= uml/umkit.c uml/util.c uml/spawn.c uml/sandbox.c uml/tuiexec.c \
		   $(LAUNCHER_CMDS:%=uml/cmd-%.c) \
		   $(addprefix uml/guest/,guest.c disk.c initrd.c elfdeps.c rundir.c watch.c \
			gdb.c drgn.c oops.c ctl.c ctl-req.c supervisor.c preflight.c exec.c) \
		   uml/kernel/kbuild.c \
		   $(addprefix uml/lab/,lab-file.c lab-expr.c lab-run.c lab-out.c lab-key.c \
			lab-ex.c lab-exbuild.c lab-ui.c lab-cat.c lab-state.c lab-batch.c) \
		   $(addprefix uml/patch/,patchin.c pset-cov.c bench.c bench-host.c stats.c selftests.c st-ktap.c smoke.c \
			smoke-stage.c smoke-tested.c mkline.c smoke-boot.c smoke-labs.c smoke-cov.c \
			compare-cov.c) \
		   $(addprefix uml/cov/,cov.c cov-link.c cov-report.c) \
		   $(addprefix uml/repro/,repro.c repro-json.c repro-out.c seeds.c)
LAUNCHER_OBJS	:= $(LAUNCHER_SRCS:%.c=$(B)/obj/%.o)

all-parts: kernel umkit

# -Itui: the lab runner reads values through tui/values.h (libumkit-parse)
$(LAUNCHER_OBJS): $(B)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(FUSE_CFLAGS) -Itui -c -o $@ $<

$(B)/bin/umkit: $(LAUNCHER_OBJS) $(LINK_OBJS) $(MIRROR_OBJS) \
		$(B)/lib/libumkit-parse.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $^ $(FUSE_LIBS) -ljansson -lnettle -lpthread -lm

# The launcher built with ASan and UBSan: tests/t-exec-asan.sh runs the
# exec tests with it (it finds the checkout from build/tests/ too).
$(B)/tests/umkit-asan: $(call san,$(LAUNCHER_SRCS) $(filter %.c,$(LINK_OBJS:$(B)/obj/%.o=%.c)) \
		$(MIRROR_OBJS:$(B)/obj/%.o=%.c) $(B)/lib/libumkit-parse-san.a)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN_FLAGS) $(FUSE_CFLAGS) -iquote uml -Itui -o $@ $(SAN_IN) $(FUSE_LIBS) -ljansson -lnettle -lpthread -lm
TEST_PROGS	+= $(B)/tests/umkit-asan

# ./umkit is what users type; it finds the checkout from its own path.
umkit: $(B)/bin/umkit
	ln -sf $(B)/bin/umkit umkit

# The kernel: uml/kernel/kbuild.sh decides what is stale (see its header).
kernel:
	@$(LABEL) KERNEL $(VARIANT)
	+@uml/kernel/kbuild.sh $(VARIANT) >/dev/null

# The layout's unit test (util.c: checkout or install, where each file
# goes), plain and with ASan/UBSan.
$(B)/tests/test-layout: tests/unit/test-layout.c uml/util.c uml/util-core.c uml/util.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -iquote uml -o $@ $(filter %.c,$^) -lcmocka
$(B)/tests/test-layout-asan: $(call san,tests/unit/test-layout.c uml/util.c uml/util-core.c uml/util.h)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN_FLAGS) -iquote uml -o $@ $(SAN_IN) -lcmocka
UNIT_TESTS	+= $(B)/tests/test-layout $(B)/tests/test-layout-asan

# What --add gives a dynamic program (uml/guest/elfdeps.c): the ELF and
# ld.so.cache readers on this host's files and on damaged ones built in
# the test, and closures, with ASan/UBSan.
$(B)/tests/test-elfdeps: $(call san,tests/unit/test-elfdeps.c uml/guest/elfdeps.c \
		uml/util-core.c uml/guest/elfdeps.h uml/util.h)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN_FLAGS) -iquote uml -o $@ $(SAN_IN) -lcmocka
UNIT_TESTS	+= $(B)/tests/test-elfdeps

-include $(LAUNCHER_OBJS:.o=.d)

# The engines without the command files (uml/cmd-*.c, umkit.c): the smoke
# engine and the lab batch runner link and run alone, with ASan/UBSan.
ENGINE_SRCS	:= $(filter-out uml/umkit.c uml/cmd-%.c,$(LAUNCHER_SRCS)) \
		   $(filter %.c,$(LINK_OBJS:$(B)/obj/%.o=%.c)) \
		   $(MIRROR_OBJS:$(B)/obj/%.o=%.c)
ENGINE_TESTS	:= $(B)/tests/test-smoke $(B)/tests/test-lab-batch
$(ENGINE_TESTS): $(B)/tests/%: $(call san,tests/unit/%.c $(ENGINE_SRCS) $(B)/lib/libumkit-parse-san.a)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN_FLAGS) $(FUSE_CFLAGS) -iquote uml -Itui -DTOP='"$(CURDIR)"' \
		-o $@ $(SAN_IN) $(FUSE_LIBS) -ljansson -lnettle -lpthread -lm -lcmocka
UNIT_TESTS	+= $(ENGINE_TESTS)

# umkit reproduce's reading of guest results and its verdicts; its stored
# runs as JSON, written and read back.
REPRO_CORE	:= uml/repro/repro-out.c uml/repro/seeds.c uml/patch/stats.c \
		   uml/util-core.c uml/repro/repro.h uml/patch/stats.h
REPRO_JSON	:= uml/repro/repro-json.c $(REPRO_CORE)
$(B)/tests/test-repro: $(call san,tests/unit/test-repro.c $(REPRO_JSON))
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN_FLAGS) -iquote uml -o $@ $(SAN_IN) -lcmocka -ljansson -lm
UNIT_TESTS	+= $(B)/tests/test-repro
