// SPDX-License-Identifier: GPL-2.0
/*
 * The module answers the ioctl numbers of earlier ABIs.  A structure's
 * size is part of its ioctl number, so a program built against an older
 * header asks with an older number; the module must answer it with the
 * fields that ABI had, writing no byte past them.  The sizes below are
 * those of every earlier DDSM_ABI_VERSION of include/uapi/linux/ddsm.h
 * (git history, 1 to 10); one check per size.  TAP lines; exit 0 iff
 * all ok.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/ddsm.h>

#define CANARY	0xa5

static const struct {
	const char *name;
	unsigned int nr, dir, size, abi;
} old[] = {
	{ "DDSM_IOC_STATUS", 0x01, _IOC_READ, 160, 1 },
	{ "DDSM_IOC_STATUS", 0x01, _IOC_READ, 200, 2 },
	{ "DDSM_IOC_STATUS", 0x01, _IOC_READ, 216, 3 },
	{ "DDSM_IOC_PEER", 0x02, _IOC_READ | _IOC_WRITE, 128, 1 },
	{ "DDSM_IOC_PMEM_STATUS", 0x05, _IOC_READ, 208, 4 },
	{ "DDSM_IOC_TX_STATUS", 0x16, _IOC_READ, 168, 6 },
	{ "DDSM_IOC_TX_STATUS", 0x16, _IOC_READ, 200, 7 },
	{ "DDSM_IOC_TX_STATUS", 0x16, _IOC_READ, 208, 8 },
	{ "DDSM_IOC_TX_STATUS", 0x16, _IOC_READ, 216, 9 },
	{ "DDSM_IOC_TX_STATUS", 0x16, _IOC_READ, 224, 10 },
};

int main(void)
{
	unsigned char buf[512];
	int fd = open("/dev/ddsm", O_RDWR), failed = 0;
	size_t i, j;

	if (fd < 0) {
		printf("Bail out! open /dev/ddsm: %s\n", strerror(errno));
		return 1;
	}
	for (i = 0; i < sizeof(old) / sizeof(old[0]); i++) {
		unsigned long cmd = _IOC(old[i].dir, DDSM_IOC_MAGIC, old[i].nr,
					 old[i].size);
		int ret, err, intact = 1;

		memset(buf, 0, old[i].size);	/* PEER: index 0, flags 0 */
		memset(buf + old[i].size, CANARY, sizeof(buf) - old[i].size);
		ret = ioctl(fd, cmd, buf);
		err = errno;
		for (j = old[i].size; j < sizeof(buf); j++)
			intact &= buf[j] == CANARY;
		if (!ret && old[i].nr == 0x01)	/* the ABI it reports */
			intact &= ((struct ddsm_status *)buf)->abi_version ==
				  DDSM_ABI_VERSION;
		printf("%sok - abi: %s at ABI %u's size (%u bytes) answered, nothing written past it (%s)\n",
		       !ret && intact ? "" : "not ", old[i].name, old[i].abi,
		       old[i].size, ret ? strerror(err) : intact ? "ok" :
		       "wrote past the structure");
		failed |= ret || !intact;
	}
	close(fd);
	return failed;
}
