/* SPDX-License-Identifier: MIT */
/*
 * Per-VMA lock (6.4+, lock_vma_under_rcu / vma_start_read): a reader takes
 * it with one atomic on the VMA's line (per-VMA rwsem trylock in 6.4-6.14,
 * vm_refcnt increment from 6.15) and drops it with another; a writer
 * (vma_start_write) marks the VMA and waits for the readers to drain.
 * A reader that finds the VMA write-locked fails when its step names a
 * fallback ('lock V read else mm.mmap_lock': lock_vma_under_rcu returns
 * NULL and the fault takes mmap_lock); without one it waits here.
 * A writer that finds readers inside sleeps until the last one leaves and
 * wakes it (6.15+: rcuwait_wait_event on vm_refcnt, woken from
 * vma_refcount_put; 6.4-6.14: down_write on the VMA's rwsem, which a
 * writer does not spin on while readers own it).  The VMA stays marked
 * write-locked meanwhile, so readers that come during the wake-up fail too.
 */
#include "coherence.h"
#include "lock.h"

/* the writer asleep until the readers drain, -1 */
struct vma_state {
	int pending;
};

static int vma_init(struct lock_inst *lk, const struct lk_setup *su, struct mm_error *err)
{
	((struct vma_state *)lk_priv(lk))->pending = -1;
	return 0;
}

static void vma_write_unlock(struct rt *s, void *obj, int task, int arg)
{
	struct lock_inst *lk = obj;

	lk->holder = -1;
	lk->version++;
}

static int vma_op(struct rt *s, struct rt_task *t, struct lock_inst *lk)
{
	struct lk_task *st = lk_state(t);
	struct vma_state *v = lk_priv(lk);
	const int me = rt_task_id(t), line = lk->line[0];

	if (st->what == LK_RELEASE && st->mode == LM_WRITE)
		return rt_store(s, t, line, vma_write_unlock, lk, 0) ? LK_DONE : LK_WAIT;
	if (st->what == LK_RELEASE || st->what == LK_DOWNGRADE) {
		if (!rt_access(s, t, line, COH_RMW))
			return LK_WAIT;
		if (st->what == LK_DOWNGRADE) {
			lk->holder = -1;
			lk->nreaders++;
		} else if (--lk->nreaders == 0 && v->pending >= 0) {
			/* the last reader out wakes the writer waiting for the drain */
			int w = v->pending;

			v->pending = -1;
			lk_count_stat(lk, LKS_WAKE);
			rt_wake_nth(s, t, w, 0);
		}
		lk->version++;
		return LK_DONE;
	}
	for (;;) {
		switch (st->phase) {
		case 0: /* refcount / trylock */
			if (!rt_access(s, t, line, COH_RMW))
				return LK_WAIT;
			if (lk->holder < 0) {
				if (st->mode == LM_READ) {
					lk->nreaders++;
					lk->version++;
					return LK_DONE;
				}
				lk->holder = me;
				lk->version++;
				st->phase = 2;
				break;
			}
			if (st->mode == LM_READ && st->may_fail)
				return LK_FAILED;
			st->first_try = 0;
			st->phase = 1;
			break;
		case 1: /* write-locked: wait for it to end */
			if (!rt_access(s, t, line, COH_LOAD))
				return LK_WAIT;
			if (lk->holder >= 0) {
				lk_count_stat(lk, LKS_SPIN);
				rt_spin(s, t, line);
				return LK_WAIT;
			}
			st->phase = 0;
			break;
		default: /* writer: wait for the readers to drain, asleep */
			if (!rt_access(s, t, line, COH_LOAD))
				return LK_WAIT;
			if (lk->nreaders) {
				st->first_try = 0;
				v->pending = me;
				lk_count_stat(lk, LKS_SLEEP);
				rt_sleep(s, t);
				return LK_WAIT;
			}
			return LK_DONE;
		}
	}
}

const struct lock_design lock_vma = {
    .name = "vma_lock",
    .kind = "vma_lock",
    .doc = "per-VMA lock (6.4+): one atomic per reader, writers wait for readers to drain",
    .caps = LK_CAP_SHARED,
    .inst_size = sizeof(struct vma_state),
    .init = vma_init,
    .op = vma_op,
};
