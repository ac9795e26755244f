/* SPDX-License-Identifier: MIT */
/* Page faults, zeroing, DRAM latency and write bandwidth. */
#include "measure.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#define MiB ((size_t)1 << 20)

/* memset through a volatile pointer, so that no store is optimised away */
static void *(*volatile ms_memset)(void *, int, size_t) = memset;
static volatile uintptr_t ms_sink;

/* ---- page faults ---------------------------------------------------------------- */

/* Minor and major faults so far: from 5.9 a fault that was retried (VM_FAULT_RETRY, as a shared
 * write fault on a new shmem page is before 6.x drops the lock for dirty throttling) is counted
 * as major (mm_account_fault: FAULT_FLAG_TRIED) */
static long ms_faults(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_SELF, &ru) ? -1 : ru.ru_minflt + ru.ru_majflt;
}

/* What a fault sample times over a fresh mapping: a read of each page (the zero page mapped), a
 * write (a new page), a write after an untimed read of each page (a COW of the zero page), or a
 * write to each page of a MAP_SHARED mapping of a tmpfs file whose pages are cached and dirty. */
enum pf_kind { PF_READ, PF_WRITE, PF_COW, PF_SHARED_FILE };

/* One sample of @kind over a fresh @pages-page mapping (of @fd for PF_SHARED_FILE, else
 * anonymous): ns per fault, or a negative errno.  *thp_off is cleared when MADV_NOHUGEPAGE is
 * refused; *faults (when not NULL) is set to the faults the timed loop took. */
static double pf_sample(struct ms_ctx *c, int pages, enum pf_kind kind, int fd, int *thp_off, long *faults)
{
	size_t psz = (size_t)sysconf(_SC_PAGESIZE), len = (size_t)pages * psz;
	volatile char *map = kind == PF_SHARED_FILE
				 ? mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
				 : mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t t0, t1;
	uintptr_t sum = 0;
	long f0 = faults ? ms_faults() : 0;

	if (map == MAP_FAILED)
		return -errno;
	/* 4 KiB faults only: a huge page would fault once for 512 pages */
	if (madvise((void *)map, len, MADV_NOHUGEPAGE))
		*thp_off = 0;
	if (kind == PF_COW)
		for (int i = 0; i < pages; i++)
			sum += (uintptr_t)map[(size_t)i * psz];
	t0 = ms_now_ns();
	if (kind != PF_READ)
		for (int i = 0; i < pages; i++)
			map[(size_t)i * psz] = 1;
	else
		for (int i = 0; i < pages; i++)
			sum += (uintptr_t)map[(size_t)i * psz];
	t1 = ms_now_ns();
	if (faults)
		*faults = ms_faults() - f0;
	ms_sink = sum;
	munmap((void *)map, len);
	return ms_per_op(c, t0, t1, pages);
}

/*
 * The write faults of pf_measure timed on CPU 0 while every other CPU runs the same loop, each in a
 * process of its own (no mm shared: no TLB shootdowns between them), CPU 0's hardware-thread
 * siblings left idle (smt_factor is that slowdown): how kernel work slows with the machine busy,
 * which a guest's vCPUs sharing a host's cores show (corun_factor).  Optional: anything that keeps
 * it from running (no other CPU, fork refused) leaves the figure out, with a word on stderr.
 */
static int pf_measure_all(struct ms_ctx *c)
{
	int pages = c->quick ? 64 : 256, max = c->quick ? 20 : 300, n = 0, rc = 0, thp_off = 1, nkids = 0;
	int ncpu = c->topo.ncpus, ready[2] = {-1, -1};
	pid_t *kid = calloc((size_t)ncpu, sizeof(*kid)), parent = getpid();
	double *v = malloc((size_t)max * sizeof(*v));
	const char *why = NULL;
	struct ms_budget b;

	if (!kid || !v) {
		rc = -ENOMEM;
		goto out;
	}
	if (pipe(ready)) {
		why = "pipe() failed";
		goto out;
	}
	for (int i = 1; i < ncpu; i++) {
		pid_t p;

		if (c->topo.cpu[i].core == c->topo.cpu[0].core)
			continue; /* CPU 0's sibling: that is smt_factor's slowdown, not this one */
		if ((p = fork()) < 0) {
			why = "fork() failed";
			goto out;
		}
		if (p == 0) {
			int off = 1;

			prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlive the measurement */
			if (getppid() != parent)
				_exit(0);
			if (c->pinned)
				ms_pin(c, i);
			close(ready[0]);
			if (write(ready[1], "x", 1) != 1)
				_exit(1);
			close(ready[1]);
			for (;;)
				pf_sample(c, pages, PF_WRITE, -1, &off, NULL);
		}
		kid[nkids++] = p;
	}
	close(ready[1]);
	ready[1] = -1;
	if (!nkids) {
		why = "no other core";
		goto out;
	}
	for (int i = 0; i < nkids; i++) {
		char x;

		if (read(ready[0], &x, 1) != 1) { /* a child died before it started: EOF */
			why = "a loop did not start";
			goto out;
		}
	}
	if (c->pinned)
		ms_pin(c, 0);
	ms_budget_init(&b, c, max, c->quick ? 0.15 : 1.0);
	for (n = 0; !rc && ms_budget_more(&b, n); n++)
		if ((v[n] = pf_sample(c, pages, PF_WRITE, -1, &thp_off, NULL)) < 0)
			rc = (int)v[n];
	if (!rc && !ms_add(c, "fault_write_all", "ns", v, n,
			   "fault_write on CPU 0 while %d other CPUs (CPU 0's hardware-thread siblings left idle) run "
			   "the same loop, each in a process of its own; per fault",
			   nkids))
		rc = -ENOSPC;
out:
	for (int i = 0; i < nkids; i++) {
		kill(kid[i], SIGKILL);
		waitpid(kid[i], NULL, 0);
	}
	if (ready[0] >= 0)
		close(ready[0]);
	if (ready[1] >= 0)
		close(ready[1]);
	free(kid);
	free(v);
	if (why && ncpu > 1)
		fprintf(stderr, "mmsim-measure: fault_write_all not measured (%s): corun_factor left out\n", why);
	return rc;
}

/*
 * A tmpfs file of @pages pages for PF_SHARED_FILE, each page written once (cached and dirty, as
 * will-it-scale's page_fault3 finds its file's pages from its second pass on): an open descriptor,
 * or -1 with *why set.
 */
static int pf_shared_file(int pages, const char **why)
{
	size_t psz = (size_t)sysconf(_SC_PAGESIZE);
	char path[] = "/dev/shm/mmsim-measure.XXXXXX", *page = calloc(1, psz);
	int fd = page ? mkstemp(path) : -1;

	*why = page ? "cannot create a file in /dev/shm" : "out of memory";
	if (fd >= 0) {
		unlink(path);
		memset(page, 1, psz);
		for (int i = 0; i < pages; i++)
			if (pwrite(fd, page, psz, (off_t)((size_t)i * psz)) != (ssize_t)psz) {
				*why = "cannot write a file in /dev/shm (full?)";
				close(fd);
				fd = -1;
				break;
			}
	}
	free(page);
	return fd;
}

