/* SPDX-License-Identifier: MIT */
/*
 * The runtime: tasks' accesses to cache lines, queued and granted by the
 * coherence model, and the primitives lock designs are written in
 * (runtime.h).  It knows nothing of scenarios or locks.
 */
#include "runtime.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define RQ(task, slot) (RQ_SLOTS * (task) + (slot))

uint64_t rt_random(struct rt *r)
{
	uint64_t z = (r->rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void rt_schedule(struct rt *r, sim_time_t at, int kind, int a, int64_t b)
{
	if (engine_schedule(&r->eng, at, kind, a, b) && !r->failed)
		r->failed =
		    mm_fail(r->err, MM_ENOMEM, "cannot schedule an event (out of memory, or a time in the past)");
}

void rt_resume_later(struct rt *r, struct rt_task *t)
{
	rt_schedule(r, r->eng.now + t->delay, EV_RESUME, t->id, 0);
	t->delay = 0;
}

/* ---- lines -------------------------------------------------------------- */

static void service(struct rt *s, int li);

/* Queues @t's request for line @li in @slot; 0, or -1 (s->failed set) when out of memory. */
static int enqueue(struct rt *s, const struct rt_task *t, int li, int slot, int op)
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

/* The line's state after @cpu's @op (coh_apply); a sharer set it cannot make fails the run. */
static void line_apply(struct rt *s, struct rt_line *l, int cpu, int op)
{
	if (coh_apply(&s->coh, &l->c, cpu, op) && !s->failed)
		s->failed = mm_fail(s->err, MM_ENOMEM, "out of memory for a cache line's sharers");
}

/* A spinner re-reads the line it was spinning on. */
static void refetch(struct rt *s, struct rt_task *st, int li)
{
	enqueue(s, st, li, RQ_ACCESS, COH_LOAD);
}

/* @t no longer watches an owner (rt_spin_on_owner). */
static void unwatch(struct rt *s, struct rt_task *t)
{
	if (t->watch1) {
		rt_task(s, t->watch1 - 1)->nwatchers--;
		t->watch1 = 0;
	}
}

static void invalidate_spinners(struct rt *s, struct rt_line *l, int except_task)
{
	int u = l->spin_head, keep = -1;

	l->spin_head = -1;
	while (u >= 0) {
		struct rt_task *st = rt_task(s, u);
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
			unwatch(s, st);
			if (s->pause_ps > 0)
				rt_schedule(s, s->eng.now + s->pause_ps, EV_REFETCH, u, l - s->line);
			else
				refetch(s, st, (int)(l - s->line));
		}
		u = next;
	}
	l->spin_head = keep;
}

static void service(struct rt *s, int li)
{
	struct rt_line *l = &s->line[li];
	sim_time_t now = s->eng.now, longest = 0;
	int n, moved = 0, at_home = 0;

	if (l->c.busy || !l->c.qlen)
		return;
	n = coh_pick(&s->coh, &l->c, s->req, s->picked, RQ_SLOTS * s->ntasks);
	/* costs against the state before the grant, then the new state */
	for (int i = 0; i < n; i++) {
		struct coh_req *r = &s->req[s->picked[i]];
		sim_time_t c;

		r->source = coh_source(&s->coh, &l->c, r->cpu, r->op);
		c = coh_source_ps(&s->coh, r->source);
		if (r->op == COH_LOAD) /* the home answers a batch's loads one after another */
			c += coh_home_wait_ps(&s->coh, r->source, &at_home);
		if (s->relief > 0 && (l->relieved || rt_task(s, r->task)->relief_hold))
			c = rt_llround((double)c * s->relief);
		r->extra_ps += c; /* reused to carry the cost to the loop below */
	}
	for (int i = 0; i < n; i++) {
		struct coh_req *r = &s->req[s->picked[i]];
		sim_time_t c = r->extra_ps;

		if (!coh_holds(&s->coh, &l->c, r->cpu, r->op)) {
			l->c.transfers++;
			l->c.transfer_ps += c;
			moved = 1;
			if (s->xfer)
				s->xfer[(size_t)li * COH_NSOURCES + r->source]++;
		}
		line_apply(s, l, r->cpu, r->op);
		if (coh_exclusive(r->op) && l->spin_head >= 0)
			invalidate_spinners(s, l, r->task);
		r->extra_ps = 0;
		rt_schedule(s, now + c, EV_GRANT, s->picked[i], 0);
		/* a locked operation keeps the line until it has completed (cache locking);
		 * the extra picosecond lets the grantee's next instruction see it first */
		c += (r->op == COH_RMW ? s->atomic_ps : 0) + 1;
		if (c > longest)
			longest = c;
	}
	l->c.busy = 1;
	if (moved)
		l->busy_ps += longest;
	rt_schedule(s, now + longest, EV_LINE_FREE, li, 0);
}

static int64_t hit_cost(const struct rt *s, int op)
{
	return op == COH_RMW ? s->hit_ps + s->atomic_ps : s->hit_ps;
}

int rt_wait_store(struct rt *s, struct rt_task *t)
{
	if (t->delay > 0)
		rt_resume_later(s, t);
	else
		t->state = T_WAIT_STORE;
	return 0;
}

/* A blocking access: 1 when done (its time added to t->delay), 0 to wait. */
int rt_access(struct rt *s, struct rt_task *t, int li, int op)
{
	struct rt_line *l = &s->line[li];

	if (t->access_done) {
		t->access_done = 0;
		if (op == COH_RMW)
			t->delay += s->atomic_ps;
		return 1;
	}
	/* the store buffer drains before a locked operation or a load of its line; an access to the
	 * line of a prefetchw in flight waits for it (and gains from it), others do not */
	if ((t->ps_line >= 0 && (op != COH_LOAD || t->ps_line == li)) || t->pf_line == li)
		return rt_wait_store(s, t);
	if (l->private_task == t->id) {
		if (!coh_holds(&s->coh, &l->c, t->cpu, op))
			line_apply(s, l, t->cpu, op);
		t->delay += hit_cost(s, op);
		return 1;
	}
	if (t->delay > 0) {
		rt_resume_later(s, t);
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
int rt_store_op(struct rt *s, struct rt_task *t, int li, int op, rt_apply_fn apply, void *obj, int arg)
{
	struct rt_line *l = &s->line[li];

	if (t->ps_line >= 0 || t->pf_line == li)
		return rt_wait_store(s, t);
	if (l->private_task == t->id || (t->delay == 0 && coh_holds(&s->coh, &l->c, t->cpu, op))) {
		if (!coh_holds(&s->coh, &l->c, t->cpu, op))
			line_apply(s, l, t->cpu, op);
		t->delay += s->hit_ps;
		if (apply)
			apply(s, obj, t->id, arg);
		return 1;
	}
	if (t->delay > 0) {
		rt_resume_later(s, t);
		return 0;
	}
	t->ps_line = li;
	t->ps_apply = apply;
	t->ps_obj = obj;
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
void rt_prefetch(struct rt *s, struct rt_task *t, int li)
{
	struct rt_line *l = &s->line[li];

	if (t->pf_line >= 0 || t->ps_line == li || coh_holds(&s->coh, &l->c, t->cpu, COH_PREFETCHW))
		return;
	if (l->private_task == t->id) {
		line_apply(s, l, t->cpu, COH_PREFETCHW);
		return;
	}
	t->pf_line = li;
	if (!enqueue(s, t, li, RQ_PREFETCH, COH_PREFETCHW))
		service(s, li);
}

/* ---- primitives ------------------------------------------------------ */

void rt_spin(struct rt *s, struct rt_task *t, int line)
{
	struct rt_line *l = &s->line[line];

	t->state = T_SPIN;
	t->spin_line = line;
	t->spin_next = l->spin_head;
	l->spin_head = t->id;
	/* the task spins (busy) from now: the hit just before is absorbed in the spin */
	t->delay = 0;
}

/* A task that sleeps (or has finished) draws no bandwidth. */
void rt_bw_active(struct rt *s, struct rt_task *t, int on)
{
	if (t->bw_on == on)
		return;
	t->bw_on = on;
	s->bw_sum[t->node] += on ? t->mem_f : -t->mem_f;
}

void rt_sleep(struct rt *s, struct rt_task *t)
{
	rt_bw_active(s, t, 0);
	t->state = T_SLEEP;
	t->sleep_since = s->eng.now + t->delay + s->sched_out_ps;
	t->delay = 0;
	/* its on_cpu goes to 0: whoever spins on it as the owner sees that once the line of its
	 * task_struct has come over, and stops */
	for (int u = 0; t->nwatchers > 0 && u < s->ntasks; u++) {
		struct rt_task *w = rt_task(s, u);

		if (w->watch1 == t->id + 1 && w->state == T_SPIN) {
			sim_time_t lat = s->coh.lat_ps[coh_dist(&s->coh, t->cpu, w->cpu, t->node)];

			unwatch(s, w);
			rt_schedule(s, t->sleep_since + lat, EV_SPIN_TIMEOUT, u, w->spin_gen);
		}
	}
}

void rt_spin_on_owner(struct rt *s, struct rt_task *t, int line, int owner)
{
	rt_spin(s, t, line);
	if (owner >= 0 && owner != t->id) {
		t->watch1 = owner + 1;
		rt_task(s, owner)->nwatchers++;
	}
}

void rt_sleep_for(struct rt *s, struct rt_task *t, sim_time_t ps)
{
	rt_sleep(s, t);
	t->wake_pending = 1; /* rt_wake_nth() leaves it alone */
	rt_schedule(s, t->sleep_since + (ps > 0 ? ps : 0), EV_WAKE, t->id, 0);
}

void rt_wake(struct rt *s, int task)
{
	rt_wake_nth(s, NULL, task, 0);
}

/* A wake-up's latency: [cpu] wakeup_ns, spread uniformly over +-WAKE_SPREAD of it.  A fixed
 * latency would wake a sleeper at the same phase of a periodic lock holder every time (a writer
 * retrying against a reader that steals the lock between its faults would then never find the
 * gap); measured wake-ups spread (this VM's futex round: min 0.18x, p90 1.3x the median). */
#define WAKE_SPREAD 0.25

static sim_time_t wake_latency(struct rt *s)
{
	double u = (double)(rt_random(s) >> 11) * (1.0 / 9007199254740992.0);

	return rt_llround((double)s->wakeup_ps * (1 - WAKE_SPREAD + 2 * WAKE_SPREAD * u));
}

void rt_wake_nth(struct rt *s, struct rt_task *waker, int task, int nth)
{
	struct rt_task *t = rt_task(s, task);
	sim_time_t step = s->wake_step_ps, at, lat;

	/* not asleep yet: it sees its design's flag before it would sleep.  Scheduling a
	 * wake-up anyway could end a later, unrelated sleep early. */
	if (t->state != T_SLEEP || t->wake_pending)
		return;
	t->wake_pending = 1;
	at = s->eng.now > t->sleep_since ? s->eng.now : t->sleep_since;
	if (waker)
		waker->delay += step;
	lat = wake_latency(s);
	if (t->relief_wake && s->relief > 0)
		lat = rt_llround((double)lat * s->relief);
	rt_schedule(s, at + lat + (sim_time_t)nth * step, EV_WAKE, task, 0);
}

void rt_spin_deadline(struct rt *s, struct rt_task *t, int line, sim_time_t deadline)
{
	rt_spin(s, t, line);
	rt_schedule(s, deadline > s->eng.now ? deadline : s->eng.now, EV_SPIN_TIMEOUT, t->id, t->spin_gen);
}

/* ---- events ------------------------------------------------------------- */

static void on_grant(struct rt *s, int ridx)
{
	struct rt_task *t = rt_task(s, ridx / RQ_SLOTS);

	if (ridx % RQ_SLOTS == RQ_PREFETCH) { /* the line is here; a task waiting for it goes on */
		t->pf_line = -1;
		if (t->state == T_WAIT_STORE) {
			t->state = T_RUN;
			s->client->resume(s, t);
		}
		return;
	}
	if (ridx % RQ_SLOTS == RQ_STORE) { /* a posted store performed */
		rt_apply_fn apply = t->ps_apply;

		t->ps_line = -1;
		t->ps_apply = NULL;
		if (apply)
			apply(s, t->ps_obj, t->id, t->ps_arg);
		if (t->state == T_WAIT_STORE) {
			t->state = T_RUN;
			s->client->resume(s, t);
		}
		return;
	}
	t->state = T_RUN;
	t->access_done = 1;
	s->client->resume(s, t);
}

void rt_dispatch(struct rt *s, const struct engine_event *ev)
{
	struct rt_task *t;

	switch (ev->kind) {
	case EV_RESUME:
		s->client->resume(s, rt_task(s, ev->a));
		break;
	case EV_GRANT:
		on_grant(s, ev->a);
		break;
	case EV_REFETCH:
		refetch(s, rt_task(s, ev->a), (int)ev->b);
		service(s, (int)ev->b);
		break;
	case EV_LINE_FREE:
		s->line[ev->a].c.busy = 0;
		service(s, ev->a);
		break;
	case EV_WAKE:
		t = rt_task(s, ev->a);
		t->wake_pending = 0;
		if (t->state != T_SLEEP)
			break; /* it never slept, or was woken already: the design saw its flag */
		{
			/* the last sched_in_ps of the wake-up: back on its CPU, switching in */
			sim_time_t off = s->eng.now - t->sleep_since;

			off -= off < s->sched_in_ps ? off : s->sched_in_ps;
			t->sleep_total += off;
			if (s->client->woke)
				s->client->woke(s, t, t->sleep_since, t->sleep_since + off);
		}
		t->state = T_RUN;
		rt_bw_active(s, t, 1);
		s->client->resume(s, t);
		break;
	case EV_SPIN_TIMEOUT:
		t = rt_task(s, ev->a);
		if (t->state == T_SPIN && t->spin_gen == ev->b) {
			struct rt_line *l = &s->line[t->spin_line];
			int *pp = &l->spin_head;

			while (*pp != t->id)
				pp = &rt_task(s, *pp)->spin_next;
			*pp = t->spin_next;
			t->spin_line = -1;
			t->spin_gen++;
			unwatch(s, t);
			t->state = T_RUN;
			s->client->resume(s, t);
		}
		break;
	}
}

/* ---- set-up ------------------------------------------------------------- */

int rt_alloc_lines(struct rt *s, int nlines)
{
	s->nlines = nlines;
	s->line = calloc(nlines, sizeof(*s->line));
	s->req = calloc(RQ_SLOTS * s->ntasks, sizeof(*s->req));
	s->picked = calloc(RQ_SLOTS * s->ntasks, sizeof(int32_t));
	if (!s->line || !s->req || !s->picked)
		return mm_fail(s->err, MM_ENOMEM, "out of memory for %d cache lines", nlines);
	return 0;
}

void rt_free(struct rt *s)
{
	if (s->line)
		for (int i = 0; i < s->nlines; i++)
			coh_line_free(&s->line[i].c);
	free(s->line);
	free(s->req);
	free(s->picked);
	free(s->xfer);
	coh_model_free(&s->coh);
	engine_free(&s->eng);
}
