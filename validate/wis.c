// SPDX-License-Identifier: MIT
/*
 * wis harness: options, placement, task start through a gate, sampling,
 * idle accounting, perf counts and will-it-scale CSV output.
 *
 * Behaviour follows shared/reference/willitscale.md (main.c and
 * runtest.py as described there); the code is our own.
 */
#include "wis.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <hwloc.h>
#include <hwloc/glibc-sched.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/time.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define WIS_SLOT_BYTES 256 /* one counter per 256 bytes: no shared 64/128-B line */
#define WIS_MAX_TASK_COUNTS 64
#define WIS_MAX_TASKS 4096
#define WIS_MAX_ROUNDS 1000
#define WIS_STOP_GRACE_S 30.0 /* how long tasks may take to notice stop */
#define WIS_BACKSTOP_S 15     /* after a signal, hard exit if cleanup hangs */
/*
 * /proc/stat counts in ticks: below this many ticks (summed over CPUs) in
 * a window, idle is reported as -1 (not measurable) rather than a number
 * made of rounding.
 */
#define WIS_MIN_IDLE_TICKS 20

enum { MODE_PROCESSES = 0, MODE_THREADS = 1, NR_MODES };
static const char *const mode_name[NR_MODES] = {"processes", "threads"};

enum slot_state {
	SLOT_STARTING = 0,
	SLOT_READY = 1,
	SLOT_DONE = 2,
	SLOT_FAILED = -1,
};

/* Shared between the parent and all tasks (MAP_SHARED | MAP_ANONYMOUS). */
struct wis_ctl {
	volatile int stop;
	volatile int skip_run; /* counts baseline: start and stop, no ops */
	/* fixed work: tasks woken by the gate meet here, spinning, and the last one in stamps the
	 * start, so a round's makespan does not include the tasks' wake-up skew */
	uint32_t arrived;
	int64_t start_ns;
};

struct wis_slot {
	volatile uint64_t ops;
	volatile int64_t done_ns;
	volatile int64_t info;
	volatile int32_t state;
	volatile int32_t err;
};

_Static_assert(sizeof(struct wis_ctl) <= WIS_SLOT_BYTES, "ctl too big");
_Static_assert(sizeof(struct wis_slot) <= WIS_SLOT_BYTES, "slot too big");

struct wis_config {
	int want[NR_MODES];
	unsigned int tasks[WIS_MAX_TASK_COUNTS];
	unsigned int nr_task_counts;
	double duration_s;
	double warmup_s;
	double interval_s;
	double max_mem_share;
	double time_limit_s;
	unsigned int rounds; /* fixed work: 0 = as many as fit duration_s */
	const char *out_path;
	int force; /* replace an existing out_path */
	int counts;
	int pin;
	int verbose;
	long long counts_child; /* >= 0: this is a --counts child run */
};

/* One set of tasks started together. */
struct wis_run {
	const struct wis_bench *b;
	int threads;
	unsigned int n;
	char *area;
	size_t area_bytes;
	struct wis_ctl *ctl;
	int gate[2];
	int release[2];
	int events[2];
	int gate_open;
	int release_open;
	struct wis_task *tasks;
	pthread_t *tids;
	int *thread_started;
	pid_t *pids;
	unsigned int started;
	int64_t gate_ns;
};

struct cpu_times {
	unsigned long long idle; /* idle + iowait */
	unsigned long long total;
};

struct point {
	unsigned int tasks;
	int have[NR_MODES];
	double ops_per_s[NR_MODES];
	double idle_pct[NR_MODES];
};

static const struct wis_bench *g_bench;
static struct wis_config g_cfg;
static int g_argc;
static char **g_argv;
static cpu_set_t *g_task_cpus; /* per task index, NULL when unpinned */
static char g_placement[512];
static volatile sig_atomic_t g_signal;
static volatile sig_atomic_t g_backstop;
static struct wis_run *g_live_run; /* for the backstop only */

/* ------------------------------------------------------------------ */
/* small helpers */

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void die_oom(void)
{
	fprintf(stderr, "wis: out of memory\n");
	exit(WIS_EXIT_ERROR);
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		die_oom();
	return p;
}

static void on_signal(int sig)
{
	if (g_backstop && sig == SIGALRM) {
		static const char msg[] = "wis: tasks did not stop in time; exiting hard\n";
		ssize_t rc = write(2, msg, sizeof(msg) - 1);

		(void)rc;
		if (g_live_run && g_live_run->pids) {
			for (unsigned int i = 0; i < g_live_run->started; i++)
				if (g_live_run->pids[i] > 0)
					kill(g_live_run->pids[i], SIGKILL);
		}
		_exit(WIS_EXIT_ERROR);
	}
	if (!g_signal)
		g_signal = sig;
}

static void install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0; /* no SA_RESTART: blocking calls return EINTR */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGALRM, &sa, NULL);
}

static void set_alarm_s(double s)
{
	struct itimerval it;

	memset(&it, 0, sizeof(it));
	it.it_value.tv_sec = (time_t)s;
	it.it_value.tv_usec = (suseconds_t)((s - (double)(time_t)s) * 1e6);
	if (!it.it_value.tv_sec && !it.it_value.tv_usec)
		it.it_value.tv_usec = 1;
	setitimer(ITIMER_REAL, &it, NULL);
}

/* After a stop request, make sure cleanup cannot hang forever. */
static void arm_backstop(void)
{
	if (g_backstop)
		return;
	g_backstop = 1;
	set_alarm_s(WIS_BACKSTOP_S);
}

static int parse_double(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v))
		return -EINVAL;
	*out = v;
	return 0;
}

static int parse_uint(const char *s, unsigned long long *out)
{
	char *end;
	unsigned long long v;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end)
		return -EINVAL;
	*out = v;
	return 0;
}

/* "1,2,4", "1-4", "1-3,8": ascending order kept as given. */
static int parse_task_list(const char *s, struct wis_config *cfg)
{
	char *copy = strdup(s), *save = NULL, *tok;
	int rc = 0;

	if (!copy)
		die_oom();
	cfg->nr_task_counts = 0;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		unsigned long long lo, hi;
		char *dash = strchr(tok, '-');

		if (dash) {
			*dash = '\0';
			if (parse_uint(tok, &lo) || parse_uint(dash + 1, &hi)) {
				rc = -EINVAL;
				break;
			}
		} else {
			if (parse_uint(tok, &lo)) {
				rc = -EINVAL;
				break;
			}
			hi = lo;
		}
		if (lo < 1 || hi < lo || hi > WIS_MAX_TASKS) {
			rc = -EINVAL;
			break;
		}
		for (unsigned long long v = lo; v <= hi; v++) {
			if (cfg->nr_task_counts == WIS_MAX_TASK_COUNTS) {
				rc = -E2BIG;
				break;
			}
			cfg->tasks[cfg->nr_task_counts++] = (unsigned int)v;
		}
		if (rc)
			break;
	}
	free(copy);
	if (!rc && !cfg->nr_task_counts)
		rc = -EINVAL;
	return rc;
}

static unsigned int max_tasks(void)
{
	unsigned int m = 0;

	for (unsigned int i = 0; i < g_cfg.nr_task_counts; i++)
		if (g_cfg.tasks[i] > m)
			m = g_cfg.tasks[i];
	return m;
}

/* First line of a small file, newline stripped; "" when unreadable. */
static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	buf[0] = '\0';
	if (!f)
		return -errno;
	if (!fgets(buf, (int)len, f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static int read_cpu_times(struct cpu_times *ct)
{
	unsigned long long v[10] = {0};
	char line[512];
	int n;

	if (read_line("/proc/stat", line, sizeof(line)))
		return -EIO;
	n = sscanf(line, "cpu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4],
		   &v[5], &v[6], &v[7], &v[8], &v[9]);
	if (n < 4)
		return -EIO;
	/* runtest.py: idle = idle + iowait; busy = every other field. */
	ct->idle = v[3] + v[4];
	ct->total = 0;
	for (int i = 0; i < 10; i++)
		ct->total += v[i];
	return 0;
}

static double idle_pct(const struct cpu_times *a, const struct cpu_times *b)
{
	unsigned long long total = b->total - a->total;

	if (total < WIS_MIN_IDLE_TICKS)
		return -1;
	return 100.0 * (double)(b->idle - a->idle) / (double)total;
}

static unsigned long long meminfo_kb(const char *key)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[256];
	size_t klen = strlen(key);
	unsigned long long v = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, key, klen) && line[klen] == ':') {
			v = strtoull(line + klen + 1, NULL, 10);
			break;
		}
	}
	fclose(f);
	return v;
}

int wis_probe_madvise(int advice)
{
	size_t len = 2 * WIS_MIB;
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int err = 0;

	if (p == MAP_FAILED)
		return errno;
	if (madvise(p, len, advice))
		err = errno;
	munmap(p, len);
	return err;
}

int wis_check_madv_populate(int advice, char *why, size_t len)
{
	const char *name = advice == MADV_POPULATE_READ ? "MADV_POPULATE_READ" : "MADV_POPULATE_WRITE";
	int err = wis_probe_madvise(advice);

	if (err == EINVAL) {
		snprintf(why, len, "madvise(%s) returned EINVAL (needs Linux 5.14 or later)", name);
		return 1;
	}
	if (err) {
		snprintf(why, len, "madvise(%s) probe failed: %s", name, strerror(err));
		return -1;
	}
	return 0;
}

const char *wis_tmpdir(void)
{
	const char *d = getenv("TMPDIR");

	return (d && *d) ? d : "/tmp";
}

