/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sercheck: is a history of committed transactions conflict
 * serializable?  The history is what the transactions logged (txn.h):
 * per transaction, the (record, version) pairs it read and the ones it
 * created.  Logs of any number of threads and nodes are merged in any
 * order; versions alone order the events, no clock is needed.
 *
 * Each record's versions are ordered by their numbers.  A version no
 * logged transaction created is an initial one (loaded before the run)
 * and must be older than every created version of that record.  Edges:
 *   wr  creator of (x, v)  ->  every reader of (x, v)
 *   ww  creator of (x, v)  ->  creator of x's next created version
 *   rw  reader of (x, v)   ->  creator of x's first version after v
 * The history is conflict serializable iff this graph has no cycle; a
 * cycle is reported as the transactions and edge kinds around it.
 * Also errors, since they break the model rather than make a cycle: two
 * transactions creating the same version (a lost update), a read of a
 * version that nobody created and that is not initial (a dirty or
 * invented read).
 *
 * Transaction ids are the log's (node << 48 | thread << 32 | sequence)
 * and must be unique.
 */
#ifndef WL_SERCHECK_H
#define WL_SERCHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct sc_op {
	uint64_t rec, ver;
	uint32_t tx;		/* index in sercheck.tx */
	bool write;
};

struct sercheck {
	uint64_t *ids;		/* [tx] */
	size_t ntx, cap_tx;
	struct sc_op *ops;
	size_t nops, cap_ops;
};

#define SC_CYCLE_MAX	16

struct sc_result {
	size_t txs, reads, writes;
	size_t wr, ww, rw;	/* edges, self-loops left out */
	size_t dup_writes;	/* versions created twice */
	size_t bad_reads;	/* reads of never-created, non-initial versions */
	bool cycle;
	size_t cycle_len;	/* transactions around it (<= SC_CYCLE_MAX kept) */
	uint64_t cycle_ids[SC_CYCLE_MAX];
	char cycle_kind[SC_CYCLE_MAX][3];	/* edge from ids[i] to ids[i+1] */
};

void sc_init(struct sercheck *c);
void sc_free(struct sercheck *c);
/* One transaction; 0 or -ENOMEM. */
int sc_add_tx(struct sercheck *c, uint64_t id, const uint64_t *reads,
	      uint32_t nr, const uint64_t *writes, uint32_t nw);
/*
 * A txn_log's words (txn.h): 0, -ENOMEM, or -EBADMSG if they do not
 * parse (the transactions before the bad word are kept).
 */
int sc_add_log(struct sercheck *c, const uint64_t *w, size_t len);
/*
 * A text log: one transaction a line,
 *   tx NODE.THREAD.SEQ r REC:VER ... w REC:VER ...
 * (numbers in C syntax: 0x... allowed), '#' comments, blank lines.
 * 0, -ENOMEM, or -EBADMSG (with the line number in *@bad_line).
 */
int sc_add_text(struct sercheck *c, FILE *f, size_t *bad_line);
/* Write @w's transactions in that text form. */
int sc_write_text(FILE *f, const uint64_t *w, size_t len);

/* Build the graph and look for a cycle; 0 or -ENOMEM. */
int sc_check(struct sercheck *c, struct sc_result *r);
/* True when @r shows a serializable, well-formed history. */
bool sc_ok(const struct sc_result *r);
/* One line (no newline) describing @r, for a TAP line or a report. */
void sc_describe(const struct sc_result *r, char *buf, size_t len);

#endif /* WL_SERCHECK_H */
