/* SPDX-License-Identifier: MIT */
#include "report.h"
#include "cleanup.h"
#include "plot.h"
#include "scenario.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *const mode_name[2] = {"threads", "processes"};

/* The roles a curve's points report: the most any point has (the last, "(none)", comes and goes
 * with the tasks left without a role); 0 for a scenario without roles. */
static int curve_roles(const struct curve *cv, int m)
{
	int n = 0;

	for (int p = 0; p < cv->npts; p++)
		n = cv->res[m][p]->nroles > n ? cv->res[m][p]->nroles : n;
	return n;
}

/* The role columns' names, and their width: at least 12 characters. */
static int role_header(const struct sim_role_stats *rs, const char *what, char *buf, size_t cap)
{
	int n = snprintf(buf, cap, "%s_%s", rs->name, what);

	return n < 12 ? 12 : n;
}

void report_table(FILE *f, const struct report_ctx *ctx, const struct curve *c, int ncurves)
{
	static const char *const names[3] = {"tasks", "ops/s", "ops/s/task"};
	char head[2 * SC_NAME];

	fprintf(f, "# machine: %s (%s); %s\n", ctx->machine, ctx->machine_desc, ctx->topology);
	for (int i = 0; i < ncurves; i++) {
		const struct curve *cv = &c[i];
		const struct sim_role_stats *roles = NULL;
		int nroles;

		for (int m = 0; m < 2; m++) {
			if (!cv->has_mode[m])
				continue;
			fprintf(f, "\n%s  [%s, kernel %s, %s]\n", cv->label, cv->scenario, cv->kernel, mode_name[m]);
			fprintf(f, "  one op = %s\n", cv->opdoc);
			fprintf(f, "  %6s %14s %14s %9s %11s", "tasks", "ops/s", "ops/s/task", "idle%", "efficiency");
			if (cv->fixed_work)
				fprintf(f, " %12s", "makespan_s");
			if (cv->has_band)
				fprintf(f, " %14s %14s", "band_low", "band_high");
			if (cv->nseeds > 1)
				fprintf(f, " %14s %14s", "seeds_min", "seeds_max");
			/* a scenario with roles: each role's tasks, ops/s and ops/s per task */
			nroles = curve_roles(cv, m);
			for (int p = 0; nroles && p < cv->npts; p++)
				if (cv->res[m][p]->nroles == nroles)
					roles = cv->res[m][p]->roles;
			for (int k = 0; k < nroles; k++) {
				for (int q = 0; q < 3; q++) {
					int w = role_header(&roles[k], names[q], head, sizeof(head));

					fprintf(f, " %*s", w, head);
				}
			}
			fputc('\n', f);
			for (int p = 0; p < cv->npts; p++) {
				const struct sim_result *r = cv->res[m][p];
				double eff = cv->linear1[m] > 0 ? r->ops_per_s / (cv->linear1[m] * cv->tasks[p]) : 0;

				fprintf(f, "  %6d %14.0f %14.1f %9.2f %10.1f%%", cv->tasks[p], r->ops_per_s,
					r->ops_per_s_task, r->idle_pct, 100.0 * eff);
				if (cv->fixed_work)
					fprintf(f, " %12.6f", r->makespan_s);
				if (cv->has_band)
					fprintf(f, " %14.0f %14.0f", cv->band_lo[m][p], cv->band_hi[m][p]);
				if (cv->nseeds > 1) {
					double lo, hi;

					curve_seed_range(cv, m, p, &lo, &hi);
					fprintf(f, cv->fixed_work ? " %14.6f %14.6f" : " %14.0f %14.0f", lo, hi);
				}
				for (int k = 0; k < nroles; k++) {
					const struct sim_role_stats *rs = k < r->nroles ? &r->roles[k] : NULL;

					fprintf(f, " %*d", role_header(&roles[k], names[0], head, sizeof(head)),
						rs ? rs->ntasks : 0);
					fprintf(f, " %*.0f", role_header(&roles[k], names[1], head, sizeof(head)),
						rs ? rs->ops_per_s : 0.0);
					fprintf(f, " %*.1f", role_header(&roles[k], names[2], head, sizeof(head)),
						rs ? rs->ops_per_s_task : 0.0);
				}
				fputc('\n', f);
			}
		}
	}
	if (ncurves == 2)
		report_ratio(f, &c[0], &c[1]);
}

void curve_seed_range(const struct curve *c, int mode, int point, double *lo, double *hi)
{
	const double *v = c->seedv + ((size_t)mode * c->npts + point) * c->nseeds;

	*lo = *hi = v[0];
	for (int k = 1; k < c->nseeds; k++) {
		*lo = v[k] < *lo ? v[k] : *lo;
		*hi = v[k] > *hi ? v[k] : *hi;
	}
}

/* The second's gain over the first from one pair of results: ops/s ratio, or makespan speedup. */
static double gain(int fixed, double a, double b)
{
	if (fixed)
		return b > 0 ? a / b : 0;
	return a > 0 ? b / a : 0;
}

