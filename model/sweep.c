/* SPDX-License-Identifier: MIT */
#include "sweep.h"

#include <stdlib.h>
#include <string.h>

struct sweep_state {
	sweep_progress_fn progress;
	void *arg;
	int njobs, done;
	double *frac; /* per job: how far it is (1 when done) */
};

static void report(struct sweep_state *st)
{
	double sum = 0;

	for (int i = 0; i < st->njobs; i++)
		sum += st->frac[i];
	st->progress(st->arg, sum, st->njobs);
}

/* sim_run's tick, from the thread running job @id: the progress line moves during a point too. */
static void on_tick(void *arg, int id, double fraction)
{
	struct sweep_state *st = arg;

#pragma omp critical(mmsim_sweep_progress)
	{
		st->frac[id] = fraction;
		report(st);
	}
}

int sweep_run(struct sweep_job *jobs, int njobs, sweep_progress_fn progress, void *arg, struct mm_error *err)
{
	struct sweep_state st = {.progress = progress, .arg = arg, .njobs = njobs};

	if (progress && njobs > 0) {
		st.frac = calloc((size_t)njobs, sizeof(double));
		if (!st.frac)
			return mm_fail(err, MM_ENOMEM, "out of memory");
		for (int i = 0; i < njobs; i++) {
			jobs[i].cfg.tick = on_tick;
			jobs[i].cfg.tick_arg = &st;
			jobs[i].cfg.tick_id = i;
		}
	}
	/* big points first, so that the slowest ones do not start last */
#pragma omp parallel for schedule(dynamic, 1)
	for (int i = njobs - 1; i >= 0; i--) {
		jobs[i].rc = sim_run(&jobs[i].cfg, &jobs[i].res, &jobs[i].err);
#pragma omp critical(mmsim_sweep_progress)
		{
			st.done++;
			if (progress) {
				st.frac[i] = 1;
				report(&st);
			}
		}
	}
	if (progress)
		for (int i = 0; i < njobs; i++)
			jobs[i].cfg.tick = NULL; /* the state it points to ends here */
	free(st.frac);
	for (int i = 0; i < njobs; i++)
		if (jobs[i].rc) {
			if (err)
				*err = jobs[i].err;
			return jobs[i].rc;
		}
	return 0;
}
