/* SPDX-License-Identifier: MIT */
/*
 * Writes small synthetic BTF files whose layouts are known by construction, for the layout tests:
 *   btfgen A.btf B.btf
 * A: an mm_struct as 6.6 lays it out around mmap_lock (count @184, line 2; owner @192, line 3),
 *    an anonymous struct and union, rss_stat as an array of 4 percpu_counters @320, and a
 *    vm_area_struct whose vm_start and vm_end are in an anonymous struct in an anonymous union (with
 *    vm_freeptr), as 6.18's, and vm_flags in another anonymous union.
 * B: the same but mmap_lock @104 (count and owner on line 1), mm_lock_seq gone, and a 16-byte
 *    vm_area_struct member inserted, vm_flags moved to @80 (line 1).
 * With BTFGEN_NO_MAIN defined it only provides btfgen_write() (test_layout.c includes it).
 */
#include <bpf/btf.h>
#include <linux/btf.h>
#include <stdio.h>

/* Builds variant @b (0: A, 1: B) and writes its raw BTF to @path: 0, or -1. */
static int btfgen_write(const char *path, int b)
{
	struct btf *btf = btf__new_empty();
	int i32, i64, u8, ptr, list, rw, pcpu, arr, anon_s, anon_u, mm, vf, vma, flags_u, range_s, range_u, rc = -1;
	const void *raw;
	__u32 size;
	FILE *f;

	if (!btf)
		return -1;
	i32 = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
	i64 = btf__add_int(btf, "long", 8, BTF_INT_SIGNED);
	u8 = btf__add_int(btf, "unsigned char", 1, 0);
	ptr = btf__add_ptr(btf, i64);
	/* struct list_head { next, prev } */
	list = btf__add_struct(btf, "list_head", 16);
	btf__add_field(btf, "next", ptr, 0, 0);
	btf__add_field(btf, "prev", ptr, 64, 0);
	/* struct rw_semaphore { long count; long owner; int osq; int wait_lock; list_head wait_list; } */
	rw = btf__add_struct(btf, "rw_semaphore", 40);
	btf__add_field(btf, "count", i64, 0, 0);
	btf__add_field(btf, "owner", i64, 64, 0);
	btf__add_field(btf, "osq", i32, 128, 0);
	btf__add_field(btf, "wait_lock", i32, 160, 0);
	btf__add_field(btf, "wait_list", list, 192, 0);
	/* struct percpu_counter { int lock; long count @8; list_head list @16; long *counters @32 } */
	pcpu = btf__add_struct(btf, "percpu_counter", 40);
	btf__add_field(btf, "lock", i32, 0, 0);
	btf__add_field(btf, "count", i64, 64, 0);
	btf__add_field(btf, "list", list, 128, 0);
	btf__add_field(btf, "counters", ptr, 256, 0);
	arr = btf__add_array(btf, i32, pcpu, 4);
	/* an anonymous struct { int mm_count; unsigned char bits: 3 (at bit 37) } of one line, and an
	 * anonymous union { long a; long b; } */
	anon_s = btf__add_struct(btf, NULL, 64);
	btf__add_field(btf, "mm_count", i32, 0, 0);
	btf__add_field(btf, "bits", u8, 37, 3);
	anon_u = btf__add_union(btf, NULL, 8);
	btf__add_field(btf, "a", i64, 0, 0);
	btf__add_field(btf, "b", i64, 0, 0);
	mm = btf__add_struct(btf, "mm_struct", 512);
	btf__add_field(btf, NULL, anon_s, 0, 0);
	btf__add_field(btf, "task_size", i64, 64 * 8, 0);
	btf__add_field(btf, "mm_users", i32, 132 * 8, 0);
	btf__add_field(btf, "pgtables_bytes", i64, 168 * 8, 0);
	btf__add_field(btf, "map_count", i32, 176 * 8, 0);
	btf__add_field(btf, "page_table_lock", i32, 180 * 8, 0);
	btf__add_field(btf, "mmap_lock", rw, (b ? 104 : 184) * 8, 0);
	if (!b)
		btf__add_field(btf, "mm_lock_seq", i32, 248 * 8, 0);
	btf__add_field(btf, NULL, anon_u, 256 * 8, 0);
	btf__add_field(btf, "rss_stat", arr, 320 * 8, 0);
	/* vm_area_struct: A: union { struct { vm_start; vm_end; }; vm_freeptr; } (as 6.18's); B: vm_start,
	 * vm_end and 16 bytes of pad_new; then union { vm_flags; __vm_flags } */
	range_s = btf__add_struct(btf, NULL, 16);
	btf__add_field(btf, "vm_start", i64, 0, 0);
	btf__add_field(btf, "vm_end", i64, 64, 0);
	range_u = btf__add_union(btf, NULL, 16);
	btf__add_field(btf, NULL, range_s, 0, 0);
	btf__add_field(btf, "vm_freeptr", i64, 0, 0);
	flags_u = btf__add_union(btf, NULL, 8);
	btf__add_field(btf, "vm_flags", i64, 0, 0);
	btf__add_field(btf, "__vm_flags", i64, 0, 0);
	vf = b ? btf__add_struct(btf, "pad16", 16) : 0;
	if (b)
		btf__add_field(btf, "x", list, 0, 0);
	vma = btf__add_struct(btf, "vm_area_struct", 192);
	if (b) {
		btf__add_field(btf, "vm_start", i64, 0, 0);
		btf__add_field(btf, "vm_end", i64, 64, 0);
		btf__add_field(btf, "pad_new", vf, 32 * 8, 0);
	} else {
		btf__add_field(btf, NULL, range_u, 0, 0);
	}
	btf__add_field(btf, NULL, flags_u, (b ? 80 : 32) * 8, 0);
	btf__add_field(btf, "vm_refcnt", i32, 128 * 8, 0);
	raw = mm > 0 && vma > 0 ? btf__raw_data(btf, &size) : NULL;
	if (raw && (f = fopen(path, "wb"))) {
		rc = fwrite(raw, 1, size, f) == size ? 0 : -1;
		if (fclose(f))
			rc = -1;
	}
	btf__free(btf);
	return rc;
}

#ifndef BTFGEN_NO_MAIN
int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: btfgen A.btf B.btf\n");
		return 2;
	}
	if (btfgen_write(argv[1], 0) || btfgen_write(argv[2], 1)) {
		fprintf(stderr, "btfgen: could not write %s / %s\n", argv[1], argv[2]);
		return 1;
	}
	return 0;
}
#endif
