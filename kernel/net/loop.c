// SPDX-License-Identifier: GPL-2.0
/*
 * Loopback transport: the one-node default, and a node's messages to
 * itself.  Messages are queued and delivered from a thread of their own,
 * never from the sender's context, so the protocol sees the same
 * asynchrony as over RDMA and a sender holding a lock never re-enters the
 * receive path.  The thread runs at real-time priority for the reason
 * rdma_rx.c's does: a user thread spinning on a unit must not hold back,
 * by a time slice, the message that invalidates it.
 */
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/wait.h>
#include <linux/atomic.h>
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/string.h>
#include "transport.h"

#define LOOP_MAX_MSG	128

struct loop_item {
	struct list_head node;
	struct page *data;
	u32 data_len;
	u32 len;
	u8 buf[LOOP_MAX_MSG];
};

struct loop_transport {
	struct ddsm_transport t;
	spinlock_t lock;	/* queue and dying */
	struct list_head queue;
	wait_queue_head_t wait;
	struct task_struct *thread;
	bool dying;
	atomic64_t msgs, bytes;
};

static struct loop_transport *to_loop(struct ddsm_transport *t)
{
	return container_of(t, struct loop_transport, t);
}

static struct loop_item *loop_next(struct loop_transport *lt)
{
	struct loop_item *it;

	spin_lock_bh(&lt->lock);
	it = list_first_entry_or_null(&lt->queue, struct loop_item, node);
	if (it)
		list_del(&it->node);
	spin_unlock_bh(&lt->lock);
	return it;
}

static bool loop_busy(struct loop_transport *lt)
{
	bool busy;

	spin_lock_bh(&lt->lock);
	busy = !list_empty(&lt->queue);
	spin_unlock_bh(&lt->lock);
	return busy;
}

bool ddsm_rt_delivery = true;

void ddsm_delivery_priority(void)
{
	if (READ_ONCE(ddsm_rt_delivery))
		sched_set_fifo_low(current);
	else
		set_user_nice(current, MIN_NICE);
}

/* Delivers until stopped and the queue is empty. */
static int loop_thread(void *arg)
{
	struct loop_transport *lt = arg;
	struct loop_item *it;

	ddsm_delivery_priority();
	for (;;) {
		it = loop_next(lt);
		if (!it) {
			if (kthread_should_stop())
				break;
			wait_event_interruptible(lt->wait, loop_busy(lt) ||
						 kthread_should_stop());
			continue;
		}
		lt->t.recv(lt->t.ctx, lt->t.self, it->buf, it->len, it->data,
			   it->data_len);
		if (it->data)
			put_page(it->data);
		kfree(it);
		cond_resched();
	}
	return 0;
}

/*
 * The data as the receiver gets it, at the start of a page: the sender's
 * own page when it starts there (a frame a node sends itself is never
 * copied), else a copy of the part.
 */
static struct page *loop_data(struct page *data, u32 off, u32 len)
{
	struct page *p;

	if (!off) {
		get_page(data);
		return data;
	}
	p = alloc_page(GFP_NOIO | __GFP_NOFAIL);
	memcpy_page(p, 0, data, off, len);
	return p;
}

static int loop_send(struct ddsm_transport *t, u32 dst, const void *buf,
		     u32 len, struct page *data, u32 data_off, u32 data_len)
{
	struct loop_transport *lt = to_loop(t);
	struct loop_item *it;

	if (dst != t->self)
		return -EHOSTUNREACH;
	if (len > LOOP_MAX_MSG)
		return -EMSGSIZE;
	/* Never lose a message for want of memory: wait for it. */
	it = kmalloc(sizeof(*it), GFP_NOIO | __GFP_NOFAIL);
	memcpy(it->buf, buf, len);
	it->len = len;
	it->data = data ? loop_data(data, data_off, data_len) : NULL;
	it->data_len = data ? data_len : 0;

	spin_lock_bh(&lt->lock);
	if (lt->dying) {
		spin_unlock_bh(&lt->lock);
		if (it->data)
			put_page(it->data);
		kfree(it);
		return -ESHUTDOWN;
	}
	list_add_tail(&it->node, &lt->queue);
	spin_unlock_bh(&lt->lock);

	atomic64_inc(&lt->msgs);
	atomic64_add(len + it->data_len, &lt->bytes);
	wake_up(&lt->wait);
	return 0;
}

static void loop_peer_info(struct ddsm_transport *t,
			   struct ddsm_peer_info *info)
{
	struct loop_transport *lt = to_loop(t);

	info->node_id = t->self;
	info->state = DDSM_PEER_SELF;
	/* Every message to self is both sent and received. */
	info->msgs_sent = atomic64_read(&lt->msgs);
	info->msgs_recv = info->msgs_sent;
	info->bytes_sent = atomic64_read(&lt->bytes);
	info->bytes_recv = info->bytes_sent;
	strscpy(info->addr, "loopback", sizeof(info->addr));
}

static void loop_destroy(struct ddsm_transport *t)
{
	struct loop_transport *lt = to_loop(t);
	struct loop_item *it, *tmp;

	spin_lock_bh(&lt->lock);
	lt->dying = true;
	spin_unlock_bh(&lt->lock);
	kthread_stop(lt->thread);	/* delivers what is queued first */

	list_for_each_entry_safe(it, tmp, &lt->queue, node) {
		list_del(&it->node);
		if (it->data)
			put_page(it->data);
		kfree(it);
	}
	kfree(lt);
}

static enum ddsm_peer_state loop_peer_state(struct ddsm_transport *t,
					    u32 node)
{
	return node == t->self ? DDSM_PEER_SELF : DDSM_PEER_DEAD;
}

bool ddsm_loop_delivering(struct ddsm_transport *t)
{
	return current == to_loop(t)->thread;
}

static const struct ddsm_transport_ops loop_ops = {
	.name = "loop",
	.send = loop_send,
	.peer_info = loop_peer_info,
	.peer_state = loop_peer_state,
	.destroy = loop_destroy,
};

struct ddsm_transport *ddsm_loop_create(u32 self, ddsm_recv_fn recv,
					void *ctx)
{
	struct loop_transport *lt;

	lt = kzalloc(sizeof(*lt), GFP_KERNEL);
	if (!lt)
		return NULL;
	spin_lock_init(&lt->lock);
	INIT_LIST_HEAD(&lt->queue);
	init_waitqueue_head(&lt->wait);
	lt->t.ops = &loop_ops;
	lt->t.recv = recv;
	lt->t.ctx = ctx;
	lt->t.self = self;
	lt->thread = kthread_run(loop_thread, lt, "ddsm_loop/%u", self);
	if (IS_ERR(lt->thread)) {
		kfree(lt);
		return NULL;
	}
	return &lt->t;
}
