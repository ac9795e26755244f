/* SPDX-License-Identifier: MIT */
/*
 * mmsim reproduce seeds: every number published in the seed documents
 * (data/reference/seed_measurements.csv, seed001_profile.csv and
 * madv_populate_seed003.csv, embedded at build time) beside mmsim's
 * prediction and its error, each
 * marked as fitted or predicted, then the 0.5x/2x sensitivity of every
 * unmeasured number each prediction rests on (about two minutes on 2 CPUs,
 * nearly all of it that section's, three quarters of which seed 001's two
 * 96-thread points; --no-sensitivity leaves the section out).
 *
 * Seed 003 (one task, THP off, machine not stated) is predicted on the
 * generic machine from scenarios/madv_populate.scn, one variant per backing,
 * mapping and method, with one number fitted here: fault_entry_exit, set so
 * that the 4096 MiB Read/POPULATE_READ ratio of private anonymous memory comes
 * out as measured.  Nothing else is tuned to a point it is compared with.
 */
#include "reproduce.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "machine.h"
#include "profile.h"
#include "scenario.h"
#include "sim.h"

/* One simulated point; several published numbers may rest on the same one. */
struct point {
	const char *variant;
	const char *machine;
	int tasks;
	int seed003; /* per-page time, with seed 003's fitted fault_entry_exit */
	int sens;    /* its sensitivity is printed */
};

enum {
	P_PIN_WRITE,
	P_PIN_CHECK,
	P_PF4_BEFORE,
	P_PF4_AFTER,
	P_NONE,
	P_LOOP,
	P_WLOCKED,
	P_READ4K,
	P_S3_FIRST, /* seed 003: the variants of scenarios/madv_populate.scn, s3_point()'s order */
	NPOINTS = P_S3_FIRST + 3 * 2 * 5
};

static struct point points[NPOINTS] = {
    [P_PIN_WRITE] = {"has_pinned_write", "amd-2s-128c", 256, 0, 1},
    [P_PIN_CHECK] = {"has_pinned_check", "amd-2s-128c", 256, 0, 1},
    [P_PF4_BEFORE] = {"page_fault4_mmap_lock", "icelake-48c", 96, 0, 1},
    [P_PF4_AFTER] = {"page_fault4_vma_lock", "icelake-48c", 96, 0, 1},
    [P_NONE] = {"populate_none", "nehalem-i7-920", 4, 0, 1},
    [P_LOOP] = {"populate_loop", "nehalem-i7-920", 4, 0, 1},
    [P_WLOCKED] = {"populate_mmap_write_locked", "nehalem-i7-920", 4, 0, 1},
    [P_READ4K] = {"populate_mmap_read_4k", "nehalem-i7-920", 4, 0, 1},
};

/* seed_measurements.csv: which point each published number is held against */
static const struct {
	const char *id;
	int point;
	int fitted;
	const char *note;
} seed_rows[] = {
    {"pinfast-before", P_PIN_WRITE, 0, ""},
    {"pinfast-after", P_PIN_CHECK, 1, "linux-5.11 gup_fast_walk was fitted to this point"},
    {"pf4-before", P_PF4_BEFORE, 0, "task count not published; 96 (every hardware thread) assumed"},
    {"pf4-after", P_PF4_AFTER, 0, "task count not published; 96 assumed"},
    {"pop-3.6.11-none", P_NONE, 0, ""},
    {"pop-3.6.11-loop", P_LOOP, 1, "nehalem node_gbs was checked against the loop runs"},
    {"pop-3.6.11-mmap", P_WLOCKED, 0, ""},
    {"pop-3.6.11crude-none", P_NONE, 0, ""},
    {"pop-3.6.11crude-loop", P_LOOP, 1, "as pop-3.6.11-loop"},
    {"pop-3.6.11crude-mmap", P_READ4K, 0, "closest variant: populate after the write lock, per 4 KiB"},
    {"pop-3.7.1-none", P_NONE, 0, ""},
    {"pop-3.7.1-loop", P_LOOP, 1, "as pop-3.6.11-loop"},
    {"pop-3.7.1-mmap", P_WLOCKED, 0, ""},
    {"pop-3.7.1series-none", P_NONE, 0, ""},
    {"pop-3.7.1series-loop", P_LOOP, 1, "as pop-3.6.11-loop"},
    {"pop-3.7.1series-mmap", P_READ4K, 0, ""},
};

/*
 * Seed 001's perf call graphs (data/reference/seed001_profile.csv) against explain's on-CPU time:
 * each published function (or sum of them, '+') and the step functions of scenarios/page_fault.scn
 * that stand for it, with their children.
 */
#define S1_HANDLE_MM_FAULT                                                                                         \
	"handle_mm_fault __handle_mm_fault do_fault_around filemap_map_pages __lruvec_stat_mod_folio pmd_install " \
	"__pte_alloc clear_page_erms percpu_counter_add_batch __mod_node_page_state"
#define S1_MMAP_LOCK "lock_mm_and_find_vma do_user_addr_fault find_vma"
#define S1_FAULT S1_MMAP_LOCK " lock_vma_under_rcu vma_start_read vma_end_read " S1_HANDLE_MM_FAULT

static const struct {
	const char *kernel, *published; /* the CSV's kernel column, and its functions summed */
	int point;
	const char *steps; /* our step functions, space-separated */
	const char *note;
} s1_rows[] = {
    {"before", "do_user_addr_fault", P_PF4_BEFORE, S1_FAULT, "with its children"},
    {"before", "down_read_trylock+down_read+up_read+find_vma", P_PF4_BEFORE, S1_MMAP_LOCK,
     "mmap_lock's share (the bar: 25-60%)"},
    {"before", "down_read_trylock+down_read", P_PF4_BEFORE, "lock_mm_and_find_vma",
     "one step here: the trylock, and down_read when it fails"},
    {"before", "up_read", P_PF4_BEFORE, "do_user_addr_fault", "with the prefetchw, which does not block"},
    {"before", "find_vma", P_PF4_BEFORE, "find_vma",
     "the seed's is mostly a load of the count line (CONFIG_DEBUG_VM); ours is the walk"},
    {"before", "handle_mm_fault", P_PF4_BEFORE, S1_HANDLE_MM_FAULT, "with its children"},
    {"after", "do_user_addr_fault", P_PF4_AFTER, S1_FAULT, "with its children"},
    {"after", "handle_mm_fault", P_PF4_AFTER, S1_HANDLE_MM_FAULT, "with its children"},
    {"after", "lock_vma_under_rcu", P_PF4_AFTER, "lock_vma_under_rcu vma_start_read", ""},
    {"after", "down_read", P_PF4_AFTER, S1_MMAP_LOCK,
     "mmap_lock's share (the bar: under 5%); no fault falls back here"},
};

