// SPDX-License-Identifier: GPL-2.0
/*
 * explore: exhaustive breadth-first state-space search of the ddsm
 * coherence protocol, running the real kernel/proto sources.
 *
 *   explore [-c CONFIG]... [-P slots] [-C cap] [-m max] [-d deaths]
 *           [--plant NAME] [-M] [--raw] [--tap] [-q]
 *
 * CONFIG is NxU[:P] (nodes x units, interleave homes, P wait slots per
 * home; default nodes * units, which never fills), e.g. 2x1, 3x1, 2x2,
 * 3x1:1; without -c the three standard configurations run.  -P sets P for
 * every configuration.  -M: homes never grant a read exclusively
 * (migratory sharing off; dir.h).  Exit status: 0 iff
 * no configuration has a violation (with --plant: iff every run caught
 * the planted bug), 1 on a violation, 2 on an explorer error or bound.
 * See docs/model-checker.md.
 */
#include <stdlib.h>
#include <time.h>
#include "explore.h"

/* Compile-time planted bugs: -DPLANT_SKIP_INV etc. (make planted). */
#ifdef PLANT_SKIP_INV
#define DEFAULT_PLANT	BUG_SKIP_INV
#elif defined(PLANT_EARLY_UNLOCK)
#define DEFAULT_PLANT	BUG_EARLY_UNLOCK
#elif defined(PLANT_NO_WRITEBACK)
#define DEFAULT_PLANT	BUG_NO_WRITEBACK
#elif defined(PLANT_FORGET_LOST)
#define DEFAULT_PLANT	BUG_FORGET_LOST
#elif defined(PLANT_LATE_STORE)
#define DEFAULT_PLANT	BUG_LATE_STORE
#elif defined(PLANT_EXCL_KEEPS_COPY)
#define DEFAULT_PLANT	BUG_EXCL_KEEPS_COPY
#else
#define DEFAULT_PLANT	BUG_NONE
#endif

static bool quiet, tap;



/* ---- state store: arena of packed states + open-addressing hash ------ */

struct store {
	u8 *arena;
	size_t arena_len, arena_cap;
	u64 *off;		/* state index -> arena offset */
	u32 *parent;		/* state index -> predecessor index */
	u16 *ev;		/* event that led here */
	u16 *depth;
	u8 *idle;		/* nothing in flight */
	u32 *edge;		/* delivery transitions: (from, to) pairs */
	u64 nedge, edge_cap;
	u32 n, cap;
	u64 *slots;		/* (hash high 32 bits << 32) | (index + 1) */
	u64 nslots;
};

static void *xrealloc(void *p, size_t sz)
{
	p = realloc(p, sz);
	if (!p) {
		fprintf(stderr, "explore: out of memory\n");
		exit(2);
	}
	return p;
}

static u64 hash_bytes(const u8 *p, size_t len)
{
	u64 h = 0x6a09e667f3bcc909ULL ^ len;
	size_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		u64 v;

		memcpy(&v, p + i, 8);
		h = (h ^ v) * 0x9e3779b97f4a7c15ULL;
		h ^= h >> 31;
	}
	if (i < len) {
		u64 v = 0;

		memcpy(&v, p + i, len - i);
		h = (h ^ v) * 0x9e3779b97f4a7c15ULL;
		h ^= h >> 31;
	}
	h *= 0xbf58476d1ce4e5b9ULL;
	h ^= h >> 27;
	return h;
}

static const u8 *state_at(const struct store *s, u32 idx, size_t *len)
{
	const u8 *p = s->arena + s->off[idx];

	*len = (size_t)p[0] | ((size_t)p[1] << 8);
	return p + 2;
}

static void store_free(struct store *s)
{
	free(s->arena);
	free(s->off);
	free(s->parent);
	free(s->ev);
	free(s->depth);
	free(s->idle);
	free(s->edge);
	free(s->slots);
	memset(s, 0, sizeof(*s));
}

