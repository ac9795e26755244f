// SPDX-License-Identifier: MIT
/*
 * populate: the fixed-work benchmark of seed 000 (Roman Dubtsov's t.c,
 * LKML January 2013), written anew: every task maps 10 x 64 MiB of
 * private anonymous memory, each populated by --method, and nothing is
 * unmapped inside the timed part.  The result is the makespan from the
 * gate to the last task's last populate (codepaths.md A, B, G.1-G.3).
 */
#include "wis.h"
#include "../src/mthp.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#define NR_REGIONS 10
#define REGION_BYTES (64 * WIS_MIB)

enum method {
	METHOD_NONE,
	METHOD_LOOP,
	METHOD_MAP_POPULATE,
	METHOD_MADV_POPULATE_READ,
	METHOD_MADV_POPULATE_WRITE,
	NR_METHODS,
};

static const char *const method_name[NR_METHODS] = {
    "none", "loop", "map_populate", "madv_populate_read", "madv_populate_write",
};

static const char *const method_text[NR_METHODS] = {
    "mmap only, nothing populated",
    "mmap, then write one byte per 4 KiB page from user space",
    "mmap with MAP_POPULATE",
    "mmap, then madvise(MADV_POPULATE_READ)",
    "mmap, then madvise(MADV_POPULATE_WRITE)",
};

static enum method g_method = METHOD_LOOP;
enum thp_mode { THP_OFF, THP_ON, THP_DEFAULT };
static enum thp_mode g_thp;	 /* MADV_NOHUGEPAGE, MADV_HUGEPAGE, or the system's settings */
static volatile int g_info_read; /* threads mode: task 0 read smaps */

static const struct wis_opt populate_opts[] = {
    {"method", "none|loop|map_populate|madv_populate_read|madv_populate_write",
     "how each region is populated (default loop)"},
    {"thp", "on|off|default",
     "madvise(MADV_HUGEPAGE) or (MADV_NOHUGEPAGE) on each region, or neither (the system's THP and mTHP "
     "settings apply; default off)"},
    {NULL, NULL, NULL},
};

static int populate_set_opt(const char *name, const char *value)
{
	if (!strcmp(name, "method")) {
		for (int m = 0; m < NR_METHODS; m++) {
			if (!strcmp(value, method_name[m])) {
				g_method = (enum method)m;
				return 0;
			}
		}
		return -EINVAL;
	}
	if (!strcmp(name, "thp")) {
		if (!strcmp(value, "on"))
			g_thp = THP_ON;
		else if (!strcmp(value, "off"))
			g_thp = THP_OFF;
		else if (!strcmp(value, "default"))
			g_thp = THP_DEFAULT;
		else
			return -EINVAL;
		return 0;
	}
	return -EINVAL;
}

static void thp_enabled(char *out, size_t len)
{
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
	char line[128], *a, *b;

	snprintf(out, len, "unknown");
	if (!f)
		return;
	if (fgets(line, sizeof(line), f)) {
		a = strchr(line, '[');
		b = a ? strchr(a, ']') : NULL;
		if (a && b)
			snprintf(out, len, "%.*s", (int)(b - a - 1), a + 1);
	}
	fclose(f);
}

