// SPDX-License-Identifier: GPL-2.0
/*
 * A node's persistent home on one pmem namespace: mount (format or
 * recover), persist unit images through the redo log, the region table,
 * unmount.  Pure C like layout.c; the API and its rules are in store.h.
 *
 * Crash safety rests on three orders:
 *   - format writes the superblock last, and in copy 0 the magic last of
 *     all, so a namespace without a valid superblock never has anything
 *     else worth keeping;
 *   - persist appends a record (durable once append returns), then
 *     applies it to its slot (data, header, each fenced), and only then
 *     moves the log head past it: a crash anywhere leaves the record for
 *     recovery to redo, or the slot already done;
 *   - recovery replays and restarts the log before it writes the
 *     superblock, so a crash during recovery leaves a namespace the next
 *     mount recovers the same way (replay is idempotent, layout.h).
 */
#include "store.h"
#include "../proto/space.h"

/* ---------------------------------------------------------------------- */
/* Counting persist callbacks. */

/* ps->st.bytes counts what goes through flush: the bytes written back. */
static void pstore_flush(void *ctx, const void *addr, size_t len)
{
	struct ddsm_pstore *ps = ctx;

	ps->st.flushes++;
	ps->st.bytes += len;
	ps->inner.flush(ps->inner.ctx, addr, len);
}

static void pstore_fence(void *ctx)
{
	struct ddsm_pstore *ps = ctx;

	ps->st.fences++;
	ps->inner.fence(ps->inner.ctx);
}

static u64 unit_of_slot(const struct ddsm_pstore *ps, u64 slot)
{
	return ps->cfg.unit_of_slot ?
	       ps->cfg.unit_of_slot(ps->cfg.ctx, slot) : slot;
}

static u64 slot_of_unit(const struct ddsm_pstore *ps, u64 unit)
{
	return ps->cfg.slot_of_unit ?
	       ps->cfg.slot_of_unit(ps->cfg.ctx, unit) : unit;
}

static u8 *slot_hdr(const struct ddsm_pstore *ps, u64 slot)
{
	return ps->slots.hdrs + slot * sizeof(struct ddsm_pm_slot_wire);
}

static u8 *slot_data(const struct ddsm_pstore *ps, u64 slot)
{
	return ps->slots.data + slot * DDSM_PM_UNIT_SIZE;
}

/* Point ps->slots at the slot area of the superblock in ps->sb. */
static void pstore_set_slots(struct ddsm_pstore *ps)
{
	ps->slots.hdrs = ps->media + ps->sb.slot_hdr_off;
	ps->slots.data = ps->media + ps->sb.slot_data_off;
	ps->slots.nr_slots = ps->sb.nr_slots;
	ps->slots.slot_of = ps->cfg.slot_of_unit;
	ps->slots.ctx = ps->cfg.ctx;
}

/* The superblock fields that say who the namespace belongs to. */
static void pstore_want(const struct ddsm_pstore *ps,
			struct ddsm_pm_sb_info *want)
{
	memset(want, 0, sizeof(*want));
	want->cluster_id = ps->cfg.cluster_id;
	want->node_id = ps->cfg.node_id;
	want->nr_nodes = ps->cfg.nr_nodes;
	want->space_bytes = ps->cfg.space_bytes;
	want->unit_size = DDSM_PM_UNIT_SIZE;
	want->home_policy = ps->cfg.home_policy;
	want->ns_bytes = ps->ns_bytes;
}

/*
 * What ddsm_pm_sb_decode() would refuse in the superblock we would format
 * with: checked before format writes anything.
 */
static bool cfg_ok(const struct ddsm_pstore_cfg *cfg)
{
	return cfg->nr_nodes && cfg->nr_nodes <= DDSM_PM_MAX_NODES &&
	       cfg->node_id < cfg->nr_nodes &&
	       cfg->home_policy <= DDSM_HOME_RANGE &&
	       cfg->space_bytes && !(cfg->space_bytes % DDSM_PM_UNIT_SIZE) &&
	       cfg->nr_slots <= 0xffffffffULL;
}

/* Both superblock copies, the one not in use first (ddsm_pm_sb_write). */
static void pstore_sb_write(struct ddsm_pstore *ps)
{
	ddsm_pm_sb_write(ps->media, &ps->sb, &ps->ops);
}

