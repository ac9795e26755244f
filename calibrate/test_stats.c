/* SPDX-License-Identifier: MIT */
/*
 * The method of mmsim-measure on synthetic samples, with known answers: what the tests of a real
 * run cannot check without assuming a quiet machine.  The median, min and p90 of a known set, the
 * outliers counted both ways (3x above or below the median), and the timer's cost subtracted once
 * per timed interval.
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
	return failed;
}
