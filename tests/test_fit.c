/* SPDX-License-Identifier: MIT */
/*
 * The fitting module on synthetic data with known answers: generate points
 * from known parameters, add 1% deterministic pseudo-noise (the order of
 * mmsim's run-to-run variation), fit, and recover the parameters.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <gsl/gsl_errno.h>

#include "fit.h"
#include "mm_error.h"

#define NOISE 0.01

/* Standard normal deviates from a fixed LCG (Box-Muller), the same on every platform. */
static double t_gauss(uint64_t *s)
{
	double u1, u2;

	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	u1 = ((*s >> 11) + 0.5) / 9007199254740992.0;
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	u2 = ((*s >> 11) + 0.5) / 9007199254740992.0;
	return sqrt(-2 * log(u1)) * cos(2 * 3.14159265358979323846 * u2);
}

static void assert_within(double got, double want, double rel)
{
	if (!(fabs(got / want - 1) <= rel))
		fail_msg("got %g, want %g within %g%%", got, want, rel * 100);
}

/* ---- USL ---- */

static const double usl_n[] = {1, 2, 4, 8, 16, 32, 48, 64, 96, 128};
#define USL_K ((int)(sizeof(usl_n) / sizeof(usl_n[0])))

static void usl_points(double lambda, double sigma, double kappa, double *x)
{
	struct usl_fit truth = {.lambda = lambda, .sigma = sigma, .kappa = kappa};
	uint64_t s = 42;

	for (int i = 0; i < USL_K; i++)
		x[i] = usl_predict(&truth, usl_n[i]) * (1 + NOISE * t_gauss(&s));
}

static void usl_recovers_known_parameters(void **state)
{
	double x[USL_K];
	struct usl_fit u;
	struct mm_error err;

	usl_points(1e6, 0.05, 5e-4, x);
	if (usl_fit(usl_n, x, USL_K, &u, &err))
		fail_msg("%s", err.msg);
	print_message("usl: lambda %.6g (+-%.2g) sigma %.4g (+-%.2g) kappa %.4g (+-%.2g) rms %.4f\n", u.lambda,
		      u.lambda_err, u.sigma, u.sigma_err, u.kappa, u.kappa_err, u.rms_rel);
	assert_within(u.lambda, 1e6, 0.05);
	assert_within(u.sigma, 0.05, 0.05);
	assert_within(u.kappa, 5e-4, 0.05);
	assert_int_equal(u.at_bound, 0);
	assert_int_equal(u.npoints, USL_K);
	assert_true(u.rms_rel > 0.003 && u.rms_rel < 0.02); /* the 1% noise, less three parameters */
	/* the reported errors are honest: the truth is within 3 of them */
	assert_true(fabs(u.sigma - 0.05) < 3 * u.sigma_err);
	assert_true(fabs(u.kappa - 5e-4) < 3 * u.kappa_err);
	assert_within(usl_predict(&u, 64), 1e6 * 64 / (1 + 0.05 * 63 + 5e-4 * 64 * 63), 0.02);
}

static void usl_keeps_kappa_non_negative(void **state)
{
	double x[USL_K];
	struct usl_fit u;
	struct mm_error err;

	/* Amdahl's law with a slight super-linear bend: the unconstrained kappa would be negative */
	usl_points(1e6, 0.02, 0, x);
	for (int i = 0; i < USL_K; i++)
		x[i] *= 1 + 2e-4 * usl_n[i];
	if (usl_fit(usl_n, x, USL_K, &u, &err))
		fail_msg("%s", err.msg);
	print_message("usl at bound: lambda %.6g sigma %.4g kappa %.3g bound %d rms %.4f\n", u.lambda, u.sigma, u.kappa,
		      u.at_bound, u.rms_rel);
	assert_true(u.sigma >= 0);
	assert_true(u.kappa == 0);
	assert_int_equal(u.at_bound, 2);
	assert_true(isnan(u.kappa_err));
}

