/* SPDX-License-Identifier: MIT */
/*
 * Locks built from cache lines, named as in kernel/locking/.  A lock design
 * is a small state machine that the simulation re-enters each time the
 * primitive it waited for (a line access, a spin, a sleep) completes; it
 * keeps where it is in t->lk.phase.  The logical lock state (holder, reader
 * count, queues) lives in struct lock_inst and changes only when the line
 * access that carries it completes, so it is atomic in simulated time.
 *
 * Adding a design: one file lock_NAME.c defining a struct lock_design, and
 * one line in lock_designs[] (lock.c).  Listings and the contract tests
 * (tests/test_locks.c) pick it up.
 */
#ifndef MMSIM_LOCK_H
#define MMSIM_LOCK_H

#include <stdint.h>
#include "engine.h"
#include "scenario.h"

struct sim;
struct sim_task;

enum lk_what { LK_ACQUIRE = 0, LK_TRYACQUIRE, LK_RELEASE, LK_DOWNGRADE };
/* LK_FAILED: an acquire that may fail (t->lk.may_fail) did not take the lock; the simulation
 * takes the step's fallback lock instead (a vma_lock reader's fallback to mmap_lock). */
enum lk_ret { LK_DONE = 0, LK_WAIT = 1, LK_FAILED = 2 };

#define LK_CAP_SHARED 1u    /* has a read mode */
#define LK_CAP_DOWNGRADE 2u /* write -> read */
#define LK_CAP_SLEEPS 4u    /* waiters may sleep (off-CPU) */

struct lock_inst;

struct lock_design {
	const char *name; /* "ticket", "qspinlock", "rwsem", "vma_lock" */
	const char *kind; /* what a scenario declares: "spinlock", "rwsem", "vma_lock" */
	const char *doc;
	unsigned caps;
	/* Drive t's current lock operation (t->lk.what, t->lk.mode) one step further. */
	int (*op)(struct sim *s, struct sim_task *t, struct lock_inst *lk);
};

/* The logical state of one lock instance. */
struct lock_inst {
	const struct lock_design *d;
	int stat;    /* index of its struct sim_lock_stats */
	int line[2]; /* [0] lock word / count, [1] owner, wait_lock, osq (rwsem) */
	int era;     /* rwsem: 3 (3.x), 5 (5.11), 6 (6.x) */
	int holder;  /* writer or spinlock holder task, -1 */
	int nreaders;
	int pending;	  /* qspinlock pending waiter; vma_lock: the writer asleep until readers drain; -1 */
	int handoff;	  /* rwsem RWSEM_FLAG_HANDOFF */
	int nonspinnable; /* rwsem RWSEM_NONSPINNABLE: a writer gave up spinning on readers */
	int wl_holder;	  /* rwsem wait_lock holder task, -1 */
	uint64_t version; /* bumps at every change of the count word (cmpxchg failures) */
	int64_t next_ticket, serving;
	/* FIFO of waiting tasks: rwsem wait_list, qspinlock MCS queue */
	int *wq;
	int *wq_mode;
	int wq_head, wq_len, wq_cap;
	/* rwsem optimistic spinners (osq): FIFO, the head spins on the lock */
	int *osq;
	int osq_head, osq_len;
	/* what the simulation sees, independent of the design: the checks */
	int in_writers, in_readers;
	sim_time_t held_since; /* when the writers' or the spinlock's hold began */
	double held_ps;	       /* held exclusively inside the measurement window */
};

/* Per-task state of the lock operation in progress. */
struct lk_task {
	struct lock_inst *lk;
	enum lk_what what;
	enum sc_lockmode mode;
	int phase;
	int granted; /* set by a waker or an MCS predecessor */
	int osq_go;  /* rwsem: the previous optimistic spinner left the osq */
	sim_time_t spin_since;
	int64_t ticket;
	uint64_t seen;	  /* count-word version seen by a trylock's load */
	sim_time_t since; /* when waiting or spinning began */
	int first_try;	  /* still on the first attempt (for 'contended') */
	int may_fail;	  /* the step has a fallback: a design may answer LK_FAILED */
	int was_try;	  /* began as a trylock (a design turns a failed one into LK_ACQUIRE) */
};

/* ---- primitives the simulation offers to lock designs ------------------- */

/* A load, RMW or cmpxchg on a line of the lock.  1: done now; 0: wait, the
 * design is re-entered at the same phase and calls lk_access() again, which
 * then returns 1. */
int lk_access(struct sim *s, struct sim_task *t, int line, int op);
/* A posted store; @apply runs when it completes (it may be later than the
 * task's next step).  1: issued; 0: wait and call again. */
typedef void (*lk_apply_fn)(struct sim *s, struct lock_inst *lk, int task, int arg);
int lk_store(struct sim *s, struct sim_task *t, int line, lk_apply_fn apply, struct lock_inst *lk, int arg);
/* Spin until another CPU writes @line (which the task must hold shared). */
void lk_spin(struct sim *s, struct sim_task *t, int line);
/* The same, but give up (re-enter the design) at @deadline if nothing was written. */
void lk_spin_deadline(struct sim *s, struct sim_task *t, int line, sim_time_t deadline);
/* Go off-CPU until lk_wake().  A wake-up of a task that is not asleep is
 * ignored, so a design sets its own flag before waking a task and checks
 * it before sleeping (spurious wake-ups are harmless). */
void lk_sleep(struct sim *s, struct sim_task *t);
void lk_wake(struct sim *s, int task);
/* The @nth (from 0) task of one wake_up_q() by @waker: the waker pays one try_to_wake_up per
 * task after the first ([cpu] wake_step_ns), and the task starts that much later. */
void lk_wake_nth(struct sim *s, struct sim_task *waker, int task, int nth);
/* Spend @ps on the CPU (e.g. cpu_relax). */
void lk_delay(struct sim *s, struct sim_task *t, sim_time_t ps);
int lk_task_on_cpu(const struct sim *s, int task);
int lk_task_id(const struct sim_task *t);
struct lk_task *lk_state(struct sim_task *t);
struct lk_task *lk_state_of(struct sim *s, int task);
sim_time_t lk_now(const struct sim *s);
sim_time_t lk_pause_ps(const struct sim *s);
/* Line of the qspinlock MCS node of @task. */
int lk_node_line(const struct sim *s, int task);
void lk_count_stat(struct sim *s, struct lock_inst *lk, int what); /* LKS_* */

/* LKS_WAKE counts every task woken; LKS_READ_WAKE each reader granted the lock and woken, LKS_READ_BATCH
 * the first of one wake_up_q() of readers */
enum { LKS_SLEEP = 0, LKS_WAKE, LKS_READ_WAKE, LKS_READ_BATCH, LKS_HANDOFF, LKS_SPIN };

/* Wait-queue helpers (FIFO ring of capacity ntasks). */
void lk_wq_push(struct lock_inst *lk, int task, int mode);
int lk_wq_first(const struct lock_inst *lk, int *mode);
int lk_wq_pop(struct lock_inst *lk);
int lk_wq_at(const struct lock_inst *lk, int i, int *mode);

extern const struct lock_design lock_ticket, lock_qspinlock, lock_rwsem, lock_vma;
extern const struct lock_design *const lock_designs[];
const struct lock_design *lock_design_find(const char *name);

#endif
