// SPDX-License-Identifier: MIT
/*
 * prefault: seed 003's benchmark (David Hildenbrand's numbers for the MADV_POPULATE RFC, LKML
 * February 2021), written anew from its description: a task maps a region once, then ten times
 * discards its memory and prefaults it again, by touching one byte per 4 KiB from user space or
 * with MADV_POPULATE_READ/WRITE.  The discard is madvise(MADV_DONTNEED) for anonymous memory and
 * fallocate(FALLOC_FL_PUNCH_HOLE) for a memfd, as the seed says.  One operation is that whole
 * program: mmap, ten rounds, munmap (scenarios/madv_populate.scn's operation); the info column
 * is task 0's mean prefault time of one round, the seed's own number.
 */
#include "wis.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#ifndef MFD_HUGETLB
#define MFD_HUGETLB 0x0004U
#endif
#ifndef MFD_HUGE_2MB
#define MFD_HUGE_2MB (21U << 26)
#endif

#define ROUNDS 10
#define HUGE_BYTES (2 * WIS_MIB)

enum backing { B_ANON, B_MEMFD, B_HUGETLB, NR_BACKINGS };
enum method { M_TOUCH_READ, M_TOUCH_WRITE, M_TOUCH_READ_WRITE, M_POPULATE_READ, M_POPULATE_WRITE, NR_METHODS };

static const char *const backing_name[NR_BACKINGS] = {"anon", "memfd", "hugetlb"};
static const char *const method_name[NR_METHODS] = {"touch_read", "touch_write", "touch_read_write", "populate_read",
						    "populate_write"};

static enum backing g_backing = B_ANON;
static int g_shared;
static enum method g_method = M_TOUCH_WRITE;
static unsigned long g_bytes = 128 * WIS_MIB;
static unsigned long g_max_tasks = 1; /* the largest of --tasks: how many regions exist at once */

static const struct wis_opt prefault_opts[] = {
    {"backing", "anon|memfd|hugetlb", "anonymous memory, a memfd, or a memfd of 2 MiB hugetlb pages (default anon)"},
    {"mapping", "private|shared", "MAP_PRIVATE or MAP_SHARED (default private)"},
    {"method", "touch_read|touch_write|touch_read_write|populate_read|populate_write",
     "how each round prefaults: one byte per 4 KiB from user space, or MADV_POPULATE_* (default touch_write)"},
    {"size-mib", "N", "the region in MiB, a multiple of 2 (default 128; the seed: 2, 128, 4096)"},
    {NULL, NULL, NULL},
};

static int pick(const char *value, const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(value, names[i]))
			return i;
	return -1;
}

static int prefault_set_opt(const char *name, const char *value)
{
	int i;

	if (!strcmp(name, "backing")) {
		if ((i = pick(value, backing_name, NR_BACKINGS)) < 0)
			return -EINVAL;
		g_backing = (enum backing)i;
	} else if (!strcmp(name, "mapping")) {
		if (strcmp(value, "private") && strcmp(value, "shared"))
			return -EINVAL;
		g_shared = !strcmp(value, "shared");
	} else if (!strcmp(name, "method")) {
		if ((i = pick(value, method_name, NR_METHODS)) < 0)
			return -EINVAL;
		g_method = (enum method)i;
	} else if (!strcmp(name, "size-mib")) {
		char *end;
		unsigned long v = strtoul(value, &end, 10);

		if (*end || v < 2 || v > 65536 || v % 2)
			return -EINVAL;
		g_bytes = v * WIS_MIB;
	} else {
		return -EINVAL;
	}
	return 0;
}

/* HugePages_Free and Hugepagesize (kB) from /proc/meminfo; -1 when absent */
static void huge_pages(long *free_pages, long *size_kb)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[256];

	*free_pages = *size_kb = -1;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "HugePages_Free:", 15))
			*free_pages = strtol(line + 15, NULL, 10);
		else if (!strncmp(line, "Hugepagesize:", 13))
			*size_kb = strtol(line + 13, NULL, 10);
	}
	fclose(f);
}

/* memfd_create's flags for --backing memfd or hugetlb */
static unsigned int memfd_flags(void)
{
	return MFD_CLOEXEC | (g_backing == B_HUGETLB ? MFD_HUGETLB | MFD_HUGE_2MB : 0);
}

static int make_memfd(void)
{
	int fd = (int)memfd_create("wis_prefault", memfd_flags());

	if (fd < 0)
		return -errno;
	if (ftruncate(fd, (off_t)g_bytes)) {
		int e = -errno;

		close(fd);
		return e;
	}
	return fd;
}

static int prefault_check(char *why, size_t len)
{
	if (g_backing == B_HUGETLB) {
		long free_pages, size_kb;

		huge_pages(&free_pages, &size_kb);
		if (free_pages < (long)(g_max_tasks * (g_bytes / HUGE_BYTES))) {
			snprintf(why, len,
				 "prefault --backing hugetlb: %ld free 2 MiB huge pages, %lu task(s) need %lu (reserve "
				 "them: echo N > /proc/sys/vm/nr_hugepages)",
				 free_pages < 0 ? 0 : free_pages, g_max_tasks, g_max_tasks * (g_bytes / HUGE_BYTES));
			return 1;
		}
		(void)size_kb;
	}
	if (g_backing != B_ANON) {
		int fd = (int)memfd_create("wis_prefault_probe", memfd_flags());

		if (fd < 0) {
			snprintf(why, len, "memfd_create(%s) failed: %s",
				 g_backing == B_HUGETLB ? "MFD_HUGETLB | MFD_HUGE_2MB" : "0", strerror(errno));
			return errno == EINVAL || errno == ENOSYS ? 1 : -1;
		}
		close(fd);
	}
	if (g_method == M_POPULATE_READ || g_method == M_POPULATE_WRITE)
		return wis_check_madv_populate(MADV_POPULATE_READ, why, len);
	return 0;
}

