/* SPDX-License-Identifier: MIT */
/*
 * mmsim-bench: how fast and how big mmsim is.  Runs the mmsim binary on
 * fixed workloads, each in its own process, and prints simulated events per
 * second, wall time and peak memory (from wait4's rusage).
 *   mmsim-bench [path/to/mmsim]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef MMSIM_BIN
#define MMSIM_BIN "mmsim"
#endif

struct figures {
	double wall_s;
	long maxrss_kb;
	unsigned long long events;
	int points;
};

/* Run mmsim with @args (NULL-terminated), JSON on stdout; sum the events. */
static int measure(const char *bin, char *const args[], struct figures *f)
{
	struct timespec a, b;
	struct rusage ru;
	int pipefd[2], status;
	char buf[65536];
	size_t len = 0;
	ssize_t n;
	pid_t pid;

	memset(f, 0, sizeof(*f));
	if (pipe(pipefd))
		return -1;
	clock_gettime(CLOCK_MONOTONIC, &a);
	pid = fork();
	if (pid == 0) {
		dup2(pipefd[1], 1);
		close(pipefd[0]);
		execv(bin, args);
		_exit(127);
	}
	close(pipefd[1]);
	while ((n = read(pipefd[0], buf + len, sizeof(buf) - 1 - len)) > 0)
		len += (size_t)n;
	buf[len] = 0;
	close(pipefd[0]);
	if (pid < 0 || wait4(pid, &status, 0, &ru) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
		return -1;
	clock_gettime(CLOCK_MONOTONIC, &b);
	f->wall_s = (double)(b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9;
	f->maxrss_kb = ru.ru_maxrss;
	for (char *p = strstr(buf, "\"events\": "); p; p = strstr(p + 1, "\"events\": ")) {
		f->events += strtoull(p + 10, NULL, 10);
		f->points++;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *bin = argc > 1 ? argv[1] : MMSIM_BIN;
	static const struct {
		const char *what;
		const char *target;
		char *args[16];
	} runs[] = {
	    {"one 256-task point (generic, has_pinned_write)",
	     "< 0.5 s",
	     {"mmsim", "--cores", "256", "--scenario", "has_pinned_write", "--tasks", "256", "--format", "json", NULL}},
	    {"the default --cores 256 curve (has_pinned_write)",
	     "< 5 s",
	     {"mmsim", "--cores", "256", "--scenario", "has_pinned_write", "--format", "json", NULL}},
	    {"the default --cores 256 curve (has_pinned_check)",
	     "< 5 s",
	     {"mmsim", "--cores", "256", "--scenario", "has_pinned_check", "--format", "json", NULL}},
	    {"one 1024-task point (generic --cores 1024)",
	     "< 200 MB",
	     {"mmsim", "--cores", "1024", "--scenario", "has_pinned_write", "--tasks", "1024", "--format", "json",
	      NULL}},
	};
	int failed = 0;

	printf("mmsim-bench: %s (the 1-task point of each curve is included; OpenMP threads: %s)\n", bin,
	       getenv("OMP_NUM_THREADS") ? getenv("OMP_NUM_THREADS") : "default");
	printf("%-50s %9s %10s %12s %14s  %s\n", "workload", "wall_s", "peak_MB", "events", "events/s", "target");
	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		struct figures f;

		if (measure(bin, runs[i].args, &f)) {
			printf("%-50s failed (is %s built?)\n", runs[i].what, bin);
			failed = 1;
			continue;
		}
		printf("%-50s %9.3f %10.1f %12llu %14.0f  %s\n", runs[i].what, f.wall_s, f.maxrss_kb / 1024.0, f.events,
		       f.events / f.wall_s, runs[i].target);
	}
	return failed;
}
