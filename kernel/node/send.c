// SPDX-License-Identifier: GPL-2.0
/*
 * Sending, and the action runner: a protocol message goes out encoded
 * through the transport, and the actions the protocol returns (send,
 * store, zap, wake, free a frame, hold, send once durable) are carried
 * out here.  This is the interface the wings (tx/, durable/) call back
 * through.
 */
#include <linux/highmem.h>
#include <linux/printk.h>
#include "node.h"
#include "trace.h"

int ddsm_send_msg_part(struct ddsm_node *n, const struct ddsm_msg *m,
		       struct page *data, u32 off, u32 len)
{
	struct ddsm_wire_msg w;
	int ret;

	if (!n->tp)
		return -ENOTCONN;
	ddsm_msg_encode(m, &w);
	trace_ddsm_msg_send(m);
	ret = ddsm_transport_send(n->tp, m->dst, &w, sizeof(w), data, off,
				  len);
	if (ret) {
		atomic64_inc(&n->stats.send_errors);
		return ret;
	}
	atomic64_inc(&n->stats.msgs_sent);
	return 0;
}

int ddsm_send_msg(struct ddsm_node *n, const struct ddsm_msg *m,
		  struct page *data)
{
	return ddsm_send_msg_part(n, m, data, 0, PAGE_SIZE);
}

static int run_send(struct ddsm_node *n, const struct ddsm_msg *m)
{
	struct page *data = NULL;
	int ret;

	if (m->flags & DDSM_MF_DATA) {
		data = ddsm_frame_peek(n, m->unit);
		if (WARN_ON_ONCE(!data))
			return -EINVAL;
	}
	ret = ddsm_send_msg(n, m, data);
	if (ret)
		pr_warn_ratelimited("ddsm: send %s unit %llu to node %u failed: %d\n",
				    ddsm_msg_type_name(m->type), m->unit,
				    m->dst, ret);
	return ret;
}

static void run_store(struct ddsm_node *n, u64 unit, struct page *data)
{
	struct page *frame = ddsm_frame_peek(n, unit);

	if (WARN_ON_ONCE(!frame || !data))
		return;
	/* A node's message to itself carries its own frame: nothing to copy. */
	if (frame != data)
		copy_highpage(frame, data);
	trace_ddsm_fill(unit, frame != data);
	/* A writeback into home memory ends a write epoch: keep it. */
	ddsm_persist_dirty(n, unit);
}

/*
 * The data an ACK brought goes into the frame under the same cache-line
 * lock as the state change that makes the line readable: a fault that
 * takes the lock next maps the frame, and must find the new bytes there,
 * not the old ones with the STORE still to come.  Done here, the STORE
 * is dropped from what ddsm_run_actions will do.
 */
void ddsm_run_stores(struct ddsm_node *n, struct ddsm_actions *acts,
		     struct page *data)
{
	u32 i;

	for (i = 0; i < acts->n; i++) {
		if (acts->a[i].type != DDSM_ACT_STORE)
			continue;
		run_store(n, acts->a[i].unit, data);
		acts->a[i].type = DDSM_ACT_NONE;
	}
}

/*
 * Free a cache frame only if no new event took the unit meanwhile: the
 * fault path allocates and uses frames under the same lock.
 */
static void release_if_idle(struct ddsm_node *n, u64 unit)
{
	struct mutex *cl = ddsm_cl_lock(n, unit);

	mutex_lock(cl);
	if (ddsm_cache_line(&n->cache, unit)->state == DDSM_C_I)
		ddsm_frame_release(n, unit);
	mutex_unlock(cl);
}

int ddsm_run_actions(struct ddsm_node *n, struct ddsm_actions *acts,
		     struct page *data)
{
	int err = 0, ret;
	u32 i;

	if (acts->overflow)
		pr_err_ratelimited("ddsm: %u protocol actions lost\n",
				   acts->overflow);
	for (i = 0; i < acts->n; i++) {
		struct ddsm_action *a = &acts->a[i];

		switch (a->type) {
		case DDSM_ACT_SEND:
			ret = run_send(n, &a->msg);
			if (ret && !err)
				err = ret;
			break;
		case DDSM_ACT_STORE:
			run_store(n, a->unit, data);
			break;
		case DDSM_ACT_ZAP:
			ddsm_mm_zap(n, a->unit);
			break;
		case DDSM_ACT_WAKE:
			wake_up_all(ddsm_cl_wait(n, a->unit));
			break;
		case DDSM_ACT_FREE_FRAME:
			release_if_idle(n, a->unit);
			break;
		case DDSM_ACT_HOLD:
			ddsm_hold_start(n, a->unit);
			break;
		case DDSM_ACT_SEND_DURABLE:
			ddsm_send_durable(n, &a->msg);
			break;
		}
	}
	return err;
}
