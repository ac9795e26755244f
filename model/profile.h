/* SPDX-License-Identifier: MIT */
/*
 * Profiles: INI files (read with libinih) that describe a machine
 * ("hardware profile") or a kernel version ("kernel profile").
 *
 * Every key of a shipped profile is preceded by one or more '#' lines that
 * say where its number comes from; the loader keeps that text as the
 * entry's provenance.  A provenance line may carry a tag in brackets:
 *   [measured]  a published or local measurement of this quantity
 *   [vendor]    a vendor specification
 *   [derived]   computed from other cited numbers (the line says how)
 *   [assumed]   a modelling assumption nobody measured
 *   [fitted]    set from a measured result (the line says which)
 * --sensitivity varies every numeric entry tagged [assumed] or [fitted].
 *
 * The typed views (struct hw_profile, struct kernel_profile) are derived
 * from the entry table, so a sensitivity run can scale one entry and
 * derive the views again.
 */
#ifndef MMSIM_PROFILE_H
#define MMSIM_PROFILE_H

#include <stdint.h>
#include "mm_error.h"
#include "topology.h"

enum prof_tag { PROF_UNTAGGED = 0, PROF_MEASURED, PROF_VENDOR, PROF_DERIVED, PROF_ASSUMED, PROF_FITTED };

struct prof_entry {
	char section[48];
	char key[64];
	char value[256];
	double num; /* value as a number, when is_num */
	int is_num;
	int line, col; /* line in the file and column of the key, for errors */
	enum prof_tag tag;
	char note[1024]; /* the provenance comment lines, joined ('...' at the end: cut) */
};

struct profile {
	char path[4096]; /* file path, or "builtin:NAME" */
	char name[64];
	int nentries, cap;
	struct prof_entry *e;
};

/* Parse INI text; @origin names it in messages ("data/machines/x.conf"). */
int profile_parse(struct profile *p, const char *origin, const char *text, struct mm_error *err);
/* Load a profile by builtin name (@kind is "machines" or "kernels") or by file path. */
int profile_load(struct profile *p, const char *kind, const char *name_or_path, struct mm_error *err);
int profile_copy(struct profile *dst, const struct profile *src);
void profile_free(struct profile *p);
/* Length of the decimal number that starts @s ([+-]DIGITS[.DIGITS][e[+-]DIGITS]), 0 if none:
 * strtod() alone would also take hex, "inf" and "nan", which no mmsim input means. */
size_t profile_decimal_len(const char *s);
/* Read a whole text file (at most 16 MiB) into a malloc()ed string. */
int mm_read_text_file(const char *path, char **out, struct mm_error *err);

struct prof_entry *profile_find(const struct profile *p, const char *section, const char *key);
/* Of the @n names @names, the one nearest @name by edit distance (Damerau: a swap of two
 * neighbours is one edit), or NULL when none is close enough to be what was meant. */
const char *profile_nearest_name(const char *name, const char *const *names, int n);
/* " (did you mean 'NAME'?)" in @buf for the nearest of @names, or "" when none is close. */
const char *profile_did_you_mean(char *buf, size_t cap, const char *name, const char *const *names, int n);
const char *prof_tag_name(enum prof_tag t);

/* The names of the builtin profiles of a kind, NULL-terminated. */
const char *const *profile_builtin_names(const char *kind);
const char *profile_builtin_text(const char *kind, const char *name);

/* ---- hardware profile --------------------------------------------------- */

enum arb_policy { ARB_FIFO = 0, ARB_LOCAL_FIRST };

#define HW_MAX_FREQ 32

