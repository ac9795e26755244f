/* SPDX-License-Identifier: MIT */
/*
 * Per-operation counts of every shipped scenario variant, compiled against
 * its own kernel profile: user faults, acquisitions of the lock that matters,
 * TLB-shootdown steps and bytes cleared or copied.  The expected numbers are
 * worked out by hand from ../shared/reference/codepaths.md and the tests'
 * definitions of one operation (willitscale.md), not read back from the
 * scenario files: a scenario that takes a lock once too often fails here.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "profile.h"
#include "scenario.h"

/* page_fault: a 128 MiB mapping is P pages, remapped once per P ops; its zap flushes every B PTEs */
#define P 32768.0
#define TLB_B 10000.0
/* populate: a 64 MiB mapping per op, N pages or T THPs */
#define N 16384.0
#define T 32.0
#define PG 4096.0
/* madv_populate (seed 003): a region of SP pages or SH 2 MiB pages, prefaulted SR times; round 1
 * allocates its SP / 512 PTE pages */
#define SP 32768.0
#define SH 64.0
#define SR 10.0
#define SPT (SP / 512 * PG)
#define HUGE 2097152.0
/* seed 003's TLB flushes per op (6.18 and 5.11 alike): ten discards, each zapping the region (the
 * first, which zaps nothing, stands for the munmap's).  A dirty shmem page flushes at the end of its
 * PTE table (SP / 512 a round); other pages wait in the mmu_gather batch, flushed every TLB_B pages
 * and at tlb_finish_mmu; zero-page PTEs only at tlb_finish_mmu; a private memfd's COW copies are not
 * unmapped by its hole punch.  Every COW flushes its page; a hugetlb hole punch flushes once. */

struct want {
	const char *variant;
	const char *lock;
	double faults, read, write, blocking, ipis, bytes;
};

/* The munmap of page_fault's cycle: ceil-free count of flush steps (every B PTEs) plus the final one. */
#define PF_IPIS ((P / TLB_B + 1) / P)
/* page_fault3 unmaps dirty shared file pages: one flush per PTE table (force_flush), plus the last */
#define PF3_IPIS ((P / 512 + 1) / P)