static void usl_needs_three_task_counts(void **state)
{
	const double n2[] = {1, 64}, x2[] = {1e6, 3e7};
	const double n4[] = {1, 64, 64, 1}, x4[] = {1e6, 3e7, 3.1e7, 1.1e6};
	struct usl_fit u;
	struct mm_error err = {0};

	assert_int_equal(usl_fit(n2, x2, 2, &u, &err), MM_EINVAL);
	assert_non_null(strstr(err.msg, "USL not shown"));
	assert_non_null(strstr(err.msg, "3 or more distinct task counts; there are 2"));
	/* four points, but two task counts */
	assert_int_equal(usl_fit(n4, x4, 4, &u, &err), MM_EINVAL);
	assert_non_null(strstr(err.msg, "there are 2"));
	assert_int_equal(usl_fit(n2, (const double[]){1e6, -1}, 2, &u, &err), MM_ERANGE);
}

/* ---- derivative-free fit ---- */

/*
 * The machine-repairman curve of a lock: a task spends a cycles privately
 * and b holding a shared resource, X(N) = N / (a + N b) operations per
 * cycle once saturated (the asymptotic bound, which is what a long run sees
 * well past the knee and, up to a few percent, before it).  Costs are whole
 * cycles, so the model is piecewise constant in its parameters as mmsim is.
 * param[2], when present, either does nothing or multiplies a.
 */
enum t_third { T_NONE, T_IGNORED, T_TIMES_A };

struct t_model {
	double n[8];
	double measured[8];
	int k;
	enum t_third third;
	double lo[3], hi[3]; /* every parameter the callback was asked about */
	int nan_at;	     /* evaluation that returns NaN; 0: never */
	int fail_at;	     /* evaluation that fails with MM_ESTALL; 0: never */
	int calls;
	int nparam;
};

static double t_throughput(const struct t_model *m, const double *param, double n)
{
	double a = round(param[0]), b = round(param[1]);

	if (m->third == T_TIMES_A)
		a = round(param[0] * param[2]);
	return n / (a + n * b);
}

static int t_residuals(const double *param, double *resid, int nresid, void *ctx, struct mm_error *err)
{
	struct t_model *m = ctx;

	m->calls++;
	for (int j = 0; j < m->nparam; j++) {
		m->lo[j] = fmin(m->lo[j], param[j]);
		m->hi[j] = fmax(m->hi[j], param[j]);
	}
	if (m->fail_at && m->calls == m->fail_at)
		return mm_fail(err, MM_ESTALL, "simulation stalled");
	for (int i = 0; i < nresid; i++)
		resid[i] = t_throughput(m, param, m->n[i]) / m->measured[i] - 1;
	if (m->nan_at && m->calls == m->nan_at)
		resid[1] = NAN;
	return 0;
}

static void t_progress(void *arg, int evals, double best_chi2)
{
	int *last = arg;

	assert_int_equal(evals, *last + 1);
	*last = evals;
}

static const double t_sigma[8] = {NOISE, NOISE, NOISE, NOISE, NOISE, NOISE, NOISE, NOISE};

/* Training points at 1..128 tasks from a = 2000, b = 150 cycles (and param[2] = 1), 1% noise. */
static void t_model_init(struct t_model *m, enum t_third third, int nparam)
{
	const double truth[3] = {2000, 150, 1};
	uint64_t s = 7;

	memset(m, 0, sizeof(*m));
	m->k = 8;
	m->third = third;
	m->nparam = nparam;
	for (int i = 0; i < m->k; i++) {
		m->n[i] = 1 << i;
		m->measured[i] = t_throughput(m, truth, m->n[i]) * (1 + NOISE * t_gauss(&s));
	}
	for (int j = 0; j < 3; j++) {
		m->lo[j] = INFINITY;
		m->hi[j] = -INFINITY;
	}
}

static struct fit_problem t_problem(struct t_model *m, const struct fit_param *param, int nparam)
{
	struct fit_problem p = {.nparam = nparam,
				.param = param,
				.nresid = m->k,
				.sigma = t_sigma,
				.residuals = t_residuals,
				.ctx = m,
				.max_evals = 300};
	return p;
}

static void t_print(const char *what, const struct fit_problem *p, const struct fit_result *r)
{
	print_message("%s: chi2 %.3g dof %d delta %.3g evals %d converged %d\n", what, r->chi2, r->dof, r->delta_chi2,
		      r->evals, r->converged);
	for (int j = 0; j < r->nparam; j++)
		print_message("  %-2s %10.4g  [%.4g, %.4g]%s%s  %s\n", p->param[j].name, r->param[j].value,
			      r->param[j].lo, r->param[j].hi, r->param[j].lo_open ? " lo-open" : "",
			      r->param[j].hi_open ? " hi-open" : "", r->param[j].reason);
}

