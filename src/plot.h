/* SPDX-License-Identifier: MIT */
/* gnuplot, run on a script and a data file mmsim writes. */
#ifndef MMSIM_PLOT_H
#define MMSIM_PLOT_H

#include <stdio.h>
#include "mm_error.h"

/* Writes the plot commands after the terminal and output lines to @script and the data to @data,
 * which the commands read as '@datafile'. */
typedef void (*plot_writer)(FILE *script, FILE *data, const char *datafile, void *arg);

/*
 * Draws @path (.png or .svg) with gnuplot: @write fills a temporary script and data file; the image
 * goes to a side file renamed over @path only when gnuplot succeeded (nothing half-written; without
 * @force an existing @path is refused).  Every temporary file goes on every exit, a signal's
 * included.  @what names the option in messages ("--plot").
 */
int plot_run(const char *path, int force, const char *what, plot_writer write, void *arg, struct mm_error *err);

#endif
