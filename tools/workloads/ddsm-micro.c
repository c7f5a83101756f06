// SPDX-License-Identifier: GPL-2.0
/*
 * ddsm-micro: the access pattern of GAM's micro-benchmark (VLDB'18) on
 * every node at once, the shared counters and private blocks checked
 * exactly at the end.  See micro.h for the pattern.
 *
 * usage: ddsm-micro [-B BLOCKS] [-i ITEM] [-r REMOTE] [-S SHARING]
 *                   [-R READ] [-t THREADS] [-o OPS] [-s SECS] [-b BASE]
 *                   [--seed X] [--timeout SECS] [--emulate PATH:NODE:NODES]
 *   -B  blocks per thread (default 1024)
 *   -i  item (block) bytes, a multiple of 8, at most 4096 (default 8)
 *   -r  share of a thread's private blocks homed on other nodes
 *       (default 0.67)
 *   -S  share of a thread's blocks that are the shared blocks every node
 *       accesses (default 10%)
 *   -R  share of operations that read (default 50%)
 *       Ratios: "67" is 67%, "0.67" (a decimal point, at most 1) too.
 *   -t  threads per node (default 1)
 *   -o  operations of each thread's trace (default 10000)
 *   -s  seconds of measured run (may be fractional, e.g. 0.5): replay
 *       the trace cyclically until then; without -s the measured run
 *       runs the trace once
 *   -b  global address of the window, unit aligned (default 160M: inside
 *       the module's default 256 MiB space, above ddsm-ycsb's window)
 *   --emulate  host testing without ddsm (see wl.h)
 * Every node must be given the same options (checked).
 *
 * Phases, separated by barriers: node 0 clears the shared blocks, each
 * thread writes its private blocks' initial values | warm-up run of the
 * trace, once | measured run of the same trace (once, or for -s seconds)
 * | publish per shared block increment tallies and each thread's count of
 * measured operations | every node checks every shared counter against
 * the sum of all nodes' increments, and, regenerating every thread's
 * trace and replaying it to the thread's count, every private block
 * against its last write and every node's tallies against its traces.
 *
 * Output: TAP lines, then on every node (one line)
 *   bench micro node=%d sharing=%d remote=%d read=%d item=%u threads=%d
 *     blocks=%lu ops=%lu secs=%.3f [secs_target=%.1f] ops_per_s=%.0f
 *     mean_us=%.2f remote_meas=%.2f faults_read_per_op=%.3f
 *     faults_write_per_op=%.3f upgrades_per_op=%.3f msgs_per_op=%.3f
 *     evictions_per_op=%.3f
 * (percentages; ops: of the measured run; secs_target: -s, if given;
 * remote_meas is the measured share of accesses to blocks homed
 * elsewhere, shared blocks included; mean_us = thread time / ops) and on
 * node 0
 *   bench micro-total nodes=%d sharing=%d remote=%d read=%d item=%u
 *     threads=%d ops=%lu ops_per_s=%.0f
 * (every node's ops over the longest node's measured run time).
 * Exit 0 iff every check passed; 1 otherwise; 2 for bad usage; 3 on SIGBUS.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libddsm.h"
#include "dsm_sync.h"
#include "test_common.h"
#include "micro.h"
#include "wl.h"

#define DEF_BASE	(160ULL << 20)
#define REPORTS		5

enum { C_NONCE, C_BLOCKS, C_SHARED, C_ITEM, C_REMOTE, C_READ, C_OPS,
	C_SEED, C_THREADS, C_SECS, C_WORDS };
/* Summary unit of a node's results region, after wl.h's words. */
enum { R_DONE = WL_R_WORDS };	/* + thread: its measured operations */

static struct {
	struct wl_opts c;	/* secs 0: the measured run runs the trace once */
	uint64_t blocks;
	double remote, sharing, read;
	uint32_t item;
} o = {
	.c = { .base = DEF_BASE, .ops = 10000, .seed = 1, .timeout = 300,
	       .threads = 1 },
	.blocks = 1024, .remote = 0.67, .sharing = 0.10, .read = 0.50,
	.item = 8,
};

