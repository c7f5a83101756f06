// SPDX-License-Identifier: GPL-2.0
/*
 * HADES at a home (docs/transactions.md): reads served from the home
 * frame with the read filter insert under the same lock, Intends taken
 * into the partial lock (proto/txhome.c decides) with their writes kept
 * aside, Validation applying them to the frames, Abort dropping them.
 * Run for remote coordinators from the receive path, and called directly
 * by this node's own coordinator (read.c, commit.c) for the lines homed here.
 */
#include <linux/highmem.h>
#include <linux/printk.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include "../node/node.h"
#include "tx.h"
#include "../selftest/selftest.h"
#include "../proto/txbatch.h"
#include "../proto/txpack.h"

static u32 entry_index(struct ddsm_txhome *hm, u64 txid)
{
	const struct ddsm_txh_entry *e = ddsm_txh_find(&hm->h, txid);

	return e ? (u32)(e - hm->entries) : U32_MAX;
}

/* The entry at @idx is done with: its Intend page and its doubt go. */
static void drop_intend(struct ddsm_txhome *hm, u32 idx)
{
	struct ddsm_txs *ts = container_of(hm, struct ddsm_txs, home);

	if (idx >= DDSM_TXH_ENTRIES)
		return;
	hm->doubt[idx].on = false;
	if (hm->intend[idx]) {
		ddsm_stash_put(&ts->stash, hm->intend[idx]);
		hm->intend[idx] = NULL;
	}
}

int ddsm_tx_home_read(struct ddsm_node *n, u64 txid, u64 unit, u32 first,
		      u32 last, struct page *out, u32 out_off, bool pin)
{
	struct ddsm_txhome *hm = &n->tx->home;
	u64 line0 = unit << (DDSM_PROTO_UNIT_SHIFT - DDSM_LINE_SHIFT);
	u64 gaddr = ddsm_unit_gaddr(unit);
	struct page *frame;
	int ret;

	if (!ddsm_tx_region_holds(n, gaddr, DDSM_UNIT_SIZE))
		return -EINVAL;
	frame = ddsm_frame_get(n, unit, GFP_KERNEL);
	if (!frame)
		return -ENOMEM;
	mutex_lock(&hm->lock);
	ret = pin ? ddsm_txh_pin(&hm->h, txid, line0 + first, line0 + last) :
		    -E2BIG;
	if (ret == -E2BIG)	/* no room for the pin: a plain read */
		ret = ddsm_txh_read(&hm->h, txid, line0 + first, line0 + last);
	if (!ret) {
		u8 *src = kmap_local_page(frame);
		u8 *dst = kmap_local_page(out);
		u32 off = first << DDSM_LINE_SHIFT;

		memcpy(dst + out_off, src + off,
		       (last - first + 1) << DDSM_LINE_SHIFT);
		kunmap_local(dst);
		kunmap_local(src);
	}
	mutex_unlock(&hm->lock);
	return ret;
}

/* Every record of a checked payload inside a transactional region? */
static bool in_regions(struct ddsm_node *n, const void *p)
{
	struct ddsm_txp_it it;

	ddsm_txp_first(p, &it);
	while (ddsm_txp_next(p, &it))
		if (!ddsm_tx_region_holds(n, it.gaddr, it.len))
			return false;
	return true;
}

static void squash(struct ddsm_node *n, u64 txid, u64 unit)
{
	u16 node = ddsm_txid_unpack(txid).node;
	struct ddsm_msg m = {
		.type = DDSM_MSG_TX_SQUASH,
		.src = (u16)n->space.node_id,
		.dst = node,
		.requester = node,
		.unit = unit,
		.copyset = txid,
	};

	if (ddsm_test_squash_off())
		return;
	if (node == n->space.node_id)
		ddsm_tx_squash(n, txid);
	else if (node < n->space.nr_nodes)
		ddsm_node_send(n, &m, NULL);
}

int ddsm_tx_home_intend(struct ddsm_node *n, u64 txid, u64 unit,
			struct page *data, u32 data_len)
{
	struct ddsm_txhome *hm = &n->tx->home;
	struct ddsm_tx_range r[DDSM_TXH_RANGES];
	u64 *doomed;
	struct page *keep;
	u32 nr_doomed = 0, i, idx;
	void *p;
	int nr, ret;

