/* SPDX-License-Identifier: MIT */
/*
 * Queued spinlock (kernel/locking/qspinlock.c, x86 since 4.2), access by
 * access as in Linux 6.6 with _Q_PENDING_BITS == 8 (the x86 layout: locked
 * byte, pending byte, 16-bit tail in one word):
 *
 *   queued_spin_lock          cmpxchg 0 -> locked (atomic)
 *   queued_spin_lock_slowpath, with the value the cmpxchg saw:
 *     val == pending only     atomic_cond_read_relaxed: read the word while it
 *                             stays pending-only, at most _Q_PENDING_LOOPS
 *                             (512 on x86) cpu_relax() rounds
 *     contention (pending or tail set): queue
 *     queued_fetch_set_pending_acquire: lock btsl (atomic); on contention,
 *                             clear_pending (WRITE_ONCE of the pending byte,
 *                             a plain store) if we set it, then queue
 *     smp_cond_load_acquire(&lock->locked, !VAL): read the word until the
 *                             owner clears locked
 *     clear_pending_set_locked: WRITE_ONCE of the 16-bit locked_pending
 *                             half-word, a plain (posted) store; the lock is
 *                             ours from here: nobody else takes it while
 *                             pending is set
 *   queue:
 *     idx = node->count++; node->locked = 0; node->next = NULL: the task's own
 *                             MCS node line (per-CPU qnodes), read then written
 *     queued_spin_trylock     atomic_read of the word; a cmpxchg if it is 0
 *     xchg_tail               xchg of the tail half-word (atomic)
 *     WRITE_ONCE(prev->next, node): a store to the predecessor's node line
 *     arch_mcs_spin_lock_contended: read our node until ->locked
 *     READ_ONCE(node->next)   and prefetchw(next) if a successor has linked
 *     atomic_cond_read_acquire(&lock->val, !(VAL & _Q_LOCKED_PENDING_MASK)):
 *                             the queue head reads the word until locked and
 *                             pending are clear
 *     last in the queue (tail == ours): cmpxchg clearing the tail (atomic)
 *     otherwise set_locked    WRITE_ONCE of the locked byte, a plain store
 *     smp_cond_load_relaxed(&node->next, VAL) if no successor was seen yet
 *     arch_mcs_spin_unlock_contended(&next->locked): a store to its node
 *   queued_spin_unlock        smp_store_release(&lock->locked, 0): a store
 *
 * Left out: the __this_cpu_dec(qnodes[0].mcs.count) at release (a store to
 * the task's own node that the store buffer absorbs; the runtime's one
 * store in flight would turn it into a stall the hardware does not have).
 *
 * The word's state: lk->holder is the locked byte (the task that set it),
 * q->pending the pending byte, q->tail the tail; lk->wq is the MCS queue in
 * order, the head leaving it when it takes the lock (the tail stays set
 * until the last waiter's cmpxchg clears it).
 */
#include "coherence.h"
#include "lock.h"

/* x86's _Q_PENDING_LOOPS (arch/x86/include/asm/qspinlock.h) */
#define Q_PENDING_LOOPS 512

/* the pending byte: the task that set it, -1; the tail: the last task queued, -1 */
struct q_state {
	int pending, tail;
};

struct q_task {
	sim_time_t deadline; /* end of the bounded wait for a pending->locked hand-over */
	int linked;	     /* a successor has written our node->next */
	int seen_next;	     /* READ_ONCE(node->next) found it (prefetchw done) */
	int prev;	     /* the tail xchg_tail returned, -1 */
};

enum {
	Q_FAST = 0,	 /* queued_spin_lock's cmpxchg */
	Q_PEND_HANDOVER, /* val == _Q_PENDING_VAL: bounded wait */
	Q_SET_PENDING,	 /* queued_fetch_set_pending_acquire */
	Q_CLEAR_PENDING, /* undo: clear_pending() */
	Q_PEND_WAIT,	 /* pending: wait for locked to clear */
	Q_PEND_TAKE,	 /* clear_pending_set_locked() */
	Q_NODE,		 /* node->count++ and the node's initialisation */
	Q_TRY_READ,	 /* queued_spin_trylock: atomic_read */
	Q_TRY_CMPXCHG,	 /* queued_spin_trylock: cmpxchg */
	Q_XCHG_TAIL,	 /* xchg_tail */
	Q_LINK,		 /* WRITE_ONCE(prev->next, node) */
	Q_MCS_WAIT,	 /* arch_mcs_spin_lock_contended */
	Q_READ_NEXT,	 /* READ_ONCE(node->next), prefetchw */
	Q_HEAD_WAIT,	 /* atomic_cond_read_acquire: locked and pending clear */
	Q_HEAD_CMPXCHG,	 /* the last waiter clears the tail and takes the lock */
	Q_SET_LOCKED,	 /* set_locked() */
	Q_WAIT_NEXT,	 /* smp_cond_load_relaxed(&node->next, VAL) */
	Q_HANDOFF,	 /* arch_mcs_spin_unlock_contended(&next->locked) */
};

