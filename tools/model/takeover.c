// SPDX-License-Identifier: GPL-2.0
/*
 * takeover: one home per unit, always (issue 34).  Every history of a
 * home h (node 0), its backup b (node 1) and a writer (the last node)
 * over one unit, on 2, 3 or 4 configured nodes, with the failures of
 * txwire (issue 15), run against the fenced-epoch rule of
 * kernel/proto/takeover.c:
 *  - one FIFO channel per direction of each connection, delivered one
 *    message at a time in any interleaving with every other step;
 *  - a connection loss drops what is in flight both ways; each end hears
 *    its "down" after every message that did arrive; a reconnect at any
 *    later time ("up" at each end).  A partition of two nodes only is a
 *    loss whose reconnect comes late: every interleaving is explored;
 *  - a pause: the node takes no step (its clock does not move, its
 *    events wait) while the others declare it dead (its connections are
 *    lost); it resumes at any later time with what it knew;
 *  - death and return: the node loses what it had in memory (a tally, a
 *    candidacy's votes, the writer's write) and keeps what is durable
 *    (its view of the epoch, the unit's image or replica).
 * Nothing reads a clock: every timeout (the writer's, the peers' that
 * declare a node dead) may fire at any time.
 *
 * The writer writes writes 1..W one at a time to the owner it knows,
 * tagged with its node's epoch; a write it gives up on (a timeout) is
 * never retried.  The owner applies a write to its image and sends the
 * image, tagged, to every node; the backup stores it; each answers OK
 * while its view is that epoch of that owner; the owner acknowledges
 * when ddsm_tko_may_ack() says so.  The backup asks for a takeover and
 * the owner for a degrade (ddsm_tko_propose()) when they believe the
 * other dead; the winner tells every node (again when one reconnects).
 *
 * Invariants, at every state, where a node "may acknowledge" when its
 * view is the established owner of epoch E and the views of a majority
 * and of E's backup are E of that owner (the OKs it could still get):
 *  - one home: never two nodes that may acknowledge a new write;
 *  - no acknowledged write lost: every write acknowledged to the writer
 *    is in the image of every node that may acknowledge.
 *
 * --plant old-rule: the rule before issue 34: the backup takes over on
 * its own (no vote: it serves as soon as it believes the home dead), and
 * a home whose backup is away keeps serving its epoch and acknowledges
 * alone (the degraded mode); a node that restarts serves nothing and
 * takes nothing over before its backup's word (not in sync).  A node
 * may then acknowledge whenever it is up and its view says it serves.
 * The search must catch it.
 *
 * --plant unnamed-ok: an OK counts for the write being acknowledged
 * whatever image it answers (the rule before the model found it).
 * --plant no-fence: a node answers OK to the image of an older epoch too
 * (without storing it), and the writer takes an acknowledgement of any
 * epoch: the votes without the fence.
 * --only-lost: check only that no acknowledged write is lost (to see a
 * plant lose one rather than stop at the two homes before it).
 *
 *   takeover [-n 2..4] [-f N] [-w 1..3] [-k loss,pause,death]
 *            [--plant old-rule|unnamed-ok|no-fence] [--only-lost]
 *            [--tap] [-q]
 * TAKEOVER_TRAIL=1 prints the steps to a violation; TAKEOVER_BITS=N sizes
 * the hash table (2^N slots, 24 by default, as txwire's).  States are
 * canonical (canon()): what can never be used again is forgotten.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "shim.h"
#include "hashset.h"
#include "takeover.h"

#define MAXN	4
#define QCAP	8		/* messages in flight one way */
#define HOME	0
#define BACKUP	1
#define NOBODY	0xff

enum mtype { M_WRITE = 1, M_ACK, M_PUT, M_OK, M_VREQ, M_VOTE, M_NOTICE };

static const char *const mname[] = {
	"?", "WRITE", "ACK", "PUT", "OK", "VREQ", "VOTE", "NOTICE",
};

/*
 * Every field a u8, so that the world has no padding and is hashed and
 * compared whole (memset once, copied with memcpy).
 */
