/* SPDX-License-Identifier: MIT */
#include "engine.h"
#include "mm_error.h"

#include <stdlib.h>
#include <string.h>

static int before(const struct engine_event *x, const struct engine_event *y)
{
	return x->time < y->time || (x->time == y->time && x->seq < y->seq);
}

int engine_init(struct engine *e, size_t cap_hint)
{
	memset(e, 0, sizeof(*e));
	e->cap = cap_hint < 16 ? 16 : cap_hint;
	e->heap = malloc(e->cap * sizeof(*e->heap));
	return e->heap ? 0 : MM_ENOMEM;
}

void engine_free(struct engine *e)
{
	free(e->heap);
	memset(e, 0, sizeof(*e));
}

int engine_schedule(struct engine *e, sim_time_t at, int32_t kind, int32_t a, int64_t b)
{
	struct engine_event ev = {at, e->next_seq++, kind, a, b};
	size_t i;

	if (at < e->now)
		return MM_EINVAL; /* the past cannot be changed */
	if (e->n == e->cap) {
		size_t cap = e->cap * 2;
		struct engine_event *h = realloc(e->heap, cap * sizeof(*h));

		if (!h)
			return MM_ENOMEM;
		e->heap = h;
		e->cap = cap;
	}
	/* sift up */
	i = e->n++;
	while (i > 0) {
		size_t parent = (i - 1) / 2;

		if (!before(&ev, &e->heap[parent]))
			break;
		e->heap[i] = e->heap[parent];
		i = parent;
	}
	e->heap[i] = ev;
	return 0;
}

int engine_next(struct engine *e, struct engine_event *out)
{
	struct engine_event last;
	size_t i = 0;

	if (!e->n)
		return 0;
	*out = e->heap[0];
	last = e->heap[--e->n];
	/* sift the last element down from the root */
	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= e->n)
			break;
		if (c + 1 < e->n && before(&e->heap[c + 1], &e->heap[c]))
			c++;
		if (!before(&e->heap[c], &last))
			break;
		e->heap[i] = e->heap[c];
		i = c;
	}
	if (e->n)
		e->heap[i] = last;
	e->now = out->time;
	e->delivered++;
	return 1;
}
