/* SPDX-License-Identifier: MIT */
#include "lock.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What a scenario can declare.  A spinlock's design is the kernel profile's choice; the
 * others have one design each. */
const struct lock_kind lock_kinds[] = {
    {"spinlock", 0, "spinlock", NULL, "spinlock_t: exclusive, waiters spin"},
    {"rwsem", LK_CAP_SHARED | LK_CAP_DOWNGRADE | LK_CAP_SLEEPS, NULL, "rwsem",
     "rw_semaphore: readers share, waiters spin or sleep"},
    {"percpu_rwsem", LK_CAP_SHARED | LK_CAP_SLEEPS, NULL, "percpu_rwsem",
     "percpu_rw_semaphore: per-CPU reader counts, writers wait for their sum"},
    {"vma_lock", LK_CAP_SHARED | LK_CAP_MAY_FAIL, NULL, "vma_lock",
     "per-VMA lock: a reader that finds it write-locked may fall back"},
    {NULL, 0, NULL, NULL, NULL},
};

/*
 * Every lock design, one line each: X(NAME) for the struct lock_design lock_NAME that
 * model/lock_NAME.c defines.  Listings, the kernel profile's check and the contract and
 * known-answer tests iterate lock_designs[].
 */
#define LOCK_DESIGNS(X) \
	X(ticket)       \
	X(qspinlock)    \
	X(tas)          \
	X(rwsem)        \
	X(percpu_rwsem) \
	X(vma)

#define DECLARE(name) extern const struct lock_design lock_##name;
#define ENTRY(name) &lock_##name,
LOCK_DESIGNS(DECLARE)
const struct lock_design *const lock_designs[] = {LOCK_DESIGNS(ENTRY) NULL};

const struct lock_kind *lock_kind_find(const char *name)
{
	for (int i = 0; lock_kinds[i].name; i++)
		if (!strcmp(lock_kinds[i].name, name))
			return &lock_kinds[i];
	return NULL;
}

const char *lock_kind_list(unsigned caps, char *buf, size_t cap)
{
	int n = 0, k = 0;
	size_t len = 0;

	for (int i = 0; lock_kinds[i].name; i++)
		n += (lock_kinds[i].caps & caps) == caps;
	buf[0] = 0;
	for (int i = 0; lock_kinds[i].name && len < cap; i++)
		if ((lock_kinds[i].caps & caps) == caps) {
			len += (size_t)snprintf(buf + len, cap - len, "%s%s",
						k == 0	     ? ""
						: k == n - 1 ? " or "
							     : ", ",
						lock_kinds[i].name);
			k++;
		}
	return buf;
}

const struct lock_design *lock_design_find(const char *name)
{
	for (int i = 0; lock_designs[i]; i++)
		if (!strcmp(lock_designs[i]->name, name))
			return lock_designs[i];
	return NULL;
}

/* The value of [kernel] @key, or NULL. */
static const struct prof_entry *kernel_key(const struct kernel_profile *k, const char *key)
{
	return k->p ? profile_find(k->p, "kernel", key) : NULL;
}

const struct lock_design *lock_design_for(const struct lock_kind *kind, const struct kernel_profile *k)
{
	const struct lock_design *d;
	const struct prof_entry *e;

	if (!kind->profile_key)
		return lock_design_find(kind->design);
	e = kernel_key(k, kind->profile_key);
	d = e ? lock_design_find(e->value) : NULL;
	return d && !strcmp(d->kind, kind->name) ? d : NULL;
}

static const struct lk_key *key_find(const struct lock_design *d, const char *name)
{
	for (const struct lk_key *key = d->keys; key && key->name; key++)
		if (!strcmp(key->name, name))
			return key;
	return NULL;
}

double lk_key_value(const struct kernel_profile *k, const struct lock_design *d, const char *name, double preset)
{
	const struct prof_entry *e = k->p && d->section ? profile_find(k->p, d->section, name) : NULL;

	return e && e->is_num ? e->num : preset;
}

/* @s appended to the list in @buf (@len bytes so far), after @sep unless the list is empty. */
static size_t list_add(char *buf, size_t cap, size_t len, const char *sep, const char *s)
{
	if (len < cap)
		len += (size_t)snprintf(buf + len, cap - len, "%s%s", len ? sep : "", s);
	return len;
}

