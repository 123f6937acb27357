#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Build the ARCH=um kernel of one variant.
#
#   kbuild.sh VARIANT      prints the path of the built kernel binary
#   kbuild.sh VARIANT+debug    the same variant with uml/kernel/debug.config added
#                          (DWARF and the kernel's gdb scripts; the mm KUnit
#                          suites, run at a boot with kunit.enable=1: umkit
#                          selftests --kunit), built in its own
#                          build/k/VARIANT+debug/
#   kbuild.sh VARIANT+cov  the same variant with uml/kernel/gcov.config added and
#                          gcov profiling of the .c files its patches
#                          change (umkit compare --coverage), in its own
#                          build/k/VARIANT+cov/
#   kbuild.sh --tree VARIANT  step 1 only: prints the path of the patched
#                          tree (a lab's kernel exercise starts from it;
#                          an installed kit ships kernels, not trees)
#   kbuild.sh --config VARIANT  steps 1 and 2: prints the path of the
#                          variant's .config (build/k/VARIANT/obj/.config)
#   kbuild.sh --selftests VARIANT  step 1, then the tree's own
#                          tools/testing/selftests/mm built with its
#                          Makefile (make -k: a test whose library is
#                          missing is left out) against the tree's x86
#                          uapi headers, into build/k/VARIANT/selftests/mm
#                          (kept while the tree's stamp is the same);
#                          prints that directory
#
# Steps, each skipped when its inputs did not change:
#   1. tree    build/k/VARIANT/src: a hard-link farm of the pristine source
#              (a symlink farm when it is another user's, e.g. the shared
#              source of an installed kit) with base's series and then the
#              variant's own applied (all or nothing); made whole once,
#              then, for a new series on the same source, only the files
#              either series changes (tests/t-kbuild-tree.sh);
#   2. config  tinyconfig + uml/kernel/umkit.config + patches/VARIANT/config
#              (+ uml/kernel/debug.config for VARIANT+debug), merged with the
#              kernel's merge_config.sh, then verified; kept in the cache
#              by its inputs, and taken from there by the next tree with
#              the same inputs (tests/t-kbuild-config.sh);
#   3. build   O=build/k/VARIANT/obj with ccache; the kernel is copied to
#              build/k/VARIANT/linux only after a successful build, and
#              kept as it was when make changed nothing.  A first build
#              starts from a copy of the objects of a built tree with the
#              same config (base, usually; also from UMKIT_SEED_FROM's
#              build directories), so it compiles only what the series
#              changes.  No make at all when nothing in the tree
#              and obj/ is newer than the last build's record
#              (build/k/VARIANT/.umkit-built) and its inputs are the same.
#
# Coverage: a variant whose directory has a file 'profile' (object files,
# one per line: mm/vmscan.o) and CONFIG_GCOV_KERNEL=y in its config gets
# GCOV_PROFILE_vmscan.o := y in its own tree's mm/Makefile, and after the
# build the objects' .gcno files beside its kernel, in gcno/ (with
# gcno/objtree, the build directory the guest's debugfs names).
#
# Base's series (patches/base/series: fixes every kernel needs, such as
# UML's software accessed bit on hosts without protection keys) goes
# under every variant, smoke variants included (a patch under test goes
# on top of it), and is part of each tree's stamp.  It is
# $UMKIT_PATCHES/base when that has a series, else the kit's own.
#
# Environment: KSRC (own kernel tree, never written to), UMKIT_BUILD (build
# directory), UMKIT_PATCHES (patches directory), UMKIT_CACHE (cache dir),
# UMKIT_SHARED_CACHE (a shared read-only source and ccache, default
# /var/cache/umkit, used where present).
# UMKIT_DEBUG_CONFIG (the fragment of +debug kernels; uml/kernel/debug.config).
# UMKIT_KCONFIG_CACHE (the configs kept by their inputs, default
# $UMKIT_CACHE/kconfig; off: always made).
# UMKIT_SEED_FROM (other build directories, DIR:DIR, whose built trees
# may seed a first build here as this one's do: a checkout's build/ for
# an installed kit's first builds, say.  Their objects go into this
# tree's kernel: name only build directories you trust.)
# UMKIT_UNTRUSTED=1: the series is not the kit's (an exercise; smoke
# variants always are untrusted).  UMKIT_SANDBOX=off: no sandbox.
#
# The sandbox (docs/security.md, the same rules as uml/sandbox.c): every
# command that runs the tree's own code (its Makefiles, scripts, host
# programs: configuring and building) runs under bubblewrap in new user,
# pid, network and IPC namespaces, the host read-only, $HOME and the
# checkout hidden, writable only the object and config directories and
# the ccache.  Where bubblewrap cannot make namespaces, an untrusted
# series is refused (exit 1) and a trusted one builds without it.
# Exit status: 0 ok, 1 usage or environment, 2 patch, 3 config, 4 build.
set -eu
# The kit's own make flags (make -s, V=1, -n, a jobserver) are not the
# kernel's: its build is the same whoever calls this script.  (Under a
# 'make -n test', whose '+' recipes run this script, olddefconfig was a
# dry run, and the kernel built from tinyconfig's .config under the
# stamp of the right one.)
unset MAKEFLAGS MFLAGS GNUMAKEFLAGS MAKELEVEL

here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$(dirname "$here")")
# HOME may be unset (cron, CI): take the user's home from passwd.
: "${HOME:=$(getent passwd "$(id -u)" | cut -d: -f6)}"
cache=${UMKIT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/umkit}
if [ -f "$here/../installed" ]; then
	# An installed kit, here = PREFIX/lib/umkit/kernel (read-only): the kit's
	# variants in PREFIX/share/umkit, the build in the user's cache.
	build=${UMKIT_BUILD:-$cache/build}
	kitpatches=$(dirname "$top")/share/umkit/patches
