// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite ddsm_pmem_layout: the on-media layout of a pmem namespace
 * (kernel/pmem/layout.c and crc32c.c): CRC32C, superblock, geometry,
 * region table, unit slots, and the redo log's commit, torn-record and
 * replay rules.  The "media" is plain memory; the persist callbacks only
 * count flushes and fences.
 */
#include <kunit/test.h>
#include <linux/module.h>

#include "../../kernel/pmem/layout.h"

#define UNIT		DDSM_PM_UNIT_SIZE
#define NR_SLOTS	8
#define LOG_MAX		(64 * 1024)
#define LOG_SMALL	(3 * 4096)	/* ring of 8 KiB */

/* Expected slot contents, kept by applying the replay rule by hand. */
struct ref {
	u8 data[NR_SLOTS][UNIT];
	u64 ts[NR_SLOTS];
	bool written[NR_SLOTS];
};

struct pmt {
	struct ddsm_pm_persist ops;
	u64 flushes;
	u64 fences;
	u8 *media;		/* log area, LOG_MAX bytes */
	u8 *hdrs, *data;	/* slot area */
	u8 *media2, *hdrs2, *data2;	/* a second namespace to compare with */
	struct ddsm_pm_slots slots, slots2;
	struct ddsm_pm_log log;
	u8 *buf;		/* 4 KiB scratch */
	struct ref *ref;
};

static void count_flush(void *ctx, const void *addr, size_t len)
{
	struct pmt *t = ctx;

	t->flushes++;
}

static void count_fence(void *ctx)
{
	struct pmt *t = ctx;

	t->fences++;
}

