// SPDX-License-Identifier: GPL-2.0
/*
 * The redo log of a ddsm pmem namespace (format in layout.h): format and
 * open it, append records, scan and replay them after a crash, free what
 * the slots hold durably.
 */
#include "layout.h"
#include "layout_util.h"

#define LOGH_CRC_OFF	offsetof(struct ddsm_pm_log_hdr_wire, crc)
#define REC_CRC_OFF	offsetof(struct ddsm_pm_rec_wire, crc)

static u8 *log_ring(const struct ddsm_pm_log *l)
{
	return l->base + DDSM_PM_LOG_HDR_BYTES;
}

/* Bytes a data record of @len bytes takes in the ring. */
static u64 rec_span(u32 len)
{
	return DDSM_PM_REC_HDR + pm_round_up(len, DDSM_PM_LINE);
}

static u64 log_used(const struct ddsm_pm_log *l)
{
	if (l->next_lsn == l->head_lsn)
		return 0;
	if (l->tail_pos > l->head_pos)
		return l->tail_pos - l->head_pos;
	/* Wrapped, or tail == head with records in between: full. */
	return l->ring_len - l->head_pos + l->tail_pos;
}

static bool log_len_ok(u64 len)
{
	return pm_aligned(len) && len >= DDSM_PM_LOG_MIN_BYTES;
}

/* Build header copy @seq & 1 from @l's state and flush it (no fence). */
static void log_hdr_write(struct ddsm_pm_log *l, u64 seq,
			  const struct ddsm_pm_persist *ops)
{
	struct ddsm_pm_log_hdr_wire h;
	u8 *dst = l->base + DDSM_PM_LOGH_COPY_OFF(seq & 1);

	memset(&h, 0, sizeof(h));
	h.magic = cpu_to_le32(DDSM_PM_LOGH_MAGIC);
	h.seq = cpu_to_le64(seq);
	h.epoch = cpu_to_le64(l->epoch);
	h.head_lsn = cpu_to_le64(l->head_lsn);
	h.head_pos = cpu_to_le64(l->head_pos);
	h.ring_len = cpu_to_le64(l->ring_len);
	h.crc = cpu_to_le32(crc_with_hole(0, &h, sizeof(h), LOGH_CRC_OFF));
	memcpy(dst, &h, sizeof(h));
	ops->flush(ops->ctx, dst, sizeof(h));
	l->hdr_seq = seq;
}

int ddsm_pm_log_format(struct ddsm_pm_log *log, void *base, u64 len,
		       u64 epoch, const struct ddsm_pm_persist *ops)
{
	if (!log_len_ok(len))
		return -EINVAL;
	memset(log, 0, sizeof(*log));
	log->base = base;
	log->len = len;
	log->ring_len = len - DDSM_PM_LOG_HDR_BYTES;
	log->epoch = epoch;
	log->head_lsn = 1;
	log->next_lsn = 1;

	memset(log->base, 0, DDSM_PM_LOG_HDR_BYTES);
	memset(log_ring(log), 0, DDSM_PM_REC_HDR);
	ops->flush(ops->ctx, log->base, DDSM_PM_LOG_HDR_BYTES);
	ops->flush(ops->ctx, log_ring(log), DDSM_PM_REC_HDR);
	log_hdr_write(log, 0, ops);
	log_hdr_write(log, 1, ops);
	ops->fence(ops->ctx);
	log->scanned = true;
	log->writable = true;
	return 0;
}

/* Is copy @i of the log header intact?  Sets *magic if it has the magic. */
static bool log_hdr_read(const u8 *base, unsigned int i,
			 struct ddsm_pm_log_hdr_wire *h, bool *magic)
{
	memcpy(h, base + DDSM_PM_LOGH_COPY_OFF(i), sizeof(*h));
	if (le32_to_cpu(h->magic) != DDSM_PM_LOGH_MAGIC)
		return false;
	*magic = true;
	return le32_to_cpu(h->crc) ==
	       crc_with_hole(0, h, sizeof(*h), LOGH_CRC_OFF) &&
	       (le64_to_cpu(h->seq) & 1) == i;
}

int ddsm_pm_log_open(struct ddsm_pm_log *log, void *base, u64 len)
{
	struct ddsm_pm_log_hdr_wire h[2];
	const struct ddsm_pm_log_hdr_wire *p;
	bool magic = false, v0, v1;
	u64 ring_len, head_pos, head_lsn;

	if (!log_len_ok(len))
		return -EINVAL;
	v0 = log_hdr_read(base, 0, &h[0], &magic);
	v1 = log_hdr_read(base, 1, &h[1], &magic);
	if (!v0 && !v1)
		return magic ? -EBADMSG : -EINVAL;
	if (v0 && v1)
		p = le64_to_cpu(h[1].seq) > le64_to_cpu(h[0].seq) ? &h[1] : &h[0];
	else
		p = v1 ? &h[1] : &h[0];

	ring_len = le64_to_cpu(p->ring_len);
	head_pos = le64_to_cpu(p->head_pos);
	head_lsn = le64_to_cpu(p->head_lsn);
	if (ring_len != len - DDSM_PM_LOG_HDR_BYTES || head_pos >= ring_len ||
	    head_pos % DDSM_PM_LINE || !head_lsn)
		return -ERANGE;

	memset(log, 0, sizeof(*log));
	log->base = base;
	log->len = len;
	log->ring_len = ring_len;
	log->epoch = le64_to_cpu(p->epoch);
	log->hdr_seq = le64_to_cpu(p->seq);
	log->head_pos = head_pos;
	log->head_lsn = head_lsn;
	log->tail_pos = head_pos;
	log->next_lsn = head_lsn;
	return 0;
}

