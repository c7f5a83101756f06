// SPDX-License-Identifier: GPL-2.0
/*
 * txwire: HADES's commit protocol on the wire, with failures (issue 15).
 *
 * txexplore checks the commit rules with messages that always arrive.
 * This explorer runs the same rules (kernel/proto/txhome.c at the homes,
 * txcoord.c at the coordinators, txfate.c for what becomes of a commit
 * when something fails) over the network the kernel has, and lets it
 * fail:
 *  - one FIFO channel per direction of each connection between two
 *    nodes, delivered one message at a time, in any interleaving with
 *    every other step;
 *  - a connection loss drops whatever is in flight both ways, and each
 *    end learns of it (its "down" event) after every message that did
 *    arrive and before any of the next connection;
 *  - a reconnect at any later time, and the "up" event at each end;
 *  - a partition of two nodes only: a loss and a reconnect that comes
 *    late (any interleaving is explored, so "late" is any length);
 *  - a pause: a node that takes no step while the others go on and
 *    declare it dead (a loss of its connections).  Nothing here reads a
 *    clock, so a paused node's frozen clock is every schedule in which
 *    it does not move: covered by the interleavings;
 *  - death and return of a coordinator node: it loses everything it
 *    knew and comes back as a new incarnation;
 *  - every timeout (a read, a commit's wait) may fire at any time.
 * Validations may be deferred (a commit's owed Validations go at any
 * later time, or never if their connection went down), as the kernel's
 * deferred Validations do.
 *
 * At every state: nothing is undone after COMMIT returned 0, and nothing
 * is applied of a transaction whose COMMIT said it aborted.  From every
 * state, the failures then stop and the system runs fairly (every
 * connection back, every message delivered, every timer fired); it must
 * become quiet, and then every transaction is applied at all of its
 * participants or at none, no home holds a lock, entry or doubt, and the
 * committed transactions are conflict serializable.
 *
 * Scenarios (-s):
 *   transfer   T0 at node 0 and T1 at node 1 both move between lines x
 *              (home 0) and y (home 1): read x, read y, write x, write y
 *   third      T0 at node 2 (a coordinator that homes nothing) moves
 *              between x and y, T1 at node 0 reads both (an audit)
 *   death      T0 at node 2 moves between x and y; node 2 may die at any
 *              point and come back
 *   blind      T0 at node 0 writes x and y without reading; T1 at node 2
 *              reads both
 *   skew       T0 at node 0 reads y and writes x, T1 at node 1 reads x
 *              and writes y: serializable only if one of them aborts
 * -f N: at most N failures (connection losses and deaths; default 1).
 * -t N: only the scenario's first N transactions (default 2).
 *
 * --plant RULE puts back an old rule; the search must find a violation:
 *   old-doubt       a home in doubt asks the participants but not the
 *                   coordinator's node, rolls back when nobody is left to
 *                   ask, and after a bound (the rule before issue 15)
 *   abort-on-loss   the coordinator aborts a commit whose home went down
 *                   before it answered
 *   remote-first    the coordinator sends the remote Intends before it
 *                   takes its own lock
 *   no-tombstone    a participant asked about a transaction it has no
 *                   record of answers "not" without a tombstone
 *
 *   txwire [-s SCENARIO] [-f N] [--plant RULE] [--tap] [-q]
 */
#include <stdio.h>
#include <stdlib.h>
#include "shim.h"
#include "hashset.h"
#include "txhome.h"
#include "txcoord.h"
#include "txfate.h"
#include "serial.h"


#define NODES	3
#define LINES	2		/* x homed on node 0, y on node 1 */
#define MAXT	2
_Static_assert(MAXT <= SERIAL_MAXT, "serial.h sizes the history");
#define MAXO	4
#define ENTRIES	3		/* a home's transaction table */
#define QCAP	8		/* messages in flight one way */
#define MAXV	6		/* versions per line */
#define OWED	4

enum mtype { M_READ = 1, M_REPLY, M_INTEND, M_ACK, M_NACK, M_VALIDATE,
	     M_ABORT, M_SQUASH, M_QUERY, M_OUTCOME };

static const char *const mname[] = {
	"?", "READ", "REPLY", "INTEND", "ACK", "NACK", "VALIDATE", "ABORT",
	"SQUASH", "QUERY", "OUTCOME",
};

struct msg {
	u8 type;
	u8 a;			/* READ/REPLY: line; QUERY: ask the home part */
	u8 b;			/* REPLY: 0 or errno; OUTCOME: home part */
	u8 c;			/* REPLY: version read; OUTCOME: coordinator */
	u8 pad[4];		/* hashed: named, so initialisers zero it */
	u64 txid;
};
_Static_assert(sizeof(struct msg) == 16, "struct msg has hidden padding");

struct chan {
	u8 n;
	struct msg q[QCAP];
};

/* What a home keeps of an Intend it ACKed: to apply it, and whom to ask. */
struct kept {
	u64 txid;
	u8 t;			/* the transaction, for the checks */
	u8 lines;		/* lines written here */
	u8 parts;		/* participants (the Intend names them) */
};

struct doubt {
	u64 txid;		/* 0: none */
	struct ddsm_txdoubt d;
	u8 inflight;		/* nodes queried, answer not in */
	u8 old_ask;		/* plant old-doubt: participants still to answer */
	u8 old_validated;
};

struct node {
	u8 alive;
	u8 gen;
	u8 down;		/* peers whose "down" came and no "up" since */
	u8 down_ev;		/* peers whose "down" is to be delivered */
	u8 up_ev;		/* peers whose "up" is to be delivered */
	struct ddsm_txh h;
	struct ddsm_txh_entry ent[ENTRIES];
	struct ddsm_txh_hist hist[NODES];
	struct kept kept[ENTRIES];
	struct doubt doubt[ENTRIES];
	struct ddsm_txmem mem;	/* one slot per node */
	u8 nowed;
	struct { u64 txid; u8 home; } owed[OWED];
};

