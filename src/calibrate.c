/* SPDX-License-Identifier: MIT */
/*
 * mmsim calibrate (see calibrate.h and calibrate/README.md): measure, run
 * the harness, fit the kernel path costs the runs constrain, write the
 * profiles, report the held-out errors.
 */
#include "calibrate.h"
#include "cleanup.h"
#include "mthp.h"
#include "sweep.h"

#include <dirent.h>
#include <stdarg.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/*
 * The benchmarks fitted to: will-it-scale's page_fault1 (4 KiB anonymous
 * faults, per-VMA lock on 6.4+) and seed 000's populate family (mmap alone,
 * THP off; with THP, the touch loop under the per-VMA lock as in 6.8 and
 * MADV_POPULATE_WRITE, one GUP step per THP as in 3.9+; THP off,
 * MADV_POPULATE_WRITE and MADV_POPULATE_READ: a 4 KiB fault per page through
 * GUP, no trap, a new page each, or the zero page).
 */
const struct calib_bench calib_benches[CALIB_NBENCH] = {
    {"page_fault1-", "page_fault1_vma_lock", "wis_page_fault1", "--mode both --warmup 1 --duration 3", 0, NULL},
    {"populate-none-thpoff-", "populate_none_nothp", "wis_populate",
     "--mode both --method none --thp off --warmup 0.001 --rounds 5", 0, NULL},
    {"populate-loop-thpon-", "populate_loop_vma", "wis_populate",
     "--mode both --method loop --thp on --warmup 0.001 --rounds 5", 0, NULL},
    {"populate-madv_populate_write-thpon-", "populate_madv_populate_write", "wis_populate",
     "--mode both --method madv_populate_write --thp on --warmup 0.001 --rounds 5", 0, NULL},
    {"populate-madv_populate_write-thpoff-", "populate_madv_populate_write_nothp", "wis_populate",
     "--mode both --method madv_populate_write --thp off --warmup 0.001 --rounds 5", 1, NULL},
    {"populate-madv_populate_read-thpoff-", "populate_madv_populate_read_nothp", "wis_populate",
     "--mode both --method madv_populate_read --thp off --warmup 0.001 --rounds 5", 1, NULL},
    /*
     * The user's read of a fresh anonymous page, THP off: trap, per-VMA lock, handle_mm_fault, the
     * zero page's PTE, no allocation or clearing; mmsim-measure's fault_read (a 256-page mapping read
     * a byte a page, per fault), as the read loop of populate_read_nothp (whose mmap and madvise are
     * under 0.1% of its 16384 faults).  With the MADV_POPULATE_READ run beside it (the same fault
     * without the trap, through GUP), it is what separates fault_entry_exit from handle_mm_fault:
     * page_fault1 alone, whose write fault also allocates and clears a page and whose munmap frees
     * it, left the trap with whatever its op costs beyond the modelled steps (fault_entry_exit +
     * handle_mm_fault came out 1.26 to 2.2 times the whole measured read fault on five VMs).
     */
    {"fault_read-", "populate_read_nothp", NULL, NULL, 1, "fault_read"},
};

/*
 * fault_entry_exit: the trap, in every page_fault1 op and every touch-loop
 * THP fault; handle_mm_fault: the fault's work in the kernel that GUP does
 * too (mm/gup.c faultin_page calls handle_mm_fault, no exception taken),
 * once per page of both THP-off MADV_POPULATE runs; alloc_page: a new 4 KiB
 * page, which the MADV_POPULATE_WRITE run takes per page and the
 * MADV_POPULATE_READ run (the zero page) does not; mmap_region:
 * populate_none_nothp's mmap (its madvise is madvise_vma, not fitted);
 * thp_alloc: with the measured 2 MiB clearing (task_gbs), the THP faults.
 * The other path costs stay the base profile's, but for the two mmsim-measure
 * times (calib_measured_costs) and, with --carry, the assumed ones scaled
 * (calib_carry_factor).  Without the two GUP runs
 * the trap and the in-kernel path sit side by side in every fault and are
 * degenerate: calibrate put a fault's whole excess into the trap, and every
 * GUP path (MADV_POPULATE_*, MAP_POPULATE) came out several times too fast
 * on the development VM (seed 003's cells +244% to +632%).  touch_thp (the
 * loop's 511 stores per THP) is no longer fitted: a small share of one run,
 * it ended at its search bound on both VMs calibrated, and with the two new
 * costs beside it the synthetic recovery could not bound it.
 */
const char *const calib_param_names[CALIB_NPARAM] = {"fault_entry_exit", "mmap_region", "thp_alloc", "handle_mm_fault",
						     "alloc_page"};

static int prof_append(struct profile *p, const struct prof_entry *src)
{
	if (p->nentries == p->cap) {
		struct prof_entry *n = realloc(p->e, (size_t)(p->cap * 2 + 8) * sizeof(*n));

		if (!n)
			return MM_ENOMEM;
		p->e = n;
		p->cap = p->cap * 2 + 8;
	}
	p->e[p->nentries++] = *src;
	return 0;
}

static void prof_set_num(struct prof_entry *e, double v)
{
	e->num = v;
	snprintf(e->value, sizeof(e->value), "%.17g", v);
}

/* The index of @v in @a[0..n-1], -1 if it is not there (a kprof entry among the fitted, measured or
 * carried ones). */
static int index_of(const int *a, int n, int v)
{
	for (int k = 0; k < n; k++)
		if (a[k] == v)
			return k;
	return -1;
}

int calib_model_init(struct calib_model *cm, const struct machine *m, const char *base, const char *donor,
		     struct mm_error *err)
{
	struct profile dp;
	struct kernel_profile k;
	int rc, nsc = 0;

	memset(cm, 0, sizeof(*cm));
	cm->m = m;
	cm->seed = 1;
	snprintf(cm->base, sizeof(cm->base), "%s", base);
	snprintf(cm->donor, sizeof(cm->donor), "%s", donor);
	if ((rc = profile_load(&cm->kprof, "kernels", base, err)))
		return rc;
	if ((rc = profile_load(&dp, "kernels", donor, err))) {
		profile_free(&cm->kprof);
		return rc;
	}
	for (int i = 0; i < dp.nentries && !rc; i++) {
		const struct prof_entry *d = &dp.e[i];

		if ((strcmp(d->section, "costs") && strcmp(d->section, "batch")) ||
		    profile_find(&cm->kprof, d->section, d->key))
			continue;
		if (prof_append(&cm->kprof, d))
			rc = mm_fail(err, MM_ENOMEM, "out of memory");
		else
			cm->kprof.e[cm->kprof.nentries - 1].line = -1; /* marks a key taken from the donor */
	}
	profile_free(&dp);
	if (rc)
		goto fail;
	cm->nparam = CALIB_NPARAM;
	cm->restarts = 4;
	for (int j = 0; j < CALIB_NPARAM; j++) {
		struct prof_entry *e = profile_find(&cm->kprof, "costs", calib_param_names[j]);

		if (!e || !e->is_num || e->num <= 0) {
			rc = mm_fail(err, MM_ENOENT, "kernel profile %s (with %s's extra keys) has no [costs] %s > 0",
				     base, donor, calib_param_names[j]);
			goto fail;
		}
		cm->entry[j] = (int)(e - cm->kprof.e);
		cm->param[j] = (struct fit_param){.name = calib_param_names[j],
						  .initial = e->num,
						  .lower = e->num / CALIB_SEARCH_DOWN,
						  .upper = e->num * CALIB_SEARCH_UP};
	}
	cm->carry = 1;
	cm->carry_entry = malloc((size_t)cm->kprof.nentries * sizeof(*cm->carry_entry));
	cm->carry_base = malloc((size_t)cm->kprof.nentries * sizeof(*cm->carry_base));
	if (!cm->carry_entry || !cm->carry_base) {
		rc = mm_fail(err, MM_ENOMEM, "out of memory");
		goto fail;
	}
	for (int i = 0; i < cm->kprof.nentries; i++) {
		const struct prof_entry *e = &cm->kprof.e[i];

		if (index_of(cm->entry, CALIB_NPARAM, i) < 0 && !strcmp(e->section, "costs") && e->is_num &&
		    e->num > 0 && e->tag == PROF_ASSUMED && !calib_user_cost(e->key)) {
			cm->carry_entry[cm->ncarry] = i;
			cm->carry_base[cm->ncarry++] = e->num;
		}
	}
	if ((rc = kernel_profile_derive(&k, &cm->kprof, err)))
		goto fail;
	for (nsc = 0; nsc < CALIB_NBENCH; nsc++) {
		struct program prog;

		if ((rc = scenario_load(&cm->sc[nsc], calib_benches[nsc].variant, &cm->var[nsc], err)))
			goto fail;
		if ((rc = scenario_compile(&cm->sc[nsc], cm->var[nsc], &k, &prog, err))) {
			nsc++;
			goto fail;
		}
		program_free(&prog);
	}
	return 0;
fail:
	for (int i = 0; i < nsc; i++)
		scenario_free(&cm->sc[i]);
	profile_free(&cm->kprof);
	free(cm->carry_entry);
	free(cm->carry_base);
	cm->carry_entry = NULL;
	cm->carry_base = NULL;
	return rc;
}

void calib_model_free(struct calib_model *cm)
{
	for (int i = 0; i < CALIB_NBENCH; i++)
		scenario_free(&cm->sc[i]);
	profile_free(&cm->kprof);
	free(cm->carry_entry);
	free(cm->carry_base);
}

/* '#   QUANTITY  VALUE ns' in a profile mmsim-measure wrote: VALUE, or -1. */
static double profile_figure(const char *text, const char *quantity)
{
	size_t n = strlen(quantity);

	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		const char *p = l;
		char *end;
		double v;

		if (strncmp(p, "#   ", 4))
			continue;
		p += 4;
		if (strncmp(p, quantity, n) || (p[n] != ' ' && p[n] != '\t'))
			continue;
		v = strtod(p + n, &end);
		if (end != p + n && !strncmp(end, " ns", 3) && v > 0)
			return v;
	}
	return -1;
}

int calib_split_folio(double small, int n_small, double big, int n_big, double *per_folio, double *per_page)
{
	if (small <= 0 || big <= 0 || n_small <= 0 || n_big <= n_small)
		return 0;
	*per_folio = (small - big) / (1.0 / n_small - 1.0 / n_big);
	*per_page = big - *per_folio / n_big;
	return *per_folio >= 0 && *per_page > 0;
}

/* Entry @i of the kernel profile measured here: recorded as such and no longer carried (a measured
 * cost keeps its value through the fit; calib_model_set resets every carried one). */
static void calib_take_measured(struct calib_model *cm, int i)
{
	int j = index_of(cm->carry_entry, cm->ncarry, i);

	if (j >= 0) {
		memmove(&cm->carry_entry[j], &cm->carry_entry[j + 1],
			(size_t)(cm->ncarry - j - 1) * sizeof(*cm->carry_entry));
		memmove(&cm->carry_base[j], &cm->carry_base[j + 1],
			(size_t)(cm->ncarry - j - 1) * sizeof(*cm->carry_base));
		cm->ncarry--;
	}
	if (cm->nmeas < CALIB_MAX_MEAS)
		cm->meas_entry[cm->nmeas++] = i;
}

/*
 * Scale the @n kernel costs named in @group (each in [costs], above 0) by one factor so that they sum
 * to @target cycles: the measurement gives the sum, the split among them stays the base's.  @how says
 * how the target was had (the note each entry is written with).  Nothing is set when an entry is
 * missing; when @target is not above 0 they are left at the base's and @skipped is said instead.
 */
static void calib_scale_group(struct calib_model *cm, const char *const *group, int n, double target, const char *how,
			      const char *skipped)
{
	struct prof_entry *g[8];
	double sum = 0;

	for (int i = 0; i < n && i < 8; i++) {
		g[i] = profile_find(&cm->kprof, "costs", group[i]);
		if (!g[i] || !g[i]->is_num || g[i]->num <= 0)
			return;
		sum += g[i]->num;
	}
	if (target <= 0) {
		snprintf(cm->meas_skipped[cm->nmeas_skipped++], sizeof(cm->meas_skipped[0]), "%s", skipped);
		return;
	}
	for (int i = 0; i < n && i < 8 && cm->nmeas < CALIB_MAX_MEAS; i++) {
		snprintf(cm->meas_note[cm->nmeas], sizeof(cm->meas_note[0]),
			 "%s; each is %s's (%g) times %.4g, the sum measured, the split assumed", how, cm->base,
			 g[i]->num, target / sum);
		prof_set_num(g[i], round(g[i]->num * target / sum));
		calib_take_measured(cm, (int)(g[i] - cm->kprof.e));
	}
}

/*
 * What a write fault on a cached page of a shared tmpfs mapping (fault_shared_file: v6.18
 * do_shared_fault -> shmem_fault finding the folio, finish_fault's set_pte_range with the file
 * rmap, fault_dirty_shared_page's file_update_time, shmem having no ->page_mkwrite) costs beyond a
 * read fault of fresh anonymous memory (fault_read: the zero page's PTE), both timed by
 * mmsim-measure (over 8192 and 256 pages: the shared file's struct pages and page-cache nodes out of
 * cache as in a 128 MiB pass, the anonymous read touching neither), so the trap, the VMA lock and
 * the walk are the same in both.  In page_fault3's terms that is filemap_lookup + page_mkwrite +
 * file_set_pte (its vmstat and rss counters are the model's stores and atomics) in place of the
 * read fault's set_pte_zero: the three become the difference plus set_pte_zero, split as the base
 * splits them.  Left at the base's, and said, when that is not above 0.
 */
