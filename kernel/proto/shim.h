/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The only header kernel/proto/ sources include for basic types.  The same
 * sources build into ddsm.ko, into a UML KUnit kernel and into user-space
 * tools, so they may use nothing beyond fixed-width types, errno values,
 * memset/memcpy, hweight64, BIT_ULL and the cpu_to_le/le_to_cpu
 * helpers.  A user-space build supplies its own
 * ddsm_user_shim.h on the include path.
 */
#ifndef DDSM_PROTO_SHIM_H
#define DDSM_PROTO_SHIM_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/errno.h>
#include <linux/string.h>
#include <linux/bitops.h>
#include <linux/compiler.h>
#include <asm/byteorder.h>
#else
#include "ddsm_user_shim.h"
#endif

#endif /* DDSM_PROTO_SHIM_H */
