#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Per-transition latency of the ddsm coherence protocol on 3 TCG VMs (or
# 4: one more row, home A invalidating two remote sharers), against
# perftest's 4 KiB RDMA READ in the same VMs in the same run
# (tools/bench/transitions/guest.sh and ddsm-bench-transitions do the
# measuring; docs/benchmarks.md explains the rows).
#
#   tools/bench/transitions/host.sh [-t SECONDS] [-n 3|4] [--reps N] [--scan-mib N]
#                             [--settle-us N] [--perf-iters N]
#
# BENCH_TRACE=0 in the environment turns the breakdown table off; it
# comes from BENCH_TRACE_REPS (30) extra rounds recorded with ddsm's
# tracepoints after the timed ones, which run untraced.  BENCH_POLL_US
# (50) is the helpers' mailbox polling interval.
#
# Prints: transition, median us, p90 us, median / ib_read_lat t_typical,
# target, met?  A benchmark: the exit status says whether every
# measurement was taken and every coherence check passed, not whether the
# targets were met.
set -uo pipefail

LIMIT=600 REPS=100 SCAN_MIB=16 SETTLE=1000 ITERS=1000 NODES=3
usage() {
	echo "usage: $0 [-t SECONDS] [-n 3|4] [--reps N] [--scan-mib N] [--settle-us N] [--perf-iters N]" >&2
	exit 2
}
while [ $# -gt 0 ]; do
	case $1 in
	-t) LIMIT=$2; shift 2 ;;
	-n) NODES=$2; shift 2 ;;
	--reps) REPS=$2; shift 2 ;;
	--scan-mib) SCAN_MIB=$2; shift 2 ;;
	--settle-us) SETTLE=$2; shift 2 ;;
	--perf-iters) ITERS=$2; shift 2 ;;
	*) usage ;;
	esac
done

# TCG guests often mark the TSC unstable at boot (the clocksource watchdog
# sees the host's load) and fall back to HPET, which makes every
# clock_gettime a slow emulated MMIO read; QEMU's TSC is monotonic, so
# trust it.
export DDSM_KERNEL_ARGS="${DDSM_KERNEL_ARGS:-} tsc=reliable"

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
out=$(mktemp)
trap 'rm -f "$out" "$out.load"' EXIT

# The host is often shared: say how busy it was, since every number here
# is sensitive to it (3 single-vCPU TCG guests on 2 cores).
host_load() {
	echo "# host $1: load average $(cut -d' ' -f1-3 /proc/loadavg)," \
		"$(nproc) cores, $(pgrep -c -f '^qemu-system' || true) QEMU processes"
}
host_load before >"$out.load"

case $NODES in 3|4) ;; *) usage ;; esac
bash "$ROOT/qemu/cluster.sh" -n "$NODES" -t "$LIMIT" --name bench-transitions -- \
	"BENCH_REPS=$REPS BENCH_SCAN_MIB=$SCAN_MIB BENCH_SETTLE_US=$SETTLE" \
	"BENCH_PERF_ITERS=$ITERS BENCH_TRACE=${BENCH_TRACE:-1} BENCH_TRACE_REPS=${BENCH_TRACE_REPS:-30}" \
	"BENCH_POLL_US=${BENCH_POLL_US:-50}" \
	"bash /ddsm/bench/transitions/guest.sh" | tee "$out"
rc=${PIPESTATUS[0]}
host_load after >>"$out.load"

