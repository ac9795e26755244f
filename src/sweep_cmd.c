/* SPDX-License-Identifier: MIT */
/*
 * mmsim sweep FILE: every run of a sweep file here, together; --emit-jobs: one command line per
 * point; --job K: point K alone, as JSON; mmsim merge: those JSON files into the bytes mmsim
 * sweep FILE prints.  A sweep file:
 *
 *   # comment
 *   machine amd-2s-128c,icelake-48c   one run per machine x kernel x seed, in that order
 *   scenario pin_fast                 the others are mmsim's options of the same name
 *   seed 1-4
 *
 * The JSON of a point carries the sweep's canonical text and a hash of it and of every profile
 * and scenario it names (and mmsim's version), so merge needs nothing else and refuses the
 * points of another sweep.
 */
#include "sweep_cmd.h"
#include "cleanup.h"
#include "plot.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef MMSIM_VERSION
#define MMSIM_VERSION "0.0"
#endif

/* The format of a point's JSON; a change of it is a change of the hash too. */
#define SWEEP_JOB_FORMAT 1
/* items in one list of a sweep file (the task counts: REPORT_MAX_POINTS) */
#define SW_MAX_ITEMS 64
#define SW_MAX_BASES 256

/* ---- the sweep file ------------------------------------------------------------------------ */

enum sw_key {
	SK_MACHINE,
	SK_KERNEL,
	SK_SEED,
	SK_SCENARIO,
	SK_TASKS,
	SK_MODE,
	SK_PLACEMENT,
	SK_CORES,
	SK_EVENTS,
	SK_OPS,
	SK_SEEDS,
	SK_SENSITIVITY,
	SK_N
};

enum sw_kind { SV_LIST, SV_ONE, SV_FLAG };

static const struct sw_keydef {
	const char *name;
	enum sw_kind kind;
	const char *arg; /* what a value is, for messages */
} sw_keys[SK_N] = {
    [SK_MACHINE] = {"machine", SV_LIST, "NAME|FILE[,...]"},
    [SK_KERNEL] = {"kernel", SV_LIST, "NAME|FILE[,...]"},
    [SK_SEED] = {"seed", SV_LIST, "S[,S...], each a seed or a range A-B"},
    [SK_SCENARIO] = {"scenario", SV_LIST, "A[,B...]"},
    [SK_TASKS] = {"tasks", SV_LIST, "N[,N...]"},
    [SK_MODE] = {"mode", SV_ONE, "threads|processes|both"},
    [SK_PLACEMENT] = {"placement", SV_ONE, "wis|spread"},
    [SK_CORES] = {"cores", SV_ONE, "N"},
    [SK_EVENTS] = {"events", SV_ONE, "E"},
    [SK_OPS] = {"ops-per-task", SV_ONE, "K"},
    [SK_SEEDS] = {"seeds", SV_ONE, "N"},
    [SK_SENSITIVITY] = {"sensitivity", SV_FLAG, NULL},
};

struct sw_val {
	char text[512];
	int col;
};

struct sw_entry {
	int line, col; /* of the key; line 0: not given */
	int n;
	struct sw_val *v;
};

struct sw_spec {
	char origin[600];
	struct sw_entry e[SK_N];
	int nseed;
	unsigned long long *seed;
	int *seed_item;	     /* the item each seed comes from */
	long long num[SK_N]; /* cores, events, ops-per-task, seeds */
	char tasks[REPORT_MAX_POINTS * 8];
};

static void sw_spec_free(struct sw_spec *s)
{
	for (int k = 0; k < SK_N; k++)
		free(s->e[k].v);
	free(s->seed);
	free(s->seed_item);
	memset(s, 0, sizeof(*s));
}

