/* SPDX-License-Identifier: MIT */
/*
 * mmsim layout (README "Layout from BTF"): structure layouts from the kernel's BTF through libbpf.
 * A structure is flattened: each member gets a path from the outermost struct ("mmap_lock.count"),
 * anonymous structs and unions adding no name, arrays of structs expanded element by element
 * ("rss_stat[1].count"), and an absolute bit offset, so its cache line is offset / 64 on a struct
 * that starts at a line boundary.
 */
#include "layout.h"

#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdarg.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "cleanup.h"
#include "mm_error.h"
#include "profile.h"
#include "scenario.h"

#define LAY_DEFAULT_BTF "/sys/kernel/btf/vmlinux"
#define LAY_MAX_ELEMS 16 /* arrays of structs longer than this are not expanded */
#define LAY_MAX_DEPTH 16

int lay_open(const char *path, struct btf **out, char *err, size_t cap)
{
	struct stat st;
	struct btf *b;

	if (!path)
		path = LAY_DEFAULT_BTF;
	*out = NULL;
	if (stat(path, &st)) {
		snprintf(err, cap,
			 "%s: %s (expected the kernel's BTF, a vmlinux with a .BTF section, or a raw BTF file)", path,
			 strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, cap, "%s: not a regular file (expected BTF or a vmlinux)", path);
		return -1;
	}
	libbpf_set_print(NULL); /* its own messages: the error below says it */
	errno = 0;
	b = btf__parse(path, NULL);
	if (!b) {
		char why[128];

		if (libbpf_strerror(errno ? errno : EINVAL, why, sizeof(why)))
			snprintf(why, sizeof(why), "error %d", errno);
		snprintf(err, cap,
			 "%s: no BTF could be read from it (libbpf: %s): expected raw BTF (as /sys/kernel/btf/vmlinux) "
			 "or an ELF vmlinux with a .BTF section; a truncated or corrupt file reads so too",
			 path, why);
		return -1;
	}
	*out = b;
	return 0;
}

void lay_close(struct btf *btf)
{
	btf__free(btf);
}

/* A short C-ish name of type @id. */
static void type_name(const struct btf *btf, uint32_t id, char *buf, size_t cap, int depth)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	const char *n;

	if (!id || !t) {
		snprintf(buf, cap, "void");
		return;
	}
	n = btf__name_by_offset(btf, t->name_off);
	if (depth > 8) {
		snprintf(buf, cap, "...");
		return;
	}
	switch (btf_kind(t)) {
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		snprintf(buf, cap, "%s %s", btf_kind(t) == BTF_KIND_STRUCT ? "struct" : "union",
			 n && *n ? n : "(anonymous)");
		return;
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		snprintf(buf, cap, "enum %s", n && *n ? n : "(anonymous)");
		return;
	case BTF_KIND_PTR: {
		char in[80];

		type_name(btf, t->type, in, sizeof(in), depth + 1);
		snprintf(buf, cap, "%s *", in);
		return;
	}
	case BTF_KIND_ARRAY: {
		char in[80];

		type_name(btf, btf_array(t)->type, in, sizeof(in), depth + 1);
		snprintf(buf, cap, "%s[%u]", in, btf_array(t)->nelems);
		return;
	}
	case BTF_KIND_CONST:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPE_TAG:
		type_name(btf, t->type, buf, cap, depth + 1);
		return;
	case BTF_KIND_FUNC_PROTO:
		snprintf(buf, cap, "function");
		return;
	default:
		snprintf(buf, cap, "%s", n && *n ? n : "?");
	}
}

/* The type under typedefs and qualifiers (libbpf's btf__resolve_type), or NULL. */
static const struct btf_type *resolved(const struct btf *btf, uint32_t id)
{
	int r = btf__resolve_type(btf, id);

	return r < 0 ? NULL : btf__type_by_id(btf, (uint32_t)r);
}

static int add_field(struct lay_struct *s, int *cap, const struct lay_field *f)
{
	if (s->nfields == *cap) {
		int nc = *cap ? 2 * *cap : 64;
		struct lay_field *nf = realloc(s->f, (size_t)nc * sizeof(*nf));

		if (!nf)
			return -1;
		s->f = nf;
		*cap = nc;
	}
	s->f[s->nfields++] = *f;
	return 0;
}

static int walk(const struct btf *btf, const struct btf_type *t, uint64_t base, const char *prefix, int depth,
		int level, int slot, struct lay_struct *s, int *cap);

/* The member of type @tid at @bit_off named @path: its entry, then its members if it has any.
 * @slot: the member of the outermost struct it is in, or -1 where it is one itself (a member of
 * the outermost struct, or of an anonymous struct in it: those are seen through, while a union,
 * even an anonymous one, is one member with all it holds). */
