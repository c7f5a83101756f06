// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: READV's batched reads (kernel/proto/txbatch.c): a request a
 * coordinator builds is read back unchanged by its home, a home refuses
 * a request naming what it does not serve or more than one answer can
 * carry, and a coordinator accepts only an answer with exactly the lines
 * of the entries that succeeded.
 */
#include <kunit/test.h>
#include "../../kernel/proto/txbatch.h"

/* Node 1 of 3, interleaved: unit u homed on u % 3; units 1, 4, 7 here. */
static void txb_space(struct kunit *test, struct ddsm_space *s)
{
	KUNIT_ASSERT_EQ(test, 0, ddsm_space_init(s, 16 * 4096ULL, 3, 1,
						 DDSM_HOME_INTERLEAVE));
}

static void txbatch_request(struct kunit *test)
{
	u8 *p = kunit_kzalloc(test, DDSM_TXB_SIZE, GFP_KERNEL);
	struct ddsm_txb_read r[3] = {
		{ .unit = 1, .first = 2, .last = 6 },
		{ .unit = 4, .first = 60, .last = 63 },
		{ .unit = 7, .first = 0, .last = 0 },
	}, got;
	struct ddsm_space s;
	u32 len, i;

	KUNIT_ASSERT_NOT_NULL(test, p);
	txb_space(test, &s);
	memset(p, 0xee, DDSM_TXB_SIZE);
	len = ddsm_txb_req_build(p, r, 3, NULL, 0);
	KUNIT_EXPECT_EQ(test, ddsm_txb_req_len(3, 0), len);
	KUNIT_EXPECT_EQ(test, 3, ddsm_txb_req_check(&s, p, len));
	for (i = 0; i < 3; i++) {
		ddsm_txb_req_entry(p, i, &got);
		KUNIT_EXPECT_EQ(test, r[i].unit, got.unit);
		KUNIT_EXPECT_EQ(test, r[i].first, got.first);
		KUNIT_EXPECT_EQ(test, r[i].last, got.last);
	}
	KUNIT_EXPECT_EQ(test, 0, ddsm_txb_req_nval(p, len));
	/* Sent short or long. */
	KUNIT_EXPECT_EQ(test, -EINVAL, ddsm_txb_req_check(&s, p, len - 1));
	KUNIT_EXPECT_EQ(test, -EINVAL, ddsm_txb_req_check(&s, p, len + 16));
	KUNIT_EXPECT_EQ(test, -EINVAL, ddsm_txb_req_check(&s, p, 0));
}

/*
 * Validations riding along come back in order after the entries, which
 * read back unchanged; their count bounds the length a home accepts.
 */
static void txbatch_request_validations(struct kunit *test)
{
	u8 *p = kunit_kzalloc(test, DDSM_TXB_SIZE, GFP_KERNEL);
	struct ddsm_txb_req_hdr *h = (struct ddsm_txb_req_hdr *)p;
	struct ddsm_txb_read r = { .unit = 4, .first = 1, .last = 2 }, got;
	u64 val[DDSM_TXB_MAX_VAL + 1];
	struct ddsm_space s;
	u32 len, i;

	KUNIT_ASSERT_NOT_NULL(test, p);
	txb_space(test, &s);
	for (i = 0; i <= DDSM_TXB_MAX_VAL; i++)
		val[i] = 0x1000200030000ULL + i;
	memset(p, 0xee, DDSM_TXB_SIZE);
	len = ddsm_txb_req_build(p, &r, 1, val, 3);
	KUNIT_EXPECT_EQ(test, ddsm_txb_req_len(1, 0) + 3 * 8, len);
	KUNIT_ASSERT_EQ(test, 1, ddsm_txb_req_check(&s, p, len));
	ddsm_txb_req_entry(p, 0, &got);
	KUNIT_EXPECT_EQ(test, r.unit, got.unit);
	KUNIT_EXPECT_EQ(test, r.first, got.first);
	KUNIT_EXPECT_EQ(test, r.last, got.last);
	KUNIT_ASSERT_EQ(test, 3, ddsm_txb_req_nval(p, len));
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, val[i], ddsm_txb_req_val(p, i));
	/* A Validation cut off, or one more than the header says. */
	KUNIT_EXPECT_EQ(test, -EINVAL, ddsm_txb_req_check(&s, p, len - 8));
	KUNIT_EXPECT_EQ(test, -EINVAL, ddsm_txb_req_check(&s, p, len + 8));
	KUNIT_EXPECT_EQ(test, -EINVAL, ddsm_txb_req_nval(p, len - 8));
	KUNIT_EXPECT_EQ(test, -EINVAL, ddsm_txb_req_nval(p, len + 8));
	/* Reads refused (a whole unit), Validations still well-formed. */
	r.first = 0;
	r.last = 63;
	len = ddsm_txb_req_build(p, &r, 1, val, 2);
	KUNIT_EXPECT_EQ(test, -EINVAL, ddsm_txb_req_check(&s, p, len));
	KUNIT_ASSERT_EQ(test, 2, ddsm_txb_req_nval(p, len));
	KUNIT_EXPECT_EQ(test, val[1], ddsm_txb_req_val(p, 1));

	r.first = 1;
	r.last = 2;
	len = ddsm_txb_req_build(p, &r, 1, val, DDSM_TXB_MAX_VAL);
	KUNIT_EXPECT_EQ(test, 1, ddsm_txb_req_check(&s, p, len));
	h->nval = DDSM_TXB_MAX_VAL + 1;			/* more than allowed */
	KUNIT_EXPECT_EQ(test, -EINVAL,
			ddsm_txb_req_check(&s, p, len + 8));
	KUNIT_EXPECT_EQ(test, -EINVAL, ddsm_txb_req_nval(p, len + 8));
}

