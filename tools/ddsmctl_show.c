// SPDX-License-Identifier: GPL-2.0
/*
 * The show commands: node show, peer show, unit show, pmem show, tx
 * stats, region show; each prints "key: value" lines or, with -j, the
 * same keys as JSON (ddsmctl_out.c).  Keys are the uapi's field names.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "ddsmctl.h"
#include "ddsmctl_out.h"
#include "ddsmctl_show.h"

struct field {
	const char *key;
	size_t off;
};

#define U64(type, f)	{ #f, offsetof(struct type, f) }

static void out_fields(const void *base, const struct field *f, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		out_u64(f[i].key, *(const __u64 *)((const char *)base + f[i].off));
}

#define OUT_FIELDS(base, table) \
	out_fields(base, table, sizeof(table) / sizeof(table[0]))

/* DDSM_IOC_STATUS's counters, in the uapi's order. */
static const struct field node_counters[] = {
	U64(ddsm_status, faults_read), U64(ddsm_status, faults_write),
	U64(ddsm_status, upgrades), U64(ddsm_status, remaps),
	U64(ddsm_status, pages_resident), U64(ddsm_status, msgs_sent),
	U64(ddsm_status, msgs_recv), U64(ddsm_status, msgs_dropped),
	U64(ddsm_status, mappings), U64(ddsm_status, fault_timeouts),
	U64(ddsm_status, evictions), U64(ddsm_status, cache_frames),
	U64(ddsm_status, fault_errors), U64(ddsm_status, home_waits),
	U64(ddsm_status, fault_kills), U64(ddsm_status, hold_expired),
	U64(ddsm_status, units_lost), U64(ddsm_status, units_restored),
	U64(ddsm_status, orphans), U64(ddsm_status, orphans_dropped),
	U64(ddsm_status, lost_retries), U64(ddsm_status, excl_reads),
	U64(ddsm_status, graces), U64(ddsm_status, handoffs),
	U64(ddsm_status, deferred),
};

static const struct field peer_counters[] = {
	U64(ddsm_peer_info, msgs_sent), U64(ddsm_peer_info, msgs_recv),
	U64(ddsm_peer_info, bytes_sent), U64(ddsm_peer_info, bytes_recv),
	U64(ddsm_peer_info, drops), U64(ddsm_peer_info, retries),
	U64(ddsm_peer_info, deaths), U64(ddsm_peer_info, suspicions),
	U64(ddsm_peer_info, probes_ok), U64(ddsm_peer_info, ctrl_sent),
	U64(ddsm_peer_info, auth_failures),
	U64(ddsm_peer_info, setup_timeouts),
	U64(ddsm_peer_info, txq_peak), U64(ddsm_peer_info, txq_waits),
	U64(ddsm_peer_info, txq_overflows),
};

static const struct field pmem_counters[] = {
	U64(ddsm_pmem_status, ns_bytes), U64(ddsm_pmem_status, nr_slots),
	U64(ddsm_pmem_status, generation),
	U64(ddsm_pmem_status, units_present),
	U64(ddsm_pmem_status, units_torn), U64(ddsm_pmem_status, log_seen),
	U64(ddsm_pmem_status, log_applied),
	U64(ddsm_pmem_status, log_obsolete),
	U64(ddsm_pmem_status, log_torn), U64(ddsm_pmem_status, persists),
	U64(ddsm_pmem_status, records), U64(ddsm_pmem_status, bytes),
	U64(ddsm_pmem_status, flushes), U64(ddsm_pmem_status, fences),
	U64(ddsm_pmem_status, dirty), U64(ddsm_pmem_status, errors),
	U64(ddsm_pmem_status, barriers), U64(ddsm_pmem_status, persist_sent),
	U64(ddsm_pmem_status, persist_served),
	U64(ddsm_pmem_status, durable_grants),
	U64(ddsm_pmem_status, durable_errors),
};

