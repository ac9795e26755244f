/* SPDX-License-Identifier: MIT */
/*
 * mmsim-bench: how fast and how big mmsim is, against the limit measured in
 * the same run.  Each workload runs the mmsim binary in its own process; its
 * CPU time (user + system) and peak memory come from wait4's rusage, its
 * simulated events from the JSON.  Beside each N-task point a bare event loop
 * (a binary min-heap of N pending 32-byte events in a hold loop, written
 * here, not the model's engine) gives the events/s no simulator with such a
 * queue can beat; the ratio says how far mmsim is from it.  It prints figures
 * and bars, never a verdict: the status is non-zero only if mmsim fails to run.
 *   mmsim-bench [--quick] [path/to/mmsim]     (--quick: no 4096-task point)
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef MMSIM_BIN
#define MMSIM_BIN "mmsim"
#endif

#define RATIO_BAR 0.5	   /* mmsim events/s at least this fraction of the bare loop's */
#define CPU_4096_BAR_S 5.0 /* CPU time of the 4096-task point */
#define RSS_4096_BAR_MB 64.0
#define CURVE_BAR_S 0.3 /* wall time of the default curve with 2 threads */

struct figures {
	double wall_s, cpu_s;
	long maxrss_kb;
	unsigned long long events, visits;
	int points, has_visits;
};

