// SPDX-License-Identifier: GPL-2.0
/*
 * ddsm-bench-pmem: what each persistency model costs a write-heavy
 * workload on every node at once (issue 12), measured the same way on a
 * module loaded without pmem= (the DRAM-only baseline).
 *
 * usage: ddsm-bench-pmem [-t SECS] [-R REPS] [-u UNITS] [-k K] [-r READ_PCT]
 *                        [-n ROUNDS] pmem MODEL... | dram
 *
 * Workload, per model, on every node for SECS seconds (default 30) in all,
 * in REPS turns (default 3) of SECS / REPS each: turn i runs the models
 * in the order given, rotated by i, so that a host whose load drifts (TCG
 * guests share its cores with whatever else runs) weighs on every model
 * alike rather than on the last ones:
 *  - a region of UNITS units (default 64, homed round robin on all nodes)
 *    holds 1 KiB values, the record size of the MINOS paper: 4 a unit;
 *  - each operation picks a key uniformly (no zipf: every unit is shared
 *    alike); READ_PCT (default 50) % are reads of any key, the rest writes
 *    of one of this node's keys (key % nodes == node): one writer per
 *    value, so that a reader can tell a torn value from a wrong one, and
 *    values of all nodes share every unit, so reads and writes move
 *    ownership between nodes all the time;
 *  - the write of sync and strict publishes the value with
 *    ddsm_write_durable(); read_enf, eventual and dram store it plainly;
 *    scope stores plainly and calls the Scope barrier (ddsm_persist) over
 *    the whole region every K writes (default 16).
 * The shell script sets the models' regions (ddsmctl region) on every
 * node right after insmod, before any node can touch them; this program
 * only checks them, since its own first touch could come after another
 * node's.
 *
 * A value is a seqlock: word 0 is its version (odd while being written,
 * even when whole), word 1 its key, words 2..127 a pattern of key and
 * version.  Readers retry a value whose version moved while they copied
 * it; a whole copy that does not match its version, a version older than
 * one the reader saw before, or a writer finding its value not as it left
 * it is a coherence or persistence bug: "not ok" and exit 1.
 *
 * Prints, per turn, model and node, "bench model MODEL NODE SECS OPS WRITES
 * READS TORN WP50_US WP99_US" and the deltas of this node's
 * DDSM_IOC_PMEM_STATUS over the run (they count the work done at this
 * node as a home, for every node's writes): "PERSISTS BYTES FENCES
 * FLUSHES RECORDS DURABLE_GRANTS BARRIERS PERSIST_SENT PERSIST_SERVED",
 * then those of DDSM_IOC_STATUS that say how far the data had to travel:
 * "FAULTS_READ FAULTS_WRITE UPGRADES MSGS_SENT".
 * In pmem mode node 0 first times the Scope barrier over one dirty unit,
 * homed here and homed on node 1, ROUNDS times each (default 200):
 * "bench barrier_lat local|remote N P50_US P90_US MIN_US".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "libddsm.h"
#include "test_common.h"
#include "dsm_sync.h"

/* Where things are in the global space (size=64M); bench-pmem.sh sets
 * the same regions: a Scope region over SYNC and LAT (nothing but the
 * latency test's barriers makes them durable, so the harness adds no
 * persists to the models' counts) and one per model from MODEL_BASE. */
#define SYNC_GADDR	(32ULL << 20)
#define LAT_GADDR	(33ULL << 20)
#define MODEL_BASE	(16ULL << 20)
#define MODEL_STRIDE	(1ULL << 20)
#define MAX_UNITS	(MODEL_STRIDE / DSM_UNIT)
#define MAX_MODELS	8	/* regions of MODEL_STRIDE below SYNC_GADDR */

#define VAL_SIZE	1024
#define VAL_WORDS	(VAL_SIZE / sizeof(uint64_t))
#define VALS_PER_UNIT	(DSM_UNIT / VAL_SIZE)
#define MAX_TRIES	1000	/* reads of a value that keeps moving */
#define FLUSH_WAIT_US	500000	/* > pmem_flush_ms (100): Eventual's flusher is done */

static struct ddsm d;
static int me, nn;
static unsigned int secs = 30, reps = 3, units = 64, k_scope = 16;
static unsigned int read_pct = 50;
static unsigned int rounds = 200;
static uint64_t rng;

static uint64_t next_rand(void)
{
	rng = dsm_mix64(rng);
	return rng;
}

static uint64_t pattern(uint64_t key, uint64_t ver, uint64_t i)
{
	return dsm_mix64((key << 32) ^ (ver << 8) ^ i);
}

