/* SPDX-License-Identifier: MIT */
/*
 * Lock designs: the same contract for every design in lock_designs[]
 * (mutual exclusion, acquires = releases, no lost wake-ups, every task
 * progresses, determinism), plus known answers: the machine-repairman queue
 * for a spinlock, and rwsem readers that never sleep.
 */
#include "testutil.h"
#include "lock.h"

#include <math.h>
#include <stdlib.h>

static const char *exclusive_scn =
    "scenario ex\nop \"lock, hold, unlock, think\"\nlock L %s scope global\n"
    "variant v kernel 9.9 \"test\"\nbegin\n  f lock L%s\n  f compute 200ns exp\n  f unlock L%s\n"
    "  f compute 300ns exp\n";

static const char *mixed_scn =
    "scenario mixed\nop \"three reads, one write, one downgrade\"\nlock L %s scope global\n"
    "variant v kernel 9.9 \"test\"\nbegin\n  repeat 3\n    f lock L read\n    f compute 300ns exp\n"
    "    f unlock L read\n    f compute 100ns exp\n  end\n  f lock L write\n  f compute 200ns exp\n"
    "  f unlock L write\n  f trylock L read\n  f compute 50ns\n  f unlock L read\n"
    "  f lock L write\n  f compute 50ns\n  f downgrade L\n  f compute 50ns\n  f unlock L read\n";

/* the kernel profile's spinlock design: the spinlocks' own, and an rwsem's wait_lock */
static const char *contract_spinlock = "qspinlock";
/* [coherence] serve_ns of the contract's machine (0: loads of a batch answered at once) */
static double contract_serve_ns;

/* @keys: [rwsem] entries over the era's preset ("" for none) */
static void contract(const struct lock_design *d, const char *era, const char *keys, int fixed)
{
	char hw[1024], k[512], kt[1024], scn[1024];
	const int shared = d->caps & LK_CAP_SHARED;
	const char *type = !strcmp(d->kind, "spinlock") ? "spinlock" : d->kind;
	struct tworld w;
	struct sim_result r1, r2;

	t_hw_text(hw, sizeof(hw), 1, 8, 30, 100, 250, 5, "local-first", 4, 0.02);
	if (contract_serve_ns > 0)
		t_hw_serve(hw, sizeof(hw), contract_serve_ns);
	t_kernel_text(k, sizeof(k), contract_spinlock, era);
	snprintf(kt, sizeof(kt), "%s%s%s", k, *keys ? "[rwsem]\n" : "", keys);
	if (shared && (d->caps & LK_CAP_DOWNGRADE))
		snprintf(scn, sizeof(scn), mixed_scn, type);
	else if (shared)
		snprintf(scn, sizeof(scn), exclusive_scn, type, " write", " write");
	else
		snprintf(scn, sizeof(scn), exclusive_scn, type, "", "");
	t_world(&w, "pack:2 numa:1 l3:2 core:2 pu:2", hw, kt, scn);
	struct sim_config c = t_cfg(&w, 12);

	c.lock_design_override = d->name;
	c.measure_events = 100000;
	if (fixed)
		c.ops_per_task = 40;
	t_run(&c, &r1);
	const struct sim_lock_stats *st = &r1.locks[0];

	assert_string_equal(st->design, d->name);
	if (st->violations)
		fail_msg("%s (era %s %s, %s): %llu mutual exclusion violations", d->name, era, keys,
			 fixed ? "fixed work" : "throughput", (unsigned long long)st->violations);
	/* acquires = releases, up to the tasks inside at the end */
	for (int m = 0; m < 2; m++) {
		assert_true(st->acquires[m] >= st->releases[m]);
		assert_true(st->acquires[m] - st->releases[m] <= 12);
	}
	if (fixed) { /* every task finished: no lost wake-up, no lock left held */
		assert_int_equal(st->acquires[0], st->releases[0]);
		assert_int_equal(st->acquires[1], st->releases[1]);
	}
	assert_true(st->acquires[0] > 0);
	assert_true(r1.min_task_ops > 0); /* nobody starved */
	assert_true(st->contended > 0);	  /* the test does exercise contention */
	if (shared && (d->caps & LK_CAP_DOWNGRADE))
		assert_true(st->max_readers > 1);
	/* determinism: same inputs, same seed, same bytes */
	t_run(&c, &r2);
	assert_memory_equal(&r1, &r2, sizeof(r1));
	t_world_free(&w);
}

static void every_design_keeps_the_contract(void **state)
{
	for (int i = 0; lock_designs[i]; i++) {
		contract(lock_designs[i], "6.x", "", 0);
		contract(lock_designs[i], "6.x", "", 1);
		/* with the line's home answering a batch of loads one at a time */
		contract_serve_ns = 5;
		contract(lock_designs[i], "6.x", "", 0);
		contract(lock_designs[i], "6.x", "", 1);
		contract_serve_ns = 0;
	}
}

/*
 * A ticket lock's herd (arch_spin_lock before 4.2): every waiter spins on the one word, so each
 * release is followed by a load from every waiter, and the next holder's comes somewhere in that
 * batch.  With [coherence] serve_ns 0 the batch is answered at once, and the lock passes from
 * holder to holder in the same time with 3 waiters as with 15 (Boyd-Wickizer et al. 2012 measured
 * otherwise); with the home answering one load at a time it takes longer with more waiters.  So
 * with 16 tasks against 4, each spinning on the lock nearly all the time, the rate falls with
 * serve_ns 5 and stays within 10% without.  A qspinlock's waiters spin each on its own MCS node
 * (only the head reads the lock word), so it stays within 10% with serve_ns 5 too.
 */
static void a_ticket_herd_costs_more_with_more_waiters(void **state)
{
	const char *scn = "scenario th\nop \"o\"\nlock L spinlock scope global\nvariant v kernel 9.9 \"t\"\n"
			  "begin\n  f lock L\n  f compute 50ns\n  f unlock L\n  f compute 50ns\n";
	double rate[3][2];

	for (int sv = 0; sv < 3; sv++)
		for (int n = 0; n < 2; n++) {
			char hw[1024], k[512];
			struct tworld w;
			struct sim_result r;

			t_hw_text(hw, sizeof(hw), 1, 8, 30, 100, 250, 5, "fifo", 8, 0);
			if (sv)
				t_hw_serve(hw, sizeof(hw), 5);
			t_kernel_text(k, sizeof(k), sv < 2 ? "ticket" : "qspinlock", "6.x");
			t_world(&w, "pack:1 numa:1 core:16 pu:1", hw, k, scn);
			struct sim_config c = t_cfg(&w, n ? 16 : 4);

			c.measure_events = 100000;
			t_run(&c, &r);
			assert_int_equal(r.locks[0].violations, 0);
			rate[sv][n] = r.ops_per_s;
			t_world_free(&w);
		}
	print_message("16 tasks against 4: ticket lock %.3f with serve_ns 0, %.3f with 5; qspinlock %.3f with 5\n",
		      rate[0][1] / rate[0][0], rate[1][1] / rate[1][0], rate[2][1] / rate[2][0]);
	assert_true(fabs(rate[0][1] / rate[0][0] - 1) < 0.1);
	assert_true(rate[1][1] / rate[1][0] < 0.9 * rate[0][1] / rate[0][0]);
	assert_true(fabs(rate[2][1] / rate[2][0] - 1) < 0.1);
}

static void rwsem_keeps_the_contract_in_every_era(void **state)
{
	static const char *const eras[] = {"3.x", "5.3", "5.11", "6.x"};

	for (int e = 0; e < 4; e++) {
		contract(lock_design_find("rwsem"), eras[e], "", 0);
		contract(lock_design_find("rwsem"), eras[e], "", 1);
		/* wait_lock as each spinlock design (ticket before 4.2, virt_spin_lock, qspinlock) */
		for (int w = 0; w < 3; w++) {
			contract_spinlock = (const char *const[]){"ticket", "tas", "qspinlock"}[w];
			contract(lock_design_find("rwsem"), eras[e], "wait_lock_queued = 1\n", 0);
			contract(lock_design_find("rwsem"), eras[e], "wait_lock_queued = 1\n", 1);
		}
		/* 3.8's hand-over and 3.10's fast-path steal, over every era's other behaviours */
		contract(lock_design_find("rwsem"), eras[e], "writer_wake_grant = 1\nwriter_fastpath_steal = 1\n", 0);
		contract(lock_design_find("rwsem"), eras[e], "writer_wake_grant = 1\nwriter_fastpath_steal = 1\n", 1);
		contract(lock_design_find("rwsem"), eras[e], "writer_fastpath_steal = 1\n", 1);
		/* 3.9's slow-path steal and 5.4's spinning handoff writer, handoff soon */
		contract(lock_design_find("rwsem"), eras[e],
			 "writer_slowpath_steal = 1\nhandoff_writer_spins = 1\nhandoff_ms = 0.02\n", 0);
		contract(lock_design_find("rwsem"), eras[e],
			 "writer_slowpath_steal = 1\nhandoff_writer_spins = 1\nhandoff_ms = 0.02\n", 1);
	}
}

/*
 * Machine repairman (M/M/1//N): N tasks think for exp(1/lambda), then hold
 * one lock for exp(1/mu).  With transfers of a few picoseconds the lock is
 * the single server: X = mu (1 - P0), P0 = 1 / sum_k N!/(N-k)! (lambda/mu)^k.
 */
static void spinlock_matches_machine_repairman(void **state)
{
	const int n = 8;
	int tried = 0;
	const double hold_ns = 1000, think_ns = 3000, rho = hold_ns / think_ns;
	double sum = 0, term = 1, expect;

	for (int k = 0; k <= n; k++) {
		sum += term;
		term *= (n - k) * rho;
	}
	expect = (1 - 1 / sum) / (hold_ns * 1e-9);
	/* every design of kind spinlock, as a kernel profile picks it */
	for (int i = 0; lock_designs[i]; i++) {
		const char *design = lock_designs[i]->name;
		char hw[1024], k[512], scn[512];
		struct tworld w;
		struct sim_result r;

		if (strcmp(lock_designs[i]->kind, "spinlock"))
			continue;
		tried++;
		t_hw_text(hw, sizeof(hw), 0.001, 0.001, 0.001, 0.001, 0.001, 0, "fifo", 8, 0);
		t_kernel_text(k, sizeof(k), design, "6.x");
		snprintf(scn, sizeof(scn),
			 "scenario mr\nop \"think, then hold the lock\"\nlock L spinlock scope global\n"
			 "variant v kernel 9.9 \"test\"\nbegin\n  f compute %gns exp\n  f lock L\n"
			 "  f compute %gns exp\n  f unlock L\n",
			 think_ns, hold_ns);
		t_world(&w, "pack:1 numa:1 core:8 pu:1", hw, k, scn);
		struct sim_config c = t_cfg(&w, n);

		c.measure_events = 3000000;
		t_run(&c, &r);
		assert_string_equal(r.locks[0].design, design);
		if (fabs(r.ops_per_s - expect) > 0.03 * expect)
			fail_msg("%s: %.0f ops/s, machine repairman says %.0f", design, r.ops_per_s, expect);
		t_world_free(&w);
	}
	assert_true(tried >= 2);
}

