/* SPDX-License-Identifier: MIT */
/*
 * Error codes and messages shared by every mmsim module.
 *
 * Library code returns 0 or a negative code from MM_ERRORS and writes a
 * human-readable message into a caller-owned struct mm_error; only main()
 * prints and exits.  Messages that concern an input file start with
 * "FILE:LINE:COL: " so that editors can jump to them.
 */
#ifndef MMSIM_MM_ERROR_H
#define MMSIM_MM_ERROR_H

#include <stddef.h>

#define MM_ERRORS(X)                          \
	X(EINVAL, -1, "invalid argument")     \
	X(ENOENT, -2, "no such file or name") \
	X(ENOMEM, -3, "out of memory")        \
	X(EPARSE, -4, "malformed input")      \
	X(ERANGE, -5, "number out of range")  \
	X(EIO, -6, "input/output error")      \
	X(ETOPO, -7, "topology error")        \
	X(ESTALL, -8, "simulation made no progress")

enum mm_errcode {
#define MM_ERR_ENUM(name, code, text) MM_##name = (code),
	MM_ERRORS(MM_ERR_ENUM)
#undef MM_ERR_ENUM
};

struct mm_error {
	int code;
	char msg[1024];
};

/* Name ("EPARSE") and generic text of a code. */
const char *mm_strerror(int code);
const char *mm_errname(int code);

/* Record a formatted message in @e (if not NULL) and return @code. */
int mm_fail(struct mm_error *e, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
