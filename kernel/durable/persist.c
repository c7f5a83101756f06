// SPDX-License-Identifier: GPL-2.0
/*
 * The home's units on pmem (issue 12): with pmem=, every unit homed here
 * is kept durable on a pmem namespace besides its DRAM frame, which stays
 * the working copy that faults map and messages fill.
 *
 * When an image is taken: a home frame changes in two ways only, by a
 * STORE (a writeback or a dirty eviction, under the line lock) and by this
 * node's own stores while it holds the unit writable.  Both mark the unit
 * dirty.  The flusher (and DDSM_IOC_PERSIST, fsync, unload) copies a dirty
 * frame under its line lock after removing this node's PTEs when they may
 * be writable, so the copy is one moment's image: no store runs while it
 * is taken, and the next store faults and marks the unit dirty again.
 * The copies are then made durable in batches through the redo log
 * (pmem/store.c), outside every protocol lock.  Mounting and recovery
 * are recovery.c's.
 *
 * Lock order: p->lock -> rx_lock, p->lock -> cl_lock.  Nothing that
 * holds a line lock or rx_lock waits for p->lock: marking a unit dirty is
 * a bit and a work item.
 */
#define pr_fmt(fmt) "ddsm: " fmt

#include <linux/slab.h>
#include <linux/highmem.h>
#include "../node/node.h"
#include "durable.h"
#include "persist.h"
#include "../selftest/selftest.h"
#include "../pmem/store.h"
#include "../pmem/shadow.h"

/* The uapi names the on-media model values. */
static_assert((int)DDSM_MODEL_SCOPE == (int)DDSM_PM_SCOPE);
static_assert((int)DDSM_MODEL_READ_ENF == (int)DDSM_PM_READ_ENF);
static_assert((int)DDSM_MODEL_SYNC == (int)DDSM_PM_SYNC);
static_assert((int)DDSM_MODEL_STRICT == (int)DDSM_PM_STRICT);

/*
 * Slots are the local arrays' indices: the units placed here, then with
 * nr_backups the predecessor's (the replica area), whether taken over or
 * not.
 */
u64 ddsm_persist_unit_of(void *ctx, u64 slot)
{
	struct ddsm_node *n = ctx;

	return ddsm_space_local_unit(&n->space, slot);
}

/* The model of the region holding @unit; the caller holds p->lock. */
u32 ddsm_persist_model_of(const struct ddsm_persist *p, u64 unit)
{
	u64 gaddr = ddsm_unit_gaddr(unit);
	u32 i;

	for (i = 0; i < DDSM_PM_REGIONS; i++) {
		const struct ddsm_pm_region *r = &p->regions[i];

		if (r->len && gaddr >= r->start && gaddr - r->start < r->len)
			return r->model;
	}
	return p->default_model;
}

/* What a model asks of the directory (kernel/proto/dir.h). */
static u8 dir_flags_of(u32 model)
{
	switch (model) {
	case DDSM_PM_SYNC:
	case DDSM_PM_READ_ENF:
		return DDSM_DIR_P_WB | DDSM_DIR_P_GATE;
	case DDSM_PM_STRICT:
		return DDSM_DIR_P_WB;
	default:
		return 0;
	}
}

/*
 * Tell the directory each homed unit's model.  Regions are set before
 * their units are first touched, so no event is running on a unit whose
 * flags change; rx_lock orders the change with the receive path all the
 * same.  The caller holds p->lock.
 */
void ddsm_persist_apply_models(struct ddsm_persist *p)
{
	struct ddsm_node *n = p->n;
	u64 idx;

	for (idx = 0; idx < p->nr_home; idx++) {
		u64 unit = ddsm_persist_unit_of(n, idx);
		u8 flags = dir_flags_of(ddsm_persist_model_of(p, unit));

		mutex_lock(&n->rx_lock);
		ddsm_dir_set_persist(&n->dir, unit, flags);
		mutex_unlock(&n->rx_lock);
		if (!(idx & 1023))
			cond_resched();
	}
}

/* The local index of @unit if it is homed here now, else U64_MAX. */
u64 ddsm_persist_homed(struct ddsm_node *n, u64 unit)
{
	if (!ddsm_unit_valid(&n->space, unit) ||
	    ddsm_unit_home(&n->space, unit) != n->space.node_id)
		return U64_MAX;
	return ddsm_unit_local_index(&n->space, unit);
}

