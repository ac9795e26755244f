/* SPDX-License-Identifier: MIT */
/*
 * rw_semaphore (kernel/locking/rwsem.c; lib/rwsem.c before 3.16), each
 * behaviour that changed in the kernel's history a key of the kernel
 * profile's [rwsem] section (rwsem_keys[] below, with the commits), over a
 * preset picked by [kernel] rwsem_era:
 *   3.x  - lib/rwsem.c of 3.9: xadd on count, no owner field, no
 *          optimistic spinning; waiters sleep in FIFO order; a wake-up
 *          grants the readers at the head of the queue, or wakes the
 *          writer there, which retries; a writer that queues tries once
 *          more before it sleeps and may take the lock ahead of that head
 *          writer (writer_slowpath_steal).  3.8 handed the head writer the
 *          lock (writer_wake_grant); x86 3.10 to 5.1 let down_write's fast
 *          path take a lock with waiters but nobody active
 *          (writer_fastpath_steal).
 *   5.3  - (5.3 to 5.10) count + owner; a reader that gets the lock reads
 *          owner (keeping RWSEM_NONSPINNABLE) and writes it; writers spin
 *          optimistically (osq) while the owner runs, and for a bounded time
 *          on readers; readers that find a running writer spin too;
 *          handoff after a 4 ms wait, the handoff writer spinning on a
 *          running owner (5.4 on, handoff_writer_spins; 5.3 itself slept)
 *          and the other spinners spinning on through it (5.4 on,
 *          handoff_stops_spinners = 0; 5.3 stopped them); a wake-up grants
 *          all queued readers.
 *   5.11 - as 5.3 without reader optimistic spinning (617f3ef95177), and
 *          with reader lock stealing (1a728dff855a).
 *   6.x  - as 5.11.
 * line[0] holds count, line[1] owner, osq and wait_lock (the kernel layout
 * decides whether they are one line).  wait_lock is a raw_spinlock_t: with
 * wait_lock_queued, the kernel profile's spinlock design (x86: ticket before
 * 4.2, qspinlock since), an instance of it on that line, run nested in the
 * rwsem operation (lk_nested_op).  Simplifications, stated:
 *   - with wait_lock_queued = 0 (no preset since 2026-12-07), wait_lock is
 *     taken by an RMW on its line and dropped by a store; a task that finds
 *     it held spins on the line and retries (test-and-set);
 *   - a wake-up with a reader at the head grants the lock to the leading
 *     readers (3.x) or to every queued reader, up to 256 (5.3+, phase-fair
 *     rwsem_mark_wake); a woken writer retries and may lose to a spinner,
 *     a stealing reader or a fast-path writer, unless writer_wake_grant
 *     made it the owner before waking it;
 *   - writers spin on the count line; each spin round also reads owner.
 */
#include "coherence.h"
#include "lock.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_READERS_WAKEUP 256

enum { M_READ = 1, M_WRITE = 2 };

/*
 * The behaviours that changed in the kernel's history, one [rwsem] key each (README, "Locks").
 * rwsem_era picks a preset (3.x: lib/rwsem.c as of 3.9; 5.3: 5.3 to 5.10; 5.11; 6.x), and a
 * kernel profile may set any key over it.
 */
enum {
	K_OWNER,
	K_WRITER_SPIN,
	K_WRITER_SPIN_ON_READERS,
	K_READER_SPIN,
	K_READER_STEAL,
	K_WAKE_ALL_READERS,
	K_HANDOFF_MS,
	K_TRYLOCK_CMPXCHG,
	K_WAKE_AFTER_UNLOCK,
	K_WRITER_QUEUE_RMW,
	K_READER_SPIN_ADAPTIVE,
	K_WRITER_WAKE_GRANT,
	K_WRITER_FASTPATH_STEAL,
	K_HANDOFF_WRITER_SPINS,
	K_WRITER_SLOWPATH_STEAL,
	K_WAIT_LOCK_QUEUED,
	K_RT_NULL_OWNER,
	K_READER_OWNER_LOAD,
	K_STALE_READER_OWNER,
	K_HANDOFF_STOPS_SPINNERS,
	K_NKEYS
};

