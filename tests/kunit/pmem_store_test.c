// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite ddsm_pmem_store: a node's persistent home
 * (kernel/pmem/store.c) on an emulated namespace (kernel/pmem/shadow.c):
 * format, recovery, refusals, persisting through a wrapping redo log, and
 * crashes at every fence, losing any subset of what was not fenced.
 *
 * The node is node 1 of 3 with interleaved homes: slot s holds unit
 * 3 s + 1.
 */
#include <kunit/test.h>
#include <linux/module.h>

#include "../../kernel/pmem/store.h"
#include "../../kernel/pmem/shadow.h"

#define UNIT		DDSM_PM_UNIT_SIZE
#define NODES		3U
#define NODE		1U
#define BATCH		DDSM_PSTORE_BATCH_MAX
#define NS_1M		(1024 * 1024ULL)
#define LOG_16K		(16 * 1024U)

static u64 unit_of(u64 slot)
{
	return slot * NODES + NODE;
}

static u64 cb_unit_of_slot(void *ctx, u64 slot)
{
	return unit_of(slot);
}

static u64 cb_slot_of_unit(void *ctx, u64 unit)
{
	return unit % NODES == NODE ? unit / NODES : U64_MAX;
}

struct pst {
	struct kunit *test;
	struct ddsm_pm_shadow sh;
	struct ddsm_pm_persist ops;
	u8 *work, *durable, *save;
	unsigned long *bits;
	u64 ns;
	struct ddsm_pstore ps;
	struct ddsm_pstore ps2;		/* a second mount of the same media */
	struct ddsm_pstore_cfg cfg;
	u8 *img;			/* BATCH images of 4 KiB */
	const void *data[BATCH];
	u64 units[BATCH];
	u64 ts[BATCH];
	u8 *buf;			/* 4 KiB scratch */
};

static void *zalloc(struct kunit *test, size_t n)
{
	void *p = kunit_kzalloc(test, n, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	return p;
}

/* A zero namespace of @ns bytes for @nr_slots units and a @log_bytes log. */
static struct pst *pst_setup(struct kunit *test, u64 ns, u64 nr_slots,
			     u32 log_bytes)
{
	struct pst *t = zalloc(test, sizeof(*t));
	u32 i;

	t->test = test;
	t->ns = ns;
	t->work = zalloc(test, ns);
	t->durable = zalloc(test, ns);
	t->save = zalloc(test, ns);
	t->bits = zalloc(test, DDSM_PM_SHADOW_BITMAP_BYTES(ns));
	t->img = zalloc(test, BATCH * UNIT);
	t->buf = zalloc(test, UNIT);
	for (i = 0; i < BATCH; i++)
		t->data[i] = t->img + i * UNIT;
	KUNIT_ASSERT_EQ(test, ddsm_pm_shadow_init(&t->sh, t->work, t->durable,
						  t->bits, ns), 0);
	t->ops = ddsm_pm_shadow_ops(&t->sh);

	t->cfg.cluster_id = 0xc1a55e5d0000beefULL;
	t->cfg.node_id = NODE;
	t->cfg.nr_nodes = NODES;
	t->cfg.space_bytes = nr_slots * NODES * UNIT;
	t->cfg.home_policy = 0;
	t->cfg.nr_slots = nr_slots;
	t->cfg.unit_of_slot = cb_unit_of_slot;
	t->cfg.slot_of_unit = cb_slot_of_unit;
	t->cfg.log_bytes = log_bytes;
	t->cfg.epoch_seed = 0x5eed;
	return t;
}

/* The image of @slot at @ts, persisted in round @salt. */
static void fill(u8 *buf, u64 slot, u64 ts, u32 salt)
{
	u64 x = (slot + 1) * 0x9e3779b97f4a7c15ULL ^ ts * 0xff51afd7ed558ccdULL ^
		((u64)salt << 40) ^ 1;
	u32 i;

	for (i = 0; i < UNIT; i += 8) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		memcpy(buf + i, &x, 8);
	}
}

/* Take what the test wrote into the media by hand as durable. */
static void resync(struct pst *t)
{
	ddsm_pm_shadow_init(&t->sh, t->work, t->durable, t->bits, t->ns);
}

static int mount(struct pst *t, struct ddsm_pstore *ps, const char **why)
{
	return ddsm_pstore_mount(ps, t->work, t->ns, &t->cfg, &t->ops, why);
}

/* Persist slots[0..n) with images fill(slot, expected ts, salt). */
static int persist(struct pst *t, const u64 *slots, u32 n, const u64 *exp_ts,
		   u32 salt)
{
	u32 i;

	for (i = 0; i < n; i++) {
		t->units[i] = unit_of(slots[i]);
		fill(t->img + i * UNIT, slots[i], exp_ts[i], salt);
	}
	return ddsm_pstore_persist(&t->ps, t->units, t->data, n, t->ts);
}

/* Slot @slot reads back as fill(slot, ts, salt) with that ts. */
static void expect_slot(struct pst *t, struct ddsm_pstore *ps, u64 slot,
			u64 ts, u32 salt)
{
	struct kunit *test = t->test;
	u8 *want = t->img;		/* free after persist returned */
	u64 got;

	KUNIT_ASSERT_EQ_MSG(test, ddsm_pstore_read(ps, slot, t->buf, &got), 0,
			    "slot %llu", slot);
	KUNIT_EXPECT_EQ_MSG(test, got, ts, "slot %llu", slot);
	fill(want, slot, ts, salt);
	KUNIT_EXPECT_EQ_MSG(test, memcmp(t->buf, want, UNIT), 0,
			    "slot %llu", slot);
}

/* ---------------------------------------------------------------------- */

