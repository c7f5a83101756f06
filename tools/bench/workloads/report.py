#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make bench's report: bench.log -> CSV, a text summary, gnuplot scripts.

usage: report.py LOG OUTDIR COMMIT

LOG lines are "<nodes> <pressure> [nK] bench <kind> key=value ..." as
tools/bench/workloads/host.sh writes them; anything else is ignored.  Writes,
into OUTDIR, one CSV per kind (ycsb, ycsb_total, ycsb_cdf, micro,
micro_total), summary.txt, and .dat/.gp pairs for gnuplot (ycsb_nodes,
ycsb_latency, ycsb_cdf, micro_sharing).
"""
import collections
import csv
import os
import re
import sys

LINE = re.compile(r'^(\d+) (on|off) \[n\d+\] bench (\S+) (.*)$')


def parse(path):
    rows = collections.defaultdict(list)
    last_mem = 'dsm'
    with open(path) as f:
        for line in f:
            m = LINE.match(line.strip())
            if not m:
                continue
            fields = dict(kv.split('=', 1) for kv in m.group(4).split()
                          if '=' in kv)
            fields['cluster'] = m.group(1)
            fields['pressure'] = m.group(2)
            # Node 0's total follows its own line: same memory kind.
            if m.group(3) == 'ycsb':
                last_mem = fields.get('mem', 'dsm')
            elif m.group(3) == 'ycsb-total':
                fields['mem'] = last_mem
            rows[m.group(3)].append(fields)
    return rows


def write_csv(path, rows):
    if not rows:
        return
    keys = ['cluster', 'pressure'] + [k for k in rows[0]
                                      if k not in ('cluster', 'pressure')]
    with open(path, 'w', newline='') as f:
        w = csv.DictWriter(f, fieldnames=keys, extrasaction='ignore')
        w.writeheader()
        w.writerows(rows)


def num(row, key):
    return float(row.get(key, 'nan'))


def dsm_totals(rows):
    return [r for r in rows.get('ycsb-total', []) if r['mem'] == 'dsm']


def summary(rows, commit):
    out = ['make bench, commit %s' % commit, '']
    totals = dsm_totals(rows)
    wls = sorted({r['wl'] for r in totals})
    nodes = sorted({int(r['cluster']) for r in totals})
    out.append('YCSB total ops/s (%s records, zipfian, 1 thread per node)'
               % (totals[0]['records'] if totals else '?'))
    out.append('| nodes | pressure | ' + ' | '.join(wls) + ' |')
    out.append('|---|---|' + '---:|' * len(wls))
    for n in nodes:
        for p in ('off', 'on'):
            vals = []
            for wl in wls:
                v = [r for r in totals if int(r['cluster']) == n and
                     r['pressure'] == p and r['wl'] == wl]
                vals.append('%.0f' % num(v[0], 'ops_per_s') if v else '-')
            out.append('| %d | %s | %s |' % (n, p, ' | '.join(vals)))
    out.append('')
    per = rows.get('ycsb', [])
    out.append('Per operation (3 nodes, no pressure, mean over nodes): '
               'faults, messages sent, evictions')
    out.append('| workload | read faults | upgrades | msgs | evictions | '
               'p50 us | p99 us |')
    out.append('|---|---:|---:|---:|---:|---:|---:|')
    for wl in wls:
        v = [r for r in per if r['cluster'] == '3' and r['pressure'] ==
             'off' and r['wl'] == wl and r.get('mem') == 'dsm']
        if not v:
            continue
        mean = lambda k: sum(num(r, k) for r in v) / len(v)
        out.append('| %s | %.3f | %.3f | %.3f | %.3f | %.1f | %.1f |' % (
            wl, mean('faults_read_per_op'), mean('upgrades_per_op'),
            mean('msgs_per_op'), mean('evictions_per_op'), mean('p50_us'),
            mean('p99_us')))
    out.append('')
    dsm = {r['node']: num(r, 'ops_per_s') for r in per
           if r['cluster'] == '3' and r['pressure'] == 'off' and
           r['wl'] == 'C' and r.get('mem') == 'dsm'}
    anon = {r['node']: num(r, 'ops_per_s') for r in per
            if r['cluster'] == '3' and r['pressure'] == 'off' and
            r['wl'] == 'C' and r.get('mem') == 'anon'}
    if dsm and anon:
        out.append('YCSB-C on 3 nodes, every record cached, against the '
                   'same loop over anonymous memory (target >= 80%)')
        for node in sorted(dsm):
            if node in anon and anon[node] > 0:
                out.append('  node %s: %.0f ops/s vs %.0f: %.0f%%' % (
                    node, dsm[node], anon[node],
                    100 * dsm[node] / anon[node]))
        out.append('')
    micro = rows.get('micro-total', [])
    if micro:
        out.append('GAM micro on 3 nodes (67% remote, 50% reads, 8 B '
                   'items): total ops/s by sharing')
        # The last run of each sharing ratio, should there be several.
        by = {int(r['sharing']): r for r in micro}
        for s in sorted(by):
            out.append('  sharing %3d%%: %.0f' % (s, num(by[s],
                                                        'ops_per_s')))
        out.append('  ' + sharing_loss(by, rows.get('micro', [])))
    # Per-operation timing depends on it (tools/bench/workloads/host.sh).
    cs = collections.Counter(r.get('cs', '?')
                             for r in rows.get('clocksource', []))
    if cs:
        out.append('')
        out.append('Guest clocksources over all runs: ' + ', '.join(
            '%s on %d node boots' % kv for kv in sorted(cs.items())))
    return '\n'.join(out) + '\n'


def sharing_loss(by, per):
    """The 0% -> 100% sharing loss against issue 11's target, or why the
    runs do not measure it."""
    if 0 not in by or 100 not in by or not num(by[100], 'ops_per_s') > 0:
        return 'no loss from 0% to 100% sharing: not both measured'
    short = []
    for s in (0, 100):
        nodes = [r for r in per if int(r['sharing']) == s and
                 r['cluster'] == by[s]['cluster'] and
                 r['pressure'] == by[s]['pressure']]
        if not nodes:
            short.append('no node lines at %d%%' % s)
        for r in nodes:
            if 'secs_target' not in r:
                # Fixed traces end in milliseconds: the nodes never
                # contend and the ratio would measure barrier skew.
                return ('NOT A SHARING MEASUREMENT: fixed-length runs '
                        '(no secs_target; ddsm-micro -s makes the nodes\' '
                        'runs overlap)')
            if not num(r, 'secs') >= 0.8 * num(r, 'secs_target'):
                short.append('node %s at %d%%: %.3f s of %s' % (
                    r['node'], s, num(r, 'secs'), r['secs_target']))
    if short:
        return ('NOT A SHARING MEASUREMENT: runs under 80%% of their '
                'target time, so the nodes hardly overlapped (%s)'
                % '; '.join(short))
    loss = num(by[0], 'ops_per_s') / num(by[100], 'ops_per_s')
    return ('loss from 0%% to 100%% sharing: %.1fx (issue 11 target <= '
            '4x: %s)' % (loss, 'yes' if loss <= 4 else 'no'))


CDF_WLS = 'ABCF'


def cdf_rows(rows):
    """Node 0's ycsb-cdf row of each of CDF_WLS on 3 nodes, no cache
    pressure, over ddsm (the last run of a workload, should there be
    several)."""
    best = {}
    for r in rows.get('ycsb-cdf', []):
        if (r['cluster'] == '3' and r['pressure'] == 'off' and
                r.get('mem') == 'dsm' and r.get('node') == '0' and
                r.get('wl') in CDF_WLS):
            best[r['wl']] = r
    return best


def cdf_points(row):
    """[(us, fraction)] of a ycsb-cdf row's pts=US:FRAC,..."""
    pts = []
    for p in row.get('pts', '').split(','):
        us, _, frac = p.partition(':')
        try:
            pts.append((float(us), float(frac)))
        except ValueError:
            continue
    return pts


