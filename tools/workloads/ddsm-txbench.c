// SPDX-License-Identifier: GPL-2.0
/*
 * ddsm-txbench: SmallBank and YCSB-T transactions (txwl.h) over the
 * global space, through a transaction backend chosen by one flag (txn.h:
 * the software OCC baseline now, HADES once the kernel has it), run by
 * every node at once, with the final state checked exactly and,
 * optionally, the committed history checked for serializability.
 *
 * usage: ddsm-txbench [-w smallbank|ycsbt] [--backend occ|hades]
 *                     [-n RECORDS] [-t THREADS] [-s SECONDS | -o TXS]
 *                     [--hot N] [--hot-pct P] [-r READ] [-v VALUE]
 *                     [--tx-ops K] [--one-by-one] [--stride BYTES] [--align]
 *                     [--lock-spins N]
 *                     [--read-tries N]
 *                     [--max-tries N] [--check] [--log-mib M]
 *                     [--log-file PREFIX] [--bug skip-validation]
 *                     [-b BASE] [--seed X] [--timeout SECS]
 *                     [--emulate PATH:NODE:NODES]
 *   -w  workload (default smallbank)
 *   --backend  occ (default): software OCC over plain ddsm memory;
 *       hades: the kernel's transactions (DDSM_IOC_TX_*); the tables are
 *       then a transactional region after the mapped window; without
 *       /dev/ddsm (--emulate) refused with a message, exit 1
 *   -n  accounts (SmallBank) or records (YCSB-T) (default 10000)
 *   -t  threads per node (default 1)
 *   -s  seconds of timed run (default 10, may be fractional), or -o
 *       transactions per thread (-o wins)
 *   --hot N, --hot-pct P  SmallBank's contention knob: P% of account
 *       choices (default 90) go to accounts 0..N-1 (default N 0: none)
 *   -r  YCSB-T's share of reads, a percentage or a fraction (default 50;
 *       95 for the read-mostly mix)
 *   -v  YCSB-T's value bytes, a multiple of 8, 16..4096 (default 1024)
 *   --tx-ops K  YCSB-T's operations per transaction (default 5, max 16)
 *   --one-by-one  read records one after the other (YCSB-T: each then
 *       written if it is to be), instead of a transaction's reads all at
 *       once first (txn_read_many(): on HADES one DDSM_IOC_TX_READV)
 *   --stride BYTES  from one record to the next, a multiple of 8 (default:
 *       header and data rounded up to 64, one cache line for SmallBank)
 *   --align  no record crosses a unit boundary: each unit holds 4096 /
 *       stride records from its start, the rest of it unused (default:
 *       records back to back, so that some lie across two units, which
 *       ddsm interleaves over the homes)
 *   --lock-spins N  re-tries of a held lock at commit before aborting
 *       (default 0: abort at once, as FaRM)
 *   --read-tries N  re-tries (pause, then sched_yield()) of a read that
 *       finds its record locked or moving, before aborting (default 8)
 *   --max-tries N  attempts of one transaction (default 10000)
 *   --check  log every committed transaction (local memory, then this
 *       node's log region) and have node 0 check the merged history for
 *       serializability (sercheck.h); --log-mib M sizes each node's log
 *       region (default 4); --log-file PREFIX also writes this node's log
 *       as text to PREFIX.nodeN for ddsm-sercheck
 *   --bug skip-validation  planted bug: commits skip the read set's
 *       validation; the checks must fail
 *   -b  global address of the window (default 96M: above ddsm-ycsb's
 *       default window, below ddsm-micro's)
 *
 * Phases, separated by barriers in ddsm memory (as ddsm-ycsb): node 0
 * lays out the tables | every node checks it runs node 0's configuration
 * | timed run | each node publishes its tallies (and its log) | every
 * node checks every record against every node's tallies; node 0 checks
 * the history.
 *
 * Output: TAP lines, then on every node
 *   bench txbench node=%d wl=%s backend=%s threads=%d records=%lu
 *     txs=%lu commits=%lu secs=%.2f commits_per_s=%.0f p50_us=%.1f
 *     p99_us=%.1f user_aborts=%lu gave_up=%lu attempts=%lu aborts=%lu
 *     abort_rate=%.4f retries=%lu ab_read_locked=%lu ab_read_torn=%lu
 *     ab_read_changed=%lu ab_lock_held=%lu ab_validate_locked=%lu
 *     ab_version=%lu ab_overflow=%lu [hot=%lu hot_pct=%.0f | read_pct=%.0f
 *     value=%u tx_ops=%d] + ddsm counters per commit
 * (txs: transactions run to their end, committed or given up; latency per
 * transaction, retries included; abort_rate: conflict aborts per attempt),
 * and on node 0
 *   bench txbench-total wl=%s backend=%s nodes=%d threads=%d commits=%lu
 *     commits_per_s=%.0f attempts=%lu aborts=%lu abort_rate=%.4f
 * Exit 0 iff every check passed; 1 otherwise (and for --backend hades);
 * 2 for bad usage; 3 on SIGBUS.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libddsm.h"
#include "dsm_sync.h"
#include "test_common.h"
#include "sercheck.h"
#include "txn.h"
#include "txwl.h"
#include "wl.h"

#define DEF_BASE	(96ULL << 20)
#define HADES_GAP	(32ULL << 20)	/* hades: tables this far after -b */

