/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * ddsm: distributed shared memory over RDMA -- the user-space ABI.
 *
 * /dev/ddsm is mapped with mmap(MAP_SHARED); the mmap offset is the global
 * address.  Offsets must be multiples of DDSM_UNIT_SIZE (the kernel rounds
 * lengths up to whole pages) and the window must lie inside the global
 * space (struct ddsm_status.size).
 *
 * mmap errors, in the order they are checked:
 *   EINVAL    offset not page aligned, length 0 (the kernel itself)
 *   EOVERFLOW offset + length wraps around (the kernel itself)
 *   EIO       the node is not built (a failed DDSM_IOC_CONFIGURE, below)
 *   EINVAL    MAP_PRIVATE
 *   EPERM     PROT_EXEC requested
 *   ENXIO     [offset, offset + length) does not fit in the global space
 *   EACCES    the window overlaps a transactional region (DDSM_IOC_TX_REGION)
 * A later mprotect(PROT_EXEC) fails with EACCES.
 *
 * ioctl errors any command can return:
 *   EBADF   the descriptor is not open (the kernel itself)
 *   ENOTTY  not a ddsm file, an unknown command, or a known one with a
 *           size neither the current ABI nor an earlier one had (below,
 *           "Older binaries")
 *   EFAULT  argument pointer not readable/writable
 *   EIO     a DDSM_IOC_CONFIGURE failed and so did going back to one node:
 *           every command but CONFIGURE and STATUS fails so (and mmap
 *           too) until a CONFIGURE succeeds
 * and most of them:
 *   EINVAL  reserved fields or flags not zero
 *   ERANGE  index or global address outside the configured range
 *
 * Who may call what: every user who can open the device may map it and
 * call every ioctl, but CONFIGURE, setting a region's model
 * (DDSM_IOC_REGION without DDSM_REGION_GET) and DDSM_IOC_TX_REGION need
 * CAP_SYS_ADMIN (EPERM; the service declares a cluster's regions from
 * cluster.conf, ddsm-cluster.conf(5)), and DDSM_IOC_TX_WRITE,
 * DDSM_IOC_TX_COMMIT and DDSM_IOC_PERSIST need a file opened for writing
 * (EBADF).  Both are checked once the argument is read (EFAULT first).
 */
#ifndef _UAPI_LINUX_DDSM_H
#define _UAPI_LINUX_DDSM_H

#include <linux/ioctl.h>
#include <linux/types.h>

/*
 * 11 for good: ABI 11's libddsm refuses any other number, and its
 * programs must keep running.  What came since is found by asking:
 * DDSM_IOC_TX_OUTCOME (ENOTTY before it), structures grown at their end
 * (a new size, so a new ioctl number; earlier sizes still answered).
 */
#define DDSM_ABI_VERSION	11
#define DDSM_UNIT_SHIFT		12
#define DDSM_UNIT_SIZE		(1ULL << DDSM_UNIT_SHIFT)
#define DDSM_MAX_NODES		64
#define DDSM_DEV_NAME		"ddsm"

/* Peer connection states reported by DDSM_IOC_PEER. */
enum ddsm_peer_state {
	DDSM_PEER_SELF		= 0,	/* this node */
	DDSM_PEER_DOWN		= 1,	/* configured, not connected */
	DDSM_PEER_CONNECTING	= 2,
	DDSM_PEER_UP		= 3,
	DDSM_PEER_DEAD		= 4,	/* heartbeats lost, requests failed */
};

