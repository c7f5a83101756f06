// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The calls on a descriptor that both APIs make: each is one system call
 * (ddsm_write_durable()'s copy aside), errno passed through untouched so
 * that callers see exactly what the module decided.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "internal.h"

int lddsm_open_fd(const char *path, struct ddsm_status *st)
{
	int fd, err;

	fd = open(path ? path : "/dev/" DDSM_DEV_NAME, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -1;
	/* Reading the status both proves the device is ddsm and sizes it. */
	if (ioctl(fd, DDSM_IOC_STATUS, st) < 0)
		goto fail;
	if (st->abi_version < LDDSM_MIN_ABI) {
		errno = EPROTO;
		goto fail;
	}
	return fd;
fail:
	err = errno;
	close(fd);
	errno = err;
	return -1;
}

int lddsm_query(int fd, unsigned long cmd, const void *in, size_t in_len,
		void *out, size_t size)
{
	/* As large as the largest query structure of this build's header. */
	union {
		struct ddsm_status st;
		struct ddsm_peer_info pi;
		struct ddsm_home_query q;
		struct ddsm_pmem_status ps;
		struct ddsm_tx_status ts;
	} u;
	size_t have = _IOC_SIZE(cmd);

	if (!out || have > sizeof(u))
		return lddsm_einval();
	memset(&u, 0, sizeof(u));
	if (in)
		memcpy(&u, in, in_len < have ? in_len : have);
	if (ioctl(fd, cmd, &u) < 0)
		return -1;
	if (size > have) {
		/* Fields of a newer header than ours: the module sent none. */
		memset((char *)out + have, 0, size - have);
		size = have;
	}
	memcpy(out, &u, size);
	return 0;
}

int lddsm_persist(int fd, uint64_t gaddr, uint64_t len, uint32_t flags)
{
	struct ddsm_persist_arg a = {
		.gaddr = gaddr, .len = len, .flags = flags,
	};

	return ioctl(fd, DDSM_IOC_PERSIST, &a) < 0 ? -1 : 0;
}

int lddsm_durable(int fd, uint64_t gaddr, size_t len)
{
	uint64_t first, end;

	if (!len || gaddr + len < gaddr)
		return lddsm_einval();
	first = gaddr & ~(DDSM_UNIT_SIZE - 1);
	end = gaddr + len;
	if (end & (DDSM_UNIT_SIZE - 1))
		end = (end | (DDSM_UNIT_SIZE - 1)) + 1;
	/* ALL: also a unit another node took between the store and here. */
	return lddsm_persist(fd, first, end - first, DDSM_PERSIST_ALL);
}

int lddsm_region_set(int fd, uint64_t gaddr, uint64_t len, uint32_t model)
{
	struct ddsm_region_arg a = {
		.gaddr = gaddr, .len = len, .model = model,
	};

	return ioctl(fd, DDSM_IOC_REGION, &a) < 0 ? -1 : 0;
}

int lddsm_region_get(int fd, uint64_t gaddr, uint32_t *model)
{
	struct ddsm_region_arg a = {
		.gaddr = gaddr, .flags = DDSM_REGION_GET,
	};

	if (!model)
		return lddsm_einval();
	if (ioctl(fd, DDSM_IOC_REGION, &a) < 0)
		return -1;
	*model = a.model;
	return 0;
}

int lddsm_configure(int fd, uint32_t node_id, const char *nodes)
{
	struct ddsm_config c;

	if (!nodes)
		return lddsm_einval();
	memset(&c, 0, sizeof(c));
	if (strlen(nodes) >= sizeof(c.nodes)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	c.node_id = node_id;
	strcpy(c.nodes, nodes);
	return ioctl(fd, DDSM_IOC_CONFIGURE, &c) < 0 ? -1 : 0;
}
