/* SPDX-License-Identifier: MIT */
/*
 * Scenarios: one operation of a benchmark, written as ordered steps in a
 * small language (README, "Scenario language").  A file declares the
 * objects the steps touch (fields on cache lines, locks) with their scope,
 * the variants (lock designs, patches) with the kernel version each one
 * models, the roles some tasks play (a lock benchmark's readers and
 * writers), and the steps of one operation.  Each step names the kernel
 * function it stands for, so reports read like perf.
 *
 * scenario_parse() checks the syntax and the names; scenario_compile()
 * picks one variant and resolves named costs and batch sizes against a
 * kernel profile, giving the flat program the simulation runs.
 */
#ifndef MMSIM_SCENARIO_H
#define MMSIM_SCENARIO_H

#include <stddef.h>
#include <stdint.h>
#include "lock.h"
#include "mm_error.h"
#include "profile.h"

#define SC_NAME 64
#define SC_MAX_VARIANTS 64
/* a set of variants, bit v for variant v (SC_MAX_VARIANTS bits) */
typedef uint64_t sc_varmask;
#define SC_VBIT(v) ((sc_varmask)1 << (v))
/* 'define NAME ... end' blocks in one scenario file */
#define SC_MAX_DEFINES 64
#define SC_MAX_ROLES 8

enum sc_scope {
	SC_GLOBAL = 0, /* one for the machine */
	SC_NODE,       /* one per NUMA node (the task's node) */
	SC_CPU,	       /* one per CPU */
	SC_MEMCG,      /* one per memory cgroup (all tasks share one) */
	SC_FILE,       /* one per file: each task has its own, as will-it-scale */
	SC_MM,	       /* one per mm: shared by all tasks in thread mode */
	SC_TASK,       /* one per task */
	SC_VMA,	       /* one per VMA: each task maps its own */
	SC_PTPAGE,     /* one per page-table page of the task's mapping */
	SC_PAGE,       /* one per page of the task's mapping */
	SC_NSCOPES
};

enum sc_mode { SC_THREADS = 0, SC_PROCESSES };

enum sc_act {
	SA_COMPUTE = 0,
	SA_LOAD,
	SA_STORE,
	SA_ATOMIC,
	SA_CMPXCHG,
	SA_PREFETCHW,
	SA_FENCE,
	SA_LOCK,
	SA_TRYLOCK,
	SA_UNLOCK,
	SA_DOWNGRADE,
	SA_MEMORY, /* stream bytes to or from DRAM: the node's bandwidth is shared */
	SA_IPI,	   /* interrupt the other CPUs running this mm (TLB shootdown) */
	SA_MISS,   /* accesses that go to DRAM once the tasks' footprint spills the last-level cache */
	SA_REPEAT,
	SA_EVERY,
	SA_ONLY,
	SA_AS,	   /* as ROLE ... end: the body only for the tasks of that role */
	SA_CHOOSE, /* choose P% ... [else ...] end: the first branch with probability P% */
	SA_ELSE,
	SA_END,
	SA_NACTS
};

struct sc_object {
	char name[SC_NAME];
	int is_lock;
	const struct lock_kind *kind; /* a lock: its kind (lock.h lock_kinds[]) */
	enum sc_scope scope;
	int count; /* instances per scope instance (indexed objects) */
	int line_no;
};

struct sc_variant {
	char name[SC_NAME];
	char kernel[32]; /* version, e.g. "5.11": kernel profile linux-5.11; or the file word as written */
	/* 'kernel FILE' (a word with '/' or ending in .conf or .ini): the profile's path, resolved
	 * against the directory of the scenario file that names it; "" for a version */
	char kernel_file[512];
	char doc[256];
	int line_no;
};

/*
 * A role: some of the tasks, which alone run the steps of its 'as' blocks ('role NAME tasks N':
 * N of them; 'role NAME share P%': P% of those the 'tasks N' roles leave).
 */
struct sc_role {
	char name[SC_NAME];
	int ntasks;   /* 'tasks N': N; 0 for a share */
	double share; /* 'share P%': P (percent); 0 for a count */
	int rt;	      /* 'rt' after it: its tasks are real-time (SCHED_FIFO) */
	int line_no;
};