static int add_member(const struct btf *btf, uint32_t tid, uint64_t bit_off, uint32_t bitfield, const char *path,
		      int named, int depth, int level, int slot, struct lay_struct *s, int *cap)
{
	const struct btf_type *rt = resolved(btf, tid);
	long long sz = btf__resolve_size(btf, tid);
	struct lay_field f = {0};
	int composite = rt && btf_is_composite(rt);

	if (sz < 0)
		sz = 0;
	if (slot < 0 && !(composite && !named && btf_is_struct(rt)))
		slot = s->nslots++;
	if (named || !composite) {
		snprintf(f.path, sizeof(f.path), "%s", path);
		type_name(btf, tid, f.type, sizeof(f.type), 0);
		f.bit_off = bit_off;
		f.size = (uint64_t)sz;
		f.bitfield = bitfield > 0;
		f.bit_size = bitfield ? bitfield : (uint32_t)(8 * sz);
		f.depth = depth;
		f.level = level;
		f.align = btf__align_of(btf, tid) > 0 ? btf__align_of(btf, tid) : 1;
		f.slot = slot;
		f.composite = composite;
		if (add_field(s, cap, &f))
			return -1;
	}
	if (depth >= LAY_MAX_DEPTH)
		return 0;
	if (composite)
		return walk(btf, rt, bit_off, path, depth + 1, named ? level + 1 : level, slot, s, cap);
	if (rt && btf_is_array(rt)) {
		const struct btf_array *a = btf_array(rt);
		const struct btf_type *et = resolved(btf, a->type);
		long long esz = btf__resolve_size(btf, a->type);

		if (et && btf_is_composite(et) && a->nelems <= LAY_MAX_ELEMS && esz > 0)
			for (uint32_t k = 0; k < a->nelems; k++) {
				char p[sizeof(f.path)];

				snprintf(p, sizeof(p), "%s[%u]", path, k);
				if (add_member(btf, a->type, bit_off + (uint64_t)k * 8 * (uint64_t)esz, 0, p, 1,
					       depth + 1, level + 1, slot, s, cap))
					return -1;
			}
	}
	return 0;
}

static int walk(const struct btf *btf, const struct btf_type *t, uint64_t base, const char *prefix, int depth,
		int level, int slot, struct lay_struct *s, int *cap)
{
	const struct btf_member *m = btf_members(t);

	for (int i = 0; i < btf_vlen(t); i++, m++) {
		const char *n = btf__name_by_offset(btf, m->name_off);
		char path[sizeof(s->f[0].path)];
		int named = n && *n;

		if (named)
			snprintf(path, sizeof(path), "%s%s%s", prefix, *prefix ? "." : "", n);
		else
			snprintf(path, sizeof(path), "%s", prefix);
		if (add_member(btf, m->type, base + btf_member_bit_offset(t, (uint32_t)i),
			       btf_member_bitfield_size(t, (uint32_t)i), path, named, depth, level, slot, s, cap))
			return -1;
	}
	return 0;
}

int lay_struct_get(const struct btf *btf, const char *name, struct lay_struct *s, char *err, size_t cap)
{
	int id = btf__find_by_name_kind(btf, name, BTF_KIND_STRUCT), fcap = 0;
	const struct btf_type *t;

	memset(s, 0, sizeof(*s));
	if (id < 0)
		id = btf__find_by_name_kind(btf, name, BTF_KIND_UNION);
	if (id < 0 || !(t = btf__type_by_id(btf, (uint32_t)id))) {
		snprintf(err, cap, "no struct or union '%s' in this BTF", name);
		return -1;
	}
	snprintf(s->name, sizeof(s->name), "%s", name);
	s->size = t->size;
	if (walk(btf, t, 0, "", 0, 0, -1, s, &fcap)) {
		lay_struct_free(s);
		snprintf(err, cap, "out of memory for the members of %s", name);
		return -1;
	}
	return 0;
}

void lay_struct_free(struct lay_struct *s)
{
	free(s->f);
	s->f = NULL;
	s->nfields = 0;
}

const struct lay_field *lay_find(const struct lay_struct *s, const char *path)
{
	for (int i = 0; i < s->nfields; i++)
		if (!strcmp(s->f[i].path, path))
			return &s->f[i];
	return NULL;
}

/* ---- what-ifs on the layout ------------------------------------------------------------------ */

/* The outermost struct's members (lay_field.slot) as the units a what-if moves: a member with all
 * it holds; bitfields sharing their storage bytes make one unit. */
struct lay_unit {
	uint64_t start, end; /* bytes, as the BTF has them */
	int align;	     /* bytes */
	int line_start;	     /* began a line after padding: keeps beginning one */
	int own_line;	     /* a what-if gave it a line of its own */
	int64_t forced;	     /* LAY_OFFSET: its new start, else -1 */
	uint64_t nstart;     /* where it goes */
	int empty;	     /* no bytes: a flexible array member, a zero-length marker */
};

/* @unit_of[slot] gets each slot's unit; the units, in the order of their offsets now (after an
 * earlier what-if that is not the declaration order), into @out. */
static int units_of(const struct lay_struct *s, struct lay_unit **out, int *n, int *unit_of)
{
	struct lay_unit *u = calloc((size_t)s->nslots + 1, sizeof(*u)), *v = calloc((size_t)s->nslots + 1, sizeof(*v));
	int *have = calloc((size_t)s->nslots + 1, sizeof(*have)), *bits = calloc((size_t)s->nslots + 1, sizeof(*bits));
	int k = 0;

	if (!u || !v || !have || !bits) {
		free(u);
		free(v);
		free(have);
		free(bits);
		return -1;
	}
	for (int i = 0; i < s->nfields; i++) {
		const struct lay_field *f = &s->f[i];
		uint64_t a = f->bit_off / 8, b = (f->bit_off + f->bit_size + 7) / 8;
		struct lay_unit *x;

		if (f->slot < 0)
			continue;
		x = &u[f->slot];
		if (!have[f->slot]) {
			*x = (struct lay_unit){.start = a, .end = b, .align = 1, .forced = -1};
			have[f->slot] = 1;
		}
		if (a < x->start)
			x->start = a;
		if (b > x->end)
			x->end = b;
		bits[f->slot] |= f->bitfield && f->level == 0;
		if (f->level == 0 && f->align > x->align)
			x->align = f->align;
	}
	for (int sl = 0; sl < s->nslots; sl++)
		unit_of[sl] = -1;
	/* in offset order: repeatedly the slot with the lowest start not placed yet (slots are few) */
	for (;;) {
		int sl = -1;

		for (int t = 0; t < s->nslots; t++)
			if (have[t] == 1 && (sl < 0 || u[t].start < u[sl].start))
				sl = t;
		if (sl < 0)
			break;
		have[sl] = 2;
		u[sl].empty = u[sl].end <= u[sl].start;
		if (u[sl].empty)
			u[sl].end = u[sl].start;
		/* a bitfield whose storage bytes the unit before holds too: the same unit */
		if (k && bits[sl] && !u[sl].empty && !v[k - 1].empty && u[sl].start < v[k - 1].end) {
			if (u[sl].end > v[k - 1].end)
				v[k - 1].end = u[sl].end;
			unit_of[sl] = k - 1;
			continue;
		}
		u[sl].line_start =
		    u[sl].start % LAY_LINE == 0 && u[sl].start > 0 && (k == 0 || v[k - 1].end < u[sl].start);
		v[k] = u[sl];
		unit_of[sl] = k++;
	}
	free(u);
	free(have);
	free(bits);
	*out = v;
	*n = k;
	return 0;
}