/**
 * struct ddsm_status - node-wide state and counters (DDSM_IOC_STATUS)
 * @abi_version:	DDSM_ABI_VERSION of the running module
 * @node_id:		this node's id
 * @nr_nodes:		nodes in the cluster, this one included
 * @unit_size:		bytes per coherence unit
 * @size:		bytes of global space
 * @frames_limit:	most frames that may cache units homed elsewhere
 *			(module parameter cache_frames; 0: no limit)
 * @faults_read:	read faults served by the protocol
 * @faults_write:	write faults served by the protocol (not upgrades)
 * @upgrades:		write faults on a read-only mapping (pfn_mkwrite)
 * @remaps:		faults satisfied locally, without a message
 * @pages_resident:	frames currently allocated on this node
 * @msgs_sent:		protocol messages sent
 * @msgs_recv:		protocol messages received and accepted
 * @msgs_dropped:	received messages that failed validation
 * @mappings:		live VMAs of /dev/ddsm on this node
 * @fault_timeouts:	faults that gave up with SIGBUS
 * @evictions:		units this node gave back to their home to stay
 *			within frames_limit
 * @cache_frames:	frames now caching units homed on other nodes
 * @fault_errors:	faults that failed with SIGBUS for any reason
 *			(home down, unit lost, timeout)
 * @home_waits:		faults that waited for their unit's home to connect
 * @fault_kills:	faults whose task was killed while they waited
 * @hold_expired:	completed misses whose waiting access did not run
 *			within 500 ms, so home was unlocked without it
 * @units_lost:		units homed here whose only current copy went with a
 *			node declared dead
 * @units_restored:	... that the node brought back when it returned
 * @orphans:		dirty copies kept here when their home went away
 * @orphans_dropped:	... dropped because it stayed away past rejoin_ms
 * @lost_retries:	faults told to retry because a lost unit's data
 *			may come back
 * @excl_reads:		read misses on units homed here granted in M because
 *			the unit migrates (read, then written, node by node)
 * @graces:		requests that took a unit away which first waited
 *			for an access just granted here to run (grace_us)
 * @handoffs:		units homed here that home's own copy handed on
 *			without waiting for the requester's UNLOCK
 * @deferred:		requests for a unit just handed over to this node
 *			kept until the access it was for had run
 */
struct ddsm_status {
	__u32 abi_version;
	__u32 node_id;
	__u32 nr_nodes;
	__u32 unit_size;
	__u64 size;
	__u64 frames_limit;
	__u64 faults_read;
	__u64 faults_write;
	__u64 upgrades;
	__u64 remaps;
	__u64 pages_resident;
	__u64 msgs_sent;
	__u64 msgs_recv;
	__u64 msgs_dropped;
	__u64 mappings;
	__u64 fault_timeouts;
	__u64 evictions;
	__u64 cache_frames;
	__u64 fault_errors;
	__u64 home_waits;
	__u64 fault_kills;
	__u64 hold_expired;
	__u64 units_lost;
	__u64 units_restored;
	__u64 orphans;
	__u64 orphans_dropped;
	__u64 lost_retries;
	__u64 excl_reads;
	__u64 graces;
	__u64 handoffs;
	__u64 deferred;
};

/**
 * struct ddsm_peer_info - one node of the cluster (DDSM_IOC_PEER)
 * @index:	in: 0 .. nr_nodes - 1
 * @flags:	in: must be 0
 * @node_id:	out: the node's id
 * @state:	out: enum ddsm_peer_state
 * @msgs_sent:	out: messages sent to this node
 * @msgs_recv:	out: messages received from this node
 * @bytes_sent:	out: bytes sent (messages and pages)
 * @bytes_recv:	out: bytes received
 * @drops:	out: messages from this node dropped by validation
 * @retries:	out: sends retried
 * @addr:	out: the node's address as text, NUL terminated
 * @deaths:	out: times this node was declared dead
 * @suspicions:	out: times it was suspected (silent for half the timeout)
 * @probes_ok:	out: liveness probes (RDMA READs) it answered
 * @ctrl_sent:	out: credit returns and heartbeats sent to it
 * @auth_failures: out: its connections refused for failing authentication,
 *		and new connection requests in its name that ended, or were
 *		replaced, before they proved the cluster key
 * @setup_timeouts: out: connections to it started again because its HELLO
 *		did not arrive in time (never a death: it was not up yet)
 * @txq_peak:	out: most messages ever queued for it at once
 * @txq_waits:	out: sends that waited for room in its queue
 * @txq_overflows: out: its connections taken down because the queue was
 *		full (a delivery thread's send) or stuck (no message out for
 *		peer_timeout_ms while a sender waited)
 */
struct ddsm_peer_info {
	__u32 index;
	__u32 flags;
	__u32 node_id;
	__u32 state;
	__u64 msgs_sent;
	__u64 msgs_recv;
	__u64 bytes_sent;
	__u64 bytes_recv;
	__u64 drops;
	__u64 retries;
	char addr[64];
	__u64 deaths;
	__u64 suspicions;
	__u64 probes_ok;
	__u64 ctrl_sent;
	__u64 auth_failures;
	__u64 setup_timeouts;
	__u64 txq_peak;
	__u64 txq_waits;
	__u64 txq_overflows;
};

