/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The access pattern of GAM's micro-benchmark (Cai et al., "Efficient
 * Distributed Memory Management with RDMA and Caching", VLDB'18), over a
 * ddsm window.
 *
 * Each thread owns a pool of @blocks blocks of @item bytes:
 *   pool[0 .. shared - 1]      the shared blocks, the same ones for every
 *                              thread of every node, dealt round robin
 *                              over the units of a common area of at
 *                              least @nodes units (when there are that
 *                              many blocks), so that every node homes
 *                              some; several share a unit when they do
 *                              not fit one per unit (false sharing, as
 *                              with any packed allocation);
 *   pool[shared .. blocks - 1] private blocks, used by this thread only:
 *                              the first round(remote * private) of them
 *                              in units homed on the other nodes (round
 *                              robin), the rest in units homed here.
 * "Allocating" a block is choosing its address: with the interleave
 * policy unit u is homed on u % nodes, so the private area is made of
 * rows of @nodes units, row r unit h homed on node h, and each thread
 * owns @rows rows: its blocks never share a unit with another thread's.
 *
 * A trace of @ops operations, each on a uniformly chosen pool block, a
 * read with probability @read, is generated from (seed, node, thread), so
 * every node can regenerate any thread's trace to check its blocks.  Run
 * 1 (warm-up) runs it once; run 2 (measured) runs it once too, or for a
 * given time, replaying it cyclically (its i-th operation is trace[i %
 * ops]) and counting the operations it ran: with a fixed trace, nodes
 * that finish in milliseconds would hardly run at the same time.
 *
 * Reads copy the item.  A shared write is a LOCK XADD of 1 on the item's
 * first word, a counter tallied per block; a private write stores
 * micro_word(node, thread, block, run, i), i counting the run's
 * operations (so that a later lap's write never looks like an earlier
 * one's), and a derivation of it in every word.  Reads check what they
 * can: a private block holds this thread's last write, a shared counter
 * never goes backwards.
 */
#ifndef WL_MICRO_H
#define WL_MICRO_H

#include <pthread.h>
#include <stdint.h>
#include "zipf.h"

struct micro_cfg {
	int me, nodes, threads;
	uint64_t blocks;	/* per thread */
	uint64_t shared;	/* of them shared by everybody */
	uint32_t item;		/* bytes, a multiple of 8 */
	double remote, read;	/* fractions */
	uint64_t ops;		/* of each trace */
	uint64_t seed;
	char *shared_area;	/* shared block s: unit s % shared_units */
	uint64_t shared_units;
	char *private_area;	/* its global unit number % nodes == 0 */
	uint64_t rows;		/* per thread */
};

struct micro_thread {
	pthread_t th;
	const struct micro_cfg *cfg;
	int id, run;
	double for_secs;	/* this run's length; 0: the trace once */
	uint64_t done;		/* operations the last run ran */
	char **addr;		/* [blocks] */
	uint32_t *trace;	/* [ops]: block << 1 | write */
	uint64_t *last;		/* [blocks]: word 0 last written/seen */
	uint64_t *incs;		/* [shared]: increments by this thread */
	uint64_t bad_reads;	/* private block not holding our write */
	uint64_t backwards;	/* shared counter seen going down */
	uint64_t sink;		/* keeps the reads' loads alive */
	double secs;		/* of the last run */
};

/* Rows each thread needs in the private area. */
uint64_t micro_rows(const struct micro_cfg *c);
/* Block addresses of (@node, @thread)'s pool into @addr[blocks]. */
void micro_pool(const struct micro_cfg *c, int node, int thread,
		char **addr);
/* (@node, @thread)'s trace into @trace[ops]. */
void micro_trace(const struct micro_cfg *c, int node, int thread,
		 uint32_t *trace);
/* Word 0 of a private write; run 0 op 0 is the initial value. */
uint64_t micro_word(int node, int thread, uint64_t block, int run,
		    uint64_t op);
/* Store the value of micro_word(...) in every word of @item at @p. */
void micro_fill(volatile uint64_t *p, uint32_t item, uint64_t w0);
/* Whether the item at @p holds the fill of @w0. */
int micro_holds(const volatile uint64_t *p, uint32_t item, uint64_t w0);

/* Allocate @m's arrays, build its pool and trace, write its blocks. */
int micro_thread_init(struct micro_thread *m, const struct micro_cfg *c,
		      int id);
void micro_thread_free(struct micro_thread *m);
/*
 * Run every thread's trace as run @run, in parallel: once, or cyclically
 * for @secs seconds if @secs > 0; 0 or -1.
 */
int micro_run(struct micro_thread *m, int threads, int run, double secs);

#endif /* WL_MICRO_H */