struct msg {
	u8 type;
	u8 e;			/* the epoch it is tagged with */
	u8 a;			/* WRITE/ACK: write; PUT: image; VOTE: granted;
				 * NOTICE: backup */
	u8 s;			/* PUT, OK: the image's last write's number;
				 * NOTICE: the owner */
};

struct chan {
	u8 n;
	struct msg q[QCAP];
};

struct node {
	u8 alive, paused;
	u8 down;		/* peers whose "down" came and no "up" since */
	u8 down_ev;		/* peers whose "down" is to be delivered */
	u8 up_ev;		/* peers whose "up" is to be delivered */
	/* Durable: the view, and the unit's image (owner) or replica. */
	u8 epoch, owner, backup, est;
	u8 data;		/* bit w: write w is in it */
	u8 seq;			/* the owner's writes applied to its image */
	/* In memory: a candidacy's votes, the write being acknowledged. */
	u8 vote_e, votes, asked;
	u8 vreq_from, vreq_e;	/* a vote request refused so far */
	u8 ack_e, ack_yes, ack_w, ack_seq;
};

struct world {
	struct node nd[MAXN];
	u8 conn[MAXN][MAXN];
	struct chan ch[MAXN][MAXN];
	u8 failures;		/* left */
	u8 cur;			/* the writer's write, nwrites + 1: done */
	u8 waiting;		/* for its acknowledgement */
	u8 acked;		/* bit w: write w acknowledged to the writer */
};

_Static_assert(_Alignof(struct world) == 1, "a world without padding");

static u32 nodes = 3, maxfail = 1, nwrites = 2;
static u32 writer;		/* the writer's node: the last one */
static bool tap, quiet, old_rule, unnamed_ok, no_fence;
static bool only_lost;		/* --only-lost: "one home" not checked */
static bool k_loss = true, k_pause = true, k_death = true;
static const char *kinds = "loss,pause,death";
static u64 states;
static const char *violation;
static char vbuf[160];
static u64 *seen;
static u64 seen_mask;
static u64 max_states;
/* What the search reached, so that a pass is not vacuous. */
static bool saw_takeover, saw_degrade, saw_ack2;

#define MAXDEPTH 4096
static char trail[MAXDEPTH][48];
static u32 depth, maxdepth;
static char label[48];

/* ---- the rule: the node's view to and from kernel/proto/takeover.h ---- */

static struct ddsm_tko_view view_of(const struct node *n)
{
	struct ddsm_tko_view v;

	memset(&v, 0, sizeof(v));
	v.epoch = n->epoch;
	v.owner = n->owner;
	v.backup = n->backup == NOBODY ? DDSM_TKO_NONE : n->backup;
	v.established = n->est;
	return v;
}

static void set_view(struct node *n, const struct ddsm_tko_view *v)
{
	n->epoch = (u8)v->epoch;
	n->owner = (u8)v->owner;
	n->backup = v->backup == DDSM_TKO_NONE ? NOBODY : (u8)v->backup;
	n->est = v->established;
}

static struct ddsm_tko_tally tally_of(u8 e, u8 yes)
{
	struct ddsm_tko_tally t;

	memset(&t, 0, sizeof(t));
	t.epoch = e;
	t.yes = yes;
	return t;
}

static u64 down_of(const struct node *n)
{
	return n->down;
}

/* ---- the network ---- */

static bool connected(const struct world *w, u32 a, u32 b)
{
	return a == b || w->conn[a][b];
}

static bool up(const struct node *n)
{
	return n->alive && !n->paused;
}

/* Send: fails (false) when the connection is down, as the transport does. */
static bool send(struct world *w, u32 from, u32 to, u8 type, u8 e, u8 a,
		 u8 s)
{
	struct chan *c = &w->ch[from][to];

	if (!connected(w, from, to) || !w->nd[from].alive)
		return false;
	if (c->n == QCAP) {
		violation = "explorer bound: channel full";
		if (getenv("TAKEOVER_TRAIL"))
			for (u32 k = 0; k < c->n; k++)
				fprintf(stderr, "  %u->%u %s e%u a%u s%u\n", from, to, mname[c->q[k].type], c->q[k].e, c->q[k].a, c->q[k].s);
		return false;
	}
	c->q[c->n].type = type;
	c->q[c->n].e = e;
	c->q[c->n].a = a;
	c->q[c->n].s = s;
	c->n++;
	return true;
}

