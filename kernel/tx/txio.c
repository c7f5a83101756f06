// SPDX-License-Identifier: GPL-2.0
/*
 * HADES at the coordinator (docs/transactions.md): one transaction per
 * open file, its reads asked of the lines' homes, its writes buffered
 * here until commit, the commit run by proto/txcoord.c's state machine.
 * Lines homed on this node go through the same home code (txnode.c),
 * called directly instead of through a message.
 *
 * Every wait for a home is bounded by fault_timeout_ms; a home that
 * does not answer aborts the transaction (DDSM_TX_TIMEOUT), one that
 * goes down aborts it too (DDSM_TX_PEER_DOWN) unless it had ACKed every
 * Intend already (then the commit stands).  A squash marks the
 * transaction doomed; the file's next call returns the abort.
 */
#include <linux/delay.h>
#include <linux/highmem.h>
#include <linux/jiffies.h>
#include <linux/moduleparam.h>
#include <linux/printk.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>
#include "../node/node.h"
#include "tx.h"
#include "../proto/txbatch.h"
#include "../proto/txpack.h"

/*
 * Test only (tests/vm/txdeath.sh): hold every commit this long between
 * its last ACK and its Validations, so that a node killed mid-run almost
 * surely leaves commits locked at the survivors.
 */
static unsigned int tx_validate_delay_ms;
module_param(tx_validate_delay_ms, uint, 0644);
MODULE_PARM_DESC(tx_validate_delay_ms, "Test only: pause between a commit's last ACK and its Validations (ms, default 0)");

/*
 * Test only (tests/vm/txdeath.sh): pause this long after a commit's
 * first Validation to another node, so that a node killed mid-run leaves
 * commits applied at one survivor and locked at another (roll-forward).
 */
static unsigned int tx_validate_gap_ms;
module_param(tx_validate_gap_ms, uint, 0644);
MODULE_PARM_DESC(tx_validate_gap_ms, "Test only: pause after a commit's first Validation to another node (ms, default 0)");

/*
 * Test only (ddsm-test-txapi's forced race): READV asks for the first
 * part of a read that goes on at another home this long after its other
 * requests, so that commits land at that home after the other reads
 * were answered.  With tx_squash_off (txnode.c) that is the order in
 * which the code before 75be308 returned a record torn.
 */
static unsigned int tx_readv_lag_ms;
module_param(tx_readv_lag_ms, uint, 0644);
MODULE_PARM_DESC(tx_readv_lag_ms, "Test only: READV asks for the first part of a read across homes this much later (ms, default 0, at most 1000)");

/*
 * A commit's Validations to other homes wait up to this long for a
 * request of this node to the same home to ride on, the next
 * transaction's TX_READ_MANY as a rule; then they go alone.  Each one
 * that rides along is a message less, for the commit's lines staying
 * locked at the home until the next request, or this long at most.
 */
static unsigned int tx_validate_defer_us = 1000;
module_param(tx_validate_defer_us, uint, 0644);
MODULE_PARM_DESC(tx_validate_defer_us, "Longest a commit's Validation to another home waits to ride on a read request to it (us, default 1000, at most 100000; 0: sent at once)");

static u64 txid_of(const struct ddsm_tx *t)
{
	return ddsm_txid_pack(t->c.id);
}

static u32 self(struct ddsm_node *n)
{
	return n->space.node_id;
}

static long wait_ms(void)
{
	return msecs_to_jiffies(ddsm_fault_timeout_ms());
}

/* The transaction a message names, if it still runs; txs->lock held. */
static struct ddsm_tx *find(struct ddsm_txs *ts, u64 txid)
{
	struct ddsm_tx *t = ts->slot[ddsm_txid_unpack(txid).slot %
				     DDSM_TX_SLOTS];

	return t && txid_of(t) == txid ? t : NULL;
}

static void doom(struct ddsm_txs *ts, struct ddsm_tx *t, u8 reason)
{
	if (!t->doomed) {
		t->doomed = true;
		t->reason = reason;
	}
	wake_up_all(&t->wait);
}

