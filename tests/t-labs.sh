#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# kernels: base+debug compaction-noacct lru-batch rss-lazy uml-walk workingset-cost
# Every shipped lab in batch mode (each check one TAP line here), run once
# in make test: from an installed kit (make install DESTDIR=...), as an
# ordinary user where this runs as root.  The seed labs' reproduce steps
# keep their runs: every seed's table is checked on them, read back
# (umkit reproduce --from; tests/lib-reproduce.sh).  Then the runner's
# outputs and errors from the checkout: KTAP, JUnit, JSON results, the
# report, a lab that fails on purpose, malformed lab files, nothing left
# behind.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/lib-reproduce.sh"

work=$(mktemp -d)
export XDG_STATE_HOME="$work/state"
U=umkit-test
inst=$work/dest P=/usr/local
cleanup() {
	pkill -f "^$inst/" 2>/dev/null
	grep -o " $work/[^ ]*" /proc/mounts | while read -r m; do umount -l "$m" 2>/dev/null; done
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# batch LAB I: lab LAB, subtest I of 'lab all': re-emit each KTAP check
# line of its part of the output as a check of ours.
batch() {
	awk -v name="$1" '
		/^KTAP version/ || /^1\.\./ { next }
		/^(not )?ok [0-9]+ / && $0 !~ /^ / { if ($(NF) == name) exit; lines = ""; next }
		{ lines = lines $0 "\n" }
		END { printf "%s", lines }' "$work/all.out" | sed 's/^    //' | awk '
		/^not ok [0-9]+ / { if (n) print "--"; n++; sub(/^not ok [0-9]+ /, "F "); print; next }
		/^ok [0-9]+ .*# SKIP/ { if (n) print "--"; n++; sub(/^ok [0-9]+ /, "S "); print; next }
		/^ok [0-9]+ / { if (n) print "--"; n++; sub(/^ok [0-9]+ /, "P "); print; next }
		/^# / && n { print "  " $0 }' > "$work/lines"
	while IFS= read -r l; do
		case "$l" in
		"P "*) ok "lab $1: ${l#P }" ;;
		"S "*) skip "lab $1: ${l#S }" "${l##*# SKIP }" ;;
		"F "*) d=${l#F }; detail=$(sed -n "/^F $(printf '%s' "$d" | sed 's/[][\/.*^$]/\\&/g')\$/,/^--/p" "$work/lines" | sed '1d;/^--/d')
			not_ok "lab $1: $d" "$detail" ;;
		esac
	done < "$work/lines"
	is "lab $1: its result line in lab all" "$(grep -E "^(not )?ok [0-9]+ $1\$" "$work/all.out")" "ok $2 $1"
}

# The kit installed as on a student's machine, into a scratch DESTDIR.
install_kit "$inst" $P "lab all"
listing() { find "$inst" -printf '%p %s %m %T@\n' | sort; }
before=$(listing)
# Whose lab all: as root, the ordinary user $U with a fresh home, in a
# private mount namespace whose /dev/fuse anybody may open (mode 0666, as
# on a default Debian; the host's is left as it is); else whoever runs
# this.  Its environment is the user's own (env -i): not the checkout's.
u=$work/u
mkdir -p "$u/home" "$u/cwd"
# Lab 02's debugger step wants base+debug, which the kit does not ship:
# the user has built it into their cache, as the step's skip message says
# (umkit exec -V base+debug -- true); here, the checkout's, copied.
mkdir -p "$u/home/.cache/umkit/build/k/base+debug"
cp "$TOP/build/k/base+debug/linux" "$u/home/.cache/umkit/build/k/base+debug/"
as=
if [ "$(id -u)" -eq 0 ] && command -v useradd >/dev/null && command -v runuser >/dev/null &&
    command -v unshare >/dev/null && command -v mknod >/dev/null; then
	if id "$U" >/dev/null 2>&1 ||
	    useradd --system --no-create-home --shell /usr/sbin/nologin "$U"; then
		as=$U
		chmod 755 "$work"
		chown -R "$U" "$u"
		chmod 700 "$u/home"
		mknod "$work/fuse" c 10 229 && chmod 666 "$work/fuse"
	fi