	keep = ddsm_stash_get(&n->tx->stash);
	doomed = kmalloc_array(DDSM_TXH_ENTRIES, sizeof(*doomed), GFP_KERNEL);
	if (!keep || !doomed) {
		ret = -ENOMEM;
		goto out;
	}
	memcpy_page(keep, 0, data, 0, data_len);
	p = kmap_local_page(keep);
	ret = ddsm_txp_check(&n->space, p, data_len);
	if (!ret && !in_regions(n, p))
		ret = -EINVAL;
	nr = ret ? ret : ddsm_txp_ranges(p, r, DDSM_TXH_RANGES);
	kunmap_local(p);
	if (nr < 0) {
		ret = nr;
		pr_warn_ratelimited("ddsm: tx %#llx: Intend refused: %d\n",
				    txid, ret);
		/* Forget the transaction here: its coordinator aborts it. */
		goto out;
	}
	mutex_lock(&hm->lock);
	ret = ddsm_txh_intend(&hm->h, txid, r, nr, doomed, DDSM_TXH_ENTRIES,
			      &nr_doomed);
	/* Sent again after a connection went down, and applied meanwhile. */
	if (ret == -EALREADY) {
		atomic64_inc(&n->tx->intends_again);
		ret = 0;
	} else if (!ret) {
		idx = entry_index(hm, txid);
		/* An Intend sent again keeps the first one's page. */
		if (!WARN_ON_ONCE(idx >= DDSM_TXH_ENTRIES) &&
		    !hm->intend[idx]) {
			hm->intend[idx] = keep;
			hm->unit[idx] = unit;
			keep = NULL;
		}
	}
	mutex_unlock(&hm->lock);
	for (i = 0; i < min_t(u32, nr_doomed, DDSM_TXH_ENTRIES); i++)
		squash(n, doomed[i], unit);
out:
	ddsm_stash_put(&n->tx->stash, keep);
	kfree(doomed);
	return ret;
}

static void apply(struct ddsm_node *n, struct page *intend)
{
	const void *p = kmap_local_page(intend);
	struct ddsm_txp_it it;

	ddsm_txp_first(p, &it);
	while (ddsm_txp_next(p, &it)) {
		u64 unit = ddsm_gaddr_unit(it.gaddr);
		struct page *frame = ddsm_frame_get(n, unit, GFP_KERNEL);
		u8 *dst;

		if (!frame) {
			pr_err_ratelimited("ddsm: tx: no frame for unit %llu: write lost\n",
					   unit);
			continue;
		}
		dst = kmap_local_page(frame);
		memcpy(dst + (it.gaddr & (DDSM_UNIT_SIZE - 1)), it.data, it.len);
		kunmap_local(dst);
		ddsm_persist_dirty(n, unit);
	}
	kunmap_local(p);
}

void ddsm_tx_home_validate_many(struct ddsm_node *n, const u64 *txid, u32 nr)
{
	struct ddsm_txhome *hm = &n->tx->home;
	u32 i, idx;

	mutex_lock(&hm->lock);
	for (i = 0; i < nr; i++) {
		int ret;

		idx = entry_index(hm, txid[i]);
		ret = ddsm_txh_validate(&hm->h, txid[i]);
		if (ret == -EALREADY)
			continue;	/* a verdict applied it first */
		if (ret) {
			pr_warn_ratelimited("ddsm: tx %#llx: Validation without the lock\n",
					    txid[i]);
		} else if (idx < DDSM_TXH_ENTRIES) {
			if (hm->intend[idx])
				apply(n, hm->intend[idx]);
			drop_intend(hm, idx);
		}
	}
	mutex_unlock(&hm->lock);
}

void ddsm_tx_home_validate(struct ddsm_node *n, u64 txid)
{
	ddsm_tx_home_validate_many(n, &txid, 1);
}

void ddsm_tx_home_abort(struct ddsm_node *n, u64 txid)
{
	struct ddsm_txhome *hm = &n->tx->home;

	mutex_lock(&hm->lock);
	drop_intend(hm, entry_index(hm, txid));
	ddsm_txh_abort(&hm->h, txid);
	mutex_unlock(&hm->lock);
}

