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
#include "layout.h"
#include "explain.h"
#include "report.h"
#include "reproduce.h"
#include "validate.h"
#include "scenario.h"
#include "sweep.h"
#include "run.h"
#include "sweep_cmd.h"

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

/* ---- options: one table, which also prints --help ------------------------ */

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
     "scenarios or variants to predict (mmsim list), or scenario files; FILE.scn:VARIANT or NAME:VARIANT for "
     "one variant of it; with two curves, also the second's gain over the first"},
    {"machine", O_STR, OFF(machine), "NAME|FILE", "generic; validate: local",
     "hardware profile (calibrate: use it instead of measuring this machine)"},
    {"kernel", O_STR, OFF(kernel), "NAME|FILE[,...]", "each variant's own (linux-VERSION)",
     "kernel profile; A,B: every curve under each (labelled VARIANT@KERNEL), and with two curves the gain"},
    {"tasks", O_STR, OFF(tasks), "LIST", "1,2,4,...,N and the topology boundaries", "task counts, e.g. 1,64,128,256"},
    {"mode", O_STR, OFF(mode), "threads|processes|both", "the scenario's", "tasks share one mm, or not"},
    {"placement", O_STR, OFF(placement), "wis|spread", "the scenario's (wis unless it says 'placement')",
     "run, explain, compare: tasks pinned as will-it-scale pins them (wis), or unpinned, where the Linux "
     "scheduler's balancing leaves them (spread)"},
    {"ops-per-task", O_LL, OFF(ops_per_task), "K", "0 (throughput)",
     "fixed work: K operations per task; report the makespan"},
    {"format", O_STR, OFF(format), "table|csv|json", "table",
     "csv is will-it-scale's exact format, one scenario per CSV (sweep: one CSV per curve)"},
    {"plot", O_STR, OFF(plot), "FILE.png|FILE.svg", NULL,
     "draw the curves with gnuplot (reproduce published: a directory, one PNG per curve; sweep, merge: a directory, "
     "one PNG per run)"},
    {"sensitivity", O_FLAG, OFF(sensitivity), NULL, NULL,
     "at the largest task count, each unmeasured number at 0.5x and 2x, and both arbitration policies"},
    {"no-sensitivity", O_FLAG, OFF(no_sensitivity), NULL, NULL,
     "reproduce seeds: leave out its sensitivity section, nearly all of its time"},
    {"seed", O_ULL, OFF(seed), "S", "1", "seed of the compute-time jitter"},
    {"seeds", O_INT, OFF(seeds), "N", "1",
     "run: every point under seeds S..S+N-1 too (at most 64), with the spread of each result (and of the gain of "
     "two curves); reproduce published: each prediction the mean over those seeds"},
    {"events", O_LL, OFF(events), "E", "200000 + 2000 per task",
     "events simulated in each point's measurement window (longer: less noise)"},
    {"measured", O_STR, OFF(measured), "FILE", NULL,
     "compare: a will-it-scale CSV (runtest.py's or validate/'s) to hold the prediction against"},
    {"fit-tasks", O_STR, OFF(fit_tasks), "LIST", "none (compare), 1 (calibrate)",
     "compare: measured task counts a profile number was fitted to (shown as fitted, not as errors); "
     "calibrate: the task counts to fit to"},
    {"duration", O_STR, OFF(duration), "S", "5", "validate: seconds each benchmark point is measured"},
    {"warmup", O_STR, OFF(warmup), "S", "1", "validate: seconds of warm-up before each point, discarded"},
    {"fs", O_STR, OFF(fs), "tmpfs|here|PATH", "$TMPDIR, else the variant's backing: /tmp for _ext4, /dev/shm",
     "validate: where a file benchmark (page_fault2-4, mmap2) puts its files: /dev/shm, the current directory, "
     "or PATH"},
    {"out", O_STR, OFF(out), "DIR", "validate-out; sweep --job: stdout; --emit-jobs: sweep-out",
     "validate: where the measured CSV and the plot go; sweep --job K: writes DIR/K.json"},
    {"emit-jobs", O_FLAG, OFF(emit_jobs), NULL, NULL,
     "sweep: print one command line per point, each running it alone (--job K --out DIR), for GNU parallel "
     "or a Slurm array"},
    {"job", O_STR, OFF(job), "K", NULL, "sweep: run point K (0 to N-1) alone and write its result as JSON"},
    {"sweep", O_STR, OFF(sweep), "FILE", "the sweep text in the first point's JSON",
     "merge: the sweep file every point must come from"},
    {"out-machine", O_STR, OFF(out_machine), "FILE", NULL, "calibrate: write the measured hardware profile"},
    {"out-kernel", O_STR, OFF(out_kernel), "FILE", NULL, "calibrate: write the fitted kernel profile"},
    {"measured-dir", O_STR, OFF(measured_dir), "DIR", "run the benchmarks now",
     "calibrate: take the harness's CSVs from DIR (e.g. data/measured) instead of running them; several "
     "CSVs of one benchmark are invocations, averaged point by point; reproduce published: DIR's curves.csv "
     "and points.csv instead of the built-in suite"},
    {"quick", O_FLAG, OFF(quick), NULL, NULL,
     "calibrate: mmsim-measure --quick, short runs and a short fit (a smoke test)"},
    {"carry", O_FLAG, OFF(carry), NULL, NULL,
     "calibrate: also scale the kernel path costs it does not fit (the base profile's assumed ones) by the "
     "fitted costs' median ratio to their assumed values, a what-if (calibrate/README.md)"},
    {"no-fit", O_FLAG, OFF(no_fit), NULL, NULL,
     "calibrate: the measured points as a fit would take them (invocations averaged, with their sigmas), "
     "nothing fitted or written"},
    {"no-fault-read-point", O_FLAG, OFF(no_fault_read_point), NULL, NULL,
     "calibrate: do not fit to mmsim-measure's fault_read (an anonymous read fault, per page), which takes "
     "out of the trap what page_fault1 alone leaves in it; a what-if: the trap then holds page_fault1's "
     "unmodelled work and seed 003's anonymous Read cells come out too slow (calibrate/README.md)"},
    {"band", O_FLAG, OFF(band), NULL, NULL,
     "the range of each point with every [fitted] cost at the ends of its 1-sigma range (mmsim calibrate's)"},
    {"max-work", O_DBL, OFF(max_work), "W", "1e11, tens of minutes of one core",
     "refuse a run whose estimated work (steps interpreted and events, all points) exceeds W"},
    {"force", O_FLAG, OFF(force), NULL, NULL,
     "replace existing results (--plot, validate's CSV and plot, calibrate's profiles, sweep --job's point file)"},
    {"accept-disturbed", O_FLAG, OFF(accept_disturbed), NULL, NULL,
     "calibrate: write the profiles even when the machine was disturbed or a fit hit its bound (marked so)"},
    {"layout-what-if", O_STR, OFF(layout_whatif), "FIELD=own-line|LINE[,...]", NULL,
     "every curve again under its kernel profile with these [layout] lines (labelled VARIANT@layout): a "
     "field moved to a line of its own, or onto LINE; with one curve, the gain table of the move"},
    {"relieve", O_STR, OFF(relieve), "KIND:NAME[=F]", NULL,
     "run, explain: a what-if on one resource, every point: line:NAME (its transfers cost F times as much), "
     "hold:LOCK (what a spinlock holder or writer does while it holds LOCK), read:LOCK (what a reader does while it "
     "holds it), wake:LOCK (the wake-up of a task asleep on LOCK); "
     "F in (0,1], default 0.5"},
    {"no-verify", O_FLAG, OFF(no_verify), NULL, NULL,
     "explain: name the limiter from the busy and asleep shares alone, without relieving each candidate in a "
     "side run"},
    {"locks", O_FLAG, OFF(locks), NULL, NULL,
     "explain: per lock, as perf lock contention prints it: acquisitions, contended, total and longest "
     "wait, spin or sleep, a histogram of the waits"},
    {"c2c", O_FLAG, OFF(c2c), NULL, NULL,
     "explain: per contended cache line, as perf c2c shows it: its fields, the steps touching each, the "
     "transfers by distance, false sharing"},
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
    {"c2c", "one variant at one task count: each contended cache line's fields, who touches them, its "
	    "transfers by distance and false sharing, as perf c2c shows them (explain --c2c)"},
    {"compare", "hold a prediction against a measured will-it-scale CSV (--measured FILE)"},
    {"reproduce", "'mmsim reproduce seeds|published': the seeds' numbers, or the published curves of machines "
		  "we do not own, beside mmsim's predictions"},
    {"validate", "run the real benchmark here (validate/wis_*), compare, and check its event counts"},
    {"calibrate", "measure this machine, run the harness, fit the kernel path costs, write profiles"},
    {"sweep", "'mmsim sweep FILE': every run of a sweep file (machines x kernels x seeds), here or one point at a "
	      "time (--emit-jobs, --job K)"},
    {"merge", "'mmsim merge DIR|FILE.json...': the points' JSON files into what mmsim sweep FILE prints"},
    {"layout", "'mmsim layout STRUCT...': the kernel's structure layout from its BTF, fields by cache line; a "
	       "kernel profile's [layout] from it (--emit-profile); two kernels compared (--diff A B); mmsim "
	       "layout --help"},
};

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: mmsim [run] --scenario A[,B...] [options]\n       mmsim list\n"
	    "       mmsim show [--machine NAME|FILE] [--kernel NAME|FILE]\n"
	    "       mmsim explain --scenario VARIANT --tasks N [--locks] [--c2c] [--no-verify] [--relieve KIND:NAME]\n"
	    "       mmsim c2c --scenario VARIANT --tasks N\n"
	    "       mmsim compare --measured FILE --scenario A [--machine M] [--fit-tasks LIST]\n"
	    "       mmsim reproduce seeds [--format table|csv] [--no-sensitivity]\n"
	    "       mmsim reproduce published [--format table|csv] [--plot DIR] [--measured-dir DIR] [--seeds N]\n"
	    "       mmsim validate --scenario VARIANT --tasks LIST [--machine M, default local]\n"
	    "       mmsim calibrate [--out-machine FILE] [--out-kernel FILE] [--fit-tasks LIST] "
	    "[--measured-dir DIR] [--no-fit]\n"
	    "       mmsim sweep FILE [--format table|csv|json] [--plot DIR] [--emit-jobs [--out DIR] | --job K "
	    "[--out DIR]]\n"
	    "       mmsim merge [--sweep FILE] [--format table|csv|json] [--plot DIR] DIR|FILE.json...\n"
	    "       mmsim layout [--btf FILE] STRUCT... | --emit-profile [--base K] [-o FILE] | --diff A B\n\n");
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

