// SPDX-License-Identifier: GPL-2.0
/*
 * Validations a commit owes other homes, deferred (docs/transactions.md):
 * each waits up to tx_validate_defer_us for a request of this node to
 * the same home to ride on (readv.c), the next transaction's
 * TX_READ_MANY as a rule, and goes alone when its timer fires, before a
 * read or an Intend to that home, or when the transport goes.
 */
#include <linux/hrtimer.h>
#include <linux/workqueue.h>
#include "../node/node.h"
#include "tx.h"
#include "coord.h"
#include "../selftest/selftest.h"

/*
 * An owed Validation outlives its transaction: only its id and home are
 * left.  A failed send means the connection went down (transport.h): the
 * home then settles the commit with the other participants (home.c),
 * as for a Validation lost with its coordinator.
 */
static void send_validate(struct ddsm_node *n, const struct ddsm_txowed *o)
{
	struct ddsm_msg m = tx_msg(n, DDSM_MSG_TX_VALIDATE, o->home, o->unit,
				   o->txid);

	ddsm_node_send_part(n, &m, NULL, 0, 0);
}

/*
 * Up to @max Validations owed to @home (U32_MAX: to any), oldest first,
 * out of the list; txs->lock held.
 */
static u32 take_owed(struct ddsm_txs *ts, u32 home, struct ddsm_txowed *out,
		     u32 max)
{
	u32 i, kept = 0, nr = 0;

	for (i = 0; i < ts->nowed; i++) {
		if (nr < max && (home == U32_MAX || ts->owed[i].home == home))
			out[nr++] = ts->owed[i];
		else
			ts->owed[kept++] = ts->owed[i];
	}
	ts->nowed = kept;
	return nr;
}

/*
 * Hand the Validations owed to @home (U32_MAX: to any) to @fn, a few at
 * a time; up to @max of them.  The number handed.
 */
u32 ddsm_tx_drain_owed(struct ddsm_node *n, u32 home, u32 max,
		       void (*fn)(struct ddsm_node *n,
				  const struct ddsm_txowed *o, void *arg),
		       void *arg)
{
	struct ddsm_txs *ts = n->tx;
	struct ddsm_txowed o[8];
	u32 nr = 0, got, i, want;

	do {
		want = min_t(u32, ARRAY_SIZE(o), max - nr);
		spin_lock(&ts->lock);
		got = take_owed(ts, home, o, want);
		spin_unlock(&ts->lock);
		for (i = 0; i < got; i++)
			fn(n, &o[i], arg);
		nr += got;
	} while (got == ARRAY_SIZE(o) && nr < max);
	return nr;
}

static void pay_one(struct ddsm_node *n, const struct ddsm_txowed *o,
		    void *arg)
{
	send_validate(n, o);
}

/* Send alone what is owed to @home (U32_MAX: to every home). */
void ddsm_tx_pay_owed(struct ddsm_node *n, u32 home)
{
	if (READ_ONCE(n->tx->nowed))
		ddsm_tx_drain_owed(n, home, U32_MAX, pay_one, NULL);
}

static enum hrtimer_restart owed_due(struct hrtimer *timer)
{
	struct ddsm_txs *ts = container_of(timer, struct ddsm_txs,
					   owed_timer);

	queue_work(system_wq, &ts->owed_work);
	return HRTIMER_NORESTART;
}

static void owed_work(struct work_struct *work)
{
	struct ddsm_txs *ts = container_of(work, struct ddsm_txs, owed_work);

	ddsm_tx_pay_owed(ts->home.node, U32_MAX);
}

void ddsm_tx_owed_init(struct ddsm_txs *ts)
{
	hrtimer_init(&ts->owed_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	ts->owed_timer.function = owed_due;
	INIT_WORK(&ts->owed_work, owed_work);
}

/*
 * No Validation waits any more: sent (@send, the transport still up) or
 * forgotten (the homes ask the other participants, home.c).
 */
void ddsm_tx_owed_stop(struct ddsm_node *n, bool send)
{
	struct ddsm_txs *ts = n->tx;

	hrtimer_cancel(&ts->owed_timer);
	cancel_work_sync(&ts->owed_work);
	if (send) {
		ddsm_tx_pay_owed(n, U32_MAX);
		return;
	}
	spin_lock(&ts->lock);
	ts->nowed = 0;
	spin_unlock(&ts->lock);
}

/*
 * A Validation to @home deferred, unless deferring is off (or a test
 * times the Validations), or too many wait already; txs->lock held.
 */
bool ddsm_tx_owe(struct ddsm_txs *ts, u32 home, u64 txid, u64 unit)
{
	unsigned int us = ddsm_tx_validate_defer_us();

	if (!us || ddsm_test_validate_gap_ms() ||
	    ts->nowed == DDSM_TX_OWED)
		return false;
	ts->owed[ts->nowed++] = (struct ddsm_txowed){
		.txid = txid, .unit = unit, .home = home };
	if (!hrtimer_is_queued(&ts->owed_timer))
		hrtimer_start(&ts->owed_timer, ns_to_ktime(us * NSEC_PER_USEC),
			      HRTIMER_MODE_REL);
	return true;
}
