/* SPDX-License-Identifier: GPL-2.0 */
/* core/persist.c: the units homed here on pmem (pmem= module parameter). */
#ifndef DDSM_CORE_PERSIST_H
#define DDSM_CORE_PERSIST_H

#include <linux/in.h>
#include <uapi/linux/ddsm.h>

struct ddsm_node;

/*
 * With pmem= set: claim the namespace, format or recover it, and fill the
 * home frames from it; 0 without pmem=.  Called once the node's state is
 * allocated and before its transport starts.
 */
int ddsm_persist_mount(struct ddsm_node *n, const struct sockaddr_in *addrs);
/* Make every dirty unit durable, mark the namespace clean, let it go. */
void ddsm_persist_unmount(struct ddsm_node *n);
/* Is @unit homed here and kept on pmem? */
bool ddsm_persist_tracks(struct ddsm_node *n, u64 unit);
/* @unit's home frame may have changed: persist it within pmem_flush_ms. */
void ddsm_persist_dirty(struct ddsm_node *n, u64 unit);
/* Make the units of [gaddr, gaddr + len) homed here durable now. */
int ddsm_persist_range(struct ddsm_node *n, u64 gaddr, u64 len);
/*
 * Make the @nr units of @units homed here durable now (others, and units
 * not dirty, are skipped); units may repeat.
 */
int ddsm_persist_units(struct ddsm_node *n, const u64 *units, u32 nr);
/* DDSM_IOC_REGION, its argument checked (ddsm_check_region_arg). */
int ddsm_persist_region(struct ddsm_node *n, struct ddsm_region_arg *a);
void ddsm_persist_status(struct ddsm_node *n, struct ddsm_pmem_status *s);
/*
 * pmem_check played a power failure here: the node is off as far as its
 * media goes, and sends nothing that needed the media.
 */
bool ddsm_persist_crashed(struct ddsm_node *n);

/* Backup homes (replica.c), with nr_backups = 1. */
struct page;
/* Make replica images durable with their home's timestamps. */
int ddsm_persist_replica_put(struct ddsm_node *n, const u64 *units,
			     const void *const *data, const u64 *ts, u32 nr);
/* Send the backup every image held here, then REPLICA_SYNC. */
void ddsm_persist_resync(struct ddsm_node *n);
/* Persist every dirty unit and wait for the backup (before unload). */
void ddsm_persist_flush_all(struct ddsm_node *n);
/* Tell the directory the models of the units homed here now. */
void ddsm_persist_models(struct ddsm_node *n);
/* Record durably that this node took its predecessor's units over. */
int ddsm_persist_mark_takeover(struct ddsm_node *n);
/* Copy local slot @idx's image into @page: 0, -ENODATA, -EBADMSG. */
int ddsm_persist_load_slot(struct ddsm_node *n, u64 idx, struct page *page);

#endif /* DDSM_CORE_PERSIST_H */
