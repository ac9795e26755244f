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
	coh_line_init(&w->m, &w->l, 0, w->bits);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(transfer_costs_by_hand),
	    cmocka_unit_test(home_snoop_makes_foreign_cross_l3_hops_remote),
	    cmocka_unit_test(fifo_grants_in_arrival_order_and_batches_loads),
	    cmocka_unit_test(local_first_prefers_near_but_bounds_bypasses),
	    cmocka_unit_test(fifo_saturates_at_one_over_latency),
	    cmocka_unit_test(local_first_beats_fifo_by_the_expected_factor),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
