// SPDX-License-Identifier: GPL-2.0
/*
 * ddsm-ycsb: the YCSB core workloads over one kv hash table (kv.h) that
 * every node maps at the same global address, run by every node at once,
 * with every record checked exactly at the end.
 *
 * usage: ddsm-ycsb [-n RECORDS] [-w A|B|C|D|F] [-d zipfian|uniform]
 *                  [-t THREADS] [-s SECONDS | -o OPS] [-v VALUE_SIZE]
 *                  [-b BASE] [--pack K] [--spread] [--slots S] [--anon]
 *                  [--warm] [--insert-room N] [--seed X] [--timeout SECS]
 *                  [--emulate PATH:NODE:NODES]
 *   -n  records loaded, keys 1..N (default 10000)
 *   -w  workload (default A): A 50% read 50% update, B 95/5, C read only,
 *       D 95% read of the latest records 5% insert, F 50% read 50%
 *       read-modify-write
 *   -d  key distribution of A, B, C, F (default zipfian, YCSB's scrambled
 *       zipfian with theta 0.99); D always uses latest
 *   -t  threads per node (default 1)
 *   -s  seconds of timed run (default 10, may be fractional), or -o
 *       operations per thread (-o wins over -s)
 *   -v  value bytes, a multiple of 8 (default 1024)
 *   -b  global address of the window, unit aligned (default 64M: inside
 *       the module's default 256 MiB space with room for the default
 *       run's window of about 13.5 MiB, and below ddsm-micro's)
 *   --pack K     buckets sharing a group of units (default 1: none)
 *   --spread     consecutive buckets on units of different homes
 *   --slots S    slots per bucket (default: as many as fill one unit)
 *   --anon       run over a private table in anonymous memory on each
 *                node (verified against this node's updates only); the
 *                nodes still synchronise through ddsm, and without
 *                /dev/ddsm the program runs alone as node 0 of 1
 *   --warm       read every record once before the timed run
 *   --insert-room N  keys D may insert above N, all nodes together
 *                (default N); the table is sized for N + room
 *   --emulate    host testing without ddsm: each node is a process
 *                mapping PATH (empty at the start) MAP_SHARED
 * Node id and node count come from the module (ddsm_open()).
 *
 * Phases, separated by barriers in ddsm memory (every wait bounded by
 * --timeout, default 300 s): node 0 lays out the table and loads the
 * records at version 1 | every node checks it runs node 0's configuration
 * | optional warm-up | timed run (per-op latency histogram, per-key tally
 * of this node's successful updates) | each node publishes its tallies in
 * its own results region | every node checks every key: checksum and
 * value match (key, version), version = 1 + the updates of all nodes (for
 * D: inserted keys are present at version 1, others absent), and a scan
 * finds exactly the expected records.
 *
 * Output: TAP lines "ok - node%d: ..." / "not ok - node%d: ...", then
 *   bench ycsb node=%d wl=%c dist=%s threads=%d records=%lu ops=%lu
 *     secs=%.2f ops_per_s=%.0f p50_us=%.1f p99_us=%.1f p999_us=%.1f
 *     faults_read_per_op=%.3f faults_write_per_op=%.3f upgrades_per_op=%.3f
 *     msgs_per_op=%.3f evictions_per_op=%.3f mem=dsm|anon pack=%u
 *     spread=%d value=%u reads=%lu updates=%lu inserts=%lu rmws=%lu
 *     read_miss=%lu insert_full=%lu
 * (one line) on every node, the counters being this node's ddsm_status
 * differences over the timed run (msgs: messages sent), then on every
 * node its latency CDF (one line, at most CDF_POINTS points)
 *   bench ycsb-cdf node=%d wl=%c nodes=%d mem=dsm|anon dist=%s threads=%d
 *     records=%lu pack=%u spread=%d value=%u pts=US:FRAC,US:FRAC,...
 * (FRAC of the operations took at most US microseconds; see
 * hist_print_cdf()), and on node 0
 *   bench ycsb-total wl=%c dist=%s nodes=%d threads=%d records=%lu
 *     ops=%lu ops_per_s=%.0f
 * (every node's ops over the longest node's run time).  Exit 0 iff every
 * check passed; 1 otherwise; 2 for bad usage; 3 on SIGBUS.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "libddsm.h"
#include "dsm_sync.h"
#include "test_common.h"
#include "kv.h"
#include "wl.h"
#include "ycsb.h"

#define DEF_BASE	(64ULL << 20)
#define REPORTS		5	/* mismatches printed per check */
#define CDF_POINTS	60

