/* SPDX-License-Identifier: GPL-2.0 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM ddsm

#if !defined(DDSM_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define DDSM_TRACE_H

#include <linux/tracepoint.h>
#include <linux/mm_types.h>
#include "../proto/msg.h"

DECLARE_EVENT_CLASS(ddsm_msg_class,
		    TP_PROTO(const struct ddsm_msg *m),
		    TP_ARGS(m),
		    TP_STRUCT__entry(
				     __field(u64, unit)
				     __field(u32, seq)
				     __field(u16, src)
				     __field(u16, dst)
				     __field(u16, requester)
				     __field(u16, acks)
				     __field(u8, type)
				     __field(u8, flags)
				     ),
		    TP_fast_assign(
				   __entry->unit = m->unit;
				   __entry->seq = m->seq;
				   __entry->src = m->src;
				   __entry->dst = m->dst;
				   __entry->requester = m->requester;
				   __entry->acks = m->acks;
				   __entry->type = m->type;
				   __entry->flags = m->flags;
				   ),
		    TP_printk("%s unit=%llu %u->%u req=%u seq=%u acks=%u%s",
			      ddsm_msg_type_name(__entry->type), __entry->unit,
			      __entry->src, __entry->dst, __entry->requester,
			      __entry->seq, __entry->acks,
			      (__entry->flags & DDSM_MF_DATA) ? " +data" : "")
		    );

DEFINE_EVENT(ddsm_msg_class, ddsm_msg_send,
	     TP_PROTO(const struct ddsm_msg *m), TP_ARGS(m));
DEFINE_EVENT(ddsm_msg_class, ddsm_msg_recv,
	     TP_PROTO(const struct ddsm_msg *m), TP_ARGS(m));

TRACE_EVENT(ddsm_msg_drop,
	    TP_PROTO(u32 from, int verdict),
	    TP_ARGS(from, verdict),
	    TP_STRUCT__entry(
			     __field(u32, from)
			     __field(int, verdict)
			     ),
	    TP_fast_assign(
			   __entry->from = from;
			   __entry->verdict = verdict;
			   ),
	    TP_printk("from=%u reason=%s", __entry->from,
		      ddsm_msg_verdict_name(__entry->verdict))
	    );

/*
 * The first two events of a fault's breakdown (make bench): a fault on a
 * unit enters ddsm, and, for a miss, the data an ACK brought is in the
 * frame under the line lock (copied: false when the message was the
 * node's own frame).  ddsm_fault ends it, after the PTE is set.
 */
TRACE_EVENT(ddsm_fault_begin,
	    TP_PROTO(u64 unit, bool write, bool mkwrite),
	    TP_ARGS(unit, write, mkwrite),
	    TP_STRUCT__entry(
			     __field(u64, unit)
			     __field(bool, write)
			     __field(bool, mkwrite)
			     ),
	    TP_fast_assign(
			   __entry->unit = unit;
			   __entry->write = write;
			   __entry->mkwrite = mkwrite;
			   ),
	    TP_printk("unit=%llu %s%s", __entry->unit,
		      __entry->write ? "write" : "read",
		      __entry->mkwrite ? " mkwrite" : "")
	    );

TRACE_EVENT(ddsm_fill,
	    TP_PROTO(u64 unit, bool copied),
	    TP_ARGS(unit, copied),
	    TP_STRUCT__entry(
			     __field(u64, unit)
			     __field(bool, copied)
			     ),
	    TP_fast_assign(
			   __entry->unit = unit;
			   __entry->copied = copied;
			   ),
	    TP_printk("unit=%llu%s", __entry->unit,
		      __entry->copied ? " copied" : " own frame")
	    );

TRACE_EVENT(ddsm_fault,
	    TP_PROTO(u64 unit, bool write, bool mkwrite, bool waited,
		     vm_fault_t ret),
	    TP_ARGS(unit, write, mkwrite, waited, ret),
	    TP_STRUCT__entry(
			     __field(u64, unit)
			     __field(unsigned int, ret)
			     __field(bool, write)
			     __field(bool, mkwrite)
			     __field(bool, waited)
			     ),
	    TP_fast_assign(
			   __entry->unit = unit;
			   __entry->ret = (__force unsigned int)ret;
			   __entry->write = write;
			   __entry->mkwrite = mkwrite;
			   __entry->waited = waited;
			   ),
	    TP_printk("unit=%llu %s%s%s ret=%#x", __entry->unit,
		      __entry->write ? "write" : "read",
		      __entry->mkwrite ? " mkwrite" : "",
		      __entry->waited ? " remote" : " local", __entry->ret)
	    );

/*
 * A request that takes a unit away waited for the access a fault just
 * mapped (rx.c, let_access_run): grace_us, and how long it slept in fact
 * (a timer in a busy or emulated guest fires late).
 */
TRACE_EVENT(ddsm_grace,
	    TP_PROTO(u64 unit, u8 type, u32 asked_us, u64 slept_ns),
	    TP_ARGS(unit, type, asked_us, slept_ns),
	    TP_STRUCT__entry(
			     __field(u64, unit)
			     __field(u64, slept_ns)
			     __field(u32, asked_us)
			     __field(u8, type)
			     ),
	    TP_fast_assign(
			   __entry->unit = unit;
			   __entry->slept_ns = slept_ns;
			   __entry->asked_us = asked_us;
			   __entry->type = type;
			   ),
	    TP_printk("%s unit=%llu asked=%uus slept=%lluus",
		      ddsm_msg_type_name(__entry->type), __entry->unit,
		      __entry->asked_us, __entry->slept_ns / 1000)
	    );

/* A backup home took its predecessor's units over (replica.c). */
TRACE_EVENT(ddsm_takeover,
	    TP_PROTO(u32 pred, u64 loaded, u64 moved, u64 waiting),
	    TP_ARGS(pred, loaded, moved, waiting),
	    TP_STRUCT__entry(
			     __field(u64, loaded)
			     __field(u64, moved)
			     __field(u64, waiting)
			     __field(u32, pred)
			     ),
	    TP_fast_assign(
			   __entry->loaded = loaded;
			   __entry->moved = moved;
			   __entry->waiting = waiting;
			   __entry->pred = pred;
			   ),
	    TP_printk("pred=%u replica_images=%llu own_dirty=%llu handoff_from=%#llx",
		      __entry->pred, __entry->loaded, __entry->moved,
		      __entry->waiting)
	    );

/* Every move of the link to the backup (replica_home.c); "refused". */
TRACE_EVENT(ddsm_replica_link,
	    TP_PROTO(u32 backup, const char *from, const char *to),
	    TP_ARGS(backup, from, to),
	    TP_STRUCT__entry(__field(u32, backup)
			     __string(from, from)
			     __string(to, to)),
	    TP_fast_assign(__entry->backup = backup;
			   __assign_str(from, from);
			   __assign_str(to, to);),
	    TP_printk("backup=%u %s -> %s", __entry->backup, __get_str(from),
		      __get_str(to))
	    );

#endif /* DDSM_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
