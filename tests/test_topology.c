/* SPDX-License-Identifier: MIT */
/* Tests for model/topology.c: known machines described to hwloc. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hwloc.h>

#include "topology.h"

/* Two-socket AMD EPYC Rome (7742): 16 CCX of 4 cores per package. */
#define AMD_DESC "pack:2 numa:1 l3:16 core:4 pu:2"

static void load_synthetic(struct topology *t, const char *desc)
{
	struct mm_error err = {0};
	int ret;

	memset(t, 0, sizeof(*t));
	ret = topo_load_synthetic(t, desc, &err);
	if (ret)
		fail_msg("topo_load_synthetic(\"%s\"): %s", desc, err.msg);
}

/* Every CPU agrees with core_first_cpu, counts and index ranges. */
static void check_consistent(const struct topology *t)
{
	int i, c, *seen;

	assert_true(t->ncpus >= 1);
	assert_true(t->ncores >= 1 && t->ncores <= t->ncpus);
	assert_true(t->nl3 >= 1 && t->npackages >= 1 && t->nnuma >= 1);
	assert_true(t->threads_per_core >= 1);
	assert_non_null(t->cpu);
	assert_non_null(t->core_first_cpu);
	seen = calloc((size_t)t->ncores, sizeof(*seen));
	assert_non_null(seen);
	for (i = 0; i < t->ncpus; i++) {
		const struct topo_cpu *cpu = &t->cpu[i];

		assert_in_range(cpu->core, 0, t->ncores - 1);
		assert_in_range(cpu->l3, 0, t->nl3 - 1);
		assert_in_range(cpu->package, 0, t->npackages - 1);
		assert_in_range(cpu->numa, 0, t->nnuma - 1);
		assert_in_range(cpu->smt_rank, 0, t->threads_per_core - 1);
		assert_true(cpu->os_index >= 0);
		/* PUs of a core come in smt_rank order. */
		assert_int_equal(cpu->smt_rank, seen[cpu->core]);
		seen[cpu->core]++;
		/* Indices increase with the logical CPU number. */
		if (i > 0) {
			assert_true(cpu->core >= t->cpu[i - 1].core);
			assert_true(cpu->l3 >= t->cpu[i - 1].l3);
			assert_true(cpu->package >= t->cpu[i - 1].package);
		}
	}
	for (c = 0; c < t->ncores; c++) {
		int f = t->core_first_cpu[c];

		assert_in_range(f, 0, t->ncpus - 1);
		assert_int_equal(t->cpu[f].core, c);
		assert_int_equal(t->cpu[f].smt_rank, 0);
		assert_true(seen[c] >= 1);
	}
	free(seen);
	assert_true(strlen(t->summary) > 0);
	assert_true(strlen(t->source) > 0);
}

static void test_amd_counts(void **state)
{
	struct topology t;

	load_synthetic(&t, AMD_DESC);
	check_consistent(&t);
	assert_int_equal(t.ncpus, 256);
	assert_int_equal(t.ncores, 128);
	assert_int_equal(t.nl3, 32);
	assert_int_equal(t.npackages, 2);
	assert_int_equal(t.nnuma, 2);
	assert_int_equal(t.threads_per_core, 2);
	assert_string_equal(t.source, "synthetic:" AMD_DESC);
	assert_string_equal(t.summary, "2 packages, 2 NUMA nodes, 32 L3, 128 cores, 256 CPUs");

	/* Logical order: core by core, 8 CPUs per L3, 128 per package. */
	assert_int_equal(t.cpu[0].core, 0);
	assert_int_equal(t.cpu[1].core, 0);
	assert_int_equal(t.cpu[1].smt_rank, 1);
	assert_int_equal(t.cpu[2].core, 1);
	assert_int_equal(t.cpu[7].l3, 0);
	assert_int_equal(t.cpu[8].l3, 1);
	assert_int_equal(t.cpu[127].package, 0);
	assert_int_equal(t.cpu[127].numa, 0);
	assert_int_equal(t.cpu[128].package, 1);
	assert_int_equal(t.cpu[128].numa, 1);
	assert_int_equal(t.cpu[128].l3, 16);
	assert_int_equal(t.cpu[255].core, 127);
	assert_int_equal(t.core_first_cpu[64], 128);
	/* Synthetic PUs are numbered like the logical order. */
	assert_int_equal(t.cpu[200].os_index, 200);
	topo_free(&t);
}

