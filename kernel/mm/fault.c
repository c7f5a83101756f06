// SPDX-License-Identifier: GPL-2.0
/*
 * vm_operations for /dev/ddsm mappings.  The mapping is VM_PFNMAP so that
 * no struct page is shared with the rest of mm (no GUP, no COW, no swap):
 * a unit is visible only through PTEs this module installs and removes.
 * pfn_mkwrite is what makes this work: with it, the VMA's page protection
 * stays read-only and every first store to a read-only unit comes here
 * instead of silently becoming writable.
 */
#include <linux/mm.h>
#include <linux/pfn_t.h>
#include <linux/slab.h>
#include "mm.h"
#include "../node/node.h"

static vm_fault_t ddsm_vm_fault(struct vm_fault *vmf)
{
	struct ddsm_node *n = vmf->vma->vm_private_data;

	return ddsm_node_access(n, vmf, vmf->pgoff,
			   !!(vmf->flags & FAULT_FLAG_WRITE), false);
}

/*
 * An upgrade that waited without mmap_lock returns VM_FAULT_RETRY with
 * VM_FAULT_NOPAGE: wp_pfn_shared() then hands it back as it is (the PTE
 * lock is already dropped) instead of finishing the write fault, and the
 * retried fault finds the unit writable.
 */
static vm_fault_t ddsm_vm_pfn_mkwrite(struct vm_fault *vmf)
{
	struct ddsm_node *n = vmf->vma->vm_private_data;
	vm_fault_t ret = ddsm_node_access(n, vmf, vmf->pgoff, true, true);

	return ret & VM_FAULT_RETRY ? ret | VM_FAULT_NOPAGE : ret;
}

struct ddsm_vma_rec {
	struct list_head node;
	const struct vm_area_struct *vma;
	u64 off, len;
};

void ddsm_vmas_init(struct ddsm_vmas *v)
{
	spin_lock_init(&v->lock);
	INIT_LIST_HEAD(&v->list);
	v->lost = 0;
}

bool ddsm_mm_mapped(struct ddsm_node *n, u64 gaddr, u64 len)
{
	struct ddsm_vmas *v = &n->vmas;
	struct ddsm_vma_rec *r;
	bool hit;

	spin_lock(&v->lock);
	hit = v->lost;		/* one not recorded: it may be anywhere */
	list_for_each_entry(r, &v->list, node)
		if (!hit && gaddr < r->off + r->len && r->off < gaddr + len)
			hit = true;
	spin_unlock(&v->lock);
	return hit;
}

/* Called for the first mapping and for every copy (fork, split). */
static void ddsm_vm_open(struct vm_area_struct *vma)
{
	struct ddsm_node *n = vma->vm_private_data;
	struct ddsm_vma_rec *r = kmalloc(sizeof(*r), GFP_KERNEL);

	atomic64_inc(&n->stats.mappings);
	spin_lock(&n->vmas.lock);
	if (r) {
		r->vma = vma;
		r->off = (u64)vma->vm_pgoff << PAGE_SHIFT;
		r->len = vma->vm_end - vma->vm_start;
		list_add(&r->node, &n->vmas.list);
	} else {
		n->vmas.lost++;
	}
	spin_unlock(&n->vmas.lock);
}

static void ddsm_vm_close(struct vm_area_struct *vma)
{
	struct ddsm_node *n = vma->vm_private_data;
	struct ddsm_vma_rec *r, *found = NULL;

	atomic64_dec(&n->stats.mappings);
	spin_lock(&n->vmas.lock);
	list_for_each_entry(r, &n->vmas.list, node)
		if (r->vma == vma) {
			found = r;
			list_del(&r->node);
			break;
		}
	if (!found && n->vmas.lost)
		n->vmas.lost--;
	spin_unlock(&n->vmas.lock);
	kfree(found);
}

static const struct vm_operations_struct ddsm_vm_ops = {
	.open = ddsm_vm_open,
	.close = ddsm_vm_close,
	.fault = ddsm_vm_fault,
	.pfn_mkwrite = ddsm_vm_pfn_mkwrite,
};

static void set_vma_flags(struct vm_area_struct *vma, unsigned long set,
			  unsigned long clear)
{
#ifdef DDSM_HAVE_VM_FLAGS_MOD	/* set by Kbuild: vm_flags is const from 6.3 */
	vm_flags_mod(vma, set, clear);
#else
	vma->vm_flags = (vma->vm_flags | set) & ~clear;
#endif
}

void ddsm_mm_setup_vma(struct ddsm_node *n, struct vm_area_struct *vma)
{
	/*
	 * No mremap growth (the window was range-checked), no core dumps of
	 * remote memory, and no later mprotect(PROT_EXEC).
	 */
	set_vma_flags(vma, VM_PFNMAP | VM_DONTEXPAND | VM_DONTDUMP,
		      VM_MAYEXEC);
	vma->vm_ops = &ddsm_vm_ops;
	vma->vm_private_data = n;
	ddsm_vm_open(vma);
}

vm_fault_t ddsm_mm_map(struct vm_fault *vmf, struct page *frame,
		       bool writable)
{
	struct vm_area_struct *vma = vmf->vma;
	pgprot_t prot = vma->vm_page_prot;

	/* vm_page_prot is write-protected because of pfn_mkwrite. */
	if (writable)
		prot = vm_get_page_prot(vma->vm_flags);
	return vmf_insert_pfn_prot(vma, vmf->address, page_to_pfn(frame),
				   prot);
}

/*
 * Under the unit's line lock, so that an invalidation cannot slip in
 * between the protocol granting the store and the PTE allowing it.  Left
 * to the core (returning 0 from pfn_mkwrite), the PTE would be made
 * writable after the lock is dropped, checked only against the PTE seen
 * at fault time: a zap and a re-map read-only of the same frame in
 * between would be made writable on an S copy.  The pfn is marked
 * special, as this VM_PFNMAP mapping's PTEs are; the return is
 * VM_FAULT_NOPAGE, so the core leaves the PTE alone.
 */
vm_fault_t ddsm_mm_mkwrite(struct vm_fault *vmf, struct page *frame)
{
	return vmf_insert_mixed_mkwrite(vmf->vma, vmf->address,
					__pfn_to_pfn_t(page_to_pfn(frame),
						       PFN_SPECIAL));
}

void ddsm_mm_zap(struct ddsm_node *n, u64 unit)
{
	unmap_mapping_range(n->mapping, (loff_t)ddsm_unit_gaddr(unit),
			    DDSM_PROTO_UNIT_SIZE, 1);
}
