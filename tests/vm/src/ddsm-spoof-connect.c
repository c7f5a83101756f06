// SPDX-License-Identifier: GPL-2.0
/*
 * ddsm-spoof-connect: a host on the RoCE segment that claims to be a
 * node (issue 34, item 2).  From wherever it runs (the auth component runs
 * it on the claimed node itself, so the source address is the one the
 * target has configured for that node), it asks TARGET for a ddsm
 * connection as node CLAIM, with a well-formed request.  MODE silent then
 * proves nothing (no HELLO, no AUTH); MODE wrongkey answers TARGET's HELLO
 * with a HELLO of its own (TARGET's global space, a fresh nonce) and an
 * AUTH that is random bytes, as a node with another key would.  It
 * reports what TARGET sent before any proof (its HELLO: is a frame pool's
 * rkey in it?) and how the connection ended.
 *
 *   ddsm-spoof-connect MODE TARGET_IP PORT CLAIM NODES HOLD_SECS
 *
 * Lines on stdout: "established" or "not established: EVENT"; "hello
 * flags F rkey R frames N" for each HELLO received; "ended after MS ms:
 * EVENT" or "still connected after S s".  Exit 0 once established.
 *
 * Built against librdmacm and libibverbs (dynamically: the guests carry
 * them for perftest), so its rule in tests/vm/Makefile is its own.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
#include "wire.h"	/* kernel/net: the transport's framing */

#define RECVS		8
#define RECV_BYTES	(RDMA_SLOT_SIZE + 4096)

static bool wrong_key;
static unsigned int claim;
static char sendbuf[2][RDMA_SLOT_SIZE];
static struct ibv_mr *send_mr;

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* The next CM event within @ms, acknowledged; its kind, or -1. */
static int next_event(struct rdma_event_channel *ch, int ms)
{
	struct pollfd p = { .fd = ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;
	int kind;

	if (poll(&p, 1, ms) <= 0 || rdma_get_cm_event(ch, &ev))
		return -1;
	kind = ev->event;
	rdma_ack_cm_event(ev);
	return kind;
}

static int expect(struct rdma_event_channel *ch, int want, const char *what)
{
	int got = next_event(ch, 5000);

	if (got == want)
		return 0;
	printf("not established: %s (%s)\n", what,
	       got < 0 ? "no event" : rdma_event_str(got));
	return -1;
}

static int post_recv(struct rdma_cm_id *id, struct ibv_mr *mr, char *buf,
		     int i)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(buf + (size_t)i * RECV_BYTES),
		.length = RECV_BYTES,
		.lkey = mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	return ibv_post_recv(id->qp, &wr, &bad);
}

