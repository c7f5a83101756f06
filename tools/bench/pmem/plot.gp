# SPDX-License-Identifier: GPL-2.0
#
# tools/bench/pmem/host.sh's plot: per model, total ops/s (left) and the home
# counters per write (right), from the CSV report.awk writes.
#   gnuplot -e "csv='pmem.csv'; png='pmem.png'" plot.gp
set datafile separator ","
set terminal pngcairo size 1000,420 font ",10"
set termoption noenhanced
set output png
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set key top right
set grid ytics
set xtics nomirror
set multiplot layout 1,2 title "ddsm persistency models, 3 TCG VMs, 1 KiB values, 50% writes"
set title "throughput (all nodes)"
set ylabel "ops/s"
set yrange [0:*]
plot csv using 5:xtic(1) every ::1 title "ops/s" lc rgb "#4477aa"
set title "work at the homes per write"
set ylabel "per write"
plot csv using 15:xtic(1) every ::1 title "unit images persisted" lc rgb "#228833", \
     '' using 17 every ::1 title "fences" lc rgb "#ccbb44", \
     '' using 18 every ::1 title "durable grants" lc rgb "#ee6677"
unset multiplot
