// SPDX-License-Identifier: GPL-2.0
/*
 * Backup homes, the failover (replica.c says the whole): the backup takes
 * its predecessor's units over once the predecessor stayed away, holds
 * them until every live node handed back its dirty copies (FAILOVER,
 * COPIES_DONE), then serves them; every other node routes them to it
 * from then on, and the predecessor never homes them again.
 */
#define pr_fmt(fmt) "ddsm: " fmt

#include <linux/slab.h>
#include <linux/delay.h>
#include <linux/highmem.h>
#include "../node/node.h"
#include "durable.h"
#include "replica.h"
#include "../node/trace.h"
#include "../proto/dir.h"
#include "../selftest/selftest.h"

bool ddsm_replica_gated(struct ddsm_node *n, const struct ddsm_msg *m)
{
	if (!replica_enabled(n) || READ_ONCE(n->replica.home_open))
		return false;
	if (m->type != DDSM_MSG_READ_MISS && m->type != DDSM_MSG_WRITE_MISS &&
	    m->type != DDSM_MSG_WRITE_SHARED)
		return false;
	return ddsm_unit_placed(&n->space, m->unit) == n->space.node_id;
}

/* The predecessor's units, held since the takeover, may be served now. */
static void holding_release(struct ddsm_node *n, const char *why)
{
	struct ddsm_replica *r = &n->replica;
	u32 pred = replica_pred(n);
	u64 idx, homed = ddsm_space_units_homed(&n->space, pred);

	mutex_lock(&n->rx_lock);
	if (!r->holding) {
		mutex_unlock(&n->rx_lock);
		return;
	}
	r->holding = false;
	r->copies_wait = 0;
	for (idx = 0; idx < homed; idx++) {
		ddsm_dir_release_hold(&n->dir,
				      ddsm_space_home_unit(&n->space, pred, idx));
		if (!(idx & 1023))
			cond_resched();
	}
	mutex_unlock(&n->rx_lock);
	wake_up_all(&n->peer_wait);
	pr_info("serving node %u's units (%s)\n", pred, why);
}

void ddsm_replica_holding_timeout(struct work_struct *w)
{
	struct ddsm_replica *r = container_of(to_delayed_work(w),
					      struct ddsm_replica, holding_work);
	struct ddsm_node *n = container_of(r, struct ddsm_node, replica);

	holding_release(n, "handover bound passed");
}

/* @node handed over what it had (or died): maybe serve now. */
void ddsm_replica_copies_done(struct ddsm_node *n, u32 node)
{
	struct ddsm_replica *r = &n->replica;
	bool all;

	mutex_lock(&n->rx_lock);
	r->copies_wait &= ~BIT_ULL(node);
	all = r->holding && !r->copies_wait;
	mutex_unlock(&n->rx_lock);
	if (all) {
		cancel_delayed_work(&r->holding_work);
		holding_release(n, "every live node handed its dirty copies over");
	}
}

void ddsm_replica_notice(struct ddsm_node *n, u32 dst)
{
	u64 mask = READ_ONCE(n->replica.took_over) ? BIT_ULL(replica_pred(n)) : 0;

	replica_send_simple(n, DDSM_MSG_FAILOVER, dst, 0, mask, 0);
}

/*
 * May this node take @pred's units over now?  Under takeover_lock; the
 * decision is recorded on pmem before anything changes (a restart must
 * never give the units back).  0: go on; 1: taken over already; < 0:
 * not (logged where it is news).
 */
static int takeover_may(struct ddsm_node *n, u32 pred)
{
	struct ddsm_replica *r = &n->replica;
	int err;

	if (r->took_over)
		return 1;
	if (replica_peer_up(n, pred))
		return -EAGAIN;
	if (!READ_ONCE(r->pred_synced_down)) {
		pr_err("node %u stayed away, but its replica here was not in sync when it went down: its units are not taken over\n",
		       pred);
		return -ESTALE;
	}
	/* On pmem first: a restart must never give the units back. */
	err = ddsm_persist_mark_takeover(n);
	if (err)
		pr_err("node %u stayed away; recording the takeover failed (%d): its units are not taken over\n",
		       pred, err);
	return err;
}

/*
 * The replica images into home frames first, outside rx_lock (the
 * store's lock comes before it): nothing maps or fills these frames
 * before the failover mask says the units are homed here.  Returns how
 * many images there were.
 */