static void send_others(struct world *w, u32 from, u8 type, u8 e, u8 a,
			u8 s)
{
	u32 m;

	for (m = 0; m < nodes; m++)
		if (m != from)
			send(w, from, m, type, e, a, s);
}

static void lose(struct world *w, u32 a, u32 b)
{
	w->conn[a][b] = 0;
	w->conn[b][a] = 0;
	w->ch[a][b].n = 0;
	w->ch[b][a].n = 0;
	memset(w->ch[a][b].q, 0, sizeof(w->ch[a][b].q));
	memset(w->ch[b][a].q, 0, sizeof(w->ch[b][a].q));
	if (w->nd[a].alive) {
		w->nd[a].down_ev |= (u8)(1u << b);
		w->nd[a].up_ev &= (u8)~(1u << b);
	}
	if (w->nd[b].alive) {
		w->nd[b].down_ev |= (u8)(1u << a);
		w->nd[b].up_ev &= (u8)~(1u << a);
	}
}

static void lose_all(struct world *w, u32 a)
{
	u32 b;

	for (b = 0; b < nodes; b++)
		if (b != a && connected(w, a, b))
			lose(w, a, b);
}

/* ---- the nodes ---- */

static void forget(struct node *n)
{
	n->vreq_from = NOBODY;
	n->vreq_e = 0;
	n->vote_e = 0;
	n->votes = 0;
	n->asked = 0;
	n->ack_e = 0;
	n->ack_yes = 0;
	n->ack_w = 0;
	n->ack_seq = 0;
}

static void die(struct world *w, u32 a)
{
	struct node *n = &w->nd[a];

	lose_all(w, a);
	memset(w->ch[a][a].q, 0, sizeof(w->ch[a][a].q));
	w->ch[a][a].n = 0;
	forget(n);
	n->alive = 0;
	n->paused = 0;
	n->down = 0;
	n->down_ev = 0;
	n->up_ev = 0;
	if (a == writer && w->waiting) {
		w->waiting = 0;
		w->cur++;	/* its caller was told nothing: given up */
	}
}

static void revive(struct world *w, u32 a)
{
	struct node *n = &w->nd[a];

	n->alive = 1;
	/* Connected to nobody: every peer is away until it reconnects. */
	n->down = (u8)(((1u << nodes) - 1) & ~(1u << a));
	/*
	 * The old rule: a node that restarts serves nothing and takes
	 * nothing over before a peer's notice says who serves (a backup
	 * that restarted is not in sync).
	 */
	if (old_rule)
		n->est = 0;
}

/* Node @b grants the vote it was asked for, if it may now. */
static void vote(struct world *w, u32 b)
{
	struct node *n = &w->nd[b];
	struct ddsm_tko_view v = view_of(n);
	u32 c = n->vreq_from;

	if (c == NOBODY || !ddsm_tko_vote(&v, n->vreq_e, c, b, down_of(n)))
		return;
	set_view(n, &v);
	send(w, b, c, M_VOTE, n->vreq_e, 1, 0);
	n->vreq_from = NOBODY;
	n->vreq_e = 0;
}

/* The owner may acknowledge its write: under the rule, or the old one. */
static bool may_ack(const struct node *n, u32 self)
{
	struct ddsm_tko_view v = view_of(n);
	struct ddsm_tko_tally t = tally_of(n->ack_e, n->ack_yes);

	t.seq = n->ack_seq;
	if (old_rule)
		return ddsm_tko_serving(&v, self) && t.epoch == v.epoch &&
		       (v.backup == DDSM_TKO_NONE ||
			(t.yes & BIT_ULL(v.backup)) ||
			(n->down & (1u << v.backup)));
	return ddsm_tko_may_ack(&v, &t, self, nodes);
}

static void try_ack(struct world *w, u32 h)
{
	struct node *n = &w->nd[h];

	if (!n->ack_w || !may_ack(n, h))
		return;
	send(w, h, writer, M_ACK, n->ack_e, n->ack_w, 0);
	n->ack_w = 0;
	n->ack_e = 0;
	n->ack_yes = 0;
	n->ack_seq = 0;
}

