/* SPDX-License-Identifier: GPL-2.0 */
/*
 * txn: transactions over records in the global space, behind one
 * interface with interchangeable backends, so that the workloads
 * (ddsm-txbench) run unchanged on each and compare them:
 *
 *   occ    a FaRM-like software OCC in user space over plain ddsm memory
 *          (the HADES paper's "SW-Impl" baseline), below;
 *   hades  the kernel's HADES transactions (issue 13) through
 *          DDSM_IOC_TX_* (txn_hades.c), each thread on its own handle of
 *          /dev/ddsm.  Without the device txn_env_init() refuses it with
 *          -ENODEV and says so; it never falls back to something else.
 *
 * A record is named by its global address (the address of its first
 * byte, header included) and holds up to TXN_MAX_DATA bytes of data.  A
 * backend may need a header in front of the data: a workload lays out
 * its records txn_rec_bytes() apart and never looks inside one except
 * through txn_rec_init() and txn_rec_peek().
 *
 * OCC record layout (TXN_OCC_HDR bytes of header, then the data):
 *
 *   u64 word   version << 16 | owner
 *              owner: 0 when free, else the lock holder's tag (1 + node *
 *              threads + thread, unique in the cluster), so that a
 *              validating transaction can tell its own lock from another's
 *              version: 48 bits, 1 when loaded, +1 per committed write
 *   data       the record's bytes
 *
 * Version and lock share one word so that a reader sees both in one load,
 * and a committer locks with one LOCK CMPXCHG that fails if either moved.
 *
 * OCC protocol, per transaction:
 *   execute  txn_read() loads the word (a locked record is retried a few
 *            times, then aborts the transaction: "read_locked"), copies
 *            the data and loads the word again: the same word means the
 *            copy is of that version (else retry, then "read_torn"); the
 *            (record, version) pair joins the read set.  txn_write()
 *            only buffers the new data in the write set (read-your-writes
 *            is served from there).  Nothing is stored to the global
 *            space while executing, so an aborted transaction leaves no
 *            trace and readers never invalidate each other's copies.
 *   commit   1. lock the write set in address order: CMPXCHG the word from
 *               (version, 0) to (version, me); a record another holds is
 *               retried lock_spins times, then the transaction aborts
 *               ("lock_held") and releases what it locked.  Locks are
 *               never waited for unboundedly, so there is no deadlock,
 *               and the address order makes two committers with
 *               overlapping write sets collide on their first common
 *               record instead of each holding half.
 *            2. validate the read set: each word must still be the
 *               version read and not locked by another ("version",
 *               "validate_locked").  After step 1 and this step every
 *               record the transaction touched is as it saw it, at one
 *               instant: the serialisation point.
 *            3. write the buffered data in place, then store each word
 *               (version + 1, unlocked) with release order: a reader that
 *               sees the new version sees the new data.
 *   A transaction aborted by a conflict is retried by txn_run() after a
 *   randomised exponential back-off.
 *
 * Aborts are counted by cause (enum txn_cause).  A workload's own "abort"
 * (a business rule, e.g. SmallBank's insufficient funds) is TXN_C_USER:
 * counted apart, never retried.
 *
 * Serializability log: with TXN_F_LOG every committed transaction appends
 * to its thread's log (local memory, struct txn_log) its id, the records
 * it read with the versions it read and the records it wrote with the
 * versions it created; sercheck.h merges logs and checks them.
 *
 * One struct txn per thread; struct txn_env is shared and read-only.
 */
#ifndef WL_TXN_H
#define WL_TXN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TXN_OCC_HDR	8u
#define TXN_MAX_DATA	4096u	/* bytes of one record's data */
#define TXN_MAX_SET	64	/* records in a read set, and a write set */
#define TXN_MAX_MANY	16	/* records in one txn_read_many() */
#define TXN_WBUF	(16u * 1024)	/* buffered write data per txn */

#define TXN_OWNER_BITS	16
#define TXN_OWNER_MASK	((1ULL << TXN_OWNER_BITS) - 1)

enum txn_backend {
	TXN_OCC,
	TXN_HADES,
};

enum txn_cause {
	TXN_C_NONE,
	TXN_C_READ_LOCKED,	/* a read found the record locked */
	TXN_C_READ_TORN,	/* a read's version kept moving */
	TXN_C_READ_CHANGED,	/* a second read saw another version */
	TXN_C_LOCK_HELD,	/* commit: write-set record locked by another */
	TXN_C_VALIDATE_LOCKED,	/* commit: read-set record locked by another */
	TXN_C_VERSION,		/* commit: read-set record's version moved */
	TXN_C_OVERFLOW,		/* read or write set full */
	TXN_C_USER,		/* the workload gave up: not a conflict */
	/* HADES (the kernel's enum ddsm_tx_reason) */
	TXN_C_SQUASHED,		/* a committing writer doomed it */
	TXN_C_NACKED,		/* a home refused its Intend */
	TXN_C_HOME,		/* a home down, silent or full */
	TXN_C_NR
};

/* txn_read(), txn_write(), txn_commit(): 0, TXN_ABORTED, or -errno. */
#define TXN_ABORTED	1

/* Planted bugs and options (struct txn_env.flags). */
#define TXN_F_LOG		0x1u	/* keep the serializability log */
#define TXN_F_SKIP_VALIDATE	0x2u	/* planted bug: commit skips step 2 */

struct ddsm;

