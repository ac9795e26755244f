/* SPDX-License-Identifier: MIT */
/* Cache-line transfers per distance class, atomics, PAUSE and frequency. */
#include "measure.h"

#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

/* ---- line transfer: a line Modified on one CPU, accessed from another ---- */

/*
 * LT_LINES lines, LT_STRIDE bytes apart (every other line, so that the
 * adjacent-line prefetcher fetches nothing we use), visited in a random
 * order (so that no stream prefetcher guesses the next one).  One sample
 * times the whole set, so the clock's cost is small against it.
 */
#define LT_LINES 128
#define LT_STRIDE 128

enum lt_op { LT_LOAD, LT_STORE, LT_ATOMIC };

static const char *const lt_op_name[] = {"load", "store", "atomic"};
static const char *const lt_op_method[] = {
    "a chain of dependent loads (each line holds the address of the next)",
    "per line a store then a full fence (mfence) then the next line's address read from the stored-to line",
    "per line __atomic_fetch_add (lock xadd) then the next line's address read from that line"};

struct lt_state {
	_Alignas(MS_LINE) atomic_int turn; /* odd: measurer asks; even: owner has dirtied; -1: stop */
	char pad[MS_LINE - sizeof(atomic_int)];
	unsigned char *lines;
	int order[LT_LINES];
	uint64_t gen;
};

static inline volatile uint64_t *lt_line(struct lt_state *st, int slot)
{
	return (volatile uint64_t *)(void *)(st->lines + (size_t)slot * LT_STRIDE);
}

/* Write every line: afterwards each is Modified in this CPU's cache. */
static void lt_dirty(struct lt_state *st)
{
	st->gen++;
	for (int i = 0; i < LT_LINES; i++)
		lt_line(st, i)[2] = st->gen;
}

static void *lt_owner(void *arg)
{
	struct lt_state *st = arg;

	for (;;) {
		int t = atomic_load_explicit(&st->turn, memory_order_acquire);

		if (t < 0)
			return NULL;
		if (t & 1) {
			lt_dirty(st);
			/* the release orders the dirtying stores before the turn */
			atomic_store_explicit(&st->turn, t + 1, memory_order_release);
		} else {
			ms_relax();
		}
	}
}

/*
 * Each access's address comes from the line before, so that no ownership
 * request is sent ahead of time: a store or atomic to a line held elsewhere
 * waits for the line, and only then is the next address known.
 */
static uintptr_t lt_access(struct lt_state *st, enum lt_op op, int reps)
{
	void *p = (void *)lt_line(st, st->order[0]);

	switch (op) {
	case LT_LOAD:
		for (int i = 0; i < LT_LINES * reps; i++)
			p = *(void *volatile *)p;
		break;
	case LT_STORE:
		for (int i = 0; i < LT_LINES * reps; i++) {
			((volatile uint64_t *)p)[1] = (uint64_t)i;
			atomic_thread_fence(memory_order_seq_cst);
			p = *(void *volatile *)p;
		}
		break;
	case LT_ATOMIC:
		for (int i = 0; i < LT_LINES * reps; i++) {
			__atomic_fetch_add((uint64_t *)p + 1, 1, __ATOMIC_SEQ_CST);
			p = *(void *volatile *)p;
		}
		break;
	}
	return (uintptr_t)p;
}

static volatile uintptr_t ms_sink;

static void lt_shuffle(int *v, int n, uint64_t *seed)
{
	for (int i = 0; i < n; i++)
		v[i] = i;
	for (int i = n - 1; i > 0; i--) {
		int j, t;

		*seed ^= *seed << 13, *seed ^= *seed >> 7, *seed ^= *seed << 17;
		j = (int)(*seed % (uint64_t)(i + 1));
		t = v[i], v[i] = v[j], v[j] = t;
	}
}

