/* SPDX-License-Identifier: MIT */
/*
 * src/cleanup.c: what a signal removes.  Each case runs in a child (the handlers end the process
 * by the signal): a registered tree is emptied and removed, and a signal that comes between
 * cleanup_hold() and cleanup_release() waits for the release, the files left alone until then.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cleanup.h"

static int exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

static void touch(const char *path)
{
	FILE *f = fopen(path, "w");

	if (f)
		fclose(f);
}

/* A directory made for the case, under the build tree. */
static void workdir(char *dir, size_t cap, const char *name)
{
	snprintf(dir, cap, "%s/cleanup-%s-%d", MMSIM_BINARY_DIR, name, (int)getpid());
	assert_int_equal(mkdir(dir, 0777), 0);
}

/* The child @pid ended by SIGTERM, not by an exit. */
static void assert_ended_by_sigterm(pid_t pid)
{
	int status;

	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
}

/* A registered tree and a file in it: SIGTERM empties and removes it, and ends the child by the signal. */
static void signal_removes_a_tree(void **state)
{
	char dir[1024], file[1200], sub[1100];
	pid_t pid;

	(void)state;
	workdir(dir, sizeof(dir), "tree");
	snprintf(sub, sizeof(sub), "%s/stage", dir);
	snprintf(file, sizeof(file), "%s/plot.png", sub);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		cleanup_install();
		if (mkdir(sub, 0777) || cleanup_add_tree(sub) < 0)
			_exit(3);
		touch(file);
		raise(SIGTERM);
		_exit(4); /* not reached */
	}
	assert_ended_by_sigterm(pid);
	assert_false(exists(file));
	assert_false(exists(sub));
	assert_int_equal(rmdir(dir), 0);
}

/* Held: the signal only marks mmsim stopping; the files stay until the release, which then ends
 * the child by the signal and removes them. */
static void held_signal_waits_for_the_release(void **state)
{
	char dir[1024], file[1100], mark[1100];
	pid_t pid;

	(void)state;
	workdir(dir, sizeof(dir), "hold");
	snprintf(file, sizeof(file), "%s/result.tmp", dir);
	snprintf(mark, sizeof(mark), "%s/held", dir);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		cleanup_install();
		touch(file);
		if (cleanup_add_file(file) < 0)
			_exit(3);
		cleanup_hold();
		raise(SIGTERM);
		/* still here, the signal noted, the registered file still there */
		if (cleanup_signal() != SIGTERM || !exists(file))
			_exit(5);
		touch(mark);
		cleanup_release();
		_exit(4); /* not reached */
	}
	assert_ended_by_sigterm(pid);
	assert_true(exists(mark));
	assert_false(exists(file));
	unlink(mark);
	assert_int_equal(rmdir(dir), 0);
}

/* No signal while held: the release changes nothing and the program goes on. */
static void release_without_a_signal_goes_on(void **state)
{
	(void)state;
	cleanup_hold();
	cleanup_release();
	assert_int_equal(cleanup_signal(), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(signal_removes_a_tree),
	    cmocka_unit_test(held_signal_waits_for_the_release),
	    cmocka_unit_test(release_without_a_signal_goes_on),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
