/* SPDX-License-Identifier: MIT */
/*
 * explain --locks and --c2c (mmsim c2c): one point's locks and contended
 * cache lines in the shape of the tools a kernel developer reads them in,
 * perf lock contention and perf c2c.  What they print is the simulation's
 * own accounting (sim.h, lock.h): a lock's contended acquisitions and their
 * waits over the whole run; a line's transfers in the measurement window, by
 * where each came from.
 */
#include "explain.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* "12.3 us", "1.20 ms": a duration in ps, in the unit perf would pick */
static const char *dur(double ps, char *buf, size_t cap)
{
	double ns = ps / 1000.0;

	if (ns < 1e3)
		snprintf(buf, cap, "%.0f ns", ns);
	else if (ns < 1e6)
		snprintf(buf, cap, "%.2f us", ns / 1e3);
	else if (ns < 1e9)
		snprintf(buf, cap, "%.2f ms", ns / 1e6);
	else
		snprintf(buf, cap, "%.2f s", ns / 1e9);
	return buf;
}

/* The wait-time histogram of one lock, log2 buckets of ns, the empty ends left out. */
static void print_hist(FILE *f, int csv, const struct sim_lock_stats *ls)
{
	int lo = LK_WAIT_BUCKETS, hi = -1;
	uint64_t most = 0;

	for (int k = 0; k < LK_WAIT_BUCKETS; k++)
		if (ls->wait_hist[k]) {
			lo = k < lo ? k : lo;
			hi = k;
			most = ls->wait_hist[k] > most ? ls->wait_hist[k] : most;
		}
	for (int k = lo; k <= hi; k++) {
		unsigned long long from = k ? 1ULL << k : 0, to = 2ULL << k;
		int bar = most ? (int)lround(40.0 * (double)ls->wait_hist[k] / (double)most) : 0;

		if (csv) {
			fprintf(f, "lock_wait_hist,%s,%llu,%llu,%llu\n", ls->name, from, to,
				(unsigned long long)ls->wait_hist[k]);
			continue;
		}
		fprintf(f, "    %12llu .. %-12llu %10llu |%.*s%*s|\n", from, to, (unsigned long long)ls->wait_hist[k],
			bar, "########################################", 40 - bar, "");
	}
}

void explain_locks(FILE *f, const char *format, const struct explain_ctx *x)
{
	const struct sim_result *res = x->res;
	int csv = !strcmp(format, "csv");
	char b1[32], b2[32], b3[32];

	if (csv)
		fprintf(f, "lock_contention,name,design,acquired,contended,wait_total_ns,wait_max_ns,waits_slept,"
			   "wait_asleep_ns\n");
	else
		fprintf(f,
			"\nlocks, as perf lock contention shows them (the whole run; a wait: from the lock call "
			"to the grant, of\nthe acquisitions that did not succeed at once):\n"
			"  %10s %10s %10s %10s %10s %12s  %s\n",
			"acquired", "contended", "total", "max", "avg", "slept", "name (design)");
	for (int l = 0; l < res->nlocks; l++) {
		const struct sim_lock_stats *ls = &res->locks[l];
		uint64_t acq = ls->acquires[0] + ls->acquires[1];

		if (!acq)
			continue;
		if (csv) {
			fprintf(f, "lock_contention,%s,%s,%llu,%llu,%.0f,%.0f,%llu,%.0f\n", ls->name, ls->design,
				(unsigned long long)acq, (unsigned long long)ls->contended, ls->wait_ps / 1000.0,
				ls->wait_max_ps / 1000.0, (unsigned long long)ls->waits_slept,
				ls->wait_asleep_ps / 1000.0);
			continue;
		}
		fprintf(f, "  %10llu %10llu %10s %10s %10s %11.0f%%  %s (%s)\n", (unsigned long long)acq,
			(unsigned long long)ls->contended, dur(ls->wait_ps, b1, sizeof(b1)),
			dur(ls->wait_max_ps, b2, sizeof(b2)),
			dur(ls->contended ? ls->wait_ps / (double)ls->contended : 0, b3, sizeof(b3)),
			ls->contended ? 100.0 * (double)ls->waits_slept / (double)ls->contended : 0, ls->name,
			ls->design);
	}
	for (int l = 0; l < res->nlocks; l++) {
		const struct sim_lock_stats *ls = &res->locks[l];

		if (!ls->contended)
			continue;
		if (!csv)
			fprintf(f,
				"\n  %s: wait times (ns) of its %llu contended acquisitions; %.0f%% of the waiting "
				"time asleep, the rest spinning:\n",
				ls->name, (unsigned long long)ls->contended,
				ls->wait_ps > 0 ? 100.0 * ls->wait_asleep_ps / ls->wait_ps : 0);
		print_hist(f, csv, ls);
	}
	if (res->nlocks_untracked && !csv)
		fprintf(f, "  (and %d lock(s) more, simulated but not shown: %d are)\n", res->nlocks_untracked,
			SIM_MAX_STATS);
}

