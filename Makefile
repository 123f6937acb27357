# SPDX-License-Identifier: GPL-2.0-only
# umkit - User-Mode Linux kit for memory-management labs.
#
#   make            kernel (VARIANT, default base), rootfs, host tools
#   make run        boot the default kernel, mount the mirror, open the TUI
#                   on the first lab (umkit lab 1; LAB=N for another)
#   make test       all tests; ends with "N passed, N failed"
#   make bench      benchmarks, printing their figures
#   make fuzz       fuzz the protocol decoders and parsers, bounded time
#   make clean      build outputs;  make distclean  also source and caches
#   make install    PREFIX (/usr/local), DESTDIR: read-only, for all users
#   make deb        a Debian package (build/deb/umkit_VERSION_amd64.deb)
#
# Each part keeps its rules in its own directory (uml/uml.mk, rootfs/
# rootfs.mk, tui/tui.mk, tests/tests.mk); outputs go under build/.

.DELETE_ON_ERROR:
.SUFFIXES:
.SECONDEXPANSION:

VARIANT	?= base
B	:= build
CC	?= gcc
ifeq ($(CC),cc)
CC	:= gcc
endif

WARN	:= -Wall -Wextra -Wshadow -Wformat=2 -Wstrict-prototypes \
	   -Wmissing-prototypes -Wno-unused-parameter
# CI builds turn every warning into an error; so does 'make WERROR=1'.
ifneq ($(CI)$(WERROR),)
WARN	+= -Werror
endif
CFLAGS	?= -O2 -g
CFLAGS	+= -std=gnu11 $(WARN)
CPPFLAGS += -MMD -MP -iquote uml

# Debian packages: installed (root) or named (otherwise) before anything
# is compiled.  Not needed for cleaning, nor again in the sub-make of
# 'all'.
ifeq ($(filter clean distclean help uninstall,$(MAKECMDGOALS))$(UMKIT_DEPS_OK),)
ifneq ($(shell sh uml/install/deps.sh $(filter fuzz,$(MAKECMDGOALS)) >&2; echo $$?),0)
$(error missing packages (see above))
endif
endif

.PHONY: all all-parts run test bench fuzz clean distclean help kernel

# 'all' makes its parts (each part file adds to all-parts) in a sub-make
# with a job per core, so that the kit's programs compile while the
# kernel's source downloads, unpacks and is configured, when one core
# idles.  Each part's output comes out whole (-Otarget); the kernel's
# recipe is a '+' line, so its progress line stays live, and on a
# terminal the compile commands are not echoed (-s; V=1 echoes them), so
# that they do not break that line.  Under a make that is already
# parallel (make -jN) the sub-make shares its job slots.
NPROC	:= $(shell nproc 2>/dev/null || echo 2)
PARTS_MAKE = $(MAKE) --no-print-directory $(if $(findstring jobserver,$(MAKEFLAGS)),,-j$(NPROC)) \
		$(if $(V),,$(shell [ -t 2 ] && echo -s)) -Otarget UMKIT_DEPS_OK=1
all:
	+@$(PARTS_MAKE) all-parts

# A part's one-line label ("  ROOTFS  ..."): on a terminal it first clears
# the line, where another part's progress line ("downloading ... 45%")
# may stand; that line is drawn again on the next.
LABEL	= printf "$${MAKE_TERMOUT:+\r\033[K}  %-7s %s\n"

include uml/uml.mk
include rootfs/rootfs.mk
include tui/tui.mk
include tests/tests.mk
include uml/install/install.mk

# The main job: a guest, its mirror and the TUI on the first lab (needs a
# terminal).  LAB=N opens another one.
LAB	?= 1
run: all
	./umkit lab $(LAB)

clean:
	@if [ -d run ]; then ./umkit cleanup 2>/dev/null || true; fi
	rm -rf $(B) umkit

distclean: clean
	rm -rf run "$${UMKIT_CACHE:-$${XDG_CACHE_HOME:-$$HOME/.cache}/umkit}"

help:
	@sed -n '3,11p' Makefile | sed 's/^# //'
