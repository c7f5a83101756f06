/* SPDX-License-Identifier: GPL-2.0 */
/*
 * HADES transactions in the module (issue 13, docs/transactions.md): the
 * glue between the pure protocol (proto/txhome.h, txcoord.h, txpack.h)
 * and the node.  Approach (A) of the notes' section 9: transactional
 * data lives only in its home's frames, never in a cache; reads are
 * served by the home (home.c), writes are buffered by the coordinator
 * (coord.c) and travel with Intend-to-commit.
 *
 * Locking: txs->lock (a spinlock) guards the coordinator slot table and
 * every slot's reply state; home->lock (a mutex) serialises the home
 * side: the txhome table, the Intend pages it keeps and the home frames'
 * transactional lines, so a read's filter insert and its data copy are
 * one step, and so is a Validation's apply with the lock release.
 */
#ifndef DDSM_TX_H
#define DDSM_TX_H

#include <linux/hrtimer.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <uapi/linux/ddsm.h>
#include "../proto/txhome.h"
#include "../proto/txcoord.h"
#include "../proto/txfate.h"
#include "pagestash.h"

#define DDSM_TX_SLOTS		64	/* running transactions per node */
#define DDSM_TXH_ENTRIES	256	/* transactions a home tracks */
#define DDSM_TX_READ_TRIES	64	/* a read refused by a lock, re-asked */
#define DDSM_TX_OWED		64	/* Validations a node defers at most */

struct ddsm_node;
struct page;

#define DDSM_TX_FOOTPRINT	32	/* units a fallback pins up front */

/* Lines [first, last] of a unit a transaction read or wrote. */
struct ddsm_txfp {
	u64 unit;
	u8 first;
	u8 last;
};

/*
 * An open file's transactions: the running one, and what its aborted
 * attempts leave the next: conflict aborts in a row and the lines they
 * touched, which the pessimistic fallback pins in address order.
 */
struct ddsm_txfile {
	struct ddsm_tx *tx;
	u8 *wbuf;			/* its transactions' (DDSM_TX_WBUF) */
	u32 conflicts;
	u32 nfp;
	struct ddsm_txfp fp[DDSM_TX_FOOTPRINT];
};

/* A unit read READV sent ahead to its home (readv.c). */
struct ddsm_txahead {
	u64 unit;
	u8 first;
	u8 last;
	bool done;			/* its answer arrived */
	int err;			/* ... with this errno */
	u32 seq;			/* of its request; 0: not asked */
	u8 pos;				/* its place in a TX_READ_MANY */
	bool lag;			/* tx_readv_lag_ms applies (readv.c) */
	bool early;			/* read here before any request went */
	struct page *page;		/* its data */
};

/* One running transaction of an open file (coord.c). */
struct ddsm_tx {
	struct ddsm_txfile *file;
	bool fallback;			/* pins what it reads (txhome.h) */
	struct ddsm_txc c;		/* under txs->lock */
	u16 slot;
	u8 reason;			/* enum ddsm_tx_reason once doomed */
	bool doomed;			/* squashed, or a home went down */
	wait_queue_head_t wait;		/* its thread, for answers */
	u32 seq;			/* the request awaited */
	bool done;			/* its answer arrived */
	int err;			/* ... with this errno */
	struct page *reply;		/* TX_READ_REPLY's data */
	u16 lines;			/* ... of the lines asked (msg.h) */
	u32 nahead;			/* READV's reads out, under txs->lock */
	unsigned long ahead_until;	/* jiffies: their answers' bound */
	struct ddsm_txahead ahead[DDSM_TX_READV_MAX];
	u64 home_unit[DDSM_MAX_NODES];	/* a unit at each involved home */
	/*
	 * The commit's Intends, kept until every home answered, so that one
	 * lost with a connection goes again (txfate.h).
	 */
	struct page *intend[DDSM_MAX_NODES];
	u32 intend_len[DDSM_MAX_NODES];
	bool detached;			/* its caller was told "in doubt" */
	u64 back;			/* homes back since it waited (txs->lock) */
	u32 nw;
	u32 wused;
	struct {
		u64 gaddr;
		u32 len;
		u32 off;
	} w[DDSM_TX_MAX_WRITES];
	u8 *wbuf;			/* its file's */
};

