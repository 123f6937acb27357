#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# kernels: lru-batch own
# t-smoke.sh - umkit smoke: every input form of one small mm/ change gives
# the same variant and result; a patch that does not apply, does not
# build, WARNs at boot or panics at boot fails with the named stage and
# its evidence; a path leaving the tree and a thread with a missing part
# are refused before anything is applied; the bench stage's table, JSON,
# JUnit and KTAP are checked with parsers (python3's json, xmllint), the
# charts of --plot and umkit plot by PNG magic and xmllint; umkit compare
# finds a known effect (2 ms more per new mm: fork slower, marked and
# called worse); nothing is left behind.
#
# make test runs the quick part; SMOKE_FULL=1 (make test-smoke) adds the
# long one: the thread form with every lab's checks, the WARN at boot and
# the known effect (each of those is a SKIP naming make test-smoke here).
#
# Kernel builds: the fixtures all change mm/vmscan.c, and smoke variants
# share one tree (build/k/smoke-tree), so each is a one-file rebuild.
. "$(dirname "$0")/lib.sh"
# full: the long part runs (SMOKE_FULL=1); else its checks are SKIPs.
full() { [ -n "${SMOKE_FULL:-}" ]; }
t0=$(date +%s)
# section NAME: a comment line with the seconds spent so far.
section() { echo "# [$(( $(date +%s) - t0 )) s] $1"; }
F=tests/fixtures/smoke
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
# png_ok FILE: the file starts with PNG's magic bytes.
png_ok() { [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; }

# --- umkit plot: a recording's time series --------------------------------
section "umkit plot"
"$UMKIT" record tests/fixtures/guest $tmp/rec --every 100 --for 1 >/dev/null 2>&1
out=$("$UMKIT" plot $tmp/rec $tmp/recplots 2>&1); rc=$?
is "umkit plot RECORDING: exit 0" "$rc" 0
like "... says what it drew" "$out" 'plot: [0-9]+ snapshots; charts in'
check "... memory.png is a PNG" png_ok $tmp/recplots/memory.png
check "... lru_gen.svg is well-formed SVG" xmllint --noout $tmp/recplots/lru_gen.svg
check "... compaction.svg too" xmllint --noout $tmp/recplots/compaction.svg

out=$("$UMKIT" plot --bogus 2>&1); rc=$?
like "umkit plot --bogus: exit 125, the option named" "$rc:$out" "^125:plot: unrecognized option '--bogus'"

# --- the input forms: one hash ---------------------------------------------
section "input forms"
want=$("$UMKIT" smoke --hash $F/good.patch | sed -n 's/.*variant \(smoke-[0-9a-f]*\).*/\1/p')
like "a patch file makes a smoke-HASH variant" "$want" '^smoke-[0-9a-f]{12}$'
for form in quilt fp thread.mbox; do
	got=$("$UMKIT" smoke --hash $F/$form | sed -n 's/.*variant \(smoke-[0-9a-f]*\).*/\1/p')
	is "input form $form gives the same variant" "$got" "$want"
done
got=$("$UMKIT" smoke --hash - < $F/good.patch | sed -n 's/.*variant \(smoke-[0-9a-f]*\).*/\1/p')
is "stdin gives the same variant" "$got" "$want"
# A git tree holding the change as a commit (only mm/vmscan.c in it).
src=$(uml/kernel/fetch-source.sh)
g=$tmp/git
mkdir -p $g/mm && cp "$src/mm/vmscan.c" $g/mm/ &&
	git -C $g init -q && git -C $g add . &&
	git -C $g -c user.name=t -c user.email=t@t commit -qm base &&
	git -C $g -c user.name=t -c user.email=t@t am -q "$PWD/$F/fp/0001-mm-vmscan-say-hello-from-kswapd_init.patch"
got=$("$UMKIT" smoke --hash --git $g HEAD~1..HEAD | sed -n 's/.*variant \(smoke-[0-9a-f]*\).*/\1/p')
is "a git commit range gives the same variant" "$got" "$want"
# Patch files of a two-patch series, as git format-patch writes them.
sed -i '1a /* umkit: a second patch */' $g/mm/vmscan.c &&
	git -C $g -c user.name=t -c user.email=t@t commit -qam "mm/vmscan: a comment" &&
	git -C $g format-patch -q -2 -o $tmp/ser &&
	git -C $g format-patch -q --stdout -2 > $tmp/ser.mbox
p1=$(ls $tmp/ser/0001-*) p2=$(ls $tmp/ser/0002-*)
v2() { "$UMKIT" smoke --hash "$@" 2>&1; }
vid() { printf '%s\n' "$1" | sed -n 's/.*variant \(smoke-[0-9a-f]*\).*/\1/p'; }
out=$(v2 $p1 $p2); rc=$?
two=$(vid "$out")
like "smoke 0001.patch 0002.patch (one series in two files): one variant of 2 patches" \
	"$rc:$(printf '%s\n' "$out" | grep 'input  ok')" '^0:.*ok: 2 patches'
is "... the same variant as the series' mbox" "$(vid "$(v2 $tmp/ser.mbox)")" "$two"
is "... and as the files given the other way round (n/m order)" "$(vid "$(v2 $p2 $p1)")" "$two"
out=$(v2 $p1); rc=$?
is "a lone [PATCH 1/2] file: accepted, the same variant as its diff alone" "$rc:$(vid "$out")" "0:$want"
like "... the part not given named in one line" "$out" \
	'input +note: not given: \[PATCH 2/2\] of the series of 2'
# The thread without its second part: refused, and taken with --partial.
git -C $g format-patch -q --stdout --cover-letter -2 | awk '/^From [0-9a-f]+ /{n++} n<=2' > $tmp/half.mbox
out=$(v2 $tmp/half.mbox); rc=$?
like "a thread (cover letter and 1/2) without 2/2: refused, exit 2, naming --partial" \
	"$rc:$out" '^2:.*\[PATCH 2/2\] is missing \(--partial'
out=$(v2 --partial $tmp/half.mbox); rc=$?
is "... with --partial: the part it has (the same variant)" "$rc:$(vid "$out")" "0:$want"
like "... and the part missing named" "$out" "note: $tmp/half.mbox: not there: \[PATCH 2/2\]"

# --- refused before anything is applied ------------------------------------
printf -- '--- a/../../etc/x\n+++ b/../../etc/x\n@@ -1 +1 @@\n-a\n+b\n' > $tmp/out.patch
nsm=$(ls build/smoke | wc -l)
out=$("$UMKIT" smoke --bench none $tmp/out.patch 2>&1); rc=$?
is "a path leaving the tree: exit 2" "$rc" 2
like "... named" "$out" "input +FAIL: .*leaves the tree"
is "... and no variant was written" "$(ls build/smoke | wc -l)" "$nsm"
printf 'garbage\n\001\002\n' > $tmp/garbage.patch
out=$("$UMKIT" smoke --bench none $tmp/garbage.patch 2>&1); rc=$?
like "a file with no patch in it: exit 2, the file named" "$rc:$out" "^2:smoke: input +FAIL: $tmp/garbage.patch: no patch found"
out=$("$UMKIT" smoke --hash $F/good.patch $tmp/garbage.patch 2>&1); rc=$?
like "... also among patch files: exit 2, that file named" "$rc:$out" "^2:smoke: input +FAIL: $tmp/garbage.patch: no patch found"
out=$("$UMKIT" smoke --hash $F/fp/*.patch 2>&1); rc=$?
is "format-patch files with their cover letter (*.patch): the cover letter skipped" \
	"$rc:$(vid "$out")" "0:$want"
# thread.mbox with its patch renumbered 1/2: part 2/2 is missing.
sed 's/^Subject: \[PATCH 1\/1\]/Subject: [PATCH 1\/2]/' $F/thread.mbox > $tmp/missing.mbox
out=$("$UMKIT" smoke --bench none $tmp/missing.mbox 2>&1); rc=$?
is "a thread with a part missing: exit 2" "$rc" 2
like "... the missing part named" "$out" 'PATCH 1/2|PATCH 2/2\] is missing|does not belong'

# --- a good patch: every stage -------------------------------------------
section "a good patch"
# With two boots per kernel of procbench, and every report format.
out=$("$UMKIT" smoke --labs none --run 'dmesg | grep -q umkit-smoke' -n 2 --bench procbench \
	--json $tmp/r.json --junit $tmp/r.xml --ktap $F/good.patch 2>&1); rc=$?
is "a good patch passes: exit 0" "$rc" 0
like "... stages named" "$out" 'smoke: apply +ok'
like "... build" "$out" 'smoke: build +ok'
like "... boot clean" "$out" 'smoke: boot +ok .*no kernel reports'
like "... the reproducer ran on both (base lacks the line, the patch has it)" "$out" \
	"smoke: run +ok: .*base status 1, 0 reports; patched status 0, 0 reports"
like "... PASS" "$out" "smoke: PASS $want"
like "... the bench table, lkp-style" "$out" '%change .* metric'
like "... a fork line" "$out" '[0-9.]+ +±[0-9]+% +[-+][0-9.]+%.* procbench.fork_us'
like "... the legend: 2 boots per side, procbench's rows 4" "$out" \
	"2 boots per side, interleaved \\(procbench's rows: 4, the boots beyond those running it alone\\);"
like "... and the stage says so" "$out" 'smoke: bench +ok: procbench, 2 boots per kernel and procbench alone in as many more'
like "... 8 boots in all: 2 + 2 a side" "$out" 'bench: 8 boots in '
check "... --json parses, 4 samples per side (2 + 2 alone)" python3 -c "import json,sys; d=json.load(open('$tmp/r.json')); m=d['metrics']['procbench.fork_us']['samples']; sys.exit(0 if len(m[0])==4 and len(m[1])==4 and d['kernels'][0]['host'] else 1)"
check "... --json has the verdict and each file's state" python3 -c "import json,sys; d=json.load(open('$tmp/r.json')); f=d['files']; sys.exit(0 if d['verdict']=='PASS' and len(f)==1 and f[0]['file']=='mm/vmscan.c' and f[0]['state']=='built' and [x['name'] for x in d['stages']][3]=='tested' else 1)"
check "... --junit is well-formed XML" xmllint --noout $tmp/r.xml
is "... --junit has a testcase per stage" "$(xmllint --xpath 'count(//testcase)' $tmp/r.xml)" 7
like "... what the build tested: its file, with its object" "$out" 'smoke: tested ok: 1 of 1 code file built into this kernel
    mm/vmscan.c: built \(mm/vmscan.o\)'
# The patch only adds a line at boot: for procbench the two kernels are
# the same, so no change may be marked at p<0.01. One run can mark one by
# chance: six metrics at 1% each, and with two boots a side the minima can
# tie (±0%) and blow the t statistic up. So a marked metric is measured
# again: it fails only if the same metric is marked in a second,
# independent comparison of the two kernels (below 0.1% by chance; a real
# difference between the two builds would still fail it).
sig=$(printf '%s\n' "$out" | sed -nE 's/^ *[0-9.]+ .*%\*\* .*(procbench\.[a-z_]+).*/\1/p')
again=
if [ -n "$sig" ]; then
	out3=$("$UMKIT" compare -n 2 --bench procbench base "$want" 2>&1)
	for m in $sig; do
		printf '%s\n' "$out3" | grep -E "%\*\* .*$m( |\$)" >/dev/null && again="$again $m"
	done
fi
if [ -n "$again" ]; then
	not_ok "... two kernels alike for procbench: no change at p<0.01 (twice:$again)" "$out
$out3"
else
	ok "... two kernels alike for procbench: no change at p<0.01${sig:+ (marked once by chance: $(echo $sig), not again)}"
fi
out2=$("$UMKIT" compare --plot $tmp/plots $tmp/r.json $tmp/r.json 2>&1); rc=$?
is "compare of two saved --json files: exit 0" "$rc" 0
like "... identical samples: nothing significant" "$out2" '0 of 6 metrics changed significantly'
like "... two saved runs' CPUs are not one run's: Welch's test" "$out2" "over the 6 metrics \\(Welch's t-test, two-sided"
check "--plot: a PNG per metric (magic bytes)" png_ok $tmp/plots/procbench.fork_us.png
check "--plot: an SVG per metric (well-formed XML)" xmllint --noout $tmp/plots/procbench.exec_us.svg
# --- the other benchmarks, and a side's setup ------------------------------
section "readtwice, aging, compaction"
out2=$("$UMKIT" compare -n 2 -j 2 --bench readtwice,aging,compaction base base 2>&1); rc=$?
is "compare -n 2 -j 2 --bench readtwice,aging,compaction base base: exit 0" "$rc" 0
for m in readtwice.pass1_mb_per_s readtwice.refault_file_pages aging.ns_per_page \
    compaction.free_scanned compaction.free_passes compaction.migrated; do
	like "... a row for $m" "$out2" "^ +[0-9.]+ +±[0-9]+% +[-+][0-9.]+%.* $m( |$)"
done
like "... one variant twice: the sides are A:base and B:base" "$out2" 'A:base .*%change .*B:base'
out2=$("$UMKIT" compare -n 2 -j 2 --bench aging --json $tmp/j2.json base base 2>&1); rc=$?
like "compare -j 2: exit 0, two boots per side, and the table says they ran at once" \
	"$rc:$(printf '%s\n' "$out2" | grep -E 'boots per side|^note: (-j|each boot)' | tr '\n' ' ')
$(printf '%s\n' "$out2" | grep -vE '^bench: boots ' | tail -8)" \
	'^0:.*2 boots per side.*note: each boot.s UML ran on one host CPU .*2 boots at a time'
# Boots on two host CPUs, swapped between pairs (bench_host_cpu): the
# test takes each CPU's effect out, and --json says so, with the CPUs.
if [ "$(nproc)" -ge 2 ]; then
	like "... the test takes the host CPU out" "$out2" "over the 1 metrics \\(t-test of the kernel's effect with the host CPU's taken out"
	check "... --json: the test, and each sample's host CPU (A 0 1, B 1 0)" python3 -c "import json,sys; m=json.load(open('$tmp/j2.json'))['metrics']['aging.ns_per_page']; sys.exit(0 if m['test'].startswith('least squares') and m['host_cpus']==[[0,1],[1,0]] else 1)"
else
	skip "... the test takes the host CPU out" "one host CPU"
	skip "... --json: the test, and each sample's host CPU" "one host CPU"
fi
# The default -j: the host probe's answer for this boot of the host,
# kept in the cache (uml/patch/bench-host.c); the user's file is put
# back at the end.
hp=${UMKIT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/umkit}/host-pair
bid=$(cat /proc/sys/kernel/random/boot_id)
[ ! -f "$hp" ] || cp "$hp" $tmp/host-pair.saved
if [ "$(nproc)" -ge 2 ]; then
	rm -f "$hp"
	out2=$("$UMKIT" compare -n 2 --bench aging base base 2>&1); rc=$?
	read -r a b c < "$hp" 2>/dev/null
	like "without a probe on record, compare probes the host and keeps its answer (this boot, CPUs, slowdown)" \
		"$rc:$a $b $c" "^0:$bid $(nproc) [0-9]+\.[0-9]+\$"
	if [ "$(echo "$c" | awk '{ print ($1 >= 1.3) }')" = 1 ]; then
		like "... two forks at once take ${c}x as long: one boot at a time, and why" "$out2" \
			"compare: one boot at a time: two forks at once on this host take [0-9.]+x as long each .*-j 2 to run two anyway"
		like "... the table says 1 at a time" "$out2" 'CPUs swapped between pairs; 1 boot at a time'
	else
		like "... two forks at once take ${c}x as long: two boots at a time" "$out2" '; 2 boots at a time'
	fi
	# cnt TEXT: how many lines of $out2 match TEXT
	cnt() { printf '%s\n' "$out2" | grep -c -- "$1"; }
	echo "$bid $(nproc) 1.05" > "$hp"
	out2=$("$UMKIT" compare -n 2 --bench aging base base 2>&1)
	is "a probe on record of 1.05x: two boots at a time, nothing probed again" \
		"$(cnt 'one boot at a time'):$(cnt '; 2 boots at a time$'):$(cat "$hp")" "0:1:$bid $(nproc) 1.05"
	echo "$bid $(nproc) 3.00" > "$hp"
	out2=$("$UMKIT" compare -n 2 --bench aging base base 2>&1)
	is "a probe on record of 3.00x: one at a time, and why" \
		"$(cnt '^compare: one boot at a time: two forks at once on this host take 3\.0x as long each as one alone'):$(cnt '; 1 boot at a time$')" "1:1"
	out2=$("$UMKIT" compare -n 2 -j 2 --bench aging base base 2>&1)
	is "... -j 2 runs two anyway" "$(cnt 'one boot at a time'):$(cnt '; 2 boots at a time$')" "0:1"
	echo "00000000-0000-0000-0000-000000000000 $(nproc) 1.00" > "$hp"
	"$UMKIT" compare -n 2 --bench aging base base > /dev/null 2>&1
	like "a probe of another boot of the host is made again" "$(cat "$hp")" "^$bid $(nproc) [0-9]+\.[0-9]+\$"
	printf 'garbage\n' > "$hp"
	"$UMKIT" compare -n 2 --bench aging base base > /dev/null 2>&1
	like "... as is a file that is not a probe's" "$(cat "$hp")" "^$bid $(nproc) [0-9]+\.[0-9]+\$"
else
	for t in "the host probe" "... its answer" "... on record" "... of another boot" "... not a probe's" "... -j 2"; do
		skip "$t" "one host CPU: one boot at a time, nothing to probe"
	done
fi
if [ -f $tmp/host-pair.saved ]; then cp $tmp/host-pair.saved "$hp"; else rm -f "$hp"; fi
out2=$("$UMKIT" compare -n 2 -j 2 --bench aging --setup-b 'echo no; false' base base 2>&1); rc=$?
like "a failing --setup-b fails the comparison" "$rc" '^[1-9]'
like "... and says so" "$out2" 'bench: the setup failed'
out2=$("$UMKIT" compare --bench nosuch base base 2>&1); rc=$?
like "--bench nosuch: refused, the benchmarks listed" "$rc:$out2" "^[1-9].*no benchmark 'nosuch' \(have: procbench"
ktap=$(printf '%s\n' "$out" | sed -n '/^KTAP version 1$/,$p')
is "... --ktap: a KTAP document, its plan and 7 results" \
	"$(printf '%s\n' "$ktap" | grep -cE '^(KTAP version 1|1\.\.7|ok [1-7] [a-z]+ # .*)$')" 9
like "... the tested stage's files as diagnostics" "$ktap" '^# mm/vmscan.c: built \(mm/vmscan.o\)$'
# --- a verdict that says what it tested ------------------------------------
section "NOT TESTED"
out2=$("$UMKIT" smoke --labs none --bench none --ktap --json $tmp/thp.json $F/thp.patch 2>&1); rc=$?
is "a patch to mm/huge_memory.c (not built on UML): status 8" "$rc" 8
like "... NOT TESTED, not PASS" "$out2" '^smoke: NOT TESTED smoke-[0-9a-f]+ '
like "... the file and why: the option, that UML cannot have it, the Makefile line" "$out2" \
	'^    mm/huge_memory.c: not built: CONFIG_TRANSPARENT_HUGEPAGE cannot be set for ARCH=um .*\(mm/Makefile: obj-\$\(CONFIG_TRANSPARENT_HUGEPAGE\) \+= huge_memory.o'
like "... nothing booted" "$out2" '^not ok 4 tested # NOT TESTED'
check "... --json: NOT TESTED, the file not built, with the reason" python3 -c "import json,sys; d=json.load(open('$tmp/thp.json')); f=d['files'][0]; sys.exit(0 if d['verdict']=='NOT TESTED' and f['file']=='mm/huge_memory.c' and f['state']=='not built' and 'CONFIG_TRANSPARENT_HUGEPAGE' in f['line'] else 1)"
if printf '%s\n' "$out2" | grep -q '^smoke: boot'; then not_ok "... no boot for it" "$out2"; else ok "... no boot for it"; fi
out2=$("$UMKIT" smoke --labs none --bench none $F/damon.patch 2>&1); rc=$?
is "a patch to mm/damon/core.c: NOT TESTED too (status 8)" "$rc" 8
like "... the option UML offers, and the --config that turns it on" "$out2" \
	'mm/damon/core.c: not built: CONFIG_DAMON is not set in this kernel; UML offers it: --config CONFIG_DAMON=y turns it on \(mm/Makefile: obj-\$\(CONFIG_DAMON\) \+= damon/\)'
out2=$("$UMKIT" smoke --config 'CONFIG_X=$(id)' $F/damon.patch 2>&1); rc=$?
like "--config refuses anything but CONFIG_NAME=y|n|NUMBER" "$rc:$out2" '^125:.*--config CONFIG_X=\$\(id\): want CONFIG_NAME=y'
if full; then
	out2=$("$UMKIT" smoke --labs none --bench none --config CONFIG_DAMON=y $F/damon.patch 2>&1); rc=$?
	is "--config CONFIG_DAMON=y: the DAMON patch is built and passes" "$rc" 0
	like "... its file built" "$out2" 'mm/damon/core.c: built \(mm/damon/core.o\)'
	like "... the option said" "$out2" '--config CONFIG_DAMON=y \(turned on for this patch\)'
else
	skip "--config CONFIG_DAMON=y builds the DAMON patch" "a full build of the config tree: make test-smoke"
fi

# The thread form, with every lab's batch checks this time (quick: lab 01).
section "the thread form"
if full; then labs=all; else labs=01; fi
out2=$("$UMKIT" smoke --bench none --labs $labs --run 'dmesg | grep -q umkit-smoke' $F/thread.mbox 2>&1); rc=$?
st() { printf '%s\n' "$1" | grep -E '^smoke: (apply|build|boot|run) ' | sed 's/ (.*//' | awk '{print $2, $3}'; }
is "the thread form: the same variant and result" "$rc $(st "$out2")" "0 $(st "$out")"
like "... the labs' checks ($labs) pass on the patched kernel" "$out2" 'smoke: labs +ok: [0-9]+ checks passed'
like "... PASS, same variant" "$out2" "smoke: PASS $want"
if full; then
	# all: the labs run two at a time, their KTAP joined as 'lab all' nests it
	k=$(printf '%s\n' "$out2" | sed -n 's/.*KTAP in \(.*\)$/\1/p')
	n=$(ls "$TOP"/labs/*.lab | wc -l)
	is "... labs.ktap: every lab a subtest of one document, in order" \
	    "$(sed -n 2p "$k") $(grep -E '^(not )?ok ' "$k" | awk '{ print $2 }' | tr '\n' ' ')" \
	    "1..$n $(seq -s ' ' 1 "$n") "
else
	skip "... labs.ktap: every lab a subtest of one document, in order" "the long part: make test-smoke"
fi

# --- failures, each with its stage and evidence ----------------------------
section "failures"
out=$("$UMKIT" smoke --bench none $F/noapply.patch 2>&1); rc=$?
is "a patch that does not apply: exit 3" "$rc" 3
like "... stage apply" "$out" 'smoke: apply +FAIL'
like "... the file and hunk named" "$out" 'patching file mm/vmscan.c'
like "... hunk" "$out" 'Hunk #1 FAILED'
like "... the input it came from" "$out" "from $F/noapply.patch"

out=$("$UMKIT" smoke --bench none $F/nobuild.patch 2>&1); rc=$?
is "a patch that does not build: exit 4" "$rc" 4
like "... stage build, the compiler's file:line" "$out" 'mm/vmscan.c:[0-9]+:[0-9]+: error'

if full; then
	out=$("$UMKIT" smoke --bench none --labs none $F/warn.patch 2>&1); rc=$?
	is "a patch that WARNs at boot: exit 5" "$rc" 5
	like "... stage boot, the WARNING shown" "$out" 'smoke: boot +FAIL.*report'
	like "... the report's line" "$out" 'WARNING: .*mm/vmscan.c'
else
	for d in "a patch that WARNs at boot: exit 5" "... stage boot, the WARNING shown" "... the report's line"; do
		skip "$d" "the long part: make test-smoke"
	done
fi

out=$("$UMKIT" smoke --bench none --labs none $F/panic.patch 2>&1); rc=$?
is "a patch that panics at boot: exit 5" "$rc" 5
like "... stage boot, the panic shown" "$out" 'smoke: boot +FAIL: the kernel panicked'
like "... its message" "$out" 'umkit smoke fixture: panic at boot'

# --- a hang, a flood, Ctrl-C ----------------------------------------------
section "hang, flood, Ctrl-C"
if full; then
	out=$("$UMKIT" smoke --bench none --labs none -t 10 $F/hang.patch 2>&1); rc=$?
	is "a patch that hangs at boot: exit 5" "$rc" 5
	like "... stage boot: a hang, named at the timeout" "$out" 'smoke: boot +FAIL: hang: no shell within 10 s'
	out=$("$UMKIT" smoke --bench none --labs none $F/hang.patch 2>&1); rc=$?
	like "... with the default timeout: a hang, named at the boot's link timeout" \
		"$rc:$(printf '%s\n' "$out" | grep '^smoke: boot')" \
		'^5:.*smoke: boot +FAIL: hang: the guest never answered within [0-9]+ s of boot'

	out=$("$UMKIT" smoke --bench none --labs none $F/flood.patch 2>&1); rc=$?
	is "a patch that floods the console: exit 5" "$rc" 5
	# Stopped at 512 KiB of log, or, when the shell was done first (2 of
	# 5 boots here ended at 499 and 514 KB), named by its repeated line.
	like "... stage boot: a flood, stopped or named by its repeated line" "$out" \
		'smoke: boot +FAIL: console flood \((more than 512 KiB; the boot was stopped|one line 1000 times or more before the shell was done)\)'
	like "... the flooding line shown" "$out" "the console's last line: .*umkit smoke fixture: a console flood"
	log=$(printf '%s\n' "$out" | sed -n 's/^ *(console: \(.*\))$/\1/p')
	sz=$(stat -c %s "$log" 2>/dev/null || echo 0)
	if [ "$sz" -gt 262144 ] && [ "$sz" -lt 8388608 ]; then
		ok "... its log ended within 8 MiB (stopped soon after 512 KiB, not at the 60 s timeout)"
	else
		not_ok "... its log ended within 8 MiB (stopped soon after 512 KiB, not at the 60 s timeout)" "size: $sz bytes"
	fi
	# Ctrl-C in the build: SIGINT to smoke's whole process group, as a
	# terminal sends it; a patch of its own, so that the build is real.
	sed "s|^+\tpr_info(\"umkit-smoke: kswapd_init runs (test fixture)\\\\n\");|&\n+\t/* ctrl-c $(date +%s%N) */|; s|^@@ -7646,6 +7646,7 @@|@@ -7646,6 +7646,8 @@|" \
		$F/good.patch > $tmp/ctrlc.patch
	# (A background job has SIGINT ignored; perl gives it back, as a shell
	# on a terminal would have it.)
	setsid perl -e '$SIG{INT} = "DEFAULT"; exec @ARGV' \
		"$UMKIT" smoke --bench none --labs none $tmp/ctrlc.patch > $tmp/ctrlc.out 2>&1 &
	pid=$!
	# In the build: the patched file's compile has started.
	wait_proc "build/k/smoke-tree/src/mm/vmscan\.c"
	kill -INT -$pid 2>/dev/null
	wait $pid; rc=$?
	is "Ctrl-C in the build: exit 130" "$rc" 130
	like "... the build stage says interrupted" "$(cat $tmp/ctrlc.out)" 'smoke: build +interrupted'
	wait_gone "$TOP/build/k/smoke-tree"
	is "... no build process left" "$(pgrep -f "$TOP/build/k/smoke-tree" | tr '\n' ' ')" ""
	is "... no half-made tree" "$(ls -d build/k/smoke-tree*/src.new build/k/smoke-tree*/stage.new* build/k/smoke-tree*/linux.new 2>/dev/null)" ""
	# A timeout's SIGTERM reaches umkit alone, not the build under it:
	# the build must end at once, not when make would have finished.
	sed "s|/\* ctrl-c [0-9]* \*/|/* term $(date +%s%N) */|" $tmp/ctrlc.patch > $tmp/term.patch
	"$UMKIT" smoke --bench none --labs none $tmp/term.patch > $tmp/term.out 2>&1 &
	pid=$!
	wait_proc "build/k/smoke-tree/src/mm/vmscan\.c"
	tk=$(date +%s%N)
	kill -TERM $pid
	wait $pid; rc=$?
	ms=$(( ($(date +%s%N) - tk) / 1000000 ))
	is "SIGTERM to umkit alone in the build: exit 143" "$rc" 143
	if [ $ms -lt 2000 ]; then
		ok "... it ended at once ($ms ms), not when make would have"
	else
		not_ok "... it ended at once ($ms ms), not when make would have" "$(tail -3 $tmp/term.out)"
	fi
	wait_gone "$TOP/build/k/smoke-tree"
	is "... no build process left" "$(pgrep -f "$TOP/build/k/smoke-tree" | tr '\n' ' ')" ""
else
	for d in "a patch that hangs at boot: exit 5" "... stage boot: a hang, named at the timeout" \
	    "... with the default timeout: a hang, named at the boot's link timeout" \
	    "a patch that floods the console: exit 5" "... stage boot: a flood, stopped or named by its repeated line" \
	    "... the flooding line shown" "... its log ended within 8 MiB (stopped soon after 512 KiB, not at the 60 s timeout)" \
	    "Ctrl-C in the build: exit 130" "... the build stage says interrupted" \
	    "... no build process left" "... no half-made tree" \
	    "SIGTERM to umkit alone in the build: exit 143" \
	    "... it ended at once, not when make would have" "... no build process left"; do
		skip "$d" "the long part: make test-smoke"
	done
fi

# --- a known effect: 2 ms more per new mm makes fork slower ---------------
section "a known effect"
if full; then
	out=$("$UMKIT" smoke --labs none --bench none $F/slowfork.patch 2>&1); rc=$?
	is "the slow-fork fixture passes smoke" "$rc" 0
	sv=$(printf '%s\n' "$out" | sed -n 's/.*variant \(smoke-[0-9a-f]*\).*/\1/p')
	out=$("$UMKIT" compare -n 3 --bench procbench base "$sv" 2>&1); rc=$?
	is "compare base $sv: exit 0" "$rc" 0
	# The fastest fork of each boot: wall-time means follow the host's load.
	like "... fork significantly slower, marked and called worse" "$out" \
		'\+[0-9.]+%\*{1,2} .* procbench.fork_min_us \(worse\)'
	# Seed 000: lru-batch's switch at N (7.2's per-folio path) against Y.
	out=$("$UMKIT" compare -n 4 --bench aging \
		--setup-a 'echo N > /sys/kernel/debug/lru_gen_batch_aging' lru-batch lru-batch 2>&1); rc=$?
	is "compare --setup-a N lru-batch lru-batch --bench aging: exit 0" "$rc" 0
	like "... batched inc_min_seq() significantly cheaper per page" "$out" \
		'-[0-9.]+%\*{1,2} .* aging.inc_min_seq_ns_per_page \(better\)'
else
	for d in "the slow-fork fixture passes smoke" "compare base SLOWFORK: exit 0" \
	    "... fork significantly slower, marked and called worse" \
	    "compare --setup-a N lru-batch lru-batch --bench aging: exit 0" \
	    "... batched inc_min_seq() significantly cheaper per page"; do
		skip "$d" "the long part: make test-smoke"
	done
fi

section "leftovers"
no_leftovers "no UML process, mount or run/ entry left"
is "no smoke kernel still running" "$(pgrep -f "$TOP/build/smoke/" | tr '\n' ' ')" ""
is "no half-made tree left" "$(ls -d build/k/*/src.new build/k/*/stage.new* build/smoke/*.tmp-* 2>/dev/null)" ""
done_testing