enum tstatus { T_RUNNING = 0, T_OK, T_ABORTED, T_IN_DOUBT, T_DIED };

struct tx {
	u8 node, nops, pc;
	u8 line[MAXO], is_write[MAXO];
	struct ddsm_txc c;
	u8 read_ver[LINES];	/* version read + 1 */
	u8 wrote;		/* lines */
	u8 waiting;		/* a read's answer awaited */
	u8 status;		/* enum tstatus: what its caller was told */
	u8 detached;		/* the caller gave up: goes on without it */
	u8 over;		/* the protocol is done with it */
	u8 applied, undone;	/* homes that applied it, rolled it back */
};

struct world {
	struct node nd[NODES];
	u8 conn;		/* bit a*NODES+b for a<b: connected */
	struct chan ch[NODES][NODES];
	u8 failures;		/* left */
	u8 ver[LINES];
	int8_t writer[LINES][MAXV];
	struct tx t[MAXT];
};

static u32 ntx = 2, maxfail = 1;
static const char *scenario = "transfer";
static bool tap, quiet;
static const char *plant;
static u8 may_die = 0xff;	/* node that may die, 0xff: none */
static u64 states, quiet_states;
static const char *violation;
static u64 *seen, *done;
static u64 seen_mask;
/* The steps to the state explored now, to print a counterexample. */
#define MAXDEPTH 4096
static char trail[MAXDEPTH][48];
static u32 depth;
static char label[40];
static bool first_only;		/* each_step: the first enabled step only */


static bool planted(const char *rule)
{
	return plant && !strcmp(plant, rule);
}

static u32 home_of(u32 line)
{
	return line;	/* x on node 0, y on node 1 */
}

static u8 cbit(u32 a, u32 b)
{
	return a < b ? (u8)(1u << (a * NODES + b)) : (u8)(1u << (b * NODES + a));
}

static bool connected(const struct world *w, u32 a, u32 b)
{
	return a == b || (w->conn & cbit(a, b));
}

static void fixup(struct world *w)
{
	u32 i;

	for (i = 0; i < NODES; i++) {
		w->nd[i].h.e = w->nd[i].ent;
		w->nd[i].h.hist = w->nd[i].hist;
	}
}

static void init_node(struct node *n, u8 gen)
{
	memset(n, 0, sizeof(*n));
	n->alive = 1;
	n->gen = gen;
	ddsm_txh_init(&n->h, n->ent, ENTRIES);
	ddsm_txh_set_hist(&n->h, n->hist, NODES, 1);
}

static u64 id_of(const struct tx *t)
{
	return ddsm_txid_pack(t->c.id);
}

static int tx_of(const struct world *w, u64 txid)
{
	u32 i;

	for (i = 0; i < ntx; i++)
		if (id_of(&w->t[i]) == txid)
			return (int)i;
	return -1;
}

/* A hash of what decides the future: not stats, not free entries. */
static u64 hash_world(const struct world *w)
{
	u64 x = 0xcbf29ce484222325ULL;
	u32 a, s;

#define MIX(ptr, len) (x = model_mix(x, (ptr), (len)))
	for (a = 0; a < NODES; a++) {
		const struct node *nd = &w->nd[a];

		MIX(&nd->alive, 5);
		for (s = 0; s < ENTRIES; s++) {
			const struct ddsm_txh_entry *e = &nd->ent[s];

			MIX(&e->state, 1);
			if (e->state == DDSM_TXH_FREE)
				continue;
			MIX(&e->txid, 8);
			MIX(&e->rd, sizeof(e->rd));
			MIX(&e->nr_ranges, 1);
			MIX(e->ranges, sizeof(e->ranges[0]) * e->nr_ranges);
		}
		MIX(nd->hist, sizeof(nd->hist));
		MIX(nd->kept, sizeof(nd->kept));
		MIX(nd->doubt, sizeof(nd->doubt));
		MIX(&nd->mem, sizeof(nd->mem));
		MIX(&nd->nowed, 1);
		MIX(nd->owed, sizeof(nd->owed[0]) * nd->nowed);
	}
	MIX(&w->conn, 1);
	for (a = 0; a < NODES; a++)
		for (s = 0; s < NODES; s++) {
			MIX(&w->ch[a][s].n, 1);
			MIX(w->ch[a][s].q, sizeof(struct msg) * w->ch[a][s].n);
		}
	MIX(&w->failures, 1);
	MIX(w->ver, sizeof(w->ver));
	MIX(w->writer, sizeof(w->writer));
	MIX(w->t, sizeof(w->t[0]) * ntx);
#undef MIX
	return x ? x : 1;
}

static bool in_set(u64 *set, u64 hv, bool add)
{
	return model_in_set(set, seen_mask, hv, add);
}

static bool visit(const struct world *w)
{
	if (in_set(seen, hash_world(w), true))
		return false;
	states++;
	return true;
}

/* Send: fails (false) when the connection is down, as the transport does. */
static bool send(struct world *w, u32 from, u32 to, struct msg m)
{
	struct chan *c = &w->ch[from][to];

	if (!connected(w, from, to) || !w->nd[from].alive)
		return false;
	if (c->n == QCAP) {
		u32 k;

		violation = "explorer bound: channel full";
		for (k = 0; k < c->n; k++)
			fprintf(stderr, "txwire: %u->%u holds %s %#llx %u %u %u\n",
				from, to, mname[c->q[k].type],
				(unsigned long long)c->q[k].txid, c->q[k].a,
				c->q[k].b, c->q[k].c);
		return false;
	}
	c->q[c->n++] = m;
	return true;
}