static const struct lk_key rwsem_keys[] = {
    [K_OWNER] = {"owner", 0, 1, 1,
		 "sem->owner: a writer stores it on taking the lock and clears it on leaving, a reader reads "
		 "it and marks it reader-owned (3.16 4fc828e24cd9 for writers; readers since 4.9)"},
    [K_WRITER_SPIN] = {"writer_spin", 0, 1, 1,
		       "a writer that finds the lock taken spins in the osq while the owner runs, instead "
		       "of queueing at once (3.16, 4fc828e24cd9)"},
    [K_WRITER_SPIN_ON_READERS] = {"writer_spin_on_readers", 0, 1, 1,
				  "a spinning writer keeps spinning on a reader-owned lock for (20 + min(readers, "
				  "30)) / 2 us, then sets NONSPINNABLE and sleeps (5.3); 0: it stops at once "
				  "(4.9 to 5.2)"},
    [K_READER_SPIN] = {"reader_spin", 0, 1, 1,
		       "a reader that finds a running writer owner spins until it leaves instead of queueing "
		       "(5.3 cf69482d62d9; removed in 5.11, 617f3ef95177)"},
    [K_READER_STEAL] = {"reader_steal", 0, 1, 1,
			"a reader in the slow path takes a lock no writer holds, ahead of the queue unless "
			"readers already own it with waiters (5.11, 1a728dff855a)"},
    [K_WAKE_ALL_READERS] = {"wake_all_readers", 0, 1, 1,
			    "a wake-up with a reader first grants every queued reader, up to 256, writers "
			    "keeping their place (5.3, d3681e269fff); 0: the readers up to the first writer"},
    [K_HANDOFF_MS] = {"handoff_ms", 0, 1000, 0,
		      "the first waiter, a writer, that has waited this long sets RWSEM_FLAG_HANDOFF and no "
		      "one else may take the lock (5.3 4f23dbc1e657, RWSEM_WAIT_TIMEOUT 4 ms; a real-time "
		      "writer sets it at its first failed try); 0: never"},
    [K_TRYLOCK_CMPXCHG] = {"trylock_cmpxchg", 0, 1, 1,
			   "down_read_trylock reads count and cmpxchg-es it, retrying while no writer holds "
			   "it; 0: one xadd of the reader bias, as down_read"},
    [K_WAKE_AFTER_UNLOCK] = {"wake_after_unlock", 0, 1, 1,
			     "rwsem_wake and downgrade_write wake the tasks mark_wake chose (wake_up_q) after "
			     "dropping wait_lock, not while holding it (wake_q, 4.6; 00f3c5a3df2c, 5.3)"},
    [K_WRITER_QUEUE_RMW] = {"writer_queue_rmw", 0, 1, 1,
			    "every writer that queues updates count with an atomic under wait_lock (3.x "
			    "rwsem_down_write_failed's rwsem_atomic_update); 0: only the first, the others "
			    "read it (5.3 rwsem_down_write_slowpath)"},
    [K_READER_SPIN_ADAPTIVE] = {"reader_spin_adaptive", 0, 1, 1,
				"a writer that found RWSEM_NONSPINNABLE set (a writer had timed out spinning on "
				"readers) when it entered the slow path sets RD_NONSPINNABLE once it owns the "
				"lock, and readers do not spin while it stays: readers keep it, a writer's owner "
				"store clears it (5.3 5cfd92e12e13; gone with reader spinning in 5.11)"},
    [K_WRITER_WAKE_GRANT] = {"writer_wake_grant", 0, 1, 1,
			     "a wake-up with a writer first hands it the lock: the waker adds the write bias "
			     "under wait_lock and, nobody being active, dequeues the writer, which owns the lock "
			     "asleep (lib/rwsem.c __rwsem_do_wake up to 3.8); 0: the writer is only woken and "
			     "retries, and others may take the lock first (3.9, Alex Shi's 'rwsem: steal "
			     "writing sem for better performance')"},
    [K_WRITER_FASTPATH_STEAL] = {"writer_fastpath_steal", 0, 1, 1,
				 "down_write's xadd also takes a lock that has waiters but nobody active (count "
				 "== RWSEM_WAITING_BIAS), with no slow path and no wait_lock, ahead of the woken "
				 "head (x86 3.10 to 5.1: fe6e674c6187 and its asm fast path; 5.2's generic C "
				 "__down_write and 5.3's cmpxchg from 0, 64489e78004c, do not); 0: the fast path "
				 "takes only a free lock with no waiters"},
    [K_HANDOFF_WRITER_SPINS] = {"handoff_writer_spins", 0, 1, 1,
				"the first waiter, a writer, that has set RWSEM_FLAG_HANDOFF and failed its "
				"trylock spins on the owner while it runs (rwsem_spin_on_owner) instead of "
				"sleeping, and tries again under wait_lock as soon as the owner is gone (5.4 "
				"91d2a812dfb9; waiter.handoff_set since 5.16 d257cc8cb8d5); 0: it sleeps until "
				"the release wakes it (5.3)"},
    [K_WRITER_SLOWPATH_STEAL] = {"writer_slowpath_steal", 0, 1, 1,
				 "a writer that has queued tries the lock under wait_lock before it first "
				 "sleeps, and takes it if the first waiter is a writer and nobody is active, "
				 "ahead of the woken head writer (3.9 rwsem_down_failed_common's loop, "
				 "try_get_writer_sem: 'may steal from the head writer'); 0: a queued writer "
				 "sleeps at once and tries only once woken"},
    [K_WAIT_LOCK_QUEUED] = {"wait_lock_queued", 0, 1, 1,
			    "wait_lock is what every release makes of a raw_spinlock_t, the kernel profile's "
			    "spinlock design run nested in the rwsem operation: on x86 a FIFO ticket lock from "
			    "2.6.25 to 4.1, a qspinlock since 4.2 (MCS queue, pending bit), virt_spin_lock's "
			    "test-and-set in a guest (1 in every preset); 0: the model's older approximation, a "
			    "test-and-set lock (an RMW; a task that finds it held spins on the line and "
			    "retries)"},
    [K_RT_NULL_OWNER] = {"rt_null_owner", 0, 2, 1,
			 "a real-time task (a role marked rt) stops its optimistic spin where a preempted "
			 "lower-priority owner could keep it spinning for ever: 1, after a failed trylock that "
			 "leaves owner NULL (3.16 4fc828e24cd9 to 5.2, rwsem-xadd.c); 2, after a failed trylock "
			 "whenever the owner is not a writer, unless the look before saw a writer (5.3 "
			 "990fa7384a30, prev_owner_state); 0: it spins as any task"},
    [K_READER_OWNER_LOAD] = {"reader_owner_load", 0, 1, 1,
			     "a reader taking the lock reads owner before it stores its own task there, to "
			     "keep the RD_NONSPINNABLE bit (5.3 5cfd92e12e13, __rwsem_set_reader_owned; "
			     "NONSPINNABLE from 5.11); 0: a plain store (4.20 925b9cd1b89a to 5.2)"},
    [K_STALE_READER_OWNER] = {"stale_reader_owner", 0, 1, 1,
			      "a reader's owner value (READER_OWNED | ANONYMOUSLY_OWNED, the bit renamed "
			      "NONSPINNABLE in v8 11/19) stays after the readers leave, until a writer stores "
			      "its own: while it is there no writer starts or goes on with an optimistic spin, "
			      "even on a free lock (4.9 to 5.2, rwsem-xadd.c rwsem_can_spin_on_owner and "
			      "rwsem_spin_on_owner through is_rwsem_owner_spinnable; v8 01/19 to 13/19); 0: a "
			      "free lock is spinnable whoever held it last (3.16-4.8, and 5.3 7d43f1ce9dd0 on)"},
    [K_HANDOFF_STOPS_SPINNERS] = {"handoff_stops_spinners", 0, 1, 1,
				  "while RWSEM_FLAG_HANDOFF is set no writer starts an optimistic spin and a "
				  "spinning one stops and queues: 5.3's rwsem_spin_on_owner quits on the bit "
				  "while it spins on a writer owner, which the model widens to every spin and "
				  "to starting one (its rule for every release before 2026-12-07); 0: spinners "
				  "go on spinning on the owner, on readers for their time limit and on a free "
				  "lock until the handoff writer has taken it, unable to steal it meanwhile (5.4 "
				  "91d2a812dfb9; rwsem_spin_on_owner of 5.11: 'we don't need to quit even when "
				  "the handoff bit is set')"},
    {NULL, 0, 0, 0, NULL},
};

/* The presets, by rwsem_era, in the order of the keys. */
static const struct {
	const char *era;
	double v[K_NKEYS];
} rwsem_presets[] = {
    {"3.x", {0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0}},
    {"5.3", {1, 1, 1, 1, 0, 1, 4, 1, 1, 0, 1, 0, 0, 1, 0, 1, 2, 1, 0, 0}},
    {"5.11", {1, 1, 1, 0, 1, 1, 4, 1, 1, 0, 0, 0, 0, 1, 0, 1, 2, 1, 0, 0}},
    {"6.x", {1, 1, 1, 0, 1, 1, 4, 1, 1, 0, 0, 0, 0, 1, 0, 1, 2, 1, 0, 0}},
};

