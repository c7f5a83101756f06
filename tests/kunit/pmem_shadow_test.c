// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite ddsm_pmem_shadow: the persist-domain checker
 * (kernel/pmem/shadow.c) itself.  Only what was flushed and then fenced
 * survives a crash for sure; what was stored or flushed but not fenced
 * survives as the chooser decides; an armed crash freezes what survives
 * at its fence.
 */
#include <kunit/test.h>
#include <linux/module.h>

#include "../../kernel/pmem/shadow.h"

#define SH_LEN		(16 * DDSM_PM_LINE)

struct sht {
	struct ddsm_pm_shadow sh;
	struct ddsm_pm_persist ops;
	u8 *work;
	u8 *durable;
};

static int sht_init(struct kunit *test)
{
	struct sht *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	unsigned long *bits;

	KUNIT_ASSERT_NOT_NULL(test, t);
	t->work = kunit_kzalloc(test, SH_LEN, GFP_KERNEL);
	t->durable = kunit_kmalloc(test, SH_LEN, GFP_KERNEL);
	bits = kunit_kmalloc(test, DDSM_PM_SHADOW_BITMAP_BYTES(SH_LEN),
			     GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t->work);
	KUNIT_ASSERT_NOT_NULL(test, t->durable);
	KUNIT_ASSERT_NOT_NULL(test, bits);
	KUNIT_ASSERT_EQ(test, ddsm_pm_shadow_init(&t->sh, t->work, t->durable,
						  bits, SH_LEN), 0);
	t->ops = ddsm_pm_shadow_ops(&t->sh);
	test->priv = t;
	return 0;
}

static void flush(struct sht *t, u64 off, size_t len)
{
	t->ops.flush(t->ops.ctx, t->work + off, len);
}

static void fence(struct sht *t)
{
	t->ops.fence(t->ops.ctx);
}

static void pm_shadow_store_without_flush_lost(struct kunit *test)
{
	struct sht *t = test->priv;

	t->work[100] = 0x5a;
	KUNIT_EXPECT_EQ(test, ddsm_pm_shadow_unfenced(&t->sh), (u64)1);
	fence(t);		/* not flushed: a fence does not help */
	KUNIT_EXPECT_EQ(test, ddsm_pm_shadow_crash(&t->sh,
						   ddsm_pm_shadow_keep_none,
						   NULL), (u64)1);
	KUNIT_EXPECT_EQ(test, t->work[100], (u8)0);
	KUNIT_EXPECT_EQ(test, ddsm_pm_shadow_unfenced(&t->sh), (u64)0);
}

static void pm_shadow_flush_without_fence(struct kunit *test)
{
	struct sht *t = test->priv;

	t->work[200] = 1;
	flush(t, 200, 1);
	ddsm_pm_shadow_crash(&t->sh, ddsm_pm_shadow_keep_none, NULL);
	KUNIT_EXPECT_EQ(test, t->work[200], (u8)0);

	t->work[200] = 2;
	flush(t, 200, 1);
	KUNIT_EXPECT_EQ(test, ddsm_pm_shadow_crash(&t->sh,
						   ddsm_pm_shadow_keep_all,
						   NULL), (u64)0);
	KUNIT_EXPECT_EQ(test, t->work[200], (u8)2);
	KUNIT_EXPECT_EQ(test, t->sh.kept, (u64)1);
	KUNIT_EXPECT_EQ(test, t->sh.dropped, (u64)1);
}

static void pm_shadow_flush_fence_survives(struct kunit *test)
{
	struct sht *t = test->priv;

	memset(t->work + 60, 0xab, 10);	/* straddles lines 0 and 1 */
	flush(t, 60, 10);
	fence(t);
	KUNIT_EXPECT_EQ(test, ddsm_pm_shadow_unfenced(&t->sh), (u64)0);
	KUNIT_EXPECT_EQ(test, ddsm_pm_shadow_crash(&t->sh,
						   ddsm_pm_shadow_keep_none,
						   NULL), (u64)0);
	KUNIT_EXPECT_EQ(test, t->work[60], (u8)0xab);
	KUNIT_EXPECT_EQ(test, t->work[69], (u8)0xab);
	KUNIT_EXPECT_EQ(test, t->sh.flushed_lines, (u64)2);
}

/* A store after the fence that made its line durable needs another one. */
static void pm_shadow_store_after_fence_lost(struct kunit *test)
{
	struct sht *t = test->priv;

	t->work[0] = 1;
	flush(t, 0, 1);
	fence(t);
	t->work[1] = 2;
	fence(t);
	ddsm_pm_shadow_crash(&t->sh, ddsm_pm_shadow_keep_none, NULL);
	KUNIT_EXPECT_EQ(test, t->work[0], (u8)1);
	KUNIT_EXPECT_EQ(test, t->work[1], (u8)0);
}

/* Only the lines a flush covers are marked: its neighbours are not. */
static void pm_shadow_flush_covers_its_lines(struct kunit *test)
{
	struct sht *t = test->priv;

	memset(t->work, 7, SH_LEN);
	flush(t, 2 * DDSM_PM_LINE + 8, DDSM_PM_LINE);	/* lines 2, 3 */
	fence(t);
	ddsm_pm_shadow_crash(&t->sh, ddsm_pm_shadow_keep_none, NULL);
	KUNIT_EXPECT_EQ(test, t->work[2 * DDSM_PM_LINE - 1], (u8)0);
	KUNIT_EXPECT_EQ(test, t->work[2 * DDSM_PM_LINE], (u8)7);
	KUNIT_EXPECT_EQ(test, t->work[4 * DDSM_PM_LINE - 1], (u8)7);
	KUNIT_EXPECT_EQ(test, t->work[4 * DDSM_PM_LINE], (u8)0);
	KUNIT_EXPECT_EQ(test, t->sh.dropped, (u64)14);
}

