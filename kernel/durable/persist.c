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
 * (pmem/store.c), outside every protocol lock.
 *
 * Lock order: p->lock -> rx_lock, p->lock -> cl_lock.  Nothing that
 * holds a line lock or rx_lock waits for p->lock: marking a unit dirty is
 * a bit and a work item.
 */
#define pr_fmt(fmt) "ddsm: " fmt

#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/random.h>
#include <linux/highmem.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include "../node/node.h"
#include "durable.h"
#include "../pmem/dax.h"
#include "../pmem/store.h"
#include "../pmem/shadow.h"
#include "../lib/crc32c.h"

/* The uapi names the on-media model values. */
static_assert((int)DDSM_MODEL_EVENTUAL == (int)DDSM_PM_EVENTUAL);
static_assert((int)DDSM_MODEL_SCOPE == (int)DDSM_PM_SCOPE);
static_assert((int)DDSM_MODEL_READ_ENF == (int)DDSM_PM_READ_ENF);
static_assert((int)DDSM_MODEL_SYNC == (int)DDSM_PM_SYNC);
static_assert((int)DDSM_MODEL_STRICT == (int)DDSM_PM_STRICT);

/* How many dirty units one run of the flusher takes before yielding. */
#define DDSM_PERSIST_RUN	4096

struct ddsm_persist {
	struct ddsm_node *n;
	struct ddsm_pmem_dev dev;
	struct ddsm_pm_persist ops;
	struct ddsm_pstore ps;
	struct mutex lock;		/* ps, bounce */
	unsigned long *dirty;		/* by local index: image not durable */
	u64 nr_home;			/* local slots: own, then replicas */
	u64 nr_own;			/* ... of which the units placed here */
	u64 next;			/* where the flusher resumes */
	u8 *bounce;			/* DDSM_PSTORE_BATCH_MAX unit images */
	struct delayed_work work;
	unsigned int delay_ms;
	bool stopping;
	atomic64_t errors;
	/*
	 * pmem_check: the persist-domain checker.  The store works on a
	 * DRAM copy of the namespace and only flushed and fenced lines reach
	 * the media; debugfs ddsm/pmem_crash plays a power failure.
	 */
	struct ddsm_pm_shadow *shadow;
	void *work_copy;
	unsigned long *flushed;
	struct dentry *crash_file;
	struct dentry *arm_file;
	struct dentry *slots_file;
	struct ddsm_pm_shadow_rng arm_rng;	/* the armed crash's chooser */
	bool crashed;			/* no more writes reach the media */
	/* The region table as on the media (under lock); unused: !len. */
	struct ddsm_pm_region regions[DDSM_PM_REGIONS];
	u32 default_model;
};

/* The model of the region holding @unit; the caller holds p->lock. */
static u32 model_of(const struct ddsm_persist *p, u64 unit)
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

static u64 unit_of_slot(void *ctx, u64 slot);

/*
 * Tell the directory each homed unit's model.  Regions are set before
 * their units are first touched, so no event is running on a unit whose
 * flags change; rx_lock orders the change with the receive path all the
 * same.  The caller holds p->lock.
 */
static void apply_models(struct ddsm_persist *p)
{
	struct ddsm_node *n = p->n;
	u64 idx;

	for (idx = 0; idx < p->nr_home; idx++) {
		u64 unit = unit_of_slot(n, idx);
		u8 flags = dir_flags_of(model_of(p, unit));

		mutex_lock(&n->rx_lock);
		ddsm_dir_set_persist(&n->dir, unit, flags);
		mutex_unlock(&n->rx_lock);
		if (!(idx & 1023))
			cond_resched();
	}
}

/*
 * Slots are the local arrays' indices: the units placed here, then with
 * nr_backups the predecessor's (the replica area), whether taken over or
 * not.
 */
static u64 unit_of_slot(void *ctx, u64 slot)
{
	struct ddsm_node *n = ctx;

	return ddsm_space_local_unit(&n->space, slot);
}

static u64 slot_of_unit(void *ctx, u64 unit)
{
	struct ddsm_node *n = ctx;

	return ddsm_unit_local_index(&n->space, unit);
}