int wis_tmpfile(uint64_t size_bytes)
{
	char path[PATH_MAX];
	int fd, err;

	if (snprintf(path, sizeof(path), "%s/wis.XXXXXX", wis_tmpdir()) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	fd = mkstemp(path);
	if (fd < 0)
		return -errno;
	/* Unlinked at once: nothing is left behind however we stop. */
	unlink(path);
	if (ftruncate(fd, (off_t)size_bytes)) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

/* ------------------------------------------------------------------ */
/* options */

struct harness_opt {
	const char *name;
	const char *arg;
	const char *help;
};

static const struct harness_opt harness_opts[] = {
    {"mode", "threads|processes|both", "task kind; both runs processes then threads per task count (default both)"},
    {"tasks", "LIST", "task counts, e.g. 1,2,4 or 1-4 (default 1)"},
    {"duration", "S", "seconds of measurement per run (default 5)"},
    {"warmup", "S", "seconds of discarded warm-up per run (default 2)"},
    {"interval", "S", "sampling interval in seconds (default 1, min 0.05)"},
    {"rounds", "N", "fixed-work benchmarks: measured rounds (default 0 = as many as fit --duration)"},
    {"max-mem-share", "F", "refuse footprints above F x MemTotal (default 0.25)"},
    {"out", "FILE.csv", "write the CSV here instead of stdout (an existing FILE is refused)"},
    {"force", NULL, "replace an existing --out FILE"},
    {"time-limit", "S", "stop the whole program after S seconds (default 120)"},
    {"counts", NULL, "also run each point under perf stat and report faults, mmap_lock and TLB flushes per op"},
    {"no-pin", NULL, "do not bind tasks to CPUs"},
    {"verbose", NULL, "print every sample to stderr"},
    {"help", NULL, "show this help"},
    {"counts-child", "OPS", "(internal) one fixed run for --counts"},
    {NULL, NULL, NULL},
};

static void usage(FILE *f)
{
	const struct wis_bench *b = g_bench;

	fprintf(f, "usage: wis_%s [options]\n%s\none op: %s\n\nharness options:\n", b->name, b->description,
		b->op_definition);
	for (const struct harness_opt *o = harness_opts; o->name; o++)
		fprintf(f, "  --%s%s%s\n      %s\n", o->name, o->arg ? " " : "", o->arg ? o->arg : "", o->help);
	if (b->opts && b->opts->name) {
		fprintf(f, "\n%s options:\n", b->name);
		for (const struct wis_opt *o = b->opts; o->name; o++)
			fprintf(f, "  --%s%s%s\n      %s\n", o->name, o->arg ? " " : "", o->arg ? o->arg : "", o->help);
	}
	fprintf(f, "\nexit codes: 0 ok, 1 run failed, 2 refused or bad usage, "
		   "3 time limit, 77 skipped (cannot run here)\n");
}

static int usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "wis_%s: ", g_bench->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n(see --help)\n");
	return WIS_EXIT_REFUSED;
}

/* Returns -1 to continue, otherwise an exit code. */
static int parse_args(int argc, char **argv)
{
	struct wis_config *c = &g_cfg;

	memset(c, 0, sizeof(*c));
	c->want[MODE_PROCESSES] = c->want[MODE_THREADS] = 1;
	c->tasks[0] = 1;
	c->nr_task_counts = 1;
	c->duration_s = 5;
	c->warmup_s = 2;
	c->interval_s = 1;
	c->max_mem_share = 0.25;
	c->time_limit_s = 120;
	c->pin = 1;
	c->counts_child = -1;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *val = NULL;
		char name[64];
		const char *eq;
		int takes_arg = -1;

		if (strncmp(a, "--", 2))
			return usage_error("unexpected argument '%s'", a);
		a += 2;
		eq = strchr(a, '=');
		if (eq) {
			if ((size_t)(eq - a) >= sizeof(name))
				return usage_error("option too long");
			memcpy(name, a, (size_t)(eq - a));
			name[eq - a] = '\0';
			val = eq + 1;
		} else {
			snprintf(name, sizeof(name), "%s", a);
		}
		for (const struct harness_opt *o = harness_opts; o->name; o++)
			if (!strcmp(o->name, name))
				takes_arg = o->arg != NULL;
		if (takes_arg < 0 && g_bench->opts) {
			for (const struct wis_opt *o = g_bench->opts; o->name; o++)
				if (!strcmp(o->name, name))
					takes_arg = o->arg != NULL;
		}
		if (takes_arg < 0)
			return usage_error("unknown option --%s", name);
		if (takes_arg && !val) {
			if (i + 1 >= argc)
				return usage_error("--%s needs a value", name);
			val = argv[++i];
		}
		if (!takes_arg && val)
			return usage_error("--%s takes no value", name);

		if (!strcmp(name, "help")) {
			usage(stdout);
			return WIS_EXIT_OK;
		} else if (!strcmp(name, "mode")) {
			c->want[MODE_PROCESSES] = !strcmp(val, "processes") || !strcmp(val, "both");
			c->want[MODE_THREADS] = !strcmp(val, "threads") || !strcmp(val, "both");
			if (!c->want[0] && !c->want[1])
				return usage_error("--mode must be threads, processes or both");
		} else if (!strcmp(name, "tasks")) {
			if (parse_task_list(val, c))
				return usage_error("bad --tasks '%s' (1..%d, list or ranges)", val, WIS_MAX_TASKS);
		} else if (!strcmp(name, "duration")) {
			if (parse_double(val, &c->duration_s) || c->duration_s <= 0)
				return usage_error("bad --duration '%s'", val);
		} else if (!strcmp(name, "warmup")) {
			if (parse_double(val, &c->warmup_s) || c->warmup_s < 0)
				return usage_error("bad --warmup '%s'", val);
		} else if (!strcmp(name, "interval")) {
			if (parse_double(val, &c->interval_s) || c->interval_s < 0.05)
				return usage_error("bad --interval '%s' (>= 0.05)", val);
		} else if (!strcmp(name, "rounds")) {
			unsigned long long v;

			if (parse_uint(val, &v) || v > WIS_MAX_ROUNDS)
				return usage_error("bad --rounds '%s'", val);
			c->rounds = (unsigned int)v;
		} else if (!strcmp(name, "max-mem-share")) {
			if (parse_double(val, &c->max_mem_share) || c->max_mem_share <= 0 || c->max_mem_share > 1)
				return usage_error("bad --max-mem-share '%s' (0 < F <= 1)", val);
		} else if (!strcmp(name, "out")) {
			c->out_path = *val ? val : NULL;
		} else if (!strcmp(name, "time-limit")) {
			if (parse_double(val, &c->time_limit_s) || c->time_limit_s <= 0)
				return usage_error("bad --time-limit '%s'", val);
		} else if (!strcmp(name, "force")) {
			c->force = 1;
		} else if (!strcmp(name, "counts")) {
			c->counts = 1;
		} else if (!strcmp(name, "no-pin")) {
			c->pin = 0;
		} else if (!strcmp(name, "verbose")) {
			c->verbose = 1;
		} else if (!strcmp(name, "counts-child")) {
			unsigned long long v;

			if (parse_uint(val, &v) || v > (1ULL << 40))
				return usage_error("bad --counts-child '%s'", val);
			c->counts_child = (long long)v;
		} else {
			if (!g_bench->set_opt || g_bench->set_opt(name, val ? val : ""))
				return usage_error("bad value for --%s: '%s'", name, val ? val : "");
		}
	}
	if (c->interval_s > c->duration_s)
		c->interval_s = c->duration_s;
	return -1;
}

/* ------------------------------------------------------------------ */
/* placement: task i on core i % ncores, its k-th hardware thread with
 * k = (i / ncores), so second hardware threads are used only once every
 * core has a task (will-it-scale binds to the whole core; we bind to one
 * PU so the order of hardware threads is explicit). */

static hwloc_topology_t g_topo;
static int g_topo_ok;

static int topology_load(void)
{
	if (hwloc_topology_init(&g_topo))
		return -ENOMEM;
	if (hwloc_topology_load(g_topo)) {
		hwloc_topology_destroy(g_topo);
		return -EIO;
	}
	g_topo_ok = 1;
	return 0;
}

static int allowed_cpus(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set))
		return -errno;
	return CPU_COUNT(&set);
}