/* ---------------------------------------------------------------------- */
/* Format. */

/*
 * Is the namespace new?  Either its first 8 KiB are zero, or a format was
 * interrupted while writing superblock copy 0 (see pstore_sb_first()):
 * copy 0 then has no magic and holds bytes only where struct
 * ddsm_pm_sb_wire lies, copy 1 is still zero, and the log that format
 * wrote before it is in place, fresh (head at lsn 1, ring offset 0, header
 * written twice).  Foreign data does not hold a log header with a valid
 * CRC where this configuration's layout puts one.
 */
static bool pstore_is_new(const struct ddsm_pstore *ps)
{
	const u8 *m = ps->media;
	const size_t body = sizeof(struct ddsm_pm_sb_wire);
	struct ddsm_pm_sb_info g;
	struct ddsm_pm_log log;

	if (!ddsm_pm_all_zero(m, DDSM_PM_MAGIC_LEN) ||
	    !ddsm_pm_all_zero(m + body, DDSM_PM_SB_AREA - body))
		return false;
	if (ddsm_pm_all_zero(m, body))
		return true;
	if (ddsm_pm_geometry(ps->ns_bytes, ps->cfg.nr_slots,
			     ps->cfg.log_bytes, &g))
		return false;
	if (ddsm_pm_log_open(&log, ps->media + g.log_off, g.log_len))
		return false;
	return log.head_lsn == 1 && log.head_pos == 0 && log.hdr_seq == 1;
}

