// SPDX-License-Identifier: GPL-2.0
/*
 * What the transaction calls return, call by call, on a 3-node cluster
 * (tests/vm/txbench/guest.sh): above all DDSM_IOC_TX_READV, whose remote reads
 * are answered by requests sent ahead to their homes.  Each of its reads
 * must return exactly what DDSM_IOC_TX_READ returns for the same range in
 * the same transaction: committed data, the transaction's own writes laid
 * over it, nothing of an aborted one; ranges of one unit (merged into one
 * request), ranges across a unit boundary, the last byte of a unit, a
 * range homed here; the confirmations of ranges across two homes, sent
 * once all answers are in; a buffer inside a live ddsm mapping; every
 * malformed argument refused with the documented errno, the transaction
 * going on.
 *
 *   ddsm-test-txapi NODE NODES
 *
 * Every node declares the region and raises its flag in a plain unit
 * homed on node 0; node 0 waits for every flag and runs the checks.
 * Then the race READV once lost: nodes 1 and 2 commit new generations
 * of a record that spans two units homed on them while node 0 reads it
 * with READV for RACE_SECS; every read that returns must show the
 * record whole (one generation), never half old, half new.  Then the
 * same race forced into the order that tore such reads before 75be308,
 * with two test-only module parameters: tx_readv_lag_ms on node 0 (the
 * record's first part is asked for last, after commits landed at its
 * home) and tx_squash_off on the homes (node 0 is not told that it was
 * doomed, so only its own reads can catch it); the writers pause
 * FORCED_LAG_MS after each commit, so that one lands in the lag and
 * none while node 0 confirms.  The code before 75be308 returned 44 of
 * 63 such reads torn.
 */
#include <sys/ioctl.h>
#include "test_common.h"

#define REGION		(72ULL << 20)	/* transactional */
#define REGION_UNITS	48
#define REGION_END	(REGION + REGION_UNITS * 4096ULL)
#define FLAGS		(70ULL << 20)	/* from here, a plain unit homed on 0 */
#define MAGIC		0x7478617069212121ULL
#define WAIT_NS		(120ULL * 1000000000)
#define GO		0x676f676f676f676fULL
#define GO_FORCED	0x666f726365642121ULL
#define RACE_SECS	8
#define FORCED_SECS	6
#define FORCED_LAG_MS	100
#define REC_WORDS	40	/* 320 bytes: 8 in one unit, 32 in the next */

static struct ddsm d;
static int nr_nodes;

static uint8_t pat(uint64_t gaddr, int gen)
{
	return (uint8_t)(gaddr * 31 + (uint64_t)gen * 7 + (gaddr >> 12));
}

static void fill(uint8_t *buf, uint64_t gaddr, uint32_t len, int gen)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		buf[i] = pat(gaddr + i, gen);
}

/* Does @buf hold generation @gen of [@gaddr, +@len)?  Else say where not. */
static int holds(const uint8_t *buf, uint64_t gaddr, uint32_t len, int gen,
		 char *why, size_t whylen)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		if (buf[i] != pat(gaddr + i, gen)) {
			snprintf(why, whylen, "byte %u (%#llx): %#x, want %#x",
				 i, (unsigned long long)(gaddr + i), buf[i],
				 pat(gaddr + i, gen));
			return 0;
		}
	snprintf(why, whylen, "all %u bytes", len);
	return 1;
}

static int home_of(uint64_t gaddr)
{
	struct ddsm_home_query q;

	if (ddsm_home(&d, gaddr, &q) < 0)
		tap_bail("home of %#llx: %s", (unsigned long long)gaddr,
			 strerror(errno));
	return (int)q.home;
}

static struct ddsm_tx_status tx_status(void)
{
	struct ddsm_tx_status st;

	if (ddsm_tx_status(&d, &st) < 0)
		tap_bail("tx status: %s", strerror(errno));
	return st;
}

static uint64_t reads_ahead(void)
{
	return tx_status().reads_ahead;
}

static uint64_t read_batches(void)
{
	return tx_status().read_batches;
}

static uint64_t validations_carried(void)
{
	return tx_status().validations_carried;
}

