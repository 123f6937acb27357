#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# kernels: own
# Variants: a patch that does not apply fails cleanly, naming the patch
# and hunk, and touches neither the pristine tree nor the base build; an
# option that cannot be set is reported by name.  No kernel is compiled.
. "$(dirname "$0")/lib.sh"

tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
pristine=$(uml/kernel/fetch-source.sh)
base="$TOP/build/k/base/linux"
base_sum=$(sha256sum < "$base" 2>/dev/null)
mm_sum=$(sha256sum < "$pristine/mm/vmscan.c")

out=$("$UMKIT" variants 2>&1)
like "'umkit variants' lists base with its description" "$out" '^base +(built|-) +The Linux 7\.2 tree with the kit.s configuration and base.s own fixes'

# A two-patch series whose second patch does not apply.
mkdir -p "$tmp/patches/broken"
cat > "$tmp/patches/broken/series" <<'S'
# first applies, second does not
0001-good.patch
0002-bad.patch
S
( cd "$tmp" && mkdir a b && cp "$pristine/mm/vmscan.c" a/ && cp a/vmscan.c b/ &&
  sed -i '1s/^/\/\/ umkit test\n/' b/vmscan.c &&
  diff -u a/vmscan.c b/vmscan.c | sed 's#^--- a/#--- a/mm/#; s#^+++ b/#+++ b/mm/#' \
	> patches/broken/0001-good.patch )
cat > "$tmp/patches/broken/0002-bad.patch" <<'P'
--- a/mm/compaction.c
+++ b/mm/compaction.c
@@ -1,3 +1,3 @@
-this line is not in compaction.c
+neither is this one
 nor this
 or this
P
out=$(UMKIT_PATCHES="$tmp/patches" UMKIT_BUILD="$tmp/build" uml/kernel/kbuild.sh broken 2>&1)
rc=$?
is "a failing patch exits with status 2" "$rc" 2
like "the error names the variant and the patch file" "$out" 'variant broken: patch .*0002-bad.patch does not apply'
like "the error names the failing hunk" "$out" 'Hunk #1 FAILED'
if [ -e "$tmp/build/k/broken/src" ] || [ -e "$tmp/build/k/broken/src.new" ]; then
	not_ok "no half-patched tree is left" "$(ls "$tmp/build/k/broken")"
else ok "no half-patched tree is left"; fi
is "the pristine tree is untouched" "$(sha256sum < "$pristine/mm/vmscan.c")" "$mm_sum"
is "the base kernel is untouched" "$(sha256sum < "$base" 2>/dev/null)" "$base_sum"

# A missing patch file named in the series.
mkdir -p "$tmp/patches/missing"
echo "0001-nowhere.patch" > "$tmp/patches/missing/series"
out=$(UMKIT_PATCHES="$tmp/patches" UMKIT_BUILD="$tmp/build" uml/kernel/kbuild.sh missing 2>&1)
rc=$?
is "a missing patch file exits with status 2" "$rc" 2
like "a missing patch file is named" "$out" 'series names 0001-nowhere.patch'
is "and it is the only error" "$(printf '%s\n' "$out" | grep -c '^umkit:')" 1
if [ -e "$tmp/build/k/missing/src" ]; then not_ok "no tree is made for it"
else ok "no tree is made for it"; fi

# A build with nothing to do keeps the kernel binary as it was.
ident() { stat -c '%i %.9Y' "$1" 2>/dev/null; }
if [ -x "$base" ]; then
	uml/kernel/kbuild.sh base >/dev/null 2>&1	# records where the binary came from
	b=$(ident "$base")
	uml/kernel/kbuild.sh base >/dev/null 2>&1
	is "a no-change build keeps build/k/base/linux (same inode and mtime)" \
		"$(ident "$base")" "$b"
else skip "a no-change build keeps the kernel" "no base kernel (make kernel)"; fi

