#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make bench-tx-pairs's report: HADES / OCC over alternating pairs.

Reads build/bench/tx-pairs.log (node 0's "# pair P txbench-total" lines,
tools/bench/tx-pairs/guest.sh) and prints, per pair, both backends' cluster
commits/s and their ratio; then the geometric mean of the ratios with a
95% interval (Student's t over the logs of the ratios: the pairs are
taken as independent draws of the ratio), the median, the least and the
most; then how each backend moved over the boot (mean of the last half
of the pairs over the first half), which tells a drift of the host,
seen by both, from a slowdown of one backend's own.

    report.py LOG [LOG...] COMMIT

Several logs (boots of the same code) pool their pairs: the table numbers
them boot.pair, the interval is over all of them, the trend is per boot.
"""
import math
import re
import sys

LINE = re.compile(r'# pair (\d+) txbench-total (.*)')
FIELD = re.compile(r'(\w+)=(\S+)')
# Two-sided 95% quantiles of Student's t by degrees of freedom.
T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447,
       7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228, 11: 2.201, 12: 2.179,
       13: 2.160, 14: 2.145, 15: 2.131, 16: 2.120, 17: 2.110, 18: 2.101,
       19: 2.093, 20: 2.086, 25: 2.060, 30: 2.042, 40: 2.021, 60: 2.000}


def t95(df):
    """The quantile for @df, or for the next smaller tabled df."""
    return T95[max(k for k in T95 if k <= df)]


def read_log(log, boot, rate):
    """@log's pairs into @rate, keyed (boot, pair, backend); its wl."""
    wl = ''
    with open(log, errors='replace') as fh:
        for line in fh:
            m = LINE.search(line)
            if not m:
                continue
            f = dict(FIELD.findall(m.group(2)))
            rate[boot, int(m.group(1)), f['backend']] = \
                float(f['commits_per_s'])
            wl = f['wl']
    return wl


def trend(rate, pairs):
    """Each backend's mean over the last half of @pairs by the first."""
    n = len(pairs)
    h1, h2 = pairs[:n // 2], pairs[n - n // 2:]
    for b in ('occ', 'hades'):
        a1 = sum(rate[p + (b,)] for p in h1) / len(h1)
        a2 = sum(rate[p + (b,)] for p in h2) / len(h2)
        print('%s: %.0f commits/s in the first %d pairs, %.0f in the '
              'last %d (%.2fx)' % (b, a1, len(h1), a2, len(h2), a2 / a1))


def main():
    if len(sys.argv) < 3:
        print('usage: report.py LOG [LOG...] COMMIT',
              file=sys.stderr)
        return 2
    files, commit = sys.argv[1:-1], sys.argv[-1]
    rate = {}
    wl = ''
    for boot, log in enumerate(files, 1):
        wl = read_log(log, boot, rate) or wl
    pairs = sorted({(b, p) for b, p, _ in rate
                    if (b, p, 'occ') in rate and (b, p, 'hades') in rate})
    boots = len(files)
    print('HADES / OCC, %s, %d alternating pairs in %s, commit %s\n'
          % (wl, len(pairs),
             'one boot' if boots == 1 else '%d boots' % boots, commit))
    print('| pair | OCC commits/s | HADES commits/s | HADES/OCC |')
    print('|---:|---:|---:|---:|')
    ratios = []
    for b, p in pairs:
        o, h = rate[b, p, 'occ'], rate[b, p, 'hades']
        r = h / o if o else 0.0
        ratios.append(r)
        name = '%d' % p if boots == 1 else '%d.%d' % (b, p)
        print('| %s | %.0f | %.0f | %.2fx |' % (name, o, h, r))
    logs = [math.log(r) for r in ratios if r > 0]
    if not logs:
        print('\nno complete pair')
        return 1
    n = len(logs)
    mean = sum(logs) / n
    line = '\ngeometric mean %.2fx over %d pairs' % (math.exp(mean), n)
    if n > 1:
        sd = math.sqrt(sum((x - mean) ** 2 for x in logs) / (n - 1))
        half = t95(n - 1) * sd / math.sqrt(n)
        line += ', 95%% interval %.2fx-%.2fx' % (math.exp(mean - half),
                                                  math.exp(mean + half))
    s = sorted(ratios)
    med = (s[(n - 1) // 2] + s[n // 2]) / 2
    print(line + '; median %.2fx, least %.2fx, most %.2fx' % (med, s[0], s[-1]))
    print('pairs at 2.5x or more: %d of %d' % (sum(r >= 2.5 for r in ratios),
                                               n))
    for boot in range(1, boots + 1):
        mine = [bp for bp in pairs if bp[0] == boot]
        if len(mine) >= 4:
            if boots > 1:
                print('boot %d (%s):' % (boot, files[boot - 1]))
            trend(rate, mine)
    return 0


if __name__ == '__main__':
    sys.exit(main())
