/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The YCSB core workloads' operation loop over a kv table: one node's
 * threads, each with its own key chooser, latency histogram and tally of
 * the changes it made to every key (so that the final versions can be
 * checked exactly).
 *
 *   A  50% read, 50% update            zipfian or uniform
 *   B  95% read,  5% update            zipfian or uniform
 *   C 100% read                        zipfian or uniform
 *   D  95% read,  5% insert            latest
 *   F  50% read, 50% read-modify-write zipfian or uniform
 *
 * Keys 1..records are loaded.  Inserts (D) take keys above records from a
 * per-node partition, key = records + 1 + node + nodes * j for this
 * node's j-th insert, up to key_cap, so nodes never insert the same key
 * and need no shared counter; past key_cap an insert is done as a read
 * (insert_full).  "Latest" counts back from the newest key this node has
 * inserted, so it may choose a key another node has not inserted yet: a
 * read_miss, not an error.
 */
#ifndef WL_YCSB_H
#define WL_YCSB_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include "hist.h"
#include "kv.h"
#include "zipf.h"

enum ycsb_dist {
	YCSB_UNIFORM,
	YCSB_ZIPFIAN,		/* scrambled, as YCSB's "zipfian" */
	YCSB_LATEST,
};

struct ycsb_cfg {
	const struct kv_table *t;
	char workload;		/* 'A', 'B', 'C', 'D' or 'F' */
	enum ycsb_dist dist;
	uint64_t records;	/* keys 1..records loaded */
	uint64_t key_cap;	/* no key above it is ever inserted */
	int me, n;		/* this node, nodes: the insert partitions */
	uint64_t ops;		/* per thread; 0: until deadline */
	double deadline;	/* dsm_now() time to stop at */
	uint64_t seed;
	/* Shared by this node's threads. */
	uint64_t next_insert;	/* inserts handed out */
	uint64_t newest;	/* highest key inserted here, or records */
};

struct ycsb_tally {
	uint64_t ops, reads, updates, inserts, rmws;
	uint64_t read_miss;	/* D: chose a key not inserted (yet) */
	uint64_t insert_full;	/* D: partition used up, read instead */
	uint64_t bad;		/* wrong or missing data seen */
	uint64_t errors;	/* operations that failed (timeouts) */
};

struct ycsb_worker {
	pthread_t th;
	struct ycsb_cfg *cfg;
	int id;
	struct wl_rng rng;
	struct zipf z;
	struct hist hist;
	struct ycsb_tally tally;
	uint32_t *changes;	/* [key - 1]: updates, rmws, inserts done */
	uint64_t *buf;		/* one value */
	double secs;		/* this thread's run time */
};

/* Run @threads workers (allocated by the caller) to the end; 0 or -1. */
int ycsb_run(struct ycsb_cfg *cfg, struct ycsb_worker *w, int threads);
/* Free what ycsb_run() allocated in the workers. */
void ycsb_free(struct ycsb_worker *w, int threads);
/* Add @src to @dst. */
void ycsb_tally_add(struct ycsb_tally *dst, const struct ycsb_tally *src);

#endif /* WL_YCSB_H */
