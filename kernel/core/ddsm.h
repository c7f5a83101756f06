/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One ddsm node: the pieces core/ wires together.  The protocol state
 * (directory and cache) lives in kernel/proto, frames and PTEs in
 * kernel/mm, bytes on the wire in kernel/net.
 *
 * Locking:
 *  - rx_lock serialises the receive path: every message, in arrival
 *    order, updates the directory or the cache and performs its actions.
 *  - cl_lock(unit) (hashed mutexes) covers a cache line between the
 *    protocol's decision and the PTE it allows, on both the fault path
 *    and the receive path.  A PTE is installed under it, and the data an
 *    ACK brings is copied into the frame under it together with the state
 *    change that makes the line readable; ZAPs run after
 *    the state change is visible, outside it, so either the fault saw the
 *    new state or the zap removes what the fault installed.
 *  - Order: mmap_lock -> rx_lock -> cl_lock -> i_mmap_rwsem -> PTL.
 *    The fault path never takes rx_lock; it waits for the receive path
 *    only through wait queues with a timeout, never under a lock.
 */
#ifndef DDSM_CORE_DDSM_H
#define DDSM_CORE_DDSM_H

#include <linux/atomic.h>
#include <linux/list.h>
#include <linux/miscdevice.h>
#include <linux/mutex.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/spinlock.h>
#include <linux/rwsem.h>
#include <linux/fs.h>
#include <linux/mm_types.h>
#include <uapi/linux/ddsm.h>

#include "../proto/space.h"
#include "../proto/msg.h"
#include "../proto/dir.h"
#include "../proto/cache.h"
#include "../net/transport.h"
#include "../mm/mm.h"
#include "persist.h"

#define DDSM_CL_LOCKS	256	/* hashed cache-line locks and wait queues */
#define DDSM_MAX_SIZE	(64ULL << 30)
#define DDSM_HOLD_SLOTS	128	/* held lines tracked for the timer (hold.c) */
#define DDSM_HOLD_MS	500	/* longest a held line waits for its access */
#define DDSM_WRITE_HOLD_MS 2	/* ... and a migratory one, read, for its write */
#define DDSM_LOST_RETRY_MS 100	/* pause before asking again for a lost unit */

/* What the module was loaded with; kept across reconfigurations. */
struct ddsm_params {
	u64 size;
	enum ddsm_home_policy policy;
	u16 port;
	unsigned int heartbeat_ms;
	unsigned int peer_timeout_ms;
	unsigned int reconnect_ms;
	u32 rdma_frames;
	u64 cache_frames;
	bool inject;
	struct dentry *debugfs;
	unsigned int rejoin_ms;	/* 0: a node declared dead loses its data */
	bool migratory;		/* grant migrating units M on a read (dir.h) */
	bool handoff;		/* home-owned units handed on at once (dir.h) */
	u8 *auth_key;		/* cluster key (key.c), or NULL */
	u32 auth_key_len;
	const char *pmem_path;	/* namespace for the homed units, or "" */
	bool pmem_format;	/* format it whatever it holds */
	bool pmem_check;	/* persist-domain checker (persist.c) */
	unsigned int pmem_flush_ms;	/* a dirty unit is durable within */
	u32 pmem_model;		/* of ranges in no region (enum ddsm_model) */
	u64 cluster_id;		/* 0: derived from the configuration */
	u32 nr_backups;		/* 0 or 1: backup homes (replica.c) */
};

struct ddsm_stats {
	atomic64_t faults_read;
	atomic64_t faults_write;
	atomic64_t upgrades;
	atomic64_t remaps;
	atomic64_t msgs_sent;
	atomic64_t msgs_recv;
	atomic64_t msgs_dropped;
	atomic64_t send_errors;
	atomic64_t proto_errors;
	atomic64_t mappings;
	atomic64_t fault_timeouts;
	atomic64_t evictions;
	atomic64_t fault_errors;
	atomic64_t peer_ups;
	atomic64_t peer_downs;
	atomic64_t home_waits;
	atomic64_t fault_kills;
	atomic64_t hold_expired;
	atomic64_t hold_skipped;
	atomic64_t lost_retries;
	atomic64_t graces;
	atomic64_t barriers;		/* Scope barriers run here */
	atomic64_t persist_sent;	/* PERSISTs this node's barriers sent */
	atomic64_t durable_errors;	/* gated grants sent though not durable */
	atomic64_t persist_served;	/* passes that answered PERSISTs */
	atomic64_t drops[DDSM_MSG_VERDICT_NR];
};

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

