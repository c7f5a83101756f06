// SPDX-License-Identifier: GPL-2.0
/*
 * Eviction: a cache frame goes back by an explicit EVICT to the unit's
 * home (the protocol decides, kernel/proto/cache.c), its frame freed once
 * home acknowledges.  The fault path makes room this way when cache
 * frames reach cache_frames (CLOCK picks the victims, mm/frames.c), a
 * Scope barrier sends dirty copies home this way, and so does the
 * shrinker under memory pressure.
 */
#include <linux/jiffies.h>
#include <linux/wait.h>
#include "node.h"

/*
 * Start dropping @unit's copy; true if an EVICT went out.  @nowait (the
 * shrinker): give up rather than wait for the line lock.
 */
bool ddsm_evict(struct ddsm_node *n, u64 unit, bool nowait, bool for_room)
{
	struct mutex *cl = ddsm_cl_lock(n, unit);
	struct ddsm_action buf[3];
	struct ddsm_actions acts;
	bool started;

	ddsm_actions_init(&acts, buf, ARRAY_SIZE(buf));
	if (!nowait)
		mutex_lock(cl);
	else if (!mutex_trylock(cl))
		return false;
	started = !ddsm_cache_evict(&n->cache, unit, &acts);
	if (started)
		ddsm_frame_leaving(n, unit);
	else if (ddsm_cache_line(&n->cache, unit)->state == DDSM_C_I)
		ddsm_frame_release(n, unit);	/* a frame left behind */
	mutex_unlock(cl);
	if (started) {
		/* A barrier's evictions are counted as its PERSISTs. */
		if (for_room)
			atomic64_inc(&n->stats.evictions);
		ddsm_run_actions(n, &acts, NULL);
	}
	return started;
}

/*
 * Keep cache frames within the limit: evict by CLOCK until enough are on
 * their way out, then give them a moment to go.  The limit is soft: a
 * fault never waits long for room, so it can never deadlock on it.
 */
void ddsm_make_room(struct ddsm_node *n)
{
	u64 tries, victim;

	for (tries = 0; ddsm_frames_need_room(n) && tries < 64; tries++) {
		if (!ddsm_frames_clock_next(n, &victim))
			break;
		ddsm_evict(n, victim, false, true);
	}
	wait_event_timeout(n->frames.room,
			   atomic64_read(&n->frames.cached) < n->frames.limit,
			   msecs_to_jiffies(100));
}