static int compute_placement(unsigned int n)
{
	int ncores, npus;
	hwloc_obj_type_t unit = HWLOC_OBJ_CORE;
	size_t used = 0;

	g_placement[0] = '\0';
	if (!g_cfg.pin) {
		snprintf(g_placement, sizeof(g_placement), "unpinned (--no-pin)");
		return 0;
	}
	if (!g_topo_ok) {
		snprintf(g_placement, sizeof(g_placement), "unpinned (hwloc topology unavailable)");
		return 0;
	}
	ncores = hwloc_get_nbobjs_by_type(g_topo, HWLOC_OBJ_CORE);
	npus = hwloc_get_nbobjs_by_type(g_topo, HWLOC_OBJ_PU);
	if (ncores <= 0) {
		unit = HWLOC_OBJ_PU;
		ncores = npus;
	}
	if (ncores <= 0)
		return -ENODEV;
	g_task_cpus = xcalloc(n, sizeof(*g_task_cpus));
	used = (size_t)snprintf(g_placement, sizeof(g_placement), "task i -> %s i %% %d, hardware thread i / %d; cpus:",
				unit == HWLOC_OBJ_CORE ? "core" : "pu", ncores, ncores);
	for (unsigned int i = 0; i < n; i++) {
		hwloc_obj_t core = hwloc_get_obj_by_type(g_topo, unit, (unsigned int)(i % (unsigned int)ncores));
		hwloc_obj_t pu = core;
		hwloc_bitmap_t set;

		if (!core)
			return -ENODEV;
		if (unit == HWLOC_OBJ_CORE) {
			int k = hwloc_get_nbobjs_inside_cpuset_by_type(g_topo, core->cpuset, HWLOC_OBJ_PU);

			if (k <= 0)
				return -ENODEV;
			pu = hwloc_get_obj_inside_cpuset_by_type(g_topo, core->cpuset, HWLOC_OBJ_PU,
								 (i / (unsigned int)ncores) % (unsigned int)k);
			if (!pu)
				return -ENODEV;
		}
		set = hwloc_bitmap_dup(pu->cpuset);
		if (!set)
			die_oom();
		hwloc_bitmap_singlify(set);
		hwloc_cpuset_to_glibc_sched_affinity(g_topo, set, &g_task_cpus[i], sizeof(cpu_set_t));
		hwloc_bitmap_free(set);
		if (used < sizeof(g_placement))
			used += (size_t)snprintf(g_placement + used, sizeof(g_placement) - used, "%s%u", i ? "," : " ",
						 pu->os_index);
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* tasks */

static struct wis_slot *slot_of(struct wis_run *r, unsigned int i)
{
	return (struct wis_slot *)(r->area + WIS_SLOT_BYTES * (i + 1));
}

static void post_event(struct wis_run *r)
{
	char c = 1;
	ssize_t rc;

	do {
		rc = write(r->events[1], &c, 1);
	} while (rc < 0 && errno == EINTR);
}

static void wait_readable(int fd)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};

	while (poll(&p, 1, -1) < 0 && errno == EINTR)
		;
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#endif
}

/*
 * A fixed-work round's start: the pipe gate wakes the tasks tens of microseconds apart (a
 * populate_none round is about as long), so they meet here, spinning, and the last to arrive
 * stamps the start.  Every task is on its own CPU (placement refuses more tasks than CPUs).  A
 * stop request (SIGINT, time limit) ends the wait.
 */
static void spin_barrier(struct wis_run *r)
{
	struct wis_ctl *c = r->ctl;
	int64_t give_up;

	if (__atomic_add_fetch(&c->arrived, 1, __ATOMIC_ACQ_REL) == r->n) {
		__atomic_store_n(&c->start_ns, now_ns(), __ATOMIC_RELEASE);
		return;
	}
	/* a task that died before it arrived must not hold the others: after a second they go on
	 * (the round's makespan is then taken from the gate, and the dead task fails the round) */
	give_up = now_ns() + 1000000000LL;
	for (unsigned k = 0; __atomic_load_n(&c->arrived, __ATOMIC_ACQUIRE) < r->n && !c->stop && !g_signal; k++) {
		cpu_relax();
		if (!(k & 1023) && now_ns() > give_up)
			break;
	}
}

static void task_main(struct wis_run *r, unsigned int i)
{
	const struct wis_bench *b = r->b;
	struct wis_task *t = &r->tasks[i];
	struct wis_slot *s = slot_of(r, i);
	int rc = 0;

	if (g_task_cpus && sched_setaffinity(0, sizeof(cpu_set_t), &g_task_cpus[i]))
		rc = -errno;
	if (!rc && b->setup)
		rc = b->setup(t);
	if (rc) {
		s->err = -rc;
		__atomic_store_n(&s->state, SLOT_FAILED, __ATOMIC_RELEASE);
		post_event(r);
		return;
	}
	__atomic_store_n(&s->state, SLOT_READY, __ATOMIC_RELEASE);
	post_event(r);

	wait_readable(r->gate[0]);
	if (b->fixed_ops)
		spin_barrier(r);
	if (!r->ctl->stop && !r->ctl->skip_run)
		rc = b->run(t);
	s->done_ns = now_ns();
	if (rc)
		s->err = -rc;
	__atomic_store_n(&s->state, rc ? SLOT_FAILED : SLOT_DONE, __ATOMIC_RELEASE);
	post_event(r);

	/* Unmapping waits until every task has finished its timed part. */
	wait_readable(r->release[0]);
	if (b->teardown)
		b->teardown(t);
}

static void *thread_main(void *arg)
{
	struct wis_task *t = arg;
	struct wis_run *r = t->priv;

	t->priv = NULL;
	task_main(r, t->index);
	return NULL;
}

static void open_pipe_gate(int fd[2], int *open_flag)
{
	char c = 1;
	ssize_t rc;

	if (*open_flag)
		return;
	do {
		rc = write(fd[1], &c, 1);
	} while (rc < 0 && errno == EINTR);
	*open_flag = 1;
}

static void run_free(struct wis_run *r)
{
	int *fds[] = {r->gate, r->release, r->events};

	for (size_t k = 0; k < sizeof(fds) / sizeof(fds[0]); k++) {
		if (fds[k][0] >= 0)
			close(fds[k][0]);
		if (fds[k][1] >= 0)
			close(fds[k][1]);
	}
	if (r->area)
		munmap(r->area, r->area_bytes);
	free(r->tasks);
	free(r->tids);
	free(r->thread_started);
	free(r->pids);
	if (g_live_run == r)
		g_live_run = NULL;
	memset(r, 0, sizeof(*r));
}

static int run_init(struct wis_run *r, const struct wis_bench *b, int threads, unsigned int n, uint64_t ops_limit)
{
	memset(r, 0, sizeof(*r));
	r->gate[0] = r->gate[1] = r->release[0] = r->release[1] = -1;
	r->events[0] = r->events[1] = -1;
	r->b = b;
	r->threads = threads;
	r->n = n;
	r->area_bytes = WIS_SLOT_BYTES * ((size_t)n + 1);
	r->area = mmap(NULL, r->area_bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (r->area == MAP_FAILED) {
		r->area = NULL;
		return -errno;
	}
	madvise(r->area, r->area_bytes, MADV_NOHUGEPAGE);
	r->ctl = (struct wis_ctl *)r->area;
	if (pipe(r->gate) || pipe(r->release) || pipe(r->events))
		return -errno;
	fcntl(r->events[0], F_SETFL, O_NONBLOCK);
	r->tasks = xcalloc(n, sizeof(*r->tasks));
	r->tids = xcalloc(n, sizeof(*r->tids));
	r->thread_started = xcalloc(n, sizeof(*r->thread_started));
	r->pids = xcalloc(n, sizeof(*r->pids));
	for (unsigned int i = 0; i < n; i++) {
		struct wis_task *t = &r->tasks[i];
		struct wis_slot *s = slot_of(r, i);

		t->index = i;
		t->nr_tasks = n;
		t->threads = threads;
		t->ops = &s->ops;
		t->stop = &r->ctl->stop;
		t->ops_limit = ops_limit;
		t->info = &s->info;
	}
	g_live_run = r;
	return 0;
}

static int run_spawn(struct wis_run *r)
{
	sigset_t block, old;
	pid_t parent = getpid();

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigaddset(&block, SIGALRM);
	/* Tasks never take our signals; the parent stops them through ctl. */
	pthread_sigmask(SIG_BLOCK, &block, &old);
	for (unsigned int i = 0; i < r->n; i++) {
		if (r->threads) {
			r->tasks[i].priv = r;
			if (pthread_create(&r->tids[i], NULL, thread_main, &r->tasks[i]))
				break;
			r->thread_started[i] = 1;
		} else {
			pid_t pid = fork();

			if (pid < 0)
				break;
			if (pid == 0) {
				struct sigaction sa;

				prctl(PR_SET_PDEATHSIG, SIGKILL);
				if (getppid() != parent)
					_exit(WIS_EXIT_ERROR);
				memset(&sa, 0, sizeof(sa));
				sa.sa_handler = SIG_DFL;
				sigaction(SIGINT, &sa, NULL);
				sigaction(SIGTERM, &sa, NULL);
				sigaction(SIGHUP, &sa, NULL);
				sa.sa_handler = SIG_IGN;
				sigaction(SIGALRM, &sa, NULL);
				task_main(r, i);
				_exit(0);
			}
			r->pids[i] = pid;
		}
		r->started++;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r->started < r->n) {
		fprintf(stderr, "wis: could only start %u of %u %s\n", r->started, r->n,
			r->threads ? "threads" : "processes");
		return -EAGAIN;
	}
	return 0;
}

/* Processes that died without reporting are marked failed. */
static void reap_dead(struct wis_run *r)
{
	if (r->threads)
		return;
	for (unsigned int i = 0; i < r->started; i++) {
		int status;
		struct wis_slot *s = slot_of(r, i);

		if (r->pids[i] <= 0)
			continue;
		if (waitpid(r->pids[i], &status, WNOHANG) == r->pids[i]) {
			r->pids[i] = 0;
			if (__atomic_load_n(&s->state, __ATOMIC_ACQUIRE) != SLOT_DONE && s->state != SLOT_FAILED) {
				s->err = WIFSIGNALED(status) ? 1000 + WTERMSIG(status) : EIO;
				s->state = SLOT_FAILED;
			}
		}
	}
}

static void drain_events(struct wis_run *r)
{
	char buf[256];

	while (read(r->events[0], buf, sizeof(buf)) > 0)
		;
}

/* Count slots in a state; failed slots are counted separately. */
static unsigned int count_state(struct wis_run *r, int state, unsigned int *failed)
{
	unsigned int c = 0, f = 0;

	for (unsigned int i = 0; i < r->started; i++) {
		int s = __atomic_load_n(&slot_of(r, i)->state, __ATOMIC_ACQUIRE);

		if (s == SLOT_FAILED)
			f++;
		else if (s >= state)
			c++;
	}
	if (failed)
		*failed = f;
	return c;
}

/*
 * Wait until every task reached state (or failed).  Returns 0, -EINTR on
 * a signal (if interruptible), -ETIMEDOUT after timeout_s (< 0: none).
 */
static int wait_all(struct wis_run *r, int state, double timeout_s, int interruptible)
{
	int64_t deadline = timeout_s < 0 ? INT64_MAX : now_ns() + (int64_t)(timeout_s * 1e9);

	for (;;) {
		struct pollfd p = {.fd = r->events[0], .events = POLLIN};
		unsigned int failed;

		drain_events(r);
		reap_dead(r);
		if (count_state(r, state, &failed) + failed == r->started)
			return 0;
		if (interruptible && g_signal)
			return -EINTR;
		if (now_ns() > deadline)
			return -ETIMEDOUT;
		poll(&p, 1, 100);
	}
}

static int first_error(struct wis_run *r, unsigned int *which)
{
	for (unsigned int i = 0; i < r->n; i++) {
		struct wis_slot *s = slot_of(r, i);

		if (s->state == SLOT_FAILED) {
			*which = i;
			return s->err ? s->err : EIO;
		}
	}
	return 0;
}

static void report_task_error(struct wis_run *r)
{
	unsigned int i = 0;
	int err = first_error(r, &i);

	if (!err)
		return;
	if (err > 1000)
		fprintf(stderr, "wis_%s: %s task %u killed by signal %d\n", r->b->name,
			r->threads ? "thread" : "process", i, err - 1000);
	else
		fprintf(stderr, "wis_%s: %s task %u failed: %s\n", r->b->name, r->threads ? "thread" : "process", i,
			strerror(err));
}

/* Stop every task, let it tear down, and collect it. */
static int run_finish(struct wis_run *r)
{
	int rc = 0;

	if (g_signal)
		arm_backstop();
	r->ctl->stop = 1;
	open_pipe_gate(r->gate, &r->gate_open);
	if (wait_all(r, SLOT_DONE, WIS_STOP_GRACE_S, 0)) {
		fprintf(stderr, "wis_%s: tasks did not stop within %.0f s\n", r->b->name, WIS_STOP_GRACE_S);
		rc = -ETIMEDOUT;
	}
	open_pipe_gate(r->release, &r->release_open);
	if (r->threads) {
		if (rc) {
			/* A stuck thread cannot be joined; leave the process. */
			fprintf(stderr, "wis: exiting without joining threads\n");
			_exit(WIS_EXIT_ERROR);
		}
		for (unsigned int i = 0; i < r->n; i++)
			if (r->thread_started[i])
				pthread_join(r->tids[i], NULL);
	} else {
		int64_t deadline = now_ns() + (int64_t)(WIS_STOP_GRACE_S * 1e9);

		for (unsigned int i = 0; i < r->started; i++) {
			int status;

			while (r->pids[i] > 0) {
				pid_t p = waitpid(r->pids[i], &status, WNOHANG);

				if (p == r->pids[i] || (p < 0 && errno == ECHILD)) {
					r->pids[i] = 0;
					break;
				}
				if (rc || now_ns() > deadline) {
					kill(r->pids[i], SIGKILL);
					waitpid(r->pids[i], &status, 0);
					r->pids[i] = 0;
					break;
				}
				usleep(1000);
			}
		}
	}
	return rc;
}

/* Stop the tasks, free the run, and keep the first error: @rc, the stop's, or a task's. */
static int run_close(struct wis_run *r, int rc)
{
	int frc = run_finish(r);

	if (!rc && frc)
		rc = frc;
	if (!rc && first_error(r, &(unsigned int){0})) {
		report_task_error(r);
		rc = -EIO;
	}
	run_free(r);
	return rc;
}

static uint64_t sum_ops(struct wis_run *r, uint64_t *per_task)
{
	uint64_t sum = 0;

	for (unsigned int i = 0; i < r->n; i++) {
		uint64_t v = slot_of(r, i)->ops;

		if (per_task)
			per_task[i] = v;
		sum += v;
	}
	return sum;
}

/* Sleep until an absolute CLOCK_MONOTONIC time; -EINTR on a signal. */
static int sleep_until(int64_t t_ns)
{
	struct timespec ts = {.tv_sec = t_ns / 1000000000LL, .tv_nsec = t_ns % 1000000000LL};

	for (;;) {
		int rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);

		if (!rc)
			return 0;
		if (rc == EINTR && g_signal)
			return -EINTR;
		if (rc != EINTR)
			return -rc;
	}
}