static uint64_t align_up(uint64_t x, uint64_t a)
{
	return a > 1 ? (x + a - 1) / a * a : x;
}

/* Fields in offset order again, each member before what it holds (then by path: deterministic). */
static int field_cmp(const void *a, const void *b)
{
	const struct lay_field *x = a, *y = b;

	if (x->bit_off != y->bit_off)
		return x->bit_off < y->bit_off ? -1 : 1;
	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	return strcmp(x->path, y->path);
}

int lay_relayout(struct lay_struct *s, const struct lay_move *mv, char *err, size_t cap)
{
	const struct lay_field *f = lay_find(s, mv->path), *o = NULL;
	struct lay_unit *v = NULL;
	int n, at, *order = NULL, *unit_of = NULL, maxalign = 1, rc = -1;

	if (!f) {
		snprintf(err, cap, "struct %s has no member '%s'", s->name, mv->path);
		return -1;
	}
	if (mv->kind == LAY_AFTER && !(o = lay_find(s, mv->other))) {
		snprintf(err, cap, "struct %s has no member '%s'", s->name, mv->other);
		return -1;
	}
	if (!(unit_of = malloc(((size_t)s->nslots + 1) * sizeof(*unit_of))) || units_of(s, &v, &n, unit_of) ||
	    !(order = malloc(((size_t)n + 1) * sizeof(*order)))) {
		snprintf(err, cap, "out of memory");
		goto out;
	}
	for (int i = 0; i < n; i++)
		order[i] = i;
	at = f->slot >= 0 ? unit_of[f->slot] : -1;
	if (at < 0) {
		snprintf(err, cap, "%s.%s: in no member of the struct", s->name, mv->path);
		goto out;
	}
	if (mv->kind == LAY_PAD) {
		v[at].own_line = 1;
	} else {
		int to = n - 1; /* the moved unit's new place in the order, the others' order kept */

		memmove(order + at, order + at + 1, (size_t)(n - at - 1) * sizeof(*order));
		if (mv->kind == LAY_OWN_LINE) {
			v[at].own_line = 1;
		} else if (mv->kind == LAY_AFTER) {
			int after = o->slot >= 0 ? unit_of[o->slot] : -1;

			if (after == at) {
				snprintf(err, cap,
					 "%s and %s are in the same member of %s (one holds the other, or a union "
					 "or bitfield unit holds both): nothing to move",
					 mv->path, mv->other, s->name);
				goto out;
			}
			for (to = 0; to < n - 1 && order[to] != after; to++)
				;
			to++;
		} else { /* LAY_OFFSET */
			if (mv->offset % (uint64_t)v[at].align) {
				snprintf(err, cap, "offset:%llu: %s needs %d-byte alignment",
					 (unsigned long long)mv->offset, mv->path, v[at].align);
				goto out;
			}
			for (to = 0; to < n - 1 && v[order[to]].start < mv->offset; to++)
				;
			v[at].forced = (int64_t)mv->offset;
		}
		/* a flexible array member (the struct's last unit, empty) stays last */
		if (to == n - 1 && n >= 2 && order[n - 2] == n - 1 && v[n - 1].empty)
			to = n - 2;
		memmove(order + to + 1, order + to, (size_t)(n - 1 - to) * sizeof(*order));
		order[to] = at;
	}
	{
		uint64_t cur = 0;

		for (int i = 0; i < n; i++) {
			struct lay_unit *x = &v[order[i]];
			uint64_t a = (uint64_t)x->align, size = x->end - x->start;

			if (x->line_start || x->own_line)
				a = a > LAY_LINE ? a : LAY_LINE;
			if (x->forced >= 0) {
				if ((uint64_t)x->forced < cur) {
					snprintf(
					    err, cap,
					    "offset:%lld: %s would overlap the member before it, which ends at %llu",
					    (long long)x->forced, mv->path, (unsigned long long)cur);
					goto out;
				}
				x->nstart = (uint64_t)x->forced;
			} else {
				x->nstart = align_up(cur, a);
			}
			cur = x->nstart + size;
			if (x->own_line)
				cur = align_up(cur, LAY_LINE);
			if ((int)a > maxalign)
				maxalign = (int)a;
		}
		s->size = align_up(cur, (uint64_t)maxalign);
	}
	/* every field moves with the member of the outermost struct that holds it */
	for (int i = 0; i < s->nfields; i++) {
		int k = s->f[i].slot >= 0 ? unit_of[s->f[i].slot] : -1;

		if (k >= 0)
			s->f[i].bit_off = s->f[i].bit_off - 8 * v[k].start + 8 * v[k].nstart;
	}
	qsort(s->f, (size_t)s->nfields, sizeof(*s->f), field_cmp);
	rc = 0;
out:
	free(order);
	free(v);
	free(unit_of);
	return rc;
}

