/* SPDX-License-Identifier: MIT */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>

#include "engine.h"
#include "mm_error.h"

static void events_come_out_in_time_order(void **state)
{
	struct engine e;
	struct engine_event ev;
	uint64_t x = 12345;
	sim_time_t last = -1;

	assert_int_equal(engine_init(&e, 4), 0); /* grows past its hint */
	for (int i = 0; i < 10000; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		assert_int_equal(engine_schedule(&e, (sim_time_t)(x >> 40), 0, i, 0), 0);
	}
	for (int i = 0; i < 10000; i++) {
		assert_int_equal(engine_next(&e, &ev), 1);
		assert_true(ev.time >= last);
		assert_int_equal(engine_now(&e), ev.time);
		last = ev.time;
	}
	assert_int_equal(engine_next(&e, &ev), 0);
	assert_int_equal(e.delivered, 10000);
	engine_free(&e);
}

static void ties_break_in_scheduling_order(void **state)
{
	struct engine e;
	struct engine_event ev;

	assert_int_equal(engine_init(&e, 16), 0);
	for (int i = 0; i < 100; i++)
		assert_int_equal(engine_schedule(&e, (i % 3) * 10, 0, i, 0), 0);
	/* time 0: 0,3,6,...; time 10: 1,4,7,...; time 20: 2,5,8,... */
	for (int t = 0; t < 3; t++)
		for (int i = t; i < 100; i += 3) {
			assert_int_equal(engine_next(&e, &ev), 1);
			assert_int_equal(ev.time, t * 10);
			assert_int_equal(ev.a, i);
		}
	engine_free(&e);
}

static void the_past_cannot_be_scheduled(void **state)
{
	struct engine e;
	struct engine_event ev;

	assert_int_equal(engine_init(&e, 16), 0);
	assert_int_equal(engine_schedule(&e, 100, 1, 0, 0), 0);
	assert_int_equal(engine_next(&e, &ev), 1);
	assert_int_equal(engine_schedule(&e, 99, 1, 0, 0), MM_EINVAL);
	assert_int_equal(engine_schedule(&e, 100, 1, 0, 0), 0); /* now is allowed */
	engine_free(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(events_come_out_in_time_order),
	    cmocka_unit_test(ties_break_in_scheduling_order),
	    cmocka_unit_test(the_past_cannot_be_scheduled),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
