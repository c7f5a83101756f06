// SPDX-License-Identifier: GPL-2.0
/*
 * YCSB-T over txn.h (txwl.h has the operations and the checks).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "txwl.h"

#define REPORTS		5
#define YT_MAX_OPS	16

/* Word i >= 2 of (key, generation)'s value. */
static uint64_t yt_word(uint64_t key, uint64_t gen, uint32_t i)
{
	return wl_mix64(key * 0x9e3779b97f4a7c15ULL ^ gen << 20 ^ i);
}

static void yt_fill(uint64_t *v, uint32_t len, uint64_t key, uint64_t gen)
{
	uint32_t i;

	v[0] = key;
	v[1] = gen;
	for (i = 2; i < len / 8; i++)
		v[i] = yt_word(key, gen, i);
}

/* A whole value of @key, of whatever generation. */
static bool yt_whole(const uint64_t *v, uint32_t len, uint64_t key)
{
	uint32_t i;

	if (v[0] != key)
		return false;
	for (i = 2; i < len / 8; i++)
		if (v[i] != yt_word(key, v[1], i))
			return false;
	return true;
}

static uint32_t yt_data_len(const struct txw_cfg *c)
{
	return c->data_len;
}

static void yt_load(const struct txw_cfg *c)
{
	uint64_t v[TXN_MAX_DATA / 8], k;

	for (k = 0; k < c->records; k++) {
		yt_fill(v, c->data_len, k, 1);
		txn_rec_init(c->env, txw_rec(c, 0, k), v, c->data_len, 1);
	}
}

struct yt_tx {
	struct txw_worker *w;
	int n;
	uint64_t key[YT_MAX_OPS];
	bool write[YT_MAX_OPS];
	uint64_t buf[TXN_MAX_DATA / 8];
};

/* @v: what was read of key i; a whole value, then its update if any. */
static int yt_use(struct txn *tx, struct yt_tx *t, int i, uint64_t *v)
{
	const struct txw_cfg *c = t->w->cfg;

	/* OCC promises whole records even to doomed transactions. */
	if (!yt_whole(v, c->data_len, t->key[i])) {
		if (t->w->bad++ < REPORTS)
			printf("# node%d thread%d: key %" PRIu64 " read as key %" PRIu64 " generation %" PRIu64 ", not a whole value\n",
			       c->me, t->w->id, t->key[i], v[0], v[1]);
		return txn_abort(tx, TXN_C_USER);
	}
	if (!t->write[i])
		return 0;
	yt_fill(v, c->data_len, t->key[i], v[1] + 1);
	return txn_write(tx, txw_rec(c, 0, t->key[i]), v, c->data_len);
}

/* Each record read, then written if it is to be, one after the other. */
static int yt_body_one_by_one(struct txn *tx, struct yt_tx *t)
{
	const struct txw_cfg *c = t->w->cfg;
	int i, r;

	for (i = 0; i < t->n; i++) {
		r = txn_read(tx, txw_rec(c, 0, t->key[i]), t->buf, c->data_len);
		if (!r)
			r = yt_use(tx, t, i, t->buf);
		if (r)
			return r;
	}
	return 0;
}

/* Every record read in one txn_read_many(), then the updates. */
static int yt_body(struct txn *tx, void *arg)
{
	static __thread uint64_t vals[YT_MAX_OPS][TXN_MAX_DATA / 8];
	struct yt_tx *t = arg;
	const struct txw_cfg *c = t->w->cfg;
	uint64_t g[YT_MAX_OPS];
	void *bufs[YT_MAX_OPS];
	int i, r;

	if (c->one_by_one)
		return yt_body_one_by_one(tx, t);
	for (i = 0; i < t->n; i++) {
		g[i] = txw_rec(c, 0, t->key[i]);
		bufs[i] = vals[i];
	}
	r = txn_read_many(tx, t->n, g, bufs, c->data_len);
	for (i = 0; i < t->n && !r; i++)
		r = yt_use(tx, t, i, vals[i]);
	return r;
}

static int yt_one(struct txw_worker *w)
{
	const struct txw_cfg *c = w->cfg;
	struct yt_tx t = { .w = w };
	int i, j, tries, r;

	t.n = c->tx_ops < YT_MAX_OPS ? c->tx_ops : YT_MAX_OPS;
	if ((uint64_t)t.n > c->records)
		t.n = (int)c->records;
	for (i = 0; i < t.n; i++) {
		/*
		 * Distinct keys, so that a record's generation grows by one
		 * per committed writer, as its OCC version does.
		 */
		for (tries = 0;; tries++) {
			t.key[i] = zipf_scrambled_next(&w->z, &w->rng,
						       c->records);
			for (j = 0; j < i && t.key[j] != t.key[i]; j++)
				;
			if (j == i)
				break;
			if (tries > 100)
				t.key[i] = wl_rng_below(&w->rng, c->records);
		}
		t.write[i] = wl_rng_double(&w->rng) >= c->read_frac;
	}
	r = txn_run(w->tx, yt_body, &t, c->max_tries);
	if (r)
		return r;
	for (i = 0; i < t.n; i++)
		w->delta[t.key[i]] += t.write[i];
	return 0;
}

static void yt_verify(const struct txw_cfg *c, const int64_t *delta,
		      int64_t injected, int64_t removed)
{
	uint64_t v[TXN_MAX_DATA / 8], k, ver, owner, want, writes = 0;
	uint64_t bad = 0, locked = 0;
	bool versions = c->env->backend == TXN_OCC;

	(void)injected;
	(void)removed;
	for (k = 0; k < c->records; k++) {
		txn_rec_peek(c->env, txw_rec(c, 0, k), v, c->data_len, &ver,
			     &owner);
		want = 1 + (uint64_t)delta[k];
		writes += (uint64_t)delta[k];
		locked += owner != 0;
		if (yt_whole(v, c->data_len, k) && v[1] == want &&
		    (!versions || ver == want))
			continue;
		if (bad++ < REPORTS)
			printf("# node%d: key %" PRIu64 ": key %" PRIu64 " generation %" PRIu64 " version %" PRIu64 ", want generation %" PRIu64 "%s\n",
			       c->me, k, v[0], v[1], ver, want,
			       yt_whole(v, c->data_len, k) ? "" :
			       ", not a whole value");
	}
	c->tap(!bad, "ycsb-t: all %" PRIu64 " records whole, generation%s = 1 + the %" PRIu64 " committed writes tallied (%" PRIu64 " wrong)",
	       c->records, versions ? " and version" : "", writes, bad);
	c->tap(!locked, "no record left locked (%" PRIu64 ")", locked);
}

const struct txw txw_ycsbt = {
	.name = "ycsbt",
	.tables = 1,
	.data_len = yt_data_len,
	.load = yt_load,
	.one = yt_one,
	.verify = yt_verify,
};
