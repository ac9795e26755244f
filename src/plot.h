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