/* utime + stime (ticks) of a /proc/<pid>/stat file; 0 when unreadable. */
static unsigned long long stat_cpu_ticks(const char *path)
{
	char buf[1024], *p;
	unsigned long long ut = 0, st = 0;
	FILE *f = fopen(path, "r");
	size_t len;

	if (!f)
		return 0;
	len = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[len] = '\0';
	p = strrchr(buf, ')');
	/* after "pid (comm)": state ppid pgrp session tty tpgid flags
	 * minflt cminflt majflt cmajflt utime stime */
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2)
		return 0;
	return ut + st;
}

/*
 * CPU time the run's tasks have used so far, in ticks (threads mode: the
 * whole process, whose parent thread mostly sleeps).  Compared with the
 * wall-clock window it shows whether other load took CPU from the tasks.
 */
static unsigned long long run_cpu_ticks(struct wis_run *r)
{
	unsigned long long sum = 0;
	char path[64];

	if (r->threads)
		return stat_cpu_ticks("/proc/self/stat");
	for (unsigned int i = 0; i < r->started; i++) {
		if (r->pids[i] <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)r->pids[i]);
		sum += stat_cpu_ticks(path);
	}
	return sum;
}

/*
 * CPUs' worth of busy time in a window that the tasks were not charged
 * for: other programs, and kernel threads working for anyone (e.g.
 * writeback).  Derived from /proc/stat busy ticks minus the tasks' ticks.
 */
static double other_cpus(const struct cpu_times *a, const struct cpu_times *b, unsigned long long task_ticks,
			 double window_s)
{
	double busy = (double)((b->total - b->idle) - (a->total - a->idle));

	if (window_s * (double)sysconf(_SC_CLK_TCK) < WIS_MIN_IDLE_TICKS)
		return -1;
	return (busy - (double)task_ticks) / (double)sysconf(_SC_CLK_TCK) / window_s;
}

static double cpu_share(unsigned long long ticks, double task_seconds)
{
	/* Too few ticks to say anything: -1, as for idle. */
	if (task_seconds * (double)sysconf(_SC_CLK_TCK) < WIS_MIN_IDLE_TICKS)
		return -1;
	return (double)ticks / (double)sysconf(_SC_CLK_TCK) / task_seconds;
}

/* ------------------------------------------------------------------ */
/* measurement of one point */

struct result {
	double ops_per_s;
	double idle_pct;
	char detail[2048]; /* the "#run" line body */
};

static FILE *g_runlog; /* "#run" and "#counts" lines */
static char *g_runlog_buf;
static size_t g_runlog_len;

static int start_tasks(struct wis_run *r, int mode, unsigned int n, uint64_t ops_limit)
{
	int rc = run_init(r, g_bench, mode == MODE_THREADS, n, ops_limit);

	if (rc) {
		fprintf(stderr, "wis_%s: cannot set up a run: %s\n", g_bench->name, strerror(-rc));
		return rc;
	}
	rc = run_spawn(r);
	if (!rc)
		rc = wait_all(r, SLOT_READY, -1, 1);
	if (!rc && first_error(r, &(unsigned int){0})) {
		report_task_error(r);
		rc = -EIO;
	}
	return rc;
}

/* A rate benchmark at n tasks: warm-up samples discarded, then ops/s. */
static int measure_rate(int mode, unsigned int n, struct result *res)
{
	struct wis_run r;
	int64_t interval_ns = (int64_t)(g_cfg.interval_s * 1e9);
	unsigned int nwarm = (unsigned int)ceil(g_cfg.warmup_s / g_cfg.interval_s - 1e-9);
	unsigned int nmeas = (unsigned int)llround(g_cfg.duration_s / g_cfg.interval_s);
	uint64_t *t0 = xcalloc(n, sizeof(uint64_t));
	uint64_t *t1 = xcalloc(n, sizeof(uint64_t));
	struct cpu_times c0 = {0}, c1 = {0};
	unsigned long long task0 = 0, task1 = 0;
	uint64_t s0 = 0, s1 = 0, prev = 0;
	int64_t w0 = 0, w1 = 0, prev_ns;
	double smin = INFINITY, smax = 0, tmin = INFINITY, tmax = 0;
	int rc;

	if (!nmeas)
		nmeas = 1;
	rc = start_tasks(&r, mode, n, 0);
	if (rc)
		goto out;
	r.gate_ns = now_ns();
	prev_ns = r.gate_ns;
	if (!nwarm) {
		read_cpu_times(&c0);
		task0 = run_cpu_ticks(&r);
		w0 = now_ns();
	}
	open_pipe_gate(r.gate, &r.gate_open);
	for (unsigned int k = 1; k <= nwarm + nmeas; k++) {
		uint64_t sum;
		int64_t t;

		rc = sleep_until(r.gate_ns + (int64_t)k * interval_ns);
		if (rc)
			goto out;
		drain_events(&r);
		reap_dead(&r);
		if (first_error(&r, &(unsigned int){0})) {
			report_task_error(&r);
			rc = -EIO;
			goto out;
		}
		t = now_ns();
		sum = sum_ops(&r, k == nwarm ? t0 : k == nwarm + nmeas ? t1 : NULL);
		if (k == nwarm) {
			read_cpu_times(&c0);
			task0 = run_cpu_ticks(&r);
			w0 = t;
			s0 = sum;
		} else if (k > nwarm) {
			double rate = (double)(sum - prev) * 1e9 / (double)(t - prev_ns);

			if (rate < smin)
				smin = rate;
			if (rate > smax)
				smax = rate;
		}
		if (k == nwarm + nmeas) {
			read_cpu_times(&c1);
			task1 = run_cpu_ticks(&r);
			w1 = t;
			s1 = sum;
		}
		if (g_cfg.verbose)
			fprintf(stderr, "  %s n=%u sample %u%s: %.0f ops/s\n", mode_name[mode], n, k,
				k <= nwarm ? " (warm-up)" : "", (double)(sum - prev) * 1e9 / (double)(t - prev_ns));
		prev = sum;
		prev_ns = t;
	}
	for (unsigned int i = 0; i < n; i++) {
		double rate = (double)(t1[i] - t0[i]) * 1e9 / (double)(w1 - w0);

		if (rate < tmin)
			tmin = rate;
		if (rate > tmax)
			tmax = rate;
	}
	res->ops_per_s = (double)(s1 - s0) * 1e9 / (double)(w1 - w0);
	res->idle_pct = idle_pct(&c0, &c1);
	snprintf(res->detail, sizeof(res->detail),
		 "ops=%llu window_s=%.3f ops_per_s=%.1f idle_pct=%.2f idle_window_ticks=%llu "
		 "samples=%u sample_ops_per_s_min=%.1f sample_ops_per_s_max=%.1f "
		 "task_ops_per_s_min=%.1f task_ops_per_s_max=%.1f ns_per_op_per_task=%.1f "
		 "task_cpu_share=%.3f other_cpus=%.3f",
		 (unsigned long long)(s1 - s0), (double)(w1 - w0) / 1e9, res->ops_per_s, res->idle_pct,
		 c1.total - c0.total, nmeas, smin, smax, tmin, tmax,
		 res->ops_per_s > 0 ? 1e9 * n / res->ops_per_s : NAN,
		 cpu_share(task1 - task0, (double)(w1 - w0) / 1e9 * n),
		 other_cpus(&c0, &c1, task1 - task0, (double)(w1 - w0) / 1e9));
out:
	if (r.area)
		rc = run_close(&r, rc);
	free(t0);
	free(t1);
	return rc;
}