static struct msg mk(u8 type, u64 txid)
{
	struct msg m = { .type = type, .txid = txid };

	return m;
}

/* The data: @t's writes at @home go in, in the order homes apply. */
static void apply(struct world *w, u32 home, u8 ti, u8 lines)
{
	struct tx *t = &w->t[ti];
	u32 l;

	for (l = 0; l < LINES; l++) {
		if (!(lines & (1u << l)))
			continue;
		if (w->ver[l] + 1 >= MAXV) {
			violation = "explorer bound: versions";
			return;
		}
		w->writer[l][++w->ver[l]] = (int8_t)ti;
	}
	t->applied |= (u8)(1u << home);
	if (t->status == T_ABORTED)
		violation = "a transaction whose COMMIT said aborted was applied";
}

static void undone(struct world *w, u32 home, u8 ti)
{
	w->t[ti].undone |= (u8)(1u << home);
	if (w->t[ti].status == T_OK)
		violation = "a commit undone after COMMIT returned 0";
}

static struct kept *kept_of(struct node *n, u64 txid)
{
	u32 i;

	for (i = 0; i < ENTRIES; i++)
		if (n->kept[i].txid == txid)
			return &n->kept[i];
	return NULL;
}

static struct doubt *doubt_of(struct node *n, u64 txid)
{
	u32 i;

	for (i = 0; i < ENTRIES; i++)
		if (n->doubt[i].txid == txid)
			return &n->doubt[i];
	return NULL;
}

static void forget(struct node *n, u64 txid)
{
	struct kept *k = kept_of(n, txid);
	struct doubt *d = doubt_of(n, txid);

	if (k)
		memset(k, 0, sizeof(*k));
	if (d)
		memset(d, 0, sizeof(*d));
}

/* Home @h decided the commit it held: applied or rolled back. */
static void decide(struct world *w, u32 h, u64 txid, bool forward)
{
	struct node *n = &w->nd[h];
	struct kept *k = kept_of(n, txid);

	if (ddsm_txh_decide(&n->h, txid, forward)) {
		violation = "a verdict on a commit not locked here";
		return;
	}
	if (k) {
		if (forward)
			apply(w, h, k->t, k->lines);
		else
			undone(w, h, k->t);
	}
	forget(n, txid);
}

/* A coordinator's transaction @txid: squashed by a home. */
static void squashed(struct world *w, u64 txid)
{
	int ti = tx_of(w, txid);
	struct tx *t;

	if (ti < 0)
		return;
	t = &w->t[ti];
	if (ddsm_txc_squash(&t->c, txid) < 0)
		violation = "a squash after the last ACK";
}

/* Home @h dooms: squash each at its coordinator. */
static void send_squashes(struct world *w, u32 h, const u64 *doomed, u32 nd)
{
	u32 k;

	for (k = 0; k < nd; k++) {
		u32 c = ddsm_txid_unpack(doomed[k]).node;

		if (c == h)
			squashed(w, doomed[k]);
		else
			send(w, h, c, mk(M_SQUASH, doomed[k]));
	}
}

static u32 ranges_of(u8 lines, struct ddsm_tx_range *r)
{
	u32 l, nr = 0;

	for (l = 0; l < LINES; l++)
		if (lines & (1u << l)) {
			r[nr].first = l;
			r[nr].last = l;
			nr++;
		}
	return nr;
}

/* Intend-to-commit at home @h; 0 or -errno as the home answers. */
static int intend_at(struct world *w, u32 h, u8 ti)
{
	struct node *n = &w->nd[h];
	struct tx *t = &w->t[ti];
	struct ddsm_tx_range r[LINES];
	u8 lines = 0;
	u64 doomed[ENTRIES];
	u32 l, nd, i;
	int ret;

	for (l = 0; l < LINES; l++)
		if ((t->wrote & (1u << l)) && home_of(l) == h)
			lines |= (u8)(1u << l);
	ret = ddsm_txh_intend(&n->h, id_of(t), r, ranges_of(lines, r), doomed,
			      ENTRIES, &nd);
	if (nd > ENTRIES)
		violation = "too many doomed";
	if (ret == -EALREADY)
		return 0;
	if (ret)
		return ret;
	send_squashes(w, h, doomed, nd);
	if (!kept_of(n, id_of(t)))
		for (i = 0; i < ENTRIES; i++)
			if (!n->kept[i].txid) {
				n->kept[i].txid = id_of(t);
				n->kept[i].t = ti;
				n->kept[i].lines = lines;
				n->kept[i].parts = (u8)t->c.involved;
				break;
			}
	return 0;
}

/* The coordinator's answer about @txid, if @c is its node. */
static u8 coord_answer(const struct world *w, u32 c, u64 txid)
{
	struct ddsm_txid id = ddsm_txid_unpack(txid);
	const struct node *n = &w->nd[c];
	u32 running = 0, i;

	if (id.node != c || id.gen != n->gen)
		return DDSM_TXF_C_NONE;
	for (i = 0; i < ntx; i++) {
		const struct tx *t = &w->t[i];

		if (t->node == c && !t->over && t->c.id.gen == n->gen &&
		    t->c.state != DDSM_TXC_COMMITTED &&
		    t->c.state != DDSM_TXC_ABORTED)
			running = t->c.id.epoch;
	}
	return ddsm_txmem_answer(&n->mem, id.epoch, running);
}

