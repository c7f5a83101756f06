// SPDX-License-Identifier: GPL-2.0
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/gfp.h>
#include "mm.h"
#include "../core/ddsm.h"

int ddsm_frames_init(struct ddsm_frames *f, u64 nr_home, u64 nr_units,
		     bool cluster)
{
	f->home = kvcalloc(nr_home, sizeof(*f->home), GFP_KERNEL);
	if (!f->home)
		return -ENOMEM;
	f->nr_home = nr_home;
	if (cluster) {
		f->cache = kvcalloc(nr_units, sizeof(*f->cache), GFP_KERNEL);
		if (!f->cache) {
			kvfree(f->home);
			f->home = NULL;
			return -ENOMEM;
		}
		f->nr_cache = nr_units;
	}
	spin_lock_init(&f->lock);
	atomic64_set(&f->resident, 0);
	return 0;
}

static void free_slots(struct page **slots, u64 nr)
{
	u64 i;

	for (i = 0; i < nr; i++) {
		if (slots[i]) {
			__free_page(slots[i]);
			cond_resched();
		}
	}
	kvfree(slots);
}

void ddsm_frames_destroy(struct ddsm_frames *f)
{
	if (f->home)
		free_slots(f->home, f->nr_home);
	if (f->cache)
		free_slots(f->cache, f->nr_cache);
	f->home = NULL;
	f->cache = NULL;
	atomic64_set(&f->resident, 0);
}

/* Where this node keeps @unit: home memory, or a cache frame. */
static struct page **unit_slot(struct ddsm_node *n, u64 unit)
{
	u64 idx;

	if (ddsm_unit_home(&n->space, unit) != n->space.node_id)
		return unit < n->frames.nr_cache ? &n->frames.cache[unit] : NULL;
	idx = ddsm_unit_home_index(&n->space, unit);
	return idx < n->frames.nr_home ? &n->frames.home[idx] : NULL;
}

struct page *ddsm_frame_peek(struct ddsm_node *n, u64 unit)
{
	struct page **slot = unit_slot(n, unit);

	/* Pairs with the release in ddsm_frame_get(): see a zeroed page. */
	return slot ? smp_load_acquire(slot) : NULL;
}

struct page *ddsm_frame_get(struct ddsm_node *n, u64 unit, gfp_t gfp)
{
	struct page **slot = unit_slot(n, unit);
	struct page *page, *old;

	if (!slot)
		return NULL;
	page = smp_load_acquire(slot);	/* see ddsm_frame_peek() */
	if (page)
		return page;

	page = alloc_page(gfp | __GFP_ZERO);
	if (!page)
		return NULL;
	spin_lock(&n->frames.lock);
	old = *slot;
	if (!old) {
		/* Publish only a fully zeroed page to lockless readers. */
		smp_store_release(slot, page);
		atomic64_inc(&n->frames.resident);
	}
	spin_unlock(&n->frames.lock);
	if (old) {
		__free_page(page);
		return old;
	}
	return page;
}

void ddsm_frame_release(struct ddsm_node *n, u64 unit)
{
	/* Home frames are the unit's memory: they live as long as the module. */
}
