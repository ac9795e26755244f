/* SPDX-License-Identifier: MIT */
/* mmsim reproduce seeds: the seed documents' published numbers beside mmsim's predictions. */
#ifndef MMSIM_REPRODUCE_H
#define MMSIM_REPRODUCE_H

#include <stddef.h>
#include "mm_error.h"

struct reproduce_opts {
	unsigned long long seed;
	int seeds;		   /* reproduce published: each prediction the mean over seeds seed .. seed+seeds-1 */
	long long events;	   /* 0: the simulator's default */
	int csv;		   /* rows as CSV instead of tables */
	int sensitivity;	   /* reproduce seeds: 0.5x/2x of every unmeasured number each point rests on */
	int progress;		   /* simulations done, on stderr */
	double max_work;	   /* --max-work: each simulation's bound (0: SIM_MAX_WORK) */
	const char *plot_dir;	   /* reproduce published: one plot per curve into this directory (NULL: none) */
	int force;		   /* replace existing plots */
	const char *published_dir; /* reproduce published: curves.csv and points.csv from here (NULL: built in) */
};

/* The reference CSVs' readers, shared by reproduce.c and reproduce_published.c: split one line in
 * place (double quotes honoured), returning the field count; copy the next line of *@cur (0 at the end,
 * 2 for a line cut to fit @buf). */
int repro_csv_split(char *line, char **f, int max);
int repro_next_line(const char **cur, char *buf, size_t cap);

int reproduce_seeds(const struct reproduce_opts *o, struct mm_error *err);
/* The numbers reproduce seeds varies at 0.5x and 2x for its point @variant on @machine: one line each,
 * "machine [SECTION] KEY" or "kernel [costs] KEY", into @buf; their count, or -1 (@err says why) */
int reproduce_seed_sens_items(const char *variant, const char *machine, char *buf, size_t cap, struct mm_error *err);
/* Seed 003: the seconds per 4 KiB page of the prefaults of scenarios/madv_populate.scn's @variant on
 * the generic machine, its region @pages pages (0: the profile's), with @number (if not NULL) scaled
 * by @factor, as the sensitivity section scales it: "KEY", the kernel's [costs] KEY, or "[SECTION]
 * KEY", the hardware profile's */
int reproduce_s3_per_page(const char *variant, double pages, const char *number, double factor,
			  const struct reproduce_opts *o, double *sec, struct mm_error *err);
/* mmsim reproduce published: data/reference/published/curves.csv, every curve measured beside
 * predicted, a one-scalar shape fit, a USL baseline and the before/after pairs (reproduce_published.c) */
int reproduce_published(const struct reproduce_opts *o, struct mm_error *err);

#endif