/* Configuration unit: what node 0 ran with, for the others to compare. */
enum { C_NONCE, C_RECORDS, C_KEYCAP, C_WL, C_VALUE, C_PACK, C_FLAGS,
	C_SLOTS, C_ANON, C_WORDS };
/* Summary unit of a node's results region, after wl.h's words. */
enum { R_UPDATES = WL_R_WORDS, R_INSERTS, R_WORDS };

static struct {
	struct wl_opts c;	/* ops 0: run for secs */
	uint64_t records, insert_room;
	char wl;
	enum ycsb_dist dist;
	int anon, warm, spread, room_set;
	uint32_t value_size, pack, slots;
} o = {
	.c = { .base = DEF_BASE, .seed = 1, .secs = 10, .timeout = 300,
	       .threads = 1 },
	.records = 10000, .wl = 'A', .dist = YCSB_ZIPFIAN,
	.value_size = 1024, .pack = 1,
};

/* Window layout, in units from o.c.base (the results: ww's). */
static struct {
	uint64_t table, units;
} L;

static struct wl_dsm w;
static struct wl_win ww;	/* ww.p NULL when alone (--anon, no device) */
static struct kv_table table;
static struct kv_params kp;
static uint64_t key_cap;
static int me, nodes;

static const char *dist_name(enum ycsb_dist d)
{
	return d == YCSB_UNIFORM ? "uniform" :
	       d == YCSB_ZIPFIAN ? "zipfian" : "latest";
}

static void usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [-n RECORDS] [-w A|B|C|D|F] [-d zipfian|uniform] [-t THREADS]\n"
		"       [-s SECONDS | -o OPS] [-v VALUE_SIZE] [-b BASE] [--pack K] [--spread]\n"
		"       [--slots S] [--anon] [--warm] [--insert-room N]\n"
		"       " WL_USAGE_OPTS "\n", prog);
	exit(2);
}

static void parse_dist(const char *s)
{
	if (!strcmp(s, "zipfian"))
		o.dist = YCSB_ZIPFIAN;
	else if (!strcmp(s, "uniform"))
		o.dist = YCSB_UNIFORM;
	else
		usage("ddsm-ycsb");
}

static void parse_long(int opt)
{
	switch (opt) {
	case 'P':
		o.pack = (uint32_t)parse_ul(optarg, "pack");
		break;
	case 'L':
		o.slots = (uint32_t)parse_ul(optarg, "slots");
		break;
	case 'I':
		o.insert_room = parse_ul(optarg, "insert room");
		o.room_set = 1;
		break;
	default:
		usage("ddsm-ycsb");
	}
}

static void parse_args(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "pack", required_argument, NULL, 'P' },
		{ "spread", no_argument, &o.spread, 1 },
		{ "slots", required_argument, NULL, 'L' },
		{ "anon", no_argument, &o.anon, 1 },
		{ "warm", no_argument, &o.warm, 1 },
		{ "insert-room", required_argument, NULL, 'I' },
		{ NULL, 0, NULL, 0 }
	};
	int opt;

	while ((opt = wl_getopt(argc, argv, "n:w:d:v:", lo, &o.c)) != -1) {
		switch (opt) {
		case 0:
			break;
		case 'n':
			o.records = parse_ul(optarg, "records");
			break;
		case 'w':
			o.wl = optarg[0];
			if (optarg[1] || !strchr("ABCDF", o.wl))
				usage(argv[0]);
			break;
		case 'd':
			parse_dist(optarg);
			break;
		case 'v':
			o.value_size = (uint32_t)parse_ul(optarg, "value size");
			break;
		default:
			parse_long(opt);
		}
	}
	if (optind != argc || !wl_opts_ok(&o.c) || !o.records || !o.pack ||
	    !o.value_size || o.value_size % 8)
		usage(argv[0]);
	if (o.wl == 'D')
		o.dist = YCSB_LATEST;
	if (!o.room_set)
		o.insert_room = o.wl == 'D' ? o.records : 0;
}

