/* SPDX-License-Identifier: MIT */
/*
 * Machine topology: logical CPUs (hardware threads), their cores, L3
 * domains, packages and NUMA nodes, loaded through hwloc from the local
 * machine, an hwloc XML export, or an hwloc synthetic description such as
 * "pack:2 numa:1 l3:16 core:4 pu:2".
 *
 * CPUs are numbered 0..ncpus-1 in hwloc's logical PU order (package 0
 * first, then core by core), which is not the OS numbering.  Cores, L3
 * domains, packages and NUMA nodes are numbered likewise by hwloc logical
 * index.  A machine without an L3 object gets one L3 domain per package.
 * hwloc always reports at least one NUMA node: a synthetic description
 * without "numa:" has ONE node for the whole machine, so a multi-socket
 * description should say "numa:1" per package.
 */
#ifndef MMSIM_TOPOLOGY_H
#define MMSIM_TOPOLOGY_H

#include <stddef.h>
#include <stdint.h>
#include "mm_error.h"

/* How far apart two CPUs are, from the point of view of a cache line. */
enum topo_dist {
	TOPO_SELF = 0,	 /* the same logical CPU */
	TOPO_SMT,	 /* sibling hardware thread of the same core */
	TOPO_L3,	 /* other core, same L3 (CCX, die) */
	TOPO_PACKAGE,	 /* other L3 domain of the same package */
	TOPO_REMOTE,	 /* another package (one interconnect hop away) */
	TOPO_REMOTE_FAR, /* a package two hops away (glueless 8-socket: topo_set_package_hops) */
	TOPO_NDIST
};

/* The most packages a hop matrix may describe ([machine] package_hops). */
#define TOPO_MAX_HOP_PACKAGES 16

/* How tasks are put on CPUs (topo_place_policy). */
enum topo_placement {
	TOPO_PLACE_WIS = 0, /* pinned as will-it-scale pins them: core i % ncores, package 0 first */
	TOPO_PLACE_SPREAD,  /* unpinned: where the Linux scheduler's balancing leaves them */
	TOPO_NPLACEMENTS
};

struct topo_cpu {
	int os_index; /* the OS CPU number (hwloc PU os_index) */
	int core;     /* logical core index, 0..ncores-1 */
	int smt_rank; /* 0 for the first hardware thread of its core, 1, ... */
	int l3;	      /* L3 domain index, 0..nl3-1 */
	int package;  /* package index, 0..npackages-1 */
	int numa;     /* NUMA node index, 0..nnuma-1 */
};

struct topology {
	int ncpus;
	int ncores;
	int nl3;
	int npackages;
	int nnuma;
	int threads_per_core; /* the largest number of PUs in one core */
	struct topo_cpu *cpu; /* ncpus entries */
	int *core_first_cpu;  /* ncores entries: CPU of smt_rank 0 */
	uint8_t *pkg_hops;    /* npackages x npackages hops (0, 1, 2); NULL: every other package 1 hop */
	char source[256];     /* "synthetic:...", "xml:PATH" or "local" */
	char summary[256];    /* e.g. "2 packages, 2 NUMA nodes, 16 L3, 64 cores, 128 CPUs" */
};

/* Each loader fills @t (which the caller zeroes first) or fails with a
 * message naming the description or file.  Returns 0 or MM_ETOPO/MM_ENOENT/
 * MM_ENOMEM. */
int topo_load_synthetic(struct topology *t, const char *desc, struct mm_error *err);
int topo_load_xml(struct topology *t, const char *path, struct mm_error *err);
int topo_load_local(struct topology *t, struct mm_error *err);
void topo_free(struct topology *t);

enum topo_dist topo_distance(const struct topology *t, int cpu_a, int cpu_b);

/* topo_distance without its range checks, inline: the coherence model's hot path (the class
 * from the CPUs' core, L3 and package ids and the hop matrix; no N x N table) */
static inline enum topo_dist topo_distance_fast(const struct topology *t, int cpu_a, int cpu_b)
{
	const struct topo_cpu *a = &t->cpu[cpu_a], *b = &t->cpu[cpu_b];

	if (cpu_a == cpu_b)
		return TOPO_SELF;
	if (a->core == b->core)
		return TOPO_SMT;
	if (a->l3 == b->l3)
		return TOPO_L3;
	if (a->package == b->package)
		return TOPO_PACKAGE;
	return t->pkg_hops && t->pkg_hops[(size_t)a->package * t->npackages + b->package] > 1 ? TOPO_REMOTE_FAR
											      : TOPO_REMOTE;
}
/* "self", "smt", "l3", "package", "remote", "remote_far": also the [latency] keys */
const char *topo_dist_name(enum topo_dist d);

/*
 * Give the topology a package hop matrix: @hops[p * n + q] is 0 on the diagonal, else 1 or 2.
 * Package pairs 2 hops apart are then TOPO_REMOTE_FAR.  @n must be t->npackages; the matrix
 * must be symmetric (the caller, the profile parser, has checked its form).  0, MM_ETOPO (a
 * size that does not match, with the message naming @what) or MM_ENOMEM.
 */
int topo_set_package_hops(struct topology *t, const uint8_t *hops, int n, const char *what, struct mm_error *err);
/* Hops between packages @a and @b: 0 for the same, else 1 unless the hop matrix says 2. */
int topo_package_hops(const struct topology *t, int a, int b);

/*
 * Place @ntasks tasks as will-it-scale does: task i is bound to core
 * i % ncores (package 0's cores first); the k-th task on a core takes its
 * k-th hardware thread, so second threads are used only once every core
 * has a task.  Writes the CPU of each task in @cpu_of_task.  Fails with
 * MM_ERANGE if ntasks > ncpus.
 */
int topo_place(const struct topology *t, int ntasks, int *cpu_of_task, struct mm_error *err);

/*
 * Place @ntasks tasks by @policy: TOPO_PLACE_WIS is topo_place(); TOPO_PLACE_SPREAD is the steady
 * state the Linux 6.x CFS load balancer reaches for that many never-sleeping threads started by
 * one parent on an idle machine (topology.c says how, citing kernel/sched/fair.c).
 */
int topo_place_policy(const struct topology *t, enum topo_placement policy, int ntasks, int *cpu_of_task,
		      struct mm_error *err);
/* "wis", "spread"; topo_placement_parse() takes those names: 0, or MM_EINVAL. */
const char *topo_placement_name(enum topo_placement p);
int topo_placement_parse(const char *name, enum topo_placement *out);

/*
 * The task counts at which the topology changes regime, in increasing
 * order without duplicates: one full package of cores (only if there are
 * several packages), every core busy, every hardware thread busy.
 * Returns how many were written (at most @max).
 */
int topo_boundaries(const struct topology *t, int *out, int max);

#endif
