// SPDX-License-Identifier: GPL-2.0
/*
 * Transactions over the global space (txn.h): the software OCC backend,
 * the table of backends (HADES's slot empty, hence its refusal), then the
 * front end every backend shares (state, counts by cause, the log, the
 * retry loop).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "libddsm.h"
#include "txn.h"
#include "zipf.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#include "txn_ops.h"

#define TXN_VERSION(w)	((w) >> TXN_OWNER_BITS)
#define TXN_OWNER(w)	((w) & TXN_OWNER_MASK)
#define TXN_WORD(v, o)	((v) << TXN_OWNER_BITS | (o))

static const char *const cause_names[TXN_C_NR] = {
	[TXN_C_NONE] = "none",
	[TXN_C_READ_LOCKED] = "read_locked",
	[TXN_C_READ_TORN] = "read_torn",
	[TXN_C_READ_CHANGED] = "read_changed",
	[TXN_C_LOCK_HELD] = "lock_held",
	[TXN_C_VALIDATE_LOCKED] = "validate_locked",
	[TXN_C_VERSION] = "version",
	[TXN_C_OVERFLOW] = "overflow",
	[TXN_C_USER] = "user",
	[TXN_C_SQUASHED] = "squashed",
	[TXN_C_NACKED] = "nacked",
	[TXN_C_HOME] = "home",
};

const char *txn_cause_name(enum txn_cause c)
{
	return c < TXN_C_NR ? cause_names[c] : "?";
}

const char *txn_backend_name(enum txn_backend b)
{
	return b == TXN_HADES ? "hades" : "occ";
}

int txn_parse_backend(const char *s, enum txn_backend *b)
{
	if (!strcmp(s, "occ"))
		*b = TXN_OCC;
	else if (!strcmp(s, "hades"))
		*b = TXN_HADES;
	else
		return -1;
	return 0;
}

static const struct txn_ops *txn_ops_of(enum txn_backend b);

int txn_env_init(struct txn_env *env)
{
	if (env->backend == TXN_HADES)
		return txn_hades_env_init(env);
	if (txn_ops_of(env->backend))
		return 0;
	/*
	 * Say exactly what is missing rather than run something else under
	 * HADES's name: a benchmark comparing the two must never compare
	 * OCC with itself.
	 */
#ifdef DDSM_IOC_TX_BEGIN
	fprintf(stderr,
		"HADES backend: the kernel has DDSM_IOC_TX_* but this program does not call them yet\n");
#else
	fprintf(stderr,
		"HADES backend needs the kernel's DDSM_IOC_TX_* (not built yet)\n");
#endif
	return -EOPNOTSUPP;
}

uint64_t txn_rec_bytes(const struct txn_env *env, uint32_t data)
{
	const struct txn_ops *ops = txn_ops_of(env->backend);
	uint64_t b = data + (ops ? ops->hdr : 0);

	return (b + 63) & ~63ULL;
}

static volatile uint64_t *txn_word(const struct txn_env *env, uint64_t gaddr)
{
	return (volatile uint64_t *)(env->base + (gaddr - env->gbase));
}

static unsigned char *txn_data(const struct txn_env *env, uint64_t gaddr)
{
	return (unsigned char *)env->base + (gaddr - env->gbase) + TXN_OCC_HDR;
}

static void occ_rec_init(const struct txn_env *env, uint64_t gaddr,
			 const void *data, uint32_t len, uint64_t version)
{
	memcpy(txn_data(env, gaddr), data, len);
	__atomic_store_n(txn_word(env, gaddr), TXN_WORD(version, 0),
			 __ATOMIC_RELEASE);
}

static void occ_rec_peek(const struct txn_env *env, uint64_t gaddr,
			 void *data, uint32_t len, uint64_t *version,
			 uint64_t *owner)
{
	uint64_t w = __atomic_load_n(txn_word(env, gaddr), __ATOMIC_ACQUIRE);

	memcpy(data, txn_data(env, gaddr), len);
	*version = TXN_VERSION(w);
	*owner = TXN_OWNER(w);
}

void txn_init(struct txn *tx, const struct txn_env *env, int node,
	      int thread, int threads)
{
	memset(tx, 0, offsetof(struct txn, wbuf));
	tx->env = env;
	tx->owner = 1 + (uint64_t)node * (uint64_t)threads + (uint64_t)thread;
	tx->id_base = (uint64_t)node << 48 | (uint64_t)thread << 32;
	tx->rng = wl_mix64(tx->owner);
	if (env->backend == TXN_HADES)
		txn_hades_init(tx);
}

