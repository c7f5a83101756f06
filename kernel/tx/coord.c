// SPDX-License-Identifier: GPL-2.0
/*
 * HADES at the coordinator (docs/transactions.md): one transaction per
 * open file, its reads asked of the lines' homes (read.c, readv.c), its
 * writes buffered here until commit, the commit run by
 * proto/txcoord.c's state machine (commit.c).  Lines homed on this node
 * go through the same home code (home.c), called directly instead of
 * through a message.  This file is the ioctls' way in: begin (and the
 * pessimistic fallback's pins), read, write, commit, abort, status.
 *
 * Every wait for a home is bounded by fault_timeout_ms; a home that
 * does not answer a read aborts the transaction (DDSM_TX_TIMEOUT), one
 * that goes down while it runs aborts it too (DDSM_TX_PEER_DOWN).  Once
 * the Intends are out, nothing but a refusal aborts it (commit.c,
 * proto/txfate.h).  A squash marks the transaction doomed; the file's
 * next call returns the abort.  Also the wing's set-up and teardown.
 */
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/printk.h>
#include <linux/random.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include "../node/node.h"
#include "tx.h"
#include "coord.h"

static int fp_cmp(const void *a, const void *b)
{
	const struct ddsm_txfp *x = a, *y = b;

	if (x->unit != y->unit)
		return x->unit < y->unit ? -1 : 1;
	return 0;
}

/*
 * The pessimistic fallback's start: pin the lines the file's earlier
 * attempts touched, in address order, waiting (bounded) for holders.
 * Ordered, two fallbacks never wait for each other in a cycle; a line
 * the attempt touches beyond these is pinned when it is read.  A pin
 * that cannot be had leaves the attempt optimistic on those lines.
 */
static void pin_footprint(struct ddsm_node *n, struct ddsm_tx *t,
			  struct ddsm_txfile *f)
{
	unsigned long until = jiffies + msecs_to_jiffies(ddsm_fault_timeout_ms());
	u32 i;
	int ret;

	sort(f->fp, f->nfp, sizeof(f->fp[0]), fp_cmp, NULL);
	for (i = 0; i < f->nfp; i++) {
		do {
			ret = ddsm_tx_read_once(n, t, f->fp[i].unit,
						f->fp[i].first,
						f->fp[i].last);
			if (ret == -EAGAIN)
				usleep_range(100, 200);
		} while (ret == -EAGAIN && time_before(jiffies, until) &&
			 !fatal_signal_pending(current));
		if (ret)
			break;
	}
}

static int do_begin(struct ddsm_node *n, struct ddsm_txfile *f)
{
	struct ddsm_tx **tp = &f->tx;
	struct ddsm_txs *ts = n->tx;
	struct ddsm_tx *t;
	u32 i;

	if (!f->wbuf)
		f->wbuf = kmalloc(DDSM_TX_WBUF, GFP_KERNEL);
	if (!f->wbuf)
		return -ENOMEM;
	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	t->wbuf = f->wbuf;
	init_waitqueue_head(&t->wait);
	t->reply = ddsm_stash_get(&ts->stash);
	if (!t->reply) {
		kfree(t);
		return -ENOMEM;
	}
	spin_lock(&ts->lock);
	for (i = 0; i < DDSM_TX_SLOTS && ts->slot[i]; i++)
		;
	if (i < DDSM_TX_SLOTS) {
		t->slot = (u16)i;
		t->c = ts->last[i];
		/*
		 * A slot's first transaction in this incarnation starts at a
		 * random epoch, so that its ids do not repeat those of a
		 * restart that drew the same incarnation (txid.h).
		 */
		if (t->c.id.node != tx_self(n) || t->c.id.gen != ts->gen) {
			t->c.id.node = (u16)tx_self(n);
			t->c.id.gen = ts->gen;
			t->c.id.slot = (u8)i;
			t->c.id.epoch = get_random_u32();
		}
		ddsm_txc_begin(&t->c, (u16)tx_self(n), ts->gen, (u8)i);
		t->fallback = ddsm_txc_fallback(f->conflicts);
		t->file = f;
		ts->slot[i] = t;
	}
	spin_unlock(&ts->lock);
	if (i == DDSM_TX_SLOTS) {
		ddsm_stash_put(&ts->stash, t->reply);
		kfree(t);
		return -EAGAIN;
	}
	atomic64_inc(&ts->begins);
	*tp = t;
	if (t->fallback) {
		atomic64_inc(&ts->fallbacks);
		pin_footprint(n, t, f);
	}
	return 0;
}

