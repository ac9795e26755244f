/* SPDX-License-Identifier: MIT */
/*
 * mmsim reproduce published: the published measurements of machines no one here owns
 * (data/reference/published/points.csv) beside mmsim's predictions, curve by curve as
 * curves.csv maps them to a machine, a kernel, a scenario variant, a mode and a placement.
 *
 * For each curve: measured, predicted and the error; the shape error (one scalar fitted at the
 * curve's lowest task count, that point left out); the Universal Scalability Law fitted on the
 * points with N <= max/4 (at least three) predicting the rest, beside mmsim's shape error on the
 * same points; for each before/after pair, both ratios and whether the direction agrees; idle %
 * where published; then the summary against the bars of issue 21.  A profile entry tagged
 * [fitted] that names a row id in its provenance takes that row out of every error figure.
 */
#include "reproduce.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "builtin.h"
#include "cleanup.h"
#include "fit.h"
#include "machine.h"
#include "plot.h"
#include "profile.h"
#include "scenario.h"
#include "sim.h"

#define MAXC 128   /* curves */
#define MAXP 16	   /* points per curve */
#define MAXJ 512   /* simulations */
#define DIR_BAND 3 /* a ratio within +-3% is "no change" */

enum predict { PR_OPS, PR_OPS_TASK, PR_IDLE, PR_PER_CPU, PR_ROLE5S, PR_CHANGE };

struct pcurve {
	char id[64], rows[64], variant[200], metric[64];
	char machine[1024], kernel[1024]; /* a profile's name or file */
	char scenario[64], mode[16], placement[16], predict_s[64], before_s[64];
	char skip[400];
	int line; /* in curves.csv */
	enum predict predict;
	char role[64]; /* PR_ROLE5S */
	int change;    /* PR_CHANGE: the curve compared with */
	int before;    /* index of the before curve, -1 */
	double scale;
	int n;
	int tasks[MAXP];
	char row[MAXP][64];
	double meas[MAXP], pred[MAXP];
	int job[MAXP];	  /* simulation of each point, -1 */
	int fitted[MAXP]; /* a [fitted] profile entry names the row: out of every error figure */
	/* the shape fit and the USL baseline */
	double shape[MAXP]; /* NAN where not defined */
	double usl[MAXP];   /* USL's prediction, NAN where it is not predicting */
	struct usl_fit u;
	int has_usl;
};

struct pjob {
	const char *machine, *kernel, *scenario, *mode, *placement;
	int tasks;
	int rep; /* --seeds: run under seed S + rep */
	int rc;
	struct mm_error err;
	struct sim_result res;
	int ncpus;
	/* its profiles' [fitted] entries, a line each: "machine|kernel NAME\t[SECTION] KEY = VALUE\tROWS",
	 * ROWS the row ids each names (space-separated), which every figure leaves out; allocated, of
	 * any length (a row left off would be counted in the figures) */
	char *fitted_desc;
};

/* A [fitted] number the figures rest on: the entry, the rows its provenance names (every figure
 * leaves them out), and the profiles that hold it. */
struct pfitted {
	char *what, *rows, *where; /* allocated */
};

/* ---- reading the CSVs ------------------------------------------------------------------------ */

/* The text of curves.csv or points.csv: built in, or DIR/NAME.csv (--measured-dir DIR); @where gets
 * the name messages use. */
static char *published_text(const char *dir, const char *name, char *where, size_t cap, struct mm_error *err)
{
	const struct builtin_file *b;
	char *t = NULL;

	if (dir) {
		snprintf(where, cap, "%s/%s.csv", dir, name);
		return mm_read_text_file(where, &t, err) ? NULL : t;
	}
	snprintf(where, cap, "data/reference/published/%s.csv", name);
	if (!(b = builtin_find("published", name))) {
		mm_fail(err, MM_ENOENT, "%s is not built in", where);
		return NULL;
	}
	if (!(t = strdup(b->text)))
		mm_fail(err, MM_ENOMEM, "out of memory");
	return t;
}

/* Field @name of line @lineno of @where into @dst; a value too long for it is an error, not cut. */
static int copy(char *dst, size_t cap, const char *src, const char *name, const char *where, int lineno,
		struct mm_error *err)
{
	if (strlen(src) >= cap)
		return mm_fail(err, MM_EPARSE, "%s:%d: %s '%.40s...': longer than %zu characters", where, lineno, name,
			       src, cap - 1);
	snprintf(dst, cap, "%s", src);
	return 0;
}

/* The row id @id belongs to a curve of rows @rows: @rows itself, or @rows and then digits. */
static int id_matches(const char *rows, const char *id)
{
	size_t n = strlen(rows);

	if (!n || strncmp(rows, id, n))
		return 0;
	if (!id[n])
		return 1;
	for (const char *p = id + n; *p; p++)
		if (*p < '0' || *p > '9')
			return 0;
	return 1;
}

static int find_curve(const struct pcurve *c, int nc, const char *id)
{
	for (int i = 0; i < nc; i++)
		if (!strcmp(c[i].id, id))
			return i;
	return -1;
}

/* One finite number at @s, ending at @stop or the string's end; -1 otherwise. */
static int parse_number(const char *s, char stop, double *v, const char **next)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	if (end == s || errno || !isfinite(*v) || (*end && *end != stop))
		return -1;
	*next = end;
	return 0;
}