static uint64_t readv_confirms(void)
{
	return tx_status().readv_confirms;
}

static void begin(void)
{
	if (ddsm_tx_begin(&d) < 0)
		tap_bail("begin: %s", strerror(errno));
}

static int commit(const char *what)
{
	uint32_t reason = 0;
	int ret = ddsm_tx_commit(&d, &reason);

	if (ret < 0)
		printf("# %s: commit failed: %s (%s)\n", what, strerror(errno),
		       ddsm_tx_reason_name(reason));
	return ret;
}

/* Write generation @gen of each range in one transaction, retried. */
static void write_gen(const struct ddsm_tx_iov *r, int nr, int gen)
{
	uint8_t buf[4096];
	uint32_t reason = 0;
	int tries, i;

	for (tries = 0; tries < 100; tries++) {
		begin();
		for (i = 0; i < nr; i++) {
			fill(buf, r[i].gaddr, r[i].len, gen);
			if (ddsm_tx_write(&d, r[i].gaddr, buf, r[i].len,
					  &reason) < 0)
				break;
		}
		if (i == nr && ddsm_tx_commit(&d, &reason) == 0)
			return;
		if (errno != ECANCELED)
			tap_bail("writing generation %d: %s", gen,
				 strerror(errno));
		usleep(10000);
	}
	tap_bail("writing generation %d: aborted 100 times (%s)", gen,
		 ddsm_tx_reason_name(reason));
}

/* A raw DDSM_IOC_TX_READV: 0 or the errno. */
static int readv_raw(struct ddsm_tx_iov *iov, uint32_t nr, uint32_t flags,
		     uint32_t reserved)
{
	struct ddsm_tx_readv_arg a = {
		.iov = (uintptr_t)iov,
		.nr = nr,
		.flags = flags,
		.reserved = reserved,
	};

	return ioctl(d.fd, DDSM_IOC_TX_READV, &a) < 0 ? errno : 0;
}

static volatile uint64_t *map_flags(void)
{
	uint64_t fl;

	for (fl = FLAGS; home_of(fl); fl += 4096)
		;
	return (volatile uint64_t *)map_window(&d, fl, 4096);
}

static void wait_flags(volatile uint64_t *flags)
{
	uint64_t t0 = now_ns();
	int i;

	for (i = 1; i < nr_nodes; i++)
		while (__atomic_load_n(&flags[i], __ATOMIC_ACQUIRE) != MAGIC) {
			if (now_ns() - t0 > WAIT_NS)
				tap_bail("node %d did not declare the region in 120 s",
					 i);
			usleep(1000);
		}
}

/* The first unit of the region homed on @home. */
static uint64_t unit_on(int home)
{
	uint64_t g;

	for (g = REGION; g < REGION_END; g += 4096)
		if (home_of(g) == home)
			return g;
	tap_bail("no unit of the region is homed on node %d", home);
}

/* The next unit of the region after @g homed where @g is. */
static uint64_t next_on(uint64_t g)
{
	int home = home_of(g);

	for (g += 4096; g < REGION_END; g += 4096)
		if (home_of(g) == home)
			return g;
	tap_bail("the region has too few units homed on node %d", home);
}

/* What READV sends ahead: the distinct units of @iov homed elsewhere. */
static int remote_units(const struct ddsm_tx_iov *iov, int nr)
{
	uint64_t seen[2 * DDSM_TX_READV_MAX];
	int i, k, n = 0;

	for (i = 0; i < nr; i++) {
		uint64_t first = iov[i].gaddr & ~4095ULL, u = first;
		uint64_t last = (iov[i].gaddr + iov[i].len - 1) & ~4095ULL;

		for (; u <= last; u += 4096) {
			for (k = 0; k < n && seen[k] != u; k++)
				;
			if (k < n || home_of(u) == (int)d.node_id)
				continue;
			seen[n++] = u;
		}
	}
	return n;
}