static int sw_fail_at(const struct sw_spec *s, int line, int col, struct mm_error *err, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static int sw_fail_at(const struct sw_spec *s, int line, int col, struct mm_error *err, const char *fmt, ...)
{
	char msg[900];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return mm_fail(err, MM_EPARSE, "%s:%d:%d: %s", s->origin, line, col, msg);
}

/* A whole number of digits from @lo to @hi. */
static int sw_digits(const char *t, long long lo, long long hi, long long *out)
{
	char *end;

	if (!*t || strspn(t, "0123456789") != strlen(t))
		return -1;
	errno = 0;
	*out = strtoll(t, &end, 10);
	return errno || *end || *out < lo || *out > hi ? -1 : 0;
}

/* Split the value of one line into items at commas; the blanks around each go. */
static int sw_items(struct sw_spec *s, struct sw_entry *e, const struct sw_keydef *d, const char *line, const char *val,
		    struct mm_error *err)
{
	const char *p = val;

	for (;;) {
		const char *end = strchr(p, ','), *a = p, *b;
		struct sw_val *v;

		if (!end)
			end = p + strlen(p);
		while (a < end && (*a == ' ' || *a == '\t'))
			a++;
		b = end;
		while (b > a && (b[-1] == ' ' || b[-1] == '\t'))
			b--;
		if (a == b)
			return sw_fail_at(s, e->line, (int)(a - line) + 1, err, "empty item (expected %s '%s')",
					  d->name, d->arg);
		if (strcspn(a, " \t") < (size_t)(b - a))
			return sw_fail_at(s, e->line, (int)(a - line) + 1, err,
					  "'%.*s': one value per item, the items separated by commas (expected %s %s)",
					  (int)(b - a > 80 ? 80 : b - a), a, d->name, d->arg);
		if (b - a >= (long)sizeof(v->text))
			return sw_fail_at(s, e->line, (int)(a - line) + 1, err, "an item of %d bytes (at most %zu)",
					  (int)(b - a), sizeof(v->text) - 1);
		if (d->kind == SV_ONE && e->n == 1)
			return sw_fail_at(s, e->line, (int)(p - line), err, "'%s' takes one value (%s)", d->name,
					  d->arg);
		if (e->n == (!strcmp(d->name, "tasks") ? REPORT_MAX_POINTS : SW_MAX_ITEMS))
			return sw_fail_at(s, e->line, (int)(a - line) + 1, err, "more than %d items in '%s'", e->n,
					  d->name);
		v = realloc(e->v, (size_t)(e->n + 1) * sizeof(*v));
		if (!v)
			return mm_fail(err, MM_ENOMEM, "out of memory");
		e->v = v;
		snprintf(v[e->n].text, sizeof(v[e->n].text), "%.*s", (int)(b - a), a);
		v[e->n++].col = (int)(a - line) + 1;
		if (!*end)
			return 0;
		p = end + 1;
	}
}

struct seed_at {
	unsigned long long seed;
	int at;
};

static int cmp_seed_at(const void *a, const void *b)
{
	const struct seed_at *x = a, *y = b;

	if (x->seed != y->seed)
		return x->seed < y->seed ? -1 : 1;
	return x->at - y->at;
}

/* Each item of 'seed': S, or A-B (every seed from A to B); none twice. */
static int sw_seeds(struct sw_spec *s, struct mm_error *err)
{
	const struct sw_entry *e = &s->e[SK_SEED];
	int n = 0;

	if (!e->line) {
		s->seed = calloc(1, sizeof(*s->seed));
		s->seed_item = calloc(1, sizeof(int));
		if (!s->seed || !s->seed_item)
			return mm_fail(err, MM_ENOMEM, "out of memory");
		s->seed[0] = 1;
		s->seed_item[0] = -1;
		s->nseed = 1;
		return 0;
	}
	for (int i = 0; i < e->n; i++) {
		char a[512], *dash;
		long long lo, hi;

		snprintf(a, sizeof(a), "%s", e->v[i].text);
		dash = strchr(a, '-');
		if (dash)
			*dash = 0;
		if (sw_digits(a, 0, LLONG_MAX, &lo) || (dash && sw_digits(dash + 1, 0, LLONG_MAX, &hi)))
			return sw_fail_at(s, e->line, e->v[i].col, err,
					  "'%s': expected a seed (0 to %lld) or a range of them, A-B", e->v[i].text,
					  LLONG_MAX);
		if (!dash)
			hi = lo;
		if (hi < lo)
			return sw_fail_at(s, e->line, e->v[i].col, err,
					  "'%s': a range from high to low (expected A-B, A <= B)", e->v[i].text);
		if (hi - lo >= SWEEP_MAX_POINTS - n)
			return sw_fail_at(s, e->line, e->v[i].col, err,
					  "'%s': more seeds than a sweep may have points (%d); each seed is a run",
					  e->v[i].text, SWEEP_MAX_POINTS);
		n += (int)(hi - lo + 1);
	}
	s->seed = calloc((size_t)n, sizeof(*s->seed));
	s->seed_item = calloc((size_t)n, sizeof(int));
	if (!s->seed || !s->seed_item)
		return mm_fail(err, MM_ENOMEM, "out of memory");
	for (int i = 0; i < e->n; i++) {
		long long lo = strtoll(e->v[i].text, NULL, 10), hi = lo;
		const char *dash = strchr(e->v[i].text, '-');

		if (dash)
			hi = strtoll(dash + 1, NULL, 10);
		for (long long v = lo; v <= hi; v++) {
			s->seed_item[s->nseed] = i;
			s->seed[s->nseed++] = (unsigned long long)v;
		}
	}
	/* a seed twice would be a run twice */
	{
		struct seed_at *v = calloc((size_t)n, sizeof(*v));
		int rc = 0;

		if (!v)
			return mm_fail(err, MM_ENOMEM, "out of memory");
		for (int i = 0; i < n; i++)
			v[i] = (struct seed_at){s->seed[i], i};
		qsort(v, (size_t)n, sizeof(*v), cmp_seed_at);
		for (int i = 1; i < n && !rc; i++)
			if (v[i].seed == v[i - 1].seed) {
				const struct sw_val *it = &e->v[s->seed_item[v[i].at]];

				rc = sw_fail_at(s, e->line, it->col, err,
						"seed %llu again ('%s'): each seed is one run", v[i].seed, it->text);
			}
		free(v);
		return rc;
	}
}

/* The values of one key, checked where they need nothing loaded. */
static int sw_check_values(struct sw_spec *s, int k, struct mm_error *err)
{
	const struct sw_entry *e = &s->e[k];
	static const long long hi[SK_N] = {
	    [SK_CORES] = MACHINE_MAX_CPUS, [SK_EVENTS] = 1LL << 40, [SK_OPS] = 1LL << 40, [SK_SEEDS] = 64};
	long long v;

	switch (k) {
	case SK_MACHINE:
	case SK_KERNEL:
		for (int i = 0; i < e->n; i++)
			for (int j = 0; j < i; j++)
				if (!strcmp(e->v[i].text, e->v[j].text))
					return sw_fail_at(s, e->line, e->v[i].col, err,
							  "'%s' again: each %s is one run of each seed", e->v[i].text,
							  sw_keys[k].name);
		return 0;
	case SK_TASKS: {
		size_t len = 0;

		for (int i = 0; i < e->n; i++) {
			if (sw_digits(e->v[i].text, 1, MACHINE_MAX_CPUS, &v))
				return sw_fail_at(s, e->line, e->v[i].col, err,
						  "'%s' is not a task count (expected 1 to %d)", e->v[i].text,
						  MACHINE_MAX_CPUS);
			len += (size_t)snprintf(s->tasks + len, sizeof(s->tasks) - len, "%s%lld", i ? "," : "", v);
		}
		return 0;
	}
	case SK_MODE:
		if (strcmp(e->v[0].text, "threads") && strcmp(e->v[0].text, "processes") &&
		    strcmp(e->v[0].text, "both"))
			return sw_fail_at(s, e->line, e->v[0].col, err,
					  "mode '%s': expected threads, processes or both", e->v[0].text);
		return 0;
	case SK_PLACEMENT:
		if (topo_placement_parse(e->v[0].text, &(enum topo_placement){0}))
			return sw_fail_at(s, e->line, e->v[0].col, err, "placement '%s': expected wis or spread",
					  e->v[0].text);
		return 0;
	case SK_CORES:
	case SK_EVENTS:
	case SK_OPS:
	case SK_SEEDS:
		if (sw_digits(e->v[0].text, 1, hi[k], &v))
			return sw_fail_at(s, e->line, e->v[0].col, err,
					  "%s '%s': expected a whole number from 1 to %lld", sw_keys[k].name,
					  e->v[0].text, hi[k]);
		s->num[k] = v;
		return 0;
	default:
		return 0;
	}
}

static int sw_parse(struct sw_spec *s, const char *origin, const char *text, struct mm_error *err)
{
	int lineno = 0, rc = 0;
	const char *p = text;

	memset(s, 0, sizeof(*s));
	snprintf(s->origin, sizeof(s->origin), "%s", origin);
	while (*p && !rc) {
		size_t len = strcspn(p, "\n");
		char line[4096], *hash, *key, *val;
		int k;
		struct sw_entry *e;

		lineno++;
		if (len >= sizeof(line)) {
			rc = sw_fail_at(s, lineno, 1, err, "a line of %zu bytes (at most %zu)", len, sizeof(line) - 1);
			break;
		}
		memcpy(line, p, len);
		line[len] = 0;
		p += len + (p[len] == '\n');
		if (len && line[len - 1] == '\r')
			line[len - 1] = 0;
		if ((hash = strchr(line, '#')))
			*hash = 0;
		key = line + strspn(line, " \t");
		if (!*key)
			continue;
		val = key + strcspn(key, " \t");
		{
			char name[64];

			snprintf(name, sizeof(name), "%.*s", (int)(val - key < 63 ? val - key : 63), key);
			for (k = 0; k < SK_N && strcmp(sw_keys[k].name, name); k++)
				;
			if (k == SK_N) {
				rc = sw_fail_at(
				    s, lineno, (int)(key - line) + 1, err,
				    "unknown key '%s' (expected machine, kernel, seed, scenario, tasks, mode, "
				    "placement, cores, events, ops-per-task, seeds or sensitivity)",
				    name);
				break;
			}
		}
		e = &s->e[k];
		if (e->line) {
			rc = sw_fail_at(s, lineno, (int)(key - line) + 1, err,
					"'%s' again (first at line %d; a list is one line: %s %s)", sw_keys[k].name,
					e->line, sw_keys[k].name, sw_keys[k].arg ? sw_keys[k].arg : "");
			break;
		}
		e->line = lineno;
		e->col = (int)(key - line) + 1;
		val += strspn(val, " \t");
		{
			char *end = val + strlen(val);

			while (end > val && (end[-1] == ' ' || end[-1] == '\t'))
				*--end = 0;
		}
		if (sw_keys[k].kind == SV_FLAG) {
			if (*val)
				rc = sw_fail_at(s, lineno, (int)(val - line) + 1, err, "'%s' takes no value",
						sw_keys[k].name);
			continue;
		}
		if (!*val) {
			rc = sw_fail_at(s, lineno, (int)(key - line) + 1 + (int)strlen(sw_keys[k].name), err,
					"expected a value after '%s' (%s)", sw_keys[k].name, sw_keys[k].arg);
			break;
		}
		if (!(rc = sw_items(s, e, &sw_keys[k], line, val, err)))
			rc = sw_check_values(s, k, err);
	}
	if (!rc && !s->e[SK_SCENARIO].line)
		rc = mm_fail(err, MM_EPARSE,
			     "%s:%d:1: no 'scenario' line (expected e.g. 'scenario has_pinned_write,has_pinned_check')",
			     origin, lineno ? lineno : 1);
	if (!rc)
		rc = sw_seeds(s, err);
	if (rc)
		sw_spec_free(s);
	return rc;
}

/* The sweep as one text, whatever its comments, blanks and order: what the hash and each point's
 * JSON hold, and what merge parses again. */
static char *sw_canonical(const struct sw_spec *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	for (int k = 0; k < SK_N; k++) {
		const struct sw_entry *e = &s->e[k];

		if (!e->line)
			continue;
		fputs(sw_keys[k].name, f);
		if (k == SK_SEED) /* runs of consecutive seeds as A-B: no more items than the file's */
			for (int i = 0, j; i < s->nseed; i = j + 1) {
				for (j = i; j + 1 < s->nseed && s->seed[j + 1] == s->seed[j] + 1; j++)
					;
				fprintf(f, "%c%llu", i ? ',' : ' ', s->seed[i]);
				if (j > i)
					fprintf(f, "-%llu", s->seed[j]);
			}
		else if (k == SK_TASKS)
			fprintf(f, " %s", s->tasks);
		else if (k == SK_CORES || k == SK_EVENTS || k == SK_OPS || k == SK_SEEDS)
			fprintf(f, " %lld", s->num[k]);
		else
			for (int i = 0; i < e->n; i++)
				fprintf(f, "%c%s", i ? ',' : ' ', e->v[i].text);
		fputc('\n', f);
	}
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* ---- the plan: runs and their points -------------------------------------------------------- */

/* One machine x kernel: an mmsim run, the curves and programs its seeds share. */
struct sw_base {
	struct run *r;
	int mi, ki; /* item of 'machine'; of 'kernel', -1: each variant's own */
	int ncurve_jobs, nseed_jobs;
	int nsens;
	struct sens_item *sens;
	int nsjobs; /* the sensitivity points: each arbitration policy once, every other item at 0.5x and 2x */
	int *sjob_item, *sjob_hi;
};

/* One base x seed: what 'mmsim run' with that machine, kernel and seed prints. */
struct sw_run {
	int base;
	unsigned long long seed;
	int first_point, npoints; /* in jobs[]: the curves' points, then --seeds' */
	int first_sens;		  /* after every run's points */
};

/* A sensitivity point's result: every curve at the largest task count. */
struct sw_sens {
	int rc;
	struct mm_error err;
	struct sim_result res[RUN_MAX_CURVES];
};

struct sw_plan {
	struct sw_spec spec;
	char *canon;
	char hash[17];
	double max_work;
	int nbases, nruns, njobs, npoint_jobs;
	struct sw_base *base;
	struct sw_run *run;
	struct sweep_job *jobs; /* npoint_jobs, when run or merged */
	struct sw_sens **sens;	/* njobs - npoint_jobs */
	const char **from;	/* merge: the file each point came from */
};

static void sw_plan_free(struct sw_plan *pl)
{
	for (int b = 0; b < pl->nbases; b++) {
		struct sw_base *bs = &pl->base[b];

		run_free(bs->r);
		free(bs->sens);
		free(bs->sjob_item);
		free(bs->sjob_hi);
	}
	if (pl->sens)
		for (int j = 0; j < pl->njobs - pl->npoint_jobs; j++)
			free(pl->sens[j]);
	free(pl->sens);
	free(pl->base);
	free(pl->run);
	free(pl->jobs);
	free(pl->from);
	free(pl->canon);
	sw_spec_free(&pl->spec);
}

static void fnv(uint64_t *h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++) {
		*h ^= b[i];
		*h *= 0x100000001b3ULL;
	}
}

static void fnv_str(uint64_t *h, const char *s)
{
	fnv(h, s, strlen(s) + 1);
}

static void fnv_profile(uint64_t *h, const struct profile *p)
{
	for (int i = 0; i < p->nentries; i++) {
		fnv_str(h, p->e[i].section);
		fnv_str(h, p->e[i].key);
		fnv_str(h, p->e[i].value);
	}
}

/* What the results depend on: the canonical text, mmsim's version, and every profile entry,
 * topology and scenario text the runs use (a file edited between two jobs is another sweep). */
static int sw_hash(struct sw_plan *pl, struct mm_error *err)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	char fmt[32];

	snprintf(fmt, sizeof(fmt), "%d", SWEEP_JOB_FORMAT);
	fnv_str(&h, "mmsim " MMSIM_VERSION);
	fnv_str(&h, fmt);
	fnv_str(&h, pl->canon);
	for (int b = 0; b < pl->nbases; b++) {
		const struct run *r = pl->base[b].r;

		fnv_profile(&h, &r->m.prof);
		fnv_str(&h, r->m.topo.summary);
		for (int k = 0; k < r->nks; k++)
			fnv_profile(&h, &r->ks[k].prof);
		for (int c = 0; c < r->ncurves; c++) {
			const char *path = r->sc[c].path, *pre = "builtin:scenarios/";
			char *text = NULL;
			int rc;

			fnv_str(&h, path);
			if (r->sc[c].builtin && !strncmp(path, pre, strlen(pre))) {
				char name[256];
				const char *t;

				snprintf(name, sizeof(name), "%s", path + strlen(pre));
				if (strlen(name) > 4 && !strcmp(name + strlen(name) - 4, ".scn"))
					name[strlen(name) - 4] = 0;
				t = profile_builtin_text("scenarios", name);
				fnv_str(&h, t ? t : "");
			} else if (!r->sc[c].builtin) {
				if ((rc = mm_read_text_file(path, &text, err)))
					return rc;
				fnv_str(&h, text);
				free(text);
			}
		}
	}
	snprintf(pl->hash, sizeof(pl->hash), "%016" PRIx64, h);
	return 0;
}

