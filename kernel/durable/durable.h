/* SPDX-License-Identifier: GPL-2.0 */
/*
 * MINOS on the node (docs/persistency.md): the durable wing.  The units
 * homed here on pmem (persist.c), the Scope barrier and the PERSIST
 * messages (barrier.c), backup homes and their takeover (replica.c).
 *
 * node/ calls what is declared here; the wing calls back into node/ only
 * through its send and action interface (node.h: ddsm_node_send(),
 * ddsm_node_run_actions(), struct ddsm_node_ops) and reads the node's
 * state it works on.
 */
#ifndef DDSM_DURABLE_H
#define DDSM_DURABLE_H

#include <linux/atomic.h>
#include <linux/in.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <uapi/linux/ddsm.h>

struct ddsm_node;
struct ddsm_msg;
struct page;

/* The Scope barrier (barrier.c): one at a time; PERSISTs served here. */
struct ddsm_barrier {
	struct mutex run;		/* one barrier of this node at a time */
	u32 seq;			/* the running barrier's, in its messages */
	atomic_t pending;		/* PERSIST_ACKs it still waits for */
	int err;			/* first failure a home reported */
	u64 homes;			/* nodes the running barrier asked */
	bool home_died;			/* ... one of which went down */
	wait_queue_head_t wait;
	spinlock_t lock;		/* reqs, stopping */
	struct list_head reqs;		/* PERSISTs from peers, to serve */
	struct work_struct work;
	bool stopping;			/* unbuild: queue nothing more */
};

#define DDSM_REPLICA_BATCH	64	/* replica images persisted per call */
/*
 * Images sent to the backup and not yet acknowledged, at most: what a
 * home queues for a slow backup, and what the backup holds in memory
 * before its worker persists it, each a page (issue 16).
 */
#define DDSM_REPLICA_WINDOW	256
/* PERSISTs one barrier has out at once (barrier.c). */
#define DDSM_PERSIST_WINDOW	256

/*
 * The home's link to its backup: one state, changed only by
 * replica_link_move() (replica_home.c), which refuses and logs a move
 * not drawn here.  Under the replica's lock; the waits and the watch
 * read it without (READ_ONCE).
 *
 *   LOST ---its resync's REPLICA_SYNC acknowledged---> BEHIND
 *   BEHIND --every image sent acknowledged--> SYNCED --an answer late--> BEHIND
 *   BEHIND, SYNCED ---images may be missing there (down, a send failed)---> LOST
 *
 * Only in SYNCED do the home's promises wait for the backup's ACKs; in
 * the others they are kept on this home only.  A new build starts LOST.
 */
enum ddsm_replica_link {
	DDSM_LINK_LOST,		/* the backup may miss images: resync */
	DDSM_LINK_BEHIND,	/* it had all at a sync, ACKs since due */
	DDSM_LINK_SYNCED,	/* it holds every image made here */
	DDSM_LINK_NR_STATES
};

/* Backup homes (replica.c), with nr_backups = 1. */
struct ddsm_replica {
	spinlock_t lock;	/* in, link and the sync and ack state below */
	/* Home side: images sent to the backup (seq under p->lock). */
	u32 sent;		/* seq of the last REPLICA/REPLICA_SYNC sent */
	u32 acked;		/* highest seq the backup acknowledged */
	u32 sync_seq;		/* the REPLICA_SYNC a resync waits for */
	bool sync_pending;
	enum ddsm_replica_link link;	/* replica_link_move() only */
	bool was_synced;	/* SYNCED at some point: a degradation is news */
	wait_queue_head_t wait;	/* durability promises waiting for ACKs */
	struct work_struct resync;
	unsigned long resync_end;	/* jiffies when the last one ended */
	bool resyncing;
	struct delayed_work watch;	/* resync again if one got lost */
	/* Backup side: images of the predecessor's units to persist. */
	struct list_head in;
	struct work_struct work;
	bool pred_synced;	/* its resync is through in this incarnation */
	bool pred_synced_down;	/* ... when it last went down */
	/* Failover (under rx_lock unless said otherwise). */
	struct mutex takeover_lock;
	struct work_struct takeover;
	bool took_over;		/* we serve the predecessor's units */
	bool holding;		/* ... not yet: handover in progress */
	u64 copies_wait;	/* nodes whose COPIES_DONE is still due */
	struct delayed_work holding_work;
	bool home_open;		/* our backup said we were not taken over */
	bool stopping;
	atomic64_t bytes, nr_sent, nr_acked, nr_recv;
	atomic64_t nr_degraded, nr_resyncs, nr_failovers;
	atomic64_t nr_window_waits, nr_window_full;
	u32 in_nr, in_peak;	/* images in @in, under @lock */
};

/* persist.c: the units homed here on pmem (pmem= module parameter). */

/*
 * With pmem= set: claim the namespace, format or recover it, and fill the
 * home frames from it; 0 without pmem=.  Called once the node's state is
 * allocated and before its transport starts.
 */