static int pf_measure(struct ms_ctx *c, enum pf_kind kind)
{
	static const char *const name[] = {"fault_read", "fault_write", "fault_cow_zero", "fault_shared_file"};
	static const char *const what[] = {
	    "read (maps the shared zero page: no zeroing)", "write (allocates and zeroes a page)",
	    "write after an untimed read of every page (do_wp_page -> wp_page_copy of the zero page: a new "
	    "page zeroed, the read-only PTE cleared and flushed with ptep_clear_flush, the new one set)",
	    "write (do_shared_fault: shmem_fault finds the page cached, finish_fault maps it writable, "
	    "fault_dirty_shared_page with file_update_time)"};
	/*
	 * The shared file's pages over 32 MiB, as munmap_file_pte's and fault_around_page's: its fault
	 * touches the page's struct page and the page cache's nodes, which a 1 MiB file keeps in cache
	 * and will-it-scale's 128 MiB one does not (about 1360 ns a fault over 256 pages against 1600
	 * to 1660 over 4096 and 32768 on the development VM, 2026-12-07); the anonymous read fault,
	 * which touches neither, moves by 3% between those sizes.
	 */
	const int shared = kind == PF_SHARED_FILE;
	int pages = shared ? (c->quick ? 256 : 8192) : (c->quick ? 64 : 256),
	    max = shared ? (c->quick ? 10 : 60) : (c->quick ? 20 : 300), n, rc = 0, thp_off = 1, fd = -1;
	double *v = malloc((size_t)max * sizeof(*v));
	const char *why = NULL;
	long faults = 0;
	struct ms_budget b;

	if (!v)
		return -ENOMEM;
	if (shared && (fd = pf_shared_file(pages, &why)) < 0) {
		fprintf(stderr, "mmsim-measure: the shared file fault figures are left out: %s\n", why);
		free(v);
		return 0;
	}
	ms_budget_init(&b, c, max, c->quick ? 0.15 : 1.0);
	for (n = 0; ms_budget_more(&b, n); n++) {
		if ((v[n] = pf_sample(c, pages, kind, fd, &thp_off, shared ? &faults : NULL)) < 0) {
			rc = (int)v[n];
			break;
		}
		/* one fault a page: tmpfs huge pages (shmem_enabled, huge=) would map 512 at a time */
		if (shared && (faults < pages || faults > pages + 16)) {
			fprintf(stderr,
				"mmsim-measure: the shared file fault figures are left out: a pass over %d pages of a "
				"/dev/shm file took %ld faults, not one a page (tmpfs huge pages?)\n",
				pages, faults);
			n = 0;
			break;
		}
	}
	if (fd >= 0)
		close(fd);
	if (!rc && n &&
	    !ms_add(c, name[kind], "ns", v, n,
		    "%s of one byte per page of a fresh %d-page %s%s; munmap untimed; per fault (page-table "
		    "allocation amortised over the sample)",
		    what[kind], pages,
		    shared ? "MAP_SHARED mapping of a /dev/shm file" : "MAP_PRIVATE|MAP_ANONYMOUS mapping",
		    thp_off ? " with MADV_NOHUGEPAGE" : " (MADV_NOHUGEPAGE refused)"))
		rc = -ENOSPC;
	free(v);
	return rc;
}

int ms_measure_faults(struct ms_ctx *c)
{
	int rc = 0;

	for (enum pf_kind k = PF_READ; k <= PF_SHARED_FILE && !rc; k++)
		rc = pf_measure(c, k);
	return rc ? rc : pf_measure_all(c);
}

/* ---- munmap: the zap per present PTE -------------------------------------------------- */

/*
 * How much one kernel operation's time varies when it is repeated: the write passes of the anonymous
 * zap measurement (every page of a fresh mapping faulted, milliseconds each), over their median.
 * The figure is the half-width of a uniform spread with the same 90th percentile, (p90 - 1) / 0.8,
 * at most 0.5: the model's [cpu] op_jitter (a real spread has the longer tail above: the passes'
 * minimum is typically 2-3% under the median here).  Two tasks that start equal operations together
 * end them apart by about that share of one (README "The model").
 */
static int op_variation(struct ms_ctx *c, const double *pass, int n, int pages)
{
	double *rel = malloc((size_t)n * sizeof(*rel));
	struct ms_stats st;
	struct ms_result *r;

	if (!rel)
		return -ENOMEM;
	ms_stats_of(pass, n, &st);
	for (int i = 0; i < n; i++)
		rel[i] = st.median > 0 ? pass[i] / st.median : 1;
	r = ms_add(c, "op_variation", "ratio", rel, n,
		   "a write of one byte per page of a fresh %d-page anonymous mapping (THP off) repeated; each "
		   "pass's time over the passes' median; value = (p90 - 1) / 0.8 (a uniform spread's half-width)",
		   pages);
	if (r)
		r->value = fmin(fmax((r->st.p90 - 1) / 0.8, 0), 0.5);
	free(rel);
	return r ? 0 : -ENOSPC;
}

/*
 * munmap of a mapping whose pages are all mapped, per page: zap_pte_range's work per present PTE
 * (rmap, rss, the mmu_gather batch) plus, amortised, the TLB flush and the page-table frees.
 *   file: a MAP_PRIVATE mapping of a file on tmpfs (/dev/shm) whose pages are cached, read-faulted
 *         (fault-around maps 16 per fault): the pages stay in the page cache, so nothing is freed,
 *         as in page_fault4's munmap.  The read pass before it is timed too (fault_around_page):
 *         page_fault4's op, a fault's entry and exit shared by the pages it maps around;
 *   anon: written anonymous pages (THP off), freed by the munmap, as in page_fault1's;
 *   zero: read-faulted anonymous pages (THP off), every PTE the shared zero page's: zap_present_ptes
 *         finds no normal page (vm_normal_page) and only clears the PTE and widens the flush range,
 *         no rmap, rss or page batch (v6.18 mm/memory.c; v5.11's zap_pte_range the same), as in a
 *         MADV_DONTNEED of private anonymous memory that was only read.
 */
enum zap_kind { ZAP_FILE, ZAP_ANON, ZAP_ZERO };

static const char *const zap_name[] = {"munmap_file_pte", "munmap_anon_pte", "munmap_zero_pte"};
static const char *const zap_text[] = {
    "private mapping of a tmpfs file, every page read (fault-around; the pages stay cached)",
    "anonymous mapping, every page written (the pages are freed)",
    "anonymous mapping, every page read (the shared zero page's PTEs: nothing freed or counted)"};