static void calib_file_fault_group(struct calib_model *cm, const char *machine_path, double shared_ns, double read_ns,
				   double ghz)
{
	static const char *const group[] = {"filemap_lookup", "page_mkwrite", "file_set_pte"};
	struct prof_entry *zero = profile_find(&cm->kprof, "costs", "set_pte_zero");
	char how[480], skipped[300];

	if (!zero || !zero->is_num)
		return;
	snprintf(skipped, sizeof(skipped),
		 "filemap_lookup, page_mkwrite and file_set_pte left at the base's: fault_shared_file %.4g ns less "
		 "fault_read %.4g ns, plus set_pte_zero (%g cycles), is not above 0",
		 shared_ns, read_ns, zero->num);
	snprintf(how, sizeof(how),
		 "# [measured] by calibrate/mmsim-measure, from the hardware profile %s: fault_shared_file %.4g ns "
		 "less fault_read %.4g ns at %.3g GHz, plus set_pte_zero (%g cycles), is filemap_lookup + "
		 "page_mkwrite + file_set_pte",
		 machine_path, shared_ns, read_ns, ghz, zero->num);
	calib_scale_group(cm, group, 3, (shared_ns - read_ns) * ghz + zero->num, how, skipped);
}

/* @en = @target cycles, measured as @note says; when @target is not above 0, left at the base's and
 * @skipped said instead. */
static void calib_set_rest(struct calib_model *cm, struct prof_entry *en, double target, const char *note,
			   const char *skipped)
{
	if (target <= 0) {
		snprintf(cm->meas_skipped[cm->nmeas_skipped++], sizeof(cm->meas_skipped[0]), "%s", skipped);
		return;
	}
	if (cm->nmeas >= CALIB_MAX_MEAS)
		return;
	/* a note cut short is still a comment: nothing else reads it */
	if (snprintf(cm->meas_note[cm->nmeas], sizeof(cm->meas_note[0]), "%s (%s had %g)", note, cm->base, en->num) >=
	    (int)sizeof(cm->meas_note[0]))
		cm->meas_note[cm->nmeas][sizeof(cm->meas_note[0]) - 1] = '\0';
	prof_set_num(en, round(target));
	calib_take_measured(cm, (int)(en - cm->kprof.e));
}

/*
 * What a read fault that maps a large folio of a file costs beyond page_fault.scn's steps
 * (file_folio_fault, the _ext4 variants): @u_ns, the per-fault part of the read passes over files
 * of 64 KiB and of 1 MiB folios (read_64k_page and read_1m_page split as a + u / n), less the
 * trap, VMA lock and walk that fault_read times (less its set_pte_zero), the lookup
 * (filemap_lookup) and one folio's map_pages_per_page, as this machine's figures set them.  Left
 * at the base's, and said, when that is not above 0.
 */
static void calib_large_folio_fault(struct calib_model *cm, const char *machine_path, double u_ns, double read_ns,
				    double ghz)
{
	struct prof_entry *en = profile_find(&cm->kprof, "costs", "file_folio_fault"),
			  *zero = profile_find(&cm->kprof, "costs", "set_pte_zero"),
			  *lookup = profile_find(&cm->kprof, "costs", "filemap_lookup"),
			  *folio = profile_find(&cm->kprof, "costs", "map_pages_per_page");
	double held;
	char note[480], skipped[300];

	if (!en || !zero || !lookup || !folio || !en->is_num || !zero->is_num || !lookup->is_num || !folio->is_num)
		return;
	held = lookup->num + folio->num - zero->num;
	snprintf(skipped, sizeof(skipped),
		 "file_folio_fault left at the base's: a large-folio read fault's %.4g ns less fault_read %.4g ns "
		 "(%.4g cycles at %.3g GHz) is not more than filemap_lookup + map_pages_per_page - set_pte_zero (%g "
		 "cycles)",
		 u_ns, read_ns, (u_ns - read_ns) * ghz, ghz, held);
	snprintf(note, sizeof(note),
		 "# [measured] by calibrate/mmsim-measure, from the hardware profile %s: a large-folio read fault "
		 "(read_64k_page and read_1m_page as a + u / n) u = %.4g ns less fault_read %.4g ns at %.3g GHz, "
		 "less filemap_lookup + map_pages_per_page - set_pte_zero (%g cycles)",
		 machine_path, u_ns, read_ns, ghz, held);
	calib_set_rest(cm, en, (u_ns - read_ns) * ghz - held, note, skipped);
}

/*
 * What a memfd's write fault adds to an anonymous one (shmem_write_less_anon), in the scenarios'
 * terms (scenarios/madv_populate.scn: shmem_new, file_pte and shared_dirty against anon_new): the
 * page-cache lookup that misses (filemap_lookup), file_set_pte in place of set_pte_rmap, and the
 * four costs only shmem's new page has.  Their sum becomes the measured difference less the first
 * two, each of the four scaled by one factor: the measurement gives the sum, the split among them
 * stays the assumed one.  The two uncontended lock rounds (the xarray's, info->lock) are left to
 * the model's atomics.  Left at the base's, and said, when the difference is not more than the
 * first two.
 */
static void calib_shmem_group(struct calib_model *cm, const char *machine_path, double extra_ns, double ghz)
{
	static const char *const group[] = {"vm_acct_page", "page_cache_insert", "shmem_inode_acct", "shmem_dirty"};
	struct prof_entry *lookup = profile_find(&cm->kprof, "costs", "filemap_lookup"),
			  *file_pte = profile_find(&cm->kprof, "costs", "file_set_pte"),
			  *anon_pte = profile_find(&cm->kprof, "costs", "set_pte_rmap");
	double rest;
	char how[480], skipped[300];

	if (!lookup || !file_pte || !anon_pte || !lookup->is_num || !file_pte->is_num || !anon_pte->is_num)
		return;
	rest = lookup->num + file_pte->num - anon_pte->num;
	snprintf(skipped, sizeof(skipped),
		 "vm_acct_page, page_cache_insert, shmem_inode_acct and shmem_dirty left at the base's: "
		 "shmem_write_less_anon %.4g ns (%.4g cycles at %.3g GHz) is not more than filemap_lookup + "
		 "file_set_pte - set_pte_rmap (%g cycles)",
		 extra_ns, extra_ns * ghz, ghz, rest);
	snprintf(how, sizeof(how),
		 "# [measured] by calibrate/mmsim-measure, from the hardware profile %s: shmem_write_less_anon "
		 "%.4g ns at %.3g GHz, less filemap_lookup + file_set_pte - set_pte_rmap (%g cycles), is "
		 "vm_acct_page + page_cache_insert + shmem_inode_acct + shmem_dirty",
		 machine_path, extra_ns, ghz, rest);
	calib_scale_group(cm, group, 4, extra_ns * ghz - rest, how, skipped);
}

/*
 * What a munmap costs more per page when it frees the page (munmap_anon_pte: written anonymous
 * pages) than when the page stays cached (munmap_file_pte): v6.18 mm/swap.c folios_put_refs past the
 * last reference, __page_cache_release off the LRU, mem_cgroup_uncharge_folios and
 * free_unref_folios onto the per-CPU list; the file's munmap drops its references through the same
 * batch and frees nothing.  In the scenarios' terms (page_fault1's munmap, a discard of private
 * anonymous memory) that is free_page and each page's share of the LRU and zone batches
 * (lru_batch_move / lru_batch, zone_batch / pcp_batch): free_page becomes the difference less those
 * shares.  Left at the base's, and said, when the difference is not more than them.
 */
static void calib_free_page(struct calib_model *cm, const char *machine_path, double anon_ns, double file_ns,
			    double ghz)
{
	struct prof_entry *fp = profile_find(&cm->kprof, "costs", "free_page"),
			  *lru = profile_find(&cm->kprof, "costs", "lru_batch_move"),
			  *zone = profile_find(&cm->kprof, "costs", "zone_batch"),
			  *nlru = profile_find(&cm->kprof, "batch", "lru_batch"),
			  *npcp = profile_find(&cm->kprof, "batch", "pcp_batch");
	double shares;
	char note[480], skipped[300];

	if (!fp || !lru || !zone || !nlru || !npcp || !fp->is_num || !lru->is_num || !zone->is_num || !nlru->is_num ||
	    !npcp->is_num || nlru->num < 1 || npcp->num < 1)
		return;
	shares = lru->num / nlru->num + zone->num / npcp->num;
	snprintf(skipped, sizeof(skipped),
		 "free_page left at the base's: munmap_anon_pte %.4g ns less munmap_file_pte %.4g ns (%.4g cycles at "
		 "%.3g GHz) is not more than the LRU and zone batches' share per page (%.4g cycles)",
		 anon_ns, file_ns, (anon_ns - file_ns) * ghz, ghz, shares);
	snprintf(note, sizeof(note),
		 "# [measured] by calibrate/mmsim-measure, from the hardware profile %s: munmap_anon_pte %.4g ns "
		 "less munmap_file_pte %.4g ns at %.3g GHz (the page freed: off the LRU, uncharged, onto the "
		 "per-CPU list), less the LRU and zone batches' share per page (%.4g cycles)",
		 machine_path, anon_ns, file_ns, ghz, shares);
	calib_set_rest(cm, fp, (anon_ns - file_ns) * ghz - shares, note, skipped);
}

/* A cost calib_measured_costs sets from the figures, in ns, with how it was had. */
struct meas_fig {
	const char *key;
	double ns;
	char how[240];
};

