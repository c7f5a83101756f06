// SPDX-License-Identifier: GPL-2.0
#include "takeover.h"

static u64 node_bit(u32 n)
{
	return n < DDSM_TKO_MAX_NODES ? BIT_ULL(n) : 0;
}

void ddsm_tko_init(struct ddsm_tko_view *v, u32 home, u32 backup)
{
	memset(v, 0, sizeof(*v));
	v->epoch = 1;
	v->owner = (u16)home;
	v->backup = (u16)backup;
	v->established = true;
}

enum ddsm_tko_check ddsm_tko_check(const struct ddsm_tko_view *v, u32 epoch,
				   u32 from)
{
	if (epoch > v->epoch)
		return DDSM_TKO_AHEAD;
	if (epoch == v->epoch && from == v->owner)
		return DDSM_TKO_ACCEPT;
	return DDSM_TKO_STALE;
}

enum ddsm_tko_kind ddsm_tko_may_propose(const struct ddsm_tko_view *v,
					u32 self, u64 down)
{
	if (!v->established || v->backup == DDSM_TKO_NONE)
		return DDSM_TKO_K_NONE;
	if (v->backup == self && (down & node_bit(v->owner)))
		return DDSM_TKO_K_TAKEOVER;
	if (v->owner == self && (down & node_bit(v->backup)))
		return DDSM_TKO_K_DEGRADE;
	return DDSM_TKO_K_NONE;
}

int ddsm_tko_propose(struct ddsm_tko_view *v, struct ddsm_tko_tally *t,
		     u32 self, u64 down)
{
	if (ddsm_tko_may_propose(v, self, down) == DDSM_TKO_K_NONE)
		return -EPERM;
	v->epoch++;
	v->owner = (u16)self;
	v->backup = DDSM_TKO_NONE;
	v->established = false;
	t->epoch = v->epoch;
	t->seq = 0;
	t->yes = node_bit(self);
	return 0;
}

bool ddsm_tko_vote(struct ddsm_tko_view *v, u32 epoch, u32 cand, u32 self,
		   u64 down)
{
	bool grant;

	if (cand == self)
		return false;
	if (epoch == v->epoch && cand == v->owner)
		return true;	/* asked again */
	if (epoch != v->epoch + 1 || !v->established ||
	    v->backup == DDSM_TKO_NONE)
		return false;
	if (cand == v->backup)		/* a takeover */
		grant = v->owner != self && (down & node_bit(v->owner));
	else				/* a degrade */
		grant = cand == v->owner;
	if (!grant)
		return false;
	v->epoch = epoch;
	v->owner = (u16)cand;
	v->backup = DDSM_TKO_NONE;
	v->established = false;
	return true;
}

bool ddsm_tko_count(struct ddsm_tko_view *v, struct ddsm_tko_tally *t,
		    u32 self, u32 epoch, u32 from, u32 nodes)
{
	if (v->established || v->owner != self || v->epoch != epoch ||
	    t->epoch != epoch)
		return false;
	t->yes |= node_bit(from);
	if (hweight64(t->yes) < ddsm_tko_majority(nodes))
		return false;
	v->established = true;
	return true;
}

void ddsm_tko_notice(struct ddsm_tko_view *v, u32 epoch, u32 owner,
		     u32 backup)
{
	if (epoch < v->epoch || (epoch == v->epoch && v->established))
		return;
	v->epoch = epoch;
	v->owner = (u16)owner;
	v->backup = (u16)backup;
	v->established = true;
}

void ddsm_tko_ack_start(struct ddsm_tko_tally *t,
			const struct ddsm_tko_view *v, u32 self, u32 seq)
{
	t->epoch = v->epoch;
	t->seq = seq;
	t->yes = node_bit(self);
}

void ddsm_tko_ack_take(struct ddsm_tko_tally *t, u32 epoch, u32 seq,
		       u32 from)
{
	if (epoch == t->epoch && (s32)(seq - t->seq) >= 0)
		t->yes |= node_bit(from);
}

bool ddsm_tko_may_ack(const struct ddsm_tko_view *v,
		      const struct ddsm_tko_tally *t, u32 self, u32 nodes)
{
	if (!ddsm_tko_serving(v, self) || t->epoch != v->epoch)
		return false;
	if (hweight64(t->yes) < ddsm_tko_majority(nodes))
		return false;
	return v->backup == DDSM_TKO_NONE || (t->yes & node_bit(v->backup));
}
