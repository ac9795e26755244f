/* SPDX-License-Identifier: MIT */
/*
 * percpu_rw_semaphore, as in Linux 6.6 (kernel/locking/percpu-rwsem.c,
 * include/linux/percpu-rwsem.h, kernel/rcu/sync.c, include/linux/rcuwait.h).
 *
 * Readers count themselves in a per-CPU counter.  While the rcu_sync in the
 * lock is idle (no writer for a grace period), percpu_down_read() and
 * percpu_up_read() read the rcu_sync state and bump their own CPU's counter
 * with a plain this_cpu_inc/dec: no locked instruction and no shared line
 * written.  A writer first makes readers take the slow path (rcu_sync_enter,
 * which waits one grace period when it leaves the idle state), then sets
 * sem->block with an xchg, then waits (rcuwait) until the sum of all the
 * per-CPU counters is zero.  A slow-path reader increments with a full
 * barrier, reads block, and if a writer has it, decrements, prods the writer
 * and queues on sem->waiters.  percpu_up_write() clears block, walks the
 * wait queue running each waiter's trylock on the waker's own CPU (readers
 * in FIFO order, up to and including one writer), then rcu_sync_exit()s;
 * readers get the fast path back one grace period after the last writer.
 *
 * Lines: line[0] "rss" holds rcu_sync (gp_state, gp_count, its spinlock
 * rss_lock), the read_count pointer and writer.task; line[1] "block" holds
 * waiters.lock, the waiters list and block; line[2] "read_count" is one line
 * per CPU (for_each_possible_cpu: every CPU of the topology, with a task or
 * not).  Accesses: this_cpu_inc/dec are posted stores on the task's CPU line;
 * an inc or dec paired with smp_mb is one RMW on it; a bare smp_mb is an RMW
 * on the task's own per-task line; spinlocks are an RMW to take (spinning on
 * the line while held) and a store to drop.
 *
 * Simplifications, stated:
 *   - rcu_sync has no timer: the call_rcu callback rcu_sync_func() is applied
 *     lazily, at the first look at the state at or after its time (the same
 *     transitions as the kernel's: EXIT -> IDLE, REPLAY -> EXIT and one more
 *     grace period, PASSED when a writer re-entered meanwhile); its own
 *     rss_lock traffic costs nothing;
 *   - a grace period is a fixed time ([percpu_rwsem] rcu_gp_ms, 5 ms
 *     unless the kernel profile says); synchronize_rcu() is a timed
 *     sleep; no expedited grace periods;
 *   - per_cpu_sum() loads the counters one at a time (no memory-level
 *     parallelism), so its cost is an upper bound;
 *   - there is no percpu_down_write_trylock() in 6.6: a write trylock is the
 *     blocking acquire, counted as a failed trylock when it has to wait; a
 *     failed read trylock (percpu_down_read_trylock) becomes percpu_down_read;
 *   - the waker's smp_store_release(&wq_entry->private, NULL) is a store on
 *     the waiter's per-task line (it is on the waiter's stack).
 */
#include "coherence.h"
#include "lock.h"

#include <math.h>
#include <stdlib.h>

/* [percpu_rwsem] rcu_gp_ms: synchronize_rcu() "may incur several milliseconds of latency"
 * (Documentation/RCU/Design/Requirements/Requirements.rst); 5 ms is a middle value, UNVERIFIED for
 * any given machine; a kernel profile sets its own. */
static const struct lk_key pcpu_keys[] = {
    {"rcu_gp_ms", 0.001, 1000, 0,
     "one RCU grace period: what a writer's rcu_sync_enter waits when it leaves idle, and the delay "
     "of rcu_sync_exit's callback"},
    {NULL, 0, 0, 0, NULL},
};

static double pcpu_preset(const struct kernel_profile *k, int i)
{
	return 5; /* ms */
}

extern const struct lock_design lock_percpu_rwsem;

enum { M_READ = 1, M_WRITE = 2 };
enum { GP_IDLE = 0, GP_ENTER, GP_PASSED, GP_EXIT, GP_REPLAY }; /* kernel/rcu/sync.c */