/*
 * @only: NULL, or the options the command takes (" name name ... "), named by @cmd when another
 * is given; up to @maxpos arguments that are not options go to @pos.
 */
static int parse_opts(int argc, char **argv, struct opts *o, const char *cmd, const char *only, const char **pos,
		      int *npos, int maxpos)
{
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *val = NULL, *eq;
		char name[64];
		const struct opt_def *d = NULL;
		long long n;
		size_t len;
		int rc;

		if (strncmp(a, "--", 2) && *npos < maxpos) {
			pos[(*npos)++] = a;
			continue;
		}
		if (strncmp(a, "--", 2))
			return die(2, "unexpected argument '%s' (options start with --; see mmsim --help)", a);
		eq = strchr(a, '=');
		len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
		if (len >= sizeof(name)) /* longer than any option: named whole, not cut */
			return die(2, "unknown option '--%.*s' (see mmsim --help)", (int)len, a + 2);
		snprintf(name, sizeof(name), "%.*s", (int)len, a + 2);
		for (int k = 0; k < NOPTS; k++)
			if (!strcmp(opt_table[k].name, name))
				d = &opt_table[k];
		if (!d)
			return die(2, "unknown option '--%s' (see mmsim --help)", name);
		if (only) {
			char w[70];

			snprintf(w, sizeof(w), " %s ", name);
			if (!strstr(only, w)) {
				char list[512] = "", *save, *tok, *copy = strdup(only);
				size_t n = 0;

				for (tok = copy ? strtok_r(copy, " ", &save) : NULL; tok;
				     tok = strtok_r(NULL, " ", &save))
					n += (size_t)snprintf(list + n, n < sizeof(list) ? sizeof(list) - n : 0,
							      "%s--%s", n ? ", " : "", tok);
				free(copy);
				return die(2, "mmsim %s takes no --%s (its options: %s)", cmd, name, list);
			}
		}
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
	/* run's spread and reproduce published's mean: one bound for every command that takes it */
	if (o->seeds > 64)
		return die(2, "--seeds %d is out of range (expected 1 to 64)", o->seeds);
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
	struct profile p, kp;
	struct hw_profile hw;
	struct kernel_profile k;

	/* everything checked before anything is printed: a refused profile shows nothing */
	if (profile_load(&p, "machines", o->machine, &err))
		return die(1, "%s", err.msg);
	if (hw_profile_derive(&hw, &p, &err)) {
		profile_free(&p);
		return die(1, "%s", err.msg);
	}
	/* no scenario given: every [layout], [costs], [batch] and [misses] key must be one that a
	 * built-in scenario names */
	if (o->kernel && (profile_load(&kp, "kernels", o->kernel, &err) ||
			  ((kernel_profile_derive(&k, &kp, &err) || lock_check_kernel(&k, &err) ||
			    scenario_check_kernel_names(&k, NULL, 0, &err)) &&
			   (profile_free(&kp), 1)))) {
		profile_free(&p);
		return die(1, "%s", err.msg);
	}
	show_profile(&p);
	profile_free(&p);
	if (o->kernel) {
		printf("\n");
		show_profile(&kp);
		show_lock_keys(&k);
		profile_free(&kp);
	}
	return 0;
}

