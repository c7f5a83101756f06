// SPDX-License-Identifier: GPL-2.0
/*
 * DDSM_IOC_TX_READV at the coordinator: the reads of lines homed
 * elsewhere go to their homes at once, one message per home
 * (TX_READ_MANY, with the Validations owed to it riding along), and are
 * then taken in order as READ would take them (read.c); reads across
 * homes are confirmed together once every answer is in.
 */
#include <linux/delay.h>
#include <linux/highmem.h>
#include <linux/jiffies.h>
#include <linux/printk.h>
#include "../node/node.h"
#include "tx.h"
#include "coord.h"
#include "../selftest/selftest.h"
#include "../proto/txbatch.h"

/* Validations that ride on a TX_READ_MANY: their transactions' ids. */
struct owed_ids {
	u32 nr;
	u64 txid[DDSM_TXB_MAX_VAL];
};

static void note_id(struct ddsm_node *n, const struct ddsm_txowed *o,
		    void *arg)
{
	struct owed_ids *ids = arg;

	ids->txid[ids->nr++] = o->txid;
}

/*
 * Send READV's reads @ks (@nr of them, added to @count) at @home: alone
 * as a TX_READ, or together as a TX_READ_MANY.  Their lines fit in one
 * answer: ask_homes() grouped them so.  Validations owed to @home ride
 * along, even on one read (a TX_READ_MANY of one) unless it is of more
 * lines than an answer carries.  A batch that cannot get its page goes
 * one request at a time.
 */
static void ask(struct ddsm_node *n, struct ddsm_tx *t, u32 home,
		const u32 *ks, u32 nr, atomic64_t *count)
{
	struct ddsm_txahead *r0 = &t->ahead[ks[0]];
	struct ddsm_txb_read rd[DDSM_TXB_MAX];
	struct ddsm_txs *ts = n->tx;
	struct owed_ids ids = { .nr = 0 };
	struct page *req = NULL;
	u32 i, len = 0, seq;
	void *p;

	if (nr > 1 || (READ_ONCE(ts->nowed) &&
		       r0->last - r0->first + 1 <= DDSM_TXB_MAX_LINES)) {
		req = ddsm_stash_get(&ts->stash);
		if (req)
			ddsm_tx_drain_owed(n, home, DDSM_TXB_MAX_VAL, note_id,
					   &ids);
		if (req && nr == 1 && !ids.nr) {
			ddsm_stash_put(&ts->stash, req);
			req = NULL;
		}
		if (!req && nr > 1) {
			for (i = 0; i < nr; i++)
				ask(n, t, home, &ks[i], 1, count);
			return;
		}
	}
	if (req) {
		for (i = 0; i < nr; i++) {
			struct ddsm_txahead *r = &t->ahead[ks[i]];

			rd[i] = (struct ddsm_txb_read){ .unit = r->unit,
							.first = r->first,
							.last = r->last };
		}
		p = kmap_local_page(req);
		len = ddsm_txb_req_build(p, rd, nr, ids.txid, ids.nr);
		kunmap_local(p);
		if (nr > 1)
			atomic64_inc(&ts->read_batches);
		atomic64_add(ids.nr, &ts->validations_carried);
	}
	ddsm_tx_touch(n, t, r0->unit);
	spin_lock(&ts->lock);
	seq = ++t->seq;
	for (i = 0; i < nr; i++) {
		struct ddsm_txahead *r = &t->ahead[ks[i]];

		r->seq = seq;
		r->pos = (u8)i;
		r->done = false;
		r->err = 0;
	}
	spin_unlock(&ts->lock);
	atomic64_add(nr, count);
	if (req ? ddsm_tx_send(n, t, DDSM_MSG_TX_READ_MANY, home, r0->unit, 0,
			       req, len) :
		  ddsm_tx_send(n, t, DDSM_MSG_TX_READ, home, r0->unit,
			       ddsm_tx_read_lines(r0->first, r0->last), NULL,
			       0)) {
		spin_lock(&ts->lock);
		for (i = 0; i < nr; i++) {
			t->ahead[ks[i]].err = -EHOSTDOWN;
			t->ahead[ks[i]].done = true;
		}
		spin_unlock(&ts->lock);
	}
	ddsm_stash_put(&ts->stash, req);
}

/*
 * Ask every other home for READV's reads of its units (those with @lag
 * as given) in as few messages as fit: at most DDSM_TXB_MAX units and
 * DDSM_TXB_MAX_LINES lines each; a read of more lines goes alone.
 */
