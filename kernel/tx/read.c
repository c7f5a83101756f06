// SPDX-License-Identifier: GPL-2.0
/*
 * A transaction's reads at the coordinator: each part of an access is
 * asked of its unit's home (a TX_READ, or home.c directly for the
 * lines homed here), answered by what READV sent ahead if it can be
 * (readv.c), asked again while a commit holds its lines, and a read
 * across homes is confirmed whole (confirm()).  The transaction's own
 * writes are laid over what it read.
 */
#include <linux/delay.h>
#include <linux/highmem.h>
#include <linux/sched/signal.h>
#include <linux/jiffies.h>
#include <linux/wait.h>
#include "../node/node.h"
#include "tx.h"
#include "coord.h"

/* Note that the transaction involves @unit's home; returns the home. */
u32 ddsm_tx_touch(struct ddsm_node *n, struct ddsm_tx *t, u64 unit)
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
int ddsm_tx_read_once(struct ddsm_node *n, struct ddsm_tx *t, u64 unit,
		      u32 first, u32 last)
{
	struct ddsm_txs *ts = n->tx;
	u32 home = ddsm_tx_touch(n, t, unit);
	long left;
	int ret;

	if (home == tx_self(n))
		return ddsm_tx_home_read(n, txid_of(t), unit, first, last,
					t->reply, first << DDSM_LINE_SHIFT,
					t->fallback);
	/* The read must not find this node's own commits still locked. */
	ddsm_tx_pay_owed(n, home);
	spin_lock(&ts->lock);
	t->seq++;
	t->lines = ddsm_tx_read_lines(first, last);
	t->done = false;
	spin_unlock(&ts->lock);
	ret = ddsm_tx_send(n, t, DDSM_MSG_TX_READ, home, unit, t->lines,
			   NULL, 0);
	if (ret)
		return -EHOSTDOWN;
	left = wait_event_killable_timeout(t->wait, READ_ONCE(t->done) ||
					   READ_ONCE(t->doomed), wait_ms());
	if (left == -ERESTARTSYS)
		return -EINTR;
	spin_lock(&ts->lock);
	ret = t->done ? t->err : t->doomed ? -ECANCELED : -ETIMEDOUT;
	spin_unlock(&ts->lock);
	return left || ret != -ETIMEDOUT ? ret : -ETIMEDOUT;
}

/*
 * Note lines [@first, @last] of @unit in the file's footprint, which the
 * pessimistic fallback pins.  Only attempts after a conflict abort need
 * it: a first attempt that commits, or aborts for another reason, skips
 * the scan.
 */
void ddsm_tx_note_fp(struct ddsm_tx *t, u64 unit, u32 first, u32 last)
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
	if (left > 0 &&
	    wait_event_killable_timeout(t->wait, READ_ONCE(r->done) ||
					READ_ONCE(t->doomed),
					left) == -ERESTARTSYS)
		return -EINTR;
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
int ddsm_tx_read_unit(struct ddsm_node *n, struct ddsm_tx *t, u64 unit,
		      u32 first, u32 last, bool *early)
{
	int tries = 0, ret = -ENOENT;

	ddsm_tx_note_fp(t, unit, first, last);
	if (early) {
		*early = false;
		ret = read_ahead(n, t, unit, first, last, early);
	}
	if (ret == -ENOENT)
		ret = ddsm_tx_read_once(n, t, unit, first, last);
	while (ret == -EAGAIN && ++tries < DDSM_TX_READ_TRIES &&
	       !fatal_signal_pending(current)) {
		atomic64_inc(&n->tx->read_retries);
		usleep_range(100, 200);
		ret = ddsm_tx_read_once(n, t, unit, first, last);
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
			ret = ddsm_tx_read_unit(n, t, unit, line, line, NULL);
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
int ddsm_tx_read_failed(struct ddsm_tx *t, int ret, u8 *reason)
{
	if (ret == -EINVAL || ret == -E2BIG || ret == -ENOMEM ||
	    ret == -EINTR)
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
int ddsm_tx_do_read(struct ddsm_node *n, struct ddsm_tx *t, u64 gaddr,
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
		ret = ddsm_tx_read_unit(n, t, part.unit, part.first, part.last,
					again ? &was_early : NULL);
		if (ret)
			return ddsm_tx_read_failed(t, ret, reason);
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
			return ddsm_tx_read_failed(t, ret, reason);
	}
	own_writes(t, gaddr, buf, len);
	return 0;
}