/* The table's geometry and the window's layout. */
static void plan(void)
{
	key_cap = o.records + (o.wl == 'D' ? o.insert_room : 0);
	kp.slots = o.slots ? o.slots : kv_default_slots(o.value_size);
	/* Dense keys, direct mapping: load factor 1 never overflows. */
	kp.nr_buckets = kv_buckets_for(key_cap, kp.slots, 1.0);
	kp.value_size = o.value_size;
	kp.pack = o.pack;
	kp.flags = KV_F_DIRECT | (o.spread ? KV_F_SPREAD : 0);
	kp.nr_nodes = (uint32_t)nodes;
	if (!kv_bytes(&kp)) {
		fprintf(stderr, "bad table geometry (slots 1..%u)\n",
			KV_MAX_SLOTS);
		exit(2);
	}
	L.table = WL_HEAD_UNITS(nodes);
	ww.results = L.table + (o.anon ? 0 : kv_bytes(&kp) / DSM_UNIT);
	ww.result_units = 1 + (key_cap * 8 + DSM_UNIT - 1) / DSM_UNIT;
	L.units = ww.results + (uint64_t)nodes * ww.result_units;
}

/* Open ddsm (or the emulation); --anon may run alone without it. */
static void open_space(void)
{
	if (!wl_open(&w, o.c.emu)) {
		me = w.me;
		nodes = w.n;
		return;
	}
	if (!o.anon || o.c.emu)
		exit(1);
	printf("# no ddsm: running alone over anonymous memory\n");
	me = 0;
	nodes = 1;
}

static void map_space(void)
{
	if (w.emu_fd >= 0 || w.d.fd >= 0)
		wl_win_map(&ww, &w, o.c.base, L.units, o.c.timeout);
}

/* This node's options: node 0 publishes them, the others compare. */
static const uint64_t *conf_words(void)
{
	static uint64_t c[C_WORDS];

	c[C_RECORDS] = o.records;
	c[C_KEYCAP] = key_cap;
	c[C_WL] = (uint64_t)o.wl;
	c[C_VALUE] = o.value_size;
	c[C_PACK] = o.pack;
	c[C_FLAGS] = kp.flags;
	c[C_SLOTS] = kp.slots;
	c[C_ANON] = (uint64_t)o.anon;
	return c;
}

static void conf_check(void)
{
	volatile uint64_t *c = wl_unit(&ww, WL_CONF_UNIT(nodes));

	if (!wl_conf_check(&ww, conf_words(), C_WORDS))
		tap_bail("options differ from node 0's (records %" PRIu64 ", workload %c, value %" PRIu64 ", pack %" PRIu64 ", flags %#" PRIx64 ")",
			 c[C_RECORDS], (char)c[C_WL], c[C_VALUE], c[C_PACK],
			 c[C_FLAGS]);
}

/* Keys 1..records at version 1. */
static void load(void)
{
	uint64_t key, bad = 0;
	double t0 = dsm_now();
	int64_t v;

	for (key = 1; key <= o.records; key++) {
		v = kv_put(&table, key, NULL);
		if (v != 1 && !bad++)
			printf("# node%d: loading key %" PRIu64 ": %" PRId64 "\n",
			       me, key, v);
	}
	tap(!bad, "loaded %" PRIu64 " records in %.2f s (%" PRIu64 " failed)",
	    o.records, dsm_now() - t0, bad);
}

static void *anon_alloc(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		tap_bail("mmap of %zu anonymous bytes: %s", len,
			 strerror(errno));
	return p;
}

/* Node 0 builds the shared table (every node its own with --anon). */
static void build_table(void)
{
	size_t len = kv_bytes(&kp);
	void *base;
	int r;

	if (!o.anon && me)
		return;
	base = o.anon ? anon_alloc(len) : ww.p + L.table * DSM_UNIT;
	r = kv_init(&table, base, len, &kp);
	if (r)
		tap_bail("kv_init: %s", strerror(-r));
	table.owner = (uint64_t)me + 1;
	table.timeout = o.c.timeout;
	load();
}

static void attach_table(void)
{
	int r;

	if (o.anon || !me)
		return;
	r = kv_attach(&table, ww.p + L.table * DSM_UNIT, kv_bytes(&kp));
	tap(!r, "attached node 0's table: %s", r ? strerror(-r) : "ok");
	if (r)
		tap_bail("no table");
	table.owner = (uint64_t)me + 1;
	table.timeout = o.c.timeout;
}

static void describe(void)
{
	printf("# node%d of %d: wl=%c dist=%s records=%" PRIu64 " key_cap=%" PRIu64 " buckets=%" PRIu64 " slots=%u bucket_bytes=%u pack=%u spread=%d groups=%" PRIu64 " stride_units=%" PRIu64 " table_mib=%.1f window=0x%" PRIx64 "+0x%" PRIx64 "\n",
	       me, nodes, o.wl, dist_name(o.dist), o.records, key_cap,
	       table.nr_buckets, table.slots, table.bucket_size, table.pack,
	       o.spread, table.nr_groups, table.stride_bytes / DSM_UNIT,
	       table.total_bytes / 1048576.0, o.c.base, L.units * DSM_UNIT);
}

