#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# beside tests: files of the checkout, read
# The licence: LICENSE is the GPL version 2, every file of the kit names
# it in an SPDX line at its top, the package's copyright file says it.
. "$(dirname "$0")/lib.sh"

spdx='SPDX-License-Identifier: GPL-2.0-only'
# exempt PATH: a file that is data or the kernel's input, not the kit's
# source (README's Licence section says which and why).
exempt() {
	case $1 in
	LICENSE|README|uml/install/deb/copyright|uml/install/deb/control) return 0 ;;
	tests/fuzz-corpus*/*) return 0 ;;		# fuzz inputs
	tests/fixtures/*.sh) return 1 ;;
	tests/fixtures/*) return 0 ;;			# captured guest files
	patches/*) return 0 ;;				# the kernel's inputs
	uml/kernel/*.config) return 0 ;;		# kernel config fragments
	esac
	return 1
}

if [ -f /usr/share/common-licenses/GPL-2 ]; then
	check "LICENSE is the GNU GPL version 2 (Debian's common-licenses/GPL-2)" \
		cmp "$TOP/LICENSE" /usr/share/common-licenses/GPL-2
else
	like "LICENSE is the GNU GPL version 2" "$(head -3 "$TOP/LICENSE")" \
		'GNU GENERAL PUBLIC LICENSE'
fi

# The kit's files: git's list in a checkout, else every file (a tarball).
if git -C "$TOP" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	list=$(git -C "$TOP" ls-files)
else
	list=$(cd "$TOP" && find . -path ./build -prune -o -path ./run -prune -o \
	    -type f -print | sed 's|^\./||')
fi
missing= n=0
for f in $list; do
	exempt "$f" && continue
	[ -f "$TOP/$f" ] || continue
	n=$((n + 1))
	head -n 3 "$TOP/$f" | grep -q "$spdx" || missing="$missing $f"
done
is "each of the kit's $n files has '$spdx' in its first 3 lines" "${missing# }" ""
like "the Debian package's copyright file says GPL-2.0-only for the kit" \
	"$(tr '\n' ' ' < "$TOP/uml/install/deb/copyright")" \
	'Files: \* Copyright: [^:]* License: GPL-2\.0-only'
like "... and names what the package has from others" \
	"$(tr '\n' ' ' < "$TOP/uml/install/deb/copyright")" \
	'Linux 7\.2.*busybox.*GNU C Library'
like "the README has a Licence section" "$(cat "$TOP/README")" '^Licence$'

done_testing
