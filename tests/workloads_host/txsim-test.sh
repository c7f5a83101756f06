#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Checks ddsm-txsim's counts against what its two models must give,
# whatever the numbers: TAP-like lines, exit status 1 on any failure.
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SIM=$HERE/../../tools/workloads/ddsm-txsim
. "$HERE/../vm/lib/tap.sh"
TAP_WHO=txsim

# field ROW NAME: the number after NAME on the row that starts with ROW.
field() {
	awk -v row="$1" -v name="$2" 'index($0, row "  ") == 1 {
		for (i = 1; i < NF; i++) if ($i == name) { print $(i + 1); exit } }'
}

out1=$($SIM -n 1 -x 20000)
result "$(echo "$out1" | grep -v '^#' | awk '$0 ~ /msgs\/commit/ && ($0 !~ /msgs\/commit 0.00 /) { n++ } END { print n + 0 }')" \
	"one node sends nothing in either model"

r50=$($SIM -x 20000 -r 50)
r95=$($SIM -x 20000 -r 95)
r100=$($SIM -x 20000 -r 100)
a50=$(echo "$r50" | field "A, one per unit" msgs/commit)
a95=$(echo "$r95" | field "A, one per unit" msgs/commit)
[ -n "$a50" ] && [ "$a50" = "$a95" ]
result $? "(A) costs the same for 50% and 95% reads ($a50, $a95): Intends go to every home read"

inv=$(echo "$r100" | field "B, one per unit" invalidations/commit)
[ "$inv" = "0.00" ]
result $? "(B) invalidates nothing when nothing is written ($inv)"

b50=$(echo "$r50" | field "B, one per unit" msgs/commit)
b95=$(echo "$r95" | field "B, one per unit" msgs/commit)
awk -v a="$b95" -v b="$b50" 'BEGIN { exit !(a < b) }'
result $? "(B) sends fewer messages with fewer writes ($b95 < $b50)"

ah=$(echo "$r50" | field "A, one read per home" msgs/commit)
awk -v a="$ah" -v b="$a50" 'BEGIN { exit !(a <= b) }'
result $? "one read per home never costs (A) more ($ah <= $a50)"

again=$($SIM -x 20000 -r 50)
[ "$again" = "$r50" ]
result $? "the same seed draws the same transactions"

tap_exit