/* The second curve's gain over the first at point @p of mode @m, and with @seeds its spread,
 * seed by seed (the same seeds for both). */
static void gain_point(const struct curve *a, const struct curve *b, int m, int p, int fixed, int seeds, double *g,
		       double *lo, double *hi)
{
	const struct sim_result *ra = a->res[m][p], *rb = b->res[m][p];

	*g = gain(fixed, fixed ? ra->makespan_s : ra->ops_per_s, fixed ? rb->makespan_s : rb->ops_per_s);
	*lo = *hi = 0;
	for (int k = 0; seeds && k < a->nseeds; k++) {
		size_t at = ((size_t)m * a->npts + p) * a->nseeds;
		double v = gain(fixed, a->seedv[at + k], b->seedv[at + k]);

		*lo = !k || v < *lo ? v : *lo;
		*hi = !k || v > *hi ? v : *hi;
	}
}

/* Whether two curves' gain can be taken in mode @m, and whether with a seed spread. */
static int gain_mode(const struct curve *a, const struct curve *b, int m, int *seeds)
{
	*seeds = a->nseeds > 1 && a->nseeds == b->nseeds && a->fixed_work == b->fixed_work;
	return a->has_mode[m] && b->has_mode[m] && a->npts == b->npts;
}

/* The modes in which two curves' gain can be taken. */
static int gain_modes(const struct curve *a, const struct curve *b)
{
	int seeds;

	return gain_mode(a, b, SC_THREADS, &seeds) + gain_mode(a, b, SC_PROCESSES, &seeds);
}

/* Two curves (a kernel before and after a patch, say): the second's gain over the first at each
 * task count, in each mode both have. */
void report_ratio(FILE *f, const struct curve *a, const struct curve *b)
{
	for (int m = 0; m < 2; m++) {
		int fixed = a->fixed_work && b->fixed_work, seeds;

		if (!gain_mode(a, b, m, &seeds))
			continue;
		fprintf(f, "\n%s over %s  [%s]\n", b->label, a->label, mode_name[m]);
		fprintf(f, "  %6s %14s", "tasks", fixed ? "speedup" : "ratio");
		if (seeds)
			fprintf(f, " %14s %14s", "seeds_min", "seeds_max");
		fprintf(f, "  %s\n",
			fixed ? "(makespan of the first / of the second)" : "(ops/s of the second / of the first)");
		for (int p = 0; p < a->npts; p++) {
			double g, lo, hi;

			gain_point(a, b, m, p, fixed, seeds, &g, &lo, &hi);
			fprintf(f, "  %6d %14.3f", a->tasks[p], g);
			if (seeds)
				fprintf(f, " %14.3f %14.3f", lo, hi);
			fputc('\n', f);
		}
	}
}

