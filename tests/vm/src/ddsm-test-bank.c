// SPDX-License-Identifier: GPL-2.0
/*
 * A bank on HADES transactions while the cluster fails under it (issue
 * 15): every node's workers move 1-50 units between accounts spread over
 * the homes in HOMES, and now and then audit every account in one
 * read-only transaction, retried until it commits.  The host meanwhile
 * takes links down and up, stops a VM past peer_timeout_ms and resumes it,
 * or kills one (the component's host side).
 *
 *   ddsm-test-bank NODE NODES SECS HOMES [WORKERS]
 *
 * HOMES: a bit mask of the nodes whose units hold accounts (a node that
 * the host kills must not hold any: its units die with it).  WORKERS
 * processes per node move money (default 2), and one more audits all
 * through the run, each with its own file (one transaction per open
 * file); the movers audit too, every AUDIT_EVERY transfers.  Once every
 * node of HOMES declared the region, node 0 loads 256 accounts of 1000,
 * one per 64-byte line, in the units of HOMES from 64 MiB on, and raises
 * a flag in a plain coherent unit homed on node 0 that the others wait
 * for (both flags live in that unit).
 *
 * Checks (TAP, node-tagged): every audit that committed saw the exact
 * total; every node committed at least MIN_AUDITS audits, each within
 * AUDIT_CONFLICTS conflict aborts (docs/transactions.md: 8 optimistic
 * attempts, then the pessimistic fallback, which pins what it reads);
 * aborts because a home was away (PEER_DOWN, TIMEOUT) are retried too
 * but counted apart, since they last as long as the outage.  At the end
 * each surviving node audits once more, after every node that runs to the
 * end said it is done: the total is exact.  Control lines to the host on
 * /dev/ttyS1: "bank running", "bank done".
 */
#include <fcntl.h>
#include <stdbool.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include "test_common.h"

#define REGION		(64ULL << 20)	/* the accounts, transactional */
#define FLAGS		(32ULL << 20)	/* near here, a plain unit homed on 0 */
#define NR_ACCOUNTS	256
#define LINE		64
#define START		1000
#define TOTAL		((int64_t)NR_ACCOUNTS * START)
#define AUDIT_EVERY	50		/* transfers per worker between audits */
#define MIN_AUDITS	10
#define AUDIT_CONFLICTS	16		/* docs/transactions.md */
#define MAGIC		0x62616e6b21212121ULL
#define MAX_WORKERS	8

struct flags {
	uint64_t go;			/* MAGIC once the accounts are loaded */
	uint64_t declared[DDSM_MAX_NODES]; /* MAGIC once its TX_REGION is */
	uint64_t done[DDSM_MAX_NODES];	/* MAGIC once that node finished */
};

/* Each worker's results, in memory the node's processes share. */
struct result {
	uint64_t transfers, aborts, in_doubt, other_errors;
	uint64_t audits, audit_bad, audit_conflicts_max, audit_away;
	int64_t bad_total;
};

static uint64_t accts[NR_ACCOUNTS];	/* their global addresses */
static uint32_t node, nodes;

static void marker(const char *s)
{
	FILE *f = fopen("/dev/ttyS1", "w");

	if (f) {
		fprintf(f, "%s\n", s);
		fclose(f);
	}
}

static int dev_open(void)
{
	int fd = open("/dev/ddsm", O_RDWR);

	if (fd < 0)
		tap_bail("open /dev/ddsm: %s", strerror(errno));
	return fd;
}

/*
 * The accounts: 64 lines per unit, in the units from REGION whose home
 * is in @homes (interleave: unit u at node u % nodes).
 */
static void place(uint32_t homes)
{
	uint64_t unit = REGION / DDSM_UNIT_SIZE;
	int a = 0;

	while (a < NR_ACCOUNTS) {
		if (homes & (1u << (unit % nodes))) {
			int l;

			for (l = 0; l < (int)(DDSM_UNIT_SIZE / LINE) &&
			     a < NR_ACCOUNTS; l++)
				accts[a++] = unit * DDSM_UNIT_SIZE + l * LINE;
		}
		unit++;
	}
}