/* Write one record (header and data) at ring offset @pos; no flush. */
static void rec_write(const struct ddsm_pm_log *l, u64 pos, u16 type, u64 lsn,
		      u64 unit, u64 ts, u32 off, const void *data, u32 len)
{
	struct ddsm_pm_rec_wire h;
	u8 *dst = log_ring(l) + pos;
	u32 crc;

	memset(&h, 0, sizeof(h));
	h.magic = cpu_to_le32(DDSM_PM_REC_MAGIC);
	h.type = cpu_to_le16(type);
	h.lsn = cpu_to_le64(lsn);
	h.epoch = cpu_to_le64(l->epoch);
	h.unit = cpu_to_le64(unit);
	h.ts = cpu_to_le64(ts);
	h.off = cpu_to_le32(off);
	h.len = cpu_to_le32(len);
	if (len)
		memcpy(dst + DDSM_PM_REC_HDR, data, len);
	/* Over the copy just made: the source may change under us. */
	crc = crc_with_hole(0, &h, sizeof(h), REC_CRC_OFF);
	crc = ddsm_crc32c(crc, dst + DDSM_PM_REC_HDR, len);
	h.crc = cpu_to_le32(crc);
	memcpy(dst, &h, sizeof(h));
}

int ddsm_pm_log_append(struct ddsm_pm_log *log, u64 unit, u64 ts, u32 off,
		       const void *data, u32 len,
		       const struct ddsm_pm_persist *ops)
{
	u64 span = rec_span(len);
	u64 room = log->ring_len - log->tail_pos;
	u64 need = span > room ? room + span : span;
	u8 *ring = log_ring(log);

	if (!log->writable)
		return -EROFS;
	if (!len || len > DDSM_PM_REC_MAX_DATA || !unit_range_ok(off, len))
		return -EINVAL;
	if (need > log->ring_len - log_used(log))
		return -ENOSPC;

	if (span > room) {
		rec_write(log, log->tail_pos, DDSM_PM_REC_PAD, log->next_lsn++,
			  0, 0, 0, NULL, 0);
		ops->flush(ops->ctx, ring + log->tail_pos, DDSM_PM_REC_HDR);
		log->tail_pos = 0;
	}
	rec_write(log, log->tail_pos, DDSM_PM_REC_DATA, log->next_lsn,
		  unit, ts, off, data, len);
	ops->flush(ops->ctx, ring + log->tail_pos, DDSM_PM_REC_HDR + len);
	ops->fence(ops->ctx);

	log->next_lsn++;
	log->tail_pos += span;
	if (log->tail_pos == log->ring_len)
		log->tail_pos = 0;
	return 0;
}

enum rec_verdict { REC_OK, REC_END, REC_TORN };

/*
 * Read the record at ring offset @pos, expected to carry @lsn.  REC_OK
 * fills *rec, *type and *span; REC_TORN: magic present, length or CRC
 * wrong; REC_END: anything else that is not the expected record.
 */
static enum rec_verdict rec_read(const struct ddsm_pm_log *l, u64 pos,
				 u64 lsn, struct ddsm_pm_rec *rec, u16 *type,
				 u64 *span)
{
	const u8 *p = log_ring(l) + pos;
	struct ddsm_pm_rec_wire h;
	u32 off, len, crc;

	memcpy(&h, p, sizeof(h));
	if (le32_to_cpu(h.magic) != DDSM_PM_REC_MAGIC)
		return REC_END;
	*type = le16_to_cpu(h.type);
	off = le32_to_cpu(h.off);
	len = le32_to_cpu(h.len);
	if (*type == DDSM_PM_REC_PAD) {
		if (off || len || h.unit || h.ts)
			return REC_TORN;
		*span = l->ring_len - pos;
	} else if (*type == DDSM_PM_REC_DATA) {
		if (!len || len > DDSM_PM_REC_MAX_DATA ||
		    !unit_range_ok(off, len))
			return REC_TORN;
		*span = rec_span(len);
		if (*span > l->ring_len - pos)
			return REC_TORN;
	} else {
		return REC_TORN;
	}

	crc = crc_with_hole(0, &h, sizeof(h), REC_CRC_OFF);
	crc = ddsm_crc32c(crc, p + DDSM_PM_REC_HDR, len);
	if (crc != le32_to_cpu(h.crc))
		return REC_TORN;
	/* Committed, but of another epoch or lap: stale, not torn. */
	if (le64_to_cpu(h.epoch) != l->epoch || le64_to_cpu(h.lsn) != lsn ||
	    h.reserved0 || h.reserved1 || h.reserved2)
		return REC_END;

	rec->lsn = lsn;
	rec->unit = le64_to_cpu(h.unit);
	rec->ts = le64_to_cpu(h.ts);
	rec->off = off;
	rec->len = len;
	rec->data = p + DDSM_PM_REC_HDR;
	return REC_OK;
}