def cdf_plot(rows, outdir, commit):
    best = cdf_rows(rows)
    plot = []
    with open(os.path.join(outdir, 'ycsb_cdf.dat'), 'w') as f:
        for wl in CDF_WLS:
            pts = cdf_points(best[wl]) if wl in best else []
            if not pts:
                continue
            f.write('# %s: latency us, fraction of operations at most\n'
                    % wl)
            for us, frac in pts:
                f.write('%g %g\n' % (us, frac))
            f.write('\n\n')
            plot.append("'ycsb_cdf.dat' index %d with lines lw 2 "
                        "title 'YCSB-%s'" % (len(plot), wl))
    if not plot:
        return
    gp = ["set terminal png size 900,560", "cd '%s'" % outdir,
          "set output 'ycsb_cdf.png'",
          "set title 'YCSB latency CDF, 3 nodes, no cache pressure, "
          "node 0 (commit %s)'" % commit,
          "set xlabel 'latency (us)'",
          "set ylabel 'fraction of operations'",
          "set logscale x", "set yrange [0:1]", "set grid",
          "set key bottom right",
          'plot ' + ', '.join(plot)]
    with open(os.path.join(outdir, 'ycsb_cdf.gp'), 'w') as f:
        f.write('\n'.join(gp) + '\n')


