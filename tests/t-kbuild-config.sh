#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# beside tests: configs in its own build directory
# t-kbuild-config.sh - step 2 of uml/kernel/kbuild.sh (--config): a config
# made once (tinyconfig, the fragments, olddefconfig: about 28 s) is kept
# by its inputs, and the next tree with the same inputs takes it from the
# cache, the same file; an entry that lost a requested value is not used.
# Each build directory and the cache are private, the cache empty: the
# first config is made (about 28 s), as a 'make -n' runs kbuild.sh
# (MAKEFLAGS=n: the '+' recipes of make test and make kernel still run),
# and must be make kernel's base's all the same: the make flags of its
# caller are not the kernel's (under 'make -n test' olddefconfig was once
# a dry run, and base built from tinyconfig's .config).
. "$(dirname "$0")/lib.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
uml/kernel/fetch-source.sh > /dev/null || { echo "1..0 # SKIP no kernel source"; exit 0; }
kc=$tmp/kc
mkdir -p $kc $tmp/patches/base
cp patches/base/series patches/base/*.patch $tmp/patches/base/
# kc N: kbuild.sh --config base in the private build directory N.
kc() { UMKIT_KCONFIG_CACHE=$kc UMKIT_PATCHES=$tmp/patches UMKIT_BUILD=$tmp/b$1 \
	uml/kernel/kbuild.sh --config base 2>&1; }
# from_cache N: the cache entry build N took its config from, if it did.
from_cache() { sed -n 's/^umkit: config from the cache: \([^ ]*\) .*/\1/p' $tmp/b$1/k/base/config.log; }

out=$(MAKEFLAGS=n kc 1); rc=$?
# A script beside this one (tests/run) may hold the fetch lock a moment.
out=$(printf '%s\n' "$out" | grep -vxF 'umkit: fetch-source: waiting for another fetch to finish')
is "kbuild.sh --config base, called as by a make -n: prints the .config" "$rc:$out" "0:$tmp/b1/k/base/obj/.config"
cfg1=$tmp/b1/k/base/obj/.config
check "... made, not taken from a cache (config.log is Kconfig's)" grep -q 'configuration written to' $tmp/b1/k/base/config.log
if [ -f build/k/base/obj/.config ]; then
	is "... the config of make kernel's base, MAKEFLAGS=n notwithstanding" "$(cmp $cfg1 build/k/base/obj/.config 2>&1)" ""
else
	skip "... the config of make kernel's base" "no build/k/base: make kernel"
fi
entry=$(for f in $kc/*.config; do cmp -s "$f" $cfg1 && echo "$f"; done | head -1)
check "... the cache holds it" [ -n "$entry" ]

out=$(kc 2); rc=$?
is "another tree with the same inputs" "$rc" 0
is "... takes its config from the cache (config.log)" "$(from_cache 2)" "$entry"
is "... the same file" "$(cmp $tmp/b2/k/base/obj/.config $cfg1 2>&1)" ""
check "... and no Kconfig pass ran (config.log is that one line)" \
	[ "$(wc -l < $tmp/b2/k/base/config.log)" -eq 1 ]

# An entry without a value the fragments ask for is not used: the tree
# is configured (here by a make that only says it ran and fails, without
# the sandbox, whose /tmp would hide it: exit 3 at once instead of the
# 28 s of a real config).
grep -v '^CONFIG_LRU_GEN=y$' "$entry" > $tmp/damaged && cp $tmp/damaged "$entry"
mkdir -p $tmp/fake
# (its --version is the real make's: the version is part of the key)
printf '#!/bin/sh\n[ "$1" != --version ] || exec %s --version\necho "$*" >> %s/make.ran\nexit 1\n' \
	"$(command -v make)" "$tmp" > $tmp/fake/make
chmod +x $tmp/fake/make
out=$(PATH=$tmp/fake:$PATH UMKIT_SANDBOX=off kc 3); rc=$?
is "an entry that lost CONFIG_LRU_GEN=y is not used: the tree is configured (exit 3 here)" "$rc" 3
like "... make ran for it (tinyconfig)" "$(cat $tmp/make.ran 2>&1)" 'tinyconfig'
is "... and config.log names no cache entry" "$(from_cache 3)" ""
done_testing
