// SPDX-License-Identifier: MIT
/*
 * mmap2: mmap + munmap of a per-task 128 MiB file, nothing touched, as
 * will-it-scale's mmap2 (shared/reference/willitscale.md 4.6).
 */
#include "pf_file.h"

#include <errno.h>
#include <sys/mman.h>

static int mmap2_run(struct wis_task *t)
{
	while (!wis_should_stop(t)) {
		void *c = mmap(NULL, PF_FILE_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE, pf_file_fd(t), 0);

		if (c == MAP_FAILED)
			return -errno;
		munmap(c, PF_FILE_BYTES);
		(*t->ops)++;
	}
	return 0;
}

static const struct wis_bench mmap2 = {
    .name = "mmap2",
    .description = "Separate file mmap/munmap of 128MB (will-it-scale mmap2)",
    .op_definition = "one MAP_PRIVATE mmap of the task's own 128 MiB unlinked file plus its munmap, no page touched",
    .task_bytes = PF_FILE_BYTES,
    .uses_tmpfile = 1,
    .counts_ops = 20000,
    .setup = pf_file_setup,
    .run = mmap2_run,
    .teardown = pf_file_teardown,
};

int main(int argc, char **argv)
{
	return wis_main(&mmap2, argc, argv);
}
