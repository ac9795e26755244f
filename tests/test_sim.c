/* SPDX-License-Identifier: MIT */
/*
 * The simulation as a whole: hand-computed small cases (posted stores,
 * fixed work, idle floor), thread vs process mode, stall detection, and
 * determinism across OpenMP thread counts.
 */
#include "testutil.h"
#include "runtime.h"
#include "sweep.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

static void world(struct tworld *w, const char *topo, double lat, const char *scn)
{
	char hw[1024], k[512];

	t_hw_text(hw, sizeof(hw), 0.001, lat, lat, lat, lat, 0, "fifo", 8, 0);
	t_kernel_text(k, sizeof(k), "qspinlock", "6.x");
	t_world(w, topo, hw, k, scn);
}

/* Two CPUs bouncing one line, 200 ns apart, 1 us of work per operation. */
static void stores_are_posted_but_atomics_wait(void **state)
{
	static const char *const fmt = "scenario sb\nop \"x\"\nfield g scope global\nvariant v kernel 9.9 \"t\"\n"
				       "begin\n  f %s g\n  f compute 1000ns\n";
	char scn[512];
	struct tworld w;
	struct sim_result r;

	snprintf(scn, sizeof(scn), fmt, "store");
	world(&w, "pack:2 numa:1 core:1 pu:1", 200, scn);
	struct sim_config c = t_cfg(&w, 2);

	t_run(&c, &r);
	/* the store's transfer overlaps the work: 1 us per operation */
	assert_float_equal(r.ops_per_s, 2 * 1e6, 2e6 * 0.01);
	t_world_free(&w);

	snprintf(scn, sizeof(scn), fmt, "atomic");
	world(&w, "pack:2 numa:1 core:1 pu:1", 200, scn);
	c = t_cfg(&w, 2);
	t_run(&c, &r);
	/* the atomic waits for the line: 1.2 us per operation */
	assert_float_equal(r.ops_per_s, 2 / 1.2e-6, 2 / 1.2e-6 * 0.01);
	t_world_free(&w);
}

/*
 * [coherence] serve_ns, by hand: K tasks on K cores of one L3 (every transfer, and memory, 50 ns)
 * each load one line nobody holds, all at 1 us.  The first load finds the line idle and is
 * granted alone, from memory: 50 ns (the line busy 50 ns + 1 ps).  The other K - 1 queue meanwhile
 * and are granted together, each from the first reader, 50 ns, the k-th of them (from 0) k x
 * serve_ns later: the last at 1000 + 50 + 0.001 + 50 + (K - 2) x serve_ns.  With serve_ns 0
 * every reader of the batch ends at once, whatever K; with 4 ns, 8 readers end 24 ns later than
 * that, 32 readers 120 ns.  The loads of SMT siblings of the one that holds the line do not go
 * through the home: K tasks on K / 2 cores of two threads each, the first reader's sibling
 * among them, end (K - 3) x serve_ns after it.
 */
static void the_home_answers_a_batch_of_loads_one_at_a_time(void **state)
{
	static const struct {
		const char *topo;
		int k;
		double serve_ns, end_ns;
	} cases[] = {
	    {"pack:1 numa:1 core:8 pu:1", 8, 0, 1100.001},   {"pack:1 numa:1 core:8 pu:1", 8, 4, 1124.001},
	    {"pack:1 numa:1 core:32 pu:1", 32, 0, 1100.001}, {"pack:1 numa:1 core:32 pu:1", 32, 4, 1220.001},
	    {"pack:1 numa:1 core:4 pu:2", 8, 4, 1120.001},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char hw[1024], k[512];
		struct tworld w;
		struct sim_result r;

		t_hw_text(hw, sizeof(hw), 0.001, 50, 50, 50, 50, 0, "fifo", 8, 0);
		t_hw_serve(hw, sizeof(hw), cases[i].serve_ns);
		t_kernel_text(k, sizeof(k), "qspinlock", "6.x");
		t_world(&w, cases[i].topo, hw, k,
			"scenario h\nop \"x\"\nfield g scope global\nvariant v kernel 9.9 \"t\"\nbegin\n"
			"  f compute 1000ns\n  f load g\n");
		struct sim_config c = t_cfg(&w, cases[i].k);

		c.ops_per_task = 1;
		t_run(&c, &r);
		print_message("%d readers on %s, serve_ns %g: the last ends at %.3f ns\n", cases[i].k, cases[i].topo,
			      cases[i].serve_ns, r.makespan_s * 1e9);
		assert_float_equal(r.makespan_s * 1e9, cases[i].end_ns, 1e-6);
		t_world_free(&w);
	}
}

static void fixed_work_makespan_and_idle_floor(void **state)
{
	struct tworld w;
	struct sim_result r;

	world(&w, "pack:1 numa:1 core:8 pu:1", 10,
	      "scenario fw\nop \"x\"\nfield p scope task\nvariant v kernel 9.9 \"t\"\nbegin\n"
	      "  f compute 1000ns\n  f atomic p\n");
	struct sim_config c = t_cfg(&w, 2);

	c.ops_per_task = 10;
	t_run(&c, &r);
	/* 10 x 1 us: the private line is always a hit (1 ps each) */
	assert_float_equal(r.makespan_s, 10e-6, 1e-9);
	/* runtest.py's floor: 2 busy CPUs of 8 */
	assert_float_equal(r.idle_pct, 75.0, 1e-3);
	c.ops_per_task = 0;
	t_run(&c, &r);
	assert_float_equal(r.ops_per_s, 2e6, 2e6 * 1e-3);
	assert_float_equal(r.idle_pct, 75.0, 1e-3);
	t_world_free(&w);
}

/* An mm-scoped hot line: shared by threads, private to each process. */
static void threads_share_the_mm_processes_do_not(void **state)
{
	struct tworld w;
	struct sim_result one, thr, proc;

	world(&w, "pack:2 numa:1 core:4 pu:1", 100,
	      "scenario mm\nop \"x\"\nfield m scope mm\nvariant v kernel 9.9 \"t\"\nbegin\n"
	      "  f atomic m\n  f compute 50ns\n");
	struct sim_config c = t_cfg(&w, 1);

	t_run(&c, &one);
	c.ntasks = 8;
	t_run(&c, &thr);
	c.mode = SC_PROCESSES;
	t_run(&c, &proc);
	assert_float_equal(proc.ops_per_s, 8 * one.ops_per_s, 8 * one.ops_per_s * 0.01);
	assert_float_equal(thr.ops_per_s, 1e7, 1e7 * 0.01); /* one 100 ns transfer per operation */
	t_world_free(&w);
}

/*
 * 'miss' steps cost DRAM latency x the share of a task's footprint its L3 cannot hold.  With a
 * 1 MiB LLC and 0.5 MiB per task: one or two tasks fit (1 us per op); four want 2 MiB, half of
 * each one's lines survive, and 2 misses x 0.5 x 100 ns add 100 ns per operation.
 */
