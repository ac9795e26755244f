/* SPDX-License-Identifier: MIT */
/* gnuplot, run on a script and a data file mmsim writes. */
#ifndef MMSIM_PLOT_H
#define MMSIM_PLOT_H

#include <stdio.h>
#include "mm_error.h"

/* The image's size in pixels: 900 x 600 unless the writer asks for another (a second panel). */
struct plot_canvas {
	int width, height;
};

/* Writes the plot commands after the terminal and output lines to @script and the data to @data,
 * which the commands read as '@datafile'; it may change @canvas, written before the commands. */
typedef void (*plot_writer)(FILE *script, FILE *data, const char *datafile, struct plot_canvas *canvas, void *arg);

/*
 * Draws @path (.png or .svg) with gnuplot: @write fills a temporary script and data file; the image
 * goes to a side file renamed over @path only when gnuplot succeeded (nothing half-written; without
 * @force an existing @path is refused).  Every temporary file goes on every exit, a signal's
 * included.  @what names the option in messages ("--plot").
 */
int plot_run(const char *path, int force, const char *what, plot_writer write, void *arg, struct mm_error *err);

/*
 * A directory of plots written whole or not at all (reproduce published --plot DIR, sweep --plot
 * DIR): each plot is drawn into a hidden staging directory in @dir, and only when every one was
 * drawn are they moved into @dir; on a failure or a signal the staging directory goes with what it
 * holds, and @dir too if plot_set_begin made it and it is still empty.
 */
struct plot_set {
	char dir[4096];
	char stage[4096 + 32];
	char **names; /* the plots drawn, in order */
	int n, cap, force, dir_slot, stage_slot;
	int made_dir; /* plot_set_begin made @dir */
	const char *what;
};

int plot_set_begin(struct plot_set *ps, const char *dir, int force, const char *what, struct mm_error *err);
/* Draws @name (a file name ending in .png or .svg) into the staging directory. */
int plot_set_add(struct plot_set *ps, const char *name, plot_writer write, void *arg, struct mm_error *err);
/* Whether @name can name a plot of a set: not empty, no '/', no leading '.' (the staging
 * directory's own names start with one). */
int plot_set_name_ok(const char *name);
/* The path plot_set_add(@name) draws to (for callers that draw through plot_run themselves). */
int plot_set_path(const struct plot_set *ps, const char *name, char *path, size_t cap, struct mm_error *err);
/* Counts @name, drawn at plot_set_path's path by the caller, in the set. */
int plot_set_note(struct plot_set *ps, const char *name, struct mm_error *err);
int plot_set_commit(struct plot_set *ps, struct mm_error *err);
/* After a failure: the staging directory and the plots in it removed (and @dir if made and empty). */
void plot_set_abort(struct plot_set *ps);

/* @s as a gnuplot single-quoted string: '' for a quote, a space for a control character. */
void plot_string(FILE *script, const char *s);

/* Point symbols, the same in every mmsim plot: open for a prediction, filled for a measurement;
 * [0] threads (a circle, a triangle), [1] processes (a square, a diamond). */
extern const int plot_pred_pt[2], plot_meas_pt[2];

/* The n-th colour of a plot's series (a colour-blind-safe palette, repeated after 8). */
const char *plot_colour(int n);

/* The x axis of task counts @tasks (any order, repeats allowed, n > 0): log2 with a tick at each
 * count, as runtest.py's plots; one count alone gets a linear axis a task wide each side. */
void plot_task_axis(FILE *script, const int *tasks, int n);

#endif
