/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside durable/: the state of the units homed here on pmem, shared by
 * persist.c (the flusher and what waits for durability), recovery.c
 * (mount, unmount, the backup homes' media) and, in a self-test build,
 * selftest/pmem_crash.c (the persist-domain checker) and pmem_fail.c.
 * Nothing else outside durable/ includes it.
 *
 * Lock order: p->lock -> rx_lock, p->lock -> cl_lock.  Nothing that
 * holds a line lock or rx_lock waits for p->lock: marking a unit dirty is
 * a bit and a work item.
 */
#ifndef DDSM_DURABLE_PERSIST_H
#define DDSM_DURABLE_PERSIST_H

#include <linux/atomic.h>
#include <linux/mutex.h>
#include <linux/workqueue.h>
#include "../pmem/dax.h"
#include "../pmem/store.h"
#include "../pmem/shadow.h"

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

/* persist.c */
/*
 * Slots are the local arrays' indices: the units placed here, then with
 * nr_backups the predecessor's (the replica area), whether taken over or
 * not.  @ctx: the node.
 */
u64 ddsm_persist_unit_of(void *ctx, u64 slot);
/* The local index of @unit if it is homed here now, else U64_MAX. */
u64 ddsm_persist_homed(struct ddsm_node *n, u64 unit);
/* The model of the region holding @unit; the caller holds p->lock. */
u32 ddsm_persist_model_of(const struct ddsm_persist *p, u64 unit);
/* Tell the directory each homed unit's model; p->lock held. */
void ddsm_persist_apply_models(struct ddsm_persist *p);
/*
 * Room at the backup for @need more images, waited for with p->lock
 * dropped (bounded); p->lock held.  False if the media was lost.
 */
bool ddsm_persist_backup_room(struct ddsm_persist *p, u32 need);
/*
 * Make durable the dirty units homed here whose home index is in
 * [@from, @to) and whose number is in [@first, @last], at most @max.
 */
long ddsm_persist_some(struct ddsm_persist *p, u64 from, u64 to, u64 max,
		       u64 *resume, bool background, u64 first, u64 last);
void ddsm_persist_flusher(struct work_struct *w);

#endif /* DDSM_DURABLE_PERSIST_H */