def plots(rows, outdir, commit):
    totals = dsm_totals(rows)
    wls = sorted({r['wl'] for r in totals})
    # One block per series that has points: gnuplot's "index" skips
    # empty ones, which would shift every title after them.
    plot = []
    with open(os.path.join(outdir, 'ycsb_nodes.dat'), 'w') as f:
        for wl in wls:
            for p in ('off', 'on'):
                pts = sorted((r for r in totals if r['wl'] == wl and
                              r['pressure'] == p),
                             key=lambda r: int(r['cluster']))
                if not pts:
                    continue
                f.write('# %s pressure %s\n' % (wl, p))
                for r in pts:
                    f.write('%s %s\n' % (r['cluster'], r['ops_per_s']))
                f.write('\n\n')
                plot.append("'ycsb_nodes.dat' index %d with linespoints "
                            "title 'YCSB-%s%s'%s" % (
                                len(plot), wl,
                                ' (cache pressure)' if p == 'on' else '',
                                ' dashtype 2' if p == 'on' else ''))
    gp = ["set terminal png size 900,560",
          "cd '%s'" % outdir,
          "set output 'ycsb_nodes.png'",
          "set title 'YCSB throughput vs nodes (commit %s)'" % commit,
          "set xlabel 'nodes'", "set ylabel 'total ops/s'",
          "set logscale y", "set key outside right", "set grid",
          "set xtics 1",
          'plot ' + ', '.join(plot)]
    with open(os.path.join(outdir, 'ycsb_nodes.gp'), 'w') as f:
        f.write('\n'.join(gp) + '\n')
    micro = rows.get('micro-total', [])
    if micro:
        with open(os.path.join(outdir, 'micro_sharing.dat'), 'w') as f:
            for r in sorted(micro, key=lambda r: int(r['sharing'])):
                f.write('%s %s\n' % (r['sharing'], r['ops_per_s']))
        gp = ["set terminal png size 900,560", "cd '%s'" % outdir,
              "set output 'micro_sharing.png'",
              "set title 'GAM micro, 3 nodes: throughput vs sharing "
              "(commit %s)'" % commit,
              "set xlabel 'sharing ratio (%)'", "set ylabel 'total ops/s'",
              "set logscale y", "set grid", "set xtics 0,50,100",
              "plot 'micro_sharing.dat' with linespoints title 'ddsm'"]
        with open(os.path.join(outdir, 'micro_sharing.gp'), 'w') as f:
            f.write('\n'.join(gp) + '\n')
    per = [r for r in rows.get('ycsb', []) if r['cluster'] == '3' and
           r['pressure'] == 'off' and r.get('mem') == 'dsm']
    if per:
        with open(os.path.join(outdir, 'ycsb_latency.dat'), 'w') as f:
            f.write('wl p50 p99 p999\n')
            for wl in wls:
                v = [r for r in per if r['wl'] == wl]
                if v:
                    f.write('%s %s\n' % (wl, ' '.join(
                        '%.1f' % (sum(num(r, k) for r in v) / len(v))
                        for k in ('p50_us', 'p99_us', 'p999_us'))))
        gp = ["set terminal png size 900,560", "cd '%s'" % outdir,
              "set output 'ycsb_latency.png'",
              "set title 'YCSB latency percentiles, 3 nodes, mean of the "
              "nodes (commit %s)'" % commit,
              "set style data histograms", "set style fill solid 0.6",
              "set logscale y", "set ylabel 'us'", "set grid ytics",
              "plot 'ycsb_latency.dat' using 2:xtic(1) title 'p50', "
              "'' using 3 title 'p99', '' using 4 title 'p999'"]
        with open(os.path.join(outdir, 'ycsb_latency.gp'), 'w') as f:
            f.write('\n'.join(gp) + '\n')
    cdf_plot(rows, outdir, commit)


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    log, outdir, commit = sys.argv[1:]
    outdir = os.path.abspath(outdir)
    rows = parse(log)
    if not rows.get('ycsb-total'):
        sys.exit('bench: no YCSB result in %s' % log)
    for kind in ('ycsb', 'ycsb-total', 'ycsb-cdf', 'micro', 'micro-total'):
        write_csv(os.path.join(outdir, kind.replace('-', '_') + '.csv'),
                  rows.get(kind, []))
    text = summary(rows, commit)
    with open(os.path.join(outdir, 'summary.txt'), 'w') as f:
        f.write(text)
    plots(rows, outdir, commit)


if __name__ == '__main__':
    main()
