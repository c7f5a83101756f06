// SPDX-License-Identifier: GPL-2.0
/*
 * kv: the hash table of kv.h.  Layout arithmetic first, then the lock and
 * seqlock primitives, then the operations.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "kv.h"
#include "dsm_sync.h"

#define KV_CTRL_BYTES	16u	/* lock + seq */
#define KV_SLOT_HDR	24u	/* key, version, checksum */
#define KV_ALIGN	64u
#define KV_SPIN_YIELD	256u
#define KV_GOLDEN	0x9e3779b97f4a7c15ULL

static uint64_t kv_mix(uint64_t x)
{
	x += KV_GOLDEN;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static uint64_t div_up(uint64_t a, uint64_t b)
{
	return (a + b - 1) / b;
}

static uint64_t gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t r = a % b;

		a = b;
		b = r;
	}
	return a;
}

/* ---- layout ---- */

uint32_t kv_default_slots(uint32_t value_size)
{
	uint32_t n = (KV_UNIT - KV_CTRL_BYTES) / (KV_SLOT_HDR + value_size);

	if (n < 1)
		return 1;
	return n > KV_MAX_SLOTS ? KV_MAX_SLOTS : n;
}

uint64_t kv_buckets_for(uint64_t keys, uint32_t slots, double load)
{
	double b;

	if (!slots || load <= 0 || load > 1)
		return 0;
	b = (double)keys / ((double)slots * load);
	return b < 1 ? 1 : (uint64_t)b + ((double)(uint64_t)b < b);
}

static bool kv_params_ok(const struct kv_params *p)
{
	return p->nr_buckets && p->slots && p->slots <= KV_MAX_SLOTS &&
	       p->value_size && !(p->value_size % 8) &&
	       p->value_size <= (1u << 24) && p->pack &&
	       !(p->flags & ~KV_F_ALL) && p->nr_nodes;
}

/* Everything but magic and layout, from validated @p. */
static void kv_geometry(const struct kv_params *p, struct kv_header *h)
{
	uint64_t stride;

	memset(h, 0, sizeof(*h));
	h->flags = p->flags;
	h->nr_buckets = p->nr_buckets;
	h->slots = p->slots;
	h->value_size = p->value_size;
	h->pack = p->pack;
	h->nr_nodes = p->nr_nodes;
	h->slot_size = KV_SLOT_HDR + p->value_size;
	h->bucket_size = (uint32_t)div_up(KV_CTRL_BYTES +
					  (uint64_t)p->slots * h->slot_size,
					  KV_ALIGN) * KV_ALIGN;
	h->nr_groups = div_up(p->nr_buckets, p->pack);
	h->group_units = div_up((uint64_t)p->pack * h->bucket_size, KV_UNIT);
	stride = h->group_units;
	/* Coprime with the node count: n consecutive groups, n homes. */
	if (p->flags & KV_F_SPREAD)
		while (gcd(stride, p->nr_nodes) != 1)
			stride++;
	h->stride_units = stride;
	h->total_bytes = (1 + h->nr_groups * stride) * KV_UNIT;
}

uint64_t kv_bytes(const struct kv_params *p)
{
	struct kv_header h;

	if (!kv_params_ok(p))
		return 0;
	kv_geometry(p, &h);
	return h.total_bytes;
}

static void kv_load_handle(struct kv_table *t, char *base,
			   const struct kv_header *h)
{
	memset(t, 0, sizeof(*t));
	t->base = base;
	t->nr_buckets = h->nr_buckets;
	t->nr_groups = h->nr_groups;
	t->stride_bytes = h->stride_units * KV_UNIT;
	t->total_bytes = h->total_bytes;
	t->slots = h->slots;
	t->value_size = h->value_size;
	t->slot_size = h->slot_size;
	t->bucket_size = h->bucket_size;
	t->pack = h->pack;
	t->flags = h->flags;
	t->owner = 1;
	t->timeout = 120;
}

int kv_init(struct kv_table *t, void *base, size_t len,
	    const struct kv_params *p)
{
	struct kv_header h, *dst = base;

	if (!kv_params_ok(p))
		return -EINVAL;
	kv_geometry(p, &h);
	if (h.total_bytes > len)
		return -ENOSPC;
	/* Old contents would be live keys, and a stale lock held for ever. */
	memset(base, 0, h.total_bytes);
	h.layout = KV_LAYOUT;
	*dst = h;
	__atomic_store_n(&dst->magic, KV_MAGIC, __ATOMIC_RELEASE);
	kv_load_handle(t, base, &h);
	return 0;
}

