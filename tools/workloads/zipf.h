/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Key choosers of the YCSB core workloads, and the random numbers they
 * draw from.
 *
 * wl_rng: splitmix64, one per thread (no shared state, no locking); the
 * same seed gives the same sequence on every machine.
 *
 * zipf: YCSB's ZipfianGenerator, i.e. Gray et al., "Quickly generating
 * billion-record synthetic databases" (SIGMOD'94): rank r in [0, n) is
 * drawn with probability ~ 1 / (r + 1)^theta by inverting an
 * approximation of the CDF that needs zeta(n, theta), computed once.  Ranks
 * 0 and 1 come out with their exact probabilities, 1 / zeta and
 * 0.5^theta / zeta.  zipf_next_n() lets the item count grow (workload D's
 * "latest" follows the inserts): zeta is extended incrementally, as YCSB
 * does.
 *
 * Scrambled zipfian (YCSB's default "zipfian" request distribution): a
 * rank is drawn over YCSB's fixed 10^10 items, hashed with 64-bit FNV-1a
 * and taken modulo the record count, so the hot records are scattered over
 * the key space instead of being the first few.  Like YCSB, it uses the
 * precomputed zeta(10^10, 0.99) and therefore only supports theta 0.99.
 *
 * Latest (workload D): key = newest - zipf rank, so the most recently
 * inserted records are the hottest.
 */
#ifndef WL_ZIPF_H
#define WL_ZIPF_H

#include <stdint.h>

#define ZIPF_THETA		0.99
/* YCSB ScrambledZipfianGenerator: ITEM_COUNT and ZETAN for theta 0.99. */
#define ZIPF_SCRAMBLE_ITEMS	10000000000ULL
#define ZIPF_SCRAMBLE_ZETAN	26.46902820178302

struct wl_rng {
	uint64_t s;
};

void wl_rng_seed(struct wl_rng *r, uint64_t seed);
uint64_t wl_rng_next(struct wl_rng *r);
/* Uniform in [0, 1) with 53 random bits. */
double wl_rng_double(struct wl_rng *r);
/* Uniform in [0, n), n > 0 (multiply-shift: no modulo bias worth naming). */
uint64_t wl_rng_below(struct wl_rng *r, uint64_t n);

/* splitmix64's finaliser: a bijective 64-bit mix. */
uint64_t wl_mix64(uint64_t x);
/* YCSB's Utils.fnvhash64(): FNV-1a over the 8 bytes, then abs(). */
uint64_t wl_fnv64(uint64_t v);

/**
 * struct zipf - state of one zipfian generator (read-only while drawing,
 * except when zipf_next_n() extends it: keep one per thread)
 * @items:	ranks currently covered (n)
 * @theta:	skew, 0 < theta < 1
 * @alpha:	1 / (1 - theta)
 * @zeta2:	zeta(2, theta)
 * @zetan:	zeta(items, theta)
 * @eta:	(1 - (2 / n)^(1 - theta)) / (1 - zeta2 / zetan)
 */
struct zipf {
	uint64_t items;
	double theta, alpha, zeta2, zetan, eta;
};

/* zeta(n, theta) = sum_{i=1..n} 1 / i^theta. */
double zipf_zeta(uint64_t n, double theta);
/* @n ranks, skew @theta; computes zeta(n) (O(n) once). */
void zipf_init(struct zipf *z, uint64_t n, double theta);
/* As zipf_init() with a known zeta(n, theta): no O(n) pass. */
void zipf_init_zeta(struct zipf *z, uint64_t n, double theta, double zetan);
/* A rank in [0, z->items). */
uint64_t zipf_next(struct zipf *z, struct wl_rng *r);
/* A rank in [0, n): grows z to n items first (a smaller n keeps zeta). */
uint64_t zipf_next_n(struct zipf *z, struct wl_rng *r, uint64_t n);

/* Scrambled zipfian over [0, n): the state is the fixed 10^10-item z. */
void zipf_scrambled_init(struct zipf *z);
uint64_t zipf_scrambled_next(struct zipf *z, struct wl_rng *r, uint64_t n);

/* Latest: a value in [1, newest], most likely newest. */
uint64_t zipf_latest_next(struct zipf *z, struct wl_rng *r, uint64_t newest);

#endif /* WL_ZIPF_H */
