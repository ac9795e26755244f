/* SPDX-License-Identifier: MIT */
#include "explain.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* What a step is charged to in the "by lock and line" view. */
static void step_object(const struct explain_ctx *x, const struct prog_insn *in, char *buf, size_t cap)
{
	const struct scenario *sc = x->cfg->prog->sc;

	switch (in->act) {
	case SA_COMPUTE:
		snprintf(buf, cap, "(work)");
		return;
	case SA_MEMORY:
		snprintf(buf, cap, "(memory bandwidth)");
		return;
	case SA_IPI:
		snprintf(buf, cap, "(TLB shootdown IPIs)");
		return;
	case SA_MISS:
		snprintf(buf, cap, "(cache misses to DRAM)");
		return;
	default:
		break;
	}
	if (in->obj < 0) {
		snprintf(buf, cap, "(control)");
		return;
	}
	if (sc->obj[in->obj].is_lock)
		snprintf(buf, cap, "lock %s", sc->obj[in->obj].name);
	else
		snprintf(buf, cap, "line %s", kernel_line_of(x->cfg->kernel, sc->obj[in->obj].name));
}

static int has_miss(const struct program *pr)
{
	for (int pc = 0; pc < pr->n; pc++)
		if (pr->insn[pc].act == SA_MISS)
			return 1;
	return 0;
}

static const char *llc_text(const struct hw_profile *hw, char *buf, size_t cap)
{
	if (hw->llc_bytes > 0)
		snprintf(buf, cap, "last-level cache %.3g MiB per L3 domain", hw->llc_bytes / 1048576.0);
	else
		snprintf(buf, cap, "the machine profile gives no [cache] llc_mib");
	return buf;
}

/* "placement spread (...): tasks per package 3 1, 0 cores with two or more", for the header;
 * NULL for will-it-scale's pinning (the default, left unsaid). */
static const char *placement_text(const struct sim_config *cfg, char *buf, size_t cap)
{
	const struct topology *t = cfg->topo;
	int *cpu, *per, shared = 0;
	size_t n;

	if (cfg->prog->placement == TOPO_PLACE_WIS)
		return NULL;
	snprintf(buf, cap, "placement %s (unpinned, where the scheduler's balancing leaves them)",
		 topo_placement_name(cfg->prog->placement));
	cpu = calloc((size_t)cfg->ntasks + 1, sizeof(int));
	per = calloc((size_t)t->ncores + 1, sizeof(int));
	if (cpu && per && !topo_place_policy(t, cfg->prog->placement, cfg->ntasks, cpu, NULL)) {
		for (int i = 0; i < cfg->ntasks; i++)
			shared += per[t->cpu[cpu[i]].core]++ == 1;
		n = strlen(buf);
		snprintf(buf + n, cap - n, ": tasks per package");
		for (int p = 0; p < t->npackages; p++) {
			int k = 0;

			for (int i = 0; i < cfg->ntasks; i++)
				k += t->cpu[cpu[i]].package == p;
			n = strlen(buf);
			snprintf(buf + n, cap - n, " %d", k);
		}
		n = strlen(buf);
		snprintf(buf + n, cap - n, ", %d core%s with two or more", shared, shared == 1 ? "" : "s");
	}
	free(cpu);
	free(per);
	return buf;
}

struct row {
	char name[160];
	double on_ps, off_ps, calls;
};

static int add_row(struct row *rows, int *n, const char *name)
{
	for (int i = 0; i < *n; i++)
		if (!strcmp(rows[i].name, name))
			return i;
	memset(&rows[*n], 0, sizeof(rows[*n]));
	snprintf(rows[*n].name, sizeof(rows[*n].name), "%s", name);
	return (*n)++;
}

static int by_time(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	double tx = x->on_ps + x->off_ps, ty = y->on_ps + y->off_ps;

	return tx < ty ? 1 : tx > ty ? -1 : strcmp(x->name, y->name);
}

