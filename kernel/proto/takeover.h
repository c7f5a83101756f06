/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One home per unit, always (issue 34): who may serve home h's units,
 * as a fenced epoch.  Not used by the kernel yet; modelled and checked by
 * tools/model/takeover.c (docs/model-checker.md "Takeover").
 *
 * The units homed on h form a group with a configuration per epoch: the
 * owner that serves them and its backup (none after a takeover or a
 * degrade).  Epoch 1 is (h, b).  Every node keeps its view of the group's
 * epoch, durable before it answers for it.  An epoch changes only by a
 * vote of a majority of the configured nodes, and each node votes at most
 * once per epoch (its view moves to the new epoch when it votes), so at
 * most one configuration wins each epoch:
 *  - takeover: the backup of epoch E, which believes the owner dead, asks
 *    for E + 1 with itself alone; a voter grants it only if it too
 *    believes the owner dead;
 *  - degrade: the owner of epoch E, which believes its backup dead, asks
 *    for E + 1 with itself alone (so that it may promise without the
 *    backup); a voter grants it without more.
 * A node refuses every message tagged with an epoch older than its view,
 * so a voter is fenced against the old owner the moment it votes.
 *
 * A write is acknowledged only when the owner's epoch is still the view
 * of a majority and of the epoch's backup, which stored it: the owner
 * sends the image to every node tagged with its epoch, each answers OK
 * only while its view is that epoch with that owner, and the backup
 * stores the image before it answers.  A takeover needs a majority that
 * moved past the epoch, so once it won no write of the old epoch can get
 * a majority, and every write acknowledged before is in the backup's
 * image.  A home that cannot reach a majority acknowledges nothing; a
 * paused home that resumes with its old view finds the fence in its
 * peers, not in its own clock.
 *
 * Pure code: the caller keeps the view durable, sends and serialises.
 */
#ifndef DDSM_PROTO_TAKEOVER_H
#define DDSM_PROTO_TAKEOVER_H

#include "../lib/shim.h"

#define DDSM_TKO_NONE		0xffffU	/* no backup */
#define DDSM_TKO_MAX_NODES	64	/* nodes a mask can name */

/* A node's view of one group's epoch. */
struct ddsm_tko_view {
	u32 epoch;		/* the first is 1 */
	u16 owner;		/* the node that serves the epoch */
	u16 backup;		/* its backup, DDSM_TKO_NONE: none */
	bool established;	/* the epoch won its vote (as far as we know) */
};

/*
 * Votes for a candidate epoch, or the OKs of one write's image: an image
 * carries the sequence number of the owner's last write in it, and an OK
 * names the image it answers, so that an OK for an older image (which
 * lacks the write) is never counted for a newer write.
 */
struct ddsm_tko_tally {
	u32 epoch;
	u32 seq;		/* OKs: the write's sequence number */
	u64 yes;		/* nodes that said yes */
};

/* What a node does with a message tagged with an epoch of the group. */
enum ddsm_tko_check {
	DDSM_TKO_ACCEPT = 0,	/* the epoch of the view, from its owner */
	DDSM_TKO_STALE,		/* an older epoch, or another owner's: refuse */
	DDSM_TKO_AHEAD,		/* an epoch not known here yet: refuse */
};

/* Why a node may ask for the next epoch. */
enum ddsm_tko_kind {
	DDSM_TKO_K_NONE = 0,
	DDSM_TKO_K_TAKEOVER,	/* the backup, the owner believed dead */
	DDSM_TKO_K_DEGRADE,	/* the owner, the backup believed dead */
};

static inline u32 ddsm_tko_majority(u32 nodes)
{
	return nodes / 2 + 1;
}

/* Epoch 1: @home serves, @backup (or DDSM_TKO_NONE) keeps its copy. */
void ddsm_tko_init(struct ddsm_tko_view *v, u32 home, u32 backup);

/* May node @self serve the group (grant, apply writes) in its view? */
static inline bool ddsm_tko_serving(const struct ddsm_tko_view *v, u32 self)
{
	return v->established && v->owner == self;
}

/* A message tagged @epoch from @from: the owner's messages to the group. */
enum ddsm_tko_check ddsm_tko_check(const struct ddsm_tko_view *v, u32 epoch,
				   u32 from);

/*
 * May node @self, whose peers @down (bit n: node n) are believed dead,
 * ask for the next epoch, and why.
 */
enum ddsm_tko_kind ddsm_tko_may_propose(const struct ddsm_tko_view *v,
					u32 self, u64 down);

/*
 * Ask for the next epoch: the view moves to it (the candidate votes for
 * itself and from now on refuses the old epoch), @t counts its votes.
 * -EPERM when ddsm_tko_may_propose() says no.
 */
int ddsm_tko_propose(struct ddsm_tko_view *v, struct ddsm_tko_tally *t,
		     u32 self, u64 down);

/*
 * Node @self, whose peers @down are believed dead, is asked by @cand for
 * @epoch.  Returns whether it grants the vote; granting moves the view to
 * @epoch (to be made durable before the answer leaves).  The same
 * candidate asking again for the epoch it was granted is granted again.
 */
bool ddsm_tko_vote(struct ddsm_tko_view *v, u32 epoch, u32 cand, u32 self,
		   u64 down);

/*
 * A vote for @epoch from @from, counted by candidate @self of @nodes
 * configured nodes.  Returns true when it wins the epoch with this vote:
 * the view is established, and the caller tells every node.
 */
bool ddsm_tko_count(struct ddsm_tko_view *v, struct ddsm_tko_tally *t,
		    u32 self, u32 epoch, u32 from, u32 nodes);

/*
 * The winner of @epoch told us: @owner serves it, with @backup.  An older
 * epoch changes nothing.
 */
void ddsm_tko_notice(struct ddsm_tko_view *v, u32 epoch, u32 owner,
		     u32 backup);

/*
 * The owner @self starts counting the OKs of its image with write @seq
 * (and every write before it) in it.
 */
void ddsm_tko_ack_start(struct ddsm_tko_tally *t,
			const struct ddsm_tko_view *v, u32 self, u32 seq);

/*
 * An OK for @epoch from @from, answering the image up to write @seq: it
 * counts for every write up to @seq.
 */
void ddsm_tko_ack_take(struct ddsm_tko_tally *t, u32 epoch, u32 seq,
		       u32 from);

/*
 * May the owner @self of @nodes configured nodes acknowledge the write
 * whose OKs are @t: still serving the epoch, a majority said OK, and the
 * epoch's backup (which stored the image) is among them.
 */
bool ddsm_tko_may_ack(const struct ddsm_tko_view *v,
		      const struct ddsm_tko_tally *t, u32 self, u32 nodes);

/* A requester takes an acknowledgment only in the epoch it knows. */
static inline bool ddsm_tko_ack_current(const struct ddsm_tko_view *v,
					u32 epoch)
{
	return epoch == v->epoch;
}

#endif /* DDSM_PROTO_TAKEOVER_H */