static int lt_class(struct ms_ctx *c, struct lt_state *st, enum topo_dist d, int partner)
{
	int max = c->quick ? 200 : 2000;
	double secs = c->quick ? 0.03 : 0.25;
	/* an L1 hit is too short for one pass to outweigh the clock; a transfer happens once per sample */
	int reps = d == TOPO_SELF ? 16 : 1;
	double *v = malloc((size_t)max * sizeof(*v));
	struct ms_thread owner;
	int rc = 0;

	if (!v)
		return -ENOMEM;
	atomic_store(&st->turn, 0);
	if (d != TOPO_SELF && (rc = ms_spawn(&owner, c, partner, lt_owner, st))) {
		free(v);
		return rc;
	}
	for (int op = LT_LOAD; op <= LT_ATOMIC && !rc; op++) {
		struct ms_budget b;
		char q[40];
		int n;

		ms_budget_init(&b, c, max, secs);
		for (n = 0; ms_budget_more(&b, n); n++) {
			uint64_t t0, t1;

			if (d == TOPO_SELF) {
				lt_dirty(st);
			} else {
				int t = atomic_load(&st->turn) + 1;

				atomic_store_explicit(&st->turn, t, memory_order_release);
				while (atomic_load_explicit(&st->turn, memory_order_acquire) != t + 1)
					ms_relax();
			}
			t0 = ms_now_ns();
			ms_sink = lt_access(st, op, reps);
			t1 = ms_now_ns();
			v[n] = ms_per_op(c, t0, t1, (double)LT_LINES * reps);
		}
		snprintf(q, sizeof(q), "line_%s_%s", lt_op_name[op], topo_dist_name(d));
		if (d == TOPO_SELF)
			rc = ms_add(c, q, "ns", v, n,
				    "%s on %d lines written just before by the same CPU %d (L1 hits); %d passes; "
				    "per access",
				    lt_op_method[op], LT_LINES, c->topo.cpu[0].os_index, reps)
				 ? 0
				 : -ENOSPC;
		else
			rc = ms_add(c, q, "ns", v, n,
				    "handoff: CPU %d writes %d lines (Modified there) then passes a flag; CPU %d "
				    "times %s over them; per access",
				    c->topo.cpu[partner].os_index, LT_LINES, c->topo.cpu[0].os_index, lt_op_method[op])
				 ? 0
				 : -ENOSPC;
	}
	if (d != TOPO_SELF) {
		atomic_store(&st->turn, -1);
		ms_join(&owner);
	}
	free(v);
	return rc;
}

int ms_measure_lines(struct ms_ctx *c)
{
	struct lt_state *st = aligned_alloc(MS_LINE, sizeof(*st));
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	int rc = 0;

	if (!st)
		return -ENOMEM;
	memset(st, 0, sizeof(*st));
	st->lines = aligned_alloc(4096, (size_t)LT_LINES * LT_STRIDE);
	if (!st->lines) {
		free(st);
		return -ENOMEM;
	}
	memset(st->lines, 0, (size_t)LT_LINES * LT_STRIDE);
	lt_shuffle(st->order, LT_LINES, &seed);
	for (int k = 0; k < LT_LINES; k++)
		*(void **)(void *)lt_line(st, st->order[k]) = (void *)lt_line(st, st->order[(k + 1) % LT_LINES]);

	for (int d = TOPO_SELF; d < TOPO_NDIST && !rc; d++) {
		int partner = ms_cpu_at(c, d);

		if (partner >= 0)
			rc = lt_class(c, st, d, partner);
	}
	free(st->lines);
	free(st);
	return rc;
}

/* ---- atomics --------------------------------------------------------------- */

struct ca_shared {
	_Alignas(MS_LINE) atomic_ulong counter; /* the one line every CPU hammers */
	_Alignas(MS_LINE) atomic_int go;	/* round r runs once go > r ... */
	atomic_int halt;			/* ... and until halt > r */
	_Alignas(MS_LINE) atomic_int done;
};

struct ca_worker {
	struct ca_shared *sh;
	int rounds;
	uint64_t ops[64];
	uint64_t ns[64];
	uint64_t handoffs[64]; /* fetch_adds that found another CPU's add since this CPU's last */
};

#define CA_MAX_ROUNDS 64

