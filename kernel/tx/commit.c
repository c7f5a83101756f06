// SPDX-License-Identifier: GPL-2.0
/*
 * A transaction's end at the coordinator: commit (an Intend with its
 * writes to every involved home, their answers, then the Validations,
 * sent or owed: owed.c) or abort, every involved home told, and its slot
 * given back with the epoch for the next one.
 */
#include <linux/delay.h>
#include <linux/highmem.h>
#include <linux/slab.h>
#include <linux/wait.h>
#include "../node/node.h"
#include "tx.h"
#include "coord.h"
#include "../selftest/selftest.h"
#include "../proto/txpack.h"

/* Tell every involved home the outcome (Validation or Abort). */
static void tell_homes(struct ddsm_node *n, struct ddsm_tx *t, bool commit)
{
	u64 involved = t->c.involved;
	bool sent = false, owed;
	u32 h;

	for (h = 0; h < n->space.nr_nodes; h++) {
		if (!(involved & BIT_ULL(h)))
			continue;
		if (h == tx_self(n)) {
			if (commit)
				ddsm_tx_home_validate(n, txid_of(t));
			else
				ddsm_tx_home_abort(n, txid_of(t));
			continue;
		}
		if (commit) {
			spin_lock(&n->tx->lock);
			owed = ddsm_tx_owe(n->tx, h, txid_of(t),
					   t->home_unit[h]);
			spin_unlock(&n->tx->lock);
			if (owed)
				continue;
		}
		if (commit && sent && ddsm_test_validate_gap_ms())
			msleep(min(ddsm_test_validate_gap_ms(), 1000u));
		ddsm_tx_send(n, t, commit ? DDSM_MSG_TX_VALIDATE :
			     DDSM_MSG_TX_ABORT, h, t->home_unit[h], 0, NULL, 0);
		sent = true;
	}
}

/*
 * What an attempt leaves its file's next one: conflict aborts in a row
 * (a commit or the caller's abort ends the run and forgets the lines
 * noted while it lasted).
 */
static void remember(struct ddsm_txfile *f, u8 reason)
{
	if (reason == DDSM_TX_COMMITTED || reason == DDSM_TX_USER) {
		f->conflicts = 0;
		f->nfp = 0;
	} else if (reason == DDSM_TX_SQUASHED || reason == DDSM_TX_NACKED ||
		   reason == DDSM_TX_READ_LOCKED) {
		f->conflicts++;
	}
}

/* The transaction is over: its slot keeps the epoch for the next one. */
static void finish(struct ddsm_node *n, struct ddsm_tx **tp, u8 reason)
{
	struct ddsm_txs *ts = n->tx;
	struct ddsm_tx *t = *tp;

	if (reason == DDSM_TX_COMMITTED)
		atomic64_inc(&ts->commits);
	else if (reason < DDSM_TX_REASON_NR)
		atomic64_inc(&ts->aborts[reason]);
	remember(t->file, reason);
	spin_lock(&ts->lock);
	ts->last[t->slot] = t->c;
	ts->slot[t->slot] = NULL;
	spin_unlock(&ts->lock);
	ddsm_stash_put(&ts->stash, t->reply);
	kfree(t);
	*tp = NULL;
}

/* Abort: the homes forget it (their tombstones go too). */
void ddsm_tx_do_abort(struct ddsm_node *n, struct ddsm_tx **tp, u8 reason)
{
	struct ddsm_tx *t = *tp;

	spin_lock(&n->tx->lock);
	if (t->c.state == DDSM_TXC_RUNNING)
		ddsm_txc_abort(&t->c);
	spin_unlock(&n->tx->lock);
	tell_homes(n, t, false);
	finish(n, tp, reason);
}

/*
 * The writes at @home as one Intend payload: the bytes it uses (what
 * travels), or -E2BIG past one page.
 */
