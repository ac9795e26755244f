/* SPDX-License-Identifier: MIT */
/*
 * Tests for model/profile.c: the shipped hardware and kernel profiles
 * (every number has a provenance line), known values, and the messages of
 * malformed profiles.
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
#include <unistd.h>

#include "machine.h"
#include "profile.h"
#include "scenario.h"
#include "topology.h"

#define AMD_PATH MMSIM_SOURCE_DIR "/data/machines/amd-2s-128c.conf"
#define NEHALEM_PATH MMSIM_SOURCE_DIR "/data/machines/nehalem-i7-920.conf"
#define K511_PATH MMSIM_SOURCE_DIR "/data/kernels/linux-5.11.conf"

/* ---- helpers ------------------------------------------------------------- */

static void load_ok(struct profile *p, const char *kind, const char *name_or_path)
{
	struct mm_error err = {0};

	if (profile_load(p, kind, name_or_path, &err))
		fail_msg("profile_load(%s, %s): %s", kind, name_or_path, err.msg);
}

/* The file name without its directory and its last extension: linux-5.11.conf -> linux-5.11. */
static void basename_of(const char *path, char *out, size_t cap)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	const char *dot = strrchr(base, '.');

	snprintf(out, cap, "%.*s", (int)(dot ? dot - base : (long)strlen(base)), base);
}

static double entry_num(const struct profile *p, const char *section, const char *key)
{
	const struct prof_entry *e = profile_find(p, section, key);

	if (!e)
		fail_msg("%s has no [%s] %s", p->path, section, key);
	if (!e->is_num)
		fail_msg("%s: [%s] %s = '%s' is not a number", p->path, section, key, e->value);
	return e->num;
}

/* Every entry carries a provenance note with a tag; returns the number of offenders. */
static int check_provenance(const struct profile *p)
{
	int bad = 0;

	for (int i = 0; i < p->nentries; i++) {
		const struct prof_entry *e = &p->e[i];

		if (!e->note[0]) {
			print_error("%s:%d: [%s] %s has no '#' provenance line\n", p->path, e->line, e->section,
				    e->key);
			bad++;
		} else if (e->tag == PROF_UNTAGGED) {
			print_error("%s:%d: [%s] %s: provenance '%s' has no [measured]/[vendor]/[derived]/[assumed]/"
				    "[fitted] tag\n",
				    p->path, e->line, e->section, e->key, e->note);
			bad++;
		}
	}
	return bad;
}

/* ---- the shipped profiles ------------------------------------------------- */

static void test_shipped_machines(void **state)
{
	glob_t g;
	int bad = 0;

	(void)state;
	assert_int_equal(glob(MMSIM_SOURCE_DIR "/data/machines/*.conf", 0, NULL, &g), 0);
	assert_true(g.gl_pathc >= 4);
	for (size_t f = 0; f < g.gl_pathc; f++) {
		struct profile p;
		struct hw_profile hw;
		struct machine m;
		struct mm_error err = {0};
		char base[128];

		load_ok(&p, "machines", g.gl_pathv[f]);
		assert_string_equal(p.path, g.gl_pathv[f]);
		assert_true(p.nentries > 0);
		if (hw_profile_derive(&hw, &p, &err)) {
			print_error("%s\n", err.msg);
			bad++;
		}
		bad += check_provenance(&p);
		/* [machine] name is the name used on the command line: the file's */
		basename_of(g.gl_pathv[f], base, sizeof(base));
		assert_string_equal(hw.name, base);
		assert_string_equal(p.name, base);
		assert_true(hw.nfreq >= 1);
		for (int d = 1; d < TOPO_NDIST; d++)
			assert_true(hw.lat_ps[d] >= hw.lat_ps[d - 1]);
		/* the builtin copy loads and builds a machine, topology included */
		if (machine_load(&m, base, 0, &err)) {
			print_error("machine_load(%s): %s\n", base, err.msg);
			bad++;
		} else {
			assert_true(m.topo.ncpus >= 1);
			machine_free(&m);
		}
		profile_free(&p);
	}
	globfree(&g);
	assert_int_equal(bad, 0);
}

static void test_shipped_kernels(void **state)
{
	glob_t g;
	int bad = 0;

	(void)state;
	assert_int_equal(glob(MMSIM_SOURCE_DIR "/data/kernels/*.conf", 0, NULL, &g), 0);
	assert_true(g.gl_pathc >= 1);
	for (size_t f = 0; f < g.gl_pathc; f++) {
		struct profile p, b;
		struct kernel_profile k;
		struct mm_error err = {0};
		char base[128], want[160];

		load_ok(&p, "kernels", g.gl_pathv[f]);
		if (kernel_profile_derive(&k, &p, &err)) {
			print_error("%s\n", err.msg);
			bad++;
			profile_free(&p);
			continue;
		}
		bad += check_provenance(&p);
		basename_of(g.gl_pathv[f], base, sizeof(base));
		assert_string_equal(k.name, base);
		/* a variant's "kernel VERSION" finds linux-VERSION */
		snprintf(want, sizeof(want), "linux-%s", k.version);
		assert_string_equal(k.name, want);
		assert_ptr_equal(k.p, &p);
		/* the name drops only the last extension: linux-5.11.conf is linux-5.11 */
		assert_string_equal(p.name, base);
		/* and its builtin copy, by name */
		load_ok(&b, "kernels", base);
		snprintf(want, sizeof(want), "builtin:data/kernels/%s.conf", base);
		assert_string_equal(b.path, want);
		assert_int_equal(b.nentries, p.nentries);
		profile_free(&b);
		profile_free(&p);
	}
	globfree(&g);
	assert_int_equal(bad, 0);
}

/* The check itself: a key without a comment, or with an untagged one, is caught. */
static void test_provenance_detected(void **state)
{
	struct profile p;
	struct mm_error err = {0};

	(void)state;
	assert_int_equal(profile_parse(&p, "prov.conf",
				       "# file header, dropped at the section\n"
				       "[s]\n"
				       "# [measured] one\n"
				       "# and a second line\n"
				       "a = 1\n"
				       "b = 2\n"
				       "; plain words\n"
				       "c = x y\n"
				       "# [fitted]\n"
				       "\n"
				       "d = 4\n",
				       &err),
			 0);
	assert_int_equal(p.nentries, 4);
	assert_string_equal(p.e[0].note, "[measured] one and a second line");
	assert_int_equal(p.e[0].tag, PROF_MEASURED);
	assert_int_equal(p.e[0].line, 5);
	assert_true(p.e[0].is_num);
	assert_string_equal(p.e[1].note, "");
	assert_int_equal(p.e[1].tag, PROF_UNTAGGED);
	assert_string_equal(p.e[2].note, "plain words");
	assert_int_equal(p.e[2].tag, PROF_UNTAGGED);
	assert_false(p.e[2].is_num);
	assert_string_equal(p.e[2].value, "x y");
	assert_int_equal(p.e[3].tag, PROF_FITTED);
	assert_int_equal(p.e[3].line, 11);
	assert_string_equal(prof_tag_name(PROF_VENDOR), "vendor");
	assert_string_equal(prof_tag_name(PROF_DERIVED), "derived");
	assert_string_equal(prof_tag_name(PROF_ASSUMED), "assumed");
	profile_free(&p);
}

/* ---- known values ---------------------------------------------------------- */

