#!/bin/sh
# t-smoke.sh - umkit smoke: every input form of one small mm/ change gives
# the same variant and result; a patch that does not apply, does not
# build, WARNs at boot or panics at boot fails with the named stage and
# its evidence; a path leaving the tree and a thread with a missing part
# are refused before anything is applied; nothing is left behind.
#
# Kernel builds: the fixtures all change mm/vmscan.c, and smoke variants
# share one tree (build/k/smoke-tree), so each is a one-file rebuild.
. "$(dirname "$0")/lib.sh"
F=tests/fixtures/smoke
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

# --- the input forms: one hash ---------------------------------------------
want=$("$UMKIT" smoke --hash $F/good.patch | sed -n 's/.*variant \(smoke-[0-9a-f]*\).*/\1/p')
like "a patch file makes a smoke-HASH variant" "$want" '^smoke-[0-9a-f]{12}$'
for form in quilt fp thread.mbox; do
	got=$("$UMKIT" smoke --hash $F/$form | sed -n 's/.*variant \(smoke-[0-9a-f]*\).*/\1/p')
	is "input form $form gives the same variant" "$got" "$want"
done
got=$("$UMKIT" smoke --hash - < $F/good.patch | sed -n 's/.*variant \(smoke-[0-9a-f]*\).*/\1/p')
is "stdin gives the same variant" "$got" "$want"
# A git tree holding the change as a commit (only mm/vmscan.c in it).
src=$(uml/fetch-source.sh)
g=$tmp/git
mkdir -p $g/mm && cp "$src/mm/vmscan.c" $g/mm/ &&
	git -C $g init -q && git -C $g add . &&
	git -C $g -c user.name=t -c user.email=t@t commit -qm base &&
	git -C $g -c user.name=t -c user.email=t@t am -q "$PWD/$F/fp/0001-mm-vmscan-say-hello-from-kswapd_init.patch"
got=$("$UMKIT" smoke --hash --git $g HEAD~1..HEAD | sed -n 's/.*variant \(smoke-[0-9a-f]*\).*/\1/p')
is "a git commit range gives the same variant" "$got" "$want"

# --- refused before anything is applied ------------------------------------
printf -- '--- a/../../etc/x\n+++ b/../../etc/x\n@@ -1 +1 @@\n-a\n+b\n' > $tmp/out.patch
nsm=$(ls build/smoke | wc -l)
out=$("$UMKIT" smoke $tmp/out.patch 2>&1); rc=$?
is "a path leaving the tree: exit 2" "$rc" 2
like "... named" "$out" "input +FAIL: .*leaves the tree"
is "... and no variant was written" "$(ls build/smoke | wc -l)" "$nsm"
# thread.mbox minus its patch: a cover letter of 1 with part 1 missing.
sed '/^Subject: \[PATCH 0\/1\]/s/0\/1/0\/2/' $F/thread.mbox > $tmp/missing.mbox
out=$("$UMKIT" smoke $tmp/missing.mbox 2>&1); rc=$?
is "a thread with a part missing: exit 2" "$rc" 2
like "... the missing part named" "$out" 'PATCH 1/2|PATCH 2/2\] is missing|does not belong'

# --- a good patch: every stage -------------------------------------------
out=$("$UMKIT" smoke --labs none --run 'dmesg | grep -q umkit-smoke' $F/good.patch 2>&1); rc=$?
is "a good patch passes: exit 0" "$rc" 0
like "... stages named" "$out" 'smoke: apply +ok'
like "... build" "$out" 'smoke: build +ok'
like "... boot clean" "$out" 'smoke: boot +ok .*no kernel reports'
like "... the reproducer ran on both (base lacks the line, the patch has it)" "$out" \
	"smoke: run +ok: .*base status 1, 0 reports; patched status 0, 0 reports"
like "... PASS" "$out" "smoke: PASS $want"
out2=$("$UMKIT" smoke --labs none --run 'dmesg | grep -q umkit-smoke' $F/thread.mbox 2>&1); rc=$?
is "the thread form: the same result" "$rc:$(printf '%s\n' "$out2" | grep -c 'ok')" \
	"0:$(printf '%s\n' "$out" | grep -c 'ok')"

# --- failures, each with its stage and evidence ----------------------------
out=$("$UMKIT" smoke $F/noapply.patch 2>&1); rc=$?
is "a patch that does not apply: exit 3" "$rc" 3
like "... stage apply" "$out" 'smoke: apply +FAIL'
like "... the file and hunk named" "$out" 'patching file mm/vmscan.c'
like "... hunk" "$out" 'Hunk #1 FAILED'
like "... the input it came from" "$out" "from $F/noapply.patch"

out=$("$UMKIT" smoke $F/nobuild.patch 2>&1); rc=$?
is "a patch that does not build: exit 4" "$rc" 4
like "... stage build, the compiler's file:line" "$out" 'mm/vmscan.c:[0-9]+:[0-9]+: error'

out=$("$UMKIT" smoke --labs none $F/warn.patch 2>&1); rc=$?
is "a patch that WARNs at boot: exit 5" "$rc" 5
like "... stage boot, the WARNING shown" "$out" 'smoke: boot +FAIL.*report'
like "... the report's line" "$out" 'WARNING: .*mm/vmscan.c'

out=$("$UMKIT" smoke --labs none $F/panic.patch 2>&1); rc=$?
is "a patch that panics at boot: exit 5" "$rc" 5
like "... stage boot, the panic shown" "$out" 'smoke: boot +FAIL: the kernel panicked'
like "... its message" "$out" 'umkit smoke fixture: panic at boot'

no_leftovers "no UML process, mount or run/ entry left"
is "no half-made tree left" "$(ls -d build/k/*/src.new build/smoke/*.tmp-* 2>/dev/null)" ""
done_testing