/* Window layout, in units from o.c.base (the results: ww's). */
static struct {
	uint64_t shared, private, units;
} L;

static struct wl_dsm w;
static struct wl_win ww;
static struct micro_cfg cfg;
static struct micro_thread *thr;
static int me, nodes;

static void usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [-B BLOCKS] [-i ITEM] [-r REMOTE] [-S SHARING] [-R READ]\n"
		"       [-t THREADS] [-o OPS] [-s SECS] [-b BASE]\n"
		"       " WL_USAGE_OPTS "\n", prog);
	exit(2);
}

static double ratio(const char *s, const char *what)
{
	double v = wl_parse_ratio(s);

	if (v < 0) {
		fprintf(stderr, "bad %s ratio: %s\n", what, s);
		exit(2);
	}
	return v;
}

static int pct(double v)
{
	return (int)lround(v * 100);
}

static void parse_opt(int opt, const char *prog)
{
	switch (opt) {
	case 'B':
		o.blocks = parse_ul(optarg, "blocks");
		break;
	case 'i':
		o.item = (uint32_t)parse_ul(optarg, "item size");
		break;
	case 'r':
		o.remote = ratio(optarg, "remote");
		break;
	case 'S':
		o.sharing = ratio(optarg, "sharing");
		break;
	case 'R':
		o.read = ratio(optarg, "read");
		break;
	default:
		usage(prog);
	}
}

static void parse_args(int argc, char **argv)
{
	int opt;

	while ((opt = wl_getopt(argc, argv, "B:i:r:S:R:", NULL, &o.c)) != -1)
		parse_opt(opt, argv[0]);
	if (optind != argc || !wl_opts_ok(&o.c) || !o.blocks ||
	    o.blocks >= (1u << 31) || !o.item || o.item % 8 ||
	    o.item > DSM_UNIT || !o.c.ops)
		usage(argv[0]);
}

/* The blocks' geometry and the window's layout. */
static void plan(void)
{
	uint64_t ipu = DSM_UNIT / o.item, first;

	cfg.me = me;
	cfg.nodes = nodes;
	cfg.threads = o.c.threads;
	cfg.blocks = o.blocks;
	cfg.shared = (uint64_t)llround(o.sharing * (double)o.blocks);
	cfg.item = o.item;
	cfg.remote = o.remote;
	cfg.read = o.read;
	cfg.ops = o.c.ops;
	cfg.seed = o.c.seed;
	/* At least one unit per node (if blocks allow): every home serves. */
	cfg.shared_units = (cfg.shared + ipu - 1) / ipu;
	if (cfg.shared_units < (uint64_t)nodes)
		cfg.shared_units = cfg.shared < (uint64_t)nodes ?
				   cfg.shared : (uint64_t)nodes;
	cfg.rows = micro_rows(&cfg);
	ww.results = WL_HEAD_UNITS(nodes);
	ww.result_units = 1 + (cfg.shared * 8 + DSM_UNIT - 1) / DSM_UNIT;
	L.shared = ww.results + (uint64_t)nodes * ww.result_units;
	/* Rows start on a unit homed on node 0. */
	first = o.c.base / DSM_UNIT + L.shared + cfg.shared_units;
	L.private = first + (nodes - first % nodes) % nodes -
		    o.c.base / DSM_UNIT;
	L.units = L.private +
		  (uint64_t)nodes * o.c.threads * cfg.rows * nodes;
}

static void map_space(void)
{
	if (wl_open(&w, o.c.emu))
		exit(1);
	me = w.me;
	nodes = w.n;
	tap_node = me;
	plan();
	wl_win_map(&ww, &w, o.c.base, L.units, o.c.timeout);
	cfg.shared_area = ww.p + L.shared * DSM_UNIT;
	cfg.private_area = ww.p + L.private * DSM_UNIT;
}

