/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside durable/: what the backup homes' files share (replica.c,
 * replica_home.c, takeover.c).  Nothing outside durable/ includes it.
 * replica.c calls the other two, takeover.c calls neither, so the three
 * make no circle (tools/layout-check.py).
 */
#ifndef DDSM_DURABLE_REPLICA_H
#define DDSM_DURABLE_REPLICA_H

#include "../node/node.h"

static inline bool replica_seq_reached(u32 acked, u32 ticket)
{
	return (s32)(acked - ticket) >= 0;
}

static inline bool replica_enabled(const struct ddsm_node *n)
{
	return n->space.nr_backups && n->space.nr_nodes >= 2;
}

static inline u32 replica_backup(const struct ddsm_node *n)
{
	return ddsm_space_backup_of(&n->space, n->space.node_id);
}

static inline u32 replica_pred(const struct ddsm_node *n)
{
	return ddsm_space_pred_of(&n->space, n->space.node_id);
}

static inline bool replica_peer_up(struct ddsm_node *n, u32 node)
{
	enum ddsm_peer_state st;

	if (!n->tp)
		return false;
	st = ddsm_transport_peer_state(n->tp, node);
	return st == DDSM_PEER_UP || st == DDSM_PEER_SELF;
}

static inline int replica_send_simple(struct ddsm_node *n, u8 type, u32 dst, u32 seq,
				      u64 copyset, u8 err)
{
	struct ddsm_msg m = {
		.type = type,
		.err = err,
		.src = (u16)n->space.node_id,
		.dst = (u16)dst,
		.requester = type == DDSM_MSG_REPLICA_ACK ? (u16)dst :
			     (u16)n->space.node_id,
		.seq = seq,
		.copyset = copyset,
	};

	return ddsm_node_send(n, &m, NULL);
}

/*
 * Queue @w unless unloading.  Under r->lock, where quiesce sets
 * stopping before it cancels the works: once it has, nothing is queued
 * again to run on a transport or state being torn down.
 */
static inline void replica_queue(struct ddsm_replica *r, struct work_struct *w)
{
	spin_lock(&r->lock);
	if (!r->stopping)
		queue_work(system_unbound_wq, w);
	spin_unlock(&r->lock);
}

/* replica_home.c */
/*
 * Go on without the backup: what the home promises is durable here only
 * until a resync is through.  @lost: images may be missing there.
 */
void ddsm_replica_degrade(struct ddsm_node *n, const char *why, bool lost);
/* The backup's REPLICA_ACK. */
void ddsm_replica_acked(struct ddsm_node *n, const struct ddsm_msg *m);

/* takeover.c */
void ddsm_replica_holding_timeout(struct work_struct *w);
void ddsm_replica_takeover_work(struct work_struct *w);
/* @node handed over what it had (or died): maybe serve now. */
void ddsm_replica_copies_done(struct ddsm_node *n, u32 node);
/* Tell @dst whether this node serves its predecessor's units. */
void ddsm_replica_notice(struct ddsm_node *n, u32 dst);
/* A FAILOVER notice from a peer. */
void ddsm_replica_notice_rx(struct ddsm_node *n, const struct ddsm_msg *m);

#endif /* DDSM_DURABLE_REPLICA_H */
