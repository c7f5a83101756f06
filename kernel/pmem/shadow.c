// SPDX-License-Identifier: GPL-2.0
/*
 * Persist-domain checker: an emulated namespace whose power failures keep
 * only what was flushed and fenced, plus any subset of the rest (see
 * shadow.h).
 */
#include "shadow.h"

#define LONG_BITS	DDSM_PM_SHADOW_LONG_BITS

static bool mark_test(const struct ddsm_pm_shadow *sh, u64 line)
{
	return sh->flushed[line / LONG_BITS] & (1UL << (line % LONG_BITS));
}

/* Clear the marks: only the longs of [mark_lo, mark_hi) may hold any. */
static void marks_clear(struct ddsm_pm_shadow *sh)
{
	u64 lo = sh->mark_lo / LONG_BITS;
	u64 hi = (sh->mark_hi + LONG_BITS - 1) / LONG_BITS;

	if (hi > lo)
		memset(sh->flushed + lo, 0, (hi - lo) * sizeof(unsigned long));
	sh->mark_lo = 0;
	sh->mark_hi = 0;
}

int ddsm_pm_shadow_init(struct ddsm_pm_shadow *sh, void *work, void *durable,
			unsigned long *flushed, u64 len)
{
	if (!len || len % DDSM_PM_LINE)
		return -EINVAL;
	memset(sh, 0, sizeof(*sh));
	sh->work = work;
	sh->durable = durable;
	sh->len = len;
	sh->flushed = flushed;
	memset(flushed, 0, DDSM_PM_SHADOW_BITMAP_BYTES(len));
	memcpy(durable, work, len);
	return 0;
}

static void shadow_flush(void *ctx, const void *addr, size_t len)
{
	struct ddsm_pm_shadow *sh = ctx;
	const u8 *p = addr;
	u64 off, first, last, line;

	sh->flushes++;
	if (sh->crashed || !len)
		return;
	/* Compare as addresses: @addr may lie anywhere. */
	if ((unsigned long)p < (unsigned long)sh->work ||
	    (unsigned long)p - (unsigned long)sh->work >= sh->len ||
	    len > sh->len - ((unsigned long)p - (unsigned long)sh->work)) {
		sh->stray_flushes++;
		return;
	}
	off = p - sh->work;
	first = off / DDSM_PM_LINE;
	last = (off + len - 1) / DDSM_PM_LINE;
	for (line = first; line <= last; line++) {
		sh->flushed[line / LONG_BITS] |= 1UL << (line % LONG_BITS);
		sh->flushed_lines++;
	}
	if (sh->mark_lo == sh->mark_hi) {
		sh->mark_lo = first;
		sh->mark_hi = last + 1;
	} else {
		if (first < sh->mark_lo)
			sh->mark_lo = first;
		if (last + 1 > sh->mark_hi)
			sh->mark_hi = last + 1;
	}
}

/*
 * The power fails: each unfenced piece reaches @durable if @choose says
 * so.  Returns the pieces dropped.
 */
static u64 shadow_lose(struct ddsm_pm_shadow *sh,
		       ddsm_pm_shadow_choose_fn choose, void *ctx)
{
	u32 piece = sh->tear_words ? 8 : DDSM_PM_LINE;
	u64 off, p, dropped = 0;

	for (off = 0; off < sh->len; off += DDSM_PM_LINE) {
		if (!memcmp(sh->work + off, sh->durable + off, DDSM_PM_LINE))
			continue;
		for (p = off; p < off + DDSM_PM_LINE; p += piece) {
			if (!memcmp(sh->work + p, sh->durable + p, piece))
				continue;
			if (choose(ctx, p, piece)) {
				memcpy(sh->durable + p, sh->work + p, piece);
				sh->kept++;
			} else {
				dropped++;
			}
		}
	}
	sh->dropped += dropped;
	sh->last_dropped = dropped;
	sh->crashes++;
	sh->crashed = true;
	return dropped;
}

static void shadow_fence(void *ctx)
{
	struct ddsm_pm_shadow *sh = ctx;
	u64 line, off;

	sh->fences++;
	if (sh->crashed)
		return;
	if (sh->crash_fence && sh->fences == sh->crash_fence) {
		shadow_lose(sh, sh->crash_choose, sh->crash_ctx);
		return;
	}
	for (line = sh->mark_lo; line < sh->mark_hi; line++) {
		if (!mark_test(sh, line))
			continue;
		off = line * DDSM_PM_LINE;
		memcpy(sh->durable + off, sh->work + off, DDSM_PM_LINE);
	}
	marks_clear(sh);
}

struct ddsm_pm_persist ddsm_pm_shadow_ops(struct ddsm_pm_shadow *sh)
{
	struct ddsm_pm_persist ops = {
		.flush = shadow_flush,
		.fence = shadow_fence,
		.ctx = sh,
	};

	return ops;
}

void ddsm_pm_shadow_arm(struct ddsm_pm_shadow *sh, u64 nth,
			ddsm_pm_shadow_choose_fn choose, void *ctx)
{
	sh->crash_fence = nth ? sh->fences + nth : 0;
	sh->crash_choose = choose;
	sh->crash_ctx = ctx;
}

u64 ddsm_pm_shadow_crash(struct ddsm_pm_shadow *sh,
			 ddsm_pm_shadow_choose_fn choose, void *ctx)
{
	u64 dropped;

	if (sh->crashed)
		dropped = sh->last_dropped;
	else
		dropped = shadow_lose(sh, choose, ctx);
	memcpy(sh->work, sh->durable, sh->len);
	marks_clear(sh);
	sh->crash_fence = 0;
	sh->crash_choose = NULL;
	sh->crash_ctx = NULL;
	sh->crashed = false;
	return dropped;
}

u64 ddsm_pm_shadow_unfenced(const struct ddsm_pm_shadow *sh)
{
	u64 off, n = 0;

	for (off = 0; off < sh->len; off += DDSM_PM_LINE)
		if (memcmp(sh->work + off, sh->durable + off, DDSM_PM_LINE))
			n++;
	return n;
}

bool ddsm_pm_shadow_keep_none(void *ctx, u64 off, u32 len)
{
	return false;
}

bool ddsm_pm_shadow_keep_all(void *ctx, u64 off, u32 len)
{
	return true;
}

bool ddsm_pm_shadow_keep_random(void *ctx, u64 off, u32 len)
{
	struct ddsm_pm_shadow_rng *r = ctx;
	u64 x = r->state ? r->state : 0x9e3779b97f4a7c15ULL;

	/* xorshift64*: cheap, and the same sequence on every build. */
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	r->state = x;
	return ((x * 0x2545f4914f6cdd1dULL) >> 32) % 100 < r->pct;
}
