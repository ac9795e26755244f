/* SPDX-License-Identifier: MIT */
/*
 * Instantiation: the tasks placed on CPUs, the scenario's objects on cache
 * lines as the kernel profile's [layout] groups them, one instance per scope
 * instance, and the lock instances on their lines with the design the kernel
 * profile picks for each kind.
 */
#include "sim_impl.h"

#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

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
		return s->cfg->mode == SC_THREADS ? 1 : s->rt.ntasks;
	default:
		return s->rt.ntasks;
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
		*home = topo->cpu[s->task[0].rt.cpu].numa;
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
			*home = topo->cpu[s->task[0].rt.cpu].numa; /* the main thread allocated the mm */
			break;
		}
		/* one mm per process */
		__attribute__((fallthrough));
	default:
		*home = topo->cpu[s->task[inst].rt.cpu].numa;
		*priv = inst;
		break;
	}
}

/* The group of line @line_name for object @o (@count lines per scope instance); @percpu: one
 * line per CPU in each, homed on that CPU's node. */
static int add_group(struct sim *s, const char *line_name, const struct sc_object *o, int count, int percpu, int *out)
{
	for (int g = 0; g < s->ngroups; g++) {
		if (strcmp(s->group[g].name, line_name))
			continue;
		if (s->group[g].scope != o->scope || s->group[g].count != count || s->group[g].percpu != percpu)
			return mm_fail(s->rt.err, MM_EPARSE,
				       "%s:%d: '%s' (scope %s, count %d) is on line '%s' with objects of scope %s, "
				       "count %d: a line has one scope",
				       s->sc->path, o->line_no, o->name, sc_scope_name(o->scope), o->count, line_name,
				       sc_scope_name(s->group[g].scope), s->group[g].count);
		*out = g;
		return 0;
	}
	snprintf(s->group[s->ngroups].name, SC_NAME, "%s", line_name);
	s->group[s->ngroups].scope = o->scope;
	s->group[s->ngroups].count = count;
	s->group[s->ngroups].percpu = percpu;
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
	if (s->cfg->lock_design_override)
		return lock_design_find(s->cfg->lock_design_override);
	return lock_design_for(o->kind, s->cfg->kernel);
}