static void print_rows(FILE *f, int csv, const char *view, struct row *rows, int n, double on_total, double all_total,
		       double ops)
{
	qsort(rows, n, sizeof(*rows), by_time);
	if (!csv)
		fprintf(f, "  %8s %8s %10s %10s  %s\n", "on-CPU%", "off-CPU%", "ns/op", "calls/op",
			strcmp(view, "function") ? "lock or line" : "kernel function");
	for (int i = 0; i < n; i++) {
		double on = on_total > 0 ? 100.0 * rows[i].on_ps / on_total : 0;
		double off = all_total > 0 ? 100.0 * rows[i].off_ps / all_total : 0;
		double ns = ops > 0 ? (rows[i].on_ps + rows[i].off_ps) / ops / 1000.0 : 0;

		if (on < 0.005 && off < 0.005 && !csv)
			continue;
		if (csv)
			fprintf(f, "%s,%s,%.3f,%.3f,%.4g,%.6g\n", view, rows[i].name, on, off, ns, rows[i].calls);
		else
			fprintf(f, "  %8.2f %8.2f %10.1f %10.4g  %s\n", on, off, ns, rows[i].calls, rows[i].name);
	}
}

double explain_rate(const struct sim_config *cfg, const struct sim_result *res)
{
	if (cfg->ops_per_task > 0)
		return res->makespan_s > 0 ? 1.0 / res->makespan_s : 0;
	return res->ops_per_s;
}

/* The share of all task-time asleep in the steps on lock @name. */
static double asleep_on(const struct explain_ctx *x, const char *name)
{
	const struct program *pr = x->cfg->prog;
	double off = 0, all = 0;

	for (int pc = 0; pc < pr->n; pc++) {
		const struct prog_insn *in = &pr->insn[pc];
		const struct sim_step_stats *st = &x->steps[pc];

		if (in->fn < 0)
			continue;
		all += st->task_ps;
		if (in->obj >= 0 && pr->sc->obj[in->obj].is_lock && !strcmp(pr->sc->obj[in->obj].name, name))
			off += st->task_ps - sim_step_on_ps(st);
	}
	return all > 0 ? off / all : 0;
}

static void add_cand(struct explain_cand *c, int *n, enum sim_relief_kind kind, const char *name, double score,
		     const char *what, const char *saw)
{
	if (score <= 0)
		return;
	memset(&c[*n], 0, sizeof(c[*n]));
	c[*n].relief.kind = kind;
	c[*n].relief.factor = EXPLAIN_RELIEF;
	snprintf(c[*n].relief.name, sizeof(c[*n].relief.name), "%s", name);
	snprintf(c[*n].what, sizeof(c[*n].what), "%s", what);
	snprintf(c[*n].saw, sizeof(c[*n].saw), "%s", saw);
	c[*n].score = score;
	(*n)++;
}

static int by_score(const void *a, const void *b)
{
	const struct explain_cand *x = a, *y = b;

	return x->score < y->score ? 1 : x->score > y->score ? -1 : strcmp(x->what, y->what);
}