/* The design's state of one rw_semaphore besides holder, readers and the wait list. */
struct rwsem_state {
	/* the behaviours, from the [rwsem] keys */
	int owner, writer_spin, writer_spin_on_readers, reader_spin, reader_steal, wake_all_readers, trylock_cmpxchg,
	    wake_after_unlock, writer_queue_rmw, reader_spin_adaptive, writer_wake_grant, writer_fastpath_steal,
	    handoff_writer_spins, writer_slowpath_steal, wait_lock_queued, rt_null_owner, reader_owner_load,
	    stale_reader_owner, handoff_stops_spinners;
	sim_time_t handoff_ps;	     /* 0: no handoff */
	int handoff;		     /* RWSEM_FLAG_HANDOFF */
	int nonspinnable;	     /* RWSEM_NONSPINNABLE: a writer gave up spinning on readers */
	int rd_nonspinnable;	     /* RWSEM_RD_NONSPINNABLE (reader_spin_adaptive): readers do not spin */
	int reader_marked;	     /* owner holds a reader's value: readers took the lock after the last
				      * writer did (stale_reader_owner) */
	struct lock_inst wl;	     /* wait_lock: the kernel's spinlock design on the owner line */
	struct sim_lock_stats wl_st; /* its statistics (not reported) */
	int wl_owner;		     /* the task that took it, -1: a check of mutual exclusion */
	int wl_holder;		     /* wait_lock_queued = 0: the test-and-set holder, -1 */
	/* optimistic spinners (osq): FIFO, the head spins on the lock */
	int *osq;
	int osq_head, osq_len;
	/* the wake_q the waker holding wait_lock builds (wake_after_unlock): tasks, and each one's
	 * place in the waker's wake_up_q */
	int *wakeq, *wakeq_nth;
	int nwake;
};

/* One task's rwsem operation. */
struct rwsem_task {
	int osq_go;	       /* the previous optimistic spinner left the osq */
	sim_time_t spin_since; /* when its optimistic spin began */
	uint64_t seen;	       /* count-word version seen by a trylock's load */
	int saw_nonspinnable;  /* a writer: RWSEM_NONSPINNABLE was set when it entered the slow path */
	int handed;	       /* a queued writer: the waker handed it the lock (writer_wake_grant) */
	int prev_writer;       /* an optimistic spinner: its last look at the lock saw a writer own it */
	int wl_busy;	       /* a wait_lock operation (wl) is in progress */
	struct lk_task wl;     /* raw_spin_lock / raw_spin_unlock of wait_lock */
	_Alignas(max_align_t) unsigned char wl_priv[64]; /* its design's per-task state */
};

#define R(lk) ((struct rwsem_state *)lk_priv(lk))
#define RT(st) ((struct rwsem_task *)(st)->priv)

extern const struct lock_design lock_rwsem;

/* keys[i] in the preset of @k's rwsem_era */
static double rwsem_preset(const struct kernel_profile *k, int i)
{
	size_t p = 0;

	while (p + 1 < sizeof(rwsem_presets) / sizeof(rwsem_presets[0]) && strcmp(rwsem_presets[p].era, k->rwsem_era))
		p++;
	return rwsem_presets[p].v[i];
}

static int rwsem_init(struct lock_inst *lk, const struct lk_setup *su, struct mm_error *err)
{
	struct rwsem_state *r = R(lk);
	double v[K_NKEYS];
	int rc;

	for (int k = 0; k < K_NKEYS; k++)
		v[k] = lk_key_value(su->kernel, &lock_rwsem, rwsem_keys[k].name, rwsem_preset(su->kernel, k));
	r->owner = v[K_OWNER] != 0;
	r->writer_spin = v[K_WRITER_SPIN] != 0;
	r->writer_spin_on_readers = v[K_WRITER_SPIN_ON_READERS] != 0;
	r->reader_spin = v[K_READER_SPIN] != 0;
	r->reader_steal = v[K_READER_STEAL] != 0;
	r->wake_all_readers = v[K_WAKE_ALL_READERS] != 0;
	r->trylock_cmpxchg = v[K_TRYLOCK_CMPXCHG] != 0;
	r->handoff_ps = (sim_time_t)llround(v[K_HANDOFF_MS] * 1e9);
	r->wake_after_unlock = v[K_WAKE_AFTER_UNLOCK] != 0;
	r->writer_queue_rmw = v[K_WRITER_QUEUE_RMW] != 0;
	r->reader_spin_adaptive = v[K_READER_SPIN_ADAPTIVE] != 0;
	r->writer_wake_grant = v[K_WRITER_WAKE_GRANT] != 0;
	r->writer_fastpath_steal = v[K_WRITER_FASTPATH_STEAL] != 0;
	r->handoff_writer_spins = v[K_HANDOFF_WRITER_SPINS] != 0;
	r->writer_slowpath_steal = v[K_WRITER_SLOWPATH_STEAL] != 0;
	r->wait_lock_queued = v[K_WAIT_LOCK_QUEUED] != 0;
	r->rt_null_owner = (int)v[K_RT_NULL_OWNER];
	r->reader_owner_load = v[K_READER_OWNER_LOAD] != 0;
	r->stale_reader_owner = v[K_STALE_READER_OWNER] != 0;
	r->handoff_stops_spinners = v[K_HANDOFF_STOPS_SPINNERS] != 0;
	r->wl_owner = r->wl_holder = -1;
	if (r->wait_lock_queued) { /* the instance, with its queue of ntasks, only when it is used */
		const struct lock_design *wl_design = lock_design_for(lock_kind_find("spinlock"), su->kernel);

		r->wl.line[0] = lk->line[1];
		r->wl.task_lines = lk->task_lines;
		r->wl.st = &r->wl_st;
		if (!wl_design || wl_design->nlines > 1 ||
		    wl_design->task_size > sizeof(((struct rwsem_task *)0)->wl_priv))
			return mm_fail(err, MM_EPARSE, "%s: rwsem's wait_lock needs a spinlock design of one line",
				       su->kernel->name);
		if ((rc = lock_inst_init(&r->wl, wl_design, su, err)))
			return rc;
	}
	r->osq = malloc(su->ntasks * sizeof(int));
	r->wakeq = malloc(su->ntasks * sizeof(int));
	r->wakeq_nth = malloc(su->ntasks * sizeof(int));
	return r->osq && r->wakeq && r->wakeq_nth ? 0 : mm_fail(err, MM_ENOMEM, "out of memory for locks");
}

