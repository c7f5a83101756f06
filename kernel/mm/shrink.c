// SPDX-License-Identifier: GPL-2.0
/*
 * Cache frames go back under memory pressure.  A cache frame holds a copy
 * of a unit homed elsewhere: dropping it costs a fault later, never data
 * (a modified copy goes home first, as EVICT_MODIFIED).  The frame is
 * freed when home acknowledges, so a scan reports the evictions it
 * started.  It never waits for a lock: reclaim can run in a task that
 * already holds a line lock or is rebuilding the node (cfg_sem).
 */
#include <linux/mm.h>
#include <linux/shrinker.h>
#include <linux/slab.h>
#include "mm.h"
#include "../node/node.h"

#ifdef DDSM_HAVE_SHRINKER_ALLOC		/* 6.7 and later */
static struct ddsm_node *shrinker_node(struct shrinker *s)
{
	return s->private_data;
}
#else
struct ddsm_shrinker {
	struct shrinker s;
	struct ddsm_node *n;
};

static struct ddsm_node *shrinker_node(struct shrinker *s)
{
	return container_of(s, struct ddsm_shrinker, s)->n;
}
#endif

static unsigned long frames_count(struct shrinker *s,
				  struct shrink_control *sc)
{
	struct ddsm_node *n = shrinker_node(s);
	s64 c = atomic64_read(&n->frames.cached) -
		atomic64_read(&n->frames.evicting);

	return c > 0 ? c : 0;
}

static unsigned long frames_scan(struct shrinker *s,
				 struct shrink_control *sc)
{
	struct ddsm_node *n = shrinker_node(s);
	unsigned long started = 0, tries;
	u64 victim;

	if (!down_read_trylock(&n->cfg_sem))
		return SHRINK_STOP;
	for (tries = 0; started < sc->nr_to_scan &&
	     tries < 2 * sc->nr_to_scan; tries++) {
		if (!ddsm_frames_clock_next(n, &victim))
			break;
		if (ddsm_node_evict(n, victim, true, true))
			started++;
	}
	up_read(&n->cfg_sem);
	return started ?: SHRINK_STOP;
}

int ddsm_shrinker_register(struct ddsm_node *n)
{
#ifdef DDSM_HAVE_SHRINKER_ALLOC
	struct shrinker *s = shrinker_alloc(0, "ddsm-frames");

	if (!s)
		return -ENOMEM;
	s->count_objects = frames_count;
	s->scan_objects = frames_scan;
	s->private_data = n;
	shrinker_register(s);
	n->shrinker = s;
	return 0;
#else
	struct ddsm_shrinker *ds = kzalloc(sizeof(*ds), GFP_KERNEL);
	int ret;

	if (!ds)
		return -ENOMEM;
	ds->n = n;
	ds->s.count_objects = frames_count;
	ds->s.scan_objects = frames_scan;
	ds->s.seeks = DEFAULT_SEEKS;
	ret = register_shrinker(&ds->s, "ddsm-frames");
	if (ret) {
		kfree(ds);
		return ret;
	}
	n->shrinker = &ds->s;
	return 0;
#endif
}

void ddsm_shrinker_unregister(struct ddsm_node *n)
{
	if (!n->shrinker)
		return;
#ifdef DDSM_HAVE_SHRINKER_ALLOC
	shrinker_free(n->shrinker);
#else
	unregister_shrinker(n->shrinker);
	kfree(container_of(n->shrinker, struct ddsm_shrinker, s));
#endif
	n->shrinker = NULL;
}