/* Per peer (rejoin.c): when the window for its return closes. */
struct ddsm_rejoin {
	struct delayed_work work;
	struct ddsm_node *n;
	u32 node;
	bool open;	/* it went down and the window has not closed */
	bool extended;	/* kept open for its backup's takeover (replica.c) */
	unsigned long down_at;	/* jiffies when it last went down */
};

/* Held lines (hold.c): when each began, so a timer can end it. */
struct ddsm_holds {
	spinlock_t lock;	/* the slots and nr */
	u32 nr;
	struct {
		u64 unit;
		unsigned long since;
		unsigned long bound;	/* jiffies from @since */
		u32 seq;
		u8 used;
		u8 for_write;	/* read done, waiting for the write */
	} slot[DDSM_HOLD_SLOTS];
	struct delayed_work work;
	bool stopping;		/* unbuild: the timer is not armed again */
};

#define DDSM_REPLICA_BATCH	64	/* replica images persisted per call */

/* Backup homes (replica.c), with nr_backups = 1. */
struct ddsm_replica {
	spinlock_t lock;	/* in, the sync and ack state below */
	/* Home side: images sent to the backup (seq under p->lock). */
	u32 sent;		/* seq of the last REPLICA/REPLICA_SYNC sent */
	u32 acked;		/* highest seq the backup acknowledged */
	u32 sync_seq;		/* the REPLICA_SYNC a resync waits for */
	bool sync_pending;
	bool synced;		/* the backup holds every image made here */
	bool was_synced;	/* ... at some point: a degradation is news */
	bool degraded;		/* promises are home-only (waits skip) */
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
};

struct ddsm_persist;
struct ddsm_txs;

struct ddsm_node {
	struct ddsm_params params;
	/*
	 * Held for reading by mmap and ioctls, for writing while the state
	 * below is rebuilt (DDSM_IOC_CONFIGURE); faults need no part of it
	 * because a rebuild only happens with nothing mapped.
	 */
	struct rw_semaphore cfg_sem;
	struct ddsm_space space;
	struct ddsm_dir dir;
	struct ddsm_cache cache;
	struct ddsm_frames frames;
	struct shrinker *shrinker;	/* mm/shrink.c */
	struct ddsm_transport *tp;
	struct ddsm_persist *persist;	/* core/persist.c, or NULL */
	struct ddsm_barrier barrier;
	struct ddsm_replica replica;
	struct ddsm_txs *tx;		/* HADES transactions (tx.h) */
	struct ddsm_stats stats;

	struct mutex rx_lock;		/* the receive path, in arrival order */
	struct ddsm_action *rx_actions;	/* DDSM_MAX_ACTIONS, under rx_lock */

	wait_queue_head_t peer_wait;	/* faults waiting for a home to connect */
	struct ddsm_holds holds;
	struct ddsm_rejoin rejoin[DDSM_MAX_NODES];

	struct mutex cl_locks[DDSM_CL_LOCKS];	/* cache line -> PTE, see above */
	wait_queue_head_t cl_waits[DDSM_CL_LOCKS];
	/* Per hash: the last event a fault gave up waiting for (access.c). */
	struct ddsm_stuck {
		u64 unit;
		u32 seq;
	} cl_stuck[DDSM_CL_LOCKS];
	/*
	 * Per hash: when a fault last mapped a unit it was granted, until a
	 * request taking a unit away has let it run (rx.c); 0: none.
	 */
	atomic64_t cl_granted_ns[DDSM_CL_LOCKS];

	struct inode *inode;		/* owns the module-wide mapping */
	struct address_space *mapping;	/* every open file maps through it */
	struct miscdevice misc;
};

/* core/main.c: the fault_timeout_ms parameter, as it is now. */
unsigned int ddsm_fault_timeout_ms(void);
/* core/main.c: the grace_us parameter, as it is now. */
unsigned int ddsm_grace_us(void);