/**
 * struct ddsm_home_query - where a global address lives (DDSM_IOC_HOME)
 * @gaddr:	in: global address, any byte inside the space
 * @flags:	in: must be 0
 * @home:	out: node id of the unit's home
 * @unit:	out: unit number (gaddr >> DDSM_UNIT_SHIFT)
 * @state:	out: this node's cache state of the unit (enum ddsm_unit_state)
 */
struct ddsm_home_query {
	__u64 gaddr;
	__u32 flags;
	__u32 home;
	__u64 unit;
	__u32 state;
	__u32 reserved;
};

/* This node's view of one unit, as reported by DDSM_IOC_HOME. */
enum ddsm_unit_state {
	DDSM_UNIT_I = 0,	/* invalid: no copy on this node (never touched, too) */
	DDSM_UNIT_S = 1,	/* shared: read-only copy */
	DDSM_UNIT_M = 2,	/* modified: the only, writable copy */
	DDSM_UNIT_BUSY = 3,	/* a request is in flight */
};

/**
 * struct ddsm_config - join a cluster at runtime (DDSM_IOC_CONFIGURE)
 * @node_id:	this node's index in @nodes
 * @flags:	must be 0
 * @nodes:	IPv4 addresses of every node, comma separated, index = node
 *		id, NUL terminated; empty for one node
 *
 * Needs CAP_SYS_ADMIN (EPERM) and a node with nothing mapped and nothing
 * touched yet (EBUSY).  EINVAL: @flags not 0, @nodes not NUL terminated
 * or not a list of at most 64 IPv4 addresses, @node_id not an index of
 * it, or nr_backups=1 with one node; ERANGE: @node_id 64 or more.  Same
 * effect as loading the module with node_id= and nodes=, so the rebuild
 * can fail as a load would: with pmem=, the namespace refuses a node
 * that is not the one it was formatted for (EXDEV: another cluster, the
 * cluster id being derived from the node list unless cluster_id= is
 * set; EREMCHG: another node id; EMEDIUMTYPE: another cluster shape,
 * the number of nodes above all; ENOSPC: the namespace is too small), and
 * ENOMEM or an error of the RDMA transport's setup are passed on.  After a failed
 * rebuild the node runs alone again (node 0 of 1); if even that fails,
 * see EIO above.
 */
struct ddsm_config {
	__u32 node_id;
	__u32 flags;
	char nodes[1024];
};

/**
 * struct ddsm_pmem_status - this node's persistent home (DDSM_IOC_PMEM_STATUS)
 * @flags:	out: DDSM_PMEM_* below; 0 when the module runs without pmem=
 * @reserved:	out: 0
 * @ns_bytes:	out: bytes of the pmem namespace
 * @nr_slots:	out: unit slots on it (units homed here)
 * @generation:	out: superblock generation (one more per mount and unmount)
 * @units_present: out: slots holding a valid unit image at mount
 * @units_torn:	out: slots whose image failed its CRC at mount (never expected)
 * @log_seen:	out: committed log records recovery found at mount
 * @log_applied: out: ... of which it applied to their slot
 * @log_obsolete: out: ... skipped, older than their slot (MINOS's obsolete check)
 * @log_torn:	out: torn record that ended the log at mount (0 or 1)
 * @persists:	out: unit images made durable since mount
 * @records:	out: log records written since mount
 * @bytes:	out: bytes flushed to the media since mount
 * @flushes:	out: flush calls (each writes back one or more cache lines)
 * @fences:	out: fences (each waits for every flush before it)
 * @dirty:	out: units homed here whose newest image is not durable yet
 * @errors:	out: persist calls that failed (the units stay dirty)
 * @barriers:	out: Scope barriers run on this node (DDSM_IOC_PERSIST, msync)
 * @persist_sent: out: PERSIST messages they sent to other homes
 * @persist_served: out: passes of the home's persist worker (answering
 *		PERSISTs from other nodes, sending gated grants)
 * @durable_grants: out: grants of Read-Enforced and Synchronous units this
 *		home sent only once the unit was durable
 * @durable_errors: out: ... of which went though the media failed (logged)
 * @device:	out: the namespace's device name, NUL terminated
 * @replica_units: out: replica slots holding an image of the predecessor's
 *		units (nr_backups=1)
 * @replica_bytes: out: image bytes sent to the backup plus received as one
 * @replica_sent: out: images sent to this node's backup
 * @replica_acked: out: ... it acknowledged durable
 * @replica_recv: out: images received from the predecessor and persisted
 * @replica_degraded: out: episodes of running without the backup (down,
 *		unreachable, too slow): promises were home-only meanwhile
 * @replica_resyncs: out: resyncs of the backup completed
 * @failovers:	out: predecessors this node took over
 * @replica_window_waits: out: persists and resyncs that waited for the
 *		backup's window (DDSM_REPLICA_WINDOW images unacknowledged)
 * @replica_window_full: out: images not sent because the window was
 *		full (the backup degraded, to be resynced)
 * @replica_in_peak: out: most of the predecessor's images this node, as
 *		its backup, held in memory at once
 */