/*
 * A commit held locked here whose coordinator this home lost: decided by
 * what its coordinator's node and the other participants answer
 * (txfate.h), never by a timeout.
 */
struct ddsm_txheld {
	bool on;
	struct ddsm_txdoubt d;
	u64 parts;			/* its participants (the Intend's) */
	unsigned long since;		/* jiffies */
	unsigned long logged;		/* jiffies of the last "still waiting" */
};

/* A query to send, gathered under the home lock. */
struct ddsm_txquery {
	u64 txid;
	u64 unit;
	u64 ask;
	u64 parts;
};

/* The home side (home.c). */
struct ddsm_txhome {
	struct mutex lock;		/* everything below, and tx lines of frames */
	struct ddsm_txh h;
	struct ddsm_txh_entry *entries;
	struct page **intend;		/* per entry: its Intend, until decided */
	u64 *unit;			/* per entry: the unit its Intend named */
	struct ddsm_txheld *doubt;	/* per entry */
	struct ddsm_txh_hist *hist;	/* DDSM_MAX_NODES x DDSM_TX_SLOTS */
	struct ddsm_txquery *queries;	/* DDSM_TXH_ENTRIES, for the work */
	u64 down;			/* peers down here */
	bool quiet;			/* no transport: doubt_work stays off */
	struct delayed_work doubt_work;
	struct ddsm_node *node;
};

/* A commit's Validation to another home, not sent yet (owed.c). */
struct ddsm_txowed {
	u64 txid;
	u64 unit;			/* one at the home, for the header */
	u32 home;
};

struct ddsm_txs {
	spinlock_t lock;		/* slot, last, mem, each slot's reply state */
	struct ddsm_tx *slot[DDSM_TX_SLOTS];
	struct ddsm_txc last[DDSM_TX_SLOTS];	/* each slot's last epoch */
	struct ddsm_txmem mem[DDSM_TX_SLOTS];	/* each slot's decisions */
	u8 gen;				/* this load's incarnation (txid.h) */
	struct work_struct detached_work;	/* ends decided detached ones */
	struct ddsm_pagestash stash;	/* requests', answers', Intends' pages */
	struct ddsm_txowed owed[DDSM_TX_OWED];	/* under lock, oldest first */
	u32 nowed;
	struct hrtimer owed_timer;	/* sends them alone when due */
	struct work_struct owed_work;
	struct ddsm_txhome home;
	struct mutex regions_lock;	/* nr_regions, regions */
	u32 nr_regions;
	struct {
		u64 gaddr;
		u64 len;
	} regions[DDSM_TX_MAX_REGIONS];
	atomic64_t begins, commits, reads, read_retries, intends_sent;
	atomic64_t aborts[DDSM_TX_REASON_NR];
	atomic64_t home_rollbacks, home_rollforwards, home_in_doubt;
	atomic64_t fallbacks, reads_ahead, read_batches, validations_carried;
	atomic64_t readv_confirms;
	atomic64_t commits_in_doubt, intends_again, validations_refused;
};

int ddsm_tx_init(struct ddsm_node *n);
void ddsm_tx_free(struct ddsm_node *n);
/* Around a transport's life (config.c): the doubt work sends. */
void ddsm_tx_resume(struct ddsm_node *n);
void ddsm_tx_quiesce(struct ddsm_node *n);
/* owed.c: deferred Validations, their timer set up and stopped. */
void ddsm_tx_owed_init(struct ddsm_txs *ts);
void ddsm_tx_owed_stop(struct ddsm_node *n, bool send);

/* region.c */
bool ddsm_tx_region_overlaps(struct ddsm_node *n, u64 gaddr, u64 len);
/* Is [gaddr, gaddr + len) inside one transactional region? */
bool ddsm_tx_region_holds(struct ddsm_node *n, u64 gaddr, u64 len);
int ddsm_tx_region_add(struct ddsm_node *n,
		       const struct ddsm_tx_region_arg *a);
