/* SPDX-License-Identifier: GPL-2.0 */
/*
 * On-media layout of a ddsm pmem namespace, version 1 (issue 12).
 *
 * Pure C like kernel/proto/: no allocation, no locks, no printk.  Callers
 * pass the media (a DAX mapping, a DRAM shadow or a test buffer) as plain
 * pointers, and every store this code makes to it is a memcpy/memset
 * followed by the caller's flush and fence (struct ddsm_pm_persist), so
 * that a persist-domain checker can sit between this code and the media.
 *
 * All integers are little endian; every structure has explicit padding
 * ("reserved" fields, zero when written) and a size checked at compile
 * time.  CRCs are CRC32C (crc32c.h) computed with the CRC field zero.
 *
 * Namespace (offsets from its start, every area 4 KiB aligned):
 *
 *   0            superblock copy 0     (one 4 KiB block)
 *   4096         superblock copy 1     (one 4 KiB block)
 *   8192         region table          DDSM_PM_REGIONS entries of 64 bytes
 *   slot_hdr_off slot header array    nr_slots headers of 64 bytes,
 *                                      rounded up to 4 KiB
 *   slot_data_off slot data            nr_slots units of 4 KiB
 *   log_off      redo log              one 4 KiB log header block, then
 *                                      the record ring (log_len - 4 KiB)
 *   ...          unused up to the end of the namespace
 *
 * Superblock (struct ddsm_pm_sb_wire at the start of each 4 KiB block, the
 * rest of the block zero; the CRC covers the whole block).  Both copies are
 * written on every update, the one not in use first, each flushed and
 * fenced, so a torn write leaves one valid copy; the valid copy with the higher
 * generation wins.  Decoding checks, in order: magic "DDSMPMEM" (else
 * -EINVAL: not ours), version (else -EPROTONOSUPPORT), CRC (else -EBADMSG),
 * known flags (else -EPROTONOSUPPORT), geometry (else -ERANGE).
 *
 * Region table entry (struct ddsm_pm_region_wire): a global address range
 * [start, start + len) with its persistency model and number of backups.
 * An all-zero entry is free.
 *
 * Slot header (struct ddsm_pm_slot_wire, one 64-byte line): the unit number
 * and two 24-byte copies of {ts, data CRC, flags, seq}, each with its own
 * CRC (over the unit and the copy).  An update writes the copy that is not
 * the newest, with seq + 1, so a torn header write (pmem is only failure
 * atomic per 8 bytes) leaves the previous copy intact: the slot's last
 * committed ts is never lost.  Slot data is the unit's 4 KiB image.
 * Writing a slot: data, flush, fence, header copy, flush, fence.  The data
 * is written in place, so every slot write must be covered by a durable
 * log record that recovery can redo (see "Replay" below).
 *
 * Redo log: a 4 KiB header block holding two copies of the log header
 * (struct ddsm_pm_log_hdr_wire at offsets 0 and 64: head position and lsn,
 * epoch; the valid copy with the higher seq wins), then a ring of records.
 * A record is a 64-byte header (struct ddsm_pm_rec_wire) followed by its
 * data padded to 64 bytes; the CRC covers the header (CRC field zero) and
 * the data, not the padding.  Records carry consecutive lsns from the head
 * on; a record that does not fit before the end of the ring is preceded by
 * a PAD record (header only, takes an lsn) and goes to ring offset 0.
 *
 * Commit: a record is committed once its CRC is valid; append writes it
 * (and its PAD), flushes and fences once.  Scan walks from the head while
 * records have the magic, a valid CRC, the log's epoch and the expected
 * lsn; the first one that does not ends the log (it is counted as torn if
 * its magic was present but its length or CRC is wrong).  The epoch, bumped
 * by ddsm_pm_log_restart() after every recovery, keeps stale records left
 * beyond the tail by an interrupted append from ever matching again.
 *
 * Replay rule (the MINOS obsolete check, made idempotent): records are
 * applied in lsn order; a record (ts, off, len, data) for a slot whose
 * newest valid header has ts S
 *   - ts <  S: skipped as obsolete;
 *   - ts == S: skipped as present if the slot already holds these bytes at
 *     [off, off + len) and its data matches its CRC, else applied (a torn
 *     or unfinished apply of this epoch is redone);
 *   - ts >  S, or the slot has no valid header (never written, or its
 *     first write was torn): applied; a slot with no valid header is
 *     zero-filled first (a unit never written reads as zeros).
 * Applying = copy the bytes in, data flush + fence, new header copy
 * {ts, CRC of the 4 KiB}, flush + fence.  Each byte thus ends with the
 * value of the last record (in lsn order) among those the rule accepts,
 * whatever prefix of the log was applied before a crash: replaying twice,
 * or again after a crash in the middle of a replay or of an apply, gives
 * the same slots.  Several records of one epoch (same ts) may overlap; a
 * second replay then rewrites the earlier ones (same final bytes), which
 * is the only case where it applies anything.  The head is advanced only
 * once the slots it passes are durable.
 */
