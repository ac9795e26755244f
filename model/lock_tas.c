/* SPDX-License-Identifier: MIT */
/*
 * Test-and-set spinlock: a locked read-modify-write tries to take the word;
 * a task that finds it held spins reading the word (shared, in its own
 * cache) until it reads it free, then tries the locked operation again.
 * Unlock is a plain store.  Nothing orders the waiters: whoever's locked
 * operation reaches the line first after the release wins, which favours
 * the CPUs nearest the last owner under local-first arbitration.
 *
 * Two kernels did this on x86:
 *   - 2.6.24 and before, __raw_spin_lock (include/asm-x86/spinlock_32.h,
 *     spinlock_64.h): "lock; decb" on the byte, then "rep; nop" and read it
 *     until positive, then decb again; __raw_spin_unlock stores 1;
 *   - since 4.2, in a guest without paravirt spinlocks, virt_spin_lock
 *     (arch/x86/include/asm/qspinlock.h, 6.6): after queued_spin_lock's
 *     cmpxchg fast path fails, read the word with cpu_relax() until it is
 *     0, then atomic_cmpxchg(0 -> locked), and read again if that failed.
 * Both are the same sequence of line accesses: RMW; reads while held; RMW.
 */
#include "coherence.h"
#include "lock.h"

static void tas_unlock(struct rt *s, void *obj, int task, int arg)
{
	struct lock_inst *lk = obj;

	lk->holder = -1; /* the store of 0 (1 for decb) */
}

static int tas_op(struct rt *s, struct rt_task *t, struct lock_inst *lk)
{
	struct lk_task *st = lk_state(t);

	if (st->what == LK_RELEASE || st->what == LK_DOWNGRADE)
		return rt_store(s, t, lk->line[0], tas_unlock, lk, 0) ? LK_DONE : LK_WAIT;
	for (;;) {
		switch (st->phase) {
		case 0: /* the locked cmpxchg (decb): takes the line exclusive, wins or not */
			if (!rt_access(s, t, lk->line[0], COH_RMW))
				return LK_WAIT;
			lk->version++;
			if (lk->holder < 0) {
				lk->holder = rt_task_id(t);
				return LK_DONE;
			}
			st->first_try = 0;
			st->phase = 1;
			break;
		default: /* read the word until it is free, then try again */
			if (!rt_access(s, t, lk->line[0], COH_LOAD))
				return LK_WAIT;
			if (lk->holder < 0) {
				st->phase = 0;
				break;
			}
			lk_count_stat(lk, LKS_SPIN);
			rt_spin(s, t, lk->line[0]);
			return LK_WAIT;
		}
	}
}

const struct lock_design lock_tas = {
    .name = "tas",
    .kind = "spinlock",
    .doc = "test-and-set spinlock (x86 <= 2.6.24; virt_spin_lock in guests): spin reading, then a locked cmpxchg",
    .op = tas_op,
};