/*
 * Copy @unit's frame into @buf as one moment's image; false if there is no
 * frame (nothing was ever written: the unit reads as zeros).  The dirty
 * bit is cleared under the line lock, so a store after the copy marks the
 * unit again.
 */
static bool take_image(struct ddsm_persist *p, u64 idx, u64 unit, void *buf)
{
	struct ddsm_node *n = p->n;
	struct mutex *cl = ddsm_cl_lock(n, unit);
	struct page *frame;
	u8 state;

	mutex_lock(cl);
	clear_bit(idx, p->dirty);
	frame = ddsm_frame_peek(n, unit);
	if (frame) {
		state = READ_ONCE(ddsm_cache_line(&n->cache, unit)->state);
		/* Only S and I copies are never mapped writable here. */
		if (state != DDSM_C_S && state != DDSM_C_I)
			ddsm_mm_zap(n, unit);
		memcpy_from_page(buf, frame, 0, PAGE_SIZE);
	}
	mutex_unlock(cl);
	return frame;
}

/*
 * Take @unit's image into slot @k of the batch in p->bounce; 1 if there
 * was one, 0 if the unit has no frame (nothing to persist).
 */
static u32 batch_add(struct ddsm_persist *p, u64 idx, u64 unit, u64 *units,
		     u64 *idxs, u32 k)
{
	if (!take_image(p, idx, unit, p->bounce + (size_t)k * PAGE_SIZE))
		return 0;
	units[k] = unit;
	idxs[k] = idx;
	return 1;
}

/*
 * An armed crash of the persist-domain checker fired inside the store:
 * from that fence on nothing reached the media, so what the store just
 * did is not durable, and nothing will be.  The caller holds p->lock.
 */
static bool power_failed(struct ddsm_persist *p)
{
	if (p->crashed)
		return true;
	if (!p->shadow || !p->shadow->crashed)
		return false;
	p->crashed = true;
	pr_warn("pmem %s: simulated power failure at fence %llu (armed): %llu unfenced pieces dropped, %llu kept (%u%%); nothing more reaches the media\n",
		p->dev.name, p->shadow->crash_fence, p->shadow->last_dropped,
		p->shadow->kept, p->arm_rng.pct);
	return true;
}

/*
 * Make the @k images in p->bounce durable; on failure their units are
 * dirty again.  The caller holds p->lock.
 */
static int commit_batch(struct ddsm_persist *p, const u64 *units,
			const u64 *idxs, u32 k)
{
	const void *data[DDSM_PSTORE_BATCH_MAX];
	u64 ts[DDSM_PSTORE_BATCH_MAX];
	u32 i;
	int err;

	for (i = 0; i < k; i++)
		data[i] = p->bounce + (size_t)i * PAGE_SIZE;
	err = ddsm_test_pmem_fail() ? -EIO :
	      ddsm_pstore_persist(&p->ps, units, data, k, ts);
	if (!err && power_failed(p))
		err = -EIO;
	/*
	 * The persist set is home + backup: each image goes to the backup
	 * as it was made durable here, under p->lock, so the images of a
	 * unit leave in timestamp order.  Those of units taken over from
	 * the predecessor have no backup (docs/persistency.md).
	 */
	for (i = 0; !err && i < k; i++)
		if (ddsm_unit_placed(&p->n->space, units[i]) ==
		    p->n->space.node_id)
			ddsm_replica_send(p->n, units[i], ts[i], data[i]);
	if (err) {
		atomic64_inc(&p->errors);
		pr_err_ratelimited("pmem %s: persisting %u units failed: %d\n",
				   p->dev.name, k, err);
		for (i = 0; i < k; i++)
			set_bit(idxs[i], p->dirty);
	}
	return err;
}

/*
 * Room in the backup's window for @need more images (issue 16): a backup
 * slower than this home holds back its persists and resyncs, rather than
 * let their images pile up in the send queue.  Checked under p->lock,
 * under which every image is sent, so the batch that follows finds the
 * room; the lock is dropped while waiting, so that the backup's own
 * worker here (it backs up another node) and other persists go on.
 * Bounded by fault_timeout_ms: a backup that stays full is then degraded
 * by the send.  With p->lock held and no batch in the bounce; false if
 * the media was lost meanwhile.
 */