/* A 64-bit mix (splitmix64's finaliser): spreads every input bit. */
static u64 mix64(u64 x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

/*
 * The new log's epoch.  Without a seed: the cluster and node, and the
 * epoch of a log already where the new one goes (so formatting twice does
 * not reuse an epoch); never 0.  Pure read: call before zeroing the log.
 */
static u64 pstore_epoch(const struct ddsm_pstore *ps)
{
	struct ddsm_pm_log old;
	u64 e = 0;

	if (ps->cfg.epoch_seed)
		return ps->cfg.epoch_seed;
	if (!ddsm_pm_log_open(&old, ps->media + ps->sb.log_off,
			      ps->sb.log_len))
		e = old.epoch;
	e = mix64(ps->cfg.cluster_id ^ mix64(e ^ ((u64)ps->cfg.node_id << 48)));
	return e ? e : 1;
}

/* Zero [off, off + len) of the media and flush it (no fence). */
static void pstore_zero(struct ddsm_pstore *ps, u64 off, u64 len)
{
	if (!len)
		return;
	memset(ps->media + off, 0, len);
	ps->ops.flush(ps->ops.ctx, ps->media + off, len);
}

/*
 * The first superblock write of a format.  Copy 0 goes in two steps:
 * everything but the magic, flush, fence; then the magic (one aligned
 * 8-byte store, failure atomic), flush, fence.  Until the magic is durable
 * copy 0 is not a superblock at all and pstore_is_new() still sees a new
 * namespace; once it is, copy 0 is complete and valid.  Copy 1 follows
 * normally: torn, it loses to copy 0.
 */
static void pstore_sb_first(struct ddsm_pstore *ps)
{
	u8 *copy = ps->media;

	ddsm_pm_sb_encode(&ps->sb, copy);
	memset(copy, 0, DDSM_PM_MAGIC_LEN);
	ps->ops.flush(ps->ops.ctx, copy, DDSM_PM_SB_BYTES);
	ps->ops.fence(ps->ops.ctx);
	memcpy(copy, DDSM_PM_MAGIC, DDSM_PM_MAGIC_LEN);
	ps->ops.flush(ps->ops.ctx, copy, DDSM_PM_MAGIC_LEN);
	ps->ops.fence(ps->ops.ctx);

	copy += DDSM_PM_SB_BYTES;
	ddsm_pm_sb_encode(&ps->sb, copy);
	ps->ops.flush(ps->ops.ctx, copy, DDSM_PM_SB_BYTES);
	ps->ops.fence(ps->ops.ctx);
}

static int pstore_format(struct ddsm_pstore *ps, const char **why)
{
	struct ddsm_pm_sb_info *sb = &ps->sb;
	u64 epoch;
	int ret;

	memset(sb, 0, sizeof(*sb));
	ret = ddsm_pm_geometry(ps->ns_bytes, ps->cfg.nr_slots,
			       ps->cfg.log_bytes, sb);
	if (ret) {
		*why = ret == -ENOSPC ? "namespace too small for the layout" :
					"bad redo log size";
		return ret;
	}
	sb->cluster_id = ps->cfg.cluster_id;
	sb->generation = 1;
	sb->space_bytes = ps->cfg.space_bytes;
	sb->node_id = ps->cfg.node_id;
	sb->nr_nodes = ps->cfg.nr_nodes;
	sb->unit_size = DDSM_PM_UNIT_SIZE;
	sb->home_policy = ps->cfg.home_policy;
	sb->flags = 0;
	epoch = pstore_epoch(ps);

	/*
	 * Unmake the old namespace first: once this is durable a crash leaves
	 * a new (zero) namespace, not an old superblock over a half-formatted
	 * body.  A crash during this fence may leave the area neither valid
	 * nor zero; mount then refuses it and the caller formats again.
	 */
	if (!ddsm_pm_all_zero(ps->media, DDSM_PM_SB_AREA)) {
		pstore_zero(ps, 0, DDSM_PM_SB_AREA);
		ps->ops.fence(ps->ops.ctx);
	}

	/*
	 * The whole log area too: no record of an earlier format can then
	 * match, whatever the epoch.  Slot data needs no zeroing: a slot with
	 * a zero header is never written, and its first write zero-fills it.
	 */
	pstore_zero(ps, sb->region_off, sb->region_len);
	pstore_zero(ps, sb->slot_hdr_off, sb->slot_hdr_len);
	pstore_zero(ps, sb->log_off, sb->log_len);
	ps->ops.fence(ps->ops.ctx);
	ret = ddsm_pm_log_format(&ps->log, ps->media + sb->log_off,
				 sb->log_len, epoch, &ps->ops);
	if (ret) {
		*why = "bad redo log size";
		return ret;
	}
	pstore_sb_first(ps);

	pstore_set_slots(ps);
	ps->st.formatted = true;
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Recovery. */

static const char *sb_pick_why(int err)
{
	switch (err) {
	case -EINVAL:
		return "not a ddsm namespace (no superblock magic, not zero)";
	case -EBADMSG:
		return "both superblock copies torn or corrupt";
	case -EPROTONOSUPPORT:
		return "superblock of an unsupported version or flags";
	case -ERANGE:
		return "superblock geometry inconsistent";
	default:
		return "superblock unreadable";
	}
}

static const char *sb_match_why(int err)
{
	switch (err) {
	case -EXDEV:
		return "namespace of another cluster";
	case -EREMCHG:
		return "namespace of another node";
	case -EMEDIUMTYPE:
		return "namespace of another cluster shape";
	case -ENOSPC:
		return "namespace smaller than its layout";
	default:
		return "namespace does not match";
	}
}

/* Does a log record name a unit homed in the slot it maps to? */
static int check_rec(void *ctx, const struct ddsm_pm_rec *rec)
{
	struct ddsm_pstore *ps = ctx;
	u64 slot = slot_of_unit(ps, rec->unit);

	if (slot >= ps->slots.nr_slots)
		return -ERANGE;
	return unit_of_slot(ps, slot) == rec->unit ? 0 : -EMEDIUMTYPE;
}

/*
 * Everything replay could trip on, checked by pure reads so that a refusal
 * leaves the media as it was: every slot header names the unit the
 * configuration puts there, every committed record a unit homed here.
 */
static int pstore_precheck(struct ddsm_pstore *ps, const char **why)
{
	struct ddsm_pm_slot_info si;
	u64 i;
	int ret;

	for (i = 0; i < ps->slots.nr_slots; i++) {
		if (ddsm_pm_slot_hdr_decode(slot_hdr(ps, i), &si))
			continue;
		if (si.unit != unit_of_slot(ps, i)) {
			*why = "a slot holds a unit homed elsewhere";
			return -EMEDIUMTYPE;
		}
	}
	ret = ddsm_pm_log_scan(&ps->log, check_rec, ps, NULL);
	if (ret)
		*why = "a log record names a unit homed elsewhere";
	return ret;
}

static int pstore_recover(struct ddsm_pstore *ps, const char **why)
{
	struct ddsm_pm_sb_info want;
	u64 i, ts;
	int ret;

	ret = ddsm_pm_sb_pick(ps->media, ps->media + DDSM_PM_SB_BYTES, &ps->sb);
	if (ret < 0) {
		*why = sb_pick_why(ret);
		return ret;
	}
	pstore_want(ps, &want);
	ret = ddsm_pm_sb_match(&ps->sb, &want);
	if (ret) {
		*why = sb_match_why(ret);
		return ret;
	}
	if (ps->sb.nr_slots != ps->cfg.nr_slots) {
		*why = "namespace laid out for another slot count";
		return -EMEDIUMTYPE;
	}
	ret = ddsm_pm_log_open(&ps->log, ps->media + ps->sb.log_off,
			       ps->sb.log_len);
	if (ret) {
		*why = "redo log header torn, corrupt or inconsistent";
		return ret;
	}
	pstore_set_slots(ps);
	ret = pstore_precheck(ps, why);
	if (ret)
		return ret;

	/* First write to the media from here on. */
	ps->st.was_clean = ps->sb.flags & DDSM_PM_SB_CLEAN;
	ret = ddsm_pm_log_replay(&ps->log, &ps->slots, &ps->ops,
				 &ps->st.replay);
	if (ret) {
		*why = "replaying the redo log failed";
		return ret;
	}
	ret = ddsm_pm_log_restart(&ps->log, &ps->ops);
	if (ret) {
		*why = "restarting the redo log failed";
		return ret;
	}

	for (i = 0; i < ps->slots.nr_slots; i++) {
		ret = ddsm_pm_slot_check(slot_hdr(ps, i), slot_data(ps, i), &ts);
		if (!ret)
			ps->st.units_present++;
		else if (ret == -EBADMSG)
			ps->st.units_torn++;
	}

	/* Replayed and restarted: a crash from here on finds an empty log. */
	ps->sb.generation++;
	ps->sb.flags &= ~DDSM_PM_SB_CLEAN;
	pstore_sb_write(ps);
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Mount. */

int ddsm_pstore_mount(struct ddsm_pstore *ps, void *media, u64 ns_bytes,
		      const struct ddsm_pstore_cfg *cfg,
		      const struct ddsm_pm_persist *ops, const char **why)
{
	const char *why_local;
	int ret;

	if (!why)
		why = &why_local;
	*why = NULL;
	memset(ps, 0, sizeof(*ps));
	ps->media = media;
	ps->ns_bytes = ns_bytes;
	ps->cfg = *cfg;
	if (!ps->cfg.log_bytes)
		ps->cfg.log_bytes = DDSM_PSTORE_LOG_DEFAULT;
	ps->inner = *ops;
	ps->ops.flush = pstore_flush;
	ps->ops.fence = pstore_fence;
	ps->ops.ctx = ps;

	if (!cfg_ok(&ps->cfg)) {
		*why = "bad configuration";
		return -EINVAL;
	}
	if (ns_bytes < DDSM_PM_SB_AREA) {
		*why = "namespace too small for the layout";
		return -ENOSPC;
	}
	if (ps->cfg.format || pstore_is_new(ps))
		ret = pstore_format(ps, why);
	else
		ret = pstore_recover(ps, why);
	if (ret)
		return ret;
	ps->st.generation = ps->sb.generation;
	ps->mounted = true;
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Units. */

int ddsm_pstore_read(const struct ddsm_pstore *ps, u64 slot, void *buf4k,
		     u64 *ts)
{
	int ret;

	*ts = 0;
	if (!ps->mounted || slot >= ps->slots.nr_slots)
		return -ERANGE;
	ret = ddsm_pm_slot_check(slot_hdr(ps, slot), slot_data(ps, slot), ts);
	if (ret) {
		*ts = 0;
		memset(buf4k, 0, DDSM_PM_UNIT_SIZE);
		return ret;
	}
	memcpy(buf4k, slot_data(ps, slot), DDSM_PM_UNIT_SIZE);
	return 0;
}

int ddsm_pstore_slot_ts(const struct ddsm_pstore *ps, u64 slot, u64 *ts)
{
	struct ddsm_pm_slot_info si;
	const u8 *h;

	*ts = 0;
	if (!ps->mounted || slot >= ps->slots.nr_slots)
		return -ERANGE;
	h = slot_hdr(ps, slot);
	if (ddsm_pm_all_zero(h, sizeof(struct ddsm_pm_slot_wire)))
		return -ENODATA;
	if (ddsm_pm_slot_hdr_decode(h, &si))
		return -EBADMSG;
	*ts = si.ts;
	return 0;
}

static int drain_one(void *ctx, const struct ddsm_pm_rec *rec)
{
	struct ddsm_pstore *ps = ctx;
	int ret = ddsm_pm_slot_apply(&ps->slots, rec, &ps->ops);

	if (ret < 0)
		return ret;
	if (ret == DDSM_PM_APPLIED)
		ps->st.persists++;
	return 0;
}

/*
 * Apply every record between the head and the tail to its slot (from the
 * log's copy of the data, exactly what recovery would redo), then move the
 * head past them: only once the slots are durable may the records go.
 */
static int pstore_drain(struct ddsm_pstore *ps)
{
	u64 next_lsn = ps->log.next_lsn, tail_pos = ps->log.tail_pos;
	int ret;

	if (ps->log.head_lsn == next_lsn)
		return 0;
	ret = ddsm_pm_log_scan(&ps->log, drain_one, ps, NULL);
	if (!ret && (ps->log.next_lsn != next_lsn ||
		     ps->log.tail_pos != tail_pos))
		ret = -EIO;	/* the media lost records we appended */
	/* Where the next append goes does not change with what we read. */
	ps->log.next_lsn = next_lsn;
	ps->log.tail_pos = tail_pos;
	if (ret)
		return ret;
	return ddsm_pm_log_advance_head(&ps->log, next_lsn, &ps->ops);
}

/*
 * The ts a new image of @unit (in @slot) gets: one more than the slot's
 * newest committed header, 1 when it has none (never written).  -EINVAL
 * when the slot holds another unit.
 */
static int next_ts(const struct ddsm_pstore *ps, u64 unit, u64 slot, u64 *ts)
{
	struct ddsm_pm_slot_info si;

	if (ddsm_pm_slot_hdr_decode(slot_hdr(ps, slot), &si)) {
		*ts = 1;
		return 0;
	}
	if (si.unit != unit)
		return -EINVAL;
	*ts = si.ts + 1;
	return 0;
}

/*
 * Refuse a batch before writing anything: units outside the namespace,
 * twice in the batch, with a slot whose timestamp cannot go on, or (with
 * @ts, a replica's) a zero timestamp.
 */
static int check_batch(struct ddsm_pstore *ps, const u64 *units,
		       const u64 *ts, u32 n)
{
	u64 slot, next;
	u32 i, j;
	int ret;

	if (!ps->mounted)
		return -EROFS;
	if (n > DDSM_PSTORE_BATCH_MAX)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		slot = slot_of_unit(ps, units[i]);
		if (slot >= ps->slots.nr_slots)
			return -ERANGE;
		if (ts && !ts[i])
			return -EINVAL;
		for (j = 0; j < i; j++)
			if (units[j] == units[i])
				return -EINVAL;
		ret = next_ts(ps, units[i], slot, &next);
		if (ret)
			return ret;
	}
	/* What a failed call left in the log goes first: ts build on it. */
	return pstore_drain(ps);
}

/* One record into the log; a full ring is put in place and freed first. */
static int append_one(struct ddsm_pstore *ps, u64 unit, u64 ts,
		      const void *data)
{
	int ret;

	ret = ddsm_pm_log_append(&ps->log, unit, ts, 0, data,
				 DDSM_PM_UNIT_SIZE, &ps->ops);
	if (ret == -ENOSPC) {
		ret = pstore_drain(ps);
		if (ret)
			return ret;
		ret = ddsm_pm_log_append(&ps->log, unit, ts, 0, data,
					 DDSM_PM_UNIT_SIZE, &ps->ops);
	}
	if (!ret)
		ps->st.records++;
	return ret;
}

int ddsm_pstore_persist(struct ddsm_pstore *ps, const u64 *units,
			const void *const *data, u32 n, u64 *ts_out)
{
	u64 ts;
	u32 i;
	int ret;

	ret = check_batch(ps, units, NULL, n);
	if (ret)
		return ret;
	for (i = 0; i < n; i++) {
		/*
		 * Read at append time: the drains below only apply units of
		 * this batch, which are distinct, so this slot is untouched.
		 */
		next_ts(ps, units[i], slot_of_unit(ps, units[i]), &ts);
		ret = append_one(ps, units[i], ts, data[i]);
		if (ret)
			return ret;
		if (ts_out)
			ts_out[i] = ts;
	}
	return pstore_drain(ps);
}

int ddsm_pstore_put(struct ddsm_pstore *ps, const u64 *units,
		    const void *const *data, const u64 *ts, u32 n,
		    u32 *applied)
{
	u32 i, done = 0;
	u64 cur;
	int ret;

	if (applied)
		*applied = 0;
	ret = check_batch(ps, units, ts, n);
	if (ret)
		return ret;
	for (i = 0; i < n; i++) {
		/* next_ts() is the slot's ts + 1: older or equal is obsolete. */
		next_ts(ps, units[i], slot_of_unit(ps, units[i]), &cur);
		if (ts[i] < cur)
			continue;
		ret = append_one(ps, units[i], ts[i], data[i]);
		if (ret)
			return ret;
		done++;
	}
	ret = pstore_drain(ps);
	if (!ret && applied)
		*applied = done;
	return ret;
}

int ddsm_pstore_set_flags(struct ddsm_pstore *ps, u32 flags, bool on)
{
	if (!ps->mounted)
		return -EROFS;
	if (flags & ~DDSM_PM_SB_FAILOVER)
		return -EINVAL;
	if (on)
		ps->sb.flags |= flags;
	else
		ps->sb.flags &= ~flags;
	ps->sb.generation++;
	pstore_sb_write(ps);
	ps->st.generation = ps->sb.generation;
	return 0;
}

void ddsm_pstore_unmount(struct ddsm_pstore *ps)
{
	if (!ps->mounted)
		return;
	ps->mounted = false;
	/* Records a failed persist left behind: CLEAN promises an empty log. */
	if (pstore_drain(ps))
		return;
	ps->sb.generation++;
	ps->sb.flags |= DDSM_PM_SB_CLEAN;
	pstore_sb_write(ps);
	ps->st.generation = ps->sb.generation;
}

/* ---------------------------------------------------------------------- */
/* Region table. */

static u8 *region_ent(const struct ddsm_pstore *ps, u32 idx)
{
	return ps->media + ps->sb.region_off +
	       (u64)idx * sizeof(struct ddsm_pm_region_wire);
}

int ddsm_pstore_region_get(const struct ddsm_pstore *ps, u32 idx,
			   struct ddsm_pm_region *r)
{
	if (!ps->mounted || idx >= DDSM_PM_REGIONS)
		return -ERANGE;
	return ddsm_pm_region_decode(region_ent(ps, idx), r);
}

int ddsm_pstore_region_set(struct ddsm_pstore *ps, u32 idx,
			   const struct ddsm_pm_region *r)
{
	struct ddsm_pm_region_wire w;
	struct ddsm_pm_region chk;
	u8 *ent;

	if (!ps->mounted || idx >= DDSM_PM_REGIONS)
		return -ERANGE;
	ent = region_ent(ps, idx);
	if (!r->start && !r->len && !r->model && !r->nr_backups && !r->flags) {
		/* Free: all zero, which decodes as -ENOENT. */
		memset(ent, 0, sizeof(w));
		ps->ops.flush(ps->ops.ctx, ent, sizeof(w));
		ps->ops.fence(ps->ops.ctx);
		return 0;
	}
	/* Never write an entry that would not read back. */
	ddsm_pm_region_encode(r, &w);
	if (ddsm_pm_region_decode(&w, &chk))
		return -EINVAL;
	ddsm_pm_region_write(ent, r, &ps->ops);
	return 0;
}
