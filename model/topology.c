/* SPDX-License-Identifier: MIT */
/*
 * Machine topology through hwloc 2.x.  The hwloc topology lives only while
 * a loader runs: we copy what the model needs (one struct topo_cpu per PU)
 * and destroy it, so a struct topology is plain data that any number of
 * simulations can read at once.
 */
#include "topology.h"

#include <assert.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwloc.h>

/* More logical CPUs than any machine we model; also bounds the arrays. */
#define TOPO_MAX_CPUS 4096 /* = MACHINE_MAX_CPUS: the simulator keeps ncpus x ncpus tables */

#define TOPO_SYNTHETIC_EXAMPLE "pack:2 numa:1 l3:8 core:8 pu:2"

/*
 * A stable renumbering: PU i belongs to the object keys[i]; give each
 * distinct key an index 0..n-1 in the order of its first PU.  PUs come in
 * hwloc logical order and an object's PUs are its subtree, so for objects
 * of one depth this is their hwloc logical index with gaps (objects
 * without PUs) squeezed out.  Keys are compared as addresses only.
 */
struct topo_key {
	uintptr_t key;
	int first_pu;
	int index;
};

static int topo_key_by_addr(const void *a, const void *b)
{
	const struct topo_key *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->first_pu - y->first_pu;
}

static int topo_key_by_first_pu(const void *a, const void *b)
{
	const struct topo_key *x = a, *y = b;

	return x->first_pu - y->first_pu;
}

/* Returns the number of distinct keys, or -1 when out of memory. */
static int topo_renumber(const hwloc_obj_t *keys, int n, int *out)
{
	struct topo_key *k = malloc((size_t)n * sizeof(*k));
	int i, nuniq = 0;

	if (!k)
		return -1;
	for (i = 0; i < n; i++) {
		k[i].key = (uintptr_t)keys[i];
		k[i].first_pu = i;
	}
	qsort(k, (size_t)n, sizeof(*k), topo_key_by_addr);
	for (i = 0; i < n; i++)
		if (i == 0 || k[i].key != k[i - 1].key)
			k[nuniq++] = k[i];
	qsort(k, (size_t)nuniq, sizeof(*k), topo_key_by_first_pu);
	for (i = 0; i < nuniq; i++)
		k[i].index = i;
	qsort(k, (size_t)nuniq, sizeof(*k), topo_key_by_addr);
	for (i = 0; i < n; i++) {
		struct topo_key probe = {.key = (uintptr_t)keys[i]};
		size_t lo = 0, hi = (size_t)nuniq;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (k[mid].key < probe.key)
				lo = mid + 1;
			else
				hi = mid;
		}
		out[i] = k[lo].index;
	}
	free(k);
	return nuniq;
}

/*
 * hwloc 2 attaches NUMA nodes as memory children of the object whose CPUs
 * they are local to (possibly behind a memory-side cache).  The nearest
 * such attachment above a PU is the node whose cpuset contains it; where
 * several nodes hang there (DRAM and HBM), the first is the ordinary one.
 */
static hwloc_obj_t topo_local_numa(hwloc_obj_t pu)
{
	hwloc_obj_t obj, m, n;

	for (obj = pu; obj; obj = obj->parent)
		for (m = obj->memory_first_child; m; m = m->next_sibling)
			for (n = m; n; n = n->memory_first_child)
				if (n->type == HWLOC_OBJ_NUMANODE)
					return n;
	return NULL;
}

