#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# kernels: own
# t-kbuild-seed.sh - a variant's first build starts from a copy of another
# tree's objects when both have the same config (uml/kernel/kbuild.sh): only
# what its patches change is compiled, a header's dependents included;
# no path of the other tree is left in the copy; the other tree is not
# touched; the kernel boots with the change.
#
# In a build directory of its own (UMKIT_BUILD), whose base starts from
# the checkout's (UMKIT_SEED_FROM): a full build of it from ccache was
# 90 s of this test's 135-162 s.  (That a MAKEFLAGS=n caller configures
# as make kernel does: t-kbuild-config.)
. "$(dirname "$0")/lib.sh"

tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT INT TERM
b=$tmp/build
mkdir -p $tmp/patches/seeded
cp tests/fixtures/seed/0001-header-and-vmscan.patch $tmp/patches/seeded/
echo 0001-header-and-vmscan.patch > $tmp/patches/seeded/series
# kb VARIANT: kbuild.sh in the private build directory.
kb() { UMKIT_PATCHES=$tmp/patches UMKIT_BUILD=$b uml/kernel/kbuild.sh "$@"; }
# cc_of VARIANT: the objects its last build compiled.
cc_of() { awk '$1 == "CC" { print $2 }' $b/k/$1/build.log; }
# sums DIR: what the checks below must find unchanged in a built tree.
sums() { sha256sum "$1/obj/mm/vmscan.o" "$1/linux" 2>/dev/null | awk '{ print $1 }' | tr '\n' ' '; }