static int zap_measure(struct ms_ctx *c, enum zap_kind kind)
{
	const int anon = kind != ZAP_FILE;
	size_t psz = (size_t)sysconf(_SC_PAGESIZE);
	int pages = c->quick ? 2048 : 8192, max = c->quick ? 10 : 60, n, rc = 0, fd = -1;
	double *v = malloc((size_t)max * sizeof(*v)), *rd = malloc((size_t)max * sizeof(*rd));
	size_t len = (size_t)pages * psz;
	char path[] = "/dev/shm/mmsim-measure.XXXXXX";
	struct ms_budget b;

	if (!v || !rd) {
		free(v);
		free(rd);
		return -ENOMEM;
	}
	if (!anon) {
		fd = mkstemp(path);
		if (fd < 0) {
			free(v);
			free(rd);
			return 0; /* no tmpfs here: the figure is left out */
		}
		unlink(path);
		/* allocated now: a read fault in a hole of a full tmpfs would be SIGBUS */
		if (posix_fallocate(fd, 0, (off_t)len)) {
			close(fd);
			free(v);
			free(rd);
			return 0; /* no room on /dev/shm: the figure is left out */
		}
	}
	ms_budget_init(&b, c, max, c->quick ? 0.1 : 0.6);
	for (n = 0; ms_budget_more(&b, n);) {
		volatile char *map =
		    mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | (anon ? MAP_ANONYMOUS : 0), fd, 0);
		uintptr_t sum = 0;
		uint64_t t0, t1;

		if (map == MAP_FAILED) {
			rc = -errno;
			break;
		}
		madvise((void *)map, len, MADV_NOHUGEPAGE);
		t0 = ms_now_ns();
		for (int i = 0; i < pages; i++) {
			if (kind == ZAP_ANON)
				map[(size_t)i * psz] = 1;
			else
				sum += (uintptr_t)map[(size_t)i * psz];
		}
		t1 = ms_now_ns();
		rd[n] = ms_per_op(c, t0, t1, pages);
		ms_sink = sum;
		t0 = ms_now_ns();
		munmap((void *)map, len);
		t1 = ms_now_ns();
		v[n++] = ms_per_op(c, t0, t1, pages);
	}
	if (!rc && kind == ZAP_FILE &&
	    !ms_add(c, "fault_around_page", "ns", rd, n,
		    "read of one byte per page of a %d-page private mapping of a cached tmpfs file, THP off: "
		    "one fault maps 16 pages (fault_around_bytes 64 KiB); per page, the fault's entry and exit "
		    "shared by 16",
		    pages))
		rc = -ENOSPC;
	if (!rc && kind == ZAP_ANON && n >= 5)
		rc = op_variation(c, rd, n, pages);
	if (!rc &&
	    !ms_add(c, zap_name[kind], "ns", v, n, "munmap of a %d-page %s, THP off; per page", pages, zap_text[kind]))
		rc = -ENOSPC;
	if (fd >= 0)
		close(fd);
	free(v);
	free(rd);
	return rc;
}

int ms_measure_munmap(struct ms_ctx *c)
{
	int rc = 0;

	for (enum zap_kind k = ZAP_FILE; k <= ZAP_ZERO && !rc; k++)
		rc = zap_measure(c, k);
	return rc;
}

/* ---- a file in large folios: buffer heads per block and per folio, the batched zap ------ */

/*
 * will-it-scale's page_fault3 writes a byte to each page of a MAP_SHARED mapping of a file where it
 * runs (TMPDIR, else /tmp); on ext4 (6.16+) and xfs that file is cached in large folios, which 6.18
 * maps whole per fault.  A write fault on ext4 walks the folio's buffer heads (ext4_page_mkwrite ->
 * block_page_mkwrite: __block_write_begin_int and block_commit_write; fault_dirty_shared_page ->
 * block_dirty_folio) and the munmap marks the folio dirty again (zap_present_folio_ptes or
 * zap_huge_pmd -> block_dirty_folio); a read pass over the same mapping does neither.  So on files
 * whose folios all have one size (a buffered write() of a folio's size and alignment makes one
 * folio, 6.18), the median difference per page between a write pass and the read pass before it:
 *   2 MiB folios (PMD-mapped, one fault per 512 pages either way): the work per 4 KiB block, and
 *     the work per fault shared by 512;
 *   64 KiB folios (PTE-mapped; a read fault's 64 KiB fault-around window is the folio): the same
 *     per block, the per-fault work shared by 16.
 * mmsim calibrate separates the two.  The read passes' munmap of 64 KiB and 1 MiB folios gives
 * the zap of a PTE-mapped large folio (folio_pte_batch since 6.9: one zap_present_folio_ptes per
 * folio), per folio and per page, separated the same way; the read passes themselves the work per
 * page of a fault that maps a large folio's pages (filemap_map_pages: set_pte_range over a run of
 * them, and the user's read of each).  Each file's folio size is checked by
 * its faults per pass; where they are not one per folio (tmpfs, a file system that caches 4 KiB
 * folios, a directory we cannot write) the figures are left out and the reason printed.
 */
/* What each pair of passes gives, per page: the write pass less the read pass, the munmap after it
 * less the one after the read, the munmap after the read pass, the read pass. */
enum ff_fig { FF_WRITE_LESS_READ, FF_UNMAP_DIRTY, FF_UNMAP_CLEAN, FF_READ, FF_NFIG };
#define FF_MAX_PAIRS 15 /* timed pairs after the warm-up pair (--quick: 4) */

struct ff_file {
	size_t chunk; /* bytes per write(), the folio size asked for */
	double s[FF_NFIG][FF_MAX_PAIRS];
	int n;
};

/* One pass over @len bytes of @fd, a byte written (@write) or read per page, then munmap: ns per
 * page of each half, and the faults it took.  0 or a negative errno. */
static int ff_pass(struct ms_ctx *c, int fd, size_t len, int write, double *touch, double *unmap, long *faults)
{
	size_t psz = (size_t)sysconf(_SC_PAGESIZE), pages = len / psz;
	volatile char *map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	uintptr_t sum = 0;
	uint64_t t0, t1, t2;
	long f0;

	if (map == MAP_FAILED)
		return -errno;
	f0 = ms_faults();
	t0 = ms_now_ns();
	for (size_t i = 0; i < pages; i++) {
		if (write)
			map[i * psz] = 1;
		else
			sum += (uintptr_t)map[i * psz];
	}
	t1 = ms_now_ns();
	*faults = ms_faults() - f0;
	munmap((void *)map, len);
	t2 = ms_now_ns();
	ms_sink = sum;
	*touch = ms_per_op(c, t0, t1, (double)pages);
	*unmap = ms_per_op(c, t1, t2, (double)pages);
	return 0;
}

/* Measure one file of @f->chunk-byte folios in @dir: 0 (done or left out, *why says which) or a
 * negative errno. */
static int ff_measure(struct ms_ctx *c, const char *dir, size_t len, struct ff_file *f, char *why, size_t cap)
{
	size_t psz = (size_t)sysconf(_SC_PAGESIZE), pages = len / psz, per = f->chunk / psz;
	int rc = 0, fd;
	char path[4096];
	void *buf = NULL;
	struct ms_budget b;

	f->n = 0;
	if (snprintf(path, sizeof(path), "%s/mmsim-measure.XXXXXX", dir) >= (int)sizeof(path)) {
		snprintf(why, cap, "TMPDIR %s is too long", dir);
		return 0;
	}
	fd = mkstemp(path);
	if (fd < 0) {
		snprintf(why, cap, "cannot create a file in %s: %s", dir, strerror(errno));
		return 0;
	}
	unlink(path);
	if (posix_memalign(&buf, f->chunk, f->chunk)) {
		close(fd);
		return -ENOMEM;
	}
	memset(buf, 1, f->chunk);
	for (size_t off = 0; off < len; off += f->chunk) {
		errno = 0;
		if (pwrite(fd, buf, f->chunk, (off_t)off) != (ssize_t)f->chunk) {
			snprintf(why, cap, "cannot write %zu MiB in %s: %s", len / MiB, dir,
				 errno ? strerror(errno) : "short write");
			goto out;
		}
	}
	ms_budget_init(&b, c, c->quick ? 4 : FF_MAX_PAIRS, c->quick ? 0.3 : 1.5);
	for (int round = -1; ms_budget_more(&b, f->n);) {
		double rt, ru, wt, wu;
		long rf, wf = 0;

		if ((rc = ff_pass(c, fd, len, 0, &rt, &ru, &rf)) || (rc = ff_pass(c, fd, len, 1, &wt, &wu, &wf)))
			break;
		/* one fault per folio, reading and writing alike (a few more where a pass starts) */
		if (rf < (long)(pages / per) || rf > (long)(pages / per) + 16 || wf < (long)(pages / per) ||
		    wf > (long)(pages / per) + 16) {
			snprintf(why, cap,
				 "a %zu MiB file written in %zu KiB pieces took %ld faults to read and %ld to write, "
				 "not one per %zu KiB folio (%zu): %s does not cache large folios here",
				 len / MiB, f->chunk >> 10, rf, wf, f->chunk >> 10, pages / per, dir);
			f->n = 0;
			break;
		}
		if (++round == 0)
			continue; /* the first pair warms the caches */
		f->s[FF_WRITE_LESS_READ][f->n] = wt - rt;
		f->s[FF_UNMAP_DIRTY][f->n] = wu - ru;
		f->s[FF_UNMAP_CLEAN][f->n] = ru;
		f->s[FF_READ][f->n++] = rt;
	}
out:
	close(fd);
	free(buf);
	return rc;
}

