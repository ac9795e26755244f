/* SPDX-License-Identifier: MIT */
/*
 * mmsim validate: run the real benchmark that mirrors a scenario variant
 * (validate/wis_*) on this machine, at the task counts asked for, with
 * perf event counts; the caller then holds the prediction against its CSV
 * (the same path as mmsim compare) and prints the event-count check.
 */
#ifndef MMSIM_VALIDATE_H
#define MMSIM_VALIDATE_H

#include <limits.h>
#include <stdio.h>
#include "mm_error.h"

/* The exit status of mmsim validate when the benchmark cannot run here. */
#define VALIDATE_EXIT_SKIPPED 77

struct validate_req {
	const char *variant;  /* one scenario variant, e.g. page_fault1_vma_lock */
	const char *tasks;    /* task counts, e.g. 1,2 */
	const char *mode;     /* threads|processes|both, or NULL: the scenario's */
	const char *kernel;   /* kernel profile, or NULL: the variant's own */
	const char *machine;  /* hardware profile of the simulated count check, or NULL: local */
	const char *duration; /* seconds measured per point (populate: rounds within it) */
	const char *warmup;   /* seconds of warm-up, discarded */
	const char *fs;	      /* --fs tmpfs|here|PATH, or NULL: $TMPDIR, else the variant's backing */
	const char *out_dir;  /* where the CSV and the plot go */
	const char *command;  /* mmsim's command line, for the CSV's metadata */
	int force;	      /* replace an existing CSV or plot of the same name */
};

struct validate_run {
	char csv[PATH_MAX];
	char png[PATH_MAX];
	char bench_cmd[PATH_MAX + 512]; /* the benchmark command, as run */
	char variant[64];		/* the variant's name */
	char mode[16];			/* the --mode compare is to use */
	char kernel_modelled[32];	/* the variant's kernel version, e.g. 6.4 */
	char kernel_here[128];		/* uname -r */
	int skipped;			/* 1: the benchmark cannot run here; why in skip_reason */
	char skip_reason[512];
	char tmpdir[PATH_MAX];	/* a file benchmark's $TMPDIR; "" for the others */
	char tmpdir_fs[64];	/* its filesystem, as the benchmark's CSV names it */
	const char *tmpdir_how; /* why there: --fs, TMPDIR, or the variant's backing */
	double seconds;		/* wall time of the benchmark run */
	int stored;		/* 1: a CSV of an earlier run (compare --measured): this machine's sysfs says
				 * nothing of the one it ran on */
};

/* Runs the benchmark of req->variant into out_dir/<variant>-<host>-<yyyymmdd-hhmmss>.csv (UTC; with
 * '#' lines saying what ran) and names the plot beside it.  The benchmark writes under a temporary
 * name; only the whole, annotated result is renamed into place, and an existing one is refused
 * unless req->force.  0 (run->skipped says whether it ran), or an error code with a message in
 * err. */
int validate_measure(const struct validate_req *req, struct validate_run *run, struct mm_error *err);

/* A note when the filesystem page_fault3/4 ran on caches its file otherwise than @variant models
 * (4 KiB folios on tmpfs, large folios for the _ext4 variants); nothing when they agree. */
void validate_backing_note(FILE *f, const char *variant, const char *fs);
/* What the CSV's '#run' lines say about each point's conditions: other load beside it (other_cpus over
 * 0.10) and samples that moved by more than 1.3x within the run. */
void validate_run_notes(FILE *f, const char *csv);
/* The filesystem of a file benchmark's CSV ('# tmpdir: DIR (FS)', mmsim validate's), 0; -1: none. */
int validate_csv_backing(const char *csv, char *fs, size_t cap);
/* The lines before the comparison: benchmark, files, the kernel modelled against the one here. */
void validate_print_header(FILE *f, const struct validate_req *req, const struct validate_run *run);

/* The event-count check: faults, mmap_lock acquisitions and TLB flushes per operation, from the
 * CSV's '#counts' lines, beside the scenario's own counts.  Sets *mismatches. */
int validate_print_counts(FILE *f, const struct validate_req *req, const struct validate_run *run, int *mismatches,
			  struct mm_error *err);

/* compare --measured FILE: the same check for a CSV that validate/ wrote earlier, here or elsewhere,
 * against @variant under @kernel (NULL: the variant's own) and @machine (for the counts that depend
 * on timing).  Its kernel and file system come from the CSV's '#' lines.  *@checked: 0 when the CSV
 * has no '#counts' line (nothing printed). */
int validate_counts_of_csv(FILE *f, const char *variant, const char *kernel, const char *machine, const char *csv,
			   int *checked, int *mismatches, struct mm_error *err);

#endif
