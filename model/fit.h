/* SPDX-License-Identifier: MIT */
/*
 * Fitting the few profile numbers that cannot be measured (kernel path
 * costs, in cycles) to measured throughput at a declared set of training
 * task counts, and the Universal Scalability Law baseline fitted to the same
 * points.
 *
 * A simulator with integer time is piecewise constant in its parameters, so
 * fit_minimize() never differentiates the model: it runs GSL's Nelder-Mead
 * simplex (nmsimplex2) on chi2 = sum_i (r_i / sigma_i)^2 in log space,
 * restarts once from the best point, and derives each parameter's 1-sigma
 * range from where chi2 rises by delta_chi2 along a profile of that
 * parameter.  A parameter along which chi2 rises by less than that between
 * 0.5x and 2x of its best value is reported as not identifiable.
 *
 * The USL is smooth, so usl_fit() uses a trust-region least-squares fit with
 * its analytic Jacobian.
 *
 * Every GSL status is checked; GSL's abort-on-error handler must be off
 * (main() turns it off once, the tests do the same).
 */
#ifndef MMSIM_FIT_H
#define MMSIM_FIT_H

#include "mm_error.h"

#define FIT_MAX_PARAMS 8
#define FIT_MAX_RESID 64
#define FIT_REASON 192

/* ---- Universal Scalability Law: X(N) = lambda N / (1 + sigma (N-1) + kappa N (N-1)) ---- */

struct usl_fit {
	double lambda; /* throughput of one task, > 0 */
	double sigma;  /* contention, >= 0 */
	double kappa;  /* coherency (crosstalk), >= 0 */
	/* 1-sigma errors from the Jacobian, scaled by the residual variance; NAN with no degree of freedom */
	double lambda_err, sigma_err, kappa_err;
	double rms_rel; /* RMS of the relative residuals X(N_i) / x_i - 1 */
	int npoints;
	int at_bound; /* bit 0: sigma held at 0, bit 1: kappa held at 0 */
};

/*
 * Least squares on the relative residuals of @k points (@n task counts, @x
 * throughputs, all > 0).  Needs at least three distinct task counts (the USL
 * has three parameters); otherwise MM_EINVAL with a message that says why the
 * USL cannot be shown.  sigma and kappa are kept >= 0 by fitting every set of
 * active constraints (both free, sigma = 0, kappa = 0, both 0) and keeping the
 * best feasible fit.
 */
int usl_fit(const double *n, const double *x, int k, struct usl_fit *out, struct mm_error *err);
double usl_predict(const struct usl_fit *u, double n);

/* ---- derivative-free fit of a noisy black-box model ---- */

struct fit_param {
	const char *name;
	double initial; /* > 0: every fitted number is a positive cost */
	double lower;	/* > 0 */
	double upper;	/* > lower; may be INFINITY */
};

/*
 * Fill @resid[0..nresid) with the relative residuals model(params) /
 * measured - 1 of the training points.  Returns 0 or a negative MM_ code
 * with a message in @err.  A non-finite residual is an error of the fit.
 */
typedef int (*fit_residuals_fn)(const double *params, double *resid, int nresid, void *ctx, struct mm_error *err);

/* Called after every model evaluation: evaluations so far, best chi2 so far. */
typedef void (*fit_progress_fn)(void *arg, int evals, double best_chi2);

enum fit_profile_mode {
	FIT_PROFILE_FIXED, /* others held at the best fit: cheap, a conditional range */
	FIT_PROFILE_REFIT, /* others re-minimised at every step: the profile range; finds degenerate pairs */
};

struct fit_problem {
	int nparam;
	const struct fit_param *param;
	int nresid;
	const double *sigma; /* relative run-to-run standard deviation of each training point, > 0 */
	fit_residuals_fn residuals;
	void *ctx;
	int max_evals;	/* model evaluations per minimisation (first run, restart, each refit); 0: 400 */
	double tol_log; /* stop when the simplex is this small in log(param); 0: 1e-3 */
	enum fit_profile_mode profile;
	fit_progress_fn progress; /* may be NULL */
	void *progress_arg;
};

struct fit_param_result {
	double value;
	double lo, hi; /* 1-sigma range from the profile; an open side is the scan's limit (value/4, 4 value) */
	int lo_open;   /* chi2 did not rise by delta_chi2 below the best value within 4x or the bound */
	int hi_open;
	int identifiable; /* chi2 rose by delta_chi2 on at least one side within 0.5x..2x */
	int partner;	  /* FIT_PROFILE_REFIT: the parameter that moved most along this profile; -1 */
	char reason[FIT_REASON];
};

struct fit_result {
	int nparam;
	struct fit_param_result param[FIT_MAX_PARAMS];
	double chi2;	   /* at the best fit */
	int dof;	   /* nresid - nparam */
	double delta_chi2; /* rise that defines 1 sigma: max(1, chi2 / dof), inflated when the model misfits */
	int evals;	   /* model evaluations, profiles included */
	/*
	 * The restarted simplex shrank below tol_log, or found nothing lower in
	 * 10 evaluations per vertex (a plateau of a model with integer time);
	 * else it stopped at max_evals.
	 */
	int converged;
};

/*
 * Minimise chi2 over the parameters within their bounds, then profile each
 * parameter.  Returns 0 (also when not converged: see r->converged) or a
 * negative MM_ code: MM_EINVAL for a malformed problem, MM_ERANGE for a
 * non-finite residual or a GSL failure, or the callback's own code.
 */
int fit_minimize(const struct fit_problem *p, struct fit_result *r, struct mm_error *err);

#endif
