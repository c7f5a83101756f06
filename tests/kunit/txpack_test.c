// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the Intend payload (kernel/proto/txpack.c): what a coordinator
 * packs a home walks back unchanged, a home refuses a payload that
 * points outside its units or its page, and the written lines become
 * the sorted, merged ranges the partial lock takes.
 */
#include <kunit/test.h>
#include "../../kernel/proto/txpack.h"

/* Node 1 of 3, interleaved: unit u homed on u % 3; units 1, 4, 7 here. */
static void txpack_roundtrip(struct kunit *test)
{
	u8 *p = kunit_kzalloc(test, DDSM_TXP_SIZE, GFP_KERNEL);
	struct ddsm_space s;
	struct ddsm_txp_it it;
	u8 a[8] = "balance", b[100];
	int n = 0;

	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_EQ(test, 0, ddsm_space_init(&s, 16 * 4096ULL, 3, 1,
						 DDSM_HOME_INTERLEAVE));
	memset(b, 0x5a, sizeof(b));
	ddsm_txp_init(p, 0x6);
	KUNIT_EXPECT_EQ(test, 0, ddsm_txp_add(p, 4096 + 64, a, sizeof(a)));
	KUNIT_EXPECT_EQ(test, 0, ddsm_txp_add(p, 4 * 4096, b, sizeof(b)));
	KUNIT_EXPECT_EQ(test, 0, ddsm_txp_check(&s, p, DDSM_TXP_SIZE));
	KUNIT_EXPECT_EQ(test, 0x6ULL, ddsm_txp_participants(p));
	ddsm_txp_first(p, &it);
	while (ddsm_txp_next(p, &it)) {
		if (n++ == 0) {
			KUNIT_EXPECT_EQ(test, 4096ULL + 64, it.gaddr);
			KUNIT_EXPECT_EQ(test, 0, memcmp(it.data, a, sizeof(a)));
		} else {
			KUNIT_EXPECT_EQ(test, (u32)sizeof(b), it.len);
			KUNIT_EXPECT_EQ(test, 0, memcmp(it.data, b, sizeof(b)));
		}
	}
	KUNIT_EXPECT_EQ(test, 2, n);

	/* A unit homed elsewhere, or a record crossing its unit. */
	KUNIT_EXPECT_EQ(test, 0, ddsm_txp_add(p, 2 * 4096, a, sizeof(a)));
	KUNIT_EXPECT_EQ(test, -EINVAL, ddsm_txp_check(&s, p, DDSM_TXP_SIZE));
	ddsm_txp_init(p, 0x6);
	KUNIT_EXPECT_EQ(test, 0, ddsm_txp_add(p, 2 * 4096 - 4, a, sizeof(a)));
	KUNIT_EXPECT_EQ(test, -EINVAL, ddsm_txp_check(&s, p, DDSM_TXP_SIZE));
	/* Past the space. */
	ddsm_txp_init(p, 0x6);
	KUNIT_EXPECT_EQ(test, 0, ddsm_txp_add(p, 16 * 4096 + 4096, a, 8));
	KUNIT_EXPECT_EQ(test, -EINVAL, ddsm_txp_check(&s, p, DDSM_TXP_SIZE));

	/* What travels (ddsm_txp_used() bytes) holds no old page bytes. */
	memset(p, 0xee, DDSM_TXP_SIZE);
	ddsm_txp_init(p, 0x6);
	KUNIT_EXPECT_EQ(test, 0, ddsm_txp_add(p, 4 * 4096, b, 100));
	KUNIT_EXPECT_EQ(test, (u32)(sizeof(struct ddsm_txp_hdr) +
				    sizeof(struct ddsm_txp_rec) + 104),
			ddsm_txp_used(p));
	KUNIT_EXPECT_EQ(test, 0, memchr_inv(p + ddsm_txp_used(p) - 4, 0, 4) ?
			1 : 0);
	KUNIT_EXPECT_EQ(test, 0, ddsm_txp_check(&s, p, ddsm_txp_used(p)));
}

