// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libddsm: one system call per function, errno passed through untouched so
 * that callers (and the tests) see exactly what the module decided.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "libddsm.h"

static void ddsm_cache(struct ddsm *d, const struct ddsm_status *st)
{
	d->node_id = st->node_id;
	d->nr_nodes = st->nr_nodes;
	d->unit_size = st->unit_size;
	d->size = st->size;
}

int ddsm_open(struct ddsm *d, const char *path)
{
	struct ddsm_status st;
	int err;

	if (!d) {
		errno = EINVAL;
		return -1;
	}
	memset(d, 0, sizeof(*d));
	d->fd = open(path ? path : DDSM_DEFAULT_PATH, O_RDWR | O_CLOEXEC);
	if (d->fd < 0)
		return -1;

	/* Reading the status both fills the cache and proves it is ddsm. */
	if (ioctl(d->fd, DDSM_IOC_STATUS, &st) < 0)
		goto fail;
	if (st.abi_version != DDSM_ABI_VERSION) {
		errno = EPROTO;
		goto fail;
	}
	ddsm_cache(d, &st);
	return 0;

fail:
	err = errno;
	close(d->fd);
	d->fd = -1;
	errno = err;
	return -1;
}

void *ddsm_map(struct ddsm *d, uint64_t gaddr, size_t len, int prot)
{
	void *p;

	if (!d) {
		errno = EINVAL;
		return NULL;
	}
	/*
	 * No range checks here: the module is the authority, and checking
	 * twice would hide its errno behind ours.  off_t is signed, but the
	 * kernel reads the offset as unsigned, so the cast loses nothing.
	 */
	p = mmap(NULL, len, prot, MAP_SHARED, d->fd, (off_t)gaddr);
	return p == MAP_FAILED ? NULL : p;
}

int ddsm_unmap(struct ddsm *d, void *addr, size_t len)
{
	(void)d;	/* kept in the API for symmetry and future bookkeeping */
	return munmap(addr, len);
}

int ddsm_close(struct ddsm *d)
{
	int fd;

	if (!d) {
		errno = EINVAL;
		return -1;
	}
	fd = d->fd;
	if (fd < 0)
		return 0;
	d->fd = -1;
	/* Linux releases the descriptor even when close() reports an error. */
	return close(fd);
}

int ddsm_status(struct ddsm *d, struct ddsm_status *st)
{
	if (!d || !st) {
		errno = EINVAL;
		return -1;
	}
	if (ioctl(d->fd, DDSM_IOC_STATUS, st) < 0)
		return -1;
	ddsm_cache(d, st);
	return 0;
}

int ddsm_peer(struct ddsm *d, uint32_t index, struct ddsm_peer_info *pi)
{
	if (!d || !pi) {
		errno = EINVAL;
		return -1;
	}
	memset(pi, 0, sizeof(*pi));
	pi->index = index;
	return ioctl(d->fd, DDSM_IOC_PEER, pi) < 0 ? -1 : 0;
}

int ddsm_home(struct ddsm *d, uint64_t gaddr, struct ddsm_home_query *q)
{
	if (!d || !q) {
		errno = EINVAL;
		return -1;
	}
	memset(q, 0, sizeof(*q));
	q->gaddr = gaddr;
	return ioctl(d->fd, DDSM_IOC_HOME, q) < 0 ? -1 : 0;
}

int ddsm_pmem_status(struct ddsm *d, struct ddsm_pmem_status *ps)
{
	if (!d || !ps) {
		errno = EINVAL;
		return -1;
	}
	memset(ps, 0, sizeof(*ps));
	return ioctl(d->fd, DDSM_IOC_PMEM_STATUS, ps) < 0 ? -1 : 0;
}

int ddsm_persist(struct ddsm *d, uint64_t gaddr, uint64_t len)
{
	struct ddsm_persist_arg a;

	if (!d) {
		errno = EINVAL;
		return -1;
	}
	memset(&a, 0, sizeof(a));
	a.gaddr = gaddr;
	a.len = len;
	return ioctl(d->fd, DDSM_IOC_PERSIST, &a) < 0 ? -1 : 0;
}

int ddsm_write_durable(struct ddsm *d, void *dst, uint64_t gaddr,
		       const void *src, size_t len)
{
	struct ddsm_persist_arg a;
	uint64_t first, end;

	if (!d || !dst || !src || !len || gaddr + len < gaddr) {
		errno = EINVAL;
		return -1;
	}
	memcpy(dst, src, len);
	first = gaddr / DDSM_UNIT_SIZE * DDSM_UNIT_SIZE;
	end = (gaddr + len + DDSM_UNIT_SIZE - 1) / DDSM_UNIT_SIZE *
	      DDSM_UNIT_SIZE;
	memset(&a, 0, sizeof(a));
	a.gaddr = first;
	a.len = end - first;
	a.flags = DDSM_PERSIST_ALL;
	return ioctl(d->fd, DDSM_IOC_PERSIST, &a) < 0 ? -1 : 0;
}