else
	build=${UMKIT_BUILD:-$top/build}
	kitpatches=$top/patches
fi
patches=${UMKIT_PATCHES:-$kitpatches}
# base's series, applied under every other variant's
basedir=$patches/base
[ -f "$basedir/series" ] || basedir=$kitpatches/base
tree_only= selftests= config_only=
case ${1:-} in
--tree)		tree_only=1; shift ;;
--config)	config_only=1; shift ;;
--selftests)	tree_only=1 selftests=1; shift ;;
esac
variant=${1:-base}
# VARIANT+debug: VARIANT's patches, its own build directory, debug info.
# VARIANT+cov: the same with gcov for the .c files its patches change.
pvariant=${variant%+debug}
debugcfg= cov=
# UMKIT_DEBUG_CONFIG: another debug fragment (make bench-debuginfo).
[ "$pvariant" = "$variant" ] || debugcfg=${UMKIT_DEBUG_CONFIG:-$here/debug.config}
case $variant in
*+cov)	pvariant=${variant%+cov} cov=1 debugcfg=$here/gcov.config ;;
esac

die() { code=$1; shift; echo "umkit: $*" >&2; exit "$code"; }

# A smoke variant (umkit smoke: smoke-HASH) has its patches in
# build/smoke/HASH and builds in one tree shared by every smoke variant
# (build/k/smoke-tree, or smoke-tree-debug with a debug config), so that
# the next patch rebuilds only the files the two patch sets touch; its
# kernel is copied to build/smoke/HASH/linux.
case $pvariant in
smoke-*)
	[ -z "$debugcfg" ] ||
		die 1 "no variant '$variant': a smoke kernel's debug and coverage builds are 'umkit smoke --debug' and '--coverage'"
	pdir="$build/smoke/${pvariant#smoke-}"
	# A patch under test applies exactly, as git am would (no fuzz).
	fuzz=--fuzz=0
	if [ -f "$pdir/profile" ]; then vdir="$build/k/smoke-tree-cov"
	elif [ -f "$pdir/config" ]; then vdir="$build/k/smoke-tree-debug"
	else vdir="$build/k/smoke-tree"; fi ;;
*)	pdir="$patches/$pvariant" vdir="$build/k/$variant" fuzz= ;;
esac
[ -n "$pvariant" ] && [ -f "$pdir/series" ] ||
	die 1 "no variant '$pvariant' (no $pdir/series; see 'umkit variants')"
[ -f "$basedir/series" ] || die 1 "no base series ($basedir/series)"
# base itself: its series once
[ "$(cd "$basedir" && pwd -P)" != "$(cd "$pdir" && pwd -P)" ] || basedir=

if [ -n "${KSRC:-}" ]; then
	[ -f "$KSRC/Makefile" ] && [ -d "$KSRC/arch/um" ] ||
		die 1 "KSRC=$KSRC is not a Linux source tree"
	[ ! -f "$KSRC/.config" ] ||
		die 1 "KSRC=$KSRC has a .config; O= builds need a clean tree ('make mrproper' there)"
	pristine=$(cd "$KSRC" && pwd -P)
else
	pristine=$("$here/fetch-source.sh")
fi

tree="$vdir/src"
obj="$vdir/obj"
mkdir -p "$vdir"

# The sandbox, as the positional parameters of sb's bwrap (sb_init, then
# sb_ro/sb_rw add to it); sandboxed= says whether it is used.
untrusted=${UMKIT_UNTRUSTED:-}
case $pvariant in smoke-*) untrusted=1 ;; esac
sandboxed=
if [ "${UMKIT_SANDBOX:-}" != off ]; then
	if bwrap --unshare-user --unshare-pid --unshare-net --die-with-parent \
	    --ro-bind / / --proc /proc -- true 2>/dev/null; then
		sandboxed=1
	elif [ -n "$untrusted" ]; then
		die 1 "variant $variant: refused without a sandbox (bubblewrap cannot make its namespaces here; 'umkit doctor'); build it anyway with UMKIT_SANDBOX=off (--no-sandbox), at your own risk"
	else
		echo "umkit: variant $variant: building without a sandbox (bubblewrap cannot make its namespaces here; 'umkit doctor')" >&2
	fi