static void cold_lines_cost_dram_latency_beyond_the_llc(void **state)
{
	char hw[1200], k[512];
	struct tworld w;
	struct sim_result r;

	t_hw_text(hw, sizeof(hw), 0.001, 100, 100, 100, 100, 0, "fifo", 8, 0);
	strcat(hw, "[cache]\nllc_mib = 1\n");
	t_kernel_text(k, sizeof(k), "qspinlock", "6.x");
	t_world(&w, "pack:1 numa:1 l3:1 core:4 pu:1", hw, k,
		"scenario cold\nop \"x\"\nvariant v kernel 9.9 \"t\"\nfootprint 512KiB\nbegin\n"
		"  f compute 1000ns\n  f miss 2\n");
	struct sim_config c = t_cfg(&w, 2);

	t_run(&c, &r);
	assert_float_equal(r.cold_max, 0, 1e-12);
	assert_float_equal(r.ops_per_s, 2e6, 2e6 * 1e-3);
	c.ntasks = 4;
	t_run(&c, &r);
	assert_float_equal(r.cold_max, 0.5, 1e-12);
	assert_float_equal(r.ops_per_s, 4 / 1.1e-6, 4 / 1.1e-6 * 1e-3);
	t_world_free(&w);
	/* seed 001's: 48 tasks of 4.5 MiB on a 36 MiB L3 keep 1/6 of their lines */
	assert_float_equal(cold_fraction(36.0 * 1048576, 4.5 * 1048576, 48), 5.0 / 6, 1e-12);
	assert_float_equal(cold_fraction(0, 4.5 * 1048576, 48), 0, 0);
	assert_float_equal(cold_fraction(36.0 * 1048576, 0, 48), 0, 0);
}

static const struct sim_lock_stats *lock_named(const struct sim_result *r, const char *name)
{
	for (int i = 0; i < r->nlocks; i++)
		if (!strcmp(r->locks[i].name, name))
			return &r->locks[i];
	fail_msg("no lock %s in the result", name);
	return NULL;
}

/*
 * 'lock v read else m': a reader that finds the VMA lock write-locked takes m for read instead,
 * and its 'unlock v read' releases m.  Alone, a task never finds its own write lock held; two
 * threads do, every acquisition is released, and exclusion holds on both locks.
 */
static void a_write_locked_vma_sends_readers_to_the_fallback(void **state)
{
	struct tworld w;
	struct sim_result r;

	world(&w, "pack:1 numa:1 core:2 pu:1", 10,
	      "scenario fb\nop \"x\"\nlock v vma_lock scope mm\nlock m rwsem scope mm\nvariant v kernel 9.9 \"t\"\n"
	      "begin\n  every 4\n    f lock v write\n    f compute 5000ns\n    f unlock v write\n  end\n"
	      "  f lock v read else m\n  f compute 200ns\n  f unlock v read\n");
	struct sim_config c = t_cfg(&w, 1);

	for (int n = 1; n <= 2; n++) {
		const struct sim_lock_stats *v, *m;

		c.ntasks = n;
		t_run(&c, &r);
		v = lock_named(&r, "v");
		m = lock_named(&r, "m");
		printf("# %d task(s): v read %llu, fallbacks %llu, m read %llu\n", n,
		       (unsigned long long)v->acquires[1], (unsigned long long)v->fallbacks,
		       (unsigned long long)m->acquires[1]);
		if (n == 1)
			assert_int_equal(v->fallbacks, 0);
		else
			assert_true(v->fallbacks > 0);
		/* each fallback begins a trylock of m (the fault path's mmap_read_trylock); m is never
		 * write-held here, so none fails; the last may still be in flight */
		assert_int_equal(m->starts, v->fallbacks);
		assert_true(m->acquires[1] <= v->fallbacks && m->acquires[1] + (uint64_t)n >= v->fallbacks);
		assert_int_equal(m->try_failed, 0);
		assert_int_equal(m->acquires[0], 0);
		/* every acquisition released, give or take the one in flight per task at the end */
		for (int i = 0; i < 2; i++) {
			assert_true(v->acquires[i] >= v->releases[i] && v->acquires[i] <= v->releases[i] + (uint64_t)n);
			assert_true(m->acquires[i] >= m->releases[i] && m->acquires[i] <= m->releases[i] + (uint64_t)n);
		}
		assert_int_equal(v->violations, 0);
		assert_int_equal(m->violations, 0);
	}
	t_world_free(&w);
}

/*
 * The lock tracepoint's count (mmap_lock_start_locking): every lock and trylock begun, and once
 * more for a trylock that fails and blocks.  One task alone never fails its trylock; beside a
 * task that holds m for write half its time, some fail, and each failure is one more start than
 * the acquisitions show.
 */
static void a_failed_trylock_counts_twice(void **state)
{
	struct tworld w;
	struct sim_result r;

	world(&w, "pack:1 numa:1 core:2 pu:1", 10,
	      "scenario tr\nop \"x\"\nlock m rwsem scope mm\nvariant v kernel 9.9 \"t\"\n"
	      "begin\n  every 2\n    f lock m write\n    f compute 3000ns\n    f unlock m write\n  end\n"
	      "  f trylock m read\n  f compute 500ns\n  f unlock m read\n");
	struct sim_config c = t_cfg(&w, 1);

	c.ops_per_task = 2000; /* fixed work: nothing in flight at the end */
	for (int n = 1; n <= 2; n++) {
		const struct sim_lock_stats *m;

		c.ntasks = n;
		t_run(&c, &r);
		m = lock_named(&r, "m");
		printf("# %d task(s): starts %llu, acquires %llu+%llu, failed trylocks %llu\n", n,
		       (unsigned long long)m->starts, (unsigned long long)m->acquires[0],
		       (unsigned long long)m->acquires[1], (unsigned long long)m->try_failed);
		/* 1000 write locks and 2000 trylocks per task, each acquired once */
		assert_int_equal(m->starts, 3000 * (uint64_t)n);
		assert_int_equal(m->acquires[0] + m->acquires[1], m->starts);
		if (n == 1)
			assert_int_equal(m->try_failed, 0);
		else
			assert_true(m->try_failed > 0 && m->try_failed <= m->acquires[1]);
	}
	t_world_free(&w);
}

/* Two locks taken in opposite orders (ABBA): a real deadlock is reported, not hung on. */
static void a_deadlock_is_reported_not_hung(void **state)
{
	struct tworld w;
	struct sim_result r;
	struct mm_error err;

	world(&w, "pack:1 numa:1 core:4 pu:1", 10,
	      "scenario dl\nop \"x\"\nlock A spinlock scope global\nlock B spinlock scope global\n"
	      "variant v kernel 9.9 \"t\"\nbegin\n  f lock A\n  f compute 1000ns\n  f lock B\n  f unlock B\n"
	      "  f unlock A\n  f lock B\n  f compute 1000ns\n  f lock A\n  f unlock A\n  f unlock B\n");
	struct sim_config c = t_cfg(&w, 4);

	assert_int_equal(sim_run(&c, &r, &err), MM_ESTALL);
	assert_non_null(strstr(err.msg, "stalled"));
	c.ops_per_task = 5;
	assert_int_equal(sim_run(&c, &r, &err), MM_ESTALL);
	t_world_free(&w);
}

static void too_many_tasks_is_an_error(void **state)
{
	struct tworld w;
	struct sim_result r;
	struct mm_error err;

	world(&w, "pack:1 numa:1 core:2 pu:1", 10,
	      "scenario x\nop \"x\"\nfield g scope global\nvariant v kernel 9.9 \"t\"\nbegin\n  f load g\n");
	struct sim_config c = t_cfg(&w, 3);

	assert_int_equal(sim_run(&c, &r, &err), MM_ERANGE);
	t_world_free(&w);
}

