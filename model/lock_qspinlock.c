/* SPDX-License-Identifier: MIT */
/*
 * Queued spinlock (kernel/locking/qspinlock.c, x86 since 4.2): a cmpxchg
 * fast path; one "pending" waiter spins on the lock word; further waiters
 * queue in an MCS list and spin on their own per-CPU node, so a hand-over
 * costs one transfer of the lock word plus one of the next node.
 */
#include "coherence.h"
#include "lock.h"

static void q_unlock(struct sim *s, struct lock_inst *lk, int task, int arg)
{
	lk->holder = -1; /* smp_store_release(&lock->locked, 0) */
}

static void q_signal(struct sim *s, struct lock_inst *lk, int task, int next)
{
	lk_state_of(s, next)->granted = 1; /* arch_mcs_spin_unlock_contended() */
}

static int q_op(struct sim *s, struct sim_task *t, struct lock_inst *lk)
{
	struct lk_task *st = lk_state(t);
	const int me = lk_task_id(t), word = lk->line[0];

	if (st->what == LK_RELEASE || st->what == LK_DOWNGRADE)
		return lk_store(s, t, word, q_unlock, lk, 0) ? LK_DONE : LK_WAIT;
	for (;;) {
		switch (st->phase) {
		case 0: /* queued_spin_lock: cmpxchg 0 -> locked */
			if (!lk_access(s, t, word, COH_RMW))
				return LK_WAIT;
			if (lk->holder < 0 && lk->pending < 0 && !lk->wq_len) {
				lk->holder = me;
				return LK_DONE;
			}
			st->first_try = 0;
			if (lk->pending < 0 && !lk->wq_len) {
				lk->pending = me;
				st->phase = 1;
			} else {
				st->phase = 3;
			}
			break;
		case 1: /* pending: spin on the locked byte */
			if (!lk_access(s, t, word, COH_LOAD))
				return LK_WAIT;
			if (lk->holder >= 0) {
				lk_count_stat(s, lk, LKS_SPIN);
				lk_spin(s, t, word);
				return LK_WAIT;
			}
			st->phase = 2;
			break;
		case 2: /* clear_pending_set_locked */
			if (!lk_access(s, t, word, COH_RMW))
				return LK_WAIT;
			if (lk->holder >= 0) {
				st->phase = 1;
				break;
			}
			lk->holder = me;
			lk->pending = -1;
			return LK_DONE;
		case 3: /* xchg_tail: join the MCS queue */
			if (!lk_access(s, t, word, COH_RMW))
				return LK_WAIT;
			st->granted = 0;
			lk_wq_push(lk, me, 0);
			st->phase = lk->wq_len == 1 ? 5 : 4;
			break;
		case 4: /* spin on our own node until the predecessor hands over */
			if (!lk_access(s, t, lk_node_line(s, me), COH_LOAD))
				return LK_WAIT;
			if (!st->granted) {
				lk_spin(s, t, lk_node_line(s, me));
				return LK_WAIT;
			}
			st->phase = 5;
			break;
		case 5: /* queue head: wait for locked and pending to clear */
			if (!lk_access(s, t, word, COH_LOAD))
				return LK_WAIT;
			if (lk->holder >= 0 || lk->pending >= 0) {
				lk_count_stat(s, lk, LKS_SPIN);
				lk_spin(s, t, word);
				return LK_WAIT;
			}
			st->phase = 6;
			break;
		case 6: /* set_locked (or cmpxchg clearing the tail if we are last) */
			if (!lk_access(s, t, word, COH_RMW))
				return LK_WAIT;
			if (lk->holder >= 0 || lk->pending >= 0) {
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
			if (!lk_store(s, t, lk_node_line(s, lk_wq_first(lk, NULL)), q_signal, lk,
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
    .op = q_op,
};
