// SPDX-License-Identifier: GPL-2.0
#include "txfate.h"

void ddsm_txmem_note(struct ddsm_txmem *m, u32 epoch, bool committed)
{
	s32 d = (s32)(epoch - m->top);

	if (!epoch)
		return;
	if (!m->top || d > 0) {
		if (m->top && d < DDSM_TXMEM_SPAN) {
			m->decided <<= d;
			m->committed <<= d;
		} else {
			m->decided = 0;
			m->committed = 0;
		}
		m->top = epoch;
		d = 0;
	} else if (-d >= DDSM_TXMEM_SPAN) {
		return;		/* too old to keep */
	}
	m->decided |= BIT_ULL(-d);
	if (committed)
		m->committed |= BIT_ULL(-d);
	else
		m->committed &= ~BIT_ULL(-d);
}

enum ddsm_txf_coord ddsm_txmem_answer(const struct ddsm_txmem *m, u32 epoch,
				      u32 running)
{
	s32 d = (s32)(epoch - m->top);

	if (!epoch)
		return DDSM_TXF_C_NONE;
	if (epoch == running)
		return DDSM_TXF_C_RUNNING;
	if (!m->top || d > 0 || -d >= DDSM_TXMEM_SPAN ||
	    !(m->decided & BIT_ULL(-d)))
		return DDSM_TXF_C_NONE;
	return m->committed & BIT_ULL(-d) ? DDSM_TXF_C_COMMITTED :
					     DDSM_TXF_C_ABORTED;
}

static void settle(struct ddsm_txdoubt *d)
{
	if (d->verdict == DDSM_TXH_V_WAIT && !(d->need & ~d->locked))
		d->verdict = DDSM_TXH_V_FORWARD;
}

void ddsm_txd_start(struct ddsm_txdoubt *d, u64 participants, u32 self,
		    u32 coord)
{
	u64 me = self < 64 ? BIT_ULL(self) : 0;
	u64 c = coord < 64 ? BIT_ULL(coord) : 0;

	d->need = participants & ~me & ~c;
	d->ask = (participants | c) & ~me;
	d->locked = 0;
	d->verdict = DDSM_TXH_V_WAIT;
	settle(d);
}

enum ddsm_txh_verdict ddsm_txd_take(struct ddsm_txdoubt *d, u32 from,
				    u8 home, u8 coord)
{
	if (from >= 64 || !(d->ask & BIT_ULL(from)) ||
	    d->verdict != DDSM_TXH_V_WAIT)
		return (enum ddsm_txh_verdict)d->verdict;
	if (home == DDSM_TXH_O_VALIDATED || coord == DDSM_TXF_C_COMMITTED)
		d->verdict = DDSM_TXH_V_FORWARD;
	else if (home == DDSM_TXH_O_NOT || coord == DDSM_TXF_C_ABORTED)
		d->verdict = DDSM_TXH_V_BACK;
	else if (home == DDSM_TXH_O_LOCKED || home == DDSM_TXH_O_IN_DOUBT)
		d->locked |= BIT_ULL(from);
	settle(d);
	return (enum ddsm_txh_verdict)d->verdict;
}