static void *zalloc(struct kunit *test, size_t n)
{
	void *p = kunit_kzalloc(test, n, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	return p;
}

static int pmt_init(struct kunit *test)
{
	struct pmt *t = zalloc(test, sizeof(*t));

	t->ops.flush = count_flush;
	t->ops.fence = count_fence;
	t->ops.ctx = t;
	t->media = zalloc(test, LOG_MAX);
	t->hdrs = zalloc(test, NR_SLOTS * DDSM_PM_LINE);
	t->data = zalloc(test, NR_SLOTS * UNIT);
	t->media2 = zalloc(test, LOG_MAX);
	t->hdrs2 = zalloc(test, NR_SLOTS * DDSM_PM_LINE);
	t->data2 = zalloc(test, NR_SLOTS * UNIT);
	t->buf = zalloc(test, UNIT);
	t->ref = zalloc(test, sizeof(*t->ref));
	t->slots.hdrs = t->hdrs;
	t->slots.data = t->data;
	t->slots.nr_slots = NR_SLOTS;
	t->slots2.hdrs = t->hdrs2;
	t->slots2.data = t->data2;
	t->slots2.nr_slots = NR_SLOTS;
	test->priv = t;
	return 0;
}

/* ---------------------------------------------------------------------- */
/* CRC32C */

static u32 crc32c_bitwise(u32 crc, const u8 *p, size_t len)
{
	int k;

	crc = ~crc;
	while (len--) {
		crc ^= *p++;
		for (k = 0; k < 8; k++)
			crc = (crc & 1) ? (crc >> 1) ^ DDSM_CRC32C_POLY : crc >> 1;
	}
	return ~crc;
}

static void pm_crc32c_check_value(struct kunit *test)
{
	static const char check[] = "123456789";

	KUNIT_EXPECT_EQ(test, ddsm_crc32c(0, check, 9), DDSM_CRC32C_CHECK);
	KUNIT_EXPECT_EQ(test, ddsm_crc32c(0, check, 9), (u32)0xE3069283);
	/* Chaining: two pieces give the CRC of the whole. */
	KUNIT_EXPECT_EQ(test, ddsm_crc32c(ddsm_crc32c(0, check, 4), check + 4, 5),
			DDSM_CRC32C_CHECK);
	KUNIT_EXPECT_EQ(test, ddsm_crc32c(0, check, 0), (u32)0);
}

static void pm_crc32c_table(struct kunit *test)
{
	struct pmt *t = test->priv;
	u32 i, c;
	int k;

	for (i = 0; i < 256; i++) {
		c = i;
		for (k = 0; k < 8; k++)
			c = (c & 1) ? (c >> 1) ^ DDSM_CRC32C_POLY : c >> 1;
		KUNIT_EXPECT_EQ_MSG(test, ddsm_crc32c_table[i], c, "entry %u", i);
	}
	for (i = 0; i < UNIT; i++)
		t->buf[i] = (u8)(i * 37 + 11);
	KUNIT_EXPECT_EQ(test, ddsm_crc32c(0, t->buf, UNIT),
			crc32c_bitwise(0, t->buf, UNIT));
}

/* ---------------------------------------------------------------------- */
/* Superblock and geometry */

#define NS_BYTES	(1024 * 1024ULL)

static void good_sb(struct kunit *test, struct ddsm_pm_sb_info *s)
{
	memset(s, 0, sizeof(*s));
	KUNIT_ASSERT_EQ(test, ddsm_pm_geometry(NS_BYTES, 16, 64 * 1024, s), 0);
	s->cluster_id = 0x1122334455667788ULL;
	s->generation = 5;
	s->space_bytes = 48 * UNIT;
	s->node_id = 1;
	s->nr_nodes = 3;
	s->unit_size = UNIT;
	s->home_policy = 0;
	s->flags = DDSM_PM_SB_CLEAN;
}

static bool sb_eq(const struct ddsm_pm_sb_info *a,
		  const struct ddsm_pm_sb_info *b)
{
	return a->cluster_id == b->cluster_id &&
	       a->generation == b->generation && a->ns_bytes == b->ns_bytes &&
	       a->space_bytes == b->space_bytes && a->node_id == b->node_id &&
	       a->nr_nodes == b->nr_nodes && a->unit_size == b->unit_size &&
	       a->home_policy == b->home_policy && a->flags == b->flags &&
	       a->nr_slots == b->nr_slots && a->region_off == b->region_off &&
	       a->region_len == b->region_len &&
	       a->slot_hdr_off == b->slot_hdr_off &&
	       a->slot_hdr_len == b->slot_hdr_len &&
	       a->slot_data_off == b->slot_data_off &&
	       a->slot_data_len == b->slot_data_len &&
	       a->log_off == b->log_off && a->log_len == b->log_len;
}

static void pm_sb_roundtrip(struct kunit *test)
{
	struct pmt *t = test->priv;
	struct ddsm_pm_sb_info s, d;
	u32 i;

	good_sb(test, &s);
	memset(t->buf, 0xa5, UNIT);
	ddsm_pm_sb_encode(&s, t->buf);
	KUNIT_EXPECT_EQ(test, memcmp(t->buf, "DDSMPMEM", 8), 0);
	KUNIT_EXPECT_EQ(test, t->buf[8], (u8)DDSM_PM_VERSION);
	for (i = sizeof(struct ddsm_pm_sb_wire); i < UNIT; i++)
		if (t->buf[i])
			break;
	KUNIT_EXPECT_EQ(test, i, (u32)UNIT);
	KUNIT_ASSERT_EQ(test, ddsm_pm_sb_decode(t->buf, &d), 0);
	KUNIT_EXPECT_TRUE(test, sb_eq(&s, &d));
}

static void pm_sb_rejects_bad_magic(struct kunit *test)
{
	struct pmt *t = test->priv;
	struct ddsm_pm_sb_info s, d;

	good_sb(test, &s);
	ddsm_pm_sb_encode(&s, t->buf);
	t->buf[3] ^= 0x20;
	KUNIT_EXPECT_EQ(test, ddsm_pm_sb_decode(t->buf, &d), -EINVAL);
	memset(t->buf, 0, UNIT);
	KUNIT_EXPECT_EQ(test, ddsm_pm_sb_decode(t->buf, &d), -EINVAL);
}

static void pm_sb_rejects_version(struct kunit *test)
{
	struct pmt *t = test->priv;
	struct ddsm_pm_sb_info s, d;

	good_sb(test, &s);
	ddsm_pm_sb_encode(&s, t->buf);
	t->buf[8] = DDSM_PM_VERSION + 1;
	KUNIT_EXPECT_EQ(test, ddsm_pm_sb_decode(t->buf, &d), -EPROTONOSUPPORT);
	t->buf[8] = 0;
	KUNIT_EXPECT_EQ(test, ddsm_pm_sb_decode(t->buf, &d), -EPROTONOSUPPORT);
	/* A valid CRC with an unknown flag: a newer writer. */
	s.flags = 0x80;
	ddsm_pm_sb_encode(&s, t->buf);
	KUNIT_EXPECT_EQ(test, ddsm_pm_sb_decode(t->buf, &d), -EPROTONOSUPPORT);
}

/* Every byte after magic and version is covered by the CRC. */
static void pm_sb_flipped_byte_is_torn(struct kunit *test)
{
	struct pmt *t = test->priv;
	struct ddsm_pm_sb_info s, d;
	u32 i, bad = 0;

	good_sb(test, &s);
	ddsm_pm_sb_encode(&s, t->buf);
	for (i = 12; i < UNIT; i++) {
		t->buf[i] ^= 0x01;
		if (ddsm_pm_sb_decode(t->buf, &d) != -EBADMSG)
			bad++;
		t->buf[i] ^= 0x01;
	}
	KUNIT_EXPECT_EQ(test, bad, (u32)0);
	KUNIT_EXPECT_EQ(test, ddsm_pm_sb_decode(t->buf, &d), 0);
}

static void pm_sb_rejects_geometry(struct kunit *test)
{
	struct pmt *t = test->priv;
	struct ddsm_pm_sb_info s, d;
	int i;

	for (i = 0; i < 10; i++) {
		good_sb(test, &s);
		switch (i) {
		case 0:	/* slot data over the slot headers */
			s.slot_data_off = s.slot_hdr_off;
			break;
		case 1:	/* log past the end of the namespace */
			s.log_len = NS_BYTES - s.log_off + 4096;
			break;
		case 2:	/* misaligned area */
			s.log_off += 64;
			break;
		case 3:	/* region table over the superblocks */
			s.region_off = 4096;
			break;
		case 4:
			s.unit_size = 8192;
			break;
		case 5:
			s.node_id = 3;
			break;
		case 6:	/* more slots than the data area holds */
			s.nr_slots = 17;
			break;
		case 7:
			s.nr_nodes = DDSM_PM_MAX_NODES + 1;
			break;
		case 8:
			s.space_bytes = UNIT + 1;
			break;
		case 9:	/* recorded namespace smaller than its areas */
			s.ns_bytes = s.log_off + s.log_len - 4096;
			break;
		}
		ddsm_pm_sb_encode(&s, t->buf);
		KUNIT_EXPECT_EQ_MSG(test, ddsm_pm_sb_decode(t->buf, &d), -ERANGE,
				    "case %d", i);
	}
}

static void pm_sb_pick_copies(struct kunit *test)
{
	struct pmt *t = test->priv;
	u8 *a = t->media, *b = t->media + 4096;
	struct ddsm_pm_sb_info s, d;

	good_sb(test, &s);
	ddsm_pm_sb_encode(&s, a);
	s.generation = 6;
	ddsm_pm_sb_encode(&s, b);
	/* Both valid: the higher generation, whichever copy holds it. */
	KUNIT_EXPECT_EQ(test, ddsm_pm_sb_pick(a, b, &d), 1);
	KUNIT_EXPECT_EQ(test, d.generation, (u64)6);
	KUNIT_EXPECT_EQ(test, ddsm_pm_sb_pick(b, a, &d), 0);
	KUNIT_EXPECT_EQ(test, d.generation, (u64)6);
	/* One torn: the other, even with the lower generation. */
	b[200] ^= 0xff;
	KUNIT_EXPECT_EQ(test, ddsm_pm_sb_pick(a, b, &d), 0);
	KUNIT_EXPECT_EQ(test, d.generation, (u64)5);
	/* None valid: the most telling error. */
	a[100] ^= 0xff;
	KUNIT_EXPECT_EQ(test, ddsm_pm_sb_pick(a, b, &d), -EBADMSG);
	memset(a, 0, 4096);
	KUNIT_EXPECT_EQ(test, ddsm_pm_sb_pick(a, b, &d), -EBADMSG);
	memset(b, 0, 4096);
	KUNIT_EXPECT_EQ(test, ddsm_pm_sb_pick(a, b, &d), -EINVAL);
	ddsm_pm_sb_encode(&s, b);
	b[8] = 2;
	KUNIT_EXPECT_EQ(test, ddsm_pm_sb_pick(a, b, &d), -EPROTONOSUPPORT);
}

static void pm_sb_write_both_copies(struct kunit *test)
{
	struct pmt *t = test->priv;
	struct ddsm_pm_sb_info s, d;

	good_sb(test, &s);
	ddsm_pm_sb_write(t->media, &s, &t->ops);
	KUNIT_EXPECT_EQ(test, t->fences, (u64)2);
	KUNIT_EXPECT_EQ(test, ddsm_pm_sb_decode(t->media, &d), 0);
	KUNIT_EXPECT_EQ(test, ddsm_pm_sb_decode(t->media + 4096, &d), 0);
	KUNIT_EXPECT_EQ(test, memcmp(t->media, t->media + 4096, 4096), 0);
}

static void pm_sb_match_refusals(struct kunit *test)
{
	struct ddsm_pm_sb_info m, w;

	good_sb(test, &m);
	w = m;
	w.generation = 99;	/* not part of the identity */
	KUNIT_EXPECT_EQ(test, ddsm_pm_sb_match(&m, &w), 0);
	w.ns_bytes = 2 * NS_BYTES;	/* the namespace grew: fine */
	KUNIT_EXPECT_EQ(test, ddsm_pm_sb_match(&m, &w), 0);
	w.ns_bytes = NS_BYTES - 4096;
	KUNIT_EXPECT_EQ(test, ddsm_pm_sb_match(&m, &w), -ENOSPC);
	w = m;
	w.cluster_id++;
	KUNIT_EXPECT_EQ(test, ddsm_pm_sb_match(&m, &w), -EXDEV);
	w = m;
	w.node_id = 2;
	KUNIT_EXPECT_EQ(test, ddsm_pm_sb_match(&m, &w), -EREMCHG);
	w = m;
	w.nr_nodes = 4;
	KUNIT_EXPECT_EQ(test, ddsm_pm_sb_match(&m, &w), -EMEDIUMTYPE);
	w = m;
	w.space_bytes += UNIT;
	KUNIT_EXPECT_EQ(test, ddsm_pm_sb_match(&m, &w), -EMEDIUMTYPE);
	w = m;
	w.unit_size = 8192;
	KUNIT_EXPECT_EQ(test, ddsm_pm_sb_match(&m, &w), -EMEDIUMTYPE);
	w = m;
	w.home_policy = 1;
	KUNIT_EXPECT_EQ(test, ddsm_pm_sb_match(&m, &w), -EMEDIUMTYPE);
}

static void pm_geometry_fits(struct kunit *test)
{
	struct ddsm_pm_sb_info s;
	u64 off[4], len[4];
	int i, j;

	memset(&s, 0, sizeof(s));
	KUNIT_ASSERT_EQ(test, ddsm_pm_geometry(NS_BYTES, 16, 64 * 1024, &s), 0);
	KUNIT_EXPECT_EQ(test, s.region_off, (u64)8192);
	KUNIT_EXPECT_EQ(test, s.region_len, (u64)4096);
	KUNIT_EXPECT_EQ(test, s.slot_hdr_off, (u64)12288);
	KUNIT_EXPECT_EQ(test, s.slot_hdr_len, (u64)4096);	/* 16 * 64 rounded */
	KUNIT_EXPECT_EQ(test, s.slot_data_off, (u64)16384);
	KUNIT_EXPECT_EQ(test, s.slot_data_len, (u64)16 * UNIT);
	KUNIT_EXPECT_EQ(test, s.log_off, (u64)16384 + 16 * UNIT);
	KUNIT_EXPECT_EQ(test, s.log_len, (u64)64 * 1024);
	KUNIT_EXPECT_EQ(test, s.nr_slots, (u64)16);
	KUNIT_EXPECT_EQ(test, s.ns_bytes, NS_BYTES);

	off[0] = s.region_off;
	len[0] = s.region_len;
	off[1] = s.slot_hdr_off;
	len[1] = s.slot_hdr_len;
	off[2] = s.slot_data_off;
	len[2] = s.slot_data_len;
	off[3] = s.log_off;
	len[3] = s.log_len;
	for (i = 0; i < 4; i++) {
		KUNIT_EXPECT_EQ(test, off[i] % 4096, (u64)0);
		KUNIT_EXPECT_GE(test, off[i], (u64)DDSM_PM_SB_AREA);
		KUNIT_EXPECT_LE(test, off[i] + len[i], NS_BYTES);
		for (j = 0; j < i; j++)
			KUNIT_EXPECT_TRUE(test, off[i] >= off[j] + len[j] ||
					  off[j] >= off[i] + len[i]);
	}
	/* 65 slots: the header array takes two blocks. */
	KUNIT_ASSERT_EQ(test, ddsm_pm_geometry(NS_BYTES, 65, 64 * 1024, &s), 0);
	KUNIT_EXPECT_EQ(test, s.slot_hdr_len, (u64)8192);
	KUNIT_EXPECT_EQ(test, s.slot_data_off, s.slot_hdr_off + 8192);
}

static void pm_geometry_nospc(struct kunit *test)
{
	struct ddsm_pm_sb_info s;
	u64 need = 8192 + 4096 + 4096 + 16 * UNIT + 64 * 1024;

	memset(&s, 0, sizeof(s));
	KUNIT_EXPECT_EQ(test, ddsm_pm_geometry(need, 16, 64 * 1024, &s), 0);
	KUNIT_EXPECT_EQ(test, s.log_off + s.log_len, need);
	KUNIT_EXPECT_EQ(test, ddsm_pm_geometry(need - 1, 16, 64 * 1024, &s),
			-ENOSPC);
	KUNIT_EXPECT_EQ(test, ddsm_pm_geometry(NS_BYTES, 0xffffffffU,
					       64 * 1024, &s), -ENOSPC);
	KUNIT_EXPECT_EQ(test, ddsm_pm_geometry(NS_BYTES, 16, 64 * 1024 + 1, &s),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, ddsm_pm_geometry(NS_BYTES, 16, 8192, &s), -EINVAL);
	KUNIT_EXPECT_EQ(test, ddsm_pm_geometry(NS_BYTES, 0, 64 * 1024, &s), 0);
}

/* ---------------------------------------------------------------------- */
/* Region table */

static void pm_region_roundtrip(struct kunit *test)
{
	struct pmt *t = test->priv;
	struct ddsm_pm_region r = {
		.start = 16 * UNIT, .len = 256 * UNIT,
		.model = DDSM_PM_SCOPE, .nr_backups = 1,
	};
	struct ddsm_pm_region d;

	ddsm_pm_region_write(t->buf, &r, &t->ops);
	KUNIT_EXPECT_EQ(test, t->fences, (u64)1);
	KUNIT_ASSERT_EQ(test, ddsm_pm_region_decode(t->buf, &d), 0);
	KUNIT_EXPECT_EQ(test, d.start, r.start);
	KUNIT_EXPECT_EQ(test, d.len, r.len);
	KUNIT_EXPECT_EQ(test, d.model, (u32)DDSM_PM_SCOPE);
	KUNIT_EXPECT_EQ(test, d.nr_backups, (u32)1);
	KUNIT_EXPECT_EQ(test, d.flags, (u32)0);

	KUNIT_EXPECT_STREQ(test, ddsm_pm_model_name(DDSM_PM_SYNC), "sync");
	KUNIT_EXPECT_STREQ(test, ddsm_pm_model_name(DDSM_PM_STRICT), "strict");
	KUNIT_EXPECT_STREQ(test, ddsm_pm_model_name(DDSM_PM_READ_ENF),
			   "read_enf");
	KUNIT_EXPECT_STREQ(test, ddsm_pm_model_name(DDSM_PM_EVENTUAL),
			   "eventual");
	KUNIT_EXPECT_STREQ(test, ddsm_pm_model_name(DDSM_PM_SCOPE), "scope");
	KUNIT_EXPECT_STREQ(test, ddsm_pm_model_name(DDSM_PM_MODEL_NR), "?");
}

static void pm_region_rejects(struct kunit *test)
{
	struct pmt *t = test->priv;
	struct ddsm_pm_region good = {
		.start = 0, .len = UNIT, .model = DDSM_PM_EVENTUAL,
	};
	struct ddsm_pm_region r, d;
	int i;

	memset(t->buf, 0, 64);
	KUNIT_EXPECT_EQ(test, ddsm_pm_region_decode(t->buf, &d), -ENOENT);
	ddsm_pm_region_encode(&good, t->buf);
	t->buf[5] ^= 0x10;
	KUNIT_EXPECT_EQ(test, ddsm_pm_region_decode(t->buf, &d), -EBADMSG);

	for (i = 0; i < 7; i++) {
		r = good;
		switch (i) {
		case 0:
			r.model = DDSM_PM_MODEL_NR;
			break;
		case 1:
			r.start = 100;
			break;
		case 2:
			r.len = UNIT + 1;
			break;
		case 3:
			r.len = 0;
			break;
		case 4:	/* wraps around the address space */
			r.start = 0ULL - UNIT;
			r.len = 2 * UNIT;
			break;
		case 5:
			r.flags = 1;
			break;
		case 6:
			r.nr_backups = DDSM_PM_MAX_NODES;
			break;
		}
		ddsm_pm_region_encode(&r, t->buf);
		KUNIT_EXPECT_EQ_MSG(test, ddsm_pm_region_decode(t->buf, &d),
				    -EINVAL, "case %d", i);
	}
}

/* ---------------------------------------------------------------------- */
/* Unit slots */

static void fill(u8 *p, u32 len, u32 seed)
{
	u32 i;

	for (i = 0; i < len; i++)
		p[i] = (u8)(seed * 31 + i * 7 + (i >> 8));
}

static void pm_slot_check_valid(struct kunit *test)
{
	struct pmt *t = test->priv;
	struct ddsm_pm_slot_info si;
	u64 ts = 0;

	fill(t->buf, UNIT, 1);
	KUNIT_ASSERT_EQ(test, ddsm_pm_slot_write(t->hdrs, t->data, 3, 7, 0,
						 t->buf, UNIT, &t->ops), 0);
	/* data, flush, fence, header, flush, fence */
	KUNIT_EXPECT_EQ(test, t->fences, (u64)2);
	KUNIT_EXPECT_EQ(test, ddsm_pm_slot_check(t->hdrs, t->data, &ts), 0);
	KUNIT_EXPECT_EQ(test, ts, (u64)7);
	KUNIT_EXPECT_EQ(test, memcmp(t->data, t->buf, UNIT), 0);
	KUNIT_ASSERT_EQ(test, ddsm_pm_slot_hdr_decode(t->hdrs, &si), 0);
	KUNIT_EXPECT_EQ(test, si.unit, (u64)3);
	KUNIT_EXPECT_EQ(test, si.seq, (u16)1);
	KUNIT_EXPECT_EQ(test, si.flags, (u16)DDSM_PM_SLOT_VALID);
	/* The next write goes to the other copy. */
	KUNIT_ASSERT_EQ(test, ddsm_pm_slot_write(t->hdrs, t->data, 3, 9, 100,
						 t->buf, 10, &t->ops), 0);
	KUNIT_EXPECT_EQ(test, ddsm_pm_slot_check(t->hdrs, t->data, &ts), 0);
	KUNIT_EXPECT_EQ(test, ts, (u64)9);
	KUNIT_ASSERT_EQ(test, ddsm_pm_slot_hdr_decode(t->hdrs, &si), 0);
	KUNIT_EXPECT_EQ(test, si.seq, (u16)2);
	/* A slot holds one unit. */
	KUNIT_EXPECT_EQ(test, ddsm_pm_slot_write(t->hdrs, t->data, 4, 10, 0,
						 t->buf, 1, &t->ops), -EINVAL);
	KUNIT_EXPECT_EQ(test, ddsm_pm_slot_write(t->hdrs, t->data, 3, 10, 4000,
						 t->buf, 97, &t->ops), -EINVAL);
}

static void pm_slot_check_never_written(struct kunit *test)
{
	struct pmt *t = test->priv;
	struct ddsm_pm_slot_info si;
	u64 ts = 0;

	KUNIT_EXPECT_EQ(test, ddsm_pm_slot_check(t->hdrs, t->data, &ts),
			-ENODATA);
	KUNIT_EXPECT_EQ(test, ddsm_pm_slot_hdr_decode(t->hdrs, &si), -ENODATA);
}

static void pm_slot_check_torn_header(struct kunit *test)
{
	struct pmt *t = test->priv;
	struct ddsm_pm_slot_info si;
	u64 ts = 0;

	fill(t->buf, UNIT, 2);
	KUNIT_ASSERT_EQ(test, ddsm_pm_slot_write(t->hdrs, t->data, 0, 5, 0,
						 t->buf, UNIT, &t->ops), 0);
	/* The first header write torn: no valid copy at all. */
	t->hdrs[8 + 24 + 3] ^= 0x40;		/* copy 1's ts */
	KUNIT_EXPECT_EQ(test, ddsm_pm_slot_check(t->hdrs, t->data, &ts),
			-EBADMSG);
	t->hdrs[8 + 24 + 3] ^= 0x40;

	/* A later header write torn: the previous copy still tells ts 5. */
	KUNIT_ASSERT_EQ(test, ddsm_pm_slot_write(t->hdrs, t->data, 0, 6, 0,
						 t->buf + 1, 64, &t->ops), 0);
	KUNIT_EXPECT_EQ(test, ddsm_pm_slot_check(t->hdrs, t->data, &ts), 0);
	KUNIT_EXPECT_EQ(test, ts, (u64)6);
	t->hdrs[8 + 2] ^= 0x01;			/* copy 0 (seq 2) torn */
	KUNIT_ASSERT_EQ(test, ddsm_pm_slot_hdr_decode(t->hdrs, &si), 0);
	KUNIT_EXPECT_EQ(test, si.ts, (u64)5);
	KUNIT_EXPECT_EQ(test, si.seq, (u16)1);
	/* ... and the data, already rewritten, does not match it: torn unit. */
	KUNIT_EXPECT_EQ(test, ddsm_pm_slot_check(t->hdrs, t->data, &ts),
			-EBADMSG);
}

static void pm_slot_check_torn_data(struct kunit *test)
{
	struct pmt *t = test->priv;
	u64 ts = 0;

	fill(t->buf, UNIT, 3);
	KUNIT_ASSERT_EQ(test, ddsm_pm_slot_write(t->hdrs, t->data, 0, 5, 0,
						 t->buf, UNIT, &t->ops), 0);
	t->data[4095] ^= 0x80;
	KUNIT_EXPECT_EQ(test, ddsm_pm_slot_check(t->hdrs, t->data, &ts),
			-EBADMSG);
}

static void pm_slot_first_write_zero_fills(struct kunit *test)
{
	struct pmt *t = test->priv;
	u64 ts = 0;
	u32 i, nonzero = 0;

	memset(t->data, 0xee, UNIT);		/* whatever was on the media */
	fill(t->buf, 16, 4);
	KUNIT_ASSERT_EQ(test, ddsm_pm_slot_write(t->hdrs, t->data, 0, 1, 32,
						 t->buf, 16, &t->ops), 0);
	KUNIT_EXPECT_EQ(test, ddsm_pm_slot_check(t->hdrs, t->data, &ts), 0);
	KUNIT_EXPECT_EQ(test, memcmp(t->data + 32, t->buf, 16), 0);
	for (i = 0; i < UNIT; i++)
		if ((i < 32 || i >= 48) && t->data[i])
			nonzero++;
	KUNIT_EXPECT_EQ(test, nonzero, (u32)0);
}

/* ---------------------------------------------------------------------- */
/* Redo log */

/* The replay rule, applied by hand. */
static void ref_apply(struct ref *r, u64 unit, u64 ts, u32 off,
		      const u8 *p, u32 len)
{
	if (r->written[unit] && ts < r->ts[unit])
		return;
	memcpy(r->data[unit] + off, p, len);
	r->ts[unit] = ts;
	r->written[unit] = true;
}

/* Record i of the standard workload: unit, ts, offset and length. */
struct wrec {
	u64 unit, ts;
	u32 off, len;
};

static struct wrec wrec(u32 i)
{
	struct wrec w;

	w.unit = (i * 5 + 1) % NR_SLOTS;
	w.ts = 10 + i;
	w.off = (i * 448) % 3072;
	w.len = 1 + (i * 613) % (UNIT - w.off);
	return w;
}

/* Append records [from, to) of the standard workload, mirrored in t->ref. */
static void append_std(struct kunit *test, u32 from, u32 to)
{
	struct pmt *t = test->priv;
	struct wrec w;
	u32 i;

	for (i = from; i < to; i++) {
		w = wrec(i);
		fill(t->buf, w.len, i);
		KUNIT_ASSERT_EQ(test, ddsm_pm_log_append(&t->log, w.unit, w.ts,
							 w.off, t->buf, w.len,
							 &t->ops), 0);
		ref_apply(t->ref, w.unit, w.ts, w.off, t->buf, w.len);
	}
}

/* Slots against the reference: every written unit valid with its bytes. */
static void expect_ref(struct kunit *test, const u8 *hdrs, const u8 *data)
{
	struct pmt *t = test->priv;
	u64 ts;
	int u;

	for (u = 0; u < NR_SLOTS; u++) {
		int ret = ddsm_pm_slot_check(hdrs + u * 64, data + u * UNIT, &ts);

		if (!t->ref->written[u]) {
			KUNIT_EXPECT_EQ_MSG(test, ret, -ENODATA, "unit %d", u);
			continue;
		}
		KUNIT_EXPECT_EQ_MSG(test, ret, 0, "unit %d", u);
		KUNIT_EXPECT_EQ_MSG(test, ts, t->ref->ts[u], "unit %d", u);
		KUNIT_EXPECT_EQ_MSG(test, memcmp(data + u * UNIT,
						 t->ref->data[u], UNIT), 0,
				    "unit %d", u);
	}
}

/* Copy the log area and the slot area to the second namespace. */
static void clone_media(struct pmt *t)
{
	memcpy(t->media2, t->media, LOG_MAX);
	memcpy(t->hdrs2, t->hdrs, NR_SLOTS * DDSM_PM_LINE);
	memcpy(t->data2, t->data, NR_SLOTS * UNIT);
}

/* Byte offset in t->media of the record with lsn @lsn (no wrap yet). */
static u8 *rec_at(struct kunit *test, u64 lsn)
{
	struct pmt *t = test->priv;
	u8 *p = t->media + DDSM_PM_LOG_HDR_BYTES;
	struct ddsm_pm_rec_wire h;

	for (;;) {
		memcpy(&h, p, sizeof(h));
		KUNIT_ASSERT_EQ(test, le32_to_cpu(h.magic), DDSM_PM_REC_MAGIC);
		if (le64_to_cpu(h.lsn) == lsn)
			return p;
		p += 64 + ((le32_to_cpu(h.len) + 63) & ~63U);
	}
}

#define N_STD	24

static void pm_log_append_replay(struct kunit *test)
{
	struct pmt *t = test->priv;
	struct ddsm_pm_replay_stats st;
	u64 fences;

	KUNIT_ASSERT_EQ(test, ddsm_pm_log_format(&t->log, t->media, LOG_MAX,
						 0x5eed, &t->ops), 0);
	fences = t->fences;
	append_std(test, 0, N_STD);
	/* An entry commits with one fence. */
	KUNIT_EXPECT_EQ(test, t->fences - fences, (u64)N_STD);
	KUNIT_EXPECT_EQ(test, t->log.next_lsn, (u64)N_STD + 1);

	KUNIT_ASSERT_EQ(test, ddsm_pm_log_replay(&t->log, &t->slots, &t->ops,
						 &st), 0);
	KUNIT_EXPECT_EQ(test, st.seen, (u64)N_STD);
	KUNIT_EXPECT_EQ(test, st.applied, (u64)N_STD);
	KUNIT_EXPECT_EQ(test, st.obsolete, (u64)0);
	KUNIT_EXPECT_EQ(test, st.torn, (u64)0);
	KUNIT_EXPECT_EQ(test, st.pads, (u64)0);
	KUNIT_EXPECT_EQ(test, t->log.next_lsn, (u64)N_STD + 1);
	expect_ref(test, t->hdrs, t->data);
}

static void pm_log_replay_from_reopened_media(struct kunit *test)
{
	struct pmt *t = test->priv;
	struct ddsm_pm_replay_stats st;
	struct ddsm_pm_log log;

	KUNIT_EXPECT_EQ(test, ddsm_pm_log_open(&log, t->media, LOG_MAX),
			-EINVAL);	/* never formatted */
	KUNIT_ASSERT_EQ(test, ddsm_pm_log_format(&t->log, t->media, LOG_MAX,
						 77, &t->ops), 0);
	append_std(test, 0, N_STD);
	/* "Crash": only the media is left. */
	KUNIT_ASSERT_EQ(test, ddsm_pm_log_open(&log, t->media, LOG_MAX), 0);
	KUNIT_EXPECT_EQ(test, log.head_lsn, (u64)1);
	KUNIT_EXPECT_EQ(test, log.epoch, (u64)77);
	KUNIT_EXPECT_EQ(test, ddsm_pm_log_append(&log, 0, 1, 0, t->buf, 1,
						 &t->ops), -EROFS);
	KUNIT_EXPECT_EQ(test, ddsm_pm_log_restart(&log, &t->ops), -EINVAL);
	KUNIT_ASSERT_EQ(test, ddsm_pm_log_replay(&log, &t->slots, &t->ops, &st),
			0);
	KUNIT_EXPECT_EQ(test, st.seen, (u64)N_STD);
	KUNIT_EXPECT_EQ(test, log.next_lsn, (u64)N_STD + 1);
	KUNIT_EXPECT_EQ(test, log.tail_pos, t->log.tail_pos);
	expect_ref(test, t->hdrs, t->data);
}

static void pm_log_torn_last_record_data(struct kunit *test)
{
	struct pmt *t = test->priv;
	struct ddsm_pm_replay_stats st;
	struct wrec w = wrec(N_STD - 1);

	KUNIT_ASSERT_EQ(test, ddsm_pm_log_format(&t->log, t->media, LOG_MAX, 1,
						 &t->ops), 0);
	append_std(test, 0, N_STD - 1);
	/* The last one is not mirrored in t->ref: it must not survive. */
	fill(t->buf, w.len, N_STD - 1);
	KUNIT_ASSERT_EQ(test, ddsm_pm_log_append(&t->log, w.unit, w.ts, w.off,
						 t->buf, w.len, &t->ops), 0);
	rec_at(test, N_STD)[64 + 5] ^= 0x04;	/* one bit of its data */

	KUNIT_ASSERT_EQ(test, ddsm_pm_log_replay(&t->log, &t->slots, &t->ops,
						 &st), 0);
	KUNIT_EXPECT_EQ(test, st.seen, (u64)N_STD - 1);
	KUNIT_EXPECT_EQ(test, st.applied, (u64)N_STD - 1);
	KUNIT_EXPECT_EQ(test, st.torn, (u64)1);
	/* The tail is back at the torn record: the next append replaces it. */
	KUNIT_EXPECT_EQ(test, t->log.next_lsn, (u64)N_STD);
	KUNIT_EXPECT_PTR_EQ(test, t->media + DDSM_PM_LOG_HDR_BYTES +
			    t->log.tail_pos, rec_at(test, N_STD));
	expect_ref(test, t->hdrs, t->data);
}

static void pm_log_torn_last_record_truncated(struct kunit *test)
{
	struct pmt *t = test->priv;
	struct ddsm_pm_replay_stats st;
	u8 *last;

	KUNIT_ASSERT_EQ(test, ddsm_pm_log_format(&t->log, t->media, LOG_MAX, 1,
						 &t->ops), 0);
	append_std(test, 0, 4);
	/* Only the record's first 32 bytes reached the media. */
	last = rec_at(test, 4);
	memset(last + 32, 0, 64 - 32 + wrec(3).len);
	KUNIT_ASSERT_EQ(test, ddsm_pm_log_replay(&t->log, &t->slots, &t->ops,
						 &st), 0);
	KUNIT_EXPECT_EQ(test, st.seen, (u64)3);
	KUNIT_EXPECT_EQ(test, st.torn, (u64)1);

	/* Nothing of it reached the media: the log just ends, not torn. */
	memset(last, 0, 64);
	KUNIT_ASSERT_EQ(test, ddsm_pm_log_replay(&t->log, &t->slots, &t->ops,
						 &st), 0);
	KUNIT_EXPECT_EQ(test, st.seen, (u64)3);
	KUNIT_EXPECT_EQ(test, st.torn, (u64)0);
}

static void pm_log_replay_twice(struct kunit *test)
{
	struct pmt *t = test->priv;
	struct ddsm_pm_replay_stats st;

	KUNIT_ASSERT_EQ(test, ddsm_pm_log_format(&t->log, t->media, LOG_MAX, 2,
						 &t->ops), 0);
	append_std(test, 0, N_STD);
	KUNIT_ASSERT_EQ(test, ddsm_pm_log_replay(&t->log, &t->slots, &t->ops,
						 &st), 0);
	clone_media(t);
	KUNIT_ASSERT_EQ(test, ddsm_pm_log_replay(&t->log, &t->slots, &t->ops,
						 &st), 0);
	KUNIT_EXPECT_EQ(test, st.seen, (u64)N_STD);
	KUNIT_EXPECT_EQ(test, st.applied, (u64)0);
	KUNIT_EXPECT_EQ(test, st.obsolete + st.present, (u64)N_STD);
	/* Not one byte of the slot area changed. */
	KUNIT_EXPECT_EQ(test, memcmp(t->hdrs, t->hdrs2, NR_SLOTS * 64), 0);
	KUNIT_EXPECT_EQ(test, memcmp(t->data, t->data2, NR_SLOTS * UNIT), 0);
	expect_ref(test, t->hdrs, t->data);
}

struct partial {
	struct ddsm_pm_slots *slots;
	const struct ddsm_pm_persist *ops;
	u32 left;		/* records still to apply */
	bool tear;		/* then half-copy the next one's data */
};

/*
 * Apply the first records, then "crash" (stop the scan), maybe in the
 * middle of the next apply: its data half written, its header not.
 */
static int apply_some(void *ctx, const struct ddsm_pm_rec *rec)
{
	struct partial *p = ctx;
	u8 *hdr = p->slots->hdrs + rec->unit * DDSM_PM_LINE;
	u8 *data = p->slots->data + rec->unit * UNIT;
	struct ddsm_pm_slot_info si;

	if (p->left) {
		p->left--;
		return ddsm_pm_slot_apply(p->slots, rec, p->ops) < 0 ? -EIO : 0;
	}
	/* Only a record the rule accepts is ever being written. */
	if (p->tear && (ddsm_pm_slot_hdr_decode(hdr, &si) || si.ts <= rec->ts))
		memcpy(data + rec->off, rec->data, (rec->len + 1) / 2);
	return -ECANCELED;
}

static void pm_log_crash_mid_replay(struct kunit *test)
{
	struct pmt *t = test->priv;
	struct ddsm_pm_replay_stats st;
	struct ddsm_pm_log log2;
	struct partial p;
	u32 k, u;
	int tear, ret;
	u64 ts;

	KUNIT_ASSERT_EQ(test, ddsm_pm_log_format(&t->log, t->media, LOG_MAX, 3,
						 &t->ops), 0);
	append_std(test, 0, N_STD);
	/* Two records of one epoch, then an obsolete one, for good measure. */
	fill(t->buf, 300, 100);
	KUNIT_ASSERT_EQ(test, ddsm_pm_log_append(&t->log, 2, 1000, 0, t->buf,
						 300, &t->ops), 0);
	ref_apply(t->ref, 2, 1000, 0, t->buf, 300);
	KUNIT_ASSERT_EQ(test, ddsm_pm_log_append(&t->log, 2, 1000, 200, t->buf,
						 300, &t->ops), 0);
	ref_apply(t->ref, 2, 1000, 200, t->buf, 300);
	KUNIT_ASSERT_EQ(test, ddsm_pm_log_append(&t->log, 2, 999, 0, t->buf + 1,
						 300, &t->ops), 0);
	ref_apply(t->ref, 2, 999, 0, t->buf + 1, 300);
	/* Before any replay: keep the media to restart from. */
	memcpy(t->media2, t->media, LOG_MAX);

	for (k = 0; k <= N_STD + 3; k++) {
		for (tear = 0; tear < 2; tear++) {
			memset(t->hdrs, 0, NR_SLOTS * DDSM_PM_LINE);
			memset(t->data, 0, NR_SLOTS * UNIT);
			KUNIT_ASSERT_EQ(test, ddsm_pm_log_open(&log2, t->media2,
							       LOG_MAX), 0);
			p.slots = &t->slots;
			p.ops = &t->ops;
			p.left = k;
			p.tear = tear;
			ddsm_pm_log_scan(&log2, apply_some, &p, NULL);
			/* Restart: open again, replay everything. */
			KUNIT_ASSERT_EQ(test, ddsm_pm_log_open(&log2, t->media2,
							       LOG_MAX), 0);
			KUNIT_ASSERT_EQ(test, ddsm_pm_log_replay(&log2, &t->slots,
								 &t->ops, &st), 0);
			KUNIT_EXPECT_EQ(test, st.seen, (u64)N_STD + 3);
			for (u = 0; u < NR_SLOTS; u++) {
				if (!t->ref->written[u])
					continue;
				ret = ddsm_pm_slot_check(t->hdrs + u * 64,
							 t->data + u * UNIT, &ts);
				KUNIT_EXPECT_EQ_MSG(test, ret, 0,
						    "k %u tear %d unit %u", k, tear, u);
				KUNIT_EXPECT_EQ_MSG(test, ts, t->ref->ts[u],
						    "k %u tear %d unit %u", k,
						    tear, u);
				KUNIT_EXPECT_EQ_MSG(test, memcmp(t->data + u * UNIT,
								 t->ref->data[u],
								 UNIT), 0,
						    "k %u tear %d unit %u", k,
						    tear, u);
			}
		}
	}
}

static void pm_log_obsolete_skipped(struct kunit *test)
{
	struct pmt *t = test->priv;
	struct ddsm_pm_replay_stats st;
	u64 ts = 0;

	KUNIT_ASSERT_EQ(test, ddsm_pm_log_format(&t->log, t->media, LOG_MAX, 4,
						 &t->ops), 0);
	memset(t->buf, 'B', 100);
	KUNIT_ASSERT_EQ(test, ddsm_pm_log_append(&t->log, 1, 10, 0, t->buf, 100,
						 &t->ops), 0);
	memset(t->buf, 'A', 100);	/* older epoch, logged later */
	KUNIT_ASSERT_EQ(test, ddsm_pm_log_append(&t->log, 1, 5, 0, t->buf, 100,
						 &t->ops), 0);
	KUNIT_ASSERT_EQ(test, ddsm_pm_log_replay(&t->log, &t->slots, &t->ops,
						 &st), 0);
	KUNIT_EXPECT_EQ(test, st.applied, (u64)1);
	KUNIT_EXPECT_EQ(test, st.obsolete, (u64)1);
	KUNIT_EXPECT_EQ(test, ddsm_pm_slot_check(t->hdrs + 64, t->data + UNIT,
						 &ts), 0);
	KUNIT_EXPECT_EQ(test, ts, (u64)10);
	KUNIT_EXPECT_EQ(test, t->data[UNIT], (u8)'B');
	KUNIT_EXPECT_EQ(test, t->data[UNIT + 99], (u8)'B');
}

/* Overlapping records of one epoch: re-applied in order, same bytes. */
static void pm_log_same_ts_overlap(struct kunit *test)
{
	struct pmt *t = test->priv;
	struct ddsm_pm_replay_stats st;

	KUNIT_ASSERT_EQ(test, ddsm_pm_log_format(&t->log, t->media, LOG_MAX, 5,
						 &t->ops), 0);
	memset(t->buf, 'C', 100);
	KUNIT_ASSERT_EQ(test, ddsm_pm_log_append(&t->log, 0, 20, 0, t->buf, 100,
						 &t->ops), 0);
	memset(t->buf, 'D', 100);
	KUNIT_ASSERT_EQ(test, ddsm_pm_log_append(&t->log, 0, 20, 50, t->buf,
						 100, &t->ops), 0);
	KUNIT_ASSERT_EQ(test, ddsm_pm_log_replay(&t->log, &t->slots, &t->ops,
						 &st), 0);
	KUNIT_EXPECT_EQ(test, st.applied, (u64)2);
	clone_media(t);
	KUNIT_ASSERT_EQ(test, ddsm_pm_log_replay(&t->log, &t->slots, &t->ops,
						 &st), 0);
	/* C's bytes 50..99 were overwritten by D: C and D rewritten again. */
	KUNIT_EXPECT_EQ(test, st.applied, (u64)2);
	KUNIT_EXPECT_EQ(test, memcmp(t->data, t->data2, UNIT), 0);
	KUNIT_EXPECT_EQ(test, t->data[49], (u8)'C');
	KUNIT_EXPECT_EQ(test, t->data[50], (u8)'D');
	KUNIT_EXPECT_EQ(test, t->data[149], (u8)'D');
	KUNIT_EXPECT_EQ(test, t->data[150], (u8)0);
}

/*
 * A crash after an apply's data reached the media but before its header
 * did, for a record of the slot's own epoch: the bytes are all there, the
 * header is stale.  Replay must rewrite the header, not skip the record.
 */
static void pm_log_redo_data_only_apply(struct kunit *test)
{
	struct pmt *t = test->priv;
	struct ddsm_pm_replay_stats st;
	u64 ts = 0;

	/* Epoch 20's first record, applied and already out of the log. */
	memset(t->buf, 'C', 100);
	KUNIT_ASSERT_EQ(test, ddsm_pm_slot_write(t->hdrs, t->data, 0, 20, 0,
						 t->buf, 100, &t->ops), 0);
	KUNIT_ASSERT_EQ(test, ddsm_pm_log_format(&t->log, t->media, LOG_MAX, 5,
						 &t->ops), 0);
	memset(t->buf, 'D', 100);
	KUNIT_ASSERT_EQ(test, ddsm_pm_log_append(&t->log, 0, 20, 50, t->buf,
						 100, &t->ops), 0);
	memcpy(t->data + 50, t->buf, 100);	/* data durable, header not */
	KUNIT_EXPECT_EQ(test, ddsm_pm_slot_check(t->hdrs, t->data, &ts),
			-EBADMSG);

	KUNIT_ASSERT_EQ(test, ddsm_pm_log_replay(&t->log, &t->slots, &t->ops,
						 &st), 0);
	KUNIT_EXPECT_EQ(test, st.applied, (u64)1);
	KUNIT_EXPECT_EQ(test, ddsm_pm_slot_check(t->hdrs, t->data, &ts), 0);
	KUNIT_EXPECT_EQ(test, ts, (u64)20);
	KUNIT_EXPECT_EQ(test, t->data[49], (u8)'C');
	KUNIT_EXPECT_EQ(test, t->data[149], (u8)'D');
}

static void pm_log_wrap_with_pad(struct kunit *test)
{
	struct pmt *t = test->priv;
	struct ddsm_pm_replay_stats st;
	struct ddsm_pm_log log2;
	u64 ts = 0;

	/* Ring of 8 KiB; records of 3000 bytes take 3072. */
	KUNIT_ASSERT_EQ(test, ddsm_pm_log_format(&t->log, t->media, LOG_SMALL,
						 6, &t->ops), 0);
	memset(t->buf, 1, 3000);
	KUNIT_ASSERT_EQ(test, ddsm_pm_log_append(&t->log, 1, 1, 0, t->buf, 3000,
						 &t->ops), 0);
	memset(t->buf, 2, 3000);
	KUNIT_ASSERT_EQ(test, ddsm_pm_log_append(&t->log, 2, 1, 0, t->buf, 3000,
						 &t->ops), 0);
	KUNIT_EXPECT_EQ(test, t->log.tail_pos, (u64)6144);
	/* The third would wrap over the unapplied first one. */
	memset(t->buf, 3, 3000);
	KUNIT_EXPECT_EQ(test, ddsm_pm_log_append(&t->log, 3, 1, 0, t->buf, 3000,
						 &t->ops), -ENOSPC);
	KUNIT_ASSERT_EQ(test, ddsm_pm_log_replay(&t->log, &t->slots, &t->ops,
						 &st), 0);
	KUNIT_ASSERT_EQ(test, ddsm_pm_log_advance_head(&t->log, 2, &t->ops), 0);
	KUNIT_EXPECT_EQ(test, t->log.head_pos, (u64)3072);
	/* Now it fits: PAD at 6144 (lsn 3), the record at 0 (lsn 4). */
	KUNIT_ASSERT_EQ(test, ddsm_pm_log_append(&t->log, 3, 1, 0, t->buf, 3000,
						 &t->ops), 0);
	KUNIT_EXPECT_EQ(test, t->log.tail_pos, (u64)3072);
	KUNIT_EXPECT_EQ(test, t->log.next_lsn, (u64)5);
	/* The ring is exactly full. */
	KUNIT_EXPECT_EQ(test, ddsm_pm_log_append(&t->log, 3, 2, 0, t->buf, 1,
						 &t->ops), -ENOSPC);

	KUNIT_ASSERT_EQ(test, ddsm_pm_log_open(&log2, t->media, LOG_SMALL), 0);
	KUNIT_EXPECT_EQ(test, log2.head_lsn, (u64)2);
	KUNIT_ASSERT_EQ(test, ddsm_pm_log_replay(&log2, &t->slots, &t->ops,
						 &st), 0);
	KUNIT_EXPECT_EQ(test, st.seen, (u64)2);
	KUNIT_EXPECT_EQ(test, st.pads, (u64)1);
	KUNIT_EXPECT_EQ(test, st.applied, (u64)1);	/* record 2 was there */
	KUNIT_EXPECT_EQ(test, st.present, (u64)1);
	KUNIT_EXPECT_EQ(test, st.torn, (u64)0);
	KUNIT_EXPECT_EQ(test, log2.tail_pos, (u64)3072);
	KUNIT_EXPECT_EQ(test, log2.next_lsn, (u64)5);
	KUNIT_EXPECT_EQ(test, ddsm_pm_slot_check(t->hdrs + 3 * 64,
						 t->data + 3 * UNIT, &ts), 0);
	KUNIT_EXPECT_EQ(test, t->data[3 * UNIT + 2999], (u8)3);
	KUNIT_EXPECT_EQ(test, t->data[3 * UNIT + 3000], (u8)0);

	/* Free everything, across the PAD: the ring is empty again. */
	KUNIT_ASSERT_EQ(test, ddsm_pm_log_advance_head(&t->log, 5, &t->ops), 0);
	KUNIT_EXPECT_EQ(test, t->log.head_pos, (u64)3072);
	KUNIT_EXPECT_EQ(test, ddsm_pm_log_append(&t->log, 3, 2, 0, t->buf, 4096,
						 &t->ops), 0);
}

static void pm_log_full_enospc(struct kunit *test)
{
	struct pmt *t = test->priv;
	int i;

	/* 64-byte records take 128 bytes: 64 fill the 8 KiB ring. */
	KUNIT_ASSERT_EQ(test, ddsm_pm_log_format(&t->log, t->media, LOG_SMALL,
						 7, &t->ops), 0);
	for (i = 0; i < 64; i++)
		KUNIT_ASSERT_EQ(test, ddsm_pm_log_append(&t->log, i % NR_SLOTS,
							 i, 0, t->buf, 64,
							 &t->ops), 0);
	KUNIT_EXPECT_EQ(test, t->log.tail_pos, t->log.head_pos);
	KUNIT_EXPECT_EQ(test, ddsm_pm_log_append(&t->log, 0, 99, 0, t->buf, 64,
						 &t->ops), -ENOSPC);
	KUNIT_ASSERT_EQ(test, ddsm_pm_log_advance_head(&t->log, 11, &t->ops), 0);
	for (i = 0; i < 10; i++)
		KUNIT_ASSERT_EQ(test, ddsm_pm_log_append(&t->log, 0, 100 + i, 0,
							 t->buf, 64, &t->ops),
				0);
	KUNIT_EXPECT_EQ(test, ddsm_pm_log_append(&t->log, 0, 99, 0, t->buf, 64,
						 &t->ops), -ENOSPC);
	/* A full ring scans to its end, not around again. */
	KUNIT_ASSERT_EQ(test, ddsm_pm_log_scan(&t->log, NULL, NULL, NULL), 0);
	KUNIT_EXPECT_EQ(test, t->log.next_lsn, (u64)75);
	KUNIT_EXPECT_EQ(test, t->log.tail_pos, t->log.head_pos);
}

static void pm_log_advance_then_append(struct kunit *test)
{
	struct pmt *t = test->priv;
	struct ddsm_pm_replay_stats st;
	struct ddsm_pm_log log2;

	KUNIT_ASSERT_EQ(test, ddsm_pm_log_format(&t->log, t->media, LOG_MAX, 8,
						 &t->ops), 0);
	append_std(test, 0, 5);
	KUNIT_ASSERT_EQ(test, ddsm_pm_log_replay(&t->log, &t->slots, &t->ops,
						 &st), 0);
	KUNIT_EXPECT_EQ(test, ddsm_pm_log_advance_head(&t->log, 7, &t->ops),
			-EINVAL);
	KUNIT_ASSERT_EQ(test, ddsm_pm_log_advance_head(&t->log, 6, &t->ops), 0);
	KUNIT_EXPECT_EQ(test, t->log.head_pos, t->log.tail_pos);
	append_std(test, 5, 8);
	KUNIT_EXPECT_EQ(test, ddsm_pm_log_advance_head(&t->log, 5, &t->ops),
			-EINVAL);

	KUNIT_ASSERT_EQ(test, ddsm_pm_log_open(&log2, t->media, LOG_MAX), 0);
	KUNIT_EXPECT_EQ(test, log2.head_lsn, (u64)6);
	KUNIT_ASSERT_EQ(test, ddsm_pm_log_replay(&log2, &t->slots, &t->ops,
						 &st), 0);
	KUNIT_EXPECT_EQ(test, st.seen, (u64)3);
	KUNIT_EXPECT_EQ(test, st.applied, (u64)3);
	expect_ref(test, t->hdrs, t->data);
}

/* A torn head update falls back to the older copy: replay still right. */
static void pm_log_torn_head_update(struct kunit *test)
{
	struct pmt *t = test->priv;
	struct ddsm_pm_replay_stats st;
	struct ddsm_pm_log log2;
	u8 *newest;

	KUNIT_ASSERT_EQ(test, ddsm_pm_log_format(&t->log, t->media, LOG_MAX, 9,
						 &t->ops), 0);
	append_std(test, 0, 6);
	KUNIT_ASSERT_EQ(test, ddsm_pm_log_replay(&t->log, &t->slots, &t->ops,
						 &st), 0);
	KUNIT_ASSERT_EQ(test, ddsm_pm_log_advance_head(&t->log, 4, &t->ops), 0);
	newest = t->media + DDSM_PM_LOGH_COPY_OFF(t->log.hdr_seq & 1);
	newest[30] ^= 0x08;

	KUNIT_ASSERT_EQ(test, ddsm_pm_log_open(&log2, t->media, LOG_MAX), 0);
	KUNIT_EXPECT_EQ(test, log2.head_lsn, (u64)1);
	KUNIT_ASSERT_EQ(test, ddsm_pm_log_replay(&log2, &t->slots, &t->ops,
						 &st), 0);
	KUNIT_EXPECT_EQ(test, st.seen, (u64)6);
	KUNIT_EXPECT_EQ(test, st.applied, (u64)0);
	expect_ref(test, t->hdrs, t->data);

	/* Both copies torn: corrupt, and said so. */
	t->media[DDSM_PM_LOGH_COPY_OFF((t->log.hdr_seq + 1) & 1) + 20] ^= 1;
	KUNIT_EXPECT_EQ(test, ddsm_pm_log_open(&log2, t->media, LOG_MAX),
			-EBADMSG);
}

/*
 * An append that wraps writes a PAD and its record under one fence.  If the
 * crash tore the PAD but the record reached the media, the record was
 * never acknowledged: after the restart (new epoch) it must never come
 * back, even when a new record ends right where it starts.
 */
static void pm_log_restart_forgets_stale(struct kunit *test)
{
	struct pmt *t = test->priv;
	struct ddsm_pm_replay_stats st;
	struct ddsm_pm_log log2;
	u8 *pad = t->media + DDSM_PM_LOG_HDR_BYTES + 6144;
	u64 ts;

	KUNIT_ASSERT_EQ(test, ddsm_pm_log_format(&t->log, t->media, LOG_SMALL,
						 10, &t->ops), 0);
	memset(t->buf, 'a', 3000);
	KUNIT_ASSERT_EQ(test, ddsm_pm_log_append(&t->log, 0, 1, 0, t->buf, 3000,
						 &t->ops), 0);
	KUNIT_ASSERT_EQ(test, ddsm_pm_log_append(&t->log, 1, 1, 0, t->buf, 3000,
						 &t->ops), 0);
	KUNIT_ASSERT_EQ(test, ddsm_pm_log_replay(&t->log, &t->slots, &t->ops,
						 &st), 0);
	KUNIT_ASSERT_EQ(test, ddsm_pm_log_advance_head(&t->log, 2, &t->ops), 0);
	/* PAD (lsn 3) at 6144, the record (lsn 4, unit 2) at 0; PAD torn. */
	memset(t->buf, 'b', 3000);
	KUNIT_ASSERT_EQ(test, ddsm_pm_log_append(&t->log, 2, 1, 0, t->buf, 3000,
						 &t->ops), 0);
	pad[20] ^= 1;

	KUNIT_ASSERT_EQ(test, ddsm_pm_log_open(&log2, t->media, LOG_SMALL), 0);
	KUNIT_ASSERT_EQ(test, ddsm_pm_log_replay(&log2, &t->slots, &t->ops,
						 &st), 0);
	KUNIT_EXPECT_EQ(test, st.seen, (u64)1);
	KUNIT_EXPECT_EQ(test, st.torn, (u64)1);
	KUNIT_EXPECT_EQ(test, log2.tail_pos, (u64)6144);
	KUNIT_ASSERT_EQ(test, ddsm_pm_log_restart(&log2, &t->ops), 0);
	KUNIT_EXPECT_EQ(test, log2.epoch, (u64)11);
	/* lsn 3 fills the ring to its end: next comes ring offset 0, lsn 4. */
	memset(t->buf, 'c', 1984);
	KUNIT_ASSERT_EQ(test, ddsm_pm_log_append(&log2, 3, 5, 0, t->buf, 1984,
						 &t->ops), 0);
	KUNIT_EXPECT_EQ(test, log2.tail_pos, (u64)0);

	KUNIT_ASSERT_EQ(test, ddsm_pm_log_open(&log2, t->media, LOG_SMALL), 0);
	KUNIT_ASSERT_EQ(test, ddsm_pm_log_replay(&log2, &t->slots, &t->ops,
						 &st), 0);
	KUNIT_EXPECT_EQ(test, st.seen, (u64)1);
	KUNIT_EXPECT_EQ(test, st.torn, (u64)0);
	KUNIT_EXPECT_EQ(test, log2.next_lsn, (u64)4);
	KUNIT_EXPECT_EQ(test, ddsm_pm_slot_check(t->hdrs + 2 * 64,
						 t->data + 2 * UNIT, &ts),
			-ENODATA);
}

static void pm_log_rejects_bad_args(struct kunit *test)
{
	struct pmt *t = test->priv;

	KUNIT_EXPECT_EQ(test, ddsm_pm_log_format(&t->log, t->media, 8192, 1,
						 &t->ops), -EINVAL);
	KUNIT_EXPECT_EQ(test, ddsm_pm_log_format(&t->log, t->media,
						 LOG_SMALL + 64, 1, &t->ops),
			-EINVAL);
	KUNIT_ASSERT_EQ(test, ddsm_pm_log_format(&t->log, t->media, LOG_SMALL,
						 1, &t->ops), 0);
	KUNIT_EXPECT_EQ(test, ddsm_pm_log_append(&t->log, 0, 1, 0, t->buf, 0,
						 &t->ops), -EINVAL);
	KUNIT_EXPECT_EQ(test, ddsm_pm_log_append(&t->log, 0, 1, 0, t->buf,
						 UNIT + 1, &t->ops), -EINVAL);
	KUNIT_EXPECT_EQ(test, ddsm_pm_log_append(&t->log, 0, 1, 4000, t->buf,
						 97, &t->ops), -EINVAL);
	KUNIT_EXPECT_EQ(test, ddsm_pm_log_append(&t->log, 0, 1, 4000, t->buf,
						 96, &t->ops), 0);
	/* A unit outside the slot area stops the replay. */
	KUNIT_EXPECT_EQ(test, ddsm_pm_log_append(&t->log, NR_SLOTS, 1, 0,
						 t->buf, 8, &t->ops), 0);
	KUNIT_EXPECT_EQ(test, ddsm_pm_log_replay(&t->log, &t->slots, &t->ops,
						 NULL), -ERANGE);
}

static struct kunit_case pmem_layout_cases[] = {
	KUNIT_CASE(pm_crc32c_check_value),
	KUNIT_CASE(pm_crc32c_table),
	KUNIT_CASE(pm_sb_roundtrip),
	KUNIT_CASE(pm_sb_rejects_bad_magic),
	KUNIT_CASE(pm_sb_rejects_version),
	KUNIT_CASE(pm_sb_flipped_byte_is_torn),
	KUNIT_CASE(pm_sb_rejects_geometry),
	KUNIT_CASE(pm_sb_pick_copies),
	KUNIT_CASE(pm_sb_write_both_copies),
	KUNIT_CASE(pm_sb_match_refusals),
	KUNIT_CASE(pm_geometry_fits),
	KUNIT_CASE(pm_geometry_nospc),
	KUNIT_CASE(pm_region_roundtrip),
	KUNIT_CASE(pm_region_rejects),
	KUNIT_CASE(pm_slot_check_valid),
	KUNIT_CASE(pm_slot_check_never_written),
	KUNIT_CASE(pm_slot_check_torn_header),
	KUNIT_CASE(pm_slot_check_torn_data),
	KUNIT_CASE(pm_slot_first_write_zero_fills),
	KUNIT_CASE(pm_log_append_replay),
	KUNIT_CASE(pm_log_replay_from_reopened_media),
	KUNIT_CASE(pm_log_torn_last_record_data),
	KUNIT_CASE(pm_log_torn_last_record_truncated),
	KUNIT_CASE(pm_log_replay_twice),
	KUNIT_CASE(pm_log_crash_mid_replay),
	KUNIT_CASE(pm_log_obsolete_skipped),
	KUNIT_CASE(pm_log_same_ts_overlap),
	KUNIT_CASE(pm_log_redo_data_only_apply),
	KUNIT_CASE(pm_log_wrap_with_pad),
	KUNIT_CASE(pm_log_full_enospc),
	KUNIT_CASE(pm_log_advance_then_append),
	KUNIT_CASE(pm_log_torn_head_update),
	KUNIT_CASE(pm_log_restart_forgets_stale),
	KUNIT_CASE(pm_log_rejects_bad_args),
	{}
};

static struct kunit_suite pmem_layout_suite = {
	.name = "ddsm_pmem_layout",
	.init = pmt_init,
	.test_cases = pmem_layout_cases,
};

kunit_test_suite(pmem_layout_suite);

MODULE_DESCRIPTION("KUnit tests for ddsm's pmem on-media layout");
MODULE_LICENSE("GPL");