static void rwsem_fini(struct lock_inst *lk)
{
	if (lk->priv) {
		if (R(lk)->wl.d)
			lock_inst_free(&R(lk)->wl);
		free(R(lk)->osq);
		free(R(lk)->wakeq);
		free(R(lk)->wakeq_nth);
	}
}

static void nothing(struct rt *s, void *obj, int task, int arg)
{
}

static void wl_drop(struct rt *s, void *obj, int task, int arg)
{
	R((struct lock_inst *)obj)->wl_holder = -1;
}

/* wait_lock_queued = 0: an RMW on its line takes it, 1 when taken, 0 to spin and retry; a store
 * drops it. */
static int wait_lock_tas(struct rt *s, struct rt_task *t, struct lock_inst *lk, enum lk_what what)
{
	const int me = rt_task_id(t), line = lk->line[1];

	if (what == LK_RELEASE)
		return rt_store(s, t, line, wl_drop, lk, 0);
	if (!rt_access(s, t, line, COH_RMW))
		return 0;
	if (R(lk)->wl_holder >= 0 && R(lk)->wl_holder != me) {
		lk_count_stat(lk, LKS_SPIN);
		rt_spin(s, t, line);
		return 0;
	}
	R(lk)->wl_holder = me;
	return 1;
}

/* raw_spin_lock(&sem->wait_lock) (@what LK_ACQUIRE) or raw_spin_unlock (LK_RELEASE), as the
 * kernel's spinlock design does it (wait_lock_queued): 1 when done, 0 to wait. */
static int wait_lock(struct rt *s, struct rt_task *t, struct lock_inst *lk, enum lk_what what)
{
	struct rwsem_task *my = RT(lk_state(t));

	if (!R(lk)->wait_lock_queued)
		return wait_lock_tas(s, t, lk, what);
	if (!my->wl_busy) {
		my->wl.priv = my->wl_priv;
		lk_task_begin(&my->wl, &R(lk)->wl, what, LM_EXCL, rt_now(s));
		my->wl_busy = 1;
		if (what == LK_RELEASE)
			R(lk)->wl_owner = -1;
	}
	if (lk_nested_op(s, t, &my->wl) == LK_WAIT)
		return 0;
	my->wl_busy = 0;
	/* the wait queue and the flags change only under wait_lock: one holder at a time */
	if (what == LK_ACQUIRE) {
		if (R(lk)->wl_owner >= 0)
			lk->st->violations++;
		R(lk)->wl_owner = rt_task_id(t);
	}
	return 1;
}

static void osq_go(struct rt *s, void *obj, int task, int next)
{
	RT(lk_state_on(s, next, obj))->osq_go = 1;
}

/* rwsem_optimistic_spin (5.3+, rt_null_owner = 2), after a failed trylock with the owner not a
 * writer: a real-time spinner stops unless its look before saw a writer (prev_owner_state); the
 * look becomes the previous one either way. */
static int rt_gives_up(const struct rt_task *t, struct lock_inst *lk, struct lk_task *st)
{
	int stop = t->realtime && R(lk)->rt_null_owner == 2 && !RT(st)->prev_writer;

	RT(st)->prev_writer = 0;
	return stop;
}

/* A writer owns the lock: rwsem_set_owner() writes owner without flag bits, which also ends a
 * RWSEM_NONSPINNABLE left by a writer that timed out spinning on readers. */
static void take_write(struct lock_inst *lk, int me)
{
	lk->holder = me;
	R(lk)->nonspinnable = 0;
	R(lk)->rd_nonspinnable = 0;
	R(lk)->reader_marked = 0;
}

/* A reader owns the lock (with the others): __rwsem_set_reader_owned's value goes into owner, and
 * stays there after it leaves until a writer's replaces it. */
static void take_read(struct lock_inst *lk)
{
	lk->nreaders++;
	lk->version++;
	R(lk)->reader_marked = 1;
}

/* handoff_stops_spinners: RWSEM_FLAG_HANDOFF is set and, as in 5.3, ends optimistic spinning */
static int spin_stopped_by_handoff(const struct lock_inst *lk)
{
	return R(lk)->handoff && R(lk)->handoff_stops_spinners;
}

/* stale_reader_owner: owner holds a reader's value, which is_rwsem_owner_spinnable() refuses */
static int owner_unspinnable(const struct lock_inst *lk)
{
	return R(lk)->stale_reader_owner && R(lk)->reader_marked;
}

/* A writer owns the lock from the slow path: 5.3's rwsem_down_write_slowpath (with 5cfd92e12e13)
 * ORs RD_NONSPINNABLE into owner when it saw NONSPINNABLE on entry (reader_spin_adaptive). */
static void take_write_slow(struct lock_inst *lk, struct lk_task *st, int me)
{
	take_write(lk, me);
	if (R(lk)->reader_spin_adaptive && RT(st)->saw_nonspinnable)
		R(lk)->rd_nonspinnable = 1;
}

static int can_write(const struct lock_inst *lk, int me)
{
	return lk->holder < 0 && lk->nreaders == 0 && (!R(lk)->handoff || lk_wq_first(lk, NULL) == me);
}

/* writer_slowpath_steal: 3.9 try_get_writer_sem "only steal when first waiter is writing" */
static int first_is_writer(const struct lock_inst *lk)
{
	int mode;

	return lk_wq_first(lk, &mode) >= 0 && mode == M_WRITE;
}

static void wq_remove(struct lock_inst *lk, int task)
{
	int n = lk->wq_len, tasks[n], modes[n];

	for (int i = 0; i < n; i++)
		tasks[i] = lk_wq_at(lk, i, &modes[i]);
	lk->wq_len = 0;
	for (int i = 0; i < n; i++)
		if (tasks[i] != task)
			lk_wq_push(lk, tasks[i], modes[i]);
}

/* wake_up_q()'s @nth task, from 0 (a reader granted the lock, or the one writer woken): now, with
 * wait_lock held, or after the waker drops it (wake_after_unlock), from the list it built. */
static void wake(struct rt *s, struct rt_task *t, struct lock_inst *lk, int task, int nth)
{
	struct rwsem_state *r = R(lk);

	if (!r->wake_after_unlock) {
		rt_wake_nth(s, t, task, nth);
		return;
	}
	r->wakeq[r->nwake] = task;
	r->wakeq_nth[r->nwake++] = nth;
}

/* After raw_spin_unlock(&sem->wait_lock): wake_up_q() of what mark_wake() queued. */
static void wake_up_q(struct rt *s, struct rt_task *t, struct lock_inst *lk)
{
	struct rwsem_state *r = R(lk);

	for (int i = 0; i < r->nwake; i++)
		rt_wake_nth(s, t, r->wakeq[i], r->wakeq_nth[i]);
	r->nwake = 0;
}

