/* SPDX-License-Identifier: MIT */
/*
 * The cache-line model: transfer costs by hand, the arbitration order, and
 * two closed-loop known answers through the whole simulation.
 */
#include "testutil.h"
#include "coherence.h"

#include <math.h>
#include <stdlib.h>

struct cworld {
	struct topology topo;
	struct hw_profile hw;
	struct coh_model m;
	struct coh_line l;
	uint64_t bits[4];
	struct coh_req pool[16];
};

/* "pack:2 numa:1 l3:2 core:2 pu:2": CPUs 0,1 one core; 0-3 one L3; 0-7 package 0 = node 0 */
static void cw_init(struct cworld *w, enum arb_policy pol, int home_snoop)
{
	struct mm_error err;

	memset(w, 0, sizeof(*w));
	assert_int_equal(topo_load_synthetic(&w->topo, "pack:2 numa:1 l3:2 core:2 pu:2", &err), 0);
	w->hw.lat_ps[TOPO_SELF] = 1;
	w->hw.lat_ps[TOPO_SMT] = 10;
	w->hw.lat_ps[TOPO_L3] = 20;
	w->hw.lat_ps[TOPO_PACKAGE] = 100;
	w->hw.lat_ps[TOPO_REMOTE] = 300;
	w->hw.mem_local_ps = 50;
	w->hw.mem_remote_ps = 80;
	w->hw.arbitration = pol;
	w->hw.batch_limit = 2;
	w->hw.home_snoop = home_snoop;
	assert_int_equal(coh_model_init(&w->m, &w->topo, &w->hw), 0);
	coh_line_init(&w->m, &w->l, 0);
}

static void cw_free(struct cworld *w)
{
	coh_line_free(&w->l);
	coh_model_free(&w->m);
	topo_free(&w->topo);
}

static void transfer_costs_by_hand(void **state)
{
	struct cworld w;

	cw_init(&w, ARB_FIFO, 0);
	/* from memory: local node 0 for CPU 0, remote for CPU 8 */
	assert_int_equal(coh_cost_ps(&w.m, &w.l, 0, COH_LOAD), 50);
	assert_int_equal(coh_cost_ps(&w.m, &w.l, 8, COH_RMW), 80);
	coh_apply(&w.m, &w.l, 0, COH_RMW); /* owned by 0 */
	assert_true(coh_holds(&w.m, &w.l, 0, COH_STORE));
	assert_false(coh_holds(&w.m, &w.l, 1, COH_LOAD));
	assert_int_equal(coh_cost_ps(&w.m, &w.l, 1, COH_RMW), 10);   /* SMT sibling */
	assert_int_equal(coh_cost_ps(&w.m, &w.l, 2, COH_LOAD), 20);  /* same L3 */
	assert_int_equal(coh_cost_ps(&w.m, &w.l, 4, COH_LOAD), 100); /* other L3 */
	assert_int_equal(coh_cost_ps(&w.m, &w.l, 8, COH_LOAD), 300); /* other package */
	/* shared by 0 and 8: a load from 1 comes from its sibling, a store must reach 8 */
	coh_apply(&w.m, &w.l, 8, COH_LOAD);
	assert_int_equal(w.l.owner, -1);
	assert_int_equal(w.l.nsharers, 2);
	assert_true(coh_holds(&w.m, &w.l, 8, COH_LOAD));
	assert_false(coh_holds(&w.m, &w.l, 8, COH_STORE));
	assert_int_equal(coh_cost_ps(&w.m, &w.l, 1, COH_LOAD), 10);
	assert_int_equal(coh_cost_ps(&w.m, &w.l, 1, COH_STORE), 300);
	assert_int_equal(coh_cost_ps(&w.m, &w.l, 0, COH_RMW), 300); /* upgrade must invalidate 8 */
	coh_apply(&w.m, &w.l, 1, COH_STORE);
	assert_int_equal(w.l.owner, 1);
	assert_int_equal(w.l.nsharers, 0);
	cw_free(&w);
}

