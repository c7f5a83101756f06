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

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include "libddsm.h"
#include "dsm_sync.h"

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

/* A timed phase: its wall time, and this node's counters around it. */
struct wl_span {
	struct ddsm_status st0, st1;
	double t0, secs;	/* dsm_now() at the start; duration */
};

void wl_span_start(struct wl_dsm *w, struct wl_span *sp);
void wl_span_end(struct wl_dsm *w, struct wl_span *sp);
/*
 * Print " faults_read_per_op=... evictions_per_op=..." (no newline):
 * what the DSM did for this node over @sp, per operation.
 */
void wl_print_counters(const struct wl_span *sp, uint64_t ops);

/*
 * The window both programs lay out from their base address: the
 * barrier's units, node 0's configuration unit, then (where the program
 * puts them) one results region per node: a summary unit (the WL_R_*
 * words, then the program's own) and the program's tallies after it.
 * Configuration and results count only once they carry the identifier
 * node 0 drew for this run, stored last: leftovers of an earlier run in
 * the same space never pass for this one's.
 *
 * test_common.h's TAP state is per file.  What fails here bails (exit 1,
 * whatever the caller's tap_failed); a check that may fail and go on is
 * the caller's to print, so that its exit status counts it.
 */
#define WL_CONF_UNIT(n)		DSM_SYNC_UNITS(n)
#define WL_HEAD_UNITS(n)	(WL_CONF_UNIT(n) + 1)

enum { WL_R_NONCE, WL_R_OPS, WL_R_SECS_US, WL_R_WORDS };

struct wl_win {
	char *p;		/* NULL: no window (running alone) */
	struct dsm_sync s;
	uint64_t results;	/* first unit of node 0's results region */
	uint64_t result_units;	/* units per node's region */
	uint64_t nonce;		/* node 0's run identifier */
	int me, n;
};

/*
 * Map @units units of @w at @gaddr, report a SIGBUS inside them by global
 * address (exit 3) and set up the barrier: every node at once.  Exit 1,
 * or bail, when that fails.
 */
void wl_win_map(struct wl_win *ww, struct wl_dsm *w, uint64_t gaddr,
		uint64_t units, double timeout);
volatile uint64_t *wl_unit(const struct wl_win *ww, uint64_t unit);
/* Wait for every node to finish phase @after; none to wait for alone. */
void wl_barrier(struct wl_win *ww, const char *after);

/*
 * Node 0: draw the run identifier and publish configuration @c of @words
 * words for the others (word 0 is the identifier's).
 */
void wl_conf_publish(struct wl_win *ww, const uint64_t *c, int words);
/*
 * The other nodes, after a barrier: take node 0's identifier and print
 * "ok" if node 0 runs configuration @c; else false, for the caller to
 * bail naming the options.
 */
bool wl_conf_check(struct wl_win *ww, const uint64_t *c, int words);

/* Summary words of @node's results region, and its tallies. */
volatile uint64_t *wl_region(const struct wl_win *ww, int node);
volatile uint64_t *wl_tallies(const struct wl_win *ww, int node);
/* This node's results, once its tallies and own summary words are in. */
void wl_publish(struct wl_win *ww, uint64_t ops, double secs);
bool wl_published(const struct wl_win *ww, int node);
/*
 * Every node that published this run's results: their ops, and those
 * ops over the longest node's run time (not the sum of each node's
 * ops/s, which overstates the rate when the nodes' runs do not overlap).
 */
void wl_totals(const struct wl_win *ww, uint64_t *ops, double *rate);

/*
 * Options both programs take, parsed alike: -b BASE, -t THREADS, -s SECS
 * (may be fractional), -o OPS, --seed X, --timeout SECS and --emulate
 * PATH:NODE:NODES.  Each program sets its own defaults and says what -s
 * and -o mean for it.
 */
struct wl_opts {
	uint64_t base, ops, seed;
	double secs, timeout;
	int threads;
	const char *emu;
};

#define WL_USAGE_OPTS	"[--seed X] [--timeout SECS] [--emulate PATH:NODE:NODES]"

/*
 * getopt_long() over the program's own options (@shorts, and @longs
 * ending with a zeroed entry) and the common ones, which it parses into
 * @o itself (exit 2 on a bad value): the next own option's code, or -1.
 */
int wl_getopt(int argc, char **argv, const char *shorts,
	      const struct option *longs, struct wl_opts *o);
/* Base unit aligned, 1..256 threads, a timeout. */
bool wl_opts_ok(const struct wl_opts *o);

/* A run identifier for tallies published in ddsm: never 0, never reused. */
uint64_t wl_nonce(void);

/*
 * A ratio given as a percentage ("67") or, with a decimal point and at
 * most 1, as a fraction ("0.67"); -1 if neither or out of 0..100 %.
 */
double wl_parse_ratio(const char *s);

#endif /* WL_WL_H */