/* ---- printing ------------------------------------------------------------------------------- */

static void print_struct(FILE *f, const struct lay_struct *s, int maxlevel)
{
	uint64_t end = 0; /* bytes: the furthest end of the outermost struct's members so far */
	int line = 0;

	fprintf(f, "struct %s: %llu bytes, %llu cache line%s of %d bytes\n", s->name, (unsigned long long)s->size,
		(unsigned long long)((s->size + LAY_LINE - 1) / LAY_LINE), s->size > LAY_LINE ? "s" : "", LAY_LINE);
	fprintf(f, "  %6s %6s %4s  %-46s %s\n", "offset", "size", "line", "field", "type");
	for (int i = 0; i < s->nfields; i++) {
		const struct lay_field *x = &s->f[i];
		uint64_t off = x->bit_off / 8;
		int l = (int)(off / LAY_LINE), hole = 0;

		if (x->level == 0 && !x->bitfield && off > end) {
			hole = 1;
			fprintf(f, "  %6s %6llu %4s  (hole: %llu bytes)\n", "", (unsigned long long)(off - end), "",
				(unsigned long long)(off - end));
		}
		if (x->level == 0 && l != line) {
			fprintf(f, "  --- line %d (byte %d)%s\n", l, l * LAY_LINE,
				hole && off % LAY_LINE == 0 ? ": the member below is cache-line aligned" : "");
			line = l;
		}
		if (x->level == 0) {
			uint64_t e = (x->bit_off + x->bit_size + 7) / 8;

			if (e > end)
				end = e;
		}
		if (x->level > maxlevel)
			continue;
		if (x->bitfield)
			fprintf(f, "  %4llu:%-2u %3ub %4d  %*s%-*s %s\n", (unsigned long long)off,
				(unsigned)(x->bit_off % 8), x->bit_size, l, 2 * x->level, "", 46 - 2 * x->level,
				x->path, x->type);
		else
			fprintf(f, "  %6llu %6llu %4d  %*s%-*s %s\n", (unsigned long long)off,
				(unsigned long long)x->size, l, 2 * x->level, "", 46 - 2 * x->level, x->path, x->type);
	}
	if (s->size > end)
		fprintf(f, "  %6s %6llu %4s  (padding at the end: %llu bytes)\n", "",
			(unsigned long long)(s->size - end), "", (unsigned long long)(s->size - end));
}

/* ---- scenario names -> BTF members ---------------------------------------------------------- */

/*
 * How a scenario's [layout] name (README "Scenarios": the object names) is found in the BTF: its
 * prefix names the struct, the rest the member path, tried as written and then as the alternatives
 * below (the first the BTF has wins).  The alternatives are the same object in other releases.
 */
static const struct {
	const char *prefix, *btf_struct;
} lay_prefix[] = {
    {"mm.", "mm_struct"},
    {"vma.", "vm_area_struct"},
};

static const struct {
	const char *name;
	const char *alt[3];
	const char *why;
} lay_alias[] = {
    /* include/linux/mm_types.h: a percpu_counter per NR_MM_COUNTERS from 6.2 (f1a7941243c1), before
     * it an atomic_long_t count[] in struct mm_rss_stat; the scenarios mean MM_ANONPAGES (1) */
    {"mm.rss_stat", {"rss_stat[1].lock", "rss_stat.count[1]"}, "rss_stat[MM_ANONPAGES]"},
    {"mm.rss_stat.lock", {"rss_stat[1].lock"}, "rss_stat[MM_ANONPAGES].lock"},
    {"mm.rss_stat.count", {"rss_stat[1].count", "rss_stat.count[1]"}, "rss_stat[MM_ANONPAGES].count"},
    {"mm.rss_stat.counters", {"rss_stat[1].counters"}, "rss_stat[MM_ANONPAGES].counters"},
    /* the has_pinned int became the MMF_HAS_PINNED bit of mm->flags */
    {"mm.has_pinned", {"has_pinned", "flags"}, "has_pinned, or mm->flags (MMF_HAS_PINNED)"},
    /* x86: arch/x86/include/asm/mmu.h mm_context_t */
    {"mm.tlb_gen", {"context.tlb_gen"}, "mm->context.tlb_gen (x86)"},
    /* the per-VMA lock: 6.15+ the vm_refcnt, before it a pointer to a separate vma_lock (its own
     * object, so its own line: left to the base profile) */
    {"vma.lock", {"vm_refcnt"}, "vm_refcnt (6.15+)"},
};

struct lay_names {
	char (*v)[128];
	int n, cap;
	int oom; /* a name could not be kept */
};

static void name_add(void *arg, const char *name)
{
	struct lay_names *l = arg;

	for (int i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], name))
			return;
	if (l->n == l->cap) {
		int nc = l->cap ? 2 * l->cap : 64;
		char(*nv)[128] = realloc(l->v, (size_t)nc * sizeof(*nv));

		if (!nv) {
			l->oom = 1; /* names_of_all reports it */
			return;
		}
		l->v = nv;
		l->cap = nc;
	}
	snprintf(l->v[l->n++], sizeof(l->v[0]), "%s", name);
}

