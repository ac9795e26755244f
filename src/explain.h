/* SPDX-License-Identifier: MIT */
/*
 * mmsim explain: where one point's time goes.  Per operation, what the
 * scenario does (exact counts of lock acquisitions, line accesses, bytes,
 * IPIs); per kernel function, the task-time on and off the CPU, as perf
 * and an off-CPU profile would show it; per lock and cache line; and how
 * busy each shared resource was, the busiest one named as the limiter.
 */
#ifndef MMSIM_EXPLAIN_H
#define MMSIM_EXPLAIN_H

#include <stdio.h>
#include "sim.h"

struct explain_ctx {
	const char *label; /* the variant */
	const char *machine;
	const struct sim_config *cfg;
	const struct sim_result *res;
	const struct sim_step_stats *steps; /* cfg->prog->n entries */
};

/* table or csv */
void explain_print(FILE *f, const char *format, const struct explain_ctx *x);

#endif
