/* SPDX-License-Identifier: MIT */
/*
 * Tests for model/scenario.c: the scenario language (scenario_parse) and
 * its compilation against a kernel profile (scenario_compile), with
 * answers worked out by hand, and the messages of malformed scenarios.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"
#include "scenario.h"

#define PIN_FAST_PATH MMSIM_SOURCE_DIR "/scenarios/pin_fast.scn"
#define K511_PATH MMSIM_SOURCE_DIR "/data/kernels/linux-5.11.conf"

/* ---- helpers ------------------------------------------------------------- */

static char *read_text(const char *path)
{
	struct mm_error err = {0};
	char *text = NULL;

	if (mm_read_text_file(path, &text, &err))
		fail_msg("cannot read %s: %s", path, err.msg);
	return text;
}

struct kern {
	struct profile p;
	struct kernel_profile k;
};

static void load_kernel_file(struct kern *kk, const char *path)
{
	struct mm_error err = {0};

	memset(kk, 0, sizeof(*kk));
	if (profile_load(&kk->p, "kernels", path, &err))
		fail_msg("profile_load(%s): %s", path, err.msg);
	if (kernel_profile_derive(&kk->k, &kk->p, &err))
		fail_msg("kernel_profile_derive(%s): %s", path, err.msg);
}

static void parse_ok(struct scenario *sc, const char *origin, const char *text)
{
	struct mm_error err = {0};

	if (scenario_parse(sc, origin, text, &err))
		fail_msg("scenario_parse(%s): %s", origin, err.msg);
}

static void compile_ok(const struct scenario *sc, int v, const struct kernel_profile *k, struct program *pr)
{
	struct mm_error err = {0};

	if (scenario_compile(sc, v, k, pr, &err))
		fail_msg("scenario_compile(%s, variant %d): %s", sc->path, v, err.msg);
}

static double cost_of(const struct profile *p, const char *name)
{
	const struct prof_entry *e = profile_find(p, "costs", name);

	if (!e)
		fail_msg("kernel profile %s has no [costs] %s", p->path, name);
	assert_true(e->is_num);
	return e->num;
}

static double batch_of(const struct profile *p, const char *name)
{
	const struct prof_entry *e = profile_find(p, "batch", name);

	if (!e)
		fail_msg("kernel profile %s has no [batch] %s", p->path, name);
	assert_true(e->is_num);
	return e->num;
}

static int obj_index(const struct scenario *sc, const char *name)
{
	for (int i = 0; i < sc->nobj; i++)
		if (!strcmp(sc->obj[i].name, name))
			return i;
	fail_msg("scenario %s has no object '%s'", sc->name, name);
	return -1;
}

static void assert_near(double got, double want)
{
	if (fabs(got - want) > 1e-9 * (fabs(want) > 1 ? fabs(want) : 1))
		fail_msg("got %.17g, expected %.17g", got, want);
}

/* ---- pin_fast, the builtin scenario -------------------------------------- */

static void test_pin_fast_parse(void **state)
{
	static const struct {
		const char *name;
		enum sc_scope scope;
		int count;
	} objs[] = {
	    {"mm.has_pinned", SC_MM, 1},    {"mm.write_protect_seq", SC_MM, 1}, {"thp.head", SC_TASK, 2},
	    {"thp.pincount", SC_TASK, 2},   {"vmstat.cpu_diff", SC_CPU, 1},	{"pgdat.vm_stat", SC_NODE, 1},
	    {"vm_node_stat", SC_GLOBAL, 1},
	};
	struct scenario sc;
	char *text = read_text(PIN_FAST_PATH);

	(void)state;
	parse_ok(&sc, PIN_FAST_PATH, text);
	assert_string_equal(sc.name, "pin_fast");
	assert_string_equal(sc.path, PIN_FAST_PATH);
	assert_int_equal(sc.mode, SC_THREADS);
	assert_true(sc.title[0] != 0);
	assert_true(sc.opdoc[0] != 0);
	assert_int_equal(sc.nvar, 2);
	assert_string_equal(sc.var[0].name, "has_pinned_write");
	assert_string_equal(sc.var[1].name, "has_pinned_check");
	for (int v = 0; v < 2; v++) {
		assert_string_equal(sc.var[v].kernel, "5.11");
		assert_true(sc.var[v].doc[0] != 0);
	}
	assert_int_equal(scenario_variant(&sc, "has_pinned_check"), 1);
	assert_int_equal(scenario_variant(&sc, "nope"), -1);

	assert_int_equal(sc.nobj, (int)(sizeof(objs) / sizeof(objs[0])));
	for (size_t i = 0; i < sizeof(objs) / sizeof(objs[0]); i++) {
		int o = obj_index(&sc, objs[i].name);

		assert_int_equal(sc.obj[o].scope, objs[i].scope);
		assert_int_equal(sc.obj[o].count, objs[i].count);
		assert_int_equal(sc.obj[o].is_lock, 0);
	}
	assert_string_equal(sc_scope_name(SC_PTPAGE), "ptpage");
	assert_string_equal(sc_act_name(SA_DOWNGRADE), "downgrade");

	/* 28 steps after begin; the first and the last are compute. */
	assert_int_equal(sc.nsteps, 28);
	assert_int_equal(sc.step[0].act, SA_COMPUTE);
	assert_string_equal(sc.step[0].name, "gup_test_ioctl_entry");
	assert_string_equal(sc.fn[sc.step[0].fn], "__gup_test_ioctl");
	assert_int_equal(sc.step[1].act, SA_REPEAT);
	assert_int_equal((int)sc.step[1].literal, 1024);
	assert_int_equal(sc.step[1].match, 15);
	assert_int_equal(sc.step[15].act, SA_END);
	assert_int_equal(sc.step[15].match, 1);
	/* the two 'when' steps */
	assert_int_equal(sc.step[2].act, SA_STORE);
	assert_int_equal(sc.step[2].variants, 1u << 0);
	assert_int_equal(sc.step[3].act, SA_LOAD);
	assert_int_equal(sc.step[3].variants, 1u << 1);
	assert_int_equal(sc.step[2].obj, obj_index(&sc, "mm.has_pinned"));
	/* try_grab_compound_head atomic thp.head[i/512] */
	assert_int_equal(sc.step[6].act, SA_ATOMIC);
	assert_int_equal(sc.step[6].obj, obj_index(&sc, "thp.head"));
	assert_int_equal(sc.step[6].idx_div, 512);
	assert_int_equal(sc.step[4].idx_div, 0);
	/* every vmstat_threshold: a named count */
	assert_int_equal(sc.step[9].act, SA_EVERY);
	assert_string_equal(sc.step[9].name, "vmstat_threshold");
	assert_int_equal(sc.step[27].act, SA_COMPUTE);
	assert_string_equal(sc.step[27].name, "gup_test_ioctl_exit");
	scenario_free(&sc);
	assert_null(sc.step);
	free(text);
}

/*
 * Both variants against linux-5.11: each drops one of the two 'when' steps,
 * so each program has 27 instructions.  Visits worked out by hand: 5
 * instructions once per op (entry, the two repeats, verify, exit), 16
 * 1024 times (the bodies of the two repeat 1024 and their ends, the every
 * lines included) and 6 1024/T times (the two every blocks and their ends,
 * T the [batch] vmstat_threshold).
 */
static void test_pin_fast_compile(void **state)
{
	struct scenario sc;
	struct kern kk;
	struct program pr[2];
	char *text = read_text(PIN_FAST_PATH);
	double T;

	(void)state;
	parse_ok(&sc, PIN_FAST_PATH, text);
	load_kernel_file(&kk, K511_PATH);
	assert_string_equal(kk.k.name, "linux-5.11");
	T = batch_of(&kk.p, "vmstat_threshold");
	for (int v = 0; v < 2; v++) {
		static const int once[] = {0, 1, 15, 16, 26};
		static const int per_page[] = {2, 3, 4, 5, 6, 7, 8, 12, 13, 14, 17, 18, 19, 23, 24, 25};
		static const int per_fold[] = {9, 10, 11, 20, 21, 22};
		double want_units = 5 + 16 * 1024.0 + 6 * 1024.0 / T;

		compile_ok(&sc, v, &kk.k, &pr[v]);
		assert_int_equal(pr[v].variant, v);
		assert_ptr_equal(pr[v].sc, &sc);
		assert_int_equal(pr[v].n, 27);
		assert_near(pr[v].units_per_op, want_units);
		for (size_t i = 0; i < sizeof(once) / sizeof(once[0]); i++)
			assert_near(pr[v].visits[once[i]], 1);
		for (size_t i = 0; i < sizeof(per_page) / sizeof(per_page[0]); i++)
			assert_near(pr[v].visits[per_page[i]], 1024);
		for (size_t i = 0; i < sizeof(per_fold) / sizeof(per_fold[0]); i++)
			assert_near(pr[v].visits[per_fold[i]], 1024 / T);
		/* compute steps resolve to the profile's cycles */
		assert_int_equal(pr[v].insn[0].act, SA_COMPUTE);
		assert_near(pr[v].insn[0].cycles, cost_of(&kk.p, "gup_test_ioctl_entry"));
		assert_near(pr[v].insn[0].ns, 0);
		assert_int_equal(pr[v].insn[4].act, SA_COMPUTE);
		assert_near(pr[v].insn[4].cycles, cost_of(&kk.p, "gup_fast_walk"));
		assert_near(pr[v].insn[15].cycles, cost_of(&kk.p, "gup_test_verify"));
		assert_near(pr[v].insn[17].cycles, cost_of(&kk.p, "unpin_user_page"));
		assert_int_equal(pr[v].insn[26].act, SA_COMPUTE);
		assert_near(pr[v].insn[26].cycles, cost_of(&kk.p, "gup_test_ioctl_exit"));
		/* the repeats take their literal count, the every blocks the [batch] value */
		assert_int_equal(pr[v].insn[1].act, SA_REPEAT);
		assert_int_equal(pr[v].insn[1].count, 1024);
		assert_int_equal(pr[v].insn[16].act, SA_REPEAT);
		assert_int_equal(pr[v].insn[16].count, 1024);
		assert_int_equal(pr[v].insn[8].act, SA_EVERY);
		assert_int_equal(pr[v].insn[8].count, (int64_t)T);
		assert_int_equal(pr[v].insn[19].act, SA_EVERY);
		assert_int_equal(pr[v].insn[19].count, (int64_t)T);
		/* matches renumbered after the dropped step */
		assert_int_equal(pr[v].insn[1].match, 14);
		assert_int_equal(pr[v].insn[14].act, SA_END);
		assert_int_equal(pr[v].insn[14].match, 1);
		assert_int_equal(pr[v].insn[8].match, 11);
		assert_int_equal(pr[v].insn[11].match, 8);
		assert_int_equal(pr[v].insn[16].match, 25);
		assert_int_equal(pr[v].insn[25].match, 16);
		assert_int_equal(pr[v].insn[19].match, 22);
		assert_int_equal(pr[v].insn[22].match, 19);
		/* thp.head[i/512] keeps its index */
		assert_int_equal(pr[v].insn[5].act, SA_ATOMIC);
		assert_int_equal(pr[v].insn[5].obj, obj_index(&sc, "thp.head"));
		assert_int_equal(pr[v].insn[5].idx_div, 512);
	}
	/* the one instruction where the variants differ */
	for (int i = 0; i < 27; i++) {
		if (i == 2)
			continue;
		assert_int_equal(pr[0].insn[i].act, pr[1].insn[i].act);
		assert_int_equal(pr[0].insn[i].obj, pr[1].insn[i].obj);
		assert_int_equal(pr[0].insn[i].src_line, pr[1].insn[i].src_line);
	}
	assert_int_equal(pr[0].insn[2].act, SA_STORE);
	assert_int_equal(pr[1].insn[2].act, SA_LOAD);
	assert_int_equal(pr[0].insn[2].obj, obj_index(&sc, "mm.has_pinned"));
	assert_int_equal(pr[1].insn[2].obj, obj_index(&sc, "mm.has_pinned"));
	assert_int_equal(pr[0].insn[2].src_line, sc.step[2].line_no);
	assert_int_equal(pr[1].insn[2].src_line, sc.step[3].line_no);
	program_free(&pr[0]);
	program_free(&pr[1]);
	assert_null(pr[0].insn);
	assert_null(pr[0].visits);
	profile_free(&kk.p);
	scenario_free(&sc);
	free(text);
}

