/* SPDX-License-Identifier: MIT */
/*
 * mmsim-measure: measure this machine and write a hardware-profile fragment
 * (the format of data/machines/NAME.conf) and, optionally, a CSV of every figure.
 * See calibrate/README.md.
 */
#include "measure.h"
#include "profile.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#define PROG "mmsim-measure"

/* ---- options: one table, which also prints --help ------------------------------ */

struct opts {
	int quick;
	const char *out, *raw;
	const char *name;
};

enum opt_id { OPT_QUICK, OPT_OUT, OPT_RAW, OPT_NAME, OPT_TOPONAME, OPT_HELP };

static const struct opt {
	const char *name;
	const char *arg; /* NULL: a flag */
	const char *help;
	const char *def;
} opt_table[] = {
    [OPT_QUICK] = {"--quick", NULL, "short run for tests (under 10 s): fewer samples, smaller buffers", "off"},
    [OPT_OUT] = {"--out", "FILE", "write the profile to FILE (through a temporary file and a rename)", "stdout"},
    [OPT_RAW] = {"--raw", "FILE",
		 "also write every figure as CSV: quantity,value,unit,median,min,p90,outliers,samples,method", "none"},
    [OPT_NAME] = {"--name", "NAME", "[machine] name of the profile (letters, digits, '-', '_', '.')", "calibrated"},
    [OPT_TOPONAME] = {"--topology-name", "NAME", "the same as --name", ""},
    [OPT_HELP] = {"--help", NULL, "print this help", ""},
};

#define NOPTS (int)(sizeof(opt_table) / sizeof(opt_table[0]))

static void usage(FILE *f)
{
	fprintf(f,
		"usage: " PROG " [--quick] [--out FILE] [--raw FILE] [--name NAME]\n\n"
		"Measures this machine (cache-line transfers per distance class, atomics, a herd of readers,\n"
		"a contended line's second access, page faults, zeroing, memory latency and bandwidth, syscalls,\n"
		"futex wake-ups, a TLB shootdown's IPI, frequency, munmap per page, the faults and munmap of a\n"
		"file in large folios in $TMPDIR or /tmp, a memfd's write faults and hole punch) and prints a\n"
		"hardware profile for mmsim --machine FILE.  About a minute on a small machine; --quick: seconds.\n\n");
	for (int i = 0; i < NOPTS; i++) {
		char left[40];

		snprintf(left, sizeof(left), "%s%s%s", opt_table[i].name, opt_table[i].arg ? " " : "",
			 opt_table[i].arg ? opt_table[i].arg : "");
		fprintf(f, "  %-22s %s", left, opt_table[i].help);
		if (opt_table[i].def[0])
			fprintf(f, " (default: %s)", opt_table[i].def);
		fprintf(f, "\n");
	}
}

static int die_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int die_usage(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, PROG ": ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see " PROG " --help)\n");
	return 2;
}

static int valid_name(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > 63)
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '-' && *s != '_' && *s != '.')
			return 0;
	return 1;
}

/* 0, 1 for --help, or an exit status (2) after printing the error */
static int parse_args(int argc, char **argv, struct opts *o)
{
	memset(o, 0, sizeof(*o));
	o->name = "calibrated";
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *val = NULL, *eq = strchr(a, '=');
		size_t len = eq ? (size_t)(eq - a) : strlen(a);
		int k;

		for (k = 0; k < NOPTS; k++)
			if (strlen(opt_table[k].name) == len && !strncmp(opt_table[k].name, a, len))
				break;
		if (k == NOPTS)
			return a[0] == '-' ? die_usage("unknown option '%s'", a)
					   : die_usage("unexpected argument '%s' (" PROG " takes only options)", a);
		if (opt_table[k].arg) {
			if (eq)
				val = eq + 1;
			else if (i + 1 < argc)
				val = argv[++i];
			else
				return die_usage("%s needs a value: %s %s", opt_table[k].name, opt_table[k].name,
						 opt_table[k].arg);
			if (!val[0])
				return die_usage("%s: empty value", opt_table[k].name);
		} else if (eq) {
			return die_usage("%s takes no value", opt_table[k].name);
		}
		switch ((enum opt_id)k) {
		case OPT_QUICK:
			o->quick = 1;
			break;
		case OPT_OUT:
			o->out = val;
			break;
		case OPT_RAW:
			o->raw = val;
			break;
		case OPT_NAME:
		case OPT_TOPONAME:
			if (!valid_name(val))
				return die_usage("%s '%s': expected 1 to 63 letters, digits, '-', '_' or '.'",
						 opt_table[k].name, val);
			o->name = val;
			break;
		case OPT_HELP:
			usage(stdout);
			return 1;
		}
	}
	if (o->out && o->raw && !strcmp(o->out, o->raw))
		return die_usage("--out and --raw name the same file '%s'", o->out);
	return 0;
}

