/* SPDX-License-Identifier: MIT */
/*
 * mmsim: predict how Linux mm locking scales with core count.
 * Only this file prints and exits; the model returns error codes.
 */
#include "lock.h"
#include "machine.h"
#include "profile.h"
#include "calibrate.h"
#include "cleanup.h"
#include "explain.h"
#include "report.h"
#include "reproduce.h"
#include "validate.h"
#include "scenario.h"
#include "sweep.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <gsl/gsl_errno.h>
#include <limits.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef MMSIM_VERSION
#define MMSIM_VERSION "0.0"
#endif

#define MAX_CURVES 16

/* ---- options: one table, which also prints --help ------------------------ */

struct opts {
	int cores;
	const char *scenario;
	const char *machine;
	const char *kernel;
	const char *tasks;
	const char *mode;
	const char *placement;
	long long ops_per_task;
	const char *format;
	const char *plot;
	int sensitivity;
	unsigned long long seed;
	long long events;
	const char *measured;
	const char *fit_tasks;
	const char *duration, *warmup, *out; /* validate */
	const char *out_machine, *out_kernel, *measured_dir;
	int quick, band;
	int seeds;
	int force, accept_disturbed;
	double max_work;
	int help, version;
};

enum opt_type { O_INT, O_LL, O_ULL, O_DBL, O_STR, O_FLAG };

struct opt_def {
	const char *name;
	enum opt_type type;
	size_t offset;
	const char *arg;
	const char *dflt;
	const char *help;
};

#define OFF(f) offsetof(struct opts, f)
static const struct opt_def opt_table[] = {
    {"cores", O_INT, OFF(cores), "N", "the machine's CPUs (64 for generic)",
     "logical CPUs (hardware threads), as will-it-scale counts them; sizes the generic machine"},
    {"scenario", O_STR, OFF(scenario), "A[,B...]", NULL,
     "scenarios or variants to predict (mmsim list), or scenario files; with two curves, also the second's gain "
     "over the first"},
    {"machine", O_STR, OFF(machine), "NAME|FILE", "generic; validate: local",
     "hardware profile (calibrate: use it instead of measuring this machine)"},
    {"kernel", O_STR, OFF(kernel), "NAME|FILE", "each variant's own (linux-VERSION)", "kernel profile"},
    {"tasks", O_STR, OFF(tasks), "LIST", "1,2,4,...,N and the topology boundaries", "task counts, e.g. 1,64,128,256"},
    {"mode", O_STR, OFF(mode), "threads|processes|both", "the scenario's", "tasks share one mm, or not"},
    {"placement", O_STR, OFF(placement), "wis|spread", "the scenario's (wis unless it says 'placement')",
     "run, explain, compare: tasks pinned as will-it-scale pins them (wis), or unpinned, where the Linux "
     "scheduler's balancing leaves them (spread)"},
    {"ops-per-task", O_LL, OFF(ops_per_task), "K", "0 (throughput)",
     "fixed work: K operations per task; report the makespan"},
    {"format", O_STR, OFF(format), "table|csv|json", "table",
     "csv is will-it-scale's exact format, one scenario per CSV"},
    {"plot", O_STR, OFF(plot), "FILE.png|FILE.svg", NULL,
     "draw the curves with gnuplot (reproduce published: a directory, one PNG per curve)"},
    {"sensitivity", O_FLAG, OFF(sensitivity), NULL, NULL,
     "at the largest task count, each unmeasured number at 0.5x and 2x, and both arbitration policies"},
    {"seed", O_ULL, OFF(seed), "S", "1", "seed of the compute-time jitter"},
    {"seeds", O_INT, OFF(seeds), "N", "1",
     "run: every point under seeds S..S+N-1 too (at most 64), with the spread of each result (and of the gain of "
     "two curves)"},
    {"events", O_LL, OFF(events), "E", "200000 + 2000 per task",
     "events simulated in each point's measurement window (longer: less noise)"},
    {"measured", O_STR, OFF(measured), "FILE", NULL,
     "compare: a will-it-scale CSV (runtest.py's or validate/'s) to hold the prediction against"},
    {"fit-tasks", O_STR, OFF(fit_tasks), "LIST", "none (compare), 1 (calibrate)",
     "compare: measured task counts a profile number was fitted to (shown as fitted, not as errors); "
     "calibrate: the task counts to fit to"},
    {"duration", O_STR, OFF(duration), "S", "5", "validate: seconds each benchmark point is measured"},
    {"warmup", O_STR, OFF(warmup), "S", "1", "validate: seconds of warm-up before each point, discarded"},
    {"out", O_STR, OFF(out), "DIR", "validate-out", "validate: where the measured CSV and the plot go"},
    {"out-machine", O_STR, OFF(out_machine), "FILE", NULL, "calibrate: write the measured hardware profile"},
    {"out-kernel", O_STR, OFF(out_kernel), "FILE", NULL, "calibrate: write the fitted kernel profile"},
    {"measured-dir", O_STR, OFF(measured_dir), "DIR", "run the benchmarks now",
     "calibrate: take the harness's CSVs from DIR (e.g. data/measured) instead of running them; several "
     "CSVs of one benchmark are invocations, averaged point by point; reproduce published: DIR's curves.csv "
     "and points.csv instead of the built-in suite"},
    {"quick", O_FLAG, OFF(quick), NULL, NULL, "calibrate: mmsim-measure --quick and short runs (a smoke test)"},
    {"band", O_FLAG, OFF(band), NULL, NULL,
     "the range of each point with every [fitted] cost at the ends of its 1-sigma range (mmsim calibrate's)"},
    {"max-work", O_DBL, OFF(max_work), "W", "1e11, tens of minutes of one core",
     "refuse a run whose estimated work (steps interpreted and events, all points) exceeds W"},
    {"force", O_FLAG, OFF(force), NULL, NULL,
     "replace existing results (--plot, validate's CSV and plot, calibrate's profiles)"},
    {"accept-disturbed", O_FLAG, OFF(accept_disturbed), NULL, NULL,
     "calibrate: write the profiles even when the machine was disturbed or a fit hit its bound (marked so)"},
    {"help", O_FLAG, OFF(help), NULL, NULL, "this text"},
    {"version", O_FLAG, OFF(version), NULL, NULL, "print the version"},
};
#define NOPTS (int)(sizeof(opt_table) / sizeof(opt_table[0]))

static const struct command {
	const char *name;
	const char *help;
} commands[] = {
    {"run", "predict scalability curves (the default command)"},
    {"list", "list scenarios and variants, machines, kernels and lock designs"},
    {"show", "print every number of --machine and --kernel with its provenance"},
    {"explain", "one variant at one task count: where the time goes (function, lock, line) and the limiter"},
    {"compare", "hold a prediction against a measured will-it-scale CSV (--measured FILE)"},
    {"reproduce", "'mmsim reproduce seeds|published': the seeds' numbers, or the published curves of machines "
		  "we do not own, beside mmsim's predictions"},
    {"validate", "run the real benchmark here (validate/wis_*), compare, and check its event counts"},
    {"calibrate", "measure this machine, run the harness, fit the kernel path costs, write profiles"},
};

