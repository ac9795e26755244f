/* SPDX-License-Identifier: MIT */
/*
 * mmsim validate: the real benchmark of a variant, run here, beside its
 * prediction.  The benchmark (validate/wis_*, validate/README.md) writes
 * will-it-scale's CSV with '#' metadata and, with --counts, '#counts'
 * lines of per-operation event counts from the kernel's tracepoints;
 * main.c then compares it as mmsim compare does, and this file sets the
 * measured counts beside the scenario's own (explain.c's op_counts()).
 */
#include "validate.h"
#include "calibrate.h"
#include "cleanup.h"
#include "machine.h"
#include "scenario.h"
#include "sim.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <linux/magic.h>
#include <sys/statfs.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Exit codes of the benchmarks (validate/README.md). */
enum { WIS_OK = 0, WIS_REFUSED = 2, WIS_TIME_LIMIT = 3, WIS_SKIPPED = 77 };

/*
 * Which benchmark mirrors a variant: the variant's name (less a "_nothp" suffix, which means
 * --thp off, or "_mthp", --thp default: no madvise, the system's mTHP sizes) is KEY or starts with
 * KEY followed by '_'.  One line per benchmark family.
 * madvise, munmap: mmap_lock acquisitions per op that the benchmark's counted run holds beyond
 * the scenario's operation, one mmap_write_lock each (validate/populate.c): the
 * madvise(MADV_HUGEPAGE or MADV_NOHUGEPAGE) after each mmap, which MAP_POPULATE and --thp default
 * leave out, and the munmap of each region at teardown; added to the scenario's count and said in
 * the table.
 */
static const struct bench_map {
	const char *key;
	const char *bench;
	const char *method; /* wis_populate --method; also gets --thp */
	int madvise, munmap;
	const char *note;
	int file; /* maps a temporary file in $TMPDIR */
	int cell; /* wis_prefault: --backing, --mapping and --method from the variant's name */
} bench_map[] = {
    {"page_fault1", "wis_page_fault1", NULL, 0, 0, NULL, 0, 0},
    {"page_fault2", "wis_page_fault2", NULL, 0, 0, NULL, 1, 0},
    {"page_fault3", "wis_page_fault3", NULL, 0, 0, NULL, 1, 0},
    {"page_fault4", "wis_page_fault4", NULL, 0, 0, NULL, 1, 0},
    {"mmap1", "wis_mmap1", NULL, 0, 0, NULL, 0, 0},
    {"mmap2", "wis_mmap2", NULL, 0, 0, NULL, 1, 0},
    {"populate_none", "wis_populate", "none", 1, 1, "madvise(MADV_(NO)HUGEPAGE) and the teardown munmap", 0, 0},
    {"populate_loop", "wis_populate", "loop", 1, 1, "madvise(MADV_(NO)HUGEPAGE) and the teardown munmap", 0, 0},
    {"populate_mmap", "wis_populate", "map_populate", 0, 1, "the teardown munmap", 0, 0},
    {"populate_madv_populate_read", "wis_populate", "madv_populate_read", 1, 1,
     "madvise(MADV_(NO)HUGEPAGE) and the teardown munmap", 0, 0},
    {"populate_madv_populate_write", "wis_populate", "madv_populate_write", 1, 1,
     "madvise(MADV_(NO)HUGEPAGE) and the teardown munmap", 0, 0},
    {"has_pinned", "wis_pin_fast", NULL, 0, 0, NULL, 0, 0},
    {"prefault", "wis_prefault", NULL, 0, 0, NULL, 0, 1},
    /* madv_populate's variants of Linux 6.18: the same benchmark */
    {"prefault618", "wis_prefault", NULL, 0, 0, NULL, 0, 1},
};
#define NMAP (int)(sizeof(bench_map) / sizeof(bench_map[0]))

/* wis_populate --thp, by the variant's suffix */
enum thp_arg { THP_ARG_OFF, THP_ARG_ON, THP_ARG_DEFAULT };
static const char *const thp_arg_name[] = {"off", "on", "default"};
static const struct {
	const char *suffix;
	enum thp_arg thp;
} thp_suffix[] = {{"_nothp", THP_ARG_OFF}, {"_mthp", THP_ARG_DEFAULT}};

static const struct bench_map *bench_of(const char *variant, enum thp_arg *thp)
{
	char base[128];
	size_t n = strlen(variant);

	*thp = THP_ARG_ON;
	snprintf(base, sizeof(base), "%s", variant);
	for (size_t i = 0; i < sizeof(thp_suffix) / sizeof(thp_suffix[0]); i++) {
		size_t ns = strlen(thp_suffix[i].suffix);

		if (n > ns && !strcmp(variant + n - ns, thp_suffix[i].suffix)) {
			base[n - ns] = 0;
			*thp = thp_suffix[i].thp;
		}
	}
	for (int i = 0; i < NMAP; i++) {
		size_t k = strlen(bench_map[i].key);

		if (!strncmp(base, bench_map[i].key, k) && (base[k] == 0 || base[k] == '_'))
			return &bench_map[i];
	}
	return NULL;
}

/* <dir of this executable>/../validate (the build tree), or $MMSIM_VALIDATE_BIN_DIR, or
 * $MMSIM_VALIDATE_DIR (mmsim calibrate's name for it). */
