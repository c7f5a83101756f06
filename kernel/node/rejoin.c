// SPDX-License-Identifier: GPL-2.0
/*
 * A false death costs time, not data.  A peer declared dead may have been
 * alive all along (frozen, starved, cut off for a while): the units it
 * owned are lost at their homes with a note of it, and it keeps its own
 * dirty copies of units homed at the nodes it lost as orphans (DDSM_C_MO,
 * unmapped).  When the two connect again, each hands the other its
 * orphans back (an EVICT_MODIFIED with the data); a home that still waits
 * for one restores the unit, anything else just confirms.  Meanwhile a
 * request for such a unit is told to retry (EAGAIN) within its own bound.
 *
 * The window is bounded, so memory and waiting are too: rejoin_ms after a
 * peer went down, orphans of its units are dropped and units lost with it
 * stay lost (EIO); fault_timeout_ms after it came back, so are those it
 * did not bring back (it restarted, or had dropped them).
 */
#define pr_fmt(fmt) "ddsm: " fmt

#include <linux/jiffies.h>
#include <linux/sched.h>
#include "node.h"

static void rejoin_close(struct work_struct *work)
{
	struct ddsm_rejoin *r = container_of(to_delayed_work(work),
					     struct ddsm_rejoin, work);
	struct ddsm_node *n = r->n;
	u64 unit, dropped = 0, lost_before;
	bool gone;

	/* Unbuilding: a takeover or a send now would race the teardown. */
	if (READ_ONCE(n->rejoin_stopping))
		return;
	/*
	 * Backup homes: the backup takes the units of a node that stayed
	 * away over before the window's end drops its dirty copies of them,
	 * which then belong to it; the others keep theirs a while longer for
	 * the backup's notice, whose own window may close later.
	 */
	if (READ_ONCE(r->open) && n->space.nr_backups &&
	    (READ_ONCE(n->cache.dead) & BIT_ULL(r->node))) {
		if (ddsm_space_backup_of(&n->space, r->node) ==
		    n->space.node_id) {
			ddsm_replica_takeover(n);
		} else if (!r->extended && ddsm_replica_expecting(n, r->node)) {
			r->extended = true;
			mod_delayed_work(system_wq, &r->work,
					 msecs_to_jiffies(ddsm_fault_timeout_ms()));
			return;
		}
	}
	r->extended = false;

	mutex_lock(&n->rx_lock);
	r->open = false;
	gone = n->cache.dead & BIT_ULL(r->node);
	lost_before = n->dir.stats.lost - n->dir.stats.restored;
	for (unit = 0; unit < n->space.nr_units; unit++) {
		u32 home = ddsm_unit_home(&n->space, unit);
		struct mutex *cl = ddsm_cl_lock(n, unit);
		struct ddsm_actions acts;

		if (home == n->space.node_id) {
			ddsm_dir_forget(&n->dir, unit, r->node);
		} else if (gone && home == r->node) {
			ddsm_actions_init(&acts, n->rx_actions,
					  DDSM_MAX_ACTIONS);
			mutex_lock(cl);
			dropped += ddsm_cache_drop_orphan(&n->cache, unit,
							  &acts);
			mutex_unlock(cl);
			ddsm_run_actions(n, &acts, NULL);
		}
		if (!(unit & 1023))
			cond_resched();
	}
	mutex_unlock(&n->rx_lock);
	if (dropped)
		pr_warn("node %u still away after %u ms: dropped %llu dirty copies of its units\n",
			r->node, n->params.rejoin_ms, dropped);
	if (lost_before)
		pr_info("node %u: window to bring lost units back closed (%s), %llu units lost here\n",
			r->node, gone ? "still down" : "back", lost_before);
}

void ddsm_rejoin_init(struct ddsm_node *n)
{
	u32 i;

	for (i = 0; i < DDSM_MAX_NODES; i++) {
		n->rejoin[i].n = n;
		n->rejoin[i].node = i;
		INIT_DELAYED_WORK(&n->rejoin[i].work, rejoin_close);
	}
}

static void cancel_windows(struct ddsm_node *n)
{
	u32 i;

	for (i = 0; i < DDSM_MAX_NODES; i++)
		cancel_delayed_work_sync(&n->rejoin[i].work);
}

/*
 * Before the transport goes: a window that closes now takes nothing over
 * and sends nothing.  A "down" from the teardown may still arm one; it
 * runs as a no-op until ddsm_rejoin_stop() cancels it.
 */
void ddsm_rejoin_quiesce(struct ddsm_node *n)
{
	WRITE_ONCE(n->rejoin_stopping, true);
	cancel_windows(n);
}

/* The state is being torn down; nothing may run on it afterwards. */
void ddsm_rejoin_stop(struct ddsm_node *n)
{
	cancel_windows(n);
	/* The next build's windows close as usual. */
	WRITE_ONCE(n->rejoin_stopping, false);
}

/* @node went down: its window opens (peer_down, any context). */
void ddsm_rejoin_down(struct ddsm_node *n, u32 node)
{
	if (!n->params.rejoin_ms || node >= DDSM_MAX_NODES)
		return;
	WRITE_ONCE(n->rejoin[node].down_at, jiffies);
	n->rejoin[node].extended = false;
	WRITE_ONCE(n->rejoin[node].open, true);
	mod_delayed_work(system_wq, &n->rejoin[node].work,
			 msecs_to_jiffies(n->params.rejoin_ms));
}

/*
 * @node is back (under rx_lock, after ddsm_*_node_up): hand it the
 * orphans of units it homes, and give it fault_timeout_ms to do the same.
 */
void ddsm_rejoin_up(struct ddsm_node *n, u32 node)
{
	u64 unit, sent = 0;

	lockdep_assert_held(&n->rx_lock);
	if (!n->params.rejoin_ms || node >= DDSM_MAX_NODES)
		return;
	for (unit = 0; unit < n->space.nr_units; unit++) {
		struct mutex *cl = ddsm_cl_lock(n, unit);
		struct ddsm_actions acts;

		if (ddsm_unit_home(&n->space, unit) != node)
			continue;
		ddsm_actions_init(&acts, n->rx_actions, DDSM_MAX_ACTIONS);
		mutex_lock(cl);
		sent += ddsm_cache_rejoin(&n->cache, unit, &acts);
		mutex_unlock(cl);
		/* A failed send leaves MI_A; the next "down" orphans it again. */
		ddsm_run_actions(n, &acts, NULL);
		if (!(unit & 1023))
			cond_resched();
	}
	if (sent)
		pr_info("node %u back: returned %llu dirty copies of its units\n",
			node, sent);
	if (n->rejoin[node].open)
		mod_delayed_work(system_wq, &n->rejoin[node].work,
				 msecs_to_jiffies(ddsm_fault_timeout_ms()));
}
