#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# beside tests: trees in its own build directory
# t-kbuild-tree.sh - step 1 of uml/kernel/kbuild.sh (--tree): a variant's
# tree is a hard-link farm of the pristine source made whole once; a new
# series on the same source changes only the files either series touches
# (the two patches of one file both applied, a file the old series made
# removed, the old series' files back to the pristine text), and a patch
# that does not apply, or a move cut short, leaves nothing half-made.
. "$(dirname "$0")/lib.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
src=$(uml/kernel/fetch-source.sh) || { echo "1..0 # SKIP no kernel source"; exit 0; }
b=$tmp/build v=$tmp/patches/v
mkdir -p $v $tmp/m
# kb ARGS: kbuild.sh in the private build and patches directories.
kb() { UMKIT_PATCHES=$tmp/patches UMKIT_BUILD=$b uml/kernel/kbuild.sh "$@"; }
# mkpatch NAME FILE SED: a patch of FILE (as the previous patches left it
# in $tmp/m) by the sed script SED.
mkpatch() {
	[ -f "$tmp/m/$2" ] || { mkdir -p "$(dirname "$tmp/m/$2")"; cp "$src/$2" "$tmp/m/$2"; }
	sed "$3" "$tmp/m/$2" > $tmp/new
	diff -u --label "a/$2" --label "b/$2" "$tmp/m/$2" $tmp/new > $v/$1
	mv $tmp/new "$tmp/m/$2"
}
mkpatch 1-vmscan.patch mm/vmscan.c '1a /* umkit tree test: one */'
mkpatch 2-swap.patch mm/swap.c '1a /* umkit tree test: two */'
mkpatch 3-swap.patch mm/swap.c '3a /* umkit tree test: three */'
printf '// SPDX-License-Identifier: GPL-2.0-only\n/* umkit tree test: new */\n' > $tmp/m/new.c
diff -u --label /dev/null --label b/mm/umkit-new.c /dev/null $tmp/m/new.c > $v/4-new.patch
t=$b/k/v/src

echo 1-vmscan.patch > $v/series
out=$(kb --tree v 2>&1); rc=$?
# A script beside this one (tests/run) may hold the fetch lock a moment.
out=$(printf '%s\n' "$out" | grep -vxF 'umkit: fetch-source: waiting for another fetch to finish')
is "a first tree is made (kbuild.sh --tree)" "$rc:$out" "0:$t"
grep -q 'umkit tree test: one' $t/mm/vmscan.c
is "... with its patch" "$?" 0
is "... from the pristine source: a file no patch touches is a hard link to it" \
	"$(stat -c %i $t/mm/filemap.c)" "$(stat -c %i "$src/mm/filemap.c")"
ino=$(stat -c %i $t)
tlb=$(stat -c %Y.%y $t/arch/um/kernel/tlb.c)

printf '2-swap.patch\n3-swap.patch\n4-new.patch\n' > $v/series
out=$(kb --tree v 2>&1); rc=$?
is "a new series on the same source" "$rc" 0
is "... changes the tree in place (the directory is the same one)" "$(stat -c %i $t)" "$ino"
is "... the old series' file has the pristine text again" "$(cmp $t/mm/vmscan.c "$src/mm/vmscan.c" 2>&1)" ""
is "... and both patches of one file are in it" \
	"$(grep -c 'umkit tree test: \(two\|three\)' $t/mm/swap.c)" 2
check "... a file the series makes is there" grep -q 'umkit tree test: new' $t/mm/umkit-new.c
# base's own files (patches/base, under every series) are listed too
sed -n 's|^+++ b/||p' patches/base/*.patch | sort -u > $tmp/basefiles
is "... the files the series changes are listed" \
	"$(sort -u $t/.umkit-patched | grep -vxF -f $tmp/basefiles | tr '\n' ' ')" \
	"mm/swap.c mm/umkit-new.c "
is "... and every file of base's" "$(sort -u $t/.umkit-patched | grep -cxF -f $tmp/basefiles)" \
	"$(wc -l < $tmp/basefiles)"
is "... an untouched file is still a link to the pristine one" \
	"$(stat -c %i $t/mm/filemap.c)" "$(stat -c %i "$src/mm/filemap.c")"
is "... base's patched file, the same in both series, keeps its time (nothing to rebuild)" \
	"$(stat -c %Y.%y $t/arch/um/kernel/tlb.c)" "$tlb"
is "... nothing is left beside it" "$(ls $b/k/v | grep -c new)" 0
is "... and the pristine source is untouched" "$(grep -c 'umkit tree test' "$src/mm/swap.c" "$src/mm/vmscan.c")" \
	"$src/mm/swap.c:0
$src/mm/vmscan.c:0"

# A patch that does not apply: exit 2, the tree as it was.
sed 's/umkit tree test: one/umkit tree test: ONE/' $v/1-vmscan.patch |
	sed 's/^ \(.*\)$/ \1 nope/' > $v/5-bad.patch
stamp=$(cat $t/.umkit-stamp)
sum=$(cat $t/mm/swap.c $t/mm/umkit-new.c $t/mm/vmscan.c | sha256sum)
printf '1-vmscan.patch\n5-bad.patch\n' > $v/series
out=$(kb --tree v 2>&1); rc=$?
is "a series with a patch that does not apply: exit 2" "$rc" 2
like "... named" "$out" "patch .*5-bad.patch does not apply"
is "... the tree keeps its stamp" "$(cat $t/.umkit-stamp)" "$stamp"
is "... and its files" "$(cat $t/mm/swap.c $t/mm/umkit-new.c $t/mm/vmscan.c | sha256sum)" "$sum"
is "... no stage is left" "$(ls $b/k/v | grep -c new)" 0

echo 1-vmscan.patch > $v/series
out=$(kb --tree v 2>&1); rc=$?
is "back to the first series" "$rc" 0
check "... the file the other one made is gone" test ! -e $t/mm/umkit-new.c
is "... the other one's file has the pristine text" "$(cmp $t/mm/swap.c "$src/mm/swap.c" 2>&1)" ""
is "... and the tree is the same directory" "$(stat -c %i $t)" "$ino"

# A move cut short (the stamp goes first): the next build makes the
# tree whole again.
rm $t/.umkit-stamp
echo 'half moved' > $t/mm/swap.c
printf '2-swap.patch\n' > $v/series
out=$(kb --tree v 2>&1); rc=$?
is "a tree without its stamp" "$rc" 0
check "... is made whole again (a new directory)" [ "$(stat -c %i $t)" != "$ino" ]
is "... its files from the pristine source and the series" "$(grep -c 'half moved\|umkit tree test: two' $t/mm/swap.c)" 1
is "... the other series' file pristine" "$(cmp $t/mm/vmscan.c "$src/mm/vmscan.c" 2>&1)" ""

done_testing
