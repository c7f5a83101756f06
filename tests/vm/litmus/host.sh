#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check's litmus: four nodes so that IRIW's four threads each get
# their own.  250 iterations per test and layout keep make check within
# its 40 minutes (about 8-23 ms per iteration on the 2-core host; 600 took
# 138 s); make soak runs LITMUS_ITERS=5,000, `guest.sh --long` 100,000.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
exec bash "$ROOT/qemu/cluster.sh" -n 4 -t 2400 \
	--name litmus -- bash /ddsm/tests/litmus/guest.sh -n "${LITMUS_ITERS:-250}"