/* READV equals READ, range by range, on committed generation 1. */
static void same_as_read(const struct ddsm_tx_iov *ranges, int nr)
{
	static uint8_t vbuf[DDSM_TX_READV_MAX][4096], rbuf[4096];
	struct ddsm_tx_iov iov[DDSM_TX_READV_MAX];
	uint64_t before = reads_ahead();
	uint32_t reason = 0;
	char why[128];
	int i, good;
	/* A single read is a READ: nothing goes ahead. */
	int want = nr > 1 ? remote_units(ranges, nr) : 0;

	memcpy(iov, ranges, nr * sizeof(iov[0]));
	for (i = 0; i < nr; i++)
		iov[i].buf = (uintptr_t)vbuf[i];
	begin();
	if (ddsm_tx_readv(&d, iov, nr, &reason) < 0)
		tap_bail("readv of %d ranges: %s (%s)", nr, strerror(errno),
			 ddsm_tx_reason_name(reason));
	tap(reads_ahead() - before == (uint64_t)want,
	    "readv of %d ranges sent %llu unit reads ahead (want %d: one per remote unit)",
	    nr, (unsigned long long)(reads_ahead() - before), want);
	for (i = 0; i < nr; i++) {
		good = holds(vbuf[i], iov[i].gaddr, iov[i].len, 1, why,
			     sizeof(why));
		tap(good, "readv range %d [%#llx, +%u), home %d: committed data (%s)",
		    i, (unsigned long long)iov[i].gaddr, iov[i].len,
		    home_of(iov[i].gaddr), why);
		if (ddsm_tx_read(&d, iov[i].gaddr, iov[i].len, rbuf,
				 &reason) < 0)
			tap_bail("read: %s", strerror(errno));
		tap(!memcmp(rbuf, vbuf[i], iov[i].len),
		    "readv range %d: the same bytes as a read of it", i);
	}
	tap(commit("readv + reads") == 0, "read-only transaction commits");
}

/* Own writes over committed data; an abort leaves nothing behind. */
static void own_writes(uint64_t u1, uint64_t u2)
{
	struct ddsm_tx_iov w[2] = {
		{ .gaddr = u1 + 128, .len = 64 },
		{ .gaddr = u2 + 3100, .len = 8 },
	};
	uint8_t a[256], b[64], buf[64];
	struct ddsm_tx_iov iov[2] = {
		{ .gaddr = u1, .buf = (uintptr_t)a, .len = sizeof(a) },
		{ .gaddr = u2 + 3072, .buf = (uintptr_t)b, .len = sizeof(b) },
	};
	uint32_t reason = 0;
	char why[128];
	int i, good;

	begin();
	for (i = 0; i < 2; i++) {
		fill(buf, w[i].gaddr, w[i].len, 2);
		if (ddsm_tx_write(&d, w[i].gaddr, buf, w[i].len, &reason) < 0)
			tap_bail("write: %s", strerror(errno));
	}
	if (ddsm_tx_readv(&d, iov, 2, &reason) < 0)
		tap_bail("readv: %s", strerror(errno));
	good = holds(a, u1, 128, 1, why, sizeof(why)) &&
	       holds(a + 128, u1 + 128, 64, 2, why, sizeof(why)) &&
	       holds(a + 192, u1 + 192, 64, 1, why, sizeof(why));
	tap(good, "readv sees its own write laid over a remote unit's committed data (%s)",
	    why);
	good = holds(b, u2 + 3072, 28, 1, why, sizeof(why)) &&
	       holds(b + 28, u2 + 3100, 8, 2, why, sizeof(why)) &&
	       holds(b + 36, u2 + 3108, 28, 1, why, sizeof(why));
	tap(good, "readv sees an 8-byte write inside a line of another home (%s)",
	    why);
	tap(ddsm_tx_abort(&d) == 0, "abort");
	begin();
	if (ddsm_tx_readv(&d, iov, 2, &reason) < 0)
		tap_bail("readv: %s", strerror(errno));
	good = holds(a, u1, sizeof(a), 1, why, sizeof(why)) &&
	       holds(b, u2 + 3072, sizeof(b), 1, why, sizeof(why));
	tap(good, "after the abort, readv sees none of its writes (%s)", why);
	tap(commit("after abort") == 0, "and commits");

	write_gen(&(struct ddsm_tx_iov){ .gaddr = u1, .len = 1024 }, 1, 3);
	begin();
	iov[0].len = sizeof(a);
	if (ddsm_tx_readv(&d, iov, 2, &reason) < 0)
		tap_bail("readv: %s", strerror(errno));
	good = holds(a, u1, sizeof(a), 3, why, sizeof(why)) &&
	       holds(b, u2 + 3072, sizeof(b), 1, why, sizeof(why));
	tap(good, "a committed write is what the next transaction's readv sees (%s)",
	    why);
	tap(commit("after commit") == 0, "and commits");
}

