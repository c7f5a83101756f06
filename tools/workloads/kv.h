/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kv: a fixed-size hash table that lives entirely inside one memory
 * region given by its base address, so the same code runs over a ddsm
 * mapping (one table shared by every node) or over anonymous memory.
 * Nothing in the region is a pointer: every node may map it anywhere.
 *
 * Layout (all integers native little-endian u64/u32):
 *
 *   unit 0       struct kv_header: magic, layout version, geometry, flags.
 *                Written once by kv_init(), then only read, so every node
 *                keeps it cached read-only for ever.
 *   units 1..    nr_groups groups of @pack buckets, each group starting on
 *                a unit boundary and padded to whole units; group g starts
 *                at unit 1 + g * stride_units.
 *
 *   bucket       u64 lock   0 = free, else the holder's owner tag
 *                u64 seq    even = stable, odd while a writer changes it
 *                @slots slots, then padding to a multiple of 64 bytes
 *   slot         u64 key    0 = empty
 *                u64 version (1 on insert, +1 per overwrite or rmw)
 *                u64 checksum over (key, version, value bytes)
 *                value_size bytes of value (a multiple of 8)
 *
 * Writers (put, rmw, delete) take the bucket lock with LOCK CMPXCHG and
 * make seq odd, then even again, around their stores.  Readers (get,
 * scan) never store to the table: they copy what they need and start
 * over if seq was odd or moved meanwhile.  On a page DSM this is what
 * lets a read-mostly bucket stay cached read-only on every node: a single
 * store, even to a lock word, would make the unit exclusive to the reader
 * and take it from everybody else.
 *
 * Key to bucket: hashed (the high bits of splitmix64(key) * nr_buckets)
 * by default, or, with KV_F_DIRECT, bucket = (key - 1) % nr_buckets for
 * dense keys 1..N.
 *
 * Load factor: a bucket has a fixed number of slots and no overflow chain;
 * a put into a full bucket fails with -ENOSPC.  With KV_F_DIRECT and keys
 * 1..N, every bucket receives ceil(N / nr_buckets) keys at most, so
 * nr_buckets = ceil(N / slots) (load factor 1.0) never overflows.  With
 * hashing, bucket occupancy is about Poisson(slots * load factor): the
 * expected number of full buckets is nr_buckets * P(X > slots), e.g. for 3
 * slots 6.6% at load 0.5, 0.03% at load 0.1 -- hashed tables need a low
 * load factor or a caller that tolerates -ENOSPC.
 *
 * Layout options (struct kv_params, fixed at kv_init(), kept in flags):
 *
 * @pack = 1: every bucket starts on a unit boundary and is padded to whole
 *   units.  Two buckets never share a unit, so a write to one never
 *   invalidates the cached copies of another (no false sharing), at the
 *   price of the padding: with 1 KiB values a 3-slot bucket is 3.2 KiB in a
 *   4 KiB unit, and every bucket is at least one unit to fault in, cache
 *   and keep within the node's cache_frames.
 * @pack = K > 1: K buckets are packed back to back and only the group is
 *   padded.  Fewer units (fewer cold misses, less cache pressure, faster
 *   warm-up for read-only work), but a write to any of the K buckets takes
 *   the whole unit from every other node: readers and writers of the K-1
 *   neighbours pay for it (false sharing), and a bucket may straddle two
 *   units.
 *
 * Hot placement (with the interleave home policy unit u is homed on node
 * u % nr_nodes; the home serialises every ownership change of its units):
 * contiguous (default): bucket b is in group b / pack, so consecutive
 *   buckets share units (pack > 1) or sit in adjacent units.  Records
 *   whose buckets are neighbours (dense keys with KV_F_DIRECT, e.g. the
 *   newest records in workload D) are concentrated in few units: cheap to
 *   keep cached for reads, but their writes collide on the same units, and
 *   when a group spans a multiple of nr_nodes units every group starts on
 *   the same home, so one node serves all the lock words' transfers.
 * KV_F_SPREAD: bucket b is in group b % nr_groups (consecutive buckets in
 *   consecutive groups), and the group stride is rounded up to a unit
 *   count coprime with nr_nodes, so any nr_nodes consecutive buckets start
 *   on units of nr_nodes different homes.  Balances the homes' work and
 *   separates neighbouring hot records, at the price of the padding units
 *   (up to nr_nodes - 1 per group when the group is large) and of the
 *   locality of sequential access.  With pack = 1 and one-unit buckets the
 *   two placements are the same.
 *
 * Values: kv_put() with a NULL buffer, and the callers' RMW functions,
 * fill the value with kv_fill_value(key, version), a splitmix64 pattern, so
 * that any node can check any slot without knowing who wrote it:
 * kv_verify_slot() checks the checksum, kv_value_is_pattern() the content.
 *
 * All functions are thread-safe on one struct kv_table; every wait (for a
 * lock, for a stable seq) gives up with -ETIMEDOUT after t->timeout
 * seconds instead of hanging on a holder that died.
 */
#ifndef WL_KV_H
#define WL_KV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KV_MAGIC	0x31306d736464766bULL	/* "kvddsm01" */
#define KV_LAYOUT	1
#define KV_UNIT		4096u
#define KV_MAX_SLOTS	64u

#define KV_F_SPREAD	0x1u	/* neighbour buckets, different homes */
#define KV_F_DIRECT	0x2u	/* bucket = (key - 1) % nr_buckets */
#define KV_F_ALL	(KV_F_SPREAD | KV_F_DIRECT)