static void deliver(struct world *w, u32 a, u32 b)
{
	struct chan *c = &w->ch[a][b];
	struct msg m = c->q[0];
	struct node *n = &w->nd[b];
	struct ddsm_tko_view v = view_of(n);
	struct ddsm_tko_tally t;

	memmove(&c->q[0], &c->q[1], (c->n - 1) * sizeof(c->q[0]));
	c->n--;
	memset(&c->q[c->n], 0, sizeof(c->q[0]));
	switch (m.type) {
	case M_WRITE:
		if (!ddsm_tko_serving(&v, b) || m.e != v.epoch)
			break;	/* refused: the writer's timeout */
		n->data |= (u8)(1u << m.a);
		n->seq++;
		t = tally_of(0, 0);
		ddsm_tko_ack_start(&t, &v, b, n->seq);
		n->ack_e = (u8)t.epoch;
		n->ack_yes = (u8)t.yes;
		n->ack_seq = (u8)t.seq;
		n->ack_w = m.a;
		send_others(w, b, M_PUT, m.e, n->data, n->seq);
		try_ack(w, b);
		break;
	case M_PUT:
		/* plant no-fence: an older epoch is answered too */
		if (ddsm_tko_check(&v, m.e, a) != DDSM_TKO_ACCEPT &&
		    !(no_fence && m.e < v.epoch))
			break;
		if (m.e != v.epoch) {
			send(w, b, a, M_OK, m.e, 0, m.s);
			break;
		}
		if (v.backup == b) {
			n->data = m.a;	/* the replica: durable, then OK */
			n->seq = m.s;
		}
		send(w, b, a, M_OK, m.e, 0, m.s);
		break;
	case M_OK:
		if (!n->ack_w)
			break;
		t = tally_of(n->ack_e, n->ack_yes);
		t.seq = n->ack_seq;
		/* plant unnamed-ok: an OK counts whatever image it answers */
		ddsm_tko_ack_take(&t, m.e, unnamed_ok ? t.seq : m.s, a);
		n->ack_yes = (u8)t.yes;
		try_ack(w, b);
		break;
	case M_ACK:
		if (b != writer || !w->waiting || m.a != w->cur ||
		    (!ddsm_tko_ack_current(&v, m.e) && !no_fence))
			break;
		w->acked |= (u8)(1u << m.a);
		w->waiting = 0;
		w->cur++;
		if (m.e > 1)
			saw_ack2 = true;
		break;
	case M_VREQ:
		/*
		 * A refusal is not sent: the voter keeps the request and
		 * grants it when it too comes to believe the owner dead.
		 */
		n->vreq_from = (u8)a;
		n->vreq_e = m.e;
		vote(w, b);
		break;
	case M_VOTE:
		n->asked &= (u8)~(1u << a);
		if (!m.a)
			break;
		t = tally_of(n->vote_e, n->votes);
		if (ddsm_tko_count(&v, &t, b, m.e, a, nodes)) {
			set_view(n, &v);
			send_others(w, b, M_NOTICE, m.e, n->backup, (u8)b);
			if (b == BACKUP)
				saw_takeover = true;
			else
				saw_degrade = true;
		}
		n->votes = (u8)t.yes;
		break;
	case M_NOTICE:
		ddsm_tko_notice(&v, m.e, m.s,
				m.a == NOBODY ? DDSM_TKO_NONE : m.a);
		set_view(n, &v);
		break;
	}
}