static double now_s(clockid_t clock)
{
	struct timespec t;

	clock_gettime(clock, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

static double tv_s(struct timeval t)
{
	return (double)t.tv_sec + t.tv_usec / 1e6;
}

/* Sum the unsigned integers that follow each @key in @json; the number of keys found. */
static int sum_key(const char *json, const char *key, unsigned long long *sum)
{
	size_t len = strlen(key);
	int found = 0;

	*sum = 0;
	for (const char *p = strstr(json, key); p; p = strstr(p + len, key)) {
		*sum += strtoull(p + len, NULL, 10);
		found++;
	}
	return found;
}

/*
 * Run mmsim with @args (NULL-terminated; OMP_NUM_THREADS=@threads unless
 * NULL), JSON on stdout; its stderr is shown only if it fails.  0 or -1.
 */
static int measure(const char *bin, char *const args[], const char *threads, struct figures *f)
{
	FILE *err = tmpfile();
	char *buf = NULL, line[512];
	size_t len = 0, cap = 0;
	int pipefd[2], status, ret = -1;
	struct rusage ru;
	double start;
	ssize_t n;
	pid_t pid;

	memset(f, 0, sizeof(*f));
	if (!err || pipe(pipefd))
		goto out;
	start = now_s(CLOCK_MONOTONIC);
	pid = fork();
	if (pid == 0) {
		dup2(pipefd[1], 1);
		dup2(fileno(err), 2);
		close(pipefd[0]);
		if (threads)
			setenv("OMP_NUM_THREADS", threads, 1);
		execv(bin, args);
		_exit(127);
	}
	close(pipefd[1]);
	for (;;) {
		if (cap - len < 4096) {
			char *p = realloc(buf, cap ? cap * 2 : 65536);

			if (!p)
				break;
			buf = p;
			cap = cap ? cap * 2 : 65536;
		}
		n = read(pipefd[0], buf + len, cap - 1 - len);
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(pipefd[0]);
	if (pid < 0 || wait4(pid, &status, 0, &ru) < 0)
		goto out;
	f->wall_s = now_s(CLOCK_MONOTONIC) - start;
	if (!buf || !WIFEXITED(status) || WEXITSTATUS(status)) {
		rewind(err);
		while (fgets(line, sizeof(line), err))
			fprintf(stderr, "  %s", line);
		goto out;
	}
	buf[len] = 0;
	f->cpu_s = tv_s(ru.ru_utime) + tv_s(ru.ru_stime);
	f->maxrss_kb = ru.ru_maxrss;
	f->points = sum_key(buf, "\"events\": ", &f->events);
	f->has_visits = sum_key(buf, "\"visits\": ", &f->visits) > 0;
	ret = f->points > 0 ? 0 : -1;
out:
	free(buf);
	if (err)
		fclose(err);
	return ret;
}

/* The bare loop's event: the model's 32 bytes, ordered by (time, seq). */
struct bare_event {
	int64_t time;
	uint64_t seq;
	int32_t kind;
	int32_t a;
	int64_t b;
};
_Static_assert(sizeof(struct bare_event) == 32, "the model's event is 32 bytes");

struct bare_heap {
	struct bare_event *ev;
	size_t n;
	uint64_t next_seq;
};

static int bare_earlier(const struct bare_event *x, const struct bare_event *y)
{
	return x->time < y->time || (x->time == y->time && x->seq < y->seq);
}

static void bare_push(struct bare_heap *h, int64_t time, int32_t kind, int32_t a, int64_t b)
{
	struct bare_event ev = {time, h->next_seq++, kind, a, b};
	size_t i = h->n++;

	while (i > 0 && bare_earlier(&ev, &h->ev[(i - 1) / 2])) {
		h->ev[i] = h->ev[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h->ev[i] = ev;
}

/* Remove the earliest event (the heap is not empty) into @out. */
static void bare_pop(struct bare_heap *h, struct bare_event *out)
{
	struct bare_event last = h->ev[--h->n];
	size_t i = 0, c;

	*out = h->ev[0];
	while ((c = 2 * i + 1) < h->n) {
		if (c + 1 < h->n && bare_earlier(&h->ev[c + 1], &h->ev[c]))
			c++;
		if (!bare_earlier(&h->ev[c], &last))
			break;
		h->ev[i] = h->ev[c];
		i = c;
	}
	h->ev[i] = last;
}

static uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

struct bare_figures {
	double cpu_s;
	unsigned long long events;
};

static volatile uint64_t bare_sink; /* keeps the loop's work observable */

/*
 * The hold model: @pending events in the heap; pop the earliest, push one at
 * its time plus a pseudo-random 1..2^20 ps, until at least @min_events and
 * @min_cpu_s of this process's CPU time.  0 or -1 (no memory).
 */
static int bare_loop(size_t pending, unsigned long long min_events, double min_cpu_s, struct bare_figures *bf)
{
	struct bare_heap h = {malloc(pending * sizeof(struct bare_event)), 0, 0};
	uint64_t rng = 0x6d6d73696dULL; /* fixed seed: the same sequence every run */
	unsigned long long done = 0;
	struct bare_event ev;
	uint64_t sum = 0;
	double start;

	if (!h.ev)
		return -1;
	for (size_t i = 0; i < pending; i++) {
		uint64_t r = splitmix64(&rng);

		bare_push(&h, (int64_t)(1 + (r >> 44)), (int32_t)(r & 7), (int32_t)i, (int64_t)r);
	}
	start = now_s(CLOCK_PROCESS_CPUTIME_ID);
	do {
		for (int k = 0; k < 65536; k++) {
			uint64_t r = splitmix64(&rng);

			bare_pop(&h, &ev);
			sum += (uint64_t)ev.b ^ (uint32_t)ev.kind;
			bare_push(&h, ev.time + (int64_t)(1 + (r >> 44)), (int32_t)(r & 7), ev.a, (int64_t)r);
		}
		done += 65536;
		bf->cpu_s = now_s(CLOCK_PROCESS_CPUTIME_ID) - start;
	} while (done < min_events || bf->cpu_s < min_cpu_s);
	bf->events = done;
	bare_sink = sum;
	free(h.ev);
	return 0;
}

/* Least-squares slope of log y on log x. */
static double fit_exponent(const double *x, const double *y, int n)
{
	double mx = 0, my = 0, sxy = 0, sxx = 0;

	for (int i = 0; i < n; i++) {
		mx += log(x[i]) / n;
		my += log(y[i]) / n;
	}
	for (int i = 0; i < n; i++) {
		sxy += (log(x[i]) - mx) * (log(y[i]) - my);
		sxx += (log(x[i]) - mx) * (log(x[i]) - mx);
	}
	return sxy / sxx;
}

static void print_bar(const char *what, const char *target, double measured, const char *unit, int met)
{
	printf("%-44s %-12s %12.3g %-4s %s\n", what, target, measured, unit, met ? "ok" : "MISSED");
}

int main(int argc, char **argv)
{
	static const int tasks[] = {256, 1024, 4096};
	enum { NPOINT = sizeof(tasks) / sizeof(tasks[0]) };
	struct {
		struct figures f;
		struct bare_figures bare;
		int ran;
	} pt[NPOINT];
	static char *curve_args[] = {"mmsim",	 "--cores", "256", "--scenario", "has_pinned_write",
				     "--format", "json",    NULL};
	static char *pf4_args[] = {"mmsim",   "--machine", "icelake-48c", "--scenario", "page_fault4_vma_lock",
				   "--tasks", "96",	   "--format",	  "json",	NULL};
	const char *bin = MMSIM_BIN, *omp = getenv("OMP_NUM_THREADS");
	struct figures curve, pf4;
	int quick = 0, failed = 0, npoint, curve_ok, pf4_ok, nfit = 0;
	double fit_n[NPOINT], fit_cpu[NPOINT], fit_ev[NPOINT], fit_nlogn[NPOINT];
	char what[64];

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quick"))
			quick = 1;
		else
			bin = argv[i];
	}
	npoint = quick ? NPOINT - 1 : NPOINT;
	memset(pt, 0, sizeof(pt));

	printf("mmsim-bench: %s%s; OMP_NUM_THREADS %s\n", bin, quick ? " (--quick: no 4096-task point)" : "",
	       omp ? omp : "unset");
	printf("cpu_s: user + system of the mmsim process (wait4); events/s = events / cpu_s; bare: a binary "
	       "min-heap hold loop\nof N pending 32-byte events in this process, over as many events (at least %s "
	       "of CPU); ratio = events/s / bare\n\n",
	       quick ? "0.2 s" : "1 s");
	printf("%-44s %7s %7s %7s %10s %10s %10s %6s\n", "workload", "cpu_s", "wall_s", "peak_MB", "events", "events/s",
	       "bare_ev/s", "ratio");
	for (int i = 0; i < npoint; i++) {
		char n[16];
		char *args[] = {"mmsim",   "--cores", n,	  "--scenario", "has_pinned_write",
				"--tasks", n,	      "--format", "json",	NULL};
		double ev_s, bare_s;

		snprintf(n, sizeof(n), "%d", tasks[i]);
		snprintf(what, sizeof(what), "has_pinned_write, %d tasks (generic)", tasks[i]);
		if (measure(bin, args, NULL, &pt[i].f)) {
			printf("%-44s failed (is %s built?)\n", what, bin);
			failed = 1;
			continue;
		}
		if (bare_loop((size_t)tasks[i], pt[i].f.events, quick ? 0.2 : 1.0, &pt[i].bare)) {
			printf("%-44s bare loop: out of memory\n", what);
			continue;
		}
		pt[i].ran = 1;
		ev_s = pt[i].f.events / pt[i].f.cpu_s;
		bare_s = pt[i].bare.events / pt[i].bare.cpu_s;
		printf("%-44s %7.3f %7.3f %7.1f %10llu %10.3g %10.3g %6.3f\n", what, pt[i].f.cpu_s, pt[i].f.wall_s,
		       pt[i].f.maxrss_kb / 1024.0, pt[i].f.events, ev_s, bare_s, ev_s / bare_s);
		fit_n[nfit] = tasks[i];
		fit_cpu[nfit] = pt[i].f.cpu_s;
		fit_ev[nfit] = (double)pt[i].f.events;
		fit_nlogn[nfit] = tasks[i] * log(tasks[i]);
		nfit++;
	}
	curve_ok = !measure(bin, curve_args, "2", &curve);
	if (curve_ok)
		printf("%-44s %7.3f %7.3f %7.1f %10llu %10.3g %10s %6s\n", "default --cores 256 curve, 2 threads",
		       curve.cpu_s, curve.wall_s, curve.maxrss_kb / 1024.0, curve.events, curve.events / curve.cpu_s,
		       "-", "-");
	else
		printf("%-44s failed\n", "default --cores 256 curve, 2 threads");
	pf4_ok = !measure(bin, pf4_args, NULL, &pf4);
	if (pf4_ok) {
		printf("%-44s %7.3f %7.3f %7.1f %10llu %10.3g %10s %6s\n",
		       "page_fault4_vma_lock, 96 tasks (icelake-48c)", pf4.cpu_s, pf4.wall_s, pf4.maxrss_kb / 1024.0,
		       pf4.events, pf4.events / pf4.cpu_s, "-", "-");
		if (pf4.has_visits)
			printf("%-44s step visits %llu (%.3g/s)\n", "", pf4.visits, pf4.visits / pf4.cpu_s);
		else
			printf("%-44s (the JSON reports no step visits)\n", "");
	} else {
		printf("%-44s failed\n", "page_fault4_vma_lock, 96 tasks (icelake-48c)");
	}
	failed |= !curve_ok || !pf4_ok;

	if (nfit >= 2) {
		printf("\ncpu_s ~ N^%.3f from %g to %g tasks (least squares over %d points; N log N would give "
		       "N^%.3f); events ~ N^%.3f\n",
		       fit_exponent(fit_n, fit_cpu, nfit), fit_n[0], fit_n[nfit - 1], nfit,
		       fit_exponent(fit_n, fit_nlogn, nfit), fit_exponent(fit_n, fit_ev, nfit));
	}

	printf("\n%-44s %-12s %12s %-4s %s\n", "bar", "target", "measured", "", "met");
	for (int i = 0; i < npoint; i++) {
		double ratio;

		if (!pt[i].ran)
			continue;
		ratio = (pt[i].f.events / pt[i].f.cpu_s) / (pt[i].bare.events / pt[i].bare.cpu_s);
		snprintf(what, sizeof(what), "%d tasks: events/s vs the bare loop", tasks[i]);
		print_bar(what, ">= 0.5x", ratio, "x", ratio >= RATIO_BAR);
		if (tasks[i] == 4096) {
			print_bar("4096 tasks: CPU time", "< 5 s", pt[i].f.cpu_s, "s", pt[i].f.cpu_s < CPU_4096_BAR_S);
			print_bar("4096 tasks: peak RSS", "< 64 MB", pt[i].f.maxrss_kb / 1024.0, "MB",
				  pt[i].f.maxrss_kb / 1024.0 < RSS_4096_BAR_MB);
		}
	}
	if (curve_ok)
		print_bar("default --cores 256 curve, 2 threads: wall", "< 0.3 s", curve.wall_s, "s",
			  curve.wall_s < CURVE_BAR_S);
	return failed;
}