static const char *sw_kernel_name(const struct sw_plan *pl, const struct sw_base *bs)
{
	return bs->ki >= 0 ? pl->spec.e[SK_KERNEL].v[bs->ki].text : "each variant's own";
}

/* The options of an mmsim run of base @bs, as the sweep file gives them. */
static void sw_base_opts(const struct sw_plan *pl, const struct sw_base *bs, struct opts *o)
{
	const struct sw_spec *s = &pl->spec;

	memset(o, 0, sizeof(*o));
	o->machine = s->e[SK_MACHINE].line ? s->e[SK_MACHINE].v[bs->mi].text : "generic";
	o->kernel = bs->ki >= 0 ? s->e[SK_KERNEL].v[bs->ki].text : NULL;
	o->tasks = s->e[SK_TASKS].line ? s->tasks : NULL;
	o->mode = s->e[SK_MODE].line ? s->e[SK_MODE].v[0].text : NULL;
	o->placement = s->e[SK_PLACEMENT].line ? s->e[SK_PLACEMENT].v[0].text : NULL;
	o->cores = (int)s->num[SK_CORES];
	o->events = s->num[SK_EVENTS];
	o->ops_per_task = s->num[SK_OPS];
	o->seeds = (int)s->num[SK_SEEDS];
	o->sensitivity = s->e[SK_SENSITIVITY].line != 0;
	o->seed = s->seed[0];
	o->format = "table";
	o->max_work = pl->max_work;
}

/* Load base @bs: its machine, its curves and their task counts; errors name the sweep file's line. */
static int sw_base_load(struct sw_plan *pl, struct sw_base *bs, struct mm_error *err)
{
	const struct sw_spec *s = &pl->spec;
	const struct sw_entry *me = &s->e[SK_MACHINE], *se = &s->e[SK_SCENARIO], *te = &s->e[SK_TASKS];
	struct run *r = calloc(1, sizeof(*r));
	int rc, ncpus;

	if (!r)
		return mm_fail(err, MM_ENOMEM, "out of memory");
	bs->r = r;
	sw_base_opts(pl, bs, &r->o);
	if (r->o.mode) {
		r->modes[SC_THREADS] = strcmp(r->o.mode, "processes") != 0;
		r->modes[SC_PROCESSES] = strcmp(r->o.mode, "threads") != 0;
	}
	if ((rc = machine_load(&r->m, r->o.machine, r->o.cores, err))) {
		if (me->line)
			return sw_fail_at(s, me->line, me->v[bs->mi].col, err, "%s", err->msg);
		return rc;
	}
	ncpus = r->o.cores ? r->o.cores : r->m.topo.ncpus;
	for (int i = 0; i < se->n; i++)
		if ((rc = run_add_peer(r, se->v[i].text, err)))
			return sw_fail_at(s, se->line, se->v[i].col, err, "%s", err->msg);
	for (int i = 0; i < se->n; i++)
		if ((rc = run_add_curve(r, se->v[i].text, err))) {
			char msg[sizeof(err->msg)];

			snprintf(msg, sizeof(msg), "%s", err->msg);
			if (bs->ki >= 0)
				return sw_fail_at(s, se->line, se->v[i].col, err, "under kernel '%s' (line %d): %s",
						  sw_kernel_name(pl, bs), s->e[SK_KERNEL].line, msg);
			return sw_fail_at(s, se->line, se->v[i].col, err, "%s", msg);
		}
	for (int i = 0; i < te->n; i++)
		if (atoi(te->v[i].text) > ncpus)
			return sw_fail_at(s, te->line, te->v[i].col, err,
					  "%s tasks, but machine %s has %d logical CPUs (one task per CPU; without "
					  "'tasks' each machine runs its own 1, 2, 4, ... N)",
					  te->v[i].text, r->m.hw.name, ncpus);
	if ((rc = run_task_list(r, ncpus, err)))
		return sw_fail_at(s, te->line ? te->line : se->line, te->line ? te->col : se->col, err, "%s", err->msg);
	bs->ncurve_jobs = run_curve_jobs(r, NULL);
	bs->nseed_jobs = run_seed_jobs(r, NULL);
	if (r->o.sensitivity) {
		bs->sens = calloc(RUN_MAX_SENS, sizeof(*bs->sens));
		bs->sjob_item = calloc(2 * RUN_MAX_SENS, sizeof(int));
		bs->sjob_hi = calloc(2 * RUN_MAX_SENS, sizeof(int));
		if (!bs->sens || !bs->sjob_item || !bs->sjob_hi)
			return mm_fail(err, MM_ENOMEM, "out of memory");
		if ((bs->nsens = run_sens_items(r, bs->sens, err)) < 0)
			return sw_fail_at(s, se->line, se->col, err, "%s", err->msg);
		for (int i = 0; i < bs->nsens; i++)
			for (int hi = 0; hi < (bs->sens[i].policy >= 0 ? 1 : 2); hi++) {
				bs->sjob_item[bs->nsjobs] = i;
				bs->sjob_hi[bs->nsjobs++] = hi;
			}
	}
	return 0;
}

static int sw_plan_build(struct sw_plan *pl, const char *origin, const char *text, double max_work,
			 struct mm_error *err)
{
	struct sw_spec *s = &pl->spec;
	int nm, nk, rc;
	long long runs;

