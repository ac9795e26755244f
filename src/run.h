/* SPDX-License-Identifier: MIT */
/*
 * One run of mmsim: the curves of some scenario variants on one machine, the simulations that
 * make them (sweep_jobs), and the tables printed from them.  mmsim run (main.c) makes one;
 * mmsim sweep (sweep_cmd.c) makes one per machine and kernel of its sweep file and runs the
 * jobs of all of them together, or one job of them.
 */
#ifndef MMSIM_RUN_H
#define MMSIM_RUN_H

#include <stdio.h>

#include "machine.h"
#include "report.h"
#include "sweep.h"

#define RUN_MAX_CURVES 16
/* the items --sensitivity varies, at most */
#define RUN_MAX_SENS 256

/* The progress line on stderr of a command's simulations. */
struct run_progress {
	double t_start, next_log_s;
	int shown;
};

/* mmsim's options (the table in main.c parses them and prints --help). */
struct opts {
	int cores;
	const char *scenario;
	const char *machine;
	const char *kernel;
	const char *tasks;
	const char *mode;
	const char *placement;
	long long ops_per_task;
	const char *format;
	const char *plot;
	int sensitivity;
	int no_sensitivity; /* reproduce seeds --no-sensitivity */
	unsigned long long seed;
	long long events;
	const char *measured;
	const char *fit_tasks;
	const char *duration, *warmup, *out; /* validate */
	const char *fs;			     /* validate: where a file benchmark's file goes */
	int from_validate;		     /* compare run by validate, which has said where the file was */
	const char *out_machine, *out_kernel, *measured_dir;
	int quick, band;
	int seeds;
	int force, accept_disturbed;
	int carry;		 /* calibrate --carry */
	int no_fault_read_point; /* calibrate --no-fault-read-point */
	int no_fit;		 /* calibrate --no-fit */
	double max_work;
	int emit_jobs;		   /* sweep */
	const char *job, *sweep;   /* sweep --job K, merge --sweep FILE */
	const char *relieve;	   /* --relieve KIND:NAME[=F] */
	const char *layout_whatif; /* --layout-what-if FIELD=own-line|LINE[,...] */
	int no_verify, locks, c2c; /* explain */
	int c2c_only;		   /* mmsim c2c: explain's c2c report alone */
	int help, version;
};

/* A kernel profile loaded once for the curves that use it. */
struct kernel_slot {
	char key[1024];
	struct profile prof;
	struct kernel_profile k;
};

/* The curves of one mmsim run: scenario variants on one machine, each with its kernel. */
struct run {
	struct opts o;
	struct machine m;
	int ncurves;
	struct scenario sc[RUN_MAX_CURVES];
	int var[RUN_MAX_CURVES];
	struct kernel_slot ks[RUN_MAX_CURVES];
	int nks;
	struct kernel_profile *kern[RUN_MAX_CURVES];
	struct program prog[RUN_MAX_CURVES];
	struct curve curve[RUN_MAX_CURVES];
	int modes[2];
	int tasks[REPORT_MAX_POINTS];
	int npts;
	struct run_progress pg;
	struct sim_relief relief; /* --relieve: a what-if on every point (kind 0: none) */
	int whatif_pass;	  /* adding --layout-what-if's curves (run_add_curve_kernel) */
	struct scenario *peer;	  /* the run's scenario files (run_add_peer), which its kernels serve */
	int npeers;
};

/* Free what a run holds (its curves' programs, scenarios and seed values, kernel profiles and
 * machine) and @r itself, which was allocated; NULL is allowed. */
void run_free(struct run *r);

/* Start the clock of @pg; run_progress(@pg, ...) is a sweep_progress_fn. */
void run_progress_start(struct run_progress *pg);
void run_progress(void *arg, double done, int total);

/* Before any curve: note scenario @name (a file; a built-in one is skipped) as one of the run's,
 * so that a kernel profile's keys are checked against every scenario the run has, not just the
 * curve's own (scenario_check_kernel_names). */
