// SPDX-License-Identifier: GPL-2.0
/*
 * SmallBank over txn.h (txwl.h has the mix and the checks).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "txwl.h"

#define REPORTS		5
#define SB_MAX_READS	3	/* balances one transaction reads */

enum { CHK, SAV };
enum sb_type { SB_BALANCE, SB_DEPOSIT, SB_TRANSACT, SB_AMALGAMATE,
	SB_WRITECHECK, SB_SENDPAYMENT };

/* One transaction's inputs, and what an attempt did (kept on commit). */
struct sb_tx {
	const struct txw_cfg *c;
	enum sb_type type;
	uint64_t a, b;
	int64_t v;
	int64_t d[2][2];	/* [table][account a, b] */
	int64_t in, out;
};

static int64_t sb_initial(int table, uint64_t acct)
{
	return table == CHK ? 10000 + (int64_t)(acct * 37 % 1000) :
			      20000 + (int64_t)(acct * 101 % 5000);
}

static uint32_t sb_data_len(const struct txw_cfg *c)
{
	(void)c;
	return sizeof(int64_t);
}

static void sb_load(const struct txw_cfg *c)
{
	uint64_t i;
	int64_t v;
	int t;

	for (t = CHK; t <= SAV; t++)
		for (i = 0; i < c->records; i++) {
			v = sb_initial(t, i);
			txn_rec_init(c->env, txw_rec(c, t, i), &v, sizeof(v), 1);
		}
}

static int sb_get(struct txn *tx, struct sb_tx *s, int t, uint64_t acct,
		  int64_t *v)
{
	return txn_read(tx, txw_rec(s->c, t, acct), v, sizeof(*v));
}

/* A balance to read: table @t's record of @acct, into @v. */
struct sb_ref {
	int t;
	uint64_t acct;
	int64_t *v;
};

/* @n balances read at once (txn_read_many()), unless --one-by-one. */
static int sb_get_all(struct txn *tx, struct sb_tx *s,
		      const struct sb_ref *ref, int n)
{
	uint64_t g[SB_MAX_READS];
	void *buf[SB_MAX_READS];
	int i, r = 0;

	if (s->c->one_by_one) {
		for (i = 0; i < n && !r; i++)
			r = sb_get(tx, s, ref[i].t, ref[i].acct, ref[i].v);
		return r;
	}
	for (i = 0; i < n; i++) {
		g[i] = txw_rec(s->c, ref[i].t, ref[i].acct);
		buf[i] = ref[i].v;
	}
	return txn_read_many(tx, n, g, buf, sizeof(int64_t));
}

/* Write @acct's new balance @v, @old being what the transaction read. */
static int sb_put(struct txn *tx, struct sb_tx *s, int t, uint64_t acct,
		  int64_t old, int64_t v)
{
	s->d[t][acct == s->a ? 0 : 1] += v - old;
	return txn_write(tx, txw_rec(s->c, t, acct), &v, sizeof(v));
}

/*
 * Each step runs only if every one before returned 0 (r ?: next): the
 * first read or write that aborts ends the body with its value.
 */
static int sb_body(struct txn *tx, void *arg)
{
	struct sb_tx *s = arg;
	int64_t ca = 0, sa = 0, cb = 0;
	int r;

	memset(s->d, 0, sizeof(s->d));
	s->in = 0;
	s->out = 0;
	switch (s->type) {
	case SB_BALANCE: {
		const struct sb_ref ref[] = { { SAV, s->a, &sa },
					      { CHK, s->a, &ca } };

		return sb_get_all(tx, s, ref, 2);
	}
	case SB_DEPOSIT:
		r = sb_get(tx, s, CHK, s->a, &ca);
		s->in = s->v;
		return r ?: sb_put(tx, s, CHK, s->a, ca, ca + s->v);
	case SB_TRANSACT:
		r = sb_get(tx, s, SAV, s->a, &sa);
		if (r)
			return r;
		if (sa + s->v < 0)
			return txn_abort(tx, TXN_C_USER);
		s->in = s->v;
		return sb_put(tx, s, SAV, s->a, sa, sa + s->v);
	case SB_AMALGAMATE: {
		const struct sb_ref ref[] = { { SAV, s->a, &sa },
					      { CHK, s->a, &ca },
					      { CHK, s->b, &cb } };

		r = sb_get_all(tx, s, ref, 3);
		r = r ?: sb_put(tx, s, SAV, s->a, sa, 0);
		r = r ?: sb_put(tx, s, CHK, s->a, ca, 0);
		return r ?: sb_put(tx, s, CHK, s->b, cb, cb + sa + ca);
	}
	case SB_WRITECHECK: {
		const struct sb_ref ref[] = { { SAV, s->a, &sa },
					      { CHK, s->a, &ca } };

		r = sb_get_all(tx, s, ref, 2);
		s->out = sa + ca < s->v ? s->v + 1 : s->v;
		return r ?: sb_put(tx, s, CHK, s->a, ca, ca - s->out);
	}
	case SB_SENDPAYMENT: {
		/* b is read with a, before a's balance is known to do. */
		const struct sb_ref ref[] = { { CHK, s->a, &ca },
					      { CHK, s->b, &cb } };

		r = sb_get_all(tx, s, ref, 2);
		if (r)
			return r;
		if (ca < s->v)
			return txn_abort(tx, TXN_C_USER);
		r = sb_put(tx, s, CHK, s->a, ca, ca - s->v);
		return r ?: sb_put(tx, s, CHK, s->b, cb, cb + s->v);
	}
	}
	return -EINVAL;
}