/* ---- run ---------------------------------------------------------------- */

/* The [fitted] costs with a 1-sigma range in kernel slot @ks (what --band varies). */
static int band_entries(const struct run *r, int ks)
{
	int n = 0;
	double lo, hi;

	for (int e = 0; e < r->ks[ks].prof.nentries; e++)
		n += !calib_fitted_range(&r->ks[ks].prof.e[e], &lo, &hi);
	return n;
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
		int rc = run_sens_check(r, err);

		if (rc)
			return rc;
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
			for (int p = 0; p < r->npts + run_extra_point(r, c); p++) {
				struct sim_config cfg = run_point_config(r, &r->m.hw, r->kern[c], &r->prog[c], m,
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
	{
		/* the file's filesystem, as the benchmark saw it: does it cache it as the variant models? */
		char fs[64];

		if (!r->o.from_validate && !validate_csv_backing(r->o.measured, fs, sizeof(fs))) {
			printf("\ncompare: the measured benchmark put its files on %s\n", fs);
			validate_backing_note(stdout, r->curve[0].variant, fs);
		}
		if (!r->o.from_validate)
			validate_run_notes(stdout, r->o.measured);
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
				cfg[n] = run_point_config(r, &r->m.hw, r->kern[c], &r->prog[c], m, r->tasks[p]);
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

/*
 * explain --verify: each candidate's side run, relieved (the same seed, so that the jitter draws
 * start alike), and the unrelieved point under the next seed, whose move is the noise.  The side
 * runs are independent simulations, run side by side.
 */
static int verify_candidates(const struct sim_config *cfg, const struct sim_result *base, struct explain_cand *c, int n,
			     double *noise, struct mm_error *err)
{
	struct sim_result *res = calloc((size_t)n + 1, sizeof(*res));
	struct mm_error *errs = calloc((size_t)n + 1, sizeof(*errs));
	int *rcs = calloc((size_t)n + 1, sizeof(int)), rc = 0;
	double r0 = explain_rate(cfg, base);

	if (!res || !errs || !rcs) {
		free(res);
		free(errs);
		free(rcs);
		return mm_fail(err, MM_ENOMEM, "out of memory");
	}
	fprintf(stderr, "mmsim: verifying the limiter: %d side runs\n", n + 1);
#pragma omp parallel for schedule(dynamic, 1)
	for (int i = 0; i <= n; i++) {
		struct sim_config side = *cfg;

		side.steps = NULL;
		side.tick = NULL;
		if (i < n)
			side.relief = &c[i].relief;
		else
			side.seed = cfg->seed + 1;
		rcs[i] = sim_run(&side, &res[i], &errs[i]);
	}
	for (int i = 0; i <= n && !rc; i++)
		if (rcs[i])
			rc = mm_fail(err, rcs[i], "%s", errs[i].msg);
	for (int i = 0; i < n && !rc; i++)
		c[i].gain = r0 > 0 ? explain_rate(cfg, &res[i]) / r0 - 1 : 0;
	*noise = !rc && r0 > 0 ? fabs(explain_rate(cfg, &res[n]) / r0 - 1) : 0;
	free(res);
	free(errs);
	free(rcs);
	return rc;
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
	cfg = run_point_config(r, &r->m.hw, r->kern[0], &r->prog[0], m, r->tasks[0]);
	cfg.steps = steps;
	rc = sim_run(&cfg, &res, err);
	if (!rc) {
		struct explain_cand cand[EXPLAIN_MAX_CANDS];
		struct explain_ctx x = {
		    .label = r->curve[0].label, .machine = r->m.hw.name, .cfg = &cfg, .res = &res, .steps = steps};

		if (!r->o.no_verify && !r->relief.kind && !r->o.c2c_only) {
			x.ncand = explain_candidates(&x, cand, EXPLAIN_MAX_CANDS);
			x.cand = cand;
			if (x.ncand && (rc = verify_candidates(&cfg, &res, cand, x.ncand, &x.noise, err)))
				x.ncand = 0;
		}
		if (!rc && !r->o.c2c_only)
			explain_print(stdout, r->o.format, &x);
		if (!rc && r->o.locks)
			explain_locks(stdout, r->o.format, &x);
		if (!rc && (r->o.c2c || r->o.c2c_only))
			explain_c2c(stdout, r->o.format, &x);
	}
	free(steps);
	return rc;
}

/* --relieve KIND:NAME[=F] */
static int parse_relief(const char *arg, struct sim_relief *rl, struct mm_error *err)
{
	static const struct {
		const char *kind;
		enum sim_relief_kind k;
	} kinds[] = {{"line", SIM_RELIEVE_LINE},
		     {"hold", SIM_RELIEVE_HOLD},
		     {"read", SIM_RELIEVE_READ},
		     {"wake", SIM_RELIEVE_WAKE}};
	const char *colon = strchr(arg, ':'), *eq;
	char *end;
	size_t len;

	memset(rl, 0, sizeof(*rl));
	for (size_t i = 0; colon && i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if ((size_t)(colon - arg) == strlen(kinds[i].kind) && !strncmp(arg, kinds[i].kind, colon - arg))
			rl->kind = kinds[i].k;
	if (!rl->kind)
		return mm_fail(
		    err, MM_EINVAL,
		    "--relieve %s: expected line:NAME, hold:LOCK, read:LOCK or wake:LOCK, optionally =F (e.g. "
		    "line:mm.line1=0.5)",
		    arg);
	eq = strchr(colon, '=');
	len = eq ? (size_t)(eq - colon - 1) : strlen(colon + 1);
	if (!len || len >= sizeof(rl->name))
		return mm_fail(err, MM_EINVAL, "--relieve %s: expected a %s name after '%.*s'", arg,
			       rl->kind == SIM_RELIEVE_LINE ? "cache line" : "lock", (int)(colon - arg + 1), arg);
	memcpy(rl->name, colon + 1, len);
	rl->factor = EXPLAIN_RELIEF;
	if (eq) {
		errno = 0;
		rl->factor = strtod(eq + 1, &end);
		if (errno || end == eq + 1 || *end || !(rl->factor > 0 && rl->factor <= 1))
			return mm_fail(err, MM_ERANGE,
				       "--relieve %s: factor '%s': expected a number above 0, at most 1", arg, eq + 1);
	}
	return 0;
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
	if (o->seeds > 1 && compare) {
		free(r);
		return die(2, "--seeds is for curves (mmsim run), not for %s", compare == 2 ? "explain" : "compare");
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
	if (o->layout_whatif && (compare || (o->kernel && strchr(o->kernel, ',')))) {
		free(r);
		return die(2, "--layout-what-if is for a run (mmsim --scenario ...)%s",
			   compare ? "" : ", under one kernel profile (not --kernel A,B)");
	}
	if (compare && o->kernel && strchr(o->kernel, ',')) {
		free(r);
		return die(2, "--kernel %s: several kernel profiles are for a run (mmsim --scenario ...), not %s",
			   o->kernel, compare == 2 ? "explain" : "compare");
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
	if (o->relieve && (compare == 1 || parse_relief(o->relieve, &r->relief, &err))) {
		free(r);
		return compare == 1 ? die(2, "--relieve is for a run or explain, not compare") : die(2, "%s", err.msg);
	}
	if (compare != 2 && (o->no_verify || o->locks || o->c2c)) {
		free(r);
		return die(2, "--%s is for mmsim explain", o->no_verify ? "no-verify" : o->locks ? "locks" : "c2c");
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
		if ((rc = run_add_peer(r, tok, &err)))
			goto fail;
	{
		/* --kernel A,B: every curve under each profile, the first profile's curves first; else
		 * one pass, each curve under --kernel or its variant's own */
		char *kbuf = o->kernel && strchr(o->kernel, ',') ? strdup(o->kernel) : NULL, *ksave, *kern;

		if (o->kernel && strchr(o->kernel, ',') && !kbuf) {
			rc = mm_fail(&err, MM_ENOMEM, "out of memory");
			goto fail;
		}
		kern = kbuf ? strtok_r(kbuf, ",", &ksave) : NULL;
		do {
			snprintf(buf, strlen(o->scenario) + 1, "%s", o->scenario); /* strtok_r cut it */
			for (tok = strtok_r(buf, ",", &save); tok && !rc; tok = strtok_r(NULL, ",", &save))
				rc = run_add_curve_kernel(r, tok, kern, &err);
		} while (!rc && kern && (kern = strtok_r(NULL, ",", &ksave)));
		free(kbuf);
		/* --layout-what-if: the same curves again, each under its kernel with the lines moved */
		if (!rc && o->layout_whatif) {
			r->whatif_pass = 1;
			snprintf(buf, strlen(o->scenario) + 1, "%s", o->scenario);
			for (tok = strtok_r(buf, ",", &save); tok && !rc; tok = strtok_r(NULL, ",", &save))
				rc = run_add_curve_kernel(r, tok, NULL, &err);
			r->whatif_pass = 0;
		}
		if (rc)
			goto fail;
	}
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
		rc = run_task_list(r, ncpus, &err);
		r->o.tasks = NULL;
		if (rc)
			goto fail;
		if (r->npts != ms.n) {
			rc = mm_fail(&err, MM_EPARSE, "%s: task counts must be distinct", o->measured);
			goto fail;
		}
		/* every mode compared, each point with its mode (the plot draws one symbol per mode) */
		r->curve[0].nmeas = 0;
		for (int m = 0; m < 2; m++)
			for (int p = 0; r->modes[m] && p < ms.n; p++) {
				int k = r->curve[0].nmeas;

				if (!(ms.ops[m][p] > 0))
					continue;
				r->curve[0].meas_tasks[k] = ms.tasks[p];
				r->curve[0].meas_ops[k] = ms.ops[m][p];
				r->curve[0].meas_mode[k] = m == SC_THREADS ? MEAS_THREADS : MEAS_PROCESSES;
				r->curve[0].nmeas++;
			}
	} else if ((rc = run_task_list(r, ncpus, &err))) {
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
		int checked, mismatches;

		if ((rc = print_comparison(r, &ms, &err)))
			goto fail;
		/* a CSV of validate/'s with per-op tracepoint counts: the count check too (validate
		 * prints it itself, after this) */
		if (!o->from_validate && (rc = validate_counts_of_csv(stdout, o->scenario, o->kernel, o->machine,
								      o->measured, &checked, &mismatches, &err)))
			goto fail;
	} else if (!strcmp(o->format, "csv"))
		report_csv(stdout, &r->curve[0]);
	else if (!strcmp(o->format, "json"))
		report_json(stdout, &ctx, r->curve, r->ncurves);
	else {
		char topo[1024];
		struct report_ctx tctx = ctx;

		tctx.topology = run_placement_note(r, topo, sizeof(topo));
		report_table(stdout, &tctx, r->curve, r->ncurves);
	}
	if (o->sensitivity && (rc = run_sensitivity(r, &err)))
		goto fail;
	rc = 0;
fail:
	if (rc)
		die(1, "%s", err.msg[0] ? err.msg : mm_strerror(rc));
	free(buf);
	free(jobs);
	run_free(r);
	return rc ? 1 : 0;
}

static int cmd_reproduce(const struct opts *o, const char *what)
{
	struct mm_error err = {0};
	struct reproduce_opts ro = {.seed = o->seed,
				    .seeds = o->seeds,
				    .events = o->events,
				    .csv = !strcmp(o->format, "csv"),
				    .sensitivity = !o->no_sensitivity,
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
			       "--format, --plot DIR, --measured-dir DIR, --events, --seed, --seeds, --max-work and "
			       "--force");
		ro.plot_dir = o->plot;
		ro.published_dir = o->measured_dir;
		ro.force = o->force;
		if (reproduce_published(&ro, &err))
			return die(1, "%s", err.msg[0] ? err.msg : mm_strerror(err.code));
		return 0;
	}
	if (o->scenario || strcmp(o->machine, "generic") || o->kernel || o->tasks || o->mode || o->cores ||
	    o->ops_per_task || o->plot || o->measured || o->fit_tasks || o->measured_dir || o->placement ||
	    o->seeds > 1)
		return die(2, "reproduce seeds chooses its own scenarios, machines and task counts; it takes only "
			      "--format, --events, --seed and --no-sensitivity");
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
				   .fs = o->fs,
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
	c.from_validate = 1;
	c.plot = vr->png;
	c.mode = vr->mode;
	c.tasks = NULL;
	rc = cmd_run(&c, cmdline, 1);
	if (!rc && (rc = validate_print_counts(stdout, &req, vr, &mismatches, &err)))
		rc = die(1, "%s", err.msg);
	/* the measurement is whole and stays: say so, not only what failed after it */
	if (rc)
		fprintf(stderr, "mmsim: the measured result %s is kept (mmsim compare --measured %s redoes the rest)\n",
			vr->csv, vr->csv);
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
				.accept_disturbed = o->accept_disturbed,
				.carry = o->carry,
				.no_fault_read_point = o->no_fault_read_point,
				.no_fit = o->no_fit};

	if (calibrate_run(&co, &err))
		return die(1, "%s", err.msg[0] ? err.msg : "calibrate failed");
	return 0;
}

/* mmsim sweep and merge: their file arguments, and an error message from them. */
static int cmd_sweep(const char *cmd, const struct opts *o, const char **pos, int npos, const char *argv0)
{
	struct mm_error err = {0};
	int rc;

	if (!strcmp(cmd, "sweep")) {
		if (npos != 1)
			return die(2, "sweep: expected 'mmsim sweep FILE' (a sweep file: see the README, 'Sweeps')");
		rc = sweep_cmd(o, pos[0], argv0, &err);
	} else {
		rc = merge_cmd(o, pos, npos, &err);
	}
	if (rc)
		return die(rc == MM_EINVAL ? 2 : 1, "%s", err.msg[0] ? err.msg : mm_strerror(rc));
	return 0;
}

static int run_command(const char *cmd, struct opts *o, const char *reproduce_what, const char *cmdline,
		       const char **pos, int npos, const char *argv0)
{
	if (o->help) {
		usage(stdout);
		return 0;
	}
	if (o->version) {
		printf("mmsim %s\n", MMSIM_VERSION);
		return 0;
	}
	if (o->no_fit && strcmp(cmd, "calibrate"))
		return die(2, "--no-fit is for mmsim calibrate");
	if (o->no_sensitivity && (strcmp(cmd, "reproduce") || !reproduce_what || strcmp(reproduce_what, "seeds")))
		return die(2, "--no-sensitivity is for mmsim reproduce seeds (elsewhere the sensitivity is shown only "
			      "with --sensitivity)");
	if (!strcmp(cmd, "sweep") || !strcmp(cmd, "merge"))
		return cmd_sweep(cmd, o, pos, npos, argv0);
	if (o->emit_jobs || o->job || o->sweep)
		return die(2, "--%s is for mmsim sweep FILE%s",
			   o->sweep ? "sweep"
			   : o->job ? "job"
				    : "emit-jobs",
			   o->sweep ? " and mmsim merge" : "");
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
	if (!strcmp(cmd, "c2c")) {
		o->c2c_only = 1;
		return cmd_run(o, cmdline, 2);
	}
	if (!strcmp(cmd, "reproduce"))
		return cmd_reproduce(o, reproduce_what);
	if (!strcmp(cmd, "validate"))
		return cmd_validate(o, cmdline);
	if (!strcmp(cmd, "calibrate"))
		return cmd_calibrate(o, cmdline);
	{
		/* the list from the table of commands, as --help prints it */
		char list[256] = "";
		size_t n = 0, nc = sizeof(commands) / sizeof(commands[0]);

		for (size_t i = 0; i < nc && n < sizeof(list); i++)
			n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s", i ? i == nc - 1 ? " or " : ", " : "",
					      commands[i].name);
		return die(2, "unknown command '%s' (expected %s; see mmsim --help)", cmd, list);
	}
}

int main(int argc, char **argv)
{
	struct opts o = {.machine = "generic", .format = "table", .seed = 1, .max_work = SIM_MAX_WORK};
	char *cmdline;
	size_t len = sizeof("mmsim");
	const char *cmd = "run", *reproduce_what = NULL, *only = NULL, **pos;
	int first = 1, rc, npos = 0, maxpos = 0;

	gsl_set_error_handler_off();
	cleanup_install();
	if (argc > 1 && !strcmp(argv[1], "layout"))
		return cmd_layout(argc - 2, argv + 2); /* its own options: mmsim layout --help */
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
	if (!strcmp(cmd, "sweep")) { /* FILE, and what the sweep file does not say */
		only = " format plot out job emit-jobs max-work force help version ";
		maxpos = 1;
	} else if (!strcmp(cmd, "merge")) { /* the points' files */
		only = " format plot force sweep help version ";
		maxpos = argc;
	}
	if (!(pos = calloc((size_t)argc + 1, sizeof(*pos))))
		return die(1, "out of memory");
	if ((rc = parse_opts(argc - first, argv + first, &o, cmd, only, pos, &npos, maxpos))) {
		free(pos);
		return rc;
	}
	/* the command line, whole, for the metadata of what mmsim writes */
	for (int i = 1; i < argc; i++)
		len += strlen(argv[i]) + 1;
	if (!(cmdline = malloc(len))) {
		free(pos);
		return die(1, "out of memory");
	}
	strcpy(cmdline, "mmsim");
	for (int i = 1; i < argc; i++)
		strcat(strcat(cmdline, " "), argv[i]);
	rc = run_command(cmd, &o, reproduce_what, cmdline, pos, npos, argv[0]);
	free(cmdline);
	free(pos);
	return rc;
}