/* The [rwsem] section: a key sets one behaviour over the era's preset; a misspelled key, a value
 * out of range or a section no design has is refused, naming the file and line. */
static void kernel_profile_rwsem_keys_are_checked(void **state)
{
	static const struct {
		const char *extra, *msg;
	} cases[] = {
	    {"[rwsem]\nreader_spin = 1\nhandoff_ms = 0.5\n", NULL},
	    {"[rwsem]\nreader_spinn = 1\n",
	     "k.conf:12:1: [rwsem] key 'reader_spinn' is not a key of the rwsem design (its keys: "},
	    {"[rwsem]\nreader_spin = 2\n", "k.conf:12: [rwsem] reader_spin = '2': expected a whole number from 0 to 1"},
	    {"[rwsem]\nreader_spin = yes\n", "k.conf:12: [rwsem] reader_spin = 'yes': expected a whole number"},
	    {"[rwsem]\nhandoff_ms = -1\n", "k.conf:12: [rwsem] handoff_ms = '-1': expected a number from 0 to 1000"},
	    {"[cost]\nwork = 1\n",
	     "k.conf:12: unknown section [cost] (expected kernel, layout, batch, costs, misses, "},
	};
	const struct lock_design *rw = lock_design_find("rwsem");

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char k[512], text[768];
		struct profile p;
		struct kernel_profile kp;
		struct mm_error err;

		t_kernel_text(k, sizeof(k), "qspinlock", "6.x");
		snprintf(text, sizeof(text), "%s%s", k, cases[i].extra);
		assert_int_equal(profile_parse(&p, "k.conf", text, &err), 0);
		assert_int_equal(kernel_profile_derive(&kp, &p, &err), 0);
		if (!cases[i].msg) {
			assert_int_equal(lock_check_kernel(&kp, &err), 0);
			assert_true(lk_key_value(&kp, rw, "reader_spin", 0) == 1);
			assert_true(lk_key_value(&kp, rw, "handoff_ms", 4) == 0.5);
			assert_true(lk_key_value(&kp, rw, "writer_spin", 7) == 7); /* not set: the preset */
		} else {
			assert_int_equal(lock_check_kernel(&kp, &err), MM_EPARSE);
			if (strncmp(err.msg, cases[i].msg, strlen(cases[i].msg)))
				fail_msg("got '%s', expected '%s...'", err.msg, cases[i].msg);
		}
		profile_free(&p);
	}
}

/* A kernel profile's [kernel] spinlock names a design of kind spinlock, from the table; anything
 * else is refused, naming the file, the line and every choice. */
static void kernel_profile_names_a_spinlock_design(void **state)
{
	char k[512], want[256] = "";
	size_t len = 0;
	struct profile p;
	struct kernel_profile kp;
	struct mm_error err;

	for (int i = 0; lock_designs[i]; i++) {
		if (strcmp(lock_designs[i]->kind, "spinlock"))
			continue;
		len += (size_t)snprintf(want + len, sizeof(want) - len, "%s%s", len ? " " : "", lock_designs[i]->name);
		t_kernel_text(k, sizeof(k), lock_designs[i]->name, "6.x");
		assert_int_equal(profile_parse(&p, "k.conf", k, &err), 0);
		assert_int_equal(kernel_profile_derive(&kp, &p, &err), 0);
		assert_int_equal(lock_check_kernel(&kp, &err), 0);
		assert_ptr_equal(lock_design_for(lock_kind_find("spinlock"), &kp), lock_designs[i]);
		profile_free(&p);
	}
	for (int bad = 0; bad < 2; bad++) {
		char msg[320];

		t_kernel_text(k, sizeof(k), bad ? "rwsem" : "mcs", "6.x"); /* the wrong kind; no such design */
		assert_int_equal(profile_parse(&p, "k.conf", k, &err), 0);
		assert_int_equal(kernel_profile_derive(&kp, &p, &err), 0);
		assert_int_equal(lock_check_kernel(&kp, &err), MM_EPARSE);
		snprintf(msg, sizeof(msg), "k.conf:4: [kernel] spinlock = '%s': expected one of: %s",
			 bad ? "rwsem" : "mcs", want);
		assert_string_equal(err.msg, msg);
		profile_free(&p);
	}
}

static void rwsem_readers_alone_never_sleep(void **state)
{
	static const char *const eras[] = {"3.x", "5.3", "5.11", "6.x"};

	for (int e = 0; e < 4; e++) {
		char hw[1024], k[512];
		struct tworld w;
		struct sim_result r;

		t_hw_text(hw, sizeof(hw), 1, 8, 30, 100, 250, 5, "fifo", 8, 0.02);
		t_kernel_text(k, sizeof(k), "qspinlock", eras[e]);
		t_world(&w, "pack:2 numa:1 l3:2 core:2 pu:2", hw, k,
			"scenario rd\nop \"read lock\"\nlock L rwsem scope global\nvariant v kernel 9.9 \"t\"\n"
			"begin\n  f trylock L read\n  f compute 1000ns\n  f unlock L read\n  f lock L read\n"
			"  f compute 1000ns\n  f unlock L read\n");
		struct sim_config c = t_cfg(&w, 16);

		t_run(&c, &r);
		assert_int_equal(r.locks[0].sleeps, 0);
		assert_int_equal(r.locks[0].violations, 0);
		assert_true(r.locks[0].max_readers > 1);
		assert_true(r.idle_pct < 1e-9); /* 16 of 16 CPUs, nobody off-CPU */
		t_world_free(&w);
	}
}

/*
 * percpu_rw_semaphore, known answers.  Readers alone write no shared line: each bumps its own
 * CPU's counter, so N readers run N times as fast as one, never wait, never sleep.  A writer
 * alone, spaced by more than a grace period, finds rcu_sync idle every time and sleeps one grace
 * period (the design's 5 ms, synchronize_rcu) in each operation: ops/s = 1 / (think + 5 ms).
 */
static void percpu_rwsem_readers_scale_and_a_lone_writer_waits_a_grace_period(void **state)
{
	const char *rd = "scenario pr\nop \"read\"\nlock L percpu_rwsem scope global\nvariant v kernel 9.9 \"t\"\n"
			 "begin\n  f lock L read\n  f compute 200ns\n  f unlock L read\n  f compute 800ns\n";
	const char *wr = "scenario pw\nop \"write\"\nlock L percpu_rwsem scope global\nvariant v kernel 9.9 \"t\"\n"
			 "begin\n  f lock L write\n  f compute 100ns\n  f unlock L write\n  f compute 15000000ns\n";
	char hw[1024], k[512];
	double one = 0;

	t_hw_text(hw, sizeof(hw), 1, 8, 30, 100, 250, 5, "fifo", 8, 0);
	t_kernel_text(k, sizeof(k), "qspinlock", "6.x");
	for (int n = 1; n <= 12; n += 11) {
		struct tworld w;
		struct sim_result r;

		t_world(&w, "pack:2 numa:1 l3:2 core:2 pu:2", hw, k, rd);
		struct sim_config c = t_cfg(&w, n);

		t_run(&c, &r);
		assert_string_equal(r.locks[0].design, "percpu_rwsem");
		assert_int_equal(r.locks[0].sleeps, 0);
		assert_int_equal(r.locks[0].contended, 0);
		assert_int_equal(r.locks[0].violations, 0);
		if (n == 1)
			one = r.ops_per_s;
		else if (fabs(r.ops_per_s / one - n) > 0.03 * n)
			fail_msg("%d readers: %.3gx one reader's throughput, expected %dx", n, r.ops_per_s / one, n);
		t_world_free(&w);
	}
	/* the design's 5 ms, then a profile's [percpu_rwsem] rcu_gp_ms = 2 */
	for (int gp_ms = 5; gp_ms >= 2; gp_ms -= 3) {
		struct tworld w;
		struct sim_result r;
		const double expect = 1e9 / (15000000.0 + gp_ms * 1e6);
		char kt[768];

		snprintf(kt, sizeof(kt), "%s[percpu_rwsem]\nrcu_gp_ms = %d\n", k, gp_ms);
		t_world(&w, "pack:1 numa:1 core:2 pu:1", hw, gp_ms == 5 ? k : kt, wr);
		struct sim_config c = t_cfg(&w, 1);

		c.measure_events = 20000;
		t_run(&c, &r);
		assert_true(r.locks[0].sleeps > 0);
		if (fabs(r.ops_per_s - expect) > 0.02 * expect)
			fail_msg("a lone writer, %d ms grace periods: %.4g ops/s, expected %.4g (one grace period an "
				 "operation)",
				 gp_ms, r.ops_per_s, expect);
		t_world_free(&w);
	}
}

/* A writer-heavy rwsem must put waiters to sleep, and idle time must show it. */
static void rwsem_writers_sleep_and_idle_counts_it(void **state)
{
	char hw[1024], k[512];
	struct tworld w;
	struct sim_result r;

	t_hw_text(hw, sizeof(hw), 1, 8, 30, 100, 250, 5, "fifo", 8, 0.02);
	t_kernel_text(k, sizeof(k), "qspinlock", "3.x");
	t_world(&w, "pack:1 numa:1 core:8 pu:1", hw, k,
		"scenario wr\nop \"write lock\"\nlock L rwsem scope global\nvariant v kernel 9.9 \"t\"\n"
		"begin\n  f lock L write\n  f compute 2000ns\n  f unlock L write\n  f compute 100ns\n");
	struct sim_config c = t_cfg(&w, 8);

	t_run(&c, &r);
	assert_true(r.locks[0].sleeps > 0);
	assert_true(r.locks[0].wakeups > 0);
	assert_int_equal(r.locks[0].read_batches, 0); /* writers only: no reader is ever woken */
	assert_int_equal(r.locks[0].read_wakeups, 0);
	assert_true(r.idle_pct > 10);
	/* one writer at a time: at most 1 / (hold) operations a second */
	assert_true(r.ops_per_s <= 1e9 / 2000.0 * 1.001);
	t_world_free(&w);
}

