/* SPDX-License-Identifier: MIT */
/*
 * Which anonymous mTHP sizes apply to a region nobody madvised: a size's
 * /sys/kernel/mm/transparent_hugepage/hugepages-<size>kB/enabled says [always], or [inherit]
 * while the top-level enabled says [always] (include/linux/huge_mm.h, thp_vma_allowable_orders, 6.8+).
 * Header only: mmsim calibrate and validate use it, and so does validate/populate.c, a benchmark
 * that does not link mmsim.
 */
#ifndef MMSIM_MTHP_H
#define MMSIM_MTHP_H

#include <string.h>

/* @line: the first line of a size's enabled file; @top_always: the top-level file says [always] */
static inline int mthp_line_applies(const char *line, int top_always)
{
	return strstr(line, "[always]") || (top_always && strstr(line, "[inherit]"));
}

#endif