/* One SEND of @len payload bytes after a transport header. */
static int send_msg(struct rdma_cm_id *id, int i, u8 type, const void *p,
		    u16 len)
{
	struct rdma_hdr *h = (void *)sendbuf[i];
	struct ibv_sge sge = {
		.addr = (uintptr_t)h,
		.length = sizeof(*h) + len,
		.lkey = send_mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = i, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_send_wr *bad;

	memset(h, 0, sizeof(*h));
	h->magic = RDMA_HDR_MAGIC;
	h->type = type;
	h->len = htole16(len);
	memcpy(h + 1, p, len);
	return ibv_post_send(id->qp, &wr, &bad);
}

/*
 * As a node with another key: our HELLO (TARGET's space, a nonce, no
 * frame pool) and an AUTH that cannot verify.
 */
static void answer_hello(struct rdma_cm_id *id, const struct rdma_hello *in)
{
	struct rdma_hello h = {
		.node_id = htole32(claim),
		.flags = htole32(RDMA_HELLO_AUTH),
		.space_size = in->space_size,
		.home_policy = in->home_policy,
	};
	struct rdma_auth a;
	size_t i;

	for (i = 0; i < sizeof(h.nonce); i++)
		h.nonce[i] = (u8)rand();
	for (i = 0; i < sizeof(a.mac); i++)
		a.mac[i] = (u8)rand();
	if (send_msg(id, 0, RDMA_T_HELLO, &h, sizeof(h)) ||
	    send_msg(id, 1, RDMA_T_AUTH, &a, sizeof(a)))
		printf("send failed: %s\n", strerror(errno));
	else
		printf("sent a HELLO and an AUTH of another key\n");
}

/* Report what came in: HELLOs in full, the rest by type. */
static void drain(struct rdma_cm_id *id, struct ibv_cq *cq,
		  struct ibv_mr *mr, char *buf)
{
	struct ibv_wc wc;

	while (ibv_poll_cq(cq, 1, &wc) == 1) {
		const struct rdma_hdr *h;
		const struct rdma_hello *hello;

		if (wc.status != IBV_WC_SUCCESS || !(wc.opcode & IBV_WC_RECV))
			continue;
		h = (const void *)(buf + wc.wr_id * RECV_BYTES);
		hello = (const void *)(h + 1);
		if (h->type == RDMA_T_HELLO &&
		    wc.byte_len >= sizeof(*h) + sizeof(*hello)) {
			printf("hello flags %u rkey %#x frames %u\n",
			       le32toh(hello->flags), le32toh(hello->rkey),
			       le32toh(hello->nr_frames));
			if (wrong_key)
				answer_hello(id, hello);
		} else
			printf("message type %u\n", h->type);
		fflush(stdout);
		post_recv(id, mr, buf, (int)wc.wr_id);
	}
}

int main(int argc, char **argv)
{
	struct rdma_conn_req req = {
		.magic = htole32(RDMA_CONN_MAGIC),
		.version = htole16(RDMA_CONN_VERSION),
	};
	struct rdma_conn_param cp = {
		.private_data = &req,
		.private_data_len = sizeof(req),
		.responder_resources = 1,
		.initiator_depth = 1,
		.retry_count = 7,
		.rnr_retry_count = 7,
	};
	struct sockaddr_in dst = { .sin_family = AF_INET };
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = RECVS,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	long long t0, end;
	char *buf;
	int i, ev;

	if (argc != 7 || inet_pton(AF_INET, argv[2], &dst.sin_addr) != 1 ||
	    (strcmp(argv[1], "silent") && strcmp(argv[1], "wrongkey"))) {
		fprintf(stderr, "usage: %s silent|wrongkey TARGET_IP PORT CLAIM NODES HOLD_SECS\n",
			argv[0]);
		return 2;
	}
	wrong_key = !strcmp(argv[1], "wrongkey");
	srand((unsigned int)now_ms() ^ (unsigned int)getpid());
	dst.sin_port = htons(atoi(argv[3]));
	claim = atoi(argv[4]);
	req.node_id = htole16(claim);
	req.nr_nodes = htole16(atoi(argv[5]));
	ch = rdma_create_event_channel();
	if (!ch || rdma_create_id(ch, &id, NULL, RDMA_PS_TCP)) {
		printf("not established: rdma_cm: %s\n", strerror(errno));
		return 1;
	}
	if (rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst, 2000) ||
	    expect(ch, RDMA_CM_EVENT_ADDR_RESOLVED, "address"))
		return 1;
	if (rdma_resolve_route(id, 2000) ||
	    expect(ch, RDMA_CM_EVENT_ROUTE_RESOLVED, "route"))
		return 1;
	pd = ibv_alloc_pd(id->verbs);
	cq = pd ? ibv_create_cq(id->verbs, 2 * RECVS, NULL, NULL, 0) : NULL;
	buf = calloc(RECVS, RECV_BYTES);
	mr = cq && buf ? ibv_reg_mr(pd, buf, (size_t)RECVS * RECV_BYTES,
				    IBV_ACCESS_LOCAL_WRITE) : NULL;
	send_mr = mr ? ibv_reg_mr(pd, sendbuf, sizeof(sendbuf), 0) : NULL;
	qa.send_cq = cq;
	qa.recv_cq = cq;
	if (!send_mr || rdma_create_qp(id, pd, &qa)) {
		printf("not established: verbs: %s\n", strerror(errno));
		return 1;
	}
	for (i = 0; i < RECVS; i++)
		post_recv(id, mr, buf, i);
	if (rdma_connect(id, &cp) ||
	    expect(ch, RDMA_CM_EVENT_ESTABLISHED, "connect"))
		return 1;
	printf("established\n");
	fflush(stdout);
	t0 = now_ms();
	end = t0 + atoi(argv[6]) * 1000LL;
	for (;;) {
		drain(id, cq, mr, buf);
		ev = next_event(ch, 50);
		if (ev >= 0) {
			drain(id, cq, mr, buf);
			printf("ended after %lld ms: %s\n", now_ms() - t0,
			       rdma_event_str(ev));
			break;
		}
		if (now_ms() > end) {
			printf("still connected after %s s\n", argv[6]);
			rdma_disconnect(id);
			break;
		}
	}
	fflush(stdout);
	rdma_destroy_qp(id);
	ibv_dereg_mr(send_mr);
	ibv_dereg_mr(mr);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	rdma_destroy_id(id);
	rdma_destroy_event_channel(ch);
	return 0;
}
