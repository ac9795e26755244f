/* SPDX-License-Identifier: MIT */
/*
 * mmsim layout: the kernel's own structure layout, read from its BTF (/sys/kernel/btf/vmlinux, or a
 * vmlinux or raw BTF file) with libbpf; each field's offset, size and cache line, nested and
 * anonymous structs and unions walked; a kernel profile's [layout] written from it; two kernels'
 * layouts compared on the fields the scenarios name.
 */
#ifndef MMSIM_LAYOUT_H
#define MMSIM_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#define LAY_LINE 64 /* bytes of a cache line */

/* One member of a flattened structure: anonymous structs and unions add no name to the path. */
struct lay_field {
	char path[192];	   /* e.g. "mmap_lock.count", "rss_stat[1].count" */
	char type[96];	   /* C-ish type name */
	uint64_t bit_off;  /* from the start of the outermost struct */
	uint32_t bit_size; /* bitfields: their width; else 8 x size */
	uint64_t size;	   /* bytes (bitfields: of the underlying type) */
	int depth;	   /* nesting depth, anonymous levels included */
	int level;	   /* named ancestors: 0 for a member of the outermost struct (through anonymous ones) */
	int composite;	   /* a struct or union whose members follow */
	int bitfield;
	int align; /* bytes: the type's natural alignment (BTF keeps no aligned attribute) */
	int slot;  /* the member of the outermost struct it belongs to (anonymous structs see through) */
};

struct lay_struct {
	char name[96]; /* "mm_struct" */
	uint64_t size;
	int nfields, nslots;
	struct lay_field *f;
};

struct btf;

/* The BTF at @path (NULL: /sys/kernel/btf/vmlinux): 0, or -1 with @err (naming the file). */
int lay_open(const char *path, struct btf **out, char *err, size_t cap);
void lay_close(struct btf *btf);
/* The struct (or union) @name of @btf, flattened: 0, or -1 with @err. */
int lay_struct_get(const struct btf *btf, const char *name, struct lay_struct *s, char *err, size_t cap);
void lay_struct_free(struct lay_struct *s);
/* The field of @s at @path, or NULL. */
const struct lay_field *lay_find(const struct lay_struct *s, const char *path);

/* A what-if on a struct's layout: the member (of the outermost struct) holding @path moves to a line
 * of its own at the end (LAY_OWN_LINE), right after the member holding @other (LAY_AFTER), to byte
 * @offset (LAY_OFFSET), or gets a line of its own where it is (LAY_PAD); every member is laid out
 * again in order with its natural alignment (a member that began a line after padding keeps
 * beginning one).  0, or -1 with @err. */
enum lay_move_kind { LAY_OWN_LINE, LAY_AFTER, LAY_OFFSET, LAY_PAD };
struct lay_move {
	enum lay_move_kind kind;
	char path[192], other[192];
	uint64_t offset;
};
int lay_relayout(struct lay_struct *s, const struct lay_move *mv, char *err, size_t cap);

/* mmsim layout [--btf FILE] [--emit-profile [--base K] [-o FILE] [--force]] [--diff A B] [STRUCT...] */
int cmd_layout(int argc, char **argv);

#endif