static int populate_check(char *why, size_t len)
{
	char thp[32];
	int err;

	thp_enabled(thp, sizeof(thp));
	if (g_thp == THP_ON && !strcmp(thp, "never")) {
		snprintf(why, len, "populate --thp on: transparent hugepages are disabled system-wide (enabled=never)");
		return 1;
	}
	if (g_thp == THP_ON && g_method == METHOD_MAP_POPULATE && strcmp(thp, "always")) {
		snprintf(why, len,
			 "populate --method map_populate --thp on: MAP_POPULATE fills the region inside mmap(), before "
			 "madvise(MADV_HUGEPAGE) can mark it, so THP needs enabled=always (this system: %s)",
			 thp);
		return 1;
	}
	if (g_method != METHOD_MAP_POPULATE && g_thp != THP_DEFAULT) {
		err = wis_probe_madvise(g_thp == THP_ON ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
		if (err == EINVAL) {
			snprintf(why, len, "madvise(%s) returned EINVAL (kernel without THP support?)",
				 g_thp == THP_ON ? "MADV_HUGEPAGE" : "MADV_NOHUGEPAGE");
			return 1;
		}
	}
	if (g_method == METHOD_MADV_POPULATE_READ || g_method == METHOD_MADV_POPULATE_WRITE)
		return wis_check_madv_populate(
		    g_method == METHOD_MADV_POPULATE_READ ? MADV_POPULATE_READ : MADV_POPULATE_WRITE, why, len);
	return 0;
}

/* The sizes of /sys/kernel/mm/transparent_hugepage/hugepages-<size>kB/enabled that apply to a
 * region nobody madvised (src/mthp.h). */
static void mthp_always(const char *top, char *out, size_t len)
{
	DIR *d = opendir("/sys/kernel/mm/transparent_hugepage");
	struct dirent *e;
	size_t n = 0;

	out[0] = 0;
	while (d && (e = readdir(d))) {
		char path[512], line[128];
		FILE *f;

		if (strncmp(e->d_name, "hugepages-", 10))
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/mm/transparent_hugepage/%s/enabled", e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(line, sizeof(line), f) && mthp_line_applies(line, !strcmp(top, "always")) && n < len)
			n += snprintf(out + n, len - n, "%s%s", n ? " " : "", e->d_name + 10);
		fclose(f);
	}
	if (d)
		closedir(d);
	if (!out[0])
		snprintf(out, len, "none");
}

static const char *thp_how(void)
{
	if (g_thp == THP_DEFAULT)
		return "no madvise, no prctl: the system's THP and mTHP settings apply";
	if (g_method == METHOD_MAP_POPULATE)
		return g_thp == THP_ON ? "system THP enabled=always, no madvise possible before MAP_POPULATE"
				       : "prctl(PR_SET_THP_DISABLE) in each task's process";
	return g_thp == THP_ON ? "madvise(MADV_HUGEPAGE) after mmap" : "madvise(MADV_NOHUGEPAGE) after mmap";
}

static void populate_describe(FILE *f)
{
	static const char *const mode_name[] = {"off", "on", "default"};
	char thp[32], sizes[256];

	thp_enabled(thp, sizeof(thp));
	mthp_always(thp, sizes, sizeof(sizes));
	fprintf(f,
		"# populate: method=%s (%s); thp=%s (%s); %d regions x %lu MiB per task, no munmap in the timed part\n",
		method_name[g_method], method_text[g_method], mode_name[g_thp], thp_how(), NR_REGIONS,
		REGION_BYTES / WIS_MIB);
	fprintf(f,
		"# populate: system THP enabled=%s; sizes that apply without madvise: %s; info_task0_last_round = "
		"AnonHugePages kB in /proc/self/smaps_rollup of task 0's process after the timed part (threads mode: "
		"all tasks' regions; processes mode: task 0's own; PMD-sized THP only); --counts per op include the "
		"untimed munmap of each region at the end\n",
		thp, sizes);
}

static int populate_setup(struct wis_task *t)
{
	void **regions = calloc(NR_REGIONS, sizeof(void *));

	if (!regions)
		return -ENOMEM;
	t->priv = regions;
	if (g_method == METHOD_MAP_POPULATE && g_thp == THP_OFF && prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0))
		return -errno;
	if (t->index == 0)
		g_info_read = 0;
	return 0;
}

static int populate_run(struct wis_task *t)
{
	void **regions = t->priv;
	int flags = MAP_PRIVATE | MAP_ANONYMOUS;

	if (g_method == METHOD_MAP_POPULATE)
		flags |= MAP_POPULATE;
	for (int r = 0; r < NR_REGIONS && !*t->stop; r++) {
		char *p = mmap(NULL, REGION_BYTES, PROT_READ | PROT_WRITE, flags, -1, 0);

		if (p == MAP_FAILED)
			return -errno;
		regions[r] = p;
		if (g_method != METHOD_MAP_POPULATE && g_thp != THP_DEFAULT &&
		    madvise(p, REGION_BYTES, g_thp == THP_ON ? MADV_HUGEPAGE : MADV_NOHUGEPAGE))
			return -errno;
		switch (g_method) {
		case METHOD_LOOP:
			for (unsigned long off = 0; off < REGION_BYTES; off += WIS_PAGE_BYTES)
				((volatile char *)p)[off] = 0;
			break;
		case METHOD_MADV_POPULATE_READ:
			if (madvise(p, REGION_BYTES, MADV_POPULATE_READ))
				return -errno;
			break;
		case METHOD_MADV_POPULATE_WRITE:
			if (madvise(p, REGION_BYTES, MADV_POPULATE_WRITE))
				return -errno;
			break;
		default:
			break;
		}
		(*t->ops)++;
	}
	return 0;
}

static long long anon_huge_kb(void)
{
	FILE *f = fopen("/proc/self/smaps_rollup", "r");
	char line[256];
	long long kb = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "AnonHugePages:", 14))
			kb = strtoll(line + 14, NULL, 10);
	fclose(f);
	return kb;
}

static void populate_teardown(struct wis_task *t)
{
	void **regions = t->priv;

	if (t->index == 0) {
		*t->info = anon_huge_kb();
		g_info_read = 1;
	} else if (t->threads) {
		/* Keep our regions until task 0 has looked (bounded wait). */
		for (int i = 0; i < 5000 && !g_info_read; i++)
			usleep(1000);
	}
	for (int r = 0; regions && r < NR_REGIONS; r++)
		if (regions[r])
			munmap(regions[r], REGION_BYTES);
	free(regions);
	t->priv = NULL;
}

static const struct wis_bench populate = {
    .name = "populate",
    .description = "10 x 64 MiB anonymous mmap per task, populated by --method (seed 000 t.c)",
    .op_definition =
	"one mmap of 64 MiB private anonymous memory plus its population by --method (16384 4 KiB pages; no munmap)",
    .task_bytes = NR_REGIONS * REGION_BYTES,
    .fixed_ops = NR_REGIONS,
    .opts = populate_opts,
    .set_opt = populate_set_opt,
    .check = populate_check,
    .describe = populate_describe,
    .setup = populate_setup,
    .run = populate_run,
    .teardown = populate_teardown,
};

int main(int argc, char **argv)
{
	return wis_main(&populate, argc, argv);
}
