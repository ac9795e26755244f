/* SPDX-License-Identifier: MIT */
/*
 * mmsim reproduce seeds' seed 003 cells (src/reproduce.c): the per-page prefault time it holds
 * against the seed's does not depend on the size of the region simulated, so simulating 16 MiB
 * stands for the seed's 2, 128 and 4096 MiB; and it counts the prefaults, not the mmap, the
 * discards between them or the munmap.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>

#include "reproduce.h"

static const struct reproduce_opts opts = {.seed = 1};

static double per_page_scaled(const char *variant, double pages, const char *cost, double factor)
{
	struct mm_error err = {0};
	double sec = 0;

	if (reproduce_s3_per_page(variant, pages, cost, factor, &opts, &sec, &err))
		fail_msg("%s at %g pages: %s", variant, pages, err.msg);
	return sec;
}

static double per_page(const char *variant, double pages)
{
	return per_page_scaled(variant, pages, NULL, 1);
}

/* One variant per kind of round: every page faulting (anonymous), fault-around over cached pages
 * in rounds 2-10 (shared anonymous), a fault and its VM_FAULT_RETRY (shared memfd), no fault after
 * round 1 (private memfd), and 2 MiB pages through GUP (hugetlb) */
static void test_per_page_time_does_not_depend_on_the_size(void **state)
{
	static const char *variants[] = {"prefault_anon_private_touch_read", "prefault_anon_shared_touch_read",
					 "prefault_memfd_shared_touch_write", "prefault_memfd_private_populate_write",
					 "prefault_hugetlb_shared_populate_read"};

	(void)state;
	for (size_t i = 0; i < sizeof(variants) / sizeof(variants[0]); i++) {
		double small = per_page(variants[i], 4096), big = per_page(variants[i], 32768);

		print_message("%-40s %.4g ns a page at 16 MiB, %.4g at 128 MiB (%+.2f%%)\n", variants[i], small * 1e9,
			      big * 1e9, 100 * (small - big) / big);
		assert_true(small > 0 && big > 0);
		assert_true(fabs(small - big) <= 0.005 * big);
	}
}

/* Only the prefaults are timed: ten times the cost of the mmap, of the discards' zapping and
 * freeing or of the munmap leaves the per-page time as it was; ten times a prefault's step does not */
static void test_discards_are_not_timed(void **state)
{
	static const char *untimed[] = {"mmap_region", "zap_pte", "free_page", "munmap_detach", "tlb_flush_local"};
	const char *v = "prefault_anon_private_touch_read";
	double base = per_page(v, 4096), more;

	(void)state;
	for (size_t i = 0; i < sizeof(untimed) / sizeof(untimed[0]); i++) {
		more = per_page_scaled(v, 4096, untimed[i], 10);
		print_message("%s x10: %.6g ns a page, %.6g before\n", untimed[i], more * 1e9, base * 1e9);
		assert_true(fabs(more - base) <= 1e-6 * base);
	}
	more = per_page_scaled(v, 4096, "set_pte_zero", 10);
	print_message("set_pte_zero x10: %.6g ns a page\n", more * 1e9);
	assert_true(more > 1.05 * base);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_per_page_time_does_not_depend_on_the_size),
	    cmocka_unit_test(test_discards_are_not_timed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