struct ddsm_pmem_status {
	__u32 flags;
	__u32 reserved;
	__u64 ns_bytes;
	__u64 nr_slots;
	__u64 generation;
	__u64 units_present;
	__u64 units_torn;
	__u64 log_seen;
	__u64 log_applied;
	__u64 log_obsolete;
	__u64 log_torn;
	__u64 persists;
	__u64 records;
	__u64 bytes;
	__u64 flushes;
	__u64 fences;
	__u64 dirty;
	__u64 errors;
	__u64 barriers;
	__u64 persist_sent;
	__u64 persist_served;
	__u64 durable_grants;
	__u64 durable_errors;
	char device[32];
	__u64 replica_units;
	__u64 replica_bytes;
	__u64 replica_sent;
	__u64 replica_acked;
	__u64 replica_recv;
	__u64 replica_degraded;
	__u64 replica_resyncs;
	__u64 failovers;
	__u64 replica_window_waits;
	__u64 replica_window_full;
	__u64 replica_in_peak;
};

#define DDSM_PMEM_ON		0x1	/* units homed here are kept on pmem */
#define DDSM_PMEM_FORMATTED	0x2	/* this mount formatted the namespace */
#define DDSM_PMEM_WAS_CLEAN	0x4	/* it had been unmounted cleanly */
#define DDSM_PMEM_CHECK		0x8	/* test only: persist-domain checker on */
#define DDSM_PMEM_BACKUP	0x10	/* nr_backups=1: a backup home per unit */
#define DDSM_PMEM_SYNCED	0x20	/* the backup holds every image of ours */
#define DDSM_PMEM_TOOK_OVER	0x40	/* serving the predecessor's units */

/**
 * struct ddsm_persist_arg - make a range durable (DDSM_IOC_PERSIST)
 * @gaddr:	in: global address, unit aligned
 * @len:	in: bytes, a multiple of the unit size, not 0
 * @flags:	in: 0 or DDSM_PERSIST_ALL
 * @reserved:	in: must be 0
 *
 * The Scope barrier: returns once what this node wrote in the range
 * before the call is durable at the units' homes.  Units homed elsewhere
 * that this node holds dirty are written back to their homes (and leave
 * this node's cache), which persist them and answer; units homed here are
 * persisted locally.  DDSM_PERSIST_ALL asks every home of the range to
 * persist, also for units this node no longer holds: in a Synchronous or
 * Strict region, where every transfer writes the data back home, that
 * covers a write whose unit another node took before the call (the
 * durable write, ddsm_write_durable()).  EBADF: the file was not opened
 * for writing; ENODEV: this node or a home runs without pmem=;
 * ERANGE outside the space; EIO when a home's media failed; ETIMEDOUT when
 * a home did not answer within fault_timeout_ms; EHOSTDOWN when it was
 * unreachable, or when this node holds a dirty copy of a unit whose home
 * went away (kept for its return, not durable).
 */
struct ddsm_persist_arg {
	__u64 gaddr;
	__u64 len;
	__u32 flags;
	__u32 reserved;
};

#define DDSM_PERSIST_ALL	0x1	/* every unit of the range, held or not */

/* Persistency models of a region (MINOS); the values are on the media. */
enum ddsm_model {
	DDSM_MODEL_SYNC		= 0,	/* Read-Enforced + durable writes */
	DDSM_MODEL_STRICT	= 1,	/* durable writes, reads not held back */
	DDSM_MODEL_READ_ENF	= 2,	/* durable before another node gets it */
	DDSM_MODEL_EVENTUAL	= 3,	/* the home persists within pmem_flush_ms */
	DDSM_MODEL_SCOPE	= 4,	/* durable at Scope barriers and unload only */
};

