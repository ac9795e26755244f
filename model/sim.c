/* SPDX-License-Identifier: MIT */
/*
 * The simulation: tasks interpreting a scenario program on a machine of
 * cache lines.  A task runs through private steps, adding up their time,
 * until it needs a shared line; only then is an event scheduled, at the
 * time the access really happens.  So a run of private steps between two
 * shared accesses costs one event.
 */
#include "sim.h"
#include "coherence.h"
#include "lock.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { EV_RESUME = 1, EV_GRANT, EV_LINE_FREE, EV_WAKE, EV_SPIN_TIMEOUT, EV_REFETCH };
enum tstate { T_RUN = 0, T_WAIT_LINE, T_WAIT_STORE, T_SPIN, T_SLEEP, T_DONE };

struct sim_line {
	struct coh_line c;
	int private_task; /* >= 0: no other task ever touches it */
	int spin_head;	  /* first task spinning on it, -1 */
	int stat;	  /* line-name statistics slot */
	int64_t busy_ps;  /* time it spent serving grants that moved it (grants to several readers overlap) */
};

#define LOOP_DEPTH 16

struct sim_task {
	int id, cpu, state;
	int pc;
	sim_time_t delay;    /* private time spent but not yet simulated */
	double ps_per_cycle; /* at the frequency of the busy cores, the sibling idle */
	int sibling;	     /* the task on the other hardware thread of its core, -1 */
	int access_done;     /* the blocking access being retried has completed */
	int ps_line;	     /* line of the store in flight (posted), -1 */
	int pf_line;	     /* line of the prefetchw in flight, -1 */
	lk_apply_fn ps_apply;
	struct lock_inst *ps_lk;
	int ps_arg;
	int spin_line, spin_next, spin_gen;
	int in_lock;
	struct lk_task lk;
	int fb_obj;		 /* a lock step fell back: its object, whose unlock releases fb_lk; -1 */
	struct lock_inst *fb_lk; /* the fallback lock held in its place */
	int lsp;
	struct {
		int pc;
		int64_t left, iter;
	} loop[LOOP_DEPTH];
	int64_t *every;
	double ops, units;
	sim_time_t sleep_total, sleep_since;
	sim_time_t done_at;
	sim_time_t mark;  /* when its previous step ended */
	int wake_pending; /* an EV_WAKE is on its way */
	/* memory bandwidth: the share of its awake time the task spends streaming */
	int node;
	int bw_on;	 /* counted in its node's sum of streaming fractions */
	double mem_ps;	 /* time spent streaming */
	double mem_f;	 /* its streaming fraction, as last counted */
	sim_time_t debt; /* IPI handlers run on its CPU, not yet charged */
	double cold;	 /* the share of its 'miss' accesses that go to DRAM (cold_fraction) */
};

/* A set of objects sharing one cache line name, with its scope. */
struct line_group {
	char name[SC_NAME];
	enum sc_scope scope;
	int count;
	int base, ninst;
};

struct sim {
	const struct sim_config *cfg;
	const struct program *prog;
	const struct scenario *sc;
	struct engine eng;
	struct coh_model coh;
	int ntasks;
	struct sim_task *task;
	int *task_of_cpu;
	int nlines;
	struct sim_line *line;
	uint64_t *bits;
	struct coh_req *req;
	int32_t *picked;
	int ngroups;
	struct line_group *group;
	int *obj_group;	   /* field object -> group; lock object -> group of line[0] */
	int *obj_group2;   /* lock object -> group of line[1] */
	int *obj_lockbase; /* lock object -> first lock_inst */
	int nlocks;
	struct lock_inst *lock;
	int node_base; /* qspinlock MCS node lines: node_base + task */
	int64_t hit_ps, atomic_ps, pause_ps, wakeup_ps;
	double jitter;
	uint64_t rng;
	int ndone;
	int failed;
	/* per program step: time spent in it and visits (Little's law estimator) */
	double *step_ps, *step_n; /* in the measurement window */
	double *step_ps_all, *step_n_all;
	uint64_t visits;    /* step visits interpreted: the work measure besides events */
	uint64_t work_cap;  /* events + visits past which the run is stopped (a wrong estimate) */
	double *iter_units; /* per REPEAT step: units of one iteration (iter_units()), else 0 */
	uint64_t ops_done;  /* operations completed by all tasks */
	sim_time_t win_t0;  /* start of the measurement window (0 before) */
	int measuring;
	double *step_sleep; /* per step: time asleep in it, in the window */
	double *bw_sum;	    /* per node: streaming fractions of its awake tasks */
	double *bw_bytes;   /* per node: bytes streamed in the window */
	double *line_t0;    /* per line: busy time at the window's start */
	struct mm_error *err;
	struct sim_result *res;
};

static void run_task(struct sim *s, struct sim_task *t);

/* ---- small helpers ------------------------------------------------------ */

static uint64_t splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void schedule(struct sim *s, sim_time_t at, int kind, int a, int64_t b)
{
	if (engine_schedule(&s->eng, at, kind, a, b) && !s->failed)
		s->failed =
		    mm_fail(s->err, MM_ENOMEM, "cannot schedule an event (out of memory, or a time in the past)");
}

static void schedule_resume(struct sim *s, struct sim_task *t)
{
	schedule(s, s->eng.now + t->delay, EV_RESUME, t->id, 0);
	t->delay = 0;
}

static int scope_ninst(const struct sim *s, enum sc_scope sc)
{
	switch (sc) {
	case SC_GLOBAL:
	case SC_MEMCG:
		return 1;
	case SC_NODE:
		return s->cfg->topo->nnuma;
	case SC_CPU:
		return s->cfg->topo->ncpus;
	case SC_MM:
		return s->cfg->mode == SC_THREADS ? 1 : s->ntasks;
	default:
		return s->ntasks;
	}
}

static int scope_inst(const struct sim *s, enum sc_scope sc, const struct sim_task *t)
{
	switch (sc) {
	case SC_GLOBAL:
	case SC_MEMCG:
		return 0;
	case SC_NODE:
		return s->cfg->topo->cpu[t->cpu].numa;
	case SC_CPU:
		return t->cpu;
	case SC_MM:
		return s->cfg->mode == SC_THREADS ? 0 : t->id;
	default:
		return t->id;
	}
}

/* Home node of instance @inst, and the task it is private to (-1: shared). */
static void scope_home(const struct sim *s, enum sc_scope sc, int inst, int *home, int *priv)
{
	const struct topology *topo = s->cfg->topo;

	*priv = -1;
	switch (sc) {
	case SC_GLOBAL:
	case SC_MEMCG:
		*home = topo->cpu[s->task[0].cpu].numa;
		break;
	case SC_NODE:
		*home = inst;
		break;
	case SC_CPU:
		*home = topo->cpu[inst].numa;
		*priv = s->task_of_cpu[inst];
		break;
	case SC_MM:
		if (s->cfg->mode == SC_THREADS) {
			*home = topo->cpu[s->task[0].cpu].numa; /* the main thread allocated the mm */
			break;
		}
		/* one mm per process */
		__attribute__((fallthrough));
	default:
		*home = topo->cpu[s->task[inst].cpu].numa;
		*priv = inst;
		break;
	}
}

static int index_of(const struct sim_task *t, const struct prog_insn *in, int count)
{
	int64_t i = t->lsp ? t->loop[t->lsp - 1].iter : 0;

	return in->idx_div ? (int)((i / in->idx_div) % count) : 0;
}

static int field_line(const struct sim *s, const struct sim_task *t, const struct prog_insn *in)
{
	const struct line_group *g = &s->group[s->obj_group[in->obj]];

	return g->base + scope_inst(s, g->scope, t) * g->count + index_of(t, in, g->count);
}

static struct lock_inst *lock_of(const struct sim *s, const struct sim_task *t, const struct prog_insn *in)
{
	const struct sc_object *o = &s->sc->obj[in->obj];

	return &s->lock[s->obj_lockbase[in->obj] + scope_inst(s, o->scope, t) * o->count + index_of(t, in, o->count)];
}

/* ---- lines -------------------------------------------------------------- */

/* Each task has three request slots: a blocking access, a posted store, a prefetch. */
enum { RQ_ACCESS = 0, RQ_STORE, RQ_PREFETCH, RQ_SLOTS };
#define RQ(task, slot) (RQ_SLOTS * (task) + (slot))

static void service(struct sim *s, int li);

/* Queues @t's request for line @li in @slot; 0, or -1 (s->failed set) when out of memory. */
static int enqueue(struct sim *s, const struct sim_task *t, int li, int slot, int op)
{
	struct coh_req *r = &s->req[RQ(t->id, slot)];

	r->task = t->id;
	r->cpu = t->cpu;
	r->op = op;
	r->extra_ps = 0;
	if (!coh_enqueue(&s->line[li].c, s->req, RQ(t->id, slot)))
		return 0;
	if (!s->failed)
		s->failed = mm_fail(s->err, MM_ENOMEM, "out of memory for line queues");
	return -1;
}

