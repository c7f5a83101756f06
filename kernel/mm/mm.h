/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The mm layer: frames that hold units on this node, the mapping of
 * /dev/ddsm into processes, and removal of PTEs.  It never decides a
 * protocol transition; node/access.c does, through kernel/proto.
 */
#ifndef DDSM_MM_H
#define DDSM_MM_H

#include <linux/mm.h>
#include <linux/atomic.h>
#include <linux/spinlock.h>

struct ddsm_node;

/*
 * Frames of the units homed here: home memory, allocated zeroed on first
 * touch and kept until the module goes.  Units homed elsewhere get a cache
 * frame on first touch; with no eviction yet, it is kept too.
 */
struct ddsm_frames {
	struct page **home;
	u64 nr_home;
	struct page **cache;	/* units homed elsewhere, by unit number */
	u64 nr_cache;
	unsigned long *ref;	/* CLOCK: cache unit used since the hand passed */
	unsigned long *leaving;	/* cache units whose eviction is in flight */
	u64 hand;		/* CLOCK hand, a unit number */
	u64 limit;		/* most cache frames (0: no limit) */
	spinlock_t lock;	/* first touches of one unit; the hand; chunk */
	/*
	 * Zeroed pages not yet handed out, and how many of each were: one
	 * chunk for home frames, one for cache frames (charged to the
	 * faulting task's memory cgroup; home frames are charged to no
	 * one, they live as long as the module).
	 */
	struct page *chunk[2];
	unsigned int chunk_used[2];
	atomic64_t resident;	/* home and cache frames */
	atomic64_t cached;	/* cache frames */
	atomic64_t evicting;	/* cache frames on their way out */
	wait_queue_head_t room;	/* woken when a cache frame goes */
};

int ddsm_frames_init(struct ddsm_frames *f, u64 nr_home, u64 nr_units,
		     bool cluster, u64 limit);
void ddsm_frames_destroy(struct ddsm_frames *f);

/* The frame that holds @unit on this node, allocated if @gfp allows. */
struct page *ddsm_frame_get(struct ddsm_node *n, u64 unit, gfp_t gfp);
/* The frame, or NULL if none is allocated. */
struct page *ddsm_frame_peek(struct ddsm_node *n, u64 unit);
/*
 * This node stopped caching @unit: give back its cache frame.  The caller
 * holds the unit's cache-line lock and has checked that no event uses it.
 */
void ddsm_frame_release(struct ddsm_node *n, u64 unit);

/*
 * A takeover (durable/takeover.c) switches units from cached to homed here:
 * the home frame at local index @idx, allocated, whatever the unit's home
 * says yet; the cache frame of @unit, and giving it back.
 */
struct page *ddsm_frame_get_local(struct ddsm_node *n, u64 idx);
struct page *ddsm_frame_cache_peek(struct ddsm_node *n, u64 unit);
void ddsm_frame_cache_drop(struct ddsm_node *n, u64 unit);

/* An eviction of @unit started: count its frame as leaving. */
void ddsm_frame_leaving(struct ddsm_node *n, u64 unit);

/* Mark a cache unit used, for CLOCK. */
void ddsm_frame_touch(struct ddsm_node *n, u64 unit);
/* Would one more cache frame exceed the limit, counting those leaving? */
bool ddsm_frames_need_room(struct ddsm_node *n);
/*
 * Next eviction candidate by CLOCK (second chance): a cache unit not used
 * since the hand last passed.  False if a whole sweep found none.
 */
bool ddsm_frames_clock_next(struct ddsm_node *n, u64 *unit);

/* Give cache frames back under memory pressure (shrink.c). */
int ddsm_shrinker_register(struct ddsm_node *n);
void ddsm_shrinker_unregister(struct ddsm_node *n);

/* Map @frame at the faulting address. */
vm_fault_t ddsm_mm_map(struct vm_fault *vmf, struct page *frame,
		       bool writable);
/* pfn_mkwrite: make the read-only PTE of @frame writable (or install it). */
vm_fault_t ddsm_mm_mkwrite(struct vm_fault *vmf, struct page *frame);
/* Remove every PTE of @unit in every process of this node; may sleep. */
void ddsm_mm_zap(struct ddsm_node *n, u64 unit);

/* Set up a VMA that passed argument checks. */
void ddsm_mm_setup_vma(struct ddsm_node *n, struct vm_area_struct *vma);

/*
 * The ranges of the global space mapped in some process of this node,
 * one record per VMA as it was mapped or copied (fork, split, mremap):
 * what DDSM_IOC_TX_REGION must not take (tx/region.c).  A split VMA
 * keeps its whole first range until it is closed: the answer may say
 * "mapped" of a range no longer mapped, never the other way round.
 */
struct ddsm_vmas {
	spinlock_t lock;	/* list and lost */
	struct list_head list;
	u32 lost;		/* records that could not be allocated */
};

void ddsm_vmas_init(struct ddsm_vmas *v);
/* Is any byte of [@gaddr, +@len) mapped here? */
bool ddsm_mm_mapped(struct ddsm_node *n, u64 gaddr, u64 len);

#endif /* DDSM_MM_H */