static int parse_curves(const char *text, const char *where, struct pcurve *c, int *nc, struct mm_error *err)
{
	char line[2048], *f[16];
	int lineno = 0, header = 0, got;

	*nc = 0;
	for (const char *cur = text; (got = repro_next_line(&cur, line, sizeof(line)));) {
		struct pcurve *k;
		int nf;

		lineno++;
		if (got == 2)
			return mm_fail(err, MM_EPARSE, "%s:%d: a line of more than %zu characters", where, lineno,
				       sizeof(line) - 1);
		if (line[0] == '#' || !line[0])
			continue;
		nf = repro_csv_split(line, f, 16);
		if (!header) {
			if (nf != 13 || strcmp(f[0], "curve") || strcmp(f[12], "skip"))
				return mm_fail(err, MM_EPARSE, "%s:%d: expected the header curve,rows,...,before,skip",
					       where, lineno);
			header = 1;
			continue;
		}
		if (nf != 13)
			return mm_fail(err, MM_EPARSE, "%s:%d: expected 13 fields, found %d", where, lineno, nf);
		if (*nc == MAXC)
			return mm_fail(err, MM_ERANGE, "%s:%d: more than %d curves", where, lineno, MAXC);
		k = &c[(*nc)++];
		memset(k, 0, sizeof(*k));
		k->line = lineno;
		{
			struct {
				char *dst;
				size_t cap;
				int f;
				const char *name;
			} fld[] = {{k->id, sizeof(k->id), 0, "curve"},
				   {k->rows, sizeof(k->rows), 1, "rows"},
				   {k->variant, sizeof(k->variant), 2, "variant"},
				   {k->metric, sizeof(k->metric), 3, "metric"},
				   {k->machine, sizeof(k->machine), 4, "machine"},
				   {k->kernel, sizeof(k->kernel), 5, "kernel"},
				   {k->scenario, sizeof(k->scenario), 6, "scenario"},
				   {k->mode, sizeof(k->mode), 7, "mode"},
				   {k->placement, sizeof(k->placement), 8, "placement"},
				   {k->predict_s, sizeof(k->predict_s), 9, "predict"},
				   {k->before_s, sizeof(k->before_s), 11, "before"},
				   {k->skip, sizeof(k->skip), 12, "skip"}};
			int rc;

			for (size_t i = 0; i < sizeof(fld) / sizeof(fld[0]); i++)
				if ((rc = copy(fld[i].dst, fld[i].cap, f[fld[i].f], fld[i].name, where, lineno, err)))
					return rc;
		}
		{
			const char *end;

			if (parse_number(f[10], '\0', &k->scale, &end))
				k->scale = 0; /* refused below, with the field */
		}
		k->before = k->change = -1;
		if (!k->id[0] || find_curve(c, *nc - 1, k->id) >= 0)
			return mm_fail(err, MM_EPARSE, "%s:%d: curve id '%s' empty or used twice", where, lineno,
				       k->id);
		if (!(k->scale > 0))
			return mm_fail(err, MM_EPARSE, "%s:%d: scale '%s': expected a number > 0", where, lineno,
				       f[10]);
		if (strcmp(k->mode, "threads") && strcmp(k->mode, "processes"))
			return mm_fail(err, MM_EPARSE, "%s:%d: mode '%s': expected threads or processes", where, lineno,
				       k->mode);
		if (strcmp(k->placement, "wis") && strcmp(k->placement, "spread"))
			return mm_fail(err, MM_EPARSE, "%s:%d: placement '%s': expected wis or spread", where, lineno,
				       k->placement);
		if (!strcmp(k->predict_s, "ops"))
			k->predict = PR_OPS;
		else if (!strcmp(k->predict_s, "ops_task"))
			k->predict = PR_OPS_TASK;
		else if (!strcmp(k->predict_s, "idle"))
			k->predict = PR_IDLE;
		else if (!strcmp(k->predict_s, "per_cpu"))
			k->predict = PR_PER_CPU;
		else if (!strncmp(k->predict_s, "role5s:", 7) && k->predict_s[7]) {
			k->predict = PR_ROLE5S;
			int rc = copy(k->role, sizeof(k->role), k->predict_s + 7, "predict's role", where, lineno, err);

			if (rc)
				return rc;
		} else if (!strncmp(k->predict_s, "change:", 7) && k->predict_s[7])
			k->predict = PR_CHANGE;
		else
			return mm_fail(err, MM_EPARSE,
				       "%s:%d: predict '%s': expected ops, ops_task, idle, per_cpu, role5s:ROLE or "
				       "change:CURVE",
				       where, lineno, k->predict_s);
		if (!k->skip[0] && (!k->machine[0] || !k->kernel[0] || !k->scenario[0]))
			return mm_fail(err, MM_EPARSE,
				       "%s:%d: curve %s: a curve without a skip reason needs a "
				       "machine, a kernel and a scenario",
				       where, lineno, k->id);
	}
	if (!header)
		return mm_fail(err, MM_EPARSE, "%s: no header line", where);
	/* references by curve id, once all are read */
	for (int i = 0; i < *nc; i++) {
		struct pcurve *k = &c[i];

		if (k->before_s[0] && (k->before = find_curve(c, *nc, k->before_s)) < 0)
			return mm_fail(err, MM_EPARSE, "%s:%d: before '%s': no such curve", where, k->line,
				       k->before_s);
		if (k->predict == PR_CHANGE && (k->change = find_curve(c, *nc, k->predict_s + 7)) < 0)
			return mm_fail(err, MM_EPARSE, "%s:%d: %s: no such curve", where, k->line, k->predict_s);
	}
	return 0;
}

/* A published value: a number, or min/mean/max, three numbers in that order (the mean is held
 * against the prediction). */
static int parse_value(const char *s, double *v)
{
	double lo, hi;

	if (!strchr(s, '/'))
		return parse_number(s, '\0', v, &s);
	if (parse_number(s, '/', &lo, &s) || !*s || parse_number(s + 1, '/', v, &s) || !*s ||
	    parse_number(s + 1, '\0', &hi, &s))
		return -1;
	return lo <= *v && *v <= hi ? 0 : -1;
}