struct round {
	double makespan_s;
	uint64_t ops;
	int64_t info0;
	struct cpu_times c0, c1;
	unsigned long long task_ticks; /* tasks' CPU time in the window */
	double task_seconds;	       /* window x tasks */
	double window_s;	       /* gate to all tasks done, as seen */
};

/* One round of a fixed-work benchmark: start, gate, wait for all. */
static int fixed_round(int mode, unsigned int n, int skip_run, struct round *out)
{
	struct wis_run r;
	int64_t last = 0;
	int rc;

	rc = start_tasks(&r, mode, n, 0);
	if (rc)
		goto out;
	r.ctl->skip_run = skip_run;
	read_cpu_times(&out->c0);
	out->task_ticks = run_cpu_ticks(&r);
	r.gate_ns = now_ns();
	open_pipe_gate(r.gate, &r.gate_open);
	rc = wait_all(&r, SLOT_DONE, -1, 1);
	read_cpu_times(&out->c1);
	out->task_ticks = run_cpu_ticks(&r) - out->task_ticks;
	out->window_s = (double)(now_ns() - r.gate_ns) / 1e9;
	out->task_seconds = out->window_s * n;
	if (rc)
		goto out;
	if (first_error(&r, &(unsigned int){0})) {
		report_task_error(&r);
		rc = -EIO;
		goto out;
	}
	for (unsigned int i = 0; i < n; i++)
		if (slot_of(&r, i)->done_ns > last)
			last = slot_of(&r, i)->done_ns;
	{
		int64_t start = __atomic_load_n(&r.ctl->start_ns, __ATOMIC_ACQUIRE);

		/* from the spinning start (below the gate's wake-up skew), else from the gate */
		out->makespan_s = (double)(last - (start > 0 ? start : r.gate_ns)) / 1e9;
	}
	out->ops = sum_ops(&r, NULL);
out:
	if (r.area) {
		int frc;

		/* Tear down first so info (read in teardown) is final. */
		frc = run_finish(&r);
		out->info0 = slot_of(&r, 0)->info;
		if (!rc && frc)
			rc = frc;
		run_free(&r);
	}
	return rc;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int measure_fixed(int mode, unsigned int n, struct result *res)
{
	struct round rd;
	double *ms = xcalloc(WIS_MAX_ROUNDS, sizeof(double));
	unsigned long long idle = 0, total = 0, task_ticks = 0;
	double task_seconds = 0, window_s = 0;
	struct cpu_times sum0 = {0}, sum1 = {0};
	unsigned int nr = 0;
	int64_t t_start;
	size_t used;
	int rc = 0;

	/* Warm-up rounds: at least one when --warmup > 0. */
	t_start = now_ns();
	if (g_cfg.warmup_s > 0) {
		do {
			rc = fixed_round(mode, n, 0, &rd);
			if (rc)
				goto out;
		} while ((double)(now_ns() - t_start) / 1e9 < g_cfg.warmup_s);
	}
	t_start = now_ns();
	for (;;) {
		memset(&rd, 0, sizeof(rd));
		rc = fixed_round(mode, n, 0, &rd);
		if (rc)
			goto out;
		if (rd.ops != (uint64_t)n * g_bench->fixed_ops) {
			fprintf(stderr, "wis_%s: round did %llu ops, expected %llu\n", g_bench->name,
				(unsigned long long)rd.ops, (unsigned long long)n * g_bench->fixed_ops);
			rc = -EIO;
			goto out;
		}
		ms[nr++] = rd.makespan_s;
		idle += rd.c1.idle - rd.c0.idle;
		total += rd.c1.total - rd.c0.total;
		task_ticks += rd.task_ticks;
		task_seconds += rd.task_seconds;
		window_s += rd.window_s;
		if (g_cfg.verbose)
			fprintf(stderr, "  %s n=%u round %u: makespan %.6f s\n", mode_name[mode], n, nr, rd.makespan_s);
		if (g_cfg.rounds ? nr >= g_cfg.rounds : (double)(now_ns() - t_start) / 1e9 >= g_cfg.duration_s)
			break;
		if (nr == WIS_MAX_ROUNDS)
			break;
	}
	{
		double *sorted = xcalloc(nr, sizeof(double));
		double median;

		/* the rounds' windows, added up, as one pair of readings */
		sum1.idle = idle;
		sum1.total = total;
		memcpy(sorted, ms, nr * sizeof(double));
		qsort(sorted, nr, sizeof(double), cmp_double);
		median = nr % 2 ? sorted[nr / 2] : 0.5 * (sorted[nr / 2 - 1] + sorted[nr / 2]);
		res->ops_per_s = (double)n * (double)g_bench->fixed_ops / median;
		res->idle_pct = total >= WIS_MIN_IDLE_TICKS ? 100.0 * (double)idle / (double)total : -1;
		used =
		    (size_t)snprintf(res->detail, sizeof(res->detail),
				     "ops_per_round=%llu rounds=%u makespan_s_median=%.6f "
				     "makespan_s_min=%.6f makespan_s_max=%.6f ops_per_s=%.3f "
				     "idle_pct=%.2f idle_window_ticks=%llu task_cpu_share=%.3f other_cpus=%.3f "
				     "info_task0_last_round=%lld makespans_s=",
				     (unsigned long long)n * g_bench->fixed_ops, nr, median, sorted[0], sorted[nr - 1],
				     res->ops_per_s, res->idle_pct, total, cpu_share(task_ticks, task_seconds),
				     other_cpus(&sum0, &sum1, task_ticks, window_s), (long long)rd.info0);
		for (unsigned int i = 0; i < nr && used < sizeof(res->detail); i++)
			used += (size_t)snprintf(res->detail + used, sizeof(res->detail) - used, "%s%.6f", i ? "," : "",
						 ms[i]);
		if (used >= sizeof(res->detail)) /* list cut: say so */
			memcpy(res->detail + sizeof(res->detail) - 5, ",...", 5);
		free(sorted);
	}
out:
	free(ms);
	return rc;
}

/* The --counts child: one run of exactly ops per task, no output. */
static int counts_child_main(void)
{
	int mode = g_cfg.want[MODE_THREADS] ? MODE_THREADS : MODE_PROCESSES;
	unsigned int n = g_cfg.tasks[0];
	uint64_t ops = (uint64_t)g_cfg.counts_child;
	int rc;

	/* If perf (our parent) goes away, stop cleanly instead of lingering. */
	prctl(PR_SET_PDEATHSIG, SIGTERM);

	if (g_bench->fixed_ops) {
		struct round rd;

		memset(&rd, 0, sizeof(rd));
		rc = fixed_round(mode, n, ops == 0, &rd);
	} else {
		struct wis_run r;

		rc = start_tasks(&r, mode, n, ops);
		if (!rc) {
			r.ctl->skip_run = ops == 0;
			open_pipe_gate(r.gate, &r.gate_open);
			rc = wait_all(&r, SLOT_DONE, -1, 1);
		}
		if (r.area)
			rc = run_close(&r, rc);
	}
	if (g_signal == SIGALRM)
		return WIS_EXIT_TIME_LIMIT;
	return rc ? WIS_EXIT_ERROR : WIS_EXIT_OK;
}

/* ------------------------------------------------------------------ */
/* perf counts */

#define NR_EVENTS 3
static const char *const perf_events[NR_EVENTS] = {
    "exceptions:page_fault_user",
    "mmap_lock:mmap_lock_start_locking",
    "tlb:tlb_flush",
};
static const char *const perf_event_label[NR_EVENTS] = {
    "faults_per_op",
    "mmap_lock_per_op",
    "tlb_flushes_per_op",
};

static char g_perf[PATH_MAX];
static char g_counts_unavailable[256];

static int find_perf(void)
{
	const char *path = getenv("PATH");
	char *copy, *save = NULL;

	if (path) {
		copy = strdup(path);
		if (!copy)
			die_oom();
		for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
			snprintf(g_perf, sizeof(g_perf), "%s/perf", d);
			if (!access(g_perf, X_OK)) {
				free(copy);
				return 0;
			}
		}
		free(copy);
	}
	snprintf(g_perf, sizeof(g_perf), "/usr/bin/perf");
	return access(g_perf, X_OK) ? -ENOENT : 0;
}