#define S1_NROWS (int)(sizeof(s1_rows) / sizeof(s1_rows[0]))
_Static_assert(sizeof(s1_rows) / sizeof(s1_rows[0]) <= 16, "struct job's s1[] holds 16 rows");

/*
 * Seed 003's cells: the CSV's backing, mapping and method, and the variant of
 * scenarios/madv_populate.scn for each.  The RFC's MADV_POPULATE populates as
 * populate_vma_page_range does (5.11 mm/gup.c): with FOLL_WRITE when the
 * mapping is private and writable, else by reads.
 */
static const struct {
	const char *csv, *name;
} s3_backings[] = {{"Anonymous", "anon"}, {"Memfd 4 KiB", "memfd"}, {"Memfd 2 MiB", "hugetlb"}},
  s3_mappings[] = {{"MAP_PRIVATE", "private"}, {"MAP_SHARED", "shared"}},
  s3_methods[] = {{"Read", "touch_read"},
		  {"Write", "touch_write"},
		  {"Read+Write", "touch_read_write"},
		  {"POPULATE_READ", "populate_read"},
		  {"POPULATE_WRITE", "populate_write"}};

#define S3_NB 3
#define S3_NM 2
#define S3_NT 5
_Static_assert(NPOINTS - P_S3_FIRST == S3_NB * S3_NM * S3_NT, "one point per seed 003 variant");

static int s3_point(int b, int m, int t)
{
	return P_S3_FIRST + (b * S3_NM + m) * S3_NT + t;
}

static char s3_names[S3_NB * S3_NM * S3_NT][64];

/* The seed 003 points: every variant on the generic machine, one task; the sensitivity of private
 * anonymous memory's five, a private memfd's read and COW faults, a shared memfd's and a hugetlb
 * memfd's write faults. */
static void s3_points_init(void)
{
	for (int b = 0; b < S3_NB; b++)
		for (int m = 0; m < S3_NM; m++)
			for (int t = 0; t < S3_NT; t++) {
				int p = s3_point(b, m, t);
				char *name = s3_names[p - P_S3_FIRST];

				snprintf(name, sizeof(s3_names[0]), "prefault_%s_%s_%s", s3_backings[b].name,
					 s3_mappings[m].name, s3_methods[t].name);
				points[p] = (struct point){name, "generic", 1, 1,
							   (b == 0 && m == 0) || (b == 1 && m == 0 && t < 2) ||
							       (b > 0 && m == 1 && t == 1)};
			}
}

/* The point of one CSV cell, -1 when a name is not one of the tables'. */
static int s3_cell_point(const char *mapping, const char *backing, const char *method)
{
	int b = -1, m = -1, t = -1;

	for (int i = 0; i < S3_NB; i++)
		if (!strcmp(backing, s3_backings[i].csv))
			b = i;
	for (int i = 0; i < S3_NM; i++)
		if (!strcmp(mapping, s3_mappings[i].csv))
			m = i;
	for (int i = 0; i < S3_NT; i++)
		if (!strcmp(method, s3_methods[i].csv))
			t = i;
	if (!strcmp(method, "POPULATE"))
		t = m == 0 ? 4 : 3;
	return b < 0 || m < 0 || t < 0 ? -1 : s3_point(b, m, t);
}

/*
 * What the seed's clock measured: the prefaults.  The steps of these functions are the program's
 * other parts (the mmap, the discards, the munmap) and are left out of the per-page time.
 */
#define S3_UNTIMED                                                                                          \
	"vm_mmap_pgoff mmap_region madvise_dontneed_single_vma zap_pte_range release_pages tlb_finish_mmu " \
	"tlb_flush_mmu tlb_flush_mmu_tlbonly vfs_fallocate unmap_mapping_range shmem_undo_range "           \
	"hugetlbfs_punch_hole __do_munmap unmap_region"

#define S3_FIT_MIB 4096

/* the region sizes seed 003 measured, MiB */
static const int s3_sizes[] = {2, 128, 4096};
#define S3_NSIZES (int)(sizeof(s3_sizes) / sizeof(s3_sizes[0]))

/* One number of a profile changed for a simulation: [section] key scaled by factor. */
struct change {
	int machine; /* 1: the hardware profile; 0: the kernel profile */
	char section[48], key[64];
	double factor;
};

struct job {
	int point;
	struct change ch; /* factor 0: none */
	double value;	  /* ops/s, makespan s, or seconds per page (seed 003) */
	double s1[16];	  /* seed 001's point: on-CPU % of each of s1_rows[] */
	int rc;
	struct mm_error err;
};

static const char *point_kernel(const struct point *pt, char *buf, size_t cap, struct mm_error *err)
{
	struct scenario sc;
	int v;

	if (scenario_load(&sc, pt->variant, &v, err))
		return NULL;
	snprintf(buf, cap, "linux-%s", sc.var[v].kernel);
	scenario_free(&sc);
	return buf;
}

static void set_num(struct prof_entry *e, double v)
{
	e->num = v;
	snprintf(e->value, sizeof(e->value), "%.17g", v);
}

/* Has @point rows in s1_rows[] (so its simulation keeps per-step time)? */
static int has_s1_rows(int point)
{
	for (int r = 0; r < S1_NROWS; r++)
		if (s1_rows[r].point == point)
			return 1;
	return 0;
}

