/* SPDX-License-Identifier: GPL-2.0 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM ddsm_net

#if !defined(DDSM_TRACE_NET_H) || defined(TRACE_HEADER_MULTI_READ)
#define DDSM_TRACE_NET_H

#include <linux/tracepoint.h>

DECLARE_EVENT_CLASS(ddsm_net_msg_class,
		    TP_PROTO(u32 node, u8 type, u16 len, bool page),
		    TP_ARGS(node, type, len, page),
		    TP_STRUCT__entry(
				     __field(u32, node)
				     __field(u16, len)
				     __field(u8, type)
				     __field(bool, page)
				     ),
		    TP_fast_assign(
				   __entry->node = node;
				   __entry->len = len;
				   __entry->type = type;
				   __entry->page = page;
				   ),
		    TP_printk("node=%u type=%u len=%u%s", __entry->node, __entry->type,
			      __entry->len, __entry->page ? " +page" : "")
		    );

DEFINE_EVENT(ddsm_net_msg_class, ddsm_net_send,
	     TP_PROTO(u32 node, u8 type, u16 len, bool page),
	     TP_ARGS(node, type, len, page));
DEFINE_EVENT(ddsm_net_msg_class, ddsm_net_recv,
	     TP_PROTO(u32 node, u8 type, u16 len, bool page),
	     TP_ARGS(node, type, len, page));

TRACE_EVENT(ddsm_net_drop,
	    TP_PROTO(u32 node, u8 type, u32 bytes),
	    TP_ARGS(node, type, bytes),
	    TP_STRUCT__entry(
			     __field(u32, node)
			     __field(u32, bytes)
			     __field(u8, type)
			     ),
	    TP_fast_assign(
			   __entry->node = node;
			   __entry->bytes = bytes;
			   __entry->type = type;
			   ),
	    TP_printk("node=%u type=%u bytes=%u", __entry->node, __entry->type,
		      __entry->bytes)
	    );

/* A sender waits for room in a peer's send queue (rdma_tx.c). */
TRACE_EVENT(ddsm_net_txq_wait,
	    TP_PROTO(u32 node, u32 queued),
	    TP_ARGS(node, queued),
	    TP_STRUCT__entry(
			     __field(u32, node)
			     __field(u32, queued)
			     ),
	    TP_fast_assign(
			   __entry->node = node;
			   __entry->queued = queued;
			   ),
	    TP_printk("node=%u queued=%u", __entry->node, __entry->queued)
	    );

/* A peer's state (rdma_set_state()), a connection's (rdma_conn_move()). */
DECLARE_EVENT_CLASS(ddsm_state_class,
		    TP_PROTO(u32 node, const char *from, const char *to),
		    TP_ARGS(node, from, to),
		    TP_STRUCT__entry(
				     __field(u32, node)
				     __string(from, from)
				     __string(to, to)
				     ),
		    TP_fast_assign(
				   __entry->node = node;
				   __assign_str(from, from);
				   __assign_str(to, to);
				   ),
		    TP_printk("node=%u %s -> %s", __entry->node,
			      __get_str(from), __get_str(to))
		    );

DEFINE_EVENT(ddsm_state_class, ddsm_peer_state,
	     TP_PROTO(u32 node, const char *from, const char *to),
	     TP_ARGS(node, from, to));
/* A move rdma_conn_move() refused shows as "-> refused". */
DEFINE_EVENT(ddsm_state_class, ddsm_conn_state,
	     TP_PROTO(u32 node, const char *from, const char *to),
	     TP_ARGS(node, from, to));

TRACE_EVENT(ddsm_net_cm,
	    TP_PROTO(u32 node, const char *event, int status),
	    TP_ARGS(node, event, status),
	    TP_STRUCT__entry(
			     __field(u32, node)
			     __field(int, status)
			     __string(event, event)
			     ),
	    TP_fast_assign(
			   __entry->node = node;
			   __entry->status = status;
			   __assign_str(event, event);
			   ),
	    TP_printk("node=%u %s status=%d", __entry->node, __get_str(event),
		      __entry->status)
	    );

#endif /* DDSM_TRACE_NET_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace_net
#include <trace/define_trace.h>