static void *ca_run(void *arg)
{
	struct ca_worker *w = arg;
	struct ca_shared *sh = w->sh;

	for (int r = 0; r < w->rounds; r++) {
		uint64_t ops = 0, t0, t1, handoffs = 0;
		unsigned long last = ~0UL;

		while (atomic_load_explicit(&sh->go, memory_order_acquire) <= r)
			ms_relax();
		t0 = ms_now_ns();
		while (atomic_load_explicit(&sh->halt, memory_order_relaxed) <= r) {
			for (int i = 0; i < 32; i++) {
				unsigned long v = atomic_fetch_add_explicit(&sh->counter, 1, memory_order_relaxed);

				/* the line came from another CPU since this CPU's last add */
				handoffs += v != last + 1;
				last = v;
			}
			ops += 32;
		}
		t1 = ms_now_ns();
		w->ops[r] = ops;
		w->ns[r] = t1 - t0;
		w->handoffs[r] = handoffs;
		atomic_fetch_add(&sh->done, 1);
	}
	return NULL;
}

static int ca_contended(struct ms_ctx *c)
{
	int n = c->topo.ncpus, rounds = c->quick ? 5 : 20, rc = 0, started = 0;
	struct timespec round_len = {0, (c->quick ? 10 : 20) * 1000000L};
	struct ca_shared *sh = aligned_alloc(MS_LINE, sizeof(*sh));
	struct ca_worker *w = calloc((size_t)n, sizeof(*w));
	struct ms_thread *th = calloc((size_t)n, sizeof(*th));
	double per_thread[CA_MAX_ROUNDS], total[CA_MAX_ROUNDS], handoff[CA_MAX_ROUNDS];
	uint64_t sum = 0;

	if (!sh || !w || !th) {
		rc = -ENOMEM;
		goto out;
	}
	memset(sh, 0, sizeof(*sh));
	for (int i = 0; i < n && !rc; i++) {
		w[i].sh = sh;
		w[i].rounds = rounds;
		rc = ms_spawn(&th[i], c, i, ca_run, &w[i]);
		started += !rc;
	}
	if (rc) {
		/* let the started ones run their rounds out at once */
		atomic_store(&sh->go, rounds);
		atomic_store(&sh->halt, rounds);
		goto out;
	}
	for (int r = 0; r < rounds; r++) {
		atomic_store(&sh->go, r + 1);
		nanosleep(&round_len, NULL);
		atomic_store(&sh->halt, r + 1);
		/* yield, not spin: a worker shares CPU 0 with this thread */
		while (atomic_load(&sh->done) < (r + 1) * n)
			sched_yield();
	}
out:
	for (int i = 0; i < started; i++)
		ms_join(&th[i]);
	if (!rc) {
		for (int r = 0; r < rounds; r++) {
			double mean_ns = 0, ops_per_ns = 0, wall = 0, moves = 0;

			for (int i = 0; i < n; i++) {
				double ns = ms_per_op(c, 0, w[i].ns[r], 1);

				mean_ns += w[i].ops[r] ? ns / (double)w[i].ops[r] : ns;
				ops_per_ns += ns > 0 ? (double)w[i].ops[r] / ns : 0;
				sum += w[i].ops[r];
				wall += ns / n;
				moves += (double)w[i].handoffs[r];
			}
			per_thread[r] = mean_ns / n;
			total[r] = ops_per_ns * 1e3;
			/* the line moves one CPU at a time: the round's time over its moves */
			handoff[r] = moves > 0 ? wall / moves : wall;
		}
		/* invariant: the shared counter saw exactly the operations the threads counted */
		if (sum != atomic_load(&sh->counter))
			rc = -EIO;
	}
	if (!rc && (!ms_add(c, "atomic_contended", "ns", per_thread, rounds,
			    "%d threads (one per CPU) __atomic_fetch_add on one shared line for %ld ms rounds; ns "
			    "per op per thread (mean over threads) per round",
			    n, round_len.tv_nsec / 1000000L) ||
		    !ms_add(c, "atomic_contended_total", "Mop/s", total, rounds,
			    "same rounds as atomic_contended; total operations per second of all %d threads", n) ||
		    !ms_add(c, "atomic_handoff", "ns", handoff, rounds,
			    "same rounds as atomic_contended; the round's time over the times the line moved (an add "
			    "that did not follow this CPU's own last add): what one hand-off costs when the next "
			    "request is already waiting, to hold against line_atomic_* (an isolated transfer)")))
		rc = -ENOSPC;
	free(th);
	free(w);
	free(sh);
	return rc;
}

