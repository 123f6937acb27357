#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# kernels: base+debug
# beside builds: its checks are values read from a stopped kernel, no timing
# umkit drgn on real guests of the base+debug kernel (built here when
# missing, as tests/t-gdb.sh does): -e, a script, the prompt; the kit's
# UML helpers (uml/guest/umkit_drgn.py) against a guest with known state:
# a process that wrote 1024 pages (umkit-touch 4) has them in one MGLRU
# generation, its pages add up to its VmRSS, an aging makes them exactly
# one generation older, gen_folios and folio_owners find them from the
# lruvec's side, a memcg by path; the guest answers `umkit exec` while
# drgn reads it and is never stopped or traced; a kernel without debug
# info or of another build is refused with the way out.
. "$(dirname "$0")/lib.sh"

work=$(mktemp -d)
g=t-drgn-$$
gb=t-drgn-base-$$
trap '"$UMKIT" stop $g $gb >/dev/null 2>&1; rm -rf "$work"' EXIT INT TERM

PY=${UMKIT_PYTHON:-/usr/bin/python3}
if ! "$PY" -c 'import drgn' 2>/dev/null; then
	skip "umkit drgn" "$PY has no drgn module: python3-drgn is not installed (uml/install/deps.sh installs it)"
	done_testing; exit
fi
# The debug kernel: built once, shared with t-gdb (docs/debugging.md).
if [ ! -x build/k/base+debug/linux ]; then
	t0=$(date +%s)
	check "the base+debug kernel builds" sh uml/kernel/kbuild.sh base+debug
	echo "# base+debug kernel built in $(( $(date +%s) - t0 )) s"
fi
if [ ! -x build/k/base+debug/linux ]; then
	skip "umkit drgn" "the base+debug kernel is not built (make VARIANT=base+debug)"
	done_testing; exit
