/* SPDX-License-Identifier: MIT */
/*
 * mmsim calibrate: measure this machine (calibrate/mmsim-measure), run the
 * validation harness (validate/wis_*) or read its CSVs, fit the few kernel
 * path costs the runs constrain (fit_minimize through sim_run), write a
 * machine and a kernel profile, and hold the fitted model against the
 * measured points it was not fitted to.
 *
 * The fitting half (struct calib_model) is usable on its own: the synthetic
 * recovery test simulates with known costs, adds noise, and fits.
 */
#ifndef MMSIM_CALIBRATE_H
#define MMSIM_CALIBRATE_H

#include <stdio.h>
#include "fit.h"
#include "machine.h"
#include "profile.h"
#include "report.h"
#include "scenario.h"

/* One benchmark of the validation harness and the scenario variant that mirrors it. */
struct calib_bench {
	const char *prefix;  /* its CSV in a --measured-dir: PREFIX-*.csv ("page_fault1-") */
	const char *variant; /* the scenario variant simulated for it */
	const char *exe;     /* validate/ executable */
	const char *args;    /* its arguments besides --tasks and --out */
	/*
	 * fixed work: operations per task simulated (0: the scenario's work).  Each of populate's
	 * operations maps and fills a fresh region, so one gives the rate of ten (the makespan of
	 * populate_madv_populate_write_nothp's 1 and 10, at 1 and 2 tasks: x10 within 0.02%) in a tenth of
	 * the time, which the 16384 GUP faults per operation need in a fit of thousands of evaluations.
	 */
	int ops;
	/*
	 * NULL for a harness run; else the point is no run of the harness but calibrate/mmsim-measure's
	 * figure of that name in the hardware profile ('#   fault_read  850 ns'), a time per page, held
	 * against the variant's operation of CALIB_REGION_PAGES pages (exe and args unused)
	 */
	const char *figure;
};

#define CALIB_NBENCH 7
/* pages of one of validate/populate.c's regions (64 MiB), the populate variants' operation */
#define CALIB_REGION_PAGES 16384
extern const struct calib_bench calib_benches[CALIB_NBENCH];

/* The kernel path costs fitted: the ones the 1-task runs of calib_benches constrain (src/calibrate.c). */
#define CALIB_NPARAM 5
extern const char *const calib_param_names[CALIB_NPARAM];

/* A measured (or synthetic) point: benchmark, mode, task count, throughput and its relative spread. */
struct calib_point {
	int bench;
	int mode; /* SC_THREADS or SC_PROCESSES */
	int ntasks;
	double ops_per_s;
	double sigma; /* relative run-to-run standard deviation */
	int train;    /* fitted to (1) or held out (0) */
};

/* the most kernel costs calib_measured_costs can set from mmsim-measure's figures */
#define CALIB_MAX_MEAS 32

struct calib_model {
	const struct machine *m;
	struct profile kprof; /* the base kernel profile plus the keys the populate scenario needs */
	char base[64];	      /* its [kernel] base */
	char donor[64];	      /* where keys absent from the base were taken from */
	struct scenario sc[CALIB_NBENCH];
	int var[CALIB_NBENCH];
	int nparam;
	struct fit_param param[FIT_MAX_PARAMS];
	int entry[FIT_MAX_PARAMS]; /* index of each parameter in kprof */
	uint64_t measure_events;   /* sim_config.measure_events (0: the simulator's default) */
	/*
	 * 0 while fitting: the benchmarks' shortened fixed work (calib_benches[].ops) and no [cpu]
	 * op_jitter, whose one draw per operation would move a one-operation run's mean; 1 for the
	 * report's predictions: the scenario's whole work with the machine's op_jitter, so that two
	 * tasks' operations can drift apart as they do on the machine
	 */
	int full_work;
	uint64_t seed;
	int max_evals;	 /* the first fit, without refitting along profiles (0: fit.c's default) */
	int refit_evals; /* then from its best point, with the profiles refitted: per minimisation */
	int restarts;	 /* fresh simplexes from the best point while chi2 exceeds its dof (init: 4) */
	/*
	 * The carry (calib_carry_factor): every other kernel path cost the base assumed, scaled by the
	 * median of the fitted costs' ratios to their assumed values.  carry_entry[i] indexes kprof,
	 * carry_base[i] is its assumed value; carry_on (set after calib_model_init; 0 by default:
	 * mmsim calibrate --carry) applies it.
	 */
	int carry_on;
	int ncarry;
	int *carry_entry;
	double *carry_base;
	double carry; /* the factor of the last evaluation (1 before any) */
	/* kernel costs calib_measured_costs() took from this machine's mmsim-measure figures */
	int nmeas;
	int meas_entry[CALIB_MAX_MEAS];
	char meas_note[CALIB_MAX_MEAS][480];
	/* figures present that give no cost (a pair not a + u / n, a difference not above 0: a load's
	 * noise): left at the base's, with why */
	int nmeas_skipped;
	char meas_skipped[16][300];
};