/* The struct a name's prefix names, or -1. */
static int name_struct(const char *name)
{
	for (size_t i = 0; i < sizeof(lay_prefix) / sizeof(lay_prefix[0]); i++)
		if (!strncmp(name, lay_prefix[i].prefix, strlen(lay_prefix[i].prefix)))
			return (int)i;
	return -1;
}

/* The member @name stands for in @s (its struct's layout), or NULL; @how gets the path used. */
static const struct lay_field *name_member(const struct lay_struct *s, const char *name, int p, const char **how)
{
	const char *rest = name + strlen(lay_prefix[p].prefix);
	const struct lay_field *f = lay_find(s, rest);

	*how = rest;
	for (size_t i = 0; i < sizeof(lay_alias) / sizeof(lay_alias[0]); i++)
		if (!strcmp(lay_alias[i].name, name)) {
			f = NULL; /* an alias entry says what the name means: its alternatives, in order */
			for (int k = 0; k < 3 && lay_alias[i].alt[k] && !f; k++)
				if ((f = lay_find(s, lay_alias[i].alt[k])))
					*how = lay_alias[i].alt[k];
		}
	return f;
}

/* ---- the command ---------------------------------------------------------------------------- */

struct lay_opts {
	const char *btf, *base, *out, *diff[2], *scenario;
	int emit, force, help, depth;
	const char *structs[32];
	int nstructs;
	const char *moves[8]; /* --move FIELD=WHERE, --pad FIELD (as "FIELD=pad") */
	int nmoves;
};

static void layout_usage(FILE *f)
{
	fprintf(
	    f, "usage: mmsim layout [--btf FILE] STRUCT...\n"
	       "       mmsim layout [--btf FILE] --emit-profile [--base KERNEL] [--scenario FILE|NAME] [-o FILE] "
	       "[--force]\n"
	       "       mmsim layout --diff A B [--scenario FILE|NAME]\n\n"
	       "The kernel's structure layout from its BTF (libbpf): each member's offset, size and cache line,\n"
	       "nested and anonymous structs and unions walked (mm_struct.mmap_lock.count), holes and\n"
	       "line-aligned members marked.\n\n"
	       "  --btf FILE         the BTF to read: raw BTF or a vmlinux with a .BTF section [default: "
	       "" LAY_DEFAULT_BTF "]\n"
	       "  --emit-profile     write a kernel profile whose [layout] places every field the scenarios name\n"
	       "                     (mm.*: struct mm_struct, vma.*: struct vm_area_struct) on its real line\n"
	       "  --base KERNEL      the profile (a name, or a file) every other entry comes from [default:\n"
	       "                     linux-6.8]\n"
	       "  --scenario S       only the fields of scenario S (a built-in name or a .scn file); then a\n"
	       "                     field the BTF does not have is an error [default: every built-in scenario,\n"
	       "                     fields the BTF lacks listed as comments]\n"
	       "  -o, --out FILE     where the profile goes [default: stdout]; refused if it exists, unless --force\n"
	       "  --diff A B         the fields the scenarios name whose cache line differs between BTF files A and B\n"
	       "  --help             this text\n");
}

static int lay_die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int lay_die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "mmsim layout: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 1;
}

static int parse(int argc, char **argv, struct lay_opts *o)
{
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		int more = i + 1 < argc;

		if (!strcmp(a, "--help")) {
			o->help = 1;
		} else if (!strcmp(a, "--emit-profile")) {
			o->emit = 1;
		} else if (!strcmp(a, "--force")) {
			o->force = 1;
		} else if (!strcmp(a, "--depth")) {
			char *e;

			if (!more)
				return lay_die("--depth needs a value");
			o->depth = (int)strtol(argv[++i], &e, 10);
			if (*e || e == argv[i] || o->depth < 0 || o->depth > LAY_MAX_DEPTH)
				return lay_die("--depth '%s': expected a whole number from 0 to 16", argv[i]);
		} else if (!strcmp(a, "--btf") || !strcmp(a, "--base") || !strcmp(a, "-o") || !strcmp(a, "--out") ||
			   !strcmp(a, "--scenario")) {
			if (!more)
				return lay_die("%s needs a value", a);
			if (!strcmp(a, "--btf"))
				o->btf = argv[++i];
			else if (!strcmp(a, "--base"))
				o->base = argv[++i];
			else if (!strcmp(a, "--scenario"))
				o->scenario = argv[++i];
			else
				o->out = argv[++i];
		} else if (!strcmp(a, "--move") || !strcmp(a, "--pad")) {
			static char pads[8][200];

			if (!more)
				return lay_die("%s needs a value", a);
			if (o->nmoves == 8)
				return lay_die("at most 8 --move and --pad");
			if (!strcmp(a, "--pad")) {
				if (strlen(argv[i + 1]) + sizeof("=pad") > sizeof(pads[0]))
					return lay_die("--pad %s: a field name of more than %zu characters",
						       argv[i + 1], sizeof(pads[0]) - sizeof("=pad"));
				snprintf(pads[o->nmoves], sizeof(pads[0]), "%s=pad", argv[++i]);
				o->moves[o->nmoves] = pads[o->nmoves];
				o->nmoves++;
			} else {
				o->moves[o->nmoves++] = argv[++i];
			}
		} else if (!strcmp(a, "--diff")) {
			if (i + 2 >= argc)
				return lay_die("--diff needs two BTF files (A B)");
			o->diff[0] = argv[++i];
			o->diff[1] = argv[++i];
		} else if (a[0] == '-') {
			return lay_die("unknown option '%s' (see mmsim layout --help)", a);
		} else {
			if (o->nstructs == (int)(sizeof(o->structs) / sizeof(o->structs[0])))
				return lay_die("too many structs (at most 32)");
			o->structs[o->nstructs++] = a;
		}
	}
	if (o->help)
		return 0;
	if (o->diff[0] && (o->emit || o->btf || o->nstructs))
		return lay_die("--diff A B takes no --btf, --emit-profile or STRUCT");
	if (o->emit && o->nstructs)
		return lay_die("--emit-profile takes no STRUCT (it writes what the scenarios name)");
	if (!o->emit && (o->base || o->out || o->force || o->nmoves))
		return lay_die("--base, -o, --force, --move and --pad are for --emit-profile");
	if (o->scenario && !o->emit && !o->diff[0])
		return lay_die("--scenario is for --emit-profile and --diff");
	if (!o->emit && !o->diff[0] && !o->nstructs)
		return lay_die("name a STRUCT (e.g. mm_struct), or --emit-profile or --diff A B (see mmsim layout "
			       "--help)");
	return 0;
}

