/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Exhaustive explorer for the ddsm coherence protocol: shared types.
 *
 * A "world" is the unpacked cluster: every node's real struct ddsm_dir,
 * struct ddsm_cache and their arrays, one abstract frame value per unit
 * (1 = holds the last store, 0 = anything else) and the FIFO channels.
 * The kernel/proto code runs directly on a world; a packed, canonical
 * byte string of it is what the search stores and hashes.
 */
#ifndef DDSM_EXPLORE_H
#define DDSM_EXPLORE_H

#include <stdio.h>
#include "dir.h"
#include "cache.h"

#define MAXN		4	/* nodes */
#define MAXU		4	/* units */
#define POOLMAX		16	/* wait slots per node */
#define CHCAP_MAX	16	/* messages per channel */
#define PACK_MAX	2048	/* bytes of one packed state */

enum plant {
	BUG_NONE = 0,
	BUG_SKIP_INV,		/* a sharer ACKs the first INV without dropping its copy */
	BUG_EARLY_UNLOCK,	/* a requester UNLOCKs after its first of several ACKs */
	BUG_NO_WRITEBACK,	/* home ignores the data of a WRITEBACK */
	BUG_FORGET_LOST,	/* home never keeps a unit lost after a death */
	BUG_LATE_STORE,		/* a line turns readable before its data is in */
	BUG_EXCL_KEEPS_COPY,	/* an exclusive read leaves the owner a copy */
	BUG_SKIP_GATE,		/* a gated grant leaves before home persists */
	BUG_NO_WB,		/* an owner ignores WB on FETCH_INV */
	BUG_HANDOFF_EVICT,	/* a hand-off outlives its requester's eviction */
	BUG_NR,
};

struct config {
	const char *name;
	u32 nodes, units;
	u32 pool;		/* wait slots per node */
	u32 chcap;		/* explorer bound: messages per channel */
	u32 deaths;		/* "node dies" events allowed per run */
	u8 die_mask;		/* nodes that may die (default: all) */
	int plant;
	bool raw;		/* no dead-field canonicalisation */
	bool no_migratory;	/* homes never grant a read exclusively */
	bool no_handoff;	/* homes always wait for the requester's UNLOCK */
	u8 persist;		/* DDSM_DIR_P_* of every unit (a model's rules) */
	u64 max_states;		/* explorer bound */
};

struct qmsg {
	struct ddsm_msg m;
	u8 data;		/* DDSM_MF_DATA: 1 iff the carried value is the last store */
};

struct chan {
	u32 len;
	struct qmsg q[CHCAP_MAX];	/* q[0] is the head */
};

struct node {
	struct ddsm_space space;
	struct ddsm_dir dir;
	struct ddsm_cache cache;
	struct ddsm_dir_entry entries[MAXU];
	struct ddsm_dir_wait pool[POOLMAX];
	struct ddsm_cline lines[MAXU];
	u8 frame[MAXU];		/* 1 iff this node's frame holds the last store */
};

struct world {
	struct node n[MAXN];
	struct chan ch[MAXN][MAXN];	/* [src][dst], src == dst is loopback */
	u8 alive;			/* bitmask of live nodes */
	u8 deaths;			/* node deaths so far */
	u8 plant_used;			/* a one-shot planted bug has fired */
	/* Persistence: bit u set iff u's home pmem holds its last store. */
	u8 durable;
	u8 writer[MAXU];		/* node of the last store, NO_WRITER */
};

#define NO_WRITER	0xff

/* Events: one step of the search. */
enum ev_kind {
	EV_DELIVER = 0,		/* a = src, b = dst */
	EV_READ,		/* a = node, b = unit */
	EV_WRITE,
	EV_EVICT,
	EV_DIE,			/* a = node */
	EV_DETECT,		/* a = survivor, b = dead node: peer_down() */
	EV_RELEASE,		/* a = node, b = unit: the held access ran */
};

/* Most events one state can enable. */
#define MAXEV	(2 * MAXN * MAXN + MAXN * (4 * MAXU + 1))

#define EV(k, a, b)	((u16)(((k) << 8) | ((a) << 4) | (b)))
#define EV_KIND(e)	((e) >> 8)
#define EV_A(e)		(((e) >> 4) & 15)
#define EV_B(e)		((e) & 15)

/* Outcome of applying one event. */
enum step_result {
	STEP_OK = 0,
	STEP_DISABLED,		/* the event changes nothing / cannot happen */
	STEP_VIOLATION,		/* a protocol violation; see viol_msg */
	STEP_BOUND,		/* an explorer bound was hit; see viol_msg */
};

extern struct config cfg;
extern char viol_msg[512];
extern u32 max_chan_seen;	/* most messages one channel held */
extern u64 delivered[DDSM_MSG_NR];	/* coverage: deliveries per type */
/* Coverage of the dead-node paths: transitions that did each. */
enum { COV_LOST, COV_HOSTDOWN, COV_EIO, COV_DROPPED, COV_EXCL, COV_NR };
extern u64 coverage[COV_NR];
extern FILE *steplog;		/* non-NULL: describe each step (trace replay) */

/* world.c */
void world_init(struct world *w);
void world_copy(struct world *dst, const struct world *src);
void world_fixup(struct world *w);
int world_apply(struct world *w, u16 ev);
int world_check(struct world *w);
void world_canon(struct world *w, bool rename_seq);
size_t world_pack(const struct world *w, u8 *out);
void world_unpack(struct world *w, const u8 *in, size_t len);
void world_print(FILE *f, const struct world *w);
u32 world_events(const struct world *w, u16 *evs);
bool world_settling(const struct world *w);
void ev_name(u16 ev, char *buf, size_t len);
const char *plant_name(int p);
int plant_by_name(const char *s);

#endif /* DDSM_EXPLORE_H */
