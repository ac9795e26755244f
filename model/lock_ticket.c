/* SPDX-License-Identifier: MIT */
/*
 * Ticket spinlock, x86 before 4.2 (arch_spin_lock): a locked xadd takes a
 * ticket; every waiter spins reading the same word until "head" reaches its
 * ticket; unlock increments head with a plain store.  Each unlock therefore
 * invalidates every waiter, and all of them re-read the line (the herd).
 */
#include "coherence.h"
#include "lock.h"

/* arch_spinlock_t: the two halves of the ticket word */
struct ticket_state {
	int64_t next_ticket, serving; /* tail, head */
};

/* the ticket this task drew */
struct ticket_task {
	int64_t ticket;
};

static void ticket_unlock(struct rt *s, void *obj, int task, int arg)
{
	struct lock_inst *lk = obj;
	struct ticket_state *tk = lk_priv(lk);

	tk->serving++;
	lk->holder = -1;
}

static int ticket_op(struct rt *s, struct rt_task *t, struct lock_inst *lk)
{
	struct lk_task *st = lk_state(t);
	struct ticket_state *tk = lk_priv(lk);
	struct ticket_task *my = st->priv;

	if (st->what == LK_RELEASE || st->what == LK_DOWNGRADE)
		return rt_store(s, t, lk->line[0], ticket_unlock, lk, 0) ? LK_DONE : LK_WAIT;
	switch (st->phase) {
	case 0: /* xadd on the tail: take a ticket */
		if (!rt_access(s, t, lk->line[0], COH_RMW))
			return LK_WAIT;
		my->ticket = tk->next_ticket++;
		st->phase = 1;
		/* fall through */
	default: /* read head until it is our turn */
		if (!rt_access(s, t, lk->line[0], COH_LOAD))
			return LK_WAIT;
		if (tk->serving == my->ticket) {
			lk->holder = rt_task_id(t);
			return LK_DONE;
		}
		st->first_try = 0;
		lk_count_stat(lk, LKS_SPIN);
		rt_spin(s, t, lk->line[0]);
		return LK_WAIT;
	}
}

const struct lock_design lock_ticket = {
    .name = "ticket",
    .kind = "spinlock",
    .doc = "ticket spinlock (x86 <= 4.1): all waiters spin on one word",
    .inst_size = sizeof(struct ticket_state),
    .task_size = sizeof(struct ticket_task),
    .op = ticket_op,
};