struct sc_step {
	enum sc_act act;
	int line_no, col;
	int fn;	     /* index into scenario.fn[] (-1 for control lines) */
	int obj;     /* object index, or -1 */
	int idx_div; /* 0: not indexed; else index = i / idx_div (1 for [i]) */
	enum lock_mode mode;
	char name[SC_NAME];  /* named cost or count, "" if literal */
	double literal;	     /* literal cost in ns or cycles, count, or bytes */
	int literal_unit;    /* 0 count, 1 ns, 2 cycles */
	int exp_dist;	     /* COMPUTE: exponentially distributed with that mean */
	sc_varmask variants; /* bit v set: the step belongs to variant v */
	int match;	     /* REPEAT/EVERY/ONLY/AS/CHOOSE: index of the END; END, ELSE: of the opener */
	int alt1;	     /* 'lock V read else M': M's object index + 1 (0: none) */
	int role;	     /* AS: the role's index */
	int alt;	     /* CHOOSE: index of its ELSE (0: none) */
};

struct scenario {
	char path[4096];
	char name[SC_NAME];
	char title[256];
	char opdoc[256];
	enum sc_mode mode;
	int64_t work;		       /* > 0: fixed work by default, that many operations per task */
	enum topo_placement placement; /* 'placement wis|spread': how the tasks are put on CPUs (wis) */
	int placement_line;	       /* its line, 0 when not given */
	/* bytes of cache one task cycles through before it comes back to a line ('footprint'), per
	 * variant; 0: not given, and no 'miss' step goes cold */
	double footprint[SC_MAX_VARIANTS];
	int builtin;
	int nobj, nvar, nsteps, nfn, nrole;
	struct sc_role role[SC_MAX_ROLES];
	struct sc_object *obj;
	struct sc_variant var[SC_MAX_VARIANTS];
	struct sc_step *step;
	char (*fn)[SC_NAME];
};

int scenario_parse(struct scenario *sc, const char *origin, const char *text, struct mm_error *err);
/* By builtin scenario name, by variant name of a builtin, by file path, or as SCENARIO:VARIANT
 * (a built-in scenario or a file, and one of its variants).  *variant is set to the variant
 * index asked for by name, or -1. */
int scenario_load(struct scenario *sc, const char *name_or_path, int *variant, struct mm_error *err);
void scenario_free(struct scenario *sc);
int scenario_variant(const struct scenario *sc, const char *name);
/* The kernel profile variant @v models, for profile_load: its file, or "linux-VERSION" in @buf. */
const char *scenario_kernel_profile(const struct sc_variant *v, char *buf, size_t cap);
const char *sc_scope_name(enum sc_scope s);
const char *sc_act_name(enum sc_act a);

/*
 * The roles of a run of @ntasks tasks: count[r] tasks have role r (r < sc->nrole), count[nrole]
 * none; role_of[i] is task i's (nrole: none).  The 'tasks N' roles take theirs first, then the
 * share roles split the rest by cumulative rounding; the tasks are dealt out interleaved in
 * proportion (README, "Roles").  @role_of and @count may be NULL.  0, or MM_ERANGE when the
 * 'tasks N' roles want more tasks than the run has.
 */
int scenario_assign_roles(const struct scenario *sc, int ntasks, int *role_of, int *count, struct mm_error *err);

/* ---- compiled program --------------------------------------------------- */

struct prog_insn {
	enum sc_act act;
	int fn;
	int obj;
	int idx_div;
	enum lock_mode mode;
	double cycles;	/* COMPUTE, IPI (handler at each target): cost in cycles (0 if ns) */
	double ns;	/* COMPUTE, IPI: cost in ns (literal) */
	double misses;	/* MISS: DRAM accesses per visit when cold */
	int exp_dist;	/* COMPUTE: exponentially distributed, with that mean */
	int64_t count;	/* REPEAT / EVERY; MEMORY: bytes */
	int match;	/* index of the matching END / opener */
	int alt1;	/* LOCK of a vma_lock for read: the rwsem to fall back to, object index + 1; 0: none */
	int role;	/* AS: the role whose tasks run the body */
	int alt;	/* CHOOSE: index of its ELSE, -1: none */
	double prob;	/* CHOOSE: the chance of the first branch, 0 to 1 */
	int lay;	/* EVERY: 1 + its index in program.layout (a folio layout's units), 0: a count */
	int unit_pages; /* REPEAT: 1 the pages of the unit the innermost layout 'every' fired on, 2 less one,
			   3 the unit's folios, 4 their pages */
	double mean;	/* EVERY of a layout: pages per unit of its class; REPEAT unit_pages: pages per unit */
	int src_line;
};

/*
 * The units one pass over a task's file maps, one class of them (PTE-mapped or PMD-mapped), in file
 * order (README, "Large folios"): an 'every' of the layout fires at the last page of each unit.
 */
