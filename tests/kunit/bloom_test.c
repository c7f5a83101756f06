// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: HADES's Bloom filters (kernel/proto/bloom.h) and transaction ids
 * (kernel/proto/txid.h).  The false-positive rates are measured at 10,
 * 20, 50 and 100 inserted lines, as the paper's Table IV, over random
 * lines and over runs of consecutive lines (a transaction's footprint is
 * often a few whole records), and must match the classic model of the
 * filter's shape within the sampling error: a hash that spreads lines
 * badly shows up as a rate above the model.
 */
#include <kunit/test.h>
#include "../../kernel/proto/bloom.h"
#include "../../kernel/proto/txid.h"

#define TRIALS	2000
#define PROBES	1000	/* per trial: 2,000,000 tests per point */

static u64 rng_state;

static u64 rng(void)
{
	/* xorshift64*: fixed seed, so every run measures the same sample. */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1DULL;
}

/* exp(-x) for 0 <= x <= 1, in parts per 10^9, by its series. */
static u64 exp_neg_ppb(u64 num, u64 den)
{
	/* sum_{i>=0} (-x)^i / i!, with x = num / den, in 10^9 units */
	s64 term = 1000000000LL, sum = 0;
	int i;

	for (i = 1; i < 20; i++) {
		sum += term;
		term = -term * (s64)num / (s64)den / i;
	}
	return (u64)sum;
}

/* Model rate in parts per 10^9 of a filter of @bits with @k hashes. */
static u64 model_ppb(u32 n, u32 bits, u32 k)
{
	u64 miss = 1000000000ULL - exp_neg_ppb((u64)k * n, bits);
	u64 p = 1000000000ULL;
	u32 i;

	for (i = 0; i < k; i++)
		p = p * miss / 1000000000ULL;
	return p;
}

enum shape { RANDOM, RUNS };

static u64 first_line(enum shape s, u32 i, u64 base)
{
	/* RUNS: records of 8 consecutive lines (512 bytes) at random places. */
	return s == RANDOM ? rng() >> 8 : base + (i % 8);
}

static u64 measure(bool wr, u32 n, enum shape shape)
{
	static struct ddsm_bf f;
	static struct ddsm_bf_wr fw;
	u64 hits = 0, base = 0;
	u32 t, i;

	rng_state = 0x9E3779B97F4A7C15ULL ^ n ^ (wr ? 1ULL << 40 : 0);
	for (t = 0; t < TRIALS; t++) {
		ddsm_bf_clear(&f);
		ddsm_bf_wr_clear(&fw);
		for (i = 0; i < n; i++) {
			if (!(i % 8))
				base = rng() >> 8;
			if (wr)
				ddsm_bf_wr_add(&fw, first_line(shape, i, base));
			else
				ddsm_bf_add(&f, first_line(shape, i, base));
		}
		for (i = 0; i < PROBES; i++) {
			/* Random lines: none of them was inserted (p ~ 2^-56). */
			u64 line = rng() >> 8;

			hits += wr ? ddsm_bf_wr_test(&fw, line) :
				     ddsm_bf_test(&f, line);
		}
	}
	return hits * 1000000000ULL / ((u64)TRIALS * PROBES);
}

static void check_rate(struct kunit *test, const char *what, u32 n,
		       u64 got, u64 model, const char *paper)
{
	/* 2e6 probes: 4 sigma of the count, plus 10% for the model's idealism. */
	u64 samples = (u64)TRIALS * PROBES;
	u64 sigma = int_sqrt(model * samples / 1000000000ULL + 1) *
		    1000000000ULL / samples;
	u64 slack = 4 * sigma + model / 10 + 1000;

	kunit_info(test, "%s, %u lines: %llu.%03llu%% measured, model %llu.%03llu%%, paper %s\n",
		   what, n, got / 10000000, got / 10000 % 1000,
		   model / 10000000, model / 10000 % 1000, paper);
	KUNIT_EXPECT_LE_MSG(test, got, model + slack, "%s at %u lines", what, n);
	KUNIT_EXPECT_GE_MSG(test, got + slack, model, "%s at %u lines", what, n);
}

static const u32 points[] = { 10, 20, 50, 100 };

static void bloom_read_filter_rates(struct kunit *test)
{
	static const char *const paper[] = { "0.04%", "0.138%", "0.877%", "3.26%" };
	u32 i;

	for (i = 0; i < ARRAY_SIZE(points); i++) {
		u64 model = model_ppb(points[i], DDSM_BF_BITS, 2);

		check_rate(test, "1 Kbit k=2, random lines", points[i],
			   measure(false, points[i], RANDOM), model, paper[i]);
		check_rate(test, "1 Kbit k=2, runs of 8 lines", points[i],
			   measure(false, points[i], RUNS), model, paper[i]);
	}
}