void ddsm_txio_squash(struct ddsm_node *n, u64 txid)
{
	struct ddsm_txs *ts = n->tx;
	struct ddsm_tx *t;

	spin_lock(&ts->lock);
	t = find(ts, txid);
	if (t) {
		int r = ddsm_txc_squash(&t->c, txid);

		if (r == DDSM_TXC_ABORTED)
			doom(ts, t, DDSM_TX_SQUASHED);
		else if (r < 0)
			pr_warn_ratelimited("ddsm: tx %#llx: squash after its last ACK\n",
					    txid);
	}
	spin_unlock(&ts->lock);
}

/* A home's answer to the Intend; txs->lock held. */
static void answered(struct ddsm_txs *ts, struct ddsm_tx *t, u32 home,
		     bool ack)
{
	int r = ddsm_txc_answer(&t->c, txid_of(t), home, ack);

	if (r == DDSM_TXC_ABORTED && !ack)
		doom(ts, t, DDSM_TX_NACKED);
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

void ddsm_txio_rx(struct ddsm_node *n, const struct ddsm_msg *m,
		  struct page *data, u32 data_len)
{
	struct ddsm_txs *ts = n->tx;
	struct ddsm_tx *t;

	if (m->type == DDSM_MSG_TX_SQUASH) {
		ddsm_txio_squash(n, m->copyset);
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
		answered(ts, t, m->src, m->type == DDSM_MSG_TX_ACK);
		break;
	}
out:
	spin_unlock(&ts->lock);
}

void ddsm_txio_peer_down(struct ddsm_node *n, u32 node)
{
	struct ddsm_txs *ts = n->tx;
	u32 i;

	spin_lock(&ts->lock);
	for (i = 0; i < DDSM_TX_SLOTS; i++) {
		struct ddsm_tx *t = ts->slot[i];

		if (t && (t->c.involved & BIT_ULL(node)) &&
		    t->c.state != DDSM_TXC_COMMITTED)
			doom(ts, t, DDSM_TX_PEER_DOWN);
	}
	spin_unlock(&ts->lock);
}

/* What every transaction message of @txid to @home names. */
static struct ddsm_msg tx_msg(struct ddsm_node *n, u8 type, u32 home,
			      u64 unit, u64 txid)
{
	return (struct ddsm_msg){
		.type = type,
		.src = (u16)self(n),
		.dst = (u16)home,
		.requester = (u16)self(n),
		.unit = unit,
		.copyset = txid,
	};
}

/* @data_len bytes of @data (an Intend's payload) go with it. */
static int send_to_home(struct ddsm_node *n, struct ddsm_tx *t, u8 type,
			u32 home, u64 unit, u16 lines, struct page *data,
			u32 data_len)
{
	struct ddsm_msg m = tx_msg(n, type, home, unit, txid_of(t));

	m.flags = (data ? DDSM_MF_DATA : 0) |
		  (type == DDSM_MSG_TX_READ && t->fallback ? DDSM_MF_PIN : 0);
	m.acks = lines;
	m.seq = t->seq;
	return ddsm_send_msg_part(n, &m, data, 0, data_len);
}

/*
 * An owed Validation outlives its transaction: only its id and home are
 * left.  A failed send means the connection went down (transport.h): the
 * home then settles the commit with the other participants (txnode.c),
 * as for a Validation lost with its coordinator.
 */
static void send_validate(struct ddsm_node *n, const struct ddsm_txowed *o)
{
	struct ddsm_msg m = tx_msg(n, DDSM_MSG_TX_VALIDATE, o->home, o->unit,
				   o->txid);

	ddsm_send_msg_part(n, &m, NULL, 0, 0);
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
static u32 drain_owed(struct ddsm_node *n, u32 home, u32 max,
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
static void pay_owed(struct ddsm_node *n, u32 home)
{
	if (READ_ONCE(n->tx->nowed))
		drain_owed(n, home, U32_MAX, pay_one, NULL);
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

	pay_owed(ts->home.node, U32_MAX);
}

void ddsm_txio_init(struct ddsm_txs *ts)
{
	hrtimer_init(&ts->owed_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	ts->owed_timer.function = owed_due;
	INIT_WORK(&ts->owed_work, owed_work);
}

/*
 * No Validation waits any more: sent (@send, the transport still up) or
 * forgotten (the homes ask the other participants, txnode.c).
 */
void ddsm_txio_stop(struct ddsm_node *n, bool send)
{
	struct ddsm_txs *ts = n->tx;

	hrtimer_cancel(&ts->owed_timer);
	cancel_work_sync(&ts->owed_work);
	if (send) {
		pay_owed(n, U32_MAX);
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
static bool owe(struct ddsm_txs *ts, u32 home, u64 txid, u64 unit)
{
	unsigned int us = min(READ_ONCE(tx_validate_defer_us), 100000u);

	if (!us || READ_ONCE(tx_validate_gap_ms) ||
	    ts->nowed == DDSM_TX_OWED)
		return false;
	ts->owed[ts->nowed++] = (struct ddsm_txowed){
		.txid = txid, .unit = unit, .home = home };
	if (!hrtimer_is_queued(&ts->owed_timer))
		hrtimer_start(&ts->owed_timer, ns_to_ktime(us * NSEC_PER_USEC),
			      HRTIMER_MODE_REL);
	return true;
}

/* Note that the transaction involves @unit's home; returns the home. */
static u32 touch(struct ddsm_node *n, struct ddsm_tx *t, u64 unit)
{
	u32 home = ddsm_unit_home(&n->space, unit);

	spin_lock(&n->tx->lock);
	if (!(t->c.involved & BIT_ULL(home)))
		t->home_unit[home] = unit;
	ddsm_txc_touch(&t->c, home);
	spin_unlock(&n->tx->lock);
	return home;
}

/* One home read of lines [first, last] of @unit into t->reply. */
static int read_once(struct ddsm_node *n, struct ddsm_tx *t, u64 unit,
		     u32 first, u32 last)
{
	struct ddsm_txs *ts = n->tx;
	u32 home = touch(n, t, unit);
	long left;
	int ret;

	if (home == self(n))
		return ddsm_txnode_read(n, txid_of(t), unit, first, last,
					t->reply, first << DDSM_LINE_SHIFT,
					t->fallback);
	/* The read must not find this node's own commits still locked. */
	pay_owed(n, home);
	spin_lock(&ts->lock);
	t->seq++;
	t->lines = ddsm_tx_read_lines(first, last);
	t->done = false;
	spin_unlock(&ts->lock);
	ret = send_to_home(n, t, DDSM_MSG_TX_READ, home, unit, t->lines,
			   NULL, 0);
	if (ret)
		return -EHOSTDOWN;
	left = wait_event_timeout(t->wait, READ_ONCE(t->done) ||
				  READ_ONCE(t->doomed), wait_ms());
	spin_lock(&ts->lock);
	ret = t->done ? t->err : t->doomed ? -ECANCELED : -ETIMEDOUT;
	spin_unlock(&ts->lock);
	return left || ret != -ETIMEDOUT ? ret : -ETIMEDOUT;
}

/* The part of an access [gaddr, +len) that falls in one unit. */
struct ddsm_txpart {
	u64 gaddr;		/* where it starts */
	u64 unit;
	u32 off;		/* in the unit */
	u32 len;
	u32 first, last;	/* lines of the unit it covers */
};

/*
 * The part of [@gaddr, +@len) at byte @done of it; the caller adds
 * p->len to @done for the next.
 */
static void part_at(u64 gaddr, u32 len, u32 done, struct ddsm_txpart *p)
{
	p->gaddr = gaddr + done;
	p->unit = ddsm_gaddr_unit(p->gaddr);
	p->off = p->gaddr & (DDSM_UNIT_SIZE - 1);
	p->len = min_t(u32, len - done, DDSM_UNIT_SIZE - p->off);
	p->first = p->off >> DDSM_LINE_SHIFT;
	p->last = (p->off + p->len - 1) >> DDSM_LINE_SHIFT;
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
 * Note lines [@first, @last] of @unit in the file's footprint, which the
 * pessimistic fallback pins.  Only attempts after a conflict abort need
 * it: a first attempt that commits, or aborts for another reason, skips
 * the scan.
 */
static void note_fp(struct ddsm_tx *t, u64 unit, u32 first, u32 last)
{
	struct ddsm_txfile *f = t->file;
	u32 i;

	if (!f->conflicts)
		return;
	for (i = 0; i < f->nfp; i++) {
		if (f->fp[i].unit != unit)
			continue;
		f->fp[i].first = min_t(u8, f->fp[i].first, first);
		f->fp[i].last = max_t(u8, f->fp[i].last, last);
		return;
	}
	if (f->nfp < DDSM_TX_FOOTPRINT) {
		f->fp[f->nfp].unit = unit;
		f->fp[f->nfp].first = (u8)first;
		f->fp[f->nfp].last = (u8)last;
		f->nfp++;
	}
}

/*
 * Lines [@first, @last] of @unit from a read READV sent ahead, into
 * t->reply: 0, the answer's errno, or -ENOENT when none covers them
 * (read them now).  A home that found the lines locked by a commit
 * (-EAGAIN) is asked again like any read.  @early: they were read here
 * before READV sent any request.
 */
static int read_ahead(struct ddsm_node *n, struct ddsm_tx *t, u64 unit,
		      u32 first, u32 last, bool *early)
{
	struct ddsm_txs *ts = n->tx;
	struct ddsm_txahead *r = NULL;
	long left;
	u32 i;
	int ret;

	for (i = 0; i < t->nahead && !r; i++)
		if (t->ahead[i].unit == unit && t->ahead[i].first <= first &&
		    t->ahead[i].last >= last)
			r = &t->ahead[i];
	if (!r)
		return -ENOENT;
	left = (long)(t->ahead_until - jiffies);
	if (left > 0)
		wait_event_timeout(t->wait, READ_ONCE(r->done) ||
				   READ_ONCE(t->doomed), left);
	spin_lock(&ts->lock);
	ret = r->done ? r->err : t->doomed ? -ECANCELED : -ETIMEDOUT;
	spin_unlock(&ts->lock);
	*early = !ret && r->early;
	if (!ret)
		memcpy_page(t->reply, r->first << DDSM_LINE_SHIFT, r->page,
			    r->first << DDSM_LINE_SHIFT,
			    (r->last - r->first + 1) << DDSM_LINE_SHIFT);
	return ret;
}

/*
 * Home reads, a line held by a commit asked again; 0 or why not.
 * @early: NULL, or a read READV sent ahead may answer, and this says
 * whether it was read before READV sent any request.
 */
static int read_unit(struct ddsm_node *n, struct ddsm_tx *t, u64 unit,
		     u32 first, u32 last, bool *early)
{
	int tries = 0, ret = -ENOENT;

	note_fp(t, unit, first, last);
	if (early) {
		*early = false;
		ret = read_ahead(n, t, unit, first, last, early);
	}
	if (ret == -ENOENT)
		ret = read_once(n, t, unit, first, last);
	while (ret == -EAGAIN && ++tries < DDSM_TX_READ_TRIES) {
		atomic64_inc(&n->tx->read_retries);
		usleep_range(100, 200);
		ret = read_once(n, t, unit, first, last);
	}
	return ret;
}

/* The transaction's own writes laid over what it read, in their order. */
static void own_writes(struct ddsm_tx *t, u64 gaddr, u8 *buf, u32 len)
{
	u32 i;

	for (i = 0; i < t->nw; i++) {
		u64 a = max(gaddr, t->w[i].gaddr);
		u64 b = min(gaddr + len, t->w[i].gaddr + t->w[i].len);

		if (a < b)
			memcpy(buf + (a - gaddr),
			       t->wbuf + t->w[i].off + (a - t->w[i].gaddr),
			       b - a);
	}
}

static u8 reason_of(int err)
{
	switch (err) {
	case -EAGAIN:
		return DDSM_TX_READ_LOCKED;
	case -ESTALE:
	case -ECANCELED:
		return DDSM_TX_SQUASHED;
	case -ENOSPC:
		return DDSM_TX_FULL;
	case -ETIMEDOUT:
		return DDSM_TX_TIMEOUT;
	default:
		return DDSM_TX_PEER_DOWN;
	}
}

/*
 * A read whose parts came from different homes is whole only if no
 * commit came between them.  A commit that changed an earlier part and
 * was applied at a later part's home before we read it had doomed us at
 * the earlier home first (Validation follows every home's ACK), so asking
 * the earlier homes once more finds the tombstone (-ESTALE).  Without
 * this a doomed transaction could see a record half old, half new before
 * its abort.  "Earlier" is in time: a read on its own asks the last
 * part's home only once every earlier part's answer is in.  READV asks
 * all parts at once and confirms later (confirm_homes()).
 */
static int confirm(struct ddsm_node *n, struct ddsm_tx *t, u64 gaddr,
		   u32 len)
{
	u64 last = ddsm_gaddr_unit(gaddr + len - 1), unit;
	u32 home = ddsm_unit_home(&n->space, last);
	/* A line the read covered already: the filters gain nothing. */
	u32 line = (gaddr & (DDSM_UNIT_SIZE - 1)) >> DDSM_LINE_SHIFT;
	int ret = 0;

	for (unit = ddsm_gaddr_unit(gaddr); unit < last && !ret; unit++) {
		if (ddsm_unit_home(&n->space, unit) != home)
			ret = read_unit(n, t, unit, line, line, NULL);
		line = 0;
	}
	return ret;
}

/*
 * Of a read across homes (@homes) whose parts at @early were read before
 * READV sent any request, the homes to ask once more when all READV's
 * answers are in.  The home read last in time needs no asking; which
 * that is READV knows only when all but one were read early.
 */
static u64 homes_to_confirm(u64 homes, u64 early)
{
	if (hweight64(homes) < 2)
		return 0;
	return hweight64(homes & ~early) == 1 ? early : homes;
}

/* -ECANCELED, or @ret itself for a bad call; *@reason says why. */
static int read_failed(struct ddsm_tx *t, int ret, u8 *reason)
{
	if (ret == -EINVAL || ret == -E2BIG || ret == -ENOMEM)
		return ret;
	*reason = t->doomed ? t->reason : reason_of(ret);
	return -ECANCELED;
}

/*
 * @again: NULL for a read on its own, which reads its parts in order and
 * confirms them (confirm()); for READV's reads, which may be answered by
 * what it sent ahead, the homes READV must ask once more
 * (confirm_homes()) gather there.
 */
static int do_read(struct ddsm_node *n, struct ddsm_tx *t, u64 gaddr,
		   u8 *buf, u32 len, u64 *again, u8 *reason)
{
	struct ddsm_txpart part;
	u64 homes = 0, early = 0;
	u32 done = 0;
	bool was_early = false;
	int ret;

	atomic64_inc(&n->tx->reads);
	for (; done < len; done += part.len) {
		u64 home;
		u8 *p;

		part_at(gaddr, len, done, &part);
		home = BIT_ULL(ddsm_unit_home(&n->space, part.unit));
		ret = read_unit(n, t, part.unit, part.first, part.last,
				again ? &was_early : NULL);
		if (ret)
			return read_failed(t, ret, reason);
		homes |= home;
		if (was_early)
			early |= home;
		p = kmap_local_page(t->reply);
		memcpy(buf + done, p + part.off, part.len);
		kunmap_local(p);
	}
	if (again) {
		*again |= homes_to_confirm(homes, early);
	} else {
		ret = confirm(n, t, gaddr, len);
		if (ret)
			return read_failed(t, ret, reason);
	}
	own_writes(t, gaddr, buf, len);
	return 0;
}

static int do_write(struct ddsm_node *n, struct ddsm_tx *t, u64 gaddr,
		    const u8 *buf, u32 len)
{
	struct ddsm_txpart part;
	u32 done;

	for (done = 0; done < len; done += part.len) {
		part_at(gaddr, len, done, &part);
		if (t->nw == DDSM_TX_MAX_WRITES ||
		    t->wused + part.len > DDSM_TX_WBUF)
			return -E2BIG;
		touch(n, t, part.unit);
		note_fp(t, part.unit, part.first, part.last);
		t->w[t->nw].gaddr = part.gaddr;
		t->w[t->nw].len = part.len;
		t->w[t->nw].off = t->wused;
		memcpy(t->wbuf + t->wused, buf + done, part.len);
		t->wused += part.len;
		t->nw++;
	}
	return 0;
}

/* Tell every involved home the outcome (Validation or Abort). */
static void tell_homes(struct ddsm_node *n, struct ddsm_tx *t, bool commit)
{
	u64 involved = t->c.involved;
	bool sent = false, owed;
	u32 h;

	for (h = 0; h < n->space.nr_nodes; h++) {
		if (!(involved & BIT_ULL(h)))
			continue;
		if (h == self(n)) {
			if (commit)
				ddsm_txnode_validate(n, txid_of(t));
			else
				ddsm_txnode_abort(n, txid_of(t));
			continue;
		}
		if (commit) {
			spin_lock(&n->tx->lock);
			owed = owe(n->tx, h, txid_of(t), t->home_unit[h]);
			spin_unlock(&n->tx->lock);
			if (owed)
				continue;
		}
		if (commit && sent && READ_ONCE(tx_validate_gap_ms))
			msleep(min(READ_ONCE(tx_validate_gap_ms), 1000u));
		send_to_home(n, t, commit ? DDSM_MSG_TX_VALIDATE :
			     DDSM_MSG_TX_ABORT, h, t->home_unit[h], 0, NULL, 0);
		sent = true;
	}
}

static int fp_cmp(const void *a, const void *b)
{
	const struct ddsm_txfp *x = a, *y = b;

	if (x->unit != y->unit)
		return x->unit < y->unit ? -1 : 1;
	return 0;
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
			ret = read_once(n, t, f->fp[i].unit, f->fp[i].first,
					f->fp[i].last);
			if (ret == -EAGAIN)
				usleep_range(100, 200);
		} while (ret == -EAGAIN && time_before(jiffies, until));
		if (ret)
			break;
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
static void abort_tx(struct ddsm_node *n, struct ddsm_tx **tp, u8 reason)
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

static int do_commit(struct ddsm_node *n, struct ddsm_tx **tp, u8 *reason)
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
		abort_tx(n, tp, DDSM_TX_USER);
		goto out;
	}
	spin_lock(&ts->lock);
	ret = t->doomed ? -ECANCELED : ddsm_txc_commit(&t->c, &to);
	spin_unlock(&ts->lock);
	if (ret)
		goto aborted;
	for (h = 0; h < n->space.nr_nodes; h++) {
		if (!(to & BIT_ULL(h)) || h == self(n))
			continue;
		/* The Intend must not find this node's own commits locked. */
		pay_owed(n, h);
		atomic64_inc(&ts->intends_sent);
		if (send_to_home(n, t, DDSM_MSG_TX_INTEND, h, t->home_unit[h],
				 0, pages[h], lens[h])) {
			spin_lock(&ts->lock);
			doom(ts, t, DDSM_TX_PEER_DOWN);
			spin_unlock(&ts->lock);
		}
	}
	if (to & BIT_ULL(self(n))) {
		int r;

		atomic64_inc(&ts->intends_sent);
		r = ddsm_txnode_intend(n, txid_of(t), t->home_unit[self(n)],
				       pages[self(n)], lens[self(n)]);
		spin_lock(&ts->lock);
		answered(ts, t, self(n), !r);
		spin_unlock(&ts->lock);
	}
	wait_event_timeout(t->wait, READ_ONCE(t->c.state) !=
			   DDSM_TXC_COMMITTING || READ_ONCE(t->doomed),
			   wait_ms());
	spin_lock(&ts->lock);
	state = t->c.state;
	if (state == DDSM_TXC_COMMITTING)
		doom(ts, t, DDSM_TX_TIMEOUT);
	spin_unlock(&ts->lock);
	if (state == DDSM_TXC_COMMITTED) {
		if (READ_ONCE(tx_validate_delay_ms))
			msleep(min(READ_ONCE(tx_validate_delay_ms), 1000u));
		tell_homes(n, t, true);
		finish(n, tp, DDSM_TX_COMMITTED);
		goto out;
	}
aborted:
	ret = -ECANCELED;
	*reason = t->doomed ? t->reason : DDSM_TX_NACKED;
	abort_tx(n, tp, *reason);
out:
	for (h = 0; h < DDSM_MAX_NODES; h++)
		ddsm_stash_put(&ts->stash, pages[h]);
	return ret;
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
		ddsm_txc_begin(&t->c, (u16)self(n), (u16)i);
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
static int check_access(struct ddsm_node *n, u64 gaddr, u32 len, bool write)
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
static bool ended(struct ddsm_node *n, struct ddsm_tx **tp, u32 *reason)
{
	if (!READ_ONCE((*tp)->doomed))
		return false;
	*reason = (*tp)->reason;
	abort_tx(n, tp, (*tp)->reason);
	return true;
}

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
			drain_owed(n, home, DDSM_TXB_MAX_VAL, note_id, &ids);
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
	touch(n, t, r0->unit);
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
	if (req ? send_to_home(n, t, DDSM_MSG_TX_READ_MANY, home, r0->unit, 0,
			       req, len) :
		  send_to_home(n, t, DDSM_MSG_TX_READ, home, r0->unit,
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
		if (home == self(n))
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

/*
 * A part homed here of a read across homes, read before READV sends any
 * request: the other parts are then read after it in time, and only
 * this home needs confirming (homes_to_confirm()), which costs no
 * message.  A read refused here is read again in its turn.
 */
static void read_early(struct ddsm_node *n, struct ddsm_tx *t,
		       struct ddsm_txahead *r)
{
	touch(n, t, r->unit);
	r->err = ddsm_txnode_read(n, txid_of(t), r->unit, r->first, r->last,
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
	unsigned int lag_ms = min(READ_ONCE(tx_readv_lag_ms), 1000u);

	for (i = 0; i < nr; i++) {
		bool across = across_homes(n, iov[i].gaddr, iov[i].len);
		struct ddsm_txpart p;
		u32 done;

		for (done = 0; done < iov[i].len; done += p.len) {
			bool here, lag;

			part_at(iov[i].gaddr, iov[i].len, done, &p);
			here = ddsm_unit_home(&n->space, p.unit) == self(n);
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
						  t->ahead[k].unit) == self(n);
	}
	t->nahead = count;
	spin_unlock(&ts->lock);
	ask_homes(n, t, count, false);
	/* What no request carried goes now: nothing else may come soon. */
	pay_owed(n, U32_MAX);
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

		if (home == self(n) || !(homes & BIT_ULL(home)) ||
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
			ret = read_unit(n, t, unit, line, line, NULL);
	for (k = 0; k < count && !ret; k++)
		ret = read_unit(n, t, t->ahead[k].unit, t->ahead[k].first,
				t->ahead[k].first, &early);
	return ret;
}

/*
 * Each read as READ would do it, in order, the remote ones answered by
 * what send_ahead() asked; reads across homes confirmed together at the
 * end.  A fallback transaction pins what it reads, in address order: it
 * reads one after the other.
 */
long ddsm_txio_readv(struct ddsm_node *n, struct ddsm_txfile *f,
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
	if (ended(n, tp, &a->reason))
		return -ECANCELED;
	for (i = 0; i < a->nr && !ret; i++)
		ret = check_access(n, iov[i].gaddr, iov[i].len, false);
	if (ret)
		return ret;
	ahead = !(*tp)->fallback && a->nr > 1;
	if (ahead)
		send_ahead(n, *tp, iov, a->nr);
	for (i = 0; i < a->nr && !ret; i++) {
		ret = do_read(n, *tp, iov[i].gaddr, buf + off, iov[i].len,
			      ahead ? &again : NULL, &reason);
		off += iov[i].len;
	}
	if (!ret && again) {
		ret = confirm_homes(n, *tp, iov, a->nr, again);
		if (ret)
			ret = read_failed(*tp, ret, &reason);
	}
	forget_ahead(n, *tp);
	if (ret == -ECANCELED)
		abort_tx(n, tp, reason);
	a->reason = reason;
	return ret;
}

long ddsm_txio_ioctl(struct ddsm_node *n, struct ddsm_txfile *f,
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
	if (cmd != DDSM_IOC_TX_ABORT && ended(n, tp, &a->reason))
		return -ECANCELED;
	switch (cmd) {
	case DDSM_IOC_TX_READ:
	case DDSM_IOC_TX_WRITE:
		if (a->flags || a->reserved)
			return -EINVAL;
		ret = check_access(n, a->gaddr, a->len,
				   cmd == DDSM_IOC_TX_WRITE);
		if (ret)
			return ret;
		if (cmd == DDSM_IOC_TX_WRITE) {
			ret = do_write(n, *tp, a->gaddr, buf, a->len);
		} else {
			ret = do_read(n, *tp, a->gaddr, buf, a->len, NULL,
				      &reason);
			if (ret == -ECANCELED)
				abort_tx(n, tp, reason);
		}
		break;
	case DDSM_IOC_TX_COMMIT:
		ret = do_commit(n, tp, &reason);
		break;
	case DDSM_IOC_TX_ABORT:
		abort_tx(n, tp, DDSM_TX_USER);
		ret = 0;
		break;
	default:
		ret = -ENOTTY;
	}
	a->reason = reason;
	return ret;
}

void ddsm_txio_release(struct ddsm_node *n, struct ddsm_txfile *f)
{
	if (f->tx)
		abort_tx(n, &f->tx, DDSM_TX_USER);
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