/* A spinner re-reads the line it was spinning on. */
static void refetch(struct sim *s, struct sim_task *st, int li)
{
	enqueue(s, st, li, RQ_ACCESS, COH_LOAD);
}

static void invalidate_spinners(struct sim *s, struct sim_line *l, int except_task)
{
	int u = l->spin_head, keep = -1;

	l->spin_head = -1;
	while (u >= 0) {
		struct sim_task *st = &s->task[u];
		int next = st->spin_next;

		if (u == except_task) {
			st->spin_next = keep;
			keep = u;
		} else {
			/* it sees the invalidation and re-reads the line after a pause; the line
			 * is not held meanwhile */
			st->state = T_WAIT_LINE;
			st->spin_line = -1;
			st->spin_gen++;
			if (s->pause_ps > 0)
				schedule(s, s->eng.now + s->pause_ps, EV_REFETCH, u, l - s->line);
			else
				refetch(s, st, (int)(l - s->line));
		}
		u = next;
	}
	l->spin_head = keep;
}

static void service(struct sim *s, int li)
{
	struct sim_line *l = &s->line[li];
	sim_time_t now = s->eng.now, longest = 0;
	int n, moved = 0;

	if (l->c.busy || !l->c.qlen)
		return;
	n = coh_pick(&s->coh, &l->c, s->req, s->picked, RQ_SLOTS * s->ntasks);
	/* costs against the state before the grant, then the new state */
	for (int i = 0; i < n; i++) {
		struct coh_req *r = &s->req[s->picked[i]];
		sim_time_t c = coh_cost_ps(&s->coh, &l->c, r->cpu, r->op) + r->extra_ps;

		r->extra_ps = c; /* reused to carry the cost to the loop below */
	}
	for (int i = 0; i < n; i++) {
		struct coh_req *r = &s->req[s->picked[i]];
		sim_time_t c = r->extra_ps;

		if (!coh_holds(&s->coh, &l->c, r->cpu, r->op)) {
			l->c.transfers++;
			l->c.transfer_ps += c;
			moved = 1;
		}
		coh_apply(&s->coh, &l->c, r->cpu, r->op);
		if (coh_exclusive(r->op) && l->spin_head >= 0)
			invalidate_spinners(s, l, r->task);
		r->extra_ps = 0;
		schedule(s, now + c, EV_GRANT, s->picked[i], 0);
		/* a locked operation keeps the line until it has completed (cache locking);
		 * the extra picosecond lets the grantee's next instruction see it first */
		c += (r->op == COH_RMW ? s->atomic_ps : 0) + 1;
		if (c > longest)
			longest = c;
	}
	l->c.busy = 1;
	if (moved)
		l->busy_ps += longest;
	schedule(s, now + longest, EV_LINE_FREE, li, 0);
}

static int64_t hit_cost(const struct sim *s, int op)
{
	return op == COH_RMW ? s->hit_ps + s->atomic_ps : s->hit_ps;
}

static int wait_store(struct sim *s, struct sim_task *t)
{
	if (t->delay > 0)
		schedule_resume(s, t);
	else
		t->state = T_WAIT_STORE;
	return 0;
}

/* A blocking access: 1 when done (its time added to t->delay), 0 to wait. */
static int do_access(struct sim *s, struct sim_task *t, int li, int op)
{
	struct sim_line *l = &s->line[li];

	if (t->access_done) {
		t->access_done = 0;
		if (op == COH_RMW)
			t->delay += s->atomic_ps;
		return 1;
	}
	/* the store buffer drains before a locked operation or a load of its line; an access to the
	 * line of a prefetchw in flight waits for it (and gains from it), others do not */
	if ((t->ps_line >= 0 && (op != COH_LOAD || t->ps_line == li)) || t->pf_line == li)
		return wait_store(s, t);
	if (l->private_task == t->id) {
		if (!coh_holds(&s->coh, &l->c, t->cpu, op))
			coh_apply(&s->coh, &l->c, t->cpu, op);
		t->delay += hit_cost(s, op);
		return 1;
	}
	if (t->delay > 0) {
		schedule_resume(s, t);
		return 0;
	}
	if (coh_holds(&s->coh, &l->c, t->cpu, op)) {
		t->delay += hit_cost(s, op);
		return 1;
	}
	if (enqueue(s, t, li, RQ_ACCESS, op))
		return 0;
	t->state = T_WAIT_LINE;
	service(s, li);
	return 0;
}

/* A posted store: 1 when issued (or done), 0 to wait for the previous one. */
static int do_store(struct sim *s, struct sim_task *t, int li, int op, lk_apply_fn apply, struct lock_inst *lk, int arg)
{
	struct sim_line *l = &s->line[li];

	if (t->ps_line >= 0 || t->pf_line == li)
		return wait_store(s, t);
	if (l->private_task == t->id || (t->delay == 0 && coh_holds(&s->coh, &l->c, t->cpu, op))) {
		if (!coh_holds(&s->coh, &l->c, t->cpu, op))
			coh_apply(&s->coh, &l->c, t->cpu, op);
		t->delay += s->hit_ps;
		if (apply)
			apply(s, lk, t->id, arg);
		return 1;
	}
	if (t->delay > 0) {
		schedule_resume(s, t);
		return 0;
	}
	t->ps_line = li;
	t->ps_apply = apply;
	t->ps_lk = lk;
	t->ps_arg = arg;
	if (enqueue(s, t, li, RQ_STORE, op))
		return 0;
	service(s, li);
	t->delay += s->hit_ps;
	return 1;
}

/*
 * prefetchw: asks for the line in exclusive state and goes on; nothing waits for it but a later
 * access to the same line.  One in flight per task: a second is dropped, as a hint may be.
 */
static void do_prefetch(struct sim *s, struct sim_task *t, int li)
{
	struct sim_line *l = &s->line[li];

	if (t->pf_line >= 0 || t->ps_line == li || coh_holds(&s->coh, &l->c, t->cpu, COH_PREFETCHW))
		return;
	if (l->private_task == t->id) {
		coh_apply(&s->coh, &l->c, t->cpu, COH_PREFETCHW);
		return;
	}
	t->pf_line = li;
	if (!enqueue(s, t, li, RQ_PREFETCH, COH_PREFETCHW))
		service(s, li);
}

/* ---- primitives for lock designs (lock.h) ------------------------------- */

int lk_access(struct sim *s, struct sim_task *t, int line, int op)
{
	return do_access(s, t, line, op);
}

int lk_store(struct sim *s, struct sim_task *t, int line, lk_apply_fn apply, struct lock_inst *lk, int arg)
{
	return do_store(s, t, line, COH_STORE, apply, lk, arg);
}

void lk_spin(struct sim *s, struct sim_task *t, int line)
{
	struct sim_line *l = &s->line[line];

	t->state = T_SPIN;
	t->spin_line = line;
	t->spin_next = l->spin_head;
	l->spin_head = t->id;
	/* the task spins (busy) from now: the hit just before is absorbed in the spin */
	t->delay = 0;
}

/* A task that sleeps (or has finished) draws no bandwidth. */
static void bw_active(struct sim *s, struct sim_task *t, int on)
{
	if (t->bw_on == on)
		return;
	t->bw_on = on;
	s->bw_sum[t->node] += on ? t->mem_f : -t->mem_f;
}

void lk_sleep(struct sim *s, struct sim_task *t)
{
	bw_active(s, t, 0);
	t->state = T_SLEEP;
	t->sleep_since = s->eng.now + t->delay;
	t->delay = 0;
}

void lk_wake(struct sim *s, int task)
{
	lk_wake_nth(s, NULL, task, 0);
}

/* A wake-up's latency: [cpu] wakeup_ns, spread uniformly over +-WAKE_SPREAD of it.  A fixed
 * latency would wake a sleeper at the same phase of a periodic lock holder every time (a writer
 * retrying against a reader that steals the lock between its faults would then never find the
 * gap); measured wake-ups spread (this VM's futex round: min 0.18x, p90 1.3x the median). */
#define WAKE_SPREAD 0.25

static sim_time_t wake_latency(struct sim *s)
{
	double u = (double)(splitmix(&s->rng) >> 11) * (1.0 / 9007199254740992.0);

	return (sim_time_t)llround((double)s->wakeup_ps * (1 - WAKE_SPREAD + 2 * WAKE_SPREAD * u));
}