fi
IK=$inst$P/bin/umkit
# Every lab at once with 'lab all', two at a time (--jobs' default on two
# CPUs), one a host core: six at once on two cores made lab 02's
# batched-against-per-folio medians cross (12261 against 12145 ps a
# page; batching saves about 5% on such a host).  The six at once, as a
# class shares a host, are make test-labs-load's (tests/labs-load.sh,
# ten rounds).
if [ -n "$as" ]; then
	# (the mounts left are those of the namespace: written before it ends)
	unshare -m --propagation private sh -c '
		W=$1 U=$2; shift 2
		mount --bind "$W/fuse" /dev/fuse || exit 126
		(cd "$W/u/cwd" && exec runuser -u "$U" -- "$@"); rc=$?
		grep " $W/u/" /proc/mounts > "$W/left"
		exit $rc' sh "$work" "$as" \
	    env -i PATH=/usr/bin:/bin:/usr/sbin:/sbin HOME="$u/home" TERM=xterm \
	    "$IK" lab all --batch --junit "$u/all.xml" > "$work/all.out" 2>&1
	rc=$?
	echo "# lab all: the installed kit, as the user $as"
else
	(cd "$u/cwd" && exec env -i PATH=/usr/bin:/bin:/usr/sbin:/sbin HOME="$u/home" TERM=xterm \
		"$IK" lab all --batch --junit "$u/all.xml") > "$work/all.out" 2>&1
	rc=$?
	grep " $u/" /proc/mounts > "$work/left"
	echo "# lab all: the installed kit, as $(id -un) (not root: no other user)"
fi
cp "$u/all.xml" "$work/all.xml" 2>/dev/null
is "lab all: exit status 0" "$rc" 0
is "lab all: no UML process of the installed kit is left" "$(pgrep -f "^$inst/" | tr '\n' ' ')" ""
is "lab all: no mount under the user's home is left" "$(cat "$work/left" 2>/dev/null || echo 'not recorded')" ""
is "lab all: nothing under the prefix was written (before/after listing)" "$(listing)" "$before"
is "lab all: nothing in the current directory" "$(find "$u/cwd" -mindepth 1)" ""
# Without base+debug in the user's cache, the installed kit skips a gdb
# step and says how an installed umkit builds that kernel (not make).
mkdir -p "$work/nodebug/home" "$work/nodebug/lab"
cp "$TOP/labs/02-mglru.gdb" "$work/nodebug/lab/"
cat > "$work/nodebug/lab/gdb.lab" <<'EOF'
title    A gdb step whose kernel is not built
minutes  1
level    beginner
variants base+debug

step gdb The kernel stopped in inc_max_seq
| Lab 02's debugger step, alone.
gdb timeout=40 02-mglru.gdb
run timeout=40 echo "+ {{lru_gen.memcg}} 0 {{lru_gen.max_seq}} 1 1" > /sys/kernel/debug/lru_gen
check result(gdb.hit) == 1
EOF
out=$(cd "$work/nodebug" && timeout 120 env -i PATH=/usr/bin:/bin:/usr/sbin:/sbin \
	HOME="$work/nodebug/home" "$IK" lab "$work/nodebug/lab/gdb.lab" --trust --batch 2>&1)
like "installed, no base+debug built: the gdb step skips, with how to build it" "$out" \
	"^ok 1 gdb: .* # SKIP needs the base\+debug kernel, not built yet: umkit exec -V base\+debug -- true builds it into $work/nodebug/home/\.cache/umkit "
# Each seed lab's reproduce step (labs 02 to 06) kept its seed's --quick
# run in the user's state directory: the seeds' tables, read back.
rd=$u/home/.local/state/umkit/reproduce
is "lab all: each seed lab kept its reproduce run" "$(ls "$rd" 2>/dev/null | tr '\n' ' ')" \
	"000.json 001.json 002.json 003.json 004.json "
"$UMKIT" reproduce --from "$rd/000.json" --from "$rd/001.json" --from "$rd/002.json" \
	--from "$rd/003.json" --from "$rd/004.json" --ktap --results --json "$work/repro.json" \
	> "$work/repro.ktap" 2> "$work/repro.err"
rc=$?
# 0, or 1 when a row went against the thread beyond its spread and
# significantly (--ktap): that is a finding, not a failure of the kit
# (seed 002's rows go either way from boot to boot, docs/reproduce.md).
like "the seed labs' runs, read back: exit 0 or 1 (a row against the thread)" "$rc" '^[01]$' ||
	tail -n 30 "$work/repro.err" | sed 's/^/#   /'