echo
echo "# ddsm coherence transitions, $NODES TCG VMs (1 vCPU each) over soft-RoCE, $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "# $REPS fresh units per row, settle $SETTLE us; ratio = median / ib_read_lat -s 4096 t_typical"
cat "$out.load"
grep -ho 'node[0-9]: clocksource [a-z_-]*' "$out" | sort | tr '\n' ' ' | sed 's/^/# /; s/ $/\n/'
sed -n 's/^\[n1\] bench //p' "$out" | awk '
$1 == "perftest" && $3 == "read" { typ[$2] = $4; avg[$2] = $5; np++ }
$1 == "perftest" && $3 != "read" { pt[$3, $2] = $4; ptn[$3]++ }
$1 == "row"      { med[$2] = $4; p90[$2] = $5; rows[++nr] = $2 }
$1 == "scan"     { scan[$2] = $4; smin[$2] = $5; mib = $3 }
$1 == "errors"   { mism = $2; anom = $3 }
$1 == "transport" { tp[$2] = $3 }
$1 == "gap"      { gaps[++ng] = $2; gmed[$2] = $4; gp90[$2] = $5; gmin[$2] = $6 }
function r2(x) { return x == "" ? "-" : sprintf("%.2f", x) }
END {
	if (np) {
		ref = 0; k = 0
		for (i in typ) { ref += typ[i]; k++ }
		ref /= k
		printf "# ib_read_lat -s 4096 t_typical:"
		for (i = 1; i <= 2; i++) if (i in typ) printf " round %d %.2f us (avg %.2f)", i, typ[i], avg[i]
		printf "; reference = mean of rounds %.2f us\n", ref
		# Two-sided floor: a 64 B and a 4 KiB SEND one-way, per round,
		# both busy-polled in user space: the least a request and a 4 KiB
		# answer can cost over this network, with no software at all.
		fl = 0; k = 0
		for (i = 1; i <= 2; i++)
			if ((("send64", i) in pt) && (("send4k", i) in pt)) {
				f[i] = pt["send64", i] + pt["send4k", i]; fl += f[i]; k++
			}
		if (k) {
			fl /= k
			printf "# two-sided floor = ib_send_lat -s 64 + ib_send_lat -s 4096 (one-way t_typical):"
			for (i = 1; i <= 2; i++) if (i in f) printf " round %d %.2f + %.2f = %.2f us", i, pt["send64", i], pt["send4k", i], f[i]
			printf "; mean %.2f us = %.2fx ib_read_lat\n", fl, fl / ref
		}
	} else {
		print "# ib_read_lat: no measurement; ratios omitted"
	}
	d["hit"]            = "resident S hit (timer + load)"
	d["is_home"]        = "I->S served by home (U)"
	d["is_owner"]       = "I->S served by M owner"
	d["im_0"]           = "I->M, 0 sharers"
	d["im_1"]           = "I->M, 1 sharer"
	d["im_2"]           = "I->M, 2 sharers (home + 1)"
	d["im_2_cd"]        = "I->M, 2 remote sharers, home A"
	d["im_1_lh"]        = "I->M, 1 sharer, local home"
	d["im_2_lh"]        = "I->M, 2 sharers, local home"
	d["sm_0"]           = "S->M upgrade, no other sharer"
	d["ms_reader"]      = "M->S, reader side"
	d["ms_owner_read"]  = "M->S, owner reads again"
	d["ms_owner_write"] = "M->S, owner writes again (S->M)"
	printf "%-34s %10s %10s %8s %-22s %s\n", "transition", "median us", "p90 us", "ratio", "target", "met?"
	for (i = 1; i <= nr; i++) {
		k = rows[i]; x = ref ? med[k] / ref : ""
		tgt = "-"; met = "-"
		if (k == "is_home" && ref) {
			tgt = "<= 1.5x ib_read_lat"; met = x <= 1.5 ? "yes" : "no"
		} else if (k == "im_2" && med["im_1"] > 0) {
			y = med["im_2"] / med["im_1"]
			tgt = sprintf("<= 1.3x im_1 (%.2f)", y); met = y <= 1.3 ? "yes" : "no"
		} else if (k == "im_2_cd" && med["im_1"] > 0) {
			y = med["im_2_cd"] / med["im_1"]
			tgt = sprintf("<= 1.3x im_1 (%.2f)", y); met = y <= 1.3 ? "yes" : "no"
		} else if (k == "im_2_lh" && med["im_1_lh"] > 0) {
			y = med["im_2_lh"] / med["im_1_lh"]
			tgt = sprintf("<= 1.3x im_1_lh (%.2f)", y); met = y <= 1.3 ? "yes" : "no"
		}
		printf "%-34s %10.1f %10.1f %8s %-22s %s\n", (k in d ? d[k] : k), med[k], p90[k], r2(x), tgt, met
	}
	if ("anon" in scan) {
		for (s = 1; s <= 2; s++) {
			k = s == 1 ? "ddsm_s" : "ddsm_m"
			if (!(k in scan)) continue
			y = scan[k] / scan["anon"]
			printf "%-34s %10s %10s %8s %-22s %s\n",
				sprintf("scan %d MiB resident %s / anon", mib, s == 1 ? "S" : "M"),
				sprintf("%.2f ms", scan[k]), sprintf("min %.2f", smin[k]), sprintf("%.3f", y),
				sprintf("<= 1.05 (min: %.3f)", smin[k] / smin["anon"]), y <= 1.05 ? "yes" : "no"
		}
		printf "# scan of anonymous memory, median (min): %.2f (%.2f) ms with the guest'"'"'s THP default, %.2f (%.2f) ms with MADV_NOHUGEPAGE\n", scan["anon"], smin["anon"], scan["anon_4k"], smin["anon_4k"]
	}
	if (fl)
		printf "%-34s %10.1f %10s %8s %-22s %s\n", "perftest two-sided floor", fl, "-", r2(ref ? fl / ref : ""), "(send 64 B + 4 KiB)", "-"
	if ("ping_rtt" in tp)
		printf "%-34s %10.1f %10s %8s %-22s %s\n", "ddsm transport: 48 B msg round trip", tp["ping_rtt"], "-", r2(ref ? tp["ping_rtt"] / ref : ""), "(p50, self-test)", "-"
	if ("rpc4k" in tp)
		printf "%-34s %10.1f %10s %8s %-22s %s\n", "ddsm transport: 8 B req, 4 KiB answer", tp["rpc4k"], "-", r2(ref ? tp["rpc4k"] / ref : ""), "(p50, self-test)", "-"
	if ("read4k" in tp)
		printf "%-34s %10.1f %10s %8s %-22s %s\n", "ddsm transport: 4 KiB RDMA READ", tp["read4k"], "-", r2(ref ? tp["read4k"] / ref : ""), "(mean, self-test)", "-"
	for (i = 1; i <= ng; i++) {
		g = gaps[i]
		printf "%-34s %10.1f %10.1f %8s %-22s %s\n", sprintf("I->S from home, after %s", g ? sprintf("%g ms idle", g / 1000) : "none (back to back)"), gmed[g], gp90[g], r2(ref ? gmed[g] / ref : ""), sprintf("(min %.1f)", gmin[g]), "-"
	}
	if (fl && ("is_home" in med))
		printf "# I->S served by home = %.2fx the two-sided floor%s\n", med["is_home"] / fl, ("rpc4k" in tp) ? sprintf(", %.2fx ddsm'"'"'s own request + 4 KiB answer", med["is_home"] / tp["rpc4k"]) : ""
	if (mism != "")
		printf "# coherence mismatches: %d, state anomalies: %d\n", mism, anom
	else
		print "# no error summary from node 1: the run did not finish"
}'
if grep -q '^\[n[0-9]\] bench trace ' "$out"; then
	echo
	echo "# where the time goes (ddsm tracepoints, each node's own clock; us)"
	printf '%-6s %-20s %7s %10s %10s\n' node kind n median p90
	sed -n 's/^\[n[0-9]\] bench trace //p' "$out" | sort -k1,1n -k2,2 |
		awk '{ printf "%-6s %-20s %7d %10.1f %10.1f\n", $1, $2, $3, $4, $5 }'
fi
grep -E '^\[n[0-9]\] bench (MISMATCH|FATAL)' "$out"
exit "$rc"