enum { C_NONCE, C_WL, C_BACKEND, C_RECORDS, C_STRIDE, C_DATA, C_HOT,
	C_HOTPCT, C_READ, C_TXOPS, C_THREADS, C_FLAGS, C_LOGUNITS, C_ALIGN,
	C_WORDS };
/* Summary unit of a node's results region, after wl.h's words. */
enum { R_COMMITS = WL_R_WORDS, R_INJECTED, R_REMOVED, R_LOG_WORDS,
	R_LOG_FULL, R_RUNS, R_RETRIES, R_ABORTS, R_WORDS = R_ABORTS + TXN_C_NR };

static struct {
	struct wl_opts c;
	const struct txw *wl;
	enum txn_backend backend;
	uint64_t records, hot, stride;
	double hot_frac, read_frac;
	uint32_t value;
	int tx_ops, check, one_by_one, align;
	unsigned int lock_spins, read_tries, max_tries, flags;
	uint64_t log_mib;
	const char *log_file;
} o = {
	.c = { .base = DEF_BASE, .seed = 1, .secs = 10, .timeout = 300,
	       .threads = 1 },
	.wl = &txw_smallbank, .records = 10000, .hot_frac = 0.9,
	.read_frac = 0.5, .value = 1024, .tx_ops = 5, .max_tries = 10000,
	.read_tries = 8,
	.log_mib = 4,
};

static struct {
	uint64_t tables, table_units, log_units, tally_units, units;
} L;

static struct wl_dsm w;
static struct wl_win ww;
static struct txn_env env;
static struct txw_cfg cfg;
static int me, nodes;

static void usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [-w smallbank|ycsbt] [--backend occ|hades] [-n RECORDS]\n"
		"       [-t THREADS] [-s SECONDS | -o TXS] [--hot N] [--hot-pct P]\n"
		"       [-r READ] [-v VALUE] [--tx-ops K] [--one-by-one] [--stride BYTES]\n"
		"       [--align]\n"
		"       [--lock-spins N] [--read-tries N] [--max-tries N] [--check]\n"
		"       [--log-mib M] [--log-file PREFIX] [--bug skip-validation]\n"
		"       [-b BASE]\n"
		"       " WL_USAGE_OPTS "\n", prog);
	exit(2);
}

static double pct(const char *s, const char *prog)
{
	double v = wl_parse_ratio(s);

	if (v < 0)
		usage(prog);
	return v;
}