static uint64_t model_gaddr(int slot)
{
	return MODEL_BASE + (uint64_t)slot * MODEL_STRIDE;
}

/* One model's run: its region mapped, what this node saw and wrote. */
struct run {
	const char *name;
	uint32_t model;
	bool durable;		/* sync, strict: ddsm_write_durable() */
	bool scope;		/* barrier every k_scope writes */
	uint64_t gaddr;
	volatile uint64_t *vals;
	uint64_t nvals;
	uint64_t *last_written;	/* version this node last wrote, per key */
	uint64_t *last_seen;	/* newest version this node read, per key */
	uint64_t *lat;		/* write latencies, ns */
	uint64_t nlat, cap, ops, writes, reads, torn;
};

static void write_value(struct run *r, uint64_t key)
{
	volatile uint64_t *v = r->vals + key * VAL_WORDS;
	uint64_t old = r->last_written[key], ver = old + 2, i, now;
	uint64_t t0 = now_ns();

	/* Only this node writes @key: anything else here is a lost write. */
	if (v[0] != old)
		tap_bail("%s: key %" PRIu64 " holds version %" PRIu64
			 ", this node last wrote %" PRIu64,
			 r->name, key, v[0], old);
	__atomic_store_n(&v[0], ver - 1, __ATOMIC_RELEASE);
	v[1] = key;
	for (i = 2; i < VAL_WORDS; i++)
		v[i] = pattern(key, ver, i);
	/*
	 * The store that publishes the value; for sync and strict it is the
	 * durable write, which makes the whole unit (the body just stored
	 * with it) durable at its home before it returns.
	 */
	if (r->durable) {
		uint64_t off = key * VAL_SIZE;

		if (ddsm_write_durable(&d, (void *)&v[0], r->gaddr + off,
				       &ver, sizeof(ver)))
			tap_bail("%s: ddsm_write_durable: %s", r->name,
				 strerror(errno));
	} else {
		__atomic_store_n(&v[0], ver, __ATOMIC_RELEASE);
	}
	r->last_written[key] = ver;
	r->writes++;
	if (r->scope && r->writes % k_scope == 0 &&
	    ddsm_persist(&d, r->gaddr, (uint64_t)units * DSM_UNIT))
		tap_bail("%s: ddsm_persist: %s", r->name, strerror(errno));
	now = now_ns();
	if (r->nlat < r->cap)
		r->lat[r->nlat++] = now - t0;
}

static void read_value(struct run *r, uint64_t key)
{
	volatile uint64_t *v = r->vals + key * VAL_WORDS;
	uint64_t copy[VAL_WORDS], s1, s2, i;
	int tries;

	for (tries = 0; tries < MAX_TRIES; tries++) {
		s1 = __atomic_load_n(&v[0], __ATOMIC_ACQUIRE);
		for (i = 1; i < VAL_WORDS; i++)
			copy[i] = v[i];
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		s2 = __atomic_load_n(&v[0], __ATOMIC_ACQUIRE);
		if (s1 == s2 && !(s1 & 1))
			break;
		r->torn++;
	}
	if (tries == MAX_TRIES)
		tap_bail("%s: key %" PRIu64 " never stood still in %d reads",
			 r->name, key, MAX_TRIES);
	r->reads++;
	if (s1 < r->last_seen[key])
		tap_bail("%s: key %" PRIu64 " went back from version %" PRIu64
			 " to %" PRIu64, r->name, key, r->last_seen[key], s1);
	r->last_seen[key] = s1;
	for (i = 1; i < VAL_WORDS; i++) {
		uint64_t want = !s1 ? 0 : i == 1 ? key : pattern(key, s1, i);

		if (copy[i] != want)
			tap_bail("%s: key %" PRIu64 " version %" PRIu64
				 " word %" PRIu64 " is %#" PRIx64 ", not %#" PRIx64,
				 r->name, key, s1, i, copy[i], want);
	}
}

/* A key this node writes, uniform over its share. */
static uint64_t own_key(struct run *r)
{
	uint64_t mine = (r->nvals - me + nn - 1) / nn;

	return next_rand() % mine * nn + me;
}

static void pstatus(struct ddsm_pmem_status *ps)
{
	memset(ps, 0, sizeof(*ps));
	if (ddsm_pmem_status(&d, ps) && errno != ENOTTY)
		tap_bail("ddsm_pmem_status: %s", strerror(errno));
}

static void cstatus(struct ddsm_status *st)
{
	if (ddsm_status(&d, st))
		tap_bail("ddsm_status: %s", strerror(errno));
}

static uint64_t pct(uint64_t *v, uint64_t n, unsigned int p)
{
	return n ? v[(n - 1) * p / 100] : 0;
}

