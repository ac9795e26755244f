/* SPDX-License-Identifier: MIT */
/*
 * The cache-line model: who holds a line, who waits for it, in which order
 * requests are granted and what each transfer costs.  It keeps state and
 * answers questions; it schedules nothing (the simulation does, see sim.c),
 * so it does not know the engine.
 *
 * Assumptions (README, "The coherence model"):
 * - A line has a home NUMA node (where its memory is), at most one owner
 *   holding it exclusive (M/E), or a set of sharers (S).
 * - Ownership is granted one request at a time.  A transfer occupies the
 *   line from the grant until the data arrives; the next grant starts when
 *   it has arrived.  So N CPUs storing to one line in a closed loop under
 *   fifo with a uniform latency L saturate at 1/L grants per second.
 * - fifo grants in arrival order.  local-first grants the pending request
 *   nearest to the CPU that received the line last, oldest first among
 *   equals, but after batch_limit grants in a row that bypassed the oldest
 *   request it serves the oldest: real interconnects favour nearby
 *   requesters, with some bound on unfairness.
 * - A load granted together with every other load queued before the first
 *   exclusive request: read misses are served concurrently, except that the
 *   line's home answers requests for it one at a time when the profile says
 *   how long one takes ([coherence] serve_ns): the k-th load of a batch that
 *   goes through the home (not one its own core's sibling answers) gets its
 *   data (k - 1) x serve_ns after its transfer time (coh_home_wait_ps).  This
 *   is what makes a ticket-lock herd cost more with more waiters (Boyd-Wickizer
 *   et al. 2012); with serve_ns 0, the default, it costs the same for 4 as for
 *   200.
 * - Cost of a transfer = the latency of the distance class between the
 *   source and the requester (another package one hop away: remote; two
 *   hops, on a machine whose profile gives package_hops: remote_far).  Source: the owner; for a load of a shared
 *   line, the nearest sharer; for an exclusive request on a shared line,
 *   the farthest sharer (all copies must be invalidated); memory when no
 *   cache holds it.  With home_snoop (two-socket AMD), a transfer between
 *   two L3 domains of a package that is not the line's home costs the
 *   remote latency, because the request goes through the home directory.
 * - Stores are posted (store buffer): the simulation lets the task run on
 *   and makes it wait only at its next locked operation or fence.
 */
#ifndef MMSIM_COHERENCE_H
#define MMSIM_COHERENCE_H

#include <stdint.h>
#include "profile.h"
#include "topology.h"

enum coh_op { COH_LOAD = 0, COH_STORE, COH_RMW, COH_PREFETCHW };

static inline int coh_exclusive(int op)
{
	return op != COH_LOAD;
}

/* The lists a queued request is on: the line's queue in arrival order, and
 * (for a long local-first queue) the requests from its core, L3 and package. */
enum { COH_LIST_ALL = 0, COH_LIST_CORE, COH_LIST_L3, COH_LIST_PKG, COH_NLISTS };

struct coh_req {
	int32_t task;
	int32_t cpu;
	int32_t op;
	int32_t source;	  /* where its grant came from (coh_source), set by the runtime */
	int64_t extra_ps; /* added to this request's transfer time (e.g. a spinner's pause) */
	/* kept by coherence.c while the request is queued; zero it before first use */
	int32_t queued;
	int32_t qcpu;		     /* cpu when it was queued */
	uint64_t seq;		     /* arrival number on its line (which of two requests is older) */
	int32_t link[COH_NLISTS][2]; /* next, prev request index in each list, or -1 */
};

