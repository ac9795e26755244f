/* SPDX-License-Identifier: MIT */
/*
 * Ticket spinlock, x86 before 4.2 (arch_spin_lock): a locked xadd takes a
 * ticket; every waiter spins reading the same word until "head" reaches its
 * ticket; unlock increments head with a plain store.  Each unlock therefore
 * invalidates every waiter, and all of them re-read the line (the herd).
 */
#include "coherence.h"
#include "lock.h"

static void ticket_unlock(struct sim *s, struct lock_inst *lk, int task, int arg)
{
	lk->serving++;
	lk->holder = -1;
}

static int ticket_op(struct sim *s, struct sim_task *t, struct lock_inst *lk)
{
	struct lk_task *st = lk_state(t);

	if (st->what == LK_RELEASE || st->what == LK_DOWNGRADE)
		return lk_store(s, t, lk->line[0], ticket_unlock, lk, 0) ? LK_DONE : LK_WAIT;
	switch (st->phase) {
	case 0: /* xadd on the tail: take a ticket */
		if (!lk_access(s, t, lk->line[0], COH_RMW))
			return LK_WAIT;
		st->ticket = lk->next_ticket++;
		st->phase = 1;
		/* fall through */
	default: /* read head until it is our turn */
		if (!lk_access(s, t, lk->line[0], COH_LOAD))
			return LK_WAIT;
		if (lk->serving == st->ticket) {
			lk->holder = lk_task_id(t);
			return LK_DONE;
		}
		st->first_try = 0;
		lk_count_stat(s, lk, LKS_SPIN);
		lk_spin(s, t, lk->line[0]);
		return LK_WAIT;
	}
}

const struct lock_design lock_ticket = {
    .name = "ticket",
    .kind = "spinlock",
    .doc = "ticket spinlock (x86 <= 4.1): all waiters spin on one word",
    .op = ticket_op,
};
