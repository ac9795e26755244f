/* SPDX-License-Identifier: MIT */
/*
 * Locks built from cache lines, named as in kernel/locking/.  A lock design
 * is a small state machine that the simulation re-enters each time the
 * runtime primitive it waited for (a line access, a spin, a sleep: runtime.h)
 * completes; it keeps where it is in its struct lk_task's phase.  The logical
 * lock state (holder, reader count, queues, and the design's own state)
 * changes only when the line access that carries it completes, so it is
 * atomic in simulated time.
 *
 * The layer sits on the runtime (lines and tasks) and the inputs (kernel
 * profile); the scenario interpreter drives it.  A design declares what it
 * needs, as ROSS's LP types declare their state size: the roles of its
 * cache lines, the size of its per-instance and per-task state, and an
 * init hook that reads its kernel profile keys.
 *
 * Adding a design: one file lock_NAME.c defining a struct lock_design
 * lock_NAME, and one line X(NAME) in LOCK_DESIGNS (lock.c).  A new kind of lock (what a scenario
 * declares) is one line in lock_kinds[].  Listings, the profile check and
 * the contract and known-answer tests (tests/test_locks.c) pick them up.
 */
#ifndef MMSIM_LOCK_H
#define MMSIM_LOCK_H

#include <stddef.h>
#include <stdint.h>
#include "mm_error.h"
#include "profile.h"
#include "runtime.h"

/* The mode a scenario step takes a lock in. */
enum lock_mode { LM_EXCL = 0, LM_READ, LM_WRITE };

enum lk_what { LK_ACQUIRE = 0, LK_TRYACQUIRE, LK_RELEASE, LK_DOWNGRADE };
/* LK_FAILED: an acquire that may fail (t->lk.may_fail) did not take the lock; the simulation
 * takes the step's fallback lock instead (a vma_lock reader's fallback to mmap_lock). */
enum lk_ret { LK_DONE = 0, LK_WAIT = 1, LK_FAILED = 2 };

#define LK_CAP_SHARED 1u    /* has a read mode */
#define LK_CAP_DOWNGRADE 2u /* write -> read */
#define LK_CAP_SLEEPS 4u    /* waiters may sleep (off-CPU) */
#define LK_CAP_MAY_FAIL 8u  /* a read acquire may fail over to another lock ('lock V read else M') */

/*
 * What a scenario declares ('lock NAME KIND scope S'): the kinds, their capabilities, and how
 * a kernel profile picks the design of each ([kernel] KEY = DESIGN, or always one design).
 */
struct lock_kind {
	const char *name;	 /* "spinlock", "rwsem", ... */
	unsigned caps;		 /* LK_CAP_*: what a scenario may do with it */
	const char *profile_key; /* [kernel] key naming its design; NULL: always @design */
	const char *design;	 /* the design when there is no profile key */
	const char *doc;
};
extern const struct lock_kind lock_kinds[];
const struct lock_kind *lock_kind_find(const char *name);
/* The kinds with every capability in @caps (0: all), for messages: "spinlock, rwsem or vma_lock". */
const char *lock_kind_list(unsigned caps, char *buf, size_t cap);

/* ---- statistics: what one lock object did (per scenario object, over its instances) */

/* LKS_WAKE counts every task woken; LKS_READ_WAKE each reader granted the lock and woken, LKS_READ_BATCH
 * the first of one wake_up_q() of readers */
enum { LKS_SLEEP = 0, LKS_WAKE, LKS_READ_WAKE, LKS_READ_BATCH, LKS_HANDOFF, LKS_SPIN };

#define LK_WAIT_BUCKETS 40 /* log2 of a wait in ns: up to 2^40 ns, 18 minutes */