struct hw_profile {
	char name[64];
	char description[256];
	char topology[256]; /* "generic", "local", "xml:PATH" or an hwloc synthetic string */
	/* [machine] package_hops: npkg_hops rows of hops between packages (0, 1, 2), row-major, on
	 * the file's line pkg_hops_line; npkg_hops 0: not given, every other package is 1 hop */
	int npkg_hops, pkg_hops_line;
	uint8_t pkg_hops[TOPO_MAX_HOP_PACKAGES * TOPO_MAX_HOP_PACKAGES];
	int64_t lat_ps[TOPO_NDIST];	     /* line transfer from a CPU at that distance (SELF = L1 hit) */
	int64_t mem_local_ps, mem_remote_ps; /* line fetched from DRAM of the local / another node */
	int64_t atomic_ps;		     /* extra cost of a locked RMW on a line already held */
	int home_snoop; /* cross-L3 transfers on a package other than the line's home cost remote */
	enum arb_policy arbitration;
	int batch_limit;    /* local-first: grants that may bypass the oldest request in a row */
	int64_t serve_ps;   /* the line's home per request for it: loads granted together are answered
			     * one after another (0: all at once, the default) */
	double bw_node_gbs; /* DRAM bandwidth of one NUMA node, all cores */
	double bw_task_gbs; /* what one task can draw alone */
	int nfreq;
	int freq_cores[HW_MAX_FREQ];
	double freq_ghz[HW_MAX_FREQ]; /* frequency when that many cores (or fewer) are active */
	double smt_factor;	      /* work stretches by this when the sibling thread is busy */
	double corun_factor;	      /* work stretches by this when every other CPU is busy (1: not modelled) */
	double cost_scale;	      /* cycles here per cycle of the kernel profile's [costs] (1: as written) */
	int64_t pause_ps;	      /* cpu_relax(): reaction delay of a spinner after an invalidation */
	int64_t wakeup_ps;	      /* from wake_up_process() to the woken task running */
	int64_t ipi_ps;		      /* IPI round trip: send, remote handler entry, acknowledgement */
	int64_t wake_step_ps;	      /* waker's cost per task it wakes (try_to_wake_up) */
	int64_t sched_out_ps;	      /* schedule() on the CPU as a task goes to sleep */
	int64_t sched_in_ps;	      /* the end of a wake-up's latency: the woken task on its CPU again */
	double jitter;		      /* +- relative variation of compute steps (breaks lock-step artifacts) */
	double op_jitter; /* +- relative variation of a whole operation's compute steps, drawn per operation */
	double llc_bytes; /* last-level cache of one L3 domain; 0: not given (no step goes cold) */
};

/* Derive the hardware view; errors name the file and line of a bad entry. */
int hw_profile_derive(struct hw_profile *hw, const struct profile *p, struct mm_error *err);
double hw_freq_ghz(const struct hw_profile *hw, int active_cores);

/* ---- kernel profile ----------------------------------------------------- */

struct kernel_profile {
	char name[64];
	char version[32];
	char spinlock[32];	 /* lock design of spinlock_t (lock.h: lock_check_kernel) */
	char rwsem[32];		 /* lock design of rw_semaphore: "rwsem" */
	char rwsem_era[32];	 /* "3.x", "5.3", "5.11", "6.x": which rwsem behaviours exist */
	char vma_lock[32];	 /* "vma_lock" or "none" */
	const struct profile *p; /* [layout], [batch] and [costs] are looked up here */
	int names_checked;	 /* its keys were checked against every scenario of the run
				  * (scenario_check_kernel_names); scenario_compile need not */
};

/* Checks [kernel], [layout], [batch], [costs] and [misses]; any other section is left to the lock
 * layer (a lock design's keys: lock.h, lock_check_kernel), which refuses what no design knows. */
int kernel_profile_derive(struct kernel_profile *k, const struct profile *p, struct mm_error *err);
/* The sections kernel_profile_derive() checks itself. */
#define KERNEL_SECTIONS "kernel, layout, batch, costs, misses"
int kernel_section_known(const char *section);
/* A kernel version as profiles and scenarios write it: MAJOR.MINOR, decimal ("6.6", "5.11"). */
int profile_is_version(const char *s);
/* A named cost in cycles; returns 0 and sets *cycles, or MM_ENOENT. */
int kernel_cost_cycles(const struct kernel_profile *k, const char *name, double *cycles);
/* A named [misses] entry: accesses that go to DRAM when the step runs cold; 0 or MM_ENOENT. */
int kernel_misses(const struct kernel_profile *k, const char *name, double *n);
/* A named batch size; returns 0 and sets *n, or MM_ENOENT. */
int kernel_batch(const struct kernel_profile *k, const char *name, int64_t *n);
/* The line a field lives on ([layout] FIELD = LINE), or the field itself. */
const char *kernel_line_of(const struct kernel_profile *k, const char *field);

#endif