static void start_doubt(struct world *w, u32 h, const struct kept *k)
{
	struct node *n = &w->nd[h];
	u32 coord = ddsm_txid_unpack(k->txid).node, i;
	struct doubt *d = doubt_of(n, k->txid);

	if (d)
		return;
	for (i = 0; i < ENTRIES && n->doubt[i].txid; i++)
		;
	if (i == ENTRIES) {
		violation = "explorer bound: doubts";
		return;
	}
	d = &n->doubt[i];
	memset(d, 0, sizeof(*d));
	d->txid = k->txid;
	ddsm_txd_start(&d->d, k->parts, h, coord);
	if (planted("old-doubt")) {
		/* The participants but this one, the coordinator and the down. */
		d->old_ask = (u8)(k->parts & ~(1u << h) & ~(1u << coord) &
				  ~n->down);
		d->d.verdict = d->old_ask ? DDSM_TXH_V_WAIT : DDSM_TXH_V_BACK;
	}
	if (ddsm_txd_verdict(&d->d) != DDSM_TXH_V_WAIT)
		decide(w, h, k->txid,
		       ddsm_txd_verdict(&d->d) == DDSM_TXH_V_FORWARD);
}

/* Home @h learns that @peer went down. */
static void home_down(struct world *w, u32 h, u32 peer)
{
	struct node *n = &w->nd[h];
	u32 i;

	for (i = 0; i < ENTRIES; i++) {
		struct ddsm_txh_entry *e = &n->ent[i];
		struct kept *k;

		if (e->state == DDSM_TXH_FREE ||
		    ddsm_txid_unpack(e->txid).node != peer)
			continue;
		/*
		 * Its running transactions and tombstones are forgotten (its
		 * coordinator aborts what still runs); the history refuses an
		 * Intend of one of them sent again.
		 */
		if (e->state != DDSM_TXH_LOCKED) {
			ddsm_txh_abort(&n->h, e->txid);
			continue;
		}
		k = kept_of(n, e->txid);
		if (k)
			start_doubt(w, h, k);
	}
	for (i = 0; i < ENTRIES; i++) {
		struct doubt *d = &n->doubt[i];

		d->inflight &= (u8)~(1u << peer);
		if (d->txid && planted("old-doubt")) {
			d->old_ask &= (u8)~(1u << peer);
			if (!d->old_ask && !d->d.verdict)
				decide(w, h, d->txid, d->old_validated);
		}
	}
}

/* The coordinator at @c learns that @peer went down. */
static void coord_down(struct world *w, u32 c, u32 peer)
{
	u32 i;

	for (i = 0; i < ntx; i++) {
		struct tx *t = &w->t[i];

		if (t->node != c || t->over || t->c.id.gen != w->nd[c].gen)
			continue;
		if (planted("abort-on-loss") &&
		    t->c.state == DDSM_TXC_COMMITTING &&
		    (t->c.pending & BIT_ULL(peer))) {
			t->c.state = DDSM_TXC_ABORTED;
			t->c.why = DDSM_TXC_LOST;
			continue;
		}
		ddsm_txc_lost(&t->c, peer);
		if (t->waiting && (t->c.involved & BIT_ULL(peer)))
			t->waiting = 0;	/* its read's answer is lost */
	}
}

static void coord_up(struct world *w, u32 c, u32 peer)
{
	u32 i;

	for (i = 0; i < ntx; i++) {
		struct tx *t = &w->t[i];

		if (t->node == c && !t->over &&
		    t->c.id.gen == w->nd[c].gen && ddsm_txc_back(&t->c, peer) &&
		    !send(w, c, peer, mk(M_INTEND, id_of(t))))
			ddsm_txc_lost(&t->c, peer);
	}
}

static void take_outcome(struct world *w, u32 h, u32 from, const struct msg *m)
{
	struct node *n = &w->nd[h];
	struct doubt *d = doubt_of(n, m->txid);

	if (!d)
		return;
	d->inflight &= (u8)~(1u << from);
	if (planted("old-doubt")) {
		if (!(d->old_ask & (1u << from)))
			return;
		if (m->b == DDSM_TXH_O_VALIDATED)
			d->old_validated = 1;
		else if (m->b != DDSM_TXH_O_LOCKED)
			d->old_ask &= (u8)~(1u << from);
		if (d->old_validated || !d->old_ask)
			decide(w, h, m->txid, d->old_validated);
		return;
	}
	if (ddsm_txd_take(&d->d, from, m->b, m->c) != DDSM_TXH_V_WAIT)
		decide(w, h, m->txid,
		       ddsm_txd_verdict(&d->d) == DDSM_TXH_V_FORWARD);
}

static void serve_query(struct world *w, u32 h, u32 from, const struct msg *q)
{
	struct node *n = &w->nd[h];
	u32 coord = ddsm_txid_unpack(q->txid).node;
	struct msg m = mk(M_OUTCOME, q->txid);
	u8 home = DDSM_TXH_O_NONE;

	if (q->a) {
		bool cd = n->down & (1u << coord);

		if (planted("no-tombstone") && cd &&
		    !ddsm_txh_find(&n->h, q->txid))
			home = DDSM_TXH_O_NOT;
		else
			home = (u8)ddsm_txh_outcome(&n->h, q->txid, cd);
	}
	m.b = home;
	m.c = coord_answer(w, h, q->txid);
	send(w, h, from, m);
}