static void fig_add(struct meas_fig *m, int *nm, const char *key, double ns, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void fig_add(struct meas_fig *m, int *nm, const char *key, double ns, const char *fmt, ...)
{
	va_list ap;

	m[*nm].key = key;
	m[*nm].ns = ns;
	va_start(ap, fmt);
	vsnprintf(m[*nm].how, sizeof(m[0].how), fmt, ap);
	va_end(ap);
	++*nm;
}

/* @key = figure @a less figure @b (named @an, @bn; @why: what the difference is), when both are
 * listed and @a is the larger; when @a is not, left at the base's, and said. */
static void fig_diff(struct calib_model *cm, struct meas_fig *m, int *nm, const char *key, const char *an, double a,
		     const char *bn, double b, const char *why)
{
	if (a <= 0 || b <= 0)
		return;
	if (a > b)
		fig_add(m, nm, key, a - b, "%s %.4g ns less %s %.4g ns (%s)", an, a, bn, b, why);
	else
		snprintf(cm->meas_skipped[cm->nmeas_skipped++], sizeof(cm->meas_skipped[0]),
			 "%s left at the base's: %s %.4g ns is not more than %s %.4g ns (noise; a loaded machine?)",
			 key, an, a, bn, b);
}

int calib_measured_costs(struct calib_model *cm, const char *machine_path, double ghz)
{
	struct mm_error e = {0};
	char *text = NULL;
	double around, fread_, fwrite_, cow, zap, zap_zero, zap_anon, lf[8], folio, page, shmem_extra, punch,
	    shared_file, read_u = -1;
	static const char *const lf_name[8] = {"mkwrite_64k_page",   "mkwrite_pmd_page", "dirty_zap_64k_page",
					       "dirty_zap_pmd_page", "munmap_64k_pte",	 "munmap_1m_pte",
					       "read_64k_page",	     "read_1m_page"};
	/* the large-folio file's pairs: 16-page folios against 512- or 256-page ones */
	static const struct {
		int small, n_small, big, n_big;
		const char *folio_key, *page_key, *what;
	} lf_split[4] = {
	    {0, 16, 1, 512, "mkwrite_folio", "mkwrite_page",
	     "a write pass less a read pass of a file in 64 KiB and in 2 MiB folios"},
	    {2, 16, 3, 512, "zap_dirty_folio", "zap_dirty_page",
	     "the munmap after a write pass less after a read pass, the same files"},
	    {4, 16, 5, 256, "zap_folio_ptes", "zap_pte_batched",
	     "the munmap of a clean file in 64 KiB and in 1 MiB folios"},
	    /* the per-fault part: file_folio_fault (calib_large_folio_fault) */
	    {6, 16, 7, 256, NULL, "map_pages_batched",
	     "a read pass over the same files (the user's read of each page included)"},
	};
	struct meas_fig m[14];
	int nm = 0;

	cm->nmeas = 0;
	cm->nmeas_skipped = 0;
	if (ghz <= 0 || !machine_path || access(machine_path, R_OK) || mm_read_text_file(machine_path, &text, &e))
		return 0;
	around = profile_figure(text, "fault_around_page");
	fread_ = profile_figure(text, "fault_read");
	fwrite_ = profile_figure(text, "fault_write");
	cow = profile_figure(text, "fault_cow_zero");
	zap = profile_figure(text, "munmap_file_pte");
	zap_zero = profile_figure(text, "munmap_zero_pte");
	zap_anon = profile_figure(text, "munmap_anon_pte");
	shmem_extra = profile_figure(text, "shmem_write_less_anon");
	shared_file = profile_figure(text, "fault_shared_file");
	punch = profile_figure(text, "shmem_punch_page");
	for (int i = 0; i < 8; i++)
		lf[i] = profile_figure(text, lf_name[i]);
	free(text);
	if (around > 0 && fread_ > 0 && around > fread_ / 16)
		fig_add(m, &nm, "map_pages_per_page", around - fread_ / 16,
			"fault_around_page %.4g ns less fault_read %.4g ns / 16 (the fault's own cost shared by its "
			"16 pages)",
			around, fread_);
	if (zap > 0)
		fig_add(m, &nm, "zap_pte", zap,
			"munmap_file_pte %.4g ns (zap_pte_range per present PTE, nothing freed)", zap);
	/* a COW of the zero page against a fresh write fault: the same page allocated and zeroed, and
	 * besides do_wp_page's checks and wp_page_copy's ptep_clear_flush of the read-only PTE (v6.18
	 * mm/memory.c; on x86 flush_tlb_mm_range, which walks mm_cpumask's other CPUs) */
	fig_diff(cm, m, &nm, "flush_one_page", "fault_cow_zero", cow, "fault_write", fwrite_,
		 "a COW's do_wp_page and ptep_clear_flush");
	if (zap_zero > 0)
		fig_add(m, &nm, "zap_zero_pte", zap_zero,
			"munmap_zero_pte %.4g ns (zap_present_ptes per PTE of the zero page: cleared, nothing counted "
			"or freed)",
			zap_zero);
	for (int i = 0; i < 4; i++) {
		const int a = lf_split[i].small, b = lf_split[i].big;

		if (!calib_split_folio(lf[a], lf_split[i].n_small, lf[b], lf_split[i].n_big, &folio, &page)) {
			if (lf[a] > 0 && lf[b] > 0)
				snprintf(
				    cm->meas_skipped[cm->nmeas_skipped++], sizeof(cm->meas_skipped[0]),
				    "%s%s%s left at the base's: %s %.4g ns and %s %.4g ns per page are not a + u / n "
				    "with a > 0 and u >= 0 (noise; a loaded machine?)",
				    lf_split[i].folio_key ? lf_split[i].folio_key : "",
				    lf_split[i].folio_key ? " and " : "", lf_split[i].page_key, lf_name[a], lf[a],
				    lf_name[b], lf[b]);
			continue;
		}
		if (lf_split[i].folio_key)
			fig_add(m, &nm, lf_split[i].folio_key, folio,
				"per folio, from %s: %s %.4g ns and %s %.4g ns per page", lf_split[i].what, lf_name[a],
				lf[a], lf_name[b], lf[b]);
		else
			read_u = folio; /* the read pass's per-fault part: calib_large_folio_fault below */
		fig_add(m, &nm, lf_split[i].page_key, page, "per page, from %s: %s %.4g ns and %s %.4g ns per page",
			lf_split[i].what, lf_name[a], lf[a], lf_name[b], lf[b]);
	}
	fig_diff(cm, m, &nm, "shmem_truncate_page", "shmem_punch_page", punch, "munmap_file_pte", zap,
		 "the punch's zap of each PTE");
	for (int i = 0; i < nm; i++) {
		struct prof_entry *en = profile_find(&cm->kprof, "costs", m[i].key);

		if (!en || !en->is_num)
			continue;
		snprintf(cm->meas_note[cm->nmeas], sizeof(cm->meas_note[0]),
			 "# [measured] by calibrate/mmsim-measure, from the hardware profile %s: %s = %.4g ns, at %.3g "
			 "GHz (%s had %g)",
			 machine_path, m[i].how, m[i].ns, ghz, cm->base, en->num);
		prof_set_num(en, round(m[i].ns * ghz));
		calib_take_measured(cm, (int)(en - cm->kprof.e));
	}
	/* before the shmem group, which takes filemap_lookup and file_set_pte as they are */
	if (shared_file > 0 && fread_ > 0)
		calib_file_fault_group(cm, machine_path, shared_file, fread_, ghz);
	/* after map_pages_per_page and the file fault's lookup are set */
	if (read_u > 0 && fread_ > 0)
		calib_large_folio_fault(cm, machine_path, read_u, fread_, ghz);
	if (shmem_extra > 0)
		calib_shmem_group(cm, machine_path, shmem_extra, ghz);
	if (zap_anon > 0 && zap > 0)
		calib_free_page(cm, machine_path, zap_anon, zap, ghz);
	return cm->nmeas;
}

/*
 * The user's own loop (a load or store per page, 511 stores into a mapped THP, the first touch of a
 * page another fault mapped, which mmsim calibrate measures apart): user space, not the kernel.
 */
int calib_user_cost(const char *key)
{
	static const char *const user[] = {"user_touch", "touch_thp", "touch_mapped_private", "touch_mapped_shared"};

	for (size_t i = 0; i < sizeof(user) / sizeof(user[0]); i++)
		if (!strcmp(key, user[i]))
			return 1;
	return 0;
}

/*
 * The fitted costs are the kernel's paths that the runs measure; the others (page-cache insertion,
 * a TLB flush, the zap of a PTE, ...) are round figures assumed for bare metal.  A machine that runs
 * the measured paths k times slower than assumed (a guest, a debug kernel, an older core) may run the
 * others slower too: on the development VM the five fitted costs came out 3.6 to 31 times their
 * assumed values, and seed 003's shmem cells (no shmem in the training runs) 1.3 to 2.3 times too
 * fast.  mmsim calibrate --carry (off by default: it brings some curves nearer and takes others
 * further, calibrate/README.md) scales the unfitted assumed costs by the median ratio, so that one
 * path with an excess of its own (thp_alloc there) does not set it.
 */
double calib_carry_factor(const struct calib_model *cm, const double *params)
{
	double r[FIT_MAX_PARAMS], t;
	int n = 0;

	for (int j = 0; j < cm->nparam; j++)
		if (cm->param[j].initial > 0 && params[j] > 0)
			r[n++] = params[j] / cm->param[j].initial;
	if (!n)
		return 1;
	for (int i = 1; i < n; i++) /* insertion sort: at most FIT_MAX_PARAMS */
		for (int k = i; k > 0 && r[k - 1] > r[k]; k--)
			t = r[k], r[k] = r[k - 1], r[k - 1] = t;
	return n % 2 ? r[n / 2] : sqrt(r[n / 2 - 1] * r[n / 2]);
}

void calib_model_set(struct calib_model *cm, const double *params)
{
	for (int j = 0; j < cm->nparam; j++)
		prof_set_num(&cm->kprof.e[cm->entry[j]], params[j]);
	cm->carry = cm->carry_on ? calib_carry_factor(cm, params) : 1;
	for (int i = 0; i < cm->ncarry; i++)
		prof_set_num(&cm->kprof.e[cm->carry_entry[i]], cm->carry_base[i] * cm->carry);
}

int calib_predict(struct calib_model *cm, const double *params, const struct calib_point *pts, int n, double *pred,
		  struct mm_error *err)
{
	struct kernel_profile k;
	struct program prog[CALIB_NBENCH];
	int compiled[CALIB_NBENCH] = {0}, rc;
	struct sweep_job *jobs;
	struct hw_profile hw = cm->m->hw;

	if (!cm->full_work)
		hw.op_jitter = 0;
	if (params)
		calib_model_set(cm, params);
	if ((rc = kernel_profile_derive(&k, &cm->kprof, err)))
		return rc;
	jobs = calloc((size_t)n, sizeof(*jobs));
	if (!jobs)
		return mm_fail(err, MM_ENOMEM, "out of memory");
	for (int i = 0; i < n; i++) {
		int b = pts[i].bench;

		if (b < 0 || b >= CALIB_NBENCH) {
			rc = mm_fail(err, MM_EINVAL, "calibrate: no benchmark %d", b);
			goto out;
		}
		/* costs are resolved when a program is compiled: compile against this profile */
		if (!compiled[b]) {
			if ((rc = scenario_compile(&cm->sc[b], cm->var[b], &k, &prog[b], err)))
				goto out;
			compiled[b] = 1;
		}
		jobs[i].cfg = (struct sim_config){
		    .topo = &cm->m->topo,
		    .hw = &hw,
		    .kernel = &k,
		    .prog = &prog[b],
		    .mode = pts[i].mode,
		    .ntasks = pts[i].ntasks,
		    .seed = cm->seed,
		    .ops_per_task = calib_benches[b].ops && !cm->full_work ? calib_benches[b].ops : cm->sc[b].work,
		    .measure_events = cm->measure_events,
		};
	}
	if ((rc = sweep_run(jobs, n, NULL, NULL, err)))
		goto out;
	for (int i = 0; i < n; i++)
		pred[i] = jobs[i].res.ops_per_s;
out:
	for (int b = 0; b < CALIB_NBENCH; b++)
		if (compiled[b])
			program_free(&prog[b]);
	free(jobs);
	return rc;
}

struct fit_ctx {
	struct calib_model *cm;
	struct calib_point *train;
	double *pred;
	int n;
};

static int calib_residuals(const double *params, double *resid, int nresid, void *arg, struct mm_error *err)
{
	struct fit_ctx *c = arg;
	int rc = calib_predict(c->cm, params, c->train, nresid, c->pred, err);

	for (int i = 0; i < nresid && !rc; i++)
		resid[i] = c->pred[i] / c->train[i].ops_per_s - 1;
	return rc;
}

int calib_fit(struct calib_model *cm, const struct calib_point *pts, int n, enum fit_profile_mode mode,
	      fit_progress_fn progress, void *progress_arg, struct fit_result *r, struct mm_error *err)
{
	struct fit_ctx c = {.cm = cm};
	double sigma[FIT_MAX_RESID], best[FIT_MAX_PARAMS];
	int rc;

	c.train = calloc((size_t)n + 1, sizeof(*c.train));
	c.pred = calloc((size_t)n + 1, sizeof(*c.pred));
	if (!c.train || !c.pred) {
		rc = mm_fail(err, MM_ENOMEM, "out of memory");
		goto out;
	}
	for (int i = 0; i < n; i++)
		if (pts[i].train) {
			if (c.n == FIT_MAX_RESID) {
				rc = mm_fail(err, MM_ERANGE, "calibrate: more than %d training points", FIT_MAX_RESID);
				goto out;
			}
			sigma[c.n] = pts[i].sigma;
			c.train[c.n++] = pts[i];
		}
	if (!c.n) {
		rc = mm_fail(err, MM_EINVAL, "calibrate: no training point (check --fit-tasks)");
		goto out;
	}
	{
		struct fit_param start[FIT_MAX_PARAMS];
		struct fit_problem fp = {.nparam = cm->nparam,
					 .param = start,
					 .nresid = c.n,
					 .sigma = sigma,
					 .residuals = calib_residuals,
					 .ctx = &c,
					 .profile = FIT_PROFILE_FIXED,
					 .max_evals = cm->max_evals,
					 .progress = progress,
					 .progress_arg = progress_arg};
		int evals, converged;

		memcpy(start, cm->param, sizeof(start));
		if ((rc = fit_minimize(&fp, r, err)))
			goto out;
		evals = r->evals;
		converged = r->converged;
		/*
		 * A simplex on a piecewise-constant chi2 can collapse away from the minimum: while
		 * the misfit exceeds its degrees of freedom, start again (a fresh, large simplex)
		 * from the best point, as long as that helps.
		 */
		for (int again = 0; again < cm->restarts && r->chi2 > fmax(1, r->dof); again++) {
			struct fit_result r2;

			for (int j = 0; j < cm->nparam; j++)
				start[j].initial = r->param[j].value;
			if ((rc = fit_minimize(&fp, &r2, err)))
				goto out;
			evals += r2.evals;
			if (r2.chi2 >= r->chi2 * 0.99)
				break;
			*r = r2;
			converged = r->converged;
		}
		r->evals = evals;
		if (mode == FIT_PROFILE_REFIT) {
			for (int j = 0; j < cm->nparam; j++)
				start[j].initial = r->param[j].value;
			fp.profile = FIT_PROFILE_REFIT;
			fp.max_evals = cm->refit_evals;
			if ((rc = fit_minimize(&fp, r, err)))
				goto out;
			r->evals += evals;
			/* the refinement starts at the converged point; its own evaluation cap says nothing more */
			r->converged |= converged;
		}
	}
	for (int j = 0; j < cm->nparam; j++)
		best[j] = r->param[j].value;
	calib_model_set(cm, best);
out:
	free(c.train);
	free(c.pred);
	return rc;
}

/* ---- --band ------------------------------------------------------------------ */

int calib_fitted_range(const struct prof_entry *e, double *lo, double *hi)
{
	const char *s = e->tag == PROF_FITTED && e->is_num ? strstr(e->note, "1-sigma ") : NULL;
	char *end;

	if (!s)
		return MM_ENOENT;
	char num[64];
	const char *dots;

	s += strlen("1-sigma ");
	s += *s == '<';
	/* "2806..2881": strtod would read "2806." and leave one dot */
	dots = strstr(s, "..");
	if (!dots || dots - s >= (long)sizeof(num))
		return MM_ENOENT;
	snprintf(num, sizeof(num), "%.*s", (int)(dots - s), s);
	*lo = strtod(num, &end);
	if (end == num || *end)
		return MM_ENOENT;
	s = dots + 2;
	*hi = strtod(s, &end);
	if (end == s || !(*lo > 0) || !(*hi >= *lo))
		return MM_ENOENT;
	return 0;
}

int calib_band(const struct profile *kprof, const struct scenario *sc, int var, const struct sim_config *cfg, int n,
	       const double *central, double *lo, double *hi, struct mm_error *err)
{
	struct sweep_job *jobs = calloc((size_t)n + 1, sizeof(*jobs));
	int varied = 0, rc = 0;

	if (!jobs)
		return mm_fail(err, MM_ENOMEM, "out of memory");
	for (int i = 0; i < n; i++)
		lo[i] = hi[i] = central[i];
	for (int e = 0; e < kprof->nentries && !rc; e++) {
		double end[2];

		if (calib_fitted_range(&kprof->e[e], &end[0], &end[1]))
			continue;
		varied++;
		for (int side = 0; side < 2 && !rc; side++) {
			struct profile kp;
			struct kernel_profile k;
			struct program prog;

			if (profile_copy(&kp, kprof)) {
				rc = mm_fail(err, MM_ENOMEM, "out of memory");
				break;
			}
			prof_set_num(&kp.e[e], end[side]);
			if (!(rc = kernel_profile_derive(&k, &kp, err)) &&
			    !(rc = scenario_compile(sc, var, &k, &prog, err))) {
				for (int i = 0; i < n; i++) {
					memset(&jobs[i], 0, sizeof(jobs[i]));
					jobs[i].cfg = cfg[i];
					jobs[i].cfg.kernel = &k;
					jobs[i].cfg.prog = &prog;
					jobs[i].cfg.steps = NULL;
				}
				rc = sweep_run(jobs, n, NULL, NULL, err);
				for (int i = 0; i < n && !rc; i++) {
					lo[i] = fmin(lo[i], jobs[i].res.ops_per_s);
					hi[i] = fmax(hi[i], jobs[i].res.ops_per_s);
				}
				program_free(&prog);
			}
			profile_free(&kp);
		}
	}
	free(jobs);
	return rc ? rc : varied;
}

int calib_at_bound(const struct fit_param *p, double value)
{
	return value >= p->upper * 0.999 || value <= p->lower * 1.001;
}

int calib_untrusted(const struct profile *kprof, char *why, size_t cap)
{
	int n = 0;

	if (cap)
		why[0] = 0;
	for (int i = 0; i < kprof->nentries; i++) {
		const struct prof_entry *e = &kprof->e[i];
		const char *had = e->tag == PROF_FITTED && e->is_num ? strstr(e->note, " had ") : NULL;
		struct fit_param p = {0};
		const char *reason = NULL;

		if (e->tag != PROF_FITTED)
			continue;
		if (had) {
			/* calibrate's search ran from the base's value / 64 to x 256 ("(linux-6.8 had 450)") */
			p.initial = strtod(had + 5, NULL);
			p.lower = p.initial / CALIB_SEARCH_DOWN;
			p.upper = p.initial * CALIB_SEARCH_UP;
		}
		if (strstr(e->note, CALIB_UNTRUSTED))
			reason = "marked " CALIB_UNTRUSTED " by mmsim calibrate --accept-disturbed";
		else if (had && p.initial > 0 && calib_at_bound(&p, e->num))
			reason = "at the bound of calibrate's search";
		if (!reason)
			continue;
		if (!n++ && cap)
			snprintf(why, cap, "[%s] %s = %s: %s", e->section, e->key, e->value, reason);
	}
	return n;
}

int calib_pinned_to_5pct(const struct fit_param_result *p)
{
	return p->identifiable && (p->hi - p->lo) / 2 / p->value <= 0.025;
}

/* ---- measured points ------------------------------------------------------ */

double calib_run_field(const char *line, const char *key, int *found)
{
	char pat[64];
	const char *s;

	snprintf(pat, sizeof(pat), " %s=", key);
	s = strstr(line, pat);
	*found = s != NULL;
	return s ? strtod(s + strlen(pat), NULL) : 0;
}

/*
 * Calls @fn on each '#run mode=M tasks=N ' line of @csv for @mode and @ntasks, whole (any length:
 * a line cut in two would give part of its numbers) and without its newline, until @fn returns
 * non-zero; returns that, 0 when none did, or -1 when @csv cannot be opened.
 */
static int run_lines(const char *csv, int mode, int ntasks, int (*fn)(const char *line, void *arg), void *arg)
{
	char *line = NULL, want[64];
	size_t lcap = 0;
	FILE *f = fopen(csv, "r");
	int rc = 0;

	if (!f)
		return -1;
	snprintf(want, sizeof(want), "#run mode=%s tasks=%d ", mode == SC_THREADS ? "threads" : "processes", ntasks);
	while (!rc && getline(&line, &lcap, f) > 0)
		if (!strncmp(line, want, strlen(want))) {
			line[strcspn(line, "\r\n")] = 0;
			rc = fn(line, arg);
		}
	free(line);
	fclose(f);
	return rc;
}

/* One '#run' line's relative sigma of its point into *@arg; 1 when the line gives one. */
static int line_sigma(const char *line, void *arg)
{
	double *sigma = arg, v, lo, hi, ns;
	const char *ms = strstr(line, " makespans_s=");
	int a, b, c, d;

	if (ms) {
		/* fixed work: the spread of the rounds' makespans, all of them (two passes over the
		 * list: their mean, then the squares); the point is their median */
		const char *first = ms + strlen(" makespans_s=");
		double mean = 0, var = 0;
		int k = 0;

		for (int pass = 0; pass < 2; pass++) {
			const char *p = first;
			char *end;

			for (;;) {
				double x = strtod(p, &end);

				if (end == p)
					break;
				if (pass)
					var += (x - mean) * (x - mean);
				else
					mean += x, k++;
				p = end + (*end == ',');
			}
			if (!pass && k)
				mean /= k;
		}
		if (k < 2)
			return 0;
		*sigma = sqrt(var / (k - 1)) / mean * 1.2533 / sqrt(k);
		return 1;
	}
	/* throughput: the point is the window's total, the mean of the per-interval samples */
	v = calib_run_field(line, "ops_per_s", &a);
	lo = calib_run_field(line, "sample_ops_per_s_min", &b);
	hi = calib_run_field(line, "sample_ops_per_s_max", &c);
	ns = calib_run_field(line, "samples", &d);
	if (!(a && b && c && v > 0))
		return 0;
	*sigma = (hi - lo) / 2.33 / v / sqrt(d && ns >= 1 ? ns : 1);
	return 1;
}

int calib_point_sigma(const char *csv, int mode, int ntasks, double *sigma, struct mm_error *err)
{
	int rc = run_lines(csv, mode, ntasks, line_sigma, sigma);

	if (rc < 0)
		return mm_fail(err, MM_ENOENT, "%s: cannot open: %s", csv, strerror(errno));
	if (!rc)
		return MM_ENOENT;
	if (!(*sigma >= 0.005))
		*sigma = 0.005;
	*sigma = hypot(*sigma, CALIB_RUN_SIGMA);
	return 0;
}

int calib_usl_baseline(const struct measured *ms, int mode, const int *train, struct usl_fit *u, char *why,
		       size_t whylen)
{
	double n[REPORT_MAX_POINTS], x[REPORT_MAX_POINTS];
	struct mm_error err = {0};
	int k = 0;

	for (int p = 0; p < ms->n; p++)
		if (train[p] && ms->ops[mode][p] > 0) {
			n[k] = ms->tasks[p];
			x[k++] = ms->ops[mode][p];
		}
	if (k < 3) {
		snprintf(why, whylen,
			 "USL baseline not shown: it has three parameters and needs at least three training task "
			 "counts (%d given)",
			 k);
		return 0;
	}
	if (usl_fit(n, x, k, u, &err)) {
		/* a shorter message is still the reason (the caller's buffer is a report line's) */
		if (snprintf(why, whylen, "USL baseline not shown: %s", err.msg) >= (int)whylen && whylen > 4)
			strcpy(why + whylen - 4, "...");
		return 0;
	}
	return 1;
}

/* ---- the command ------------------------------------------------------------ */

struct cal {
	const struct calib_opts *o;
	char tmpdir[1024];
	char bindir[1024]; /* the directory of the mmsim executable */
	char machine_path[PATH_MAX];
	/* each benchmark's CSVs: the one run now, or (--measured-dir) every DIR/PREFIX*.csv, newest
	 * first, invocations whose points are averaged */
	char runs[CALIB_NBENCH][CALIB_MAX_RUNS][PATH_MAX];
	int nruns[CALIB_NBENCH];
	struct measured ms[CALIB_NBENCH];
	int fit_tasks[64], nfit;
	struct calib_point pts[FIT_MAX_RESID];
	double pred[FIT_MAX_RESID];
	int npts;
	double t0;
	int evals_shown;
	enum fit_profile_mode profile;
	int tmp_slot[2 + 4 * CALIB_NBENCH]; /* cleanup.c's slots of the temporary directory and its files */
	int ntmp;
	int disturbed_train, disturbed_held; /* points measured beside other load (other_cpus > 0.10) */
	char disturbed_first[PATH_MAX + 64]; /* the first training one */
	int at_bound[CALIB_NPARAM];	     /* a fitted cost that ended at the bound of its search */
	int untrusted;			     /* written anyway (--accept-disturbed) */
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void stage(struct cal *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void stage(struct cal *c, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "calibrate [%5.1f s]: ", now_s() - c->t0);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void fit_progress(void *arg, int evals, double best_chi2)
{
	struct cal *c = arg;

	if (evals % 20 && evals > 1)
		return;
	if (isatty(2))
		fprintf(stderr, "\rcalibrate [%5.1f s]: fitting: %d model evaluations, best chi2 %.4g   ",
			now_s() - c->t0, evals, best_chi2);
	c->evals_shown = 1;
}

/* Run @argv with stdout and stderr to @log; 0, or an error quoting the log's last line. */
static int run_child(char *const argv[], const char *log, struct mm_error *err)
{
	pid_t pid, r;
	int status, fd, slot;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return mm_fail(err, MM_EIO, "fork: %s", strerror(errno));
	if (!pid) {
		cleanup_child_setup(); /* its own group, and it dies with mmsim */
		fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
			close(fd);
		}
		execv(argv[0], argv);
		fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	/* also here: a signal before the child's own setpgid must still find its group */
	setpgid(pid, pid);
	slot = cleanup_add_child(pid);
	if (slot < 0)
		kill(-pid, SIGKILL); /* untracked, it could outlive mmsim */
	while ((r = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
		;
	cleanup_forget_child(slot);
	if (r < 0)
		return mm_fail(err, MM_EIO, "waitpid: %s", strerror(errno));
	if (slot < 0)
		return mm_fail(err, MM_ENOMEM, "%s: too many child processes to track", argv[0]);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	{
		char line[512] = "", last[512] = "";
		FILE *f = fopen(log, "r");

		while (f && fgets(line, sizeof(line), f))
			if (line[0] != '\n')
				snprintf(last, sizeof(last), "%s", line);
		if (f)
			fclose(f);
		last[strcspn(last, "\n")] = 0;
		return mm_fail(err, MM_EIO, "%s %s (exit %d): %s", argv[0],
			       WIFEXITED(status) && WEXITSTATUS(status) == 77 ? "skipped" : "failed",
			       WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), last);
	}
}

/* An executable beside mmsim's build (build/src/../SUBDIR/NAME), or $ENV. */
static int find_exe(const struct cal *c, const char *env, const char *subdir, const char *name, char *out, size_t cap,
		    struct mm_error *err)
{
	const char *e = getenv(env);

	if (e && *e) {
		if (!strcmp(env, "MMSIM_VALIDATE_DIR"))
			snprintf(out, cap, "%s/%s", e, name);
		else
			snprintf(out, cap, "%s", e);
	} else {
		snprintf(out, cap, "%s/../%s/%s", c->bindir, subdir, name);
	}
	if (access(out, X_OK))
		return mm_fail(err, MM_ENOENT, "%s: not an executable (%s); build it (cmake --build build) or set %s",
			       out, strerror(errno), env);
	return 0;
}

static int parse_fit_tasks(struct cal *c, const char *list, struct mm_error *err)
{
	char *buf = strdup(list), *save, *tok; /* the whole list, however long */
	int rc = 0;

	if (!buf)
		return mm_fail(err, MM_ENOMEM, "out of memory");
	for (tok = strtok_r(buf, ",", &save); tok && !rc; tok = strtok_r(NULL, ",", &save)) {
		char *end;
		long v;

		errno = 0;
		v = strtol(tok, &end, 10);
		if (errno || end == tok || *end || v < 1 || v > 100000)
			rc = mm_fail(err, MM_EINVAL, "--fit-tasks: '%s' is not a task count (expected e.g. 1 or 1,2,4)",
				     tok);
		else if (c->nfit == 64)
			rc = mm_fail(err, MM_ERANGE, "--fit-tasks: at most 64 task counts");
		else
			c->fit_tasks[c->nfit++] = (int)v;
	}
	free(buf);
	if (!rc && !c->nfit)
		rc = mm_fail(err, MM_EINVAL, "--fit-tasks: empty list (expected e.g. 1 or 1,2,4)");
	return rc;
}

static int is_fit_task(const struct cal *c, int t)
{
	for (int i = 0; i < c->nfit; i++)
		if (c->fit_tasks[i] == t)
			return 1;
	return 0;
}

/* A CSV of --measured-dir: its name, and when it was measured as its name says it. */
struct csv_name {
	char stamp[16]; /* yyyymmddhhmmss; "" when the name carries no date */
	char name[256];
};

static int all_digits(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return 1;
}

/*
 * ...-yyyymmdd-hhmmss.csv (mmsim validate and measure-here.sh since they carry the time) or
 * ...-yyyymmdd.csv (older files: taken as the start of their day).
 */
static void csv_stamp(const char *name, char *stamp)
{
	size_t n = strlen(name) - 4; /* less ".csv" */

	stamp[0] = 0;
	if (n >= 16 && name[n - 16] == '-' && name[n - 7] == '-' && all_digits(name + n - 15, 8) &&
	    all_digits(name + n - 6, 6)) {
		memcpy(stamp, name + n - 15, 8);
		memcpy(stamp + 8, name + n - 6, 6);
		stamp[14] = 0;
	} else if (n >= 9 && name[n - 9] == '-' && all_digits(name + n - 8, 8)) {
		memcpy(stamp, name + n - 8, 8);
		memcpy(stamp + 8, "000000", 7);
	}
}

/* newest first: by the time in the name, then by name; names without a date last */
static int cmp_csv_desc(const void *a, const void *b)
{
	const struct csv_name *x = a, *y = b;
	int d = strcmp(y->stamp, x->stamp);

	return d ? d : -strcmp(x->name, y->name);
}

/*
 * Every DIR/PREFIX*.csv, newest first (the files carry their date and, since mmsim validate's names
 * gained it, their time), at most CALIB_MAX_RUNS: each is one invocation of the benchmark, and
 * their points are averaged.
 */
static int find_csvs(const char *dir, const char *prefix, char (*out)[PATH_MAX], int *n, struct mm_error *err)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	struct csv_name names[CALIB_MAX_RUNS];
	int k = 0;

	if (!d)
		return mm_fail(err, MM_ENOENT, "--measured-dir %s: cannot open: %s", dir, strerror(errno));
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);

		if (strncmp(de->d_name, prefix, strlen(prefix)) || len <= 4 || strcmp(de->d_name + len - 4, ".csv"))
			continue;
		if (len >= sizeof(names[0].name)) {
			closedir(d);
			return mm_fail(err, MM_ERANGE,
				       "--measured-dir %s: a file name of %zu bytes is too long: %.40s...", dir, len,
				       de->d_name);
		}
		if (k == CALIB_MAX_RUNS) {
			closedir(d);
			return mm_fail(err, MM_ERANGE,
				       "--measured-dir %s: more than %d %s*.csv (at most %d invocations)", dir,
				       CALIB_MAX_RUNS, prefix, CALIB_MAX_RUNS);
		}
		snprintf(names[k].name, sizeof(names[k].name), "%s", de->d_name);
		csv_stamp(names[k].name, names[k].stamp);
		k++;
	}
	closedir(d);
	if (!k)
		return mm_fail(err, MM_ENOENT,
			       "--measured-dir %s: no %s*.csv (expected a validate/ CSV, e.g. from "
			       "validate/measure-here.sh)",
			       dir, prefix);
	qsort(names, (size_t)k, sizeof(names[0]), cmp_csv_desc);
	for (int i = 0; i < k; i++)
		if (snprintf(out[i], PATH_MAX, "%s/%s", dir, names[i].name) >= PATH_MAX)
			return mm_fail(err, MM_ERANGE, "--measured-dir %s: path too long", dir);
	*n = k;
	return 0;
}

/* Fail now, before minutes of measuring, if an output exists (without --force) or cannot be created. */
static int check_output(const char *path, int force, const char *what, struct mm_error *err)
{
	struct outfile t;
	int rc;

	if (!path)
		return 0;
	if (!(rc = outfile_reserve(&t, path, force, what, err)))
		outfile_abort(&t);
	return rc;
}

/* A file in calibrate's temporary directory: removed by cleanup.c should mmsim be stopped. */
static void track_tmp(struct cal *c, const char *path)
{
	if (c->ntmp < (int)(sizeof(c->tmp_slot) / sizeof(c->tmp_slot[0])))
		c->tmp_slot[c->ntmp++] = cleanup_add_file(path);
}

static int measure_machine(struct cal *c, struct machine *m, struct mm_error *err)
{
	char exe[PATH_MAX], log[PATH_MAX + 16];
	char *argv[8];
	int n = 0, rc;

	if (c->o->machine) {
		stage(c, "hardware profile given (--machine %s): not measuring", c->o->machine);
		snprintf(c->machine_path, sizeof(c->machine_path), "%s", c->o->machine);
		return machine_load(m, c->o->machine, 0, err);
	}
	if ((rc = find_exe(c, "MMSIM_MEASURE", "calibrate", "mmsim-measure", exe, sizeof(exe), err)))
		return rc;
	snprintf(c->machine_path, sizeof(c->machine_path), "%s/machine.conf", c->tmpdir);
	snprintf(log, sizeof(log), "%s/measure.log", c->tmpdir);
	track_tmp(c, c->machine_path);
	track_tmp(c, log);
	argv[n++] = exe;
	if (c->o->quick)
		argv[n++] = "--quick";
	argv[n++] = "--out";
	argv[n++] = c->machine_path;
	argv[n++] = "--name";
	argv[n++] = "calibrated";
	argv[n] = NULL;
	stage(c, "measuring this machine: %s%s (%s)", exe, c->o->quick ? " --quick" : "",
	      c->o->quick ? "seconds" : "up to a minute");
	if ((rc = run_child(argv, log, err)))
		return rc;
	return machine_load(m, c->machine_path, 0, err);
}

int mthp_always_kb(int *small)
{
	char line[128];
	int found = -1, top_always = 0;
	FILE *fp = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");

	*small = 0;
	if (fp) {
		top_always = fgets(line, sizeof(line), fp) && strstr(line, "[always]");
		fclose(fp);
	}
	for (int kb = 16; kb <= 1024; kb *= 2) {
		char path[128];

		snprintf(path, sizeof(path), "/sys/kernel/mm/transparent_hugepage/hugepages-%dkB/enabled", kb);
		if (!(fp = fopen(path, "r")))
			continue;
		if (found < 0)
			found = 0;
		if (fgets(line, sizeof(line), fp) && mthp_line_applies(line, top_always)) {
			if (kb >= 64)
				found = kb;
			else
				*small = kb;
		}
		fclose(fp);
	}
	return found;
}

static int run_benchmarks(struct cal *c, int ncpus, struct mm_error *err)
{
	/* up to 65 task counts of at most 6 digits and a comma each: room for all, never cut */
	char tasks[65 * 8] = "";
	int rc, maxfit = 0, nrun = 0, nruns = 0;

	/* the training task counts, and twice the largest as the held-out point */
	for (int i = 0; i < c->nfit; i++)
		maxfit = c->fit_tasks[i] > maxfit ? c->fit_tasks[i] : maxfit;
	for (int i = 0; i < c->nfit; i++)
		if (c->fit_tasks[i] > ncpus)
			return mm_fail(err, MM_ERANGE, "--fit-tasks: %d tasks, but this machine has %d CPUs",
				       c->fit_tasks[i], ncpus);
	for (int t = 1; t <= ncpus; t++)
		if (is_fit_task(c, t) || t == 2 * maxfit || (t == ncpus && ncpus < 2 * maxfit && !is_fit_task(c, t))) {
			size_t len = strlen(tasks);

			if ((size_t)snprintf(tasks + len, sizeof(tasks) - len, "%s%d", len ? "," : "", t) >=
			    sizeof(tasks) - len)
				return mm_fail(err, MM_ERANGE, "calibrate: the benchmarks' task list is over %zu bytes",
					       sizeof(tasks) - 1);
		}
	{
		int small, kb = mthp_always_kb(&small);

		if (kb > 0 || small)
			stage(c,
			      "WARNING: anonymous mTHP is on (hugepages-%dkB/enabled applies to page_fault1): it maps "
			      "large folios, and the 4 KiB path fitted to it will be off; set the sizes to never for "
			      "calibrate",
			      kb > 0 ? kb : small);
	}
	for (int b = 0; b < CALIB_NBENCH; b++)
		nruns += !calib_benches[b].figure; /* the harness runs, for the progress lines */
	for (int b = 0; b < CALIB_NBENCH; b++) {
		const struct calib_bench *cb = &calib_benches[b];
		char exe[PATH_MAX], log[PATH_MAX + 16], args[512], *argv[32], *save, *tok;
		int n = 0;

		if (cb->figure)
			continue; /* no run: collect_points takes the hardware profile's figure */
		if (c->o->measured_dir) {
			if ((rc = find_csvs(c->o->measured_dir, cb->prefix, c->runs[b], &c->nruns[b], err)))
				return rc;
			if (c->nruns[b] > 1)
				stage(c, "%s: %s and %d more invocation(s), averaged", cb->variant, c->runs[b][0],
				      c->nruns[b] - 1);
			else
				stage(c, "%s: %s", cb->variant, c->runs[b][0]);
			continue;
		}
		if ((rc = find_exe(c, "MMSIM_VALIDATE_DIR", "validate", cb->exe, exe, sizeof(exe), err)))
			return rc;
		snprintf(c->runs[b][0], sizeof(c->runs[b][0]), "%s/%shere.csv", c->tmpdir, cb->prefix);
		c->nruns[b] = 1;
		snprintf(log, sizeof(log), "%s/%shere.log", c->tmpdir, cb->prefix);
		track_tmp(c, c->runs[b][0]);
		track_tmp(c, log);
		snprintf(args, sizeof(args), "%s", cb->args);
		argv[n++] = exe;
		for (tok = strtok_r(args, " ", &save); tok && n < 24; tok = strtok_r(NULL, " ", &save)) {
			/* short runs with --quick: a smoke test of the pipeline (--duration 3 -> 1, --rounds 5 -> 2) */
			if (c->o->quick && !strcmp(tok, "3"))
				tok = "1";
			else if (c->o->quick && !strcmp(tok, "5"))
				tok = "2";
			argv[n++] = tok;
		}
		argv[n++] = "--tasks";
		argv[n++] = tasks;
		argv[n++] = "--out";
		argv[n++] = c->runs[b][0];
		argv[n] = NULL;
		stage(c, "benchmark %d/%d: %s %s --tasks %s", ++nrun, nruns, cb->exe, cb->args, tasks);
		if ((rc = run_child(argv, log, err)))
			return rc;
	}
	return 0;
}

/* The largest other_cpus of the '#run' lines seen, into *@arg (0: none given). */
static int line_other_cpus(const char *line, void *arg)
{
	double *most = arg;
	int found;
	double other = calib_run_field(line, "other_cpus", &found);

	if (found && other > *most)
		*most = other;
	return 0;
}

/*
 * The harness's other_cpus: busy CPU time in the window not charged to the tasks.  1 when it says
 * the point was measured beside other load (over 0.10, as validate/measure-here.sh judges it).
 */
static int warn_other_load(struct cal *c, const char *csv, int mode, int ntasks)
{
	double other = 0;

	run_lines(csv, mode, ntasks, line_other_cpus, &other);
	if (!(other > CALIB_OTHER_LOAD))
		return 0;
	stage(c, "WARNING: %s, %s, %d tasks: other_cpus=%.2f: other load during the run", csv,
	      mode == SC_THREADS ? "threads" : "processes", ntasks, other);
	return 1;
}

/*
 * A benchmark whose point is the hardware profile's figure (calib_bench.figure, a time per page): one
 * point at 1 task, both modes alike (mmsim-measure runs one process), an operation of
 * CALIB_REGION_PAGES pages, with the run-to-run sigma alone.  Left out, and said, when the profile
 * lists no such figure (a profile written by hand).
 */
static int figure_points(struct cal *c, int b, struct mm_error *err)
{
	const struct calib_bench *cb = &calib_benches[b];
	struct measured *ms = &c->ms[b];
	struct mm_error e = {0};
	char *text = NULL;
	double ns = -1;

	memset(ms, 0, sizeof(*ms));
	c->nruns[b] = 0;
	if (c->o->no_fault_read_point) {
		stage(c, "%s: left out: mmsim-measure's %s is not fitted to with --no-fault-read-point", cb->variant,
		      cb->figure);
		return 0;
	}
	if (!mm_read_text_file(c->machine_path, &text, &e))
		ns = profile_figure(text, cb->figure);
	free(text);
	if (ns <= 0) {
		stage(c, "%s: left out: the hardware profile %s lists no %s", cb->variant, c->machine_path, cb->figure);
		return 0;
	}
	ms->n = 1;
	ms->tasks[0] = 1;
	for (int m = 0; m < 2; m++) {
		ms->ops[m][0] = 1e9 / (ns * CALIB_REGION_PAGES);
		ms->has[m] = 1;
		if (c->npts == FIT_MAX_RESID)
			return mm_fail(err, MM_ERANGE, "calibrate: more than %d measured points", FIT_MAX_RESID);
		c->pts[c->npts++] = (struct calib_point){.bench = b,
							 .mode = m,
							 .ntasks = 1,
							 .ops_per_s = ms->ops[m][0],
							 .sigma = CALIB_RUN_SIGMA,
							 .train = m == SC_THREADS && is_fit_task(c, 1)};
	}
	c->nruns[b] = 1;
	if (snprintf(c->runs[b][0], sizeof(c->runs[b][0]), "calibrate/mmsim-measure's %s, %.4g ns a page, in %s",
		     cb->figure, ns, c->machine_path) >= (int)sizeof(c->runs[b][0]))
		return mm_fail(err, MM_ERANGE, "calibrate: the hardware profile's path is too long: %s",
			       c->machine_path);
	stage(c, "%s: %s", cb->variant, c->runs[b][0]);
	return 0;
}

/*
 * The measured points: each benchmark's invocations (one CSV each) averaged point by point.  A
 * point's sigma is the root mean square of the invocations' own (calib_point_sigma: spread and
 * CALIB_RUN_SIGMA) over the square root of their number.  The newest CSV decides which points
 * there are; an older one without a point leaves it out of that point's mean.
 */
static int collect_points(struct cal *c, struct mm_error *err)
{
	int rc;

	for (int b = 0; b < CALIB_NBENCH; b++) {
		struct measured *ms = &c->ms[b], other;
		double sig2[2][REPORT_MAX_POINTS] = {{0}};
		int cnt[2][REPORT_MAX_POINTS] = {{0}}, dist[2][REPORT_MAX_POINTS] = {{0}};

		if (calib_benches[b].figure) {
			if ((rc = figure_points(c, b, err)))
				return rc;
			continue;
		}
		if ((rc = measured_load(c->runs[b][0], ms, err)))
			return rc;
		for (int i = 0; i < c->nfit; i++) {
			int ok = 0;

			for (int p = 0; p < ms->n; p++)
				ok |= ms->tasks[p] == c->fit_tasks[i] && ms->ops[SC_THREADS][p] > 0;
			if (!ok)
				return mm_fail(err, MM_EINVAL,
					       "%s: no threads result at %d tasks (a --fit-tasks point)", c->runs[b][0],
					       c->fit_tasks[i]);
		}
		for (int k = 0; k < c->nruns[b]; k++) {
			if (k && (rc = measured_load(c->runs[b][k], &other, err)))
				return rc;
			for (int m = 0; m < 2; m++)
				for (int p = 0; p < ms->n; p++) {
					const struct measured *src = k ? &other : ms;
					double v = 0, sg;
					int q;

					if (ms->ops[m][p] <= 0)
						continue;
					for (q = 0; q < src->n && src->tasks[q] != ms->tasks[p]; q++)
						;
					if (q == src->n || (v = src->ops[m][q]) <= 0)
						continue;
					rc = calib_point_sigma(c->runs[b][k], m, ms->tasks[p], &sg, err);
					if (rc == MM_ENOENT)
						sg = CALIB_RUN_SIGMA; /* runtest.py's CSV has no spread: the run-to-run
									 figure alone */
					else if (rc)
						return rc;
					if (warn_other_load(c, c->runs[b][k], m, ms->tasks[p])) {
						dist[m][p] = 1;
						if (!c->disturbed_first[0] && m == SC_THREADS &&
						    is_fit_task(c, ms->tasks[p]))
							snprintf(c->disturbed_first, sizeof(c->disturbed_first),
								 "%s, threads at %d tasks", c->runs[b][k],
								 ms->tasks[p]);
					}
					if (k)
						ms->ops[m][p] += v; /* the newest's value is already there */
					sig2[m][p] += sg * sg;
					cnt[m][p]++;
				}
		}
		for (int m = 0; m < 2; m++)
			for (int p = 0; p < ms->n; p++) {
				struct calib_point *pt;

				if (ms->ops[m][p] <= 0 || !cnt[m][p])
					continue;
				ms->ops[m][p] /= cnt[m][p];
				if (c->npts == FIT_MAX_RESID)
					return mm_fail(err, MM_ERANGE, "calibrate: more than %d measured points",
						       FIT_MAX_RESID);
				pt = &c->pts[c->npts++];
				*pt = (struct calib_point){.bench = b,
							   .mode = m,
							   .ntasks = ms->tasks[p],
							   .ops_per_s = ms->ops[m][p],
							   .sigma = sqrt(sig2[m][p] / cnt[m][p]) / sqrt(cnt[m][p]),
							   /* the scenarios' own mode (threads) is fitted to */
							   .train = m == SC_THREADS && is_fit_task(c, ms->tasks[p])};
				if (dist[m][p])
					++*(pt->train ? &c->disturbed_train : &c->disturbed_held);
			}
	}
	return 0;
}

/* ---- the written profiles ---------------------------------------------------- */

struct sbuf {
	char *s;
	size_t len, cap;
	int oom; /* a piece did not fit: the text is not whole */
};

static void sb_printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = (b->len + n + 1) * 2;
		char *s = realloc(b->s, cap);

		if (!s) {
			b->oom = 1;
			return;
		}
		b->s = s;
		b->cap = cap;
	}
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	b->len += n;
}

