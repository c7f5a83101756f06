// SPDX-License-Identifier: GPL-2.0
#include "txbatch.h"

static u32 lines_of(const struct ddsm_txb_read *r)
{
	return r->last - r->first + 1;
}

/* lib/shim.h has no memchr_inv(). */
static bool zeros(const u8 *p, u32 n)
{
	while (n--)
		if (*p++)
			return false;
	return true;
}

static __le64 *vals_of(const void *page, u32 nr)
{
	return (__le64 *)((u8 *)page + ddsm_txb_req_len(nr, 0));
}

u32 ddsm_txb_req_build(void *page, const struct ddsm_txb_read *r, u32 nr,
		       const u64 *val, u32 nval)
{
	struct ddsm_txb_req_hdr *h = page;
	struct ddsm_txb_entry *e = (struct ddsm_txb_entry *)(h + 1);
	__le64 *v = vals_of(page, nr);
	u32 i;

	memset(h, 0, ddsm_txb_req_len(nr, nval));
	h->nr = (u8)nr;
	h->nval = (u8)nval;
	for (i = 0; i < nr; i++) {
		e[i].unit = cpu_to_le64(r[i].unit);
		e[i].first = (u8)r[i].first;
		e[i].last = (u8)r[i].last;
	}
	for (i = 0; i < nval; i++)
		v[i] = cpu_to_le64(val[i]);
	return ddsm_txb_req_len(nr, nval);
}

int ddsm_txb_req_nval(const void *page, u32 len)
{
	const struct ddsm_txb_req_hdr *h = page;

	if (len < sizeof(*h) || !h->nr || h->nr > DDSM_TXB_MAX ||
	    h->nval > DDSM_TXB_MAX_VAL || len != ddsm_txb_req_len(h->nr, h->nval))
		return -EINVAL;
	return h->nval;
}

u64 ddsm_txb_req_val(const void *page, u32 i)
{
	const struct ddsm_txb_req_hdr *h = page;

	return le64_to_cpu(vals_of(page, h->nr)[i]);
}

void ddsm_txb_req_entry(const void *page, u32 i, struct ddsm_txb_read *r)
{
	const struct ddsm_txb_entry *e =
		(const struct ddsm_txb_entry *)
		((const struct ddsm_txb_req_hdr *)page + 1) + i;

	r->unit = le64_to_cpu(e->unit);
	r->first = e->first;
	r->last = e->last;
}

int ddsm_txb_req_check(const struct ddsm_space *s, const void *page,
		       u32 len)
{
	const struct ddsm_txb_req_hdr *h = page;
	const struct ddsm_txb_entry *e = (const struct ddsm_txb_entry *)(h + 1);
	u32 nr, i, j, lines = 0;

	if (len < sizeof(*h))
		return -EINVAL;
	nr = h->nr;
	if (ddsm_txb_req_nval(page, len) < 0 ||
	    !zeros(h->reserved, sizeof(h->reserved)))
		return -EINVAL;
	for (i = 0; i < nr; i++) {
		struct ddsm_txb_read r;

		ddsm_txb_req_entry(page, i, &r);
		if (r.first > r.last ||
		    r.last >= DDSM_TXB_SIZE / DDSM_TXB_LINE ||
		    !zeros(e[i].reserved, sizeof(e[i].reserved)) ||
		    r.unit >= s->size >> DDSM_PROTO_UNIT_SHIFT ||
		    ddsm_unit_home(s, r.unit) != s->node_id)
			return -EINVAL;
		/* A unit once: its lines merged, as READV asks them. */
		for (j = 0; j < i; j++)
			if (le64_to_cpu(e[j].unit) == r.unit)
				return -EINVAL;
		lines += lines_of(&r);
	}
	return lines <= DDSM_TXB_MAX_LINES ? (int)nr : -EINVAL;
}

void ddsm_txb_ans_init(void *page, u32 nr)
{
	struct ddsm_txb_ans_hdr *h = page;

	memset(h, 0, sizeof(*h));
	h->nr = (u8)nr;
}

void ddsm_txb_ans_set(void *page, u32 i, int err)
{
	struct ddsm_txb_ans_hdr *h = page;

	h->err[i] = (u8)-err;
}

int ddsm_txb_ans_check(const void *page, u32 len,
		       const struct ddsm_txb_read *r, u32 nr, int *err,
		       u32 *off)
{
	const struct ddsm_txb_ans_hdr *h = page;
	u32 i, used = sizeof(*h);

	if (len < sizeof(*h) || h->nr != nr || nr > DDSM_TXB_MAX ||
	    !zeros(h->reserved, sizeof(h->reserved)))
		return -EPROTO;
	for (i = 0; i < DDSM_TXB_MAX; i++) {
		if (i >= nr) {
			if (h->err[i])
				return -EPROTO;
			continue;
		}
		err[i] = -(int)h->err[i];
		if (err[i])
			continue;
		off[i] = used;
		used += lines_of(&r[i]) * DDSM_TXB_LINE;
	}
	return used == len ? 0 : -EPROTO;
}

u32 ddsm_txb_own_vals(u64 *val, u32 nr, u32 src)
{
	u32 i, kept = 0;

	for (i = 0; i < nr; i++)
		if (ddsm_txid_unpack(val[i]).node == src)
			val[kept++] = val[i];
	return kept;
}