static void test_amd_distances(void **state)
{
	struct topology t;

	load_synthetic(&t, AMD_DESC);
	assert_int_equal(topo_distance(&t, 0, 0), TOPO_SELF);
	assert_int_equal(topo_distance(&t, 0, 1), TOPO_SMT);
	assert_int_equal(topo_distance(&t, 1, 0), TOPO_SMT);
	assert_int_equal(topo_distance(&t, 0, 2), TOPO_L3);
	assert_int_equal(topo_distance(&t, 0, 7), TOPO_L3);
	assert_int_equal(topo_distance(&t, 0, 8), TOPO_PACKAGE);
	assert_int_equal(topo_distance(&t, 0, 127), TOPO_PACKAGE);
	assert_int_equal(topo_distance(&t, 0, 128), TOPO_REMOTE);
	assert_int_equal(topo_distance(&t, 255, 0), TOPO_REMOTE);
	assert_int_equal(topo_distance(&t, 130, 135), TOPO_L3);
	assert_string_equal(topo_dist_name(TOPO_SELF), "self");
	assert_string_equal(topo_dist_name(TOPO_SMT), "smt");
	assert_string_equal(topo_dist_name(TOPO_L3), "l3");
	assert_string_equal(topo_dist_name(TOPO_PACKAGE), "package");
	assert_string_equal(topo_dist_name(TOPO_REMOTE), "remote");
	assert_string_equal(topo_dist_name(TOPO_NDIST), "?");
	topo_free(&t);
}

static void test_place_small(void **state)
{
	struct topology t;
	struct mm_error err = {0};
	int cpu[8], i;

	load_synthetic(&t, "pack:2 core:2 pu:2");
	assert_int_equal(t.ncpus, 8);
	assert_int_equal(t.ncores, 4);
	assert_int_equal(topo_place(&t, 8, cpu, &err), 0);
	for (i = 0; i < 4; i++) {
		assert_int_equal(t.cpu[cpu[i]].core, i);
		assert_int_equal(t.cpu[cpu[i]].smt_rank, 0);
		assert_int_equal(t.cpu[cpu[i + 4]].core, i);
		assert_int_equal(t.cpu[cpu[i + 4]].smt_rank, 1);
	}
	/* Package 0 is filled first. */
	assert_int_equal(t.cpu[cpu[0]].package, 0);
	assert_int_equal(t.cpu[cpu[1]].package, 0);
	assert_int_equal(t.cpu[cpu[2]].package, 1);
	/* Fewer tasks: the same prefix. */
	{
		int few[4];

		assert_int_equal(topo_place(&t, 4, few, &err), 0);
		assert_memory_equal(few, cpu, sizeof(few));
		assert_int_equal(few[0], 0);
		assert_int_equal(few[1], 2);
		assert_int_equal(few[2], 4);
		assert_int_equal(few[3], 6);
	}
	topo_free(&t);
}

static void test_place_amd(void **state)
{
	struct topology t;
	struct mm_error err = {0};
	int *cpu, i, used[256] = {0};

	load_synthetic(&t, AMD_DESC);
	cpu = malloc(256 * sizeof(*cpu));
	assert_non_null(cpu);
	assert_int_equal(topo_place(&t, 256, cpu, &err), 0);
	for (i = 0; i < 256; i++) {
		assert_in_range(cpu[i], 0, 255);
		assert_int_equal(used[cpu[i]], 0);
		used[cpu[i]] = 1;
		assert_int_equal(t.cpu[cpu[i]].core, i % 128);
		assert_int_equal(t.cpu[cpu[i]].smt_rank, i / 128);
		assert_int_equal(t.cpu[cpu[i]].package, (i % 128) / 64);
	}
	free(cpu);
	topo_free(&t);
}

static void test_place_errors(void **state)
{
	struct topology t;
	struct mm_error err = {0};
	int cpu[16];

	load_synthetic(&t, "pack:1 core:4 pu:2");
	assert_int_equal(topo_place(&t, 12, cpu, &err), MM_ERANGE);
	assert_int_equal(err.code, MM_ERANGE);
	assert_non_null(strstr(err.msg, "12 tasks asked for, but the machine has 8 CPUs"));
	assert_non_null(strstr(err.msg, "will-it-scale"));
	memset(&err, 0, sizeof(err));
	assert_int_equal(topo_place(&t, 0, cpu, &err), MM_EINVAL);
	assert_int_equal(err.code, MM_EINVAL);
	assert_int_equal(topo_place(&t, -3, cpu, NULL), MM_EINVAL);
	assert_int_equal(topo_place(&t, 8, cpu, &err), 0);
	topo_free(&t);
}

