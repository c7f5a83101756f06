// SPDX-License-Identifier: GPL-2.0
/*
 * On-media layout of a ddsm pmem namespace: encode, decode and check the
 * superblock, region table and slot headers (format in layout.h); the
 * redo log is log.c's.
 */
#include "layout.h"
#include "layout_util.h"

bool ddsm_pm_all_zero(const void *p, size_t len)
{
	const u8 *b = p;

	while (len--)
		if (*b++)
			return false;
	return true;
}

/* ---------------------------------------------------------------------- */
/* Superblock. */

#define SB_CRC_OFF	offsetof(struct ddsm_pm_sb_wire, crc)
#define HOME_POLICY_NR	2	/* interleave, range (proto/space.h) */

void ddsm_pm_sb_encode(const struct ddsm_pm_sb_info *in, void *buf4k)
{
	struct ddsm_pm_sb_wire *w = buf4k;

	memset(buf4k, 0, DDSM_PM_SB_BYTES);
	memcpy(w->magic, DDSM_PM_MAGIC, DDSM_PM_MAGIC_LEN);
	w->version = cpu_to_le32(DDSM_PM_VERSION);
	w->cluster_id = cpu_to_le64(in->cluster_id);
	w->generation = cpu_to_le64(in->generation);
	w->ns_bytes = cpu_to_le64(in->ns_bytes);
	w->space_bytes = cpu_to_le64(in->space_bytes);
	w->node_id = cpu_to_le32(in->node_id);
	w->nr_nodes = cpu_to_le32(in->nr_nodes);
	w->unit_size = cpu_to_le32(in->unit_size);
	w->home_policy = cpu_to_le32(in->home_policy);
	w->flags = cpu_to_le32(in->flags);
	w->nr_slots = cpu_to_le64(in->nr_slots);
	w->region_off = cpu_to_le64(in->region_off);
	w->region_len = cpu_to_le64(in->region_len);
	w->slot_hdr_off = cpu_to_le64(in->slot_hdr_off);
	w->slot_hdr_len = cpu_to_le64(in->slot_hdr_len);
	w->slot_data_off = cpu_to_le64(in->slot_data_off);
	w->slot_data_len = cpu_to_le64(in->slot_data_len);
	w->log_off = cpu_to_le64(in->log_off);
	w->log_len = cpu_to_le64(in->log_len);
	w->crc = cpu_to_le32(crc_with_hole(0, buf4k, DDSM_PM_SB_BYTES,
					   SB_CRC_OFF));
}

/* An area lies after the superblocks, aligned, inside the namespace. */
static bool area_ok(u64 off, u64 len, u64 ns_bytes)
{
	return pm_aligned(off) && pm_aligned(len) && off >= DDSM_PM_SB_AREA &&
	       off <= ns_bytes && len <= ns_bytes - off;
}

static bool sb_geometry_ok(const struct ddsm_pm_sb_info *s)
{
	const u64 off[4] = { s->region_off, s->slot_hdr_off,
			     s->slot_data_off, s->log_off };
	const u64 len[4] = { s->region_len, s->slot_hdr_len,
			     s->slot_data_len, s->log_len };
	int i, j;

	if (s->unit_size != DDSM_PM_UNIT_SIZE)
		return false;
	if (!s->nr_nodes || s->nr_nodes > DDSM_PM_MAX_NODES ||
	    s->node_id >= s->nr_nodes || s->home_policy >= HOME_POLICY_NR)
		return false;
	if (!s->space_bytes || s->space_bytes % DDSM_PM_UNIT_SIZE)
		return false;
	/* Bounds nr_slots so that the products below cannot overflow. */
	if (s->nr_slots > s->ns_bytes / DDSM_PM_UNIT_SIZE)
		return false;
	if (s->region_len < DDSM_PM_REGIONS * DDSM_PM_LINE ||
	    s->slot_hdr_len < s->nr_slots * DDSM_PM_LINE ||
	    s->slot_data_len < s->nr_slots * DDSM_PM_UNIT_SIZE ||
	    s->log_len < DDSM_PM_LOG_MIN_BYTES)
		return false;
	for (i = 0; i < 4; i++) {
		if (!area_ok(off[i], len[i], s->ns_bytes))
			return false;
		/* Both inside the namespace: the sums cannot overflow. */
		for (j = 0; j < i; j++)
			if (len[i] && len[j] && off[i] < off[j] + len[j] &&
			    off[j] < off[i] + len[i])
				return false;
	}
	return true;
}

