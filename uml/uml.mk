# uml/uml.mk - the launcher (build/bin/umkit, ./umkit) and the kernels.
#
# The guest link (uml/link/link.mk) and the FUSE mirror (uml/link/mirror.mk) keep
# their own rules and hand their objects over in LINK_OBJS / MIRROR_OBJS.

include $(wildcard uml/link/link.mk uml/link/mirror.mk uml/lab/lab.mk)

FUSE_CFLAGS	:= $(shell pkg-config --cflags fuse3 2>/dev/null)
FUSE_LIBS	:= $(shell pkg-config --libs fuse3 2>/dev/null)

# One file per command (uml/cmd-NAME.c), the supervisor beside its client
# ctl.c.  util-core.o comes with LINK_OBJS (the agent links it too).
LAUNCHER_CMDS	:= run exec start stop list console trace tui record variants \
		   cleanup doctor lab get gdb smoke compare plot coverage
LAUNCHER_SRCS	:= uml/umkit.c uml/util.c uml/guest/guest.c uml/guest/disk.c uml/guest/initrd.c uml/guest/rundir.c uml/guest/watch.c uml/guest/gdb.c uml/guest/oops.c \
		   uml/guest/ctl.c uml/guest/supervisor.c uml/guest/preflight.c \
		   $(LAUNCHER_CMDS:%=uml/cmd-%.c) \
		   uml/lab/lab-file.c uml/lab/lab-expr.c uml/lab/lab-run.c uml/lab/lab-out.c uml/lab/lab-ex.c uml/lab/lab-exbuild.c \
		   uml/lab/lab-ui.c uml/patch/patchin.c uml/patch/bench.c uml/patch/stats.c uml/cov/cov.c uml/cov/cov-link.c uml/cov/cov-report.c uml/patch/smoke-cov.c uml/patch/compare-cov.c
LAUNCHER_OBJS	:= $(LAUNCHER_SRCS:%.c=$(B)/obj/%.o)

all-parts: kernel umkit

# -Itui: the lab runner reads values through tui/values.h (libumkit-parse)
$(LAUNCHER_OBJS): $(B)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(FUSE_CFLAGS) -Itui -c -o $@ $<

$(B)/bin/umkit: $(LAUNCHER_OBJS) $(LINK_OBJS) $(MIRROR_OBJS) \
		$(B)/lib/libumkit-parse.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $^ $(FUSE_LIBS) -ljansson -lpthread -lm

# The launcher built with ASan and UBSan: tests/t-exec-asan.sh runs the
# exec tests with it (it finds the checkout from build/tests/ too).
$(B)/tests/umkit-asan: $(LAUNCHER_SRCS) $(filter %.c,$(LINK_OBJS:$(B)/obj/%.o=%.c)) \
		$(MIRROR_OBJS:$(B)/obj/%.o=%.c) $(B)/lib/libumkit-parse-san.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN_FLAGS) $(FUSE_CFLAGS) -Iuml -Itui -o $@ $^ $(FUSE_LIBS) -ljansson -lpthread -lm
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
	$(CC) $(CFLAGS) -Iuml -o $@ $(filter %.c,$^) -lcmocka
$(B)/tests/test-layout-asan: tests/unit/test-layout.c uml/util.c uml/util-core.c uml/util.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN_FLAGS) -Iuml -o $@ $(filter %.c,$^) -lcmocka
UNIT_TESTS	+= $(B)/tests/test-layout $(B)/tests/test-layout-asan

-include $(LAUNCHER_OBJS:.o=.d)