static void pm_store_format_zero_namespace(struct kunit *test)
{
	struct pst *t = pst_setup(test, NS_1M, 32, LOG_16K);
	struct ddsm_pm_sb_info sb;
	struct ddsm_pm_region r;
	const char *why = "unset";
	u64 ts = 7;
	u32 i;

	KUNIT_ASSERT_EQ(test, mount(t, &t->ps, &why), 0);
	KUNIT_EXPECT_NULL(test, why);
	KUNIT_EXPECT_TRUE(test, t->ps.st.formatted);
	KUNIT_EXPECT_FALSE(test, t->ps.st.was_clean);
	KUNIT_EXPECT_EQ(test, t->ps.st.generation, (u64)1);
	KUNIT_EXPECT_EQ(test, t->ps.st.units_present, (u64)0);
	KUNIT_EXPECT_GT(test, t->ps.st.fences, (u64)0);
	KUNIT_EXPECT_EQ(test, t->ps.st.fences, t->sh.fences);
	KUNIT_EXPECT_EQ(test, t->ps.st.flushes, t->sh.flushes);
	KUNIT_EXPECT_GE(test, t->ps.st.bytes, (u64)(2 * DDSM_PM_SB_BYTES +
						   LOG_16K));
	KUNIT_EXPECT_EQ(test, t->sh.stray_flushes, (u64)0);
	/* Everything format wrote is durable. */
	KUNIT_EXPECT_EQ(test, ddsm_pm_shadow_unfenced(&t->sh), (u64)0);

	for (i = 0; i < 2; i++) {
		KUNIT_ASSERT_EQ(test, ddsm_pm_sb_decode(t->work +
							i * DDSM_PM_SB_BYTES,
							&sb), 0);
		KUNIT_EXPECT_EQ(test, sb.generation, (u64)1);
		KUNIT_EXPECT_EQ(test, sb.flags, 0U);
		KUNIT_EXPECT_EQ(test, sb.nr_slots, (u64)32);
		KUNIT_EXPECT_EQ(test, sb.node_id, NODE);
		KUNIT_EXPECT_EQ(test, sb.log_len, (u64)LOG_16K);
	}
	memset(t->buf, 0xff, UNIT);
	KUNIT_EXPECT_EQ(test, ddsm_pstore_read(&t->ps, 0, t->buf, &ts),
			-ENODATA);
	KUNIT_EXPECT_EQ(test, ts, (u64)0);
	KUNIT_EXPECT_NULL(test, memchr_inv(t->buf, 0, UNIT));
	KUNIT_EXPECT_EQ(test, ddsm_pstore_read(&t->ps, 32, t->buf, &ts),
			-ERANGE);
	KUNIT_EXPECT_EQ(test, ddsm_pstore_region_get(&t->ps, 0, &r), -ENOENT);
	KUNIT_EXPECT_EQ(test, t->ps.log.head_lsn, t->ps.log.next_lsn);
}

static void pm_store_remount_finds_units(struct kunit *test)
{
	struct pst *t = pst_setup(test, NS_1M, 32, LOG_16K);
	u64 slots[10], exp[10];
	u64 ts;
	u32 i;

	KUNIT_ASSERT_EQ(test, mount(t, &t->ps, NULL), 0);
	for (i = 0; i < 10; i++) {
		slots[i] = i * 3;
		exp[i] = 1;
	}
	KUNIT_ASSERT_EQ(test, persist(t, slots, 10, exp, 1), 0);
	for (i = 0; i < 10; i++)
		KUNIT_EXPECT_EQ(test, t->ts[i], (u64)1);
	KUNIT_EXPECT_EQ(test, t->ps.st.persists, (u64)10);
	KUNIT_EXPECT_EQ(test, t->ps.st.records, (u64)10);
	KUNIT_EXPECT_EQ(test, ddsm_pm_shadow_unfenced(&t->sh), (u64)0);
	ddsm_pstore_unmount(&t->ps);
	/* Nothing was left unfenced: a crash now loses nothing. */
	KUNIT_EXPECT_EQ(test, ddsm_pm_shadow_crash(&t->sh,
						   ddsm_pm_shadow_keep_none,
						   NULL), (u64)0);

	KUNIT_ASSERT_EQ(test, mount(t, &t->ps, NULL), 0);
	KUNIT_EXPECT_FALSE(test, t->ps.st.formatted);
	KUNIT_EXPECT_TRUE(test, t->ps.st.was_clean);
	KUNIT_EXPECT_EQ(test, t->ps.st.units_present, (u64)10);
	KUNIT_EXPECT_EQ(test, t->ps.st.units_torn, (u64)0);
	KUNIT_EXPECT_EQ(test, t->ps.st.replay.seen, (u64)0);
	for (i = 0; i < 10; i++)
		expect_slot(t, &t->ps, slots[i], 1, 1);
	KUNIT_EXPECT_EQ(test, ddsm_pstore_read(&t->ps, 1, t->buf, &ts),
			-ENODATA);
}

static void pm_store_ts_grow(struct kunit *test)
{
	struct pst *t = pst_setup(test, NS_1M, 32, LOG_16K);
	u64 slots[2] = { 3, 4 }, exp[2];
	u32 i;

	KUNIT_ASSERT_EQ(test, mount(t, &t->ps, NULL), 0);
	for (i = 1; i <= 5; i++) {
		exp[0] = i;
		KUNIT_ASSERT_EQ(test, persist(t, slots, 1, exp, i), 0);
		KUNIT_EXPECT_EQ(test, t->ts[0], (u64)i);
		expect_slot(t, &t->ps, 3, i, i);
	}
	/* Each slot counts on its own. */
	exp[0] = 6;
	exp[1] = 1;
	KUNIT_ASSERT_EQ(test, persist(t, slots, 2, exp, 9), 0);
	KUNIT_EXPECT_EQ(test, t->ts[0], (u64)6);
	KUNIT_EXPECT_EQ(test, t->ts[1], (u64)1);
	ddsm_pstore_unmount(&t->ps);
	KUNIT_ASSERT_EQ(test, mount(t, &t->ps, NULL), 0);
	expect_slot(t, &t->ps, 3, 6, 9);
	expect_slot(t, &t->ps, 4, 1, 9);
	/* And go on from where they were after a remount. */
	exp[0] = 7;
	exp[1] = 2;
	KUNIT_ASSERT_EQ(test, persist(t, slots, 2, exp, 10), 0);
	KUNIT_EXPECT_EQ(test, t->ts[0], (u64)7);
	KUNIT_EXPECT_EQ(test, t->ts[1], (u64)2);
}