	memset(pl, 0, sizeof(*pl));
	pl->max_work = max_work;
	if ((rc = sw_parse(s, origin, text, err)))
		return rc;
	if (!(pl->canon = sw_canonical(s)))
		return mm_fail(err, MM_ENOMEM, "out of memory");
	nm = s->e[SK_MACHINE].line ? s->e[SK_MACHINE].n : 1;
	nk = s->e[SK_KERNEL].line ? s->e[SK_KERNEL].n : 1;
	runs = (long long)nm * nk * s->nseed;
	if (nm * nk > SW_MAX_BASES || runs > SWEEP_MAX_POINTS)
		return mm_fail(err, MM_ERANGE,
			       "%s: %d machine(s) x %d kernel(s) x %d seed(s) = %lld runs, more than a sweep may have "
			       "(%d machine x kernel pairs, %d points): split it into several sweep files",
			       origin, nm, nk, s->nseed, runs, SW_MAX_BASES, SWEEP_MAX_POINTS);
	/* the kernels first, so that a bad one is named at its own line */
	for (int k = 0; k < (s->e[SK_KERNEL].line ? nk : 0); k++) {
		struct profile p;
		struct kernel_profile kp;
		const struct sw_val *v = &s->e[SK_KERNEL].v[k];

		if ((rc = profile_load(&p, "kernels", v->text, err)))
			return sw_fail_at(s, s->e[SK_KERNEL].line, v->col, err, "%s", err->msg);
		rc = kernel_profile_derive(&kp, &p, err);
		if (!rc)
			rc = lock_check_kernel(&kp, err);
		profile_free(&p);
		if (rc)
			return sw_fail_at(s, s->e[SK_KERNEL].line, v->col, err, "%s", err->msg);
	}
	pl->base = calloc((size_t)nm * nk, sizeof(*pl->base));
	pl->run = calloc((size_t)runs, sizeof(*pl->run));
	if (!pl->base || !pl->run)
		return mm_fail(err, MM_ENOMEM, "out of memory");
	for (int m = 0; m < nm; m++)
		for (int k = 0; k < nk; k++) {
			struct sw_base *bs = &pl->base[pl->nbases++];

			bs->mi = m;
			bs->ki = s->e[SK_KERNEL].line ? k : -1;
			if ((rc = sw_base_load(pl, bs, err)))
				return rc;
		}
	/* the points of every run, then the sensitivity points of every run */
	for (int b = 0; b < pl->nbases; b++)
		for (int i = 0; i < s->nseed; i++) {
			struct sw_run *ru = &pl->run[pl->nruns++];
			const struct sw_base *bs = &pl->base[b];

			ru->base = b;
			ru->seed = s->seed[i];
			ru->first_point = pl->npoint_jobs;
			ru->npoints = bs->ncurve_jobs + bs->nseed_jobs;
			pl->npoint_jobs += ru->npoints;
			if (pl->npoint_jobs > SWEEP_MAX_POINTS)
				return mm_fail(
				    err, MM_ERANGE,
				    "%s: more than %d points (%d runs; the first %d of them alone have %d): split "
				    "it into several sweep files, or ask for fewer task counts, seeds or curves",
				    origin, SWEEP_MAX_POINTS, (int)runs, pl->nruns, pl->npoint_jobs);
		}
	pl->njobs = pl->npoint_jobs;
	for (int i = 0; i < pl->nruns; i++) {
		pl->run[i].first_sens = pl->njobs;
		pl->njobs += pl->base[pl->run[i].base].nsjobs;
		if (pl->njobs > SWEEP_MAX_POINTS)
			return mm_fail(
			    err, MM_ERANGE,
			    "%s:%d:%d: sensitivity makes more than %d points (%d per run, %d runs): split the "
			    "sweep, or ask for fewer machines, kernels or seeds",
			    origin, s->e[SK_SENSITIVITY].line, s->e[SK_SENSITIVITY].col, SWEEP_MAX_POINTS,
			    pl->base[pl->run[i].base].nsjobs, pl->nruns);
	}
	return sw_hash(pl, err);
}

/* The run point @k (below npoint_jobs) or sensitivity point @k belongs to. */
static int sw_run_of(const struct sw_plan *pl, int k)
{
	for (int i = 0; i < pl->nruns; i++) {
		const struct sw_run *ru = &pl->run[i];

		if (k < pl->npoint_jobs ? k - ru->first_point < ru->npoints && k >= ru->first_point
					: k >= ru->first_sens && k - ru->first_sens < pl->base[ru->base].nsjobs)
			return i;
	}
	return -1;
}

/* The configurations of run @ri's points, into @jobs (its npoints). */
static void sw_run_jobs(struct sw_plan *pl, int ri, struct sweep_job *jobs)
{
	const struct sw_run *ru = &pl->run[ri];
	struct sw_base *bs = &pl->base[ru->base];

	bs->r->o.seed = ru->seed;
	run_curve_jobs(bs->r, jobs);
	run_seed_jobs(bs->r, jobs + bs->ncurve_jobs);
}

/* The configuration of point @k (below npoint_jobs) alone. */
static int sw_point_cfg(struct sw_plan *pl, int k, struct sim_config *cfg, struct mm_error *err)
{
	int ri = sw_run_of(pl, k);
	struct sweep_job *jobs = calloc((size_t)pl->run[ri].npoints, sizeof(*jobs));

	if (!jobs)
		return mm_fail(err, MM_ENOMEM, "out of memory");
	sw_run_jobs(pl, ri, jobs);
	*cfg = jobs[k - pl->run[ri].first_point].cfg;
	free(jobs);
	return 0;
}

static const char *const mode_name[2] = {"threads", "processes"};

static void sw_run_name(const struct sw_plan *pl, int ri, char *buf, size_t cap)
{
	const struct sw_run *ru = &pl->run[ri];
	const struct sw_base *bs = &pl->base[ru->base];

	if (snprintf(buf, cap, "run %d of %d: machine %s, kernel %s, seed %llu", ri + 1, pl->nruns, bs->r->o.machine,
		     sw_kernel_name(pl, bs), ru->seed) >= (int)cap)
		/* long machine and kernel items: the seed first, so that runs that differ only in it
		 * still read apart, and the items shortened (with '...') */
		snprintf(buf, cap, "run %d of %d: seed %llu, machine %.150s..., kernel %.150s...", ri + 1, pl->nruns,
			 ru->seed, bs->r->o.machine, sw_kernel_name(pl, bs));
}

/* What point @k is, for messages and its JSON; @cfg: its configuration (points only). */
static void sw_describe(const struct sw_plan *pl, int k, const struct sim_config *cfg, char *buf, size_t cap)
{
	int ri = sw_run_of(pl, k);
	const struct sw_run *ru = &pl->run[ri];
	const struct sw_base *bs = &pl->base[ru->base];
	const struct run *r = bs->r;
	char run[800];
	int c;

	sw_run_name(pl, ri, run, sizeof(run));
	if (k >= pl->npoint_jobs) {
		int j = k - ru->first_sens;
		const struct sens_item *it = &bs->sens[bs->sjob_item[j]];

		snprintf(buf, cap, "%s; sensitivity at %d tasks: %s%s", run, r->tasks[r->npts - 1], it->label,
			 it->policy >= 0  ? ""
			 : bs->sjob_hi[j] ? " x2"
					  : " x0.5");
		return;
	}
	for (c = 0; c < r->ncurves && cfg->prog != &r->prog[c]; c++)
		;
	snprintf(buf, cap, "%s; %s, %s, %d task%s%s", run, c < r->ncurves ? r->curve[c].label : "?",
		 mode_name[cfg->mode == SC_PROCESSES], cfg->ntasks, cfg->ntasks > 1 ? "s" : "",
		 k - ru->first_point >= bs->ncurve_jobs ? ", again under another seed (seeds)"
		 : cfg->ntasks == 1 && r->tasks[0] != 1 ? " (the efficiency's one-task point)"
							: "");
	if (k - ru->first_point >= bs->ncurve_jobs) {
		size_t n = strlen(buf);

		snprintf(buf + n, cap - n, " %llu", (unsigned long long)cfg->seed);
	}
}

/* ---- how much work ------------------------------------------------------------------------- */

/* The estimated work of every point into @est (njobs); roles that do not fit a task count are
 * refused here, before anything runs. */
static int sw_estimate(struct sw_plan *pl, double *est, struct mm_error *err)
{
	int most = 1, rc;
	struct sweep_job *jobs;

	for (int i = 0; i < pl->nruns; i++)
		most = pl->run[i].npoints > most ? pl->run[i].npoints : most;
	if (!(jobs = calloc((size_t)most, sizeof(*jobs))))
		return mm_fail(err, MM_ENOMEM, "out of memory");
	for (int i = 0; i < pl->nruns; i++) {
		const struct sw_run *ru = &pl->run[i];
		const struct sw_base *bs = &pl->base[ru->base];
		const struct run *r = bs->r;
		double sens_w = 0;

		sw_run_jobs(pl, i, jobs);
		for (int j = 0; j < ru->npoints; j++) {
			if ((rc = scenario_assign_roles(jobs[j].cfg.prog->sc, jobs[j].cfg.ntasks, NULL, NULL, err))) {
				char msg[sizeof(err->msg)], what[1200];

				snprintf(msg, sizeof(msg), "%s", err->msg);
				sw_describe(pl, ru->first_point + j, &jobs[j].cfg, what, sizeof(what));
				free(jobs);
				return mm_fail(err, rc, "%s: point %d (%s): %s", pl->spec.origin, ru->first_point + j,
					       what, msg);
			}
			est[ru->first_point + j] = sim_work_estimate(&jobs[j].cfg, NULL, 0);
		}
		for (int c = 0; bs->nsjobs && c < r->ncurves; c++) {
			struct sim_config cfg = run_point_config(
			    r, &r->m.hw, r->kern[c], &r->prog[c],
			    r->curve[c].has_mode[SC_THREADS] ? SC_THREADS : SC_PROCESSES, r->tasks[r->npts - 1]);

			sens_w += sim_work_estimate(&cfg, NULL, 0);
		}
		for (int j = 0; j < bs->nsjobs; j++)
			est[ru->first_sens + j] = sens_w;
	}
	free(jobs);
	return 0;
}

/* Refuse more than --max-work: over every point (@k == -1), point @k's alone, or (@k == -2) any
 * one point alone. */
static int sw_check_work(struct sw_plan *pl, int k, struct mm_error *err)
{
	double *est = calloc((size_t)pl->njobs + 1, sizeof(double)), total = 0, worst = -1;
	int wk = 0, rc;
	char what[1200], why[512] = "";

	if (!est)
		return mm_fail(err, MM_ENOMEM, "out of memory");
	if ((rc = sw_estimate(pl, est, err))) {
		free(est);
		return rc;
	}
	for (int j = 0; j < pl->njobs; j++) {
		if (k >= 0 && j != k)
			continue;
		total += est[j];
		if (est[j] > worst) {
			worst = est[j];
			wk = j;
		}
	}
	free(est);
	if (k == -2) { /* each alone */
		total = worst;
		k = wk;
	}
	if (total <= pl->max_work)
		return 0;
	if (wk < pl->npoint_jobs) {
		struct sim_config cfg;

		if ((rc = sw_point_cfg(pl, wk, &cfg, err)))
			return rc;
		sim_work_estimate(&cfg, why, sizeof(why));
		sw_describe(pl, wk, &cfg, what, sizeof(what));
	} else {
		sw_describe(pl, wk, NULL, what, sizeof(what));
		snprintf(why, sizeof(why), "every curve at the largest task count");
	}
	if (k >= 0)
		return mm_fail(err, MM_ERANGE,
			       "%s: point %d (%s) would simulate about %.3g events and steps, more than --max-work %g "
			       "allows (%s): ask for less, or raise --max-work",
			       pl->spec.origin, k, what, total, pl->max_work, why);
	return mm_fail(err, MM_ERANGE,
		       "%s: this sweep would simulate about %.3g events and steps in its %d points, more than "
		       "--max-work %g allows; the largest, point %d (%s), is %.3g (%s): ask for less, raise "
		       "--max-work, or run the points apart (--emit-jobs)",
		       pl->spec.origin, total, pl->njobs, pl->max_work, wk, what, worst, why);
}