static uint64_t sb_account(struct txw_worker *w)
{
	const struct txw_cfg *c = w->cfg;

	if (c->hot && wl_rng_double(&w->rng) < c->hot_frac)
		return wl_rng_below(&w->rng, c->hot < c->records ?
					     c->hot : c->records);
	return wl_rng_below(&w->rng, c->records);
}

static enum sb_type sb_choose(struct txw_worker *w)
{
	uint64_t u = wl_rng_below(&w->rng, 100);

	if (u < 15)
		return SB_AMALGAMATE;
	if (u < 30)
		return SB_BALANCE;
	if (u < 45)
		return SB_DEPOSIT;
	if (u < 70)
		return SB_SENDPAYMENT;
	if (u < 85)
		return SB_TRANSACT;
	return SB_WRITECHECK;
}

static int sb_one(struct txw_worker *w)
{
	const struct txw_cfg *c = w->cfg;
	struct sb_tx s = { .c = c, .type = sb_choose(w) };
	int r, t;

	s.a = sb_account(w);
	s.b = s.a;
	/* Two accounts of one hot one, or of one account in all: no b. */
	while (c->records > 1 && s.b == s.a)
		s.b = sb_account(w);
	if (s.b == s.a && (s.type == SB_AMALGAMATE ||
			   s.type == SB_SENDPAYMENT))
		s.type = SB_BALANCE;
	s.v = 1 + (int64_t)wl_rng_below(&w->rng, 100);
	if (s.type == SB_TRANSACT && wl_rng_below(&w->rng, 2))
		s.v = -s.v;
	r = txn_run(w->tx, sb_body, &s, c->max_tries);
	if (r)
		return r;
	for (t = CHK; t <= SAV; t++) {
		w->delta[t * c->records + s.a] += s.d[t][0];
		w->delta[t * c->records + s.b] += s.d[t][1];
	}
	w->injected += s.in;
	w->removed += s.out;
	return 0;
}

static void sb_verify(const struct txw_cfg *c, const int64_t *delta,
		      int64_t injected, int64_t removed)
{
	int64_t v, total0 = 0, total = 0, want;
	uint64_t i, ver, owner, bad = 0, locked = 0;
	int t;

	for (t = CHK; t <= SAV; t++)
		for (i = 0; i < c->records; i++) {
			txn_rec_peek(c->env, txw_rec(c, t, i), &v, sizeof(v),
				     &ver, &owner);
			locked += owner != 0;
			want = sb_initial(t, i) + delta[t * c->records + i];
			total0 += sb_initial(t, i);
			total += v;
			if (v == want)
				continue;
			if (bad++ < REPORTS)
				printf("# node%d: %s[%" PRIu64 "] = %" PRId64 ", audit says %" PRId64 " (version %" PRIu64 ")\n",
				       c->me, t == CHK ? "checking" : "savings",
				       i, v, want, ver);
		}
	c->tap(!bad, "smallbank audit: all %" PRIu64 " accounts' checking and savings = initial + committed deltas (%" PRIu64 " wrong)",
	    c->records, bad);
	c->tap(total == total0 + injected - removed,
	    "smallbank conservation: total %" PRId64 " = initial %" PRId64 " + deposits %" PRId64 " - checks %" PRId64 " (off by %" PRId64 ")",
	    total, total0, injected, removed,
	    total - (total0 + injected - removed));
	c->tap(!locked, "no record left locked (%" PRIu64 ")", locked);
}

const struct txw txw_smallbank = {
	.name = "smallbank",
	.tables = 2,
	.data_len = sb_data_len,
	.load = sb_load,
	.one = sb_one,
	.verify = sb_verify,
};