struct sim_lock_stats {
	char name[64];
	char design[32];
	uint64_t acquires[2]; /* [0] exclusive/write, [1] read */
	uint64_t releases[2];
	uint64_t contended; /* acquisitions that did not succeed at the first try */
	uint64_t fallbacks; /* 'lock V read else M' steps that found V write-locked and took M */
	/* what the kernel's lock tracepoint (mmap_lock_start_locking) would count: every lock and
	 * trylock begun, downgrades not, and once more for a trylock that failed and blocked */
	uint64_t starts, try_failed;
	uint64_t sleeps, wakeups, handoffs, spins;
	uint64_t read_wakeups, read_batches; /* readers woken, in that many wake_up_q()s */
	uint64_t violations;		     /* mutual exclusion broken: must stay 0 */
	int max_readers;
	int ninst;	    /* instances of this lock (one per mm, per node, per page-table page...) */
	double held_ps;	    /* in the window: held exclusively (spinlock, writer), summed over instances */
	double max_held_ps; /* the same for the busiest instance */
	/* the contended acquisitions (what perf lock contention reports), whole run: the wait from
	 * the operation's start to the grant, summed, the longest, and the part of it asleep; how
	 * many slept at all; and a histogram of the waits, [k]: 2^k <= ns < 2^(k+1) ([0] also below) */
	double wait_ps, wait_max_ps, wait_asleep_ps;
	uint64_t waits_slept;
	uint64_t wait_hist[LK_WAIT_BUCKETS];
};

/* ---- designs -------------------------------------------------------------- */

struct lock_inst;

/* The cache lines a design needs, by role.  A word role lives where the kernel profile's
 * [layout] puts LOCK.FIELD (the lock's own line when it does not say, or when @field is NULL);
 * a per-CPU role is one line for each CPU, homed on its node (percpu data). */
enum lk_line_kind { LR_WORD = 0, LR_PERCPU };
struct lk_line_role {
	const char *field; /* "count", "owner"; NULL: the lock's line as [layout] places the lock */
	enum lk_line_kind kind;
};
#define LK_MAX_LINES 4

/*
 * A number of the kernel profile that changes what a design does: [SECTION] NAME = VALUE, where
 * SECTION is the design's (lock_design.section).  Each key is one behaviour of the kernel's
 * history, with the commit that introduced or removed it in its doc; a design's presets give
 * each release's values, and a profile may set any key.
 */
struct lk_key {
	const char *name;
	double lo, hi; /* the values it takes */
	int whole;     /* only whole numbers (0/1 switches, counts) */
	const char *doc;
};

/* What a design's init hook is given. */
struct lk_setup {
	const struct kernel_profile *kernel;
	int ntasks, ncpus;
};

struct lock_design {
	const char *name; /* "ticket", "qspinlock", "rwsem", "vma_lock" */
	const char *kind; /* the lock_kinds[] entry it implements */
	const char *doc;
	unsigned caps;
	/* its lines by role (lk->line[r]); nlines 0: one, the lock's own */
	struct lk_line_role lines[LK_MAX_LINES];
	int nlines;
	size_t inst_size; /* its per-instance state (lk_priv), zeroed before init */
	size_t task_size; /* its per-task state of one lock operation (lk_task_priv), zeroed at each */
	/* set up one instance (allocations, values from the kernel profile); 0 or an MM_* error */
	int (*init)(struct lock_inst *lk, const struct lk_setup *su, struct mm_error *err);
	/* its kernel profile section and keys (NULL-terminated by name), or NULL; and the value of
	 * keys[i] when @k does not set it (the preset of @k's release) */
	const char *section;
	const struct lk_key *keys;
	double (*key_preset)(const struct kernel_profile *k, int i);
	void (*fini)(struct lock_inst *lk);
	/* Drive t's current lock operation (lk_state(t)->what, ->mode) one step further. */
	int (*op)(struct rt *s, struct rt_task *t, struct lock_inst *lk);
};

/* The logical state of one lock instance. */
struct lock_inst {
	const struct lock_design *d;
	struct sim_lock_stats *st; /* its object's statistics */
	int line[LK_MAX_LINES];	   /* by role; a per-CPU role: the line of CPU 0, then CPU 1... */
	int task_lines;		   /* first of the per-task lines (qspinlock MCS nodes): + task */
	int holder;		   /* writer or spinlock holder task, -1 */
	int nreaders;
	uint64_t version; /* bumps at every change of the lock word (cmpxchg failures) */
	/* FIFO of waiting tasks: rwsem wait_list, qspinlock MCS queue */
	int *wq;
	int *wq_mode;
	int wq_head, wq_len, wq_cap;
	void *priv; /* the design's state, inst_size bytes */
	/* what the simulation sees, independent of the design: the checks */
	int in_writers, in_readers;
	sim_time_t held_since; /* when the writers' or the spinlock's hold began */
	/* a what-if (sim_relief): its exclusive holders, its readers, its sleepers' wake-ups */
	int relieve_hold, relieve_read, relieve_wake;
	double held_ps; /* held exclusively inside the measurement window */
};

