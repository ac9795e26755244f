/* SPDX-License-Identifier: MIT */
#include "lock.h"

#include <string.h>

/* Every lock design; listings and the contract tests iterate this table. */
const struct lock_design *const lock_designs[] = {
    &lock_ticket, &lock_qspinlock, &lock_rwsem, &lock_vma, NULL,
};

const struct lock_design *lock_design_find(const char *name)
{
	for (int i = 0; lock_designs[i]; i++)
		if (!strcmp(lock_designs[i]->name, name))
			return lock_designs[i];
	return NULL;
}

void lk_wq_push(struct lock_inst *lk, int task, int mode)
{
	int pos = (lk->wq_head + lk->wq_len) % lk->wq_cap;

	lk->wq[pos] = task;
	lk->wq_mode[pos] = mode;
	lk->wq_len++;
}

int lk_wq_at(const struct lock_inst *lk, int i, int *mode)
{
	int pos;

	if (i >= lk->wq_len)
		return -1;
	pos = (lk->wq_head + i) % lk->wq_cap;
	if (mode)
		*mode = lk->wq_mode[pos];
	return lk->wq[pos];
}

int lk_wq_first(const struct lock_inst *lk, int *mode)
{
	return lk_wq_at(lk, 0, mode);
}

int lk_wq_pop(struct lock_inst *lk)
{
	int task;

	if (!lk->wq_len)
		return -1;
	task = lk->wq[lk->wq_head];
	lk->wq_head = (lk->wq_head + 1) % lk->wq_cap;
	lk->wq_len--;
	return task;
}
