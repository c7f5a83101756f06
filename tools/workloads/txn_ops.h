/* SPDX-License-Identifier: GPL-2.0 */
/* txn's backends (txn.c's OCC, txn_hades.c's HADES), for the front end. */
#ifndef WL_TXN_OPS_H
#define WL_TXN_OPS_H

#include "txn.h"

/*
 * A backend: the front end (txn_*()) checks the transaction's state,
 * counts, logs and retries around these.  read() and write() return 0 or
 * txn_doom()'s TXN_ABORTED (or -errno); commit() returns TXN_C_NONE once
 * committed, else the cause, and abort() then releases whatever commit()
 * took.  For the log, a backend keeps tx->rs (records read, versions
 * read) and tx->ws (records written, the version each had when the commit
 * took it) up to date.
 */
struct txn_ops {
	uint32_t hdr;		/* bytes in front of a record's data */
	void (*begin)(struct txn *tx);
	int (*read)(struct txn *tx, uint64_t gaddr, void *buf, uint32_t len);
	/* Optional: NULL reads them one by one. */
	int (*read_many)(struct txn *tx, int n, const uint64_t *gaddr,
			 void *const *buf, uint32_t len);
	int (*write)(struct txn *tx, uint64_t gaddr, const void *buf,
		     uint32_t len);
	enum txn_cause (*commit)(struct txn *tx);
	void (*abort)(struct txn *tx);
	void (*rec_init)(const struct txn_env *env, uint64_t gaddr,
			 const void *data, uint32_t len, uint64_t version);
	void (*rec_peek)(const struct txn_env *env, uint64_t gaddr,
			 void *data, uint32_t len, uint64_t *version,
			 uint64_t *owner);
};

/* Doom @tx for @cause (the first cause sticks); returns TXN_ABORTED. */
int txn_doom(struct txn *tx, enum txn_cause cause);

/* txn_hades.c */
extern const struct txn_ops txn_hades_ops;
/* Open the device for loading and checking: 0, or -ENODEV and a message. */
int txn_hades_env_init(struct txn_env *env);
/* This thread's own handle (one transaction per handle). */
void txn_hades_init(struct txn *tx);
void txn_hades_destroy(struct txn *tx);

#endif /* WL_TXN_OPS_H */
