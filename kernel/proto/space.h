/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Global address space geometry: units, homes, and range checks.
 *
 * Every global address belongs to one 4 KiB coherence unit, and every unit to
 * one home node.  Two placements are offered: "interleave" spreads
 * consecutive units round-robin over the nodes (hot neighbours land on
 * different homes), "range" gives each node one contiguous slice (locality
 * for per-node data).  The home keeps the unit's backing frame and its
 * directory entry at index ddsm_unit_local_index() of its local arrays.
 *
 * Backup homes (nr_backups = 1, docs/persistency.md): the units placed on
 * node h have a backup home, the next node (h + 1) % nr_nodes, which keeps
 * a durable replica and takes them over once h died and stayed away.  Its
 * local arrays hold its own units, then its predecessor's, from the
 * start; the failover mask says which predecessors it serves.  Every node
 * learns the mask from the backup itself and routes by it.
 */
#ifndef DDSM_PROTO_SPACE_H
#define DDSM_PROTO_SPACE_H

#include "../lib/shim.h"

#define DDSM_PROTO_UNIT_SHIFT	12
#define DDSM_PROTO_UNIT_SIZE	BIT_ULL(DDSM_PROTO_UNIT_SHIFT)
#define DDSM_PROTO_MAX_NODES	64

enum ddsm_home_policy {
	DDSM_HOME_INTERLEAVE = 0,
	DDSM_HOME_RANGE = 1,
};

struct ddsm_space {
	u64 size;		/* bytes, a multiple of the unit size */
	u64 nr_units;
	u64 units_per_node;	/* range policy: slice length in units */
	u32 nr_nodes;
	u32 node_id;
	enum ddsm_home_policy policy;
	u32 nr_backups;		/* 0, or 1: a backup home per unit */
	/*
	 * Nodes whose units their backup serves now (bit h: h's units are
	 * homed at (h + 1) % nr_nodes).  Only ever grows; read locklessly.
	 */
	u64 failover;
};

int ddsm_space_init(struct ddsm_space *s, u64 size, u32 nr_nodes,
		    u32 node_id, enum ddsm_home_policy policy);

static inline u64 ddsm_gaddr_unit(u64 gaddr)
{
	return gaddr >> DDSM_PROTO_UNIT_SHIFT;
}

static inline u64 ddsm_unit_gaddr(u64 unit)
{
	return unit << DDSM_PROTO_UNIT_SHIFT;
}

static inline bool ddsm_unit_valid(const struct ddsm_space *s, u64 unit)
{
	return unit < s->nr_units;
}

/* Where the placement puts @unit, failovers aside. */
static inline u32 ddsm_unit_placed(const struct ddsm_space *s, u64 unit)
{
	if (s->policy == DDSM_HOME_RANGE)
		return (u32)(unit / s->units_per_node);
	return (u32)(unit % s->nr_nodes);
}

/* The node that backs up @node's units. */
static inline u32 ddsm_space_backup_of(const struct ddsm_space *s, u32 node)
{
	return (node + 1) % s->nr_nodes;
}

/* The node whose units @node backs up. */
static inline u32 ddsm_space_pred_of(const struct ddsm_space *s, u32 node)
{
	return (node + s->nr_nodes - 1) % s->nr_nodes;
}

static inline u64 ddsm_space_failover(const struct ddsm_space *s)
{
#ifdef READ_ONCE
	return READ_ONCE(s->failover);
#else
	return s->failover;
#endif
}

/* Callers check ddsm_unit_valid() first. */
static inline u32 ddsm_unit_home(const struct ddsm_space *s, u64 unit)
{
	u32 home = ddsm_unit_placed(s, unit);

	if (ddsm_space_failover(s) & BIT_ULL(home))
		return ddsm_space_backup_of(s, home);
	return home;
}

/* Index of @unit among the units placed on its node. */
static inline u64 ddsm_unit_home_index(const struct ddsm_space *s, u64 unit)
{
	if (s->policy == DDSM_HOME_RANGE)
		return unit % s->units_per_node;
	return unit / s->nr_nodes;
}

/* The unit at @idx of @node's local arrays: the inverse of the above. */
static inline u64 ddsm_space_home_unit(const struct ddsm_space *s, u32 node,
				       u64 idx)
{
	if (s->policy == DDSM_HOME_RANGE)
		return (u64)node * s->units_per_node + idx;
	return idx * s->nr_nodes + node;
}

/* Units placed on @node (failovers aside). */
u64 ddsm_space_units_homed(const struct ddsm_space *s, u32 node);

/*
 * This node's local arrays (frames, directory entries, pmem slots): the
 * units placed here, then with a backup home the predecessor's, which it
 * homes only after taking them over.
 */
u64 ddsm_space_local_units(const struct ddsm_space *s);
/* @unit's index in them, or U64_MAX when it has none here. */
u64 ddsm_unit_local_index(const struct ddsm_space *s, u64 unit);
/* The inverse: the unit at local index @idx (< ddsm_space_local_units). */
u64 ddsm_space_local_unit(const struct ddsm_space *s, u64 idx);

/*
 * Is [off, off + len) a valid window of the space?  Returns 0, -EINVAL for
 * zero length or misalignment, -ENXIO when it does not fit (overflow
 * included).
 */
int ddsm_space_check_range(const struct ddsm_space *s, u64 off, u64 len);

#endif /* DDSM_PROTO_SPACE_H */