/*
 * A backup home's replica slots (ddsm_pstore_put): images keep the ts they
 * had at their home; one not newer than its slot is skipped, so a resync
 * or a repeat never rolls a slot back; a later persist there (after a
 * takeover) goes on from the replica's ts; a remount finds them all.
 */
static void pm_store_put_keeps_ts(struct kunit *test)
{
	struct pst *t = pst_setup(test, NS_1M, 32, LOG_16K);
	u64 ts[3], slots[1] = { 5 }, exp[1];
	u32 applied;

	KUNIT_ASSERT_EQ(test, mount(t, &t->ps, NULL), 0);
	t->units[0] = unit_of(5);
	t->units[1] = unit_of(6);
	t->units[2] = unit_of(7);
	fill(t->img, 5, 40, 1);
	fill(t->img + UNIT, 6, 3, 1);
	fill(t->img + 2 * UNIT, 7, 1, 1);
	ts[0] = 40;
	ts[1] = 3;
	ts[2] = 1;
	KUNIT_ASSERT_EQ(test, ddsm_pstore_put(&t->ps, t->units, t->data, ts,
					      3, &applied), 0);
	KUNIT_EXPECT_EQ(test, applied, 3U);
	expect_slot(t, &t->ps, 5, 40, 1);
	expect_slot(t, &t->ps, 6, 3, 1);
	expect_slot(t, &t->ps, 7, 1, 1);

	/* Older and equal images are obsolete: nothing changes. */
	fill(t->img, 5, 39, 2);
	fill(t->img + UNIT, 6, 3, 2);
	ts[0] = 39;
	ts[1] = 3;
	KUNIT_ASSERT_EQ(test, ddsm_pstore_put(&t->ps, t->units, t->data, ts,
					      2, &applied), 0);
	KUNIT_EXPECT_EQ(test, applied, 0U);
	expect_slot(t, &t->ps, 5, 40, 1);
	expect_slot(t, &t->ps, 6, 3, 1);

	/* A newer one is applied, whatever the gap. */
	fill(t->img, 5, 90, 3);
	ts[0] = 90;
	KUNIT_ASSERT_EQ(test, ddsm_pstore_put(&t->ps, t->units, t->data, ts,
					      1, &applied), 0);
	KUNIT_EXPECT_EQ(test, applied, 1U);
	expect_slot(t, &t->ps, 5, 90, 3);

	/* Refusals, before anything is written. */
	ts[0] = 0;
	KUNIT_EXPECT_EQ(test, ddsm_pstore_put(&t->ps, t->units, t->data, ts,
					      1, NULL), -EINVAL);
	ts[0] = 100;
	t->units[0] = unit_of(5) + 1;	/* homed elsewhere */
	KUNIT_EXPECT_EQ(test, ddsm_pstore_put(&t->ps, t->units, t->data, ts,
					      1, NULL), -ERANGE);
	t->units[0] = unit_of(5);
	t->units[1] = unit_of(5);
	ts[1] = 101;
	KUNIT_EXPECT_EQ(test, ddsm_pstore_put(&t->ps, t->units, t->data, ts,
					      2, NULL), -EINVAL);
	expect_slot(t, &t->ps, 5, 90, 3);

	/* The slot's ts, without its data. */
	KUNIT_EXPECT_EQ(test, ddsm_pstore_slot_ts(&t->ps, 5, &ts[0]), 0);
	KUNIT_EXPECT_EQ(test, ts[0], 90ULL);
	KUNIT_EXPECT_EQ(test, ddsm_pstore_slot_ts(&t->ps, 9, &ts[0]),
			-ENODATA);
	KUNIT_EXPECT_EQ(test, ddsm_pstore_slot_ts(&t->ps, 32, &ts[0]),
			-ERANGE);

	/* Taken over: the home's own persists go on from the replica's ts. */
	exp[0] = 91;
	KUNIT_ASSERT_EQ(test, persist(t, slots, 1, exp, 4), 0);
	KUNIT_EXPECT_EQ(test, t->ts[0], 91ULL);

	/* The failover flag is durable, and a remount keeps everything. */
	KUNIT_ASSERT_EQ(test, ddsm_pstore_set_flags(&t->ps,
						    DDSM_PM_SB_FAILOVER, true),
			0);
	ddsm_pstore_unmount(&t->ps);
	KUNIT_ASSERT_EQ(test, mount(t, &t->ps, NULL), 0);
	KUNIT_EXPECT_TRUE(test, ddsm_pstore_flags(&t->ps) &
				DDSM_PM_SB_FAILOVER);
	expect_slot(t, &t->ps, 5, 91, 4);
	expect_slot(t, &t->ps, 6, 3, 1);
	expect_slot(t, &t->ps, 7, 1, 1);
	KUNIT_EXPECT_EQ(test, ddsm_pstore_set_flags(&t->ps, DDSM_PM_SB_CLEAN,
						    true), -EINVAL);
}

/*
 * A put that returned is durable (what the backup's REPLICA_ACK promises):
 * nothing is left unfenced, and a power failure keeping no unfenced line
 * finds both images with the home's ts.
 */
static void pm_store_put_durable(struct kunit *test)
{
	struct pst *t = pst_setup(test, NS_1M, 32, LOG_16K);
	u64 ts[2] = { 7, 12 };

	KUNIT_ASSERT_EQ(test, mount(t, &t->ps, NULL), 0);
	t->units[0] = unit_of(1);
	t->units[1] = unit_of(2);
	fill(t->img, 1, 7, 1);
	fill(t->img + UNIT, 2, 12, 1);
	KUNIT_ASSERT_EQ(test, ddsm_pstore_put(&t->ps, t->units, t->data, ts,
					      2, NULL), 0);
	KUNIT_EXPECT_EQ(test, ddsm_pm_shadow_unfenced(&t->sh), (u64)0);
	KUNIT_EXPECT_EQ(test, ddsm_pm_shadow_crash(&t->sh,
						   ddsm_pm_shadow_keep_none,
						   NULL), (u64)0);
	KUNIT_ASSERT_EQ(test, mount(t, &t->ps2, NULL), 0);
	KUNIT_EXPECT_FALSE(test, t->ps2.st.was_clean);
	expect_slot(t, &t->ps2, 1, 7, 1);
	expect_slot(t, &t->ps2, 2, 12, 1);
}