static void home_snoop_makes_foreign_cross_l3_hops_remote(void **state)
{
	struct cworld w;

	cw_init(&w, ARB_FIFO, 1);
	coh_apply(&w.m, &w.l, 8, COH_RMW);			     /* line of node 0, owned on package 1 */
	assert_int_equal(coh_cost_ps(&w.m, &w.l, 12, COH_RMW), 300); /* other L3 of package 1: via home */
	assert_int_equal(coh_cost_ps(&w.m, &w.l, 10, COH_RMW), 20);  /* same L3: no detour */
	coh_apply(&w.m, &w.l, 0, COH_RMW);
	assert_int_equal(coh_cost_ps(&w.m, &w.l, 4, COH_RMW), 100); /* home package: no detour */
	cw_free(&w);
}

static void enqueue(struct cworld *w, int idx, int cpu, int op)
{
	w->pool[idx] = (struct coh_req){.task = idx, .cpu = cpu, .op = op};
	assert_int_equal(coh_enqueue(&w->l, w->pool, idx), 0);
}

static void fifo_grants_in_arrival_order_and_batches_loads(void **state)
{
	struct cworld w;
	int32_t out[16];

	cw_init(&w, ARB_FIFO, 0);
	coh_apply(&w.m, &w.l, 0, COH_RMW);
	enqueue(&w, 0, 8, COH_RMW);
	enqueue(&w, 1, 1, COH_LOAD);
	enqueue(&w, 2, 2, COH_LOAD);
	enqueue(&w, 3, 3, COH_STORE);
	enqueue(&w, 4, 4, COH_LOAD);
	assert_int_equal(coh_pick(&w.m, &w.l, w.pool, out, 16), 1);
	assert_int_equal(out[0], 0);
	/* the two loads queued before the store go together */
	assert_int_equal(coh_pick(&w.m, &w.l, w.pool, out, 16), 2);
	assert_int_equal(out[0], 1);
	assert_int_equal(out[1], 2);
	assert_int_equal(coh_pick(&w.m, &w.l, w.pool, out, 16), 1);
	assert_int_equal(out[0], 3);
	assert_int_equal(coh_pick(&w.m, &w.l, w.pool, out, 16), 1);
	assert_int_equal(out[0], 4);
	assert_int_equal(coh_pick(&w.m, &w.l, w.pool, out, 16), 0);
	cw_free(&w);
}

static void local_first_prefers_near_but_bounds_bypasses(void **state)
{
	struct cworld w;
	int32_t out[16];

	cw_init(&w, ARB_LOCAL_FIRST, 0); /* batch_limit 2 */
	coh_apply(&w.m, &w.l, 0, COH_RMW);
	enqueue(&w, 0, 8, COH_RMW); /* oldest, far */
	enqueue(&w, 1, 4, COH_RMW); /* other L3 */
	enqueue(&w, 2, 1, COH_RMW); /* SMT sibling of the owner */
	enqueue(&w, 3, 2, COH_RMW); /* same L3 */
	assert_int_equal(coh_pick(&w.m, &w.l, w.pool, out, 16), 1);
	assert_int_equal(out[0], 2); /* nearest to CPU 0 */
	coh_apply(&w.m, &w.l, 1, COH_RMW);
	assert_int_equal(coh_pick(&w.m, &w.l, w.pool, out, 16), 1);
	assert_int_equal(out[0], 3); /* nearest to CPU 1; second bypass */
	coh_apply(&w.m, &w.l, 2, COH_RMW);
	assert_int_equal(coh_pick(&w.m, &w.l, w.pool, out, 16), 1);
	assert_int_equal(out[0], 0); /* batch limit reached: the oldest, however far */
	cw_free(&w);
}

/* 8 packages, p one hop from p +- 1 and p + 4 (mod 8), two from the rest: a glueless 8-socket box */
static void wagner_hops(uint8_t *h)
{
	for (int p = 0; p < 8; p++)
		for (int q = 0; q < 8; q++) {
			int d = (q - p + 8) % 8;

			h[p * 8 + q] = d == 0 ? 0 : d == 1 || d == 7 || d == 4 ? 1 : 2;
		}
}

