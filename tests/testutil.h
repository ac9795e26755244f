/* SPDX-License-Identifier: MIT */
/* Small machines, kernels and scenarios built from strings, for the model's tests. */
#ifndef MMSIM_TESTUTIL_H
#define MMSIM_TESTUTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "machine.h"
#include "profile.h"
#include "scenario.h"
#include "sim.h"

struct tworld {
	struct profile hwp, kp;
	struct hw_profile hw;
	struct kernel_profile k;
	struct topology topo;
	struct scenario sc;
	struct program prog;
	struct mm_error err;
};

/* A hardware profile with the given latencies (ns) per distance class. */
static inline void t_hw_text(char *buf, size_t cap, double self, double smt, double l3, double pkg, double remote,
			     double atomic, const char *arb, int batch, double jitter)
{
	snprintf(buf, cap,
		 "[machine]\nname = t\ndescription = test\ntopology = x\n"
		 "[latency]\nself = %g\nsmt = %g\nl3 = %g\npackage = %g\nremote = %g\n"
		 "memory_local = %g\nmemory_remote = %g\natomic = %g\n"
		 "[coherence]\narbitration = %s\nbatch_limit = %d\nhome_snoop = 0\n"
		 "[bandwidth]\nnode_gbs = 100\ntask_gbs = 10\n[frequency]\n1 = 1.0\n"
		 "[cpu]\nsmt_factor = 1\npause_ns = 0\nwakeup_ns = 1000\njitter = %g\n",
		 self, smt, l3, pkg, remote, remote, remote, atomic, arb, batch, jitter);
}

/* Add [coherence] serve_ns to a t_hw_text profile. */
static inline void t_hw_serve(char *buf, size_t cap, double serve_ns)
{
	static const char after[] = "home_snoop = 0\n";
	char *at = strstr(buf, after), line[64];
	int n = snprintf(line, sizeof(line), "serve_ns = %g\n", serve_ns);

	assert_non_null(at);
	at += sizeof(after) - 1;
	assert_true(strlen(buf) + (size_t)n < cap);
	memmove(at + n, at, strlen(at) + 1);
	memcpy(at, line, (size_t)n);
}

static inline void t_kernel_text(char *buf, size_t cap, const char *spinlock, const char *era)
{
	snprintf(buf, cap,
		 "[kernel]\nname = ktest\nversion = 9.9\nspinlock = %s\nrwsem_era = %s\nvma_lock = vma_lock\n"
		 "[batch]\nb2 = 2\n[costs]\nwork = 1000\n",
		 spinlock, era);
}

/* Build everything; the scenario's variant 0 is compiled. */
static inline void t_world(struct tworld *w, const char *topo, const char *hwtext, const char *ktext,
			   const char *scenario)
{
	memset(w, 0, sizeof(*w));
	assert_int_equal(profile_parse(&w->hwp, "test-hw", hwtext, &w->err), 0);
	assert_int_equal(hw_profile_derive(&w->hw, &w->hwp, &w->err), 0);
	assert_int_equal(profile_parse(&w->kp, "test-kernel", ktext, &w->err), 0);
	/* t_kernel_text's [batch] and [costs] serve many scenarios: keep those this one names (a
	 * profile key no scenario names is refused as a typo) */
	for (int i = 0; i < w->kp.nentries; i++) {
		const struct prof_entry *e = &w->kp.e[i];

		if ((!strcmp(e->section, "batch") || !strcmp(e->section, "costs")) && !strstr(scenario, e->key)) {
			memmove(&w->kp.e[i], &w->kp.e[i + 1], (size_t)(w->kp.nentries - i - 1) * sizeof(*e));
			w->kp.nentries--;
			i--;
		}
	}
	assert_int_equal(kernel_profile_derive(&w->k, &w->kp, &w->err), 0);
	assert_int_equal(topo_load_synthetic(&w->topo, topo, &w->err), 0);
	if (scenario_parse(&w->sc, "test.scn", scenario, &w->err))
		fail_msg("%s", w->err.msg);
	if (scenario_compile(&w->sc, 0, &w->k, &w->prog, &w->err))
		fail_msg("%s", w->err.msg);
}

static inline void t_world_free(struct tworld *w)
{
	program_free(&w->prog);
	scenario_free(&w->sc);
	topo_free(&w->topo);
	profile_free(&w->kp);
	profile_free(&w->hwp);
}

static inline struct sim_config t_cfg(const struct tworld *w, int ntasks)
{
	struct sim_config c = {.topo = &w->topo,
			       .hw = &w->hw,
			       .kernel = &w->k,
			       .prog = &w->prog,
			       .mode = SC_THREADS,
			       .ntasks = ntasks,
			       .seed = 7};
	return c;
}

static inline void t_run(const struct sim_config *cfg, struct sim_result *r)
{
	struct mm_error err;

	if (sim_run(cfg, r, &err))
		fail_msg("sim_run: %s", err.msg);
}

#endif
