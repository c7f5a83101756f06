/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The workloads' view of the global space: /dev/ddsm through libddsm, or,
 * for testing the programs on one host, an emulation where every "node" is
 * a process mapping the same file MAP_SHARED (--emulate PATH:NODE:NODES).
 * The emulation is coherent by construction and has no counters: it
 * checks the programs' logic (phases, barriers, tallies, verification),
 * never the DSM.  Its file must start out empty, as a fresh module does.
 */
#ifndef WL_WL_H
#define WL_WL_H

#include <stdint.h>
#include <stddef.h>
#include "libddsm.h"

/* Space an emulation pretends to have (the file stays sparse). */
#define WL_EMU_SIZE	(64ULL << 30)

struct wl_dsm {
	struct ddsm d;
	int emu_fd;		/* >= 0 when emulated */
	int me, n;
	uint64_t size;		/* bytes of global space */
};

/* @emu: NULL for /dev/ddsm.  Return 0, or -1 with a message on stderr. */
int wl_open(struct wl_dsm *w, const char *emu);
/* A read-write window at @gaddr; NULL with a message on stderr. */
void *wl_map(struct wl_dsm *w, uint64_t gaddr, size_t len);
/* Counters (all zero when emulated); 0 or -1. */
int wl_status(struct wl_dsm *w, struct ddsm_status *st);
/* Home node of @gaddr: DDSM_IOC_HOME, or interleave when emulated. */
int wl_home(struct wl_dsm *w, uint64_t gaddr);

/*
 * Print " faults_read_per_op=... evictions_per_op=..." (no newline):
 * what the DSM did for this node between @a and @b, per operation.
 */
void wl_print_counters(const struct ddsm_status *a,
		       const struct ddsm_status *b, uint64_t ops);

/* A run identifier for tallies published in ddsm: never 0, never reused. */
uint64_t wl_nonce(void);

/*
 * A ratio given as a percentage ("67") or, with a decimal point and at
 * most 1, as a fraction ("0.67"); -1 if neither or out of 0..100 %.
 */
double wl_parse_ratio(const char *s);

#endif /* WL_WL_H */