int kv_attach(struct kv_table *t, void *base, size_t len)
{
	const struct kv_header *src = base;
	struct kv_header h, want;
	struct kv_params p;

	if (__atomic_load_n(&src->magic, __ATOMIC_ACQUIRE) != KV_MAGIC)
		return -EPROTO;
	h = *src;
	if (h.layout != KV_LAYOUT)
		return -EPROTO;
	p = (struct kv_params){ h.nr_buckets, h.slots, h.value_size,
				h.pack, h.flags, h.nr_nodes };
	if (!kv_params_ok(&p))
		return -EINVAL;
	/* Never trust the derived fields: recompute and compare. */
	kv_geometry(&p, &want);
	want.magic = h.magic;
	want.layout = h.layout;
	if (memcmp(&want, &h, sizeof(h)))
		return -EINVAL;
	if (h.total_bytes > len)
		return -ENOSPC;
	kv_load_handle(t, base, &h);
	return 0;
}

uint64_t kv_bucket_index(const struct kv_table *t, uint64_t key)
{
	if (t->flags & KV_F_DIRECT)
		return (key - 1) % t->nr_buckets;
	/* The high bits: a modulo would keep the low ones' patterns. */
	return (uint64_t)(((unsigned __int128)kv_mix(key) * t->nr_buckets) >>
			  64);
}

struct kv_bucket *kv_bucket_at(const struct kv_table *t, uint64_t b)
{
	uint64_t group, pos;

	if (t->flags & KV_F_SPREAD) {
		group = b % t->nr_groups;
		pos = b / t->nr_groups;
	} else {
		group = b / t->pack;
		pos = b % t->pack;
	}
	return (struct kv_bucket *)(t->base + KV_UNIT +
				    group * t->stride_bytes +
				    pos * t->bucket_size);
}

static struct kv_slot *kv_slot_at(const struct kv_table *t,
				  struct kv_bucket *b, uint32_t i)
{
	return (struct kv_slot *)((char *)b + KV_CTRL_BYTES +
				  (size_t)i * t->slot_size);
}

/* ---- values ---- */

void kv_fill_value(const struct kv_table *t, uint64_t key, uint64_t version,
		   void *buf)
{
	uint64_t s = kv_mix(key * KV_GOLDEN ^ kv_mix(version)), *w = buf;
	uint32_t i;

	/* Every word differs from every other (key, version)'s same word. */
	for (i = 0; i < t->value_size / 8; i++)
		w[i] = s + i * 0xd6e8feb86659fd93ULL;
}

bool kv_value_is_pattern(const struct kv_table *t, uint64_t key,
			 uint64_t version, const void *buf)
{
	uint64_t s = kv_mix(key * KV_GOLDEN ^ kv_mix(version));
	const uint64_t *w = buf;
	uint32_t i;

	for (i = 0; i < t->value_size / 8; i++)
		if (w[i] != s + i * 0xd6e8feb86659fd93ULL)
			return false;
	return true;
}

int kv_rmw_pattern(uint64_t key, uint64_t version, void *value, size_t size,
		   void *arg)
{
	const struct kv_table *t = arg;

	(void)size;
	if (!kv_value_is_pattern(t, key, version, value))
		return -EBADMSG;
	kv_fill_value(t, key, version + 1, value);
	return 0;
}

uint64_t kv_checksum(const struct kv_table *t, uint64_t key,
		     uint64_t version, const void *value)
{
	uint64_t h = kv_mix(key ^ kv_mix(version ^ 0xc5c5));
	const uint64_t *w = value;
	uint32_t i;

	/* Position-dependent, so swapped words do not cancel out. */
	for (i = 0; i < t->value_size / 8; i++) {
		h = (h ^ w[i]) * 0x100000001b3ULL;
		h ^= h >> 29;
	}
	return kv_mix(h);
}

int kv_verify_slot(const struct kv_table *t, const struct kv_slot *s)
{
	return kv_checksum(t, s->key, s->version, s->value) == s->checksum ?
	       0 : -EBADMSG;
}

/* ---- waiting: pause, yield every 256 tries, bounded ---- */

struct kv_spin {
	unsigned int tries;
	double t0;
};

