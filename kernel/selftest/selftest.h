/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The self-test build (DDSM_SELFTEST=y; Kbuild adds -DDDSM_SELFTEST and
 * the files of kernel/selftest/): test-only knobs (knobs.c), the RDMA
 * transport's self-test (rdma.c, declared in net/rdma.h), the
 * persist-domain checker with the crash tests' debugfs files
 * (pmem_crash.c) and a media error on demand (pmem_fail.c).  Production
 * code calls only what is declared here; without DDSM_SELFTEST each
 * helper is a constant or does nothing, so the production module holds
 * no test code, offers no test knob and has no debugfs file.
 */
#ifndef DDSM_SELFTEST_H
#define DDSM_SELFTEST_H

#include <linux/debugfs.h>
#include <linux/errno.h>
#include <linux/types.h>

struct ddsm_persist;

#ifdef DDSM_SELFTEST

/* debugfs ddsm/, where every self-test file goes. */
static inline struct dentry *ddsm_test_debugfs_dir(void)
{
	return debugfs_create_dir("ddsm", NULL);
}

/* knobs.c */
unsigned int ddsm_test_validate_delay_ms(void);
unsigned int ddsm_test_validate_gap_ms(void);
unsigned int ddsm_test_readv_lag_ms(void);
unsigned int ddsm_test_takeover_delay_ms(void);
unsigned int ddsm_test_replica_delay_ms(void);
bool ddsm_test_squash_off(void);
bool ddsm_test_inject(void);
bool ddsm_test_pmem_check(void);
/* test_fail_build: true for each of the next N ddsm_node_build() calls */
bool ddsm_test_fail_build(void);

/* pmem_crash.c: pmem_check=1's checker, and debugfs ddsm/pmem_* */
int ddsm_pmem_check_start(struct ddsm_persist *p);
void ddsm_pmem_check_stop(struct ddsm_persist *p);
void ddsm_pmem_slots_add(struct ddsm_persist *p);
void ddsm_pmem_slots_remove(struct ddsm_persist *p);

/* pmem_fail.c: debugfs ddsm/pmem_fail, the next writes to the media fail */
bool ddsm_test_pmem_fail(void);
void ddsm_pmem_fail_add(struct ddsm_persist *p);
void ddsm_pmem_fail_remove(struct ddsm_persist *p);

#else

/* No file, so no directory: a NULL one is what its users check. */
static inline struct dentry *ddsm_test_debugfs_dir(void)
{
	return NULL;
}

static inline unsigned int ddsm_test_validate_delay_ms(void)
{
	return 0;
}

static inline unsigned int ddsm_test_validate_gap_ms(void)
{
	return 0;
}

static inline unsigned int ddsm_test_readv_lag_ms(void)
{
	return 0;
}

static inline unsigned int ddsm_test_takeover_delay_ms(void)
{
	return 0;
}

static inline unsigned int ddsm_test_replica_delay_ms(void)
{
	return 0;
}

static inline bool ddsm_test_squash_off(void)
{
	return false;
}

static inline bool ddsm_test_inject(void)
{
	return false;
}

static inline bool ddsm_test_pmem_check(void)
{
	return false;
}

static inline bool ddsm_test_fail_build(void)
{
	return false;
}

/* Never called: pmem_check is off. */
static inline int ddsm_pmem_check_start(struct ddsm_persist *p)
{
	return -EOPNOTSUPP;
}

static inline void ddsm_pmem_check_stop(struct ddsm_persist *p)
{
}

static inline void ddsm_pmem_slots_add(struct ddsm_persist *p)
{
}

static inline void ddsm_pmem_slots_remove(struct ddsm_persist *p)
{
}

static inline bool ddsm_test_pmem_fail(void)
{
	return false;
}

static inline void ddsm_pmem_fail_add(struct ddsm_persist *p)
{
}

static inline void ddsm_pmem_fail_remove(struct ddsm_persist *p)
{
}

#endif /* DDSM_SELFTEST */

#endif /* DDSM_SELFTEST_H */