fi
sb_args=
# sb_add WORD...: more bwrap words (kept NUL-free and newline-separated).
sb_add() { for w in "$@"; do sb_args="$sb_args$w
"; done; }
# sb_hide DIR [ro]: an empty tmpfs over an existing directory; ro: made
# read-only once the binds below it are in (sb_ro_list, deepest first).
sb_ro_list= sb_hidden=
sb_hide() {
	# Below a directory hidden read-only already: empty anyway.
	for h in $sb_hidden; do
		case $1 in "$h"|"$h"/*) return 0 ;; esac
	done
	[ -z "$1" ] || [ "$1" = / ] || [ ! -d "$1" ] || {
		[ -z "${2:-}" ] || sb_hidden="$sb_hidden $1"
		sb_add --tmpfs "$1"
		[ -z "${2:-}" ] || sb_ro_list="--remount-ro
$1
$sb_ro_list"
	}
}
sb_ro() { [ ! -e "$1" ] || sb_add --ro-bind "$1" "$1"; }
sb_rw() { [ ! -e "$1" ] || sb_add --bind "$1" "$1"; }
# sb CMD...: CMD in the sandbox (or as it is, without one), in the
# current directory (it must be one bound writable: merge_config.sh
# makes its temporary files there).
sb() {
	if [ -z "$sandboxed" ]; then "$@"; return; fi
	(
		IFS='
'
		set -f
		# shellcheck disable=SC2086
		exec bwrap $sb_args $sb_ro_list -- "$@"
	)
}
# sb_bg CMD...: sb CMD... in the background, $! the sandbox (or CMD)
# itself, not a subshell, so that killing $! ends it.
sb_bg() {
	if [ -z "$sandboxed" ]; then "$@" & return; fi
	sb_ifs=$IFS
	IFS='
'
	set -f
	# shellcheck disable=SC2086
	bwrap $sb_args $sb_ro_list -- "$@" &
	set +f
	IFS=$sb_ifs
}
sb_add --unshare-user --unshare-pid --unshare-net --unshare-ipc \
	--die-with-parent --ro-bind / / --dev /dev --proc /proc
sb_hide /tmp; sb_hide /var/tmp; sb_hide /dev/shm; sb_hide /run/user ro
sb_hide "$HOME" ro
[ -f "$here/../installed" ] || sb_hide "$top" ro
sb_hide "$cache" ro
sb_add --setenv HOME /nonexistent --setenv TMPDIR /tmp

# One build of a variant at a time.
exec 9>"$vdir/.lock"
flock 9

# series_patches [DIR]: the patch names of DIR's series (the variant's)
series_patches() {
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' "${1:-$pdir}/series" |
		awk 'NF {print $1}'
}
# The patches applied, in order: base's series (b/NAME), then the
# variant's own (v/NAME); patch_path gives a word's file.
all_patches() {
	[ -z "$basedir" ] || series_patches "$basedir" | sed 's|^|b/|'
	series_patches | sed 's|^|v/|'
}
patch_path() {
	case $1 in
	b/*) echo "$basedir/${1#b/}" ;;
	*) echo "$pdir/${1#v/}" ;;
	esac
}

# Files a patch touches (from its +++/--- lines, -p1).
patch_files() {
	awk '/^(\+\+\+|---) / {
		f = $2; sub(/\t.*/, "", f)
		if (f == "/dev/null") next
		sub(/^[^\/]*\//, "", f); print f }' "$1" | sort -u
}

# The objects to profile with gcov: the variant's profile file, or for
# VARIANT+cov the objects of the .c files its patches change.
profile_objs() {
	if [ -f "$pdir/profile" ]; then
		awk 'NF && $1 !~ /^#/ {print $1}' "$pdir/profile"
	elif [ -n "$cov" ]; then
		for p in $(series_patches); do patch_files "$pdir/$p"; done |
			sed -n 's/\.c$/.o/p' | sort -u
	fi
}

# Replace a hard link by a private, writable copy (touching its mtime so
# make rebuilds what depends on it).
private_copy() {
	[ -f "$1" ] || return 0
	cp "$1" "$1.umkit-tmp" && mv -f "$1.umkit-tmp" "$1" && chmod u+w "$1"
}

# A file's identity: device, inode, mtime and size (nothing if missing).
ident() { stat -c '%d:%i %.9Y %s' "$1" 2>/dev/null || true; }

# --- 1. tree ---------------------------------------------------------------
# Every patch the series names must exist: checked here, in this shell (a
# die inside the $( ... | sha256sum) below would only end its subshell).
set -f	# no globbing of the series' names
for d in ${basedir:+"$basedir"} "$pdir"; do
	for p in $(series_patches "$d"); do
		case $p in
		*[!A-Za-z0-9._+-]*|.*) die 2 "variant $variant: $d/series names '$p': a patch name is letters, digits, '.', '_', '+', '-'" ;;
		esac
		[ -f "$d/$p" ] ||
			die 2 "variant $variant: series names $p, which is not in $d/"
	done
done
set +f
stamp=$( {
	echo "$pristine"; cat "$pristine/.umkit-pristine" 2>/dev/null
	[ -z "$basedir" ] || { echo base; cat "$basedir/series"; }
	cat "$pdir/series"; profile_objs
	for w in $(all_patches); do
		sha256sum < "$(patch_path "$w")"
	done
} | sha256sum | cut -c1-16)

# The pristine source the tree links to: a tree made from another (a new
# kernel, another KSRC) is made again whole.
pristine_id=$( { echo "$pristine"; cat "$pristine/.umkit-pristine" 2>/dev/null; } |
	sha256sum | cut -c1-16)

# apply_series DIR: every patch of the series applied in DIR, whose files
# prep_file makes private first, and the profiled objects' Makefiles
# edited; the files changed, one per line, in DIR.files.  Dies (2) when a
# patch does not apply, leaving DIR to the caller's trap.  in_tree DIR
# FILE: whether the patched tree will have FILE.
in_tree() { [ -f "$1/$2" ] || [ -f "$pristine/$2" ]; }
apply_series() {
	: > "$1.files"
	for w in $(all_patches); do
		pf=$(patch_path "$w") p=${w#?/}
		for f in $(patch_files "$pf"); do
			prep_file "$1" "$f"
			echo "$f" >> "$1.files"
		done
		# base's patches are the kit's own: fuzz as usual
		pfuzz=$fuzz
		[ "${w%%/*}" = v ] || pfuzz=
		if ! out=$(patch -p1 -N -f $pfuzz --no-backup-if-mismatch -r - -d "$1" < "$pf" 2>&1); then
			echo "umkit: variant $variant: patch $pf does not apply:" >&2
			# smoke variants say where each patch came from
			[ "${w%%/*}" != v ] || [ ! -f "$pdir/sources" ] ||
				awk -F '\t' -v p="$p" '$1 == p { print "    (from " $2 (($3 != "") ? ": " $3 : "") ")" }' "$pdir/sources" >&2
			echo "$out" | sed 's/^/    /' >&2
			die 2 "variant $variant: nothing was changed (pristine tree and other builds untouched)"
		fi
	done
	# Profiled objects: GCOV_PROFILE_X.o := y in their directory's
	# Makefile (or Kbuild), a private copy.
	objs=$(profile_objs)
	for o in $objs; do
		case $o in
		*.o) ;;
		*) die 1 "variant $variant: $pdir/profile: '$o' is not an object file (mm/vmscan.o)" ;;
		esac
		d=$(dirname "$o")
		mf="$d/Makefile"
		in_tree "$1" "$mf" || mf="$d/Kbuild"
		in_tree "$1" "$mf" && in_tree "$1" "${o%.o}.c" ||
			die 1 "variant $variant: $pdir/profile: no ${o%.o}.c with a Makefile in the tree"
		grep -qxF "$mf" "$1.files" || { prep_file "$1" "$mf"; echo "$mf" >> "$1.files"; }
		printf 'GCOV_PROFILE_%s := y\n' "$(basename "$o")" >> "$1/$mf"
	done
}