/*
 * The scheduler's spread (topology.c, place_spread), worked by hand on "pack:2 numa:1 l3:2
 * core:2 pu:2": CPUs 0-7 package 0 (L3 0: cores 0,1 = CPUs 0-3; L3 1: cores 2,3 = CPUs 4-7),
 * 8-15 package 1.  Node 0 holds two L3s, so imb_numa_nr = 2.  The parent (task 0) is on
 * package 0; task 1 stays there (1 + 1 <= 2 tasks, idle CPUs 7 against 8); task 2 does not
 * (3 > 2): package 1, which then has more idle CPUs until the counts are even; from then on
 * package 0 takes a task when the idle counts are equal.  The balancer forgives 2 against 0
 * (the lighter package would run 1 <= 2) and has nothing else to move.  In a package: the L3
 * with more idle CPUs, the first idle core, second threads last.
 */
static void test_spread_small(void **state)
{
	static const int want[16] = {0, 4, 8, 12, 2, 10, 6, 14, 1, 9, 5, 13, 3, 11, 7, 15};
	struct topology t;
	struct mm_error err = {0};
	int cpu[16];

	load_synthetic(&t, "pack:2 numa:1 l3:2 core:2 pu:2");
	for (int n = 1; n <= 16; n++) {
		memset(cpu, 0xff, sizeof(cpu));
		assert_int_equal(topo_place_policy(&t, TOPO_PLACE_SPREAD, n, cpu, &err), 0);
		for (int i = 0; i < n; i++)
			if (cpu[i] != want[i])
				fail_msg("spread, %d tasks: task %d on CPU %d, expected %d", n, i, cpu[i], want[i]);
		assert_int_equal(cpu[n < 16 ? n : 15], n < 16 ? -1 : 15); /* nothing written beyond */
	}
	/* wis on the same machine: core i % 8, package 0's four cores first */
	{
		static const int wis[16] = {0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15};

		for (int n = 1; n <= 16; n++) {
			assert_int_equal(topo_place_policy(&t, TOPO_PLACE_WIS, n, cpu, &err), 0);
			assert_memory_equal(cpu, wis, (size_t)n * sizeof(int));
		}
	}
	topo_free(&t);
}

/*
 * The NUMA allowance with a larger node: "pack:2 numa:1 l3:1 core:16 pu:2", one L3 of 32 CPUs
 * per node, imb_numa_nr = 32 / 8 = 4.  The parent's package keeps a new task while it would run
 * at most 4 and has at most 2 fewer idle CPUs than the other: the fork path gives, for 8 tasks,
 * packages 0 0 0 1 0 1 1 1.  The balancer then moves the latest task of package 0 at 3 tasks
 * (3 - 0 = 3 > 2) and at 5 (4 - 1); it forgives 2 - 0, 3 - 1 and 4 - 2 (the lighter package
 * would run at most 4).  Tasks per package 0 / 1, by hand:
 */
