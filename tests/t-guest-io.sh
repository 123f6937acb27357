#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# beside tests: files and streams in its own guests
# Your own programs in the guest (--add HOSTPATH[:GUESTPATH]) and the
# command's standard input (exec -i), in one-shot and named guests.
. "$(dirname "$0")/lib.sh"

tmp=$(mktemp -d /tmp/umkit-t-io.XXXXXX) || exit 2
holder=
cleanup() {
	[ -n "$holder" ] && kill "$holder" 2>/dev/null
	"$UMKIT" stop tio >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# A static program (prints its name and arguments, exits 7), the same
# built dynamically, and a directory with a program, a script, data and
# a symlink, with modes to keep.
cat > "$tmp/hi.c" <<'EOF'
#include <stdio.h>
int main(int argc, char **argv)
{
	printf("hi:");
	for (int i = 1; i < argc; i++)
		printf(" %s", argv[i]);
	printf("\n");
	return 7;
}
EOF
gcc -static -O2 -o "$tmp/hi" "$tmp/hi.c" || { echo "not ok - gcc -static"; exit 1; }
gcc -O2 -o "$tmp/hi-dyn" "$tmp/hi.c" || { echo "not ok - gcc"; exit 1; }
mkdir -p "$tmp/kit/bin"
cp "$tmp/hi" "$tmp/kit/bin/prog"
printf '#!/bin/sh\necho "script: $*"\n' > "$tmp/kit/run.sh"
chmod 750 "$tmp/kit/run.sh"
echo data > "$tmp/kit/data"
chmod 604 "$tmp/kit/data"
ln -s bin/prog "$tmp/kit/prog-link"
log_id() { ls -l --time-style=+%s.%N "$RUN/log/exec.log" 2>/dev/null; }

# --- --add: one-shot guests -------------------------------------------

out=$("$UMKIT" exec --add "$tmp/hi" -- sh -c 'command -v hi; hi a b' 2>&1)
rc=$?
is "--add: a static program is in /usr/local/bin, on PATH, and runs" \
	"$out" "/usr/local/bin/hi
hi: a b"
is "--add: its exit status passes through" "$rc" 7

out=$("$UMKIT" exec --add "$tmp/hi:/opt/tools/hello" --add "$tmp/hi:/srv/" -- \
	sh -c '/opt/tools/hello x; /srv/hi y; stat -c %a /opt/tools' 2>&1)
is "--add HOST:GUEST puts it there (a trailing / means into that directory)" \
	"$out" "hi: x
hi: y
755"

out=$("$UMKIT" exec --add "$tmp/kit" -- sh -c 'cd /root/kit &&
	stat -c "%a %n" run.sh data bin/prog && readlink prog-link &&
	./run.sh ok; ./bin/prog d' 2>&1)
is "--add DIR: the tree is in /root/DIR with its modes, symlinks and scripts" \
	"$out" "750 run.sh
604 data
755 bin/prog
bin/prog
script: ok
hi: d"
out=$("$UMKIT" exec --add "$tmp/kit" -- sh -c '/root/kit/prog-link l; cat /root/kit/data' 2>&1)
is "--add DIR: a symlink in it leads to its program; data is data" "$out" "hi: l
data"

# The same paths with other contents: the new ones are booted.
printf '#!/bin/sh\necho version-1\n' > "$tmp/ver"; chmod 755 "$tmp/ver"
v1=$("$UMKIT" exec --add "$tmp/ver" -- ver 2>&1)
printf '#!/bin/sh\necho version-2\n' > "$tmp/ver"
v2=$("$UMKIT" exec --add "$tmp/ver" -- ver 2>&1)
is "--add: a file changed between boots is seen changed" "$v1 $v2" "version-1 version-2"
no_leftovers "nothing left after guests with added files"
is "no initrd is left in run/" "$(ls "$RUN"/*/initrd 2>/dev/null)" ""

# --- --add of dynamically linked programs: their loader and libraries --
out=$("$UMKIT" exec --add "$tmp/hi-dyn" -- hi-dyn a b 2>&1)
rc=$?
is "--add of a dynamically linked program: it runs in the guest" "$rc:$out" "7:hi: a b"
out=$("$UMKIT" exec --add "$tmp/hi-dyn" -- sh -c \
    'ls /lib64/ld-linux-x86-64.so.2 /lib/x86_64-linux-gnu/libc.so.6' 2>&1)
is "... with its interpreter and libc at the host's paths" "$out" \
"/lib/x86_64-linux-gnu/libc.so.6
/lib64/ld-linux-x86-64.so.2"
cp "$tmp/hi-dyn" "$tmp/kit/bin/dyn"
out=$("$UMKIT" exec --add "$tmp/kit" -- /root/kit/bin/dyn x 2>&1)
is "a dynamic program inside an added directory runs" "$out" "hi: x"
rm "$tmp/kit/bin/dyn"
out=$("$UMKIT" exec --add /bin/ls -- ls -d /proc/self 2>&1)
is "Debian's /bin/ls runs (libselinux, libpcre2 with it)" "$out" "/proc/self"
# A library of our own: found through $ORIGIN in RUNPATH, and named when
# it cannot be found.
mkdir -p "$tmp/app/lib"
printf 'int umkit_t_answer(void) { return 42; }\n' > "$tmp/lib.c"
printf '#include <stdio.h>\nint umkit_t_answer(void);\nint main(void) { printf("%%d\\n", umkit_t_answer()); return 0; }\n' > "$tmp/app.c"
gcc -shared -fPIC -o "$tmp/app/lib/libumkt.so" "$tmp/lib.c" &&
gcc -o "$tmp/app/app" "$tmp/app.c" -L"$tmp/app/lib" -lumkt -Wl,-rpath,'$ORIGIN/lib' &&
gcc -o "$tmp/app-norpath" "$tmp/app.c" -L"$tmp/app/lib" -lumkt ||
	{ echo "not ok - gcc -shared"; exit 1; }
mkdir "$tmp/lost" && cp "$tmp/app/app" "$tmp/lost/app"
out=$("$UMKIT" exec --add "$tmp/lost/app" -- app 2>&1)
rc=$?
like "a library of \$ORIGIN/lib that is not there: named, exit 125" "$rc:$out" \
	"^125:umkit: --add $tmp/lost/app: libumkt.so, needed by $tmp/lost/app, is not found \(searched its RUNPATH"
out=$("$UMKIT" exec --add "$tmp/app:/opt/" -- /opt/app/app 2>&1)
is "... and with its directory added, \$ORIGIN/lib resolves" "$out" "42"
before=$(log_id)
out=$("$UMKIT" exec --add "$tmp/app-norpath" -- true 2>&1)
rc=$?
is "a missing library: exit 125" "$rc" 125
is "... naming the library, the program and where it looked, in one line" "$out" \
	"umkit: --add $tmp/app-norpath: libumkt.so, needed by $tmp/app-norpath, is not found (searched ld.so.cache, /lib/x86_64-linux-gnu, /usr/lib/x86_64-linux-gnu, /lib and /usr/lib)"
is "... and nothing was booted" "$(log_id)" "$before"
cp "$tmp/hi-dyn" "$tmp/arm"
printf '\267\000' | dd of="$tmp/arm" bs=1 seek=18 conv=notrunc 2>/dev/null
out=$("$UMKIT" exec --add "$tmp/arm" -- true 2>&1)
rc=$?
like "a program for another machine is refused, named, exit 125" "$rc:$out" \
	"^125:umkit: --add: $tmp/arm is a program for another machine \(ELF e_machine 183\)"
if command -v stress-ng >/dev/null; then
	out=$("$UMKIT" exec -m 256M --add "$(command -v stress-ng)" -- \
	    stress-ng --vm 1 --vm-bytes 32M -t 3 2>&1)
	rc=$?
	is "Debian's stress-ng --vm 1 --vm-bytes 32M -t 3 runs in the guest" \
		"$rc:$(printf '%s\n' "$out" | grep -c 'successful run completed')" "0:1"
else
	skip "Debian's stress-ng runs in the guest" "stress-ng is not installed (uml/install/deps.sh installs it)"
fi
if command -v fio >/dev/null; then
	out=$("$UMKIT" exec -m 512M --add "$(command -v fio)" -- fio --name=t \
	    --directory=/mnt/disk --size=4M --rw=write --bs=64k 2>&1)
	rc=$?
	like "Debian's fio runs a small job on /mnt/disk (its shm segment: SysV IPC)" \
		"$rc:$(printf '%s\n' "$out" | grep 'WRITE: bw=')" '^0: +WRITE: bw='
else
	skip "Debian's fio runs in the guest" "fio is not installed (uml/install/deps.sh installs it)"
fi

before=$(log_id)
out=$("$UMKIT" exec --add "$tmp/nope" -- true 2>&1)
rc=$?
is "--add of a missing path exits 125" "$rc" 125
is "and names the path" "$out" "umkit: --add: $tmp/nope: No such file or directory"
out=$("$UMKIT" exec --add "$tmp/hi:/proc/hi" -- true 2>&1)
like "a GUESTPATH the guest mounts over is refused" "$out" \
	'^umkit: --add .*: /proc/hi is mounted over in the guest'
out=$("$UMKIT" exec --add "$tmp/hi:/bin" -- true 2>&1)
like "a file where the rootfs has a directory is refused" "$out" \
	'/bin is a directory in the guest'
out=$("$UMKIT" exec --add "$tmp/hi:/root/../init" -- true 2>&1)
like "a GUESTPATH with .. is refused" "$out" "has a '..' component"
is "and nothing was booted for any of them" "$(log_id)" "$before"
no_leftovers "nothing left after refused --add"

# --- --add: a named guest ------------------------------------------------

out=$("$UMKIT" start -n tio --add "$tmp/hi" --add "$tmp/kit:/opt/kit" 2>&1)
like "start --add starts the guest" "$out" 'guest tio started'
out=$("$UMKIT" exec tio -- hi named 2>&1)
is "a named guest runs an added program" "$out" "hi: named"
out=$("$UMKIT" exec tio -- /opt/kit/run.sh too 2>&1)
is "and an added directory's script" "$out" "script: too"
out=$("$UMKIT" exec --add "$tmp/hi" tio -- true 2>&1)
like "--add with a running guest's name is refused" "$out" \
	"files are added when a guest boots; 'tio' is running already"

# --- -i: standard input ------------------------------------------------

head -c 2000000 /dev/urandom > "$tmp/bin2m"
want=$(sha256sum < "$tmp/bin2m" | cut -d' ' -f1)
got=$("$UMKIT" exec -i -- sha256sum < "$tmp/bin2m" 2>&1 | cut -d' ' -f1)
is "-i: 2 MB of binary data reach the command intact (sha256)" "$got" "$want"
out=$(head -c 100000 "$tmp/bin2m" | "$UMKIT" exec -i -- wc -c 2>&1)
is "-i from a pipe: every byte, then EOF ends wc" "$(echo $out)" 100000
out=$(printf 'one\ntwo\n' | "$UMKIT" exec -i -- cat 2>&1)
is "-i: cat echoes its input and ends at EOF" "$out" "one
two"
printf 'echo script-$((6 * 7))\nexit 3\n' > "$tmp/script.sh"
out=$("$UMKIT" exec -i -- sh < "$tmp/script.sh" 2>&1)
rc=$?
is "-i: sh < script.sh runs the script" "$out:$rc" "script-42:3"
out=$(echo "not for you" | "$UMKIT" exec -- cat 2>&1)
is "without -i the command's stdin is /dev/null" "$out" ""

# Stdin that never ends (a terminal, say) does not keep umkit waiting.
mkfifo "$tmp/fifo"
sleep 60 > "$tmp/fifo" &
holder=$!
out=$(timeout 20 "$UMKIT" exec -i -- echo done < "$tmp/fifo" 2>&1)
is "-i with stdin that stays open: umkit ends when the command does" "$out:$?" "done:0"

head -c 300000 "$tmp/bin2m" > "$tmp/bin300k"
want=$(sha256sum < "$tmp/bin300k" | cut -d' ' -f1)
# The host reads UML's kernel process makes (/proc/PID/io syscr) while
# 300000 bytes go in: about 1300 since patches/base/0005 reads a line's
# input in chunks, 303163 when arch/um/drivers/chan_kern.c read it a
# byte per read(2).
syscr() { awk '$1 == "syscr:" { print $2 }' "/proc/$(cat "$RUN/tio/uml.pid")/io" 2>/dev/null; }
r0=$(syscr)
got=$("$UMKIT" exec -i tio -- sha256sum < "$tmp/bin300k" 2>&1 | cut -d' ' -f1)
r1=$(syscr)
is "-i in a named guest: the data arrive intact" "$got" "$want"
n=$(( ${r1:-0} - ${r0:-0} ))
if [ -n "$r0" ] && [ -n "$r1" ] && [ "$n" -lt 30000 ]; then
	ok "-i: UML reads its serial line in chunks, not a byte at a time ($n host reads for 300000 bytes)"
else
	not_ok "-i: UML reads its serial line in chunks, not a byte at a time" \
	    "host reads of UML's kernel process: '$r0' -> '$r1', want fewer than 30000 more"
fi
out=$(printf 'x\ny\n' | "$UMKIT" exec -i tio -- wc -l 2>&1)
is "-i in a named guest: EOF ends the command" "$(echo $out)" 2
out=$(echo "not for you" | "$UMKIT" exec tio -- cat 2>&1)
is "a named guest without -i: stdin is /dev/null" "$out" ""

# A client that goes away (Ctrl-C, kill) has its command killed in the
# guest.  SIGTERM: a background job of a script ignores SIGINT.
"$UMKIT" exec -i tio -- sh -c 'echo $$ > /tmp/reader; exec cat' < "$tmp/fifo" >/dev/null 2>&1 &
pid=$!
i=0
while [ $i -lt 50 ] && ! "$UMKIT" exec tio -- test -s /tmp/reader 2>/dev/null; do
	sleep 0.1; i=$((i + 1))
done
{ kill -TERM $pid; wait $pid; } 2>/dev/null
gone=1
i=0
while [ $i -lt 30 ]; do
	"$UMKIT" exec tio -- sh -c 'kill -0 $(cat /tmp/reader)' 2>/dev/null || { gone=0; break; }
	sleep 0.1; i=$((i + 1))
done
is "a killed 'exec -i NAME': its command in the guest is killed too" "$gone" 0
out=$(echo still | "$UMKIT" exec -i tio -- cat 2>&1)
is "and the guest serves the next exec -i" "$out" "still"
kill "$holder" 2>/dev/null
holder=

"$UMKIT" stop tio >/dev/null 2>&1
no_leftovers "nothing left after the named guest"

done_testing