if [ "$(cat "$tree/.umkit-stamp" 2>/dev/null)" != "$stamp" ] &&
   [ -f "$tree/.umkit-stamp" ] && [ -f "$tree/.umkit-patched" ] &&
   [ "$(cat "$tree/.umkit-pristine-id" 2>/dev/null)" = "$pristine_id" ]; then
	# A tree of another series on the same source: only the files
	# either series changes are made again, in a stage beside it, and
	# moved in once every patch has applied (about 0.05 s, where a new
	# farm of the source's 95000 files and the old one's removal took
	# 3.1 s).  The stamp goes first: a move cut short leaves a tree
	# without one, which the next build makes again whole.
	stage="$vdir/stage.new"
	rm -rf "$stage" "$stage.files"
	trap 'rm -rf "$stage" "$stage.files"' EXIT INT TERM
	mkdir "$stage"
	# prep_file DIR FILE: FILE's pristine text, a file of its own in
	# the stage (nothing when the source has no FILE: a new file).
	# A file an earlier patch of the series changed is kept as it is.
	prep_file() {
		! grep -qxF "$2" "$1.files" || return 0
		[ -f "$pristine/$2" ] || return 0
		mkdir -p "$(dirname "$1/$2")"
		cp "$pristine/$2" "$1/$2" && chmod u+w "$1/$2"
	}
	apply_series "$stage"
	# The previous series' files, back to the pristine text (a copy, so
	# make rebuilds what depends on them), or gone if the source has none.
	for f in $(sort -u "$tree/.umkit-patched"); do
		grep -qxF "$f" "$stage.files" || prep_file "$stage" "$f"
	done
	rm -f "$tree/.umkit-stamp"
	for f in $(sort -u "$tree/.umkit-patched" "$stage.files"); do
		# A file both series make the same (base's) keeps its time:
		# make has nothing to do for it.
		if [ -f "$stage/$f" ] && grep -qxF "$f" "$tree/.umkit-patched" &&
		    cmp -s "$stage/$f" "$tree/$f"; then
			:
		elif [ -f "$stage/$f" ]; then
			mkdir -p "$(dirname "$tree/$f")"
			mv -f "$stage/$f" "$tree/$f"
		else
			rm -f "$tree/$f"
		fi
	done
	mv -f "$stage.files" "$tree/.umkit-patched"
	echo "$stamp" > "$tree/.umkit-stamp"
	rm -rf "$stage"
	trap - EXIT INT TERM
elif [ "$(cat "$tree/.umkit-stamp" 2>/dev/null)" != "$stamp" ]; then
	new="$vdir/src.new"
	rm -rf "$new" "$new.files"
	trap 'rm -rf "$new" "$new.files"' EXIT INT TERM
	# Hard links, else symbolic ones: a shared source owned by another
	# user cannot be hard-linked (fs.protected_hardlinks), and a copy of
	# it would be 1.3 GB per user.  A copy is the last resort.
	cp -al "$pristine" "$new" 2>/dev/null ||
		{ rm -rf "$new"; cp -as "$pristine" "$new" 2>/dev/null; } ||
		{ rm -rf "$new"; cp -a "$pristine" "$new"; }
	rm -f "$new/.umkit-stamp" "$new/.umkit-patched" "$new/.umkit-pristine-id"
	# prep_file DIR FILE: the link replaced by a private copy.
	prep_file() { private_copy "$1/$2"; }
	apply_series "$new"
	# Files patched in the previous tree but not now: fresh copies, so
	# their objects are rebuilt from the pristine text.
	if [ -f "$tree/.umkit-patched" ]; then
		for f in $(sort -u "$tree/.umkit-patched"); do
			grep -qxF "$f" "$new.files" || private_copy "$new/$f"
		done
	fi
	mv -f "$new.files" "$new/.umkit-patched"
	echo "$pristine_id" > "$new/.umkit-pristine-id"
	echo "$stamp" > "$new/.umkit-stamp"
	rm -rf "$tree.old"
	[ ! -d "$tree" ] || mv "$tree" "$tree.old"
	mv "$new" "$tree"
	rm -rf "$tree.old"
	trap - EXIT INT TERM
fi