/* 0, or -1 with errno (ECANCELED: *reason says why). */
static int tx(int fd, unsigned long cmd, uint64_t gaddr, void *buf,
	      uint32_t len, uint32_t *reason)
{
	struct ddsm_tx_arg a = {
		.gaddr = gaddr, .buf = (uintptr_t)buf, .len = len,
	};
	int ret = ioctl(fd, cmd, &a);

	if (reason)
		*reason = a.reason;
	return ret;
}

static int64_t rd(int fd, int acct, uint32_t *reason, int *err)
{
	int64_t v = 0;

	if (tx(fd, DDSM_IOC_TX_READ, accts[acct], &v, 8, reason))
		*err = errno;
	return v;
}

static bool conflict(uint32_t reason)
{
	return reason == DDSM_TX_SQUASHED || reason == DDSM_TX_NACKED ||
	       reason == DDSM_TX_READ_LOCKED;
}

/* Abort what an error left running (ECANCELED already ended it). */
static void end_failed(int fd, int err)
{
	if (err != ECANCELED)
		tx(fd, DDSM_IOC_TX_ABORT, 0, NULL, 0, NULL);
}

/* One transfer; updates @r. */
static void transfer(int fd, struct result *r)
{
	int a = rand() % NR_ACCOUNTS, b = rand() % NR_ACCOUNTS, err = 0;
	int64_t amount = 1 + rand() % 50, va, vb;
	uint32_t reason = 0;

	if (a == b)
		b = (b + 1) % NR_ACCOUNTS;
	if (tx(fd, DDSM_IOC_TX_BEGIN, 0, NULL, 0, NULL)) {
		r->other_errors++;
		usleep(1000);
		return;
	}
	va = rd(fd, a, &reason, &err);
	if (!err)
		vb = rd(fd, b, &reason, &err);
	if (!err) {
		va -= amount;
		vb += amount;
		if (tx(fd, DDSM_IOC_TX_WRITE, accts[a], &va, 8, &reason) ||
		    tx(fd, DDSM_IOC_TX_WRITE, accts[b], &vb, 8, &reason))
			err = errno;
	}
	if (!err && tx(fd, DDSM_IOC_TX_COMMIT, 0, NULL, 0, &reason))
		err = errno;
	if (!err) {
		r->transfers++;
		return;
	}
	end_failed(fd, err);
	if (err == ECANCELED)
		r->aborts++;
	else if (err == ETIMEDOUT)
		r->in_doubt++;		/* its homes decide it */
	else
		r->other_errors++;
}

/*
 * Every account in one transaction, 16 at a time by READV; 0 and the
 * total, or the errno (ECANCELED with *reason).
 */
static int audit_once(int fd, int64_t *total, uint32_t *reason)
{
	struct ddsm_tx_iov iov[DDSM_TX_READV_MAX];
	int64_t v[NR_ACCOUNTS];
	int a, k, err = 0;

	*reason = 0;
	if (tx(fd, DDSM_IOC_TX_BEGIN, 0, NULL, 0, NULL))
		return errno;
	for (a = 0; a < NR_ACCOUNTS && !err; a += DDSM_TX_READV_MAX) {
		struct ddsm_tx_readv_arg rv = {
			.iov = (uintptr_t)iov, .nr = DDSM_TX_READV_MAX,
		};

		for (k = 0; k < DDSM_TX_READV_MAX; k++)
			iov[k] = (struct ddsm_tx_iov){
				.gaddr = accts[a + k],
				.buf = (uintptr_t)&v[a + k], .len = 8,
			};
		if (ioctl(fd, DDSM_IOC_TX_READV, &rv)) {
			err = errno;
			*reason = rv.reason;
		}
	}
	if (!err && tx(fd, DDSM_IOC_TX_COMMIT, 0, NULL, 0, reason))
		err = errno;
	if (err) {
		end_failed(fd, err);
		return err;
	}
	for (*total = 0, a = 0; a < NR_ACCOUNTS; a++)
		*total += v[a];
	return 0;
}

/*
 * Audit until one commits, or @until passes; 1 if it committed.  Counts
 * the conflict aborts it took and those for a home away.
 */