static const char *topo_plural(int n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

/* Copy what we need from a loaded hwloc topology into @t. */
static int topo_fill(struct topology *t, hwloc_topology_t topo, const char *what, struct mm_error *err)
{
	hwloc_obj_t *key_core = NULL, *key_l3 = NULL, *key_pkg = NULL, *key_numa = NULL;
	int *idx = NULL, *nthreads = NULL;
	int npu, i, ret = MM_ENOMEM;

	npu = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
	if (npu < 1)
		return mm_fail(err, MM_ETOPO, "%s: hwloc found no logical CPU (PU)", what);
	if (npu > TOPO_MAX_CPUS)
		return mm_fail(err, MM_ETOPO, "%s: %d logical CPUs, more than the %d that mmsim supports", what, npu,
			       TOPO_MAX_CPUS);

	key_core = malloc((size_t)npu * sizeof(*key_core));
	key_l3 = malloc((size_t)npu * sizeof(*key_l3));
	key_pkg = malloc((size_t)npu * sizeof(*key_pkg));
	key_numa = malloc((size_t)npu * sizeof(*key_numa));
	idx = malloc((size_t)npu * sizeof(*idx));
	t->cpu = calloc((size_t)npu, sizeof(*t->cpu));
	if (!key_core || !key_l3 || !key_pkg || !key_numa || !idx || !t->cpu)
		goto out_nomem;
	t->ncpus = npu;

	for (i = 0; i < npu; i++) {
		hwloc_obj_t pu = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PU, (unsigned)i);
		hwloc_obj_t core, l3, pkg, numa;

		if (!pu) {
			ret = mm_fail(err, MM_ETOPO, "%s: hwloc lost logical CPU %d", what, i);
			goto out;
		}
		t->cpu[i].os_index = (int)pu->os_index;
		/*
		 * Each missing level falls back to the one above it, keyed by
		 * a different object so that the renumbering cannot mix them:
		 * no core => the PU is its own core; no package => the whole
		 * machine; no L3 or no NUMA node => one per package.
		 */
		core = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_CORE, pu);
		pkg = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_PACKAGE, pu);
		l3 = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_L3CACHE, pu);
		numa = topo_local_numa(pu);
		key_core[i] = core ? core : pu;
		key_pkg[i] = pkg ? pkg : hwloc_get_root_obj(topo);
		key_l3[i] = l3 ? l3 : key_pkg[i];
		key_numa[i] = numa ? numa : key_pkg[i];
	}

#define TOPO_RENUMBER(keys, count, field)               \
	do {                                            \
		int n_ = topo_renumber(keys, npu, idx); \
		if (n_ < 0)                             \
			goto out_nomem;                 \
		t->count = n_;                          \
		for (i = 0; i < npu; i++)               \
			t->cpu[i].field = idx[i];       \
	} while (0)
	TOPO_RENUMBER(key_core, ncores, core);
	TOPO_RENUMBER(key_l3, nl3, l3);
	TOPO_RENUMBER(key_pkg, npackages, package);
	TOPO_RENUMBER(key_numa, nnuma, numa);
#undef TOPO_RENUMBER

	nthreads = calloc((size_t)t->ncores, sizeof(*nthreads));
	t->core_first_cpu = malloc((size_t)t->ncores * sizeof(*t->core_first_cpu));
	if (!nthreads || !t->core_first_cpu)
		goto out_nomem;
	t->threads_per_core = 0;
	for (i = 0; i < npu; i++) {
		int c = t->cpu[i].core;

		if (nthreads[c] == 0)
			t->core_first_cpu[c] = i;
		t->cpu[i].smt_rank = nthreads[c]++;
		if (nthreads[c] > t->threads_per_core)
			t->threads_per_core = nthreads[c];
	}

	snprintf(t->summary, sizeof(t->summary), "%d %s, %d %s, %d L3, %d %s, %d %s", t->npackages,
		 topo_plural(t->npackages, "package", "packages"), t->nnuma,
		 topo_plural(t->nnuma, "NUMA node", "NUMA nodes"), t->nl3, t->ncores,
		 topo_plural(t->ncores, "core", "cores"), t->ncpus, topo_plural(t->ncpus, "CPU", "CPUs"));
	ret = 0;
	goto out;

out_nomem:
	ret = mm_fail(err, MM_ENOMEM, "%s: out of memory while copying the topology", what);
out:
	free(key_core);
	free(key_l3);
	free(key_pkg);
	free(key_numa);
	free(idx);
	free(nthreads);
	if (ret)
		topo_free(t);
	return ret;
}

/*
 * hwloc builds every object of a synthetic description before we can count
 * them, so "pack:2 core:64 pu:4096" would eat memory first and fail later.
 * The PU count is the product of the arities at the top level of the
 * string (attributes in parentheses and memory attachments in brackets
 * carry none); overestimating is harmless, hwloc has the last word.
 */
