/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The mm layer: frames that hold units on this node, the mapping of
 * /dev/ddsm into processes, and removal of PTEs.  It never decides a
 * protocol transition; core/access.c does, through kernel/proto.
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
	spinlock_t lock;	/* orders racing first touches of one unit */
	atomic64_t resident;
};

int ddsm_frames_init(struct ddsm_frames *f, u64 nr_home, u64 nr_units,
		     bool cluster);
void ddsm_frames_destroy(struct ddsm_frames *f);

/* The frame that holds @unit on this node, allocated if @gfp allows. */
struct page *ddsm_frame_get(struct ddsm_node *n, u64 unit, gfp_t gfp);
/* The frame, or NULL if none is allocated. */
struct page *ddsm_frame_peek(struct ddsm_node *n, u64 unit);
/* This node stopped caching @unit: give back a cache frame. */
void ddsm_frame_release(struct ddsm_node *n, u64 unit);

/* Map @frame at the faulting address. */
vm_fault_t ddsm_mm_map(struct vm_fault *vmf, struct page *frame,
		       bool writable);
/* Remove every PTE of @unit in every process of this node; may sleep. */
void ddsm_mm_zap(struct ddsm_node *n, u64 unit);

/* Set up a VMA that passed argument checks. */
void ddsm_mm_setup_vma(struct ddsm_node *n, struct vm_area_struct *vma);

#endif /* DDSM_MM_H */
