/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Coherence messages: the in-memory form the protocol works on, the wire
 * form the transport carries, and the validator every received message
 * passes before anything trusts it.
 *
 * Requests flow requester -> home (READ_MISS, WRITE_MISS, WRITE_SHARED,
 * EVICT_SHARED, EVICT_MODIFIED, UNLOCK) and owner -> home (WRITEBACK).
 * Home forwards to caches (INV, FETCH, FETCH_INV) and answers requesters
 * (ACK, EVICT_ACK, NACK); caches answer requesters with ACK.  PERSIST
 * (requester -> home) and PERSIST_ACK (home -> requester) carry a Scope
 * barrier and stay outside the coherence protocol.  Every message
 * of one coherence event carries the requester's (requester, seq) so that
 * the requester can match the ACKs it collects.
 */
#ifndef DDSM_PROTO_MSG_H
#define DDSM_PROTO_MSG_H

#include "../lib/shim.h"
#include "space.h"

enum ddsm_msg_type {
	DDSM_MSG_INVALID = 0,
	DDSM_MSG_READ_MISS,	/* I -> S request */
	DDSM_MSG_WRITE_MISS,	/* I -> M request */
	DDSM_MSG_WRITE_SHARED,	/* S -> M upgrade request */
	DDSM_MSG_EVICT_SHARED,	/* drop a clean copy */
	DDSM_MSG_EVICT_MODIFIED,/* drop a dirty copy, carries the data */
	DDSM_MSG_UNLOCK,	/* requester finished its event */
	DDSM_MSG_WRITEBACK,	/* old owner's data for home: M -> S, FETCH_INV+WB */
	DDSM_MSG_INV,		/* home -> sharer: drop your copy, ACK requester */
	DDSM_MSG_FETCH,		/* home -> owner: send data, write back, keep S */
	DDSM_MSG_FETCH_INV,	/* home -> owner: send data, drop your copy */
	DDSM_MSG_ACK,		/* to requester, maybe with data */
	DDSM_MSG_EVICT_ACK,	/* home -> evicting node: frame may go */
	DDSM_MSG_NACK,		/* home -> requester: event refused, @err */
	/*
	 * Persistence (MINOS's persist messages, apart from coherence): a
	 * node's Scope barrier asks a unit's home to make its image durable
	 * and waits for the answer, @err 0 or why not.  No coherence state
	 * changes with them.
	 */
	DDSM_MSG_PERSIST,	/* requester -> home */
	DDSM_MSG_PERSIST_ACK,	/* home -> requester, @err */
	/*
	 * A node to itself: serve the FETCH or FETCH_INV a hand-off's held
	 * line kept (cache.h), now that the hold is over.  Through the
	 * node's own loopback, so that it runs where the receive path runs.
	 */
	DDSM_MSG_RUN_DEFERRED,
	/*
	 * Backup homes (nr_backups = 1), persistence messages too.  REPLICA
	 * carries a unit image its home made durable, @copyset its timestamp,
	 * @seq the home's replica sequence; the backup answers REPLICA_ACK
	 * (@seq, @err) once it is durable there.  REPLICA_SYNC ends a resync:
	 * every image the home holds came before it.  FAILOVER (@copyset: the
	 * sender took over its predecessor if that node's bit is set) goes
	 * from a node to each peer that comes up and, at a takeover, to every
	 * live node; COPIES_DONE follows a node's dirty copies of the units
	 * taken over, to the backup that took them.
	 */
	DDSM_MSG_REPLICA,	/* home -> backup, data */
	DDSM_MSG_REPLICA_ACK,	/* backup -> home, @err */
	DDSM_MSG_REPLICA_SYNC,	/* home -> backup */
	DDSM_MSG_FAILOVER,	/* any -> any */
	DDSM_MSG_COPIES_DONE,	/* any -> the backup that took over */
	/*
	 * HADES transactions (tx/, the coordinator and the home), apart from
	 * coherence: @copyset is the transaction id (txid.h), whose node is
	 * the coordinator; @unit one homed at the home involved; @seq the
	 * coordinator's request number.  TX_READ's @acks holds the first
	 * and last line read, inside @unit (first | last << 8).
	 */
	DDSM_MSG_TX_READ,	/* coordinator -> home */
	DDSM_MSG_TX_READ_REPLY,	/* home -> coordinator, data, or @err */
	DDSM_MSG_TX_INTEND,	/* coordinator -> home, data: txpack.h */
	DDSM_MSG_TX_ACK,	/* home -> coordinator: partial lock taken */
	DDSM_MSG_TX_NACK,	/* home -> coordinator, @err */
	DDSM_MSG_TX_VALIDATE,	/* coordinator -> home: apply, unlock */
	DDSM_MSG_TX_ABORT,	/* coordinator -> home: forget it */
	DDSM_MSG_TX_SQUASH,	/* home -> coordinator: doomed */
	/*
	 * A survivor holding a dead coordinator's commit locked asks the
	 * other participants what became of it (txhome.h, verdict): @unit
	 * is one homed at the asker, @acks the answer (enum
	 * ddsm_txh_outcome).
	 */
	DDSM_MSG_TX_QUERY,	/* participant -> participant */
	DDSM_MSG_TX_OUTCOME,	/* participant -> the asker, @acks */
	/*
	 * READV's reads at one home at once: the entries (data, txbatch.h)
	 * served in order as TX_READs; the answer's data holds each one's
	 * errno and the lines of those that succeeded, or @err says why
	 * none was served.  @unit: the first entry's.
	 */
	DDSM_MSG_TX_READ_MANY,		/* coordinator -> home, data */
	DDSM_MSG_TX_READ_MANY_REPLY,	/* home -> coordinator, data, or @err */
	DDSM_MSG_NR,
};

