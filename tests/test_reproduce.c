/* SPDX-License-Identifier: MIT */
/*
 * mmsim reproduce seeds' seed 003 cells (src/reproduce.c): the per-page prefault time it holds
 * against the seed's does not depend on the size of the region simulated, so simulating 16 MiB
 * stands for the seed's 2, 128 and 4096 MiB; and it counts the prefaults, not the mmap, the
 * discards between them or the munmap.  Its sensitivity section (which CI leaves out with
 * --no-sensitivity): the numbers it varies, and a kernel's or a machine's number scaled as it
 * scales them reaching the simulation.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "reproduce.h"

static const struct reproduce_opts opts = {.seed = 1};

static double per_page_scaled(const char *variant, double pages, const char *number, double factor)
{
	struct mm_error err = {0};
	double sec = 0;

	if (reproduce_s3_per_page(variant, pages, number, factor, &opts, &sec, &err))
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

static int has_line(const char *list, const char *line)
{
	size_t n = strlen(line);

	for (const char *l = list; *l; l = strchr(l, '\n') + 1)
		if (!strncmp(l, line, n) && l[n] == '\n')
			return 1;
	return 0;
}

/* The numbers the sensitivity section varies for seed 001's after-patch point (CI runs reproduce
 * seeds with --no-sensitivity: these ~100 simulations at 96 threads are most of its time): the
 * machine's and the kernel's [assumed] numbers the variant's steps reach, not the measured ones, not
 * the jitter, not a cost the variant never names; and none for a point the section does not show */
static void test_sensitivity_items(void **state)
{
	static const char *in[] = {"machine [latency] memory_local", "machine [frequency] 48",
				   "machine [cpu] wakeup_ns", "kernel [costs] lock_vma_rcu",
				   "kernel [costs] handle_mm_fault"};
	static const char *out[] = {"machine [latency] remote", "machine [latency] l3", "machine [cpu] jitter",
				    "kernel [costs] thp_alloc", "kernel [costs] gup_present_page"};
	struct mm_error err = {0};
	char list[8192];
	int n;

	(void)state;
	n = reproduce_seed_sens_items("page_fault4_vma_lock", "icelake-48c", list, sizeof(list), &err);
	print_message("%d numbers:\n%s", n, list);
	assert_true(n > 10);
	for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++)
		if (!has_line(list, in[i]))
			fail_msg("'%s' is not varied", in[i]);
	for (size_t i = 0; i < sizeof(out) / sizeof(out[0]); i++)
		if (has_line(list, out[i]))
			fail_msg("'%s' is varied", out[i]);
	/* the section shows seed 003's private anonymous cells, not the shared ones */
	assert_true(reproduce_seed_sens_items("prefault_anon_private_touch_read", "generic", list, sizeof(list), &err) >
		    0);
	assert_int_equal(
	    reproduce_seed_sens_items("prefault_anon_shared_touch_read", "generic", list, sizeof(list), &err), -1);
	assert_int_equal(err.code, MM_ENOENT);
	/* a list that does not fit is refused, not cut */
	assert_int_equal(reproduce_seed_sens_items("page_fault4_vma_lock", "icelake-48c", list, 64, &err), -1);
}

/* A hardware profile's number reaches the simulation as the sensitivity section scales it (its
 * profile derived again): the clock of one busy core at 0.5x slows every compute step of a task
 * alone, half a task's memory bandwidth its page clearing; the clock of 1024 busy cores moves
 * nothing */
static void test_machine_number_reaches_the_run(void **state)
{
	const char *v = "prefault_anon_private_touch_write";
	double base = per_page(v, 4096), slow = per_page_scaled(v, 4096, "[frequency] 1", 0.5),
	       narrow = per_page_scaled(v, 4096, "[bandwidth] task_gbs", 0.5),
	       other = per_page_scaled(v, 4096, "[frequency] 1024", 0.5);
	struct mm_error err = {0};
	double sec;

	(void)state;
	print_message("%.6g ns a page; clock x0.5 %.6g, bandwidth x0.5 %.6g, the 1024-core clock x0.5 %.6g\n",
		      base * 1e9, slow * 1e9, narrow * 1e9, other * 1e9);
	assert_true(slow > 1.3 * base);
	assert_true(narrow > 1.05 * base);
	assert_true(fabs(other - base) <= 1e-9 * base);
	assert_int_equal(reproduce_s3_per_page(v, 4096, "[frequency 1", 2, &opts, &sec, &err), MM_EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_per_page_time_does_not_depend_on_the_size),
	    cmocka_unit_test(test_discards_are_not_timed),
	    cmocka_unit_test(test_sensitivity_items),
	    cmocka_unit_test(test_machine_number_reaches_the_run),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