/*
 * Load @base (e.g. "linux-6.8"), add the [costs]/[batch] keys the benchmarks'
 * scenarios need that it lacks from @donor ("linux-3.9"), and set up the
 * default parameters (initial value: the base's).
 */
int calib_model_init(struct calib_model *cm, const struct machine *m, const char *base, const char *donor,
		     struct mm_error *err);
void calib_model_free(struct calib_model *cm);

/*
 * The factor calibrate carries to the kernel path costs it does not fit: the median over the
 * fitted costs of @params[j] / their assumed values (the base profile's).  1 with no parameters.
 */
double calib_carry_factor(const struct calib_model *cm, const double *params);
/* Set the fitted costs to @params and the carried ones to their assumed value x the factor. */
void calib_model_set(struct calib_model *cm, const double *params);
/*
 * The kernel costs mmsim-measure times on the machine itself, from the figures its profile lists
 * in '#   QUANTITY  VALUE ns' lines (@machine_path, the hardware profile in use): map_pages_per_page
 * = fault_around_page - fault_read / 16, zap_pte = munmap_file_pte, zap_zero_pte = munmap_zero_pte,
 * flush_one_page = fault_cow_zero - fault_write, free_page = munmap_anon_pte - munmap_file_pte less
 * the LRU and zone batches' share per page; filemap_lookup, page_mkwrite and file_set_pte (one
 * factor) from fault_shared_file - fault_read + set_pte_zero; shmem_truncate_page and the shmem
 * group from the memfd's figures; from the large-folio file
 * (where will-it-scale runs) the work per folio and per page of ext4's write fault (mkwrite_folio,
 * mkwrite_page), of its dirty zap (zap_dirty_folio, zap_dirty_page) and of the batched zap of a
 * PTE-mapped large folio (zap_folio_ptes, zap_pte_batched), each pair split by calib_split_folio,
 * and the per-page work of a read fault that maps a large folio (map_pages_batched);
 * in cycles at @ghz.  They replace the base profile's (measured on another machine) in cm->kprof
 * and are written with their source.  Returns how many were set (0: the profile lists none, or is
 * no file).
 */
int calib_measured_costs(struct calib_model *cm, const char *machine_path, double ghz);
/*
 * Two figures per page measured on files whose folios have @n_small and @n_big pages: a + u / n
 * each; sets the work per folio *per_folio = u and per page *per_page = a.  0 when a figure is
 * missing, the sizes are not n_small < n_big, or the figures are not of that form (u < 0: the
 * smaller folios cheaper per page; a <= 0: the larger ones cheaper than their share of u), which
 * a loaded machine's noise gives: no cost is 0.
 */
int calib_split_folio(double small, int n_small, double big, int n_big, double *per_folio, double *per_page);

/* Whether [costs] @key is the user's own work (the loop's load or store), which no kernel cost scales. */
int calib_user_cost(const char *key);

/* Simulated ops/s of @n points with the parameters at @params (NULL: the profile's current values). */
int calib_predict(struct calib_model *cm, const double *params, const struct calib_point *pts, int n, double *pred,
		  struct mm_error *err);

/*
 * Fit the parameters to the points with train set; the profile keeps the best
 * values.  Two stages: a minimisation with cheap fixed profiles from the
 * initial values, then fit_minimize(@mode) again from its best point with
 * refit_evals per minimisation, whose profiles give the reported ranges.
 */
int calib_fit(struct calib_model *cm, const struct calib_point *pts, int n, enum fit_profile_mode mode,
	      fit_progress_fn progress, void *progress_arg, struct fit_result *r, struct mm_error *err);

/*
 * The relative standard deviation of one point of a validate/ CSV, from its
 * '#run' line: fixed work reports the median of the rounds' makespans, so
 * their standard deviation x 1.25 / sqrt(rounds); throughput reports the
 * mean of the per-interval samples, whose standard deviation is estimated as
 * their range / 2.33 (the expected range of 5 normal samples is 2.33 sigma),
 * / sqrt(samples); at least 0.5%; then CALIB_RUN_SIGMA added in
 * quadrature.  MM_ENOENT when the line is absent (runtest.py's CSV).
 */