static void grant_read(struct rt *s, struct rt_task *t, struct lock_inst *lk, int r, int n)
{
	take_read(lk);
	lk_state_of(s, r)->granted = 1;
	lk_count_stat(lk, LKS_WAKE);
	lk_count_stat(lk, LKS_READ_WAKE);
	if (n == 0)
		lk_count_stat(lk, LKS_READ_BATCH);
	wake(s, t, lk, r, n);
}

/* rwsem_mark_wake(): called with wait_lock held.  After a downgrade
 * (RWSEM_WAKE_READ_OWNED) a writer at the head is left asleep. */
static void mark_wake(struct rt *s, struct rt_task *t, struct lock_inst *lk, int read_owned)
{
	int mode, first = lk_wq_first(lk, &mode);

	if (first < 0)
		return;
	if (mode == M_WRITE) {
		if (read_owned)
			return;
		struct lk_task *w = lk_state_of(s, first);

		if (!w->granted) {
			w->granted = 1; /* woken: it retries the lock itself */
			lk_count_stat(lk, LKS_WAKE);
			wake(s, t, lk, first, 0); /* rwsem_wake's single wake_up_process */
		}
		return;
	}
	if (lk->holder >= 0)
		return;
	if (!R(lk)->wake_all_readers) {
		/* 3.x: the readers at the front of the queue, up to the first writer */
		for (int n = 0; n < MAX_READERS_WAKEUP && lk_wq_first(lk, &mode) >= 0 && mode == M_READ; n++)
			grant_read(s, t, lk, lk_wq_pop(lk), n);
		return;
	}
	/* 5.3+ ('Wake up almost all readers in wait queue'): phase-fair; with a reader at the head,
	 * every reader in the queue, up to MAX_READERS_WAKEUP, is granted; writers keep their order */
	{
		int len = lk->wq_len, tasks[len], modes[len], n = 0;

		for (int i = 0; i < len; i++)
			tasks[i] = lk_wq_at(lk, i, &modes[i]);
		lk->wq_len = 0;
		for (int i = 0; i < len; i++) {
			if (modes[i] == M_READ && n < MAX_READERS_WAKEUP)
				grant_read(s, t, lk, tasks[i], n++);
			else
				lk_wq_push(lk, tasks[i], modes[i]);
		}
	}
}

/* writer_wake_grant: the writer at the head of the queue, not woken yet, that rwsem_wake will try to
 * hand the lock to (3.8 __rwsem_do_wake; not after a downgrade, RWSEM_WAKE_READ_OWNED); -1: none. */
static int grant_candidate(struct rt *s, const struct lock_inst *lk, int read_owned)
{
	int mode, first = lk_wq_first(lk, &mode);

	if (!R(lk)->writer_wake_grant || read_owned || first < 0 || mode != M_WRITE || lk_state_of(s, first)->granted)
		return -1;
	return first;
}

/* The waker's xadd of the write bias found nobody active: the head writer @w is dequeued and owns
 * the lock before it is woken (3.8 __rwsem_do_wake, "No active lock"), so nobody can take it
 * during the wake-up. */
static void hand_to_writer(struct rt *s, struct rt_task *t, struct lock_inst *lk, int w)
{
	struct lk_task *ws = lk_state_of(s, w);

	if (R(lk)->handoff) {
		R(lk)->handoff = 0;
		lk_count_stat(lk, LKS_HANDOFF);
	}
	wq_remove(lk, w);
	take_write_slow(lk, ws, w);
	RT(ws)->handed = 1;
	ws->granted = 1;
	lk_count_stat(lk, LKS_WAKE);
	wake(s, t, lk, w, 0); /* rwsem_wake's single wake_up_process */
}

/* Leave the osq; the next optimistic spinner becomes its head. */
static int osq_leave(struct rt *s, struct rt_task *t, struct lock_inst *lk)
{
	int next;

	if (R(lk)->osq_len && R(lk)->osq[R(lk)->osq_head] == rt_task_id(t)) {
		R(lk)->osq_head = (R(lk)->osq_head + 1) % lk->wq_cap;
		R(lk)->osq_len--;
	}
	if (!R(lk)->osq_len)
		return 1;
	next = R(lk)->osq[R(lk)->osq_head];
	return rt_store(s, t, lk_node_line(lk, next), osq_go, lk, next);
}

enum {
	P_START = 0,
	P_OWNER,       /* store owner, then done */
	P_RD_OWNER,    /* rwsem_set_reader_owned: read owner (reader_owner_load), then P_OWNER */
	P_RD_SLOW,     /* rwsem_down_read_slowpath */
	P_RD_SPIN,     /* 5.11 reader optimistic spin */
	P_QUEUE,       /* take wait_lock and queue */
	P_SET_WAITERS, /* the waiter's atomic on count (the first: RWSEM_FLAG_WAITERS) */
	P_WAITER_LOAD, /* a writer behind others reads count (5.3+) */
	P_DROP_WL,     /* drop wait_lock, then sleep */
	P_SLEEP,
	P_TAKEN_WL,	/* took the lock under wait_lock: drop it, then owner */
	P_WR_SPIN_JOIN, /* rwsem_optimistic_spin */
	P_WR_OSQ_WAIT,
	P_WR_SPIN,
	P_WR_SPIN_COUNT,
	P_WR_RESPIN, /* the count line was written: re-read it, then spin again */
	P_WR_STEAL,
	P_WR_LEAVE_GOT,
	P_WR_LEAVE_QUEUE,
	P_WR_RETRY, /* woken writer: take wait_lock and try */
	P_WR_RETRY_DROP,
	P_WR_RETRY_GOT,
	P_WR_HANDOFF_SPIN, /* handoff_writer_spins: rwsem_spin_on_owner, read owner */
	P_WR_HANDOFF_COUNT,
	P_TRY_LOAD, /* down_read_trylock: read count */
	P_TRY_CMPXCHG,
	P_REL_OWNER, /* up_write: clear owner */
	P_REL_COUNT,
	P_WAKE_WL,    /* rwsem_wake: wait_lock, mark_wake, drop */
	P_WAKE_GRANT, /* writer_wake_grant: xadd of the write bias for the head writer */
	P_WAKE_UNDO,  /* someone was active: undo it, and try again if the lock went free */
	P_WAKE_DROP,
};

