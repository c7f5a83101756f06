/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A persist-domain checker for tests: an emulated pmem namespace that
 * knows which of its bytes a power failure would keep.
 *
 * A crash of a real machine (or the kill of a VM) cannot show a missing
 * flush or fence: every store reaches the page cache or the DIMM sooner
 * or later.  Here the code under test stores into @work, the media as it
 * sees it, and passes the callbacks of ddsm_pm_shadow_ops() to layout.c or
 * store.c.  flush() marks the 64-byte lines it covers; fence() copies the
 * marked lines from @work to @durable, the content that survives a power
 * failure, and clears the marks.  ddsm_pm_shadow_crash() then plays the
 * power failure: every line where @work and @durable differ is "unfenced"
 * (stored, maybe flushed, not fenced since), and a caller-supplied chooser
 * decides for each whether the hardware happened to write it back (any
 * subset may be); then @work := @durable, the media after reboot.
 *
 * To stop at a given point of a run, ddsm_pm_shadow_arm() names a fence:
 * when the code under test calls it, the power fails instead, with the
 * chooser given to arm.  @durable is frozen from then on (later flushes
 * and fences do nothing), so the rest of the run, which still stores into
 * @work, cannot leak into what survives; the test may stop the run early
 * (@crashed) or let it finish, then calls ddsm_pm_shadow_crash().
 *
 * Granularity: pmem is only failure atomic per aligned 8 bytes, so with
 * @tear_words set the chooser is asked per differing 8-byte word instead
 * of per line, and a crash can tear a line.
 *
 * Limits: a fence makes a marked line durable with its content at the
 * time of the fence, stores after the flush included (real hardware may
 * write back the content of flush time); stores are not seen, so a missing
 * flush shows only as a line that a crash may drop.
 *
 * Pure C like layout.c; the caller provides all memory.  KUnit uses it,
 * and so does the module's test-only pmem_check mode (durable/pmem_check.c),
 * with the real namespace as @durable.
 */
#ifndef DDSM_PMEM_SHADOW_H
#define DDSM_PMEM_SHADOW_H

#include "layout.h"

#define DDSM_PM_SHADOW_LONG_BITS	(8 * sizeof(unsigned long))
/* Longs of the flush bitmap for @len bytes of media (one bit per line). */
#define DDSM_PM_SHADOW_BITMAP_LONGS(len) \
	(((len) / DDSM_PM_LINE + DDSM_PM_SHADOW_LONG_BITS - 1) / \
	 DDSM_PM_SHADOW_LONG_BITS)
#define DDSM_PM_SHADOW_BITMAP_BYTES(len) \
	(DDSM_PM_SHADOW_BITMAP_LONGS(len) * sizeof(unsigned long))

/*
 * Keep (write back) the unfenced piece [off, off + len) of the media?
 * @off is an offset in @work, @len 64 (a line) or 8 (a word).
 */
typedef bool (*ddsm_pm_shadow_choose_fn)(void *ctx, u64 off, u32 len);

struct ddsm_pm_shadow {
	u8 *work;		/* the media the code under test sees */
	u8 *durable;		/* what survives a power failure */
	u64 len;		/* bytes of each, a multiple of 64 */
	unsigned long *flushed;	/* lines flushed since the last fence */
	u64 mark_lo, mark_hi;	/* lines [lo, hi) may hold marks */
	bool tear_words;	/* crash chooses per 8-byte word */

	/* Armed crash: fence number crash_fence (1 = the first ever) fails. */
	u64 crash_fence;	/* 0: not armed */
	ddsm_pm_shadow_choose_fn crash_choose;
	void *crash_ctx;
	bool crashed;		/* the power failed; @durable is frozen */

	/* Counters, since init. */
	u64 flushes;		/* flush calls, also after a crash */
	u64 fences;		/* fence calls, also after a crash */
	u64 flushed_lines;	/* line marks set (before a crash) */
	u64 stray_flushes;	/* flushes reaching outside @work (a bug) */
	u64 crashes;
	u64 kept, dropped;	/* unfenced pieces, over all crashes */
	u64 last_dropped;	/* dropped by the last crash */
};

/*
 * Set up @sh over @work and @durable (@len bytes each, a multiple of 64)
 * and @flushed (DDSM_PM_SHADOW_BITMAP_BYTES(@len)).  @work's content is
 * taken as durable (copied to @durable).  -EINVAL for a bad @len.
 */
int ddsm_pm_shadow_init(struct ddsm_pm_shadow *sh, void *work, void *durable,
			unsigned long *flushed, u64 len);

/* The callbacks to hand the code under test. */
struct ddsm_pm_persist ddsm_pm_shadow_ops(struct ddsm_pm_shadow *sh);

/*
 * The @nth fence from now (1: the next one) fails: the power goes when
 * the code under test calls it, @choose deciding the unfenced lines.
 */
void ddsm_pm_shadow_arm(struct ddsm_pm_shadow *sh, u64 nth,
			ddsm_pm_shadow_choose_fn choose, void *ctx);

/*
 * Power failure and reboot.  Unless an armed crash already happened,
 * @choose decides for each unfenced line (or word) whether it reaches
 * @durable.  Then @work := @durable; marks, the armed crash and @crashed
 * are cleared.  Returns the number of unfenced pieces dropped by this
 * crash (by the armed one, if that happened).
 */
u64 ddsm_pm_shadow_crash(struct ddsm_pm_shadow *sh,
			 ddsm_pm_shadow_choose_fn choose, void *ctx);

/*
 * Lines where @work and @durable differ: what a crash now could lose.
 * After a call of the code under test returned, 0 proves that everything
 * it stored is durable.
 */
u64 ddsm_pm_shadow_unfenced(const struct ddsm_pm_shadow *sh);

/* Choosers: keep nothing, keep everything. */
bool ddsm_pm_shadow_keep_none(void *ctx, u64 off, u32 len);
bool ddsm_pm_shadow_keep_all(void *ctx, u64 off, u32 len);

/* A seeded random subset: each piece kept with probability pct / 100. */
struct ddsm_pm_shadow_rng {
	u64 state;		/* any seed; 0 is replaced */
	u32 pct;
};

bool ddsm_pm_shadow_keep_random(void *ctx, u64 off, u32 len);

#endif /* DDSM_PMEM_SHADOW_H */
