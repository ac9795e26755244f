// SPDX-License-Identifier: MIT
/*
 * page_fault4: read faults on a private mapping of a per-task file, as
 * defined by will-it-scale PR #37 (Yin Fengwei; shared/reference/
 * willitscale.md 4.4, codepaths.md G.5).  Not the hansendc or ScaleBSD
 * page_fault4, which do other things.  After the first pass the file's
 * page cache is warm and each fault maps up to fault_around_bytes of
 * pages, so there are fewer faults than ops.
 */
#include "pf_file.h"

#include <sys/mman.h>

static int pf4_run(struct wis_task *t)
{
	return pf_file_touch_loop(t, MAP_PRIVATE, 0);
}

static const struct wis_bench pf4 = {
    .name = "page_fault4",
    .description = "Separate file private mapping page read fault (will-it-scale PR #37 page_fault4)",
    .op_definition =
	"one read of a 4 KiB page of a MAP_PRIVATE mapping of the task's own 128 MiB unlinked file (a read fault maps "
	"up to fault_around_bytes, so faults per op < 1); every 32768 ops also one mmap + munmap",
    .task_bytes = PF_FILE_BYTES,
    .uses_tmpfile = 1,
    .counts_ops = 2 * (PF_FILE_BYTES / WIS_PAGE_BYTES),
    .setup = pf_file_setup,
    .run = pf4_run,
    .teardown = pf_file_teardown,
};

int main(int argc, char **argv)
{
	return wis_main(&pf4, argc, argv);
}