static int bench_path(const char *bench, char *out, size_t cap, struct mm_error *err)
{
	const char *env = getenv("MMSIM_VALIDATE_BIN_DIR"), *name = "MMSIM_VALIDATE_BIN_DIR";
	char self[PATH_MAX], *slash, *real;
	ssize_t n;

	if (!env || !*env) {
		env = getenv("MMSIM_VALIDATE_DIR");
		name = "MMSIM_VALIDATE_DIR";
	}
	if (env && *env) {
		snprintf(out, cap, "%s/%s", env, bench);
		if (access(out, X_OK))
			return mm_fail(err, MM_ENOENT, "validate: no executable %s (%s=%s): %s", out, name, env,
				       strerror(errno));
		return 0;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return mm_fail(err, MM_EIO, "validate: cannot resolve /proc/self/exe; set MMSIM_VALIDATE_BIN_DIR");
	self[n] = 0;
	slash = strrchr(self, '/');
	if (slash)
		*slash = 0;
	if ((size_t)snprintf(out, cap, "%s/../validate/%s", self, bench) >= cap)
		return mm_fail(err, MM_ERANGE, "validate: path of %s too long", bench);
	if (access(out, X_OK))
		return mm_fail(
		    err, MM_ENOENT,
		    "validate: benchmark %s not found at %s (build the validate/ targets with cmake --build, "
		    "or set MMSIM_VALIDATE_BIN_DIR to the directory holding the wis_* executables)",
		    bench, out);
	real = realpath(out, NULL); /* build/validate/wis_x rather than build/src/../validate/wis_x */
	if (real && strlen(real) < cap)
		memcpy(out, real, strlen(real) + 1);
	free(real);
	return 0;
}

/* The directories mkdir_p made, outermost first, each registered for removal (while empty) if
 * mmsim is stopped before a result lands in them. */
struct made_dirs {
	char path[8][PATH_MAX];
	int slot[8], n;
};

/* @path was just made: recorded, or (a ninth level) removed again and refused. */
static int made_dir(struct made_dirs *md, const char *path, const char *dir, struct mm_error *err)
{
	if (md->n == 8) {
		rmdir(path);
		return mm_fail(err, MM_EINVAL, "--out %s: more than 8 directories to make for it", dir);
	}
	snprintf(md->path[md->n], sizeof(md->path[md->n]), "%s", path);
	md->slot[md->n++] = cleanup_add_file(path);
	return 0;
}

/* No result: the directories made for it go again (innermost first, each only if empty). */
static void made_dirs_end(struct made_dirs *md, int keep)
{
	for (int i = md->n - 1; i >= 0; i--) {
		if (!keep)
			rmdir(md->path[i]);
		cleanup_forget_file(md->slot[i]);
	}
	md->n = 0;
}

/* One level @path of --out @dir: made here (and recorded), or there already; else the error. */
static int make_dir(struct made_dirs *md, const char *path, const char *dir, struct mm_error *err)
{
	if (mkdir(path, 0777) == 0)
		return made_dir(md, path, dir, err) ? err->code : 0;
	if (errno == EEXIST)
		return 0;
	if (strcmp(path, dir))
		return mm_fail(err, MM_EIO, "--out %s: cannot create %s: %s", dir, path, strerror(errno));
	return mm_fail(err, MM_EIO, "--out %s: cannot create it: %s", dir, strerror(errno));
}

static int mkdir_p(const char *dir, struct made_dirs *md, struct mm_error *err)
{
	char buf[PATH_MAX];
	struct stat st;
	int rc;

	if ((size_t)snprintf(buf, sizeof(buf), "%s", dir) >= sizeof(buf))
		return mm_fail(err, MM_ERANGE, "--out: directory name too long");
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if ((rc = make_dir(md, buf, dir, err)))
			return rc;
		*p = '/';
	}
	if ((rc = make_dir(md, buf, dir, err)))
		return rc;
	if (stat(buf, &st) || !S_ISDIR(st.st_mode))
		return mm_fail(err, MM_EIO, "--out %s: not a directory", dir);
	return 0;
}

static int parse_seconds(const char *opt, const char *v, double lo, double *out, struct mm_error *err)
{
	char *end;

	errno = 0;
	*out = strtod(v, &end);
	if (errno || end == v || *end || !isfinite(*out) || *out < lo || *out > 3600)
		return mm_fail(err, MM_EINVAL, "--%s '%s': expected seconds, %g to 3600", opt, v, lo);
	return 0;
}

/* Points in a task list such as 1,2 or 1-8 (the benchmark checks the list itself), and the largest
 * task count in *max. */
static int count_points(const char *tasks, long *max)
{
	int n = 0;

	*max = 0;
	for (const char *p = tasks; *p;) {
		char *end;
		long a = strtol(p, &end, 10), b = a;

		if (end == p)
			return -1;
		if (*end == '-') {
			p = end + 1;
			b = strtol(p, &end, 10);
			if (end == p)
				return -1;
		}
		n += b >= a ? (int)(b - a + 1) : 1;
		*max = a > *max ? a : *max;
		*max = b > *max ? b : *max;
		if (*end == ',')
			end++;
		else if (*end)
			return -1;
		p = end;
	}
	return n;
}

/* Runs argv (with TMPDIR=tmpdir when tmpdir is not NULL); its stdout is kept in out (the skip
 * line), its stderr goes to ours. */
