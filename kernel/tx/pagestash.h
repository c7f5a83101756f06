/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pages the transaction paths take and give back for every message.
 * The kernel clears each new page (init_on_alloc, on by default in
 * distribution kernels); on the emulated test nodes clearing a page cost
 * more than the message it carried.  A page given back is taken again
 * without being cleared: whoever takes one writes what they send, and
 * never sends or shows bytes they did not write.
 */
#ifndef DDSM_TX_PAGESTASH_H
#define DDSM_TX_PAGESTASH_H

#include <linux/gfp.h>
#include <linux/spinlock.h>

#define DDSM_STASH_PAGES	64

struct ddsm_pagestash {
	spinlock_t lock;		/* nr and page */
	u32 nr;
	struct page *page[DDSM_STASH_PAGES];
};

void ddsm_stash_init(struct ddsm_pagestash *s);
/* A page only the caller holds, with whatever it last held; or NULL. */
struct page *ddsm_stash_get(struct ddsm_pagestash *s);
/* Give @page (may be NULL) back; the transport may still hold it. */
void ddsm_stash_put(struct ddsm_pagestash *s, struct page *page);
/* Free every page: nothing takes one any more. */
void ddsm_stash_drain(struct ddsm_pagestash *s);

#endif /* DDSM_TX_PAGESTASH_H */