/* Deliver the first message from @a to @b. */
static void deliver(struct world *w, u32 a, u32 b)
{
	struct chan *c = &w->ch[a][b];
	struct node *n = &w->nd[b];
	struct msg m = c->q[0];
	int ti = tx_of(w, m.txid), ret;
	struct tx *t = ti >= 0 ? &w->t[ti] : NULL;
	bool live = t && !t->over && t->node == b &&
		    t->c.id.gen == n->gen;

	memmove(&c->q[0], &c->q[1], (c->n - 1) * sizeof(c->q[0]));
	c->n--;
	switch (m.type) {
	case M_READ: {
		struct msg r = mk(M_REPLY, m.txid);

		ret = ddsm_txh_read(&n->h, m.txid, m.a, m.a);
		r.a = m.a;
		r.b = (u8)-ret;
		r.c = w->ver[m.a];
		send(w, b, a, r);
		break;
	}
	case M_REPLY:
		if (!live || !t->waiting || t->c.state != DDSM_TXC_RUNNING)
			break;
		t->waiting = 0;
		if (m.b) {
			ddsm_txc_squash(&t->c, m.txid);	/* refused: it aborts */
			break;
		}
		if (!t->read_ver[m.a] && !(t->wrote & (1u << m.a)))
			t->read_ver[m.a] = (u8)(m.c + 1);
		t->pc++;
		break;
	case M_INTEND:
		ret = intend_at(w, b, (u8)ti);
		send(w, b, a, mk(ret ? M_NACK : M_ACK, m.txid));
		break;
	case M_ACK:
	case M_NACK:
		if (live)
			ddsm_txc_answer(&t->c, m.txid, a, m.type == M_ACK);
		break;
	case M_VALIDATE: {
		struct kept *k = kept_of(n, m.txid);

		ret = ddsm_txh_validate(&n->h, m.txid);
		if (ret == -EPROTO)
			violation = "a Validation for a commit this home rolled back";
		else if (!ret && k)
			apply(w, b, k->t, k->lines);
		forget(n, m.txid);
		break;
	}
	case M_ABORT:
		if (ddsm_txh_find(&n->h, m.txid) &&
		    ddsm_txh_find(&n->h, m.txid)->state == DDSM_TXH_LOCKED &&
		    ti >= 0)
			undone(w, b, (u8)ti);
		ddsm_txh_abort(&n->h, m.txid);
		forget(n, m.txid);
		break;
	case M_SQUASH:
		if (live)
			squashed(w, m.txid);
		break;
	case M_QUERY:
		serve_query(w, b, a, &m);
		break;
	case M_OUTCOME:
		take_outcome(w, b, a, &m);
		break;
	}
}

/* The coordinator of @t tells its homes the outcome; its caller is told. */
static void finish(struct world *w, u8 ti)
{
	struct tx *t = &w->t[ti];
	struct node *n = &w->nd[t->node];
	bool commit = t->c.state == DDSM_TXC_COMMITTED;
	u32 h;

	ddsm_txmem_note(&n->mem, t->c.id.epoch, commit);
	if (!t->detached)
		t->status = commit ? T_OK : T_ABORTED;
	for (h = 0; h < NODES; h++) {
		if (!(t->c.involved & BIT_ULL(h)))
			continue;
		if (h == t->node) {
			struct kept *k = kept_of(n, id_of(t));

			if (commit) {
				int r = ddsm_txh_validate(&n->h, id_of(t));

				if (!r && k)
					apply(w, h, ti, k->lines);
				else if (r == -EPROTO)
					violation = "its own home rolled back a commit";
			} else {
				if (ddsm_txh_find(&n->h, id_of(t)) &&
				    ddsm_txh_find(&n->h, id_of(t))->state ==
				    DDSM_TXH_LOCKED)
					undone(w, h, ti);
				ddsm_txh_abort(&n->h, id_of(t));
			}
			forget(n, id_of(t));
		} else if (commit) {
			if (n->nowed == OWED) {
				violation = "explorer bound: owed";
				return;
			}
			n->owed[n->nowed].txid = id_of(t);
			n->owed[n->nowed].home = (u8)h;
			n->nowed++;
		} else {
			send(w, t->node, h, mk(M_ABORT, id_of(t)));
		}
	}
	t->over = 1;
}

/* Can tx_step() move @t?  (A cheap test before the world is copied.) */
static bool tx_may_step(const struct world *w, u32 ti)
{
	const struct tx *t = &w->t[ti];
	const struct node *n = &w->nd[t->node];

	return !t->over && n->alive && t->c.id.gen == n->gen && !t->waiting &&
	       t->c.state != DDSM_TXC_COMMITTING;
}

/* One step of transaction @ti's coordinator; false if it cannot move. */
static bool tx_step(struct world *w, u8 ti)
{
	struct tx *t = &w->t[ti];
	u32 c = t->node, h, l;
	struct node *n = &w->nd[c];
	u64 to;
	int ret;

	if (t->over || !n->alive || t->c.id.gen != n->gen || t->waiting)
		return false;
	if (t->c.state == DDSM_TXC_COMMITTED ||
	    t->c.state == DDSM_TXC_ABORTED) {
		finish(w, ti);
		return true;
	}
	if (t->c.state == DDSM_TXC_COMMITTING)
		return false;
	if (t->pc < t->nops) {
		l = t->line[t->pc];
		h = home_of(l);
		ddsm_txc_touch(&t->c, h);
		if (t->is_write[t->pc]) {
			t->wrote |= (u8)(1u << l);
			t->pc++;
			return true;
		}
		if (h != c) {
			struct msg m = mk(M_READ, id_of(t));

			m.a = (u8)l;
			if (send(w, c, h, m))
				t->waiting = 1;
			else
				ddsm_txc_lost(&t->c, h);
			return true;
		}
		ret = ddsm_txh_read(&n->h, id_of(t), l, l);
		if (ret) {
			ddsm_txc_squash(&t->c, id_of(t));
			return true;
		}
		if (!t->read_ver[l] && !(t->wrote & (1u << l)))
			t->read_ver[l] = (u8)(w->ver[l] + 1);
		t->pc++;
		return true;
	}
	ddsm_txc_commit(&t->c, &to);
	if (t->c.state == DDSM_TXC_COMMITTED)
		return true;		/* touched nothing */
	if ((to & BIT_ULL(c)) && !planted("remote-first")) {
		ret = intend_at(w, c, ti);
		ddsm_txc_answer(&t->c, id_of(t), c, !ret);
		if (ret)
			return true;	/* aborted: no Intend went out */
	}
	for (h = 0; h < NODES; h++)
		if (h != c && (to & BIT_ULL(h)) &&
		    !send(w, c, h, mk(M_INTEND, id_of(t))))
			ddsm_txc_lost(&t->c, h);
	if ((to & BIT_ULL(c)) && planted("remote-first")) {
		ret = intend_at(w, c, ti);
		ddsm_txc_answer(&t->c, id_of(t), c, !ret);
	}
	return true;
}

