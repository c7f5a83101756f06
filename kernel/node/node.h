/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One ddsm node, the spine: the pieces node/ wires together.  The
 * protocol state (directory and cache) lives in kernel/proto, frames and
 * PTEs in kernel/mm, bytes on the wire in kernel/net; HADES transactions
 * (kernel/tx, tx.h) and MINOS persistency (kernel/durable, durable.h) are
 * wings the node calls, which call back only through the send and action
 * interface below (send.c).
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
#ifndef DDSM_NODE_H
#define DDSM_NODE_H

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
#include "../durable/durable.h"

#define DDSM_CL_LOCKS	256	/* hashed cache-line locks and wait queues */
#define DDSM_MAX_SIZE	(64ULL << 30)
#define DDSM_HOLD_SLOTS	128	/* held lines tracked for the timer (hold.c) */
#define DDSM_HOLD_MS	500	/* longest a held line waits for its access */
#define DDSM_WRITE_HOLD_MS 2	/* ... and a migratory one, read, for its write */
#define DDSM_LOST_RETRY_MS 100	/* pause before asking again for a lost unit */
#define DDSM_STUCK_HOME	U32_MAX	/* cl_stuck: the home, not an event */
#define DDSM_STUCK_FAILED (U32_MAX - 1) /* cl_stuck: the event failed for good */

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

struct ddsm_persist;
struct ddsm_txs;
struct ddsm_node;

/*
 * What the layers node/ calls (tx/, durable/, mm/) call back: the send
 * and action interface, an eviction, the fault.  Set once at load
 * (module.c) and reached through the inline helpers below, so that none
 * of those layers links against a file of node/ and no circle of files
 * runs through them (tools/layout-check.py, docs/design.md "Layers").
 * node/'s own files call the functions themselves.
 */
struct ddsm_node_ops {
	int (*send_part)(struct ddsm_node *n, const struct ddsm_msg *m,
			 struct page *data, u32 off, u32 len);
	int (*run_actions)(struct ddsm_node *n, struct ddsm_actions *acts,
			   struct page *data);
	bool (*evict)(struct ddsm_node *n, u64 unit, bool nowait,
		      bool for_room);
	vm_fault_t (*access)(struct ddsm_node *n, struct vm_fault *vmf,
			     u64 unit, bool write, bool mkwrite);
};

struct ddsm_node {
	const struct ddsm_node_ops *ops;	/* module.c */
	struct ddsm_params params;
	/*
	 * Held for reading by mmap and ioctls, for writing while the state
	 * below is rebuilt (DDSM_IOC_CONFIGURE); faults need no part of it
	 * because a rebuild only happens with nothing mapped.
	 */
	struct rw_semaphore cfg_sem;
	/*
	 * The state below exists (ddsm_node_build() succeeded); false after
	 * a reconfiguration failed twice: only CONFIGURE and STATUS work.
	 */
	bool built;
	struct ddsm_space space;
	struct ddsm_dir dir;
	struct ddsm_cache cache;
	struct ddsm_frames frames;
	struct shrinker *shrinker;	/* mm/shrink.c */
	struct ddsm_vmas vmas;		/* what is mapped here (mm/fault.c) */
	struct ddsm_transport *tp;
	struct ddsm_persist *persist;	/* durable/persist.c, or NULL */
	struct ddsm_barrier barrier;
	struct ddsm_replica replica;
	struct ddsm_txs *tx;		/* HADES transactions (tx.h) */
	struct ddsm_stats stats;

	struct mutex rx_lock;		/* the receive path, in arrival order */
	struct ddsm_action *rx_actions;	/* DDSM_MAX_ACTIONS, under rx_lock */

	wait_queue_head_t peer_wait;	/* faults waiting for a home to connect */
	struct ddsm_holds holds;
	struct ddsm_rejoin rejoin[DDSM_MAX_NODES];
	bool rejoin_stopping;	/* unbuilding: no window closes any more */