static void txpack_rejects_garbage(struct kunit *test)
{
	u8 *p = kunit_kzalloc(test, DDSM_TXP_SIZE, GFP_KERNEL);
	struct ddsm_txp_hdr *h = (struct ddsm_txp_hdr *)p;
	struct ddsm_txp_rec *r = (struct ddsm_txp_rec *)(h + 1);
	struct ddsm_space s;
	u8 a[8] = { 0 }, *big;

	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_EQ(test, 0, ddsm_space_init(&s, 16 * 4096ULL, 3, 1,
						 DDSM_HOME_INTERLEAVE));
	ddsm_txp_init(p, 0);
	KUNIT_EXPECT_EQ(test, 0, ddsm_txp_add(p, 4096, a, sizeof(a)));
	h->nr = cpu_to_le32(2);			/* a record that is not there */
	KUNIT_EXPECT_EQ(test, -EINVAL, ddsm_txp_check(&s, p, DDSM_TXP_SIZE));
	h->nr = cpu_to_le32(1);
	r->len = cpu_to_le32(DDSM_TXP_SIZE);	/* past the page */
	KUNIT_EXPECT_EQ(test, -EINVAL, ddsm_txp_check(&s, p, DDSM_TXP_SIZE));
	r->len = 0;				/* empty */
	KUNIT_EXPECT_EQ(test, -EINVAL, ddsm_txp_check(&s, p, DDSM_TXP_SIZE));
	r->len = cpu_to_le32(8);
	r->reserved = cpu_to_le32(1);
	KUNIT_EXPECT_EQ(test, -EINVAL, ddsm_txp_check(&s, p, DDSM_TXP_SIZE));
	r->reserved = 0;
	h->used = cpu_to_le32(DDSM_TXP_SIZE + 8);
	KUNIT_EXPECT_EQ(test, -EINVAL, ddsm_txp_check(&s, p, DDSM_TXP_SIZE));
	h->used = cpu_to_le32(sizeof(*h) + sizeof(*r) + 8);
	KUNIT_EXPECT_EQ(test, 0, ddsm_txp_check(&s, p, DDSM_TXP_SIZE));
	/* Sent short: exactly what is used passes, a byte less does not. */
	KUNIT_EXPECT_EQ(test, sizeof(*h) + sizeof(*r) + 8, ddsm_txp_used(p));
	KUNIT_EXPECT_EQ(test, 0, ddsm_txp_check(&s, p, ddsm_txp_used(p)));
	KUNIT_EXPECT_EQ(test, -EINVAL,
			ddsm_txp_check(&s, p, ddsm_txp_used(p) - 1));
	KUNIT_EXPECT_EQ(test, -EINVAL, ddsm_txp_check(&s, p, sizeof(*h) - 1));
	KUNIT_EXPECT_EQ(test, -EINVAL,
			ddsm_txp_check(&s, p, DDSM_TXP_SIZE + 1));
	/* A used field that lies below its records. */
	h->used = cpu_to_le32(sizeof(*h) + sizeof(*r));
	KUNIT_EXPECT_EQ(test, -EINVAL, ddsm_txp_check(&s, p, DDSM_TXP_SIZE));
	h->used = cpu_to_le32(sizeof(*h) + sizeof(*r) + 8);
	/* The cap: a page's worth of writes, then -E2BIG. */
	big = kunit_kzalloc(test, DDSM_TXP_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, big);
	ddsm_txp_init(p, 0);
	KUNIT_EXPECT_EQ(test, -E2BIG, ddsm_txp_add(p, 4096, big, DDSM_TXP_SIZE));
	KUNIT_EXPECT_EQ(test, 0, ddsm_txp_add(p, 4096, big, 4000 - 64));
	KUNIT_EXPECT_EQ(test, -E2BIG, ddsm_txp_add(p, 4096, big, 200));
}

static void txpack_ranges(struct kunit *test)
{
	u8 *p = kunit_kzalloc(test, DDSM_TXP_SIZE, GFP_KERNEL);
	struct ddsm_tx_range r[4];
	u8 a[130] = { 0 };
	int i;

	KUNIT_ASSERT_NOT_NULL(test, p);
	ddsm_txp_init(p, 0);
	ddsm_txp_add(p, 640, a, 8);		/* line 10 */
	ddsm_txp_add(p, 64, a, 130);		/* lines 1..3 */
	ddsm_txp_add(p, 256, a, 8);		/* line 4: merges */
	ddsm_txp_add(p, 690, a, 8);		/* line 10 again */
	KUNIT_EXPECT_EQ(test, 2, ddsm_txp_ranges(p, r, 4));
	KUNIT_EXPECT_EQ(test, 1ULL, r[0].first);
	KUNIT_EXPECT_EQ(test, 4ULL, r[0].last);
	KUNIT_EXPECT_EQ(test, 10ULL, r[1].first);
	KUNIT_EXPECT_EQ(test, 10ULL, r[1].last);
	ddsm_txp_init(p, 0);
	for (i = 0; i < 5; i++)
		ddsm_txp_add(p, i * 256, a, 8);	/* five apart */
	KUNIT_EXPECT_EQ(test, -E2BIG, ddsm_txp_ranges(p, r, 4));
	ddsm_txp_init(p, 0);
	KUNIT_EXPECT_EQ(test, 0, ddsm_txp_ranges(p, r, 4));
}

static struct kunit_case txpack_cases[] = {
	KUNIT_CASE(txpack_roundtrip),
	KUNIT_CASE(txpack_rejects_garbage),
	KUNIT_CASE(txpack_ranges),
	{}
};

static struct kunit_suite txpack_suite = {
	.name = "ddsm_hades_txpack",
	.test_cases = txpack_cases,
};

kunit_test_suite(txpack_suite);

MODULE_LICENSE("GPL");
