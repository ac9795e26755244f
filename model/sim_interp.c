/* SPDX-License-Identifier: MIT */
/*
 * The scenario interpreter: each task runs through the steps of its
 * operation on the runtime (runtime.h).  Private steps add up their time
 * until the task needs a shared line; only then is an event scheduled, at the
 * time the access really happens, so a run of private steps between two
 * shared accesses costs one event.  Lock steps drive the lock designs
 * (lock.h).
 */
#include "sim_impl.h"

#include <math.h>
#include <string.h>

static int index_of(const struct sim_task *t, const struct prog_insn *in, int count)
{
	int64_t i = t->lsp ? t->loop[t->lsp - 1].iter : 0;

	return in->idx_div ? (int)((i / in->idx_div) % count) : 0;
}

static int field_line(const struct sim *s, const struct sim_task *t, const struct prog_insn *in)
{
	const struct obj_at *a = &s->obj_at[in->obj];

	return a->base + t->scope_at[a->scope] * a->count + index_of(t, in, a->count);
}

static struct lock_inst *lock_of(const struct sim *s, const struct sim_task *t, const struct prog_insn *in)
{
	const struct obj_at *a = &s->obj_at[in->obj];

	return &s->lock[a->base + t->scope_at[a->scope] * a->count + index_of(t, in, a->count)];
}

/* ---- the interpreter ---------------------------------------------------- */

