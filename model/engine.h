/* SPDX-License-Identifier: MIT */
/*
 * The discrete-event core.  Time is an integer number of picoseconds, so a
 * run is exact and repeatable.  Events with the same time are delivered in
 * the order they were scheduled (a sequence number breaks ties), which makes
 * every run deterministic.  The engine knows nothing of what an event means:
 * @kind and the two arguments are the model's.  There is no global state:
 * one struct engine per simulation, so many run side by side.
 */
#ifndef MMSIM_ENGINE_H
#define MMSIM_ENGINE_H

#include <stddef.h>
#include <stdint.h>

typedef int64_t sim_time_t; /* picoseconds */

#define SIM_PS_PER_NS 1000LL
#define SIM_PS_PER_S 1000000000000LL
#define SIM_TIME_MAX INT64_MAX

struct engine_event {
	sim_time_t time;
	uint64_t seq;
	int32_t kind;
	int32_t a;
	int64_t b;
};

struct engine {
	struct engine_event *heap; /* binary min-heap on (time, seq) */
	size_t n, cap;
	uint64_t next_seq;
	sim_time_t now;
	uint64_t delivered;
};

/* Preallocate room for @cap_hint pending events (it grows if needed). */
int engine_init(struct engine *e, size_t cap_hint);
void engine_free(struct engine *e);

/* Schedule an event at absolute time @at (>= now).  0 or MM_ENOMEM/MM_EINVAL. */
int engine_schedule(struct engine *e, sim_time_t at, int32_t kind, int32_t a, int64_t b);

/* Take the earliest event, advance the clock to it; 0 when none is left. */
int engine_next(struct engine *e, struct engine_event *out);

static inline sim_time_t engine_now(const struct engine *e)
{
	return e->now;
}

#endif