int ddsm_pm_log_scan(struct ddsm_pm_log *log, ddsm_pm_rec_fn fn, void *ctx,
		     struct ddsm_pm_replay_stats *st)
{
	u64 pos = log->head_pos, lsn = log->head_lsn, walked = 0, span;
	struct ddsm_pm_rec rec;
	enum rec_verdict v;
	u16 type;
	int ret;

	while (walked < log->ring_len) {
		v = rec_read(log, pos, lsn, &rec, &type, &span);
		if (v == REC_TORN && st)
			st->torn++;
		/* A record reaching past the head is not ours either. */
		if (v != REC_OK || span > log->ring_len - walked)
			break;
		if (type == DDSM_PM_REC_PAD) {
			if (st)
				st->pads++;
		} else {
			if (st)
				st->seen++;
			if (fn) {
				ret = fn(ctx, &rec);
				if (ret < 0)
					return ret;
			}
		}
		walked += span;
		pos += span;
		if (pos == log->ring_len)
			pos = 0;
		lsn++;
	}
	log->tail_pos = pos;
	log->next_lsn = lsn;
	log->scanned = true;
	return 0;
}

struct replay_ctx {
	const struct ddsm_pm_slots *slots;
	const struct ddsm_pm_persist *ops;
	struct ddsm_pm_replay_stats *st;
};

static int replay_one(void *ctx, const struct ddsm_pm_rec *rec)
{
	struct replay_ctx *c = ctx;
	int ret = ddsm_pm_slot_apply(c->slots, rec, c->ops);

	if (ret == DDSM_PM_APPLIED)
		c->st->applied++;
	else if (ret == DDSM_PM_OBSOLETE)
		c->st->obsolete++;
	else if (ret == DDSM_PM_PRESENT)
		c->st->present++;
	return ret < 0 ? ret : 0;
}

int ddsm_pm_log_replay(struct ddsm_pm_log *log,
		       const struct ddsm_pm_slots *slots,
		       const struct ddsm_pm_persist *ops,
		       struct ddsm_pm_replay_stats *st)
{
	struct ddsm_pm_replay_stats local;
	struct replay_ctx c;

	if (!st)
		st = &local;
	memset(st, 0, sizeof(*st));
	c.slots = slots;
	c.ops = ops;
	c.st = st;
	return ddsm_pm_log_scan(log, replay_one, &c, st);
}

int ddsm_pm_log_advance_head(struct ddsm_pm_log *log, u64 lsn,
			     const struct ddsm_pm_persist *ops)
{
	u64 pos = log->head_pos, cur = log->head_lsn, span;
	struct ddsm_pm_rec_wire h;
	u32 len;

	if (lsn < log->head_lsn || lsn > log->next_lsn)
		return -EINVAL;
	if (lsn == log->head_lsn)
		return 0;
	/* Find @lsn's position from the headers written since the head. */
	for (; cur < lsn; cur++) {
		memcpy(&h, log_ring(log) + pos, sizeof(h));
		if (le32_to_cpu(h.magic) != DDSM_PM_REC_MAGIC ||
		    le64_to_cpu(h.lsn) != cur ||
		    le64_to_cpu(h.epoch) != log->epoch)
			return -EIO;
		len = le32_to_cpu(h.len);
		if (le16_to_cpu(h.type) == DDSM_PM_REC_PAD)
			span = log->ring_len - pos;
		else if (le16_to_cpu(h.type) == DDSM_PM_REC_DATA &&
			 len <= DDSM_PM_REC_MAX_DATA)
			span = rec_span(len);
		else
			return -EIO;
		if (span > log->ring_len - pos)
			return -EIO;
		pos += span;
		if (pos == log->ring_len)
			pos = 0;
	}
	log->head_pos = pos;
	log->head_lsn = lsn;
	log_hdr_write(log, log->hdr_seq + 1, ops);
	ops->fence(ops->ctx);
	return 0;
}

int ddsm_pm_log_restart(struct ddsm_pm_log *log,
			const struct ddsm_pm_persist *ops)
{
	if (!log->scanned)
		return -EINVAL;
	log->head_pos = log->tail_pos;
	log->head_lsn = log->next_lsn;
	log->epoch++;
	log_hdr_write(log, log->hdr_seq + 1, ops);
	ops->fence(ops->ctx);
	log->writable = true;
	return 0;
}
