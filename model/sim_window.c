/* SPDX-License-Identifier: MIT */
/*
 * One run (sim.h): the engine driven through a warm-up and a measurement
 * window, or through a fixed amount of work, and what the window saw; and
 * the work a run will cost, estimated before it runs.
 */
#include "sim_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Operations done, and the share of the current one by its steps (a task's own, by its role). */
static double progress(const struct sim *s, const struct sim_task *t)
{
	double f = t->units / s->prog->role_units[t->role];

	return t->ops + (f < 1 ? f : 0.999999);
}

/* Where the window's time went: steps (asleep or not), locks, lines, bandwidth. */
static void window_stats(struct sim *s, sim_time_t t1)
{
	struct sim_result *res = s->res;
	double win = (double)(t1 - s->win_t0);

	for (int i = 0; i < s->rt.ntasks; i++) {
		const struct sim_task *t = &s->task[i];
		sim_time_t from = win_from(s, t->rt.sleep_since);

		if (t->rt.state == T_SLEEP && t1 > from)
			s->step_sleep[t->pc] += (double)(t1 - from);
	}
	if (s->cfg->steps)
		for (int pc = 0; pc < s->prog->n; pc++) {
			s->cfg->steps[pc].task_ps = s->step[pc].ps;
			s->cfg->steps[pc].sleep_ps = s->step_sleep[pc];
			s->cfg->steps[pc].visits = s->step[pc].n;
		}
	for (int i = 0; i < s->nlocks; i++) {
		struct lock_inst *lk = &s->lock[i];
		struct sim_lock_stats *st = lk->st;

		if (lk->in_writers > 0 && t1 > lk->held_since)
			lk->held_ps += (double)(t1 - win_from(s, lk->held_since));
		st->ninst++;
		st->held_ps += lk->held_ps;
		if (lk->held_ps > st->max_held_ps)
			st->max_held_ps = lk->held_ps;
	}
	for (int li = 0; li < s->rt.nlines; li++) {
		const struct rt_line *l = &s->rt.line[li];
		double busy = ((double)l->busy_ps - s->line_t0[li]) / 1000.0;

		if (l->stat >= 0 && busy > res->lines[l->stat].window_busy_ns)
			res->lines[l->stat].window_busy_ns = busy;
	}
	res->nnodes_all = s->cfg->topo->nnuma;
	res->nnodes = res->nnodes_all < SIM_MAX_BW_NODES ? res->nnodes_all : SIM_MAX_BW_NODES;
	for (int n = 0; n < res->nnodes; n++)
		res->bw_gbs[n] = win > 0 ? s->bw_bytes[n] / win * 1000.0 : 0;
	for (int i = 0; i < s->rt.ntasks; i++)
		if (s->task[i].cold > res->cold_max)
			res->cold_max = s->task[i].cold;
}

/*
 * A scenario with roles, at the window's end: each role's rate by Little's law from its own
 * tasks' step times (its tasks / the mean duration of its operation, as for the whole run
 * below), or from its counted progress where a step of it was never seen; the run's rate is
 * their sum.  @p0: each task's progress at the window's start.
 */
static void role_rates(struct sim *s, const double *p0)
{
	struct sim_result *res = s->res;
	const struct program *pr = s->prog;
	double counted[SIM_MAX_ROLES] = {0}, total = 0;

	for (int i = 0; i < s->rt.ntasks; i++)
		counted[s->task[i].role] += progress(s, &s->task[i]) - p0[i];
	for (int r = 0; r <= pr->nrole; r++) {
		struct sim_role_stats *rs = &res->roles[r];
		double op_ps = 0;
		int known = 1;

		for (int pc = 0; pc < pr->n && known; pc++) {
			size_t k = (size_t)r * pr->n + pc;
			double v = pr->role_visits[k];

			if (v <= 0)
				continue;
			const struct step_acc *a = &s->rstep[k];

			if (a->n > 0 || a->ps > 0)
				op_ps += v * a->ps / (a->n > 0 ? a->n : 1);
			else if (a->n_all > 0)
				op_ps += v * a->ps_all / a->n_all;
			else
				known = 0;
		}
		if (!s->role_count[r])
			rs->ops_per_s = 0;
		else if (known && op_ps > 0)
			rs->ops_per_s = s->role_count[r] * 1e12 / op_ps;
		else
			rs->ops_per_s = counted[r] / res->window_s;
		rs->ops = rs->ops_per_s * res->window_s;
		total += rs->ops_per_s;
	}
	res->ops_per_s = total;
	res->ops = total * res->window_s;
}

