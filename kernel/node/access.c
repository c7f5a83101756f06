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
 * A fault attempt that has to wait for the network does so without
 * mmap_lock and returns VM_FAULT_RETRY, so munmap, mmap, ps and the
 * process's other threads are not held up by a slow peer; the retry maps
 * what the event brought.  That holds for an upgrade (pfn_mkwrite, which
 * returns VM_FAULT_RETRY | VM_FAULT_NOPAGE: mm/fault.c) and for a retry
 * that has to wait again, as long as the fault may be retried at all.
 * The bound is kept across attempts.  A retried attempt's bound runs from
 * when the fault's first attempt started to wait (cl_stuck's wait_since,
 * kept per unit until a fault maps it), so a fault whose events keep
 * ending early (home busy, a unit lost for now, a home that comes and
 * goes) fails at fault_timeout_ms like one that waits for a single event.
 * An event, or a home, that one attempt waited the whole bound for, and
 * an event that failed for good, are noted (cl_stuck): the next attempt
 * fails the fault at once, since the attempt that learnt it had already
 * given up mmap_lock and could only ask for a retry.
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

/* May this attempt wait without mmap_lock, and return VM_FAULT_RETRY? */
static bool may_drop_lock(struct vm_fault *vmf)
{
	if (!(vmf->flags & FAULT_FLAG_ALLOW_RETRY) ||
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

/*
 * A fault's first attempt is about to wait (under the line lock): its
 * retries' bound runs from now.
 */
static void wait_arm(struct ddsm_node *n, struct vm_fault *vmf, u64 unit)
{
	struct ddsm_stuck *stuck = &n->cl_stuck[ddsm_cl_hash(unit)];

	if (vmf->flags & FAULT_FLAG_TRIED)
		return;
	stuck->wait_unit = unit + 1;
	stuck->wait_since = jiffies;
}

/* A fault mapped @unit (under the line lock): nobody waits for it now. */
static void wait_disarm(struct ddsm_node *n, u64 unit)
{
	struct ddsm_stuck *stuck = &n->cl_stuck[ddsm_cl_hash(unit)];

	if (stuck->wait_unit == unit + 1)
		stuck->wait_unit = 0;
}

/* The fault's bound: from now, or from its first attempt's wait. */
static unsigned long access_deadline(struct ddsm_node *n,
				     struct vm_fault *vmf, u64 unit,
				     unsigned int timeout_ms)
{
	struct ddsm_stuck *stuck = &n->cl_stuck[ddsm_cl_hash(unit)];
	unsigned long end = jiffies + msecs_to_jiffies(timeout_ms), first;
	struct mutex *cl = ddsm_cl_lock(n, unit);

	if (!(vmf->flags & FAULT_FLAG_TRIED))
		return end;
	mutex_lock(cl);
	first = stuck->wait_unit == unit + 1 ?
		stuck->wait_since + msecs_to_jiffies(timeout_ms) : end;
	mutex_unlock(cl);
	return time_before(first, end) ? first : end;
}

static int wait_for_home(struct ddsm_node *n, struct vm_fault *vmf, u64 unit,
			 unsigned long deadline, unsigned int timeout_ms,
			 bool drop)
{
	struct ddsm_stuck *stuck = &n->cl_stuck[ddsm_cl_hash(unit)];
	u32 home = ddsm_unit_home(&n->space, unit);
	unsigned long until;
	long left;

	if (home == n->space.node_id)
		return 0;
	until = home_wait_until(n, unit, deadline);
	if (!until)
		return 0;
	/* An earlier attempt of a retried fault waited the whole bound. */
	if ((vmf->flags & FAULT_FLAG_TRIED) &&
	    READ_ONCE(stuck->unit) == unit &&
	    READ_ONCE(stuck->seq) == DDSM_STUCK_HOME) {
		atomic64_inc(&n->stats.fault_timeouts);
		pr_warn_ratelimited("ddsm: fault on unit %llu: home node %u not connected within %u ms\n",
				    unit, home, timeout_ms);
		return -ETIMEDOUT;
	}
	atomic64_inc(&n->stats.home_waits);
	mutex_lock(ddsm_cl_lock(n, unit));
	wait_arm(n, vmf, unit);
	mutex_unlock(ddsm_cl_lock(n, unit));
	if (drop)
		mmap_read_unlock(vmf->vma->vm_mm);
	left = (long)until - (long)jiffies;
	if (left > 0)
		left = wait_event_killable_timeout(n->peer_wait,
						   !home_wait_until(n, unit, deadline),
						   left);
	if (left == -ERESTARTSYS)
		atomic64_inc(&n->stats.fault_kills);
	if (drop) {
		if (left <= 0 && left != -ERESTARTSYS &&
		    home_wait_until(n, unit, deadline) &&
		    !time_before(jiffies, deadline)) {
			WRITE_ONCE(stuck->unit, unit);
			WRITE_ONCE(stuck->seq, DDSM_STUCK_HOME);
		}
		return -EAGAIN;		/* retry, whatever happened */
	}
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
 * One fault on its way through the protocol: what it asked for, its
 * bound, and what it learnt so far.  ddsm_access() takes it through the
 * steps below, as ttm_bo_vm.c takes a fault through reserve, fault and
 * unlock: each step either ends the fault (true, *@ret set) or lets it
 * go on.
 */
struct access {
	struct ddsm_node *n;
	struct vm_fault *vmf;
	u64 unit;
	bool write;
	bool mkwrite;
	bool drop;		/* may wait without mmap_lock (may_drop_lock) */
	bool waited;		/* an event was started or waited for */
	unsigned int timeout_ms;
	unsigned long deadline;	/* jiffies */
	u32 seq;		/* the event waited for */
	struct ddsm_action buf[2];
	struct ddsm_actions acts;
};

/*
 * The protocol said yes: install the PTE, under the line lock, and let
 * home serve the next request once the access can run.  Ends the fault.
 */
static vm_fault_t access_map(struct access *a, struct page *frame,
			     enum ddsm_fault_result res)
{
	struct ddsm_node *n = a->n;
	u64 unit = a->unit;
	bool rw = res == DDSM_FAULT_MAP_RW;
	vm_fault_t ret;

	/*
	 * A home frame kept on pmem is writable only for a store, which
	 * marks it for the flusher (persist.c); a load maps it read-only.
	 */
	if (rw && !a->write && ddsm_persist_tracks(n, unit))
		rw = false;
	/* A read-only result never answers a store. */
	if (WARN_ON_ONCE(a->write && !rw))
		ret = VM_FAULT_SIGBUS;
	else if (a->mkwrite)
		ret = ddsm_mm_mkwrite(a->vmf, frame);
	else
		ret = ddsm_mm_map(a->vmf, frame, rw);
	if (rw)
		ddsm_persist_dirty(n, unit);
	wait_disarm(n, unit);
	/* Let the access run before a forwarded request (rx.c). */
	if (ddsm_cache_line(&n->cache, unit)->hold)
		atomic64_set(&n->cl_granted_ns[ddsm_cl_hash(unit)],
			     ktime_get_ns());
	/* The access has its PTE: home may serve the next one. */
	if (!a->write && ddsm_cache_hold_until_write(&n->cache, unit))
		ddsm_hold_for_write(n, unit, &a->acts);
	else
		ddsm_hold_done(n, unit, &a->acts);
	return ret;
}

/*
 * Ask the protocol under the line lock: map at once (ends the fault), or
 * an event to start or join, whose number goes to a->seq.
 */
static bool access_try(struct access *a, vm_fault_t *ret)
{
	struct ddsm_node *n = a->n;
	struct mutex *cl = ddsm_cl_lock(n, a->unit);
	enum ddsm_fault_result res;
	struct page *frame;

	ddsm_actions_init(&a->acts, a->buf, ARRAY_SIZE(a->buf));
	mutex_lock(cl);
	/*
	 * The frame must exist before data can arrive into it, and is
	 * taken under the lock that keeps an eviction from freeing it.
	 */
	frame = ddsm_frame_get(n, a->unit, GFP_KERNEL);
	if (!frame) {
		mutex_unlock(cl);
		*ret = VM_FAULT_OOM;
		return true;
	}
	ddsm_frame_touch(n, a->unit);
	res = ddsm_cache_fault(&n->cache, a->unit, a->write, &a->acts);
	if (res != DDSM_FAULT_WAIT) {
		*ret = access_map(a, frame, res);
		mutex_unlock(cl);
		ddsm_run_actions(n, &a->acts, NULL);
		if (!a->waited)
			atomic64_inc(&n->stats.remaps);
		return true;
	}
	a->seq = ddsm_cache_line(&n->cache, a->unit)->seq;
	wait_arm(n, a->vmf, a->unit);
	mutex_unlock(cl);
	return false;
}

/* An earlier attempt of this retried fault saw its event fail for good. */
static bool access_failed(struct access *a, vm_fault_t *ret)
{
	struct ddsm_stuck *stuck = &a->n->cl_stuck[ddsm_cl_hash(a->unit)];
	struct mutex *cl = ddsm_cl_lock(a->n, a->unit);
	bool failed;

	if (!(a->vmf->flags & FAULT_FLAG_TRIED))
		return false;
	mutex_lock(cl);
	failed = stuck->unit == a->unit && stuck->seq == DDSM_STUCK_FAILED;
	if (failed)
		stuck->seq = 0;
	mutex_unlock(cl);
	if (failed)
		*ret = VM_FAULT_SIGBUS;
	return failed;
}

/* The first attempt already waited the whole bound for this event. */
static bool access_stuck(struct access *a, vm_fault_t *ret)
{
	struct ddsm_stuck *stuck = &a->n->cl_stuck[ddsm_cl_hash(a->unit)];

	if (a->acts.n || READ_ONCE(stuck->seq) != a->seq ||
	    READ_ONCE(stuck->unit) != a->unit ||
	    event_over(a->n, a->unit, a->seq, a->write))
		return false;
	atomic64_inc(&a->n->stats.fault_timeouts);
	*ret = VM_FAULT_SIGBUS;
	return true;
}

/* What a step tells ddsm_access(): go on, the fault is over, start over. */
enum access_next {
	ACCESS_ON,
	ACCESS_DONE,
	ACCESS_AGAIN,
};

/*
 * Send what the protocol asked for.  If the home is unreachable, the
 * event fails (not just this fault); the fault starts over if the unit's
 * backup will serve it, within its bound.
 */
static enum access_next access_start(struct access *a, vm_fault_t *ret)
{
	struct ddsm_node *n = a->n;
	struct mutex *cl = ddsm_cl_lock(n, a->unit);

	count_start(n, &a->acts);
	a->waited = true;
	if (!ddsm_run_actions(n, &a->acts, NULL))
		return ACCESS_ON;
	ddsm_actions_init(&a->acts, a->buf, ARRAY_SIZE(a->buf));
	mutex_lock(cl);
	ddsm_cache_home_lost(&n->cache, a->unit, EHOSTDOWN, &a->acts);
	mutex_unlock(cl);
	ddsm_run_actions(n, &a->acts, NULL);
	*ret = VM_FAULT_SIGBUS;
	/* Its backup will serve it: wait for that (wait_for_home()). */
	if (!failover_may_come(n, a->unit) ||
	    !time_before(jiffies, a->deadline))
		return ACCESS_DONE;
	atomic64_inc(&n->stats.lost_retries);
	if (a->drop)
		mmap_read_unlock(a->vmf->vma->vm_mm);
	schedule_timeout_killable(msecs_to_jiffies(DDSM_LOST_RETRY_MS));
	if (a->drop) {
		*ret = VM_FAULT_RETRY;
		return ACCESS_DONE;
	}
	return fatal_signal_pending(current) ? ACCESS_DONE : ACCESS_AGAIN;
}

/*
 * What a retry must know of an event waited for without mmap_lock: that
 * it is stuck or failed for good (the retry fails at once), or that the
 * unit is lost for now (ask again, after a pause, within the bound).
 * Anything else, the retry maps or asks again; after a home was lost it
 * first waits for the home within its rejoin window (wait_for_home()).
 */
static void access_dropped_end(struct access *a, bool out_of_time)
{
	struct ddsm_node *n = a->n;
	struct ddsm_stuck *stuck = &n->cl_stuck[ddsm_cl_hash(a->unit)];
	struct mutex *cl = ddsm_cl_lock(n, a->unit);
	u32 mark = 0;
	int err;

	if (out_of_time && !event_over(n, a->unit, a->seq, a->write)) {
		mark = a->seq;
	} else {
		err = event_error(n, a->unit, a->seq);
		if (err == EHOSTDOWN && failover_may_come(n, a->unit))
			err = EAGAIN;
		if (err && !time_before(jiffies, a->deadline)) {
			atomic64_inc(&n->stats.fault_timeouts);
			pr_warn_ratelimited("ddsm: fault on unit %llu timed out after %u ms\n",
					    a->unit, a->timeout_ms);
			mark = DDSM_STUCK_FAILED;
		} else if (err == EAGAIN) {
			atomic64_inc(&n->stats.lost_retries);
			schedule_timeout_killable(msecs_to_jiffies(DDSM_LOST_RETRY_MS));
		} else if (err && err != EBUSY && err != EHOSTDOWN) {
			/* EHOSTDOWN: the retry waits for the home (rejoin.c). */
			pr_warn_ratelimited("ddsm: fault on unit %llu failed: %d\n",
					    a->unit, -err);
			mark = DDSM_STUCK_FAILED;
		}
	}
	if (!mark)
		return;
	mutex_lock(cl);
	stuck->unit = a->unit;
	stuck->seq = mark;
	mutex_unlock(cl);
}

/*
 * Wait for the event, within the fault's bound.  A first attempt that
 * may drop mmap_lock waits without it and always ends in a retry; one
 * that ran out notes the event, so that the retry fails at once.
 */
static bool access_wait(struct access *a, vm_fault_t *ret)
{
	struct ddsm_node *n = a->n;
	long left;

	if (a->drop)
		mmap_read_unlock(a->vmf->vma->vm_mm);
	left = (long)a->deadline - (long)jiffies;
	if (left <= 0)
		left = 0;
	else
		left = wait_event_killable_timeout(*ddsm_cl_wait(n, a->unit),
						   event_over(n, a->unit, a->seq,
							      a->write),
						   left);
	if (left == -ERESTARTSYS)
		atomic64_inc(&n->stats.fault_kills);
	if (a->drop) {
		*ret = VM_FAULT_RETRY;
		if (left != -ERESTARTSYS)
			access_dropped_end(a, !left);
		return true;
	}
	*ret = VM_FAULT_SIGBUS;
	/* Dying task: the receive path finishes the event. */
	if (left == -ERESTARTSYS)
		return true;
	if (!left && !event_over(n, a->unit, a->seq, a->write)) {
		atomic64_inc(&n->stats.fault_timeouts);
		pr_warn_ratelimited("ddsm: fault on unit %llu timed out after %u ms\n",
				    a->unit, a->timeout_ms);
		return true;
	}
	return false;
}

/*
 * The event is over: start over (its failure was EBUSY, or the unit may
 * come back within the bound), or fail the fault.
 */
static bool access_retry(struct access *a, vm_fault_t *ret)
{
	struct ddsm_node *n = a->n;
	int err = event_error(n, a->unit, a->seq);

	*ret = VM_FAULT_SIGBUS;
	/* The home died under the event, and its backup will serve. */
	if (err == EHOSTDOWN && failover_may_come(n, a->unit))
		err = EAGAIN;
	if (err == EAGAIN && time_before(jiffies, a->deadline)) {
		/*
		 * Lost with a node declared dead that may come back
		 * with it (rejoin.c): ask again, within the bound.
		 */
		atomic64_inc(&n->stats.lost_retries);
		schedule_timeout_killable(msecs_to_jiffies(DDSM_LOST_RETRY_MS));
		return fatal_signal_pending(current);
	}
	if (err && err != EBUSY) {
		pr_warn_ratelimited("ddsm: fault on unit %llu failed: %d\n",
				    a->unit, -err);
		return true;
	}
	if (time_after(jiffies, a->deadline)) {
		atomic64_inc(&n->stats.fault_timeouts);
		return true;
	}
	return false;
}

/* Home reachable, or the wait for it ended the fault. */
static bool access_home(struct access *a, vm_fault_t *ret)
{
	switch (wait_for_home(a->n, a->vmf, a->unit, a->deadline,
			      a->timeout_ms, a->drop)) {
	case 0:
		return false;
	case -EAGAIN:
		a->waited = true;
		*ret = VM_FAULT_RETRY;
		return true;
	default:
		*ret = VM_FAULT_SIGBUS;
		return true;
	}
}

vm_fault_t ddsm_access(struct ddsm_node *n, struct vm_fault *vmf, u64 unit,
		       bool write, bool mkwrite)
{
	struct access a = {
		.n = n, .vmf = vmf, .unit = unit,
		.write = write, .mkwrite = mkwrite,
		.drop = may_drop_lock(vmf),
		.timeout_ms = ddsm_fault_timeout_ms(),
	};
	vm_fault_t ret = VM_FAULT_SIGBUS;

	a.deadline = access_deadline(n, vmf, unit, a.timeout_ms);
	trace_ddsm_fault_begin(unit, write, mkwrite);
	if (ddsm_unit_valid(&n->space, unit)) {
		if (!ddsm_frame_peek(n, unit) && ddsm_frames_need_room(n))
			ddsm_make_room(n);
		for (;;) {
			enum access_next next;

			if (access_failed(&a, &ret) || access_home(&a, &ret) ||
			    access_try(&a, &ret) || access_stuck(&a, &ret))
				break;
			next = access_start(&a, &ret);
			if (next == ACCESS_DONE)
				break;
			if (next == ACCESS_AGAIN)
				continue;
			if (access_wait(&a, &ret) || access_retry(&a, &ret))
				break;
		}
	}
	if (ret & (VM_FAULT_SIGBUS | VM_FAULT_OOM))
		atomic64_inc(&n->stats.fault_errors);
	trace_ddsm_fault(unit, write, mkwrite, a.waited, ret);
	return ret;
}
