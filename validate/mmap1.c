// SPDX-License-Identifier: MIT
/*
 * mmap1: mmap + munmap of 128 MiB of anonymous memory, nothing touched,
 * as will-it-scale's mmap1 (shared/reference/willitscale.md 4.5,
 * codepaths.md G.6).
 */
#include "wis.h"

#include <errno.h>
#include <sys/mman.h>

#define MAP_BYTES (128 * WIS_MIB)

static int mmap1_run(struct wis_task *t)
{
	while (!wis_should_stop(t)) {
		void *c = mmap(NULL, MAP_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (c == MAP_FAILED)
			return -errno;
		munmap(c, MAP_BYTES);
		(*t->ops)++;
	}
	return 0;
}

static const struct wis_bench mmap1 = {
    .name = "mmap1",
    .description = "Anonymous memory mmap/munmap of 128MB (will-it-scale mmap1)",
    .op_definition = "one mmap of 128 MiB private anonymous memory plus its munmap, no page touched",
    /* virtual only; counted as mapped so the limit is conservative */
    .task_bytes = MAP_BYTES,
    .counts_ops = 20000,
    .run = mmap1_run,
};

int main(int argc, char **argv)
{
	return wis_main(&mmap1, argc, argv);
}