/* [SECTION] NAME = VALUE of a section the profile reader does not know: a design's key. */
static int check_design_key(const struct kernel_profile *k, const struct prof_entry *e, struct mm_error *err)
{
	char list[512] = "";
	size_t len = 0;

	for (int i = 0; lock_designs[i]; i++) {
		const struct lock_design *d = lock_designs[i];
		const struct lk_key *key;

		if (!d->section)
			continue;
		if (strcmp(d->section, e->section)) {
			len = list_add(list, sizeof(list), len, ", ", d->section);
			continue;
		}
		if (!(key = key_find(d, e->key))) {
			const char *names[32];
			char dym[96];
			int n = 0;

			len = 0;
			for (key = d->keys; key && key->name; key++) {
				len = list_add(list, sizeof(list), len, " ", key->name);
				if (n < 32)
					names[n++] = key->name;
			}
			return mm_fail(err, MM_EPARSE,
				       "%s:%d:%d: [%s] key '%s' is not a key of the %s design (its keys: %s)%s",
				       k->p->path, e->line, e->col, e->section, e->key, d->name, list,
				       profile_did_you_mean(dym, sizeof(dym), e->key, names, n));
		}
		if (!e->is_num || e->num < key->lo || e->num > key->hi || (key->whole && e->num != floor(e->num)))
			return mm_fail(err, MM_EPARSE, "%s:%d: [%s] %s = '%s': expected %s from %g to %g (%s)",
				       k->p->path, e->line, e->section, e->key, e->value,
				       key->whole ? "a whole number" : "a number", key->lo, key->hi, key->doc);
		return 0;
	}
	{
		const char *names[16] = {"kernel", "layout", "batch", "costs", "misses"};
		char dym[96];
		int n = 5;

		for (int i = 0; lock_designs[i] && n < 16; i++)
			if (lock_designs[i]->section)
				names[n++] = lock_designs[i]->section;
		return mm_fail(err, MM_EPARSE, "%s:%d: unknown section [%s] (expected %s%s%s)%s", k->p->path, e->line,
			       e->section, KERNEL_SECTIONS, len ? ", " : "", list,
			       profile_did_you_mean(dym, sizeof(dym), e->section, names, n));
	}
}

int lock_check_kernel(const struct kernel_profile *k, struct mm_error *err)
{
	int rc;

	for (int i = 0; k->p && i < k->p->nentries; i++)
		if (!kernel_section_known(k->p->e[i].section) && (rc = check_design_key(k, &k->p->e[i], err)))
			return rc;
	for (int i = 0; lock_kinds[i].name; i++) {
		const struct lock_kind *kind = &lock_kinds[i];
		const struct prof_entry *e;
		char list[256] = "";
		size_t len = 0;

		if (!kind->profile_key || lock_design_for(kind, k))
			continue;
		for (int d = 0; lock_designs[d]; d++)
			if (!strcmp(lock_designs[d]->kind, kind->name))
				len = list_add(list, sizeof(list), len, " ", lock_designs[d]->name);
		e = kernel_key(k, kind->profile_key);
		if (!e)
			return mm_fail(err, MM_EPARSE, "%s: [kernel] has no '%s' (the design of a %s: one of: %s)",
				       k->p ? k->p->path : k->name, kind->profile_key, kind->name, list);
		return mm_fail(err, MM_EPARSE, "%s:%d: [kernel] %s = '%s': expected one of: %s", k->p->path, e->line,
			       kind->profile_key, e->value, list);
	}
	return 0;
}

int lock_inst_init(struct lock_inst *lk, const struct lock_design *d, const struct lk_setup *su, struct mm_error *err)
{
	lk->d = d;
	lk->holder = -1;
	lk->wq_cap = su->ntasks;
	lk->wq = malloc(su->ntasks * sizeof(int));
	lk->wq_mode = malloc(su->ntasks * sizeof(int));
	lk->priv = d->inst_size ? calloc(1, d->inst_size) : NULL;
	if (!lk->wq || !lk->wq_mode || (d->inst_size && !lk->priv))
		return mm_fail(err, MM_ENOMEM, "out of memory for locks");
	return d->init ? d->init(lk, su, err) : 0;
}

void lock_inst_free(struct lock_inst *lk)
{
	if (lk->d && lk->d->fini)
		lk->d->fini(lk);
	free(lk->wq);
	free(lk->wq_mode);
	free(lk->priv);
}

void lk_task_begin(struct lk_task *st, struct lock_inst *lk, enum lk_what what, enum lock_mode mode, sim_time_t now)
{
	void *priv = st->priv;

	memset(st, 0, sizeof(*st));
	st->priv = priv;
	if (lk->d->task_size)
		memset(priv, 0, lk->d->task_size);
	st->lk = lk;
	st->what = what;
	st->mode = mode;
	st->first_try = 1;
	st->since = st->begun = now;
}

int lk_nested_op(struct rt *s, struct rt_task *t, struct lk_task *inner)
{
	struct lk_task *outer = lk_state(t);
	int rc;

	outer->nest = inner;
	t->lk = inner;
	rc = inner->lk->d->op(s, t, inner->lk);
	t->lk = outer;
	if (rc != LK_WAIT)
		outer->nest = NULL;
	return rc;
}

void lk_count_stat(struct lock_inst *lk, int what)
{
	struct sim_lock_stats *st = lk->st;

	switch (what) {
	case LKS_SLEEP:
		st->sleeps++;
		break;
	case LKS_WAKE:
		st->wakeups++;
		break;
	case LKS_READ_WAKE:
		st->read_wakeups++;
		break;
	case LKS_READ_BATCH:
		st->read_batches++;
		break;
	case LKS_HANDOFF:
		st->handoffs++;
		break;
	default:
		st->spins++;
		break;
	}
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