void txn_destroy(struct txn *tx)
{
	txn_hades_destroy(tx);
	free(tx->log.w);
	tx->log.w = NULL;
}

/* Doom the transaction: the caller's later operations fail at once. */
int txn_doom(struct txn *tx, enum txn_cause cause)
{
	if (tx->cause == TXN_C_NONE)
		tx->cause = cause;
	return TXN_ABORTED;
}

static struct txn_ws *txn_ws_find(struct txn *tx, uint64_t gaddr)
{
	int i;

	for (i = 0; i < tx->nw; i++)
		if (tx->ws[i].gaddr == gaddr)
			return &tx->ws[i];
	return NULL;
}

static struct txn_rs *txn_rs_find(struct txn *tx, uint64_t gaddr)
{
	int i;

	for (i = 0; i < tx->nr; i++)
		if (tx->rs[i].gaddr == gaddr)
			return &tx->rs[i];
	return NULL;
}

static inline void txn_relax(unsigned int i)
{
	/*
	 * A lock holder on a one-vCPU guest only finishes if it gets the
	 * CPU: spin briefly, then hand it over.
	 */
	if (i < 4)
		__asm__ __volatile__("pause" ::: "memory");
	else
		sched_yield();
}

/* A consistent copy of record @gaddr's data and the version it had. */
static int occ_read_rec(struct txn *tx, uint64_t gaddr, void *buf,
			uint32_t len, uint64_t *version)
{
	const struct txn_env *env = tx->env;
	volatile uint64_t *w = txn_word(env, gaddr);
	unsigned int i;
	bool locked = false;
	uint64_t a, b;

	for (i = 0; i <= env->read_tries; i++) {
		if (i)
			txn_relax(i);
		a = __atomic_load_n(w, __ATOMIC_ACQUIRE);
		locked = TXN_OWNER(a) != 0;
		if (locked)
			continue;
		memcpy(buf, txn_data(env, gaddr), len);
		/* The copy's loads before the second load of the word. */
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		b = __atomic_load_n(w, __ATOMIC_RELAXED);
		if (a == b) {
			*version = TXN_VERSION(a);
			return 0;
		}
	}
	return txn_doom(tx, locked ? TXN_C_READ_LOCKED : TXN_C_READ_TORN);
}

static int occ_read(struct txn *tx, uint64_t gaddr, void *buf, uint32_t len)
{
	struct txn_ws *ws;
	struct txn_rs *rs;
	uint64_t version;
	int r;

	ws = txn_ws_find(tx, gaddr);
	if (ws) {
		if (len > ws->len)
			return -EINVAL;
		memcpy(buf, tx->wbuf + ws->off, len);
		return 0;
	}
	r = occ_read_rec(tx, gaddr, buf, len, &version);
	if (r)
		return r;
	rs = txn_rs_find(tx, gaddr);
	if (rs)
		return rs->version == version ? 0 :
		       txn_doom(tx, TXN_C_READ_CHANGED);
	if (tx->nr == TXN_MAX_SET)
		return txn_doom(tx, TXN_C_OVERFLOW);
	tx->rs[tx->nr].gaddr = gaddr;
	tx->rs[tx->nr].version = version;
	tx->nr++;
	return 0;
}

static int occ_write(struct txn *tx, uint64_t gaddr, const void *buf,
		     uint32_t len)
{
	struct txn_ws *ws;

	ws = txn_ws_find(tx, gaddr);
	if (ws) {
		/* A record's writes in one transaction have one length. */
		if (len != ws->len)
			return -EINVAL;
		memcpy(tx->wbuf + ws->off, buf, len);
		return 0;
	}
	if (tx->nw == TXN_MAX_SET || tx->wused + len > TXN_WBUF)
		return txn_doom(tx, TXN_C_OVERFLOW);
	ws = &tx->ws[tx->nw++];
	ws->gaddr = gaddr;
	ws->len = len;
	ws->off = tx->wused;
	ws->locked = false;
	memcpy(tx->wbuf + ws->off, buf, len);
	tx->wused += len;
	return 0;
}

static int ws_cmp(const void *a, const void *b)
{
	const struct txn_ws *x = a, *y = b;

	return x->gaddr < y->gaddr ? -1 : x->gaddr > y->gaddr;
}

static void occ_unlock_all(struct txn *tx)
{
	int i;

	for (i = 0; i < tx->nw; i++) {
		struct txn_ws *ws = &tx->ws[i];

		if (!ws->locked)
			continue;
		__atomic_store_n(txn_word(tx->env, ws->gaddr),
				 TXN_WORD(ws->version, 0), __ATOMIC_RELEASE);
		ws->locked = false;
	}
}