/* "pack:8 numa:1 l3:1 core:2 pu:1" with those hops: package p is CPUs 2p and 2p + 1 */
static void cw_init_8s(struct cworld *w, enum arb_policy pol)
{
	struct mm_error err;
	uint8_t h[64];

	memset(w, 0, sizeof(*w));
	assert_int_equal(topo_load_synthetic(&w->topo, "pack:8 numa:1 l3:1 core:2 pu:1", &err), 0);
	wagner_hops(h);
	assert_int_equal(topo_set_package_hops(&w->topo, h, 8, "test", &err), 0);
	w->hw.lat_ps[TOPO_SELF] = 1;
	w->hw.lat_ps[TOPO_L3] = 20;
	w->hw.lat_ps[TOPO_REMOTE] = 300;
	w->hw.lat_ps[TOPO_REMOTE_FAR] = 500;
	w->hw.mem_local_ps = 50;
	w->hw.mem_remote_ps = 80;
	w->hw.arbitration = pol;
	w->hw.batch_limit = 2;
	assert_int_equal(coh_model_init(&w->m, &w->topo, &w->hw), 0);
	coh_line_init(&w->m, &w->l, 0);
}

static void two_hop_costs_by_hand(void **state)
{
	struct cworld w;

	cw_init_8s(&w, ARB_FIFO);
	coh_apply(&w.m, &w.l, 0, COH_RMW);			     /* owned on package 0 */
	assert_int_equal(coh_cost_ps(&w.m, &w.l, 1, COH_RMW), 20);   /* same L3 */
	assert_int_equal(coh_cost_ps(&w.m, &w.l, 2, COH_LOAD), 300); /* package 1: one hop */
	assert_int_equal(coh_cost_ps(&w.m, &w.l, 8, COH_LOAD), 300); /* package 4: one hop */
	assert_int_equal(coh_cost_ps(&w.m, &w.l, 4, COH_LOAD), 500); /* package 2: two hops */
	assert_int_equal(coh_cost_ps(&w.m, &w.l, 13, COH_RMW), 500); /* package 6: two hops */
	/* shared on packages 2 and 3 (both two hops from 0, one from each other) */
	coh_apply(&w.m, &w.l, 4, COH_STORE);
	coh_apply(&w.m, &w.l, 6, COH_LOAD);
	assert_int_equal(w.l.owner, -1);
	assert_int_equal(w.l.nsharers, 2);
	assert_int_equal(coh_cost_ps(&w.m, &w.l, 0, COH_LOAD), 500);  /* nearest sharer: two hops */
	assert_int_equal(coh_cost_ps(&w.m, &w.l, 0, COH_STORE), 500); /* farthest: two hops */
	assert_int_equal(coh_cost_ps(&w.m, &w.l, 5, COH_LOAD), 20);   /* 4's L3 */
	assert_int_equal(coh_cost_ps(&w.m, &w.l, 5, COH_STORE), 300); /* 6 is one hop from 2 */
	/* and one on package 1: a load from 0 comes from there, a store still reaches two hops */
	coh_apply(&w.m, &w.l, 2, COH_LOAD);
	assert_int_equal(coh_cost_ps(&w.m, &w.l, 0, COH_LOAD), 300);
	assert_int_equal(coh_cost_ps(&w.m, &w.l, 0, COH_STORE), 500);
	assert_int_equal(coh_cost_ps(&w.m, &w.l, 3, COH_STORE), 500); /* 3 on package 1: 2 and 3 are far */
	assert_int_equal(coh_dist(&w.m, 0, 15, 0), TOPO_REMOTE);      /* package 7 */
	assert_int_equal(coh_dist(&w.m, 0, 10, 0), TOPO_REMOTE_FAR);  /* package 5 */
	cw_free(&w);
}