static int make_tmp_path(char *path, size_t len, const char *tag)
{
	int fd;

	snprintf(path, len, "%s/wis-%s.XXXXXX", wis_tmpdir(), tag);
	fd = mkstemp(path);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/*
 * Run "perf stat -x, -o FILE -e ... -- self ARGS --counts-child ops" and
 * read the three event totals.  On failure, why says what happened.
 */
static int perf_run(int mode, unsigned int n, uint64_t ops, double *values, char *why, size_t why_len)
{
	char out[PATH_MAX], err[PATH_MAX], self[PATH_MAX], nbuf[32], obuf[32];
	char **args;
	int na = 0, status = 0, rc = 0, have = 0;
	ssize_t sl;
	pid_t pid;
	FILE *f;
	char line[1024];

	sl = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (sl <= 0) {
		snprintf(why, why_len, "cannot resolve /proc/self/exe");
		return -EIO;
	}
	self[sl] = '\0';
	if (make_tmp_path(out, sizeof(out), "perf") || make_tmp_path(err, sizeof(err), "perferr")) {
		snprintf(why, why_len, "cannot create a file in %s", wis_tmpdir());
		return -EIO;
	}
	snprintf(nbuf, sizeof(nbuf), "%u", n);
	snprintf(obuf, sizeof(obuf), "%llu", (unsigned long long)ops);
	args = xcalloc((size_t)g_argc + 24, sizeof(char *));
	args[na++] = g_perf;
	args[na++] = "stat";
	args[na++] = "-x,";
	args[na++] = "-o";
	args[na++] = out;
	for (int e = 0; e < NR_EVENTS; e++) {
		args[na++] = "-e";
		args[na++] = (char *)perf_events[e];
	}
	args[na++] = "--";
	args[na++] = self;
	for (int i = 1; i < g_argc; i++)
		args[na++] = g_argv[i];
	/* Later options override earlier ones; --out/--counts are ignored. */
	args[na++] = "--mode";
	args[na++] = (char *)mode_name[mode];
	args[na++] = "--tasks";
	args[na++] = nbuf;
	args[na++] = "--counts-child";
	args[na++] = obuf;
	args[na] = NULL;

	pid = fork();
	if (pid < 0) {
		snprintf(why, why_len, "fork: %s", strerror(errno));
		rc = -errno;
		goto out;
	}
	if (pid == 0) {
		int fd = open(err, O_WRONLY | O_TRUNC);
		int nul = open("/dev/null", O_WRONLY);

		if (fd >= 0)
			dup2(fd, 2);
		if (nul >= 0)
			dup2(nul, 1);
		signal(SIGALRM, SIG_DFL);
		execv(g_perf, args);
		_exit(127);
	}
	for (;;) {
		pid_t p = waitpid(pid, &status, 0);

		if (p == pid)
			break;
		if (p < 0 && errno == EINTR && g_signal) {
			arm_backstop();
			kill(pid, SIGINT); /* perf stat passes it on to its workload */
			waitpid(pid, &status, 0);
			snprintf(why, why_len, "interrupted");
			rc = -EINTR;
			goto out;
		}
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		char first[200] = "";

		f = fopen(err, "r");
		if (f) {
			while (fgets(first, sizeof(first), f))
				if (first[0] != '\n')
					break;
			fclose(f);
		}
		first[strcspn(first, "\n")] = '\0';
		snprintf(why, why_len, "perf stat run exited with status %d%s%s",
			 WIFEXITED(status) ? WEXITSTATUS(status) : -1, first[0] ? ": " : "", first);
		rc = -EIO;
		goto out;
	}
	f = fopen(out, "r");
	if (!f) {
		snprintf(why, why_len, "perf wrote no output");
		rc = -EIO;
		goto out;
	}
	while (fgets(line, sizeof(line), f)) {
		char *fields[4] = {0}, *p = line;
		int nf = 0;

		if (line[0] == '#' || line[0] == '\n')
			continue;
		line[strcspn(line, "\n")] = '\0';
		while (nf < 4) {
			fields[nf++] = p;
			p = strchr(p, ',');
			if (!p)
				break;
			*p++ = '\0';
		}
		if (nf < 3)
			continue;
		for (int e = 0; e < NR_EVENTS; e++) {
			if (strcmp(fields[2], perf_events[e]))
				continue;
			if (!isdigit((unsigned char)fields[0][0])) {
				if ((size_t)snprintf(why, why_len, "%s: %.64s", perf_events[e], fields[0]) >= why_len)
					why[why_len - 1] = '\0';
				rc = -ENOTSUP;
			} else {
				values[e] = strtod(fields[0], NULL);
				have |= 1 << e;
			}
		}
	}
	fclose(f);
	if (!rc && have != (1 << NR_EVENTS) - 1) {
		snprintf(why, why_len, "perf output lacks some events");
		rc = -EIO;
	}
out:
	unlink(out);
	unlink(err);
	free(args);
	return rc;
}

static void measure_counts(int mode, unsigned int n)
{
	/* A rate benchmark is counted as the difference of K and 2K ops per task, so that what its
	 * first cycle alone does (a fresh file's page-cache misses) cancels; a fixed-work benchmark
	 * as one round minus setup and teardown alone (0 ops). */
	uint64_t ops = g_bench->fixed_ops ? g_bench->fixed_ops : g_bench->counts_ops;
	uint64_t base_ops = g_bench->fixed_ops ? 0 : ops, full_ops = g_bench->fixed_ops ? ops : 2 * ops;
	double base[NR_EVENTS] = {0}, full[NR_EVENTS] = {0};
	char why[256] = "";
	double total_ops = (double)(full_ops - base_ops) * n;

	if (g_counts_unavailable[0]) {
		fprintf(g_runlog, "#counts mode=%s tasks=%u unavailable: %s\n", mode_name[mode], n,
			g_counts_unavailable);
		return;
	}
	if (perf_run(mode, n, base_ops, base, why, sizeof(why)) ||
	    perf_run(mode, n, full_ops, full, why, sizeof(why))) {
		fprintf(g_runlog, "#counts mode=%s tasks=%u unavailable: %s\n", mode_name[mode], n, why);
		fprintf(stderr, "wis_%s: counts: unavailable: %s\n", g_bench->name, why);
		return;
	}
	fprintf(g_runlog, "#counts mode=%s tasks=%u ops=%.0f", mode_name[mode], n, total_ops);
	for (int e = 0; e < NR_EVENTS; e++)
		fprintf(g_runlog, " %s=%.6g", perf_event_label[e], (full[e] - base[e]) / total_ops);
	fprintf(g_runlog, " raw=");
	for (int e = 0; e < NR_EVENTS; e++)
		fprintf(g_runlog, "%s%.0f-%.0f", e ? "/" : "", full[e], base[e]);
	fprintf(g_runlog, "\n");
	fprintf(stderr, "  counts per op: faults %.4g, mmap_lock %.4g, tlb_flush %.4g\n",
		(full[0] - base[0]) / total_ops, (full[1] - base[1]) / total_ops, (full[2] - base[2]) / total_ops);
}

/* ------------------------------------------------------------------ */
/* metadata */

static void config_bits(FILE *f)
{
	static const char *const keys[] = {
	    "CONFIG_PER_VMA_LOCK", "CONFIG_TRANSPARENT_HUGEPAGE", "CONFIG_GUP_TEST", "CONFIG_NUMA",
	    "CONFIG_MEMCG",	   "CONFIG_PREEMPT_DYNAMIC",
	};
	enum { NK = sizeof(keys) / sizeof(keys[0]) };
	const char *val[NK] = {0};
	char vbuf[NK][16];
	char path[PATH_MAX], line[512], source[PATH_MAX + 32];
	struct utsname u;
	FILE *cf = NULL;
	int piped = 0;

	uname(&u);
	snprintf(path, sizeof(path), "/boot/config-%s", u.release);
	cf = fopen(path, "r");
	if (cf) {
		snprintf(source, sizeof(source), "%s", path);
	} else if (!access("/proc/config.gz", R_OK)) {
		cf = popen("gzip -dc /proc/config.gz 2>/dev/null", "r");
		piped = 1;
		snprintf(source, sizeof(source), "/proc/config.gz");
	}
	if (!cf) {
		fprintf(f, "# config: unknown (no /boot/config-%s, no /proc/config.gz)\n", u.release);
		return;
	}
	while (fgets(line, sizeof(line), cf)) {
		for (int k = 0; k < NK; k++) {
			size_t kl = strlen(keys[k]);

			if (!strncmp(line, keys[k], kl) && line[kl] == '=') {
				snprintf(vbuf[k], sizeof(vbuf[k]), "%.*s", (int)strcspn(line + kl + 1, "\n"),
					 line + kl + 1);
				val[k] = vbuf[k];
			} else if (!strncmp(line, "# ", 2) && !strncmp(line + 2, keys[k], kl) &&
				   !strncmp(line + 2 + kl, " is not set", 11)) {
				val[k] = "not set";
			}
		}
	}
	if (piped)
		pclose(cf);
	else
		fclose(cf);
	fprintf(f, "# config:");
	for (int k = 0; k < NK; k++)
		fprintf(f, " %s=%s", keys[k], val[k] ? val[k] : "absent");
	fprintf(f, " (from %s)\n", source);
}

static void bracketed(const char *path, char *out, size_t len)
{
	char line[256];
	char *a, *b;

	if (read_line(path, line, sizeof(line))) {
		snprintf(out, len, "unknown");
		return;
	}
	a = strchr(line, '[');
	b = a ? strchr(a, ']') : NULL;
	if (a && b)
		snprintf(out, len, "%.*s", (int)(b - a - 1), a + 1);
	else
		snprintf(out, len, "%.*s", (int)strcspn(line, " "), line);
}

static void cpu_info(FILE *f)
{
	FILE *c = fopen("/proc/cpuinfo", "r");
	char line[4096], model[256] = "unknown";
	int hyper = 0, nproc = 0;

	if (c) {
		while (fgets(line, sizeof(line), c)) {
			if (!strncmp(line, "processor", 9))
				nproc++;
			if (!strncmp(line, "model name", 10) && !strcmp(model, "unknown")) {
				char *p = strchr(line, ':');

				if (p)
					snprintf(model, sizeof(model), "%.*s", (int)strcspn(p + 2, "\n"), p + 2);
			}
			if (!strncmp(line, "flags", 5) && strstr(line, " hypervisor"))
				hyper = 1;
		}
		fclose(c);
	}
	fprintf(f, "# cpu: %s; %d logical CPUs in /proc/cpuinfo, %d allowed by sched_getaffinity\n", model, nproc,
		allowed_cpus());
	fprintf(f, "# virtual_machine: %s\n",
		hyper ? "yes (hypervisor flag in /proc/cpuinfo)" : "no (no hypervisor flag in /proc/cpuinfo)");
}

static void topology_info(FILE *f)
{
	unsigned int v = hwloc_get_api_version();

	if (!g_topo_ok) {
		fprintf(f, "# topology: unknown (hwloc topology did not load)\n");
		return;
	}
	fprintf(f, "# topology: hwloc %s (API %u.%u.%u): packages=%d numa_nodes=%d l3=%d cores=%d pus=%d\n",
		HWLOC_VERSION, v >> 16, (v >> 8) & 0xff, v & 0xff, hwloc_get_nbobjs_by_type(g_topo, HWLOC_OBJ_PACKAGE),
		hwloc_get_nbobjs_by_type(g_topo, HWLOC_OBJ_NUMANODE),
		hwloc_get_nbobjs_by_type(g_topo, HWLOC_OBJ_L3CACHE), hwloc_get_nbobjs_by_type(g_topo, HWLOC_OBJ_CORE),
		hwloc_get_nbobjs_by_type(g_topo, HWLOC_OBJ_PU));
}

static const char *fs_name(long type)
{
	switch ((unsigned long)type) {
	case 0xEF53:
		return "ext2/3/4";
	case 0x01021994:
		return "tmpfs";
	case 0x58465342:
		return "xfs";
	case 0x9123683E:
		return "btrfs";
	case 0x794c7630:
		return "overlayfs";
	case 0x2fc12fc1:
		return "zfs";
	default:
		return NULL;
	}
}

static void quote_arg(FILE *f, const char *a)
{
	int plain = *a != '\0';

	for (const char *p = a; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("_./=,:+-@%", *p))
			plain = 0;
	if (plain) {
		fputs(a, f);
		return;
	}
	fputc('\'', f);
	for (const char *p = a; *p; p++) {
		if (*p == '\'')
			fputs("'\\''", f);
		else
			fputc(*p, f);
	}
	fputc('\'', f);
}

static void write_metadata(FILE *f, double footprint_mib, double limit_mib)
{
	struct utsname u;
	char thp[64], defrag[64], date[64];
	time_t now = time(NULL);
	struct tm tm;

	uname(&u);
	gmtime_r(&now, &tm);
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", &tm);
	bracketed("/sys/kernel/mm/transparent_hugepage/enabled", thp, sizeof(thp));
	bracketed("/sys/kernel/mm/transparent_hugepage/defrag", defrag, sizeof(defrag));

	fprintf(f, "# wis %s: %s\n", g_bench->name, g_bench->description);
	fprintf(f, "# op: %s\n", g_bench->op_definition);
	if (g_bench->fixed_ops)
		fprintf(f,
			"# result: fixed work of %llu ops per task; processes/threads columns = tasks x %llu / median "
			"makespan (ops/s, 3 decimals); makespans in #run lines\n",
			(unsigned long long)g_bench->fixed_ops, (unsigned long long)g_bench->fixed_ops);
	else
		fprintf(f, "# result: processes/threads columns = ops per second summed over all tasks in the "
			   "measurement window (warm-up discarded)\n");
	fprintf(
	    f,
	    "# idle: (idle+iowait) delta / total delta * 100 from the cpu line of /proc/stat (all CPUs) over the "
	    "measurement window%s; /proc/stat counts in ticks of 1/%ld s summed over CPUs (idle_window_ticks in #run "
	    "lines), so windows of few ticks give coarse idle values and windows under %d ticks give -1 (not "
	    "measurable); task_cpu_share in #run lines = CPU time of the tasks (/proc/<pid>/stat) / (window x tasks): "
	    "below 1 means they slept (e.g. on a lock) or other load took CPU from them; other_cpus = busy CPU time in "
	    "the window not charged to the tasks (other programs, kernel threads such as writeback), in CPUs\n",
	    g_bench->fixed_ops ? "s of the measured rounds" : "", sysconf(_SC_CLK_TCK), WIS_MIN_IDLE_TICKS);
	fprintf(f, "# date: %s\n", date);
	{
		char load[128];

		if (!read_line("/proc/loadavg", load, sizeof(load)))
			fprintf(f, "# loadavg_at_start: %s (other load shows as lower idle in #run lines)\n", load);
	}
	fprintf(f, "# host: %s\n", u.nodename);
	fprintf(f, "# kernel: %s %s %s\n", u.release, u.version, u.machine);
	config_bits(f);
	fprintf(f, "# thp: enabled=%s defrag=%s\n", thp, defrag);
	cpu_info(f);
	topology_info(f);
	fprintf(f, "# placement: %s\n", g_placement);
	fprintf(f, "# memory: MemTotal=%llu kB; footprint at %u tasks = %.0f MiB; limit = %.2f x MemTotal = %.0f MiB\n",
		meminfo_kb("MemTotal"), max_tasks(), footprint_mib, g_cfg.max_mem_share, limit_mib);
	if (g_bench->uses_tmpfile) {
		struct statfs sf;
		const char *fs = NULL;

		if (statfs(wis_tmpdir(), &sf))
			fprintf(f, "# tmpdir: %s (unknown: statfs failed)\n", wis_tmpdir());
		else if ((fs = fs_name((long)sf.f_type)))
			fprintf(f, "# tmpdir: %s (%s)\n", wis_tmpdir(), fs);
		else
			fprintf(f, "# tmpdir: %s (filesystem magic 0x%lx)\n", wis_tmpdir(), (unsigned long)sf.f_type);
	}
	fprintf(f, "# command:");
	for (int i = 0; i < g_argc; i++) {
		fputc(' ', f);
		quote_arg(f, g_argv[i]);
	}
	fputc('\n', f);
	fprintf(f, "# settings: warmup_s=%g duration_s=%g interval_s=%g rounds=%u time_limit_s=%g\n", g_cfg.warmup_s,
		g_cfg.duration_s, g_cfg.interval_s, g_cfg.rounds, g_cfg.time_limit_s);
	if (g_bench->describe)
		g_bench->describe(f);
	if (!g_cfg.counts)
		fprintf(f, "# counts: not requested (--counts)\n");
	else if (g_counts_unavailable[0])
		fprintf(f, "# counts: unavailable: %s\n", g_counts_unavailable);
	else
		fprintf(f,
			"# counts: perf stat (%s) -e %s -e %s -e %s around a run of %llu ops per task, minus a run of "
			"%llu; divided by tasks x the difference\n",
			g_perf, perf_events[0], perf_events[1], perf_events[2],
			(unsigned long long)(g_bench->fixed_ops ? g_bench->fixed_ops : 2 * g_bench->counts_ops),
			(unsigned long long)(g_bench->fixed_ops ? 0 : g_bench->counts_ops));
}

/* ------------------------------------------------------------------ */

static int safety_checks(double *footprint_mib, double *limit_mib)
{
	unsigned int n = max_tasks();
	int cpus = allowed_cpus();
	unsigned long long mem_kb = meminfo_kb("MemTotal");
	double footprint = (double)n * (double)g_bench->task_bytes;
	double limit = g_cfg.max_mem_share * (double)mem_kb * 1024.0;

	*footprint_mib = footprint / WIS_MIB;
	*limit_mib = limit / WIS_MIB;
	if (cpus <= 0) {
		fprintf(stderr, "wis_%s: sched_getaffinity failed\n", g_bench->name);
		return WIS_EXIT_REFUSED;
	}
	if (n > (unsigned int)cpus) {
		fprintf(stderr,
			"wis_%s: refusing %u tasks: only %d CPUs are allowed to this process (sched_getaffinity)\n",
			g_bench->name, n, cpus);
		return WIS_EXIT_REFUSED;
	}
	if (!mem_kb) {
		fprintf(stderr, "wis_%s: cannot read MemTotal\n", g_bench->name);
		return WIS_EXIT_REFUSED;
	}
	if (footprint > limit) {
		fprintf(stderr,
			"wis_%s: refusing %u tasks: footprint %u x %.0f MiB = %.0f MiB exceeds --max-mem-share %g x "
			"MemTotal = %.0f MiB\n",
			g_bench->name, n, n, (double)g_bench->task_bytes / WIS_MIB, footprint / WIS_MIB,
			g_cfg.max_mem_share, limit / WIS_MIB);
		return WIS_EXIT_REFUSED;
	}
	if (g_bench->uses_tmpfile) {
		struct statvfs sv;

		if (statvfs(wis_tmpdir(), &sv)) {
			fprintf(stderr, "wis_%s: cannot stat %s: %s\n", g_bench->name, wis_tmpdir(), strerror(errno));
			return WIS_EXIT_REFUSED;
		}
		if ((double)sv.f_bavail * (double)sv.f_frsize < footprint) {
			fprintf(stderr, "wis_%s: refusing: %s has %.0f MiB free, the temporary files need %.0f MiB\n",
				g_bench->name, wis_tmpdir(), (double)sv.f_bavail * (double)sv.f_frsize / WIS_MIB,
				footprint / WIS_MIB);
			return WIS_EXIT_REFUSED;
		}
	}
	return 0;
}

static void print_number(FILE *f, double v)
{
	if (g_bench->fixed_ops)
		fprintf(f, "%.3f", v);
	else
		fprintf(f, "%.0f", v);
}

static int write_csv(const char *meta, size_t meta_len, struct point *pts, unsigned int npts)
{
	FILE *f = stdout;
	char tmp[PATH_MAX];
	double linear = 0;
	int have_one = 0;

	for (unsigned int i = 0; i < npts; i++) {
		if (pts[i].tasks != 1)
			continue;
		for (int m = 0; m < NR_MODES; m++)
			if (pts[i].have[m] && pts[i].ops_per_s[m] > linear)
				linear = pts[i].ops_per_s[m];
		have_one = 1;
	}
	if (g_cfg.out_path) {
		int fd;

		/* a unique name beside the target, so two runs never share a temporary file */
		if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp-XXXXXX", g_cfg.out_path) >= sizeof(tmp)) {
			fprintf(stderr, "wis_%s: --out %s: name too long\n", g_bench->name, g_cfg.out_path);
			return -ENAMETOOLONG;
		}
		fd = mkstemp(tmp);
		if (fd >= 0) {
			mode_t mask = umask(0); /* mkstemp makes 0600; the CSV gets what fopen would give it */

			umask(mask);
			fchmod(fd, 0666 & ~mask);
		}
		f = fd >= 0 ? fdopen(fd, "w") : NULL;
		if (!f) {
			int e = errno;

			fprintf(stderr, "wis_%s: cannot write beside %s: %s\n", g_bench->name, g_cfg.out_path,
				strerror(e));
			if (fd >= 0) {
				close(fd);
				unlink(tmp);
			}
			return -e;
		}
	}
	fwrite(meta, 1, meta_len, f);
	fwrite(g_runlog_buf, 1, g_runlog_len, f);
	if (have_one)
		fprintf(f, "# linear: the best 1-task result times tasks (runtest.py)\n");
	else
		fprintf(f, "# linear: 0 (no 1-task point was measured)\n");
	fprintf(f, "tasks,processes,processes_idle,threads,threads_idle,linear\n");
	for (unsigned int i = 0; i < npts; i++) {
		struct point *p = &pts[i];

		if (!p->have[0] && !p->have[1])
			continue;
		fprintf(f, "%u,", p->tasks);
		for (int m = 0; m < NR_MODES; m++) {
			if (p->have[m]) {
				print_number(f, p->ops_per_s[m]);
				fprintf(f, ",%.2f,", p->idle_pct[m]);
			} else {
				fprintf(f, "0,0,");
			}
		}
		print_number(f, linear * p->tasks);
		fputc('\n', f);
	}
	if (f != stdout) {
		int e;

		if (fclose(f)) {
			unlink(tmp);
			return -EIO;
		}
		/* a stop request that came while writing: no result after all */
		if (g_signal && g_signal != SIGALRM) {
			unlink(tmp);
			return -EINTR;
		}
		if (g_cfg.force)
			e = rename(tmp, g_cfg.out_path) ? errno : 0;
		else if (link(tmp, g_cfg.out_path)) /* link() does not replace a file that appeared meanwhile */
			e = errno;
		else
			e = unlink(tmp) ? errno : 0;
		if (e) {
			fprintf(stderr, "wis_%s: cannot write %s: %s%s\n", g_bench->name, g_cfg.out_path, strerror(e),
				e == EEXIST ? " (not overwritten; --force to replace it)" : "");
			unlink(tmp);
			return -e;
		}
	} else {
		fflush(stdout);
	}
	return 0;
}