static unsigned long long topo_synthetic_cpus(const char *desc)
{
	unsigned long long product = 1;
	const char *p = desc;

	while (*p) {
		const char *tok, *num = NULL;
		int depth = 0;

		while (*p == ' ' || *p == '\t' || *p == '\n')
			p++;
		tok = p;
		for (; *p && (depth > 0 || (*p != ' ' && *p != '\t' && *p != '\n')); p++) {
			if (*p == '(' || *p == '[')
				depth++;
			else if ((*p == ')' || *p == ']') && depth > 0)
				depth--;
			else if (depth == 0 && *p == ':')
				num = p + 1;
		}
		if (p == tok || *tok == '[' || *tok == '(')
			continue;
		if (!num)
			num = tok; /* the arity-only form, "2 8 2" */
		if (*num >= '0' && *num <= '9') {
			unsigned long long n = strtoull(num, NULL, 10);

			if (n > TOPO_MAX_CPUS)
				n = TOPO_MAX_CPUS + 1;
			product *= n ? n : 1;
			if (product > TOPO_MAX_CPUS)
				return TOPO_MAX_CPUS + 1;
		}
	}
	return product;
}

/* Load @topo (already configured) into @t and destroy it. */
static int topo_finish(struct topology *t, hwloc_topology_t topo, const char *what, struct mm_error *err)
{
	int ret;

	if (hwloc_topology_load(topo) < 0) {
		ret = mm_fail(err, MM_ETOPO, "%s: hwloc could not load the topology: %s", what, strerror(errno));
	} else {
		ret = topo_fill(t, topo, what, err);
	}
	hwloc_topology_destroy(topo);
	return ret;
}

static int topo_init(hwloc_topology_t *topo, const char *what, struct mm_error *err)
{
	/* The ABI changed between hwloc 1.x and 2.x: refuse a mismatch. */
	if ((hwloc_get_api_version() >> 16) != (HWLOC_API_VERSION >> 16))
		return mm_fail(err, MM_ETOPO, "%s: mmsim was built for hwloc API 0x%x but runs with 0x%x", what,
			       (unsigned)HWLOC_API_VERSION, hwloc_get_api_version());
	if (hwloc_topology_init(topo) < 0)
		return mm_fail(err, MM_ENOMEM, "%s: hwloc could not initialise a topology", what);
	return 0;
}

int topo_load_synthetic(struct topology *t, const char *desc, struct mm_error *err)
{
	hwloc_topology_t topo;
	char what[300];
	int ret;

	if (!desc)
		return mm_fail(err, MM_EINVAL, "topology: no synthetic description given");
	snprintf(what, sizeof(what), "topology \"%s\"", desc);
	if (topo_synthetic_cpus(desc) > TOPO_MAX_CPUS)
		return mm_fail(err, MM_ETOPO, "%s: more than the %d logical CPUs that mmsim supports", what,
			       TOPO_MAX_CPUS);
	ret = topo_init(&topo, what, err);
	if (ret)
		return ret;
	if (hwloc_topology_set_synthetic(topo, desc) < 0) {
		hwloc_topology_destroy(topo);
		return mm_fail(err, MM_ETOPO,
			       "%s: hwloc could not parse this synthetic description "
			       "(expected e.g. \"%s\")",
			       what, TOPO_SYNTHETIC_EXAMPLE);
	}
	ret = topo_finish(t, topo, what, err);
	if (!ret)
		snprintf(t->source, sizeof(t->source), "synthetic:%s", desc);
	return ret;
}

int topo_load_xml(struct topology *t, const char *path, struct mm_error *err)
{
	hwloc_topology_t topo;
	char what[300];
	FILE *f;
	int ret;

	if (!path)
		return mm_fail(err, MM_EINVAL, "topology: no XML file given");
	snprintf(what, sizeof(what), "topology file %s", path);
	/* hwloc's own message for a missing file is only "failed". */
	f = fopen(path, "r");
	if (!f) {
		int e = errno;

		return mm_fail(err, e == ENOENT || e == ENOTDIR ? MM_ENOENT : MM_EIO, "%s: cannot open: %s", what,
			       strerror(e));
	}
	fclose(f);
	ret = topo_init(&topo, what, err);
	if (ret)
		return ret;
	if (hwloc_topology_set_xml(topo, path) < 0) {
		hwloc_topology_destroy(topo);
		return mm_fail(err, MM_ETOPO, "%s: hwloc could not read this XML export: %s", what, strerror(errno));
	}
	ret = topo_finish(t, topo, what, err);
	if (!ret)
		snprintf(t->source, sizeof(t->source), "xml:%s", path);
	return ret;
}

