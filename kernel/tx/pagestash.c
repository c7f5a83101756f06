// SPDX-License-Identifier: GPL-2.0
/*
 * A small stack of pages kept for reuse (pagestash.h).  A page is taken
 * again only once its reference is the stash's alone: a page handed to
 * the transport is referenced by it until the send completed (rdma_tx.c,
 * loop.c), and no one else gains a reference to a page in the stash.
 */
#include <linux/mm.h>
#include "pagestash.h"

void ddsm_stash_init(struct ddsm_pagestash *s)
{
	spin_lock_init(&s->lock);
	s->nr = 0;
}

struct page *ddsm_stash_get(struct ddsm_pagestash *s)
{
	struct page *page = NULL;
	u32 i;

	spin_lock(&s->lock);
	for (i = s->nr; i-- > 0;) {
		if (page_ref_count(s->page[i]) != 1)
			continue;
		page = s->page[i];
		s->page[i] = s->page[--s->nr];
		break;
	}
	spin_unlock(&s->lock);
	return page ?: alloc_page(GFP_KERNEL);
}

void ddsm_stash_put(struct ddsm_pagestash *s, struct page *page)
{
	if (!page)
		return;
	spin_lock(&s->lock);
	if (s->nr < DDSM_STASH_PAGES) {
		s->page[s->nr++] = page;
		page = NULL;
	}
	spin_unlock(&s->lock);
	if (page)
		put_page(page);
}

void ddsm_stash_drain(struct ddsm_pagestash *s)
{
	spin_lock(&s->lock);
	while (s->nr)
		put_page(s->page[--s->nr]);
	spin_unlock(&s->lock);
}