/* The writer (or spinlock holder) leaves: its hold time inside the window counts. */
static void held_end(struct sim *s, struct lock_inst *lk)
{
	sim_time_t from = win_from(s, lk->held_since);

	lk->in_writers--;
	if (s->measuring && s->rt.eng.now > from)
		lk->held_ps += (double)(s->rt.eng.now - from);
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
	lk_task_begin(&t->lk, lk, LK_ACQUIRE, in->mode == LM_READ ? LM_READ : LM_WRITE, s->rt.eng.now);
	t->lk.slept = t->rt.sleep_total;
	t->lk.may_fail = in->act == SA_LOCK && in->mode == LM_READ && in->alt1 > 0;
	switch (in->act) {
	case SA_LOCK:
		t->lk.what = LK_ACQUIRE;
		lk->st->starts++;
		t->rt.relief_wake = lk->relieve_wake;
		break;
	case SA_TRYLOCK:
		t->lk.what = LK_TRYACQUIRE;
		t->lk.was_try = 1;
		lk->st->starts++;
		t->rt.relief_wake = lk->relieve_wake;
		break;
	case SA_UNLOCK:
		t->lk.what = LK_RELEASE;
		t->rt.relief_hold -= t->lk.mode == LM_READ ? lk->relieve_read : lk->relieve_hold;
		/* leaving the critical section, as the simulation sees it */
		if (t->lk.mode == LM_READ)
			lk->in_readers--;
		else
			held_end(s, lk);
		lk->st->releases[t->lk.mode == LM_READ]++;
		break;
	default:
		/* downgrade_write: as the simulation sees it, the writer leaves and a reader
		 * enters when the operation starts (the logical change comes a bit later) */
		t->lk.what = LK_DOWNGRADE;
		t->rt.relief_hold += lk->relieve_read - lk->relieve_hold;
		held_end(s, lk);
		lk->in_readers++;
		lk->st->releases[0]++;
		lk->st->acquires[1]++;
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
	lock_of(s, t, in)->st->fallbacks++;
	lock_begin(s, t, &alt);
}

/* A contended acquisition's wait, from the lock operation's start to now (lock contention's view). */
static void count_wait(const struct sim *s, struct sim_lock_stats *st, const struct sim_task *t)
{
	double ps = (double)(s->rt.eng.now - t->lk.begun), ns = ps / 1000.0;
	int k = 0;

	while (k < LK_WAIT_BUCKETS - 1 && ns >= (double)(2ULL << k))
		k++;
	st->wait_hist[k]++;
	st->wait_ps += ps;
	if (ps > st->wait_max_ps)
		st->wait_max_ps = ps;
	if (t->rt.sleep_total > t->lk.slept) {
		st->waits_slept++;
		st->wait_asleep_ps += (double)(t->rt.sleep_total - t->lk.slept);
	}
}

static void lock_end(struct sim *s, struct sim_task *t)
{
	struct lock_inst *lk = t->lk.lk;
	struct sim_lock_stats *st = lk->st;
	int rd = t->lk.mode == LM_READ;

	t->in_lock = 0;
	if (t->lk.what == LK_RELEASE || t->lk.what == LK_DOWNGRADE)
		return;
	if (rd)
		lk->in_readers++;
	else if (lk->in_writers++ == 0)
		lk->held_since = s->rt.eng.now;
	st->acquires[rd]++;
	if (!t->lk.first_try) {
		st->contended++;
		count_wait(s, st, t);
	}
	if (t->lk.was_try && t->lk.what == LK_ACQUIRE)
		st->try_failed++;
	t->rt.relief_hold += rd ? lk->relieve_read : lk->relieve_hold;
	t->rt.relief_wake = 0;
	/* mutual exclusion, checked on what the simulation saw */
	if (lk->in_writers > 1 || (lk->in_writers && lk->in_readers))
		st->violations++;
	if (lk->in_readers > st->max_readers)
		st->max_readers = lk->in_readers;
}

/* The run did more work than its bound allows (sim_work_estimate misjudged it): it stops. */
int sim_work_exceeded(const struct sim *s)
{
	return mm_fail(s->rt.err, MM_ERANGE,
		       "%s: %d tasks: the simulation passed %.3g events and steps, its limit, and was stopped "
		       "(--max-work W raises it)",
		       s->sc->path, s->rt.ntasks, (double)s->work_cap);
}

/* A visit of step @pc ended now (plus the task's pending private time). */
static void visit(struct sim *s, struct sim_task *t, int pc)
{
	sim_time_t end = s->rt.eng.now + t->rt.delay;
	sim_time_t start = win_from(s, t->mark);

	struct step_acc *a = &s->step[pc];

	/* time in the step, counted from the window's start for a visit that began before */
	a->ps += (double)(end - start);
	a->n += 1;
	a->ps_all += (double)(end - t->mark);
	a->n_all += 1;
	if (s->rstep) {
		a = &s->rstep[(size_t)t->role * s->prog->n + pc];
		a->ps += (double)(end - start);
		a->n += 1;
		a->ps_all += (double)(end - t->mark);
		a->n_all += 1;
	}
	t->mark = end;
	t->units += 1;
	if (++s->visits + s->rt.eng.delivered > s->work_cap && !s->rt.failed)
		s->rt.failed = sim_work_exceeded(s);
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
	return o->rt.state == T_RUN ? s->cfg->hw->smt_factor : 1.0;
}

/* Work stretches by up to corun_factor with the CPUs of the other cores busy, in proportion to the
 * share of them running a task (asleep or done: not), as the work starts; the sibling hardware
 * thread is smt_factor's.  Measured where it matters, on a guest whose vCPUs share a host's cores
 * (calibrate/README.md); 1 elsewhere, and then nothing is counted.  O(tasks) a step when set. */
static double corun_stretch(const struct sim *s, const struct sim_task *t)
{
	const struct topology *topo = s->cfg->topo;
	double f = s->cfg->hw->corun_factor;
	int busy = 0, others = t->corun_others, core = topo->cpu[t->rt.cpu].core;

	if (f == 1.0)
		return 1.0;
	for (int i = 0; i < s->rt.ntasks && others; i++) {
		const struct sim_task *o = &s->task[i];

		if (topo->cpu[o->rt.cpu].core != core && o->rt.state != T_SLEEP && o->rt.state != T_DONE)
			busy++;
	}
	return others ? 1.0 + (f - 1.0) * (double)busy / (double)others : 1.0;
}

static int64_t compute_ps(struct sim *s, struct sim_task *t, const struct prog_insn *in)
{
	double ps =
	    in->ns * 1000.0 + in->cycles * t->ps_per_cycle * smt_stretch(s, t) * corun_stretch(s, t) + (double)t->debt;

	t->debt = 0;
	if (s->op_jitter > 0 && ps > 0) {
		/* one factor for the whole operation, drawn at its first compute step */
		if (t->op_factor <= 0) {
			double u = (double)(rt_random(&s->rt) >> 11) * (1.0 / 9007199254740992.0);

			t->op_factor = 1.0 + s->op_jitter * (2.0 * u - 1.0);
		}
		ps *= t->op_factor;
	}
	if (in->exp_dist && ps > 0) {
		double u = (double)((rt_random(&s->rt) >> 11) + 1) * (1.0 / 9007199254740993.0);

		return rt_llround(-ps * log(u));
	}
	if (s->jitter > 0 && ps > 0) {
		double u = (double)(rt_random(&s->rt) >> 11) * (1.0 / 9007199254740992.0);

		ps *= 1.0 + s->jitter * (2.0 * u - 1.0);
	}
	return rt_llround(ps);
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
	double others = s->rt.bw_sum[t->rt.node] - (t->rt.bw_on ? t->rt.mem_f : 0);
	double share = hw->bw_node_gbs / (1.0 + (others > 0 ? others : 0));
	double gbs = share < hw->bw_task_gbs ? share : hw->bw_task_gbs;
	double ps = (double)bytes / gbs * 1000.0;
	double awake = (double)(s->rt.eng.now + t->rt.delay - t->rt.sleep_total) + ps;
	double f = awake > 0 ? (t->mem_ps + ps) / awake : 1.0;

	t->mem_ps += ps;
	if (f > 1)
		f = 1;
	if (t->rt.bw_on)
		s->rt.bw_sum[t->rt.node] += f - t->rt.mem_f;
	t->rt.mem_f = f;
	if (s->measuring)
		s->bw_bytes[t->rt.node] += (double)bytes;
	return rt_llround(ps);
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
	for (int j = 0; j < s->rt.ntasks; j++) {
		struct sim_task *o = &s->task[j];

		if (o == t || o->rt.state == T_SLEEP || o->rt.state == T_DONE)
			continue;
		o->debt += rt_llround(in->ns * 1000.0 + in->cycles * o->ps_per_cycle * smt_stretch(s, o));
		targets++;
	}
	if (s->measuring)
		s->res->ipis += (uint64_t)targets;
	return targets ? s->cfg->hw->ipi_ps : 0;
}

/*
 * The control steps (repeat, every, as, choose, else, end): move t->pc.
 * Shared by the interpreter and by the start-up skip, so both walk the
 * program alike.  A choose draws from the run's generator, so a seed gives
 * the same branches.  Returns non-zero on an error (in s->rt.failed).
 */
static int flow(struct sim *s, struct sim_task *t, const struct prog_insn *in)
{
	const struct program *pr = s->prog;

	switch (in->act) {
	case SA_REPEAT: {
		int64_t count = in->unit_pages == 5   ? t->unit_large
				: in->unit_pages == 4 ? t->unit_fpages
				: in->unit_pages == 3 ? t->unit_folios
				: in->unit_pages      ? t->unit - (in->unit_pages - 1)
						      : in->count;

		if (count <= 0) {
			t->pc = in->match + 1;
			return 0;
		}
		if (t->lsp == LOOP_DEPTH)
			return s->rt.failed =
				   mm_fail(s->rt.err, MM_ERANGE, "%s:%d: repeat blocks nested deeper than %d",
					   s->sc->path, in->src_line, LOOP_DEPTH);
		t->loop[t->lsp].pc = t->pc + 1;
		t->loop[t->lsp].left = count;
		t->loop[t->lsp].iter = 0;
		t->lsp++;
		t->pc++;
		return 0;
	}
	case SA_EVERY:
		if (in->lay) {
			/* a folio layout: the body at the last page of each of its units */
			const struct prog_layout *L = &pr->layout[in->lay - 1];
			int j = t->lay_at[t->pc];

			if (L->n && ++t->every[t->pc] >= L->gap[j]) {
				t->every[t->pc] = 0;
				t->unit = L->pages[j];
				t->unit_folios = L->nfolios[j];
				t->unit_fpages = L->fpages[j];
				t->unit_large = prog_unit_large(L, j);
				t->lay_at[t->pc] = j + 1 == L->n ? 0 : j + 1;
				t->pc++;
			} else {
				t->pc = in->match + 1;
			}
			return 0;
		}
		if (++t->every[t->pc] >= in->count) {
			t->every[t->pc] = 0;
			t->pc++;
		} else {
			t->pc = in->match + 1;
		}
		return 0;
	case SA_AS: /* the body is for the tasks of its role */
		t->pc = in->role == t->role ? t->pc + 1 : in->match + 1;
		return 0;
	case SA_CHOOSE: /* the first branch, or the else branch (or none) and on to the END */
		if ((double)(rt_random(&s->rt) >> 11) * (1.0 / 9007199254740992.0) < in->prob)
			t->pc++;
		else
			t->pc = in->alt >= 0 ? in->alt + 1 : in->match;
		return 0;
	case SA_ELSE: /* the end of the first branch */
		t->pc = in->match;
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
 * interpreter counts them for a task of role @role; -1 when the body holds an 'every', whose
 * per-task counters make one iteration differ from the next, or a 'choose', whose draws do.
 */
double sim_iter_units(const struct program *pr, int pc, int role)
{
	double u = 1; /* the END */

	for (int i = pc + 1; i < pr->insn[pc].match; i++) {
		const struct prog_insn *in = &pr->insn[i];
		double v;

		if (in->act == SA_EVERY || in->act == SA_CHOOSE || (in->act == SA_REPEAT && in->unit_pages))
			return -1;
		u += 1;
		if (in->act == SA_REPEAT) {
			if ((v = sim_iter_units(pr, i, role)) < 0)
				return -1;
			u += in->count > 0 ? (double)in->count * v : 0;
			i = in->match;
		} else if (in->act == SA_AS && in->role != role) {
			i = in->match; /* another role's block: the 'as' alone, not its END */
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
	u = s->iter_units[(size_t)t->role * s->prog->n + rep];
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
void sim_skip_ahead(struct sim *s, struct sim_task *t)
{
	const struct program *pr = s->prog;
	double target = (double)(rt_random(&s->rt) >> 11) * (1.0 / 9007199254740992.0) * pr->role_units[t->role];
	int held = 0;

	while (!s->rt.failed && (t->units < target || held > 0)) {
		const struct prog_insn *in = &pr->insn[t->pc];

		t->units += 1;
		switch (in->act) {
		case SA_REPEAT:
		case SA_EVERY:
		case SA_AS:
		case SA_CHOOSE:
		case SA_ELSE:
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

/* A task's private time: the relief's factor of it while it holds a relieved lock (a what-if). */
static inline int64_t held(const struct sim *s, const struct sim_task *t, int64_t ps)
{
	return t->rt.relief_hold ? rt_llround((double)ps * s->rt.relief) : ps;
}

static const int act_op[SA_NACTS] = {
    [SA_LOAD] = COH_LOAD,   [SA_STORE] = COH_STORE,	    [SA_ATOMIC] = COH_RMW,
    [SA_CMPXCHG] = COH_RMW, [SA_PREFETCHW] = COH_PREFETCHW,
};

static void run_task(struct sim *s, struct sim_task *t)
{
	const struct program *pr = s->prog;

	while (!s->rt.failed) {
		const struct prog_insn *in;

		if (t->in_lock) {
			int r = t->lk.lk->d->op(&s->rt, &t->rt, t->lk.lk);

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
			if (t->rt.delay > 0) {
				rt_resume_later(&s->rt, &t->rt);
				return;
			}
			t->ops += 1;
			s->ops_done++;
			t->units = 0;
			t->op_factor = 0;
			t->pc = 0;
			if (s->cfg->ops_per_task > 0 && t->ops >= s->cfg->ops_per_task) {
				t->rt.state = T_DONE;
				rt_bw_active(&s->rt, &t->rt, 0);
				t->done_at = s->rt.eng.now;
				s->ndone++;
				return;
			}
			continue;
		}
		in = &pr->insn[t->pc];
		switch (in->act) {
		case SA_COMPUTE:
			t->rt.delay += held(s, t, compute_ps(s, t, in));
			advance(s, t);
			break;
		case SA_LOAD:
		case SA_ATOMIC:
		case SA_CMPXCHG:
			if (!rt_access(&s->rt, &t->rt, field_line(s, t, in), act_op[in->act]))
				return;
			advance(s, t);
			break;
		case SA_STORE:
			if (!rt_store_op(&s->rt, &t->rt, field_line(s, t, in), act_op[in->act], NULL, NULL, 0))
				return;
			advance(s, t);
			break;
		case SA_PREFETCHW:
			rt_prefetch(&s->rt, &t->rt, field_line(s, t, in));
			t->rt.delay += s->rt.hit_ps;
			advance(s, t);
			break;
		case SA_MEMORY:
			t->rt.delay += held(s, t, memory_ps(s, t, in->count));
			advance(s, t);
			break;
		case SA_IPI:
			t->rt.delay += held(s, t, ipi_ps(s, t, in));
			advance(s, t);
			break;
		case SA_MISS:
			t->rt.delay += held(s, t, rt_llround(in->misses * t->cold * (double)s->cfg->hw->mem_local_ps));
			advance(s, t);
			break;
		case SA_FENCE:
			if (t->rt.ps_line >= 0) {
				rt_wait_store(&s->rt, &t->rt);
				return;
			}
			advance(s, t);
			break;
		case SA_LOCK:
		case SA_TRYLOCK:
		case SA_UNLOCK:
		case SA_DOWNGRADE:
			/* a lock operation starts when the private time before it has passed */
			if (t->rt.delay > 0) {
				rt_resume_later(&s->rt, &t->rt);
				return;
			}
			lock_begin(s, t, in);
			break;
		case SA_REPEAT:
		case SA_EVERY:
		case SA_AS:
		case SA_CHOOSE:
		case SA_ELSE:
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

static void resume(struct rt *r, struct rt_task *t)
{
	run_task((struct sim *)r, (struct sim_task *)t);
}

/* Time asleep inside the window, charged to the step the task slept in. */
static void woke(struct rt *r, struct rt_task *rt, sim_time_t since, sim_time_t until)
{
	struct sim *s = (struct sim *)r;

	if (s->measuring) {
		sim_time_t from = win_from(s, since);

		if (until > from)
			s->step_sleep[((struct sim_task *)rt)->pc] += (double)(until - from);
	}
}

const struct rt_client sim_client = {.resume = resume, .woke = woke};
