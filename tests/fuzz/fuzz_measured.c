/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness: will-it-scale CSVs ('mmsim compare --measured FILE').
 * measured_load() reads a path, so each input is written to a memfd and
 * read back through /proc/self/fd: no file on disk, nothing to clean up.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include "report.h"

static int fd = -1;
static char path[64];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct measured m;
	struct mm_error err;

	if (fd < 0) {
		fd = memfd_create("fuzz_measured", 0);
		if (fd < 0) {
			perror("memfd_create");
			abort();
		}
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) || pwrite(fd, data, size, 0) != (ssize_t)size) {
		perror("fuzz_measured: writing the memfd");
		abort();
	}
	measured_load(path, &m, &err);
	return 0;
}
