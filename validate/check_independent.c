// SPDX-License-Identifier: MIT
/*
 * check_independent: the simplest possible anonymous write-fault timer,
 * sharing no code with the wis harness.  One thread maps 128 MiB (page_fault1's size: the cost
 * per page depends on it, 17% less at 64 MiB on the development VM of 2026-12-01), writes
 * one byte per 4 KiB page, unmaps, and repeats for about --seconds
 * (default 1); prints ns per page and the minor faults per page that
 * getrusage saw, so a harness number can be checked against it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>

#define MAP_BYTES (128UL * 1024 * 1024)
#define PAGE_BYTES 4096UL

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double seconds = 1.0, t0, t1;
	unsigned long pages = 0, cycles = 0;
	struct rusage r0, r1;

	if (argc == 3 && !strcmp(argv[1], "--seconds")) {
		seconds = strtod(argv[2], NULL);
		if (!(seconds > 0 && seconds < 600)) {
			fprintf(stderr, "check_independent: bad --seconds\n");
			return 2;
		}
	} else if (argc != 1) {
		fprintf(stderr, "usage: check_independent [--seconds S]\n");
		return 2;
	}
	getrusage(RUSAGE_SELF, &r0);
	t0 = now_s();
	do {
		char *p = mmap(NULL, MAP_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED) {
			fprintf(stderr, "check_independent: mmap: %s\n", strerror(errno));
			return 1;
		}
		for (unsigned long off = 0; off < MAP_BYTES; off += PAGE_BYTES)
			((volatile char *)p)[off] = 0;
		munmap(p, MAP_BYTES);
		pages += MAP_BYTES / PAGE_BYTES;
		cycles++;
		t1 = now_s();
	} while (t1 - t0 < seconds);
	getrusage(RUSAGE_SELF, &r1);
	printf("ns_per_fault=%.1f pages=%lu cycles=%lu seconds=%.3f minor_faults_per_page=%.4f\n",
	       (t1 - t0) * 1e9 / (double)pages, pages, cycles, t1 - t0,
	       (double)(r1.ru_minflt - r0.ru_minflt) / (double)pages);
	return 0;
}
