/* SPDX-License-Identifier: MIT */
/*
 * Shared by the file-backed benchmarks (page_fault2..4, mmap2): each task
 * owns one unlinked 128 MiB temporary file, as will-it-scale's do.
 */
#ifndef WIS_PF_FILE_H
#define WIS_PF_FILE_H

#include "wis.h"

#include <errno.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#define PF_FILE_BYTES (128 * WIS_MIB)

static inline int pf_file_setup(struct wis_task *t)
{
	int fd = wis_tmpfile(PF_FILE_BYTES);

	if (fd < 0)
		return fd;
	t->priv = (void *)(intptr_t)(fd + 1); /* 0 means "no file" */
	return 0;
}

static inline int pf_file_fd(const struct wis_task *t)
{
	return (int)(intptr_t)t->priv - 1;
}

static inline void pf_file_teardown(struct wis_task *t)
{
	if (t->priv)
		close(pf_file_fd(t));
	t->priv = NULL;
}

/*
 * The loop of page_fault2..4: map the task's file (@map_flags MAP_PRIVATE or
 * MAP_SHARED), touch every 4 KiB page (a write, or a read), count one op per
 * page, unmap; until told to stop.
 */
static inline int pf_file_touch_loop(struct wis_task *t, int map_flags, int write)
{
	while (!wis_should_stop(t)) {
		char *c = mmap(NULL, PF_FILE_BYTES, PROT_READ | PROT_WRITE, map_flags, pf_file_fd(t), 0);

		if (c == MAP_FAILED)
			return -errno;
		for (unsigned long off = 0; off < PF_FILE_BYTES; off += WIS_PAGE_BYTES) {
			if (write)
				((volatile char *)c)[off] = 0;
			else
				(void)((volatile char *)c)[off];
			(*t->ops)++;
		}
		munmap(c, PF_FILE_BYTES);
	}
	return 0;
}

#endif /* WIS_PF_FILE_H */