/* A refused mount writes nothing and leaves the store unmounted. */
static void expect_refused(struct pst *t, int err, const char *what)
{
	struct kunit *test = t->test;
	const char *why = NULL;
	u64 u = unit_of(0);

	KUNIT_EXPECT_EQ_MSG(test, mount(t, &t->ps, &why), err, "%s", what);
	KUNIT_EXPECT_NOT_NULL_MSG(test, why, "%s", what);
	KUNIT_EXPECT_EQ_MSG(test, memcmp(t->work, t->save, t->ns), 0,
			    "%s: media changed", what);
	KUNIT_EXPECT_EQ_MSG(test, t->sh.flushes, (u64)0, "%s", what);
	KUNIT_EXPECT_EQ_MSG(test, ddsm_pstore_persist(&t->ps, &u, t->data, 1,
						      NULL), -EROFS,
			    "%s", what);
	if (why)
		kunit_info(test, "%s: %d %s\n", what, err, why);
}

static void pm_store_refusals(struct kunit *test)
{
	struct pst *t = pst_setup(test, NS_1M, 32, LOG_16K);
	struct ddsm_pstore_cfg good;
	u64 slots[1] = { 0 }, exp[1] = { 1 };

	KUNIT_ASSERT_EQ(test, mount(t, &t->ps, NULL), 0);
	KUNIT_ASSERT_EQ(test, persist(t, slots, 1, exp, 1), 0);
	ddsm_pstore_unmount(&t->ps);
	memcpy(t->save, t->work, t->ns);
	good = t->cfg;
	resync(t);

	t->cfg.cluster_id++;
	expect_refused(t, -EXDEV, "other cluster");
	t->cfg = good;
	t->cfg.node_id = 2;
	expect_refused(t, -EREMCHG, "other node");
	t->cfg = good;
	t->cfg.nr_nodes = 4;
	expect_refused(t, -EMEDIUMTYPE, "other nr_nodes");
	t->cfg = good;
	t->cfg.nr_slots = 31;
	expect_refused(t, -EMEDIUMTYPE, "other nr_slots");
	t->cfg = good;
	t->cfg.space_bytes += UNIT;
	expect_refused(t, -EMEDIUMTYPE, "other space size");
	t->cfg = good;
	t->cfg.nr_nodes = 0;
	expect_refused(t, -EINVAL, "bad configuration");
	t->cfg = good;
	t->ns = NS_1M / 2;
	expect_refused(t, -ENOSPC, "namespace shrunk");
	t->ns = NS_1M;

	/* One copy torn: the other one serves. */
	t->work[20] ^= 1;
	resync(t);
	KUNIT_EXPECT_EQ(test, mount(t, &t->ps, NULL), 0);
	expect_slot(t, &t->ps, 0, 1, 1);

	/* Both copies torn. */
	memcpy(t->work, t->save, t->ns);
	t->work[20] ^= 1;
	t->work[DDSM_PM_SB_BYTES + 20] ^= 1;
	memcpy(t->save, t->work, t->ns);
	resync(t);
	expect_refused(t, -EBADMSG, "both superblocks torn");

	/* Not ours: no magic, not zero. */
	memset(t->work, 0, t->ns);
	t->work[5000] = 0x5a;
	memcpy(t->save, t->work, t->ns);
	expect_refused(t, -EINVAL, "foreign data in copy 1");
	memset(t->work, 0, t->ns);
	memset(t->work + 16, 0x5a, 64);	/* where copy 0's fields go... */
	memcpy(t->save, t->work, t->ns);
	expect_refused(t, -EINVAL, "foreign data, no log");	/* ...no log */
	memset(t->work, 0xa5, t->ns);
	memcpy(t->save, t->work, t->ns);
	resync(t);
	expect_refused(t, -EINVAL, "foreign data everywhere");

	/* cfg->format takes anything. */
	t->cfg.format = true;
	KUNIT_EXPECT_EQ(test, mount(t, &t->ps, NULL), 0);
	KUNIT_EXPECT_TRUE(test, t->ps.st.formatted);
	KUNIT_EXPECT_EQ(test, ddsm_pm_shadow_unfenced(&t->sh), (u64)0);
}

static void pm_store_was_clean(struct kunit *test)
{
	struct pst *t = pst_setup(test, NS_1M, 32, LOG_16K);
	struct ddsm_pm_sb_info sb;

	KUNIT_ASSERT_EQ(test, mount(t, &t->ps, NULL), 0);
	KUNIT_EXPECT_EQ(test, t->ps.st.generation, (u64)1);
	ddsm_pstore_unmount(&t->ps);
	KUNIT_EXPECT_EQ(test, t->ps.st.generation, (u64)2);
	KUNIT_ASSERT_EQ(test, ddsm_pm_sb_pick(t->work,
					      t->work + DDSM_PM_SB_BYTES, &sb),
			0);
	KUNIT_EXPECT_EQ(test, sb.flags, DDSM_PM_SB_CLEAN);

	KUNIT_ASSERT_EQ(test, mount(t, &t->ps, NULL), 0);
	KUNIT_EXPECT_TRUE(test, t->ps.st.was_clean);
	KUNIT_EXPECT_EQ(test, t->ps.st.generation, (u64)3);
	KUNIT_ASSERT_EQ(test, ddsm_pm_sb_decode(t->work + DDSM_PM_SB_BYTES,
						&sb), 0);
	KUNIT_EXPECT_EQ(test, sb.flags, 0U);
	KUNIT_EXPECT_EQ(test, sb.generation, (u64)3);

	/* No unmount: the next mount sees it was not clean. */
	KUNIT_ASSERT_EQ(test, mount(t, &t->ps2, NULL), 0);
	KUNIT_EXPECT_FALSE(test, t->ps2.st.was_clean);
	KUNIT_EXPECT_FALSE(test, t->ps2.st.formatted);
	KUNIT_EXPECT_EQ(test, t->ps2.st.generation, (u64)4);
}

