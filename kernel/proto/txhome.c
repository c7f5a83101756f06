// SPDX-License-Identifier: GPL-2.0
#include "txhome.h"

void ddsm_txh_init(struct ddsm_txh *h, struct ddsm_txh_entry *entries,
		   u32 nr)
{
	memset(h, 0, sizeof(*h));
	memset(entries, 0, sizeof(*entries) * nr);
	h->e = entries;
	h->nr = nr;
}

static struct ddsm_txh_entry *find(const struct ddsm_txh *h, u64 txid)
{
	u32 i;

	if (!txid)
		return NULL;
	for (i = 0; i < h->nr; i++)
		if (h->e[i].state != DDSM_TXH_FREE && h->e[i].txid == txid)
			return &h->e[i];
	return NULL;
}

const struct ddsm_txh_entry *ddsm_txh_find(const struct ddsm_txh *h,
					   u64 txid)
{
	return find(h, txid);
}

static void release(struct ddsm_txh_entry *e)
{
	e->state = DDSM_TXH_FREE;
	e->txid = 0;
}

/*
 * Is @old, of the same coordinator slot as @txid, of a transaction before
 * it?  An older epoch of the same incarnation, or any epoch of another
 * incarnation: a slot's messages come from its coordinator in order, and
 * a restarted coordinator sends nothing of its old life.
 */
static bool older_in_slot(u64 old, u64 txid)
{
	struct ddsm_txid a = ddsm_txid_unpack(old), b = ddsm_txid_unpack(txid);

	if (a.node != b.node || a.slot != b.slot)
		return false;
	return a.gen != b.gen || (s32)(a.epoch - b.epoch) < 0;
}

/* A free entry for @txid, running; NULL if none is free. */
static struct ddsm_txh_entry *add(struct ddsm_txh *h, u64 txid)
{
	struct ddsm_txh_entry *e;
	u32 i;

	for (i = 0; i < h->nr; i++) {
		if (h->e[i].state != DDSM_TXH_FREE)
			continue;
		e = &h->e[i];
		memset(e, 0, sizeof(*e));
		e->txid = txid;
		e->state = DDSM_TXH_ACTIVE;
		return e;
	}
	h->stats.full++;
	return NULL;
}

/* The entry of @txid, from its coordinator: made if new. */
static struct ddsm_txh_entry *find_or_add(struct ddsm_txh *h, u64 txid)
{
	struct ddsm_txh_entry *e = find(h, txid);
	u32 i;

	if (e || !txid)
		return e;
	/*
	 * A slot runs one transaction at a time: an older transaction's
	 * running entry or tombstone is left over (its Abort is late or was
	 * lost with a connection), so free it.  Locked ones are kept: a
	 * commit is only ever decided by its Validation, its Abort or a
	 * verdict (txfate.h).
	 */
	for (i = 0; i < h->nr; i++)
		if ((h->e[i].state == DDSM_TXH_ACTIVE ||
		     h->e[i].state == DDSM_TXH_DOOMED) &&
		    older_in_slot(h->e[i].txid, txid))
			release(&h->e[i]);
	return add(h, txid);
}

void ddsm_txh_set_hist(struct ddsm_txh *h, struct ddsm_txh_hist *hist,
		       u32 nodes, u32 slots)
{
	h->hist = hist;
	h->hist_nodes = hist ? nodes : 0;
	h->hist_slots = hist ? slots : 0;
}

static struct ddsm_txh_hist *hist_of(const struct ddsm_txh *h, u64 txid)
{
	struct ddsm_txid id = ddsm_txid_unpack(txid);

	if (!h->hist || id.node >= h->hist_nodes || id.slot >= h->hist_slots)
		return NULL;
	return &h->hist[id.node * h->hist_slots + id.slot];
}

/* Shift @x's window so that @epoch is its top; true if it was behind. */
static void hist_raise(u32 *top, u64 *validated, u32 epoch)
{
	s32 d = (s32)(epoch - *top);

	if (*top && d <= 0)
		return;
	*validated = *top && d < 64 ? *validated << d : 0;
	*top = epoch;
}