static void host_facts(char *buf, size_t cap)
{
	struct utsname u;
	char model[256] = "unknown", line[512];
	FILE *f = fopen("/proc/cpuinfo", "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "model name", 10) && strchr(line, ':')) {
			snprintf(model, sizeof(model), "%s", strchr(line, ':') + 2);
			model[strcspn(model, "\n")] = 0;
			break;
		}
	if (f)
		fclose(f);
	if (uname(&u))
		snprintf(buf, cap, "host unknown; cpu: %s; %ld CPUs online", model, sysconf(_SC_NPROCESSORS_ONLN));
	else
		snprintf(buf, cap, "host: %s; kernel: %s %s; cpu: %s; %ld CPUs online", u.nodename, u.release,
			 u.version, model, sysconf(_SC_NPROCESSORS_ONLN));
}

static const char *mode_name(int m)
{
	return m == SC_THREADS ? "threads" : "processes";
}

static const char *bench_name(int b)
{
	return calib_benches[b].variant;
}

static void range_text(const struct fit_param_result *p, char *buf, size_t cap)
{
	snprintf(buf, cap, "%s%.4g..%.4g%s", p->lo_open ? "<" : "", p->lo, p->hi, p->hi_open ? "+" : "");
}

/*
 * The page cache's folios and the user's first touches on this machine (README "Large folios"):
 * the readahead window of the device under TMPDIR (or /tmp), where will-it-scale's files go; whether
 * the running kernel maps a large folio whole (6.18+); and the first load / store to a page whose
 * PTE a populate set, timed over a 64 MiB memfd (tmpfs, 4 KiB pages) in the mapping each of
 * page_fault4 (private, read) and page_fault3 (shared, write) uses, the median of 3 rounds.
 */