static void ask_homes(struct ddsm_node *n, struct ddsm_tx *t, u32 count,
		      bool lag)
{
	atomic64_t *asked = &n->tx->reads_ahead;
	u32 ks[DDSM_TXB_MAX], home, k, nr, lines;

	for (home = 0; home < n->space.nr_nodes; home++) {
		if (home == tx_self(n))
			continue;	/* read_early() read them */
		nr = 0;
		lines = 0;
		for (k = 0; k < count; k++) {
			struct ddsm_txahead *r = &t->ahead[k];
			u32 l = r->last - r->first + 1;

			if (r->lag != lag ||
			    ddsm_unit_home(&n->space, r->unit) != home)
				continue;
			if (l > DDSM_TXB_MAX_LINES) {
				ask(n, t, home, &k, 1, asked);
				continue;
			}
			if (nr == DDSM_TXB_MAX ||
			    lines + l > DDSM_TXB_MAX_LINES) {
				ask(n, t, home, ks, nr, asked);
				nr = 0;
				lines = 0;
			}
			ks[nr++] = k;
			lines += l;
		}
		if (nr)
			ask(n, t, home, ks, nr, asked);
	}
}

/* Does [@gaddr, +@len) span units of two homes? */
static bool across_homes(struct ddsm_node *n, u64 gaddr, u32 len)
{
	return ddsm_unit_home(&n->space, ddsm_gaddr_unit(gaddr)) !=
	       ddsm_unit_home(&n->space, ddsm_gaddr_unit(gaddr + len - 1));
}

/* Is @p, at byte @done of an access of @len, a first part (of two homes)? */
static bool before_other_home(struct ddsm_node *n,
			      const struct ddsm_txpart *p, u32 done, u32 len)
{
	return done + p->len < len &&
	       ddsm_unit_home(&n->space, p->unit + 1) !=
	       ddsm_unit_home(&n->space, p->unit);
}

/*
 * A part homed here of a read across homes, read before READV sends any
 * request: the other parts are then read after it in time, and only
 * this home needs confirming (homes_to_confirm()), which costs no
 * message.  A read refused here is read again in its turn.
 */
static void read_early(struct ddsm_node *n, struct ddsm_tx *t,
		       struct ddsm_txahead *r)
{
	ddsm_tx_touch(n, t, r->unit);
	r->err = ddsm_tx_home_read(n, txid_of(t), r->unit, r->first, r->last,
				   r->page, r->first << DDSM_LINE_SHIFT, false);
	r->early = !r->err;
}

/*
 * Send READV's reads of lines homed elsewhere to their homes at once,
 * one entry per unit (the parts of one unit merged), one message per
 * home (ask_homes()).  Lines homed here are read when their turn comes,
 * except the parts of reads across homes (read_early()); reads past
 * DDSM_TX_READV_MAX units too.
 */
static void send_ahead(struct ddsm_node *n, struct ddsm_tx *t,
		       const struct ddsm_tx_iov *iov, u32 nr)
{
	struct ddsm_txs *ts = n->tx;
	u32 i, k, count = 0;
	unsigned int lag_ms = min(ddsm_test_readv_lag_ms(), 1000u);

	for (i = 0; i < nr; i++) {
		bool across = across_homes(n, iov[i].gaddr, iov[i].len);
		struct ddsm_txpart p;
		u32 done;

		for (done = 0; done < iov[i].len; done += p.len) {
			bool here, lag;

			part_at(iov[i].gaddr, iov[i].len, done, &p);
			here = ddsm_unit_home(&n->space, p.unit) == tx_self(n);
			if (here && !across)
				continue;
			lag = lag_ms && before_other_home(n, &p, done,
							  iov[i].len);
			for (k = 0; k < count && t->ahead[k].unit != p.unit;
			     k++)
				;
			if (k < count) {
				t->ahead[k].first = min_t(u8, t->ahead[k].first,
							  p.first);
				t->ahead[k].last = max_t(u8, t->ahead[k].last,
							 p.last);
				t->ahead[k].lag |= lag;
			} else if (count < DDSM_TX_READV_MAX) {
				t->ahead[count].unit = p.unit;
				t->ahead[count].first = (u8)p.first;
				t->ahead[count].last = (u8)p.last;
				t->ahead[count].lag = lag;
				t->ahead[count].early = here;
				count++;
			}
		}
	}
	for (k = 0; k < count; k++) {
		t->ahead[k].page = ddsm_stash_get(&ts->stash);
		if (!t->ahead[k].page)
			break;		/* the rest are read in turn */
	}
	count = k;
	for (k = 0; k < count; k++)
		if (t->ahead[k].early)
			read_early(n, t, &t->ahead[k]);
	t->ahead_until = jiffies + wait_ms() + msecs_to_jiffies(lag_ms);
	/* Requests not asked yet must not look answered meanwhile. */
	spin_lock(&ts->lock);
	for (k = 0; k < count; k++) {
		t->ahead[k].seq = 0;
		t->ahead[k].done = ddsm_unit_home(&n->space,
						  t->ahead[k].unit) == tx_self(n);
	}
	t->nahead = count;
	spin_unlock(&ts->lock);
	ask_homes(n, t, count, false);
	/* What no request carried goes now: nothing else may come soon. */
	ddsm_tx_pay_owed(n, U32_MAX);
	if (!lag_ms)
		return;
	msleep(lag_ms);
	ask_homes(n, t, count, true);
}

