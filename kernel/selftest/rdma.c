// SPDX-License-Identifier: GPL-2.0
/*
 * Self-test build only (selftest.h): self-test and benchmark of the RDMA
 * transport, driven through debugfs
 * (<debugfs>/ddsm/selftest): write a command, read the result line.
 *
 *   ping NODE COUNT SIZE     round trips of SIZE-byte payloads, contents checked
 *   rpc NODE COUNT           8-byte request, answered with a 4 KiB unit (the peer's
 *                            pattern frame 0) in the answer: the shape of a read miss
 *   xfer NODE COUNT          4 KiB RDMA WRITE to the peer's frame, READ back, CRC compared
 *   bw NODE COUNT DEPTH      pipelined 4 KiB RDMA WRITEs, DEPTH in flight
 *   check NODE IDX SEED      RDMA READ of the peer's frame IDX, CRC against pattern SEED
 *   fill IDX SEED / sum IDX  set / checksum a local frame
 *
 * Frame pool layout, the same on every node: frames 0..15 hold pattern
 * (node * 1000 + index) from load time, so any node can check any other's
 * memory without coordination; then one inbound slice per node, which only
 * that node writes remotely; the rest is local scratch.  Concurrent tests
 * from several nodes therefore never overwrite each other's data.  The
 * <debugfs>/ddsm/inject file (module parameter inject=1 only) sends
 * malformed messages to a peer: "NODE msg HEXBYTES" hands garbage to the
 * peer's protocol validator, "NODE type N" sends an unknown transport type.
 */
#define pr_fmt(fmt) "ddsm: " fmt

#include <linux/debugfs.h>
#include <linux/crc32.h>
#include <linux/ktime.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/uaccess.h>
#include <linux/highmem.h>
#include <linux/mm.h>
#include "../net/rdma.h"

#define TEST_PATTERN_FRAMES	16
#define TEST_MAX_COUNT		1000000
#define TEST_MAX_PING		128

struct rdma_test {
	struct rdma_tp *tp;
	struct dentry *selftest, *inject;
	struct mutex lock;		/* one command at a time */
	char result[512];

	spinlock_t plock;		/* the ping in flight */
	u64 cookie;
	u32 node;
	u16 size;
	bool waiting, ok, down;
	bool want_page;			/* rpc: the answer carries a unit */
	struct page *rx_page;		/* rpc: where the unit is copied */
	struct completion pong;
	u64 seq;
};

static void fill_pattern(struct page *page, u32 seed)
{
	u32 *p = kmap_local_page(page);
	u32 i, x = seed * 2654435761u + 1;

	for (i = 0; i < PAGE_SIZE / sizeof(u32); i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		p[i] = x;
	}
	kunmap_local(p);
}

static u32 page_crc(struct page *page)
{
	void *p = kmap_local_page(page);
	u32 crc = crc32_le(~0, p, PAGE_SIZE);

	kunmap_local(p);
	return crc;
}

static u32 pattern_crc(struct rdma_tp *tp, u32 seed, struct page *scratch)
{
	fill_pattern(scratch, seed);
	return page_crc(scratch);
}

/* Frames peer @writer may write in a pool of @frames shared by @nodes. */
static void inbound_slice(u32 frames, u32 nodes, u32 writer, u32 *base,
			  u32 *len)
{
	/* A pool too small for slices (rdma_frames=1..16) has none. */
	u32 per = frames > TEST_PATTERN_FRAMES ?
		  (frames - TEST_PATTERN_FRAMES) / (2 * nodes) : 0;

	*len = per;
	*base = min(frames, TEST_PATTERN_FRAMES + writer * per);
}

/* Local frames nobody else writes: [*base, *base + *len). */
static void scratch_area(struct rdma_tp *tp, u32 *base, u32 *len)
{
	u32 b, l;

	inbound_slice(tp->nr_frames, tp->nr_nodes, tp->nr_nodes, &b, &l);
	*base = b;
	*len = tp->nr_frames > b ? tp->nr_frames - b : 0;
}

static u8 ping_byte(u64 cookie, u32 i)
{
	return (u8)(cookie * 31 + i * 7);
}

