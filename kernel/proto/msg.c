// SPDX-License-Identifier: GPL-2.0
#include "msg.h"
#include "txfate.h"
#include "txid.h"

void ddsm_msg_encode(const struct ddsm_msg *m, struct ddsm_wire_msg *w)
{
	memset(w, 0, sizeof(*w));
	w->magic = DDSM_WIRE_MAGIC;
	w->version = DDSM_WIRE_VERSION;
	w->type = m->type;
	w->flags = m->flags;
	w->state = m->state;
	w->err = m->err;
	w->src = cpu_to_le16(m->src);
	w->dst = cpu_to_le16(m->dst);
	w->requester = cpu_to_le16(m->requester);
	w->acks = cpu_to_le16(m->acks);
	w->seq = cpu_to_le32(m->seq);
	w->unit = cpu_to_le64(m->unit);
	w->copyset = cpu_to_le64(m->copyset);
}

/* Which types may carry a unit of data. */
static bool type_may_carry_data(u8 type)
{
	return type == DDSM_MSG_ACK || type == DDSM_MSG_WRITEBACK ||
	       type == DDSM_MSG_EVICT_MODIFIED || type == DDSM_MSG_REPLICA ||
	       type == DDSM_MSG_TX_READ_REPLY || type == DDSM_MSG_TX_INTEND ||
	       type == DDSM_MSG_TX_READ_MANY ||
	       type == DDSM_MSG_TX_READ_MANY_REPLY;
}

/* Which types must carry a unit of data. */
static bool type_needs_data(u8 type)
{
	return type == DDSM_MSG_WRITEBACK || type == DDSM_MSG_EVICT_MODIFIED ||
	       type == DDSM_MSG_REPLICA || type == DDSM_MSG_TX_INTEND ||
	       type == DDSM_MSG_TX_READ_MANY;
}

/*
 * Transactions: a request comes from the transaction's coordinator (the
 * node of its id) to the home of @unit; an answer from that home to the
 * coordinator.  A TX_READ names lines inside its unit; a reply carries
 * the data of the lines it names or says why not, never both.
 */
static bool tx_fits(const struct ddsm_space *s, const struct ddsm_msg *m,
		    u32 home)
{
	struct ddsm_txid id = ddsm_txid_unpack(m->copyset);
	u32 first = m->acks & 0xff, last = m->acks >> 8;

	if (!id.epoch || m->state)
		return false;
	/*
	 * Between a participant holding a commit in doubt and another one or
	 * the coordinator's node (txfate.h): a question says whether the
	 * asked node is a participant (@acks 1) and an answer carries its
	 * part and, from the coordinator's node, the coordinator's.
	 */
	if (m->type == DDSM_MSG_TX_QUERY || m->type == DDSM_MSG_TX_OUTCOME) {
		bool q = m->type == DDSM_MSG_TX_QUERY;

		if (m->err || (m->flags & DDSM_MF_DATA) ||
		    id.node >= s->nr_nodes)
			return false;
		if (q)
			return home == m->src && m->requester == m->src &&
			       m->acks <= 1;
		return home == s->node_id && m->requester == s->node_id &&
		       ddsm_txf_valid(m->acks);
	}
	if (m->requester != id.node)
		return false;
	if (ddsm_msg_tx_to_home(m->type)) {
		if (home != s->node_id || id.node != m->src)
			return false;
	} else if (home != m->src || id.node != s->node_id) {
		return false;
	}
	if (m->type == DDSM_MSG_TX_READ ||
	    (m->type == DDSM_MSG_TX_READ_REPLY && !m->err)) {
		if (first > last || last >= DDSM_TX_LINES_PER_UNIT)
			return false;
	} else if (m->acks) {
		return false;
	}
	if (m->type == DDSM_MSG_TX_NACK)
		return m->err;
	if (m->type == DDSM_MSG_TX_READ_REPLY ||
	    m->type == DDSM_MSG_TX_READ_MANY_REPLY)
		return !m->err != !(m->flags & DDSM_MF_DATA);
	return !m->err;
}

