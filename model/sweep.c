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

/* A job and its estimated work (sim_work_estimate), to run the largest first. */
struct sweep_order {
	double work;
	int job;
};

/* qsort: larger estimated work first; of equal ones, the later job first */
static int by_work(const void *a, const void *b)
{
	const struct sweep_order *x = a, *y = b;

	if (x->work != y->work)
		return x->work < y->work ? 1 : -1;
	return y->job - x->job;
}

int sweep_run(struct sweep_job *jobs, int njobs, sweep_progress_fn progress, void *arg, struct mm_error *err)
{
	struct sweep_state st = {.progress = progress, .arg = arg, .njobs = njobs};
	struct sweep_order *order;

	if (njobs <= 0)
		return 0;
	order = malloc((size_t)njobs * sizeof(*order));
	if (!order || (progress && !(st.frac = calloc((size_t)njobs, sizeof(double))))) {
		free(order);
		return mm_fail(err, MM_ENOMEM, "out of memory");
	}
	for (int i = 0; i < njobs; i++) {
		if (progress) {
			jobs[i].cfg.tick = on_tick;
			jobs[i].cfg.tick_arg = &st;
			jobs[i].cfg.tick_id = i;
		}
		order[i].work = sim_work_estimate(&jobs[i].cfg, NULL, 0);
		order[i].job = i;
	}
	/* the largest points first (by sim_work_estimate), so that the slowest do not start last
	 * and leave the other threads idle; each job is independent, so the order changes nothing
	 * in the results */
	qsort(order, (size_t)njobs, sizeof(*order), by_work);
#pragma omp parallel for schedule(dynamic, 1)
	for (int k = 0; k < njobs; k++) {
		const int i = order[k].job;

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
	free(order);
	for (int i = 0; i < njobs; i++)
		if (jobs[i].rc) {
			if (err)
				*err = jobs[i].err;
			return jobs[i].rc;
		}
	return 0;
}
