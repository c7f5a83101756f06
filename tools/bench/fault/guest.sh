#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of tools/bench/fault/host.sh (2 nodes): where a first-touch remote
# read fault spends its time.  Node 1 reads never-touched units homed on
# node 0, one at a time, back to back (ddsm-bench-gap, gap 0): first a
# timed run with tracing off on node 1, then a traced run whose events
# both nodes turn into a per-stage breakdown.  perftest's 4 KiB RDMA READ
# runs before and after, as the reference.  A benchmark: the exit status
# says whether every measurement was taken and every load returned 0.
#
# Node 1 prints "bench read_lat T_TYPICAL T_AVG" (twice) and
# "bench gap 0 N MEDIAN_US P90_US MIN_US" (the timed run); both nodes
# print "bench fault NODE STAGE N MEDIAN_US P90_US" for the traced run.
# Stages, each timed on one node's clock only:
#   node 1 (requester)
#     enter      fault entered ddsm -> READ_MISS handed to the transport
#     post       READ_MISS handed over -> its work request built
#                (ddsm_net_send fires just before ib_post_send)
#     wire       -> the 4 KiB answer's completion handled: the post (rxe
#                transmits in the softirq it raises), the network both
#                ways and node 0's whole share
#     dispatch   completion handled -> protocol handler runs the ACK
#     install    handler started -> data copied into the frame, state set
#     wake       frame installed -> faulting task back from its wait
#     retry      task back -> ddsm entered again (VM_FAULT_RETRY: the
#                fault handler takes mmap_lock and walks to the VMA again)
#     map        entered again -> PTE set, and the UNLOCK that lets home
#                serve the unit's next request posted (and transmitted)
#     total      fault entered -> PTE set
#   node 0 (home)
#     h_dispatch READ_MISS completion handled -> directory handler runs
#     h_serve    directory handler -> ACK with data handed over
#     h_post     ACK handed over -> its work request built
#     h_total    completion handled -> ACK's work request built
# node 1's wire minus node 0's h_total is the network and rxe's share.
#
# Env: BENCH_FAULTS (200: timed faults), BENCH_TRACE_FAULTS (100),
# BENCH_PERF_ITERS (1000).

# shellcheck source=tests/vm/lib/guest.sh
. /ddsm/tests/lib/guest.sh	# staged by tests/vm/Makefile

FAULTS=${BENCH_FAULTS:-200} TRACE_FAULTS=${BENCH_TRACE_FAULTS:-100}
ITERS=${BENCH_PERF_ITERS:-1000}	# read by read_lat
IFS=, read -ra IPS <<<"$DDSM_NODE_IPS"	# read by read_lat
EVENTS="ddsm/ddsm_fault_begin ddsm/ddsm_fault ddsm/ddsm_fill ddsm/ddsm_msg_send
ddsm/ddsm_msg_recv ddsm_net/ddsm_net_send ddsm_net/ddsm_net_recv"