/* Malformed calls: the errno, and the transaction goes on. */
static void refusals(uint64_t u1, volatile uint64_t *flags)
{
	static const struct {
		const char *what;
		uint64_t gaddr;
		uint32_t len, reserved, nr, flags, areserved;
		int bad_iov, bad_buf, want;
	} c[] = {
		{ "nr 0", REGION, 8, 0, 0, 0, 0, 0, 0, EINVAL },
		{ "nr 17", REGION, 8, 0, DDSM_TX_READV_MAX + 1, 0, 0, 0, 0, EINVAL },
		{ "flags 1", REGION, 8, 0, 1, 1, 0, 0, 0, EINVAL },
		{ "reserved 1", REGION, 8, 0, 1, 0, 1, 0, 0, EINVAL },
		{ "a read of 0 bytes", REGION, 0, 0, 1, 0, 0, 0, 0, EINVAL },
		{ "a read of 4097 bytes", REGION, 4097, 0, 1, 0, 0, 0, 0, EINVAL },
		{ "a read's reserved 1", REGION, 8, 1, 1, 0, 0, 0, 0, EINVAL },
		{ "a read outside every region", FLAGS, 8, 0, 1, 0, 0, 0, 0, EINVAL },
		{ "a read across the region's end", REGION_END - 8, 16, 0, 1, 0, 0, 0, 0, EINVAL },
		{ "a read before the region", REGION - 8, 16, 0, 1, 0, 0, 0, 0, EINVAL },
		{ "iov pointer NULL", REGION, 8, 0, 1, 0, 0, 1, 0, EFAULT },
		{ "buffer pointer NULL", REGION, 8, 0, 1, 0, 0, 0, 1, EFAULT },
	};
	struct ddsm_tx_iov iov[DDSM_TX_READV_MAX + 1];
	uint8_t buf[4096], good_buf[64];
	uint32_t reason = 0;
	char why[128];
	unsigned int i, k;
	int err;

	iov[0] = (struct ddsm_tx_iov){
		.gaddr = u1, .buf = (uintptr_t)good_buf, .len = 8,
	};
	err = readv_raw(iov, 1, 0, 0);
	tap(err == EINVAL, "readv without a transaction: %s (want EINVAL)",
	    err ? strerror(err) : "accepted");
	begin();
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		for (k = 0; k <= DDSM_TX_READV_MAX; k++)
			iov[k] = (struct ddsm_tx_iov){
				.gaddr = u1, .buf = (uintptr_t)buf, .len = 8,
			};
		iov[0].gaddr = c[i].gaddr;
		iov[0].len = c[i].len;
		iov[0].reserved = c[i].reserved;
		if (c[i].bad_buf)
			iov[0].buf = 0;
		err = readv_raw(c[i].bad_iov ? NULL : iov, c[i].nr, c[i].flags,
				c[i].areserved);
		tap(err == c[i].want, "readv with %s: %s (want %s)", c[i].what,
		    err ? strerror(err) : "accepted", strerror(c[i].want));
	}
	iov[0] = (struct ddsm_tx_iov){
		.gaddr = u1, .buf = (uintptr_t)good_buf, .len = sizeof(good_buf),
	};
	tap(ddsm_tx_readv(&d, iov, 1, &reason) == 0 &&
	    holds(good_buf, u1, sizeof(good_buf), 3, why, sizeof(why)),
	    "the transaction goes on after the refusals: readv works (%s)",
	    why);
	/* Into a plain unit the other nodes wrote: a nested ddsm fault. */
	iov[0].buf = (uintptr_t)(flags + 256);
	tap(ddsm_tx_readv(&d, iov, 1, &reason) == 0 &&
	    holds((const uint8_t *)(flags + 256), u1, sizeof(good_buf), 3,
		  why, sizeof(why)),
	    "readv into a live ddsm mapping (%s)", why);
	tap(commit("after refusals") == 0, "and commits");
}