repro_checks "$work/repro.ktap" "$work/repro.err" "$work/repro.json"
n=$(ls "$TOP"/labs/*.lab | wc -l)
is "lab all: one KTAP document, every lab a subtest, in order" \
	"$(sed -n 1,2p "$work/all.out" | tr '\n' ' ')$(grep -E '^(not )?ok ' "$work/all.out" | awk '{ print $2 }' | tr '\n' ' ')" \
	"KTAP version 1 1..$n $(seq -s ' ' 1 "$n") "
i=0
for f in "$TOP"/labs/*.lab; do
	i=$((i + 1))
	name=$(basename "$f" .lab)
	check "lab $name: --check" "$UMKIT" lab --check "$f"
	batch "$name" "$i"
done
if command -v xmllint >/dev/null; then
	check "lab all: JUnit is well-formed XML" xmllint --noout "$work/all.xml"
fi
# The JUnit file: a testsuite per lab, in order, and the totals their sum.
is "lab all: JUnit has each lab's testsuite, in order" \
	"$(sed -n 's/^ <testsuite name="\([^"]*\)".*/\1/p' "$work/all.xml" | tr '\n' ' ')" \
	"$(for f in "$TOP"/labs/*.lab; do printf '%s ' "$(basename "$f" .lab)"; done)"
sum=$(sed -n 's/^ <testsuite name="[^"]*" tests="\([0-9]*\)".*/\1/p' "$work/all.xml" | paste -sd+ | bc)
is "lab all: JUnit's total is the sum of its suites', one testcase each" \
	"$(sed -n 's/^<testsuites name="umkit labs" tests="\([0-9]*\)".*/\1/p' "$work/all.xml") $(grep -c '<testcase ' "$work/all.xml")" \
	"$sum $sum"
no_leftovers "the labs leave no guest, mount or run/ entry"
# Each run builds the programs of its exercises into a directory of its
# own (two runs of one lab never rebuild each other's) and removes it.
is "the runs leave no exercise program directory" \
	"$(ls -A "$u/home/.local/state/umkit/exercise" 2>/dev/null)" ""

# --list names every lab with its time and variants.
out=$("$UMKIT" lab --list 2>&1)
like "--list shows lab 01 with its minutes" "$out" "01-tour +[0-9]+ +beginner +base"

# lab all stopped (TERM) while its first two labs run: the children and
# their guests go with it.
"$UMKIT" lab all --batch > "$work/stop.out" 2>&1 &
lp=$!
i=0
while [ $i -lt 300 ] && [ "$(ls "$RUN" 2>/dev/null | grep -c '^lab')" -lt 2 ]; do
	sleep 0.1; i=$((i + 1))
done
is "lab all: two labs' guests run at once" "$(ls "$RUN" | grep -c '^lab')" 2
kill -TERM $lp
wait $lp
is "lab all, stopped: exit 143" "$?" 143
like "... the labs it ran say so, in order" "$(grep -E '^(not )?ok ' "$work/stop.out" | tr '\n' ' ')" \
	'^not ok 1 01-tour not ok 2 02-mglru $'
no_leftovers "... and leaves no guest, mount or run/ entry"
out=$("$UMKIT" lab all --batch --jobs 9 2>&1); rc=$?
like "--jobs 9: refused, named" "$rc:$out" "^125:umkit: --jobs 9: want 1 to 8"
out=$("$UMKIT" lab all --batch --json "$work/one.json" 2>&1); rc=$?
like "lab all --json: refused (one lab's file), --junit named" "$rc:$out" "^125:umkit: --json .*one.json: one lab's result; .*--junit FILE"

# A lab that fails on purpose: the check fails with its message and hint,
# KTAP says so, the exit status is 1, the result file says so too.
sed 's/^check points=2 delta(lru_gen.max_seq) == 1/check points=2 delta(lru_gen.max_seq) == 5/' \
	"$TOP/tests/fixtures/labs/ui.lab" > "$work/broken.lab"
out=$("$UMKIT" lab "$work/broken.lab" --batch --json "$work/broken.json" 2>&1); rc=$?
is "a failing check: exit status 1" "$rc" 1
like "a failing check: not ok with its text" "$out" "^not ok 2 age: delta\(lru_gen.max_seq\) == 5"
like "a failing check: the fail message and the values" "$out" "^# max_seq did not grow by one: .* is 1, want == 5"
like "a failing check: the hint" "$out" "^# hint: each aging write adds one generation"
like "a failing check: the score" "$out" "^# broken: passed 1/2, 1/5 points: 0/2 yours, 1/3 the kit's"
like "KTAP: version and plan" "$out" "^KTAP version 1
# umkit lab broken: Runner test
1\.\.2"
out=$("$UMKIT" lab "$work/broken.lab" --batch --exam 2>&1)
if printf '%s\n' "$out" | grep -q '^# hint:'; then not_ok "--exam hides hints" "$out"; else ok "--exam hides hints"; fi
out=$("$UMKIT" lab report --csv "$work/csv" "$work/broken.json" 2>&1); rc=$?
is "report: exit 0" "$rc" 0
like "report: one row with the checks" "$out" "root|$(id -un) +1/2 +1/3 .* \+x"
check "report: a CSV per lab" grep -q '^student,file,mode' "$work/csv/broken.csv"
echo '{"not": "a result"}' > "$work/bad.json"
out=$("$UMKIT" lab report "$work/bad.json" 2>&1); rc=$?
is "report of a foreign JSON file: exit 2" "$rc" 2
like "report of a foreign JSON file: names it" "$out" "bad.json: not an umkit lab result"
printf '{ trunc' > "$work/trunc.json"
out=$("$UMKIT" lab report "$work/trunc.json" 2>&1)
like "report of broken JSON: file:line" "$out" "trunc.json:1: not a JSON result file"

# A malformed lab: --check names file:line for each problem, exit 2, and
# running it does not boot anything.
cat > "$work/bad.lab" <<'LAB'
title Bad
minutes many
step a A
view nosuch
check vmstat.x >
fail alone
step a Again
LAB
out=$("$UMKIT" lab --check "$work/bad.lab" 2>&1); rc=$?
is "malformed lab: --check exits 2" "$rc" 2
like "malformed lab: the minutes line" "$out" "bad.lab:2: minutes many"
like "malformed lab: the view line" "$out" "bad.lab:4: view nosuch: no such view"
like "malformed lab: the check line" "$out" "bad.lab:5: a value expected at the end"
like "malformed lab: the duplicate step" "$out" "bad.lab:7: step a: the ID is used already at line 3"
out=$("$UMKIT" lab "$work/bad.lab" --batch 2>&1); rc=$?
is "malformed lab: running it exits 2" "$rc" 2
sed 's/^variants base/variants base nosuchvariant/' "$TOP/tests/fixtures/labs/ui.lab" > "$work/nov.lab"
out=$("$UMKIT" lab --check "$work/nov.lab" 2>&1)
like "a missing variant is a lab-file error" "$out" "nov.lab:6: variant nosuchvariant: no such variant"
sed 's/lru_gen.max_seq) == 1/lru_gen.max_seq) == 1 + delta(vmstat.pgsteal_anno) - delta(meminfo.Nosuch_key_at_all)/' \
	"$TOP/tests/fixtures/labs/ui.lab" > "$work/key.lab"
out=$("$UMKIT" lab --check "$work/key.lab" 2>&1); rc=$?
is "a misspelt kernel key: --check exits 2" "$rc" 2
like "a misspelt vmstat key is named with the nearest one" "$out" \
	"key.lab:[0-9]+: vmstat.pgsteal_anno: no kernel of the kit has vmstat key 'pgsteal_anno' \(did you mean vmstat.pgsteal_anon\?\)"
like "an unknown meminfo key points to labs/kernel-keys" "$out" \
	"key.lab:[0-9]+: meminfo.Nosuch_key_at_all: .*labs/kernel-keys"
out=$("$UMKIT" lab 99 2>&1); rc=$?
like "an unknown lab is named" "$rc:$out" "^125:umkit: no lab '99'"
out=$("$UMKIT" lab --slow fast 1 2>&1); rc=$?
like "a bad --slow is named" "$rc:$out" "^125:umkit: --slow fast"
out=$("$UMKIT" lab "$TOP/tests/fixtures/labs/ui.lab" </dev/null 2>&1); rc=$?
like "interactive without a terminal says to use --batch" "$rc:$out" "needs a terminal .*--batch"
no_leftovers "errors leave nothing behind"

# Exercises: the skeleton is written once, built and graded after.  On
# lab 04's exercise step alone (its exercise line and step, the source
# beside them, the lab's name): lab all ran every other step of it, and
# the grading runs are two of lab 04's 43 s less each.
l4=$work/l4
mkdir -p "$l4"
cp "$TOP/labs/04-twothreads.c" "$l4/"
{
	sed -n '/^title/p; /^variants/p; /^memory/p; /^cpus/p' "$TOP/labs/04-counters.lab"
	grep '^exercise level=intermediate program 04-twothreads.c$' "$TOP/labs/04-counters.lab"
	awk '/^step exercise /{ on = 1; print; next } on && /^step /{ exit } on' "$TOP/labs/04-counters.lab"
} > "$l4/04-counters.lab"
check "lab 04's exercise step alone is a lab" "$UMKIT" lab --check "$l4/04-counters.lab"
ex=$work/ex4
out=$("$UMKIT" lab "$l4/04-counters.lab" --exercise "$ex" --batch 2>&1); rc=$?
is "exercise: the first run writes the skeleton (exit 0)" "$rc" 0
like "exercise: and says where" "$out" "The exercise of lab 04-counters is in $ex/04-twothreads.c"
check "exercise: the TODO is in the skeleton" grep -q 'TODO: start a second thread' "$ex/04-twothreads.c"
if grep -q 'pthread_create(&th' "$ex/04-twothreads.c"; then
	not_ok "exercise: the solution's code is cut from the skeleton"
else ok "exercise: the solution's code is cut from the skeleton"; fi
out=$("$UMKIT" lab "$l4/04-counters.lab" --exercise "$ex" --batch 2>&1); rc=$?
is "exercise: the skeleton fails its checks (exit 1)" "$rc" 1
like "exercise: the skeleton's program runs but does not switch" "$out" \
	"^not ok [0-9]+ exercise: result\(twothreads.mode_after\) == 1"
cp "$TOP/labs/04-twothreads.c" "$ex/"
out=$("$UMKIT" lab "$l4/04-counters.lab" --exercise "$ex" --batch 2>&1); rc=$?
is "exercise: the completed program passes (exit 0)" "$rc:$(printf '%s\n' "$out" | grep -c '^not ok')" "0:0"
echo 'int main(void) { return x; }' > "$ex/04-twothreads.c"
out=$("$UMKIT" lab "$l4/04-counters.lab" --exercise "$ex" --batch 2>&1); rc=$?
is "exercise: a program that does not build: exit 2" "$rc" 2
like "exercise: ... the compiler's file:line" "$out" "04-twothreads.c:1:[0-9]+: error"
like "exercise: ... and umkit says it" "$out" "04-twothreads.c does not build"
out=$("$UMKIT" lab 1 --exercise "$ex" --batch 2>&1); rc=$?
like "exercise: a lab without one says so" "$rc:$out" "^2:umkit: lab 01-tour has no exercise"
ex2=$work/ex2
out=$("$UMKIT" lab 2 --exercise "$ex2" --batch 2>&1); rc=$?
is "kernel exercise: the first run writes the skeleton (exit 0)" "$rc" 0
check "kernel exercise: the function's body is a TODO" \
	grep -q 'TODO: apply the batched size changes' "$ex2/vmscan.c"
is "kernel exercise: nothing else of the file changed" \
	"$(diff "$TOP/build/k/lru-batch/src/mm/vmscan.c" "$ex2/vmscan.c" | grep -c '^[<>]')" \
	"$(( $(sed -n '/^static void apply_gen_move_batch(/,/^}/p' "$TOP/build/k/lru-batch/src/mm/vmscan.c" | wc -l) - 4 + 3 ))"
no_leftovers "the exercises leave nothing behind"

# umkit get: the values labs check, for a user.
out=$("$UMKIT" get "$TOP/tests/fixtures/guest" lru_gen.max_seq 'zoneinfo[Normal].managed' 2>&1)
like "get: one line per spec" "$out" "^lru_gen.max_seq [0-9]+
zoneinfo\[Normal\]\.managed [0-9]+$"
out=$("$UMKIT" get "$TOP/tests/fixtures/guest" lru_gen.max_sq 2>&1); rc=$?
like "get: a bad spec is named, exit 1" "$rc:$out" "^1:umkit: lru_gen.max_sq: unknown field 'max_sq'"
out=$("$UMKIT" get nosuchguest vmstat.pgfault 2>&1); rc=$?
like "get: a guest that is not running" "$rc:$out" "^125:umkit: no running guest 'nosuchguest'"
done_testing
