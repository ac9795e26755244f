/* SPDX-License-Identifier: MIT */
/* mmsim layout's BTF reader (src/layout.c) on synthetic BTF whose layout is known by construction
 * (tests/btfgen.c), and its errors on what is not BTF. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "layout.h"

#define BTFGEN_NO_MAIN
#include "btfgen.c"

static char dir[] = "/tmp/mmsim-test-layout-XXXXXX";

static void path_of(char *buf, size_t cap, const char *name)
{
	snprintf(buf, cap, "%s/%s", dir, name);
}

static int setup(void **state)
{
	char a[128], b[128];

	(void)state;
	if (!mkdtemp(dir))
		return -1;
	path_of(a, sizeof(a), "a.btf");
	path_of(b, sizeof(b), "b.btf");
	return btfgen_write(a, 0) || btfgen_write(b, 1) ? -1 : 0;
}

static int teardown(void **state)
{
	char cmd[256];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) ? -1 : 0;
}

static void get(const char *file, const char *name, struct lay_struct *s)
{
	char p[128], err[600];
	struct btf *b;

	path_of(p, sizeof(p), file);
	if (lay_open(p, &b, err, sizeof(err)))
		fail_msg("%s", err);
	if (lay_struct_get(b, name, s, err, sizeof(err)))
		fail_msg("%s", err);
	lay_close(b);
}

static uint64_t byte_of(const struct lay_struct *s, const char *path)
{
	const struct lay_field *f = lay_find(s, path);

	if (!f)
		fail_msg("%s has no %s", s->name, path);
	return f->bit_off / 8;
}

/* Offsets by construction: nested named structs by path, anonymous struct and union members by
 * their own names, array elements of structs one by one, a bitfield's bits. */
static void offsets_as_built(void **state)
{
	struct lay_struct a, b;
	const struct lay_field *bits;

	(void)state;
	get("a.btf", "mm_struct", &a);
	assert_int_equal(a.size, 512);
	assert_int_equal(byte_of(&a, "mm_count"), 0);
	assert_int_equal(byte_of(&a, "mmap_lock"), 184);
	assert_int_equal(byte_of(&a, "mmap_lock.count"), 184);
	assert_int_equal(byte_of(&a, "mmap_lock.owner"), 192);
	assert_int_equal(byte_of(&a, "mmap_lock.count") / LAY_LINE, 2);
	assert_int_equal(byte_of(&a, "mmap_lock.owner") / LAY_LINE, 3);
	assert_int_equal(byte_of(&a, "mmap_lock.wait_list.prev"), 184 + 24 + 8);
	assert_int_equal(byte_of(&a, "a"), 256);
	assert_int_equal(byte_of(&a, "rss_stat[1].count"), 320 + 40 + 8);
	assert_int_equal(byte_of(&a, "rss_stat[3].counters"), 320 + 3 * 40 + 32);
	assert_int_equal(lay_find(&a, "mmap_lock")->size, 40);
	bits = lay_find(&a, "bits");
	assert_non_null(bits);
	assert_true(bits->bitfield && bits->bit_off == 37 && bits->bit_size == 3);
	assert_int_equal(byte_of(&a, "b"), 256);
	assert_null(lay_find(&a, "no_such"));
	assert_null(lay_find(&a, "mmap_lock.no_such"));
	lay_struct_free(&a);
	get("b.btf", "mm_struct", &b);
	assert_int_equal(byte_of(&b, "mmap_lock.count") / LAY_LINE, 1);
	assert_null(lay_find(&b, "mm_lock_seq"));
	lay_struct_free(&b);
	get("b.btf", "vm_area_struct", &b);
	assert_int_equal(byte_of(&b, "vm_flags"), 80);
	assert_int_equal(byte_of(&b, "__vm_flags"), 80);
	lay_struct_free(&b);
}