static int occ_lock(struct txn *tx, struct txn_ws *ws)
{
	volatile uint64_t *w = txn_word(tx->env, ws->gaddr);
	unsigned int i;
	uint64_t cur;

	for (i = 0;; i++) {
		cur = __atomic_load_n(w, __ATOMIC_RELAXED);
		if (!TXN_OWNER(cur) &&
		    __atomic_compare_exchange_n(w, &cur, cur | tx->owner,
						false, __ATOMIC_SEQ_CST,
						__ATOMIC_RELAXED)) {
			ws->version = TXN_VERSION(cur);
			ws->locked = true;
			return 0;
		}
		if (i >= tx->env->lock_spins)
			return TXN_ABORTED;
		txn_relax(i);
	}
}

static enum txn_cause occ_validate(struct txn *tx)
{
	int i;

	for (i = 0; i < tx->nr; i++) {
		const struct txn_rs *rs = &tx->rs[i];
		struct txn_ws *ws = txn_ws_find(tx, rs->gaddr);
		uint64_t cur;

		if (ws) {
			/* Locked by us: the version it had when we took it. */
			if (ws->version != rs->version)
				return TXN_C_VERSION;
			continue;
		}
		cur = __atomic_load_n(txn_word(tx->env, rs->gaddr),
				      __ATOMIC_ACQUIRE);
		if (TXN_OWNER(cur))
			return TXN_C_VALIDATE_LOCKED;
		if (TXN_VERSION(cur) != rs->version)
			return TXN_C_VERSION;
	}
	return TXN_C_NONE;
}

static enum txn_cause occ_commit(struct txn *tx)
{
	enum txn_cause c;
	int i;

	qsort(tx->ws, (size_t)tx->nw, sizeof(tx->ws[0]), ws_cmp);
	for (i = 0; i < tx->nw; i++)
		if (occ_lock(tx, &tx->ws[i]))
			return TXN_C_LOCK_HELD;
	if (!(tx->env->flags & TXN_F_SKIP_VALIDATE)) {
		c = occ_validate(tx);
		if (c != TXN_C_NONE)
			return c;
	}
	/* Readers that saw the lock word before we took it retry on it. */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	for (i = 0; i < tx->nw; i++) {
		struct txn_ws *ws = &tx->ws[i];

		memcpy(txn_data(tx->env, ws->gaddr), tx->wbuf + ws->off,
		       ws->len);
		__atomic_store_n(txn_word(tx->env, ws->gaddr),
				 TXN_WORD(ws->version + 1, 0),
				 __ATOMIC_RELEASE);
		ws->locked = false;
	}
	return TXN_C_NONE;
}

static void occ_begin(struct txn *tx)
{
	tx->nr = 0;
	tx->nw = 0;
	tx->wused = 0;
}

static const struct txn_ops occ_ops = {
	.hdr = TXN_OCC_HDR,
	.begin = occ_begin,
	.read = occ_read,
	.write = occ_write,
	.commit = occ_commit,
	.abort = occ_unlock_all,
	.rec_init = occ_rec_init,
	.rec_peek = occ_rec_peek,
};

static const struct txn_ops *const txn_backends[] = {
	[TXN_OCC] = &occ_ops,
	[TXN_HADES] = &txn_hades_ops,
};

static const struct txn_ops *txn_ops_of(enum txn_backend b)
{
	return (unsigned int)b < ARRAY_SIZE(txn_backends) ?
	       txn_backends[b] : NULL;
}

/* ---- the front end: state, counts, the log, retries ---- */

static void txn_log_put(struct txn_log *l, uint64_t w)
{
	uint64_t *n;
	size_t cap;

	if (l->full)
		return;
	if (l->len == l->cap) {
		cap = l->cap ? 2 * l->cap : 4096;
		n = realloc(l->w, cap * sizeof(*n));
		if (!n) {
			l->full = true;
			return;
		}
		l->w = n;
		l->cap = cap;
	}
	l->w[l->len++] = w;
}

static void txn_log_commit(struct txn *tx)
{
	struct txn_log *l = &tx->log;
	size_t start = l->len;
	int i;

	txn_log_put(l, TXN_LOG_TAG | (uint64_t)tx->nr << 16 | (uint64_t)tx->nw);
	txn_log_put(l, tx->id_base | tx->seq);
	for (i = 0; i < tx->nr; i++) {
		txn_log_put(l, tx->rs[i].gaddr);
		txn_log_put(l, tx->rs[i].version);
	}
	for (i = 0; i < tx->nw; i++) {
		txn_log_put(l, tx->ws[i].gaddr);
		txn_log_put(l, tx->ws[i].version + 1);
	}
	/* Never leave half an entry: the checker would misparse the rest. */
	if (l->full)
		l->len = start;
}