static int run_bench(char *const *argv, const char *tmpdir, char *out, size_t cap, int *status, struct mm_error *err)
{
	extern char **environ;
	char tmpenv[PATH_MAX + 8], **envp;
	size_t len = 0, ne = 0, k = 0;
	int fd[2], slot;
	pid_t pid;

	/* the child's environment, built here: between fork and exec only async-signal-safe calls */
	while (environ[ne])
		ne++;
	envp = calloc(ne + 2, sizeof(*envp));
	if (!envp)
		return mm_fail(err, MM_ENOMEM, "out of memory");
	for (size_t i = 0; i < ne; i++)
		if (!tmpdir || strncmp(environ[i], "TMPDIR=", 7))
			envp[k++] = environ[i];
	if (tmpdir) {
		snprintf(tmpenv, sizeof(tmpenv), "TMPDIR=%s", tmpdir);
		envp[k++] = tmpenv;
	}
	envp[k] = NULL;
	if (pipe(fd)) {
		free(envp);
		return mm_fail(err, MM_EIO, "validate: pipe: %s", strerror(errno));
	}
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		close(fd[0]);
		close(fd[1]);
		free(envp);
		return mm_fail(err, MM_EIO, "validate: fork: %s", strerror(errno));
	}
	if (pid == 0) {
		cleanup_child_setup(); /* its own group, and it dies with mmsim */
		dup2(fd[1], 1);
		close(fd[0]);
		close(fd[1]);
		execve(argv[0], argv, envp);
		fprintf(stderr, "mmsim: validate: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(126);
	}
	/* also here: a signal before the child's own setpgid must still find its group */
	setpgid(pid, pid);
	slot = cleanup_add_child(pid);
	free(envp);
	if (slot < 0) {
		kill(-pid, SIGKILL);
		close(fd[0]);
		close(fd[1]);
		waitpid(pid, status, 0);
		return mm_fail(err, MM_ENOMEM, "validate: too many child processes to track");
	}
	close(fd[1]);
	for (;;) {
		ssize_t n = read(fd[0], out + len, cap - 1 - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
		if (len == cap - 1) {
			char sink[256];

			while (read(fd[0], sink, sizeof(sink)) > 0)
				;
			break;
		}
	}
	out[len] = 0;
	close(fd[0]);
	while (waitpid(pid, status, 0) < 0)
		if (errno != EINTR) {
			cleanup_forget_child(slot);
			return mm_fail(err, MM_EIO, "validate: waitpid: %s", strerror(errno));
		}
	cleanup_forget_child(slot);
	return 0;
}

/* 1 when dir is a tmpfs with room for need bytes */
static int tmpfs_with_room(const char *dir, double need)
{
	struct statfs sf;

	return !statfs(dir, &sf) && sf.f_type == TMPFS_MAGIC && (double)sf.f_bavail * (double)sf.f_bsize >= need;
}

int validate_csv_backing(const char *csv, char *fs, size_t cap)
{
	char *line = NULL;
	size_t lcap = 0;
	FILE *f = fopen(csv, "r");
	int rc = -1;

	if (!f)
		return -1;
	while (rc && getline(&line, &lcap, f) > 0 && line[0] == '#') {
		char *a = strrchr(line, '('), *b = strrchr(line, ')');

		if (!strncmp(line, "# tmpdir: ", 10) && a && b > a) {
			*b = 0;
			snprintf(fs, cap, "%s", a + 1);
			rc = 0;
		}
	}
	free(line);
	fclose(f);
	return rc;
}

/* The filesystem the benchmark found its $TMPDIR on: its CSV's '# tmpdir: DIR (FS)' line. */
static void tmpdir_fs_from_csv(struct validate_run *run, const char *csv)
{
	if (validate_csv_backing(csv, run->tmpdir_fs, sizeof(run->tmpdir_fs)))
		snprintf(run->tmpdir_fs, sizeof(run->tmpdir_fs), "unknown");
}

/* 1 when @variant models a file cached in large folios (the _ext4 variants), 0: in 4 KiB folios. */
static int models_large_folios(const char *variant)
{
	return strstr(variant, "_ext4") != NULL;
}

/*
 * Where a file benchmark's file lives.  The 4 KiB-folio variants model a file cached in 4 KiB folios:
 * one fault per page written (page_fault3), one per 16 pages read (page_fault4's fault-around), which
 * tmpfs (without huge=) gives on every kernel; the _ext4 variants model a filesystem that caches large
 * folios (ext4 since 6.16, xfs since 5.18), as will-it-scale's own files in /tmp are on most machines.
 * --fs tmpfs|here|PATH says where; without it a TMPDIR the user set is kept, else the variant's
 * backing: /tmp for an _ext4 variant, /dev/shm for the others when it has room for the files (a
 * container's may be 64 MiB), else /tmp.
 */
static int pick_tmpdir(struct validate_run *run, const struct validate_req *req, long max_tasks, struct mm_error *err)
{
	const char *env = getenv("TMPDIR");
	/* a 128 MiB file per task, and a quarter more */
	double need = 1.25 * 128 * 1048576.0 * (double)(max_tasks > 0 ? max_tasks : 1);
	struct stat st;

	if (req->fs) {
		if (!strcmp(req->fs, "tmpfs")) {
			if (!tmpfs_with_room("/dev/shm", need) || access("/dev/shm", W_OK))
				return mm_fail(
				    err, MM_EINVAL,
				    "--fs tmpfs: /dev/shm is not a writable tmpfs with %.0f MiB free for the "
				    "files; give --fs PATH",
				    need / 1048576);
			snprintf(run->tmpdir, sizeof(run->tmpdir), "/dev/shm");
		} else if (!strcmp(req->fs, "here")) {
			if (!getcwd(run->tmpdir, sizeof(run->tmpdir)))
				return mm_fail(err, MM_EIO, "--fs here: cannot name the current directory: %s",
					       strerror(errno));
			if (access(run->tmpdir, W_OK | X_OK))
				return mm_fail(err, MM_EINVAL, "--fs here: the current directory %s is not writable",
					       run->tmpdir);
		} else if (!*req->fs || stat(req->fs, &st) || !S_ISDIR(st.st_mode) || access(req->fs, W_OK | X_OK)) {
			return mm_fail(err, MM_EINVAL, "--fs '%s': expected tmpfs, here, or a writable directory",
				       req->fs);
		} else if (snprintf(run->tmpdir, sizeof(run->tmpdir), "%s", req->fs) >= (int)sizeof(run->tmpdir)) {
			return mm_fail(err, MM_ERANGE, "--fs: path too long");
		}
		run->tmpdir_how = "--fs";
	} else if (env && *env) {
		snprintf(run->tmpdir, sizeof(run->tmpdir), "%s", env);
		run->tmpdir_how = "TMPDIR from the environment";
	} else if (!models_large_folios(run->variant) && tmpfs_with_room("/dev/shm", need) &&
		   !access("/dev/shm", W_OK)) {
		snprintf(run->tmpdir, sizeof(run->tmpdir), "/dev/shm");
		run->tmpdir_how = "the variant models 4 KiB folios: tmpfs; --fs to change it";
	} else {
		snprintf(run->tmpdir, sizeof(run->tmpdir), "/tmp");
		run->tmpdir_how = models_large_folios(run->variant)
				      ? "will-it-scale's place, the variant models large folios; --fs to change it"
				      : "no room on /dev/shm; --fs to change it";
	}
	return 0;
}

/*
 * The result: mmsim's own '#' lines, then the benchmark's CSV (@raw, a temporary name), written
 * whole under another temporary name and renamed to run->csv; @raw is removed either way.
 */
static int write_result(struct outfile *raw, const char *csv, int force, const char *meta, struct mm_error *err)
{
	struct outfile res;
	char *text = NULL;
	int rc;

	rc = mm_read_text_file(raw->tmp, &text, err);
	if (!rc && !(rc = outfile_open(&res, csv, force, "validate: result", err))) {
		fputs(meta, res.f);
		fputs(text, res.f);
		rc = outfile_commit(&res, err);
	}
	free(text);
	outfile_abort(raw);
	return rc;
}

/* Appends sep and arg to buf, arg in single quotes unless it is plain; -1 when it does not fit. */
static int quote_append(char *buf, size_t cap, const char *sep, const char *arg)
{
	size_t n = strlen(buf);
	int plain = *arg != 0;

	for (const char *p = arg; *p; p++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./,=:", *p))
			plain = 0;
	return (size_t)snprintf(buf + n, cap - n, plain ? "%s%s" : "%s'%s'", sep, arg) < cap - n ? 0 : -1;
}

static int quote_into(char *buf, size_t cap, const char *arg)
{
	return quote_append(buf, cap, buf[0] ? " " : "", arg);
}

static int measure(const struct validate_req *req, struct validate_run *run, struct made_dirs *md,
		   struct mm_error *err);

int validate_measure(const struct validate_req *req, struct validate_run *run, struct mm_error *err)
{
	struct made_dirs md = {.n = 0};
	int rc = measure(req, run, &md, err);

	made_dirs_end(&md, !rc && !run->skipped); /* kept only with the measured CSV in it */
	return rc;
}

static int measure(const struct validate_req *req, struct validate_run *run, struct made_dirs *md, struct mm_error *err)
{
	const struct bench_map *bm;
	struct scenario sc;
	struct utsname u;
	char exe[PATH_MAX], host[256] = "host", stamp[32], stem[PATH_MAX - 8], out[1024], tlim[32], meta[8192];
	char *argv[32], cell[3][SC_NAME];
	struct outfile raw;
	int quoted = 0;
	double duration, warmup, t0, t1;
	struct timespec ts;
	time_t now = time(NULL);
	struct tm tm;
	int v, rc, status, na = 0, npts, nmodes;
	enum thp_arg thp;
	long max_tasks;

	memset(run, 0, sizeof(*run));
	if (!req->variant)
		return mm_fail(err, MM_EINVAL,
			       "validate: --scenario VARIANT is required (e.g. --scenario page_fault1_vma_lock)");
	if (!req->tasks)
		return mm_fail(err, MM_EINVAL, "validate: --tasks LIST is required (e.g. --tasks 1,2)");
	npts = count_points(req->tasks, &max_tasks);
	if (npts < 1)
		return mm_fail(err, MM_EINVAL, "--tasks '%s': expected task counts such as 1,2 or 1-4", req->tasks);
	if ((rc = parse_seconds("duration", req->duration, 0.1, &duration, err)) ||
	    (rc = parse_seconds("warmup", req->warmup, 0, &warmup, err)))
		return rc;
	if ((rc = scenario_load(&sc, req->variant, &v, err)))
		return rc;
	if (v < 0 && sc.nvar == 1)
		v = 0; /* a scenario file with one variant */
	if (v < 0) {
		char names[1024] = "";

		for (int i = 0; i < sc.nvar; i++)
			snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s", i ? ", " : "",
				 sc.var[i].name);
		scenario_free(&sc);
		return mm_fail(err, MM_EINVAL, "validate: '%s' is a scenario; name one of its variants (%s)",
			       req->variant, names);
	}
	snprintf(run->kernel_modelled, sizeof(run->kernel_modelled), "%s", sc.var[v].kernel);
	snprintf(run->variant, sizeof(run->variant), "%s", sc.var[v].name);
	snprintf(run->mode, sizeof(run->mode), "%s",
		 req->mode		 ? req->mode
		 : sc.mode == SC_THREADS ? "threads"
					 : "processes");
	bm = bench_of(sc.var[v].name, &thp);
	scenario_free(&sc);
	if (!bm)
		return mm_fail(
		    err, MM_EINVAL,
		    "validate: no benchmark mirrors variant '%s' (validate/ has page_fault1-4, mmap1/2, prefault, "
		    "populate and pin_fast; mmsim compare --measured FILE holds any variant against a CSV "
		    "from elsewhere)",
		    run->variant);
	/* req->mode itself: run->mode holds only the valid (short) names */
	if (req->mode && strcmp(req->mode, "threads") && strcmp(req->mode, "processes") && strcmp(req->mode, "both"))
		return mm_fail(err, MM_EINVAL, "--mode '%s': expected threads, processes or both", req->mode);
	if ((rc = bench_path(bm->bench, exe, sizeof(exe), err)))
		return rc;
	if (req->fs && !bm->file)
		return mm_fail(err, MM_EINVAL,
			       "--fs is for the benchmarks that map a file (page_fault2-4, mmap2); %s's makes none",
			       run->variant);
	if (bm->file && (rc = pick_tmpdir(run, req, max_tasks, err)))
		return rc;
	if (uname(&u) == 0)
		snprintf(run->kernel_here, sizeof(run->kernel_here), "%s", u.release);
	gethostname(host, sizeof(host) - 1);
	host[sizeof(host) - 1] = 0;
	for (char *p = host; *p; p++)
		if (*p == '/' || *p == ' ')
			*p = '_';
	gmtime_r(&now, &tm);
	/* the time too: a second run the same day is a second result, not a replacement */
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	if ((rc = mkdir_p(req->out_dir, md, err)))
		return rc;
	if ((size_t)snprintf(stem, sizeof(stem), "%s/%s-%s-%s", req->out_dir, run->variant, host, stamp) >=
	    sizeof(stem))
		return mm_fail(err, MM_ERANGE, "--out: path too long");
	snprintf(run->csv, sizeof(run->csv), "%s.csv", stem);
	snprintf(run->png, sizeof(run->png), "%s.png", stem);
	/* before minutes of measuring: neither result may be there already */
	if ((rc = outfile_check(run->csv, req->force, "validate: result", err)) ||
	    (rc = outfile_check(run->png, req->force, "validate: plot", err)))
		return rc;
	/* generous: each point is warm-up + duration + two perf stat runs */
	nmodes = strcmp(run->mode, "both") ? 1 : 2;
	snprintf(tlim, sizeof(tlim), "%.0f", 60 + npts * nmodes * (warmup + duration + 60));
	/* the benchmark writes under a temporary name: what lands as run->csv is only the whole result */
	if ((rc = outfile_reserve(&raw, run->csv, req->force, "validate: result", err)))
		return rc;
	argv[na++] = exe;
	argv[na++] = "--tasks";
	argv[na++] = (char *)req->tasks;
	argv[na++] = "--mode";
	argv[na++] = run->mode;
	argv[na++] = "--duration";
	argv[na++] = (char *)req->duration;
	argv[na++] = "--warmup";
	argv[na++] = (char *)req->warmup;
	argv[na++] = "--time-limit";
	argv[na++] = tlim;
	argv[na++] = "--counts";
	if (bm->method) {
		argv[na++] = "--method";
		argv[na++] = (char *)bm->method;
		argv[na++] = "--thp";
		argv[na++] = (char *)thp_arg_name[thp];
	}
	if (bm->cell) {
		/* prefault_BACKING_MAPPING_METHOD, or prefault618_... (scenarios/madv_populate.scn) */
		const char *rest = run->variant + strlen(bm->key) + 1;
		size_t nb = strcspn(rest, "_"), nm = rest[nb] ? strcspn(rest + nb + 1, "_") : 0;

		if (!rest[nb] || !rest[nb + 1 + nm]) {
			outfile_abort(&raw);
			return mm_fail(err, MM_EINVAL, "validate: '%s' is not prefault_BACKING_MAPPING_METHOD",
				       run->variant);
		}
		snprintf(cell[0], sizeof(cell[0]), "%.*s", (int)nb, rest);
		snprintf(cell[1], sizeof(cell[1]), "%.*s", (int)nm, rest + nb + 1);
		snprintf(cell[2], sizeof(cell[2]), "%s", rest + nb + 1 + nm + 1);
		argv[na++] = "--backing";
		argv[na++] = cell[0];
		argv[na++] = "--mapping";
		argv[na++] = cell[1];
		argv[na++] = "--method";
		argv[na++] = cell[2];
	}
	argv[na++] = "--out";
	argv[na++] = raw.tmp;
	argv[na++] = "--force"; /* the reserved (empty) temporary file is ours to replace */
	argv[na] = NULL;
	/* the command as the CSV records it: --out names the result, not the temporary file */
	if (run->tmpdir[0])
		quoted |= quote_append(run->bench_cmd, sizeof(run->bench_cmd), "TMPDIR=", run->tmpdir);
	for (int i = 0; i < na - 3; i++)
		quoted |= quote_into(run->bench_cmd, sizeof(run->bench_cmd), argv[i]);
	quoted |= quote_into(run->bench_cmd, sizeof(run->bench_cmd), "--out");
	quoted |= quote_into(run->bench_cmd, sizeof(run->bench_cmd), run->csv);
	if (quoted) {
		outfile_abort(&raw);
		return mm_fail(err, MM_ERANGE,
			       "validate: the benchmark's command line is over %zu bytes (is --tasks that long?): "
			       "not recorded in part",
			       sizeof(run->bench_cmd) - 1);
	}
	fprintf(stderr, "mmsim: validate: %s\n", run->bench_cmd);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	t0 = ts.tv_sec + ts.tv_nsec / 1e9;
	if ((rc = run_bench(argv, run->tmpdir[0] ? run->tmpdir : NULL, out, sizeof(out), &status, err))) {
		outfile_abort(&raw);
		return rc;
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	t1 = ts.tv_sec + ts.tv_nsec / 1e9;
	run->seconds = t1 - t0;
	if (WIFEXITED(status) && WEXITSTATUS(status) == WIS_SKIPPED) {
		const char *s = strstr(out, "skipped: ");

		outfile_abort(&raw);
		run->skipped = 1;
		snprintf(run->skip_reason, sizeof(run->skip_reason), "%s", s ? s + 9 : "(no reason given)");
		run->skip_reason[strcspn(run->skip_reason, "\n")] = 0;
		return 0;
	}
	if (out[0])
		fputs(out, stderr);
	if (!WIFEXITED(status))
		rc = mm_fail(err, MM_EIO, "validate: %s was killed by signal %d", bm->bench,
			     WIFSIGNALED(status) ? WTERMSIG(status) : -1);
	else if (WEXITSTATUS(status) == WIS_REFUSED)
		rc = mm_fail(err, MM_EINVAL, "validate: %s refused to run (exit 2; its message is above)", bm->bench);
	else if (WEXITSTATUS(status) == WIS_TIME_LIMIT)
		fprintf(stderr, "mmsim: validate: %s reached its time limit; comparing the points it finished\n",
			bm->bench);
	else if (WEXITSTATUS(status) != WIS_OK)
		rc = mm_fail(err, MM_EIO, "validate: %s failed (exit %d; its message is above)", bm->bench,
			     WEXITSTATUS(status));
	if (rc) {
		outfile_abort(&raw);
		return rc;
	}
	if (run->tmpdir[0])
		tmpdir_fs_from_csv(run, raw.tmp);
	if ((size_t)snprintf(meta, sizeof(meta),
			     "# mmsim validate: variant %s (models linux-%s) against %s; this kernel %s\n"
			     "# mmsim validate command: %s\n# mmsim validate benchmark: %s (%.1f s)\n",
			     run->variant, run->kernel_modelled, bm->bench, run->kernel_here,
			     req->command ? req->command : "", run->bench_cmd, run->seconds) >= sizeof(meta)) {
		outfile_abort(&raw);
		return mm_fail(err, MM_ERANGE, "validate: the CSV's '#' lines are over %zu bytes", sizeof(meta) - 1);
	}
	return write_result(&raw, run->csv, req->force, meta, err);
}

/* "6.18.44-fc" -> "6.18" */
static void major_minor(const char *rel, char *out, size_t cap)
{
	int a = 0, b = 0;

	if (sscanf(rel, "%d.%d", &a, &b) == 2)
		snprintf(out, cap, "%d.%d", a, b);
	else
		snprintf(out, cap, "%.*s", (int)cap - 1, rel);
}

/* A point whose own samples (sample_ops_per_s_min and _max in its '#run' line) differ by more than
 * this ratio was measured while the machine's speed moved.  On the development VM the morning's
 * page_fault3/4 runs (data/measured/devvm-20261207) stayed within 1.02x to 1.23x; after its host
 * got busy (devvm-20261207b) 7 of 16 points passed 1.3x, up to 1.90x. */
#define UNSTEADY_RATIO 1.3

void validate_run_notes(FILE *f, const char *csv)
{
	char *line = NULL;
	size_t lcap = 0;
	FILE *in = fopen(csv, "r");

	if (!in)
		return;
	/* whole lines: a '#run' line cut in two would lose its note */
	while (getline(&line, &lcap, in) > 0) {
		char mode[16];
		unsigned tasks;
		int has_other, has_lo, has_hi, has_n;
		double other, min, max, samples;

		if (strncmp(line, "#run ", 5) || sscanf(line, "#run mode=%15s tasks=%u", mode, &tasks) != 2)
			continue;
		other = calib_run_field(line, "other_cpus", &has_other);
		min = calib_run_field(line, "sample_ops_per_s_min", &has_lo);
		max = calib_run_field(line, "sample_ops_per_s_max", &has_hi);
		samples = calib_run_field(line, "samples", &has_n);
		if (has_other && other > CALIB_OTHER_LOAD)
			fprintf(f,
				"  other load: %s at %u task(s) ran beside %.2f CPUs of other work (other_cpus in the "
				"CSV's #run line): that point is disturbed; rerun on a quiet machine\n",
				mode, tasks, other);
		if (has_lo && has_hi && has_n && samples >= 2 && min > 0 && max > UNSTEADY_RATIO * min)
			fprintf(f,
				"  unsteady: %s at %u task(s): its %.0f samples ran from %.3g to %.3g ops/s (%.2fx, "
				"the #run line): the machine's speed moved during the run\n",
				mode, tasks, samples, min, max, max / min);
	}
	free(line);
	fclose(in);
}

void validate_backing_note(FILE *f, const char *variant, const char *fs)
{
	int large = models_large_folios(variant), is_tmpfs = !strcmp(fs, "tmpfs");

	/* only page_fault3 and page_fault4 map several pages of a large folio per fault: page_fault2's
	 * private write faults copy one page each (COW) and mmap2 touches nothing */
	if ((strncmp(variant, "page_fault3", 11) && strncmp(variant, "page_fault4", 11)) || !strcmp(fs, "unknown"))
		return;
	if (!large && !is_tmpfs)
		fprintf(
		    f,
		    "  note:     %s models a file of 4 KiB folios (tmpfs); on %s a kernel with large folios (ext4 "
		    "6.16+, xfs 5.18+) caches bigger ones and maps several pages per fault: the _ext4 variants model "
		    "that\n",
		    variant, fs);
	else if (large && is_tmpfs)
		fprintf(f,
			"  note:     %s models a file in large folios (ext4 6.16+); tmpfs caches 4 KiB folios without "
			"huge=: the 4 KiB-folio variants model that\n",
			variant);
}

void validate_print_header(FILE *f, const struct validate_req *req, const struct validate_run *run)
{
	char here[32];

	major_minor(run->kernel_here, here, sizeof(here));
	fprintf(f, "validate: %s; benchmark run in %.1f s\n  %s\n", run->variant, run->seconds, run->bench_cmd);
	fprintf(f, "  measured: %s\n  plot:     %s\n", run->csv, run->png);
	if (run->tmpdir[0]) {
		fprintf(f, "  file:     in %s (%s; %s)\n", run->tmpdir, run->tmpdir_fs, run->tmpdir_how);
		validate_backing_note(f, run->variant, run->tmpdir_fs);
	}
	if (req->kernel)
		fprintf(f, "  kernel: the prediction uses kernel profile %s (--kernel); this machine runs %s\n",
			req->kernel, run->kernel_here);
	else if (strcmp(here, run->kernel_modelled))
		fprintf(f,
			"  kernel mismatch: the scenario models linux-%s, this machine runs %s; differences may come "
			"from the kernel, not the model\n",
			run->kernel_modelled, run->kernel_here);
	else
		fprintf(f, "  kernel: the scenario models linux-%s; this machine runs %s\n", run->kernel_modelled,
			run->kernel_here);
	validate_run_notes(f, run->csv);
}

/* ---- event counts ------------------------------------------------------------------------------- */

/* Differences below this many events in a whole counted run are noise: the harness's start-up,
 * context switches (tlb_flush fires on task switches that need a flush).  mmap_lock: five counted
 * runs of wis_populate --method none, 2 threads, gave 58 to 62 events where 60 are made, and a
 * sixth 65. */
static const struct {
	const char *name;
	const char *key; /* in the #counts line */
	double noise_events;
} counters[3] = {
    {"faults", "faults_per_op", 16},
    {"mmap_lock", "mmap_lock_per_op", 6},
    {"tlb_flush", "tlb_flushes_per_op", 128},
};

static int field(const char *line, const char *key, double *v)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), " %s=", key);
	p = strstr(line, pat);
	if (!p)
		return -1;
	*v = strtod(p + strlen(pat), NULL);
	return 0;
}