static int q_init(struct lock_inst *lk, const struct lk_setup *su, struct mm_error *err)
{
	struct q_state *q = lk_priv(lk);

	q->pending = q->tail = -1;
	return 0;
}

static void q_unlock(struct rt *s, void *obj, int task, int arg)
{
	struct lock_inst *lk = obj;

	lk->holder = -1; /* smp_store_release(&lock->locked, 0) */
}

/* clear_pending_set_locked() performs: locked = @task, pending = 0 */
static void q_pending_to_locked(struct rt *s, void *obj, int task, int arg)
{
	struct lock_inst *lk = obj;

	lk->holder = task;
	((struct q_state *)lk_priv(lk))->pending = -1;
}

/* clear_pending() performs */
static void q_clear_pending(struct rt *s, void *obj, int task, int arg)
{
	struct q_state *q = lk_priv((struct lock_inst *)obj);

	if (q->pending == task)
		q->pending = -1;
}

/* set_locked() performs */
static void q_set_locked(struct rt *s, void *obj, int task, int arg)
{
	((struct lock_inst *)obj)->holder = task;
}

/* WRITE_ONCE(prev->next, node) performs: @arg is the predecessor */
static void q_link(struct rt *s, void *obj, int task, int prev)
{
	((struct q_task *)lk_state_on(s, prev, obj)->priv)->linked = 1;
}

static void q_signal(struct rt *s, void *obj, int task, int next)
{
	lk_state_on(s, next, obj)->granted = 1; /* arch_mcs_spin_unlock_contended() */
}

/* The word as a value: locked, pending, tail */
static int word_is_zero(const struct lock_inst *lk, const struct q_state *q)
{
	return lk->holder < 0 && q->pending < 0 && q->tail < 0;
}

