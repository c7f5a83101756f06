// SPDX-License-Identifier: GPL-2.0
/*
 * Held lines (see kernel/proto/cache.h, "Forward progress"): a miss that
 * completes keeps home locked until the access that waited for it has
 * run, so the receive path cannot hand the unit on before the woken
 * thread gets the CPU.  The fault path releases the hold when it maps the
 * unit.  An access that never comes back (its task was killed between the
 * wake-up and the retry, or gave up) would keep home locked for good, so
 * every hold is also recorded here and released by a timer after
 * DDSM_HOLD_MS: a bound on what one absent thread can cost the others.
 * A migratory copy read is held on for its write (ddsm_hold_for_write),
 * for DDSM_WRITE_HOLD_MS at most: a reader that does not write costs the
 * next node that long, once, and the unit stops being migratory.
 */
#define pr_fmt(fmt) "ddsm: " fmt
#include <linux/jiffies.h>
#include <linux/printk.h>
#include "node.h"

static void release_now(struct ddsm_node *n, u64 unit, u32 seq, bool expired)
{
	struct mutex *cl = ddsm_cl_lock(n, unit);
	struct ddsm_cline *l = ddsm_cache_line(&n->cache, unit);
	struct ddsm_action buf[1];
	struct ddsm_actions acts;
	bool sent = false;

	ddsm_actions_init(&acts, buf, ARRAY_SIZE(buf));
	mutex_lock(cl);
	if (l->hold && l->seq == seq)
		sent = ddsm_cache_release(&n->cache, unit, &acts);
	mutex_unlock(cl);
	if (sent && expired)
		atomic64_inc(&n->stats.hold_expired);
	ddsm_run_actions(n, &acts, NULL);
}

static void hold_expire(struct work_struct *work)
{
	struct ddsm_holds *h = container_of(to_delayed_work(work),
					    struct ddsm_holds, work);
	struct ddsm_node *n = container_of(h, struct ddsm_node, holds);
	unsigned long next = msecs_to_jiffies(DDSM_HOLD_MS) / 4 + 1;
	u32 i, left = 0;

	for (i = 0; i < DDSM_HOLD_SLOTS; i++) {
		unsigned long end;
		bool expired;
		u64 unit;
		u32 seq;

		spin_lock(&h->lock);
		end = h->slot[i].since + h->slot[i].bound;
		if (!h->slot[i].used || time_before(jiffies, end)) {
			if (h->slot[i].used) {
				left++;
				next = min(next, end - jiffies);
			}
			spin_unlock(&h->lock);
			continue;
		}
		unit = h->slot[i].unit;
		seq = h->slot[i].seq;
		/* A read that was not followed by a write is no failure. */
		expired = !h->slot[i].for_write;
		h->slot[i].used = 0;
		h->nr--;
		spin_unlock(&h->lock);
		release_now(n, unit, seq, expired);
	}
	spin_lock(&h->lock);
	if (left && !h->stopping)
		schedule_delayed_work(&h->work, next);
	spin_unlock(&h->lock);
}

void ddsm_hold_start(struct ddsm_node *n, u64 unit)
{
	struct ddsm_holds *h = &n->holds;
	u32 seq = READ_ONCE(ddsm_cache_line(&n->cache, unit)->seq);
	u32 i;

	spin_lock(&h->lock);
	for (i = 0; i < DDSM_HOLD_SLOTS && !h->stopping; i++) {
		if (h->slot[i].used)
			continue;
		h->slot[i].used = 1;
		h->slot[i].unit = unit;
		h->slot[i].seq = seq;
		h->slot[i].since = jiffies;
		h->slot[i].bound = msecs_to_jiffies(DDSM_HOLD_MS);
		h->slot[i].for_write = 0;
		if (!h->nr++)
			schedule_delayed_work(&h->work,
					      msecs_to_jiffies(DDSM_HOLD_MS) / 4 + 1);
		spin_unlock(&h->lock);
		return;
	}
	spin_unlock(&h->lock);
	/* No slot (or no timer) to bound it with: do without the hold. */
	atomic64_inc(&n->stats.hold_skipped);
	release_now(n, unit, seq, false);
}

/* Under @unit's cache-line lock: the access ran, home may move on. */
void ddsm_hold_done(struct ddsm_node *n, u64 unit, struct ddsm_actions *acts)
{
	struct ddsm_holds *h = &n->holds;
	u32 i;

	if (!ddsm_cache_release(&n->cache, unit, acts))
		return;
	spin_lock(&h->lock);
	for (i = 0; i < DDSM_HOLD_SLOTS; i++) {
		if (h->slot[i].used && h->slot[i].unit == unit) {
			h->slot[i].used = 0;
			h->nr--;
			break;
		}
	}
	spin_unlock(&h->lock);
}

/*
 * Under @unit's cache-line lock, after a read of a migratory copy
 * (ddsm_cache_hold_until_write): keep home waiting for the write, within
 * DDSM_WRITE_HOLD_MS.  Without a slot to bound that, release now.
 */
void ddsm_hold_for_write(struct ddsm_node *n, u64 unit,
			 struct ddsm_actions *acts)
{
	struct ddsm_holds *h = &n->holds;
	u32 i;

	spin_lock(&h->lock);
	for (i = 0; i < DDSM_HOLD_SLOTS && !h->stopping; i++) {
		if (!h->slot[i].used || h->slot[i].unit != unit)
			continue;
		if (!h->slot[i].for_write) {
			h->slot[i].for_write = 1;
			h->slot[i].since = jiffies;
			h->slot[i].bound = msecs_to_jiffies(DDSM_WRITE_HOLD_MS);
			mod_delayed_work(system_wq, &h->work,
					 h->slot[i].bound);
		}
		spin_unlock(&h->lock);
		return;
	}
	spin_unlock(&h->lock);
	ddsm_hold_done(n, unit, acts);
}

void ddsm_holds_init(struct ddsm_node *n)
{
	spin_lock_init(&n->holds.lock);
	INIT_DELAYED_WORK(&n->holds.work, hold_expire);
}

void ddsm_holds_quiesce(struct ddsm_node *n)
{
	spin_lock(&n->holds.lock);
	n->holds.stopping = true;
	spin_unlock(&n->holds.lock);
	cancel_delayed_work_sync(&n->holds.work);
}

/*
 * The state is being torn down, the transport gone: forget every hold,
 * nobody waits for them.  The next build arms the timer again.
 */
void ddsm_holds_stop(struct ddsm_node *n)
{
	cancel_delayed_work_sync(&n->holds.work);
	spin_lock(&n->holds.lock);
	memset(n->holds.slot, 0, sizeof(n->holds.slot));
	n->holds.nr = 0;
	n->holds.stopping = false;
	spin_unlock(&n->holds.lock);
}