/* Hundreds of persists through a log whose ring holds two records. */
static void pm_store_log_wraps(struct kunit *test)
{
	struct pst *t = pst_setup(test, 256 * 1024, 16, LOG_16K);
	u64 model[16] = { 0 };
	u32 salt[16] = { 0 };
	u64 slots[4], exp[4], total = 0;
	u32 call, i, n;

	KUNIT_ASSERT_EQ(test, mount(t, &t->ps, NULL), 0);
	for (call = 0; call < 300; call++) {
		n = call % 4 + 1;
		for (i = 0; i < n; i++) {
			slots[i] = (call * 5 + i * 3) % 16;
			exp[i] = model[slots[i]] + 1;
		}
		KUNIT_ASSERT_EQ_MSG(test, persist(t, slots, n, exp, call), 0,
				    "call %u", call);
		for (i = 0; i < n; i++) {
			KUNIT_EXPECT_EQ(test, t->ts[i], exp[i]);
			model[slots[i]] = exp[i];
			salt[slots[i]] = call;
		}
		total += n;
		KUNIT_ASSERT_EQ(test, t->ps.log.head_lsn, t->ps.log.next_lsn);
	}
	KUNIT_EXPECT_EQ(test, ddsm_pm_shadow_unfenced(&t->sh), (u64)0);
	KUNIT_EXPECT_EQ(test, t->ps.st.records, total);
	KUNIT_EXPECT_EQ(test, t->ps.st.persists, total);
	/* Records and pads: far more lsns than the ring holds records. */
	KUNIT_EXPECT_GT(test, t->ps.log.next_lsn, total);
	for (i = 0; i < 16; i++)
		expect_slot(t, &t->ps, i, model[i], salt[i]);

	ddsm_pstore_unmount(&t->ps);
	ddsm_pm_shadow_crash(&t->sh, ddsm_pm_shadow_keep_none, NULL);
	KUNIT_ASSERT_EQ(test, mount(t, &t->ps, NULL), 0);
	KUNIT_EXPECT_EQ(test, t->ps.st.units_present, (u64)16);
	for (i = 0; i < 16; i++)
		expect_slot(t, &t->ps, i, model[i], salt[i]);
}

/* A full batch, through a log that holds it and through one that does not. */
static void pm_store_batch_max(struct kunit *test)
{
	static const u32 logs[2] = { 512 * 1024, LOG_16K };
	u64 *slots, *exp;
	struct pst *t;
	u32 l, i;

	slots = zalloc(test, BATCH * sizeof(*slots));
	exp = zalloc(test, BATCH * sizeof(*exp));
	for (l = 0; l < 2; l++) {
		t = pst_setup(test, NS_1M, 70, logs[l]);
		KUNIT_ASSERT_EQ(test, mount(t, &t->ps, NULL), 0);
		for (i = 0; i < BATCH; i++) {
			slots[i] = (i * 11) % 70;
			exp[i] = 1;
		}
		KUNIT_ASSERT_EQ(test, persist(t, slots, BATCH, exp, l), 0);
		KUNIT_EXPECT_EQ(test, t->ps.st.persists, (u64)BATCH);
		KUNIT_EXPECT_EQ(test, t->ps.log.head_lsn, t->ps.log.next_lsn);
		KUNIT_EXPECT_EQ(test, ddsm_pm_shadow_unfenced(&t->sh), (u64)0);
		for (i = 0; i < BATCH; i++)
			exp[i] = 2;
		KUNIT_ASSERT_EQ(test, persist(t, slots, BATCH, exp, 7), 0);
		for (i = 0; i < BATCH; i++)
			KUNIT_EXPECT_EQ(test, t->ts[i], (u64)2);
		ddsm_pstore_unmount(&t->ps);
		ddsm_pm_shadow_crash(&t->sh, ddsm_pm_shadow_keep_none, NULL);
		KUNIT_ASSERT_EQ(test, mount(t, &t->ps, NULL), 0);
		KUNIT_EXPECT_EQ(test, t->ps.st.units_present, (u64)BATCH);
		for (i = 0; i < BATCH; i++)
			expect_slot(t, &t->ps, slots[i], 2, 7);
	}
}

static void pm_store_persist_rejects(struct kunit *test)
{
	struct pst *t = pst_setup(test, NS_1M, 70, LOG_16K);
	u64 units[BATCH + 1];
	u32 i;

	KUNIT_EXPECT_EQ(test, ddsm_pstore_persist(&t->ps, units, t->data, 1,
						  NULL), -EROFS);
	KUNIT_ASSERT_EQ(test, mount(t, &t->ps, NULL), 0);
	for (i = 0; i <= BATCH; i++)
		units[i] = unit_of(i);
	memcpy(t->save, t->work, t->ns);
	KUNIT_EXPECT_EQ(test, ddsm_pstore_persist(&t->ps, units, t->data,
						  BATCH + 1, NULL), -EINVAL);
	units[1] = units[0];
	KUNIT_EXPECT_EQ(test, ddsm_pstore_persist(&t->ps, units, t->data, 2,
						  NULL), -EINVAL);
	units[1] = unit_of(0) + 1;	/* homed on node 2 */
	KUNIT_EXPECT_EQ(test, ddsm_pstore_persist(&t->ps, units, t->data, 2,
						  NULL), -ERANGE);
	units[1] = unit_of(70);		/* ours, but past the slots */
	KUNIT_EXPECT_EQ(test, ddsm_pstore_persist(&t->ps, units, t->data, 2,
						  NULL), -ERANGE);
	KUNIT_EXPECT_EQ(test, memcmp(t->work, t->save, t->ns), 0);
	KUNIT_EXPECT_EQ(test, ddsm_pstore_persist(&t->ps, units, t->data, 0,
						  NULL), 0);
	ddsm_pstore_unmount(&t->ps);
	KUNIT_EXPECT_EQ(test, ddsm_pstore_persist(&t->ps, units, t->data, 1,
						  NULL), -EROFS);
}

