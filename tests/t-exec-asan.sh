#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The one-shot exec tests again, with the launcher built with ASan and
# UBSan: a leak or an invalid access changes an exit status or prints a
# report, and the checks that follow fail.
cd "$(dirname "$0")/.." || exit 2
if [ ! -x build/tests/umkit-asan ]; then
	echo "ok 1 - exec tests under ASan # SKIP build/tests/umkit-asan not built (make test builds it)"
	echo "1..1"
	exit 0
fi
UMKIT_BIN="$PWD/build/tests/umkit-asan" ASAN_OPTIONS=detect_leaks=1 \
	UBSAN_OPTIONS=halt_on_error=1 exec sh tests/t-exec.sh