/* This node's options: node 0 publishes them, the others compare. */
static const uint64_t *conf_words(void)
{
	static uint64_t c[C_WORDS];

	c[C_BLOCKS] = o.blocks;
	c[C_SHARED] = cfg.shared;
	c[C_ITEM] = o.item;
	c[C_REMOTE] = (uint64_t)llround(o.remote * 1e6);
	c[C_READ] = (uint64_t)llround(o.read * 1e6);
	c[C_OPS] = o.c.ops;
	c[C_SEED] = o.c.seed;
	c[C_THREADS] = (uint64_t)o.c.threads;
	c[C_SECS] = (uint64_t)llround(o.c.secs * 1e6);
	return c;
}

/* Node 0: the configuration for the others, and zeroed shared blocks. */
static void node0_setup(void)
{
	memset(cfg.shared_area, 0, cfg.shared_units * DSM_UNIT);
	wl_conf_publish(&ww, conf_words(), C_WORDS);
}

static void conf_check(void)
{
	volatile uint64_t *c = wl_unit(&ww, WL_CONF_UNIT(nodes));

	if (!wl_conf_check(&ww, conf_words(), C_WORDS))
		tap_bail("options differ from node 0's (blocks %" PRIu64 ", item %" PRIu64 ", threads %" PRIu64 ", ops %" PRIu64 ", secs %.6f)",
			 c[C_BLOCKS], c[C_ITEM], c[C_THREADS], c[C_OPS],
			 c[C_SECS] / 1e6);
}

static void threads_init(void)
{
	int t;

	thr = calloc((size_t)o.c.threads, sizeof(*thr));
	if (!thr)
		tap_bail("out of memory");
	for (t = 0; t < o.c.threads; t++)
		if (micro_thread_init(&thr[t], &cfg, t))
			tap_bail("out of memory for thread %d", t);
}

/* Share of the trace's accesses to blocks homed on other nodes. */
static double remote_share(void)
{
	uint64_t far = 0, total = 0, b, i;
	int t, *home = calloc(o.blocks, sizeof(*home));

	if (!home)
		tap_bail("out of memory");
	for (t = 0; t < o.c.threads; t++) {
		for (b = 0; b < o.blocks; b++)
			home[b] = wl_home(&w, o.c.base +
					  (uint64_t)(thr[t].addr[b] - ww.p));
		for (i = 0; i < o.c.ops; i++)
			far += home[thr[t].trace[i] >> 1] != me;
		total += o.c.ops;
	}
	free(home);
	return (double)far / (double)total;
}

static void check_homes(void)
{
	int h, bad = 0;

	for (h = 0; h < nodes; h++)
		bad += wl_home(&w, o.c.base + (L.private + h) * DSM_UNIT) != h;
	if (bad)
		printf("# node%d: units are not homed round robin (home_policy is not interleave): remote_meas tells the real share\n",
		       me);
}

static struct {
	struct wl_span span;
	double thread_secs;
	uint64_t ops;
} run;

static void measured_run(void)
{
	int t;

	wl_span_start(&w, &run.span);
	if (micro_run(thr, o.c.threads, 2, o.c.secs))
		tap_bail("cannot start %d threads", o.c.threads);
	wl_span_end(&w, &run.span);
	for (t = 0; t < o.c.threads; t++) {
		run.thread_secs += thr[t].secs;
		run.ops += thr[t].done;
	}
}

static void publish(void)
{
	volatile uint64_t *c = wl_tallies(&ww, me), *r = wl_region(&ww, me);
	uint64_t b, sum;
	int t;

	for (b = 0; b < cfg.shared; b++) {
		for (sum = 0, t = 0; t < o.c.threads; t++)
			sum += thr[t].incs[b];
		c[b] = sum;
	}
	for (t = 0; t < o.c.threads; t++)
		r[R_DONE + t] = thr[t].done;
	wl_publish(&ww, run.ops, run.span.secs);
}

static void check_reads(void)
{
	uint64_t bad = 0, back = 0;
	int t;

	for (t = 0; t < o.c.threads; t++) {
		bad += thr[t].bad_reads;
		back += thr[t].backwards;
	}
	tap(!bad && !back,
	    "reads saw our own private writes (%" PRIu64 " did not) and no shared counter going backwards (%" PRIu64 ")",
	    bad, back);
}