static const struct fit_param t_params[3] = {
    {.name = "a", .initial = 1000, .lower = 10, .upper = 1e6},
    {.name = "b", .initial = 500, .lower = 1, .upper = 1e5},
    {.name = "c", .initial = 1, .lower = 0.01, .upper = 100},
};

static void fit_recovers_two_costs(void **state)
{
	struct t_model m;
	struct fit_problem p;
	struct fit_result r;
	struct mm_error err;
	int last = 0;

	t_model_init(&m, T_NONE, 2);
	p = t_problem(&m, t_params, 2);
	p.progress = t_progress;
	p.progress_arg = &last;
	if (fit_minimize(&p, &r, &err))
		fail_msg("%s", err.msg);
	t_print("two costs", &p, &r);
	assert_within(r.param[0].value, 2000, 0.05);
	assert_within(r.param[1].value, 150, 0.05);
	assert_int_equal(r.dof, 6);
	assert_true(r.converged);
	assert_int_equal(last, r.evals);
	assert_int_equal(m.calls, r.evals);
	for (int j = 0; j < 2; j++) {
		const struct fit_param_result *q = &r.param[j];

		assert_true(q->identifiable);
		assert_false(q->lo_open || q->hi_open);
		assert_true(q->lo < q->value && q->value < q->hi);
		/* 1-sigma ranges of a few percent: 1% noise on eight points */
		assert_true(q->hi / q->lo < 1.2);
		assert_int_equal(q->partner, -1);
	}
	/* the truth lies within 3 sigma */
	assert_true(r.param[0].value - 3 * (r.param[0].value - r.param[0].lo) < 2000);
	assert_true(r.param[0].value + 3 * (r.param[0].hi - r.param[0].value) > 2000);
}

static void fit_flags_a_parameter_without_effect(void **state)
{
	struct t_model m;
	struct fit_problem p;
	struct fit_result r;
	struct mm_error err;

	t_model_init(&m, T_IGNORED, 3);
	p = t_problem(&m, t_params, 3);
	if (fit_minimize(&p, &r, &err))
		fail_msg("%s", err.msg);
	t_print("ignored c", &p, &r);
	assert_within(r.param[0].value, 2000, 0.05);
	assert_within(r.param[1].value, 150, 0.05);
	assert_true(r.param[0].identifiable && r.param[1].identifiable);
	assert_false(r.param[2].identifiable);
	assert_true(r.param[2].lo_open && r.param[2].hi_open);
	assert_non_null(strstr(r.param[2].reason, "not identifiable"));
}

static void fit_finds_a_degenerate_pair(void **state)
{
	struct t_model m;
	struct fit_problem p;
	struct fit_result r;
	struct mm_error err;

	/* only a * c matters: each alone is fixed when the other is held, free when it may move */
	t_model_init(&m, T_TIMES_A, 3);
	p = t_problem(&m, t_params, 3);
	p.profile = FIT_PROFILE_FIXED;
	if (fit_minimize(&p, &r, &err))
		fail_msg("%s", err.msg);
	t_print("a*c, fixed profile", &p, &r);
	assert_true(r.param[0].identifiable && r.param[2].identifiable);
	assert_within(r.param[0].value * r.param[2].value, 2000, 0.05);

	p.profile = FIT_PROFILE_REFIT;
	if (fit_minimize(&p, &r, &err))
		fail_msg("%s", err.msg);
	t_print("a*c, refit profile", &p, &r);
	assert_within(r.param[0].value * r.param[2].value, 2000, 0.05);
	assert_within(r.param[1].value, 150, 0.05);
	assert_true(r.param[1].identifiable);
	assert_false(r.param[0].identifiable);
	assert_false(r.param[2].identifiable);
	assert_int_equal(r.param[0].partner, 2);
	assert_int_equal(r.param[2].partner, 0);
	assert_non_null(strstr(r.param[0].reason, "degenerate with c"));
}