int ms_measure_atomics(struct ms_ctx *c)
{
	enum { OPS = 1000 };
	static _Alignas(MS_LINE) uint64_t word;
	static volatile uint64_t plain;
	int max = c->quick ? 200 : 2000, n;
	double *v = malloc((size_t)max * sizeof(*v));
	struct ms_budget b;

	if (!v)
		return -ENOMEM;
	ms_budget_init(&b, c, max, c->quick ? 0.02 : 0.1);
	for (n = 0; ms_budget_more(&b, n); n++) {
		uint64_t t0 = ms_now_ns(), t1;

		for (int i = 0; i < OPS; i++)
			__atomic_fetch_add(&word, 1, __ATOMIC_SEQ_CST);
		t1 = ms_now_ns();
		v[n] = ms_per_op(c, t0, t1, OPS);
	}
	if (!ms_add(c, "atomic_uncontended", "ns", v, n,
		    "__atomic_fetch_add (lock xadd) on a line this CPU holds; %d in a row; per op", OPS))
		goto nospc;
	ms_budget_init(&b, c, max, c->quick ? 0.02 : 0.1);
	for (n = 0; ms_budget_more(&b, n); n++) {
		uint64_t t0 = ms_now_ns(), t1;

		for (int i = 0; i < OPS; i++)
			plain = plain + 1;
		t1 = ms_now_ns();
		v[n] = ms_per_op(c, t0, t1, OPS);
	}
	if (!ms_add(c, "plain_rmw", "ns", v, n,
		    "plain load + add + store (volatile) on a line this CPU holds; %d in a row; per op", OPS))
		goto nospc;
	free(v);
	return ca_contended(c);
nospc:
	free(v);
	return -ENOSPC;
}

/* ---- PAUSE ------------------------------------------------------------------ */

int ms_measure_pause(struct ms_ctx *c)
{
#if defined(__x86_64__) || defined(__i386__) || defined(__aarch64__)
	enum { OPS = 1000 };
	int max = c->quick ? 100 : 1000, n;
	double *v = malloc((size_t)max * sizeof(*v));
	struct ms_budget b;

	if (!v)
		return -ENOMEM;
	ms_budget_init(&b, c, max, c->quick ? 0.02 : 0.1);
	for (n = 0; ms_budget_more(&b, n); n++) {
		uint64_t t0 = ms_now_ns(), t1;

		for (int i = 0; i < OPS; i++)
			ms_relax();
		t1 = ms_now_ns();
		v[n] = ms_per_op(c, t0, t1, OPS);
	}
	n = ms_add(c, "pause", "ns", v, n, "%d cpu_relax() (x86 PAUSE; arm64 YIELD) in a row; per instruction", OPS)
		? 0
		: -ENOSPC;
	free(v);
	return n;
#else
	return 0; /* no spin-wait hint here: the profile keeps the generic figure */
#endif
}

/* ---- frequency: a chain of dependent adds, one cycle each ---------------------- */

/*
 * x += y with y in a register: an add of an immediate can be folded at
 * rename on recent cores (Golden Cove), an add of a register cannot.
 */
#define FQ_ADD(x)                               \
	do {                                    \
		(x) += y;                       \
		__asm__ volatile("" : "+r"(x)); \
	} while (0)
#define FQ_ADD10(x)        \
	do {               \
		FQ_ADD(x); \
		FQ_ADD(x); \
		FQ_ADD(x); \
		FQ_ADD(x); \
		FQ_ADD(x); \
		FQ_ADD(x); \
		FQ_ADD(x); \
		FQ_ADD(x); \
		FQ_ADD(x); \
		FQ_ADD(x); \
	} while (0)
#define FQ_ITERS 5000
#define FQ_ADDS_PER_ITER 100

static uint64_t fq_chain(uint64_t x, uint64_t y)
{
	__asm__ volatile("" : "+r"(y)); /* y is unknown to the compiler: no constant folding */
	for (int i = 0; i < FQ_ITERS; i++) {
		FQ_ADD10(x);
		FQ_ADD10(x);
		FQ_ADD10(x);
		FQ_ADD10(x);
		FQ_ADD10(x);
		FQ_ADD10(x);
		FQ_ADD10(x);
		FQ_ADD10(x);
		FQ_ADD10(x);
		FQ_ADD10(x);
	}
	return x;
}