static int q_op(struct rt *s, struct rt_task *t, struct lock_inst *lk)
{
	struct lk_task *st = lk_state(t);
	struct q_state *q = lk_priv(lk);
	struct q_task *my = st->priv;
	const int me = rt_task_id(t), word = lk->line[0], node = lk_node_line(lk, me);

	if (st->what == LK_RELEASE || st->what == LK_DOWNGRADE)
		return rt_store(s, t, word, q_unlock, lk, 0) ? LK_DONE : LK_WAIT;
	for (;;) {
		switch (st->phase) {
		case Q_FAST:
			if (!rt_access(s, t, word, COH_RMW))
				return LK_WAIT;
			if (word_is_zero(lk, q)) {
				lk->holder = me;
				return LK_DONE;
			}
			st->first_try = 0;
			if (lk->holder < 0 && q->pending >= 0 && q->tail < 0) {
				my->deadline = rt_now(s) + Q_PENDING_LOOPS * rt_pause_ps(s);
				st->phase = Q_PEND_HANDOVER;
			} else {
				st->phase = q->pending >= 0 || q->tail >= 0 ? Q_NODE : Q_SET_PENDING;
			}
			break;
		case Q_PEND_HANDOVER:
			if (!rt_access(s, t, word, COH_LOAD))
				return LK_WAIT;
			if (lk->holder < 0 && q->pending >= 0 && q->tail < 0 && rt_now(s) < my->deadline) {
				rt_spin_deadline(s, t, word, my->deadline);
				return LK_WAIT;
			}
			st->phase = q->pending >= 0 || q->tail >= 0 ? Q_NODE : Q_SET_PENDING;
			break;
		case Q_SET_PENDING:
			if (!rt_access(s, t, word, COH_RMW))
				return LK_WAIT;
			if (q->pending >= 0 || q->tail >= 0) { /* a concurrent locker */
				if (q->pending >= 0) {
					st->phase = Q_NODE;
					break;
				}
				q->pending = me; /* we set it: undo */
				st->phase = Q_CLEAR_PENDING;
				break;
			}
			q->pending = me;
			st->phase = lk->holder >= 0 ? Q_PEND_WAIT : Q_PEND_TAKE;
			break;
		case Q_CLEAR_PENDING:
			if (!rt_store(s, t, word, q_clear_pending, lk, 0))
				return LK_WAIT;
			st->phase = Q_NODE;
			break;
		case Q_PEND_WAIT:
			if (!rt_access(s, t, word, COH_LOAD))
				return LK_WAIT;
			if (lk->holder >= 0) {
				lk_count_stat(lk, LKS_SPIN);
				rt_spin(s, t, word);
				return LK_WAIT;
			}
			st->phase = Q_PEND_TAKE;
			break;
		case Q_PEND_TAKE:
			if (!rt_store(s, t, word, q_pending_to_locked, lk, 0))
				return LK_WAIT;
			return LK_DONE;
		case Q_NODE:
			if (!rt_access(s, t, node, COH_STORE))
				return LK_WAIT;
			my->linked = my->seen_next = 0;
			st->granted = 0;
			st->phase = Q_TRY_READ;
			break;
		case Q_TRY_READ:
			if (!rt_access(s, t, word, COH_LOAD))
				return LK_WAIT;
			st->phase = word_is_zero(lk, q) ? Q_TRY_CMPXCHG : Q_XCHG_TAIL;
			break;
		case Q_TRY_CMPXCHG:
			if (!rt_access(s, t, word, COH_RMW))
				return LK_WAIT;
			if (word_is_zero(lk, q)) {
				lk->holder = me;
				return LK_DONE;
			}
			st->phase = Q_XCHG_TAIL;
			break;
		case Q_XCHG_TAIL:
			if (!rt_access(s, t, word, COH_RMW))
				return LK_WAIT;
			my->prev = q->tail;
			q->tail = me;
			lk_wq_push(lk, me, 0);
			st->phase = my->prev >= 0 ? Q_LINK : Q_HEAD_WAIT;
			break;
		case Q_LINK:
			if (!rt_store(s, t, lk_node_line(lk, my->prev), q_link, lk, my->prev))
				return LK_WAIT;
			st->phase = Q_MCS_WAIT;
			break;
		case Q_MCS_WAIT:
			if (!rt_access(s, t, node, COH_LOAD))
				return LK_WAIT;
			if (!st->granted) {
				rt_spin(s, t, node);
				return LK_WAIT;
			}
			st->phase = Q_READ_NEXT;
			break;
		case Q_READ_NEXT:
			if (!rt_access(s, t, node, COH_LOAD))
				return LK_WAIT;
			if (my->linked) {
				my->seen_next = 1;
				rt_prefetch(s, t, lk_node_line(lk, lk_wq_at(lk, 1, NULL)));
			}
			st->phase = Q_HEAD_WAIT;
			break;
		case Q_HEAD_WAIT:
			if (!rt_access(s, t, word, COH_LOAD))
				return LK_WAIT;
			if (lk->holder >= 0 || q->pending >= 0) {
				lk_count_stat(lk, LKS_SPIN);
				rt_spin(s, t, word);
				return LK_WAIT;
			}
			st->phase = q->tail == me ? Q_HEAD_CMPXCHG : Q_SET_LOCKED;
			break;
		case Q_HEAD_CMPXCHG:
			if (!rt_access(s, t, word, COH_RMW))
				return LK_WAIT;
			if (q->tail == me && lk->holder < 0 && q->pending < 0) {
				lk->holder = me;
				q->tail = -1;
				lk_wq_pop(lk);
				return LK_DONE;
			}
			/* a successor joined meanwhile (or a transient pending): set_locked anyway */
			st->phase = Q_SET_LOCKED;
			break;
		case Q_SET_LOCKED:
			/* the lock is ours once this is issued: with the tail set and locked and
			 * pending clear, nobody else takes it */
			if (!rt_store(s, t, word, q_set_locked, lk, 0))
				return LK_WAIT;
			lk_wq_pop(lk);
			st->phase = my->seen_next ? Q_HANDOFF : Q_WAIT_NEXT;
			break;
		case Q_WAIT_NEXT:
			if (!rt_access(s, t, node, COH_LOAD))
				return LK_WAIT;
			if (!my->linked) {
				rt_spin(s, t, node);
				return LK_WAIT;
			}
			st->phase = Q_HANDOFF;
			break;
		default: /* Q_HANDOFF: hand the MCS lock to the next waiter */
			if (!rt_store(s, t, lk_node_line(lk, lk_wq_first(lk, NULL)), q_signal, lk,
				      lk_wq_first(lk, NULL)))
				return LK_WAIT;
			return LK_DONE;
		}
	}
}

const struct lock_design lock_qspinlock = {
    .name = "qspinlock",
    .kind = "spinlock",
    .doc = "queued spinlock (x86 >= 4.2): pending bit + MCS queue",
    .inst_size = sizeof(struct q_state),
    .task_size = sizeof(struct q_task),
    .init = q_init,
    .op = q_op,
};
