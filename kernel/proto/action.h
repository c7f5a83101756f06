/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the protocol asks the rest of the module to do.  The protocol code
 * never sleeps, allocates, maps or sends: it appends actions, and the
 * caller performs them in order once it has dropped its locks.  Order
 * matters: a ZAP before a SEND with data means no writer can touch the
 * frame while it is being copied.
 */
#ifndef DDSM_PROTO_ACTION_H
#define DDSM_PROTO_ACTION_H

#include "msg.h"

enum ddsm_act_type {
	DDSM_ACT_NONE = 0,	/* already carried out: skip */
	DDSM_ACT_SEND,	/* send @msg, with the local frame if DDSM_MF_DATA */
	DDSM_ACT_STORE,		/* the data that came with this message -> local frame */
	DDSM_ACT_ZAP,		/* remove every PTE of @unit on this node */
	DDSM_ACT_WAKE,		/* the event on @unit ended: wake its waiters */
	DDSM_ACT_FREE_FRAME,	/* this node no longer caches @unit */
	DDSM_ACT_HOLD,		/* @unit's UNLOCK waits for ddsm_cache_release */
	/*
	 * Send @msg once @unit's home image is durable: a grant of a unit
	 * whose model lets nobody see a version before it is on pmem.
	 */
	DDSM_ACT_SEND_DURABLE,
};

struct ddsm_action {
	u8 type;
	u64 unit;
	struct ddsm_msg msg;
};

struct ddsm_actions {
	struct ddsm_action *a;
	u32 n;
	u32 cap;
	u32 overflow;	/* actions that did not fit: a protocol bug */
};

/*
 * One grant sends at most an INV per node plus the grant itself, and a
 * drain after an UNLOCK grants at most one queued request per node.
 */
#define DDSM_MAX_ACTIONS	(3 * DDSM_PROTO_MAX_NODES + 8)

static inline void ddsm_actions_init(struct ddsm_actions *acts,
				     struct ddsm_action *buf, u32 cap)
{
	acts->a = buf;
	acts->n = 0;
	acts->cap = cap;
	acts->overflow = 0;
}

static inline struct ddsm_action *ddsm_act_add(struct ddsm_actions *acts,
					       u8 type, u64 unit)
{
	struct ddsm_action *act;

	if (acts->n >= acts->cap) {
		acts->overflow++;
		return NULL;
	}
	act = &acts->a[acts->n++];
	memset(act, 0, sizeof(*act));
	act->type = type;
	act->unit = unit;
	return act;
}

static inline void ddsm_act_send(struct ddsm_actions *acts,
				 const struct ddsm_msg *m)
{
	struct ddsm_action *act = ddsm_act_add(acts, DDSM_ACT_SEND, m->unit);

	if (act)
		act->msg = *m;
}

static inline void ddsm_act_send_durable(struct ddsm_actions *acts,
					 const struct ddsm_msg *m)
{
	struct ddsm_action *act = ddsm_act_add(acts, DDSM_ACT_SEND_DURABLE,
					       m->unit);

	if (act)
		act->msg = *m;
}

#endif /* DDSM_PROTO_ACTION_H */