#ifndef MADV_POPULATE_READ /* Linux 5.14 */
#define MADV_POPULATE_READ 22
#define MADV_POPULATE_WRITE 23
#endif

struct folio_facts {
	long ra_kb; /* -1: not found */
	char ra_from[PATH_MAX + 64];
	int whole; /* the running kernel >= 6.18 */
	char release[128];
	double private_ns, shared_ns; /* -1: not measured */
	double gup_present_ns;	      /* -1: not measured */
	int mthp_kb;		      /* mthp_always_kb(): the largest mTHP size that applies, 0: none; -1: no sysfs */
	int mthp_small;		      /* 16 or 32 KiB applies too (orders the variant does not model), 0 */
};

/* ns per page of one pass over @bytes, a load or a store per 4 KiB */
static double touch_pass(char *c, size_t bytes, int write)
{
	double t0 = now_s();

	for (size_t off = 0; off < bytes; off += 4096) {
		if (write)
			((volatile char *)c)[off] = 1;
		else
			(void)((volatile char *)c)[off];
	}
	return (now_s() - t0) * 1e9 / (double)(bytes / 4096);
}

/* MADV_POPULATE_WRITE passes over pages already mapped that gup_present_ns takes the median of */
#define GUP_PASSES 7

static int cmp_double(const void *a, const void *b)
{
	const double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median3(const double v[3])
{
	return fmax(fmin(v[0], v[1]), fmin(fmax(v[0], v[1]), v[2]));
}

/* The first touch of each page after MADV_POPULATE_*, less a second touch (the loop and the TLB). */
static double touch_mapped_ns(int fd, size_t bytes, int shared)
{
	double v[3];

	for (int r = 0; r < 3; r++) {
		char *c = mmap(NULL, bytes, PROT_READ | PROT_WRITE, shared ? MAP_SHARED : MAP_PRIVATE, fd, 0);

		if (c == MAP_FAILED || madvise(c, bytes, shared ? MADV_POPULATE_WRITE : MADV_POPULATE_READ)) {
			if (c != MAP_FAILED)
				munmap(c, bytes);
			return -1;
		}
		v[r] = touch_pass(c, bytes, shared);
		v[r] -= touch_pass(c, bytes, shared);
		munmap(c, bytes);
	}
	v[0] = median3(v);
	return v[0] > 0 ? v[0] : 0;
}

/*
 * ns per page of MADV_POPULATE_WRITE over private anonymous 4 KiB pages it mapped already: the
 * median of passes 3 to 9.  Pass 1 faults every page; at pass 2 FOLL_TOUCH's folio_mark_accessed
 * finds each folio referenced and activates it (6.x mm/swap.c); from pass 3 on it has nothing to
 * do, and a pass is __get_user_pages' loop and follow_page_pte alone.  Seven passes, not three:
 * a calibration on a busy host (2026-12-07 10:24Z) had a median of three at 4.7 times the others'.
 */
static double gup_present_ns(size_t bytes)
{
	char *c = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	double v[GUP_PASSES];

	if (c == MAP_FAILED)
		return -1;
	for (int pass = 0; pass < GUP_PASSES + 2; pass++) {
		double t0 = now_s();

		if ((pass == 0 && madvise(c, bytes, MADV_NOHUGEPAGE)) || madvise(c, bytes, MADV_POPULATE_WRITE)) {
			munmap(c, bytes);
			return -1;
		}
		if (pass >= 2)
			v[pass - 2] = (now_s() - t0) * 1e9 / (double)(bytes / 4096);
	}
	munmap(c, bytes);
	qsort(v, GUP_PASSES, sizeof(v[0]), cmp_double);
	return v[GUP_PASSES / 2];
}

static void folio_facts(struct folio_facts *f)
{
	const char *dir = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	struct utsname u;
	struct stat st;
	size_t bytes = 64 << 20;
	int fd, maj = 0, min = 0;

	memset(f, 0, sizeof(*f));
	f->ra_kb = -1;
	f->private_ns = f->shared_ns = f->gup_present_ns = -1;
	if (!uname(&u)) {
		snprintf(f->release, sizeof(f->release), "%s", u.release);
		f->whole = sscanf(u.release, "%d.%d", &maj, &min) == 2 && (maj > 6 || (maj == 6 && min >= 18));
	}
	if (!stat(dir, &st)) {
		const char *rel[] = {"queue/read_ahead_kb", "../queue/read_ahead_kb"};

		for (int i = 0; i < 2 && f->ra_kb < 0; i++) {
			char path[PATH_MAX];
			FILE *fp;

			snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/%s", major(st.st_dev), minor(st.st_dev),
				 rel[i]);
			if ((fp = fopen(path, "r"))) {
				if (fscanf(fp, "%ld", &f->ra_kb) != 1 || f->ra_kb < 0)
					f->ra_kb = -1;
				else
					snprintf(f->ra_from, sizeof(f->ra_from), "%s (%s)", path, dir);
				fclose(fp);
			}
		}
	}
	f->mthp_kb = mthp_always_kb(&f->mthp_small);
	fd = memfd_create("mmsim-touch", 0);
	if (fd >= 0 && !ftruncate(fd, (off_t)bytes)) {
		f->private_ns = touch_mapped_ns(fd, bytes, 0);
		f->shared_ns = touch_mapped_ns(fd, bytes, 1);
	}
	if (fd >= 0)
		close(fd);
	f->gup_present_ns = gup_present_ns(bytes);
}