/* The race's record: its first 64 bytes end a unit homed on node 1. */
static uint64_t race_record(void)
{
	uint64_t g;

	for (g = REGION; g + 8192 <= REGION_END; g += 4096)
		if (home_of(g) == 1 && home_of(g + 4096) == 2)
			return g + 4096 - 64;
	tap_bail("no unit homed on 1 followed by one homed on 2");
}

static int whole(const uint64_t *w)
{
	static int shown;
	int i;

	for (i = 1; i < REC_WORDS; i++)
		if (w[i] != w[0]) {
			if (shown++ < 3)
				printf("# torn: word 0 %llu, word %d %llu, word 39 %llu\n",
				       (unsigned long long)w[0], i,
				       (unsigned long long)w[i],
				       (unsigned long long)w[REC_WORDS - 1]);
			return 0;
		}
	return 1;
}

/*
 * A write across two units takes two entries of the write table: with
 * room for one only it is refused whole (E2BIG), and the commit that
 * follows applies none of it (issue 15: before, its first unit's part
 * was kept and committed).
 */
static void untorn_write(uint64_t here, uint64_t across)
{
	uint8_t before[64], after[64], mine[64];
	uint32_t reason = 0;
	uint64_t word;
	int i, ret, err;

	begin();
	ret = ddsm_tx_read(&d, across, sizeof(before), before, &reason);
	if (ret < 0 || commit("untorn: read before") < 0) {
		tap(0, "untorn write: read the record first: %s", strerror(errno));
		return;
	}
	begin();
	for (i = 0; i < DDSM_TX_MAX_WRITES - 1; i++) {
		word = 0x7e57000000000000ULL | (uint64_t)i;
		if (ddsm_tx_write(&d, here, &word, 8, &reason) < 0)
			break;
	}
	memset(mine, 0xab, sizeof(mine));
	ret = ddsm_tx_write(&d, across, mine, sizeof(mine), &reason);
	err = ret < 0 ? errno : 0;
	tap(i == DDSM_TX_MAX_WRITES - 1 && err == E2BIG,
	    "a write across two units with room for one entry: %s (want E2BIG)",
	    err ? strerror(err) : "accepted");
	ret = commit("untorn: the others");
	begin();
	if (ret < 0 || ddsm_tx_read(&d, across, sizeof(after), after,
				    &reason) < 0 ||
	    ddsm_tx_read(&d, here, 8, &word, &reason) < 0) {
		tap(0, "untorn write: read back: %s", strerror(errno));
		ddsm_tx_abort(&d);
		return;
	}
	commit("untorn: read back");
	tap(!memcmp(before, after, sizeof(before)),
	    "... and the commit applied none of it, in either unit");
	tap(word == (0x7e57000000000000ULL | (DDSM_TX_MAX_WRITES - 2)),
	    "... while the writes that fitted were committed (%#llx)",
	    (unsigned long long)word);
}

static void set_param(const char *name, unsigned int v)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/module/ddsm/parameters/%s", name);
	f = fopen(path, "w");
	if (!f || fprintf(f, "%u\n", v) < 0 || fclose(f))
		tap_bail("setting %s to %u: %s", name, v, strerror(errno));
}

static void wait_go(volatile uint64_t *flags, uint64_t go)
{
	uint64_t t0 = now_ns();

	while (__atomic_load_n(&flags[0], __ATOMIC_ACQUIRE) != go) {
		if (now_ns() - t0 > WAIT_NS)
			tap_bail("node 0 did not start the race in 120 s");
		usleep(1000);
	}
}