static u64 participants(struct page *intend)
{
	const void *p = kmap_local_page(intend);
	u64 set = ddsm_txp_participants(p);

	kunmap_local(p);
	return set;
}

/* Hold the commit at @idx in doubt (txfate.h); home->lock held. */
static void hold_in_doubt(struct ddsm_node *n, struct ddsm_txhome *hm,
			  u32 idx)
{
	struct ddsm_txheld *d = &hm->doubt[idx];
	u64 txid = hm->entries[idx].txid;

	if (d->on || !hm->intend[idx])
		return;
	d->on = true;
	d->parts = participants(hm->intend[idx]);
	d->since = jiffies;
	d->logged = jiffies;
	ddsm_txd_start(&d->d, d->parts, n->space.node_id,
		       ddsm_txid_unpack(txid).node);
	atomic64_inc(&n->tx->home_in_doubt);
}

/*
 * Decide the commits held in doubt that can be decided, and gather the
 * queries the others still need; home->lock held.  Returns how many
 * queries were gathered.
 */
static u32 settle_doubts(struct ddsm_node *n, struct ddsm_txhome *hm)
{
	unsigned long every = msecs_to_jiffies(ddsm_fault_timeout_ms());
	u32 i, nq = 0;

	for (i = 0; i < hm->h.nr; i++) {
		struct ddsm_txheld *d = &hm->doubt[i];
		u64 txid = hm->entries[i].txid;
		enum ddsm_txh_verdict v;
		bool forward;

		if (!d->on)
			continue;
		v = ddsm_txd_verdict(&d->d);
		if (v == DDSM_TXH_V_WAIT) {
			if (time_after(jiffies, d->logged + every)) {
				d->logged = jiffies;
				pr_warn("ddsm: tx %#llx held in doubt for %u s: no answer yet from nodes %#llx\n",
					txid, jiffies_to_msecs(jiffies - d->since) / 1000,
					ddsm_txd_to_ask(&d->d));
			}
			hm->queries[nq].txid = txid;
			hm->queries[nq].unit = hm->unit[i];
			hm->queries[nq].ask = ddsm_txd_to_ask(&d->d);
			hm->queries[nq].parts = d->parts;
			nq++;
			continue;
		}
		forward = v == DDSM_TXH_V_FORWARD;
		if (ddsm_txh_decide(&hm->h, txid, forward)) {
			WARN_ON_ONCE(1);
			d->on = false;
			continue;
		}
		if (forward && hm->intend[i])
			apply(n, hm->intend[i]);
		atomic64_inc(forward ? &n->tx->home_rollforwards :
				       &n->tx->home_rollbacks);
		pr_info("ddsm: tx %#llx held in doubt %u ms: rolled %s\n",
			txid, jiffies_to_msecs(jiffies - d->since),
			forward ? "forward" : "back");
		drop_intend(hm, i);
	}
	return nq;
}

static void doubt_work(struct work_struct *w)
{
	struct ddsm_txhome *hm = container_of(to_delayed_work(w),
					      struct ddsm_txhome, doubt_work);
	struct ddsm_node *n = hm->node;
	u32 i, nq, p;

	mutex_lock(&hm->lock);
	nq = settle_doubts(n, hm);
	mutex_unlock(&hm->lock);
	/* hm->queries is this work's own: it never runs twice at once. */
	for (i = 0; i < nq; i++) {
		for (p = 0; p < n->space.nr_nodes; p++) {
			struct ddsm_msg m = {
				.type = DDSM_MSG_TX_QUERY,
				.src = (u16)n->space.node_id,
				.dst = (u16)p,
				.requester = (u16)n->space.node_id,
				.unit = hm->queries[i].unit,
				.copyset = hm->queries[i].txid,
				/* Its part is asked of a participant only. */
				.acks = !!(hm->queries[i].parts & BIT_ULL(p)),
			};

			/* One that cannot be reached now is asked next time. */
			if (hm->queries[i].ask & BIT_ULL(p))
				ddsm_node_send(n, &m, NULL);
		}
	}
	mutex_lock(&hm->lock);
	if (nq && !hm->quiet)
		schedule_delayed_work(&hm->doubt_work, msecs_to_jiffies(100));
	mutex_unlock(&hm->lock);
}

