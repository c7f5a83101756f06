// SPDX-License-Identifier: GPL-2.0
/*
 * The home's pmem namespace taken and given back (issue 12): at a build,
 * claim it, format it or recover it (pmem/store.c replays the redo log),
 * fill the home frames from it and read its regions; at unbuild, make
 * every dirty unit durable and mark it clean.  Also what the backup homes
 * (replica.c, takeover.c) ask of the media: replica images put with
 * their home's timestamps, a resync's images read back, a takeover
 * recorded, a replica slot loaded into a frame.
 */
#define pr_fmt(fmt) "ddsm: " fmt

#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/random.h>
#include <linux/highmem.h>
#include "../node/node.h"
#include "durable.h"
#include "persist.h"
#include "../selftest/selftest.h"
#include "../pmem/dax.h"
#include "../pmem/store.h"
#include "../lib/crc32c.h"

static u64 slot_of_unit(void *ctx, u64 unit)
{
	struct ddsm_node *n = ctx;

	return ddsm_unit_local_index(&n->space, unit);
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
		u64 unit = ddsm_persist_unit_of(n, idx), ts;
		struct page *frame;
		int err;

		/* A replica slot is a home slot only once taken over. */
		if (ddsm_persist_homed(n, unit) != idx)
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

/*
 * Mount the store on @media (the namespace, or pmem_check's copy of it):
 * format it, find it clean, or recover it, and log which; a namespace
 * that says this node took its predecessor's units over sets the
 * failover mask (it is sticky), and needs nr_backups=1.
 */
static int mount_store(struct ddsm_persist *p, const struct sockaddr_in *addrs,
		       void *media)
{
	struct ddsm_node *n = p->n;
	struct ddsm_pstore_cfg cfg = {};
	const struct ddsm_pstore_stats *st;
	const char *why = NULL;
	int ret;

	cfg.cluster_id = cluster_id_of(n, addrs);
	cfg.node_id = n->space.node_id;
	cfg.nr_nodes = n->space.nr_nodes;
	cfg.space_bytes = n->space.size;
	cfg.home_policy = n->space.policy;
	cfg.nr_slots = p->nr_home;
	cfg.unit_of_slot = ddsm_persist_unit_of;
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
		return ret;
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
			return -EMEDIUMTYPE;
		}
		n->space.failover |= BIT_ULL(pred);
		pr_info("pmem %s: serving node %u's units since a failover (no failback)\n",
			p->dev.name, pred);
	}
	return 0;
}

int ddsm_persist_mount(struct ddsm_node *n, const struct sockaddr_in *addrs)
{
	struct ddsm_persist *p;
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
	INIT_DELAYED_WORK(&p->work, ddsm_persist_flusher);
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
		ret = ddsm_pmem_check_start(p);
		if (ret)
			goto err_close;
		media = p->work_copy;
	}

	ret = mount_store(p, addrs, media);
	if (ret)
		goto err_close;
	load_regions(p);
	ddsm_persist_apply_models(p);
	ddsm_pmem_slots_add(p);
	ddsm_pmem_fail_add(p);
	n->persist = p;
	ret = load_units(p);
	if (ret) {
		n->persist = NULL;
		goto err_close;
	}
	return 0;

err_close:
	ddsm_pmem_fail_remove(p);
	ddsm_pmem_slots_remove(p);
	ddsm_pmem_check_stop(p);
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
	ret = ddsm_persist_some(p, 0, p->nr_home, U64_MAX, NULL, false, 0, U64_MAX);
	if (p->crashed)
		pr_warn("pmem %s: unloaded after a simulated power failure: left as it was\n",
			p->dev.name);
	else if (ret < 0)
		pr_err("pmem %s: last images not durable (%ld): not marked clean\n",
		       p->dev.name, ret);
	else
		ddsm_pstore_unmount(&p->ps);
	n->persist = NULL;
	ddsm_pmem_fail_remove(p);
	ddsm_pmem_slots_remove(p);
	ddsm_pmem_check_stop(p);
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
		/* 64 images and the marker; p->crashed is checked below. */
		ddsm_persist_backup_room(p, 64 + 1);
		for (k = 0; !err && k < 64 && idx < p->nr_own; idx++, k++) {
			u64 unit = ddsm_persist_unit_of(n, idx);

			if (p->crashed || ddsm_persist_homed(n, unit) != idx)
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