/* GHz of one sample: adds per ns, an add being one cycle */
static double fq_sample(const struct ms_ctx *c)
{
	uint64_t t0 = ms_now_ns(), t1;
	double ns;

	ms_sink = (uintptr_t)fq_chain(t0, 3);
	t1 = ms_now_ns();
	ns = ms_per_op(c, t0, t1, (double)FQ_ITERS * FQ_ADDS_PER_ITER);
	return ns > 0 ? 1.0 / ns : 0;
}

struct fq_worker {
	struct ms_ctx *c;
	atomic_int *gate;
	uint64_t deadline;
	int max, n;
	double *v;
};

static void *fq_run(void *arg)
{
	struct fq_worker *w = arg;

	while (!atomic_load_explicit(w->gate, memory_order_acquire))
		ms_relax();
	for (w->n = 0; w->n < w->max && (w->n < 5 || ms_now_ns() < w->deadline); w->n++)
		w->v[w->n] = fq_sample(w->c);
	return NULL;
}

int ms_measure_frequency(struct ms_ctx *c)
{
	int max = c->quick ? 30 : 300, ncpu = c->topo.ncpus, n, rc = 0, started = 0;
	double secs = c->quick ? 0.05 : 0.5;
	double *v = malloc((size_t)max * (size_t)ncpu * sizeof(*v));
	struct fq_worker *w = calloc((size_t)ncpu, sizeof(*w));
	struct ms_thread *th = calloc((size_t)ncpu, sizeof(*th));
	atomic_int gate = 0;
	struct ms_budget b;

	if (!v || !w || !th) {
		rc = -ENOMEM;
		goto out;
	}
	/* warm-up: let the clock ramp up before the first sample counts */
	for (uint64_t end = ms_now_ns() + (c->quick ? 20 : 100) * 1000000ull; ms_now_ns() < end;)
		fq_sample(c);
	ms_budget_init(&b, c, max, secs);
	for (n = 0; ms_budget_more(&b, n); n++)
		v[n] = fq_sample(c);
	if (!ms_add(c, "freq_1", "GHz", v, n,
		    "one CPU: a chain of %d dependent adds (one cycle each) per sample; adds per ns",
		    FQ_ITERS * FQ_ADDS_PER_ITER)) {
		rc = -ENOSPC;
		goto out;
	}
	for (int i = 0; i < ncpu && !rc; i++) {
		w[i] = (struct fq_worker){.c = c, .gate = &gate, .max = max, .v = v + (size_t)i * max};
		w[i].deadline = ms_now_ns() + (uint64_t)((secs + 0.1) * 1e9);
		rc = ms_spawn(&th[i], c, i, fq_run, &w[i]);
		started += !rc;
	}
	atomic_store(&gate, 1);
	for (int i = 0; i < started; i++)
		ms_join(&th[i]);
	if (rc)
		goto out;
	/* pool every thread's samples, packed */
	n = 0;
	for (int i = 0; i < ncpu; i++)
		for (int k = 0; k < w[i].n; k++)
			v[n++] = w[i].v[k];
	if (!ms_add(c, "freq_all", "GHz", v, n,
		    "all %d CPUs at once (%d cores) each running the freq_1 chain; samples of every CPU pooled", ncpu,
		    c->topo.ncores))
		rc = -ENOSPC;
out:
	free(th);
	free(w);
	free(v);
	return rc;
}

/* ---- a herd: N readers re-reading one line after a store -------------------- */

/*
 * The writer (CPU 0) stores a round number into a line that N readers, on N other cores of its
 * package (first hardware threads only: a sibling's load never reaches the line's home), are
 * spinning on; each reader takes the time as it sees the new value.  Per N, the median over
 * rounds of the last reader's time after the store.  If the line's home answered the readers'
 * loads at once, that time would not grow with N; its growth per reader is the home's time per
 * request, [coherence] serve_ns (the model: the k-th load of a batch k x serve_ns later), the
 * least-squares slope over N = 2, 3, ....  Needs three readers at least.
 */