/*
 * A peer went down.  Its running transactions and tombstones are
 * forgotten (it aborts what still runs; the history refuses an Intend of
 * one of them sent again).  A commit of it locked here is held in doubt
 * and settled with its node and the other participants (txfate.h): it
 * may have been applied elsewhere, it may be the decision already, or it
 * may never be, and only they can tell.
 */
void ddsm_tx_home_peer_down(struct ddsm_node *n, u32 node)
{
	struct ddsm_txhome *hm = &n->tx->home;
	bool doubts = false;
	u32 i;

	mutex_lock(&hm->lock);
	hm->down |= BIT_ULL(node);
	for (i = 0; i < hm->h.nr; i++) {
		struct ddsm_txh_entry *e = &hm->entries[i];

		if (e->state == DDSM_TXH_FREE ||
		    ddsm_txid_unpack(e->txid).node != node)
			continue;
		if (e->state == DDSM_TXH_LOCKED && hm->intend[i]) {
			hold_in_doubt(n, hm, i);
			doubts = true;
			continue;
		}
		/* Locked, no Intend page (the WARN in ddsm_tx_home_intend). */
		if (WARN_ON_ONCE(e->state == DDSM_TXH_LOCKED))
			continue;
		drop_intend(hm, i);
		ddsm_txh_abort(&hm->h, e->txid);
	}
	if (doubts && !hm->quiet)
		mod_delayed_work(system_wq, &hm->doubt_work, 0);
	mutex_unlock(&hm->lock);
}

void ddsm_tx_home_doubt_own(struct ddsm_node *n, u64 txid)
{
	struct ddsm_txhome *hm = &n->tx->home;
	u32 idx;

	mutex_lock(&hm->lock);
	idx = entry_index(hm, txid);
	if (idx < DDSM_TXH_ENTRIES &&
	    hm->entries[idx].state == DDSM_TXH_LOCKED) {
		hold_in_doubt(n, hm, idx);
		if (!hm->quiet)
			mod_delayed_work(system_wq, &hm->doubt_work, 0);
	}
	mutex_unlock(&hm->lock);
}

void ddsm_tx_home_peer_up(struct ddsm_node *n, u32 node)
{
	struct ddsm_txhome *hm = &n->tx->home;

	mutex_lock(&hm->lock);
	hm->down &= ~BIT_ULL(node);
	/* Those held in doubt ask the one that came back at once. */
	if (!hm->quiet)
		mod_delayed_work(system_wq, &hm->doubt_work, 0);
	mutex_unlock(&hm->lock);
}

/*
 * A participant holding a commit in doubt asks what became of it here:
 * this home's part if it is asked as a participant, and this node's
 * decision if it coordinated it.
 */
static void serve_query(struct ddsm_node *n, const struct ddsm_msg *q)
{
	struct ddsm_txhome *hm = &n->tx->home;
	u16 coord = ddsm_txid_unpack(q->copyset).node;
	u8 home = DDSM_TXH_O_NONE;
	struct ddsm_msg m = {
		.type = DDSM_MSG_TX_OUTCOME,
		.src = (u16)n->space.node_id,
		.dst = q->src,
		.requester = q->src,
		.unit = q->unit,
		.copyset = q->copyset,
	};

	if (q->acks) {
		mutex_lock(&hm->lock);
		home = ddsm_txh_outcome(&hm->h, q->copyset,
					hm->down & BIT_ULL(coord));
		mutex_unlock(&hm->lock);
	}
	m.acks = ddsm_txf_pack(home, coord == n->space.node_id ?
				     ddsm_tx_coord_answer(n, q->copyset) :
				     DDSM_TXF_C_NONE);
	ddsm_node_send(n, &m, NULL);
}

/* An answer about a commit held in doubt here. */
static void take_outcome(struct ddsm_node *n, const struct ddsm_msg *m)
{
	struct ddsm_txhome *hm = &n->tx->home;
	struct ddsm_txheld *d;
	bool decided = false;
	u32 idx;

	mutex_lock(&hm->lock);
	idx = entry_index(hm, m->copyset);
	d = idx < DDSM_TXH_ENTRIES ? &hm->doubt[idx] : NULL;
	if (d && d->on)
		decided = ddsm_txd_take(&d->d, m->src, m->acks & 0xff,
					m->acks >> 8) != DDSM_TXH_V_WAIT;
	if (decided && !hm->quiet)
		mod_delayed_work(system_wq, &hm->doubt_work, 0);
	mutex_unlock(&hm->lock);
}

