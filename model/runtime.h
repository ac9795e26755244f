/* SPDX-License-Identifier: MIT */
/*
 * The runtime the lock designs and the scenario interpreter run on: tasks
 * on CPUs and the cache lines they access, over the coherence model and the
 * event engine.  It offers the primitives of a CPU in kernel code: a
 * blocking access (load, RMW, cmpxchg), a posted store, a prefetchw, a spin
 * on a line until another CPU writes it (with or without a deadline), going
 * off-CPU until woken, a wake-up, and time spent.
 *
 * A task's record begins with struct rt_task; the layer above extends it
 * (the interpreter's struct sim_task begins with one), and tells the runtime
 * the record's size, so rt_task(r, id) finds any task.  When a task may go
 * on (its access was granted, its store performed, it was woken, its spin
 * ended), the runtime calls the client's resume hook.
 */
#ifndef MMSIM_RUNTIME_H
#define MMSIM_RUNTIME_H

#include <stddef.h>
#include <stdint.h>
#include "coherence.h"
#include "engine.h"
#include "mm_error.h"

enum rt_state { T_RUN = 0, T_WAIT_LINE, T_WAIT_STORE, T_SPIN, T_SLEEP, T_DONE };

struct rt;

/* Runs when a posted store performs: @obj and @arg as given to rt_store(). */
typedef void (*rt_apply_fn)(struct rt *r, void *obj, int task, int arg);

struct rt_line {
	struct coh_line c;
	int private_task; /* >= 0: no other task ever touches it */
	int spin_head;	  /* first task spinning on it, -1 */
	int stat;	  /* line-name statistics slot of the layer above, -1 */
	int relieved;	  /* its transfers cost r->relief times as much (a what-if: explain --verify) */
	int64_t busy_ps;  /* time it spent serving grants that moved it (grants to several readers overlap) */
};

struct rt_task {
	int id, cpu, state;
	sim_time_t delay; /* private time spent but not yet simulated */
	int access_done;  /* the blocking access being retried has completed */
	int ps_line;	  /* line of the store in flight (posted), -1 */
	int pf_line;	  /* line of the prefetchw in flight, -1 */
	rt_apply_fn ps_apply;
	void *ps_obj;
	int ps_arg;
	int spin_line, spin_next, spin_gen;
	int wake_pending; /* an EV_WAKE is on its way */
	sim_time_t sleep_total, sleep_since;
	void *lk;      /* the lock layer's state of its lock operation (struct lk_task) */
	int watch1;    /* rt_spin_on_owner: the owner it watches + 1, 0 */
	int nwatchers; /* tasks spinning on it as an owner */
	/* memory bandwidth: the share of its awake time the task spends streaming */
	int node;
	int bw_on;    /* counted in its node's sum of streaming fractions */
	double mem_f; /* its streaming fraction, as last counted */
	/* a what-if (r->relief): set by the layer above while the task holds a lock whose hold is
	 * relieved (its transfers cost r->relief times as much), and while it waits for a lock whose
	 * wake-ups are (its wake-up latency does) */
	int relief_hold, relief_wake;
	/* a real-time task (SCHED_FIFO or SCHED_RR: the kernel's rt_task(current)), from its role
	 * ('role NAME tasks N rt'); the lock designs that treat one apart look at it */
	int realtime;
};

/* What the layer above does when the runtime lets a task go on. */
struct rt_client {
	/* @t may run: re-enter whatever it was doing */
	void (*resume)(struct rt *r, struct rt_task *t);
	/* @t wakes, off its CPU from @since to @until (before it runs; for accounting); may be NULL */
	void (*woke)(struct rt *r, struct rt_task *t, sim_time_t since, sim_time_t until);
};

struct rt {
	struct engine eng;
	struct coh_model coh;
	int ntasks;
	char *task_mem; /* ntasks records of task_size bytes, each beginning with a struct rt_task */
	size_t task_size;
	int nlines;
	struct rt_line *line;
	struct coh_req *req;
	int32_t *picked;
	int64_t hit_ps, atomic_ps, pause_ps, wakeup_ps, wake_step_ps;
	/* schedule()'s on-CPU time going to sleep, and the end of a wake-up spent on the CPU again */
	int64_t sched_out_ps, sched_in_ps;
	uint64_t rng;
	int failed;
	struct mm_error *err;
	double *bw_sum; /* per node: streaming fractions of its awake tasks */
	const struct rt_client *client;
	double relief; /* > 0: the factor of what a relieved line, holder or wake-up costs */
	/* NULL, or per line COH_NSOURCES counts: the transfers granted since the layer above made
	 * it, by where they came from (coh_source); what perf c2c sorts by.  rt_free frees it. */
	uint64_t *xfer;
};

static inline struct rt_task *rt_task(const struct rt *r, int id)
{
	return (struct rt_task *)(r->task_mem + (size_t)id * r->task_size);
}

