/* SPDX-License-Identifier: MIT */
/*
 * Files embedded in the binary at build time (cmake/embed.cmake): the
 * shipped hardware profiles (data/machines/NAME.conf), kernel profiles
 * (data/kernels/NAME.conf), scenarios (scenarios/NAME.scn) and published
 * measurements (data/reference/NAME.csv), so that mmsim
 * works from any directory with no installed data.
 */
#ifndef MMSIM_BUILTIN_H
#define MMSIM_BUILTIN_H

struct builtin_file {
	const char *kind; /* "machines", "kernels", "scenarios" or "reference" */
	const char *name; /* file name without directory or extension */
	const char *text;
};

extern const struct builtin_file mmsim_builtin_files[];
extern const int mmsim_builtin_nfiles;

const struct builtin_file *builtin_find(const char *kind, const char *name);

#endif