int explain_candidates(const struct explain_ctx *x, struct explain_cand *out, int max)
{
	const struct sim_result *res = x->res;
	double win_ps = res->window_s * 1e12;
	struct explain_cand c[3 * SIM_MAX_STATS];
	char what[160], saw[160];
	int n = 0;

	for (int l = 0; l < res->nlocks; l++) {
		const struct sim_lock_stats *ls = &res->locks[l];
		double util = win_ps > 0 ? ls->max_held_ps / win_ps : 0, asleep = asleep_on(x, ls->name);
		uint64_t acq = ls->acquires[0] + ls->acquires[1];

		if (!acq)
			continue;
		snprintf(what, sizeof(what), "lock %s: its exclusive holders' time", ls->name);
		snprintf(saw, sizeof(saw), "held exclusively %.0f%%, waiters asleep %.0f%% of task-time", 100 * util,
			 100 * asleep);
		add_cand(c, &n, SIM_RELIEVE_HOLD, ls->name, util > asleep ? util : asleep, what, saw);
		if (ls->acquires[1]) {
			snprintf(what, sizeof(what), "lock %s: its readers' time", ls->name);
			snprintf(saw, sizeof(saw), "%.0f%% of acquisitions waited, waiters asleep %.0f%% of task-time",
				 100.0 * (double)ls->contended / (double)acq, 100 * asleep);
			add_cand(c, &n, SIM_RELIEVE_READ, ls->name, asleep, what, saw);
		}
		if (ls->sleeps) {
			snprintf(what, sizeof(what), "lock %s: its sleepers' wake-ups", ls->name);
			snprintf(saw, sizeof(saw), "waiters asleep %.0f%% of task-time, %llu sleeps", 100 * asleep,
				 (unsigned long long)ls->sleeps);
			add_cand(c, &n, SIM_RELIEVE_WAKE, ls->name, asleep, what, saw);
		}
	}
	for (int l = 0; l < res->nlines; l++) {
		const struct sim_line_stats *ls = &res->lines[l];
		double util = win_ps > 0 ? ls->window_busy_ns * 1000.0 / win_ps : 0;

		if (!ls->transfers || util < 0.0005)
			continue;
		snprintf(what, sizeof(what), "cache line %s: its transfers", ls->name);
		snprintf(saw, sizeof(saw), "in transfer %.0f%% of the time", 100 * util);
		add_cand(c, &n, SIM_RELIEVE_LINE, ls->name, util, what, saw);
	}
	qsort(c, n, sizeof(*c), by_score);
	if (n > max)
		n = max;
	memcpy(out, c, (size_t)n * sizeof(*c));
	return n;
}

/* The verified limiter: the candidate whose relief moved throughput most, if that clears the
 * noise (twice a second seed's move, and 1%); its index or -1. */
static int verified(const struct explain_ctx *x)
{
	int best = -1;

	for (int i = 0; i < x->ncand; i++)
		if (best < 0 || x->cand[i].gain > x->cand[best].gain)
			best = i;
	if (best >= 0 && (x->cand[best].gain < 0.01 || x->cand[best].gain < 2 * x->noise))
		return -1;
	return best;
}

/* The KIND of --relieve KIND:NAME */
static const char *relief_kind(enum sim_relief_kind k)
{
	return k == SIM_RELIEVE_LINE   ? "line"
	       : k == SIM_RELIEVE_HOLD ? "hold"
	       : k == SIM_RELIEVE_READ ? "read"
				       : "wake";
}

static void print_verify(FILE *f, int csv, const struct explain_ctx *x, const char *busiest)
{
	int best = verified(x);

	if (csv) { /* view,what,gain %,share %,--relieve argument */
		for (int i = 0; i < x->ncand; i++)
			fprintf(f, "relief,%s,%.3f,%.3f,%s:%s,\n", x->cand[i].what, 100 * x->cand[i].gain,
				100 * x->cand[i].score, relief_kind(x->cand[i].relief.kind), x->cand[i].relief.name);
		fprintf(f, "noise,second seed,%.3f,,,\n", 100 * x->noise);
		if (best >= 0)
			fprintf(f, "limiter,%s,%.3f,,%s:%s,\n", x->cand[best].what, 100 * x->cand[best].gain,
				relief_kind(x->cand[best].relief.kind), x->cand[best].relief.name);
		else
			fprintf(f, "limiter,(none proven),0,,,\n");
		return;
	}
	fprintf(f,
		"\nverify: each candidate relieved in a side run (its cost x%.2g, the same seed); a second seed "
		"moves throughput by %.2f%%:\n",
		EXPLAIN_RELIEF, 100 * x->noise);
	fprintf(f, "  %9s  %-48s %s\n", "throughput", "relieved (--relieve)", "what explain saw");
	for (int i = 0; i < x->ncand; i++) {
		char spec[2 * SC_NAME];

		snprintf(spec, sizeof(spec), "%s:%s", relief_kind(x->cand[i].relief.kind), x->cand[i].relief.name);
		fprintf(f, "  %+8.2f%%  %-48s %s\n", 100 * x->cand[i].gain, spec, x->cand[i].saw);
	}
	if (best >= 0)
		fprintf(f, "\nlimiter: %s (relieved x%.2g: throughput %+.1f%%)\n", x->cand[best].what, EXPLAIN_RELIEF,
			100 * x->cand[best].gain);
	else
		fprintf(f,
			"\nlimiter: none proven: no candidate's relief moves throughput by 1%% and twice the "
			"noise; the tasks' own work sets the pace%s%s%s\n",
			busiest[0] ? " (busiest: " : "", busiest, busiest[0] ? ")" : "");
	/* candidates are in the busy shares' order: the first is what they point at */
	if (best > 0 && strcmp(x->cand[0].relief.name, x->cand[best].relief.name))
		fprintf(f, "  (not the busiest, %s: %s; relieved, %+.1f%%)\n", x->cand[0].what, x->cand[0].saw,
			100 * x->cand[0].gain);
}