/* One percpu_rw_semaphore besides the wait list (lk->wq). */
struct pcpu_state {
	int ncpus;
	int *cnt; /* read_count of each CPU (summed; one may go negative) */
	int gp_state, gp_count;
	int cb_pending;	  /* rcu_sync_func() queued by call_rcu */
	sim_time_t cb_at; /* ... and when it runs */
	int *gp_wait;	  /* writers asleep in rcu_sync_enter() while another is in GP_ENTER */
	int ngp_wait;	  /* ... how many */
	int rss_holder;	  /* rss.gp_wait.lock holder, -1 */
	int wl_holder;	  /* waiters.lock holder, -1 */
	int block;	  /* the writer that set sem->block, -1 */
	int writer;	  /* sem->writer.task (rcuwait), -1 */
	sim_time_t gp_ps; /* one grace period */
};

/* One task's operation. */
struct pcpu_task {
	int prod;			      /* rcuwait_wake_up() found this writer: it is TASK_RUNNING again */
	int ok, fail;			      /* phases after a reader trylock that succeeded / failed */
	int after;			      /* phase after rcuwait_wake_up() */
	int cpu, sum;			      /* per_cpu_sum(): next CPU, sum so far */
	int need_gp;			      /* rcu_sync_enter() found GP_IDLE: synchronize_rcu() */
	int wait_gp;			      /* rcu_sync_enter() found GP_ENTER: wait for GP_PASSED */
	int wakee, wakee_mode, nwoken, nread; /* percpu_up_write()'s walk */
};

#define P(lk) ((struct pcpu_state *)lk_priv(lk))
#define PT(st) ((struct pcpu_task *)(st)->priv)

static int pcpu_init(struct lock_inst *lk, const struct lk_setup *su, struct mm_error *err)
{
	struct pcpu_state *p = P(lk);

	p->gp_ps = (sim_time_t)llround(
	    lk_key_value(su->kernel, &lock_percpu_rwsem, "rcu_gp_ms", pcpu_preset(su->kernel, 0)) * 1e9);
	p->ncpus = su->ncpus;
	p->cnt = calloc(su->ncpus > 0 ? su->ncpus : 1, sizeof(int));
	p->gp_wait = malloc((su->ntasks > 0 ? su->ntasks : 1) * sizeof(int));
	p->gp_state = GP_IDLE;
	p->rss_holder = p->wl_holder = p->block = p->writer = -1;
	return p->cnt && p->gp_wait ? 0 : mm_fail(err, MM_ENOMEM, "out of memory for locks");
}

static void pcpu_fini(struct lock_inst *lk)
{
	if (lk->priv) {
		free(P(lk)->cnt);
		free(P(lk)->gp_wait);
	}
}

/* rcu_sync_func() for every callback due by @now, in order (kernel/rcu/sync.c). */
static void gp_advance(struct pcpu_state *p, sim_time_t now)
{
	while (p->cb_pending && p->cb_at <= now) {
		p->cb_pending = 0;
		if (p->gp_count) {
			p->gp_state = GP_PASSED; /* re-entered meanwhile; nobody waits on gp_wait here */
		} else if (p->gp_state == GP_REPLAY) {
			p->gp_state = GP_EXIT; /* a later rcu_sync_exit(): one more grace period */
			p->cb_pending = 1;
			p->cb_at += p->gp_ps;
		} else {
			p->gp_state = GP_IDLE;
		}
	}
}

/* rcu_sync_is_idle(), as a reader sees it now */
static int gp_idle(struct rt *s, struct lock_inst *lk)
{
	gp_advance(P(lk), rt_now(s));
	return P(lk)->gp_state == GP_IDLE;
}

static void nothing(struct rt *s, void *obj, int task, int arg)
{
}

static void cnt_inc(struct rt *s, void *obj, int task, int cpu)
{
	P((struct lock_inst *)obj)->cnt[cpu]++;
}