int run_add_peer(struct run *r, const char *name, struct mm_error *err);
/* Add the curves of @name (a scenario: each of its variants; a variant; a scenario file).  With
 * @kernel (not NULL), under that kernel profile instead of r->o.kernel or each variant's own, and
 * labelled VARIANT@KERNEL: one of the profiles of --kernel A,B. */
int run_add_curve_kernel(struct run *r, const char *name, const char *kernel, struct mm_error *err);
int run_add_curve(struct run *r, const char *name, struct mm_error *err);
/* The task counts: r->o.tasks, or 1, 2, 4, ... @ncpus and the topology's boundaries. */
int run_task_list(struct run *r, int ncpus, struct mm_error *err);
/* One point of a curve: the run's options, with this machine, kernel and program. */
struct sim_config run_point_config(const struct run *r, const struct hw_profile *hw, const struct kernel_profile *k,
				   const struct program *prog, int mode, int ntasks);
/* 1 when curve @c runs a one-task point beside its own for its efficiency (see run.c). */
int run_extra_point(const struct run *r, int c);

/*
 * The simulations of a run's curves, built, run and read back in three steps so that a sweep
 * can run the jobs of many runs together.  run_curve_jobs() fills @jobs (NULL: only counts) with
 * every curve, mode and task count, then each curve's one-task point, and marks the modes of
 * r->curve; run_curve_results() points the curves @cv (copies of r->curve, or r->curve itself)
 * at the results, in the same order.  The seed is r->o.seed when the jobs are built.
 */
int run_curve_jobs(struct run *r, struct sweep_job *jobs);
void run_curve_results(const struct run *r, struct curve *cv, struct sweep_job *jobs);
/* All three, with a progress line; *@jobs_out holds the results the curves point to. */
int run_curves(struct run *r, struct sweep_job **jobs_out, int *njobs_out, struct mm_error *err);

/* --seeds N, the same way: every point again under seeds S+1..S+N-1 (after run_curve_jobs). */
int run_seed_jobs(const struct run *r, struct sweep_job *jobs);
int run_seed_results(const struct run *r, struct curve *cv, const struct sweep_job *jobs, struct mm_error *err);
int run_seeds(struct run *r, struct mm_error *err);

/* --sensitivity: one number of a profile at 0.5x and 2x, or one arbitration policy. */
struct sens_item {
	int machine; /* 1: an entry of the hardware profile, 0: of a kernel profile */
	int kslot;
	int entry;
	char label[160];
	int policy; /* >= 0: an arbitration policy instead of an entry */
};

/* The items of the run's profiles (at most RUN_MAX_SENS); returns how many, or -1 with @err set
 * when there are more. */
int run_sens_items(const struct run *r, struct sens_item *items, struct mm_error *err);
/* MM_ERANGE when the run has more items than RUN_MAX_SENS (said before any curve runs), else 0. */
int run_sens_check(const struct run *r, struct mm_error *err);
/* Every curve at the largest task count with @it varied by @factor, under @seed: out[curve]. */
int run_sens_variant(const struct run *r, const struct sens_item *it, double factor, unsigned long long seed,
		     struct sim_result *out, struct mm_error *err);
/* The sensitivity table of curves @cv: res[item][0: 0.5x or the policy, 1: 2x][curve], with the
 * code and message of each (item * 2 + factor). */
void run_sens_print(FILE *f, const struct run *r, const struct curve *cv, const struct sens_item *items, int n,
		    const struct sim_result (*res)[2][RUN_MAX_CURVES], const int *rcs, const struct mm_error *errs);
/* All three for r->curve, printed to stdout. */
int run_sensitivity(struct run *r, struct mm_error *err);

/* The table's machine line: the topology, and how the tasks were placed when not as will-it-scale. */
const char *run_placement_note(const struct run *r, char *buf, size_t cap);

#endif
