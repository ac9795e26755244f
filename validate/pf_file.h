/* SPDX-License-Identifier: MIT */
/*
 * Shared by the file-backed benchmarks (page_fault2..4, mmap2): each task
 * owns one unlinked 128 MiB temporary file, as will-it-scale's do.
 */
#ifndef WIS_PF_FILE_H
#define WIS_PF_FILE_H

#include "wis.h"

#include <stdint.h>
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

#endif /* WIS_PF_FILE_H */