/* gup_present_page: the measured step less the base's follow_page_none, which the scenarios
 * charge beside it (and the PTE lock's own uncontended cost, a few ns, which they charge again) */
static void gup_present_text(struct sbuf *b, const struct calib_model *cm, const struct folio_facts *f,
			     const char *date, double ghz)
{
	const struct prof_entry *follow = profile_find(&cm->kprof, "costs", "follow_page_none");
	double cycles;

	if (f->gup_present_ns < 0 || ghz <= 0 || !follow || !follow->is_num) {
		sb_printf(b, "# gup_present_page: not measured (MADV_POPULATE_WRITE failed); %s's\n", cm->base);
		return;
	}
	cycles = round(f->gup_present_ns * ghz) - follow->num;
	sb_printf(b,
		  "# [measured] on %s: MADV_POPULATE_WRITE again over 64 MiB of private anonymous 4 KiB pages "
		  "it mapped (MADV_NOHUGEPAGE), the median of passes 3-9: %.0f ns a page at %.3g GHz, less "
		  "follow_page_none (%.0f cycles)%s\n"
		  "gup_present_page = %.0f\n",
		  date, f->gup_present_ns, ghz, follow->num, cycles < 1 ? "; at least 1" : "", fmax(cycles, 1));
}

/* The large-folio entries of the written kernel profile (folio_facts), each with its source. */
static void folio_text(struct sbuf *b, const struct calib_model *cm, const char *date, const char *measured_dir)
{
	struct folio_facts f;
	double ghz = hw_freq_ghz(&cm->m->hw, 1);

	if (measured_dir) {
		/* the runs may come from another machine: this one's facts would not go with them */
		sb_printf(b,
			  "\n# Large folios (README \"Large folios\"): ra_pages, map_whole_folio, touch_mapped_* and "
			  "gup_present_page\n"
			  "# not measured: the runs were taken from %s, maybe on another machine; %s's\n",
			  measured_dir, cm->base);
		return;
	}
	folio_facts(&f);
	sb_printf(b,
		  "\n# Large folios and the user's first touches on this machine (README \"Large folios\")\n[batch]\n");
	if (f.ra_kb >= 4)
		sb_printf(b, "# [measured] %s on %s: %ld KiB of readahead, in 4 KiB pages\nra_pages = %ld\n", f.ra_from,
			  date, f.ra_kb, f.ra_kb / 4);
	else if (f.ra_kb >= 0)
		sb_printf(b,
			  "# [measured] %s on %s: %ld KiB of readahead, under a page: one page a round\nra_pages = 1\n",
			  f.ra_from, date, f.ra_kb);
	else
		sb_printf(b, "# ra_pages: the readahead window of the device under TMPDIR or /tmp not found; %s's\n",
			  cm->base);
	if (f.mthp_kb > 0)
		sb_printf(b,
			  "# [measured] /sys/kernel/mm/transparent_hugepage/hugepages-%dkB/enabled on %s: the largest "
			  "size that applies to a mapping nobody madvised ('always', or 'inherit' under a top-level "
			  "'always'): an anonymous write fault maps a folio of this many pages (page_fault1_mthp)%s\n"
			  "mthp_pages = %d\n",
			  f.mthp_kb, date,
			  f.mthp_small ? "; a 16 or 32 KiB size applies too, which the variant does not model" : "",
			  f.mthp_kb / 4);
	else
		sb_printf(b, "# mthp_pages: %s; %s's (page_fault1_mthp does not describe this machine's page_fault1)\n",
			  f.mthp_kb < 0
			      ? "no anonymous mTHP sizes in sysfs (before 6.8, or no THP)"
			      : "no anonymous mTHP size of 64 KiB to 1 MiB applies to a mapping nobody madvised",
			  cm->base);
	sb_printf(b, "# [derived] this machine runs %s: %s\nmap_whole_folio = %d\n", f.release,
		  f.whole ? "6.18 or later, a large folio mapped whole by one fault (19773df031bc, 357b92761d94)"
			  : "before 6.18, one page per write fault, fault-around's window per read fault",
		  f.whole);
	sb_printf(b, "[costs]\n");
	if (f.private_ns < 0 || f.shared_ns < 0 || ghz <= 0)
		sb_printf(b,
			  "# touch_mapped_private, touch_mapped_shared: not measured (memfd_create or "
			  "MADV_POPULATE_READ/WRITE failed); %s's\n",
			  cm->base);
	else {
		sb_printf(b,
			  "# [measured] on %s: the first load of each page of a 64 MiB memfd mapped MAP_PRIVATE and "
			  "populated with MADV_POPULATE_READ, less a second load: %.0f ns at %.3g GHz\n"
			  "touch_mapped_private = %.0f\n",
			  date, f.private_ns, ghz, round(f.private_ns * ghz));
		sb_printf(b,
			  "# [measured] on %s: the first store to each page of it mapped MAP_SHARED and populated "
			  "with MADV_POPULATE_WRITE, less a second store: %.0f ns\n"
			  "touch_mapped_shared = %.0f\n",
			  date, f.shared_ns, round(f.shared_ns * ghz));
	}
	gup_present_text(b, cm, &f, date, ghz);
}