bool ddsm_msg_data_len_ok(const struct ddsm_msg *m, u32 len)
{
	u32 first = m->acks & 0xff, last = m->acks >> 8;

	switch (m->type) {
	case DDSM_MSG_TX_READ_REPLY:
		return len == (last - first + 1) << DDSM_LINE_SHIFT;
	case DDSM_MSG_TX_INTEND:
	case DDSM_MSG_TX_READ_MANY:
	case DDSM_MSG_TX_READ_MANY_REPLY:
		return len && len <= DDSM_PROTO_UNIT_SIZE;
	default:
		return len == DDSM_PROTO_UNIT_SIZE;
	}
}

/*
 * Node roles each type allows.  Requests come from their own requester;
 * forwards and home answers come from the unit's home; ACKs come from any
 * node and are addressed to the requester.
 */
static bool nodes_fit(const struct ddsm_space *s, const struct ddsm_msg *m,
		      u32 from)
{
	u32 home = ddsm_unit_home(s, m->unit);

	if (m->src != from || m->dst != s->node_id ||
	    m->src >= s->nr_nodes || m->requester >= s->nr_nodes)
		return false;

	switch (m->type) {
	case DDSM_MSG_READ_MISS:
	case DDSM_MSG_WRITE_MISS:
	case DDSM_MSG_WRITE_SHARED:
		/*
		 * Backup homes: a miss may still reach the node a unit is
		 * placed on after its backup took it over, from a node that
		 * did not know yet; it is refused with EAGAIN (node/rx.c).
		 */
		return (home == s->node_id ||
			(s->nr_backups &&
			 ddsm_unit_placed(s, m->unit) == s->node_id)) &&
		       m->requester == m->src;
	case DDSM_MSG_EVICT_SHARED:
	case DDSM_MSG_EVICT_MODIFIED:
		return home == s->node_id && m->requester == m->src;
	case DDSM_MSG_UNLOCK:
		/* Home's own cache ends a hand-off for its requester. */
		if (m->flags & DDSM_MF_HANDOFF)
			return home == s->node_id && m->src == home &&
			       m->requester != m->src;
		return home == s->node_id && m->requester == m->src;
	case DDSM_MSG_WRITEBACK:
		return home == s->node_id;
	case DDSM_MSG_INV:
	case DDSM_MSG_FETCH:
		return m->src == home;
	case DDSM_MSG_FETCH_INV:
		/* A hand-off's FETCH_INV goes to home's own cache only. */
		return m->src == home &&
		       (!(m->flags & DDSM_MF_HANDOFF) || m->dst == home);
	case DDSM_MSG_EVICT_ACK:
	case DDSM_MSG_NACK:
		return m->src == home && m->requester == s->node_id;
	case DDSM_MSG_ACK:
		return m->requester == s->node_id;
	case DDSM_MSG_PERSIST:
		return home == s->node_id && m->requester == m->src;
	case DDSM_MSG_PERSIST_ACK:
		return m->src == home && m->requester == s->node_id;
	case DDSM_MSG_RUN_DEFERRED:
		return m->src == s->node_id && m->requester == m->src &&
		       home != s->node_id;
	case DDSM_MSG_REPLICA:
		/* Images of units placed on the sender, to its backup only. */
		return s->nr_backups && m->requester == m->src &&
		       ddsm_unit_placed(s, m->unit) == m->src &&
		       ddsm_space_backup_of(s, m->src) == s->node_id;
	case DDSM_MSG_REPLICA_SYNC:
		return s->nr_backups && m->requester == m->src &&
		       ddsm_space_backup_of(s, m->src) == s->node_id;
	case DDSM_MSG_REPLICA_ACK:
		return s->nr_backups && m->requester == s->node_id &&
		       ddsm_space_backup_of(s, s->node_id) == m->src;
	case DDSM_MSG_FAILOVER:
		return s->nr_backups && m->requester == m->src &&
		       !(m->copyset & ~BIT_ULL(ddsm_space_pred_of(s, m->src)));
	case DDSM_MSG_COPIES_DONE:
		return s->nr_backups && m->requester == m->src;
	case DDSM_MSG_TX_READ ... DDSM_MSG_TX_READ_MANY_REPLY:
		return tx_fits(s, m, home);
	}
	return false;
}