/* The backup or the owner asks for the next epoch. */
static bool propose(struct world *w, u32 a)
{
	struct node *n = &w->nd[a];
	struct ddsm_tko_view v = view_of(n);
	struct ddsm_tko_tally t = tally_of(0, 0);
	enum ddsm_tko_kind k = ddsm_tko_may_propose(&v, a, down_of(n));
	u32 m;

	if (k == DDSM_TKO_K_NONE)
		return false;
	if (old_rule) {
		/* The old rule: the backup alone; the home just goes on. */
		if (k != DDSM_TKO_K_TAKEOVER)
			return false;
		n->epoch++;
		n->owner = (u8)a;
		n->backup = NOBODY;
		n->est = 1;
		saw_takeover = true;
		send_others(w, a, M_NOTICE, n->epoch, NOBODY, (u8)a);
		return true;
	}
	if (ddsm_tko_propose(&v, &t, a, down_of(n)))
		return false;
	set_view(n, &v);
	n->vote_e = (u8)t.epoch;
	n->votes = (u8)t.yes;
	n->asked = 0;
	for (m = 0; m < nodes; m++)
		if (m != a && send(w, a, m, M_VREQ, n->epoch, 0, 0))
			n->asked |= (u8)(1u << m);
	return true;
}

static bool may_propose(const struct node *n, u32 a)
{
	struct ddsm_tko_view v = view_of(n);
	enum ddsm_tko_kind k = ddsm_tko_may_propose(&v, a, down_of(n));

	if (old_rule)
		return k == DDSM_TKO_K_TAKEOVER;
	return k != DDSM_TKO_K_NONE;
}

/* Peers a candidate may ask (again): connected, no answer awaited. */
static u8 to_ask(const struct world *w, u32 a)
{
	const struct node *n = &w->nd[a];
	u8 r = 0;
	u32 m;

	if (n->est || n->owner != a || !n->vote_e || n->vote_e != n->epoch)
		return 0;
	for (m = 0; m < nodes; m++)
		if (m != a && connected(w, a, m) &&
		    !((n->asked | n->votes) & (1u << m)))
			r |= (u8)(1u << m);
	return r;
}

static void ask(struct world *w, u32 a)
{
	u8 r = to_ask(w, a);
	u32 m;

	for (m = 0; m < nodes; m++)
		if ((r & (1u << m)) &&
		    send(w, a, m, M_VREQ, w->nd[a].epoch, 0, 0))
			w->nd[a].asked |= (u8)(1u << m);
}

/* A winner tells a peer that reconnected (the kernel's notice on connect). */
static void up_event(struct world *w, u32 a, u32 b)
{
	struct node *n = &w->nd[a];

	n->up_ev &= (u8)~(1u << b);
	n->down &= (u8)~(1u << b);
	if (n->est && ((n->owner == a && n->epoch > 1) ||
		       (old_rule && n->backup == a)))
		send(w, a, b, M_NOTICE, n->epoch, n->backup, n->owner);
}

static void down_event(struct world *w, u32 a, u32 b)
{
	struct node *n = &w->nd[a];

	n->down_ev &= (u8)~(1u << b);
	n->down |= (u8)(1u << b);
	n->asked &= (u8)~(1u << b);
	if (n->vreq_from == b) {	/* the candidate asks again */
		n->vreq_from = NOBODY;
		n->vreq_e = 0;
	}
	vote(w, a);
}

static bool writer_may_write(const struct world *w)
{
	const struct node *n = &w->nd[writer];

	return up(n) && !w->waiting && w->cur <= nwrites && n->est;
}

static void write_step(struct world *w)
{
	struct node *n = &w->nd[writer];

	w->waiting = 1;
	send(w, writer, n->owner, M_WRITE, n->epoch, w->cur, 0);
}

/*
 * Will node @to ignore @m whatever comes?  Views only move forward, so a
 * message of an older epoch is refused for ever, as is an answer to a
 * tally or a write that is over.  Dropping it at once is delivering it
 * at once: it changes nothing else.
 */
static bool dead_msg(const struct world *w, u32 to, const struct msg *m)
{
	const struct node *n = &w->nd[to];

	switch (m->type) {
	case M_PUT:
		return m->e < n->epoch && !no_fence;
	case M_WRITE:
	case M_VREQ:
		return m->e < n->epoch;
	case M_OK:
		return !n->ack_w || m->e != n->ack_e ||
		       (!unnamed_ok && (int8_t)(m->s - n->ack_seq) < 0);
	case M_ACK:
		return to != writer || !w->waiting || m->a != w->cur ||
		       (m->e < n->epoch && !no_fence);
	case M_VOTE:
		return !n->vote_e || m->e != n->vote_e;
	case M_NOTICE:
		return m->e < n->epoch || (m->e == n->epoch && n->est);
	}
	return false;
}