static void test_spread_numa_allowance(void **state)
{
	static const int pkg0[9] = {0, 1, 2, 2, 3, 3, 4, 4, 4};
	struct topology t;
	struct mm_error err = {0};
	int cpu[64];

	load_synthetic(&t, "pack:2 numa:1 l3:1 core:16 pu:2");
	assert_int_equal(t.nnuma, 2);
	for (int n = 1; n <= 8; n++) {
		int k = 0;

		assert_int_equal(topo_place_policy(&t, TOPO_PLACE_SPREAD, n, cpu, &err), 0);
		for (int i = 0; i < n; i++)
			k += t.cpu[cpu[i]].package == 0;
		if (k != pkg0[n])
			fail_msg("spread, %d tasks: %d on package 0, expected %d", n, k, pkg0[n]);
	}
	/* 6 tasks: 0, 1, 2, 4 on package 0's first four cores, 3 and 5 on package 1's */
	assert_int_equal(topo_place_policy(&t, TOPO_PLACE_SPREAD, 6, cpu, &err), 0);
	assert_int_equal(cpu[0], 0);
	assert_int_equal(cpu[1], 2);
	assert_int_equal(cpu[2], 4);
	assert_int_equal(cpu[3], 32);
	assert_int_equal(cpu[4], 6);
	assert_int_equal(cpu[5], 34);
	/* 10 tasks: 5 and 5; 64: every CPU once */
	assert_int_equal(topo_place_policy(&t, TOPO_PLACE_SPREAD, 10, cpu, &err), 0);
	{
		int k = 0;

		for (int i = 0; i < 10; i++)
			k += t.cpu[cpu[i]].package == 0;
		assert_int_equal(k, 5);
	}
	topo_free(&t);

	/* one NUMA node for both packages: no NUMA domain, no allowance: package 0, 1, 0, 1 */
	load_synthetic(&t, "pack:2 l3:1 core:2 pu:1");
	assert_int_equal(t.nnuma, 1);
	assert_int_equal(topo_place_policy(&t, TOPO_PLACE_SPREAD, 4, cpu, &err), 0);
	assert_int_equal(cpu[0], 0);
	assert_int_equal(cpu[1], 2);
	assert_int_equal(cpu[2], 1);
	assert_int_equal(cpu[3], 3);
	topo_free(&t);
}

/* On any machine: each task its own CPU, and a second thread only once every core has a task. */
static void test_spread_properties(void **state)
{
	static const char *const descs[] = {AMD_DESC,
					    "pack:2 numa:1 l3:1 core:24 pu:2",
					    "pack:8 numa:1 l3:1 core:15 pu:2",
					    "pack:1 l3:2 core:3 pu:2",
					    "pack:4 numa:1 l3:2 core:2 pu:4",
					    "core:3 pu:1"};

	for (size_t d = 0; d < sizeof(descs) / sizeof(descs[0]); d++) {
		struct topology t;
		struct mm_error err = {0};
		int *cpu, *used;

		load_synthetic(&t, descs[d]);
		cpu = malloc((size_t)t.ncpus * sizeof(*cpu));
		used = malloc((size_t)t.ncpus * sizeof(*used));
		assert_non_null(cpu);
		assert_non_null(used);
		for (int n = 1; n <= t.ncpus; n++) {
			int second = 0;

			assert_int_equal(topo_place_policy(&t, TOPO_PLACE_SPREAD, n, cpu, &err), 0);
			memset(used, 0, (size_t)t.ncpus * sizeof(*used));
			for (int i = 0; i < n; i++) {
				assert_in_range(cpu[i], 0, t.ncpus - 1);
				assert_int_equal(used[cpu[i]], 0);
				used[cpu[i]] = 1;
				second += t.cpu[cpu[i]].smt_rank > 0;
			}
			if (n <= t.ncores && second)
				fail_msg("%s, %d tasks: %d on second threads with a core idle", descs[d], n, second);
		}
		assert_int_equal(topo_place_policy(&t, TOPO_PLACE_SPREAD, t.ncpus + 1, cpu, &err), MM_ERANGE);
		assert_int_equal(topo_place_policy(&t, TOPO_PLACE_SPREAD, 0, cpu, &err), MM_EINVAL);
		free(cpu);
		free(used);
		topo_free(&t);
	}
}

static void test_placement_names(void **state)
{
	enum topo_placement p = TOPO_PLACE_SPREAD;

	assert_string_equal(topo_placement_name(TOPO_PLACE_WIS), "wis");
	assert_string_equal(topo_placement_name(TOPO_PLACE_SPREAD), "spread");
	assert_int_equal(topo_placement_parse("wis", &p), 0);
	assert_int_equal(p, TOPO_PLACE_WIS);
	assert_int_equal(topo_placement_parse("spread", &p), 0);
	assert_int_equal(p, TOPO_PLACE_SPREAD);
	assert_int_equal(topo_placement_parse("Spread", &p), MM_EINVAL);
	assert_int_equal(topo_placement_parse("", &p), MM_EINVAL);
	assert_int_equal(p, TOPO_PLACE_SPREAD);
}

/*
 * Two-hop packages: 8 packages on the Wagner graph (the 8-cycle plus its diagonals), each
 * package one hop from p +- 1 and p + 4 (mod 8), two hops from the other four, as a glueless
 * 8-socket box with 3 links per socket.  "pack:8 numa:1 l3:1 core:2 pu:1": package p is CPUs
 * 2p and 2p + 1.
 */