/* The [layout] names to place: one scenario's, or every built-in one's. */
static int names_of_all(const char *scenario, struct lay_names *l, char *err, size_t cap)
{
	struct mm_error e = {0};
	struct scenario sc;
	int v, rc;

	if (scenario && scenario_load(&sc, scenario, &v, &e)) {
		snprintf(err, cap, "%s", e.msg);
		return -1;
	}
	rc = scenario_layout_names(scenario ? &sc : NULL, name_add, l, &e);
	if (scenario)
		scenario_free(&sc);
	if (rc || l->oom) {
		snprintf(err, cap, "%s", rc ? e.msg : "out of memory for the scenarios' field names");
		return -1;
	}
	return 0;
}

/* The layouts of the structs the names' prefixes name, from @btf. */
static int load_structs(const struct btf *btf, const char *path, struct lay_struct *s, char *err, size_t cap)
{
	for (size_t p = 0; p < sizeof(lay_prefix) / sizeof(lay_prefix[0]); p++)
		if (lay_struct_get(btf, lay_prefix[p].btf_struct, &s[p], err, cap)) {
			char e2[400];

			snprintf(e2, sizeof(e2), "%.*s", (int)sizeof(e2) - 1, err);
			snprintf(err, cap, "%.300s: %s", path ? path : LAY_DEFAULT_BTF, e2);
			for (size_t q = 0; q < p; q++)
				lay_struct_free(&s[q]);
			return -1;
		}
	return 0;
}

#define NPREFIX (sizeof(lay_prefix) / sizeof(lay_prefix[0]))

static int cmd_diff(const struct lay_opts *o)
{
	struct btf *b[2] = {NULL, NULL};
	struct lay_struct s[2][NPREFIX];
	struct lay_names names = {0};
	char err[600];
	int rc = 1, changed = 0;

	if (lay_open(o->diff[0], &b[0], err, sizeof(err)) || lay_open(o->diff[1], &b[1], err, sizeof(err)))
		goto out;
	if (load_structs(b[0], o->diff[0], s[0], err, sizeof(err)))
		goto out;
	if (load_structs(b[1], o->diff[1], s[1], err, sizeof(err))) {
		for (size_t p = 0; p < NPREFIX; p++)
			lay_struct_free(&s[0][p]);
		goto out;
	}
	if (names_of_all(o->scenario, &names, err, sizeof(err)))
		goto free;
	printf("fields the scenarios name whose cache line differs: A %s, B %s\n", o->diff[0], o->diff[1]);
	printf("  %-28s %-30s %-30s\n", "field", "A: member @offset line", "B: member @offset line");
	for (int i = 0; i < names.n; i++) {
		int p = name_struct(names.v[i]);
		const char *how[2];
		const struct lay_field *f[2];
		char col[2][64];

		if (p < 0)
			continue;
		for (int k = 0; k < 2; k++) {
			f[k] = name_member(&s[k][p], names.v[i], p, &how[k]);
			if (f[k])
				snprintf(col[k], sizeof(col[k]), "%s @%llu line %llu", how[k],
					 (unsigned long long)(f[k]->bit_off / 8),
					 (unsigned long long)(f[k]->bit_off / 8 / LAY_LINE));
			else
				snprintf(col[k], sizeof(col[k]), "(not in %s)", lay_prefix[p].btf_struct);
		}
		if ((f[0] || f[1]) &&
		    (!f[0] || !f[1] || f[0]->bit_off / 8 / LAY_LINE != f[1]->bit_off / 8 / LAY_LINE)) {
			printf("  %-28s %-30s %-30s\n", names.v[i], col[0], col[1]);
			changed++;
		}
	}
	printf("%d field%s changed line\n", changed, changed == 1 ? "" : "s");
	rc = 0;
free:
	for (int k = 0; k < 2; k++)
		for (size_t p = 0; p < NPREFIX; p++)
			lay_struct_free(&s[k][p]);
out:
	if (rc)
		fprintf(stderr, "mmsim layout: %s\n", err);
	lay_close(b[0]);
	lay_close(b[1]);
	free(names.v);
	return rc;
}

/* --move FIELD=own-line|after:OTHER|offset:N, or FIELD=pad (--pad FIELD): FIELD and OTHER are
 * scenario names (mm.X, vma.X) or their structs' member paths after the prefix. */