static int parse_points(const char *text, const char *where, struct pcurve *c, int nc, int *nrows, struct mm_error *err)
{
	char line[4096], *f[20];
	int lineno = 0, header = 0, got;

	*nrows = 0;
	for (const char *cur = text; (got = repro_next_line(&cur, line, sizeof(line)));) {
		int nf, found = -1;

		lineno++;
		if (got == 2)
			return mm_fail(err, MM_EPARSE, "%s:%d: a line of more than %zu characters", where, lineno,
				       sizeof(line) - 1);
		if (line[0] == '#' || !line[0])
			continue;
		nf = repro_csv_split(line, f, 20);
		if (!header) {
			if (nf != 15 || strcmp(f[0], "id") || strcmp(f[12], "value"))
				return mm_fail(err, MM_EPARSE,
					       "%s:%d: expected the header id,benchmark,...,value,unit,source", where,
					       lineno);
			header = 1;
			continue;
		}
		if (nf != 15)
			return mm_fail(err, MM_EPARSE, "%s:%d: expected 15 fields, found %d", where, lineno, nf);
		(*nrows)++;
		for (int i = 0; i < nc; i++)
			if (c[i].rows[0] && id_matches(c[i].rows, f[0]) && !strcmp(c[i].variant, f[10]) &&
			    !strncmp(f[11], c[i].metric, strlen(c[i].metric))) {
				if (found >= 0)
					return mm_fail(err, MM_EPARSE,
						       "%s:%d: row %s (%s, %s) belongs to two curves, %s and %s", where,
						       lineno, f[0], f[10], f[11], c[found].id, c[i].id);
				found = i;
			}
		if (found < 0)
			return mm_fail(err, MM_EPARSE, "%s:%d: row %s (%s, %s) belongs to no curve of the curves file",
				       where, lineno, f[0], f[10], f[11]);
		{
			struct pcurve *k = &c[found];
			char *end;
			long t = strtol(f[3], &end, 10);
			double v = NAN;

			if (k->n == MAXP)
				return mm_fail(err, MM_ERANGE, "%s:%d: curve %s has more than %d points", where, lineno,
					       k->id, MAXP);
			if (parse_value(f[12], &v) && !k->skip[0])
				return mm_fail(
				    err, MM_EPARSE,
				    "%s:%d: value '%s': expected a number or min/mean/max (min <= mean <= max)", where,
				    lineno, f[12]);
			if ((*end || t < 1 || t > MACHINE_MAX_CPUS) && !k->skip[0])
				return mm_fail(err, MM_EPARSE, "%s:%d: tasks '%s': expected a task count", where,
					       lineno, f[3]);
			int rc = copy(k->row[k->n], sizeof(k->row[0]), f[0], "id", where, lineno, err);

			if (rc)
				return rc;
			k->tasks[k->n] = (int)t;
			k->meas[k->n] = v;
			k->n++;
		}
	}
	if (!header)
		return mm_fail(err, MM_EPARSE, "%s: no header line", where);
	return 0;
}

/* ---- simulating ------------------------------------------------------------------------------ */

static int id_char(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '-' ||
	       ch == '_';
}

/* Whether @text names the row id @id as a whole word (PVL-ICX-pft-t1 is not named by a text that
 * says only PVL-ICX-pft-t12). */
static int names_row(const char *text, const char *id)
{
	size_t n = strlen(id);

	if (!n)
		return 0;
	for (const char *at = strstr(text, id); at; at = strstr(at + 1, id))
		if ((at == text || !id_char(at[-1])) && !id_char(at[n]))
			return 1;
	return 0;
}

/* Whether row @j of curve @i is also row @j2 < @j of curve @i2 <= @i (the curves of one benchmark
 * share their row ids). */
static int row_seen_before(const struct pcurve *c, int i, int j)
{
	for (int i2 = 0; i2 <= i; i2++)
		for (int j2 = 0; j2 < (i2 < i ? c[i2].n : j); j2++)
			if (!strcmp(c[i2].row[j2], c[i].row[j]))
				return 1;
	return 0;
}

/* The [fitted] entries of @p, a line each, with every row id each names in its provenance, written
 * to @out (@kind: "machine" or "kernel"). */
static void fitted_entries(const struct profile *p, const char *kind, const struct pcurve *c, int nc, FILE *out)
{
	for (int e = 0; e < p->nentries; e++) {
		int first = 1;

		if (p->e[e].tag != PROF_FITTED)
			continue;
		fprintf(out, "%s %s\t[%s] %s = %s\t", kind, p->name, p->e[e].section, p->e[e].key, p->e[e].value);
		for (int i = 0; i < nc; i++)
			for (int j = 0; j < c[i].n; j++)
				if (names_row(p->e[e].note, c[i].row[j]) && !row_seen_before(c, i, j)) {
					fprintf(out, "%s%s", first ? "" : " ", c[i].row[j]);
					first = 0;
				}
		fputc('\n', out);
	}
}

static void fitted_free(struct pfitted *f, int nf)
{
	for (int i = 0; i < nf; i++) {
		free(f[i].what);
		free(f[i].rows);
		free(f[i].where);
	}
	free(f);
}

/* Whether the ", "-separated list @list holds @item as one of its items. */
static int list_has(const char *list, const char *item)
{
	size_t n = strlen(item);

	for (const char *at = list; *at;) {
		const char *end = strstr(at, ", ");
		size_t len = end ? (size_t)(end - at) : strlen(at);

		if (len == n && !strncmp(at, item, n))
			return 1;
		if (!end)
			break;
		at = end + 2;
	}
	return 0;
}

/* Merge a job's fitted entries (@desc, NULL for none) into *@f (*@nf of them, grown as needed);
 * MM_ENOMEM, or 0. */