static void parse_long(int opt, const char *prog)
{
	switch (opt) {
	case 'B':
		if (txn_parse_backend(optarg, &o.backend))
			usage(prog);
		break;
	case 'H':
		o.hot = parse_ul(optarg, "hot accounts");
		break;
	case 'P':
		o.hot_frac = pct(optarg, prog);
		break;
	case 'K':
		o.tx_ops = (int)parse_ul(optarg, "operations per transaction");
		break;
	case 'S':
		o.stride = parse_ul(optarg, "stride");
		break;
	case 'L':
		o.lock_spins = (unsigned int)parse_ul(optarg, "lock spins");
		break;
	case 'R':
		o.read_tries = (unsigned int)parse_ul(optarg, "read tries");
		break;
	case 'M':
		o.max_tries = (unsigned int)parse_ul(optarg, "tries");
		break;
	case 'G':
		o.log_mib = parse_ul(optarg, "log MiB");
		break;
	case 'F':
		o.log_file = optarg;
		break;
	case 'X':
		if (strcmp(optarg, "skip-validation"))
			usage(prog);
		o.flags |= TXN_F_SKIP_VALIDATE;
		break;
	default:
		usage(prog);
	}
}

static void parse_args(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "backend", required_argument, NULL, 'B' },
		{ "hot", required_argument, NULL, 'H' },
		{ "hot-pct", required_argument, NULL, 'P' },
		{ "tx-ops", required_argument, NULL, 'K' },
		{ "stride", required_argument, NULL, 'S' },
		{ "lock-spins", required_argument, NULL, 'L' },
		{ "read-tries", required_argument, NULL, 'R' },
		{ "max-tries", required_argument, NULL, 'M' },
		{ "check", no_argument, &o.check, 1 },
		{ "one-by-one", no_argument, &o.one_by_one, 1 },
		{ "align", no_argument, &o.align, 1 },
		{ "log-mib", required_argument, NULL, 'G' },
		{ "log-file", required_argument, NULL, 'F' },
		{ "bug", required_argument, NULL, 'X' },
		{ NULL, 0, NULL, 0 }
	};
	int opt;

	while ((opt = wl_getopt(argc, argv, "w:n:r:v:", lo, &o.c)) != -1) {
		switch (opt) {
		case 0:
			break;
		case 'w':
			if (!strcmp(optarg, "smallbank"))
				o.wl = &txw_smallbank;
			else if (!strcmp(optarg, "ycsbt"))
				o.wl = &txw_ycsbt;
			else
				usage(argv[0]);
			break;
		case 'n':
			o.records = parse_ul(optarg, "records");
			break;
		case 'r':
			o.read_frac = pct(optarg, argv[0]);
			break;
		case 'v':
			o.value = (uint32_t)parse_ul(optarg, "value size");
			break;
		default:
			parse_long(opt, argv[0]);
		}
	}
	if (optind != argc || !wl_opts_ok(&o.c) || !o.records ||
	    o.value < 16 || o.value > TXN_MAX_DATA || o.value % 8 ||
	    o.tx_ops < 1 || o.tx_ops > 16 || o.stride % 8 || !o.max_tries)
		usage(argv[0]);
	if (o.check)
		o.flags |= TXN_F_LOG;
}

