# SPDX-License-Identifier: GPL-2.0-only
# uml/install/install.mk - 'make install', 'make uninstall' and 'make deb'.
#
#   make install [PREFIX=/usr/local] [DESTDIR=]   the kit, read-only, for
#                        every user of the machine (layout: util.h,
#                        struct kit_layout; umkit.1 FILES)
#   make uninstall       remove what install put there
#   make ... KERNELS=asis  the kernels in build/k/ as they are (no kbuild)
#   make deb             build/deb/umkit_VERSION_ARCH.deb, from a staged
#                        DESTDIR (PREFIX=/usr), with Debian's dpkg-deb;
#                        its metadata is in uml/install/deb/
#
# Installed: PREFIX/bin/umkit; PREFIX/lib/umkit/ the TUI, umkit-value,
# the kernel build and disk scripts with their inputs, the kernel of
# every shipped variant (k/VARIANT/: linux stripped, linux.debug its
# symbols for gdb, System.map, config), the rootfs and the guest
# programs (rootfs/), and the marker file that tells the launcher it is
# installed; PREFIX/share/umkit/ the labs and the variants' patches;
# PREFIX/share/doc/umkit/ README and docs; the manual page, made from
# the --help texts (uml/install/mkman.sh).

PREFIX		?= /usr/local
# The file that tells the launcher it is installed: util.h says its name.
KIT_MARKER	:= $(shell sed -n 's/^\#define KIT_MARKER[^"]*"\(.*\)"/\1/p' uml/util.h)
DESTDIR		?=
# Every variant with a series file, unless told otherwise.
INSTALL_VARIANTS ?= $(sort $(patsubst patches/%/series,%,$(wildcard patches/*/series)))
I_BIN		:= $(DESTDIR)$(PREFIX)/bin
I_LIB		:= $(DESTDIR)$(PREFIX)/lib/umkit
I_SHARE		:= $(DESTDIR)$(PREFIX)/share/umkit
I_DOC		:= $(DESTDIR)$(PREFIX)/share/doc/umkit
I_MAN		:= $(DESTDIR)$(PREFIX)/share/man/man1

# The version: the last commit's date and hash (a Debian version, sorting
# in time), or what the caller says.
UMKIT_VERSION	?= $(shell git log -1 --format='0~git%cd.%h' --date=format:%Y%m%d 2>/dev/null || echo 0~unknown)
UMKIT_DATE	?= $(shell git log -1 --format=%cd --date=format:%Y-%m-%d 2>/dev/null || date +%Y-%m-%d)

# Scripts the launcher runs and the files they read (uml/X -> lib/X, the
# folders kept: uml/kernel/kbuild.sh -> lib/kernel/kbuild.sh).
I_SCRIPTS	:= uml/kernel/kbuild.sh uml/kernel/fetch-source.sh uml/guest/mkdisk.sh uml/kernel/shared-cache.sh
I_DATA		:= uml/kernel/kernel.pin uml/kernel/umkit.config uml/kernel/debug.config uml/kernel/gcov.config uml/link/allow.conf uml/link/record.files \
		   uml/guest/umkit_drgn.py

.PHONY: install uninstall kernels deb
# Every variant to install, built (each a no-op when up to date, but one
# that waits for the user's build lock).  KERNELS=asis takes them as they
# are in build/k/ (the tests: make test has built them).
KERNELS		?= build
kernels:
ifeq ($(KERNELS),asis)
	@for v in $(INSTALL_VARIANTS); do test -x $(B)/k/$$v/linux || \
		{ echo "umkit: no kernel $(B)/k/$$v/linux (KERNELS=asis)" >&2; exit 1; }; done
else
	@for v in $(INSTALL_VARIANTS); do \
		$(LABEL) KERNEL "$$v"; uml/kernel/kbuild.sh $$v >/dev/null || exit 1; done
endif

$(B)/man/umkit.1: $(B)/bin/umkit uml/install/mkman.sh
	@mkdir -p $(@D)
	sh uml/install/mkman.sh $(B)/bin/umkit '$(UMKIT_VERSION)' '$(UMKIT_DATE)' > $@.tmp
	@mv $@.tmp $@

# The labs' exercise programs, built from their solutions (labs/NN-NAME.c
# is NAME), so that an installed kit compiles nothing unless a student
# brings their own (lab-exbuild.c takes PREFIX/lib/umkit/exercise/NAME).
EX_SRCS		:= $(wildcard labs/[0-9]*-*.c)
EX_BINS		:= $(foreach s,$(EX_SRCS),$(B)/exercise/$(shell echo $(basename $(notdir $(s))) | sed 's/^[0-9]*-//'))
$(B)/exercise/%: $$(wildcard labs/[0-9]*-$$*.c)
	@mkdir -p $(@D)
	gcc -static -O2 -Wall -pthread -o $@ $<

# What install copies ('all' without its one kernel: 'kernels' has them).
I_BUILT		= $(B)/bin/umkit $(B)/bin/umkit-tui $(B)/bin/umkit-value $(ROOTFS) \
		  $(B)/man/umkit.1 $(EX_BINS)

# Files get their modes from install(1); no file is writable but by its
# owner, and nothing here is written at run time.  Programs are stripped
# (install -s); the kernels' symbols are kept in k/VARIANT/linux.debug.
install: $$(I_BUILT) kernels
	@test -n "$(PREFIX)" && case "$(PREFIX)" in /*) ;; *) false ;; esac || \
		{ echo "umkit: PREFIX=$(PREFIX): want an absolute path" >&2; exit 1; }
	install -d -m 755 $(I_BIN) $(I_LIB) $(I_LIB)/rootfs/bin $(I_LIB)/k \
		$(I_SHARE)/labs $(I_SHARE)/patches $(I_DOC)/docs $(I_MAN)
	install -s -m 755 $(B)/bin/umkit $(I_BIN)/umkit
	install -s -m 755 $(B)/bin/umkit-tui $(B)/bin/umkit-value $(I_LIB)/
	@for f in $(I_SCRIPTS); do install -D -m 755 $$f $(I_LIB)/$${f#uml/}; done
	@for f in $(I_DATA); do install -D -m 644 $$f $(I_LIB)/$${f#uml/}; done
	install -m 644 $(ROOTFS) $(I_LIB)/rootfs/
	install -s -m 755 $(GUEST_BINS) $(I_LIB)/rootfs/bin/
	@set -e; for v in $(INSTALL_VARIANTS); do \
		k=$(B)/k/$$v; d=$(I_LIB)/k/$$v; \
		$(LABEL) INSTALL "k/$$v"; \
		install -d -m 755 $$d; \
		objcopy --only-keep-debug $$k/linux $$d/linux.debug; \
		chmod 644 $$d/linux.debug; \
		objcopy --strip-all --add-gnu-debuglink=$$d/linux.debug $$k/linux $$d/linux; \
		chmod 755 $$d/linux; \
		install -m 644 $$k/obj/System.map $$d/System.map; \
		install -m 644 $$k/obj/.config $$d/config; \
	done
	install -m 644 labs/*.md labs/*.gdb labs/kernel-keys $(EX_SRCS) $(I_SHARE)/labs/
	@# the labs sealed: no plain choice answer or its explanation (lab-key.c)
	@set -e; for f in labs/*.lab; do \
		$(B)/bin/umkit lab --seal $$f > $(I_SHARE)/labs/$${f#labs/}.tmp; \
		chmod 644 $(I_SHARE)/labs/$${f#labs/}.tmp; \
		mv -f $(I_SHARE)/labs/$${f#labs/}.tmp $(I_SHARE)/labs/$${f#labs/}; \
	done
	install -d -m 755 $(I_LIB)/exercise
	install -s -m 755 $(EX_BINS) $(I_LIB)/exercise/
	@set -e; for v in $(INSTALL_VARIANTS); do \
		install -d -m 755 $(I_SHARE)/patches/$$v; \
		for f in patches/$$v/*; do install -m 644 $$f $(I_SHARE)/patches/$$v/; done; \
	done
	install -m 644 README $(I_DOC)/
	install -m 644 docs/*.md $(I_DOC)/docs/
	gzip -9n < $(B)/man/umkit.1 > $(I_MAN)/umkit.1.gz
	chmod 644 $(I_MAN)/umkit.1.gz
	echo 'umkit $(UMKIT_VERSION)' > $(I_LIB)/$(KIT_MARKER)
	chmod 644 $(I_LIB)/$(KIT_MARKER)
	@$(LABEL) INSTALLED "$(DESTDIR)$(PREFIX) ($$(du -sh $(I_LIB) | cut -f1) in lib/umkit)"

# What install put there (the directories PREFIX/bin, PREFIX/share/man
# stay, they are not the kit's).
uninstall:
	rm -f $(I_BIN)/umkit $(I_MAN)/umkit.1.gz
	rm -rf $(I_LIB) $(I_SHARE) $(I_DOC)

# ---- the Debian package ---------------------------------------------------
DEB_DIR		:= $(B)/deb
DEB_ARCH	:= $(shell dpkg --print-architecture 2>/dev/null)
DEB		:= $(DEB_DIR)/umkit_$(UMKIT_VERSION)_$(DEB_ARCH).deb

deb: $$(I_BUILT) kernels
	@rm -rf $(DEB_DIR)/debian $(DEB_DIR)/*.deb
	@$(MAKE) -s install DESTDIR=$(CURDIR)/$(DEB_DIR)/debian/umkit PREFIX=/usr KERNELS=asis
	sh uml/install/deb/mkdeb.sh $(DEB_DIR) '$(UMKIT_VERSION)' $(DEB)
	@$(LABEL) DEB "$(DEB) ($$(du -k $(DEB) | cut -f1) KiB)"

