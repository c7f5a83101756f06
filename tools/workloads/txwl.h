/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Transactional workloads over txn.h, run by ddsm-txbench: each a set of
 * tables of fixed-size records in the global space, a transaction mix,
 * and an exact check of the final state from the tallies of what the
 * committed transactions did.
 *
 * SmallBank (Alomari et al., ICDE'08; the mix H-Store and the HADES paper
 * use): tables checking and savings, one record (an int64 balance in
 * cents) per account.  Transactions, with their share of the mix:
 *   Balance 15%          read both balances of a
 *   DepositChecking 15%  checking[a] += V (money in)
 *   TransactSaving 15%   savings[a] += V, V may be negative; gives up if
 *                        the balance would go below 0 (money in or out)
 *   Amalgamate 15%       move all of a's money to checking[b]
 *   WriteCheck 15%       checking[a] -= V, and 1 more as a penalty when
 *                        checking + savings < V (money out)
 *   SendPayment 25%      checking[a] -= V, checking[b] += V; gives up if
 *                        checking[a] < V
 * with V in 1..100 (TransactSaving: -100..100 but 0).  Accounts: with
 * probability hot_frac one of the first @hot accounts (the contention
 * knob), else any; a and b differ.  Check: every account's two balances
 * equal their initial values plus the deltas every committed transaction
 * tallied for them (a lost or doubled update shows), and the total equals
 * the initial total plus the money the deposits tallied minus what the
 * checks took (conservation, counted independently of the deltas).
 *
 * YCSB-T (Dey et al., "YCSB+T", ICDEW'14): one table of @records records
 * of value_size bytes; a transaction runs @tx_ops operations on distinct
 * keys drawn by YCSB's scrambled zipfian (theta 0.99), each a read with
 * probability read_frac, else a read-modify-write.  A value is
 *   u64 key, u64 generation, then a pattern of (key, generation)
 * so every read checks that it got one whole value, and a write writes
 * generation + 1.  Check: every record's generation (and the backend's
 * version, when it keeps one) is 1 + the writes every node tallied for it.
 */
#ifndef WL_TXWL_H
#define WL_TXWL_H

#include <pthread.h>
#include <stdint.h>
#include <linux/ddsm.h>
#include "hist.h"
#include "txn.h"
#include "zipf.h"

struct txw;

/* The program's TAP line printer: its exit status counts the failures. */
typedef void (*txw_tap_fn)(int good, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

struct txw_cfg {
	const struct txw *wl;
	const struct txn_env *env;
	uint64_t records;	/* accounts, or keys */
	uint64_t table[2];	/* global address of each table */
	uint64_t stride;	/* bytes from a record to the next */
	/*
	 * When no record may cross a unit boundary: per_unit records at
	 * the start of each unit.  0: back to back.
	 */
	uint64_t per_unit;
	uint32_t data_len;	/* bytes of a record's data */
	uint64_t hot;		/* SmallBank: hot accounts, 0: none */
	double hot_frac;
	double read_frac;	/* YCSB-T */
	bool one_by_one;	/* no txn_read_many() */
	int tx_ops;
	int me, n, threads;
	uint64_t ops;		/* transactions per thread; 0: to deadline */
	double deadline;
	uint64_t seed;
	unsigned int max_tries;
	txw_tap_fn tap;
};

struct txw_worker {
	pthread_t th;
	const struct txw_cfg *cfg;
	int id;
	struct txn *tx;
	struct wl_rng rng;
	struct zipf z;
	struct hist hist;	/* per txn_run(), retries included */
	uint64_t runs, committed, gave_up, user, errors, bad;
	int64_t *delta;		/* [tally_words]: the committed changes */
	int64_t injected, removed;	/* SmallBank's money in and out */
	double secs;
};

struct txw {
	const char *name;
	int tables;
	/* Bytes of a record's data. */
	uint32_t (*data_len)(const struct txw_cfg *c);
	/* Node 0, before the run, outside transactions. */
	void (*load)(const struct txw_cfg *c);
	/* One transaction through txn_run(): its return value. */
	int (*one)(struct txw_worker *w);
	/*
	 * Once every writer is done: check the tables against @delta,
	 * every node's tallies summed (tables * records words), printing
	 * TAP lines; @injected and @removed as in struct txw_worker.
	 */
	void (*verify)(const struct txw_cfg *c, const int64_t *delta,
		       int64_t injected, int64_t removed);
};

extern const struct txw txw_smallbank, txw_ycsbt;

/* Global address of record @i of table @t. */
static inline uint64_t txw_rec(const struct txw_cfg *c, int t, uint64_t i)
{
	if (c->per_unit)
		return c->table[t] + i / c->per_unit * DDSM_UNIT_SIZE +
		       i % c->per_unit * c->stride;
	return c->table[t] + i * c->stride;
}

/* Run @threads workers (allocated by the caller) to the end; 0 or -1. */
int txw_run(const struct txw_cfg *c, struct txw_worker *w, int threads);
void txw_free(struct txw_worker *w, int threads);

#endif /* WL_TXWL_H */