fi

ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
# field NAME LINE: the value of NAME=VALUE in a "gens:" line.
field() { printf '%s\n' "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
# lru_max ID: max_seq of memcg ID, node 0, from the mirror's lru_gen.
lru_max() {
	awk -v id="$1" '$1 == "memcg" { m = $2; next } $1 == "node" { next }
	    m == id && NF == 4 { s = $1 } END { print s }' \
	    "$RUN/$g/mnt/sys/kernel/debug/lru_gen"
}
# anon_line OUT: the "generation ..." header above the VMA line of the
# 1024 touched pages, and that line.
anon_gen() { printf '%s\n' "$1" | awk '/^generation/ { h = $0 }
    / rw-p +1024  \[anon\]$/ { print h; exit }'; }

out=$("$UMKIT" start -V base+debug -n $g 2>&1)
like "a base+debug guest starts" "$out" "guest $g started \(base\+debug"
upid=$(cat "$RUN/$g/uml.pid")

# --- the first answer -----------------------------------------------------
s=$(date +%s%N)
out=$("$UMKIT" drgn $g -e "prog['init_task'].comm" 2>&1); rc=$?
t1=$(ms $s)
is "umkit drgn NAME -e EXPR: init_task's comm" "$rc:$out" '0:(char [16])"swapper/0"'
s=$(date +%s%N)
out=$(UMKIT_DRGN_TIMING=1 "$UMKIT" drgn $g -e "prog['init_task'].comm" 2>&1)
echo "# umkit drgn: first answer in $t1 ms (again: $(ms $s) ms; $(printf '%s\n' "$out" | sed -n 's/.*attached in/attach and debug info:/p'))"
out=$("$UMKIT" drgn $g -e 'lruvec(prog, "/").lrugen.max_seq.value_()' 2>&1)
is "lruvec(prog, \"/\"): max_seq as lru_gen shows it" "$out" "$(lru_max 1)"
out=$("$UMKIT" drgn $g -e 'memcg_path(memcg(prog, "/")), memcg_id(memcg(prog))' 2>&1)
is "memcg(prog, \"/\") is the root, id 1" "$out" "('/', 1)"
agent=$("$UMKIT" exec $g -- pidof umkit-agent)
out=$("$UMKIT" drgn $g -e '[t.pid.value_() for t in tasks(prog) if t.comm.string_() == b"umkit-agent"]' 2>&1)
is "tasks(prog) has the agent with the guest's pid" "$out" "[$agent]"
out=$("$UMKIT" drgn $g -e 'page_to_pfn(pfn_to_page(prog, 12345)), pfn_to_page(prog, 7).value_() - prog["mem_map"].value_()' 2>&1)
is "pfn_to_page / page_to_pfn on FLATMEM: mem_map + pfn" "$out" "(12345, $((7 * 64)))"

# --- a process with known pages ---------------------------------------------
"$UMKIT" exec $g -- sh -c 'sleep 600 | umkit-touch 4 > /tmp/touch.out 2>&1 &'
i=0
while [ $i -lt 50 ]; do
	tp=$("$UMKIT" exec $g -- sed -n 's/^ready //p' /tmp/touch.out)
	[ -n "$tp" ] && break
	sleep 0.1; i=$((i + 1))
done
like "umkit-touch 4 wrote its 1024 pages" "$tp" "^[0-9]+$"
# Pages fresh from a fault wait in per-CPU batches before they reach an
# LRU list (no generation yet); drop_caches drains every CPU's.
"$UMKIT" exec $g -- sh -c 'echo 1 > /proc/sys/vm/drop_caches'
g1=$("$UMKIT" drgn $g --gens "$tp" 2>&1); rc=$?
is "--gens PID exits 0" "$rc" 0
printf '%s\n' "$g1" | sed 's/^/#   /'
r1=$(printf '%s\n' "$g1" | tail -1)
like "the last line is the result line" "$r1" "^gens: pid=$tp max_seq=[0-9]+ age0=[0-9]+ age1=[0-9]+ age2=[0-9]+ age3=[0-9]+ other=[0-9]+ none=[0-9]+ swap=[0-9]+ pages=[0-9]+$"
rss=$(sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB/\1/p' "$RUN/$g/mnt/proc/$tp/status")
is "its pages are VmRSS / 4 KiB (page tables walked)" "$(field pages "$r1")" $((rss / 4))
sum=$(( $(field age0 "$r1") + $(field age1 "$r1") + $(field age2 "$r1") + $(field age3 "$r1") + $(field other "$r1") + $(field none "$r1") ))
is "every page is in a generation or counted apart" "$sum" "$(field pages "$r1")"
anon=$(sed -n 's/^RssAnon:[[:space:]]*\([0-9]*\) kB/\1/p' "$RUN/$g/mnt/proc/$tp/status")
is "its anonymous pages are all in generations (RssAnon)" \
	"$(( $(field age0 "$r1") + $(field age1 "$r1") + $(field age2 "$r1") + $(field age3 "$r1") ))" $((anon / 4))
h1=$(anon_gen "$g1")
like "the 1024 touched pages are one VMA in one generation" "$h1" "^generation [0-9]+ \(age [0-9]"
seq1=$(printf '%s\n' "$h1" | sed -n 's/^generation \([0-9]*\) (age \([0-9]*\).*/\1/p')
age1=$(printf '%s\n' "$h1" | sed -n 's/^generation \([0-9]*\) (age \([0-9]*\).*/\2/p')
is "max_seq of the result line is lru_gen's" "$(field max_seq "$r1")" "$(lru_max 1)"
out=$("$UMKIT" drgn $g --gens umkit-touch 2>&1 | tail -1)
like "--gens COMM: the newest process of that name" "$out" "^gens: pid=$tp "
# The lruvec's side: the folios of that generation and who maps them.
cat > "$work/owners.py" <<'EOF'
import sys
pid, seq = int(sys.argv[1]), int(sys.argv[2])
lv = lruvec(prog, "/")
mine = agree = 0
for f in gen_folios(lv, seq, types=(0,)):
    owners, _ = folio_owners(prog, f)
    if any(o[0] == pid for o in owners):
        mine += 1
        agree += folio_seq(f) == seq
print("owned=%d flags_agree=%d" % (mine, agree))
EOF
out=$("$UMKIT" drgn $g "$work/owners.py" "$tp" "$seq1" 2>&1)
like "gen_folios + folio_owners: the generation holds its 1024 pages" "$out" "^owned=(10[2-9][0-9]|1[1-9][0-9][0-9]) "
like "... and their folio->flags name that generation" "$out" "owned=([0-9]+) flags_agree=\1$"

# --- an aging: one generation older -------------------------------------------
max=$(lru_max 1)
"$UMKIT" exec $g -- sh -c "echo '+ 1 0 $max' > /sys/kernel/debug/lru_gen"
is "the aging write: max_seq + 1" "$(lru_max 1)" $((max + 1))
g2=$("$UMKIT" drgn $g --gens "$tp" 2>&1)
h2=$(anon_gen "$g2")
is "after the aging the 1024 pages are one generation older, in the same seq" \
	"$(printf '%s\n' "$h2" | sed -n 's/^generation \([0-9]*\) (age \([0-9]*\).*/\1:\2/p')" \
	"$seq1:$((age1 + 1))"
r2=$(printf '%s\n' "$g2" | tail -1)
is "... in the result line: age$((age1 + 1)) holds them" \
	"$(( $(field age$((age1 + 1)) "$r2") >= 1024 ))" 1
is "... and the result line's max_seq moved by one" "$(field max_seq "$r2")" $((max + 1))

# --- a memcg by path --------------------------------------------------------------
"$UMKIT" exec $g -- sh -c 'cd /sys/fs/cgroup && echo +memory > cgroup.subtree_control && mkdir t &&
	sh -c "echo \$\$ > /sys/fs/cgroup/t/cgroup.procs && sleep 600 | umkit-touch 1" > /tmp/t.out 2>&1 &'
i=0
while [ $i -lt 50 ]; do
	tq=$("$UMKIT" exec $g -- sed -n 's/^ready //p' /tmp/t.out)
	[ -n "$tq" ] && break
	sleep 0.1; i=$((i + 1))
done
"$UMKIT" exec $g -- sh -c 'echo 1 > /proc/sys/vm/drop_caches'
tid=$(awk '$1 == "memcg" && $3 == "/t" { print $2 }' "$RUN/$g/mnt/sys/kernel/debug/lru_gen")
out=$("$UMKIT" drgn $g -e 'memcg_path(memcg(prog, "/t")), memcg_id(memcg(prog, "/t")), lruvec(prog, "/t").lrugen.max_seq.value_()' 2>&1)
is "memcg(prog, \"/t\"): its path, lru_gen's id and max_seq" "$out" "('/t', $tid, $(lru_max "$tid"))"
out=$("$UMKIT" drgn $g --gens "$tq" 2>&1)
like "--gens on a process in /t: its memcg" "$out" "^guest $g: pid $tq \(umkit-touch\), memcg /t: "
like "... its 256 pages in /t's generations" "$out" "rw-p +256  \[anon\]"
out=$("$UMKIT" drgn $g -e 'memcg(prog, "/nope")' 2>&1); rc=$?
like "a memcg that is not there: one line" "$rc:$out" "^1:umkit: drgn: no memory cgroup /nope"

# --- the guest runs on ---------------------------------------------------------
cat > "$work/busy.py" <<'EOF'
import sys, time
print("drgn: reading", flush=True)
n, end = 0, time.monotonic() + 4
while time.monotonic() < end:
    process_gens(prog, int(sys.argv[1]))
    n += 1
print("drgn: %d passes" % n)
EOF
"$UMKIT" drgn $g "$work/busy.py" "$tp" > "$work/busy.out" 2>&1 &
dpid=$!
i=0
while [ $i -lt 100 ] && ! grep -q "drgn: reading" "$work/busy.out"; do sleep 0.1; i=$((i + 1)); done
worst=0 fails=0 states=""
for k in 1 2 3; do
	s=$(date +%s%N)
	"$UMKIT" exec $g -- true || fails=$((fails + 1))
	t=$(ms $s); [ $t -gt $worst ] && worst=$t
	states="$states$(sed -n 's/^State:[[:space:]]*\(.\).*/\1/p' /proc/$upid/status)$(sed -n 's/^TracerPid:[[:space:]]*//p' /proc/$upid/status) "
done
is "while drgn reads, umkit exec NAME -- true answers (3 of 3)" "$fails" 0
if [ $worst -le 2000 ]; then ok "... each within 2 s (slowest $worst ms)"; else not_ok "... each within 2 s" "slowest $worst ms"; fi
like "... the UML process is never stopped or traced (state, tracer pid)" "$states" "^([RSD]0 ){3}$"
wait $dpid; rc=$?
is "the reading script ends by itself, status 0" "$rc" 0
like "... having read the process many times" "$(cat "$work/busy.out")" "^drgn: [0-9]+ passes$"

# --- a script, the prompt, errors ------------------------------------------------
printf 'import sys\nprint(sys.argv[1:], prog["init_task"].pid.value_())\n' > "$work/args.py"
out=$("$UMKIT" drgn $g "$work/args.py" a b 2>&1)
is "SCRIPT ARGS: sys.argv and prog" "$out" "['a', 'b'] 0"
out=$(printf 'print(lruvec(prog).lrugen.max_seq.value_())\n' | "$UMKIT" drgn $g 2>&1); rc=$?
like "the prompt, fed on stdin, has prog and the helpers" "$rc:$out" "^0:.*umkit drgn: guest $g .*
$(lru_max 1)"
out=$("$UMKIT" drgn $g --gens 2 2>&1); rc=$?
is "--gens on a kernel thread: one line, status 1" "$rc:$out" "1:umkit: drgn: process 2 (kthreadd) is a kernel thread: no pages"
out=$("$UMKIT" drgn $g --gens 99999 2>&1); rc=$?
is "--gens on no process" "$rc:$out" "1:umkit: drgn: no process 99999 in the guest"
out=$("$UMKIT" drgn $g -e 1 --gens 1 2>&1); rc=$?
like "-e and --gens together: usage" "$rc:$out" "^125:usage: umkit drgn NAME"
out=$("$PY" -B uml/guest/umkit_drgn.py --pid "$upid" --vmlinux build/k/base/linux -e 1 2>&1); rc=$?
like "another build's vmlinux is refused (build ids)" "$rc:$out" "^125:umkit: drgn: guest pid $upid runs another build than build/k/base/linux .*restart the guest$"

# --- a lab's drgn step (tests/fixtures/labs/drgn.lab) ------------------------
out=$(XDG_STATE_HOME="$work/state" "$UMKIT" lab tests/fixtures/labs/drgn.lab --batch \
	--answers right 2>&1); rc=$?
is "a lab's drgn --gens step: the batch passes" "$rc" 0
like "... the pages' generations read before the aging" "$out" "^ok 1 gens: young >= 2000"
like "... and one generation older after it (result(gens.KEY))" "$out" \
	"^ok 2 gens: result\(gens.age1\) \+ result\(gens.age2\) >= young"
like "... the drgn ran on the host, the guest on" "$out" "drgn --gens umkit-touch \(on the host, the guest runs on\)"
sed 's/^variants base+debug$/variants base/' tests/fixtures/labs/drgn.lab > "$work/nodebug.lab"
out=$(XDG_STATE_HOME="$work/state" "$UMKIT" lab "$work/nodebug.lab" --batch 2>&1); rc=$?
is "a drgn step on a kernel without debug info: the batch still passes" "$rc" 0
like "... the step SKIPs, saying why" "$out" \
	"^ok 1 gens: .* # SKIP a drgn step needs a \+debug variant"

# --- a kernel without debug info ----------------------------------------------
out=$("$UMKIT" start -n $gb 2>&1)
like "a base guest starts" "$out" "guest $gb started \(base,"
out=$("$UMKIT" drgn $gb -e 1 2>&1); rc=$?
is "drgn on base: status 125" "$rc" 125
is "... in one line" "$(printf '%s\n' "$out" | wc -l)" 1
like "... saying how to boot one with debug info" "$out" "^umkit: guest $gb runs base, a kernel without debug info: .*umkit start -V base\+debug -n NAME \(built\)$"
"$UMKIT" stop $gb >/dev/null 2>&1

out=$("$UMKIT" exec $g -- true 2>&1); rc=$?
is "the guest still answers" "$rc:$out" "0:"
"$UMKIT" stop $g >/dev/null 2>&1
no_leftovers "no guest, mount or run/ entry is left"
is "no drgn python is left" "$(pgrep -f 'umkit_drgn.py --pid' | wc -l)" 0
done_testing