/*
 * 3.x reader batches, by hand: 8 tasks write-lock, then read-lock, once each.  Task 0 writes
 * first; the 7 others queue as writers.  3.x hands the lock from writer to writer (no spinning,
 * no stealing), and each writer, once done, queues its read behind the writers still waiting.
 * When the last writer releases, the queue holds the other 7 readers and nothing else: one
 * wake-up of 7 readers; the last writer's own read takes the fast path behind them.
 */
static void rwsem_3x_wakes_the_queued_readers_in_one_batch(void **state)
{
	char hw[1024], k[512];
	struct tworld w;
	struct sim_result r;

	t_hw_text(hw, sizeof(hw), 1, 8, 30, 100, 250, 5, "fifo", 8, 0);
	t_kernel_text(k, sizeof(k), "qspinlock", "3.x");
	t_world(&w, "pack:1 numa:1 core:8 pu:1", hw, k,
		"scenario wr\nop \"write, then read\"\nlock L rwsem scope global\nvariant v kernel 9.9 \"t\"\n"
		"begin\n  f lock L write\n  f compute 10000ns\n  f unlock L write\n  f lock L read\n"
		"  f compute 10000ns\n  f unlock L read\n");
	struct sim_config c = t_cfg(&w, 8);

	c.ops_per_task = 1;
	t_run(&c, &r);
	assert_int_equal(r.locks[0].acquires[0], 8);
	assert_int_equal(r.locks[0].acquires[1], 8);
	assert_int_equal(r.locks[0].read_batches, 1);
	assert_int_equal(r.locks[0].read_wakeups, 7);
	assert_int_equal(r.locks[0].wakeups, 7 + 7); /* and each of the 7 queued writers, one by one */
	t_world_free(&w);
}

/* ---- the [rwsem] keys: one hand-worked answer each ------------------------ */

/* The world of @scn on an rwsem of preset @era with [rwsem] @keys ("" for none). */
static void rw_world(struct tworld *w, const char *era, const char *keys, const char *topo, const char *scn)
{
	char hw[1024], k[512], kt[1024];

	t_hw_text(hw, sizeof(hw), 1, 8, 30, 100, 250, 5, "fifo", 8, 0);
	t_kernel_text(k, sizeof(k), "qspinlock", era);
	snprintf(kt, sizeof(kt), "%s[rwsem]\n%s", k, keys);
	t_world(w, topo, hw, kt, scn);
}

/* The (last) step of @w's program whose function is @fn, or -1. */
static int fn_pc(const struct tworld *w, const char *fn)
{
	int at = -1;

	for (int pc = 0; pc < w->prog.n; pc++)
		if (w->prog.insn[pc].fn >= 0 && !strcmp(w->sc.fn[w->prog.insn[pc].fn], fn))
			at = pc;
	return at;
}

/* One run of @scn; the program counter of the last step of function @fn (NULL: none) is returned,
 * or -1 */
static int rw_run_fn(const char *era, const char *keys, const char *topo, const char *scn, int ntasks,
		     int64_t ops_per_task, struct sim_result *r, struct sim_step_stats *steps, const char *fn)
{
	struct tworld w;
	int pc;

	rw_world(&w, era, keys, topo, scn);
	pc = fn ? fn_pc(&w, fn) : -1;
	struct sim_config c = t_cfg(&w, ntasks);

	c.ops_per_task = ops_per_task;
	c.steps = steps;
	t_run(&c, r);
	assert_int_equal(r->locks[0].violations, 0);
	t_world_free(&w);
	return pc;
}

static void rw_run_steps(const char *era, const char *keys, const char *topo, const char *scn, int ntasks,
			 int64_t ops_per_task, struct sim_result *r, struct sim_step_stats *steps)
{
	rw_run_fn(era, keys, topo, scn, ntasks, ops_per_task, r, steps, NULL);
}

static void rw_run(const char *era, const char *keys, const char *topo, const char *scn, int ntasks,
		   int64_t ops_per_task, struct sim_result *r)
{
	rw_run_steps(era, keys, topo, scn, ntasks, ops_per_task, r, NULL);
}

#define RW_HDR "scenario k\nop \"o\"\nlock L rwsem scope global\nvariant v kernel 9.9 \"t\"\nbegin\n"
#define RW_HDR_ROLES                                                                                    \
	"scenario k\nop \"o\"\nlock L rwsem scope global\nvariant v kernel 9.9 \"t\"\nrole r tasks 1\n" \
	"role w1 tasks 1\nrole w2 tasks 1\nbegin\n"

/*
 * owner, reader_owner_load and trylock_cmpxchg, by the path cost of one task alone (every access a
 * cache hit: 1 ns, a locked one 1 + 5 ns, no jitter).  Read: xadd 6, owner's load and store 1 + 1
 * (the store alone without reader_owner_load: 1), release xadd 6; write: cmpxchg 6, owner store 1,
 * release: owner store 1, xadd 6.  A trylock's cmpxchg loop adds the load of count before its
 * cmpxchg: 1.
 */
static void rwsem_owner_and_trylock_cost_what_they_access(void **state)
{
	static const struct {
		const char *keys, *step;
		double path_ns;
	} cases[] = {
	    {"owner = 0\n", "lock L read", 12},
	    {"owner = 1\n", "lock L read", 14},
	    {"owner = 1\nreader_owner_load = 0\n", "lock L read", 13},
	    {"owner = 0\nreader_owner_load = 1\n", "lock L read", 12},
	    {"owner = 1\nreader_owner_load = 0\n", "lock L write", 14},
	    {"owner = 0\n", "lock L write", 12},
	    {"owner = 1\n", "lock L write", 14},
	    {"owner = 0\ntrylock_cmpxchg = 0\n", "trylock L read", 12},
	    {"owner = 0\ntrylock_cmpxchg = 1\n", "trylock L read", 13},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char scn[512];
		struct sim_result r;
		const char *mode = strstr(cases[i].step, "write") ? "write" : "read";

		snprintf(scn, sizeof(scn), RW_HDR "  f %s\n  f compute 1000ns\n  f unlock L %s\n", cases[i].step, mode);
		rw_run("6.x", cases[i].keys, "pack:1 numa:1 core:2 pu:1", scn, 1, 0, &r);
		if (fabs(1e9 / r.ops_per_s - (1000 + cases[i].path_ns)) > 0.01)
			fail_msg("[rwsem] %s%s: %.3f ns an operation, expected %.0f", cases[i].keys, cases[i].step,
				 1e9 / r.ops_per_s, 1000 + cases[i].path_ns);
	}
}

/* writer_spin: two writers, each holding the lock 2 us and away 0.5 us, so each always finds the
 * other's writer running.  Spinning, it waits on the CPU and never sleeps; without, it waits
 * asleep. */
static void rwsem_writer_spin_waits_on_the_cpu(void **state)
{
	const char *scn = RW_HDR "  f lock L write\n  f compute 2000ns\n  f unlock L write\n  f compute 500ns\n";
	struct sim_result on, off;

	rw_run("6.x", "writer_spin = 1\n", "pack:1 numa:1 core:2 pu:1", scn, 2, 0, &on);
	rw_run("6.x", "writer_spin = 0\n", "pack:1 numa:1 core:2 pu:1", scn, 2, 0, &off);
	assert_true(on.locks[0].contended > 0 && off.locks[0].contended > 0);
	assert_int_equal(on.locks[0].sleeps, 0);
	assert_true(on.locks[0].spins > 0);
	assert_true(off.locks[0].sleeps > 0);
	/* without it the waits are spent asleep: a writer spins only on wait_lock, briefly, where its
	 * retry meets the releaser's rwsem_wake */
	assert_true(off.locks[0].wait_asleep_ps > 0.9 * off.locks[0].wait_ps);
	assert_true(on.locks[0].wait_asleep_ps == 0);
	assert_true(on.idle_pct < 1e-9 && off.idle_pct > 1);
}

/* writer_spin_on_readers: a writer that finds the lock owned by one reader holding it 50 us spins
 * for (20 + 1) / 2 = 10.5 us, then sets NONSPINNABLE and sleeps; without the key it sleeps at once.
 * So the writer's time on a CPU in its lock step is at most 10.5 us a visit (plus the accesses),
 * and near none without. */
static void rwsem_writer_spins_on_readers_for_a_bounded_time(void **state)
{
	const char *scn = RW_HDR "  f lock L read\n  f compute 50000ns\n  f unlock L read\n  f compute 20000ns\n"
				 "  f lock L write\n  f compute 100ns\n  f unlock L write\n";
	struct sim_step_stats on_st[8], off_st[8];
	struct sim_result on, off;
	double on_us, off_us;

	memset(on_st, 0, sizeof(on_st));
	memset(off_st, 0, sizeof(off_st));
	rw_run_steps("6.x", "writer_spin_on_readers = 1\n", "pack:1 numa:1 core:2 pu:1", scn, 2, 200, &on, on_st);
	rw_run_steps("6.x", "writer_spin_on_readers = 0\n", "pack:1 numa:1 core:2 pu:1", scn, 2, 200, &off, off_st);
	on_us = sim_step_on_ps(&on_st[4]) / on_st[4].visits / 1e6;
	off_us = sim_step_on_ps(&off_st[4]) / off_st[4].visits / 1e6;
	print_message("on-CPU in down_write: %.2f us a visit spinning on readers, %.3f us not\n", on_us, off_us);
	assert_true(on.locks[0].sleeps > 0 && off.locks[0].sleeps > 0);
	assert_true(on_us > 10.5 - 0.1 && on_us < 10.5 + 0.5);
	assert_true(off_us < 1);
}

/*
 * reader_spin_adaptive (5.3, 5cfd92e12e13), on the 5.3 preset (readers spin on a running writer):
 * reader R holds the lock 50 us; writer W1 comes at 1 us, spins 10.5 us on the reader-owned lock,
 * sets NONSPINNABLE and sleeps; writer W2 comes at 15 us, sees NONSPINNABLE as it enters the slow
 * path and sleeps.  R's release wakes W1, which holds the lock 2 us and wakes W2; W2 saw the bit,
 * so with the key it sets RD_NONSPINNABLE and holds the lock 60 us.  R reads again at 70 us and
 * finds W2 running: with the key it may not spin and sleeps (near no time on a CPU in that step),
 * without it spins until W2 leaves, tens of us on the CPU.
 */
