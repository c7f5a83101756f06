/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The only header kernel/proto/ and kernel/pmem/'s pure sources include
 * for basic types.  The same sources build into ddsm.ko, into a UML KUnit
 * kernel and into user-space tools (tools/model), so they may use nothing
 * beyond fixed-width types, errno values, memset/memcpy, hweight64,
 * BIT_ULL and the cpu_to_le/le_to_cpu helpers.  Outside the kernel those
 * come from shim_user.h, next to this file, so no build needs an include
 * path into tools/.
 */
#ifndef DDSM_LIB_SHIM_H
#define DDSM_LIB_SHIM_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/errno.h>
#include <linux/string.h>
#include <linux/bitops.h>
#include <linux/compiler.h>
#include <asm/byteorder.h>
#else
#include "shim_user.h"
#endif

#endif /* DDSM_LIB_SHIM_H */