/* Nodes 1 and 2: read the record, commit it one generation on. */
static void race_writer(volatile uint64_t *flags, uint64_t go, int secs,
			unsigned int pause_us, const char *what)
{
	uint64_t rec = race_record(), w[REC_WORDS], commits = 0, torn = 0;
	uint64_t t_end, next;
	uint32_t reason;
	int i;

	wait_go(flags, go);
	t_end = now_ns() + secs * 1000000000ULL;
	while (now_ns() < t_end) {
		begin();
		if (ddsm_tx_read(&d, rec, sizeof(w), w, &reason) < 0)
			continue;	/* ECANCELED: over already */
		torn += !whole(w);
		next = w[0] + 1;
		for (i = 0; i < REC_WORDS; i++)
			w[i] = next;
		if (ddsm_tx_write(&d, rec, w, sizeof(w), &reason) < 0 ||
		    ddsm_tx_commit(&d, &reason) < 0) {
			if (errno != ECANCELED)
				ddsm_tx_abort(&d);
			continue;
		}
		commits++;
		if (pause_us)
			usleep(pause_us);
	}
	tap(commits > 0 && !torn,
	    "%s: %llu generations committed, %llu reads of the record torn",
	    what, (unsigned long long)commits, (unsigned long long)torn);
}

/*
 * Node 0: READV the record again and again, after a word of each of
 * RACE_QUEUE other units homed on node 1: their requests go ahead of the
 * record's first part there, so its answer tends to leave node 1 after
 * node 2 answered for the second part (the order a confirmation of the
 * first part alone cannot make whole).  READV sends at most
 * DDSM_TX_READV_MAX units ahead: the other units and both of the
 * record's must fit, or the second part would never have been sent ahead
 * even by the code that tore it.
 */
#define RACE_QUEUE	(DDSM_TX_READV_MAX - 2)
static void race_reader(volatile uint64_t *flags, uint64_t go, int secs,
			const char *what)
{
	uint64_t rec = race_record(), w[REC_WORDS] = { 0 }, g;
	uint64_t reads = 0, torn = 0, last = 0, aborted = 0, t_end;
	uint64_t why[8] = { 0 };
	uint64_t other[RACE_QUEUE];
	struct ddsm_tx_iov iov[RACE_QUEUE + 1];
	uint32_t reason;
	int nr = 0;

	for (g = REGION; g < REGION_END && nr < RACE_QUEUE; g += 4096)
		if (home_of(g) == 1 && g != (rec & ~4095ULL)) {
			iov[nr] = (struct ddsm_tx_iov){
				.gaddr = g + 2048, .len = 8,
				.buf = (uintptr_t)&other[nr],
			};
			nr++;
		}
	iov[nr++] = (struct ddsm_tx_iov){
		.gaddr = rec, .buf = (uintptr_t)w, .len = sizeof(w),
	};

	/* Generation 0, whole, before the writers start. */
	for (;;) {
		begin();
		memset(w, 0, sizeof(w));
		if (ddsm_tx_write(&d, rec, w, sizeof(w), &reason) == 0 &&
		    ddsm_tx_commit(&d, &reason) == 0)
			break;
		if (errno != ECANCELED)
			tap_bail("race: zeroing the record: %s",
				 strerror(errno));
	}
	__atomic_store_n(&flags[0], go, __ATOMIC_RELEASE);
	t_end = now_ns() + (secs + 1) * 1000000000ULL;
	while (now_ns() < t_end) {
		begin();
		if (ddsm_tx_readv(&d, iov, nr, &reason) < 0) {
			aborted++;	/* nothing returned */
			why[reason & 7]++;
			continue;
		}
		reads++;
		if (!whole(w))
			torn++;
		else if (w[0] > last)
			last = w[0];
		if (ddsm_tx_commit(&d, &reason) < 0 && errno != ECANCELED)
			ddsm_tx_abort(&d);
	}
	tap(!torn, "%s: %llu of %llu READVs of a record across two other homes, while they commit it, returned it torn (%llu aborted: %llu squashed, %llu read locked, %llu other)",
	    what, (unsigned long long)torn, (unsigned long long)reads,
	    (unsigned long long)aborted,
	    (unsigned long long)why[DDSM_TX_SQUASHED],
	    (unsigned long long)why[DDSM_TX_READ_LOCKED],
	    (unsigned long long)(aborted - why[DDSM_TX_SQUASHED] -
				 why[DDSM_TX_READ_LOCKED]));
	tap(reads > 0 && last > 0,
	    "%s: the reads saw the writers' generations go to %llu",
	    what, (unsigned long long)last);
}

