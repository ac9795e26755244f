// SPDX-License-Identifier: MIT
/*
 * page_fault2: write faults on a private mapping of a per-task file
 * (copy-on-write from the page cache: do_cow_fault), as will-it-scale's
 * page_fault2 (shared/reference/willitscale.md 4.2).
 */
#include "pf_file.h"

#include <sys/mman.h>

static int pf2_run(struct wis_task *t)
{
	return pf_file_touch_loop(t, MAP_PRIVATE, 1);
}

static const struct wis_bench pf2 = {
    .name = "page_fault2",
    .description = "Separate file private mapping page fault (will-it-scale page_fault2)",
    .op_definition = "one write to a 4 KiB page of a MAP_PRIVATE mapping of the task's own 128 MiB unlinked file (one "
		     "copy-on-write fault); every 32768 ops also one mmap + munmap",
    /* page cache of the file plus the private copies */
    .task_bytes = 2 * PF_FILE_BYTES,
    .uses_tmpfile = 1,
    .counts_ops = 2 * (PF_FILE_BYTES / WIS_PAGE_BYTES),
    .setup = pf_file_setup,
    .run = pf2_run,
    .teardown = pf_file_teardown,
};

int main(int argc, char **argv)
{
	return wis_main(&pf2, argc, argv);
}
