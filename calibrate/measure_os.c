/* SPDX-License-Identifier: MIT */
/* System-call cost, futex wake-up latency and a TLB shootdown's IPI. */
#include "measure.h"

#include <errno.h>
#include <pthread.h>
#include <time.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

int ms_measure_syscall(struct ms_ctx *c)
{
	enum { OPS = 1000 };
	int max = c->quick ? 50 : 500, n;
	double *v = malloc((size_t)max * sizeof(*v));
	struct ms_budget b;

	if (!v)
		return -ENOMEM;
	ms_budget_init(&b, c, max, c->quick ? 0.05 : 0.3);
	for (n = 0; ms_budget_more(&b, n); n++) {
		uint64_t t0 = ms_now_ns(), t1;

		for (int i = 0; i < OPS; i++)
			syscall(SYS_getppid);
		t1 = ms_now_ns();
		v[n] = ms_per_op(c, t0, t1, OPS);
	}
	n = ms_add(c, "syscall", "ns", v, n, "syscall(SYS_getppid) %d times in a row (no libc caching); per call", OPS)
		? 0
		: -ENOSPC;
	free(v);
	return n;
}

/* ---- futex wake-up: two threads wake each other in turn --------------------------- */

#define FX_STOP 0xffffffffu

struct fx_shared {
	_Alignas(MS_LINE) atomic_uint word[2];	/* thread i sleeps on word[i] */
	_Alignas(MS_LINE) uint64_t woken_at[2]; /* when word[i] was last set, just before FUTEX_WAKE */
	/* thread i's CPU time (its CLOCK_THREAD_CPUTIME_ID), read by the other thread just before it
	 * wakes thread i: how much of the sleep thread i spent on its CPU going off it */
	_Alignas(MS_LINE) uint64_t cpu_at_wake[2];
	_Alignas(MS_LINE) uint64_t deadline;
	clockid_t cpu_clock[2];
	int clock_ok[2];
	atomic_int ready;
	int max;
};

/* What each thread records: the wake-up latency, its own on-CPU time on either side of a sleep
 * (schedule() out, and switching back in), and the time FUTEX_WAKE takes it when it woke one. */
enum { FX_LAT, FX_OUT, FX_IN, FX_WAKE, FX_NSERIES };

struct fx_thread {
	struct fx_shared *sh;
	struct ms_ctx *c;
	int me;
	int n[FX_NSERIES];
	double *v[FX_NSERIES];
};

static long fx_futex(atomic_uint *w, int op, unsigned int val)
{
	return syscall(SYS_futex, (unsigned int *)w, op, val, NULL, NULL, 0);
}