static void wagner_hops(uint8_t *h)
{
	for (int p = 0; p < 8; p++)
		for (int q = 0; q < 8; q++) {
			int d = (q - p + 8) % 8;

			h[p * 8 + q] = d == 0 ? 0 : d == 1 || d == 7 || d == 4 ? 1 : 2;
		}
}

static void test_two_hop_distances(void **state)
{
	struct topology t;
	struct mm_error err = {0};
	uint8_t h[64];
	int near = 0, far = 0;

	load_synthetic(&t, "pack:8 numa:1 l3:1 core:2 pu:1");
	assert_int_equal(t.npackages, 8);
	/* without a hop matrix every other package is one hop: remote */
	assert_int_equal(topo_distance(&t, 0, 4), TOPO_REMOTE);
	assert_int_equal(topo_package_hops(&t, 0, 2), 1);
	wagner_hops(h);
	assert_int_equal(topo_set_package_hops(&t, h, 8, "test", &err), 0);
	assert_int_equal(topo_distance(&t, 0, 0), TOPO_SELF);
	assert_int_equal(topo_distance(&t, 0, 1), TOPO_L3);
	assert_int_equal(topo_distance(&t, 0, 2), TOPO_REMOTE);	     /* package 1 */
	assert_int_equal(topo_distance(&t, 0, 14), TOPO_REMOTE);     /* package 7 */
	assert_int_equal(topo_distance(&t, 1, 8), TOPO_REMOTE);	     /* package 4: a diagonal */
	assert_int_equal(topo_distance(&t, 0, 4), TOPO_REMOTE_FAR);  /* package 2 */
	assert_int_equal(topo_distance(&t, 0, 7), TOPO_REMOTE_FAR);  /* package 3 */
	assert_int_equal(topo_distance(&t, 11, 1), TOPO_REMOTE_FAR); /* 5 and 0 */
	assert_int_equal(topo_distance(&t, 13, 3), TOPO_REMOTE_FAR); /* 6 and 1 */
	assert_int_equal(topo_distance(&t, 3, 11), TOPO_REMOTE);     /* 1 and 5 */
	assert_int_equal(topo_distance(&t, 6, 15), TOPO_REMOTE);     /* 3 and 7: a diagonal */
	assert_int_equal(topo_package_hops(&t, 2, 5), 2);
	assert_int_equal(topo_package_hops(&t, 5, 5), 0);
	/* 3 neighbours at one hop, 4 at two, from every package, both ways */
	for (int a = 0; a < 16; a++)
		for (int b = 0; b < 16; b++) {
			assert_int_equal(topo_distance(&t, a, b), topo_distance(&t, b, a));
			near += topo_distance(&t, a, b) == TOPO_REMOTE;
			far += topo_distance(&t, a, b) == TOPO_REMOTE_FAR;
		}
	assert_int_equal(near, 16 * 3 * 2);
	assert_int_equal(far, 16 * 4 * 2);
	assert_string_equal(topo_dist_name(TOPO_REMOTE_FAR), "remote_far");
	topo_free(&t);
	assert_null(t.pkg_hops);
}

static void test_bad_hops(void **state)
{
	struct topology t;
	struct mm_error err = {0};
	uint8_t h[64], bad[64];

	load_synthetic(&t, "pack:8 numa:1 l3:1 core:2 pu:1");
	wagner_hops(h);
	/* the wrong size */
	assert_int_equal(topo_set_package_hops(&t, h, 4, "m.conf:3: [machine] package_hops", &err), MM_ETOPO);
	assert_non_null(strstr(err.msg, "m.conf:3: [machine] package_hops: 4 rows for 4 packages, but the topology "
					"has 8"));
	/* not symmetric, a 0 off the diagonal, a 1 on it, a 3 */
	memcpy(bad, h, sizeof(bad));
	bad[0 * 8 + 2] = 1;
	assert_int_equal(topo_set_package_hops(&t, bad, 8, "x", &err), MM_ETOPO);
	assert_non_null(strstr(err.msg, "hops from package 0 to 2: 1"));
	memcpy(bad, h, sizeof(bad));
	bad[1 * 8 + 2] = bad[2 * 8 + 1] = 0;
	assert_int_equal(topo_set_package_hops(&t, bad, 8, "x", &err), MM_ETOPO);
	memcpy(bad, h, sizeof(bad));
	bad[3 * 8 + 3] = 1;
	assert_int_equal(topo_set_package_hops(&t, bad, 8, "x", &err), MM_ETOPO);
	memcpy(bad, h, sizeof(bad));
	bad[1 * 8 + 2] = bad[2 * 8 + 1] = 3;
	assert_int_equal(topo_set_package_hops(&t, bad, 8, "x", &err), MM_ETOPO);
	assert_null(t.pkg_hops); /* nothing kept from a refused matrix */
	topo_free(&t);
}