static void local_first_prefers_one_hop_to_two(void **state)
{
	struct cworld w;
	int32_t out[16];

	cw_init_8s(&w, ARB_LOCAL_FIRST); /* batch_limit 2 */
	coh_apply(&w.m, &w.l, 0, COH_RMW);
	enqueue(&w, 0, 4, COH_RMW);  /* oldest, package 2: two hops */
	enqueue(&w, 1, 10, COH_RMW); /* package 5: two hops */
	enqueue(&w, 2, 14, COH_RMW); /* package 7: one hop */
	enqueue(&w, 3, 8, COH_RMW);  /* package 4: one hop */
	assert_int_equal(coh_pick(&w.m, &w.l, w.pool, out, 16), 1);
	assert_int_equal(out[0], 2); /* the oldest of the one-hop requests */
	coh_apply(&w.m, &w.l, 14, COH_RMW);
	/* from package 7: package 2 (5 apart) is two hops, 5 (2 apart) two, 4 (3 apart) two */
	assert_int_equal(coh_pick(&w.m, &w.l, w.pool, out, 16), 1);
	assert_int_equal(out[0], 0); /* all two hops: the oldest */
	coh_apply(&w.m, &w.l, 4, COH_RMW);
	/* from package 2: 5 is 3 apart (two hops), 4 is 2 apart (two hops): the oldest, 5 */
	assert_int_equal(coh_pick(&w.m, &w.l, w.pool, out, 16), 1);
	assert_int_equal(out[0], 1);
	cw_free(&w);
}

/*
 * Differential test of the arbitration: the original scan of the whole queue,
 * written out here, against coh_pick over random enqueue/pick sequences,
 * several lines sharing one request pool, both policies, home_snoop and
 * batch limits, with queues long enough for coh_pick's domain lists.
 */
#define DIFF_POOL 320

struct ref_line {
	int32_t idx[DIFF_POOL], cpu[DIFF_POOL];
	int len, bypass;
};