static void cnt_dec(struct rt *s, void *obj, int task, int cpu)
{
	P((struct lock_inst *)obj)->cnt[cpu]--;
}

static void rss_drop(struct rt *s, void *obj, int task, int arg)
{
	P((struct lock_inst *)obj)->rss_holder = -1;
}

static void wl_drop(struct rt *s, void *obj, int task, int arg)
{
	P((struct lock_inst *)obj)->wl_holder = -1;
}

static void block_clear(struct rt *s, void *obj, int task, int arg)
{
	P((struct lock_inst *)obj)->block = -1; /* atomic_set_release(&sem->block, 0) */
}

static void writer_set(struct rt *s, void *obj, int task, int arg)
{
	P((struct lock_inst *)obj)->writer = arg; /* prepare_to_rcuwait / finish_rcuwait */
}

/* A spinlock (rss_lock, waiters.lock), after the RMW on its line: 1 when taken, 0 to spin. */
static int spin_take(struct rt *s, struct rt_task *t, struct lock_inst *lk, int *holder, int line)
{
	const int me = rt_task_id(t);

	if (*holder >= 0 && *holder != me) {
		lk_count_stat(lk, LKS_SPIN);
		rt_spin(s, t, line);
		return 0;
	}
	*holder = me;
	return 1;
}

/* rcuwait_wake_up(&sem->writer) after its barrier and the load of writer.task: the writer runs
 * again (wake_up_process).  A writer.task whose finish_rcuwait store is still in flight may
 * already be past its wait; it is only prodded while it is in this lock's down_write. */
static void prod_writer(struct rt *s, struct rt_task *waker, struct lock_inst *lk)
{
	const int w = P(lk)->writer;
	struct lk_task *ws;

	if (w < 0)
		return;
	ws = lk_state_of(s, w);
	if (ws->lk != lk || ws->mode != LM_WRITE || ws->what == LK_RELEASE || ws->what == LK_DOWNGRADE)
		return;
	PT(ws)->prod = 1;
	if (rt_task(s, w)->state == T_SLEEP && !rt_task(s, w)->wake_pending)
		lk_count_stat(lk, LKS_WAKE);
	rt_wake_nth(s, waker, w, 0);
}

/* The acquire has to wait: contended, and a trylock failed (it goes on as the blocking one). */
static void blocked(struct lk_task *st, int contended)
{
	if (contended)
		st->first_try = 0;
	if (st->what == LK_TRYACQUIRE)
		st->what = LK_ACQUIRE;
}

/* Join sem->waiters (under waiters.lock) at the tail, then go to @next (drop the lock, sleep). */
static void queue(struct rt *s, struct lk_task *st, struct lock_inst *lk, int me, int mode, int next)
{
	st->granted = 0;
	st->since = rt_now(s);
	lk_wq_push(lk, me, mode);
	st->phase = next;
}