/* Tables, then the results regions: tallies, then the log. */
static void plan(void)
{
	uint64_t min;

	env.backend = o.backend;
	env.flags = o.flags;
	env.lock_spins = o.lock_spins;
	env.read_tries = o.read_tries;
	cfg.wl = o.wl;
	cfg.env = &env;
	cfg.records = o.records;
	cfg.data_len = o.value;
	cfg.data_len = o.wl->data_len(&cfg);
	min = txn_rec_bytes(&env, cfg.data_len);
	cfg.stride = o.stride ? o.stride : min;
	if (cfg.stride < cfg.data_len + TXN_OCC_HDR) {
		fprintf(stderr, "stride %" PRIu64 " below a record's %u bytes\n",
			cfg.stride, cfg.data_len + TXN_OCC_HDR);
		exit(2);
	}
	if (o.align && cfg.stride > DSM_UNIT) {
		fprintf(stderr, "--align: stride %" PRIu64 " over a unit\n",
			cfg.stride);
		exit(2);
	}
	cfg.per_unit = o.align ? DSM_UNIT / cfg.stride : 0;
	L.tables = (uint64_t)o.wl->tables;
	L.table_units = cfg.per_unit ?
			(o.records + cfg.per_unit - 1) / cfg.per_unit :
			(o.records * cfg.stride + DSM_UNIT - 1) / DSM_UNIT;
	L.tally_units = (L.tables * o.records * 8 + DSM_UNIT - 1) / DSM_UNIT;
	L.log_units = o.check ? o.log_mib * (1048576 / DSM_UNIT) : 0;
	ww.result_units = 1 + L.tally_units + L.log_units;
	if (o.backend == TXN_HADES) {
		/*
		 * The tables are a transactional region, which may not be
		 * mapped: they go after the mapped window (head, results).
		 */
		ww.results = WL_HEAD_UNITS(nodes);
		L.units = ww.results + (uint64_t)nodes * ww.result_units;
		/* 32 MiB on: runs of other sizes keep tables and window apart. */
		cfg.table[0] = o.c.base + ((L.units * DSM_UNIT + HADES_GAP - 1) /
					   HADES_GAP) * HADES_GAP;
	} else {
		ww.results = WL_HEAD_UNITS(nodes) + L.tables * L.table_units;
		L.units = ww.results + (uint64_t)nodes * ww.result_units;
		cfg.table[0] = o.c.base + WL_HEAD_UNITS(nodes) * DSM_UNIT;
	}
	cfg.table[1] = cfg.table[0] + L.table_units * DSM_UNIT;
	cfg.hot = o.hot;
	cfg.hot_frac = o.hot_frac;
	cfg.read_frac = o.read_frac;
	cfg.one_by_one = o.one_by_one;
	cfg.tx_ops = o.tx_ops;
	cfg.me = me;
	cfg.n = nodes;
	cfg.threads = o.c.threads;
	cfg.ops = o.c.ops;
	cfg.seed = o.c.seed;
	cfg.max_tries = o.max_tries;
	cfg.tap = tap;
}

static const uint64_t *conf_words(void)
{
	static uint64_t c[C_WORDS];

	c[C_WL] = o.wl == &txw_ycsbt;
	c[C_BACKEND] = o.backend;
	c[C_RECORDS] = o.records;
	c[C_STRIDE] = cfg.stride;
	c[C_DATA] = cfg.data_len;
	c[C_HOT] = o.hot;
	c[C_HOTPCT] = (uint64_t)(o.hot_frac * 1e6);
	c[C_READ] = (uint64_t)(o.read_frac * 1e6);
	c[C_TXOPS] = (uint64_t)o.tx_ops;
	/* Lock owner tags are numbered by node * threads. */
	c[C_THREADS] = (uint64_t)o.c.threads;
	c[C_FLAGS] = o.flags;
	c[C_LOGUNITS] = L.log_units;
	c[C_ALIGN] = cfg.per_unit;
	return c;
}

static void conf_check(void)
{
	volatile uint64_t *c = wl_unit(&ww, WL_CONF_UNIT(nodes));

	if (!wl_conf_check(&ww, conf_words(), C_WORDS))
		tap_bail("options differ from node 0's (workload %" PRIu64 ", backend %" PRIu64 ", records %" PRIu64 ", threads %" PRIu64 ", flags %#" PRIx64 ")",
			 c[C_WL], c[C_BACKEND], c[C_RECORDS], c[C_THREADS],
			 c[C_FLAGS]);
}

static void load(void)
{
	double t0 = dsm_now();

	o.wl->load(&cfg);
	tap(1, "loaded %" PRIu64 " %s records x %" PRIu64 " tables (stride %" PRIu64 ") in %.2f s",
	    o.records, o.wl->name, L.tables, cfg.stride, dsm_now() - t0);
}

static struct {
	struct txw_worker *wk;
	struct txn_stats st;
	struct hist hist;
	struct wl_span span;
	uint64_t runs, committed, gave_up, user, errors, bad;
	int64_t *delta, injected, removed;
	size_t log_words;
	bool log_full;
} run;