static void check_shared(void)
{
	volatile uint64_t *ctr;
	uint64_t b, want, incs = 0, bad = 0;
	int j, stale = 0;

	for (j = 0; j < nodes; j++)
		stale += !wl_published(&ww, j);
	tap(!stale, "read the tallies of %d nodes (%d missing)", nodes,
	    stale);
	for (b = 0; b < cfg.shared; b++) {
		for (want = 0, j = 0; j < nodes; j++)
			want += wl_tallies(&ww, j)[b];
		incs += want;
		ctr = (volatile uint64_t *)thr[0].addr[b];
		if (*ctr != want && bad++ < REPORTS)
			printf("# node%d: shared block %" PRIu64 " = %" PRIu64 ", want %" PRIu64 "\n",
			       me, b, *ctr, want);
	}
	tap(!bad, "%" PRIu64 " shared counters = the sum of %" PRIu64 " increments from %d nodes (%" PRIu64 " wrong)",
	    cfg.shared, incs, nodes, bad);
}

/* Scratch for replaying one thread's trace. */
static struct {
	char **addr;		/* [blocks] */
	uint32_t *trace;	/* [ops] */
	uint64_t *last;		/* [private]: trace index of the last write */
	uint64_t *last_cut;	/* the same, before the measured run's cut */
	uint64_t *incs;		/* [shared]: one node's increments */
} rp;

#define NO_WRITE	UINT64_MAX

/*
 * Word 0 of private block @p's final value: the measured run ran @laps
 * whole traces and stopped at trace index @cut, so its last write is the
 * last one before @cut in the lap it stopped in, else the last one of the
 * lap before, else the warm-up's, else the initial value.
 */
static uint64_t last_write(int k, int t, uint64_t p, uint64_t laps)
{
	if (rp.last_cut[p] != NO_WRITE)
		return micro_word(k, t, p, 2, laps * o.c.ops + rp.last_cut[p]);
	if (rp.last[p] == NO_WRITE)
		return micro_word(k, t, p, 0, 0);
	if (laps)
		return micro_word(k, t, p, 2,
				  (laps - 1) * o.c.ops + rp.last[p]);
	return micro_word(k, t, p, 1, rp.last[p]);
}

/*
 * Replay (@k, @t)'s trace as it ran: once in the warm-up, then for @done
 * operations, operation i being trace[i % ops].  Count its private
 * blocks not holding their last write; add its increments to rp.incs.
 */
static uint64_t check_owner(int k, int t, uint64_t done)
{
	uint64_t i, b, p, bad = 0, priv = o.blocks - cfg.shared;
	uint64_t laps = done / o.c.ops, cut = done % o.c.ops;

	micro_pool(&cfg, k, t, rp.addr);
	micro_trace(&cfg, k, t, rp.trace);
	for (p = 0; p < priv; p++) {
		rp.last[p] = NO_WRITE;
		rp.last_cut[p] = NO_WRITE;
	}
	for (i = 0; i < o.c.ops; i++) {
		if (!(rp.trace[i] & 1))
			continue;
		b = rp.trace[i] >> 1;
		if (b < cfg.shared) {
			/* The warm-up, each whole lap, the partial one. */
			rp.incs[b] += 1 + laps + (i < cut);
			continue;
		}
		rp.last[b - cfg.shared] = i;
		if (i < cut)
			rp.last_cut[b - cfg.shared] = i;
	}
	for (p = 0; p < priv; p++)
		if (!micro_holds((volatile uint64_t *)rp.addr[cfg.shared + p],
				 o.item, last_write(k, t, p, laps)) &&
		    bad++ < REPORTS)
			printf("# node%d: private block %" PRIu64 " of node%d thread%d is not its last write (%" PRIu64 " operations)\n",
			       me, p, k, t, done);
	return bad;
}

