// SPDX-License-Identifier: GPL-2.0
/*
 * The HADES backend of txn.h: the kernel's transactions (DDSM_IOC_TX_*,
 * through libddsm), one handle of /dev/ddsm per thread since the kernel
 * runs one transaction per open file.
 *
 * Records: an 8-byte version, then the data.  The kernel keeps no
 * versions; this backend does, for the serializability log and the
 * audit: a write reads the record's version in the same transaction
 * (if the body did not read it already) and commits version + 1 with the
 * data, as one write.  HADES serialises the transactions, so each
 * record's versions form one chain the checker can order.  The record's
 * data and its version are read together, in one DDSM_IOC_TX_READ.
 *
 * Writes are buffered here (tx->ws, tx->wbuf) and handed to the kernel
 * at commit: the kernel lays them over later reads, but this backend
 * needs them anyway to write version and data in one piece.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "libddsm.h"
#include "txn_ops.h"

#define HDR	8u

static enum txn_cause cause_of(uint32_t reason)
{
	switch (reason) {
	case DDSM_TX_SQUASHED:
		return TXN_C_SQUASHED;
	case DDSM_TX_NACKED:
		return TXN_C_NACKED;
	case DDSM_TX_READ_LOCKED:
		return TXN_C_READ_LOCKED;
	case DDSM_TX_USER:
		return TXN_C_USER;
	default:
		return TXN_C_HOME;
	}
}

/* A failed call: the kernel's abort, or an error the transaction ends on. */
static enum txn_cause failed(struct txn *tx, uint32_t reason)
{
	if (errno == ECANCELED)
		return cause_of(reason);
	if (errno != E2BIG)
		fprintf(stderr, "hades: transaction call failed: %s\n",
			strerror(errno));
	ddsm_tx_abort(tx->dev);
	return TXN_C_OVERFLOW;
}

static void hades_begin(struct txn *tx)
{
	tx->nr = 0;
	tx->nw = 0;
	tx->wused = 0;
	if (ddsm_tx_begin(tx->dev) == 0)
		return;
	/* A body that returned an error left its transaction open. */
	if (errno == EBUSY && ddsm_tx_abort(tx->dev) == 0 &&
	    ddsm_tx_begin(tx->dev) == 0)
		return;
	fprintf(stderr, "hades: begin: %s\n", strerror(errno));
	txn_doom(tx, TXN_C_HOME);
}

static struct txn_rs *rs_find(struct txn *tx, uint64_t gaddr)
{
	int i;

	for (i = 0; i < tx->nr; i++)
		if (tx->rs[i].gaddr == gaddr)
			return &tx->rs[i];
	return NULL;
}

static struct txn_ws *ws_find(struct txn *tx, uint64_t gaddr)
{
	int i;

	for (i = 0; i < tx->nw; i++)
		if (tx->ws[i].gaddr == gaddr)
			return &tx->ws[i];
	return NULL;
}

/*
 * A record read as version + data in @tmp: @len data bytes to @buf (if
 * not NULL), the version into the read set, and what this transaction
 * wrote laid over the data (read-your-writes).
 */
static int noted(struct txn *tx, uint64_t gaddr, const unsigned char *tmp,
		 void *buf, uint32_t len)
{
	struct txn_ws *w = ws_find(tx, gaddr);
	uint64_t v;

	memcpy(&v, tmp, HDR);
	if (buf)
		memcpy(buf, tmp + HDR, len);
	if (!rs_find(tx, gaddr)) {
		if (tx->nr == TXN_MAX_SET)
			return txn_doom(tx, TXN_C_OVERFLOW);
		tx->rs[tx->nr].gaddr = gaddr;
		tx->rs[tx->nr].version = v;
		tx->nr++;
	}
	if (buf && w)
		memcpy(buf, tx->wbuf + w->off, len < w->len ? len : w->len);
	return 0;
}

/* Read the record's version and @len data bytes; note the version read. */
static int rec_read(struct txn *tx, uint64_t gaddr, void *buf, uint32_t len)
{
	unsigned char tmp[HDR + TXN_MAX_DATA];
	uint32_t reason = 0;

	if (ddsm_tx_read(tx->dev, gaddr, HDR + len, tmp, &reason) < 0)
		return txn_doom(tx, failed(tx, reason));
	return noted(tx, gaddr, tmp, buf, len);
}

/* The records' homes asked at once (DDSM_IOC_TX_READV). */
static int hades_read_many(struct txn *tx, int n, const uint64_t *gaddr,
			   void *const *buf, uint32_t len)
{
	static __thread unsigned char tmp[TXN_MAX_MANY][HDR + TXN_MAX_DATA];
	struct ddsm_tx_iov iov[TXN_MAX_MANY] = { { 0 } };
	uint32_t reason = 0;
	int i, r = 0;

	for (i = 0; i < n; i++) {
		iov[i].gaddr = gaddr[i];
		iov[i].buf = (uintptr_t)tmp[i];
		iov[i].len = HDR + len;
	}
	if (ddsm_tx_readv(tx->dev, iov, (unsigned int)n, &reason) < 0)
		return txn_doom(tx, failed(tx, reason));
	for (i = 0; i < n && !r; i++)
		r = noted(tx, gaddr[i], tmp[i], buf[i], len);
	return r;
}