int ms_measure_file_folios(struct ms_ctx *c)
{
	const char *dir = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	size_t len = (c->quick ? 32 : 128) * MiB;
	struct ff_file f[] = {{.chunk = 2 * MiB}, {.chunk = 64 << 10}, {.chunk = 1 * MiB}};
	char why[512] = "", pmd[240], k64[240], m1[240];
	const struct {
		const char *q;
		const struct ff_file *f;
		enum ff_fig fig;
		const char *how;
	} out[] = {
	    {"mkwrite_pmd_page", &f[0], FF_WRITE_LESS_READ, pmd},
	    {"dirty_zap_pmd_page", &f[0], FF_UNMAP_DIRTY,
	     "munmap after the write pass less after the read pass per page; the same file: block_dirty_folio per "
	     "block and per folio / 512"},
	    {"mkwrite_64k_page", &f[1], FF_WRITE_LESS_READ, k64},
	    {"dirty_zap_64k_page", &f[1], FF_UNMAP_DIRTY,
	     "as dirty_zap_pmd_page on the 64 KiB folios: per block and per folio / 16"},
	    {"munmap_64k_pte", &f[1], FF_UNMAP_CLEAN,
	     "munmap after the read pass per page; the 64 KiB folios (PTE-mapped, clean): the batched zap per PTE and "
	     "per folio / 16"},
	    {"mkwrite_1m_page", &f[2], FF_WRITE_LESS_READ, m1},
	    {"dirty_zap_1m_page", &f[2], FF_UNMAP_DIRTY,
	     "as dirty_zap_pmd_page on the 1 MiB folios: per block and per folio / 256 (a check)"},
	    {"munmap_1m_pte", &f[2], FF_UNMAP_CLEAN,
	     "as munmap_64k_pte on the 1 MiB folios: per PTE and per folio / 256"},
	    {"read_64k_page", &f[1], FF_READ,
	     "the read pass per page (one byte read a page; a fault maps a folio whole) of the 64 KiB folios: the work "
	     "per page and per fault / 16"},
	    {"read_1m_page", &f[2], FF_READ,
	     "the read pass per page of the 1 MiB folios: the work per page and per fault / 256"},
	};
	int rc = 0;

	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]) && !rc && !*why; i++)
		rc = ff_measure(c, dir, len, &f[i], why, sizeof(why));
	if (rc || *why) {
		if (*why)
			fprintf(stderr, "mmsim-measure: the large-folio file figures are left out: %s\n", why);
		return rc;
	}
	snprintf(pmd, sizeof(pmd),
		 "write pass less read pass per page of a MAP_SHARED mapping of a %zu MiB file in %s written in 2 MiB "
		 "pieces (2 MiB folios; %zu faults each): ext4_page_mkwrite per block and per fault / 512",
		 len / MiB, dir, len / (2 * MiB));
	snprintf(
	    k64, sizeof(k64),
	    "as mkwrite_pmd_page on a %zu MiB file written in 64 KiB pieces (64 KiB folios; PTE-mapped; %zu faults "
	    "each): per block and per fault / 16",
	    len / MiB, len / (64 << 10));
	snprintf(m1, sizeof(m1),
		 "as mkwrite_pmd_page on a %zu MiB file written in 1 MiB pieces (1 MiB folios; PTE-mapped): per block "
		 "and per fault / 256 (a check of the two above)",
		 len / MiB);
	/* a difference of two passes beside other load can come out at or below 0: then none is kept */
	for (size_t i = 0; i < sizeof(out) / sizeof(out[0]); i++) {
		struct ms_stats st;

		ms_stats_of(out[i].f->s[out[i].fig], out[i].f->n, &st);
		if (!(st.median > 0)) {
			fprintf(stderr,
				"mmsim-measure: the large-folio file figures are left out: %s came out at %.4g ns, not "
				"above 0 (noise: other load on the machine?)\n",
				out[i].q, st.median);
			return 0;
		}
	}
	for (size_t i = 0; i < sizeof(out) / sizeof(out[0]) && !rc; i++)
		if (!ms_add(c, out[i].q, "ns", out[i].f->s[out[i].fig], out[i].f->n, "%s", out[i].how))
			rc = -ENOSPC;
	return rc;
}

/* ---- shmem: a new page-cache page at a write fault, and the hole punch that frees it ---- */

/*
 * Seed 003's memfd and MAP_SHARED anonymous cells fault shmem pages in and punch them out again.
 * A write fault on a hole of a MAP_SHARED memfd (shmem_fault -> shmem_get_folio_gfp: the folio
 * allocated, charged and cleared as an anonymous one is, and besides that the page-cache lookup and
 * insertion, the lruvec's file counters, the inode's and the overcommit accounting, then
 * finish_fault's file rmap and fault_dirty_shared_page) is timed per page against a write pass over
 * a MAP_PRIVATE|MAP_ANONYMOUS mapping of the same size just before it (THP off, munmaps untimed):
 * the difference is what shmem adds.  Then fallocate(PUNCH_HOLE) of the written file while still
 * mapped, per page: unmap_mapping_range's zap of each dirty PTE and shmem_undo_range's removal of
 * each folio from the page cache, its uncharge and free.  Each pass must take one fault per page;
 * where it does not (shmem_enabled giving huge pages to a memfd) or no memfd can be made, the figures
 * are left out and the reason printed.
 */
static int shm_pass(int fd, volatile char *anon, size_t len, size_t psz, uint64_t *t, long *faults)
{
	volatile char *map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	size_t pages = len / psz;
	long f0, f1;

	if (map == MAP_FAILED)
		return -errno;
	/* the fault counts read outside the timed passes */
	f0 = ms_faults();
	t[0] = ms_now_ns();
	for (size_t i = 0; i < pages; i++)
		anon[i * psz] = 1;
	t[1] = ms_now_ns();
	f1 = ms_faults();
	t[5] = ms_now_ns();
	for (size_t i = 0; i < pages; i++)
		map[i * psz] = 1;
	t[2] = ms_now_ns();
	faults[0] = f1 - f0;
	faults[1] = ms_faults() - f1;
	t[3] = ms_now_ns();
	if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, (off_t)len)) {
		int e = errno;

		munmap((void *)map, len);
		return -e;
	}
	t[4] = ms_now_ns();
	munmap((void *)map, len);
	return 0;
}