enum {
	P_START = 0,
	P_DONE,
	/* __percpu_down_read_trylock() on this task's CPU; then PT->ok or PT->fail */
	P_RT_INC,   /* this_cpu_inc + smp_mb "A": one RMW on the CPU's counter line */
	P_RT_BLOCK, /* atomic_read_acquire(&sem->block) */
	P_RT_DEC,   /* failed: this_cpu_dec, then rcuwait_wake_up */
	/* rcuwait_wake_up(&sem->writer); then PT->after */
	P_WAKE_MB,   /* smp_mb "B" */
	P_WAKE_LOAD, /* load writer.task, wake it */
	/* percpu_down_read */
	P_R_GP,		 /* rcu_sync_is_idle: load gp_state */
	P_R_FAST,	 /* this_cpu_inc */
	P_R_FAILED,	 /* the trylock failed */
	P_R_WL,		 /* percpu_rwsem_wait: spin_lock_irq(&waiters.lock), trylock again */
	P_R_QUEUE,	 /* queue, drop waiters.lock, sleep */
	P_R_UNLOCK_GOT,	 /* got it under waiters.lock: drop it */
	P_R_UNLOCK_WAIT, /* drop waiters.lock, then sleep */
	P_R_SLEEP,
	/* percpu_down_write */
	P_W_ENTER,	  /* rcu_sync_enter: rss_lock, state, gp_count++ */
	P_W_ENTER_UNLOCK, /* drop rss_lock */
	P_W_GP,		  /* synchronize_rcu() */
	P_W_GP_DONE,	  /* rcu_sync_func(): rss_lock, GP_PASSED, wake gp_wait */
	P_W_GP_UNLOCK,
	P_W_GP_WAIT,	 /* wait_event(gp_wait, gp_state >= GP_PASSED) */
	P_W_TRY,	 /* __percpu_down_write_trylock: atomic_read(&block) */
	P_W_XCHG,	 /* atomic_xchg(&block, 1) */
	P_W_WL,		 /* percpu_rwsem_wait: waiters.lock */
	P_W_WL_TRY,	 /* the trylock again, under it */
	P_W_WL_XCHG,	 /* ... its xchg */
	P_W_UNLOCK_GOT,	 /* drop waiters.lock, go on */
	P_W_UNLOCK_WAIT, /* drop waiters.lock, sleep */
	P_W_SLEEP,
	P_W_RCUWAIT, /* prepare_to_rcuwait: writer.task = current */
	P_W_STATE,   /* set_current_state: a full barrier */
	P_W_SUM,     /* per_cpu_sum(*sem->read_count) */
	P_W_MB_C,    /* readers_active_check: smp_mb "C" */
	P_W_FINISH,  /* finish_rcuwait: writer.task = NULL */
	/* percpu_up_read */
	P_U_GP,	  /* rcu_sync_is_idle */
	P_U_FAST, /* this_cpu_dec */
	P_U_DEC,  /* smp_mb "B" + this_cpu_dec: one RMW; then rcuwait_wake_up */
	/* percpu_up_write */
	P_X_BLOCK,   /* atomic_set_release(&block, 0) */
	P_X_WL,	     /* __wake_up: waiters.lock */
	P_X_WALK,    /* __wake_up_common: the next entry's percpu_rwsem_wake_function */
	P_X_GOT_R,   /* a reader's trylock succeeded (on our CPU) */
	P_X_W_LOAD,  /* a writer's trylock: atomic_read(&block) */
	P_X_W_XCHG,  /* ... atomic_xchg */
	P_X_WAKE,    /* smp_store_release(&wq_entry->private, NULL) */
	P_X_WAKE_UP, /* wake_up_process */
	P_X_WUNLOCK, /* drop waiters.lock */
	P_X_EXIT,    /* rcu_sync_exit: rss_lock, --gp_count */
	P_X_EXIT_UNLOCK,
};

enum { C_NOT_MINE = -1, C_NEXT = -2 };

/* The phases both the acquire and the release use: the reader trylock and rcuwait_wake_up.
 * LK_WAIT or LK_DONE: return it; C_NEXT: go on; C_NOT_MINE: not one of these phases. */
static int common(struct rt *s, struct rt_task *t, struct lock_inst *lk)
{
	struct lk_task *st = lk_state(t);
	const int cline = lk->line[2] + t->cpu;

	switch (st->phase) {
	case P_RT_INC:
		if (!rt_access(s, t, cline, COH_RMW))
			return LK_WAIT;
		P(lk)->cnt[t->cpu]++;
		st->phase = P_RT_BLOCK;
		return C_NEXT;
	case P_RT_BLOCK:
		if (!rt_access(s, t, lk->line[1], COH_LOAD))
			return LK_WAIT;
		st->phase = P(lk)->block < 0 ? PT(st)->ok : P_RT_DEC;
		return C_NEXT;
	case P_RT_DEC:
		if (!rt_store(s, t, cline, cnt_dec, lk, t->cpu))
			return LK_WAIT;
		PT(st)->after = PT(st)->fail;
		st->phase = P_WAKE_MB;
		return C_NEXT;
	case P_WAKE_MB:
		if (!rt_access(s, t, lk_node_line(lk, rt_task_id(t)), COH_RMW))
			return LK_WAIT;
		st->phase = P_WAKE_LOAD;
		return C_NEXT;
	case P_WAKE_LOAD:
		if (!rt_access(s, t, lk->line[0], COH_LOAD))
			return LK_WAIT;
		prod_writer(s, t, lk);
		st->phase = PT(st)->after;
		return C_NEXT;
	case P_DONE:
		return LK_DONE;
	default:
		return C_NOT_MINE;
	}
}

