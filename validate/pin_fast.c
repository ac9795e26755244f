// SPDX-License-Identifier: MIT
/*
 * pin_fast: pin_user_pages_fast SMP scalability, the benchmark posted
 * with "mm: gup: allow FOLL_PIN to scale in SMP" (Arcangeli / Xu, May
 * 2021; shared/reference/willitscale.md 4.8, codepaths.md G.4), written
 * anew.  Needs CONFIG_GUP_TEST=y and debugfs; without them it prints
 * "skipped: <reason>" and exits 77, never a number.
 *
 * Each task owns a 4 MiB, 2 MiB-aligned buffer advised MADV_HUGEPAGE and
 * prefaulted; one op is one PIN_FAST_BENCHMARK ioctl that pins and unpins
 * its 1024 pages one page per call.  All tasks share one descriptor.
 */
#include "wis.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/types.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#define GUP_TEST_PATH "/sys/kernel/debug/gup_test"
#define NR_PAGES 1024
#define BUF_BYTES (NR_PAGES * WIS_PAGE_BYTES)
#define HUGE_BYTES (2 * WIS_MIB)

/* mm/gup_test.h layout since gup_flags/test_flags were split (5.12+). */
struct gup_test_v2 {
	__u64 get_delta_usec;
	__u64 put_delta_usec;
	__u64 addr;
	__u64 size;
	__u32 nr_pages_per_call;
	__u32 gup_flags;
	__u32 test_flags;
	__u32 which_pages[8];
};

/* The 5.11 layout, with a single flags word. */
struct gup_test_v1 {
	__u64 get_delta_usec;
	__u64 put_delta_usec;
	__u64 addr;
	__u64 size;
	__u32 nr_pages_per_call;
	__u32 flags;
	__u32 which_pages[8];
};

#define PIN_FAST_BENCHMARK_V2 _IOWR('g', 2, struct gup_test_v2)
#define PIN_FAST_BENCHMARK_V1 _IOWR('g', 2, struct gup_test_v1)

static int g_fd = -1;
static int g_layout; /* 2 or 1 */

struct pin_task {
	char *buf;
	union {
		struct gup_test_v2 v2;
		struct gup_test_v1 v1;
	} arg;
};

static int pin_ioctl(struct pin_task *p)
{
	if (g_layout == 2) {
		memset(&p->arg.v2, 0, sizeof(p->arg.v2));
		p->arg.v2.addr = (__u64)(uintptr_t)p->buf;
		p->arg.v2.size = BUF_BYTES;
		p->arg.v2.nr_pages_per_call = 1;
		return ioctl(g_fd, PIN_FAST_BENCHMARK_V2, &p->arg.v2);
	}
	memset(&p->arg.v1, 0, sizeof(p->arg.v1));
	p->arg.v1.addr = (__u64)(uintptr_t)p->buf;
	p->arg.v1.size = BUF_BYTES;
	p->arg.v1.nr_pages_per_call = 1;
	return ioctl(g_fd, PIN_FAST_BENCHMARK_V1, &p->arg.v1);
}

static int pin_alloc(struct pin_task *p)
{
	p->buf = aligned_alloc(HUGE_BYTES, BUF_BYTES);
	if (!p->buf)
		return -ENOMEM;
	if (madvise(p->buf, BUF_BYTES, MADV_HUGEPAGE))
		return -errno;
	for (unsigned long off = 0; off < BUF_BYTES; off += WIS_PAGE_BYTES)
		p->buf[off] = 0;
	return 0;
}

static int pin_check(char *why, size_t len)
{
	struct pin_task probe;
	int err;

	g_fd = open(GUP_TEST_PATH, O_RDWR);
	if (g_fd < 0) {
		err = errno;
		snprintf(why, len,
			 "cannot open %s: %s (needs a kernel with CONFIG_GUP_TEST=y and debugfs mounted at "
			 "/sys/kernel/debug)",
			 GUP_TEST_PATH, strerror(err));
		return 1;
	}
	memset(&probe, 0, sizeof(probe));
	err = pin_alloc(&probe);
	if (err) {
		snprintf(why, len, "cannot prepare a THP buffer: %s", strerror(-err));
		free(probe.buf);
		return err == -EINVAL ? 1 : -1;
	}
	for (g_layout = 2; g_layout >= 1; g_layout--)
		if (!pin_ioctl(&probe))
			break;
	err = errno;
	free(probe.buf);
	if (!g_layout) {
		snprintf(why, len, "PIN_FAST_BENCHMARK ioctl on %s rejected in both known layouts: %s", GUP_TEST_PATH,
			 strerror(err));
		return 1;
	}
	return 0;
}

static void pin_describe(FILE *f)
{
	fprintf(f,
		"# pin_fast: %s, struct gup_test layout v%d (%s); 4 MiB MADV_HUGEPAGE buffer per task, "
		"nr_pages_per_call=1, no FOLL_WRITE\n",
		GUP_TEST_PATH, g_layout, g_layout == 2 ? "gup_flags + test_flags" : "single flags word");
}

static int pin_setup(struct wis_task *t)
{
	struct pin_task *p = calloc(1, sizeof(*p));
	int rc;

	if (!p)
		return -ENOMEM;
	t->priv = p;
	rc = pin_alloc(p);
	return rc;
}

static int pin_run(struct wis_task *t)
{
	struct pin_task *p = t->priv;

	while (!wis_should_stop(t)) {
		if (pin_ioctl(p))
			return -errno;
		(*t->ops)++;
	}
	return 0;
}

static void pin_teardown(struct wis_task *t)
{
	struct pin_task *p = t->priv;

	if (p)
		free(p->buf);
	free(p);
	t->priv = NULL;
}

static const struct wis_bench pin_fast = {
    .name = "pin_fast",
    .description = "pin_user_pages_fast SMP scalability (gup_test PIN_FAST_BENCHMARK)",
    .op_definition = "one PIN_FAST_BENCHMARK ioctl: 1024 pin_user_pages_fast calls of 1 page each on a 4 MiB "
		     "THP-backed buffer, then unpin of the 1024 pages",
    .task_bytes = BUF_BYTES,
    .counts_ops = 2000,
    .check = pin_check,
    .describe = pin_describe,
    .setup = pin_setup,
    .run = pin_run,
    .teardown = pin_teardown,
};

int main(int argc, char **argv)
{
	return wis_main(&pin_fast, argc, argv);
}