/* The same points give the same bytes with 1 or 2 OpenMP threads. */
static void sweep_is_deterministic_across_thread_counts(void **state)
{
	char hw[1024], k[512];
	struct tworld w;
	struct sweep_job a[6], b[6];
	struct mm_error err;

	t_hw_text(hw, sizeof(hw), 1, 8, 30, 100, 250, 5, "local-first", 4, 0.02);
	t_kernel_text(k, sizeof(k), "qspinlock", "5.11");
	t_world(&w, "pack:2 numa:1 l3:2 core:2 pu:2", hw, k,
		"scenario d\nop \"x\"\nfield m scope mm\nfield n scope node\nlock L rwsem scope mm\n"
		"variant v kernel 9.9 \"t\"\nbegin\n  f trylock L read\n  f atomic n\n  f compute 300ns\n"
		"  f unlock L read\n  every 4\n    f lock L write\n    f store m\n    f unlock L write\n"
		"  end\n  f compute 200ns exp\n");
	memset(a, 0, sizeof(a));
	for (int i = 0; i < 6; i++) {
		a[i].cfg = t_cfg(&w, 1 + 3 * i);
		a[i].cfg.measure_events = 50000;
	}
	memcpy(b, a, sizeof(a));
	omp_set_num_threads(1);
	assert_int_equal(sweep_run(a, 6, NULL, NULL, &err), 0);
	omp_set_num_threads(2);
	assert_int_equal(sweep_run(b, 6, NULL, NULL, &err), 0);
	for (int i = 0; i < 6; i++)
		assert_memory_equal(&a[i].res, &b[i].res, sizeof(a[i].res));
	/* and the seed matters */
	a[3].cfg.seed = 99;
	assert_int_equal(sweep_run(a + 3, 1, NULL, NULL, &err), 0);
	assert_true(a[3].res.ops_per_s != b[3].res.ops_per_s);
	t_world_free(&w);
}

/* Runs of 1 to 4 tasks under seeds 1..@seeds give the same bytes with skip_ahead's jumps and with
 * its step-by-step walk. */
static void jump_equals_walk(const struct tworld *w, int seeds)
{
	struct sim_result jump, walk;

	for (int n = 1; n <= 4; n++)
		for (uint64_t seed = 1; seed <= (uint64_t)seeds; seed++) {
			struct sim_config c = t_cfg(w, n);

			c.seed = seed;
			c.measure_events = 20000;
			t_run(&c, &jump);
			c.skip_by_steps = 1;
			t_run(&c, &walk);
			assert_memory_equal(&jump, &walk, sizeof(jump));
		}
}

/*
 * skip_ahead jumps whole iterations of repeats; it must land where the step-by-step walk lands:
 * the same results to the bit, with locks held across and inside repeats, a repeat of 0, nested
 * repeats and an 'every' inside one (which is walked).
 */
static void skip_jumps_land_where_the_walk_lands(void **state)
{
	struct tworld w;

	world(&w, "pack:1 numa:1 core:4 pu:1", 50,
	      "scenario sk\nop \"x\"\nfield x scope mm\nfield y scope mm\nlock L rwsem scope mm\n"
	      "variant v kernel 9.9 \"t\"\nbegin\n  f compute 100ns\n  repeat 700\n    f compute 30ns\n"
	      "    repeat 3\n      f load x\n      f compute 20ns\n    end\n    f lock L read\n    repeat 5\n"
	      "      f compute 10ns\n    end\n    f unlock L read\n  end\n  f lock L write\n  repeat 11\n"
	      "    f store y\n    f compute 5ns\n  end\n  f unlock L write\n  repeat 0\n    f compute 5ns\n"
	      "  end\n  repeat 40\n    every 3\n      f store x\n    end\n    f compute 2ns\n  end\n"
	      "  repeat 1300\n    f compute 3ns\n  end\n");
	jump_equals_walk(&w, 4);
	t_world_free(&w);
}

/*
 * skip_ahead with roles and choose: a repeat in a role's block is jumped over by the units of
 * that role's iteration, one holding a choose (or another role's block, for the others) is
 * walked; either way the run is the step-by-step walk's, to the bit.
 */
static void skip_jumps_land_where_the_walk_lands_with_roles(void **state)
{
	struct tworld w;

	world(&w, "pack:1 numa:1 core:4 pu:1", 50,
	      "scenario skr\nop \"x\"\nfield x scope mm\nlock L rwsem scope mm\nrole a tasks 1\nrole b share 50%\n"
	      "variant v kernel 9.9 \"t\"\nbegin\n  f compute 100ns\n  as a\n    repeat 300\n      f compute 7ns\n"
	      "      f store x\n    end\n  end\n  repeat 200\n    as b\n"
	      "      f load x\n    end\n    f compute 3ns\n  end\n  repeat 50\n    choose 30%\n"
	      "      f lock L write\n      f compute 20ns\n      f unlock L write\n    else\n"
	      "      f compute 2ns\n    end\n  end\n");
	jump_equals_walk(&w, 3);
	t_world_free(&w);
}

/*
 * 'choose 25%' takes its branch a quarter of the time, drawn from the run's seeded generator:
 * in 4000 operations of one task, within 4.5 standard deviations of 1000 (sd = sqrt(4000 x 1/4
 * x 3/4) = 27.4), the else branch the others; the makespan is 100 ns an operation and 1 us
 * a branch taken, 1 ns an else taken; and the same seed draws the same branches.
 */
static void choose_takes_its_branch_its_share_of_the_time(void **state)
{
	struct tworld w;
	struct sim_result r;
	struct sim_step_stats steps[8];
	double first[3];

	world(&w, "pack:1 numa:1 core:2 pu:1", 10,
	      "scenario ch\nop \"x\"\nvariant v kernel 9.9 \"t\"\nbegin\n  f compute 100ns\n  choose 25%\n"
	      "    g compute 1000ns\n  else\n    h compute 1ns\n  end\n");
	assert_int_equal(w.prog.n, 6);
	for (uint64_t seed = 1; seed <= 3; seed++) {
		struct sim_config c = t_cfg(&w, 1);
		double taken;

		c.seed = seed;
		c.ops_per_task = 4000;
		c.steps = steps;
		t_run(&c, &r);
		taken = steps[2].visits;
		printf("# seed %llu: the branch %.0f times in 4000\n", (unsigned long long)seed, taken);
		assert_in_range((long)taken, 1000 - 123, 1000 + 123);
		assert_float_equal(steps[4].visits, 4000 - taken, 0);
		assert_float_equal(steps[1].visits, 4000, 0);
		assert_float_equal(steps[5].visits, 4000, 0);
		assert_float_equal(r.makespan_s, (4000 * 100e-9 + taken * 1000e-9 + (4000 - taken) * 1e-9), 1e-15);
		first[seed - 1] = taken;
		t_run(&c, &r); /* the same seed: the same draws */
		assert_float_equal(steps[2].visits, taken, 0);
	}
	assert_true(first[0] != first[1] || first[1] != first[2]);
	/* 0% and 100%: never and always */
	t_world_free(&w);
	world(&w, "pack:1 numa:1 core:2 pu:1", 10,
	      "scenario ch\nop \"x\"\nvariant v kernel 9.9 \"t\"\nbegin\n  choose 0%\n    g compute 1000ns\n  end\n"
	      "  choose 100%\n    h compute 10ns\n  end\n");
	{
		struct sim_config c = t_cfg(&w, 1);

		c.ops_per_task = 100;
		c.steps = steps;
		t_run(&c, &r);
		assert_float_equal(steps[1].visits, 0, 0);
		assert_float_equal(steps[4].visits, 100, 0);
		assert_float_equal(r.makespan_s, 100 * 10e-9, 1e-15);
	}
	t_world_free(&w);
}

