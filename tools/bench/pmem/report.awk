# SPDX-License-Identifier: GPL-2.0
#
# The table of tools/bench/pmem/host.sh from the guests' "bench ..." lines
# (formats in tests/vm/src/ddsm-bench-pmem.c and tests/vm/lib/guest.sh).
#   awk -v models="dram eventual ..." -v csv=FILE -f report.awk LOG
# Per model, summed over the nodes and turns: ops/s (each node's ops over
# its own run time, added up), write latency (p50: the median of the
# nodes' and turns' medians; p99: the worst one), and the home counters
# per write of all nodes.
# Ratios are against eventual and dram when they ran.  Exits 1 when a
# model lacks a node's line or the read/barrier latencies are missing.

# Median of the values in v[1..n] (sorted in place: insertion sort).
function median(v, n,    i, j, x) {
	for (i = 2; i <= n; i++) {
		x = v[i]
		for (j = i - 1; j >= 1 && v[j] > x; j--)
			v[j + 1] = v[j]
		v[j + 1] = x
	}
	return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
}
function r(x, y) { return y > 0 ? sprintf("%.2f", x / y) : "-" }

$2 == "bench" && $3 == "read_lat" { rd = $4 }
$2 == "bench" && $3 == "barrier_lat" { bl[$4] = $6; bl90[$4] = $7; bln[$4] = $5 }
$2 == "bench" && $3 == "model" {
	m = $4; n = $5
	if (!((m, n) in secs)) seen[m]++
	secs[m, n] += $6; nops[m, n] += $7
	w[m] += $8; rds[m] += $9; torn[m] += $10
	p50[m, ++np[m]] = $11; if ($12 > p99[m]) p99[m] = $12
	pers[m] += $13; byt[m] += $14; fen[m] += $15; gr[m] += $18
	bar[m] += $19
	miss[m] += $22 + $23 + $24; msg[m] += $25
}
END {
	nm = split(models, ml, " ")
	bad = 0
	for (i = 1; i <= nm; i++) {
		m = ml[i]
		if (seen[m] != 3) { print "# missing: " m " (" seen[m] + 0 " of 3 nodes)"; bad = 1; continue }
		for (j = 1; j <= np[m]; j++)
			v[j] = p50[m, j]
		lat[m] = median(v, np[m])
		for (n = 0; n < 3; n++) {
			ops[m, n] = nops[m, n] / secs[m, n]
			tot[m] += ops[m, n]
		}
	}
	if (rd == "" || !("remote" in bl)) { print "# missing: ib_read_lat or the barrier latency"; bad = 1 }
	if (bad) exit 1
	printf "# ib_read_lat -s 4096 t_typical %.1f us (node 1 reading node 0)\n", rd
	printf "# Scope barrier over one dirty unit, node 0, %d rounds: homed on node 1 p50 %.1f us (p90 %.1f) = %.2fx READ; homed on node 0 p50 %.1f us (p90 %.1f)\n",
		bln["remote"], bl["remote"], bl90["remote"], bl["remote"] / rd, bl["local"], bl90["local"]
	print "# ops/s per node and all; write latency p50 = median of node x turn medians, p99 = worst; per write: counters of all homes / writes of all nodes; per op: faults (read, write, upgrade) and messages sent by all nodes / ops"
	printf "%-9s %7s %7s %7s %8s %6s %6s %8s %8s %6s %6s %8s %8s %7s %7s %7s %7s %7s\n",
		"model", "n0/s", "n1/s", "n2/s", "total/s", "vs_ev", "vs_dr",
		"wp50_us", "wp99_us", "p50_ev", "p50_dr", "pers/w", "bytes/w", "fence/w", "grant/w", "bar/w", "miss/op", "msg/op"
	print "model,node0_ops_s,node1_ops_s,node2_ops_s,total_ops_s,tput_vs_eventual,tput_vs_dram,write_p50_us,write_p99_us,p50_vs_eventual,p50_vs_dram,writes,reads,torn_retries,persists_per_write,bytes_per_write,fences_per_write,durable_grants_per_write,barriers_per_write,faults_per_op,msgs_per_op" >csv
	for (i = 1; i <= nm; i++) {
		m = ml[i]
		ww = w[m] > 0 ? w[m] : 1
		oo = 0
		for (n = 0; n < 3; n++)
			oo += nops[m, n]
		oo = oo > 0 ? oo : 1
		printf "%-9s %7.0f %7.0f %7.0f %8.0f %6s %6s %8.0f %8.0f %6s %6s %8.3f %8.0f %7.3f %7.3f %7.3f %7.3f %7.2f\n",
			m, ops[m, 0], ops[m, 1], ops[m, 2], tot[m], r(tot[m], tot["eventual"]),
			r(tot[m], tot["dram"]), lat[m], p99[m], r(lat[m], lat["eventual"]),
			r(lat[m], lat["dram"]), pers[m] / ww, byt[m] / ww, fen[m] / ww, gr[m] / ww, bar[m] / ww,
			miss[m] / oo, msg[m] / oo
		printf "%s,%.1f,%.1f,%.1f,%.1f,%s,%s,%.1f,%.1f,%s,%s,%d,%d,%d,%.4f,%.1f,%.4f,%.4f,%.4f,%.4f,%.3f\n",
			m, ops[m, 0], ops[m, 1], ops[m, 2], tot[m], r(tot[m], tot["eventual"]),
			r(tot[m], tot["dram"]), lat[m], p99[m], r(lat[m], lat["eventual"]),
			r(lat[m], lat["dram"]), w[m], rds[m], torn[m], pers[m] / ww, byt[m] / ww,
			fen[m] / ww, gr[m] / ww, bar[m] / ww, miss[m] / oo, msg[m] / oo >csv
	}
}
