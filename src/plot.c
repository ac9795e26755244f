/* SPDX-License-Identifier: MIT */
/* gnuplot, run on a script and a data file mmsim writes (plot.h). */
#include "plot.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cleanup.h"

/* The terminal: pngcairo where gnuplot has it (antialiased, dashed lines), else libgd's png. */
static void plot_terminal(FILE *f, int png, const struct plot_canvas *cv)
{
	if (!png) {
		fprintf(f, "set terminal svg size %d,%d font 'sans,11'\n", cv->width, cv->height);
		return;
	}
	fprintf(f, "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n");
	fprintf(f, "  set terminal pngcairo size %d,%d font 'sans,10'\n", cv->width, cv->height);
	fprintf(f, "} else {\n  set terminal png size %d,%d\n}\n", cv->width, cv->height);
}

/* The script: the writer's commands go after the terminal line, which needs the canvas the writer
 * chose, so they are written to memory first.  0, or -1 when memory runs out. */
static int plot_script(FILE *f, FILE *d, const char *datafile, int png, const char *output, plot_writer write,
		       void *arg)
{
	struct plot_canvas cv = {900, 600};
	char *body = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&body, &len);

	if (!m)
		return -1;
	write(m, d, datafile, &cv, arg);
	if (fclose(m)) {
		free(body);
		return -1;
	}
	plot_terminal(f, png, &cv);
	fprintf(f, "set output '%s'\n", output);
	fputs(body, f);
	free(body);
	return 0;
}

/* Whether gnuplot wrote @path whole (it exits 0 on a full disk): a PNG ends with its IEND chunk,
 * an SVG with its closing tag. */