/* ---- output files: written in full to a temporary file, then renamed ------------ */

struct out_file {
	const char *path;
	char tmp[4096];
	int fd;
};

/* temporary files to remove if a signal ends the run (unlink is async-signal-safe) */
static const char *volatile cleanup_tmp[2];

static void on_signal(int sig)
{
	static const char stuck[] = PROG ": the run took too long (a thread that never ran?); stopped\n";

	if (sig == SIGALRM) {
		ssize_t ignored = write(2, stuck, sizeof(stuck) - 1);

		(void)ignored;
	}
	for (int i = 0; i < 2; i++)
		if (cleanup_tmp[i])
			unlink(cleanup_tmp[i]);
	signal(sig, SIG_DFL);
	raise(sig);
}

static int out_open(struct out_file *f, const char *path, int slot)
{
	mode_t mask = umask(0);

	umask(mask);
	f->path = path;
	f->fd = -1;
	if (snprintf(f->tmp, sizeof(f->tmp), "%s.tmp.XXXXXX", path) >= (int)sizeof(f->tmp))
		return -ENAMETOOLONG;
	f->fd = mkstemp(f->tmp);
	if (f->fd < 0)
		return -errno;
	fchmod(f->fd, 0666 & ~mask);
	cleanup_tmp[slot] = f->tmp;
	return 0;
}

static void out_abort(struct out_file *f, int slot)
{
	if (f->fd >= 0) {
		close(f->fd);
		unlink(f->tmp);
		f->fd = -1;
	}
	cleanup_tmp[slot] = NULL;
}

static int out_commit(struct out_file *f, int slot, const char *text, size_t len)
{
	int rc = 0;

	while (len && !rc) {
		ssize_t n = write(f->fd, text, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			rc = n < 0 ? -errno : -EIO;
		else
			text += n, len -= (size_t)n;
	}
	if (!rc && fsync(f->fd))
		rc = -errno;
	if (close(f->fd) && !rc)
		rc = -errno;
	f->fd = -1;
	if (!rc && rename(f->tmp, f->path))
		rc = -errno;
	if (rc)
		unlink(f->tmp);
	cleanup_tmp[slot] = NULL;
	return rc;
}

/* ---- what machine this is -------------------------------------------------------- */

/* The first line of a small file, without the newline, control characters made blanks. */
static int read_line(const char *path, char *buf, size_t cap)
{
	FILE *f = fopen(path, "r");
	int ok;

	buf[0] = 0;
	if (!f)
		return 0;
	ok = fgets(buf, (int)cap, f) != NULL;
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
	for (char *p = buf; *p; p++)
		if (iscntrl((unsigned char)*p))
			*p = ' ';
	return ok;
}

/* "model name" from /proc/cpuinfo (or "Hardware"/"CPU part" elsewhere), and the hypervisor flag */
static void cpu_info(char *model, size_t cap, int *hypervisor)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[4096];

	snprintf(model, cap, "unknown (no model name in /proc/cpuinfo)");
	*hypervisor = 0;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (!colon)
			continue;
		if ((!strncmp(line, "model name", 10) || !strncmp(line, "Hardware", 8)) && model[0] == 'u') {
			char *v = colon + 1;

			v += strspn(v, " \t");
			v[strcspn(v, "\n")] = 0;
			snprintf(model, cap, "%s", v);
		}
		if ((!strncmp(line, "flags", 5) && strstr(colon, " hypervisor")))
			*hypervisor = 1;
	}
	fclose(f);
}

struct about {
	char date[32], host[256], kernel[600], cpu[256], vm[400], cmd[2048], clock[128], thp[128];
	char topo[512], pin[128];
};