static void test_boundaries(void **state)
{
	struct topology t;
	int b[4], n;

	load_synthetic(&t, AMD_DESC);
	n = topo_boundaries(&t, b, 4);
	assert_int_equal(n, 3);
	assert_int_equal(b[0], 64);
	assert_int_equal(b[1], 128);
	assert_int_equal(b[2], 256);
	/* Truncated to @max. */
	assert_int_equal(topo_boundaries(&t, b, 2), 2);
	assert_int_equal(b[1], 128);
	assert_int_equal(topo_boundaries(&t, b, 0), 0);
	topo_free(&t);

	load_synthetic(&t, "pack:1 core:4 pu:2");
	n = topo_boundaries(&t, b, 4);
	assert_int_equal(n, 2);
	assert_int_equal(b[0], 4);
	assert_int_equal(b[1], 8);
	topo_free(&t);

	/* No SMT: ncores == ncpus appears once. */
	load_synthetic(&t, "pack:2 core:3 pu:1");
	n = topo_boundaries(&t, b, 4);
	assert_int_equal(n, 2);
	assert_int_equal(b[0], 3);
	assert_int_equal(b[1], 6);
	topo_free(&t);
}

static void test_uneven_counts(void **state)
{
	struct topology t;
	struct mm_error err = {0};
	int cpu[3], b[4];

	load_synthetic(&t, "pack:1 numa:1 core:3 pu:1");
	check_consistent(&t);
	assert_int_equal(t.ncpus, 3);
	assert_int_equal(t.ncores, 3);
	assert_int_equal(t.npackages, 1);
	assert_int_equal(t.nnuma, 1);
	assert_int_equal(t.nl3, 1); /* no L3: one per package */
	assert_int_equal(t.threads_per_core, 1);
	assert_string_equal(t.summary, "1 package, 1 NUMA node, 1 L3, 3 cores, 3 CPUs");
	assert_int_equal(topo_distance(&t, 0, 2), TOPO_L3);
	assert_int_equal(topo_place(&t, 3, cpu, &err), 0);
	assert_int_equal(cpu[0], 0);
	assert_int_equal(cpu[1], 1);
	assert_int_equal(cpu[2], 2);
	assert_int_equal(topo_boundaries(&t, b, 4), 1);
	assert_int_equal(b[0], 3);
	topo_free(&t);
}

static void test_missing_levels(void **state)
{
	struct topology t;

	/* No package, no core objects: one package, each PU its own core. */
	load_synthetic(&t, "l3:2 pu:3");
	check_consistent(&t);
	assert_int_equal(t.ncpus, 6);
	assert_int_equal(t.ncores, 6);
	assert_int_equal(t.nl3, 2);
	assert_int_equal(t.npackages, 1);
	assert_int_equal(t.threads_per_core, 1);
	assert_int_equal(topo_distance(&t, 0, 2), TOPO_L3);
	assert_int_equal(topo_distance(&t, 0, 3), TOPO_PACKAGE);
	topo_free(&t);

	/* No L3: one L3 domain per package. */
	load_synthetic(&t, "pack:2 core:2 pu:2");
	check_consistent(&t);
	assert_int_equal(t.nl3, 2);
	assert_int_equal(t.cpu[3].l3, 0);
	assert_int_equal(t.cpu[4].l3, 1);
	assert_int_equal(topo_distance(&t, 0, 2), TOPO_L3);
	assert_int_equal(topo_distance(&t, 0, 4), TOPO_REMOTE);
	topo_free(&t);

	/* Two NUMA nodes per package. */
	load_synthetic(&t, "pack:2 numa:2 core:4 pu:1");
	check_consistent(&t);
	assert_int_equal(t.nnuma, 4);
	assert_int_equal(t.cpu[3].numa, 0);
	assert_int_equal(t.cpu[4].numa, 1);
	assert_int_equal(t.cpu[15].numa, 3);
	topo_free(&t);
}