struct prog_layout {
	char name[32];
	int n;		  /* units of the class in one pass (0: the body never runs) */
	int64_t pass;	  /* pages of one pass: [batch] pages_per_map */
	int64_t *gap;	  /* pages from the end of the class's previous unit (cyclically) to the end of this one */
	int64_t *pages;	  /* pages of each unit */
	int64_t *nfolios; /* folios each unit maps (all or part of): a read window over small folios, several */
	int64_t *fpages;  /* the pages of those folios: a page of a large folio written alone, the folio's */
	int64_t *end;	  /* where each unit ends, pages from the start of the pass */
	int64_t total;	  /* their sum: the pages of the pass that units of this class map */
	int64_t folios;	  /* the folios of the pass whose pages are in this class */
};

/* Whether unit @j of @L is a run of two or more pages of one folio ('repeat unit_large_folio'):
 * the compiled estimate and the interpreter both ask this. */
static inline int prog_unit_large(const struct prog_layout *L, int j)
{
	return L->nfolios[j] == 1 && L->pages[j] > 1;
}

#define PROG_MAX_LAYOUTS 4

struct program {
	const struct scenario *sc;
	int variant;
	int n;
	struct prog_insn *insn;
	double units_per_op;	       /* step visits per operation (for fractional progress) */
	double footprint;	       /* the variant's, bytes (0: not given) */
	enum topo_placement placement; /* the scenario's (or what the command line put there) */
	double *visits;		       /* visits of each step per operation */
	/* Per role r (r = nrole: a task without one), visits of each step per operation of such a
	 * task, role_visits[r * n + pc], and their sum.  'visits' and 'units_per_op' above weigh the
	 * role blocks by the roles' shares alone, as at a large task count where the 'tasks N'
	 * roles weigh nothing; a run weighs them by its own tasks (program_mix_visits). */
	int nrole;
	double *role_visits;
	double role_units[SC_MAX_ROLES + 1];
	int nlayout;
	struct prog_layout layout[PROG_MAX_LAYOUTS];
};

int scenario_compile(const struct scenario *sc, int variant, const struct kernel_profile *k, struct program *out,
		     struct mm_error *err);
/*
 * Every [layout], [costs], [batch] and [misses] key of @k's profile is named by one of the @nsc
 * scenarios @sc (the scenarios of a run, which may share @k) or by some built-in scenario: a key
 * that nothing reads is a typo whose what-if would silently equal the baseline.  0, or MM_EPARSE
 * naming FILE:LINE:COL and the nearest name.  scenario_compile() checks it against its own
 * scenario unless k->names_checked says that the run has checked it against all of its own.
 */
int scenario_check_kernel_names(const struct kernel_profile *k, const struct scenario *sc, int nsc,
				struct mm_error *err);
/* Each [layout] name (an object, or LOCK.FIELD for a line of its design) of @sc, or of every built-in
 * scenario when @sc is NULL (sorted, once each), given to @fn.  0, or an error code with @err. */
int scenario_layout_names(const struct scenario *sc, void (*fn)(void *arg, const char *name), void *arg,
			  struct mm_error *err);
void program_free(struct program *p);
/* Where a task @pos pages into a pass stands in @L: the unit whose last page comes next (*unit), and
 * the visits since the class's previous unit ended (*since: what the 'every' counter holds there). */
void prog_layout_at(const struct prog_layout *L, int64_t pos, int *unit, int64_t *since);

/* Per-operation counts of the compiled program (no simulation needed). */
struct op_counts {
	double faults;		      /* visits of asm_exc_page_fault (page_fault before 5.8) */
	double lock_read, lock_write; /* acquisitions of the lock asked for, trylocks included */
	double lock_blocking;	      /* of which through lock (not trylock); mmap_lock_start_locking fires for
				       * both: mmap_read_trylock calls it too (include/linux/mmap_lock.h) */
	double ipis;		      /* TLB-shootdown steps (each IPIs every other CPU of the mm) */
	double bytes;		      /* streamed to or from DRAM */
	double misses;		      /* DRAM accesses of 'miss' steps, when cold */
};

void op_counts(const struct program *pr, const char *lock, struct op_counts *c);

/* Does a step of variant @v name the kernel's [costs] entry @key (its compute and ipi steps: the
 * ones scenario_compile resolves in [costs])? */
int scenario_uses_cost(const struct scenario *sc, int v, const char *key);
/* Visits per op of the program's rarest step that runs at all (1 when every step runs each op):
 * an munmap every 32768 faults gives 1/32768. */
double program_rarest_visits(const struct program *pr);
/* Visits of each step per operation of the average task, @count[r] tasks of role r (as
 * scenario_assign_roles gives them), into @out (pr->n entries); returns the steps per operation. */
double program_mix_visits(const struct program *pr, const int *count, double *out);

#endif