static int acquire(struct rt *s, struct rt_task *t, struct lock_inst *lk)
{
	struct lk_task *st = lk_state(t);
	const int me = rt_task_id(t), cnt = lk->line[0], own = lk->line[1];
	const int rd = st->mode == LM_READ;

	if (st->phase == P_START && st->what == LK_TRYACQUIRE && rd && R(lk)->trylock_cmpxchg)
		st->phase = P_TRY_LOAD;
	for (;;) {
		switch (st->phase) {
		case P_START: /* reader: xadd READER_BIAS; writer: cmpxchg 0 -> WRITER_LOCKED */
			if (!rt_access(s, t, cnt, COH_RMW))
				return LK_WAIT;
			if (rd && lk->holder < 0 && !lk->wq_len && !R(lk)->handoff) {
				take_read(lk);
				st->phase = P_RD_OWNER;
			} else if (!rd && lk->holder < 0 && !lk->nreaders && !R(lk)->handoff &&
				   (!lk->wq_len || R(lk)->writer_fastpath_steal)) {
				/* writer_fastpath_steal (3.10-5.2): the xadd of WRITE_BIAS also wins on
				 * count == WAITING_BIAS, waiters queued and nobody active */
				take_write(lk, me);
				lk->version++;
				st->phase = P_OWNER;
			} else {
				st->first_try = 0;
				if (!rd)
					RT(st)->saw_nonspinnable = R(lk)->nonspinnable;
				st->phase = rd ? P_RD_SLOW : R(lk)->writer_spin ? P_WR_SPIN_JOIN : P_QUEUE;
			}
			break;
		case P_RD_OWNER:
			if (R(lk)->owner && R(lk)->reader_owner_load && !rt_access(s, t, own, COH_LOAD))
				return LK_WAIT;
			st->phase = P_OWNER;
			break;
		case P_OWNER: /* rwsem_set_owner / rwsem_set_reader_owned (no owner field in 3.x) */
			if (R(lk)->owner && !rt_store(s, t, own, nothing, lk, 0))
				return LK_WAIT;
			return LK_DONE;
		case P_RD_SLOW:
			if (R(lk)->reader_steal && lk->holder < 0 && !R(lk)->handoff &&
			    !(lk->nreaders > 0 && lk->wq_len)) {
				take_read(lk); /* reader lock stealing */
				st->phase = P_RD_OWNER;
			} else if (R(lk)->reader_spin && !R(lk)->rd_nonspinnable && lk->holder >= 0 &&
				   rt_task_on_cpu(s, lk->holder)) {
				st->phase = P_RD_SPIN;
			} else {
				st->phase = P_QUEUE;
			}
			break;
		case P_RD_SPIN:
			if (!rt_access(s, t, cnt, COH_LOAD))
				return LK_WAIT;
			if (lk->holder >= 0 && rt_task_on_cpu(s, lk->holder)) {
				lk_count_stat(lk, LKS_SPIN);
				rt_spin_on_owner(s, t, cnt, lk->holder);
				return LK_WAIT;
			}
			st->phase = lk->holder < 0 && !R(lk)->handoff ? P_START : P_QUEUE;
			break;
		case P_QUEUE: /* raw_spin_lock_irq(&sem->wait_lock) */
			if (!wait_lock(s, t, lk, LK_ACQUIRE))
				return LK_WAIT;
			if (!lk->wq_len && (rd ? lk->holder < 0 : can_write(lk, me))) {
				if (rd)
					take_read(lk);
				else {
					take_write_slow(lk, st, me);
					lk->version++;
				}
				st->phase = P_TAKEN_WL;
				break;
			}
			st->granted = 0;
			st->since = rt_now(s);
			lk_wq_push(lk, me, rd ? M_READ : M_WRITE);
			/* every reader undoes its reader bias with an atomic under wait_lock (3.9
			 * rwsem_down_read_failed's rwsem_atomic_update, 6.6 rwsem_down_read_slowpath's
			 * atomic_long_add_return), the first waiter's also setting the waiting bits; a
			 * writer: in 3.x every one (rwsem_down_write_failed), from 5.3 the first sets
			 * RWSEM_FLAG_WAITERS (atomic_long_or) and the others read count */
			st->phase = rd || lk->wq_len == 1 || R(lk)->writer_queue_rmw ? P_SET_WAITERS : P_WAITER_LOAD;
			break;
		case P_WAITER_LOAD:
			if (!rt_access(s, t, cnt, COH_LOAD))
				return LK_WAIT;
			st->phase = P_DROP_WL;
			break;
		case P_SET_WAITERS:
			if (!rt_access(s, t, cnt, COH_RMW))
				return LK_WAIT;
			lk->version++;
			st->phase = P_DROP_WL;
			break;
		case P_DROP_WL:
			if (!wait_lock(s, t, lk, LK_RELEASE))
				return LK_WAIT;
			/* writer_slowpath_steal: 3.9's loop retakes wait_lock for try_get_writer_sem
			 * before its first schedule() */
			st->phase = !rd && R(lk)->writer_slowpath_steal ? P_WR_RETRY : P_SLEEP;
			break;
		case P_SLEEP:
			if (!st->granted) {
				lk_count_stat(lk, LKS_SLEEP);
				rt_sleep(s, t);
				return LK_WAIT;
			}
			if (rd)
				return LK_DONE; /* the waker counted us in */
			st->granted = 0;
			/* writer_wake_grant: the waker made us the owner; else retry the lock */
			st->phase = RT(st)->handed ? P_OWNER : P_WR_RETRY;
			RT(st)->handed = 0;
			break;
		case P_TAKEN_WL:
			if (!wait_lock(s, t, lk, LK_RELEASE))
				return LK_WAIT;
			st->phase = rd ? P_RD_OWNER : P_OWNER;
			break;
		case P_WR_SPIN_JOIN:
			/* rwsem_can_spin_on_owner: not on a sleeping owner, nor while NONSPINNABLE, nor
			 * on a reader's owner value (stale_reader_owner) */
			if (!(lk->holder >= 0 ? rt_task_on_cpu(s, lk->holder) : !owner_unspinnable(lk)) ||
			    spin_stopped_by_handoff(lk) || R(lk)->nonspinnable) {
				st->phase = P_QUEUE;
				break;
			}
			RT(st)->spin_since = rt_now(s);
			RT(st)->osq_go = 0;
			RT(st)->prev_writer = 0; /* prev_owner_state = OWNER_NULL */
			R(lk)->osq[(R(lk)->osq_head + R(lk)->osq_len) % lk->wq_cap] = me;
			R(lk)->osq_len++;
			st->phase = R(lk)->osq_len == 1 ? P_WR_SPIN : P_WR_OSQ_WAIT;
			break;
		case P_WR_OSQ_WAIT: /* osq_lock: spin on our own node */
			if (!rt_access(s, t, lk_node_line(lk, me), COH_LOAD))
				return LK_WAIT;
			if (!RT(st)->osq_go) {
				rt_spin(s, t, lk_node_line(lk, me));
				return LK_WAIT;
			}
			RT(st)->spin_since = rt_now(s);
			st->phase = P_WR_SPIN;
			break;
		case P_WR_SPIN: /* rwsem_spin_on_owner: read owner */
			if (!rt_access(s, t, own, COH_LOAD))
				return LK_WAIT;
			st->phase = P_WR_SPIN_COUNT;
			break;
		case P_WR_SPIN_COUNT:
			if (!rt_access(s, t, cnt, COH_LOAD))
				return LK_WAIT;
			if (lk->holder < 0 && owner_unspinnable(lk)) {
				/* rwsem_spin_on_owner saw a reader's value in owner: stop */
				st->phase = P_WR_LEAVE_QUEUE;
			} else if (lk->holder < 0 && !lk->nreaders && !R(lk)->handoff) {
				st->phase = P_WR_STEAL;
			} else if (lk->holder >= 0 && !spin_stopped_by_handoff(lk) && rt_task_on_cpu(s, lk->holder)) {
				/* rwsem_spin_on_owner: until the owner changes or goes off-CPU */
				lk_count_stat(lk, LKS_SPIN);
				RT(st)->prev_writer = 1;
				st->phase = P_WR_RESPIN;
				rt_spin_on_owner(s, t, cnt, lk->holder);
				return LK_WAIT;
			} else if (lk->holder < 0 && !lk->nreaders && !R(lk)->handoff_stops_spinners) {
				/* OWNER_NULL with the handoff bit set (a free lock without it was taken
				 * above): rwsem_try_write_lock_unqueued refuses, and the loop looks at
				 * owner and count again until one changes: the handoff writer's owner
				 * store (no owner field: the next write of count).  As after any failed
				 * trylock on a non-writer owner, a real-time spinner stops (5.3+).  5.11
				 * times this look as a spin on readers when a reader's owner value is left
				 * in owner (up_read does not clear it); the model does not (README, Known
				 * limits) */
				if (rt_gives_up(t, lk, st)) {
					st->phase = P_WR_LEAVE_QUEUE;
					break;
				}
				lk_count_stat(lk, LKS_SPIN);
				st->phase = P_WR_RESPIN;
				rt_spin(s, t, R(lk)->owner ? own : cnt);
				return LK_WAIT;
			} else if (R(lk)->writer_spin_on_readers && lk->holder < 0 && lk->nreaders &&
				   !spin_stopped_by_handoff(lk)) {
				/* reader-owned: spin for (20 + min(readers, 30)) us / 2 at most */
				int r = lk->nreaders < 30 ? lk->nreaders : 30;
				sim_time_t limit = RT(st)->spin_since + (20 + r) * 1000000LL / 2;

				if (rt_gives_up(t, lk, st)) {
					st->phase = P_WR_LEAVE_QUEUE; /* OWNER_READER, its trylock failed */
					break;
				}
				if (rt_now(s) >= limit) {
					/* rwsem_set_nonspinnable: writers stop spinning on this reader phase;
					 * readers keep the bit in owner until a writer owns the lock */
					R(lk)->nonspinnable = 1;
					st->phase = P_WR_LEAVE_QUEUE;
					break;
				}
				lk_count_stat(lk, LKS_SPIN);
				st->phase = P_WR_RESPIN;
				rt_spin_deadline(s, t, cnt, limit);
				return LK_WAIT;
			} else {
				st->phase = P_WR_LEAVE_QUEUE; /* owner asleep, or a handoff is pending */
			}
			break;
		case P_WR_RESPIN:
			if (!rt_access(s, t, cnt, COH_LOAD))
				return LK_WAIT;
			st->phase = P_WR_SPIN;
			break;
		case P_WR_STEAL: /* rwsem_try_write_lock_unqueued: cmpxchg */
			if (!rt_access(s, t, cnt, COH_RMW))
				return LK_WAIT;
			if (lk->holder < 0 && !lk->nreaders && !R(lk)->handoff) {
				take_write_slow(lk, st, me);
				lk->version++;
				st->phase = P_WR_LEAVE_GOT;
			} else {
				/* the look before this trylock saw owner NULL (a free lock): an RT task may
				 * stop here, the others look again */
				st->phase = rt_gives_up(t, lk, st) || (R(lk)->rt_null_owner == 1 && t->realtime)
						? P_WR_LEAVE_QUEUE
						: P_WR_SPIN;
			}
			break;
		case P_WR_LEAVE_GOT:
			if (!osq_leave(s, t, lk))
				return LK_WAIT;
			st->phase = P_OWNER;
			break;
		case P_WR_LEAVE_QUEUE:
			if (!osq_leave(s, t, lk))
				return LK_WAIT;
			st->phase = P_QUEUE;
			break;
		case P_WR_RETRY: /* woken writer: rwsem_try_write_lock under wait_lock */
			if (!wait_lock(s, t, lk, LK_ACQUIRE))
				return LK_WAIT;
			if (can_write(lk, me) && (!R(lk)->writer_slowpath_steal || first_is_writer(lk))) {
				if (R(lk)->handoff && lk_wq_first(lk, NULL) == me) {
					R(lk)->handoff = 0;
					lk_count_stat(lk, LKS_HANDOFF);
				}
				wq_remove(lk, me);
				take_write_slow(lk, st, me);
				lk->version++;
				st->phase = P_WR_RETRY_GOT;
				break;
			}
			if (R(lk)->handoff_ps > 0 && !R(lk)->handoff && lk_wq_first(lk, NULL) == me &&
			    (rt_now(s) - st->since >= R(lk)->handoff_ps || t->realtime))
				R(lk)->handoff = 1; /* RWSEM_FLAG_HANDOFF: no more stealing */
			st->phase = P_WR_RETRY_DROP;
			break;
		case P_WR_RETRY_DROP:
			if (!wait_lock(s, t, lk, LK_RELEASE))
				return LK_WAIT;
			/* handoff_writer_spins (5.4): the handoff writer spins on the owner */
			st->phase = R(lk)->handoff_writer_spins && R(lk)->handoff && lk_wq_first(lk, NULL) == me
					? P_WR_HANDOFF_SPIN
					: P_SLEEP;
			break;
		case P_WR_HANDOFF_SPIN: /* rwsem_spin_on_owner: read owner (no owner field: count only) */
			if (R(lk)->owner && !rt_access(s, t, own, COH_LOAD))
				return LK_WAIT;
			st->phase = P_WR_HANDOFF_COUNT;
			break;
		case P_WR_HANDOFF_COUNT:
			if (!rt_access(s, t, cnt, COH_LOAD))
				return LK_WAIT;
			if (lk->holder == me) { /* handed the lock meanwhile (writer_wake_grant) */
				RT(st)->handed = 0;
				st->granted = 0;
				st->phase = P_OWNER;
				break;
			}
			if (lk->holder >= 0 && rt_task_on_cpu(s, lk->holder)) {
				/* OWNER_WRITER, running: until the owner changes or goes off-CPU */
				lk_count_stat(lk, LKS_SPIN);
				st->phase = P_WR_HANDOFF_SPIN;
				rt_spin_on_owner(s, t, cnt, lk->holder);
				return LK_WAIT;
			}
			/* OWNER_NULL: "goto trylock_again", no schedule(); a reader owner or one off the CPU:
			 * sleep until the release wakes us */
			st->phase = lk->holder < 0 && !lk->nreaders ? P_WR_RETRY : P_SLEEP;
			break;
		case P_WR_RETRY_GOT:
			if (!wait_lock(s, t, lk, LK_RELEASE))
				return LK_WAIT;
			st->phase = P_OWNER;
			break;
		case P_TRY_LOAD: /* __down_read_trylock: read count, cmpxchg loop */
			if (!rt_access(s, t, cnt, COH_LOAD))
				return LK_WAIT;
			RT(st)->seen = lk->version;
			if (lk->holder >= 0 || lk->wq_len || R(lk)->handoff) {
				st->first_try = 0;
				st->what = LK_ACQUIRE; /* mmap_read_trylock failed: mmap_read_lock */
				st->phase = P_START;
				break;
			}
			st->phase = P_TRY_CMPXCHG;
			break;
		case P_TRY_CMPXCHG:
			if (!rt_access(s, t, cnt, COH_RMW))
				return LK_WAIT;
			if (lk->version == RT(st)->seen) {
				take_read(lk);
				st->phase = P_RD_OWNER;
				break;
			}
			/* the cmpxchg failed: it returned the new count, check it again */
			st->first_try = 0;
			RT(st)->seen = lk->version;
			if (lk->holder >= 0 || lk->wq_len || R(lk)->handoff) {
				st->what = LK_ACQUIRE; /* the trylock failed: down_read */
				st->phase = P_START;
			}
			break;
		default:
			return LK_DONE;
		}
	}
}