static void test_bad_synthetic(void **state)
{
	struct topology t = {0};
	struct mm_error err = {0};

	assert_int_equal(topo_load_synthetic(&t, "pack:2 foo:3", &err), MM_ETOPO);
	assert_int_equal(err.code, MM_ETOPO);
	assert_non_null(strstr(err.msg, "\"pack:2 foo:3\""));
	assert_non_null(strstr(err.msg, "synthetic description"));
	assert_null(t.cpu);
	topo_free(&t);

	memset(&err, 0, sizeof(err));
	assert_int_equal(topo_load_synthetic(&t, "", &err), MM_ETOPO);
	assert_int_equal(topo_load_synthetic(&t, NULL, &err), MM_EINVAL);

	/* Refused before hwloc builds a quarter of a million objects. */
	memset(&err, 0, sizeof(err));
	assert_int_equal(topo_load_synthetic(&t, "pack:4 core:512 pu:4", &err), MM_ETOPO);
	assert_non_null(strstr(err.msg, "pack:4 core:512 pu:4"));
	assert_non_null(strstr(err.msg, "4096"));
	assert_null(t.cpu);

	/* The limit itself is fine. */
	load_synthetic(&t, "pack:2 core:1024 pu:2");
	assert_int_equal(t.ncpus, 4096);
	topo_free(&t);
}

static void test_missing_xml(void **state)
{
	const char *path = "/nonexistent/mmsim-no-such-topology.xml";
	struct topology t = {0};
	struct mm_error err = {0};

	assert_int_equal(topo_load_xml(&t, path, &err), MM_ENOENT);
	assert_int_equal(err.code, MM_ENOENT);
	assert_non_null(strstr(err.msg, path));
	assert_null(t.cpu);
}

static char *temp_path(void)
{
	char *path = strdup("/tmp/mmsim-topo-XXXXXX");
	int fd;

	assert_non_null(path);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	return path;
}

static void test_bad_xml(void **state)
{
	char *path = temp_path();
	struct topology t = {0};
	struct mm_error err = {0};
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs("<topology><object type=\"Nonsense\"", f);
	fclose(f);
	assert_int_equal(topo_load_xml(&t, path, &err), MM_ETOPO);
	assert_non_null(strstr(err.msg, path));
	assert_null(t.cpu);
	unlink(path);
	free(path);
}

static void export_xml(hwloc_topology_t topo, const char *path)
{
	assert_int_equal(hwloc_topology_export_xml(topo, path, 0), 0);
}

static void test_xml_round_trip(void **state)
{
	struct topology syn, xml = {0};
	struct mm_error err = {0};
	hwloc_topology_t topo;
	char *path = temp_path();
	char source[300];

	assert_int_equal(hwloc_topology_init(&topo), 0);
	assert_int_equal(hwloc_topology_set_synthetic(topo, AMD_DESC), 0);
	assert_int_equal(hwloc_topology_load(topo), 0);
	export_xml(topo, path);
	hwloc_topology_destroy(topo);

	if (topo_load_xml(&xml, path, &err))
		fail_msg("topo_load_xml(%s): %s", path, err.msg);
	load_synthetic(&syn, AMD_DESC);
	check_consistent(&xml);
	snprintf(source, sizeof(source), "xml:%s", path);
	assert_string_equal(xml.source, source);
	assert_string_equal(xml.summary, syn.summary);
	assert_int_equal(xml.ncpus, syn.ncpus);
	assert_int_equal(xml.ncores, syn.ncores);
	assert_int_equal(xml.nl3, syn.nl3);
	assert_int_equal(xml.npackages, syn.npackages);
	assert_int_equal(xml.nnuma, syn.nnuma);
	assert_int_equal(xml.threads_per_core, syn.threads_per_core);
	assert_memory_equal(xml.cpu, syn.cpu, (size_t)syn.ncpus * sizeof(*syn.cpu));
	assert_memory_equal(xml.core_first_cpu, syn.core_first_cpu, (size_t)syn.ncores * sizeof(*syn.core_first_cpu));
	topo_free(&xml);
	topo_free(&syn);
	unlink(path);
	free(path);
}