int ms_measure_shmem(struct ms_ctx *c)
{
	size_t psz = (size_t)sysconf(_SC_PAGESIZE);
	int pages = c->quick ? 256 : 1024, max = c->quick ? 10 : 60, n = 0, rc = 0, fd;
	size_t len = (size_t)pages * psz;
	double *extra = malloc((size_t)max * sizeof(*extra)), *punch = malloc((size_t)max * sizeof(*punch));
	char why[240] = "";
	struct ms_budget b;

	if (!extra || !punch) {
		free(extra);
		free(punch);
		return -ENOMEM;
	}
	if ((fd = memfd_create("mmsim-measure-shmem", 0)) < 0) {
		snprintf(why, sizeof(why), "memfd_create: %s", strerror(errno));
		goto out;
	}
	if (ftruncate(fd, (off_t)len)) {
		snprintf(why, sizeof(why), "ftruncate of a %zu KiB memfd: %s", len >> 10, strerror(errno));
		goto out;
	}
	ms_budget_init(&b, c, max, c->quick ? 0.15 : 1.0);
	for (int round = -1; ms_budget_more(&b, n);) {
		volatile char *anon = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		uint64_t t[6] = {0};
		long faults[2] = {0};
		int e;

		if (anon == MAP_FAILED) {
			rc = -errno;
			break;
		}
		/* refused without THP support: the fault count below says whether each page faulted */
		madvise((void *)anon, len, MADV_NOHUGEPAGE);
		e = shm_pass(fd, anon, len, psz, t, faults);
		munmap((void *)anon, len);
		if (e == -EOPNOTSUPP || e == -ENOSPC || e == -ENOMEM) {
			snprintf(why, sizeof(why), "a %zu KiB memfd could not be written and punched: %s", len >> 10,
				 strerror(-e));
			break;
		}
		if ((rc = e))
			break;
		if (faults[0] < pages || faults[0] > pages + 16 || faults[1] < pages || faults[1] > pages + 16) {
			snprintf(why, sizeof(why),
				 "%d-page passes took %ld faults (anonymous) and %ld (memfd), not one per page: huge "
				 "pages (shmem_enabled?)",
				 pages, faults[0], faults[1]);
			break;
		}
		if (++round == 0)
			continue; /* the first pass warms the caches and makes the page tables' slabs */
		extra[n] = ms_per_op(c, t[5], t[2], pages) - ms_per_op(c, t[0], t[1], pages);
		punch[n++] = ms_per_op(c, t[3], t[4], pages);
	}
	if (!rc && !*why) {
		struct ms_stats st;

		ms_stats_of(extra, n, &st);
		if (!(st.median > 0))
			snprintf(
			    why, sizeof(why),
			    "the memfd's write pass less the anonymous one came out at %.4g ns a page, not above 0 "
			    "(noise: other load on the machine?)",
			    st.median);
	}
	if (!rc && !*why &&
	    (!ms_add(c, "shmem_write_less_anon", "ns", extra, n,
		     "a write pass (a byte a page) over a %d-page MAP_SHARED memfd's holes less one over a fresh "
		     "anonymous mapping just before it (THP off); per page: what shmem adds to a new page (page-cache "
		     "lookup and insertion, file counters, inode and overcommit accounting, file rmap, dirtying)",
		     pages) ||
	     !ms_add(c, "shmem_punch_page", "ns", punch, n,
		     "fallocate(PUNCH_HOLE) of that memfd, written and still mapped; per page: unmap_mapping_range's "
		     "zap of the dirty PTE and shmem_undo_range's removal from the page cache, uncharge and free")))
		rc = -ENOSPC;
out:
	if (fd >= 0)
		close(fd);
	free(extra);
	free(punch);
	if (*why)
		fprintf(stderr, "mmsim-measure: the shmem figures are left out: %s\n", why);
	return rc;
}

/* ---- cold caches: what a page costs when its lines were evicted ------------------------ */

size_t ms_llc_bytes(void)
{
	size_t best = 0;

	/* the largest unified cache cpu0 sees (index3 on x86: the L3) */
	for (int i = 0; i < 8; i++) {
		char path[96], text[32];
		unsigned long v;
		FILE *f;

		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
		if (!(f = fopen(path, "r")))
			continue;
		if (fgets(text, sizeof(text), f) && sscanf(text, "%luK", &v) == 1 && v * 1024 > best)
			best = v * 1024;
		fclose(f);
	}
	return best;
}

static void evict(char *buf, size_t len)
{
	for (size_t i = 0; i < len; i += 64)
		((volatile char *)buf)[i]++;
}

/*
 * page_fault4's per-page work, warm and cold.  At scale the tasks' struct pages, page-cache nodes,
 * page tables and data lines no longer fit in the last-level cache, so each pass finds them
 * evicted; here a 32 MiB file fits and the fault_around_page / munmap_file_pte figures are warm.
 * Each sample maps the cached tmpfs file, reads one byte per page (faults, fault-around), reads
 * them again (no faults: the user's data line and the page walk), and munmaps; a cold sample
 * first writes through a buffer of twice the last-level cache before each of the three.  The
 * differences, in units of memory_latency, are the kernel profile's [misses].
 */
int ms_measure_cold(struct ms_ctx *c)
{
	size_t psz = (size_t)sysconf(_SC_PAGESIZE), llc = ms_llc_bytes(), elen;
	int pages = c->quick ? 2048 : 8192, max = c->quick ? 4 : 40, n[2] = {0, 0}, rc = 0, fd;
	size_t len = (size_t)pages * psz;
	char path[] = "/dev/shm/mmsim-measure.XXXXXX", *buf;
	double *v[2][3];
	struct ms_budget b;

	elen = llc ? 2 * llc : 512 * MiB;
	elen = elen < 64 * MiB ? 64 * MiB : elen > 1024 * MiB ? 1024 * MiB : elen;
	buf = malloc(elen);
	if (!buf)
		return 0; /* no room: the figures are left out */
	memset(buf, 1, elen);
	for (int k = 0; k < 6; k++)
		v[k / 3][k % 3] = malloc((size_t)max * sizeof(double));
	fd = mkstemp(path);
	if (fd >= 0) {
		unlink(path);
		if (posix_fallocate(fd, 0, (off_t)len)) {
			close(fd);
			fd = -1;
		}
	}
	for (int k = 0; k < 6; k++)
		if (!v[k / 3][k % 3])
			rc = -ENOMEM;
	if (fd < 0 || rc)
		goto out; /* no tmpfs here, or no room on it: the figures are left out */
	/* the warm samples first: a warm sample right after a cold one still finds its lines evicted */
	for (int cold = 0; cold < 2; cold++) {
		ms_budget_init(&b, c, max, c->quick ? 0.3 : cold ? 5.0 : 1.0);
		for (n[cold] = 0; ms_budget_more(&b, n[cold]); n[cold]++) {
			volatile char *map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
			uintptr_t sum = 0;
			uint64_t t[6];

			if (map == MAP_FAILED) {
				rc = -errno;
				goto out;
			}
			madvise((void *)map, len, MADV_NOHUGEPAGE);
			for (int pass = 0; pass < 2; pass++) {
				if (cold)
					evict(buf, elen);
				t[2 * pass] = ms_now_ns();
				for (int i = 0; i < pages; i++)
					sum += (uintptr_t)map[(size_t)i * psz];
				t[2 * pass + 1] = ms_now_ns();
			}
			ms_sink = sum;
			if (cold)
				evict(buf, elen);
			t[4] = ms_now_ns();
			munmap((void *)map, len);
			t[5] = ms_now_ns();
			for (int k = 0; k < 3; k++)
				v[cold][k][n[cold]] = ms_per_op(c, t[2 * k], t[2 * k + 1], pages);
		}
	}
	{
		static const char *const names[2][3] = {
		    {"cold_base_fault_around", "cold_base_reread", "cold_base_munmap"},
		    {"fault_around_page_cold", "reread_page_cold", "munmap_file_pte_cold"}};
		static const char *const what[3] = {"read of one byte per page (fault-around, 16 pages per fault)",
						    "second read of one byte per page, every page mapped (no fault)",
						    "munmap (nothing freed)"};

		for (int cold = 0; cold < 2 && !rc; cold++)
			for (int k = 0; k < 3 && !rc; k++)
				if (!ms_add(
					c, names[cold][k], "ns", v[cold][k], n[cold],
					"%s of a %d-page private mapping of a cached tmpfs file, THP off; per page; "
					"%s",
					what[k], pages,
					cold ? "the caches flushed first by writing a buffer of twice the last-level "
					       "cache"
					     : "caches warm (the same file and passes, no flush)"))
					rc = -ENOSPC;
	}
out:
	if (fd >= 0)
		close(fd);
	for (int k = 0; k < 6; k++)
		free(v[k / 3][k % 3]);
	free(buf);
	return rc;
}