/* Into rcuwait_wait_event's loop: set_current_state (TASK_UNINTERRUPTIBLE: prods count from here). */
static void to_state(struct lk_task *st)
{
	PT(st)->prod = 0;
	st->phase = P_W_STATE;
}

static int acquire(struct rt *s, struct rt_task *t, struct lock_inst *lk)
{
	struct lk_task *st = lk_state(t);
	struct pcpu_state *p = P(lk);
	struct pcpu_task *my = PT(st);
	const int me = rt_task_id(t), rss = lk->line[0], blk = lk->line[1];
	int ret;

	if (st->phase == P_START)
		st->phase = st->mode == LM_READ ? P_R_GP : P_W_ENTER;
	for (;;) {
		ret = common(s, t, lk);
		if (ret == LK_WAIT || ret == LK_DONE)
			return ret;
		if (ret == C_NEXT)
			continue;
		switch (st->phase) {
		case P_R_GP: /* percpu_down_read: preempt_disable, rcu_sync_is_idle */
			if (!rt_access(s, t, rss, COH_LOAD))
				return LK_WAIT;
			if (gp_idle(s, lk)) {
				st->phase = P_R_FAST;
				break;
			}
			my->ok = P_DONE;
			my->fail = P_R_FAILED;
			st->phase = P_RT_INC;
			break;
		case P_R_FAST:
			if (!rt_store(s, t, lk->line[2] + t->cpu, cnt_inc, lk, t->cpu))
				return LK_WAIT;
			return LK_DONE;
		case P_R_FAILED:
			if (st->what == LK_TRYACQUIRE) { /* percpu_down_read_trylock failed: down_read */
				blocked(st, 1);
				st->phase = P_R_GP;
				break;
			}
			blocked(st, 1);
			st->phase = P_R_WL;
			break;
		case P_R_WL:
			if (!rt_access(s, t, blk, COH_RMW) || !spin_take(s, t, lk, &p->wl_holder, blk))
				return LK_WAIT;
			my->ok = P_R_UNLOCK_GOT;
			my->fail = P_R_QUEUE;
			st->phase = P_RT_INC;
			break;
		case P_R_QUEUE: /* WQ_FLAG_EXCLUSIVE | WQ_FLAG_CUSTOM, at the tail */
			queue(s, st, lk, me, M_READ, P_R_UNLOCK_WAIT);
			break;
		case P_R_UNLOCK_GOT:
			if (!rt_store(s, t, blk, wl_drop, lk, 0))
				return LK_WAIT;
			return LK_DONE;
		case P_R_UNLOCK_WAIT:
			if (!rt_store(s, t, blk, wl_drop, lk, 0))
				return LK_WAIT;
			st->phase = P_R_SLEEP;
			break;
		case P_R_SLEEP: /* until wq_entry.private is NULL: the waker counted us in */
			if (st->granted)
				return LK_DONE;
			lk_count_stat(lk, LKS_SLEEP);
			rt_sleep(s, t);
			return LK_WAIT;

		case P_W_ENTER: /* rcu_sync_enter */
			if (!rt_access(s, t, rss, COH_RMW) || !spin_take(s, t, lk, &p->rss_holder, rss))
				return LK_WAIT;
			gp_advance(p, rt_now(s));
			my->need_gp = p->gp_state == GP_IDLE;
			my->wait_gp = p->gp_state == GP_ENTER;
			if (my->need_gp)
				p->gp_state = GP_ENTER;
			p->gp_count++;
			if (my->wait_gp)
				p->gp_wait[p->ngp_wait++] = me; /* prepare_to_wait, under the same lock */
			st->phase = P_W_ENTER_UNLOCK;
			break;
		case P_W_ENTER_UNLOCK:
			if (!rt_store(s, t, rss, rss_drop, lk, 0))
				return LK_WAIT;
			st->phase = my->need_gp ? P_W_GP : my->wait_gp ? P_W_GP_WAIT : P_W_TRY;
			break;
		case P_W_GP: /* synchronize_rcu() */
			blocked(st, 0);
			lk_count_stat(lk, LKS_SLEEP);
			st->phase = P_W_GP_DONE;
			rt_sleep_for(s, t, p->gp_ps);
			return LK_WAIT;
		case P_W_GP_DONE: /* rcu_sync_func(), called directly */
			if (!rt_access(s, t, rss, COH_RMW) || !spin_take(s, t, lk, &p->rss_holder, rss))
				return LK_WAIT;
			gp_advance(p, rt_now(s));
			p->gp_state = GP_PASSED;		/* gp_count > 0: we are in it */
			for (int i = 0; i < p->ngp_wait; i++) { /* wake_up_locked(&gp_wait): all of them */
				lk_count_stat(lk, LKS_WAKE);
				rt_wake_nth(s, t, p->gp_wait[i], i);
			}
			p->ngp_wait = 0;
			st->phase = P_W_GP_UNLOCK;
			break;
		case P_W_GP_UNLOCK:
			if (!rt_store(s, t, rss, rss_drop, lk, 0))
				return LK_WAIT;
			st->phase = P_W_TRY;
			break;
		case P_W_GP_WAIT:
			if (p->gp_state != GP_ENTER) {
				st->phase = P_W_TRY;
				break;
			}
			blocked(st, 1);
			lk_count_stat(lk, LKS_SLEEP);
			rt_sleep(s, t);
			return LK_WAIT;
		case P_W_TRY: /* __percpu_down_write_trylock */
			if (!rt_access(s, t, blk, COH_LOAD))
				return LK_WAIT;
			st->phase = p->block < 0 ? P_W_XCHG : P_W_WL;
			break;
		case P_W_XCHG:
			if (!rt_access(s, t, blk, COH_RMW))
				return LK_WAIT;
			if (p->block < 0) {
				p->block = me;
				st->phase = P_W_RCUWAIT;
			} else {
				st->phase = P_W_WL;
			}
			break;
		case P_W_WL: /* percpu_rwsem_wait(sem, false) */
			blocked(st, 1);
			if (!rt_access(s, t, blk, COH_RMW) || !spin_take(s, t, lk, &p->wl_holder, blk))
				return LK_WAIT;
			st->phase = P_W_WL_TRY;
			break;
		case P_W_WL_TRY:
			if (!rt_access(s, t, blk, COH_LOAD))
				return LK_WAIT;
			if (p->block < 0) {
				st->phase = P_W_WL_XCHG;
				break;
			}
			queue(s, st, lk, me, M_WRITE, P_W_UNLOCK_WAIT);
			break;
		case P_W_WL_XCHG:
			if (!rt_access(s, t, blk, COH_RMW))
				return LK_WAIT;
			if (p->block < 0) {
				p->block = me;
				st->phase = P_W_UNLOCK_GOT;
				break;
			}
			queue(s, st, lk, me, M_WRITE, P_W_UNLOCK_WAIT);
			break;
		case P_W_UNLOCK_GOT:
			if (!rt_store(s, t, blk, wl_drop, lk, 0))
				return LK_WAIT;
			st->phase = P_W_RCUWAIT;
			break;
		case P_W_UNLOCK_WAIT:
			if (!rt_store(s, t, blk, wl_drop, lk, 0))
				return LK_WAIT;
			st->phase = P_W_SLEEP;
			break;
		case P_W_SLEEP: /* the waker set block for us */
			if (!st->granted) {
				lk_count_stat(lk, LKS_SLEEP);
				rt_sleep(s, t);
				return LK_WAIT;
			}
			st->phase = P_W_RCUWAIT;
			break;
		case P_W_RCUWAIT: /* rcuwait_wait_event(&sem->writer, readers_active_check(sem), ...) */
			if (!rt_store(s, t, rss, writer_set, lk, me))
				return LK_WAIT;
			to_state(st);
			break;
		case P_W_STATE: /* set_current_state(): smp_store_mb */
			if (!rt_access(s, t, lk_node_line(lk, me), COH_RMW))
				return LK_WAIT;
			my->cpu = 0;
			my->sum = 0;
			st->phase = P_W_SUM;
			break;
		case P_W_SUM: /* for_each_possible_cpu: one load after the other */
			while (my->cpu < p->ncpus) {
				if (!rt_access(s, t, lk->line[2] + my->cpu, COH_LOAD))
					return LK_WAIT;
				my->sum += p->cnt[my->cpu];
				my->cpu++;
			}
			if (my->sum == 0) {
				st->phase = P_W_MB_C;
				break;
			}
			if (my->prod) { /* woken since set_current_state: schedule() returns at once */
				to_state(st);
				break;
			}
			blocked(st, 1);
			lk_count_stat(lk, LKS_SLEEP);
			to_state(st); /* woken (or not): check again */
			rt_sleep(s, t);
			return LK_WAIT;
		case P_W_MB_C:
			if (!rt_access(s, t, lk_node_line(lk, me), COH_RMW))
				return LK_WAIT;
			st->phase = P_W_FINISH;
			break;
		case P_W_FINISH:
			if (!rt_store(s, t, rss, writer_set, lk, -1))
				return LK_WAIT;
			lk->holder = me;
			return LK_DONE;
		default:
			return LK_DONE;
		}
	}
}

