// SPDX-License-Identifier: GPL-2.0
/*
 * A transaction's end at the coordinator: commit (an Intend with its
 * writes to every involved home, their answers, then the Validations,
 * sent or owed: owed.c) or abort, every involved home told, and its slot
 * given back with the epoch for the next one.  The commit rule for what
 * fails in the middle is proto/txfate.h's: the coordinator's own lock
 * first, no abort for a late answer or a lost connection (the Intend goes
 * again), and a commit whose caller gave up goes on without it.
 */
#include <linux/delay.h>
#include <linux/highmem.h>
#include <linux/sched/signal.h>
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
	if (!f)
		return;		/* its caller gave up on it (detached) */
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
	u32 h;

	if (reason == DDSM_TX_COMMITTED)
		atomic64_inc(&ts->commits);
	else if (reason < DDSM_TX_REASON_NR)
		atomic64_inc(&ts->aborts[reason]);
	remember(t->file, reason);
	spin_lock(&ts->lock);
	/* What its node answers for it from now on (txfate.h). */
	ddsm_txmem_note(&ts->mem[t->slot], t->c.id.epoch,
			reason == DDSM_TX_COMMITTED);
	ts->last[t->slot] = t->c;
	ts->slot[t->slot] = NULL;
	spin_unlock(&ts->lock);
	for (h = 0; h < DDSM_MAX_NODES; h++)
		ddsm_stash_put(&ts->stash, t->intend[h]);
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

/* Send @t's Intend to @home; false if it could not go (a home away). */
static bool send_intend(struct ddsm_node *n, struct ddsm_tx *t, u32 home)
{
	/* The Intend must not find this node's own commits locked. */
	ddsm_tx_pay_owed(n, home);
	atomic64_inc(&n->tx->intends_sent);
	return !ddsm_tx_send(n, t, DDSM_MSG_TX_INTEND, home, t->home_unit[home],
			     0, t->intend[home], t->intend_len[home]);
}

/*
 * Intends that a home did not answer before its connection went down go
 * again once it is back (ddsm_tx_coord_peer_up()).  Only the commit's
 * owner calls this: its thread, or the work once its caller gave up.
 */
static void send_again(struct ddsm_node *n, struct ddsm_tx *t)
{
	struct ddsm_txs *ts = n->tx;
	u64 back, again = 0;
	u32 h;

	spin_lock(&ts->lock);
	back = t->back;
	t->back = 0;
	for (h = 0; h < n->space.nr_nodes; h++)
		if ((back & BIT_ULL(h)) && ddsm_txc_back(&t->c, h))
			again |= BIT_ULL(h);
	spin_unlock(&ts->lock);
	for (h = 0; h < n->space.nr_nodes; h++) {
		if (!(again & BIT_ULL(h)))
			continue;
		atomic64_inc(&ts->intends_again);
		if (!send_intend(n, t, h)) {
			spin_lock(&ts->lock);
			ddsm_txc_lost(&t->c, h);
			spin_unlock(&ts->lock);
		}
	}
}

static bool intend_due(struct ddsm_tx *t)
{
	return READ_ONCE(t->c.state) != DDSM_TXC_COMMITTING ||
	       READ_ONCE(t->back);
}

/* Is a home whose answer is still due away (not connected) now? */
static bool answer_away(struct ddsm_node *n, struct ddsm_tx *t)
{
	u64 pending = READ_ONCE(t->c.pending);
	u32 h;

	for (h = 0; h < n->space.nr_nodes; h++) {
		enum ddsm_peer_state st;

		if (!(pending & BIT_ULL(h)) || h == tx_self(n))
			continue;
		st = ddsm_transport_peer_state(n->tp, h);
		if (st != DDSM_PEER_UP && st != DDSM_PEER_SELF)
			return true;
	}
	return false;
}

/*
 * Wait for every home's answer, sending again what a connection lost.
 * While every home that owes one is connected its answer will come (a
 * connection that breaks is a "down", then an Intend sent again), so
 * only the time a home is away counts against fault_timeout_ms; a home
 * that is connected but does not answer in DDSM_TX_STUCK_WAITS times
 * that is given up on too.  Returns 0, or -ETIMEDOUT / -EINTR with the
 * commit still undecided.
 */
#define DDSM_TX_STUCK_WAITS	6

static int wait_answers(struct ddsm_node *n, struct ddsm_tx *t)
{
	unsigned long start = jiffies, away = 0;
	long left;

	for (;;) {
		send_again(n, t);
		if (READ_ONCE(t->c.state) != DDSM_TXC_COMMITTING)
			return 0;
		if (!answer_away(n, t))
			away = 0;
		else if (!away)
			away = jiffies;
		if ((away && time_after(jiffies, away + wait_ms())) ||
		    time_after(jiffies, start + DDSM_TX_STUCK_WAITS * wait_ms()))
			return -ETIMEDOUT;
		/* Peer states are looked at again at least every 100 ms. */
		left = wait_event_killable_timeout(t->wait, intend_due(t),
						   max(1L, (long)(HZ / 10)));
		if (left == -ERESTARTSYS)
			return -EINTR;
	}
}

/*
 * Its caller stops waiting for a commit whose answers are not all in
 * (txfate.h): the commit goes on without it, in its slot, and the work
 * ends it once decided; its own part here is settled as a participant's.
 * Returns @why, or 0 if the last answer came meanwhile.
 */