static void test_amd_values(void **state)
{
	struct profile p;
	struct hw_profile hw;
	struct mm_error err = {0};

	(void)state;
	load_ok(&p, "machines", AMD_PATH);
	if (hw_profile_derive(&hw, &p, &err))
		fail_msg("%s", err.msg);
	assert_string_equal(hw.name, "amd-2s-128c");
	assert_string_equal(hw.topology, "pack:2 numa:1 l3:16 core:4 pu:2");
	/* smt = 8.0 ns */
	assert_int_equal(hw.lat_ps[TOPO_SMT], 8000);
	/* the other distances: the file's ns, in ps */
	assert_int_equal(hw.lat_ps[TOPO_SELF], llround(entry_num(&p, "latency", "self") * 1000));
	assert_int_equal(hw.lat_ps[TOPO_L3], llround(entry_num(&p, "latency", "l3") * 1000));
	assert_int_equal(hw.lat_ps[TOPO_PACKAGE], llround(entry_num(&p, "latency", "package") * 1000));
	assert_int_equal(hw.lat_ps[TOPO_REMOTE], llround(entry_num(&p, "latency", "remote") * 1000));
	assert_int_equal(hw.mem_local_ps, llround(entry_num(&p, "latency", "memory_local") * 1000));
	assert_int_equal(hw.atomic_ps, llround(entry_num(&p, "latency", "atomic") * 1000));
	assert_int_equal(hw.arbitration, ARB_LOCAL_FIRST);
	assert_int_equal(hw.home_snoop, 1);
	assert_int_equal(hw.batch_limit, (int)entry_num(&p, "coherence", "batch_limit"));
	assert_int_equal(hw.pause_ps, llround(entry_num(&p, "cpu", "pause_ns") * 1000));
	/* [frequency] 1, 32 and 128 active cores */
	assert_int_equal(hw.nfreq, 3);
	assert_int_equal(hw.freq_cores[0], 1);
	assert_int_equal(hw.freq_cores[1], 32);
	assert_int_equal(hw.freq_cores[2], 128);
	/* 1 core: the first entry; 20: the first entry covering 20 (32); 200: beyond the last, the last */
	assert_true(hw_freq_ghz(&hw, 1) == entry_num(&p, "frequency", "1"));
	assert_true(hw_freq_ghz(&hw, 20) == entry_num(&p, "frequency", "32"));
	assert_true(hw_freq_ghz(&hw, 32) == entry_num(&p, "frequency", "32"));
	assert_true(hw_freq_ghz(&hw, 33) == entry_num(&p, "frequency", "128"));
	assert_true(hw_freq_ghz(&hw, 200) == entry_num(&p, "frequency", "128"));
	/* and the numbers of the table as shipped: boost on one core, lower with more */
	assert_true(hw_freq_ghz(&hw, 1) == 3.4);
	assert_true(hw_freq_ghz(&hw, 20) == 3.3);
	assert_true(hw_freq_ghz(&hw, 200) == 3.2);
	profile_free(&p);
}