static uint64_t diff_rand(uint64_t *s)
{
	/* splitmix64: a fixed sequence, whatever the C library */
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static int diff_below(uint64_t *s, int n)
{
	return (int)(diff_rand(s) % (uint64_t)n);
}

static enum topo_dist ref_dist(const struct topology *t, const struct hw_profile *hw, int from, int to, int home)
{
	enum topo_dist d = topo_distance(t, from, to);
	int home_pkg = -1;

	for (int c = 0; c < t->ncpus; c++)
		if (t->cpu[c].numa == home)
			home_pkg = t->cpu[c].package;
	if (hw->home_snoop && d == TOPO_PACKAGE && t->cpu[to].package != home_pkg)
		d = TOPO_REMOTE;
	return d;
}

static void ref_remove(struct ref_line *r, int k)
{
	memmove(&r->idx[k], &r->idx[k + 1], (size_t)(r->len - k - 1) * sizeof(r->idx[0]));
	memmove(&r->cpu[k], &r->cpu[k + 1], (size_t)(r->len - k - 1) * sizeof(r->cpu[0]));
	r->len--;
}

/* The rule as first written: q[0] unless a later request is strictly nearer, stopping at SMT. */
static int ref_pick(const struct topology *t, const struct hw_profile *hw, int last, int home, struct ref_line *r,
		    const struct coh_req *pool, int32_t *out, int max)
{
	int best = 0, n = 0;

	if (!r->len || max < 1)
		return 0;
	if (hw->arbitration == ARB_LOCAL_FIRST && last >= 0 && r->bypass < hw->batch_limit) {
		enum topo_dist bd = ref_dist(t, hw, last, r->cpu[0], home);

		for (int k = 1; k < r->len && bd > TOPO_SMT; k++) {
			enum topo_dist d = ref_dist(t, hw, last, r->cpu[k], home);

			if (d < bd) {
				bd = d;
				best = k;
			}
		}
	}
	r->bypass = best == 0 ? 0 : r->bypass + 1;
	out[n++] = r->idx[best];
	ref_remove(r, best);
	if (pool[out[0]].op != COH_LOAD)
		return 1;
	while (r->len && n < max && pool[r->idx[0]].op == COH_LOAD) {
		out[n++] = r->idx[0];
		ref_remove(r, 0);
	}
	return n;
}

static void diff_run(const char *desc, const uint8_t *hops, enum arb_policy pol, int home_snoop, int batch_limit,
		     uint64_t seed)
{
	enum { NLINES = 3 };
	struct topology topo;
	struct hw_profile hw;
	struct coh_model m;
	struct coh_line l[NLINES];
	struct ref_line *ref = calloc(NLINES, sizeof(*ref));
	struct coh_req *pool = calloc(DIFF_POOL, sizeof(*pool));
	int32_t *free_idx = malloc(DIFF_POOL * sizeof(*free_idx)), out[DIFF_POOL], rout[DIFF_POOL];
	uint64_t rs = seed;
	int nfree = DIFF_POOL, grow = 60, loads = 50, picks[2] = {0, 0};
	struct mm_error err;

	assert_non_null(ref);
	assert_non_null(pool);
	assert_non_null(free_idx);
	memset(&topo, 0, sizeof(topo));
	memset(&hw, 0, sizeof(hw));
	assert_int_equal(topo_load_synthetic(&topo, desc, &err), 0);
	assert_true(topo.ncpus <= 256);
	if (hops)
		assert_int_equal(topo_set_package_hops(&topo, hops, topo.npackages, desc, &err), 0);
	hw.arbitration = pol;
	hw.home_snoop = home_snoop;
	hw.batch_limit = batch_limit;
	assert_int_equal(coh_model_init(&m, &topo, &hw), 0);
	for (int i = 0; i < NLINES; i++)
		coh_line_init(&m, &l[i], diff_below(&rs, topo.nnuma));
	for (int i = 0; i < DIFF_POOL; i++)
		free_idx[i] = i;

	for (int step = 0; step < 40000; step++) {
		const int li = diff_below(&rs, NLINES);
		struct coh_line *cl = &l[li];
		struct ref_line *rl = &ref[li];

		/* phases that let queues grow long, then drain, with more or fewer loads */
		if (step % 2000 == 0) {
			grow = step < 4000 ? 40 : 30 + diff_below(&rs, 45); /* short queues first */
			loads = diff_below(&rs, 101);
		}
		if (nfree && diff_below(&rs, 100) < grow) {
			const int k = diff_below(&rs, nfree);
			const int32_t idx = free_idx[k];
			const int op = diff_below(&rs, 100) < loads ? COH_LOAD : 1 + diff_below(&rs, 3);

			free_idx[k] = free_idx[--nfree];
			pool[idx] = (struct coh_req){.task = idx, .cpu = diff_below(&rs, topo.ncpus), .op = op};
			assert_int_equal(coh_enqueue(cl, pool, idx), 0);
			rl->idx[rl->len] = idx;
			rl->cpu[rl->len++] = pool[idx].cpu;
		} else {
			const int max = diff_below(&rs, 4) ? 1 + diff_below(&rs, 6) : DIFF_POOL;
			const int rn = ref_pick(&topo, &hw, cl->last, cl->home, rl, pool, rout, max);

			picks[cl->dom != NULL]++; /* scanned, or from the domain lists */
			const int n = coh_pick(&m, cl, pool, out, max);

			assert_int_equal(n, rn);
			for (int i = 0; i < n; i++) {
				assert_int_equal(out[i], rout[i]);
				free_idx[nfree++] = out[i];
			}
			assert_int_equal(cl->bypass, rl->bypass);
			/* the grantee holds it next, or now and then a CPU that took it without queueing */
			if (n)
				cl->last = pool[out[n - 1]].cpu;
			if (diff_below(&rs, 10) == 0)
				cl->last = diff_below(&rs, topo.ncpus);
		}
		assert_int_equal(cl->qlen, rl->len);
	}
	/* both ways of picking were exercised (fifo never needs the lists) */
	assert_true(picks[0] > 100);
	assert_true(pol == ARB_FIFO ? picks[1] == 0 : picks[1] > 5000);
	for (int i = 0; i < NLINES; i++)
		coh_line_free(&l[i]);
	coh_model_free(&m);
	topo_free(&topo);
	free(free_idx);
	free(pool);
	free(ref);
}

static void local_first_picks_as_the_full_scan_did(void **state)
{
	static const char *const topos[] = {
	    "pack:2 numa:1 l3:2 core:2 pu:2", "pack:2 numa:1 l3:4 core:4 pu:2", "pack:2 numa:2 l3:2 core:3 pu:2",
	    "pack:1 l3:1 core:4 pu:2",	      "pack:4 numa:1 l3:2 core:2 pu:1",
	};
	static const int limits[] = {0, 1, 2, 3, 8, 1000};
	uint64_t seed = 1;

	for (size_t t = 0; t < sizeof(topos) / sizeof(topos[0]); t++)
		for (int snoop = 0; snoop < 2; snoop++)
			for (size_t b = 0; b < sizeof(limits) / sizeof(limits[0]); b++) {
				diff_run(topos[t], NULL, ARB_LOCAL_FIRST, snoop, limits[b], seed++);
				if (b == 0)
					diff_run(topos[t], NULL, ARB_FIFO, snoop, 8, seed++);
			}
	/* packages one and two hops apart (no home_snoop: the profile refuses it with hops) */
	{
		uint8_t h[64];

		wagner_hops(h);
		for (size_t b = 0; b < sizeof(limits) / sizeof(limits[0]); b++) {
			diff_run("pack:8 numa:1 l3:1 core:2 pu:1", h, ARB_LOCAL_FIRST, 0, limits[b], seed++);
			diff_run("pack:8 numa:1 l3:2 core:2 pu:2", h, ARB_LOCAL_FIRST, 0, limits[b], seed++);
		}
		diff_run("pack:8 numa:1 l3:2 core:2 pu:2", h, ARB_FIFO, 0, 8, seed++);
	}
}

static const char *hot_line = "scenario hot\nop \"one atomic on a shared line\"\nfield g scope global\n"
			      "variant v kernel 9.9 \"test\"\nbegin\n  f atomic g\n  f compute 5ns\n";

/* N CPUs updating one line in a closed loop, fifo, one latency L: 1/L grants a second. */
static void fifo_saturates_at_one_over_latency(void **state)
{
	char hw[1024], k[512];
	struct tworld w;
	struct sim_result r;

	t_hw_text(hw, sizeof(hw), 0.001, 100, 100, 100, 100, 0, "fifo", 8, 0);
	t_kernel_text(k, sizeof(k), "qspinlock", "6.x");
	t_world(&w, "pack:2 core:4 pu:1", hw, k, hot_line);
	struct sim_config c = t_cfg(&w, 8);

	t_run(&c, &r);
	assert_float_equal(r.ops_per_s, 1e7, 1e7 * 0.01);
	t_world_free(&w);
}

/*
 * Two packages of 4 CPUs, near latency a = 20 ns, far b = 200 ns.
 * fifo serves round robin: 6 near and 2 far hops per 8 grants, 65 ns each.
 * local-first with batch limit B: on each side 1 far landing, the 3 other
 * waiting requests (each the oldest), then B bypassing near grants: one far
 * hop per B + 4 grants, ((B + 3) a + b) / (B + 4) = 35 ns for B = 8.
 */
static void local_first_beats_fifo_by_the_expected_factor(void **state)
{
	char hw[1024], k[512];
	double x[2];

	for (int p = 0; p < 2; p++) {
		struct tworld w;
		struct sim_result r;

		t_hw_text(hw, sizeof(hw), 0.001, 20, 20, 20, 200, 0, p ? "local-first" : "fifo", 8, 0);
		t_kernel_text(k, sizeof(k), "qspinlock", "6.x");
		t_world(&w, "pack:2 core:4 pu:1", hw, k, hot_line);
		struct sim_config c = t_cfg(&w, 8);

		c.aligned_start = 1; /* the grant orders below assume arrivals in task order */
		t_run(&c, &r);
		x[p] = r.ops_per_s;
		t_world_free(&w);
	}
	assert_float_equal(x[0], 1e9 / 65.0, 1e9 / 65.0 * 0.02);
	assert_float_equal(x[1], 1e9 / 35.0, 1e9 / 35.0 * 0.02);
	assert_float_equal(x[1] / x[0], 65.0 / 35.0, 0.04);
}

/*
 * qspinlock's slow path takes the lock with plain stores (Linux 6.6,
 * kernel/locking/qspinlock.c): the pending waiter's clear_pending_set_locked()
 * and the queue head's set_locked() are WRITE_ONCE()s, not atomics.  Lines
 * cost next to nothing here and an atomic 100 ns; each task holds the lock
 * 1000 ns, then thinks 500 ns.  With 2 tasks the waiter is always the pending
 * one; with 4 and 8 a queue forms and the lock goes to its head, which sees
 * others queued behind it (the tail is not its own) and so takes it with
 * set_locked().  Either way the hand-over is a store the new holder does not
 * wait for, the lock is never idle: 1e6 operations a second.  Were the
 * hand-over a locked operation (as modelled before), each would add the
 * atomic's 100 ns: 1e9 / 1100.
 */
static void qspinlock_hands_over_with_plain_stores(void **state)
{
	static const int tasks[] = {2, 4, 8};

	for (size_t i = 0; i < sizeof(tasks) / sizeof(tasks[0]); i++) {
		char hw[1024], k[512], scn[512];
		struct tworld w;
		struct sim_result r;

		t_hw_text(hw, sizeof(hw), 0.001, 0.001, 0.001, 0.001, 0.001, 100, "fifo", 8, 0);
		t_kernel_text(k, sizeof(k), "qspinlock", "6.x");
		snprintf(scn, sizeof(scn),
			 "scenario q\nop \"hold the lock, then think\"\nlock L spinlock scope global\n"
			 "variant v kernel 9.9 \"test\"\nbegin\n  f lock L\n  f compute 1000ns\n  f unlock L\n"
			 "  f compute 500ns\n");
		t_world(&w, "pack:1 numa:1 core:8 pu:1", hw, k, scn);
		struct sim_config c = t_cfg(&w, tasks[i]);

		t_run(&c, &r);
		print_message("qspinlock, %d tasks: %.0f ops/s\n", tasks[i], r.ops_per_s);
		assert_float_equal(r.ops_per_s, 1e6, 1e6 * 0.01);
		t_world_free(&w);
	}
}

/*
 * The sharer set as a plain list, against the line's (one CPU alone, then a bitset; distance
 * classes from the CPUs' ids): every CPU's cost and holds for each op after each grant, over
 * random grants on topologies with SMT, several L3s, home_snoop and a hop matrix.
 */
static enum topo_dist ref_class(const struct topology *t, int from, int to, int home_pkg, int home_snoop)
{
	enum topo_dist d = topo_distance(t, from, to);

	if (home_snoop && d == TOPO_PACKAGE && t->cpu[to].package != home_pkg)
		return TOPO_REMOTE;
	return d;
}

static void sharer_set_answers_as_a_plain_list(void **state)
{
	static const struct {
		const char *desc;
		int home_snoop, hops;
	} worlds[] = {
	    {"pack:2 numa:1 l3:2 core:2 pu:2", 0, 0},
	    {"pack:2 numa:1 l3:4 core:4 pu:2", 1, 0},
	    {"pack:8 numa:1 l3:1 core:2 pu:1", 0, 1},
	    {"pack:2 numa:2 l3:8 core:4 pu:2", 0, 0}, /* 128 CPUs: two bitset words */
	};
	uint64_t rs = 7;

	for (size_t wi = 0; wi < sizeof(worlds) / sizeof(worlds[0]); wi++) {
		struct topology topo;
		struct hw_profile hw;
		struct coh_model m;
		struct coh_line l;
		struct mm_error err;
		uint8_t h[64];
		int owner = -1, *shares, n, home;

		memset(&topo, 0, sizeof(topo));
		memset(&hw, 0, sizeof(hw));
		assert_int_equal(topo_load_synthetic(&topo, worlds[wi].desc, &err), 0);
		if (worlds[wi].hops) {
			wagner_hops(h);
			assert_int_equal(topo_set_package_hops(&topo, h, 8, "test", &err), 0);
		}
		for (int d = 0; d < TOPO_NDIST; d++)
			hw.lat_ps[d] = 10 + 100 * d;
		hw.mem_local_ps = 7;
		hw.mem_remote_ps = 9;
		hw.home_snoop = worlds[wi].home_snoop;
		assert_int_equal(coh_model_init(&m, &topo, &hw), 0);
		n = topo.ncpus;
		home = diff_below(&rs, topo.nnuma);
		coh_line_init(&m, &l, home);
		shares = calloc((size_t)n, sizeof(int));
		assert_non_null(shares);
		for (int step = 0; step < 3000; step++) {
			/* loads more often than stores, so that sets grow past one CPU */
			const int cpu = diff_below(&rs, n), op = diff_below(&rs, 100) < 75 ? COH_LOAD : COH_STORE;
			int home_pkg = -1;

			assert_int_equal(coh_apply(&m, &l, cpu, op), 0);
			if (op != COH_LOAD) {
				memset(shares, 0, (size_t)n * sizeof(int));
				owner = cpu;
			} else if (owner != cpu) {
				if (owner >= 0)
					shares[owner] = 1;
				owner = -1;
				shares[cpu] = 1;
			}
			for (int c = 0; c < n; c++)
				if (topo.cpu[c].numa == home)
					home_pkg = topo.cpu[c].package;
			for (int c = 0; c < n; c++) {
				int any = 0, mine = owner < 0 && shares[c];
				enum topo_dist near = TOPO_NDIST, far = TOPO_SELF;

				for (int o = 0; o < n; o++) {
					enum topo_dist d = ref_class(&topo, o, c, home_pkg, hw.home_snoop);

					if (!shares[o] || owner >= 0)
						continue;
					any = 1;
					if (d < near)
						near = d;
					if (o != c && d > far)
						far = d;
				}
				assert_int_equal(coh_holds(&m, &l, c, COH_LOAD), owner == c || mine);
				assert_int_equal(coh_holds(&m, &l, c, COH_STORE), owner == c);
				if (owner >= 0) {
					const int64_t want =
					    hw.lat_ps[ref_class(&topo, owner, c, home_pkg, hw.home_snoop)];

					assert_int_equal(coh_cost_ps(&m, &l, c, COH_LOAD), want);
					assert_int_equal(coh_cost_ps(&m, &l, c, COH_RMW), want);
				} else {
					assert_true(any);
					assert_true(l.nsharers == 1 || l.sharers); /* two or more: the bitset */
					assert_int_equal(coh_cost_ps(&m, &l, c, COH_LOAD), hw.lat_ps[near]);
					assert_int_equal(coh_cost_ps(&m, &l, c, COH_STORE), hw.lat_ps[far]);
				}
			}
		}
		free(shares);
		coh_line_free(&l);
		coh_model_free(&m);
		topo_free(&topo);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(transfer_costs_by_hand),
	    cmocka_unit_test(home_snoop_makes_foreign_cross_l3_hops_remote),
	    cmocka_unit_test(fifo_grants_in_arrival_order_and_batches_loads),
	    cmocka_unit_test(local_first_prefers_near_but_bounds_bypasses),
	    cmocka_unit_test(local_first_picks_as_the_full_scan_did),
	    cmocka_unit_test(two_hop_costs_by_hand),
	    cmocka_unit_test(sharer_set_answers_as_a_plain_list),
	    cmocka_unit_test(local_first_prefers_one_hop_to_two),
	    cmocka_unit_test(fifo_saturates_at_one_over_latency),
	    cmocka_unit_test(local_first_beats_fifo_by_the_expected_factor),
	    cmocka_unit_test(qspinlock_hands_over_with_plain_stores),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