static int fitted_merge(const char *desc, struct pfitted **f, int *nf, struct mm_error *err)
{
	char *text = desc ? strdup(desc) : NULL, *save = NULL;
	int rc = 0;

	if (desc && !text)
		return mm_fail(err, MM_ENOMEM, "out of memory");
	for (char *line = text ? strtok_r(text, "\n", &save) : NULL; line; line = strtok_r(NULL, "\n", &save)) {
		/* "machine|kernel NAME\tWHAT\tROWS" */
		char *what = strchr(line, '\t'), *rows = what ? strchr(what + 1, '\t') : NULL, *w;
		size_t have;
		int i;

		if (!rows)
			continue;
		*what++ = 0;
		*rows++ = 0;
		for (i = 0; i < *nf; i++)
			if (!strcmp((*f)[i].what, what) && !strcmp((*f)[i].rows, rows))
				break;
		if (i == *nf) {
			struct pfitted *g = realloc(*f, (size_t)(*nf + 1) * sizeof(**f));

			if (!g) {
				rc = mm_fail(err, MM_ENOMEM, "out of memory");
				break;
			}
			*f = g;
			g[i] = (struct pfitted){.what = strdup(what), .rows = strdup(rows), .where = strdup("")};
			(*nf)++;
			if (!g[i].what || !g[i].rows || !g[i].where) {
				rc = mm_fail(err, MM_ENOMEM, "out of memory");
				break;
			}
		}
		if (list_has((*f)[i].where, line))
			continue;
		have = strlen((*f)[i].where);
		if (!(w = realloc((*f)[i].where, have + strlen(line) + 3))) {
			rc = mm_fail(err, MM_ENOMEM, "out of memory");
			break;
		}
		sprintf(w + have, "%s%s", have ? ", " : "", line);
		(*f)[i].where = w;
	}
	free(text);
	return rc;
}

static int simulate(struct pjob *j, const struct reproduce_opts *o, const struct pcurve *c, int nc)
{
	struct mm_error *err = &j->err;
	struct machine m;
	struct profile kp;
	struct kernel_profile k;
	struct scenario sc;
	struct program prog;
	struct sim_config cfg;
	char why[256];
	int v, rc;

	if ((rc = machine_load(&m, j->machine, 0, err)))
		return rc;
	j->ncpus = m.topo.ncpus;
	if ((rc = profile_load(&kp, "kernels", j->kernel, err)))
		goto out_m;
	/* the profiles' [fitted] entries: the same under every seed, so from the first's simulations */
	if (!j->rep) {
		size_t size;
		FILE *f = open_memstream(&j->fitted_desc, &size);

		if (!f) {
			rc = mm_fail(err, MM_ENOMEM, "out of memory");
			goto out_k;
		}
		fitted_entries(&m.prof, "machine", c, nc, f);
		fitted_entries(&kp, "kernel", c, nc, f);
		if (fclose(f)) {
			rc = mm_fail(err, MM_ENOMEM, "out of memory");
			goto out_k;
		}
	}
	if ((rc = kernel_profile_derive(&k, &kp, err)))
		goto out_k;
	if ((rc = scenario_load(&sc, j->scenario, &v, err)))
		goto out_k;
	if ((rc = scenario_compile(&sc, v, &k, &prog, err)))
		goto out_s;
	if (topo_placement_parse(j->placement, &prog.placement)) {
		rc = mm_fail(err, MM_EINVAL, "placement '%s': expected wis or spread", j->placement);
		goto out_p;
	}
	if (j->tasks > m.topo.ncpus) {
		rc = mm_fail(err, MM_ERANGE, "%s has %d CPUs, fewer than the %d tasks of a published point", j->machine,
			     m.topo.ncpus, j->tasks);
		goto out_p;
	}
	cfg = (struct sim_config){.topo = &m.topo,
				  .hw = &m.hw,
				  .kernel = &k,
				  .prog = &prog,
				  .mode = strcmp(j->mode, "processes") ? SC_THREADS : SC_PROCESSES,
				  .ntasks = j->tasks,
				  .seed = o->seed + (unsigned long long)j->rep,
				  .measure_events = (uint64_t)o->events,
				  .max_work = o->max_work};
	if (o->max_work > 0 && sim_work_estimate(&cfg, why, sizeof(why)) > o->max_work)
		rc = mm_fail(err, MM_ERANGE, "%s at %d tasks would simulate more than --max-work %g allows (%s)",
			     j->scenario, j->tasks, o->max_work, why);
	if (!rc)
		rc = sim_run(&cfg, &j->res, err);
out_p:
	program_free(&prog);
out_s:
	scenario_free(&sc);
out_k:
	profile_free(&kp);
out_m:
	machine_free(&m);
	return rc;
}

static int add_job(struct pjob *jobs, int *nj, const struct pcurve *k, int tasks, struct mm_error *err)
{
	for (int i = 0; i < *nj; i++)
		if (jobs[i].tasks == tasks && !strcmp(jobs[i].machine, k->machine) &&
		    !strcmp(jobs[i].kernel, k->kernel) && !strcmp(jobs[i].scenario, k->scenario) &&
		    !strcmp(jobs[i].mode, k->mode) && !strcmp(jobs[i].placement, k->placement))
			return i;
	if (*nj == MAXJ)
		return mm_fail(err, MM_ERANGE, "reproduce published: more than %d simulations", MAXJ), -1;
	jobs[*nj] = (struct pjob){.machine = k->machine,
				  .kernel = k->kernel,
				  .scenario = k->scenario,
				  .mode = k->mode,
				  .placement = k->placement,
				  .tasks = tasks};
	return (*nj)++;
}

static double role_ops_task(const struct sim_result *r, const char *role)
{
	for (int i = 0; i < r->nroles; i++)
		if (!strcmp(r->roles[i].name, role))
			return r->roles[i].ops_per_s_task;
	return NAN;
}

/* The prediction of point @p of curve @k from the simulations @off after its own (a seed's copy). */
static double predicted_one(const struct pcurve *c, const struct pcurve *k, int p, const struct pjob *jobs, int off)
{
	const struct pjob *j = &jobs[k->job[p] + off];
	const struct sim_result *r = &j->res;
	double busy;

	switch (k->predict) {
	case PR_OPS:
		return r->ops_per_s * k->scale;
	case PR_OPS_TASK:
		return r->ops_per_s_task * k->scale;
	case PR_IDLE:
		return r->idle_pct;
	case PR_PER_CPU:
		busy = j->ncpus * (1 - r->idle_pct / 100);
		return busy > 0 ? r->ops_per_s / busy * k->scale : NAN;
	case PR_ROLE5S:
		return role_ops_task(r, k->role) * 5 * k->scale;
	case PR_CHANGE: {
		const struct pcurve *b = &c[k->change];

		for (int q = 0; q < b->n; q++)
			if (b->tasks[q] == k->tasks[p] && b->job[q] >= 0)
				return 100 * (r->ops_per_s_task / jobs[b->job[q] + off].res.ops_per_s_task - 1);
		return NAN;
	}
	}
	return NAN;
}

