/* SPDX-License-Identifier: MIT */
#include "coherence.h"
#include "mm_error.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

static inline int bit_test(const uint64_t *b, int i)
{
	return (b[i >> 6] >> (i & 63)) & 1;
}

static inline void bit_set(uint64_t *b, int i)
{
	b[i >> 6] |= 1ULL << (i & 63);
}

int coh_model_init(struct coh_model *m, const struct topology *topo, const struct hw_profile *hw)
{
	const int nw = (topo->ncpus + 63) / 64;

	memset(m, 0, sizeof(*m));
	m->topo = topo;
	m->nwords = nw;
	m->core_mask = calloc((size_t)topo->ncores * nw, sizeof(uint64_t));
	m->l3_mask = calloc((size_t)topo->nl3 * nw, sizeof(uint64_t));
	m->pkg_mask = calloc((size_t)topo->npackages * nw, sizeof(uint64_t));
	m->pkg_of_node = calloc(topo->nnuma, sizeof(int));
	if (topo->pkg_hops) {
		m->near_mask = calloc((size_t)topo->npackages * nw, sizeof(uint64_t));
		m->far_mask = calloc((size_t)topo->npackages * nw, sizeof(uint64_t));
	}
	if (!m->core_mask || !m->l3_mask || !m->pkg_mask || !m->pkg_of_node ||
	    (topo->pkg_hops && (!m->near_mask || !m->far_mask))) {
		coh_model_free(m);
		return MM_ENOMEM;
	}
	for (int c = 0; c < topo->ncpus; c++) {
		const struct topo_cpu *tc = &topo->cpu[c];

		bit_set(m->core_mask + (size_t)tc->core * nw, c);
		bit_set(m->l3_mask + (size_t)tc->l3 * nw, c);
		bit_set(m->pkg_mask + (size_t)tc->package * nw, c);
		m->pkg_of_node[tc->numa] = tc->package;
		/* CPU c is one or two hops from every other package */
		for (int p = 0; m->far_mask && p < topo->npackages; p++) {
			int hops = topo_package_hops(topo, p, tc->package);

			if (hops)
				bit_set((hops > 1 ? m->far_mask : m->near_mask) + (size_t)p * nw, c);
		}
	}
	memcpy(m->lat_ps, hw->lat_ps, sizeof(m->lat_ps));
	m->mem_local_ps = hw->mem_local_ps;
	m->mem_remote_ps = hw->mem_remote_ps;
	m->home_snoop = hw->home_snoop;
	m->serve_ps = hw->serve_ps;
	m->policy = hw->arbitration;
	m->batch_limit = hw->batch_limit;
	return 0;
}

void coh_model_free(struct coh_model *m)
{
	free(m->core_mask);
	free(m->l3_mask);
	free(m->pkg_mask);
	free(m->pkg_of_node);
	free(m->near_mask);
	free(m->far_mask);
	memset(m, 0, sizeof(*m));
}

void coh_line_init(const struct coh_model *m, struct coh_line *l, int home)
{
	memset(l, 0, sizeof(*l));
	l->home = home;
	l->owner = -1;
	l->last = -1;
	l->solo = -1;
	l->qends[0] = l->qends[1] = l->unindexed = -1;
}

void coh_line_free(struct coh_line *l)
{
	free(l->dom);
	l->dom = NULL;
	free(l->sharers);
	l->sharers = NULL;
	l->qends[0] = l->qends[1] = l->unindexed = -1;
	l->qlen = 0;
}

/* Through the home directory, a cross-L3 hop on a foreign package costs a remote one. */
static enum topo_dist via_home(const struct coh_model *m, enum topo_dist d, int to, int home)
{
	if (m->home_snoop && d == TOPO_PACKAGE && m->topo->cpu[to].package != m->pkg_of_node[home])
		return TOPO_REMOTE;
	return d;
}

enum topo_dist coh_dist(const struct coh_model *m, int from, int to, int home)
{
	return via_home(m, topo_distance_fast(m->topo, from, to), to, home);
}

static int any_outside(const struct coh_model *m, const uint64_t *bits, const uint64_t *mask)
{
	for (int w = 0; w < m->nwords; w++)
		if (bits[w] & ~mask[w])
			return 1;
	return 0;
}