static const struct want wants[] = {
    /* page_fault1: one fault per page, trylock of mmap_lock; remap: munmap and mmap take it for write */
    {"page_fault1_mmap_lock", "mm.mmap_lock", 1, 1, 2 / P, 2 / P, PF_IPIS, PG + PG / 512},
    /* per-VMA lock (vma_start_read is a 'lock' step: blocking counts it), and the first fault of each mapping takes
       mmap_lock for anon_vma_prepare */
    /* the threads' merged VMA: read by every fault, write-locked by the munmap's split and the
     * mmap's merge; a fault that finds it write-locked falls back to mmap_lock (not a static
     * count: the simulation decides) */
    {"page_fault1_vma_lock", "vma_merged.lock", 1, 1, 2 / P, 1 + 2 / P, PF_IPIS, PG + PG / 512},
    {"page_fault1_vma_lock", "mm.mmap_lock", 1, 1 / P, 2 / P, 2 / P, PF_IPIS, PG + PG / 512},
    /* anonymous mTHP of 16 pages (linux-6.8's mthp_pages): one fault per folio maps it whole, the merged
       VMA's lock as page_fault1_vma_lock's; per folio zone->lock, the lruvec lock and the deferred split
       queue's lock are each taken twice, at the fault (or the zap's first page) and at the free; every
       page is cleared */
    {"page_fault1_mthp", "vma_merged.lock", 1 / 16.0, 1 / 16.0, 2 / P, 1 / 16.0 + 2 / P, PF_IPIS, PG + PG / 512},
    {"page_fault1_mthp", "mm.mmap_lock", 1 / 16.0, 1 / P, 2 / P, 2 / P, PF_IPIS, PG + PG / 512},
    {"page_fault1_mthp", "zone.lock", 1 / 16.0, 0, 2 / 16.0, 2 / 16.0, PF_IPIS, PG + PG / 512},
    {"page_fault1_mthp", "lru.lock", 1 / 16.0, 0, 2 / 16.0, 2 / 16.0, PF_IPIS, PG + PG / 512},
    {"page_fault1_mthp", "deferred_split", 1 / 16.0, 0, 2 / 16.0, 2 / 16.0, PF_IPIS, PG + PG / 512},
    /* page_fault2/3 before 6.8: the VMA lock is tried, the fault retries under mmap_lock */
    {"page_fault2_mmap_lock", "vma.lock", 1, 1, 1 / P, 1 + 1 / P, PF_IPIS, 2 * PG + PG / 512},
    {"page_fault2_mmap_lock", "mm.mmap_lock", 1, 1, 2 / P, 2 / P, PF_IPIS, 2 * PG + PG / 512},
    /* 6.8: the first COW fault of a mapping takes mmap_read_trylock for its anon_vma */
    {"page_fault2_vma_lock", "mm.mmap_lock", 1, 1 / P, 2 / P, 2 / P, PF_IPIS, 2 * PG + PG / 512},
    {"page_fault3_mmap_lock", "mm.mmap_lock", 1, 1, 2 / P, 2 / P, PF3_IPIS, PG / 512},
    {"page_fault3_vma_lock", "vma.lock", 1, 1, 1 / P, 1 + 1 / P, PF3_IPIS, PG / 512},
    /* 5.x-6.3: no VMA lock at all, the fault under mmap_lock (and no vma_start_write at munmap) */
    {"page_fault2_5x", "mm.mmap_lock", 1, 1, 2 / P, 2 / P, PF_IPIS, 2 * PG + PG / 512},
    {"page_fault3_5x", "mm.mmap_lock", 1, 1, 2 / P, 2 / P, PF3_IPIS, PG / 512},
    /* 6.16: the same locks as page_fault3_vma_lock; only the prefetchw is gone */
    {"page_fault3_noprefetch", "vma.lock", 1, 1, 1 / P, 1 + 1 / P, PF3_IPIS, PG / 512},
    /* page_fault4: fault-around maps 16 pages per fault; one PTE lock per fault */
    {"page_fault4_mmap_lock", "mm.mmap_lock", 1 / 16.0, 1 / 16.0, 2 / P, 2 / P, PF_IPIS, PG / 512},
    {"page_fault4_mmap_lock", "pte_lock", 1 / 16.0, 0, 1 / 16.0, 1 / 16.0, PF_IPIS, PG / 512},
    {"page_fault4_vma_lock", "mm.mmap_lock", 1 / 16.0, 0, 2 / P, 2 / P, PF_IPIS, PG / 512},
    {"page_fault4_vma_lock", "vma.lock", 1 / 16.0, 1 / 16.0, 1 / P, 1 / 16.0 + 1 / P, PF_IPIS, PG / 512},
    /* a file in large folios (the _ext4 variants) under their own profiles' readahead window of 32 pages
       (128 KiB): 32 pages each of orders 0, 2 and 4, then 1021 folios of order 5 (32 pages), none
       PMD-sized, every page PTE-mapped.  6.18 maps a folio whole: 32 + 8 + 2 + 1021 = 1063 write faults
       a pass, and 2 + 2 + 2 + 1021 = 1027 read faults (a 16-page window, or a larger folio); 6.16-6.17
       a page per write fault and a window per read fault, as the 4 KiB-folio variants */
    {"page_fault3_ext4", "vma.lock", 1063 / P, 1063 / P, 1 / P, 1064 / P, PF3_IPIS, PG / 512},
    {"page_fault3_ext4", "mm.mmap_lock", 1063 / P, 0, 2 / P, 2 / P, PF3_IPIS, PG / 512},
    {"page_fault3_ext4_616", "vma.lock", 1, 1, 1 / P, 1 + 1 / P, PF3_IPIS, PG / 512},
    {"page_fault4_ext4", "vma.lock", 1027 / P, 1027 / P, 1 / P, 1028 / P, PF_IPIS, PG / 512},
    {"page_fault4_ext4_616", "vma.lock", 1 / 16.0, 1 / 16.0, 1 / P, 1 / 16.0 + 1 / P, PF_IPIS, PG / 512},
    /* mmap1/2: mmap and munmap each take mmap_lock for write; nothing faults or is flushed */
    {"mmap1", "mm.mmap_lock", 0, 0, 2, 2, 0, 0},
    {"mmap2", "file.i_mmap_rwsem", 0, 0, 2, 2, 0, 0},
    /* populate, 3.x: THP on, one fault per 2 MiB; MAP_POPULATE follows every 4 KiB (page_table_lock
     * at each follow and at each THP install) until the 3.9 THP step */
    {"populate_none", "mm.mmap_lock", 0, 0, 1, 1, 0, 0},
    {"populate_loop", "mm.mmap_lock", T, T, 1, 1, 0, 64 * 1048576.0},
    {"populate_loop", "mm.page_table_lock", T, 0, T, T, 0, 64 * 1048576.0},
    /* 6.8: one THP write fault per 2 MiB under the per-VMA lock, the PMD set under the PMD lock;
     * the anon_vma trylock once per task's 10 merged regions; mmap and the harness's madvise take
     * mmap_lock for write, and the madvise's merge write-locks the merged VMA */
    {"populate_loop_vma", "mm.mmap_lock", T, 0.1, 2, 2, 0, 64 * 1048576.0},
    {"populate_loop_vma", "vma_merged.lock", T, T, 1, T + 1, 0, 64 * 1048576.0},
    {"populate_none_nothp", "mm.mmap_lock", 0, 0, 2, 2, 0, 0},
    {"populate_none_nothp", "vma_merged.lock", 0, 0, 1, 1, 0, 0},
    {"populate_loop_vma", "pmd_lock", T, 0, T, T, 0, 64 * 1048576.0},
    {"populate_mmap_write_locked", "mm.page_table_lock", 0, 0, T * 512, T * 512, 0, 64 * 1048576.0},
    {"populate_mmap_read_4k", "mm.mmap_lock", 0, 1, 1, 2, 0, 64 * 1048576.0},
    {"populate_mmap_read_4k", "mm.page_table_lock", 0, 0, T * 512, T * 512, 0, 64 * 1048576.0},
    {"populate_mmap_thp_step", "mm.page_table_lock", 0, 0, 2 * T, 2 * T, 0, 64 * 1048576.0},
    /* 6.8: MADV_POPULATE_* under mmap_lock read, THP on: one PMD-lock round at the install (or the
     * huge zero page) and one at follow_huge_pmd per 2 MiB */
    {"populate_madv_populate_write", "mm.mmap_lock", 0, 1, 2, 3, 0, 64 * 1048576.0},
    {"populate_madv_populate_write", "pmd_lock", 0, 0, 2 * T, 2 * T, 0, 64 * 1048576.0},
    {"populate_madv_populate_read", "pmd_lock", 0, 0, 2 * T, 2 * T, 0, 0},
    /* 6.8, THP off: one fault per 4 KiB under the per-VMA lock, the first under mmap_lock */
    {"populate_loop_nothp", "vma_merged.lock", N, N, 1, N + 1, 0, (N + N / 512) * PG},
    /* the anon_vma trylock: the first of a task's 10 merged regions only */
    {"populate_loop_nothp", "mm.mmap_lock", N, 0.1, 2, 2, 0, (N + N / 512) * PG},
    {"populate_read_nothp", "pte_lock", N, 0, N, N, 0, N / 512 * PG},
    /* GUP per 4 KiB: follow_page_pte misses under the PTE lock, the fault, follow_page_pte again */
    {"populate_mmap_nothp", "pte_lock", 0, 0, 3 * N, 3 * N, 0, (N + N / 512) * PG},
    {"populate_madv_populate_write_nothp", "pte_lock", 0, 0, 3 * N, 3 * N, 0, (N + N / 512) * PG},
    {"populate_madv_populate_read_nothp", "pte_lock", 0, 0, 3 * N, 3 * N, 0, N / 512 * PG},
    {"populate_madv_populate_read_nothp", "mm.mmap_lock", 0, 1, 2, 3, 0, N / 512 * PG},
    /* MAP_POPULATE: no madvise before it can run */
    {"populate_mmap_nothp", "mm.mmap_lock", 0, 1, 1, 2, 0, (N + N / 512) * PG},
    /* 6.8 anonymous mTHP of 16 pages, no madvise: the mmap's merge write-locks the merged VMA.  The
     * loop faults once per folio under the merged VMA's lock; GUP follows every page under the PTE
     * lock (a miss, the fault's PTE lock round and a follow at a folio's first page, one follow at
     * each other page: 18 per folio).  Per folio zone->lock once, the lruvec lock at the fault and,
     * through GUP's second folio_mark_accessed, at the activation; every page is cleared */
    {"populate_loop_mthp", "vma_merged.lock", N / 16, N / 16, 1, N / 16 + 1, 0, (N + N / 512) * PG},
    {"populate_loop_mthp", "mm.mmap_lock", N / 16, 0.1, 1, 1, 0, (N + N / 512) * PG},
    {"populate_loop_mthp", "zone.lock", N / 16, 0, N / 16, N / 16, 0, (N + N / 512) * PG},
    {"populate_loop_mthp", "lru.lock", N / 16, 0, N / 16, N / 16, 0, (N + N / 512) * PG},
    {"populate_mmap_mthp", "mm.mmap_lock", 0, 1, 1, 2, 0, (N + N / 512) * PG},
    {"populate_mmap_mthp", "pte_lock", 0, 0, 18 * N / 16, 18 * N / 16, 0, (N + N / 512) * PG},
    {"populate_mmap_mthp", "lru.lock", 0, 0, 2 * N / 16, 2 * N / 16, 0, (N + N / 512) * PG},
    {"populate_madv_populate_write_mthp", "mm.mmap_lock", 0, 1, 1, 2, 0, (N + N / 512) * PG},
    {"populate_madv_populate_write_mthp", "zone.lock", 0, 0, N / 16, N / 16, 0, (N + N / 512) * PG},
    {"populate_madv_populate_write_mthp", "lru.lock", 0, 0, 2 * N / 16, 2 * N / 16, 0, (N + N / 512) * PG},
    /* pft: one first-touch anonymous fault per op; a zeroed PTE table every 512; no munmap, no flush */
    {"pft_mmap_lock", "mm.mmap_lock", 1, 1, 0, 0, 0, PG + PG / 512},
    {"pft_mmap_lock", "pte_lock", 1, 0, 1, 1, 0, PG + PG / 512},
    {"pft_mmap_lock", "pmd_lock", 1, 0, 1 / 512.0, 1 / 512.0, 0, PG + PG / 512},
    /* per-VMA locks v2: down_read_trylock of the VMA's embedded rwsem (a trylock: not blocking) */
    {"pft_vma_lock", "vma.vm_lock", 1, 1, 0, 0, 0, PG + PG / 512},
    {"pft_vma_lock", "mm.mmap_lock", 1, 0, 0, 0, 0, PG + PG / 512},
    /* locktest: one lock+unlock per op, nothing faults; mixed: half the tasks read */
    {"locktest_writers", "locktest.rwsem", 0, 0, 1, 1, 0, 0},
    {"locktest_mixed", "locktest.rwsem", 0, 0.5, 0.5, 1, 0, 0},
    /* brk: one op = two brk calls; each takes mmap_lock for write, the shrink downgrades */
    {"brk1", "mm.mmap_lock", 0, 0, 2, 2, 0, 0},
    {"brk1_threads", "mm.mmap_lock", 0, 0, 2, 2, 0, 0},
    /* real grow (1/2): __vma_adjust; real shrink (1/2): anon_vma_clone, __vma_adjust, unlink_anon_vmas */
    {"brk1_threads", "anon_vma.rwsem", 0, 0, 2, 2, 0, 0},
    {"brk2", "mm.mmap_lock", 0, 0, 2, 2, 0, 0},
    /* vma_start_write: the expanded VMA, then both halves of the split */
    {"brk2", "vma.lock", 0, 0, 3, 3, 0, 0},
    /* malloc1: mmap + munmap write, the fault's trylock; one flush; PTE page + data page cleared */
    {"malloc1", "mm.mmap_lock", 1, 1, 2, 2, 1, 2 * PG},
    {"malloc1", "lru.lock", 1, 0, 2, 2, 1, 2 * PG},
    {"malloc1", "pte_lock", 1, 0, 1, 1, 1, 2 * PG},
    {"malloc1", "anon_vma.rwsem", 1, 0, 2, 2, 1, 2 * PG},
    /* madv_populate (seed 003), per op: mmap and munmap take mmap_lock for write; a discard of
       anonymous memory (9, and the munmap's) takes it for read; a user fault's trylock, a GUP round's
       lock.  Private anonymous: every round faults every page (zero page, or a page cleared) */
    {"prefault_anon_private_touch_read", "mm.mmap_lock", SR *SP, SR *SP + 10, 2, 12, SR, SPT},
    {"prefault_anon_private_touch_write", "mm.mmap_lock", SR *SP, SR *SP + 10, 2, 12, SR *SP / TLB_B + SR,
     SPT + SR *SP *PG},
    /* the load faults in the zero page, the store copies it (alloc_zeroed: one page cleared) */
    {"prefault_anon_private_touch_read_write", "mm.mmap_lock", 2 * SR *SP, 2 * SR *SP + 10, 2, 12,
     SR *SP + SR *SP / TLB_B + SR, SPT + SR *SP *PG},
    {"prefault_anon_private_populate_read", "mm.mmap_lock", 0, SR + 10, 2, 2 + SR + 10, SR, SPT},
    /* GUP: the follow that misses, the fault, the follow that finds it: 3 PTE-lock rounds a page */
    {"prefault_anon_private_populate_read", "pte_lock", 0, 0, 3 * SR *SP, 3 * SR *SP, SR, SPT},
    {"prefault_anon_private_populate_write", "mm.mmap_lock", 0, SR + 10, 2, 2 + SR + 10, SR *SP / TLB_B + SR,
     SPT + SR *SP *PG},
    /* shared anonymous (shmem): pages allocated in round 1 only, MADV_DONTNEED keeps them; rounds 2-10
       of reads fault once per 16 pages (fault-around); round 1's writes each retry the fault under a
       mmap_lock taken again (a blocking lock), later rounds' find the pages dirty */
    {"prefault_anon_shared_touch_read", "mm.mmap_lock", SP + 9 * SP / 16, SP + 9 * SP / 16 + 10, 2, 12,
     SR *SP / TLB_B + SR, SPT + SP *PG},
    {"prefault_anon_shared_touch_write", "mm.mmap_lock", SR *SP, SR *SP + SP + 10, 2, 2 + SP + 10, SR *SP / 512,
     SPT + SP *PG},
    {"prefault_anon_shared_touch_read_write", "mm.mmap_lock", SP + 9 * SP / 16, SP + 9 * SP / 16 + 10, 2, 12,
     SR *SP / 512, SPT + SP *PG},
    {"prefault_anon_shared_populate_read", "mm.mmap_lock", 0, SR + 10, 2, 2 + SR + 10, SR *SP / TLB_B + SR,
     SPT + SP *PG},
    /* round 1: 3 PTE-lock rounds a page, and one more in 15 of 16 faults, whose fault-around finds a
       page of its window cached; rounds 2-10: per window the follow that misses and
       filemap_map_pages, then a follow per page */
    {"prefault_anon_shared_populate_read", "pte_lock", 0, 0, 3 * SP + 15 * SP / 16 + 9 * (SP / 8 + SP),
     3 * SP + 15 * SP / 16 + 9 * (SP / 8 + SP), SR *SP / TLB_B + SR, SPT + SP *PG},
    {"prefault_anon_shared_populate_write", "mm.mmap_lock", 0, SR + SP + 10, 2, 2 + SR + SP + 10, SR *SP / 512,
     SPT + SP *PG},
    /* shared memfd: the hole punch frees every page, every round allocates (no mmap_lock in a
       fallocate); every write retries */
    {"prefault_memfd_shared_touch_read", "mm.mmap_lock", SR *SP, SR *SP, 2, 2, SR *SP / TLB_B + SR, SPT + SR *SP *PG},
    /* shmem_add_to_page_cache per page and round; shmem_undo_range per page at each of the 9 hole
       punches and the munmap's */
    {"prefault_memfd_shared_touch_read", "file.i_pages", SR *SP, 0, 2 * SR *SP, 2 * SR *SP, SR *SP / TLB_B + SR,
     SPT + SR *SP *PG},
    {"prefault_memfd_shared_touch_write", "mm.mmap_lock", SR *SP, 2 * SR *SP, 2, 2 + SR *SP, SR *SP / 512,
     SPT + SR *SP *PG},
    /* the PTE set, and the retried fault's look at it */
    {"prefault_memfd_shared_touch_write", "pte_lock", SR *SP, 0, 2 * SR *SP, 2 * SR *SP, SR *SP / 512,
     SPT + SR *SP *PG},
    {"prefault_memfd_shared_touch_read_write", "mm.mmap_lock", SR *SP, SR *SP, 2, 2, SR *SP / 512, SPT + SR *SP *PG},
    {"prefault_memfd_shared_populate_read", "mm.mmap_lock", 0, SR, 2, 2 + SR, SR *SP / TLB_B + SR, SPT + SR *SP *PG},
    {"prefault_memfd_shared_populate_write", "mm.mmap_lock", 0, SR + SR *SP, 2, 2 + SR + SR *SP, SR *SP / 512,
     SPT + SR *SP *PG},
    /* private memfd: reads map page-cache pages, which every hole punch unmaps; a write's COW copy
       survives it, so only round 1 faults (a page-cache page cleared and a copy: 2 pages) */
    {"prefault_memfd_private_touch_read", "mm.mmap_lock", SR *SP, SR *SP, 2, 2, SR *SP / TLB_B + SR, SPT + SR *SP *PG},
    {"prefault_memfd_private_touch_write", "mm.mmap_lock", SP, SP, 2, 2, 0, SPT + 2 * SP *PG},
    {"prefault_memfd_private_touch_read_write", "mm.mmap_lock", 2 * SP, 2 * SP, 2, 2, SP, SPT + 2 * SP *PG},
    {"prefault_memfd_private_populate_read", "mm.mmap_lock", 0, SR, 2, 2 + SR, SR *SP / TLB_B + SR, SPT + SR *SP *PG},
    {"prefault_memfd_private_populate_write", "mm.mmap_lock", 0, SR, 2, 2 + SR, 0, SPT + 2 * SP *PG},
    /* round 1: 3 PTE-lock rounds a page; rounds 2-10: one follow a page */
    {"prefault_memfd_private_populate_write", "pte_lock", 0, 0, 3 * SP + 9 * SP, 3 * SP + 9 * SP, 0, SPT + 2 * SP *PG},
    /* hugetlb: every round faults every 2 MiB page (the hole punch unmaps private pages too); a
       private read then write takes a second fault (hugetlb_cow keeps the page) */
    {"prefault_hugetlb_private_touch_read", "mm.mmap_lock", SR *SH, SR *SH, 2, 2, SR, SR *SH *HUGE},
    {"prefault_hugetlb_private_touch_write", "mm.mmap_lock", SR *SH, SR *SH, 2, 2, SR, SR *SH *HUGE},
    {"prefault_hugetlb_private_touch_read_write", "mm.mmap_lock", 2 * SR *SH, 2 * SR *SH, 2, 2, SR, SR *SH *HUGE},
    /* every hugetlb fault takes i_mmap_rwsem for read */
    {"prefault_hugetlb_private_touch_read_write", "file.i_mmap_rwsem", 2 * SR *SH, 2 * SR *SH, 0, 2 * SR *SH, SR,
     SR *SH *HUGE},
    /* the read fault's region_chg and region_add, the write fault's vma_needs_reservation and
       vma_end_reservation */
    {"prefault_hugetlb_private_touch_read_write", "hugetlb.resv_lock", 2 * SR *SH, 0, 4 * SR *SH, 4 * SR *SH, SR,
     SR *SH *HUGE},
    {"prefault_hugetlb_private_populate_read", "mm.mmap_lock", 0, SR, 2, 2 + SR, SR, SR *SH *HUGE},
    {"prefault_hugetlb_private_populate_write", "mm.mmap_lock", 0, SR, 2, 2 + SR, SR, SR *SH *HUGE},
    /* a private write checks the reservation twice more: 4 rounds of its lock */
    {"prefault_hugetlb_private_populate_write", "hugetlb.resv_lock", 0, 0, 4 * SR *SH, 4 * SR *SH, SR, SR *SH *HUGE},
    {"prefault_hugetlb_shared_touch_read", "mm.mmap_lock", SR *SH, SR *SH, 2, 2, SR, SR *SH *HUGE},
    {"prefault_hugetlb_shared_touch_write", "mm.mmap_lock", SR *SH, SR *SH, 2, 2, SR, SR *SH *HUGE},
    /* the shared mapping's entry is writable: no second fault */
    {"prefault_hugetlb_shared_touch_read_write", "mm.mmap_lock", SR *SH, SR *SH, 2, 2, SR, SR *SH *HUGE},
    {"prefault_hugetlb_shared_populate_read", "mm.mmap_lock", 0, SR, 2, 2 + SR, SR, SR *SH *HUGE},
    {"prefault_hugetlb_shared_populate_read", "hugetlb.resv_lock", 0, 0, 2 * SR *SH, 2 * SR *SH, SR, SR *SH *HUGE},
    {"prefault_hugetlb_shared_populate_write", "mm.mmap_lock", 0, SR, 2, 2 + SR, SR, SR *SH *HUGE},
    /* madv_populate's 6.18 variants (doc/madv-populate-6.18-locks.md's table), per op: mmap and munmap
       for write; user faults and MADV_DONTNEED under the per-VMA lock, no mmap_lock; one trylock for
       the anon_vma at a private mapping's first write fault (any first fault of a private hugetlb
       mapping); a GUP round's lock, plus one lock per page whose fault dropped it (a new shared shmem
       page written through GUP) and one more after such a round.  Faults and bytes as 5.11's. */
    {"prefault618_anon_private_touch_read", "mm.mmap_lock", SR *SP, 0, 2, 2, SR, SPT},
    {"prefault618_anon_private_touch_write", "mm.mmap_lock", SR *SP, 1, 2, 2, SR *SP / TLB_B + SR, SPT + SR *SP *PG},
    {"prefault618_anon_private_touch_read_write", "mm.mmap_lock", 2 * SR *SP, 1, 2, 2, SR *SP + SR *SP / TLB_B + SR,
     SPT + SR *SP *PG},
    {"prefault618_anon_private_populate_read", "mm.mmap_lock", 0, SR, 2, 2 + SR, SR, SPT},
    {"prefault618_anon_private_populate_write", "mm.mmap_lock", 0, SR, 2, 2 + SR, SR *SP / TLB_B + SR,
     SPT + SR *SP *PG},
    {"prefault618_anon_shared_touch_read", "mm.mmap_lock", SP + 9 * SP / 16, 0, 2, 2, SR *SP / TLB_B + SR,
     SPT + SP *PG},
    {"prefault618_anon_shared_touch_read_write", "mm.mmap_lock", SP + 9 * SP / 16, 0, 2, 2, SR *SP / 512, SPT + SP *PG},
    /* the faults and MADV_DONTNEED take the VMA's lock instead: every fault, every discard */
    {"prefault618_anon_shared_touch_read", "vma.lock", SP + 9 * SP / 16, SP + 9 * SP / 16 + 10, 0,
     SP + 9 * SP / 16 + 10, SR *SP / TLB_B + SR, SPT + SP *PG},
    {"prefault618_anon_shared_touch_write", "mm.mmap_lock", SR *SP, 0, 2, 2, SR *SP / 512, SPT + SP *PG},
    {"prefault618_anon_shared_populate_read", "mm.mmap_lock", 0, SR, 2, 2 + SR, SR *SP / TLB_B + SR, SPT + SP *PG},
    {"prefault618_anon_shared_populate_write", "mm.mmap_lock", 0, SR + SP + 1, 2, 2 + SR + SP + 1, SR *SP / 512,
     SPT + SP *PG},
    {"prefault618_memfd_shared_touch_read", "mm.mmap_lock", SR *SP, 0, 2, 2, SR *SP / TLB_B + SR, SPT + SR *SP *PG},
    {"prefault618_memfd_shared_touch_write", "mm.mmap_lock", SR *SP, 0, 2, 2, SR *SP / 512, SPT + SR *SP *PG},
    {"prefault618_memfd_shared_touch_read_write", "mm.mmap_lock", SR *SP, 0, 2, 2, SR *SP / 512, SPT + SR *SP *PG},
    {"prefault618_memfd_shared_populate_read", "mm.mmap_lock", 0, SR, 2, 2 + SR, SR *SP / TLB_B + SR, SPT + SR *SP *PG},
    {"prefault618_memfd_shared_populate_write", "mm.mmap_lock", 0, SR + SR *SP + SR, 2, 2 + SR + SR *SP + SR,
     SR *SP / 512, SPT + SR *SP *PG},
    {"prefault618_memfd_private_touch_read", "mm.mmap_lock", SR *SP, 0, 2, 2, SR *SP / TLB_B + SR, SPT + SR *SP *PG},
    {"prefault618_memfd_private_touch_write", "mm.mmap_lock", SP, 1, 2, 2, 0, SPT + 2 * SP *PG},
    {"prefault618_memfd_private_touch_read_write", "mm.mmap_lock", 2 * SP, 1, 2, 2, SP, SPT + 2 * SP *PG},
    {"prefault618_memfd_private_populate_read", "mm.mmap_lock", 0, SR, 2, 2 + SR, SR *SP / TLB_B + SR,
     SPT + SR *SP *PG},
    {"prefault618_memfd_private_populate_write", "mm.mmap_lock", 0, SR, 2, 2 + SR, 0, SPT + 2 * SP *PG},
    {"prefault618_hugetlb_private_touch_read", "mm.mmap_lock", SR *SH, 1, 2, 2, SR, SR *SH *HUGE},
    {"prefault618_hugetlb_private_touch_write", "mm.mmap_lock", SR *SH, 1, 2, 2, SR, SR *SH *HUGE},
    {"prefault618_hugetlb_private_touch_read_write", "mm.mmap_lock", 2 * SR *SH, 1, 2, 2, SR, SR *SH *HUGE},
    {"prefault618_hugetlb_private_populate_read", "mm.mmap_lock", 0, SR, 2, 2 + SR, SR, SR *SH *HUGE},
    {"prefault618_hugetlb_private_populate_write", "mm.mmap_lock", 0, SR, 2, 2 + SR, SR, SR *SH *HUGE},
    {"prefault618_hugetlb_shared_touch_read", "mm.mmap_lock", SR *SH, 0, 2, 2, SR, SR *SH *HUGE},
    {"prefault618_hugetlb_shared_touch_write", "mm.mmap_lock", SR *SH, 0, 2, 2, SR, SR *SH *HUGE},
    {"prefault618_hugetlb_shared_touch_read_write", "mm.mmap_lock", SR *SH, 0, 2, 2, SR, SR *SH *HUGE},
    {"prefault618_hugetlb_shared_populate_read", "mm.mmap_lock", 0, SR, 2, 2 + SR, SR, SR *SH *HUGE},
    {"prefault618_hugetlb_shared_populate_write", "mm.mmap_lock", 0, SR, 2, 2 + SR, SR, SR *SH *HUGE},
};