static void prefault_describe(FILE *f)
{
	fprintf(f,
		"# prefault: backing=%s mapping=%s method=%s; a region of %lu MiB mapped once per op, then %d x "
		"(discard: %s; prefault), then munmap; THP off (prctl(PR_SET_THP_DISABLE))\n",
		backing_name[g_backing], g_shared ? "shared" : "private", method_name[g_method], g_bytes / WIS_MIB,
		ROUNDS, g_backing == B_ANON ? "madvise(MADV_DONTNEED)" : "fallocate(FALLOC_FL_PUNCH_HOLE)");
	fprintf(f, "# prefault: info_task0_last_round = task 0's mean prefault time of one round in its last op, "
		   "in ns (the seed's number)\n");
}

struct prefault_task {
	int fd;
};

static int prefault_setup(struct wis_task *t)
{
	struct prefault_task *pt = calloc(1, sizeof(*pt));

	if (!pt)
		return -ENOMEM;
	pt->fd = -1;
	t->priv = pt;
	if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0))
		return -errno;
	if (g_backing != B_ANON && (pt->fd = make_memfd()) < 0)
		return pt->fd;
	return 0;
}

static int discard(const struct prefault_task *pt, char *p)
{
	if (g_backing == B_ANON)
		return madvise(p, g_bytes, MADV_DONTNEED) ? -errno : 0;
	return fallocate(pt->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, (off_t)g_bytes) ? -errno : 0;
}

static int prefault(char *p)
{
	volatile char *v = p;
	char sum = 0;

	switch (g_method) {
	case M_TOUCH_READ:
		for (unsigned long off = 0; off < g_bytes; off += WIS_PAGE_BYTES)
			sum += v[off];
		break;
	case M_TOUCH_WRITE:
		for (unsigned long off = 0; off < g_bytes; off += WIS_PAGE_BYTES)
			v[off] = 0;
		break;
	case M_TOUCH_READ_WRITE:
		for (unsigned long off = 0; off < g_bytes; off += WIS_PAGE_BYTES)
			v[off] = v[off];
		break;
	case M_POPULATE_READ:
		return madvise(p, g_bytes, MADV_POPULATE_READ) ? -errno : 0;
	default:
		return madvise(p, g_bytes, MADV_POPULATE_WRITE) ? -errno : 0;
	}
	(void)sum;
	return 0;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* One op (the harness runs fixed_ops = 1 per task and round): map, ten rounds, unmap. */
static int prefault_run(struct wis_task *t)
{
	struct prefault_task *pt = t->priv;
	int flags = (g_shared ? MAP_SHARED : MAP_PRIVATE) | (g_backing == B_ANON ? MAP_ANONYMOUS : 0);
	char *p = mmap(NULL, g_bytes, PROT_READ | PROT_WRITE, flags, g_backing == B_ANON ? -1 : pt->fd, 0);
	double spent = 0;
	int rc = 0;

	if (p == MAP_FAILED)
		return -errno;
	for (int r = 0; r < ROUNDS && !rc && !*t->stop; r++) {
		double t0;

		if ((rc = discard(pt, p)))
			break;
		t0 = now_ns();
		rc = prefault(p);
		spent += now_ns() - t0;
	}
	munmap(p, g_bytes);
	if (rc)
		return rc;
	if (t->index == 0)
		*t->info = (int64_t)(spent / ROUNDS);
	(*t->ops)++;
	return 0;
}

static void prefault_teardown(struct wis_task *t)
{
	struct prefault_task *pt = t->priv;

	if (pt && pt->fd >= 0)
		close(pt->fd);
	free(pt);
	t->priv = NULL;
}

static const struct wis_bench prefault_bench = {
    .name = "prefault",
    .description = "seed 003's prefault benchmark: a region discarded and prefaulted 10 times per op",
    .op_definition = "one mmap of the region, 10 x (discard, prefault by --method), munmap",
    .task_bytes = 128 * WIS_MIB, /* set from --size-mib in main() */
    .fixed_ops = 1,
    .opts = prefault_opts,
    .set_opt = prefault_set_opt,
    .check = prefault_check,
    .describe = prefault_describe,
    .setup = prefault_setup,
    .run = prefault_run,
    .teardown = prefault_teardown,
};

int main(int argc, char **argv)
{
	struct wis_bench b = prefault_bench;

	/* the footprint the harness checks against --max-mem-share: the option may come later on the
	 * command line, so look for it first */
	for (int i = 1; i + 1 < argc; i++) {
		if (!strcmp(argv[i], "--size-mib") && prefault_set_opt("size-mib", argv[i + 1]) == 0)
			b.task_bytes = g_bytes;
		/* and the huge pages the largest task count needs (the harness checks the list itself) */
		if (!strcmp(argv[i], "--tasks"))
			for (const char *p = argv[i + 1]; *p;) {
				char *end;
				unsigned long v;

				if (*p < '0' || *p > '9') { /* the ',' and '-' of 1,2,4 or 1-4 */
					p++;
					continue;
				}
				v = strtoul(p, &end, 10);
				if (v > g_max_tasks && v < 1000000)
					g_max_tasks = v;
				p = end;
			}
	}
	return wis_main(&b, argc, argv);
}