/* One failed try; -ETIMEDOUT once the waits add up to t->timeout. */
static int kv_spin(const struct kv_table *t, struct kv_spin *sp)
{
	double now;

	if (++sp->tries % KV_SPIN_YIELD) {
		__builtin_ia32_pause();
		return 0;
	}
	/* The holder may be waiting for a CPU (or a fault) to finish. */
	sched_yield();
	now = dsm_now();
	if (!sp->t0)
		sp->t0 = now;
	else if (now - sp->t0 > t->timeout)
		return -ETIMEDOUT;
	return 0;
}

/*
 * Try LOCK CMPXCHG at once: uncontended, that is a single write fault on
 * a page DSM, where a load first would cost a read fault and then an
 * upgrade.  Contended, wait with loads (a read-only copy): even a failing
 * CMPXCHG is a write access that would take the unit from the holder.
 */
static int kv_lock(const struct kv_table *t, struct kv_bucket *b)
{
	struct kv_spin sp = { 0 };
	uint64_t free;

	for (;;) {
		free = 0;
		if (__atomic_compare_exchange_n(&b->lock, &free, t->owner,
						false, __ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED))
			return 0;
		do {
			if (kv_spin(t, &sp))
				return -ETIMEDOUT;
		} while (__atomic_load_n(&b->lock, __ATOMIC_RELAXED));
	}
}

static void kv_unlock(struct kv_bucket *b)
{
	__atomic_store_n(&b->lock, 0, __ATOMIC_RELEASE);
}