#ifndef DDSM_PMEM_LAYOUT_H
#define DDSM_PMEM_LAYOUT_H

#include "../lib/shim.h"
#include "../lib/crc32c.h"

#define DDSM_PM_BLOCK		4096U	/* alignment of every area */
#define DDSM_PM_UNIT_SIZE	4096U	/* the only unit size of version 1 */
#define DDSM_PM_LINE		64U	/* slot header, region entry, record grain */
#define DDSM_PM_VERSION		1U
#define DDSM_PM_MAGIC		"DDSMPMEM"	/* 8 bytes, no NUL on media */
#define DDSM_PM_MAGIC_LEN	8
#define DDSM_PM_MAX_NODES	64U
#define DDSM_PM_REGIONS		64U	/* region table entries */

#define DDSM_PM_SB_BYTES	DDSM_PM_BLOCK		/* one copy */
#define DDSM_PM_SB_AREA		(2 * DDSM_PM_BLOCK)	/* both copies */
#define DDSM_PM_REGION_OFF	DDSM_PM_SB_AREA

/* Log area: header block, then the record ring. */
#define DDSM_PM_LOG_HDR_BYTES	DDSM_PM_BLOCK
#define DDSM_PM_LOG_MIN_BYTES	(3 * DDSM_PM_BLOCK)	/* ring of 8 KiB */
#define DDSM_PM_REC_HDR		DDSM_PM_LINE
#define DDSM_PM_REC_MAX_DATA	DDSM_PM_UNIT_SIZE

/* ---------------------------------------------------------------------- */
/* Persist callbacks. */

/*
 * flush(ctx, addr, len): start writing [addr, addr + len) back to the media
 * (clwb of every line it touches).  fence(ctx): wait until every line
 * flushed before is durable (sfence).  Nothing this code stores is assumed
 * durable before a fence that follows its flush.
 */
struct ddsm_pm_persist {
	void (*flush)(void *ctx, const void *addr, size_t len);
	void (*fence)(void *ctx);
	void *ctx;
};

/* Are the @len bytes at @p all zero (a never-written area)? */
bool ddsm_pm_all_zero(const void *p, size_t len);

/* ---------------------------------------------------------------------- */
/* Superblock. */

#define DDSM_PM_SB_CLEAN	0x1U	/* unmounted cleanly: log empty */
/*
 * This node serves its predecessor's units (a backup home that took them
 * over, docs/persistency.md): its replica slots are home slots now.
 */
#define DDSM_PM_SB_FAILOVER	0x2U
#define DDSM_PM_SB_FLAGS	(DDSM_PM_SB_CLEAN | DDSM_PM_SB_FAILOVER)

struct ddsm_pm_sb_wire {
	u8 magic[DDSM_PM_MAGIC_LEN];
	__le32 version;
	__le32 crc;		/* over the whole 4 KiB block, this field 0 */
	__le64 cluster_id;	/* identifies the cluster */
	__le64 generation;	/* bumped on every mount and update */
	__le64 ns_bytes;	/* namespace size the layout was made for */
	__le64 space_bytes;	/* global space size */
	__le32 node_id;
	__le32 nr_nodes;
	__le32 unit_size;
	__le32 home_policy;	/* enum ddsm_home_policy (proto/space.h) */
	__le32 flags;		/* DDSM_PM_SB_* */
	__le32 reserved0;
	__le64 nr_slots;
	__le64 region_off;
	__le64 region_len;
	__le64 slot_hdr_off;
	__le64 slot_hdr_len;
	__le64 slot_data_off;
	__le64 slot_data_len;
	__le64 log_off;
	__le64 log_len;
};