/*
 * @len bytes of @data from @off go with the answer: a read's lines (a
 * TX_READ_REPLY names them as the read did), or a batch's answer.
 */
static void answer(struct ddsm_node *n, const struct ddsm_msg *req, u8 type,
		   int err, struct page *data, u32 off, u32 len)
{
	struct ddsm_msg m = {
		.type = type,
		.flags = data ? DDSM_MF_DATA : 0,
		.err = (u8)-err,
		.src = (u16)n->space.node_id,
		.dst = req->src,
		.requester = req->src,
		.acks = data && type == DDSM_MSG_TX_READ_REPLY ? req->acks : 0,
		.seq = req->seq,
		.unit = req->unit,
		.copyset = req->copyset,
	};

	ddsm_node_send_part(n, &m, data, off, len);
}

/* A TX_READ: its lines, at their place in @out, are what travels. */
static void serve_read(struct ddsm_node *n, const struct ddsm_msg *m)
{
	u32 first = m->acks & 0xff, last = m->acks >> 8;
	u32 off = first << DDSM_LINE_SHIFT;
	struct page *out = ddsm_stash_get(&n->tx->stash);
	int ret;

	ret = out ? ddsm_tx_home_read(n, m->copyset, m->unit, first, last, out,
				     off, m->flags & DDSM_MF_PIN) :
		    -ENOMEM;
	answer(n, m, DDSM_MSG_TX_READ_REPLY, ret, ret ? NULL : out, off,
	       (last - first + 1) << DDSM_LINE_SHIFT);
	ddsm_stash_put(&n->tx->stash, out);
}

/*
 * READV's reads at this home in one request: each served as a TX_READ,
 * in order, their lines packed one after the other in one answer.
 */
static void serve_read_many(struct ddsm_node *n, const struct ddsm_msg *m,
			    struct page *data, u32 data_len)
{
	struct ddsm_txb_read r[DDSM_TXB_MAX];
	struct page *out = ddsm_stash_get(&n->tx->stash);
	u64 val[DDSM_TXB_MAX_VAL];
	u32 i, used = ddsm_txb_ans_len(0);
	int nr, nval, err[DDSM_TXB_MAX];
	void *p;

	if (!out) {
		answer(n, m, DDSM_MSG_TX_READ_MANY_REPLY, -ENOMEM, NULL, 0, 0);
		return;
	}
	p = kmap_local_page(data);
	nr = ddsm_txb_req_check(&n->space, p, data_len);
	for (i = 0; nr > 0 && i < nr; i++)
		ddsm_txb_req_entry(p, i, &r[i]);
	nval = ddsm_txb_req_nval(p, data_len);
	for (i = 0; nval > 0 && i < nval; i++)
		val[i] = ddsm_txb_req_val(p, i);
	kunmap_local(p);
	/*
	 * Validations that rode along first, as if they had come alone: only
	 * the sender's own transactions (a standalone TX_VALIDATE is checked
	 * so by msg.c), or any peer could release another's lock.
	 */
	used = nval > 0 ? ddsm_txb_own_vals(val, nval, m->src) : 0;
	if (nval > 0 && used < nval) {
		atomic64_add(nval - used, &n->tx->validations_refused);
		pr_warn_ratelimited("ddsm: node %u sent %u Validations of other coordinators' transactions: refused\n",
				    m->src, nval - used);
	}
	if (used)
		ddsm_tx_home_validate_many(n, val, used);
	used = ddsm_txb_ans_len(0);
	if (nr < 0) {
		pr_warn_ratelimited("ddsm: tx %#llx: malformed TX_READ_MANY from node %u\n",
				    m->copyset, m->src);
		answer(n, m, DDSM_MSG_TX_READ_MANY_REPLY, -EINVAL, NULL, 0, 0);
		ddsm_stash_put(&n->tx->stash, out);
		return;
	}
	for (i = 0; i < nr; i++) {
		err[i] = ddsm_tx_home_read(n, m->copyset, r[i].unit,
					   r[i].first, r[i].last, out, used,
					   false);
		if (!err[i])
			used += (r[i].last - r[i].first + 1) << DDSM_LINE_SHIFT;
	}
	p = kmap_local_page(out);
	ddsm_txb_ans_init(p, nr);
	for (i = 0; i < nr; i++)
		ddsm_txb_ans_set(p, i, err[i]);
	kunmap_local(p);
	answer(n, m, DDSM_MSG_TX_READ_MANY_REPLY, 0, out, 0, used);
	ddsm_stash_put(&n->tx->stash, out);
}