/* The groups of lock object @o's lines, one per role of its design @d. */
static int lock_groups(struct sim *s, int o, const struct lock_design *d)
{
	const struct sc_object *ob = &s->sc->obj[o];
	const struct kernel_profile *k = s->cfg->kernel;
	int n = d->nlines > 0 ? d->nlines : 1, rc = 0;

	for (int r = 0; r < n && !rc; r++) {
		const struct lk_line_role *role = &d->lines[r];
		char buf[2 * SC_NAME];

		if (role->kind == LR_PERCPU) {
			if ((int64_t)ob->count * s->cfg->topo->ncpus > SIM_MAX_LINES)
				return mm_fail(s->rt.err, MM_ERANGE,
					       "%s:%d: '%s' (count %d) needs %lld per-CPU cache lines on %d CPUs, more "
					       "than %d",
					       s->sc->path, ob->line_no, ob->name, ob->count,
					       (long long)ob->count * s->cfg->topo->ncpus, s->cfg->topo->ncpus,
					       SIM_MAX_LINES);
			snprintf(buf, sizeof(buf), "%s.%s", ob->name, role->field ? role->field : "percpu");
			rc = add_group(s, buf, ob, ob->count * s->cfg->topo->ncpus, 1, &s->obj_group[o][r]);
		} else if (role->field) {
			rc = add_group(s, lock_subline(k, ob->name, role->field, buf, sizeof(buf)), ob, ob->count, 0,
				       &s->obj_group[o][r]);
		} else {
			rc = add_group(s, kernel_line_of(k, ob->name), ob, ob->count, 0, &s->obj_group[o][r]);
		}
	}
	return rc;
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

/* The run's what-if (cfg->relief): mark the lines or lock instances it names; an error when it
 * names none of the run's, listing those it has. */
static int apply_relief(struct sim *s)
{
	const struct sim_relief *rl = s->cfg->relief;
	char have[512] = "";
	int found = 0;

	if (!rl)
		return 0;
	if (!(rl->factor > 0 && rl->factor <= 1e6))
		return mm_fail(s->rt.err, MM_ERANGE, "relief factor %g: expected a number above 0", rl->factor);
	s->rt.relief = rl->factor;
	if (rl->kind == SIM_RELIEVE_LINE) {
		for (int g = 0; g < s->ngroups; g++) {
			const struct line_group *gr = &s->group[g];

			if (strcmp(gr->name, rl->name))
				continue;
			for (int li = gr->base; li < gr->base + gr->ninst * gr->count; li++)
				s->rt.line[li].relieved = 1;
			found = 1;
		}
	} else {
		for (int o = 0; o < s->sc->nobj; o++) {
			const struct sc_object *ob = &s->sc->obj[o];
			int n = scope_ninst(s, ob->scope) * ob->count;

			if (!ob->is_lock || strcmp(ob->name, rl->name))
				continue;
			for (int i = s->obj_lockbase[o]; i < s->obj_lockbase[o] + n; i++) {
				s->lock[i].relieve_hold = rl->kind == SIM_RELIEVE_HOLD;
				s->lock[i].relieve_read = rl->kind == SIM_RELIEVE_READ;
				s->lock[i].relieve_wake = rl->kind == SIM_RELIEVE_WAKE;
			}
			found = 1;
		}
	}
	if (found)
		return 0;
	for (int i = 0; i < (rl->kind == SIM_RELIEVE_LINE ? s->ngroups : s->sc->nobj); i++) {
		const char *name = rl->kind == SIM_RELIEVE_LINE ? s->group[i].name : s->sc->obj[i].name;
		size_t len = strlen(have);

		if (rl->kind != SIM_RELIEVE_LINE && !s->sc->obj[i].is_lock)
			continue;
		snprintf(have + len, sizeof(have) - len, "%s%s", len ? ", " : "", name);
	}
	return mm_fail(s->rt.err, MM_EINVAL, "%s: no %s '%s' to relieve (it has: %s)", s->sc->path,
		       rl->kind == SIM_RELIEVE_LINE ? "cache line" : "lock", rl->name, have[0] ? have : "none");
}

/*
 * A folio layout's 'every' starts where the task is in its pass over the file: the phase of the
 * variant's 'every' over as many visits as a pass has (the remap, every pages_per_map), else the
 * pass's start.  So the faults of each folio class and the munmap keep the file's order.
 */
static int layout_phase(const struct program *pr, struct sim_task *t, struct mm_error *err)
{
	t->lay_at = calloc(pr->n + 1, sizeof(int));
	if (!t->lay_at)
		return mm_fail(err, MM_ENOMEM, "out of memory");
	t->unit = 1;
	t->unit_folios = 1;
	t->unit_fpages = 1;
	t->unit_large = 0;
	for (int pc = 0; pc < pr->n; pc++) {
		const struct prog_insn *in = &pr->insn[pc];
		const struct prog_layout *L;
		int64_t pos = 0;

		if (in->act != SA_EVERY || !in->lay)
			continue;
		L = &pr->layout[in->lay - 1];
		for (int q = 0; q < pr->n; q++)
			if (pr->insn[q].act == SA_EVERY && !pr->insn[q].lay && pr->insn[q].count == L->pass) {
				pos = t->every[q];
				break;
			}
		prog_layout_at(L, pos, &t->lay_at[pc], &t->every[pc]);
	}
	return 0;
}

int sim_setup(struct sim *s)
{
	const struct sim_config *cfg = s->cfg;
	const struct topology *topo = cfg->topo;
	const struct scenario *sc = s->sc;
	int *cpus, rc, nobj = sc->nobj, nlines;
	int active_cores = 0, *core_used, *l3_tasks;
	const struct lock_design **designs;
	double ghz;

	s->rt.ntasks = cfg->ntasks;
	s->rt.client = &sim_client;
	s->rt.task_size = sizeof(struct sim_task);
	s->rt.bw_sum = calloc(topo->nnuma + 1, sizeof(double));
	s->bw_bytes = calloc(topo->nnuma + 1, sizeof(double));
	if (!s->rt.bw_sum || !s->bw_bytes)
		return mm_fail(s->rt.err, MM_ENOMEM, "out of memory");
	cpus = calloc(s->rt.ntasks, sizeof(int));
	s->task = calloc(s->rt.ntasks, sizeof(*s->task));
	s->task_of_cpu = malloc(topo->ncpus * sizeof(int));
	core_used = calloc(topo->ncores, sizeof(int));
	l3_tasks = calloc(topo->nl3 + 1, sizeof(int));
	s->group = calloc(LK_MAX_LINES * nobj + 1, sizeof(*s->group));
	s->obj_group = calloc(nobj + 1, sizeof(*s->obj_group));
	s->obj_lockbase = calloc(nobj + 1, sizeof(int));
	s->obj_at = calloc(nobj + 1, sizeof(*s->obj_at));
	designs = calloc(nobj + 1, sizeof(*designs));
	if (!cpus || !s->task || !s->task_of_cpu || !core_used || !l3_tasks || !s->group || !s->obj_group ||
	    !s->obj_lockbase || !s->obj_at || !designs) {
		rc = mm_fail(s->rt.err, MM_ENOMEM, "out of memory");
		goto out;
	}
	s->rt.task_mem = (char *)s->task;
	if ((rc = topo_place_policy(topo, s->prog->placement, s->rt.ntasks, cpus, s->rt.err)))
		goto out;
	/* each lock object's design, and the per-task state the designs need */
	for (int o = 0; o < nobj; o++) {
		const struct sc_object *ob = &sc->obj[o];

		if (!ob->is_lock)
			continue;
		if (!(designs[o] = design_for(s, ob))) {
			rc = mm_fail(s->rt.err, MM_ENOENT, "no lock design for '%s' (%s)", ob->name, ob->kind->name);
			goto out;
		}
		if (designs[o]->task_size > s->lk_priv_size)
			s->lk_priv_size = designs[o]->task_size;
	}
	/* each task's buffer aligned for any type (rwsem keeps a nested design's state in it) */
	s->lk_priv_size = (s->lk_priv_size + _Alignof(max_align_t) - 1) / _Alignof(max_align_t) * _Alignof(max_align_t);
	if (s->lk_priv_size && !(s->lk_priv = calloc(s->rt.ntasks, s->lk_priv_size))) {
		rc = mm_fail(s->rt.err, MM_ENOMEM, "out of memory");
		goto out;
	}
	for (int c = 0; c < topo->ncpus; c++)
		s->task_of_cpu[c] = -1;
	for (int i = 0; i < s->rt.ntasks; i++) {
		s->task_of_cpu[cpus[i]] = i;
		if (!core_used[topo->cpu[cpus[i]].core]++)
			active_cores++;
	}
	ghz = hw_freq_ghz(cfg->hw, active_cores);
	for (int i = 0; i < s->rt.ntasks; i++)
		l3_tasks[topo->cpu[cpus[i]].l3]++;
	for (int i = 0; i < s->rt.ntasks; i++) {
		struct sim_task *t = &s->task[i];
		int core = topo->cpu[cpus[i]].core;

		t->rt.id = i;
		t->rt.cpu = cpus[i];
		t->rt.node = topo->cpu[cpus[i]].numa;
		t->rt.bw_on = 1;
		t->rt.ps_line = -1;
		t->rt.pf_line = -1;
		t->rt.spin_line = -1;
		t->rt.lk = &t->lk;
		t->lk.priv = s->lk_priv ? s->lk_priv + (size_t)i * s->lk_priv_size : NULL;
		t->fb_obj = -1;
		for (int k = 0; k < SC_NSCOPES; k++)
			t->scope_at[k] = scope_inst(s, (enum sc_scope)k, t);
		/* a cycle of the kernel profile's [costs] (a compute step's or an IPI handler's) takes
		 * cost_scale cycles of this machine; a sibling hardware thread that executes
		 * stretches the work (smt_stretch) */
		t->ps_per_cycle = 1000.0 / ghz * cfg->hw->cost_scale;
		t->cold = cold_fraction(cfg->hw->llc_bytes, s->prog->footprint, l3_tasks[topo->cpu[cpus[i]].l3]);
		t->sibling = -1;
		for (int c = 0; c < topo->ncpus; c++)
			t->corun_others += topo->cpu[c].core != core;
		if (core_used[core] > 1)
			for (int j = 0; j < s->rt.ntasks; j++)
				if (j != i && topo->cpu[cpus[j]].core == core)
					t->sibling = j;
		t->every = calloc(s->prog->n + 1, sizeof(int64_t));
		if (!t->every) {
			rc = mm_fail(s->rt.err, MM_ENOMEM, "out of memory");
			goto out;
		}
		/* Batch counters (vmstat, LRU, rss...) start at random phases, as they are in a
		 * steady state: tasks released together would otherwise fold in lock step. */
		for (int pc = 0; pc < s->prog->n; pc++)
			if (s->prog->insn[pc].act == SA_EVERY && s->prog->insn[pc].count > 1)
				t->every[pc] = (int64_t)(rt_random(&s->rt) % (uint64_t)s->prog->insn[pc].count);
		if (s->prog->nlayout && (rc = layout_phase(s->prog, t, s->rt.err)))
			goto out;
	}

	/* roles, dealt out over the tasks in placement order (scenario_assign_roles) */
	if (sc->nrole) {
		int *role_of = malloc(s->rt.ntasks * sizeof(int));

		if (!role_of) {
			rc = mm_fail(s->rt.err, MM_ENOMEM, "out of memory");
			goto out;
		}
		rc = scenario_assign_roles(sc, s->rt.ntasks, role_of, s->role_count, s->rt.err);
		for (int i = 0; !rc && i < s->rt.ntasks; i++) {
			s->task[i].role = role_of[i];
			s->task[i].rt.realtime = role_of[i] < sc->nrole && sc->role[role_of[i]].rt;
		}
		free(role_of);
		if (rc)
			goto out;
		for (int r = 0; r <= sc->nrole; r++) {
			snprintf(s->res->roles[r].name, SC_NAME, "%s", r < sc->nrole ? sc->role[r].name : "(none)");
			s->res->roles[r].ntasks = s->role_count[r];
		}
		s->res->nroles = sc->nrole + (s->role_count[sc->nrole] > 0);
	} else {
		s->role_count[0] = s->rt.ntasks;
	}

	/* cache lines: objects grouped by the line the kernel layout puts them on */
	for (int o = 0; o < nobj; o++) {
		const struct sc_object *ob = &sc->obj[o];

		if (!ob->is_lock)
			rc = add_group(s, kernel_line_of(cfg->kernel, ob->name), ob, ob->count, 0, &s->obj_group[o][0]);
		else
			rc = lock_groups(s, o, designs[o]);
		if (rc)
			goto out;
	}
	nlines = 0;
	for (int g = 0; g < s->ngroups; g++) {
		int64_t n;

		s->group[g].base = nlines;
		s->group[g].ninst = scope_ninst(s, s->group[g].scope);
		n = (int64_t)s->group[g].ninst * s->group[g].count;
		/* a count of 2^20 times 4096 tasks would overflow an int, and is more than memory holds */
		if (n > SIM_MAX_LINES - nlines - s->rt.ntasks) {
			rc = mm_fail(s->rt.err, MM_ERANGE,
				     "%s: line '%s' (count %d, %d instances at %d tasks) takes the scenario past %d "
				     "cache lines",
				     s->sc->path, s->group[g].name, s->group[g].count, s->group[g].ninst, s->rt.ntasks,
				     SIM_MAX_LINES);
			goto out;
		}
		nlines += (int)n;
	}
	s->node_base = nlines;
	nlines += s->rt.ntasks; /* per-task lines: qspinlock MCS nodes, one per task (CPU) */
	if ((rc = rt_alloc_lines(&s->rt, nlines)))
		goto out;
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

				/* per-CPU data: line k of an instance is CPU k % ncpus's, on its node */
				if (gr->percpu)
					home = topo->cpu[k % topo->ncpus].numa;
				coh_line_init(&s->rt.coh, &s->rt.line[li].c, home);
				/* threads: the main thread (task 0) set the mm up, so its lines start in
				 * that CPU's cache, as a process's private lines do in its own */
				if (gr->scope == SC_MM && cfg->mode == SC_THREADS)
					s->rt.line[li].c.owner = s->rt.line[li].c.last = s->task[0].rt.cpu;
				s->rt.line[li].private_task = priv;
				s->rt.line[li].spin_head = -1;
				s->rt.line[li].stat = stat;
			}
		}
	}
	s->res->nlines = s->ngroups < SIM_MAX_STATS ? s->ngroups : SIM_MAX_STATS;
	s->res->nlines_untracked = s->ngroups - s->res->nlines;
	for (int i = 0; i < s->rt.ntasks; i++) {
		int li = s->node_base + i;

		coh_line_init(&s->rt.coh, &s->rt.line[li].c, topo->cpu[s->task[i].rt.cpu].numa);
		s->rt.line[li].private_task = -1;
		s->rt.line[li].spin_head = -1;
		s->rt.line[li].stat = -1;
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
		rc = mm_fail(s->rt.err, MM_ENOMEM, "out of memory for locks");
		goto out;
	}
	for (int o = 0, nstat = 0; o < nobj; o++) {
		const struct sc_object *ob = &sc->obj[o];
		const struct lock_design *d = designs[o];
		const struct lk_setup su = {.kernel = cfg->kernel, .ntasks = s->rt.ntasks, .ncpus = topo->ncpus};
		int ninst, stat, nroles = d ? (d->nlines > 0 ? d->nlines : 1) : 0;

		if (!ob->is_lock)
			continue;
		/* past the reported ones, a lock is simulated alike and counted as not tracked (it
		 * once shared the last slot, which then bore the last lock's name) */
		stat = nstat < SIM_MAX_STATS ? nstat++ : -1;
		if (stat >= 0) {
			snprintf(s->res->locks[stat].name, SC_NAME, "%s", ob->name);
			snprintf(s->res->locks[stat].design, sizeof(s->res->locks[stat].design), "%s", d->name);
		} else {
			s->res->nlocks_untracked++;
		}
		s->res->nlocks = nstat;
		ninst = scope_ninst(s, ob->scope);
		for (int inst = 0; inst < ninst; inst++) {
			for (int k = 0; k < ob->count; k++) {
				struct lock_inst *lk = &s->lock[s->obj_lockbase[o] + inst * ob->count + k];

				lk->st = stat >= 0 ? &s->res->locks[stat] : &s->lock_sink;
				for (int r = 0; r < nroles; r++) {
					const struct line_group *g = &s->group[s->obj_group[o][r]];
					int per = g->percpu ? topo->ncpus : 1;

					lk->line[r] = g->base + inst * g->count + k * per;
				}
				lk->task_lines = s->node_base;
				if ((rc = lock_inst_init(lk, d, &su, s->rt.err)))
					goto out;
			}
		}
	}
	for (int o = 0; o < nobj; o++) {
		const struct sc_object *ob = &sc->obj[o];
		const struct line_group *g = &s->group[s->obj_group[o][0]];

		if (ob->is_lock)
			s->obj_at[o] = (struct obj_at){s->obj_lockbase[o], ob->count, ob->scope};
		else
			s->obj_at[o] = (struct obj_at){g->base, g->count, g->scope};
	}
	rc = apply_relief(s);
out:
	free(designs);
	free(cpus);
	free(core_used);
	free(l3_tasks);
	return rc;
}

void sim_teardown(struct sim *s)
{
	if (s->task)
		for (int i = 0; i < s->rt.ntasks; i++) {
			free(s->task[i].every);
			free(s->task[i].lay_at);
		}
	if (s->lock)
		for (int i = 0; i < s->nlocks; i++)
			lock_inst_free(&s->lock[i]);
	free(s->task);
	free(s->task_of_cpu);
	free(s->lk_priv);
	free(s->rt.bw_sum);
	free(s->bw_bytes);
	free(s->line_t0);
	free(s->step_sleep);
	free(s->group);
	free(s->obj_group);
	free(s->obj_lockbase);
	free(s->obj_at);
	free(s->lock);
	rt_free(&s->rt);
}