/* ---- zeroing ------------------------------------------------------------------------ */

int ms_measure_zeroing(struct ms_ctx *c)
{
	enum { PAGES = 64 };
	size_t big = 2 * MiB;
	int max = c->quick ? 100 : 1000, n, rc = 0;
	double *v = malloc((size_t)max * sizeof(*v));
	char *buf = aligned_alloc(big, big);
	struct ms_budget b;

	if (!v || !buf) {
		rc = -ENOMEM;
		goto out;
	}
	ms_memset(buf, 1, big); /* fault it in first: zeroing, not faulting, is timed */
	ms_budget_init(&b, c, max, c->quick ? 0.02 : 0.15);
	for (n = 0; ms_budget_more(&b, n); n++) {
		uint64_t t0 = ms_now_ns(), t1;

		for (int p = 0; p < PAGES; p++)
			ms_memset(buf + (size_t)p * 4096, 0, 4096);
		t1 = ms_now_ns();
		v[n] = ms_per_op(c, t0, t1, PAGES);
	}
	if (!ms_add(c, "zero_4k", "ns", v, n,
		    "user-space memset of a 4 KiB page; %d pages of a %d KiB buffer already faulted in (warm in "
		    "cache) per sample; per page",
		    PAGES, PAGES * 4)) {
		rc = -ENOSPC;
		goto out;
	}
	ms_budget_init(&b, c, max, c->quick ? 0.03 : 0.2);
	for (n = 0; ms_budget_more(&b, n); n++) {
		uint64_t t0 = ms_now_ns(), t1;

		ms_memset(buf, 0, big);
		t1 = ms_now_ns();
		v[n] = ms_per_op(c, t0, t1, 1);
	}
	if (!ms_add(c, "zero_2m", "ns", v, n,
		    "user-space memset of a 2 MiB region already faulted in (reused: as warm as the caches "
		    "allow); per region"))
		rc = -ENOSPC;
out:
	free(buf);
	free(v);
	return rc;
}

/* ---- DRAM latency and bandwidth ----------------------------------------------------- */

static void *big_alloc(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	/* huge pages where the kernel allows: DRAM, not the TLB, should be measured */
	madvise(p, len, MADV_HUGEPAGE);
	return p;
}

static void flush_line(void *p)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_clflush(p);
#elif defined(__aarch64__)
	__asm__ volatile("dc civac, %0" ::"r"(p) : "memory");
#else
	(void)p; /* no flush: the buffer's size (>> L3) must do */
#endif
}

/* A bijection of [0, 2^bits): multiplications by odd numbers and xor-shifts. */
static uint64_t mix(uint64_t x, int bits)
{
	uint64_t mask = (bits == 64 ? ~0ull : (1ull << bits) - 1);
	int s = bits / 2 > 0 ? bits / 2 : 1;

	x = (x * 0x9e3779b97f4a7c15ull) & mask;
	x ^= x >> s;
	x = (x * 0xbf58476d1ce4e5b9ull) & mask;
	x ^= x >> s;
	x = (x * 0x94d049bb133111ebull) & mask;
	x ^= x >> s;
	return x;
}

/* The k-th slot of a random walk over @nslots slots without repeats (cycle-walking the bijection). */
static uint64_t walk_slot(uint64_t k, uint64_t nslots, int bits)
{
	uint64_t x = k;

	do
		x = mix(x, bits);
	while (x >= nslots);
	return x;
}

/* Link @hops lines, at random among the @nslots lines of @buf and none twice, into one cycle of
 * pointers (each line holds the next one's address); the first line. */
static char *chase_cycle(char *buf, uint64_t nslots, uint64_t hops)
{
	char *first, *p;
	int bits = 1;

	while ((1ull << bits) < nslots)
		bits++;
	first = buf + walk_slot(0, nslots, bits) * MS_LINE;
	p = first;
	for (uint64_t k = 1; k <= hops; k++) {
		char *next = k < hops ? buf + walk_slot(k, nslots, bits) * MS_LINE : first;

		*(char **)(void *)p = next;
		p = next;
	}
	return first;
}

static int mem_latency(struct ms_ctx *c, char *buf, size_t len)
{
	int hops = c->quick ? 1024 : 4096, max = c->quick ? 30 : 300, n;
	uint64_t nslots = len / MS_LINE, hops_total = (uint64_t)hops * (uint64_t)max + 1;
	double *v = malloc((size_t)max * sizeof(*v));
	struct ms_budget b;
	char *first, *p;

	if (!v)
		return -ENOMEM;
	if (hops_total > nslots)
		hops_total = nslots;
	/*
	 * One random cycle through hops_total distinct lines spread over the
	 * whole buffer, then every one of them flushed from the caches: each
	 * hop of the chase is a load from DRAM whose address depends on the
	 * previous one.
	 */
	first = chase_cycle(buf, nslots, hops_total);
	p = first;
	for (uint64_t k = 0; k < hops_total; k++) {
		char *next = *(char **)(void *)p;

		flush_line(p);
		p = next;
	}
	atomic_thread_fence(memory_order_seq_cst);
	p = first;
	ms_budget_init(&b, c, max, c->quick ? 0.05 : 0.4);
	for (n = 0; ms_budget_more(&b, n); n++) {
		uint64_t t0 = ms_now_ns(), t1;

		for (int i = 0; i < hops; i++)
			p = *(char *volatile *)(void *)p;
		t1 = ms_now_ns();
		v[n] = ms_per_op(c, t0, t1, hops);
	}
	ms_sink = (uintptr_t)p;
	n = ms_add(c, "memory_latency", "ns", v, n,
		   "pointer chase through %llu distinct lines at random over a %zu MiB buffer (huge pages "
		   "advised); every line flushed from the caches first; %d dependent loads per sample",
		   (unsigned long long)hops_total, len / MiB, hops)
		? 0
		: -ENOSPC;
	free(v);
	return n;
}