static u64 load_images(struct ddsm_node *n, u32 pred, u64 own, u64 homed)
{
	u64 idx, loaded = 0;

	for (idx = 0; idx < homed; idx++) {
		struct page *home = ddsm_frame_get_local(n, own + idx);

		if (!home) {
			pr_err("no memory for node %u's unit %llu: it reads as zeros\n",
			       pred, ddsm_space_home_unit(&n->space, pred, idx));
			continue;
		}
		loaded += !ddsm_persist_load_slot(n, own + idx, home);
		if (!(idx & 1023))
			cond_resched();
	}
	return loaded;
}

/*
 * Under rx_lock: each unit's line here becomes I, our own dirty copy (newer
 * than any image) moves into the home frame, marked in @dirty, and the
 * directory entry is held.  Returns how many copies moved.
 */
static u64 move_copies(struct ddsm_node *n, u32 pred, u64 own, u64 homed,
		       unsigned long *dirty)
{
	u64 idx, moved = 0;

	for (idx = 0; idx < homed; idx++) {
		u64 unit = ddsm_space_home_unit(&n->space, pred, idx);
		struct mutex *cl = ddsm_cl_lock(n, unit);
		struct ddsm_cline *l = ddsm_cache_line(&n->cache, unit);
		struct page *home, *copy;

		home = ddsm_frame_get_local(n, own + idx);
		if (!home)
			continue;
		mutex_lock(cl);
		/* Our own dirty copy is newer than any image of it. */
		copy = ddsm_frame_cache_peek(n, unit);
		if (l->state == DDSM_C_MO || l->state == DDSM_C_M ||
		    l->state == DDSM_C_MI_A) {
			if (copy) {
				copy_highpage(home, copy);
				set_bit(idx, dirty);
				moved++;
			}
		}
		if (l->state != DDSM_C_I)
			ddsm_mm_zap(n, unit);
		l->state = DDSM_C_I;
		l->hold = 0;
		ddsm_frame_cache_drop(n, unit);
		ddsm_dir_hold(&n->dir, unit);
		mutex_unlock(cl);
		if (!(idx & 1023))
			cond_resched();
	}
	return moved;
}

/*
 * Tell every live node in @wait, which will hand back its dirty copies;
 * the units are served once all did (or the bound passed).
 */
static void announce(struct ddsm_node *n, u64 wait)
{
	struct ddsm_replica *r = &n->replica;
	u32 i;

	for (i = 0; i < n->space.nr_nodes; i++)
		if (wait & BIT_ULL(i))
			ddsm_replica_notice(n, i);
	wake_up_all(&n->peer_wait);
	if (!wait) {
		holding_release(n, "no other live node");
		return;
	}
	/* Not after quiesce cancelled it: the state may be freed by then. */
	spin_lock(&r->lock);
	if (!r->stopping)
		mod_delayed_work(system_wq, &r->holding_work,
				 msecs_to_jiffies(ddsm_fault_timeout_ms()));
	spin_unlock(&r->lock);
}

/*
 * Take the predecessor's units over.  Returns true if this node serves
 * them (now or already).  Process context, no lock held.
 */
bool ddsm_replica_takeover(struct ddsm_node *n)
{
	struct ddsm_replica *r = &n->replica;
	u32 pred = replica_pred(n), self = n->space.node_id, i;
	u64 idx, own, homed, moved, loaded, wait = 0;
	unsigned long *dirty;
	int may;

	/* Unloading: the peers' deaths are our own leaving. */
	if (!replica_enabled(n) || !n->persist || READ_ONCE(r->stopping))
		return false;
	mutex_lock(&r->takeover_lock);
	may = takeover_may(n, pred);
	if (may) {
		mutex_unlock(&r->takeover_lock);
		return may > 0;
	}
	/*
	 * Every image the predecessor sent is in its slot before we read
	 * them: its death came after all its messages, and the worker may
	 * still be putting the last ones.
	 */
	flush_work(&r->work);
	own = ddsm_space_units_homed(&n->space, self);
	homed = ddsm_space_units_homed(&n->space, pred);
	dirty = bitmap_zalloc(homed, GFP_KERNEL);
	if (!dirty) {
		mutex_unlock(&r->takeover_lock);
		pr_err("node %u stayed away; no memory to take its units over\n",
		       pred);
		return false;
	}
	loaded = load_images(n, pred, own, homed);
	mutex_lock(&n->rx_lock);
	moved = move_copies(n, pred, own, homed, dirty);
	WRITE_ONCE(n->space.failover, n->space.failover | BIT_ULL(pred));
	/* Every moved copy is a write epoch pmem has not seen. */
	for_each_set_bit(idx, dirty, homed)
		ddsm_persist_dirty(n, ddsm_space_home_unit(&n->space, pred,
							   idx));
	for (i = 0; i < n->space.nr_nodes; i++)
		if (i != self && i != pred && replica_peer_up(n, i))
			wait |= BIT_ULL(i);
	r->copies_wait = wait;
	r->holding = true;
	WRITE_ONCE(r->took_over, true);
	mutex_unlock(&n->rx_lock);
	mutex_unlock(&r->takeover_lock);
	bitmap_free(dirty);
	/* Held units are granted to nobody yet: their models go in first. */
	ddsm_persist_models(n);

	atomic64_inc(&r->nr_failovers);
	trace_ddsm_takeover(pred, loaded, moved, wait);
	pr_warn("node %u stayed away: took its units over (%llu images from the replica, %llu dirty copies of ours); no failback\n",
		pred, loaded, moved);
	if (ddsm_test_takeover_delay_ms())
		msleep(ddsm_test_takeover_delay_ms());
	announce(n, wait);
	return true;
}

