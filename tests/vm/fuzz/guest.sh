#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side, every node at once: FUZZ_OPS (default 10000) random system
# calls on /dev/ddsm from FUZZ_PROCS (default 4) processes per node
# (ddsm-fuzz: mmap/munmap/mprotect/mremap/madvise/fork/ioctl with random
# and boundary arguments, loads and stores through the mappings,
# process_vm_readv, HADES transactions on a region every node declares).
# Every refusal must be a documented errno, no access to a live mapping
# may fault, transactions must commit, and afterwards nothing is left
# mapped and the node still serves the protocol (the cluster runner also
# fails the run on any Oops/BUG/WARNING on a console).
#
#   qemu/cluster.sh -n 3 -t 600 --name fuzz -- bash /ddsm/tests/fuzz/guest.sh

set -u
. "$(dirname "${BASH_SOURCE[0]}")/../lib/guest.sh"
OPS=${FUZZ_OPS:-10000} PROCS=${FUZZ_PROCS:-4}
SEED=${FUZZ_SEED:-$(( $(date +%s) % 100000 ))}

stat_of() { $CTL status | sed -n "s/^$1: //p"; }
load_cluster
m0=$(stat_of mappings)
run ddsm-fuzz 400 $TESTS/ddsm-fuzz "$ME" "$OPS" "$SEED" "$PROCS"
m1=$(stat_of mappings)
check "mappings back to their start value ($m0 -> $m1)" test "$m0" = "$m1"
# The transactional calls got past their argument checks, to commits.
c=$(stat_of tx_commits)
check "transactions committed during the fuzz (tx_commits $c)" test "${c:-0}" -gt 0
check "no message dropped as malformed" \
	bash -c "$CTL status | grep -q '^msgs_dropped: 0$'"
check "dmesg: no WARNING or BUG" bash -c "! dmesg | grep -qE 'WARNING:|BUG:|Oops'"
# The protocol still works between every pair afterwards.
run ddsm-test-xnode 120 $TESTS/ddsm-test-xnode "$ME" "$N"
echo "# node$ME: pages_resident $(stat_of pages_resident) fault_errors $(stat_of fault_errors)"
[ $failed -ne 0 ] && diag
tap_exit