static int plot_complete(const char *path, const char *ext)
{
	static const unsigned char iend[12] = {0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xae, 0x42, 0x60, 0x82};
	unsigned char tail[64];
	FILE *f = fopen(path, "rb");
	long n;
	size_t got;

	if (!f)
		return 0;
	if (fseek(f, 0, SEEK_END) || (n = ftell(f)) < 12 || fseek(f, n > 64 ? n - 64 : 0, SEEK_SET)) {
		fclose(f);
		return 0;
	}
	got = fread(tail, 1, sizeof(tail), f);
	fclose(f);
	if (!strcmp(ext, ".png"))
		return got >= 12 && !memcmp(tail + got - 12, iend, 12);
	while (got > 0 && (tail[got - 1] == '\n' || tail[got - 1] == '\r' || tail[got - 1] == ' '))
		got--;
	return got >= 6 && !memcmp(tail + got - 6, "</svg>", 6);
}

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
	rc = plot_script(f, d, datafile, !strcmp(ext, ".png"), out.tmp, write, arg);
	if (fclose(d))
		rc = -1;
	if (fclose(f) || rc) {
		rc = mm_fail(err, MM_EIO, "%s: cannot write the plot's script", what);
		goto out;
	}
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
	if (pid >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0 && !stat(out.tmp, &st) && st.st_size > 0 &&
	    !plot_complete(out.tmp, ext)) {
		rc = mm_fail(err, MM_EIO, "%s %s: gnuplot left it incomplete (is the disk full?)", what, path);
		goto out;
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

/* ---- a directory of plots, whole or not at all ------------------------------------------------ */

int plot_set_begin(struct plot_set *ps, const char *dir, int force, const char *what, struct mm_error *err)
{
	memset(ps, 0, sizeof(*ps));
	ps->force = force;
	ps->what = what;
	ps->dir_slot = ps->stage_slot = -1;
	if (strlen(dir) >= 4000)
		return mm_fail(err, MM_EINVAL, "%s %s: the directory's name is too long", what, dir);
	snprintf(ps->dir, sizeof(ps->dir), "%s", dir);
	if (mkdir(dir, 0777) == 0) {
		ps->made_dir = 1;
		ps->dir_slot = cleanup_add_file(dir); /* made here: gone again if interrupted while empty */
	} else if (errno != EEXIST)
		return mm_fail(err, MM_EIO, "%s %s: cannot create the directory: %s", what, dir, strerror(errno));
	snprintf(ps->stage, sizeof(ps->stage), "%s/.mmsim-plots-XXXXXX", dir);
	if (!mkdtemp(ps->stage)) {
		int e = errno;

		plot_set_abort(ps);
		return mm_fail(err, MM_EIO, "%s %s: cannot create a directory in it: %s", what, dir, strerror(e));
	}
	if ((ps->stage_slot = cleanup_add_tree(ps->stage)) < 0) {
		rmdir(ps->stage);
		ps->stage[0] = '\0';
		plot_set_abort(ps);
		return mm_fail(err, MM_EIO, "%s %s: too many temporary files at once", what, dir);
	}
	return 0;
}

int plot_set_name_ok(const char *name)
{
	return name[0] && name[0] != '.' && !strchr(name, '/');
}

int plot_set_path(const struct plot_set *ps, const char *name, char *path, size_t cap, struct mm_error *err)
{
	if (!plot_set_name_ok(name) || (size_t)snprintf(path, cap, "%s/%s", ps->stage, name) >= cap)
		return mm_fail(err, MM_EINVAL, "%s %s: '%s' cannot name a plot in it", ps->what, ps->dir, name);
	return 0;
}

int plot_set_note(struct plot_set *ps, const char *name, struct mm_error *err)
{
	if (ps->n == ps->cap) {
		int cap = ps->cap ? 2 * ps->cap : 16;
		char **nn = realloc(ps->names, (size_t)cap * sizeof(*nn));

		if (!nn)
			return mm_fail(err, MM_ENOMEM, "out of memory");
		ps->names = nn;
		ps->cap = cap;
	}
	if (!(ps->names[ps->n] = strdup(name)))
		return mm_fail(err, MM_ENOMEM, "out of memory");
	ps->n++;
	return 0;
}

int plot_set_add(struct plot_set *ps, const char *name, plot_writer write, void *arg, struct mm_error *err)
{
	char path[4096 + 300];
	int rc;

	if ((rc = plot_set_path(ps, name, path, sizeof(path), err)) ||
	    (rc = plot_run(path, 1, ps->what, write, arg, err)))
		return rc;
	return plot_set_note(ps, name, err);
}

static void plot_set_free(struct plot_set *ps)
{
	for (int i = 0; i < ps->n; i++)
		free(ps->names[i]);
	free(ps->names);
	ps->names = NULL;
	ps->n = ps->cap = 0;
}

/* The set's end: the staging directory removed and nothing left registered for a signal; on an
 * abort the staged plots go first, and DIR too if mmsim made it and nothing else is in it. */
static void plot_set_end(struct plot_set *ps, int abort)
{
	char path[4096 + 300];

	for (int i = 0; abort && i < ps->n; i++)
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", ps->stage, ps->names[i]) < sizeof(path))
			unlink(path);
	if (ps->stage[0])
		rmdir(ps->stage);
	cleanup_forget_file(ps->stage_slot);
	if (abort && ps->made_dir)
		rmdir(ps->dir);
	cleanup_forget_file(ps->dir_slot);
	ps->stage_slot = ps->dir_slot = -1;
	plot_set_free(ps);
}

void plot_set_abort(struct plot_set *ps)
{
	plot_set_end(ps, 1);
}

/* The staged plot @i's path (@from), its place in DIR (@to), and where a file it replaces is kept
 * until the set is in place (@keep: a hard link in the staging directory). */
static void plot_set_paths(const struct plot_set *ps, int i, char *from, char *to, char *keep, size_t cap)
{
	snprintf(from, cap, "%s/%s", ps->stage, ps->names[i]);
	snprintf(to, cap, "%s/%s", ps->dir, ps->names[i]);
	snprintf(keep, cap, "%s/.was-%s", ps->stage, ps->names[i]);
}

/* Moves the staged plots into DIR, all or (on a failure) none: a plot moved is taken out again and
 * a file it replaced (--force) put back.  A signal waits until it is done (cleanup_hold), so it
 * finds either the whole set in DIR or none of it. */
int plot_set_commit(struct plot_set *ps, struct mm_error *err)
{
	char from[4096 + 300], to[4096 + 300], keep[4096 + 300];
	struct stat st;
	int rc = 0, moved;

	/* every target checked again first: none is replaced unless all can be */
	for (int i = 0; i < ps->n && !rc; i++) {
		plot_set_paths(ps, i, from, to, keep, sizeof(to));
		if (stat(to, &st))
			continue;
		if (!S_ISREG(st.st_mode))
			rc = mm_fail(err, MM_EINVAL, "%s %s: not a file, cannot be replaced", ps->what, to);
		else if (!ps->force)
			rc = mm_fail(err, MM_EINVAL,
				     "%s appeared while mmsim worked: not overwritten (--force to replace it)", to);
	}
	if (rc) {
		plot_set_abort(ps);
		return rc;
	}
	cleanup_hold();
	for (moved = 0; moved < ps->n; moved++) {
		plot_set_paths(ps, moved, from, to, keep, sizeof(to));
		if (!ps->force) {
			/* link() does not replace: a file that appeared since the check above is kept */
			int e = link(from, to) ? errno : 0;

			if (!e) {
				unlink(from);
				continue;
			}
			if (e == EEXIST || stat(to, &st) == 0) { /* (a file system without hard links) */
				rc = mm_fail(err, MM_EINVAL,
					     "%s appeared while mmsim worked: not overwritten (--force to replace it)",
					     to);
				break;
			}
		} else if (link(to, keep) && errno != ENOENT) {
			rc = mm_fail(err, MM_EIO, "%s: cannot keep it until the new plots are in place: %s", to,
				     strerror(errno));
			break;
		}
		if (rename(from, to)) {
			rc = mm_fail(err, MM_EIO, "%s: %s", to, strerror(errno));
			break;
		}
	}
	if (rc) {
		/* the plots already moved are this run's: taken out again, what they replaced put back */
		for (int i = 0; i < moved; i++) {
			plot_set_paths(ps, i, from, to, keep, sizeof(to));
			if (!ps->force || rename(keep, to))
				unlink(to);
		}
		if (ps->force) {
			plot_set_paths(ps, moved, from, to, keep, sizeof(to));
			unlink(keep); /* the failed one's, if made: its original is still in place */
		}
		plot_set_abort(ps);
	} else {
		for (int i = 0; ps->force && i < ps->n; i++) {
			plot_set_paths(ps, i, from, to, keep, sizeof(to));
			unlink(keep);
		}
		plot_set_end(ps, 0);
	}
	cleanup_release(); /* a signal that came meanwhile ends mmsim now, the set whole or gone */
	return rc;
}

void plot_string(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputc('\'', f);
		fputc((unsigned char)*s < 0x20 ? ' ' : *s, f);
	}
	fputc('\'', f);
}