struct ddsm_pm_sb_info {
	u64 cluster_id;
	u64 generation;
	u64 ns_bytes;
	u64 space_bytes;
	u32 node_id;
	u32 nr_nodes;
	u32 unit_size;
	u32 home_policy;
	u32 flags;
	u64 nr_slots;
	u64 region_off, region_len;
	u64 slot_hdr_off, slot_hdr_len;
	u64 slot_data_off, slot_data_len;
	u64 log_off, log_len;
};

/* Fill one 4 KiB superblock copy (zeroes the block first). */
void ddsm_pm_sb_encode(const struct ddsm_pm_sb_info *info, void *buf4k);

/*
 * Decode and check one copy.  0, -EINVAL (no magic: not a ddsm namespace),
 * -EPROTONOSUPPORT (other version or unknown flags), -EBADMSG (CRC: torn
 * or corrupt), -ERANGE (inconsistent geometry: bad unit size, node, areas
 * misaligned, overlapping, too small or outside ns_bytes).
 */
int ddsm_pm_sb_decode(const void *buf4k, struct ddsm_pm_sb_info *info);

/*
 * Pick between the two copies: the valid one with the higher generation
 * (copy 0 on a tie).  Returns 0 or 1 (which copy @info came from), or when
 * neither is valid the most telling of the two errors, in the order
 * -EPROTONOSUPPORT, -ERANGE, -EBADMSG, -EINVAL.
 */
int ddsm_pm_sb_pick(const void *a, const void *b, struct ddsm_pm_sb_info *info);

/*
 * Write both copies into @media (the first 8 KiB of the namespace): first
 * the copy ddsm_pm_sb_pick() would not choose (copy 0 when neither is
 * valid), flush, fence, then the other, flush, fence.  A torn write thus
 * always leaves a valid copy once one existed.
 */
void ddsm_pm_sb_write(void *media, const struct ddsm_pm_sb_info *info,
		      const struct ddsm_pm_persist *ops);

/*
 * May a namespace whose superblock says @media serve the node described by
 * @want (its cluster id, node, cluster shape and the namespace's actual
 * size in want->ns_bytes)?  0, or why not:
 *   -EXDEV        another cluster (cluster_id differs)
 *   -EREMCHG      another node of this cluster (node_id differs)
 *   -EMEDIUMTYPE  another cluster shape (nr_nodes, space size, unit size
 *                 or home policy differs)
 *   -ENOSPC       the namespace is now smaller than the layout it holds
 */
int ddsm_pm_sb_match(const struct ddsm_pm_sb_info *media,
		     const struct ddsm_pm_sb_info *want);

/*
 * Lay out a namespace of @ns_bytes with @nr_slots unit slots and a redo log
 * of @log_bytes: sets out->ns_bytes, nr_slots and the area offsets and
 * lengths, nothing else.  -EINVAL if @log_bytes is not a multiple of 4 KiB
 * or below DDSM_PM_LOG_MIN_BYTES, -ENOSPC if it does not fit.
 */
int ddsm_pm_geometry(u64 ns_bytes, u32 nr_slots, u32 log_bytes,
		     struct ddsm_pm_sb_info *out);

/* ---------------------------------------------------------------------- */
/* Region table. */

/* On-media values of the persistency models (never renumber). */
enum ddsm_pm_model {
	DDSM_PM_SYNC = 0,
	DDSM_PM_STRICT = 1,
	DDSM_PM_READ_ENF = 2,
	DDSM_PM_EVENTUAL = 3,
	DDSM_PM_SCOPE = 4,
	DDSM_PM_MODEL_NR,
};

