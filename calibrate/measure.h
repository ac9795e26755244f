/* SPDX-License-Identifier: MIT */
/*
 * mmsim-measure: the measurement half of calibration.  It times, on the
 * machine it runs on, the quantities a hardware profile needs (cache-line
 * transfer per distance class, atomics, faults, zeroing, the cache a task
 * gets, bandwidth, syscalls, futex wake-ups, a TLB shootdown's IPI,
 * frequency) and writes them as a profile
 * fragment plus a CSV of every figure.
 *
 * Method, after ccbench (SSYNC, SOSP'13): put a line in a known state on
 * one CPU, time the access from another, subtract the cost of reading the
 * clock, and keep every sample so that outliers are shown (median, min,
 * p90 and the count more than 3x off the median), not averaged away.  Every
 * measurement stops at a sample count or a time budget, whichever comes
 * first, and allocates at most a quarter of RAM.
 */
#ifndef MMSIM_MEASURE_H
#define MMSIM_MEASURE_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <pthread.h>
#include <hwloc.h>
#include "topology.h"

#define MS_LINE 64

struct ms_stats {
	double median, min, p90;
	int outliers; /* samples more than 3x above or below the median */
	int n;
};

struct ms_result {
	char quantity[40]; /* e.g. "line_load_l3" */
	char unit[12];	   /* "ns", "GB/s", "GHz", "Mop/s" */
	double value;	   /* the figure used: the median unless the method says otherwise */
	struct ms_stats st;
	char method[320]; /* how it was measured, in one line without commas */
};

#define MS_MAX_RESULTS 80

struct ms_ctx {
	int quick;
	hwloc_topology_t hw;
	struct topology topo; /* the model's view: CPUs in hwloc logical order, distance classes */
	int pinned;	      /* binding works here */
	double timer_ns;      /* cost of one ms_now_ns(), subtracted from every sample */
	size_t ram_bytes;
	size_t l3_bytes; /* the largest L3 hwloc reports, 0 if none */
	int nresults;
	struct ms_result res[MS_MAX_RESULTS];
};

/* ---- clock, budgets, statistics (measure_core.c) ------------------------- */

static inline uint64_t ms_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Net time of @ops operations timed between @t0 and @t1, per operation. */
double ms_per_op(const struct ms_ctx *c, uint64_t t0, uint64_t t1, double ops);

/* A measurement's limits: stop at @max samples or after @seconds, whichever first. */
struct ms_budget {
	int max;
	uint64_t deadline;
};

void ms_budget_init(struct ms_budget *b, const struct ms_ctx *c, int max, double seconds);
int ms_budget_more(const struct ms_budget *b, int n);

void ms_stats_of(const double *v, int n, struct ms_stats *st);
/* Record a result; @fmt is the method text.  Returns the result, or NULL if the table is full. */
struct ms_result *ms_add(struct ms_ctx *c, const char *quantity, const char *unit, const double *samples, int n,
			 const char *fmt, ...) __attribute__((format(printf, 6, 7)));
struct ms_result *ms_find(struct ms_ctx *c, const char *quantity);
/*
 * Where a cache sweep leaves the cache: @lat[i] is a dependent-load chase's latency over a working
 * set of @size[i] (ascending).  With lo the least of the first three latencies and hi the median of
 * the last three, the first size whose latency passes sqrt(lo x hi) (a quarter of the way from lo
 * to hi when hi is 9 lo: where a quarter of the chase's loads miss), interpolated on log(size) from
 * the size before it.  0 when hi is under twice lo (no step in the sweep) or there are fewer than
 * three sizes.
 */
double ms_cache_knee(const double *size, const double *lat, int n);

int ms_ctx_init(struct ms_ctx *c, int quick, char *errbuf, size_t cap);
void ms_ctx_free(struct ms_ctx *c);
/* Bind the calling thread to logical CPU @cpu (model numbering); 0 or a negative errno. */
int ms_pin(struct ms_ctx *c, int cpu);
/* Start a thread that first binds itself to @cpu. */
struct ms_thread {
	pthread_t tid;
	struct ms_ctx *c;
	int cpu;
	void *(*fn)(void *);
	void *arg;
};
int ms_spawn(struct ms_thread *t, struct ms_ctx *c, int cpu, void *(*fn)(void *), void *arg);
void ms_join(struct ms_thread *t);

static inline void ms_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ volatile("yield" ::: "memory");
#else
	__asm__ volatile("" ::: "memory");
#endif
}

/* Spin (ms_relax) for @ns of CLOCK_MONOTONIC: a pause that keeps the CPU. */
static inline void ms_spin_ns(uint64_t ns)
{
	uint64_t t0 = ms_now_ns();

	while (ms_now_ns() - t0 < ns)
		ms_relax();
}

/* The first CPU at distance @d from CPU 0, or -1 if there is none. */
int ms_cpu_at(const struct ms_ctx *c, enum topo_dist d);

/* ---- the measurements: 0 or a negative errno ----------------------------- */

int ms_measure_timer(struct ms_ctx *c);
int ms_measure_lines(struct ms_ctx *c);	    /* measure_cpu.c */
int ms_measure_atomics(struct ms_ctx *c);   /* measure_cpu.c */
int ms_measure_pause(struct ms_ctx *c);	    /* measure_cpu.c */
int ms_measure_herd(struct ms_ctx *c);	    /* measure_cpu.c */
int ms_measure_keep(struct ms_ctx *c);	    /* measure_cpu.c */
int ms_measure_frequency(struct ms_ctx *c); /* measure_cpu.c */
int ms_measure_faults(struct ms_ctx *c);    /* measure_mem.c */
int ms_measure_munmap(struct ms_ctx *c);    /* measure_mem.c: the zap per PTE */
int ms_measure_zeroing(struct ms_ctx *c);   /* measure_mem.c */
int ms_measure_cold(struct ms_ctx *c);	    /* measure_mem.c: page_fault4's page, warm and cold */
int ms_measure_llc(struct ms_ctx *c);	    /* measure_mem.c: the cache this CPU gets, by a chase sweep */
size_t ms_llc_bytes(void);		    /* measure_mem.c: the largest cache cpu0 sees (sysfs); 0 */
int ms_measure_memory(struct ms_ctx *c);    /* measure_mem.c: latency and bandwidth */
int ms_measure_syscall(struct ms_ctx *c);   /* measure_os.c */
int ms_measure_futex(struct ms_ctx *c);	    /* measure_os.c */
int ms_measure_ipi(struct ms_ctx *c);	    /* measure_os.c: a TLB flush's IPI round trip */
/* measure_mem.c: a file in large folios where will-it-scale runs: buffer heads, the batched zap */
int ms_measure_file_folios(struct ms_ctx *c);
/* measure_mem.c: a memfd's new page at a write fault beyond an anonymous one's, and its hole punch */
int ms_measure_shmem(struct ms_ctx *c);

#endif