struct coh_line {
	int32_t home;	   /* NUMA node */
	int32_t owner;	   /* CPU holding it exclusive, or -1 */
	int32_t last;	   /* CPU that received the last grant, or -1 */
	int32_t nsharers;  /* when owner < 0 */
	int32_t solo;	   /* without a bitset: the one sharer, if nsharers is 1 */
	uint64_t *sharers; /* bitset over CPUs, made when a second CPU shares the line; else NULL */
	/*
	 * Pending requests, linked through the request pool in arrival order.
	 * Once a local-first queue has been long, @dom also lists them by the
	 * core, L3 and package they come from (a head and a tail per domain), so
	 * that the nearest-oldest request is found without a scan; built then
	 * and only then, because most lines never have a long queue.
	 */
	int32_t qends[2];  /* first and last pending request, or -1 */
	int32_t unindexed; /* with @dom: first request not yet in its domain lists, or -1 */
	int32_t qlen;
	int32_t *dom;
	uint64_t nqueued; /* requests ever queued: the next one's seq */
	int32_t busy;	  /* a transfer is in flight */
	int32_t bypass;	  /* local-first: consecutive grants that skipped the oldest */
	uint64_t grants, transfers, mem_fetches;
	int64_t transfer_ps; /* sum of transfer times */
};

struct coh_model {
	const struct topology *topo;
	int nwords;				  /* 64-bit words per CPU bitset */
	uint64_t *core_mask, *l3_mask, *pkg_mask; /* one bitset per core / L3 / package */
	int *pkg_of_node;			  /* package holding each NUMA node */
	/* with a hop matrix (topology pkg_hops), one bitset per package: the CPUs of the packages
	 * one hop away and of those two hops away; NULL without */
	uint64_t *near_mask, *far_mask;
	int64_t lat_ps[TOPO_NDIST];
	int64_t mem_local_ps, mem_remote_ps;
	int home_snoop;
	int64_t serve_ps; /* the home's time per request for one line (serve_ns): a batch of loads */
	enum arb_policy policy;
	int batch_limit;
};

int coh_model_init(struct coh_model *m, const struct topology *topo, const struct hw_profile *hw);
void coh_model_free(struct coh_model *m);

/* The line starts in memory.  coh_line_free() frees what a line has made. */
void coh_line_init(const struct coh_model *m, struct coh_line *l, int home);
void coh_line_free(struct coh_line *l);

/* Can @cpu perform @op without a transfer? */
int coh_holds(const struct coh_model *m, const struct coh_line *l, int cpu, int op);

/* Where @cpu's @op on the line is served from, given its present state: the distance class
 * (enum topo_dist) from the CPU that supplies it, or memory, the CPU's own node or another. */
enum { COH_FROM_MEMORY = TOPO_NDIST, COH_FROM_REMOTE_MEMORY, COH_NSOURCES };
int coh_source(const struct coh_model *m, const struct coh_line *l, int cpu, int op);
/* What a transfer from @source (coh_source) costs. */
int64_t coh_source_ps(const struct coh_model *m, int source);
/* Transfer time for @cpu's @op given the line's present state. */
int64_t coh_cost_ps(const struct coh_model *m, const struct coh_line *l, int cpu, int op);

/* The line's new state once @op by @cpu is granted.  0, or MM_ENOMEM (for a sharer set). */
int coh_apply(const struct coh_model *m, struct coh_line *l, int cpu, int op);

/* Distance class between two CPUs for a line homed at @home. */
enum topo_dist coh_dist(const struct coh_model *m, int from, int to, int home);

/* What the @k-th request (from 0) of a batch of loads that reach the line's home waits there for
 * the ones before it: k x serve_ps.  A load from @source TOPO_SMT or nearer never reaches it;
 * *k counts those that do. */
static inline int64_t coh_home_wait_ps(const struct coh_model *m, int source, int *k)
{
	if (source <= TOPO_SMT)
		return 0;
	return (int64_t)(*k)++ * m->serve_ps;
}

/* Queue @idx (an entry of @pool) on the line, in arrival order.  0 or MM_ENOMEM. */
int coh_enqueue(struct coh_line *l, struct coh_req *pool, int32_t idx);

/*
 * Choose what to grant next by the model's policy and take it off the
 * queue: one exclusive request, or a load with every load queued before
 * the first exclusive request.  Writes up to @max request indices to @out
 * and returns how many (0 if the queue is empty).
 */
int coh_pick(const struct coh_model *m, struct coh_line *l, struct coh_req *pool, int32_t *out, int max);

#endif