/*
 * Two roles of private work only, 1 us and 0.5 us an operation: each task does 1/its time, so
 * with 4 tasks (2 of each) the roles do 2e6 and 4e6 ops/s and the run their sum; a third role
 * left without tasks reports none.  With fixed work, each role's rate over its own makespan.
 */
static void each_role_reports_its_own_rate(void **state)
{
	struct tworld w;
	struct sim_result r, again;

	world(&w, "pack:1 numa:1 core:4 pu:1", 10,
	      "scenario two\nop \"x\"\nrole slow share 50%\nrole fast share 50%\nrole idle share 0%\n"
	      "variant v kernel 9.9 \"t\"\nbegin\n  as slow\n    f compute 1000ns\n  end\n  as fast\n"
	      "    g compute 500ns\n  end\n  as idle\n    h compute 1ns\n  end\n");
	struct sim_config c = t_cfg(&w, 4);

	t_run(&c, &r);
	assert_int_equal(r.nroles, 3); /* no task is left without a role: no "(none)" */
	assert_string_equal(r.roles[0].name, "slow");
	assert_string_equal(r.roles[1].name, "fast");
	assert_int_equal(r.roles[0].ntasks, 2);
	assert_int_equal(r.roles[1].ntasks, 2);
	assert_int_equal(r.roles[2].ntasks, 0);
	assert_float_equal(r.roles[0].ops_per_s_task, 1e6, 1e6 * 1e-4);
	assert_float_equal(r.roles[1].ops_per_s_task, 2e6, 2e6 * 1e-4);
	assert_float_equal(r.roles[0].ops_per_s, 2e6, 2e6 * 1e-4);
	assert_float_equal(r.roles[1].ops_per_s, 4e6, 4e6 * 1e-4);
	assert_float_equal(r.roles[2].ops_per_s, 0, 0);
	assert_float_equal(r.ops_per_s, r.roles[0].ops_per_s + r.roles[1].ops_per_s, 1e-6);
	assert_float_equal(r.ops_per_s, 6e6, 6e6 * 1e-4);
	/* a fixed seed gives the same result, to the bit */
	t_run(&c, &again);
	assert_memory_equal(&r, &again, sizeof(r));
	/* fixed work: 10 operations, 10 us for slow, 5 us for fast */
	c.ops_per_task = 10;
	t_run(&c, &r);
	assert_float_equal(r.makespan_s, 10e-6, 1e-12);
	assert_float_equal(r.roles[0].ops_per_s, 2 * 10 / 10e-6, 1e-3);
	assert_float_equal(r.roles[1].ops_per_s, 2 * 10 / 5e-6, 1e-3);
	assert_float_equal(r.roles[1].ops_per_s_task, 2e6, 1e-6);
	t_world_free(&w);

	/* a role of one task; the other two tasks have none and run the step outside alone */
	world(&w, "pack:1 numa:1 core:4 pu:1", 10,
	      "scenario one\nop \"x\"\nrole solo tasks 1\nvariant v kernel 9.9 \"t\"\nbegin\n  as solo\n"
	      "    f compute 750ns\n  end\n  g compute 250ns\n");
	c = t_cfg(&w, 3);
	t_run(&c, &r);
	assert_int_equal(r.nroles, 2);
	assert_string_equal(r.roles[1].name, "(none)");
	assert_int_equal(r.roles[0].ntasks, 1);
	assert_int_equal(r.roles[1].ntasks, 2);
	assert_float_equal(r.roles[0].ops_per_s, 1e6, 1e6 * 1e-4);
	assert_float_equal(r.roles[1].ops_per_s_task, 4e6, 4e6 * 1e-4);
	assert_float_equal(r.ops_per_s, 9e6, 9e6 * 1e-4);
	/* more 'tasks N' than the run has: an error at the role's line */
	{
		struct mm_error err;

		c.ntasks = 1;
		assert_int_equal(sim_run(&c, &r, &err), 0);
		t_world_free(&w);
		world(&w, "pack:1 numa:1 core:4 pu:1", 10,
		      "scenario one\nop \"x\"\nrole a tasks 2\nrole b tasks 2\nvariant v kernel 9.9 \"t\"\nbegin\n"
		      "  as a\n    f compute 750ns\n  end\n");
		c = t_cfg(&w, 3);
		assert_int_equal(sim_run(&c, &r, &err), MM_ERANGE);
		assert_non_null(
		    strstr(err.msg, "test.scn:4: role 'b' takes 2 tasks, but a run of 3 tasks leaves it 1"));
	}
	t_world_free(&w);
}

/*
 * locktest's "40 readers + 40 writers" on one rwsem: the readers and the writers are reported
 * apart, dealt out alternately (so the packages hold them alike), and add up to the run.
 */
static void readers_and_writers_are_reported_apart(void **state)
{
	struct tworld w;
	struct sim_result r;

	world(&w, "pack:2 numa:2 core:40 pu:1", 50,
	      "scenario lt\nop \"x\"\nlock sem rwsem scope global\nrole reader tasks 40\nrole writer tasks 40\n"
	      "variant v kernel 9.9 \"t\"\nbegin\n  as reader\n    down_read lock sem read\n"
	      "    cs compute 10ns\n    up_read unlock sem read\n  end\n  as writer\n"
	      "    down_write lock sem write\n    cs compute 10ns\n    up_write unlock sem write\n  end\n"
	      "  between compute 100ns\n");
	struct sim_config c = t_cfg(&w, 80);

	c.measure_events = 40000;
	t_run(&c, &r);
	printf("# 40 readers %.0f ops/s, 40 writers %.0f ops/s\n", r.roles[0].ops_per_s, r.roles[1].ops_per_s);
	assert_int_equal(r.nroles, 2);
	assert_string_equal(r.roles[0].name, "reader");
	assert_string_equal(r.roles[1].name, "writer");
	assert_int_equal(r.roles[0].ntasks, 40);
	assert_int_equal(r.roles[1].ntasks, 40);
	assert_true(r.roles[0].ops_per_s > 0 && r.roles[1].ops_per_s > 0);
	assert_float_equal(r.ops_per_s, r.roles[0].ops_per_s + r.roles[1].ops_per_s, r.ops_per_s * 1e-12);
	assert_float_equal(r.roles[0].ops_per_s_task, r.roles[0].ops_per_s / 40, 1e-6);
	assert_int_equal(r.locks[0].violations, 0);
	t_world_free(&w);
}

/* The estimate before a run, by hand: fixed work is tasks x ops x (steps + 2 per shared step + 1). */
static void the_work_of_a_run_is_estimated_before_it(void **state)
{
	struct tworld w;
	struct sim_result r;
	char why[512];

	world(&w, "pack:1 numa:1 core:8 pu:1", 10,
	      "scenario fw\nop \"x\"\nfield p scope task\nvariant v kernel 9.9 \"t\"\nbegin\n"
	      "  f compute 1000ns\n  f atomic p\n");
	struct sim_config c = t_cfg(&w, 2);

	c.ops_per_task = 10;
	assert_float_equal(sim_work_estimate(&c, why, sizeof(why)), 2 * 10 * (2 + 3), 1e-9);
	assert_non_null(strstr(why, "10 operations per task"));
	/* and the throughput run does what the estimate says, within a factor of 3 */
	c.ops_per_task = 0;
	t_run(&c, &r);
	printf("# estimate %.3g, ran %.3g\n", sim_work_estimate(&c, NULL, 0), (double)(r.events + r.visits));
	assert_in_range(r.events + r.visits, sim_work_estimate(&c, NULL, 0) / 3, sim_work_estimate(&c, NULL, 0) * 3);
	t_world_free(&w);

	/* two nested repeats of 2^40: one operation is 2 x 2^80 steps, and the estimate names them */
	world(&w, "pack:1 numa:1 core:8 pu:1", 10,
	      "scenario nest\nop \"x\"\nfield m scope mm\nvariant v kernel 9.9 \"t\"\nbegin\n"
	      "  f compute 100ns\n  repeat 1099511627776\n    repeat 1099511627776\n      f load m\n    end\n"
	      "  end\n");
	c = t_cfg(&w, 1);
	assert_true(sim_work_estimate(&c, why, sizeof(why)) > 2.4e24);
	assert_non_null(strstr(why, ":7: repeat 1099511627776, "));
	assert_non_null(strstr(why, ":8: repeat 1099511627776"));
	t_world_free(&w);
}