/*
 * A timeout at @t's coordinator: a read's answer given up (it aborts), or
 * the commit's wait given up (its caller is told "in doubt"; the commit
 * goes on without it).
 */
static bool tx_timeout(struct world *w, u8 ti)
{
	struct tx *t = &w->t[ti];
	struct node *n = &w->nd[t->node];
	struct kept *k;

	if (t->over || !n->alive || t->c.id.gen != n->gen)
		return false;
	if (t->waiting) {
		t->waiting = 0;
		ddsm_txc_squash(&t->c, id_of(t));	/* ETIMEDOUT: aborts */
		return true;
	}
	if (t->c.state != DDSM_TXC_COMMITTING || t->detached)
		return false;
	if (planted("abort-on-loss")) {
		t->c.state = DDSM_TXC_ABORTED;
		return true;
	}
	t->detached = 1;
	t->status = T_IN_DOUBT;
	/* Its own part, if locked, is settled as any participant's. */
	k = kept_of(n, id_of(t));
	if (k)
		start_doubt(w, t->node, k);
	return true;
}

/* A home's doubt timer: ask again those whose answer is missing. */
static bool query_step(struct world *w, u32 h, u32 i)
{
	struct node *n = &w->nd[h];
	struct doubt *d = &n->doubt[i];
	u64 ask;
	u32 p;
	bool sent = false;

	if (!d->txid || !n->alive)
		return false;
	ask = planted("old-doubt") ? d->old_ask : ddsm_txd_to_ask(&d->d);
	for (p = 0; p < NODES; p++) {
		struct msg m = mk(M_QUERY, d->txid);

		if (!(ask & BIT_ULL(p)) || (d->inflight & (1u << p)) ||
		    !connected(w, h, p))
			continue;
		m.a = (u8)((d->d.need | ((const struct kept *)
			    kept_of(n, d->txid))->parts) >> p & 1);
		if (send(w, h, p, m)) {
			d->inflight |= (u8)(1u << p);
			sent = true;
		}
	}
	return sent;
}

/* The old rule's bound: no verdict in time, rolled back. */
static bool old_bound(struct world *w, u32 h, u32 i)
{
	struct doubt *d = &w->nd[h].doubt[i];

	if (!planted("old-doubt") || !d->txid || !w->nd[h].alive)
		return false;
	decide(w, h, d->txid, false);
	return true;
}

static bool pay_owed(struct world *w, u32 c)
{
	struct node *n = &w->nd[c];

	if (!n->nowed || !n->alive)
		return false;
	send(w, c, n->owed[0].home, mk(M_VALIDATE, n->owed[0].txid));
	memmove(&n->owed[0], &n->owed[1], (n->nowed - 1) * sizeof(n->owed[0]));
	n->nowed--;
	return true;
}

/* The connection between @a and @b is lost. */
static void lose(struct world *w, u32 a, u32 b)
{
	w->conn &= (u8)~cbit(a, b);
	w->ch[a][b].n = 0;
	w->ch[b][a].n = 0;
	if (w->nd[a].alive) {
		w->nd[a].down_ev |= (u8)(1u << b);
		w->nd[a].up_ev &= (u8)~(1u << b);
	}
	if (w->nd[b].alive) {
		w->nd[b].down_ev |= (u8)(1u << a);
		w->nd[b].up_ev &= (u8)~(1u << a);
	}
}

static void die(struct world *w, u32 a)
{
	u32 b, i;

	for (b = 0; b < NODES; b++)
		if (b != a && connected(w, a, b))
			lose(w, a, b);
	for (i = 0; i < ntx; i++)
		if (w->t[i].node == a && !w->t[i].over) {
			w->t[i].over = 1;
			if (w->t[i].status == T_RUNNING)
				w->t[i].status = T_DIED;
		}
	init_node(&w->nd[a], (u8)(w->nd[a].gen + 1));
	w->nd[a].alive = 0;
}

/*
 * Every step that can happen in @w, each applied to a copy; @fn sees
 * each resulting world.  @fail: failures may happen.  The order is the
 * fair completion's preference (complete()): what the network and the
 * nodes' events bring first, then the transactions' own steps, then
 * timers, then failures.
 */