/* ---- c2c ------------------------------------------------------------------ */

static int is_write(enum sc_act a)
{
	return a == SA_STORE || a == SA_ATOMIC || a == SA_CMPXCHG || a == SA_PREFETCHW || a == SA_LOCK ||
	       a == SA_TRYLOCK || a == SA_UNLOCK || a == SA_DOWNGRADE;
}

static int is_access(enum sc_act a)
{
	return a == SA_LOAD || is_write(a);
}

/* Does object @o live on line @line (the kernel profile's [layout])? */
static int on_line(const struct explain_ctx *x, int o, const char *line)
{
	return !strcmp(kernel_line_of(x->cfg->kernel, x->cfg->prog->sc->obj[o].name), line);
}

/* Per operation, object @o's visits by steps that write it (@write) or only read it. */
static double touches(const struct explain_ctx *x, int o, int write)
{
	const struct program *pr = x->cfg->prog;
	double v = 0;

	for (int pc = 0; pc < pr->n; pc++)
		if (pr->insn[pc].obj == o && is_access(pr->insn[pc].act) && is_write(pr->insn[pc].act) == write)
			v += pr->visits[pc];
	return v;
}

/* One field of a line: each step that touches it, with its calls per operation. */
static void print_field(FILE *f, int csv, const struct explain_ctx *x, const char *line, int o)
{
	const struct program *pr = x->cfg->prog;
	const struct scenario *sc = pr->sc;

	if (!csv)
		fprintf(f, "    %s %s\n", sc->obj[o].is_lock ? "lock " : "field", sc->obj[o].name);
	for (int pc = 0; pc < pr->n; pc++) {
		const struct prog_insn *in = &pr->insn[pc];

		if (in->obj != o || !is_access(in->act) || in->fn < 0 || pr->visits[pc] <= 0)
			continue;
		if (csv)
			fprintf(f, "c2c_access,%s,%s,%s,%s,%s,%.6g\n", line, sc->obj[o].name, sc->fn[in->fn],
				sc_act_name(in->act), is_write(in->act) ? "write" : "read", pr->visits[pc]);
		else
			fprintf(f, "      %-6s %-10s %10.4g per op  %s\n", is_write(in->act) ? "write" : "read",
				sc_act_name(in->act), pr->visits[pc], sc->fn[in->fn]);
	}
}

/* Two hot fields on the line, one of them written: a writer's stores take the line from the
 * other field's users, though they share no data (perf c2c's false sharing). */
static void false_sharing(FILE *f, int csv, const struct explain_ctx *x, const char *line)
{
	const struct scenario *sc = x->cfg->prog->sc;
	const double hot = 0.01; /* touched once in 100 operations */

	for (int a = 0; a < sc->nobj; a++) {
		if (!on_line(x, a, line) || touches(x, a, 1) < hot)
			continue;
		for (int b = 0; b < sc->nobj; b++) {
			if (b == a || !on_line(x, b, line) || touches(x, b, 0) + touches(x, b, 1) < hot)
				continue;
			if (csv)
				fprintf(f, "c2c_false_sharing,%s,%s,%s,,,\n", line, sc->obj[a].name, sc->obj[b].name);
			else
				fprintf(f,
					"    false sharing: %s, written %.4g times per op, shares the line with %s, "
					"touched %.4g times per op\n",
					sc->obj[a].name, touches(x, a, 1), sc->obj[b].name,
					touches(x, b, 0) + touches(x, b, 1));
		}
	}
}