/* A read or write of [@gaddr, +@len): inside one transactional region? */
int ddsm_tx_check_access(struct ddsm_node *n, u64 gaddr, u32 len, bool write)
{
	if (!len || len > DDSM_UNIT_SIZE)
		return -EINVAL;
	if (!ddsm_tx_region_holds(n, gaddr, len)) {
		pr_warn_ratelimited("ddsm: %s: tx %s of [%#llx, +%u) outside every transactional region\n",
				    current->comm, write ? "write" : "read",
				    gaddr, len);
		return -EINVAL;
	}
	return 0;
}

/* A doomed transaction: aborted now, @reason says why. */
bool ddsm_tx_ended(struct ddsm_node *n, struct ddsm_tx **tp, u32 *reason)
{
	if (!READ_ONCE((*tp)->doomed))
		return false;
	*reason = (*tp)->reason;
	ddsm_tx_do_abort(n, tp, (*tp)->reason);
	return true;
}

/*
 * A write is recorded whole or not at all: one across two units takes two
 * entries, and both must fit before the first is kept, or COMMIT would
 * apply half of it.
 */
static int do_write(struct ddsm_node *n, struct ddsm_tx *t, u64 gaddr,
		    const u8 *buf, u32 len)
{
	struct ddsm_txpart part;
	u32 done, parts = 0;

	for (done = 0; done < len; done += part.len) {
		part_at(gaddr, len, done, &part);
		parts++;
	}
	if (t->nw + parts > DDSM_TX_MAX_WRITES || t->wused + len > DDSM_TX_WBUF)
		return -E2BIG;
	for (done = 0; done < len; done += part.len) {
		part_at(gaddr, len, done, &part);
		ddsm_tx_touch(n, t, part.unit);
		ddsm_tx_note_fp(t, part.unit, part.first, part.last);
		t->w[t->nw].gaddr = part.gaddr;
		t->w[t->nw].len = part.len;
		t->w[t->nw].off = t->wused;
		memcpy(t->wbuf + t->wused, buf + done, part.len);
		t->wused += part.len;
		t->nw++;
	}
	return 0;
}

long ddsm_tx_ioctl(struct ddsm_node *n, struct ddsm_txfile *f,
		   unsigned int cmd, struct ddsm_tx_arg *a, u8 *buf)
{
	struct ddsm_tx **tp = &f->tx;
	u8 reason = DDSM_TX_COMMITTED;
	long ret;

	if (cmd == DDSM_IOC_TX_BEGIN) {
		if (a->flags || a->reserved)
			return -EINVAL;
		if (*tp)
			return -EBUSY;
		ret = do_begin(n, f);
		if (!ret)
			a->txid = txid_of(*tp);
		return ret;
	}
	if (!*tp)
		return -EINVAL;
	a->txid = txid_of(*tp);
	if (cmd != DDSM_IOC_TX_ABORT && ddsm_tx_ended(n, tp, &a->reason))
		return -ECANCELED;
	switch (cmd) {
	case DDSM_IOC_TX_READ:
	case DDSM_IOC_TX_WRITE:
		if (a->flags || a->reserved)
			return -EINVAL;
		ret = ddsm_tx_check_access(n, a->gaddr, a->len,
					   cmd == DDSM_IOC_TX_WRITE);
		if (ret)
			return ret;
		if (cmd == DDSM_IOC_TX_WRITE) {
			ret = do_write(n, *tp, a->gaddr, buf, a->len);
		} else {
			ret = ddsm_tx_do_read(n, *tp, a->gaddr, buf, a->len,
					      NULL,
					      &reason);
			if (ret == -ECANCELED)
				ddsm_tx_do_abort(n, tp, reason);
		}
		break;
	case DDSM_IOC_TX_COMMIT:
		ret = ddsm_tx_do_commit(n, tp, &reason);
		break;
	case DDSM_IOC_TX_ABORT:
		ddsm_tx_do_abort(n, tp, DDSM_TX_USER);
		ret = 0;
		break;
	default:
		ret = -ENOTTY;
	}
	a->reason = reason;
	return ret;
}