static void each_step(const struct world *w, bool fail,
		      void (*fn)(struct world *next, void *arg), void *arg)
{
	struct world *next = malloc(sizeof(*next));
	u32 a = 0, b = 0, i = 0;

/* @cond reads only @w: tested before the copy. */
#define TRY(name, cond, body) TRY_IF(name, cond, true, body)
#define TRY_IF(name, pre, cond, body) do {				\
		if (!(pre))						\
			break;						\
		*next = *w;						\
		fixup(next);						\
		if (cond) {						\
			snprintf(label, sizeof(label), "%s %u %u %u",	\
				 name, a, b, i);			\
			body;						\
			if (violation)					\
				goto out;				\
			fn(next, arg);					\
			if (violation || first_only)			\
				goto out;				\
		}							\
	} while (0)
	for (a = 0; a < NODES; a++) {
		TRY("revive", !w->nd[a].alive, init_node(&next->nd[a], next->nd[a].gen));
		for (b = 0; b < NODES; b++) {
			if (a == b)
				continue;
			TRY("down-event", w->nd[a].down_ev & (1u << b),
			    (next->nd[a].down_ev &= (u8)~(1u << b),
			     next->nd[a].down |= (u8)(1u << b),
			     home_down(next, a, b), coord_down(next, a, b)));
			TRY("up-event", (w->nd[a].up_ev & (1u << b)) &&
			    !(w->nd[a].down_ev & (1u << b)),
			    (next->nd[a].up_ev &= (u8)~(1u << b),
			     next->nd[a].down &= (u8)~(1u << b),
			     coord_up(next, a, b)));
			TRY("reconnect", a < b && !connected(w, a, b) && w->nd[a].alive &&
			    w->nd[b].alive && !w->nd[a].down_ev &&
			    !w->nd[b].down_ev,
			    (next->conn |= cbit(a, b),
			     next->nd[a].up_ev |= (u8)(1u << b),
			     next->nd[b].up_ev |= (u8)(1u << a)));
			TRY(mname[w->ch[a][b].q[0].type], w->ch[a][b].n &&
			    !(w->nd[b].down_ev & (1u << a)),
			    deliver(next, a, b));
		}
	}
	for (i = 0; i < ntx; i++)
		TRY_IF("tx-step", tx_may_step(w, i), tx_step(next, (u8)i), );
	for (a = 0; a < NODES; a++) {
		TRY_IF("pay-owed", w->nd[a].nowed, pay_owed(next, a), );
		for (i = 0; i < ENTRIES; i++)
			TRY_IF("query", w->nd[a].doubt[i].txid, query_step(next, a, i), );
	}
	for (i = 0; i < ntx; i++)
		TRY_IF("timeout", !w->t[i].over, tx_timeout(next, (u8)i), );
	if (!fail)
		goto out;
	for (a = 0; a < NODES; a++) {
		for (i = 0; i < ENTRIES; i++)
			TRY_IF("old-bound", w->nd[a].doubt[i].txid, old_bound(next, a, i), );
		for (b = a + 1; b < NODES; b++)
			TRY("LOSS", w->failures && connected(w, a, b),
			    (next->failures--, lose(next, a, b)));
		TRY("DEATH", w->failures && a == may_die && w->nd[a].alive,
		    (next->failures--, die(next, a)));
	}
#undef TRY
out:
	free(next);
}

/* A quiet world: every transaction whole or absent, serializable. */
static void check_quiet(const struct world *w)
{
	struct serial sg = { .n = ntx };
	u32 i, l, h, s;

	quiet_states++;
	for (h = 0; h < NODES; h++)
		for (s = 0; s < ENTRIES; s++) {
			if (w->nd[h].ent[s].state == DDSM_TXH_LOCKED)
				violation = "a lock left behind";
			else if (w->nd[h].doubt[s].txid)
				violation = "a doubt left behind";
		}
	for (i = 0; i < ntx && !violation; i++) {
		const struct tx *t = &w->t[i];
		u8 writers = 0, aw;

		for (l = 0; l < LINES; l++)
			if (t->wrote & (1u << l))
				writers |= (u8)(1u << home_of(l));
		aw = t->applied & writers;
		if (aw && aw != writers)
			violation = "a commit applied at some homes and not at others";
		if (t->status == T_OK && (t->applied & writers) != writers)
			violation = "a commit that returned 0 is missing at a home";
		if (t->status == T_ABORTED && t->applied)
			violation = "an aborted transaction was applied";
		if (!(t->applied & writers) && t->wrote)
			continue;
		if (!t->wrote && t->status != T_OK)
			continue;	/* a reader that did not commit */
		for (l = 0; l < LINES; l++)
			serial_read(&sg, i, w->writer[l], w->ver[l],
				    t->read_ver[l]);
	}
	for (l = 0; l < LINES; l++)
		serial_writes(&sg, w->writer[l], w->ver[l]);
	if (!violation && serial_cyclic(&sg))
		violation = "a committed history is not serializable";
}

static bool is_quiet(const struct world *w)
{
	u32 a, b, i;

	for (i = 0; i < ntx; i++)
		if (!w->t[i].over)
			return false;
	for (a = 0; a < NODES; a++) {
		const struct node *n = &w->nd[a];

		if (!n->alive || n->down_ev || n->up_ev || n->nowed)
			return false;
		for (i = 0; i < ENTRIES; i++)
			if (n->doubt[i].txid)
				return false;
		for (b = 0; b < NODES; b++)
			if (w->ch[a][b].n || (a != b && !connected(w, a, b)))
				return false;
	}
	return true;
}

struct first {
	struct world w;
	bool found;
};

static void take_first(struct world *next, void *arg)
{
	struct first *f = arg;

	if (!f->found) {
		f->w = *next;
		fixup(&f->w);
		f->found = true;
	}
}

/*
 * The failures stop: run fairly from @w (each enabled step in turn, the
 * first one each time, which the step order makes fair: deliveries and
 * events before timers) until quiet, within a bound.
 */
static void complete(const struct world *w0)
{
	static struct first f;
	static u64 path[400];
	struct world w = *w0;
	u32 steps, k;

	fixup(&w);
	for (steps = 0; steps < 400 && !violation; steps++) {
		path[steps] = hash_world(&w);
		/* From here the fair run was seen to end well already. */
		if (in_set(done, path[steps], false))
			break;
		if (is_quiet(&w)) {
			check_quiet(&w);
			break;
		}
		f.found = false;
		first_only = true;
		each_step(&w, false, take_first, &f);
		first_only = false;
		if (violation)
			break;
		if (!f.found) {
			violation = "stuck: nothing can move and it is not quiet";
			break;
		}
		if (!violation)
			snprintf(trail[depth < MAXDEPTH ? depth : MAXDEPTH - 1],
				 sizeof(trail[0]), "(fair) %s", label);
		w = f.w;
		fixup(&w);
	}
	if (!violation && steps == 400)
		violation = "no quiet state within 400 fair steps";
	if (violation) {
		if (getenv("TXWIRE_TRAIL"))
			fprintf(stderr, "txwire: then %u fair steps\n", steps);
		return;
	}
	for (k = 0; k < steps; k++)
		in_set(done, path[k], true);
}