/* ---- running ------------------------------------------------------------------------------- */

static int sw_alloc_results(struct sw_plan *pl, struct mm_error *err)
{
	pl->jobs = calloc((size_t)pl->npoint_jobs + 1, sizeof(*pl->jobs));
	pl->sens = calloc((size_t)(pl->njobs - pl->npoint_jobs) + 1, sizeof(*pl->sens));
	pl->from = calloc((size_t)pl->njobs + 1, sizeof(*pl->from));
	if (!pl->jobs || !pl->sens || !pl->from)
		return mm_fail(err, MM_ENOMEM, "out of memory");
	return 0;
}

/* Sensitivity point @k (at or past npoint_jobs) into @s. */
static void sw_run_sens(const struct sw_plan *pl, int k, struct sw_sens *s)
{
	const struct sw_run *ru = &pl->run[sw_run_of(pl, k)];
	const struct sw_base *bs = &pl->base[ru->base];
	int j = k - ru->first_sens;

	s->rc =
	    run_sens_variant(bs->r, &bs->sens[bs->sjob_item[j]], bs->sjob_hi[j] ? 2.0 : 0.5, ru->seed, s->res, &s->err);
}

/* Every point here, side by side. */
static int sw_run_all(struct sw_plan *pl, struct mm_error *err)
{
	struct run_progress pg;
	int rc, nsens = pl->njobs - pl->npoint_jobs, done = 0;

	if ((rc = sw_alloc_results(pl, err)))
		return rc;
	for (int i = 0; i < pl->nruns; i++)
		sw_run_jobs(pl, i, pl->jobs + pl->run[i].first_point);
	run_progress_start(&pg);
	if ((rc = sweep_run(pl->jobs, pl->npoint_jobs, run_progress, &pg, err)))
		return rc;
	run_progress_start(&pg);
	for (int j = 0; j < nsens; j++)
		if (!(pl->sens[j] = calloc(1, sizeof(*pl->sens[j]))))
			return mm_fail(err, MM_ENOMEM, "out of memory");
#pragma omp parallel for schedule(dynamic, 1)
	for (int j = 0; j < nsens; j++) {
		sw_run_sens(pl, pl->npoint_jobs + j, pl->sens[j]);
#pragma omp critical(mmsim_sweep_sens)
		run_progress(&pg, ++done, nsens);
	}
	return 0;
}

/* ---- a point's JSON ------------------------------------------------------------------------ */

static void js_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", f);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

/* Every number the tables, CSV, JSON and plots print, to the last bit (%.17g reads back exact). */
static void js_result(FILE *f, const struct sim_result *r)
{
	fprintf(f,
		"{\"ntasks\": %d, \"ops\": %.17g, \"window_s\": %.17g, \"ops_per_s\": %.17g, \"ops_per_s_task\": "
		"%.17g, \"idle_pct\": %.17g, \"makespan_s\": %.17g, \"events\": %" PRIu64 ", \"roles\": [",
		r->ntasks, r->ops, r->window_s, r->ops_per_s, r->ops_per_s_task, r->idle_pct, r->makespan_s, r->events);
	for (int k = 0; k < r->nroles; k++) {
		const struct sim_role_stats *rs = &r->roles[k];

		fprintf(f, "%s{\"name\": ", k ? ", " : "");
		js_str(f, rs->name);
		fprintf(f, ", \"tasks\": %d, \"ops\": %.17g, \"ops_per_s\": %.17g, \"ops_per_s_task\": %.17g}",
			rs->ntasks, rs->ops, rs->ops_per_s, rs->ops_per_s_task);
	}
	fprintf(f, "]}");
}

static void js_job(FILE *f, const struct sw_plan *pl, int k, const char *what, int rc, const char *msg,
		   const struct sim_result *res, int nres)
{
	fprintf(f, "{\"mmsim_sweep_job\": %d,\n \"sweep\": \"%s\",\n \"job\": %d,\n \"jobs\": %d,\n \"point\": ",
		SWEEP_JOB_FORMAT, pl->hash, k, pl->njobs);
	js_str(f, what);
	fprintf(f, ",\n \"sweep_text\": ");
	js_str(f, pl->canon);
	fprintf(f, ",\n \"rc\": %d,\n \"error\": ", rc);
	js_str(f, msg);
	fprintf(f, ",\n \"results\": [");
	for (int i = 0; i < nres; i++) {
		fprintf(f, "%s\n  ", i ? "," : "");
		js_result(f, &res[i]);
	}
	fprintf(f, "]}\n");
}

/* A reader of exactly that JSON (whitespace aside); errors say FILE:LINE:COL and what was expected. */
struct jp {
	const char *path, *s, *p, *bol;
	int line;
	struct mm_error *err;
};

