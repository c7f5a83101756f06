#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make bench-tx's report: HADES against the OCC baseline, per workload.

Reads build/bench/tx.log (every node's "bench txbench" lines and node 0's
"bench txbench-total" lines, tools/bench/tx/guest.sh) and writes tx.csv and
tx.txt: cluster commits/s of each backend and their ratio, latency (p50:
the median of the nodes' medians; p99: the worst node's), ddsm messages
sent per commit (every node's, over every commit), the conflict-abort
rate and its main causes.

    report.py LOG OUTDIR COMMIT
"""
import re
import sys

FIELD = re.compile(r'(\w+)=(\S+)')


def key(f):
    """A workload, as both backends ran it."""
    if f['wl'] == 'smallbank':
        hot = f.get('hot', '0')
        return 'SmallBank ' + ('uniform' if hot == '0' else
                               '90%% on %s accounts' % hot)
    return 'YCSB-T %s/%d%s' % (f['read_pct'], 100 - int(f['read_pct']),
                               ', one by one' if f.get('reads') else '')


def main():
    log, out, commit = sys.argv[1:4]
    nodes, totals, order = {}, {}, []
    with open(log, errors='replace') as fh:
        for line in fh:
            m = re.search(r'bench txbench(-total)? (.*)', line)
            if not m:
                continue
            f = dict(FIELD.findall(m.group(2)))
            if m.group(1):
                # The total line has no workload knobs: the node lines
                # of the same backend that came just before name it.
                k = (last_key.get(f['backend']), f['backend'])
                totals[k] = f
                continue
            k = (key(f), f['backend'])
            last_key[f['backend']] = k[0]
            if k[0] not in order:
                order.append(k[0])
            nodes.setdefault(k, []).append(f)
    rows = []
    for wl in order:
        r = {'wl': wl}
        for b in ('occ', 'hades'):
            ns = nodes.get((wl, b), [])
            t = totals.get((wl, b))
            if not ns or not t:
                r[b] = None
                continue
            commits = sum(int(n['commits']) for n in ns)
            msgs = sum(float(n['msgs_per_op']) * int(n['commits'])
                       for n in ns)
            causes = {}
            for n in ns:
                for c, v in n.items():
                    if c.startswith('ab_') and int(v):
                        causes[c[3:]] = causes.get(c[3:], 0) + int(v)
            top = sorted(causes.items(), key=lambda x: -x[1])[:2]
            p50 = sorted(float(n['p50_us']) for n in ns)[len(ns) // 2]
            r[b] = {
                'cps': float(t['commits_per_s']),
                'p50': p50,
                'p99': max(float(n['p99_us']) for n in ns),
                'msgs': msgs / commits if commits else 0,
                'abort': float(t['abort_rate']) * 100,
                'causes': ' '.join('%s %d' % c for c in top) or '-',
            }
        rows.append(r)
    with open(out + '/tx.csv', 'w') as fh:
        fh.write('workload,backend,commits_per_s,p50_us,p99_us,'
                 'msgs_per_commit,abort_pct,causes\n')
        for r in rows:
            for b in ('occ', 'hades'):
                x = r[b]
                if x:
                    fh.write('%s,%s,%.0f,%.0f,%.0f,%.1f,%.1f,%s\n' % (
                        r['wl'], b, x['cps'], x['p50'], x['p99'],
                        x['msgs'], x['abort'], x['causes']))
    lines = ['HADES / OCC, 3 nodes x 2 threads, commit %s' % commit, '',
             '| workload | backend | commits/s | HADES/OCC | p50 ms | '
             'p99 ms | msgs/commit | aborts | main causes |',
             '|---|---|---:|---:|---:|---:|---:|---:|---|']
    for r in rows:
        o, h = r['occ'], r['hades']
        ratio = '%.2fx' % (h['cps'] / o['cps']) if o and h and o['cps'] \
            else '-'
        for b, x in (('occ', o), ('hades', h)):
            if not x:
                lines.append('| %s | %s | (failed) | | | | | | |' %
                             (r['wl'], b))
                continue
            lines.append('| %s | %s | %.0f | %s | %.1f | %.1f | %.1f | '
                         '%.1f%% | %s |' % (
                             r['wl'], b, x['cps'],
                             ratio if b == 'hades' else '',
                             x['p50'] / 1000, x['p99'] / 1000, x['msgs'],
                             x['abort'], x['causes']))
    with open(out + '/tx.txt', 'w') as fh:
        fh.write('\n'.join(lines) + '\n')
    return 0 if all(r['occ'] and r['hades'] for r in rows) and rows else 1


last_key = {}
if __name__ == '__main__':
    sys.exit(main())
