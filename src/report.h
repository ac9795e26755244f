/* SPDX-License-Identifier: MIT */
/* Printing curves: the table a person reads, will-it-scale CSV, JSON, gnuplot plots. */
#ifndef MMSIM_REPORT_H
#define MMSIM_REPORT_H

#include <stdio.h>
#include "sim.h"

#define REPORT_MAX_POINTS 512

/* One predicted curve: a scenario variant on a machine and kernel, in one or both modes. */
struct curve {
	char label[128]; /* "has_pinned_write" or "pin_fast:has_pinned_write" */
	char scenario[64];
	char variant[64];
	char kernel[64];
	char opdoc[256];
	int npts;
	int tasks[REPORT_MAX_POINTS];
	int has_mode[2]; /* [SC_THREADS], [SC_PROCESSES] */
	struct sim_result *res[2][REPORT_MAX_POINTS];
	double linear1[2]; /* ops/s of one task, for efficiency and 'linear' */
	int fixed_work;
	/* --band: the range of ops/s with each [fitted] cost at the ends of its 1-sigma range */
	int has_band;
	double band_lo[2][REPORT_MAX_POINTS], band_hi[2][REPORT_MAX_POINTS];
	/* --seeds N: the result of every point under each of N seeds (ops/s, or the makespan with fixed
	 * work), at seedv[(mode * npts + point) * nseeds + k]; the first is the curve's own */
	int nseeds;
	double *seedv;
	/* measured points to draw over the prediction (mmsim compare, validate): ops/s meas_ops[k] at
	 * meas_tasks[k] tasks, in mode meas_mode[k]; room for both modes' */
	int nmeas;
	int meas_tasks[2 * REPORT_MAX_POINTS];
	double meas_ops[2 * REPORT_MAX_POINTS];
	int meas_mode[2 * REPORT_MAX_POINTS]; /* enum meas_mode */
};

/* The mode a measured point was measured in; MEAS_CURVE_MODE (0, so a zeroed curve's): the curve's
 * own, threads when it has both (compare's one mode). */
enum meas_mode { MEAS_CURVE_MODE = 0, MEAS_THREADS, MEAS_PROCESSES };

/* A will-it-scale CSV (runtest.py's, or validate/'s with '#' metadata lines). */
struct measured {
	int n;
	int tasks[REPORT_MAX_POINTS];
	double ops[2][REPORT_MAX_POINTS]; /* [SC_THREADS], [SC_PROCESSES]; 0 = not measured */
	double idle[2][REPORT_MAX_POINTS];
	int has[2];
};

int measured_load(const char *path, struct measured *m, struct mm_error *err);

/* The |error| of the predicted (not fitted) points of a comparison: count, mean and largest. */
struct err_tally {
	int n;
	double sum, worst;
};

void err_tally_add(struct err_tally *t, double err_pct);
/* "  predictions: N point(s), mean |error| M%, max X%" (nothing when no point was predicted) */
void err_tally_print(FILE *f, const struct err_tally *t);

struct report_ctx {
	const char *machine;
	const char *machine_desc;
	const char *topology;
	int ncpus;
	unsigned long long seed;
	const char *command;
	int force; /* --plot replaces an existing file */
};

void report_table(FILE *f, const struct report_ctx *ctx, const struct curve *c, int ncurves);
/* The spread of a point over the seeds: min and max of its seedv values (nseeds > 1). */
void curve_seed_range(const struct curve *c, int mode, int point, double *lo, double *hi);
/* The second curve over the first at each task count: ops/s ratio, or makespan speedup. */
void report_ratio(FILE *f, const struct curve *a, const struct curve *b);
/* will-it-scale's CSV: one curve; with a band, '# band:' lines follow the rows. */
void report_csv(FILE *f, const struct curve *c);
void report_json(FILE *f, const struct report_ctx *ctx, const struct curve *c, int ncurves);
/* Writes a gnuplot script and runs gnuplot; 0 or an error code with a message. */
int report_plot(const char *path, const struct report_ctx *ctx, const struct curve *c, int ncurves,
		struct mm_error *err);

#endif