# fetch-source.sh waits for a fetch in progress (its lock) before looking
# at the cache: the holder's line comes first.
cache=${UMKIT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/umkit}
( exec 7>"$cache/fetch.lock"; flock 7; : > "$tmp/locked"; sleep 3
  echo holder >> "$tmp/order" ) &
while [ ! -e "$tmp/locked" ]; do sleep 0.05; done
uml/kernel/fetch-source.sh >/dev/null 2>"$tmp/fetch.err" && echo fetch >> "$tmp/order"
wait
is "fetch-source.sh waits for the fetch lock" "$(cat "$tmp/order" | tr '\n' ' ')" "holder fetch "
like "and says it waits" "$(cat "$tmp/fetch.err")" 'waiting for another fetch'

# An option UML cannot have (THP) and one that does not exist.
mkdir -p "$tmp/patches/badcfg"
: > "$tmp/patches/badcfg/series"
printf 'CONFIG_TRANSPARENT_HUGEPAGE=y\nCONFIG_UMKIT_NO_SUCH_OPTION=y\n' > "$tmp/patches/badcfg/config"
out=$(UMKIT_PATCHES="$tmp/patches" UMKIT_BUILD="$tmp/build" uml/kernel/kbuild.sh badcfg 2>&1)
rc=$?
is "options that do not stick exit with status 3" "$rc" 3
like "TRANSPARENT_HUGEPAGE is reported by name" "$out" 'CONFIG_TRANSPARENT_HUGEPAGE=y \(got n\)'
like "an unknown option is reported by name" "$out" 'CONFIG_UMKIT_NO_SUCH_OPTION=y'
if [ -e "$tmp/build/k/badcfg/linux" ]; then not_ok "no kernel is produced"; else ok "no kernel is produced"; fi

# Base's series goes under every variant's own: the badcfg tree above
# (its tree is made before its config fails) has base's patched files,
# and a base series of its own (UMKIT_PATCHES/base) makes the tree again.
t="$tmp/build/k/badcfg/src"
like "a variant's tree has base's patches applied first (patches/base/series)" \
	"$(cat "$t/.umkit-patched" 2>&1)" '^arch/um/kernel/tlb\.c$'
like "base's A-bit fix is in its tlb.c" "$(grep -n 'x = 0;' "$t/arch/um/kernel/tlb.c" 2>&1)" '^[0-9]+:'
mkdir -p "$tmp/patches/base"
: > "$tmp/patches/base/series"
UMKIT_PATCHES="$tmp/patches" UMKIT_BUILD="$tmp/build" uml/kernel/kbuild.sh badcfg >/dev/null 2>&1
is "an empty base series makes the tree again without it" \
	"$(grep -c 'x = 0;' "$t/arch/um/kernel/tlb.c" 2>&1)" 0
printf '0001-nowhere.patch\n' > "$tmp/patches/base/series"
out=$(UMKIT_PATCHES="$tmp/patches" UMKIT_BUILD="$tmp/build" uml/kernel/kbuild.sh badcfg 2>&1)
is "a base series naming a missing patch exits with status 2" "$?" 2
like "and names base's series" "$out" "series names 0001-nowhere.patch, which is not in $tmp/patches/base/"

# The kit's own fragment: every option sticks and HOSTFS is off.
cfg="$TOP/build/k/base/obj/.config"
like "base config has SMP, LRU_GEN_ENABLED and compaction" \
	"$(grep -E '^CONFIG_(SMP|LRU_GEN_ENABLED|COMPACTION)=y' "$cfg" | sort | tr '\n' ' ')" \
	'COMPACTION=y CONFIG_LRU_GEN_ENABLED=y CONFIG_SMP=y'
like "base config has HOSTFS off" "$(grep HOSTFS "$cfg")" '# CONFIG_HOSTFS is not set'

# KSRC pointing at something that is not a kernel tree.
out=$(KSRC="$tmp" uml/kernel/kbuild.sh base 2>&1)
like "KSRC that is not a tree is refused by name" "$out" "KSRC=$tmp is not a Linux source tree"

done_testing