static int release(struct rt *s, struct rt_task *t, struct lock_inst *lk)
{
	struct lk_task *st = lk_state(t);
	struct pcpu_state *p = P(lk);
	struct pcpu_task *my = PT(st);
	const int rss = lk->line[0], blk = lk->line[1];
	int ret, mode = 0;

	if (st->phase == P_START) {
		st->phase = st->mode == LM_READ ? P_U_GP : P_X_BLOCK;
		if (st->mode != LM_READ)
			lk->holder = -1;
	}
	for (;;) {
		ret = common(s, t, lk);
		if (ret == LK_WAIT || ret == LK_DONE)
			return ret;
		if (ret == C_NEXT)
			continue;
		switch (st->phase) {
		case P_U_GP: /* percpu_up_read */
			if (!rt_access(s, t, rss, COH_LOAD))
				return LK_WAIT;
			st->phase = gp_idle(s, lk) ? P_U_FAST : P_U_DEC;
			break;
		case P_U_FAST:
			if (!rt_store(s, t, lk->line[2] + t->cpu, cnt_dec, lk, t->cpu))
				return LK_WAIT;
			return LK_DONE;
		case P_U_DEC:
			if (!rt_access(s, t, lk->line[2] + t->cpu, COH_RMW))
				return LK_WAIT;
			p->cnt[t->cpu]--;
			my->after = P_DONE;
			st->phase = P_WAKE_MB;
			break;

		case P_X_BLOCK: /* percpu_up_write */
			if (!rt_store(s, t, blk, block_clear, lk, 0))
				return LK_WAIT;
			st->phase = P_X_WL;
			break;
		case P_X_WL: /* __wake_up(&sem->waiters, TASK_NORMAL, 1, sem): always takes the lock */
			if (!rt_access(s, t, blk, COH_RMW) || !spin_take(s, t, lk, &p->wl_holder, blk))
				return LK_WAIT;
			my->nwoken = my->nread = 0;
			st->phase = P_X_WALK;
			break;
		case P_X_WALK:
			my->wakee = lk_wq_first(lk, &mode);
			my->wakee_mode = mode;
			if (my->wakee < 0) {
				st->phase = P_X_WUNLOCK;
			} else if (mode == M_READ) { /* the reader's trylock, on our CPU's counter */
				my->ok = P_X_GOT_R;
				my->fail = P_X_WUNLOCK; /* stolen: return 1, the walk stops */
				st->phase = P_RT_INC;
			} else {
				st->phase = P_X_W_LOAD;
			}
			break;
		case P_X_GOT_R:
			lk_wq_pop(lk);
			st->phase = P_X_WAKE;
			break;
		case P_X_W_LOAD:
			if (!rt_access(s, t, blk, COH_LOAD))
				return LK_WAIT;
			st->phase = p->block < 0 ? P_X_W_XCHG : P_X_WUNLOCK;
			break;
		case P_X_W_XCHG:
			if (!rt_access(s, t, blk, COH_RMW))
				return LK_WAIT;
			if (p->block >= 0) {
				st->phase = P_X_WUNLOCK;
				break;
			}
			p->block = my->wakee; /* on the waiter's behalf */
			lk_wq_pop(lk);
			st->phase = P_X_WAKE;
			break;
		case P_X_WAKE: /* smp_store_release(&wq_entry->private, NULL) */
			if (!rt_store(s, t, lk_node_line(lk, my->wakee), nothing, lk, 0))
				return LK_WAIT;
			st->phase = P_X_WAKE_UP;
			break;
		case P_X_WAKE_UP: {
			const int w = my->wakee, rd = my->wakee_mode == M_READ;

			lk_state_of(s, w)->granted = 1;
			lk_count_stat(lk, LKS_WAKE);
			if (rd) {
				lk_count_stat(lk, LKS_READ_WAKE);
				if (my->nread++ == 0)
					lk_count_stat(lk, LKS_READ_BATCH);
			}
			rt_wake_nth(s, t, w, my->nwoken++);
			st->phase = rd ? P_X_WALK : P_X_WUNLOCK; /* return !reader */
			break;
		}
		case P_X_WUNLOCK:
			if (!rt_store(s, t, blk, wl_drop, lk, 0))
				return LK_WAIT;
			st->phase = P_X_EXIT;
			break;
		case P_X_EXIT: /* rcu_sync_exit */
			if (!rt_access(s, t, rss, COH_RMW) || !spin_take(s, t, lk, &p->rss_holder, rss))
				return LK_WAIT;
			gp_advance(p, rt_now(s));
			if (!--p->gp_count) {
				if (p->gp_state == GP_PASSED) {
					p->gp_state = GP_EXIT; /* call_rcu_hurry(rcu_sync_func) */
					p->cb_pending = 1;
					p->cb_at = rt_now(s) + p->gp_ps;
				} else if (p->gp_state == GP_EXIT) {
					p->gp_state = GP_REPLAY;
				}
			}
			st->phase = P_X_EXIT_UNLOCK;
			break;
		case P_X_EXIT_UNLOCK:
			if (!rt_store(s, t, rss, rss_drop, lk, 0))
				return LK_WAIT;
			return LK_DONE;
		default:
			return LK_DONE;
		}
	}
}

static int pcpu_op(struct rt *s, struct rt_task *t, struct lock_inst *lk)
{
	struct lk_task *st = lk_state(t);

	if (st->what == LK_RELEASE || st->what == LK_DOWNGRADE)
		return release(s, t, lk);
	return acquire(s, t, lk);
}

const struct lock_design lock_percpu_rwsem = {
    .name = "percpu_rwsem",
    .kind = "percpu_rwsem",
    .doc = "percpu_rw_semaphore (6.6): per-CPU reader counts, rcu_sync fast path, writers wait for the sum",
    .caps = LK_CAP_SHARED | LK_CAP_SLEEPS,
    .lines = {{"rss", LR_WORD}, {"block", LR_WORD}, {"read_count", LR_PERCPU}},
    .nlines = 3,
    .inst_size = sizeof(struct pcpu_state),
    .task_size = sizeof(struct pcpu_task),
    .init = pcpu_init,
    .fini = pcpu_fini,
    .section = "percpu_rwsem",
    .keys = pcpu_keys,
    .key_preset = pcpu_preset,
    .op = pcpu_op,
};