void explain_print(FILE *f, const char *format, const struct explain_ctx *x)
{
	const struct program *pr = x->cfg->prog;
	const struct scenario *sc = pr->sc;
	const struct sim_result *res = x->res;
	const struct hw_profile *hw = x->cfg->hw;
	int csv = !strcmp(format, "csv"), n = pr->n, nf = 0, no = 0;
	struct row *fn = calloc(n + 1, sizeof(*fn)), *ob = calloc(n + 1, sizeof(*ob));
	double on_total = 0, all_total = 0, win_ps = res->window_s * 1e12;
	/* task-time of one operation: the window's task-time over the operations in it */
	double ops = res->ops_per_s * res->window_s;
	struct {
		char what[160];
		double util;
	} lim = {"", 0};
	char buf[160], pbuf[512];
	/* calls per operation of the run's average task: with roles, its own mix of them */
	const double *visits = pr->visits;
	double *mix = pr->nrole ? calloc(n + 1, sizeof(double)) : NULL;
	int count[SC_MAX_ROLES + 1];

	if (!fn || !ob || (pr->nrole && !mix)) {
		free(fn);
		free(ob);
		free(mix);
		fprintf(stderr, "mmsim: out of memory\n");
		return;
	}
	if (mix && !scenario_assign_roles(sc, x->cfg->ntasks, NULL, count, NULL)) {
		program_mix_visits(pr, count, mix);
		visits = mix;
	}
	for (int pc = 0; pc < n; pc++) {
		const struct prog_insn *in = &pr->insn[pc];
		const struct sim_step_stats *st = &x->steps[pc];
		double on = sim_step_on_ps(st), off = st->task_ps - on;
		int i;

		if (in->fn < 0)
			continue;
		i = add_row(fn, &nf, sc->fn[in->fn]);
		fn[i].on_ps += on;
		fn[i].off_ps += off;
		fn[i].calls += visits[pc];
		step_object(x, in, buf, sizeof(buf));
		i = add_row(ob, &no, buf);
		ob[i].on_ps += on;
		ob[i].off_ps += off;
		ob[i].calls += visits[pc];
		on_total += on;
		all_total += st->task_ps;
	}

	if (csv) {
		fprintf(f, "# mmsim explain: %s on %s (%s), %d tasks, %s, %.6g ops/s\n", x->label, x->machine,
			x->cfg->kernel->name, x->cfg->ntasks, x->cfg->mode == SC_THREADS ? "threads" : "processes",
			res->ops_per_s);
		if (placement_text(x->cfg, pbuf, sizeof(pbuf)))
			fprintf(f, "# %s\n", pbuf);
		if (has_miss(pr))
			fprintf(f, "# cold lines: %.1f%% of the 'miss' steps' accesses go to DRAM\n",
				100.0 * res->cold_max);
		fprintf(f, "view,name,on_cpu_pct,off_cpu_pct,ns_per_op,calls_per_op\n");
	} else {
		fprintf(f, "explain: %s on %s (kernel %s), %d tasks, %s\n", x->label, x->machine, x->cfg->kernel->name,
			x->cfg->ntasks, x->cfg->mode == SC_THREADS ? "threads" : "processes");
		if (placement_text(x->cfg, pbuf, sizeof(pbuf)))
			fprintf(f, "  %s\n", pbuf);
		if (x->cfg->ops_per_task > 0)
			fprintf(f, "  makespan %.6g s for %lld operations per task\n", res->makespan_s,
				(long long)x->cfg->ops_per_task);
		else
			fprintf(f, "  %.0f ops/s (%.0f per task); window %.3g ms of simulated time\n", res->ops_per_s,
				res->ops_per_s_task, res->window_s * 1e3);
		for (int r = 0; r < res->nroles; r++)
			fprintf(f, "  role %-20s %4d tasks, %.0f ops/s (%.0f per task)\n", res->roles[r].name,
				res->roles[r].ntasks, res->roles[r].ops_per_s, res->roles[r].ops_per_s_task);
		fprintf(f, "  task-time: %.1f%% on a CPU (as perf sees it), %.1f%% asleep (off-CPU)\n",
			all_total > 0 ? 100.0 * on_total / all_total : 0,
			all_total > 0 ? 100.0 * (all_total - on_total) / all_total : 0);
		if (has_miss(pr))
			fprintf(f,
				"  cold lines: %.0f%% of the 'miss' steps' accesses go to DRAM (footprint %.3g MiB per "
				"task; %s)\n",
				100.0 * res->cold_max, pr->footprint / 1048576.0, llc_text(hw, buf, sizeof(buf)));
		fprintf(f, "\nby kernel function (on-CPU%%: share of on-CPU time, perf's 'self'; off-CPU%%: share "
			   "of all task-time asleep in it):\n");
	}
	print_rows(f, csv, "function", fn, nf, on_total, all_total, ops);
	if (!csv)
		fprintf(f, "\nby lock and cache line (a step is charged to what it touches):\n");
	print_rows(f, csv, "object", ob, no, on_total, all_total, ops);

	/* what each shared resource was doing */
	if (!csv)
		fprintf(f, "\nshared resources, the busiest instance of each (held, moving, bandwidth: in the window;\n"
			   "sleeps, waits, wake-ups: the whole run):\n");
	for (int l = 0; l < res->nlocks; l++) {
		const struct sim_lock_stats *ls = &res->locks[l];
		double util = win_ps > 0 ? ls->max_held_ps / win_ps : 0;
		uint64_t acq = ls->acquires[0] + ls->acquires[1];
		double cont = acq ? 100.0 * (double)ls->contended / (double)acq : 0;

		if (!acq)
			continue;
		if (csv)
			fprintf(f, "lock,%s,%.3f,%.3f,%llu,%llu\n", ls->name, 100 * util, cont,
				(unsigned long long)ls->sleeps, (unsigned long long)ls->ninst);
		else if (ls->fallbacks)
			fprintf(f,
				"  lock %-22s %-9s held exclusively %5.1f%% of the time; %5.1f%% of acquisitions "
				"waited; %llu sleeps; %.3g%% of read attempts found it write-locked and fell back\n",
				ls->name, ls->design, 100 * util, cont, (unsigned long long)ls->sleeps,
				100.0 * (double)ls->fallbacks / (double)(ls->acquires[1] + ls->fallbacks));
		else
			fprintf(f,
				"  lock %-22s %-9s held exclusively %5.1f%% of the time; %5.1f%% of acquisitions "
				"waited; %llu sleeps\n",
				ls->name, ls->design, 100 * util, cont, (unsigned long long)ls->sleeps);
		if (util > lim.util) {
			lim.util = util;
			snprintf(lim.what, sizeof(lim.what), "lock %s (held %.0f%% of the time)", ls->name, 100 * util);
		}
		if (ls->read_batches) {
			/* the reader batches of rwsem_mark_wake: how many readers run together after a writer */
			double per = (double)ls->read_wakeups / (double)ls->read_batches;

			if (csv)
				fprintf(f, "readers_woken,%s,%.4g,%llu,,\n", ls->name, per,
					(unsigned long long)ls->read_batches);
			else
				fprintf(f, "  %-27s %-9s readers woken %.3g at a time (%llu wake-ups of readers)\n", "",
					"", per, (unsigned long long)ls->read_batches);
		}
		/* a sleeping lock can limit while seldom held exclusively: readers and writers taking
		 * turns (a convoy) leave the tasks asleep instead */
		snprintf(buf, sizeof(buf), "lock %s", ls->name);
		for (int i = 0; i < no; i++) {
			double asleep = all_total > 0 ? ob[i].off_ps / all_total : 0;

			if (strcmp(ob[i].name, buf) || asleep <= lim.util)
				continue;
			lim.util = asleep;
			snprintf(lim.what, sizeof(lim.what),
				 "lock %s (tasks asleep waiting for it %.0f%% of their time)", ls->name, 100 * asleep);
		}
	}
	for (int l = 0; l < res->nlines; l++) {
		const struct sim_line_stats *ls = &res->lines[l];
		double util = win_ps > 0 ? ls->window_busy_ns * 1000.0 / win_ps : 0;

		if (!ls->transfers || util < 0.0005)
			continue;
		if (csv)
			fprintf(f, "line,%s,%.3f,,,\n", ls->name, 100 * util);
		else
			fprintf(f, "  line %-22s moving between CPUs %5.1f%% of the time\n", ls->name, 100 * util);
		if (util > lim.util) {
			lim.util = util;
			snprintf(lim.what, sizeof(lim.what), "cache line %s (in transfer %.0f%% of the time)", ls->name,
				 100 * util);
		}
	}
	if (res->nlocks_untracked || res->nlines_untracked) {
		if (csv)
			fprintf(f, "untracked,locks,%d,lines,%d,\n", res->nlocks_untracked, res->nlines_untracked);
		else
			fprintf(f, "  (and %d lock(s) and %d line(s) more, simulated but not shown: %d of each are)\n",
				res->nlocks_untracked, res->nlines_untracked, SIM_MAX_STATS);
	}
	for (int nd = 0; nd < res->nnodes; nd++) {
		double util = res->bw_gbs[nd] / hw->bw_node_gbs;

		if (res->bw_gbs[nd] <= 0)
			continue;
		if (csv)
			fprintf(f, "bandwidth,node%d,%.3f,%.4g,,\n", nd, 100 * util, res->bw_gbs[nd]);
		else
			fprintf(f, "  memory bandwidth of node %d   %6.1f GB/s of %.1f (%.0f%%)\n", nd, res->bw_gbs[nd],
				hw->bw_node_gbs, 100 * util);
		if (util > lim.util) {
			lim.util = util;
			snprintf(lim.what, sizeof(lim.what), "memory bandwidth of node %d (%.0f%% used)", nd,
				 100 * util);
		}
	}
	if (res->nnodes < res->nnodes_all) {
		if (csv)
			fprintf(f, "untracked,nodes,%d,,,\n", res->nnodes_all - res->nnodes);
		else
			fprintf(f,
				"  (and %d NUMA node(s) more, whose memory bandwidth is not shown: the first %d are)\n",
				res->nnodes_all - res->nnodes, res->nnodes);
	}
	if (res->ipis && !csv)
		fprintf(f, "  TLB-shootdown IPIs received: %.3g per operation\n", ops > 0 ? res->ipis / ops : 0);
	if (x->ncand) {
		print_verify(f, csv, x, lim.what);
	} else if (!csv) {
		if (lim.util >= 0.5)
			fprintf(f, "\nlimiter: %s\n", lim.what);
		else
			fprintf(f,
				"\nlimiter: no shared resource is busy half the time; the tasks' own work sets the "
				"pace%s%s\n",
				lim.what[0] ? " (busiest: " : "", lim.what[0] ? lim.what : "");
		if (lim.what[0] && lim.util >= 0.5)
			fprintf(f, "\n");
	} else {
		fprintf(f, "limiter,%s,%.3f,,,\n", lim.what, 100 * lim.util);
	}
	free(fn);
	free(ob);
	free(mix);
}