/* @txid was decided here: validated or not. */
static void hist_note(struct ddsm_txh *h, u64 txid, bool validated)
{
	struct ddsm_txh_hist *x = hist_of(h, txid);
	struct ddsm_txid id = ddsm_txid_unpack(txid);
	u64 *bits;
	u32 *top;
	s32 d;

	if (!x)
		return;
	if (x->top && x->gen != id.gen && x->pgen == id.gen && x->ptop) {
		top = &x->ptop;		/* a late verdict of the old life */
		bits = &x->pvalidated;
	} else {
		if (x->top && x->gen != id.gen) {
			x->pgen = x->gen;
			x->ptop = x->top;
			x->pvalidated = x->validated;
			x->top = 0;
		}
		x->gen = id.gen;
		top = &x->top;
		bits = &x->validated;
	}
	hist_raise(top, bits, id.epoch);
	d = (s32)(id.epoch - *top);
	if (-d < 64 && validated)
		*bits |= BIT_ULL(-d);
}

/* 1: validated here, 0: decided here without, -ENOENT: not decided
 * yet, -ERANGE: too old to tell.
 */
static int hist_lookup(const struct ddsm_txh *h, u64 txid)
{
	const struct ddsm_txh_hist *x = hist_of(h, txid);
	struct ddsm_txid id = ddsm_txid_unpack(txid);
	u64 bits;
	u32 top;
	s32 d;

	if (!x)
		return -ENOENT;
	if (x->top && x->gen == id.gen) {
		top = x->top;
		bits = x->validated;
	} else if (x->ptop && x->pgen == id.gen) {
		top = x->ptop;
		bits = x->pvalidated;
	} else {
		return -ENOENT;
	}
	d = (s32)(id.epoch - top);
	if (d > 0)
		return -ENOENT;
	if (-d >= 64)
		return -ERANGE;
	return !!(bits & BIT_ULL(-d));
}

static bool in_ranges(const struct ddsm_txh_entry *e, u64 line)
{
	u32 i;

	for (i = 0; i < e->nr_ranges; i++)
		if (line >= e->ranges[i].first && line <= e->ranges[i].last)
			return true;
	return false;
}

/* Has @e, running or committing, pinned @line? */
static bool pinned(const struct ddsm_txh_entry *e, u64 line)
{
	u32 i;

	if (e->state != DDSM_TXH_ACTIVE && e->state != DDSM_TXH_LOCKED)
		return false;
	for (i = 0; i < e->nr_pins; i++)
		if (line >= e->pins[i].first && line <= e->pins[i].last)
			return true;
	return false;
}

/* Does a lock or pin holder other than @self forbid reading @line? */
static bool read_denied(const struct ddsm_txh *h,
			const struct ddsm_txh_entry *self, u64 line)
{
	u32 i;

	if (pinned(self, line))
		return false;	/* nobody else holds it */
	for (i = 0; i < h->nr; i++) {
		const struct ddsm_txh_entry *x = &h->e[i];

		if (x != self && ((x->state == DDSM_TXH_LOCKED &&
				   in_ranges(x, line)) || pinned(x, line)))
			return true;
	}
	return false;
}

/*
 * Does a lock or pin holder other than @self forbid writing @line?  On a
 * line @self pinned, no other can have read it since: only the exact
 * sets are tested, so a read filter's false positive cannot refuse it.
 */
static bool write_denied(const struct ddsm_txh *h,
			 const struct ddsm_txh_entry *self, u64 line)
{
	bool own = pinned(self, line);
	u32 i;

	for (i = 0; i < h->nr; i++) {
		const struct ddsm_txh_entry *x = &h->e[i];

		if (x == self)
			continue;
		if (pinned(x, line))
			return true;
		if (x->state == DDSM_TXH_LOCKED &&
		    (in_ranges(x, line) ||
		     (!own && ddsm_bf_test(&x->rd, line))))
			return true;
	}
	return false;
}

/* Calls @fn on every line of @w[0..@nr) until it returns true. */
static bool any_line(const struct ddsm_tx_range *w, u32 nr,
		     bool (*fn)(const void *ctx, u64 line), const void *ctx)
{
	u32 i;
	u64 line;

	/* Ranges are bounded by ddsm_txh_intend(); the last may be the top. */
	for (i = 0; i < nr; i++)
		for (line = w[i].first; ; line++) {
			if (fn(ctx, line))
				return true;
			if (line == w[i].last)
				break;
		}
	return false;
}

struct probe {
	const struct ddsm_txh *h;
	const struct ddsm_txh_entry *e;
};

static bool probe_lock(const void *ctx, u64 line)
{
	const struct probe *p = ctx;

	return write_denied(p->h, p->e, line);
}

static bool probe_running(const void *ctx, u64 line)
{
	const struct ddsm_txh_entry *y = ctx;

	return ddsm_bf_test(&y->rd, line) || ddsm_bf_test(&y->wr, line);
}