/* Message flags. */
#define DDSM_MF_DATA	0x01	/* a unit of data travels with the message */
#define DDSM_MF_GRANT	0x02	/* home's own ACK: @copyset = the others that ACK */
/*
 * Migratory sharing (dir.h): EXCL on home's grant of a READ_MISS hands the
 * reader the unit in M; CLEAN on an owner's data ACK says its exclusive
 * read copy was never written, and the requester's UNLOCK passes it on.
 */
#define DDSM_MF_EXCL	0x04
#define DDSM_MF_CLEAN	0x08
/*
 * WB on a FETCH_INV: write the data back to home as well as to the
 * requester.  Units whose persistency model makes every transfer durable
 * (Read-Enforced, Synchronous, Strict) need the data at home to persist it.
 */
#define DDSM_MF_WB	0x10
/*
 * HANDOFF: home itself owns the unit and hands it on (dir.h, "Hand-off").
 * On home's grant: the requester sends no UNLOCK.  On the FETCH_INV to
 * home's own cache: that cache ends the event for the requester with an
 * UNLOCK of its own (requester = the remote node) once its data is out.
 */
#define DDSM_MF_HANDOFF	0x20
/* PIN on a TX_READ: the pessimistic fallback's read (txhome.h, pin). */
#define DDSM_MF_PIN	0x40
#define DDSM_MF_ALL	(DDSM_MF_DATA | DDSM_MF_GRANT | DDSM_MF_EXCL | \
			 DDSM_MF_CLEAN | DDSM_MF_WB | DDSM_MF_HANDOFF | \
			 DDSM_MF_PIN)

/* Global states, as kept by the directory and reported in messages. */
enum ddsm_gstate {
	DDSM_G_U = 0,	/* unshared: only home memory holds the unit */
	DDSM_G_S = 1,	/* shared: copyset holds clean copies */
	DDSM_G_M = 2,	/* modified: owner holds the only, dirty copy */
};

struct ddsm_msg {
	u8 type;
	u8 flags;
	u8 state;	/* informational global state */
	u8 err;		/* NACK: positive errno */
	u16 src;
	u16 dst;
	u16 requester;	/* node whose event this message belongs to */
	u16 acks;	/* ACKs the requester collects in all, this one included */
	u32 seq;	/* requester's event number */
	u64 unit;
	u64 copyset;
};

