/* SPDX-License-Identifier: MIT */
#include "fit.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_math.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <gsl/gsl_multimin.h>

/* ---------------------------------------------------------------------- */
/* Universal Scalability Law                                              */
/* ---------------------------------------------------------------------- */

struct usl_data {
	const double *n, *x;
	int k;
	int free_sigma, free_kappa;
};

/* Unpack the fitted vector: log(lambda), then sigma and kappa when free. */
static void usl_unpack(const struct usl_data *d, const gsl_vector *v, double *lambda, double *sigma, double *kappa)
{
	size_t j = 1;

	*lambda = exp(gsl_vector_get(v, 0));
	*sigma = d->free_sigma ? gsl_vector_get(v, j++) : 0;
	*kappa = d->free_kappa ? gsl_vector_get(v, j) : 0;
}

static double usl_denominator(double sigma, double kappa, double n)
{
	return 1 + sigma * (n - 1) + kappa * n * (n - 1);
}

double usl_predict(const struct usl_fit *u, double n)
{
	return u->lambda * n / usl_denominator(u->sigma, u->kappa, n);
}

static int usl_f(const gsl_vector *v, void *arg, gsl_vector *f)
{
	const struct usl_data *d = arg;
	double lambda, sigma, kappa;

	usl_unpack(d, v, &lambda, &sigma, &kappa);
	for (int i = 0; i < d->k; i++) {
		double den = usl_denominator(sigma, kappa, d->n[i]);

		/* a trial step with negative sigma or kappa can leave the USL's domain: make it one to reject */
		if (!(den > 0) || !isfinite(lambda))
			gsl_vector_set(f, i, 1e3);
		else
			gsl_vector_set(f, i, lambda * d->n[i] / den / d->x[i] - 1);
	}
	return GSL_SUCCESS;
}

static int usl_df(const gsl_vector *v, void *arg, gsl_matrix *jac)
{
	const struct usl_data *d = arg;
	double lambda, sigma, kappa;

	usl_unpack(d, v, &lambda, &sigma, &kappa);
	for (int i = 0; i < d->k; i++) {
		double nn = d->n[i], den = usl_denominator(sigma, kappa, nn);
		double q = lambda * nn / den / d->x[i];
		size_t j = 1;

		if (!(den > 0))
			return GSL_EDOM;
		gsl_matrix_set(jac, i, 0, q); /* d/d log(lambda) */
		if (d->free_sigma)
			gsl_matrix_set(jac, i, j++, -q * (nn - 1) / den);
		if (d->free_kappa)
			gsl_matrix_set(jac, i, j, -q * nn * (nn - 1) / den);
	}
	return GSL_SUCCESS;
}

/* Start: lambda from the best per-task point, sigma and kappa from the linearised law. */
static void usl_start(const double *n, const double *x, int k, double *lambda, double *sigma, double *kappa)
{
	double a11 = 0, a12 = 0, a22 = 0, b1 = 0, b2 = 0, det;

	*lambda = 0;
	for (int i = 0; i < k; i++)
		*lambda = fmax(*lambda, x[i] / n[i]);
	/* lambda N / X - 1 = sigma (N-1) + kappa N (N-1): linear least squares, no intercept */
	for (int i = 0; i < k; i++) {
		double u = n[i] - 1, w = n[i] * (n[i] - 1), y = *lambda * n[i] / x[i] - 1;

		a11 += u * u;
		a12 += u * w;
		a22 += w * w;
		b1 += u * y;
		b2 += w * y;
	}
	det = a11 * a22 - a12 * a12;
	*sigma = *kappa = 0;
	if (det > 1e-12 * a11 * a22) {
		*sigma = (a22 * b1 - a12 * b2) / det;
		*kappa = (a11 * b2 - a12 * b1) / det;
	}
}

/*
 * One active set: fit log(lambda) and the free ones of sigma and kappa.
 * Returns the GSL status; on success fills @out (rms, errors, at_bound).
 */
