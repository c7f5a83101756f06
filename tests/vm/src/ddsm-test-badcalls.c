// SPDX-License-Identifier: GPL-2.0
/*
 * ddsm-test-badcalls: every call the ABI forbids must fail with exactly the
 * errno <linux/ddsm.h> documents, and the neighbouring legal calls must
 * succeed (otherwise "fails with EINVAL" proves nothing).
 *
 * usage: ddsm-test-badcalls [-d DEVICE]
 * Output is TAP-like: "ok - <desc>" / "not ok - <desc>" per check, "#"
 * lines for diagnostics.  Exit 0 iff every check passed.
 *
 * mmap goes through syscall(SYS_mmap) rather than glibc's mmap(), because
 * glibc rejects a misaligned offset itself and we want the kernel's answer.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <termios.h>
#include <unistd.h>

#include "libddsm.h"
#include "test_common.h"

#define UNIT	DDSM_UNIT_SIZE


static const char *ename(int err)
{
	const char *n = err ? strerrorname_np(err) : "success";

	return n ? n : "E?";
}

/* Record a call that had to fail with @want: @failed says it did fail. */
static void expect_err(const char *desc, bool failed, int err, int want)
{
	if (!failed)
		tap(false, "%s: succeeded, expected %s", desc, ename(want));
	else if (err != want)
		tap(false, "%s: got %s, expected %s", desc, ename(err),
		    ename(want));
	else
		tap(true, "%s -> %s", desc, ename(want));
}

static void *raw_mmap(size_t len, int prot, int flags, int fd, uint64_t off)
{
	return (void *)syscall(SYS_mmap, NULL, len, prot, flags, fd, off);
}

static void bad_map(const char *desc, int want, int fd, uint64_t off,
		    size_t len, int prot, int flags)
{
	void *p = raw_mmap(len, prot, flags, fd, off);
	int err = errno;

	if (p != MAP_FAILED)
		munmap(p, len);
	expect_err(desc, p == MAP_FAILED, err, want);
}

static void bad_ioctl(const char *desc, int want, int fd, unsigned long cmd,
		      void *arg)
{
	int ret = ioctl(fd, cmd, arg);

	expect_err(desc, ret < 0, errno, want);
}