/* Per-task state of the lock operation in progress. */
struct lk_task {
	struct lock_inst *lk;
	enum lk_what what;
	enum lock_mode mode;
	int phase;
	int granted;	  /* set by a waker or an MCS predecessor */
	sim_time_t since; /* when waiting or spinning began */
	sim_time_t begun; /* when the operation began (lk_task_begin): its wait's start */
	sim_time_t slept; /* the task's time asleep before it (the layer above sets it) */
	int first_try;	  /* still on the first attempt (for 'contended') */
	int may_fail;	  /* the step has a fallback: a design may answer LK_FAILED */
	int was_try;	  /* began as a trylock (a design turns a failed one into LK_ACQUIRE) */
	void *priv;	  /* the design's per-task state, task_size bytes */
	/* a nested operation in progress on another lock (lk_nested_op: rwsem's wait_lock), NULL */
	struct lk_task *nest;
};

static inline void *lk_priv(const struct lock_inst *lk)
{
	return lk->priv;
}

/* The lock-layer state of a task (runtime.h's rt_task.lk). */
static inline struct lk_task *lk_state(struct rt_task *t)
{
	return (struct lk_task *)t->lk;
}

static inline struct lk_task *lk_state_of(struct rt *s, int task)
{
	return lk_state(rt_task(s, task));
}

/*
 * The operation of @task on the lock instance @lk: its own, or one nested in it (a qspinlock
 * used as an rwsem's wait_lock signals the waiter's MCS node through this); NULL: none.
 */
static inline struct lk_task *lk_state_on(struct rt *s, int task, const struct lock_inst *lk)
{
	struct lk_task *st = lk_state_of(s, task);

	while (st && st->lk != lk)
		st = st->nest;
	return st;
}

/*
 * Drive @inner, an operation of t on another lock that t's current one performs as a part of
 * itself (rwsem's raw_spin_lock(&sem->wait_lock), with the kernel's spinlock design): while the
 * inner design runs, t's lock-layer state is @inner; between its steps the outer one, which
 * records it in ->nest for lk_state_on().  Returns the inner design's LK_DONE or LK_WAIT.
 */
int lk_nested_op(struct rt *s, struct rt_task *t, struct lk_task *inner);

static inline void *lk_task_priv(struct rt_task *t)
{
	return lk_state(t)->priv;
}

/* Line of the per-task line (qspinlock MCS node) of @task. */
static inline int lk_node_line(const struct lock_inst *lk, int task)
{
	return lk->task_lines + task;
}

void lk_count_stat(struct lock_inst *lk, int what); /* LKS_* */

/* Wait-queue helpers (FIFO ring of capacity ntasks). */
void lk_wq_push(struct lock_inst *lk, int task, int mode);
int lk_wq_first(const struct lock_inst *lk, int *mode);
int lk_wq_pop(struct lock_inst *lk);
int lk_wq_at(const struct lock_inst *lk, int i, int *mode);

/* ---- the table ------------------------------------------------------------- */

/* Every design, NULL-terminated (lock.c: one line each). */
extern const struct lock_design *const lock_designs[];
const struct lock_design *lock_design_find(const char *name);

/* The design that implements a lock of @kind under kernel profile @k (its [kernel] key, or the
 * kind's one design); NULL when there is none. */
const struct lock_design *lock_design_for(const struct lock_kind *kind, const struct kernel_profile *k);
/* The lock designs @k names exist and are of the kind of their key, and every section the
 * profile reader left to the lock layer is a design's, with its keys and in their range; errors
 * name the profile file and line. */
int lock_check_kernel(const struct kernel_profile *k, struct mm_error *err);
/* The value of @d's key @name in @k ([d->section] name = V), or @preset when the profile does
 * not set it. */
double lk_key_value(const struct kernel_profile *k, const struct lock_design *d, const char *name, double preset);

/* Instances: set up @lk (zeroed by the caller) for design @d; 0 or an MM_* error. */
int lock_inst_init(struct lock_inst *lk, const struct lock_design *d, const struct lk_setup *su, struct mm_error *err);
void lock_inst_free(struct lock_inst *lk);

/* A lock operation begins for @st (whose priv buffer is kept and zeroed). */
void lk_task_begin(struct lk_task *st, struct lock_inst *lk, enum lk_what what, enum lock_mode mode, sim_time_t now);

#endif