int ddsm_region_set_model(struct ddsm *d, uint64_t gaddr, uint64_t len,
			  uint32_t model)
{
	struct ddsm_region_arg a;

	if (!d) {
		errno = EINVAL;
		return -1;
	}
	memset(&a, 0, sizeof(a));
	a.gaddr = gaddr;
	a.len = len;
	a.model = model;
	return ioctl(d->fd, DDSM_IOC_REGION, &a) < 0 ? -1 : 0;
}

int ddsm_region_model(struct ddsm *d, uint64_t gaddr, uint32_t *model)
{
	struct ddsm_region_arg a;

	if (!d || !model) {
		errno = EINVAL;
		return -1;
	}
	memset(&a, 0, sizeof(a));
	a.gaddr = gaddr;
	a.flags = DDSM_REGION_GET;
	if (ioctl(d->fd, DDSM_IOC_REGION, &a) < 0)
		return -1;
	*model = a.model;
	return 0;
}

static const char *const model_names[] = {
	[DDSM_MODEL_SYNC] = "sync",
	[DDSM_MODEL_STRICT] = "strict",
	[DDSM_MODEL_READ_ENF] = "read_enf",
	[DDSM_MODEL_EVENTUAL] = "eventual",
	[DDSM_MODEL_SCOPE] = "scope",
};

const char *ddsm_model_name(uint32_t model)
{
	return model < sizeof(model_names) / sizeof(model_names[0]) ?
	       model_names[model] : "unknown";
}

int ddsm_model_parse(const char *name, uint32_t *model)
{
	uint32_t i;

	for (i = 0; i < sizeof(model_names) / sizeof(model_names[0]); i++) {
		if (name && model && !strcmp(name, model_names[i])) {
			*model = i;
			return 0;
		}
	}
	errno = EINVAL;
	return -1;
}

int ddsm_configure(struct ddsm *d, uint32_t node_id, const char *nodes)
{
	struct ddsm_config c;
	struct ddsm_status st;

	if (!d || !nodes) {
		errno = EINVAL;
		return -1;
	}
	memset(&c, 0, sizeof(c));
	if (strlen(nodes) >= sizeof(c.nodes)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	c.node_id = node_id;
	strcpy(c.nodes, nodes);
	if (ioctl(d->fd, DDSM_IOC_CONFIGURE, &c) < 0)
		return -1;
	/* Keep the cached geometry in step with the module. */
	if (ioctl(d->fd, DDSM_IOC_STATUS, &st) == 0) {
		d->node_id = st.node_id;
		d->nr_nodes = st.nr_nodes;
		d->size = st.size;
	}
	return 0;
}

int ddsm_parse_size(const char *s, uint64_t *out)
{
	unsigned long long v;
	unsigned int shift = 0;
	char *end;

	if (!s || !out || !*s || *s == '-')
		goto bad;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s)
		goto bad;
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	}
	if (*end || (shift && v > (UINT64_MAX >> shift)))
		goto bad;
	*out = (uint64_t)v << shift;
	return 0;
bad:
	errno = EINVAL;
	return -1;
}

const char *ddsm_peer_state_name(uint32_t state)
{
	switch (state) {
	case DDSM_PEER_SELF:		return "self";
	case DDSM_PEER_DOWN:		return "down";
	case DDSM_PEER_CONNECTING:	return "connecting";
	case DDSM_PEER_UP:		return "up";
	case DDSM_PEER_DEAD:		return "dead";
	}
	return "unknown";
}

const char *ddsm_unit_state_name(uint32_t state)
{
	switch (state) {
	case DDSM_UNIT_I:	return "I";
	case DDSM_UNIT_S:	return "S";
	case DDSM_UNIT_M:	return "M";
	case DDSM_UNIT_BUSY:	return "busy";
	}
	return "unknown";
}

int ddsm_tx_region(struct ddsm *d, uint64_t gaddr, uint64_t len)
{
	struct ddsm_tx_region_arg a = { .gaddr = gaddr, .len = len };

	return ioctl(d->fd, DDSM_IOC_TX_REGION, &a) < 0 ? -1 : 0;
}

/* The last abort's reason on this thread, for ddsm_tx_run()'s report. */
static __thread uint32_t tx_last_reason;

/* A transaction call's ioctl result @ret: *@reason from @got if aborted. */
static int tx_result(int ret, uint32_t got, uint32_t *reason)
{
	int aborted = ret < 0 && errno == ECANCELED;

	if (aborted)
		tx_last_reason = got;
	if (reason)
		*reason = aborted ? got : 0;
	return ret < 0 ? -1 : 0;
}