static inline unsigned int ddsm_cl_hash(u64 unit)
{
	return (unsigned int)(unit % DDSM_CL_LOCKS);
}

static inline struct mutex *ddsm_cl_lock(struct ddsm_node *n, u64 unit)
{
	return &n->cl_locks[ddsm_cl_hash(unit)];
}

static inline wait_queue_head_t *ddsm_cl_wait(struct ddsm_node *n, u64 unit)
{
	return &n->cl_waits[ddsm_cl_hash(unit)];
}

/* core/access.c: the fault path, and eviction (CLOCK, the shrinker). */
/* @for_room: counted in stats.evictions (cache_frames, the shrinker). */
bool ddsm_evict(struct ddsm_node *n, u64 unit, bool nowait, bool for_room);
vm_fault_t ddsm_access(struct ddsm_node *n, struct vm_fault *vmf, u64 unit,
		       bool write, bool mkwrite);

/* core/rx.c: the receive path and action execution. */
void ddsm_rx(void *ctx, u32 from, const void *buf, u32 len,
	     struct page *data, u32 data_len);
/*
 * Encode and send @m with @data (a page the transport takes a reference
 * on, or NULL), all of it: -ENOTCONN before the transport exists, else
 * the transport's answer.  Counts msgs_sent and send_errors.
 */
int ddsm_send_msg(struct ddsm_node *n, const struct ddsm_msg *m,
		  struct page *data);
/* As ddsm_send_msg() with only @len bytes of @data from @off. */
int ddsm_send_msg_part(struct ddsm_node *n, const struct ddsm_msg *m,
		       struct page *data, u32 off, u32 len);
int ddsm_run_actions(struct ddsm_node *n, struct ddsm_actions *acts,
		     struct page *data);
void ddsm_peer_event(void *ctx, u32 node, bool up);

/* core/rejoin.c: a peer declared dead that comes back with its data. */
void ddsm_rejoin_init(struct ddsm_node *n);
void ddsm_rejoin_stop(struct ddsm_node *n);
void ddsm_rejoin_down(struct ddsm_node *n, u32 node);
void ddsm_rejoin_up(struct ddsm_node *n, u32 node);

/* core/hold.c: lines held for the access that waited for them. */
void ddsm_holds_init(struct ddsm_node *n);
/* Before the transport goes: the timer, which sends UNLOCKs, is stopped. */
void ddsm_holds_quiesce(struct ddsm_node *n);
void ddsm_holds_stop(struct ddsm_node *n);
void ddsm_hold_start(struct ddsm_node *n, u64 unit);
void ddsm_hold_done(struct ddsm_node *n, u64 unit, struct ddsm_actions *acts);
void ddsm_hold_for_write(struct ddsm_node *n, u64 unit,
			 struct ddsm_actions *acts);

/* core/barrier.c: the Scope barrier and the PERSIST messages. */
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

/* core/replica.c: backup homes (docs/persistency.md). */
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
void ddsm_replica_rx(struct ddsm_node *n, const struct ddsm_msg *m,
		     struct page *data);
void ddsm_replica_peer(struct ddsm_node *n, u32 node, bool up);
/* Refuse (EAGAIN) a request for a unit of ours before the backup spoke. */
bool ddsm_replica_gated(struct ddsm_node *n, const struct ddsm_msg *m);
bool ddsm_replica_expecting(struct ddsm_node *n, u32 node);
bool ddsm_replica_takeover(struct ddsm_node *n);
void ddsm_replica_status(struct ddsm_node *n, struct ddsm_pmem_status *s);

/* core/key.c */
int ddsm_key_load(struct ddsm_params *p, const char *path);
void ddsm_key_free(struct ddsm_params *p);

/* core/config.c */
int ddsm_parse_nodes(const char *list, u16 port, struct sockaddr_in *addrs);
int ddsm_node_build(struct ddsm_node *n, u32 nr_nodes, u32 self,
		    const struct sockaddr_in *addrs);
void ddsm_node_unbuild(struct ddsm_node *n);
int ddsm_reconfigure(struct ddsm_node *n, u32 self, const char *list);

/* core/dev.c */
int ddsm_dev_register(struct ddsm_node *n, umode_t mode);
void ddsm_dev_unregister(struct ddsm_node *n);

#endif /* DDSM_CORE_DDSM_H */