/* The event kinds the runtime schedules and rt_dispatch() handles. */
enum { EV_RESUME = 1, EV_GRANT, EV_LINE_FREE, EV_WAKE, EV_SPIN_TIMEOUT, EV_REFETCH };

/* Each task has three request slots: a blocking access, a posted store, a prefetch. */
enum { RQ_ACCESS = 0, RQ_STORE, RQ_PREFETCH, RQ_SLOTS };

uint64_t rt_random(struct rt *r);

/*
 * llround(x) for a finite |x| < 2^63, inline: the interpreter rounds every step's time, and the
 * libm call was a tenth of a run.  The cast truncates; x minus its integer part is exact (the
 * fraction's bits are x's own), so the half-way test is llround's, away from zero.
 */
static inline int64_t rt_llround(double x)
{
	int64_t i = (int64_t)x;
	double f = x - (double)i;

	return i + (f >= 0.5) - (f <= -0.5);
}
void rt_schedule(struct rt *r, sim_time_t at, int kind, int a, int64_t b);
/* Run @t again once its pending private time has passed. */
void rt_resume_later(struct rt *r, struct rt_task *t);
/* Wait for @t's posted store (after its private time). */
int rt_wait_store(struct rt *r, struct rt_task *t);
void rt_dispatch(struct rt *r, const struct engine_event *ev);

/* The request arrays for @ntasks tasks and @nlines lines (r->coh set up first); 0 or MM_ENOMEM. */
int rt_alloc_lines(struct rt *r, int nlines);
void rt_free(struct rt *r);

/* ---- primitives ------------------------------------------------------------ */

/* A load, RMW or cmpxchg (COH_*) on @line.  1: done now; 0: wait, the caller is resumed and
 * calls rt_access() again, which then returns 1. */
int rt_access(struct rt *r, struct rt_task *t, int line, int op);
/* A posted store (COH_STORE, or another exclusive op); @apply runs when it performs (it may be
 * later than the task's next step).  1: issued; 0: wait and call again. */
int rt_store_op(struct rt *r, struct rt_task *t, int line, int op, rt_apply_fn apply, void *obj, int arg);
static inline int rt_store(struct rt *r, struct rt_task *t, int line, rt_apply_fn apply, void *obj, int arg)
{
	return rt_store_op(r, t, line, COH_STORE, apply, obj, arg);
}
/* prefetchw: ask for @line exclusive and go on; one in flight per task, a second is dropped. */
void rt_prefetch(struct rt *r, struct rt_task *t, int line);
/* Spin until another CPU writes @line (which the task must hold shared). */
void rt_spin(struct rt *r, struct rt_task *t, int line);
/* The same, and stop (resume) once @owner goes off-CPU, a line transfer after it does: the
 * owner->on_cpu check of rwsem_spin_on_owner and mutex_spin_on_owner. */
void rt_spin_on_owner(struct rt *r, struct rt_task *t, int line, int owner);
/* The same as rt_spin, but give up (resume) at @deadline if nothing was written. */
void rt_spin_deadline(struct rt *r, struct rt_task *t, int line, sim_time_t deadline);
/* Go off-CPU until rt_wake(), after sched_out_ps of schedule() on the CPU.  A wake-up of a task
 * that is not asleep is ignored, so a design sets its own flag before waking a task and checks it
 * before sleeping (spurious wake-ups are harmless).  Of a wake-up's latency, the last sched_in_ps
 * are spent on the CPU again (switching in), the rest off it. */
void rt_sleep(struct rt *r, struct rt_task *t);
/* Go off-CPU for @ps exactly, after sched_out_ps on the CPU as rt_sleep (schedule_timeout_uninterruptible,
 * synchronize_rcu): a wake-up meanwhile is ignored; the task is resumed when the time is up. */
void rt_sleep_for(struct rt *r, struct rt_task *t, sim_time_t ps);
void rt_wake(struct rt *r, int task);
/* The @nth (from 0) task of one wake_up_q() by @waker (NULL: not a task, e.g. a timer): the
 * waker pays one try_to_wake_up per task ([cpu] wake_step_ns), the first one too, and the @nth
 * task starts @nth of them later than the first. */
void rt_wake_nth(struct rt *r, struct rt_task *waker, int task, int nth);
/* A sleeping or finished task draws no memory bandwidth. */
void rt_bw_active(struct rt *r, struct rt_task *t, int on);

static inline void rt_delay(struct rt_task *t, sim_time_t ps)
{
	t->delay += ps;
}

static inline int rt_task_on_cpu(const struct rt *r, int task)
{
	return task >= 0 && rt_task(r, task)->state != T_SLEEP;
}

static inline int rt_task_id(const struct rt_task *t)
{
	return t->id;
}

static inline sim_time_t rt_now(const struct rt *r)
{
	return r->eng.now;
}

static inline sim_time_t rt_pause_ps(const struct rt *r)
{
	return r->pause_ps;
}

#endif