static double tick_min_partial = 2;

static void record_progress(void *arg, double done, int total)
{
	double part = done - floor(done);

	(void)arg;
	if (done < total && part > 0 && part < tick_min_partial)
		tick_min_partial = part;
}

/* The progress line moves during a point, not only between points: a long job reports its share. */
static void progress_is_reported_within_a_point(void **state)
{
	struct tworld w;
	struct sweep_job job;
	struct mm_error err;

	world(&w, "pack:1 numa:1 core:2 pu:1", 10,
	      "scenario x\nop \"x\"\nfield g scope global\nvariant v kernel 9.9 \"t\"\nbegin\n  f atomic g\n"
	      "  f compute 10ns\n");
	memset(&job, 0, sizeof(job));
	job.cfg = t_cfg(&w, 2);
	job.cfg.measure_events = 400000; /* several ticks of 65536 events */
	assert_int_equal(sweep_run(&job, 1, record_progress, NULL, &err), 0);
	assert_true(tick_min_partial > 0 && tick_min_partial < 1);
	assert_null(job.cfg.tick); /* the sweep's state is gone with it */
	t_world_free(&w);
}

/* A run the estimate misjudged is still bounded: it stops at its work limit, with an error. */
static void a_run_past_its_work_limit_is_stopped(void **state)
{
	struct tworld w;
	struct sim_result r;
	struct mm_error err;

	world(&w, "pack:1 numa:1 core:2 pu:1", 10,
	      "scenario x\nop \"x\"\nfield g scope global\nvariant v kernel 9.9 \"t\"\nbegin\n  f atomic g\n"
	      "  f compute 10ns\n");
	struct sim_config c = t_cfg(&w, 2);

	c.max_work = 100000;
	assert_int_equal(sim_run(&c, &r, &err), MM_ERANGE);
	assert_non_null(strstr(err.msg, "--max-work"));
	c.ops_per_task = 1000000;
	assert_int_equal(sim_run(&c, &r, &err), MM_ERANGE);
	c.max_work = 0; /* the default bound lets the small run through */
	c.ops_per_task = 1000;
	assert_int_equal(sim_run(&c, &r, &err), 0);
	t_world_free(&w);
}

/* The interpreter's inline rounding is libm's llround: halves away from zero, exact fractions. */
static void rt_llround_is_llround(void **state)
{
	static const double edge[] = {0.0,
				      -0.0,
				      0.5,
				      -0.5,
				      1.5,
				      -1.5,
				      2.5,
				      -2.5,
				      0.49999999999999994,
				      -0.49999999999999994,
				      4503599627370495.5,
				      4503599627370496.0,
				      9007199254740993.0,
				      1e18,
				      -1e18,
				      123456.5000000001};
	uint64_t z = 42;

	for (size_t i = 0; i < sizeof(edge) / sizeof(edge[0]); i++)
		assert_int_equal(rt_llround(edge[i]), llround(edge[i]));
	for (int i = 0; i < 200000; i++) {
		double x;

		z = z * 6364136223846793005ULL + 1442695040888963407ULL;
		/* magnitudes from 1e-3 to 1e17, both signs, some exact halves */
		x = (double)(z >> 11) / 9007199254740992.0 * pow(10.0, (double)(z % 21) - 3);
		if (z & 2)
			x = floor(x) + 0.5;
		if (z & 1)
			x = -x;
		assert_int_equal(rt_llround(x), llround(x));
	}
}

/* The hardware and kernel profiles of the layout tests: a 128 MiB file read ahead @ra pages at a
 * time, its folios mapped whole by one fault (@whole) or not. */
static void layout_texts(char *hw, size_t nhw, char *k, size_t nk, int ra, int whole)
{
	t_hw_text(hw, nhw, 0.001, 10, 10, 10, 10, 0, "fifo", 8, 0);
	snprintf(k, nk,
		 "[kernel]\nname = ktest\nversion = 9.9\nspinlock = qspinlock\nrwsem_era = 6.x\n"
		 "vma_lock = vma_lock\n[batch]\npages_per_map = 32768\nptes_per_table = 512\n"
		 "fault_around_pages = 16\nra_pages = %d\nfolio_max_order = 9\nmap_whole_folio = %d\n",
		 ra, whole);
}

/* The head of a layout test's scenario: the [batch] names it takes, then a step before the faults. */
#define LAYOUT_SCN_HEAD                                                                                       \
	"scenario lay\nop \"x\"\n# pages_per_map ptes_per_table fault_around_pages ra_pages folio_max_order " \
	"map_whole_folio\nvariant v kernel 9.9 \"t\"\nbegin\n  f compute 1ns\n"

/* @ops operations of one task in @w, each step's visits counted into @steps (@n of them). */
static void layout_run(struct tworld *w, int64_t ops, struct sim_step_stats *steps, size_t n)
{
	struct sim_result r;
	struct sim_config c = t_cfg(w, 1);

	c.ops_per_task = ops;
	c.steps = steps;
	memset(steps, 0, n * sizeof(*steps));
	t_run(&c, &r);
}

/*
 * A folio layout's 'every' (README "Large folios"): over a 128 MiB file whose page cache readahead
 * filled in rounds of ra_pages, the folios are those the kernel made (6.18 ext4, traced with
 * filemap:mm_filemap_add_to_page_cache on the development VM): at read_ahead_kb 8192, 2048 pages
 * each of orders 0, 2, 4, 6 and 8 (2048 + 512 + 128 + 32 + 8 folios) and 44 of order 9; at 128 KiB,
 * 32 pages each of orders 0, 2, 4 and 1021 folios of order 5 (1063 folios); at 512 KiB, 128 pages
 * each of orders 0, 2, 4, 6 and 252 of order 7 (422).  One write fault per folio when a folio is
 * mapped whole (6.18), per page otherwise, one PMD per order-9 folio either way; a read fault per
 * 16-page fault-around window, or per larger folio mapped whole: 128 x 3 + 32 + 8 = 424 (measured:
 * 0.0143 faults per page: 424 + 44 PMDs = 468 a pass).  Two passes of one task fire each unit
 * twice, 'repeat unit_others' runs its pages but the faulting one.  'repeat LAYOUT.folios' runs once
 * per folio of the class, whatever the units: 2728 PTE-mapped folios at 8192 KiB (a read window
 * over several small folios is one unit but as many folios), 1063 at 128 KiB, 422 at 512 KiB.
 * 'repeat unit_folios' runs once per folio a unit maps all or part of: summed over a pass, the
 * folios, but where a folio is several units (one page, or one window, per fault: 6.16), once for
 * each: 10240 PTE-mapped pages written one a fault; read in 16-page windows, 2048 + 512 + 128 for
 * orders 0, 2 and 4 and 128 + 128 windows over orders 6 and 8 (2944).  'repeat unit_folio_pages'
 * runs once per page of those folios: the pages of the pass where each unit is a folio or a window
 * over whole folios, but a page of a folio of f pages written alone runs f times (2048 x 1 + 512 x 16
 * + 128 x 256 + 32 x 4096 + 8 x 65536 = 698368 for one write per page), a window inside one 4 x 64
 * for an order-6 folio and 16 x 256 for order 8 (6144 + 8192 + 32768 = 47104).
 */
