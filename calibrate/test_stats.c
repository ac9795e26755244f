/* SPDX-License-Identifier: MIT */
/*
 * The method of mmsim-measure on synthetic samples, with known answers: what the tests of a real
 * run cannot check without assuming a quiet machine.  The median, min and p90 of a known set, the
 * outliers counted both ways (3x above or below the median), the timer's cost subtracted once
 * per timed interval, and where a cache sweep leaves the cache (ms_cache_knee) on hand-made curves.
 */
#include "measure.h"

#include <math.h>
#include <stdio.h>

static int failed;

static void check(int ok, const char *what)
{
	printf("%s: %s\n", ok ? "ok" : "FAIL", what);
	failed |= !ok;
}

int main(void)
{
	/* 1..10 shuffled, and a slow sample (a preempted vCPU) and a fast one (a skipped wait) */
	const double v[12] = {7, 3, 10, 1, 9, 2, 8, 4, 6, 5, 100, 0.5};
	struct ms_ctx c = {.timer_ns = 30};
	struct ms_stats st;

	ms_stats_of(v, 10, &st);
	check(st.n == 10 && st.median == 5.5 && st.min == 1 && st.p90 == 9, "median 5.5, min 1, p90 9 of 1..10");
	check(st.outliers == 1, "1 is under a third of the median 5.5: one outlier");
	ms_stats_of(v, 12, &st);
	check(st.median == 5.5 && st.min == 0.5 && st.p90 == 10, "with 100 and 0.5: median 5.5, min 0.5, p90 10");
	check(st.outliers == 3, "100 above 3x the median, 1 and 0.5 below a third: three outliers");
	ms_stats_of(v, 1, &st);
	check(st.median == 7 && st.min == 7 && st.p90 == 7 && st.outliers == 0, "one sample is its own statistics");
	check(ms_per_op(&c, 1000, 2030, 100) == 10, "(1030 ns - a 30 ns clock read) / 100 ops = 10 ns");
	check(ms_per_op(&c, 1000, 1020, 10) == 0, "an interval shorter than the clock read is 0, not negative");
	{
		/* sizes 1 to 16 (or 64) MiB; a cache of 20 ns and DRAM of 180: the threshold sqrt(20 x 180) = 60 */
		const double size[5] = {1, 2, 4, 8, 16}, step[5] = {20, 20, 20, 180, 180};
		const double flat[5] = {20, 22, 25, 30, 35};
		const double noisy[5] = {90, 20, 20, 180, 180}, size7[7] = {1, 2, 4, 8, 16, 32, 64};
		const double ramp[7] = {20, 20, 40, 80, 180, 180, 180};

		/* between 4 (20) and 8 (180): a quarter of the latency step, 4 x 2^(40/160) */
		check(fabs(ms_cache_knee(size, step, 5) - 4 * pow(2, 0.25)) < 1e-9,
		      "a step from 4 to 8 MiB: 4.757 MiB");
		/* between 4 (40) and 8 (80): half of it, 4 x 2^0.5 */
		check(fabs(ms_cache_knee(size7, ramp, 7) - 4 * sqrt(2)) < 1e-9,
		      "a ramp: 60 ns halfway from 40 to 80, 5.657 MiB");
		check(ms_cache_knee(size, flat, 5) == 0, "35 ns at the top is under twice 20: no step, 0");
		check(ms_cache_knee(size, step, 2) == 0, "two sizes are not a sweep: 0");
		/* a preempted first chase (90) is neither the cache's latency nor the step */
		check(fabs(ms_cache_knee(size, noisy, 5) - 4 * pow(2, 0.25)) < 1e-9,
		      "a slow first size is passed over");
	}
	return failed;
}