static sim_time_t slept(const struct sim_task *t, sim_time_t at)
{
	return t->rt.sleep_total + (t->rt.state == T_SLEEP && at > t->rt.sleep_since ? at - t->rt.sleep_since : 0);
}

/* How far a run is, for a progress line: operations done of the fixed work, else the warm-up
 * and the window's work counted as their ends are (a rare step can stretch both). */
static double run_fraction(const struct sim *s, int measuring, uint64_t e0, uint64_t v0, uint64_t warm, uint64_t meas)
{
	double f;

	if (s->cfg->ops_per_task > 0)
		return (double)s->ops_done / ((double)s->cfg->ops_per_task * s->rt.ntasks);
	if (!measuring) {
		f = 0.2 * (double)s->rt.eng.delivered / (double)warm;
		return f < 0.2 ? f : 0.2;
	}
	f = 0.2 + 0.8 * (double)(s->rt.eng.delivered - e0 + (s->visits - v0) / 16) / (double)meas;
	return f < 0.99 ? f : 0.99;
}

/* From the window's start, an explain run (cfg->steps) counts each line's transfers by source,
 * for its c2c view; other runs do not pay for it.  0 or MM_ENOMEM. */
static int count_transfers(struct sim *s)
{
	if (!s->cfg->steps)
		return 0;
	s->rt.xfer = calloc((size_t)s->rt.nlines * COH_NSOURCES + 1, sizeof(uint64_t));
	return s->rt.xfer ? 0 : mm_fail(s->rt.err, MM_ENOMEM, "out of memory for line statistics");
}