bool ddsm_persist_backup_room(struct ddsm_persist *p, u32 need)
{
	unsigned long end = jiffies +
			    msecs_to_jiffies(ddsm_fault_timeout_ms());

	while (ddsm_replica_window_free(p->n) < need &&
	       time_before(jiffies, end) && !fatal_signal_pending(current)) {
		mutex_unlock(&p->lock);
		ddsm_replica_wait_window(p->n, need);
		mutex_lock(&p->lock);
	}
	return !p->crashed;
}

/*
 * Make durable the dirty units homed here whose home index is in
 * [@from, @to) and whose number is in [@first, @last], at most @max of
 * them; returns how many were taken, or a
 * negative errno when the media failed (those units are dirty again).
 * @background (the flusher) leaves the units of Scope regions dirty.
 */
long ddsm_persist_some(struct ddsm_persist *p, u64 from, u64 to, u64 max,
		       u64 *resume, bool background, u64 first, u64 last)
{
	u64 units[DDSM_PSTORE_BATCH_MAX];
	u64 idxs[DDSM_PSTORE_BATCH_MAX];
	u64 idx = from, done = 0;
	long ret = 0;

	mutex_lock(&p->lock);
	if (p->crashed) {
		mutex_unlock(&p->lock);
		return -EIO;
	}
	while (done < max) {
		u32 k = 0;
		int err;

		if (!ddsm_persist_backup_room(p, DDSM_PSTORE_BATCH_MAX)) {
			ret = -EIO;
			break;
		}
		while (k < DDSM_PSTORE_BATCH_MAX && done + k < max) {
			u64 unit;

			idx = find_next_bit(p->dirty, to, idx);
			if (idx >= to)
				break;
			unit = ddsm_persist_unit_of(p->n, idx);
			/* A barrier's range: exactly its units, no others. */
			if (unit < first || unit > last) {
				idx++;
				continue;
			}
			/* Scope: durable at barriers and unload only. */
			if (background &&
			    ddsm_persist_model_of(p, unit) == DDSM_PM_SCOPE) {
				idx++;
				continue;
			}
			k += batch_add(p, idx, unit, units, idxs, k);
			idx++;
		}
		if (!k)
			break;
		err = commit_batch(p, units, idxs, k);
		if (err) {
			ret = err;
			break;
		}
		done += k;
		cond_resched();
	}
	mutex_unlock(&p->lock);
	if (resume)
		*resume = idx;
	return ret ? ret : (long)done;
}

void ddsm_persist_flusher(struct work_struct *w)
{
	struct ddsm_persist *p = container_of(to_delayed_work(w),
					      struct ddsm_persist, work);
	u64 resume, from = p->next;
	long ret, more = 0;

	/* From where the last run stopped to the end, then from the start. */
	ret = ddsm_persist_some(p, from, p->nr_home, DDSM_PERSIST_RUN, &resume,
				true, 0, U64_MAX);
	if (ret >= 0 && ret < DDSM_PERSIST_RUN && from) {
		more = ddsm_persist_some(p, 0, from, DDSM_PERSIST_RUN - ret,
					 &resume, true, 0, U64_MAX);
		ret = more < 0 ? more : ret + more;
	}
	p->next = resume >= p->nr_home ? 0 : resume;
	if (READ_ONCE(p->stopping))
		return;
	/*
	 * A full run may have left more; a failed one is tried again later.
	 * Otherwise what is still dirty waits for a barrier (Scope), and a
	 * unit dirtied from now on queues the flusher itself.
	 */
	if (ret < 0)
		queue_delayed_work(system_unbound_wq, &p->work,
				   msecs_to_jiffies(p->delay_ms));
	else if (ret == DDSM_PERSIST_RUN)
		queue_delayed_work(system_unbound_wq, &p->work, 1);
}

bool ddsm_persist_tracks(struct ddsm_node *n, u64 unit)
{
	return n->persist &&
	       ddsm_unit_home(&n->space, unit) == n->space.node_id;
}

