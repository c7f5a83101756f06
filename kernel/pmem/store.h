/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A node's persistent home: the units it homes, kept on one pmem namespace
 * in the layout of layout.h.  Pure C like layout.c (no allocation, no
 * locks, no printk): the caller passes the media as a pointer and the
 * flush/fence callbacks, serialises calls, and logs what it reports.
 *
 * A unit image becomes durable through the redo log: every record of a
 * batch is appended (durable at once), then applied to its slot, then the
 * log head passes them.  A crash at any point leaves each slot with either
 * its previous image or the new one, never a mix, once recovery replayed
 * the log.  Timestamps: each slot's ts is one more than the image it
 * replaces, so they only grow.
 */
#ifndef DDSM_PMEM_STORE_H
#define DDSM_PMEM_STORE_H

#include "layout.h"

#define DDSM_PSTORE_LOG_DEFAULT	(1024U * 1024U)	/* redo log bytes */
#define DDSM_PSTORE_BATCH_MAX	64U		/* units per persist call */

/* Who this node is, as the namespace must say. */
struct ddsm_pstore_cfg {
	u64 cluster_id;
	u32 node_id;
	u32 nr_nodes;
	u64 space_bytes;
	u32 home_policy;
	u64 nr_slots;		/* units homed here: slot i holds one of them */
	/* the global unit in slot @slot (slot < nr_slots); NULL: unit = slot */
	u64 (*unit_of_slot)(void *ctx, u64 slot);
	/*
	 * the slot of global @unit, or U64_MAX (any value >= nr_slots) when
	 * not homed here; NULL: slot = unit
	 */
	u64 (*slot_of_unit)(void *ctx, u64 unit);
	void *ctx;
	u32 log_bytes;		/* 0: DDSM_PSTORE_LOG_DEFAULT */
	bool format;		/* format whatever the namespace holds */
	/*
	 * Random: the log's epoch when formatting.  0: derived from the
	 * cluster id, the node and the epoch of a log found where the new one
	 * goes (never 0).  Format zeroes the whole log area anyway, so the
	 * epoch only guards against a log area that was not fully zeroed.
	 */
	u64 epoch_seed;
};

/*
 * What mount found and did, and what was written since.  The counters
 * start at zero when mount begins and include mount's own writes.
 */
struct ddsm_pstore_stats {
	u64 generation;		/* the superblock's, after mount */
	bool formatted;		/* this mount formatted the namespace */
	bool was_clean;		/* it had been unmounted cleanly */
	u64 units_present;	/* slots holding a valid image */
	u64 units_torn;		/* slots whose image fails its CRC (a bug) */
	struct ddsm_pm_replay_stats replay;
	u64 persists;		/* unit images made durable since mount */
	u64 records;		/* log records appended since mount */
	u64 bytes;		/* bytes flushed (written back) since mount */
	u64 flushes;		/* flush calls since mount */
	u64 fences;		/* fence calls since mount */
};

/*
 * ops.ctx points at the structure itself: it must not be moved or copied
 * while mounted.
 */
struct ddsm_pstore {
	u8 *media;
	u64 ns_bytes;
	struct ddsm_pstore_cfg cfg;
	struct ddsm_pm_persist ops;	/* the caller's, counted (stats) */
	struct ddsm_pm_persist inner;
	struct ddsm_pm_sb_info sb;
	struct ddsm_pm_log log;
	struct ddsm_pm_slots slots;
	struct ddsm_pstore_stats st;
	bool mounted;
};

/*
 * Mount the namespace at @media (@ns_bytes long) for the node @cfg
 * describes, flushing and fencing through @ops.
 *
 * A namespace is formatted (superblocks, empty region table, zeroed slot
 * headers, empty log) when cfg->format is set, or when it is new: the
 * first 8 KiB are all zero, or they hold nothing but the magic-less start
 * of superblock copy 0 and a freshly formatted log sits where this @cfg
 * puts it (a format interrupted while writing the superblock, see
 * store.c).  Format writes the superblock last, magic last of all, so a
 * crash anywhere in it leaves a new namespace.
 * Otherwise: pick the superblock (ddsm_pm_sb_pick), check it against @cfg
 * (ddsm_pm_sb_match: the sb's nr_slots must equal cfg->nr_slots too, else
 * -EMEDIUMTYPE), open and replay the log, restart it, count the slots that
 * hold an image, and write both superblock copies with generation + 1 and
 * CLEAN cleared.
 *
 * Errors (nothing on the media changed): -EINVAL with *@why "not a ddsm
 * namespace" when it has no magic but is not zero, or for a bad @cfg; the
 * errors of ddsm_pm_sb_pick, ddsm_pm_sb_match, ddsm_pm_log_open and
 * _replay; -EMEDIUMTYPE also when a slot header or a log record names a
 * unit that @cfg homes elsewhere (checked before anything is written);
 * -ENOSPC when the areas do not fit in @ns_bytes.  @why (may be NULL) is
 * set to a short static description of the failure for the caller's log
 * line, NULL on success.
 */
