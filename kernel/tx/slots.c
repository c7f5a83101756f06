// SPDX-License-Identifier: GPL-2.0
/*
 * The transactions running on this node, one slot each, and what reaches
 * a running transaction from outside: its homes' answers (reads, READV's
 * batches, ACKs and NACKs to its Intends), a squash, a home's death.
 * Each wakes the transaction's thread, which does the rest (read.c,
 * commit.c).  Also how its requests go out to a home.
 */
#include <linux/highmem.h>
#include <linux/printk.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include "../node/node.h"
#include "tx.h"
#include "coord.h"
#include "../proto/txbatch.h"

/* The transaction a message names, if it still runs; txs->lock held. */
static struct ddsm_tx *find(struct ddsm_txs *ts, u64 txid)
{
	struct ddsm_tx *t = ts->slot[ddsm_txid_unpack(txid).slot %
				     DDSM_TX_SLOTS];

	return t && txid_of(t) == txid ? t : NULL;
}

void ddsm_tx_doom(struct ddsm_txs *ts, struct ddsm_tx *t, u8 reason)
{
	if (!t->doomed) {
		t->doomed = true;
		t->reason = reason;
	}
	wake_up_all(&t->wait);
}

void ddsm_tx_squash(struct ddsm_node *n, u64 txid)
{
	struct ddsm_txs *ts = n->tx;
	struct ddsm_tx *t;

	spin_lock(&ts->lock);
	t = find(ts, txid);
	if (t) {
		int r = ddsm_txc_squash(&t->c, txid);

		if (r == DDSM_TXC_ABORTED) {
			ddsm_tx_doom(ts, t, DDSM_TX_SQUASHED);
			if (t->detached)
				queue_work(system_wq, &ts->detached_work);
		} else if (r < 0)
			pr_warn_ratelimited("ddsm: tx %#llx: squash after its last ACK\n",
					    txid);
	}
	spin_unlock(&ts->lock);
}

/* A home's answer to the Intend; txs->lock held. */
void ddsm_tx_answered(struct ddsm_txs *ts, struct ddsm_tx *t, u32 home,
		      bool ack)
{
	int r = ddsm_txc_answer(&t->c, txid_of(t), home, ack);

	if (r == DDSM_TXC_ABORTED && !ack)
		ddsm_tx_doom(ts, t, DDSM_TX_NACKED);
	/* A commit its caller gave up on is ended by the work (commit.c). */
	if (t->detached && (r == DDSM_TXC_COMMITTED || r == DDSM_TXC_ABORTED))
		queue_work(system_wq, &ts->detached_work);
	wake_up_all(&t->wait);
}

/*
 * A TX_READ_REPLY's lines, packed from the start of @data, into @page at
 * their place in the unit; -EPROTO unless they are the lines asked
 * (@lines).  Their number matches @data_len: the receive path checked.
 */
static int place_lines(struct page *page, u16 lines,
		       const struct ddsm_msg *m, struct page *data,
		       u32 data_len)
{
	if (m->acks != lines) {
		pr_warn_ratelimited("ddsm: node %u answered lines %#x, asked %#x\n",
				    m->src, m->acks, lines);
		return -EPROTO;
	}
	memcpy_page(page, (m->acks & 0xff) << DDSM_LINE_SHIFT, data, 0,
		    data_len);
	return 0;
}

/* An answer to a read READV sent ahead?  txs->lock held. */
static bool ahead_answered(struct ddsm_txs *ts, struct ddsm_tx *t,
			   const struct ddsm_msg *m, struct page *data,
			   u32 data_len)
{
	u32 i;

	for (i = 0; i < t->nahead; i++) {
		struct ddsm_txahead *r = &t->ahead[i];

		if (!r->seq || r->seq != m->seq)
			continue;
		if (!r->done) {
			r->err = -(int)m->err;
			if (data &&
			    place_lines(r->page,
					ddsm_tx_read_lines(r->first, r->last),
					m, data, data_len))
				r->err = -EPROTO;
			r->done = true;
			wake_up_all(&t->wait);
		}
		return true;
	}
	return false;
}

/*
 * The answer to reads READV sent ahead in one TX_READ_MANY: each entry's
 * lines or errno, or every entry failed when the answer is malformed or
 * says why none was served.  txs->lock held.
 */
static void batch_answered(struct ddsm_txs *ts, struct ddsm_tx *t,
			   const struct ddsm_msg *m, struct page *data,
			   u32 data_len)
{
	struct ddsm_txahead *rs[DDSM_TXB_MAX] = { NULL };
	struct ddsm_txb_read rd[DDSM_TXB_MAX];
	u32 off[DDSM_TXB_MAX], i, nr = 0;
	int err[DDSM_TXB_MAX] = { 0 }, ret;
	void *p;

	for (i = 0; i < t->nahead; i++) {
		struct ddsm_txahead *r = &t->ahead[i];

		if (!r->seq || r->seq != m->seq || r->done ||
		    r->pos >= DDSM_TXB_MAX || rs[r->pos])
			continue;
		rs[r->pos] = r;
		nr++;
	}
	for (i = 0; i < nr; i++) {
		if (!rs[i])
			return;		/* not the batch we sent */
		rd[i] = (struct ddsm_txb_read){ .unit = rs[i]->unit,
						.first = rs[i]->first,
						.last = rs[i]->last };
	}
	if (!nr)
		return;			/* READV is over */
	ret = -(int)m->err;
	if (data) {
		p = kmap_local_page(data);
		ret = ddsm_txb_ans_check(p, data_len, rd, nr, err, off);
		for (i = 0; !ret && i < nr; i++)
			if (!err[i])
				memcpy_to_page(rs[i]->page,
					       rd[i].first << DDSM_LINE_SHIFT,
					       (u8 *)p + off[i],
					       (rd[i].last - rd[i].first + 1) <<
					       DDSM_LINE_SHIFT);
		kunmap_local(p);
		if (ret)
			pr_warn_ratelimited("ddsm: node %u: malformed TX_READ_MANY_REPLY\n",
					    m->src);
	}
	for (i = 0; i < nr; i++) {
		rs[i]->err = ret ? ret : err[i];
		rs[i]->done = true;
	}
	wake_up_all(&t->wait);
}