static double line_transfers(const struct sim_line_stats *ls)
{
	double t = 0;

	for (int k = 0; k < COH_NSOURCES; k++)
		t += (double)ls->xfer[k];
	return t;
}

static const char *source_name(int k)
{
	return k == COH_FROM_MEMORY ? "memory" : k == COH_FROM_REMOTE_MEMORY ? "remote-mem" : topo_dist_name(k);
}

void explain_c2c(FILE *f, const char *format, const struct explain_ctx *x)
{
	const struct sim_result *res = x->res;
	const struct scenario *sc = x->cfg->prog->sc;
	int csv = !strcmp(format, "csv"), order[SIM_MAX_STATS], n = 0;
	double ops = res->ops_per_s * res->window_s, win = res->window_s;

	/* the lines that moved, most transfers first (insertion: at most SIM_MAX_STATS) */
	for (int l = 0; l < res->nlines; l++) {
		double t = line_transfers(&res->lines[l]);
		int j = n++;

		if (t <= 0) {
			n--;
			continue;
		}
		for (; j > 0 && line_transfers(&res->lines[order[j - 1]]) < t; j--)
			order[j] = order[j - 1];
		order[j] = l;
	}
	if (csv) {
		fprintf(f, "c2c_line,name,transfers_per_op,transfers_per_s");
		for (int k = 0; k < COH_NSOURCES; k++)
			if (k != TOPO_SELF)
				fprintf(f, ",%s_per_op", source_name(k));
		fprintf(f, "\n");
	} else {
		fprintf(f,
			"\ncache lines, as perf c2c shows them (%s on %s, %d tasks; transfers in the window, by where "
			"the line came from):\n",
			x->label, x->machine, x->cfg->ntasks);
	}
	for (int i = 0; i < n; i++) {
		const struct sim_line_stats *ls = &res->lines[order[i]];
		double t = line_transfers(ls);
		int nfields = 0;

		if (csv) {
			fprintf(f, "c2c_line,%s,%.6g,%.6g", ls->name, ops > 0 ? t / ops : 0, win > 0 ? t / win : 0);
			for (int k = 0; k < COH_NSOURCES; k++)
				if (k != TOPO_SELF)
					fprintf(f, ",%.6g", ops > 0 ? (double)ls->xfer[k] / ops : 0);
			fprintf(f, "\n");
		} else {
			fprintf(f, "\n  line %s: %.4g transfers per op, %.0f per second; per op from", ls->name,
				ops > 0 ? t / ops : 0, win > 0 ? t / win : 0);
			for (int k = 0; k < COH_NSOURCES; k++)
				if (k != TOPO_SELF && ls->xfer[k])
					fprintf(f, " %s %.3g", source_name(k), ops > 0 ? (double)ls->xfer[k] / ops : 0);
			fprintf(f, "\n");
		}
		for (int o = 0; o < sc->nobj; o++)
			if (on_line(x, o, ls->name)) {
				print_field(f, csv, x, ls->name, o);
				nfields++;
			}
		if (!nfields && !csv)
			fprintf(
			    f,
			    "    (a lock's own line: its per-CPU counters or its word, as its design lays it out)\n");
		false_sharing(f, csv, x, ls->name);
	}
	if (!n && !csv)
		fprintf(f, "  no line moved between CPUs in the window\n");
	if (res->nlines_untracked && !csv)
		fprintf(f, "  (and %d line(s) more, simulated but not shown: %d are)\n", res->nlines_untracked,
			SIM_MAX_STATS);
}