static void about_machine(struct about *a, const struct ms_ctx *c, int argc, char **argv)
{
	time_t now = time(NULL);
	struct utsname u;
	char vendor[128], src[64];
	unsigned int api = hwloc_get_api_version();
	int hyper;
	size_t len = 0;

	strftime(a->date, sizeof(a->date), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	if (gethostname(a->host, sizeof(a->host) - 1))
		snprintf(a->host, sizeof(a->host), "unknown");
	a->host[sizeof(a->host) - 1] = 0;
	if (uname(&u))
		snprintf(a->kernel, sizeof(a->kernel), "unknown (uname failed)");
	else
		snprintf(a->kernel, sizeof(a->kernel), "%s %s %s %s", u.sysname, u.release, u.version, u.machine);
	cpu_info(a->cpu, sizeof(a->cpu), &hyper);
	if (!read_line("/sys/class/dmi/id/sys_vendor", vendor, sizeof(vendor)))
		snprintf(vendor, sizeof(vendor), "unreadable");
	snprintf(a->vm, sizeof(a->vm), "%s (hypervisor flag in /proc/cpuinfo: %s; DMI sys_vendor: %s)",
		 hyper ? "yes" : "no", hyper ? "present" : "absent", vendor);
	if (!read_line("/sys/devices/system/clocksource/clocksource0/current_clocksource", src, sizeof(src)))
		snprintf(src, sizeof(src), "unknown");
	snprintf(a->clock, sizeof(a->clock), "CLOCK_MONOTONIC, clocksource %s", src);
	if (!read_line("/sys/kernel/mm/transparent_hugepage/enabled", a->thp, sizeof(a->thp)))
		snprintf(a->thp, sizeof(a->thp), "unknown");
	snprintf(a->topo, sizeof(a->topo), "hwloc %u.%u.%u: %s; largest L3 %zu KiB; RAM %zu MiB", api >> 16,
		 (api >> 8) & 0xff, api & 0xff, c->topo.summary, c->l3_bytes >> 10, c->ram_bytes >> 20);
	snprintf(a->pin, sizeof(a->pin), "%s",
		 c->pinned ? "every thread bound to one CPU with hwloc" : "UNPINNED: hwloc could not bind threads");
	/* the command line, quoted where a shell would need it */
	a->cmd[0] = 0;
	for (int i = 0; i < argc; i++) {
		const char *s = argv[i];
		int plain = s[0] != 0;

		for (const char *p = s; *p; p++)
			plain &= isalnum((unsigned char)*p) || strchr("-_./=:,+@%", *p);
		if (plain)
			len += (size_t)snprintf(a->cmd + len, sizeof(a->cmd) - len, "%s%s", i ? " " : "", s);
		else
			len += (size_t)snprintf(a->cmd + len, sizeof(a->cmd) - len, "%s'%s'", i ? " " : "", s);
		if (len >= sizeof(a->cmd))
			break;
		for (char *p = a->cmd; *p; p++)
			if (iscntrl((unsigned char)*p))
				*p = ' ';
	}
}

static void header(FILE *f, const struct about *a, const struct ms_ctx *c, double run_s)
{
	fprintf(f, "# date: %s\n", a->date);
	fprintf(f, "# host: %s\n", a->host);
	fprintf(f, "# kernel: %s\n", a->kernel);
	fprintf(f, "# cpu: %s\n", a->cpu);
	fprintf(f, "# topology: %s\n", a->topo);
	fprintf(f, "# virtual machine: %s\n", a->vm);
	fprintf(f, "# command: %s\n", a->cmd);
	fprintf(f, "# mode: %s; measured in %.1f s\n",
		c->quick ? "--quick (few samples, small buffers: a smoke test, not a calibration)" : "full", run_s);
	fprintf(f, "# clock: %s; %.1f ns per read, subtracted from every timed interval\n", a->clock, c->timer_ns);
	fprintf(f, "# pinning: %s\n", a->pin);
	fprintf(f, "# transparent huge pages: %s\n", a->thp);
}

/* ---- the profile ------------------------------------------------------------------- */

/* A number as a profile writes it: three or four significant figures. */
static const char *num(char *buf, size_t cap, double v)
{
	if (v >= 100)
		snprintf(buf, cap, "%.0f", v);
	else if (v >= 10)
		snprintf(buf, cap, "%.1f", v);
	else
		snprintf(buf, cap, "%.2f", v);
	return buf;
}

static void figures(FILE *f, const struct ms_result *r)
{
	fprintf(f, "median %.4g %s of %d samples (min %.4g; p90 %.4g; %d more than 3x off the median)", r->st.median,
		r->unit, r->st.n, r->st.min, r->st.p90, r->st.outliers);
}

static void key_measured(FILE *f, const char *key, const struct ms_result *r, const char *what, const char *warn)
{
	char b[32];

	fprintf(f, "# [measured] %s: ", what);
	figures(f, r);
	if (warn)
		fprintf(f, "\n# %s", warn);
	fprintf(f, "\n# method (%s): %s\n%s = %s\n", r->quantity, r->method, key, num(b, sizeof(b), r->value));
}

/* The generic profile's value and note, its tags ("[derived]") made plain words. */
static void key_carried(FILE *f, const struct profile *gen, const char *sec, const char *key, const char *why)
{
	const struct prof_entry *e = profile_find(gen, sec, key);
	char note[sizeof(e->note)], *p;

	snprintf(note, sizeof(note), "%s", e ? e->note : "");
	while ((p = strchr(note, '[')) != NULL) {
		char *q = strchr(p, ']');

		if (!q)
			break;
		*p = ' ';
		*q = ':';
	}
	fprintf(f, "# [assumed] carried from data/machines/generic.conf: %s\n", why);
	if (note[0])
		fprintf(f, "# generic.conf says: %s\n", note + strspn(note, " "));
	fprintf(f, "%s = %s\n", key, e ? e->value : "0");
}

/* Every key of [@sec] in the generic profile that is not in @done: carried, so that none is missing. */
static void carry_rest(FILE *f, const struct profile *gen, const char *sec, const char *const *done)
{
	for (int i = 0; i < gen->nentries; i++) {
		const struct prof_entry *e = &gen->e[i];
		int k = 0;

		if (strcmp(e->section, sec))
			continue;
		while (done[k] && strcmp(done[k], e->key))
			k++;
		if (!done[k])
			key_carried(f, gen, sec, e->key, "not measured by " PROG);
	}
}

/* [cpu] @key from the figure @quantity less @share of a bare syscall (@sys): the kernel's own
 * sleeps and wake-ups enter no system call.  Not measured: the generic profile's value if it has
 * one, else nothing (the profile reader's default). */
static void sched_key(FILE *f, const struct profile *gen, struct ms_ctx *c, const char *key, const char *quantity,
		      const struct ms_result *sys, double share, const char *what)
{
	const struct ms_result *r = ms_find(c, quantity);
	char b[32];

	if (r && sys) {
		double v = r->value - share * sys->value;

		fprintf(f, "# [derived] %s: %s %.4g ns less %g x syscall %.4g ns", what, quantity, r->value, share,
			sys->value);
		if (v < 0) {
			fprintf(f, "; below 0, taken as 0");
			v = 0;
		}
		fprintf(f, "\n# %s: ", quantity);
		figures(f, r);
		fprintf(f, "\n# method (%s): %s\n%s = %s\n", r->quantity, r->method, key, num(b, sizeof(b), v));
	} else if (profile_find(gen, "cpu", key)) {
		key_carried(f, gen, "cpu", key, "not measured");
	}
}

/* ipi_ns: a TLB flush with a sibling thread running on another CPU, less the flush alone (at least 0);
 * absent (the model's default) with one CPU or no binding. */
static void ipi_key(FILE *f, struct ms_ctx *c)
{
	const struct ms_result *one = ms_find(c, "tlb_flush_alone"), *ipi = ms_find(c, "tlb_flush_ipi");
	char b[32];
	double v;

	if (!one || !ipi)
		return;
	v = ipi->value - one->value;
	fprintf(f,
		"# [derived] a TLB shootdown's IPI round trip as the sender waits for it: tlb_flush_ipi %.4g ns less "
		"tlb_flush_alone %.4g ns%s\n# tlb_flush_ipi: ",
		ipi->value, one->value, v < 0 ? "; below 0, taken as 0" : "");
	figures(f, ipi);
	fprintf(f, "\n# method (tlb_flush_ipi): %s\n# tlb_flush_alone: ", ipi->method);
	figures(f, one);
	fprintf(f, "\n# method (tlb_flush_alone): %s\nipi_ns = %s\n", one->method, num(b, sizeof(b), v > 0 ? v : 0));
}

/* corun_factor: the write faults with every other CPU faulting too, over the faults alone (at least 1:
 * a ratio under 1 is noise; at most 4, the profile's bound).  Absent with one CPU. */
static void corun_key(FILE *f, struct ms_ctx *c)
{
	const struct ms_result *one = ms_find(c, "fault_write"), *all = ms_find(c, "fault_write_all");
	char b[32];
	double v;

	if (!one || !all || !(one->value > 0))
		return;
	v = all->value / one->value;
	fprintf(f, "# [derived] work slows with the other CPUs busy: fault_write_all %.4g ns over fault_write %.4g ns",
		all->value, one->value);
	if (v < 1 || v > 4) {
		fprintf(f, "; %.3g, taken as %g", v, v < 1 ? 1.0 : 4.0);
		v = v < 1 ? 1 : 4;
	}
	fprintf(f, "\n# fault_write_all: ");
	figures(f, all);
	fprintf(f, "\n# method (fault_write_all): %s\ncorun_factor = %s\n", all->method, num(b, sizeof(b), v));
}

static const char *const absent_why[TOPO_NDIST] = {
    "",
    "absent here: no core has two hardware threads",
    "absent here: no two cores share an L3",
    "absent here: no package has two L3 domains",
    "absent here: one package only",
    "absent here: no hop matrix ([machine] package_hops); needed only where packages are two hops apart",
};

static const char *const class_what[TOPO_NDIST] = {
    "self: a line this CPU just wrote (L1 hit), timed as a load",
    "SMT sibling: a load of a line Modified on the other hardware thread of the core",
    "same L3: a load of a line Modified on another core of the L3 domain",
    "other L3 of the package: a load of a line Modified on a core of another L3 domain",
    "other package: a load of a line Modified on a core of another package",
    "package two hops away: a load of a line Modified on a core of a package two interconnect hops away",
};

static int write_profile(FILE *f, struct ms_ctx *c, const struct opts *o, const struct about *a,
			 const struct profile *gen, double run_s)
{
	const struct topology *t = &c->topo;
	struct ms_result *r, *r2;
	char b[32];

	fprintf(f, "# Hardware profile of this machine, written by " PROG " (calibrate/README.md).\n");
	fprintf(f, "# Each key says how it was measured; keys it cannot measure here keep the generic profile's\n"
		   "# figure, tagged [assumed].\n");
	header(f, a, c, run_s);
	fprintf(f, "# All figures (also in the --raw CSV), the value being the median:\n");
	for (int i = 0; i < c->nresults; i++) {
		fprintf(f, "#   %-24s %10.4g %-6s ", c->res[i].quantity, c->res[i].value, c->res[i].unit);
		figures(f, &c->res[i]);
		fprintf(f, "\n");
	}
	fprintf(f,
		"# Figures without a profile key (fault_*, munmap_*, zero_*, syscall, atomic_contended*, keep_*,\n"
		"# timer) are for the kernel profile's path costs and for checks; they are listed above only, as are\n"
		"# bw_task and clear_user where clear_kernel gives task_gbs.\n\n");

	fprintf(f, "[machine]\n# [assumed] name used on the command line (" PROG " --name)\nname = %s\n", o->name);
	fprintf(f, "# [measured] which machine, and when\ndescription = measured by " PROG " on %.60s at %s%s\n",
		a->host, a->date, c->quick ? " (--quick)" : "");
	fprintf(f,
		"# [measured] the topology of the machine mmsim runs on, read with hwloc (here: %s)\n"
		"topology = local\n\n",
		t->summary);

	fprintf(f, "[latency]\n");
	for (int d = TOPO_SELF; d < TOPO_NDIST; d++) {
		char q[40], warn[300] = "";

		snprintf(q, sizeof(q), "line_load_%s", topo_dist_name(d));
		r2 = ms_find(c, "line_load_self");
		r = ms_find(c, q);
		if (r && d > TOPO_SMT && r2 && r->value < 2 * r2->value) {
			snprintf(warn, sizeof(warn),
				 "WARNING: no slower than twice an L1 hit (%.3g ns): CPUs %d and %d seem to share one "
				 "core's caches (on a virtual machine: vCPUs on SMT siblings of the host) which hwloc "
				 "cannot see",
				 r2->value, t->cpu[0].os_index, t->cpu[ms_cpu_at(c, d)].os_index);
			fprintf(stderr, PROG ": %s: %s\n", q, warn);
		}
		if (r)
			key_measured(f, topo_dist_name(d), r, class_what[d], warn[0] ? warn : NULL);
		else if (d != TOPO_REMOTE_FAR) /* hwloc gives no hop matrix: no pair is two hops apart */
			key_carried(f, gen, "latency", topo_dist_name(d), absent_why[d]);
	}
	if ((r = ms_find(c, "memory_latency")))
		key_measured(f, "memory_local", r,
			     c->quick ? "DRAM of the local node (--quick: small buffer)" : "DRAM of the local node",
			     NULL);
	else
		key_carried(f, gen, "latency", "memory_local", "not measured");
	key_carried(f, gen, "latency", "memory_remote",
		    t->nnuma > 1 ? "not measured by " PROG " (no remote-node binding yet)"
				 : "absent here: one NUMA node only");
	r = ms_find(c, "atomic_uncontended");
	r2 = ms_find(c, "plain_rmw");
	if (r && r2) {
		double extra = r->value > r2->value ? r->value - r2->value : 0;

		fprintf(f,
			"# [derived] atomic_uncontended - plain_rmw = %.4g - %.4g ns: a locked fetch_add on a line "
			"this CPU holds against a plain load+add+store of it\natomic = %s\n",
			r->value, r2->value, num(b, sizeof(b), extra));
	} else {
		key_carried(f, gen, "latency", "atomic", "not measured");
	}
	carry_rest(f, gen, "latency",
		   (const char *const[]){"self", "smt", "l3", "package", "remote", "memory_local", "memory_remote",
					 "atomic", NULL});
	fprintf(f, "\n");

	fprintf(f, "[coherence]\n");
	carry_rest(f, gen, "coherence", (const char *const[]){"serve_ns", NULL});
	/* a slope of microseconds is a reader that lost its CPU, not a line's home: left out */
	if ((r = ms_find(c, "herd_serve")) && r->value <= 1000)
		key_measured(f, "serve_ns", r, "the line's home's time per request: a herd's growth per reader", NULL);
	else if (r)
		fprintf(f,
			"# serve_ns left out (0): herd_serve came out %.4g ns, no line's time per request (a reader "
			"off its CPU?)\n",
			r->value);
	fprintf(f, "\n[bandwidth]\n");
	if ((r = ms_find(c, "bw_all")) && t->nnuma <= 1) {
		key_measured(f, "node_gbs", r, "memset bandwidth of all CPUs at once (one NUMA node)", NULL);
	} else if (r) {
		fprintf(f, "# [derived] bw_all / %d NUMA nodes: ", t->nnuma);
		figures(f, r);
		fprintf(f, "\nnode_gbs = %s\n", num(b, sizeof(b), r->value / t->nnuma));
	} else {
		key_carried(f, gen, "bandwidth", "node_gbs", "not measured");
	}
	/*
	 * task_gbs is what a memory step gets alone, and every memory step is the kernel clearing or
	 * copying a new page: the kernel's own clearing where it can be timed, else clear_page's
	 * loop in user space.  bw_task (glibc's memset, which streams past the cache on a buffer
	 * this large) is listed only: the kernel never clears that way.
	 */
	if ((r = ms_find(c, "clear_kernel")))
		key_measured(f, "task_gbs", r, "the kernel clearing new pages, one CPU alone", NULL);
	else if ((r = ms_find(c, "clear_user")))
		key_measured(f, "task_gbs", r,
			     "clear_page's loop in user space, one CPU alone (the kernel's own clearing could not be "
			     "timed here)",
			     NULL);
	else
		key_carried(f, gen, "bandwidth", "task_gbs", "not measured");
	carry_rest(f, gen, "bandwidth", (const char *const[]){"node_gbs", "task_gbs", NULL});

	fprintf(f, "\n[frequency]\n");
	r = ms_find(c, "freq_1");
	r2 = ms_find(c, "freq_all");
	if (!r)
		return -ENODATA;
	key_measured(f, "1", r, "GHz with one core busy", NULL);
	if (r2 && t->ncores > 1) {
		char key[16];

		snprintf(key, sizeof(key), "%d", t->ncores);
		key_measured(f, key, r2, "GHz with every core busy (every hardware thread running the chain)", NULL);
	}

	fprintf(f, "\n[cpu]\n");
	key_carried(f, gen, "cpu", "smt_factor",
		    t->threads_per_core > 1 ? "not measured by " PROG : "absent here: one thread per core");
	if ((r = ms_find(c, "pause")))
		key_measured(f, "pause_ns", r, "one PAUSE (cpu_relax)", NULL);
	else
		key_carried(f, gen, "cpu", "pause_ns", "no spin-wait hint instruction known on this architecture");
	if ((r = ms_find(c, "futex_wakeup")))
		key_measured(f, "wakeup_ns", r,
			     "futex wake-up: FUTEX_WAKE on one CPU to the sleeper running on another", NULL);
	else
		key_carried(f, gen, "cpu", "wakeup_ns", "not measured");
	key_carried(f, gen, "cpu", "jitter", "a modelling choice, not a measurement");
	if ((r = ms_find(c, "op_variation")))
		key_measured(f, "op_jitter", r,
			     "how much a kernel operation of milliseconds varies from one repetition to the next, "
			     "as the half-width of a uniform spread",
			     NULL);
	/* the kernel's own sleeps and wake-ups make no system call: take one off each figure (half of
	 * one off each side of a sleep, whose FUTEX_WAIT enters on one side and returns on the other) */
	r2 = ms_find(c, "syscall");
	sched_key(f, gen, c, "wake_step_ns", "futex_wake_call", r2, 1.0,
		  "a FUTEX_WAKE that woke the sleeper, less one bare syscall: the waker's try_to_wake_up");
	sched_key(f, gen, c, "sched_out_ns", "sleep_cpu_out", r2, 0.5,
		  "the sleeper's CPU time going to sleep, less half a bare syscall: schedule() on its CPU");
	sched_key(f, gen, c, "sched_in_ns", "sleep_cpu_in", r2, 0.5,
		  "the sleeper's CPU time from being woken to running, less half a bare syscall: switching in");
	corun_key(f, c);
	ipi_key(f, c);
	carry_rest(f, gen, "cpu",
		   (const char *const[]){"smt_factor", "pause_ns", "wakeup_ns", "jitter", "op_jitter", "wake_step_ns",
					 "sched_out_ns", "sched_in_ns", "corun_factor", "ipi_ns", NULL});

	/*
	 * llc_mib stays the size sysfs lists.  llc_capacity (the cache a chase finds, listed above) is
	 * smaller on a guest and moves with the host's other guests; with it as llc_mib the scenarios'
	 * 'miss' steps over-charged page_fault4 on the development VM (calibrate/README.md, Caveats).
	 */
	if (ms_llc_bytes()) {
		fprintf(f,
			"\n[cache]\n# [derived] the largest cache cpu0 lists in "
			"/sys/devices/system/cpu/cpu0/cache/index*/size (the L3 of its domain)%s\nllc_mib = %s\n",
			ms_find(c, "llc_capacity")
			    ? "; a dependent-load chase left the cache at llc_capacity, listed above"
			    : "",
			num(b, sizeof(b), (double)ms_llc_bytes() / 1048576.0));
	}
	return 0;
}

static void write_raw(FILE *f, const struct ms_ctx *c, const struct about *a, double run_s)
{
	fprintf(f, "# Every figure " PROG " measured (calibrate/README.md); value = median, in unit.\n");
	header(f, a, c, run_s);
	fprintf(f, "quantity,value,unit,median,min,p90,outliers,samples,method\n");
	for (int i = 0; i < c->nresults; i++) {
		const struct ms_result *r = &c->res[i];

		fprintf(f, "%s,%.6g,%s,%.6g,%.6g,%.6g,%d,%d,%s\n", r->quantity, r->value, r->unit, r->st.median,
			r->st.min, r->st.p90, r->st.outliers, r->st.n, r->method);
	}
}

/* ---- main ---------------------------------------------------------------------------- */

static const struct step {
	const char *what;
	int (*fn)(struct ms_ctx *c);
} steps[] = {
    {"clock cost", ms_measure_timer},
    {"cache-line transfers", ms_measure_lines},
    {"atomics", ms_measure_atomics},
    {"pause", ms_measure_pause},
    {"a herd of readers", ms_measure_herd},
    {"a line kept after a grant", ms_measure_keep},
    {"frequency", ms_measure_frequency},
    {"syscall", ms_measure_syscall},
    {"futex wake-up", ms_measure_futex},
    {"TLB shootdown", ms_measure_ipi},
    {"page faults", ms_measure_faults},
    {"munmap", ms_measure_munmap},
    {"large-folio file", ms_measure_file_folios},
    {"shmem", ms_measure_shmem},
    {"zeroing", ms_measure_zeroing},
    {"the cache this CPU gets", ms_measure_llc},
    {"cold caches", ms_measure_cold},
    {"memory latency and bandwidth", ms_measure_memory},
};

static int fail(struct out_file *out, struct out_file *raw, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(struct out_file *out, struct out_file *raw, const char *fmt, ...)
{
	va_list ap;

	out_abort(out, 0);
	out_abort(raw, 1);
	fprintf(stderr, PROG ": ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	return 1;
}

int main(int argc, char **argv)
{
	static struct ms_ctx ctx;
	struct out_file out = {.fd = -1}, raw = {.fd = -1};
	char *ptext = NULL, *rtext = NULL, errbuf[1024];
	size_t plen = 0, rlen = 0;
	struct profile gen, check;
	struct hw_profile hw;
	struct mm_error err;
	struct about about;
	struct opts o;
	uint64_t start;
	double run_s;
	FILE *f;
	int rc;

	rc = parse_args(argc, argv, &o);
	if (rc)
		return rc == 1 ? 0 : rc;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, on_signal);
	/* a watchdog: every measurement has its own budget, so only a hang gets this far */
	signal(SIGALRM, on_signal);
	alarm(o.quick ? 60 : 300);
	/* the output files first: a bad path fails now, not after a minute of measuring */
	if (o.out && (rc = out_open(&out, o.out, 0)))
		return fail(&out, &raw, "--out %s: cannot create a temporary file beside it: %s", o.out, strerror(-rc));
	if (o.raw && (rc = out_open(&raw, o.raw, 1)))
		return fail(&out, &raw, "--raw %s: cannot create a temporary file beside it: %s", o.raw, strerror(-rc));
	if (profile_parse(&gen, "builtin:data/machines/generic.conf", profile_builtin_text("machines", "generic"),
			  &err))
		return fail(&out, &raw, "the builtin generic profile: %s", err.msg);
	if (ms_ctx_init(&ctx, o.quick, errbuf, sizeof(errbuf)))
		return fail(&out, &raw, "%s", errbuf);
	if (!ctx.pinned)
		fprintf(stderr, PROG ": warning: hwloc cannot bind threads here; figures are unpinned\n");

	start = ms_now_ns();
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		fprintf(stderr, PROG ": [%zu/%zu] %s\n", i + 1, sizeof(steps) / sizeof(steps[0]), steps[i].what);
		rc = steps[i].fn(&ctx);
		if (rc == -EIO)
			return fail(&out, &raw, "%s: the check of the measurement failed (a lost update)",
				    steps[i].what);
		if (rc)
			return fail(&out, &raw, "%s: %s", steps[i].what, strerror(-rc));
		ms_pin(&ctx, 0); /* the main thread measures on CPU 0 */
	}
	run_s = (double)(ms_now_ns() - start) / 1e9;
	for (int i = 0; i < ctx.nresults; i++) {
		const struct ms_result *r = &ctx.res[i];

		if (!isfinite(r->value) || !isfinite(r->st.min) || !isfinite(r->st.p90) || r->st.n < 1)
			return fail(&out, &raw, "%s: no finite figure (%d samples)", r->quantity, r->st.n);
	}

	about_machine(&about, &ctx, argc, argv);
	f = open_memstream(&ptext, &plen);
	if (!f)
		return fail(&out, &raw, "out of memory");
	rc = write_profile(f, &ctx, &o, &about, &gen, run_s);
	fclose(f);
	if (rc)
		return fail(&out, &raw, "no frequency figure");
	f = open_memstream(&rtext, &rlen);
	if (!f)
		return fail(&out, &raw, "out of memory");
	write_raw(f, &ctx, &about, run_s);
	fclose(f);

	/* what mmsim --machine would say about it, before anything is written */
	if (profile_parse(&check, o.out ? o.out : "<stdout>", ptext, &err) ||
	    (hw_profile_derive(&hw, &check, &err) && (profile_free(&check), 1))) {
		fputs(ptext, stderr);
		return fail(&out, &raw, "the profile written above is not accepted by mmsim: %s", err.msg);
	}
	profile_free(&check);
	profile_free(&gen);

	if (o.raw && (rc = out_commit(&raw, 1, rtext, rlen)))
		return fail(&out, &raw, "--raw %s: %s", o.raw, strerror(-rc));
	if (o.out) {
		if ((rc = out_commit(&out, 0, ptext, plen)))
			return fail(&out, &raw, "--out %s: %s", o.out, strerror(-rc));
	} else if (fwrite(ptext, 1, plen, stdout) != plen || fflush(stdout)) {
		return fail(&out, &raw, "writing the profile to stdout: %s", strerror(errno));
	}
	fprintf(stderr, PROG ": done in %.1f s%s%s%s%s\n", run_s, o.out ? "; profile: " : "", o.out ? o.out : "",
		o.raw ? "; figures: " : "", o.raw ? o.raw : "");
	free(ptext);
	free(rtext);
	ms_ctx_free(&ctx);
	return 0;
}
