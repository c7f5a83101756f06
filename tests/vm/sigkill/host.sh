#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check's sigkill: tasks SIGKILLed while faulting.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
exec bash "$ROOT/qemu/cluster.sh" -n 3 -t 900 \
	--name sigkill -- bash /ddsm/tests/sigkill/guest.sh