int ddsm_pm_sb_decode(const void *buf4k, struct ddsm_pm_sb_info *o)
{
	const struct ddsm_pm_sb_wire *w = buf4k;

	if (memcmp(w->magic, DDSM_PM_MAGIC, DDSM_PM_MAGIC_LEN))
		return -EINVAL;
	if (le32_to_cpu(w->version) != DDSM_PM_VERSION)
		return -EPROTONOSUPPORT;
	if (le32_to_cpu(w->crc) !=
	    crc_with_hole(0, buf4k, DDSM_PM_SB_BYTES, SB_CRC_OFF))
		return -EBADMSG;

	o->cluster_id = le64_to_cpu(w->cluster_id);
	o->generation = le64_to_cpu(w->generation);
	o->ns_bytes = le64_to_cpu(w->ns_bytes);
	o->space_bytes = le64_to_cpu(w->space_bytes);
	o->node_id = le32_to_cpu(w->node_id);
	o->nr_nodes = le32_to_cpu(w->nr_nodes);
	o->unit_size = le32_to_cpu(w->unit_size);
	o->home_policy = le32_to_cpu(w->home_policy);
	o->flags = le32_to_cpu(w->flags);
	o->nr_slots = le64_to_cpu(w->nr_slots);
	o->region_off = le64_to_cpu(w->region_off);
	o->region_len = le64_to_cpu(w->region_len);
	o->slot_hdr_off = le64_to_cpu(w->slot_hdr_off);
	o->slot_hdr_len = le64_to_cpu(w->slot_hdr_len);
	o->slot_data_off = le64_to_cpu(w->slot_data_off);
	o->slot_data_len = le64_to_cpu(w->slot_data_len);
	o->log_off = le64_to_cpu(w->log_off);
	o->log_len = le64_to_cpu(w->log_len);

	/* Valid CRC but unknown bits: written by a newer version. */
	if ((o->flags & ~DDSM_PM_SB_FLAGS) || w->reserved0)
		return -EPROTONOSUPPORT;
	return sb_geometry_ok(o) ? 0 : -ERANGE;
}

/* How much an error tells about a copy: "ours but broken" beats "not ours". */
static int sb_err_rank(int err)
{
	switch (err) {
	case -EPROTONOSUPPORT:
		return 3;
	case -ERANGE:
		return 2;
	case -EBADMSG:
		return 1;
	default:
		return 0;
	}
}

int ddsm_pm_sb_pick(const void *a, const void *b, struct ddsm_pm_sb_info *info)
{
	struct ddsm_pm_sb_info ia, ib;
	int ea = ddsm_pm_sb_decode(a, &ia);
	int eb = ddsm_pm_sb_decode(b, &ib);

	if (!ea && (eb || ia.generation >= ib.generation)) {
		*info = ia;
		return 0;
	}
	if (!eb) {
		*info = ib;
		return 1;
	}
	return sb_err_rank(ea) >= sb_err_rank(eb) ? ea : eb;
}

void ddsm_pm_sb_write(void *media, const struct ddsm_pm_sb_info *info,
		      const struct ddsm_pm_persist *ops)
{
	struct ddsm_pm_sb_info cur;
	u8 *m = media;
	unsigned int first, i;

	/*
	 * The copy pick() would not choose goes first: when only one copy
	 * is valid, a torn write of it would leave none.
	 */
	first = ddsm_pm_sb_pick(m, m + DDSM_PM_SB_BYTES, &cur) == 0 ? 1 : 0;
	for (i = 0; i < 2; i++) {
		u8 *copy = m + (first ^ i) * DDSM_PM_SB_BYTES;

		ddsm_pm_sb_encode(info, copy);
		ops->flush(ops->ctx, copy, DDSM_PM_SB_BYTES);
		ops->fence(ops->ctx);
	}
}