int topo_load_local(struct topology *t, struct mm_error *err)
{
	const char *what = "topology of this machine";
	hwloc_topology_t topo;
	int ret;

	ret = topo_init(&topo, what, err);
	if (ret)
		return ret;
	ret = topo_finish(t, topo, what, err);
	if (!ret)
		snprintf(t->source, sizeof(t->source), "local");
	return ret;
}

void topo_free(struct topology *t)
{
	if (!t)
		return;
	free(t->cpu);
	free(t->core_first_cpu);
	free(t->pkg_hops);
	memset(t, 0, sizeof(*t));
}

enum topo_dist topo_distance(const struct topology *t, int cpu_a, int cpu_b)
{
	assert(cpu_a >= 0 && cpu_a < t->ncpus && cpu_b >= 0 && cpu_b < t->ncpus);
	return topo_distance_fast(t, cpu_a, cpu_b);
}

int topo_package_hops(const struct topology *t, int a, int b)
{
	assert(a >= 0 && a < t->npackages && b >= 0 && b < t->npackages);
	if (a == b)
		return 0;
	return t->pkg_hops ? t->pkg_hops[(size_t)a * t->npackages + b] : 1;
}

int topo_set_package_hops(struct topology *t, const uint8_t *hops, int n, const char *what, struct mm_error *err)
{
	uint8_t *h;

	if (n != t->npackages)
		return mm_fail(err, MM_ETOPO, "%s: %d rows for %d %s, but the topology has %d (%s)", what, n, n,
			       topo_plural(n, "package", "packages"), t->npackages, t->summary);
	for (int p = 0; p < n; p++)
		for (int q = 0; q < n; q++)
			if (hops[p * n + q] > 2 || (hops[p * n + q] == 0) != (p == q) ||
			    hops[p * n + q] != hops[q * n + p])
				return mm_fail(err, MM_ETOPO,
					       "%s: hops from package %d to %d: %d (expected 0 from a package to "
					       "itself, else 1 or 2, the same both ways)",
					       what, p, q, hops[p * n + q]);
	h = malloc((size_t)n * n);
	if (!h)
		return mm_fail(err, MM_ENOMEM, "%s: out of memory", what);
	memcpy(h, hops, (size_t)n * n);
	free(t->pkg_hops);
	t->pkg_hops = h;
	return 0;
}

const char *topo_dist_name(enum topo_dist d)
{
	switch (d) {
	case TOPO_SELF:
		return "self";
	case TOPO_SMT:
		return "smt";
	case TOPO_L3:
		return "l3";
	case TOPO_PACKAGE:
		return "package";
	case TOPO_REMOTE:
		return "remote";
	case TOPO_REMOTE_FAR:
		return "remote_far";
	case TOPO_NDIST:
		break;
	}
	return "?";
}

/*
 * will-it-scale's placement (main.c): task i on core i % ncores, its k-th
 * task on the core's k-th hardware thread.  Each core hands out its PUs in
 * smt_rank order; a core that has run out (a machine with uneven cores)
 * passes the task on to the next core, in logical order, with a PU left.
 * On an even machine this is exactly "core i % ncores, rank i / ncores".
 */
