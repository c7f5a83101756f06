// SPDX-License-Identifier: GPL-2.0
/*
 * ddsm-test-unbuilt - the node a failed DDSM_IOC_CONFIGURE leaves behind.
 *
 *   ddsm-test-unbuilt [-d DEV] broken
 *	the node is unbuilt (its rebuild and the fallback to one node both
 *	failed, test_fail_build=2): STATUS still answers; TX_BEGIN, REGION,
 *	PERSIST, PEER, HOME, TX_STATUS and mmap fail with EIO
 *   ddsm-test-unbuilt [-d DEV] built
 *	a later CONFIGURE succeeded: STATUS and HOME answer, mmap works and
 *	a unit written through it reads back
 *
 * Raw ioctls on the device, not libddsm: the point is what each call
 * returns.  TAP lines; exit 0 iff every check passed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <linux/ddsm.h>
#include "test_common.h"

/* ioctl @cmd on @fd must fail with EIO. */
static void expect_eio(int fd, const char *name, unsigned long cmd, void *arg)
{
	int ret = ioctl(fd, cmd, arg);
	int err = errno;

	tap(ret < 0 && err == EIO, "unbuilt: %s fails with EIO (ret %d, %s)",
	    name, ret, ret < 0 ? strerror(err) : "no error");
}

static void check_broken(int fd)
{
	struct ddsm_tx_arg tx;
	struct ddsm_region_arg ra;
	struct ddsm_persist_arg pa;
	struct ddsm_peer_info pi;
	struct ddsm_home_query q;
	struct ddsm_tx_status ts;
	void *p;

	memset(&tx, 0, sizeof(tx));
	expect_eio(fd, "DDSM_IOC_TX_BEGIN", DDSM_IOC_TX_BEGIN, &tx);
	memset(&ra, 0, sizeof(ra));
	ra.flags = DDSM_REGION_GET;
	expect_eio(fd, "DDSM_IOC_REGION (get)", DDSM_IOC_REGION, &ra);
	memset(&pa, 0, sizeof(pa));
	pa.len = DDSM_UNIT_SIZE;
	expect_eio(fd, "DDSM_IOC_PERSIST", DDSM_IOC_PERSIST, &pa);
	memset(&pi, 0, sizeof(pi));
	expect_eio(fd, "DDSM_IOC_PEER", DDSM_IOC_PEER, &pi);
	memset(&q, 0, sizeof(q));
	expect_eio(fd, "DDSM_IOC_HOME", DDSM_IOC_HOME, &q);
	expect_eio(fd, "DDSM_IOC_TX_STATUS", DDSM_IOC_TX_STATUS, &ts);

	errno = 0;
	p = mmap(NULL, DDSM_UNIT_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
		 fd, 0);
	tap(p == MAP_FAILED && errno == EIO,
	    "unbuilt: mmap of /dev/ddsm fails with EIO (%s)",
	    p == MAP_FAILED ? strerror(errno) : "it was mapped");
	if (p != MAP_FAILED)
		munmap(p, DDSM_UNIT_SIZE);
}

static void check_built(int fd)
{
	struct ddsm_home_query q;
	volatile unsigned char *p;
	int ret;

	memset(&q, 0, sizeof(q));
	ret = ioctl(fd, DDSM_IOC_HOME, &q);
	tap(ret == 0 && q.home == 0,
	    "rebuilt: DDSM_IOC_HOME answers again (ret %d, home %u)", ret,
	    q.home);
	p = mmap(NULL, DDSM_UNIT_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
		 fd, 0);
	tap(p != MAP_FAILED, "rebuilt: mmap of /dev/ddsm works again (%s)",
	    p == MAP_FAILED ? strerror(errno) : "mapped");
	if (p == MAP_FAILED)
		return;
	p[0] = 0x5a;
	p[DDSM_UNIT_SIZE - 1] = 0xa5;
	tap(p[0] == 0x5a && p[DDSM_UNIT_SIZE - 1] == 0xa5,
	    "rebuilt: a unit written through the mapping reads back");
	munmap((void *)p, DDSM_UNIT_SIZE);
}

int main(int argc, char **argv)
{
	const char *dev = "/dev/ddsm", *mode;
	struct ddsm_status st;
	int fd, ret, argi = 1;

	if (argc == 4 && !strcmp(argv[1], "-d")) {
		dev = argv[2];
		argi = 3;
	}
	if (argi != argc - 1 || (strcmp(argv[argi], "broken") &&
				 strcmp(argv[argi], "built"))) {
		fprintf(stderr, "usage: %s [-d DEV] broken|built\n", argv[0]);
		return 2;
	}
	mode = argv[argi];
	fd = open(dev, O_RDWR);
	if (fd < 0) {
		tap(0, "open %s: %s", dev, strerror(errno));
		return 1;
	}
	memset(&st, 0, sizeof(st));
	ret = ioctl(fd, DDSM_IOC_STATUS, &st);
	tap(ret == 0 && st.abi_version == DDSM_ABI_VERSION && st.nr_nodes == 1,
	    "%s: DDSM_IOC_STATUS works (ret %d, abi %u, %u node)", mode, ret,
	    st.abi_version, st.nr_nodes);
	if (!strcmp(mode, "broken"))
		check_broken(fd);
	else
		check_built(fd);
	close(fd);
	return tap_failed ? 1 : 0;
}