# base's first build here starts from the checkout's base (make kernel's:
# every make test builds it first), another build directory's tree.  It
# runs as a 'make -n' runs it (MAKEFLAGS=n: the '+' recipes of make test
# and make kernel still run): the make flags of its caller are not the
# kernel's.
mkdir -p $tmp/patches/base && cp patches/base/series patches/base/*.patch $tmp/patches/base/
top_base=$(sums "$TOP/build/k/base")
out=$(MAKEFLAGS=n UMKIT_SEED_FROM=/nonexistent:$TOP/build kb base 2>&1); rc=$?
is "base builds in a build directory of its own" "$rc" 0
if [ "$rc" != 0 ]; then
	echo "$out" | sed 's/^/# /'
	done_testing
	exit 0
fi
if [ -f "$TOP/build/k/base/linux" ]; then
	like "... from the objects of the checkout's base (UMKIT_SEED_FROM)" "$out" \
		"variant base: first build from $TOP/build/k/base's objects \(same config\)"
	is "... compiling nothing but the version stamp" "$(cc_of base | grep -v '^init/version' | grep -c '\.o$')" 0
	is "... no file of it names the checkout's tree" \
		"$(grep -rlI -F "$TOP/build/k/base/" $b/k/base/obj 2>/dev/null | head -3)" ""
	is "... the checkout's base untouched" "$(sums "$TOP/build/k/base")" "$top_base"
	is "... configured as make kernel's base" "$(diff "$TOP/build/k/base/obj/.config" $b/k/base/obj/.config | head -5)" ""
else
	skip "... from the objects of the checkout's base (UMKIT_SEED_FROM)" "no build/k/base: make kernel"
fi
vmscan_o=$(sha256sum < $b/k/base/obj/mm/vmscan.o)
base_k=$(sha256sum < $b/k/base/linux)

# On a terminal (script(1) gives it one), and under a make -s that
# called it (MAKEFLAGS=s: the kernel's log must still list its objects).
out=$(MAKEFLAGS=s script -qec "UMKIT_PATCHES=$tmp/patches UMKIT_BUILD=$b uml/kernel/kbuild.sh seeded" /dev/null 2>&1); rc=$?
is "the variant builds" "$rc" 0
like "... on a terminal, one updating line of the objects compiled" "$out" \
	'umkit: building seeded: [0-9]+ objects, [0-9]+s'
like "its first build says it starts from base's objects" "$out" \
	"variant seeded: first build from base's objects \(same config\)"
cc=$(cc_of seeded)
like "the patched .c file is compiled" "$cc" '^mm/vmscan\.o$'
like "an object including the patched header is compiled (mm/zsmalloc.o)" "$cc" '^mm/zsmalloc\.o$'
like "... and the other one (drivers/block/zram/zram_drv.o)" "$cc" '^drivers/block/zram/zram_drv\.o$'
n=$(echo "$cc" | grep -c '\.o$')
check "nothing else is compiled but the version stamp ($n objects: $(echo $cc | cut -c1-200))" \
	[ "$n" -le 4 ]
left=$(grep -rlI -F "$b/k/base/" $b/k/seeded/obj 2>/dev/null | head -3)
is "no file of the copy names base's tree" "$left" ""
is "obj/source is this tree's" "$(readlink $b/k/seeded/obj/source)" "$(cd $b/k/seeded/src && pwd -P)"
is "base's objects are untouched" "$(sha256sum < $b/k/base/obj/mm/vmscan.o)" "$vmscan_o"
is "base's kernel is untouched" "$(sha256sum < $b/k/base/linux)" "$base_k"

is "... and the count is kept for the next build's line (of ~N)" \
	"$(cat $b/k/seeded/.umkit-objects 2>&1)" "$(grep -c '^  CC ' $b/k/seeded/build.log)"

# The copy is a tree like any other: nothing to do the second time,
# not even make's walk of the tree.
out=$(kb seeded 2>&1)
is "a second build of it compiles nothing" "$(cc_of seeded | grep -c '\.o$')" 0
like "... and runs no make (its record is newer than every file)" "$(cat $b/k/seeded/build.log)" \
	'^umkit: variant seeded: up to date .*: make not run$'
out=$(kb base 2>&1)
is "nor does base's" "$(cc_of base | grep -c '\.o$')" 0
# A hand edit of the tree, or of obj/, is newer than the record: make
# runs and compiles what it changed.  (base's patched file, a copy of
# its own: the tree's other files are hard links to the pristine source.
# base is edited by hand below anyway.)
touch $b/k/base/src/arch/um/kernel/tlb.c
out=$(kb base 2>&1)
is "after a hand edit (touch arch/um/kernel/tlb.c), make compiles that file" \
	"$(cc_of base | grep -x 'arch/um/kernel/tlb.o')" arch/um/kernel/tlb.o
rm $b/k/seeded/obj/mm/vmscan.o
out=$(kb seeded 2>&1)
is "... an object removed from obj/ is made again" "$(cc_of seeded | grep -x 'mm/vmscan.o')" mm/vmscan.o

out=$("$UMKIT" exec -k $b/k/seeded/linux -- dmesg 2>&1); rc=$?
is "its kernel boots" "$rc" 0
like "... with the patch in it" "$out" 'umkit-smoke: kswapd_init runs \(test fixture\)'

# A tree somebody edited by hand (a file newer than its stamp) is no
# seed: its objects are not what its patches say.  Any other tree with
# the config is one (seeded, whose patched files early gets fresh
# copies of).  (The variant stops at
# its first object, init/main.o, with an #error: the choice is made
# before make starts.)
src=$(uml/kernel/fetch-source.sh)
mkdir -p $tmp/patches/early $tmp/m
sed '1i #error umkit seed test' "$src/init/main.c" > $tmp/m/main.c
diff -u --label a/init/main.c --label b/init/main.c "$src/init/main.c" $tmp/m/main.c \
	> $tmp/patches/early/0001-early.patch
echo 0001-early.patch > $tmp/patches/early/series
cp $b/k/base/src/mm/swap.c $tmp/m/swap.c && rm -f $b/k/base/src/mm/swap.c &&
	cp $tmp/m/swap.c $b/k/base/src/mm/swap.c
out=$(kb early 2>&1); rc=$?
is "after a hand edit of base's tree, a new variant ... fails at its #error (exit 4)" "$rc" 4
case $out in
*"first build from base's"*) not_ok "... and did not start from base's objects" ;;
*) ok "... and did not start from base's objects" ;;
esac
like "... but from the other tree with that config" "$out" "first build from seeded's objects"

done_testing