#define DDSM_REGION_GET		0x1	/* read the model at @gaddr */

/**
 * struct ddsm_region_arg - a region's persistency model (DDSM_IOC_REGION)
 * @gaddr:	in: unit aligned global address
 * @len:	in: bytes, unit multiple, not 0 (set); ignored by a get
 * @model:	in (set) / out (get): enum ddsm_model
 * @flags:	in: 0 to set, DDSM_REGION_GET to get
 * @nr_backups:	in: 0, or the module's nr_backups (backups are per node)
 * @reserved:	in: must be 0
 *
 * A region's model governs how the units of the range homed on this node
 * are made durable; each node keeps its own table on its pmem, so set the
 * same regions on every node.  Set a region before any unit of it is
 * touched on this node; the table keeps at most 64 regions and survives
 * restarts (setting the same region again is accepted).  Setting needs
 * CAP_SYS_ADMIN (EPERM); a get is open to every user.  Errors: ENODEV
 * without pmem=; EINVAL for flags, alignment, zero length, an unknown
 * model or backups; ERANGE outside the space; EEXIST overlapping another
 * region; EBUSY when a unit of the range was touched here already; ENOSPC
 * when the table is full; EIO when the media failed.  A get returns the model of the region holding
 * @gaddr, or the default (module parameter pmem_model).
 */
struct ddsm_region_arg {
	__u64 gaddr;
	__u64 len;
	__u32 model;
	__u32 flags;
	__u32 nr_backups;
	__u32 reserved;
};

/*
 * HADES transactions (docs/transactions.md).  They run on transactional
 * regions only (DDSM_IOC_TX_REGION): a region is declared on every node
 * before any of it is mapped, mmap of a range overlapping one fails with
 * EACCES, and the committed copy of its data is always its home's frame,
 * read and written only through the calls below.  One transaction at a
 * time per open file.
 *
 * Every TX ioctl but BEGIN and REGION fails with ECANCELED when the
 * transaction is over because it aborted; @reason then says why (enum
 * ddsm_tx_reason) and the file has no transaction any more.  Other
 * errors: EINVAL (flags, reserved fields, length, an address outside
 * every transactional region, or no transaction running), E2BIG (more
 * than DDSM_TX_MAX_WRITES writes, DDSM_TX_WBUF bytes of them, or writes
 * at one home that do not fit in one DDSM_UNIT_SIZE Intend), EFAULT,
 * EBUSY (BEGIN with a transaction running), EAGAIN (BEGIN with every
 * transaction slot of the node taken).
 */
enum ddsm_tx_reason {
	DDSM_TX_COMMITTED	= 0,
	DDSM_TX_SQUASHED	= 1,	/* a committing writer doomed it */
	DDSM_TX_NACKED		= 2,	/* a home refused its Intend */
	DDSM_TX_READ_LOCKED	= 3,	/* reads kept meeting a commit's lock */
	DDSM_TX_PEER_DOWN	= 4,	/* a home it needed went down */
	DDSM_TX_TIMEOUT		= 5,	/* a home did not answer in time */
	DDSM_TX_FULL		= 6,	/* a home's transaction table is full */
	DDSM_TX_USER		= 7,	/* DDSM_IOC_TX_ABORT */
	DDSM_TX_REASON_NR,
};

#define DDSM_TX_MAX_WRITES	64	/* DDSM_IOC_TX_WRITE calls per transaction */
#define DDSM_TX_WBUF		16384	/* bytes they may buffer in all */
#define DDSM_TX_MAX_REGIONS	16

/**
 * struct ddsm_tx_region_arg - declare a transactional region (DDSM_IOC_TX_REGION)
 * @gaddr:	in: unit aligned global address
 * @len:	in: bytes, unit multiple, not 0
 * @flags:	in: must be 0
 * @reserved:	in: must be 0
 *
 * A region overlapping or touching declared ones is merged with them.
 * Needs CAP_SYS_ADMIN (EPERM).  Errors: EINVAL (alignment, length,
 * flags), ERANGE (outside the space), EBUSY (a unit of the range is
 * cached here), ENOSPC (more than DDSM_TX_MAX_REGIONS).  Regions last
 * until the module is unloaded.
 */
struct ddsm_tx_region_arg {
	__u64 gaddr;
	__u64 len;
	__u32 flags;
	__u32 reserved;
};

