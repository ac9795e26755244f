/* SPDX-License-Identifier: MIT */
/* gnuplot, run on a script and a data file mmsim writes (plot.h). */
#include "plot.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cleanup.h"

int plot_run(const char *path, int force, const char *what, plot_writer write, void *arg, struct mm_error *err)
{
	const char *ext = strrchr(path, '.');
	const char *tmpdir = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char script[4200], datafile[4200];
	struct outfile out;
	struct stat st;
	FILE *f = NULL, *d = NULL;
	int fd, dfd, status, rc, slot[2], child;
	pid_t pid;

	if (!ext || (strcmp(ext, ".png") && strcmp(ext, ".svg")))
		return mm_fail(err, MM_EINVAL, "%s %s: expected a file name ending in .png or .svg", what, path);
	if (strchr(path, '\'') || strlen(path) > 4000)
		return mm_fail(err, MM_EINVAL, "%s %s: a quote or an overlong name cannot be passed to gnuplot", what,
			       path);
	/* gnuplot draws into a side file, renamed only when complete: nothing half-written; the
	 * script and the data go on every exit, a signal's included (cleanup.h) */
	if ((rc = outfile_reserve(&out, path, force, what, err)))
		return rc;
	snprintf(script, sizeof(script), "%s/mmsim-plot-XXXXXX", tmpdir);
	snprintf(datafile, sizeof(datafile), "%s/mmsim-plot-XXXXXX.dat", tmpdir);
	fd = mkstemp(script);
	dfd = fd < 0 ? -1 : mkstemps(datafile, 4);
	if (fd < 0 || dfd < 0) {
		rc = mm_fail(err, MM_EIO, "%s: cannot create a temporary file: %s", what, strerror(errno));
		if (fd >= 0)
			close(fd), unlink(script);
		outfile_abort(&out);
		return rc;
	}
	slot[0] = cleanup_add_file(script);
	slot[1] = cleanup_add_file(datafile);
	f = fdopen(fd, "w");
	d = fdopen(dfd, "w");
	if (!f || !d || slot[0] < 0 || slot[1] < 0) {
		if (f)
			fclose(f);
		else
			close(fd);
		if (d)
			fclose(d);
		else
			close(dfd);
		rc = mm_fail(err, MM_EIO, "%s: cannot write temporary files", what);
		goto out;
	}
	fprintf(f, "set terminal %s size 900,600\n", !strcmp(ext, ".png") ? "png" : "svg");
	fprintf(f, "set output '%s'\n", out.tmp);
	write(f, d, datafile, arg);
	fclose(d);
	fclose(f);
	pid = fork();
	if (pid == 0) {
		cleanup_child_setup();
		execlp("gnuplot", "gnuplot", script, (char *)NULL);
		_exit(127);
	}
	status = -1;
	if (pid > 0) {
		setpgid(pid, pid);
		child = cleanup_add_child(pid);
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		cleanup_forget_child(child);
	}
	if (pid < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0 || stat(out.tmp, &st) || st.st_size == 0) {
		rc = mm_fail(err, MM_EIO, "%s %s: gnuplot failed%s", what, path,
			     WIFEXITED(status) && WEXITSTATUS(status) == 127 ? " (is gnuplot installed?)"
									     : " (can the file be written there?)");
		goto out;
	}
	rc = outfile_commit(&out, err);
out:
	unlink(script);
	unlink(datafile);
	cleanup_forget_file(slot[0]);
	cleanup_forget_file(slot[1]);
	if (rc)
		outfile_abort(&out);
	return rc;
}