/* @k's published tallies against its traces' replay; mismatches. */
static uint64_t check_tallies(int k)
{
	volatile uint64_t *c = wl_tallies(&ww, k);
	uint64_t b, bad = 0;

	for (b = 0; b < cfg.shared; b++)
		if (c[b] != rp.incs[b] && bad++ < REPORTS)
			printf("# node%d: node%d tallied %" PRIu64 " increments of shared block %" PRIu64 ", its traces %" PRIu64 "\n",
			       me, k, c[b], b, rp.incs[b]);
	return bad;
}

/* Every published node's threads, from their regenerated traces. */
static void check_traces(void)
{
	uint64_t bad = 0, tally_bad = 0, shared = cfg.shared ? cfg.shared : 1;
	int k, t;

	rp.addr = calloc(o.blocks, sizeof(*rp.addr));
	rp.trace = calloc(o.c.ops, sizeof(*rp.trace));
	rp.last = calloc(o.blocks, sizeof(*rp.last));
	rp.last_cut = calloc(o.blocks, sizeof(*rp.last_cut));
	rp.incs = calloc(shared, sizeof(*rp.incs));
	if (!rp.addr || !rp.trace || !rp.last || !rp.last_cut || !rp.incs)
		tap_bail("out of memory");
	for (k = 0; k < nodes; k++) {
		/* Unknown counts: check_shared() has failed the run. */
		if (!wl_published(&ww, k))
			continue;
		memset(rp.incs, 0, shared * sizeof(*rp.incs));
		for (t = 0; t < o.c.threads; t++)
			bad += check_owner(k, t, wl_region(&ww, k)[R_DONE + t]);
		tally_bad += check_tallies(k);
	}
	free(rp.addr);
	free(rp.trace);
	free(rp.last);
	free(rp.last_cut);
	free(rp.incs);
	tap(!bad, "%" PRIu64 " private blocks of %d threads on %d nodes hold their last writes (%" PRIu64 " wrong)",
	    (o.blocks - cfg.shared) * o.c.threads * nodes, o.c.threads, nodes,
	    bad);
	tap(!tally_bad, "every node's tallies = its traces replayed to its published operation counts (%" PRIu64 " wrong)",
	    tally_bad);
}

static void report(double remote_meas)
{
	printf("bench micro node=%d sharing=%d remote=%d read=%d item=%u threads=%d blocks=%" PRIu64 " ops=%" PRIu64 " secs=%.3f",
	       me, pct(o.sharing), pct(o.remote), pct(o.read), o.item,
	       o.c.threads, o.blocks, run.ops, run.span.secs);
	if (o.c.secs > 0)
		printf(" secs_target=%.1f", o.c.secs);
	printf(" ops_per_s=%.0f mean_us=%.2f remote_meas=%.2f",
	       run.span.secs > 0 ? run.ops / run.span.secs : 0,
	       run.ops ? run.thread_secs * 1e6 / (double)run.ops : 0,
	       remote_meas);
	wl_print_counters(&run.span, run.ops);
	putchar('\n');
}

static void report_total(void)
{
	uint64_t ops;
	double rate;

	if (me)
		return;
	wl_totals(&ww, &ops, &rate);
	printf("bench micro-total nodes=%d sharing=%d remote=%d read=%d item=%u threads=%d ops=%" PRIu64 " ops_per_s=%.0f\n",
	       nodes, pct(o.sharing), pct(o.remote), pct(o.read), o.item,
	       o.c.threads, ops, rate);
}

int main(int argc, char **argv)
{
	double remote_meas;

	parse_args(argc, argv);
	map_space();
	if (!me)
		node0_setup();
	threads_init();
	wl_barrier(&ww, "setup");
	if (me)
		conf_check();
	check_homes();
	remote_meas = remote_share();
	if (micro_run(thr, o.c.threads, 1, 0))
		tap_bail("cannot start %d threads", o.c.threads);
	wl_barrier(&ww, "the warm-up run");
	measured_run();
	wl_barrier(&ww, "the measured run");
	publish();
	wl_barrier(&ww, "publishing");
	check_reads();
	check_shared();
	check_traces();
	wl_barrier(&ww, "verifying");
	report(remote_meas);
	report_total();
	return tap_failed ? 1 : 0;
}
