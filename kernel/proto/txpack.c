// SPDX-License-Identifier: GPL-2.0
#include "txpack.h"

static u32 rec_size(u32 len)
{
	return sizeof(struct ddsm_txp_rec) + ((len + 7) & ~7u);
}

void ddsm_txp_init(void *page, u64 participants)
{
	struct ddsm_txp_hdr *h = page;

	memset(h, 0, sizeof(*h));
	h->participants = cpu_to_le64(participants);
	h->used = cpu_to_le32(sizeof(*h));
}

int ddsm_txp_add(void *page, u64 gaddr, const void *data, u32 len)
{
	struct ddsm_txp_hdr *h = page;
	u32 used = le32_to_cpu(h->used), nr = le32_to_cpu(h->nr);
	struct ddsm_txp_rec *r;

	if (!len || len > DDSM_TXP_SIZE || nr >= DDSM_TXP_MAX_RECS ||
	    used + rec_size(len) > DDSM_TXP_SIZE)
		return -E2BIG;
	r = (struct ddsm_txp_rec *)((u8 *)page + used);
	r->gaddr = cpu_to_le64(gaddr);
	r->len = cpu_to_le32(len);
	r->reserved = 0;
	memcpy(r + 1, data, len);
	/* The padding travels too: never old bytes of the page. */
	memset((u8 *)(r + 1) + len, 0, rec_size(len) - sizeof(*r) - len);
	h->used = cpu_to_le32(used + rec_size(len));
	h->nr = cpu_to_le32(nr + 1);
	return 0;
}

u64 ddsm_txp_participants(const void *page)
{
	return le64_to_cpu(((const struct ddsm_txp_hdr *)page)->participants);
}

u32 ddsm_txp_used(const void *page)
{
	return le32_to_cpu(((const struct ddsm_txp_hdr *)page)->used);
}

void ddsm_txp_first(const void *page, struct ddsm_txp_it *it)
{
	it->pos = sizeof(struct ddsm_txp_hdr);
	it->left = le32_to_cpu(((const struct ddsm_txp_hdr *)page)->nr);
}

/* The walk trusts sizes only within the page; ddsm_txp_check() the rest. */
bool ddsm_txp_next(const void *page, struct ddsm_txp_it *it)
{
	const struct ddsm_txp_rec *r;

	if (!it->left ||
	    it->pos + sizeof(*r) > DDSM_TXP_SIZE)
		return false;
	r = (const struct ddsm_txp_rec *)((const u8 *)page + it->pos);
	it->gaddr = le64_to_cpu(r->gaddr);
	it->len = le32_to_cpu(r->len);
	if (!it->len || it->len > DDSM_TXP_SIZE - it->pos - sizeof(*r))
		return false;
	it->data = (const u8 *)(r + 1);
	it->pos += rec_size(it->len);
	it->left--;
	return true;
}

int ddsm_txp_check(const struct ddsm_space *s, const void *page, u32 size)
{
	const struct ddsm_txp_hdr *h = page;
	u32 nr, used, seen = 0;
	struct ddsm_txp_it it;

	if (size < sizeof(*h) || size > DDSM_TXP_SIZE)
		return -EINVAL;
	nr = le32_to_cpu(h->nr);
	used = le32_to_cpu(h->used);
	if (nr > DDSM_TXP_MAX_RECS || used > size || used < sizeof(*h))
		return -EINVAL;
	ddsm_txp_first(page, &it);
	while (ddsm_txp_next(page, &it)) {
		u64 unit = it.gaddr >> DDSM_PROTO_UNIT_SHIFT;

		if (le32_to_cpu(((const struct ddsm_txp_rec *)
				 (it.data - sizeof(struct ddsm_txp_rec)))->reserved))
			return -EINVAL;
		if (it.gaddr >= s->size || it.len > s->size - it.gaddr ||
		    (it.gaddr + it.len - 1) >> DDSM_PROTO_UNIT_SHIFT != unit ||
		    ddsm_unit_home(s, unit) != s->node_id ||
		    it.pos > used)
			return -EINVAL;
		seen++;
	}
	return seen == nr ? 0 : -EINVAL;
}

int ddsm_txp_ranges(const void *page, struct ddsm_tx_range *r, u32 max)
{
	struct ddsm_tx_range all[DDSM_TXP_MAX_RECS];
	struct ddsm_txp_it it;
	u32 nr = 0, i, j, out = 0;

	ddsm_txp_first(page, &it);
	while (nr < DDSM_TXP_MAX_RECS && ddsm_txp_next(page, &it)) {
		struct ddsm_tx_range x = {
			.first = it.gaddr >> DDSM_LINE_SHIFT,
			.last = (it.gaddr + it.len - 1) >> DDSM_LINE_SHIFT,
		};

		/* Insertion sort: at most 64 records. */
		for (j = nr; j && all[j - 1].first > x.first; j--)
			all[j] = all[j - 1];
		all[j] = x;
		nr++;
	}
	for (i = 0; i < nr; i++) {
		if (out && all[i].first <= r[out - 1].last + 1) {
			if (all[i].last > r[out - 1].last)
				r[out - 1].last = all[i].last;
			continue;
		}
		if (out == max)
			return -E2BIG;
		r[out++] = all[i];
	}
	return out;
}
