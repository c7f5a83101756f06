// SPDX-License-Identifier: GPL-2.0
/*
 * The fault path: a load or store on a /dev/ddsm mapping that has no
 * suitable PTE.  The protocol decides (kernel/proto/cache.c); this file
 * sends what it asks for, waits with a bound, and installs the PTE under
 * the cache-line lock so that a concurrent invalidation either is seen
 * here or zaps what was installed.
 *
 * Concurrent faults on one unit coalesce: the first one starts the event,
 * the others find the line busy and wait for the same WAKE.  A task killed
 * while waiting leaves nothing behind: the receive path, not the task,
 * finishes the event and releases home's lock.
 *
 * A first fault attempt that has to wait for the network does so without
 * mmap_lock and returns VM_FAULT_RETRY, so munmap, mmap, ps and the
 * process's other threads are not held up by a slow peer; the retry maps
 * what the event brought.  If the first wait ran out, the retry fails the
 * fault at once rather than waiting a second time.  pfn_mkwrite (an
 * upgrade) cannot be retried and waits with the lock, within the bound;
 * it makes the PTE writable itself, under the line lock.
 */
#include <linux/sched/signal.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/printk.h>
#include "node.h"
#include "trace.h"

/*
 * Has the event we waited for ended (or been replaced)?  A load may also
 * go ahead while an upgrade is in flight: the old copy is still valid.
 */
static bool event_over(struct ddsm_node *n, u64 unit, u32 seq, bool write)
{
	struct ddsm_cline *l = ddsm_cache_line(&n->cache, unit);
	u8 state = READ_ONCE(l->state);

	return READ_ONCE(l->seq) != seq || ddsm_cstate_stable(state) ||
	       (!write && state == DDSM_C_SM_AD);
}

static void count_start(struct ddsm_node *n, const struct ddsm_actions *acts)
{
	if (!acts->n)
		return;
	/* The request is last: a held line's UNLOCK may precede it. */
	switch (acts->a[acts->n - 1].msg.type) {
	case DDSM_MSG_READ_MISS:
		atomic64_inc(&n->stats.faults_read);
		break;
	case DDSM_MSG_WRITE_MISS:
		atomic64_inc(&n->stats.faults_write);
		break;
	case DDSM_MSG_WRITE_SHARED:
		atomic64_inc(&n->stats.upgrades);
		break;
	}
}

/* After the event: did it fail, and should we give up? */
static int event_error(struct ddsm_node *n, u64 unit, u32 seq)
{
	struct ddsm_cline *l = ddsm_cache_line(&n->cache, unit);
	struct mutex *cl = ddsm_cl_lock(n, unit);
	int err = 0;

	mutex_lock(cl);
	if (l->seq == seq && ddsm_cstate_stable(l->state))
		err = l->err;
	mutex_unlock(cl);
	return err;
}

static vm_fault_t fault_done(struct ddsm_node *n, u64 unit, bool write,
			     bool mkwrite, bool waited, vm_fault_t ret)
{
	if (ret & (VM_FAULT_SIGBUS | VM_FAULT_OOM))
		atomic64_inc(&n->stats.fault_errors);
	trace_ddsm_fault(unit, write, mkwrite, waited, ret);
	return ret;
}

/* May this attempt wait without mmap_lock, and return VM_FAULT_RETRY? */
static bool may_drop_lock(struct vm_fault *vmf, bool mkwrite)
{
	if (mkwrite || !fault_flag_allow_retry_first(vmf->flags) ||
	    (vmf->flags & FAULT_FLAG_RETRY_NOWAIT))
		return false;
#ifdef DDSM_HAVE_FAULT_FLAG_VMA_LOCK
	if (vmf->flags & FAULT_FLAG_VMA_LOCK)
		return false;
#endif
	return true;
}