static int audit(int fd, struct result *r, uint64_t until)
{
	uint64_t conflicts = 0;
	uint32_t reason;
	int64_t total;
	int err;

	for (;;) {
		err = audit_once(fd, &total, &reason);
		if (!err)
			break;
		if (err == ECANCELED && conflict(reason))
			conflicts++;
		else
			r->audit_away++;
		if (now_ns() > until)
			return 0;
		/* A home away stays away a while: do not spin on it. */
		usleep(err == ECANCELED && conflict(reason) ? 100 : 20000);
	}
	r->audits++;
	if (conflicts > r->audit_conflicts_max)
		r->audit_conflicts_max = conflicts;
	if (total != TOTAL) {
		r->audit_bad++;
		r->bad_total = total;
	}
	return 1;
}

static void worker(int id, unsigned int secs, struct result *r)
{
	uint64_t end = now_ns() + secs * 1000000000ull;
	int fd = dev_open(), n = 0;

	srand(node * 7919 + id * 104729 + (unsigned int)getpid());
	while (now_ns() < end) {
		transfer(fd, r);
		if (++n % AUDIT_EVERY == 0)
			audit(fd, r, end + 30000000000ull);
	}
	close(fd);
}

/* The auditor: one audit after another, a short breath between. */
static void auditor(unsigned int secs, struct result *r)
{
	uint64_t end = now_ns() + secs * 1000000000ull;
	int fd = dev_open();

	while (now_ns() < end && audit(fd, r, end + 30000000000ull))
		usleep(200000);
	close(fd);
}

static void load(int fd)
{
	int64_t v = START;
	uint32_t reason;
	int a, tries = 0;

	for (a = 0; a < NR_ACCOUNTS; a += 16) {
		int k, err = 0;

		if (tx(fd, DDSM_IOC_TX_BEGIN, 0, NULL, 0, NULL))
			tap_bail("load: TX_BEGIN: %s", strerror(errno));
		for (k = 0; k < 16 && !err; k++)
			if (tx(fd, DDSM_IOC_TX_WRITE, accts[a + k], &v, 8,
			       &reason))
				err = errno;
		if (!err && tx(fd, DDSM_IOC_TX_COMMIT, 0, NULL, 0, &reason))
			err = errno;
		if (err) {
			end_failed(fd, err);
			if (++tries > 100)
				tap_bail("load: %s (reason %u)", strerror(err),
					 reason);
			a -= 16;
			usleep(10000);
		}
	}
}

/* A plain unit homed on node 0 (interleave), which the host never kills. */
static volatile struct flags *map_flags(int fd)
{
	uint64_t unit = FLAGS / DDSM_UNIT_SIZE;
	void *p;

	unit -= unit % nodes;
	p = mmap(NULL, DDSM_UNIT_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
		 fd, (off_t)(unit * DDSM_UNIT_SIZE));

	if (p == MAP_FAILED)
		tap_bail("mmap flags: %s", strerror(errno));
	return p;
}

/* Wait for @cond with a bound; false if it did not come. */
#define WAIT_FOR(cond, secs) ({						\
	uint64_t __end = now_ns() + (uint64_t)(secs) * 1000000000ull;	\
	while (!(cond) && now_ns() < __end)				\
		usleep(2000);						\
	(bool)(cond);							\
})

/*
 * A home NACKs an Intend on a range it has not declared yet, so the
 * loader waits for every home's declaration (docs/transactions.md).
 */
static bool homes_declared(volatile struct flags *fl, uint32_t homes)
{
	uint32_t p;

	for (p = 0; p < nodes; p++)
		if ((homes & (1u << p)) && fl->declared[p] != MAGIC)
			return false;
	return true;
}

