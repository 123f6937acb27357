#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# uml/guest/mkdisk.sh MB OUT - make the template of a guest's scratch disk.
#
# The launcher copies the template (sparsely, ~1 MiB of data for 2 GiB)
# into run/NAME/disk.img for every guest with a disk, and runs this script
# once per size when the template is missing or older than this script.
#
# ext4 without a journal: a scratch disk needs no crash consistency, and
# no jbd2 commits every 5 s means no disk writes the workload did not ask
# for.  The inode tables are zeroed here (lazy_itable_init=0) so the guest
# kernel starts no ext4lazyinit thread that would write them during an
# experiment; zeroing writes 16 MiB per GiB, which cp --sparse turns back
# into holes.  Fixed UUID and hash seed: the same image every time, so
# directory layouts repeat from run to run.
set -eu
[ $# -eq 2 ] || { echo "usage: mkdisk.sh MB OUT" >&2; exit 2; }
mb=$1 out=$2
case "$mb" in '' | *[!0-9]*) echo "mkdisk.sh: $mb: not a size in MiB" >&2; exit 2 ;; esac

mke2fs=$(command -v mke2fs 2>/dev/null || true)
for d in /sbin /usr/sbin; do
	[ -n "$mke2fs" ] || [ ! -x $d/mke2fs ] || mke2fs=$d/mke2fs
done
if [ -z "$mke2fs" ]; then
	echo "umkit: mke2fs not found: the guest disk needs e2fsprogs (or use -d 0)" >&2
	exit 1
fi

mkdir -p "$(dirname "$out")"
tmp=$out.tmp.$$
trap 'rm -f "$tmp" "$tmp.z"' EXIT INT TERM
# Fixed timestamps too (e2fsprogs reads E2FSPROGS_FAKE_TIME).
E2FSPROGS_FAKE_TIME=1700000000 "$mke2fs" -q -F -t ext4 -O ^has_journal \
	-E lazy_itable_init=0,root_owner=0:0,hash_seed=6d6b6974-6469-736b-0000-000000000000 \
	-U 6d6b6974-6469-736b-0000-000000000001 -L umkit-disk -m 0 \
	"$tmp.z" "${mb}M" >/dev/null
cp --sparse=always "$tmp.z" "$tmp"
mv "$tmp" "$out"