static void pm_store_regions(struct kunit *test)
{
	struct pst *t = pst_setup(test, NS_1M, 32, LOG_16K);
	struct ddsm_pm_region r = {
		.start = 16 * UNIT, .len = 8 * UNIT,
		.model = DDSM_PM_STRICT, .nr_backups = 1,
	}, got, zero = { 0 };

	KUNIT_ASSERT_EQ(test, mount(t, &t->ps, NULL), 0);
	KUNIT_EXPECT_EQ(test, ddsm_pstore_region_set(&t->ps, 0, &r), 0);
	r.start = 64 * UNIT;
	r.model = DDSM_PM_EVENTUAL;
	KUNIT_EXPECT_EQ(test, ddsm_pstore_region_set(&t->ps, 5, &r), 0);
	KUNIT_EXPECT_EQ(test, ddsm_pm_shadow_unfenced(&t->sh), (u64)0);
	ddsm_pstore_unmount(&t->ps);
	ddsm_pm_shadow_crash(&t->sh, ddsm_pm_shadow_keep_none, NULL);

	KUNIT_ASSERT_EQ(test, mount(t, &t->ps, NULL), 0);
	KUNIT_ASSERT_EQ(test, ddsm_pstore_region_get(&t->ps, 0, &got), 0);
	KUNIT_EXPECT_EQ(test, got.start, (u64)16 * UNIT);
	KUNIT_EXPECT_EQ(test, got.model, (u32)DDSM_PM_STRICT);
	KUNIT_ASSERT_EQ(test, ddsm_pstore_region_get(&t->ps, 5, &got), 0);
	KUNIT_EXPECT_EQ(test, got.start, (u64)64 * UNIT);
	KUNIT_EXPECT_EQ(test, got.len, (u64)8 * UNIT);
	KUNIT_EXPECT_EQ(test, got.nr_backups, 1U);
	KUNIT_EXPECT_EQ(test, ddsm_pstore_region_get(&t->ps, 1, &got),
			-ENOENT);

	KUNIT_EXPECT_EQ(test, ddsm_pstore_region_set(&t->ps, 5, &zero), 0);
	KUNIT_EXPECT_EQ(test, ddsm_pstore_region_get(&t->ps, 5, &got),
			-ENOENT);
	KUNIT_EXPECT_EQ(test, ddsm_pstore_region_get(&t->ps, DDSM_PM_REGIONS,
						     &got), -ERANGE);
	KUNIT_EXPECT_EQ(test, ddsm_pstore_region_set(&t->ps, DDSM_PM_REGIONS,
						     &r), -ERANGE);
	r.len = 0;
	KUNIT_EXPECT_EQ(test, ddsm_pstore_region_set(&t->ps, 2, &r), -EINVAL);
	KUNIT_EXPECT_EQ(test, ddsm_pstore_region_get(&t->ps, 2, &got),
			-ENOENT);
}

static void pm_store_format_over_data(struct kunit *test)
{
	struct pst *t = pst_setup(test, NS_1M, 32, LOG_16K);
	u64 slots[2] = { 1, 2 }, exp[2] = { 1, 1 };
	u64 ts;

	KUNIT_ASSERT_EQ(test, mount(t, &t->ps, NULL), 0);
	KUNIT_ASSERT_EQ(test, persist(t, slots, 2, exp, 1), 0);
	ddsm_pstore_unmount(&t->ps);
	t->cfg.format = true;
	t->cfg.epoch_seed = 0;		/* derived */
	KUNIT_ASSERT_EQ(test, mount(t, &t->ps, NULL), 0);
	KUNIT_EXPECT_TRUE(test, t->ps.st.formatted);
	KUNIT_EXPECT_EQ(test, t->ps.st.generation, (u64)1);
	KUNIT_EXPECT_NE(test, t->ps.log.epoch, (u64)0);
	KUNIT_EXPECT_NE(test, t->ps.log.epoch, (u64)0x5eed);
	KUNIT_EXPECT_EQ(test, ddsm_pstore_read(&t->ps, 1, t->buf, &ts),
			-ENODATA);
	KUNIT_EXPECT_EQ(test, ddsm_pm_shadow_unfenced(&t->sh), (u64)0);
	t->cfg.format = false;
	ddsm_pstore_unmount(&t->ps);
	KUNIT_ASSERT_EQ(test, mount(t, &t->ps, NULL), 0);
	KUNIT_EXPECT_EQ(test, t->ps.st.units_present, (u64)0);
}

/* ---------------------------------------------------------------------- */
/* Crash everywhere. */

#define CR_SLOTS	12U
#define CR_NS		(80 * 1024ULL)	/* just the layout */
#define CR_HIST		8
#define CR_CHOOSERS	7
#define CR_MSGS		10	/* failure messages printed per case */

enum cr_op { CR_MOUNT, CR_PERSIST, CR_UNMOUNT };

struct cr_step {
	enum cr_op op;
	u32 n;
	u64 slots[CR_SLOTS];
};

/*
 * Format, batches that fill the two-record ring several times over
 * (drains in the middle of a batch), a clean remount, more batches.
 */
static const struct cr_step cr_steps[] = {
	{ CR_MOUNT },
	{ CR_PERSIST, 1, { 0 } },
	{ CR_PERSIST, 5, { 1, 2, 3, 4, 5 } },
	{ CR_PERSIST, 3, { 0, 6, 11 } },
	{ CR_PERSIST, 12, { 0, 5, 10, 3, 8, 1, 6, 11, 4, 9, 2, 7 } },
	{ CR_UNMOUNT },
	{ CR_MOUNT },
	{ CR_PERSIST, 2, { 2, 3 } },
	{ CR_PERSIST, 4, { 7, 0, 9, 4 } },
	{ CR_UNMOUNT },
};

/* Every image ever handed to persist for one slot, in ts order. */
struct cr_hist {
	u32 n;
	u64 ts[CR_HIST];
	u32 salt[CR_HIST];
	bool done[CR_HIST];	/* its persist returned before the crash */
};

struct cr_state {
	struct pst *t;
	struct cr_hist hist[CR_SLOTS];
	u64 model[CR_SLOTS];
	struct ddsm_pm_shadow_rng rng;
	u32 failures;
	u32 crashes, nested;
	u32 reformatted;	/* recoveries that found a new namespace */
	u32 replayed;		/* recoveries that applied log records */
	u32 torn_tail;		/* recoveries that found a torn record */
	char where[64];		/* the crash points, for failure messages */
	u8 *image;		/* a crash image, for the nested crashes */
	u64 r1_ts[CR_SLOTS];	/* a full recovery of it */
	u32 r1_crc[CR_SLOTS];
	int r1_ret[CR_SLOTS];
};