static void layout_every_fires_once_per_unit(void **state)
{
	static const struct {
		int ra, whole;
		const char *layout;
		int units, pages, pmd_units, folios, unit_folios, folio_pages;
	} cases[] = {
	    {2048, 1, "file_write", 2728, 10240, 44, 2728, 2728, 10240},
	    {2048, 0, "file_write", 10240, 10240, 44, 2728, 10240, 698368},
	    {2048, 1, "file_read", 424, 10240, 44, 2728, 2728, 10240},
	    {2048, 0, "file_read", 640, 10240, 44, 2728, 2944, 47104},
	    {32, 1, "file_write", 1063, 32768, 0, 1063, 1063, 32768},
	    {128, 1, "file_write", 422, 32768, 0, 422, 422, 32768},
	    {32, 1, "file_read", 2 + 2 + 2 + 1021, 32768, 0, 1063, 1063, 32768},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char hw[1024], k[512], base[1024], scn[1200];
		struct tworld w;
		struct sim_step_stats steps[24];

		layout_texts(hw, sizeof(hw), k, sizeof(k), cases[i].ra, cases[i].whole);
		snprintf(base, sizeof(base),
			 LAYOUT_SCN_HEAD
			 "  every %s_pte\n    g compute 1ns\n    repeat unit_others\n      h compute 1ns\n    end\n"
			 "    repeat unit_folios\n      s compute 1ns\n    end\n"
			 "    repeat unit_folio_pages\n      t compute 1ns\n    end\n  end\n  every %s_pmd\n"
			 "    p compute 1ns\n  end\n",
			 cases[i].layout, cases[i].layout);
		/* with the op-level repeats last */
		snprintf(scn, sizeof(scn),
			 "%s  repeat %s_pmd.units\n    q compute 1ns\n  end\n  repeat %s_pte.folios\n"
			 "    r compute 1ns\n  end\n",
			 base, cases[i].layout, cases[i].layout);
		t_world(&w, "pack:1 numa:1 core:1 pu:1", hw, k, scn);
		assert_int_equal(w.prog.nlayout, 2);
		assert_int_equal(w.prog.layout[0].n, cases[i].units);
		assert_int_equal(w.prog.layout[0].total, cases[i].pages);
		assert_int_equal(w.prog.layout[1].n, cases[i].pmd_units);
		assert_int_equal(w.prog.layout[1].total, 512 * cases[i].pmd_units);
		assert_int_equal(w.prog.layout[0].folios, cases[i].folios);
		assert_int_equal(w.prog.layout[1].folios, cases[i].pmd_units);
		/* the visits per operation the counts check and explain use */
		assert_float_equal(w.prog.visits[2], cases[i].units / 32768.0, 1e-12);
		assert_float_equal(w.prog.visits[4], (cases[i].pages - cases[i].units) / 32768.0, 1e-12);
		assert_float_equal(w.prog.visits[7], cases[i].unit_folios / 32768.0, 1e-12);
		assert_float_equal(w.prog.visits[10], cases[i].folio_pages / 32768.0, 1e-12);
		assert_float_equal(w.prog.visits[14], cases[i].pmd_units / 32768.0, 1e-12);
		assert_float_equal(w.prog.visits[17], cases[i].pmd_units, 1e-12); /* repeat LAYOUT.units */
		assert_float_equal(w.prog.visits[20], cases[i].folios, 1e-12);	  /* repeat LAYOUT.folios */
		/* the interpreter, two operations: the repeats run their counts each time */
		layout_run(&w, 2, steps, 24);
		assert_float_equal(steps[17].visits, 2.0 * cases[i].pmd_units, 0);
		assert_float_equal(steps[20].visits, 2.0 * cases[i].folios, 0);
		t_world_free(&w);
		/* and two passes (65536 operations) without those repeats, the steps before keeping their
		 * places: each unit's fault twice */
		t_world(&w, "pack:1 numa:1 core:1 pu:1", hw, k, base);
		layout_run(&w, 2 * 32768, steps, 24);
		assert_float_equal(steps[2].visits, 2.0 * cases[i].units, 0);
		assert_float_equal(steps[4].visits, 2.0 * (cases[i].pages - cases[i].units), 0);
		assert_float_equal(steps[7].visits, 2.0 * cases[i].unit_folios, 0);
		assert_float_equal(steps[10].visits, 2.0 * cases[i].folio_pages, 0);
		assert_float_equal(steps[14].visits, 2.0 * cases[i].pmd_units, 0);
		t_world_free(&w);
	}
}

/*
 * 'repeat unit_large_folio' (README "Large folios"): once per unit that is a run of two or more
 * pages of one folio, over the layouts of layout_every_fires_once_per_unit.  Read at 8192 KiB with
 * the folio mapped whole: of the 424 units the 128 order-4 folios and the 32 + 8 larger ones (not
 * the 256 windows over orders 0 and 2): 168; without map_whole_folio each 16-page window of an
 * order-6 or order-8 folio counts (128 + 128 + 128 = 384).  Written whole: every folio but the 2048
 * of order 0 (680); one page a fault: none.  At 128 KiB, read whole: the two windows over the 32
 * pages of order 4 (one 16-page folio each) and the 1021 folios of order 5 (1023).
 */
static void layout_large_folio_units(void **state)
{
	static const struct {
		int ra, whole;
		const char *layout;
		int large;
	} cases[] = {
	    {2048, 1, "file_read", 168}, {2048, 0, "file_read", 384}, {2048, 1, "file_write", 680},
	    {2048, 0, "file_write", 0},	 {32, 1, "file_read", 1023},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char hw[1024], k[512], scn[600];
		struct tworld w;
		struct sim_step_stats steps[8];

		layout_texts(hw, sizeof(hw), k, sizeof(k), cases[i].ra, cases[i].whole);
		snprintf(scn, sizeof(scn),
			 LAYOUT_SCN_HEAD
			 "  every %s_pte\n    repeat unit_large_folio\n      x compute 1ns\n    end\n  end\n",
			 cases[i].layout);
		t_world(&w, "pack:1 numa:1 core:1 pu:1", hw, k, scn);
		/* the estimate the counts check uses, and two passes of the interpreter */
		assert_float_equal(w.prog.visits[3], cases[i].large / 32768.0, 1e-12);
		layout_run(&w, 2 * 32768, steps, 8);
		assert_float_equal(steps[3].visits, 2.0 * cases[i].large, 0);
		t_world_free(&w);
	}
}

/*
 * Where a task that starts @pos pages into a pass stands (layout_phase): a pass of 16 pages whose
 * units end at pages 4, 6 and 14 (gaps 6, 2 and 8: the first spans the pass's turn).  From each
 * position the next firing comes at the next end: gap[unit] - since visits later.
 */
