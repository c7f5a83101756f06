// SPDX-License-Identifier: GPL-2.0
/*
 * `ddsmctl --version`: the three versions that must fit together, the
 * tool's, the library's (with the ABI it speaks and the oldest module it
 * drives) and the loaded module's ABI.  The module is asked directly, not
 * through libddsm, so that a module libddsm refuses still shows its ABI.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "ddsmctl.h"
#include "ddsmctl_out.h"

#ifndef DDSMCTL_VERSION
#define DDSMCTL_VERSION	"unknown"
#endif

/* The module's DDSM_ABI_VERSION, or 0 with errno set. */
unsigned int ctl_module_abi(const char *dev)
{
	struct ddsm_status st;
	int fd = open(dev, O_RDONLY | O_CLOEXEC), err;

	if (fd < 0)
		return 0;
	if (ioctl(fd, DDSM_IOC_STATUS, &st) < 0) {
		err = errno;
		close(fd);
		errno = err;
		return 0;
	}
	close(fd);
	return st.abi_version;
}

int cmd_version(struct ctl *c, int argc, char **argv)
{
	unsigned int abi;
	char why[160];

	(void)argc;
	(void)argv;
	abi = ctl_module_abi(c->dev);
	snprintf(why, sizeof(why), "%s: %s", c->dev, strerror(errno));
	if (!c->json) {
		printf("ddsmctl %s\n", DDSMCTL_VERSION);
		printf("libddsm %s, ABI %u (drives modules of ABI %u and later)\n",
		       ddsm_lib_version(), ddsm_abi_version(), ddsm_abi_min());
		if (abi)
			printf("module ABI %u (%s)\n", abi, c->dev);
		else
			printf("module: none (%s)\n", why);
		return fflush(stdout) ? EXIT_ERROR : EXIT_OK;
	}
	out_start(1);
	out_str("ddsmctl", DDSMCTL_VERSION);
	out_str("libddsm", ddsm_lib_version());
	out_u64("library_abi", ddsm_abi_version());
	out_u64("library_abi_min", ddsm_abi_min());
	out_str("device", c->dev);
	if (abi)
		out_u64("module_abi", abi);
	else
		out_str("module_error", why);
	return out_finish() ? EXIT_ERROR : EXIT_OK;
}