const int plot_pred_pt[2] = {6, 4}, plot_meas_pt[2] = {9, 13};

const char *plot_colour(int n)
{
	/* Okabe and Ito's palette, darkest first */
	static const char *const c[8] = {"#0072b2", "#d55e00", "#009e73", "#cc79a7",
					 "#e69f00", "#56b4e9", "#000000", "#f0e442"};

	return c[(n % 8 + 8) % 8];
}

static int int_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* The half-width in pixels of the label of @t at about 7 pixels a digit, and its place on an axis
 * about 850 pixels wide from @lo to @hi (log2). */
static double label_half(int t)
{
	return 4 + 3.5 * snprintf(NULL, 0, "%d", t);
}

static double label_px(int t, double lo, double hi)
{
	return 850 * log2(t / lo) / log2(hi / lo);
}

/* Which of the @n distinct sorted counts @t get a label: greedily from the first, each clear of the
 * one before; the last always, in place of the one before it when they would touch. */
static void task_labels(const int *t, int n, double lo, double hi, char *label)
{
	int last = 0;

	label[0] = 1;
	for (int i = 1; i < n; i++) {
		double room = label_px(t[i], lo, hi) - label_px(t[last], lo, hi);

		label[i] = room >= label_half(t[i]) + label_half(t[last]) + 6;
		if (i == n - 1 && !label[i]) {
			label[i] = 1;
			label[last] = last == 0; /* the first keeps its label: they share the room */
		}
		last = label[i] ? i : last;
	}
}

void plot_task_axis(FILE *f, const int *tasks, int n)
{
	int *t = malloc(sizeof(*t) * (n > 0 ? n : 1)), k = 0;
	char *label = malloc(n > 0 ? n : 1);

	if (!t || !label || n <= 0) {
		free(t);
		free(label);
		return; /* gnuplot's own axis */
	}
	memcpy(t, tasks, sizeof(*t) * n);
	qsort(t, n, sizeof(*t), int_cmp);
	for (int i = 1; i < n; i++)
		if (t[i] != t[k])
			t[++k] = t[i];
	n = k + 1;
	if (n == 1) /* one task count: give the axis a width (gnuplot would warn) */
		fprintf(f, "set xrange [%g:%g]\nset xtics 1\n", t[0] - 0.5, t[0] + 0.5);
	if (n == 1)
		goto out;
	/* a tick at every count, a label at each that has room for one */
	task_labels(t, n, t[0] / 1.2, t[n - 1] * 1.2, label);
	fprintf(f, "set logscale x 2\nset xrange [%g:%g]\nset xtics (", t[0] / 1.2, t[n - 1] * 1.2);
	for (int i = 0; i < n; i++)
		if (label[i])
			fprintf(f, "%s\"%d\" %d", i ? ", " : "", t[i], t[i]);
		else
			fprintf(f, ", \"\" %d", t[i]);
	fprintf(f, ")\n");
out:
	free(t);
	free(label);
}