#define HD_MAX_N 64
#define HD_MAX_ROUNDS 400

struct hd_shared {
	_Alignas(MS_LINE) volatile uint64_t word; /* the herd's line */
	_Alignas(MS_LINE) atomic_int ready;	  /* readers spinning on this round's word */
	_Alignas(MS_LINE) atomic_int done;	  /* readers that saw it */
	_Alignas(MS_LINE) atomic_int stop;
};

struct hd_reader {
	struct hd_shared *sh;
	_Alignas(MS_LINE) uint64_t seen_ns; /* its own line: when it saw the round */
	uint64_t round;
};

static void *hd_read(void *arg)
{
	struct hd_reader *r = arg;
	struct hd_shared *sh = r->sh;

	for (r->round = 1;; r->round++) {
		atomic_fetch_add_explicit(&sh->ready, 1, memory_order_acq_rel);
		while (sh->word < r->round)
			if (atomic_load_explicit(&sh->stop, memory_order_relaxed))
				return NULL;
		r->seen_ns = ms_now_ns();
		atomic_fetch_add_explicit(&sh->done, 1, memory_order_acq_rel);
		/* the writer moves on only once every reader is done */
		while (atomic_load_explicit(&sh->done, memory_order_acquire) != 0)
			if (atomic_load_explicit(&sh->stop, memory_order_relaxed))
				return NULL;
	}
}

/* The median time of the last of @n readers after a store, over @rounds rounds. */
static int hd_run(struct ms_ctx *c, const int *cpus, int n, int rounds, double *median_ns)
{
	struct hd_shared *sh = aligned_alloc(MS_LINE, sizeof(*sh));
	struct hd_reader *rd = aligned_alloc(MS_LINE, (size_t)n * sizeof(*rd));
	struct ms_thread th[HD_MAX_N];
	double last[HD_MAX_ROUNDS];
	struct ms_stats st;
	int started = 0, rc = 0, kept = 0;

	if (!sh || !rd) {
		free(sh);
		free(rd);
		return -ENOMEM;
	}
	memset(sh, 0, sizeof(*sh));
	memset(rd, 0, (size_t)n * sizeof(*rd));
	for (int i = 0; i < n && !rc; i++) {
		rd[i].sh = sh;
		rc = ms_spawn(&th[i], c, cpus[i], hd_read, &rd[i]);
		started += !rc;
	}
	for (int r = 1; !rc && r <= rounds; r++) {
		uint64_t t0, end = 0;

		while (atomic_load_explicit(&sh->ready, memory_order_acquire) < n)
			ms_relax();
		/* let every reader reach its spin on the word (it holds the line shared) */
		ms_spin_ns(2000);
		atomic_store_explicit(&sh->ready, 0, memory_order_relaxed);
		t0 = ms_now_ns();
		sh->word = (uint64_t)r;
		while (atomic_load_explicit(&sh->done, memory_order_acquire) < n)
			ms_relax();
		for (int i = 0; i < n; i++)
			end = rd[i].seen_ns > end ? rd[i].seen_ns : end;
		/* a reader preempted or descheduled says nothing of the line: left out (outliers) */
		last[kept++] = ms_per_op(c, t0, end, 1);
		atomic_store_explicit(&sh->done, 0, memory_order_release);
	}
	atomic_store(&sh->stop, 1);
	for (int i = 0; i < started; i++)
		ms_join(&th[i]);
	if (!rc) {
		ms_stats_of(last, kept, &st);
		*median_ns = st.median;
	}
	free(rd);
	free(sh);
	return rc;
}