int topo_place(const struct topology *t, int ntasks, int *cpu_of_task, struct mm_error *err)
{
	int *first = NULL, *taken = NULL, *by_core = NULL;
	int i, c, ret = 0;

	if (ntasks < 1)
		return mm_fail(err, MM_EINVAL, "%d tasks asked for: at least one is needed", ntasks);
	if (ntasks > t->ncpus)
		return mm_fail(err, MM_ERANGE,
			       "%d tasks asked for, but the machine has %d %s (logical CPUs, as "
			       "will-it-scale counts them)",
			       ntasks, t->ncpus, topo_plural(t->ncpus, "CPU", "CPUs"));

	/* by_core[first[c] .. first[c + 1]) are core c's CPUs by smt_rank. */
	first = calloc((size_t)t->ncores + 1, sizeof(*first));
	taken = calloc((size_t)t->ncores, sizeof(*taken));
	by_core = malloc((size_t)t->ncpus * sizeof(*by_core));
	if (!first || !taken || !by_core) {
		ret = mm_fail(err, MM_ENOMEM, "placing %d tasks: out of memory", ntasks);
		goto out;
	}
	for (i = 0; i < t->ncpus; i++)
		first[t->cpu[i].core + 1]++;
	for (c = 0; c < t->ncores; c++)
		first[c + 1] += first[c];
	for (i = 0; i < t->ncpus; i++)
		by_core[first[t->cpu[i].core] + t->cpu[i].smt_rank] = i;

	for (i = 0; i < ntasks; i++) {
		c = i % t->ncores;
		/* Terminates: fewer than ncpus PUs are taken so far. */
		while (first[c] + taken[c] == first[c + 1])
			c = (c + 1) % t->ncores;
		cpu_of_task[i] = by_core[first[c] + taken[c]++];
	}
out:
	free(first);
	free(taken);
	free(by_core);
	return ret;
}

/*
 * Unpinned tasks: where the Linux CFS scheduler leaves N threads that never sleep, created one
 * after the other by a parent on package 0 of an idle machine (mmtests pft without -a, the
 * kthreads of Waiman Long's rwsem locktest).  Read in kernel/sched/fair.c and topology.c of 6.6;
 * the NUMA rules are those of 5.19 and later (commit cb29a5c19d2d, "sched/numa: Apply imbalance
 * limitations consistently"):
 *
 * - The sched domains above a CPU are SMT (its core), MC (its L3), the package, then the NUMA
 *   levels.  build_sched_domains() (topology.c) gives the first domain above the L3,
 *   @imb_numa_nr = its CPUs / 8 when it holds one L3 (a node of one L3: 12.5% of it), else its
 *   number of L3s, at least 1; the first NUMA level above keeps that value (higher ones, on
 *   machines with several hop distances, multiply it by their span over the first one's).
 * - A new task (wake_up_new_task -> select_task_rq_fair -> find_idlest_cpu) walks the domains
 *   down from the top.  At a NUMA domain, find_idlest_group() keeps it on the parent's node
 *   while adjust_numa_imbalance() forgives the imbalance: the node would then run at most
 *   imb_numa_nr tasks and the nodes' idle CPUs differ by at most NUMA_IMBALANCE_MIN (2); else
 *   it goes to the group with the most idle CPUs, the local one on a tie.  Below, the group of
 *   most idle CPUs again: an idle L3 before a busy one, an idle core (whole) before a sibling
 *   thread (update_pick_idlest, then find_idlest_group_cpu).
 * - Then the periodic balancer (load_balance -> find_busiest_group) moves tasks from the group
 *   with the fewest idle CPUs (update_sd_pick_busiest, group_has_spare) to one with more, once
 *   their idle CPUs differ by 2 or more; calculate_imbalance() moves half the difference
 *   (sibling_imbalance() with SD_PREFER_SIBLING: the running tasks' difference), except that
 *   between NUMA nodes adjust_numa_imbalance() again forgives a difference of up to 2 while the
 *   pulling node would run at most imb_numa_nr tasks.  Between the L3s of a package and the
 *   cores of an L3 it balances to within one task (group_smt_balance moves a task off a busy
 *   core to an idle one).
 *
 * The steady state, which this computes: counts per package within one of each other, except
 * that while the lighter package runs fewer than imb_numa_nr tasks the parent's package may run
 * two more (2 threads on a 2-socket machine share package 0); in a package, the tasks dealt
 * over its L3 domains and one per core before any second hardware thread, as will-it-scale's
 * placement does within a package.  The package with the most idle CPUs takes the next task
 * (the lowest-numbered on a tie); the balancer moves the latest tasks.
 *
 * Simplifications: one level of packages, each on its own NUMA nodes (with one node for the
 * whole machine there is no NUMA domain and no allowance), with the first NUMA level's
 * imb_numa_nr; the hop distance of packages (the overlapping NUMA levels of an 8-socket
 * machine) does not change the choice, nor do NUMA balancing (task_numa_migrate), wake-up
 * placement after sleeps (select_idle_sibling), or sub-NUMA clustering.
 */