static void slots_grow(struct store *s)
{
	u64 nn = s->nslots ? s->nslots * 2 : (1ULL << 16), i;
	u64 *ns = calloc(nn, sizeof(*ns));

	if (!ns) {
		fprintf(stderr, "explore: out of memory\n");
		exit(2);
	}
	for (i = 0; i < s->nslots; i++) {
		u64 v = s->slots[i], j;

		if (!v)
			continue;
		j = (v >> 32) & (nn - 1);
		while (ns[j])
			j = (j + 1) & (nn - 1);
		ns[j] = v;
	}
	free(s->slots);
	s->slots = ns;
	s->nslots = nn;
}

/*
 * Insert a packed state; returns its index and sets *fresh when it was not
 * there yet.  The hash's top 32 bits index the table (the table never
 * outgrows 2^32 slots), the stored copy decides equality.
 */
static u32 store_insert(struct store *s, const u8 *st, size_t len, u32 parent,
			u16 ev, u16 depth, bool *fresh)
{
	u64 h = hash_bytes(st, len), hi = h >> 32, j;

	if ((u64)(s->n + 1) * 2 > s->nslots)
		slots_grow(s);
	for (j = hi & (s->nslots - 1); s->slots[j]; j = (j + 1) & (s->nslots - 1)) {
		u64 v = s->slots[j];
		u32 idx;
		size_t olen;
		const u8 *o;

		if ((v >> 32) != hi)
			continue;
		idx = (u32)(v & 0xffffffffULL) - 1;
		o = state_at(s, idx, &olen);
		if (olen == len && !memcmp(o, st, len)) {
			*fresh = false;
			return idx;
		}
	}
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : (1u << 16);
		s->off = xrealloc(s->off, s->cap * sizeof(*s->off));
		s->parent = xrealloc(s->parent, s->cap * sizeof(*s->parent));
		s->ev = xrealloc(s->ev, s->cap * sizeof(*s->ev));
		s->depth = xrealloc(s->depth, s->cap * sizeof(*s->depth));
		s->idle = xrealloc(s->idle, s->cap * sizeof(*s->idle));
	}
	if (s->arena_len + len + 2 > s->arena_cap) {
		s->arena_cap = s->arena_cap ? s->arena_cap * 2 : (1u << 22);
		s->arena = xrealloc(s->arena, s->arena_cap);
	}
	s->off[s->n] = s->arena_len;
	s->arena[s->arena_len] = (u8)len;
	s->arena[s->arena_len + 1] = (u8)(len >> 8);
	memcpy(s->arena + s->arena_len + 2, st, len);
	s->arena_len += len + 2;
	s->parent[s->n] = parent;
	s->ev[s->n] = ev;
	s->depth[s->n] = depth;
	s->idle[s->n] = 0;
	s->slots[j] = (hi << 32) | (u64)(s->n + 1);
	*fresh = true;
	return s->n++;
}

/* ---- trace ---------------------------------------------------------- */

/* Replay the path to @idx, then @last, printing each step; seqs are real. */
static void print_trace(const struct store *s, u32 idx, u16 last, bool has_last)
{
	static struct world w;
	u16 *path;
	u32 n = 0, i, k;

	for (i = idx; i; i = s->parent[i])
		n++;
	path = calloc(n + 1, sizeof(*path));
	k = n;
	for (i = idx; i; i = s->parent[i])
		path[--k] = s->ev[i];
	if (has_last)
		path[n++] = last;

	printf("  trace (%u steps):\n", n);
	world_init(&w);
	world_canon(&w, false);
	for (i = 0; i < n; i++) {
		int rc;

		printf("  %3u. ", i + 1);
		fflush(stdout);
		steplog = stdout;
		rc = world_apply(&w, path[i]);
		steplog = NULL;
		if (rc == STEP_DISABLED) {
			char e[64];

			ev_name(path[i], e, sizeof(e));
			printf("%s (no effect on replay?)\n", e);
		}
		if (rc == STEP_OK) {
			rc = world_check(&w);
			world_canon(&w, false);
		}
		if (rc == STEP_VIOLATION || rc == STEP_BOUND)
			break;
	}
	printf("  final state:\n");
	world_print(stdout, &w);
	free(path);
}