/* The scenario compiled for the count check: its static counts per op, and what a simulation
 * needs when a count depends on timing (a 'lock V read else M' step's fallbacks). */
struct count_model {
	struct scenario sc;
	struct profile kp;
	struct kernel_profile k;
	struct program prog;
	struct op_counts c;
	char lock[SC_NAME]; /* the mmap_lock object, or "" */
	int fallback;	    /* the program has a step with a fallback lock */
	double madvise;	    /* mmap_lock acquisitions per op in do_madvise steps (the harness's madvise) */
	int compiled;
};

static void count_model_free(struct count_model *m)
{
	if (m->compiled)
		program_free(&m->prog);
	profile_free(&m->kp);
	scenario_free(&m->sc);
}

static int count_model_load(const struct validate_req *req, struct count_model *m, struct mm_error *err)
{
	char kname[64];
	int v, rc;

	memset(m, 0, sizeof(*m));
	if ((rc = scenario_load(&m->sc, req->variant, &v, err)))
		return rc;
	if (v < 0)
		v = 0; /* validate_measure took a scenario only when it has one variant */
	snprintf(kname, sizeof(kname), "linux-%s", m->sc.var[v].kernel);
	if ((rc = profile_load(&m->kp, "kernels", req->kernel ? req->kernel : kname, err))) {
		scenario_free(&m->sc);
		return rc;
	}
	for (int i = 0; i < m->sc.nobj; i++)
		if (m->sc.obj[i].is_lock && strstr(m->sc.obj[i].name, "mmap_lock")) {
			snprintf(m->lock, sizeof(m->lock), "%s", m->sc.obj[i].name);
			break;
		}
	if ((rc = kernel_profile_derive(&m->k, &m->kp, err)) ||
	    (rc = scenario_compile(&m->sc, v, &m->k, &m->prog, err))) {
		count_model_free(m);
		return rc;
	}
	m->compiled = 1;
	op_counts(&m->prog, m->lock[0] ? m->lock : NULL, &m->c);
	for (int pc = 0; pc < m->prog.n; pc++) {
		const struct prog_insn *in = &m->prog.insn[pc];

		if (in->alt1 > 0 && m->prog.visits[pc] > 0)
			m->fallback = 1;
		if (in->act == SA_LOCK && in->fn >= 0 && !strcmp(m->sc.fn[in->fn], "do_madvise") && m->lock[0] &&
		    !strcmp(m->sc.obj[in->obj].name, m->lock))
			m->madvise += m->prog.visits[pc];
	}
	return 0;
}