struct spread {
	const struct topology *t;
	int *pkg_cpus, *cnt, *pkg_of;
	int numa, imb_numa_nr;
};

/* The package other than @skip with the most idle CPUs; -1 if none. */
static int spread_idlest(const struct spread *s, int skip)
{
	int best = -1;

	for (int p = 0; p < s->t->npackages; p++)
		if (p != skip && (best < 0 || s->pkg_cpus[p] - s->cnt[p] > s->pkg_cpus[best] - s->cnt[best]))
			best = p;
	return best;
}

/* find_idlest_group() at the level of packages, for the task the parent on package 0 creates. */
static int spread_fork(const struct spread *s)
{
	const int idlest = spread_idlest(s, 0);
	int idle0, idle1;

	if (idlest < 0)
		return 0;
	idle0 = s->pkg_cpus[0] - s->cnt[0];
	idle1 = s->pkg_cpus[idlest] - s->cnt[idlest];
	if (!idle0 || !idle1) /* a full group against one with spare CPUs (group_type) */
		return idle0 ? 0 : idlest;
	/* adjust_numa_imbalance(imbalance, local_sgs.sum_nr_running + 1, imb_numa_nr) == 0 */
	if (s->numa && s->cnt[0] + 1 <= s->imb_numa_nr && abs(idle0 - idle1) <= 2)
		return 0;
	return idle0 >= idle1 ? 0 : idlest;
}

/* The periodic balancer until it finds nothing to move; each move narrows the counts. */
static void spread_balance(struct spread *s, int ntasks)
{
	for (;;) {
		int busiest = 0, dst = spread_idlest(s, -1), diff, move;

		for (int p = 1; p < s->t->npackages; p++)
			if (s->pkg_cpus[p] - s->cnt[p] < s->pkg_cpus[busiest] - s->cnt[busiest])
				busiest = p;
		diff = (s->pkg_cpus[dst] - s->cnt[dst]) - (s->pkg_cpus[busiest] - s->cnt[busiest]);
		if (diff <= 1) /* find_busiest_group: local->idle_cpus <= busiest->idle_cpus + 1 */
			return;
		/* calculate_imbalance: adjust_numa_imbalance(diff, local->sum_nr_running + 1, ...) */
		if (s->numa && s->cnt[dst] + 1 <= s->imb_numa_nr && diff <= 2)
			return;
		move = diff >> 1;
		for (int i = ntasks - 1; i >= 0 && move; i--)
			if (s->pkg_of[i] == busiest) {
				s->pkg_of[i] = dst;
				s->cnt[busiest]--;
				s->cnt[dst]++;
				move--;
			}
	}
}

/* imb_numa_nr of build_sched_domains(), from NUMA node 0: its CPUs / 8 with one L3, else its L3s. */
static int spread_imb_numa_nr(const struct topology *t)
{
	int cpus = 0, nl3 = 0, last_l3 = -1;

	for (int i = 0; i < t->ncpus; i++) {
		if (t->cpu[i].numa != t->cpu[0].numa)
			continue;
		cpus++;
		/* a node's CPUs, and so its L3s, are contiguous in logical order */
		if (t->cpu[i].l3 != last_l3) {
			nl3++;
			last_l3 = t->cpu[i].l3;
		}
	}
	if (nl3 > 1)
		return nl3;
	return cpus >> 3 > 1 ? cpus >> 3 : 1;
}

