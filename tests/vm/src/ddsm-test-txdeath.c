// SPDX-License-Identifier: GPL-2.0
/*
 * HADES transactions when a node dies mid-run (tests/vm/txdeath/host.sh):
 * every node moves money between accounts homed on the survivors (nodes
 * other than the last, the victim), two at a time, in transactions; the
 * host kills the victim's VM meanwhile.  A transaction the victim
 * coordinated may be locked at two survivor homes when it dies: the
 * survivors must roll it back whole (or, had a Validation gone out,
 * forward whole), so the total over the survivors' accounts stays what
 * it was.  Each account is alone in its unit, so its home is its unit's.
 *
 *   ddsm-test-txdeath NODE NODES SECS [WORKERS]
 *
 * WORKERS processes per node (default 3, each on its own handle: one
 * transaction per open file), so that the victim is likely to hold the
 * partial lock somewhere when it dies; the survivors print how many
 * locked commits they held in doubt, rolled back and rolled forward.
 *
 * Node 0 loads the accounts and raises a flag in a plain (mapped,
 * coherent) unit that the others wait for.  Each node then runs
 * transfers for SECS seconds; survivors that see aborts for the victim
 * (peer_down, timeout) go on.  At the end node 0 (a survivor) re-reads
 * every account in one transaction, after waiting for node 1 to finish,
 * and checks the total.  Control lines to the host on /dev/ttyS1:
 * "txd running", "txd done".
 */
#include <sys/wait.h>
#include "test_common.h"

#define REGION		(64ULL << 20)	/* the accounts, transactional */
#define REGION_UNITS	96
#define FLAGS		(32ULL << 20)	/* from here, a plain unit homed on 0 */
#define SPARE		(48ULL << 20)	/* a plain unit nobody else touches */
#define NR_ACCOUNTS	24
#define START		1000
#define MAGIC		0x7478646561746821ULL

static struct ddsm d;
static uint64_t accts[NR_ACCOUNTS];
static int nr;

static void marker(const char *s)
{
	FILE *f = fopen("/dev/ttyS1", "w");

	if (f) {
		fprintf(f, "%s\n", s);
		fclose(f);
	}
}

/* One transfer of 1 from account @a to @b; 0, or the abort's reason. */
static int transfer(int a, int b, uint32_t *reason)
{
	int64_t va, vb;

	*reason = 0;
	if (ddsm_tx_begin(&d) < 0)
		return -1;
	if (ddsm_tx_read(&d, accts[a], 8, &va, reason) < 0 ||
	    ddsm_tx_read(&d, accts[b], 8, &vb, reason) < 0)
		goto fail;
	va--;
	vb++;
	if (ddsm_tx_write(&d, accts[a], &va, 8, reason) < 0 ||
	    ddsm_tx_write(&d, accts[b], &vb, 8, reason) < 0)
		goto fail;
	if (ddsm_tx_commit(&d, reason) == 0)
		return 0;
fail:
	if (errno != ECANCELED)
		ddsm_tx_abort(&d);
	return -1;
}

/* What the API refuses (docs/api.md), checked once on node 0. */
static void refusals(void)
{
	char buf[8192] = { 0 };
	uint32_t reason = 0;
	void *p;

	p = ddsm_map(&d, REGION, 4096, PROT_READ | PROT_WRITE);
	tap(!p && errno == EACCES, "mmap of a transactional region: %s",
	    p ? "mapped" : strerror(errno));
	if (p)
		ddsm_unmap(&d, p, 4096);
	tap(ddsm_tx_read(&d, REGION, 8, buf, &reason) < 0 && errno == EINVAL,
	    "tx read without a transaction: EINVAL");
	if (ddsm_tx_begin(&d) < 0)
		tap_bail("begin: %s", strerror(errno));
	tap(ddsm_tx_begin(&d) < 0 && errno == EBUSY, "second begin: EBUSY");
	tap(ddsm_tx_read(&d, FLAGS, 8, buf, &reason) < 0 && errno == EINVAL,
	    "tx read outside every region: EINVAL");
	tap(ddsm_tx_write(&d, REGION, buf, 5000, &reason) < 0 && errno == EINVAL,
	    "tx write of 5000 bytes: EINVAL");
	tap(ddsm_tx_abort(&d) == 0, "abort");
	tap(ddsm_tx_abort(&d) < 0 && errno == EINVAL, "abort again: EINVAL");
	/*
	 * A window mapped but never touched cannot become transactional
	 * (issue 15: only cached lines were refused before, so a later
	 * fault would have brought transactional data into coherence).
	 */
	errno = 0;
	p = ddsm_map(&d, SPARE, 4096, PROT_READ | PROT_WRITE);
	if (!p) {
		tap(0, "mmap of a spare unit: %s", strerror(errno));
		return;
	}
	errno = 0;
	tap(ddsm_tx_region(&d, SPARE, 4096) < 0 && errno == EBUSY,
	    "a mapped, never faulted unit made transactional: %s (want EBUSY)",
	    errno ? strerror(errno) : "accepted");
	ddsm_unmap(&d, p, 4096);
}