/* The mean of the point's prediction over the @nrep seeds (each seed's simulations @nj after the
 * last's): the model's expected value, of which one seed is a draw. */
static double predicted(const struct pcurve *c, const struct pcurve *k, int p, const struct pjob *jobs, int nj,
			int nrep)
{
	double sum = 0;

	for (int r = 0; r < nrep; r++)
		sum += predicted_one(c, k, p, jobs, r * nj);
	return sum / nrep;
}

/* ---- the figures ----------------------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	if (!n)
		return NAN;
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Is the curve one of throughput (errors as ratios), not idle % or a change in %? */
static int is_rate(const struct pcurve *k)
{
	return k->predict != PR_IDLE && k->predict != PR_CHANGE;
}

static int direction(double ratio)
{
	return ratio > 1 + DIR_BAND / 100.0 ? 1 : ratio < 1 - DIR_BAND / 100.0 ? -1 : 0;
}

static void shape_and_usl(struct pcurve *k, struct mm_error *err)
{
	int lo = -1, maxn = 0, ntrain = 0;
	double n[MAXP], x[MAXP];

	for (int p = 0; p < k->n; p++) {
		k->shape[p] = k->usl[p] = NAN;
		if (k->fitted[p])
			continue;
		if (lo < 0 || k->tasks[p] < k->tasks[lo])
			lo = p;
		maxn = k->tasks[p] > maxn ? k->tasks[p] : maxn;
	}
	if (lo < 0 || !is_rate(k))
		return;
	for (int p = 0; p < k->n; p++)
		if (p != lo && !k->fitted[p] && k->pred[p] > 0)
			k->shape[p] = k->meas[lo] / k->pred[lo] * k->pred[p] / k->meas[p] - 1;
	for (int p = 0; p < k->n; p++)
		if (!k->fitted[p] && 4 * k->tasks[p] <= maxn) {
			n[ntrain] = k->tasks[p];
			x[ntrain++] = k->meas[p];
		}
	if (ntrain < 3 || usl_fit(n, x, ntrain, &k->u, err)) {
		err->code = 0;
		err->msg[0] = 0;
		return;
	}
	k->has_usl = 1;
	for (int p = 0; p < k->n; p++)
		if (!k->fitted[p] && 4 * k->tasks[p] > maxn)
			k->usl[p] = usl_predict(&k->u, k->tasks[p]);
}

/* ---- plots ----------------------------------------------------------------------------------- */

/* A value of the data file: '?' (missing) where there is none. */
static void plot_value(FILE *d, double v)
{
	if (isnan(v))
		fprintf(d, " ?");
	else
		fprintf(d, " %.6g", v);
}

/* One curve: the published points (filled symbols, "measured threads"), mmsim's prediction (open
 * symbols) and the USL baseline, over a log2 task axis with a tick at each task count. */
static void plot_curve(FILE *f, FILE *d, const char *datafile, struct plot_canvas *cv, void *arg)
{
	const struct pcurve *k = arg;
	int maxn = 1, m = strcmp(k->mode, "processes") ? 0 : 1;
	double maxv = 0;
	char title[2400];

	for (int p = 0; p < k->n; p++) {
		fprintf(d, "%d", k->tasks[p]);
		plot_value(d, k->meas[p]);
		plot_value(d, k->pred[p]);
		fputc('\n', d);
		maxn = k->tasks[p] > maxn ? k->tasks[p] : maxn;
		maxv = fmax(maxv, fmax(isnan(k->meas[p]) ? 0 : k->meas[p], isnan(k->pred[p]) ? 0 : k->pred[p]));
	}
	cv->width = 1000;
	cv->height = 640;
	snprintf(title, sizeof(title), "%s: %s, %s (%s, %s, %s)", k->id, k->scenario, k->machine, k->kernel, k->mode,
		 k->placement);
	fprintf(f, "set title ");
	plot_string(f, title);
	fprintf(f, " noenhanced\nset xlabel 'tasks'\nset ylabel ");
	plot_string(f, k->metric);
	fprintf(f, " noenhanced\nset grid\nset datafile missing '?'\nset lmargin 15\nset rmargin 4\n");
	fprintf(f, "set key below center horizontal Left reverse noenhanced samplen 3 spacing 1.1 width 2\n");
	plot_task_axis(f, k->tasks, k->n);
	fprintf(f, "set yrange [0:*]\n%s", maxv >= 1e4 ? "set format y '%.0f'\n" : "");
	fprintf(f,
		"plot '%s' using 1:2 with points pt %d ps 2 lc '#000000' title 'measured %s', \\\n"
		"     '%s' using 1:3 with linespoints lw 2 pt %d ps 1.4 lc '%s' title 'mmsim (%s)'",
		datafile, plot_meas_pt[m], k->mode, datafile, plot_pred_pt[m], plot_colour(0), k->mode);
	if (k->has_usl)
		fprintf(f,
			", \\\n     (x >= 1 ? %.9g * x / (1 + %.9g * (x - 1) + %.9g * x * (x - 1)) : 1/0) with lines "
			"dt 2 lw 1.5 lc 'gray40' title 'USL fitted on N <= %d'",
			k->u.lambda, k->u.sigma, k->u.kappa, maxn / 4);
	fprintf(f, "\n");
}

static int plottable(const struct pcurve *k)
{
	return !k->skip[0] && k->n && is_rate(k);
}