static void test_mmap(struct ddsm *d, const struct ddsm_status *st,
		      const char *dev)
{
	int fd = d->fd;
	uint64_t size = st->size;
	char *p, *last;
	int rofd, rc, err;

	/* Controls: legal windows at both ends of the space. */
	p = raw_mmap(UNIT, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	tap(p != MAP_FAILED, "control: map [0, 4K) read-write (%s)",
	    p == MAP_FAILED ? ename(errno) : "mapped");
	if (p != MAP_FAILED) {
		p[17] = 0x5a;
		tap(((volatile char *)p)[17] == 0x5a,
		    "control: store to a fresh mapping reads back");
	}
	last = raw_mmap(UNIT, PROT_READ, MAP_SHARED, fd, size - UNIT);
	tap(last != MAP_FAILED, "control: map the last unit [size-4K, size) (%s)",
	    last == MAP_FAILED ? ename(errno) : "mapped");
	if (last != MAP_FAILED)
		munmap(last, UNIT);

	/*
	 * MAP_SHARED on a read-only descriptor is still MAP_SHARED: the kernel
	 * drops VM_SHARED but keeps VM_MAYSHARE, and a module testing the
	 * former would wrongly see a private mapping here.
	 */
	rofd = open(dev, O_RDONLY | O_CLOEXEC);
	tap(rofd >= 0, "control: open O_RDONLY (%s)",
	    rofd < 0 ? ename(errno) : "opened");
	if (rofd >= 0) {
		void *q = raw_mmap(UNIT, PROT_READ, MAP_SHARED, rofd, 0);

		tap(q != MAP_FAILED,
		    "control: O_RDONLY fd, MAP_SHARED PROT_READ accepted (%s)",
		    q == MAP_FAILED ? ename(errno) : "mapped");
		if (q != MAP_FAILED)
			munmap(q, UNIT);
		close(rofd);
	}
	bad_map("mmap MAP_PRIVATE", EINVAL, fd, 0, UNIT,
		PROT_READ | PROT_WRITE, MAP_PRIVATE);
	bad_map("mmap offset 2048 (not unit aligned)", EINVAL, fd, 2048, UNIT,
		PROT_READ, MAP_SHARED);
	bad_map("mmap length 0", EINVAL, fd, 0, 0, PROT_READ, MAP_SHARED);
	bad_map("mmap offset == size", ENXIO, fd, size, UNIT, PROT_READ,
		MAP_SHARED);
	bad_map("mmap [size-4K, size+4K) crosses the end", ENXIO, fd,
		size - UNIT, 2 * UNIT, PROT_READ, MAP_SHARED);
	bad_map("mmap [0, size+4K) longer than the space", ENXIO, fd, 0,
		size + UNIT, PROT_READ, MAP_SHARED);
	bad_map("mmap offset 2^63 (far outside, no wrap)", ENXIO, fd,
		1ULL << 63, UNIT, PROT_READ, MAP_SHARED);
	/*
	 * offset + len wrapping past 2^64 never reaches the module: for a
	 * character device do_mmap() calls file_mmap_ok(), which limits
	 * offset + len to ULONG_MAX and returns EOVERFLOW (checked against
	 * /dev/zero, same path).  So EOVERFLOW is the real rule; ENXIO here
	 * would mean the module set FMODE_UNSIGNED_OFFSET, which it must
	 * not, and EINVAL would mean a different kernel check fired.
	 */
	bad_map("mmap [2^64-4K, +8K) wraps 2^64", EOVERFLOW, fd,
		UINT64_MAX - UNIT + 1, 2 * UNIT, PROT_READ, MAP_SHARED);
	bad_map("mmap PROT_READ|PROT_EXEC", EPERM, fd, 0, UNIT,
		PROT_READ | PROT_EXEC, MAP_SHARED);

	if (p == MAP_FAILED) {
		tap(false, "mprotect checks skipped: no valid mapping");
		return;
	}
	tap(mprotect(p, UNIT, PROT_READ) == 0,
	    "control: mprotect(PROT_READ) on a ddsm mapping");
	tap(mprotect(p, UNIT, PROT_READ | PROT_WRITE) == 0,
	    "control: mprotect back to PROT_READ|PROT_WRITE");
	/*
	 * The module clears VM_MAYEXEC, so mprotect refuses the upgrade.
	 * Call first, then read errno: argument order is unspecified.
	 */
	rc = mprotect(p, UNIT, PROT_READ | PROT_EXEC);
	err = errno;
	expect_err("mprotect(PROT_READ|PROT_EXEC) on a ddsm mapping",
		   rc != 0, err, EACCES);
	munmap(p, UNIT);
}

static void test_ioctl(struct ddsm *d, const struct ddsm_status *st)
{
	struct ddsm_peer_info pi;
	struct ddsm_home_query q;
	bool self_found = false;
	void *gone, *ro;
	int fd = d->fd;
	uint32_t i;

	/* Controls: every peer index and both ends of the space answer. */
	for (i = 0; i < st->nr_nodes; i++) {
		if (ddsm_peer(d, i, &pi)) {
			tap(false, "control: PEER index %u: %s", i,
			    ename(errno));
			continue;
		}
		if (pi.node_id == st->node_id)
			self_found = pi.state == DDSM_PEER_SELF;
	}
	tap(self_found, "control: PEER reports this node (%u) as self",
	    st->node_id);
	if (st->nr_nodes == 1) {
		tap(ddsm_peer(d, 0, &pi) == 0 && pi.node_id == 0 &&
		    pi.state == DDSM_PEER_SELF,
		    "control: one node: PEER 0 is node 0, state self");
	}
	tap(ddsm_home(d, 0, &q) == 0 && q.unit == 0 && q.home < DDSM_MAX_NODES,
	    "control: HOME gaddr 0 -> unit 0");
	tap(ddsm_home(d, st->size - 1, &q) == 0 &&
	    q.unit == (st->size - 1) >> DDSM_UNIT_SHIFT &&
	    (st->nr_nodes != 1 || q.home == st->node_id),
	    "control: HOME gaddr size-1 -> last unit%s",
	    st->nr_nodes == 1 ? ", home is this node" : "");

	bad_ioctl("ioctl unknown command _IO(0xDD, 0x7f)", ENOTTY, fd,
		  _IO(DDSM_IOC_MAGIC, 0x7f), NULL);
	bad_ioctl("ioctl TCGETS (foreign command, as isatty() sends)", ENOTTY,
		  fd, TCGETS, &(struct termios){ 0 });

	/* A page that was just unmapped is as bad a pointer as it gets. */
	gone = mmap(NULL, UNIT, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ro = mmap(NULL, UNIT, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (gone == MAP_FAILED || ro == MAP_FAILED) {
		tap(false, "setup: anonymous pages for bad pointers: %s",
		    ename(errno));
		return;
	}
	munmap(gone, UNIT);
	bad_ioctl("STATUS with an unmapped pointer", EFAULT, fd,
		  DDSM_IOC_STATUS, gone);
	bad_ioctl("PEER with an unmapped pointer", EFAULT, fd,
		  DDSM_IOC_PEER, gone);
	bad_ioctl("HOME with an unmapped pointer", EFAULT, fd,
		  DDSM_IOC_HOME, gone);
	/*
	 * A read-only page of zeroes is a valid request (index 0, gaddr 0),
	 * so these only fail if the module checks its copy_to_user().
	 */
	bad_ioctl("STATUS into a read-only page", EFAULT, fd,
		  DDSM_IOC_STATUS, ro);
	bad_ioctl("PEER index 0 from a read-only page", EFAULT, fd,
		  DDSM_IOC_PEER, ro);
	bad_ioctl("HOME gaddr 0 from a read-only page", EFAULT, fd,
		  DDSM_IOC_HOME, ro);
	munmap(ro, UNIT);

	memset(&pi, 0, sizeof(pi));
	pi.flags = 1;
	bad_ioctl("PEER flags 1", EINVAL, fd, DDSM_IOC_PEER, &pi);
	memset(&pi, 0, sizeof(pi));
	pi.index = st->nr_nodes;
	bad_ioctl("PEER index == nr_nodes", ERANGE, fd, DDSM_IOC_PEER, &pi);
	pi.index = DDSM_MAX_NODES;
	bad_ioctl("PEER index DDSM_MAX_NODES", ERANGE, fd, DDSM_IOC_PEER, &pi);
	pi.index = UINT32_MAX;
	bad_ioctl("PEER index 2^32-1", ERANGE, fd, DDSM_IOC_PEER, &pi);

	memset(&q, 0, sizeof(q));
	q.flags = 1;
	bad_ioctl("HOME flags 1", EINVAL, fd, DDSM_IOC_HOME, &q);
	memset(&q, 0, sizeof(q));
	q.reserved = 1;
	bad_ioctl("HOME reserved 1", EINVAL, fd, DDSM_IOC_HOME, &q);
	memset(&q, 0, sizeof(q));
	q.gaddr = st->size;
	bad_ioctl("HOME gaddr == size", ERANGE, fd, DDSM_IOC_HOME, &q);
	q.gaddr = UINT64_MAX;
	bad_ioctl("HOME gaddr 2^64-1", ERANGE, fd, DDSM_IOC_HOME, &q);
}

int main(int argc, char **argv)
{
	const char *dev = NULL;
	struct ddsm_status st0, st1;
	struct ddsm d;
	int opt;

	while ((opt = getopt(argc, argv, "d:h")) != -1) {
		switch (opt) {
		case 'd':
			dev = optarg;
			break;
		default:
			fprintf(stderr, "usage: %s [-d DEVICE]\n", argv[0]);
			return opt == 'h' ? 0 : 2;
		}
	}

	printf("# ddsm-test-badcalls on %s\n", dev ? dev : DDSM_DEFAULT_PATH);
	if (ddsm_open(&d, dev)) {
		tap(false, "open %s: %s (%s)", dev ? dev : DDSM_DEFAULT_PATH,
		    strerror(errno), ename(errno));
		return 1;
	}
	tap(ddsm_status(&d, &st0) == 0, "control: STATUS ioctl");
	tap(st0.abi_version == DDSM_ABI_VERSION &&
	    st0.unit_size == DDSM_UNIT_SIZE && st0.nr_nodes >= 1 &&
	    st0.size >= 2 * UNIT && st0.size % UNIT == 0,
	    "control: STATUS geometry sane (abi %u, unit %u, size %" PRIu64
	    ", %u nodes)", st0.abi_version, st0.unit_size,
	    (uint64_t)st0.size, st0.nr_nodes);

	test_mmap(&d, &st0, dev ? dev : DDSM_DEFAULT_PATH);
	test_ioctl(&d, &st0);

	/* Every mapping above is gone; a failed mmap must not leak a count. */
	if (ddsm_status(&d, &st1) == 0)
		tap(st1.mappings == st0.mappings,
		    "mappings back to %" PRIu64 " after all calls (now %" PRIu64
		    ")", (uint64_t)st0.mappings, (uint64_t)st1.mappings);
	else
		tap(false, "final STATUS: %s", ename(errno));
	ddsm_close(&d);

	printf("# badcalls: %d checks, %d failed\n", tap_checks, tap_failed);
	return tap_failed ? 1 : 0;
}