static void test_nehalem_values(void **state)
{
	struct profile p;
	struct hw_profile hw;
	struct machine m;
	struct mm_error err = {0};

	(void)state;
	load_ok(&p, "machines", NEHALEM_PATH);
	if (hw_profile_derive(&hw, &p, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(hw.arbitration, ARB_FIFO);
	assert_int_equal(hw.home_snoop, 0);
	assert_int_equal(hw.lat_ps[TOPO_SMT], 7100);
	assert_int_equal(hw.lat_ps[TOPO_SELF], 1400);
	assert_true(hw_freq_ghz(&hw, 1) == 2.93);
	assert_true(hw_freq_ghz(&hw, 2) == 2.80);
	assert_true(hw_freq_ghz(&hw, 8) == 2.80);
	profile_free(&p);
	/* 4 cores x 2 threads */
	if (machine_load(&m, "nehalem-i7-920", 0, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(m.topo.ncpus, 8);
	machine_free(&m);
}

static void test_kernel_values(void **state)
{
	struct profile p;
	struct kernel_profile k;
	struct mm_error err = {0};
	double cycles = -1;
	int64_t n = -1;

	(void)state;
	load_ok(&p, "kernels", K511_PATH);
	if (kernel_profile_derive(&k, &p, &err))
		fail_msg("%s", err.msg);
	assert_string_equal(k.name, "linux-5.11");
	assert_string_equal(k.version, "5.11");
	assert_string_equal(k.spinlock, "qspinlock");
	assert_string_equal(k.rwsem, "rwsem");
	assert_string_equal(k.rwsem_era, "5.11");
	assert_string_equal(k.vma_lock, "none");
	assert_int_equal(kernel_batch(&k, "vmstat_threshold", &n), 0);
	assert_int_equal(n, (int64_t)entry_num(&p, "batch", "vmstat_threshold"));
	assert_int_equal(kernel_batch(&k, "no_such_batch", &n), MM_ENOENT);
	assert_int_equal(kernel_cost_cycles(&k, "gup_test_ioctl_entry", &cycles), 0);
	assert_true(cycles == entry_num(&p, "costs", "gup_test_ioctl_entry"));
	assert_int_equal(kernel_cost_cycles(&k, "no_such_cost", &cycles), MM_ENOENT);
	/* mm_struct line 1 holds has_pinned and write_protect_seq in 5.11 */
	assert_string_equal(kernel_line_of(&k, "mm.has_pinned"), "mm.line1");
	assert_string_equal(kernel_line_of(&k, "mm.write_protect_seq"), "mm.line1");
	assert_string_equal(kernel_line_of(&k, "no.such.field"), "no.such.field");
	profile_free(&p);
}

/* profile_copy is deep: changing the copy leaves the original alone. */
static void test_copy(void **state)
{
	struct profile p, c;

	(void)state;
	load_ok(&p, "machines", "nehalem-i7-920");
	assert_int_equal(profile_copy(&c, &p), 0);
	assert_int_equal(c.nentries, p.nentries);
	assert_ptr_not_equal(c.e, p.e);
	profile_find(&c, "latency", "smt")->num = 99;
	assert_true(profile_find(&p, "latency", "smt")->num == 7.1);
	profile_free(&c);
	profile_free(&p);
}

/* ---- malformed profiles ---------------------------------------------------- */

/* A valid hardware profile; the line numbers matter to the cases below. */
static const char hw_base[] = "[machine]\n"				    /* 1 */
			      "name = t\n"				    /* 2 */
			      "description = test machine\n"		    /* 3 */
			      "topology = pack:1 numa:1 l3:1 core:2 pu:2\n" /* 4 */
			      "[latency]\n"				    /* 5 */
			      "self = 1\n"				    /* 6 */
			      "smt = 8\n"				    /* 7 */
			      "l3 = 30\n"				    /* 8 */
			      "package = 100\n"				    /* 9 */
			      "remote = 200\n"				    /* 10 */
			      "memory_local = 90\n"			    /* 11 */
			      "memory_remote = 150\n"			    /* 12 */
			      "atomic = 6\n"				    /* 13 */
			      "[coherence]\n"				    /* 14 */
			      "arbitration = fifo\n"			    /* 15 */
			      "batch_limit = 8\n"			    /* 16 */
			      "home_snoop = 0\n"			    /* 17 */
			      "[bandwidth]\n"				    /* 18 */
			      "node_gbs = 100\n"			    /* 19 */
			      "task_gbs = 10\n"				    /* 20 */
			      "[frequency]\n"				    /* 21 */
			      "1 = 3.5\n"				    /* 22 */
			      "4 = 3.0\n"				    /* 23 */
			      "[cpu]\n"					    /* 24 */
			      "smt_factor = 1.5\n"			    /* 25 */
			      "pause_ns = 20\n"				    /* 26 */
			      "wakeup_ns = 5000\n"			    /* 27 */
			      "jitter = 0.02\n";			    /* 28 */

static const char k_base[] = "[kernel]\n"	      /* 1 */
			     "name = ktest\n"	      /* 2 */
			     "version = 9.9\n"	      /* 3 */
			     "spinlock = qspinlock\n" /* 4 */
			     "rwsem_era = 5.11\n"     /* 5 */
			     "vma_lock = none\n"      /* 6 */
			     "[layout]\n"	      /* 7 */
			     "a.x = a.line\n"	      /* 8 */
			     "[batch]\n"	      /* 9 */
			     "b = 4\n"		      /* 10 */
			     "[costs]\n"	      /* 11 */
			     "work = 100\n";	      /* 12 */

/* @base with its first occurrence of @from replaced by @to; malloc()ed. */
static char *edit(const char *base, const char *from, const char *to)
{
	const char *at = strstr(base, from);
	size_t n = strlen(base) - strlen(from) + strlen(to) + 1;
	char *out = malloc(n);

	if (!at)
		fail_msg("'%s' is not in the base text", from);
	assert_non_null(out);
	snprintf(out, n, "%.*s%s%s", (int)(at - base), base, to, at + strlen(from));
	return out;
}

static void test_bases_are_valid(void **state)
{
	struct profile p;
	struct hw_profile hw;
	struct kernel_profile k;
	struct mm_error err = {0};

	(void)state;
	assert_int_equal(profile_parse(&p, "t.conf", hw_base, &err), 0);
	if (hw_profile_derive(&hw, &p, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(hw.nfreq, 2);
	assert_true(hw_freq_ghz(&hw, 1) == 3.5);
	assert_true(hw_freq_ghz(&hw, 2) == 3.0);
	assert_true(hw_freq_ghz(&hw, 4) == 3.0);
	assert_true(hw_freq_ghz(&hw, 5) == 3.0);
	assert_int_equal(profile_find(&p, "cpu", "jitter")->line, 28);
	profile_free(&p);
	assert_int_equal(profile_parse(&p, "k.conf", k_base, &err), 0);
	if (kernel_profile_derive(&k, &p, &err))
		fail_msg("%s", err.msg);
	assert_string_equal(k.spinlock, "qspinlock");
	profile_free(&p);
}

enum stage { ST_PARSE, ST_HW, ST_KERNEL };

struct bad {
	const char *what;
	enum stage stage; /* where it must fail: parsing, or deriving the hw or kernel view */
	const char *base, *from, *to;
	int code;
	const char *prefix; /* the message starts with it */
	const char *phrase; /* and holds it */
};

/* where the package_hops cases insert their line (line 5) */
#define HOPS_AT "topology = pack:1 numa:1 l3:1 core:2 pu:2\n"

static const struct bad bad_cases[] = {
    /* malformed INI lines */
    {"no '='", ST_PARSE, hw_base, "smt = 8\n", "smt 8\n", MM_EPARSE,
     "t.conf:7: ", "malformed line (expected '[section]', 'key = value' or a '#' comment)"},
    {"unclosed section", ST_PARSE, hw_base, "[latency]\n", "[latency\n", MM_EPARSE, "t.conf:5: ", "malformed line"},
    /* duplicate key */
    {"duplicate", ST_PARSE, hw_base, "l3 = 30\n", "l3 = 30\nl3 = 31\n", MM_EPARSE,
     "t.conf:9: ", "key 'l3' appears twice in [latency]"},
    /* unknown section */
    {"unknown section", ST_HW, hw_base, "jitter = 0.02\n", "jitter = 0.02\n[turbo]\nboost = 1\n", MM_EPARSE,
     "t.conf:30: ",
     "unknown section [turbo] (expected machine, latency, coherence, bandwidth, cache, frequency or cpu)"},
    /* unknown key in [latency], with the keys it expects */
    {"unknown key", ST_HW, hw_base, "atomic = 6\n", "atomic = 6\nl4 = 3\n", MM_EPARSE, "t.conf:14:1: ",
     "[latency] key 'l4' is not a key of a machine profile's [latency] (expected one of: self smt l3 package "
     "remote remote_far memory_local memory_remote atomic) (did you mean 'l3'?)"},
    {"unknown key in [cpu]", ST_HW, hw_base, "pause_ns = 20\n", "pause = 20\n", MM_EPARSE, "t.conf:26:1: ",
     "[cpu] key 'pause' is not a key of a machine profile's [cpu] (expected one of: smt_factor pause_ns "
     "wakeup_ns jitter op_jitter ipi_ns wake_step_ns sched_out_ns sched_in_ns corun_factor cost_scale) (did you mean "
     "'pause_ns'?)"},
    /* non-numeric */
    {"word", ST_HW, hw_base, "smt = 8\n", "smt = fast\n", MM_EPARSE,
     "t.conf:7: ", "[latency] smt = 'fast': expected a number"},
    {"unit", ST_HW, hw_base, "smt = 8\n", "smt = 8ns\n", MM_EPARSE,
     "t.conf:7: ", "[latency] smt = '8ns': expected a number"},
    {"nan", ST_HW, hw_base, "l3 = 30\n", "l3 = nan\n", MM_EPARSE,
     "t.conf:8: ", "[latency] l3 = 'nan': expected a number"},
    /* impossible numbers */
    {"negative", ST_HW, hw_base, "smt = 8\n", "smt = -1\n", MM_ERANGE,
     "t.conf:7: ", "[latency] smt = -1 is impossible (expected 0.001 to 100000)"},
    /* issue 14: ranges per key; 0 only where the model gives it a meaning */
    {"zero latency", ST_HW, hw_base, "self = 1\n", "self = 0\n", MM_ERANGE,
     "t.conf:6: ", "[latency] self = 0 is impossible (expected 0.001 to 100000)"},
    {"tiny latency", ST_HW, hw_base, "l3 = 30\n", "l3 = 1e-300\n", MM_ERANGE,
     "t.conf:8: ", "[latency] l3 = 1e-300 is impossible (expected 0.001 to 100000)"},
    {"zero dram", ST_HW, hw_base, "memory_local = 90\n", "memory_local = 0\n", MM_ERANGE,
     "t.conf:11: ", "[latency] memory_local = 0 is impossible"},
    {"tiny atomic", ST_HW, hw_base, "atomic = 6\n", "atomic = 1e-300\n", MM_ERANGE,
     "t.conf:13: ", "[latency] atomic = 1e-300 is impossible (expected 0, or 0.001 to 10000)"},
    {"tiny pause", ST_HW, hw_base, "pause_ns = 20\n", "pause_ns = 0.0001\n", MM_ERANGE,
     "t.conf:26: ", "[cpu] pause_ns = 0.0001 is impossible (expected 0, or 0.001 to 100000)"},
    {"hex latency", ST_HW, hw_base, "smt = 8\n", "smt = 0x10\n", MM_EPARSE,
     "t.conf:7: ", "[latency] smt = '0x10': expected a number"},
    {"infinite bandwidth", ST_HW, hw_base, "node_gbs = 100\n", "node_gbs = inf\n", MM_EPARSE,
     "t.conf:19: ", "[bandwidth] node_gbs = 'inf': expected a number"},
    {"hex count", ST_HW, hw_base, "batch_limit = 8\n", "batch_limit = 0x10\n", MM_EPARSE,
     "t.conf:16: ", "[coherence] batch_limit = '0x10': expected a number"},
    {"exponent count", ST_HW, hw_base, "batch_limit = 8\n", "batch_limit = 1e1\n", MM_EPARSE,
     "t.conf:16: ", "[coherence] batch_limit = '1e1': expected a whole number (decimal digits)"},
    {"flag 1.0", ST_HW, hw_base, "home_snoop = 0\n", "home_snoop = 1.0\n", MM_EPARSE,
     "t.conf:17: ", "[coherence] home_snoop = '1.0': expected a whole number (decimal digits)"},
    {"negative serve_ns", ST_HW, hw_base, "home_snoop = 0\n", "home_snoop = 0\nserve_ns = -3\n", MM_ERANGE,
     "t.conf:18: ", "[coherence] serve_ns = -3 is impossible (expected 0, or 0.001 to 10000)"},
    {"frequency cores overflow", ST_HW, hw_base, "4 = 3.0\n", "99999999999 = 3.0\n", MM_EPARSE,
     "t.conf:23: ", "[frequency] key '99999999999': expected a number of active cores"},
    {"tag in the key", ST_PARSE, hw_base, "smt = 8\n", "smt [assumed] = 8\n", MM_EPARSE,
     "t.conf:7: ", "key 'smt [assumed]' in [latency]: expected a name"},
    {"long key", ST_PARSE, k_base, "work = 100\n",
     "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk = 100\n", MM_EPARSE,
     "t.conf:12: ", "' is longer than 63 characters"},
    {"too large", ST_HW, hw_base, "jitter = 0.02\n", "jitter = 0.9\n", MM_ERANGE,
     "t.conf:28: ", "[cpu] jitter = 0.9 is impossible (expected 0 to 0.5)"},
    {"op_jitter too large", ST_HW, hw_base, "jitter = 0.02\n", "jitter = 0.02\nop_jitter = 0.6\n", MM_ERANGE,
     "t.conf:29: ", "[cpu] op_jitter = 0.6 is impossible (expected 0 to 0.5)"},
    {"cost_scale zero", ST_HW, hw_base, "jitter = 0.02\n", "jitter = 0.02\ncost_scale = 0\n", MM_ERANGE,
     "t.conf:29: ", "[cpu] cost_scale = 0 is impossible (expected 0.1 to 10)"},
    {"smt factor", ST_HW, hw_base, "smt_factor = 1.5\n", "smt_factor = 0.5\n", MM_ERANGE,
     "t.conf:25: ", "[cpu] smt_factor = 0.5 is impossible (expected 1 to 4)"},
    {"batch limit", ST_HW, hw_base, "batch_limit = 8\n", "batch_limit = 0\n", MM_ERANGE,
     "t.conf:16: ", "[coherence] batch_limit = 0 is impossible"},
    /* [cache] */
    {"llc zero", ST_HW, hw_base, "jitter = 0.02\n", "jitter = 0.02\n[cache]\nllc_mib = 0\n", MM_ERANGE,
     "t.conf:30: ", "[cache] llc_mib = 0 is impossible (expected 0.01 to 1e+06)"},
    {"llc key", ST_HW, hw_base, "jitter = 0.02\n", "jitter = 0.02\n[cache]\nl3_mib = 8\n", MM_EPARSE, "t.conf:30:1: ",
     "[cache] key 'l3_mib' is not a key of a machine profile's [cache] (expected one of: "
     "llc_mib) (did you mean 'llc_mib'?)"},
    /* bad arbitration word */
    {"arbitration", ST_HW, hw_base, "arbitration = fifo\n", "arbitration = random\n", MM_EPARSE,
     "t.conf:15: ", "arbitration = 'random': expected 'fifo' or 'local-first'"},
    /* missing keys and sections */
    {"missing key", ST_HW, hw_base, "atomic = 6\n", "", MM_EPARSE,
     "t.conf: ", "missing key 'atomic' in section [latency]"},
    {"missing name", ST_HW, hw_base, "name = t\n", "", MM_EPARSE,
     "t.conf: ", "missing key 'name' in section [machine]"},
    {"missing frequency", ST_HW, hw_base, "[frequency]\n1 = 3.5\n4 = 3.0\n", "", MM_EPARSE,
     "t.conf: ", "missing section [frequency]"},
    /* [frequency] */
    {"frequency order", ST_HW, hw_base, "4 = 3.0\n", "4 = 3.0\n2 = 3.2\n", MM_EPARSE,
     "t.conf:24: ", "[frequency] entries must be in increasing order of active cores"},
    {"frequency key", ST_HW, hw_base, "1 = 3.5\n", "one = 3.5\n", MM_EPARSE,
     "t.conf:22: ", "[frequency] key 'one': expected a number of active cores"},
    {"frequency zero cores", ST_HW, hw_base, "1 = 3.5\n", "0 = 3.5\n", MM_EPARSE, "t.conf:22: ", "[frequency] key '0'"},
    {"frequency GHz", ST_HW, hw_base, "1 = 3.5\n", "1 = 35\n", MM_ERANGE,
     "t.conf:22: ", "[frequency] 1 = '35': expected GHz from 0.1 to 10"},
    /* [machine] package_hops (line 5 once inserted): form, symmetry, diagonal, remote_far */
    {"hops word", ST_HW, hw_base, HOPS_AT, HOPS_AT "package_hops = 0 1/1 x\n", MM_EPARSE, "t.conf:5: ",
     "[machine] package_hops: row 2, entry 2: 'x' (expected 0, 1 or 2, the hops from package 1 to package 1)"},
    {"hops 3", ST_HW, hw_base, HOPS_AT, HOPS_AT "package_hops = 0 3/3 0\n", MM_EPARSE,
     "t.conf:5: ", "row 1, entry 2: '3'"},
    {"hops 10", ST_HW, hw_base, HOPS_AT, HOPS_AT "package_hops = 0 10/10 0\n", MM_EPARSE,
     "t.conf:5: ", "row 1, entry 2: '10'"},
    {"hops not square", ST_HW, hw_base, HOPS_AT, HOPS_AT "package_hops = 0 1/1 0 1\n", MM_EPARSE,
     "t.conf:5: ", "[machine] package_hops: row 2 has 3 entries but there are 2 rows (expected a square matrix"},
    {"hops empty row", ST_HW, hw_base, HOPS_AT, HOPS_AT "package_hops = 0 1//1 0\n", MM_EPARSE,
     "t.conf:5: ", "[machine] package_hops: row 2 is empty"},
    {"hops trailing slash", ST_HW, hw_base, HOPS_AT, HOPS_AT "package_hops = 0 1/1 0/\n", MM_EPARSE,
     "t.conf:5: ", "row 3 is empty"},
    {"hops empty", ST_HW, hw_base, HOPS_AT, HOPS_AT "package_hops =\n", MM_EPARSE, "t.conf:5: ", "row 1 is empty"},
    {"hops diagonal", ST_HW, hw_base, HOPS_AT, HOPS_AT "package_hops = 0 1/1 1\n", MM_EPARSE, "t.conf:5: ",
     "[machine] package_hops: 1 hops from package 1 to package 1 (expected 0 from a package to itself and only "
     "there)"},
    {"hops zero apart", ST_HW, hw_base, HOPS_AT, HOPS_AT "package_hops = 0 0/0 0\n", MM_EPARSE,
     "t.conf:5: ", "0 hops from package 0 to package 1"},
    {"hops asymmetric", ST_HW, hw_base, HOPS_AT, HOPS_AT "package_hops = 0 1 2/1 0 1/1 1 0\n", MM_EPARSE,
     "t.conf:5: ", "[machine] package_hops: 2 hops from package 0 to 2 but 1 back (expected a symmetric matrix)"},
    {"hops too many", ST_HW, hw_base, HOPS_AT, HOPS_AT "package_hops = 0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0\n", MM_ERANGE,
     "t.conf:5: ", "[machine] package_hops: more than 16 rows (packages)"},
    {"hops need remote_far", ST_HW, hw_base, HOPS_AT, HOPS_AT "package_hops = 0 1 2/1 0 1/2 1 0\n", MM_EPARSE,
     "t.conf: ",
     "missing key 'remote_far' in section [latency]: package_hops (line 5) puts packages 0 and 2 two hops apart"},
    /* kernel profiles */
    {"rwsem era", ST_KERNEL, k_base, "rwsem_era = 5.11\n", "rwsem_era = 4.x\n", MM_EPARSE,
     "t.conf:5: ", "[kernel] rwsem_era = '4.x': expected one of: 3.x 5.3 5.11 6.x"},
    {"vma lock", ST_KERNEL, k_base, "vma_lock = none\n", "vma_lock = yes\n", MM_EPARSE,
     "t.conf:6: ", "[kernel] vma_lock = 'yes': expected one of: none vma_lock"},
    {"missing version", ST_KERNEL, k_base, "version = 9.9\n", "", MM_EPARSE,
     "t.conf: ", "missing key 'version' in section [kernel]"},
    {"negative cost", ST_KERNEL, k_base, "work = 100\n", "work = -5\n", MM_EPARSE,
     "t.conf:12: ", "[costs] work = '-5': expected cycles, a number from 0.01 to 1e10 (a cost is never 0)"},
    {"zero cost", ST_KERNEL, k_base, "work = 100\n", "work = 0\n", MM_EPARSE,
     "t.conf:12: ", "[costs] work = '0': expected cycles, a number from 0.01"},
    {"tiny cost", ST_KERNEL, k_base, "work = 100\n", "work = 1e-300\n", MM_EPARSE,
     "t.conf:12: ", "[costs] work = '1e-300': expected cycles"},
    {"hex cost", ST_KERNEL, k_base, "work = 100\n", "work = 0x10\n", MM_EPARSE,
     "t.conf:12: ", "[costs] work = '0x10': expected cycles"},
    {"hex batch", ST_KERNEL, k_base, "b = 4\n", "b = 0x10\n", MM_EPARSE,
     "t.conf:10: ", "[batch] b = '0x10': expected a whole number >= 1 (decimal digits"},
    {"exponent batch", ST_KERNEL, k_base, "b = 4\n", "b = 1e2\n", MM_EPARSE,
     "t.conf:10: ", "[batch] b = '1e2': expected a whole number >= 1 (decimal digits"},
    {"negative version", ST_KERNEL, k_base, "version = 9.9\n", "version = -1\n", MM_EPARSE,
     "t.conf:3: ", "[kernel] version = '-1': expected MAJOR.MINOR (e.g. 6.6)"},
    {"version word", ST_KERNEL, k_base, "version = 9.9\n", "version = 9.9-rc1\n", MM_EPARSE,
     "t.conf:3: ", "[kernel] version = '9.9-rc1': expected MAJOR.MINOR"},
    {"covers", ST_KERNEL, k_base, "version = 9.9\n", "version = 9.9\ncovers = 9.8 9\n", MM_EPARSE,
     "t.conf:4: ", "[kernel] covers: '9' is not a version (expected MAJOR.MINOR, e.g. 6.6)"},
    {"cost word", ST_KERNEL, k_base, "work = 100\n", "work = lots\n", MM_EPARSE,
     "t.conf:12: ", "[costs] work = 'lots': expected cycles"},
    {"fractional batch", ST_KERNEL, k_base, "b = 4\n", "b = 2.5\n", MM_EPARSE,
     "t.conf:10: ", "[batch] b = '2.5': expected a whole number >= 1"},
    {"zero batch", ST_KERNEL, k_base, "b = 4\n", "b = 0\n", MM_EPARSE,
     "t.conf:10: ", "[batch] b = '0': expected a whole number >= 1"},
    {"misses word", ST_KERNEL, k_base, "[costs]\n", "[misses]\nm = some\n[costs]\n", MM_EPARSE,
     "t.conf:12: ", "[misses] m = 'some': expected DRAM accesses per visit, a number >= 0"},
};

static void test_malformed(void **state)
{
	int nfail = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		const struct bad *b = &bad_cases[i];
		char *text = edit(b->base, b->from, b->to);
		struct profile p;
		struct hw_profile hw;
		struct kernel_profile k;
		struct mm_error err = {0};
		int rc = profile_parse(&p, "t.conf", text, &err);

		if (b->stage != ST_PARSE) {
			if (rc) {
				print_error("case %zu (%s): parse failed: %s\n", i, b->what, err.msg);
				nfail++;
				free(text);
				continue;
			}
			rc = b->stage == ST_HW ? hw_profile_derive(&hw, &p, &err) : kernel_profile_derive(&k, &p, &err);
			profile_free(&p);
		} else if (!rc) {
			profile_free(&p);
		} else {
			/* a failed parse leaves nothing allocated */
			if (p.e || p.nentries) {
				print_error("case %zu (%s): profile not freed after the error\n", i, b->what);
				nfail++;
			}
		}
		if (rc != b->code) {
			print_error("case %zu (%s): code %d, expected %d (%s)\n", i, b->what, rc, b->code,
				    rc ? err.msg : "");
			nfail++;
		} else if (strncmp(err.msg, b->prefix, strlen(b->prefix)) || !strstr(err.msg, b->phrase)) {
			print_error("case %zu (%s): message\n  '%s'\nexpected it to start with '%s' and hold '%s'\n", i,
				    b->what, err.msg, b->prefix, b->phrase);
			nfail++;
		}
		free(text);
	}
	assert_int_equal(nfail, 0);
}

/* ---- loading by name or path ------------------------------------------------ */

/* A profile written to a temporary file, for machine_load; @path gets its name. */
static void write_temp(const char *text, char *path, size_t cap)
{
	const char *dir = getenv("TMPDIR");
	FILE *f;
	int fd;

	snprintf(path, cap, "%s/mmsim-test-XXXXXX", dir && *dir ? dir : "/tmp");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	assert_true(fputs(text, f) >= 0);
	assert_int_equal(fclose(f), 0);
}

/*
 * [machine] package_hops and [latency] remote_far: an 8-socket glueless machine whose sockets
 * are the Wagner graph (p one hop from p +- 1 and p + 4 mod 8), the hop classes in the topology,
 * remote_far's latency where it is needed; the matrix must fit the topology.
 */
static void test_package_hops(void **state)
{
	static const char wagner[] = "0 1 2 2 1 2 2 1/1 0 1 2 2 1 2 2/2 1 0 1 2 2 1 2/2 2 1 0 1 2 2 1/"
				     "1 2 2 1 0 1 2 2/2 1 2 2 1 0 1 2/2 2 1 2 2 1 0 1/1 2 2 1 2 2 1 0";
	struct mm_error err = {0};
	struct hw_profile hw;
	struct machine m;
	struct profile p;
	char line[600], path[256], *text, *t2;

	(void)state;
	/* absent: remote_far stands at remote's value, never used */
	assert_int_equal(profile_parse(&p, "t.conf", hw_base, &err), 0);
	assert_int_equal(hw_profile_derive(&hw, &p, &err), 0);
	assert_int_equal(hw.npkg_hops, 0);
	assert_int_equal(hw.lat_ps[TOPO_REMOTE_FAR], hw.lat_ps[TOPO_REMOTE]);
	profile_free(&p);
	/* given without package_hops: allowed, unused */
	text = edit(hw_base, "remote = 200\n", "remote = 200\nremote_far = 280\n");
	assert_int_equal(profile_parse(&p, "t.conf", text, &err), 0);
	assert_int_equal(hw_profile_derive(&hw, &p, &err), 0);
	assert_int_equal(hw.lat_ps[TOPO_REMOTE_FAR], 280000);
	profile_free(&p);

	/* the 8-socket machine, loaded as a file */
	snprintf(line, sizeof(line), "topology = pack:8 numa:1 l3:1 core:2 pu:1\npackage_hops = %s\n", wagner);
	t2 = edit(text, "topology = pack:1 numa:1 l3:1 core:2 pu:2\n", line);
	write_temp(t2, path, sizeof(path));
	if (machine_load(&m, path, 0, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(m.hw.npkg_hops, 8);
	assert_int_equal(m.hw.pkg_hops_line, 5);
	assert_int_equal(m.hw.pkg_hops[2 * 8 + 5], 2);
	assert_int_equal(m.hw.pkg_hops[2 * 8 + 6], 1);
	assert_int_equal(m.topo.npackages, 8);
	assert_int_equal(topo_distance(&m.topo, 0, 2), TOPO_REMOTE);
	assert_int_equal(topo_distance(&m.topo, 0, 4), TOPO_REMOTE_FAR);
	assert_int_equal(topo_distance(&m.topo, 0, 8), TOPO_REMOTE);
	assert_int_equal(m.hw.lat_ps[TOPO_REMOTE_FAR], 280000);
	machine_free(&m);
	unlink(path);
	free(t2);

	/* the right form but not this topology's size: refused at the line, naming the topology */
	t2 = edit(text, "topology = pack:1 numa:1 l3:1 core:2 pu:2\n",
		  "topology = pack:2 numa:1 l3:1 core:2 pu:1\npackage_hops = 0 1 1/1 0 1/1 1 0\n");
	write_temp(t2, path, sizeof(path));
	assert_int_equal(machine_load(&m, path, 0, &err), MM_ETOPO);
	snprintf(line, sizeof(line), "%s:5: [machine] package_hops: 3 rows for 3 packages, but the topology has 2 (",
		 path);
	if (!strstr(err.msg, line))
		fail_msg("message '%s', expected '%s'", err.msg, line);
	unlink(path);
	free(t2);

	/* packages two hops apart and home_snoop: refused */
	t2 = edit(text, "topology = pack:1 numa:1 l3:1 core:2 pu:2\n",
		  "topology = pack:3 numa:1 l3:1 core:2 pu:1\npackage_hops = 0 1 2/1 0 1/2 1 0\n");
	free(text);
	text = edit(t2, "home_snoop = 0\n", "home_snoop = 1\n");
	assert_int_equal(profile_parse(&p, "t.conf", text, &err), 0);
	assert_int_equal(hw_profile_derive(&hw, &p, &err), MM_EPARSE);
	assert_non_null(strstr(err.msg, "t.conf:5: [machine] package_hops with packages two hops apart and "
					"[coherence] home_snoop = 1 together are not modelled"));
	profile_free(&p);
	free(t2);
	free(text);
}

static void test_load_errors(void **state)
{
	struct profile p;
	struct mm_error err = {0};
	const char *const *names;
	glob_t g;

	(void)state;
	/* an unknown builtin name lists the builtins */
	assert_int_equal(profile_load(&p, "machines", "no-such-machine", &err), MM_ENOENT);
	assert_non_null(strstr(err.msg, "unknown machine profile 'no-such-machine' (builtin: "));
	assert_non_null(strstr(err.msg, "or give a file path"));
	names = profile_builtin_names("machines");
	assert_non_null(names[0]);
	for (int i = 0; names[i]; i++)
		assert_non_null(strstr(err.msg, names[i]));
	/* every shipped machine file is a builtin */
	assert_int_equal(glob(MMSIM_SOURCE_DIR "/data/machines/*.conf", 0, NULL, &g), 0);
	for (size_t f = 0; f < g.gl_pathc; f++) {
		char base[128];

		basename_of(g.gl_pathv[f], base, sizeof(base));
		assert_non_null(strstr(err.msg, base));
		assert_non_null(profile_builtin_text("machines", base));
	}
	globfree(&g);

	assert_int_equal(profile_load(&p, "kernels", "nokernel", &err), MM_ENOENT);
	assert_non_null(strstr(err.msg, "unknown kernel profile 'nokernel' (builtin: "));
	assert_non_null(strstr(err.msg, "linux-5.11"));

	/* a missing file names the path */
	assert_int_equal(profile_load(&p, "machines", "/nonexistent/dir/m.conf", &err), MM_ENOENT);
	assert_true(!strncmp(err.msg, "/nonexistent/dir/m.conf: cannot open", 36));
	assert_int_equal(profile_load(&p, "kernels", "./no-such-kernel.conf", &err), MM_ENOENT);
	assert_non_null(strstr(err.msg, "./no-such-kernel.conf"));

	/* a kind with no builtins */
	assert_null(profile_builtin_names("nonsense")[0]);
	assert_null(profile_builtin_text("machines", "no-such-machine"));
}

/* A kernel name with a dot (linux-VERSION) that is not builtin lists the builtins. */
static void test_unknown_versioned_kernel(void **state)
{
	struct profile p;
	struct mm_error err = {0};

	(void)state;
	assert_int_equal(profile_load(&p, "kernels", "linux-9.9", &err), MM_ENOENT);
	assert_non_null(strstr(err.msg, "unknown kernel profile 'linux-9.9'"));
	assert_non_null(strstr(err.msg, "linux-5.11"));
}

/* A provenance comment longer than inih's line buffer is kept whole, and line numbers stay right. */
static void test_long_comment_line(void **state)
{
	char text[1024], pad[251];
	struct profile p;
	struct mm_error err = {0};

	(void)state;
	memset(pad, 'c', 250);
	pad[250] = 0;
	snprintf(text, sizeof(text), "[kernel]\n# [assumed] %s and x = 1\nname = k\n", pad);
	assert_int_equal(profile_parse(&p, "long.conf", text, &err), 0);
	assert_int_equal(p.nentries, 1);
	assert_string_equal(p.e[0].key, "name");
	assert_int_equal(p.e[0].line, 3);
	assert_int_equal(p.e[0].tag, PROF_ASSUMED);
	profile_free(&p);
}

/* A key line longer than inih's buffer is refused, not split. */
static void test_long_key_line(void **state)
{
	char text[1024], pad[251];
	struct profile p;
	struct mm_error err = {0};

	(void)state;
	memset(pad, 'v', 250);
	pad[250] = 0;
	snprintf(text, sizeof(text), "[kernel]\n# [assumed] x\nname = %s\n", pad);
	assert_int_equal(profile_parse(&p, "long.conf", text, &err), MM_EPARSE);
	assert_non_null(strstr(err.msg, "long.conf:3: line longer than"));
}

/* The keys where 0 means something take it: a free atomic, an at-once re-read and wake-up, no jitter,
 * no home snoop, free IPIs and wake steps, no cold misses; 1 ps is the least non-zero duration. */
static void test_zero_where_meaningful(void **state)
{
	char *text = edit(hw_base, "jitter = 0.02\n",
			  "jitter = 0\nipi_ns = 0\nwake_step_ns = 0.001\nsched_out_ns = 0\nsched_in_ns = 1500\n");
	char *t2 = edit(text, "atomic = 6\n", "atomic = 0\n");
	char *t3 = edit(t2, "pause_ns = 20\nwakeup_ns = 5000\n", "pause_ns = 0\nwakeup_ns = 0\n");
	char *kt = edit(k_base, "[costs]\n", "[misses]\nm = 0\n[costs]\n");
	struct profile p;
	struct hw_profile hw;
	struct kernel_profile k;
	struct mm_error err = {0};

	(void)state;
	assert_int_equal(profile_parse(&p, "t.conf", t3, &err), 0);
	if (hw_profile_derive(&hw, &p, &err))
		fail_msg("%s", err.msg);
	assert_true(hw.atomic_ps == 0 && hw.pause_ps == 0 && hw.wakeup_ps == 0 && hw.ipi_ps == 0);
	assert_true(hw.jitter == 0 && hw.home_snoop == 0);
	assert_true(hw.wake_step_ps == 1 && hw.sched_out_ps == 0 && hw.sched_in_ps == 1500000);
	assert_true(hw.lat_ps[TOPO_SELF] == 1000 && hw.batch_limit == 8);
	/* the optional ones keep their defaults when absent */
	profile_free(&p);
	assert_int_equal(profile_parse(&p, "t.conf", hw_base, &err), 0);
	assert_int_equal(hw_profile_derive(&hw, &p, &err), 0);
	assert_true(hw.ipi_ps == 2000000 && hw.wake_step_ps == 300000 && hw.llc_bytes == 0);
	assert_true(hw.sched_out_ps == 0 && hw.sched_in_ps == 0); /* schedule()'s cost: not modelled unless set */
	assert_true(hw.serve_ps == 0);				  /* a batch of loads answered at once unless set */
	assert_true(hw.op_jitter == 0);				  /* no variation per operation unless set */
	profile_free(&p);
	assert_int_equal(profile_parse(&p, "k.conf", kt, &err), 0);
	if (kernel_profile_derive(&k, &p, &err))
		fail_msg("%s", err.msg);
	profile_free(&p);
	free(kt);
	free(t3);
	free(t2);
	free(text);
}

/* A tag on a comment line past what the note can hold still tags the entry. */
static void test_tag_beyond_note(void **state)
{
	char text[1024], pad[201];
	struct profile p;
	struct mm_error err = {0};

	(void)state;
	memset(pad, 'n', 150);
	pad[150] = 0;
	snprintf(text, sizeof(text), "[cpu]\n# %s\n# %s\n# %s\n# [fitted] by hand\nx = 1\n", pad, pad, pad);
	assert_int_equal(profile_parse(&p, "tag.conf", text, &err), 0);
	assert_int_equal(p.e[0].line, 6);
	assert_int_equal(p.e[0].tag, PROF_FITTED);
	profile_free(&p);
}

/* With two errors, the message names the first. */
static void test_first_error_reported(void **state)
{
	struct profile p;
	struct mm_error err = {0};

	(void)state;
	assert_int_equal(profile_parse(&p, "d.conf", "[a]\nx = 1\nx = 2\ny = 1\ny = 2\n", &err), MM_EPARSE);
	assert_true(!strncmp(err.msg, "d.conf:3: key 'x' appears twice", 31));
}

/* ---- unknown keys (issue 16): refused with FILE:LINE:COL and the nearest name -------- */

static void test_nearest_name(void **state)
{
	static const char *const lat[] = {"self", "smt", "l3", "package", "remote", "remote_far", "atomic"};
	static const char *const mm[] = {"mm.mmap_lock", "mm.mmap_lock.count", "mm.mmap_lock.owner"};
	static const char *const cpu[] = {"smt_factor", "pause_ns", "wakeup_ns", "wake_step_ns"};
	char buf[96];

	(void)state;
	assert_string_equal(profile_nearest_name("remtoe", lat, 7), "remote");	      /* a swap is one edit */
	assert_string_equal(profile_nearest_name("remote_fa", lat, 7), "remote_far"); /* the nearest, not the first */
	assert_string_equal(profile_nearest_name("mm.mmap_lock.cuont", mm, 3), "mm.mmap_lock.count");
	assert_string_equal(profile_nearest_name("mm.mmap_lock.ownr", mm, 3), "mm.mmap_lock.owner");
	assert_string_equal(profile_nearest_name("l4", lat, 7), "l3");
	assert_string_equal(profile_nearest_name("pause", cpu, 4), "pause_ns"); /* the unit left out */
	assert_null(profile_nearest_name("mm.mmap_lock", mm + 1, 2));		/* two names start so */
	assert_null(profile_nearest_name("x", lat, 7));				/* nothing is close */
	assert_null(profile_nearest_name("frobnicate", lat, 7));
	assert_null(profile_nearest_name("remote", lat, 0));
	assert_string_equal(profile_did_you_mean(buf, sizeof(buf), "atomc", lat, 7), " (did you mean 'atomic'?)");
	assert_string_equal(profile_did_you_mean(buf, sizeof(buf), "zzzzzz", lat, 7), "");
}

/* A misspelled key in each section of a machine profile: FILE:LINE:COL, the section, the nearest key. */
static void test_machine_key_typos(void **state)
{
	static const struct {
		const char *from, *to, *msg;
	} cases[] = {
	    {"description = test machine\n", "descripton = test machine\n",
	     "t.conf:3:1: [machine] key 'descripton' is not a key of a machine profile's [machine] (expected one "
	     "of: name description topology package_hops) (did you mean 'description'?)"},
	    {"[latency]\nself = 1\n", "[latency]\n  slef = 1\n", "t.conf:6:3: [latency] key 'slef' is not a key"},
	    {"remote = 200\n", "remtoe = 200\n", "t.conf:10:1: [latency] key 'remtoe' is not a key"},
	    {"batch_limit = 8\n", "batch_limt = 8\n", "t.conf:16:1: [coherence] key 'batch_limt' is not a key"},
	    {"node_gbs = 100\n", "node_gsb = 100\n", "t.conf:19:1: [bandwidth] key 'node_gsb' is not a key"},
	    {"wakeup_ns = 5000\n", "wakup_ns = 5000\n", "t.conf:27:1: [cpu] key 'wakup_ns' is not a key"},
	    {"jitter = 0.02\n", "jitter = 0.02\n[cache]\nllc_mb = 8\n", "t.conf:30:1: [cache] key 'llc_mb' is not"},
	    {"[bandwidth]\n", "[bandwith]\n", "t.conf:19: unknown section [bandwith]"},
	    {"4 = 3.0\n", "4x = 3.0\n", "t.conf:23: [frequency] key '4x': expected a number of active cores"},
	};
	static const char *const meant[] = {"description", "self",    "remote",	     "batch_limit", "node_gbs",
					    "wakeup_ns",   "llc_mib", "[bandwidth]", NULL};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *text = edit(hw_base, cases[i].from, cases[i].to), want[64];
		struct profile p;
		struct hw_profile hw;
		struct mm_error err = {0};

		assert_int_equal(profile_parse(&p, "t.conf", text, &err), 0);
		assert_int_equal(hw_profile_derive(&hw, &p, &err), MM_EPARSE);
		if (strncmp(err.msg, cases[i].msg, strlen(cases[i].msg)))
			fail_msg("case %zu: got '%s', expected it to start with '%s'", i, err.msg, cases[i].msg);
		if (meant[i]) {
			snprintf(want, sizeof(want), "(did you mean '%s'?)",
				 meant[i][0] == '[' ? "bandwidth" : meant[i]);
			if (!strstr(err.msg, want))
				fail_msg("case %zu: '%s' does not say %s", i, err.msg, want);
		}
		profile_free(&p);
		free(text);
	}
}

/* The line of @text (1-based) that starts with @key. */
static int line_of(const char *text, const char *key)
{
	int line = 1;

	for (const char *s = text; *s; s++) {
		if ((s == text || s[-1] == '\n') && !strncmp(s, key, strlen(key)))
			return line;
		line += *s == '\n';
	}
	fail_msg("no line starts with '%s'", key);
	return 0;
}

/* The shipped linux-6.6 with @from replaced by @to: derived, its lock keys and its names checked
 * against the built-in scenarios and @sc; the first error, or 0. */
static int check_kernel_text(const char *text, const struct scenario *sc, struct mm_error *err)
{
	struct profile p;
	struct kernel_profile k;
	int rc;

	assert_int_equal(profile_parse(&p, "k.conf", text, err), 0);
	rc = kernel_profile_derive(&k, &p, err);
	if (!rc)
		rc = lock_check_kernel(&k, err);
	if (!rc)
		rc = scenario_check_kernel_names(&k, sc, sc ? 1 : 0, err);
	profile_free(&p);
	return rc;
}

/* A misspelled key in each section of a kernel profile: [kernel] and a lock design's section
 * have fixed keys; [layout], [costs], [batch] and [misses] hold the names scenarios use. */
static void test_kernel_key_typos(void **state)
{
	static const struct {
		const char *from, *to, *section, *meant;
	} cases[] = {
	    {"vma_lock = vma_lock\n", "vmalock = vma_lock\n", "kernel", "vma_lock"},
	    {"mm.mmap_lock.count = mm.line2\n", "mm.mmap_lock.cuont = mm.line2\n", "layout", "mm.mmap_lock.count"},
	    {"lru_batch = 15\n", "lru_bacth = 15\n", "batch", "lru_batch"},
	    {"fault_entry_exit = 450\n", "fault_entry_exti = 450\n", "costs", "fault_entry_exit"},
	    {"user_read_page = 0.157\n", "user_read_pages = 0.157\n", "misses", "user_read_page"},
	    {"[layout]\n", "[rwsem]\nreader_spinn = 1\n[layout]\n", "rwsem", "reader_spin"},
	};
	char *base;
	struct mm_error err = {0};

	(void)state;
	assert_int_equal(mm_read_text_file(MMSIM_SOURCE_DIR "/data/kernels/linux-6.6.conf", &base, &err), 0);
	assert_int_equal(check_kernel_text(base, NULL, &err), 0); /* the profile as shipped passes */
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *text = edit(base, cases[i].from, cases[i].to), want[160];
		const char *key = cases[i].to[0] == '[' ? strchr(cases[i].to, '\n') + 1 : cases[i].to;
		char keyname[64];

		snprintf(keyname, sizeof(keyname), "%.*s", (int)strcspn(key, " "), key);
		assert_int_equal(check_kernel_text(text, NULL, &err), MM_EPARSE);
		snprintf(want, sizeof(want), "k.conf:%d:1: [%s] key '%s' is not ", line_of(text, keyname),
			 cases[i].section, keyname);
		if (strncmp(err.msg, want, strlen(want)))
			fail_msg("case %zu: got '%s', expected it to start with '%s'", i, err.msg, want);
		snprintf(want, sizeof(want), "(did you mean '%s'?)", cases[i].meant);
		if (!strstr(err.msg, want))
			fail_msg("case %zu: '%s' does not say %s", i, err.msg, want);
		free(text);
	}
	{ /* a section nobody has */
		char *text = edit(base, "[costs]\n", "[cost]\n");

		assert_int_equal(check_kernel_text(text, NULL, &err), MM_EPARSE);
		assert_non_null(strstr(err.msg, "unknown section [cost]"));
		assert_non_null(strstr(err.msg, "(did you mean 'costs'?)"));
		free(text);
	}
	free(base);
}

/* A key only the run's own scenario names passes with it and is refused without it; a scenario's
 * compile refuses a key neither it nor a built-in scenario names, naming the scenario file. */
static void test_kernel_names_of_the_run(void **state)
{
	static const char scn[] = "scenario mine\nvariant v kernel 6.6 \"test\"\nfield my.field scope mm\n"
				  "begin\n  f load my.field\n  f compute my_cost\n";
	char *base, *text, *typo;
	struct scenario sc;
	struct profile p;
	struct kernel_profile k;
	struct program prog;
	struct mm_error err = {0};

	(void)state;
	assert_int_equal(mm_read_text_file(MMSIM_SOURCE_DIR "/data/kernels/linux-6.6.conf", &base, &err), 0);
	text = edit(base, "[costs]\n", "[costs]\n# [assumed] test\nmy_cost = 7\n");
	assert_int_equal(scenario_parse(&sc, "mine.scn", scn, &err), 0);
	assert_int_equal(check_kernel_text(text, &sc, &err), 0);
	assert_int_equal(check_kernel_text(text, NULL, &err), MM_EPARSE);
	assert_non_null(strstr(err.msg, "[costs] key 'my_cost' is not a cost that any built-in scenario names"));

	typo = edit(text, "my_cost = 7\n", "my_cots = 7\n");
	assert_int_equal(profile_parse(&p, "k.conf", typo, &err), 0);
	assert_int_equal(kernel_profile_derive(&k, &p, &err), 0);
	assert_int_not_equal(scenario_compile(&sc, 0, &k, &prog, &err), 0);
	if (!strstr(err.msg, "[costs] key 'my_cots' is not a cost that the scenario mine.scn or any built-in one "
			     "names, so nothing would read it (did you mean 'my_cost'?)"))
		fail_msg("got '%s'", err.msg);
	profile_free(&p);
	scenario_free(&sc);
	free(typo);
	free(text);
	free(base);
}

/* Every shipped kernel profile (the published ones too) holds only names some scenario reads. */
static void test_shipped_kernel_names(void **state)
{
	const char *const *names = profile_builtin_names("kernels");

	(void)state;
	for (int i = 0; names[i]; i++) {
		struct profile p;
		struct kernel_profile k;
		struct mm_error err = {0};

		load_ok(&p, "kernels", names[i]);
		if (kernel_profile_derive(&k, &p, &err) || lock_check_kernel(&k, &err) ||
		    scenario_check_kernel_names(&k, NULL, 0, &err))
			fail_msg("%s: %s", names[i], err.msg);
		profile_free(&p);
	}
}

/* A provenance note is kept whole up to 1023 characters; beyond, it ends in '...'. */
static void test_long_provenance_whole(void **state)
{
	char pad[401], text[2048];
	struct profile p;
	struct mm_error err = {0};
	size_t len;

	(void)state;
	memset(pad, 'w', 400);
	pad[400] = 0;
	snprintf(text, sizeof(text), "[cpu]\n# [measured] %s\n# %s\nx = 1\n# %s\n# %s\n# %s\ny = 2\n", pad, pad, pad,
		 pad, pad);
	assert_int_equal(profile_parse(&p, "n.conf", text, &err), 0);
	assert_int_equal(strlen(p.e[0].note), 11 + 400 + 1 + 400);
	assert_true(p.e[0].note[strlen(p.e[0].note) - 1] == 'w');
	len = strlen(p.e[1].note);
	assert_int_equal(len, sizeof(p.e[1].note) - 1);
	assert_string_equal(p.e[1].note + len - 3, "...");
	profile_free(&p);
}

/* A [fitted] number whose provenance does not fit the note is refused: the points it names (left
 * out of every error figure) could be past the cut.  An [assumed] one's is cut, as above. */
static void test_fitted_provenance_not_cut(void **state)
{
	char pad[401], text[2048];
	struct profile p;
	struct mm_error err = {0};

	(void)state;
	memset(pad, 'w', 400);
	pad[400] = 0;
	snprintf(text, sizeof(text), "[cpu]\n# [fitted] %s\n# %s\n# %s to ROW-t1\nx = 1\n", pad, pad, pad);
	assert_int_equal(profile_parse(&p, "f.conf", text, &err), MM_EPARSE);
	assert_string_equal(err.msg, "f.conf:5: the provenance of [fitted] x is longer than 1020 characters: the "
				     "points it names would not all be read (shorten it)");
	snprintf(text, sizeof(text), "[cpu]\n# [assumed] %s\n# %s\n# %s\nx = 1\n", pad, pad, pad);
	assert_int_equal(profile_parse(&p, "f.conf", text, &err), 0);
	profile_free(&p);
}

/*
 * Profiles load from several threads at once (reproduce published, sweeps and curves run their
 * points under OpenMP): a kernel profile whose bases nest three deep loads every time.  The depth
 * count of 'base' nesting was one static int for all threads, and its lost updates made a load
 * fail at random with "base profiles nested deeper than 4 (a loop?)"; each thread counts its own.
 */
static void test_bases_load_in_parallel(void **state)
{
	int failed = 0;
	char msg[sizeof(((struct mm_error *)0)->msg)] = "";

	(void)state;
#pragma omp parallel num_threads(4) reduction(+ : failed)
	for (int i = 0; i < 400; i++) {
		struct profile p;
		struct mm_error err = {0};

		if (profile_load(&p, "kernels",
				 MMSIM_SOURCE_DIR "/data/reference/published/kernels/linux-5.1-v8-12.conf", &err)) {
			failed++;
#pragma omp critical(test_bases_msg)
			snprintf(msg, sizeof(msg), "%s", err.msg);
			continue;
		}
		profile_free(&p);
	}
	if (failed)
		fail_msg("%d of 1600 loads failed: %s", failed, msg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_shipped_machines),
	    cmocka_unit_test(test_shipped_kernels),
	    cmocka_unit_test(test_provenance_detected),
	    cmocka_unit_test(test_amd_values),
	    cmocka_unit_test(test_nehalem_values),
	    cmocka_unit_test(test_kernel_values),
	    cmocka_unit_test(test_copy),
	    cmocka_unit_test(test_bases_are_valid),
	    cmocka_unit_test(test_malformed),
	    cmocka_unit_test(test_load_errors),
	    cmocka_unit_test(test_package_hops),
	    cmocka_unit_test(test_unknown_versioned_kernel),
	    cmocka_unit_test(test_long_comment_line),
	    cmocka_unit_test(test_long_key_line),
	    cmocka_unit_test(test_first_error_reported),
	    cmocka_unit_test(test_zero_where_meaningful),
	    cmocka_unit_test(test_tag_beyond_note),
	    cmocka_unit_test(test_nearest_name),
	    cmocka_unit_test(test_machine_key_typos),
	    cmocka_unit_test(test_kernel_key_typos),
	    cmocka_unit_test(test_kernel_names_of_the_run),
	    cmocka_unit_test(test_shipped_kernel_names),
	    cmocka_unit_test(test_long_provenance_whole),
	    cmocka_unit_test(test_fitted_provenance_not_cut),
	    cmocka_unit_test(test_bases_load_in_parallel),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
