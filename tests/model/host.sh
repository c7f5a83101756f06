#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check's model: the model checker of tools/model over the real
# protocol code (docs/model-checker.md).  MODEL_CHECK is its make target:
# check (the default), or check-full (make soak: 2 x 2 with a one-slot
# pool too).
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
exec make -s -C "$ROOT/tools/model" "${MODEL_CHECK:-check}"
