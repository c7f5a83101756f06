// SPDX-License-Identifier: GPL-2.0
/*
 * Transactional regions (docs/transactions.md): ranges of the global
 * space whose data only HADES transactions read and write.  mmap of a
 * range overlapping one is refused (EACCES), a range mapped or cached
 * here cannot become one (EBUSY), and a home refuses a coherence request
 * for one of their units (node/rx.c), so their data never enters
 * coherence and the committed copy is always the home's frame.  Kept in
 * memory, declared the same way on every node.
 */
#include <linux/printk.h>
#include "../node/node.h"
#include "tx.h"

static bool overlap(u64 a, u64 alen, u64 b, u64 blen)
{
	return a < b + blen && b < a + alen;
}

bool ddsm_tx_region_overlaps(struct ddsm_node *n, u64 gaddr, u64 len)
{
	struct ddsm_txs *t = n->tx;
	bool hit = false;
	u32 i;

	mutex_lock(&t->regions_lock);
	for (i = 0; i < t->nr_regions && !hit; i++)
		hit = overlap(gaddr, len, t->regions[i].gaddr,
			      t->regions[i].len);
	mutex_unlock(&t->regions_lock);
	return hit;
}

bool ddsm_tx_region_holds(struct ddsm_node *n, u64 gaddr, u64 len)
{
	struct ddsm_txs *t = n->tx;
	bool in = false;
	u32 i;

	if (!len || gaddr + len < gaddr)
		return false;
	mutex_lock(&t->regions_lock);
	for (i = 0; i < t->nr_regions && !in; i++)
		in = gaddr >= t->regions[i].gaddr &&
		     gaddr + len <= t->regions[i].gaddr + t->regions[i].len;
	mutex_unlock(&t->regions_lock);
	return in;
}

/*
 * A unit already cached here, or mapped in some process (faulted or
 * not), would keep or get a coherent copy.
 */
static bool touched(struct ddsm_node *n, u64 gaddr, u64 len)
{
	u64 u;

	if (ddsm_mm_mapped(n, gaddr, len))
		return true;
	for (u = ddsm_gaddr_unit(gaddr); u < ddsm_gaddr_unit(gaddr + len); u++)
		if (READ_ONCE(ddsm_cache_line(&n->cache, u)->state) != DDSM_C_I)
			return true;
	return false;
}

/*
 * mmap's side: its check against the regions and the VMA's set-up under
 * the same lock as a region's declaration, so neither slips in between
 * the other's check and its effect.
 */
int ddsm_tx_region_mmap(struct ddsm_node *n, struct vm_area_struct *vma,
			u64 off, u64 len)
{
	struct ddsm_txs *t = n->tx;
	int ret = 0;
	u32 i;

	mutex_lock(&t->regions_lock);
	for (i = 0; i < t->nr_regions && !ret; i++)
		if (overlap(off, len, t->regions[i].gaddr, t->regions[i].len))
			ret = -EACCES;
	if (!ret)
		ddsm_mm_setup_vma(n, vma);
	mutex_unlock(&t->regions_lock);
	return ret;
}

/*
 * A region that overlaps or touches others is merged with them: their
 * units are transactional already, so only the new ones must be
 * untouched, and a program may lay its tables out anew in each run.
 */
int ddsm_tx_region_add(struct ddsm_node *n,
		       const struct ddsm_tx_region_arg *a)
{
	struct ddsm_txs *t = n->tx;
	u64 lo = a->gaddr, hi = a->gaddr + a->len;
	int ret = 0;
	u32 i;

	if (a->flags || a->reserved || !a->len ||
	    (a->gaddr | a->len) & (DDSM_UNIT_SIZE - 1))
		return -EINVAL;
	if (a->gaddr >= n->space.size || a->len > n->space.size - a->gaddr)
		return -ERANGE;
	mutex_lock(&t->regions_lock);
	for (i = 0; i < t->nr_regions; i++)
		if (t->regions[i].gaddr <= lo &&
		    hi <= t->regions[i].gaddr + t->regions[i].len)
			goto out;	/* declared already */
	if (touched(n, a->gaddr, a->len)) {
		ret = -EBUSY;
		goto out;
	}
	/* Take in every region it overlaps or touches. */
	for (i = 0; i < t->nr_regions;) {
		u64 rlo = t->regions[i].gaddr;
		u64 rhi = rlo + t->regions[i].len;

		if (lo <= rhi && rlo <= hi) {	/* overlap, or touch */
			lo = min(lo, rlo);
			hi = max(hi, rhi);
			t->regions[i] = t->regions[--t->nr_regions];
			continue;
		}
		i++;
	}
	if (t->nr_regions == DDSM_TX_MAX_REGIONS) {
		ret = -ENOSPC;
		goto out;
	}
	t->regions[t->nr_regions].gaddr = lo;
	t->regions[t->nr_regions].len = hi - lo;
	t->nr_regions++;
	pr_info("ddsm: region [%#llx, %#llx) is transactional\n", lo, hi);
out:
	mutex_unlock(&t->regions_lock);
	return ret;
}