const char *ddsm_pm_model_name(u32 model);
/* The model named @name (as ddsm_pm_model_name), or -EINVAL. */
int ddsm_pm_model_parse(const char *name);

#define DDSM_PM_REGION_FLAGS	0x0U	/* none defined in version 1 */

struct ddsm_pm_region_wire {
	__le64 start;		/* global address, unit aligned */
	__le64 len;		/* bytes, unit multiple, not 0 */
	__le32 model;		/* enum ddsm_pm_model */
	__le32 nr_backups;
	__le32 flags;
	__le32 crc;		/* over the 64 bytes, this field 0 */
	__le64 reserved[4];
};

struct ddsm_pm_region {
	u64 start;
	u64 len;
	u32 model;
	u32 nr_backups;
	u32 flags;
};

void ddsm_pm_region_encode(const struct ddsm_pm_region *r, void *ent);

/* Encode into the table entry @ent on the media, flush, fence. */
void ddsm_pm_region_write(void *ent, const struct ddsm_pm_region *r,
			  const struct ddsm_pm_persist *ops);

/*
 * 0, -ENOENT (all-zero: a free entry), -EBADMSG (CRC: torn), -EINVAL (CRC
 * valid but the content is not: unknown model or flags, start or len not
 * unit aligned, zero len, wrapping range, too many backups, reserved set).
 */
int ddsm_pm_region_decode(const void *ent, struct ddsm_pm_region *r);

/* ---------------------------------------------------------------------- */
/* Unit slots. */

#define DDSM_PM_SLOT_VALID	0x1U
#define DDSM_PM_SLOT_FLAGS	DDSM_PM_SLOT_VALID

struct ddsm_pm_slot_copy {
	__le64 ts;		/* timestamp of the epoch the data belongs to */
	__le32 data_crc;	/* of the 4 KiB slot data */
	__le16 flags;		/* DDSM_PM_SLOT_* */
	__le16 seq;		/* +1 per header write; copy = seq & 1 */
	__le32 crc;		/* over unit and this copy, this field 0 */
	__le32 reserved;
};

struct ddsm_pm_slot_wire {
	__le64 unit;		/* global unit number */
	struct ddsm_pm_slot_copy copy[2];
	__le64 reserved;	/* zero, covered by no CRC, never read */
};

struct ddsm_pm_slot_info {
	u64 unit;
	u64 ts;
	u32 data_crc;
	u16 flags;
	u16 seq;
};

/*
 * Write header copy (in->seq & 1) and the unit field; the other copy is
 * left untouched.  A caller updating a slot passes the newest copy's seq
 * plus one.
 */
void ddsm_pm_slot_hdr_encode(const struct ddsm_pm_slot_info *in, void *hdr);

/*
 * The newest valid copy: 0, -ENODATA (the 64 bytes are zero: never
 * written), -EBADMSG (no valid copy: the first write was torn).
 */
int ddsm_pm_slot_hdr_decode(const void *hdr, struct ddsm_pm_slot_info *out);

/*
 * Is the slot consistent?  0 with *ts set (newest header valid and the data
 * matches its CRC), -ENODATA (never written), -EBADMSG (header torn, or the
 * data does not match its CRC: a torn unit).
 */
int ddsm_pm_slot_check(const void *hdr, const void *data4k, u64 *ts);

/*
 * Write [off, off + len) of a slot's data and commit it under @ts: copy
 * the bytes in (zero-filling the unit first if the header has no valid
 * copy), flush, fence, write the next header copy, flush, fence.
 * -EINVAL for a bad range or a slot that holds another unit.  It does not
 * look at ts: ddsm_pm_slot_apply() makes the obsolete check.
 */
int ddsm_pm_slot_write(void *hdr, void *data4k, u64 unit, u64 ts, u32 off,
		       const void *src, u32 len,
		       const struct ddsm_pm_persist *ops);

/* ---------------------------------------------------------------------- */
/* Redo log. */

#define DDSM_PM_REC_MAGIC	0x52504d44U	/* "DMPR" on media */
#define DDSM_PM_LOGH_MAGIC	0x4c504d44U	/* "DMPL" on media */
#define DDSM_PM_REC_DATA	1U
#define DDSM_PM_REC_PAD		2U
#define DDSM_PM_LOGH_COPY_OFF(i)	((i) * DDSM_PM_LINE)