/* What kv_init() is asked to lay out. */
struct kv_params {
	uint64_t nr_buckets;
	uint32_t slots;		/* per bucket, 1..KV_MAX_SLOTS */
	uint32_t value_size;	/* bytes, a non-zero multiple of 8 */
	uint32_t pack;		/* buckets per group of units, >= 1 */
	uint32_t flags;		/* KV_F_* */
	uint32_t nr_nodes;	/* homes to spread over (KV_F_SPREAD) */
};

/* Unit 0 of the region. */
struct kv_header {
	uint64_t magic;
	uint32_t layout;
	uint32_t flags;
	uint64_t nr_buckets;
	uint32_t slots;
	uint32_t value_size;
	uint32_t pack;
	uint32_t nr_nodes;
	uint32_t slot_size;	/* bytes: 24 + value_size */
	uint32_t bucket_size;	/* bytes, a multiple of 64 */
	uint64_t nr_groups;
	uint64_t group_units;	/* units a group's buckets need */
	uint64_t stride_units;	/* units from one group to the next */
	uint64_t total_bytes;	/* header unit included */
};

struct kv_slot {
	uint64_t key;
	uint64_t version;
	uint64_t checksum;
	uint64_t value[];
};

struct kv_bucket {
	uint64_t lock;
	uint64_t seq;
	/* slots follow, kv_table.slot_size bytes apart */
};

/*
 * Process-local handle: a copy of the header's geometry (read once, so
 * that the hot paths touch no shared word but the bucket's own) and the
 * caller's settings.
 */
struct kv_table {
	char *base;
	uint64_t nr_buckets, nr_groups, stride_bytes, total_bytes;
	uint32_t slots, value_size, slot_size, bucket_size, pack, flags;
	uint64_t owner;		/* lock word while held; default 1 */
	double timeout;		/* seconds per wait; default 120 */
};

/* Slots per bucket that fill one unit with @value_size values (>= 1). */
uint32_t kv_default_slots(uint32_t value_size);
/* Buckets for @keys keys at @load (0 < load <= 1) with @slots each. */
uint64_t kv_buckets_for(uint64_t keys, uint32_t slots, double load);
/* Bytes kv_init() needs for @p (whole units), 0 if @p is invalid. */
uint64_t kv_bytes(const struct kv_params *p);

/* Lay out an empty table in [@base, @base + @len); 0 or -EINVAL/-ENOSPC. */
int kv_init(struct kv_table *t, void *base, size_t len,
	    const struct kv_params *p);
/* Open a table laid out by someone else; 0 or -EPROTO/-EINVAL/-ENOSPC. */
int kv_attach(struct kv_table *t, void *base, size_t len);

/*
 * kv_get() - copy the value of @key into @buf (value_size bytes)
 * Return: 0 with *@version set, -ENOENT, -EBADMSG (a stable copy failed
 * its checksum: corruption), -ETIMEDOUT, -EINVAL (key 0).
 */
int kv_get(const struct kv_table *t, uint64_t key, void *buf,
	   uint64_t *version);
/*
 * kv_put() - insert @key (version 1) or overwrite it (version + 1)
 * @buf: value_size bytes, or NULL for kv_fill_value(key, new version)
 * Return: the new version (> 0), -ENOSPC (bucket full), -ETIMEDOUT,
 * -EINVAL (key 0).
 */
int64_t kv_put(const struct kv_table *t, uint64_t key, const void *buf);

/*
 * A read-modify-write step: @value holds version @version of @key; turn it
 * into version @version + 1 in place and return 0, or return a negative
 * errno without having touched it.  Runs under the bucket lock.
 */
typedef int (*kv_rmw_fn)(uint64_t key, uint64_t version, void *value,
			 size_t size, void *arg);
/* Return: the new version, -ENOENT, fn's error, -ETIMEDOUT, -EINVAL. */
int64_t kv_rmw(const struct kv_table *t, uint64_t key, kv_rmw_fn fn,
	       void *arg);
/*
 * The kv_rmw_fn of values that follow the pattern (@arg: the table):
 * -EBADMSG unless @value is (@key, @version)'s, else (@key, @version + 1)'s.
 */
int kv_rmw_pattern(uint64_t key, uint64_t version, void *value, size_t size,
		   void *arg);
/* Return: 0, -ENOENT, -ETIMEDOUT, -EINVAL. */
int kv_delete(const struct kv_table *t, uint64_t key);

/*
 * kv_scan() - call @fn on a stable copy of every occupied slot, bucket by
 * bucket (each bucket is consistent in itself, not the table as a whole).
 * A non-zero return from @fn stops the scan and is returned.
 * Return: slots visited, @fn's value, -ENOMEM or -ETIMEDOUT.
 */
typedef int (*kv_scan_fn)(const struct kv_table *t, const struct kv_slot *s,
			  void *arg);
int64_t kv_scan(const struct kv_table *t, kv_scan_fn fn, void *arg);

/* The value of (@key, @version): value_size bytes into @buf. */
void kv_fill_value(const struct kv_table *t, uint64_t key, uint64_t version,
		   void *buf);
bool kv_value_is_pattern(const struct kv_table *t, uint64_t key,
			 uint64_t version, const void *buf);
uint64_t kv_checksum(const struct kv_table *t, uint64_t key,
		     uint64_t version, const void *value);
/* 0 if @s's checksum matches its key, version and value, else -EBADMSG. */
int kv_verify_slot(const struct kv_table *t, const struct kv_slot *s);

/* Bucket of @key, and where it is (for placement reports and tests). */
uint64_t kv_bucket_index(const struct kv_table *t, uint64_t key);
struct kv_bucket *kv_bucket_at(const struct kv_table *t, uint64_t b);

#endif /* WL_KV_H */