/* ---- search --------------------------------------------------------- */

struct result {
	u64 states, transitions;
	u32 max_depth;
	double secs;
	int status;		/* STEP_OK, STEP_VIOLATION or STEP_BOUND */
	char what[512];
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void edge_add(struct store *s, u32 from, u32 to)
{
	if (s->nedge == s->edge_cap) {
		s->edge_cap = s->edge_cap ? s->edge_cap * 2 : (1u << 20);
		s->edge = xrealloc(s->edge, s->edge_cap * 2 * sizeof(*s->edge));
	}
	s->edge[2 * s->nedge] = from;
	s->edge[2 * s->nedge + 1] = to;
	s->nedge++;
}

/*
 * Progress: from every reachable state, delivering messages, telling
 * survivors of a death (the failure detector always fires eventually) and
 * releasing held lines (the access or the timer always comes) --
 * no new accesses, evictions or deaths -- can reach a state with nothing
 * in flight and no detection due, which the per-state checks proved
 * quiescent.  So every event that has started can finish; a state that
 * cannot is a livelock (or a deadlock hidden behind messages that only
 * bounce).  Backward search over those transitions from the idle states.
 */
static void check_progress(struct store *s, struct result *res)
{
	u32 *start = calloc((size_t)s->n + 1, sizeof(u32));
	u32 *from = malloc((s->nedge ? s->nedge : 1) * sizeof(u32));
	u32 *queue = malloc((size_t)s->n * sizeof(u32));
	u8 *good = calloc(s->n, 1);
	u32 qh = 0, qt = 0, i;
	u64 k;

	if (!start || !from || !queue || !good) {
		fprintf(stderr, "explore: out of memory\n");
		exit(2);
	}
	/* Reverse adjacency in CSR form: start[to]..start[to + 1] in from[]. */
	for (k = 0; k < s->nedge; k++)
		start[s->edge[2 * k + 1] + 1]++;
	for (i = 0; i < s->n; i++)
		start[i + 1] += start[i];
	for (k = 0; k < s->nedge; k++) {
		u32 to = s->edge[2 * k + 1];

		from[start[to]++] = s->edge[2 * k];
	}
	for (i = s->n; i > 0; i--)
		start[i] = start[i - 1];
	start[0] = 0;
	free(s->edge);
	s->edge = NULL;

	for (i = 0; i < s->n; i++)
		if (s->idle[i]) {
			good[i] = 1;
			queue[qt++] = i;
		}
	while (qh < qt) {
		u32 t = queue[qh++], j;

		for (j = start[t]; j < start[t + 1]; j++)
			if (!good[from[j]]) {
				good[from[j]] = 1;
				queue[qt++] = from[j];
			}
	}
	for (i = 0; i < s->n; i++)
		if (!good[i])
			break;
	if (i < s->n) {
		res->status = STEP_VIOLATION;
		snprintf(res->what, sizeof(res->what),
			 "livelock: %u states cannot reach quiescence by delivering messages%s",
			 s->n - qt, cfg.deaths ? " and detecting deaths" : "");
		if (!quiet) {
			printf("%s: VIOLATION: %s; the shallowest:\n", cfg.name,
			       res->what);
			print_trace(s, i, 0, false);
		}
	}
	free(start);
	free(from);
	free(queue);
	free(good);
}

static void explore(struct result *res)
{
	static struct world base, w;
	static u8 buf[PACK_MAX], cur[PACK_MAX];
	struct store s;
	u16 evs[MAXEV];
	double t0 = now();
	u32 i, e, nev;
	size_t len, clen;
	bool fresh;
	int rc;

	memset(&s, 0, sizeof(s));
	memset(res, 0, sizeof(*res));
	max_chan_seen = 0;
	memset(delivered, 0, sizeof(delivered));
	memset(coverage, 0, sizeof(coverage));
	world_init(&w);
	rc = world_check(&w);
	world_canon(&w, true);
	len = world_pack(&w, buf);
	store_insert(&s, buf, len, 0, 0, 0, &fresh);
	if (rc) {
		res->status = rc;
		snprintf(res->what, sizeof(res->what), "%s", viol_msg);
		if (!quiet)
			printf("%s: initial state: %s\n", cfg.name, viol_msg);
		goto out;
	}
	world_init(&base);

	for (i = 0; i < s.n; i++) {
		const u8 *st = state_at(&s, i, &clen);

		memcpy(cur, st, clen);
		world_unpack(&base, cur, clen);
		nev = world_events(&base, evs);
		/* Deliveries, detections and releases come first in evs[]. */
		s.idle[i] = !nev || (EV_KIND(evs[0]) != EV_DELIVER &&
				     EV_KIND(evs[0]) != EV_DETECT &&
				     EV_KIND(evs[0]) != EV_RELEASE);
		for (e = 0; e < nev; e++) {
			u32 idx;

			world_copy(&w, &base);
			rc = world_apply(&w, evs[e]);
			if (rc == STEP_DISABLED)
				continue;
			if (rc == STEP_OK)
				rc = world_check(&w);
			if (rc) {
				res->status = rc;
				snprintf(res->what, sizeof(res->what), "%s", viol_msg);
				res->states = s.n;
				res->max_depth = s.depth[i] + 1;
				res->secs = now() - t0;
				if (!quiet) {
					printf("%s: %s after %llu states: %s\n",
					       cfg.name,
					       rc == STEP_BOUND ? "EXPLORER BOUND" : "VIOLATION",
					       (unsigned long long)s.n, viol_msg);
					print_trace(&s, i, evs[e], true);
				}
				goto out;
			}
			world_canon(&w, true);
			len = world_pack(&w, buf);
			if (len == clen && !memcmp(buf, cur, len))
				continue;	/* self-loop */
			res->transitions++;
			idx = store_insert(&s, buf, len, i, evs[e],
					   (u16)(s.depth[i] + 1), &fresh);
			if (EV_KIND(evs[e]) == EV_DELIVER ||
			    EV_KIND(evs[e]) == EV_DETECT ||
			    EV_KIND(evs[e]) == EV_RELEASE)
				edge_add(&s, i, idx);
			if (fresh && s.n > cfg.max_states) {
				res->status = STEP_BOUND;
				snprintf(res->what, sizeof(res->what),
					 "explorer bound: more than %llu states (raise -m)",
					 (unsigned long long)cfg.max_states);
				goto done;
			}
		}
		if (s.depth[i] > res->max_depth)
			res->max_depth = s.depth[i];
	}
	if (!res->status)
		check_progress(&s, res);
done:
	res->states = s.n;
	res->secs = now() - t0;
	if (!quiet)
		printf("%s: %llu states, %llu transitions, max depth %u, max channel %u, %.2f s, %.0f MiB: %s\n",
		       cfg.name, (unsigned long long)res->states,
		       (unsigned long long)res->transitions, res->max_depth,
		       max_chan_seen, res->secs,
		       (s.arena_cap + s.cap * 16.0 + s.nslots * 8.0) / 1048576.0,
		       res->status ? res->what : "no violation");
	if (!quiet && !res->status) {
		u32 t;
		bool none = true;

		printf("%s: never delivered:", cfg.name);
		for (t = 1; t < DDSM_MSG_NR; t++)
			/* Backup homes' messages are not modelled (yet). */
			if (!delivered[t] && !ddsm_msg_is_replica((u8)t)) {
				printf(" %s", ddsm_msg_type_name((u8)t));
				none = false;
			}
		printf("%s\n", none ? " (every type was delivered)" : "");
		if (cfg.deaths)
			printf("%s: dead-node outcomes (transitions): %llu make a unit lost, %llu fail an event with EHOSTDOWN, %llu with EIO; %llu sends to a dead node vanished\n",
			       cfg.name, (unsigned long long)coverage[COV_LOST],
			       (unsigned long long)coverage[COV_HOSTDOWN],
			       (unsigned long long)coverage[COV_EIO],
			       (unsigned long long)coverage[COV_DROPPED]);
	}
out:
	store_free(&s);
}

/* ---- main ----------------------------------------------------------- */

/* " one node dies", " one node dies (n1)", " 2 nodes die (n0,n2)" or "". */
static void death_name(char *buf, size_t len, u32 nodes)
{
	size_t o;
	u32 i;
	bool first = true;

	buf[0] = 0;
	if (!cfg.deaths)
		return;
	if (cfg.deaths == 1)
		o = (size_t)snprintf(buf, len, " one node dies");
	else
		o = (size_t)snprintf(buf, len, " %u nodes die", cfg.deaths);
	if (cfg.die_mask == (1u << nodes) - 1)
		return;
	for (i = 0; i < nodes && o < len; i++)
		if (cfg.die_mask & (1u << i)) {
			o += (size_t)snprintf(buf + o, len - o, "%sn%u",
					      first ? " (" : ",", i);
			first = false;
		}
	if (o < len)
		snprintf(buf + o, len - o, ")");
}

static void usage(void)
{
	fprintf(stderr,
		"usage: explore [-c NxU[:P]]... [-P pool] [-C chancap] [-m maxstates]\n"
		"               [-d deaths] [-k nodes] [--plant NAME]\n"
		"               [-M] [-H] [--persist MODEL] [--raw] [--tap] [-q]\n"
		"  NAME: skip-inv early-unlock no-writeback forget-lost late-store\n"
		"        excl-keeps-copy skip-gate no-wb handoff-evict\n"
		"  MODEL: read_enf or sync (writeback + gated grants), strict\n"
		"         (writeback), eventual or scope (the plain protocol)\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *configs[8];
	u32 nconf = 0, c, pool = 0, chcap = 8, deaths = 0, die_mask = 0;
	u64 max_states = 20000000;
	int plant = DEFAULT_PLANT, i, status = 0;
	bool raw = false, pool_set = false, no_migratory = false;
	bool no_handoff = false;
	const char *persist = NULL;
	u8 pflags = 0;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-c") && i + 1 < argc && nconf < 8)
			configs[nconf++] = argv[++i];
		else if (!strcmp(a, "-P") && i + 1 < argc) {
			pool = (u32)atoi(argv[++i]);
			pool_set = true;
		}
		else if (!strcmp(a, "-C") && i + 1 < argc)
			chcap = (u32)atoi(argv[++i]);
		else if (!strcmp(a, "-m") && i + 1 < argc)
			max_states = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(a, "-d") && i + 1 < argc)
			deaths = (u32)atoi(argv[++i]);
		else if (!strcmp(a, "-k") && i + 1 < argc) {
			/* -k 0 -k 12: only these nodes may die */
			const char *k;

			for (k = argv[++i]; *k; k++) {
				if (*k < '0' || *k >= '0' + MAXN)
					usage();
				die_mask |= 1u << (*k - '0');
			}
		}
		else if (!strcmp(a, "--plant") && i + 1 < argc) {
			plant = plant_by_name(argv[++i]);
			if (plant < 0)
				usage();
		} else if (!strcmp(a, "--persist") && i + 1 < argc) {
			persist = argv[++i];
			if (!strcmp(persist, "read_enf") || !strcmp(persist, "sync"))
				pflags = DDSM_DIR_P_WB | DDSM_DIR_P_GATE;
			else if (!strcmp(persist, "strict"))
				pflags = DDSM_DIR_P_WB;
			else if (strcmp(persist, "eventual") && strcmp(persist, "scope"))
				usage();
		} else if (!strcmp(a, "-M"))
			no_migratory = true;
		else if (!strcmp(a, "-H"))
			no_handoff = true;
		else if (!strcmp(a, "--raw"))
			raw = true;
		else if (!strcmp(a, "--tap"))
			tap = true;
		else if (!strcmp(a, "-q"))
			quiet = true;
		else
			usage();
	}
	if (!nconf) {
		configs[nconf++] = "2x1";
		configs[nconf++] = "3x1";
		configs[nconf++] = "2x2";
	}
	if (chcap < 1 || chcap > CHCAP_MAX || max_states > 0xfffffff0ULL)
		usage();

