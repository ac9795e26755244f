/* SPDX-License-Identifier: MIT */
/* The clock, time budgets, statistics, the result table and CPU binding. */
#include "measure.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

double ms_per_op(const struct ms_ctx *c, uint64_t t0, uint64_t t1, double ops)
{
	double net = (double)(t1 - t0) - c->timer_ns;

	return (net > 0 ? net : 0) / ops;
}

void ms_budget_init(struct ms_budget *b, const struct ms_ctx *c, int max, double seconds)
{
	b->max = max;
	b->deadline = ms_now_ns() + (uint64_t)(seconds * 1e9);
}

int ms_budget_more(const struct ms_budget *b, int n)
{
	/* a few samples always, so that a slow machine still gets a median */
	if (n < 5)
		return n < b->max;
	return n < b->max && ms_now_ns() < b->deadline;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void ms_stats_of(const double *v, int n, struct ms_stats *st)
{
	double *s;

	memset(st, 0, sizeof(*st));
	st->n = n;
	if (n <= 0)
		return;
	s = malloc((size_t)n * sizeof(*s));
	if (!s) {
		/* no room to sort: the figures stay unknown (NaN), which the output refuses */
		st->median = st->min = st->p90 = NAN;
		return;
	}
	memcpy(s, v, (size_t)n * sizeof(*s));
	qsort(s, (size_t)n, sizeof(*s), cmp_double);
	st->min = s[0];
	st->median = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
	st->p90 = s[(int)ceil(0.9 * n) - 1];
	/* both ways: a slow sample is high in ns but low in GHz or GB/s */
	for (int i = 0; i < n; i++)
		st->outliers += s[i] > 3 * st->median || 3 * s[i] < st->median;
	free(s);
}

double ms_cache_knee(const double *size, const double *lat, int n)
{
	double lo, hi, thr, top[3];
	struct ms_stats st;

	if (n < 3)
		return 0;
	/* the smallest sets' best (a preempted chase is slow, never fast), the largest sets' median */
	lo = fmin(lat[0], fmin(lat[1], lat[2]));
	memcpy(top, lat + n - 3, sizeof(top));
	ms_stats_of(top, 3, &st);
	hi = st.median;
	if (!(lo > 0) || !(hi >= 2 * lo))
		return 0; /* no step: the cache is larger than the sweep, or there is none */
	thr = sqrt(lo * hi);
	for (int i = 1; i < n; i++)
		if (lat[i] > thr && lat[i - 1] <= thr) {
			/* the crossing, linear in latency, on log(size) */
			double f = (thr - lat[i - 1]) / (lat[i] - lat[i - 1]);

			return size[i - 1] * pow(size[i] / size[i - 1], f);
		}
	return 0;
}

struct ms_result *ms_add(struct ms_ctx *c, const char *quantity, const char *unit, const double *samples, int n,
			 const char *fmt, ...)
{
	struct ms_result *r;
	va_list ap;

	if (c->nresults == MS_MAX_RESULTS)
		return NULL;
	r = &c->res[c->nresults++];
	memset(r, 0, sizeof(*r));
	snprintf(r->quantity, sizeof(r->quantity), "%s", quantity);
	snprintf(r->unit, sizeof(r->unit), "%s", unit);
	ms_stats_of(samples, n, &r->st);
	r->value = r->st.median;
	va_start(ap, fmt);
	vsnprintf(r->method, sizeof(r->method), fmt, ap);
	va_end(ap);
	/* the method is one CSV field: no commas, quotes or line breaks */
	for (char *p = r->method; *p; p++)
		if (*p == ',')
			*p = ';';
		else if (*p == '"' || *p == '\n' || *p == '\r')
			*p = ' ';
	return r;
}

struct ms_result *ms_find(struct ms_ctx *c, const char *quantity)
{
	for (int i = 0; i < c->nresults; i++)
		if (!strcmp(c->res[i].quantity, quantity))
			return &c->res[i];
	return NULL;
}

int ms_cpu_at(const struct ms_ctx *c, enum topo_dist d)
{
	if (d == TOPO_SELF)
		return 0;
	for (int i = 1; i < c->topo.ncpus; i++)
		if (topo_distance(&c->topo, 0, i) == d)
			return i;
	return -1;
}

int ms_pin(struct ms_ctx *c, int cpu)
{
	hwloc_obj_t pu;

	if (cpu < 0 || cpu >= c->topo.ncpus)
		return -EINVAL;
	pu = hwloc_get_pu_obj_by_os_index(c->hw, (unsigned)c->topo.cpu[cpu].os_index);
	if (!pu)
		return -ENODEV;
	if (hwloc_set_cpubind(c->hw, pu->cpuset, HWLOC_CPUBIND_THREAD | HWLOC_CPUBIND_STRICT) &&
	    hwloc_set_cpubind(c->hw, pu->cpuset, HWLOC_CPUBIND_THREAD))
		return errno ? -errno : -EPERM;
	return 0;
}

static void *ms_trampoline(void *arg)
{
	struct ms_thread *t = arg;

	if (t->c->pinned)
		ms_pin(t->c, t->cpu);
	return t->fn(t->arg);
}

int ms_spawn(struct ms_thread *t, struct ms_ctx *c, int cpu, void *(*fn)(void *), void *arg)
{
	t->c = c;
	t->cpu = cpu;
	t->fn = fn;
	t->arg = arg;
	return -pthread_create(&t->tid, NULL, ms_trampoline, t);
}

void ms_join(struct ms_thread *t)
{
	pthread_join(t->tid, NULL);
}

int ms_ctx_init(struct ms_ctx *c, int quick, char *errbuf, size_t cap)
{
	struct mm_error err;
	long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
	int nl3;

	memset(c, 0, sizeof(*c));
	c->quick = quick;
	if (topo_load_local(&c->topo, &err)) {
		snprintf(errbuf, cap, "%s", err.msg);
		return -ENODEV;
	}
	if (hwloc_topology_init(&c->hw) || hwloc_topology_load(c->hw)) {
		snprintf(errbuf, cap, "hwloc could not load this machine's topology");
		topo_free(&c->topo);
		return -ENODEV;
	}
	c->ram_bytes = pages > 0 && psz > 0 ? (size_t)pages * (size_t)psz : (size_t)1 << 30;
	nl3 = hwloc_get_nbobjs_by_type(c->hw, HWLOC_OBJ_L3CACHE);
	for (int i = 0; i < nl3; i++) {
		hwloc_obj_t o = hwloc_get_obj_by_type(c->hw, HWLOC_OBJ_L3CACHE, (unsigned)i);

		if (o && o->attr && o->attr->cache.size > c->l3_bytes)
			c->l3_bytes = o->attr->cache.size;
	}
	/* binding works if this thread can be bound to CPU 0 */
	c->pinned = ms_pin(c, 0) == 0;
	return 0;
}

void ms_ctx_free(struct ms_ctx *c)
{
	hwloc_topology_destroy(c->hw);
	topo_free(&c->topo);
}

int ms_measure_timer(struct ms_ctx *c)
{
	enum { N = 2000, READS = 1000 };
	static double v[N];
	struct ms_budget b;
	int n;

	/*
	 * A run of back-to-back reads: the time between two consecutive reads
	 * is what every timed interval carries once.  A run rather than one
	 * pair, so that a coarse clock still gives a non-zero figure.
	 */
	ms_budget_init(&b, c, c->quick ? 200 : N, c->quick ? 0.02 : 0.1);
	for (n = 0; ms_budget_more(&b, n); n++) {
		uint64_t t0 = ms_now_ns(), t1;

		for (int i = 0; i < READS - 1; i++)
			ms_now_ns();
		t1 = ms_now_ns();
		v[n] = (double)(t1 - t0) / READS;
	}
	if (!ms_add(c, "timer", "ns", v, n,
		    "clock_gettime(CLOCK_MONOTONIC) read %d times back to back; time per read; median of %d runs; "
		    "subtracted once from every other timed interval",
		    READS, n))
		return -ENOSPC;
	c->timer_ns = ms_find(c, "timer")->value;
	return 0;
}