static int usl_fit_one(struct usl_data *d, double lambda0, double sigma0, double kappa0, struct usl_fit *out)
{
	size_t p = 1 + (size_t)d->free_sigma + (size_t)d->free_kappa, j = 1;
	gsl_multifit_nlinear_parameters par = gsl_multifit_nlinear_default_parameters();
	gsl_multifit_nlinear_fdf fdf = {.f = usl_f, .df = usl_df, .n = (size_t)d->k, .p = p, .params = d};
	gsl_multifit_nlinear_workspace *w = NULL;
	gsl_vector *v = gsl_vector_alloc(p);
	gsl_matrix *covar = gsl_matrix_alloc(p, p);
	double chi2 = 0, s2;
	int status, info = 0, dof = d->k - (int)p;

	if (!v || !covar) {
		status = GSL_ENOMEM;
		goto out;
	}
	w = gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &par, (size_t)d->k, p);
	if (!w) {
		status = GSL_ENOMEM;
		goto out;
	}
	gsl_vector_set(v, 0, log(lambda0));
	if (d->free_sigma)
		gsl_vector_set(v, j++, sigma0);
	if (d->free_kappa)
		gsl_vector_set(v, j, kappa0);
	status = gsl_multifit_nlinear_init(v, &fdf, w);
	if (status)
		goto out;
	status = gsl_multifit_nlinear_driver(500, 1e-12, 1e-12, 0.0, NULL, NULL, &info, w);
	/* GSL_ENOPROG: no step lowers the cost any more, i.e. the minimum to machine precision */
	if (status && status != GSL_ENOPROG)
		goto out;
	status = gsl_multifit_nlinear_covar(gsl_multifit_nlinear_jac(w), 0.0, covar);
	if (status)
		goto out;

	memset(out, 0, sizeof(*out));
	usl_unpack(d, gsl_multifit_nlinear_position(w), &out->lambda, &out->sigma, &out->kappa);
	for (int i = 0; i < d->k; i++)
		chi2 += gsl_pow_2(gsl_vector_get(gsl_multifit_nlinear_residual(w), i));
	if (!isfinite(chi2) || !(out->lambda > 0)) {
		status = GSL_EDOM;
		goto out;
	}
	out->rms_rel = sqrt(chi2 / d->k);
	out->npoints = d->k;
	out->at_bound = (d->free_sigma ? 0 : 1) | (d->free_kappa ? 0 : 2);
	s2 = dof > 0 ? chi2 / dof : NAN;
	out->lambda_err = out->lambda * sqrt(gsl_matrix_get(covar, 0, 0) * s2);
	out->sigma_err = out->kappa_err = NAN;
	j = 1;
	if (d->free_sigma) {
		out->sigma_err = sqrt(gsl_matrix_get(covar, j, j) * s2);
		j++;
	}
	if (d->free_kappa)
		out->kappa_err = sqrt(gsl_matrix_get(covar, j, j) * s2);
out:
	gsl_multifit_nlinear_free(w);
	gsl_matrix_free(covar);
	gsl_vector_free(v);
	return status;
}