static int apply_move(struct lay_struct *s, const char *spec, char *err, size_t cap)
{
	const char *eq = strchr(spec, '='), *how;
	char name[192], *end;
	struct lay_move m = {0};
	const struct lay_field *f;
	int p;

	if (!eq || eq == spec || (size_t)(eq - spec) >= sizeof(name)) {
		snprintf(err, cap, "--move '%s': expected FIELD=own-line, FIELD=after:OTHER or FIELD=offset:N", spec);
		return -1;
	}
	snprintf(name, sizeof(name), "%.*s", (int)(eq - spec), spec);
	if ((p = name_struct(name)) < 0) {
		snprintf(err, cap,
			 "--move '%s': expected a field of mm_struct (mm.FIELD) or vm_area_struct (vma.FIELD)", spec);
		return -1;
	}
	if (!(f = name_member(&s[p], name, p, &how))) {
		snprintf(err, cap, "--move '%s': struct %s has no member for %s", spec, lay_prefix[p].btf_struct, name);
		return -1;
	}
	snprintf(m.path, sizeof(m.path), "%s", f->path);
	eq++;
	if (!strcmp(eq, "own-line")) {
		m.kind = LAY_OWN_LINE;
	} else if (!strcmp(eq, "pad")) {
		m.kind = LAY_PAD;
	} else if (!strncmp(eq, "after:", 6)) {
		const struct lay_field *g;
		int q = name_struct(eq + 6);

		m.kind = LAY_AFTER;
		if (q >= 0 && q != p) {
			snprintf(err, cap, "--move '%s': %s is not in struct %s", spec, eq + 6,
				 lay_prefix[p].btf_struct);
			return -1;
		}
		g = q >= 0 ? name_member(&s[p], eq + 6, p, &how) : lay_find(&s[p], eq + 6);
		if (!g) {
			snprintf(err, cap, "--move '%s': struct %s has no member for %s", spec,
				 lay_prefix[p].btf_struct, eq + 6);
			return -1;
		}
		snprintf(m.other, sizeof(m.other), "%s", g->path);
	} else if (!strncmp(eq, "offset:", 7)) {
		m.kind = LAY_OFFSET;
		errno = 0;
		m.offset = strtoull(eq + 7, &end, 10);
		if (errno || end == eq + 7 || *end || m.offset > 1u << 20) {
			snprintf(err, cap, "--move '%s': offset:N wants a byte offset (a whole number up to 1048576)",
				 spec);
			return -1;
		}
	} else {
		snprintf(err, cap, "--move '%s': expected own-line, after:OTHER or offset:N after the '='", spec);
		return -1;
	}
	if (lay_relayout(&s[p], &m, err, cap)) {
		char e2[400];

		snprintf(e2, sizeof(e2), "%.*s", (int)sizeof(e2) - 1, err);
		snprintf(err, cap, "--move '%.200s': %s", spec, e2);
		return -1;
	}
	return 0;
}

/* The emitted text must load as a kernel profile (its base merged, its [layout] names checked
 * against the scenarios): written to @path, loaded, derived.  0, or -1 with @err. */
static int check_profile(const char *path, char *err, size_t cap)
{
	struct profile p;
	struct kernel_profile k;
	struct mm_error e = {0};
	int rc;

	if ((rc = profile_load(&p, "kernels", path, &e))) {
		snprintf(err, cap, "the emitted profile does not load: %s", e.msg);
		return -1;
	}
	rc = kernel_profile_derive(&k, &p, &e) || scenario_check_kernel_names(&k, NULL, 0, &e);
	profile_free(&p);
	if (rc) {
		snprintf(err, cap, "the emitted profile is refused: %s", e.msg);
		return -1;
	}
	return 0;
}