static bool fields_fit(const struct ddsm_space *s, const struct ddsm_msg *m)
{
	u64 node_mask = s->nr_nodes >= 64 ? ~0ULL : BIT_ULL(s->nr_nodes) - 1;
	bool is_nack;

	if (m->state > DDSM_G_M)
		return false;
	/* Transactions: checked whole by nodes_fit (tx_fits). */
	if (ddsm_msg_is_tx(m->type))
		return true;
	/* A REPLICA's copyset is the image's timestamp. */
	if ((m->copyset & ~node_mask) && m->type != DDSM_MSG_REPLICA)
		return false;
	/* A requester collects at most one ACK per node plus home's grant. */
	if (m->acks > s->nr_nodes + 1)
		return false;
	if (m->type == DDSM_MSG_ACK && !m->acks)
		return false;
	/*
	 * A NACK needs a reason; a PERSIST_ACK may carry one; nothing else
	 * does.
	 */
	is_nack = m->type == DDSM_MSG_NACK;
	if (is_nack && !m->err)
		return false;
	if (m->err && !is_nack && m->type != DDSM_MSG_PERSIST_ACK &&
	    m->type != DDSM_MSG_REPLICA_ACK)
		return false;
	return true;
}

enum ddsm_msg_verdict ddsm_msg_decode(const struct ddsm_space *s, u32 from,
				      const void *buf, u32 len,
				      struct ddsm_msg *m)
{
	const struct ddsm_wire_msg *w = buf;

	if (len != DDSM_WIRE_SIZE)
		return DDSM_MSG_BAD_LENGTH;
	if (w->magic != DDSM_WIRE_MAGIC || w->version != DDSM_WIRE_VERSION ||
	    w->reserved0 || w->reserved1)
		return DDSM_MSG_BAD_HEADER;
	if (w->type == DDSM_MSG_INVALID || w->type >= DDSM_MSG_NR)
		return DDSM_MSG_BAD_TYPE;

	m->type = w->type;
	m->flags = w->flags;
	m->state = w->state;
	m->err = w->err;
	m->src = le16_to_cpu(w->src);
	m->dst = le16_to_cpu(w->dst);
	m->requester = le16_to_cpu(w->requester);
	m->acks = le16_to_cpu(w->acks);
	m->seq = le32_to_cpu(w->seq);
	m->unit = le64_to_cpu(w->unit);
	m->copyset = le64_to_cpu(w->copyset);

	if (m->flags & ~DDSM_MF_ALL)
		return DDSM_MSG_BAD_FLAGS;
	if ((m->flags & DDSM_MF_DATA) && !type_may_carry_data(m->type))
		return DDSM_MSG_BAD_FLAGS;
	if ((m->flags & DDSM_MF_GRANT) &&
	    (m->type != DDSM_MSG_ACK || m->src != ddsm_unit_home(s, m->unit)))
		return DDSM_MSG_BAD_FLAGS;
	if (!(m->flags & DDSM_MF_DATA) && type_needs_data(m->type))
		return DDSM_MSG_BAD_FLAGS;
	if ((m->flags & DDSM_MF_EXCL) && !(m->flags & DDSM_MF_GRANT))
		return DDSM_MSG_BAD_FLAGS;
	if ((m->flags & DDSM_MF_CLEAN) && m->type != DDSM_MSG_UNLOCK &&
	    (m->type != DDSM_MSG_ACK || (m->flags & DDSM_MF_GRANT) ||
	     !(m->flags & DDSM_MF_DATA)))
		return DDSM_MSG_BAD_FLAGS;
	if ((m->flags & DDSM_MF_WB) && m->type != DDSM_MSG_FETCH_INV)
		return DDSM_MSG_BAD_FLAGS;
	if ((m->flags & DDSM_MF_HANDOFF) && m->type != DDSM_MSG_FETCH_INV &&
	    m->type != DDSM_MSG_UNLOCK &&
	    (m->type != DDSM_MSG_ACK || !(m->flags & DDSM_MF_GRANT)))
		return DDSM_MSG_BAD_FLAGS;
	if ((m->flags & DDSM_MF_PIN) && m->type != DDSM_MSG_TX_READ)
		return DDSM_MSG_BAD_FLAGS;
	if (!ddsm_unit_valid(s, m->unit))
		return DDSM_MSG_BAD_UNIT;
	if (!nodes_fit(s, m, from))
		return DDSM_MSG_BAD_NODE;
	if (!fields_fit(s, m))
		return DDSM_MSG_BAD_FIELD;
	return DDSM_MSG_OK;
}