static void bloom_write_filter_rates(struct kunit *test)
{
	static const char *const paper[] = { "0.003%", "0.022%", "0.093%", "0.439%" };
	u32 i;

	for (i = 0; i < ARRAY_SIZE(points); i++) {
		u64 model = model_ppb(points[i], DDSM_BF_WR1_BITS, 1) *
			    model_ppb(points[i], DDSM_BF_WR2_BITS, 1) /
			    1000000000ULL;

		check_rate(test, "512 bit + 4 Kbit, random lines", points[i],
			   measure(true, points[i], RANDOM), model, paper[i]);
		check_rate(test, "512 bit + 4 Kbit, runs of 8 lines", points[i],
			   measure(true, points[i], RUNS), model, paper[i]);
	}
}

/* No false negatives, ranges, clearing, and the WrBF2 scan. */
static void bloom_members_always_hit(struct kunit *test)
{
	static struct ddsm_bf f;
	static struct ddsm_bf_wr fw;
	u64 lines[100];
	u32 i, bit, found = 0;

	rng_state = 42;
	ddsm_bf_clear(&f);
	ddsm_bf_wr_clear(&fw);
	KUNIT_EXPECT_TRUE(test, ddsm_bf_empty(&f));
	for (i = 0; i < ARRAY_SIZE(lines); i++) {
		lines[i] = rng() >> 8;
		ddsm_bf_add(&f, lines[i]);
		ddsm_bf_wr_add(&fw, lines[i]);
	}
	for (i = 0; i < ARRAY_SIZE(lines); i++) {
		KUNIT_EXPECT_TRUE(test, ddsm_bf_test(&f, lines[i]));
		KUNIT_EXPECT_TRUE(test, ddsm_bf_wr_test(&fw, lines[i]));
	}
	KUNIT_EXPECT_LE(test, ddsm_bf_weight(&f), 200U);
	/* Every written line's WrBF2 bit is found by the scan. */
	for (bit = ddsm_bf_wr_next(&fw, 0); bit < DDSM_BF_WR2_BITS;
	     bit = ddsm_bf_wr_next(&fw, bit + 1))
		for (i = 0; i < ARRAY_SIZE(lines); i++)
			found += lines[i] % DDSM_BF_WR2_BITS == bit;
	KUNIT_EXPECT_EQ(test, found, (u32)ARRAY_SIZE(lines));

	ddsm_bf_clear(&f);
	ddsm_bf_add_range(&f, ddsm_line_of(0x10000), ddsm_line_of(0x10fff));
	for (i = 0; i < 64; i++)
		KUNIT_EXPECT_TRUE(test, ddsm_bf_test(&f, ddsm_line_of(0x10000) + i));
	/* A range ending at the top of the line space does not wrap. */
	ddsm_bf_clear(&f);
	ddsm_bf_add_range(&f, U64_MAX - 1, U64_MAX);
	KUNIT_EXPECT_TRUE(test, ddsm_bf_test(&f, U64_MAX));
	KUNIT_EXPECT_LE(test, ddsm_bf_weight(&f), 4U);
}

static void txid_roundtrip_and_epochs(struct kunit *test)
{
	struct ddsm_txid a = { .node = 63, .gen = 0xa5, .slot = 255, .epoch = 0xfffffffe };
	struct ddsm_txid b = ddsm_txid_unpack(ddsm_txid_pack(a));

	KUNIT_EXPECT_TRUE(test, ddsm_txid_same(a, b));
	b.epoch = ddsm_txid_next_epoch(b.epoch);
	KUNIT_EXPECT_FALSE(test, ddsm_txid_same(a, b));
	KUNIT_EXPECT_EQ(test, b.epoch, 0xffffffffU);
	/* The epoch wraps past 0: a zeroed id never names a transaction. */
	KUNIT_EXPECT_EQ(test, ddsm_txid_next_epoch(b.epoch), 1U);
	KUNIT_EXPECT_NE(test, ddsm_txid_pack(a), 0ULL);
}

static struct kunit_case bloom_cases[] = {
	KUNIT_CASE(bloom_members_always_hit),
	KUNIT_CASE(bloom_read_filter_rates),
	KUNIT_CASE(bloom_write_filter_rates),
	KUNIT_CASE(txid_roundtrip_and_epochs),
	{}
};

static struct kunit_suite bloom_suite = {
	.name = "ddsm_hades_bloom",
	.test_cases = bloom_cases,
};

kunit_test_suite(bloom_suite);

MODULE_LICENSE("GPL");