if [ -n "$selftests" ]; then
	# The headers (ARCH=x86: the guest runs x86-64 programs; UML has no
	# uapi of its own) and the tests, both by the tree's own Makefiles,
	# in the sandbox: only selftests/ writable.
	st="$vdir/selftests"
	if [ "$(cat "$st/.umkit-stamp" 2>/dev/null)" != "$stamp" ] || [ ! -d "$st/mm" ]; then
		rm -rf "$st"
		mkdir -p "$st/hdr" "$st/mm"
		# Its check_config.sh writes into the test directory: a copy of
		# it (not links into the pristine source) is bound over it.
		cp -RL "$tree/tools/testing/selftests/mm" "$st/src"
		sb_ro "$pristine"; sb_ro "$tree"; sb_rw "$st"
		sb_add --bind "$st/src" "$tree/tools/testing/selftests/mm"
		[ -n "$sandboxed" ] || die 1 "variant $variant: the selftests build only in the sandbox (it keeps their writes out of the tree)"
		( cd "$st" &&
		  sb make -s -C "$tree" ARCH=x86 O="$st/hdr" headers &&
		  sb make -k -j"$(nproc)" -C "$tree/tools/testing/selftests/mm" ARCH=x86 \
		    OUTPUT="$st/mm" KHDR_INCLUDES="-isystem $st/hdr/usr/include" ) \
		    > "$vdir/selftests.log" 2>&1 || true
		n=$(find "$st/mm" -maxdepth 1 -type f -perm -u+x | wc -l)
		[ "$n" -gt 0 ] || die 4 "variant $variant: no mm selftest built (see $vdir/selftests.log)"
		# The tests: the programs the tree's run_vmtests.sh runs without
		# arguments, with their category (read as text, never run here).
		sed -n -E 's/^[[:space:]]*CATEGORY="([a-z0-9_-]+)" run_test \.\/([A-Za-z0-9_.-]+)[[:space:]]*$/\2 \1/p' \
		    "$tree/tools/testing/selftests/mm/run_vmtests.sh" | sort -u -k1,1 |
		while read -r t c; do
			[ -x "$st/mm/$t" ] && echo "$t $c"
		done > "$st/mm/.umkit-tests" || true
		echo "$stamp" > "$st/.umkit-stamp"
	fi
	echo "$st/mm"
	exit 0
fi
if [ -n "$tree_only" ]; then
	echo "$tree"
	exit 0
fi

