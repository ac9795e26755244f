/* SPDX-License-Identifier: MIT */
#include "coherence.h"
#include "mm_error.h"

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
	m->dist = malloc((size_t)topo->ncpus * topo->ncpus);
	if (!m->core_mask || !m->l3_mask || !m->pkg_mask || !m->pkg_of_node || !m->dist) {
		coh_model_free(m);
		return MM_ENOMEM;
	}
	for (int c = 0; c < topo->ncpus; c++) {
		const struct topo_cpu *tc = &topo->cpu[c];

		bit_set(m->core_mask + (size_t)tc->core * nw, c);
		bit_set(m->l3_mask + (size_t)tc->l3 * nw, c);
		bit_set(m->pkg_mask + (size_t)tc->package * nw, c);
		m->pkg_of_node[tc->numa] = tc->package;
	}
	for (int a = 0; a < topo->ncpus; a++)
		for (int b = 0; b < topo->ncpus; b++)
			m->dist[(size_t)a * topo->ncpus + b] = (uint8_t)topo_distance(topo, a, b);
	memcpy(m->lat_ps, hw->lat_ps, sizeof(m->lat_ps));
	m->mem_local_ps = hw->mem_local_ps;
	m->mem_remote_ps = hw->mem_remote_ps;
	m->home_snoop = hw->home_snoop;
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
	free(m->dist);
	memset(m, 0, sizeof(*m));
}

void coh_line_init(const struct coh_model *m, struct coh_line *l, int home, uint64_t *bits)
{
	memset(l, 0, sizeof(*l));
	l->home = home;
	l->owner = -1;
	l->last = -1;
	l->sharers = bits;
}

void coh_line_free(struct coh_line *l)
{
	free(l->q);
	l->q = NULL;
	l->qlen = l->qcap = 0;
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
	return via_home(m, (enum topo_dist)m->dist[(size_t)from * m->topo->ncpus + to], to, home);
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

/* Farthest sharer other than @cpu, as a distance class. */
static enum topo_dist farthest_sharer(const struct coh_model *m, const struct coh_line *l, int cpu)
{
	const struct topo_cpu *tc = &m->topo->cpu[cpu];
	const int nw = m->nwords;
	int others;

	if (any_outside(m, l->sharers, m->pkg_mask + (size_t)tc->package * nw))
		return TOPO_REMOTE;
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

	if (bit_test(l->sharers, cpu))
		return TOPO_SELF;
	if (any_inside(m, l->sharers, m->core_mask + (size_t)tc->core * nw))
		return TOPO_SMT;
	if (any_inside(m, l->sharers, m->l3_mask + (size_t)tc->l3 * nw))
		return TOPO_L3;
	if (any_inside(m, l->sharers, m->pkg_mask + (size_t)tc->package * nw))
		return via_home(m, TOPO_PACKAGE, cpu, l->home);
	return TOPO_REMOTE;
}

int coh_holds(const struct coh_model *m, const struct coh_line *l, int cpu, int op)
{
	if (l->owner == cpu)
		return 1;
	if (coh_exclusive(op))
		return 0;
	return l->owner < 0 && l->nsharers && bit_test(l->sharers, cpu);
}

int64_t coh_cost_ps(const struct coh_model *m, const struct coh_line *l, int cpu, int op)
{
	if (l->owner >= 0)
		return m->lat_ps[coh_dist(m, l->owner, cpu, l->home)];
	if (l->nsharers == 0)
		return m->topo->cpu[cpu].numa == l->home ? m->mem_local_ps : m->mem_remote_ps;
	if (coh_exclusive(op))
		return m->lat_ps[farthest_sharer(m, l, cpu)];
	return m->lat_ps[nearest_sharer(m, l, cpu)];
}

void coh_apply(const struct coh_model *m, struct coh_line *l, int cpu, int op)
{
	if (coh_exclusive(op)) {
		if (l->nsharers)
			memset(l->sharers, 0, m->nwords * sizeof(uint64_t));
		l->nsharers = 0;
		l->owner = cpu;
	} else if (l->owner != cpu) {
		if (l->owner >= 0) {
			bit_set(l->sharers, l->owner);
			l->nsharers = 1;
			l->owner = -1;
		}
		if (!bit_test(l->sharers, cpu)) {
			bit_set(l->sharers, cpu);
			l->nsharers++;
		}
	}
	l->last = cpu;
	l->grants++;
}

int coh_enqueue(struct coh_line *l, struct coh_req *pool, int32_t idx)
{
	if (l->qlen == l->qcap) {
		int32_t cap = l->qcap ? 2 * l->qcap : 8;
		struct coh_qent *q = realloc(l->q, (size_t)cap * sizeof(*q));

		if (!q)
			return MM_ENOMEM;
		l->q = q;
		l->qcap = cap;
	}
	l->q[l->qlen].idx = idx;
	l->q[l->qlen].cpu = pool[idx].cpu;
	l->qlen++;
	return 0;
}

static void remove_at(struct coh_line *l, int k)
{
	memmove(&l->q[k], &l->q[k + 1], (size_t)(l->qlen - k - 1) * sizeof(l->q[0]));
	l->qlen--;
}

int coh_pick(const struct coh_model *m, struct coh_line *l, struct coh_req *pool, int32_t *out, int max)
{
	int best = 0, n = 0, k;

	if (!l->qlen || max < 1)
		return 0;
	if (m->policy == ARB_LOCAL_FIRST && l->last >= 0 && l->bypass < m->batch_limit) {
		/* the hot loop of a contended line: one row of the distance table */
		const uint8_t *row = m->dist + (size_t)l->last * m->topo->ncpus;
		const int foreign_pkg = m->home_snoop ? m->pkg_of_node[l->home] : -1;
		enum topo_dist bd = coh_dist(m, l->last, l->q[0].cpu, l->home);

		/* nothing but the CPU itself is nearer than its SMT sibling: stop there */
		for (k = 1; k < l->qlen && bd > TOPO_SMT; k++) {
			enum topo_dist d = (enum topo_dist)row[l->q[k].cpu];

			if (d == TOPO_PACKAGE && foreign_pkg >= 0 && m->topo->cpu[l->q[k].cpu].package != foreign_pkg)
				d = TOPO_REMOTE;
			if (d < bd) {
				bd = d;
				best = k;
			}
		}
	}
	l->bypass = best == 0 ? 0 : l->bypass + 1;

	out[n++] = l->q[best].idx;
	remove_at(l, best);
	if (pool[out[0]].op != COH_LOAD)
		return 1;
	/* a load: with it, every load queued before the first exclusive request */
	for (k = 0; k < l->qlen && n < max && pool[l->q[k].idx].op == COH_LOAD; k++)
		out[n++] = l->q[k].idx;
	memmove(&l->q[0], &l->q[k], (size_t)(l->qlen - k) * sizeof(l->q[0]));
	l->qlen -= k;
	return n;
}