int sim_run(const struct sim_config *cfg, struct sim_result *res, struct mm_error *err)
{
	struct sim s;
	struct engine_event ev;
	double *p0 = NULL;
	sim_time_t *sl0 = NULL, t0 = 0;
	uint64_t warm, meas, e0 = 0, v0 = 0, o0 = 0;
	int rc, measuring = 0, complete = 0, rare_pc = -1, nslots;
	double rarest;
	const double *visits = cfg->prog->visits; /* per operation of the average task of this run */

	memset(&s, 0, sizeof(s));
	memset(res, 0, sizeof(*res));
	s.cfg = cfg;
	s.prog = cfg->prog;
	s.sc = cfg->prog->sc;
	s.rt.err = err;
	s.res = res;
	res->ntasks = cfg->ntasks;
	if (cfg->ntasks < 1)
		return mm_fail(err, MM_EINVAL, "the number of tasks must be at least 1");
	s.rt.hit_ps = cfg->hw->lat_ps[TOPO_SELF];
	s.rt.atomic_ps = cfg->hw->atomic_ps;
	s.rt.pause_ps = cfg->hw->pause_ps;
	s.rt.wakeup_ps = cfg->hw->wakeup_ps;
	s.rt.wake_step_ps = cfg->hw->wake_step_ps;
	s.rt.sched_out_ps = cfg->hw->sched_out_ps;
	s.rt.sched_in_ps = cfg->hw->sched_in_ps;
	s.jitter = cfg->hw->jitter;
	s.op_jitter = cfg->hw->op_jitter;
	s.rt.rng = cfg->seed * 0x2545f4914f6cdd1dULL + (uint64_t)cfg->ntasks;
	if ((rc = engine_init(&s.rt.eng, 8 * (size_t)cfg->ntasks + 64)) ||
	    (rc = coh_model_init(&s.rt.coh, cfg->topo, cfg->hw))) {
		rc = mm_fail(err, MM_ENOMEM, "out of memory");
		goto out;
	}
	s.work_cap = cfg->max_work > 0 ? (uint64_t)fmin(cfg->max_work, 1.8e19) : (uint64_t)SIM_MAX_WORK;
	if ((rc = sim_setup(&s)))
		goto out;
	nslots = s.prog->nrole + 1;
	s.iter_units = calloc((size_t)nslots * s.prog->n + 1, sizeof(double));
	if (!s.iter_units) {
		rc = mm_fail(err, MM_ENOMEM, "out of memory");
		goto out;
	}
	for (int r = 0; r < nslots; r++)
		for (int pc = 0; pc < s.prog->n; pc++)
			if (s.prog->insn[pc].act == SA_REPEAT)
				s.iter_units[(size_t)r * s.prog->n + pc] = sim_iter_units(s.prog, pc, r);
	if (s.prog->nrole) {
		size_t nk = (size_t)nslots * s.prog->n + 1;

		s.mix_visits = calloc(s.prog->n + 1, sizeof(double));
		s.rstep = calloc(nk, sizeof(*s.rstep));
		if (!s.mix_visits || !s.rstep) {
			rc = mm_fail(err, MM_ENOMEM, "out of memory");
			goto out;
		}
		program_mix_visits(s.prog, s.role_count, s.mix_visits);
		visits = s.mix_visits;
	}
	s.step = calloc(s.prog->n + 1, sizeof(*s.step));
	if (!s.step) {
		rc = mm_fail(err, MM_ENOMEM, "out of memory");
		goto out;
	}
	p0 = calloc(s.rt.ntasks, sizeof(double));
	sl0 = calloc(s.rt.ntasks, sizeof(sim_time_t));
	s.step_sleep = calloc(s.prog->n + 1, sizeof(double));
	s.line_t0 = calloc(s.rt.nlines + 1, sizeof(double));
	if (!p0 || !sl0 || !s.step_sleep || !s.line_t0) {
		rc = mm_fail(err, MM_ENOMEM, "out of memory");
		goto out;
	}
	rarest = 1;
	for (int pc = 0; pc < s.prog->n; pc++) /* as program_rarest_visits, over this run's tasks */
		if (visits[pc] > 0 && visits[pc] < rarest)
			rarest = visits[pc];
	warm = cfg->warmup_events ? cfg->warmup_events : 20000 + 1000ULL * s.rt.ntasks;
	/* a step rarer than once an operation (an munmap every 32768 faults): the warm-up and the
	 * window each last until it has been visited once per task, so that a convoy it causes has
	 * formed before the window and is seen whole in it */
	for (int pc = 0; pc < s.prog->n && rarest < 1 && rare_pc < 0; pc++)
		if (visits[pc] == rarest)
			rare_pc = pc;
	meas = cfg->measure_events ? cfg->measure_events : 200000 + 2000ULL * s.rt.ntasks;

	/* every task starts at time 0, as after will-it-scale's start gate; when measuring
	 * throughput, each at a random point of its operation (skip_ahead) */
	s.measuring = cfg->ops_per_task > 0; /* fixed work: the whole run is the window */
	if (s.measuring && (rc = count_transfers(&s)))
		goto out;
	for (int i = 0; i < s.rt.ntasks; i++) {
		if (cfg->ops_per_task <= 0 && !cfg->aligned_start)
			sim_skip_ahead(&s, &s.task[i]);
		rt_schedule(&s.rt, 0, EV_RESUME, i, 0);
	}

	while (!s.rt.failed && engine_next(&s.rt.eng, &ev)) {
		rt_dispatch(&s.rt, &ev);
		if ((s.rt.eng.delivered & 0xffff) == 0) {
			if (s.rt.eng.delivered + s.visits > s.work_cap && !s.rt.failed) {
				s.rt.failed = sim_work_exceeded(&s);
				break;
			}
			if (cfg->tick)
				cfg->tick(cfg->tick_arg, cfg->tick_id, run_fraction(&s, measuring, e0, v0, warm, meas));
		}
		if (cfg->ops_per_task > 0) {
			if (s.ndone == s.rt.ntasks)
				break;
			continue;
		}
		/* warm-up: a number of events; tasks started at random points of their
		 * operation (skip_ahead) are near their steady state from the start, except
		 * for what the rare step builds up (above) */
		if (!measuring && s.rt.eng.delivered >= warm &&
		    (rare_pc < 0 || s.step[rare_pc].n_all >= s.rt.ntasks || s.rt.eng.delivered >= 50 * warm)) {
			measuring = 1;
			t0 = s.rt.eng.now;
			e0 = s.rt.eng.delivered;
			v0 = s.visits;
			for (int i = 0; i < s.rt.ntasks; i++) {
				p0[i] = progress(&s, &s.task[i]);
				sl0[i] = slept(&s.task[i], t0);
			}
			for (int pc = 0; pc < s.prog->n; pc++)
				s.step[pc].ps = s.step[pc].n = 0;
			for (size_t k = 0; s.rstep && k < (size_t)nslots * s.prog->n; k++)
				s.rstep[k].ps = s.rstep[k].n = 0;
			s.win_t0 = t0;
			s.measuring = 1;
			if ((rc = count_transfers(&s)))
				goto out;
			o0 = s.ops_done;
			for (int li = 0; li < s.rt.nlines; li++)
				s.line_t0[li] = (double)s.rt.line[li].busy_ps;
		} else if (measuring && s.rt.eng.now > t0) {
			/* events, or the private steps interpreted between them, whichever
			 * is the work: a scenario of private steps makes few events.  The
			 * window also spans one visit per task of the rarest step (an
			 * munmap every 32768 faults), counted: the operations done run
			 * ahead of it while a convoy forms; up to 50 times the work asked
			 * for. */
			uint64_t work = s.rt.eng.delivered - e0 + (s.visits - v0) / 16;
			int seen =
			    rare_pc >= 0 ? s.step[rare_pc].n >= s.rt.ntasks : s.ops_done - o0 >= (uint64_t)s.rt.ntasks;

			if (work >= meas && (seen || work >= 50 * meas)) {
				complete = 1;
				break;
			}
		}
	}
	if (s.rt.failed) {
		rc = s.rt.failed;
		goto out;
	}
	res->events = s.rt.eng.delivered;
	res->visits = s.visits;
	if (cfg->ops_per_task > 0) {
		sim_time_t end = 0, busy = 0;

		if (s.ndone < s.rt.ntasks) {
			rc = mm_fail(err, MM_ESTALL,
				     "the simulation stalled at %.3f us with %d of %d tasks unfinished (a lost "
				     "wake-up or a lock never released)",
				     s.rt.eng.now / 1e6, s.rt.ntasks - s.ndone, s.rt.ntasks);
			goto out;
		}
		for (int i = 0; i < s.rt.ntasks; i++)
			if (s.task[i].done_at > end)
				end = s.task[i].done_at;
		for (int i = 0; i < s.rt.ntasks; i++)
			busy += s.task[i].done_at - s.task[i].rt.sleep_total;
		res->makespan_s = end / 1e12;
		res->window_s = res->makespan_s;
		res->ops = (double)cfg->ops_per_task * s.rt.ntasks;
		res->min_task_ops = res->max_task_ops = (double)cfg->ops_per_task;
		res->idle_pct = end > 0 ? 100.0 * (1.0 - (double)busy / ((double)end * cfg->topo->ncpus)) : 100.0;
		window_stats(&s, end);
	} else {
		sim_time_t t1 = s.rt.eng.now, window = t1 - t0;
		double busy = 0;

		if (!measuring || window <= 0 || !complete) {
			rc = mm_fail(err, MM_ESTALL,
				     "the simulation stalled after %llu events at %.3f us: no task can make progress "
				     "(a lost wake-up or a lock never released)",
				     (unsigned long long)s.rt.eng.delivered, s.rt.eng.now / 1e6);
			goto out;
		}
		res->min_task_ops = 1e300;
		for (int i = 0; i < s.rt.ntasks; i++) {
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

		for (int i = 0; i < s.rt.ntasks; i++) {
			const struct sim_task *t = &s.task[i];
			sim_time_t from = t->mark > t0 ? t->mark : t0;

			if (t->rt.state != T_DONE && t->pc < s.prog->n && t1 > from) {
				s.step[t->pc].ps += (double)(t1 - from);
				if (s.rstep)
					s.rstep[(size_t)t->role * s.prog->n + t->pc].ps += (double)(t1 - from);
			}
		}
		for (int pc = 0; pc < s.prog->n && known && !s.prog->nrole; pc++) {
			if (s.prog->visits[pc] <= 0)
				continue;
			const struct step_acc *a = &s.step[pc];

			if (a->n > 0 || a->ps > 0)
				op_ps += s.prog->visits[pc] * a->ps / (a->n > 0 ? a->n : 1);
			else if (a->n_all > 0)
				op_ps += s.prog->visits[pc] * a->ps_all / a->n_all;
			else
				known = 0;
		}
		if (s.prog->nrole) {
			role_rates(&s, p0);
		} else if (known && op_ps > 0) {
			res->ops_per_s = s.rt.ntasks * 1e12 / op_ps;
			res->ops = res->ops_per_s * res->window_s;
		}
		window_stats(&s, t1);
	}
	if (cfg->ops_per_task > 0)
		res->ops_per_s = res->ops / res->window_s;
	res->ops_per_s_task = res->ops_per_s / s.rt.ntasks;
	if (cfg->ops_per_task > 0 && s.prog->nrole) { /* each role's rate over its own makespan */
		for (int r = 0; r < nslots; r++) {
			struct sim_role_stats *rs = &res->roles[r];
			sim_time_t end = 0;

			for (int i = 0; i < s.rt.ntasks; i++)
				if (s.task[i].role == r && s.task[i].done_at > end)
					end = s.task[i].done_at;
			rs->ops = (double)cfg->ops_per_task * s.role_count[r];
			rs->ops_per_s = end > 0 ? rs->ops / (end / 1e12) : 0;
		}
	}
	for (int r = 0; r < nslots && s.prog->nrole; r++)
		res->roles[r].ops_per_s_task = s.role_count[r] ? res->roles[r].ops_per_s / s.role_count[r] : 0;
	for (int li = 0; li < s.rt.nlines; li++) {
		struct rt_line *l = &s.rt.line[li];

		if (l->stat < 0)
			continue;
		res->lines[l->stat].grants += l->c.grants;
		res->lines[l->stat].transfers += l->c.transfers;
		res->lines[l->stat].transfer_ns += l->c.transfer_ps / 1000.0;
		for (int k = 0; k < COH_NSOURCES && s.rt.xfer; k++)
			res->lines[l->stat].xfer[k] += s.rt.xfer[(size_t)li * COH_NSOURCES + k];
	}
	rc = 0;
out:
	free(p0);
	free(sl0);
	free(s.step);
	free(s.iter_units);
	free(s.mix_visits);
	free(s.rstep);
	sim_teardown(&s);
	return rc;
}

/* ---- the work of a run, before running it ------------------------------- */

/* Steps skip_ahead walks one at a time through pcs [from, to) at most, for a task of role @role
 * (repeats without an 'every' or a 'choose' are jumped over, skip_iterations). */
static double walk_cost(const struct program *pr, int from, int to, int role)
{
	double c = 0;

	for (int i = from; i < to; i++) {
		const struct prog_insn *in = &pr->insn[i];

		c += 1;
		if (in->act == SA_REPEAT && in->count > 0) {
			double body = walk_cost(pr, i + 1, in->match, role) + 1;

			c += sim_iter_units(pr, i, role) > 0 ? body : (double)in->count * body;
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
	double upo = pr->units_per_op, walk;
	const double *visits = pr->visits;
	double *mix = NULL;
	int count[SC_MAX_ROLES + 1];

	/* roles: the steps of this run's average task (roles that do not fit: sim_run says so) */
	if (pr->nrole && !scenario_assign_roles(pr->sc, cfg->ntasks, NULL, count, NULL) &&
	    (mix = calloc(pr->n + 1, sizeof(double)))) {
		upo = program_mix_visits(pr, count, mix);
		visits = mix;
		rarest = 1;
		for (int pc = 0; pc < pr->n; pc++)
			if (mix[pc] > 0 && mix[pc] < rarest)
				rarest = mix[pc];
	}
	walk = walk_cost(pr, 0, pr->n, pr->nrole);
	for (int k = 0; k < pr->nrole; k++) /* the longest walk of any role */
		walk = fmax(walk, walk_cost(pr, 0, pr->n, k));

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
			shared += 2 * visits[pc];
			break;
		default:
			break;
		}
	r = upo / shared; /* steps interpreted per event */
	if (cfg->ops_per_task > 0) {
		total = n * (double)cfg->ops_per_task * (upo + shared);
		if (why)
			snprintf(why, why_len,
				 "%lld operations per task (--ops-per-task or the scenario's work) x %d "
				 "task%s",
				 (long long)cfg->ops_per_task, cfg->ntasks, cfg->ntasks > 1 ? "s" : "");
	} else {
		/* sim_run's rules: a warm-up of events, a window of events + steps / 16, both
		 * stretched (to 50 times) until each task has done the rarest step once */
		double seen = n * upo / rarest, base_vis = meas * r / (1 + r / 16);
		double warm_vis = warm * r, win_vis = base_vis;

		if (rarest < 1 && seen > warm_vis)
			warm_vis = fmin(seen, 50 * warm_vis);
		if (seen > win_vis)
			win_vis = fmin(seen, 50 * meas / (1 / r + 1.0 / 16));
		total = warm + warm_vis + win_vis / r + win_vis + n * fmin(walk, upo + pr->n);
		if (why)
			snprintf(why, why_len, "%.3g events measured (--events) at %d task%s", meas, cfg->ntasks,
				 cfg->ntasks > 1 ? "s" : "");
	}
	/* whatever the window, a point means nothing before one task has done one operation */
	if (total < upo)
		total = upo;
	if (why && upo > 1e6)
		name_repeats(pr, why, why_len);
	free(mix);
	return total;
}