/* Does another transaction keep @self from pinning @line? */
static bool pin_denied(const struct ddsm_txh *h,
		       const struct ddsm_txh_entry *self, u64 line)
{
	u32 i;

	for (i = 0; i < h->nr; i++) {
		const struct ddsm_txh_entry *x = &h->e[i];

		if (x != self && (pinned(x, line) ||
				  (x->state == DDSM_TXH_LOCKED &&
				   (in_ranges(x, line) ||
				    ddsm_bf_test(&x->rd, line)))))
			return true;
	}
	return false;
}

/*
 * The running entry a read (or, @pin, a pin) of [@first, @last] goes to,
 * once no other transaction forbids it any of the lines.
 */
static int reader(struct ddsm_txh *h, u64 txid, u64 first, u64 last,
		  bool pin, struct ddsm_txh_entry **ep)
{
	struct ddsm_txh_entry *e;
	u64 line;

	if (first > last)
		return -EINVAL;
	if (last - first >= DDSM_TXH_MAX_LINES)
		return -E2BIG;
	e = find_or_add(h, txid);
	if (!e)
		return txid ? -ENOSPC : -EINVAL;
	if (e->state == DDSM_TXH_DOOMED)
		return -ESTALE;
	if (e->state != DDSM_TXH_ACTIVE)
		return -EPROTO;	/* no reads once it committed here */
	for (line = first; ; line++) {
		if (pin ? pin_denied(h, e, line) : read_denied(h, e, line)) {
			if (pin)
				h->stats.pins_denied++;
			else
				h->stats.reads_denied++;
			return -EAGAIN;
		}
		if (line == last)
			break;
	}
	*ep = e;
	return 0;
}

int ddsm_txh_read(struct ddsm_txh *h, u64 txid, u64 first, u64 last)
{
	struct ddsm_txh_entry *e;
	int ret = reader(h, txid, first, last, false, &e);

	if (ret)
		return ret;
	ddsm_bf_add_range(&e->rd, first, last);
	h->stats.reads++;
	return 0;
}

/* Widen a pin that touches [@first, @last], or add one. */
static int add_pin(struct ddsm_txh_entry *e, u64 first, u64 last)
{
	u32 i;

	for (i = 0; i < e->nr_pins; i++) {
		struct ddsm_tx_range *p = &e->pins[i];

		if (first <= p->last + 1 && last + 1 >= p->first) {
			if (first < p->first)
				p->first = first;
			if (last > p->last)
				p->last = last;
			return 0;
		}
	}
	if (e->nr_pins == DDSM_TXH_PINS)
		return -E2BIG;
	e->pins[e->nr_pins].first = first;
	e->pins[e->nr_pins].last = last;
	e->nr_pins++;
	return 0;
}

int ddsm_txh_pin(struct ddsm_txh *h, u64 txid, u64 first, u64 last)
{
	struct ddsm_txh_entry *e;
	int ret = reader(h, txid, first, last, true, &e);

	if (ret)
		return ret;
	if (add_pin(e, first, last))
		return -E2BIG;
	ddsm_bf_add_range(&e->rd, first, last);
	h->stats.pins += last - first + 1;
	h->stats.reads++;
	return 0;
}

int ddsm_txh_intend(struct ddsm_txh *h, u64 txid,
		    const struct ddsm_tx_range *w, u32 nr,
		    u64 *doomed, u32 max, u32 *nr_doomed)
{
	struct ddsm_txh_entry *e;
	struct probe p;
	u64 lines = 0;
	u32 i;

	*nr_doomed = 0;
	h->stats.intends++;
	for (i = 0; i < nr; i++) {
		if (w[i].first > w[i].last)
			return -EINVAL;
		if (w[i].last - w[i].first >= DDSM_TXH_MAX_LINES)
			return -E2BIG;
		lines += w[i].last - w[i].first + 1;
	}
	if (lines > DDSM_TXH_MAX_LINES || nr > DDSM_TXH_RANGES) {
		h->stats.intends_nacked++;
		return -E2BIG;
	}
	e = find(h, txid);
	if (e && e->state == DDSM_TXH_LOCKED)
		return 0;	/* sent again: the lock stands */
	if (!e) {
		switch (hist_lookup(h, txid)) {
		case 1:
			return -EALREADY;	/* applied by a verdict */
		case 0:
			h->stats.intends_nacked++;
			return -ESTALE;
		}
	}
	e = find_or_add(h, txid);
	if (!e)
		return txid ? -ENOSPC : -EINVAL;
	if (e->state == DDSM_TXH_DOOMED) {
		h->stats.intends_nacked++;
		return -ESTALE;
	}
	p.h = h;
	p.e = e;
	if (any_line(w, nr, probe_lock, &p)) {
		/* Squashed, never waiting: its abort follows the NACK. */
		h->stats.intends_nacked++;
		e->state = DDSM_TXH_DOOMED;
		return -EBUSY;
	}
	e->state = DDSM_TXH_LOCKED;
	e->nr_ranges = (u8)nr;
	for (i = 0; i < nr; i++) {
		e->ranges[i] = w[i];
		ddsm_bf_add_range(&e->wr, w[i].first, w[i].last);
	}
	/* Running transactions that touched a line it writes lose. */
	for (i = 0; i < h->nr; i++) {
		struct ddsm_txh_entry *y = &h->e[i];

		if (y == e || y->state != DDSM_TXH_ACTIVE ||
		    !any_line(w, nr, probe_running, y))
			continue;
		y->state = DDSM_TXH_DOOMED;
		h->stats.dooms++;
		if (*nr_doomed < max)
			doomed[*nr_doomed] = y->txid;
		++*nr_doomed;
	}
	return 0;
}