static void explore(struct world *w, void *arg);

static void explore(struct world *w, void *arg)
{
	(void)arg;
	if (violation || !visit(w))
		return;
	if (depth < MAXDEPTH)
		strcpy(trail[depth], label);
	depth++;
	complete(w);
	if (!violation)
		each_step(w, true, explore, NULL);
	if (!violation)
		depth--;
}

static void print_trail(void)
{
	u32 k;

	fprintf(stderr, "txwire: %u steps to the violation:\n", depth);
	for (k = 1; k < depth && k < MAXDEPTH; k++)
		fprintf(stderr, "  %3u %s\n", k, trail[k]);
}

static void program(struct tx *t, u8 node, const char *ops)
{
	memset(t, 0, sizeof(*t));
	t->node = node;
	while (*ops && t->nops < MAXO) {
		t->is_write[t->nops] = ops[0] == 'W';
		t->line[t->nops] = (u8)(ops[1] - 'x');
		t->nops++;
		ops += 2;
	}
}

static int setup(struct world *w)
{
	u32 i;

	memset(w, 0, sizeof(*w));
	memset(w->writer, -1, sizeof(w->writer));
	for (i = 0; i < NODES; i++)
		init_node(&w->nd[i], (u8)(1 + i * 16));
	w->conn = (u8)(cbit(0, 1) | cbit(0, 2) | cbit(1, 2));
	w->failures = (u8)maxfail;
	if (!strcmp(scenario, "transfer")) {
		program(&w->t[0], 0, "RxRyWxWy");
		program(&w->t[1], 1, "RxRyWxWy");
	} else if (!strcmp(scenario, "third")) {
		program(&w->t[0], 2, "RxRyWxWy");
		program(&w->t[1], 0, "RxRy");
	} else if (!strcmp(scenario, "death")) {
		program(&w->t[0], 2, "RxRyWxWy");
		program(&w->t[1], 0, "RxRy");
		may_die = 2;
	} else if (!strcmp(scenario, "skew")) {
		program(&w->t[0], 0, "RyWx");
		program(&w->t[1], 1, "RxWy");
	} else if (!strcmp(scenario, "blind")) {
		program(&w->t[0], 0, "WxWy");
		program(&w->t[1], 2, "RxRy");
	} else {
		return -1;
	}
	for (i = 0; i < ntx; i++)
		ddsm_txc_begin(&w->t[i].c, w->t[i].node,
			       w->nd[w->t[i].node].gen, 0);
	return 0;
}

int main(int argc, char **argv)
{
	static struct world w;
	int a;

	for (a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "-s") && a + 1 < argc)
			scenario = argv[++a];
		else if (!strcmp(argv[a], "-f") && a + 1 < argc)
			maxfail = (u32)atoi(argv[++a]);
		else if (!strcmp(argv[a], "-t") && a + 1 < argc)
			ntx = (u32)atoi(argv[++a]);
		else if (!strcmp(argv[a], "--plant") && a + 1 < argc)
			plant = argv[++a];
		else if (!strcmp(argv[a], "--tap"))
			tap = true;
		else if (!strcmp(argv[a], "-q"))
			quiet = true;
		else
			goto usage;
	}
	if (ntx < 1 || ntx > MAXT || setup(&w) || maxfail > 4)
		goto usage;
	fixup(&w);
	seen_mask = (1ULL << 24) - 1;
	seen = calloc(seen_mask + 1, sizeof(*seen));
	done = calloc(seen_mask + 1, sizeof(*done));
	if (!seen || !done) {
		fprintf(stderr, "txwire: out of memory\n");
		return 2;
	}
	explore(&w, NULL);
	if (violation && getenv("TXWIRE_TRAIL"))
		print_trail();
	if (plant) {
		if (tap)
			printf("%s - txwire %s, %u failure%s: planted %s %s%s%s\n",
			       violation ? "ok" : "not ok", scenario, maxfail,
			       maxfail == 1 ? "" : "s", plant,
			       violation ? "caught" : "NOT caught",
			       violation ? ": " : "", violation ? violation : "");
		else if (!quiet)
			printf("%llu states: %s\n", (unsigned long long)states,
			       violation ? violation : "no violation");
		free(seen);
		return violation ? 0 : 1;
	}
	if (tap)
		printf("%s - txwire %s (%u tx), %u failure%s: %llu states, %llu quiet ends%s%s\n",
		       violation ? "not ok" : "ok", scenario, ntx, maxfail,
		       maxfail == 1 ? "" : "s", (unsigned long long)states,
		       (unsigned long long)quiet_states,
		       violation ? ": " : ", all-or-nothing, never undone, serializable, no lock left",
		       violation ? violation : "");
	else if (!quiet)
		printf("%llu states, %llu quiet ends: %s\n",
		       (unsigned long long)states,
		       (unsigned long long)quiet_states,
		       violation ? violation : "no violation");
	free(seen);
	return violation ? 1 : 0;
usage:
	fprintf(stderr, "usage: txwire [-t 1..2] [-s transfer|third|death|blind|skew] [-f 0..4] [--plant old-doubt|abort-on-loss|remote-first|no-tombstone] [--tap] [-q]\n");
	return 2;
}
