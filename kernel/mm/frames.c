// SPDX-License-Identifier: GPL-2.0
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/gfp.h>
#include <linux/wait.h>
#include <linux/bitops.h>
#include "mm.h"
#include "../node/node.h"

/*
 * Frames come from zeroed chunks of 2^FRAME_CHUNK_ORDER pages, split into
 * single pages handed out in order, so units first touched in order sit
 * in contiguous memory as anonymous memory does, and a sequential scan
 * costs the same: CPUs coalesce TLB entries of contiguous pages, and an
 * emulator's host caches see one stream.  Each page is freed on its own.
 */
#define FRAME_CHUNK_ORDER	4
#define FRAME_CHUNK_PAGES	BIT(FRAME_CHUNK_ORDER)

int ddsm_frames_init(struct ddsm_frames *f, u64 nr_home, u64 nr_units,
		     bool cluster, u64 limit)
{
	f->home = kvcalloc(nr_home, sizeof(*f->home), GFP_KERNEL);
	if (!f->home)
		return -ENOMEM;
	f->nr_home = nr_home;
	if (cluster) {
		f->cache = kvcalloc(nr_units, sizeof(*f->cache), GFP_KERNEL);
		f->ref = kvcalloc(BITS_TO_LONGS(nr_units), sizeof(long),
				  GFP_KERNEL);
		f->leaving = kvcalloc(BITS_TO_LONGS(nr_units), sizeof(long),
				      GFP_KERNEL);
		if (!f->cache || !f->ref || !f->leaving) {
			kvfree(f->cache);
			kvfree(f->ref);
			kvfree(f->leaving);
			f->leaving = NULL;
			kvfree(f->home);
			f->home = NULL;
			f->cache = NULL;
			f->ref = NULL;
			return -ENOMEM;
		}
		f->nr_cache = nr_units;
	}
	f->limit = limit;
	f->hand = 0;
	f->chunk[0] = NULL;
	f->chunk[1] = NULL;
	spin_lock_init(&f->lock);
	init_waitqueue_head(&f->room);
	atomic64_set(&f->resident, 0);
	atomic64_set(&f->cached, 0);
	atomic64_set(&f->evicting, 0);
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
	unsigned int k;

	for (k = 0; k < ARRAY_SIZE(f->chunk); k++) {
		while (f->chunk[k] && f->chunk_used[k] < FRAME_CHUNK_PAGES)
			__free_page(nth_page(f->chunk[k], f->chunk_used[k]++));
		f->chunk[k] = NULL;
	}
	if (f->home)
		free_slots(f->home, f->nr_home);
	if (f->cache)
		free_slots(f->cache, f->nr_cache);
	kvfree(f->ref);
	kvfree(f->leaving);
	f->leaving = NULL;
	f->home = NULL;
	f->cache = NULL;
	f->ref = NULL;
	atomic64_set(&f->resident, 0);
	atomic64_set(&f->cached, 0);
}

static struct page **home_slot_of(struct ddsm_node *n, u64 unit)
{
	u64 idx;

	if (ddsm_unit_home(&n->space, unit) != n->space.node_id)
		return NULL;
	idx = ddsm_unit_local_index(&n->space, unit);
	return idx < n->frames.nr_home ? &n->frames.home[idx] : NULL;
}

/* Where this node keeps @unit: home memory, or a cache frame. */
static struct page **unit_slot(struct ddsm_node *n, u64 unit)
{
	u64 idx;

	if (ddsm_unit_home(&n->space, unit) != n->space.node_id)
		return unit < n->frames.nr_cache ? &n->frames.cache[unit] : NULL;
	idx = ddsm_unit_local_index(&n->space, unit);
	return idx < n->frames.nr_home ? &n->frames.home[idx] : NULL;
}

struct page *ddsm_frame_peek(struct ddsm_node *n, u64 unit)
{
	struct page **slot = unit_slot(n, unit);

	/* Pairs with the release in ddsm_frame_get(): see a zeroed page. */
	return slot ? smp_load_acquire(slot) : NULL;
}

/* The next page of chunk @k, or NULL; with f->lock held. */
static struct page *chunk_take(struct ddsm_frames *f, int k)
{
	struct page *page;

	if (!f->chunk[k])
		return NULL;
	page = nth_page(f->chunk[k], f->chunk_used[k]++);
	if (f->chunk_used[k] == FRAME_CHUNK_PAGES)
		f->chunk[k] = NULL;
	return page;
}

/* A zeroed page for a frame (@k: 1 for a cache frame), from a chunk if it can. */
static struct page *alloc_frame(struct ddsm_frames *f, gfp_t gfp, int k)
{
	struct page *page, *chunk;
	unsigned int i;

	if (k)
		gfp |= __GFP_ACCOUNT;
	spin_lock(&f->lock);
	page = chunk_take(f, k);
	spin_unlock(&f->lock);
	if (page)
		return page;