/*
 * READV asks a home for all its units in one TX_READ_MANY: records in
 * three units homed on node 1 go in one batch, the one on node 2 in a
 * TX_READ of its own.  A whole unit more on node 1 is more than one
 * answer carries: it goes alone, the batch stays one.
 */
static void batched(uint64_t on1, uint64_t on2)
{
	uint64_t a = on1, b = next_on(a), c = next_on(b), e = next_on(c);
	const struct ddsm_tx_iov ranges[] = {
		{ .gaddr = a + 64, .len = 256 },
		{ .gaddr = b + 1000, .len = 320 },
		{ .gaddr = on2 + 512, .len = 64 },
		{ .gaddr = c + 3776, .len = 320 },	/* to the unit's end */
		{ .gaddr = e, .len = 4096 },
	};
	/* One Intend page cannot hold a whole unit: two halves. */
	const struct ddsm_tx_iov halves[] = {
		{ .gaddr = e, .len = 2048 },
		{ .gaddr = e + 2048, .len = 2048 },
	};
	uint64_t before;

	write_gen(ranges, 4, 1);
	write_gen(halves, 1, 1);
	write_gen(halves + 1, 1, 1);
	before = read_batches();
	same_as_read(ranges, 4);
	tap(read_batches() - before == 1,
	    "readv of 3 units homed on node 1 and 1 on node 2 sent %llu batches (want 1)",
	    (unsigned long long)(read_batches() - before));
	before = read_batches();
	same_as_read(ranges, 5);
	tap(read_batches() - before == 1,
	    "... and a whole unit more on node 1: %llu batches (want 1; the whole unit alone)",
	    (unsigned long long)(read_batches() - before));
}

/*
 * READV asks for both parts of a record across two homes at once, then,
 * once every answer is in, asks again the homes that may have answered
 * before a commit reached the other: both when neither is this node; only
 * this node (no message) when a part is homed here, since READV read it
 * before it sent any request.
 */
static void confirmed(uint64_t on1)
{
	static const char *const what[3] = {
		"first part here", "neither part here", "second part here",
	};
	static const int want[3] = { 0, 2, 0 };
	uint64_t g, rec[3] = { 0 }, before;
	int c;

	for (g = REGION; g + 8192 <= REGION_END; g += 4096) {
		int a = home_of(g), b = home_of(g + 4096);

		if (a == b)
			continue;
		c = !a ? 0 : b ? 1 : 2;
		if (!rec[c])
			rec[c] = g + 4096 - 64;
	}
	for (c = 0; c < 3; c++) {
		const struct ddsm_tx_iov r[2] = {
			{ .gaddr = on1 + 2048, .len = 64 },
			{ .gaddr = rec[c], .len = 128 },
		};

		if (!rec[c])
			tap_bail("no record across two homes with the %s",
				 what[c]);
		write_gen(r, 2, 1);
		before = readv_confirms();
		same_as_read(r, 2);
		tap(readv_confirms() - before == (uint64_t)want[c],
		    "readv of a record across homes %d and %d (%s): %llu confirmations sent (want %d)",
		    home_of(rec[c]), home_of(rec[c] + 64), what[c],
		    (unsigned long long)(readv_confirms() - before), want[c]);
	}
}

/*
 * A commit's Validations to other homes ride on this node's next READV
 * requests to them (tx_validate_defer_us, raised here so that the READV
 * surely comes first): the READV reads the commit, whose lines the homes
 * would refuse while it stayed locked.
 */
