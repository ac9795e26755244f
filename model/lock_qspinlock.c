/* SPDX-License-Identifier: MIT */
/*
 * Queued spinlock (kernel/locking/qspinlock.c, x86 since 4.2): a cmpxchg
 * fast path; one "pending" waiter spins on the lock word; further waiters
 * queue in an MCS list and spin on their own per-CPU node, so a hand-over
 * costs one transfer of the lock word plus one of the next node.
 */
#include "coherence.h"
#include "lock.h"

/* the pending bit: the task that set it, -1 */
struct q_state {
	int pending;
};

static int q_init(struct lock_inst *lk, const struct lk_setup *su, struct mm_error *err)
{
	((struct q_state *)lk_priv(lk))->pending = -1;
	return 0;
}

static void q_unlock(struct rt *s, void *obj, int task, int arg)
{
	struct lock_inst *lk = obj;

	lk->holder = -1; /* smp_store_release(&lock->locked, 0) */
}

static void q_signal(struct rt *s, void *obj, int task, int next)
{
	lk_state_of(s, next)->granted = 1; /* arch_mcs_spin_unlock_contended() */
}

static int q_op(struct rt *s, struct rt_task *t, struct lock_inst *lk)
{
	struct lk_task *st = lk_state(t);
	struct q_state *q = lk_priv(lk);
	const int me = rt_task_id(t), word = lk->line[0];

	if (st->what == LK_RELEASE || st->what == LK_DOWNGRADE)
		return rt_store(s, t, word, q_unlock, lk, 0) ? LK_DONE : LK_WAIT;
	for (;;) {
		switch (st->phase) {
		case 0: /* queued_spin_lock: cmpxchg 0 -> locked */
			if (!rt_access(s, t, word, COH_RMW))
				return LK_WAIT;
			if (lk->holder < 0 && q->pending < 0 && !lk->wq_len) {
				lk->holder = me;
				return LK_DONE;
			}
			st->first_try = 0;
			if (q->pending < 0 && !lk->wq_len) {
				q->pending = me;
				st->phase = 1;
			} else {
				st->phase = 3;
			}
			break;
		case 1: /* pending: spin on the locked byte */
			if (!rt_access(s, t, word, COH_LOAD))
				return LK_WAIT;
			if (lk->holder >= 0) {
				lk_count_stat(lk, LKS_SPIN);
				rt_spin(s, t, word);
				return LK_WAIT;
			}
			st->phase = 2;
			break;
		case 2: /* clear_pending_set_locked */
			if (!rt_access(s, t, word, COH_RMW))
				return LK_WAIT;
			if (lk->holder >= 0) {
				st->phase = 1;
				break;
			}
			lk->holder = me;
			q->pending = -1;
			return LK_DONE;
		case 3: /* xchg_tail: join the MCS queue */
			if (!rt_access(s, t, word, COH_RMW))
				return LK_WAIT;
			st->granted = 0;
			lk_wq_push(lk, me, 0);
			st->phase = lk->wq_len == 1 ? 5 : 4;
			break;
		case 4: /* spin on our own node until the predecessor hands over */
			if (!rt_access(s, t, lk_node_line(lk, me), COH_LOAD))
				return LK_WAIT;
			if (!st->granted) {
				rt_spin(s, t, lk_node_line(lk, me));
				return LK_WAIT;
			}
			st->phase = 5;
			break;
		case 5: /* queue head: wait for locked and pending to clear */
			if (!rt_access(s, t, word, COH_LOAD))
				return LK_WAIT;
			if (lk->holder >= 0 || q->pending >= 0) {
				lk_count_stat(lk, LKS_SPIN);
				rt_spin(s, t, word);
				return LK_WAIT;
			}
			st->phase = 6;
			break;
		case 6: /* set_locked (or cmpxchg clearing the tail if we are last) */
			if (!rt_access(s, t, word, COH_RMW))
				return LK_WAIT;
			if (lk->holder >= 0 || q->pending >= 0) {
				st->phase = 5;
				break;
			}
			lk->holder = me;
			lk_wq_pop(lk);
			if (!lk->wq_len)
				return LK_DONE;
			st->phase = 7;
			break;
		default: /* hand the MCS lock to the next waiter */
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
    .init = q_init,
    .op = q_op,
};