int ddsm_pm_sb_match(const struct ddsm_pm_sb_info *media,
		     const struct ddsm_pm_sb_info *want)
{
	if (media->cluster_id != want->cluster_id)
		return -EXDEV;
	if (media->node_id != want->node_id)
		return -EREMCHG;
	if (media->nr_nodes != want->nr_nodes ||
	    media->space_bytes != want->space_bytes ||
	    media->unit_size != want->unit_size ||
	    media->home_policy != want->home_policy)
		return -EMEDIUMTYPE;
	if (media->ns_bytes > want->ns_bytes)
		return -ENOSPC;
	return 0;
}

int ddsm_pm_geometry(u64 ns_bytes, u32 nr_slots, u32 log_bytes,
		     struct ddsm_pm_sb_info *out)
{
	u64 region_len = pm_round_up(DDSM_PM_REGIONS * DDSM_PM_LINE,
				     DDSM_PM_BLOCK);
	u64 hdr_len = pm_round_up((u64)nr_slots * DDSM_PM_LINE, DDSM_PM_BLOCK);
	u64 data_len = (u64)nr_slots * DDSM_PM_UNIT_SIZE;
	u64 end;

	if (!pm_aligned(log_bytes) || log_bytes < DDSM_PM_LOG_MIN_BYTES)
		return -EINVAL;
	/* At most 2^45 bytes in all: no overflow. */
	end = DDSM_PM_REGION_OFF + region_len + hdr_len + data_len + log_bytes;
	if (end > ns_bytes)
		return -ENOSPC;