/*
 * Until when a fault on a unit homed by @home waits for it to connect (0:
 * no wait).  A home configured but not connected yet waits within the
 * fault's @deadline.  A home that went down after it was up (rejoin.c)
 * gets peer_timeout_ms from then to come back, as a false death often
 * does; after that, and for a home declared dead without rejoin, the fault
 * goes on and fails at once.
 */
static unsigned long home_wait_until(struct ddsm_node *n, u64 unit,
				     unsigned long deadline)
{
	u32 home = ddsm_unit_home(&n->space, unit);
	enum ddsm_peer_state st = ddsm_transport_peer_state(n->tp, home);
	struct ddsm_rejoin *r = &n->rejoin[home];
	enum ddsm_peer_state bst;
	unsigned long end;

	if (st == DDSM_PEER_UP || st == DDSM_PEER_SELF)
		return 0;
	/*
	 * A home with a live backup that has not taken over yet: the backup
	 * will serve the unit once the home's window closes, so wait for the
	 * whole bound (the home is looked up again when woken).
	 */
	if (n->space.nr_backups &&
	    home == ddsm_unit_placed(&n->space, unit)) {
		u32 b = ddsm_space_backup_of(&n->space, home);

		bst = ddsm_transport_peer_state(n->tp, b);
		if (bst == DDSM_PEER_UP || bst == DDSM_PEER_SELF)
			return deadline;
	}
	if (READ_ONCE(r->open)) {
		end = READ_ONCE(r->down_at) +
		      msecs_to_jiffies(n->params.peer_timeout_ms);
		if (!time_before(jiffies, end))
			return 0;
		return time_before(end, deadline) ? end : deadline;
	}
	return st == DDSM_PEER_DOWN || st == DDSM_PEER_CONNECTING ? deadline : 0;
}

/*
 * Backup homes: may @unit's backup still take it over (its home is not
 * taken over yet and the backup is alive)?  Then an access whose event
 * failed because the home went away asks again once the backup serves
 * the unit, within its bound, instead of failing.
 */
static bool failover_may_come(struct ddsm_node *n, u64 unit)
{
	u32 placed = ddsm_unit_placed(&n->space, unit), b;
	enum ddsm_peer_state st;

	if (!n->space.nr_backups ||
	    (ddsm_space_failover(&n->space) & BIT_ULL(placed)))
		return false;
	b = ddsm_space_backup_of(&n->space, placed);
	st = ddsm_transport_peer_state(n->tp, b);
	return st == DDSM_PEER_UP || st == DDSM_PEER_SELF;
}

static int wait_for_home(struct ddsm_node *n, struct vm_fault *vmf, u64 unit,
			 unsigned long deadline, unsigned int timeout_ms,
			 bool drop)
{
	u32 home = ddsm_unit_home(&n->space, unit);
	unsigned long until;
	long left;

	if (home == n->space.node_id)
		return 0;
	until = home_wait_until(n, unit, deadline);
	if (!until)
		return 0;
	atomic64_inc(&n->stats.home_waits);
	if (drop)
		mmap_read_unlock(vmf->vma->vm_mm);
	left = (long)until - (long)jiffies;
	if (left > 0)
		left = wait_event_killable_timeout(n->peer_wait,
						   !home_wait_until(n, unit, deadline),
						   left);
	if (left == -ERESTARTSYS)
		atomic64_inc(&n->stats.fault_kills);
	if (drop)
		return -EAGAIN;		/* retry, whatever happened */
	if (left == -ERESTARTSYS)
		return -EINTR;
	/* Still away at the fault's own bound (not just past a grace). */
	if (left <= 0 && home_wait_until(n, unit, deadline) &&
	    !time_before(jiffies, deadline)) {
		atomic64_inc(&n->stats.fault_timeouts);
		pr_warn_ratelimited("ddsm: fault on unit %llu: home node %u not connected within %u ms\n",
				    unit, home, timeout_ms);
		return -ETIMEDOUT;
	}
	return 0;
}

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
static void make_room(struct ddsm_node *n)
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