struct vm_area_struct;
/* mmap: refused (EACCES) over a region, else the VMA is set up. */
int ddsm_tx_region_mmap(struct ddsm_node *n, struct vm_area_struct *vma,
			u64 off, u64 len);

/* home.c: a home's side.  Each returns the answer's errno (0: ACK). */
/*
 * Lines [@first, @last] of @unit into @out from @out_off.  @pin: the
 * fallback's read, which pins the lines (txhome.h).
 */
int ddsm_tx_home_read(struct ddsm_node *n, u64 txid, u64 unit, u32 first,
		      u32 last, struct page *out, u32 out_off, bool pin);
/* @unit: one homed here, for the squashes' headers. */
int ddsm_tx_home_intend(struct ddsm_node *n, u64 txid, u64 unit,
			struct page *data, u32 data_len);
void ddsm_tx_home_validate(struct ddsm_node *n, u64 txid);
/* @nr Validations in order, under one hold of the home's lock. */
void ddsm_tx_home_validate_many(struct ddsm_node *n, const u64 *txid, u32 nr);
void ddsm_tx_home_abort(struct ddsm_node *n, u64 txid);
/* Received from a peer: serve and answer. */
void ddsm_tx_home_rx(struct ddsm_node *n, const struct ddsm_msg *m,
		     struct page *data, u32 data_len);
void ddsm_tx_home_peer_down(struct ddsm_node *n, u32 node);
void ddsm_tx_home_peer_up(struct ddsm_node *n, u32 node);
/* Its coordinator here gave up waiting for @txid: settle this part too. */
void ddsm_tx_home_doubt_own(struct ddsm_node *n, u64 txid);
/* home.c's part of ddsm_tx_init()/ddsm_tx_free() and quiesce (coord.c). */
int ddsm_tx_home_init(struct ddsm_node *n, struct ddsm_txs *t);
void ddsm_tx_home_free(struct ddsm_txs *t);
void ddsm_tx_home_quiesce(struct ddsm_node *n, bool quiet);

/*
 * The coordinator's side: slots.c (what reaches a transaction), coord.c
 * (the ioctls), readv.c.
 */
void ddsm_tx_coord_rx(struct ddsm_node *n, const struct ddsm_msg *m,
		      struct page *data, u32 data_len);
/* A home doomed @txid (a message, or this node's own home side). */
void ddsm_tx_squash(struct ddsm_node *n, u64 txid);
void ddsm_tx_coord_peer_down(struct ddsm_node *n, u32 node);
/* @node is back: Intends it did not answer go again. */
void ddsm_tx_coord_peer_up(struct ddsm_node *n, u32 node);
/* This node as the coordinator of @txid: enum ddsm_txf_coord. */
u8 ddsm_tx_coord_answer(struct ddsm_node *n, u64 txid);
/* DDSM_IOC_TX_OUTCOME: what became of @a->txid, coordinated here. */
long ddsm_tx_outcome(struct ddsm_node *n, struct ddsm_tx_arg *a);
/*
 * The ioctls: @f is the file's transaction state; @buf holds a READ's or a
 * WRITE's a->len bytes (the caller copies them from or to user memory
 * without cfg_sem), NULL for the others.
 */
long ddsm_tx_ioctl(struct ddsm_node *n, struct ddsm_txfile *f,
		   unsigned int cmd, struct ddsm_tx_arg *a, u8 *buf);
/* READV: @iov checked by the caller, @buf holds their bytes in a row. */
long ddsm_tx_readv(struct ddsm_node *n, struct ddsm_txfile *f,
		   struct ddsm_tx_readv_arg *a,
		   const struct ddsm_tx_iov *iov, u8 *buf);
void ddsm_tx_release(struct ddsm_node *n, struct ddsm_txfile *f);
void ddsm_tx_status(struct ddsm_node *n, struct ddsm_tx_status *st);

#endif /* DDSM_TX_H */