/* Simulated runs of the count check: this many visits of the rarest step per task (page_fault's
 * munmap cycle), enough that the fallbacks' own sampling noise stays near 1%; but at most about
 * COUNT_SIM_VISITS step visits per task (populate's 4 KiB loop has 500000 per op). */
#define COUNT_SIM_CYCLES 64
#define COUNT_SIM_VISITS 6e7

/*
 * The mmap_lock events per op that timing adds to the static count, as the tracepoint would
 * count them in a simulated run at @tasks in @mode on the validate machine: the fallbacks'
 * trylocks, and once more for every trylock that failed.  Fixed work, so the whole run is
 * counted.
 */
static int simulated_lock_events(const struct validate_req *req, const struct count_model *m, enum sc_mode mode,
				 int tasks, double *per_op, double *fallbacks, struct mm_error *err)
{
	struct machine mc;
	struct sim_result *res;
	double rarest = program_rarest_visits(&m->prog);
	int rc;

	if ((rc = machine_load(&mc, req->machine ? req->machine : "local", 0, err)))
		return rc;
	if (tasks > mc.topo.ncpus) {
		machine_free(&mc);
		return mm_fail(err, MM_ERANGE, "count check: %d tasks, but machine '%s' has %d CPUs", tasks, mc.hw.name,
			       mc.topo.ncpus);
	}
	if (!(res = calloc(1, sizeof(*res)))) {
		machine_free(&mc);
		return mm_fail(err, MM_ENOMEM, "out of memory");
	}
	struct sim_config cfg = {.topo = &mc.topo,
				 .hw = &mc.hw,
				 .kernel = &m->k,
				 .prog = &m->prog,
				 .mode = mode,
				 .ntasks = tasks,
				 .seed = 1,
				 .ops_per_task =
				     (int64_t)fmax(1, fmin(ceil(COUNT_SIM_CYCLES / rarest),
							   floor(COUNT_SIM_VISITS / m->prog.units_per_op)))};
	if (!(rc = sim_run(&cfg, res, err))) {
		uint64_t ev = 0, fb = 0;

		for (int i = 0; i < res->nlocks; i++) {
			if (!strcmp(res->locks[i].name, m->lock))
				ev += res->locks[i].try_failed;
			fb += res->locks[i].fallbacks;
		}
		*per_op = (double)(ev + fb) / res->ops;
		*fallbacks = (double)fb / res->ops;
	}
	free(res);
	machine_free(&mc);
	return rc;
}

