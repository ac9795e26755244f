/* SPDX-License-Identifier: MIT */
/*
 * Many independent simulations (the points of a curve, the runs of a
 * sensitivity study), run side by side with OpenMP.  Each job has its own
 * configuration and result; nothing is shared, so the results do not depend
 * on the number of threads.
 */
#ifndef MMSIM_SWEEP_H
#define MMSIM_SWEEP_H

#include "sim.h"

struct sweep_job {
	struct sim_config cfg;
	struct sim_result res;
	int rc;
	struct mm_error err;
};

/* Called as jobs progress and after each completes (from one thread at a time); @done counts
 * the jobs finished and the fractions of those running. */
typedef void (*sweep_progress_fn)(void *arg, double done, int total);

/* Run every job, the largest (by sim_work_estimate) first; returns 0, or the first failed
 * job's code with its message in @err. */
int sweep_run(struct sweep_job *jobs, int njobs, sweep_progress_fn progress, void *arg, struct mm_error *err);

#endif
