/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space stand-in for the few kernel facilities the pure sources
 * (kernel/proto, kernel/lib) use, so they compile unchanged into tools
 * (the model checker).  Included only through shim.h outside the kernel.
 */
#ifndef DDSM_LIB_SHIM_USER_H
#define DDSM_LIB_SHIM_USER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <errno.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int32_t s32;
typedef uint16_t __le16;
typedef uint32_t __le32;
typedef uint64_t __le64;

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the user-space shim assumes a little-endian host"
#endif
#define cpu_to_le16(x) ((__le16)(x))
#define cpu_to_le32(x) ((__le32)(x))
#define cpu_to_le64(x) ((__le64)(x))
#define le16_to_cpu(x) ((u16)(x))
#define le32_to_cpu(x) ((u32)(x))
#define le64_to_cpu(x) ((u64)(x))

#define BIT_ULL(n) (1ULL << (n))
#define U64_MAX UINT64_MAX
#define hweight64(x) ((unsigned int)__builtin_popcountll(x))

#endif /* DDSM_LIB_SHIM_USER_H */
