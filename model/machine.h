/* SPDX-License-Identifier: MIT */
/*
 * A machine to simulate: its hardware profile and its topology.  The
 * built-in "generic" profile has no fixed size: its topology is built from
 * the number of logical CPUs asked for (--cores), by the rule written at
 * the top of data/machines/generic.conf.
 */
#ifndef MMSIM_MACHINE_H
#define MMSIM_MACHINE_H

#include <stddef.h>
#include "profile.h"
#include "topology.h"

#define MACHINE_MAX_CPUS 4096

struct machine {
	struct profile prof;
	struct hw_profile hw;
	struct topology topo;
};

/* @cores: logical CPUs; 0 means the profile's own size (64 for generic). */
int machine_load(struct machine *m, const char *name_or_path, int cores, struct mm_error *err);
/* Derive hw again (after a change to m->prof) without touching the topology. */
int machine_rederive(struct machine *m, struct mm_error *err);
void machine_free(struct machine *m);

/* The hwloc synthetic description of the generic machine with @ncpus CPUs. */
void generic_topology(int ncpus, char *buf, size_t cap);

#endif
