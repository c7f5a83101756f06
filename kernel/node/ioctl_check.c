// SPDX-License-Identifier: GPL-2.0
#include <linux/errno.h>
#include <linux/string.h>
#include "ioctl_check.h"

int ddsm_check_peer_arg(const struct ddsm_peer_info *p, u32 nr_nodes)
{
	if (p->flags)
		return -EINVAL;
	if (p->index >= nr_nodes)
		return -ERANGE;
	return 0;
}

int ddsm_check_config_arg(const struct ddsm_config *c)
{
	if (c->flags || !memchr(c->nodes, '\0', sizeof(c->nodes)))
		return -EINVAL;
	if (c->node_id >= DDSM_MAX_NODES)
		return -ERANGE;
	return 0;
}

int ddsm_check_home_arg(const struct ddsm_home_query *q,
			const struct ddsm_space *s)
{
	if (q->flags || q->reserved)
		return -EINVAL;
	if (q->gaddr >= s->size)
		return -ERANGE;
	return 0;
}

/* A unit-aligned, non-empty range inside the space. */
static int check_unit_range(const struct ddsm_space *s, u64 gaddr, u64 len)
{
	if (!len || (gaddr | len) & (DDSM_UNIT_SIZE - 1))
		return -EINVAL;
	if (gaddr >= s->size || len > s->size - gaddr)
		return -ERANGE;
	return 0;
}

int ddsm_check_persist_arg(const struct ddsm_persist_arg *a,
			   const struct ddsm_space *s)
{
	if ((a->flags & ~DDSM_PERSIST_ALL) || a->reserved)
		return -EINVAL;
	return check_unit_range(s, a->gaddr, a->len);
}

int ddsm_check_region_arg(const struct ddsm_region_arg *a,
			  const struct ddsm_space *s)
{
	/* Backups are per node (module parameter nr_backups), not per region. */
	if ((a->flags & ~DDSM_REGION_GET) || a->reserved ||
	    (a->nr_backups && a->nr_backups != s->nr_backups))
		return -EINVAL;
	if (a->flags & DDSM_REGION_GET)
		return a->gaddr < s->size ? 0 : -ERANGE;
	if (a->model > DDSM_MODEL_SCOPE)
		return -EINVAL;
	return check_unit_range(s, a->gaddr, a->len);
}

int ddsm_check_mmap_arg(const struct ddsm_space *s, bool shared, bool exec,
			u64 off, u64 len)
{
	/* A private COW copy would escape coherence. */
	if (!shared)
		return -EINVAL;
	if (exec)
		return -EPERM;
	return ddsm_space_check_range(s, off, len);
}