/* The local index of @unit if it is homed here now, else U64_MAX. */
static u64 homed_index(struct ddsm_node *n, u64 unit)
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
	err = ddsm_pstore_persist(&p->ps, units, data, k, ts);
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
 * Make durable the dirty units homed here whose home index is in
 * [@from, @to) and whose number is in [@first, @last], at most @max of
 * them; returns how many were taken, or a
 * negative errno when the media failed (those units are dirty again).
 * @background (the flusher) leaves the units of Scope regions dirty.
 */
static long persist_some(struct ddsm_persist *p, u64 from, u64 to, u64 max,
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

		while (k < DDSM_PSTORE_BATCH_MAX && done + k < max) {
			u64 unit;

			idx = find_next_bit(p->dirty, to, idx);
			if (idx >= to)
				break;
			unit = unit_of_slot(p->n, idx);
			/* A barrier's range: exactly its units, no others. */
			if (unit < first || unit > last) {
				idx++;
				continue;
			}
			/* Scope: durable at barriers and unload only. */
			if (background &&
			    model_of(p, unit) == DDSM_PM_SCOPE) {
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

static void flusher(struct work_struct *w)
{
	struct ddsm_persist *p = container_of(to_delayed_work(w),
					      struct ddsm_persist, work);
	u64 resume, from = p->next;
	long ret, more = 0;

	/* From where the last run stopped to the end, then from the start. */
	ret = persist_some(p, from, p->nr_home, DDSM_PERSIST_RUN, &resume,
			   true, 0, U64_MAX);
	if (ret >= 0 && ret < DDSM_PERSIST_RUN && from) {
		more = persist_some(p, 0, from, DDSM_PERSIST_RUN - ret,
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
	idx = homed_index(n, unit);
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
	ret = persist_some(p, from, to, U64_MAX, NULL, false, first, last);
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

		idx = homed_index(n, unit);
		if (idx >= p->nr_home || !test_bit(idx, p->dirty))
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

static u64 cluster_id_of(const struct ddsm_node *n,
			 const struct sockaddr_in *addrs)
{
	u32 i, lo, hi;
	u64 shape[3] = { n->space.size, n->space.nr_nodes, n->space.policy };

	if (n->params.cluster_id)
		return n->params.cluster_id;
	/* The same configuration on every node gives every node the same id. */
	lo = ddsm_crc32c(0, shape, sizeof(shape));
	hi = ddsm_crc32c(~lo, shape, sizeof(shape));
	for (i = 0; i < n->space.nr_nodes && addrs; i++) {
		lo = ddsm_crc32c(lo, &addrs[i].sin_addr, 4);
		hi = ddsm_crc32c(hi, &addrs[i].sin_port, 2);
	}
	return ((u64)hi << 32 | lo) ?: 1;
}

static void load_regions(struct ddsm_persist *p)
{
	u32 i, nr = 0;
	int ret;

	for (i = 0; i < DDSM_PM_REGIONS; i++) {
		ret = ddsm_pstore_region_get(&p->ps, i, &p->regions[i]);
		if (ret) {
			if (ret != -ENOENT)
				pr_err("pmem %s: region entry %u is unreadable (%d): ignored\n",
				       p->dev.name, i, ret);
			memset(&p->regions[i], 0, sizeof(p->regions[i]));
			continue;
		}
		nr++;
	}
	if (nr)
		pr_info("pmem %s: %u regions with their own model\n",
			p->dev.name, nr);
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
		a->model = model_of(p, ddsm_gaddr_unit(a->gaddr));
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
	ret = ddsm_pstore_region_set(&p->ps, free, &r);
	if (ret) {
		ret = -EIO;
		goto out;
	}
	p->regions[free] = r;
	apply_models(p);
	pr_info("pmem %s: region [%#llx, %#llx) is %s\n", p->dev.name,
		r.start, r.start + r.len, ddsm_pm_model_name(r.model));
out:
	mutex_unlock(&p->lock);
	return ret;
}

/* Fill the home frames of every unit the namespace holds an image of. */
static int load_units(struct ddsm_persist *p)
{
	struct ddsm_node *n = p->n;
	u64 idx, loaded = 0;
	void *buf;
	int ret = 0;

	buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	for (idx = 0; idx < p->nr_home; idx++) {
		u64 unit = unit_of_slot(n, idx), ts;
		struct page *frame;
		int err;

		/* A replica slot is a home slot only once taken over. */
		if (homed_index(n, unit) != idx)
			continue;
		err = ddsm_pstore_read(&p->ps, idx, buf, &ts);
		if (err == -ENODATA)
			continue;
		if (err) {
			pr_err("pmem %s: unit %llu is torn: it reads as zeros\n",
			       p->dev.name, unit);
			continue;
		}
		frame = ddsm_frame_get(n, unit, GFP_KERNEL);
		if (!frame) {
			ret = -ENOMEM;
			break;
		}
		memcpy_to_page(frame, 0, buf, PAGE_SIZE);
		loaded++;
		cond_resched();
	}
	kfree(buf);
	if (!ret)
		pr_info("pmem %s: %llu units loaded\n", p->dev.name, loaded);
	return ret;
}

/* debugfs ddsm/pmem_crash: write P, and each unfenced line survives with P%. */
static ssize_t crash_write(struct file *file, const char __user *ubuf,
			   size_t len, loff_t *ppos)
{
	struct ddsm_persist *p = file->private_data;
	struct ddsm_pm_shadow_rng rng = { .state = get_random_u64() };
	u64 dropped;
	int ret;

	ret = kstrtou32_from_user(ubuf, len, 0, &rng.pct);
	if (ret)
		return ret;
	if (rng.pct > 100)
		return -EINVAL;
	mutex_lock(&p->lock);
	if (p->crashed) {
		mutex_unlock(&p->lock);
		return -EALREADY;
	}
	p->crashed = true;
	dropped = ddsm_pm_shadow_crash(p->shadow, ddsm_pm_shadow_keep_random,
				       &rng);
	mutex_unlock(&p->lock);
	pr_warn("pmem %s: simulated power failure: %llu unfenced pieces dropped, %llu kept (%u%%); nothing more reaches the media\n",
		p->dev.name, dropped, p->shadow->kept, rng.pct);
	return len;
}

static const struct file_operations crash_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = crash_write,
	.llseek = no_llseek,
};

/*
 * debugfs ddsm/pmem_crash_arm: write "N P": the power fails at the N-th
 * fence from now, inside whatever the store is doing then (a log append,
 * an apply), each unfenced line surviving with P%.  A crash in the middle
 * of a commit is what the recovery has to survive; a crash between two
 * commits (pmem_crash) finds nothing unfenced.
 */
static ssize_t arm_write(struct file *file, const char __user *ubuf,
			 size_t len, loff_t *ppos)
{
	struct ddsm_persist *p = file->private_data;
	char buf[32];
	u64 nth;
	u32 pct;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = 0;
	if (sscanf(buf, "%llu %u", &nth, &pct) != 2 || !nth || pct > 100)
		return -EINVAL;
	mutex_lock(&p->lock);
	if (p->crashed || p->shadow->crashed) {
		mutex_unlock(&p->lock);
		return -EALREADY;
	}
	p->arm_rng.state = get_random_u64();
	p->arm_rng.pct = pct;
	ddsm_pm_shadow_arm(p->shadow, nth, ddsm_pm_shadow_keep_random,
			   &p->arm_rng);
	mutex_unlock(&p->lock);
	pr_info("pmem %s: simulated power failure armed at fence %llu (%llu from now)\n",
		p->dev.name, p->shadow->crash_fence, nth);
	return len;
}

static const struct file_operations arm_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = arm_write,
	.llseek = no_llseek,
};

/*
 * debugfs ddsm/pmem_slots: "unit ts" for every slot that holds an image
 * (the units placed here, then the replicas).  The crash tests read it at
 * each boot: a unit's timestamp must never go back across a crash and its
 * recovery (MINOS's no-rollback), whatever the data says.
 */
static int slots_show(struct seq_file *sf, void *unused)
{
	struct ddsm_persist *p = sf->private;
	u64 idx, ts;
	int ret;

	for (idx = 0; idx < p->nr_home; idx++) {
		mutex_lock(&p->lock);
		ret = ddsm_pstore_slot_ts(&p->ps, idx, &ts);
		mutex_unlock(&p->lock);
		if (!ret)
			seq_printf(sf, "%llu %llu\n", unit_of_slot(p->n, idx), ts);
		else if (ret == -EBADMSG)
			seq_printf(sf, "%llu torn\n", unit_of_slot(p->n, idx));
		cond_resched();
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(slots);

bool ddsm_persist_crashed(struct ddsm_node *n)
{
	struct ddsm_persist *p = n->persist;

	return p && READ_ONCE(p->crashed);
}

/*
 * The persist-domain checker between the store and the media: the store
 * sees a DRAM copy; only the lines it flushes and fences are copied to
 * the namespace, so a VM killed at any moment leaves on its NVDIMM file
 * exactly what a power failure that dropped every unfenced line would.
 */
static int shadow_start(struct ddsm_persist *p)
{
	struct ddsm_node *n = p->n;
	u64 len = p->dev.bytes;
	int ret;

	p->shadow = kzalloc(sizeof(*p->shadow), GFP_KERNEL);
	p->work_copy = vmalloc(len);
	p->flushed = vzalloc(DDSM_PM_SHADOW_BITMAP_BYTES(len));
	if (!p->shadow || !p->work_copy || !p->flushed) {
		pr_err("pmem %s: pmem_check needs %llu MiB of memory\n",
		       p->dev.name, len >> 20);
		return -ENOMEM;
	}
	memcpy(p->work_copy, p->dev.kaddr, len);
	ret = ddsm_pm_shadow_init(p->shadow, p->work_copy, p->dev.kaddr,
				  p->flushed, len);
	if (ret)
		return ret;
	/* pmem is failure atomic per aligned 8 bytes, not per line. */
	p->shadow->tear_words = true;
	p->ops = ddsm_pm_shadow_ops(p->shadow);
	if (n->params.debugfs) {
		p->crash_file = debugfs_create_file("pmem_crash", 0200,
						    n->params.debugfs, p,
						    &crash_fops);
		p->arm_file = debugfs_create_file("pmem_crash_arm", 0200,
						  n->params.debugfs, p,
						  &arm_fops);
	}
	pr_warn("pmem %s: pmem_check: stores go to a DRAM copy, only fenced lines reach the media\n",
		p->dev.name);
	return 0;
}

static void shadow_stop(struct ddsm_persist *p)
{
	debugfs_remove(p->arm_file);
	debugfs_remove(p->crash_file);
	p->arm_file = NULL;
	p->crash_file = NULL;
	vfree(p->flushed);
	vfree(p->work_copy);
	kfree(p->shadow);
	p->flushed = NULL;
	p->work_copy = NULL;
	p->shadow = NULL;
}

int ddsm_persist_mount(struct ddsm_node *n, const struct sockaddr_in *addrs)
{
	struct ddsm_pstore_cfg cfg = {};
	struct ddsm_persist *p;
	const struct ddsm_pstore_stats *st;
	const char *why = NULL;
	void *media;
	int ret;

	if (!n->params.pmem_path || !n->params.pmem_path[0])
		return 0;
	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	p->n = n;
	p->delay_ms = n->params.pmem_flush_ms;
	p->default_model = n->params.pmem_model;
	mutex_init(&p->lock);
	atomic64_set(&p->errors, 0);
	INIT_DELAYED_WORK(&p->work, flusher);
	p->nr_home = ddsm_space_local_units(&n->space);
	p->nr_own = ddsm_space_units_homed(&n->space, n->space.node_id);
	p->dirty = bitmap_zalloc(p->nr_home, GFP_KERNEL);
	p->bounce = vmalloc(DDSM_PSTORE_BATCH_MAX * PAGE_SIZE);
	if (!p->dirty || !p->bounce) {
		ret = -ENOMEM;
		goto err_free;
	}
	ret = ddsm_pmem_open(&p->dev, n->params.pmem_path);
	if (ret)
		goto err_free;
	p->ops = ddsm_pmem_persist_ops(&p->dev);
	media = p->dev.kaddr;
	if (n->params.pmem_check) {
		ret = shadow_start(p);
		if (ret)
			goto err_close;
		media = p->work_copy;
	}

	cfg.cluster_id = cluster_id_of(n, addrs);
	cfg.node_id = n->space.node_id;
	cfg.nr_nodes = n->space.nr_nodes;
	cfg.space_bytes = n->space.size;
	cfg.home_policy = n->space.policy;
	cfg.nr_slots = p->nr_home;
	cfg.unit_of_slot = unit_of_slot;
	cfg.slot_of_unit = slot_of_unit;
	cfg.ctx = n;
	cfg.format = n->params.pmem_format;
	cfg.epoch_seed = get_random_u64() | 1;
	ret = ddsm_pstore_mount(&p->ps, media, p->dev.bytes, &cfg, &p->ops,
				&why);
	if (ret) {
		pr_err("pmem %s: refused: %s (%d)\n", p->dev.name,
		       why ?: "cannot mount", ret);
		if (ret == -ENOSPC)
			pr_err("pmem %s: %llu MiB hold about %llu of the %llu units homed here; lower size= or use a larger namespace\n",
			       p->dev.name, p->dev.bytes >> 20,
			       p->dev.bytes / (PAGE_SIZE + DDSM_PM_LINE),
			       p->nr_home);
		goto err_close;
	}
	st = &p->ps.st;
	pr_info("pmem %s: %s, generation %llu, %llu slots, %llu units, log %llu records (%llu applied, %llu obsolete, %llu torn)%s\n",
		p->dev.name, st->formatted ? "formatted" :
		st->was_clean ? "clean" : "recovered", st->generation,
		p->nr_home, st->units_present, st->replay.seen,
		st->replay.applied, st->replay.obsolete, st->replay.torn,
		st->units_torn ? ", TORN UNITS" : "");
	if (ddsm_pstore_flags(&p->ps) & DDSM_PM_SB_FAILOVER) {
		u32 pred = ddsm_space_pred_of(&n->space, n->space.node_id);

		/* Sticky: this node took its predecessor's units over. */
		if (!n->space.nr_backups) {
			pr_err("pmem %s: refused: this node serves node %u's units (a failover), which needs nr_backups=1\n",
			       p->dev.name, pred);
			ret = -EMEDIUMTYPE;
			goto err_close;
		}
		n->space.failover |= BIT_ULL(pred);
		pr_info("pmem %s: serving node %u's units since a failover (no failback)\n",
			p->dev.name, pred);
	}
	load_regions(p);
	apply_models(p);
	if (n->params.debugfs)
		p->slots_file = debugfs_create_file("pmem_slots", 0400,
						    n->params.debugfs, p,
						    &slots_fops);
	n->persist = p;
	ret = load_units(p);
	if (ret) {
		n->persist = NULL;
		goto err_close;
	}
	return 0;

err_close:
	debugfs_remove(p->slots_file);
	shadow_stop(p);
	ddsm_pmem_close(&p->dev);
err_free:
	vfree(p->bounce);
	bitmap_free(p->dirty);
	kfree(p);
	return ret;
}

void ddsm_persist_unmount(struct ddsm_node *n)
{
	struct ddsm_persist *p = n->persist;
	long ret;

	if (!p)
		return;
	WRITE_ONCE(p->stopping, true);
	cancel_delayed_work_sync(&p->work);
	ret = persist_some(p, 0, p->nr_home, U64_MAX, NULL, false, 0, U64_MAX);
	if (p->crashed)
		pr_warn("pmem %s: unloaded after a simulated power failure: left as it was\n",
			p->dev.name);
	else if (ret < 0)
		pr_err("pmem %s: last images not durable (%ld): not marked clean\n",
		       p->dev.name, ret);
	else
		ddsm_pstore_unmount(&p->ps);
	n->persist = NULL;
	debugfs_remove(p->slots_file);
	shadow_stop(p);
	ddsm_pmem_close(&p->dev);
	vfree(p->bounce);
	bitmap_free(p->dirty);
	kfree(p);
}

int ddsm_persist_replica_put(struct ddsm_node *n, const u64 *units,
			     const void *const *data, const u64 *ts, u32 nr)
{
	struct ddsm_persist *p = n->persist;
	u32 applied;
	int err;

	if (!p)
		return -ENODEV;
	mutex_lock(&p->lock);
	err = p->crashed ? -EIO :
	      ddsm_pstore_put(&p->ps, units, data, ts, nr, &applied);
	mutex_unlock(&p->lock);
	if (err) {
		atomic64_inc(&p->errors);
		pr_err_ratelimited("pmem %s: persisting %u replica images failed: %d\n",
				   p->dev.name, nr, err);
		return -EIO;
	}
	return 0;
}

/*
 * Resync the backup: send it every image of the units placed here that
 * the namespace holds, a batch at a time so that persists go on in
 * between (their images leave after ours, so they are never overtaken by
 * an older one), then the REPLICA_SYNC marker behind them.
 */
void ddsm_persist_resync(struct ddsm_node *n)
{
	struct ddsm_persist *p = n->persist;
	u64 idx = 0, ts, sent = 0;
	int err = 0;
	u32 k;

	if (!p)
		return;
	pr_info_ratelimited("pmem %s: resyncing the backup\n", p->dev.name);
	while (!err) {
		mutex_lock(&p->lock);
		for (k = 0; !err && k < 64 && idx < p->nr_own; idx++, k++) {
			u64 unit = unit_of_slot(n, idx);

			if (p->crashed || homed_index(n, unit) != idx)
				continue;
			if (ddsm_pstore_read(&p->ps, idx, p->bounce, &ts))
				continue;
			/* A failure means the backup went: its up resyncs. */
			err = ddsm_replica_send(n, unit, ts, p->bounce);
			sent += !err;
		}
		if (!err && idx >= p->nr_own) {
			ddsm_replica_send_sync(n);
			err = 1;	/* done */
		}
		mutex_unlock(&p->lock);
		cond_resched();
	}
	pr_info_ratelimited("pmem %s: resync sent %llu unit images to the backup\n",
			    p->dev.name, sent);
}

/* The models of the units just taken over (their entries are new here). */
void ddsm_persist_models(struct ddsm_node *n)
{
	struct ddsm_persist *p = n->persist;

	if (!p)
		return;
	mutex_lock(&p->lock);
	apply_models(p);
	mutex_unlock(&p->lock);
}

/* Everything dirty made durable, here and at the backup (before unload). */
void ddsm_persist_flush_all(struct ddsm_node *n)
{
	struct ddsm_persist *p = n->persist;

	if (!p)
		return;
	persist_some(p, 0, p->nr_home, U64_MAX, NULL, false, 0, U64_MAX);
	ddsm_replica_wait(n, ddsm_replica_ticket(n));
}

int ddsm_persist_mark_takeover(struct ddsm_node *n)
{
	struct ddsm_persist *p = n->persist;
	int err;

	if (!p)
		return -ENODEV;
	mutex_lock(&p->lock);
	err = p->crashed ? -EIO :
	      ddsm_pstore_set_flags(&p->ps, DDSM_PM_SB_FAILOVER, true);
	mutex_unlock(&p->lock);
	return err;
}

int ddsm_persist_load_slot(struct ddsm_node *n, u64 idx, struct page *page)
{
	struct ddsm_persist *p = n->persist;
	u64 ts;
	int err;

	if (!p)
		return -ENODEV;
	mutex_lock(&p->lock);
	err = ddsm_pstore_read(&p->ps, idx, p->bounce, &ts);
	if (!err)
		memcpy_to_page(page, 0, p->bounce, PAGE_SIZE);
	mutex_unlock(&p->lock);
	return err;
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
