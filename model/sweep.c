/* SPDX-License-Identifier: MIT */
#include "sweep.h"

#include <string.h>

int sweep_run(struct sweep_job *jobs, int njobs, sweep_progress_fn progress, void *arg, struct mm_error *err)
{
	int done = 0;

	/* big points first, so that the slowest ones do not start last */
#pragma omp parallel for schedule(dynamic, 1)
	for (int i = njobs - 1; i >= 0; i--) {
		jobs[i].rc = sim_run(&jobs[i].cfg, &jobs[i].res, &jobs[i].err);
#pragma omp critical(mmsim_sweep_progress)
		{
			done++;
			if (progress)
				progress(arg, done, njobs);
		}
	}
	for (int i = 0; i < njobs; i++)
		if (jobs[i].rc) {
			if (err)
				*err = jobs[i].err;
			return jobs[i].rc;
		}
	return 0;
}