static void layout_position(void **state)
{
	int64_t end[] = {4, 6, 14}, gap[] = {6, 2, 8}, pages[] = {4, 2, 8};
	struct prog_layout L = {.n = 3, .pass = 16, .gap = gap, .pages = pages, .end = end, .total = 14};
	static const struct {
		int64_t pos;
		int unit;
		int64_t since;
	} at[] = {{0, 0, 2},  {3, 0, 5},  {4, 1, 0},  {5, 1, 1}, {6, 2, 0},
		  {13, 2, 7}, {14, 0, 0}, {15, 0, 1}, {20, 1, 0}};

	(void)state;
	for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
		int unit;
		int64_t since, pos = at[i].pos % 16, next;

		prog_layout_at(&L, at[i].pos, &unit, &since);
		assert_int_equal(unit, at[i].unit);
		assert_int_equal(since, at[i].since);
		next = pos + gap[unit] - since; /* the page after the one that fires */
		assert_int_equal(next % 16, end[unit] % 16);
	}
}

/* @body, the steps of a variant, does not compile under @k; the message holds each of @want. */
static void compile_refused(const struct kernel_profile *k, const char *body, const char *const *want)
{
	char text[512];
	struct mm_error err = {0};
	struct scenario sc;
	struct program pr;

	snprintf(text, sizeof(text), "scenario e\nop \"x\"\nvariant v kernel 9.9 \"t\"\nbegin\n%s", body);
	assert_int_equal(scenario_parse(&sc, "e.scn", text, &err), 0);
	assert_int_not_equal(scenario_compile(&sc, 0, k, &pr, &err), 0);
	for (; *want; want++)
		if (!strstr(err.msg, *want))
			fail_msg("'%s' does not hold '%s'", err.msg, *want);
	scenario_free(&sc);
}

/* 'repeat unit_pages' outside a layout's 'every', a profile without the layout's keys and a layout
 * under a repeat are refused. */
static void layout_errors(void **state)
{
	char hw[1024], k[512];
	struct tworld w;

	(void)state;
	t_hw_text(hw, sizeof(hw), 0.001, 10, 10, 10, 10, 0, "fifo", 8, 0);
	t_kernel_text(k, sizeof(k), "qspinlock", "6.x");
	t_world(&w, "pack:1 numa:1 core:1 pu:1", hw, k,
		"scenario e\nop \"x\"\nvariant v kernel 9.9 \"t\"\nbegin\n  f compute work\n");
	compile_refused(&w.k, "  repeat unit_pages\n    f compute work\n  end\n",
			(const char *const[]){"e.scn:5:", "'repeat unit_pages'", "is not inside one", NULL});
	compile_refused(
	    &w.k, "  every file_read_pte\n    f compute work\n  end\n",
	    (const char *const[]){"e.scn:5:", "the folio layout file_read_pte needs [batch] pages_per_map", NULL});
	/* a layout's counter counts the pages of a pass: not under a repeat, an every or a choose */
	compile_refused(&w.k, "  repeat 2\n    every file_write_pte\n      f compute work\n    end\n  end\n",
			(const char *const[]){"e.scn:6:", "cannot be inside the repeat of line 5", NULL});
	t_world_free(&w);
	/* 'repeat unit_pages' in an 'every N' inside a layout's 'every': the folio's pages or N? refused */
	snprintf(k, sizeof(k),
		 "[kernel]\nname = ktest\nversion = 9.9\nspinlock = qspinlock\nrwsem_era = 6.x\n"
		 "vma_lock = vma_lock\n[batch]\npages_per_map = 32768\nptes_per_table = 512\n"
		 "fault_around_pages = 16\nra_pages = 32\nfolio_max_order = 9\nmap_whole_folio = 1\n");
	t_world(&w, "pack:1 numa:1 core:1 pu:1", hw, k,
		"scenario e\nop \"x\"\n# pages_per_map ptes_per_table fault_around_pages ra_pages folio_max_order "
		"map_whole_folio\nvariant v kernel 9.9 \"t\"\nbegin\n  f compute 1ns\n");
	compile_refused(
	    &w.k,
	    "  every file_write_pte\n    every 4\n      repeat unit_pages\n        f compute 1ns\n      end\n"
	    "    end\n  end\n",
	    (const char *const[]){"e.scn:7:", "inside an 'every N' inside the folio layout's 'every' of line 5", NULL});
	t_world_free(&w);
}

/*
 * A step of no cost is no step: a compute of 0 (a profile cost of 0, or a literal 0 ns), and the
 * repeat, every, choose and as blocks it leaves empty, are left out of the program, so a run
 * with them gives the same bytes as one without, seed by seed, with IPI-handler debt owed
 * (whose charge at the next compute draws jitter) and skip-ahead's start drawn in step visits.
 * Before, each one took the debt and drew a jitter sample, and moved seed 001 by 5 points.
 */
static void a_step_of_no_cost_is_no_step(void **state)
{
	static const char *const fmt =
	    "scenario nc\nop \"x\"\nfield x scope mm\nlock L spinlock scope mm\nrole a share 50%%\n"
	    "variant v kernel 9.9 \"t\"\nbegin\n  f compute 300ns\n  f ipi 200ns\n%s  f compute 150ns\n"
	    "%s  f lock L\n  f store x\n%s  f unlock L\n  repeat 3\n    f load x\n%s  end\n";
	static const char *const free_steps[4] = {
	    "  f compute 0ns\n  repeat 5\n    f compute 0ns\n    every 2\n      f compute 0ns\n    end\n  end\n",
	    "  choose 40%\n    f compute 0ns\n  else\n    f compute 0ns\n  end\n  as a\n    f compute 0ns\n  end\n",
	    "  f compute 0ns\n", "    f compute 0ns\n"};
	char with[2048], without[2048], hw[1024], k[512];
	struct tworld a, b;

	(void)state;
	snprintf(with, sizeof(with), fmt, free_steps[0], free_steps[1], free_steps[2], free_steps[3]);
	snprintf(without, sizeof(without), fmt, "", "", "", "");
	t_hw_text(hw, sizeof(hw), 0.001, 20, 50, 100, 200, 0, "fifo", 8, 0.2);
	t_kernel_text(k, sizeof(k), "qspinlock", "6.x");
	t_world(&a, "pack:1 numa:1 core:4 pu:1", hw, k, with);
	t_world(&b, "pack:1 numa:1 core:4 pu:1", hw, k, without);
	assert_int_equal(a.prog.n, b.prog.n);
	for (int n = 1; n <= 4; n++)
		for (uint64_t seed = 1; seed <= 3; seed++) {
			struct sim_config ca = t_cfg(&a, n), cb = t_cfg(&b, n);
			struct sim_result ra, rb;

			ca.seed = cb.seed = seed;
			ca.measure_events = cb.measure_events = 20000;
			t_run(&ca, &ra);
			t_run(&cb, &rb);
			assert_true(ra.ops_per_s > 0);
			assert_memory_equal(&ra, &rb, sizeof(ra));
		}
	t_world_free(&a);
	t_world_free(&b);
}

/* Two cores, 10 ns between them, a 1 GHz clock, no jitter, and @cpu_extra (lines of [cpu], or
 * ""), under a 6.x kernel whose [costs] work = 1000 cycles. */
static void two_core_world(struct tworld *w, const char *scn, const char *cpu_extra)
{
	char hw[1024], k[512];

	t_kernel_text(k, sizeof(k), "qspinlock", "6.x");
	t_hw_text(hw, sizeof(hw), 0.001, 10, 10, 10, 10, 0, "fifo", 8, 0);
	assert_true(strlen(hw) + strlen(cpu_extra) < sizeof(hw));
	strcat(hw, cpu_extra);
	t_world(w, "pack:1 numa:1 core:2 pu:1", hw, k, scn);
}

