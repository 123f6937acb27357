#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# kernels: own
# t-sandbox.sh - untrusted code stays contained (docs/security.md): a
# guest's UML process runs in its own namespaces and sees none of the
# user's files; a patch whose build writes to $HOME and whose kernel
# writes host files through arch/um's os_* layer builds, boots, and
# leaves no file behind; without working namespaces an untrusted kernel
# or series is refused in one line naming --no-sandbox, a trusted one
# runs; a stale guest.pid naming another process leaves it alone.
. "$(dirname "$0")/lib.sh"

tmp=$(mktemp -d)
G=tsb-$$
cleanup() { "$UMKIT" stop $G >/dev/null 2>&1; rm -rf "$tmp"; rm -f "$HOME/umkit-escape-$$"*; }
trap cleanup EXIT INT TERM

out=$("$UMKIT" doctor 2>&1)
like "doctor: the sandbox works here" "$out" '^ok +sandbox '

# --- a running guest's view of the host ---------------------------------
out=$("$UMKIT" start -d 0 -n $G 2>&1)
like "a guest starts in the sandbox" "$out" "guest $G started"
k=$(cat "$RUN/$G/uml.pid" 2>/dev/null)
if [ -n "$k" ] && [ -d "/proc/$k" ]; then
	is "its UML process has another user namespace" \
		"$([ "$(readlink /proc/$k/ns/user)" != "$(readlink /proc/self/ns/user)" ] && echo yes)" yes
	is "another pid namespace" \
		"$([ "$(readlink /proc/$k/ns/pid)" != "$(readlink /proc/self/ns/pid)" ] && echo yes)" yes
	is "another network namespace" \
		"$([ "$(readlink /proc/$k/ns/net)" != "$(readlink /proc/self/ns/net)" ] && echo yes)" yes
	R=/proc/$k/root
	is "it sees no file of \$HOME" "$(find "$R$HOME" -type f 2>&1 | wc -l)" 0
	is "of the checkout, only its kernel, the rootfs and its run directory" \
		"$(find "$R$TOP" -type f 2>&1 | grep -v -e "^$R$TOP/build/k/base/linux\$" \
		    -e "^$R$TOP/build/rootfs/initramfs.cpio\$" -e "^$R$RUN/$G/" | wc -l)" 0
	is "of run/, no other guest" \
		"$(ls -A "$R$RUN" 2>&1 | grep -v -x -e "$G" -e log | wc -l)" 0
	is "the checkout is read-only to it" \
		"$(touch "$R$TOP/build/k/base/new" 2>&1 | grep -c 'Read-only file system')" 1
else
	for w in "another user namespace" "another pid namespace" "another network namespace" \
	    "no file of HOME" "only its files of the checkout" "no other guest" "read-only"; do
		not_ok "$w" "no UML pid in run/$G/uml.pid"
	done
fi
out=$("$UMKIT" exec $G -- sh -c 'cat /proc/meminfo | head -1; ls /mnt' 2>&1)
like "the guest works as before (meminfo)" "$out" '^MemTotal:'
"$UMKIT" stop $G >/dev/null 2>&1
no_leftovers "nothing left after the guest"

# --- a patch that tries to escape at build time and at boot --------------
# Canaries: paths a host user could write; none may exist afterwards.
C1="$HOME/umkit-escape-$$-build" C2="$HOME/umkit-escape-$$-boot"
C3="$TOP/umkit-escape-$$-boot" C4="/tmp/umkit-escape-$$-boot"
src=$(uml/kernel/fetch-source.sh)
mkdir -p "$tmp/a/mm" "$tmp/b/mm" "$tmp/a/arch/um/kernel" "$tmp/b/arch/um/kernel"
cp "$src/mm/Makefile" "$tmp/a/mm/Makefile"
cp "$src/arch/um/kernel/um_arch.c" "$tmp/a/arch/um/kernel/um_arch.c"
cp "$tmp/a/mm/Makefile" "$tmp/b/mm/Makefile"
cp "$tmp/a/arch/um/kernel/um_arch.c" "$tmp/b/arch/um/kernel/um_arch.c"
printf '\n# umkit t-sandbox: a build-time write to $HOME\n$(shell touch %s)\n' "$C1" >> "$tmp/b/mm/Makefile"
cat >> "$tmp/b/arch/um/kernel/um_arch.c" <<EOF