int ms_measure_herd(struct ms_ctx *c)
{
	const struct topology *t = &c->topo;
	int cpus[HD_MAX_N], n = 0, rounds = c->quick ? 50 : HD_MAX_ROUNDS, rc = 0, np = 0;
	double ns[HD_MAX_N + 1], y[HD_MAX_N + 1], sx = 0, sy = 0, sxx = 0, sxy = 0, slope;

	/* readers: the first hardware thread of every other core of CPU 0's package */
	for (int i = 1; i < t->ncpus && n < HD_MAX_N; i++)
		if (t->cpu[i].smt_rank == 0 && t->cpu[i].core != t->cpu[0].core &&
		    t->cpu[i].package == t->cpu[0].package)
			cpus[n++] = i;
	if (n < 3 || !c->pinned) {
		fprintf(stderr,
			"mmsim-measure: the herd figures are left out: skipped, it needs 3 readers on other cores "
			"of CPU 0's package, pinned; this machine gives %d%s ([coherence] serve_ns left out: 0)\n",
			n, c->pinned ? "" : " and no binding");
		return 0;
	}
	/* one reader alone is no batch: the slope starts at two */
	for (int k = 2; k <= n && !rc; k++)
		rc = hd_run(c, cpus, k, rounds, &ns[k]);
	if (rc)
		return rc;
	for (int k = 2; k <= n; k++) {
		y[np++] = ns[k];
		sx += k;
		sy += ns[k];
		sxx += (double)k * k;
		sxy += k * ns[k];
	}
	slope = (np * sxy - sx * sy) / (np * sxx - sx * sx);
	if (slope < 0)
		slope = 0;
	if (!ms_add(c, "herd_last", "ns", y, np,
		    "a store to a line %d readers on other cores of one package spin on; per reader count 2 to %d the "
		    "median over %d rounds of the last reader's time after the store (samples: one per reader count)",
		    n, n, rounds) ||
	    !ms_add(c, "herd_serve", "ns", &slope, 1,
		    "least-squares slope of herd_last over the reader count 2 to %d: the line's home's time per "
		    "request ([coherence] serve_ns); herd_last at 2 readers %.1f ns and at %d %.1f ns",
		    n, ns[2], n, ns[n]))
		return -ENOSPC;
	return 0;
}

/* ---- how long a CPU keeps a contended line it was just given ------------------------------ */

/*
 * Another core (the first one not CPU 0's) adds to a line in a tight loop; CPU 0 times four
 * short sequences on that line, each sample after a pause that lets the line go back: one add,
 * a load and then an add that depends on it, two adds back to back, one load, by the time-stamp
 * counter.  Means of the samples within 3x the median, less the same sequences timed with no
 * other CPU on the line.  If the line stays with CPU 0 from its first access to its second, a
 * two-access sequence costs what its first access alone does (keep_after_load: load and add
 * against the load; keep_after_add: two adds against one; near 0); if a waiting request takes
 * it at once, one transfer more.  The model keeps a granted line for an RMW's [latency] atomic
 * after an RMW and one picosecond after a load (calibrate/README.md, caveats); these figures are
 * held against that, no profile key yet.
 */
#if defined(__x86_64__) || defined(__i386__)
struct kp_shared {
	_Alignas(MS_LINE) volatile uint64_t word;
	_Alignas(MS_LINE) atomic_int stop;
};

