# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The TAP-like lines of every test script, host side and guest side;
# sourced (by guest.sh, host.sh, or a host-only test), not run.
#
# tests/run.sh counts the lines that match ^(\[nI\] )?ok  and
# ^(\[nI\] )?not ok  (cluster.sh adds the "[nI] " of node I), so the
# format is fixed: "ok - WHO: TEXT", or "ok - TEXT" when TAP_WHO is empty.
#
#   TAP_WHO              who speaks: host, node2, packaging, ... (the
#                        sourcing library or script sets it)
#   ok TEXT / nok TEXT   one line; both count in $total, nok in $failed
#   check TEXT CMD...    ok if CMD succeeds, nok otherwise
#   result RC TEXT       ok if RC is 0, nok otherwise (after a command:
#                        "cmd; result $? TEXT")
#   note TEXT            a "# WHO: TEXT" comment line
#   tap_summary NAME     "# NAME: F of T checks failed"; 0 iff none failed
#   tap_exit             exit 0 iff nothing failed, else 1 (not $failed:
#                        an exit status wraps at 256)

TAP_WHO=${TAP_WHO:-}
failed=0 total=0

ok() { total=$((total + 1)); echo "ok - ${TAP_WHO:+$TAP_WHO: }$*"; }
nok() { total=$((total + 1)); failed=$((failed + 1)); echo "not ok - ${TAP_WHO:+$TAP_WHO: }$*"; }
check() { local d=$1; shift; if "$@"; then ok "$d"; else nok "$d"; fi; }
result() { if [ "$1" = 0 ]; then ok "$2"; else nok "$2"; fi; }
note() { echo "# ${TAP_WHO:+$TAP_WHO: }$*"; }
tap_summary() { echo "# $1: $failed of $total checks failed"; [ "$failed" -eq 0 ]; }
tap_exit() { exit $((failed > 0)); }