int validate_print_counts(FILE *f, const struct validate_req *req, const struct validate_run *run, int *mismatches,
			  struct mm_error *err)
{
	struct count_model *cm = calloc(1, sizeof(*cm));
	char line[2048], here[32], *text = NULL, *save, *l, *lock;
	const struct op_counts *sc;
	const struct bench_map *bm;
	int rc, seen = 0, fault_dir = 0; /* 1: fewer faults than the scenario, 2: more */
	enum thp_arg thp;
	int rx_untraced, kmajor = 0;
	double extra;

	*mismatches = 0;
	if (!cm)
		return mm_fail(err, MM_ENOMEM, "out of memory");
	if ((rc = count_model_load(req, cm, err))) {
		free(cm);
		return rc;
	}
	sc = &cm->c;
	lock = cm->lock;
	/* x86 flush_tlb_func (arch/x86/mm/tlb.c) since aa44284960d5, "x86/mm/tlb: Avoid reading
	 * mm_tlb_gen when possible" (6.0): a CPU that gets the IPI for a generation its TLB has reached
	 * already returns untraced.  Another thread's own flushes bring it there (a COW's
	 * ptep_clear_flush at every fault in both threads): the receiving CPU's event may not come. */
	rx_untraced = sscanf(run->kernel_here, "%d", &kmajor) == 1 && kmajor >= 6;
	if ((rc = mm_read_text_file(run->csv, &text, err)))
		goto out;
	bm = bench_of(run->variant, &thp);
	fprintf(f,
		"\nevent counts per operation (perf stat -e exceptions:page_fault_user -e "
		"mmap_lock:mmap_lock_start_locking -e tlb:tlb_flush):\n"
		"  faults    = the scenario's fault entries (asm_exc_page_fault, or page_fault before 5.8)\n"
		"  mmap_lock = acquisitions of %s, trylocks included (mmap_read_trylock fires "
		"mmap_lock_start_locking too; a downgrade does not); uncontended: a failed trylock's fallback "
		"fires twice\n"
		"  tlb_flush = the scenario's TLB flushes (ipi steps) x events per flush: the tracepoint fires on the "
		"flushing CPU ('local MM shootdown'), once more when it sends IPIs ('remote IPI send') and on each "
		"interrupted CPU that runs one of our tasks; so 2 + others with other threads of the mm running, "
		"and 1 to 2 for a task alone (an IPI goes out whenever another CPU is still in mm_cpumask: the "
		"harness's sleeping main thread's, or one the task ran on before).  %s\n"
		"  a count differs when off by more than 5%% and by more than its noise in the counted run "
		"(faults %.0f, mmap_lock %.0f, tlb_flush %.0f events)\n",
		lock[0] ? lock : "(no mmap_lock in the scenario)",
		rx_untraced ? "Since 6.0 (aa44284960d5) an interrupted CPU whose TLB already caught up with the "
			      "flush's generation, through a flush of its own, returns before the tracepoint: with "
			      "other threads flushing too, 2 to 2 + others"
			    : "",
		counters[0].noise_events, counters[1].noise_events, counters[2].noise_events);
	if (cm->fallback && lock[0])
		fprintf(f,
			"  mmap_lock 'scenario' = the static count plus what timing adds, simulated at each point "
			"with other threads in the mm (machine %s, fixed work of %d visits per task of the rarest "
			"step, or %.0e step visits if fewer; a task alone in its mm adds nothing): a fault that finds "
			"the VMA write-locked by another task falls back to %s with a "
			"trylock, and a trylock that fails fires the tracepoint again; as their number varies from "
			"run to run, the noise allowance adds 2 sqrt(n) for the n such events expected in the counted "
			"run\n",
			req->machine ? req->machine : "local", COUNT_SIM_CYCLES, COUNT_SIM_VISITS, lock);
	/* the teardown munmap, and the madvise unless --thp default left it out or the scenario has it */
	extra = !bm ? 0 : bm->munmap + (thp == THP_ARG_DEFAULT ? 0 : bm->madvise - cm->madvise);
	if (extra > 0)
		fprintf(f,
			"  mmap_lock 'scenario' includes %g per op that the benchmark's counted round holds beyond the "
			"scenario's operation: %s (validate/populate.c)\n",
			extra,
			cm->madvise > 0		 ? "the teardown munmap (the madvise is a scenario step)"
			: thp == THP_ARG_DEFAULT ? "the teardown munmap (--thp default: no madvise)"
						 : bm->note);
	fprintf(f, "  %-9s %6s %-10s %12s %12s %8s  %s\n", "mode", "tasks", "count", "measured", "scenario", "ratio",
		"status");
	for (l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char mode[16] = "";
		unsigned tasks = 0;
		double ops = 0, want[3], hi[3], fb = -1, dyn = 0;
		int n = 0, others;

		if (strncmp(l, "#counts ", 8))
			continue;
		snprintf(line, sizeof(line), "%s", l);
		if (sscanf(line, "#counts mode=%15s tasks=%u %n", mode, &tasks, &n) < 2 || !n)
			continue;
		seen++;
		if (strstr(line, "unavailable")) {
			fprintf(f, "  %-9s %6u %-10s %12s %12s %8s  unavailable: %s\n", mode, tasks, "all", "-", "-",
				"", strstr(line, "unavailable") + strlen("unavailable: "));
			continue;
		}
		if (field(line, "ops", &ops) || ops <= 0)
			continue;
		others = strcmp(mode, "threads") ? 0 : (int)tasks - 1;
		want[0] = sc->faults;
		want[1] = sc->lock_read + sc->lock_write;
		if (cm->fallback && lock[0]) {
			double add = 0;

			/* a task alone in its mm (others == 0): nothing else takes the mm's locks, so no
			 * VMA it faults on is write-locked by another and no trylock fails; nothing to
			 * simulate */
			fb = 0;
			if (others && (rc = simulated_lock_events(req, cm, SC_THREADS, (int)tasks, &add, &fb, err)))
				goto out;
			want[1] += add;
			dyn = add * ops; /* the timing-dependent events expected in the counted run */
		}
		want[1] += extra;
		want[2] = sc->ipis * (others ? (rx_untraced ? 2 : 2 + others) : 1);
		hi[0] = want[0];
		hi[1] = want[1];
		hi[2] = sc->ipis * (2 + others);
		for (int c = 0; c < 3; c++) {
			double m, r, diff, tol, near;
			char status[160], scen[40];

			if (hi[c] > want[c])
				snprintf(scen, sizeof(scen), "%.5g-%.5g", want[c], hi[c]);
			else
				snprintf(scen, sizeof(scen), "%.5g", want[c]);
			if (field(line, counters[c].key, &m)) {
				fprintf(f, "  %-9s %6u %-10s %12s %12s %8s  not in the CSV\n", mode, tasks,
					counters[c].name, "-", scen, "");
				continue;
			}
			/* the distance from [want, hi]; the ratio is to the nearer end */
			diff = m < want[c] ? want[c] - m : m > hi[c] ? m - hi[c] : 0;
			r = m > hi[c] ? m / hi[c] : want[c] > 0 ? (m < want[c] ? m / want[c] : 1) : 0;
			near = m > hi[c] ? hi[c] : want[c];
			tol = fmax(0.05 * near, (counters[c].noise_events + (c == 1 ? 2 * sqrt(dyn) : 0)) / ops);
			if (c == 1 && !lock[0])
				snprintf(status, sizeof(status), "not comparable: the scenario has no mmap_lock");
			else if (fmax(fabs(m), hi[c]) * ops <= counters[c].noise_events)
				snprintf(status, sizeof(status),
					 "not resolvable: under %.0f events in the counted run (%.0f ops), within its "
					 "noise",
					 counters[c].noise_events, ops);
			else if (diff <= tol * (1 + 1e-9)) /* 3 - 2.8 is a hair above 0.2 in binary */
				snprintf(status, sizeof(status), "ok%s",
					 diff > 0.05 * near ? " (within the noise)" : "");
			else {
				snprintf(status, sizeof(status), "MISMATCH (%s)", counters[c].name);
				++*mismatches;
				if (c == 0)
					fault_dir |= m < want[c] ? 1 : 2;
			}
			if (c == 1 && fb >= 0)
				snprintf(status + strlen(status), sizeof(status) - strlen(status),
					 others ? "; simulated %.3g fallbacks/op"
						: "; %.0f fallbacks/op (a task alone in its mm)",
					 fb);
			if (want[c] > 0)
				fprintf(f, "  %-9s %6u %-10s %12.5g %12s %8.3f  %s\n", mode, tasks, counters[c].name, m,
					scen, r, status);
			else
				fprintf(f, "  %-9s %6u %-10s %12.5g %12s %8s  %s\n", mode, tasks, counters[c].name, m,
					scen, "-", status);
		}
	}
	if (!seen)
		fprintf(f, "  no '#counts' line in %s (was --counts given?)\n", run->csv);
	major_minor(run->kernel_here, here, sizeof(here));
	if (*mismatches)
		fprintf(f, "  %d count(s) differ: a bug in the scenario or the benchmark%s\n", *mismatches,
			strcmp(here, run->kernel_modelled) ? ", or the kernel this machine runs (see the kernel line)"
							   : "");
	/* a file benchmark's faults tell 4 KiB folios from large ones */
	if (run->tmpdir[0] && (fault_dir & 1) && !models_large_folios(run->variant))
		fprintf(
		    f,
		    "  faults: fewer than the scenario's: the kernel cached the file (%s, %s) in folios larger than "
		    "4 KiB and mapped several pages per fault; the _ext4 variants model that\n",
		    run->tmpdir, run->tmpdir_fs);
	else if (run->tmpdir[0] && (fault_dir & 2) && models_large_folios(run->variant))
		fprintf(f,
			"  faults: more than the scenario's: the file (%s, %s) was cached in smaller folios than the "
			"variant's layout (tmpfs, a kernel before 6.16 on ext4, or another readahead window than the "
			"profile's [batch] ra_pages)\n",
			run->tmpdir, run->tmpdir_fs);
	/* page_fault1's and populate's loop's faults tell 4 KiB pages from anonymous mTHP (6.8+) */
	if (bm && (!strcmp(bm->key, "page_fault1") || !strcmp(bm->key, "populate_loop")) && fault_dir && !run->stored) {
		int small, kb = mthp_always_kb(&small), mthp = strstr(run->variant, "_mthp") != NULL;

		if ((fault_dir & 1) && !mthp && (kb > 0 || small))
			fprintf(f,
				"  faults: fewer than the scenario's: anonymous mTHP applies here "
				"(hugepages-%dkB/enabled), "
				"a fault maps a whole folio; the _mthp variants model that%s\n",
				kb > 0 ? kb : small, kb > 0 ? "" : " for 64 KiB to 1 MiB, not this size");
		else if ((fault_dir & 1) && !mthp)
			fprintf(
			    f,
			    "  faults: fewer than the scenario's, and no anonymous mTHP size applies here: PMD-sized "
			    "THP (transparent_hugepage/enabled = always) maps 2 MiB per fault\n");
		else if ((fault_dir & 2) && mthp) {
			char size[32] = "none";

			if (kb > 0)
				snprintf(size, sizeof(size), "%d KiB", kb);
			fprintf(
			    f,
			    "  faults: more than the scenario's: the kernel profile's [batch] mthp_pages is not the "
			    "anonymous mTHP size that applies here (the largest of 64 KiB to 1 MiB: %s)\n",
			    size);
		}
	}
	rc = 0;
out:
	free(text);
	count_model_free(cm);
	free(cm);
	return rc;
}