void report_csv(FILE *f, const struct curve *c)
{
	/* exactly runtest.py's header and row format */
	fprintf(f, "tasks,processes,processes_idle,threads,threads_idle,linear\n");
	fprintf(f, "0,0,100,0,100,0\n");
	for (int p = 0; p < c->npts; p++) {
		const struct sim_result *th = c->has_mode[SC_THREADS] ? c->res[SC_THREADS][p] : NULL;
		const struct sim_result *pr = c->has_mode[SC_PROCESSES] ? c->res[SC_PROCESSES][p] : NULL;
		double lin = c->linear1[SC_THREADS] > c->linear1[SC_PROCESSES] ? c->linear1[SC_THREADS]
									       : c->linear1[SC_PROCESSES];

		fprintf(f, "%d,%lld,%0.2f,%lld,%0.2f,%lld\n", c->tasks[p], pr ? (long long)pr->ops_per_s : 0LL,
			pr ? pr->idle_pct : 0.0, th ? (long long)th->ops_per_s : 0LL, th ? th->idle_pct : 0.0,
			(long long)(lin * c->tasks[p]));
	}
	if (!c->has_band)
		return;
	/* after the rows, as comments: readers of runtest.py's CSV skip them */
	fprintf(f, "# band: ops/s with each [fitted] cost at the ends of its 1-sigma range\n");
	fprintf(f, "# band: tasks,processes_low,processes_high,threads_low,threads_high\n");
	for (int p = 0; p < c->npts; p++)
		fprintf(f, "# band: %d,%lld,%lld,%lld,%lld\n", c->tasks[p],
			c->has_mode[SC_PROCESSES] ? (long long)c->band_lo[SC_PROCESSES][p] : 0LL,
			c->has_mode[SC_PROCESSES] ? (long long)c->band_hi[SC_PROCESSES][p] : 0LL,
			c->has_mode[SC_THREADS] ? (long long)c->band_lo[SC_THREADS][p] : 0LL,
			c->has_mode[SC_THREADS] ? (long long)c->band_hi[SC_THREADS][p] : 0LL);
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

/* The same as JSON: "gain": [{"of", "over", "mode", "measure", "points": [...]}, ...]. */
static void json_gain(FILE *f, const struct curve *a, const struct curve *b)
{
	int n = 0;

	for (int m = 0; m < 2; m++) {
		int fixed = a->fixed_work && b->fixed_work, seeds;

		if (!gain_mode(a, b, m, &seeds))
			continue;
		fprintf(f, "%s\n    {\"of\": ", n++ ? "," : ",\n  \"gain\": [");
		json_str(f, b->label);
		fprintf(f, ", \"over\": ");
		json_str(f, a->label);
		fprintf(f, ", \"mode\": \"%s\", \"measure\": \"%s\",\n     \"points\": [", mode_name[m],
			fixed ? "speedup" : "ratio");
		for (int p = 0; p < a->npts; p++) {
			double g, lo, hi;

			gain_point(a, b, m, p, fixed, seeds, &g, &lo, &hi);
			fprintf(f, "%s\n       {\"tasks\": %d, \"gain\": %.6g", p ? "," : "", a->tasks[p], g);
			if (seeds)
				fprintf(f, ", \"seeds\": %d, \"seeds_min\": %.6g, \"seeds_max\": %.6g", a->nseeds, lo,
					hi);
			fputc('}', f);
		}
		fprintf(f, "]}");
	}
	if (n)
		fprintf(f, "\n  ]");
}

void report_json(FILE *f, const struct report_ctx *ctx, const struct curve *c, int ncurves)
{
	fprintf(f, "{\n  \"machine\": ");
	json_str(f, ctx->machine);
	fprintf(f, ",\n  \"topology\": ");
	json_str(f, ctx->topology);
	fprintf(f, ",\n  \"cpus\": %d,\n  \"seed\": %llu,\n  \"curves\": [", ctx->ncpus, ctx->seed);
	for (int i = 0; i < ncurves; i++) {
		const struct curve *cv = &c[i];

		for (int m = 0, first = 1; m < 2; m++) {
			if (!cv->has_mode[m])
				continue;
			fprintf(f, "%s\n    {\"label\": ", i || !first ? "," : "");
			first = 0;
			json_str(f, cv->label);
			fprintf(f, ", \"scenario\": ");
			json_str(f, cv->scenario);
			fprintf(f, ", \"variant\": ");
			json_str(f, cv->variant);
			fprintf(f, ", \"kernel\": ");
			json_str(f, cv->kernel);
			fprintf(f, ", \"mode\": \"%s\", \"op\": ", mode_name[m]);
			json_str(f, cv->opdoc);
			fprintf(f, ",\n     \"points\": [");
			for (int p = 0; p < cv->npts; p++) {
				const struct sim_result *r = cv->res[m][p];

				fprintf(f,
					"%s\n       {\"tasks\": %d, \"ops_per_s\": %.6g, \"ops_per_s_per_task\": %.6g, "
					"\"idle_pct\": %.4f, \"efficiency\": %.6g, \"makespan_s\": %.9g, "
					"\"events\": %llu",
					p ? "," : "", cv->tasks[p], r->ops_per_s, r->ops_per_s_task, r->idle_pct,
					cv->linear1[m] > 0 ? r->ops_per_s / (cv->linear1[m] * cv->tasks[p]) : 0,
					r->makespan_s, (unsigned long long)r->events);
				if (cv->has_band)
					fprintf(f, ", \"band_low\": %.6g, \"band_high\": %.6g", cv->band_lo[m][p],
						cv->band_hi[m][p]);
				if (cv->nseeds > 1) {
					double lo, hi;

					curve_seed_range(cv, m, p, &lo, &hi);
					fprintf(f, ", \"seeds\": %d, \"seeds_min\": %.9g, \"seeds_max\": %.9g",
						cv->nseeds, lo, hi);
				}
				for (int k = 0; k < r->nroles; k++) {
					fprintf(f, "%s{\"name\": ", k ? ", " : ",\n        \"roles\": [");
					json_str(f, r->roles[k].name);
					fprintf(f,
						", \"tasks\": %d, \"ops_per_s\": %.6g, \"ops_per_s_per_task\": %.6g}%s",
						r->roles[k].ntasks, r->roles[k].ops_per_s, r->roles[k].ops_per_s_task,
						k == r->nroles - 1 ? "]" : "");
				}
				fputc('}', f);
			}
			fprintf(f, "]}");
		}
	}
	fprintf(f, "\n  ]");
	if (ncurves == 2)
		json_gain(f, &c[0], &c[1]);
	fprintf(f, "\n}\n");
}

/* ---- plots ----------------------------------------------------------------------------------- */

struct plot_args {
	const struct report_ctx *ctx;
	const struct curve *c;
	int ncurves;
};

/* The clauses of one plot command, one per data block written: gnuplot counts only blocks that
 * hold points, so a block is written only when it has some, and numbered as it is.  Both panels'
 * blocks go to one data file: *@blocks counts them for both. */
struct plot_list {
	char *buf;
	size_t len;
	FILE *f;
	int *blocks;
	int nclauses;
	int ntitles, maxtitle; /* legend entries, and the longest one's characters: the legend's size */
};

/* The lower panel's gain, per mode: black and purple, apart from the curves' colours. */
static const char *const gain_colour[2] = {"#000000", "#6a3d9a"};

/* One clause: @src (a data block or a function), its style, and its legend entry (NULL: none). */
static void plot_clause(struct plot_list *pl, const char *src, const char *style, const char *title)
{
	int len = title ? (int)strlen(title) : 0;

	fprintf(pl->f, "%s%s %s ", pl->nclauses++ ? ", \\\n     " : "", src, style);
	if (!title) {
		fputs("notitle", pl->f);
		return;
	}
	fputs("title ", pl->f);
	plot_string(pl->f, title);
	pl->ntitles++;
	pl->maxtitle = len > pl->maxtitle ? len : pl->maxtitle;
}

/* A clause drawing the data block just written to @d, which ends here. */
static void plot_block(struct plot_list *pl, FILE *d, const char *datafile, const char *style, const char *title)
{
	char src[4400];

	fprintf(d, "\n\n");
	snprintf(src, sizeof(src), "'%s' index %d", datafile, (*pl->blocks)++);
	plot_clause(pl, src, style, title);
}

/* The number of curve @i's mode @m among the series drawn: one per curve and mode, in order. */
static int series(const struct curve *c, int i, int m)
{
	int n = m == SC_PROCESSES && c[i].has_mode[SC_THREADS];

	for (int k = 0; k < i; k++)
		n += c[k].has_mode[SC_THREADS] + c[k].has_mode[SC_PROCESSES];
	return n;
}

static const char *series_colour(const struct curve *c, int i, int m)
{
	return plot_colour(series(c, i, m));
}

/* The mode of measured point @k of @c: its own, or the curve's first (threads when it has both). */
static int meas_point_mode(const struct curve *c, int k)
{
	if (c->meas_mode[k] == MEAS_THREADS || c->meas_mode[k] == MEAS_PROCESSES)
		return c->meas_mode[k] == MEAS_THREADS ? SC_THREADS : SC_PROCESSES;
	return c->has_mode[SC_THREADS] ? SC_THREADS : SC_PROCESSES;
}

/* --band and --seeds: each curve's and mode's range of ops/s as a shaded band under its curve. */
static void plot_bands(struct plot_list *pl, FILE *d, const char *datafile, const struct plot_args *pa, int seeds)
{
	const struct curve *c = pa->c;
	char style[160], title[200];
	int n = 0;

	for (int i = 0; i < pa->ncurves; i++)
		for (int m = 0; m < 2; m++) {
			const char *col = series_colour(c, i, m);

			if (!c[i].has_mode[m] || (seeds ? c[i].nseeds < 2 : !c[i].has_band))
				continue;
			fprintf(d, "# %s %s %s\n", c[i].label, mode_name[m], seeds ? "seeds" : "band");
			for (int p = 0; p < c[i].npts; p++) {
				double lo = c[i].band_lo[m][p], hi = c[i].band_hi[m][p];

				if (seeds)
					curve_seed_range(&c[i], m, p, &lo, &hi);
				fprintf(d, "%d %.6g %.6g\n", c[i].tasks[p], lo, hi);
			}
			if (seeds)
				snprintf(style, sizeof(style),
					 "using 1:2:3 with filledcurves fc '%s' fs transparent solid 0.25 noborder",
					 col);
			else /* edged in its curve's colour: told apart from a seeds band */
				snprintf(
				    style, sizeof(style),
				    "using 1:2:3 with filledcurves fc '%s' fs transparent solid 0.12 border lc '%s'",
				    col, col);
			/* one legend entry for all the bands: each is in its curve's colour */
			if (seeds)
				snprintf(title, sizeof(title), "shaded: min-max over seeds %llu-%llu", pa->ctx->seed,
					 pa->ctx->seed + (unsigned long long)c[i].nseeds - 1);
			else
				snprintf(title, sizeof(title), "shaded, edged: each [fitted] cost at its 1-sigma ends");
			plot_block(pl, d, datafile, style, n++ ? NULL : title);
		}
}

/* The predicted curves: every point marked, open symbols. */
static void plot_predicted(struct plot_list *pl, FILE *d, const char *datafile, const struct plot_args *pa)
{
	const struct curve *c = pa->c;
	char style[160], title[400];

	for (int i = 0; i < pa->ncurves; i++)
		for (int m = 0; m < 2; m++) {
			if (!c[i].has_mode[m])
				continue;
			fprintf(d, "# %s %s\n", c[i].label, mode_name[m]);
			for (int p = 0; p < c[i].npts; p++)
				fprintf(d, "%d %.6g\n", c[i].tasks[p], c[i].res[m][p]->ops_per_s);
			/* each series a little thinner and smaller than the one before: curves that coincide
			 * still show each (a ring around a ring) */
			snprintf(style, sizeof(style), "with linespoints lw %.1f pt %d ps %.2f lc '%s'",
				 fmax(1.5, 3 - 0.75 * series(c, i, m)), plot_pred_pt[m],
				 fmax(1.1, 1.9 - 0.4 * series(c, i, m)), series_colour(c, i, m));
			snprintf(title, sizeof(title), "%s (%s)", c[i].label, mode_name[m]);
			plot_block(pl, d, datafile, style, title);
		}
}

/* The measured points (compare, validate): filled symbols in the colour of the curve and mode
 * they measure, one legend entry per mode ("measured threads"). */
static void plot_measured(struct plot_list *pl, FILE *d, const char *datafile, const struct plot_args *pa)
{
	const struct curve *c = pa->c;
	char style[160], title[400];
	int nwith = 0;

	for (int i = 0; i < pa->ncurves; i++)
		nwith += c[i].nmeas > 0;
	for (int i = 0; i < pa->ncurves; i++)
		for (int m = 0; m < 2; m++) {
			int n = 0;

			for (int k = 0; k < c[i].nmeas; k++)
				n += meas_point_mode(&c[i], k) == m;
			if (!n)
				continue;
			fprintf(d, "# %s measured %s\n", c[i].label, mode_name[m]);
			for (int k = 0; k < c[i].nmeas; k++)
				if (meas_point_mode(&c[i], k) == m)
					fprintf(d, "%d %.6g\n", c[i].meas_tasks[k], c[i].meas_ops[k]);
			/* threads' triangles larger than processes' diamonds: both show where they meet */
			snprintf(style, sizeof(style), "with points pt %d ps %s lc '%s'", plot_meas_pt[m],
				 m == SC_THREADS ? "2.2" : "1.6",
				 c[i].has_mode[m] ? series_colour(c, i, m) : "#000000");
			snprintf(title, sizeof(title), "%s%smeasured %s", nwith > 1 ? c[i].label : "",
				 nwith > 1 ? ": " : "", mode_name[m]);
			plot_block(pl, d, datafile, style, title);
		}
}

/* Linear scaling from the 1-task point, per curve and mode that has one; one legend entry. */
static void plot_linear(struct plot_list *pl, FILE *d, const char *datafile, const struct plot_args *pa)
{
	const struct curve *c = pa->c;
	int n = 0;

	for (int i = 0; i < pa->ncurves; i++)
		for (int m = 0; m < 2; m++) {
			if (!c[i].has_mode[m] || !(c[i].linear1[m] > 0))
				continue;
			fprintf(d, "# %s %s linear\n", c[i].label, mode_name[m]);
			for (int p = 0; p < c[i].npts; p++)
				fprintf(d, "%d %.6g\n", c[i].tasks[p], c[i].linear1[m] * c[i].tasks[p]);
			plot_block(pl, d, datafile, "with lines dt 2 lw 1.5 lc 'gray50'",
				   n++ ? NULL : "linear scaling from the 1-task point");
		}
}

/* The lower panel: the second curve's gain over the first at each task count, per mode, with the
 * seeds' spread as a band; *@lo and *@hi get the range of its values, 1 included. */
static void plot_gain(struct plot_list *pl, FILE *d, const char *datafile, const struct plot_args *pa, double *lo,
		      double *hi)
{
	const struct curve *a = &pa->c[0], *b = &pa->c[1];
	int fixed = a->fixed_work && b->fixed_work, seeds, nband = 0;
	char style[160], title[160];

	*lo = *hi = 1;
	for (int m = 0; m < 2; m++) {
		if (!gain_mode(a, b, m, &seeds))
			continue;
		for (int band = seeds; band >= 0; band--) {
			fprintf(d, "# %s over %s %s%s\n", b->label, a->label, mode_name[m], band ? " seeds" : "");
			for (int p = 0; p < a->npts; p++) {
				double g, glo, ghi;

				gain_point(a, b, m, p, fixed, seeds, &g, &glo, &ghi);
				if (band)
					fprintf(d, "%d %.6g %.6g\n", a->tasks[p], glo, ghi);
				else
					fprintf(d, "%d %.6g\n", a->tasks[p], g);
				*lo = fmin(*lo, band ? glo : g);
				*hi = fmax(*hi, band ? ghi : g);
			}
			if (band) {
				snprintf(style, sizeof(style),
					 "using 1:2:3 with filledcurves fc '%s' fs transparent solid 0.2 noborder",
					 gain_colour[m]);
				snprintf(title, sizeof(title), "shaded: min-max over seeds %llu-%llu", pa->ctx->seed,
					 pa->ctx->seed + (unsigned long long)a->nseeds - 1);
			} else {
				snprintf(style, sizeof(style), "with linespoints lw 2 pt %d ps 1.4 lc '%s'",
					 plot_pred_pt[m], gain_colour[m]);
				snprintf(title, sizeof(title), "B / A (%s)", mode_name[m]);
			}
			/* one legend entry for the bands of both modes */
			plot_block(pl, d, datafile, style, band && nband++ ? NULL : title);
		}
	}
	plot_clause(pl, "1", "with lines dt 2 lw 1.5 lc 'gray30'", "B / A = 1 (no change)");
}

/* The rows a panel's legend takes below it, in a canvas @width pixels wide. */
static int legend_rows(const struct plot_list *pl, int width)
{
	/* about 8.5 pixels a character at 10 points, and the sample line: gnuplot's own estimate */
	int cols = (width - 120) / (int)(pl->maxtitle * 8.5 + 70);

	cols = cols < 1 ? 1 : cols;
	return (pl->ntitles + cols - 1) / cols;
}

/* The canvas: the upper panel, and the lower one when @low, each with room for its legend's rows
 * below it (*@rows_top, *@rows_low).  Returns the lower panel's share of the height (0 without it). */
static double plot_layout(struct plot_canvas *cv, const struct plot_list *top, const struct plot_list *low,
			  int *rows_top, int *rows_low)
{
	int top_px, low_px;

	cv->width = 1000;
	*rows_top = legend_rows(top, cv->width);
	*rows_low = low ? legend_rows(low, cv->width) : 0;
	top_px = 40 + 440 + (low ? 30 : 55) + 18 * *rows_top + 20;
	low_px = low ? 30 + 170 + 55 + 18 * *rows_low + 20 : 0;
	cv->height = top_px + low_px;
	return (double)low_px / cv->height;
}

/* The legend below its panel, in columns of @rows entries: the rows plot_layout() made room for. */
static void plot_key(FILE *f, int rows)
{
	fprintf(f, "set key below center vertical maxrows %d Left reverse noenhanced samplen 3 spacing 1.1 width 2\n",
		rows > 0 ? rows : 1);
}

/* With one task count the y axis needs a width too: a decade each side of the points. */
static void plot_one_count_yrange(FILE *f, const struct curve *c, int ncurves)
{
	double ymin = 0, ymax = 0;

	for (int i = 0; i < ncurves; i++)
		for (int m = 0; m < 2; m++)
			for (int p = 0; c[i].has_mode[m] && p < c[i].npts; p++) {
				double v = c[i].res[m][p]->ops_per_s;

				ymin = ymin == 0 || v < ymin ? v : ymin;
				ymax = v > ymax ? v : ymax;
			}
	for (int i = 0; i < ncurves; i++)
		for (int p = 0; p < c[i].nmeas; p++) {
			ymin = ymin == 0 || c[i].meas_ops[p] < ymin ? c[i].meas_ops[p] : ymin;
			ymax = c[i].meas_ops[p] > ymax ? c[i].meas_ops[p] : ymax;
		}
	if (ymin > 0)
		fprintf(f, "set yrange [%g:%g]\n", ymin / 10, ymax * 10);
}

/* The task axis of every curve's points (and the measured ones'); both panels share it. */
static void plot_axis(FILE *f, const struct curve *c, int ncurves)
{
	int n = 0, k = 0, *t;

	for (int i = 0; i < ncurves; i++)
		n += c[i].npts + c[i].nmeas;
	if (!n || !(t = malloc(sizeof(*t) * n)))
		return;
	for (int i = 0; i < ncurves; i++) {
		memcpy(t + k, c[i].tasks, sizeof(*t) * c[i].npts);
		memcpy(t + k + c[i].npts, c[i].meas_tasks, sizeof(*t) * c[i].nmeas);
		k += c[i].npts + c[i].nmeas;
	}
	plot_task_axis(f, t, n);
	for (k = 1; k < n && t[k] == t[0]; k++)
		;
	if (k == n)
		plot_one_count_yrange(f, c, ncurves);
	free(t);
}

/* The settings both panels share: the same left and right margins keep their x axes aligned. */
static void plot_common(FILE *f, const struct plot_args *pa)
{
	fprintf(f, "set lmargin 15\nset rmargin 4\nset grid\n");
	plot_axis(f, pa->c, pa->ncurves);
}

/* A log y axis from @lo to @hi with ticks at 1, 2 and 5 of each decade: a gain of 40x spans few
 * decades, and gnuplot's ticks at each decade alone would be two or three. */
static void gain_log_axis(FILE *f, double lo, double hi)
{
	static const int step[3] = {1, 2, 5};
	int n = 0;

	fprintf(f, "set logscale y\nset yrange [%g:%g]\nset ytics (", lo, hi);
	for (int e = (int)floor(log10(lo)); e <= (int)ceil(log10(hi)); e++)
		for (int k = 0; k < 3; k++) {
			double v = step[k] * pow(10, e);

			if (v >= lo && v <= hi)
				fprintf(f, "%s\"%g\" %g", n++ ? ", " : "", v, v);
		}
	fprintf(f, ")\n");
}

/* The lower panel: B / A on a linear axis, or a log one when it spans over 10x. */
static void plot_gain_panel(FILE *f, const struct plot_args *pa, const struct plot_list *pl, double lo, double hi,
			    int rows)
{
	const struct curve *a = &pa->c[0], *b = &pa->c[1];
	double pad = (hi - lo) * 0.08 > 0.01 ? (hi - lo) * 0.08 : 0.01;
	char title[400];

	plot_key(f, rows);
	fprintf(f, "unset logscale y\nset format y '%%g'\nset xlabel 'tasks'\nset ylabel 'B / A'\n");
	if (lo > 0 && hi / lo > 10)
		gain_log_axis(f, lo / 1.15, hi * 1.15);
	else
		fprintf(f, "set yrange [%g:%g]\n", lo - pad, hi + pad);
	snprintf(title, sizeof(title), "B / A = %s over %s (%s)", b->label, a->label,
		 a->fixed_work && b->fixed_work ? "speedup: makespan of A / makespan of B" : "ops/s of B / ops/s of A");
	fprintf(f, "set title ");
	plot_string(f, title);
	fprintf(f, " noenhanced\n");
	fprintf(f, "plot %s\n", pl->buf ? pl->buf : "");
}

static void plot_curves(FILE *f, FILE *d, const char *datafile, struct plot_canvas *cv, void *arg)
{
	const struct plot_args *pa = arg;
	struct plot_list top = {0}, low = {0};
	int blocks = 0, two = pa->ncurves == 2 && gain_modes(&pa->c[0], &pa->c[1]);
	double share, lo = 1, hi = 1;
	int rows_top, rows_low;
	char title[400];

	top.blocks = low.blocks = &blocks;
	top.f = open_memstream(&top.buf, &top.len);
	low.f = two ? open_memstream(&low.buf, &low.len) : NULL;
	if (!top.f || (two && !low.f))
		goto out; /* plot_run reports gnuplot's failure on an empty plot */
	plot_bands(&top, d, datafile, pa, 0);
	plot_bands(&top, d, datafile, pa, 1);
	plot_predicted(&top, d, datafile, pa);
	plot_measured(&top, d, datafile, pa);
	plot_linear(&top, d, datafile, pa);
	if (two)
		plot_gain(&low, d, datafile, pa, &lo, &hi);
	fclose(top.f);
	if (low.f)
		fclose(low.f);
	top.f = low.f = NULL;
	share = plot_layout(cv, &top, two ? &low : NULL, &rows_top, &rows_low);
	plot_common(f, pa);
	plot_key(f, rows_top);
	if (two)
		fprintf(f, "set multiplot\nset origin 0,%.4f\nset size 1,%.4f\nunset xlabel\n", share, 1 - share);
	else
		fprintf(f, "set xlabel 'tasks'\n");
	snprintf(title, sizeof(title), "mmsim prediction on %s (%d CPUs)", pa->ctx->machine, pa->ctx->ncpus);
	fprintf(f, "set title ");
	plot_string(f, title);
	fprintf(f, " noenhanced\n");
	fprintf(f, "set ylabel 'operations per second (all tasks)'\nset logscale y\nset format y '%%.0f'\n");
	fprintf(f, "plot %s\n", top.buf ? top.buf : "");
	if (two) {
		fprintf(f, "set origin 0,0\nset size 1,%.4f\n", share);
		plot_gain_panel(f, pa, &low, lo, hi, rows_low);
		fprintf(f, "unset multiplot\n");
	}
out:
	if (top.f)
		fclose(top.f);
	if (low.f)
		fclose(low.f);
	free(top.buf);
	free(low.buf);
}

int report_plot(const char *path, const struct report_ctx *ctx, const struct curve *c, int ncurves,
		struct mm_error *err)
{
	struct plot_args pa = {ctx, c, ncurves};

	return plot_run(path, ctx->force, "--plot", plot_curves, &pa, err);
}

/* One field of a will-it-scale row, the whole of it a decimal number (not inf, nan or hex). */
static int measured_field(const char *f, size_t len, double *v)
{
	char *end;

	if (!len || profile_decimal_len(f) != len)
		return -1;
	errno = 0;
	*v = strtod(f, &end);
	return end == f + len && !errno && isfinite(*v) ? 0 : -1;
}

/* Check one data row of runtest.py's CSV into @v[6]; the message names the column. */
static int measured_row(const char *path, int lineno, const char *line, double *v, struct mm_error *err)
{
	static const char *const names[6] = {"tasks",	"processes",	"processes_idle",
					     "threads", "threads_idle", "linear"};
	const char *f = line;

	for (int k = 0; k < 6; k++) {
		size_t len = strcspn(f, ",");
		int col = (int)(f - line) + 1;

		if ((k < 5 && f[len] != ',') || (k == 5 && f[len]))
			return mm_fail(err, MM_EPARSE,
				       "%s:%d:1: expected 'tasks,processes,processes_idle,threads,threads_idle,linear' "
				       "with numbers (6 fields), found '%.200s'",
				       path, lineno, line);
		if (measured_field(f, len, &v[k]) || (k == 0 && strspn(f, "0123456789") != len))
			return mm_fail(err, MM_EPARSE,
				       "%s:%d:1: expected 'tasks,processes,processes_idle,threads,threads_idle,linear' "
				       "with numbers: column %d, %s = '%.*s', is not %s",
				       path, lineno, col, names[k], (int)(len < 60 ? len : 60), f,
				       k == 0 ? "a whole number of tasks" : "a finite decimal number");
		/* validate/wis.c writes idle -1 for a window too short to measure */
		if ((k == 2 || k == 4) && v[k] != -1 && (v[k] < 0 || v[k] > 100))
			return mm_fail(err, MM_ERANGE,
				       "%s:%d:%d: %s = %g: expected a percentage from 0 to 100, or -1 (not measurable)",
				       path, lineno, col, names[k], v[k]);
		if ((k == 1 || k == 3 || k == 5) && v[k] < 0)
			return mm_fail(err, MM_ERANGE, "%s:%d:%d: %s = %g: expected ops/s >= 0 (0: not measured)", path,
				       lineno, col, names[k], v[k]);
		if (k == 0 && v[k] > 1000000)
			return mm_fail(err, MM_ERANGE, "%s:%d:1: %g tasks: expected at most 1000000", path, lineno,
				       v[k]);
		f += len + 1;
	}
	return 0;
}

int measured_load(const char *path, struct measured *m, struct mm_error *err)
{
	static const char header[] = "tasks,processes,processes_idle,threads,threads_idle,linear";
	char *line = NULL;
	size_t cap = 0;
	int lineno = 0, seen_header = 0, rc = 0;
	FILE *f = fopen(path, "r");

	memset(m, 0, sizeof(*m));
	if (!f)
		return mm_fail(err, MM_ENOENT, "%s: cannot open: %s", path, strerror(errno));
	/* getline: a line of any length is one line (a long '#' line is not cut into a data row) */
	while (getline(&line, &cap, f) >= 0) {
		double v[6];

		lineno++;
		line[strcspn(line, "\r\n")] = 0;
		if (!line[0] || line[0] == '#')
			continue;
		if (!seen_header) {
			if (strcmp(line, header)) {
				rc = mm_fail(err, MM_EPARSE, "%s:%d:1: expected will-it-scale's header '%s'", path,
					     lineno, header);
				goto out;
			}
			seen_header = 1;
			continue;
		}
		if ((rc = measured_row(path, lineno, line, v, err)))
			goto out;
		if (v[0] == 0)
			continue; /* runtest.py's first row */
		if (m->n == REPORT_MAX_POINTS) {
			rc = mm_fail(err, MM_ERANGE, "%s:%d:1: more than %d rows", path, lineno, REPORT_MAX_POINTS);
			goto out;
		}
		m->tasks[m->n] = (int)v[0];
		m->ops[SC_PROCESSES][m->n] = v[1];
		m->idle[SC_PROCESSES][m->n] = v[2];
		m->ops[SC_THREADS][m->n] = v[3];
		m->idle[SC_THREADS][m->n] = v[4];
		m->has[SC_PROCESSES] |= v[1] > 0;
		m->has[SC_THREADS] |= v[3] > 0;
		m->n++;
	}
	if (ferror(f))
		rc = mm_fail(err, MM_EIO, "%s: read error", path);
	else if (!seen_header)
		rc =
		    mm_fail(err, MM_EPARSE, "%s: no will-it-scale header '%s' (is it a runtest.py CSV?)", path, header);
	else if (!m->n || (!m->has[0] && !m->has[1]))
		rc = mm_fail(err, MM_EPARSE, "%s: no measured point (every row is 0)", path);
	/* in increasing task order, as the runs are made and their results indexed (run_task_list
	 * sorts): a file written in another order would pair each result with another row */
	for (int i = 1; i < m->n; i++)
		for (int j = i; j > 0 && m->tasks[j - 1] > m->tasks[j]; j--) {
			int t = m->tasks[j];

			m->tasks[j] = m->tasks[j - 1];
			m->tasks[j - 1] = t;
			for (int k = 0; k < 2; k++) {
				double o = m->ops[k][j], d = m->idle[k][j];

				m->ops[k][j] = m->ops[k][j - 1];
				m->idle[k][j] = m->idle[k][j - 1];
				m->ops[k][j - 1] = o;
				m->idle[k][j - 1] = d;
			}
		}
out:
	free(line);
	fclose(f);
	return rc;
}

void err_tally_add(struct err_tally *t, double err_pct)
{
	t->sum += fabs(err_pct);
	t->worst = fabs(err_pct) > t->worst ? fabs(err_pct) : t->worst;
	t->n++;
}

void err_tally_print(FILE *f, const struct err_tally *t)
{
	if (t->n)
		fprintf(f, "  predictions: %d point(s), mean |error| %.1f%%, max %.1f%%\n", t->n, t->sum / t->n,
			t->worst);
}