vm_fault_t ddsm_access(struct ddsm_node *n, struct vm_fault *vmf, u64 unit,
		       bool write, bool mkwrite)
{
	unsigned int timeout_ms = ddsm_fault_timeout_ms();
	unsigned long deadline = jiffies + msecs_to_jiffies(timeout_ms);
	struct mutex *cl = ddsm_cl_lock(n, unit);
	bool drop = may_drop_lock(vmf, mkwrite);
	struct ddsm_stuck *stuck = &n->cl_stuck[ddsm_cl_hash(unit)];
	struct ddsm_action buf[2];
	struct ddsm_actions acts;
	bool waited = false;
	struct page *frame;
	vm_fault_t ret;

	trace_ddsm_fault_begin(unit, write, mkwrite);
	if (!ddsm_unit_valid(&n->space, unit))
		return fault_done(n, unit, write, mkwrite, false,
				  VM_FAULT_SIGBUS);
	if (!ddsm_frame_peek(n, unit) && ddsm_frames_need_room(n))
		make_room(n);

	for (;;) {
		enum ddsm_fault_result res;
		long left;
		u32 seq;
		int err;

		switch (wait_for_home(n, vmf, unit, deadline, timeout_ms, drop)) {
		case 0:
			break;
		case -EAGAIN:
			return fault_done(n, unit, write, mkwrite, true,
					  VM_FAULT_RETRY);
		default:
			return fault_done(n, unit, write, mkwrite, waited,
					  VM_FAULT_SIGBUS);
		}
		ddsm_actions_init(&acts, buf, ARRAY_SIZE(buf));
		mutex_lock(cl);
		/*
		 * The frame must exist before data can arrive into it, and is
		 * taken under the lock that keeps an eviction from freeing it.
		 */
		frame = ddsm_frame_get(n, unit, GFP_KERNEL);
		if (!frame) {
			mutex_unlock(cl);
			return fault_done(n, unit, write, mkwrite, waited,
					  VM_FAULT_OOM);
		}
		ddsm_frame_touch(n, unit);
		res = ddsm_cache_fault(&n->cache, unit, write, &acts);
		if (res != DDSM_FAULT_WAIT) {
			bool rw = res == DDSM_FAULT_MAP_RW;

			/*
			 * A home frame kept on pmem is writable only for a
			 * store, which marks it for the flusher (persist.c);
			 * a load maps it read-only.
			 */
			if (rw && !write && ddsm_persist_tracks(n, unit))
				rw = false;
			/* A read-only result never answers a store. */
			if (WARN_ON_ONCE(write && !rw))
				ret = VM_FAULT_SIGBUS;
			else if (mkwrite)
				ret = ddsm_mm_mkwrite(vmf, frame);
			else
				ret = ddsm_mm_map(vmf, frame, rw);
			if (rw)
				ddsm_persist_dirty(n, unit);
			/* Let the access run before a forwarded request (rx.c). */
			if (ddsm_cache_line(&n->cache, unit)->hold)
				atomic64_set(&n->cl_granted_ns[ddsm_cl_hash(unit)],
					     ktime_get_ns());
			/* The access has its PTE: home may serve the next one. */
			if (!write &&
			    ddsm_cache_hold_until_write(&n->cache, unit))
				ddsm_hold_for_write(n, unit, &acts);
			else
				ddsm_hold_done(n, unit, &acts);
			mutex_unlock(cl);
			ddsm_run_actions(n, &acts, NULL);
			if (!waited)
				atomic64_inc(&n->stats.remaps);
			return fault_done(n, unit, write, mkwrite, waited, ret);
		}
		seq = ddsm_cache_line(&n->cache, unit)->seq;
		mutex_unlock(cl);
		/* The first attempt already waited the whole bound for it. */
		if (!drop && !acts.n && READ_ONCE(stuck->seq) == seq &&
		    READ_ONCE(stuck->unit) == unit &&
		    !event_over(n, unit, seq, write)) {
			atomic64_inc(&n->stats.fault_timeouts);
			return fault_done(n, unit, write, mkwrite, waited,
					  VM_FAULT_SIGBUS);
		}

		count_start(n, &acts);
		waited = true;
		if (ddsm_run_actions(n, &acts, NULL)) {
			/* The home is unreachable: fail the event, not just this fault. */
			ddsm_actions_init(&acts, buf, ARRAY_SIZE(buf));
			mutex_lock(cl);
			ddsm_cache_home_lost(&n->cache, unit, EHOSTDOWN, &acts);
			mutex_unlock(cl);
			ddsm_run_actions(n, &acts, NULL);
			/* Its backup will serve it: wait for that (above). */
			if (failover_may_come(n, unit) &&
			    time_before(jiffies, deadline)) {
				atomic64_inc(&n->stats.lost_retries);
				if (drop)
					mmap_read_unlock(vmf->vma->vm_mm);
				schedule_timeout_killable(msecs_to_jiffies(DDSM_LOST_RETRY_MS));
				if (drop || fatal_signal_pending(current))
					return fault_done(n, unit, write, mkwrite,
							  waited, drop ?
							  VM_FAULT_RETRY :
							  VM_FAULT_SIGBUS);
				continue;
			}
			return fault_done(n, unit, write, mkwrite, waited,
					  VM_FAULT_SIGBUS);
		}

		if (drop)
			mmap_read_unlock(vmf->vma->vm_mm);
		left = (long)deadline - (long)jiffies;
		if (left <= 0)
			left = 0;
		else
			left = wait_event_killable_timeout(*ddsm_cl_wait(n, unit),
							   event_over(n, unit, seq, write),
							   left);
		if (left == -ERESTARTSYS)
			atomic64_inc(&n->stats.fault_kills);
		if (drop) {
			if (!left && !event_over(n, unit, seq, write)) {
				WRITE_ONCE(stuck->unit, unit);
				WRITE_ONCE(stuck->seq, seq);
			}
			return fault_done(n, unit, write, mkwrite, waited,
					  VM_FAULT_RETRY);
		}
		if (left == -ERESTARTSYS) {
			/* Dying task: the receive path finishes the event. */
			return fault_done(n, unit, write, mkwrite, waited,
					  VM_FAULT_SIGBUS);
		}
		if (!left && !event_over(n, unit, seq, write)) {
			atomic64_inc(&n->stats.fault_timeouts);
			pr_warn_ratelimited("ddsm: fault on unit %llu timed out after %u ms\n",
					    unit, timeout_ms);
			return fault_done(n, unit, write, mkwrite, waited,
					  VM_FAULT_SIGBUS);
		}
		err = event_error(n, unit, seq);
		/* The home died under the event, and its backup will serve. */
		if (err == EHOSTDOWN && failover_may_come(n, unit))
			err = EAGAIN;
		if (err == EAGAIN && time_before(jiffies, deadline)) {
			/*
			 * Lost with a node declared dead that may come back
			 * with it (rejoin.c): ask again, within the bound.
			 */
			atomic64_inc(&n->stats.lost_retries);
			schedule_timeout_killable(msecs_to_jiffies(DDSM_LOST_RETRY_MS));
			if (fatal_signal_pending(current))
				return fault_done(n, unit, write, mkwrite,
						  waited, VM_FAULT_SIGBUS);
			continue;
		}
		if (err && err != EBUSY) {
			pr_warn_ratelimited("ddsm: fault on unit %llu failed: %d\n",
					    unit, -err);
			return fault_done(n, unit, write, mkwrite, waited,
					  VM_FAULT_SIGBUS);
		}
		if (time_after(jiffies, deadline)) {
			atomic64_inc(&n->stats.fault_timeouts);
			return fault_done(n, unit, write, mkwrite, waited,
					  VM_FAULT_SIGBUS);
		}
	}
}