/* madv_populate's cold lines, as multiples of SP x [misses] user_read_page and map_pages_page: the
 * user's access to a page mapped in an earlier round or by fault-around (rounds 2-10), and
 * fault-around's pages */
static const struct {
	const char *variant;
	double user, around;
} s3_misses[] = {
    {"prefault_anon_shared_touch_read", 9, 9},	       {"prefault_anon_shared_touch_read_write", 9, 9},
    {"prefault_anon_shared_populate_read", 0, 9},      {"prefault_memfd_private_touch_write", 9, 0},
    {"prefault_memfd_private_touch_read_write", 9, 0},
};

static void check(const struct want *w)
{
	struct mm_error err = {0};
	struct scenario sc;
	struct profile kp;
	struct kernel_profile k;
	struct program pr;
	struct op_counts c;
	char kname[64];
	int v;

	if (scenario_load(&sc, w->variant, &v, &err))
		fail_msg("%s: %s", w->variant, err.msg);
	assert_true(v >= 0);
	snprintf(kname, sizeof(kname), "linux-%s", sc.var[v].kernel);
	if (profile_load(&kp, "kernels", kname, &err) || kernel_profile_derive(&k, &kp, &err) ||
	    scenario_compile(&sc, v, &k, &pr, &err))
		fail_msg("%s: %s", w->variant, err.msg);
	op_counts(&pr, w->lock, &c);
	print_message("%-36s %-20s faults %.6g read %.6g write %.6g blocking %.6g ipis %.6g bytes %.6g\n", w->variant,
		      w->lock, c.faults, c.lock_read, c.lock_write, c.lock_blocking, c.ipis, c.bytes);
#define NEAR(got, exp)                                    \
	if (fabs((got) - (exp)) > 1e-9 * (fabs(exp) + 1)) \
		fail_msg("%s: %s is %.9g, expected %.9g", w->variant, #exp, got, exp);
	NEAR(c.faults, w->faults);
	NEAR(c.lock_read, w->read);
	NEAR(c.lock_write, w->write);
	NEAR(c.lock_blocking, w->blocking);
	NEAR(c.ipis, w->ipis);
	NEAR(c.bytes, w->bytes);
	/* page_fault4 reads the user's data line, maps the page around and zaps it once per page; the
	 * others have no cold lines */
	if (!strncmp(w->variant, "page_fault4_", 12)) {
		double u, m, z;

		assert_int_equal(kernel_misses(&k, "user_read_page", &u), 0);
		assert_int_equal(kernel_misses(&k, "map_pages_page", &m), 0);
		assert_int_equal(kernel_misses(&k, "zap_file_page", &z), 0);
		NEAR(c.misses, u + m + z);
	} else if (!strncmp(w->variant, "prefault_", 9) || !strncmp(w->variant, "prefault618_", 12)) {
		/* a 6.18 variant's cold lines are its 5.11 variant's */
		const char *cell = strchr(w->variant, '_');
		double u, m, want = 0;

		assert_int_equal(kernel_misses(&k, "user_read_page", &u), 0);
		assert_int_equal(kernel_misses(&k, "map_pages_page", &m), 0);
		for (size_t i = 0; i < sizeof(s3_misses) / sizeof(s3_misses[0]); i++)
			if (!strcmp(strchr(s3_misses[i].variant, '_'), cell))
				want = SP * (s3_misses[i].user * u + s3_misses[i].around * m);
		NEAR(c.misses, want);
	} else {
		NEAR(c.misses, 0.0);
	}
#undef NEAR
	program_free(&pr);
	profile_free(&kp);
	scenario_free(&sc);
}

static void test_every_variant(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(wants) / sizeof(wants[0]); i++)
		check(&wants[i]);
}

/* Every variant of every shipped scenario (pin_fast excepted: test_scenario covers it) is listed above. */
static void test_all_variants_listed(void **state)
{
	static const char *files[] = {"page_fault", "populate", "mmap",	  "pft",
				      "locktest",   "brk",	"malloc", "madv_populate"};

	(void)state;
	for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
		struct mm_error err = {0};
		struct scenario sc;
		int v;

		if (scenario_load(&sc, files[f], &v, &err))
			fail_msg("%s: %s", files[f], err.msg);
		for (int i = 0; i < sc.nvar; i++) {
			int found = 0;

			for (size_t j = 0; j < sizeof(wants) / sizeof(wants[0]) && !found; j++)
				found = !strcmp(wants[j].variant, sc.var[i].name);
			if (!found)
				fail_msg("variant %s of %s has no count test", sc.var[i].name, files[f]);
		}
		scenario_free(&sc);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_every_variant),
	    cmocka_unit_test(test_all_variants_listed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
