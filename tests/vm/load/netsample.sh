#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# netsample.sh FILE: every 100 ms, one line into FILE with the guest's
# uptime, eth0's packet counters and soft-RoCE's.  When a peer is declared
# dead the lines around that moment tell a frozen guest (a gap in the
# uptime column) from a stalled transmit path (tx_packets flat while
# rx_packets grows) from a stalled receive path.  Bash builtins only, so
# the sampler itself does not fork.
out=$1
n=/sys/class/net/eth0/statistics
h=/sys/class/infiniband/rxe0/ports/1/hw_counters
q=/sys/class/net/eth0/queues/tx-0/tx_timeout
rd() { local v=-; [ -r "$1" ] && read -r v <"$1"; printf '%s' "$v"; }
# A FIFO opened read-write never has data nor EOF: read -t on it sleeps
# without a fork (the guests have no /dev/fd for <(...)).
mkfifo "$out.tick" && exec {tick}<>"$out.tick" && rm -f "$out.tick"
echo "# uptime tx_packets rx_packets rxe_sent rxe_rcvd tx_timeouts softirqs ctxt" >"$out"
while :; do
	read -r up _ </proc/uptime
	while read -r k v _; do
		case $k in
		ctxt) ctxt=$v ;;
		softirq) sirq=$v ;;
		esac
	done </proc/stat
	echo "$up $(rd $n/tx_packets) $(rd $n/rx_packets) $(rd $h/sent_pkts)" \
		"$(rd $h/rcvd_pkts) $(rd $q) $sirq $ctxt" >>"$out"
	read -r -t 0.1 -u "$tick"
done
