/* SPDX-License-Identifier: MIT */
#include "machine.h"

#include <stdio.h>
#include <string.h>

void generic_topology(int ncpus, char *buf, size_t cap)
{
	if (ncpus <= 32 || ncpus % 4) {
		snprintf(buf, cap, "pack:1 numa:1 l3:1 core:%d pu:1", ncpus);
		return;
	}
	int cores = ncpus / 4; /* per package */

	if (cores % 8 == 0)
		snprintf(buf, cap, "pack:2 numa:1 l3:%d core:8 pu:2", cores / 8);
	else
		snprintf(buf, cap, "pack:2 numa:1 l3:1 core:%d pu:2", cores);
}

int machine_load(struct machine *m, const char *name_or_path, int cores, struct mm_error *err)
{
	const char *topo;
	char desc[128];
	int rc;

	memset(m, 0, sizeof(*m));
	if (cores < 0 || cores > MACHINE_MAX_CPUS)
		return mm_fail(err, MM_ERANGE, "--cores %d is impossible (expected 1 to %d logical CPUs)", cores,
			       MACHINE_MAX_CPUS);
	if ((rc = profile_load(&m->prof, "machines", name_or_path, err)))
		return rc;
	if ((rc = hw_profile_derive(&m->hw, &m->prof, err)))
		goto fail;
	topo = m->hw.topology;
	if (!strcmp(topo, "generic")) {
		generic_topology(cores ? cores : 64, desc, sizeof(desc));
		rc = topo_load_synthetic(&m->topo, desc, err);
	} else if (!strcmp(topo, "local")) {
		rc = topo_load_local(&m->topo, err);
	} else if (!strncmp(topo, "xml:", 4)) {
		rc = topo_load_xml(&m->topo, topo + 4, err);
	} else {
		rc = topo_load_synthetic(&m->topo, topo, err);
	}
	if (rc)
		goto fail;
	if (m->hw.npkg_hops) {
		char what[600];

		snprintf(what, sizeof(what), "%s:%d: [machine] package_hops", m->prof.path, m->hw.pkg_hops_line);
		if ((rc = topo_set_package_hops(&m->topo, m->hw.pkg_hops, m->hw.npkg_hops, what, err)))
			goto fail;
	}
	if (cores > m->topo.ncpus) {
		rc = mm_fail(err, MM_ERANGE, "--cores %d: machine '%s' has only %d logical CPUs (%s)", cores,
			     m->hw.name, m->topo.ncpus, m->topo.summary);
		goto fail;
	}
	return 0;
fail:
	machine_free(m);
	return rc;
}

int machine_rederive(struct machine *m, struct mm_error *err)
{
	return hw_profile_derive(&m->hw, &m->prof, err);
}

void machine_free(struct machine *m)
{
	topo_free(&m->topo);
	profile_free(&m->prof);
	memset(m, 0, sizeof(*m));
}
