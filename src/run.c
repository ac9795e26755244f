/* SPDX-License-Identifier: MIT */
/* One run of mmsim: its curves, their simulations, and the sensitivity table (run.h). */
#include "run.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void run_free(struct run *r)
{
	if (!r)
		return;
	for (int c = 0; c < r->ncurves; c++) {
		free(r->curve[c].seedv);
		program_free(&r->prog[c]);
		scenario_free(&r->sc[c]);
	}
	for (int i = 0; i < r->nks; i++)
		profile_free(&r->ks[i].prof);
	for (int i = 0; i < r->npeers; i++)
		scenario_free(&r->peer[i]);
	free(r->peer);
	machine_free(&r->m);
	free(r);
}

void run_progress_start(struct run_progress *pg)
{
	pg->t_start = now_s();
	pg->next_log_s = 10;
}

/* On a terminal, a line redrawn as the simulations go (a point's own progress included); in a
 * log, a line every 10 s of a long run, and one at the end.  Nothing for runs under a second. */
void run_progress(void *arg, double done, int total)
{
	struct run_progress *pg = arg;
	double el = now_s() - pg->t_start;
	int end = done >= total;

	if (el < 1.0)
		return;
	if (isatty(2)) {
		fprintf(stderr, "\rmmsim: %.1f/%d simulations, %.1f s%s", done, total, el, end ? "\n" : "");
		pg->shown = 1;
	} else if (end) {
		fprintf(stderr, "mmsim: %d simulations in %.1f s\n", total, el);
	} else if (el >= pg->next_log_s) {
		fprintf(stderr, "mmsim: %.1f of %d simulations done, %.0f s\n", done, total, el);
		pg->next_log_s = el + 10;
	}
}

/* The separator of a layout what-if in a kernel slot's key: "linux-5.11 + mm.has_pinned=own-line". */
#define WHATIF_SEP " + "

/*
 * --layout-what-if FIELD=own-line|LINE[,...] on a loaded kernel profile: each FIELD's [layout]
 * entry set to LINE, or to a line of its own (the field's name, as for a field the layout does
 * not list).  0, or an error naming the option.
 */
static int apply_layout(struct profile *p, const char *spec, struct mm_error *err)
{
	char *buf = strdup(spec), *save, *tok;
	int rc = 0;

	if (!buf)
		return mm_fail(err, MM_ENOMEM, "out of memory");
	for (tok = strtok_r(buf, ",", &save); tok && !rc; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		const char *line;
		struct prof_entry *e;

		if (!eq || eq == tok || !eq[1] || strlen(tok) >= sizeof(e->value)) {
			rc = mm_fail(err, MM_EINVAL,
				     "--layout-what-if '%s': expected FIELD=own-line or FIELD=LINE (e.g. "
				     "mm.has_pinned=own-line), comma-separated",
				     tok);
			break;
		}
		*eq = '\0';
		line = strcmp(eq + 1, "own-line") ? eq + 1 : tok;
		if (strlen(line) >= SC_NAME) {
			rc = mm_fail(err, MM_EINVAL,
				     "--layout-what-if '%s=%.40s...': a line's name has at most %d characters", tok,
				     eq + 1, SC_NAME - 1);
			break;
		}
		if (!(e = profile_find(p, "layout", tok))) {
			if (p->nentries == p->cap) {
				struct prof_entry *ne = realloc(p->e, (size_t)(p->cap * 2 + 8) * sizeof(*ne));

				if (!ne) {
					rc = mm_fail(err, MM_ENOMEM, "out of memory");
					break;
				}
				p->e = ne;
				p->cap = p->cap * 2 + 8;
			}
			e = &p->e[p->nentries++];
			memset(e, 0, sizeof(*e));
			snprintf(e->section, sizeof(e->section), "layout");
			snprintf(e->key, sizeof(e->key), "%s", tok);
		}
		snprintf(e->value, sizeof(e->value), "%s", line);
		e->is_num = 0;
		e->tag = PROF_ASSUMED;
		snprintf(e->note, sizeof(e->note), "--layout-what-if %s=%s", tok, eq + 1);
	}
	free(buf);
	return rc;
}

