/* SPDX-License-Identifier: MIT */
/*
 * mmsim sweep and mmsim merge: a sweep file names machines, kernels, seeds and the options of a
 * run; every machine x kernel x seed is one run, as 'mmsim run' would make it, and every
 * simulation of those runs is one point, numbered 0..N-1.  The points are independent and
 * deterministic, so they can run here together (OpenMP), or one at a time anywhere (--job K,
 * from the lines --emit-jobs prints), and be joined (merge) into the same bytes.
 */
#ifndef MMSIM_SWEEP_CMD_H
#define MMSIM_SWEEP_CMD_H

#include "mm_error.h"
#include "run.h"

/* At most this many points in one sweep (each keeps its result, about 12 KB, until the end). */
#define SWEEP_MAX_POINTS 10000

/* mmsim sweep FILE [--emit-jobs | --job K] [--out DIR]: @argv0 is how mmsim was started, for the
 * command lines --emit-jobs prints. */
int sweep_cmd(const struct opts *o, const char *file, const char *argv0, struct mm_error *err);

/* mmsim merge [--sweep FILE] PATH...: the job files (or directories of them) into the output of
 * mmsim sweep FILE. */
int merge_cmd(const struct opts *o, const char *const *paths, int npaths, struct mm_error *err);

#endif