#define D(f) (uint64_t)(b.f - a.f)

static void run_model(struct dsm_sync *s, struct run *r, bool last)
{
	struct ddsm_pmem_status a, b;
	struct ddsm_status ca, cb;
	uint64_t t_end, t0, key;
	double el;

	r->ops = r->writes = r->reads = r->torn = r->nlat = 0;
	if (dsm_barrier(s))
		tap_bail("%s: start barrier timed out", r->name);
	pstatus(&a);
	cstatus(&ca);
	t0 = now_ns();
	t_end = t0 + (uint64_t)secs * 1000000000ULL / reps;
	while (now_ns() < t_end) {
		if (next_rand() % 100 < read_pct)
			read_value(r, next_rand() % r->nvals);
		else
			write_value(r, own_key(r));
		r->ops++;
	}
	el = (now_ns() - t0) / 1e9;
	cstatus(&cb);
	if (dsm_barrier(s))
		tap_bail("%s: end barrier timed out", r->name);
	usleep(FLUSH_WAIT_US);
	pstatus(&b);
	/* The checks below may read every value: not the model's counts. */
	if (dsm_barrier(s))
		tap_bail("%s: barrier after the counters timed out", r->name);
	qsort(r->lat, r->nlat, sizeof(*r->lat), cmp_u64);
	printf("bench model %s %d %.3f %" PRIu64 " %" PRIu64 " %" PRIu64
	       " %" PRIu64 " %.1f %.1f", r->name, me, el, r->ops, r->writes,
	       r->reads, r->torn, pct(r->lat, r->nlat, 50) / 1e3,
	       pct(r->lat, r->nlat, 99) / 1e3);
	printf(" %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
	       " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64,
	       D(persists), D(bytes), D(fences), D(flushes), D(records),
	       D(durable_grants), D(barriers), D(persist_sent),
	       D(persist_served));
	printf(" %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
	       (uint64_t)(cb.faults_read - ca.faults_read),
	       (uint64_t)(cb.faults_write - ca.faults_write),
	       (uint64_t)(cb.upgrades - ca.upgrades),
	       (uint64_t)(cb.msgs_sent - ca.msgs_sent));
	fflush(stdout);
	if (!last)
		return;
	/*
	 * After the last turn: every value this node wrote is still its
	 * last version, and every value reads whole.  Only then: on a
	 * starved guest each of these reads can take 100 ms.
	 */
	for (key = me; key < r->nvals; key += nn)
		if (r->vals[key * VAL_WORDS] != r->last_written[key])
			tap_bail("%s: key %" PRIu64 " ends at version %" PRIu64
				 ", written last as %" PRIu64, r->name, key,
				 r->vals[key * VAL_WORDS], r->last_written[key]);
	for (key = 0; key < r->nvals; key++)
		read_value(r, key);
	tap(1, "%s: every value verified after %u turns, %" PRIu64
	    " torn copies retried in the last", r->name, reps, r->torn);
}

/* All the models' regions, mapped as one window (map_window() reports a
 * SIGBUS by its address in the last window it mapped). */
static char *models;

static void setup_run(struct run *r, const char *name, int slot)
{
	uint32_t got;

	memset(r, 0, sizeof(*r));
	r->name = name;
	r->gaddr = model_gaddr(slot);
	if (strcmp(name, "dram")) {
		if (ddsm_model_parse(name, &r->model))
			tap_bail("unknown model %s", name);
		if (ddsm_region_model(&d, r->gaddr, &got) || got != r->model)
			tap_bail("region at %#" PRIx64 " is not %s (set it on every node first)",
				 r->gaddr, name);
		r->durable = r->model == DDSM_MODEL_SYNC ||
			     r->model == DDSM_MODEL_STRICT;
		r->scope = r->model == DDSM_MODEL_SCOPE;
	}
	r->nvals = (uint64_t)units * VALS_PER_UNIT;
	r->vals = (volatile uint64_t *)(models + slot * MODEL_STRIDE);
	r->last_written = calloc(r->nvals, sizeof(uint64_t));
	r->last_seen = calloc(r->nvals, sizeof(uint64_t));
	r->cap = 1 << 20;
	r->lat = malloc(r->cap * sizeof(uint64_t));
	if (!r->last_written || !r->last_seen || !r->lat)
		tap_bail("out of memory");
}

