/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Credit rules of the RDMA transport.  Pure, so that KUnit can drive two
 * simulated peers through every schedule and check that they never wedge.
 *
 * A side may post a SEND only against a receive the other side has
 * posted: @credits is how many it may still send, @owed how many receives
 * it has reposted and not yet reported.  Every message reports @owed.
 *
 * Why two peers can never wait for each other for ever:
 *  - protocol messages leave RDMA_CREDIT_RESERVE credits unused, so
 *    control messages (credit returns, heartbeats) always find one, and
 *    they never queue behind protocol messages;
 *  - a side that owes RDMA_CREDIT_RETURN or more returns them with a
 *    control message as soon as it holds a credit;
 *  - the last credit is spent only on a message that returns credits.
 * With nothing in flight, credits(A) + owed(B) = RDMA_RX_DEPTH: if A has
 * no credit, B owes the whole ring; if B has none either, A owes it, and
 * the last message either sent returned credits, so one of them holds a
 * credit and must return what it owes.
 */
#ifndef DDSM_NET_RDMA_CREDIT_H
#define DDSM_NET_RDMA_CREDIT_H

#include <linux/types.h>

#define RDMA_RX_DEPTH		32	/* receives posted per connection */
#define RDMA_CREDIT_RESERVE	2	/* credits only control messages use */
#define RDMA_CREDIT_RETURN	(RDMA_RX_DEPTH / 2)

/* May a protocol message be posted with @credits left? */
static inline bool rdma_credit_may_send_msg(u32 credits)
{
	return credits > RDMA_CREDIT_RESERVE;
}

/*
 * Does a control message need to go?  @idle: nothing was sent for a
 * heartbeat interval, so the peer needs proof that we are alive.
 */
static inline bool rdma_credit_want_ctrl(u32 owed, bool idle)
{
	return owed >= RDMA_CREDIT_RETURN || idle;
}

/* May a control message that reports @owed be posted with @credits left? */
static inline bool rdma_credit_may_send_ctrl(u32 credits, u32 owed)
{
	return credits > 1 || (credits == 1 && owed > 0);
}

#endif /* DDSM_NET_RDMA_CREDIT_H */