static void *kp_hammer(void *arg)
{
	struct kp_shared *sh = arg;

	while (!atomic_load_explicit(&sh->stop, memory_order_relaxed))
		for (int i = 0; i < 64; i++)
			__atomic_fetch_add(&sh->word, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

/* the time-stamp counter: clock_gettime's steps are too coarse for one transfer */
static inline uint64_t kp_ticks(void)
{
	unsigned aux;

	return __rdtscp(&aux);
}

/* ticks per ns, against CLOCK_MONOTONIC over @ms milliseconds */
static double kp_tick_rate(int ms)
{
	uint64_t n0 = ms_now_ns(), k0 = kp_ticks(), n1, k1;

	do
		n1 = ms_now_ns();
	while (n1 - n0 < (uint64_t)ms * 1000000u);
	k1 = kp_ticks();
	return (double)(k1 - k0) / (double)(n1 - n0);
}

/* The mean of @n samples, in ticks, of sequence @seq (0: add, 1: load then a dependent add,
 * 2: add, add, 3: load). */
static double kp_mean(struct kp_shared *sh, int seq, int n, double *v)
{
	struct ms_stats st;
	double sum = 0;
	int kept = 0;

	for (int i = 0; i < n; i++) {
		uint64_t t0, t1, x;

		t0 = kp_ticks();
		if (seq == 3) {
			x = sh->word;
			__asm__ volatile("" : : "r"(x));
		} else if (seq == 1) {
			x = sh->word;
			__atomic_fetch_add(&sh->word, x & 1, __ATOMIC_SEQ_CST);
		} else {
			__atomic_fetch_add(&sh->word, 1, __ATOMIC_SEQ_CST);
			if (seq == 2)
				__atomic_fetch_add(&sh->word, 1, __ATOMIC_SEQ_CST);
		}
		t1 = kp_ticks();
		v[i] = (double)(t1 - t0);
		/* about a microsecond away, so the next sample starts with the line elsewhere */
		ms_spin_ns(1000);
	}
	/* the mean of the samples within 3x the median: a VM's counter can step by tens of ticks,
	 * which a median keeps and a mean averages out; a sample that lost the CPU is left out */
	ms_stats_of(v, n, &st);
	for (int i = 0; i < n; i++)
		if (v[i] <= 3 * st.median) {
			sum += v[i];
			kept++;
		}
	return kept ? sum / kept : st.median;
}
#define KP_TICKS 1
#else
#define KP_TICKS 0
#endif

int ms_measure_keep(struct ms_ctx *c)
{
	const struct topology *t = &c->topo;
	int other = -1;

	for (int i = 1; i < t->ncpus && other < 0; i++)
		if (t->cpu[i].core != t->cpu[0].core)
			other = i;
	if (other < 0 || !c->pinned || !KP_TICKS) {
		fprintf(stderr,
			"mmsim-measure: the keep figures are left out: skipped, it needs a CPU on another core than "
			"CPU 0's, pinned, and x86's time-stamp counter; this machine gives %s\n",
			!KP_TICKS   ? "no time-stamp counter"
			: other < 0 ? "no other core"
				    : "no binding");
		return 0;
	}
#if KP_TICKS
	int n = c->quick ? 2000 : 20000, rc;
	struct kp_shared *sh = aligned_alloc(MS_LINE, sizeof(*sh));
	struct ms_thread th;
	double alone[4], busy[4], keep_load, keep_add, rate, *v;

	v = malloc((size_t)n * sizeof(*v));
	if (!sh || !v) {
		free(sh);
		free(v);
		return -ENOMEM;
	}
	memset(sh, 0, sizeof(*sh));
	rate = kp_tick_rate(c->quick ? 10 : 50);
	for (int s = 0; s < 4; s++)
		alone[s] = kp_mean(sh, s, n, v) / rate;
	rc = ms_spawn(&th, c, other, kp_hammer, sh);
	if (!rc) {
		/* let the other CPU take the line and keep asking for it */
		ms_spin_ns(1000000);
		for (int s = 0; s < 4; s++)
			busy[s] = kp_mean(sh, s, n, v) / rate;
		atomic_store(&sh->stop, 1);
		ms_join(&th);
	}
	free(v);
	free(sh);
	if (rc)
		return rc;
	/* what the second access adds to the first's miss, over what it costs alone */
	keep_load = (busy[1] - alone[1]) - (busy[3] - alone[3]);
	keep_add = (busy[2] - alone[2]) - (busy[0] - alone[0]);
	if (!ms_add(c, "keep_add", "ns", &busy[0], 1,
		    "CPU %d adds to a line in a tight loop; CPU 0's one atomic add on it, mean of %d samples a "
		    "microsecond apart, timed by the time-stamp counter (alone: %.1f ns)",
		    other, n, alone[0]) ||
	    !ms_add(c, "keep_after_load", "ns", &keep_load, 1,
		    "same line and CPUs: a load, then an add that depends on it, less the load alone, each less "
		    "its time alone (means of %d: %.1f and %.1f ns contended): about 0 if the add finds the line "
		    "the load brought, about one transfer if a waiting request took it first",
		    n, busy[1], busy[3]) ||
	    !ms_add(c, "keep_after_add", "ns", &keep_add, 1,
		    "same line and CPUs: two adds back to back, less one add, each less its time alone (means "
		    "of %d: %.1f and %.1f ns contended): about 0 if the second add finds the line",
		    n, busy[2], busy[0]))
		return -ENOSPC;
	return 0;
#else
	return 0; /* not reached: said left out above */
#endif
}