static void jp_ws(struct jp *j)
{
	for (; *j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'; j->p++)
		if (*j->p == '\n') {
			j->line++;
			j->bol = j->p + 1;
		}
}

static int jp_fail(struct jp *j, const char *what)
{
	return mm_fail(j->err, MM_EPARSE,
		       "%s:%d:%d: expected %s (the JSON of one point, as 'mmsim sweep FILE --job K' writes it)",
		       j->path, j->line, (int)(j->p - j->bol) + 1, what);
}

static int jp_char(struct jp *j, char c)
{
	char what[8] = {'\'', c, '\'', 0};

	jp_ws(j);
	if (*j->p != c)
		return jp_fail(j, what);
	j->p++;
	return 0;
}

static int hex4(const char *s)
{
	int v = 0;

	for (int i = 0; i < 4; i++)
		v = v * 16 + (s[i] <= '9' ? s[i] - '0' : (s[i] | 0x20) - 'a' + 10);
	return v;
}

/* A string into a malloc()ed buffer (\u0000 refused). */
static int jp_string(struct jp *j, char **out)
{
	size_t cap = 64, n = 0;
	char *b;

	jp_ws(j);
	if (*j->p != '"')
		return jp_fail(j, "a string");
	if (!(b = malloc(cap)))
		return mm_fail(j->err, MM_ENOMEM, "out of memory");
	for (j->p++; *j->p != '"'; j->p++) {
		char c = *j->p;

		if (!c || c == '\n') {
			free(b);
			return jp_fail(j, "the end of the string ('\"')");
		}
		if (c == '\\') {
			j->p++;
			if (*j->p == 'n')
				c = '\n';
			else if (*j->p == 't')
				c = '\t';
			else if (*j->p == '"' || *j->p == '\\' || *j->p == '/')
				c = *j->p;
			else if (*j->p == 'u' && strspn(j->p + 1, "0123456789abcdefABCDEF") >= 4 &&
				 hex4(j->p + 1) > 0 && hex4(j->p + 1) < 0x80) {
				c = (char)hex4(j->p + 1);
				j->p += 4;
			} else {
				free(b);
				return jp_fail(j, "an escape mmsim writes (\\\", \\\\, \\n, \\t or \\u00XX)");
			}
		}
		if (n + 2 > cap) {
			char *nb = realloc(b, cap *= 2);

			if (!nb) {
				free(b);
				return mm_fail(j->err, MM_ENOMEM, "out of memory");
			}
			b = nb;
		}
		b[n++] = c;
	}
	j->p++;
	b[n] = 0;
	*out = b;
	return 0;
}

/* "name": (the keys come in the order mmsim writes them) */
static int jp_key(struct jp *j, const char *name)
{
	char *k = NULL, what[80];
	const char *at;
	int rc;

	jp_ws(j);
	at = j->p;
	snprintf(what, sizeof(what), "\"%s\"", name);
	if (*j->p != '"')
		return jp_fail(j, what);
	if ((rc = jp_string(j, &k)))
		return rc;
	if (strcmp(k, name)) {
		free(k);
		j->p = at;
		return jp_fail(j, what);
	}
	free(k);
	return jp_char(j, ':');
}

static int jp_num(struct jp *j, double *v)
{
	char *end;

	jp_ws(j);
	errno = 0;
	*v = strtod(j->p, &end);
	if (end == j->p || errno == EINVAL)
		return jp_fail(j, "a number");
	j->p = end;
	return 0;
}

static int jp_int(struct jp *j, long long lo, long long hi, long long *v)
{
	char *end;

	jp_ws(j);
	errno = 0;
	*v = strtoll(j->p, &end, 10);
	if (end == j->p || errno || *v < lo || *v > hi)
		return jp_fail(j, "a whole number in range");
	j->p = end;
	return 0;
}

static int jp_knum(struct jp *j, const char *key, double *v)
{
	int rc = jp_key(j, key);

	return rc ? rc : jp_num(j, v);
}

static int jp_kint(struct jp *j, const char *key, long long lo, long long hi, long long *v)
{
	int rc = jp_key(j, key);

	return rc ? rc : jp_int(j, lo, hi, v);
}

static int jp_kstr(struct jp *j, const char *key, char **v)
{
	int rc = jp_key(j, key);

	return rc ? rc : jp_string(j, v);
}

/* , or the closing @close */
static int jp_more(struct jp *j, char close, int *more)
{
	jp_ws(j);
	if (*j->p == ',' || *j->p == close) {
		*more = *j->p++ == ',';
		return 0;
	}
	return jp_fail(j, close == ']' ? "',' or ']'" : "',' or '}'");
}

static int jp_result(struct jp *j, struct sim_result *r)
{
	long long v;
	int rc, more = 1;

	memset(r, 0, sizeof(*r));
	if ((rc = jp_char(j, '{')) || (rc = jp_kint(j, "ntasks", 0, INT_MAX, &v)))
		return rc;
	r->ntasks = (int)v;
	if ((rc = jp_char(j, ',')) || (rc = jp_knum(j, "ops", &r->ops)) || (rc = jp_char(j, ',')) ||
	    (rc = jp_knum(j, "window_s", &r->window_s)) || (rc = jp_char(j, ',')) ||
	    (rc = jp_knum(j, "ops_per_s", &r->ops_per_s)) || (rc = jp_char(j, ',')) ||
	    (rc = jp_knum(j, "ops_per_s_task", &r->ops_per_s_task)) || (rc = jp_char(j, ',')) ||
	    (rc = jp_knum(j, "idle_pct", &r->idle_pct)) || (rc = jp_char(j, ',')) ||
	    (rc = jp_knum(j, "makespan_s", &r->makespan_s)) || (rc = jp_char(j, ',')) ||
	    (rc = jp_kint(j, "events", 0, LLONG_MAX, &v)) || (rc = jp_char(j, ',')) || (rc = jp_key(j, "roles")) ||
	    (rc = jp_char(j, '[')))
		return rc;
	r->events = (uint64_t)v; /* exact: a double would round counts past 2^53 */
	jp_ws(j);
	if (*j->p == ']') {
		j->p++;
		more = 0;
	}
	while (more) {
		struct sim_role_stats *rs = &r->roles[r->nroles];
		char *name = NULL;

		if (r->nroles == SIM_MAX_ROLES)
			return jp_fail(j, "']' (no more roles than a scenario may have)");
		if ((rc = jp_char(j, '{')) || (rc = jp_kstr(j, "name", &name)))
			return rc;
		snprintf(rs->name, sizeof(rs->name), "%s", name);
		free(name);
		if ((rc = jp_char(j, ',')) || (rc = jp_kint(j, "tasks", 0, INT_MAX, &v)))
			return rc;
		rs->ntasks = (int)v;
		if ((rc = jp_char(j, ',')) || (rc = jp_knum(j, "ops", &rs->ops)) || (rc = jp_char(j, ',')) ||
		    (rc = jp_knum(j, "ops_per_s", &rs->ops_per_s)) || (rc = jp_char(j, ',')) ||
		    (rc = jp_knum(j, "ops_per_s_task", &rs->ops_per_s_task)) || (rc = jp_char(j, '}')))
			return rc;
		r->nroles++;
		if ((rc = jp_more(j, ']', &more)))
			return rc;
	}
	return jp_char(j, '}');
}

/* The head of a point's JSON: up to its sweep text (kept in *@text when @text). */
struct job_head {
	char *hash, *point, *text;
	long long job, jobs;
};

static void job_head_free(struct job_head *h)
{
	free(h->hash);
	free(h->point);
	free(h->text);
}

static int jp_head(struct jp *j, struct job_head *h)
{
	long long fmt;
	int rc;

	memset(h, 0, sizeof(*h));
	if ((rc = jp_char(j, '{')) || (rc = jp_kint(j, "mmsim_sweep_job", 0, INT_MAX, &fmt)))
		return rc;
	if (fmt != SWEEP_JOB_FORMAT)
		return mm_fail(j->err, MM_EPARSE, "%s: a point in format %lld; this mmsim reads format %d", j->path,
			       fmt, SWEEP_JOB_FORMAT);
	if ((rc = jp_char(j, ',')) || (rc = jp_kstr(j, "sweep", &h->hash)) || (rc = jp_char(j, ',')) ||
	    (rc = jp_kint(j, "job", 0, INT_MAX, &h->job)) || (rc = jp_char(j, ',')) ||
	    (rc = jp_kint(j, "jobs", 1, INT_MAX, &h->jobs)) || (rc = jp_char(j, ',')) ||
	    (rc = jp_kstr(j, "point", &h->point)) || (rc = jp_char(j, ',')) ||
	    (rc = jp_kstr(j, "sweep_text", &h->text)) || (rc = jp_char(j, ',')))
		return rc;
	return 0;
}

/* ---- output: what mmsim run prints, for each run -------------------------------------------- */

static void sw_ctx(const struct sw_plan *pl, int ri, int force, struct report_ctx *ctx)
{
	const struct run *r = pl->base[pl->run[ri].base].r;

	*ctx = (struct report_ctx){.machine = r->m.hw.name,
				   .machine_desc = r->m.hw.description,
				   .topology = r->m.topo.summary,
				   .ncpus = r->m.topo.ncpus,
				   .seed = pl->run[ri].seed,
				   .force = force};
}

/* Run @ri's curves, pointed at their results (free with sw_curves_free). */
static struct curve *sw_curves(struct sw_plan *pl, int ri, struct mm_error *err)
{
	const struct sw_run *ru = &pl->run[ri];
	const struct sw_base *bs = &pl->base[ru->base];
	const struct run *r = bs->r;
	struct curve *cv = malloc((size_t)r->ncurves * sizeof(*cv));

	if (!cv) {
		mm_fail(err, MM_ENOMEM, "out of memory");
		return NULL;
	}
	memcpy(cv, r->curve, (size_t)r->ncurves * sizeof(*cv));
	run_curve_results(r, cv, pl->jobs + ru->first_point);
	if (r->o.seeds > 1 && run_seed_results(r, cv, pl->jobs + ru->first_point + bs->ncurve_jobs, err)) {
		for (int c = 0; c < r->ncurves; c++)
			free(cv[c].seedv);
		free(cv);
		return NULL;
	}
	return cv;
}

static void sw_curves_free(struct curve *cv, int n)
{
	for (int c = 0; cv && c < n; c++)
		free(cv[c].seedv);
	free(cv);
}

static int sw_print_sens(FILE *f, struct sw_plan *pl, int ri, const struct curve *cv, struct mm_error *err)
{
	const struct sw_run *ru = &pl->run[ri];
	const struct sw_base *bs = &pl->base[ru->base];
	int n = bs->nsens;
	struct sim_result(*res)[2][RUN_MAX_CURVES] = calloc((size_t)n + 1, sizeof(*res));
	int *rcs = calloc(2 * (size_t)n + 1, sizeof(int));
	struct mm_error *errs = calloc(2 * (size_t)n + 1, sizeof(*errs));

	if (!res || !rcs || !errs) {
		free(res);
		free(rcs);
		free(errs);
		return mm_fail(err, MM_ENOMEM, "out of memory");
	}
	for (int j = 0; j < bs->nsjobs; j++) {
		const struct sw_sens *s = pl->sens[ru->first_sens + j - pl->npoint_jobs];
		int i = bs->sjob_item[j], hi = bs->sjob_hi[j];

		rcs[2 * i + hi] = s->rc;
		errs[2 * i + hi] = s->err;
		memcpy(res[i][hi], s->res, sizeof(s->res));
	}
	run_sens_print(f, bs->r, cv, bs->sens, n, (const struct sim_result(*)[2][RUN_MAX_CURVES])res, rcs, errs);
	free(res);
	free(rcs);
	free(errs);
	return 0;
}

/* report_json() of one run, indented into the sweep's list of runs. */
static int sw_json_run(FILE *f, const struct report_ctx *ctx, const struct curve *cv, int n, int last,
		       struct mm_error *err)
{
	char *buf = NULL, *line, *save;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (!m)
		return mm_fail(err, MM_ENOMEM, "out of memory");
	report_json(m, ctx, cv, n);
	if (fclose(m)) {
		free(buf);
		return mm_fail(err, MM_ENOMEM, "out of memory");
	}
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *next = save;

		fprintf(f, "    %s", line);
		/* the run's closing brace is its last line */
		fputs(next && *next ? "\n" : last ? "\n" : ",\n", f);
	}
	free(buf);
	return 0;
}

static int sw_output(FILE *f, struct sw_plan *pl, const char *format, struct mm_error *err)
{
	int rc = 0;

	if (!strcmp(format, "json"))
		fprintf(f, "{\n  \"sweep\": \"%s\",\n  \"runs\": [\n", pl->hash);
	for (int i = 0; i < pl->nruns && !rc; i++) {
		const struct run *r = pl->base[pl->run[i].base].r;
		struct curve *cv = sw_curves(pl, i, err);
		struct report_ctx ctx;
		char name[800], topo[1024];

		if (!cv)
			return err->code;
		sw_ctx(pl, i, 0, &ctx);
		sw_run_name(pl, i, name, sizeof(name));
		if (!strcmp(format, "json")) {
			rc = sw_json_run(f, &ctx, cv, r->ncurves, i == pl->nruns - 1, err);
		} else if (!strcmp(format, "csv")) {
			for (int c = 0; c < r->ncurves; c++) {
				fprintf(f, "%s# %s; %s\n", i || c ? "\n" : "", name, cv[c].label);
				report_csv(f, &cv[c]);
			}
		} else {
			fprintf(f, "%s# %s\n", i ? "\n" : "", name);
			ctx.topology = run_placement_note(r, topo, sizeof(topo));
			report_table(f, &ctx, cv, r->ncurves);
			if (r->o.sensitivity)
				rc = sw_print_sens(f, pl, i, cv, err);
		}
		sw_curves_free(cv, r->ncurves);
	}
	if (!rc && !strcmp(format, "json"))
		fprintf(f, "  ]\n}\n");
	return rc;
}