void ddsm_tx_coord_rx(struct ddsm_node *n, const struct ddsm_msg *m,
		      struct page *data, u32 data_len)
{
	struct ddsm_txs *ts = n->tx;
	struct ddsm_tx *t;

	if (m->type == DDSM_MSG_TX_SQUASH) {
		ddsm_tx_squash(n, m->copyset);
		return;
	}
	spin_lock(&ts->lock);
	t = find(ts, m->copyset);
	if (!t)
		goto out;	/* a transaction that ended: nothing waits */
	switch (m->type) {
	case DDSM_MSG_TX_READ_MANY_REPLY:
		batch_answered(ts, t, m, data, data_len);
		break;
	case DDSM_MSG_TX_READ_REPLY:
		if (ahead_answered(ts, t, m, data, data_len) ||
		    m->seq != t->seq || t->done)
			break;
		t->err = -(int)m->err;
		if (data && place_lines(t->reply, t->lines, m, data, data_len))
			t->err = -EPROTO;
		t->done = true;
		wake_up_all(&t->wait);
		break;
	case DDSM_MSG_TX_ACK:
	case DDSM_MSG_TX_NACK:
		ddsm_tx_answered(ts, t, m->src, m->type == DDSM_MSG_TX_ACK);
		break;
	}
out:
	spin_unlock(&ts->lock);
}

/*
 * A home went down.  A transaction that still runs and involves it aborts
 * (no Intend went out); a commit waiting for its answer does not: the
 * home may hold the lock, which is the decision (txfate.h), so the Intend
 * goes again once it is back.
 */
void ddsm_tx_coord_peer_down(struct ddsm_node *n, u32 node)
{
	struct ddsm_txs *ts = n->tx;
	u32 i;

	spin_lock(&ts->lock);
	for (i = 0; i < DDSM_TX_SLOTS; i++) {
		struct ddsm_tx *t = ts->slot[i];

		if (t && ddsm_txc_lost(&t->c, node) == DDSM_TXC_ABORTED &&
		    t->c.why == DDSM_TXC_LOST)
			ddsm_tx_doom(ts, t, DDSM_TX_PEER_DOWN);
	}
	spin_unlock(&ts->lock);
}

/* A home is back: whoever owns a commit that waits for it sends again. */
void ddsm_tx_coord_peer_up(struct ddsm_node *n, u32 node)
{
	struct ddsm_txs *ts = n->tx;
	bool detached = false;
	u32 i;

	spin_lock(&ts->lock);
	for (i = 0; i < DDSM_TX_SLOTS; i++) {
		struct ddsm_tx *t = ts->slot[i];

		if (!t || !(t->c.resend & BIT_ULL(node)))
			continue;
		t->back |= BIT_ULL(node);
		detached |= t->detached;
		wake_up_all(&t->wait);
	}
	spin_unlock(&ts->lock);
	if (detached)
		queue_work(system_wq, &ts->detached_work);
}

u8 ddsm_tx_coord_answer(struct ddsm_node *n, u64 txid)
{
	struct ddsm_txid id = ddsm_txid_unpack(txid);
	struct ddsm_txs *ts = n->tx;
	struct ddsm_tx *t;
	u32 running = 0;
	u8 ans;

	if (id.node != tx_self(n) || id.gen != ts->gen ||
	    id.slot >= DDSM_TX_SLOTS)
		return DDSM_TXF_C_NONE;
	spin_lock(&ts->lock);
	t = ts->slot[id.slot];
	if (t && (t->c.state == DDSM_TXC_RUNNING ||
		  t->c.state == DDSM_TXC_COMMITTING))
		running = t->c.id.epoch;
	ans = ddsm_txmem_answer(&ts->mem[id.slot], id.epoch, running);
	spin_unlock(&ts->lock);
	return ans;
}

long ddsm_tx_outcome(struct ddsm_node *n, struct ddsm_tx_arg *a)
{
	if (a->gaddr || a->buf || a->len || a->flags || a->reserved)
		return -EINVAL;
	switch (ddsm_tx_coord_answer(n, a->txid)) {
	case DDSM_TXF_C_COMMITTED:
		a->reason = DDSM_TX_COMMITTED;
		return 0;
	case DDSM_TXF_C_ABORTED:
		a->reason = DDSM_TX_TIMEOUT;
		return -ECANCELED;
	case DDSM_TXF_C_RUNNING:
		return -EINPROGRESS;
	default:
		return -ENOENT;
	}
}

/* @data_len bytes of @data (an Intend's payload) go with it. */
int ddsm_tx_send(struct ddsm_node *n, struct ddsm_tx *t, u8 type,
		 u32 home, u64 unit, u16 lines, struct page *data,
		 u32 data_len)
{
	struct ddsm_msg m = tx_msg(n, type, home, unit, txid_of(t));

	m.flags = (data ? DDSM_MF_DATA : 0) |
		  (type == DDSM_MSG_TX_READ && t->fallback ? DDSM_MF_PIN : 0);
	m.acks = lines;
	m.seq = t->seq;
	return ddsm_node_send_part(n, &m, data, 0, data_len);
}
