#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side, every node at once: the workloads of tools/workloads as
# correctness tests, short (a few seconds each), every value verified on
# every node: YCSB A (50/50 read/update), C (read only, after a warm-up),
# F (read-modify-write) and D (read latest, inserts) over the shared hash
# table, and the GAM micro-benchmark's pattern at 0, 50 and 100% sharing.
#
#   qemu/cluster.sh -n 3 -t 900 --name workloads -- bash /ddsm/tests/workloads/guest.sh
#
# The programs exit non-zero on any wrong value, lost update or SIGBUS;
# their "bench" lines are timings, printed as comments here (make bench
# is where they are measured).

set -u
. "$(dirname "${BASH_SOURCE[0]}")/../lib/guest.sh"
BIN=$DDSM/bin
RECORDS=${WL_RECORDS:-2000} OPS=${WL_OPS:-1500}

load_cluster
for wl in A C F D; do
	extra=() dist=zipfian
	[ $wl = C ] && extra=(--warm)
	[ $wl = D ] && dist=latest
	run_bench "ycsb $wl: $RECORDS records, $OPS ops, $dist, verified" 300 \
		$BIN/ddsm-ycsb -w $wl -n "$RECORDS" -o "$OPS" "${extra[@]}"
done
run_bench "ycsb A uniform, 2 threads, 4 buckets per unit" 300 \
	$BIN/ddsm-ycsb -w A -d uniform -t 2 -n "$RECORDS" -o "$OPS" --pack 4
for sh in 0 50 100; do
	run_bench "micro: sharing $sh%, remote 67%, reads 50%, verified" 300 \
		$BIN/ddsm-micro -S "$sh" -o "$OPS"
done
check_no_sigbus
[ $failed -ne 0 ] && diag
echo "# node$ME: workloads.sh done in $((SECONDS - t_start)) s"
tap_exit