# --- 2. config -------------------------------------------------------------
# The fragments, as the positional parameters (each quoted where used).
set -- "$here/umkit.config"
[ ! -f "$pdir/config" ] || set -- "$@" "$pdir/config"
[ -z "$debugcfg" ] || set -- "$@" "$debugcfg"
# Kconfig records the rustc that PATH finds (CONFIG_RUSTC_VERSION and
# others, so include/generated/autoconf.h, which every object includes):
# root's rustup rustc against a student's PATH without one made every
# object of the shared ccache miss.  umkit's kernels use no Rust: the same
# "no rustc" for everybody, in the config and in the build (and in the
# config's stamp, so that a config made before this is made again).
norust=RUSTC=umkit-no-rustc
# The config depends on the source and on what Kconfig reads: Kconfig
# files, config fragments (tinyconfig's tiny.config), scripts/ and the
# Makefiles that set its variables.  A series that changes none of them
# (mm/vmscan.c) keeps the config: making it again is 10 s of every smoke
# build, and two trees with one cstamp have the same .config.
config_files() {
	grep -E '(^|/)Kconfig[^/]*$|\.config$|^scripts/|^Makefile$|^arch/[^/]*/Makefile' "$tree/.umkit-patched" 2>/dev/null | sort -u
}
cstamp=$( {
	echo "$pristine"; cat "$pristine/.umkit-pristine" 2>/dev/null
	for f in $(config_files); do
		echo "$f"; sha256sum < "$tree/$f" 2>/dev/null || echo deleted
	done
	cat "$@"; echo "$norust"
} | sha256sum | cut -c1-16)
# A first build starts from a copy of another tree's objects when that
# tree has the same config and its last build succeeded (base, for the
# first smoke-tree build): make then compiles only the files whose text
# differs (the first smoke-tree build of a one-file patch: 46 s of
# ccache hits before, 14 s now; make test's t-kbuild-seed).  The copy's
# absolute paths (the .cmd files' commands and dependencies, obj/Makefile,
# obj/source) name the other tree and are rewritten to this one; files
# that tree had patched and this one has not get fresh copies here, so
# make rebuilds them from the pristine text.
# The seed for $obj: a built tree whose config stamp is $cstamp, base
# first: this build directory's, then those of UMKIT_SEED_FROM.
seed_of() {
	_from=${UMKIT_SEED_FROM:-}
	set -- "$build/k/base" "$build/k"/*
	while [ -n "$_from" ]; do
		_b=${_from%%:*}
		[ "$_b" = "$_from" ] && _from= || _from=${_from#*:}
		[ -n "$_b" ] && set -- "$@" "$_b/k/base" "$_b/k"/*
	done
	for d in "$@"; do
		[ "$d" != "$vdir" ] && [ -f "$d/obj/Makefile" ] && [ -f "$d/src/.umkit-stamp" ] || continue
		[ "$(cat "$d/obj/.umkit-config-stamp" 2>/dev/null)" = "$cstamp" ] || continue
		[ -n "$(ident "$d/obj/linux")" ] &&
			[ "$(cat "$d/linux.from" 2>/dev/null)" = "$(ident "$d/obj/linux")" ] || continue
		# A tree somebody edited by hand (a file newer than its stamp)
		# has objects its patches do not explain.
		[ -z "$(find "$d/src" -type f -newer "$d/src/.umkit-stamp" -print -quit)" ] || continue
		echo "$d"
		return 0
	done
	return 1
}
sed_quote() { printf '%s' "$1" | sed 's/[].[*^$\\/|]/\\&/g'; }
seedobj=
if [ -n "${UMKIT_NO_SEED:-}" ]; then :
elif [ ! -f "$obj/.config" ] && seed=$(seed_of); then
	seedobj="$obj.seed"
	rm -rf "$seedobj"
	trap 'rm -rf "$seedobj"' EXIT INT TERM
	# Not while that tree is being made (its kbuild.sh holds its lock
	# before ours: waiting here could deadlock): then a plain build.  (A
	# tree of UMKIT_SEED_FROM we may not write: its lock read-only.)
	if [ -w "$seed" ]; then
		exec 7>"$seed/.lock"
	elif [ -r "$seed/.lock" ]; then
		exec 7<"$seed/.lock"
	else
		exec 7</dev/null
	fi
	if flock -n 7; then
		cp -a "$seed/obj" "$seedobj"
	fi
	exec 7>&-
fi
if [ -n "$seedobj" ] && [ -d "$seedobj" ]; then
	mkdir -p "$obj"
	os=$(cd "$seed/src" && pwd -P) ns=$(cd "$tree" && pwd -P)
	oo=$(cd "$seed/obj" && pwd -P) no=$(cd "$obj" && pwd -P)
	grep -rlIZ -F -e "$os" -e "$oo" "$seedobj" | xargs -0 -r sed -i \
		-e "s|$(sed_quote "$os")|$(sed_quote "$ns")|g" -e "s|$(sed_quote "$oo")|$(sed_quote "$no")|g"
	ln -sfn "$ns" "$seedobj/source"
	for f in $(sort -u "$seed/src/.umkit-patched" 2>/dev/null); do
		grep -qxF "$f" "$tree/.umkit-patched" || private_copy "$tree/$f"
	done
	# This tree's own patched files (private copies) newer than any
	# object of the copy, even if that tree was built after this one
	# was made -- except those patched the same in both (base's series,
	# under every variant): they keep that tree's time, so its objects
	# of them stand.
	for f in $(sort -u "$tree/.umkit-patched"); do
		[ -f "$tree/$f" ] || continue
		if grep -qxF "$f" "$seed/src/.umkit-patched" 2>/dev/null &&
		    cmp -s "$tree/$f" "$seed/src/$f"; then
			touch -r "$seed/src/$f" "$tree/$f"
		else
			touch "$tree/$f"
		fi
	done
	touch "$tree/.umkit-stamp"
	rm -rf "$obj"
	mkdir -p "$(dirname "$obj")"
	mv "$seedobj" "$obj"
	trap - EXIT INT TERM
	case $seed in
	"$build"/k/*) seedname=$(basename "$seed") ;;
	*) seedname=$seed ;;
	esac
	echo "umkit: variant $variant: first build from $seedname's objects (same config)" >&2
fi
cfg="$vdir/cfg"
mk() { sb make -s -C "$tree" ARCH=um "$norust" "$@"; }
# What the tree's code may read and write: the tree (and the pristine
# source its links point into), the config fragments, obj/ and cfg/.
mkdir -p "$obj" "$cfg"
sb_ro "$pristine"; sb_ro "$tree"
for f in "$@"; do sb_ro "$f"; done
sb_rw "$obj"; sb_rw "$cfg"

# The configs made before, by their inputs: tinyconfig, the merge and
# olddefconfig take 28 s here (20.7 s and 7.4 s: every Kconfig pass runs
# the compiler's probes), the first build of every tree that has no seed.
# The key is the config stamp, the compiler's, linker's and make's
# versions, the host architecture and this recipe; only a Debian source
# (its .umkit-pristine) is keyed by name: a KSRC tree may change under
# the same path, so its config is always made.  UMKIT_KCONFIG_CACHE=off:
# never from the cache.
kconfig_recipe=1
kcache=${UMKIT_KCONFIG_CACHE:-$cache/kconfig}
kcfile=
if [ "$kcache" != off ] && [ -f "$pristine/.umkit-pristine" ]; then
	kckey=$( {
		echo "$cstamp $kconfig_recipe $(uname -m)"
		gcc --version 2>&1 | head -1; ld --version 2>&1 | head -1
		make --version 2>&1 | head -1
	} | sha256sum | cut -c1-24)
	kcfile=$kcache/$kckey.config
fi
# stuck CONFIG FRAGMENT...: the values the fragments ask for that CONFIG
# (a .config) lacks, one per line as "CONFIG_X=v (got w)".
stuck() {
	_c=$1; shift
	cat "$@" | awk -v cfgfile="$_c" '
		BEGIN { while ((getline l < cfgfile) > 0) {
			if (l ~ /^CONFIG_[A-Za-z0-9_]+=/) { k = l; sub(/=.*/, "", k); v = l; sub(/^[^=]*=/, "", v); have[k] = v }
			else if (l ~ /^# CONFIG_[A-Za-z0-9_]+ is not set/) { split(l, a, " "); have[a[2]] = "n" } } }
		/^CONFIG_[A-Za-z0-9_]+=/ { k = $0; sub(/=.*/, "", k); v = $0; sub(/^[^=]*=/, "", v)
			got = (k in have) ? have[k] : "n"; if (got != v) print k "=" v " (got " got ")" }
		/^# CONFIG_[A-Za-z0-9_]+ is not set/ { k = $2; if ((k in have) && have[k] != "n") print k "=n (got " have[k] ")" }'
}
if [ "$(cat "$obj/.umkit-config-stamp" 2>/dev/null)" != "$cstamp" ] || [ ! -f "$obj/.config" ]; then
	rm -rf "$cfg"/* "$cfg"/.[!.]* 2>/dev/null || true; mkdir -p "$cfg" "$obj"
	# A cached config is used when it is a UML one and every requested
	# value is in it (a damaged file is made again).
	if [ -n "$kcfile" ] && [ -s "$kcfile" ] && grep -qx 'CONFIG_UML=y' "$kcfile" &&
	    [ -z "$(stuck "$kcfile" "$@")" ] && cp "$kcfile" "$cfg/.config"; then
		echo "umkit: config from the cache: $kcfile (the same sources, fragments and compiler)" > "$vdir/config.log"
		touch "$kcfile"
	else
		{
			mk O="$cfg" tinyconfig &&
			(cd "$cfg" && sb "$tree/scripts/kconfig/merge_config.sh" -m -O "$cfg" "$cfg/.config" "$@") &&
			mk O="$cfg" olddefconfig
		} > "$vdir/config.log" 2>&1 || die 3 "variant $variant: configuring failed (see $vdir/config.log)"
		# A file the tree's code made (not a link it planted elsewhere).
		[ -f "$cfg/.config" ] && [ ! -L "$cfg/.config" ] ||
			die 3 "variant $variant: configuring made no .config in $cfg"
		# Every requested value must have stuck.
		bad=$(stuck "$cfg/.config" "$@")
		if [ -n "$bad" ]; then
			echo "umkit: variant $variant: these options did not stick after olddefconfig:" >&2
			echo "$bad" | sed 's/^/    /' >&2
			echo "    (an option UML lacks, or one whose dependencies are off; see 'make ARCH=um O=$cfg menuconfig')" >&2
			exit 3
		fi
		# Kept for the next tree with these inputs (the newest 64 configs).
		if [ -n "$kcfile" ] && mkdir -p "$kcache" 2>/dev/null; then
			if cp "$cfg/.config" "$kcfile.$$" 2>/dev/null; then
				mv -f "$kcfile.$$" "$kcfile"
			else
				rm -f "$kcfile.$$"
			fi
			ls -t "$kcache" | sed 1,64d | while read -r f; do rm -f "$kcache/$f"; done
		fi
	fi
	cmp -s "$cfg/.config" "$obj/.config" || cp "$cfg/.config" "$obj/.config"
	echo "$cstamp" > "$obj/.umkit-config-stamp"
	rm -rf "$cfg"/* "$cfg"/.[!.]* 2>/dev/null || true
fi
if [ -n "$config_only" ]; then
	echo "$obj/.config"
	exit 0
fi

# --- 3. build --------------------------------------------------------------
export CCACHE_DIR="${CCACHE_DIR:-$cache/ccache}"
export CCACHE_BASEDIR="$build/k"
export CCACHE_NOHASHDIR=1
# Depend mode takes the headers from the compiler's -MD output instead of
# running the preprocessor a second time on every miss: a cold build with
# an empty cache took 195 s without it and 156 s with it (no ccache: 140 s),
# and a fresh checkout's rebuild from the cache 39 s without, 24 s with.
export CCACHE_DEPEND=1
export CCACHE_COMPILERCHECK=content
export CCACHE_MAXSIZE="${CCACHE_MAXSIZE:-5G}"
# A classroom's shared ccache (uml/kernel/shared-cache.sh fills it once), read
# only: each user's own ccache stays theirs, and starts full of hits.
# (Not when the caller chose the remote storage: shared-cache.sh writes
# the shared one, and a read-only one here would win over it.)
shared_cc=${UMKIT_SHARED_CACHE:-/var/cache/umkit}/ccache
# Only one that is root's (or ours) and that nobody else may write.
shared_ok() {
	set -- "$(stat -Lc '%u %a' "$1" 2>/dev/null)"
	case ${1%% *} in 0|"$(id -u)") ;; *) return 1 ;; esac
	case ${1##* } in *[2367][0-7]|*[2367]) return 1 ;; esac
}
if [ -d "$shared_cc" ] && ! shared_ok "$shared_cc"; then
	echo "umkit: $shared_cc is not root's (or yours) or others may write it: not using it" >&2
elif [ -z "${CCACHE_REMOTE_STORAGE:-}${CCACHE_SECONDARY_STORAGE:-}" ] && [ -d "$shared_cc" ] && [ "$(cd "$shared_cc" && pwd -P)" != "$(mkdir -p "$CCACHE_DIR" && cd "$CCACHE_DIR" && pwd -P)" ]; then
	export CCACHE_SECONDARY_STORAGE="file:$shared_cc|read-only"
fi
export KBUILD_BUILD_TIMESTAMP="umkit" KBUILD_BUILD_USER=umkit KBUILD_BUILD_HOST=umkit
# ccache hashes LANG, LC_ALL, LC_CTYPE and LC_MESSAGES (the compiler's
# messages may change with them): none for everybody, or the shared ccache,
# filled by root with LANG=C.UTF-8, has nothing for a student with another
# locale or none (the kernel's Makefile unexports LC_ALL, so LC_ALL=C
# here would not do).
unset LANG LC_ALL LC_CTYPE LC_MESSAGES
cc="gcc"
command -v ccache >/dev/null 2>&1 && cc="ccache gcc"
jobs=$(nproc 2>/dev/null || echo 2)
# A +debug kernel also gets the kernel's gdb helpers (obj/vmlinux-gdb.py).
targets=linux
[ -z "$debugcfg" ] || [ -n "$cov" ] || targets="linux scripts_gdb"
# Up to date: make with nothing to do walks every directory of the tree
# (5-6 s on a 2-core host, every 'make kernel', every variant a test
# boots), so a build that succeeded leaves a record of what it was
# made of beyond the files of the tree and obj/ (the tree's and config's
# stamps, this script, the compiler, the targets), written after every
# file of both.  The same record, the kernel copied from obj/linux, and
# no file of either newer than the record (links followed in the tree,
# where a hand edit may go through one): nothing to do, no make.  A
# smoke kernel (one tree, many variants) always asks make.
built=$vdir/.umkit-built
bkey=$( { cat "$tree/.umkit-stamp" "$obj/.umkit-config-stamp" 2>/dev/null
	echo "$cc $targets $norust"; gcc --version | head -1; sha256sum < "$0"; } | sha256sum | cut -c1-16)
if [ "$vdir" = "$build/k/$variant" ] && [ -f "$vdir/linux" ] &&
    [ "$(cat "$built" 2>/dev/null)" = "$bkey" ] &&
    [ "$(cat "$vdir/linux.from" 2>/dev/null)" = "$(ident "$obj/linux")" ] &&
    [ -z "$(find -L "$tree" -newer "$built" -print -quit 2>/dev/null)" ] &&
    [ -z "$(find "$obj" -newer "$built" -print -quit)" ]; then
	echo "umkit: variant $variant: up to date (nothing newer than $built): make not run" > "$vdir/build.log"
	echo "$vdir/linux"
	exit 0
fi
rm -f "$built"
# One kernel build at a time per user, across checkouts: each one uses
# every core, and two at once only make both slower.
mkdir -p "$cache"
exec 8>"$cache/kbuild.lock"
if ! flock -n 8; then
	echo "umkit: waiting for another kernel build to finish" >&2
	flock 8
fi
# No kernel while building: an interrupted or failed build must not leave
# the previous binary looking like the result of these inputs.  It waits
# in linux.prev instead, and comes back as it was (same file, no copy)
# when make left obj/linux untouched and linux.from says the binary was
# copied from that very obj/linux.
rm -f "$vdir/linux.new" "$vdir/linux.prev"
trap 'rm -f "$vdir/linux.new" "$vdir/linux.prev"' EXIT INT TERM
before=$(ident "$obj/linux")
# How long make took, once the lock was ours (make bench-debuginfo).
t0=$(date +%s.%N)
[ ! -f "$vdir/linux" ] || mv -f "$vdir/linux" "$vdir/linux.prev"
# On a terminal: one updating line, the objects compiled so far, of as
# many as this tree's last build compiled (umkit smoke draws its own).
ticker=
if [ -t 2 ]; then
	of=$(cat "$vdir/.umkit-objects" 2>/dev/null || true)
	[ -z "$of" ] || of=" of ~$of"
	(
		set +e
		trap 'exit 0' TERM
		while kill -0 $$ 2>/dev/null; do
			sleep 1
			n=$(grep -c '^  CC ' "$vdir/build.log" 2>/dev/null)
			printf '\rumkit: building %s: %d%s objects, %ds   ' "$variant" "${n:-0}" "$of" \
				"$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%d", b - a }')" >&2
		done
	) &
	ticker=$!
	trap 'kill $ticker 2>/dev/null; rm -f "$vdir/linux.new" "$vdir/linux.prev"' EXIT INT TERM
fi
stop_ticker() {
	[ -n "$ticker" ] || return 0
	kill "$ticker" 2>/dev/null || true
	wait "$ticker" 2>/dev/null || true
	printf '\r%78s\r' '' >&2
	ticker=
}
mkdir -p "$CCACHE_DIR"
sb_rw "$CCACHE_DIR"
# make runs in the background and we wait for it: sh runs a trap only
# when its foreground command ends, but a signal ends a wait at once.  A
# stop signal (umkit passes Ctrl-C, a timeout's TERM on to us) kills the
# build's sandbox (--die-with-parent takes every make with it) and exits.
sb_bg make -C "$tree" ARCH=um "$norust" O="$obj" CC="$cc" HOSTCC="$cc" -j"$jobs" $targets > "$vdir/build.log" 2>&1
mk=$!
trap 'kill $mk 2>/dev/null; exit 130' INT
trap 'kill $mk 2>/dev/null; exit 143' TERM
if ! wait $mk; then
	stop_ticker
	tail -n 25 "$vdir/build.log" >&2
	die 4 "variant $variant: kernel build failed (full log: $vdir/build.log)"
fi
stop_ticker
# The objects this build compiled: the next one's progress line says "of ~N".
n=$(grep -c '^  CC ' "$vdir/build.log" || true)
[ "${n:-0}" -eq 0 ] || echo "$n" > "$vdir/.umkit-objects"
after=$(ident "$obj/linux")
awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f\n", b - a }' > "$vdir/build.secs"
if [ -n "$before" ] && [ "$before" = "$after" ] && [ -f "$vdir/linux.prev" ] &&
    [ "$(cat "$vdir/linux.from" 2>/dev/null)" = "$after" ]; then
	mv -f "$vdir/linux.prev" "$vdir/linux"
else
	rm -f "$vdir/linux.prev" "$vdir/linux.from"
	cp "$obj/linux" "$vdir/linux.new"
	echo "$after" > "$vdir/linux.from"
	mv -f "$vdir/linux.new" "$vdir/linux"
fi
trap - EXIT INT TERM
# Coverage: the profiled objects' notes files, where the kernel goes.
kdir=$vdir
[ "$vdir" = "$build/k/$variant" ] || kdir=$pdir
if [ -f "$pdir/profile" ] || [ -n "$cov" ]; then
	rm -rf "$kdir/gcno.new"; mkdir -p "$kdir/gcno.new"
	for o in $(profile_objs); do
		# Not built in this configuration: listed, not an error.
		if [ ! -f "$obj/${o%.o}.gcno" ]; then
			mkdir -p "$kdir/gcno.new"
			echo "$o" >> "$kdir/gcno.new/unbuilt"
			continue
		fi
		mkdir -p "$kdir/gcno.new/$(dirname "$o")"
		cp "$obj/${o%.o}.gcno" "$kdir/gcno.new/${o%.o}.gcno"
		cp "$tree/${o%.o}.c" "$kdir/gcno.new/${o%.o}.c"
	done
	(cd "$obj" && pwd -P) > "$kdir/gcno.new/objtree"
	rm -rf "$kdir/gcno"
	mv "$kdir/gcno.new" "$kdir/gcno"
fi
if [ "$vdir" != "$build/k/$variant" ]; then
	cp "$vdir/linux" "$pdir/linux.new" && cp "$vdir/build.log" "$pdir/build.log" &&
		mv -f "$pdir/linux.new" "$pdir/linux"
	echo "$pdir/linux"
else
	# After every file of the tree and obj/ (the up-to-date test above).
	echo "$bkey" > "$built"
	echo "$vdir/linux"
fi
