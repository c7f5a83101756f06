#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check's workloads_host: the workloads' host tests, on this machine.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
exec make -s -C "$ROOT/tests/workloads_host" check