/* Each request differs from a good one in one way. */
static void txbatch_request_rejects(struct kunit *test)
{
	u8 *p = kunit_kzalloc(test, DDSM_TXB_SIZE, GFP_KERNEL);
	struct ddsm_txb_read r[DDSM_TXB_MAX + 1];
	struct ddsm_txb_req_hdr *h = (struct ddsm_txb_req_hdr *)p;
	struct ddsm_txb_entry *e = (struct ddsm_txb_entry *)(h + 1);
	struct ddsm_space s;
	u32 len, i;

	KUNIT_ASSERT_NOT_NULL(test, p);
	txb_space(test, &s);
	r[0] = (struct ddsm_txb_read){ .unit = 1, .first = 0, .last = 3 };
	r[1] = (struct ddsm_txb_read){ .unit = 4, .first = 5, .last = 5 };
	len = ddsm_txb_req_build(p, r, 2, NULL, 0);
	KUNIT_ASSERT_EQ(test, 2, ddsm_txb_req_check(&s, p, len));

	h->nr = 0;					/* none */
	KUNIT_EXPECT_EQ(test, -EINVAL,
			ddsm_txb_req_check(&s, p, ddsm_txb_req_len(0, 0)));
	h->nr = 2;
	h->reserved[3] = 1;
	KUNIT_EXPECT_EQ(test, -EINVAL, ddsm_txb_req_check(&s, p, len));
	h->reserved[3] = 0;
	e[1].reserved[0] = 1;
	KUNIT_EXPECT_EQ(test, -EINVAL, ddsm_txb_req_check(&s, p, len));
	e[1].reserved[0] = 0;
	e[1].unit = cpu_to_le64(2);			/* homed on node 2 */
	KUNIT_EXPECT_EQ(test, -EINVAL, ddsm_txb_req_check(&s, p, len));
	e[1].unit = cpu_to_le64(16 + 1);		/* past the space */
	KUNIT_EXPECT_EQ(test, -EINVAL, ddsm_txb_req_check(&s, p, len));
	e[1].unit = cpu_to_le64(1);			/* unit 1 twice */
	KUNIT_EXPECT_EQ(test, -EINVAL, ddsm_txb_req_check(&s, p, len));
	e[1].unit = cpu_to_le64(4);
	e[1].first = 6;					/* first > last */
	KUNIT_EXPECT_EQ(test, -EINVAL, ddsm_txb_req_check(&s, p, len));
	e[1].first = 5;
	e[1].last = 64;					/* past the unit */
	KUNIT_EXPECT_EQ(test, -EINVAL, ddsm_txb_req_check(&s, p, len));
	e[1].last = 5;
	KUNIT_EXPECT_EQ(test, 2, ddsm_txb_req_check(&s, p, len));

	/* More lines than one answer carries: a whole unit is one too many. */
	r[0] = (struct ddsm_txb_read){ .unit = 1, .first = 0, .last = 63 };
	len = ddsm_txb_req_build(p, r, 1, NULL, 0);
	KUNIT_EXPECT_EQ(test, -EINVAL, ddsm_txb_req_check(&s, p, len));
	r[0].last = DDSM_TXB_MAX_LINES - 1;
	len = ddsm_txb_req_build(p, r, 1, NULL, 0);
	KUNIT_EXPECT_EQ(test, 1, ddsm_txb_req_check(&s, p, len));
	r[1] = (struct ddsm_txb_read){ .unit = 4, .first = 9, .last = 9 };
	len = ddsm_txb_req_build(p, r, 2, NULL, 0);
	KUNIT_EXPECT_EQ(test, -EINVAL, ddsm_txb_req_check(&s, p, len));

	/* More entries than a batch holds (a space big enough for them). */
	KUNIT_ASSERT_EQ(test, 0, ddsm_space_init(&s, 64 * 4096ULL, 3, 1,
						 DDSM_HOME_INTERLEAVE));
	for (i = 0; i <= DDSM_TXB_MAX; i++)
		r[i] = (struct ddsm_txb_read){ .unit = 1 + 3 * i };
	len = ddsm_txb_req_build(p, r, DDSM_TXB_MAX, NULL, 0);
	KUNIT_EXPECT_EQ(test, DDSM_TXB_MAX, ddsm_txb_req_check(&s, p, len));
	len = ddsm_txb_req_build(p, r, DDSM_TXB_MAX + 1, NULL, 0);
	KUNIT_EXPECT_EQ(test, -EINVAL, ddsm_txb_req_check(&s, p, len));
}