/**
 * struct ddsm_tx_arg - DDSM_IOC_TX_{BEGIN,READ,WRITE,COMMIT,ABORT}
 * @gaddr:	in (READ, WRITE): global address in a transactional region
 * @buf:	in (READ, WRITE): user buffer
 * @len:	in (READ, WRITE): bytes, 1..DDSM_UNIT_SIZE
 * @flags:	in: must be 0
 * @reason:	out: enum ddsm_tx_reason when the call fails with ECANCELED
 * @reserved:	in: must be 0
 * @txid:	out: the transaction's id (node << 48 | slot << 32 | epoch)
 *
 * READ copies the committed data as of the transaction's serialisation
 * point, its own earlier writes laid over it.  WRITE buffers the data
 * until COMMIT.  COMMIT returns 0 once every home holds the commit's
 * lock (the writes become visible as the homes apply them; a later read
 * of a line not yet applied waits for it, never sees the old data), and
 * then the commit is never undone.  COMMIT fails with ECANCELED when it
 * aborted, and with ETIMEDOUT (@reason DDSM_TX_TIMEOUT) when a home that
 * owes an answer stayed away for fault_timeout_ms: the outcome is not
 * known yet, the homes decide it (docs/transactions.md, "The commit
 * rule"), and OUTCOME tells it later; the file has no transaction any
 * more either way.
 *
 * WRITE and COMMIT need a file opened for writing (EBADF; the
 * transaction stays, ABORT ends it).
 *
 * OUTCOME (@txid in, a transaction this node coordinated; the other
 * fields 0) returns 0 if it committed, fails with ECANCELED if it
 * aborted, EINPROGRESS while it is undecided, ENOENT if this node cannot
 * tell (another node's, a restarted module's, or more than 64
 * transactions of its slot ago).
 */
struct ddsm_tx_arg {
	__u64 gaddr;
	__u64 buf;
	__u32 len;
	__u32 flags;
	__u32 reason;
	__u32 reserved;
	__u64 txid;
};

#define DDSM_TX_READV_MAX	16	/* reads in one DDSM_IOC_TX_READV */

/**
 * struct ddsm_tx_iov - one read of DDSM_IOC_TX_READV
 * @gaddr:	in: global address in a transactional region
 * @buf:	in: user buffer
 * @len:	in: bytes, 1..DDSM_UNIT_SIZE
 * @reserved:	in: must be 0
 */
struct ddsm_tx_iov {
	__u64 gaddr;
	__u64 buf;
	__u32 len;
	__u32 reserved;
};

/**
 * struct ddsm_tx_readv_arg - DDSM_IOC_TX_READV
 * @iov:	in: user pointer to @nr struct ddsm_tx_iov
 * @nr:	in: 1..DDSM_TX_READV_MAX
 * @flags:	in: must be 0
 * @reason:	out: as in struct ddsm_tx_arg
 * @reserved:	in: must be 0
 * @txid:	out: the transaction's id
 *
 * As @nr READs in a row, with what each would return, but the lines
 * homed on other nodes are asked of their homes all at once: one round
 * trip for the lot instead of one per read.  A transaction in the
 * pessimistic fallback reads them one after the other (its pins go in
 * address order).
 */
struct ddsm_tx_readv_arg {
	__u64 iov;
	__u32 nr;
	__u32 flags;
	__u32 reason;
	__u32 reserved;
	__u64 txid;
};

/**
 * struct ddsm_tx_status - this node's transaction counters (DDSM_IOC_TX_STATUS)
 * @begins:	transactions begun by this node's files
 * @commits:	... committed
 * @aborts:	... aborted, by enum ddsm_tx_reason (index 0 unused)
 * @reads:	reads (DDSM_IOC_TX_READ calls and DDSM_IOC_TX_READV's parts)
 * @read_retries: reads a home refused because a commit held the line
 * @intends_sent: Intend-to-commit messages sent (or run locally)
 * @home_reads:	reads served as a home
 * @home_intends: Intends received as a home
 * @home_nacks:	... refused
 * @home_squashes: running transactions doomed here as a home
 * @home_validations: commits applied here as a home
 * @home_aborts: aborts received as a home
 * @home_rollbacks: locked commits of a dead coordinator rolled back here
 * @home_full:	transactions refused for want of a table entry
 * @home_in_doubt: locked commits of a dead coordinator held for the
 *		other participants' answers (then rolled forward or back)
 * @home_rollforwards: ... of those, applied here because another
 *		participant had applied them
 * @fallbacks:	transactions begun in the pessimistic fallback (after
 *		8 conflict aborts in a row on their file)
 * @home_pins:	lines pinned here by fallback transactions
 * @reads_ahead: unit reads DDSM_IOC_TX_READV sent to their homes at once
 * @read_batches: ... of those, messages that carried several to one home
 *		(ABI 9)
 * @validations_carried: commits' Validations that rode on a read request
 *		to their home instead of going alone (ABI 10)
 * @readv_confirms: ... and reads DDSM_IOC_TX_READV sent again, once all
 *		its answers were in, to homes of a read that spans two homes
 *		(ABI 11)
 */