static uint64_t fx_clock(clockid_t id)
{
	struct timespec ts;

	if (clock_gettime(id, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void fx_record(struct fx_thread *t, int series, double v)
{
	if (t->n[series] < t->sh->max && v >= 0)
		t->v[series][t->n[series]++] = v;
}

static void fx_wake(struct fx_thread *t, int who, unsigned int val)
{
	struct fx_shared *sh = t->sh;
	uint64_t t0, t1;

	sh->cpu_at_wake[who] = sh->clock_ok[who] ? fx_clock(sh->cpu_clock[who]) : 0;
	sh->woken_at[who] = ms_now_ns();
	atomic_store_explicit(&sh->word[who], val, memory_order_release);
	t0 = ms_now_ns();
	if (fx_futex(&sh->word[who], FUTEX_WAKE_PRIVATE, 1) == 1 && val != FX_STOP) {
		t1 = ms_now_ns();
		fx_record(t, FX_WAKE, ms_per_op(t->c, t0, t1, 1));
	}
}

/* Sleep until word[me] is @want (or FX_STOP); 1 if this thread really slept and was woken. */
static int fx_wait(struct fx_shared *sh, int me, unsigned int want, unsigned int *seen)
{
	int slept = 0;
	unsigned int v;

	while ((v = atomic_load_explicit(&sh->word[me], memory_order_acquire)) != want && v != FX_STOP)
		slept = fx_futex(&sh->word[me], FUTEX_WAIT_PRIVATE, v) == 0;
	*seen = v;
	return slept;
}

static void *fx_run(void *arg)
{
	struct fx_thread *t = arg;
	struct fx_shared *sh = t->sh;
	int other = 1 - t->me;

	sh->clock_ok[t->me] = !pthread_getcpuclockid(pthread_self(), &sh->cpu_clock[t->me]);
	atomic_fetch_add(&sh->ready, 1);
	while (atomic_load(&sh->ready) < 2)
		;
	for (unsigned int k = 1;; k++) {
		unsigned int seen;
		uint64_t cpu0;

		if (t->me == 0) {
			/* thread 0 starts each round, and ends the run */
			if (k > (unsigned int)sh->max || (k > 5 && ms_now_ns() > sh->deadline)) {
				fx_wake(t, other, FX_STOP);
				return NULL;
			}
			fx_wake(t, other, k);
		}
		cpu0 = fx_clock(CLOCK_THREAD_CPUTIME_ID);
		if (fx_wait(sh, t->me, k, &seen)) {
			uint64_t now = ms_now_ns(), cpu1 = fx_clock(CLOCK_THREAD_CPUTIME_ID);
			uint64_t mid = sh->cpu_at_wake[t->me];

			if (seen == k) {
				fx_record(t, FX_LAT, ms_per_op(t->c, sh->woken_at[t->me], now, 1));
				/* the other thread read this one's CPU time while it slept: what came before
				 * is going to sleep, what came after is coming back */
				if (cpu0 && mid >= cpu0 && cpu1 >= mid) {
					fx_record(t, FX_OUT, (double)(mid - cpu0));
					fx_record(t, FX_IN, (double)(cpu1 - mid));
				}
			}
		}
		if (seen == FX_STOP)
			return NULL;
		if (t->me == 1)
			fx_wake(t, other, k);
	}
}

/* Each series of both threads as one list (thread 0's, then thread 1's) for ms_add. */
static int fx_add(struct ms_ctx *c, struct fx_thread t[2], int series, double *buf, const char *quantity,
		  const char *method, int cpu0, int cpu1)
{
	int n = t[0].n[series] + t[1].n[series];

	memcpy(buf, t[0].v[series], (size_t)t[0].n[series] * sizeof(*buf));
	memcpy(buf + t[0].n[series], t[1].v[series], (size_t)t[1].n[series] * sizeof(*buf));
	if (!n)
		return 0; /* nothing recorded (e.g. no per-thread CPU clock): the key is carried */
	return ms_add(c, quantity, "ns", buf, n, "two threads on CPUs %d and %d wake each other in turn; %s", cpu0,
		      cpu1, method)
		   ? 0
		   : -ENOSPC;
}

int ms_measure_futex(struct ms_ctx *c)
{
	int partner = -1, rc = 0;
	struct fx_shared *sh = aligned_alloc(MS_LINE, sizeof(*sh));
	struct fx_thread t[2];
	struct ms_thread th[2];
	double *v;

	/* the nearest other CPU: an idle one, as when a lock holder wakes a waiter elsewhere */
	for (int d = TOPO_SMT; d < TOPO_NDIST && partner < 0; d++)
		partner = ms_cpu_at(c, d);
	if (partner < 0)
		partner = 0;
	if (!sh)
		return -ENOMEM;
	memset(sh, 0, sizeof(*sh));
	sh->max = c->quick ? 200 : 3000;
	sh->deadline = ms_now_ns() + (uint64_t)((c->quick ? 0.1 : 0.8) * 1e9);
	/* 2 threads x FX_NSERIES series of max, and one list of 2 x max to hand each series over */
	v = malloc((2 * FX_NSERIES + 2) * (size_t)sh->max * sizeof(*v));
	if (!v) {
		free(sh);
		return -ENOMEM;
	}
	for (int i = 0; i < 2; i++) {
		t[i] = (struct fx_thread){.sh = sh, .c = c, .me = i};
		for (int k = 0; k < FX_NSERIES; k++)
			t[i].v[k] = v + (size_t)(i * FX_NSERIES + k) * sh->max;
	}
	/* thread 1 first: it must be waiting when thread 0 starts the first round */
	rc = ms_spawn(&th[1], c, partner, fx_run, &t[1]);
	if (!rc) {
		rc = ms_spawn(&th[0], c, 0, fx_run, &t[0]);
		if (rc) {
			atomic_store(&sh->ready, 2);
			atomic_store(&sh->word[1], FX_STOP);
			fx_futex(&sh->word[1], FUTEX_WAKE_PRIVATE, 1);
		} else {
			ms_join(&th[0]);
		}
		ms_join(&th[1]);
	}
	if (!rc) {
		double *buf = v + (size_t)2 * FX_NSERIES * sh->max;
		int a = c->topo.cpu[0].os_index, b = c->topo.cpu[partner].os_index;

		rc = fx_add(c, t, FX_LAT, buf, "futex_wakeup",
			    "clock read just before FUTEX_WAKE to the woken thread running; only waits that really "
			    "slept count",
			    a, b);
		if (!rc)
			rc = fx_add(
			    c, t, FX_OUT, buf, "sleep_cpu_out",
			    "the sleeper's own CPU time (CLOCK_THREAD_CPUTIME_ID) from just before its FUTEX_WAIT "
			    "to the moment the other thread, about to wake it, reads that clock",
			    a, b);
		if (!rc)
			rc = fx_add(c, t, FX_IN, buf, "sleep_cpu_in",
				    "the sleeper's own CPU time from that moment to its FUTEX_WAIT having returned", a,
				    b);
		if (!rc)
			rc = fx_add(c, t, FX_WAKE, buf, "futex_wake_call",
				    "the waker's time in a FUTEX_WAKE that woke the sleeper", a, b);
	}
	free(v);
	free(sh);
	return rc;
}

/* ---- TLB shootdown: a flush of this mm while another of its threads runs on another CPU ---------- */

/*
 * mprotect() of one present page to PROT_READ, or back to PROT_READ|PROT_WRITE, changes its PTE and
 * flushes it (mm/mprotect.c change_pte_range: x86's pte_needs_flush asks for a flush when _PAGE_RW
 * changes either way; tlb_finish_mmu does it); on x86 flush_tlb_mm_range sends the IPI to every other CPU that runs the
 * mm and is not in lazy TLB mode, and waits for them.  Timed twice on CPU 0: alone (the partner CPU does not run the
 * mm) and with a sibling thread spinning in user space on the partner CPU.  The difference per call (one flush) is the
 * sender's IPI round trip, what mmsim's `ipi` step charges
 * ([cpu] ipi_ns).  The partner's "TLB shootdowns" in /proc/interrupts over the second pass say
 * whether the flushes reached it.
 */
#define IPI_OPS 50

struct ipi_run {
	struct ms_ctx *c;
	char *page;
	_Alignas(MS_LINE) atomic_int stop;
	_Alignas(MS_LINE) atomic_int spinning;
	int with_sibling;
	int max, n, err;
	double seconds;
	double *v;
};

static void *ipi_spin(void *arg)
{
	struct ipi_run *r = arg;

	atomic_store(&r->spinning, 1);
	while (!atomic_load_explicit(&r->stop, memory_order_relaxed))
		ms_relax();
	return NULL;
}

static void *ipi_flush(void *arg)
{
	struct ipi_run *r = arg;
	struct ms_budget b;

	while (r->with_sibling && !atomic_load(&r->spinning))
		ms_relax();
	ms_budget_init(&b, r->c, r->max, r->seconds);
	for (r->n = 0; ms_budget_more(&b, r->n); r->n++) {
		uint64_t t0 = ms_now_ns();

		for (int i = 0; i < IPI_OPS; i++)
			if (mprotect(r->page, 4096, PROT_READ) || mprotect(r->page, 4096, PROT_READ | PROT_WRITE)) {
				r->err = -errno;
				return NULL;
			}
		r->v[r->n] = ms_per_op(r->c, t0, ms_now_ns(), 2.0 * IPI_OPS);
	}
	return NULL;
}

/* The "TLB" row of /proc/interrupts: the count of OS CPU @cpu, -1 if not found. */
static long long tlb_irqs(int cpu)
{
	FILE *f = fopen("/proc/interrupts", "r");
	char line[8192];
	int col = -1;
	long long v = -1;

	if (!f)
		return -1;
	if (fgets(line, sizeof(line), f)) {
		char *save, *tok = strtok_r(line, " \t\n", &save);

		for (int i = 0; tok; i++, tok = strtok_r(NULL, " \t\n", &save))
			if (!strncmp(tok, "CPU", 3) && atoi(tok + 3) == cpu)
				col = i;
	}
	while (col >= 0 && fgets(line, sizeof(line), f)) {
		char *save, *tok = strtok_r(line, " \t\n", &save);

		if (!tok || strcmp(tok, "TLB:"))
			continue;
		for (int i = 0; (tok = strtok_r(NULL, " \t\n", &save)); i++)
			if (i == col) {
				v = atoll(tok);
				break;
			}
		break;
	}
	fclose(f);
	return v;
}

int ms_measure_ipi(struct ms_ctx *c)
{
	struct ipi_run *r;
	struct ms_thread th[2];
	int partner = -1, rc = 0, n_alone = 0, cpu_b;
	long long irq0, irq1;
	double *alone;

	for (int d = TOPO_SMT; d < TOPO_NDIST && partner < 0; d++)
		partner = ms_cpu_at(c, d);
	if (partner < 0 || !c->pinned)
		return 0; /* one CPU, or no binding: nothing to measure, [cpu] ipi_ns is carried */
	r = aligned_alloc(MS_LINE, sizeof(*r));
	if (!r)
		return -ENOMEM;
	memset(r, 0, sizeof(*r));
	r->c = c;
	r->max = c->quick ? 50 : 400;
	r->seconds = c->quick ? 0.05 : 0.3;
	r->v = malloc(2 * (size_t)r->max * sizeof(*r->v));
	r->page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!r->v || r->page == MAP_FAILED) {
		rc = r->v ? -errno : -ENOMEM;
		goto out;
	}
	r->page[0] = 1; /* present: mprotect changes a PTE and flushes it */
	alone = r->v + r->max;
	/* alone: the partner CPU does not run this mm */
	if ((rc = ms_spawn(&th[0], c, 0, ipi_flush, r)))
		goto out;
	ms_join(&th[0]);
	if ((rc = r->err))
		goto out;
	n_alone = r->n;
	memcpy(alone, r->v, (size_t)n_alone * sizeof(*alone));
	/* with a sibling spinning on the partner CPU */
	cpu_b = c->topo.cpu[partner].os_index;
	r->with_sibling = 1;
	if ((rc = ms_spawn(&th[1], c, partner, ipi_spin, r)))
		goto out;
	irq0 = tlb_irqs(cpu_b);
	rc = ms_spawn(&th[0], c, 0, ipi_flush, r);
	if (!rc)
		ms_join(&th[0]);
	irq1 = tlb_irqs(cpu_b);
	atomic_store(&r->stop, 1);
	ms_join(&th[1]);
	if (rc || (rc = r->err))
		goto out;
	{
		int a = c->topo.cpu[0].os_index;
		double flushes = 2.0 * IPI_OPS * r->n;
		char reached[160] = "its TLB shootdowns not readable from /proc/interrupts";

		if (irq0 >= 0 && irq1 >= irq0)
			snprintf(reached, sizeof(reached), "%.2f TLB shootdowns on CPU %d per flush",
				 (irq1 - irq0) / flushes, cpu_b);
		if (!ms_add(c, "tlb_flush_alone", "ns", alone, n_alone,
			    "mprotect of one present page on CPU %d to PROT_READ and back to PROT_READ|PROT_WRITE %d "
			    "times in a row; per call (one TLB flush each: _PAGE_RW changes); no other CPU runs the "
			    "mm",
			    a, IPI_OPS) ||
		    !ms_add(c, "tlb_flush_ipi", "ns", r->v, r->n,
			    "the same with a sibling thread spinning in user space on CPU %d: each flush an IPI to it "
			    "(%s)",
			    cpu_b, reached))
			rc = -ENOSPC;
	}
out:
	if (r->page && r->page != MAP_FAILED)
		munmap(r->page, 4096);
	free(r->v);
	free(r);
	return rc;
}