static int cmd_emit(const struct lay_opts *o)
{
	struct btf *b = NULL;
	struct lay_struct s[NPREFIX];
	struct lay_names names = {0};
	struct profile base;
	struct kernel_profile bk;
	struct mm_error e = {0};
	struct outfile of = {.slot = -1};
	struct utsname u;
	char err[1200], tmpname[4096 + 32], basepath[4096];
	const char *btf = o->btf ? o->btf : LAY_DEFAULT_BTF, *basename = o->base ? o->base : "linux-6.8";
	FILE *mf = NULL;
	int rc = 1, have_base = 0, have_structs = 0, missing = 0, placed = 0, tmpfd = -1, tmpslot = -1;
	const char *tmpdir = getenv("TMPDIR");

	if (o->out && outfile_check(o->out, o->force, "-o", &e)) {
		fprintf(stderr, "mmsim layout: %s\n", e.msg);
		return 1;
	}
	if (profile_load(&base, "kernels", basename, &e)) {
		fprintf(stderr, "mmsim layout: --base: %s\n", e.msg);
		return 1;
	}
	if (kernel_profile_derive(&bk, &base, &e)) {
		fprintf(stderr, "mmsim layout: --base: %s\n", e.msg);
		profile_free(&base);
		return 1;
	}
	have_base = 1;
	/* a base given as a file is named by its absolute path, so the profile loads from anywhere */
	if (strchr(basename, '/') || access(basename, F_OK) == 0) {
		if (!realpath(basename, basepath)) {
			snprintf(err, sizeof(err), "--base %s: %s", basename, strerror(errno));
			goto out;
		}
	} else {
		snprintf(basepath, sizeof(basepath), "%s", bk.name);
	}
	snprintf(tmpname, sizeof(tmpname), "%s/mmsim-layout-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
	if (lay_open(btf, &b, err, sizeof(err)) || load_structs(b, btf, s, err, sizeof(err)))
		goto out;
	have_structs = 1;
	for (int i = 0; i < o->nmoves; i++)
		if (apply_move(s, o->moves[i], err, sizeof(err)))
			goto out;
	if (names_of_all(o->scenario, &names, err, sizeof(err)))
		goto out;
	if (o->out) {
		if (outfile_open(&of, o->out, o->force, "-o", &e)) {
			snprintf(err, sizeof(err), "%s", e.msg);
			goto out;
		}
		mf = of.f;
	} else if ((tmpfd = mkstemp(tmpname)) < 0 || (tmpslot = cleanup_add_file(tmpname)) < 0 ||
		   !(mf = fdopen(tmpfd, "w+"))) {
		snprintf(err, sizeof(err), "a temporary file for the profile (%.600s): %s", tmpname, strerror(errno));
		goto out;
	}
	fprintf(mf, "# Kernel profile written by mmsim layout --emit-profile from the BTF %s", btf);
	if (!o->btf && uname(&u) == 0)
		fprintf(mf, " (the running kernel: %s %s)", u.sysname, u.release);
	fprintf(mf,
		".\n# Its [layout] places each field the scenarios name on the cache line its BTF offset gives\n"
		"# (offset / %d, the struct taken to start at a line boundary: mm_struct is cache-line aligned;\n"
		"# so is vm_area_struct where its BTF size is a multiple of %d, else the VMA's place in its slab\n"
		"# decides); every other entry is %s's.\n[kernel]\n# [assumed] name used on the command line\n"
		"name = %s-btf\n# [assumed] the base profile's release\nversion = %s\n# [assumed] every entry "
		"not set here is %s's\nbase = %s\n\n[layout]\n",
		LAY_LINE, LAY_LINE, bk.name, bk.name, bk.version, bk.name, basepath);
	for (int i = 0; i < o->nmoves; i++)
		fprintf(mf, "# what-if: --move %s: the struct laid out again, each member at its natural alignment\n",
			o->moves[i]);
	for (int i = 0; i < names.n; i++) {
		int p = name_struct(names.v[i]);
		const char *how;
		const struct lay_field *f;

		if (p < 0)
			continue; /* not a field of a struct read from the BTF (a zone, the LRU, a counter) */
		if (!(f = name_member(&s[p], names.v[i], p, &how))) {
			if (o->scenario) {
				snprintf(err, sizeof(err),
					 "%s: struct %s has no member '%s' in %s (the scenario %s names the field)",
					 names.v[i], lay_prefix[p].btf_struct,
					 names.v[i] + strlen(lay_prefix[p].prefix), btf, o->scenario);
				goto out;
			}
			fprintf(mf, "# not in this BTF: %s (struct %s has no %s; left to %s)\n", names.v[i],
				lay_prefix[p].btf_struct, names.v[i] + strlen(lay_prefix[p].prefix), bk.name);
			missing++;
			continue;
		}
		fprintf(mf, "# [derived] BTF %s: %s.%s @%llu, %llu bytes (%s): line %llu\n%s = %.*sline%llu\n", btf,
			lay_prefix[p].btf_struct, how, (unsigned long long)(f->bit_off / 8),
			(unsigned long long)f->size, f->type, (unsigned long long)(f->bit_off / 8 / LAY_LINE),
			names.v[i], (int)strlen(lay_prefix[p].prefix), names.v[i],
			(unsigned long long)(f->bit_off / 8 / LAY_LINE));
		placed++;
	}
	if (fflush(mf) || ferror(mf)) {
		snprintf(err, sizeof(err), "writing the profile: %s", strerror(errno));
		goto out;
	}
	if (check_profile(o->out ? of.tmp : tmpname, err, sizeof(err)))
		goto out;
	if (o->out) {
		if (outfile_commit(&of, &e)) {
			snprintf(err, sizeof(err), "%s", e.msg);
			goto out;
		}
		fprintf(stderr,
			"mmsim layout: wrote %s: %d fields placed from the BTF, %d not in it (see its comments)\n",
			o->out, placed, missing);
	} else {
		int c;

		rewind(mf);
		while ((c = fgetc(mf)) != EOF)
			putchar(c);
	}
	rc = 0;
out:
	if (rc)
		fprintf(stderr, "mmsim layout: %s\n", err);
	if (o->out && of.slot >= 0)
		outfile_abort(&of);
	if (!o->out && mf)
		fclose(mf);
	else if (!o->out && tmpfd >= 0)
		close(tmpfd);
	if (!o->out && tmpfd >= 0)
		unlink(tmpname);
	if (tmpslot >= 0)
		cleanup_forget_file(tmpslot);
	for (size_t p = 0; have_structs && p < NPREFIX; p++)
		lay_struct_free(&s[p]);
	if (have_base)
		profile_free(&base);
	lay_close(b);
	free(names.v);
	return rc;
}

int cmd_layout(int argc, char **argv)
{
	struct lay_opts o = {.depth = 1};
	struct btf *b = NULL;
	char err[600];
	int rc;

	if ((rc = parse(argc, argv, &o)))
		return 2;
	if (o.help) {
		layout_usage(stdout);
		return 0;
	}
	if (o.diff[0])
		return cmd_diff(&o);
	if (o.emit)
		return cmd_emit(&o);
	if (lay_open(o.btf, &b, err, sizeof(err))) {
		fprintf(stderr, "mmsim layout: %s\n", err);
		return 1;
	}
	rc = 0;
	for (int i = 0; i < o.nstructs && !rc; i++) {
		struct lay_struct s;

		if (lay_struct_get(b, o.structs[i], &s, err, sizeof(err))) {
			fprintf(stderr, "mmsim layout: %s: %s\n", o.btf ? o.btf : LAY_DEFAULT_BTF, err);
			rc = 1;
			break;
		}
		if (i)
			printf("\n");
		print_struct(stdout, &s, o.depth);
		lay_struct_free(&s);
	}
	lay_close(b);
	return rc;
}
