// SPDX-License-Identifier: GPL-2.0
#include "txcoord.h"

void ddsm_txc_begin(struct ddsm_txc *t, u16 node, u8 gen, u8 slot)
{
	u32 epoch = t->id.node == node && t->id.gen == gen &&
		    t->id.slot == slot ? t->id.epoch : 0;

	memset(t, 0, sizeof(*t));
	t->id.node = node;
	t->id.gen = gen;
	t->id.slot = slot;
	t->id.epoch = ddsm_txid_next_epoch(epoch);
	t->state = DDSM_TXC_RUNNING;
}

void ddsm_txc_touch(struct ddsm_txc *t, u32 home)
{
	if (home < 64)
		t->involved |= BIT_ULL(home);
}

int ddsm_txc_commit(struct ddsm_txc *t, u64 *intend_to)
{
	if (t->state != DDSM_TXC_RUNNING)
		return -EPROTO;
	*intend_to = t->involved;
	t->pending = t->involved;
	t->state = t->involved ? DDSM_TXC_COMMITTING : DDSM_TXC_COMMITTED;
	return 0;
}

static int aborted(struct ddsm_txc *t, u8 why)
{
	t->state = DDSM_TXC_ABORTED;
	t->why = why;
	t->pending = 0;
	t->resend = 0;
	return DDSM_TXC_ABORTED;
}

int ddsm_txc_answer(struct ddsm_txc *t, u64 txid, u32 home, bool ack)
{
	if (txid != ddsm_txid_pack(t->id) || home >= 64)
		return -EPROTO;
	/* Answers after an abort (to the Intends still out) are expected. */
	if (t->state == DDSM_TXC_ABORTED && (t->involved & BIT_ULL(home)))
		return DDSM_TXC_ABORTED;
	if (t->state != DDSM_TXC_COMMITTING ||
	    !(t->pending & BIT_ULL(home)))
		return -EPROTO;
	t->pending &= ~BIT_ULL(home);
	t->resend &= ~BIT_ULL(home);
	if (!ack)
		return aborted(t, DDSM_TXC_NACKED);
	if (!t->pending)
		t->state = DDSM_TXC_COMMITTED;
	return t->state;
}

int ddsm_txc_squash(struct ddsm_txc *t, u64 txid)
{
	if (txid != ddsm_txid_pack(t->id) || t->state == DDSM_TXC_ABORTED ||
	    t->state == DDSM_TXC_IDLE)
		return t->state;
	if (t->state == DDSM_TXC_COMMITTED)
		return -EPROTO;
	return aborted(t, DDSM_TXC_SQUASHED);
}

int ddsm_txc_abort(struct ddsm_txc *t)
{
	if (t->state != DDSM_TXC_RUNNING)
		return -EPROTO;
	return aborted(t, DDSM_TXC_USER);
}

int ddsm_txc_lost(struct ddsm_txc *t, u32 home)
{
	if (home >= 64 || !(t->involved & BIT_ULL(home)))
		return t->state;
	if (t->state == DDSM_TXC_RUNNING)
		return aborted(t, DDSM_TXC_LOST);
	if (t->state == DDSM_TXC_COMMITTING && (t->pending & BIT_ULL(home)))
		t->resend |= BIT_ULL(home);
	return t->state;
}

bool ddsm_txc_back(struct ddsm_txc *t, u32 home)
{
	if (home >= 64 || t->state != DDSM_TXC_COMMITTING ||
	    !(t->resend & BIT_ULL(home)))
		return false;
	t->resend &= ~BIT_ULL(home);
	return true;
}

bool ddsm_txc_fallback(u32 conflicts)
{
	return conflicts >= DDSM_TXC_SQUASH_LIMIT;
}