static void warm(void)
{
	uint64_t key, ver, bad = 0;
	void *buf = malloc(o.value_size);
	double t0 = dsm_now();

	if (!buf)
		tap_bail("out of memory");
	for (key = 1; key <= o.records; key++)
		if (kv_get(&table, key, buf, &ver) ||
		    !kv_value_is_pattern(&table, key, ver, buf))
			bad++;
	free(buf);
	tap(!bad, "warm-up read %" PRIu64 " records in %.2f s, %" PRIu64 " wrong",
	    o.records, dsm_now() - t0, bad);
}

/* The timed run's results on this node. */
static struct {
	struct ycsb_tally tally;
	struct hist hist;
	struct wl_span span;
	uint64_t *changes;	/* [key - 1], summed over threads */
} run;

static void run_workload(void)
{
	struct ycsb_worker *wk = calloc((size_t)o.c.threads, sizeof(*wk));
	struct ycsb_cfg cfg = {
		.t = &table, .workload = o.wl, .dist = o.dist,
		.records = o.records, .key_cap = key_cap, .me = me,
		.n = nodes, .ops = o.c.ops, .seed = o.c.seed,
		.newest = o.records,
	};
	uint64_t k;
	int i;

	run.changes = calloc(key_cap, sizeof(*run.changes));
	if (!wk || !run.changes)
		tap_bail("out of memory");
	wl_span_start(&w, &run.span);
	cfg.deadline = run.span.t0 + o.c.secs;
	if (ycsb_run(&cfg, wk, o.c.threads))
		tap_bail("cannot start %d threads", o.c.threads);
	wl_span_end(&w, &run.span);
	for (i = 0; i < o.c.threads; i++) {
		ycsb_tally_add(&run.tally, &wk[i].tally);
		hist_merge(&run.hist, &wk[i].hist);
		for (k = 0; k < key_cap; k++)
			run.changes[k] += wk[i].changes[k];
	}
	ycsb_free(wk, o.c.threads);
	free(wk);
	tap(!run.tally.bad, "%" PRIu64 " operations in %.2f s, no wrong or missing data seen (%" PRIu64 ")",
	    run.tally.ops, run.span.secs, run.tally.bad);
	tap(!run.tally.errors, "no operation failed (%" PRIu64 ")",
	    run.tally.errors);
}

static void publish(void)
{
	volatile uint64_t *r = wl_region(&ww, me), *c = wl_tallies(&ww, me);
	uint64_t k;

	for (k = 0; k < key_cap; k++)
		c[k] = run.changes[k];
	r[R_UPDATES] = run.tally.updates + run.tally.rmws;
	r[R_INSERTS] = run.tally.inserts;
	wl_publish(&ww, run.tally.ops, run.span.secs);
}

/* Expected version of every key (0: absent) from every node's tallies. */
static uint64_t *expected_versions(uint64_t *changes_total)
{
	uint64_t *want = calloc(key_cap, sizeof(*want)), k;
	int j, stale = 0;

	if (!want)
		tap_bail("out of memory");
	for (k = 0; k < key_cap; k++)
		want[k] = k < o.records;
	for (j = 0; j < nodes; j++) {
		volatile uint64_t *r = NULL;

		if (j != me && o.anon)
			continue;
		if (j != me) {
			if (!wl_published(&ww, j)) {
				stale++;
				continue;
			}
			r = wl_tallies(&ww, j);
		}
		for (k = 0; k < key_cap; k++) {
			uint64_t c = r ? r[k] : run.changes[k];

			want[k] += c;
			*changes_total += c;
		}
	}
	tap(!stale, "read the tallies of %d nodes (%d missing)",
	    o.anon ? 1 : nodes, stale);
	return want;
}

/* kv_get() every key: present iff expected, right version, right bytes. */
static void check_keys(const uint64_t *want, uint64_t total)
{
	uint64_t k, ver, bad = 0, present = 0;
	void *buf = malloc(o.value_size);
	int r;

	if (!buf)
		tap_bail("out of memory");
	for (k = 1; k <= key_cap; k++) {
		r = kv_get(&table, k, buf, &ver);
		if (!want[k - 1] && r == -ENOENT)
			continue;
		present += !r;
		if (!r && ver == want[k - 1] &&
		    kv_value_is_pattern(&table, k, ver, buf))
			continue;
		if (bad++ < REPORTS)
			printf("# node%d: key %" PRIu64 ": %s, version %" PRIu64 ", want %" PRIu64 "\n",
			       me, k, r ? strerror(-r) : "found", r ? 0 : ver,
			       want[k - 1]);
	}
	free(buf);
	tap(!bad, "%" PRIu64 " keys: checksums, contents and versions = loaded + %" PRIu64 " updates and inserts from %d nodes exact (%" PRIu64 " wrong)",
	    present, total, o.anon ? 1 : nodes, bad);
}