struct txn_env {
	enum txn_backend backend;
	struct ddsm *dev;	/* hades: loading and checking records */
	char *base;		/* where global address gbase is mapped */
	uint64_t gbase, len;	/* the records' window */
	unsigned int flags;
	unsigned int lock_spins;	/* re-tries of a held lock at commit */
	unsigned int read_tries;	/* re-tries of a locked or torn read */
};

struct txn_stats {
	uint64_t commits;	/* with a write */
	uint64_t ro_commits;	/* read-only */
	uint64_t aborts[TXN_C_NR];
	uint64_t retries;	/* attempts after the first, by txn_run() */
	uint64_t gave_up;	/* txn_run() ran out of attempts */
};

/*
 * Serializability log, one per thread: for each committed transaction the
 * words
 *   TXN_LOG_TAG | nr_reads << 16 | nr_writes,  id,
 *   nr_reads  x (record, version read),
 *   nr_writes x (record, version created)
 * Id: node << 48 | thread << 32 | sequence (the thread's transactions).
 */
#define TXN_LOG_TAG	0x7458000000000000ULL	/* "tX" */
#define TXN_LOG_TAG_MASK 0xffff000000000000ULL

struct txn_log {
	uint64_t *w;
	size_t len, cap;	/* words */
	bool full;		/* could not grow: the log is incomplete */
};

struct txn_rs {
	uint64_t gaddr, version;
};

struct txn_ws {
	uint64_t gaddr, version;	/* version: the one locked at commit */
	uint32_t len, off;		/* data in txn.wbuf */
	bool locked;
};

struct txn_ops;

struct txn {
	const struct txn_env *env;
	const struct txn_ops *ops;	/* the backend's, from txn_begin() */
	uint64_t owner;		/* lock tag, 1..TXN_OWNER_MASK */
	uint64_t id_base;	/* node << 48 | thread << 32 */
	uint32_t seq;		/* transactions committed */
	enum txn_cause cause;	/* TXN_C_NONE unless doomed */
	bool active;
	int nr, nw;
	struct txn_rs rs[TXN_MAX_SET];
	struct txn_ws ws[TXN_MAX_SET];
	uint32_t wused;
	struct txn_stats st;
	struct txn_log log;
	struct ddsm *dev;	/* hades: this thread's handle */
	uint64_t rng;		/* back-off */
	unsigned char wbuf[TXN_WBUF];
};

/*
 * Check that @env's backend can run here.  Return 0, or -EOPNOTSUPP with
 * a message on stderr (the HADES backend, for now).
 */
int txn_env_init(struct txn_env *env);
const char *txn_backend_name(enum txn_backend b);
/*
 * Records in [@gaddr, +@len) are the backend's only: HADES declares the
 * range transactional (every node, before mapping anything of it); 0 or
 * -errno.  Nothing to do for OCC.
 */
int txn_env_region(struct txn_env *env, uint64_t gaddr, uint64_t len);
/* "occ" or "hades" -> 0 and *@b; -1 for anything else. */
int txn_parse_backend(const char *s, enum txn_backend *b);
const char *txn_cause_name(enum txn_cause c);

/* Bytes from one record to the next for @data bytes, 64-byte aligned. */
uint64_t txn_rec_bytes(const struct txn_env *env, uint32_t data);

/* Thread @thread of @threads on @node. */
void txn_init(struct txn *tx, const struct txn_env *env, int node,
	      int thread, int threads);
void txn_destroy(struct txn *tx);

int txn_begin(struct txn *tx);
/* Copy @len bytes of record @gaddr's data into @buf. */
int txn_read(struct txn *tx, uint64_t gaddr, void *buf, uint32_t len);
/*
 * txn_read() of @n (at most TXN_MAX_MANY) records, @len bytes each into
 * @buf[i], in one call: HADES asks the records' homes at once, one round
 * trip for all; OCC reads them in turn (they are in its cache or not).
 */
int txn_read_many(struct txn *tx, int n, const uint64_t *gaddr,
		  void *const *buf, uint32_t len);
/* Replace record @gaddr's first @len data bytes at commit. */
int txn_write(struct txn *tx, uint64_t gaddr, const void *buf, uint32_t len);
/* 0: committed; TXN_ABORTED with tx->cause set (and counted). */
int txn_commit(struct txn *tx);
/* Give up the transaction for @cause (TXN_C_USER from workloads). */
int txn_abort(struct txn *tx, enum txn_cause cause);

/*
 * A transaction's code: txn_read()/txn_write() calls, returning 0 to ask
 * for a commit, or what one of them returned (TXN_ABORTED, -errno), or
 * txn_abort(tx, TXN_C_USER) to give up.  It may run several times: it
 * must start from scratch each time (reset what it computes in @arg).
 */
typedef int (*txn_body_fn)(struct txn *tx, void *arg);

/*
 * Run @body until it commits, at most @max_tries attempts, backing off
 * between them.  Return 0: committed; TXN_ABORTED: the body gave up
 * (TXN_C_USER) or every attempt aborted (st.gave_up counts those);
 * -errno from the body or the backend.
 */
int txn_run(struct txn *tx, txn_body_fn body, void *arg,
	    unsigned int max_tries);

/*
 * Outside transactions (loading, and checking once every writer is
 * done): lay out record @gaddr with @len data bytes at @version, and read
 * it back with its version (0 if the backend keeps none).
 */
void txn_rec_init(const struct txn_env *env, uint64_t gaddr,
		  const void *data, uint32_t len, uint64_t version);
void txn_rec_peek(const struct txn_env *env, uint64_t gaddr, void *data,
		  uint32_t len, uint64_t *version, uint64_t *owner);

#endif /* WL_TXN_H */