void ddsm_persist_dirty(struct ddsm_node *n, u64 unit)
{
	struct ddsm_persist *p = n->persist;
	u64 idx;

	if (!p)
		return;
	idx = ddsm_persist_homed(n, unit);
	if (idx >= p->nr_home || test_and_set_bit(idx, p->dirty))
		return;
	if (!READ_ONCE(p->stopping))
		queue_delayed_work(system_unbound_wq, &p->work,
				   msecs_to_jiffies(p->delay_ms));
}

int ddsm_persist_range(struct ddsm_node *n, u64 gaddr, u64 len)
{
	struct ddsm_persist *p = n->persist;
	u64 first, last, from, to;
	long ret;

	if (!p)
		return -ENODEV;
	if (!len)
		return 0;
	first = ddsm_gaddr_unit(gaddr);
	last = ddsm_gaddr_unit(gaddr + len - 1);
	/* The home indices of [first, last] lie within [from, to). */
	if (n->space.policy == DDSM_HOME_RANGE || n->space.nr_backups) {
		from = 0;
		to = p->nr_home;
	} else {
		from = first / n->space.nr_nodes;
		to = min(last / n->space.nr_nodes + 1, p->nr_home);
	}
	ret = ddsm_persist_some(p, from, to, U64_MAX, NULL, false, first, last);
	if (ret < 0)
		return -EIO;
	/* What was made durable here must be at the backup too. */
	ddsm_replica_wait(n, ddsm_replica_ticket(n));
	return 0;
}

int ddsm_persist_units(struct ddsm_node *n, const u64 *list, u32 nr)
{
	struct ddsm_persist *p = n->persist;
	u64 units[DDSM_PSTORE_BATCH_MAX];
	u64 idxs[DDSM_PSTORE_BATCH_MAX];
	u32 i, k = 0, ticket;
	int err = 0;

	if (!p)
		return -ENODEV;
	mutex_lock(&p->lock);
	if (p->crashed) {
		mutex_unlock(&p->lock);
		return -EIO;
	}
	for (i = 0; i < nr && !err; i++) {
		u64 unit = list[i], idx;

		idx = ddsm_persist_homed(n, unit);
		if (idx >= p->nr_home || !test_bit(idx, p->dirty))
			continue;
		if (!k && !ddsm_persist_backup_room(p, DDSM_PSTORE_BATCH_MAX)) {
			err = -EIO;
			break;
		}
		/* The lock was dropped: another persist may have taken it. */
		if (!test_bit(idx, p->dirty))
			continue;
		k += batch_add(p, idx, unit, units, idxs, k);
		if (k == DDSM_PSTORE_BATCH_MAX) {
			err = commit_batch(p, units, idxs, k);
			k = 0;
		}
	}
	if (k && !err)
		err = commit_batch(p, units, idxs, k);
	/*
	 * Units not dirty here may have been persisted by the flusher, whose
	 * images may still be on their way to the backup: the ticket covers
	 * every image sent so far, read under the lock that orders them.
	 */
	ticket = ddsm_replica_ticket(n);
	mutex_unlock(&p->lock);
	if (err)
		return -EIO;
	ddsm_replica_wait(n, ticket);
	return 0;
}

static bool range_touched(struct ddsm_node *n, u64 gaddr, u64 len)
{
	u64 unit, end = ddsm_gaddr_unit(gaddr + len - 1);

	for (unit = ddsm_gaddr_unit(gaddr); unit <= end; unit++)
		if (ddsm_frame_peek(n, unit))
			return true;
	return false;
}

