/* SPDX-License-Identifier: MIT */
/*
 * wis: a small will-it-scale-like harness for the mmsim validation
 * benchmarks.  Written from the behaviour described in
 * shared/reference/willitscale.md; no will-it-scale code is used.
 *
 * A benchmark is one file that fills a struct wis_bench and calls
 * wis_main().  The harness starts N tasks (threads of one process or
 * forked processes), pins them, releases them together through a gate,
 * samples their per-task operation counters and writes will-it-scale's
 * CSV with machine metadata.
 */
#ifndef WIS_H
#define WIS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* MADV_POPULATE_READ/WRITE (Linux 5.14) for headers older than the kernel */
#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

#define WIS_PAGE_BYTES 4096UL
#define WIS_MIB (1024UL * 1024UL)

/* Exit codes shared by every wis_* executable. */
enum wis_exit {
	WIS_EXIT_OK = 0,
	WIS_EXIT_ERROR = 1,	 /* a run failed */
	WIS_EXIT_REFUSED = 2,	 /* bad usage or unsafe request */
	WIS_EXIT_TIME_LIMIT = 3, /* --time-limit reached */
	WIS_EXIT_SKIPPED = 77,	 /* cannot run on this machine */
};

/* What a task sees.  Owned by the harness. */
struct wis_task {
	unsigned int index; /* 0 .. nr_tasks - 1 */
	unsigned int nr_tasks;
	int threads;		  /* 1: threads of one process, 0: processes */
	volatile uint64_t *ops;	  /* this task's counter, own 256-byte slot */
	const volatile int *stop; /* non-zero: return from run() soon */
	uint64_t ops_limit;	  /* non-zero: return once *ops reaches it */
	volatile int64_t *info;	  /* benchmark-defined value reported back */
	void *priv;		  /* benchmark's per-task state */
};

/* True when the task's run() should return. */
static inline int wis_should_stop(const struct wis_task *t)
{
	return *t->stop || (t->ops_limit && *t->ops >= t->ops_limit);
}

/* One benchmark-specific option; shown by --help. */
struct wis_opt {
	const char *name; /* without the leading "--" */
	const char *arg;  /* metavariable, NULL for a flag */
	const char *help; /* one line, with the default */
};

struct wis_bench {
	const char *name;	   /* e.g. "page_fault1" */
	const char *description;   /* one line */
	const char *op_definition; /* what one counted operation is */
	uint64_t task_bytes;	   /* memory footprint of one task */
	int uses_tmpfile;	   /* needs task_bytes of free space in $TMPDIR */
	/*
	 * Rate benchmarks (fixed_ops == 0) loop until stopped and are
	 * reported as ops/s.  Fixed-work benchmarks do fixed_ops per task and
	 * are reported by makespan (ops/s column = all ops / makespan).
	 */
	uint64_t fixed_ops;
	uint64_t counts_ops;	    /* ops per task in a --counts run (rate) */
	const struct wis_opt *opts; /* NULL-terminated, may be NULL */
	/* 0 on success, -EINVAL for a bad value. */
	int (*set_opt)(const char *name, const char *value);
	/*
	 * 0: can run; 1: cannot run here, reason in why; negative: error,
	 * reason in why.  Called once in the parent, before any task exists.
	 */
	int (*check)(char *why, size_t why_len);
	void (*describe)(FILE *f); /* extra "# key: value" lines */
	/* In the task, before the gate.  0 or a negative errno. */
	int (*setup)(struct wis_task *t);
	/* The measured loop.  0 or a negative errno. */
	int (*run)(struct wis_task *t);
	/* In the task, after every task finished run(). */
	void (*teardown)(struct wis_task *t);
};

int wis_main(const struct wis_bench *b, int argc, char **argv);

/*
 * Create an unlinked temporary file of size_bytes in $TMPDIR (or /tmp).
 * Returns the descriptor or a negative errno.
 */
int wis_tmpfile(uint64_t size_bytes);

/* The directory wis_tmpfile() uses. */
const char *wis_tmpdir(void);

/*
 * Try madvise(@advice) on a 2 MiB private anonymous scratch mapping, as a check() does before
 * any task exists: 0, or the errno of the madvise (or of the mmap).
 */
int wis_probe_madvise(int advice);
/* A benchmark's check() of MADV_POPULATE_READ or _WRITE (5.14+): 0 when the kernel takes it; 1 with
 * the reason in @why when it refuses it (EINVAL: skip the benchmark); -1 with the error otherwise. */
int wis_check_madv_populate(int advice, char *why, size_t len);

#endif /* WIS_H */