/* The total over every account, in one transaction (retried). */
static int total(int64_t *sum)
{
	uint32_t reason;
	int tries, i;
	int64_t v;

	for (tries = 0; tries < 200; tries++) {
		*sum = 0;
		if (ddsm_tx_begin(&d) < 0)
			return -1;
		for (i = 0; i < nr; i++) {
			if (ddsm_tx_read(&d, accts[i], 8, &v, &reason) < 0)
				break;
			*sum += v;
		}
		if (i == nr && ddsm_tx_commit(&d, &reason) == 0)
			return 0;
		if (errno != ECANCELED)
			ddsm_tx_abort(&d);
		usleep(10000);
	}
	return -1;
}

int main(int argc, char **argv)
{
	uint64_t commits = 0, aborts[DDSM_TX_REASON_NR] = { 0 }, errors = 0;
	volatile uint64_t *flags;
	uint64_t fl;
	struct ddsm_tx_status st;
	unsigned int seed;
	int me, n, i, victim, workers, w = 0, status;
	double secs, t_end;
	int64_t sum;

	if (argc != 4 && argc != 5)
		tap_bail("usage: ddsm-test-txdeath NODE NODES SECS [WORKERS]");
	workers = argc == 5 ? (int)parse_ul(argv[4], "WORKERS") : 3;
	me = (int)parse_ul(argv[1], "NODE");
	n = (int)parse_ul(argv[2], "NODES");
	secs = (double)parse_ul(argv[3], "SECS");
	tap_node = me;
	victim = n - 1;
	seed = 1234u + (unsigned int)me;
	if (ddsm_open(&d, NULL) < 0)
		tap_bail("open: %s", strerror(errno));
	if (ddsm_tx_region(&d, REGION, REGION_UNITS * 4096ULL) < 0)
		tap_bail("tx region: %s", strerror(errno));
	for (i = 0; i < REGION_UNITS && nr < NR_ACCOUNTS; i++) {
		struct ddsm_home_query q;

		if (ddsm_home(&d, REGION + i * 4096ULL, &q) < 0)
			tap_bail("home: %s", strerror(errno));
		if ((int)q.home != victim)
			accts[nr++] = REGION + i * 4096ULL;
	}
	/* The flags' unit must outlive the victim: homed on node 0. */
	for (fl = FLAGS;; fl += 4096) {
		struct ddsm_home_query q;

		if (ddsm_home(&d, fl, &q) < 0)
			tap_bail("home: %s", strerror(errno));
		if (!q.home)
			break;
	}
	flags = (volatile uint64_t *)map_window(&d, fl, 4096);
	if (!me)
		refusals();
	if (!me) {
		int64_t v = START;
		uint32_t reason = 0;
		int tries;

		/*
		 * A home refuses (NACK) a transaction on a range it has not
		 * declared yet: the others may still be starting.
		 */
		for (i = 0; i < nr; i++) {
			for (tries = 0; tries < 3000; tries++) {
				if (ddsm_tx_begin(&d) < 0)
					tap_bail("begin: %s", strerror(errno));
				if (ddsm_tx_write(&d, accts[i], &v, 8, &reason) == 0 &&
				    ddsm_tx_commit(&d, &reason) == 0)
					break;
				if (errno != ECANCELED)
					tap_bail("loading account %d: %s", i,
						 strerror(errno));
				usleep(10000);
			}
			if (tries == 3000)
				tap_bail("loading account %d: aborted 3000 times (%s)",
					 i, ddsm_tx_reason_name(reason));
		}
		__atomic_store_n(&flags[0], MAGIC, __ATOMIC_RELEASE);
	} else {
		uint64_t t0 = now_ns();

		while (__atomic_load_n(&flags[0], __ATOMIC_ACQUIRE) != MAGIC) {
			if (now_ns() - t0 > 120ULL * 1000000000)
				tap_bail("node 0 did not load the accounts in 120 s");
			usleep(10000);
		}
	}
	tap(1, "%d accounts on the survivors' homes, %d each", nr, START);
	/* Workers 1.. are children on handles of their own. */
	fflush(stdout);
	for (i = 1; i < workers; i++) {
		pid_t pid = fork();

		if (pid < 0)
			tap_bail("fork: %s", strerror(errno));
		if (!pid) {
			w = i;
			seed += 1000u * (unsigned int)i;
			if (ddsm_open(&d, NULL) < 0)
				_exit(2);
			break;
		}
	}
	if (!w)
		marker("txd running");
	t_end = now_ns() / 1e9 + secs;
	while (now_ns() / 1e9 < t_end) {
		int a = rand_r(&seed) % nr, b = rand_r(&seed) % nr;
		uint32_t reason;

		if (a == b)
			continue;
		if (transfer(a, b, &reason) == 0)
			commits++;
		else if (errno == ECANCELED && reason < DDSM_TX_REASON_NR)
			aborts[reason]++;
		else
			errors++;
	}
	printf("# node%d worker %d: %llu commits, aborts: squashed %llu nacked %llu read_locked %llu peer_down %llu timeout %llu full %llu; %llu errors\n",
	       me, w, (unsigned long long)commits,
	       (unsigned long long)aborts[DDSM_TX_SQUASHED],
	       (unsigned long long)aborts[DDSM_TX_NACKED],
	       (unsigned long long)aborts[DDSM_TX_READ_LOCKED],
	       (unsigned long long)aborts[DDSM_TX_PEER_DOWN],
	       (unsigned long long)aborts[DDSM_TX_TIMEOUT],
	       (unsigned long long)aborts[DDSM_TX_FULL],
	       (unsigned long long)errors);
	fflush(stdout);
	if (w)
		_exit(commits > 0 && !errors ? 0 : 1);
	tap(commits > 0 && !errors, "worker 0: transfers committed: %llu, %llu errors",
	    (unsigned long long)commits, (unsigned long long)errors);
	for (i = 1; i < workers; i++) {
		if (wait(&status) < 0)
			break;
		tap(WIFEXITED(status) && !WEXITSTATUS(status),
		    "a worker committed transfers and saw no errors (status %#x)",
		    status);
	}
	/* Survivors only from here (the victim is killed long before). */
	__atomic_fetch_add(&flags[1], 1, __ATOMIC_SEQ_CST);
	if (!me) {
		uint64_t t0 = now_ns();

		/* Every survivor finished (the victim never counts). */
		while (__atomic_load_n(&flags[1], __ATOMIC_SEQ_CST) <
		       (uint64_t)(n - 1) && now_ns() - t0 < 60ULL * 1000000000)
			usleep(10000);
		if (total(&sum) < 0)
			tap(0, "read every account: %s", strerror(errno));
		else
			tap(sum == (int64_t)nr * START,
			    "no partial commit: total %lld over %d accounts (want %lld)",
			    (long long)sum, nr, (long long)nr * START);
	}
	if (ddsm_tx_status(&d, &st) == 0)
		printf("# node%d: tx status: begins %llu commits %llu home_intends %llu home_nacks %llu home_squashes %llu home_validations %llu home_aborts %llu home_in_doubt %llu home_rollbacks %llu home_rollforwards %llu\n",
		       me, (unsigned long long)st.begins,
		       (unsigned long long)st.commits,
		       (unsigned long long)st.home_intends,
		       (unsigned long long)st.home_nacks,
		       (unsigned long long)st.home_squashes,
		       (unsigned long long)st.home_validations,
		       (unsigned long long)st.home_aborts,
		       (unsigned long long)st.home_in_doubt,
		       (unsigned long long)st.home_rollbacks,
		       (unsigned long long)st.home_rollforwards);
	marker("txd done");
	return tap_failed ? 1 : 0;
}
