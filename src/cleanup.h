/* SPDX-License-Identifier: MIT */
/*
 * What mmsim leaves behind when it stops, however it stops: nothing half-written and no process.
 *
 * Temporary files and the process groups of the benchmarks mmsim starts are registered here;
 * at exit, and on SIGINT, SIGTERM or SIGHUP, the groups are killed (and reaped) and the files
 * removed before the signal ends mmsim as it would have.  Results are written under a temporary
 * name beside the target and renamed when complete (outfile_*), so a result either is whole or
 * is not there.  Only main() installs the handlers; the rest only registers.
 */
#ifndef MMSIM_CLEANUP_H
#define MMSIM_CLEANUP_H

#include <stdio.h>
#include <sys/types.h>

#include "mm_error.h"

#define CLEANUP_SLOTS 64

/* Install the signal handlers and the exit hook (once, from main). */
void cleanup_install(void);

/* Remove @path at exit or on a signal unless forgotten first; returns a slot, or -1 when full.
 * @path may be a directory, removed once empty: register it before the files in it. */
int cleanup_add_file(const char *path);
/* A directory removed with the files in it (one level, as a staging directory holds them); the
 * slot is freed by cleanup_forget_file. */
int cleanup_add_tree(const char *dir);
void cleanup_forget_file(int slot);

/* Kill the process group @pgid (a child made leader of its own group) at exit or on a signal. */
int cleanup_add_child(pid_t pgid);
void cleanup_forget_child(int slot);

/* In a child between fork and exec: its own process group, and death when mmsim dies. */
void cleanup_child_setup(void);

/* Between these two, a SIGINT, SIGTERM or SIGHUP only marks mmsim as stopping; cleanup_release()
 * then does what the signal would have done.  For a few steps that must not be cut in the middle
 * (moving a set of results into place); the main thread only. */
void cleanup_hold(void);
void cleanup_release(void);

/* The signal that is stopping mmsim (0: none); for loops that should stop early. */
int cleanup_signal(void);

/*
 * A result file written atomically: created as PATH.tmp-XXXXXX beside PATH (same directory,
 * so the rename is atomic), registered for clean-up, renamed over PATH by outfile_commit().
 * Without @force an existing PATH is refused (and checked again at the rename, which does not
 * replace a file that appeared meanwhile).
 */
struct outfile {
	char path[4096];
	char tmp[4096 + 16];
	FILE *f;
	int slot;
	int force;
};

int outfile_open(struct outfile *o, const char *path, int force, const char *what, struct mm_error *err);
/* Create only the temporary name (closed, empty) for another program to write into. */
int outfile_reserve(struct outfile *o, const char *path, int force, const char *what, struct mm_error *err);
int outfile_commit(struct outfile *o, struct mm_error *err);
void outfile_abort(struct outfile *o);

/* Refuse an existing @path unless @force (the check before the work, not the last one). */
int outfile_check(const char *path, int force, const char *what, struct mm_error *err);
/* A directory of outputs, @dir: if it exists, one that can be written in; else one its parent can
 * make.  0, or MM_EINVAL with what is wrong (checked before the work, made after it). */
int outdir_check(const char *dir, const char *what, struct mm_error *err);

#endif