static int load_kernel(struct run *r, const char *name, struct kernel_profile **out, struct mm_error *err)
{
	const char *whatif = strstr(name, WHATIF_SEP);
	char base[1024];
	int rc;

	for (int i = 0; i < r->nks; i++)
		if (!strcmp(r->ks[i].key, name)) {
			*out = &r->ks[i].k;
			return 0;
		}
	struct kernel_slot *ks = &r->ks[r->nks];

	if (strlen(name) >= sizeof(ks->key))
		return mm_fail(err, MM_EINVAL, "--kernel: a name of %zu bytes is too long (at most %zu)", strlen(name),
			       sizeof(ks->key) - 1);
	snprintf(ks->key, sizeof(ks->key), "%s", name);
	snprintf(base, sizeof(base), "%.*s", whatif ? (int)(whatif - name) : (int)strlen(name), name);
	if ((rc = profile_load(&ks->prof, "kernels", base, err)))
		return rc;
	if (whatif && (rc = apply_layout(&ks->prof, whatif + strlen(WHATIF_SEP), err))) {
		profile_free(&ks->prof);
		return rc;
	}
	if ((rc = kernel_profile_derive(&ks->k, &ks->prof, err)) || (rc = lock_check_kernel(&ks->k, err)) ||
	    (r->npeers && (rc = scenario_check_kernel_names(&ks->k, r->peer, r->npeers, err)))) {
		profile_free(&ks->prof);
		return rc;
	}
	ks->k.names_checked = r->npeers > 0;
	r->nks++;
	*out = &ks->k;
	return 0;
}

int run_add_peer(struct run *r, const char *name, struct mm_error *err)
{
	struct scenario *pv;
	int v, rc;

	if (!(pv = realloc(r->peer, (size_t)(r->npeers + 1) * sizeof(*pv))))
		return mm_fail(err, MM_ENOMEM, "out of memory");
	r->peer = pv;
	if ((rc = scenario_load(&pv[r->npeers], name, &v, err)))
		return rc;
	if (pv[r->npeers].builtin)
		scenario_free(&pv[r->npeers]);
	else
		r->npeers++;
	return 0;
}

int run_add_curve(struct run *r, const char *name, struct mm_error *err)
{
	return run_add_curve_kernel(r, name, NULL, err);
}

/* Each FIELD of --layout-what-if must be one of scenario @sc's fields (a misspelling would
 * move nothing). */
static int whatif_fields(const struct scenario *sc, const char *spec, struct mm_error *err)
{
	const char **names = calloc((size_t)sc->nobj + 1, sizeof(*names));
	const char *p = spec;
	int rc = 0;

	if (!names)
		return mm_fail(err, MM_ENOMEM, "out of memory");
	for (int o = 0; o < sc->nobj; o++)
		names[o] = sc->obj[o].name;
	while (*p && !rc) {
		size_t len = strcspn(p, "=,");
		char field[SC_NAME], hint[160];
		int found = 0;

		snprintf(field, sizeof(field), "%.*s", (int)len, p);
		for (int o = 0; o < sc->nobj; o++)
			found |= !strcmp(sc->obj[o].name, field);
		if (!found)
			rc = mm_fail(err, MM_EINVAL, "--layout-what-if: %s has no field '%s'%s", sc->path, field,
				     profile_did_you_mean(hint, sizeof(hint), field, names, sc->nobj));
		p += strcspn(p, ",");
		p += *p == ',';
	}
	free(names);
	return rc;
}