struct ddsm_tx_status {
	__u64 begins;
	__u64 commits;
	__u64 aborts[DDSM_TX_REASON_NR];
	__u64 reads;
	__u64 read_retries;
	__u64 intends_sent;
	__u64 home_reads;
	__u64 home_intends;
	__u64 home_nacks;
	__u64 home_squashes;
	__u64 home_validations;
	__u64 home_aborts;
	__u64 home_rollbacks;
	__u64 home_full;
	__u64 home_in_doubt;
	__u64 home_rollforwards;
	__u64 fallbacks;
	__u64 home_pins;
	__u64 reads_ahead;
	__u64 read_batches;
	__u64 validations_carried;
	__u64 readv_confirms;
};

/*
 * Older binaries: a command is known by its type, number and direction;
 * besides the current size of its structure the module accepts the sizes
 * earlier ABIs had, copies in only that many bytes (the rest read as 0)
 * and copies out only that many:
 *   DDSM_IOC_STATUS		160, 200, 216 (232 now)
 *   DDSM_IOC_PEER		128, 176 (200 now)
 *   DDSM_IOC_PMEM_STATUS	208, 272 (296 now)
 *   DDSM_IOC_TX_STATUS		168, 200, 208, 216, 224 (232 now)
 * Every other command takes its current size only; any other size is
 * ENOTTY, as an unknown command is.
 */
#define DDSM_IOC_MAGIC	0xDD
#define DDSM_IOC_STATUS	_IOR(DDSM_IOC_MAGIC, 0x01, struct ddsm_status)
#define DDSM_IOC_PEER	_IOWR(DDSM_IOC_MAGIC, 0x02, struct ddsm_peer_info)
#define DDSM_IOC_HOME	_IOWR(DDSM_IOC_MAGIC, 0x03, struct ddsm_home_query)
#define DDSM_IOC_CONFIGURE _IOW(DDSM_IOC_MAGIC, 0x04, struct ddsm_config)
#define DDSM_IOC_PMEM_STATUS _IOR(DDSM_IOC_MAGIC, 0x05, struct ddsm_pmem_status)
#define DDSM_IOC_PERSIST _IOW(DDSM_IOC_MAGIC, 0x06, struct ddsm_persist_arg)
#define DDSM_IOC_REGION	_IOWR(DDSM_IOC_MAGIC, 0x07, struct ddsm_region_arg)

#define DDSM_IOC_TX_REGION _IOW(DDSM_IOC_MAGIC, 0x10, struct ddsm_tx_region_arg)
#define DDSM_IOC_TX_BEGIN _IOWR(DDSM_IOC_MAGIC, 0x11, struct ddsm_tx_arg)
#define DDSM_IOC_TX_READ _IOWR(DDSM_IOC_MAGIC, 0x12, struct ddsm_tx_arg)
#define DDSM_IOC_TX_WRITE _IOWR(DDSM_IOC_MAGIC, 0x13, struct ddsm_tx_arg)
#define DDSM_IOC_TX_COMMIT _IOWR(DDSM_IOC_MAGIC, 0x14, struct ddsm_tx_arg)
#define DDSM_IOC_TX_ABORT _IOWR(DDSM_IOC_MAGIC, 0x15, struct ddsm_tx_arg)
#define DDSM_IOC_TX_STATUS _IOR(DDSM_IOC_MAGIC, 0x16, struct ddsm_tx_status)
#define DDSM_IOC_TX_READV _IOWR(DDSM_IOC_MAGIC, 0x17, struct ddsm_tx_readv_arg)
#define DDSM_IOC_TX_OUTCOME _IOWR(DDSM_IOC_MAGIC, 0x18, struct ddsm_tx_arg)

#endif /* _UAPI_LINUX_DDSM_H */