	for (c = 0; c < nconf; c++) {
		struct result res;
		char name[96], dname[48];
		unsigned int nn, nu, np = 0;
		int got = sscanf(configs[c], "%ux%u:%u", &nn, &nu, &np);
		bool small_pool = got == 3 || pool_set;

		if (got < 2 || nn < 1 || nn > MAXN || nu < 1 || nu > MAXU)
			usage();
		if (got < 3)
			np = pool;
		memset(&cfg, 0, sizeof(cfg));
		cfg.nodes = nn;
		cfg.units = nu;
		/* Default: room for every request that can be outstanding. */
		cfg.pool = small_pool ? np : nn * nu;
		if (cfg.pool > POOLMAX)
			usage();
		cfg.chcap = chcap;
		cfg.deaths = deaths;
		cfg.die_mask = (u8)(die_mask ? die_mask : (1u << nn) - 1);
		death_name(dname, sizeof(dname), nn);
		cfg.plant = plant;
		cfg.raw = raw;
		cfg.no_migratory = no_migratory;
		cfg.no_handoff = no_handoff;
		cfg.persist = pflags;
		cfg.max_states = max_states;
		if (small_pool)
			snprintf(name, sizeof(name), "%ux%u pool=%u%s", nn, nu,
				 np, dname);
		else
			snprintf(name, sizeof(name), "%ux%u%s", nn, nu, dname);
		if (no_migratory)
			strncat(name, " no-migratory",
				sizeof(name) - strlen(name) - 1);
		if (no_handoff)
			strncat(name, " no-handoff",
				sizeof(name) - strlen(name) - 1);
		if (persist) {
			strncat(name, " ", sizeof(name) - strlen(name) - 1);
			strncat(name, persist, sizeof(name) - strlen(name) - 1);
		}
		cfg.name = name;
		if (plant && !quiet)
			printf("%s: planted bug \"%s\"\n", name, plant_name(plant));
		explore(&res);

		if (plant) {
			/* The expectation is reversed: the checker must object. */
			if (res.status == STEP_VIOLATION) {
				if (tap)
					printf("ok - model planted %s caught in %s: %s\n",
					       plant_name(plant), name, res.what);
			} else {
				if (tap)
					printf("not ok - model planted %s NOT caught in %s (%s)\n",
					       plant_name(plant), name,
					       res.status ? res.what : "no violation");
				status = status ? status : 1;
			}
			continue;
		}
		if (res.status == STEP_OK) {
			if (tap)
				printf("ok - model %s: %llu states, %llu transitions (%llu gave a reader M), no violation\n",
				       name, (unsigned long long)res.states,
				       (unsigned long long)res.transitions,
				       (unsigned long long)coverage[COV_EXCL]);
		} else {
			if (tap)
				printf("not ok - model %s: %s\n", name, res.what);
			if (res.status == STEP_BOUND)
				status = 2;
			else if (!status)
				status = 1;
		}
	}
	return status;
}
