/* SPDX-License-Identifier: MIT */
/* mmsim reproduce seeds: the seed documents' published numbers beside mmsim's predictions. */
#ifndef MMSIM_REPRODUCE_H
#define MMSIM_REPRODUCE_H

#include "mm_error.h"

struct reproduce_opts {
	unsigned long long seed;
	long long events; /* 0: the simulator's default */
	int csv;	  /* rows as CSV instead of tables */
	int sensitivity;  /* 0.5x/2x of every unmeasured number each point rests on */
	int progress;	  /* simulations done, on stderr */
	double max_work;  /* --max-work: each simulation's bound (0: SIM_MAX_WORK) */
};

int reproduce_seeds(const struct reproduce_opts *o, struct mm_error *err);

#endif