/* READV is over: late answers find nothing to fill. */
static void forget_ahead(struct ddsm_node *n, struct ddsm_tx *t)
{
	u32 i, nr;

	spin_lock(&n->tx->lock);
	nr = t->nahead;
	t->nahead = 0;
	spin_unlock(&n->tx->lock);
	for (i = 0; i < nr; i++)
		ddsm_stash_put(&n->tx->stash, t->ahead[i].page);
}

/* The first part READV read at @home: its unit and first line. */
static bool read_at(struct ddsm_node *n, const struct ddsm_tx_iov *iov,
		    u32 nr, u32 home, u64 *unit, u8 *line)
{
	struct ddsm_txpart p;
	u32 i, done;

	for (i = 0; i < nr; i++)
		for (done = 0; done < iov[i].len; done += p.len) {
			part_at(iov[i].gaddr, iov[i].len, done, &p);
			if (ddsm_unit_home(&n->space, p.unit) != home)
				continue;
			*unit = p.unit;
			*line = (u8)p.first;
			return true;
		}
	return false;
}

/*
 * READV's reads across homes made whole (confirm()'s argument): once
 * every answer is in, each home in @homes is asked once more, the
 * remote ones all at once, each for a line READV read there, so the
 * filters gain nothing.  A commit seen half applied had doomed the
 * transaction at the home that answered before it applied there, which
 * now answers -ESTALE.  Homes past DDSM_TX_READV_MAX, or without a
 * page, are asked one after the other.
 */
static int confirm_homes(struct ddsm_node *n, struct ddsm_tx *t,
			 const struct ddsm_tx_iov *iov, u32 nr, u64 homes)
{
	struct ddsm_txs *ts = n->tx;
	u32 home, k, count = 0;
	bool early;
	u64 unit;
	u8 line;
	int ret = 0;

	forget_ahead(n, t);
	for (home = 0; home < n->space.nr_nodes; home++) {
		struct ddsm_txahead *r = &t->ahead[count];

		if (home == tx_self(n) || !(homes & BIT_ULL(home)) ||
		    count == DDSM_TX_READV_MAX ||
		    !read_at(n, iov, nr, home, &r->unit, &r->first))
			continue;
		r->page = ddsm_stash_get(&ts->stash);
		if (!r->page)
			continue;
		r->last = r->first;
		r->lag = false;
		r->early = false;
		homes &= ~BIT_ULL(home);
		count++;
	}
	t->ahead_until = jiffies + wait_ms();
	spin_lock(&ts->lock);
	for (k = 0; k < count; k++) {
		t->ahead[k].seq = 0;
		t->ahead[k].done = false;
	}
	t->nahead = count;
	spin_unlock(&ts->lock);
	for (k = 0; k < count; k++)
		ask(n, t, ddsm_unit_home(&n->space, t->ahead[k].unit), &k, 1,
		    &ts->readv_confirms);
	/* Here, and what did not go at once, after every answer too. */
	for (home = 0; home < n->space.nr_nodes && !ret; home++)
		if ((homes & BIT_ULL(home)) &&
		    read_at(n, iov, nr, home, &unit, &line))
			ret = ddsm_tx_read_unit(n, t, unit, line, line, NULL);
	for (k = 0; k < count && !ret; k++)
		ret = ddsm_tx_read_unit(n, t, t->ahead[k].unit,
					t->ahead[k].first,
					t->ahead[k].first, &early);
	return ret;
}

/*
 * Each read as READ would do it, in order, the remote ones answered by
 * what send_ahead() asked; reads across homes confirmed together at the
 * end.  A fallback transaction pins what it reads, in address order: it
 * reads one after the other.
 */
long ddsm_tx_readv(struct ddsm_node *n, struct ddsm_txfile *f,
		   struct ddsm_tx_readv_arg *a,
		   const struct ddsm_tx_iov *iov, u8 *buf)
{
	struct ddsm_tx **tp = &f->tx;
	u8 reason = DDSM_TX_COMMITTED;
	u32 i, off = 0;
	u64 again = 0;
	bool ahead;
	long ret = 0;

	if (!*tp)
		return -EINVAL;
	a->txid = txid_of(*tp);
	if (ddsm_tx_ended(n, tp, &a->reason))
		return -ECANCELED;
	for (i = 0; i < a->nr && !ret; i++)
		ret = ddsm_tx_check_access(n, iov[i].gaddr, iov[i].len, false);
	if (ret)
		return ret;
	ahead = !(*tp)->fallback && a->nr > 1;
	if (ahead)
		send_ahead(n, *tp, iov, a->nr);
	for (i = 0; i < a->nr && !ret; i++) {
		ret = ddsm_tx_do_read(n, *tp, iov[i].gaddr, buf + off,
				      iov[i].len,
				      ahead ? &again : NULL, &reason);
		off += iov[i].len;
	}
	if (!ret && again) {
		ret = confirm_homes(n, *tp, iov, a->nr, again);
		if (ret)
			ret = ddsm_tx_read_failed(*tp, ret, &reason);
	}
	forget_ahead(n, *tp);
	if (ret == -ECANCELED)
		ddsm_tx_do_abort(n, tp, reason);
	a->reason = reason;
	return ret;
}