/* ---- the cache this CPU gets ---------------------------------------------------------- */

/*
 * A dependent-load chase's latency over a working set of the first @len bytes of @buf: a random
 * cycle through every line of it, one lap (or a million loads) to bring it in, then five timed
 * chunks, of which the median is taken (a preempted chunk is not the cache's figure).
 */
static double chase_latency(const struct ms_ctx *c, char *buf, size_t len, uint64_t max_loads)
{
	uint64_t nslots = len / MS_LINE, loads = nslots < max_loads ? nslots : max_loads;
	double chunk[5];
	char *p = chase_cycle(buf, nslots, nslots);

	if (loads < 100000)
		loads = 100000;
	for (uint64_t i = 0; i < loads; i++)
		p = *(char *volatile *)(void *)p;
	for (int k = 0; k < 5; k++) {
		uint64_t t0 = ms_now_ns(), t1;

		for (uint64_t i = 0; i < loads / 5; i++)
			p = *(char *volatile *)(void *)p;
		t1 = ms_now_ns();
		chunk[k] = ms_per_op(c, t0, t1, (double)(loads / 5));
	}
	ms_sink = (uintptr_t)p;
	{
		struct ms_stats st;

		ms_stats_of(chunk, 5, &st);
		return st.median;
	}
}

/*
 * The last-level cache's capacity as this CPU gets it.  sysfs lists the hardware's L3; a guest
 * shares its host's L3 with the other guests there, and on the development VMs a chase leaves the
 * cache at 1 to 11 MiB of the 32 MiB listed, the point moving from one minute to the next.  Each
 * sample is one sweep of working sets from 1 MiB to four times the listed L3 (at most 1 GiB and a
 * quarter of RAM), 2^(1/4) apart (2^(1/2) with --quick); its figure is the size where the latency
 * passes the geometric mean of the smallest sets' and the largest sets' (ms_cache_knee: about a
 * quarter of the loads missing; the arithmetic mean moved with DRAM's latency, which the other
 * guests move between 130 and 300 ns here).  A sweep without a step gives no sample; without any
 * the figure is left out.  The profile lists it; llc_mib stays sysfs's (measure_main.c).
 */
int ms_measure_llc(struct ms_ctx *c)
{
	size_t listed = c->l3_bytes ? c->l3_bytes : ms_llc_bytes(), top = listed ? 4 * listed : 256 * MiB;
	int steps = c->quick ? 2 : 4, max = c->quick ? 1 : 7, nsz = 0, m = 0, n, rc = 0;
	uint64_t max_loads = c->quick ? 250000 : 1000000;
	double size[80], lat[80], knee[8];
	struct ms_budget b;
	char *buf;

	if (top > 1024 * MiB)
		top = 1024 * MiB;
	if (top > c->ram_bytes / 4)
		top = c->ram_bytes / 4;
	for (int k = 0; k < 80; k++) {
		double s = (double)MiB * pow(2.0, (double)k / steps);

		if (s > (double)top)
			break;
		size[nsz++] = s;
	}
	if (nsz < 3)
		return 0; /* no room for a sweep: the figure is left out */
	buf = big_alloc(top);
	if (!buf)
		return 0;
	ms_memset(buf, 1, top);
	ms_budget_init(&b, c, max, c->quick ? 2.0 : 30.0);
	for (n = 0; ms_budget_more(&b, n); n++) {
		double k;

		for (int i = 0; i < nsz; i++)
			lat[i] = chase_latency(c, buf, (size_t)size[i] / MS_LINE * MS_LINE, max_loads);
		k = ms_cache_knee(size, lat, nsz);
		if (k > 0)
			knee[m++] = k / (double)MiB;
	}
	if (m && !ms_add(c, "llc_capacity", "MiB", knee, m,
			 "a dependent-load chase over a random cycle through every line of working sets of 1 to "
			 "%zu MiB (huge pages advised; %d sizes an octave); per sweep the size where its latency "
			 "passes the geometric mean of the smallest and the largest sets'; %d of %d sweeps showed "
			 "it; sysfs lists %zu KiB",
			 top / MiB, steps, m, n, listed / 1024))
		rc = -ENOSPC;
	munmap(buf, top);
	return rc;
}

struct bw_worker {
	struct ms_ctx *c;
	pthread_barrier_t *bar;
	atomic_int *gate; /* 0: wait, 1: go, -1: give up (not every thread started) */
	size_t len;
	int rounds;
	int failed;
	uint64_t t0[16], t1[16];
};

static void *bw_run(void *arg)
{
	struct bw_worker *w = arg;
	char *buf;
	int g;

	while (!(g = atomic_load(w->gate)))
		ms_relax();
	if (g < 0)
		return NULL;
	buf = big_alloc(w->len); /* first touch by this thread: memory of its own node */
	w->failed = !buf;
	if (buf)
		ms_memset(buf, 1, w->len);
	for (int r = 0; r < w->rounds; r++) {
		pthread_barrier_wait(w->bar);
		w->t0[r] = ms_now_ns();
		if (buf)
			ms_memset(buf, 0, w->len);
		w->t1[r] = ms_now_ns();
	}
	if (buf)
		munmap(buf, w->len);
	return NULL;
}

static int bw_all(struct ms_ctx *c, size_t each)
{
	int ncpu = c->topo.ncpus, rounds = c->quick ? 3 : 8, rc = 0, started = 0;
	struct bw_worker *w = calloc((size_t)ncpu, sizeof(*w));
	struct ms_thread *th = calloc((size_t)ncpu, sizeof(*th));
	pthread_barrier_t bar;
	atomic_int gate = 0;
	double v[16];

	if (!w || !th) {
		free(w);
		free(th);
		return -ENOMEM;
	}
	pthread_barrier_init(&bar, NULL, (unsigned)ncpu);
	for (int i = 0; i < ncpu; i++) {
		w[i] = (struct bw_worker){.c = c, .bar = &bar, .gate = &gate, .len = each, .rounds = rounds};
		rc = ms_spawn(&th[i], c, i, bw_run, &w[i]);
		if (rc)
			break;
		started++;
	}
	/* the barrier needs every thread: if one did not start, the others give up before it */
	atomic_store(&gate, rc ? -1 : 1);
	for (int i = 0; i < started; i++)
		ms_join(&th[i]);
	pthread_barrier_destroy(&bar);
	for (int i = 0; i < started && !rc; i++)
		if (w[i].failed)
			rc = -ENOMEM;
	for (int r = 0; r < rounds && !rc; r++) {
		uint64_t lo = w[0].t0[r], hi = w[0].t1[r];

		for (int i = 1; i < ncpu; i++) {
			lo = w[i].t0[r] < lo ? w[i].t0[r] : lo;
			hi = w[i].t1[r] > hi ? w[i].t1[r] : hi;
		}
		v[r] = 1.0 / ms_per_op(c, lo, hi, (double)each * ncpu);
	}
	if (!rc && !ms_add(c, "bw_all", "GB/s", v, rounds,
			   "all %d CPUs at once: each memsets its own %zu MiB buffer (first touched by itself; huge "
			   "pages advised) between two barriers; bytes of all / (last end - first start) per round",
			   ncpu, each / MiB))
		rc = -ENOSPC;
	free(w);
	free(th);
	return rc;
}

