/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Validation of ioctl and mmap arguments, kept free of VFS and mm types so
 * that KUnit can drive every rejected case directly.
 */
#ifndef DDSM_NODE_IOCTL_CHECK_H
#define DDSM_NODE_IOCTL_CHECK_H

#include <linux/types.h>
#include <uapi/linux/ddsm.h>
#include "../proto/space.h"

int ddsm_check_peer_arg(const struct ddsm_peer_info *p, u32 nr_nodes);
int ddsm_check_config_arg(const struct ddsm_config *c);
int ddsm_check_home_arg(const struct ddsm_home_query *q,
			const struct ddsm_space *s);
/* -EINVAL: flags, reserved, zero length or misaligned; -ERANGE: outside. */
int ddsm_check_persist_arg(const struct ddsm_persist_arg *a,
			   const struct ddsm_space *s);
/* The same for DDSM_IOC_REGION; a get only needs @gaddr in the space. */
int ddsm_check_region_arg(const struct ddsm_region_arg *a,
			  const struct ddsm_space *s);

/*
 * The current command @cmd stands for: same type, number and direction,
 * and a size that is the current struct's or one an earlier ABI had (the
 * caller copies only _IOC_SIZE(@cmd) bytes in and out); 0 for any other
 * (ENOTTY).
 */
unsigned int ddsm_ioctl_cmd(unsigned int cmd);

/*
 * @shared: MAP_SHARED requested; @exec: PROT_EXEC requested;
 * @off, @len: byte offset and length of the window.
 */
int ddsm_check_mmap_arg(const struct ddsm_space *s, bool shared, bool exec,
			u64 off, u64 len);

#endif /* DDSM_NODE_IOCTL_CHECK_H */