static int build_intend(struct ddsm_node *n, struct ddsm_tx *t, u32 home,
			struct page *page)
{
	void *p = kmap_local_page(page);
	int ret = 0;
	u32 i;

	ddsm_txp_init(p, t->c.involved);
	for (i = 0; i < t->nw && !ret; i++)
		if (ddsm_unit_home(&n->space,
				   ddsm_gaddr_unit(t->w[i].gaddr)) == home)
			ret = ddsm_txp_add(p, t->w[i].gaddr,
					   t->wbuf + t->w[i].off, t->w[i].len);
	if (!ret)
		ret = ddsm_txp_used(p);
	kunmap_local(p);
	return ret;
}

int ddsm_tx_do_commit(struct ddsm_node *n, struct ddsm_tx **tp, u8 *reason)
{
	struct ddsm_txs *ts = n->tx;
	struct ddsm_tx *t = *tp;
	struct page *pages[DDSM_MAX_NODES] = { NULL };
	u32 lens[DDSM_MAX_NODES] = { 0 };
	u64 to = t->c.involved;
	u32 h;
	int ret = 0, state;

	for (h = 0; h < n->space.nr_nodes && !ret; h++) {
		if (!(to & BIT_ULL(h)))
			continue;
		pages[h] = ddsm_stash_get(&ts->stash);
		ret = pages[h] ? build_intend(n, t, h, pages[h]) : -ENOMEM;
		if (ret > 0) {
			lens[h] = ret;
			ret = 0;
		}
	}
	if (ret) {
		ddsm_tx_do_abort(n, tp, DDSM_TX_USER);
		goto out;
	}
	spin_lock(&ts->lock);
	ret = t->doomed ? -ECANCELED : ddsm_txc_commit(&t->c, &to);
	spin_unlock(&ts->lock);
	if (ret)
		goto aborted;
	for (h = 0; h < n->space.nr_nodes; h++) {
		if (!(to & BIT_ULL(h)) || h == tx_self(n))
			continue;
		/* The Intend must not find this node's own commits locked. */
		ddsm_tx_pay_owed(n, h);
		atomic64_inc(&ts->intends_sent);
		if (ddsm_tx_send(n, t, DDSM_MSG_TX_INTEND, h, t->home_unit[h],
				 0, pages[h], lens[h])) {
			spin_lock(&ts->lock);
			ddsm_tx_doom(ts, t, DDSM_TX_PEER_DOWN);
			spin_unlock(&ts->lock);
		}
	}
	if (to & BIT_ULL(tx_self(n))) {
		int r;

		atomic64_inc(&ts->intends_sent);
		r = ddsm_tx_home_intend(n, txid_of(t), t->home_unit[tx_self(n)],
					pages[tx_self(n)], lens[tx_self(n)]);
		spin_lock(&ts->lock);
		ddsm_tx_answered(ts, t, tx_self(n), !r);
		spin_unlock(&ts->lock);
	}
	wait_event_timeout(t->wait, READ_ONCE(t->c.state) !=
			   DDSM_TXC_COMMITTING || READ_ONCE(t->doomed),
			   wait_ms());
	spin_lock(&ts->lock);
	state = t->c.state;
	if (state == DDSM_TXC_COMMITTING)
		ddsm_tx_doom(ts, t, DDSM_TX_TIMEOUT);
	spin_unlock(&ts->lock);
	if (state == DDSM_TXC_COMMITTED) {
		if (ddsm_test_validate_delay_ms())
			msleep(min(ddsm_test_validate_delay_ms(), 1000u));
		tell_homes(n, t, true);
		finish(n, tp, DDSM_TX_COMMITTED);
		goto out;
	}
aborted:
	ret = -ECANCELED;
	*reason = t->doomed ? t->reason : DDSM_TX_NACKED;
	ddsm_tx_do_abort(n, tp, *reason);
out:
	for (h = 0; h < DDSM_MAX_NODES; h++)
		ddsm_stash_put(&ts->stash, pages[h]);
	return ret;
}