/*
 * One representative of what behaves the same: what can never be used
 * again is forgotten (a tally of an epoch the node left, a candidacy
 * that is over, a request it can no longer grant, the image of a node
 * that is neither owner nor backup in its view, which it never becomes
 * again), and messages that will be ignored are dropped.
 */
static void canon(struct world *w)
{
	u32 a, b, k, j;

	for (a = 0; a < nodes; a++) {
		struct node *n = &w->nd[a];

		if (n->ack_w && (n->ack_e != n->epoch || !n->est ||
				 n->owner != a)) {
			n->ack_w = 0;
			n->ack_e = 0;
			n->ack_yes = 0;
			n->ack_seq = 0;
		}
		if (n->vote_e && (n->est || n->owner != a ||
				  n->vote_e != n->epoch)) {
			n->vote_e = 0;
			n->votes = 0;
			n->asked = 0;
		}
		if (n->vreq_from != NOBODY && n->vreq_e <= n->epoch) {
			n->vreq_from = NOBODY;
			n->vreq_e = 0;
		}
		if (n->owner != a && n->backup != a) {
			n->data = 0;
			n->seq = 0;
		}
	}
	for (a = 0; a < nodes; a++)
		for (b = 0; b < nodes; b++) {
			struct chan *c = &w->ch[a][b];

			for (k = 0, j = 0; k < c->n; k++)
				if (!dead_msg(w, b, &c->q[k]))
					c->q[j++] = c->q[k];
			if (j == c->n)
				continue;
			c->n = (u8)j;
			memset(&c->q[j], 0, (QCAP - j) * sizeof(c->q[0]));
		}
}

/* ---- the invariants ---- */

/* May node @a acknowledge a new write, with the views as they are? */
static bool may_serve(const struct world *w, u32 a)
{
	const struct node *n = &w->nd[a];
	u32 m, same = 0;

	if (!n->est || n->owner != a)
		return false;
	/*
	 * The old rule: alone when its backup is away; a home that died
	 * and returns waits for its backup's word (no failback).
	 */
	if (old_rule)
		return n->alive;
	for (m = 0; m < nodes; m++)
		if (w->nd[m].epoch == n->epoch && w->nd[m].owner == a)
			same++;
	if (same < ddsm_tko_majority(nodes))
		return false;
	return n->backup == NOBODY ||
	       (w->nd[n->backup].epoch == n->epoch &&
		w->nd[n->backup].owner == a);
}

static void check(const struct world *w)
{
	u32 a, b, i;

	for (a = 0; a < nodes; a++) {
		if (!may_serve(w, a))
			continue;
		for (i = 1; i <= nwrites; i++)
			if ((w->acked & (1u << i)) && !(w->nd[a].data & (1u << i))) {
				snprintf(vbuf, sizeof(vbuf),
					 "an acknowledged write lost: write %u is not in node %u's image, which serves epoch %u",
					 i, a, w->nd[a].epoch);
				violation = vbuf;
				return;
			}
		for (b = a + 1; b < nodes && !only_lost; b++)
			if (may_serve(w, b)) {
				snprintf(vbuf, sizeof(vbuf),
					 "two homes: node %u (epoch %u) and node %u (epoch %u) may both acknowledge a write",
					 a, w->nd[a].epoch, b, w->nd[b].epoch);
				violation = vbuf;
				return;
			}
	}
}

/* ---- the search ---- */

/* The whole world: it has no padding, and free slots are zeroed. */
static u64 hash_world(const struct world *w)
{
	u64 x = model_mix(0xcbf29ce484222325ULL, w, sizeof(*w));

	return x ? x : 1;
}

static bool visit(const struct world *w)
{
	if (model_in_set(seen, seen_mask, hash_world(w), true))
		return false;
	if (++states > max_states)
		violation = "explorer bound: states";
	return true;
}

static void explore(const struct world *w);

/*
 * Every step that can happen in @w, each applied to a copy, explored
 * depth first: deliveries and events, the nodes' own steps, the
 * writer's, its timeout, then the failures.
 */