/*
 * [cpu] op_jitter: one factor, uniform in 1 +- op_jitter, for every compute step of an operation.
 * Ten 100 ns steps: two tasks doing one operation each end at 1 us x the larger of their factors
 * (above 1 us, at most 1.2 us with op_jitter 0.2; exactly 1 us without), and one task's 10000
 * operations take 10 ms on average, the factor's mean being 1 (1/sqrt(3 x 10000) of 0.2: 0.1%).
 */
static void an_operation_varies_as_a_whole(void **state)
{
	static const char scn[] = "scenario oj\nop \"x\"\nfield p scope task\nvariant v kernel 9.9 \"t\"\nbegin\n"
				  "  repeat 10\n    f compute 100ns\n  end\n  f atomic p\n";
	struct tworld w;
	struct sim_result r;

	(void)state;
	for (int on = 0; on < 2; on++) {
		two_core_world(&w, scn, on ? "op_jitter = 0.2\n" : "");
		struct sim_config c = t_cfg(&w, 2);

		c.mode = SC_PROCESSES;
		c.ops_per_task = 1;
		t_run(&c, &r);
		if (on)
			assert_true(r.makespan_s > 1.0001e-6 && r.makespan_s <= 1.2e-6 + 1e-11);
		else
			assert_float_equal(r.makespan_s, 1e-6, 1e-11);
		c.ntasks = 1;
		c.ops_per_task = 10000;
		t_run(&c, &r);
		assert_float_equal(r.makespan_s, 10e-3, 10e-3 * 0.005);
		t_world_free(&w);
	}
}

/* [cpu] cost_scale: every cycle of the kernel profile's [costs] takes that many here, a compute
 * step's and an IPI handler's alike; a step given in ns stays as written.  work = 1000 cycles at
 * 1 GHz. */
static void cost_scale_stretches_the_profile_cycles_only(void **state)
{
	static const char scn[] = "scenario cs\nop \"x\"\nfield p scope task\nvariant v kernel 9.9 \"t\"\nbegin\n"
				  "  f compute work\n  g compute 100ns\n  f atomic p\n";
	/* each of two threads interrupts the other once an operation (the sender's own cost,
	 * ipi_ns, 0 here); the handler's cycles are owed by the one interrupted */
	static const char ipi[] = "scenario ci\nop \"x\"\nfield p scope task\nvariant v kernel 9.9 \"t\"\nbegin\n"
				  "  f ipi work\n  g compute 100ns\n  f atomic p\n";
	const double scale[] = {1, 2.5};
	struct tworld w;
	struct sim_result r;

	(void)state;
	for (int i = 0; i < 2; i++) {
		two_core_world(&w, scn, i ? "cost_scale = 2.5\n" : "");
		assert_float_equal(w.hw.cost_scale, scale[i], 0);
		struct sim_config c = t_cfg(&w, 1);

		c.ops_per_task = 10;
		t_run(&c, &r);
		/* 10 x (1000 cycles x scale at 1 GHz + 100 ns); the private line is a hit (1 ps) */
		assert_float_equal(r.makespan_s, 10 * (scale[i] * 1e-6 + 100e-9), 1e-10);
		t_world_free(&w);

		two_core_world(&w, ipi, i ? "cost_scale = 2.5\nipi_ns = 0\n" : "ipi_ns = 0\n");
		c = t_cfg(&w, 2);
		c.mode = SC_THREADS;
		c.ops_per_task = 1000;
		t_run(&c, &r);
		/* 1000 x (100 ns + the other's handler, 1000 cycles x scale), give or take the one
		 * handler of the first or last operation */
		assert_float_equal(r.makespan_s, 1000 * (scale[i] * 1e-6 + 100e-9), 1.5 * (scale[i] * 1e-6 + 100e-9));
		t_world_free(&w);
	}
}

/*
 * Inside 'every N', 'repeat unit_pages' runs N times and 'repeat unit_others' N - 1 (the 4 KiB
 * page_fault4's fault-around window: the pages mapped beside the faulting one), known at compile
 * time: per operation g is visited (N - 1) / N times, h N / N; and a run of 4000 operations of
 * one task takes 4000 x 100 ns + 1000 x (3 x 10 + 4 x 1) ns.
 */
static void unit_pages_of_a_count_every(void **state)
{
	struct tworld w;
	struct sim_result r;

	(void)state;
	world(&w, "pack:1 numa:1 core:2 pu:1", 10,
	      "scenario ue\nop \"x\"\nvariant v kernel 9.9 \"t\"\nbegin\n  f compute 100ns\n  every 4\n"
	      "    repeat unit_others\n      g compute 10ns\n    end\n    repeat unit_pages\n      h compute 1ns\n"
	      "    end\n  end\n");
	assert_int_equal(w.prog.n, 9);
	assert_int_equal(w.prog.insn[2].count, 3);
	assert_int_equal(w.prog.insn[5].count, 4);
	assert_float_equal(w.prog.visits[3], 0.75, 1e-12);
	assert_float_equal(w.prog.visits[6], 1.0, 1e-12);
	{
		struct sim_config c = t_cfg(&w, 1);

		c.ops_per_task = 4000;
		t_run(&c, &r);
		assert_float_equal(r.makespan_s, 4000 * 100e-9 + 1000 * (3 * 10e-9 + 4 * 1e-9), 1e-15);
	}
	t_world_free(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(stores_are_posted_but_atomics_wait),
	    cmocka_unit_test(cost_scale_stretches_the_profile_cycles_only),
	    cmocka_unit_test(the_home_answers_a_batch_of_loads_one_at_a_time),
	    cmocka_unit_test(fixed_work_makespan_and_idle_floor),
	    cmocka_unit_test(cold_lines_cost_dram_latency_beyond_the_llc),
	    cmocka_unit_test(threads_share_the_mm_processes_do_not),
	    cmocka_unit_test(a_deadlock_is_reported_not_hung),
	    cmocka_unit_test(a_write_locked_vma_sends_readers_to_the_fallback),
	    cmocka_unit_test(a_failed_trylock_counts_twice),
	    cmocka_unit_test(too_many_tasks_is_an_error),
	    cmocka_unit_test(sweep_is_deterministic_across_thread_counts),
	    cmocka_unit_test(skip_jumps_land_where_the_walk_lands),
	    cmocka_unit_test(skip_jumps_land_where_the_walk_lands_with_roles),
	    cmocka_unit_test(choose_takes_its_branch_its_share_of_the_time),
	    cmocka_unit_test(layout_every_fires_once_per_unit),
	    cmocka_unit_test(layout_large_folio_units),
	    cmocka_unit_test(layout_errors),
	    cmocka_unit_test(layout_position),
	    cmocka_unit_test(each_role_reports_its_own_rate),
	    cmocka_unit_test(readers_and_writers_are_reported_apart),
	    cmocka_unit_test(the_work_of_a_run_is_estimated_before_it),
	    cmocka_unit_test(a_run_past_its_work_limit_is_stopped),
	    cmocka_unit_test(progress_is_reported_within_a_point),
	    cmocka_unit_test(rt_llround_is_llround),
	    cmocka_unit_test(a_step_of_no_cost_is_no_step),
	    cmocka_unit_test(unit_pages_of_a_count_every),
	    cmocka_unit_test(an_operation_varies_as_a_whole),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