static int any_inside(const struct coh_model *m, const uint64_t *bits, const uint64_t *mask)
{
	for (int w = 0; w < m->nwords; w++)
		if (bits[w] & mask[w])
			return 1;
	return 0;
}

/* Is @cpu in the line's sharer set? */
static inline int is_sharer(const struct coh_line *l, int cpu)
{
	return l->sharers ? bit_test(l->sharers, cpu) : l->nsharers && l->solo == cpu;
}

/* Farthest sharer other than @cpu, as a distance class. */
static enum topo_dist farthest_sharer(const struct coh_model *m, const struct coh_line *l, int cpu)
{
	const struct topo_cpu *tc = &m->topo->cpu[cpu];
	const int nw = m->nwords;
	int others;

	if (!l->sharers) /* one sharer: the set's answer is the distance to it */
		return coh_dist(m, l->solo, cpu, l->home);
	if (any_outside(m, l->sharers, m->pkg_mask + (size_t)tc->package * nw))
		return m->far_mask && any_inside(m, l->sharers, m->far_mask + (size_t)tc->package * nw)
			   ? TOPO_REMOTE_FAR
			   : TOPO_REMOTE;
	if (any_outside(m, l->sharers, m->l3_mask + (size_t)tc->l3 * nw))
		return via_home(m, TOPO_PACKAGE, cpu, l->home);
	if (any_outside(m, l->sharers, m->core_mask + (size_t)tc->core * nw))
		return TOPO_L3;
	others = l->nsharers - bit_test(l->sharers, cpu);
	return others > 0 ? TOPO_SMT : TOPO_SELF;
}

static enum topo_dist nearest_sharer(const struct coh_model *m, const struct coh_line *l, int cpu)
{
	const struct topo_cpu *tc = &m->topo->cpu[cpu];
	const int nw = m->nwords;

	if (!l->sharers)
		return coh_dist(m, l->solo, cpu, l->home);
	if (bit_test(l->sharers, cpu))
		return TOPO_SELF;
	if (any_inside(m, l->sharers, m->core_mask + (size_t)tc->core * nw))
		return TOPO_SMT;
	if (any_inside(m, l->sharers, m->l3_mask + (size_t)tc->l3 * nw))
		return TOPO_L3;
	if (any_inside(m, l->sharers, m->pkg_mask + (size_t)tc->package * nw))
		return via_home(m, TOPO_PACKAGE, cpu, l->home);
	/* every sharer is on another package: one hop away, unless all are two */
	if (m->near_mask && !any_inside(m, l->sharers, m->near_mask + (size_t)tc->package * nw))
		return TOPO_REMOTE_FAR;
	return TOPO_REMOTE;
}

int coh_holds(const struct coh_model *m, const struct coh_line *l, int cpu, int op)
{
	if (l->owner == cpu)
		return 1;
	if (coh_exclusive(op))
		return 0;
	return l->owner < 0 && l->nsharers && is_sharer(l, cpu);
}

int coh_source(const struct coh_model *m, const struct coh_line *l, int cpu, int op)
{
	if (l->owner >= 0)
		return coh_dist(m, l->owner, cpu, l->home);
	if (l->nsharers == 0)
		return m->topo->cpu[cpu].numa == l->home ? COH_FROM_MEMORY : COH_FROM_REMOTE_MEMORY;
	return coh_exclusive(op) ? farthest_sharer(m, l, cpu) : nearest_sharer(m, l, cpu);
}

int64_t coh_source_ps(const struct coh_model *m, int source)
{
	if (source == COH_FROM_MEMORY)
		return m->mem_local_ps;
	return source == COH_FROM_REMOTE_MEMORY ? m->mem_remote_ps : m->lat_ps[source];
}

int64_t coh_cost_ps(const struct coh_model *m, const struct coh_line *l, int cpu, int op)
{
	return coh_source_ps(m, coh_source(m, l, cpu, op));
}

/* @cpu joins the sharers (it is not one yet).  The first one is kept alone; a second one makes
 * the bitset, which the line then keeps.  0 or MM_ENOMEM. */