struct ddsm_pm_rec_wire {
	__le32 magic;		/* DDSM_PM_REC_MAGIC */
	__le16 type;		/* DDSM_PM_REC_DATA or _PAD */
	__le16 reserved0;
	__le64 lsn;
	__le64 epoch;		/* the log's epoch when written */
	__le64 unit;		/* PAD: 0 */
	__le64 ts;		/* PAD: 0 */
	__le32 off;		/* offset in the unit; PAD: 0 */
	__le32 len;		/* data bytes, 1..4096, off + len <= 4096; PAD: 0 */
	__le32 crc;		/* over header (this field 0) and data */
	__le32 reserved1;
	__le64 reserved2;
};

struct ddsm_pm_log_hdr_wire {
	__le32 magic;		/* DDSM_PM_LOGH_MAGIC */
	__le32 crc;		/* over the 64 bytes, this field 0 */
	__le64 seq;		/* +1 per header write; copy = seq & 1 */
	__le64 epoch;
	__le64 head_lsn;	/* lsn of the oldest record not yet applied */
	__le64 head_pos;	/* its ring offset */
	__le64 ring_len;	/* log_len - DDSM_PM_LOG_HDR_BYTES */
	__le64 reserved[2];
};

/* The log as the caller sees it; positions are offsets in the ring. */
struct ddsm_pm_log {
	u8 *base;		/* start of the log area (its header block) */
	u64 len;		/* bytes of the log area */
	u64 ring_len;		/* bytes of the record ring */
	u64 epoch;
	u64 hdr_seq;		/* seq of the newest header copy */
	u64 head_pos, head_lsn;	/* oldest record not yet applied */
	u64 tail_pos, next_lsn;	/* where the next record goes, its lsn */
	bool scanned;		/* tail found (formatted, or scanned) */
	bool writable;		/* formatted or restarted since opened */
};

/* A committed data record, as scan hands it over (data points into the ring). */
struct ddsm_pm_rec {
	u64 lsn;
	u64 unit;
	u64 ts;
	u32 off;
	u32 len;
	const u8 *data;
};

struct ddsm_pm_replay_stats {
	u64 seen;	/* committed data records walked */
	u64 applied;	/* written into their slot */
	u64 obsolete;	/* ts older than the slot's: skipped */
	u64 present;	/* same ts, bytes already there: skipped */
	u64 pads;	/* PAD records walked */
	u64 torn;	/* record ending the log with its magic but bad CRC */
};

/*
 * Format @len bytes at @base as an empty log (head = tail = ring offset 0,
 * lsn 1) with @epoch, which must never have been used on this media before
 * (a random number: records of an earlier format must not match).  Writes
 * both header copies, flush, fence.  -EINVAL for a bad length.  The log is
 * writable afterwards.
 */
int ddsm_pm_log_format(struct ddsm_pm_log *log, void *base, u64 len,
		       u64 epoch, const struct ddsm_pm_persist *ops);

/*
 * Read the log header at @base (pure read): head and epoch from the newest
 * valid copy, tail = head until a scan.  -EINVAL (no copy has the magic:
 * never formatted; or @len is not a valid log length), -EBADMSG (no valid
 * copy), -ERANGE (ring length or head position inconsistent).  The log
 * stays read-only until ddsm_pm_log_scan() or _replay() found its tail and
 * ddsm_pm_log_restart() started a new epoch.
 */
int ddsm_pm_log_open(struct ddsm_pm_log *log, void *base, u64 len);

/*
 * Append one record at the tail: a PAD first if it does not fit before the
 * end of the ring, then the record, one flush of both, one fence.  Once it
 * returns 0 the record is durable and its lsn is log->next_lsn - 1.
 * -EINVAL (len 0 or > 4096, or off + len > 4096), -ENOSPC (the ring is
 * full: the record would overwrite records not yet applied), -EROFS (opened
 * and not yet restarted).
 */