static const char *const type_names[DDSM_MSG_NR] = {
	[DDSM_MSG_INVALID] = "INVALID",
	[DDSM_MSG_READ_MISS] = "READ_MISS",
	[DDSM_MSG_WRITE_MISS] = "WRITE_MISS",
	[DDSM_MSG_WRITE_SHARED] = "WRITE_SHARED",
	[DDSM_MSG_EVICT_SHARED] = "EVICT_SHARED",
	[DDSM_MSG_EVICT_MODIFIED] = "EVICT_MODIFIED",
	[DDSM_MSG_UNLOCK] = "UNLOCK",
	[DDSM_MSG_WRITEBACK] = "WRITEBACK",
	[DDSM_MSG_INV] = "INV",
	[DDSM_MSG_FETCH] = "FETCH",
	[DDSM_MSG_FETCH_INV] = "FETCH_INV",
	[DDSM_MSG_ACK] = "ACK",
	[DDSM_MSG_EVICT_ACK] = "EVICT_ACK",
	[DDSM_MSG_NACK] = "NACK",
	[DDSM_MSG_PERSIST] = "PERSIST",
	[DDSM_MSG_PERSIST_ACK] = "PERSIST_ACK",
	[DDSM_MSG_RUN_DEFERRED] = "RUN_DEFERRED",
	[DDSM_MSG_REPLICA] = "REPLICA",
	[DDSM_MSG_REPLICA_ACK] = "REPLICA_ACK",
	[DDSM_MSG_REPLICA_SYNC] = "REPLICA_SYNC",
	[DDSM_MSG_FAILOVER] = "FAILOVER",
	[DDSM_MSG_COPIES_DONE] = "COPIES_DONE",
	[DDSM_MSG_TX_READ] = "TX_READ",
	[DDSM_MSG_TX_READ_REPLY] = "TX_READ_REPLY",
	[DDSM_MSG_TX_INTEND] = "TX_INTEND",
	[DDSM_MSG_TX_ACK] = "TX_ACK",
	[DDSM_MSG_TX_NACK] = "TX_NACK",
	[DDSM_MSG_TX_VALIDATE] = "TX_VALIDATE",
	[DDSM_MSG_TX_ABORT] = "TX_ABORT",
	[DDSM_MSG_TX_SQUASH] = "TX_SQUASH",
	[DDSM_MSG_TX_QUERY] = "TX_QUERY",
	[DDSM_MSG_TX_OUTCOME] = "TX_OUTCOME",
	[DDSM_MSG_TX_READ_MANY] = "TX_READ_MANY",
	[DDSM_MSG_TX_READ_MANY_REPLY] = "TX_READ_MANY_REPLY",
};

const char *ddsm_msg_type_name(u8 type)
{
	return type < DDSM_MSG_NR ? type_names[type] : "?";
}

static const char *const verdict_names[DDSM_MSG_VERDICT_NR] = {
	[DDSM_MSG_OK] = "ok",
	[DDSM_MSG_BAD_LENGTH] = "bad length",
	[DDSM_MSG_BAD_HEADER] = "bad header",
	[DDSM_MSG_BAD_TYPE] = "bad type",
	[DDSM_MSG_BAD_FLAGS] = "bad flags",
	[DDSM_MSG_BAD_NODE] = "bad node",
	[DDSM_MSG_BAD_UNIT] = "bad unit",
	[DDSM_MSG_BAD_FIELD] = "bad field",
};

const char *ddsm_msg_verdict_name(enum ddsm_msg_verdict v)
{
	return v < DDSM_MSG_VERDICT_NR ? verdict_names[v] : "?";
}