static int add_sharer(const struct coh_model *m, struct coh_line *l, int cpu)
{
	if (!l->sharers) {
		if (!l->nsharers) {
			l->solo = cpu;
			l->nsharers = 1;
			return 0;
		}
		if (!(l->sharers = calloc(m->nwords, sizeof(uint64_t))))
			return MM_ENOMEM;
		bit_set(l->sharers, l->solo);
	}
	bit_set(l->sharers, cpu);
	l->nsharers++;
	return 0;
}

int coh_apply(const struct coh_model *m, struct coh_line *l, int cpu, int op)
{
	int rc = 0;

	if (coh_exclusive(op)) {
		if (l->nsharers && l->sharers)
			memset(l->sharers, 0, m->nwords * sizeof(uint64_t));
		l->nsharers = 0;
		l->owner = cpu;
	} else if (l->owner != cpu) {
		if (l->owner >= 0) {
			rc = add_sharer(m, l, l->owner); /* the set is empty while a CPU owns the line */
			l->owner = -1;
		}
		if (!rc && !is_sharer(l, cpu))
			rc = add_sharer(m, l, cpu);
	}
	l->last = cpu;
	l->grants++;
	return rc;
}

/* ---- the request queue ------------------------------------------------ */

/* Below this length local-first scans the queue; above it, it builds the line's domain lists. */
#define COH_INDEX_MIN 16

static void list_append(struct coh_req *pool, int k, int32_t *ends, int32_t idx)
{
	struct coh_req *r = &pool[idx];

	r->link[k][0] = -1;
	r->link[k][1] = ends[1];
	if (ends[1] >= 0)
		pool[ends[1]].link[k][0] = idx;
	else
		ends[0] = idx;
	ends[1] = idx;
}

static void list_del(struct coh_req *pool, int k, int32_t *ends, int32_t idx)
{
	const int32_t next = pool[idx].link[k][0], prev = pool[idx].link[k][1];

	if (prev >= 0)
		pool[prev].link[k][0] = next;
	else
		ends[0] = next;
	if (next >= 0)
		pool[next].link[k][1] = prev;
	else
		ends[1] = prev;
}

/* The head and tail of @cpu's domain list @k (core, L3 or package). */
static int32_t *dom_ends(const struct coh_model *m, const struct coh_line *l, int k, int cpu)
{
	const struct topo_cpu *tc = &m->topo->cpu[cpu];
	const struct topology *t = m->topo;
	size_t d;

	if (k == COH_LIST_CORE)
		d = tc->core;
	else if (k == COH_LIST_L3)
		d = t->ncores + tc->l3;
	else
		d = t->ncores + t->nl3 + tc->package;
	return l->dom + 2 * d;
}

/* Put the requests queued since the last pick on their domain lists, in arrival order. */
static void index_new(const struct coh_model *m, struct coh_line *l, struct coh_req *pool)
{
	for (int32_t i = l->unindexed; i >= 0; i = pool[i].link[COH_LIST_ALL][0])
		for (int k = COH_LIST_CORE; k < COH_NLISTS; k++)
			list_append(pool, k, dom_ends(m, l, k, pool[i].qcpu), i);
	l->unindexed = -1;
}

static void build_index(const struct coh_model *m, struct coh_line *l)
{
	const size_t n = 2 * ((size_t)m->topo->ncores + m->topo->nl3 + m->topo->npackages);

	l->dom = malloc(n * sizeof(*l->dom));
	if (!l->dom)
		return;
	memset(l->dom, 0xff, n * sizeof(*l->dom)); /* all -1: empty */
	l->unindexed = l->qends[0];
}

int coh_enqueue(struct coh_line *l, struct coh_req *pool, int32_t idx)
{
	struct coh_req *r = &pool[idx];

	/* an intrusive list holds a request once; the simulation never queues a slot twice */
	assert(!r->queued);
	r->queued = 1;
	r->qcpu = r->cpu;
	r->seq = l->nqueued++;
	list_append(pool, COH_LIST_ALL, l->qends, idx);
	if (l->dom && l->unindexed < 0)
		l->unindexed = idx;
	l->qlen++;
	return 0;
}

static void remove_req(const struct coh_model *m, struct coh_line *l, struct coh_req *pool, int32_t idx)
{
	list_del(pool, COH_LIST_ALL, l->qends, idx);
	if (l->dom)
		for (int k = COH_LIST_CORE; k < COH_NLISTS; k++)
			list_del(pool, k, dom_ends(m, l, k, pool[idx].qcpu), idx);
	pool[idx].queued = 0;
	l->qlen--;
}