int ddsm_persist_mount(struct ddsm_node *n, const struct sockaddr_in *addrs);
/* Make every dirty unit durable, mark the namespace clean, let it go. */
void ddsm_persist_unmount(struct ddsm_node *n);
/* Is @unit homed here and kept on pmem? */
bool ddsm_persist_tracks(struct ddsm_node *n, u64 unit);
/* @unit's home frame may have changed: persist it within pmem_flush_ms. */
void ddsm_persist_dirty(struct ddsm_node *n, u64 unit);
/* Make the units of [gaddr, gaddr + len) homed here durable now. */
int ddsm_persist_range(struct ddsm_node *n, u64 gaddr, u64 len);
/*
 * Make the @nr units of @units homed here durable now (others, and units
 * not dirty, are skipped); units may repeat.
 */
int ddsm_persist_units(struct ddsm_node *n, const u64 *units, u32 nr);
/* DDSM_IOC_REGION, its argument checked (ddsm_check_region_arg). */
int ddsm_persist_region(struct ddsm_node *n, struct ddsm_region_arg *a);
void ddsm_persist_status(struct ddsm_node *n, struct ddsm_pmem_status *s);
/*
 * pmem_check played a power failure here: the node is off as far as its
 * media goes, and sends nothing that needed the media.
 */
bool ddsm_persist_crashed(struct ddsm_node *n);

/* Backup homes (replica.c), with nr_backups = 1. */
/* Make replica images durable with their home's timestamps. */
int ddsm_persist_replica_put(struct ddsm_node *n, const u64 *units,
			     const void *const *data, const u64 *ts, u32 nr);
/* Send the backup every image held here, then REPLICA_SYNC. */
void ddsm_persist_resync(struct ddsm_node *n);
/* Persist every dirty unit and wait for the backup (before unload). */
void ddsm_persist_flush_all(struct ddsm_node *n);
/* Tell the directory the models of the units homed here now. */
void ddsm_persist_models(struct ddsm_node *n);
/* Record durably that this node took its predecessor's units over. */
int ddsm_persist_mark_takeover(struct ddsm_node *n);
/* Copy local slot @idx's image into @page: 0, -ENODATA, -EBADMSG. */
int ddsm_persist_load_slot(struct ddsm_node *n, u64 idx, struct page *page);

/* barrier.c: the Scope barrier and the PERSIST messages. */
void ddsm_barrier_init(struct ddsm_node *n);
/*
 * Before the transport goes: queue no more persist work and wait for the
 * worker, which sends through the transport.
 */
void ddsm_barrier_quiesce(struct ddsm_node *n);
/* After it: free what was queued and never served. */
void ddsm_barrier_stop(struct ddsm_node *n);
/* A new build (ddsm_node_build) takes persist work again. */
void ddsm_barrier_resume(struct ddsm_node *n);
void ddsm_barrier_rx(struct ddsm_node *n, const struct ddsm_msg *m);
/* @node went down: a barrier waiting for its answer fails at once. */
void ddsm_barrier_peer_down(struct ddsm_node *n, u32 node);
/* Send @m once its unit's home image is durable (DDSM_ACT_SEND_DURABLE). */
void ddsm_send_durable(struct ddsm_node *n, const struct ddsm_msg *m);
/* What this node wrote in [gaddr, gaddr + len) durable at its homes. */
int ddsm_barrier(struct ddsm_node *n, u64 gaddr, u64 len, u32 flags);

/* replica.c: backup homes (docs/persistency.md). */
void ddsm_replica_init(struct ddsm_node *n);
void ddsm_replica_start(struct ddsm_node *n);
void ddsm_replica_run(struct ddsm_node *n);
void ddsm_replica_quiesce(struct ddsm_node *n);
void ddsm_replica_stop(struct ddsm_node *n);
/* Send @img (unit @unit, durable here with @ts) to the backup; p->lock. */
int ddsm_replica_send(struct ddsm_node *n, u64 unit, u64 ts, const void *img);
void ddsm_replica_send_sync(struct ddsm_node *n);
/* Every image sent so far: read under p->lock, wait for it outside. */
u32 ddsm_replica_ticket(struct ddsm_node *n);
void ddsm_replica_wait(struct ddsm_node *n, u32 ticket);
/*
 * Room for @need more images in the window (DDSM_REPLICA_WINDOW): wait
 * for it, within fault_timeout_ms, in process context without p->lock.
 */
u32 ddsm_replica_window_free(struct ddsm_node *n);
void ddsm_replica_wait_window(struct ddsm_node *n, u32 need);
void ddsm_replica_rx(struct ddsm_node *n, const struct ddsm_msg *m,
		     struct page *data);
void ddsm_replica_peer(struct ddsm_node *n, u32 node, bool up);
/* Refuse (EAGAIN) a request for a unit of ours before the backup spoke. */
bool ddsm_replica_gated(struct ddsm_node *n, const struct ddsm_msg *m);
bool ddsm_replica_expecting(struct ddsm_node *n, u32 node);
bool ddsm_replica_takeover(struct ddsm_node *n);
void ddsm_replica_status(struct ddsm_node *n, struct ddsm_pmem_status *s);

#endif /* DDSM_DURABLE_H */