static void rwsem_reader_spin_adaptive_stops_readers_after_a_writer_timeout(void **state)
{
	const char *scn =
	    RW_HDR_ROLES "as r\n  f lock L read\n  f compute 50000ns\n  f unlock L read\n"
			 "  f compute 20000ns\n  rd2 lock L read\n  f compute 100ns\n  f unlock L read\nend\n"
			 "as w1\n  f compute 1000ns\n  f lock L write\n  f compute 2000ns\n  f unlock L write\nend\n"
			 "as w2\n  f compute 15000ns\n  f lock L write\n  f compute 60000ns\n"
			 "  f unlock L write\nend\n";
	double on_cpu_us[2];

	for (int key = 0; key < 2; key++) {
		char keys[64];
		struct tworld w;
		struct sim_result r;
		struct sim_step_stats st[64];
		int pc2;

		memset(st, 0, sizeof(st));
		snprintf(keys, sizeof(keys), "reader_spin_adaptive = %d\n", key);
		rw_world(&w, "5.3", keys, "pack:1 numa:1 core:4 pu:1", scn);
		assert_true(w.prog.n < 64);
		pc2 = fn_pc(&w, "rd2");
		assert_true(pc2 >= 0);
		struct sim_config c = t_cfg(&w, 3);

		c.ops_per_task = 1;
		c.aligned_start = 1;
		c.steps = st;
		t_run(&c, &r);
		assert_int_equal(r.locks[0].violations, 0);
		assert_true(st[pc2].visits > 0.5);
		on_cpu_us[key] = sim_step_on_ps(&st[pc2]) / st[pc2].visits / 1e6;
		t_world_free(&w);
	}
	print_message("on-CPU in the second down_read: %.2f us without the key, %.2f us with it\n", on_cpu_us[0],
		      on_cpu_us[1]);
	assert_true(on_cpu_us[0] > 20);
	assert_true(on_cpu_us[1] < 1);
}

/*
 * reader_spin: optimistic spinning of readers existed from 5.3 (cf69482d62d9) until 5.11 removed
 * it (617f3ef95177).  Two tasks, each taking the lock for write for 2 us and then for read: a
 * reader that finds the other task's writer running spins until it leaves, so no reader is ever
 * queued and woken; without the key (the 5.11 and 6.x presets) that reader cannot steal a
 * write-held lock, queues and sleeps.  The presets, and the key set against each.
 */
static void rwsem_reader_spin_key(void **state)
{
	static const struct {
		const char *era, *keys;
		int spins;
	} cases[] = {
	    {"5.3", "", 1},
	    {"5.11", "", 0},
	    {"6.x", "", 0},
	    {"6.x", "reader_spin = 1\n", 1},
	    {"5.3", "reader_spin = 0\n", 0},
	};
	const char *scn = RW_HDR "  f lock L write\n  f compute 2000ns\n  f unlock L write\n  f lock L read\n"
				 "  f compute 50ns\n  f unlock L read\n  f compute 300ns exp\n";

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sim_result r;

		rw_run(cases[i].era, cases[i].keys, "pack:1 numa:1 core:2 pu:1", scn, 2, 0, &r);
		if (cases[i].spins)
			assert_int_equal(r.locks[0].read_wakeups, 0);
		else if (r.locks[0].read_wakeups == 0)
			fail_msg("%s %s: no reader queued and woken behind a running writer", cases[i].era,
				 cases[i].keys);
	}
}

/* reader_steal: readers that find the lock free in the slow path take it instead of queueing, so
 * fewer readers are queued and woken. */
static void rwsem_reader_steal_queues_fewer_readers(void **state)
{
	const char *scn =
	    RW_HDR "  f lock L read\n  f compute 1000ns exp\n  f unlock L read\n  f compute 200ns exp\n"
		   "  every 4\n    f lock L write\n    f compute 500ns exp\n    f unlock L write\n  end\n";
	struct sim_result on, off;

	rw_run("6.x", "reader_steal = 1\n", "pack:1 numa:1 l3:2 core:2 pu:1", scn, 4, 0, &on);
	rw_run("6.x", "reader_steal = 0\n", "pack:1 numa:1 l3:2 core:2 pu:1", scn, 4, 0, &off);
	print_message("steal: read wakeups %llu of %llu reads; no steal: %llu of %llu\n",
		      (unsigned long long)on.locks[0].read_wakeups, (unsigned long long)on.locks[0].acquires[1],
		      (unsigned long long)off.locks[0].read_wakeups, (unsigned long long)off.locks[0].acquires[1]);
	assert_true((double)on.locks[0].read_wakeups / on.locks[0].acquires[1] <
		    (double)off.locks[0].read_wakeups / off.locks[0].acquires[1]);
}

/* handoff_ms: readers taking the lock back to back starve a queued writer unless, after it has
 * waited handoff_ms, it sets the handoff bit and no one else may take the lock. */
static void rwsem_handoff_stops_a_writer_starving(void **state)
{
	const char *scn = RW_HDR "  f lock L read\n  f compute 3000ns exp\n  f unlock L read\n  f compute 100ns exp\n"
				 "  every 8\n    f lock L write\n    f compute 100ns\n    f unlock L write\n  end\n";
	struct sim_result on, off;

	rw_run("6.x", "handoff_ms = 0.02\n", "pack:1 numa:1 l3:2 core:2 pu:1", scn, 4, 0, &on);
	rw_run("6.x", "handoff_ms = 0\n", "pack:1 numa:1 l3:2 core:2 pu:1", scn, 4, 0, &off);
	print_message("handoff: %llu handoffs, task ops %.1f..%.1f; none: %llu, %.1f..%.1f\n",
		      (unsigned long long)on.locks[0].handoffs, on.min_task_ops, on.max_task_ops,
		      (unsigned long long)off.locks[0].handoffs, off.min_task_ops, off.max_task_ops);
	assert_true(on.locks[0].handoffs > 0);
	assert_int_equal(off.locks[0].handoffs, 0);
}

/*
 * wake_all_readers, by hand: a writer holds the lock 50 us from time 0; two readers queue behind
 * it at 1 us, a writer at 2 us (not spinning: writer_spin = 0), a reader at 3 us: the queue is
 * R R W R.  At the release the head is a reader: with wake_all_readers (5.3+, d3681e269fff) every
 * queued reader is granted at once, one batch of 3, the writer keeping its place; without (3.x),
 * the two readers up to the writer, and the last reader only after that writer: 2 batches.
 */
static void rwsem_wake_all_readers_by_hand(void **state)
{
	const char *scn =
	    "scenario k\nop \"o\"\nlock L rwsem scope global\nvariant v kernel 9.9 \"t\"\n"
	    "role a tasks 1\nrole r tasks 2\nrole w tasks 1\nrole r2 tasks 1\nbegin\n"
	    "  as a\n    f lock L write\n    f compute 50000ns\n    f unlock L write\n  end\n"
	    "  as r\n    f compute 1000ns\n    f lock L read\n    f compute 1000ns\n    f unlock L read\n  end\n"
	    "  as w\n    f compute 2000ns\n    f lock L write\n    f compute 1000ns\n    f unlock L write\n  end\n"
	    "  as r2\n    f compute 3000ns\n    f lock L read\n    f compute 1000ns\n    f unlock L read\n  end\n";
	struct sim_result on, off;

	rw_run("6.x", "writer_spin = 0\nwake_all_readers = 1\n", "pack:1 numa:1 core:8 pu:1", scn, 5, 1, &on);
	rw_run("6.x", "writer_spin = 0\nwake_all_readers = 0\n", "pack:1 numa:1 core:8 pu:1", scn, 5, 1, &off);
	assert_int_equal(on.locks[0].read_wakeups, 3);
	assert_int_equal(on.locks[0].read_batches, 1);
	assert_int_equal(off.locks[0].read_wakeups, 3);
	assert_int_equal(off.locks[0].read_batches, 2);
}

/*
 * writer_queue_rmw, by hand: a writer holds the lock 50 us; writers arrive at 1, 2 and 3 us (not
 * spinning) and queue.  The first of them sets the waiting bits with an atomic either way; each
 * later one, under wait_lock (whose line, here, also holds count: a hit), updates count with an
 * atomic (3.x) or reads it (5.3+): 1 + 5 ns or 1 ns.  So the two later writers' down_write each
 * spend exactly 5 ns more on a CPU with the key, the first's the same.
 */
static void rwsem_writer_queue_rmw_by_hand(void **state)
{
	const char *scn = "scenario k\nop \"o\"\nlock L rwsem scope global\nvariant v kernel 9.9 \"t\"\n"
			  "role a tasks 1\nrole w1 tasks 1\nrole w2 tasks 1\nrole w3 tasks 1\nbegin\n"
			  "  as a\n    f lock L write\n    f compute 50000ns\n    f unlock L write\n  end\n"
			  "  as w1\n    f compute 1000ns\n  end\n  as w2\n    f compute 2000ns\n  end\n"
			  "  as w3\n    f compute 3000ns\n  end\n"
			  "  as w1\n    f lock L write\n    f compute 1000ns\n    f unlock L write\n  end\n"
			  "  as w2\n    f lock L write\n    f compute 1000ns\n    f unlock L write\n  end\n"
			  "  as w3\n    f lock L write\n    f compute 1000ns\n    f unlock L write\n  end\n";
	enum { W1_LOCK = 15, W2_LOCK = 20, W3_LOCK = 25 }; /* the steps' indices in the program */
	struct sim_step_stats on_st[64], off_st[64];
	struct sim_result on, off;

	memset(on_st, 0, sizeof(on_st));
	memset(off_st, 0, sizeof(off_st));
	rw_run_steps("6.x", "writer_spin = 0\nwriter_queue_rmw = 1\n", "pack:1 numa:1 core:8 pu:1", scn, 4, 1, &on,
		     on_st);
	rw_run_steps("6.x", "writer_spin = 0\nwriter_queue_rmw = 0\n", "pack:1 numa:1 core:8 pu:1", scn, 4, 1, &off,
		     off_st);
	assert_int_equal(on.locks[0].sleeps, 3);
	assert_int_equal(off.locks[0].sleeps, 3);
	assert_true(on_st[W1_LOCK].visits == 1 && on_st[W2_LOCK].visits == 1 && on_st[W3_LOCK].visits == 1);
	assert_float_equal(sim_step_on_ps(&on_st[W1_LOCK]) - sim_step_on_ps(&off_st[W1_LOCK]), 0, 0.5);
	assert_float_equal(sim_step_on_ps(&on_st[W2_LOCK]) - sim_step_on_ps(&off_st[W2_LOCK]), 5000, 0.5);
	assert_float_equal(sim_step_on_ps(&on_st[W3_LOCK]) - sim_step_on_ps(&off_st[W3_LOCK]), 5000, 0.5);
}

/*
 * A writer spinning on the owner stops when the owner goes off-CPU (rwsem_spin_on_owner's
 * owner_on_cpu check): the owner takes L at 1 us, computes 5 us, then waits for a per-VMA lock
 * whose reader holds it 100 us, asleep.  A writer arriving at 2 us spins on the running owner;
 * once the owner sleeps (at 6 us) it sees so a line transfer later (30 ns here) and queues.  Its
 * time on a CPU in down_write: 6 - 2 = 4 us and the accesses around it (the owner reaches its
 * sleep at about 6.2 us), not the 98 us it would spin
 * waiting for the owner to let go.
 */