/* local-first on a short queue: the oldest of the nearest requests by scanning */
static int32_t scan_nearest(const struct coh_model *m, const struct coh_line *l, const struct coh_req *pool)
{
	const int home_pkg = m->home_snoop ? m->pkg_of_node[l->home] : -1;
	int32_t best = l->qends[0];
	enum topo_dist bd = coh_dist(m, l->last, pool[best].qcpu, l->home);

	/* nothing but the CPU itself is nearer than its SMT sibling: stop there */
	for (int32_t i = pool[best].link[COH_LIST_ALL][0]; i >= 0 && bd > TOPO_SMT; i = pool[i].link[COH_LIST_ALL][0]) {
		const int cpu = pool[i].qcpu;
		enum topo_dist d = topo_distance_fast(m->topo, l->last, cpu);

		if (d == TOPO_PACKAGE && home_pkg >= 0 && m->topo->cpu[cpu].package != home_pkg)
			d = TOPO_REMOTE;
		if (d < bd) {
			bd = d;
			best = i;
		}
	}
	return best;
}

/*
 * The same choice from the domain lists.  The scan takes the oldest request
 * of the smallest class, with SELF and SMT as one class (it stops at the
 * first of either).  A request of that merged class is one from the last
 * owner's core; failing that, any from its L3 is of class L3; failing that,
 * any from its package is of class PACKAGE, unless home_snoop makes that
 * class REMOTE (it does for all of them or none, since they share the last
 * owner's package), and then, as when the package has none, every request is
 * of one class and the oldest wins; of two with a hop matrix, REMOTE before
 * REMOTE_FAR, which the heads of the package lists give.
 */
static int32_t index_nearest(const struct coh_model *m, const struct coh_line *l, const struct coh_req *pool)
{
	const struct topology *t = m->topo;
	const int pkg_is_remote = m->home_snoop && t->cpu[l->last].package != m->pkg_of_node[l->home];
	const int nlists = pkg_is_remote ? COH_LIST_PKG : COH_NLISTS;
	int32_t best = -1;

	for (int k = COH_LIST_CORE; k < nlists; k++) {
		const int32_t first = dom_ends(m, l, k, l->last)[0];

		if (first >= 0)
			return first;
	}
	/* with a hop matrix: the oldest request of the packages one hop away (the profile refuses
	 * home_snoop with one, so pkg_is_remote is 0 here) */
	for (int p = 0; t->pkg_hops && p < t->npackages; p++) {
		const int32_t first = l->dom[2 * ((size_t)t->ncores + t->nl3 + p)];

		if (first >= 0 && topo_package_hops(t, t->cpu[l->last].package, p) == 1 &&
		    (best < 0 || pool[first].seq < pool[best].seq))
			best = first;
	}
	return best >= 0 ? best : l->qends[0];
}

int coh_pick(const struct coh_model *m, struct coh_line *l, struct coh_req *pool, int32_t *out, int max)
{
	int32_t best;
	int n = 0;

	if (!l->qlen || max < 1)
		return 0;
	/* without memory for the index the scan gives the same answer, only slower */
	if (!l->dom && m->policy == ARB_LOCAL_FIRST && l->qlen > COH_INDEX_MIN)
		build_index(m, l);
	if (l->dom)
		index_new(m, l, pool);
	best = l->qends[0];
	if (m->policy == ARB_LOCAL_FIRST && l->last >= 0 && l->bypass < m->batch_limit)
		best = l->dom ? index_nearest(m, l, pool) : scan_nearest(m, l, pool);
	l->bypass = best == l->qends[0] ? 0 : l->bypass + 1;

	out[n++] = best;
	remove_req(m, l, pool, best);
	if (pool[best].op != COH_LOAD)
		return 1;
	/* a load: with it, every load queued before the first exclusive request */
	while (l->qends[0] >= 0 && n < max && pool[l->qends[0]].op == COH_LOAD) {
		out[n++] = l->qends[0];
		remove_req(m, l, pool, l->qends[0]);
	}
	return n;
}