static const struct field pmem_replica[] = {
	U64(ddsm_pmem_status, replica_units),
	U64(ddsm_pmem_status, replica_bytes),
	U64(ddsm_pmem_status, replica_sent),
	U64(ddsm_pmem_status, replica_acked),
	U64(ddsm_pmem_status, replica_recv),
	U64(ddsm_pmem_status, replica_degraded),
	U64(ddsm_pmem_status, replica_resyncs),
	U64(ddsm_pmem_status, failovers),
	U64(ddsm_pmem_status, replica_window_waits),
	U64(ddsm_pmem_status, replica_window_full),
	U64(ddsm_pmem_status, replica_in_peak),
};

static const struct field tx_coordinator[] = {
	U64(ddsm_tx_status, begins), U64(ddsm_tx_status, commits),
};

static const struct field tx_counters[] = {
	U64(ddsm_tx_status, reads), U64(ddsm_tx_status, read_retries),
	U64(ddsm_tx_status, reads_ahead), U64(ddsm_tx_status, read_batches),
	U64(ddsm_tx_status, readv_confirms),
	U64(ddsm_tx_status, validations_carried),
	U64(ddsm_tx_status, intends_sent), U64(ddsm_tx_status, fallbacks),
	U64(ddsm_tx_status, home_reads), U64(ddsm_tx_status, home_intends),
	U64(ddsm_tx_status, home_nacks), U64(ddsm_tx_status, home_squashes),
	U64(ddsm_tx_status, home_validations),
	U64(ddsm_tx_status, home_aborts), U64(ddsm_tx_status, home_full),
	U64(ddsm_tx_status, home_pins), U64(ddsm_tx_status, home_in_doubt),
	U64(ddsm_tx_status, home_rollbacks),
	U64(ddsm_tx_status, home_rollforwards),
};

void show_node(const struct ddsm_status *st)
{
	out_u64("abi_version", st->abi_version);
	out_u64("node_id", st->node_id);
	out_u64("nr_nodes", st->nr_nodes);
	out_u64("unit_size", st->unit_size);
	out_u64("space_size", st->size);
	out_u64("frames_limit", st->frames_limit);
	OUT_FIELDS(st, node_counters);
}

void show_peer(const struct ddsm_peer_info *pi)
{
	char label[32];

	snprintf(label, sizeof(label), "peer %u", pi->index);
	out_object(NULL, label);
	out_u64("index", pi->index);
	out_u64("node_id", pi->node_id);
	out_str("state", ddsm_peer_state_name(pi->state));
	/* addr is NUL terminated by contract; do not trust it blindly. */
	out_str("addr", strnlen(pi->addr, sizeof(pi->addr)) < sizeof(pi->addr) &&
		pi->addr[0] ? pi->addr : "-");
	OUT_FIELDS(pi, peer_counters);
	out_object_end();
}

void show_pmem(const struct ddsm_pmem_status *ps)
{
	int on = ps->flags & DDSM_PMEM_ON;
	char dev[sizeof(ps->device) + 1];

	out_bool("enabled", on);
	if (!on)
		return;
	memcpy(dev, ps->device, sizeof(ps->device));
	dev[sizeof(ps->device)] = 0;
	out_str("device", dev);
	out_str("mount", ps->flags & DDSM_PMEM_FORMATTED ? "formatted" :
		ps->flags & DDSM_PMEM_WAS_CLEAN ? "clean" : "recovered");
	out_bool("checker", ps->flags & DDSM_PMEM_CHECK);
	OUT_FIELDS(ps, pmem_counters);
	out_str("backup", !(ps->flags & DDSM_PMEM_BACKUP) ? "none" :
		ps->flags & DDSM_PMEM_SYNCED ? "synced" : "degraded");
	if (!(ps->flags & DDSM_PMEM_BACKUP))
		return;
	out_bool("took_over", ps->flags & DDSM_PMEM_TOOK_OVER);
	OUT_FIELDS(ps, pmem_replica);
}

