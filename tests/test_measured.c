/* SPDX-License-Identifier: MIT */
/*
 * Tests for measured_load() (src/report.c): every shipped will-it-scale CSV loads with its
 * numbers, and a row that no benchmark can have (an infinite or negative throughput, an idle
 * share outside 0..100, a hex task count) is refused at its line and column.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report.h"
#include "scenario.h"

#define HEADER "tasks,processes,processes_idle,threads,threads_idle,linear\n"

/* Write @text to a fresh temporary file; its path goes to @path. */
static void write_tmp(char *path, size_t cap, const char *text)
{
	int fd;
	FILE *f;

	snprintf(path, cap, "%s/measured-XXXXXX", P_tmpdir);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

static int load_text(const char *text, struct measured *m, struct mm_error *err, char *path, size_t cap)
{
	int rc;

	write_tmp(path, cap, text);
	rc = measured_load(path, m, err);
	unlink(path);
	return rc;
}

static void test_shipped_load(void **state)
{
	static const char *const patterns[] = {MMSIM_SOURCE_DIR "/data/measured/*.csv",
					       MMSIM_SOURCE_DIR "/data/measured/repeats/*.csv",
					       MMSIM_SOURCE_DIR "/data/reference/seed002_*.csv"};
	struct measured *m = malloc(sizeof(*m));
	int nfiles = 0, bad = 0;

	(void)state;
	assert_non_null(m);
	for (size_t k = 0; k < sizeof(patterns) / sizeof(patterns[0]); k++) {
		glob_t g;

		assert_int_equal(glob(patterns[k], 0, NULL, &g), 0);
		for (size_t f = 0; f < g.gl_pathc; f++, nfiles++) {
			struct mm_error err = {0};

			if (measured_load(g.gl_pathv[f], m, &err)) {
				print_error("%s\n", err.msg);
				bad++;
			}
		}
		globfree(&g);
	}
	assert_true(nfiles >= 20);
	assert_int_equal(bad, 0);
	/* a known file: idle -1 is the writer's "not measurable" */
	{
		struct mm_error err = {0};

		assert_int_equal(
		    measured_load(MMSIM_SOURCE_DIR "/data/measured/populate-none-thpoff-devvm-20261201.csv", m, &err),
		    0);
		assert_int_equal(m->n, 2);
		assert_int_equal(m->tasks[1], 2);
		assert_true(m->ops[SC_PROCESSES][0] == 965344.145);
		assert_true(m->ops[SC_THREADS][1] == 271525.157);
		assert_true(m->idle[SC_THREADS][1] == -1);
	}
	free(m);
}

struct bad_row {
	const char *row;
	int code;
	const char *msg; /* after "PATH:" */
};

static const struct bad_row bad_rows[] = {
    {"1,inf,0,100,0,100\n", MM_EPARSE,
     ":3:1: expected 'tasks,processes,processes_idle,threads,threads_idle,linear' with numbers: column 3, processes = "
     "'inf', is not a finite decimal number"},
    {"1,100,0,-nan,0,100\n", MM_EPARSE,
     ":3:1: expected 'tasks,processes,processes_idle,threads,threads_idle,linear' with numbers: column 9, threads = "
     "'-nan', is not a finite"},
    {"1,100,0,1e999,0,100\n", MM_EPARSE,
     ":3:1: expected 'tasks,processes,processes_idle,threads,threads_idle,linear' with numbers: column 9, threads = "
     "'1e999', is not a finite"},
    {"1,-5,0,100,0,100\n", MM_ERANGE, ":3:3: processes = -5: expected ops/s >= 0 (0: not measured)"},
    {"1,100,0,100,0,-1\n", MM_ERANGE, ":3:15: linear = -1: expected ops/s >= 0"},
    {"1,100,101,100,0,100\n", MM_ERANGE,
     ":3:7: processes_idle = 101: expected a percentage from 0 to 100, or -1 (not measurable)"},
    {"1,100,0,100,-0.5,100\n", MM_ERANGE, ":3:13: threads_idle = -0.5: expected a percentage from 0 to 100"},
    {"0x10,100,0,100,0,100\n", MM_EPARSE,
     ":3:1: expected 'tasks,processes,processes_idle,threads,threads_idle,linear' with numbers: column 1, tasks = "
     "'0x10', is not a whole number of tasks"},
    {"1.5,100,0,100,0,100\n", MM_EPARSE,
     ":3:1: expected 'tasks,processes,processes_idle,threads,threads_idle,linear' with numbers: column 1, tasks = "
     "'1.5', is not a whole number"},
    {"1,100,0,100,0\n", MM_EPARSE,
     ":3:1: expected 'tasks,processes,processes_idle,threads,threads_idle,linear' with numbers (6 fields), found"},
    {"1,100,0,100,0,100,7\n", MM_EPARSE,
     ":3:1: expected 'tasks,processes,processes_idle,threads,threads_idle,linear' with numbers (6 fields), found"},
    {"1,100,0,100,0,100 \n", MM_EPARSE,
     ":3:1: expected 'tasks,processes,processes_idle,threads,threads_idle,linear' with numbers: column 15, linear = "
     "'100 ', is not a finite"},
    {"2000000,100,0,100,0,100\n", MM_ERANGE, ":3:1: 2e+06 tasks: expected at most 1000000"},
};

static void test_bad_rows(void **state)
{
	struct measured *m = malloc(sizeof(*m));
	int nfail = 0;

	(void)state;
	assert_non_null(m);
	for (size_t i = 0; i < sizeof(bad_rows) / sizeof(bad_rows[0]); i++) {
		char text[256], path[256], want[512];
		struct mm_error err = {0};
		int rc;

		snprintf(text, sizeof(text), "# one row\n" HEADER "%s", bad_rows[i].row);
		rc = load_text(text, m, &err, path, sizeof(path));
		snprintf(want, sizeof(want), "%s%s", path, bad_rows[i].msg);
		if (rc != bad_rows[i].code || strncmp(err.msg, want, strlen(want))) {
			print_error("case %zu: code %d (want %d), message\n  '%s'\nexpected it to start with '%s'\n", i,
				    rc, bad_rows[i].code, err.msg, want);
			nfail++;
		}
	}
	free(m);
	assert_int_equal(nfail, 0);
}

/* A '#' line longer than any buffer is skipped whole: its tail is not read as a data row. */
static void test_long_lines(void **state)
{
	struct measured *m = malloc(sizeof(*m));
	size_t cap = 20000;
	char *text = malloc(cap), path[256];
	struct mm_error err = {0};
	size_t n;

	(void)state;
	assert_non_null(m);
	assert_non_null(text);
	n = (size_t)snprintf(text, cap, HEADER "1,100,0,200,0,100\n#");
	memset(text + n, ' ', 8000);
	n += 8000;
	/* what would be read as a row of its own after a 4096-byte cut */
	n += (size_t)snprintf(text + n, cap - n, "7,100,0,100,0,100\n");
	/* and a data line longer than that, one number with many digits */
	n += (size_t)snprintf(text + n, cap - n, "2,200,0,400,0,");
	memset(text + n, '0', 6000);
	n += 6000;
	snprintf(text + n, cap - n, "200\n");
	assert_int_equal(load_text(text, m, &err, path, sizeof(path)), 0);
	assert_int_equal(m->n, 2);
	assert_int_equal(m->tasks[0], 1);
	assert_int_equal(m->tasks[1], 2);
	assert_true(m->ops[SC_THREADS][1] == 400);
	free(text);
	free(m);
}

/* Rows in another order than increasing tasks are put in it, each row's numbers kept together
 * (the runs are made, and their results indexed, in that order: before, a 4-then-1 file paired
 * the 1-task prediction with the 4-task measurement). */
static void test_unsorted_rows(void **state)
{
	struct measured *m = malloc(sizeof(*m));
	struct mm_error err = {0};
	char path[256];

	(void)state;
	assert_non_null(m);
	assert_int_equal(
	    load_text(HEADER "4,40,4,400,44,0\n1,10,1,100,11,0\n2,20,2,200,22,0\n", m, &err, path, sizeof(path)), 0);
	assert_int_equal(m->n, 3);
	for (int i = 0; i < 3; i++) {
		int t = m->tasks[i];

		assert_int_equal(t, i == 0 ? 1 : i == 1 ? 2 : 4);
		assert_true(m->ops[SC_PROCESSES][i] == 10.0 * t && m->idle[SC_PROCESSES][i] == t);
		assert_true(m->ops[SC_THREADS][i] == 100.0 * t && m->idle[SC_THREADS][i] == 11.0 * t);
	}
	free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_shipped_load),
	    cmocka_unit_test(test_bad_rows),
	    cmocka_unit_test(test_long_lines),
	    cmocka_unit_test(test_unsorted_rows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