void txn_rec_init(const struct txn_env *env, uint64_t gaddr,
		  const void *data, uint32_t len, uint64_t version)
{
	txn_ops_of(env->backend)->rec_init(env, gaddr, data, len, version);
}

void txn_rec_peek(const struct txn_env *env, uint64_t gaddr, void *data,
		  uint32_t len, uint64_t *version, uint64_t *owner)
{
	txn_ops_of(env->backend)->rec_peek(env, gaddr, data, len, version,
					   owner);
}

int txn_begin(struct txn *tx)
{
	const struct txn_ops *ops = txn_ops_of(tx->env->backend);

	if (!ops)
		return -EOPNOTSUPP;
	if (tx->env->backend == TXN_HADES && !tx->dev)
		return -ENODEV;
	tx->ops = ops;
	tx->active = true;
	tx->cause = TXN_C_NONE;
	ops->begin(tx);
	return 0;
}

/* Whether @tx may go on with an operation on @len bytes: 0 if so. */
static int txn_usable(const struct txn *tx, uint32_t len)
{
	if (!tx->active || len > TXN_MAX_DATA)
		return -EINVAL;
	return tx->cause == TXN_C_NONE ? 0 : TXN_ABORTED;
}

int txn_read(struct txn *tx, uint64_t gaddr, void *buf, uint32_t len)
{
	return txn_usable(tx, len) ?: tx->ops->read(tx, gaddr, buf, len);
}

int txn_read_many(struct txn *tx, int n, const uint64_t *gaddr,
		  void *const *buf, uint32_t len)
{
	int i, r = txn_usable(tx, len);

	if (r)
		return r;
	if (n < 1 || n > TXN_MAX_MANY)
		return -EINVAL;
	if (tx->ops->read_many)
		return tx->ops->read_many(tx, n, gaddr, buf, len);
	for (i = 0; i < n && !r; i++)
		r = tx->ops->read(tx, gaddr[i], buf[i], len);
	return r;
}

int txn_write(struct txn *tx, uint64_t gaddr, const void *buf, uint32_t len)
{
	return txn_usable(tx, len) ?: tx->ops->write(tx, gaddr, buf, len);
}

static int txn_fail(struct txn *tx, enum txn_cause cause)
{
	tx->ops->abort(tx);
	txn_doom(tx, cause);
	tx->st.aborts[tx->cause]++;
	tx->active = false;
	return TXN_ABORTED;
}

int txn_commit(struct txn *tx)
{
	enum txn_cause c;

	if (!tx->active)
		return -EINVAL;
	if (tx->cause != TXN_C_NONE)
		return txn_fail(tx, tx->cause);
	c = tx->ops->commit(tx);
	if (c != TXN_C_NONE)
		return txn_fail(tx, c);
	if (tx->env->flags & TXN_F_LOG)
		txn_log_commit(tx);
	tx->seq++;
	if (tx->nw)
		tx->st.commits++;
	else
		tx->st.ro_commits++;
	tx->active = false;
	return 0;
}

int txn_abort(struct txn *tx, enum txn_cause cause)
{
	return txn_doom(tx, cause);
}

/* Wait a random time below 2^min(@attempt, 10) microseconds. */
static void txn_backoff(struct txn *tx, unsigned int attempt)
{
	unsigned int shift = attempt < 10 ? attempt : 10;
	uint64_t us;

	tx->rng = wl_mix64(tx->rng);
	us = tx->rng & ((1ULL << shift) - 1);
	if (us < 4)
		sched_yield();
	else
		usleep((useconds_t)us);
}

int txn_run(struct txn *tx, txn_body_fn body, void *arg,
	    unsigned int max_tries)
{
	unsigned int attempt;
	int r;

	for (attempt = 0; attempt < max_tries; attempt++) {
		if (attempt) {
			tx->st.retries++;
			txn_backoff(tx, attempt);
		}
		r = txn_begin(tx);
		if (r)
			return r;
		r = body(tx, arg);
		if (r < 0) {
			/* Nothing is locked before the commit. */
			tx->active = false;
			return r;
		}
		r = txn_commit(tx);
		if (r <= 0)
			return r;
		if (tx->cause == TXN_C_USER)
			return TXN_ABORTED;
	}
	tx->st.gave_up++;
	return TXN_ABORTED;
}
