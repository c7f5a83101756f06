// SPDX-License-Identifier: GPL-2.0
/*
 * One cluster state and its steps.  Every protocol decision is made by the
 * real kernel/proto code (ddsm_msg_encode/decode, ddsm_dir_handle,
 * ddsm_cache_fault/evict/handle); this file only moves messages, performs
 * the returned actions the way kernel/core/rx.c does, keeps the abstract
 * data values and checks the invariants.
 */
#include <stdarg.h>
#include <stdlib.h>
#include "explore.h"

struct config cfg;
char viol_msg[512];
FILE *steplog;
u32 max_chan_seen;
u64 delivered[DDSM_MSG_NR];
u64 coverage[COV_NR];

static char logbuf[8192];
static size_t loglen;
static bool pack_error;
/* A local event's SEND failed: the sender already knows the peer is down. */
static bool send_failed;

static void logp(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void logp(const char *fmt, ...)
{
	va_list ap;
	int r;

	if (!steplog || loglen >= sizeof(logbuf) - 1)
		return;
	va_start(ap, fmt);
	r = vsnprintf(logbuf + loglen, sizeof(logbuf) - loglen, fmt, ap);
	va_end(ap);
	if (r > 0)
		loglen += (size_t)r;
	if (loglen >= sizeof(logbuf))
		loglen = sizeof(logbuf) - 1;
}

static int viol(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int viol(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(viol_msg, sizeof(viol_msg), fmt, ap);
	va_end(ap);
	return STEP_VIOLATION;
}

static const char *const plant_names[BUG_NR] = {
	[BUG_NONE] = "none",
	[BUG_SKIP_INV] = "skip-inv",
	[BUG_EARLY_UNLOCK] = "early-unlock",
	[BUG_NO_WRITEBACK] = "no-writeback",
	[BUG_FORGET_LOST] = "forget-lost",
	[BUG_LATE_STORE] = "late-store",
	[BUG_EXCL_KEEPS_COPY] = "excl-keeps-copy",
	[BUG_SKIP_GATE] = "skip-gate",
	[BUG_NO_WB] = "no-wb",
	[BUG_HANDOFF_EVICT] = "handoff-evict",
};

const char *plant_name(int p)
{
	return p >= 0 && p < BUG_NR ? plant_names[p] : "?";
}

int plant_by_name(const char *s)
{
	int p;

	for (p = 0; p < BUG_NR; p++)
		if (!strcmp(s, plant_names[p]))
			return p;
	return -1;
}

static u32 home_of(const struct world *w, u64 unit)
{
	return ddsm_unit_home(&w->n[0].space, unit);
}

static struct ddsm_dir_entry *entry_for(struct world *w, u64 unit)
{
	struct node *h = &w->n[home_of(w, unit)];

	return &h->entries[ddsm_unit_home_index(&h->space, unit)];
}

static const char *gstate_name(u8 s)
{
	return s == DDSM_G_U ? "U" : s == DDSM_G_S ? "S" : s == DDSM_G_M ? "M" : "?";
}

static const char *err_name(u8 e)
{
	return e == EBUSY ? "EBUSY" : e == EPROTO ? "EPROTO" :
	       e == ENOMEM ? "ENOMEM" : e == EIO ? "EIO" :
	       e == EHOSTDOWN ? "EHOSTDOWN" : e ? "E?" : "0";
}

static void set_str(char *buf, size_t len, u64 set)
{
	size_t o = 0;
	u32 i;
	bool first = true;

	o += (size_t)snprintf(buf + o, len - o, "{");
	for (i = 0; i < 64 && o < len; i++)
		if (set & BIT_ULL(i)) {
			o += (size_t)snprintf(buf + o, len - o, "%sn%u",
					      first ? "" : ",", i);
			first = false;
		}
	if (o < len)
		snprintf(buf + o, len - o, "}");
}

/* set_str() into @buf, as an expression: only on a report's path. */
#define SET_STR(buf, set)	(set_str(buf, sizeof(buf), set), (buf))

static void msg_desc(const struct ddsm_msg *m, u8 data, bool show_data,
		     char *buf, size_t len)
{
	size_t o;
	bool paren = false;

	o = (size_t)snprintf(buf, len, "%s n%u->n%u", ddsm_msg_type_name(m->type),
			     m->src, m->dst);
	if (cfg.units > 1 && o < len)
		o += (size_t)snprintf(buf + o, len - o, " u%llu",
				      (unsigned long long)m->unit);
	if (o < len)
		o += (size_t)snprintf(buf + o, len - o, " seq%u", m->seq);
	if (m->requester != m->src && m->requester != m->dst && o < len)
		o += (size_t)snprintf(buf + o, len - o, " for n%u", m->requester);
	if ((m->flags & DDSM_MF_DATA) && o < len) {
		o += (size_t)snprintf(buf + o, len - o, " (+data%s",
				      show_data ? (data ? " latest" : " STALE") : "");
		paren = true;
	}
	if (m->acks && o < len) {
		o += (size_t)snprintf(buf + o, len - o, "%sacks=%u",
				      paren ? ", " : " (", m->acks);
		paren = true;
	}
	if (m->err && o < len) {
		o += (size_t)snprintf(buf + o, len - o, "%serr=%s",
				      paren ? ", " : " (", err_name(m->err));
		paren = true;
	}
	if (m->type == DDSM_MSG_UNLOCK && o < len) {
		o += (size_t)snprintf(buf + o, len - o, "%sstate=%s",
				      paren ? ", " : " (", gstate_name(m->state));
		paren = true;
	}
	if (paren && o < len)
		snprintf(buf + o, len - o, ")");
}

void ev_name(u16 ev, char *buf, size_t len)
{
	static const char *const kinds[] = {
		[EV_READ] = "read", [EV_WRITE] = "write", [EV_EVICT] = "evict",
	};

	switch (EV_KIND(ev)) {
	case EV_DELIVER:
		snprintf(buf, len, "deliver n%u->n%u", EV_A(ev), EV_B(ev));
		break;
	case EV_READ:
	case EV_WRITE:
	case EV_EVICT:
		snprintf(buf, len, "n%u: %s u%u", EV_A(ev), kinds[EV_KIND(ev)],
			 EV_B(ev));
		break;
	case EV_DIE:
		snprintf(buf, len, "n%u: dies", EV_A(ev));
		break;
	case EV_DETECT:
		snprintf(buf, len, "n%u: detects the death of n%u", EV_A(ev),
			 EV_B(ev));
		break;
	case EV_RELEASE:
		snprintf(buf, len, "n%u: releases u%u", EV_A(ev), EV_B(ev));
		break;
	default:
		snprintf(buf, len, "?");
	}
}

void world_fixup(struct world *w)
{
	u32 i;

	for (i = 0; i < MAXN; i++) {
		struct node *n = &w->n[i];

		n->dir.space = &n->space;
		n->dir.entries = n->entries;
		n->dir.pool = n->pool;
		n->cache.space = &n->space;
		n->cache.lines = n->lines;
	}
}

void world_init(struct world *w)
{
	u32 i, u;

	memset(w, 0, sizeof(*w));
	for (i = 0; i < cfg.nodes; i++) {
		struct node *n = &w->n[i];

		if (ddsm_space_init(&n->space, cfg.units * DDSM_PROTO_UNIT_SIZE,
				    cfg.nodes, i, DDSM_HOME_INTERLEAVE)) {
			fprintf(stderr, "explore: bad geometry\n");
			exit(2);
		}
		ddsm_dir_init(&n->dir, &n->space, n->entries,
			      ddsm_space_units_homed(&n->space, i), n->pool,
			      cfg.pool);
		n->dir.migrate = !cfg.no_migratory;
		n->dir.handoff = !cfg.no_handoff;
		ddsm_cache_init(&n->cache, &n->space, n->lines);
	}
	/*
	 * The initial contents (zero) are the unit's "last write", and what
	 * an empty pmem gives back.
	 */
	for (u = 0; u < cfg.units; u++) {
		w->n[home_of(w, u)].frame[u] = 1;
		ddsm_dir_set_persist(&w->n[home_of(w, u)].dir, u, cfg.persist);
		w->writer[u] = NO_WRITER;
	}
	w->durable = (u8)((1u << cfg.units) - 1);
	w->alive = (u8)((1u << cfg.nodes) - 1);
}

/*
 * Only the nodes and the queued messages of this configuration: the rest
 * of both worlds is as world_init left it, and copying all of it (15 KiB
 * per event) was a fifth of the search's time.
 */
void world_copy(struct world *dst, const struct world *src)
{
	u32 i, j;

	memcpy(dst->n, src->n, cfg.nodes * sizeof(src->n[0]));
	for (i = 0; i < cfg.nodes; i++)
		for (j = 0; j < cfg.nodes; j++) {
			const struct chan *c = &src->ch[i][j];

			dst->ch[i][j].len = c->len;
			memcpy(dst->ch[i][j].q, c->q, c->len * sizeof(c->q[0]));
		}
	dst->alive = src->alive;
	dst->deaths = src->deaths;
	dst->plant_used = src->plant_used;
	dst->durable = src->durable;
	memcpy(dst->writer, src->writer, sizeof(dst->writer));
	world_fixup(dst);
}

/* ---- steps ---------------------------------------------------------- */

static int chan_push(struct world *w, u32 s, u32 d, const struct ddsm_msg *m,
		     u8 data)
{
	struct chan *c = &w->ch[s][d];

	if (c->len >= cfg.chcap) {
		snprintf(viol_msg, sizeof(viol_msg),
			 "explorer bound: channel n%u->n%u already holds %u messages (raise -C)",
			 s, d, c->len);
		return STEP_BOUND;
	}
	c->q[c->len].m = *m;
	c->q[c->len].data = data;
	c->len++;
	if (c->len > max_chan_seen)
		max_chan_seen = c->len;
	return STEP_OK;
}

/* A store by @node: it now holds the last write, no other copy does. */
static void do_store(struct world *w, u32 node, u32 unit)
{
	u32 i, j, k;

	for (i = 0; i < cfg.nodes; i++)
		w->n[i].frame[unit] = i == node;
	/* A new version: not on pmem until a home persists it. */
	w->durable &= (u8)~(1u << unit);
	w->writer[unit] = (u8)node;
	for (i = 0; i < cfg.nodes; i++)
		for (j = 0; j < cfg.nodes; j++)
			for (k = 0; k < w->ch[i][j].len; k++)
				if (w->ch[i][j].q[k].m.unit == unit)
					w->ch[i][j].q[k].data = 0;
}

/*
 * Perform @acts for @node as ddsm_run_actions() does.  @dlv is the message
 * being delivered (its data is what a STORE copies), NULL for a local event.
 */
static int run_actions(struct world *w, u32 node, struct ddsm_actions *acts,
		       const struct qmsg *dlv)
{
	struct node *n = &w->n[node];
	char d[160];
	u32 i, stores = 0;
	int rc;

	if (acts->overflow)
		return viol("actions overflow: %u protocol actions lost at n%u",
			    acts->overflow, node);
	for (i = 0; i < acts->n; i++) {
		struct ddsm_action *a = &acts->a[i];
		struct ddsm_msg *m = &a->msg;
		u8 data;

		switch (a->type) {
		case DDSM_ACT_SEND_DURABLE:
			/*
			 * The home persists its frame, then sends (the kernel's
			 * worker does both while the entry stays locked for
			 * this requester, so nothing changes the frame between).
			 */
			if (home_of(w, a->unit) != node)
				return viol("n%u: SEND_DURABLE of u%llu it does not home",
					    node, (unsigned long long)a->unit);
			if (cfg.plant == BUG_SKIP_GATE)
				logp("%s[PLANTED skip-gate: not persisted]",
				     i ? ", " : " -> ");
			else if (n->frame[a->unit])
				w->durable |= (u8)(1u << a->unit);
			else
				w->durable &= (u8)~(1u << a->unit);
			__attribute__((fallthrough));
		case DDSM_ACT_SEND:
			if (m->src != node || m->dst >= cfg.nodes ||
			    m->unit >= cfg.units)
				return viol("n%u sent a malformed %s (src n%u dst n%u unit %llu)",
					    node, ddsm_msg_type_name(m->type),
					    m->src, m->dst,
					    (unsigned long long)m->unit);
			data = (m->flags & DDSM_MF_DATA) ? n->frame[m->unit] : 0;
			if (steplog)	/* formatting is a tenth of a search */
				msg_desc(m, data, m->src != m->dst, d, sizeof(d));
			if (n->cache.dead & BIT_ULL(m->dst)) {
				/*
				 * peer_down() ran here: the transport refuses
				 * (-ENOTCONN).  The receive path ignores it, a
				 * fault fails its event (local_access()).
				 */
				send_failed = true;
				logp("%s%s [send fails: n%u is down]",
				     i ? ", " : " -> ", d, m->dst);
				break;
			}
			if (!(w->alive & (1u << m->dst))) {
				/* Not detected yet: the message vanishes. */
				coverage[COV_DROPPED]++;
				logp("%s%s [dropped: n%u is dead]",
				     i ? ", " : " -> ", d, m->dst);
				break;
			}
			logp("%ssend %s", i ? ", " : " -> ", d);
			rc = chan_push(w, node, m->dst, m, data);
			if (rc)
				return rc;
			break;
		case DDSM_ACT_STORE:
			stores++;
			if (!dlv || !(dlv->m.flags & DDSM_MF_DATA) || stores > 1 ||
			    a->unit != dlv->m.unit)
				return viol("STORE of u%llu at n%u with no matching data in the delivered message (the kernel WARNs and drops it)",
					    (unsigned long long)a->unit, node);
			/* A node's message to itself carries its own frame. */
			if (dlv->m.src != node)
				n->frame[a->unit] = dlv->data;
			logp("%sstore", i ? ", " : " -> ");
			break;
		case DDSM_ACT_ZAP:
			logp("%szap", i ? ", " : " -> ");
			break;
		case DDSM_ACT_WAKE:
			break;
		case DDSM_ACT_HOLD:
			logp("%shold", i ? ", " : " -> ");
			break;
		case DDSM_ACT_FREE_FRAME:
			/* Home frames are the unit's memory and stay. */
			if (home_of(w, a->unit) != node)
				n->frame[a->unit] = 0;
			logp("%sfree", i ? ", " : " -> ");
			break;
		default:
			return viol("n%u: unknown action %u", node, a->type);
		}
	}
	return STEP_OK;
}

static void line_note(const struct world *w, u32 node, u64 unit, u8 before)
{
	u8 after = w->n[node].lines[unit].state;

	if (before != after)
		logp("  [n%u u%llu %s->%s]", node, (unsigned long long)unit,
		     ddsm_cstate_name(before), ddsm_cstate_name(after));
}

static void entry_note(struct world *w, u64 unit,
		       const struct ddsm_dir_entry *before)
{
	const struct ddsm_dir_entry *e = entry_for(w, unit);
	char cs[64];

	if (!steplog || !memcmp(before, e, sizeof(*e)))
		return;
	set_str(cs, sizeof(cs), e->copyset);
	logp("  [dir u%llu: %s %s%s%s%s%s%s]", (unsigned long long)unit,
	     gstate_name(e->state), cs, e->wlocked ? " wlocked" : "",
	     e->rlocks ? " rlocked" : "", e->qhead ? " queue" : "",
	     e->wb_pending ? " wb_pending" : "", e->lost ? " LOST" : "");
}

/* Planted bugs: remove the actions of @type (SENDs: of @msg_type only). */
static u32 drop_actions(struct ddsm_actions *acts, u8 type, u8 msg_type)
{
	u32 i, j = 0;

	for (i = 0; i < acts->n; i++)
		if (acts->a[i].type != type ||
		    (type == DDSM_ACT_SEND && acts->a[i].msg.type != msg_type))
			acts->a[j++] = acts->a[i];
	i = acts->n - j;
	acts->n = j;
	return i;
}

static int deliver(struct world *w, u32 s, u32 d)
{
	struct chan *c = &w->ch[s][d];
	struct node *n = &w->n[d];
	struct ddsm_action buf[DDSM_MAX_ACTIONS];
	struct ddsm_dir_entry ebefore;
	struct ddsm_actions acts;
	struct ddsm_wire_msg wire;
	enum ddsm_msg_verdict v;
	struct ddsm_msg m;
	struct qmsg it;
	char desc[160];
	u8 lbefore;
	int ret = 0, rc;
	bool planted = false;

	if (!c->len)
		return STEP_DISABLED;
	it = c->q[0];
	memmove(&c->q[0], &c->q[1], (c->len - 1) * sizeof(c->q[0]));
	c->len--;

	if (steplog) {
		msg_desc(&it.m, it.data, s != d, desc, sizeof(desc));
		logp("deliver %s", desc);
	}
	ddsm_msg_encode(&it.m, &wire);
	memset(&m, 0, sizeof(m));
	v = ddsm_msg_decode(&n->space, s, &wire, sizeof(wire), &m);
	if (v != DDSM_MSG_OK)
		return viol("n%u drops %s from n%u: decode verdict \"%s\"", d,
			    ddsm_msg_type_name(it.m.type), s,
			    ddsm_msg_verdict_name(v));
	it.m = m;
	delivered[m.type]++;

	lbefore = n->lines[m.unit].state;
	ebefore = *entry_for(w, m.unit);
	ddsm_actions_init(&acts, buf, DDSM_MAX_ACTIONS);
	if (cfg.plant == BUG_EXCL_KEEPS_COPY && m.type == DDSM_MSG_FETCH_INV &&
	    w->n[m.requester].lines[m.unit].state == DDSM_C_IS_D) {
		/*
		 * PLANTED: home serves a migratory read as an ordinary one
		 * (FETCH: the owner keeps S) yet still grants it M.
		 */
		m.type = DDSM_MSG_FETCH;
		planted = true;
	}
	if (cfg.plant == BUG_NO_WB && m.type == DDSM_MSG_FETCH_INV &&
	    (m.flags & DDSM_MF_WB)) {
		/* PLANTED: the owner hands the data on, none goes home. */
		m.flags &= (u8)~DDSM_MF_WB;
		planted = true;
	}
	if (cfg.plant == BUG_SKIP_INV && m.type == DDSM_MSG_INV &&
	    !w->plant_used) {
		/* PLANTED: answer the INV as the cache would, keep the copy. */
		struct ddsm_msg ack = {
			.type = DDSM_MSG_ACK, .src = (u16)d, .dst = m.requester,
			.requester = m.requester, .acks = m.acks, .seq = m.seq,
			.unit = m.unit,
		};

		w->plant_used = 1;
		planted = true;
		ddsm_act_send(&acts, &ack);
	} else if (ddsm_msg_to_home(m.type)) {
		struct ddsm_dir_entry *e = entry_for(w, m.unit);

		if (cfg.plant == BUG_HANDOFF_EVICT &&
		    m.type == DDSM_MSG_EVICT_MODIFIED && e->wlocked &&
		    e->handoff && e->wholder == m.requester) {
			/*
			 * PLANTED: home keeps the hand-off going until its own
			 * cache's UNLOCK, and queues the eviction (its data
			 * with it) behind it.
			 */
			e->handoff = 0;
			planted = true;
		}
		ret = ddsm_dir_handle(&n->dir, &m, &acts);
	} else {
		ret = ddsm_cache_handle(&n->cache, &m, &acts);
	}

	if (cfg.plant == BUG_LATE_STORE && !ddsm_msg_to_home(m.type) && !ret) {
		/*
		 * PLANTED: kernel/core/rx.c before it installed the data
		 * under the cache-line lock: the new state was visible (the
		 * lock dropped) while the STORE was still to come, and a fault
		 * taking the lock in between mapped the frame as it was.
		 */
		u8 st = n->lines[m.unit].state;
		u32 i;

		for (i = 0; i < acts.n; i++)
			if (acts.a[i].type == DDSM_ACT_STORE &&
			    (st == DDSM_C_S || st == DDSM_C_M) &&
			    !n->frame[m.unit] && m.src != d)
				return viol("data value: n%u can read u%u (%s) before the data that made it readable is in its frame [PLANTED late-store]",
					    d, (u32)m.unit, ddsm_cstate_name(st));
	}
	if (cfg.plant == BUG_EXCL_KEEPS_COPY && planted)
		/* ... and home, expecting none, would refuse its WRITEBACK. */
		drop_actions(&acts, DDSM_ACT_SEND, DDSM_MSG_WRITEBACK);
	if (cfg.plant == BUG_NO_WRITEBACK && m.type == DDSM_MSG_WRITEBACK &&
	    drop_actions(&acts, DDSM_ACT_STORE, 0))
		/* PLANTED: home loses the written-back data. */
		planted = true;
	if (cfg.plant == BUG_EARLY_UNLOCK && m.type == DDSM_MSG_ACK && !ret &&
	    !w->plant_used) {
		struct ddsm_cline *l = &n->lines[m.unit];

		if ((l->state == DDSM_C_IM_AD || l->state == DDSM_C_SM_AD ||
		     l->state == DDSM_C_IS_D) &&
		    l->acks_got >= 1 && l->acks_got < l->acks_need) {
			/* PLANTED: release home's lock before the last ACK. */
			struct ddsm_msg ul = {
				.type = DDSM_MSG_UNLOCK,
				.state = l->state == DDSM_C_IS_D ? DDSM_G_S : DDSM_G_M,
				.src = (u16)d, .dst = (u16)home_of(w, m.unit),
				.requester = (u16)d, .seq = l->seq,
				.unit = m.unit,
			};

			w->plant_used = 1;
			planted = true;
			ddsm_act_send(&acts, &ul);
		}
	}
	if (planted)
		logp(" [PLANTED %s]", plant_name(cfg.plant));

	rc = run_actions(w, d, &acts, &it);
	line_note(w, d, m.unit, lbefore);
	entry_note(w, m.unit, &ebefore);
	if (rc)
		return rc;
	/*
	 * A dead owner's data for an event home already refused (Read-
	 * Enforced: the owner died before its writeback), overtaken by a new
	 * event of the requester: the kernel counts it and drops it.
	 */
	if (ret && m.type == DDSM_MSG_ACK && !(m.flags & DDSM_MF_GRANT) &&
	    !(w->alive & (1u << s)) && (cfg.persist & DDSM_DIR_P_GATE)) {
		logp(" [stale: its event is over]");
		return STEP_OK;
	}
	if (ret) {
		char cs[64];

		set_str(cs, sizeof(cs), ebefore.copyset);
		if (ddsm_msg_to_home(m.type))
			return viol("unhandled message: n%u's directory returned %d for %s from n%u (entry was %s %s%s%s)",
				    d, ret, ddsm_msg_type_name(m.type), s,
				    gstate_name(ebefore.state), cs,
				    ebefore.wlocked ? " wlocked" : "",
				    ebefore.rlocks ? " rlocked" : "");
		return viol("unhandled message: n%u's cache returned %d for %s from n%u (line was %s)",
			    d, ret, ddsm_msg_type_name(m.type), s,
			    ddsm_cstate_name(lbefore));
	}
	return STEP_OK;
}

static int local_access(struct world *w, u32 node, u32 unit, bool write)
{
	struct node *n = &w->n[node];
	struct ddsm_action buf[2];
	struct ddsm_actions acts;
	enum ddsm_fault_result r;
	u8 before = n->lines[unit].state;
	int rc;

	ddsm_actions_init(&acts, buf, 2);
	r = ddsm_cache_fault(&n->cache, unit, write, &acts);
	logp("n%u: %s u%u", node, write ? "write" : "read", unit);
	if (r == DDSM_FAULT_MAP_RW && write) {
		if (acts.n)
			return viol("n%u: a mapped write also produced actions", node);
		do_store(w, node, unit);
		logp(" -> store");
		return STEP_OK;
	}
	if (r != DDSM_FAULT_WAIT) {
		if (write)
			return viol("n%u: write access to u%u mapped read-only (state %s)",
				    node, unit, ddsm_cstate_name(before));
		if (!n->frame[unit])
			return viol("data value: n%u loads u%u in state %s and does not see the last write",
				    node, unit, ddsm_cstate_name(before));
		return STEP_DISABLED;	/* a hit changes nothing */
	}
	if (!acts.n)
		return STEP_DISABLED;	/* coalesced with the event in flight */
	send_failed = false;
	rc = run_actions(w, node, &acts, NULL);
	if (!rc && send_failed) {
		/* ddsm_access(): the home is unreachable, fail the event. */
		ddsm_actions_init(&acts, buf, 2);
		ddsm_cache_home_lost(&n->cache, unit, EHOSTDOWN, &acts);
		rc = run_actions(w, node, &acts, NULL);
	}
	line_note(w, node, unit, before);
	return rc;
}

static int local_evict(struct world *w, u32 node, u32 unit)
{
	struct node *n = &w->n[node];
	struct ddsm_action buf[4];
	struct ddsm_actions acts;
	u8 before = n->lines[unit].state;
	int ret, rc;

	ddsm_actions_init(&acts, buf, 4);
	ret = ddsm_cache_evict(&n->cache, unit, &acts);
	if (ret == -EBUSY)
		return STEP_DISABLED;
	logp("n%u: evict u%u", node, unit);
	if (ret)
		return viol("n%u: ddsm_cache_evict returned %d", node, ret);
	rc = run_actions(w, node, &acts, NULL);
	line_note(w, node, unit, before);
	return rc;
}

/*
 * The access that waited for a held line has run (or its timer fired):
 * the deferred UNLOCK goes to home.  Any interleaving of this with the
 * node's later accesses is explored, which covers both the fault path's
 * release and the timer's.
 */
static int local_release(struct world *w, u32 node, u32 unit)
{
	struct node *n = &w->n[node];
	struct ddsm_action buf[2];
	struct ddsm_actions acts;
	u8 before = n->lines[unit].state;
	int rc;

	if (!n->lines[unit].hold)
		return STEP_DISABLED;
	ddsm_actions_init(&acts, buf, 2);
	logp("n%u: release u%u", node, unit);
	ddsm_cache_release(&n->cache, unit, &acts);
	if (n->lines[unit].hold)
		return viol("n%u: u%u still held after its release", node, unit);
	rc = run_actions(w, node, &acts, NULL);
	line_note(w, node, unit, before);
	return rc;
}

/*
 * A node dies: it stops at once and takes its state with it.  What it
 * sent to itself and what others sent it is gone, and later sends to it
 * vanish; what it sent to a survivor before dying stays in that channel
 * and may still be delivered until the survivor detects the death
 * (detect()), as an RC queue pair delivers until it is torn down.
 */
static int node_dies(struct world *w, u32 node)
{
	u32 i;

	if (w->deaths >= cfg.deaths || !(w->alive & (1u << node)) ||
	    !(cfg.die_mask & (1u << node)))
		return STEP_DISABLED;
	w->alive &= (u8)~(1u << node);
	w->deaths++;
	for (i = 0; i < cfg.nodes; i++) {
		w->ch[i][node].len = 0;
		if (!(w->alive & (1u << i)))
			w->ch[node][i].len = 0;
	}
	logp("n%u: dies", node);
	return STEP_OK;
}

/*
 * The failure detector tells @node that @dead is gone: the connection is
 * torn down (nothing from @dead reaches @node any more, later sends to it
 * fail), then exactly what kernel/core/rx.c peer_down() runs, in its
 * order.  One atomic step: peer_down() holds the receive lock.
 */
static int detect(struct world *w, u32 node, u32 dead)
{
	struct node *n = &w->n[node];
	struct ddsm_action buf[DDSM_MAX_ACTIONS];
	struct ddsm_actions acts;
	u64 unit;
	int rc;

	if (!(w->alive & (1u << node)) || (w->alive & (1u << dead)) ||
	    (n->cache.dead & BIT_ULL(dead)))
		return STEP_DISABLED;
	w->ch[dead][node].len = 0;
	logp("n%u: detects the death of n%u", node, dead);
	ddsm_dir_node_dead(&n->dir, dead);
	ddsm_cache_node_dead(&n->cache, dead);
	for (unit = 0; unit < cfg.units; unit++) {
		struct ddsm_dir_entry ebefore = *entry_for(w, unit);
		u8 lbefore = n->lines[unit].state;

		ddsm_actions_init(&acts, buf, DDSM_MAX_ACTIONS);
		if (home_of(w, unit) == node) {
			struct ddsm_dir_entry *e = entry_for(w, unit);

			ddsm_dir_reclaim(&n->dir, unit, dead, &acts);
			if (cfg.plant == BUG_FORGET_LOST && e->lost) {
				/* PLANTED: serve home memory as if nothing was lost. */
				e->lost = 0;
				logp(" [PLANTED %s]", plant_name(cfg.plant));
			}
		}
		ddsm_cache_peer_lost(&n->cache, unit, dead, &acts);
		rc = run_actions(w, node, &acts, NULL);
		line_note(w, node, unit, lbefore);
		if (home_of(w, unit) == node)
			entry_note(w, unit, &ebefore);
		if (rc)
			return rc;
	}
	return STEP_OK;
}

/* Some survivor has not been told of a death yet: a detection is due. */
bool world_settling(const struct world *w)
{
	u32 i;
	u64 dead = (u64)(~w->alive & ((1u << cfg.nodes) - 1));

	for (i = 0; i < cfg.nodes; i++)
		if ((w->alive & (1u << i)) && (dead & ~w->n[i].cache.dead))
			return true;
	return false;
}

/* Coverage: how many survivor lines / entries show a dead-node outcome. */
static void count_outcomes(const struct world *w, u32 *c)
{
	u32 i, u, k;

	memset(c, 0, COV_NR * sizeof(*c));
	for (i = 0; i < cfg.nodes; i++) {
		const struct node *n = &w->n[i];

		if (!(w->alive & (1u << i)))
			continue;
		for (u = 0; u < cfg.units; u++) {
			if (n->lines[u].err == EHOSTDOWN)
				c[COV_HOSTDOWN]++;
			if (n->lines[u].err == EIO)
				c[COV_EIO]++;
			if (n->lines[u].state == DDSM_C_M &&
			    n->lines[u].excl_clean)
				c[COV_EXCL]++;
		}
		for (k = 0; k < n->dir.nr_entries; k++)
			c[COV_LOST] += n->entries[k].lost;
	}
}

int world_apply(struct world *w, u16 ev)
{
	int rc;

	u32 before[COV_NR], after[COV_NR], k;

	loglen = 0;
	logbuf[0] = 0;
	count_outcomes(w, before);
	switch (EV_KIND(ev)) {
	case EV_DELIVER:
		rc = deliver(w, EV_A(ev), EV_B(ev));
		break;
	case EV_READ:
		rc = local_access(w, EV_A(ev), EV_B(ev), false);
		break;
	case EV_WRITE:
		rc = local_access(w, EV_A(ev), EV_B(ev), true);
		break;
	case EV_EVICT:
		rc = local_evict(w, EV_A(ev), EV_B(ev));
		break;
	case EV_DIE:
		rc = node_dies(w, EV_A(ev));
		break;
	case EV_DETECT:
		rc = detect(w, EV_A(ev), EV_B(ev));
		break;
	case EV_RELEASE:
		rc = local_release(w, EV_A(ev), EV_B(ev));
		break;
	default:
		rc = STEP_DISABLED;
	}
	if (rc == STEP_OK) {
		count_outcomes(w, after);
		for (k = 0; k < COV_NR; k++)
			if (after[k] > before[k])
				coverage[k]++;
	}
	if (steplog && rc != STEP_DISABLED)
		fprintf(steplog, "%s\n", logbuf);
	return rc;
}

u32 world_events(const struct world *w, u16 *evs)
{
	u32 nev = 0, i, j;

	/*
	 * Deliveries, detections, then releases of held lines: explore.c's
	 * progress check relies on it.
	 */
	for (i = 0; i < cfg.nodes; i++)
		for (j = 0; j < cfg.nodes; j++)
			if (w->ch[i][j].len)
				evs[nev++] = EV(EV_DELIVER, i, j);
	for (i = 0; i < cfg.nodes; i++)
		for (j = 0; j < cfg.nodes; j++)
			if ((w->alive & (1u << i)) && !(w->alive & (1u << j)) &&
			    !(w->n[i].cache.dead & BIT_ULL(j)))
				evs[nev++] = EV(EV_DETECT, i, j);
	for (i = 0; i < cfg.nodes; i++)
		for (j = 0; j < cfg.units; j++)
			if ((w->alive & (1u << i)) && w->n[i].lines[j].hold)
				evs[nev++] = EV(EV_RELEASE, i, j);
	for (i = 0; i < cfg.nodes; i++) {
		if (!(w->alive & (1u << i)))
			continue;
		for (j = 0; j < cfg.units; j++) {
			evs[nev++] = EV(EV_READ, i, j);
			evs[nev++] = EV(EV_WRITE, i, j);
			evs[nev++] = EV(EV_EVICT, i, j);
		}
		if (w->deaths < cfg.deaths && (cfg.die_mask & (1u << i)))
			evs[nev++] = EV(EV_DIE, i, 0);
	}
	return nev;
}

/* ---- invariants ----------------------------------------------------- */

static bool readable(u8 st)
{
	return st == DDSM_C_S || st == DDSM_C_M || st == DDSM_C_SM_AD;
}

/*
 * Would a new access by @node to @unit start an event that can end?  A
 * SEND to a peer @node knows is down fails at once and ddsm_access()
 * fails the event (ddsm_cache_home_lost()); any other SEND is explored.
 */
static int can_start(struct world *w, u32 node, u32 unit)
{
	struct node *n = &w->n[node];
	struct ddsm_cline save = n->lines[unit];
	struct ddsm_action buf[2];
	struct ddsm_actions acts;
	int k;

	for (k = 0; k < 2; k++) {
		enum ddsm_fault_result r;
		bool ok = true;

		ddsm_actions_init(&acts, buf, 2);
		r = ddsm_cache_fault(&n->cache, unit, k, &acts);
		if (r == DDSM_FAULT_WAIT) {
			ok = acts.n == 1 && buf[0].type == DDSM_ACT_SEND;
			if (ok && (n->cache.dead & BIT_ULL(buf[0].msg.dst))) {
				ddsm_actions_init(&acts, buf, 2);
				ok = ddsm_cache_home_lost(&n->cache, unit,
							  EHOSTDOWN, &acts) &&
				     ddsm_cstate_stable(n->lines[unit].state);
			}
		}
		n->lines[unit] = save;
		if (!ok)
			return viol("quiescent: a %s of u%u by n%u would wait forever",
				    k ? "write" : "read", unit, node);
	}
	return STEP_OK;
}

/*
 * Nothing in flight, no detection due, every surviving line stable.  Dead
 * nodes are ignored.  A unit whose home died has no directory: no survivor
 * may still hold a copy (peer_down() drops them).  A lost unit refuses
 * every request (EIO) and keeps whatever frozen S copies survivors hold,
 * so its copyset need not match them; it must be unlocked and have no
 * writer, whose data nobody could ever write back.
 */
static int check_quiescent(struct world *w)
{
	u32 u, i;
	int rc;

	for (i = 0; i < cfg.nodes; i++)
		if ((w->alive & (1u << i)) && w->n[i].dir.pool_used)
			return viol("quiescent: n%u still has %u queued requests",
				    i, w->n[i].dir.pool_used);
	for (u = 0; u < cfg.units; u++) {
		u32 h = home_of(w, u);
		const struct ddsm_dir_entry *e = entry_for(w, u);
		u64 holders = 0, owners = 0;
		char cs[64], hs[64];

		for (i = 0; i < cfg.nodes; i++) {
			u8 st = w->n[i].lines[u].state;

			if (!(w->alive & (1u << i)))
				continue;
			if (st == DDSM_C_S || st == DDSM_C_M)
				holders |= BIT_ULL(i);
			if (st == DDSM_C_M)
				owners |= BIT_ULL(i);
		}
		if (!(w->alive & (1u << h))) {
			if (holders)
				return viol("quiescent: u%u's home n%u is dead but %s still hold a copy",
					    u, h, SET_STR(hs, holders));
			continue;
		}
		if (e->wlocked || e->rlocks || e->qhead)
			return viol("quiescent: u%u's directory entry is still %s",
				    u, e->wlocked ? "write-locked" :
				    e->rlocks ? "read-locked" : "queueing");
		if (e->lost) {
			if (owners)
				return viol("quiescent: u%u is lost but %s holds it in M",
					    u, SET_STR(hs, holders));
			continue;
		}
		if (e->copyset != holders)
			return viol("quiescent: u%u's copyset %s differs from the nodes holding a copy %s",
				    u, SET_STR(cs, e->copyset), SET_STR(hs, holders));
		if ((e->state == DDSM_G_M) != !!owners ||
		    (e->state == DDSM_G_M && owners != BIT_ULL(e->owner)) ||
		    (e->state == DDSM_G_U && e->copyset))
			return viol("quiescent: u%u's directory state %s (owner n%u) does not match the caches %s",
				    u, gstate_name(e->state), e->owner,
				    SET_STR(hs, holders));
		if (e->state != DDSM_G_M && !w->n[h].frame[u])
			return viol("quiescent: home memory of u%u does not hold the last write (state %s)",
				    u, gstate_name(e->state));
	}
	/* Every survivor can still start a new read and write on every unit. */
	for (i = 0; i < cfg.nodes; i++) {
		if (!(w->alive & (1u << i)))
			continue;
		for (u = 0; u < cfg.units; u++) {
			rc = can_start(w, i, u);
			if (rc)
				return rc;
		}
	}
	return STEP_OK;
}

/*
 * Read-Enforced and Synchronous (DDSM_DIR_P_GATE): no node but the last
 * writer can read a version its home has not made durable.  Checked in
 * every state, this is what a crash of the whole cluster at that state
 * would need: every version another node read comes back from pmem.
 */
static int check_gate(const struct world *w, u32 u)
{
	u32 i;

	if (!(cfg.persist & DDSM_DIR_P_GATE) || (w->durable & (1u << u)))
		return STEP_OK;
	for (i = 0; i < cfg.nodes; i++) {
		u8 st = w->n[i].lines[u].state;

		if (!(w->alive & (1u << i)) || i == w->writer[u])
			continue;
		if (st == DDSM_C_S || st == DDSM_C_M)
			return viol("persistence: n%u can read u%u (%s) before its home made the last store durable (writer n%u)",
				    i, u, ddsm_cstate_name(st), w->writer[u]);
	}
	return STEP_OK;
}

int world_check(struct world *w)
{
	u32 u, i, j, inflight = 0, transient = 0;

	for (u = 0; u < cfg.units; u++) {
		if (check_gate(w, u))
			return STEP_VIOLATION;
		u32 writers = 0, readers = 0, wnode = 0;

		for (i = 0; i < cfg.nodes; i++) {
			u8 st = w->n[i].lines[u].state;

			if (!(w->alive & (1u << i)))
				continue;
			if (st == DDSM_C_M) {
				if (writers)
					return viol("single writer: n%u and n%u both hold u%u in M",
						    wnode, i, u);
				writers++;
				wnode = i;
			} else if (readable(st)) {
				readers++;
			}
			if (!ddsm_cstate_stable(st))
				transient++;
		}
		if (writers && readers) {
			for (i = 0; i < cfg.nodes; i++)
				if ((w->alive & (1u << i)) &&
				    readable(w->n[i].lines[u].state) && i != wnode)
					break;
			return viol("single writer: n%u holds u%u in M while n%u can read it (%s)",
				    wnode, u, i,
				    ddsm_cstate_name(w->n[i].lines[u].state));
		}
		/*
		 * Data value, also for lost units and units whose home died:
		 * see docs/model-checker.md "Dead nodes" for why "the last
		 * store" is the right value even then.
		 */
		for (i = 0; i < cfg.nodes; i++)
			if ((w->alive & (1u << i)) &&
			    readable(w->n[i].lines[u].state) && !w->n[i].frame[u])
				return viol("data value: n%u can read u%u (%s) but its frame does not hold the last write",
					    i, u, ddsm_cstate_name(w->n[i].lines[u].state));
	}
	for (i = 0; i < cfg.nodes; i++)
		for (j = 0; j < cfg.nodes; j++)
			inflight += w->ch[i][j].len;
	if (inflight)
		return STEP_OK;		/* a delivery is enabled */
	if (world_settling(w))
		return STEP_OK;		/* a detection is enabled */
	for (u = 0; u < cfg.units; u++)
		for (i = 0; i < cfg.nodes; i++)
			if ((w->alive & (1u << i)) && w->n[i].lines[u].hold)
				return STEP_OK;	/* a release is enabled */
	if (transient) {
		for (u = 0; u < cfg.units; u++)
			for (i = 0; i < cfg.nodes; i++)
				if ((w->alive & (1u << i)) &&
				    !ddsm_cstate_stable(w->n[i].lines[u].state))
					return viol(w->deaths ?
						    "waits forever: every survivor detected the death and nothing is in flight, but n%u waits in %s on u%u" :
						    "deadlock: no message in flight but n%u waits in %s on u%u",
						    i, ddsm_cstate_name(w->n[i].lines[u].state), u);
	}
	return check_quiescent(w);
}

/* ---- canonical form ------------------------------------------------- */

/* Every field that holds an event number of (@r, @u). */
static u32 seq_fields(struct world *w, u32 r, u32 u, u32 **f, u32 max)
{
	struct ddsm_dir_entry *e = entry_for(w, u);
	struct node *h = &w->n[home_of(w, u)];
	u32 nf = 0, slot, i, j, k;

	f[nf++] = &w->n[r].lines[u].seq;
	if (e->wholder == r)
		f[nf++] = &e->wseq;
	for (i = 0; i < cfg.nodes; i++)
		if (w->n[i].lines[u].dtype && w->n[i].lines[u].dreq == r)
			f[nf++] = &w->n[i].lines[u].dseq;
	for (slot = e->qhead; slot && nf < max; slot = h->pool[slot - 1].next)
		if (h->pool[slot - 1].msg.requester == r)
			f[nf++] = &h->pool[slot - 1].msg.seq;
	for (i = 0; i < cfg.nodes; i++)
		for (j = 0; j < cfg.nodes; j++)
			for (k = 0; k < w->ch[i][j].len && nf < max; k++) {
				struct ddsm_msg *m = &w->ch[i][j].q[k].m;

				if (m->requester == r && m->unit == u)
					f[nf++] = &m->seq;
			}
	return nf;
}

/*
 * Sequence numbers are only ever compared for equality, and a line's own
 * seq is the newest of its events: renumber each (node, unit)'s values
 * 1..k in order, 0 staying 0.
 */
static void rename_seqs(struct world *w)
{
	u32 *f[256], vals[256];
	u32 r, u, nf, nv, i, k;

	for (r = 0; r < cfg.nodes; r++)
		for (u = 0; u < cfg.units; u++) {
			nf = seq_fields(w, r, u, f, 256);
			for (i = 0, nv = 0; i < nf; i++)
				if (*f[i])
					vals[nv++] = *f[i];
			/* A handful of values: qsort's calls cost more. */
			for (i = 1; i < nv; i++) {
				u32 v = vals[i];

				for (k = i; k && vals[k - 1] > v; k--)
					vals[k] = vals[k - 1];
				vals[k] = v;
			}
			for (i = 0, k = 0; i < nv; i++)
				if (!k || vals[k - 1] != vals[i])
					vals[k++] = vals[i];
			for (i = 0; i < nf; i++) {
				u32 lo = 0, hi = k;

				if (!*f[i])
					continue;
				while (lo < hi) {
					u32 mid = (lo + hi) / 2;

					if (vals[mid] < *f[i])
						lo = mid + 1;
					else
						hi = mid;
				}
				*f[i] = lo + 1;
			}
		}
}

void world_canon(struct world *w, bool rename_seq)
{
	u32 i, j, k, u;

	/* The last writer matters only to the gate, and only until durable. */
	for (u = 0; u < cfg.units; u++)
		if (!(cfg.persist & DDSM_DIR_P_GATE) ||
		    (w->durable & (1u << u)))
			w->writer[u] = NO_WRITER;
	if (!(cfg.persist & DDSM_DIR_P_GATE))
		w->durable = 0;

	for (i = 0; i < cfg.nodes; i++) {
		struct node *n = &w->n[i];

		if (!(w->alive & (1u << i))) {
			/* A dead node's state is gone with it. */
			memset(n->lines, 0, sizeof(n->lines));
			memset(n->frame, 0, sizeof(n->frame));
			memset(n->entries, 0, sizeof(n->entries));
			n->dir.pool_used = 0;
			n->dir.dead = 0;
			n->cache.dead = 0;
			continue;
		}
		for (u = 0; u < cfg.units; u++) {
			struct ddsm_cline *l = &n->lines[u];

			/* gen only serves the kernel's PTE-install race. */
			l->gen = 0;
			/* Who we wait for matters only while we wait. */
			if (l->state != DDSM_C_IS_D && l->state != DDSM_C_IM_AD &&
			    l->state != DDSM_C_SM_AD) {
				l->expect = 0;
				l->acked = 0;
				l->granted = 0;
				/* Read only while the event runs or is held. */
				if (!l->hold)
					l->handoff = 0;
			}
			if (!l->dtype) {
				l->dflags = 0;
				l->dreq = 0;
				l->dacks = 0;
				l->dseq = 0;
			}
			if (cfg.raw || home_of(w, u) == i)
				continue;
			/* A frame nobody may read until data arrives: garbage. */
			if (l->state == DDSM_C_I ||
			    ((l->state == DDSM_C_IS_D ||
			      l->state == DDSM_C_IM_AD) && !l->have_data))
				n->frame[u] = 0;
		}
		for (k = 0; k < n->dir.nr_entries; k++) {
			struct ddsm_dir_entry *e = &n->entries[k];

			e->lost_from = 0;
			if (cfg.raw)
				continue;
			/* Fields read only under the write lock / in state M. */
			if (!e->wlocked) {
				e->wholder = 0;
				e->wseq = 0;
				e->wtype = 0;
				e->wb_pending = 0;
				e->unlock_seen = 0;
				e->unlock_ok = 0;
				e->gdefer = 0;
				e->gflags = 0;
				e->handoff = 0;
			}
			if (e->state != DDSM_G_M)
				e->owner = 0;
		}
	}
	for (i = 0; i < cfg.nodes; i++)
		for (j = 0; j < cfg.nodes; j++)
			for (k = 0; k < w->ch[i][j].len; k++) {
				struct qmsg *q = &w->ch[i][j].q[k];

				/* Loopback data is the live frame, not a copy. */
				if (!(q->m.flags & DDSM_MF_DATA) || i == j)
					q->data = 0;
			}
	if (rename_seq)
		rename_seqs(w);
}

/* ---- packing -------------------------------------------------------- */

static u8 put8(u64 v)
{
	if (v > 255)
		pack_error = true;
	return (u8)v;
}

static u8 *pack_msg(u8 *p, const struct ddsm_msg *m, u8 data)
{
	if (m->flags & 0x80)
		pack_error = true;
	*p++ = m->type;
	*p++ = (u8)(m->flags | (data ? 0x80 : 0));
	*p++ = m->state;
	*p++ = m->err;
	*p++ = put8(m->requester);
	*p++ = put8(m->acks);
	*p++ = put8(m->seq);
	*p++ = put8(m->unit);
	*p++ = put8(m->copyset);
	return p;
}

static const u8 *unpack_msg(const u8 *p, struct ddsm_msg *m, u8 *data,
			    u16 src, u16 dst)
{
	memset(m, 0, sizeof(*m));
	m->type = *p++;
	m->flags = *p & 0x7f;
	*data = *p++ >> 7;
	m->state = *p++;
	m->err = *p++;
	m->requester = *p++;
	m->acks = *p++;
	m->seq = *p++;
	m->unit = *p++;
	m->copyset = *p++;
	m->src = src;
	m->dst = dst;
	return p;
}

size_t world_pack(const struct world *w, u8 *out)
{
	u8 *p = out;
	u32 i, j, k;

	pack_error = false;
	*p++ = w->alive;
	*p++ = w->deaths;
	*p++ = w->plant_used;
	*p++ = w->durable;
	for (k = 0; k < cfg.units; k++)
		*p++ = w->writer[k];
	for (i = 0; i < cfg.nodes; i++) {
		const struct node *n = &w->n[i];
		u8 fr = 0;

		/* What peer_down() told each half (always equal here). */
		*p++ = put8(n->dir.dead);
		*p++ = put8(n->cache.dead);

		for (k = 0; k < cfg.units; k++) {
			const struct ddsm_cline *l = &n->lines[k];

			*p++ = l->state;
			*p++ = put8(l->seq);
			*p++ = put8(l->acks_need);
			*p++ = put8(l->acks_got);
			*p++ = l->have_data;
			*p++ = l->err;
			*p++ = put8(l->expect);
			*p++ = put8(l->acked);
			*p++ = (u8)(l->granted | l->hold << 1 |
				    l->excl_clean << 2 | l->got_clean << 3 |
				    l->handoff << 4);
			*p++ = l->dtype;
			*p++ = l->dflags;
			*p++ = put8(l->dreq);
			*p++ = put8(l->dacks);
			*p++ = put8(l->dseq);
			fr |= (u8)((n->frame[k] & 1) << k);
		}
		*p++ = fr;
		for (k = 0; k < n->dir.nr_entries; k++) {
			const struct ddsm_dir_entry *e = &n->entries[k];
			u8 *qlen;
			u32 slot;
			u64 unit = k * cfg.nodes + i;	/* interleave */

			*p++ = put8(e->copyset);
			*p++ = put8(e->rlocks);
			*p++ = put8(e->wseq);
			*p++ = put8(e->owner);
			*p++ = put8(e->wholder);
			*p++ = e->state;
			*p++ = e->wlocked;
			*p++ = e->wtype;
			*p++ = e->wb_pending;
			*p++ = e->unlock_seen;
			*p++ = e->unlock_ok;
			*p++ = e->lost;
			*p++ = e->migratory;
			*p++ = (u8)(e->gdefer | e->gflags << 1);
			*p++ = e->handoff;
			qlen = p++;
			*qlen = 0;
			for (slot = e->qhead; slot; slot = n->pool[slot - 1].next) {
				const struct ddsm_msg *m = &n->pool[slot - 1].msg;

				if (m->src != m->requester || m->dst != i ||
				    m->unit != unit || *qlen >= POOLMAX)
					pack_error = true;
				p = pack_msg(p, m, 0);
				++*qlen;
				if (pack_error)
					break;
			}
		}
	}
	for (i = 0; i < cfg.nodes; i++)
		for (j = 0; j < cfg.nodes; j++) {
			const struct chan *c = &w->ch[i][j];

			*p++ = (u8)c->len;
			for (k = 0; k < c->len; k++)
				p = pack_msg(p, &c->q[k].m, c->q[k].data);
		}
	if (pack_error) {
		fprintf(stderr, "explore: a state field does not fit the packed form\n");
		exit(2);
	}
	return (size_t)(p - out);
}

void world_unpack(struct world *w, const u8 *in, size_t len)
{
	const u8 *p = in;
	u32 i, j, k;

	w->alive = *p++;
	w->deaths = *p++;
	w->plant_used = *p++;
	w->durable = *p++;
	for (k = 0; k < cfg.units; k++)
		w->writer[k] = *p++;
	for (i = 0; i < cfg.nodes; i++) {
		struct node *n = &w->n[i];
		u32 used = 0, s;
		u8 fr;

		memset(n->lines, 0, sizeof(n->lines));
		memset(n->entries, 0, sizeof(n->entries));
		memset(&n->dir.stats, 0, sizeof(n->dir.stats));
		memset(&n->cache.stats, 0, sizeof(n->cache.stats));
		n->dir.dead = *p++;
		n->cache.dead = *p++;
		for (k = 0; k < cfg.units; k++) {
			struct ddsm_cline *l = &n->lines[k];

			l->state = *p++;
			l->seq = *p++;
			l->acks_need = *p++;
			l->acks_got = *p++;
			l->have_data = *p++;
			l->err = *p++;
			l->expect = *p++;
			l->acked = *p++;
			l->granted = *p & 1;
			l->hold = (*p >> 1) & 1;
			l->excl_clean = (*p >> 2) & 1;
			l->got_clean = (*p >> 3) & 1;
			l->handoff = *p++ >> 4;
			l->dtype = *p++;
			l->dflags = *p++;
			l->dreq = *p++;
			l->dacks = *p++;
			l->dseq = *p++;
		}
		fr = *p++;
		for (k = 0; k < cfg.units; k++)
			n->frame[k] = (fr >> k) & 1;
		for (k = 0; k < n->dir.nr_entries; k++) {
			struct ddsm_dir_entry *e = &n->entries[k];
			u32 q, m;

			e->copyset = *p++;
			e->rlocks = *p++;
			e->wseq = *p++;
			e->owner = *p++;
			e->wholder = *p++;
			e->state = *p++;
			e->wlocked = *p++;
			e->wtype = *p++;
			e->wb_pending = *p++;
			e->unlock_seen = *p++;
			e->unlock_ok = *p++;
			e->lost = *p++;
			e->migratory = *p++;
			e->gdefer = *p & 1;
			e->gflags = *p++ >> 1;
			e->handoff = *p++;
			e->persist = cfg.persist;
			q = *p++;
			for (m = 0; m < q; m++) {
				struct ddsm_dir_wait *wt = &n->pool[used];
				struct ddsm_msg tmp;
				u8 data;

				p = unpack_msg(p, &tmp, &data, 0, (u16)i);
				tmp.src = tmp.requester;
				wt->msg = tmp;
				wt->next = m + 1 < q ? used + 2 : 0;
				if (!m)
					e->qhead = used + 1;
				e->qtail = used + 1;
				used++;
			}
		}
		/* Free list: the remaining slots in order. */
		for (s = used; s < cfg.pool; s++)
			n->pool[s].next = s + 2 <= cfg.pool ? s + 2 : 0;
		n->dir.free = used < cfg.pool ? used + 1 : 0;
		n->dir.pool_used = used;
	}
	for (i = 0; i < cfg.nodes; i++)
		for (j = 0; j < cfg.nodes; j++) {
			struct chan *c = &w->ch[i][j];

			c->len = *p++;
			for (k = 0; k < c->len; k++)
				p = unpack_msg(p, &c->q[k].m, &c->q[k].data,
					       (u16)i, (u16)j);
		}
	if ((size_t)(p - in) != len) {
		fprintf(stderr, "explore: packed state length mismatch\n");
		exit(2);
	}
}

/* ---- printing ------------------------------------------------------- */

void world_print(FILE *f, const struct world *wc)
{
	struct world *w = (struct world *)wc;
	u32 u, i, j, k;

	for (u = 0; u < cfg.units; u++) {
		u32 h = home_of(w, u);
		struct ddsm_dir_entry *e = entry_for(w, u);
		struct node *hn = &w->n[h];
		char cs[64], rl[64];
		u32 slot;

		set_str(cs, sizeof(cs), e->copyset);
		set_str(rl, sizeof(rl), e->rlocks);
		if (!(w->alive & (1u << h)))
			fprintf(f, "  u%u dir@n%u: dead with its home\n", u, h);
		else
			fprintf(f, "  u%u dir@n%u: state=%s copyset=%s%s", u, h,
				gstate_name(e->state), cs, e->lost ? " LOST" : "");
		if (!(w->alive & (1u << h)))
			goto lines;
		if (e->state == DDSM_G_M)
			fprintf(f, " owner=n%u", e->owner);
		if (e->rlocks)
			fprintf(f, " rlocks=%s", rl);
		if (e->wlocked)
			fprintf(f, " wlocked by n%u seq%u (%s)%s%s", e->wholder,
				e->wseq, ddsm_msg_type_name(e->wtype),
				e->wb_pending ? " wb_pending" : "",
				e->unlock_seen ? " unlock_seen" : "");
		fprintf(f, " home-memory=%s\n", hn->frame[u] ? "latest" : "STALE");
		for (slot = e->qhead; slot; slot = hn->pool[slot - 1].next) {
			char d[160];

			msg_desc(&hn->pool[slot - 1].msg, 0, false, d, sizeof(d));
			fprintf(f, "    queued: %s\n", d);
		}
lines:
		for (i = 0; i < cfg.nodes; i++) {
			struct ddsm_cline *l = &w->n[i].lines[u];

			if (!(w->alive & (1u << i))) {
				fprintf(f, "    n%u: dead\n", i);
				continue;
			}
			fprintf(f, "    n%u: line %-5s seq%u", i,
				ddsm_cstate_name(l->state), l->seq);
			if (l->acks_need || l->acks_got)
				fprintf(f, " acks %u/%u", l->acks_got, l->acks_need);
			if (l->have_data)
				fprintf(f, " have_data");
			if (l->err)
				fprintf(f, " err=%s", err_name(l->err));
			fprintf(f, " frame=%s\n", w->n[i].frame[u] ? "latest" : "stale");
		}
	}
	for (i = 0; i < cfg.nodes; i++) {
		char ds[64];

		if (!(w->alive & (1u << i)) || !w->n[i].cache.dead)
			continue;
		set_str(ds, sizeof(ds), w->n[i].cache.dead);
		fprintf(f, "  n%u knows %s dead\n", i, ds);
	}
	for (i = 0; i < cfg.nodes; i++)
		for (j = 0; j < cfg.nodes; j++)
			for (k = 0; k < w->ch[i][j].len; k++) {
				char d[160];

				msg_desc(&w->ch[i][j].q[k].m, w->ch[i][j].q[k].data,
					 i != j, d, sizeof(d));
				fprintf(f, "  in flight: %s\n", d);
			}
}