/* Before minutes of simulation: a plot that could not be written is refused now. */
static int plots_check(const struct reproduce_opts *o, const struct pcurve *c, int nc, struct mm_error *err)
{
	char path[4096];
	struct stat st;
	int rc;

	if (stat(o->plot_dir, &st) == 0 && !S_ISDIR(st.st_mode))
		return mm_fail(err, MM_EINVAL,
			       "--plot %s: not a directory (reproduce published draws one PNG per curve "
			       "into it)",
			       o->plot_dir);
	if ((rc = outdir_check(o->plot_dir, "--plot", err)))
		return rc;
	for (int i = 0; i < nc; i++)
		if (plottable(&c[i])) {
			/* a curve's id names its file in DIR (plot_set) */
			if (!plot_set_name_ok(c[i].id))
				return mm_fail(err, MM_EINVAL, "--plot %s: curve '%s' cannot name a file in it",
					       o->plot_dir, c[i].id);
			snprintf(path, sizeof(path), "%s/%s.png", o->plot_dir, c[i].id);
			if ((rc = outfile_check(path, o->force, "--plot", err)))
				return rc;
		}
	return 0;
}

/* Every curve's PNG, all of them or none (plot_set). */
static int plots(const struct reproduce_opts *o, struct pcurve *c, int nc, struct mm_error *err)
{
	struct plot_set ps;
	char name[300];
	int rc;

	if ((rc = plot_set_begin(&ps, o->plot_dir, o->force, "--plot", err)))
		return rc;
	for (int i = 0; i < nc && !rc; i++) {
		if (!plottable(&c[i]))
			continue;
		snprintf(name, sizeof(name), "%s.png", c[i].id);
		rc = plot_set_add(&ps, name, plot_curve, &c[i], err);
	}
	if (rc) {
		plot_set_abort(&ps);
		return rc;
	}
	return plot_set_commit(&ps, err);
}

/* ---- the command ----------------------------------------------------------------------------- */

static void pct(char *buf, size_t cap, double v)
{
	if (isnan(v))
		snprintf(buf, cap, "-");
	else
		snprintf(buf, cap, "%+.1f", 100 * v);
}

/* A value for the table: plain digits (1199760, not 1.19976e+06), six significant ones below
 * 100000, '-' where there is none. */
static void plain(char *buf, size_t cap, double v)
{
	if (isnan(v))
		snprintf(buf, cap, "-");
	else if (fabs(v) >= 1e5) /* %.6g would round 999999.5 to 1e+06 */
		snprintf(buf, cap, "%.0f", v);
	else if (v != 0 && fabs(v) < 1e-4)
		snprintf(buf, cap, "%.6f", v);
	else
		snprintf(buf, cap, "%.6g", v);
}