static void usage(FILE *f)
{
	fprintf(f, "usage: mmsim [run] --scenario A[,B...] [options]\n       mmsim list\n"
		   "       mmsim show [--machine NAME|FILE] [--kernel NAME|FILE]\n"
		   "       mmsim compare --measured FILE --scenario A [--machine M] [--fit-tasks LIST]\n"
		   "       mmsim reproduce seeds [--format table|csv]\n"
		   "       mmsim reproduce published [--format table|csv] [--plot DIR] [--measured-dir DIR]\n"
		   "       mmsim validate --scenario VARIANT --tasks LIST [--machine M, default local]\n"
		   "       mmsim calibrate [--out-machine FILE] [--out-kernel FILE] [--fit-tasks LIST] "
		   "[--measured-dir DIR]\n\n");
	fprintf(f, "Predicts how Linux mm code scales with core count: a discrete-event simulation of\n"
		   "mmap_lock, page-table locks, per-VMA locks and shared cache lines.\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "\noptions:\n");
	for (int i = 0; i < NOPTS; i++) {
		char left[64];

		snprintf(left, sizeof(left), "--%s%s%s", opt_table[i].name, opt_table[i].arg ? " " : "",
			 opt_table[i].arg ? opt_table[i].arg : "");
		fprintf(f, "  %-32s %s", left, opt_table[i].help);
		if (opt_table[i].dflt)
			fprintf(f, " [default: %s]", opt_table[i].dflt);
		fputc('\n', f);
	}
	fprintf(f,
		"\nexample: mmsim --cores 256 --scenario has_pinned_write\n"
		"         mmsim --machine amd-2s-128c --scenario has_pinned_write,has_pinned_check --plot pin.png\n");
}

static int die(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int die(int code, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "mmsim: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return code;
}

static int parse_num(const char *opt, const char *v, long long lo, long long hi, long long *out)
{
	char *end;

	errno = 0;
	*out = strtoll(v, &end, 10);
	if (errno || end == v || *end)
		return die(2, "--%s '%s': expected a whole number", opt, v);
	if (*out < lo || *out > hi)
		return die(2, "--%s %s is out of range (expected %lld to %lld)", opt, v, lo, hi);
	return 0;
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *val = NULL, *eq;
		char name[64];
		const struct opt_def *d = NULL;
		long long n;
		int rc;

		if (strncmp(a, "--", 2))
			return die(2, "unexpected argument '%s' (options start with --; see mmsim --help)", a);
		eq = strchr(a, '=');
		snprintf(name, sizeof(name), "%.*s", (int)(eq ? eq - a - 2 : (long)strlen(a + 2)), a + 2);
		for (int k = 0; k < NOPTS; k++)
			if (!strcmp(opt_table[k].name, name))
				d = &opt_table[k];
		if (!d)
			return die(2, "unknown option '--%s' (see mmsim --help)", name);
		if (d->type == O_FLAG) {
			if (eq)
				return die(2, "--%s takes no value", name);
			*(int *)((char *)o + d->offset) = 1;
			continue;
		}
		if (eq)
			val = eq + 1;
		else if (i + 1 < argc)
			val = argv[++i];
		else
			return die(2, "--%s needs a value (%s)", name, d->arg);
		switch (d->type) {
		case O_INT:
			if ((rc = parse_num(name, val, 1, MACHINE_MAX_CPUS, &n)))
				return rc;
			*(int *)((char *)o + d->offset) = (int)n;
			break;
		case O_LL:
			if ((rc = parse_num(name, val, 1, 1LL << 40, &n)))
				return rc;
			*(long long *)((char *)o + d->offset) = n;
			break;
		case O_ULL:
			if ((rc = parse_num(name, val, 0, LLONG_MAX, &n)))
				return rc;
			*(unsigned long long *)((char *)o + d->offset) = (unsigned long long)n;
			break;
		case O_DBL: {
			char *end;
			double x;

			errno = 0;
			x = strtod(val, &end);
			if (errno || end == val || *end || !isfinite(x) || x < 1 || x > 1e18)
				return die(2, "--%s '%s': expected a number from 1 to 1e18", name, val);
			*(double *)((char *)o + d->offset) = x;
			break;
		}
		default:
			if (!*val)
				return die(2, "--%s needs a non-empty value (%s)", name, d->arg);
			*(const char **)((char *)o + d->offset) = val;
			break;
		}
	}
	return 0;
}

/* ---- list --------------------------------------------------------------- */

static int cmd_list(void)
{
	const char *const *names = profile_builtin_names("scenarios");
	struct mm_error err;

	printf("scenarios (variant: kernel, what it models):\n");
	for (int i = 0; names[i]; i++) {
		struct scenario sc;
		char origin[128];

		snprintf(origin, sizeof(origin), "builtin:scenarios/%s.scn", names[i]);
		if (scenario_parse(&sc, origin, profile_builtin_text("scenarios", names[i]), &err))
			return die(1, "%s", err.msg);
		printf("  %s: %s\n    one op = %s\n", sc.name, sc.title, sc.opdoc);
		for (int v = 0; v < sc.nvar; v++)
			printf("    %-26s %-6s %s\n", sc.var[v].name, sc.var[v].kernel, sc.var[v].doc);
		scenario_free(&sc);
	}
	printf("\nmachines:\n");
	names = profile_builtin_names("machines");
	for (int i = 0; names[i]; i++) {
		struct profile p;
		struct hw_profile hw;

		if (profile_load(&p, "machines", names[i], &err) || hw_profile_derive(&hw, &p, &err))
			return die(1, "%s", err.msg);
		printf("  %-16s %s\n", names[i], hw.description);
		profile_free(&p);
	}
	printf("\nkernels:\n");
	names = profile_builtin_names("kernels");
	for (int i = 0; names[i]; i++)
		printf("  %s\n", names[i]);
	printf("\nlock designs:\n");
	for (int i = 0; lock_designs[i]; i++)
		printf("  %-10s %-9s %s\n", lock_designs[i]->name, lock_designs[i]->kind, lock_designs[i]->doc);
	return 0;
}

/* ---- show: where every number comes from -------------------------------- */

static void show_profile(const struct profile *p)
{
	printf("# %s\n%-12s %-28s %-14s %-9s %s\n", p->path, "section", "key", "value", "tag", "provenance");
	for (int i = 0; i < p->nentries; i++) {
		const struct prof_entry *e = &p->e[i];

		printf("%-12s %-28s %-14s %-9s %s\n", e->section, e->key, e->value, prof_tag_name(e->tag), e->note);
	}
}

/* Every lock design key as a run under @k uses it: the profile's value, or its release's preset. */
static void show_lock_keys(const struct kernel_profile *k)
{
	printf("\n# lock design keys in effect (a profile's [SECTION] KEY = V sets one)\n");
	printf("%-12s %-28s %-14s %-9s %s\n", "section", "key", "value", "from", "what it does");
	for (int i = 0; lock_designs[i]; i++) {
		const struct lock_design *d = lock_designs[i];

		for (int j = 0; d->keys && d->keys[j].name; j++) {
			const struct lk_key *key = &d->keys[j];
			const double preset = d->key_preset ? d->key_preset(k, j) : 0;
			const double v = lk_key_value(k, d, key->name, preset);
			const int set = profile_find(k->p, d->section, key->name) != NULL;
			char from[32];

			snprintf(from, sizeof(from), "%s", set ? "profile" : "preset");
			printf("%-12s %-28s %-14g %-9s %s\n", d->section, key->name, v, from, key->doc);
		}
	}
}

static int cmd_show(const struct opts *o)
{
	struct mm_error err;
	struct profile p;

	if (profile_load(&p, "machines", o->machine, &err))
		return die(1, "%s", err.msg);
	show_profile(&p);
	profile_free(&p);
	if (o->kernel) {
		struct kernel_profile k;

		if (profile_load(&p, "kernels", o->kernel, &err))
			return die(1, "%s", err.msg);
		if (kernel_profile_derive(&k, &p, &err) || lock_check_kernel(&k, &err)) {
			profile_free(&p);
			return die(1, "%s", err.msg);
		}
		printf("\n");
		show_profile(&p);
		show_lock_keys(&k);
		profile_free(&p);
	}
	return 0;
}

/* ---- run ---------------------------------------------------------------- */

struct kernel_slot {
	char key[256];
	struct profile prof;
	struct kernel_profile k;
};

struct run {
	struct opts o;
	struct machine m;
	int ncurves;
	struct scenario sc[MAX_CURVES];
	int var[MAX_CURVES];
	struct kernel_slot ks[MAX_CURVES];
	int nks;
	struct kernel_profile *kern[MAX_CURVES];
	struct program prog[MAX_CURVES];
	struct curve curve[MAX_CURVES];
	int modes[2];
	int tasks[REPORT_MAX_POINTS];
	int npts;
	double t_start, next_log_s;
	int progress_shown;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* On a terminal, a line redrawn as the simulations go (a point's own progress included); in a
 * log, a line every 10 s of a long run, and one at the end.  Nothing for runs under a second. */
static void progress(void *arg, double done, int total)
{
	struct run *r = arg;
	double el = now_s() - r->t_start;
	int end = done >= total;

	if (el < 1.0)
		return;
	if (isatty(2)) {
		fprintf(stderr, "\rmmsim: %.1f/%d simulations, %.1f s%s", done, total, el, end ? "\n" : "");
		r->progress_shown = 1;
	} else if (end) {
		fprintf(stderr, "mmsim: %d simulations in %.1f s\n", total, el);
	} else if (el >= r->next_log_s) {
		fprintf(stderr, "mmsim: %.1f of %d simulations done, %.0f s\n", done, total, el);
		r->next_log_s = el + 10;
	}
}

static int load_kernel(struct run *r, const char *name, struct kernel_profile **out, struct mm_error *err)
{
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
	if ((rc = profile_load(&ks->prof, "kernels", name, err)))
		return rc;
	if ((rc = kernel_profile_derive(&ks->k, &ks->prof, err)) || (rc = lock_check_kernel(&ks->k, err))) {
		profile_free(&ks->prof);
		return rc;
	}
	r->nks++;
	*out = &ks->k;
	return 0;
}

static int add_curve(struct run *r, const char *name, struct mm_error *err)
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
		char kname[64];

		if (c == MAX_CURVES) {
			rc = mm_fail(err, MM_ERANGE, "too many curves (at most %d)", MAX_CURVES);
			break;
		}
		/* each curve owns its own copy of the scenario; a curve counts once complete */
		if ((rc = scenario_load(&r->sc[c], name, &dummy, err)))
			break;
		if (r->o.placement) /* checked by cmd_run: the command line over the scenario */
			topo_placement_parse(r->o.placement, &r->sc[c].placement);
		r->var[c] = v;
		snprintf(kname, sizeof(kname), "linux-%s", sc.var[v].kernel);
		if ((rc = load_kernel(r, r->o.kernel ? r->o.kernel : kname, &r->kern[c], err)) ||
		    (rc = scenario_compile(&r->sc[c], v, r->kern[c], &r->prog[c], err))) {
			scenario_free(&r->sc[c]);
			break;
		}
		snprintf(cv->scenario, sizeof(cv->scenario), "%s", sc.name);
		snprintf(cv->variant, sizeof(cv->variant), "%s", sc.var[v].name);
		snprintf(cv->label, sizeof(cv->label), "%s", sc.var[v].name);
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

static int task_list(struct run *r, int ncpus, struct mm_error *err)
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
static struct sim_config point_config(const struct run *r, const struct hw_profile *hw, const struct kernel_profile *k,
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
	};
}

/* The [fitted] costs with a 1-sigma range in kernel slot @ks (what --band varies). */
static int band_entries(const struct run *r, int ks)
{
	int n = 0;
	double lo, hi;

	for (int e = 0; e < r->ks[ks].prof.nentries; e++)
		n += !calib_fitted_range(&r->ks[ks].prof.e[e], &lo, &hi);
	return n;
}

/* The one-task point efficiency is measured against, run beside curve @c's own points: unless the
 * curve has it, or the scenario's roles need more than one task (then efficiency and 'linear'
 * are 0). */
static int extra_point(const struct run *r, int c)
{
	return r->tasks[0] != 1 && !scenario_assign_roles(r->prog[c].sc, 1, NULL, NULL, NULL);
}

/*
 * Every run bounded: the work of all the simulations the command will run, estimated from the
 * programs and options before any of them starts, against --max-work.  The refusal names what
 * makes it large.  (A run the estimate misjudges is still stopped by sim_run at the same bound.)
 */
static int check_work(const struct run *r, int compare, struct mm_error *err)
{
	double total = 0, worst = 0, mult_seeds = r->o.seeds > 1 ? r->o.seeds : 1;
	char why[512] = "", worst_why[512] = "";
	int worst_tasks = 0, nsens = 0;
	const char *worst_label = "";

	if (r->o.sensitivity) { /* the items cmd_sensitivity varies, at 0.5x and 2x */
		nsens = 2;
		for (int i = 0; i < r->m.prof.nentries; i++)
			nsens += r->m.prof.e[i].is_num &&
				 (r->m.prof.e[i].tag == PROF_ASSUMED || r->m.prof.e[i].tag == PROF_FITTED);
		for (int k = 0; k < r->nks; k++)
			for (int i = 0; i < r->ks[k].prof.nentries; i++)
				nsens +=
				    r->ks[k].prof.e[i].is_num && !strcmp(r->ks[k].prof.e[i].section, "costs") &&
				    (r->ks[k].prof.e[i].tag == PROF_ASSUMED || r->ks[k].prof.e[i].tag == PROF_FITTED);
		nsens *= 2;
	}
	for (int c = 0; c < r->ncurves; c++) {
		int ks;

		for (ks = 0; ks < r->nks && &r->ks[ks].k != r->kern[c]; ks++)
			;
		for (int m = 0; m < 2; m++) {
			int on = r->modes[0] || r->modes[1] ? r->modes[m] : (int)r->sc[c].mode == m;

			if (!on && !(compare == 2 && m == (int)r->sc[c].mode))
				continue;
			for (int p = 0; p < r->npts + extra_point(r, c); p++) {
				struct sim_config cfg = point_config(r, &r->m.hw, r->kern[c], &r->prog[c], m,
								     p < r->npts ? r->tasks[p] : 1);
				double w = sim_work_estimate(&cfg, why, sizeof(why)), times = 1;
				int rc;

				/* roles that do not fit a task count: refused before anything runs */
				if ((rc = scenario_assign_roles(cfg.prog->sc, cfg.ntasks, NULL, NULL, err)))
					return rc;

				if (p < r->npts)
					times = mult_seeds + (r->o.band ? 2.0 * band_entries(r, ks) : 0) +
						(p == r->npts - 1 ? nsens : 0);
				total += w * times;
				if (w > worst) {
					worst = w;
					worst_tasks = cfg.ntasks;
					worst_label = r->curve[c].label[0] ? r->curve[c].label : r->sc[c].name;
					snprintf(worst_why, sizeof(worst_why), "%s", why);
				}
			}
		}
	}
	if (total <= r->o.max_work)
		return 0;
	return mm_fail(err, MM_ERANGE,
		       "this run would simulate about %.3g events and steps, more than --max-work %g allows; the "
		       "largest point, %s at %d task%s, is %.3g (%s): ask for less, or raise --max-work",
		       total, r->o.max_work, worst_label, worst_tasks, worst_tasks > 1 ? "s" : "", worst, worst_why);
}

/* Jobs for every curve, mode and task count, plus the one-task point of each. */
static int run_curves(struct run *r, struct sweep_job **jobs_out, int *njobs_out, struct mm_error *err)
{
	/* the one-task point that efficiency is measured against, unless the curve has it */
	int per = r->npts + 1, njobs = 0, rc;
	struct sweep_job *jobs = calloc((size_t)r->ncurves * 2 * per, sizeof(*jobs));

	if (!jobs)
		return mm_fail(err, MM_ENOMEM, "out of memory");
	for (int c = 0; c < r->ncurves; c++)
		for (int m = 0; m < 2; m++) {
			int mode_on = r->modes[0] || r->modes[1] ? r->modes[m] : (int)r->sc[c].mode == m;

			if (!mode_on)
				continue;
			r->curve[c].has_mode[m] = 1;
			for (int p = 0; p < r->npts + extra_point(r, c); p++)
				jobs[njobs++].cfg = point_config(r, &r->m.hw, r->kern[c], &r->prog[c], m,
								 p < r->npts ? r->tasks[p] : 1);
		}
	r->t_start = now_s();
	r->next_log_s = 10;
	rc = sweep_run(jobs, njobs, progress, r, err);
	if (rc) {
		free(jobs);
		return rc;
	}
	njobs = 0;
	for (int c = 0; c < r->ncurves; c++) {
		struct curve *cv = &r->curve[c];

		cv->npts = r->npts;
		cv->fixed_work = r->o.ops_per_task > 0 || r->sc[c].work > 0;
		memcpy(cv->tasks, r->tasks, r->npts * sizeof(int));
		for (int m = 0; m < 2; m++) {
			if (!cv->has_mode[m])
				continue;
			for (int p = 0; p < r->npts; p++)
				cv->res[m][p] = &jobs[njobs++].res;
			if (extra_point(r, c))
				cv->linear1[m] = jobs[njobs++].res.ops_per_s;
			else
				cv->linear1[m] = r->tasks[0] == 1 ? cv->res[m][0]->ops_per_s : 0;
		}
	}
	*jobs_out = jobs;
	*njobs_out = njobs;
	return 0;
}

/* ---- sensitivity -------------------------------------------------------- */

struct sens_item {
	int machine; /* 1: an entry of the hardware profile, 0: of a kernel profile */
	int kslot;
	int entry;
	char label[160];
	int policy; /* >= 0: an arbitration policy instead of an entry */
};

static int sens_variant(struct run *r, const struct sens_item *it, double factor, struct sim_result *out,
			struct mm_error *err)
{
	/* Work on private copies of the profiles so that points can run in parallel. */
	struct machine m = r->m;
	struct profile mp, kp[MAX_CURVES];
	struct kernel_profile kk[MAX_CURVES];
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
		cfg = point_config(r, &m.hw, &kk[ks], &prog,
				   r->curve[c].has_mode[SC_THREADS] ? SC_THREADS : SC_PROCESSES, largest);
		rc = sim_run(&cfg, &out[c], err);
		program_free(&prog);
	}
out:
	profile_free(&mp);
	for (int i = 0; i < nk; i++)
		profile_free(&kp[i]);
	return rc;
}

static int cmd_sensitivity(struct run *r, struct mm_error *err)
{
	struct sens_item items[256];
	int n = 0, largest = r->tasks[r->npts - 1];
	struct sim_result(*res)[2][MAX_CURVES];
	int *rcs;
	struct mm_error *errs;

	for (int p = 0; p < 2; p++)
		items[n++] = (struct sens_item){.policy = p, .label = ""};
	snprintf(items[0].label, sizeof(items[0].label), "arbitration = fifo");
	snprintf(items[1].label, sizeof(items[1].label), "arbitration = local-first");
	for (int i = 0; i < r->m.prof.nentries && n < 256; i++) {
		const struct prof_entry *e = &r->m.prof.e[i];

		if (!e->is_num || (e->tag != PROF_ASSUMED && e->tag != PROF_FITTED) || !strcmp(e->key, "jitter"))
			continue;
		items[n] = (struct sens_item){.machine = 1, .entry = i, .policy = -1};
		snprintf(items[n++].label, sizeof(items[0].label), "machine [%.20s] %.40s = %.30s (%s)", e->section,
			 e->key, e->value, prof_tag_name(e->tag));
	}
	for (int k = 0; k < r->nks; k++)
		for (int i = 0; i < r->ks[k].prof.nentries && n < 256; i++) {
			const struct prof_entry *e = &r->ks[k].prof.e[i];

			if (!e->is_num || (e->tag != PROF_ASSUMED && e->tag != PROF_FITTED) ||
			    strcmp(e->section, "costs"))
				continue;
			items[n] = (struct sens_item){.machine = 0, .kslot = k, .entry = i, .policy = -1};
			snprintf(items[n++].label, sizeof(items[0].label), "%.30s [%.20s] %.40s = %.30s (%s)",
				 r->ks[k].k.name, e->section, e->key, e->value, prof_tag_name(e->tag));
		}
	res = calloc(n, sizeof(*res));
	rcs = calloc(n * 2, sizeof(int));
	errs = calloc(n * 2, sizeof(*errs));
	if (!res || !rcs || !errs) {
		free(res);
		free(rcs);
		free(errs);
		return mm_fail(err, MM_ENOMEM, "out of memory");
	}
	r->t_start = now_s();
	r->next_log_s = 10;
	int done = 0;

#pragma omp parallel for schedule(dynamic, 1)
	for (int j = 0; j < 2 * n; j++) {
		const struct sens_item *it = &items[j / 2];

		if (it->policy >= 0 && (j & 1))
			rcs[j] = 0;
		else
			rcs[j] = sens_variant(r, it, (j & 1) ? 2.0 : 0.5, res[j / 2][j & 1], &errs[j]);
#pragma omp critical(mmsim_sens_progress)
		progress(r, ++done, 2 * n);
	}
	printf("\nsensitivity at %d tasks (ops/s; each unmeasured number at 0.5x and 2x):\n", largest);
	printf("  %-64s", "baseline");
	for (int c = 0; c < r->ncurves; c++)
		printf(" %22s", r->curve[c].label);
	if (r->ncurves == 2)
		printf(" %14s", "ratio 2nd/1st");
	printf("\n  %-64s", "");
	for (int c = 0; c < r->ncurves; c++) {
		const struct curve *cv = &r->curve[c];
		int m = cv->has_mode[SC_THREADS] ? SC_THREADS : SC_PROCESSES;

		printf(" %22.0f", cv->res[m][r->npts - 1]->ops_per_s);
	}
	if (r->ncurves == 2) {
		int m0 = r->curve[0].has_mode[0] ? 0 : 1, m1 = r->curve[1].has_mode[0] ? 0 : 1;

		printf(" %14.2f",
		       r->curve[1].res[m1][r->npts - 1]->ops_per_s / r->curve[0].res[m0][r->npts - 1]->ops_per_s);
	}
	printf("\n");
	for (int i = 0; i < n; i++) {
		for (int f = 0; f < (items[i].policy >= 0 ? 1 : 2); f++) {
			char lab[200];

			if (items[i].policy >= 0)
				snprintf(lab, sizeof(lab), "%s", items[i].label);
			else
				snprintf(lab, sizeof(lab), "%s x%s", items[i].label, f ? "2" : "0.5");
			printf("  %-64.64s", lab);
			if (rcs[2 * i + f]) {
				printf(" n/a: %s\n", rcs[2 * i + f] == MM_ERANGE
							 ? "outside the range the profile allows"
							 : errs[2 * i + f].msg);
				continue;
			}
			for (int c = 0; c < r->ncurves; c++)
				printf(" %22.0f", res[i][f][c].ops_per_s);
			if (r->ncurves == 2)
				printf(" %14.2f", res[i][f][1].ops_per_s / res[i][f][0].ops_per_s);
			printf("\n");
		}
	}
	free(res);
	free(rcs);
	free(errs);
	return 0;
}

/* The comparison table of mmsim compare: every point says whether it was fitted or predicted. */
static int print_comparison(struct run *r, const struct measured *ms, struct mm_error *err)
{
	int fit[REPORT_MAX_POINTS] = {0};

	if (r->o.fit_tasks) {
		char *buf = strdup(r->o.fit_tasks), *save, *tok;
		int rc = buf ? 0 : mm_fail(err, MM_ENOMEM, "out of memory");

		for (tok = buf ? strtok_r(buf, ",", &save) : NULL; tok && !rc; tok = strtok_r(NULL, ",", &save)) {
			char *end;
			long v = strtol(tok, &end, 10);
			int found = 0;

			for (int p = 0; p < ms->n && !*end; p++)
				if (ms->tasks[p] == v)
					fit[p] = found = 1;
			if (*end || end == tok || !found)
				rc = mm_fail(err, MM_EINVAL, "--fit-tasks: '%.40s' is not a task count of %s", tok,
					     r->o.measured);
		}
		free(buf);
		if (rc)
			return rc;
	}
	for (int m = 0; m < 2; m++) {
		const struct curve *cv = &r->curve[0];
		struct err_tally pred = {0}, ut = {0};
		int usl;
		struct usl_fit u;
		char why[256];

		if (!cv->has_mode[m])
			continue;
		/* the baseline to beat: the USL fitted to the same training points (calibrate.c) */
		usl = calib_usl_baseline(ms, m, fit, &u, why, sizeof(why));
		printf("\ncompare: %s on %s, %s; measured: %s\n", cv->label, r->m.hw.name,
		       m == SC_THREADS ? "threads" : "processes", r->o.measured);
		printf("  %6s %14s %14s %9s %10s %10s  %-*s%s\n", "tasks", "measured", "predicted", "error%",
		       "idle_meas", "idle_pred", usl ? 25 : 0, "role", usl ? " usl_err%" : "");
		for (int p = 0; p < ms->n; p++) {
			const struct sim_result *res = cv->res[m][p];
			double meas = ms->ops[m][p], e;

			if (meas <= 0) {
				printf("  %6d %14s %14.0f %9s %10s %10.2f  not measured\n", ms->tasks[p], "-",
				       res->ops_per_s, "", "", res->idle_pct);
				continue;
			}
			e = 100.0 * (res->ops_per_s - meas) / meas;
			printf("  %6d %14.0f %14.0f %+9.1f %10.2f %10.2f  %-*s", ms->tasks[p], meas, res->ops_per_s, e,
			       ms->idle[m][p], res->idle_pct, usl && !fit[p] ? 25 : 0,
			       fit[p] ? "fitted (not a prediction)" : "prediction");
			if (usl && !fit[p]) {
				double ue = 100.0 * (usl_predict(&u, ms->tasks[p]) - meas) / meas;

				printf(" %+8.1f", ue);
				err_tally_add(&ut, ue);
			}
			putchar('\n');
			if (!fit[p])
				err_tally_add(&pred, e);
		}
		if (pred.n)
			err_tally_print(stdout, &pred);
		else
			printf("  predictions: none (every measured point was used for fitting)\n");
		if (usl && pred.n)
			printf("  USL on the same training points (lambda %.4g, sigma %.3g, kappa %.3g): mean |error| "
			       "%.1f%%, max %.1f%%\n",
			       u.lambda, u.sigma, u.kappa, ut.sum / ut.n, ut.worst);
		else if (!usl)
			printf("  %s\n", why);
	}
	return 0;
}

/* --band: every curve again with each [fitted] cost at the ends of its 1-sigma range (calibrate.c). */
static int run_band(struct run *r, struct mm_error *err)
{
	static struct sim_config cfg[2 * REPORT_MAX_POINTS];
	static double central[2 * REPORT_MAX_POINTS], lo[2 * REPORT_MAX_POINTS], hi[2 * REPORT_MAX_POINTS];

	for (int c = 0; c < r->ncurves; c++) {
		struct curve *cv = &r->curve[c];
		int n = 0, ks, rc;

		for (ks = 0; ks < r->nks && &r->ks[ks].k != r->kern[c]; ks++)
			;
		for (int m = 0; m < 2; m++)
			for (int p = 0; cv->has_mode[m] && p < r->npts; p++, n++) {
				cfg[n] = point_config(r, &r->m.hw, r->kern[c], &r->prog[c], m, r->tasks[p]);
				central[n] = cv->res[m][p]->ops_per_s;
			}
		rc = calib_band(&r->ks[ks].prof, &r->sc[c], r->var[c], cfg, n, central, lo, hi, err);
		if (rc < 0)
			return rc;
		if (!rc)
			fprintf(stderr,
				"mmsim: --band: kernel profile %s has no [fitted] cost with a 1-sigma range "
				"(mmsim calibrate writes them): %s's band is its curve\n",
				r->kern[c]->name, cv->label);
		{
			char why[256];
			int bad = calib_untrusted(&r->ks[ks].prof, why, sizeof(why));

			/* a band drawn from a fit that does not describe its machine would look precise */
			if (bad)
				fprintf(stderr,
					"mmsim: --band: WARNING: %s's band is not trustworthy: %d fitted cost(s) of "
					"kernel profile %s are suspect (%s)\n",
					cv->label, bad, r->kern[c]->name, why);
		}
		n = 0;
		for (int m = 0; m < 2; m++)
			for (int p = 0; cv->has_mode[m] && p < r->npts; p++, n++) {
				cv->band_lo[m][p] = lo[n];
				cv->band_hi[m][p] = hi[n];
			}
		cv->has_band = 1;
	}
	return 0;
}

/* --seeds N: every point again under seeds S+1..S+N-1; each curve keeps the N results of each. */
static int run_seeds(struct run *r, struct mm_error *err)
{
	int n = r->o.seeds, per = r->npts * (n - 1), njobs = 0, rc;
	struct sweep_job *jobs = calloc((size_t)r->ncurves * 2 * per + 1, sizeof(*jobs));

	if (!jobs)
		return mm_fail(err, MM_ENOMEM, "out of memory");
	for (int c = 0; c < r->ncurves; c++) {
		struct curve *cv = &r->curve[c];

		cv->seedv = calloc((size_t)2 * r->npts * n, sizeof(double));
		if (!cv->seedv) {
			free(jobs);
			return mm_fail(err, MM_ENOMEM, "out of memory");
		}
		cv->nseeds = n;
		for (int m = 0; m < 2; m++)
			for (int p = 0; cv->has_mode[m] && p < r->npts; p++)
				for (int k = 1; k < n; k++) {
					jobs[njobs].cfg =
					    point_config(r, &r->m.hw, r->kern[c], &r->prog[c], m, r->tasks[p]);
					jobs[njobs++].cfg.seed = r->o.seed + (unsigned long long)k;
				}
	}
	r->t_start = now_s();
	r->next_log_s = 10;
	if ((rc = sweep_run(jobs, njobs, progress, r, err))) {
		free(jobs);
		return rc;
	}
	njobs = 0;
	for (int c = 0; c < r->ncurves; c++) {
		struct curve *cv = &r->curve[c];

		for (int m = 0; m < 2; m++)
			for (int p = 0; cv->has_mode[m] && p < r->npts; p++) {
				double *v = cv->seedv + ((size_t)m * r->npts + p) * n;

				for (int k = 0; k < n; k++) {
					const struct sim_result *res = k ? &jobs[njobs++].res : cv->res[m][p];

					v[k] = cv->fixed_work ? res->makespan_s : res->ops_per_s;
				}
			}
	}
	free(jobs);
	return 0;
}

/* The run table's machine line: how the tasks were placed, when not all as will-it-scale pins them. */
static const char *placement_note(const struct run *r, char *buf, size_t cap)
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

/* mmsim explain: one point, with the time of every step kept. */
static int run_explain(struct run *r, struct mm_error *err)
{
	struct sim_result res;
	struct sim_step_stats *steps;
	struct sim_config cfg;
	int m, rc;

	if (r->ncurves != 1 || r->npts != 1)
		return mm_fail(err, MM_EINVAL,
			       "explain: one variant at one task count (e.g. --scenario page_fault4_vma_lock --tasks "
			       "96); got %d curve(s) and %d task count(s)",
			       r->ncurves, r->npts);
	m = r->modes[0] || r->modes[1] ? (r->modes[SC_THREADS] ? SC_THREADS : SC_PROCESSES) : (int)r->sc[0].mode;
	if (r->modes[0] && r->modes[1])
		return mm_fail(err, MM_EINVAL, "explain: --mode threads or processes, not both");
	steps = calloc(r->prog[0].n + 1, sizeof(*steps));
	if (!steps)
		return mm_fail(err, MM_ENOMEM, "out of memory");
	cfg = point_config(r, &r->m.hw, r->kern[0], &r->prog[0], m, r->tasks[0]);
	cfg.steps = steps;
	rc = sim_run(&cfg, &res, err);
	if (!rc)
		explain_print(
		    stdout, r->o.format,
		    &(struct explain_ctx){
			.label = r->curve[0].label, .machine = r->m.hw.name, .cfg = &cfg, .res = &res, .steps = steps});
	free(steps);
	return rc;
}

static int cmd_run(struct opts *o, const char *cmdline, int compare)
{
	struct run *r = calloc(1, sizeof(*r));
	struct sweep_job *jobs = NULL;
	struct mm_error err = {0};
	struct report_ctx ctx;
	struct measured ms;
	int rc, njobs = 0, ncpus;
	char *buf = NULL, *save, *tok;

	if (!r)
		return die(1, "out of memory");
	r->o = *o;
	if (!o->scenario) {
		free(r);
		return die(2, "--scenario is required (e.g. --scenario has_pinned_write; 'mmsim list' shows them)");
	}
	if (strcmp(o->format, "table") && strcmp(o->format, "csv") && strcmp(o->format, "json")) {
		free(r);
		return die(2, "--format '%s': expected table, csv or json", o->format);
	}
	if (o->seeds > 64 || (o->seeds > 1 && compare)) {
		free(r);
		return o->seeds > 64 ? die(2, "--seeds %d is out of range (expected 1 to 64)", o->seeds)
				     : die(2, "--seeds is for curves (mmsim run), not for %s",
					   compare == 2 ? "explain" : "compare");
	}
	if (o->mode) {
		if (!strcmp(o->mode, "threads"))
			r->modes[SC_THREADS] = 1;
		else if (!strcmp(o->mode, "processes"))
			r->modes[SC_PROCESSES] = 1;
		else if (!strcmp(o->mode, "both"))
			r->modes[0] = r->modes[1] = 1;
		else {
			free(r);
			return die(2, "--mode '%s': expected threads, processes or both", o->mode);
		}
	}
	if (o->placement && topo_placement_parse(o->placement, &(enum topo_placement){0})) {
		free(r);
		return die(2,
			   "--placement '%s': expected wis (pinned as will-it-scale pins them) or spread (where the "
			   "scheduler puts unpinned tasks)",
			   o->placement);
	}
	if (o->plot) {
		const char *ext = strrchr(o->plot, '.');

		if (!ext || (strcmp(ext, ".png") && strcmp(ext, ".svg"))) {
			free(r);
			return die(2, "--plot %s: expected a file name ending in .png or .svg", o->plot);
		}
		/* before the simulations, not after them */
		if (outfile_check(o->plot, o->force, "--plot", &err)) {
			free(r);
			return die(2, "%s", err.msg);
		}
	}
	if (compare == 2) {
		if (!strcmp(o->format, "json") || o->plot || o->sensitivity) {
			free(r);
			return die(2, "explain prints a table or --format csv (no json, --plot or --sensitivity)");
		}
	} else if (compare && !o->measured) {
		free(r);
		return die(2, "compare needs --measured FILE (a will-it-scale CSV)");
	}
	if (compare == 1 && (rc = measured_load(o->measured, &ms, &err))) {
		free(r);
		return die(1, "%s", err.msg);
	}
	if ((rc = machine_load(&r->m, o->machine, o->cores, &err)))
		goto fail;
	ncpus = o->cores ? o->cores : r->m.topo.ncpus;
	if (!(buf = strdup(o->scenario))) {
		rc = mm_fail(&err, MM_ENOMEM, "out of memory");
		goto fail;
	}
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		if ((rc = add_curve(r, tok, &err)))
			goto fail;
	if (!strcmp(o->format, "csv") && r->ncurves > 1) {
		rc = mm_fail(&err, MM_EINVAL,
			     "--format csv holds one scenario (will-it-scale's format); '%s' gives %d curves: name "
			     "one variant, or use --format table or json",
			     o->scenario, r->ncurves);
		goto fail;
	}
	if (compare == 1) {
		char list[REPORT_MAX_POINTS * 8] = "";

		if (r->ncurves != 1) {
			rc = mm_fail(&err, MM_EINVAL, "compare: '%s' gives %d curves; name one variant", o->scenario,
				     r->ncurves);
			goto fail;
		}
		for (int m = 0; m < 2; m++) {
			if (!(r->modes[0] || r->modes[1] ? r->modes[m] : (int)r->sc[0].mode == m))
				continue;
			if (!ms.has[m]) {
				rc = mm_fail(&err, MM_EINVAL, "compare: %s has no %s results (choose --mode)",
					     o->measured, m == SC_THREADS ? "threads" : "processes");
				goto fail;
			}
			r->modes[m] = 1;
		}
		for (int p = 0; p < ms.n; p++)
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%d", p ? "," : "", ms.tasks[p]);
		r->o.tasks = list;
		rc = task_list(r, ncpus, &err);
		r->o.tasks = NULL;
		if (rc)
			goto fail;
		if (r->npts != ms.n) {
			rc = mm_fail(&err, MM_EPARSE, "%s: task counts must be distinct", o->measured);
			goto fail;
		}
		r->curve[0].nmeas = 0;
		for (int p = 0; p < ms.n; p++) {
			int mm = r->modes[SC_THREADS] ? SC_THREADS : SC_PROCESSES;

			if (ms.ops[mm][p] > 0) {
				r->curve[0].meas_tasks[r->curve[0].nmeas] = ms.tasks[p];
				r->curve[0].meas_ops[r->curve[0].nmeas++] = ms.ops[mm][p];
			}
		}
	} else if ((rc = task_list(r, ncpus, &err))) {
		goto fail;
	}
	if ((rc = check_work(r, compare, &err)))
		goto fail;
	if (compare == 2) {
		rc = run_explain(r, &err);
		goto fail;
	}
	if ((rc = run_curves(r, &jobs, &njobs, &err)))
		goto fail;
	if (o->band && (rc = run_band(r, &err)))
		goto fail;
	if (o->seeds > 1 && (rc = run_seeds(r, &err)))
		goto fail;
	ctx = (struct report_ctx){.machine = r->m.hw.name,
				  .machine_desc = r->m.hw.description,
				  .topology = r->m.topo.summary,
				  .ncpus = r->m.topo.ncpus,
				  .seed = o->seed,
				  .command = cmdline,
				  .force = o->force};
	if (o->plot && (rc = report_plot(o->plot, &ctx, r->curve, r->ncurves, &err)))
		goto fail;
	if (compare) {
		if ((rc = print_comparison(r, &ms, &err)))
			goto fail;
	} else if (!strcmp(o->format, "csv"))
		report_csv(stdout, &r->curve[0]);
	else if (!strcmp(o->format, "json"))
		report_json(stdout, &ctx, r->curve, r->ncurves);
	else {
		char topo[1024];
		struct report_ctx tctx = ctx;

		tctx.topology = placement_note(r, topo, sizeof(topo));
		report_table(stdout, &tctx, r->curve, r->ncurves);
	}
	if (o->sensitivity && (rc = cmd_sensitivity(r, &err)))
		goto fail;
	rc = 0;
fail:
	if (rc)
		die(1, "%s", err.msg[0] ? err.msg : mm_strerror(rc));
	free(buf);
	free(jobs);
	for (int c = 0; c < r->ncurves; c++) {
		free(r->curve[c].seedv);
		program_free(&r->prog[c]);
		scenario_free(&r->sc[c]);
	}
	for (int i = 0; i < r->nks; i++)
		profile_free(&r->ks[i].prof);
	machine_free(&r->m);
	free(r);
	return rc ? 1 : 0;
}

static int cmd_reproduce(const struct opts *o, const char *what)
{
	struct mm_error err = {0};
	struct reproduce_opts ro = {.seed = o->seed,
				    .events = o->events,
				    .csv = !strcmp(o->format, "csv"),
				    .progress = isatty(2),
				    .max_work = o->max_work};

	if (!what || (strcmp(what, "seeds") && strcmp(what, "published")))
		return die(2, "reproduce: expected 'mmsim reproduce seeds' or 'mmsim reproduce published' (got %s)",
			   what ? what : "nothing");
	if (strcmp(o->format, "table") && strcmp(o->format, "csv"))
		return die(2, "reproduce: --format '%s': expected table or csv", o->format);
	if (!strcmp(what, "published")) {
		if (o->scenario || strcmp(o->machine, "generic") || o->kernel || o->tasks || o->mode || o->cores ||
		    o->ops_per_task || o->measured || o->fit_tasks || o->placement)
			return die(
			    2, "reproduce published takes its scenarios, machines, kernels and task counts from "
			       "data/reference/published/curves.csv (or --measured-dir DIR's); it takes only "
			       "--format, --plot DIR, --measured-dir DIR, --events, --seed, --max-work and --force");
		ro.plot_dir = o->plot;
		ro.published_dir = o->measured_dir;
		ro.force = o->force;
		if (reproduce_published(&ro, &err))
			return die(1, "%s", err.msg[0] ? err.msg : mm_strerror(err.code));
		return 0;
	}
	if (o->scenario || strcmp(o->machine, "generic") || o->kernel || o->tasks || o->mode || o->cores ||
	    o->ops_per_task || o->plot || o->measured || o->fit_tasks || o->measured_dir || o->placement)
		return die(2, "reproduce seeds chooses its own scenarios, machines and task counts; it takes only "
			      "--format, --events and --seed (its sensitivity table is always shown)");
	if (reproduce_seeds(&ro, &err))
		return die(1, "%s", err.msg[0] ? err.msg : mm_strerror(err.code));
	return 0;
}

/* mmsim validate: the benchmark runs into a CSV, which then goes through compare, with a plot. */
static int cmd_validate(const struct opts *o, const char *cmdline)
{
	struct validate_req req = {.variant = o->scenario,
				   .tasks = o->tasks,
				   .mode = o->mode,
				   .kernel = o->kernel,
				   .machine = o->machine,
				   .duration = o->duration ? o->duration : "5",
				   .warmup = o->warmup ? o->warmup : "1",
				   .out_dir = o->out ? o->out : "validate-out",
				   .command = cmdline,
				   .force = o->force};
	struct validate_run *vr = calloc(1, sizeof(*vr));
	struct mm_error err = {0};
	struct opts c = *o;
	int rc, mismatches = 0;

	if (!vr)
		return die(1, "out of memory");
	if (o->measured || o->plot || o->fit_tasks || o->sensitivity) {
		free(vr);
		return die(2, "validate measures its own CSV and writes its own plot (no --measured, --plot, "
			      "--fit-tasks or --sensitivity)");
	}
	if ((rc = validate_measure(&req, vr, &err))) {
		free(vr);
		return die(rc == MM_EINVAL ? 2 : 1, "%s", err.msg);
	}
	if (vr->skipped) {
		printf("skipped: %s\n", vr->skip_reason);
		free(vr);
		return VALIDATE_EXIT_SKIPPED;
	}
	validate_print_header(stdout, &req, vr);
	c.measured = vr->csv;
	c.plot = vr->png;
	c.mode = vr->mode;
	c.tasks = NULL;
	rc = cmd_run(&c, cmdline, 1);
	if (!rc && (rc = validate_print_counts(stdout, &req, vr, &mismatches, &err)))
		rc = die(1, "%s", err.msg);
	free(vr);
	return rc;
}

static int cmd_calibrate(const struct opts *o, const char *cmdline)
{
	struct mm_error err = {0};
	/* --machine given: use it instead of measuring (its default, generic, means "measure") */
	int given = strcmp(o->machine, "generic") != 0;
	struct calib_opts co = {.out_machine = o->out_machine,
				.out_kernel = o->out_kernel,
				.fit_tasks = o->fit_tasks,
				.measured_dir = o->measured_dir,
				.machine = given ? o->machine : NULL,
				.kernel = o->kernel,
				.quick = o->quick,
				.seed = o->seed,
				.cmdline = cmdline,
				.force = o->force,
				.accept_disturbed = o->accept_disturbed};

	if (calibrate_run(&co, &err))
		return die(1, "%s", err.msg[0] ? err.msg : "calibrate failed");
	return 0;
}

static int run_command(const char *cmd, struct opts *o, const char *reproduce_what, const char *cmdline)
{
	if (o->help) {
		usage(stdout);
		return 0;
	}
	if (o->version) {
		printf("mmsim %s\n", MMSIM_VERSION);
		return 0;
	}
	if (!strcmp(cmd, "list"))
		return cmd_list();
	if (!strcmp(cmd, "show"))
		return cmd_show(o);
	if (!strcmp(cmd, "run"))
		return cmd_run(o, cmdline, 0);
	if (!strcmp(cmd, "compare"))
		return cmd_run(o, cmdline, 1);
	if (!strcmp(cmd, "explain"))
		return cmd_run(o, cmdline, 2);
	if (!strcmp(cmd, "reproduce"))
		return cmd_reproduce(o, reproduce_what);
	if (!strcmp(cmd, "validate"))
		return cmd_validate(o, cmdline);
	if (!strcmp(cmd, "calibrate"))
		return cmd_calibrate(o, cmdline);
	return die(2,
		   "unknown command '%s' (expected run, list, show, compare, explain, reproduce, validate or "
		   "calibrate; see mmsim --help)",
		   cmd);
}

int main(int argc, char **argv)
{
	struct opts o = {.machine = "generic", .format = "table", .seed = 1, .max_work = SIM_MAX_WORK};
	char *cmdline;
	size_t len = sizeof("mmsim");
	const char *cmd = "run", *reproduce_what = NULL;
	int first = 1, rc;

	gsl_set_error_handler_off();
	cleanup_install();
	if (argc > 1 && argv[1][0] != '-') {
		cmd = argv[1];
		first = 2;
		if (!strcmp(cmd, "reproduce") && argc > 2 && argv[2][0] != '-') {
			reproduce_what = argv[2];
			first = 3;
		}
	}
	if (!strcmp(cmd, "validate"))
		o.machine = "local"; /* this machine: the benchmark runs here */
	if ((rc = parse_opts(argc - first, argv + first, &o)))
		return rc;
	/* the command line, whole, for the metadata of what mmsim writes */
	for (int i = 1; i < argc; i++)
		len += strlen(argv[i]) + 1;
	if (!(cmdline = malloc(len)))
		return die(1, "out of memory");
	strcpy(cmdline, "mmsim");
	for (int i = 1; i < argc; i++)
		strcat(strcat(cmdline, " "), argv[i]);
	rc = run_command(cmd, &o, reproduce_what, cmdline);
	free(cmdline);
	return rc;
}