/* Holding the lock: readers must see seq odd before any changed byte. */
static void kv_write_begin(struct kv_bucket *b)
{
	uint64_t seq = __atomic_load_n(&b->seq, __ATOMIC_RELAXED);

	__atomic_store_n(&b->seq, seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
}

static void kv_write_end(struct kv_bucket *b)
{
	uint64_t seq = __atomic_load_n(&b->seq, __ATOMIC_RELAXED);

	__atomic_store_n(&b->seq, seq + 1, __ATOMIC_RELEASE);
}

/* An even seq to read under, or -ETIMEDOUT. */
static int kv_read_begin(const struct kv_table *t, struct kv_bucket *b,
			 struct kv_spin *sp, uint64_t *seq)
{
	for (;;) {
		*seq = __atomic_load_n(&b->seq, __ATOMIC_ACQUIRE);
		if (!(*seq & 1))
			return 0;
		if (kv_spin(t, sp))
			return -ETIMEDOUT;
	}
}

/*
 * After a copy made under @seq: 1 if no writer came meanwhile, 0 to copy
 * again under the new even *@seq, or -ETIMEDOUT.
 */
static int kv_read_end(const struct kv_table *t, struct kv_bucket *b,
		       struct kv_spin *sp, uint64_t *seq)
{
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (__atomic_load_n(&b->seq, __ATOMIC_RELAXED) == *seq)
		return 1;
	if (kv_spin(t, sp))
		return -ETIMEDOUT;
	return kv_read_begin(t, b, sp, seq);
}

static struct kv_slot *kv_find(const struct kv_table *t, struct kv_bucket *b,
			       uint64_t key)
{
	uint32_t i;

	for (i = 0; i < t->slots; i++) {
		struct kv_slot *s = kv_slot_at(t, b, i);

		if (__atomic_load_n(&s->key, __ATOMIC_RELAXED) == key)
			return s;
	}
	return NULL;
}

/* ---- operations ---- */

int kv_get(const struct kv_table *t, uint64_t key, void *buf,
	   uint64_t *version)
{
	struct kv_bucket *b;
	struct kv_spin sp = { 0 };
	uint64_t seq, ver = 0, sum = 0;
	struct kv_slot *s = NULL;
	int r;

	if (!key)
		return -EINVAL;
	b = kv_bucket_at(t, kv_bucket_index(t, key));
	for (r = kv_read_begin(t, b, &sp, &seq); !r;
	     r = kv_read_end(t, b, &sp, &seq)) {
		s = kv_find(t, b, key);
		if (s) {
			ver = __atomic_load_n(&s->version, __ATOMIC_RELAXED);
			sum = __atomic_load_n(&s->checksum, __ATOMIC_RELAXED);
			memcpy(buf, s->value, t->value_size);
		}
	}
	if (r < 0)
		return r;
	if (!s)
		return -ENOENT;
	if (kv_checksum(t, key, ver, buf) != sum)
		return -EBADMSG;
	*version = ver;
	return 0;
}

/* Holding the lock: give slot @s version @ver, value @buf or the pattern. */
static void kv_store(const struct kv_table *t, struct kv_bucket *b,
		     struct kv_slot *s, uint64_t key, uint64_t ver,
		     const void *buf)
{
	kv_write_begin(b);
	if (buf)
		memcpy(s->value, buf, t->value_size);
	else
		kv_fill_value(t, key, ver, s->value);
	s->version = ver;
	s->checksum = kv_checksum(t, key, ver, s->value);
	/* Atomic only because readers load it without the lock. */
	__atomic_store_n(&s->key, key, __ATOMIC_RELAXED);
	kv_write_end(b);
}

/*
 * Lock the bucket of @key and find @key's slot in it or, to @insert, a
 * free one.  Return: 0 holding the lock; not holding it, -ENOENT,
 * -ENOSPC (no free slot), -ETIMEDOUT or -EINVAL (key 0).
 */
static int kv_lock_slot(const struct kv_table *t, uint64_t key, bool insert,
			struct kv_bucket **b, struct kv_slot **s)
{
	if (!key)
		return -EINVAL;
	*b = kv_bucket_at(t, kv_bucket_index(t, key));
	if (kv_lock(t, *b))
		return -ETIMEDOUT;
	*s = kv_find(t, *b, key);
	if (!*s && insert)
		*s = kv_find(t, *b, 0);
	if (*s)
		return 0;
	kv_unlock(*b);
	return insert ? -ENOSPC : -ENOENT;
}

int64_t kv_put(const struct kv_table *t, uint64_t key, const void *buf)
{
	struct kv_bucket *b;
	struct kv_slot *s;
	uint64_t ver;
	int r = kv_lock_slot(t, key, true, &b, &s);

	if (r)
		return r;
	/* A free slot's key is 0: @key is new there. */
	ver = s->key ? s->version + 1 : 1;
	kv_store(t, b, s, key, ver, buf);
	kv_unlock(b);
	return (int64_t)ver;
}

int64_t kv_rmw(const struct kv_table *t, uint64_t key, kv_rmw_fn fn,
	       void *arg)
{
	struct kv_bucket *b;
	struct kv_slot *s;
	int64_t ret;

	if (!fn)
		return -EINVAL;
	ret = kv_lock_slot(t, key, false, &b, &s);
	if (ret)
		return ret;
	/* In place: readers see seq odd while fn changes the bytes. */
	kv_write_begin(b);
	ret = fn(key, s->version, s->value, t->value_size, arg);
	if (!ret) {
		s->version++;
		s->checksum = kv_checksum(t, key, s->version, s->value);
		ret = (int64_t)s->version;
	}
	kv_write_end(b);
	kv_unlock(b);
	return ret;
}

int kv_delete(const struct kv_table *t, uint64_t key)
{
	struct kv_bucket *b;
	struct kv_slot *s;
	int r = kv_lock_slot(t, key, false, &b, &s);

	if (r)
		return r;
	kv_write_begin(b);
	__atomic_store_n(&s->key, 0, __ATOMIC_RELAXED);
	s->version = 0;
	s->checksum = 0;
	kv_write_end(b);
	kv_unlock(b);
	return 0;
}

/* A stable copy of bucket @b in @copy (bucket_size bytes). */
static int kv_snapshot(const struct kv_table *t, struct kv_bucket *b,
		       void *copy)
{
	struct kv_spin sp = { 0 };
	uint64_t seq;
	int r;

	for (r = kv_read_begin(t, b, &sp, &seq); !r;
	     r = kv_read_end(t, b, &sp, &seq))
		memcpy(copy, b, t->bucket_size);
	return r < 0 ? r : 0;
}

int64_t kv_scan(const struct kv_table *t, kv_scan_fn fn, void *arg)
{
	struct kv_bucket *copy = malloc(t->bucket_size);
	int64_t seen = 0;
	uint64_t b;
	uint32_t i;
	int ret = 0;

	if (!copy)
		return -ENOMEM;
	for (b = 0; b < t->nr_buckets && !ret; b++) {
		ret = kv_snapshot(t, kv_bucket_at(t, b), copy);
		for (i = 0; i < t->slots && !ret; i++) {
			const struct kv_slot *s = kv_slot_at(t, copy, i);

			if (!s->key)
				continue;
			seen++;
			ret = fn(t, s, arg);
		}
	}
	free(copy);
	return ret ? ret : seen;
}
