// SPDX-License-Identifier: GPL-2.0
/*
 * Every errno of docs/api.md's tables ("Errors, ioctl by ioctl"),
 * provoked one by one.  Each check prints "errno IOCTL ENAME", which
 * tests/vm/api/host.sh matches against the tables: a row no check
 * provokes fails there.
 *
 *   ddsm-test-errnos common          one node, no pmem=, nothing touched
 *                                    yet (CONFIGURE's EBUSY comes last)
 *   ddsm-test-errnos pmem            one node with a freshly formatted
 *                                    pmem= namespace: DDSM_IOC_REGION's
 *   ddsm-test-errnos dirty GADDR     store into GADDR's unit (left dirty)
 *   ddsm-test-errnos flag-set GADDR  / flag-wait GADDR SECONDS: a word in
 *                                    global memory, to pace two nodes
 *   ddsm-test-errnos persist-timeout GADDR
 *                                    PERSIST (all homes) on GADDR's unit
 *                                    until ETIMEDOUT (its home frozen by
 *                                    the host), at most 30 s
 *   ddsm-test-errnos persist-hostdown GADDR
 *                                    PERSIST until EHOSTDOWN (the home of a
 *                                    unit left dirty here is gone), 30 s
 *
 * Raw ioctls on descriptors, so that the errno is the module's; the
 * current libddsm for the rest.  TAP lines; exit 0 iff all ok.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <ddsm/libddsm.h>

#define UNIT		DDSM_UNIT_SIZE
#define DEV		"/dev/ddsm"

static int node = -1, checks, failed;

static void tap(int good, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void tap(int good, const char *fmt, ...)
{
	va_list ap;

	checks++;
	failed += !good;
	printf("%sok - node%d: ", good ? "" : "not ", node);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

static const char *ename(int e)
{
	return e ? strerrorname_np(e) ?: "?" : "success";
}

/* One row of the tables: @ret/@err of the call against @want. */
static void expect(const char *ioc, int want, long ret, int err,
		   const char *how)
{
	tap(ret == -1 && err == want, "errno %s %s: %s (got %s)", ioc,
	    ename(want), how, ret == -1 ? ename(err) : "success");
}

#define EXPECT(ioc, want, how, call) do {				\
	long r_ = (call);						\
	expect(#ioc, want, r_, errno, how);				\
} while (0)

static int open_dev(void)
{
	int fd = open(DEV, O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		printf("Bail out! node%d: open %s: %s\n", node, DEV,
		       strerror(errno));
		exit(1);
	}
	return fd;
}

static const struct {
	const char *name;
	unsigned long cmd;
} ioctls[] = {
#define I(x) { #x, x }
	I(DDSM_IOC_STATUS), I(DDSM_IOC_PEER), I(DDSM_IOC_HOME),
	I(DDSM_IOC_CONFIGURE), I(DDSM_IOC_PMEM_STATUS), I(DDSM_IOC_PERSIST),
	I(DDSM_IOC_REGION), I(DDSM_IOC_TX_REGION), I(DDSM_IOC_TX_BEGIN),
	I(DDSM_IOC_TX_READ), I(DDSM_IOC_TX_READV), I(DDSM_IOC_TX_WRITE),
	I(DDSM_IOC_TX_COMMIT), I(DDSM_IOC_TX_ABORT), I(DDSM_IOC_TX_STATUS),
	I(DDSM_IOC_TX_OUTCOME),
#undef I
};