/* Wire form: little endian, fixed size, reserved bytes must be zero. */
struct ddsm_wire_msg {
	u8 magic;
	u8 type;
	u8 flags;
	u8 state;
	u8 err;
	u8 version;
	__le16 src;
	__le16 dst;
	__le16 requester;
	__le16 acks;
	__le16 reserved0;
	__le32 seq;
	__le32 reserved1;
	__le64 unit;
	__le64 copyset;
};

#define DDSM_WIRE_MAGIC		0xd5
#define DDSM_WIRE_VERSION	1
#define DDSM_WIRE_SIZE		sizeof(struct ddsm_wire_msg)

/* Why a received message was refused; counted per reason. */
enum ddsm_msg_verdict {
	DDSM_MSG_OK = 0,
	DDSM_MSG_BAD_LENGTH,
	DDSM_MSG_BAD_HEADER,	/* magic, version, reserved bytes */
	DDSM_MSG_BAD_TYPE,
	DDSM_MSG_BAD_FLAGS,
	DDSM_MSG_BAD_NODE,	/* src, dst or requester out of range or wrong */
	DDSM_MSG_BAD_UNIT,
	DDSM_MSG_BAD_FIELD,	/* state, acks, copyset, err out of range */
	DDSM_MSG_VERDICT_NR,
};

void ddsm_msg_encode(const struct ddsm_msg *m, struct ddsm_wire_msg *w);

/*
 * Decode @len bytes at @buf received from transport peer @from into @m and
 * check it against the space and this node.  Returns DDSM_MSG_OK or the
 * reason to drop it; @m is meaningful only on DDSM_MSG_OK.
 */
enum ddsm_msg_verdict ddsm_msg_decode(const struct ddsm_space *s, u32 from,
				      const void *buf, u32 len,
				      struct ddsm_msg *m);

/* Does @type go to the home side (directory) rather than the cache side? */
static inline bool ddsm_msg_to_home(u8 type)
{
	return type >= DDSM_MSG_READ_MISS && type <= DDSM_MSG_WRITEBACK;
}

/* PERSIST or PERSIST_ACK: handled apart from directory and cache. */
static inline bool ddsm_msg_is_persist(u8 type)
{
	return type == DDSM_MSG_PERSIST || type == DDSM_MSG_PERSIST_ACK;
}

/* The backup homes' messages: handled apart too (durable/replica.c). */
static inline bool ddsm_msg_is_replica(u8 type)
{
	return type >= DDSM_MSG_REPLICA && type <= DDSM_MSG_COPIES_DONE;
}

/* HADES transactions: handled apart too (tx/, the coordinator and the home). */
static inline bool ddsm_msg_is_tx(u8 type)
{
	return type >= DDSM_MSG_TX_READ &&
	       type <= DDSM_MSG_TX_READ_MANY_REPLY;
}

/* ... and of those, the ones a home serves. */
static inline bool ddsm_msg_tx_to_home(u8 type)
{
	return type == DDSM_MSG_TX_READ || type == DDSM_MSG_TX_INTEND ||
	       type == DDSM_MSG_TX_VALIDATE || type == DDSM_MSG_TX_ABORT ||
	       type == DDSM_MSG_TX_QUERY || type == DDSM_MSG_TX_OUTCOME ||
	       type == DDSM_MSG_TX_READ_MANY;
}

/* TX_READ's lines inside its unit. */
#define DDSM_TX_LINES_PER_UNIT	64
static inline u16 ddsm_tx_read_lines(u32 first, u32 last)
{
	return (u16)(first | last << 8);
}

/*
 * Is @len bytes of data right for @m, decoded and valid?  A unit of the
 * coherence protocol travels whole; a TX_READ_REPLY carries just the
 * lines it names (@acks, as TX_READ's), packed from the page's start;
 * a TX_INTEND what its payload uses (txpack.h checks that), and the
 * batched reads theirs (txbatch.h).
 */
bool ddsm_msg_data_len_ok(const struct ddsm_msg *m, u32 len);

const char *ddsm_msg_type_name(u8 type);
const char *ddsm_msg_verdict_name(enum ddsm_msg_verdict v);

#endif /* DDSM_PROTO_MSG_H */