static void rwsem_writer_stops_spinning_when_the_owner_sleeps(void **state)
{
	const char *scn =
	    "scenario k\nop \"o\"\nlock L rwsem scope global\nlock V vma_lock scope global\n"
	    "variant v kernel 9.9 \"t\"\nrole b tasks 1\nrole a tasks 1\nrole c tasks 1\nbegin\n"
	    "  as b\n    f lock V read\n    f compute 100000ns\n    f unlock V read\n  end\n"
	    "  as a\n    f compute 1000ns\n    f lock L write\n    f compute 5000ns\n    f lock V write\n"
	    "    f unlock V write\n    f unlock L write\n  end\n"
	    "  as c\n    f compute 2000ns\n    f lock L write\n    f compute 100ns\n    f unlock L write\n  end\n";
	enum { C_LOCK = 15 }; /* c's lock step in the program */
	struct sim_step_stats st[64];
	struct sim_result r;
	double us;

	memset(st, 0, sizeof(st));
	rw_run_steps("6.x", "", "pack:1 numa:1 core:8 pu:1", scn, 3, 1, &r, st);
	us = sim_step_on_ps(&st[C_LOCK]) / 1e6;
	assert_true(st[C_LOCK].visits == 1);
	if (us < 4.0 || us > 4.6)
		fail_msg("c spent %.3f us on a CPU in down_write, expected about 4 (the owner slept at 6 us)", us);
}

/*
 * reader_steal, by hand: a writer holds the lock 50 us from time 0; a second writer queues at 1 us
 * (not spinning); at the release it is woken and retries about 1 us later (the wake-up).  A reader
 * arriving at 50.3 us, in that gap, finds the lock free but a waiter queued: its fast path fails.
 * With reader_steal (5.11, 1a728dff855a) it takes the free lock in the slow path and is never
 * queued (no reader woken); the woken writer finds it and sleeps again.  Without, it queues behind
 * the writer and is woken after it: one reader woken.
 */
static void rwsem_reader_steal_by_hand(void **state)
{
	const char *scn =
	    "scenario k\nop \"o\"\nlock L rwsem scope global\nvariant v kernel 9.9 \"t\"\n"
	    "role a tasks 1\nrole w tasks 1\nrole r tasks 1\nbegin\n"
	    "  as a\n    f lock L write\n    f compute 50000ns\n    f unlock L write\n  end\n"
	    "  as w\n    f compute 1000ns\n    f lock L write\n    f compute 1000ns\n    f unlock L write\n  end\n"
	    "  as r\n    f compute 50300ns\n    f lock L read\n    f compute 1000ns\n    f unlock L read\n  end\n";
	struct sim_result on, off;

	rw_run("6.x", "writer_spin = 0\nreader_steal = 1\n", "pack:1 numa:1 core:8 pu:1", scn, 3, 1, &on);
	rw_run("6.x", "writer_spin = 0\nreader_steal = 0\n", "pack:1 numa:1 core:8 pu:1", scn, 3, 1, &off);
	assert_int_equal(on.locks[0].read_wakeups, 0);
	assert_int_equal(on.locks[0].sleeps, 2); /* the writer, twice */
	assert_int_equal(off.locks[0].read_wakeups, 1);
	assert_int_equal(off.locks[0].sleeps, 2); /* the writer once, the reader once */
}

/*
 * wake_after_unlock, by hand: a writer holds the lock 50 us; three readers queue behind it.  At
 * the release it grants them in one wake_up_q, paying wake_step_ns (300 ns) for each task, the
 * first one too: 900 ns.  The release's wake-up begins a little after 50 us (the writer's own
 * path, cold at the start: 50.35 us as measured here, the one number of this answer not worked
 * out).  Holding wait_lock meanwhile (3.x), a writer that comes to queue at 50.4 us spins on
 * wait_lock until the waker drops it, about 50.35 + 0.9 us; dropping it first (5.3+), the
 * newcomer takes it at once.  So the newcomer's down_write spends about 0.85 us less on a CPU.
 */
static void rwsem_wake_after_unlock_by_hand(void **state)
{
	const char *scn =
	    "scenario k\nop \"o\"\nlock L rwsem scope global\nvariant v kernel 9.9 \"t\"\n"
	    "role a tasks 1\nrole r tasks 3\nrole w tasks 1\nbegin\n"
	    "  as a\n    f lock L write\n    f compute 50000ns\n    f unlock L write\n  end\n"
	    "  as r\n    f compute 1000ns\n    f lock L read\n    f compute 2000ns\n    f unlock L read\n  end\n"
	    "  as w\n    f compute 50400ns\n    f lock L write\n    f compute 100ns\n    f unlock L write\n  end\n";
	enum { W_LOCK = 13 }; /* w's lock step in the program */
	struct sim_step_stats on_st[64], off_st[64];
	struct sim_result on, off;
	double saved_us;

	memset(on_st, 0, sizeof(on_st));
	memset(off_st, 0, sizeof(off_st));
	rw_run_steps("6.x", "writer_spin = 0\nwake_after_unlock = 1\n", "pack:1 numa:1 core:8 pu:1", scn, 5, 1, &on,
		     on_st);
	rw_run_steps("6.x", "writer_spin = 0\nwake_after_unlock = 0\n", "pack:1 numa:1 core:8 pu:1", scn, 5, 1, &off,
		     off_st);
	assert_int_equal(on.locks[0].read_batches, 1);
	assert_int_equal(on.locks[0].read_wakeups, 3);
	assert_true(on_st[W_LOCK].visits == 1 && off_st[W_LOCK].visits == 1);
	saved_us = (sim_step_on_ps(&off_st[W_LOCK]) - sim_step_on_ps(&on_st[W_LOCK])) / 1e6;
	if (saved_us < 0.75 || saved_us > 0.95)
		fail_msg("the newcomer's down_write: %.3f us less on a CPU, expected about 0.85", saved_us);
}

/*
 * schedule()'s on-CPU time, by hand ([cpu] sched_out_ns, sched_in_ns): a writer holds the lock
 * 50 us; a second one (writer_spin = 0) comes at 1 us, queues and sleeps until the release wakes
 * it.  With sched_out 2 us and sched_in 1 us its down_write spends exactly 3 us more on its CPU
 * and 3 us less asleep than with both 0.  The grant comes at the same time: the sleep begins 2 us
 * later, long before the release, and the wake-up's latency is the same (the same seed draws the
 * same one), so the two writers take exactly as long.
 */
static void rwsem_sleep_costs_schedule_on_the_cpu(void **state)
{
	const char *scn =
	    "scenario k\nop \"o\"\nlock L rwsem scope global\nvariant v kernel 9.9 \"t\"\n"
	    "role a tasks 1\nrole w tasks 1\nbegin\n"
	    "  as a\n    f lock L write\n    f compute 50000ns\n    f unlock L write\n  end\n"
	    "  as w\n    f compute 1000ns\n    f lock L write\n    f compute 1000ns\n    f unlock L write\n"
	    "  end\n";
	struct sim_step_stats st[2][64];
	struct sim_result r[2];
	int pc = -1;

	for (int i = 0; i < 2; i++) {
		struct tworld w;

		memset(st[i], 0, sizeof(st[i]));
		rw_world(&w, "6.x", "writer_spin = 0\n", "pack:1 numa:1 core:8 pu:1", scn);
		w.hw.sched_out_ps = i ? 2000000 : 0;
		w.hw.sched_in_ps = i ? 1000000 : 0;
		struct sim_config c = t_cfg(&w, 2);

		c.ops_per_task = 1;
		c.steps = st[i];
		t_run(&c, &r[i]);
		t_world_free(&w);
	}
	for (int k = 0; k < 64; k++)
		if (st[0][k].sleep_ps > 0 && (pc < 0 || st[0][k].sleep_ps > st[0][pc].sleep_ps))
			pc = k;
	assert_true(pc >= 0 && st[0][pc].visits == 1 && st[1][pc].visits == 1);
	assert_int_equal(r[0].locks[0].sleeps, 1);
	assert_int_equal(r[1].locks[0].sleeps, 1);
	if (fabs(st[0][pc].sleep_ps - st[1][pc].sleep_ps - 3e6) > 1 ||
	    fabs(sim_step_on_ps(&st[1][pc]) - sim_step_on_ps(&st[0][pc]) - 3e6) > 1)
		fail_msg("the sleeping writer's down_write: asleep %.3f -> %.3f us, on a CPU %.3f -> %.3f us; expected "
			 "3 us less asleep and 3 us more on the CPU",
			 st[0][pc].sleep_ps / 1e6, st[1][pc].sleep_ps / 1e6, sim_step_on_ps(&st[0][pc]) / 1e6,
			 sim_step_on_ps(&st[1][pc]) / 1e6);
	assert_true(r[0].ops_per_s == r[1].ops_per_s);
}

/*
 * The world of the writer_wake_grant and writer_fastpath_steal answers: a holds the lock 50 us
 * from time 0, as a writer (or a reader: @amode); writer w queues at 1 us and sleeps (no spinning: the 3.x preset, or
 * writer_spin = 0); a's release (a little after 50 us) wakes w, whose wake-up takes 0.75 to
 * 1.25 us.  A third task x, a writer or a reader (@xmode), comes at 50.8 us, in that gap and
 * after the waker has dropped wait_lock (in 3.x it pays wake_step_ns, 300 ns, for the wake-up
 * while holding it), and holds the lock 5 us if it gets it: longer than what is left of w's
 * wake-up, so a woken w that retries finds x there and sleeps again.  The step of x's lock is
 * called "xl", w's "wl" (its stats in @wl_st, if not NULL).  @w_rt: w's role is real-time.
 */
static void rw_gap_steps(const char *era, const char *keys, const char *amode, const char *xmode, int w_rt,
			 struct sim_result *r, double *xl_on_ns, struct sim_step_stats *wl_st)
{
	char scn[1024];
	struct tworld w;
	struct sim_step_stats st[64];
	int pc_xl, pc_wl;

