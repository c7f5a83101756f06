#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check's coherence: 2,000 LOCK XADDs per thread: in the 64-counter
# phase nearly every one is an ownership transfer, 12,000 in all (make
# soak: COUNTER_ROUNDS=10000 per thread).
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
exec bash "$ROOT/qemu/cluster.sh" -n 3 -t 1200 \
	--name coherence -- "COUNTER_ROUNDS=${COUNTER_ROUNDS:-2000} bash /ddsm/tests/coherence/guest.sh"