void lk_wake_nth(struct sim *s, struct sim_task *waker, int task, int nth)
{
	struct sim_task *t = &s->task[task];
	sim_time_t step = nth > 0 ? s->cfg->hw->wake_step_ps : 0;

	/* not asleep yet: it sees its design's flag before it would sleep.  Scheduling a
	 * wake-up anyway could end a later, unrelated sleep early. */
	if (t->state != T_SLEEP || t->wake_pending)
		return;
	t->wake_pending = 1;
	sim_time_t at = s->eng.now > t->sleep_since ? s->eng.now : t->sleep_since;

	if (waker)
		waker->delay += step;
	schedule(s, at + wake_latency(s) + (sim_time_t)nth * step, EV_WAKE, task, 0);
}

void lk_delay(struct sim *s, struct sim_task *t, sim_time_t ps)
{
	t->delay += ps;
}

int lk_task_on_cpu(const struct sim *s, int task)
{
	return task >= 0 && s->task[task].state != T_SLEEP;
}

int lk_task_id(const struct sim_task *t)
{
	return t->id;
}

struct lk_task *lk_state(struct sim_task *t)
{
	return &t->lk;
}

struct lk_task *lk_state_of(struct sim *s, int task)
{
	return &s->task[task].lk;
}

sim_time_t lk_now(const struct sim *s)
{
	return s->eng.now;
}

sim_time_t lk_pause_ps(const struct sim *s)
{
	return s->pause_ps;
}

int lk_node_line(const struct sim *s, int task)
{
	return s->node_base + task;
}