	snprintf(
	    scn, sizeof(scn),
	    "scenario k\nop \"o\"\nlock L rwsem scope global\nvariant v kernel 9.9 \"t\"\n"
	    "role a tasks 1\nrole w tasks 1%s\nrole x tasks 1\nbegin\n"
	    "  as a\n    f lock L %s\n    f compute 50000ns\n    f unlock L %s\n  end\n"
	    "  as w\n    f compute 1000ns\n    wl lock L write\n    f compute 1000ns\n    f unlock L write\n  end\n"
	    "  as x\n    f compute 50800ns\n    xl lock L %s\n    f compute 5000ns\n    f unlock L %s\n  end\n",
	    w_rt ? " rt" : "", amode, amode, xmode, xmode);
	memset(st, 0, sizeof(st));
	rw_world(&w, era, keys, "pack:1 numa:1 core:8 pu:1", scn);
	assert_true(w.prog.n < 64);
	pc_xl = fn_pc(&w, "xl");
	pc_wl = fn_pc(&w, "wl");
	assert_true(pc_xl >= 0 && pc_wl >= 0);
	struct sim_config c = t_cfg(&w, 3);

	c.ops_per_task = 1;
	c.steps = st;
	t_run(&c, r);
	assert_int_equal(r->locks[0].violations, 0);
	assert_true(st[pc_xl].visits == 1);
	*xl_on_ns = sim_step_on_ps(&st[pc_xl]) / 1e3;
	if (wl_st)
		*wl_st = st[pc_wl];
	t_world_free(&w);
}

static void rw_gap_run(const char *era, const char *keys, const char *xmode, struct sim_result *r, double *xl_on_ns)
{
	rw_gap_steps(era, keys, "write", xmode, 0, r, xl_on_ns, NULL);
}

/*
 * writer_wake_grant, by hand, in the world above.  With the key (3.8 __rwsem_do_wake) a's
 * release hands w the lock before waking it: w owns it asleep, so x cannot get it in the gap; x
 * queues and sleeps, and w, woken once, goes straight on.  Without (3.9+) w is only woken and x
 * takes the free lock first, so w sleeps twice.  Two kinds of x:
 *   - a reader, with reader_steal (6.x, writer_spin = 0): its fast path fails on w either way
 *     (both locks contended); without the key it steals the lock in its slow path and no reader
 *     is woken; with it, it finds w the owner, queues, and w's release wakes it: 1;
 *   - a writer, with writer_fastpath_steal (3.x): without the key its fast path takes the lock,
 *     so only w's lock is contended, and x's down_write costs its one xadd: 35 ns (below); with
 *     it, the xadd finds w the owner: both are contended, and x queues: the xadd, wait_lock's RMW
 *     and count's (hits: 6 + 6) and the store dropping wait_lock (1), 48 ns; w's release then
 *     hands x the lock in turn, so x does not retry after its wake-up.  writer_slowpath_steal = 0,
 *     as in 3.8 (3.9 brought it with the end of the hand-over): x sleeps right after queueing.
 * Sleeps and wake-ups are 2 each way: w twice, or w once and x once.
 */
static void rwsem_writer_wake_grant_by_hand(void **state)
{
	struct sim_result on, off;
	double on_ns, off_ns;

	rw_gap_run("6.x", "writer_spin = 0\nreader_steal = 1\nwriter_wake_grant = 1\n", "read", &on, &on_ns);
	rw_gap_run("6.x", "writer_spin = 0\nreader_steal = 1\nwriter_wake_grant = 0\n", "read", &off, &off_ns);
	assert_int_equal(on.locks[0].read_wakeups, 1);
	assert_int_equal(off.locks[0].read_wakeups, 0);
	assert_int_equal(on.locks[0].contended, 2); /* the reader's fast path fails on w either way */
	assert_int_equal(off.locks[0].contended, 2);
	assert_int_equal(on.locks[0].sleeps, 2);
	assert_int_equal(off.locks[0].sleeps, 2);
	assert_int_equal(on.locks[0].wakeups, 2);
	assert_int_equal(off.locks[0].wakeups, 2);

	rw_gap_run("3.x", "writer_fastpath_steal = 1\nwriter_wake_grant = 1\nwriter_slowpath_steal = 0\n", "write", &on,
		   &on_ns);
	rw_gap_run("3.x", "writer_fastpath_steal = 1\nwriter_wake_grant = 0\nwriter_slowpath_steal = 0\n", "write",
		   &off, &off_ns);
	assert_float_equal(on_ns, 48, 1e-6);
	assert_float_equal(off_ns, 35, 1e-6);
	assert_int_equal(on.locks[0].contended, 2);
	assert_int_equal(off.locks[0].contended, 1);
	assert_int_equal(on.locks[0].sleeps, 2);
	assert_int_equal(off.locks[0].sleeps, 2);
	assert_int_equal(on.locks[0].wakeups, 2);
	assert_int_equal(off.locks[0].wakeups, 2);
}

/*
 * writer_fastpath_steal, by hand, in the world above on the 3.x preset, x a writer.  With the key
 * (3.10 to 5.2) x's xadd in the gap finds waiters but nobody active, RWSEM_WAITING_BIAS, and takes
 * the lock: x's lock is not contended and costs that one xadd, of a line a's core wrote last (its
 * release; count and wait_lock share the line here): 30 + 5 = 35 ns on a CPU; w's retry finds x
 * and w sleeps twice.  Without (3.9, and 5.3's cmpxchg from 0) the fast path fails on the waiter
 * and x queues behind w and sleeps (writer_slowpath_steal = 0 here: no try before sleeping; see
 * the next answer for 3.9's): both locks contended, w and x asleep once each; x's down_write:
 * the xadd 35, wait_lock's RMW and count's 6 + 6, the drop 1, and once woken the retry under
 * wait_lock, whose line w's core wrote last: 35 + 1, so 84 ns.
 */
static void rwsem_writer_fastpath_steal_by_hand(void **state)
{
	struct sim_result on, off;
	double on_ns, off_ns;

	rw_gap_run("3.x", "writer_fastpath_steal = 1\nwriter_slowpath_steal = 0\n", "write", &on, &on_ns);
	rw_gap_run("3.x", "writer_fastpath_steal = 0\nwriter_slowpath_steal = 0\n", "write", &off, &off_ns);
	assert_float_equal(on_ns, 35, 1e-6);
	assert_float_equal(off_ns, 84, 1e-6);
	assert_int_equal(on.locks[0].acquires[0], 3);
	assert_int_equal(off.locks[0].acquires[0], 3);
	assert_int_equal(on.locks[0].contended, 1);
	assert_int_equal(off.locks[0].contended, 2);
	assert_int_equal(on.locks[0].sleeps, 2);
	assert_int_equal(off.locks[0].sleeps, 2);
	assert_int_equal(on.locks[0].wakeups, 2);
	assert_int_equal(off.locks[0].wakeups, 2);
}

/*
 * stale_reader_owner, by hand, in the world above on 6.x, a holding the lock for reading, x a
 * writer, and no spinning on readers (writer_spin_on_readers = 0).  w finds a's read lock, queues and sleeps
 * either way; a's up_read wakes it.  x's cmpxchg in the gap fails on the waiter (the 6.x fast path
 * takes only a free lock with no waiters), so x enters the slow path with the lock free.  Without
 * the key owner counts for nothing once a has gone: x spins, takes the free lock ahead of the woken
 * w, whose retry finds x and sleeps again: x's wait is not slept, w's is (1 of 2), w sleeps twice.
 * With it (4.9 to 5.2, v8 up to 13/19) owner still holds a's reader value: x may not spin, queues
 * behind w and sleeps; w takes the lock and wakes x on leaving: both waits slept, once each.
 * Sleeps and wake-ups are 2 each way.
 */
static void rwsem_stale_reader_owner_by_hand(void **state)
{
	struct sim_result on, off;
	double on_ns, off_ns;

	rw_gap_steps("6.x", "writer_spin_on_readers = 0\nstale_reader_owner = 1\n", "read", "write", 0, &on, &on_ns,
		     NULL);
	rw_gap_steps("6.x", "writer_spin_on_readers = 0\nstale_reader_owner = 0\n", "read", "write", 0, &off, &off_ns,
		     NULL);
	print_message("x's down_write on a CPU: %.0f ns with the key, %.0f ns without\n", on_ns, off_ns);
	assert_int_equal(on.locks[0].contended, 2);
	assert_int_equal(off.locks[0].contended, 2);
	assert_int_equal(on.locks[0].waits_slept, 2);
	assert_int_equal(off.locks[0].waits_slept, 1);
	assert_int_equal(on.locks[0].sleeps, 2);
	assert_int_equal(off.locks[0].sleeps, 2);
	assert_int_equal(on.locks[0].wakeups, 2);
	assert_int_equal(off.locks[0].wakeups, 2);
}

/*
 * writer_slowpath_steal, by hand, in the world above on the 3.x preset (3.9: no fast-path steal),
 * x a writer.  x's xadd in the gap fails on the waiter either way (both locks contended) and x
 * queues behind w: the xadd 35 (a's core wrote the line last), wait_lock's RMW and count's 6 + 6,
 * the store dropping wait_lock 1.  With the key (3.9 try_get_writer_sem) x then takes wait_lock
 * again before its first schedule(): a hit, 6, and the head waiter, w, is a writer and nobody is
 * active (w's wake-up is not over yet), so x takes the lock and drops wait_lock, 1: 55 ns, x
 * never sleeps, and w's retry finds x and w sleeps twice; of the two contended locks only w's
 * slept.  Without (the answer above) x sleeps at once and w takes the lock first: 84 ns, both
 * slept.  Sleeps and wake-ups are 2 each way.
 */
static void rwsem_writer_slowpath_steal_by_hand(void **state)
{
	struct sim_result on, off;
	double on_ns, off_ns;

	rw_gap_run("3.x", "writer_slowpath_steal = 1\n", "write", &on, &on_ns);
	rw_gap_run("3.x", "writer_slowpath_steal = 0\n", "write", &off, &off_ns);
	assert_float_equal(on_ns, 55, 1e-6);
	assert_float_equal(off_ns, 84, 1e-6);
	assert_int_equal(on.locks[0].acquires[0], 3);
	assert_int_equal(off.locks[0].acquires[0], 3);
	assert_int_equal(on.locks[0].contended, 2);
	assert_int_equal(off.locks[0].contended, 2);
	assert_int_equal(on.locks[0].waits_slept, 1);
	assert_int_equal(off.locks[0].waits_slept, 2);
	assert_int_equal(on.locks[0].sleeps, 2);
	assert_int_equal(off.locks[0].sleeps, 2);
	assert_int_equal(on.locks[0].wakeups, 2);
	assert_int_equal(off.locks[0].wakeups, 2);
}

