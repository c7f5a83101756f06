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

static struct ddsm_txh_entry *find_or_add(struct ddsm_txh *h, u64 txid)
{
	struct ddsm_txh_entry *e = find(h, txid);
	u32 i;

	if (e || !txid)
		return e;
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

static void release(struct ddsm_txh_entry *e)
{
	e->state = DDSM_TXH_FREE;
	e->txid = 0;
}

static bool in_ranges(const struct ddsm_txh_entry *e, u64 line)
{
	u32 i;

	for (i = 0; i < e->nr_ranges; i++)
		if (line >= e->ranges[i].first && line <= e->ranges[i].last)
			return true;
	return false;
}

/* Does a lock holder other than @self forbid reading @line? */
static bool read_denied(const struct ddsm_txh *h,
			const struct ddsm_txh_entry *self, u64 line)
{
	u32 i;

	for (i = 0; i < h->nr; i++) {
		const struct ddsm_txh_entry *x = &h->e[i];

		if (x != self && x->state == DDSM_TXH_LOCKED &&
		    in_ranges(x, line))
			return true;
	}
	return false;
}

/* Does a lock holder other than @self forbid writing @line? */
static bool write_denied(const struct ddsm_txh *h,
			 const struct ddsm_txh_entry *self, u64 line)
{
	u32 i;

	for (i = 0; i < h->nr; i++) {
		const struct ddsm_txh_entry *x = &h->e[i];

		if (x != self && x->state == DDSM_TXH_LOCKED &&
		    (in_ranges(x, line) || ddsm_bf_test(&x->rd, line)))
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

int ddsm_txh_read(struct ddsm_txh *h, u64 txid, u64 first, u64 last)
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
		if (read_denied(h, e, line)) {
			h->stats.reads_denied++;
			return -EAGAIN;
		}
		if (line == last)
			break;
	}
	ddsm_bf_add_range(&e->rd, first, last);
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
	e = find_or_add(h, txid);
	if (!e)
		return txid ? -ENOSPC : -EINVAL;
	if (e->state == DDSM_TXH_LOCKED)
		return -EPROTO;
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

	if (!e || e->state != DDSM_TXH_LOCKED)
		return -EPROTO;
	h->stats.validations++;
	release(e);
	return 0;
}

int ddsm_txh_abort(struct ddsm_txh *h, u64 txid)
{
	struct ddsm_txh_entry *e = find(h, txid);

	if (!e)
		return -ENOENT;
	h->stats.aborts++;
	release(e);
	return 0;
}