void show_tx(const struct ddsm_tx_status *ts)
{
	char key[48];
	uint32_t r;

	OUT_FIELDS(ts, tx_coordinator);
	for (r = 1; r < DDSM_TX_REASON_NR; r++) {
		snprintf(key, sizeof(key), "aborts_%s", ddsm_tx_reason_name(r));
		out_u64(key, ts->aborts[r]);
	}
	OUT_FIELDS(ts, tx_counters);
}

/* Commands whose whole output is one object: start, fill, finish. */
static int finish(const struct ctl *c)
{
	if (out_finish()) {
		fprintf(stderr, "%s: write: %s\n", c->prog, strerror(errno));
		return EXIT_ERROR;
	}
	return EXIT_OK;
}

int cmd_node_show(struct ctl *c, int argc, char **argv)
{
	struct ddsm_status st;

	(void)argc;
	(void)argv;
	if (ddsm_status(c->h, &st))
		return ctl_fail(c, "status");
	out_start(c->json);
	show_node(&st);
	return finish(c);
}

int cmd_peer_show(struct ctl *c, int argc, char **argv)
{
	struct ddsm_peer_info pi;
	uint64_t only = 0;
	uint32_t i, nr = ddsm_nr_nodes(c->h);

	if (argc && ctl_size(c, argv[0], &only))
		return EXIT_USAGE;
	if (argc && only >= nr) {
		errno = ERANGE;
		return ctl_fail(c, "peer");
	}
	out_start(c->json);
	out_array("peers");
	for (i = argc ? (uint32_t)only : 0; i < (argc ? only + 1 : nr); i++) {
		if (ddsm_peer(c->h, i, &pi)) {
			fflush(stdout);
			return ctl_fail(c, "peer");
		}
		show_peer(&pi);
	}
	out_array_end();
	return finish(c);
}

int cmd_unit_show(struct ctl *c, int argc, char **argv)
{
	struct ddsm_home_query q;
	uint64_t gaddr;
	char hex[24];

	(void)argc;
	if (ctl_size(c, argv[0], &gaddr))
		return EXIT_USAGE;
	if (ddsm_home(c->h, gaddr, &q))
		return ctl_fail(c, "unit");
	snprintf(hex, sizeof(hex), "0x%llx", (unsigned long long)q.gaddr);
	out_start(c->json);
	out_str("gaddr", hex);
	out_u64("home", q.home);
	out_u64("unit", q.unit);
	out_str("state", ddsm_unit_state_name(q.state));
	return finish(c);
}

int cmd_pmem_show(struct ctl *c, int argc, char **argv)
{
	struct ddsm_pmem_status ps;

	(void)argc;
	(void)argv;
	if (ddsm_pmem_status(c->h, &ps))
		return ctl_fail(c, "pmem status");
	out_start(c->json);
	show_pmem(&ps);
	return finish(c);
}

int cmd_tx_stats(struct ctl *c, int argc, char **argv)
{
	struct ddsm_tx_status ts;

	(void)argc;
	(void)argv;
	if (ddsm_tx_status(c->h, &ts))
		return ctl_fail(c, "tx status");
	out_start(c->json);
	show_tx(&ts);
	return finish(c);
}

int cmd_region_show(struct ctl *c, int argc, char **argv)
{
	uint64_t gaddr;
	uint32_t model;
	char hex[24];

	(void)argc;
	if (ctl_size(c, argv[0], &gaddr))
		return EXIT_USAGE;
	if (ddsm_region_model(c->h, gaddr, &model))
		return ctl_fail(c, "region");
	snprintf(hex, sizeof(hex), "0x%llx", (unsigned long long)gaddr);
	out_start(c->json);
	out_str("gaddr", hex);
	out_str("model", ddsm_model_name(model));
	return finish(c);
}