static void each_step(const struct world *w)
{
	struct world *next = malloc(sizeof(*next));
	u32 a = 0, b = 0;

#define TRY(name, cond, body) do {					\
		if (!(cond))						\
			break;						\
		memcpy(next, w, sizeof(*next));				\
		snprintf(label, sizeof(label), "%s %u %u", name, a, b);	\
		body;							\
		canon(next);						\
		explore(next);						\
		if (violation)						\
			goto out;					\
	} while (0)
	if (!next) {
		violation = "out of memory";
		return;
	}
	for (a = 0; a < nodes; a++) {
		const struct node *n = &w->nd[a];

		TRY("revive", !n->alive, revive(next, a));
		TRY("resume", n->paused, next->nd[a].paused = 0);
		if (!up(n))
			continue;
		for (b = 0; b < nodes; b++) {
			if (a != b) {
				TRY("down-event", n->down_ev & (1u << b),
				    down_event(next, a, b));
				TRY("up-event", (n->up_ev & (1u << b)) &&
				    !(n->down_ev & (1u << b)),
				    up_event(next, a, b));
				TRY("reconnect", a < b && !connected(w, a, b) &&
				    up(&w->nd[b]) && !n->down_ev &&
				    !w->nd[b].down_ev,
				    (next->conn[a][b] = next->conn[b][a] = 1,
				     next->nd[a].up_ev |= (u8)(1u << b),
				     next->nd[b].up_ev |= (u8)(1u << a)));
			}
			/* @b's messages to @a, once @a heard every "down". */
			if (w->ch[b][a].n && !(n->down_ev & (1u << b)))
				TRY(mname[w->ch[b][a].q[0].type], 1,
				    deliver(next, b, a));
		}
		b = 0;
		TRY("propose", may_propose(n, a), propose(next, a));
		TRY("ask", !old_rule && to_ask(w, a), ask(next, a));
	}
	a = writer;
	b = w->cur;
	TRY("write", writer_may_write(w), write_step(next));
	TRY("timeout", w->waiting && up(&w->nd[writer]),
	    (next->waiting = 0, next->cur++));
	if (!w->failures)
		goto out;
	for (a = 0; a < nodes; a++) {
		const struct node *n = &w->nd[a];

		for (b = a + 1; b < nodes; b++)
			TRY("LOSS", k_loss && connected(w, a, b),
			    (next->failures--, lose(next, a, b)));
		b = 0;
		TRY("PAUSE", k_pause && up(n),
		    (next->failures--, next->nd[a].paused = 1,
		     lose_all(next, a)));
		TRY("DEATH", k_death && n->alive,
		    (next->failures--, die(next, a)));
	}
#undef TRY
out:
	free(next);
}

static void explore(const struct world *w)
{
	if (violation || !visit(w))
		return;
	if (depth < MAXDEPTH)
		strcpy(trail[depth], label);
	depth++;
	if (depth > maxdepth)
		maxdepth = depth;
	check(w);
	if (!violation)
		each_step(w);
	if (!violation)
		depth--;
}

static void print_trail(const char *prefix)
{
	u32 k;

	fprintf(stderr, "%stakeover: %u steps to the violation:\n", prefix,
		depth - 1);
	for (k = 1; k < depth && k < MAXDEPTH; k++)
		fprintf(stderr, "%s  %3u %s\n", prefix, k, trail[k]);
}

static void setup(struct world *w)
{
	struct ddsm_tko_view v;
	u32 a, b;

	memset(w, 0, sizeof(*w));
	ddsm_tko_init(&v, HOME, BACKUP);
	for (a = 0; a < nodes; a++) {
		w->nd[a].alive = 1;
		forget(&w->nd[a]);
		set_view(&w->nd[a], &v);
		for (b = 0; b < nodes; b++)
			w->conn[a][b] = a != b;
	}
	writer = nodes - 1;
	w->failures = (u8)maxfail;
	w->cur = 1;
	canon(w);
}