int wis_main(const struct wis_bench *b, int argc, char **argv)
{
	struct point *pts;
	double footprint_mib = 0, limit_mib = 0;
	char *meta = NULL, why[512] = "";
	size_t meta_len = 0;
	FILE *mf;
	int rc, exit_code = WIS_EXIT_OK;

	g_bench = b;
	g_argc = argc;
	g_argv = argv;
	setvbuf(stderr, NULL, _IOLBF, 0);
	rc = parse_args(argc, argv);
	if (rc >= 0)
		return rc;
	/* before any measuring: a result already there stays (the --counts child ignores --out) */
	if (g_cfg.counts_child < 0 && g_cfg.out_path && !g_cfg.force && !access(g_cfg.out_path, F_OK)) {
		fprintf(stderr, "wis_%s: --out %s exists: not overwritten (--force to replace it)\n", b->name,
			g_cfg.out_path);
		return WIS_EXIT_REFUSED;
	}

	install_signals();
	set_alarm_s(g_cfg.time_limit_s);

	if (b->check) {
		rc = b->check(why, sizeof(why));
		if (rc > 0) {
			printf("skipped: %s\n", why);
			fflush(stdout);
			return WIS_EXIT_SKIPPED;
		}
		if (rc < 0) {
			fprintf(stderr, "wis_%s: %s\n", b->name, why);
			return WIS_EXIT_REFUSED;
		}
	}
	rc = safety_checks(&footprint_mib, &limit_mib);
	if (rc)
		return rc;
	if (topology_load())
		fprintf(stderr, "wis_%s: hwloc topology did not load; tasks stay unpinned\n", b->name);
	if (compute_placement(max_tasks())) {
		fprintf(stderr, "wis_%s: cannot compute a placement\n", b->name);
		return WIS_EXIT_ERROR;
	}

	if (g_cfg.counts_child >= 0)
		return counts_child_main();

	if (g_cfg.counts) {
		if (find_perf())
			snprintf(g_counts_unavailable, sizeof(g_counts_unavailable),
				 "perf not found in PATH or /usr/bin/perf");
	}
	g_runlog = open_memstream(&g_runlog_buf, &g_runlog_len);
	mf = open_memstream(&meta, &meta_len);
	if (!g_runlog || !mf)
		die_oom();
	write_metadata(mf, footprint_mib, limit_mib);
	fclose(mf);

	pts = xcalloc(g_cfg.nr_task_counts, sizeof(*pts));
	for (unsigned int i = 0; i < g_cfg.nr_task_counts && !exit_code; i++) {
		unsigned int n = g_cfg.tasks[i];

		pts[i].tasks = n;
		for (int m = 0; m < NR_MODES; m++) {
			struct result res;

			if (!g_cfg.want[m])
				continue;
			memset(&res, 0, sizeof(res));
			fprintf(stderr, "wis_%s: %s tasks=%u ...\n", b->name, mode_name[m], n);
			rc = b->fixed_ops ? measure_fixed(m, n, &res) : measure_rate(m, n, &res);
			if (rc) {
				exit_code = WIS_EXIT_ERROR;
				break;
			}
			pts[i].have[m] = 1;
			pts[i].ops_per_s[m] = res.ops_per_s;
			pts[i].idle_pct[m] = res.idle_pct;
			fprintf(g_runlog, "#run mode=%s tasks=%u %s\n", mode_name[m], n, res.detail);
			fprintf(stderr, "  %s tasks=%u: %.1f ops/s, idle %.2f%%\n", mode_name[m], n, res.ops_per_s,
				res.idle_pct);
			if (g_cfg.counts) {
				measure_counts(m, n);
				if (g_signal) {
					exit_code = WIS_EXIT_ERROR;
					break;
				}
			}
		}
	}
	if (g_signal) {
		arm_backstop();
		if (g_signal == SIGALRM) {
			fprintf(stderr, "wis_%s: --time-limit %g s reached; writing the points measured so far\n",
				b->name, g_cfg.time_limit_s);
			fprintf(g_runlog, "# incomplete: stopped by --time-limit %g s\n", g_cfg.time_limit_s);
			exit_code = WIS_EXIT_TIME_LIMIT;
		} else {
			fprintf(stderr, "wis_%s: stopped by signal %d; no output written\n", b->name, (int)g_signal);
			free(pts);
			return 128 + g_signal;
		}
	}
	fclose(g_runlog);
	if (exit_code == WIS_EXIT_OK || exit_code == WIS_EXIT_TIME_LIMIT) {
		rc = write_csv(meta, meta_len, pts, g_cfg.nr_task_counts);
		if (rc == -EINTR)
			exit_code = 128 + g_signal;
		else if (rc == -EEXIST)
			exit_code = WIS_EXIT_REFUSED;
		else if (rc)
			exit_code = WIS_EXIT_ERROR;
	}
	free(meta);
	free(g_runlog_buf);
	free(pts);
	if (g_topo_ok)
		hwloc_topology_destroy(g_topo);
	free(g_task_cpus);
	return exit_code;
}