struct scan_acc {
	const uint64_t *want;
	uint64_t slots, bad;
};

static int scan_one(const struct kv_table *t, const struct kv_slot *sl,
		    void *arg)
{
	struct scan_acc *a = arg;

	a->slots++;
	if (sl->key > key_cap || kv_verify_slot(t, sl) ||
	    sl->version != a->want[sl->key - 1])
		a->bad++;
	return 0;
}

static void check_scan(const uint64_t *want)
{
	struct scan_acc a = { .want = want };
	uint64_t k, expect = 0;
	int64_t r;

	for (k = 0; k < key_cap; k++)
		expect += want[k] != 0;
	r = kv_scan(&table, scan_one, &a);
	tap(r >= 0 && a.slots == expect && !a.bad,
	    "scan: %" PRIu64 " records, %" PRIu64 " expected, %" PRIu64 " bad slots%s",
	    a.slots, expect, a.bad, r < 0 ? " (scan failed)" : "");
}

static void verify(void)
{
	uint64_t total = 0, *want = expected_versions(&total);

	check_keys(want, total);
	check_scan(want);
	free(want);
}

static void report(void)
{
	struct ycsb_tally *t = &run.tally;
	double secs = run.span.secs;

	printf("bench ycsb node=%d wl=%c dist=%s threads=%d records=%" PRIu64 " ops=%" PRIu64 " secs=%.2f ops_per_s=%.0f p50_us=%.1f p99_us=%.1f p999_us=%.1f",
	       me, o.wl, dist_name(o.dist), o.c.threads, o.records, t->ops,
	       secs, secs > 0 ? t->ops / secs : 0,
	       hist_quantile_us(&run.hist, 0.5),
	       hist_quantile_us(&run.hist, 0.99),
	       hist_quantile_us(&run.hist, 0.999));
	wl_print_counters(&run.span, t->ops);
	printf(" mem=%s pack=%u spread=%d value=%u reads=%" PRIu64 " updates=%" PRIu64 " inserts=%" PRIu64 " rmws=%" PRIu64 " read_miss=%" PRIu64 " insert_full=%" PRIu64 "\n",
	       o.anon ? "anon" : "dsm", o.pack, o.spread, o.value_size,
	       t->reads, t->updates, t->inserts, t->rmws, t->read_miss,
	       t->insert_full);
	printf("bench ycsb-cdf node=%d wl=%c nodes=%d mem=%s dist=%s threads=%d records=%" PRIu64 " pack=%u spread=%d value=%u pts=",
	       me, o.wl, nodes, o.anon ? "anon" : "dsm", dist_name(o.dist),
	       o.c.threads, o.records, o.pack, o.spread, o.value_size);
	hist_print_cdf(stdout, &run.hist, CDF_POINTS);
	putchar('\n');
}

/* Node 0: every node's ops and ops/s, from the published summaries. */
static void report_total(void)
{
	uint64_t ops;
	double rate;

	if (me || !ww.p)
		return;
	wl_totals(&ww, &ops, &rate);
	printf("bench ycsb-total wl=%c dist=%s nodes=%d threads=%d records=%" PRIu64 " ops=%" PRIu64 " ops_per_s=%.0f\n",
	       o.wl, dist_name(o.dist), nodes, o.c.threads, o.records, ops,
	       rate);
}

int main(int argc, char **argv)
{
	parse_args(argc, argv);
	open_space();
	tap_node = me;
	plan();
	map_space();
	if (!me)
		wl_conf_publish(&ww, conf_words(), C_WORDS);
	build_table();
	wl_barrier(&ww, "loading");
	if (me)
		conf_check();
	attach_table();
	describe();
	if (o.warm)
		warm();
	wl_barrier(&ww, "warm-up");
	run_workload();
	wl_barrier(&ww, "the run");
	if (ww.p)
		publish();
	wl_barrier(&ww, "publishing");
	verify();
	wl_barrier(&ww, "verifying");
	report();
	report_total();
	return tap_failed ? 1 : 0;
}