/* --plot DIR: DIR/run-R.png for each run; checked before the simulations. */
static int sw_plot_check(const struct sw_plan *pl, const char *dir, int force, struct mm_error *err)
{
	struct stat st;
	char path[4096];
	int rc;

	if (stat(dir, &st) == 0 && !S_ISDIR(st.st_mode))
		return mm_fail(err, MM_EINVAL, "--plot %s: not a directory (a sweep draws one PNG per run into it)",
			       dir);
	if ((rc = outdir_check(dir, "--plot", err)))
		return rc;
	for (int i = 0; i < pl->nruns; i++) {
		snprintf(path, sizeof(path), "%s/run-%d.png", dir, i + 1);
		if ((rc = outfile_check(path, force, "--plot", err)))
			return rc;
	}
	return 0;
}

/* Every run's PNG, all of them or none (plot_set). */
static int sw_plots(struct sw_plan *pl, const char *dir, int force, struct mm_error *err)
{
	struct plot_set ps;
	char name[64], path[4096 + 300];
	int rc;

	if ((rc = plot_set_begin(&ps, dir, force, "--plot", err)))
		return rc;
	for (int i = 0; i < pl->nruns && !rc; i++) {
		const struct run *r = pl->base[pl->run[i].base].r;
		struct curve *cv;
		struct report_ctx ctx;

		snprintf(name, sizeof(name), "run-%d.png", i + 1);
		if ((rc = plot_set_path(&ps, name, path, sizeof(path), err)))
			break;
		if (!(cv = sw_curves(pl, i, err))) {
			rc = err->code;
			break;
		}
		sw_ctx(pl, i, 1, &ctx); /* the staging directory is new: --force's check is at the commit */
		rc = report_plot(path, &ctx, cv, r->ncurves, err);
		sw_curves_free(cv, r->ncurves);
		if (!rc)
			rc = plot_set_note(&ps, name, err);
	}
	if (rc) {
		plot_set_abort(&ps);
		return rc;
	}
	return plot_set_commit(&ps, err);
}

/* The table, CSV or JSON on stdout, after the plots (nothing printed when one fails). */
static int sw_finish(struct sw_plan *pl, const struct opts *o, struct mm_error *err)
{
	int rc;

	if (o->plot && (rc = sw_plots(pl, o->plot, o->force, err)))
		return rc;
	if ((rc = sw_output(stdout, pl, o->format, err)))
		return rc;
	if (fflush(stdout) || ferror(stdout))
		return mm_fail(err, MM_EIO, "writing the output failed: %s", strerror(errno));
	return 0;
}

static int sw_check_format(const struct sw_plan *pl, const struct opts *o, struct mm_error *err)
{
	const struct sw_entry *se = &pl->spec.e[SK_SENSITIVITY];

	if (strcmp(o->format, "table") && strcmp(o->format, "csv") && strcmp(o->format, "json"))
		return mm_fail(err, MM_EINVAL, "--format '%s': expected table, csv or json", o->format);
	if (se->line && strcmp(o->format, "table"))
		return mm_fail(err, MM_EINVAL, "%s:%d:%d: sensitivity prints a table: --format table, not %s",
			       pl->spec.origin, se->line, se->col, o->format);
	return 0;
}

/* ---- the commands -------------------------------------------------------------------------- */

/* @s quoted for sh when it needs it. */
static void sh_word(FILE *f, const char *s)
{
	if (*s && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-./,:=+@%") == strlen(s)) {
		fputs(s, f);
		return;
	}
	fputc('\'', f);
	for (; *s; s++)
		if (*s == '\'')
			fputs("'\\''", f);
		else
			fputc(*s, f);
	fputc('\'', f);
}

static int sw_emit(const struct sw_plan *pl, const struct opts *o, const char *file, const char *argv0)
{
	const char *dir = o->out ? o->out : "sweep-out";

	for (int k = 0; k < pl->njobs; k++) {
		sh_word(stdout, argv0);
		fputs(" sweep ", stdout);
		sh_word(stdout, file);
		printf(" --job %d --out ", k);
		sh_word(stdout, dir);
		if (o->max_work != SIM_MAX_WORK)
			printf(" --max-work %.17g", o->max_work);
		if (o->force)
			fputs(" --force", stdout);
		fputc('\n', stdout);
	}
	return fflush(stdout) || ferror(stdout) ? MM_EIO : 0;
}

/* --job K: point K alone; its JSON on stdout, or in DIR/K.json (whole, or not there). */
static int sw_job(struct sw_plan *pl, const struct opts *o, int k, struct mm_error *err)
{
	struct outfile of = {.slot = -1};
	char what[1200], path[4096];
	FILE *f = stdout;
	int rc, made = 0, dslot = -1;

	if (o->out) {
		/* a directory made here goes again on an error or a signal, while empty */
		if (mkdir(o->out, 0777) == 0) {
			made = 1;
			dslot = cleanup_add_file(o->out);
		} else if (errno != EEXIST) {
			return mm_fail(err, MM_EIO, "--out %s: cannot create the directory: %s", o->out,
				       strerror(errno));
		}
		snprintf(path, sizeof(path), "%s/%d.json", o->out, k);
		if ((rc = outfile_open(&of, path, o->force, "--out", err)))
			goto out;
		f = of.f;
	}
	if (k < pl->npoint_jobs) {
		struct sweep_job *jb = calloc(1, sizeof(*jb));
		struct run_progress pg;

		rc = jb ? sw_point_cfg(pl, k, &jb->cfg, err) : mm_fail(err, MM_ENOMEM, "out of memory");
		if (!rc) {
			sw_describe(pl, k, &jb->cfg, what, sizeof(what));
			run_progress_start(&pg);
			rc = sweep_run(jb, 1, run_progress, &pg, err);
		}
		if (!rc)
			js_job(f, pl, k, what, 0, "", &jb->res, 1);
		free(jb);
	} else {
		struct sw_sens *s = calloc(1, sizeof(*s));

		if (!s) {
			rc = mm_fail(err, MM_ENOMEM, "out of memory");
			goto out;
		}
		sw_run_sens(pl, k, s);
		sw_describe(pl, k, NULL, what, sizeof(what));
		js_job(f, pl, k, what, s->rc, s->rc ? s->err.msg : "", s->res,
		       pl->base[pl->run[sw_run_of(pl, k)].base].r->ncurves);
		free(s);
		rc = 0;
	}
	if (!rc)
		rc = o->out				? outfile_commit(&of, err)
		     : fflush(stdout) || ferror(stdout) ? mm_fail(err, MM_EIO, "writing the output failed")
							: 0;
out:
	if (rc) {
		if (o->out)
			outfile_abort(&of);
		if (made)
			rmdir(o->out);
	}
	if (dslot >= 0)
		cleanup_forget_file(dslot);
	return rc;
}

int sweep_cmd(const struct opts *o, const char *file, const char *argv0, struct mm_error *err)
{
	struct sw_plan pl;
	char *text = NULL;
	long long k = -1;
	int rc;

	if (o->emit_jobs && o->job)
		return mm_fail(err, MM_EINVAL,
			       "--emit-jobs prints the command of every point; --job K runs one: not both");
	if ((o->emit_jobs || o->job) && o->plot)
		return mm_fail(err, MM_EINVAL,
			       "--plot draws the whole sweep: with mmsim sweep FILE or mmsim merge, not "
			       "with --emit-jobs or --job");
	if (o->out && !o->emit_jobs && !o->job)
		return mm_fail(err, MM_EINVAL,
			       "--out DIR is where --job K writes its point (DIR/K.json), and where "
			       "the lines of --emit-jobs write theirs");
	if (o->job && !strcmp(o->format, "csv"))
		return mm_fail(err, MM_EINVAL, "--job writes its point as JSON (mmsim merge makes the table or CSV)");
	if ((rc = mm_read_text_file(file, &text, err)))
		return rc;
	rc = sw_plan_build(&pl, file, text, o->max_work, err);
	free(text);
	if (rc)
		goto out;
	if (o->job && (sw_digits(o->job, 0, pl.njobs - 1, &k))) {
		rc = mm_fail(err, MM_EINVAL, "--job '%s': expected a point of %s, 0 to %d", o->job, file, pl.njobs - 1);
		goto out;
	}
	if (!o->job && !o->emit_jobs && (rc = sw_check_format(&pl, o, err)))
		goto out;
	/* the whole sweep here; one point; or each line of --emit-jobs, a point alone */
	if ((rc = sw_check_work(&pl, o->emit_jobs ? -2 : (int)k, err)))
		goto out;
	if (o->emit_jobs) {
		if (sw_emit(&pl, o, file, argv0))
			rc = mm_fail(err, MM_EIO, "writing the output failed: %s", strerror(errno));
		goto out;
	}
	if (o->job) {
		rc = sw_job(&pl, o, (int)k, err);
		goto out;
	}
	if (o->plot && (rc = sw_plot_check(&pl, o->plot, o->force, err)))
		goto out;
	if (!(rc = sw_run_all(&pl, err)))
		rc = sw_finish(&pl, o, err);
out:
	sw_plan_free(&pl);
	return rc;
}