static void carried(uint64_t on1, uint64_t on2)
{
	static uint8_t buf[2][256];
	struct ddsm_tx_iov iov[2] = {
		{ .gaddr = on1 + 1536, .len = 256 },
		{ .gaddr = on2 + 1536, .len = 256 },
	};
	uint32_t reason = 0;
	uint64_t before;
	char why[128];
	int i;

	set_param("tx_validate_defer_us", 100000);
	write_gen(iov, 2, 3);
	before = validations_carried();
	for (i = 0; i < 2; i++)
		iov[i].buf = (uintptr_t)buf[i];
	begin();
	if (ddsm_tx_readv(&d, iov, 2, &reason) < 0)
		tap_bail("readv after a commit: %s (%s)", strerror(errno),
			 ddsm_tx_reason_name(reason));
	tap(validations_carried() - before == 2,
	    "a commit at nodes 1 and 2: %llu of its Validations rode on the next READV's requests (want 2)",
	    (unsigned long long)(validations_carried() - before));
	for (i = 0; i < 2; i++)
		tap(holds(buf[i], iov[i].gaddr, iov[i].len, 3, why,
			  sizeof(why)),
		    "... and that READV read the commit at home %d (%s)",
		    home_of(iov[i].gaddr), why);
	tap(commit("readv after a commit") == 0,
	    "read-only transaction commits");
	set_param("tx_validate_defer_us", 1000);
}

int main(int argc, char **argv)
{
	volatile uint64_t *flags;
	uint64_t u0, u1, u2, v;
	int me;

	if (argc != 3)
		tap_bail("usage: ddsm-test-txapi NODE NODES");
	me = (int)parse_ul(argv[1], "NODE");
	nr_nodes = (int)parse_ul(argv[2], "NODES");
	tap_node = me;
	if (nr_nodes < 3)
		tap_bail("needs 3 nodes or more, not %d", nr_nodes);
	if (ddsm_open(&d, NULL) < 0)
		tap_bail("open: %s", strerror(errno));
	if (ddsm_tx_region(&d, REGION, REGION_UNITS * 4096ULL) < 0)
		tap_bail("tx region: %s", strerror(errno));
	flags = map_flags();
	if (me) {
		__atomic_store_n(&flags[me], MAGIC, __ATOMIC_RELEASE);
		if (me <= 2) {
			race_writer(flags, GO, RACE_SECS, 0, "race");
			set_param("tx_squash_off", 1);
			race_writer(flags, GO_FORCED, FORCED_SECS,
				    FORCED_LAG_MS * 1000, "forced race");
			set_param("tx_squash_off", 0);
		}
		return tap_failed ? 1 : 0;
	}
	wait_flags(flags);
	u0 = unit_on(0);
	u1 = unit_on(1);
	u2 = unit_on(2);
	/* Two neighbours homed on different nodes, the second not here. */
	for (v = REGION; v + 8192 <= REGION_END; v += 4096)
		if (home_of(v) != home_of(v + 4096) && home_of(v + 4096))
			break;
	if (v + 8192 > REGION_END)
		tap_bail("no two neighbouring units on different homes");

	{
		const struct ddsm_tx_iov gen1[] = {
			{ .gaddr = u0, .len = 1024 },
			{ .gaddr = u1, .len = 1024 },
			{ .gaddr = u2 + 3072, .len = 1024 },
			{ .gaddr = v + 4064, .len = 64 },
		};
		const struct ddsm_tx_iov ranges[] = {
			{ .gaddr = u1, .len = 64 },
			{ .gaddr = u1 + 100, .len = 200 },	/* same unit */
			{ .gaddr = u2 + 3072, .len = 1024 },	/* its end */
			{ .gaddr = u0 + 10, .len = 30 },	/* homed here */
			{ .gaddr = v + 4064, .len = 64 },	/* two units */
			{ .gaddr = u2 + 4095, .len = 1 },	/* last byte */
		};

		write_gen(gen1, 4, 1);
		same_as_read(ranges, 6);
		same_as_read(ranges + 1, 1);
	}
	batched(u1, u2);
	confirmed(u1);
	carried(u1, u2);
	own_writes(u1, u2);
	untorn_write(u0, v + 4064);
	refusals(u1, flags);
	race_reader(flags, GO, RACE_SECS, "race");
	set_param("tx_readv_lag_ms", FORCED_LAG_MS);
	race_reader(flags, GO_FORCED, FORCED_SECS, "forced race");
	set_param("tx_readv_lag_ms", 0);
	printf("# node%d: %d checks, %d failed\n", me, tap_checks, tap_failed);
	return tap_failed ? 1 : 0;
}