int ddsm_persist_region(struct ddsm_node *n, struct ddsm_region_arg *a)
{
	struct ddsm_persist *p = n->persist;
	struct ddsm_pm_region r = {
		.start = a->gaddr, .len = a->len, .model = a->model,
	};
	int free = -1, i, ret = 0;

	if (!p)
		return -ENODEV;
	mutex_lock(&p->lock);
	if (a->flags & DDSM_REGION_GET) {
		a->model = ddsm_persist_model_of(p, ddsm_gaddr_unit(a->gaddr));
		goto out;
	}
	for (i = 0; i < DDSM_PM_REGIONS; i++) {
		const struct ddsm_pm_region *e = &p->regions[i];

		if (!e->len) {
			if (free < 0)
				free = i;
			continue;
		}
		if (e->start == r.start && e->len == r.len &&
		    e->model == r.model)
			goto out;	/* already there: a restart's setup */
		if (r.start < e->start + e->len && e->start < r.start + r.len) {
			ret = -EEXIST;
			goto out;
		}
	}
	if (free < 0) {
		ret = -ENOSPC;
		goto out;
	}
	if (range_touched(n, r.start, r.len)) {
		ret = -EBUSY;
		goto out;
	}
	ret = ddsm_test_pmem_fail() ? -EIO :
	      ddsm_pstore_region_set(&p->ps, free, &r);
	if (ret) {
		ret = -EIO;
		goto out;
	}
	p->regions[free] = r;
	ddsm_persist_apply_models(p);
	pr_info("pmem %s: region [%#llx, %#llx) is %s\n", p->dev.name,
		r.start, r.start + r.len, ddsm_pm_model_name(r.model));
out:
	mutex_unlock(&p->lock);
	return ret;
}

bool ddsm_persist_crashed(struct ddsm_node *n)
{
	struct ddsm_persist *p = n->persist;

	return p && READ_ONCE(p->crashed);
}

/* The models of the units just taken over (their entries are new here). */
void ddsm_persist_models(struct ddsm_node *n)
{
	struct ddsm_persist *p = n->persist;

	if (!p)
		return;
	mutex_lock(&p->lock);
	ddsm_persist_apply_models(p);
	mutex_unlock(&p->lock);
}

/* Everything dirty made durable, here and at the backup (before unload). */
void ddsm_persist_flush_all(struct ddsm_node *n)
{
	struct ddsm_persist *p = n->persist;

	if (!p)
		return;
	ddsm_persist_some(p, 0, p->nr_home, U64_MAX, NULL, false, 0, U64_MAX);
	ddsm_replica_wait(n, ddsm_replica_ticket(n));
}

/* Replica slots holding an image; the caller holds p->lock. */
static u64 replica_units(struct ddsm_persist *p)
{
	u64 idx, nr = 0, ts;

	for (idx = p->nr_own; idx < p->nr_home; idx++)
		if (!ddsm_pstore_slot_ts(&p->ps, idx, &ts))
			nr++;
	return nr;
}

void ddsm_persist_status(struct ddsm_node *n, struct ddsm_pmem_status *s)
{
	struct ddsm_persist *p = n->persist;
	const struct ddsm_pstore_stats *st;

	memset(s, 0, sizeof(*s));
	if (!p)
		return;
	mutex_lock(&p->lock);
	st = &p->ps.st;
	s->flags = DDSM_PMEM_ON | (st->formatted ? DDSM_PMEM_FORMATTED : 0) |
		   (st->was_clean ? DDSM_PMEM_WAS_CLEAN : 0) |
		   (p->shadow ? DDSM_PMEM_CHECK : 0);
	s->ns_bytes = p->dev.bytes;
	s->nr_slots = p->nr_home;
	s->generation = st->generation;
	s->units_present = st->units_present;
	s->units_torn = st->units_torn;
	s->log_seen = st->replay.seen;
	s->log_applied = st->replay.applied;
	s->log_obsolete = st->replay.obsolete;
	s->log_torn = st->replay.torn;
	s->persists = st->persists;
	s->records = st->records;
	s->bytes = st->bytes;
	s->flushes = st->flushes;
	s->fences = st->fences;
	s->replica_units = replica_units(p);
	mutex_unlock(&p->lock);
	ddsm_replica_status(n, s);
	s->dirty = bitmap_weight(p->dirty, p->nr_home);
	s->errors = atomic64_read(&p->errors);
	s->barriers = atomic64_read(&n->stats.barriers);
	s->persist_sent = atomic64_read(&n->stats.persist_sent);
	s->persist_served = atomic64_read(&n->stats.persist_served);
	s->durable_errors = atomic64_read(&n->stats.durable_errors);
	mutex_lock(&n->rx_lock);
	s->durable_grants = n->dir.stats.durable_grants;
	mutex_unlock(&n->rx_lock);
	strscpy(s->device, p->dev.name, sizeof(s->device));
}