/* What is not BTF is refused, naming the file; a struct it lacks, naming the struct. */
static void errors_name_the_file_and_struct(void **state)
{
	char p[128], q[128], err[600];
	struct btf *b = NULL;
	struct lay_struct s;
	FILE *f, *g;
	char buf[4096];
	size_t n;

	(void)state;
	path_of(p, sizeof(p), "missing.btf");
	assert_int_equal(lay_open(p, &b, err, sizeof(err)), -1);
	assert_non_null(strstr(err, p));
	/* truncated: the first 40 bytes of a.btf (the header and a little more) */
	path_of(p, sizeof(p), "a.btf");
	path_of(q, sizeof(q), "short.btf");
	f = fopen(p, "rb");
	g = fopen(q, "wb");
	assert_true(f && g);
	n = fread(buf, 1, 40, f);
	assert_int_equal(fwrite(buf, 1, n, g), n);
	fclose(f);
	fclose(g);
	assert_int_equal(lay_open(q, &b, err, sizeof(err)), -1);
	assert_non_null(strstr(err, q));
	assert_non_null(strstr(err, "no BTF"));
	/* text */
	path_of(q, sizeof(q), "text.btf");
	g = fopen(q, "w");
	assert_non_null(g);
	fputs("struct mm_struct { int a; };\n", g);
	fclose(g);
	assert_int_equal(lay_open(q, &b, err, sizeof(err)), -1);
	assert_non_null(strstr(err, q));
	/* a struct the BTF lacks */
	assert_int_equal(lay_open(p, &b, err, sizeof(err)), 0);
	assert_int_equal(lay_struct_get(b, "zone", &s, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "'zone'"));
	lay_close(b);
}

/* One what-if on @a as it stands; it must succeed. */
static void move(struct lay_struct *a, const char *path, enum lay_move_kind kind, const char *other, uint64_t off)
{
	struct lay_move m = {.kind = kind, .offset = off};
	char err[600];

	snprintf(m.path, sizeof(m.path), "%s", path);
	if (other)
		snprintf(m.other, sizeof(m.other), "%s", other);
	if (lay_relayout(a, &m, err, sizeof(err)))
		fail_msg("%s", err);
}

/* A's mm_struct with one what-if. */
static void moved(const char *path, enum lay_move_kind kind, const char *other, uint64_t off, struct lay_struct *a)
{
	get("a.btf", "mm_struct", a);
	move(a, path, kind, other, off);
}

/*
 * What-ifs laid out by hand on A: members in order at natural alignment, so A's holes that no
 * alignment explains close (mm_users goes from 132 to 72); task_size, the a/b union and rss_stat
 * began a line after padding, so they keep beginning one.
 * mmap_lock to a line of its own: mm_count 0, bits @4, task_size 64, mm_users 72, pgtables_bytes
 * 80, map_count 88, page_table_lock 92, mm_lock_seq 96, a 128, rss_stat 192 (to 352), mmap_lock
 * 384 (its line; the struct 448).  mm_users at offset 100: pgtables_bytes 104, map_count 112,
 * page_table_lock 116, mmap_lock 120 (count line 1, owner 128: line 2), mm_lock_seq 160, a 192,
 * rss_stat 256.  map_count padded to a line of its own where it is: 128 (after mm_users 72 and
 * pgtables_bytes 80), page_table_lock 192, mmap_lock 200, mm_lock_seq 240, a 256, rss_stat 320,
 * the struct 512.  mm_lock_seq right after mm_users: 76, pgtables_bytes 80, mmap_lock 96.
 */