/* The kernel profile's text (malloc()ed) in *@out. */
static int kernel_profile_text(struct cal *c, struct calib_model *cm, const struct fit_result *fr, const char *name,
			       char **out, struct mm_error *err)
{
	struct sbuf b = {0};
	char facts[1024], date[64], train[512] = "";
	time_t now = time(NULL);
	int nbound = 0, nbench = 0;

	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	host_facts(facts, sizeof(facts));
	for (int i = 0; i < c->nfit; i++)
		snprintf(train + strlen(train), sizeof(train) - strlen(train), "%s%d", i ? "," : "", c->fit_tasks[i]);
	sb_printf(&b, "# Kernel profile written by mmsim calibrate: %s with the kernel path costs that the\n",
		  cm->base);
	sb_printf(&b,
		  "# validation harness's runs on this machine constrain fitted to them (model/fit.c: nmsimplex2\n");
	sb_printf(&b,
		  "# in log space through sim_run; 1-sigma ranges from the profile of chi2, the others refitted).\n");
	sb_printf(&b, "# date: %s\n# %s\n", date, facts);
	sb_printf(&b, "# command: %s\n", c->o->cmdline ? c->o->cmdline : "mmsim calibrate");
	sb_printf(&b, "# machine profile: %s%s\n", c->o->out_machine ? c->o->out_machine : c->machine_path,
		  c->o->machine ? " (given with --machine)" : " (measured now by calibrate/mmsim-measure)");
	for (int bn = 0; bn < CALIB_NBENCH; bn++) {
		if (calib_benches[bn].figure)
			sb_printf(&b, "# measured: %s <- %s\n", bench_name(bn),
				  c->nruns[bn]		       ? c->runs[bn][0]
				  : !c->o->no_fault_read_point ? "nothing: the hardware profile lists no such figure"
							       : "not fitted to (--no-fault-read-point)");
		else
			sb_printf(&b, "# measured: %s <- %s%s\n", bench_name(bn),
				  c->o->measured_dir ? c->runs[bn][0] : calib_benches[bn].exe,
				  c->o->measured_dir ? "" : " (run now)");
		for (int k = 1; k < c->nruns[bn]; k++)
			sb_printf(&b, "#   averaged with %s\n", c->runs[bn][k]);
		nbench += c->nruns[bn] > 0;
	}
	sb_printf(
	    &b,
	    "# fitted on: threads points at tasks %s of the %d benchmarks; chi2 %.3g for %d degree(s) of freedom; "
	    "%d model evaluations; %s\n",
	    train, nbench, fr->chi2, fr->dof, fr->evals,
	    fr->converged ? "converged" : "NOT converged (max evaluations)");
	for (int j = 0; j < cm->nparam; j++)
		nbound += c->at_bound[j];
	if (c->untrusted)
		sb_printf(&b,
			  "# " CALIB_UNTRUSTED
			  ": written with --accept-disturbed: %d training point(s) measured beside "
			  "other load%s%s%s, %d fitted cost(s) at the bound of their search; the entries marked so "
			  "do not describe this machine\n",
			  c->disturbed_train, c->disturbed_first[0] ? " (" : "", c->disturbed_first,
			  c->disturbed_first[0] ? ")" : "", nbound);
	for (int i = 0; i < c->npts; i++) {
		const struct calib_point *p = &c->pts[i];

		sb_printf(&b, "# %s: %s %s %d tasks: measured %.6g ops/s (sigma %.1f%%), simulated %.6g, %+.1f%%\n",
			  p->train ? "residual (fitted)" : "held out (prediction)", bench_name(p->bench),
			  mode_name(p->mode), p->ntasks, p->ops_per_s, 100 * p->sigma, c->pred[i],
			  100 * (c->pred[i] / p->ops_per_s - 1));
	}
	if (cm->carry_on)
		sb_printf(&b,
			  "# carry: the %d kernel path costs %s assumed and calibrate does not fit x %.3g, the median "
			  "of the fitted costs' ratios to their assumed values (the user's loop and measured costs "
			  "kept; src/calibrate.c calib_carry_factor)\n",
			  cm->ncarry, cm->base, cm->carry);
	sb_printf(&b, "[kernel]\n# [assumed] name used on the command line (this file's name)\nname = %s\n", name);
	sb_printf(&b, "# [assumed] every entry not set here is %s's\nbase = %s\n", cm->base, cm->base);
	for (int s = 0; s < 2; s++) {
		const char *sec = s ? "costs" : "batch";

		sb_printf(&b, "\n[%s]\n", sec);
		for (int i = 0; i < cm->kprof.nentries; i++) {
			const struct prof_entry *e = &cm->kprof.e[i];
			int j;

			if (strcmp(e->section, sec))
				continue;
			if ((j = index_of(cm->entry, cm->nparam, i)) >= 0) {
				const struct fit_param_result *p = &fr->param[j];
				char rng[96];

				range_text(p, rng, sizeof(rng));
				/* first, short: a note keeps only its first 320 characters */
				if (c->untrusted && (c->disturbed_train || c->at_bound[j]))
					sb_printf(&b, "# " CALIB_UNTRUSTED ": %s%s%s\n",
						  c->disturbed_train ? "fitted to runs beside other load" : "",
						  c->disturbed_train && c->at_bound[j] ? "; " : "",
						  c->at_bound[j] ? "at the bound of its search" : "");
				sb_printf(
				    &b,
				    "# [fitted] by mmsim calibrate on %s to the threads runs at tasks %s; 1-sigma %s "
				    "cycles (%s had %g)\n",
				    date, train, rng, cm->base, cm->param[j].initial);
				if (!p->identifiable)
					sb_printf(&b, "# NOT identifiable from these runs: %s\n", p->reason);
				sb_printf(&b, "%s = %.0f\n", e->key, round(e->num));
			} else if ((j = index_of(cm->meas_entry, cm->nmeas, i)) >= 0) {
				sb_printf(&b, "%s\n%s = %.0f\n", cm->meas_note[j], e->key, round(e->num));
			} else if (cm->carry_on && (j = index_of(cm->carry_entry, cm->ncarry, i)) >= 0) {
				sb_printf(
				    &b,
				    "# [derived] by mmsim calibrate on %s: %s's assumed %g cycles x %.3g, the carry "
				    "(the fitted costs' median ratio to their assumed values)\n",
				    date, e->line == -1 ? cm->donor : cm->base, cm->carry_base[j], cm->carry);
				sb_printf(&b, "%s = %.0f\n", e->key, round(e->num));
			} else if (e->line == -1) {
				sb_printf(&b,
					  "# copied from %s: the populate scenario needs it and %s has none\n# %s\n",
					  cm->donor, cm->base, e->note);
				sb_printf(&b, "%s = %s\n", e->key, e->value);
			}
		}
	}
	folio_text(&b, cm, date, c->o->measured_dir);
	if (!b.s || b.oom) {
		free(b.s);
		return mm_fail(err, MM_ENOMEM, "out of memory");
	}
	*out = b.s;
	return 0;
}

/* What was written is read back as --kernel and --machine read it, and every benchmark's variant compiles. */
static int check_written(const char *kpath, const char *mpath, struct mm_error *err)
{
	struct profile p;
	struct kernel_profile k;
	struct machine m;
	int rc;

	if (mpath) {
		if ((rc = machine_load(&m, mpath, 0, err)))
			return rc;
		machine_free(&m);
	}
	if (!kpath)
		return 0;
	if ((rc = profile_load(&p, "kernels", kpath, err)))
		return rc;
	if (!(rc = kernel_profile_derive(&k, &p, err)))
		for (int b = 0; b < CALIB_NBENCH && !rc; b++) {
			struct scenario sc;
			struct program prog;
			int v;

			if ((rc = scenario_load(&sc, calib_benches[b].variant, &v, err)))
				break;
			if (!(rc = scenario_compile(&sc, v, &k, &prog, err)))
				program_free(&prog);
			scenario_free(&sc);
		}
	profile_free(&p);
	return rc;
}

/* --no-fit: the points as the fit would take them (several invocations averaged), by mode */
static void print_points(const struct cal *c)
{
	for (int m = 0; m < 2; m++) {
		printf("\n%s: the measured points a fit would take (--no-fit: nothing fitted)\n", mode_name(m));
		printf("  %-24s %6s %14s %8s  %s\n", "benchmark (variant)", "tasks", "measured", "sigma%", "role");
		for (int i = 0; i < c->npts; i++) {
			const struct calib_point *p = &c->pts[i];

			if (p->mode == m)
				printf("  %-24s %6d %14.6g %8.1f  %s\n", bench_name(p->bench), p->ntasks, p->ops_per_s,
				       100 * p->sigma, p->train ? "training" : "held out");
		}
	}
	if (c->disturbed_train)
		printf("\n  %d training point(s) were measured beside other load: a fit would refuse them without "
		       "--accept-disturbed\n",
		       c->disturbed_train);
}