/*
 * Clearing a page as the kernel's clear_page does it (x86: rep stosb, X86_FEATURE_ERMS's
 * clear_page_erms; elsewhere memset), 4 KiB at a time, through a buffer already faulted in and
 * far larger than the last-level cache, so that every line comes from memory: GB/s per pass.
 */
static void clear_4k(char *p)
{
#if defined(__x86_64__)
	size_t n = 4096;

	__asm__ volatile("rep stosb" : "+D"(p), "+c"(n) : "a"(0) : "memory");
#else
	ms_memset(p, 0, 4096);
#endif
}

static int clear_user(struct ms_ctx *c, char *buf, size_t len)
{
	int max = c->quick ? 3 : 10, n;
	double v[10];
	struct ms_budget b;

	ms_budget_init(&b, c, max, c->quick ? 0.3 : 2.0);
	for (n = 0; ms_budget_more(&b, n); n++) {
		uint64_t t0 = ms_now_ns(), t1;

		for (size_t o = 0; o < len; o += 4096)
			clear_4k(buf + o);
		t1 = ms_now_ns();
		v[n] = 1.0 / ms_per_op(c, t0, t1, (double)len);
	}
	return ms_add(c, "clear_user", "GB/s", v, n,
		      "one CPU clears a %zu MiB buffer already faulted in, 4 KiB at a time as clear_page does ("
#if defined(__x86_64__)
		      "rep stosb"
#else
		      "memset"
#endif
		      "); bytes per ns per pass",
		      len / MiB)
		   ? 0
		   : -ENOSPC;
}

/* AnonHugePages of this process (smaps_rollup), in bytes; 0 when unreadable. */
static size_t anon_huge_bytes(void)
{
	FILE *f = fopen("/proc/self/smaps_rollup", "r");
	char line[256];
	unsigned long long kb = 0;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "AnonHugePages: %llu kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return (size_t)kb * 1024;
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

/*
 * The kernel clearing new pages, which is what a scenario's memory step stands for: a region of
 * @len advised MADV_HUGEPAGE is mapped, populated with MADV_POPULATE_WRITE and unmapped, each
 * pass; each 2 MiB is one THP taken from the buddy allocator, cleared (clear_huge_page ->
 * clear_page per 4 KiB) and mapped by one PMD, so the clearing is nearly all of the time (a few
 * us of the 100-200 us per THP go to the allocation, the memcg charge and the PMD).  The pages
 * of a pass are the ones the previous pass freed: the first pass is not kept (a guest's first
 * touch of memory the host took back is the host's work).  Leaves the figure out, saying why on
 * stderr, when MADV_POPULATE_WRITE is missing (before Linux 5.14) or the region did not get huge
 * pages (transparent_hugepage/enabled = never, or no free 2 MiB blocks).
 */
static int clear_kernel(struct ms_ctx *c, size_t len)
{
	int max = c->quick ? 3 : 10, n;
	double v[11];
	struct ms_budget b;

	ms_budget_init(&b, c, max + 1, c->quick ? 0.3 : 2.0);
	for (n = 0; ms_budget_more(&b, n); n++) {
		char *p = mmap(NULL, len + 2 * MiB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		char *a;
		uint64_t t0, t1;
		size_t huge;
		int e;

		if (p == MAP_FAILED)
			return -errno;
		a = (char *)(((uintptr_t)p + 2 * MiB - 1) & ~(uintptr_t)(2 * MiB - 1));
		madvise(a, len, MADV_HUGEPAGE);
		t0 = ms_now_ns();
		e = madvise(a, len, MADV_POPULATE_WRITE) ? errno : 0;
		t1 = ms_now_ns();
		huge = e ? 0 : anon_huge_bytes();
		munmap(p, len + 2 * MiB);
		if (e || huge < len / 2) {
			fprintf(stderr, "mmsim-measure: clear_kernel left out: %s\n",
				e == EINVAL ? "MADV_POPULATE_WRITE is not supported (Linux 5.14+)"
				: e	    ? strerror(e)
					    : "the region did not get transparent huge pages (enabled = never?)");
			return 0;
		}
		v[n] = 1.0 / ms_per_op(c, t0, t1, (double)len);
	}
	if (n < 2) {
		fprintf(stderr, "mmsim-measure: clear_kernel left out: no time for a pass after the first\n");
		return 0;
	}
	return ms_add(c, "clear_kernel", "GB/s", v + 1, n - 1,
		      "one CPU's kernel clears new 2 MiB pages: MADV_POPULATE_WRITE of a fresh %zu MiB region "
		      "advised MADV_HUGEPAGE, unmapped after each pass (the first pass not kept); bytes per ns "
		      "per pass, the THPs' allocation and PMDs included",
		      len / MiB)
		   ? 0
		   : -ENOSPC;
}

int ms_measure_memory(struct ms_ctx *c)
{
	size_t quarter = c->ram_bytes / 4, single, each, align = 2 * MiB;
	int ncpu = c->topo.ncpus, max = c->quick ? 3 : 10, n, rc;
	double v[10];
	struct ms_budget b;
	char *buf;

	/* >> L3: at least 256 MiB and twice the largest L3; never more than a quarter of RAM in all */
	single = c->quick ? 64 * MiB : 256 * MiB;
	if (!c->quick && 2 * c->l3_bytes > single)
		single = 2 * c->l3_bytes;
	each = single;
	if (!c->quick) {
		size_t l3_all = c->l3_bytes * (size_t)(c->topo.nl3 > 0 ? c->topo.nl3 : 1);

		each = 2 * l3_all / (size_t)ncpu > 256 * MiB ? 2 * l3_all / (size_t)ncpu : 256 * MiB;
	}
	if (single > quarter)
		single = quarter;
	if (each > quarter / (size_t)ncpu)
		each = quarter / (size_t)ncpu;
	single -= single % align;
	each -= each % align;
	if (single < align || each < align)
		return -ENOMEM;

	buf = big_alloc(single);
	if (!buf)
		return -ENOMEM;
	ms_memset(buf, 1, single); /* fault in: the first touch is not bandwidth */
	rc = mem_latency(c, buf, single);
	if (rc)
		goto out;
	ms_budget_init(&b, c, max, c->quick ? 0.3 : 2.0);
	for (n = 0; ms_budget_more(&b, n); n++) {
		uint64_t t0 = ms_now_ns(), t1;

		ms_memset(buf, 0, single);
		t1 = ms_now_ns();
		v[n] = 1.0 / ms_per_op(c, t0, t1, (double)single);
	}
	if (!ms_add(c, "bw_task", "GB/s", v, n,
		    "one CPU memsets a %zu MiB buffer already faulted in (huge pages advised); bytes per ns per "
		    "pass",
		    single / MiB)) {
		rc = -ENOSPC;
		goto out;
	}
	if ((rc = clear_user(c, buf, single)))
		goto out;
	munmap(buf, single);
	buf = NULL;
	if ((rc = clear_kernel(c, single)))
		return rc;
out:
	if (buf)
		munmap(buf, single);
	return rc ? rc : bw_all(c, each);
}