static void fit_stays_within_bounds(void **state)
{
	struct fit_param tight[2] = {t_params[0], t_params[1]};
	struct t_model m;
	struct fit_problem p;
	struct fit_result r;
	struct mm_error err;

	tight[0].lower = 100;
	tight[0].upper = 5000;
	tight[1].initial = 80;
	tight[1].lower = 20;
	tight[1].upper = 100; /* the truth, 150, is above */
	t_model_init(&m, T_NONE, 2);
	p = t_problem(&m, tight, 2);
	if (fit_minimize(&p, &r, &err))
		fail_msg("%s", err.msg);
	t_print("b <= 100", &p, &r);
	assert_true(m.lo[0] >= 100 && m.hi[0] <= 5000);
	assert_true(m.lo[1] >= 20 && m.hi[1] <= 100);
	assert_within(r.param[1].value, 100, 0.01);
	assert_true(r.param[1].hi_open);
	assert_true(r.param[1].hi <= 100);
}

static void fit_reports_bad_residuals(void **state)
{
	struct t_model m;
	struct fit_problem p;
	struct fit_result r;
	struct mm_error err = {0};

	t_model_init(&m, T_NONE, 2);
	m.nan_at = 17;
	p = t_problem(&m, t_params, 2);
	assert_int_equal(fit_minimize(&p, &r, &err), MM_ERANGE);
	assert_non_null(strstr(err.msg, "residual of training point 1 is nan"));
	assert_non_null(strstr(err.msg, "a = "));

	t_model_init(&m, T_NONE, 2);
	m.fail_at = 5;
	assert_int_equal(fit_minimize(&p, &r, &err), MM_ESTALL);
	assert_string_equal(err.msg, "simulation stalled");
	assert_int_equal(m.calls, 5); /* stops at the first failure */
}

static void fit_rejects_malformed_problems(void **state)
{
	struct fit_param bad[2] = {t_params[0], t_params[1]};
	double sigma0[8] = {0};
	struct t_model m;
	struct fit_problem p;
	struct fit_result r;
	struct mm_error err;

	t_model_init(&m, T_NONE, 2);
	p = t_problem(&m, bad, 2);
	bad[0].lower = 0;
	assert_int_equal(fit_minimize(&p, &r, &err), MM_ERANGE);
	bad[0].lower = 10;
	bad[1].initial = 1e6; /* above its upper bound */
	assert_int_equal(fit_minimize(&p, &r, &err), MM_ERANGE);
	p = t_problem(&m, t_params, 2);
	p.sigma = sigma0;
	assert_int_equal(fit_minimize(&p, &r, &err), MM_ERANGE);
	p = t_problem(&m, t_params, 0);
	assert_int_equal(fit_minimize(&p, &r, &err), MM_EINVAL);
	assert_int_equal(m.calls, 0);
}

static void fits_are_deterministic(void **state)
{
	struct t_model m1, m2;
	struct fit_problem p1, p2;
	struct fit_result r1, r2;
	struct usl_fit u1, u2;
	struct mm_error err;
	double x[USL_K];

	t_model_init(&m1, T_IGNORED, 3);
	t_model_init(&m2, T_IGNORED, 3);
	p1 = t_problem(&m1, t_params, 3);
	p2 = t_problem(&m2, t_params, 3);
	assert_int_equal(fit_minimize(&p1, &r1, &err), 0);
	assert_int_equal(fit_minimize(&p2, &r2, &err), 0);
	assert_memory_equal(&r1, &r2, sizeof(r1));

	usl_points(1e6, 0.05, 5e-4, x);
	memset(&u1, 0, sizeof(u1));
	memset(&u2, 0, sizeof(u2));
	assert_int_equal(usl_fit(usl_n, x, USL_K, &u1, &err), 0);
	assert_int_equal(usl_fit(usl_n, x, USL_K, &u2, &err), 0);
	assert_memory_equal(&u1, &u2, sizeof(u1));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(usl_recovers_known_parameters),
	    cmocka_unit_test(usl_keeps_kappa_non_negative),
	    cmocka_unit_test(usl_needs_three_task_counts),
	    cmocka_unit_test(fit_recovers_two_costs),
	    cmocka_unit_test(fit_flags_a_parameter_without_effect),
	    cmocka_unit_test(fit_finds_a_degenerate_pair),
	    cmocka_unit_test(fit_stays_within_bounds),
	    cmocka_unit_test(fit_reports_bad_residuals),
	    cmocka_unit_test(fit_rejects_malformed_problems),
	    cmocka_unit_test(fits_are_deterministic),
	};

	gsl_set_error_handler_off(); /* as main() does */
	return cmocka_run_group_tests(tests, NULL, NULL);
}