int main(int argc, char **argv)
{
	struct ddsm_tx_region_arg reg = {
		.gaddr = REGION, .len = 64 * DDSM_UNIT_SIZE,
	};
	unsigned int secs, workers = 2, w;
	volatile struct flags *fl;
	struct result *res, sum = { 0 };
	uint64_t max_conflicts = 0;
	uint32_t homes, p, reason;
	int fd, ok, err;
	int64_t total;

	if (argc < 5 || argc > 6) {
		fprintf(stderr, "usage: %s NODE NODES SECS HOMES [WORKERS]\n",
			argv[0]);
		return 2;
	}
	node = (uint32_t)parse_ul(argv[1], "NODE");
	nodes = (uint32_t)parse_ul(argv[2], "NODES");
	secs = (unsigned int)parse_ul(argv[3], "SECS");
	homes = (uint32_t)parse_ul(argv[4], "HOMES");
	if (argc == 6)
		workers = (unsigned int)parse_ul(argv[5], "WORKERS");
	if (!nodes || node >= nodes || !homes || !workers ||
	    workers > MAX_WORKERS)
		return 2;
	tap_node = (int)node;
	place(homes);
	fd = dev_open();
	if (ioctl(fd, DDSM_IOC_TX_REGION, &reg))
		tap_bail("TX_REGION: %s", strerror(errno));
	fl = map_flags(fd);
	fl->declared[node] = MAGIC;
	if (node == 0) {
		if (!WAIT_FOR(homes_declared(fl, homes), 120))
			tap_bail("every home declared the region within 120 s");
		load(fd);
		fl->go = MAGIC;
	}
	tap(WAIT_FOR(fl->go == MAGIC, 120), "the accounts are loaded");
	res = mmap(NULL, sizeof(*res) * (MAX_WORKERS + 1),
		   PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (res == MAP_FAILED)
		tap_bail("mmap results: %s", strerror(errno));
	memset(res, 0, sizeof(*res) * (MAX_WORKERS + 1));
	marker("bank running");
	for (w = 0; w <= workers; w++)
		if (fork() == 0) {
			if (w == workers)
				auditor(secs, &res[w]);
			else
				worker((int)w, secs, &res[w]);
			_exit(0);
		}
	for (w = 0; w <= workers; w++)
		wait(NULL);
	for (w = 0; w <= workers; w++) {
		sum.transfers += res[w].transfers;
		sum.aborts += res[w].aborts;
		sum.in_doubt += res[w].in_doubt;
		sum.other_errors += res[w].other_errors;
		sum.audits += res[w].audits;
		sum.audit_bad += res[w].audit_bad;
		sum.audit_away += res[w].audit_away;
		if (res[w].audit_bad)
			sum.bad_total = res[w].bad_total;
		if (res[w].audit_conflicts_max > max_conflicts)
			max_conflicts = res[w].audit_conflicts_max;
	}
	printf("# node%u: %llu transfers committed, %llu aborted, %llu in doubt, %llu other errors; %llu audits, at most %llu conflict aborts before one committed, %llu aborts with a home away\n",
	       node, (unsigned long long)sum.transfers,
	       (unsigned long long)sum.aborts,
	       (unsigned long long)sum.in_doubt,
	       (unsigned long long)sum.other_errors,
	       (unsigned long long)sum.audits,
	       (unsigned long long)max_conflicts,
	       (unsigned long long)sum.audit_away);
	tap(sum.transfers > 0, "transfers committed (%llu)",
	    (unsigned long long)sum.transfers);
	if (sum.audit_bad)
		tap(0, "every committed audit saw the total %lld: one saw %lld",
		    (long long)TOTAL, (long long)sum.bad_total);
	else
		tap(1, "every committed audit saw the total %lld (%llu audits)",
		    (long long)TOTAL, (unsigned long long)sum.audits);
	tap(sum.audits >= MIN_AUDITS, "%llu audits committed (at least %d)",
	    (unsigned long long)sum.audits, MIN_AUDITS);
	tap(max_conflicts <= AUDIT_CONFLICTS,
	    "each audit committed within %d conflict aborts (at most %llu)",
	    AUDIT_CONFLICTS, (unsigned long long)max_conflicts);
	fl->done[node] = MAGIC;
	marker("bank done");
	/* Every node that runs to the end; the host kills none of HOMES. */
	ok = 1;
	for (p = 0; p < nodes; p++)
		if (homes & (1u << p))
			ok &= WAIT_FOR(fl->done[p] == MAGIC, 300);
	tap(ok, "every node holding accounts is done");
	for (w = 0; w < 600; w++) {
		err = audit_once(fd, &total, &reason);
		if (!err)
			break;
		usleep(100000);
	}
	tap(!err && total == TOTAL, "final audit: total %lld (expected %lld)%s%s",
	    (long long)(err ? 0 : total), (long long)TOTAL,
	    err ? ": " : "", err ? strerror(err) : "");
	close(fd);
	return tap_failed ? 1 : 0;
}