static int tx_call(struct ddsm *d, unsigned long cmd, uint64_t gaddr,
		   const void *buf, size_t len, uint32_t *reason)
{
	struct ddsm_tx_arg a = {
		.gaddr = gaddr,
		.buf = (uintptr_t)buf,
		.len = (uint32_t)len,
	};
	int ret;

	if (len > UINT32_MAX) {
		errno = EINVAL;
		return -1;
	}
	ret = ioctl(d->fd, cmd, &a);
	return tx_result(ret, a.reason, reason);
}

int ddsm_tx_begin(struct ddsm *d)
{
	return tx_call(d, DDSM_IOC_TX_BEGIN, 0, NULL, 0, NULL);
}

int ddsm_tx_read(struct ddsm *d, uint64_t gaddr, size_t len, void *buf,
		 uint32_t *reason)
{
	return tx_call(d, DDSM_IOC_TX_READ, gaddr, buf, len, reason);
}

int ddsm_tx_readv(struct ddsm *d, const struct ddsm_tx_iov *iov,
		  unsigned int nr, uint32_t *reason)
{
	struct ddsm_tx_readv_arg a = {
		.iov = (uintptr_t)iov,
		.nr = nr,
	};
	int ret = ioctl(d->fd, DDSM_IOC_TX_READV, &a);

	return tx_result(ret, a.reason, reason);
}

int ddsm_tx_write(struct ddsm *d, uint64_t gaddr, const void *buf,
		  size_t len, uint32_t *reason)
{
	return tx_call(d, DDSM_IOC_TX_WRITE, gaddr, buf, len, reason);
}

/*
 * A COMMIT whose homes did not all answer in time (ETIMEDOUT) is decided
 * by its homes (docs/transactions.md, "The commit rule"): ask its node
 * for the outcome a while, so that callers see 0 or ECANCELED as for
 * any commit, and ETIMEDOUT only when it is still not known.
 */
#define TX_OUTCOME_POLLS	600	/* 100 ms apart: one minute */

int ddsm_tx_commit(struct ddsm *d, uint32_t *reason)
{
	struct ddsm_tx_arg a = { 0 };
	int ret, i;

	ret = ioctl(d->fd, DDSM_IOC_TX_COMMIT, &a);
	if (ret == 0 || errno != ETIMEDOUT || !a.txid)
		return tx_result(ret, a.reason, reason);
	for (i = 0; i < TX_OUTCOME_POLLS; i++) {
		struct ddsm_tx_arg q = { .txid = a.txid };

		ret = ioctl(d->fd, DDSM_IOC_TX_OUTCOME, &q);
		if (ret == 0 || errno == ECANCELED)
			return tx_result(ret, q.reason, reason);
		if (errno != EINPROGRESS)
			break;
		usleep(100000);
	}
	errno = ETIMEDOUT;
	return tx_result(-1, DDSM_TX_TIMEOUT, reason);
}

int ddsm_tx_abort(struct ddsm *d)
{
	return tx_call(d, DDSM_IOC_TX_ABORT, 0, NULL, 0, NULL);
}

int ddsm_tx_status(struct ddsm *d, struct ddsm_tx_status *st)
{
	return ioctl(d->fd, DDSM_IOC_TX_STATUS, st) < 0 ? -1 : 0;
}

static const char *const tx_reasons[DDSM_TX_REASON_NR] = {
	[DDSM_TX_COMMITTED] = "committed",
	[DDSM_TX_SQUASHED] = "squashed",
	[DDSM_TX_NACKED] = "nacked",
	[DDSM_TX_READ_LOCKED] = "read_locked",
	[DDSM_TX_PEER_DOWN] = "peer_down",
	[DDSM_TX_TIMEOUT] = "timeout",
	[DDSM_TX_FULL] = "full",
	[DDSM_TX_USER] = "user",
};

const char *ddsm_tx_reason_name(uint32_t reason)
{
	return reason < DDSM_TX_REASON_NR ? tx_reasons[reason] : "?";
}

int ddsm_tx_run(struct ddsm *d, int (*body)(struct ddsm *d, void *arg),
		void *arg, unsigned int max_tries, uint32_t *reason)
{
	unsigned int seed = (unsigned int)(uintptr_t)arg ^ (unsigned int)getpid();
	unsigned int tries, backoff = 8;
	uint32_t why = 0;

	for (tries = 0; tries < max_tries; tries++) {
		if (tries) {
			usleep(rand_r(&seed) % backoff);
			if (backoff < 1024)
				backoff *= 2;
		}
		if (ddsm_tx_begin(d) < 0)
			return -1;
		if (body(d, arg) < 0) {
			if (errno != ECANCELED) {
				int e = errno;

				ddsm_tx_abort(d);
				errno = e;
				return -1;
			}
			why = tx_last_reason;
			continue;
		}
		if (ddsm_tx_commit(d, &why) == 0)
			return 0;
		if (errno != ECANCELED)
			return -1;
	}
	if (reason)
		*reason = why;
	errno = ECANCELED;
	return -1;
}