/*
 * Armed at fence 2: fence 1 works, fence 2 is where the power goes (what
 * was flushed since fence 1 is up to the chooser), and nothing after it
 * reaches the media, whatever the later calls.
 */
static void pm_shadow_armed_crash(struct kunit *test)
{
	struct sht *t = test->priv;
	int round;

	for (round = 0; round < 2; round++) {
		bool all = round;

		ddsm_pm_shadow_arm(&t->sh, 2, all ? ddsm_pm_shadow_keep_all :
					       ddsm_pm_shadow_keep_none, NULL);
		t->work[0] = 10 + round;	/* A */
		flush(t, 0, 1);
		fence(t);
		KUNIT_EXPECT_FALSE(test, t->sh.crashed);
		t->work[64] = 20 + round;	/* B */
		flush(t, 64, 1);
		fence(t);
		KUNIT_EXPECT_TRUE(test, t->sh.crashed);
		t->work[128] = 30 + round;	/* C, after the crash */
		flush(t, 128, 1);
		fence(t);
		/* The chooser of the armed crash decided, not this one. */
		ddsm_pm_shadow_crash(&t->sh, ddsm_pm_shadow_keep_all, NULL);
		KUNIT_EXPECT_FALSE(test, t->sh.crashed);
		KUNIT_EXPECT_EQ(test, t->work[0], (u8)(10 + round));
		KUNIT_EXPECT_EQ(test, t->work[64], all ? (u8)21 : (u8)0);
		KUNIT_EXPECT_EQ(test, t->work[128], (u8)0);
	}
	KUNIT_EXPECT_EQ(test, t->sh.crashes, (u64)2);
	KUNIT_EXPECT_EQ(test, t->sh.fences, (u64)6);
}

static bool keep_even_words(void *ctx, u64 off, u32 len)
{
	u32 *asked = ctx;

	(*asked)++;
	return len == 8 && !(off / 8 % 2);
}

/* With tear_words a crash can keep half of a line. */
static void pm_shadow_tear_words(struct kunit *test)
{
	struct sht *t = test->priv;
	u32 asked = 0, i;

	t->sh.tear_words = true;
	memset(t->work + DDSM_PM_LINE, 0xee, DDSM_PM_LINE);
	flush(t, DDSM_PM_LINE, DDSM_PM_LINE);
	KUNIT_EXPECT_EQ(test, ddsm_pm_shadow_crash(&t->sh, keep_even_words,
						   &asked), (u64)4);
	KUNIT_EXPECT_EQ(test, asked, (u32)8);
	for (i = 0; i < DDSM_PM_LINE; i++)
		KUNIT_EXPECT_EQ(test, t->work[DDSM_PM_LINE + i],
				i / 8 % 2 ? (u8)0 : (u8)0xee);
}

static void pm_shadow_random_subset(struct kunit *test)
{
	struct sht *t = test->priv;
	struct ddsm_pm_shadow_rng rng = { .state = 42, .pct = 50 };
	u32 i, kept = 0;
	u64 dropped;

	memset(t->work, 1, SH_LEN);
	dropped = ddsm_pm_shadow_crash(&t->sh, ddsm_pm_shadow_keep_random,
				       &rng);
	for (i = 0; i < SH_LEN; i += DDSM_PM_LINE)
		kept += t->work[i];
	KUNIT_EXPECT_EQ(test, kept + dropped, (u64)(SH_LEN / DDSM_PM_LINE));
	KUNIT_EXPECT_GT(test, kept, 0U);
	KUNIT_EXPECT_GT(test, dropped, (u64)0);
}

static void pm_shadow_stray_flush(struct kunit *test)
{
	struct sht *t = test->priv;
	u8 other[8];

	t->ops.flush(t->ops.ctx, other, sizeof(other));
	flush(t, SH_LEN - 8, 16);	/* runs past the end */
	flush(t, SH_LEN - 8, 8);
	KUNIT_EXPECT_EQ(test, t->sh.stray_flushes, (u64)2);
	KUNIT_EXPECT_EQ(test, t->sh.flushes, (u64)3);
	KUNIT_EXPECT_EQ(test, t->sh.flushed_lines, (u64)1);
	KUNIT_EXPECT_EQ(test, ddsm_pm_shadow_init(&t->sh, t->work, t->durable,
						  t->sh.flushed, 100), -EINVAL);
}

static struct kunit_case pmem_shadow_cases[] = {
	KUNIT_CASE(pm_shadow_store_without_flush_lost),
	KUNIT_CASE(pm_shadow_flush_without_fence),
	KUNIT_CASE(pm_shadow_flush_fence_survives),
	KUNIT_CASE(pm_shadow_store_after_fence_lost),
	KUNIT_CASE(pm_shadow_flush_covers_its_lines),
	KUNIT_CASE(pm_shadow_armed_crash),
	KUNIT_CASE(pm_shadow_tear_words),
	KUNIT_CASE(pm_shadow_random_subset),
	KUNIT_CASE(pm_shadow_stray_flush),
	{}
};

static struct kunit_suite pmem_shadow_suite = {
	.name = "ddsm_pmem_shadow",
	.init = sht_init,
	.test_cases = pmem_shadow_cases,
};

kunit_test_suite(pmem_shadow_suite);

MODULE_DESCRIPTION("KUnit tests for ddsm's pmem persist-domain checker");
MODULE_LICENSE("GPL");