/* The builtin copy (embedded at build time), by scenario name and by variant name. */
static void test_load_builtin(void **state)
{
	struct scenario sc, file;
	struct mm_error err = {0};
	char *text = read_text(PIN_FAST_PATH);
	int v;

	(void)state;
	if (scenario_load(&sc, "pin_fast", &v, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(v, -1);
	assert_int_equal(sc.builtin, 1);
	assert_string_equal(sc.path, "builtin:scenarios/pin_fast.scn");
	parse_ok(&file, PIN_FAST_PATH, text);
	assert_int_equal(sc.nsteps, file.nsteps);
	assert_int_equal(sc.nobj, file.nobj);
	scenario_free(&sc);

	if (scenario_load(&sc, "has_pinned_check", &v, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(v, 1);
	assert_string_equal(sc.name, "pin_fast");
	assert_int_equal(sc.builtin, 1);
	scenario_free(&sc);

	/* and by file path */
	if (scenario_load(&sc, PIN_FAST_PATH, &v, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(v, -1);
	assert_int_equal(sc.builtin, 0);
	assert_string_equal(sc.path, PIN_FAST_PATH);
	scenario_free(&sc);
	scenario_free(&file);
	free(text);
}

/* Windows line ends: the same steps at the same columns. */
static void test_crlf(void **state)
{
	struct scenario a, b;
	char *text = read_text(PIN_FAST_PATH);
	size_t n = strlen(text);
	char *crlf = malloc(2 * n + 1), *d = crlf;

	(void)state;
	assert_non_null(crlf);
	for (size_t i = 0; i < n; i++) {
		if (text[i] == '\n')
			*d++ = '\r';
		*d++ = text[i];
	}
	*d = 0;
	parse_ok(&a, "lf.scn", text);
	parse_ok(&b, "crlf.scn", crlf);
	assert_int_equal(a.nsteps, b.nsteps);
	assert_string_equal(a.title, b.title);
	for (int i = 0; i < a.nsteps; i++) {
		assert_int_equal(a.step[i].act, b.step[i].act);
		assert_int_equal(a.step[i].line_no, b.step[i].line_no);
		assert_int_equal(a.step[i].col, b.step[i].col);
		assert_string_equal(a.step[i].name, b.step[i].name);
	}
	scenario_free(&a);
	scenario_free(&b);
	free(crlf);
	free(text);
}

/* ---- small scenarios, worked out by hand --------------------------------- */

static const char small_scn[] = "scenario small\n"
				"title \"small\"\n"
				"op \"one op\"\n"
				"mode processes\n"
				"field f scope mm\n"
				"field g scope cpu count 4\n"
				"variant a kernel 5.11 \"A\"\n"
				"begin\n"
				"  entry compute gup_test_ioctl_entry\n" /* 0: once */
				"  repeat 4\n"				 /* 1: once */
				"    s1 load f\n"			 /* 2: 4 */
				"    s2 store g[i]\n"			 /* 3: 4 */
				"    s3 compute 120ns\n"		 /* 4: 4 */
				"    every 2\n"				 /* 5: 4 (tested each iteration) */
				"      s4 atomic f\n"			 /* 6: 2 */
				"    end\n"				 /* 7: 2 */
				"  end\n"				 /* 8: 4 (once per iteration) */
				"  exit compute 300cycles\n";		 /* 9: once */

static void test_small_visits(void **state)
{
	static const double want[10] = {1, 1, 4, 4, 4, 4, 2, 2, 4, 1};
	static const enum sc_act acts[10] = {SA_COMPUTE, SA_REPEAT, SA_LOAD, SA_STORE, SA_COMPUTE,
					     SA_EVERY,	 SA_ATOMIC, SA_END,  SA_END,   SA_COMPUTE};
	struct scenario sc;
	struct kern kk;
	struct program pr;

	(void)state;
	parse_ok(&sc, "small.scn", small_scn);
	assert_int_equal(sc.mode, SC_PROCESSES);
	assert_string_equal(sc.title, "small");
	assert_string_equal(sc.opdoc, "one op");
	assert_int_equal(sc.nsteps, 10);
	assert_int_equal(sc.nfn, 6); /* entry s1 s2 s3 s4 exit */
	assert_int_equal(sc.obj[1].count, 4);
	assert_int_equal(sc.obj[1].scope, SC_CPU);
	assert_int_equal(sc.step[3].idx_div, 1);
	/* line and column of steps */
	assert_int_equal(sc.step[0].line_no, 9);
	assert_int_equal(sc.step[0].col, 3);
	assert_int_equal(sc.step[6].line_no, 15);
	assert_int_equal(sc.step[6].col, 7);
	load_kernel_file(&kk, K511_PATH);
	compile_ok(&sc, 0, &kk.k, &pr);
	assert_int_equal(pr.n, 10);
	for (int i = 0; i < 10; i++) {
		assert_int_equal(pr.insn[i].act, acts[i]);
		assert_near(pr.visits[i], want[i]);
	}
	assert_near(pr.units_per_op, 27);
	assert_int_equal(pr.insn[1].count, 4);
	assert_int_equal(pr.insn[5].count, 2);
	assert_int_equal(pr.insn[1].match, 8);
	assert_int_equal(pr.insn[8].match, 1);
	assert_int_equal(pr.insn[5].match, 7);
	assert_int_equal(pr.insn[7].match, 5);
	/* named cost: the profile's cycles; literal costs as written */
	assert_near(pr.insn[0].cycles, cost_of(&kk.p, "gup_test_ioctl_entry"));
	assert_near(pr.insn[0].ns, 0);
	assert_near(pr.insn[4].ns, 120);
	assert_near(pr.insn[4].cycles, 0);
	assert_near(pr.insn[9].cycles, 300);
	assert_near(pr.insn[9].ns, 0);
	assert_int_equal(pr.insn[2].src_line, 11);
	assert_string_equal(sc.fn[pr.insn[6].fn], "s4");
	program_free(&pr);
	profile_free(&kk.p);
	scenario_free(&sc);
}

/* 'placement wis|spread' before begin: the scenario's, and the program's; wis when not said. */
static void test_placement(void **state)
{
	static const char text[] = "scenario x\nplacement spread\nvariant a kernel 5.11 \"A\"\nfield f scope mm\n"
				   "begin\n  fn load f\n";
	struct scenario sc;
	struct kern kk;
	struct program pr;

	(void)state;
	parse_ok(&sc, "p.scn", text);
	assert_int_equal(sc.placement, TOPO_PLACE_SPREAD);
	assert_int_equal(sc.placement_line, 2);
	load_kernel_file(&kk, K511_PATH);
	compile_ok(&sc, 0, &kk.k, &pr);
	assert_int_equal(pr.placement, TOPO_PLACE_SPREAD);
	program_free(&pr);
	scenario_free(&sc);
	parse_ok(&sc, "small.scn", small_scn);
	assert_int_equal(sc.placement, TOPO_PLACE_WIS);
	assert_int_equal(sc.placement_line, 0);
	compile_ok(&sc, 0, &kk.k, &pr);
	assert_int_equal(pr.placement, TOPO_PLACE_WIS);
	program_free(&pr);
	scenario_free(&sc);
	profile_free(&kk.p);
}

/* Nested repeats, an every at the top level, a repeat 0, and named counts. */
static void test_nested_visits(void **state)
{
	static const char text[] = "scenario nest\n"
				   "variant a kernel 5.11 \"A\"\n"
				   "field f scope task\n"
				   "begin\n"
				   "  a compute 1cycles\n"	 /* 0: 1 */
				   "  repeat 3\n"		 /* 1: 1 */
				   "    repeat 2\n"		 /* 2: 3 */
				   "      b load f\n"		 /* 3: 6 */
				   "    end\n"			 /* 4: 6 */
				   "    every 3\n"		 /* 5: 3 */
				   "      c store f\n"		 /* 6: 1 */
				   "    end\n"			 /* 7: 1 */
				   "  end\n"			 /* 8: 3 */
				   "  every 4\n"		 /* 9: 1 */
				   "    d atomic f\n"		 /* 10: 1/4 */
				   "  end\n"			 /* 11: 1/4 */
				   "  repeat 0\n"		 /* 12: 1 */
				   "    e fence\n"		 /* 13: 0 */
				   "  end\n"			 /* 14: 0 */
				   "  repeat vmstat_threshold\n" /* 15: 1 */
				   "    g compute .5ns\n"	 /* 16: T */
				   "  end\n";			 /* 17: T */
	static const double want[15] = {1, 1, 3, 6, 6, 3, 1, 1, 3, 1, 0.25, 0.25, 1, 0, 0};
	struct scenario sc;
	struct kern kk;
	struct program pr;
	double T, sum = 0;

	(void)state;
	parse_ok(&sc, "nest.scn", text);
	load_kernel_file(&kk, K511_PATH);
	T = batch_of(&kk.p, "vmstat_threshold");
	compile_ok(&sc, 0, &kk.k, &pr);
	assert_int_equal(pr.n, 18);
	for (int i = 0; i < 15; i++)
		assert_near(pr.visits[i], want[i]);
	assert_int_equal(pr.insn[15].count, (int64_t)T);
	assert_near(pr.visits[16], T);
	assert_near(pr.visits[17], T);
	assert_near(pr.insn[16].ns, 0.5);
	for (int i = 0; i < pr.n; i++)
		sum += pr.visits[i];
	assert_near(pr.units_per_op, 27.5 + 1 + 2 * T);
	assert_near(pr.units_per_op, sum);
	program_free(&pr);
	profile_free(&kk.p);
	scenario_free(&sc);
}

/* 'when V' and 'only V ... end' pick steps per variant. */
static const char select_scn[] = "scenario sel\n"
				 "variant a kernel 5.11 \"A\"\n"
				 "variant b kernel 5.11 \"B\"\n"
				 "variant c kernel 5.11 \"C\"\n"
				 "field f scope mm\n"
				 "lock l spinlock scope mm\n"
				 "lock s rwsem scope mm\n"
				 "begin\n"
				 "  x0 compute 10cycles\n"     /* line 9 */
				 "  x1 load f when a\n"	       /* 10 */
				 "  x2 store f when b,c\n"     /* 11 */
				 "  only b\n"		       /* 12 */
				 "    x3 lock l\n"	       /* 13 */
				 "    repeat 3\n"	       /* 14 */
				 "      x8 atomic f\n"	       /* 15 */
				 "    end\n"		       /* 16 */
				 "    x4 unlock l\n"	       /* 17 */
				 "  end\n"		       /* 18 */
				 "  only a,c\n"		       /* 19 */
				 "    x5 lock s read\n"	       /* 20 */
				 "    x9 prefetchw f when c\n" /* 21 */
				 "    x6 unlock s read\n"      /* 22 */
				 "  end\n"		       /* 23 */
				 "  x7 fence\n";	       /* 24 */

static void check_prog(const struct scenario *sc, const struct program *pr, int n, const char *const *fns,
		       const enum sc_act *acts, const int *lines)
{
	if (pr->n != n)
		fail_msg("variant %s: %d instructions, expected %d", sc->var[pr->variant].name, pr->n, n);
	for (int i = 0; i < n; i++) {
		if (pr->insn[i].act != acts[i] || pr->insn[i].src_line != lines[i])
			fail_msg("variant %s insn %d: %s at line %d, expected %s at line %d", sc->var[pr->variant].name,
				 i, sc_act_name(pr->insn[i].act), pr->insn[i].src_line, sc_act_name(acts[i]), lines[i]);
		if (fns[i] && strcmp(sc->fn[pr->insn[i].fn], fns[i]))
			fail_msg("variant %s insn %d: function %s, expected %s", sc->var[pr->variant].name, i,
				 sc->fn[pr->insn[i].fn], fns[i]);
	}
}

static void test_when_only(void **state)
{
	static const char *const fa[] = {"x0", "x1", "x5", "x6", "x7"};
	static const enum sc_act aa[] = {SA_COMPUTE, SA_LOAD, SA_LOCK, SA_UNLOCK, SA_FENCE};
	static const int la[] = {9, 10, 20, 22, 24};
	static const char *const fb[] = {"x0", "x2", "x3", NULL, "x8", NULL, "x4", "x7"};
	static const enum sc_act ab[] = {SA_COMPUTE, SA_STORE, SA_LOCK,	  SA_REPEAT,
					 SA_ATOMIC,  SA_END,   SA_UNLOCK, SA_FENCE};
	static const int lb[] = {9, 11, 13, 14, 15, 16, 17, 24};
	static const char *const fc[] = {"x0", "x2", "x5", "x9", "x6", "x7"};
	static const enum sc_act ac[] = {SA_COMPUTE, SA_STORE, SA_LOCK, SA_PREFETCHW, SA_UNLOCK, SA_FENCE};
	static const int lc[] = {9, 11, 20, 21, 22, 24};
	struct scenario sc;
	struct kern kk;
	struct program pa, pb, pc;
	int l, s;

	(void)state;
	parse_ok(&sc, "sel.scn", select_scn);
	assert_int_equal(sc.nvar, 3);
	l = obj_index(&sc, "l");
	s = obj_index(&sc, "s");
	assert_true(sc.obj[l].is_lock);
	assert_string_equal(sc.obj[l].kind->name, "spinlock");
	assert_string_equal(sc.obj[s].kind->name, "rwsem");
	assert_int_equal(sc.step[3].act, SA_ONLY);
	assert_int_equal(sc.step[3].variants, 1u << 1);
	assert_int_equal(sc.step[10].variants, (1u << 0) | (1u << 2));
	assert_int_equal(sc.step[2].variants, (1u << 1) | (1u << 2));
	load_kernel_file(&kk, K511_PATH);
	compile_ok(&sc, 0, &kk.k, &pa);
	compile_ok(&sc, 1, &kk.k, &pb);
	compile_ok(&sc, 2, &kk.k, &pc);
	check_prog(&sc, &pa, 5, fa, aa, la);
	check_prog(&sc, &pb, 8, fb, ab, lb);
	check_prog(&sc, &pc, 6, fc, ac, lc);
	/* lock objects and modes */
	assert_int_equal(pa.insn[2].obj, s);
	assert_int_equal(pa.insn[2].mode, LM_READ);
	assert_int_equal(pa.insn[3].mode, LM_READ);
	assert_int_equal(pb.insn[2].obj, l);
	assert_int_equal(pb.insn[2].mode, LM_EXCL);
	/* the repeat inside 'only b' is matched in b's own numbering */
	assert_int_equal(pb.insn[3].match, 5);
	assert_int_equal(pb.insn[5].match, 3);
	assert_int_equal(pb.insn[3].count, 3);
	assert_near(pb.visits[4], 3);
	assert_near(pb.visits[5], 3);
	assert_near(pa.units_per_op, 5);
	assert_near(pb.units_per_op, 12);
	assert_near(pc.units_per_op, 6);
	program_free(&pa);
	program_free(&pb);
	program_free(&pc);
	profile_free(&kk.p);
	scenario_free(&sc);
}

/* A variant whose steps are all for others has nothing to run. */
static void test_variant_without_steps(void **state)
{
	static const char text[] = "scenario e\n"
				   "variant a kernel 5.11 \"A\"\n"
				   "variant b kernel 5.11 \"B\"\n"
				   "field f scope mm\n"
				   "begin\n"
				   "  x load f when a\n";
	struct scenario sc;
	struct kern kk;
	struct program pr;
	struct mm_error err = {0};

	(void)state;
	parse_ok(&sc, "e.scn", text);
	load_kernel_file(&kk, K511_PATH);
	compile_ok(&sc, 0, &kk.k, &pr);
	assert_int_equal(pr.n, 1);
	program_free(&pr);
	assert_int_equal(scenario_compile(&sc, 1, &kk.k, &pr, &err), MM_EPARSE);
	assert_non_null(strstr(err.msg, "e.scn: variant 'b' has no steps"));
	assert_null(pr.insn);
	profile_free(&kk.p);
	scenario_free(&sc);
}

/* A variant list may hold shell patterns (fnmatch): each stands for the variants declared before
 * it that it matches. */
static void test_variant_patterns(void **state)
{
	static const char text[] = "scenario e\n"
				   "variant anon_read kernel 5.11 \"A\"\n"
				   "variant anon_write kernel 5.11 \"B\"\n"
				   "variant memfd_read kernel 5.11 \"C\"\n"
				   "field f scope mm\n"
				   "begin\n"
				   "  x load f when anon_*\n"
				   "  only *_read,memfd_?ead\n"
				   "    y load f\n"
				   "  end\n"
				   "  z load f when [m]*\n";
	static const int want[] = {2, 1, 2}; /* x y; x; y z */
	struct scenario sc;
	struct kern kk;
	struct program pr;

	(void)state;
	parse_ok(&sc, "e.scn", text);
	load_kernel_file(&kk, K511_PATH);
	for (int v = 0; v < 3; v++) {
		compile_ok(&sc, v, &kk.k, &pr);
		assert_int_equal(pr.n, want[v]);
		program_free(&pr);
	}
	profile_free(&kk.p);
	scenario_free(&sc);
}

/* SC_MAX_VARIANTS variants, more than a 32-bit set holds: each step belongs to exactly the variants
 * its 'when' or 'only' names (v7 and v39 share no bit), a 'like' variant past bit 32 copies its
 * base's steps, and one more variant is refused at its line. */
static void test_many_variants(void **state)
{
	char *text = malloc(8192), *t;
	struct scenario sc;
	struct kern kk;
	struct program pr;
	struct mm_error err = {0};

	(void)state;
	assert_non_null(text);
	t = text + sprintf(text, "scenario many\n");
	for (int v = 0; v < SC_MAX_VARIANTS - 1; v++)
		t += sprintf(t, "variant v%d kernel 5.11 \"%d\"\n", v, v);
	t += sprintf(t, "variant last like v39 \"copy of v39\"\n");
	sprintf(t, "field f scope mm\nbegin\n  a load f\n  b load f when v39\n  only v7,v50\n    c load f\n  end\n");
	parse_ok(&sc, "many.scn", text);
	assert_int_equal(sc.nvar, SC_MAX_VARIANTS);
	load_kernel_file(&kk, K511_PATH);
	for (int v = 0; v < sc.nvar; v++) {
		int want = 1 + (v == 39 || v == SC_MAX_VARIANTS - 1) + (v == 7 || v == 50);

		compile_ok(&sc, v, &kk.k, &pr);
		assert_int_equal(pr.n, want);
		program_free(&pr);
	}
	scenario_free(&sc);
	/* one variant more than the sets hold */
	t = text + sprintf(text, "scenario toomany\n");
	for (int v = 0; v <= SC_MAX_VARIANTS; v++)
		t += sprintf(t, "variant v%d kernel 5.11 \"%d\"\n", v, v);
	sprintf(t, "field f scope mm\nbegin\n  a load f\n");
	assert_int_equal(scenario_parse(&sc, "toomany.scn", text, &err), MM_EPARSE);
	assert_non_null(strstr(err.msg, "too many variants (at most 64)"));
	profile_free(&kk.p);
	free(text);
}

/* ---- compile-time errors: names the kernel profile lacks ----------------- */

/* Locks must pair up within the operation and within each block, in the mode taken. */
static void test_lock_pairs(void **state)
{
	static const struct {
		const char *body;
		const char *msg;
	} bad[] = {
	    {"  f lock L write\n  f unlock L read\n", "pairs.scn:6: 'L' is released as read but is held for write"},
	    {"  f unlock L read\n", "pairs.scn:5: 'L' is released as read but is not held here"},
	    {"  f lock L read\n", "pairs.scn:5: 'L' is still held at the end of the operation"},
	    {"  f lock L read\n  f lock L read\n  f unlock L read\n", "pairs.scn:6: 'L' is taken again while held"},
	    {"  f lock L read\n  f downgrade L\n  f unlock L read\n", "pairs.scn:6: 'L' is downgraded but not held"},
	    {"  repeat 2\n    f lock L write\n  end\n  f unlock L write\n",
	     "pairs.scn:6: 'L' is taken inside this block but not released in it"},
	    /* each branch of a choose, and a role's block, is a block of its own */
	    {"  choose 50%\n    f lock L write\n  else\n    f unlock L write\n  end\n",
	     "pairs.scn:6: 'L' is taken inside this block but not released in it"},
	    {"  f lock L read\n  choose 50%\n  else\n    f unlock L read\n  end\n",
	     "pairs.scn:5: 'L' is released inside this block but not taken in it"},
	    {"  as R\n    f lock L read\n  end\n  f unlock L read\n",
	     "pairs.scn:7: 'L' is taken inside this block but not released in it"},
	};
	struct kern kk;

	(void)state;
	load_kernel_file(&kk, K511_PATH);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char text[512];
		struct scenario sc;
		struct program pr;
		struct mm_error err = {0};

		snprintf(text, sizeof(text),
			 "scenario p\nlock L rwsem scope mm\nvariant a kernel 5.11 \"A\"\n%sbegin\n%s",
			 strstr(bad[i].body, "as R") ? "role R tasks 1\n" : "", bad[i].body);
		parse_ok(&sc, "pairs.scn", text);
		assert_int_equal(scenario_compile(&sc, 0, &kk.k, &pr, &err), MM_EPARSE);
		if (strncmp(err.msg, bad[i].msg, strlen(bad[i].msg)))
			fail_msg("case %zu: got '%s', want '%s...'", i, err.msg, bad[i].msg);
		scenario_free(&sc);
	}
	/* balanced, with a downgrade and a trylock: fine */
	{
		struct scenario sc;
		struct program pr;
		struct mm_error err = {0};

		parse_ok(&sc, "pairs.scn",
			 "scenario p\nlock L rwsem scope mm\nvariant a kernel 5.11 \"A\"\nbegin\n  repeat 2\n"
			 "    f lock L write\n    f downgrade L\n    f unlock L read\n  end\n  f trylock L read\n"
			 "  f unlock L read\n");
		assert_int_equal(scenario_compile(&sc, 0, &kk.k, &pr, &err), 0);
		program_free(&pr);
		scenario_free(&sc);
	}
	profile_free(&kk.p);
}

/*
 * A like-variant's inserted block is parsed on its own (at depth 0) but compiled inside the
 * blocks around the step it goes beside: 40 repeats inserted inside 40 nest 80 deep, past the
 * compiler's 64, which is an error at the insert's line (it overflowed the compiler's stack).
 * The base variant, 40 deep, compiles.
 */
static void test_insert_nested_too_deep(void **state)
{
	char text[4096] = "scenario deep\nfield x scope mm\nvariant a kernel 5.11 \"a\"\n"
			  "variant b like a \"b\"\ninsert after inner load x\n";
	struct kern kk;
	struct scenario sc;
	struct program pr;
	struct mm_error err = {0};

	(void)state;
	for (int i = 0; i < 40; i++)
		strcat(text, "  repeat 1\n");
	strcat(text, "    g load x\n");
	for (int i = 0; i < 40; i++)
		strcat(text, "  end\n");
	strcat(text, "end\nbegin\n");
	for (int i = 0; i < 40; i++)
		strcat(text, "repeat 1\n");
	strcat(text, "inner load x\n");
	for (int i = 0; i < 40; i++)
		strcat(text, "end\n");
	load_kernel_file(&kk, K511_PATH);
	parse_ok(&sc, "deep.scn", text);
	assert_int_equal(scenario_compile(&sc, 0, &kk.k, &pr, &err), 0);
	program_free(&pr);
	assert_int_equal(scenario_compile(&sc, 1, &kk.k, &pr, &err), MM_EPARSE);
	if (!strstr(err.msg, "deep.scn:") || !strstr(err.msg, "blocks nested deeper than 64 (variant b)"))
		fail_msg("got '%s'", err.msg);
	scenario_free(&sc);
	profile_free(&kk.p);
}

static void test_unknown_cost_and_count(void **state)
{
	static const char cost[] = "scenario c\n"
				   "variant a kernel 5.11 \"A\"\n"
				   "field f scope mm\n"
				   "begin\n"
				   "  x load f\n"
				   "  fn_y   compute no_such_cost\n";
	static const char miss[] = "scenario c\n"
				   "variant a kernel 5.11 \"A\"\n"
				   "footprint 2MiB when a\n"
				   "begin\n"
				   "  x miss no_such_miss\n";
	static const char count[] = "scenario c\n"
				    "variant a kernel 5.11 \"A\"\n"
				    "field f scope mm\n"
				    "begin\n"
				    "  x load f\n"
				    "    every no_such_batch\n"
				    "  x load f\n"
				    "  end\n";
	struct scenario sc;
	struct kern kk;
	struct program pr;
	struct mm_error err = {0};
	char want[1200];

	(void)state;
	load_kernel_file(&kk, K511_PATH);
	parse_ok(&sc, "cost.scn", cost);
	assert_int_equal(scenario_compile(&sc, 0, &kk.k, &pr, &err), MM_ENOENT);
	snprintf(want, sizeof(want),
		 "cost.scn:6:3: unknown cost 'no_such_cost': kernel profile %s has no [costs] no_such_cost", K511_PATH);
	assert_string_equal(err.msg, want);
	assert_null(pr.insn);
	assert_null(pr.visits);
	scenario_free(&sc);

	parse_ok(&sc, "miss.scn", miss);
	assert_int_equal(scenario_compile(&sc, 0, &kk.k, &pr, &err), MM_ENOENT);
	snprintf(want, sizeof(want),
		 "miss.scn:5:3: unknown count 'no_such_miss': kernel profile %s has no [misses] no_such_miss",
		 K511_PATH);
	assert_string_equal(err.msg, want);
	scenario_free(&sc);

	parse_ok(&sc, "count.scn", count);
	assert_int_equal(scenario_compile(&sc, 0, &kk.k, &pr, &err), MM_ENOENT);
	assert_true(!strncmp(err.msg, "count.scn:6:5: ", 15));
	assert_non_null(strstr(err.msg, "unknown count 'no_such_batch'"));
	assert_non_null(strstr(err.msg, K511_PATH));
	assert_non_null(strstr(err.msg, "[batch] no_such_batch"));
	scenario_free(&sc);
	profile_free(&kk.p);
}

/* ---- roles and choose (issue 20) ------------------------------------------ */

static const char roles_scn[] = "scenario roles\n"
				"variant a kernel 5.11 \"A\"\n"
				"role w tasks 1\n"
				"role r share 75%\n"
				"role q share 25% rt\n"
				"define two\n"
				"  choose 25%\n"
				"    f compute 1ns\n"
				"  else\n"
				"    f compute 2ns\n"
				"  end\n"
				"end\n"
				"begin\n"
				"  f compute 10ns\n"   /* 0, line 14 */
				"  as r\n"	       /* 1 */
				"    f compute 20ns\n" /* 2 */
				"    call two\n"       /* 3..7: choose, compute, else, compute, end */
				"  end\n"	       /* 8 */
				"  as w\n"	       /* 9 */
				"    repeat 4\n"       /* 10 */
				"      choose 50%\n"   /* 11 */
				"        f compute 3ns\n"
				"      end\n" /* 13 */
				"    end\n"   /* 14 */
				"  end\n";    /* 15 */

/*
 * The blocks compile to as/choose/else/end steps matched to each other, and their visits per
 * operation are worked out by hand: a task of r runs its block and takes the first branch a
 * quarter of the time; one of w runs 4 iterations, each a choose of 50%; q and the tasks without
 * a role run the three steps outside (and the two 'as' lines).  The program's own visits weigh
 * r by its 75% and w (a 'tasks N' role) by nothing.
 */
static void test_roles_compile(void **state)
{
	static const enum sc_act acts[16] = {SA_COMPUTE, SA_AS,	 SA_COMPUTE, SA_CHOOSE, SA_COMPUTE, SA_ELSE,
					     SA_COMPUTE, SA_END, SA_END,     SA_AS,	SA_REPEAT,  SA_CHOOSE,
					     SA_COMPUTE, SA_END, SA_END,     SA_END};
	static const double r_vis[16] = {1, 1, 1, 1, 0.25, 0.25, 0.75, 1, 1, 1, 0, 0, 0, 0, 0, 0};
	static const double w_vis[16] = {1, 1, 0, 0, 0, 0, 0, 0, 0, 1, 1, 4, 2, 4, 4, 1};
	static const double q_vis[16] = {1, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0};
	double mix[16];
	int count[4];
	struct scenario sc;
	struct kern kk;
	struct program pr;

	(void)state;
	parse_ok(&sc, "roles.scn", roles_scn);
	assert_int_equal(sc.nrole, 3);
	assert_string_equal(sc.role[0].name, "w");
	assert_int_equal(sc.role[0].ntasks, 1);
	assert_int_equal(sc.role[0].line_no, 3);
	assert_string_equal(sc.role[1].name, "r");
	assert_near(sc.role[1].share, 75);
	assert_int_equal(sc.role[1].ntasks, 0);
	assert_int_equal(sc.role[0].rt + sc.role[1].rt, 0); /* 'rt': q's tasks are real-time */
	assert_int_equal(sc.role[2].rt, 1);
	assert_int_equal(sc.step[3].act, SA_CHOOSE);
	assert_int_equal(sc.step[3].line_no, 7); /* the define's line */
	assert_near(sc.step[3].literal, 25);
	assert_int_equal(sc.step[3].alt, 5);
	assert_int_equal(sc.step[3].match, 7);
	assert_int_equal(sc.step[5].match, 3);
	assert_int_equal(sc.step[1].role, 1);
	assert_int_equal(sc.step[9].role, 0);
	load_kernel_file(&kk, K511_PATH);
	compile_ok(&sc, 0, &kk.k, &pr);
	assert_int_equal(pr.n, 16);
	assert_int_equal(pr.nrole, 3);
	for (int i = 0; i < 16; i++) {
		assert_int_equal(pr.insn[i].act, acts[i]);
		assert_near(pr.role_visits[1 * 16 + i], r_vis[i]);
		assert_near(pr.role_visits[0 * 16 + i], w_vis[i]);
		assert_near(pr.role_visits[2 * 16 + i], q_vis[i]);
		assert_near(pr.role_visits[3 * 16 + i], q_vis[i]); /* no role */
		assert_near(pr.visits[i], 0.75 * r_vis[i] + 0.25 * q_vis[i]);
	}
	assert_int_equal(pr.insn[1].role, 1);
	assert_int_equal(pr.insn[1].match, 8);
	assert_int_equal(pr.insn[8].match, 1);
	assert_near(pr.insn[3].prob, 0.25);
	assert_int_equal(pr.insn[3].alt, 5);
	assert_int_equal(pr.insn[3].match, 7);
	assert_int_equal(pr.insn[5].match, 7);
	assert_int_equal(pr.insn[11].alt, -1);
	assert_int_equal(pr.insn[11].match, 13);
	assert_int_equal(pr.insn[5].fn, -1);
	assert_int_equal(pr.insn[7].fn, -1);
	assert_near(pr.role_units[1], 8.25);
	assert_near(pr.role_units[0], 19);
	assert_near(pr.role_units[2], 3);
	assert_near(pr.units_per_op, 6.9375);
	/* 5 tasks: w takes 1, r round(4 x 75%) = 3, q the last one; the average task's steps */
	assert_int_equal(scenario_assign_roles(&sc, 5, NULL, count, NULL), 0);
	assert_int_equal(count[0], 1);
	assert_int_equal(count[1], 3);
	assert_int_equal(count[2], 1);
	assert_int_equal(count[3], 0);
	assert_near(program_mix_visits(&pr, count, mix), (19 + 3 * 8.25 + 3) / 5.0);
	assert_near(mix[12], 2 / 5.0);
	assert_near(mix[4], 3 * 0.25 / 5);
	assert_near(mix[0], 1);
	program_free(&pr);
	profile_free(&kk.p);
	scenario_free(&sc);
}

/* The roles of @text at @ntasks, as a string of their first letters ('-': no role). */
static void deal(const char *text, int ntasks, char *out)
{
	struct scenario sc;
	int role_of[64];

	parse_ok(&sc, "deal.scn", text);
	assert_true(ntasks <= 64);
	assert_int_equal(scenario_assign_roles(&sc, ntasks, role_of, NULL, NULL), 0);
	for (int i = 0; i < ntasks; i++)
		out[i] = role_of[i] < sc.nrole ? sc.role[role_of[i]].name[0] : '-';
	out[ntasks] = 0;
	scenario_free(&sc);
}

#define DEAL_HDR "scenario d\nvariant a kernel 5.11 \"A\"\n"
#define DEAL_END "begin\n  f fence\n"

/*
 * Role counts and the order tasks get them, by hand: 'tasks N' roles first, the shares of the
 * rest by cumulative rounding (the first k shares together take round(rest x their sum)), and
 * task i to the group of least (dealt + 1/2) / count, the first declared on a tie.
 */
static void test_role_assignment(void **state)
{
	char got[65];
	struct scenario sc;
	struct mm_error err = {0};
	int count[SC_MAX_ROLES + 1];

	(void)state;
	/* 40 readers and 40 writers, alternating: each socket gets half of each */
	deal(DEAL_HDR "role r share 50%\nrole w share 50%\n" DEAL_END, 8, got);
	assert_string_equal(got, "rwrwrwrw");
	{
		int role_of[80];

		parse_ok(&sc, "deal.scn", DEAL_HDR "role r tasks 40\nrole w tasks 40\n" DEAL_END);
		assert_int_equal(scenario_assign_roles(&sc, 80, role_of, count, NULL), 0);
		assert_int_equal(count[0], 40);
		assert_int_equal(count[1], 40);
		assert_int_equal(count[2], 0);
		for (int i = 0; i < 80; i++)
			assert_int_equal(role_of[i], i % 2);
		scenario_free(&sc);
	}
	/* one writer, the rest readers: the writer where its share of 1/4 falls due */
	deal(DEAL_HDR "role w tasks 1\nrole r share 100%\n" DEAL_END, 4, got);
	assert_string_equal(got, "rwrr");
	/* one task of two halves: the first share rounds up (0.5), the second gets the rest (0) */
	deal(DEAL_HDR "role r share 50%\nrole w share 50%\n" DEAL_END, 1, got);
	assert_string_equal(got, "r");
	/* a share of 30% of 10 tasks; the 7 left have no role, spread between them */
	deal(DEAL_HDR "role a share 30%\n" DEAL_END, 10, got);
	assert_string_equal(got, "-a--a---a-");
	/* thirds of 10: round(3.33) = 3, round(6.67) - 3 = 4, 10 - 7 = 3 */
	parse_ok(&sc, "deal.scn", DEAL_HDR "role a share 33.3%\nrole b share 33.3%\nrole c share 33.4%\n" DEAL_END);
	assert_int_equal(scenario_assign_roles(&sc, 10, NULL, count, NULL), 0);
	assert_int_equal(count[0], 3);
	assert_int_equal(count[1], 4);
	assert_int_equal(count[2], 3);
	assert_int_equal(count[3], 0);
	scenario_free(&sc);
	deal(DEAL_HDR "role a share 33.3%\nrole b share 33.3%\nrole c share 33.4%\n" DEAL_END, 10, got);
	assert_string_equal(got, "bacbacbacb");
	/* in proportion at every prefix: within one task of k x count / n, for any mix */
	{
		static const char mixed[] = DEAL_HDR "role a tasks 3\nrole b share 10%\nrole c share 60%\n" DEAL_END;
		int role_of[61], c[SC_MAX_ROLES + 1], seen[SC_MAX_ROLES + 1] = {0};

		parse_ok(&sc, "deal.scn", mixed);
		assert_int_equal(scenario_assign_roles(&sc, 61, role_of, c, NULL), 0);
		assert_int_equal(c[0], 3);
		assert_int_equal(c[1], 6);  /* round(58 x 0.1) */
		assert_int_equal(c[2], 35); /* round(58 x 0.7) - 6 */
		assert_int_equal(c[3], 17);
		for (int k = 1; k <= 61; k++) {
			seen[role_of[k - 1]]++;
			for (int g = 0; g <= 3; g++)
				assert_true(fabs(seen[g] - (double)k * c[g] / 61) < 1 + 1e-9);
		}
		scenario_free(&sc);
	}
	/* 'tasks N' roles that do not fit: the error names the file, the line and the counts */
	parse_ok(&sc, "deal.scn", DEAL_HDR "role r tasks 40\nrole w tasks 40\n" DEAL_END);
	assert_int_equal(scenario_assign_roles(&sc, 80, NULL, count, &err), 0);
	assert_int_equal(scenario_assign_roles(&sc, 16, NULL, count, &err), MM_ERANGE);
	assert_string_equal(err.msg, "deal.scn:3: role 'r' takes 40 tasks, but a run of 16 tasks leaves it 16 (the "
				     "'tasks N' roles take 80 in all)");
	assert_int_equal(scenario_assign_roles(&sc, 79, NULL, count, &err), MM_ERANGE);
	assert_non_null(strstr(err.msg, "deal.scn:4: role 'w' takes 40 tasks, but a run of 79 tasks leaves it 39"));
	scenario_free(&sc);
}

static void test_load_errors(void **state)
{
	struct scenario sc;
	struct mm_error err = {0};
	int v = 7;

	(void)state;
	assert_int_equal(scenario_load(&sc, "no_such_scenario", &v, &err), MM_ENOENT);
	assert_int_equal(v, -1);
	assert_non_null(strstr(err.msg, "unknown scenario 'no_such_scenario'"));
	assert_non_null(strstr(err.msg, "mmsim list"));
	assert_int_equal(scenario_load(&sc, "/nonexistent/dir/x.scn", &v, &err), MM_ENOENT);
	assert_true(!strncmp(err.msg, "/nonexistent/dir/x.scn: ", 24));
}

/* ---- malformed scenarios -------------------------------------------------- */

/* 7 lines; the first step is on line 8. */
#define HDR                             \
	"scenario x\n"                  \
	"variant a kernel 5.11 \"A\"\n" \
	"variant b kernel 5.11 \"B\"\n" \
	"field f scope mm\n"            \
	"lock l spinlock scope mm\n"    \
	"lock s rwsem scope mm\n"       \
	"begin\n"

/* 6 lines, with roles; the first step is on line 7. */
#define RHDR                            \
	"scenario x\n"                  \
	"variant a kernel 5.11 \"A\"\n" \
	"lock s rwsem scope mm\n"       \
	"role r share 50%\n"            \
	"role w tasks 2\n"              \
	"begin\n"

/* A variant b like a, before 'begin', for its replace and insert lines (line 6 on). */
#define LIKE                            \
	"scenario x\n"                  \
	"variant a kernel 5.11 \"A\"\n" \
	"field f scope mm\n"            \
	"field g scope mm\n"            \
	"variant b like a \"B\"\n"

struct bad {
	const char *text;
	int code;
	const char *prefix; /* the message starts with it */
	const char *phrase; /* and holds it */
};

static const struct bad bad_cases[] = {
    /* 'miss' and 'footprint' */
    {HDR "  fn miss -1\n", MM_EPARSE, "bad.scn:8:11: ", "expected a count (0.5) or a [misses] name"},
    {HDR "  fn miss 2x\n", MM_EPARSE,
     "bad.scn:8:11: ", "impossible count '2x' after 'miss' (expected a decimal number, 0 to 1e6)"},
    {HDR "  fn miss\n", MM_EPARSE, "bad.scn:8:1: ", "expected a count after 'miss'"},
    {"scenario x\nfootprint 4MiB\nvariant a kernel 5.11 \"A\"\nbegin\n  fn fence\n", MM_EPARSE,
     "bad.scn:2:1: ", "'footprint' comes after the variants it is for"},
    {"scenario x\nvariant a kernel 5.11 \"A\"\nfootprint 4Mb\nbegin\n  fn fence\n", MM_EPARSE,
     "bad.scn:3:11: ", "expected a size unit after the number"},
    {"scenario x\nvariant a kernel 5.11 \"A\"\nfootprint 4MiB when c\nbegin\n  fn fence\n", MM_EPARSE,
     "bad.scn:3:21: ", "unknown variant 'c'"},
    /* unknown action */
    {HDR "  fn frob f\n", MM_EPARSE, "bad.scn:8:6: ", "unknown action 'frob' (expected compute, load"},
    /* unknown scope */
    {"scenario x\nvariant a kernel 5.11 \"A\"\nfield f scope galaxy\nbegin\n  fn load f\n", MM_EPARSE,
     "bad.scn:3:15: ", "unknown scope 'galaxy' (expected global, node, cpu"},
    /* undeclared field */
    {HDR "  fn load g\n", MM_EPARSE, "bad.scn:8:11: ", "unknown field 'g' (declare it with 'field' first)"},
    {HDR "  fn lock m\n", MM_EPARSE, "bad.scn:8:11: ", "unknown lock 'm' (declare it with 'lock' first)"},
    /* 'end' without an open block */
    {HDR "  fn load f\n  end\n", MM_EPARSE,
     "bad.scn:9:3: ", "'end' without an open 'repeat', 'every', 'only', 'as' or 'choose'"},
    /* unclosed blocks, reported at the opener */
    {HDR "  fn load f\n  repeat 4\n    fn load f\n", MM_EPARSE,
     "bad.scn:9:3: ", "'repeat' is never closed (expected 'end'"},
    {HDR "  repeat 4\n    every 2\n      fn load f\n    end\n", MM_EPARSE, "bad.scn:8:3: ", "'repeat' is never closed"},
    {HDR "  fn fence\n    only b\n  fn fence\n", MM_EPARSE, "bad.scn:9:5: ", "'only' is never closed"},
    /* a variant declared twice */
    {"scenario x\nvariant a kernel 5.11 \"A\"\nvariant a kernel 5.11 \"A2\"\nbegin\n  fn fence\n", MM_EPARSE,
     "bad.scn:3:9: ", "variant 'a' is declared twice"},
    {"scenario x\nfield f scope mm\nlock f spinlock scope mm\n", MM_EPARSE, "bad.scn:3:6: ", "'f' is declared twice"},
    /* a missing 'begin' */
    {"scenario x\nvariant a kernel 5.11 \"A\"\nfield f scope mm\n", MM_EPARSE,
     "bad.scn:4:1: ", "expected 'begin' and the steps of one operation before the end of the file"},
    /* bad indexes */
    {HDR "  fn load f[j]\n", MM_EPARSE, "bad.scn:8:12: ", "expected an index '[i]' or '[i/K]'"},
    {HDR "  fn load f[i/0]\n", MM_EPARSE, "bad.scn:8:12: ", "with K a whole number >= 1"},
    /* costs */
    {HDR "  fn compute 12\n", MM_EPARSE,
     "bad.scn:8:14: ", "expected a unit after the number: 'ns' or 'cycles' (e.g. 120ns)"},
    {HDR "  fn compute 12 ns\n", MM_EPARSE, "bad.scn:8:14: ", "expected a unit after the number"},
    {HDR "  fn compute 1e13ns\n", MM_EPARSE,
     "bad.scn:8:14: ", "impossible cost '1e13ns' (expected 0, or 0.001ns to 1e12ns)"},
    {HDR "  fn compute -5ns\n", MM_EPARSE,
     "bad.scn:8:14: ", "expected a cost name or a literal like 120ns, found '-5ns'"},
    {HDR "  fn compute\n", MM_EPARSE, "bad.scn:8:", "expected a cost after 'compute'"},
    /* lock modes */
    {HDR "  fn lock s\n", MM_EPARSE, "bad.scn:8:13: ", "a rwsem needs 'read' or 'write' after its name"},
    {HDR "  fn unlock s\n", MM_EPARSE, "bad.scn:8:15: ", "a rwsem needs 'read' or 'write'"},
    {HDR "  fn lock l read\n", MM_EPARSE, "bad.scn:8:13: ", "a spinlock has no read or write mode"},
    {HDR "  fn downgrade l\n", MM_EPARSE, "bad.scn:8:16: ", "a spinlock cannot be downgraded (kinds that can: rwsem)"},
    /* the fallback of a vma_lock reader */
    {HDR "  fn lock s read else s\n", MM_EPARSE,
     "bad.scn:8:18: ", "'else LOCK' follows only 'lock NAME read' of a vma_lock"},
    /* a field named as a lock, and a lock as a field */
    {HDR "  fn lock f\n", MM_EPARSE, "bad.scn:8:11: ", "'f' is a field; 'lock' needs a lock"},
    {HDR "  fn load l\n", MM_EPARSE, "bad.scn:8:11: ", "'l' is a lock; 'load' needs a field"},
    /* unknown variants */
    {HDR "  fn load f when zz\n", MM_EPARSE,
     "bad.scn:8:18: ", "unknown variant 'zz' (declare it with 'variant' first)"},
    {HDR "  only a,zz\n  fn fence\n  end\n", MM_EPARSE, "bad.scn:8:8: ", "unknown variant 'zz'"},
    /* a pattern must match a variant declared before it */
    {HDR "  only z*\n  fn fence\n  end\n", MM_EPARSE, "bad.scn:8:8: ", "'z*' matches no variant declared so far"},
    {HDR "  fn fence when a,[xy]\n", MM_EPARSE, "bad.scn:8:17: ", "'[xy]' matches no variant declared so far"},
    /* unterminated string */
    {"scenario x\nvariant a kernel 5.11 \"A\n", MM_EPARSE,
     "bad.scn:2:23: ", "unterminated string (expected a closing '\"')"},
    {"scenario x\ntitle \"abc\nbegin\n", MM_EPARSE, "bad.scn:2:7: ", "unterminated string"},
    /* counts */
    {HDR "  every 0\n  fn fence\n  end\n", MM_EPARSE, "bad.scn:8:9: ", "0 is out of range (expected 1 to"},
    {HDR "  repeat -1\n  fn fence\n  end\n", MM_EPARSE,
     "bad.scn:8:10: ", "expected a count (a number or a batch name from the kernel profile)"},
    {HDR "  repeat 4 times\n  fn fence\n  end\n", MM_EPARSE,
     "bad.scn:8:12: ", "unexpected 'times' (expected the end of the line)"},
    {HDR "  fn compute 5cycles extra\n", MM_EPARSE, "bad.scn:8:22: ", "unexpected 'extra'"},
    {HDR "  fn\n", MM_EPARSE, "bad.scn:8:6: ", "expected an action after the function name"},
    /* declarations */
    {"scenario x\nlock l scope mm\n", MM_EPARSE,
     "bad.scn:2:8: ", "expected a lock type: spinlock, rwsem, percpu_rwsem or vma_lock, found 'scope'"},
    {"scenario x\nfield f mm\n", MM_EPARSE, "bad.scn:2:9: ", "expected 'scope' after the field name"},
    {"scenario x\nfield f scope mm count 0\n", MM_EPARSE, "bad.scn:2:24: ", "0 is out of range"},
    {"scenario x\nmode fibers\n", MM_EPARSE, "bad.scn:2:6: ", "expected 'threads' or 'processes' after 'mode'"},
    {"scenario x\nvariant a kernal 5.11 \"A\"\n", MM_EPARSE, "bad.scn:2:11: ", "expected 'kernel VERSION'"},
    {"scenario x\nvariant a kernel 5.11 A\n", MM_EPARSE, "bad.scn:2:23: ", "expected a quoted description"},
    {"scenario x\nfrob\n", MM_EPARSE, "bad.scn:2:1: ", "unknown keyword 'frob' (expected scenario, base, title"},
    {"scenario x\nfrob\n", MM_EPARSE, "bad.scn:2:1: ", "mode, work, placement, field"},
    /* placement: wis or spread, once, before begin */
    {"scenario x\nplacement pinned\n", MM_EPARSE, "bad.scn:2:11: ",
     "expected 'wis' (pinned as will-it-scale pins them) or 'spread' (unpinned, where the scheduler puts them) "
     "after 'placement', found 'pinned'"},
    {"scenario x\nplacement\n", MM_EPARSE, "bad.scn:2:11: ", "expected 'wis' (pinned"},
    {"scenario x\nplacement WIS\n", MM_EPARSE, "bad.scn:2:11: ", "found 'WIS'"},
    {"scenario x\nplacement spread now\n", MM_EPARSE, "bad.scn:2:18: ", "unexpected 'now' (expected the end of"},
    {"scenario x\nplacement spread\nplacement wis\n", MM_EPARSE,
     "bad.scn:3:1: ", "'placement' appears twice (first at line 2)"},
    {HDR "  placement spread\n", MM_EPARSE, "bad.scn:8:13: ", "unknown action 'spread'"}, /* not in the body */
    {"scenario x\nscenario y\n", MM_EPARSE, "bad.scn:2:1: ", "'scenario' appears twice"},
    {"scenario x\nfield f scope mm\nbegin\n", MM_EPARSE,
     "bad.scn:3:1: ", "declare at least one 'variant' before 'begin'"},
    {"  title \"t\"\n", MM_EPARSE, "bad.scn:1:3: ", "expected 'scenario NAME' first, found 'title'"},
    {"scenario 9lives\n", MM_EPARSE, "bad.scn:1:10: ", "expected the scenario name"},
    /* issue 14: numbers are decimal, finite and in range */
    {HDR "  fn compute 0x10ns\n", MM_EPARSE, "bad.scn:8:14: ", "impossible cost '0x10ns' (expected 0, or 0.001ns"},
    {HDR "  fn compute 1e-300ns\n", MM_EPARSE, "bad.scn:8:14: ", "impossible cost '1e-300ns'"},
    {HDR "  fn ipi 0.001cycles\n", MM_EPARSE, "bad.scn:8:10: ", "(expected 0, or 0.01cycles to 1e12cycles)"},
    {HDR "  fn compute 1e999ns\n", MM_EPARSE, "bad.scn:8:14: ", "impossible cost '1e999ns'"},
    {HDR "  fn memory 0x10\n", MM_EPARSE, "bad.scn:8:13: ", "impossible size '0x10' (expected a decimal number"},
    {HDR "  fn memory 1.5\n", MM_EPARSE, "bad.scn:8:13: ", "impossible size '1.5'"},
    {"scenario x\nvariant a kernel 5.11 \"A\"\nfootprint 0x1p20\nbegin\n  fn fence\n", MM_EPARSE,
     "bad.scn:3:11: ", "impossible size '0x1p20'"},
    {HDR "  fn miss 0x2\n", MM_EPARSE, "bad.scn:8:11: ", "impossible count '0x2' after 'miss'"},
    {HDR "  fn load f[i/5000000000]\n", MM_EPARSE, "bad.scn:8:12: ", "at most 2^30"},
    {HDR "  fn load f[i/+4]\n", MM_EPARSE, "bad.scn:8:12: ", "with K a whole number >= 1 (decimal digits"},
    {"scenario x\nwork +5\n", MM_EPARSE, "bad.scn:2:6: ", "expected a whole number in decimal digits, found '+5'"},
    {"scenario x\nvariant a kernel -1 \"A\"\n", MM_EPARSE,
     "bad.scn:2:18: ", "expected a kernel version MAJOR.MINOR after 'kernel' (e.g. 5.11), found '-1'"},
    {"scenario x\nvariant a kernel 5.11.1234567890123456789012345678901234567890 \"A\"\n", MM_EPARSE,
     "bad.scn:2:18: ", "expected a kernel version MAJOR.MINOR"},
    /* roles, 'as' and 'choose' (issue 20): RHDR's roles are r (50%) and w (2 tasks) */
    {RHDR "  choose 101%\n  fn fence\n  end\n", MM_EPARSE, "bad.scn:7:10: ",
     "expected the chance of the first branch, a percentage from 0% to 100% (like 25%), "
     "found '101%'"},
    {RHDR "  choose 25\n  fn fence\n  end\n", MM_EPARSE, "bad.scn:7:10: ", "found '25'"},
    {RHDR "  choose -1%\n  fn fence\n  end\n", MM_EPARSE, "bad.scn:7:10: ", "a percentage from 0% to 100%"},
    {RHDR "  choose 0x10%\n  fn fence\n  end\n", MM_EPARSE, "bad.scn:7:10: ", "found '0x10%'"},
    {RHDR "  choose\n  fn fence\n  end\n", MM_EPARSE, "bad.scn:7:10: ", "at the end of the line"},
    {RHDR "  choose 5% now\n  fn fence\n  end\n", MM_EPARSE, "bad.scn:7:13: ", "unexpected 'now'"},
    {RHDR "  fn fence\n  else\n", MM_EPARSE, "bad.scn:8:3: ", "'else' without an open 'choose'"},
    {RHDR "  choose 5%\n    repeat 2\n      fn fence\n    else\n    end\n  end\n", MM_EPARSE,
     "bad.scn:10:5: ", "'else' without an open 'choose' (it belongs directly to one)"},
    {RHDR "  choose 5%\n  else\n  else\n  end\n", MM_EPARSE,
     "bad.scn:9:3: ", "a second 'else' for the 'choose' of line 7"},
    {RHDR "  choose 5%\n  else x\n  end\n", MM_EPARSE, "bad.scn:8:8: ", "unexpected 'x'"},
    {RHDR "  fn fence\n  choose 50%\n    fn fence\n", MM_EPARSE, "bad.scn:8:3: ", "'choose' is never closed"},
    {RHDR "  as q\n  fn fence\n  end\n", MM_EPARSE,
     "bad.scn:7:6: ", "unknown role 'q' (declare it before 'begin': 'role q tasks N' or 'role q share P%')"},
    {RHDR "  as\n  end\n", MM_EPARSE, "bad.scn:7:6: ", "expected a role name at the end of the line"},
    {RHDR "  as r w\n  end\n", MM_EPARSE, "bad.scn:7:8: ", "unexpected 'w'"},
    {RHDR "  as r\n    choose 1%\n      as w\n      end\n    end\n  end\n", MM_EPARSE,
     "bad.scn:9:7: ", "'as' inside the 'as' block of line 7 (a task has one role)"},
    {RHDR "  as w\n    fn fence\n", MM_EPARSE, "bad.scn:7:3: ", "'as' is never closed"},
    {"scenario x\nrole r share 60%\nrole w share 50%\n", MM_EPARSE,
     "bad.scn:3:14: ", "the roles' shares add up to 110% with this one (at most 100% of the tasks)"},
    {"scenario x\nrole r share 100.5%\n", MM_EPARSE, "bad.scn:2:14: ", "a percentage from 0% to 100%"},
    {"scenario x\nrole r tasks 0\n", MM_EPARSE, "bad.scn:2:14: ", "0 is out of range (expected 1 to 1000000)"},
    {"scenario x\nrole r tasks 2%\n", MM_EPARSE, "bad.scn:2:14: ", "expected a whole number in decimal digits"},
    {"scenario x\nrole r\n", MM_EPARSE, "bad.scn:2:8: ", "expected 'tasks N' or 'share P%' after the role name"},
    {"scenario x\nrole r count 3\n", MM_EPARSE, "bad.scn:2:8: ", "expected 'tasks N' or 'share P%'"},
    {"scenario x\nrole 5r tasks 3\n", MM_EPARSE, "bad.scn:2:6: ", "expected a role name"},
    {"scenario x\nrole r tasks 3 more\n", MM_EPARSE, "bad.scn:2:16: ", "unexpected 'more' (expected 'rt' or the end"},
    {"scenario x\nrole r share 5% rt now\n", MM_EPARSE,
     "bad.scn:2:20: ", "unexpected 'now' (expected the end of the line)"},
    {"scenario x\nrole r tasks 1\nrole r share 5%\n", MM_EPARSE, "bad.scn:3:6: ", "role 'r' is declared twice"},
    {"scenario x\nrole a tasks 1\nrole b tasks 1\nrole c tasks 1\nrole d tasks 1\nrole e tasks 1\n"
     "role f tasks 1\nrole g tasks 1\nrole h tasks 1\nrole i tasks 1\n",
     MM_EPARSE, "bad.scn:10:1: ", "too many roles (at most 8)"},
    /* replace and insert blocks of a 'variant NEW like OLD' (LIKE: its line 5) */
    {LIKE "replace fn load g\n  fn fence\nend\nbegin\n  fn load f\n", MM_EPARSE,
     "bad.scn:6:1: ", "no step 'fn load g' in variant b to replace"},
    {LIKE "insert before fn fence\n  fn fence\nend\nbegin\n  fn load f\n", MM_EPARSE,
     "bad.scn:6:1: ", "no step 'fn fence' in variant b to insert before"},
    {LIKE "replace fn load\n  fn fence\nend\nbegin\n  fn load f\n  fn load g\n", MM_EPARSE,
     "bad.scn:6:1: ", "step 'fn load' is in variant b 2 times (lines 10 and 11); 'replace' edits one: name its"},
    {LIKE "replace fn load f\n  fn fence\n", MM_EPARSE, "bad.scn:6:1: ", "'replace' is never closed"},
    {LIKE "replace fn load f\n  repeat 2\n    fn fence\n  end\n", MM_EPARSE,
     "bad.scn:6:1: ", "'replace' is never closed"},
    {LIKE "insert after fn load f\n  insert after fn load g\n", MM_EPARSE,
     "bad.scn:7:3: ", "'insert' inside the 'insert' of line 6"},
    {LIKE "replace fn load f\n  fn fence\nbegin\n", MM_EPARSE,
     "bad.scn:8:1: ", "'begin' inside the 'replace' of line 6"},
    {LIKE "replace fn load f\n  fn fence\n  fn lock l read\nend\n", MM_EPARSE,
     "bad.scn:8:11: ", "unknown lock 'l' (declare it with 'lock' first)"},
    {LIKE "replace fn load f\n  end\n  fn fence\n", MM_EPARSE, "bad.scn:8:3: ", "unknown keyword 'fn'"},
    {LIKE "replace fn load f\n  only a\n    fn fence\n  end\nend\nbegin\n  fn load f\n", MM_EPARSE,
     "bad.scn:7:3: ", "a 'when' or 'only' that leaves out variant b, which the 'replace' of line 6 edits"},
    {LIKE "insert after fn load f\nend\n", MM_EPARSE, "bad.scn:7:1: ", "the 'insert' of line 6 has no steps"},
    {LIKE "insert fn load f\n", MM_EPARSE, "bad.scn:6:8: ", "expected 'before' or 'after' after 'insert'"},
    {"scenario x\nvariant a kernel 5.11 \"A\"\nreplace fn load f\nend\n", MM_EPARSE,
     "bad.scn:3:1: ", "'replace' follows a 'variant NEW like OLD' line"},
    /* a kernel profile file: there, or an error at its word (a path without '/' is the file's dir's) */
    {"scenario x\nvariant a kernel nosuch.conf \"A\"\n", MM_EPARSE,
     "bad.scn:2:18: ", "kernel profile './nosuch.conf': cannot open: No such file or directory"},
    {"scenario x\nvariant a kernel 5.11 \"A\"\nvariant b like a kernel sub/k.ini \"B\"\n", MM_EPARSE,
     "bad.scn:3:25: ", "kernel profile './sub/k.ini': cannot open"},
    /* empty files, and an operation with no steps */
    {"", MM_EPARSE, "bad.scn:1:1: ", "empty scenario (expected 'scenario NAME')"},
    {"# nothing but a comment\n\n", MM_EPARSE, "bad.scn:1:1: ", "empty scenario"},
    {HDR "# no steps\n", MM_EPARSE, "bad.scn:9:1: ", "the operation has no steps"},
};

static void test_malformed(void **state)
{
	int nfail = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		const struct bad *b = &bad_cases[i];
		struct scenario sc;
		struct mm_error err = {0};
		int rc = scenario_parse(&sc, "bad.scn", b->text, &err);

		if (rc != b->code) {
			print_error("case %zu: code %d, expected %d (%s)\n  text: %s\n", i, rc, b->code, err.msg,
				    b->text);
			nfail++;
			if (!rc)
				scenario_free(&sc);
			continue;
		}
		if (strncmp(err.msg, b->prefix, strlen(b->prefix)) || !strstr(err.msg, b->phrase)) {
			print_error("case %zu: message\n  '%s'\nexpected it to start with '%s' and hold '%s'\n", i,
				    err.msg, b->prefix, b->phrase);
			nfail++;
		}
		/* nothing is left allocated after an error */
		if (sc.step || sc.obj || sc.fn || sc.nsteps || sc.nobj) {
			print_error("case %zu: scenario not freed after the error\n", i);
			nfail++;
		}
	}
	assert_int_equal(nfail, 0);
}

/* A name or a text longer than its buffer is an error at its line, not cut (and maybe merged with
 * another name that shares its start). */
static void test_long_names(void **state)
{
	char name63[64], text[1024], words[300];
	struct scenario sc;
	struct mm_error err = {0};

	(void)state;
	memset(name63, 'f', 63);
	name63[63] = 0;
	/* 'ff...f' (63) is declared; 'ff...fg' (64) must not find it */
	snprintf(text, sizeof(text),
		 "scenario x\nvariant a kernel 5.11 \"A\"\nfield %s scope mm\nbegin\n  fn load %sg\n", name63, name63);
	assert_int_equal(scenario_parse(&sc, "long.scn", text, &err), MM_EPARSE);
	assert_true(!strncmp(err.msg, "long.scn:5:11: expected a field (a name of at most 63 characters)", 65));
	snprintf(text, sizeof(text),
		 "scenario x\nvariant a kernel 5.11 \"A\"\nfield %s scope mm\nbegin\n  fn load %sg[i]\n", name63,
		 name63);
	assert_int_equal(scenario_parse(&sc, "long.scn", text, &err), MM_EPARSE);
	assert_true(!strncmp(err.msg, "long.scn:5:11: ", 15));
	/* and the full name still works */
	snprintf(text, sizeof(text),
		 "scenario x\nvariant a kernel 5.11 \"A\"\nfield %s scope mm\nbegin\n  fn load %s\n", name63, name63);
	assert_int_equal(scenario_parse(&sc, "long.scn", text, &err), 0);
	scenario_free(&sc);
	/* a title of 299 characters */
	memset(words, 'w', 299);
	words[299] = 0;
	snprintf(text, sizeof(text), "scenario x\ntitle \"%s\"\n", words);
	assert_int_equal(scenario_parse(&sc, "long.scn", text, &err), MM_EPARSE);
	assert_string_equal(err.msg, "long.scn:2:7: a text of 299 characters (at most 255)");
	/* an unquoted word as long */
	snprintf(text, sizeof(text), "scenario %s\n", words);
	assert_int_equal(scenario_parse(&sc, "long.scn", text, &err), MM_EPARSE);
	assert_string_equal(err.msg, "long.scn:1:10: a word of 299 characters (at most 255)");
}

/* Decimal numbers with units and fractions that make whole bytes still read. */
static void test_numbers_accepted(void **state)
{
	struct scenario sc;
	struct mm_error err = {0};

	(void)state;
	if (scenario_parse(&sc, "ok.scn",
			   HDR "  fn compute 0ns\n  fn compute .5cycles\n  fn memory 4.5MiB\n  fn memory 1e3\n"
			       "  fn miss 0.157\n  repeat 0\n    fn load f[i/512]\n  end\n",
			   &err))
		fail_msg("%s", err.msg);
	assert_true(sc.step[0].literal == 0 && sc.step[0].literal_unit == 1);
	assert_true(sc.step[1].literal == 0.5 && sc.step[1].literal_unit == 2);
	assert_true(sc.step[2].literal == 4.5 * 1048576);
	assert_true(sc.step[3].literal == 1000);
	assert_true(sc.step[4].literal == 0.157);
	assert_int_equal(sc.step[6].idx_div, 512);
	scenario_free(&sc);
}

/* 'when ,' and 'only ,' name no variant: an error, not a step that silently vanishes. */
static void test_empty_variant_list(void **state)
{
	struct scenario sc;
	struct mm_error err = {0};

	(void)state;
	assert_int_equal(scenario_parse(&sc, "bad.scn", HDR "  fn load f when ,\n", &err), MM_EPARSE);
	assert_true(!strncmp(err.msg, "bad.scn:8:18: ", 14));
	assert_int_equal(scenario_parse(&sc, "bad.scn", HDR "  only ,\n  fn fence\n  end\n", &err), MM_EPARSE);
	assert_true(!strncmp(err.msg, "bad.scn:8:8: ", 13));
}

/* ---- what-if edits: replace and insert blocks, kernel profile files ------- */

static const char edit_scn[] = "scenario x\n"
			       "variant a kernel 5.11 \"A\"\n"
			       "field f scope mm\n"
			       "field g scope mm\n"
			       "variant b like a \"B\"\n"
			       "replace x2 load f\n" /* line 6 */
			       "  x5 store g\n"
			       "  repeat 3\n"
			       "    x6 load g\n"
			       "  end\n"
			       "end\n"
			       "insert before x1 load f\n" /* line 12 */
			       "  x0 fence\n"
			       "end\n"
			       "variant c like b \"C\"\n"
			       "insert after x6 load\n" /* one of b's own steps */
			       "  x7 fence\n"
			       "end\n"
			       "begin\n"
			       "  x1 load f\n" /* line 20 */
			       "  x2 load f\n"
			       "  x4 store f\n";

/* Blocks read before 'begin' run where the step they edit is, in the variant (and a variant like
 * it) alone; their repeat is matched in its new place. */
static void test_replace_insert(void **state)
{
	static const char *const fa[] = {"x1", "x2", "x4"};
	static const enum sc_act aa[] = {SA_LOAD, SA_LOAD, SA_STORE};
	static const int la[] = {20, 21, 22};
	static const char *const fb[] = {"x0", "x1", "x5", NULL, "x6", NULL, "x4"};
	static const enum sc_act ab[] = {SA_FENCE, SA_LOAD, SA_STORE, SA_REPEAT, SA_LOAD, SA_END, SA_STORE};
	static const int lb[] = {13, 20, 7, 8, 9, 10, 22};
	static const char *const fc[] = {"x0", "x1", "x5", NULL, "x6", "x7", NULL, "x4"};
	static const enum sc_act ac[] = {SA_FENCE, SA_LOAD, SA_STORE, SA_REPEAT, SA_LOAD, SA_FENCE, SA_END, SA_STORE};
	static const int lc[] = {13, 20, 7, 8, 9, 17, 10, 22};
	struct scenario sc;
	struct kern kk;
	struct program pa, pb, pc;

	(void)state;
	parse_ok(&sc, "edit.scn", edit_scn);
	for (int s = 0; s < sc.nsteps; s++)
		if (sc.step[s].act == SA_REPEAT)
			assert_int_equal(sc.step[sc.step[s].match].match, s);
	load_kernel_file(&kk, K511_PATH);
	compile_ok(&sc, 0, &kk.k, &pa);
	compile_ok(&sc, 1, &kk.k, &pb);
	compile_ok(&sc, 2, &kk.k, &pc);
	check_prog(&sc, &pa, 3, fa, aa, la);
	check_prog(&sc, &pb, 7, fb, ab, lb);
	check_prog(&sc, &pc, 8, fc, ac, lc);
	assert_int_equal(pb.insn[3].match, 5);
	assert_int_equal(pb.insn[3].count, 3);
	assert_int_equal(pc.insn[6].match, 3);
	program_free(&pa);
	program_free(&pb);
	program_free(&pc);
	profile_free(&kk.p);
	scenario_free(&sc);
}

/* A drop after a replace may take a step of its block out; a variant like the edited one has
 * every edit; a step in an 'only' block of another variant is not the variant's. */
static void test_edits_in_order(void **state)
{
	static const char text[] = "scenario x\n"
				   "variant a kernel 5.11 \"A\"\n"
				   "variant o kernel 5.11 \"O\"\n"
				   "field f scope mm\n"
				   "variant b like a \"B\"\n"
				   "replace x1 load f\n"
				   "  x2 fence\n"
				   "  x3 fence\n"
				   "end\n"
				   "drop x2 fence\n"
				   "variant c like b \"C\"\n"
				   "begin\n"
				   "  x1 load f\n"
				   "  only o\n"
				   "    x1 load f\n"
				   "  end\n";
	static const char *const f[] = {"x3"};
	static const enum sc_act act[] = {SA_FENCE};
	static const int l[] = {8};
	struct scenario sc;
	struct kern kk;
	struct program pb, pc;

	(void)state;
	parse_ok(&sc, "order.scn", text);
	load_kernel_file(&kk, K511_PATH);
	compile_ok(&sc, 2, &kk.k, &pb);
	compile_ok(&sc, 3, &kk.k, &pc);
	check_prog(&sc, &pb, 1, f, act, l);
	check_prog(&sc, &pc, 1, f, act, l);
	program_free(&pb);
	program_free(&pc);
	profile_free(&kk.p);
	scenario_free(&sc);
}

/* 'kernel FILE' is the file's, against the scenario file's directory; 'like' carries it over,
 * 'kernel VERSION' after 'like' clears it. */
static void test_kernel_file(void **state)
{
	static const char text[] = "scenario x\n"
				   "variant a kernel ../data/kernels/linux-6.8.conf \"A\"\n"
				   "variant b like a \"B\"\n"
				   "variant c like a kernel 6.6 \"C\"\n"
				   "field f scope mm\n"
				   "begin\n"
				   "  x load f\n";
	const char *path = MMSIM_SOURCE_DIR "/scenarios/../data/kernels/linux-6.8.conf";
	struct scenario sc;
	struct mm_error err = {0};
	char buf[64];

	(void)state;
	parse_ok(&sc, MMSIM_SOURCE_DIR "/scenarios/k.scn", text);
	assert_string_equal(sc.var[0].kernel_file, path);
	assert_string_equal(sc.var[0].kernel, "../data/kernels/linux-6.8.conf");
	assert_string_equal(sc.var[1].kernel_file, path);
	assert_string_equal(scenario_kernel_profile(&sc.var[1], buf, sizeof(buf)), path);
	assert_string_equal(sc.var[2].kernel_file, "");
	assert_string_equal(scenario_kernel_profile(&sc.var[2], buf, sizeof(buf)), "linux-6.6");
	scenario_free(&sc);
	/* a built-in scenario names its kernels by version */
	assert_int_equal(scenario_parse(&sc, "builtin:scenarios/k.scn", text, &err), MM_EPARSE);
	assert_string_equal(err.msg, "builtin:scenarios/k.scn:2:18: a built-in scenario names its kernel by version "
				     "(e.g. kernel 6.6), found '../data/kernels/linux-6.8.conf'");
}

/* ---- project rule: builtin scenarios use named costs only ----------------- */

static void test_builtin_scenarios_named_costs(void **state)
{
	glob_t g;
	int nfail = 0;

	(void)state;
	assert_int_equal(glob(MMSIM_SOURCE_DIR "/scenarios/*.scn", 0, NULL, &g), 0);
	assert_true(g.gl_pathc >= 1);
	for (size_t f = 0; f < g.gl_pathc; f++) {
		const char *path = g.gl_pathv[f];
		char *text = read_text(path);
		struct scenario sc;

		parse_ok(&sc, path, text);
		for (int i = 0; i < sc.nsteps; i++)
			if (sc.step[i].act == SA_COMPUTE && !sc.step[i].name[0]) {
				print_error("%s:%d:%d: literal cost in a builtin scenario (name a [costs] entry)\n",
					    path, sc.step[i].line_no, sc.step[i].col);
				nfail++;
			}
		/* and every variant compiles against its own kernel profile */
		for (int v = 0; v < sc.nvar; v++) {
			char kpath[1024];
			struct kern kk;
			struct program pr;
			struct mm_error err = {0};

			/* by name: a profile may cover several versions ([kernel] covers) */
			snprintf(kpath, sizeof(kpath), "linux-%s", sc.var[v].kernel);
			load_kernel_file(&kk, kpath);
			if (scenario_compile(&sc, v, &kk.k, &pr, &err)) {
				print_error("%s variant %s: %s\n", path, sc.var[v].name, err.msg);
				nfail++;
			} else {
				assert_true(pr.units_per_op > 0);
				program_free(&pr);
			}
			profile_free(&kk.p);
		}
		scenario_free(&sc);
		free(text);
	}
	globfree(&g);
	assert_int_equal(nfail, 0);
}

/* The rule's check itself: a literal cost leaves name[] empty, a named one fills it. */
static void test_literal_cost_detected(void **state)
{
	struct scenario sc;

	(void)state;
	parse_ok(&sc, "lit.scn", HDR "  fn compute 120ns\n  fn compute named_cost\n  fn compute 300cycles\n");
	assert_int_equal(sc.step[0].name[0], 0);
	assert_int_equal(sc.step[0].literal_unit, 1);
	assert_near(sc.step[0].literal, 120);
	assert_string_equal(sc.step[1].name, "named_cost");
	assert_int_equal(sc.step[2].name[0], 0);
	assert_int_equal(sc.step[2].literal_unit, 2);
	assert_near(sc.step[2].literal, 300);
	scenario_free(&sc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_pin_fast_parse),
	    cmocka_unit_test(test_pin_fast_compile),
	    cmocka_unit_test(test_load_builtin),
	    cmocka_unit_test(test_crlf),
	    cmocka_unit_test(test_small_visits),
	    cmocka_unit_test(test_nested_visits),
	    cmocka_unit_test(test_when_only),
	    cmocka_unit_test(test_variant_without_steps),
	    cmocka_unit_test(test_variant_patterns),
	    cmocka_unit_test(test_many_variants),
	    cmocka_unit_test(test_unknown_cost_and_count),
	    cmocka_unit_test(test_lock_pairs),
	    cmocka_unit_test(test_insert_nested_too_deep),
	    cmocka_unit_test(test_load_errors),
	    cmocka_unit_test(test_roles_compile),
	    cmocka_unit_test(test_role_assignment),
	    cmocka_unit_test(test_malformed),
	    cmocka_unit_test(test_builtin_scenarios_named_costs),
	    cmocka_unit_test(test_literal_cost_detected),
	    cmocka_unit_test(test_empty_variant_list),
	    cmocka_unit_test(test_long_names),
	    cmocka_unit_test(test_numbers_accepted),
	    cmocka_unit_test(test_placement),
	    cmocka_unit_test(test_replace_insert),
	    cmocka_unit_test(test_edits_in_order),
	    cmocka_unit_test(test_kernel_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