static __printf(2, 3) void cr_fail(struct cr_state *c, const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	if (c->failures++ >= CR_MSGS)
		return;
	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	KUNIT_FAIL(c->t->test, "%s: %pV", c->where, &vaf);
	va_end(args);
}

/* Chooser @i: none, all, random subsets of lines, then of 8-byte words. */
static ddsm_pm_shadow_choose_fn cr_chooser(struct cr_state *c, u32 i, u64 seed,
					   void **ctx)
{
	static const u32 pct[CR_CHOOSERS] = { 0, 100, 50, 25, 75, 50, 50 };

	c->t->sh.tear_words = i >= 5;
	*ctx = NULL;
	if (i == 0)
		return ddsm_pm_shadow_keep_none;
	if (i == 1)
		return ddsm_pm_shadow_keep_all;
	c->rng.state = seed * 0x9e3779b97f4a7c15ULL + i;
	c->rng.pct = pct[i];
	*ctx = &c->rng;
	return ddsm_pm_shadow_keep_random;
}

/* A zero namespace, the history forgotten, nothing armed. */
static void cr_reset(struct cr_state *c)
{
	struct pst *t = c->t;

	memset(t->work, 0, t->ns);
	ddsm_pm_shadow_init(&t->sh, t->work, t->durable, t->bits, t->ns);
	memset(c->hist, 0, sizeof(c->hist));
	memset(c->model, 0, sizeof(c->model));
}

/*
 * Run the workload until it ends or the armed crash happened; the history
 * records what was handed to persist and which calls returned before.
 * With @check, also fails on anything unexpected before the crash.
 */
static void cr_run(struct cr_state *c, bool check)
{
	struct pst *t = c->t;
	u64 exp[CR_SLOTS];
	struct cr_hist *h;
	u32 s, i;
	int ret;

	for (s = 0; s < ARRAY_SIZE(cr_steps) && !t->sh.crashed; s++) {
		const struct cr_step *st = &cr_steps[s];

		switch (st->op) {
		case CR_MOUNT:
			ret = mount(t, &t->ps, NULL);
			if (check && !t->sh.crashed && ret)
				cr_fail(c, "step %u: mount %d", s, ret);
			break;
		case CR_UNMOUNT:
			ddsm_pstore_unmount(&t->ps);
			break;
		case CR_PERSIST:
			for (i = 0; i < st->n; i++) {
				exp[i] = c->model[st->slots[i]] + 1;
				h = &c->hist[st->slots[i]];
				if (h->n == CR_HIST) {
					cr_fail(c, "step %u: CR_HIST too small",
						s);
					return;
				}
				h->ts[h->n] = exp[i];
				h->salt[h->n] = s;
				h->n++;
			}
			ret = persist(t, st->slots, st->n, exp, s);
			if (t->sh.crashed)
				break;
			if (check && ret)
				cr_fail(c, "step %u: persist %d", s, ret);
			for (i = 0; i < st->n; i++) {
				h = &c->hist[st->slots[i]];
				h->done[h->n - 1] = true;
				c->model[st->slots[i]] = exp[i];
				if (check && t->ts[i] != exp[i])
					cr_fail(c, "step %u: ts %llu not %llu",
						s, t->ts[i], exp[i]);
			}
			break;
		}
		if (check && !t->sh.crashed &&
		    ddsm_pm_shadow_unfenced(&t->sh))
			cr_fail(c, "step %u: %llu lines left unfenced", s,
				ddsm_pm_shadow_unfenced(&t->sh));
	}
}

/*
 * Mount the media after a crash and check it: every slot never written or
 * holding exactly one image persisted for it, none older than the last
 * persist that returned, nothing torn.  Fills r1_* with what it found.
 */
static int cr_recover_check(struct cr_state *c)
{
	struct pst *t = c->t;
	struct cr_hist *h;
	const char *why = NULL;
	u64 slot, ts, last_done;
	int ret, found;
	u32 j;

	ret = mount(t, &t->ps, &why);
	if (ret) {
		cr_fail(c, "mount %d (%s)", ret, why ? why : "");
		return ret;
	}
	if (t->ps.st.units_torn)
		cr_fail(c, "%llu torn units", t->ps.st.units_torn);
	c->reformatted += t->ps.st.formatted;
	c->replayed += !!t->ps.st.replay.applied;
	c->torn_tail += !!t->ps.st.replay.torn;
	for (slot = 0; slot < CR_SLOTS; slot++) {
		h = &c->hist[slot];
		last_done = 0;
		for (j = 0; j < h->n; j++)
			if (h->done[j])
				last_done = h->ts[j];
		ret = ddsm_pstore_read(&t->ps, slot, t->buf, &ts);
		c->r1_ret[slot] = ret;
		c->r1_ts[slot] = ts;
		c->r1_crc[slot] = ddsm_crc32c(0, t->buf, UNIT);
		if (ret == -ENODATA && !last_done)
			continue;
		if (ret) {
			cr_fail(c, "slot %llu read %d (last done ts %llu)",
				slot, ret, last_done);
			continue;
		}
		if (ts < last_done) {
			cr_fail(c, "slot %llu rolled back to ts %llu < %llu",
				slot, ts, last_done);
			continue;
		}
		found = -1;
		for (j = 0; j < h->n; j++)
			if (h->ts[j] == ts)
				found = j;
		if (found < 0) {
			cr_fail(c, "slot %llu ts %llu never persisted", slot,
				ts);
			continue;
		}
		fill(t->img, slot, ts, h->salt[found]);
		if (memcmp(t->buf, t->img, UNIT))
			cr_fail(c, "slot %llu ts %llu holds other bytes",
				slot, ts);
	}
	return 0;
}

/*
 * After a recovery: the next persist of every slot gets the recovered ts
 * plus one, so ts never go back past a recovered state.
 */