int ddsm_txh_validate(struct ddsm_txh *h, u64 txid)
{
	struct ddsm_txh_entry *e = find(h, txid);

	if (!e && hist_lookup(h, txid) == 1)
		return -EALREADY;
	if (!e || e->state != DDSM_TXH_LOCKED)
		return -EPROTO;
	h->stats.validations++;
	hist_note(h, txid, true);
	release(e);
	return 0;
}

int ddsm_txh_abort(struct ddsm_txh *h, u64 txid)
{
	struct ddsm_txh_entry *e = find(h, txid);

	if (!e)
		return -ENOENT;
	h->stats.aborts++;
	hist_note(h, txid, false);
	release(e);
	return 0;
}

int ddsm_txh_decide(struct ddsm_txh *h, u64 txid, bool forward)
{
	struct ddsm_txh_entry *e = find(h, txid);

	if (!e || e->state != DDSM_TXH_LOCKED)
		return -EPROTO;
	if (forward)
		h->stats.validations++;
	else
		h->stats.aborts++;
	hist_note(h, txid, forward);
	release(e);
	return 0;
}

/* Is a newer transaction of @txid's slot here (its coordinator moved on)? */
static bool slot_moved_on(const struct ddsm_txh *h, u64 txid)
{
	u32 i;

	for (i = 0; i < h->nr; i++) {
		struct ddsm_txid a = ddsm_txid_unpack(h->e[i].txid);
		struct ddsm_txid b = ddsm_txid_unpack(txid);

		if (h->e[i].state != DDSM_TXH_FREE && a.node == b.node &&
		    a.gen == b.gen && a.slot == b.slot &&
		    (s32)(a.epoch - b.epoch) > 0)
			return true;
	}
	return false;
}

enum ddsm_txh_outcome ddsm_txh_outcome(struct ddsm_txh *h, u64 txid,
				       bool coord_down)
{
	struct ddsm_txh_entry *e = find(h, txid);
	int r;

	if (e) {
		if (e->state == DDSM_TXH_LOCKED)
			return coord_down ? DDSM_TXH_O_IN_DOUBT :
					    DDSM_TXH_O_LOCKED;
		if (e->state == DDSM_TXH_ACTIVE) {
			e->state = DDSM_TXH_DOOMED;
			h->stats.dooms++;
		}
		return DDSM_TXH_O_NOT;
	}
	if (!txid)
		return DDSM_TXH_O_UNKNOWN;
	r = hist_lookup(h, txid);
	if (r == 1)
		return DDSM_TXH_O_VALIDATED;
	if (!r)
		return DDSM_TXH_O_NOT;
	if (r == -ERANGE)
		return DDSM_TXH_O_UNKNOWN;
	/* Its coordinator sends no more of it once a later one came. */
	if (slot_moved_on(h, txid))
		return DDSM_TXH_O_NOT;
	/*
	 * Its Intend may be on the way, or come again once its coordinator
	 * is back: the tombstone NACKs it.  Nothing else of the slot is
	 * freed here: this is a third party's question, not the slot's news.
	 */
	e = add(h, txid);
	if (!e)
		return DDSM_TXH_O_UNKNOWN;
	e->state = DDSM_TXH_DOOMED;
	return DDSM_TXH_O_NOT;
}
