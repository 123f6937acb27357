# SPDX-License-Identifier: GPL-2.0-only
# rootfs/rootfs.mk - the guest's initramfs: busybox-static, /init, the
# agent and the kit's static guest programs.
#
# Guest programs are static so the rootfs needs no libc.  Rebuilding the
# rootfs never touches the kernel.

ROOTFS		:= $(B)/rootfs/initramfs.cpio
BUSYBOX		?= /bin/busybox
# Static guest programs: name => sources (other parts append to these).
# Those in GUEST_MULTI are one binary, umkit-guest (rootfs/guest-main.c),
# linked under each name: a static glibc program is ~800 KiB, and every
# KiB of initramfs is read and unpacked at each boot (6 MB more: about
# 25 ms more guest time before /init and 50 ms more wall, measured with
# a busybox-only initramfs and one padded with 6 MB, base kernel).
GUEST_MULTI	+= umkit-agent umkit-init
umkit-agent_SRCS = $(AGENT_SRCS)
umkit-init_SRCS	 = rootfs/init.c
# The workloads, linked in /usr/bin under each workload's name;
# umkit-hello is the tiny program procbench execs, without libc.
WORKLOADS	:= kvbench procbench fragment readtwice spawn
GUEST_MULTI	+= umkit-wl
GUEST_PROGS	+= umkit-guest umkit-hello
umkit-wl_SRCS	 = rootfs/wl.c $(WORKLOADS:%=rootfs/wl-%.c) rootfs/wl.h
umkit-hello_SRCS = rootfs/hello.c
umkit-hello_FLAGS = -nostdlib

GUEST_BINS	 = $(addprefix $(B)/rootfs/bin/,$(GUEST_PROGS))
# Guest shell scripts: rootfs/NAME.sh is /usr/bin/NAME in the guest.
GUEST_SCRIPTS	:= rootfs/compaction-round.sh rootfs/walk-probe.sh rootfs/lru-age.sh rootfs/lru-protect.sh
# umkit reproduce SEED boots the seed's variant and runs repro-SEED.
GUEST_SCRIPTS	+= $(sort $(wildcard rootfs/repro-*.sh))

all-parts: $(ROOTFS)
rootfs: $(ROOTFS)
.PHONY: rootfs

$(B)/rootfs/bin/%: $$(%_SRCS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -static $($*_FLAGS) -iquote uml -o $@ $(filter %.c,$^)

# A program of umkit-guest: its sources linked into one object whose only
# global symbol is NAME_main (umkit-agent: umkit_agent_main).
$(B)/rootfs/part/%.o: $$(%_SRCS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Wno-missing-prototypes -r -nostdlib -Dmain=$(subst -,_,$*)_main -iquote uml -o $@ $(filter %.c,$^)
	objcopy -G $(subst -,_,$*)_main $@

# (Expanded a second time: other parts add to GUEST_MULTI after this file.)
$(B)/rootfs/bin/umkit-guest: rootfs/guest-main.c $$(patsubst %,$$(B)/rootfs/part/%.o,$$(GUEST_MULTI))
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -static -o $@ $^

$(ROOTFS): rootfs/mkdevs.sh $(GUEST_BINS) $$(patsubst %,$$(B)/rootfs/part/%.o,$$(GUEST_MULTI)) $(GUEST_SCRIPTS) $(BUSYBOX) rootfs/rootfs.mk
	@rm -rf $(B)/rootfs/stage && mkdir -p $(B)/rootfs/stage
	@cd $(B)/rootfs/stage && mkdir -p bin sbin usr/bin usr/lib/umkit usr/local/bin proc sys dev tmp root etc
	@cp $(BUSYBOX) $(B)/rootfs/stage/bin/busybox
	@for a in $$($(BUSYBOX) --list); do \
		[ -e $(B)/rootfs/stage/bin/$$a ] || ln -s busybox $(B)/rootfs/stage/bin/$$a; done
	@cp $(GUEST_BINS) $(B)/rootfs/stage/usr/lib/umkit/
	@# without their debug information: the kernel unpacks every byte of
	@# the initramfs at each boot, and /init waits for it (README, boot)
	@strip $(patsubst $(B)/rootfs/bin/%,$(B)/rootfs/stage/usr/lib/umkit/%,$(GUEST_BINS))
	@for p in $(filter-out umkit-init,$(GUEST_MULTI)); do \
		ln -s umkit-guest $(B)/rootfs/stage/usr/lib/umkit/$$p; done
	@ln -s usr/lib/umkit/umkit-guest $(B)/rootfs/stage/init
	@for w in $(WORKLOADS); do ln -s ../lib/umkit/umkit-wl $(B)/rootfs/stage/usr/bin/$$w; done
	@for f in $(GUEST_SCRIPTS); do n=$$(basename $$f .sh); \
		cp $$f $(B)/rootfs/stage/usr/bin/$$n && chmod 755 $(B)/rootfs/stage/usr/bin/$$n; done
	@echo 'root:x:0:0:root:/root:/bin/sh' > $(B)/rootfs/stage/etc/passwd
	@echo 'PS1="umkit# "' > $(B)/rootfs/stage/etc/profile
	@sh rootfs/mkdevs.sh > $@.tmp
	@cd $(B)/rootfs/stage && find . -mindepth 1 | LC_ALL=C sort | \
		cpio --quiet -o -H newc -R 0:0 --reproducible >> $(CURDIR)/$@.tmp
	@mv $@.tmp $@
	@rm -rf $(B)/rootfs/stage
	@$(LABEL) ROOTFS "$@ ($$(du -k $@ | cut -f1) KiB)"
