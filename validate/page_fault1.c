// SPDX-License-Identifier: MIT
/*
 * page_fault1: anonymous write faults, as will-it-scale's page_fault1
 * (shared/reference/willitscale.md 4.1, codepaths.md G.2).
 * Loop: mmap 128 MiB private anonymous, write one byte per 4 KiB page,
 * munmap.  THP is left as the system sets it, like will-it-scale.
 */
#include "wis.h"

#include <errno.h>
#include <sys/mman.h>

#define MAP_BYTES (128 * WIS_MIB)

static int pf1_run(struct wis_task *t)
{
	while (!wis_should_stop(t)) {
		char *c = mmap(NULL, MAP_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (c == MAP_FAILED)
			return -errno;
		for (unsigned long off = 0; off < MAP_BYTES; off += WIS_PAGE_BYTES) {
			((volatile char *)c)[off] = 0;
			(*t->ops)++;
		}
		munmap(c, MAP_BYTES);
	}
	return 0;
}

static const struct wis_bench pf1 = {
    .name = "page_fault1",
    .description = "Anonymous memory page fault (will-it-scale page_fault1)",
    .op_definition = "one write to a new 4 KiB page of a 128 MiB private anonymous mapping (one write fault with 4 KiB "
		     "pages); every 32768 ops also one mmap + munmap",
    .task_bytes = MAP_BYTES,
    /* eight munmap cycles per task counted: with threads, the faults that fall back to mmap_lock
     * while another thread's munmap or mmap has the merged VMA write-locked come about once a
     * cycle, too few to tell from the noise in one or two */
    .counts_ops = 8 * (MAP_BYTES / WIS_PAGE_BYTES),
    .run = pf1_run,
};

int main(int argc, char **argv)
{
	return wis_main(&pf1, argc, argv);
}