void ddsm_rdma_test_pong(struct rdma_tp *tp, u32 from, u64 cookie,
			 const void *payload, u16 len, struct page *page)
{
	struct rdma_test *t = tp->test;
	const u8 *p = payload;
	bool ok = true;
	u32 i;

	if (!t)
		return;
	for (i = 0; i < len; i++)
		ok &= p[i] == ping_byte(cookie, i);
	spin_lock_bh(&t->plock);
	if (t->waiting && t->cookie == cookie && t->node == from) {
		/* Copied as the protocol copies a unit; checked after timing. */
		if (page && t->want_page)
			copy_highpage(t->rx_page, page);
		t->ok = ok && len == t->size && !page == !t->want_page;
		t->waiting = false;
		complete(&t->pong);
	}
	spin_unlock_bh(&t->plock);
}

void ddsm_rdma_test_peer_down(struct rdma_tp *tp, u32 node)
{
	struct rdma_test *t = tp->test;

	if (!t)
		return;
	spin_lock_bh(&t->plock);
	if (t->waiting && t->node == node) {
		t->down = true;
		t->waiting = false;
		complete(&t->pong);
	}
	spin_unlock_bh(&t->plock);
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* One ping (or rpc) and its answer; *@rtt_ns: the round trip. */
static int ping_once(struct rdma_test *t, u32 node, u32 size, bool want_page,
		     unsigned long wait, u64 *rtt_ns)
{
	u64 cookie = ++t->seq, t0;
	u8 payload[TEST_MAX_PING];
	u32 k;
	int ret;

	for (k = 0; k < size; k++)
		payload[k] = ping_byte(cookie, k);
	spin_lock_bh(&t->plock);
	reinit_completion(&t->pong);
	t->cookie = cookie;
	t->node = node;
	t->size = size;
	t->ok = false;
	t->down = false;
	t->want_page = want_page;
	t->waiting = true;
	spin_unlock_bh(&t->plock);

	t0 = ktime_get_ns();
	ret = ddsm_rdma_send_raw(t->tp, node, RDMA_T_PING,
				 want_page ? RDMA_HF_WANT_PAGE : 0,
				 cookie, payload, size, NULL);
	if (!ret && !wait_for_completion_timeout(&t->pong, wait))
		ret = -ETIMEDOUT;
	spin_lock_bh(&t->plock);
	t->waiting = false;
	if (!ret && t->down)
		ret = -EHOSTDOWN;
	spin_unlock_bh(&t->plock);
	*rtt_ns = ktime_get_ns() - t0;
	return ret;
}

/*
 * @want_page: each answer carries the peer's pattern frame 0, copied into
 * a local page inside the timed round trip and checked after it.
 */
static int run_ping(struct rdma_test *t, u32 node, u32 count, u32 size,
		    bool want_page)
{
	unsigned long wait = msecs_to_jiffies(t->tp->peer_timeout_ms + 1000);
	struct page *check = NULL;
	u32 i, good = 0, bad = 0, lost = 0, want_crc = 0;
	u64 *rtt, sum = 0;
	int ret = 0;

	if (size > TEST_MAX_PING)
		return -EINVAL;
	rtt = kvcalloc(count, sizeof(*rtt), GFP_KERNEL);
	if (!rtt)
		return -ENOMEM;
	if (want_page) {
		check = alloc_page(GFP_KERNEL);
		t->rx_page = alloc_page(GFP_KERNEL);
		if (!check || !t->rx_page) {
			ret = -ENOMEM;
			goto out;
		}
		want_crc = pattern_crc(t->tp, node * 1000, check);
	}
	for (i = 0; i < count; i++) {
		ret = ping_once(t, node, size, want_page, wait, &rtt[good + bad]);
		if (ret)
			break;
		sum += rtt[good + bad];
		if (t->ok && want_page) {
			t->ok = page_crc(t->rx_page) == want_crc;
			clear_highpage(t->rx_page);
		}
		if (t->ok)
			good++;
		else
			bad++;
	}
	lost = count - good - bad;
	if (good + bad)
		sort(rtt, good + bad, sizeof(*rtt), cmp_u64, NULL);
	snprintf(t->result, sizeof(t->result),
		 "%s node=%u count=%u size=%u ok=%u bad=%u lost=%u error=%d rtt_avg_ns=%llu rtt_min_ns=%llu rtt_p50_ns=%llu\n",
		 want_page ? "rpc" : "ping", node, count, size, good, bad,
		 lost, ret, good + bad ? div_u64(sum, good + bad) : 0,
		 good + bad ? rtt[0] : 0, good + bad ? rtt[(good + bad) / 2] : 0);
out:
	/* A late answer must not copy into a freed page. */
	spin_lock_bh(&t->plock);
	t->want_page = false;
	spin_unlock_bh(&t->plock);
	if (t->rx_page)
		__free_page(t->rx_page);
	t->rx_page = NULL;
	if (check)
		__free_page(check);
	kvfree(rtt);
	return ret == -ENOMEM ? ret : 0;
}

/* A transfer the waiter may give up on; whoever comes last frees it. */
struct test_io {
	struct rdma_io io;
	struct completion done;
	atomic_t state;		/* 0 pending, 1 done, 2 abandoned */
	atomic_t *inflight;	/* bw: counter to drop */
	wait_queue_head_t *wq;
	atomic_t *errors;
};

static void test_io_done(struct rdma_io *io)
{
	struct test_io *tio = container_of(io, struct test_io, io);

	if (tio->inflight) {
		if (io->status)
			atomic_inc(tio->errors);
		atomic_dec(tio->inflight);
		wake_up(tio->wq);
		kfree(tio);
		return;
	}
	complete(&tio->done);
	if (atomic_xchg(&tio->state, 1) == 2)
		kfree(tio);
}

/* One synchronous transfer: 0, or the transport's or completion's error. */
static int sync_io(struct rdma_test *t, u32 node, bool write, u32 local,
		   u32 remote, u64 *ns)
{
	unsigned long wait = msecs_to_jiffies(t->tp->peer_timeout_ms + 5000);
	struct test_io *tio = kzalloc(sizeof(*tio), GFP_KERNEL);
	u64 t0;
	int ret;

	if (!tio)
		return -ENOMEM;
	init_completion(&tio->done);
	tio->io.done = test_io_done;
	t0 = ktime_get_ns();
	ret = ddsm_rdma_page_io(t->tp, node, write, local, remote, &tio->io);
	if (ret) {
		kfree(tio);
		return ret;
	}
	if (!wait_for_completion_timeout(&tio->done, wait)) {
		/* Still on the QP: it frees itself when flushed. */
		if (atomic_xchg(&tio->state, 2) == 0)
			return -ETIMEDOUT;
	}
	*ns = ktime_get_ns() - t0;
	ret = tio->io.status;
	kfree(tio);
	return ret;
}

static int run_xfer(struct rdma_test *t, u32 node, u32 count)
{
	struct rdma_tp *tp = t->tp;
	u32 rbase, rlen, sbase, slen;
	u64 wsum = 0, rsum = 0, ns;
	u32 i, good = 0, bad = 0;
	int ret = 0;

	inbound_slice(tp->peers[node].remote_frames, tp->nr_nodes, tp->t.self,
		      &rbase, &rlen);
	scratch_area(tp, &sbase, &slen);
	if (!rlen || slen < 2)
		return -EINVAL;
	for (i = 0; i < count; i++) {
		u32 src = sbase + i % (slen / 2);
		u32 back = sbase + slen / 2 + i % (slen / 2);
		u32 remote = rbase + i % rlen;

		fill_pattern(tp->frames[src], tp->t.self * 100003 + i);
		ret = sync_io(t, node, true, src, remote, &ns);
		if (ret)
			break;
		wsum += ns;
		ret = sync_io(t, node, false, back, remote, &ns);
		if (ret)
			break;
		rsum += ns;
		if (page_crc(tp->frames[src]) == page_crc(tp->frames[back]))
			good++;
		else
			bad++;
	}
	snprintf(t->result, sizeof(t->result),
		 "xfer node=%u count=%u ok=%u bad=%u error=%d write_avg_ns=%llu read_avg_ns=%llu\n",
		 node, count, good, bad, ret,
		 good + bad ? div_u64(wsum, good + bad) : 0,
		 good + bad ? div_u64(rsum, good + bad) : 0);
	return 0;
}

static int run_bw(struct rdma_test *t, u32 node, u32 count, u32 depth)
{
	struct rdma_tp *tp = t->tp;
	u32 rbase, rlen, sbase, slen;
	DECLARE_WAIT_QUEUE_HEAD_ONSTACK(wq);
	atomic_t inflight = ATOMIC_INIT(0);
	atomic_t errors = ATOMIC_INIT(0);
	u64 t0, ns;
	u32 i;
	int ret = 0;

	inbound_slice(tp->peers[node].remote_frames, tp->nr_nodes, tp->t.self,
		      &rbase, &rlen);
	scratch_area(tp, &sbase, &slen);
	if (!depth || depth > RDMA_MAX_IOS || !rlen || !slen)
		return -EINVAL;
	t0 = ktime_get_ns();
	for (i = 0; i < count; i++) {
		struct test_io *tio;

		wait_event(wq, atomic_read(&inflight) < depth);
		tio = kzalloc(sizeof(*tio), GFP_KERNEL);
		if (!tio) {
			ret = -ENOMEM;
			break;
		}
		tio->io.done = test_io_done;
		tio->inflight = &inflight;
		tio->errors = &errors;
		tio->wq = &wq;
		atomic_inc(&inflight);
		ret = ddsm_rdma_page_io(tp, node, true, sbase + i % slen,
					rbase + i % rlen, &tio->io);
		if (ret == -EBUSY) {
			atomic_dec(&inflight);
			kfree(tio);
			wait_event(wq, atomic_read(&inflight) < depth / 2 + 1);
			i--;
			ret = 0;
		} else if (ret) {
			atomic_dec(&inflight);
			kfree(tio);
			break;	/* @i counts only transfers that were posted */
		}
	}
	/* Every posted transfer completes, with an error if the peer died. */
	wait_event(wq, !atomic_read(&inflight));
	ns = ktime_get_ns() - t0;
	snprintf(t->result, sizeof(t->result),
		 "bw node=%u count=%u depth=%u done=%u errors=%d error=%d ns=%llu mb_per_s=%llu ops_per_s=%llu\n",
		 node, count, depth, i, atomic_read(&errors), ret, ns,
		 ns ? div64_u64((u64)i * PAGE_SIZE * 1000, ns) : 0,
		 ns ? div64_u64((u64)i * NSEC_PER_SEC, ns) : 0);
	return 0;
}

static int run_check(struct rdma_test *t, u32 node, u32 idx, u32 seed)
{
	struct rdma_tp *tp = t->tp;
	u32 scratch = tp->nr_frames - 1, want, got;
	u64 ns;
	int ret;

	/* It needs the last frame and the one before it. */
	if (tp->nr_frames < 2)
		return -EINVAL;
	ret = sync_io(t, node, false, scratch, idx, &ns);
	if (ret)
		return ret;
	got = page_crc(tp->frames[scratch]);
	want = pattern_crc(tp, seed, tp->frames[scratch - 1]);
	snprintf(t->result, sizeof(t->result),
		 "check node=%u idx=%u %s crc=%08x want=%08x ns=%llu\n", node,
		 idx, got == want ? "ok" : "bad", got, want, ns);
	return 0;
}

static int run_command(struct rdma_test *t, char *cmd)
{
	struct rdma_tp *tp = t->tp;
	u32 a = 0, b = 0, c = 0;
	char verb[8];
	int n;

	n = sscanf(cmd, "%7s %u %u %u", verb, &a, &b, &c);
	if (n < 2)
		return -EINVAL;
	if (!strcmp(verb, "fill") && n == 3 && a < tp->nr_frames) {
		fill_pattern(tp->frames[a], b);
		snprintf(t->result, sizeof(t->result), "fill idx=%u seed=%u\n",
			 a, b);
		return 0;
	}
	if (!strcmp(verb, "sum") && n == 2 && a < tp->nr_frames) {
		snprintf(t->result, sizeof(t->result), "sum idx=%u crc=%08x\n",
			 a, page_crc(tp->frames[a]));
		return 0;
	}
	if (a >= tp->nr_nodes || a == tp->t.self)
		return -EINVAL;
	if (!strcmp(verb, "ping") && n == 4 && b && b <= TEST_MAX_COUNT)
		return run_ping(t, a, b, c, false);
	if (!strcmp(verb, "rpc") && n == 3 && b && b <= TEST_MAX_COUNT)
		return run_ping(t, a, b, 8, true);
	if (!strcmp(verb, "xfer") && n == 3 && b && b <= TEST_MAX_COUNT)
		return run_xfer(t, a, b);
	if (!strcmp(verb, "bw") && n == 4 && b && b <= TEST_MAX_COUNT)
		return run_bw(t, a, b, c);
	if (!strcmp(verb, "check") && n == 4)
		return run_check(t, a, b, c);
	return -EINVAL;
}

static ssize_t selftest_write(struct file *file, const char __user *ubuf,
			      size_t len, loff_t *ppos)
{
	struct rdma_test *t = file->private_data;
	char cmd[64];
	int ret;

	if (len >= sizeof(cmd))
		return -EINVAL;
	if (copy_from_user(cmd, ubuf, len))
		return -EFAULT;
	cmd[len] = '\0';
	mutex_lock(&t->lock);
	t->result[0] = '\0';
	ret = run_command(t, cmd);
	mutex_unlock(&t->lock);
	return ret ? ret : len;
}

static ssize_t selftest_read(struct file *file, char __user *ubuf,
			     size_t len, loff_t *ppos)
{
	struct rdma_test *t = file->private_data;
	ssize_t ret;

	mutex_lock(&t->lock);
	ret = simple_read_from_buffer(ubuf, len, ppos, t->result,
				      strlen(t->result));
	mutex_unlock(&t->lock);
	return ret;
}

static const struct file_operations selftest_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = selftest_read,
	.write = selftest_write,
	.llseek = default_llseek,
};