/*
 * handoff_writer_spins, by hand, in the world above on 6.x with writer_spin = 0 (w sleeps at
 * once), writer_fastpath_steal = 1 (so the writer x takes the lock in the gap: down_write's fast
 * path; only w's lock is contended) and handoff_ms = 0.02.  w's retry after a's release, at about
 * 51 us, finds x the owner; w is the first waiter and has waited 50 us > 20 us, so it sets
 * RWSEM_FLAG_HANDOFF (1 handoff, cleared when w takes the lock).  With the key (5.4
 * 91d2a812dfb9) w then spins on x, which runs for its 5 us, and takes the lock as soon as x's
 * up_write has cleared it: w sleeps once (1 sleep in all, 1 spin), and its down_write ends a few
 * line transfers after x's release, at least two (w's load of the count x wrote and its RMW on
 * wait_lock, 30 and 35 ns) and less than the shortest wake-up, 0.75 us; x's release still "wakes"
 * w (2 wake-ups counted, the second finds w running and costs nothing).  Without (5.3) w sleeps
 * again and x's release wakes it: 2 sleeps, no spin, and w's down_write ends a wake-up, 0.75 to
 * 1.25 us, or more after x's release.  x's release: x starts at 50.8 us, its lock costs 36 ns
 * (the fast path's cmpxchg of a line a's core wrote last, 35, and the owner store, 1), then 5 us,
 * so its up_write begins at 55.836 us; w's down_write began at 1 us: 54.836 us plus those.
 */
static void rwsem_handoff_writer_spins_by_hand(void **state)
{
	const char *keys = "writer_spin = 0\nwriter_fastpath_steal = 1\nhandoff_ms = 0.02\nhandoff_writer_spins = %d\n";
	char k[256];
	struct sim_result r[2];
	struct sim_step_stats wl[2];
	double xl_ns[2], wl_us[2];

	for (int on = 0; on < 2; on++) {
		snprintf(k, sizeof(k), keys, on);
		rw_gap_steps("6.x", k, "write", "write", 0, &r[on], &xl_ns[on], &wl[on]);
		wl_us[on] = wl[on].task_ps / 1e6;
		print_message("handoff_writer_spins = %d: w's down_write %.3f us, asleep %.3f us; spins %llu\n", on,
			      wl_us[on], wl[on].sleep_ps / 1e6, (unsigned long long)r[on].locks[0].spins);
		assert_float_equal(xl_ns[on], 36, 1e-6);
		assert_int_equal(r[on].locks[0].contended, 1);
		assert_int_equal(r[on].locks[0].handoffs, 1);
		assert_int_equal(r[on].locks[0].wakeups, 2);
	}
	assert_int_equal(r[1].locks[0].sleeps, 1);
	assert_int_equal(r[0].locks[0].sleeps, 2);
	assert_int_equal(r[1].locks[0].spins, 1);
	assert_int_equal(r[0].locks[0].spins, 0);
	if (wl_us[1] < 54.836 + 0.065 || wl_us[1] > 54.836 + 0.75)
		fail_msg("spinning: w's down_write %.3f us, expected 54.901 to 55.586", wl_us[1]);
	if (wl_us[0] < 54.836 + 0.75)
		fail_msg("sleeping: w's down_write %.3f us, expected 55.586 or more", wl_us[0]);
}

/*
 * handoff_ms, by hand, in the same world (6.x, writer_spin = 0, writer_fastpath_steal = 1,
 * handoff_writer_spins = 1): w queued at 1 us and retries at about 51 us, after a's release, to
 * find x the owner.  w is the first waiter and has waited about 50 us: with handoff_ms = 0.02 (20
 * us) that is longer, so w sets RWSEM_FLAG_HANDOFF (1 handoff) and spins on x (1 sleep, 1 spin);
 * with 0.06 (60 us) it is shorter, and with 0 there is no handoff at all: no bit is set, w sleeps
 * again and x's release wakes it (2 sleeps, no spin, 0 handoffs).  A real-time w sets the bit at
 * its first failed try (5.3 4f23dbc1e657: "rt_task or the timeout passed"): with the 6.x preset's
 * 4 ms it does, after 50 us, where a w that is not real-time does not; with 0 nobody does.  x's
 * lock costs 36 ns in every case (its fast path does not look at the handoff bit, which nobody
 * has set before x takes it).
 */
static void rwsem_handoff_ms_by_hand(void **state)
{
	static const struct {
		int rt;
		const char *ms;
		unsigned handoffs, sleeps, spins;
	} cases[] = {{0, "0.02", 1, 1, 1}, {0, "0.06", 0, 2, 0}, {0, "0", 0, 2, 0},
		     {1, "4", 1, 1, 1},	   {0, "4", 0, 2, 0},	 {1, "0", 0, 2, 0}};
	char k[256];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sim_result r;
		double xl_ns;

		snprintf(k, sizeof(k),
			 "writer_spin = 0\nwriter_fastpath_steal = 1\nhandoff_writer_spins = 1\nhandoff_ms = %s\n",
			 cases[i].ms);
		rw_gap_steps("6.x", k, "write", "write", cases[i].rt, &r, &xl_ns, NULL);
		print_message("w%s, handoff_ms = %s: %llu handoffs, %llu sleeps, %llu spins\n",
			      cases[i].rt ? " rt" : "", cases[i].ms, (unsigned long long)r.locks[0].handoffs,
			      (unsigned long long)r.locks[0].sleeps, (unsigned long long)r.locks[0].spins);
		assert_float_equal(xl_ns, 36, 1e-6);
		assert_int_equal(r.locks[0].contended, 1);
		assert_int_equal(r.locks[0].handoffs, cases[i].handoffs);
		assert_int_equal(r.locks[0].sleeps, cases[i].sleeps);
		assert_int_equal(r.locks[0].spins, cases[i].spins);
		assert_int_equal(r.locks[0].wakeups, 2);
	}
}

/*
 * handoff_stops_spinners, by hand (6.x, handoff_ms = 0.02, writer_fastpath_steal = 1), two worlds.
 * In both, reader a holds the lock from 0 to 50 us and writer w comes at 1 us, spins on the readers
 * for (20 + 1) / 2 = 10.5 us, sets NONSPINNABLE and sleeps (its first sleep); a's release wakes it.
 * Then, before w's wake-up is over:
 *  - writer world: writer x takes the free lock at 50.8 us by its fast path, for 5 us.  w's retry
 *    finds x the owner after 39 us queued (> 20 us): it sets RWSEM_FLAG_HANDOFF and spins on x
 *    (handoff_writer_spins).  Writer y comes at 53 us, x still the owner, the bit set.  With the
 *    key (1: the model's form of 5.3's rule) y does not spin: it queues and sleeps, and w's release
 *    wakes it (2 sleeps).
 *    Without (5.4+) y spins on x, and after x's release on w, which the bit gave the lock; it
 *    takes the lock at w's up_write, never asleep (1 sleep), about 55.84 + 1 us.
 *  - reader world: reader b steals the free lock at 50.3 us (reader_steal) for 5 us; w's retry
 *    finds a reader owner, sets the bit and sleeps again (a reader owner is not spun on): 2
 *    sleeps.  Writer y comes at 53 us, the bit set.  With the key it queues and sleeps (3 sleeps).
 *    Without it y spins on b, then, b gone and w still waking, on the free lock the bit keeps from
 *    it, then on w, and takes the lock at w's up_write, never asleep (2 sleeps).
 */
static void rwsem_handoff_stops_spinners_by_hand(void **state)
{
	static const char head[] = "scenario k\nop \"o\"\nlock L rwsem scope global\nvariant v kernel 9.9 \"t\"\n"
				   "role a tasks 1\nrole w tasks 1\nrole x tasks 1\nrole y tasks 1\nbegin\n"
				   "  as a\n    f lock L read\n    f compute 50000ns\n    f unlock L read\n  end\n"
				   "  as w\n    f compute 1000ns\n    f lock L write\n    f compute 1000ns\n"
				   "    f unlock L write\n  end\n";
	static const char tail[] = "  as y\n    f compute 53000ns\n    yl lock L write\n    f compute 1000ns\n"
				   "    f unlock L write\n  end\n";
	/* x: a writer for 5 us from 50.8 us, or a reader (b above) for 5 us from 50.3 us */
	static const char *const third[] = {
	    "  as x\n    f compute 50800ns\n    f lock L write\n    f compute 5000ns\n    f unlock L write\n  end\n",
	    "  as x\n    f compute 50300ns\n    f lock L read\n    f compute 5000ns\n    f unlock L read\n  end\n"};

	for (int world = 0; world < 2; world++)
		for (int on = 0; on < 2; on++) {
			char keys[128], scn[1024];
			struct sim_step_stats st[64];
			struct sim_result r;
			double yl_us, yl_sleep_us;
			int pc_yl;

			snprintf(keys, sizeof(keys),
				 "handoff_ms = 0.02\nwriter_fastpath_steal = 1\nhandoff_stops_spinners = %d\n", on);
			snprintf(scn, sizeof(scn), "%s%s%s", head, third[world], tail);
			memset(st, 0, sizeof(st));
			pc_yl = rw_run_fn("6.x", keys, "pack:1 numa:1 core:8 pu:1", scn, 4, 1, &r, st, "yl");
			assert_true(pc_yl >= 0 && pc_yl < 64);
			yl_us = st[pc_yl].task_ps / 1e6;
			yl_sleep_us = st[pc_yl].sleep_ps / 1e6;
			print_message("%s world, handoff_stops_spinners = %d: y's down_write %.3f us (asleep %.3f); "
				      "%llu handoffs, %llu sleeps, %llu spins, %llu contended\n",
				      world ? "reader" : "writer", on, yl_us, yl_sleep_us,
				      (unsigned long long)r.locks[0].handoffs, (unsigned long long)r.locks[0].sleeps,
				      (unsigned long long)r.locks[0].spins, (unsigned long long)r.locks[0].contended);
			assert_int_equal(r.locks[0].handoffs, 1);
			assert_int_equal(r.locks[0].sleeps, 1 + world + on);
			if (on) {
				assert_true(yl_sleep_us > 0);
			} else {
				assert_true(yl_sleep_us == 0);
				/* w owns the lock from its wake-up or x's release, for 1 us */
				if (yl_us < 3.84 || yl_us > 3.84 + 2.5)
					fail_msg("y's down_write %.3f us, expected w's release and a few transfers",
						 yl_us);
			}
		}
}

/*
 * rt_null_owner, by hand.  Reader a holds the lock 50 us from 0; writer w comes at 1 us (6.x,
 * writer_spin_on_readers): a task that is not real-time spins on the reader-owned lock for
 * (20 + 1) / 2 = 10.5 us, sets NONSPINNABLE and sleeps.  A real-time w with rt_null_owner = 2
 * (5.3+, 990fa7384a30) stops at its first look, owner not a writer and no writer seen before: on a
 * CPU in its down_write for the accesses only (under 1 us), no spin counted.  With 1 (3.16 to 5.2,
 * which only stopped on a NULL owner) or 0 it spins the 10.5 us as the others.
 */