static int release(struct rt *s, struct rt_task *t, struct lock_inst *lk)
{
	struct lk_task *st = lk_state(t);
	const int cnt = lk->line[0], own = lk->line[1];

	if (st->phase == P_START)
		st->phase =
		    st->what == LK_DOWNGRADE || st->mode == LM_READ || !R(lk)->owner ? P_REL_COUNT : P_REL_OWNER;
	for (;;) {
		switch (st->phase) {
		case P_REL_OWNER: /* rwsem_clear_owner */
			if (!rt_store(s, t, own, nothing, lk, 0))
				return LK_WAIT;
			st->phase = P_REL_COUNT;
			break;
		case P_REL_COUNT:
			if (!rt_access(s, t, cnt, COH_RMW))
				return LK_WAIT;
			lk->version++;
			if (st->what == LK_DOWNGRADE) { /* downgrade_write: writer -> one reader */
				lk->holder = -1;
				lk->nreaders++;
				R(lk)->reader_marked = 1; /* __downgrade_write: rwsem_set_reader_owned */
			} else if (st->mode == LM_READ) {
				lk->nreaders--;
			} else {
				lk->holder = -1;
			}
			if (lk->wq_len && (st->what == LK_DOWNGRADE || (lk->holder < 0 && !lk->nreaders)))
				st->phase = P_WAKE_WL;
			else
				st->phase = st->what == LK_DOWNGRADE && R(lk)->owner ? P_OWNER : -1;
			break;
		case P_WAKE_WL: /* rwsem_wake */
			if (!wait_lock(s, t, lk, LK_ACQUIRE))
				return LK_WAIT;
			if (st->what != LK_DOWNGRADE)
				R(lk)->nonspinnable = 0; /* the last one out: clear_nonspinnable() */
			if (grant_candidate(s, lk, st->what == LK_DOWNGRADE) >= 0) {
				st->phase = P_WAKE_GRANT;
				break;
			}
			mark_wake(s, t, lk, st->what == LK_DOWNGRADE);
			st->phase = P_WAKE_DROP;
			break;
		case P_WAKE_GRANT: /* 3.8 __rwsem_do_wake: rwsem_atomic_update(ACTIVE_WRITE_BIAS ...) */
			if (!rt_access(s, t, cnt, COH_RMW))
				return LK_WAIT;
			lk->version++;
			if (lk->holder < 0 && !lk->nreaders) {
				hand_to_writer(s, t, lk, grant_candidate(s, lk, 0));
				st->phase = P_WAKE_DROP;
			} else {
				st->phase = P_WAKE_UNDO; /* "some one grabbed the sem already" */
			}
			break;
		case P_WAKE_UNDO: /* rwsem_atomic_update(-adjustment): still active, leave it to them */
			if (!rt_access(s, t, cnt, COH_RMW))
				return LK_WAIT;
			lk->version++;
			st->phase = lk->holder < 0 && !lk->nreaders ? P_WAKE_GRANT : P_WAKE_DROP;
			break;
		case P_WAKE_DROP:
			if (!wait_lock(s, t, lk, LK_RELEASE))
				return LK_WAIT;
			wake_up_q(s, t, lk);
			st->phase = st->what == LK_DOWNGRADE && R(lk)->owner ? P_OWNER : -1;
			break;
		case P_OWNER:
			if (!rt_store(s, t, own, nothing, lk, 0))
				return LK_WAIT;
			return LK_DONE;
		default:
			return LK_DONE;
		}
	}
}

static int rwsem_op(struct rt *s, struct rt_task *t, struct lock_inst *lk)
{
	struct lk_task *st = lk_state(t);

	if (st->what == LK_RELEASE || st->what == LK_DOWNGRADE)
		return release(s, t, lk);
	return acquire(s, t, lk);
}

const struct lock_design lock_rwsem = {
    .name = "rwsem",
    .kind = "rwsem",
    .doc = "rw_semaphore: reader fast path, trylock cmpxchg loop, optimistic spinning, sleeping waiters, "
	   "handoff, downgrade (per kernel era)",
    .caps = LK_CAP_SHARED | LK_CAP_DOWNGRADE | LK_CAP_SLEEPS,
    .lines = {{"count", LR_WORD}, {"owner", LR_WORD}},
    .nlines = 2,
    .inst_size = sizeof(struct rwsem_state),
    .task_size = sizeof(struct rwsem_task),
    .init = rwsem_init,
    .fini = rwsem_fini,
    .section = "rwsem",
    .keys = rwsem_keys,
    .key_preset = rwsem_preset,
    .op = rwsem_op,
};