/*
 * Between two invocations of the same benchmark the development VM's points move more than the
 * spread inside one run says: populate_madv_populate_write, THP on, 1 thread, three invocations on
 * 2026-11-30 and 2026-12-01 gave 128.3, 129.8 and 122.4 ops/s (standard deviation 3.1%), and the
 * populate files measured a day apart differ by 4-7%.  A point's sigma is its within-run spread
 * and this, in quadrature.
 */
#define CALIB_RUN_SIGMA 0.03

/* --measured-dir: at most this many invocations (CSVs) of one benchmark, averaged */
#define CALIB_MAX_RUNS 16

int calib_point_sigma(const char *csv, int mode, int ntasks, double *sigma, struct mm_error *err);
/* The number after " KEY=" in a CSV's '#run' line; *found says whether the key is there (0 if not). */
double calib_run_field(const char *line, const char *key, int *found);
/* A point whose '#run' line has other_cpus above this was measured beside other load (CPUs busy but
 * not with the benchmark's tasks), as validate/measure-here.sh judges it. */
#define CALIB_OTHER_LOAD 0.10

/* A fitted cost the data pin to 5% at 2 sigma: identifiable, its 1-sigma half-width within 2.5%. */
int calib_pinned_to_5pct(const struct fit_param_result *p);

/*
 * The USL baseline of compare: fitted to the training points of one mode
 * when they hold at least three task counts.  Returns 1 with @u set, or 0
 * with the reason in @why.
 */
int calib_usl_baseline(const struct measured *ms, int mode, const int *train, struct usl_fit *u, char *why,
		       size_t whylen);

/* The 1-sigma range that mmsim calibrate records in a [fitted] entry's note ("1-sigma LO..HI"). */
int calib_fitted_range(const struct prof_entry *e, double *lo, double *hi);

/*
 * --band: rerun @n points (@cfg: one scenario variant, compiled against the
 * kernel profile @kprof) with each [fitted] cost of @kprof at either end of
 * its recorded 1-sigma range in turn; @lo/@hi get the envelope of those runs
 * and @central.  Returns how many costs were varied (0: none has a range), or
 * a negative MM_ code.
 */
int calib_band(const struct profile *kprof, const struct scenario *sc, int var, const struct sim_config *cfg, int n,
	       const double *central, double *lo, double *hi, struct mm_error *err);

/* Each fitted cost is searched from its base value / CALIB_SEARCH_DOWN to x CALIB_SEARCH_UP. */
#define CALIB_SEARCH_DOWN 64
#define CALIB_SEARCH_UP 256

/* The word that marks a profile, and each of its entries, written although it is not trustworthy. */
#define CALIB_UNTRUSTED "UNTRUSTED"

/* 1 when @value ended at (within 0.1% of) either bound of @p's search: the model misses the data. */
int calib_at_bound(const struct fit_param *p, double value);

/*
 * How many [fitted] costs of @kprof a band should not be trusted for: marked UNTRUSTED by mmsim
 * calibrate --accept-disturbed, or at the bound of calibrate's search (from the base value its
 * note records, so also in profiles written before the marking); the first is named in @why.
 */
int calib_untrusted(const struct profile *kprof, char *why, size_t cap);

struct calib_opts {
	const char *out_machine;
	const char *out_kernel;
	const char *fit_tasks;	  /* default "1" */
	const char *measured_dir; /* NULL: run the benchmarks now */
	const char *machine;	  /* NULL: measure this machine with mmsim-measure */
	const char *kernel;	  /* the base kernel profile; NULL: linux-6.8 */
	int quick;		  /* mmsim-measure --quick and short benchmark runs */
	uint64_t seed;
	const char *cmdline;
	int force;		 /* replace existing --out-machine / --out-kernel files */
	int accept_disturbed;	 /* write even when disturbed or a fit ended at its bound, marked so */
	int carry;		 /* --carry: scale the unfitted assumed costs too (calib_model.carry_on) */
	int no_fault_read_point; /* --no-fault-read-point: do not fit to calib_benches' figure entry */
	int no_fit;		 /* --no-fit: print the points the fit would take; fit and write nothing */
};

/* The whole command; prints progress on stderr and the report on stdout. */
int calibrate_run(const struct calib_opts *o, struct mm_error *err);

/*
 * This machine's /sys/kernel/mm/transparent_hugepage/hugepages-<size>kB/enabled, of the sizes
 * below the PMD's: the largest of 64 KiB to 1 MiB that applies to a mapping nobody madvised
 * (alloc_anon_folio, 6.8+, tries the largest first): 'always', or 'inherit' under a top-level
 * 'always' (not 'madvise', nor 'inherit' under a top-level 'madvise'); 0: none; -1: no such files.
 * *@small: 32 or 16 KiB when one of those applies too (the larger), else 0.
 */
int mthp_always_kb(int *small);

#endif
