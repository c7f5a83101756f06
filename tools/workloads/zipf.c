// SPDX-License-Identifier: GPL-2.0
/*
 * YCSB key choosers (see zipf.h).  The arithmetic follows YCSB's
 * ZipfianGenerator, ScrambledZipfianGenerator and SkewedLatestGenerator so
 * that the access skew matches the published workloads.
 */
#include <math.h>
#include "zipf.h"

#define GOLDEN64	0x9e3779b97f4a7c15ULL
#define FNV64_BASIS	0xcbf29ce484222325ULL
#define FNV64_PRIME	1099511628211ULL

uint64_t wl_mix64(uint64_t x)
{
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

void wl_rng_seed(struct wl_rng *r, uint64_t seed)
{
	/* Mixed, so that seeds 1, 2, 3 do not start out correlated. */
	r->s = wl_mix64(seed + GOLDEN64);
}

uint64_t wl_rng_next(struct wl_rng *r)
{
	r->s += GOLDEN64;
	return wl_mix64(r->s);
}

double wl_rng_double(struct wl_rng *r)
{
	/* 53 bits over 2^53 */
	return (double)(wl_rng_next(r) >> 11) / 9007199254740992.0;
}

uint64_t wl_rng_below(struct wl_rng *r, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)wl_rng_next(r) * n) >> 64);
}

uint64_t wl_fnv64(uint64_t v)
{
	uint64_t h = FNV64_BASIS;
	int i;

	for (i = 0; i < 8; i++) {
		h ^= v & 0xff;
		h *= FNV64_PRIME;
		v >>= 8;
	}
	/* Java's Math.abs() on a long, which YCSB applies before the modulo. */
	return (int64_t)h < 0 ? -h : h;
}

double zipf_zeta(uint64_t n, double theta)
{
	double sum = 0;
	uint64_t i;

	for (i = 1; i <= n; i++)
		sum += 1.0 / pow((double)i, theta);
	return sum;
}

static void zipf_set_eta(struct zipf *z)
{
	/* Ranks 0 and 1 are decided before eta is used: n <= 2 needs none. */
	if (z->items <= 2) {
		z->eta = 0;
		return;
	}
	z->eta = (1 - pow(2.0 / (double)z->items, 1 - z->theta)) /
		 (1 - z->zeta2 / z->zetan);
}

void zipf_init_zeta(struct zipf *z, uint64_t n, double theta, double zetan)
{
	z->items = n;
	z->theta = theta;
	z->alpha = 1.0 / (1.0 - theta);
	z->zeta2 = zipf_zeta(2, theta);
	z->zetan = zetan;
	zipf_set_eta(z);
}

void zipf_init(struct zipf *z, uint64_t n, double theta)
{
	zipf_init_zeta(z, n, theta, zipf_zeta(n, theta));
}

/*
 * Extend zeta to @n items by adding the missing terms, as YCSB does when
 * the record count grows.  (YCSB then recomputes eta with the old count, a
 * known slip; eta here uses the new one.)
 */
static void zipf_grow(struct zipf *z, uint64_t n)
{
	uint64_t i;

	for (i = z->items + 1; i <= n; i++)
		z->zetan += 1.0 / pow((double)i, z->theta);
	z->items = n;
	zipf_set_eta(z);
}

uint64_t zipf_next_n(struct zipf *z, struct wl_rng *r, uint64_t n)
{
	double u, uz;
	uint64_t ret;

	/* As in YCSB a smaller count keeps zeta: O(n) per draw is worse. */
	if (n > z->items)
		zipf_grow(z, n);
	u = wl_rng_double(r);
	uz = u * z->zetan;
	if (uz < 1.0)
		return 0;
	if (uz < 1.0 + pow(0.5, z->theta))
		return 1;
	ret = (uint64_t)((double)n * pow(z->eta * u - z->eta + 1, z->alpha));
	/* Rounding can land on n itself; YCSB would return it, we clamp. */
	return ret < n ? ret : n - 1;
}

uint64_t zipf_next(struct zipf *z, struct wl_rng *r)
{
	return zipf_next_n(z, r, z->items);
}

void zipf_scrambled_init(struct zipf *z)
{
	/* YCSB: new ZipfianGenerator(0, ITEM_COUNT, 0.99, ZETAN). */
	zipf_init_zeta(z, ZIPF_SCRAMBLE_ITEMS + 1, ZIPF_THETA,
		       ZIPF_SCRAMBLE_ZETAN);
}

uint64_t zipf_scrambled_next(struct zipf *z, struct wl_rng *r, uint64_t n)
{
	return wl_fnv64(zipf_next(z, r)) % n;
}

uint64_t zipf_latest_next(struct zipf *z, struct wl_rng *r, uint64_t newest)
{
	return newest - zipf_next_n(z, r, newest);
}