# breakdown LO: the stages of the faults on units >= LO, from this node's
# trace, as "STAGE VALUE_US" lines.  Transport events carry no unit: one
# fault at a time, so the next protocol SEND (type 2) to the peer after a
# message for unit u is u's, and so is the next one received.
breakdown() {
	awk -v me="$ME" -v lo="$1" '
	function f(name,   i) {
		for (i = 1; i <= NF; i++)
			if (index($i, name "=") == 1)
				return substr($i, length(name) + 2)
		return ""
	}
	function put(k, v) { printf "%s %.1f\n", k, v }
	{
		ev = ""
		for (i = 1; i <= NF; i++)
			if ($i ~ /^[0-9]+\.[0-9]+:$/) {
				t = substr($i, 1, length($i) - 1) * 1e6
				ev = $(i + 1); a1 = $(i + 2); a4 = $(i + 4)
				break
			}
		if (ev == "")
			next
		u = f("unit")
		if (u != "" && u + 0 < lo)
			next
	}
	# Requester (node 1): a fault on a fresh unit homed on node 0.
	me == 1 && ev == "ddsm_fault_begin:" && !(u in B) && $0 ~ / read$/ { B[u] = t }
	me == 1 && ev == "ddsm_msg_send:" && a1 == "READ_MISS" && (u in B) { R[u] = t; post = u }
	me == 1 && ev == "ddsm_net_send:" && f("node") == 0 && f("type") == 2 && post != "" {
		P[post] = t; rx = post; post = ""
	}
	me == 1 && ev == "ddsm_net_recv:" && f("node") == 0 && f("type") == 2 && rx != "" && / \+page/ {
		X[rx] = t; rx = ""
	}
	me == 1 && ev == "ddsm_msg_recv:" && a1 == "ACK" && (u in X) && !(u in A) { A[u] = t }
	me == 1 && ev == "ddsm_fill:" && (u in A) && !(u in F) { F[u] = t }
	me == 1 && ev == "ddsm_fault:" && (u in F) && / remote / && !(u in W) { W[u] = t }
	me == 1 && ev == "ddsm_fault_begin:" && (u in W) && !(u in B2) { B2[u] = t }
	me == 1 && ev == "ddsm_fault:" && (u in B2) && / local / && !(u in E) {
		E[u] = t
		put("enter", R[u] - B[u]); put("post", P[u] - R[u])
		put("wire", X[u] - P[u]); put("dispatch", A[u] - X[u])
		put("install", F[u] - A[u]); put("wake", W[u] - F[u])
		put("retry", B2[u] - W[u]); put("map", E[u] - B2[u])
		put("total", E[u] - B[u])
	}
	# Home (node 0): the READ_MISS from node 1 and its ACK.
	me == 0 && ev == "ddsm_net_recv:" && f("node") == 1 && f("type") == 2 { last_rx = t }
	me == 0 && ev == "ddsm_msg_recv:" && a1 == "READ_MISS" && a4 ~ /^1->0$/ && last_rx != "" {
		HX[u] = last_rx; HM[u] = t
	}
	me == 0 && ev == "ddsm_msg_send:" && a1 == "ACK" && (u in HM) && !(u in HS) { HS[u] = t; hpost = u }
	me == 0 && ev == "ddsm_net_send:" && f("node") == 1 && f("type") == 2 && hpost != "" {
		put("h_dispatch", HM[hpost] - HX[hpost])
		put("h_serve", HS[hpost] - HM[hpost])
		put("h_post", t - HS[hpost]); put("h_total", t - HX[hpost])
		hpost = ""
	}' $TR/trace | stage_summary fault
}

[ "$N" -eq 2 ] || { nok "needs 2 nodes, have $N"; exit 1; }
read_lat 19300
tp_load || { nok "insmod ddsm.ko"; exit 1; }
wait_for 60 all_up || { nok "every peer up within 60 s"; exit 1; }
ok "ddsm loaded, peer up"
units=$(($(ddsmctl status | sed -n 's/^space size: \([0-9]*\).*/\1/p') / 4096))
# shellcheck disable=SC2086 # EVENTS: a list, split
trace_setup 16384 $EVENTS || { nok "tracing ddsm events"; exit 1; }
note "clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null)"

if [ "$ME" -eq 0 ]; then
	# Home records from now until node 1 is done with both runs, which
	# the second perftest's rendezvous tells it.
	echo 1 >$TR/tracing_on
	read_lat 19301
	echo 0 >$TR/tracing_on
else
	ddsm-bench-gap -n "$FAULTS" -s $((units / 4)) 0 0 || nok "ddsm-bench-gap, timed"
	sleep 1
	echo 1 >$TR/tracing_on
	ddsm-bench-gap -n "$TRACE_FAULTS" -s $((units / 2)) 0 0 |
		sed 's/^bench gap/# traced: bench gap/'
	[ "${PIPESTATUS[0]}" -eq 0 ] || nok "ddsm-bench-gap, traced"
	echo 0 >$TR/tracing_on
	read_lat 19301
fi
grep -c . $TR/trace | sed 's/^/# trace lines: /'
breakdown $((units / 2))
ddsmctl status | grep -E '^(faults|msgs|fault_)' | sed 's/^/# status: /'
tap_exit