static void run_workload(void)
{
	uint64_t words = L.tables * o.records, k;
	int i, c;

	run.wk = calloc((size_t)o.c.threads, sizeof(*run.wk));
	run.delta = calloc(words, sizeof(*run.delta));
	if (!run.wk || !run.delta)
		tap_bail("out of memory");
	wl_span_start(&w, &run.span);
	cfg.deadline = run.span.t0 + o.c.secs;
	if (txw_run(&cfg, run.wk, o.c.threads))
		tap_bail("cannot start %d threads", o.c.threads);
	wl_span_end(&w, &run.span);
	for (i = 0; i < o.c.threads; i++) {
		struct txw_worker *wk = &run.wk[i];
		struct txn_stats *s = &wk->tx->st;

		hist_merge(&run.hist, &wk->hist);
		run.runs += wk->runs;
		run.committed += wk->committed;
		run.gave_up += wk->gave_up;
		run.user += wk->user;
		run.errors += wk->errors;
		run.bad += wk->bad;
		run.injected += wk->injected;
		run.removed += wk->removed;
		for (k = 0; k < words; k++)
			run.delta[k] += wk->delta[k];
		run.st.commits += s->commits;
		run.st.ro_commits += s->ro_commits;
		run.st.retries += s->retries;
		for (c = 0; c < TXN_C_NR; c++)
			run.st.aborts[c] += s->aborts[c];
		run.log_words += wk->tx->log.len;
		run.log_full |= wk->tx->log.full;
	}
	tap(!run.bad, "%" PRIu64 " transactions in %.2f s, every record read whole (%" PRIu64 " not)",
	    run.runs, run.span.secs, run.bad);
	tap(!run.errors && !run.gave_up,
	    "no transaction failed (%" PRIu64 ") or ran out of its %u tries (%" PRIu64 ")",
	    run.errors, o.max_tries, run.gave_up);
}

/* This node's threads' logs, one after the other, into @dst (@cap words). */
static size_t copy_logs(volatile uint64_t *dst, size_t cap)
{
	size_t n = 0, i;
	int t;

	for (t = 0; t < o.c.threads; t++) {
		const struct txn_log *l = &run.wk[t].tx->log;

		for (i = 0; i < l->len && n < cap; i++)
			dst[n++] = l->w[i];
	}
	return n;
}

static void write_log_file(void)
{
	char path[4096];
	FILE *f;
	int t, r = 0;

	snprintf(path, sizeof(path), "%s.node%d", o.log_file, me);
	f = fopen(path, "w");
	if (!f) {
		tap(0, "log file %s: %s", path, strerror(errno));
		return;
	}
	fprintf(f, "# ddsm-txbench node %d of %d, %s, %d threads\n", me,
		nodes, o.wl->name, o.c.threads);
	for (t = 0; t < o.c.threads && !r; t++)
		r = sc_write_text(f, run.wk[t].tx->log.w, run.wk[t].tx->log.len);
	r |= fclose(f);
	tap(!r, "wrote this node's log to %s", path);
}

static void publish(void)
{
	volatile uint64_t *r = wl_region(&ww, me), *c = wl_tallies(&ww, me);
	uint64_t words = L.tables * o.records, k;
	size_t cap = L.log_units * DSM_WORDS_PER_UNIT, n = 0;
	int i;

	for (k = 0; k < words; k++)
		c[k] = (uint64_t)run.delta[k];
	if (o.check) {
		n = copy_logs(c + L.tally_units * DSM_WORDS_PER_UNIT, cap);
		tap(!run.log_full && n == run.log_words,
		    "log of %zu words kept whole and published (%zu of %zu fit)",
		    run.log_words, n, cap);
		if (o.log_file)
			write_log_file();
	}
	r[R_COMMITS] = run.st.commits + run.st.ro_commits;
	r[R_INJECTED] = (uint64_t)run.injected;
	r[R_REMOVED] = (uint64_t)run.removed;
	r[R_LOG_WORDS] = n;
	r[R_LOG_FULL] = run.log_full || n != run.log_words;
	r[R_RUNS] = run.runs;
	r[R_RETRIES] = run.st.retries;
	for (i = 0; i < TXN_C_NR; i++)
		r[R_ABORTS + i] = run.st.aborts[i];
	wl_publish(&ww, run.st.commits + run.st.ro_commits, run.span.secs);
}