static ssize_t inject_write(struct file *file, const char __user *ubuf,
			    size_t len, loff_t *ppos)
{
	struct rdma_test *t = file->private_data;
	u8 bytes[RDMA_MAX_PAYLOAD];
	char cmd[2 * RDMA_MAX_PAYLOAD + 32], hex[2 * RDMA_MAX_PAYLOAD + 1];
	u32 node, type, n;
	int ret;

	if (len >= sizeof(cmd))
		return -EINVAL;
	if (copy_from_user(cmd, ubuf, len))
		return -EFAULT;
	cmd[len] = '\0';
	if (sscanf(cmd, "%u type %u", &node, &type) == 2) {
		if (type > 255)
			return -EINVAL;
		ret = ddsm_rdma_send_raw(t->tp, node, type, 0, 0, NULL, 0,
					 NULL);
	} else if (sscanf(cmd, "%u msg %480s", &node, hex) == 2) {
		n = strlen(hex) / 2;
		if (!n || n > sizeof(bytes) || strlen(hex) != 2 * n ||
		    hex2bin(bytes, hex, n))
			return -EINVAL;
		ret = ddsm_rdma_send_raw(t->tp, node, RDMA_T_MSG, 0, 0, bytes,
					 n, NULL);
	} else {
		return -EINVAL;
	}
	return ret ? ret : len;
}

static const struct file_operations inject_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = inject_write,
	.llseek = default_llseek,
};

int ddsm_rdma_test_init(struct rdma_tp *tp, const struct ddsm_rdma_config *cfg)
{
	struct rdma_test *t;
	u32 i;

	for (i = 0; i < TEST_PATTERN_FRAMES && i < tp->nr_frames; i++)
		fill_pattern(tp->frames[i], cfg->self * 1000 + i);
	if (!cfg->debugfs)
		return 0;
	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	t->tp = tp;
	mutex_init(&t->lock);
	spin_lock_init(&t->plock);
	init_completion(&t->pong);
	t->selftest = debugfs_create_file("selftest", 0600, cfg->debugfs, t,
					  &selftest_fops);
	/* Off by default: a test-only way to send garbage to a peer. */
	if (cfg->inject)
		t->inject = debugfs_create_file("inject", 0200, cfg->debugfs,
						t, &inject_fops);
	tp->test = t;
	return 0;
}

void ddsm_rdma_test_exit(struct rdma_tp *tp)
{
	struct rdma_test *t = tp->test;

	if (!t)
		return;
	debugfs_remove(t->selftest);
	debugfs_remove(t->inject);
	tp->test = NULL;
	kfree(t);
}