/* The Scope barrier over one unit this node just dirtied, @rounds times. */
static void barrier_lat(volatile uint64_t *lat, int unit, const char *what)
{
	uint64_t *t = malloc(rounds * sizeof(uint64_t)), t0;
	uint64_t gaddr = LAT_GADDR + (uint64_t)unit * DSM_UNIT;
	unsigned int i;

	if (!t)
		tap_bail("out of memory");
	for (i = 0; i < rounds; i++) {
		lat[unit * DSM_WORDS_PER_UNIT] = i + 1;
		t0 = now_ns();
		if (ddsm_persist(&d, gaddr, DSM_UNIT))
			tap_bail("barrier_lat: ddsm_persist: %s", strerror(errno));
		t[i] = now_ns() - t0;
	}
	qsort(t, rounds, sizeof(*t), cmp_u64);
	printf("bench barrier_lat %s %u %.1f %.1f %.1f\n", what, rounds,
	       pct(t, rounds, 50) / 1e3, pct(t, rounds, 90) / 1e3, t[0] / 1e3);
	fflush(stdout);
	free(t);
}

static void lat_phase(struct dsm_sync *s)
{
	volatile uint64_t *lat;
	int u, local = -1, remote = -1;
	struct ddsm_home_query q;

	lat = ddsm_map(&d, LAT_GADDR, 2 * nn * DSM_UNIT, PROT_READ | PROT_WRITE);
	if (!lat)
		tap_bail("mapping the latency units: %s", strerror(errno));
	for (u = 0; u < 2 * nn; u++) {
		if (ddsm_home(&d, LAT_GADDR + (uint64_t)u * DSM_UNIT, &q))
			tap_bail("ddsm_home: %s", strerror(errno));
		if (q.home == (uint32_t)me && local < 0)
			local = u;
		if (q.home == (uint32_t)(me + 1) % nn && remote < 0)
			remote = u;
	}
	if (me == 0) {
		barrier_lat(lat, local, "local");
		barrier_lat(lat, remote, "remote");
	}
	if (dsm_barrier(s))
		tap_bail("barrier after the barrier latencies timed out");
}

static void usage(const char *argv0)
{
	fprintf(stderr, "usage: %s [-t SECS] [-R REPS] [-u UNITS] [-k K] [-r READ_PCT] [-n ROUNDS] pmem MODEL... | dram\n",
		argv0);
	exit(2);
}

int main(int argc, char **argv)
{
	struct run runs[MAX_MODELS];
	struct dsm_sync s;
	unsigned int rep;
	int c, i, nr;
	void *sync;
	bool pmem;

	while ((c = getopt(argc, argv, "t:R:u:k:r:n:")) != -1) {
		switch (c) {
		case 't': secs = parse_ul(optarg, "seconds"); break;
		case 'R': reps = parse_ul(optarg, "turns"); break;
		case 'u': units = parse_ul(optarg, "units"); break;
		case 'k': k_scope = parse_ul(optarg, "K"); break;
		case 'r': read_pct = parse_ul(optarg, "read %"); break;
		case 'n': rounds = parse_ul(optarg, "rounds"); break;
		default: usage(argv[0]);
		}
	}
	if (optind >= argc || !secs || !reps || !units || units > MAX_UNITS ||
	    !k_scope || read_pct > 100 || !rounds)
		usage(argv[0]);
	pmem = !strcmp(argv[optind], "pmem");
	nr = argc - optind - 1;
	if (pmem ? nr < 1 || nr > MAX_MODELS :
	    strcmp(argv[optind], "dram") || nr)
		usage(argv[0]);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (ddsm_open(&d, NULL)) {
		perror("ddsm_open");
		return 1;
	}
	me = d.node_id;
	nn = d.nr_nodes;
	tap_node = me;
	rng = dsm_mix64(0x5eed0000ULL + me);
	sync = ddsm_map(&d, SYNC_GADDR, DSM_SYNC_UNITS(nn) * DSM_UNIT,
			PROT_READ | PROT_WRITE);
	if (!sync)
		tap_bail("mapping the barrier words: %s", strerror(errno));
	if (dsm_sync_init(&s, sync, SYNC_GADDR / DSM_UNIT, me, nn, 120))
		tap_bail("first barrier timed out");
	models = map_window(&d, MODEL_BASE, (pmem ? nr : 1) * MODEL_STRIDE);
	if (!pmem) {
		setup_run(&runs[0], "dram", 0);
		nr = 1;
	} else {
		lat_phase(&s);
		for (i = 0; i < nr; i++)
			setup_run(&runs[i], argv[optind + 1 + i], i);
	}
	for (rep = 0; rep < reps; rep++)
		for (i = 0; i < nr; i++)
			run_model(&s, &runs[(i + rep) % nr], rep == reps - 1);
	if (dsm_barrier(&s))
		tap_bail("last barrier timed out");
	return tap_failed ? 1 : 0;
}
