#!/bin/bash
# Run the kernel's checkpatch.pl --strict over ddsm's kernel C sources.
# CHECKPATCH: path to checkpatch.pl (default: the one in the linux-source
# tree that tests/kunit/host.sh extracts under $BUILD_DIR/kunit).
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$ROOT/build}
CHECKPATCH=${CHECKPATCH:-$(ls "$BUILD_DIR"/kunit/src-*/scripts/checkpatch.pl 2>/dev/null | tail -n 1)}
if [ -z "$CHECKPATCH" ] || [ ! -f "$CHECKPATCH" ]; then
	echo "checkpatch.pl not found: run tests/kunit/host.sh once or set CHECKPATCH" >&2
	exit 2
fi
cd "$ROOT"
# shim_user.h is the user-space side of kernel/lib/shim.h: never built in
# a kernel, it spells C's own types.
files=$(ls kernel/*/*.[ch] include/uapi/linux/*.h tests/kunit/*.c |
	grep -vx kernel/lib/shim_user.h)
perl "$CHECKPATCH" --strict --no-tree --terse --show-types \
	--ignore SPDX_LICENSE_TAG,FILE_PATH_CHANGES -f $files
