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

/* Per-operation counts of the compiled program (no simulation needed). */
struct op_counts {
	double faults;		      /* visits of asm_exc_page_fault */
	double lock_read, lock_write; /* acquisitions of the lock asked for, trylocks included */
	double lock_blocking;	      /* of which through lock (not trylock): what mmap_lock_start_locking counts */
	double ipis;		      /* TLB-shootdown steps (each IPIs every other CPU of the mm) */
	double bytes;		      /* streamed to or from DRAM */
};

void op_counts(const struct program *pr, const char *lock, struct op_counts *c);
/* table or csv */
void explain_print(FILE *f, const char *format, const struct explain_ctx *x);

#endif