int ddsm_pstore_mount(struct ddsm_pstore *ps, void *media, u64 ns_bytes,
		      const struct ddsm_pstore_cfg *cfg,
		      const struct ddsm_pm_persist *ops, const char **why);

/*
 * Copy slot @slot's image to @buf4k.  0 (with *@ts), -ENODATA (never
 * written: @buf4k is zeroed, *@ts = 0), -EBADMSG (torn: @buf4k is zeroed,
 * *@ts = 0), -ERANGE (@slot >= nr_slots, or not mounted).
 */
int ddsm_pstore_read(const struct ddsm_pstore *ps, u64 slot, void *buf4k,
		     u64 *ts);

/*
 * The ts of slot @slot's newest committed header without reading its
 * data: 0, -ENODATA (never written), -EBADMSG (no valid header),
 * -ERANGE.
 */
int ddsm_pstore_slot_ts(const struct ddsm_pstore *ps, u64 slot, u64 *ts);

/*
 * Make @n unit images durable (n <= DDSM_PSTORE_BATCH_MAX; units[i] homed
 * here, data[i] its 4 KiB image; a unit appears at most once).  Each gets
 * ts = its slot's ts + 1 (written into @ts_out[i] when @ts_out is not
 * NULL).  Returns 0 once every image is durable in its slot and the log is
 * empty again, -ERANGE for a unit not homed here, -EINVAL for n too big,
 * a unit given twice or a slot holding another unit, -EROFS when not
 * mounted (these four before anything is written), or the error that
 * stopped it (the images before it are durable).  The log record, not
 * @data, is what gets copied into the slot: @data may change under us.
 */
int ddsm_pstore_persist(struct ddsm_pstore *ps, const u64 *units,
			const void *const *data, u32 n, u64 *ts_out);

/*
 * Make @n images durable with the timestamps they had where they were
 * made (a backup home's replica slots): units[i] mapped here, ts[i] > 0.
 * An image not newer than its slot's is skipped (MINOS's obsolete check),
 * so images may come again or out of order and a slot never goes back;
 * @applied (may be NULL) counts the others.  Errors as
 * ddsm_pstore_persist, and -EINVAL for a ts of 0.
 */
int ddsm_pstore_put(struct ddsm_pstore *ps, const u64 *units,
		    const void *const *data, const u64 *ts, u32 n,
		    u32 *applied);

/* Set or clear superblock flags @flags (DDSM_PM_SB_FAILOVER), durably. */
int ddsm_pstore_set_flags(struct ddsm_pstore *ps, u32 flags, bool on);
/* The superblock's flags as mounted (and set since). */
static inline u32 ddsm_pstore_flags(const struct ddsm_pstore *ps)
{
	return ps->sb.flags;
}

/*
 * Region table entry @idx (< DDSM_PM_REGIONS): ddsm_pm_region_decode, or
 * -ERANGE for a bad @idx or when not mounted.
 */
int ddsm_pstore_region_get(const struct ddsm_pstore *ps, u32 idx,
			   struct ddsm_pm_region *r);
/*
 * Write entry @idx durably (a zeroed @r frees it).  -ERANGE as above,
 * -EINVAL (nothing written) for an entry ddsm_pm_region_decode would
 * refuse.  One 64-byte line: a crash in the middle may leave it torn
 * (-EBADMSG on the next get), never half old and half new and valid.
 */
int ddsm_pstore_region_set(struct ddsm_pstore *ps, u32 idx,
			   const struct ddsm_pm_region *r);

/*
 * Mark the namespace clean (generation + 1, CLEAN set); no more writes.
 * Records a failed persist left in the log are applied first; if that
 * fails, the namespace is not marked clean (the next mount replays them).
 */
void ddsm_pstore_unmount(struct ddsm_pstore *ps);

#endif /* DDSM_PMEM_STORE_H */