/* umkit t-sandbox: a kernel that writes host files at boot. */
static int __init umkit_escape(void)
{
	static const char *const paths[] = { "$C2", "$C3", "$C4", NULL };
	int i, fd;

	for (i = 0; paths[i] != NULL; i++) {
		fd = os_open_file(paths[i], of_create(of_write(OPENFLAGS())), 0644);
		if (fd >= 0) {
			os_write_file(fd, "escaped\n", 8);
			os_close_file(fd);
		}
		pr_info("umkit-escape: %s: %d\n", paths[i], fd);
	}
	return 0;
}
late_initcall(umkit_escape);
EOF
(cd "$tmp" && diff -ru a b | sed -e 's|^--- a/|--- a/|' -e 's|^+++ b/|+++ b/|') > "$tmp/escape.patch"
out=$("$UMKIT" smoke --labs none --bench none --run 'dmesg | grep umkit-escape' "$tmp/escape.patch" 2>&1)
rc=$?
like "smoke: the escaping patch builds" "$out" '^smoke: build +ok'
is "and passes (status 0)" "$rc" 0
is "its build's \$(shell touch \$HOME/...) left no file" "$([ -e "$C1" ] && echo there || echo none)" none
is "its kernel's write to \$HOME left no file" "$([ -e "$C2" ] && echo there || echo none)" none
is "nor to the checkout" "$([ -e "$C3" ] && echo there || echo none)" none
is "nor to the host's /tmp" "$([ -e "$C4" ] && echo there || echo none)" none
log=$(ls -t "$TOP"/build/smoke/*/run1-patched.log 2>/dev/null | head -1)
k=$(grep "umkit-escape: $C2:" "$log" 2>/dev/null | tail -1)
like "in the guest's log, the open of \$HOME failed (EROFS)" "$k" ": -30$"
k=$(grep "umkit-escape: $C4:" "$log" 2>/dev/null | tail -1)
like "and /tmp is the sandbox's own (the open worked there)" "$k" ": [0-9]+$"
no_leftovers "nothing left after the escaping patch"

# --- no namespaces: refusal for what is untrusted ------------------------
# A bwrap that cannot make namespaces, as on some container hosts.
mkdir -p "$tmp/fake"
printf '#!/bin/sh\necho "bwrap: No permissions to creating new namespace" >&2\nexit 1\n' > "$tmp/fake/bwrap"
chmod +x "$tmp/fake/bwrap"
out=$(PATH="$tmp/fake:$PATH" "$UMKIT" exec -k "$TOP/build/k/base/linux" -- true 2>&1)
rc=$?
is "no namespaces: an untrusted kernel (-k) is refused (125)" "$rc" 125
is "in one line" "$(printf '%s\n' "$out" | wc -l | tr -d ' ')" 1
like "naming the reason and --no-sandbox" "$out" 'refused without a sandbox: bwrap cannot make its namespaces.*--no-sandbox'
out=$(PATH="$tmp/fake:$PATH" "$UMKIT" exec -- echo ran 2>&1)
like "a trusted kernel (base) still runs" "$out" 'ran'
like "saying once that it runs without the sandbox" "$out" 'no sandbox: '
out=$(PATH="$tmp/fake:$PATH" "$UMKIT" exec --no-sandbox -k "$TOP/build/k/base/linux" -- echo ran 2>&1)
like "--no-sandbox runs the untrusted kernel" "$out" 'ran'
mkdir -p "$tmp/p/ex-t"
echo '# an untrusted series' > "$tmp/p/ex-t/series"
out=$(PATH="$tmp/fake:$PATH" UMKIT_UNTRUSTED=1 UMKIT_PATCHES="$tmp/p" UMKIT_BUILD="$tmp/build" uml/kernel/kbuild.sh ex-t 2>&1)
rc=$?
is "kbuild.sh: an untrusted series is refused (exit 1)" "$rc" 1
like "naming --no-sandbox" "$out" 'refused without a sandbox.*--no-sandbox'
no_leftovers "nothing left after the refusals"

# --- hostile names and caches in the build scripts -----------------------
mkdir -p "$tmp/p/odd"
printf '../../../etc/x.patch\n' > "$tmp/p/odd/series"
out=$(UMKIT_PATCHES="$tmp/p" UMKIT_BUILD="$tmp/build" uml/kernel/kbuild.sh odd 2>&1)
rc=$?
is "kbuild.sh: a series naming ../ is refused (exit 2)" "$rc" 2
like "naming the patch" "$out" "series names '../../../etc/x.patch'"
printf 'a*.patch\n' > "$tmp/p/odd/series"
out=$(UMKIT_PATCHES="$tmp/p" UMKIT_BUILD="$tmp/build" uml/kernel/kbuild.sh odd 2>&1)
is "a series naming a glob is refused too (exit 2)" "$?" 2
mkdir -p "$tmp/shared/src"
chmod 777 "$tmp/shared"
out=$(UMKIT_SHARED_CACHE="$tmp/shared" uml/kernel/fetch-source.sh 2>&1 >/dev/null)
like "fetch-source: a shared cache others may write is not used" "$out" "$tmp/shared is not root's .* not using it"
chmod 755 "$tmp/shared"
out=$(UMKIT_SHARED_CACHE="$tmp/shared" uml/kernel/fetch-source.sh 2>&1 >/dev/null)
is "one that is ours and closed is used (nothing said)" "$(printf '%s' "$out" | grep -c 'not using it')" 0

# --- a stale guest.pid names another process -----------------------------
# After a reboot a pid may be another program's: cleanup must not kill it.
setsid sleep 60 &
sp=$!
wait_until 20 grep -aq '^sleep' /proc/$sp/cmdline	# setsid has run and exec'd
mkdir -p "$RUN/tsb-stale-$$"
echo "1 1" > "$RUN/tsb-stale-$$/pid"
echo "$sp $sp 12345" > "$RUN/tsb-stale-$$/guest.pid"
"$UMKIT" list >/dev/null 2>&1
is "cleanup removed the stale run directory" "$([ -d "$RUN/tsb-stale-$$" ] && echo there || echo gone)" gone
is "and left the unrelated process alone" "$(kill -0 $sp 2>/dev/null && echo alive || echo killed)" alive
kill $sp 2>/dev/null

done_testing