static void verify(void)
{
	uint64_t words = L.tables * o.records, k;
	int64_t *sum = calloc(words, sizeof(*sum)), in = 0, out = 0;
	int j, stale = 0;

	if (!sum)
		tap_bail("out of memory");
	for (j = 0; j < nodes; j++) {
		volatile uint64_t *c = wl_tallies(&ww, j);

		if (!wl_published(&ww, j)) {
			stale++;
			continue;
		}
		for (k = 0; k < words; k++)
			sum[k] += (int64_t)c[k];
		in += (int64_t)wl_region(&ww, j)[R_INJECTED];
		out += (int64_t)wl_region(&ww, j)[R_REMOVED];
	}
	tap(!stale, "read the tallies of %d nodes (%d missing)", nodes, stale);
	o.wl->verify(&cfg, sum, in, out);
	free(sum);
}

/* Node 0: every node's log, merged, through the checker. */
static void check_history(void)
{
	struct sercheck sc;
	struct sc_result res;
	char desc[1024];
	int j, bad = 0, r;

	if (me || !o.check)
		return;
	sc_init(&sc);
	for (j = 0; j < nodes; j++) {
		volatile uint64_t *rg = wl_region(&ww, j);

		if (!wl_published(&ww, j) || rg[R_LOG_FULL]) {
			bad++;
			continue;
		}
		r = sc_add_log(&sc, (const uint64_t *)(wl_tallies(&ww, j) +
				    L.tally_units * DSM_WORDS_PER_UNIT),
			       rg[R_LOG_WORDS]);
		if (r) {
			printf("# node%d: node %d's log: %s\n", me, j,
			       strerror(-r));
			bad++;
		}
	}
	tap(!bad, "logs of %d nodes complete and well formed (%d not)",
	    nodes, bad);
	if (bad) {
		/* A history with holes would pass for acyclic. */
		tap(0, "serializability: not checked, some logs incomplete");
		sc_free(&sc);
		return;
	}
	r = sc_check(&sc, &res);
	if (r)
		tap_bail("serializability check: %s", strerror(-r));
	sc_describe(&res, desc, sizeof(desc));
	tap(sc_ok(&res), "serializability: %s", desc);
	sc_free(&sc);
}

static void report(void)
{
	const struct txn_stats *s = &run.st;
	uint64_t aborts = 0, commits = s->commits + s->ro_commits, attempts;
	double secs = run.span.secs;
	int c;

	for (c = TXN_C_NONE + 1; c < TXN_C_NR; c++)
		if (c != TXN_C_USER)
			aborts += s->aborts[c];
	attempts = commits + aborts + s->aborts[TXN_C_USER];
	printf("bench txbench node=%d wl=%s backend=%s threads=%d records=%" PRIu64 " txs=%" PRIu64 " commits=%" PRIu64 " secs=%.2f commits_per_s=%.0f p50_us=%.1f p99_us=%.1f user_aborts=%" PRIu64 " gave_up=%" PRIu64 " attempts=%" PRIu64 " aborts=%" PRIu64 " abort_rate=%.4f retries=%" PRIu64,
	       me, o.wl->name, txn_backend_name(o.backend), o.c.threads,
	       o.records, run.runs, commits, secs,
	       secs > 0 ? commits / secs : 0,
	       hist_quantile_us(&run.hist, 0.5),
	       hist_quantile_us(&run.hist, 0.99), run.user, run.gave_up,
	       attempts, aborts, attempts ? (double)aborts / attempts : 0,
	       s->retries);
	for (c = TXN_C_NONE + 1; c < TXN_C_NR; c++)
		if (c != TXN_C_USER)
			printf(" ab_%s=%" PRIu64, txn_cause_name(c),
			       s->aborts[c]);
	if (o.wl == &txw_smallbank)
		printf(" hot=%" PRIu64 " hot_pct=%.0f", o.hot,
		       o.hot_frac * 100);
	else
		printf(" read_pct=%.0f value=%u tx_ops=%d%s", o.read_frac * 100,
		       o.value, o.tx_ops,
		       o.one_by_one ? " reads=one-by-one" : "");
	if (cfg.per_unit)
		printf(" per_unit=%" PRIu64, cfg.per_unit);
	wl_print_counters(&run.span, commits);
	printf("%s\n", o.flags & TXN_F_SKIP_VALIDATE ? " bug=skip-validation" : "");
}