static bool parse_kinds(const char *s)
{
	k_loss = strstr(s, "loss");
	k_pause = strstr(s, "pause");
	k_death = strstr(s, "death");
	kinds = s;
	return k_loss || k_pause || k_death;
}

int main(int argc, char **argv)
{
	static struct world w;
	const char *plant = NULL;
	clock_t t0 = clock();
	double secs;
	int a;

	for (a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "-n") && a + 1 < argc)
			nodes = (u32)atoi(argv[++a]);
		else if (!strcmp(argv[a], "-f") && a + 1 < argc)
			maxfail = (u32)atoi(argv[++a]);
		else if (!strcmp(argv[a], "-w") && a + 1 < argc)
			nwrites = (u32)atoi(argv[++a]);
		else if (!strcmp(argv[a], "-k") && a + 1 < argc) {
			if (!parse_kinds(argv[++a]))
				goto usage;
		} else if (!strcmp(argv[a], "--plant") && a + 1 < argc)
			plant = argv[++a];
		else if (!strcmp(argv[a], "--only-lost"))
			only_lost = true;
		else if (!strcmp(argv[a], "--tap"))
			tap = true;
		else if (!strcmp(argv[a], "-q"))
			quiet = true;
		else
			goto usage;
	}
	if (nodes < 2 || nodes > MAXN || maxfail > 4 || nwrites < 1 ||
	    nwrites > 3)
		goto usage;
	if (plant) {
		if (!strcmp(plant, "old-rule"))
			old_rule = true;
		else if (!strcmp(plant, "unnamed-ok"))
			unnamed_ok = true;
		else if (!strcmp(plant, "no-fence"))
			no_fence = true;
		else
			goto usage;
	}
	setup(&w);
	seen_mask = (1ULL << (getenv("TAKEOVER_BITS") ? atoi(getenv("TAKEOVER_BITS")) : 24)) - 1;
	max_states = seen_mask / 4 * 3;
	seen = calloc(seen_mask + 1, sizeof(*seen));
	if (!seen) {
		fprintf(stderr, "takeover: out of memory\n");
		return 2;
	}
	snprintf(label, sizeof(label), "start");
	explore(&w);
	secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
	if (violation && (plant || getenv("TAKEOVER_TRAIL")))
		print_trail(tap ? "# " : "");
	free(seen);
	if (plant) {
		if (tap)
			printf("%s - model takeover %u nodes, %u failure%s (%s): planted %s %s after %llu states%s%s\n",
			       violation ? "ok" : "not ok", nodes, maxfail,
			       maxfail == 1 ? "" : "s", kinds, plant,
			       violation ? "caught" : "NOT caught",
			       (unsigned long long)states,
			       violation ? ": " : "",
			       violation ? violation : "");
		else if (!quiet)
			printf("%llu states, %.1f s: %s\n",
			       (unsigned long long)states, secs,
			       violation ? violation : "no violation");
		return violation ? 0 : 1;
	}
	if (tap)
		printf("%s - model takeover %u nodes, %u failure%s (%s), %u write%s: %llu states, depth %u%s%s%s%s%s\n",
		       violation ? "not ok" : "ok", nodes, maxfail,
		       maxfail == 1 ? "" : "s", kinds, nwrites,
		       nwrites == 1 ? "" : "s", (unsigned long long)states,
		       maxdepth, saw_takeover ? ", takeover won" : "",
		       saw_degrade ? ", degrade won" : "",
		       saw_ack2 ? ", acked after it" : "",
		       violation ? ": " : ", one home, no acknowledged write lost",
		       violation ? violation : "");
	else if (!quiet)
		printf("%llu states, depth %u, %.1f s%s%s%s: %s\n",
		       (unsigned long long)states, maxdepth, secs,
		       saw_takeover ? ", takeover won" : "",
		       saw_degrade ? ", degrade won" : "",
		       saw_ack2 ? ", acked after it" : "",
		       violation ? violation : "no violation");
	return violation ? 1 : 0;
usage:
	fprintf(stderr, "usage: takeover [-n 2..4] [-f 0..4] [-w 1..3] [-k loss,pause,death] [--plant old-rule|unnamed-ok|no-fence] [--only-lost] [--tap] [-q]\n");
	return 2;
}