static void cr_continue(struct cr_state *c)
{
	struct pst *t = c->t;
	u64 slots[CR_SLOTS], exp[CR_SLOTS];
	u32 i;
	int ret;

	for (i = 0; i < CR_SLOTS; i++) {
		slots[i] = i;
		exp[i] = c->r1_ts[i] + 1;
	}
	ret = persist(t, slots, CR_SLOTS, exp, 99);
	if (ret)
		cr_fail(c, "persist after recovery %d", ret);
	for (i = 0; !ret && i < CR_SLOTS; i++)
		if (t->ts[i] != exp[i])
			cr_fail(c, "slot %u ts %llu after recovery at %llu",
				i, t->ts[i], c->r1_ts[i]);
}

/*
 * Crash the recovery of the image in c->image at each of its
 * @rec_fences fences, with a few choosers, and recover again: the slots
 * must be exactly those of the uninterrupted recovery (r1_*).  Ends with
 * the store mounted on such a second recovery.
 */
static void cr_nested(struct cr_state *c, u64 k, u32 ch, u64 rec_fences)
{
	/* none, and random words (tears lines): enough, and keeps it fast */
	static const u32 nested_choosers[] = { 0, 6 };
	struct pst *t = c->t;
	ddsm_pm_shadow_choose_fn choose;
	u64 j, slot, ts;
	void *ctx;
	u32 n, nch;
	int ret;

	for (n = 0; n < ARRAY_SIZE(nested_choosers); n++) {
		nch = nested_choosers[n];
		for (j = 1; j <= rec_fences; j++) {
			memcpy(t->work, c->image, t->ns);
			ddsm_pm_shadow_init(&t->sh, t->work, t->durable,
					    t->bits, t->ns);
			choose = cr_chooser(c, nch, k * 1000 + j, &ctx);
			ddsm_pm_shadow_arm(&t->sh, j, choose, ctx);
			snprintf(c->where, sizeof(c->where),
				 "fence %llu chooser %u, recovery fence %llu chooser %u",
				 k, ch, j, nch);
			mount(t, &t->ps, NULL);
			ddsm_pm_shadow_crash(&t->sh, choose, ctx);
			c->nested++;

			ret = mount(t, &t->ps, NULL);
			if (ret) {
				cr_fail(c, "mount %d", ret);
				continue;
			}
			if (t->ps.st.units_torn)
				cr_fail(c, "torn units");
			for (slot = 0; slot < CR_SLOTS; slot++) {
				ret = ddsm_pstore_read(&t->ps, slot, t->buf,
						       &ts);
				if (ret == c->r1_ret[slot] &&
				    ts == c->r1_ts[slot] &&
				    ddsm_crc32c(0, t->buf, UNIT) ==
				    c->r1_crc[slot])
					continue;
				cr_fail(c, "slot %llu: %d ts %llu, first recovery %d ts %llu",
					slot, ret, ts, c->r1_ret[slot],
					c->r1_ts[slot]);
			}
		}
	}
}

static void pm_store_crash_everywhere(struct kunit *test)
{
	struct pst *t = pst_setup(test, CR_NS, CR_SLOTS, LOG_16K);
	struct cr_state *c = zalloc(test, sizeof(*c));
	ddsm_pm_shadow_choose_fn choose;
	u64 total, k, rec_fences, t0 = ktime_get_ns();
	u32 ch;
	void *ctx;

	c->t = t;
	c->image = zalloc(test, t->ns);

	/* Learn how many fences the workload makes. */
	snprintf(c->where, sizeof(c->where), "no crash");
	cr_reset(c);
	cr_run(c, true);
	total = t->sh.fences;
	KUNIT_ASSERT_EQ(test, c->failures, 0U);
	KUNIT_ASSERT_EQ(test, t->sh.stray_flushes, (u64)0);
	KUNIT_ASSERT_GT(test, total, (u64)50);

	/* Fence total + 1 never comes: a crash after the workload. */
	for (k = 1; k <= total + 1; k++) {
		for (ch = 0; ch < CR_CHOOSERS; ch++) {
			cr_reset(c);
			choose = cr_chooser(c, ch, k, &ctx);
			ddsm_pm_shadow_arm(&t->sh, k, choose, ctx);
			snprintf(c->where, sizeof(c->where),
				 "fence %llu chooser %u", k, ch);
			cr_run(c, false);
			ddsm_pm_shadow_crash(&t->sh, choose, ctx);
			c->crashes++;
			memcpy(c->image, t->work, t->ns);

			rec_fences = t->sh.fences;
			if (cr_recover_check(c))
				continue;
			rec_fences = t->sh.fences - rec_fences;
			/* Crash the recovery too; it ends mounted as r1. */
			cr_nested(c, k, ch, rec_fences);
			snprintf(c->where, sizeof(c->where),
				 "fence %llu chooser %u", k, ch);
			cr_continue(c);
		}
	}
	kunit_info(test, "%llu fences, %u crashes (%u reformatted, %u replayed, %u torn records)\n",
		   total, c->crashes, c->reformatted, c->replayed, c->torn_tail);
	kunit_info(test, "%u crashes in recovery, %u failures, %llu ms\n",
		   c->nested, c->failures, (ktime_get_ns() - t0) / 1000000);
	KUNIT_EXPECT_EQ(test, c->failures, 0U);
}

static struct kunit_case pmem_store_cases[] = {
	KUNIT_CASE(pm_store_format_zero_namespace),
	KUNIT_CASE(pm_store_remount_finds_units),
	KUNIT_CASE(pm_store_ts_grow),
	KUNIT_CASE(pm_store_put_keeps_ts),
	KUNIT_CASE(pm_store_put_durable),
	KUNIT_CASE(pm_store_refusals),
	KUNIT_CASE(pm_store_was_clean),
	KUNIT_CASE(pm_store_log_wraps),
	KUNIT_CASE(pm_store_batch_max),
	KUNIT_CASE(pm_store_persist_rejects),
	KUNIT_CASE(pm_store_regions),
	KUNIT_CASE(pm_store_format_over_data),
	KUNIT_CASE(pm_store_crash_everywhere),
	{}
};

static struct kunit_suite pmem_store_suite = {
	.name = "ddsm_pmem_store",
	.test_cases = pmem_store_cases,
};

kunit_test_suite(pmem_store_suite);

MODULE_DESCRIPTION("KUnit tests for ddsm's pmem home store");
MODULE_LICENSE("GPL");
