// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * HADES transactions on a descriptor (both APIs), and ddsm_tx_run()'s
 * retry loop.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

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

int lddsm_tx_region(int fd, uint64_t gaddr, uint64_t len)
{
	struct ddsm_tx_region_arg a = { .gaddr = gaddr, .len = len };

	return ioctl(fd, DDSM_IOC_TX_REGION, &a) < 0 ? -1 : 0;
}

int lddsm_tx_call(int fd, unsigned long cmd, uint64_t gaddr, const void *buf,
		  size_t len, uint32_t *reason)
{
	struct ddsm_tx_arg a = {
		.gaddr = gaddr,
		.buf = (uintptr_t)buf,
		.len = (uint32_t)len,
	};

	/* The kernel's field is 32 bits: a larger length must not wrap. */
	if (len > UINT32_MAX)
		return lddsm_einval();
	return tx_result(ioctl(fd, cmd, &a), a.reason, reason);
}

/*
 * A COMMIT whose homes did not all answer in time (ETIMEDOUT) is decided
 * by its homes (docs/transactions.md, "The commit rule"): ask its node
 * for the outcome a while, so that callers see 0 or ECANCELED as for
 * any commit, and ETIMEDOUT only when it is still not known.
 */
#define TX_OUTCOME_POLLS	600	/* 100 ms apart: one minute */

int lddsm_tx_commit(int fd, uint32_t *reason)
{
	struct ddsm_tx_arg a = { 0 };
	int ret, i;

	ret = ioctl(fd, DDSM_IOC_TX_COMMIT, &a);
	if (ret == 0 || errno != ETIMEDOUT || !a.txid)
		return tx_result(ret, a.reason, reason);
	for (i = 0; i < TX_OUTCOME_POLLS; i++) {
		struct ddsm_tx_arg q = { .txid = a.txid };

		ret = ioctl(fd, DDSM_IOC_TX_OUTCOME, &q);
		if (ret == 0 || errno == ECANCELED)
			return tx_result(ret, q.reason, reason);
		if (errno != EINPROGRESS)
			break;
		usleep(100000);
	}
	errno = ETIMEDOUT;
	return tx_result(-1, DDSM_TX_TIMEOUT, reason);
}

int lddsm_tx_readv(int fd, const struct ddsm_tx_iov *iov, unsigned int nr,
		   uint32_t *reason)
{
	struct ddsm_tx_readv_arg a = {
		.iov = (uintptr_t)iov,
		.nr = nr,
	};

	return tx_result(ioctl(fd, DDSM_IOC_TX_READV, &a), a.reason, reason);
}

/*
 * Back-off state per thread, seeded from what differs between threads
 * and processes (the thread id, the clock, this variable's address), so
 * that conflicting threads do not wait the same times and collide again.
 */
static __thread uint64_t backoff_rng;

static uint32_t backoff_next(void)
{
	uint64_t x = backoff_rng;

	if (!x) {
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		x = ((uint64_t)gettid() << 32) ^ (uint64_t)ts.tv_nsec ^
		    ((uint64_t)ts.tv_sec << 20) ^ (uintptr_t)&backoff_rng;
		x |= 1;
	}
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	backoff_rng = x;
	return (uint32_t)(x >> 32);
}

/* Leave no transaction behind, keeping errno. */
static void tx_drop(int fd)
{
	int e = errno;

	lddsm_tx_call(fd, DDSM_IOC_TX_ABORT, 0, NULL, 0, NULL);
	errno = e;
}

/*
 * BEGIN; a body that failed with ECANCELED of its own accord (not from
 * the module) left its transaction running: abort it, begin again.
 */
static int tx_begin(int fd)
{
	if (!lddsm_tx_call(fd, DDSM_IOC_TX_BEGIN, 0, NULL, 0, NULL))
		return 0;
	if (errno != EBUSY)
		return -1;
	tx_drop(fd);
	return lddsm_tx_call(fd, DDSM_IOC_TX_BEGIN, 0, NULL, 0, NULL);
}

int lddsm_tx_run(int fd, int (*body)(void *ctx), void *ctx,
		 unsigned int max_tries, uint32_t *reason)
{
	unsigned int tries, backoff = 8;
	uint32_t why = 0;
	int busy = 0;

	if (!body)
		return lddsm_einval();
	for (tries = 0; tries < max_tries; tries++) {
		if (tries) {
			usleep(backoff_next() % backoff);
			if (backoff < 1024)
				backoff *= 2;
		}
		if (tx_begin(fd)) {
			/* Every slot of the node is busy: wait for one. */
			if (errno == EAGAIN) {
				busy = 1;
				continue;
			}
			return -1;
		}
		busy = 0;
		if (body(ctx) < 0) {
			if (errno != ECANCELED) {
				tx_drop(fd);
				return -1;
			}
			why = tx_last_reason;
			continue;
		}
		if (!lddsm_tx_commit(fd, &why))
			return 0;
		if (errno != ECANCELED)
			return -1;
	}
	if (reason)
		*reason = why;
	errno = busy ? EAGAIN : ECANCELED;
	return -1;
}
