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

/* A shared resource explain suspects, and what relieving it in a side run did (--verify). */
struct explain_cand {
	struct sim_relief relief;
	char what[160]; /* "lock mm.mmap_lock: its holders' time", for the table */
	char saw[160];	/* what the busy/asleep shares showed of it */
	double score;	/* that share, 0 to 1: the heuristic's order */
	double gain;	/* throughput relieved / throughput - 1 (once verified) */
};

#define EXPLAIN_MAX_CANDS 6
#define EXPLAIN_RELIEF 0.5 /* each candidate's cost is halved */

struct explain_ctx {
	const char *label; /* the variant */
	const char *machine;
	const struct sim_config *cfg;
	const struct sim_result *res;
	const struct sim_step_stats *steps; /* cfg->prog->n entries */
	/* --verify: the candidates relieved, each in a side run, and how much a second seed moved
	 * the unrelieved throughput (the noise a gain must clear); ncand 0: not verified */
	const struct explain_cand *cand;
	int ncand;
	double noise;
};

/* The candidates for the limiter, busiest first (at most @max): each lock's holders and, if its
 * waiters sleep, their wake-ups; each cache line in transfer; by the shares explain prints. */
int explain_candidates(const struct explain_ctx *x, struct explain_cand *c, int max);

/* The figure of merit a relief moves: throughput, or 1 / makespan with fixed work. */
double explain_rate(const struct sim_config *cfg, const struct sim_result *res);

/* table or csv */
void explain_print(FILE *f, const char *format, const struct explain_ctx *x);
/* perfreport.c: per lock, perf lock contention's view (explain --locks) */
void explain_locks(FILE *f, const char *format, const struct explain_ctx *x);
/* perfreport.c: per contended line, perf c2c's view (explain --c2c, mmsim c2c) */
void explain_c2c(FILE *f, const char *format, const struct explain_ctx *x);

#endif