int run_add_curve_kernel(struct run *r, const char *name, const char *kernel, struct mm_error *err)
{
	struct scenario sc;
	int v, rc = 0, first, last;

	if ((rc = scenario_load(&sc, name, &v, err)))
		return rc;
	first = v >= 0 ? v : 0;
	last = v >= 0 ? v : sc.nvar - 1;
	for (v = first; v <= last && !rc; v++) {
		int c = r->ncurves, dummy;
		struct curve *cv = &r->curve[c];
		char kbuf[64], wname[1024];
		const char *kname;

		if (c == RUN_MAX_CURVES) {
			rc = mm_fail(err, MM_ERANGE, "too many curves (at most %d)", RUN_MAX_CURVES);
			break;
		}
		/* each curve owns its own copy of the scenario; a curve counts once complete */
		if ((rc = scenario_load(&r->sc[c], name, &dummy, err)))
			break;
		if (r->o.placement) /* checked by cmd_run: the command line over the scenario */
			topo_placement_parse(r->o.placement, &r->sc[c].placement);
		r->var[c] = v;
		/* the variant's own: linux-VERSION, or the file its 'kernel FILE' names */
		kname = scenario_kernel_profile(&sc.var[v], kbuf, sizeof(kbuf));
		if (!kernel)
			kernel = r->o.kernel;
		if (r->whatif_pass) { /* the same kernel, with --layout-what-if's lines */
			if (snprintf(wname, sizeof(wname), "%s" WHATIF_SEP "%s", kernel ? kernel : kname,
				     r->o.layout_whatif) >= (int)sizeof(wname)) {
				/* cut, it would apply another layout than the one checked below */
				rc = mm_fail(err, MM_EINVAL,
					     "--layout-what-if: %zu characters with the kernel's name; at most %zu",
					     strlen(kernel ? kernel : kname) + strlen(WHATIF_SEP) +
						 strlen(r->o.layout_whatif),
					     sizeof(wname) - 1);
				scenario_free(&r->sc[c]);
				break;
			}
			if ((rc = whatif_fields(&sc, r->o.layout_whatif, err))) {
				scenario_free(&r->sc[c]);
				break;
			}
		}
		if ((rc = load_kernel(r,
				      r->whatif_pass ? wname
				      : kernel	     ? kernel
						     : kname,
				      &r->kern[c], err)) ||
		    (rc = scenario_compile(&r->sc[c], v, r->kern[c], &r->prog[c], err))) {
			scenario_free(&r->sc[c]);
			break;
		}
		snprintf(cv->scenario, sizeof(cv->scenario), "%s", sc.name);
		snprintf(cv->variant, sizeof(cv->variant), "%s", sc.var[v].name);
		if (r->whatif_pass) {
			snprintf(cv->label, sizeof(cv->label), "%s@layout", sc.var[v].name);
		} else if (kernel && kernel != r->o.kernel) {
			/* one of --kernel A,B: the curve is named by its kernel too (a file by its base name) */
			const char *base = strrchr(kernel, '/') ? strrchr(kernel, '/') + 1 : kernel;
			int n =
			    (int)strlen(base) - (strlen(base) > 5 && !strcmp(base + strlen(base) - 5, ".conf") ? 5 : 0);

			if (snprintf(cv->label, sizeof(cv->label), "%s@%.*s", sc.var[v].name, n, base) >=
			    (int)sizeof(cv->label)) {
				/* cut, two kernels of one long prefix would give two curves one name */
				rc = mm_fail(err, MM_EINVAL,
					     "--kernel %s: the curve's name '%s@%.*s' is longer than %zu characters "
					     "(a shorter file name)",
					     kernel, sc.var[v].name, n, base, sizeof(cv->label) - 1);
				scenario_free(&r->sc[c]);
				program_free(&r->prog[c]);
				break;
			}
		} else {
			snprintf(cv->label, sizeof(cv->label), "%s", sc.var[v].name);
		}
		snprintf(cv->kernel, sizeof(cv->kernel), "%s", r->kern[c]->name);
		snprintf(cv->opdoc, sizeof(cv->opdoc), "%s", sc.opdoc);
		r->ncurves++;
	}
	scenario_free(&sc);
	return rc;
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

int run_task_list(struct run *r, int ncpus, struct mm_error *err)
{
	int n = 0, rc = 0;

	if (r->o.tasks) {
		char *buf = strdup(r->o.tasks), *save, *tok;

		if (!buf)
			return mm_fail(err, MM_ENOMEM, "out of memory");
		for (tok = strtok_r(buf, ",", &save); tok && !rc; tok = strtok_r(NULL, ",", &save)) {
			char *end;
			long v;

			errno = 0;
			v = strtol(tok, &end, 10);
			if (errno || end == tok || *end || v < 1)
				rc = mm_fail(err, MM_EINVAL,
					     "--tasks: '%.40s' is not a task count (expected e.g. 1,64,256)", tok);
			else if (v > ncpus)
				rc = mm_fail(
				    err, MM_ERANGE,
				    "--tasks: %ld tasks, but the machine has %d logical CPUs (one task per CPU)", v,
				    ncpus);
			else {
				int k = 0;

				while (k < n && r->tasks[k] != v) /* a count given twice is one point */
					k++;
				if (k == n && n == REPORT_MAX_POINTS)
					rc = mm_fail(err, MM_ERANGE, "--tasks: at most %d points", REPORT_MAX_POINTS);
				else if (k == n)
					r->tasks[n++] = (int)v;
			}
		}
		free(buf);
		if (rc)
			return rc;
		if (!n)
			return mm_fail(err, MM_EINVAL, "--tasks '%s': no task count (expected e.g. 1,64,256)",
				       r->o.tasks);
	} else {
		int b[8], nb = topo_boundaries(&r->m.topo, b, 8);

		for (int t = 1; t <= ncpus; t *= 2)
			r->tasks[n++] = t;
		for (int i = 0; i < nb; i++)
			if (b[i] <= ncpus)
				r->tasks[n++] = b[i];
		r->tasks[n++] = ncpus;
	}
	qsort(r->tasks, n, sizeof(int), cmp_int);
	r->npts = 0;
	for (int i = 0; i < n; i++)
		if (!r->npts || r->tasks[r->npts - 1] != r->tasks[i])
			r->tasks[r->npts++] = r->tasks[i];
	return 0;
}

/* One point of a curve: the run's options, with this machine, kernel and program. */
struct sim_config run_point_config(const struct run *r, const struct hw_profile *hw, const struct kernel_profile *k,
				   const struct program *prog, int mode, int ntasks)
{
	return (struct sim_config){
	    .topo = &r->m.topo,
	    .hw = hw,
	    .kernel = k,
	    .prog = prog,
	    .mode = mode,
	    .ntasks = ntasks,
	    .seed = r->o.seed,
	    .ops_per_task = r->o.ops_per_task > 0 ? r->o.ops_per_task : prog->sc->work,
	    .measure_events = (uint64_t)r->o.events,
	    .max_work = r->o.max_work,
	    .relief = r->relief.kind ? &r->relief : NULL,
	};
}

/* The one-task point efficiency is measured against, run beside curve @c's own points: unless the
 * curve has it, or the scenario's roles need more than one task (then efficiency and 'linear'
 * are 0). */
int run_extra_point(const struct run *r, int c)
{
	return r->tasks[0] != 1 && !scenario_assign_roles(r->prog[c].sc, 1, NULL, NULL, NULL);
}

int run_curve_jobs(struct run *r, struct sweep_job *jobs)
{
	int njobs = 0;

	for (int c = 0; c < r->ncurves; c++)
		for (int m = 0; m < 2; m++) {
			int mode_on = r->modes[0] || r->modes[1] ? r->modes[m] : (int)r->sc[c].mode == m;

			if (!mode_on)
				continue;
			r->curve[c].has_mode[m] = 1;
			/* and the one-task point that efficiency is measured against, unless the curve has it */
			for (int p = 0; p < r->npts + run_extra_point(r, c); p++, njobs++)
				if (jobs)
					jobs[njobs].cfg = run_point_config(r, &r->m.hw, r->kern[c], &r->prog[c], m,
									   p < r->npts ? r->tasks[p] : 1);
		}
	return njobs;
}

void run_curve_results(const struct run *r, struct curve *cvs, struct sweep_job *jobs)
{
	int njobs = 0;

	for (int c = 0; c < r->ncurves; c++) {
		struct curve *cv = &cvs[c];

		cv->npts = r->npts;
		cv->fixed_work = r->o.ops_per_task > 0 || r->sc[c].work > 0;
		memcpy(cv->tasks, r->tasks, r->npts * sizeof(int));
		for (int m = 0; m < 2; m++) {
			if (!cv->has_mode[m])
				continue;
			for (int p = 0; p < r->npts; p++)
				cv->res[m][p] = &jobs[njobs++].res;
			if (run_extra_point(r, c))
				cv->linear1[m] = jobs[njobs++].res.ops_per_s;
			else
				cv->linear1[m] = r->tasks[0] == 1 ? cv->res[m][0]->ops_per_s : 0;
		}
	}
}

int run_curves(struct run *r, struct sweep_job **jobs_out, int *njobs_out, struct mm_error *err)
{
	int njobs = run_curve_jobs(r, NULL), rc;
	struct sweep_job *jobs = calloc((size_t)njobs + 1, sizeof(*jobs));

	if (!jobs)
		return mm_fail(err, MM_ENOMEM, "out of memory");
	run_curve_jobs(r, jobs);
	run_progress_start(&r->pg);
	rc = sweep_run(jobs, njobs, run_progress, &r->pg, err);
	if (rc) {
		free(jobs);
		return rc;
	}
	run_curve_results(r, r->curve, jobs);
	*jobs_out = jobs;
	*njobs_out = njobs;
	return 0;
}

/* ---- sensitivity -------------------------------------------------------- */

int run_sens_variant(const struct run *r, const struct sens_item *it, double factor, unsigned long long seed,
		     struct sim_result *out, struct mm_error *err)
{
	/* Work on private copies of the profiles so that points can run in parallel. */
	struct machine m = r->m;
	struct profile mp, kp[RUN_MAX_CURVES];
	struct kernel_profile kk[RUN_MAX_CURVES];
	int rc = 0, largest = r->tasks[r->npts - 1], nk = 0;

	if (profile_copy(&mp, &r->m.prof))
		return MM_ENOMEM;
	for (int i = 0; i < r->nks; i++, nk++) {
		if (profile_copy(&kp[i], &r->ks[i].prof)) {
			rc = MM_ENOMEM;
			goto out;
		}
	}
	m.prof = mp;
	if (it->policy >= 0) {
		struct prof_entry *e = profile_find(&m.prof, "coherence", "arbitration");

		snprintf(e->value, sizeof(e->value), "%s", it->policy ? "local-first" : "fifo");
	} else {
		struct prof_entry *e = it->machine ? &m.prof.e[it->entry] : &kp[it->kslot].e[it->entry];
		double v = e->num * factor;

		if (!strcmp(e->key, "batch_limit") || !strcmp(e->section, "batch"))
			v = round(v) < 1 ? 1 : round(v);
		e->num = v;
		snprintf(e->value, sizeof(e->value), "%.17g", v);
	}
	if ((rc = hw_profile_derive(&m.hw, &m.prof, err)))
		goto out;
	for (int i = 0; i < r->nks; i++)
		if ((rc = kernel_profile_derive(&kk[i], &kp[i], err)))
			goto out;
	for (int c = 0; c < r->ncurves && !rc; c++) {
		struct sim_config cfg;
		struct program prog;
		int ks;

		for (ks = 0; ks < r->nks && &r->ks[ks].k != r->kern[c]; ks++)
			;
		/* costs are resolved at compile time: recompile against the varied kernel */
		if ((rc = scenario_compile(&r->sc[c], r->var[c], &kk[ks], &prog, err)))
			break;
		cfg = run_point_config(r, &m.hw, &kk[ks], &prog,
				       r->curve[c].has_mode[SC_THREADS] ? SC_THREADS : SC_PROCESSES, largest);
		cfg.seed = seed;
		rc = sim_run(&cfg, &out[c], err);
		program_free(&prog);
	}
out:
	profile_free(&mp);
	for (int i = 0; i < nk; i++)
		profile_free(&kp[i]);
	return rc;
}

/* Does a curve run under kernel slot @k have a step that costs the [costs] entry @key? */
static int cost_in_use(const struct run *r, int k, const char *key)
{
	for (int c = 0; c < r->ncurves; c++)
		if (r->kern[c] == &r->ks[k].k && scenario_uses_cost(&r->sc[c], r->var[c], key))
			return 1;
	return 0;
}

int run_sens_items(const struct run *r, struct sens_item *items, struct mm_error *err)
{
	int n = 0;

	for (int p = 0; p < 2; p++)
		items[n++] = (struct sens_item){.policy = p, .label = ""};
	snprintf(items[0].label, sizeof(items[0].label), "arbitration = fifo");
	snprintf(items[1].label, sizeof(items[1].label), "arbitration = local-first");
	int all = n; /* every item, also those past RUN_MAX_SENS (not kept) */

	for (int i = 0; i < r->m.prof.nentries; i++) {
		const struct prof_entry *e = &r->m.prof.e[i];

		if (!e->is_num || (e->tag != PROF_ASSUMED && e->tag != PROF_FITTED) || !strcmp(e->key, "jitter"))
			continue;
		if (++all > RUN_MAX_SENS)
			continue;
		items[n] = (struct sens_item){.machine = 1, .entry = i, .policy = -1};
		snprintf(items[n++].label, sizeof(items[0].label), "machine [%.20s] %.40s = %.30s (%s)", e->section,
			 e->key, e->value, prof_tag_name(e->tag));
	}
	for (int k = 0; k < r->nks; k++)
		for (int i = 0; i < r->ks[k].prof.nentries; i++) {
			const struct prof_entry *e = &r->ks[k].prof.e[i];

			/* a cost of 0 stays 0 at either factor (its steps are not in the program); a cost no
			 * curve's steps name (one a base profile brings for other scenarios) moves nothing */
			if (!e->is_num || (e->tag != PROF_ASSUMED && e->tag != PROF_FITTED) ||
			    strcmp(e->section, "costs") || e->num == 0 || !cost_in_use(r, k, e->key))
				continue;
			if (++all > RUN_MAX_SENS)
				continue;
			items[n] = (struct sens_item){.machine = 0, .kslot = k, .entry = i, .policy = -1};
			snprintf(items[n++].label, sizeof(items[0].label), "%.30s [%.20s] %.40s = %.30s (%s)",
				 r->ks[k].k.name, e->section, e->key, e->value, prof_tag_name(e->tag));
		}
	if (all > RUN_MAX_SENS) {
		mm_fail(err, MM_ERANGE,
			"--sensitivity: %d numbers to vary (the arbitration and every [assumed] or [fitted] one the "
			"curves use), more than the %d one run varies (fewer kernels or curves)",
			all, RUN_MAX_SENS);
		return -1;
	}
	return n;
}

void run_sens_print(FILE *f, const struct run *r, const struct curve *cv, const struct sens_item *items, int n,
		    const struct sim_result (*res)[2][RUN_MAX_CURVES], const int *rcs, const struct mm_error *errs)
{
	int largest = r->tasks[r->npts - 1];

	fprintf(f, "\nsensitivity at %d tasks (ops/s; each unmeasured number at 0.5x and 2x):\n", largest);
	fprintf(f, "  %-64s", "baseline");
	for (int c = 0; c < r->ncurves; c++)
		fprintf(f, " %22s", cv[c].label);
	if (r->ncurves == 2)
		fprintf(f, " %14s", "ratio 2nd/1st");
	fprintf(f, "\n  %-64s", "");
	for (int c = 0; c < r->ncurves; c++) {
		int m = cv[c].has_mode[SC_THREADS] ? SC_THREADS : SC_PROCESSES;

		fprintf(f, " %22.0f", cv[c].res[m][r->npts - 1]->ops_per_s);
	}
	if (r->ncurves == 2) {
		int m0 = cv[0].has_mode[0] ? 0 : 1, m1 = cv[1].has_mode[0] ? 0 : 1;

		fprintf(f, " %14.2f", cv[1].res[m1][r->npts - 1]->ops_per_s / cv[0].res[m0][r->npts - 1]->ops_per_s);
	}
	fprintf(f, "\n");
	for (int i = 0; i < n; i++) {
		for (int k = 0; k < (items[i].policy >= 0 ? 1 : 2); k++) {
			char lab[200];

			if (items[i].policy >= 0)
				snprintf(lab, sizeof(lab), "%s", items[i].label);
			else
				snprintf(lab, sizeof(lab), "%s x%s", items[i].label, k ? "2" : "0.5");
			fprintf(f, "  %-64.64s", lab);
			if (rcs[2 * i + k]) {
				fprintf(f, " n/a: %s\n",
					rcs[2 * i + k] == MM_ERANGE ? "outside the range the profile allows"
								    : errs[2 * i + k].msg);
				continue;
			}
			for (int c = 0; c < r->ncurves; c++)
				fprintf(f, " %22.0f", res[i][k][c].ops_per_s);
			if (r->ncurves == 2)
				fprintf(f, " %14.2f", res[i][k][1].ops_per_s / res[i][k][0].ops_per_s);
			fprintf(f, "\n");
		}
	}
}

int run_sens_check(const struct run *r, struct mm_error *err)
{
	struct sens_item *items = calloc(RUN_MAX_SENS, sizeof(*items));
	int n;

	if (!items)
		return mm_fail(err, MM_ENOMEM, "out of memory");
	n = run_sens_items(r, items, err);
	free(items);
	return n < 0 ? err->code : 0;
}

int run_sensitivity(struct run *r, struct mm_error *err)
{
	struct sens_item *items = calloc(RUN_MAX_SENS, sizeof(*items));
	int n = items ? run_sens_items(r, items, err) : 0, done = 0;

	if (n < 0) {
		free(items);
		return err->code;
	}
	struct sim_result(*res)[2][RUN_MAX_CURVES] = calloc(n + 1, sizeof(*res));
	int *rcs = calloc(n * 2 + 1, sizeof(int));
	struct mm_error *errs = calloc(n * 2 + 1, sizeof(*errs));

	if (!items || !res || !rcs || !errs) {
		free(items);
		free(res);
		free(rcs);
		free(errs);
		return mm_fail(err, MM_ENOMEM, "out of memory");
	}
	run_progress_start(&r->pg);
#pragma omp parallel for schedule(dynamic, 1)
	for (int j = 0; j < 2 * n; j++) {
		const struct sens_item *it = &items[j / 2];

		if (it->policy >= 0 && (j & 1))
			rcs[j] = 0;
		else
			rcs[j] = run_sens_variant(r, it, (j & 1) ? 2.0 : 0.5, r->o.seed, res[j / 2][j & 1], &errs[j]);
#pragma omp critical(mmsim_sens_progress)
		run_progress(&r->pg, ++done, 2 * n);
	}
	run_sens_print(stdout, r, r->curve, items, n, (const struct sim_result(*)[2][RUN_MAX_CURVES])res, rcs, errs);
	free(items);
	free(res);
	free(rcs);
	free(errs);
	return 0;
}

int run_seed_jobs(const struct run *r, struct sweep_job *jobs)
{
	int n = r->o.seeds, njobs = 0;

	for (int c = 0; c < r->ncurves; c++)
		for (int m = 0; m < 2; m++)
			for (int p = 0; r->curve[c].has_mode[m] && p < r->npts; p++)
				for (int k = 1; k < n; k++, njobs++)
					if (jobs) {
						jobs[njobs].cfg = run_point_config(r, &r->m.hw, r->kern[c], &r->prog[c],
										   m, r->tasks[p]);
						jobs[njobs].cfg.seed = r->o.seed + (unsigned long long)k;
					}
	return njobs;
}

/* Each curve keeps the N results of each point, its own first. */
int run_seed_results(const struct run *r, struct curve *cvs, const struct sweep_job *jobs, struct mm_error *err)
{
	int n = r->o.seeds, njobs = 0;

	for (int c = 0; c < r->ncurves; c++) {
		struct curve *cv = &cvs[c];

		cv->seedv = calloc((size_t)2 * r->npts * n, sizeof(double));
		if (!cv->seedv)
			return mm_fail(err, MM_ENOMEM, "out of memory");
		cv->nseeds = n;
		for (int m = 0; m < 2; m++)
			for (int p = 0; cv->has_mode[m] && p < r->npts; p++) {
				double *v = cv->seedv + ((size_t)m * r->npts + p) * n;

				for (int k = 0; k < n; k++) {
					const struct sim_result *res = k ? &jobs[njobs++].res : cv->res[m][p];

					v[k] = cv->fixed_work ? res->makespan_s : res->ops_per_s;
				}
			}
	}
	return 0;
}

int run_seeds(struct run *r, struct mm_error *err)
{
	int njobs = run_seed_jobs(r, NULL), rc;
	struct sweep_job *jobs = calloc((size_t)njobs + 1, sizeof(*jobs));

	if (!jobs)
		return mm_fail(err, MM_ENOMEM, "out of memory");
	run_seed_jobs(r, jobs);
	run_progress_start(&r->pg);
	if (!(rc = sweep_run(jobs, njobs, run_progress, &r->pg, err)))
		rc = run_seed_results(r, r->curve, jobs, err);
	free(jobs);
	return rc;
}

/* The run table's machine line: how the tasks were placed, when not all as will-it-scale pins them. */
const char *run_placement_note(const struct run *r, char *buf, size_t cap)
{
	int mixed = 0, spread = 0;
	size_t n;

	for (int c = 0; c < r->ncurves; c++) {
		spread |= r->prog[c].placement != TOPO_PLACE_WIS;
		mixed |= r->prog[c].placement != r->prog[0].placement;
	}
	if (!spread)
		return r->m.topo.summary;
	n = (size_t)snprintf(buf, cap, "%s; tasks placed:", r->m.topo.summary);
	for (int c = 0; c < r->ncurves && n < cap; c++) {
		if (c && !mixed)
			break;
		n += (size_t)snprintf(buf + n, cap - n, "%s%s%s %s", c ? "," : "", mixed ? " " : "",
				      mixed ? r->curve[c].label : "", topo_placement_name(r->prog[c].placement));
	}
	if (!mixed && n < cap)
		snprintf(buf + n, cap - n, " (unpinned, where the scheduler's balancing leaves them)");
	return buf;
}