void ddsm_tx_release(struct ddsm_node *n, struct ddsm_txfile *f)
{
	if (f->tx)
		ddsm_tx_do_abort(n, &f->tx, DDSM_TX_USER);
	kfree(f->wbuf);
	f->wbuf = NULL;
}

void ddsm_tx_status(struct ddsm_node *n, struct ddsm_tx_status *st)
{
	struct ddsm_txs *ts = n->tx;
	struct ddsm_txh_stats hs;
	u32 i;

	mutex_lock(&ts->home.lock);
	hs = ts->home.h.stats;
	mutex_unlock(&ts->home.lock);
	memset(st, 0, sizeof(*st));
	st->begins = atomic64_read(&ts->begins);
	st->commits = atomic64_read(&ts->commits);
	for (i = 0; i < DDSM_TX_REASON_NR; i++)
		st->aborts[i] = atomic64_read(&ts->aborts[i]);
	st->reads = atomic64_read(&ts->reads);
	st->read_retries = atomic64_read(&ts->read_retries);
	st->intends_sent = atomic64_read(&ts->intends_sent);
	st->home_reads = hs.reads;
	st->home_intends = hs.intends;
	st->home_nacks = hs.intends_nacked;
	st->home_squashes = hs.dooms;
	st->home_validations = hs.validations;
	st->home_aborts = hs.aborts;
	st->home_rollbacks = atomic64_read(&ts->home_rollbacks);
	st->home_full = hs.full;
	st->home_in_doubt = atomic64_read(&ts->home_in_doubt);
	st->home_rollforwards = atomic64_read(&ts->home_rollforwards);
	st->fallbacks = atomic64_read(&ts->fallbacks);
	st->home_pins = hs.pins;
	st->reads_ahead = atomic64_read(&ts->reads_ahead);
	st->read_batches = atomic64_read(&ts->read_batches);
	st->readv_confirms = atomic64_read(&ts->readv_confirms);
	st->validations_carried = atomic64_read(&ts->validations_carried);
}

/* The wing's set-up: the home side, the owed Validations, the slots. */
int ddsm_tx_init(struct ddsm_node *n)
{
	struct ddsm_txs *t = kzalloc(sizeof(*t), GFP_KERNEL);
	int ret;

	if (!t)
		return -ENOMEM;
	ret = ddsm_tx_home_init(n, t);
	if (ret) {
		kfree(t);
		return ret;
	}
	mutex_init(&t->regions_lock);
	spin_lock_init(&t->lock);
	ddsm_stash_init(&t->stash);
	ddsm_tx_owed_init(t);
	ddsm_tx_commit_init(t);
	/* This load's incarnation, never 0 (txid.h); slots start in do_begin. */
	t->gen = (u8)(1 + get_random_u32_below(255));
	n->tx = t;
	return 0;
}

void ddsm_tx_free(struct ddsm_node *n)
{
	struct ddsm_txs *t = n->tx;

	if (!t)
		return;
	ddsm_tx_home_quiesce(n, true);
	ddsm_tx_owed_stop(n, false);
	ddsm_tx_commit_stop(t);
	ddsm_tx_commit_free(t);
	ddsm_tx_home_free(t);
	ddsm_stash_drain(&t->stash);
	kfree(t);
	n->tx = NULL;
}

/* Around a transport's life (config.c): the doubt work sends. */
void ddsm_tx_resume(struct ddsm_node *n)
{
	ddsm_tx_home_quiesce(n, false);
}

void ddsm_tx_quiesce(struct ddsm_node *n)
{
	ddsm_tx_owed_stop(n, true);
	ddsm_tx_commit_stop(n->tx);
	ddsm_tx_home_quiesce(n, true);
}