static void print_report(struct cal *c, struct calib_model *cm, const struct fit_result *fr)
{
	printf("\nmmsim calibrate: kernel path costs fitted to the threads runs at tasks");
	for (int i = 0; i < c->nfit; i++)
		printf("%s%d", i ? "," : " ", c->fit_tasks[i]);
	printf(" (base %s, machine %s)\n", cm->base, cm->m->hw.name);
	printf("  %-18s %10s %10s %22s  %s\n", "cost (cycles)", "before", "fitted", "1-sigma range", "identifiable");
	for (int j = 0; j < cm->nparam; j++) {
		const struct fit_param_result *p = &fr->param[j];
		char rng[96], ident[64];

		range_text(p, rng, sizeof(rng));
		/* identifiable to the bar's 5% when its 2-sigma range is within +-5%; a range open on a side
		 * (the scan's limit) or looser is said as such */
		if (!p->identifiable)
			snprintf(ident, sizeof(ident), "NO");
		else if (p->lo_open || p->hi_open)
			snprintf(ident, sizeof(ident), "bounded on one side only");
		else if (!(p->hi > p->lo))
			snprintf(ident, sizeof(ident), "yes (no range computed)");
		else if (!calib_pinned_to_5pct(p))
			snprintf(ident, sizeof(ident), "bounded, not to 5%% (2 sigma +-%.0f%%)",
				 100 * (p->hi - p->lo) / p->value);
		else
			snprintf(ident, sizeof(ident), "yes (to 5%% at 2 sigma)");
		printf("  %-18s %10.0f %10.0f %22s  %s%s\n", cm->param[j].name, cm->param[j].initial, p->value, rng,
		       ident,
		       p->value >= cm->param[j].upper * 0.999 || p->value <= cm->param[j].lower * 1.001
			   ? " (at the bound of its search: the model misses these points)"
			   : "");
		if (!p->identifiable)
			printf("      %s\n", p->reason);
	}
	for (int i = 0; i < cm->nmeas; i++)
		printf("  %-18s %10s %10.0f  from the hardware profile's mmsim-measure figures, not fitted\n",
		       cm->kprof.e[cm->meas_entry[i]].key, "", cm->kprof.e[cm->meas_entry[i]].num);
	if (cm->carry_on)
		printf("  carry: the %d other kernel path costs %s assumes x %.3g (the fitted costs' median ratio "
		       "to their assumed values)\n",
		       cm->ncarry, cm->base, cm->carry);
	printf("  chi2 %.3g for %d degree(s) of freedom, %d model evaluations, %s\n", fr->chi2, fr->dof, fr->evals,
	       fr->converged ? "converged" : "not converged (max evaluations reached)");
	printf("  ranges: where chi2 rises by %.3g %s\n", fr->delta_chi2,
	       c->profile == FIT_PROFILE_REFIT ? "with the other costs refitted (the profile likelihood)"
					       : "with the other costs held at the best fit (--quick: conditional, "
						 "blind to degenerate pairs)");
	for (int m = 0; m < 2; m++) {
		struct err_tally pred = {0};

		printf("\n%s: measured vs simulated with the fitted profile\n", mode_name(m));
		printf("  %-24s %6s %14s %14s %9s %8s  %s\n", "benchmark (variant)", "tasks", "measured", "predicted",
		       "error%", "sigma%", "role");
		for (int i = 0; i < c->npts; i++) {
			const struct calib_point *p = &c->pts[i];
			double e = 100 * (c->pred[i] / p->ops_per_s - 1);

			if (p->mode != m)
				continue;
			printf("  %-24s %6d %14.6g %14.6g %+9.1f %8.1f  %s\n", bench_name(p->bench), p->ntasks,
			       p->ops_per_s, c->pred[i], e, 100 * p->sigma,
			       p->train ? "fitted (not a prediction)" : "prediction");
			if (!p->train)
				err_tally_add(&pred, e);
		}
		err_tally_print(stdout, &pred);
		for (int b = 0; b < CALIB_NBENCH; b++) {
			int train[REPORT_MAX_POINTS] = {0};
			struct usl_fit u;
			char why[256];

			for (int p = 0; p < c->ms[b].n; p++)
				train[p] = m == SC_THREADS && is_fit_task(c, c->ms[b].tasks[p]);
			if (m != SC_THREADS)
				continue; /* training points are threads points */
			if (!calib_usl_baseline(&c->ms[b], m, train, &u, why, sizeof(why))) {
				if (b == 0)
					printf("  %s\n", why);
				continue;
			}
			for (int p = 0; p < c->ms[b].n; p++)
				if (!train[p] && c->ms[b].ops[m][p] > 0)
					printf("  USL %-20s %6d %14.6g %14.6g %+9.1f\n", bench_name(b),
					       c->ms[b].tasks[p], c->ms[b].ops[m][p],
					       usl_predict(&u, c->ms[b].tasks[p]),
					       100 * (usl_predict(&u, c->ms[b].tasks[p]) / c->ms[b].ops[m][p] - 1));
		}
	}
}

static int rm_tree(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char p[PATH_MAX + 256];

	if (!d)
		return -1;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
			snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
			unlink(p);
		}
	closedir(d);
	return rmdir(dir);
}

static void name_of(const char *path, char *out, size_t cap)
{
	const char *s = strrchr(path, '/');
	const char *base = s ? s + 1 : path;
	const char *dot = strrchr(base, '.');

	snprintf(out, cap, "%.*s", (int)(dot && dot != base ? dot - base : (long)strlen(base)), base);
}

/* Stops a profile that does not describe this machine; 0 to go on (nothing wrong, or accepted). */
static int refuse_untrusted(struct cal *c, const struct calib_model *cm, const struct fit_result *fr,
			    struct mm_error *err)
{
	char bound[256] = "";
	int nbound = 0;

	for (int j = 0; fr && j < cm->nparam; j++)
		if ((c->at_bound[j] = calib_at_bound(&cm->param[j], fr->param[j].value))) {
			snprintf(bound + strlen(bound), sizeof(bound) - strlen(bound), "%s%s %.0f", nbound ? ", " : "",
				 cm->param[j].name, fr->param[j].value);
			nbound++;
		}
	if (!c->disturbed_train && !nbound)
		return 0;
	if (c->o->accept_disturbed) {
		c->untrusted = 1;
		return 0;
	}
	if (c->disturbed_train)
		return mm_fail(err, MM_EINVAL,
			       "calibrate: %d training point(s) were measured beside other load (other_cpus > 0.10 in "
			       "the #run line; first: %s): a fit to them would not describe this machine, so nothing "
			       "is written; rerun on a quiet machine, or --accept-disturbed to write the profiles "
			       "marked " CALIB_UNTRUSTED,
			       c->disturbed_train, c->disturbed_first);
	return mm_fail(err, MM_EINVAL,
		       "calibrate: %s ended at the bound of the search (%g to %g x the base's value): the model "
		       "misses these points, so nothing is written; --accept-disturbed writes the profile with "
		       "these entries marked " CALIB_UNTRUSTED,
		       bound, 1.0 / CALIB_SEARCH_DOWN, (double)CALIB_SEARCH_UP);
}

int calibrate_run(const struct calib_opts *o, struct mm_error *err)
{
	struct cal *c = calloc(1, sizeof(*c));
	struct machine m;
	struct calib_model cm;
	struct fit_result fr;
	struct outfile kf = {.slot = -1}, mf = {.slot = -1};
	const char *tmp = getenv("TMPDIR");
	int rc, have_m = 0, have_cm = 0;
	ssize_t n;

	if (!c)
		return mm_fail(err, MM_ENOMEM, "out of memory");
	c->o = o;
	c->t0 = now_s();
	n = readlink("/proc/self/exe", c->bindir, sizeof(c->bindir) - 1);
	if (n > 0) {
		c->bindir[n] = 0;
		*strrchr(c->bindir, '/') = 0;
	} else {
		snprintf(c->bindir, sizeof(c->bindir), ".");
	}
	if (o->no_fit && (o->out_machine || o->out_kernel)) {
		free(c);
		return mm_fail(err, MM_EINVAL, "--no-fit writes no profile: not with --%s",
			       o->out_machine ? "out-machine" : "out-kernel");
	}
	if ((rc = parse_fit_tasks(c, o->fit_tasks ? o->fit_tasks : "1", err)) ||
	    (rc = check_output(o->out_machine, o->force, "--out-machine", err)) ||
	    (rc = check_output(o->out_kernel, o->force, "--out-kernel", err))) {
		free(c);
		return rc;
	}
	if (o->machine && o->out_machine) {
		free(c);
		return mm_fail(err, MM_EINVAL,
			       "--out-machine writes a measured profile: not with --machine (which "
			       "skips measuring)");
	}
	/* one file for both would end as the second written (or be refused after all the work) */
	if (o->out_machine && o->out_kernel) {
		struct stat a, b;

		if (!strcmp(o->out_machine, o->out_kernel) || (!stat(o->out_machine, &a) && !stat(o->out_kernel, &b) &&
							       a.st_dev == b.st_dev && a.st_ino == b.st_ino)) {
			free(c);
			return mm_fail(err, MM_EINVAL,
				       "--out-machine and --out-kernel name one file (%s): two are written",
				       o->out_kernel);
		}
	}
	if ((size_t)snprintf(c->tmpdir, sizeof(c->tmpdir), "%s/mmsim-calibrate.XXXXXX", tmp && *tmp ? tmp : "/tmp") >=
	    sizeof(c->tmpdir)) {
		free(c);
		return mm_fail(err, MM_ERANGE, "TMPDIR %s: too long for calibrate's temporary directory", tmp);
	}
	if (!mkdtemp(c->tmpdir)) {
		rc = mm_fail(err, MM_EIO, "%s: cannot create a temporary directory (%s)", c->tmpdir, strerror(errno));
		free(c);
		return rc;
	}
	track_tmp(c, c->tmpdir); /* first: cleanup.c removes the newest entries first, so it goes last */
	if ((rc = measure_machine(c, &m, err)))
		goto out;
	have_m = 1;
	if ((rc = run_benchmarks(c, m.topo.ncpus, err)) || (rc = collect_points(c, err)))
		goto out;
	if (o->no_fit) {
		print_points(c);
		goto out;
	}
	/* before minutes of fitting: a fit to disturbed points is not published */
	if ((rc = refuse_untrusted(c, NULL, NULL, err)))
		goto out;
	if ((rc = calib_model_init(&cm, &m, o->kernel ? o->kernel : "linux-6.8", "linux-3.9", err)))
		goto out;
	have_cm = 1;
	cm.seed = o->seed ? o->seed : 1;
	cm.carry_on = o->carry;
	calib_measured_costs(&cm, c->machine_path, hw_freq_ghz(&m.hw, 1));
	for (int i = 0; i < cm.nmeas; i++)
		stage(c, "%s = %.0f cycles, from the hardware profile's own figures (not fitted)",
		      cm.kprof.e[cm.meas_entry[i]].key, cm.kprof.e[cm.meas_entry[i]].num);
	for (int i = 0; i < cm.nmeas_skipped; i++)
		stage(c, "%s", cm.meas_skipped[i]);
	cm.max_evals = 400;
	cm.refit_evals = 120; /* the synthetic recovery test: 40 made a weak cost's range too narrow */
	if (o->quick) {
		/* a smoke test of the pipeline: a shorter search, not restarted */
		cm.max_evals = 150;
		cm.refit_evals = 40;
		cm.restarts = 0;
	}
	{
		int ntrain = 0;

		for (int i = 0; i < c->npts; i++)
			ntrain += c->pts[i].train;
		stage(c, "fitting %d kernel path costs to %d training points (held out: %d)", cm.nparam, ntrain,
		      c->npts - ntrain);
	}
	/* --quick: ranges with the others held at the best fit (cheap, and blind to degenerate pairs) */
	c->profile = o->quick ? FIT_PROFILE_FIXED : FIT_PROFILE_REFIT;
	rc = calib_fit(&cm, c->pts, c->npts, c->profile, fit_progress, c, &fr, err);
	if (c->evals_shown && isatty(2))
		fputc('\n', stderr);
	if (rc)
		goto out;
	stage(c, "fitted: %d model evaluations; predicting every measured point", fr.evals);
	cm.full_work = 1;
	if ((rc = calib_predict(&cm, NULL, c->pts, c->npts, c->pred, err)))
		goto out;
	print_report(c, &cm, &fr);
	if (c->disturbed_held)
		printf("  note: %d held-out point(s) were measured beside other load (other_cpus > 0.10): their "
		       "errors are not the model's alone\n",
		       c->disturbed_held);
	if ((rc = refuse_untrusted(c, &cm, &fr, err)))
		goto out;
	if (c->untrusted) {
		int nbound = 0;

		for (int j = 0; j < cm.nparam; j++)
			nbound += c->at_bound[j];
		printf("\n" CALIB_UNTRUSTED ": --accept-disturbed: %d training point(s) beside other load, %d cost(s) "
		       "at the bound of their search; what is written is marked so\n",
		       c->disturbed_train, nbound);
	}
	/* both written to temporary files, read back as mmsim reads them, then renamed: never half-written */
	if (o->out_kernel) {
		char name[64], *text = NULL;

		name_of(o->out_kernel, name, sizeof(name));
		if ((rc = kernel_profile_text(c, &cm, &fr, name, &text, err)))
			goto out;
		if (!(rc = outfile_open(&kf, o->out_kernel, o->force, "--out-kernel", err)))
			fputs(text, kf.f);
		free(text);
		if (rc || (fflush(kf.f) && (rc = mm_fail(err, MM_EIO, "%s: %s", kf.tmp, strerror(errno)))))
			goto out;
	}
	if (o->out_machine) {
		char *text = NULL;

		if ((rc = mm_read_text_file(c->machine_path, &text, err)))
			goto out;
		if (!(rc = outfile_open(&mf, o->out_machine, o->force, "--out-machine", err))) {
			if (c->untrusted && c->disturbed_train)
				fprintf(mf.f,
					"# " CALIB_UNTRUSTED ": written by mmsim calibrate --accept-disturbed; the "
					"benchmarks ran beside other load, and so may have these measurements\n");
			fputs(text, mf.f);
		}
		free(text);
		if (rc || (fflush(mf.f) && (rc = mm_fail(err, MM_EIO, "%s: %s", mf.tmp, strerror(errno)))))
			goto out;
	}
	if ((rc = check_written(o->out_kernel ? kf.tmp : NULL, o->out_machine ? mf.tmp : NULL, err)))
		goto out;
	if (o->out_kernel && (rc = outfile_commit(&kf, err)))
		goto out;
	if (o->out_machine && (rc = outfile_commit(&mf, err)))
		goto out;
	printf("\nwritten: %s%s%s%s\n", o->out_kernel ? o->out_kernel : "", o->out_kernel ? " (--kernel)" : "",
	       o->out_machine ? (o->out_kernel ? ", " : "") : "", o->out_machine ? o->out_machine : "");
	if (!o->out_kernel && !o->out_machine)
		printf("(no --out-kernel or --out-machine: nothing written)\n");
	stage(c, "done");
out:
	outfile_abort(&kf);
	outfile_abort(&mf);
	if (have_cm)
		calib_model_free(&cm);
	if (have_m)
		machine_free(&m);
	rm_tree(c->tmpdir);
	for (int i = 0; i < c->ntmp; i++)
		cleanup_forget_file(c->tmp_slot[i]);
	free(c);
	return rc;
}