static int place_spread(const struct topology *t, int ntasks, int *cpu_of_task, struct mm_error *err)
{
	struct spread s = {.t = t};
	int *l3_idle = NULL, *l3_pkg = NULL, *core_tasks = NULL, *taken = NULL;
	int ret = 0;

	s.pkg_cpus = calloc((size_t)t->npackages, sizeof(int));
	s.cnt = calloc((size_t)t->npackages, sizeof(int));
	s.pkg_of = malloc((size_t)ntasks * sizeof(int));
	l3_idle = calloc((size_t)t->nl3, sizeof(int));
	l3_pkg = calloc((size_t)t->nl3, sizeof(int));
	core_tasks = calloc((size_t)t->ncores, sizeof(int));
	taken = calloc((size_t)t->ncpus, sizeof(int));
	if (!s.pkg_cpus || !s.cnt || !s.pkg_of || !l3_idle || !l3_pkg || !core_tasks || !taken) {
		ret = mm_fail(err, MM_ENOMEM, "placing %d tasks: out of memory", ntasks);
		goto out;
	}
	for (int c = 0; c < t->ncpus; c++) {
		s.pkg_cpus[t->cpu[c].package]++;
		l3_idle[t->cpu[c].l3]++;
		l3_pkg[t->cpu[c].l3] = t->cpu[c].package;
	}
	s.numa = t->nnuma > 1 && t->npackages > 1;
	s.imb_numa_nr = spread_imb_numa_nr(t);

	/* the packages: the parent (task 0) on package 0, each new task by find_idlest_group() */
	for (int i = 0; i < ntasks; i++) {
		s.pkg_of[i] = i ? spread_fork(&s) : 0;
		s.cnt[s.pkg_of[i]]++;
	}
	spread_balance(&s, ntasks);

	/*
	 * In its package, each task in turn on the L3 with the most idle CPUs, there on the core
	 * with the fewest tasks, the lowest-numbered of equals, and on that core's first free
	 * thread.  A package never gets more tasks than CPUs, so a free one is always found.
	 */
	for (int i = 0; i < ntasks; i++) {
		int l3 = -1, cpu = -1;

		for (int k = 0; k < t->nl3; k++)
			if (l3_pkg[k] == s.pkg_of[i] && (l3 < 0 || l3_idle[k] > l3_idle[l3]))
				l3 = k;
		for (int c = 0; c < t->ncpus; c++)
			if (t->cpu[c].l3 == l3 && !taken[c] &&
			    (cpu < 0 || core_tasks[t->cpu[c].core] < core_tasks[t->cpu[cpu].core]))
				cpu = c;
		assert(cpu >= 0);
		taken[cpu] = 1;
		core_tasks[t->cpu[cpu].core]++;
		l3_idle[l3]--;
		cpu_of_task[i] = cpu;
	}
out:
	free(s.pkg_cpus);
	free(s.cnt);
	free(s.pkg_of);
	free(l3_idle);
	free(l3_pkg);
	free(core_tasks);
	free(taken);
	return ret;
}

int topo_place_policy(const struct topology *t, enum topo_placement policy, int ntasks, int *cpu_of_task,
		      struct mm_error *err)
{
	/* a task count out of range: the same refusal, and message, as will-it-scale's placement */
	if (policy != TOPO_PLACE_SPREAD || ntasks < 1 || ntasks > t->ncpus)
		return topo_place(t, ntasks, cpu_of_task, err);
	return place_spread(t, ntasks, cpu_of_task, err);
}

static const char *const placement_names[TOPO_NPLACEMENTS] = {"wis", "spread"};

const char *topo_placement_name(enum topo_placement p)
{
	return (unsigned)p < TOPO_NPLACEMENTS ? placement_names[p] : "?";
}

int topo_placement_parse(const char *name, enum topo_placement *out)
{
	for (int p = 0; p < TOPO_NPLACEMENTS; p++)
		if (!strcmp(name, placement_names[p])) {
			*out = (enum topo_placement)p;
			return 0;
		}
	return MM_EINVAL;
}

int topo_boundaries(const struct topology *t, int *out, int max)
{
	int cand[3], ncand = 0, n = 0, i;

	if (t->npackages > 1) {
		int pkg0_cores = 0;

		for (i = 0; i < t->ncores; i++)
			if (t->cpu[t->core_first_cpu[i]].package == 0)
				pkg0_cores++;
		cand[ncand++] = pkg0_cores;
	}
	cand[ncand++] = t->ncores;
	cand[ncand++] = t->ncpus;
	for (i = 0; i < ncand && n < max; i++)
		if (cand[i] > 0 && (n == 0 || cand[i] > out[n - 1]))
			out[n++] = cand[i];
	return n;
}
