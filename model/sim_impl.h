/* SPDX-License-Identifier: MIT */
/*
 * Inside one simulation (sim.h): the state the three parts of sim_run
 * share.  sim_setup.c instantiates a scenario's objects on lines and locks
 * and places the tasks; sim_interp.c interprets the program for each task on
 * the runtime (runtime.h); sim_window.c runs the engine, measures the window
 * and estimates a run's work before it runs.
 */
#ifndef MMSIM_SIM_IMPL_H
#define MMSIM_SIM_IMPL_H

#include "lock.h"
#include "runtime.h"
#include "sim.h"

#define LOOP_DEPTH 16

/* A task: the runtime's record first (runtime.h), then the interpreter's. */
struct sim_task {
	struct rt_task rt;
	int pc;
	int role;	     /* its role, prog->nrole for none (scenario_assign_roles) */
	double ps_per_cycle; /* a [costs] cycle: at the busy cores' frequency, x cost_scale, the sibling idle */
	int sibling;	     /* the task on the other hardware thread of its core, -1 */
	int corun_others;    /* CPUs on the other cores (corun_stretch's denominator) */
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
	int *lay_at;	     /* a folio layout's 'every': the unit whose end comes next (NULL: no layouts) */
	int64_t unit;	     /* pages of the unit the last layout 'every' fired on ('repeat unit_pages') */
	int64_t unit_folios; /* its folios ('repeat unit_folios') */
	int64_t unit_fpages; /* their pages ('repeat unit_folio_pages') */
	int64_t unit_large;  /* 1: a run of one large folio ('repeat unit_large_folio') */
	double ops, units;
	sim_time_t done_at;
	sim_time_t mark;	  /* when its previous step ended */
	double mem_ps;		  /* time spent streaming */
	sim_time_t debt;	  /* IPI handlers run on its CPU, not yet charged */
	double cold;		  /* the share of its 'miss' accesses that go to DRAM (cold_fraction) */
	double op_factor;	  /* this operation's op_jitter factor; 0: not drawn yet */
	int scope_at[SC_NSCOPES]; /* the instance of each scope it uses (scope_inst), set once */
};

/* Where an object's instances start (its first line, or first lock_inst), how many there are per
 * scope instance, and its scope: what the interpreter needs to find one, resolved once. */
struct obj_at {
	int base, count;
	enum sc_scope scope;
};

/* Time spent in one program step and its visits: in the measurement window, and over the whole
 * run; one record, so that a visit updates one cache line. */
struct step_acc {
	double ps, n;
	double ps_all, n_all;
};

/* A set of objects sharing one cache line name, with its scope. */
struct line_group {
	char name[SC_NAME];
	enum sc_scope scope;
	int count;  /* lines per scope instance */
	int percpu; /* a per-CPU role of a lock: count = objects x CPUs, line k on CPU k % ncpus */
	int base, ninst;
};

struct sim {
	struct rt rt;			 /* first: the runtime's callbacks find the sim from it */
	struct sim_lock_stats lock_sink; /* the counts of locks past SIM_MAX_STATS (not reported) */
	const struct sim_config *cfg;
	const struct program *prog;
	const struct scenario *sc;
	struct sim_task *task;
	int *task_of_cpu;
	int ngroups;
	struct line_group *group;
	int (*obj_group)[LK_MAX_LINES]; /* field object -> group in [0]; lock object -> group of each line role */
	int *obj_lockbase;		/* lock object -> first lock_inst */
	struct obj_at *obj_at;		/* field object -> its lines; lock object -> its lock_insts */
	int nlocks;
	struct lock_inst *lock;
	char *lk_priv; /* the lock designs' per-task state, lk_priv_size bytes a task */
	size_t lk_priv_size;
	int node_base; /* per-task lines (qspinlock MCS nodes): node_base + task */
	double jitter;
	double op_jitter;
	int ndone;
	struct step_acc *step; /* per program step (Little's law estimator) */
	uint64_t visits;       /* step visits interpreted: the work measure besides events */
	uint64_t work_cap;     /* events + visits past which the run is stopped (a wrong estimate) */
	double *iter_units;    /* per role, per REPEAT step: units of one iteration (sim_iter_units), else 0 */
	/* a scenario with roles: the run's visits per operation of the average task, and per role
	 * the step times and visits (rstep[role * n + pc]) */
	int role_count[SC_MAX_ROLES + 1];
	double *mix_visits;
	struct step_acc *rstep;
	uint64_t ops_done; /* operations completed by all tasks */
	sim_time_t win_t0; /* start of the measurement window (0 before) */
	int measuring;
	double *step_sleep; /* per step: time asleep in it, in the window */
	double *bw_bytes;   /* per node: bytes streamed in the window */
	double *line_t0;    /* per line: busy time at the window's start */
	struct sim_result *res;
};

/* The instance of scope @sc that task @t uses. */
static inline int scope_inst(const struct sim *s, enum sc_scope sc, const struct sim_task *t)
{
	switch (sc) {
	case SC_GLOBAL:
	case SC_MEMCG:
		return 0;
	case SC_NODE:
		return s->cfg->topo->cpu[t->rt.cpu].numa;
	case SC_CPU:
		return t->rt.cpu;
	case SC_MM:
		return s->cfg->mode == SC_THREADS ? 0 : t->rt.id;
	default:
		return t->rt.id;
	}
}

/* An interval that began at @t, counted from the window's start if it began before. */
static inline sim_time_t win_from(const struct sim *s, sim_time_t t)
{
	return t > s->win_t0 ? t : s->win_t0;
}

/* sim_setup.c: lines, locks and tasks of the run (s->cfg, s->prog, s->rt's engine and coherence
 * set); 0 or an MM_* error.  sim_teardown() frees what sim_setup() made, also after a failure. */
int sim_setup(struct sim *s);
void sim_teardown(struct sim *s);

/* sim_interp.c */
extern const struct rt_client sim_client; /* resume: the interpreter */
void sim_skip_ahead(struct sim *s, struct sim_task *t);
double sim_iter_units(const struct program *pr, int pc, int role);
int sim_work_exceeded(const struct sim *s);

#endif