/* Does the space-separated list @names hold @name? */
static int in_list(const char *names, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = names; (p = strstr(p, name)); p += n)
		if ((p == names || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return 1;
	return 0;
}

/* On-CPU % (as explain counts it) of each of s1_rows[]'s step lists that belongs to @point. */
static void s1_shares(int point, const struct program *pr, const struct sim_step_stats *st, double *out)
{
	double total = 0;

	for (int pc = 0; pc < pr->n; pc++)
		total += sim_step_on_ps(&st[pc]);
	for (int r = 0; r < S1_NROWS; r++) {
		double on = 0;

		if (s1_rows[r].point != point)
			continue;
		for (int pc = 0; pc < pr->n; pc++)
			if (pr->insn[pc].fn >= 0 && in_list(s1_rows[r].steps, pr->sc->fn[pr->insn[pc].fn]))
				on += sim_step_on_ps(&st[pc]);
		out[r] = total > 0 ? 100.0 * on / total : 0;
	}
}

/*
 * Simulate one point with an optional change and seed 003's fitted entry cost (e_fit > 0), a seed
 * 003 point's region @s3_sim_pages pages (0: the profile's); with @s1, also seed 001's profile rows
 * of that point.
 */
static int simulate_pages(const struct point *pt, const struct change *ch, double e_fit, double s3_sim_pages,
			  const struct reproduce_opts *o, double *value, double *s1, struct mm_error *err)
{
	struct sim_step_stats *steps = NULL;
	struct machine m;
	struct profile kp;
	struct kernel_profile k;
	struct scenario sc;
	struct program prog;
	struct sim_result res;
	struct sim_config cfg;
	char why[256];
	double work;
	char kname[64];
	int64_t pages = 0;
	int v, rc;

	if (!point_kernel(pt, kname, sizeof(kname), err))
		return MM_ENOENT;
	if ((rc = machine_load(&m, pt->machine, 0, err)))
		return rc;
	if ((rc = profile_load(&kp, "kernels", kname, err)))
		goto out_m;
	if (pt->seed003 && s3_sim_pages > 0) {
		/* a smaller region: the model's per-page time does not depend on its size (a test checks) */
		struct prof_entry *pp = profile_find(&kp, "batch", "prefault_pages"),
				  *hp = profile_find(&kp, "batch", "prefault_huge_pages"),
				  *tp = profile_find(&kp, "batch", "ptes_per_table");

		if (!pp || !hp || !tp || tp->num <= 0) {
			rc = mm_fail(err, MM_ENOENT,
				     "%s has no [batch] prefault_pages, prefault_huge_pages or ptes_per_table", kname);
			goto out_k;
		}
		set_num(pp, s3_sim_pages);
		set_num(hp, floor(s3_sim_pages / tp->num));
	}
	if (pt->seed003 && e_fit > 0) {
		struct prof_entry *e = profile_find(&kp, "costs", "fault_entry_exit");

		if (!e) {
			rc = mm_fail(err, MM_ENOENT, "%s has no [costs] fault_entry_exit", kname);
			goto out_k;
		}
		set_num(e, e_fit);
	}
	if (ch && ch->factor > 0) {
		struct prof_entry *e = profile_find(ch->machine ? &m.prof : &kp, ch->section, ch->key);

		if (e)
			set_num(e, e->num * ch->factor);
		if (ch->machine && (rc = machine_rederive(&m, err)))
			goto out_k;
	}
	if ((rc = kernel_profile_derive(&k, &kp, err)))
		goto out_k;
	if ((rc = scenario_load(&sc, pt->variant, &v, err)))
		goto out_k;
	if ((rc = scenario_compile(&sc, v, &k, &prog, err)))
		goto out_s;
	cfg = (struct sim_config){.topo = &m.topo,
				  .hw = &m.hw,
				  .kernel = &k,
				  .prog = &prog,
				  .mode = sc.mode,
				  .ntasks = pt->tasks,
				  .seed = o->seed,
				  .ops_per_task = sc.work,
				  .measure_events = (uint64_t)o->events,
				  .max_work = o->max_work};
	work = o->max_work > 0 ? sim_work_estimate(&cfg, why, sizeof(why)) : 0;
	if (work > o->max_work)
		rc = mm_fail(err, MM_ERANGE,
			     "reproduce: %s at %d tasks would simulate about %.3g events and steps (%s), "
			     "more than --max-work %g allows",
			     pt->variant, pt->tasks, work, why, o->max_work);
	if (!rc && (s1 || pt->seed003) && !(cfg.steps = steps = calloc((size_t)prog.n + 1, sizeof(*steps))))
		rc = mm_fail(err, MM_ENOMEM, "out of memory");
	if (!rc && !(rc = sim_run(&cfg, &res, err))) {
		if (s1)
			s1_shares((int)(pt - points), &prog, steps, s1);
		if (pt->seed003) {
			int64_t huge = 0, ptes = 0, later = 0;
			double timed = 0;

			if (kernel_batch(&k, "prefault_pages", &pages) ||
			    kernel_batch(&k, "prefault_huge_pages", &huge) ||
			    kernel_batch(&k, "ptes_per_table", &ptes) || kernel_batch(&k, "later_rounds", &later) ||
			    pages <= 0 || later < 0 || huge * ptes != pages || sc.work != 1) {
				rc = mm_fail(err, MM_EINVAL,
					     "%s: seed 003 needs one operation per task and [batch] prefault_pages, "
					     "prefault_huge_pages x ptes_per_table as many, and later_rounds",
					     pt->variant);
			} else {
				/* the on-CPU time of the prefault steps (one task: nothing else runs) */
				for (int pc = 0; pc < prog.n; pc++)
					if (prog.insn[pc].fn < 0 || !in_list(S3_UNTIMED, sc.fn[prog.insn[pc].fn]))
						timed += sim_step_on_ps(&steps[pc]);
				*value = timed * 1e-12 / ((double)(later + 1) * (double)pages);
			}
		} else {
			*value = sc.work > 0 ? res.makespan_s : res.ops_per_s;
		}
	}
	free(steps);
	program_free(&prog);
out_s:
	scenario_free(&sc);
out_k:
	profile_free(&kp);
out_m:
	machine_free(&m);
	return rc;
}

/* Seed 003's regions are simulated at 16 MiB (4096 pages): the per-page time is the 128 MiB one's
 * within 0.1% (test_reproduce checks), at an eighth of the cost. */
#define S3_SIM_PAGES 4096

static int simulate(const struct point *pt, const struct change *ch, double e_fit, const struct reproduce_opts *o,
		    double *value, double *s1, struct mm_error *err)
{
	return simulate_pages(pt, ch, e_fit, S3_SIM_PAGES, o, value, s1, err);
}

int reproduce_s3_per_page(const char *variant, double pages, const char *number, double factor,
			  const struct reproduce_opts *o, double *sec, struct mm_error *err)
{
	struct point pt = {variant, "generic", 1, 1, 0};
	struct change ch = {0};
	const char *end;

	if (number && number[0] == '[') { /* "[SECTION] KEY": the hardware profile's, as sensitivity names it */
		if (!(end = strchr(number, ']')) || end[1] != ' ' || (size_t)(end - number - 1) >= sizeof(ch.section))
			return mm_fail(err, MM_EINVAL, "'%s': expected [SECTION] KEY", number);
		ch.machine = 1;
		snprintf(ch.section, sizeof(ch.section), "%.*s", (int)(end - number - 1), number + 1);
		snprintf(ch.key, sizeof(ch.key), "%s", end + 2);
	} else if (number) {
		snprintf(ch.section, sizeof(ch.section), "costs");
		snprintf(ch.key, sizeof(ch.key), "%s", number);
	}
	ch.factor = factor;
	return simulate_pages(&pt, number ? &ch : NULL, 0, pages, o, sec, NULL, err);
}

/*
 * Seed 003's one fitted number: fault_entry_exit such that Read/POPULATE_READ
 * at 4096 MiB is the published ratio.  POPULATE_READ takes no user fault, so
 * only Read depends on it, and the ratio rises with it: bisection.
 */
static int fit_entry(const struct reproduce_opts *o, double target, double *e_fit, double *ratio, struct mm_error *err)
{
	double lo = 1, hi = 20000, pr, rd;
	int rc;

	if ((rc = simulate(&points[s3_point(0, 0, 3)], NULL, 0, o, &pr, NULL, err)))
		return rc;
	for (int it = 0; it < 40 && hi - lo > 0.5; it++) {
		double mid = 0.5 * (lo + hi);

		if ((rc = simulate(&points[s3_point(0, 0, 0)], NULL, mid, o, &rd, NULL, err)))
			return rc;
		if (rd / pr < target)
			lo = mid;
		else
			hi = mid;
	}
	*e_fit = 0.5 * (lo + hi);
	if ((rc = simulate(&points[s3_point(0, 0, 0)], NULL, *e_fit, o, &rd, NULL, err)))
		return rc;
	*ratio = rd / pr;
	if (*e_fit > 19999 || *e_fit < 2)
		return mm_fail(err, MM_ERANGE, "seed 003: no fault_entry_exit in 1..20000 cycles gives ratio %.3f",
			       target);
	return 0;
}

/* ---- the published numbers ----------------------------------------------------------------- */

/* Splits one CSV line in place (double quotes honoured); returns the field count. */
int repro_csv_split(char *line, char **f, int max)
{
	int n = 0;
	char *p = line;

	while (n < max) {
		if (*p == '"') {
			char *q = ++p;

			f[n++] = q;
			while (*p && !(*p == '"' && p[1] != '"'))
				p += *p == '"' ? 2 : 1;
			if (*p)
				*p++ = '\0';
			if (*p == ',')
				p++;
			else
				break;
		} else {
			f[n++] = p;
			p = strchr(p, ',');
			if (!p)
				break;
			*p++ = '\0';
		}
	}
	return n;
}

/* Copies the next line of *@cur into @buf (without its newline): 1, or 2 when it was longer than
 * @buf holds (what fits is copied); 0 at the end of the text. */
int repro_next_line(const char **cur, char *buf, size_t cap)
{
	const char *p = *cur, *nl;
	size_t len;
	int cut = 0;

	if (!p || !*p)
		return 0;
	nl = strchr(p, '\n');
	len = nl ? (size_t)(nl - p) : strlen(p);
	*cur = nl ? nl + 1 : p + len;
	if (len >= cap) {
		len = cap - 1;
		cut = 1;
	}
	memcpy(buf, p, len);
	buf[len] = '\0';
	return 1 + cut;
}

/* A copy of the embedded reference CSV @name (its '#' lines and header are left to the readers). */
static char *reference_lines(const char *name, struct mm_error *err)
{
	const struct builtin_file *b = builtin_find("reference", name);
	char *t;

	if (!b) {
		mm_fail(err, MM_ENOENT, "data/reference/%s.csv is not built in", name);
		return NULL;
	}
	t = strdup(b->text);
	if (!t)
		mm_fail(err, MM_ENOMEM, "out of memory");
	return t;
}

static double find_seed_value(const char *text, const char *id, char *unit, size_t cap)
{
	char line[2048], *f[16];

	while (repro_next_line(&text, line, sizeof(line)))
		if (line[0] != '#' && repro_csv_split(line, f, 16) >= 10 && !strcmp(f[0], id)) {
			snprintf(unit, cap, "%s", f[9]);
			return strtod(f[8], NULL);
		}
	return NAN;
}

/* ---- sensitivity ----------------------------------------------------------------------------- */

/* Appends the 0.5x and 2x jobs of every unmeasured number point @p rests on. */
static int add_sens_jobs(int p, struct job *jobs, int n, int cap, struct mm_error *err)
{
	const struct point *pt = &points[p];
	struct machine m;
	struct profile kp;
	struct scenario sc;
	char kname[64];
	int v;

	if (!point_kernel(pt, kname, sizeof(kname), err) || scenario_load(&sc, pt->variant, &v, err))
		return -1;
	if (machine_load(&m, pt->machine, 0, err)) {
		scenario_free(&sc);
		return -1;
	}
	if (profile_load(&kp, "kernels", kname, err)) {
		machine_free(&m);
		scenario_free(&sc);
		return -1;
	}
	for (int src = 0; src < 2; src++) {
		const struct profile *pr = src ? &kp : &m.prof;

		for (int i = 0; i < pr->nentries; i++) {
			const struct prof_entry *e = &pr->e[i];

			if (!e->is_num || (e->tag != PROF_ASSUMED && e->tag != PROF_FITTED) ||
			    !strcmp(e->key, "jitter"))
				continue;
			/* a cost of 0 stays 0 at either factor (its steps are not in the program); one the
			 * variant's steps do not name moves nothing */
			if (src && (strcmp(e->section, "costs") || e->num == 0 || !scenario_uses_cost(&sc, v, e->key)))
				continue;
			for (int f = 0; f < 2 && n < cap; f++) {
				struct job *j = &jobs[n++];

				memset(j, 0, sizeof(*j));
				j->point = p;
				j->ch.machine = !src;
				j->ch.factor = f ? 2.0 : 0.5;
				snprintf(j->ch.section, sizeof(j->ch.section), "%s", e->section);
				snprintf(j->ch.key, sizeof(j->ch.key), "%s", e->key);
			}
		}
	}
	profile_free(&kp);
	machine_free(&m);
	scenario_free(&sc);
	return n;
}

int reproduce_seed_sens_items(const char *variant, const char *machine, char *buf, size_t cap, struct mm_error *err)
{
	const int most = 1024;
	struct job *jobs;
	size_t used = 0;
	int n, p;

	s3_points_init();
	for (p = 0; p < NPOINTS; p++)
		if (points[p].sens && !strcmp(points[p].variant, variant) && !strcmp(points[p].machine, machine))
			break;
	if (p == NPOINTS)
		return mm_fail(err, MM_ENOENT, "reproduce seeds shows no sensitivity of %s on %s", variant, machine),
		       -1;
	if (!(jobs = calloc(most, sizeof(*jobs))))
		return mm_fail(err, MM_ENOMEM, "out of memory"), -1;
	n = add_sens_jobs(p, jobs, 0, most, err);
	for (int j = 0; j + 1 < n; j += 2) { /* each number at 0.5x, then at 2x */
		int w = snprintf(used < cap ? buf + used : NULL, used < cap ? cap - used : 0, "%s [%s] %s\n",
				 jobs[j].ch.machine ? "machine" : "kernel", jobs[j].ch.section, jobs[j].ch.key);

		used += w > 0 ? (size_t)w : 0;
	}
	free(jobs);
	if (n < 0)
		return -1;
	if (used >= cap)
		return mm_fail(err, MM_ERANGE, "the list of %d numbers does not fit in %zu bytes", n / 2, cap), -1;
	if (!used)
		buf[0] = 0;
	return n / 2;
}

/* ---- the command ----------------------------------------------------------------------------- */

/* Seed 003's published time (ms) of one cell, and in @half (if not NULL) half a unit of its last
 * printed digit; NaN when the CSV lacks it. */
static double s3_value_digits(const char *text, int mib, const char *mapping, const char *backing, const char *method,
			      double *half)
{
	char line[512], *f[8];

	while (repro_next_line(&text, line, sizeof(line)))
		if (line[0] != '#' && repro_csv_split(line, f, 8) == 5 && atoi(f[0]) == mib && !strcmp(f[1], mapping) &&
		    !strcmp(f[2], backing) && !strcmp(f[3], method)) {
			const char *dot = strchr(f[4], '.');

			if (half)
				*half = 0.5 * pow(10, dot ? -(double)strspn(dot + 1, "0123456789") : 0);
			return strtod(f[4], NULL);
		}
	return NAN;
}

static double s3_value(const char *text, int mib, const char *mapping, const char *backing, const char *method)
{
	return s3_value_digits(text, mib, mapping, backing, method, NULL);
}

/* mmsim's time (ms) of one cell of @mib MiB: the per-page time of its point, which the model does
 * not make depend on the region's size. */
static double s3_predicted(const double *base, int mib, const char *mapping, const char *backing, const char *method)
{
	int p = s3_cell_point(mapping, backing, method);

	return p < 0 ? NAN : base[p] * mib * 1024.0 * 1024.0 / 4096.0 * 1e3;
}

/* the number fitted: private anonymous memory's Read/POPULATE_READ pair at S3_FIT_MIB */
static int s3_fitted(int mib, const char *mapping, const char *backing, const char *method)
{
	return mib == S3_FIT_MIB && !strcmp(mapping, "MAP_PRIVATE") && !strcmp(backing, "Anonymous") &&
	       (!strcmp(method, "Read") || !strcmp(method, "POPULATE_READ"));
}

static int cmp_sens(const void *a, const void *b)
{
	const double *x = a, *y = b;

	return (x[0] < y[0]) - (x[0] > y[0]);
}

/* Per point: each unmeasured number at 0.5x and 2x, largest effect first; tiny ones on one line. */
static void print_sensitivity(const struct job *jobs, int njobs, const double *base, int csv)
{
	if (!csv)
		printf("\nsensitivity: each unmeasured number ([assumed] or [fitted]) a point rests on, at 0.5x and 2x "
		       "(change of the prediction)\n");
	for (int p = 0; p < NPOINTS; p++) {
		double order[512][2];
		int n = 0;
		char small[2048] = "";

		if (!points[p].sens)
			continue;
		for (int j = NPOINTS; j + 1 < njobs && n < 512; j += 2)
			if (jobs[j].point == p) {
				double lo = 100.0 * (jobs[j].value - base[p]) / base[p];
				double hi = 100.0 * (jobs[j + 1].value - base[p]) / base[p];

				order[n][0] = isnan(lo) || isnan(hi) ? 1e9 : fmax(fabs(lo), fabs(hi));
				order[n++][1] = j;
			}
		qsort(order, n, sizeof(order[0]), cmp_sens);
		if (!csv)
			printf("  %s on %s, %d task(s):\n", points[p].variant, points[p].machine, points[p].tasks);
		for (int i = 0; i < n; i++) {
			const struct job *j = &jobs[(int)order[i][1]];
			double lo = 100.0 * (j->value - base[p]) / base[p];
			double hi = 100.0 * (j[1].value - base[p]) / base[p];

			if (isnan(j->value) || isnan(j[1].value)) {
				if (!csv)
					printf("    %-8s [%s] %-28s 0.5x or 2x outside its allowed range\n",
					       j->ch.machine ? "machine" : "kernel", j->ch.section, j->ch.key);
				continue;
			}
			if (csv)
				printf("sensitivity,%s [%s] %s,%s,%s,%d,change_pct_at_0.5x_and_2x,%.1f,%.1f,,,\n",
				       j->ch.machine ? "machine" : "kernel", j->ch.section, j->ch.key,
				       points[p].variant, points[p].machine, points[p].tasks, lo, hi);
			else if (order[i][0] >= 0.5)
				printf("    %-8s [%s] %-28s 0.5x %+7.1f%%   2x %+7.1f%%\n",
				       j->ch.machine ? "machine" : "kernel", j->ch.section, j->ch.key, lo, hi);
			else
				snprintf(small + strlen(small), sizeof(small) - strlen(small), "%s%s",
					 small[0] ? ", " : "", j->ch.key);
		}
		if (!csv && small[0])
			printf("    under 0.5%% either way: %s\n", small);
	}
}

/* seed001_profile.csv: the published % of @kernel's functions in @names ('+'-separated), summed;
 * NaN when one is missing. */
static double s1_published(const char *text, const char *kernel, const char *names)
{
	char line[256], *f[4];
	double sum = 0;

	for (const char *name = names; *name;) {
		size_t len = strcspn(name, "+");
		double v = NAN;

		for (const char *cur = text; repro_next_line(&cur, line, sizeof(line));)
			if (line[0] != '#' && repro_csv_split(line, f, 4) == 3 && !strcmp(f[0], kernel) &&
			    strlen(f[1]) == len && !strncmp(f[1], name, len))
				v = strtod(f[2], NULL);
		sum += v;
		name += len + (name[len] == '+');
	}
	return sum;
}

static const char *role_name(int fitted)
{
	return fitted ? "fitted" : "predicted";
}

int reproduce_seeds(const struct reproduce_opts *o, struct mm_error *err)
{
	double base[NPOINTS], e_fit = 0, fit_ratio = 0, s3_target;
	char *seeds = NULL, *s3 = NULL, *s1 = NULL;
	struct job *jobs = NULL;
	int njobs = 0, cap = 4096, rc = 0, csv = o->csv;

	double rd4096 = NAN, prd4096 = NAN; /* seed 003's published pair the fit uses */
	char line[512], *f[8];

	if (!(seeds = reference_lines("seed_measurements", err)) ||
	    !(s3 = reference_lines("madv_populate_seed003", err)) || !(s1 = reference_lines("seed001_profile", err))) {
		rc = err->code ? err->code : MM_ENOENT;
		goto out;
	}
	for (const char *cur = s3; repro_next_line(&cur, line, sizeof(line));)
		if (line[0] != '#' && repro_csv_split(line, f, 8) == 5 && atoi(f[0]) == S3_FIT_MIB &&
		    !strcmp(f[1], "MAP_PRIVATE") && !strcmp(f[2], "Anonymous")) {
			if (!strcmp(f[3], "Read"))
				rd4096 = strtod(f[4], NULL);
			if (!strcmp(f[3], "POPULATE_READ"))
				prd4096 = strtod(f[4], NULL);
		}
	if (!(rd4096 > 0) || !(prd4096 > 0)) {
		rc = mm_fail(err, MM_EPARSE,
			     "data/reference/madv_populate_seed003.csv: no %d MiB MAP_PRIVATE "
			     "Anonymous Read and POPULATE_READ rows",
			     S3_FIT_MIB);
		goto out;
	}
	s3_target = rd4096 / prd4096;
	s3_points_init();
	fprintf(stderr, "mmsim: fitting seed 003's fault_entry_exit on the %d MiB Read/POPULATE_READ pair\n",
		S3_FIT_MIB);
	if ((rc = fit_entry(o, s3_target, &e_fit, &fit_ratio, err)))
		goto out;

	jobs = calloc(cap, sizeof(*jobs));
	if (!jobs) {
		rc = mm_fail(err, MM_ENOMEM, "out of memory");
		goto out;
	}
	for (int p = 0; p < NPOINTS; p++)
		jobs[njobs++] = (struct job){.point = p};
	for (int p = 0; p < NPOINTS; p++)
		if (o->sensitivity && points[p].sens && (njobs = add_sens_jobs(p, jobs, njobs, cap, err)) < 0) {
			rc = err->code ? err->code : MM_EINVAL;
			goto out;
		}
	int done = 0;

#pragma omp parallel for schedule(dynamic, 1)
	for (int j = 0; j < njobs; j++) {
		jobs[j].rc = simulate(&points[jobs[j].point], jobs[j].ch.factor > 0 ? &jobs[j].ch : NULL, e_fit, o,
				      &jobs[j].value, j < NPOINTS && has_s1_rows(jobs[j].point) ? jobs[j].s1 : NULL,
				      &jobs[j].err);
#pragma omp critical(mmsim_reproduce_progress)
		{
			done++;
			if (o->progress)
				fprintf(stderr, "\rmmsim: %d/%d simulations%s", done, njobs, done == njobs ? "\n" : "");
		}
	}
	for (int j = 0; j < njobs; j++)
		if (jobs[j].rc && j >= NPOINTS && jobs[j].rc == MM_ERANGE)
			jobs[j].value = NAN; /* that change makes the profile impossible (e.g. smt_factor < 1) */
		else if (jobs[j].rc) {
			rc = mm_fail(err, jobs[j].rc, "%s: %s", points[jobs[j].point].variant, jobs[j].err.msg);
			goto out;
		}
	for (int p = 0; p < NPOINTS; p++)
		base[p] = jobs[p].value;

	/* seed_measurements.csv */
	if (csv)
		printf("source,id,variant,machine,tasks,metric,measured,predicted,error_pct,role,note\n");
	else
		printf("seeds 000/001/002/004 (data/reference/seed_measurements.csv): published number, mmsim's, "
		       "error\n  %-22s %-27s %-15s %5s %12s %12s %8s  %-9s %s\n",
		       "id", "variant", "machine", "tasks", "measured", "predicted", "error%", "role", "note");
	for (size_t i = 0; i < sizeof(seed_rows) / sizeof(seed_rows[0]); i++) {
		const struct point *pt = &points[seed_rows[i].point];
		char unit[32] = "";
		double meas = find_seed_value(seeds, seed_rows[i].id, unit, sizeof(unit)),
		       pred = base[seed_rows[i].point];
		double e = 100.0 * (pred - meas) / meas;

		if (isnan(meas)) {
			rc = mm_fail(err, MM_EPARSE, "data/reference/seed_measurements.csv: no row '%s'",
				     seed_rows[i].id);
			goto out;
		}
		if (csv)
			printf("seed_measurements,%s,%s,%s,%d,%s,%.6g,%.6g,%.1f,%s,\"%s\"\n", seed_rows[i].id,
			       pt->variant, pt->machine, pt->tasks, unit, meas, pred, e, role_name(seed_rows[i].fitted),
			       seed_rows[i].note);
		else
			printf("  %-22s %-27s %-15s %5d %12.6g %12.6g %+8.1f  %-9s %s%s%s\n", seed_rows[i].id,
			       pt->variant, pt->machine, pt->tasks, meas, pred, e, role_name(seed_rows[i].fitted), unit,
			       seed_rows[i].note[0] ? "; " : "", seed_rows[i].note);
	}

	/* seed001_profile.csv */
	if (!csv)
		printf("\nseed 001's perf profile (data/reference/seed001_profile.csv): %% of on-CPU time, published "
		       "(perf's\n  do_user_addr_fault and its children, 96 threads assumed) and explain's (the steps "
		       "that stand for it)\n  %-7s %-45s %9s %9s  %-10s %s\n",
		       "kernel", "function", "published", "predicted", "role", "note");
	for (int r = 0; r < S1_NROWS; r++) {
		const struct point *pt = &points[s1_rows[r].point];
		double meas = s1_published(s1, s1_rows[r].kernel, s1_rows[r].published),
		       pred = jobs[s1_rows[r].point].s1[r];

		if (isnan(meas)) {
			rc = mm_fail(err, MM_EPARSE, "data/reference/seed001_profile.csv: no %s row for each of '%s'",
				     s1_rows[r].kernel, s1_rows[r].published);
			goto out;
		}
		if (csv)
			printf("seed001_profile,%s/%s,%s,%s,%d,pct_on_cpu,%.6g,%.6g,%.1f,predicted,\"%s\"\n",
			       s1_rows[r].kernel, s1_rows[r].published, pt->variant, pt->machine, pt->tasks, meas, pred,
			       100.0 * (pred - meas) / meas, s1_rows[r].note);
		else
			printf("  %-7s %-45s %9.2f %9.2f  %-10s %s\n", s1_rows[r].kernel, s1_rows[r].published, meas,
			       pred, "predicted", s1_rows[r].note);
	}

	/* madv_populate_seed003.csv: every cell */
	if (!csv)
		printf(
		    "\nseed 003 (data/reference/madv_populate_seed003.csv): one task, machine not published (generic "
		    "profile:\n  absolute times are what-ifs, the ratios are the test); scenarios/madv_populate.scn, "
		    "kernel 5.11 (the RFC's base).\n  fault_entry_exit fitted on the %d MiB private anonymous "
		    "Read/POPULATE_READ pair: %.0f cycles (ratio %.3f,\n  published %.3f).  The model's per-page "
		    "times do not depend on the region's size.\n  %6s %-12s %-12s %-15s %10s %10s %8s  %-9s %s\n",
		    S3_FIT_MIB, e_fit, fit_ratio, s3_target, "MiB", "mapping", "backing", "method", "meas_ms",
		    "pred_ms", "error%", "role", "variant");
	for (const char *cur = s3; repro_next_line(&cur, line, sizeof(line));) {
		int pi, mib;

		if (line[0] == '#' || repro_csv_split(line, f, 8) != 5 || !((mib = atoi(f[0])) > 0))
			continue;
		if ((pi = s3_cell_point(f[1], f[2], f[3])) < 0) {
			rc = mm_fail(err, MM_EPARSE,
				     "data/reference/madv_populate_seed003.csv: no variant for the cell '%s,%s,%s' "
				     "(mappings MAP_PRIVATE, MAP_SHARED; backings Anonymous, Memfd 4 KiB, Memfd 2 MiB; "
				     "methods Read, Write, Read+Write, POPULATE, POPULATE_READ, POPULATE_WRITE)",
				     f[1], f[2], f[3]);
			goto out;
		}
		double meas = strtod(f[4], NULL), pred = s3_predicted(base, mib, f[1], f[2], f[3]);
		double e = 100.0 * (pred - meas) / meas;
		int fitted = s3_fitted(mib, f[1], f[2], f[3]);

		if (csv)
			printf("madv_populate_seed003,%s/%s/%s/%s,%s,generic,1,ms,%.6g,%.6g,%.1f,%s,\"%s\"\n", f[0],
			       f[1], f[2], f[3], points[pi].variant, meas, pred, e, role_name(fitted),
			       fitted ? "the pair fault_entry_exit was fitted on" : "");
		else
			printf("  %6s %-12s %-12s %-15s %10.3f %10.3f %+8.1f  %-9s %s\n", f[0], f[1], f[2], f[3], meas,
			       pred, e, role_name(fitted), points[pi].variant);
	}
	/* the bars: ratios within one backing, which do not depend on the machine's unknown speed as much */
	{
		static const struct {
			const char *num, *den;
		} ratios[] = {{"Read", "Write"},
			      {"Read", "POPULATE_READ"},
			      {"Write", "POPULATE_WRITE"},
			      {"Read+Write", "Write"},
			      {"POPULATE_READ", "POPULATE_WRITE"}};
		int nr = (int)(sizeof(ratios) / sizeof(ratios[0])), counted = 0, within = 0;

		if (!csv) {
			printf("\n  seed 003 ratios within each backing, measured / predicted (error%%):\n  %6s %-12s "
			       "%-12s",
			       "MiB", "mapping", "backing");
			for (int r = 0; r < nr; r++) {
				char name[48];

				snprintf(name, sizeof(name), "%s/%s", ratios[r].num, ratios[r].den);
				printf(" %-23s", name);
			}
			printf("\n");
		}
		for (int z = 0; z < S3_NSIZES; z++)
			for (int m = 0; m < S3_NM; m++)
				for (int b = 0; b < S3_NB; b++) {
					const char *mp = s3_mappings[m].csv, *bk = s3_backings[b].csv;

					if (!csv)
						printf("  %6d %-12s %-12s", s3_sizes[z], mp, bk);
					for (int r = 0; r < nr; r++) {
						double mn = s3_value(s3, s3_sizes[z], mp, bk, ratios[r].num),
						       md = s3_value(s3, s3_sizes[z], mp, bk, ratios[r].den);
						double meas = mn / md,
						       pred = s3_predicted(base, s3_sizes[z], mp, bk, ratios[r].num) /
							      s3_predicted(base, s3_sizes[z], mp, bk, ratios[r].den);
						double e = 100.0 * (pred - meas) / meas;
						int fitted = s3_fitted(s3_sizes[z], mp, bk, ratios[r].num) &&
							     s3_fitted(s3_sizes[z], mp, bk, ratios[r].den);
						char cell[48];

						if (isnan(meas)) {
							rc = mm_fail(
							    err, MM_EPARSE,
							    "data/reference/madv_populate_seed003.csv: no %d MiB %s "
							    "%s row for %s or %s",
							    s3_sizes[z], mp, bk, ratios[r].num, ratios[r].den);
							goto out;
						}
						if (!fitted) {
							counted++;
							within += fabs(e) <= 25;
						}
						if (csv) {
							printf("seed003_ratio,%d/%s/%s/%s/%s,%s/"
							       "%s,generic,1,ratio,%.6g,%.6g,%.1f,%s,"
							       "\"\"\n",
							       s3_sizes[z], mp, bk, ratios[r].num, ratios[r].den,
							       points[s3_cell_point(mp, bk, ratios[r].num)].variant,
							       points[s3_cell_point(mp, bk, ratios[r].den)].variant,
							       meas, pred, e, role_name(fitted));
							continue;
						}
						snprintf(cell, sizeof(cell), "%.2f/%.2f (%+.0f)%s", meas, pred, e,
							 fitted ? "f" : "");
						printf(" %-23s", cell);
					}
					if (!csv)
						printf("\n");
				}
		if (csv)
			printf(
			    "seed003_summary,ratios_within_25pct,,generic,1,count,%d,%d,,predicted,\"of the predicted "
			    "ratios\"\n",
			    counted, within);
		else
			printf(
			    "  (f: the fitted pair.)  Predicted ratios within 25%%: %d of %d (%.0f%%; the bar: 80%%)\n",
			    within, counted, 100.0 * within / counted);
	}
	/* the published "X is faster than Y" (the seed's discussion), at every size */
	{
		int n = 0, right = 0;

		if (!csv)
			printf("\n  seed 003's statements, at each size: the ratio of the two times, measured and "
			       "predicted\n  %6s %-12s %-12s %-41s %6s %6s\n",
			       "MiB", "mapping", "backing", "statement", "meas", "pred");
		for (int z = 0; z < S3_NSIZES; z++) {
			for (int m = 0; m < S3_NM; m++)
				for (int b = 0; b < S3_NB; b++)
					for (int k = 0; k < 3; k++) {
						const char *mp = s3_mappings[m].csv, *bk = s3_backings[b].csv;
						const char *fast, *slow, *say;
						int mpriv_memfd = m == 0 && b == 1, flat = b == 2;
						double mr, pr;
						int ok;

						/* 1: "in all 4k cases POPULATE_READ/_WRITE are faster than reading or
						 * writing", 2: "except on Memfd 4 KiB with MAP_PRIVATE: POPULATE_WRITE
						 * is slower than a simple write", 3: there "a read fault is
						 * exceptionally slower than a write fault", 4: "with huge pages the
						 * benefit is negligible" (agreement as in reproduce published: both
						 * within 3%, or both beyond it the same way; the measured ratio's 3%
						 * widened by its rounding) */
						if (k == 0) {
							fast = "POPULATE_READ", slow = "Read";
						} else if (k == 1) {
							fast = mpriv_memfd ? "Write" : "POPULATE_WRITE";
							slow = mpriv_memfd ? "POPULATE_WRITE" : "Write";
						} else if (mpriv_memfd) {
							fast = "Write", slow = "Read";
						} else {
							continue;
						}
						double hf, hs, vf, vs, tol;

						say = flat ? "as fast as" : "faster than";
						vf = s3_value_digits(s3, s3_sizes[z], mp, bk, fast, &hf);
						vs = s3_value_digits(s3, s3_sizes[z], mp, bk, slow, &hs);
						mr = vf / vs;
						/* the measured ratio's own uncertainty: the seed prints 3 decimals
						 * (0.030 against 0.031 ms is a tie) */
						tol = 0.03 + hf / vf + hs / vs;
						pr = s3_predicted(base, s3_sizes[z], mp, bk, fast) /
						     s3_predicted(base, s3_sizes[z], mp, bk, slow);
						if (flat)
							ok = (fabs(mr - 1) <= tol && fabs(pr - 1) <= 0.03) ||
							     (mr > 1 + tol && pr > 1.03) || (mr < 1 - tol && pr < 0.97);
						else
							ok = pr < 1;
						n++;
						right += ok;
						if (csv)
							printf("seed003_statement,%d/%s/%s/%s %s than "
							       "%s,,generic,1,ratio,%.6g,%.6g,,"
							       "predicted,\"%s\"\n",
							       s3_sizes[z], mp, bk, fast, flat ? "no faster" : "faster",
							       slow, mr, pr, ok ? "right" : "wrong");
						else
							printf("  %6d %-12s %-12s %-14s %-11s %-14s %6.3f %6.3f  "
							       "%s\n",
							       s3_sizes[z], mp, bk, fast, say, slow, mr, pr,
							       ok ? "right" : "WRONG");
					}
		}
		if (csv)
			printf("seed003_summary,statements_right,,generic,1,count,%d,%d,,predicted,\"\"\n", n, right);
		else
			printf("  Statements the model gets right: %d of %d\n", right, n);
	}
	if (o->sensitivity)
		print_sensitivity(jobs, njobs, base, csv);
	else if (!csv)
		printf("\nsensitivity: not computed (--no-sensitivity)\n");
out:
	free(jobs);
	free(seeds);
	free(s3);
	free(s1);
	return rc;
}