static int hades_write(struct txn *tx, uint64_t gaddr, const void *buf,
		       uint32_t len)
{
	struct txn_ws *w = ws_find(tx, gaddr);
	struct txn_rs *r = rs_find(tx, gaddr);
	int ret;

	if (!r) {
		ret = rec_read(tx, gaddr, NULL, 1);
		if (ret)
			return ret;
		r = rs_find(tx, gaddr);
	}
	if (!w) {
		if (tx->nw == TXN_MAX_SET || tx->wused + len > TXN_WBUF)
			return txn_doom(tx, TXN_C_OVERFLOW);
		w = &tx->ws[tx->nw++];
		w->gaddr = gaddr;
		w->off = tx->wused;
		w->len = len;
		tx->wused += len;
	} else if (len > w->len) {
		return txn_doom(tx, TXN_C_OVERFLOW);
	}
	w->version = r->version;
	memcpy(tx->wbuf + w->off, buf, len);
	return 0;
}

static enum txn_cause hades_commit(struct txn *tx)
{
	unsigned char tmp[HDR + TXN_MAX_DATA];
	uint32_t reason = 0;
	int i;

	for (i = 0; i < tx->nw; i++) {
		uint64_t v = tx->ws[i].version + 1;

		memcpy(tmp, &v, HDR);
		memcpy(tmp + HDR, tx->wbuf + tx->ws[i].off, tx->ws[i].len);
		if (ddsm_tx_write(tx->dev, tx->ws[i].gaddr, tmp,
				  HDR + tx->ws[i].len, &reason) < 0)
			return failed(tx, reason);
	}
	if (ddsm_tx_commit(tx->dev, &reason) < 0)
		return failed(tx, reason);
	return TXN_C_NONE;
}

static void hades_abort(struct txn *tx)
{
	/* EINVAL when the kernel ended it already: nothing to do. */
	ddsm_tx_abort(tx->dev);
}

/*
 * Outside transactions: one transaction per record, retried (a home
 * that has not declared the tables transactional yet NACKs: the other
 * nodes may still be starting; 10 s of that at most).
 */
static void hades_rec_init(const struct txn_env *env, uint64_t gaddr,
			   const void *data, uint32_t len, uint64_t version)
{
	unsigned char tmp[HDR + TXN_MAX_DATA];
	int tries;

	memcpy(tmp, &version, HDR);
	memcpy(tmp + HDR, data, len);
	for (tries = 0; tries < 10000; tries++) {
		if (ddsm_tx_begin(env->dev) < 0)
			break;
		if (ddsm_tx_write(env->dev, gaddr, tmp, HDR + len, NULL) == 0 &&
		    ddsm_tx_commit(env->dev, NULL) == 0)
			return;
		if (errno != ECANCELED)
			break;
		usleep(1000);
	}
	fprintf(stderr, "hades: loading record %#llx failed: %s\n",
		(unsigned long long)gaddr, strerror(errno));
	exit(1);
}

static void hades_rec_peek(const struct txn_env *env, uint64_t gaddr,
			   void *data, uint32_t len, uint64_t *version,
			   uint64_t *owner)
{
	unsigned char tmp[HDR + TXN_MAX_DATA];
	int tries;

	*owner = 0;
	for (tries = 0; tries < 1000; tries++) {
		if (ddsm_tx_begin(env->dev) < 0)
			break;
		if (ddsm_tx_read(env->dev, gaddr, HDR + len, tmp, NULL) == 0 &&
		    ddsm_tx_commit(env->dev, NULL) == 0) {
			memcpy(version, tmp, HDR);
			memcpy(data, tmp + HDR, len);
			return;
		}
		if (errno != ECANCELED)
			break;
	}
	fprintf(stderr, "hades: reading record %#llx failed: %s\n",
		(unsigned long long)gaddr, strerror(errno));
	exit(1);
}

const struct txn_ops txn_hades_ops = {
	.hdr = HDR,
	.begin = hades_begin,
	.read = rec_read,
	.read_many = hades_read_many,
	.write = hades_write,
	.commit = hades_commit,
	.abort = hades_abort,
	.rec_init = hades_rec_init,
	.rec_peek = hades_rec_peek,
};

static struct ddsm *open_dev(void)
{
	struct ddsm *d = calloc(1, sizeof(*d));

	if (d && ddsm_open(d, NULL) == 0)
		return d;
	free(d);
	return NULL;
}

int txn_hades_env_init(struct txn_env *env)
{
	env->dev = open_dev();
	if (env->dev)
		return 0;
	fprintf(stderr, "HADES backend needs /dev/ddsm: %s\n", strerror(errno));
	return -ENODEV;
}

int txn_env_region(struct txn_env *env, uint64_t gaddr, uint64_t len)
{
	if (env->backend != TXN_HADES)
		return 0;
	return ddsm_tx_region(env->dev, gaddr, len) < 0 ? -errno : 0;
}

void txn_hades_init(struct txn *tx)
{
	tx->dev = tx->env->dev ? open_dev() : NULL;
}

void txn_hades_destroy(struct txn *tx)
{
	if (tx->dev) {
		ddsm_close(tx->dev);
		free(tx->dev);
		tx->dev = NULL;
	}
}
