/* SPDX-License-Identifier: MIT */
/* System-call cost and futex wake-up latency. */
#include "measure.h"

#include <errno.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int ms_measure_syscall(struct ms_ctx *c)
{
	enum { OPS = 1000 };
	int max = c->quick ? 50 : 500, n;
	double *v = malloc((size_t)max * sizeof(*v));
	struct ms_budget b;

	if (!v)
		return -ENOMEM;
	ms_budget_init(&b, c, max, c->quick ? 0.05 : 0.3);
	for (n = 0; ms_budget_more(&b, n); n++) {
		uint64_t t0 = ms_now_ns(), t1;

		for (int i = 0; i < OPS; i++)
			syscall(SYS_getppid);
		t1 = ms_now_ns();
		v[n] = ms_per_op(c, t0, t1, OPS);
	}
	n = ms_add(c, "syscall", "ns", v, n, "syscall(SYS_getppid) %d times in a row (no libc caching); per call", OPS)
		? 0
		: -ENOSPC;
	free(v);
	return n;
}

/* ---- futex wake-up: two threads wake each other in turn --------------------------- */

#define FX_STOP 0xffffffffu

struct fx_shared {
	_Alignas(MS_LINE) atomic_uint word[2];	/* thread i sleeps on word[i] */
	_Alignas(MS_LINE) uint64_t woken_at[2]; /* when word[i] was last set, just before FUTEX_WAKE */
	_Alignas(MS_LINE) uint64_t deadline;
	int max;
};

struct fx_thread {
	struct fx_shared *sh;
	struct ms_ctx *c;
	int me;
	int n;
	double *v;
};

static long fx_futex(atomic_uint *w, int op, unsigned int val)
{
	return syscall(SYS_futex, (unsigned int *)w, op, val, NULL, NULL, 0);
}

static void fx_wake(struct fx_shared *sh, int who, unsigned int val)
{
	sh->woken_at[who] = ms_now_ns();
	atomic_store_explicit(&sh->word[who], val, memory_order_release);
	fx_futex(&sh->word[who], FUTEX_WAKE_PRIVATE, 1);
}

/* Sleep until word[me] is @want (or FX_STOP); 1 if this thread really slept and was woken. */
static int fx_wait(struct fx_shared *sh, int me, unsigned int want, unsigned int *seen)
{
	int slept = 0;
	unsigned int v;

	while ((v = atomic_load_explicit(&sh->word[me], memory_order_acquire)) != want && v != FX_STOP)
		slept = fx_futex(&sh->word[me], FUTEX_WAIT_PRIVATE, v) == 0;
	*seen = v;
	return slept;
}

static void *fx_run(void *arg)
{
	struct fx_thread *t = arg;
	struct fx_shared *sh = t->sh;
	int other = 1 - t->me;

	for (unsigned int k = 1;; k++) {
		unsigned int seen;

		if (t->me == 0) {
			/* thread 0 starts each round, and ends the run */
			if (k > (unsigned int)sh->max || (k > 5 && ms_now_ns() > sh->deadline)) {
				fx_wake(sh, other, FX_STOP);
				return NULL;
			}
			fx_wake(sh, other, k);
		}
		if (fx_wait(sh, t->me, k, &seen)) {
			uint64_t now = ms_now_ns();

			if (seen == k && t->n < sh->max)
				t->v[t->n++] = ms_per_op(t->c, sh->woken_at[t->me], now, 1);
		}
		if (seen == FX_STOP)
			return NULL;
		if (t->me == 1)
			fx_wake(sh, other, k);
	}
}

int ms_measure_futex(struct ms_ctx *c)
{
	int partner = -1, rc = 0;
	struct fx_shared *sh = aligned_alloc(MS_LINE, sizeof(*sh));
	struct fx_thread t[2];
	struct ms_thread th[2];
	double *v;

	/* the nearest other CPU: an idle one, as when a lock holder wakes a waiter elsewhere */
	for (int d = TOPO_SMT; d < TOPO_NDIST && partner < 0; d++)
		partner = ms_cpu_at(c, d);
	if (partner < 0)
		partner = 0;
	if (!sh)
		return -ENOMEM;
	memset(sh, 0, sizeof(*sh));
	sh->max = c->quick ? 200 : 3000;
	sh->deadline = ms_now_ns() + (uint64_t)((c->quick ? 0.1 : 0.8) * 1e9);
	v = malloc(2 * (size_t)sh->max * sizeof(*v));
	if (!v) {
		free(sh);
		return -ENOMEM;
	}
	for (int i = 0; i < 2; i++)
		t[i] = (struct fx_thread){.sh = sh, .c = c, .me = i, .v = v + (size_t)i * sh->max};
	/* thread 1 first: it must be waiting when thread 0 starts the first round */
	rc = ms_spawn(&th[1], c, partner, fx_run, &t[1]);
	if (!rc) {
		rc = ms_spawn(&th[0], c, 0, fx_run, &t[0]);
		if (rc) {
			atomic_store(&sh->word[1], FX_STOP);
			fx_futex(&sh->word[1], FUTEX_WAKE_PRIVATE, 1);
		} else {
			ms_join(&th[0]);
		}
		ms_join(&th[1]);
	}
	if (!rc) {
		memmove(v + t[0].n, t[1].v, (size_t)t[1].n * sizeof(*v));
		if (!ms_add(c, "futex_wakeup", "ns", v, t[0].n + t[1].n,
			    "two threads on CPUs %d and %d wake each other in turn; clock read just before "
			    "FUTEX_WAKE to the woken thread running; only waits that really slept count",
			    c->topo.cpu[0].os_index, c->topo.cpu[partner].os_index))
			rc = -ENOSPC;
	}
	free(v);
	free(sh);
	return rc;
}