int reproduce_published(const struct reproduce_opts *o, struct mm_error *err)
{
	struct pcurve *c = calloc(MAXC, sizeof(*c));
	struct pjob *jobs = calloc(MAXJ, sizeof(*jobs));
	char *ctext = NULL, *ptext = NULL, cwhere[4200], pwhere[4200];
	int nc = 0, nj = 0, nrows = 0, rc = 0, csv = o->csv, done = 0, nrep = o->seeds > 1 ? o->seeds : 1, nall;
	/* the summary */
	/* every point of every curve at most: a figure each */
	double abs_e[MAXC * MAXP], shape_e[MAXC * MAXP], shape_same[MAXC * MAXP], usl_same[MAXC * MAXP],
	    pair_e[MAXC * MAXP];
	int nabs = 0, nshape = 0, nsame = 0, npair = 0, pair_right = 0, nidle = 0, idle_ok = 0, within2 = 0, over = 0,
	    nskipped = 0, skipped_rows = 0;

	if (!c || !jobs) {
		rc = mm_fail(err, MM_ENOMEM, "out of memory");
		goto out;
	}
	if (!(ctext = published_text(o->published_dir, "curves", cwhere, sizeof(cwhere), err)) ||
	    !(ptext = published_text(o->published_dir, "points", pwhere, sizeof(pwhere), err))) {
		rc = err->code;
		goto out;
	}
	if ((rc = parse_curves(ctext, cwhere, c, &nc, err)) || (rc = parse_points(ptext, pwhere, c, nc, &nrows, err)))
		goto out;
	if (o->plot_dir && (rc = plots_check(o, c, nc, err)))
		goto out;
	/* a change curve's comparison runs at its task counts */
	for (int i = 0; i < nc; i++)
		if (c[i].predict == PR_CHANGE && !c[i].skip[0]) {
			struct pcurve *b = &c[c[i].change];

			for (int p = 0; p < c[i].n && b->n < MAXP; p++) {
				int have = 0;

				for (int q = 0; q < b->n; q++)
					have |= b->tasks[q] == c[i].tasks[p];
				if (!have) {
					char tag[sizeof(
					    b->row[0])]; /* b may be c[i] itself, for all the compiler knows */

					snprintf(tag, sizeof(tag), "(%.*s)", (int)sizeof(tag) - 3, c[i].row[p]);
					memcpy(b->row[b->n], tag, sizeof(tag));
					b->tasks[b->n] = c[i].tasks[p];
					b->meas[b->n++] = NAN;
				}
			}
		}
	for (int i = 0; i < nc; i++)
		for (int p = 0; p < c[i].n; p++)
			c[i].job[p] = c[i].skip[0] ? -1 : add_job(jobs, &nj, &c[i], c[i].tasks[p], err);
	for (int i = 0; i < nc; i++)
		for (int p = 0; p < c[i].n; p++)
			if (!c[i].skip[0] && c[i].job[p] < 0) {
				rc = err->code;
				goto out;
			}
	/* --seeds N: every simulation again under seeds S+1 .. S+N-1, after all of the seed before */
	if ((long)nj * nrep > MAXJ) {
		rc = mm_fail(err, MM_ERANGE, "reproduce published: %d simulations x %d seeds, more than %d", nj, nrep,
			     MAXJ);
		goto out;
	}
	nall = nj * nrep;
	for (int j = nj; j < nall; j++) {
		jobs[j] = jobs[j % nj];
		jobs[j].rep = j / nj;
	}
	fprintf(stderr, "mmsim: %d published values in %d curves; %d simulations%s\n", nrows, nc, nall,
		nrep > 1 ? " (every point under each seed)" : "");
#pragma omp parallel for schedule(dynamic, 1)
	for (int j = 0; j < nall; j++) {
		jobs[j].rc = simulate(&jobs[j], o, c, nc);
#pragma omp critical(mmsim_reproduce_published_progress)
		{
			done++;
			if (o->progress)
				fprintf(stderr, "\rmmsim: %d/%d simulations%s", done, nall, done == nall ? "\n" : "");
		}
	}
	for (int j = 0; j < nall; j++)
		if (jobs[j].rc) {
			rc = mm_fail(err, jobs[j].rc, "%s on %s (%s, %s, %d tasks): %s", jobs[j].scenario,
				     jobs[j].machine, jobs[j].kernel, jobs[j].mode, jobs[j].tasks, jobs[j].err.msg);
			goto out;
		}
	for (int i = 0; i < nc; i++) {
		if (c[i].skip[0])
			continue;
		for (int p = 0; p < c[i].n; p++) {
			const struct pjob *j = &jobs[c[i].job[p]];

			/* a row id is named only in the ROWS of a line: profile names and entries hold none */
			c[i].fitted[p] = j->fitted_desc && names_row(j->fitted_desc, c[i].row[p]);
		}
	}
	for (int i = 0; i < nc; i++)
		if (!c[i].skip[0])
			for (int p = 0; p < c[i].n; p++)
				c[i].pred[p] = predicted(c, &c[i], p, jobs, nj, nrep);
	for (int i = 0; i < nc; i++)
		if (!c[i].skip[0])
			shape_and_usl(&c[i], err);

	/* per curve */
	if (csv)
		printf("section,curve,row,tasks,machine,kernel,scenario,mode,placement,metric,measured,predicted,"
		       "error_pct,shape_error_pct,usl_predicted,usl_error_pct,fitted\n");
	else {
		printf("published curves (%s): measured, mmsim's prediction and its error; shape: one scalar fitted "
		       "at the lowest task count; USL: fitted on N <= max/4\n",
		       cwhere);
		if (nrep > 1)
			printf("(each prediction the mean over seeds %llu to %llu)\n", o->seed,
			       o->seed + (unsigned long long)nrep - 1);
	}
	for (int i = 0; i < nc; i++) {
		struct pcurve *k = &c[i];

		if (k->skip[0] || !k->rows[0])
			continue;
		if (!csv)
			printf("\n%s: %s on %s, %s, %s, placement %s; %s%s\n", k->id, k->scenario, k->machine,
			       k->kernel, k->mode, k->placement, k->metric, k->predict == PR_CHANGE ? " (%)" : "");
		if (!csv)
			printf("  %-26s %5s %14s %14s %8s %8s %14s %8s\n", "row", "tasks", "measured", "predicted",
			       "error%", "shape%", "USL", "USL%");
		for (int p = 0; p < k->n; p++) {
			char e[32], s[32], ue[32];
			double err_r = NAN, usl_r = NAN;

			if (is_rate(k))
				err_r = k->pred[p] / k->meas[p] - 1;
			if (!isnan(k->usl[p]))
				usl_r = k->usl[p] / k->meas[p] - 1;
			pct(e, sizeof(e), err_r);
			pct(s, sizeof(s), k->shape[p]);
			pct(ue, sizeof(ue), usl_r);
			if (k->predict == PR_IDLE || k->predict == PR_CHANGE)
				snprintf(e, sizeof(e), "%+.1f", k->pred[p] - k->meas[p]);
			if (csv)
				printf("point,%s,%s,%d,%s,%s,%s,%s,%s,\"%s\",%.6g,%.6g,%s,%s,%.6g,%s,%d\n", k->id,
				       k->row[p], k->tasks[p], k->machine, k->kernel, k->scenario, k->mode,
				       k->placement, k->metric, k->meas[p], k->pred[p], e, s, k->usl[p], ue,
				       k->fitted[p]);
			else {
				char mv[32], pv[32], uv[32];

				plain(mv, sizeof(mv), k->meas[p]);
				plain(pv, sizeof(pv), k->pred[p]);
				plain(uv, sizeof(uv), k->usl[p]);
				printf("  %-26s %5d %14s %14s %8s %8s %14s %8s%s\n", k->row[p], k->tasks[p], mv, pv, e,
				       s, uv, ue, k->fitted[p] ? "  [fitted]" : "");
			}
			if (k->fitted[p])
				continue;
			if (k->predict == PR_IDLE) {
				nidle++;
				idle_ok += fabs(k->pred[p] - k->meas[p]) <= 10;
			} else if (is_rate(k)) {
				abs_e[nabs++] = fabs(err_r);
				within2 += k->pred[p] <= 2 * k->meas[p] && k->pred[p] >= k->meas[p] / 2;
				over += k->pred[p] > k->meas[p];
				if (!isnan(k->shape[p]))
					shape_e[nshape++] = fabs(k->shape[p]);
				if (!isnan(usl_r) && !isnan(k->shape[p])) {
					usl_same[nsame] = fabs(usl_r);
					shape_same[nsame++] = fabs(k->shape[p]);
				}
			}
		}
	}

	/* pairs */
	if (!csv)
		printf("\nbefore/after pairs: measured and predicted ratio (after / before); direction: both within "
		       "+-%d%%, or both beyond it the same way\n  %-22s %-22s %5s %9s %9s %8s %s\n",
		       DIR_BAND, "after", "before", "tasks", "measured", "predicted", "ratio%", "direction");
	for (int i = 0; i < nc; i++) {
		struct pcurve *a = &c[i];

		if (a->skip[0])
			continue;
		for (int p = 0; p < a->n; p++) {
			double mr = NAN, pr = NAN;
			const char *before = "";

			if (a->fitted[p])
				continue;
			if (a->predict == PR_CHANGE) {
				mr = 1 + a->meas[p] / 100;
				pr = 1 + a->pred[p] / 100;
				before = c[a->change].id;
			} else if (a->before >= 0) {
				const struct pcurve *b = &c[a->before];

				before = b->id;
				for (int q = 0; q < b->n; q++)
					if (b->tasks[q] == a->tasks[p] && !b->fitted[q]) {
						mr = a->meas[p] / b->meas[q];
						pr = a->pred[p] / b->pred[q];
					}
			} else
				continue;
			if (isnan(mr) || isnan(pr) || npair == (int)(sizeof(pair_e) / sizeof(pair_e[0])))
				continue;
			{
				int agree = direction(mr) == direction(pr);
				char e[32];

				pct(e, sizeof(e), pr / mr - 1);
				pair_e[npair++] = fabs(pr / mr - 1);
				pair_right += agree;
				if (csv)
					printf("pair,%s,%s,%d,,,,,,,%.6g,%.6g,%s,,,,%d\n", a->id, before, a->tasks[p],
					       mr, pr, e, agree);
				else
					printf("  %-22s %-22s %5d %9.3f %9.3f %8s %s\n", a->id, before, a->tasks[p], mr,
					       pr, e, agree ? "agrees" : "WRONG");
			}
		}
	}

	/* skipped */
	if (!csv)
		printf("\nnot simulated (with the reason):\n");
	for (int i = 0; i < nc; i++)
		if (c[i].skip[0]) {
			nskipped++;
			skipped_rows += c[i].n;
			if (csv)
				printf("skipped,%s,,%d,,,,,,\"%s\",,,,,,,\"%s\"\n", c[i].id, c[i].n, c[i].metric,
				       c[i].skip);
			else
				printf("  %-26s %2d values: %s\n", c[i].id, c[i].n, c[i].skip);
		}

	/* the fitted numbers, each once */
	{
		struct pfitted *fit = NULL;
		int nfit = 0;

		for (int j = 0; j < nj && !rc; j++)
			rc = fitted_merge(jobs[j].fitted_desc, &fit, &nfit, err);
		if (rc) {
			fitted_free(fit, nfit);
			goto out;
		}
		if (!csv)
			printf("\nfitted numbers (every figure leaves out the rows each was fitted on):\n");
		for (int i = 0; i < nfit; i++)
			if (csv)
				printf("fitted,\"%s\",\"%s\",,,,,,,\"%s\",,,,,,,\n", fit[i].where, fit[i].rows,
				       fit[i].what);
			else
				printf("  %-32s %s; rows: %s\n", fit[i].what, fit[i].where,
				       fit[i].rows[0] ? fit[i].rows : "none of the suite's");
		if (!csv && !nfit)
			printf("  none\n");
		fitted_free(fit, nfit);
	}

	/* the bars */
	{
		int nabs_all = nabs;
		double mabs = median(abs_e, nabs), mshape = median(shape_e, nshape), mpair = median(pair_e, npair);
		double msame = median(shape_same, nsame), musl = median(usl_same, nsame);
		double fdir = npair ? 100.0 * pair_right / npair : NAN, f2x = nabs ? 100.0 * within2 / nabs : NAN,
		       fidle = nidle ? 100.0 * idle_ok / nidle : NAN;

		if (csv) {
			printf("summary,pairs_direction_pct,,%d,,,,,,,%.4g,85,,,,,\n", npair, fdir);
			printf("summary,pairs_median_ratio_error_pct,,%d,,,,,,,%.4g,10,,,,,\n", npair, 100 * mpair);
			printf("summary,shape_median_error_pct,,%d,,,,,,,%.4g,15,,,,,\n", nshape, 100 * mshape);
			printf("summary,shape_vs_usl_same_points_pct,,%d,,,,,,,%.4g,%.4g,,,,,\n", nsame, 100 * msame,
			       100 * musl);
			printf("summary,absolute_median_error_pct,,%d,,,,,,,%.4g,30,,,,,\n", nabs_all, 100 * mabs);
			printf("summary,absolute_within_2x_pct,,%d,,,,,,,%.4g,90,,,,,\n", nabs_all, f2x);
			printf("summary,idle_within_10_points_pct,,%d,,,,,,,%.4g,90,,,,,\n", nidle, fidle);
		} else {
			printf("\nsummary (%d published values: %d simulated in %d points, %d in %d curves not "
			       "simulated)\n",
			       nrows, nrows - skipped_rows, nj, skipped_rows, nskipped);
			printf("  pairs: direction right on %d of %d pair points (%.1f%%; bar >= 85%%): %s\n",
			       pair_right, npair, fdir, fdir >= 85 ? "met" : "NOT met");
			printf("  pairs: median |predicted ratio / measured ratio - 1| %.1f%% (bar <= 10%%): %s\n",
			       100 * mpair, 100 * mpair <= 10 ? "met" : "NOT met");
			printf("  shape: median error %.1f%% over %d points (bar <= 15%%): %s\n", 100 * mshape, nshape,
			       100 * mshape <= 15 ? "met" : "NOT met");
			printf("  shape vs USL on the %d points USL predicts: mmsim %.1f%%, USL %.1f%% (bar: below "
			       "USL's): %s\n",
			       nsame, 100 * msame, 100 * musl, nsame && msame < musl ? "met" : "NOT met");
			printf(
			    "  absolute: median |error| %.1f%% over %d points, %d over-predicted (bar <= 30%%): %s\n",
			    100 * mabs, nabs_all, over, 100 * mabs <= 30 ? "met" : "NOT met");
			printf("  absolute: %.1f%% of points within 2x (bar >= 90%%): %s\n", f2x,
			       f2x >= 90 ? "met" : "NOT met");
			printf("  idle: within 10 points on %d of %d idle rows (%.1f%%; bar >= 90%%): %s\n", idle_ok,
			       nidle, fidle, fidle >= 90 ? "met" : "NOT met");
		}
	}
	if (o->plot_dir)
		rc = plots(o, c, nc, err);
out:
	free(ctext);
	free(ptext);
	free(c);
	for (int j = 0; jobs && j < MAXJ; j++)
		free(jobs[j].fitted_desc);
	free(jobs);
	return rc;
}