	struct mutex cl_locks[DDSM_CL_LOCKS];	/* cache line -> PTE, see above */
	wait_queue_head_t cl_waits[DDSM_CL_LOCKS];
	/*
	 * Per hash, under the line lock (access.c): the last event a fault
	 * gave up on, and when the latest fault on a unit started to wait,
	 * which a retried attempt's bound runs from.
	 */
	struct ddsm_stuck {
		u64 unit;
		u32 seq;	/* DDSM_STUCK_HOME, DDSM_STUCK_FAILED or an event */
		u64 wait_unit;	/* unit + 1; 0: none */
		unsigned long wait_since;
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

/* params.c: the fault_timeout_ms parameter, as it is now. */
unsigned int ddsm_fault_timeout_ms(void);
/* params.c: the grace_us parameter, as it is now. */
unsigned int ddsm_grace_us(void);
/* params.c: tx_validate_defer_us as it is now, at most 100000. */
unsigned int ddsm_tx_validate_defer_us(void);

/* access.c: the fault path. */
vm_fault_t ddsm_access(struct ddsm_node *n, struct vm_fault *vmf, u64 unit,
		       bool write, bool mkwrite);

/* evict.c: cache frames given back (CLOCK, barriers, the shrinker). */
/*
 * Start dropping @unit's copy; true if an EVICT went out.  @nowait: give
 * up rather than wait for the line lock.  @for_room: counted in
 * stats.evictions (cache_frames, the shrinker).
 */
bool ddsm_evict(struct ddsm_node *n, u64 unit, bool nowait, bool for_room);
/* Below cache_frames again, or a moment waited for it (the fault path). */
void ddsm_make_room(struct ddsm_node *n);

/* rx.c: the receive path, and peers coming and going. */
void ddsm_rx(void *ctx, u32 from, const void *buf, u32 len,
	     struct page *data, u32 data_len);
void ddsm_peer_event(void *ctx, u32 node, bool up);

/* send.c: sending and the action runner (the wings: ddsm_node_send() ...). */
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
/*
 * The STOREs of @acts now, with @data, under the caller's line lock: a
 * fault that takes the lock next must find the bytes in the frame.  They
 * are dropped from what ddsm_run_actions() will do.
 */
void ddsm_run_stores(struct ddsm_node *n, struct ddsm_actions *acts,
		     struct page *data);

/* The ways back into node/ for tx/, durable/ and mm/ (struct ddsm_node_ops). */
static inline int ddsm_node_send_part(struct ddsm_node *n,
				      const struct ddsm_msg *m,
				      struct page *data, u32 off, u32 len)
{
	return n->ops->send_part(n, m, data, off, len);
}

static inline int ddsm_node_send(struct ddsm_node *n, const struct ddsm_msg *m,
				 struct page *data)
{
	return n->ops->send_part(n, m, data, 0, PAGE_SIZE);
}

static inline int ddsm_node_run_actions(struct ddsm_node *n,
					struct ddsm_actions *acts,
					struct page *data)
{
	return n->ops->run_actions(n, acts, data);
}

static inline bool ddsm_node_evict(struct ddsm_node *n, u64 unit, bool nowait,
				   bool for_room)
{
	return n->ops->evict(n, unit, nowait, for_room);
}

static inline vm_fault_t ddsm_node_access(struct ddsm_node *n,
					  struct vm_fault *vmf, u64 unit,
					  bool write, bool mkwrite)
{
	return n->ops->access(n, vmf, unit, write, mkwrite);
}

/* rejoin.c: a peer declared dead that comes back with its data. */
void ddsm_rejoin_init(struct ddsm_node *n);
void ddsm_rejoin_quiesce(struct ddsm_node *n);
void ddsm_rejoin_stop(struct ddsm_node *n);
void ddsm_rejoin_down(struct ddsm_node *n, u32 node);
void ddsm_rejoin_up(struct ddsm_node *n, u32 node);

/* hold.c: lines held for the access that waited for them. */
void ddsm_holds_init(struct ddsm_node *n);
/* Before the transport goes: the timer, which sends UNLOCKs, is stopped. */
void ddsm_holds_quiesce(struct ddsm_node *n);
void ddsm_holds_stop(struct ddsm_node *n);
void ddsm_hold_start(struct ddsm_node *n, u64 unit);
void ddsm_hold_done(struct ddsm_node *n, u64 unit, struct ddsm_actions *acts);
void ddsm_hold_for_write(struct ddsm_node *n, u64 unit,
			 struct ddsm_actions *acts);

/* key.c */
int ddsm_key_load(struct ddsm_params *p, const char *path);
void ddsm_key_free(struct ddsm_params *p);

/* config.c */
int ddsm_parse_nodes(const char *list, u16 port, struct sockaddr_in *addrs);
int ddsm_node_build(struct ddsm_node *n, u32 nr_nodes, u32 self,
		    const struct sockaddr_in *addrs);
void ddsm_node_unbuild(struct ddsm_node *n);
int ddsm_reconfigure(struct ddsm_node *n, u32 self, const char *list);

/* dev.c */
int ddsm_dev_register(struct ddsm_node *n, umode_t mode);
void ddsm_dev_unregister(struct ddsm_node *n);

#endif /* DDSM_NODE_H */