static void rwsem_rt_null_owner_by_hand(void **state)
{
	static const struct {
		const char *rt, *keys;
		int spins;
	} cases[] = {{"", "", 1}, {" rt", "", 0}, {" rt", "rt_null_owner = 1\n", 1}, {" rt", "rt_null_owner = 0\n", 1}};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char scn[1024];
		struct tworld w;
		struct sim_step_stats st[32];
		struct sim_result r;
		int pc_wl;
		double on_us;

		snprintf(
		    scn, sizeof(scn),
		    "scenario k\nop \"o\"\nlock L rwsem scope global\nvariant v kernel 9.9 \"t\"\n"
		    "role a tasks 1\nrole w tasks 1%s\nbegin\n"
		    "  as a\n    f lock L read\n    f compute 50000ns\n    f unlock L read\n  end\n"
		    "  as w\n    f compute 1000ns\n    wl lock L write\n    f compute 1000ns\n    f unlock L write\n"
		    "  end\n",
		    cases[i].rt);
		memset(st, 0, sizeof(st));
		rw_world(&w, "6.x", cases[i].keys, "pack:1 numa:1 core:4 pu:1", scn);
		pc_wl = fn_pc(&w, "wl");
		assert_true(pc_wl >= 0 && w.prog.n < 32);
		struct sim_config c = t_cfg(&w, 2);

		c.ops_per_task = 1;
		c.steps = st;
		t_run(&c, &r);
		assert_int_equal(r.locks[0].violations, 0);
		on_us = sim_step_on_ps(&st[pc_wl]) / 1e6;
		print_message("w%s %.*s: on a CPU in down_write %.3f us, %llu spins, %llu sleeps\n", cases[i].rt,
			      cases[i].keys[0] ? (int)strcspn(cases[i].keys, "\n") : 5,
			      cases[i].keys[0] ? cases[i].keys : "(6.x)", on_us, (unsigned long long)r.locks[0].spins,
			      (unsigned long long)r.locks[0].sleeps);
		assert_int_equal(r.locks[0].sleeps, 1);
		assert_int_equal(r.locks[0].spins, (unsigned long long)cases[i].spins);
		if (cases[i].spins && (on_us < 10.5 || on_us > 11.0))
			fail_msg("w spinning on the reader: %.3f us on a CPU, expected 10.5 to 11", on_us);
		if (!cases[i].spins && on_us > 1)
			fail_msg("w not spinning: %.3f us on a CPU, expected under 1", on_us);
		t_world_free(&w);
	}
}

/*
 * rt_null_owner = 1 acts where 2 does not: four real-time writers, each spinning while a writer
 * runs.  A spinner whose trylock on a free lock loses to another stops under 1 (owner NULL after
 * the failed trylock) and sleeps; under 2 it saw a writer on its look before, so it looks once
 * more and spins on the new owner.  So 1 sleeps more often than 2, and 2 about as often as 0.
 */
static void rwsem_rt_null_owner_1_stops_after_a_lost_trylock(void **state)
{
	const char *scn = "scenario k\nop \"o\"\nlock L rwsem scope global\nvariant v kernel 9.9 \"t\"\n"
			  "role w share 100% rt\nbegin\n  f lock L write\n  f compute 300ns\n  f unlock L write\n"
			  "  f compute 200ns exp\n";
	struct sim_result r[3];

	for (int v = 0; v < 3; v++) {
		char k[64];

		snprintf(k, sizeof(k), "rt_null_owner = %d\n", v);
		rw_run("6.x", k, "pack:1 numa:1 l3:2 core:2 pu:1", scn, 4, 0, &r[v]);
		print_message("rt_null_owner = %d: %llu sleeps in %llu acquisitions\n", v,
			      (unsigned long long)r[v].locks[0].sleeps, (unsigned long long)r[v].locks[0].acquires[0]);
	}
	assert_true((double)r[1].locks[0].sleeps / r[1].locks[0].acquires[0] >
		    2 * (double)r[2].locks[0].sleeps / r[2].locks[0].acquires[0]);
	assert_true((double)r[1].locks[0].sleeps / r[1].locks[0].acquires[0] >
		    2 * (double)r[0].locks[0].sleeps / r[0].locks[0].acquires[0]);
}

/*
 * wait_lock_queued: wait_lock is the kernel's raw spinlock (a ticket lock on x86 before 4.2, a
 * qspinlock since, a test-and-set lock in a guest's virt_spin_lock), run nested in the rwsem
 * operation, and the order it grants in is the order of the rwsem's wait queue.  A writer a holds
 * the lock 50 us; writers b, c and d (writer_spin = 0) come at 1.00, 1.01 and 1.04 us: b takes
 * wait_lock to queue itself, c and then d find it held.  d runs on b's core, c on a's.  A ticket
 * lock and a qspinlock grant wait_lock in the order its waiters came (c's xadd, or its pending bit,
 * before d's), so c queues first, gets the rwsem first (a hands it to b, b to c) and finishes its
 * down_write before d does.  Test-and-set orders nobody: after b's release the first cmpxchg to
 * reach the line wins, and d's comes from b's own core, so d finishes first.  With the model's
 * older approximation (wait_lock_queued = 0, every design alike) c finishes first under tas too,
 * and the test fails.  Each run keeps wait_lock to one holder at a time.
 */
static void rwsem_wait_lock_is_the_kernels_spinlock(void **state)
{
	static const char *const designs[] = {"ticket", "qspinlock", "tas"};
	const char *scn =
	    "scenario k\nop \"o\"\nlock L rwsem scope global\nvariant v kernel 9.9 \"t\"\n"
	    "role a tasks 1\nrole c tasks 1\nrole b tasks 1\nrole d tasks 1\nbegin\n"
	    "  as a\n    f lock L write\n    f compute 50000ns\n    f unlock L write\n  end\n"
	    "  as c\n    f compute 1010ns\n    f lock L write\n    f compute 100ns\n    f unlock L write\n  end\n"
	    "  as b\n    f compute 1000ns\n    f lock L write\n    f compute 100ns\n    f unlock L write\n  end\n"
	    "  as d\n    f compute 1040ns\n    f lock L write\n    f compute 100ns\n    f unlock L write\n  end\n";
	enum { C_LOCK = 7, D_LOCK = 19 }; /* c's and d's lock steps in the program */

	for (int i = 0; i < 3; i++) {
		char hw[1024], k[512], kt[1024];
		struct sim_step_stats st[64];
		struct sim_result r;
		struct tworld w;
		double c_done, d_done;

		memset(st, 0, sizeof(st));
		t_hw_text(hw, sizeof(hw), 1, 8, 30, 100, 250, 5, "fifo", 8, 0);
		t_kernel_text(k, sizeof(k), designs[i], "5.3");
		snprintf(kt, sizeof(kt),
			 "%s[rwsem]\nwriter_spin = 0\nwait_lock_queued = 1\n[layout]\nL.count = g.line0\n"
			 "L.owner = g.line1\n",
			 k);
		t_world(&w, "pack:1 numa:1 core:2 pu:2", hw, kt, scn);
		struct sim_config c = t_cfg(&w, 4);

		c.ops_per_task = 1;
		c.steps = st;
		c.lock_design_override = "rwsem";
		t_run(&c, &r);
		assert_int_equal(r.locks[0].violations, 0);
		assert_true(st[C_LOCK].visits == 1 && st[D_LOCK].visits == 1);
		/* when each one's down_write returned, from the start */
		c_done = 1.010 + (sim_step_on_ps(&st[C_LOCK]) + st[C_LOCK].sleep_ps) / 1e6;
		d_done = 1.040 + (sim_step_on_ps(&st[D_LOCK]) + st[D_LOCK].sleep_ps) / 1e6;
		printf("wait_lock %s: c's down_write done at %.3f us, d's at %.3f us\n", designs[i], c_done, d_done);
		if (i < 2)
			assert_true(c_done < d_done);
		else
			assert_true(d_done < c_done);
		t_world_free(&w);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(every_design_keeps_the_contract),
	    cmocka_unit_test(a_ticket_herd_costs_more_with_more_waiters),
	    cmocka_unit_test(rwsem_keeps_the_contract_in_every_era),
	    cmocka_unit_test(spinlock_matches_machine_repairman),
	    cmocka_unit_test(kernel_profile_names_a_spinlock_design),
	    cmocka_unit_test(kernel_profile_rwsem_keys_are_checked),
	    cmocka_unit_test(rwsem_readers_alone_never_sleep),
	    cmocka_unit_test(percpu_rwsem_readers_scale_and_a_lone_writer_waits_a_grace_period),
	    cmocka_unit_test(rwsem_writers_sleep_and_idle_counts_it),
	    cmocka_unit_test(rwsem_3x_wakes_the_queued_readers_in_one_batch),
	    cmocka_unit_test(rwsem_owner_and_trylock_cost_what_they_access),
	    cmocka_unit_test(rwsem_writer_spin_waits_on_the_cpu),
	    cmocka_unit_test(rwsem_writer_spins_on_readers_for_a_bounded_time),
	    cmocka_unit_test(rwsem_reader_spin_adaptive_stops_readers_after_a_writer_timeout),
	    cmocka_unit_test(rwsem_reader_spin_key),
	    cmocka_unit_test(rwsem_reader_steal_queues_fewer_readers),
	    cmocka_unit_test(rwsem_handoff_stops_a_writer_starving),
	    cmocka_unit_test(rwsem_wake_all_readers_by_hand),
	    cmocka_unit_test(rwsem_writer_queue_rmw_by_hand),
	    cmocka_unit_test(rwsem_reader_steal_by_hand),
	    cmocka_unit_test(rwsem_wake_after_unlock_by_hand),
	    cmocka_unit_test(rwsem_sleep_costs_schedule_on_the_cpu),
	    cmocka_unit_test(rwsem_writer_stops_spinning_when_the_owner_sleeps),
	    cmocka_unit_test(rwsem_writer_wake_grant_by_hand),
	    cmocka_unit_test(rwsem_writer_fastpath_steal_by_hand),
	    cmocka_unit_test(rwsem_writer_slowpath_steal_by_hand),
	    cmocka_unit_test(rwsem_stale_reader_owner_by_hand),
	    cmocka_unit_test(rwsem_handoff_writer_spins_by_hand),
	    cmocka_unit_test(rwsem_handoff_ms_by_hand),
	    cmocka_unit_test(rwsem_handoff_stops_spinners_by_hand),
	    cmocka_unit_test(rwsem_rt_null_owner_by_hand),
	    cmocka_unit_test(rwsem_rt_null_owner_1_stops_after_a_lost_trylock),
	    cmocka_unit_test(rwsem_wait_lock_is_the_kernels_spinlock),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