	out->ns_bytes = ns_bytes;
	out->nr_slots = nr_slots;
	out->region_off = DDSM_PM_REGION_OFF;
	out->region_len = region_len;
	out->slot_hdr_off = out->region_off + region_len;
	out->slot_hdr_len = hdr_len;
	out->slot_data_off = out->slot_hdr_off + hdr_len;
	out->slot_data_len = data_len;
	out->log_off = out->slot_data_off + data_len;
	out->log_len = log_bytes;
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Region table. */

#define REGION_CRC_OFF	offsetof(struct ddsm_pm_region_wire, crc)

static const char *const model_names[DDSM_PM_MODEL_NR] = {
	[DDSM_PM_SYNC] = "sync",
	[DDSM_PM_STRICT] = "strict",
	[DDSM_PM_READ_ENF] = "read_enf",
	[DDSM_PM_EVENTUAL] = "eventual",
	[DDSM_PM_SCOPE] = "scope",
};

const char *ddsm_pm_model_name(u32 model)
{
	return model < DDSM_PM_MODEL_NR ? model_names[model] : "?";
}

int ddsm_pm_model_parse(const char *name)
{
	size_t len = strlen(name);
	u32 i;

	/* A module parameter may end with a newline (sysfs_streq's rule). */
	if (len && name[len - 1] == '\n')
		len--;
	for (i = 0; i < DDSM_PM_MODEL_NR; i++)
		if (strlen(model_names[i]) == len &&
		    !strncmp(name, model_names[i], len))
			return i;
	return -EINVAL;
}

void ddsm_pm_region_encode(const struct ddsm_pm_region *r, void *ent)
{
	struct ddsm_pm_region_wire *w = ent;

	memset(w, 0, sizeof(*w));
	w->start = cpu_to_le64(r->start);
	w->len = cpu_to_le64(r->len);
	w->model = cpu_to_le32(r->model);
	w->nr_backups = cpu_to_le32(r->nr_backups);
	w->flags = cpu_to_le32(r->flags);
	w->crc = cpu_to_le32(crc_with_hole(0, w, sizeof(*w), REGION_CRC_OFF));
}

void ddsm_pm_region_write(void *ent, const struct ddsm_pm_region *r,
			  const struct ddsm_pm_persist *ops)
{
	ddsm_pm_region_encode(r, ent);
	ops->flush(ops->ctx, ent, sizeof(struct ddsm_pm_region_wire));
	ops->fence(ops->ctx);
}

int ddsm_pm_region_decode(const void *ent, struct ddsm_pm_region *r)
{
	const struct ddsm_pm_region_wire *w = ent;

	if (ddsm_pm_all_zero(ent, sizeof(*w)))
		return -ENOENT;
	if (le32_to_cpu(w->crc) !=
	    crc_with_hole(0, w, sizeof(*w), REGION_CRC_OFF))
		return -EBADMSG;

	r->start = le64_to_cpu(w->start);
	r->len = le64_to_cpu(w->len);
	r->model = le32_to_cpu(w->model);
	r->nr_backups = le32_to_cpu(w->nr_backups);
	r->flags = le32_to_cpu(w->flags);

	if (r->model >= DDSM_PM_MODEL_NR || (r->flags & ~DDSM_PM_REGION_FLAGS))
		return -EINVAL;
	if (!r->len || r->start % DDSM_PM_UNIT_SIZE ||
	    r->len % DDSM_PM_UNIT_SIZE || r->start + r->len < r->start)
		return -EINVAL;
	if (r->nr_backups >= DDSM_PM_MAX_NODES ||
	    !ddsm_pm_all_zero(w->reserved, sizeof(w->reserved)))
		return -EINVAL;
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Unit slots. */

#define SLOT_CRC_OFF	offsetof(struct ddsm_pm_slot_copy, crc)

/* CRC of a header copy: the unit field, then the copy with its CRC zero. */
static u32 slot_copy_crc(const __le64 *unit, const struct ddsm_pm_slot_copy *c)
{
	u32 crc = ddsm_crc32c(0, unit, sizeof(*unit));

	return crc_with_hole(crc, c, sizeof(*c), SLOT_CRC_OFF);
}

static bool slot_copy_valid(const struct ddsm_pm_slot_wire *w, unsigned int i)
{
	const struct ddsm_pm_slot_copy *c = &w->copy[i];
	u16 flags = le16_to_cpu(c->flags);

	return le32_to_cpu(c->crc) == slot_copy_crc(&w->unit, c) &&
	       (flags & DDSM_PM_SLOT_VALID) && !(flags & ~DDSM_PM_SLOT_FLAGS) &&
	       (le16_to_cpu(c->seq) & 1) == i && !c->reserved;
}

void ddsm_pm_slot_hdr_encode(const struct ddsm_pm_slot_info *in, void *hdr)
{
	struct ddsm_pm_slot_wire *w = hdr;
	struct ddsm_pm_slot_copy c;
	__le64 unit = cpu_to_le64(in->unit);

	memset(&c, 0, sizeof(c));
	c.ts = cpu_to_le64(in->ts);
	c.data_crc = cpu_to_le32(in->data_crc);
	c.flags = cpu_to_le16(in->flags);
	c.seq = cpu_to_le16(in->seq);
	c.crc = cpu_to_le32(slot_copy_crc(&unit, &c));
	w->unit = unit;
	memcpy(&w->copy[in->seq & 1], &c, sizeof(c));
}

int ddsm_pm_slot_hdr_decode(const void *hdr, struct ddsm_pm_slot_info *out)
{
	const struct ddsm_pm_slot_wire *w = hdr;
	const struct ddsm_pm_slot_copy *c;
	bool v0 = slot_copy_valid(w, 0);
	bool v1 = slot_copy_valid(w, 1);
	unsigned int pick;

	if (!v0 && !v1)
		return ddsm_pm_all_zero(hdr, sizeof(*w)) ? -ENODATA : -EBADMSG;
	if (v0 && v1) {
		/* The later write has the higher seq, modulo 2^16. */
		u16 d = le16_to_cpu(w->copy[1].seq) - le16_to_cpu(w->copy[0].seq);

		pick = d && d < 0x8000;
	} else {
		pick = v1;
	}

	c = &w->copy[pick];
	out->unit = le64_to_cpu(w->unit);
	out->ts = le64_to_cpu(c->ts);
	out->data_crc = le32_to_cpu(c->data_crc);
	out->flags = le16_to_cpu(c->flags);
	out->seq = le16_to_cpu(c->seq);
	return 0;
}

int ddsm_pm_slot_check(const void *hdr, const void *data4k, u64 *ts)
{
	struct ddsm_pm_slot_info si;
	int ret = ddsm_pm_slot_hdr_decode(hdr, &si);

	if (ret)
		return ret;
	if (ddsm_crc32c(0, data4k, DDSM_PM_UNIT_SIZE) != si.data_crc)
		return -EBADMSG;
	*ts = si.ts;
	return 0;
}

int ddsm_pm_slot_write(void *hdr, void *data4k, u64 unit, u64 ts, u32 off,
		       const void *src, u32 len,
		       const struct ddsm_pm_persist *ops)
{
	struct ddsm_pm_slot_info si;
	u8 *data = data4k;

	if (!unit_range_ok(off, len))
		return -EINVAL;
	if (ddsm_pm_slot_hdr_decode(hdr, &si)) {
		/* Never committed: the unit's previous image is all zeros. */
		memset(data, 0, DDSM_PM_UNIT_SIZE);
		if (len)
			memcpy(data + off, src, len);
		ops->flush(ops->ctx, data, DDSM_PM_UNIT_SIZE);
		si.seq = 0;
	} else {
		if (si.unit != unit)
			return -EINVAL;
		if (len) {
			memcpy(data + off, src, len);
			ops->flush(ops->ctx, data + off, len);
		}
	}
	ops->fence(ops->ctx);

	si.unit = unit;
	si.ts = ts;
	si.data_crc = ddsm_crc32c(0, data, DDSM_PM_UNIT_SIZE);
	si.flags = DDSM_PM_SLOT_VALID;
	si.seq++;		/* the copy that is not the newest */
	ddsm_pm_slot_hdr_encode(&si, hdr);
	ops->flush(ops->ctx, hdr, sizeof(struct ddsm_pm_slot_wire));
	ops->fence(ops->ctx);
	return 0;
}

int ddsm_pm_slot_apply(const struct ddsm_pm_slots *slots,
		       const struct ddsm_pm_rec *rec,
		       const struct ddsm_pm_persist *ops)
{
	u64 i = slots->slot_of ? slots->slot_of(slots->ctx, rec->unit) :
				 rec->unit;
	struct ddsm_pm_slot_info si;
	u8 *hdr, *data;
	int ret;

	if (i >= slots->nr_slots)
		return -ERANGE;
	if (!unit_range_ok(rec->off, rec->len))
		return -EINVAL;
	hdr = slots->hdrs + i * sizeof(struct ddsm_pm_slot_wire);
	data = slots->data + i * DDSM_PM_UNIT_SIZE;

	if (!ddsm_pm_slot_hdr_decode(hdr, &si)) {
		if (si.unit != rec->unit)
			return -EINVAL;
		if (rec->ts < si.ts)
			return DDSM_PM_OBSOLETE;
		if (rec->ts == si.ts &&
		    !memcmp(data + rec->off, rec->data, rec->len) &&
		    ddsm_crc32c(0, data, DDSM_PM_UNIT_SIZE) == si.data_crc)
			return DDSM_PM_PRESENT;
	}
	ret = ddsm_pm_slot_write(hdr, data, rec->unit, rec->ts, rec->off,
				 rec->data, rec->len, ops);
	return ret ? ret : DDSM_PM_APPLIED;
}