static int detach(struct ddsm_node *n, struct ddsm_tx **tp, int why)
{
	struct ddsm_txs *ts = n->tx;
	struct ddsm_tx *t = *tp;
	bool decided;

	spin_lock(&ts->lock);
	decided = t->c.state != DDSM_TXC_COMMITTING;
	if (!decided) {
		t->detached = true;
		t->file = NULL;
	}
	spin_unlock(&ts->lock);
	if (decided)
		return 0;
	*tp = NULL;
	atomic64_inc(&ts->commits_in_doubt);
	atomic64_inc(&ts->aborts[DDSM_TX_TIMEOUT]);
	pr_warn_ratelimited("ddsm: %s: tx %#llx: no answer from nodes %#llx: its homes decide it\n",
			    current->comm, txid_of(t), t->c.pending);
	if (t->c.involved & BIT_ULL(tx_self(n)))
		ddsm_tx_home_doubt_own(n, txid_of(t));
	/* A home may have come back meanwhile: the work looks. */
	queue_work(system_wq, &ts->detached_work);
	return why;
}

/*
 * The commit rule (txfate.h): this node's own lock first, then the
 * Intends to the others; committed once every home ACKed, aborted only
 * when one refused.  A connection lost before a home answered is not a
 * refusal: its Intend goes again when it is back.
 */
int ddsm_tx_do_commit(struct ddsm_node *n, struct ddsm_tx **tp, u8 *reason)
{
	struct ddsm_txs *ts = n->tx;
	struct ddsm_tx *t = *tp;
	u64 to = t->c.involved;
	u32 h, me = tx_self(n);
	int ret = 0, state;

	for (h = 0; h < n->space.nr_nodes && !ret; h++) {
		if (!(to & BIT_ULL(h)))
			continue;
		t->intend[h] = ddsm_stash_get(&ts->stash);
		ret = t->intend[h] ? build_intend(n, t, h, t->intend[h]) :
				     -ENOMEM;
		if (ret > 0) {
			t->intend_len[h] = ret;
			ret = 0;
		}
	}
	if (ret) {
		ddsm_tx_do_abort(n, tp, DDSM_TX_USER);
		return ret;
	}
	spin_lock(&ts->lock);
	ret = t->doomed ? -ECANCELED : ddsm_txc_commit(&t->c, &to);
	spin_unlock(&ts->lock);
	if (ret)
		goto aborted;
	if (to & BIT_ULL(me)) {
		int r;

		atomic64_inc(&ts->intends_sent);
		r = ddsm_tx_home_intend(n, txid_of(t), t->home_unit[me],
					t->intend[me], t->intend_len[me]);
		spin_lock(&ts->lock);
		ddsm_tx_answered(ts, t, me, !r);
		state = t->c.state;
		spin_unlock(&ts->lock);
		if (state == DDSM_TXC_ABORTED)
			goto aborted;	/* no Intend went out */
	}
	for (h = 0; h < n->space.nr_nodes; h++) {
		if (!(to & BIT_ULL(h)) || h == me || send_intend(n, t, h))
			continue;
		spin_lock(&ts->lock);
		ddsm_txc_lost(&t->c, h);	/* sent again once it is back */
		spin_unlock(&ts->lock);
	}
	ret = wait_answers(n, t);
	if (ret)
		ret = detach(n, tp, ret);
	if (ret) {
		*reason = DDSM_TX_TIMEOUT;
		return ret;
	}
	if (READ_ONCE(t->c.state) == DDSM_TXC_COMMITTED) {
		if (ddsm_test_validate_delay_ms())
			msleep(min(ddsm_test_validate_delay_ms(), 1000u));
		tell_homes(n, t, true);
		finish(n, tp, DDSM_TX_COMMITTED);
		return 0;
	}
aborted:
	*reason = t->doomed ? t->reason : DDSM_TX_NACKED;
	ddsm_tx_do_abort(n, tp, *reason);
	return -ECANCELED;
}

/*
 * Commits whose callers gave up: what came back is sent again, and each
 * decided one is told to its homes and ended.  Only this work touches a
 * detached commit, so it needs no lock to look at one.
 */
static void detached_work(struct work_struct *work)
{
	struct ddsm_txs *ts = container_of(work, struct ddsm_txs,
					   detached_work);
	struct ddsm_node *n = ts->home.node;
	struct ddsm_tx *t;
	bool commit;
	u32 i;

	for (i = 0; i < DDSM_TX_SLOTS; i++) {
		spin_lock(&ts->lock);
		t = ts->slot[i];
		t = t && t->detached ? t : NULL;
		spin_unlock(&ts->lock);
		if (!t)
			continue;
		send_again(n, t);
		switch (READ_ONCE(t->c.state)) {
		case DDSM_TXC_COMMITTED:
		case DDSM_TXC_ABORTED:
			commit = t->c.state == DDSM_TXC_COMMITTED;
			pr_info("ddsm: tx %#llx, given up by its caller, %s\n",
				txid_of(t), commit ? "committed" : "aborted");
			tell_homes(n, t, commit);
			/* Its abort was counted when its caller was told. */
			finish(n, &t, commit ? DDSM_TX_COMMITTED :
					       DDSM_TX_REASON_NR);
			break;
		}
	}
}

void ddsm_tx_commit_init(struct ddsm_txs *ts)
{
	INIT_WORK(&ts->detached_work, detached_work);
}

void ddsm_tx_commit_stop(struct ddsm_txs *ts)
{
	cancel_work_sync(&ts->detached_work);
}

/* Unload: commits whose callers gave up and that never got every answer. */
void ddsm_tx_commit_free(struct ddsm_txs *ts)
{
	u32 i, h;

	for (i = 0; i < DDSM_TX_SLOTS; i++) {
		struct ddsm_tx *t = ts->slot[i];

		if (!t)
			continue;
		WARN_ON_ONCE(!t->detached);
		for (h = 0; h < DDSM_MAX_NODES; h++)
			ddsm_stash_put(&ts->stash, t->intend[h]);
		ddsm_stash_put(&ts->stash, t->reply);
		kfree(t);
		ts->slot[i] = NULL;
	}
}
