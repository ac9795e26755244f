// SPDX-License-Identifier: MIT
/*
 * page_fault3: write faults on a shared mapping of a per-task file
 * (do_shared_fault and the filesystem's page_mkwrite), as will-it-scale's
 * page_fault3 (shared/reference/willitscale.md 4.3).
 */
#include "pf_file.h"

#include <sys/mman.h>

static int pf3_run(struct wis_task *t)
{
	return pf_file_touch_loop(t, MAP_SHARED, 1);
}

static const struct wis_bench pf3 = {
    .name = "page_fault3",
    .description = "Separate file shared mapping page fault (will-it-scale page_fault3)",
    .op_definition = "one write to a 4 KiB page of a MAP_SHARED mapping of the task's own 128 MiB unlinked file (one "
		     "shared write fault, page_mkwrite); every 32768 ops also one mmap + munmap",
    .task_bytes = PF_FILE_BYTES,
    .uses_tmpfile = 1,
    .counts_ops = 2 * (PF_FILE_BYTES / WIS_PAGE_BYTES),
    .setup = pf_file_setup,
    .run = pf3_run,
    .teardown = pf_file_teardown,
};

int main(int argc, char **argv)
{
	return wis_main(&pf3, argc, argv);
}