int validate_counts_of_csv(FILE *f, const char *variant, const char *kernel, const char *machine, const char *csv,
			   int *checked, int *mismatches, struct mm_error *err)
{
	struct validate_req req = {.variant = variant, .kernel = kernel, .machine = machine};
	struct validate_run *run = calloc(1, sizeof(*run));
	struct scenario sc;
	char *line = NULL;
	size_t lcap = 0;
	FILE *in;
	int v, rc;

	*checked = *mismatches = 0;
	if (!run)
		return mm_fail(err, MM_ENOMEM, "out of memory");
	if (!(in = fopen(csv, "r"))) {
		free(run);
		return mm_fail(err, MM_EIO, "%s: cannot open: %s", csv, strerror(errno));
	}
	/* what validate_measure would have known: the kernel it ran on, and where its file was (a
	 * line of any length, whole: a cut one would end the '#' lines early) */
	while (getline(&line, &lcap, in) > 0 && line[0] == '#') {
		char *a = strrchr(line, '(');

		if (!strncmp(line, "#counts ", 8))
			*checked = 1;
		else if (!strncmp(line, "# kernel: ", 10))
			sscanf(line + 10, "%127s", run->kernel_here);
		else if (!strncmp(line, "# tmpdir: ", 10) && a) {
			/* '# tmpdir: DIR (FS)', as validate_csv_backing reads it */
			char *b = strrchr(a, ')');

			snprintf(run->tmpdir_fs, sizeof(run->tmpdir_fs), "%.*s", b ? (int)(b - a - 1) : 0, a + 1);
			snprintf(run->tmpdir, sizeof(run->tmpdir), "%.*s", (int)strcspn(line + 10, " \n"), line + 10);
		}
	}
	free(line);
	fclose(in);
	if (!*checked) {
		free(run);
		return 0;
	}
	if ((rc = scenario_load(&sc, variant, &v, err))) {
		free(run);
		return rc;
	}
	if (v < 0 && sc.nvar == 1)
		v = 0;
	if (v < 0) {
		scenario_free(&sc);
		free(run);
		return mm_fail(err, MM_EINVAL, "compare: '%s' is a scenario; name one of its variants", variant);
	}
	snprintf(run->kernel_modelled, sizeof(run->kernel_modelled), "%s", sc.var[v].kernel);
	snprintf(run->variant, sizeof(run->variant), "%s", sc.var[v].name);
	scenario_free(&sc);
	snprintf(run->csv, sizeof(run->csv), "%s", csv);
	if (run->tmpdir[0] && !run->tmpdir_fs[0])
		snprintf(run->tmpdir_fs, sizeof(run->tmpdir_fs), "unknown");
	run->stored = 1;
	rc = validate_print_counts(f, &req, run, mismatches, err);
	free(run);
	return rc;
}