int ddsm_pm_log_append(struct ddsm_pm_log *log, u64 unit, u64 ts, u32 off,
		       const void *data, u32 len,
		       const struct ddsm_pm_persist *ops);

/*
 * Walk the committed records from the head, calling @fn (may be NULL) on
 * each data record in lsn order; a negative return from @fn stops the walk
 * and is returned.  Otherwise sets log->tail_pos and log->next_lsn to just
 * after the last committed record and returns 0.  Pure read of the media.
 * @st (may be NULL) counts seen, pads and torn.
 */
typedef int (*ddsm_pm_rec_fn)(void *ctx, const struct ddsm_pm_rec *rec);
int ddsm_pm_log_scan(struct ddsm_pm_log *log, ddsm_pm_rec_fn fn, void *ctx,
		     struct ddsm_pm_replay_stats *st);

/* The slot area replay writes into. */
struct ddsm_pm_slots {
	u8 *hdrs;		/* nr_slots headers of 64 bytes */
	u8 *data;		/* nr_slots units of 4 KiB */
	u64 nr_slots;
	/* slot index of a unit (NULL: the unit number itself) */
	u64 (*slot_of)(void *ctx, u64 unit);
	void *ctx;
};

/* What ddsm_pm_slot_apply() did. */
enum ddsm_pm_apply {
	DDSM_PM_APPLIED = 0,
	DDSM_PM_OBSOLETE = 1,
	DDSM_PM_PRESENT = 2,
};

/*
 * Apply one record to its slot by the replay rule above.  Returns an enum
 * ddsm_pm_apply, or -ERANGE (unit maps outside the slot area), -EINVAL
 * (the slot holds another unit).
 */
int ddsm_pm_slot_apply(const struct ddsm_pm_slots *slots,
		       const struct ddsm_pm_rec *rec,
		       const struct ddsm_pm_persist *ops);

/*
 * Scan the log and apply every committed record to @slots (each apply
 * durable before the next).  Returns 0 or the first error of
 * ddsm_pm_slot_apply(); @st (may be NULL) is zeroed and filled.  Does not
 * move the head: call ddsm_pm_log_restart() once it returned 0.
 */
int ddsm_pm_log_replay(struct ddsm_pm_log *log,
		       const struct ddsm_pm_slots *slots,
		       const struct ddsm_pm_persist *ops,
		       struct ddsm_pm_replay_stats *st);

/*
 * Free the records before @lsn (their slots must be durable): walks their
 * headers from the head, writes the next header copy, flush, fence.
 * -EINVAL if @lsn is not in [head_lsn, next_lsn], -EIO if the records on
 * the media are not the ones appended.
 */
int ddsm_pm_log_advance_head(struct ddsm_pm_log *log, u64 lsn,
			     const struct ddsm_pm_persist *ops);

/*
 * After a replay whose slots are durable: head = tail, epoch + 1, header
 * written, flush, fence; the log is empty and writable.  -EINVAL if the
 * log was never scanned since it was opened.
 */
int ddsm_pm_log_restart(struct ddsm_pm_log *log,
			const struct ddsm_pm_persist *ops);

/*
 * The on-media sizes are part of the format: a wrong one declares an array
 * of negative size, which does not compile (nothing ever defines these).
 */
#define DDSM_PM_SIZE_CHECK(name, type, n) \
	extern char ddsm_pm_size_check_##name[sizeof(type) == (n) ? 1 : -1]
DDSM_PM_SIZE_CHECK(sb, struct ddsm_pm_sb_wire, 144);
DDSM_PM_SIZE_CHECK(region, struct ddsm_pm_region_wire, 64);
DDSM_PM_SIZE_CHECK(slot_copy, struct ddsm_pm_slot_copy, 24);
DDSM_PM_SIZE_CHECK(slot, struct ddsm_pm_slot_wire, 64);
DDSM_PM_SIZE_CHECK(rec, struct ddsm_pm_rec_wire, 64);
DDSM_PM_SIZE_CHECK(log_hdr, struct ddsm_pm_log_hdr_wire, 64);

#endif /* DDSM_PMEM_LAYOUT_H */