static void what_ifs_by_hand(void **state)
{
	struct lay_struct a;
	char err[600];
	struct lay_move bad = {.kind = LAY_OFFSET, .offset = 101};

	(void)state;
	moved("mmap_lock", LAY_OWN_LINE, NULL, 0, &a);
	assert_int_equal(byte_of(&a, "mm_users"), 72);
	assert_int_equal(byte_of(&a, "pgtables_bytes"), 80);
	assert_int_equal(byte_of(&a, "mm_lock_seq"), 96);
	assert_int_equal(byte_of(&a, "a"), 128);
	assert_int_equal(byte_of(&a, "rss_stat[1].count"), 192 + 40 + 8);
	assert_int_equal(byte_of(&a, "mmap_lock.count"), 384);
	assert_int_equal(byte_of(&a, "mmap_lock.owner"), 392);
	assert_int_equal(a.size, 448);
	lay_struct_free(&a);
	moved("mm_users", LAY_OFFSET, NULL, 100, &a);
	assert_int_equal(byte_of(&a, "mm_users"), 100);
	assert_int_equal(byte_of(&a, "pgtables_bytes"), 104);
	assert_int_equal(byte_of(&a, "mmap_lock.count"), 120);
	assert_int_equal(byte_of(&a, "mmap_lock.owner"), 128);
	assert_int_equal(byte_of(&a, "rss_stat"), 256);
	lay_struct_free(&a);
	moved("map_count", LAY_PAD, NULL, 0, &a);
	assert_int_equal(byte_of(&a, "map_count"), 128);
	assert_int_equal(byte_of(&a, "page_table_lock"), 192);
	assert_int_equal(byte_of(&a, "mmap_lock"), 200);
	assert_int_equal(byte_of(&a, "mm_lock_seq"), 240);
	assert_int_equal(byte_of(&a, "rss_stat"), 320);
	assert_int_equal(a.size, 512);
	lay_struct_free(&a);
	moved("mm_lock_seq", LAY_AFTER, "mm_users", 0, &a);
	assert_int_equal(byte_of(&a, "mm_lock_seq"), 76);
	assert_int_equal(byte_of(&a, "pgtables_bytes"), 80);
	assert_int_equal(byte_of(&a, "mmap_lock"), 96);
	lay_struct_free(&a);
	/* two what-ifs in a row, the second on the first's layout: mmap_lock to its own line (as above),
	 * then map_count padded where it now is, 88 -> 128; page_table_lock 192, mm_lock_seq 196, a 256,
	 * rss_stat 320, mmap_lock (which began its line after padding) 512, the struct 576 */
	moved("mmap_lock", LAY_OWN_LINE, NULL, 0, &a);
	move(&a, "map_count", LAY_PAD, NULL, 0);
	assert_int_equal(byte_of(&a, "map_count"), 128);
	assert_int_equal(byte_of(&a, "page_table_lock"), 192);
	assert_int_equal(byte_of(&a, "mm_lock_seq"), 196);
	assert_int_equal(byte_of(&a, "a"), 256);
	assert_int_equal(byte_of(&a, "rss_stat"), 320);
	assert_int_equal(byte_of(&a, "mmap_lock.count"), 512);
	assert_int_equal(a.size, 576);
	lay_struct_free(&a);
	/* a union moves whole, though its first member is an anonymous struct: vm_start to a line of its
	 * own takes vm_end and vm_freeptr along; vm_flags goes to 0 and vm_refcnt (which began line 2
	 * after padding) to 64; the union to 128, its own line; the struct 192 */
	get("a.btf", "vm_area_struct", &a);
	move(&a, "vm_start", LAY_OWN_LINE, NULL, 0);
	assert_int_equal(byte_of(&a, "vm_start"), 128);
	assert_int_equal(byte_of(&a, "vm_end"), 136);
	assert_int_equal(byte_of(&a, "vm_freeptr"), 128);
	assert_int_equal(byte_of(&a, "vm_flags"), 0);
	assert_int_equal(byte_of(&a, "vm_refcnt"), 64);
	assert_int_equal(a.size, 192);
	lay_struct_free(&a);
	/* refused: a misaligned offset, one overlapping the member before, a member it lacks */
	get("a.btf", "mm_struct", &a);
	snprintf(bad.path, sizeof(bad.path), "mm_users");
	assert_int_equal(lay_relayout(&a, &bad, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "4-byte alignment"));
	bad.offset = 68; /* task_size is at 64 to 72 */
	assert_int_equal(lay_relayout(&a, &bad, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "overlap"));
	snprintf(bad.path, sizeof(bad.path), "no_such");
	assert_int_equal(lay_relayout(&a, &bad, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "no member 'no_such'"));
	/* nothing moved by the refusals */
	assert_int_equal(byte_of(&a, "mm_users"), 132);
	lay_struct_free(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(offsets_as_built),
	    cmocka_unit_test(errors_name_the_file_and_struct),
	    cmocka_unit_test(what_ifs_by_hand),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