void ddsm_replica_takeover_work(struct work_struct *w)
{
	struct ddsm_replica *r = container_of(w, struct ddsm_replica, takeover);
	struct ddsm_node *n = container_of(r, struct ddsm_node, replica);

	ddsm_replica_takeover(n);
}

/*
 * @owner (a node's own units) was taken over by its backup @by: route to
 * @by, hand it our dirty copies, and say we are done.
 */
static void apply_failover(struct ddsm_node *n, u32 owner, u32 by)
{
	u64 idx, homed = ddsm_space_units_homed(&n->space, owner), sent = 0;
	u32 self = n->space.node_id;
	bool mine = owner == self;

	mutex_lock(&n->rx_lock);
	if (n->space.failover & BIT_ULL(owner)) {
		mutex_unlock(&n->rx_lock);
		goto done;
	}
	WRITE_ONCE(n->space.failover, n->space.failover | BIT_ULL(owner));
	for (idx = 0; idx < homed; idx++) {
		u64 unit = ddsm_space_home_unit(&n->space, owner, idx);
		struct mutex *cl = ddsm_cl_lock(n, unit);
		struct ddsm_actions acts;

		ddsm_actions_init(&acts, n->rx_actions, DDSM_MAX_ACTIONS);
		mutex_lock(cl);
		if (mine) {
			/*
			 * Our own units, back from a restart or a death we
			 * did not see: nothing here is newer than what the
			 * backup serves; drop every mapping of them.
			 */
			ddsm_mm_zap(n, unit);
			ddsm_cache_line(&n->cache, unit)->state = DDSM_C_I;
			ddsm_cache_line(&n->cache, unit)->hold = 0;
		} else {
			sent += ddsm_cache_rejoin(&n->cache, unit, &acts);
		}
		mutex_unlock(cl);
		ddsm_node_run_actions(n, &acts, NULL);
		if (!(idx & 1023))
			cond_resched();
	}
	mutex_unlock(&n->rx_lock);
	wake_up_all(&n->peer_wait);
	if (mine)
		pr_warn("node %u took this node's units over while it was away: it homes none of them again (no failback)\n",
			by);
	else
		pr_info("node %u took node %u's units over: handed it %llu dirty copies\n",
			by, owner, sent);
done:
	/* Behind the evictions on the same connection. */
	if (!mine)
		replica_send_simple(n, DDSM_MSG_COPIES_DONE, by, 0, 0, 0);
}

void ddsm_replica_notice_rx(struct ddsm_node *n, const struct ddsm_msg *m)
{
	u32 owner = ddsm_space_pred_of(&n->space, m->src);
	bool took = m->copyset & BIT_ULL(owner);

	if (took && owner != m->src)
		apply_failover(n, owner, m->src);
	/* Our backup's word on our own units: serve them, or never again. */
	if (m->src == replica_backup(n) && !READ_ONCE(n->replica.home_open)) {
		if (!took) {
			WRITE_ONCE(n->replica.home_open, true);
			wake_up_all(&n->peer_wait);
		}
	}
}

/*
 * Should a node keep its dirty copies of @node's units past the close of
 * its own window?  Yes while a backup that may still take them over is
 * alive (it decides at the close of its own window, which may come later).
 */
bool ddsm_replica_expecting(struct ddsm_node *n, u32 node)
{
	u32 b;

	if (!replica_enabled(n) || (n->space.failover & BIT_ULL(node)))
		return false;
	b = ddsm_space_backup_of(&n->space, node);
	return b != n->space.node_id && replica_peer_up(n, b);
}