/* "Every ioctl": a closed descriptor, a foreign one, a bad pointer. */
static void every_ioctl(int fd)
{
	int null = open("/dev/null", O_RDWR), closed = dup(fd);
	char label[64];
	size_t i;
	long ret;
	void *gone = mmap(NULL, UNIT, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	close(closed);
	munmap(gone, UNIT);
	for (i = 0; i < sizeof(ioctls) / sizeof(ioctls[0]); i++) {
		snprintf(label, sizeof(label), "%s on a closed descriptor",
			 ioctls[i].name);
		ret = ioctl(closed, ioctls[i].cmd, NULL);
		expect(ioctls[i].name, EBADF, ret, errno, label);
		snprintf(label, sizeof(label), "%s on /dev/null",
			 ioctls[i].name);
		ret = ioctl(null, ioctls[i].cmd, NULL);
		expect(ioctls[i].name, ENOTTY, ret, errno, label);
		/* A command that only writes back fails on the way out. */
		snprintf(label, sizeof(label), "%s with an unmapped argument",
			 ioctls[i].name);
		ret = ioctl(fd, ioctls[i].cmd, gone);
		expect(ioctls[i].name, EFAULT, ret, errno, label);
	}
	close(null);
}

static void queries(int fd, const struct ddsm_status *st)
{
	struct ddsm_peer_info pi = { .flags = 1 };
	struct ddsm_home_query q = { .reserved = 1 };

	EXPECT(DDSM_IOC_PEER, EINVAL, "flags 1", ioctl(fd, DDSM_IOC_PEER, &pi));
	pi.flags = 0;
	pi.index = st->nr_nodes;
	EXPECT(DDSM_IOC_PEER, ERANGE, "index nr_nodes",
	       ioctl(fd, DDSM_IOC_PEER, &pi));
	EXPECT(DDSM_IOC_HOME, EINVAL, "reserved 1",
	       ioctl(fd, DDSM_IOC_HOME, &q));
	q.reserved = 0;
	q.gaddr = st->size;
	EXPECT(DDSM_IOC_HOME, ERANGE, "gaddr == size",
	       ioctl(fd, DDSM_IOC_HOME, &q));
}

/* EPERM: a child without the capability, on a descriptor root opened. */
static void configure_eperm(int fd)
{
	struct ddsm_config c = { .node_id = 0 };
	int st, err;
	pid_t pid = fork();

	if (pid == 0) {
		if (setresuid(65534, 65534, 65534))
			_exit(100);
		err = ioctl(fd, DDSM_IOC_CONFIGURE, &c) == -1 ? errno : 0;
		_exit(err == EPERM ? 0 : err ? err : 101);
	}
	waitpid(pid, &st, 0);
	tap(WIFEXITED(st) && !WEXITSTATUS(st),
	    "errno DDSM_IOC_CONFIGURE EPERM: as user nobody (child exit %d)",
	    WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

static void configure(int fd)
{
	struct ddsm_config c = { .flags = 1 };

	configure_eperm(fd);
	EXPECT(DDSM_IOC_CONFIGURE, EINVAL, "flags 1",
	       ioctl(fd, DDSM_IOC_CONFIGURE, &c));
	c.flags = 0;
	strcpy(c.nodes, "10.0.0.1,not-an-address");
	EXPECT(DDSM_IOC_CONFIGURE, EINVAL, "a list that is not IPv4",
	       ioctl(fd, DDSM_IOC_CONFIGURE, &c));
	c.nodes[0] = 0;
	c.node_id = DDSM_MAX_NODES;
	EXPECT(DDSM_IOC_CONFIGURE, ERANGE, "node_id 64",
	       ioctl(fd, DDSM_IOC_CONFIGURE, &c));
}

/* Last: once a unit is touched, the node cannot be reconfigured. */
static void configure_ebusy(int fd)
{
	struct ddsm_config c = { .node_id = 0 };
	volatile char *p = mmap(NULL, UNIT, PROT_READ | PROT_WRITE, MAP_SHARED,
				fd, 0);

	if (p == MAP_FAILED) {
		tap(0, "errno DDSM_IOC_CONFIGURE EBUSY: mmap: %s",
		    ename(errno));
		return;
	}
	p[0] = 1;
	EXPECT(DDSM_IOC_CONFIGURE, EBUSY, "a unit mapped and touched",
	       ioctl(fd, DDSM_IOC_CONFIGURE, &c));
	munmap((void *)p, UNIT);
}

/* Without pmem=: the range checks come first, then ENODEV. */
static void persistence_without_pmem(int fd, const struct ddsm_status *st)
{
	struct ddsm_persist_arg pa = { .len = UNIT, .flags = 2 };
	struct ddsm_region_arg ra = { .len = UNIT, .reserved = 1 };

	EXPECT(DDSM_IOC_PERSIST, EINVAL, "flags 2",
	       ioctl(fd, DDSM_IOC_PERSIST, &pa));
	pa.flags = 0;
	pa.gaddr = st->size;
	EXPECT(DDSM_IOC_PERSIST, ERANGE, "gaddr == size",
	       ioctl(fd, DDSM_IOC_PERSIST, &pa));
	pa.gaddr = 0;
	EXPECT(DDSM_IOC_PERSIST, ENODEV, "no pmem=",
	       ioctl(fd, DDSM_IOC_PERSIST, &pa));
	EXPECT(DDSM_IOC_REGION, EINVAL, "reserved 1",
	       ioctl(fd, DDSM_IOC_REGION, &ra));
	ra.reserved = 0;
	ra.gaddr = st->size;
	EXPECT(DDSM_IOC_REGION, ERANGE, "gaddr == size",
	       ioctl(fd, DDSM_IOC_REGION, &ra));
	ra.gaddr = 0;
	ra.model = DDSM_MODEL_SCOPE;
	EXPECT(DDSM_IOC_REGION, ENODEV, "no pmem=",
	       ioctl(fd, DDSM_IOC_REGION, &ra));
}

/* The transactional regions: the last 17 units of the space. */
static uint64_t tx_base(const struct ddsm_status *st, int i)
{
	return st->size - (uint64_t)(DDSM_TX_MAX_REGIONS + 1 - i) * 2 * UNIT;
}

static int tx_arg(int fd, unsigned long cmd, uint64_t gaddr, void *buf,
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

static void tx_regions(int fd, const struct ddsm_status *st)
{
	struct ddsm_tx_region_arg r = { .gaddr = 1, .len = UNIT };
	volatile char *p;
	int i, ok = 1;

	EXPECT(DDSM_IOC_TX_REGION, EINVAL, "gaddr not unit aligned",
	       ioctl(fd, DDSM_IOC_TX_REGION, &r));
	r.gaddr = st->size;
	EXPECT(DDSM_IOC_TX_REGION, ERANGE, "gaddr == size",
	       ioctl(fd, DDSM_IOC_TX_REGION, &r));
	/* A unit cached here: map and touch it first. */
	p = mmap(NULL, UNIT, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 (off_t)tx_base(st, 0) - UNIT);
	if (p != MAP_FAILED) {
		p[0] = 1;
		munmap((void *)p, UNIT);
	}
	r.gaddr = tx_base(st, 0) - UNIT;
	EXPECT(DDSM_IOC_TX_REGION, EBUSY, "a unit cached here",
	       ioctl(fd, DDSM_IOC_TX_REGION, &r));
	/* Mapped, never touched: no copy yet, but its first fault makes one. */
	r.gaddr = tx_base(st, 0) - 2 * UNIT;
	p = mmap(NULL, UNIT, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 (off_t)r.gaddr);
	if (p == MAP_FAILED) {
		tap(0, "TX_REGION: mmap of a window left untouched: %s",
		    strerror(errno));
	} else {
		EXPECT(DDSM_IOC_TX_REGION, EBUSY, "a unit mapped, not touched",
		       ioctl(fd, DDSM_IOC_TX_REGION, &r));
		munmap((void *)p, UNIT);
	}
	/* 16 separate regions (a gap between each), then one more. */
	for (i = 0; i < DDSM_TX_MAX_REGIONS; i++) {
		r.gaddr = tx_base(st, i);
		ok &= !ioctl(fd, DDSM_IOC_TX_REGION, &r);
	}
	tap(ok, "control: %d separate transactional regions declared",
	    DDSM_TX_MAX_REGIONS);
	r.gaddr = tx_base(st, DDSM_TX_MAX_REGIONS);
	EXPECT(DDSM_IOC_TX_REGION, ENOSPC, "a 17th region",
	       ioctl(fd, DDSM_IOC_TX_REGION, &r));
}

/*
 * @victim reads X, then another file commits a write of X: the commit
 * squashes it, and its next call finds it aborted (ECANCELED).
 */
static int doomed(int victim, int other, uint64_t x)
{
	uint64_t v = 0;

	if (tx_arg(victim, DDSM_IOC_TX_BEGIN, 0, NULL, 0, NULL) ||
	    tx_arg(victim, DDSM_IOC_TX_READ, x, &v, 8, NULL) ||
	    tx_arg(other, DDSM_IOC_TX_BEGIN, 0, NULL, 0, NULL) ||
	    tx_arg(other, DDSM_IOC_TX_WRITE, x, &v, 8, NULL) ||
	    tx_arg(other, DDSM_IOC_TX_COMMIT, 0, NULL, 0, NULL))
		return -1;
	return 0;
}

static void tx_canceled(int fd, int other, const struct ddsm_status *st)
{
	static const unsigned long next[] = {
		DDSM_IOC_TX_READ, DDSM_IOC_TX_WRITE, DDSM_IOC_TX_COMMIT,
	};
	static const char *const names[] = {
		"DDSM_IOC_TX_READ", "DDSM_IOC_TX_WRITE", "DDSM_IOC_TX_COMMIT",
	};
	uint64_t x = tx_base(st, 0), v = 0;
	struct ddsm_tx_iov iov = { .gaddr = x, .buf = (uintptr_t)&v, .len = 8 };
	struct ddsm_tx_readv_arg rv = { .iov = (uintptr_t)&iov, .nr = 1 };
	uint32_t reason = 0;
	size_t i;
	long ret;

	for (i = 0; i < 3; i++) {
		if (doomed(fd, other, x)) {
			tap(0, "errno %s ECANCELED: setup: %s", names[i],
			    ename(errno));
			continue;
		}
		ret = tx_arg(fd, next[i], x, &v, 8, &reason);
		tap(ret == -1 && errno == ECANCELED && reason,
		    "errno %s ECANCELED: after a commit squashed it (got %s, reason %s)",
		    names[i], ret == -1 ? ename(errno) : "success",
		    ddsm_tx_reason_name(reason));
	}
	if (doomed(fd, other, x)) {
		tap(0, "errno DDSM_IOC_TX_READV ECANCELED: setup: %s",
		    ename(errno));
		return;
	}
	ret = ioctl(fd, DDSM_IOC_TX_READV, &rv);
	tap(ret == -1 && errno == ECANCELED && rv.reason,
	    "errno DDSM_IOC_TX_READV ECANCELED: after a commit squashed it (got %s)",
	    ret == -1 ? ename(errno) : "success");
}

/* OUTCOME of @txid on @fd: its return value, *@reason as copied out. */
static int outcome(int fd, uint64_t txid, uint32_t *reason)
{
	struct ddsm_tx_arg q = { .txid = txid };
	int ret = ioctl(fd, DDSM_IOC_TX_OUTCOME, &q);

	*reason = q.reason;
	return ret;
}

/*
 * DDSM_IOC_TX_OUTCOME on transactions of this node: one running on
 * another file (EINPROGRESS), then aborted (ECANCELED), one committed
 * (0), an id no node gave (ENOENT) and a malformed argument (EINVAL).
 * COMMIT's ETIMEDOUT, the reason OUTCOME exists, needs a home that stays
 * away: commit_timeout(), in the api component's cluster part.
 */
static void tx_outcome(int fd, int other, const struct ddsm_status *st)
{
	struct ddsm_tx_arg a = { 0 }, q = { .flags = 1 };
	uint64_t x = tx_base(st, 0), v = 7;
	uint32_t reason = 0;
	long ret;

	if (ioctl(other, DDSM_IOC_TX_BEGIN, &a) || !a.txid) {
		tap(0, "control: TX_BEGIN gives an id: %s", ename(errno));
		return;
	}
	EXPECT(DDSM_IOC_TX_OUTCOME, EINPROGRESS,
	       "a transaction still running on another file",
	       outcome(fd, a.txid, &reason));
	q.txid = a.txid;
	EXPECT(DDSM_IOC_TX_OUTCOME, EINVAL, "flags 1",
	       ioctl(fd, DDSM_IOC_TX_OUTCOME, &q));
	q.flags = 0;
	q.gaddr = x;
	EXPECT(DDSM_IOC_TX_OUTCOME, EINVAL, "gaddr not 0",
	       ioctl(fd, DDSM_IOC_TX_OUTCOME, &q));
	tx_arg(other, DDSM_IOC_TX_ABORT, 0, NULL, 0, NULL);
	ret = outcome(fd, a.txid, &reason);
	tap(ret == -1 && errno == ECANCELED && reason == DDSM_TX_TIMEOUT,
	    "errno DDSM_IOC_TX_OUTCOME ECANCELED: a transaction aborted (got %s, reason %s)",
	    ret == -1 ? ename(errno) : "success", ddsm_tx_reason_name(reason));
	EXPECT(DDSM_IOC_TX_OUTCOME, ENOENT, "txid 0",
	       outcome(fd, 0, &reason));
	/* This node's id with another node's number: not its to tell. */
	EXPECT(DDSM_IOC_TX_OUTCOME, ENOENT, "this id as another node's",
	       outcome(fd, a.txid ^ (1ull << 48), &reason));
	memset(&a, 0, sizeof(a));
	ret = ioctl(other, DDSM_IOC_TX_BEGIN, &a) ||
	      tx_arg(other, DDSM_IOC_TX_WRITE, x, &v, 8, NULL) ||
	      ioctl(other, DDSM_IOC_TX_COMMIT, &a);
	tap(!ret && a.txid && !outcome(fd, a.txid, &reason),
	    "control: DDSM_IOC_TX_OUTCOME of a committed transaction is 0 (%s)",
	    ret ? ename(errno) : "committed");
}

static void transactions(int fd, const struct ddsm_status *st)
{
	uint64_t x = tx_base(st, 0), v = 0;
	static char big[4096];
	struct ddsm_tx_readv_arg rv = { .nr = 0 };
	struct ddsm_tx_arg a = { .flags = 1 };
	int other = open_dev(), fds[64], i, n, ok;

	tx_regions(fd, st);
	EXPECT(DDSM_IOC_TX_READ, EINVAL, "no transaction",
	       tx_arg(fd, DDSM_IOC_TX_READ, x, &v, 8, NULL));
	EXPECT(DDSM_IOC_TX_READV, EINVAL, "no transaction",
	       ioctl(fd, DDSM_IOC_TX_READV, &rv));
	EXPECT(DDSM_IOC_TX_WRITE, EINVAL, "no transaction",
	       tx_arg(fd, DDSM_IOC_TX_WRITE, x, &v, 8, NULL));
	EXPECT(DDSM_IOC_TX_COMMIT, EINVAL, "no transaction",
	       tx_arg(fd, DDSM_IOC_TX_COMMIT, 0, NULL, 0, NULL));
	EXPECT(DDSM_IOC_TX_ABORT, EINVAL, "no transaction",
	       tx_arg(fd, DDSM_IOC_TX_ABORT, 0, NULL, 0, NULL));
	EXPECT(DDSM_IOC_TX_BEGIN, EINVAL, "flags 1",
	       ioctl(fd, DDSM_IOC_TX_BEGIN, &a));
	if (tx_arg(fd, DDSM_IOC_TX_BEGIN, 0, NULL, 0, NULL)) {
		tap(0, "control: TX_BEGIN: %s", ename(errno));
		return;
	}
	EXPECT(DDSM_IOC_TX_BEGIN, EBUSY, "a transaction running",
	       tx_arg(fd, DDSM_IOC_TX_BEGIN, 0, NULL, 0, NULL));
	EXPECT(DDSM_IOC_TX_READV, EINVAL, "nr 0",
	       ioctl(fd, DDSM_IOC_TX_READV, &rv));
	/* 64 writes of a byte are the most; the 65th is refused. */
	for (i = 0, ok = 1; i < DDSM_TX_MAX_WRITES; i++)
		ok &= !tx_arg(fd, DDSM_IOC_TX_WRITE, x + i, &v, 1, NULL);
	tap(ok, "control: %d one-byte writes buffered", DDSM_TX_MAX_WRITES);
	EXPECT(DDSM_IOC_TX_WRITE, E2BIG, "a 65th write",
	       tx_arg(fd, DDSM_IOC_TX_WRITE, x, &v, 1, NULL));
	tx_arg(fd, DDSM_IOC_TX_ABORT, 0, NULL, 0, NULL);
	/* Two 2 KiB writes at one home do not fit in one 4 KiB Intend. */
	ok = !tx_arg(fd, DDSM_IOC_TX_BEGIN, 0, NULL, 0, NULL) &&
	     !tx_arg(fd, DDSM_IOC_TX_WRITE, x, big, 2048, NULL) &&
	     !tx_arg(fd, DDSM_IOC_TX_WRITE, x + 2048, big, 2048, NULL);
	tap(ok, "control: two 2 KiB writes to one unit buffered");
	EXPECT(DDSM_IOC_TX_COMMIT, E2BIG, "4 KiB of writes and headers at one home",
	       tx_arg(fd, DDSM_IOC_TX_COMMIT, 0, NULL, 0, NULL));
	tx_arg(fd, DDSM_IOC_TX_ABORT, 0, NULL, 0, NULL);
	tx_canceled(fd, other, st);
	tx_outcome(fd, other, st);
	/* Every slot of the node taken, one file each. */
	for (n = 0; n < 64; n++) {
		fds[n] = open_dev();
		if (tx_arg(fds[n], DDSM_IOC_TX_BEGIN, 0, NULL, 0, NULL))
			break;
	}
	EXPECT(DDSM_IOC_TX_BEGIN, EAGAIN, "every transaction slot taken",
	       n < 64 ? -1 : tx_arg(fd, DDSM_IOC_TX_BEGIN, 0, NULL, 0, NULL));
	for (i = 0; i <= n && i < 64; i++)
		close(fds[i]);
	tx_arg(fd, DDSM_IOC_TX_ABORT, 0, NULL, 0, NULL);
	close(other);
}

static int run_common(void)
{
	struct ddsm_status st;
	int fd = open_dev();

	if (ioctl(fd, DDSM_IOC_STATUS, &st)) {
		printf("Bail out! node%d: STATUS: %s\n", node, ename(errno));
		return 1;
	}
	every_ioctl(fd);
	queries(fd, &st);
	configure(fd);
	persistence_without_pmem(fd, &st);
	transactions(fd, &st);
	configure_ebusy(fd);
	close(fd);
	return 0;
}

/* The self-test build's knob: the next @n writes to the media fail. */
static int pmem_fail(int n)
{
	FILE *f = fopen("/sys/module/ddsm/parameters/test_pmem_fail", "w");
	int ret;

	if (!f)
		return -1;
	ret = fprintf(f, "%d\n", n) < 0;
	return fclose(f) || ret ? -1 : 0;
}

/*
 * EIO of REGION and PERSIST: a media write that fails (test_pmem_fail).
 * The flusher may meet the failure first (a unit dirty here is flushed
 * within pmem_flush_ms), so PERSIST is tried a few times.
 */
static void media_errors(int fd)
{
	struct ddsm_region_arg ra = { .gaddr = 32 * UNIT, .len = UNIT,
				      .model = DDSM_MODEL_SYNC };
	struct ddsm_persist_arg pa = { .gaddr = 40 * UNIT, .len = UNIT };
	volatile char *p;
	long r = -1;
	int i, err = 0;

	if (pmem_fail(1)) {
		tap(0, "control: test_pmem_fail set (%s)", ename(errno));
		return;
	}
	EXPECT(DDSM_IOC_REGION, EIO, "its table entry could not be written",
	       ioctl(fd, DDSM_IOC_REGION, &ra));
	pmem_fail(0);
	p = mmap(NULL, UNIT, PROT_READ | PROT_WRITE, MAP_SHARED, fd, pa.gaddr);
	for (i = 0; p != MAP_FAILED && i < 5 && err != EIO; i++) {
		p[i] = (char)(i + 1);
		pmem_fail(1);
		r = ioctl(fd, DDSM_IOC_PERSIST, &pa);
		err = r ? errno : 0;
		pmem_fail(0);
	}
	if (p != MAP_FAILED)
		munmap((void *)p, UNIT);
	errno = err;
	EXPECT(DDSM_IOC_PERSIST, EIO, "the unit's image could not be written",
	       r);
	tap(!ioctl(fd, DDSM_IOC_PERSIST, &pa),
	    "control: the same PERSIST once the media works again");
}

/* DDSM_IOC_REGION on a node with a fresh pmem= namespace. */
static int run_pmem(void)
{
	struct ddsm_region_arg ra = { .gaddr = 0, .len = 4 * UNIT,
				      .model = 9 };
	volatile char *p;
	int fd = open_dev(), i, ok = 1;

	EXPECT(DDSM_IOC_REGION, EINVAL, "model 9",
	       ioctl(fd, DDSM_IOC_REGION, &ra));
	ra.model = DDSM_MODEL_SCOPE;
	tap(!ioctl(fd, DDSM_IOC_REGION, &ra), "control: a Scope region of 4 units");
	ra.gaddr = 2 * UNIT;
	EXPECT(DDSM_IOC_REGION, EEXIST, "overlapping the first",
	       ioctl(fd, DDSM_IOC_REGION, &ra));
	p = mmap(NULL, UNIT, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 16 * UNIT);
	if (p != MAP_FAILED) {
		p[0] = 1;
		munmap((void *)p, UNIT);
	}
	ra.gaddr = 16 * UNIT;
	ra.len = UNIT;
	EXPECT(DDSM_IOC_REGION, EBUSY, "a unit touched here",
	       ioctl(fd, DDSM_IOC_REGION, &ra));
	media_errors(fd);
	/* 63 more one-unit regions fill the table of 64. */
	for (i = 0; i < 63; i++) {
		ra.gaddr = (uint64_t)(64 + 2 * i) * UNIT;
		ok &= !ioctl(fd, DDSM_IOC_REGION, &ra);
	}
	tap(ok, "control: 64 regions in the table");
	ra.gaddr = 1024 * UNIT;
	EXPECT(DDSM_IOC_REGION, ENOSPC, "a 65th region",
	       ioctl(fd, DDSM_IOC_REGION, &ra));
	close(fd);
	return 0;
}

static uint64_t num(const char *s)
{
	uint64_t v;

	if (ddsm_parse_size(s, &v)) {
		fprintf(stderr, "bad number %s\n", s);
		exit(2);
	}
	return v;
}

static volatile uint64_t *word(struct ddsm *h, uint64_t gaddr)
{
	volatile uint64_t *p = ddsm_map(h, gaddr & ~(UNIT - 1), UNIT,
					 PROT_READ | PROT_WRITE);

	if (!p) {
		printf("Bail out! node%d: map %#llx: %s\n", node,
		       (unsigned long long)gaddr, ename(errno));
		exit(1);
	}
	return p + (gaddr & (UNIT - 1)) / 8;
}

/* PERSIST on GADDR's unit until @want, for at most 30 s. */
static int persist_until(int want, uint32_t flags, uint64_t gaddr)
{
	struct ddsm_persist_arg pa = {
		.gaddr = gaddr & ~(UNIT - 1), .len = UNIT, .flags = flags,
	};
	int fd = open_dev(), last = 0, tries = 0;
	time_t end = time(NULL) + 30;

	while (time(NULL) < end) {
		tries++;
		last = ioctl(fd, DDSM_IOC_PERSIST, &pa) ? errno : 0;
		if (last == want)
			break;
		usleep(100000);
	}
	tap(last == want, "errno DDSM_IOC_PERSIST %s: %s (last %s, %d tries)",
	    ename(want), want == ETIMEDOUT ?
	    "a home frozen past fault_timeout_ms" :
	    "a dirty copy whose home went away", ename(last), tries);
	close(fd);
	return last == want ? 0 : 1;
}

/* The highest unit homed on @home: a transactional region on every node. */
static uint64_t unit_of(int fd, uint32_t home)
{
	struct ddsm_status st;
	struct ddsm_home_query q = { 0 };
	uint64_t u;

	if (ioctl(fd, DDSM_IOC_STATUS, &st))
		return 0;
	for (u = st.size / UNIT - 1; u > 0; u--) {
		q.gaddr = u * UNIT;
		if (!ioctl(fd, DDSM_IOC_HOME, &q) && q.home == home)
			return q.gaddr;
	}
	return 0;
}

static int tx_region_at(uint32_t home)
{
	int fd = open_dev();
	struct ddsm_tx_region_arg r = { .gaddr = unit_of(fd, home), .len = UNIT };
	int ret = r.gaddr ? ioctl(fd, DDSM_IOC_TX_REGION, &r) : -1;

	tap(!ret, "control: a transactional region at %#llx (homed on node %u): %s",
	    (unsigned long long)r.gaddr, home, ret ? ename(errno) : "declared");
	close(fd);
	return !!ret;
}

/*
 * COMMIT's ETIMEDOUT: commits to a unit of @home, one after another,
 * while the host freezes that node (tests/vm/api/during.sh) past six
 * times fault_timeout_ms, so one commit gives up waiting for its answer.
 * Not undone: once the home is back, OUTCOME says committed and the
 * value is there.
 */
static int commit_timeout(uint32_t home)
{
	int fd = open_dev(), ret = -1, err = 0;
	uint64_t x = unit_of(fd, home), v = 0, got = 0;
	struct ddsm_tx_arg a;
	uint32_t reason = 0;
	time_t end = time(NULL) + 60;

	while (x && time(NULL) < end) {
		memset(&a, 0, sizeof(a));
		v++;
		ret = ioctl(fd, DDSM_IOC_TX_BEGIN, &a) ||
		      tx_arg(fd, DDSM_IOC_TX_WRITE, x, &v, 8, NULL) ||
		      ioctl(fd, DDSM_IOC_TX_COMMIT, &a);
		err = ret ? errno : 0;
		if (err == ETIMEDOUT)
			break;
		tx_arg(fd, DDSM_IOC_TX_ABORT, 0, NULL, 0, NULL);
		usleep(20000);
	}
	if (err != ETIMEDOUT) {
		tap(0, "errno DDSM_IOC_TX_COMMIT ETIMEDOUT: a home frozen past 6 x fault_timeout_ms (last %s)",
		    ename(err));
		close(fd);
		return 1;
	}
	end = time(NULL) + 60;
	while ((ret = outcome(fd, a.txid, &reason)) == -1 &&
	       errno == EINPROGRESS && time(NULL) < end)
		usleep(100000);
	err = ret ? errno : 0;
	memset(&a, 0, sizeof(a));
	if (!ioctl(fd, DDSM_IOC_TX_BEGIN, &a) &&
	    !tx_arg(fd, DDSM_IOC_TX_READ, x, &got, 8, NULL))
		ioctl(fd, DDSM_IOC_TX_COMMIT, &a);
	tap(!err && got == v,
	    "errno DDSM_IOC_TX_COMMIT ETIMEDOUT: a home frozen past 6 x fault_timeout_ms; then TX_OUTCOME %s, the value written %s (%llu, want %llu)",
	    err ? ename(err) : "0 (committed)", got == v ? "there" : "lost",
	    (unsigned long long)got, (unsigned long long)v);
	close(fd);
	return err || got != v;
}

int main(int argc, char **argv)
{
	struct ddsm *h = ddsm_open(NULL);
	volatile uint64_t *w;
	time_t end;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!h) {
		printf("Bail out! open %s: %s\n", DEV, strerror(errno));
		return 1;
	}
	node = (int)ddsm_node_id(h);
	if (argc == 2 && !strcmp(argv[1], "common")) {
		run_common();
	} else if (argc == 2 && !strcmp(argv[1], "pmem")) {
		run_pmem();
	} else if (argc == 3 && !strcmp(argv[1], "dirty")) {
		w = word(h, num(argv[2]));
		*w += 1;
		tap(1, "stored into %s", argv[2]);
	} else if (argc == 3 && !strcmp(argv[1], "flag-set")) {
		w = word(h, num(argv[2]));
		__atomic_store_n(w, 1, __ATOMIC_RELEASE);
	} else if (argc == 4 && !strcmp(argv[1], "flag-wait")) {
		w = word(h, num(argv[2]));
		end = time(NULL) + (time_t)num(argv[3]);
		while (!__atomic_load_n(w, __ATOMIC_ACQUIRE) && time(NULL) < end)
			usleep(20000);
		tap(*w != 0, "flag %s set by another node", argv[2]);
	} else if (argc == 3 && !strcmp(argv[1], "persist-timeout")) {
		persist_until(ETIMEDOUT, DDSM_PERSIST_ALL, num(argv[2]));
	} else if (argc == 3 && !strcmp(argv[1], "tx-region")) {
		return tx_region_at((uint32_t)num(argv[2]));
	} else if (argc == 3 && !strcmp(argv[1], "commit-timeout")) {
		return commit_timeout((uint32_t)num(argv[2]));
	} else if (argc == 3 && !strcmp(argv[1], "persist-hostdown")) {
		persist_until(EHOSTDOWN, 0, num(argv[2]));
	} else {
		fprintf(stderr, "usage: ddsm-test-errnos common | pmem | dirty GADDR | flag-set GADDR | flag-wait GADDR SECONDS | tx-region HOME | commit-timeout HOME | persist-timeout GADDR | persist-hostdown GADDR\n");
		return 2;
	}
	/* Mappings made through @h stay until exit: the units stay cached. */
	ddsm_close(h);
	return failed ? 1 : 0;
}