int usl_fit(const double *n, const double *x, int k, struct usl_fit *out, struct mm_error *err)
{
	struct usl_data d = {.n = n, .x = x, .k = k};
	double lambda0, sigma0, kappa0;
	int distinct = 0, found = 0, last_status = GSL_SUCCESS;

	if (!n || !x || !out || k < 0)
		return mm_fail(err, MM_EINVAL, "usl_fit: no points");
	for (int i = 0; i < k; i++) {
		int seen = 0;

		if (!(n[i] > 0) || !isfinite(n[i]) || !(x[i] > 0) || !isfinite(x[i]))
			return mm_fail(err, MM_ERANGE, "usl_fit: point %d (tasks %g, throughput %g) must be positive",
				       i, n[i], x[i]);
		for (int j = 0; j < i; j++)
			seen |= n[j] == n[i];
		distinct += !seen;
	}
	if (distinct < 3)
		return mm_fail(err, MM_EINVAL,
			       "USL not shown: it has three parameters (lambda, sigma, kappa) and needs training "
			       "points at 3 or more distinct task counts; there are %d",
			       distinct);

	usl_start(n, x, k, &lambda0, &sigma0, &kappa0);
	/* Every set of active constraints sigma >= 0, kappa >= 0; the best feasible fit wins (KKT). */
	for (int set = 0; set < 4; set++) {
		struct usl_fit u;
		int status;

		d.free_sigma = !(set & 1);
		d.free_kappa = !(set & 2);
		status = usl_fit_one(&d, lambda0, sigma0 > 0 ? sigma0 : 1e-3, kappa0 > 0 ? kappa0 : 1e-6, &u);
		if (status) {
			last_status = status;
			continue;
		}
		if (u.sigma < 0 || u.kappa < 0)
			continue;
		if (!found || u.rms_rel < out->rms_rel * (1 - 1e-12)) {
			*out = u;
			found = 1;
		}
	}
	if (!found)
		return mm_fail(err, MM_ERANGE, "usl_fit: no fit converged (GSL: %s)", gsl_strerror(last_status));
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Derivative-free fit of a noisy black box                               */
/* ---------------------------------------------------------------------- */

#define FIT_DEFAULT_EVALS 400
#define FIT_DEFAULT_TOL 1e-3   /* 0.1%: finer than the run-to-run noise resolves */
#define FIT_STEP_LOG 0.5       /* initial simplex: a factor e^0.5 = 1.65 on each parameter */
#define FIT_REFIT_STEP_LOG 0.1 /* profile re-minimisations start near the best fit */
#define FIT_REFIT_TOL 1e-3
#define FIT_STALL_EVALS 10 /* per vertex: nothing lower found in this many, stop */
#define FIT_LN2 0.69314718055994530942
#define FIT_BISECTIONS 5	/* per crossing: 1/32 of the bracket, then interpolated */
#define FIT_PARTNER_MIN_LOG 0.1 /* a partner must move by 10% or more along the profile */

struct fit_eval {
	const struct fit_problem *p;
	struct mm_error *err;
	int rc;
	int evals;
	double lo_log[FIT_MAX_PARAMS], hi_log[FIT_MAX_PARAMS];
	/* The minimisation in progress: its variables are the log of param[var[0..nvar)], the rest is base. */
	int nvar;
	int var[FIT_MAX_PARAMS];
	double base[FIT_MAX_PARAMS];
	double best_chi2; /* best of this minimisation and where (log, clamped into the bounds) */
	double best[FIT_MAX_PARAMS];
	double best_ever;
};

static void fit_describe(const struct fit_problem *p, const double *param, char *buf, size_t cap)
{
	size_t len = 0;

	buf[0] = 0;
	for (int j = 0; j < p->nparam && len < cap; j++)
		len += (size_t)snprintf(buf + len, cap - len, "%s%s = %g", j ? ", " : "", p->param[j].name, param[j]);
}

/* Parameter @j at log value @lp, within its bounds: exp(log(x)) may miss x by an ulp. */
static double fit_value(const struct fit_problem *p, int j, double lp)
{
	return fmin(fmax(exp(lp), p->param[j].lower), p->param[j].upper);
}

/* chi2 at the (clamped) log parameters @lp; NAN with ev->rc set on an error. */
static double fit_chi2(struct fit_eval *ev, const double *lp)
{
	const struct fit_problem *p = ev->p;
	double param[FIT_MAX_PARAMS], resid[FIT_MAX_RESID], chi2 = 0;
	char where[512];
	int rc;

	if (ev->rc)
		return NAN;
	for (int j = 0; j < p->nparam; j++)
		param[j] = fit_value(p, j, lp[j]);
	for (int i = 0; i < p->nresid; i++)
		resid[i] = NAN; /* a callback that forgets a point is caught below */
	rc = p->residuals(param, resid, p->nresid, p->ctx, ev->err);
	ev->evals++;
	if (rc) {
		ev->rc = rc < 0 ? rc : MM_EINVAL;
		return NAN;
	}
	for (int i = 0; i < p->nresid; i++) {
		if (!isfinite(resid[i])) {
			fit_describe(p, param, where, sizeof(where));
			ev->rc = mm_fail(ev->err, MM_ERANGE, "fit: residual of training point %d is %g at %s", i,
					 resid[i], where);
			return NAN;
		}
		chi2 += gsl_pow_2(resid[i] / p->sigma[i]);
	}
	if (chi2 < ev->best_chi2) {
		ev->best_chi2 = chi2;
		memcpy(ev->best, lp, sizeof(double) * (size_t)p->nparam);
	}
	if (chi2 < ev->best_ever)
		ev->best_ever = chi2;
	if (p->progress)
		p->progress(p->progress_arg, ev->evals, ev->best_ever);
	return chi2;
}

/*
 * The simplex's objective.  Outside the bounds, the model runs at the
 * nearest point inside and the distance is added as a penalty, so the
 * simplex walks back in and never runs the model out of its range.
 */
static double fit_objective(const gsl_vector *v, void *arg)
{
	struct fit_eval *ev = arg;
	double lp[FIT_MAX_PARAMS], out2 = 0, chi2;

	memcpy(lp, ev->base, sizeof(lp));
	for (int k = 0; k < ev->nvar; k++) {
		int j = ev->var[k];
		double x = gsl_vector_get(v, (size_t)k);
		double c = fmin(fmax(x, ev->lo_log[j]), ev->hi_log[j]);

		out2 += gsl_pow_2(x - c);
		lp[j] = c;
	}
	chi2 = fit_chi2(ev, lp);
	return chi2 + (1 + chi2) * 100 * out2;
}

/*
 * Nelder-Mead from ev->base over ev->var, first steps of @step_log; ev->best holds the result.
 * Returns 0 or a negative code; *converged says whether the simplex shrank below @tol.
 */
static int fit_simplex(struct fit_eval *ev, double step_log, int max_evals, double tol, int *converged)
{
	size_t n = (size_t)ev->nvar;
	gsl_multimin_function fn = {.f = fit_objective, .n = n, .params = ev};
	gsl_multimin_fminimizer *s = NULL;
	gsl_vector *x = NULL, *step = NULL;
	int status, start = ev->evals, rc = 0, last_gain = ev->evals;
	double last_best = INFINITY;

	*converged = 0;
	ev->best_chi2 = INFINITY;
	if (n == 0) { /* nothing free: one evaluation */
		fit_chi2(ev, ev->base);
		*converged = 1;
		return ev->rc;
	}
	x = gsl_vector_alloc(n);
	step = gsl_vector_alloc(n);
	s = gsl_multimin_fminimizer_alloc(gsl_multimin_fminimizer_nmsimplex2, n);
	if (!x || !step || !s) {
		rc = mm_fail(ev->err, MM_ENOMEM, "fit: out of memory for the simplex");
		goto out;
	}
	for (size_t k = 0; k < n; k++) {
		gsl_vector_set(x, k, ev->base[ev->var[k]]);
		gsl_vector_set(step, k, step_log);
	}
	status = gsl_multimin_fminimizer_set(s, &fn, x, step);
	if (ev->rc) {
		rc = ev->rc;
		goto out;
	}
	if (status) {
		rc = mm_fail(ev->err, MM_ERANGE, "fit: simplex set-up failed (GSL: %s)", gsl_strerror(status));
		goto out;
	}
	while (ev->evals - start < max_evals) {
		status = gsl_multimin_fminimizer_iterate(s);
		if (ev->rc) {
			rc = ev->rc;
			goto out;
		}
		if (status) {
			rc = mm_fail(ev->err, MM_ERANGE, "fit: simplex step failed (GSL: %s)", gsl_strerror(status));
			goto out;
		}
		if (ev->best_chi2 < last_best) {
			last_best = ev->best_chi2;
			last_gain = ev->evals;
		} else if (ev->evals - last_gain >= FIT_STALL_EVALS * (int)(n + 1)) {
			*converged = 1; /* on a plateau: integer time makes the model piecewise constant */
			break;
		}
		status = gsl_multimin_test_size(gsl_multimin_fminimizer_size(s), tol);
		if (status == GSL_SUCCESS) {
			*converged = 1;
			break;
		}
		if (status != GSL_CONTINUE) {
			rc = mm_fail(ev->err, MM_ERANGE, "fit: simplex size test failed (GSL: %s)",
				     gsl_strerror(status));
			goto out;
		}
	}
out:
	gsl_multimin_fminimizer_free(s);
	gsl_vector_free(step);
	gsl_vector_free(x);
	return rc;
}

static int fit_check(const struct fit_problem *p, struct mm_error *err)
{
	if (!p || p->nparam < 1 || p->nparam > FIT_MAX_PARAMS || !p->param)
		return mm_fail(err, MM_EINVAL, "fit: 1 to %d parameters", FIT_MAX_PARAMS);
	if (p->nresid < 1 || p->nresid > FIT_MAX_RESID || !p->sigma || !p->residuals)
		return mm_fail(err, MM_EINVAL, "fit: 1 to %d training points, each with a noise level", FIT_MAX_RESID);
	if (p->max_evals < 0 || p->tol_log < 0)
		return mm_fail(err, MM_EINVAL, "fit: negative evaluation budget or tolerance");
	for (int j = 0; j < p->nparam; j++) {
		const struct fit_param *q = &p->param[j];

		if (!q->name)
			return mm_fail(err, MM_EINVAL, "fit: parameter %d has no name", j);
		if (!(q->lower > 0) || !(q->upper > q->lower) || !isfinite(q->lower) || !(q->initial >= q->lower) ||
		    !(q->initial <= q->upper) || !isfinite(q->initial))
			return mm_fail(err, MM_ERANGE,
				       "fit: parameter %s: need 0 < lower (%g) < upper (%g), initial (%g) between",
				       q->name, q->lower, q->upper, q->initial);
	}
	for (int i = 0; i < p->nresid; i++)
		if (!(p->sigma[i] > 0) || !isfinite(p->sigma[i]))
			return mm_fail(err, MM_ERANGE, "fit: noise level of training point %d is %g; it must be > 0", i,
				       p->sigma[i]);
	return 0;
}

/*
 * chi2 with parameter @j at log value @v: the others at the best fit
 * (FIT_PROFILE_FIXED) or re-minimised from it (FIT_PROFILE_REFIT).
 * @at receives where the others ended up.
 */
static int fit_profile_point(struct fit_eval *ev, const double *best, int j, double v, double *chi2, double *at)
{
	const struct fit_problem *p = ev->p;
	int rc, converged;

	memcpy(ev->base, best, sizeof(ev->base));
	ev->base[j] = v;
	ev->nvar = 0;
	if (p->profile == FIT_PROFILE_REFIT)
		for (int k = 0; k < p->nparam; k++)
			if (k != j)
				ev->var[ev->nvar++] = k;
	rc = fit_simplex(ev, FIT_REFIT_STEP_LOG, p->max_evals ? p->max_evals : FIT_DEFAULT_EVALS, FIT_REFIT_TOL,
			 &converged);
	if (rc)
		return rc;
	*chi2 = ev->best_chi2;
	memcpy(at, ev->best, sizeof(double) * (size_t)p->nparam);
	return 0;
}

/*
 * One side (@dir = -1 or +1) of parameter @j's profile: step out in log
 * space to 1/8, 1/4, 1/2, 1 and 2 of ln 2 past ln 2 (factor 4) or the bound,
 * until chi2 rises by delta; then bisect the bracket.  *cross gets the log
 * value of the crossing (or the scan's end), *open whether none was found,
 * *rise2 the rise at factor 2 (or the furthest point short of it).
 */
static int fit_profile_side(struct fit_eval *ev, const double *best, double chi2_min, double delta, int j, int dir,
			    double *cross, int *open, double *rise2, double *moved)
{
	static const double steps[] = {0.125, 0.25, 0.5, 1, 2}; /* in units of ln 2 */
	double b = best[j], lim = dir < 0 ? ev->lo_log[j] : ev->hi_log[j];
	double in = b, in_rise = 0, out = 0, out_rise = 0, at[FIT_MAX_PARAMS];
	int rc, found = 0;

	*rise2 = 0;
	for (size_t s = 0; s < sizeof(steps) / sizeof(steps[0]); s++) {
		double v = b + dir * steps[s] * FIT_LN2, chi2;
		int last = 0;

		if (dir * (v - lim) >= 0) {
			v = lim;
			last = 1;
		}
		if (v == in)
			break;
		rc = fit_profile_point(ev, best, j, v, &chi2, at);
		if (rc)
			return rc;
		for (int k = 0; k < ev->p->nparam; k++)
			if (k != j)
				moved[k] = fmax(moved[k], fabs(at[k] - best[k]));
		if (fabs(v - b) <= FIT_LN2 * (1 + 1e-9))
			*rise2 = fmax(*rise2, chi2 - chi2_min);
		if (chi2 - chi2_min >= delta) {
			out = v;
			out_rise = chi2 - chi2_min;
			found = 1;
			break;
		}
		in = v;
		in_rise = chi2 - chi2_min;
		if (last)
			break;
	}
	*open = !found;
	if (!found) {
		*cross = in;
		return 0;
	}
	for (int i = 0; i < FIT_BISECTIONS; i++) {
		double v = 0.5 * (in + out), chi2;

		rc = fit_profile_point(ev, best, j, v, &chi2, at);
		if (rc)
			return rc;
		if (chi2 - chi2_min >= delta) {
			out = v;
			out_rise = chi2 - chi2_min;
		} else {
			in = v;
			in_rise = chi2 - chi2_min;
		}
	}
	/* linear in the bracket; the rise need not be monotone with a noisy model, so guard the ratio */
	*cross = out_rise > in_rise ? in + (out - in) * (delta - in_rise) / (out_rise - in_rise) : out;
	return 0;
}

static int fit_profile(struct fit_eval *ev, const double *best, double chi2_min, double delta, int j,
		       struct fit_param_result *pr)
{
	const struct fit_problem *p = ev->p;
	double moved[FIT_MAX_PARAMS] = {0}, lo, hi, rise_lo, rise_hi, most = FIT_PARTNER_MIN_LOG;
	int rc, lo_open, hi_open;

	rc = fit_profile_side(ev, best, chi2_min, delta, j, -1, &lo, &lo_open, &rise_lo, moved);
	if (!rc)
		rc = fit_profile_side(ev, best, chi2_min, delta, j, +1, &hi, &hi_open, &rise_hi, moved);
	if (rc)
		return rc;
	pr->lo = fit_value(p, j, lo);
	pr->hi = fit_value(p, j, hi);
	pr->lo_open = lo_open;
	pr->hi_open = hi_open;
	pr->identifiable = fmax(rise_lo, rise_hi) >= delta;
	pr->partner = -1;
	if (p->profile == FIT_PROFILE_REFIT)
		for (int k = 0; k < p->nparam; k++)
			if (k != j && moved[k] > most) {
				most = moved[k];
				pr->partner = k;
			}

	if (!pr->identifiable) {
		int len = snprintf(pr->reason, sizeof(pr->reason),
				   "not identifiable: chi2 rises by at most %.3g (1 sigma: %.3g) between 0.5x and 2x",
				   fmax(rise_lo, rise_hi), delta);

		if (pr->partner >= 0 && len > 0 && (size_t)len < sizeof(pr->reason))
			snprintf(pr->reason + len, sizeof(pr->reason) - (size_t)len,
				 "; degenerate with %s, which moves %.2fx along the profile",
				 p->param[pr->partner].name, exp(most));
	} else if (lo_open || hi_open) {
		snprintf(pr->reason, sizeof(pr->reason), "only bounded %s: chi2 rises by less than %.3g %s to %g",
			 lo_open ? "above" : "below", delta, lo_open ? "down" : "up", lo_open ? pr->lo : pr->hi);
	} else {
		snprintf(pr->reason, sizeof(pr->reason), "identified: 1 sigma %g..%g", pr->lo, pr->hi);
	}
	return 0;
}

int fit_minimize(const struct fit_problem *p, struct fit_result *r, struct mm_error *err)
{
	struct fit_eval ev = {.p = p, .err = err, .best_ever = INFINITY};
	int max_evals, converged, rc;
	double tol, best[FIT_MAX_PARAMS] = {0}, chi2_min;

	if ((rc = fit_check(p, err)))
		return rc;
	memset(r, 0, sizeof(*r));
	max_evals = p->max_evals ? p->max_evals : FIT_DEFAULT_EVALS;
	tol = p->tol_log > 0 ? p->tol_log : FIT_DEFAULT_TOL;
	for (int j = 0; j < p->nparam; j++) {
		ev.lo_log[j] = log(p->param[j].lower);
		ev.hi_log[j] = log(p->param[j].upper); /* +inf for an unbounded one */
		ev.base[j] = log(p->param[j].initial);
		ev.var[j] = j;
	}
	ev.nvar = p->nparam;

	/* Nelder-Mead can stall on a degenerate simplex: restart once from the best point, fresh simplex. */
	for (int run = 0; run < 2; run++) {
		if ((rc = fit_simplex(&ev, FIT_STEP_LOG, max_evals, tol, &converged)))
			return rc;
		memcpy(ev.base, ev.best, sizeof(double) * (size_t)p->nparam);
	}
	memcpy(best, ev.best, sizeof(double) * (size_t)p->nparam);
	chi2_min = ev.best_chi2;

	r->nparam = p->nparam;
	r->chi2 = chi2_min;
	r->dof = p->nresid - p->nparam;
	r->delta_chi2 = r->dof > 0 ? fmax(1, chi2_min / r->dof) : 1;
	r->converged = converged;
	for (int j = 0; j < p->nparam; j++) {
		r->param[j].value = fit_value(p, j, best[j]);
		if ((rc = fit_profile(&ev, best, chi2_min, r->delta_chi2, j, &r->param[j])))
			return rc;
	}
	r->evals = ev.evals;
	return 0;
}