static void txbatch_answer(struct kunit *test)
{
	u8 *p = kunit_kzalloc(test, DDSM_TXB_SIZE, GFP_KERNEL);
	struct ddsm_txb_ans_hdr *h = (struct ddsm_txb_ans_hdr *)p;
	struct ddsm_txb_read r[3] = {
		{ .unit = 1, .first = 2, .last = 6 },		/* 5 lines */
		{ .unit = 4, .first = 60, .last = 63 },		/* 4 */
		{ .unit = 7, .first = 0, .last = 0 },		/* 1 */
	};
	int err[DDSM_TXB_MAX];
	u32 off[DDSM_TXB_MAX], len = ddsm_txb_ans_len(5 + 1);

	KUNIT_ASSERT_NOT_NULL(test, p);
	memset(p, 0xee, DDSM_TXB_SIZE);
	ddsm_txb_ans_init(p, 3);
	ddsm_txb_ans_set(p, 0, 0);
	ddsm_txb_ans_set(p, 1, -EAGAIN);		/* locked: no lines */
	ddsm_txb_ans_set(p, 2, 0);
	KUNIT_EXPECT_EQ(test, 0, ddsm_txb_ans_check(p, len, r, 3, err, off));
	KUNIT_EXPECT_EQ(test, 0, err[0]);
	KUNIT_EXPECT_EQ(test, -EAGAIN, err[1]);
	KUNIT_EXPECT_EQ(test, 0, err[2]);
	KUNIT_EXPECT_EQ(test, (u32)sizeof(*h), off[0]);
	KUNIT_EXPECT_EQ(test, (u32)sizeof(*h) + 5 * 64, off[2]);

	/* The lines of the failed entry sent anyway, or one line short. */
	KUNIT_EXPECT_EQ(test, -EPROTO,
			ddsm_txb_ans_check(p, ddsm_txb_ans_len(10), r, 3, err,
					   off));
	KUNIT_EXPECT_EQ(test, -EPROTO,
			ddsm_txb_ans_check(p, len - 64, r, 3, err, off));
	/* Another number of entries than asked. */
	KUNIT_EXPECT_EQ(test, -EPROTO,
			ddsm_txb_ans_check(p, len, r, 2, err, off));
	/* An errno for an entry that was not asked. */
	h->err[3] = EAGAIN;
	KUNIT_EXPECT_EQ(test, -EPROTO,
			ddsm_txb_ans_check(p, len, r, 3, err, off));
	h->err[3] = 0;
	h->reserved[0] = 1;
	KUNIT_EXPECT_EQ(test, -EPROTO,
			ddsm_txb_ans_check(p, len, r, 3, err, off));
	h->reserved[0] = 0;
	KUNIT_EXPECT_EQ(test, -EPROTO,
			ddsm_txb_ans_check(p, sizeof(*h) - 1, r, 3, err, off));
	KUNIT_EXPECT_EQ(test, 0, ddsm_txb_ans_check(p, len, r, 3, err, off));
}

/*
 * Validations riding on node 2's request: only node 2's own transactions
 * are kept (issue 15: any peer could release another's lock).
 */
static void txbatch_own_validations(struct kunit *test)
{
	struct ddsm_txid a = { .node = 2, .gen = 1, .slot = 3, .epoch = 7 };
	struct ddsm_txid b = { .node = 1, .gen = 1, .slot = 3, .epoch = 7 };
	struct ddsm_txid c = { .node = 2, .gen = 5, .slot = 0, .epoch = 9 };
	u64 val[3] = { ddsm_txid_pack(a), ddsm_txid_pack(b),
		       ddsm_txid_pack(c) };

	KUNIT_EXPECT_EQ(test, 2u, ddsm_txb_own_vals(val, 3, 2));
	KUNIT_EXPECT_EQ(test, ddsm_txid_pack(a), val[0]);
	KUNIT_EXPECT_EQ(test, ddsm_txid_pack(c), val[1]);
	KUNIT_EXPECT_EQ(test, 0u, ddsm_txb_own_vals(val, 2, 0));
	KUNIT_EXPECT_EQ(test, 0u, ddsm_txb_own_vals(val, 0, 2));
}

static struct kunit_case txbatch_cases[] = {
	KUNIT_CASE(txbatch_own_validations),
	KUNIT_CASE(txbatch_request),
	KUNIT_CASE(txbatch_request_validations),
	KUNIT_CASE(txbatch_request_rejects),
	KUNIT_CASE(txbatch_answer),
	{}
};

static struct kunit_suite txbatch_suite = {
	.name = "ddsm_hades_txbatch",
	.test_cases = txbatch_cases,
};

kunit_test_suite(txbatch_suite);

MODULE_LICENSE("GPL");
