#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# uml/install/mkman.sh UMKIT VERSION DATE > umkit.1 - the manual page, made from
# the launcher's own --help texts (the one place they are written), so
# `man umkit` says what `umkit COMMAND --help` says.
#
# UMKIT is the built launcher; VERSION goes into the page's footer; DATE
# (YYYY-MM-DD) is the source's date, so the page is the same every build.
set -eu
[ $# -eq 3 ] || { echo "usage: mkman.sh UMKIT VERSION DATE" >&2; exit 2; }
umkit=$1 version=$2 date=$3
tmpf=$(mktemp)
trap 'rm -f "$tmpf"' EXIT INT TERM

# Text as roff: backslashes as \e, - as a minus (\-), a leading . or ' made literal.
roff() { sed -e 's/\\/\\e/g' -e 's/-/\\-/g' -e "s/^\\([.']\\)/\\\\\\&\\1/"; }

cmds=$("$umkit" --help | awk '/^Example/ { exit } /^  umkit [a-z]/ { print $2 }')
[ -n "$cmds" ] || { echo "mkman.sh: $umkit --help lists no commands" >&2; exit 1; }

cat <<EOF
.TH UMKIT 1 "$date" "umkit $version" "User Commands"
.SH NAME
umkit \\- User-Mode Linux guests for memory-management labs
.SH SYNOPSIS
.B umkit
.I COMMAND
.RI [ ARGS ]
.br
.B umkit
.IR COMMAND " \\-\\-help"
.SH DESCRIPTION
umkit boots Linux 7.2 kernels built as User-Mode Linux on a busybox
initramfs in a fraction of a second, mirrors each running guest's /proc
and /sys (with debugfs and tracefs) onto the host through a FUSE file
system, and draws what the memory manager does in an ncurses TUI.  Labs
step a student through experiments.  No VM, KVM or root is needed.
.SH COMMANDS
EOF
for c in $cmds; do
	"$umkit" "$c" --help > "$tmpf" ||
		{ echo "mkman.sh: umkit $c --help failed" >&2; exit 1; }
	syn=$(sed -n '1s/^usage: //p' "$tmpf")
	echo ".SS \"$(printf '%s\n' "$syn" | roff | sed 's/"/\\(dq/g')\""
	echo ".nf"
	sed '1,2d' "$tmpf" | roff
	echo ".fi"
done
cat <<'EOF'
.SH "EXIT STATUS"
.B umkit exec
exits with the command's own status (128+N when it died of signal N);
123 when the guest kernel panicked, 124 when the \-t timeout ran out,
125 for umkit's own errors (a bad option, a failed build or boot),
130 or 143 when umkit was interrupted.
.SH FILES
An installed umkit reads only its own files and writes nothing there:
.TP
.I PREFIX/lib/umkit/
the TUI (umkit\-tui), umkit\-value, the kernel build scripts, the
kernels of the shipped variants
.RI ( k/VARIANT/linux ,
with
.I linux.debug
and
.I System.map
for symbols and
.I config
for the configuration), the rootfs and the guest programs.
.TP
.I PREFIX/share/umkit/
the labs and their documentation, and the variants' patches.
.PP
What a user's runs write goes to that user's own directories:
.TP
.I $XDG_RUNTIME_DIR/umkit/NAME/
a running guest: its mirror at
.IR mnt/ ,
its disk image, its control socket (when
.B XDG_RUNTIME_DIR
is unset or not the user's own:
.IR $XDG_STATE_HOME/umkit/run/ ).
.TP
.I $XDG_STATE_HOME/umkit/
(default
.IR ~/.local/state/umkit/ )
console logs
.RI ( log/ ),
lab results, progress and recordings.
.TP
.I $XDG_CACHE_HOME/umkit/
(default
.IR ~/.cache/umkit/ )
the kernel source, ccache, disk templates and the kernels of variants
you build
.RI ( build/k/VARIANT/ ).
.TP
.I $XDG_DATA_HOME/umkit/patches/VARIANT/
(default
.IR ~/.local/share/umkit/patches/ )
your own variants: a
.I series
file and its patches, built on first use.
.TP
.I /var/cache/umkit/src/
a shared, read-only kernel source an administrator may install
.RB ( "fetch\-source.sh \-\-shared" );
used instead of downloading one per user.
.SH ENVIRONMENT
.TP
.B XDG_RUNTIME_DIR XDG_STATE_HOME XDG_CACHE_HOME XDG_DATA_HOME
where a user's files go (above).
.TP
.B UMKIT_CACHE
the cache directory instead of
.IR $XDG_CACHE_HOME/umkit .
.TP
.B UMKIT_RUN
an absolute directory for the guests' run directories (sockets, pid
files, the mirror's mount point) instead of
.IR $XDG_RUNTIME_DIR/umkit ;
in a checkout instead of
.I run/
(its console logs too).
.TP
.B UMKIT_SHARED_CACHE
the shared cache instead of
.IR /var/cache/umkit .
.TP
.B KSRC
your own kernel tree to build variants from (never written to).
.TP
.B TMPDIR
where UML maps the guest's memory from (else /dev/shm or /tmp).
.SH "SEE ALSO"
The README, the lab format (labs.md) and the other documents in
.IR PREFIX/share/doc/umkit/ .
EOF