void lk_count_stat(struct sim *s, struct lock_inst *lk, int what)
{
	struct sim_lock_stats *st = &s->res->locks[lk->stat];

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

/* ---- the interpreter ---------------------------------------------------- */

/* An interval that began at @t, counted from the window's start if it began before. */
static sim_time_t win_from(const struct sim *s, sim_time_t t)
{
	return t > s->win_t0 ? t : s->win_t0;
}

/* The writer (or spinlock holder) leaves: its hold time inside the window counts. */
static void held_end(struct sim *s, struct lock_inst *lk)
{
	sim_time_t from = win_from(s, lk->held_since);

	lk->in_writers--;
	if (s->measuring && s->eng.now > from)
		lk->held_ps += (double)(s->eng.now - from);
}

static void lock_begin(struct sim *s, struct sim_task *t, const struct prog_insn *in)
{
	struct lock_inst *lk = lock_of(s, t, in);

	if (in->act == SA_UNLOCK && t->fb_lk && in->obj == t->fb_obj) {
		/* the matching lock step fell back: release what it took instead */
		lk = t->fb_lk;
		t->fb_lk = NULL;
		t->fb_obj = -1;
	}
	memset(&t->lk, 0, sizeof(t->lk));
	t->lk.lk = lk;
	t->lk.mode = in->mode == SL_READ ? SL_READ : SL_WRITE;
	t->lk.first_try = 1;
	t->lk.since = s->eng.now;
	t->lk.may_fail = in->act == SA_LOCK && in->mode == SL_READ && in->alt1 > 0;
	switch (in->act) {
	case SA_LOCK:
		t->lk.what = LK_ACQUIRE;
		s->res->locks[lk->stat].starts++;
		break;
	case SA_TRYLOCK:
		t->lk.what = LK_TRYACQUIRE;
		t->lk.was_try = 1;
		s->res->locks[lk->stat].starts++;
		break;
	case SA_UNLOCK:
		t->lk.what = LK_RELEASE;
		/* leaving the critical section, as the simulation sees it */
		if (t->lk.mode == SL_READ)
			lk->in_readers--;
		else
			held_end(s, lk);
		s->res->locks[lk->stat].releases[t->lk.mode == SL_READ]++;
		break;
	default:
		/* downgrade_write: as the simulation sees it, the writer leaves and a reader
		 * enters when the operation starts (the logical change comes a bit later) */
		t->lk.what = LK_DOWNGRADE;
		held_end(s, lk);
		lk->in_readers++;
		s->res->locks[lk->stat].releases[0]++;
		s->res->locks[lk->stat].acquires[1]++;
		break;
	}
	t->in_lock = 1;
}

/* 'lock V read else M' failed on V (write-locked): the step takes M for read instead, and the
 * unlock of V will release M (lock_vma_under_rcu -> NULL, the fault under mmap_lock).  M is taken
 * as the fault path takes mmap_lock: a trylock first, the blocking lock if that fails
 * (get_mmap_lock_carefully; do_user_addr_fault's mmap_read_trylock before 6.5). */
static void fall_back(struct sim *s, struct sim_task *t, const struct prog_insn *in)
{
	struct prog_insn alt = *in;

	alt.act = SA_TRYLOCK;
	alt.obj = in->alt1 - 1;
	alt.idx_div = 0;
	alt.alt1 = 0;
	t->fb_obj = in->obj;
	t->fb_lk = lock_of(s, t, &alt);
	s->res->locks[lock_of(s, t, in)->stat].fallbacks++;
	lock_begin(s, t, &alt);
}

static void lock_end(struct sim *s, struct sim_task *t)
{
	struct lock_inst *lk = t->lk.lk;
	struct sim_lock_stats *st = &s->res->locks[lk->stat];
	int rd = t->lk.mode == SL_READ;

	t->in_lock = 0;
	if (t->lk.what == LK_RELEASE || t->lk.what == LK_DOWNGRADE)
		return;
	{
		if (rd)
			lk->in_readers++;
		else if (lk->in_writers++ == 0)
			lk->held_since = s->eng.now;
		st->acquires[rd]++;
		if (!t->lk.first_try)
			st->contended++;
		if (t->lk.was_try && t->lk.what == LK_ACQUIRE)
			st->try_failed++;
	}
	/* mutual exclusion, checked on what the simulation saw */
	if (lk->in_writers > 1 || (lk->in_writers && lk->in_readers))
		st->violations++;
	if (lk->in_readers > st->max_readers)
		st->max_readers = lk->in_readers;
}

/* The run did more work than its bound allows (sim_work_estimate misjudged it): it stops. */
static int work_exceeded(const struct sim *s)
{
	return mm_fail(s->err, MM_ERANGE,
		       "%s: %d tasks: the simulation passed %.3g events and steps, its limit, and was stopped "
		       "(--max-work W raises it)",
		       s->sc->path, s->ntasks, (double)s->work_cap);
}

/* A visit of step @pc ended now (plus the task's pending private time). */
static void visit(struct sim *s, struct sim_task *t, int pc)
{
	sim_time_t end = s->eng.now + t->delay;
	sim_time_t start = win_from(s, t->mark);

	/* time in the step, counted from the window's start for a visit that began before */
	s->step_ps[pc] += (double)(end - start);
	s->step_n[pc] += 1;
	s->step_ps_all[pc] += (double)(end - t->mark);
	s->step_n_all[pc] += 1;
	t->mark = end;
	t->units += 1;
	if (++s->visits + s->eng.delivered > s->work_cap && !s->failed)
		s->failed = work_exceeded(s);
}

static void advance(struct sim *s, struct sim_task *t)
{
	visit(s, t, t->pc);
	t->pc++;
}

/* Work stretches by smt_factor while the task on the sibling hardware thread executes (T_RUN), as
 * seen when the work starts.  A sibling asleep leaves the core to this one; so, nearly, does one
 * spinning with PAUSE (which yields the pipeline to the other thread) or stalled on a cache-line
 * miss (it issues little until the line comes; the halved ROB it still holds is not modelled).
 * Counting those as busy, as this did before, halved seed 001's before-patch throughput: see the
 * README's known limits for the sensitivity. */
static double smt_stretch(const struct sim *s, const struct sim_task *t)
{
	const struct sim_task *o;

	if (t->sibling < 0)
		return 1.0;
	o = &s->task[t->sibling];
	return o->state == T_RUN ? s->cfg->hw->smt_factor : 1.0;
}

static int64_t compute_ps(struct sim *s, struct sim_task *t, const struct prog_insn *in)
{
	double ps = in->ns * 1000.0 + in->cycles * t->ps_per_cycle * smt_stretch(s, t) + (double)t->debt;

	t->debt = 0;
	if (in->exp_dist && ps > 0) {
		double u = (double)((splitmix(&s->rng) >> 11) + 1) * (1.0 / 9007199254740993.0);

		return (int64_t)llround(-ps * log(u));
	}
	if (s->jitter > 0 && ps > 0) {
		double u = (double)(splitmix(&s->rng) >> 11) * (1.0 / 9007199254740992.0);

		ps *= 1.0 + s->jitter * (2.0 * u - 1.0);
	}
	return (int64_t)llround(ps);
}

/*
 * Streaming @bytes to or from the task's node (clearing a page, copying).
 * The node's DRAM bandwidth is shared as by a processor-sharing server,
 * estimated in mean field: the tasks streaming beside this one are the sum
 * of the streaming fractions of the node's other awake tasks (each
 * fraction = its streaming time / its awake time so far).  A task alone
 * gets at most task_gbs.  README, "Memory bandwidth".
 */
static int64_t memory_ps(struct sim *s, struct sim_task *t, int64_t bytes)
{
	const struct hw_profile *hw = s->cfg->hw;
	double others = s->bw_sum[t->node] - (t->bw_on ? t->mem_f : 0);
	double share = hw->bw_node_gbs / (1.0 + (others > 0 ? others : 0));
	double gbs = share < hw->bw_task_gbs ? share : hw->bw_task_gbs;
	double ps = (double)bytes / gbs * 1000.0;
	double awake = (double)(s->eng.now + t->delay - t->sleep_total) + ps;
	double f = awake > 0 ? (t->mem_ps + ps) / awake : 1.0;

	t->mem_ps += ps;
	if (f > 1)
		f = 1;
	if (t->bw_on)
		s->bw_sum[t->node] += f - t->mem_f;
	t->mem_f = f;
	if (s->measuring)
		s->bw_bytes[t->node] += (double)bytes;
	return (int64_t)llround(ps);
}

/*
 * A TLB shootdown: the other CPUs running this mm (its awake sibling
 * threads) take an interrupt and run the handler; the sender waits for
 * their acknowledgements, one IPI round trip.  No target, no wait.
 */
static int64_t ipi_ps(struct sim *s, struct sim_task *t, const struct prog_insn *in)
{
	int targets = 0;

	if (s->cfg->mode != SC_THREADS)
		return 0;
	for (int j = 0; j < s->ntasks; j++) {
		struct sim_task *o = &s->task[j];

		if (o == t || o->state == T_SLEEP || o->state == T_DONE)
			continue;
		o->debt += (int64_t)llround(in->ns * 1000.0 + in->cycles * o->ps_per_cycle * smt_stretch(s, o));
		targets++;
	}
	if (s->measuring)
		s->res->ipis += (uint64_t)targets;
	return targets ? s->cfg->hw->ipi_ps : 0;
}

/*
 * The control steps (repeat, every, end): move t->pc.  Shared by the
 * interpreter and by the start-up skip, so both walk the program alike.
 * Returns non-zero on an error (recorded in s->failed).
 */
static int flow(struct sim *s, struct sim_task *t, const struct prog_insn *in)
{
	const struct program *pr = s->prog;

	switch (in->act) {
	case SA_REPEAT:
		if (in->count <= 0) {
			t->pc = in->match + 1;
			return 0;
		}
		if (t->lsp == LOOP_DEPTH)
			return s->failed = mm_fail(s->err, MM_ERANGE, "%s:%d: repeat blocks nested deeper than %d",
						   s->sc->path, in->src_line, LOOP_DEPTH);
		t->loop[t->lsp].pc = t->pc + 1;
		t->loop[t->lsp].left = in->count;
		t->loop[t->lsp].iter = 0;
		t->lsp++;
		t->pc++;
		return 0;
	case SA_EVERY:
		if (++t->every[t->pc] >= in->count) {
			t->every[t->pc] = 0;
			t->pc++;
		} else {
			t->pc = in->match + 1;
		}
		return 0;
	default: /* SA_END */
		if (pr->insn[in->match].act == SA_REPEAT) {
			if (--t->loop[t->lsp - 1].left > 0) {
				t->loop[t->lsp - 1].iter++;
				t->pc = in->match + 1;
				return 0;
			}
			t->lsp--;
		}
		t->pc++;
		return 0;
	}
}

/*
 * The units (step visits) of one iteration of the repeat at @pc, its END included, as the
 * interpreter counts them; -1 when the body holds an 'every', whose per-task counters make one
 * iteration differ from the next.
 */
static double iter_units(const struct program *pr, int pc)
{
	double u = 1; /* the END */

	for (int i = pc + 1; i < pr->insn[pc].match; i++) {
		const struct prog_insn *in = &pr->insn[i];
		double v;

		if (in->act == SA_EVERY)
			return -1;
		u += 1;
		if (in->act == SA_REPEAT) {
			if ((v = iter_units(pr, i)) < 0)
				return -1;
			u += in->count > 0 ? (double)in->count * v : 0;
			i = in->match;
		}
	}
	return u;
}

/*
 * skip_ahead's jump: at the start of an iteration of the innermost repeat, pass whole
 * iterations at once while the step-by-step walk could not have stopped inside them (it stops
 * at the first step boundary at or past @target with no lock held).  The state reached is the
 * walk's, so results do not change; the cost is the program's length, not the operation's.
 */
static void skip_iterations(struct sim *s, struct sim_task *t, double target, int held)
{
	int rep, k_all;
	double u, k;

	if (!t->lsp || t->pc != t->loop[t->lsp - 1].pc || s->cfg->skip_by_steps)
		return;
	rep = t->pc - 1;
	u = s->iter_units[rep];
	if (u <= 0)
		return;
	if (held > 0) { /* inside a critical section the walk goes on to its end */
		k = (double)t->loop[t->lsp - 1].left;
	} else {
		k = floor((target - t->units) / u);
		while (k > 0 && t->units + k * u > target) /* rounding of the division */
			k -= 1;
		if (k >= (double)t->loop[t->lsp - 1].left)
			k = (double)t->loop[t->lsp - 1].left;
	}
	if (k <= 0)
		return;
	k_all = k >= (double)t->loop[t->lsp - 1].left;
	t->units += k * u;
	if (k_all) {
		t->lsp--;
		t->pc = s->prog->insn[rep].match + 1;
	} else {
		t->loop[t->lsp - 1].left -= (int64_t)k;
		t->loop[t->lsp - 1].iter += (int64_t)k;
	}
}

/*
 * Start a task at a random point of its operation, outside any critical
 * section: after a long run the tasks' phases are spread out, and starting
 * them so measures the steady state at once instead of after a lock-step
 * transient as long as an operation.  The steps skipped take no time.
 */
static void skip_ahead(struct sim *s, struct sim_task *t)
{
	const struct program *pr = s->prog;
	double target = (double)(splitmix(&s->rng) >> 11) * (1.0 / 9007199254740992.0) * pr->units_per_op;
	int held = 0;

	while (!s->failed && (t->units < target || held > 0)) {
		const struct prog_insn *in = &pr->insn[t->pc];

		t->units += 1;
		switch (in->act) {
		case SA_REPEAT:
		case SA_EVERY:
		case SA_END:
			flow(s, t, in);
			skip_iterations(s, t, target, held);
			break;
		case SA_LOCK:
		case SA_TRYLOCK:
			held++;
			t->pc++;
			break;
		case SA_UNLOCK:
			held--;
			t->pc++;
			break;
		default:
			t->pc++;
			break;
		}
		if (t->pc == pr->n) { /* wrapped: start of the next operation */
			t->pc = 0;
			t->units = 0;
			if (!held)
				break;
		}
	}
}

static const int act_op[SA_NACTS] = {
    [SA_LOAD] = COH_LOAD,   [SA_STORE] = COH_STORE,	    [SA_ATOMIC] = COH_RMW,
    [SA_CMPXCHG] = COH_RMW, [SA_PREFETCHW] = COH_PREFETCHW,
};

static void run_task(struct sim *s, struct sim_task *t)
{
	const struct program *pr = s->prog;

	while (!s->failed) {
		const struct prog_insn *in;

		if (t->in_lock) {
			int r = t->lk.lk->d->op(s, t, t->lk.lk);

			if (r == LK_WAIT)
				return;
			if (r == LK_FAILED) {
				fall_back(s, t, &pr->insn[t->pc]);
				continue;
			}
			lock_end(s, t);
			advance(s, t);
			continue;
		}
		if (t->pc == pr->n) {
			/* the operation ends once its private time has passed */
			if (t->delay > 0) {
				schedule_resume(s, t);
				return;
			}
			t->ops += 1;
			s->ops_done++;
			t->units = 0;
			t->pc = 0;
			if (s->cfg->ops_per_task > 0 && t->ops >= s->cfg->ops_per_task) {
				t->state = T_DONE;
				bw_active(s, t, 0);
				t->done_at = s->eng.now;
				s->ndone++;
				return;
			}
			continue;
		}
		in = &pr->insn[t->pc];
		switch (in->act) {
		case SA_COMPUTE:
			t->delay += compute_ps(s, t, in);
			advance(s, t);
			break;
		case SA_LOAD:
		case SA_ATOMIC:
		case SA_CMPXCHG:
			if (!do_access(s, t, field_line(s, t, in), act_op[in->act]))
				return;
			advance(s, t);
			break;
		case SA_STORE:
			if (!do_store(s, t, field_line(s, t, in), act_op[in->act], NULL, NULL, 0))
				return;
			advance(s, t);
			break;
		case SA_PREFETCHW:
			do_prefetch(s, t, field_line(s, t, in));
			t->delay += s->hit_ps;
			advance(s, t);
			break;
		case SA_MEMORY:
			t->delay += memory_ps(s, t, in->count);
			advance(s, t);
			break;
		case SA_IPI:
			t->delay += ipi_ps(s, t, in);
			advance(s, t);
			break;
		case SA_MISS:
			t->delay += (sim_time_t)llround(in->misses * t->cold * (double)s->cfg->hw->mem_local_ps);
			advance(s, t);
			break;
		case SA_FENCE:
			if (t->ps_line >= 0) {
				wait_store(s, t);
				return;
			}
			advance(s, t);
			break;
		case SA_LOCK:
		case SA_TRYLOCK:
		case SA_UNLOCK:
		case SA_DOWNGRADE:
			/* a lock operation starts when the private time before it has passed */
			if (t->delay > 0) {
				schedule_resume(s, t);
				return;
			}
			lock_begin(s, t, in);
			break;
		case SA_REPEAT:
		case SA_EVERY:
		case SA_END:
			visit(s, t, t->pc);
			if (flow(s, t, in))
				return;
			break;
		default:
			t->pc++;
			break;
		}
	}
}

/* ---- events ------------------------------------------------------------- */

static void on_grant(struct sim *s, int ridx)
{
	struct sim_task *t = &s->task[ridx / RQ_SLOTS];

	if (ridx % RQ_SLOTS == RQ_PREFETCH) { /* the line is here; a task waiting for it goes on */
		t->pf_line = -1;
		if (t->state == T_WAIT_STORE) {
			t->state = T_RUN;
			run_task(s, t);
		}
		return;
	}
	if (ridx % RQ_SLOTS == RQ_STORE) { /* a posted store performed */
		lk_apply_fn apply = t->ps_apply;

		t->ps_line = -1;
		t->ps_apply = NULL;
		if (apply)
			apply(s, t->ps_lk, t->id, t->ps_arg);
		if (t->state == T_WAIT_STORE) {
			t->state = T_RUN;
			run_task(s, t);
		}
		return;
	}
	t->state = T_RUN;
	t->access_done = 1;
	run_task(s, t);
}

static void dispatch(struct sim *s, const struct engine_event *ev)
{
	struct sim_task *t;

	switch (ev->kind) {
	case EV_RESUME:
		run_task(s, &s->task[ev->a]);
		break;
	case EV_GRANT:
		on_grant(s, ev->a);
		break;
	case EV_REFETCH:
		refetch(s, &s->task[ev->a], (int)ev->b);
		service(s, (int)ev->b);
		break;
	case EV_LINE_FREE:
		s->line[ev->a].c.busy = 0;
		service(s, ev->a);
		break;
	case EV_WAKE:
		t = &s->task[ev->a];
		t->wake_pending = 0;
		if (t->state != T_SLEEP)
			break; /* it never slept, or was woken already: the design saw its flag */
		t->sleep_total += s->eng.now - t->sleep_since;
		if (s->measuring) {
			sim_time_t from = win_from(s, t->sleep_since);

			if (s->eng.now > from)
				s->step_sleep[t->pc] += (double)(s->eng.now - from);
		}
		t->state = T_RUN;
		bw_active(s, t, 1);
		run_task(s, t);
		break;
	case EV_SPIN_TIMEOUT:
		t = &s->task[ev->a];
		if (t->state == T_SPIN && t->spin_gen == ev->b) {
			struct sim_line *l = &s->line[t->spin_line];
			int *pp = &l->spin_head;

			while (*pp != t->id)
				pp = &s->task[*pp].spin_next;
			*pp = t->spin_next;
			t->spin_line = -1;
			t->spin_gen++;
			t->state = T_RUN;
			run_task(s, t);
		}
		break;
	}
}

void lk_spin_deadline(struct sim *s, struct sim_task *t, int line, sim_time_t deadline)
{
	lk_spin(s, t, line);
	schedule(s, deadline > s->eng.now ? deadline : s->eng.now, EV_SPIN_TIMEOUT, t->id, t->spin_gen);
}

/* ---- set-up ------------------------------------------------------------- */

static int add_group(struct sim *s, const char *line_name, const struct sc_object *o, int *out)
{
	for (int g = 0; g < s->ngroups; g++) {
		if (strcmp(s->group[g].name, line_name))
			continue;
		if (s->group[g].scope != o->scope || s->group[g].count != o->count)
			return mm_fail(s->err, MM_EPARSE,
				       "%s:%d: '%s' (scope %s, count %d) is on line '%s' with objects of scope %s, "
				       "count %d: a line has one scope",
				       s->sc->path, o->line_no, o->name, sc_scope_name(o->scope), o->count, line_name,
				       sc_scope_name(s->group[g].scope), s->group[g].count);
		*out = g;
		return 0;
	}
	snprintf(s->group[s->ngroups].name, SC_NAME, "%s", line_name);
	s->group[s->ngroups].scope = o->scope;
	s->group[s->ngroups].count = o->count;
	*out = s->ngroups++;
	return 0;
}

static const char *lock_subline(const struct kernel_profile *k, const char *lock, const char *field, char *buf,
				size_t cap)
{
	const char *l;

	snprintf(buf, cap, "%s.%s", lock, field);
	l = kernel_line_of(k, buf);
	return l == buf ? lock : l; /* not in [layout]: the lock's own line */
}

static const struct lock_design *design_for(const struct sim *s, const struct sc_object *o)
{
	const struct kernel_profile *k = s->cfg->kernel;

	if (s->cfg->lock_design_override)
		return lock_design_find(s->cfg->lock_design_override);
	if (!strcmp(o->locktype, "spinlock"))
		return lock_design_find(k->spinlock);
	if (!strcmp(o->locktype, "rwsem"))
		return &lock_rwsem;
	return &lock_vma;
}

/*
 * The share of a 'miss' step's accesses that go to DRAM: the tasks of one L3 domain each cycle
 * through @footprint bytes before they come back to a line; while all of it fits in the domain's
 * @llc bytes the lines stay cached, beyond it a line survives with probability llc / (n x
 * footprint).  A proportional (random-replacement) estimate: LRU would keep all or nothing.
 */
double cold_fraction(double llc, double footprint, int ntasks)
{
	double want = footprint * ntasks;

	if (llc <= 0 || footprint <= 0 || want <= llc)
		return 0;
	return 1 - llc / want;
}

static int setup(struct sim *s)
{
	const struct sim_config *cfg = s->cfg;
	const struct topology *topo = cfg->topo;
	const struct scenario *sc = s->sc;
	int *cpus, rc, nobj = sc->nobj, nw;
	int active_cores = 0, *core_used, *l3_tasks;
	double ghz;

	s->ntasks = cfg->ntasks;
	s->bw_sum = calloc(topo->nnuma + 1, sizeof(double));
	s->bw_bytes = calloc(topo->nnuma + 1, sizeof(double));
	if (!s->bw_sum || !s->bw_bytes)
		return mm_fail(s->err, MM_ENOMEM, "out of memory");
	cpus = calloc(s->ntasks, sizeof(int));
	s->task = calloc(s->ntasks, sizeof(*s->task));
	s->task_of_cpu = malloc(topo->ncpus * sizeof(int));
	core_used = calloc(topo->ncores, sizeof(int));
	l3_tasks = calloc(topo->nl3 + 1, sizeof(int));
	s->group = calloc(2 * nobj + 1, sizeof(*s->group));
	s->obj_group = calloc(nobj + 1, sizeof(int));
	s->obj_group2 = calloc(nobj + 1, sizeof(int));
	s->obj_lockbase = calloc(nobj + 1, sizeof(int));
	if (!cpus || !s->task || !s->task_of_cpu || !core_used || !l3_tasks || !s->group || !s->obj_group ||
	    !s->obj_group2 || !s->obj_lockbase) {
		rc = mm_fail(s->err, MM_ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = topo_place(topo, s->ntasks, cpus, s->err)))
		goto out;
	for (int c = 0; c < topo->ncpus; c++)
		s->task_of_cpu[c] = -1;
	for (int i = 0; i < s->ntasks; i++) {
		s->task_of_cpu[cpus[i]] = i;
		if (!core_used[topo->cpu[cpus[i]].core]++)
			active_cores++;
	}
	ghz = hw_freq_ghz(cfg->hw, active_cores);
	for (int i = 0; i < s->ntasks; i++)
		l3_tasks[topo->cpu[cpus[i]].l3]++;
	for (int i = 0; i < s->ntasks; i++) {
		struct sim_task *t = &s->task[i];
		int core = topo->cpu[cpus[i]].core;

		t->id = i;
		t->cpu = cpus[i];
		t->node = topo->cpu[cpus[i]].numa;
		t->bw_on = 1;
		t->ps_line = -1;
		t->pf_line = -1;
		t->spin_line = -1;
		t->fb_obj = -1;
		/* a sibling hardware thread that executes stretches the work (smt_stretch) */
		t->ps_per_cycle = 1000.0 / ghz;
		t->cold = cold_fraction(cfg->hw->llc_bytes, s->prog->footprint, l3_tasks[topo->cpu[cpus[i]].l3]);
		t->sibling = -1;
		if (core_used[core] > 1)
			for (int j = 0; j < s->ntasks; j++)
				if (j != i && topo->cpu[cpus[j]].core == core)
					t->sibling = j;
		t->every = calloc(s->prog->n + 1, sizeof(int64_t));
		if (!t->every) {
			rc = mm_fail(s->err, MM_ENOMEM, "out of memory");
			goto out;
		}
		/* Batch counters (vmstat, LRU, rss...) start at random phases, as they are in a
		 * steady state: tasks released together would otherwise fold in lock step. */
		for (int pc = 0; pc < s->prog->n; pc++)
			if (s->prog->insn[pc].act == SA_EVERY && s->prog->insn[pc].count > 1)
				t->every[pc] = (int64_t)(splitmix(&s->rng) % (uint64_t)s->prog->insn[pc].count);
	}

	/* cache lines: objects grouped by the line the kernel layout puts them on */
	for (int o = 0; o < nobj; o++) {
		const struct sc_object *ob = &sc->obj[o];
		char buf[2 * SC_NAME];

		if (!ob->is_lock) {
			rc = add_group(s, kernel_line_of(cfg->kernel, ob->name), ob, &s->obj_group[o]);
		} else if (!strcmp(ob->locktype, "rwsem")) {
			rc = add_group(s, lock_subline(cfg->kernel, ob->name, "count", buf, sizeof(buf)), ob,
				       &s->obj_group[o]);
			if (!rc)
				rc = add_group(s, lock_subline(cfg->kernel, ob->name, "owner", buf, sizeof(buf)), ob,
					       &s->obj_group2[o]);
		} else {
			rc = add_group(s, kernel_line_of(cfg->kernel, ob->name), ob, &s->obj_group[o]);
			s->obj_group2[o] = s->obj_group[o];
		}
		if (rc)
			goto out;
	}
	s->nlines = 0;
	for (int g = 0; g < s->ngroups; g++) {
		s->group[g].base = s->nlines;
		s->group[g].ninst = scope_ninst(s, s->group[g].scope);
		s->nlines += s->group[g].ninst * s->group[g].count;
	}
	s->node_base = s->nlines;
	s->nlines += s->ntasks; /* qspinlock MCS nodes, one per task (CPU) */
	nw = s->coh.nwords;
	s->line = calloc(s->nlines, sizeof(*s->line));
	s->bits = calloc((size_t)s->nlines * nw, sizeof(uint64_t));
	s->req = calloc(RQ_SLOTS * s->ntasks, sizeof(*s->req));
	s->picked = calloc(RQ_SLOTS * s->ntasks, sizeof(int32_t));
	if (!s->line || !s->bits || !s->req || !s->picked) {
		rc = mm_fail(s->err, MM_ENOMEM, "out of memory for %d cache lines", s->nlines);
		goto out;
	}
	for (int g = 0; g < s->ngroups; g++) {
		const struct line_group *gr = &s->group[g];
		int stat = g < SIM_MAX_STATS ? g : -1;

		if (stat >= 0)
			snprintf(s->res->lines[stat].name, SC_NAME, "%s", gr->name);
		for (int inst = 0; inst < gr->ninst; inst++) {
			int home, priv;

			scope_home(s, gr->scope, inst, &home, &priv);
			for (int k = 0; k < gr->count; k++) {
				int li = gr->base + inst * gr->count + k;

				coh_line_init(&s->coh, &s->line[li].c, home, s->bits + (size_t)li * nw);
				/* threads: the main thread (task 0) set the mm up, so its lines start in
				 * that CPU's cache, as a process's private lines do in its own */
				if (gr->scope == SC_MM && cfg->mode == SC_THREADS)
					s->line[li].c.owner = s->line[li].c.last = s->task[0].cpu;
				s->line[li].private_task = priv;
				s->line[li].spin_head = -1;
				s->line[li].stat = stat;
			}
		}
	}
	s->res->nlines = s->ngroups < SIM_MAX_STATS ? s->ngroups : SIM_MAX_STATS;
	for (int i = 0; i < s->ntasks; i++) {
		int li = s->node_base + i;

		coh_line_init(&s->coh, &s->line[li].c, topo->cpu[s->task[i].cpu].numa, s->bits + (size_t)li * nw);
		s->line[li].private_task = -1;
		s->line[li].spin_head = -1;
		s->line[li].stat = -1;
	}

	/* lock instances */
	s->nlocks = 0;
	for (int o = 0; o < nobj; o++) {
		if (!sc->obj[o].is_lock)
			continue;
		s->obj_lockbase[o] = s->nlocks;
		s->nlocks += scope_ninst(s, sc->obj[o].scope) * sc->obj[o].count;
	}
	s->lock = calloc(s->nlocks + 1, sizeof(*s->lock));
	if (!s->lock) {
		rc = mm_fail(s->err, MM_ENOMEM, "out of memory for locks");
		goto out;
	}
	for (int o = 0, nstat = 0; o < nobj; o++) {
		const struct sc_object *ob = &sc->obj[o];
		const struct lock_design *d;
		int ninst, stat;

		if (!ob->is_lock)
			continue;
		d = design_for(s, ob);
		if (!d) {
			rc = mm_fail(s->err, MM_ENOENT, "no lock design for '%s' (%s)", ob->name, ob->locktype);
			goto out;
		}
		stat = nstat < SIM_MAX_STATS ? nstat++ : SIM_MAX_STATS - 1;
		snprintf(s->res->locks[stat].name, SC_NAME, "%s", ob->name);
		snprintf(s->res->locks[stat].design, sizeof(s->res->locks[stat].design), "%s", d->name);
		s->res->nlocks = nstat;
		ninst = scope_ninst(s, ob->scope);
		for (int inst = 0; inst < ninst; inst++) {
			for (int k = 0; k < ob->count; k++) {
				struct lock_inst *lk = &s->lock[s->obj_lockbase[o] + inst * ob->count + k];
				const struct line_group *g1 = &s->group[s->obj_group[o]];
				const struct line_group *g2 = &s->group[s->obj_group2[o]];

				lk->d = d;
				lk->stat = stat;
				lk->line[0] = g1->base + inst * g1->count + k;
				lk->line[1] = g2->base + inst * g2->count + k;
				lk->holder = -1;
				lk->pending = -1;
				lk->wl_holder = -1;
				lk->era = !strcmp(cfg->kernel->rwsem_era, "3.x")    ? 3
					  : !strcmp(cfg->kernel->rwsem_era, "5.11") ? 5
										    : 6;
				lk->wq_cap = s->ntasks;
				lk->wq = malloc(s->ntasks * sizeof(int));
				lk->wq_mode = malloc(s->ntasks * sizeof(int));
				lk->osq = malloc(s->ntasks * sizeof(int));
				if (!lk->wq || !lk->wq_mode || !lk->osq) {
					rc = mm_fail(s->err, MM_ENOMEM, "out of memory for locks");
					goto out;
				}
			}
		}
	}
	rc = 0;
out:
	free(cpus);
	free(core_used);
	free(l3_tasks);
	return rc;
}

static void teardown(struct sim *s)
{
	if (s->task)
		for (int i = 0; i < s->ntasks; i++)
			free(s->task[i].every);
	if (s->lock)
		for (int i = 0; i < s->nlocks; i++) {
			free(s->lock[i].wq);
			free(s->lock[i].wq_mode);
			free(s->lock[i].osq);
		}
	free(s->task);
	free(s->task_of_cpu);
	free(s->bw_sum);
	free(s->bw_bytes);
	free(s->line_t0);
	free(s->step_sleep);
	if (s->line)
		for (int i = 0; i < s->nlines; i++)
			coh_line_free(&s->line[i].c);
	free(s->line);
	free(s->bits);
	free(s->req);
	free(s->picked);
	free(s->group);
	free(s->obj_group);
	free(s->obj_group2);
	free(s->obj_lockbase);
	free(s->lock);
	coh_model_free(&s->coh);
	engine_free(&s->eng);
}

/* ---- measurement -------------------------------------------------------- */

static double progress(const struct sim *s, const struct sim_task *t)
{
	double f = t->units / s->prog->units_per_op;

	return t->ops + (f < 1 ? f : 0.999999);
}

/* Where the window's time went: steps (asleep or not), locks, lines, bandwidth. */
static void window_stats(struct sim *s, sim_time_t t1)
{
	struct sim_result *res = s->res;
	double win = (double)(t1 - s->win_t0);

	for (int i = 0; i < s->ntasks; i++) {
		const struct sim_task *t = &s->task[i];
		sim_time_t from = win_from(s, t->sleep_since);

		if (t->state == T_SLEEP && t1 > from)
			s->step_sleep[t->pc] += (double)(t1 - from);
	}
	if (s->cfg->steps)
		for (int pc = 0; pc < s->prog->n; pc++) {
			s->cfg->steps[pc].task_ps = s->step_ps[pc];
			s->cfg->steps[pc].sleep_ps = s->step_sleep[pc];
			s->cfg->steps[pc].visits = s->step_n[pc];
		}
	for (int i = 0; i < s->nlocks; i++) {
		struct lock_inst *lk = &s->lock[i];
		struct sim_lock_stats *st = &res->locks[lk->stat];

		if (lk->in_writers > 0 && t1 > lk->held_since)
			lk->held_ps += (double)(t1 - win_from(s, lk->held_since));
		st->ninst++;
		st->held_ps += lk->held_ps;
		if (lk->held_ps > st->max_held_ps)
			st->max_held_ps = lk->held_ps;
	}
	for (int li = 0; li < s->nlines; li++) {
		const struct sim_line *l = &s->line[li];
		double busy = ((double)l->busy_ps - s->line_t0[li]) / 1000.0;

		if (l->stat >= 0 && busy > res->lines[l->stat].window_busy_ns)
			res->lines[l->stat].window_busy_ns = busy;
	}
	res->nnodes = s->cfg->topo->nnuma < 8 ? s->cfg->topo->nnuma : 8;
	for (int n = 0; n < res->nnodes; n++)
		res->bw_gbs[n] = win > 0 ? s->bw_bytes[n] / win * 1000.0 : 0;
	for (int i = 0; i < s->ntasks; i++)
		if (s->task[i].cold > res->cold_max)
			res->cold_max = s->task[i].cold;
}

static sim_time_t slept(const struct sim_task *t, sim_time_t at)
{
	return t->sleep_total + (t->state == T_SLEEP && at > t->sleep_since ? at - t->sleep_since : 0);
}

/* How far a run is, for a progress line: operations done of the fixed work, else the warm-up
 * and the window's work counted as their ends are (a rare step can stretch both). */
static double run_fraction(const struct sim *s, int measuring, uint64_t e0, uint64_t v0, uint64_t warm, uint64_t meas)
{
	double f;

	if (s->cfg->ops_per_task > 0)
		return (double)s->ops_done / ((double)s->cfg->ops_per_task * s->ntasks);
	if (!measuring) {
		f = 0.2 * (double)s->eng.delivered / (double)warm;
		return f < 0.2 ? f : 0.2;
	}
	f = 0.2 + 0.8 * (double)(s->eng.delivered - e0 + (s->visits - v0) / 16) / (double)meas;
	return f < 0.99 ? f : 0.99;
}

int sim_run(const struct sim_config *cfg, struct sim_result *res, struct mm_error *err)
{
	struct sim s;
	struct engine_event ev;
	double *p0 = NULL;
	sim_time_t *sl0 = NULL, t0 = 0;
	uint64_t warm, meas, e0 = 0, v0 = 0, o0 = 0;
	int rc, measuring = 0, complete = 0, rare_pc = -1;
	double rarest;

	memset(&s, 0, sizeof(s));
	memset(res, 0, sizeof(*res));
	s.cfg = cfg;
	s.prog = cfg->prog;
	s.sc = cfg->prog->sc;
	s.err = err;
	s.res = res;
	res->ntasks = cfg->ntasks;
	if (cfg->ntasks < 1)
		return mm_fail(err, MM_EINVAL, "the number of tasks must be at least 1");
	s.hit_ps = cfg->hw->lat_ps[TOPO_SELF];
	s.atomic_ps = cfg->hw->atomic_ps;
	s.pause_ps = cfg->hw->pause_ps;
	s.wakeup_ps = cfg->hw->wakeup_ps;
	s.jitter = cfg->hw->jitter;
	s.rng = cfg->seed * 0x2545f4914f6cdd1dULL + (uint64_t)cfg->ntasks;
	if ((rc = engine_init(&s.eng, 8 * (size_t)cfg->ntasks + 64)) ||
	    (rc = coh_model_init(&s.coh, cfg->topo, cfg->hw))) {
		rc = mm_fail(err, MM_ENOMEM, "out of memory");
		goto out;
	}
	s.work_cap = cfg->max_work > 0 ? (uint64_t)fmin(cfg->max_work, 1.8e19) : (uint64_t)SIM_MAX_WORK;
	if ((rc = setup(&s)))
		goto out;
	s.iter_units = calloc(s.prog->n + 1, sizeof(double));
	if (!s.iter_units) {
		rc = mm_fail(err, MM_ENOMEM, "out of memory");
		goto out;
	}
	for (int pc = 0; pc < s.prog->n; pc++)
		if (s.prog->insn[pc].act == SA_REPEAT)
			s.iter_units[pc] = iter_units(s.prog, pc);
	s.step_ps = calloc(s.prog->n + 1, sizeof(double));
	s.step_n = calloc(s.prog->n + 1, sizeof(double));
	s.step_ps_all = calloc(s.prog->n + 1, sizeof(double));
	s.step_n_all = calloc(s.prog->n + 1, sizeof(double));
	if (!s.step_ps || !s.step_n || !s.step_ps_all || !s.step_n_all) {
		rc = mm_fail(err, MM_ENOMEM, "out of memory");
		goto out;
	}
	p0 = calloc(s.ntasks, sizeof(double));
	sl0 = calloc(s.ntasks, sizeof(sim_time_t));
	s.step_sleep = calloc(s.prog->n + 1, sizeof(double));
	s.line_t0 = calloc(s.nlines + 1, sizeof(double));
	if (!p0 || !sl0 || !s.step_sleep || !s.line_t0) {
		rc = mm_fail(err, MM_ENOMEM, "out of memory");
		goto out;
	}
	rarest = program_rarest_visits(s.prog);
	warm = cfg->warmup_events ? cfg->warmup_events : 20000 + 1000ULL * s.ntasks;
	/* a step rarer than once an operation (an munmap every 32768 faults): the warm-up and the
	 * window each last until it has been visited once per task, so that a convoy it causes has
	 * formed before the window and is seen whole in it */
	for (int pc = 0; pc < s.prog->n && rarest < 1 && rare_pc < 0; pc++)
		if (s.prog->visits[pc] == rarest)
			rare_pc = pc;
	meas = cfg->measure_events ? cfg->measure_events : 200000 + 2000ULL * s.ntasks;

	/* every task starts at time 0, as after will-it-scale's start gate; when measuring
	 * throughput, each at a random point of its operation (skip_ahead) */
	s.measuring = cfg->ops_per_task > 0; /* fixed work: the whole run is the window */
	for (int i = 0; i < s.ntasks; i++) {
		if (cfg->ops_per_task <= 0 && !cfg->aligned_start)
			skip_ahead(&s, &s.task[i]);
		schedule(&s, 0, EV_RESUME, i, 0);
	}

	while (!s.failed && engine_next(&s.eng, &ev)) {
		dispatch(&s, &ev);
		if ((s.eng.delivered & 0xffff) == 0) {
			if (s.eng.delivered + s.visits > s.work_cap && !s.failed) {
				s.failed = work_exceeded(&s);
				break;
			}
			if (cfg->tick)
				cfg->tick(cfg->tick_arg, cfg->tick_id, run_fraction(&s, measuring, e0, v0, warm, meas));
		}
		if (cfg->ops_per_task > 0) {
			if (s.ndone == s.ntasks)
				break;
			continue;
		}
		/* warm-up: a number of events; tasks started at random points of their
		 * operation (skip_ahead) are near their steady state from the start, except
		 * for what the rare step builds up (above) */
		if (!measuring && s.eng.delivered >= warm &&
		    (rare_pc < 0 || s.step_n_all[rare_pc] >= s.ntasks || s.eng.delivered >= 50 * warm)) {
			measuring = 1;
			t0 = s.eng.now;
			e0 = s.eng.delivered;
			v0 = s.visits;
			for (int i = 0; i < s.ntasks; i++) {
				p0[i] = progress(&s, &s.task[i]);
				sl0[i] = slept(&s.task[i], t0);
			}
			memset(s.step_ps, 0, s.prog->n * sizeof(double));
			memset(s.step_n, 0, s.prog->n * sizeof(double));
			s.win_t0 = t0;
			s.measuring = 1;
			o0 = s.ops_done;
			for (int li = 0; li < s.nlines; li++)
				s.line_t0[li] = (double)s.line[li].busy_ps;
		} else if (measuring && s.eng.now > t0) {
			/* events, or the private steps interpreted between them, whichever
			 * is the work: a scenario of private steps makes few events.  The
			 * window also spans one visit per task of the rarest step (an
			 * munmap every 32768 faults), counted: the operations done run
			 * ahead of it while a convoy forms; up to 50 times the work asked
			 * for. */
			uint64_t work = s.eng.delivered - e0 + (s.visits - v0) / 16;
			int seen = rare_pc >= 0 ? s.step_n[rare_pc] >= s.ntasks : s.ops_done - o0 >= (uint64_t)s.ntasks;

			if (work >= meas && (seen || work >= 50 * meas)) {
				complete = 1;
				break;
			}
		}
	}
	if (s.failed) {
		rc = s.failed;
		goto out;
	}
	res->events = s.eng.delivered;
	res->visits = s.visits;
	if (cfg->ops_per_task > 0) {
		sim_time_t end = 0, busy = 0;

		if (s.ndone < s.ntasks) {
			rc = mm_fail(err, MM_ESTALL,
				     "the simulation stalled at %.3f us with %d of %d tasks unfinished (a lost "
				     "wake-up or a lock never released)",
				     s.eng.now / 1e6, s.ntasks - s.ndone, s.ntasks);
			goto out;
		}
		for (int i = 0; i < s.ntasks; i++)
			if (s.task[i].done_at > end)
				end = s.task[i].done_at;
		for (int i = 0; i < s.ntasks; i++)
			busy += s.task[i].done_at - s.task[i].sleep_total;
		res->makespan_s = end / 1e12;
		res->window_s = res->makespan_s;
		res->ops = (double)cfg->ops_per_task * s.ntasks;
		res->min_task_ops = res->max_task_ops = (double)cfg->ops_per_task;
		res->idle_pct = end > 0 ? 100.0 * (1.0 - (double)busy / ((double)end * cfg->topo->ncpus)) : 100.0;
		window_stats(&s, end);
	} else {
		sim_time_t t1 = s.eng.now, window = t1 - t0;
		double busy = 0;

		if (!measuring || window <= 0 || !complete) {
			rc = mm_fail(err, MM_ESTALL,
				     "the simulation stalled after %llu events at %.3f us: no task can make progress "
				     "(a lost wake-up or a lock never released)",
				     (unsigned long long)s.eng.delivered, s.eng.now / 1e6);
			goto out;
		}
		res->min_task_ops = 1e300;
		for (int i = 0; i < s.ntasks; i++) {
			double d = progress(&s, &s.task[i]) - p0[i];

			res->ops += d;
			if (d < res->min_task_ops)
				res->min_task_ops = d;
			if (d > res->max_task_ops)
				res->max_task_ops = d;
			busy += (double)(window - (slept(&s.task[i], t1) - sl0[i]));
		}
		res->window_s = window / 1e12;
		res->idle_pct = 100.0 * (1.0 - busy / ((double)window * cfg->topo->ncpus));
		res->ops_per_s = res->ops / res->window_s;
		/* Little's law: N tasks / the mean duration of an operation, built from the mean
		 * time of each step (many samples) rather than from the few operations that end
		 * inside the window.  Each step's time is the task-time spent in it inside the
		 * window, the visits still in progress at its end included (else a convoy at the
		 * end would be missed); a step with time but no finished visit counts as one.
		 * Falls back to counted progress if a step was never seen. */
		double op_ps = 0;
		int known = 1;

		for (int i = 0; i < s.ntasks; i++) {
			const struct sim_task *t = &s.task[i];
			sim_time_t from = t->mark > t0 ? t->mark : t0;

			if (t->state != T_DONE && t->pc < s.prog->n && t1 > from)
				s.step_ps[t->pc] += (double)(t1 - from);
		}
		for (int pc = 0; pc < s.prog->n && known; pc++) {
			if (s.prog->visits[pc] <= 0)
				continue;
			if (s.step_n[pc] > 0 || s.step_ps[pc] > 0)
				op_ps += s.prog->visits[pc] * s.step_ps[pc] / (s.step_n[pc] > 0 ? s.step_n[pc] : 1);
			else if (s.step_n_all[pc] > 0)
				op_ps += s.prog->visits[pc] * s.step_ps_all[pc] / s.step_n_all[pc];
			else
				known = 0;
		}
		if (known && op_ps > 0) {
			res->ops_per_s = s.ntasks * 1e12 / op_ps;
			res->ops = res->ops_per_s * res->window_s;
		}
		window_stats(&s, t1);
	}
	if (cfg->ops_per_task > 0)
		res->ops_per_s = res->ops / res->window_s;
	res->ops_per_s_task = res->ops_per_s / s.ntasks;
	for (int li = 0; li < s.nlines; li++) {
		struct sim_line *l = &s.line[li];

		if (l->stat < 0)
			continue;
		res->lines[l->stat].grants += l->c.grants;
		res->lines[l->stat].transfers += l->c.transfers;
		res->lines[l->stat].transfer_ns += l->c.transfer_ps / 1000.0;
	}
	rc = 0;
out:
	free(p0);
	free(sl0);
	free(s.step_ps);
	free(s.step_n);
	free(s.step_ps_all);
	free(s.step_n_all);
	free(s.iter_units);
	teardown(&s);
	return rc;
}

/* ---- the work of a run, before running it ------------------------------- */

/* Steps skip_ahead walks one at a time through pcs [from, to) at most (repeats without an
 * 'every' are jumped over, skip_iterations). */
static double walk_cost(const struct program *pr, int from, int to)
{
	double c = 0;

	for (int i = from; i < to; i++) {
		const struct prog_insn *in = &pr->insn[i];

		c += 1;
		if (in->act == SA_REPEAT && in->count > 0) {
			double body = walk_cost(pr, i + 1, in->match) + 1;

			c += iter_units(pr, i) > 0 ? body : (double)in->count * body;
			i = in->match;
		}
	}
	return c;
}

/* The repeat steps that make an operation long, innermost last: "FILE:LINE: repeat N, ...". */
static void name_repeats(const struct program *pr, char *why, size_t len)
{
	int best = -1;
	size_t n;

	for (int pc = 0; pc < pr->n; pc++)
		if (best < 0 || pr->visits[pc] > pr->visits[best])
			best = pc;
	n = (size_t)snprintf(why, len, "one operation is %.3g steps", pr->units_per_op);
	for (int pc = 0, first = 1; pc < best && n < len; pc++) {
		const struct prog_insn *in = &pr->insn[pc];

		if (in->act == SA_REPEAT && in->match > best && in->count > 1) {
			n += (size_t)snprintf(why + n, len - n, "%s %s:%d: repeat %lld", first ? ":" : ",",
					      pr->sc->path, in->src_line, (long long)in->count);
			first = 0;
		}
	}
}

double sim_work_estimate(const struct sim_config *cfg, char *why, size_t why_len)
{
	const struct program *pr = cfg->prog;
	double shared = 1, r, rarest = program_rarest_visits(pr), n = cfg->ntasks, total;
	double warm = cfg->warmup_events ? (double)cfg->warmup_events : 20000 + 1000 * n;
	double meas = cfg->measure_events ? (double)cfg->measure_events : 200000 + 2000 * n;

	/* the steps that may need an event: shared lines and locks (each after a resume) */
	for (int pc = 0; pc < pr->n; pc++)
		switch (pr->insn[pc].act) {
		case SA_LOAD:
		case SA_STORE:
		case SA_ATOMIC:
		case SA_CMPXCHG:
		case SA_PREFETCHW:
		case SA_FENCE:
		case SA_LOCK:
		case SA_TRYLOCK:
		case SA_UNLOCK:
		case SA_DOWNGRADE:
			shared += 2 * pr->visits[pc];
			break;
		default:
			break;
		}
	r = pr->units_per_op / shared; /* steps interpreted per event */
	if (cfg->ops_per_task > 0) {
		total = n * (double)cfg->ops_per_task * (pr->units_per_op + shared);
		if (why)
			snprintf(why, why_len,
				 "%lld operations per task (--ops-per-task or the scenario's work) x %d "
				 "task%s",
				 (long long)cfg->ops_per_task, cfg->ntasks, cfg->ntasks > 1 ? "s" : "");
	} else {
		/* sim_run's rules: a warm-up of events, a window of events + steps / 16, both
		 * stretched (to 50 times) until each task has done the rarest step once */
		double seen = n * pr->units_per_op / rarest, base_vis = meas * r / (1 + r / 16);
		double warm_vis = warm * r, win_vis = base_vis;

		if (rarest < 1 && seen > warm_vis)
			warm_vis = fmin(seen, 50 * warm_vis);
		if (seen > win_vis)
			win_vis = fmin(seen, 50 * meas / (1 / r + 1.0 / 16));
		total = warm + warm_vis + win_vis / r + win_vis +
			n * fmin(walk_cost(pr, 0, pr->n), pr->units_per_op + pr->n);
		if (why)
			snprintf(why, why_len, "%.3g events measured (--events) at %d task%s", meas, cfg->ntasks,
				 cfg->ntasks > 1 ? "s" : "");
	}
	/* whatever the window, a point means nothing before one task has done one operation */
	if (total < pr->units_per_op)
		total = pr->units_per_op;
	if (why && pr->units_per_op > 1e6)
		name_repeats(pr, why, why_len);
	return total;
}