void ddsm_tx_home_rx(struct ddsm_node *n, const struct ddsm_msg *m,
		     struct page *data, u32 data_len)
{
	int ret;

	switch (m->type) {
	case DDSM_MSG_TX_READ:
		serve_read(n, m);
		break;
	case DDSM_MSG_TX_READ_MANY:
		serve_read_many(n, m, data, data_len);
		break;
	case DDSM_MSG_TX_INTEND:
		ret = ddsm_tx_home_intend(n, m->copyset, m->unit, data,
					  data_len);
		answer(n, m, ret ? DDSM_MSG_TX_NACK : DDSM_MSG_TX_ACK, ret,
		       NULL, 0, 0);
		break;
	case DDSM_MSG_TX_VALIDATE:
		ddsm_tx_home_validate(n, m->copyset);
		break;
	case DDSM_MSG_TX_ABORT:
		ddsm_tx_home_abort(n, m->copyset);
		break;
	case DDSM_MSG_TX_QUERY:
		serve_query(n, m);
		break;
	case DDSM_MSG_TX_OUTCOME:
		take_outcome(n, m);
		break;
	}
}

static void free_home(struct ddsm_txhome *hm)
{
	vfree(hm->entries);
	vfree(hm->hist);
	kfree(hm->intend);
	kfree(hm->unit);
	kfree(hm->doubt);
	kfree(hm->queries);
}

int ddsm_tx_home_init(struct ddsm_node *n, struct ddsm_txs *t)
{
	t->home.entries = vzalloc(array_size(DDSM_TXH_ENTRIES,
					     sizeof(*t->home.entries)));
	t->home.intend = kcalloc(DDSM_TXH_ENTRIES, sizeof(*t->home.intend),
				 GFP_KERNEL);
	t->home.unit = kcalloc(DDSM_TXH_ENTRIES, sizeof(*t->home.unit),
			       GFP_KERNEL);
	t->home.doubt = kcalloc(DDSM_TXH_ENTRIES, sizeof(*t->home.doubt),
				GFP_KERNEL);
	t->home.queries = kcalloc(DDSM_TXH_ENTRIES, sizeof(*t->home.queries),
				  GFP_KERNEL);
	t->home.hist = vzalloc(array3_size(DDSM_MAX_NODES, DDSM_TX_SLOTS,
					   sizeof(*t->home.hist)));
	if (!t->home.entries || !t->home.intend || !t->home.unit ||
	    !t->home.doubt || !t->home.queries || !t->home.hist) {
		free_home(&t->home);
		return -ENOMEM;
	}
	ddsm_txh_init(&t->home.h, t->home.entries, DDSM_TXH_ENTRIES);
	t->home.quiet = true;
	ddsm_txh_set_hist(&t->home.h, t->home.hist, DDSM_MAX_NODES,
			  DDSM_TX_SLOTS);
	INIT_DELAYED_WORK(&t->home.doubt_work, doubt_work);
	t->home.node = n;
	mutex_init(&t->home.lock);
	return 0;
}

/* The work is stopped first (ddsm_tx_home_quiesce()). */
void ddsm_tx_home_free(struct ddsm_txs *t)
{
	u32 i;

	cancel_delayed_work_sync(&t->home.doubt_work);
	for (i = 0; i < DDSM_TXH_ENTRIES; i++)
		drop_intend(&t->home, i);
	free_home(&t->home);
}

void ddsm_tx_home_quiesce(struct ddsm_node *n, bool quiet)
{
	mutex_lock(&n->tx->home.lock);
	n->tx->home.quiet = quiet;
	mutex_unlock(&n->tx->home.lock);
	if (quiet)
		cancel_delayed_work_sync(&n->tx->home.doubt_work);
}
