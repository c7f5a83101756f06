#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check's late_home: the last node loads ddsm late.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
exec bash "$ROOT/qemu/cluster.sh" -n 3 -t 300 --name late-home \
	--during "bash $ROOT/tests/vm/late_home/during.sh" \
	-- bash /ddsm/tests/late_home/guest.sh