	/* A chunk is a nicety: never work hard or warn for one. */
	chunk = alloc_pages(gfp | __GFP_ZERO | __GFP_NOWARN | __GFP_NORETRY,
			    FRAME_CHUNK_ORDER);
	if (!chunk)
		return alloc_page(gfp | __GFP_ZERO);
	split_page(chunk, FRAME_CHUNK_ORDER);
	spin_lock(&f->lock);
	page = chunk_take(f, k);
	if (!page) {
		f->chunk[k] = chunk;
		f->chunk_used[k] = 0;
		page = chunk_take(f, k);
		chunk = NULL;
	}
	spin_unlock(&f->lock);
	/* Another task installed a chunk meanwhile: ours goes back. */
	for (i = 0; chunk && i < FRAME_CHUNK_PAGES; i++)
		__free_page(nth_page(chunk, i));
	return page;
}

struct page *ddsm_frame_get(struct ddsm_node *n, u64 unit, gfp_t gfp)
{
	struct page **slot = unit_slot(n, unit);
	struct page *page, *old;
	bool cache;

	if (!slot)
		return NULL;
	page = smp_load_acquire(slot);	/* see ddsm_frame_peek() */
	if (page)
		return page;

	cache = slot != home_slot_of(n, unit);
	page = alloc_frame(&n->frames, gfp, cache);
	if (!page)
		return NULL;
	spin_lock(&n->frames.lock);
	old = *slot;
	if (!old) {
		/* Publish only a fully zeroed page to lockless readers. */
		smp_store_release(slot, page);
		atomic64_inc(&n->frames.resident);
		if (cache)
			atomic64_inc(&n->frames.cached);
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
	if (ddsm_unit_home(&n->space, unit) == n->space.node_id)
		return;
	ddsm_frame_cache_drop(n, unit);
}

struct page *ddsm_frame_get_local(struct ddsm_node *n, u64 idx)
{
	struct ddsm_frames *f = &n->frames;
	struct page *page, *old;

	if (idx >= f->nr_home)
		return NULL;
	/* As ddsm_frame_get(): see a zeroed page, publish only one. */
	page = smp_load_acquire(&f->home[idx]);
	if (page)
		return page;
	page = alloc_frame(f, GFP_KERNEL, 0);
	if (!page)
		return NULL;
	spin_lock(&f->lock);
	old = f->home[idx];
	if (!old) {
		/* Pairs with the acquire in ddsm_frame_peek(). */
		smp_store_release(&f->home[idx], page);
		atomic64_inc(&f->resident);
	}
	spin_unlock(&f->lock);
	if (old) {
		__free_page(page);
		return old;
	}
	return page;
}

struct page *ddsm_frame_cache_peek(struct ddsm_node *n, u64 unit)
{
	struct ddsm_frames *f = &n->frames;

	/* Pairs with the release in ddsm_frame_get(). */
	return unit < f->nr_cache ? smp_load_acquire(&f->cache[unit]) : NULL;
}

void ddsm_frame_cache_drop(struct ddsm_node *n, u64 unit)
{
	struct ddsm_frames *f = &n->frames;
	struct page *page;

	if (unit >= f->nr_cache)
		return;
	spin_lock(&f->lock);
	page = f->cache[unit];
	f->cache[unit] = NULL;
	spin_unlock(&f->lock);
	if (test_and_clear_bit(unit, f->leaving))
		atomic64_dec(&f->evicting);
	if (!page)
		return;
	__free_page(page);
	atomic64_dec(&f->resident);
	atomic64_dec(&f->cached);
	wake_up_all(&f->room);
}

void ddsm_frame_leaving(struct ddsm_node *n, u64 unit)
{
	if (n->frames.leaving && unit < n->frames.nr_cache &&
	    !test_and_set_bit(unit, n->frames.leaving))
		atomic64_inc(&n->frames.evicting);
}

void ddsm_frame_touch(struct ddsm_node *n, u64 unit)
{
	if (n->frames.ref && unit < n->frames.nr_cache &&
	    !test_bit(unit, n->frames.ref))
		set_bit(unit, n->frames.ref);
}

bool ddsm_frames_need_room(struct ddsm_node *n)
{
	struct ddsm_frames *f = &n->frames;

	return f->limit && atomic64_read(&f->cached) -
			   atomic64_read(&f->evicting) >= f->limit;
}

/*
 * The hand sweeps the slots of every unit, most of them empty in a large
 * space: a batch at a time under the lock, so neither the frame
 * allocations that share it nor the CPU wait for a whole sweep.  Two
 * sweeps at most (the second chance).  May sleep.
 */
#define CLOCK_BATCH	256

bool ddsm_frames_clock_next(struct ddsm_node *n, u64 *unit)
{
	struct ddsm_frames *f = &n->frames;
	u64 steps = 0, u, end;
	bool found = false;

	if (!f->nr_cache)
		return false;
	while (!found && steps < 2 * f->nr_cache) {
		end = min(steps + CLOCK_BATCH, 2 * f->nr_cache);
		spin_lock(&f->lock);
		for (; steps < end; steps++) {
			u = f->hand;
			f->hand = (f->hand + 1) % f->nr_cache;
			if (!f->cache[u])
				continue;
			if (test_and_clear_bit(u, f->ref))
				continue;	/* second chance */
			*unit = u;
			found = true;
			break;
		}
		spin_unlock(&f->lock);
		cond_resched();
	}
	return found;
}