static void report_total(void)
{
	uint64_t commits, attempts = 0, aborts = 0;
	double rate;
	int j, c;

	if (me)
		return;
	wl_totals(&ww, &commits, &rate);
	for (j = 0; j < nodes; j++) {
		volatile uint64_t *r = wl_region(&ww, j);

		if (!wl_published(&ww, j))
			continue;
		attempts += r[WL_R_OPS] + r[R_ABORTS + TXN_C_USER];
		for (c = TXN_C_NONE + 1; c < TXN_C_NR; c++)
			if (c != TXN_C_USER)
				aborts += r[R_ABORTS + c];
	}
	attempts += aborts;
	printf("bench txbench-total wl=%s backend=%s nodes=%d threads=%d records=%" PRIu64 " commits=%" PRIu64 " commits_per_s=%.0f attempts=%" PRIu64 " aborts=%" PRIu64 " abort_rate=%.4f\n",
	       o.wl->name, txn_backend_name(o.backend), nodes, o.c.threads,
	       o.records, commits, rate, attempts, aborts,
	       attempts ? (double)aborts / attempts : 0);
}

int main(int argc, char **argv)
{
	parse_args(argc, argv);
	env.backend = o.backend;
	if (txn_env_init(&env)) {
		/* Before any barrier: every node stops alone, at once. */
		printf("not ok - backend %s: HADES backend needs /dev/ddsm\n",
		       txn_backend_name(o.backend));
		return 1;
	}
	if (wl_open(&w, o.c.emu))
		return 1;
	me = w.me;
	nodes = w.n;
	tap_node = me;
	if ((uint64_t)nodes * (uint64_t)o.c.threads >= TXN_OWNER_MASK)
		tap_bail("%d nodes x %d threads: too many lock owners", nodes,
			 o.c.threads);
	plan();
	if (txn_env_region(&env, cfg.table[0],
			   L.tables * L.table_units * DSM_UNIT))
		tap_bail("cannot declare the tables transactional: %s",
			 strerror(errno));
	wl_win_map(&ww, &w, o.c.base, L.units, o.c.timeout);
	env.base = ww.p;
	env.gbase = o.c.base;
	env.len = L.units * DSM_UNIT;
	if (!me) {
		wl_conf_publish(&ww, conf_words(), C_WORDS);
		load();
	}
	wl_barrier(&ww, "loading");
	if (me)
		conf_check();
	printf("# node%d of %d: %s backend=%s records=%" PRIu64 " stride=%" PRIu64 " data=%u tables at 0x%" PRIx64 " window 0x%" PRIx64 "+0x%" PRIx64 "\n",
	       me, nodes, o.wl->name, txn_backend_name(o.backend), o.records,
	       cfg.stride, cfg.data_len, cfg.table[0], o.c.base,
	       L.units * DSM_UNIT);
	wl_barrier(&ww, "configuration");
	run_workload();
	wl_barrier(&ww, "the run");
	publish();
	wl_barrier(&ww, "publishing");
	verify();
	check_history();
	wl_barrier(&ww, "verifying");
	report();
	report_total();
	txw_free(run.wk, o.c.threads);
	return tap_failed ? 1 : 0;
}