/* A machine whose cores differ: core 0 lost its second thread. */
static void test_uneven_cores_xml(void **state)
{
	struct topology t = {0};
	struct mm_error err = {0};
	hwloc_topology_t topo;
	hwloc_bitmap_t keep;
	char *path = temp_path();
	int cpu[5], i, used[5] = {0};

	assert_int_equal(hwloc_topology_init(&topo), 0);
	assert_int_equal(hwloc_topology_set_synthetic(topo, "pack:1 core:3 pu:2"), 0);
	assert_int_equal(hwloc_topology_load(topo), 0);
	keep = hwloc_bitmap_dup(hwloc_topology_get_topology_cpuset(topo));
	hwloc_bitmap_clr(keep, 1);
	assert_int_equal(hwloc_topology_restrict(topo, keep, 0), 0);
	hwloc_bitmap_free(keep);
	export_xml(topo, path);
	hwloc_topology_destroy(topo);

	if (topo_load_xml(&t, path, &err))
		fail_msg("topo_load_xml(%s): %s", path, err.msg);
	check_consistent(&t);
	assert_int_equal(t.ncpus, 5);
	assert_int_equal(t.ncores, 3);
	assert_int_equal(t.threads_per_core, 2);
	assert_int_equal(t.cpu[0].os_index, 0);
	assert_int_equal(t.cpu[1].os_index, 2);
	assert_int_equal(t.core_first_cpu[1], 1);
	assert_int_equal(t.core_first_cpu[2], 3);

	/* Cores 0,1,2; core 0 is full, so task 3 goes to core 1, task 4 to 2. */
	assert_int_equal(topo_place(&t, 5, cpu, &err), 0);
	assert_int_equal(cpu[0], 0);
	assert_int_equal(cpu[1], 1);
	assert_int_equal(cpu[2], 3);
	assert_int_equal(cpu[3], 2);
	assert_int_equal(cpu[4], 4);
	for (i = 0; i < 5; i++) {
		assert_int_equal(used[cpu[i]], 0);
		used[cpu[i]] = 1;
	}
	topo_free(&t);
	unlink(path);
	free(path);
}

static void test_local(void **state)
{
	struct topology t = {0};
	struct mm_error err = {0};
	int *cpu, b[3], n, i;

	if (topo_load_local(&t, &err))
		fail_msg("topo_load_local: %s", err.msg);
	check_consistent(&t);
	assert_string_equal(t.source, "local");
	cpu = malloc((size_t)t.ncpus * sizeof(*cpu));
	assert_non_null(cpu);
	assert_int_equal(topo_place(&t, t.ncpus, cpu, &err), 0);
	for (i = 0; i < t.ncpus; i++)
		assert_in_range(cpu[i], 0, t.ncpus - 1);
	free(cpu);
	n = topo_boundaries(&t, b, 3);
	assert_true(n >= 1);
	assert_int_equal(b[n - 1], t.ncpus);
	topo_free(&t);
}

static void test_free_zeroed(void **state)
{
	struct topology t = {0};

	topo_free(&t);
	topo_free(&t);
	load_synthetic(&t, "core:2 pu:2");
	topo_free(&t);
	assert_null(t.cpu);
	assert_null(t.core_first_cpu);
	assert_int_equal(t.ncpus, 0);
	topo_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_amd_counts),
	    cmocka_unit_test(test_amd_distances),
	    cmocka_unit_test(test_place_small),
	    cmocka_unit_test(test_place_amd),
	    cmocka_unit_test(test_place_errors),
	    cmocka_unit_test(test_boundaries),
	    cmocka_unit_test(test_uneven_counts),
	    cmocka_unit_test(test_missing_levels),
	    cmocka_unit_test(test_bad_synthetic),
	    cmocka_unit_test(test_missing_xml),
	    cmocka_unit_test(test_bad_xml),
	    cmocka_unit_test(test_xml_round_trip),
	    cmocka_unit_test(test_uneven_cores_xml),
	    cmocka_unit_test(test_local),
	    cmocka_unit_test(test_free_zeroed),
	    cmocka_unit_test(test_spread_small),
	    cmocka_unit_test(test_spread_numa_allowance),
	    cmocka_unit_test(test_spread_properties),
	    cmocka_unit_test(test_placement_names),
	    cmocka_unit_test(test_two_hop_distances),
	    cmocka_unit_test(test_bad_hops),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
