// SPDX-License-Identifier: GPL-2.0
#include "space.h"

int ddsm_space_init(struct ddsm_space *s, u64 size, u32 nr_nodes,
		    u32 node_id, enum ddsm_home_policy policy)
{
	if (!size || (size & (DDSM_PROTO_UNIT_SIZE - 1)))
		return -EINVAL;
	if (!nr_nodes || nr_nodes > DDSM_PROTO_MAX_NODES || node_id >= nr_nodes)
		return -EINVAL;
	if (policy != DDSM_HOME_INTERLEAVE && policy != DDSM_HOME_RANGE)
		return -EINVAL;

	memset(s, 0, sizeof(*s));
	s->size = size;
	s->nr_units = size >> DDSM_PROTO_UNIT_SHIFT;
	s->nr_nodes = nr_nodes;
	s->node_id = node_id;
	s->policy = policy;
	/* Round up so that every unit has a home even when units % nodes != 0. */
	s->units_per_node = (s->nr_units + nr_nodes - 1) / nr_nodes;
	return 0;
}

u64 ddsm_space_units_homed(const struct ddsm_space *s, u32 node)
{
	u64 first, last;

	if (node >= s->nr_nodes)
		return 0;
	if (s->policy == DDSM_HOME_RANGE) {
		first = (u64)node * s->units_per_node;
		if (first >= s->nr_units)
			return 0;
		last = first + s->units_per_node;
		if (last > s->nr_units)
			last = s->nr_units;
		return last - first;
	}
	return s->nr_units / s->nr_nodes +
	       (node < s->nr_units % s->nr_nodes ? 1 : 0);
}

u64 ddsm_space_local_units(const struct ddsm_space *s)
{
	u64 own = ddsm_space_units_homed(s, s->node_id);

	if (!s->nr_backups || s->nr_nodes < 2)
		return own;
	return own + ddsm_space_units_homed(s, ddsm_space_pred_of(s, s->node_id));
}

u64 ddsm_unit_local_index(const struct ddsm_space *s, u64 unit)
{
	u32 placed;

	if (!ddsm_unit_valid(s, unit))
		return U64_MAX;
	placed = ddsm_unit_placed(s, unit);
	if (placed == s->node_id)
		return ddsm_unit_home_index(s, unit);
	if (s->nr_backups && s->nr_nodes >= 2 &&
	    placed == ddsm_space_pred_of(s, s->node_id))
		return ddsm_space_units_homed(s, s->node_id) +
		       ddsm_unit_home_index(s, unit);
	return U64_MAX;
}

u64 ddsm_space_local_unit(const struct ddsm_space *s, u64 idx)
{
	u64 own = ddsm_space_units_homed(s, s->node_id);

	if (idx < own)
		return ddsm_space_home_unit(s, s->node_id, idx);
	return ddsm_space_home_unit(s, ddsm_space_pred_of(s, s->node_id),
				    idx - own);
}

int ddsm_space_check_range(const struct ddsm_space *s, u64 off, u64 len)
{
	if (!len || (off & (DDSM_PROTO_UNIT_SIZE - 1)) ||
	    (len & (DDSM_PROTO_UNIT_SIZE - 1)))
		return -EINVAL;
	if (off >= s->size || len > s->size - off)
		return -ENXIO;
	return 0;
}
