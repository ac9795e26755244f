/* SPDX-License-Identifier: MIT */
/*
 * One simulation: a machine (topology + hardware profile), a kernel
 * profile, a compiled scenario program and a number of tasks placed as
 * will-it-scale places them.  Each task runs the operation in a loop.
 * sim_run() measures throughput after a warm-up, or, in fixed-work mode,
 * the makespan of K operations per task.  All state lives in the run, so
 * runs of different points proceed side by side in OpenMP threads.
 */
#ifndef MMSIM_SIM_H
#define MMSIM_SIM_H

#include <stdint.h>
#include "coherence.h"
#include "engine.h"
#include "profile.h"
#include "lock.h"
#include "scenario.h"
#include "topology.h"

/*
 * A what-if on one shared resource, to see how much it limits (explain --verify, --relieve):
 * every transfer of a cache line costs @factor times as much; or everything a holder of a lock
 * does while it holds it exclusively (a spinlock, a writer: its work, streaming, misses and line
 * transfers) takes @factor times as long; or what a reader of it does while it holds it for read
 * (a writer waits for the readers to drain); or the wake-up of a task asleep waiting for it.
 */
enum sim_relief_kind { SIM_RELIEVE_LINE = 1, SIM_RELIEVE_HOLD, SIM_RELIEVE_READ, SIM_RELIEVE_WAKE };

struct sim_relief {
	enum sim_relief_kind kind;
	char name[SC_NAME]; /* the line (as explain names it), or the lock object */
	double factor;	    /* in (0, 1]: 0.5 halves the cost */
};

struct sim_config {
	const struct topology *topo;
	const struct hw_profile *hw;
	const struct kernel_profile *kernel;
	const struct program *prog;
	enum sc_mode mode;
	int ntasks;
	uint64_t seed;
	int64_t ops_per_task;		  /* > 0: fixed work; the result is the makespan */
	uint64_t warmup_events;		  /* 0: a default scaled to the task count */
	uint64_t measure_events;	  /* 0: a default scaled to the task count */
	const char *lock_design_override; /* tests: force every lock to this design */
	int aligned_start;		  /* start every task at the beginning of its operation */
	int skip_by_steps;		  /* tests: skip_ahead walks every step, jumping no repeat */
	struct sim_step_stats *steps;	  /* NULL, or prog->n entries to fill (explain) */
	double max_work;		  /* events + steps past which the run fails; 0: SIM_MAX_WORK */
	const struct sim_relief *relief;  /* NULL, or a what-if on one resource */
	/* progress: called now and then from the thread running the simulation */
	void (*tick)(void *arg, int id, double fraction);
	void *tick_arg;
	int tick_id;
};

/* The default bound on a run's work (events + steps interpreted): tens of minutes
 * of one core (3e7 to 7e7 a second measured on the development VM). */
#define SIM_MAX_WORK 1e11

#define SIM_MAX_STATS 32

/* The most cache lines a run's objects may take (a scenario's counts times their instances, and
 * per-CPU objects times the CPUs): about 0.7 GB of line state; beyond, an error */
#define SIM_MAX_LINES (1 << 23)

struct sim_line_stats {
	char name[SC_NAME];
	uint64_t grants, transfers;
	double transfer_ns;
	double window_busy_ns; /* in the window: transfers in flight, busiest instance */
	/* in the window, over all its instances: the transfers by where they came from (a distance
	 * class, enum topo_dist, or memory: coh_source) */
	uint64_t xfer[COH_NSOURCES];
};

/* Where the time of the measurement window went, per program step (explain). */
struct sim_step_stats {
	double task_ps;	 /* task-time spent in the step */
	double sleep_ps; /* of which asleep (off-CPU) */
	double visits;
};

/* A step's task-time on a CPU (as perf sees it): what was not asleep. */
static inline double sim_step_on_ps(const struct sim_step_stats *st)
{
	return st->task_ps - (st->sleep_ps < st->task_ps ? st->sleep_ps : st->task_ps);
}

/* The tasks of one role (scenario.h), and the operations they did. */
struct sim_role_stats {
	char name[SC_NAME]; /* "(none)": the tasks without a role */
	int ntasks;
	double ops; /* in the window (fractional) */
	double ops_per_s, ops_per_s_task;
};

#define SIM_MAX_ROLES (SC_MAX_ROLES + 1)

#define SIM_MAX_BW_NODES 64

struct sim_result {
	int ntasks;
	double ops;	  /* operations completed in the window (fractional) */
	double window_s;  /* simulated seconds measured */
	double ops_per_s; /* total over all tasks */
	double ops_per_s_task;
	double idle_pct;   /* machine-wide, as runtest.py: sleeping CPUs and CPUs without a task */
	double makespan_s; /* fixed-work mode */
	uint64_t events;
	uint64_t visits; /* step visits interpreted (with events, the work sim_work_estimate predicts) */
	double min_task_ops, max_task_ops; /* fairness: operations per task in the window */
	int nlocks, nlines;
	/* locks and lines past the first SIM_MAX_STATS: simulated, not in locks[] or lines[] */
	int nlocks_untracked, nlines_untracked;
	struct sim_lock_stats locks[SIM_MAX_STATS];
	struct sim_line_stats lines[SIM_MAX_STATS];
	uint64_t ipis;			 /* IPIs received in the window */
	double bw_gbs[SIM_MAX_BW_NODES]; /* DRAM traffic of the NUMA nodes in the window, GB/s */
	int nnodes;			 /* of them in bw_gbs: the first SIM_MAX_BW_NODES */
	int nnodes_all;			 /* the machine's */
	double cold_max;		 /* the largest share of a task's 'miss' accesses that go to DRAM */
	struct sim_step_stats *steps;	 /* per program step, when the config asks (explain) */
	/* a scenario with roles: each declared role, then "(none)" if some tasks have no role */
	int nroles;
	struct sim_role_stats roles[SIM_MAX_ROLES];
};

int sim_run(const struct sim_config *cfg, struct sim_result *res, struct mm_error *err);

/* What sim_run(@cfg) is expected to cost, in events + steps interpreted, before running it; and
 * in @why (if not NULL) which input makes it so. */
double sim_work_estimate(const struct sim_config *cfg, char *why, size_t why_len);

/* The share of a 'miss' step's accesses that go to DRAM when @ntasks tasks of one L3 domain
 * each cycle through @footprint bytes and the domain caches @llc bytes (0 when either is 0). */
double cold_fraction(double llc, double footprint, int ntasks);

#endif