/* ---- merge --------------------------------------------------------------------------------- */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The job files: each PATH, or the *.json files of a directory PATH (by name). */
static int merge_files(const char *const *paths, int npaths, char ***out, int *nout, struct mm_error *err)
{
	char **v = NULL;
	int n = 0, cap = 0, rc = 0;

	for (int i = 0; i < npaths && !rc; i++) {
		struct stat st;
		DIR *d;
		struct dirent *de;
		int first = n;

		if (stat(paths[i], &st)) {
			rc = mm_fail(err, MM_ENOENT, "%s: cannot open: %s", paths[i], strerror(errno));
			break;
		}
		if (!S_ISDIR(st.st_mode)) {
			if (n == cap && !(v = realloc(v, (size_t)(cap = cap * 2 + 16) * sizeof(*v)))) {
				rc = mm_fail(err, MM_ENOMEM, "out of memory");
				break;
			}
			if (!(v[n++] = strdup(paths[i])))
				rc = mm_fail(err, MM_ENOMEM, "out of memory");
			continue;
		}
		if (!(d = opendir(paths[i]))) {
			rc = mm_fail(err, MM_EIO, "%s: cannot read the directory: %s", paths[i], strerror(errno));
			break;
		}
		while (!rc && (de = readdir(d))) {
			size_t len = strlen(de->d_name);

			if (len < 6 || strcmp(de->d_name + len - 5, ".json") || de->d_name[0] == '.')
				continue;
			if (n == cap && !(v = realloc(v, (size_t)(cap = cap * 2 + 16) * sizeof(*v)))) {
				rc = mm_fail(err, MM_ENOMEM, "out of memory");
				break;
			}
			if (!(v[n] = malloc(strlen(paths[i]) + len + 2)))
				rc = mm_fail(err, MM_ENOMEM, "out of memory");
			else
				sprintf(v[n++], "%s/%s", paths[i], de->d_name);
		}
		closedir(d);
		if (!rc && n == first)
			rc = mm_fail(err, MM_ENOENT, "%s: no point files (*.json) in the directory", paths[i]);
		if (!rc)
			qsort(v + first, (size_t)(n - first), sizeof(*v), cmp_str);
	}
	*out = v;
	*nout = n;
	return rc;
}

/* One job file into the plan's results: of this sweep, in range, not seen before. */
static int merge_one(struct sw_plan *pl, const char *path, const char *text, struct mm_error *err)
{
	struct jp j = {.path = path, .s = text, .p = text, .bol = text, .line = 1, .err = err};
	struct job_head h;
	long long rcv;
	char *msg = NULL;
	int rc, more = 1, n = 0, k, want;
	struct sw_sens *s = NULL;

	if ((rc = jp_head(&j, &h)))
		goto out;
	if (strcmp(h.hash, pl->hash)) {
		rc = mm_fail(err, MM_EINVAL,
			     "%s: a point of another sweep (sweep %.20s; this one is %s, from %s): the sweep file, a "
			     "profile or scenario it names, or mmsim is not the same",
			     path, h.hash, pl->hash, pl->spec.origin);
		goto out;
	}
	if (h.jobs != pl->njobs || h.job >= pl->njobs) {
		rc = mm_fail(err, MM_EINVAL, "%s: point %lld of %lld, but this sweep has %d points", path, h.job,
			     h.jobs, pl->njobs);
		goto out;
	}
	k = (int)h.job;
	if (pl->from[k]) {
		rc = mm_fail(err, MM_EINVAL, "%s: point %d again (already in %s)", path, k, pl->from[k]);
		goto out;
	}
	if ((rc = jp_kint(&j, "rc", INT_MIN, INT_MAX, &rcv)) || (rc = jp_char(&j, ',')) ||
	    (rc = jp_kstr(&j, "error", &msg)) || (rc = jp_char(&j, ',')) || (rc = jp_key(&j, "results")) ||
	    (rc = jp_char(&j, '[')))
		goto out;
	if (k < pl->npoint_jobs && rcv) {
		rc = mm_fail(err, MM_EINVAL, "%s: point %d failed: %s", path, k, msg);
		goto out;
	}
	want = k < pl->npoint_jobs ? 1 : pl->base[pl->run[sw_run_of(pl, k)].base].r->ncurves;
	if (k >= pl->npoint_jobs) {
		if (!(s = calloc(1, sizeof(*s)))) {
			rc = mm_fail(err, MM_ENOMEM, "out of memory");
			goto out;
		}
		s->rc = (int)rcv;
		s->err.code = (int)rcv;
		snprintf(s->err.msg, sizeof(s->err.msg), "%s", msg);
	}
	while (more) {
		if (n == want) {
			rc = jp_fail(&j, want == 1 ? "one result" : "a result per curve");
			goto out;
		}
		if ((rc = jp_result(&j, s ? &s->res[n] : &pl->jobs[k].res)) || (rc = jp_more(&j, ']', &more)))
			goto out;
		n++;
	}
	if (n != want) {
		rc = mm_fail(err, MM_EPARSE, "%s: %d result(s), expected %d", path, n, want);
		goto out;
	}
	if ((rc = jp_char(&j, '}')))
		goto out;
	jp_ws(&j);
	if (*j.p) {
		rc = jp_fail(&j, "the end of the file");
		goto out;
	}
	if (s) {
		pl->sens[k - pl->npoint_jobs] = s;
		s = NULL;
	}
	pl->from[k] = path;
out:
	free(s);
	free(msg);
	job_head_free(&h);
	return rc;
}

int merge_cmd(const struct opts *o, const char *const *paths, int npaths, struct mm_error *err)
{
	struct sw_plan pl = {0};
	char **files = NULL, *text = NULL, **texts = NULL;
	int nfiles = 0, rc, missing = 0, built = 0;

	if (!npaths)
		return mm_fail(err, MM_EINVAL,
			       "merge: expected the points' JSON files or their directory (mmsim merge [--sweep FILE] "
			       "DIR|FILE.json...)");
	if ((rc = merge_files(paths, npaths, &files, &nfiles, err)))
		goto out;
	if (!(texts = calloc((size_t)nfiles, sizeof(*texts)))) {
		rc = mm_fail(err, MM_ENOMEM, "out of memory");
		goto out;
	}
	for (int i = 0; i < nfiles; i++)
		if ((rc = mm_read_text_file(files[i], &texts[i], err)))
			goto out;
	/* the sweep: the file given, or the text the first point carries */
	if (o->sweep) {
		if ((rc = mm_read_text_file(o->sweep, &text, err)))
			goto out;
		rc = sw_plan_build(&pl, o->sweep, text, SIM_MAX_WORK, err);
	} else {
		struct jp j = {.path = files[0], .s = texts[0], .p = texts[0], .bol = texts[0], .line = 1, .err = err};
		struct job_head h;
		char origin[4200];

		if ((rc = jp_head(&j, &h))) {
			job_head_free(&h);
			goto out;
		}
		snprintf(origin, sizeof(origin), "%s (its sweep_text)", files[0]);
		rc = sw_plan_build(&pl, origin, h.text, SIM_MAX_WORK, err);
		job_head_free(&h);
	}
	built = 1;
	if (rc || (rc = sw_check_format(&pl, o, err)) || (rc = sw_alloc_results(&pl, err)))
		goto out;
	for (int i = 0; i < nfiles; i++)
		if ((rc = merge_one(&pl, files[i], texts[i], err)))
			goto out;
	for (int k = 0; k < pl.njobs; k++)
		missing += !pl.from[k];
	if (missing) {
		size_t len;
		int listed = 0;

		len = (size_t)snprintf(err->msg, sizeof(err->msg),
				       "merge: %d of the %d points of %s have no result (mmsim sweep FILE --job K "
				       "makes one):",
				       missing, pl.njobs, pl.spec.origin);
		for (int k = 0; k < pl.njobs && listed < 3 && len < sizeof(err->msg); k++) {
			char what[1200];
			struct sim_config cfg;
			struct mm_error e2; /* err->msg is the message being made */

			if (pl.from[k])
				continue;
			if (k < pl.npoint_jobs && sw_point_cfg(&pl, k, &cfg, &e2))
				break;
			sw_describe(&pl, k, k < pl.npoint_jobs ? &cfg : NULL, what, sizeof(what));
			len += (size_t)snprintf(err->msg + len, sizeof(err->msg) - len, "%s point %d (%s)",
						listed ? ";" : "", k, what);
			listed++;
		}
		if (missing > listed && len < sizeof(err->msg))
			snprintf(err->msg + len, sizeof(err->msg) - len, "; and %d more", missing - listed);
		rc = err->code = MM_ENOENT;
		goto out;
	}
	if (o->plot && (rc = sw_plot_check(&pl, o->plot, o->force, err)))
		goto out;
	rc = sw_finish(&pl, o, err);
out:
	if (built)
		sw_plan_free(&pl);
	for (int i = 0; i < nfiles; i++) {
		free(files[i]);
		if (texts)
			free(texts[i]);
	}
	free(files);
	free(texts);
	free(text);
	return rc;
}
