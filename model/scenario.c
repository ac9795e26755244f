/* SPDX-License-Identifier: MIT */
#include "scenario.h"
#include "builtin.h"

#include <assert.h>
#include <ctype.h>
#include <stdarg.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <fnmatch.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const scope_names[SC_NSCOPES] = {"global", "node", "cpu", "memcg",  "file",
						    "mm",     "task", "vma", "ptpage", "page"};
static const char *const act_names[SA_NACTS] = {
    "compute", "load", "store", "atomic", "cmpxchg", "prefetchw", "fence", "lock",   "trylock", "unlock", "downgrade",
    "memory",  "ipi",  "miss",	"repeat", "every",   "only",	  "as",	   "choose", "else",	"end"};

/* Does a step of @a open a block that an END closes in the compiled program ('only' is gone there)? */
static int opens_block(enum sc_act a)
{
	return a == SA_REPEAT || a == SA_EVERY || a == SA_AS || a == SA_CHOOSE;
}

/*
 * The folio layouts an 'every' may name instead of a count (README "Large folios"): the units one
 * pass over a task's file maps, by write faults (each maps one page, or with [batch] map_whole_folio
 * its whole folio) or by read faults (fault-around: a window of fault_around_pages, or the whole
 * folio when larger and map_whole_folio), PTE-mapped or PMD-mapped (a folio of ptes_per_table pages
 * in a PMD-aligned mapping: do_set_pmd in finish_fault, filemap_map_pmd in filemap_map_pages, both
 * long before large folios).  Inside, 'repeat unit_pages' runs once per page of the unit that fired
 * ('every N': N pages, known at compile time), 'repeat unit_folios' once per folio it maps all or
 * part of (a read window over small folios maps several; 'every N': N, a page each), 'repeat
 * unit_folio_pages' once per page of those folios (a page of a large folio written alone: the
 * whole folio's, as block_page_mkwrite walks it), 'repeat unit_large_folio' once when the unit is
 * a run of two or more pages of one folio (a large folio mapped whole, or a window inside one), not
 * at all for a unit of small folios or of one page.
 */
static const char *const layout_names[] = {"file_write_pte", "file_write_pmd", "file_read_pte", "file_read_pmd"};

/* 'repeat unit_pages|unit_others|unit_folios|unit_folio_pages|unit_large_folio' (inside a layout's or
 * a count's 'every'): 1 to 5; else 0 */
static int unit_repeat(const char *name)
{
	static const char *const names[] = {"unit_pages", "unit_others", "unit_folios", "unit_folio_pages",
					    "unit_large_folio"};

	for (int i = 0; i < 5; i++)
		if (!strcmp(name, names[i]))
			return i + 1;
	return 0;
}

static int layout_index(const char *name)
{
	for (int i = 0; i < (int)(sizeof(layout_names) / sizeof(layout_names[0])); i++)
		if (!strcmp(name, layout_names[i]))
			return i;
	return -1;
}

/* 'LAYOUT.pages' / 'LAYOUT.units' / 'LAYOUT.folios' (a repeat over the pages, the units or the
 * folios of one pass that the layout's class maps): the layout, or -1. */
static int layout_pages_name(const char *name)
{
	const char *dot = strchr(name, '.');
	char buf[64];

	if (!dot || (strcmp(dot, ".pages") && strcmp(dot, ".units") && strcmp(dot, ".folios")) ||
	    (size_t)(dot - name) >= sizeof(buf))
		return -1;
	memcpy(buf, name, dot - name);
	buf[dot - name] = 0;
	return layout_index(buf);
}

/* The [batch] keys a layout is built from, beside pages_per_map, ptes_per_table, fault_around_pages. */
static const char *const layout_keys[] = {"ra_pages", "folio_max_order", "map_whole_folio"};
/* and the others it reads, which other steps name too */
static const char *const layout_more_keys[] = {"pages_per_map", "ptes_per_table", "fault_around_pages"};

const char *sc_scope_name(enum sc_scope s)
{
	return (unsigned)s < SC_NSCOPES ? scope_names[s] : "?";
}

const char *sc_act_name(enum sc_act a)
{
	return (unsigned)a < SA_NACTS ? act_names[a] : "?";
}

#define MAX_TOK 24

struct tok {
	char text[256];
	int col;
	int quoted;
};

struct parser {
	struct scenario *sc;
	const char *origin;
	struct mm_error *err;
	int line;
	int ntok;
	struct tok tok[MAX_TOK];
	int cap_obj, cap_step, cap_fn;
	int in_body;
	int stack[64];
	int depth;
	/* define NAME ... end: steps written once, inlined by 'call NAME' */
	struct sc_define {
		char name[SC_NAME];
		const char *start, *end; /* the body's text */
		int first_line;
	} def[SC_MAX_DEFINES];
	int ndef;
	int collecting;	       /* inside a define: lines are kept, not parsed */
	int def_depth;	       /* blocks open inside it */
	int call_depth;	       /* calls being expanded */
	const char *next_line; /* text after the line being parsed */
	/* 'variant NEW like OLD': like[NEW] = OLD + 1 (0: not derived); its 'drop', 'replace' and
	 * 'insert' lines, applied to NEW in file order once the steps are all read */
	int like[SC_MAX_VARIANTS];
	struct sc_edit {
		enum { ED_DROP, ED_REPLACE, ED_BEFORE, ED_AFTER } kind;
		int variant, line, col;
		char fn[SC_NAME], act[SC_NAME], arg[SC_NAME]; /* the step edited; arg "": any */
		int first, last;			      /* replace, insert: the block's steps, [first, last) */
		int anchor; /* replace, insert: the step the block goes beside, once applied */
	} edit[32];
	int nedit;
	int open_edit;		/* a replace or insert block being read: its edit + 1 (0: none) */
	int based;		/* 'base X': the steps are X's; this file adds derived variants */
	char base_origin[4096]; /* X's path, where the lines of its steps are */
};

static int perr(struct parser *p, int col, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int perr(struct parser *p, int col, const char *fmt, ...)
{
	char msg[700];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return mm_fail(p->err, MM_EPARSE, "%s:%d:%d: %s", p->origin, p->line, col, msg);
}

/* Split one line into tokens; "quoted strings" are one token; '#' starts a comment. */
static int tokenize(struct parser *p, const char *s, size_t len)
{
	size_t i = 0;

	p->ntok = 0;
	while (i < len) {
		struct tok *t;
		size_t k = 0, n = 0;

		while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r'))
			i++;
		if (i >= len || s[i] == '#')
			break;
		if (p->ntok == MAX_TOK)
			return perr(p, (int)i + 1, "too many words on one line (at most %d)", MAX_TOK);
		t = &p->tok[p->ntok++];
		t->col = (int)i + 1;
		t->quoted = s[i] == '"';
		if (t->quoted) {
			i++;
			while (i < len && s[i] != '"') {
				if (k + 1 < sizeof(t->text))
					t->text[k++] = s[i];
				i++, n++;
			}
			if (i >= len)
				return perr(p, t->col, "unterminated string (expected a closing '\"')");
			i++;
		} else {
			while (i < len && s[i] != ' ' && s[i] != '\t' && s[i] != '\r' && s[i] != '#') {
				if (k + 1 < sizeof(t->text))
					t->text[k++] = s[i];
				i++, n++;
			}
		}
		t->text[k] = 0;
		/* a cut word could name something else, or merge with another name */
		if (n >= sizeof(t->text))
			return perr(p, t->col, "%s of %zu characters (at most %zu)", t->quoted ? "a text" : "a word", n,
				    sizeof(t->text) - 1);
	}
	return 0;
}

static int is_ident(const char *s)
{
	if (!*s || !(isalpha((unsigned char)*s) || *s == '_'))
		return 0;
	for (; *s; s++)
		if (!(isalnum((unsigned char)*s) || *s == '_' || *s == '.' || *s == '-'))
			return 0;
	return 1;
}

static int want_ident(struct parser *p, int i, const char *what, char *dst)
{
	if (i >= p->ntok)
		return perr(p, i ? p->tok[i - 1].col + (int)strlen(p->tok[i - 1].text) + 1 : 1,
			    "expected %s at the end of the line", what);
	if (p->tok[i].quoted || !is_ident(p->tok[i].text) || strlen(p->tok[i].text) >= SC_NAME)
		return perr(p, p->tok[i].col, "expected %s (a name: letters, digits, '_', '.', '-'), found '%s'", what,
			    p->tok[i].text);
	strcpy(dst, p->tok[i].text);
	return 0;
}

static int want_end_of_line(struct parser *p, int i)
{
	if (i < p->ntok)
		return perr(p, p->tok[i].col, "unexpected '%s' (expected the end of the line)", p->tok[i].text);
	return 0;
}

static int is_digits(const char *s)
{
	return *s && strspn(s, "0123456789") == strlen(s);
}

/* A decimal number that starts @t (not hex, inf or nan): its value and where it ends; 0, or -1. */
static int parse_decimal(const char *t, double *v, const char **end)
{
	size_t n = profile_decimal_len(t);
	char *e;

	errno = 0;
	*v = strtod(t, &e);
	*end = e;
	return n && e == t + n && !errno && isfinite(*v) ? 0 : -1;
}

static int parse_count(struct parser *p, int i, long lo, long hi, long *v)
{
	char *end;

	if (i >= p->ntok)
		return perr(p, 1, "expected a number at the end of the line");
	errno = 0;
	*v = strtol(p->tok[i].text, &end, 10);
	if (*end || end == p->tok[i].text || errno || !is_digits(p->tok[i].text))
		return perr(p, p->tok[i].col, "expected a whole number in decimal digits, found '%s'", p->tok[i].text);
	if (*v < lo || *v > hi)
		return perr(p, p->tok[i].col, "%ld is out of range (expected %ld to %ld)", *v, lo, hi);
	return 0;
}

/* A percentage: a decimal number from 0 to 100 and '%' (25%, 12.5%). */
static int parse_percent(struct parser *p, int i, const char *what, double *v)
{
	const char *t, *end;

	if (i >= p->ntok)
		return perr(p, p->tok[i - 1].col + (int)strlen(p->tok[i - 1].text) + 1,
			    "expected %s, a percentage like 25%%, at the end of the line", what);
	t = p->tok[i].text;
	if (p->tok[i].quoted || parse_decimal(t, v, &end) || strcmp(end, "%") || *v < 0 || *v > 100)
		return perr(p, p->tok[i].col, "expected %s, a percentage from 0%% to 100%% (like 25%%), found '%s'",
			    what, t);
	return 0;
}

static int find_role(const struct scenario *sc, const char *name)
{
	for (int r = 0; r < sc->nrole; r++)
		if (!strcmp(sc->role[r].name, name))
			return r;
	return -1;
}

/* role NAME tasks N [rt]  |  role NAME share P% [rt] */
static int parse_role(struct parser *p)
{
	struct scenario *sc = p->sc;
	struct sc_role *r = &sc->role[sc->nrole];
	double sum = 0;
	long n;
	int rc;

	if (sc->nrole == SC_MAX_ROLES)
		return perr(p, p->tok[0].col, "too many roles (at most %d)", SC_MAX_ROLES);
	memset(r, 0, sizeof(*r));
	if ((rc = want_ident(p, 1, "a role name", r->name)))
		return rc;
	if (find_role(sc, r->name) >= 0)
		return perr(p, p->tok[1].col, "role '%s' is declared twice", r->name);
	if (p->ntok < 3 || (strcmp(p->tok[2].text, "tasks") && strcmp(p->tok[2].text, "share")))
		return perr(p, p->ntok < 3 ? p->tok[1].col + (int)strlen(p->tok[1].text) + 1 : p->tok[2].col,
			    "expected 'tasks N' or 'share P%%' after the role name");
	if (!strcmp(p->tok[2].text, "tasks")) {
		if ((rc = parse_count(p, 3, 1, 1000000, &n)))
			return rc;
		r->ntasks = (int)n;
	} else {
		if ((rc = parse_percent(p, 3, "the role's share of the tasks", &r->share)))
			return rc;
		for (int k = 0; k < sc->nrole; k++)
			sum += sc->role[k].share;
		if (sum + r->share > 100 + 1e-9)
			return perr(p, p->tok[3].col,
				    "the roles' shares add up to %g%% with this one (at most 100%% of the tasks)",
				    sum + r->share);
	}
	/* rt: the role's tasks are real-time, as SCHED_FIFO makes them (the locks' rt_task() rules) */
	if (p->ntok > 4 && !strcmp(p->tok[4].text, "rt"))
		r->rt = 1;
	else if (p->ntok > 4)
		return perr(p, p->tok[4].col, "unexpected '%s' (expected 'rt' or the end of the line)", p->tok[4].text);
	if ((rc = want_end_of_line(p, 4 + r->rt)))
		return rc;
	r->line_no = p->line;
	sc->nrole++;
	return 0;
}

static int find_obj(const struct scenario *sc, const char *name)
{
	for (int i = 0; i < sc->nobj; i++)
		if (!strcmp(sc->obj[i].name, name))
			return i;
	return -1;
}

int scenario_variant(const struct scenario *sc, const char *name)
{
	for (int i = 0; i < sc->nvar; i++)
		if (!strcmp(sc->var[i].name, name))
			return i;
	return -1;
}

static int grow(void **arr, int *cap, int n, size_t elem)
{
	if (n < *cap)
		return 0;
	int ncap = *cap ? *cap * 2 : 32;
	void *na = realloc(*arr, (size_t)ncap * elem);

	if (!na)
		return MM_ENOMEM;
	*arr = na;
	*cap = ncap;
	return 0;
}

/* field NAME scope SCOPE [count N]  |  lock NAME TYPE scope SCOPE [count N] */
static int parse_decl(struct parser *p, int is_lock)
{
	struct scenario *sc = p->sc;
	struct sc_object o = {0};
	int i = 1, rc;
	long n;

	if ((rc = want_ident(p, i++, is_lock ? "a lock name" : "a field name", o.name)))
		return rc;
	if (find_obj(sc, o.name) >= 0)
		return perr(p, p->tok[1].col, "'%s' is declared twice", o.name);
	o.is_lock = is_lock;
	if (is_lock) {
		if (i >= p->ntok || !(o.kind = lock_kind_find(p->tok[i].text))) {
			char kinds[128];

			lock_kind_list(0, kinds, sizeof(kinds));
			return perr(p, i < p->ntok ? p->tok[i].col : 1, "expected a lock type: %s%s%s%s", kinds,
				    i < p->ntok ? ", found '" : "", i < p->ntok ? p->tok[i].text : "",
				    i < p->ntok ? "'" : "");
		}
		i++;
	}
	if (i >= p->ntok || strcmp(p->tok[i].text, "scope"))
		return perr(p, i < p->ntok ? p->tok[i].col : 1, "expected 'scope' after the %s name",
			    is_lock ? "lock type" : "field");
	i++;
	if (i >= p->ntok)
		return perr(p, 1, "expected a scope (global, node, cpu, memcg, file, mm, task, vma, ptpage, page)");
	for (o.scope = 0; o.scope < SC_NSCOPES && strcmp(scope_names[o.scope], p->tok[i].text); o.scope++)
		;
	if (o.scope == SC_NSCOPES)
		return perr(
		    p, p->tok[i].col,
		    "unknown scope '%s' (expected global, node, cpu, memcg, file, mm, task, vma, ptpage or page)",
		    p->tok[i].text);
	i++;
	o.count = 1;
	if (i < p->ntok && !strcmp(p->tok[i].text, "count")) {
		if ((rc = parse_count(p, i + 1, 1, 1 << 20, &n)))
			return rc;
		o.count = (int)n;
		i += 2;
	}
	if ((rc = want_end_of_line(p, i)))
		return rc;
	o.line_no = p->line;
	if (grow((void **)&sc->obj, &p->cap_obj, sc->nobj, sizeof(o)))
		return MM_ENOMEM;
	sc->obj[sc->nobj++] = o;
	return 0;
}

/* A word after 'kernel' that names a profile file, not a version: it has a '/' or ends in .conf or
 * .ini (a file of --kernel has a '/' or is there; a version never has either). */
static int is_kernel_file(const char *w)
{
	size_t n = strlen(w);

	return strchr(w, '/') || (n > 5 && !strcmp(w + n - 5, ".conf")) || (n > 4 && !strcmp(w + n - 4, ".ini"));
}

/* 'kernel FILE': the path against the directory of this scenario file, not the cwd (a what-if
 * travels with its profiles), always with a '/' so that profile_load reads it as a file; checked
 * here, so that a missing profile is an error at this line. */
static int kernel_file(struct parser *p, const struct tok *t, struct sc_variant *v)
{
	const char *slash = strrchr(p->origin, '/');
	int dir = t->text[0] != '/' && slash ? (int)(slash - p->origin) + 1 : 0, n;
	struct stat st;

	if (!strncmp(p->origin, "builtin:", 8))
		return perr(p, t->col, "a built-in scenario names its kernel by version (e.g. kernel 6.6), found '%s'",
			    t->text);
	n = snprintf(v->kernel_file, sizeof(v->kernel_file), "%s%.*s%s", t->text[0] == '/' || dir ? "" : "./", dir,
		     p->origin, t->text);
	if (n >= (int)sizeof(v->kernel_file))
		return perr(p, t->col, "a kernel profile path of %d characters (at most %zu)", n,
			    sizeof(v->kernel_file) - 1);
	if (stat(v->kernel_file, &st) || access(v->kernel_file, R_OK))
		return perr(p, t->col, "kernel profile '%s': cannot open: %s", v->kernel_file, strerror(errno));
	if (S_ISDIR(st.st_mode))
		return perr(p, t->col, "kernel profile '%s' is a directory (expected a profile file)", v->kernel_file);
	snprintf(v->kernel, sizeof(v->kernel), "%.31s", t->text);
	return 0;
}

const char *scenario_kernel_profile(const struct sc_variant *v, char *buf, size_t cap)
{
	if (v->kernel_file[0])
		return v->kernel_file;
	snprintf(buf, cap, "linux-%s", v->kernel);
	return buf;
}

/* variant NAME kernel VERSION|FILE "what it models" */
/* A variant line from token @i on: 'kernel VERSION' or 'kernel FILE' (optional when
 * @kernel_optional, as after 'like OLD'), then the quoted description, then the end of the line. */
static int variant_tail(struct parser *p, int i, struct sc_variant *v, int kernel_optional)
{
	int rc;

	if (p->ntok > i && !strcmp(p->tok[i].text, "kernel")) {
		if (p->ntok < i + 2 || p->tok[i + 1].quoted)
			return perr(p, 1, "expected a kernel version after 'kernel' (e.g. 5.11)");
		v->kernel_file[0] = 0; /* over OLD's, after 'like OLD' */
		if (is_kernel_file(p->tok[i + 1].text)) {
			if ((rc = kernel_file(p, &p->tok[i + 1], v)))
				return rc;
		} else if (!profile_is_version(p->tok[i + 1].text)) {
			return perr(p, p->tok[i + 1].col,
				    "expected a kernel version MAJOR.MINOR after 'kernel' (e.g. 5.11), found '%s' (or "
				    "a profile file: a path with '/' or ending in .conf)",
				    p->tok[i + 1].text);
		} else {
			snprintf(v->kernel, sizeof(v->kernel), "%.31s", p->tok[i + 1].text);
		}
		i += 2;
	} else if (!kernel_optional) {
		return perr(p, p->ntok <= i ? 1 : p->tok[i].col,
			    "expected 'kernel VERSION' after the variant name (e.g. kernel 5.11)");
	}
	if (p->ntok <= i || !p->tok[i].quoted)
		return perr(p, p->ntok <= i ? 1 : p->tok[i].col,
			    "expected a quoted description of what the variant models");
	snprintf(v->doc, sizeof(v->doc), "%s", p->tok[i].text);
	return want_end_of_line(p, i + 1);
}

static int parse_variant(struct parser *p)
{
	struct scenario *sc = p->sc;
	struct sc_variant *v;
	int rc, like = 0;

	if (sc->nvar == SC_MAX_VARIANTS)
		return perr(p, 1, "too many variants (at most %d)", SC_MAX_VARIANTS);
	v = &sc->var[sc->nvar];
	memset(v, 0, sizeof(*v));
	if ((rc = want_ident(p, 1, "a variant name", v->name)))
		return rc;
	if (scenario_variant(sc, v->name) >= 0)
		return perr(p, p->tok[1].col, "variant '%s' is declared twice", v->name);
	if (p->ntok > 2 && !strcmp(p->tok[2].text, "like")) {
		/* variant NEW like OLD [kernel V] "doc": every step of OLD, less what 'drop' lines take
		 * out, under OLD's kernel unless given */
		char old[SC_NAME];

		if ((rc = want_ident(p, 3, "the variant it is like", old)))
			return rc;
		if ((like = scenario_variant(sc, old) + 1) == 0)
			return perr(p, p->tok[3].col, "unknown variant '%s' (declare it with 'variant' first)", old);
		/* another variant's kernel, a version or a file */
		memcpy(v->kernel, sc->var[like - 1].kernel, sizeof(v->kernel));
		memcpy(v->kernel_file, sc->var[like - 1].kernel_file, sizeof(v->kernel_file));
		sc->footprint[sc->nvar] = sc->footprint[like - 1];
	} else if (p->based) {
		return perr(p, p->tok[0].col, "a file with 'base' declares 'variant NEW like OLD \"...\"' variants");
	}
	if ((rc = variant_tail(p, like ? 4 : 2, v, like)))
		return rc;
	p->like[sc->nvar] = like;
	v->line_no = p->line;
	sc->nvar++;
	return 0;
}

static int variant_mask(struct parser *p, int i, sc_varmask *mask)
{
	char buf[256], *save, *name;

	if (i >= p->ntok)
		return perr(p, 1, "expected variant names (V1,V2,...) at the end of the line");
	snprintf(buf, sizeof(buf), "%s", p->tok[i].text);
	*mask = 0;
	if (!buf[0] || buf[0] == ',' || buf[strlen(buf) - 1] == ',' || strstr(buf, ",,"))
		return perr(p, p->tok[i].col, "expected variant names separated by commas (V1,V2), found '%s'",
			    p->tok[i].text);
	for (name = strtok_r(buf, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		int v;

		if (strpbrk(name, "*?[")) {
			/* a shell pattern (fnmatch): every variant declared so far that it matches */
			sc_varmask some = 0;

			for (v = 0; v < p->sc->nvar; v++)
				if (!fnmatch(name, p->sc->var[v].name, 0))
					some |= SC_VBIT(v);
			if (!some)
				return perr(p, p->tok[i].col, "'%s' matches no variant declared so far", name);
			*mask |= some;
			continue;
		}
		if ((v = scenario_variant(p->sc, name)) < 0)
			return perr(p, p->tok[i].col, "unknown variant '%s' (declare it with 'variant' first)", name);
		*mask |= SC_VBIT(v);
	}
	return 0;
}

static int fn_index(struct parser *p, const char *name)
{
	struct scenario *sc = p->sc;

	for (int i = 0; i < sc->nfn; i++)
		if (!strcmp(sc->fn[i], name))
			return i;
	if (grow((void **)&sc->fn, &p->cap_fn, sc->nfn, sizeof(*sc->fn)))
		return MM_ENOMEM;
	snprintf(sc->fn[sc->nfn], SC_NAME, "%.*s", SC_NAME - 1, name); /* the caller checked its length */
	return sc->nfn++;
}

/* NAME, NAME[i] or NAME[i/K] */
static int parse_objref(struct parser *p, int i, struct sc_step *st, int want_lock)
{
	char name[SC_NAME];
	const char *t, *br;
	int o;

	if (i >= p->ntok)
		return perr(p, 1, "expected %s after '%s'", want_lock ? "a lock" : "a field", act_names[st->act]);
	t = p->tok[i].text;
	br = strchr(t, '[');
	snprintf(name, sizeof(name), "%.*s", (int)(br ? br - t : (long)strlen(t)), t);
	o = find_obj(p->sc, name);
	/* cut to the buffer, it could match another declared name */
	if ((size_t)(br ? br - t : (long)strlen(t)) >= sizeof(name))
		return perr(p, p->tok[i].col, "expected %s (a name of at most %zu characters), found '%s'",
			    want_lock ? "a lock" : "a field", sizeof(name) - 1, t);
	if (o < 0)
		return perr(p, p->tok[i].col, "unknown %s '%s' (declare it with '%s' first)",
			    want_lock ? "lock" : "field", name, want_lock ? "lock" : "field");
	if (p->sc->obj[o].is_lock != want_lock)
		return perr(p, p->tok[i].col, "'%s' is a %s; '%s' needs a %s", name,
			    p->sc->obj[o].is_lock ? "lock" : "field", act_names[st->act], want_lock ? "lock" : "field");
	st->obj = o;
	st->idx_div = 0;
	if (br) {
		long div = 1;
		char *end;

		if (!strcmp(br, "[i]")) {
			div = 1;
		} else if (!strncmp(br, "[i/", 3)) {
			errno = 0;
			div = strtol(br + 3, &end, 10);
			if (errno || div < 1 || div > (1L << 30) || strcmp(end, "]") ||
			    strspn(br + 3, "0123456789") != (size_t)(end - (br + 3)))
				return perr(p, p->tok[i].col + (int)(br - t),
					    "expected an index '[i]' or '[i/K]' with K a whole number >= 1 (decimal "
					    "digits, at most 2^30)");
		} else {
			return perr(p, p->tok[i].col + (int)(br - t),
				    "expected an index '[i]' or '[i/K]' (i is the innermost repeat's counter)");
		}
		st->idx_div = (int)div;
	}
	return 0;
}

/* a cost: NAME, or a literal like 120ns / 300cycles */
static int parse_cost(struct parser *p, int i, struct sc_step *st)
{
	const char *t, *end;

	if (i >= p->ntok)
		return perr(p, 1,
			    "expected a cost after 'compute': a name from the kernel profile's [costs], or "
			    "a literal like 120ns or 300cycles");
	t = p->tok[i].text;
	if (isdigit((unsigned char)t[0]) || t[0] == '.') {
		int bad = parse_decimal(t, &st->literal, &end);
		/* 0 is a what-if (the step's work removed); else at least 1 ps, the simulator's tick,
		 * at any frequency a profile allows (10 GHz: 0.01 cycles) */
		double least = 0;

		if (!strcmp(end, "ns"))
			st->literal_unit = 1, least = 0.001;
		else if (!strcmp(end, "cycles"))
			st->literal_unit = 2, least = 0.01;
		else
			return perr(p, p->tok[i].col,
				    "expected a unit after the number: 'ns' or 'cycles' (e.g. 120ns), found '%s'", t);
		if (bad || (st->literal != 0 && st->literal < least) || st->literal > 1e12)
			return perr(p, p->tok[i].col, "impossible cost '%s' (expected 0, or %g%s to 1e12%s)", t, least,
				    end, end);
		return 0;
	}
	if (!is_ident(t) || strlen(t) >= SC_NAME)
		return perr(p, p->tok[i].col, "expected a cost name or a literal like 120ns, found '%s'", t);
	strcpy(st->name, t);
	return 0;
}

/* DRAM accesses when cold: a number like 0.5, or a name from the kernel profile's [misses] */
static int parse_misses(struct parser *p, int i, struct sc_step *st)
{
	const char *t, *end;

	if (i >= p->ntok)
		return perr(p, 1, "expected a count after 'miss': a number like 0.5, or a name from [misses]");
	t = p->tok[i].text;
	if (isdigit((unsigned char)t[0]) || t[0] == '.') {
		if (parse_decimal(t, &st->literal, &end) || *end || st->literal < 0 || st->literal > 1e6)
			return perr(p, p->tok[i].col,
				    "impossible count '%s' after 'miss' (expected a decimal number, 0 to 1e6)", t);
		return 0;
	}
	return want_ident(p, i, "a count (0.5) or a [misses] name", st->name);
}

/* a size in bytes: 4096, 4KiB, 2MiB, 1GiB, or a name from the kernel profile's [batch] */
static int parse_bytes(struct parser *p, int i, struct sc_step *st)
{
	static const struct {
		const char *suffix;
		double mult;
	} units[] = {{"", 1}, {"B", 1}, {"KiB", 1024}, {"MiB", 1048576}, {"GiB", 1073741824}};
	const char *t, *end;
	int bad;

	if (i >= p->ntok)
		return perr(p, 1, "expected a size after 'memory': bytes like 4096, 4KiB or 2MiB, or a [batch] name");
	t = p->tok[i].text;
	if (!isdigit((unsigned char)t[0]))
		return want_ident(p, i, "a size (4096, 4KiB, 2MiB) or a [batch] name", st->name);
	bad = parse_decimal(t, &st->literal, &end);
	for (size_t u = 0; u < sizeof(units) / sizeof(units[0]); u++) {
		if (strcmp(end, units[u].suffix))
			continue;
		st->literal *= units[u].mult;
		/* whole bytes: 4.5MiB is, 1.5B is not (a count of bytes would silently drop the half) */
		if (bad || st->literal < 1 || st->literal > 1e15 || st->literal != floor(st->literal))
			return perr(p, p->tok[i].col,
				    "impossible size '%s' (expected a decimal number of whole bytes, 1 to 1e15)", t);
		return 0;
	}
	return perr(p, p->tok[i].col, "expected a size unit after the number: B, KiB, MiB or GiB (e.g. 4KiB)");
}

static int parse_body_line(struct parser *p);

/* call NAME [when V1,V2]: the define's steps, parsed again here */
static int expand_call(struct parser *p)
{
	struct scenario *sc = p->sc;
	char name[SC_NAME];
	sc_varmask mask = ~(sc_varmask)0;
	int d, rc, first = sc->nsteps, line = p->line, depth = p->depth, i = 2;
	const char *s, *next = p->next_line;

	if ((rc = want_ident(p, 1, "the name of a define", name)))
		return rc;
	for (d = 0; d < p->ndef && strcmp(p->def[d].name, name); d++)
		;
	if (d == p->ndef)
		return perr(p, p->tok[1].col, "unknown define '%s' (write 'define %s' ... 'end' before 'begin')", name,
			    name);
	if (i < p->ntok && !strcmp(p->tok[i].text, "when")) {
		if ((rc = variant_mask(p, i + 1, &mask)))
			return rc;
		i += 2;
	}
	if ((rc = want_end_of_line(p, i)))
		return rc;
	if (p->call_depth == 8)
		return perr(p, p->tok[0].col, "calls nested deeper than 8 (does '%s' call itself?)", name);
	p->call_depth++;
	p->line = p->def[d].first_line;
	for (s = p->def[d].start; s < p->def[d].end && !rc;) {
		const char *eol = memchr(s, '\n', (size_t)(p->def[d].end - s));
		size_t len = eol ? (size_t)(eol - s) : (size_t)(p->def[d].end - s);

		if (!(rc = tokenize(p, s, len)) && p->ntok)
			rc = parse_body_line(p);
		s += len + 1;
		p->line++;
	}
	p->call_depth--;
	p->line = line;
	p->next_line = next;
	if (rc)
		return rc;
	if (p->depth != depth)
		return perr(p, 1, "define '%s' leaves a block open", name);
	for (int k = first; k < sc->nsteps; k++)
		sc->step[k].variants &= mask;
	return 0;
}

static int push_step(struct parser *p, struct sc_step *st)
{
	struct scenario *sc = p->sc;

	if (grow((void **)&sc->step, &p->cap_step, sc->nsteps, sizeof(*st)))
		return MM_ENOMEM;
	sc->step[sc->nsteps++] = *st;
	return 0;
}

static int parse_body_line(struct parser *p)
{
	struct sc_step st = {0};
	const char *w = p->tok[0].text;
	const struct lock_kind *kind;
	char buf[128];
	int i, rc;
	long n;

	st.line_no = p->line;
	st.col = p->tok[0].col;
	st.fn = -1;
	st.obj = -1;
	st.variants = ~(sc_varmask)0;
	if (!strcmp(w, "end")) {
		if ((rc = want_end_of_line(p, 1)))
			return rc;
		if (!p->depth)
			return perr(p, st.col,
				    "'end' without an open 'repeat', 'every', 'only', 'as' or 'choose' (the "
				    "operation's steps run to the end of the file, with no 'end' of their own)");
		st.act = SA_END;
		st.match = p->stack[--p->depth];
		p->sc->step[st.match].match = p->sc->nsteps;
		return push_step(p, &st);
	}
	if (!strcmp(w, "repeat") || !strcmp(w, "every") || !strcmp(w, "only")) {
		st.act = !strcmp(w, "repeat") ? SA_REPEAT : !strcmp(w, "every") ? SA_EVERY : SA_ONLY;
		if (st.act == SA_ONLY) {
			if ((rc = variant_mask(p, 1, &st.variants)))
				return rc;
		} else if (p->ntok > 1 && isdigit((unsigned char)p->tok[1].text[0])) {
			if ((rc = parse_count(p, 1, st.act == SA_REPEAT ? 0 : 1, 1L << 40, &n)))
				return rc;
			st.literal = (double)n;
		} else if ((rc = want_ident(p, 1, "a count (a number or a batch name from the kernel profile)",
					    st.name))) {
			return rc;
		}
		if ((rc = want_end_of_line(p, 2)))
			return rc;
		if (p->depth == (int)(sizeof(p->stack) / sizeof(p->stack[0])))
			return perr(p, st.col, "blocks nested too deeply");
		p->stack[p->depth++] = p->sc->nsteps;
		return push_step(p, &st);
	}

	if (!strcmp(w, "as") || !strcmp(w, "choose")) {
		if (!strcmp(w, "as")) {
			st.act = SA_AS;
			if ((rc = want_ident(p, 1, "a role name", buf)))
				return rc;
			if ((st.role = find_role(p->sc, buf)) < 0)
				return perr(p, p->tok[1].col,
					    "unknown role '%s' (declare it before 'begin': 'role %s tasks N' or "
					    "'role %s share P%%')",
					    buf, buf, buf);
			/* a task has one role: an inner block of another role would never run */
			for (int k = 0; k < p->depth; k++)
				if (p->sc->step[p->stack[k]].act == SA_AS)
					return perr(p, st.col,
						    "'as' inside the 'as' block of line %d (a task has one role)",
						    p->sc->step[p->stack[k]].line_no);
		} else {
			st.act = SA_CHOOSE;
			if ((rc = parse_percent(p, 1, "the chance of the first branch", &st.literal)))
				return rc;
		}
		if ((rc = want_end_of_line(p, 2)))
			return rc;
		if (p->depth == (int)(sizeof(p->stack) / sizeof(p->stack[0])))
			return perr(p, st.col, "blocks nested too deeply");
		p->stack[p->depth++] = p->sc->nsteps;
		return push_step(p, &st);
	}
	if (!strcmp(w, "else")) {
		struct sc_step *open = p->depth ? &p->sc->step[p->stack[p->depth - 1]] : NULL;

		if ((rc = want_end_of_line(p, 1)))
			return rc;
		if (!open || open->act != SA_CHOOSE)
			return perr(p, st.col, "'else' without an open 'choose' (it belongs directly to one)");
		if (open->alt)
			return perr(p, st.col, "a second 'else' for the 'choose' of line %d", open->line_no);
		st.act = SA_ELSE;
		st.match = p->stack[p->depth - 1];
		open->alt = p->sc->nsteps;
		return push_step(p, &st);
	}
	if (!strcmp(w, "call"))
		return expand_call(p);

	/* FUNCTION ACTION ARGS [when V1,V2] */
	if (!is_ident(w) || strlen(w) >= SC_NAME)
		return perr(p, st.col,
			    "expected a kernel function name, 'repeat', 'every', 'only', 'as', 'choose', 'else' or "
			    "'end', found '%s'",
			    w);
	if (p->ntok < 2)
		return perr(p, st.col + (int)strlen(w) + 1,
			    "expected an action after the function name (compute, load, store, atomic, cmpxchg, "
			    "prefetchw, fence, lock, trylock, unlock, downgrade, memory, ipi, miss)");
	for (st.act = 0; st.act < SA_REPEAT && strcmp(act_names[st.act], p->tok[1].text); st.act++)
		;
	if (st.act == SA_REPEAT)
		return perr(p, p->tok[1].col,
			    "unknown action '%s' (expected compute, load, store, atomic, cmpxchg, prefetchw, fence, "
			    "lock, trylock, unlock, downgrade, memory, ipi or miss)",
			    p->tok[1].text);
	if ((rc = fn_index(p, w)) < 0)
		return rc;
	st.fn = rc;
	i = 2;
	switch (st.act) {
	case SA_COMPUTE:
		if ((rc = parse_cost(p, i++, &st)))
			return rc;
		if (i < p->ntok && !strcmp(p->tok[i].text, "exp")) {
			st.exp_dist = 1; /* queueing tests: exponential times */
			i++;
		}
		break;
	case SA_FENCE:
		break;
	case SA_MEMORY:
		if ((rc = parse_bytes(p, i++, &st)))
			return rc;
		break;
	case SA_IPI:
		if ((rc = parse_cost(p, i++, &st)))
			return rc;
		break;
	case SA_MISS:
		if ((rc = parse_misses(p, i++, &st)))
			return rc;
		break;
	case SA_LOAD:
	case SA_STORE:
	case SA_ATOMIC:
	case SA_CMPXCHG:
	case SA_PREFETCHW:
		if ((rc = parse_objref(p, i++, &st, 0)))
			return rc;
		break;
	default: /* lock actions */
		if ((rc = parse_objref(p, i++, &st, 1)))
			return rc;
		st.mode = LM_EXCL;
		if (i < p->ntok && (!strcmp(p->tok[i].text, "read") || !strcmp(p->tok[i].text, "write"))) {
			st.mode = !strcmp(p->tok[i].text, "read") ? LM_READ : LM_WRITE;
			i++;
		}
		kind = p->sc->obj[st.obj].kind;
		if ((kind->caps & LK_CAP_SHARED) && st.mode == LM_EXCL && st.act != SA_DOWNGRADE)
			return perr(p, p->tok[i - 1].col + (int)strlen(p->tok[i - 1].text) + 1,
				    "a %s needs 'read' or 'write' after its name", kind->name);
		if (!(kind->caps & LK_CAP_SHARED) && st.mode != LM_EXCL)
			return perr(p, p->tok[i - 1].col, "a %s has no read or write mode", kind->name);
		if (st.act == SA_DOWNGRADE && !(kind->caps & LK_CAP_DOWNGRADE))
			return perr(p, p->tok[2].col, "a %s cannot be downgraded (kinds that can: %s)", kind->name,
				    lock_kind_list(LK_CAP_DOWNGRADE, buf, sizeof(buf)));
		if (i < p->ntok && !strcmp(p->tok[i].text, "else")) {
			/* lock_vma_under_rcu's fallback: a write-locked VMA sends the fault to mmap_lock */
			struct sc_step alt = st;

			if (st.act != SA_LOCK || st.mode != LM_READ || !(kind->caps & LK_CAP_MAY_FAIL))
				return perr(p, p->tok[i].col,
					    "'else LOCK' follows only 'lock NAME read' of a %s (the fallback "
					    "to mmap_lock)",
					    lock_kind_list(LK_CAP_MAY_FAIL, buf, sizeof(buf)));
			if (i + 1 >= p->ntok)
				return perr(p, p->tok[i].col + 5, "expected an rwsem's name after 'else'");
			if ((rc = parse_objref(p, i + 1, &alt, 1)))
				return rc;
			/* the fallback is a sleeping reader-writer lock that cannot itself fail */
			kind = p->sc->obj[alt.obj].kind;
			if ((kind->caps & (LK_CAP_SHARED | LK_CAP_SLEEPS | LK_CAP_MAY_FAIL)) !=
				(LK_CAP_SHARED | LK_CAP_SLEEPS) ||
			    alt.idx_div)
				return perr(p, p->tok[i + 1].col,
					    "the lock after 'else' must be an rwsem, not indexed");
			st.alt1 = alt.obj + 1;
			i += 2;
		}
		break;
	}
	if (i < p->ntok && !strcmp(p->tok[i].text, "when")) {
		if ((rc = variant_mask(p, i + 1, &st.variants)))
			return rc;
		i += 2;
	}
	if ((rc = want_end_of_line(p, i)))
		return rc;
	return push_step(p, &st);
}

static const char *const edit_names[] = {"drop", "replace", "insert", "insert"};

/*
 * 'drop FN ACT [ARG]', 'replace FN ACT [ARG]' and 'insert before|after FN ACT [ARG]': an edit of
 * the last derived variant, to the steps of function FN doing ACT (on object ARG, or with the
 * cost or count ARG).  Replace and insert open a block of steps, read up to its 'end'.
 */
static int parse_edit(struct parser *p)
{
	struct sc_edit *e = &p->edit[p->nedit];
	int v = p->sc->nvar - 1, i = 1, rc;
	const char *w = p->tok[0].text;

	if (v < 0 || !p->like[v])
		return perr(p, p->tok[0].col, "'%s' follows a 'variant NEW like OLD' line (the variant it edits)", w);
	if (p->nedit == (int)(sizeof(p->edit) / sizeof(p->edit[0])))
		return perr(p, p->tok[0].col, "too many 'drop', 'replace' and 'insert' lines (at most 32)");
	memset(e, 0, sizeof(*e));
	e->kind = !strcmp(w, "drop") ? ED_DROP : !strcmp(w, "replace") ? ED_REPLACE : ED_BEFORE;
	if (e->kind == ED_BEFORE) {
		if (p->ntok < 2 || (strcmp(p->tok[1].text, "before") && strcmp(p->tok[1].text, "after")))
			return perr(p, p->ntok < 2 ? p->tok[0].col + 7 : p->tok[1].col,
				    "expected 'before' or 'after' after 'insert' (insert before FN ACT [ARG])");
		e->kind = strcmp(p->tok[1].text, "before") ? ED_AFTER : ED_BEFORE;
		i = 2;
	}
	if ((rc = want_ident(p, i, "the function of the step", e->fn)) ||
	    (rc = want_ident(p, i + 1, "the step's action (load, store, prefetchw, compute, ...)", e->act)) ||
	    (p->ntok > i + 2 && (rc = want_ident(p, i + 2, "the step's object, cost or count", e->arg))) ||
	    (rc = want_end_of_line(p, p->ntok > i + 2 ? i + 3 : i + 2)))
		return rc;
	e->variant = v;
	e->line = p->line;
	e->col = p->tok[0].col;
	e->first = p->sc->nsteps;
	p->nedit++;
	if (e->kind != ED_DROP)
		p->open_edit = p->nedit;
	return 0;
}

/*
 * The 'end' of a replace or insert block.  Its steps belong to no variant until the edit is
 * applied (derive_variants); a 'when' or 'only' in it that leaves out the variant it edits would
 * make a step that never runs, so it is refused.
 */
static int close_edit(struct parser *p)
{
	struct scenario *sc = p->sc;
	struct sc_edit *e = &p->edit[p->open_edit - 1];
	int rc;

	if ((rc = want_end_of_line(p, 1)))
		return rc;
	e->last = sc->nsteps;
	if (e->kind != ED_REPLACE && e->first == e->last)
		return perr(p, p->tok[0].col, "the 'insert' of line %d has no steps (expected them before 'end')",
			    e->line);
	for (int s = e->first; s < e->last; s++) {
		if (!(sc->step[s].variants & SC_VBIT(e->variant)))
			return mm_fail(p->err, MM_EPARSE,
				       "%s:%d:%d: a 'when' or 'only' that leaves out variant %s, which the '%s' of "
				       "line %d edits: the step would never run",
				       p->origin, sc->step[s].line_no, sc->step[s].col, sc->var[e->variant].name,
				       edit_names[e->kind], e->line);
		sc->step[s].variants = 0;
	}
	p->open_edit = 0;
	return 0;
}

/* A line inside a replace or insert block: a step, as in a body, or the block's 'end'. */
static int parse_edit_line(struct parser *p)
{
	static const char *const header[] = {"replace", "insert", "drop", "variant", "base", "scenario", "begin"};
	const struct sc_edit *e = &p->edit[p->open_edit - 1];
	const char *w = p->tok[0].text;

	if (!strcmp(w, "end") && !p->depth)
		return close_edit(p);
	for (size_t k = 0; k < sizeof(header) / sizeof(header[0]); k++)
		if (!strcmp(w, header[k]))
			return perr(p, p->tok[0].col,
				    "'%s' inside the '%s' of line %d (expected its steps, then 'end')", w,
				    edit_names[e->kind], e->line);
	return parse_body_line(p);
}

/* Bases being read on this thread: 'base' reads another file, which may name a base itself. */
static _Thread_local int base_depth;

/* 'base X' (a built-in scenario or a file): this file's scenario starts as X, steps and all. */
static int parse_base(struct parser *p)
{
	struct scenario *sc = p->sc;
	char origin[sizeof(sc->path)];
	int v, rc;

	if (sc->name[0] || p->based)
		return perr(p, p->tok[0].col, "'base' comes first, once, instead of 'scenario NAME'");
	if (p->ntok < 2 || p->tok[1].quoted)
		return perr(p, p->tok[0].col, "expected a scenario after 'base' (e.g. base page_fault)");
	if ((rc = want_end_of_line(p, 2)))
		return rc;
	snprintf(origin, sizeof(origin), "%s", sc->path);
	if (base_depth == 4) /* a file that is its own base would recurse without end */
		return perr(p, p->tok[1].col, "bases nested deeper than 4 (does '%s' lead back to this file?)",
			    p->tok[1].text);
	base_depth++;
	rc = scenario_load(sc, p->tok[1].text, &v, p->err);
	base_depth--;
	if (rc) {
		snprintf(sc->path, sizeof(sc->path), "%s", origin);
		return rc;
	}
	if (v >= 0) {
		scenario_free(sc);
		return perr(p, p->tok[1].col, "'%s' is a variant: 'base' takes a scenario (e.g. base page_fault)",
			    p->tok[1].text);
	}
	snprintf(p->base_origin, sizeof(p->base_origin), "%s", sc->path);
	snprintf(sc->path, sizeof(sc->path), "%s", origin);
	sc->builtin = 0;
	p->cap_obj = sc->nobj;
	p->cap_step = sc->nsteps;
	p->cap_fn = sc->nfn;
	p->based = 1;
	p->in_body = 0;
	return 0;
}

/*
 * Which steps run in the program of variant @bit: those with its bit inside blocks that all have
 * it too (scenario_compile's rule).  A define called in two 'only' blocks puts its steps in
 * both, with the bits of both; only one of them runs.
 */
static void live_steps(const struct scenario *sc, sc_varmask bit, unsigned char *live)
{
	for (int s = 0; s < sc->nsteps; s++) {
		const struct sc_step *st = &sc->step[s];
		enum sc_act a = st->act;

		live[s] = (st->variants & bit) != 0;
		if (!live[s] && (a == SA_ONLY || opens_block(a))) {
			memset(live + s, 0, (size_t)(st->match - s + 1));
			s = st->match;
		}
	}
}

/* Whether step @s, which runs in the variant (@live), is the one edit @e names (function, action,
 * and the object, cost or count when given). */
static int edit_matches(const struct parser *p, const struct sc_edit *e, const unsigned char *live, int s)
{
	const struct scenario *sc = p->sc;
	const struct sc_step *st = &sc->step[s];

	if (!live[s] || st->fn < 0 || strcmp(sc->fn[st->fn], e->fn) || strcmp(act_names[st->act], e->act))
		return 0;
	return !e->arg[0] || !strcmp(st->obj >= 0 ? sc->obj[st->obj].name : st->name, e->arg);
}

/* The file whose lines step @s was written on: this one for a block's steps, else the base's. */
static const char *step_origin(const struct parser *p, int s)
{
	for (int i = 0; i < p->nedit; i++)
		if (s >= p->edit[i].first && s < p->edit[i].last)
			return p->origin;
	return p->based ? p->base_origin : p->origin;
}

/* A replace or insert that names more than one step: refused (a block goes in one place).  The
 * first two steps' lines say where they are (a define called twice: its line twice). */
static int edit_ambiguous(const struct parser *p, const struct sc_edit *e, int hits, const int *at)
{
	const struct scenario *sc = p->sc;
	const char *o0 = step_origin(p, at[0]), *o1 = step_origin(p, at[1]);
	const char *hint = e->arg[0] ? "write this variant out instead" : "name its object, cost or count too";
	char where[1100];

	if (o0 == o1)
		snprintf(where, sizeof(where), "lines %d %s %d%s%s%.900s", sc->step[at[0]].line_no,
			 hits > 2 ? "," : "and", sc->step[at[1]].line_no, hits > 2 ? ", ..." : "",
			 o0 == p->origin ? "" : " of ", o0 == p->origin ? "" : o0);
	else /* (a message holds 1 KiB: two long paths are shown in part) */
		snprintf(where, sizeof(where), "%.500s:%d, %.500s:%d%s", o0, sc->step[at[0]].line_no, o1,
			 sc->step[at[1]].line_no, hits > 2 ? ", ..." : "");
	return mm_fail(p->err, MM_EPARSE,
		       "%s:%d:%d: step '%s %s%s%s' is in variant %s %d times (%s); '%s' edits one: %s", p->origin,
		       e->line, e->col, e->fn, e->act, e->arg[0] ? " " : "", e->arg, sc->var[e->variant].name, hits,
		       where, edit_names[e->kind], hint);
}

/* Apply edit @e to its variant: a drop takes out every step it names; a replace takes out the
 * one step it names and puts its block in; an insert puts its block beside the step. */
static int apply_edit(struct parser *p, struct sc_edit *e)
{
	static const char *const to[] = {"drop", "replace", "insert before", "insert after"};
	struct scenario *sc = p->sc;
	sc_varmask bit = SC_VBIT(e->variant);
	int hits = 0, at[2] = {0, 0}, rc = 0;
	unsigned char *live = malloc((size_t)sc->nsteps);

	if (!live)
		return mm_fail(p->err, MM_ENOMEM, "out of memory");
	live_steps(sc, bit, live);
	for (int s = 0; s < sc->nsteps; s++)
		if (edit_matches(p, e, live, s) && hits++ < 2)
			at[hits - 1] = s;
	if (!hits)
		rc =
		    mm_fail(p->err, MM_EPARSE, "%s:%d:%d: no step '%s %s%s%s' in variant %s to %s", p->origin, e->line,
			    e->col, e->fn, e->act, e->arg[0] ? " " : "", e->arg, sc->var[e->variant].name, to[e->kind]);
	else if (e->kind != ED_DROP && hits > 1)
		rc = edit_ambiguous(p, e, hits, at);
	for (int s = 0; !rc && (e->kind == ED_DROP || e->kind == ED_REPLACE) && s < sc->nsteps; s++)
		if (edit_matches(p, e, live, s))
			sc->step[s].variants &= ~bit;
	for (int s = e->first; !rc && s < e->last; s++)
		sc->step[s].variants |= bit;
	e->anchor = at[0];
	free(live);
	return rc;
}

/* Step @s into @order, each block beside it too (before it, or after it in their lines' order);
 * a block's own steps may have blocks beside them (a variant like a variant). */
static void place_step(const struct parser *p, int s, int *order, int *n)
{
	for (int i = 0; i < p->nedit; i++)
		if (p->edit[i].kind == ED_BEFORE && p->edit[i].anchor == s)
			for (int k = p->edit[i].first; k < p->edit[i].last; k++)
				place_step(p, k, order, n);
	order[(*n)++] = s;
	for (int i = 0; i < p->nedit; i++)
		if ((p->edit[i].kind == ED_REPLACE || p->edit[i].kind == ED_AFTER) && p->edit[i].anchor == s)
			for (int k = p->edit[i].first; k < p->edit[i].last; k++)
				place_step(p, k, order, n);
}

/*
 * The blocks of replace and insert were read where their lines are, before or after the steps;
 * the program runs steps in their order, so each block moves beside the step it edits, and the
 * matches of the blocks (repeat ... end) follow their steps.
 */
static int move_blocks(struct parser *p)
{
	struct scenario *sc = p->sc;
	int n = 0, *order = malloc(2 * (size_t)sc->nsteps * sizeof(int)), *pos = order + sc->nsteps;
	struct sc_step *moved = malloc((size_t)sc->nsteps * sizeof(*moved));

	if (!order || !moved) {
		free(order);
		free(moved);
		return mm_fail(p->err, MM_ENOMEM, "out of memory");
	}
	for (int s = 0; s < sc->nsteps; s++)
		pos[s] = 0;
	for (int i = 0; i < p->nedit; i++)
		for (int k = p->edit[i].first; k < p->edit[i].last; k++)
			pos[k] = 1; /* in a block: placed with it */
	for (int s = 0; s < sc->nsteps; s++)
		if (!pos[s])
			place_step(p, s, order, &n);
	for (int k = 0; k < n; k++) {
		moved[k] = sc->step[order[k]];
		pos[order[k]] = k;
	}
	for (int k = 0; k < n; k++) {
		struct sc_step *st = &moved[k];

		if (st->act >= SA_REPEAT) /* repeat, every, only, as, choose, else, end */
			st->match = pos[st->match];
		if (st->act == SA_CHOOSE && st->alt)
			st->alt = pos[st->alt];
	}
	free(order);
	free(sc->step);
	sc->step = moved;
	return 0;
}

/*
 * The derived variants' steps: OLD's, then their edits in the order of their lines.  A variant
 * comes after the variant it is like, so that one is whole (edits and all) when it is copied.
 */
static int derive_variants(struct parser *p)
{
	struct scenario *sc = p->sc;
	int rc, blocks = 0;

	for (int v = 0; v < sc->nvar; v++) {
		for (int s = 0; p->like[v] && s < sc->nsteps; s++)
			if (sc->step[s].variants & SC_VBIT(p->like[v] - 1))
				sc->step[s].variants |= SC_VBIT(v);
			else
				sc->step[s].variants &= ~SC_VBIT(v);
		for (int i = 0; i < p->nedit; i++)
			if (p->edit[i].variant == v && (rc = apply_edit(p, &p->edit[i])))
				return rc;
	}
	for (int i = 0; i < p->nedit; i++)
		blocks += p->edit[i].kind != ED_DROP;
	return blocks ? move_blocks(p) : 0;
}

static int parse_line(struct parser *p)
{
	struct scenario *sc = p->sc;
	const char *w = p->tok[0].text;
	int rc;

	if (p->open_edit)
		return parse_edit_line(p);
	if (p->in_body)
		return parse_body_line(p);
	if (!strcmp(w, "base"))
		return parse_base(p);
	if (!strcmp(w, "drop") || !strcmp(w, "replace") || !strcmp(w, "insert"))
		return parse_edit(p);
	if (p->based && strcmp(w, "variant"))
		return perr(p, p->tok[0].col,
			    "unknown keyword '%s' in a file with 'base' (expected 'variant NEW like OLD', 'drop', "
			    "'replace' or 'insert')",
			    w);
	if (!strcmp(w, "scenario")) {
		if (sc->name[0])
			return perr(p, p->tok[0].col, "a file holds one scenario ('scenario' appears twice)");
		if ((rc = want_ident(p, 1, "the scenario name", sc->name)))
			return rc;
		return want_end_of_line(p, 2);
	}
	if (!sc->name[0])
		return perr(p, p->tok[0].col, "expected 'scenario NAME' first, found '%s'", w);
	if (!strcmp(w, "title") || !strcmp(w, "op")) {
		if (p->ntok < 2 || !p->tok[1].quoted)
			return perr(p, p->ntok < 2 ? p->tok[0].col : p->tok[1].col, "expected a quoted text after '%s'",
				    w);
		snprintf(!strcmp(w, "title") ? sc->title : sc->opdoc, 256, "%s", p->tok[1].text);
		return want_end_of_line(p, 2);
	}
	if (!strcmp(w, "mode")) {
		if (p->ntok < 2 || (strcmp(p->tok[1].text, "threads") && strcmp(p->tok[1].text, "processes")))
			return perr(p, p->ntok < 2 ? p->tok[0].col : p->tok[1].col,
				    "expected 'threads' or 'processes' after 'mode'");
		sc->mode = !strcmp(p->tok[1].text, "threads") ? SC_THREADS : SC_PROCESSES;
		return want_end_of_line(p, 2);
	}
	if (!strcmp(w, "placement")) {
		if (sc->placement_line)
			return perr(p, p->tok[0].col, "'placement' appears twice (first at line %d)",
				    sc->placement_line);
		if (p->ntok < 2 || topo_placement_parse(p->tok[1].text, &sc->placement))
			return perr(p, p->ntok < 2 ? p->tok[0].col + 10 : p->tok[1].col,
				    "expected 'wis' (pinned as will-it-scale pins them) or 'spread' (unpinned, where "
				    "the scheduler puts them) after 'placement'%s%s%s",
				    p->ntok < 2 ? "" : ", found '", p->ntok < 2 ? "" : p->tok[1].text,
				    p->ntok < 2 ? "" : "'");
		sc->placement_line = p->line;
		return want_end_of_line(p, 2);
	}
	if (!strcmp(w, "work")) {
		long n;

		if ((rc = parse_count(p, 1, 1, 1L << 40, &n)))
			return rc;
		sc->work = n;
		return want_end_of_line(p, 2);
	}
	if (!strcmp(w, "footprint")) {
		struct sc_step st = {0};
		sc_varmask mask = ~(sc_varmask)0;

		if (p->ntok < 2)
			return perr(p, p->tok[0].col + 10, "expected a size after 'footprint' (e.g. 4MiB)");
		if ((rc = parse_bytes(p, 1, &st)))
			return rc;
		if (st.name[0])
			return perr(p, p->tok[1].col, "expected a size like 4MiB after 'footprint', found '%s'",
				    p->tok[1].text);
		if (p->ntok > 2 && !strcmp(p->tok[2].text, "when")) {
			if ((rc = variant_mask(p, 3, &mask)))
				return rc;
			if ((rc = want_end_of_line(p, 4)))
				return rc;
		} else if (p->ntok > 2) {
			return want_end_of_line(p, 2);
		} else if (!sc->nvar) {
			return perr(p, p->tok[0].col, "'footprint' comes after the variants it is for");
		}
		for (int v = 0; v < sc->nvar; v++)
			if (mask & SC_VBIT(v))
				sc->footprint[v] = st.literal;
		return 0;
	}
	if (!strcmp(w, "field") || !strcmp(w, "lock"))
		return parse_decl(p, !strcmp(w, "lock"));
	if (!strcmp(w, "variant"))
		return parse_variant(p);
	if (!strcmp(w, "role"))
		return parse_role(p);
	if (!strcmp(w, "define")) {
		struct sc_define *d = &p->def[p->ndef];

		if (p->ndef == (int)(sizeof(p->def) / sizeof(p->def[0])))
			return perr(p, p->tok[0].col, "too many defines (at most %d)", SC_MAX_DEFINES);
		if ((rc = want_ident(p, 1, "a name for the define", d->name)))
			return rc;
		for (int k = 0; k < p->ndef; k++)
			if (!strcmp(p->def[k].name, d->name))
				return perr(p, p->tok[1].col, "define '%s' appears twice", d->name);
		if ((rc = want_end_of_line(p, 2)))
			return rc;
		d->start = p->next_line;
		d->first_line = p->line + 1;
		p->collecting = 1;
		p->def_depth = 0;
		return 0;
	}
	if (!strcmp(w, "begin")) {
		if (!sc->nvar)
			return perr(p, p->tok[0].col, "declare at least one 'variant' before 'begin'");
		p->in_body = 1;
		return want_end_of_line(p, 1);
	}
	return perr(
	    p, p->tok[0].col,
	    "unknown keyword '%s' (expected scenario, base, title, op, mode, work, placement, field, lock, variant, "
	    "drop, replace, insert, role, define or begin)",
	    w);
}

int scenario_parse(struct scenario *sc, const char *origin, const char *text, struct mm_error *err)
{
	struct parser p = {.sc = sc, .origin = origin, .err = err};
	const char *s = text;
	int rc = 0;

	memset(sc, 0, sizeof(*sc));
	/* messages and later re-reads (a sweep's hash) name the file by this: never a cut one */
	if (strlen(origin) >= sizeof(sc->path))
		return mm_fail(err, MM_EINVAL, "%.60s...: a scenario's path has at most %zu characters", origin,
			       sizeof(sc->path) - 1);
	snprintf(sc->path, sizeof(sc->path), "%s", origin);
	while (*s) {
		const char *eol = strchr(s, '\n');
		size_t len = eol ? (size_t)(eol - s) : strlen(s);

		p.line++;
		p.next_line = s + len + (eol ? 1 : 0);
		if ((rc = tokenize(&p, s, len)))
			goto fail;
		if (p.collecting && p.ntok) {
			/* a define's body is kept as text and parsed where it is called */
			const char *w = p.tok[0].text;

			if (!strcmp(w, "repeat") || !strcmp(w, "every") || !strcmp(w, "only") || !strcmp(w, "as") ||
			    !strcmp(w, "choose")) {
				p.def_depth++;
			} else if (!strcmp(w, "end") && p.def_depth-- == 0) {
				p.def[p.ndef++].end = s;
				p.collecting = 0;
			}
		} else if (p.ntok && (rc = parse_line(&p))) {
			goto fail;
		}
		s += len + (eol ? 1 : 0);
	}
	p.line++;
	if (p.collecting) {
		rc = mm_fail(err, MM_EPARSE, "%s:%d:1: define '%s' is never closed (expected 'end')", origin,
			     p.def[p.ndef].first_line - 1, p.def[p.ndef].name);
		goto fail;
	}
	if (p.open_edit) {
		const struct sc_edit *e = &p.edit[p.open_edit - 1];

		rc = mm_fail(err, MM_EPARSE,
			     "%s:%d:%d: '%s' is never closed (expected 'end' after its steps, before the end of the "
			     "file)",
			     origin, e->line, e->col, edit_names[e->kind]);
		goto fail;
	}
	if (!sc->name[0]) {
		rc = mm_fail(err, MM_EPARSE, "%s:1:1: empty scenario (expected 'scenario NAME')", origin);
		goto fail;
	}
	if (!p.in_body && !p.based) {
		rc = perr(&p, 1, "expected 'begin' and the steps of one operation before the end of the file");
		goto fail;
	}
	if (p.depth) {
		const struct sc_step *open = &sc->step[p.stack[p.depth - 1]];

		rc = mm_fail(err, MM_EPARSE,
			     "%s:%d:%d: '%s' is never closed (expected 'end' before the end of the file)", origin,
			     open->line_no, open->col, act_names[open->act]);
		goto fail;
	}
	if (!sc->nsteps) {
		rc = perr(&p, 1, "the operation has no steps");
		goto fail;
	}
	if ((rc = derive_variants(&p)))
		goto fail;
	return 0;
fail:
	scenario_free(sc);
	return rc ? rc : MM_EPARSE;
}

int mm_read_text_file(const char *path, char **out, struct mm_error *err);

/* scenario_load of "X:VARIANT": scenario X (a built-in name or a file), one variant of it. */
static int load_one_variant(struct scenario *sc, const char *spec, const char *colon, int *variant,
			    struct mm_error *err)
{
	char base[600], list[512] = "";
	int rc, v;

	if ((size_t)(colon - spec) >= sizeof(base))
		return mm_fail(err, MM_EINVAL, "scenario '%.80s...': the name before ':' is too long", spec);
	memcpy(base, spec, (size_t)(colon - spec));
	base[colon - spec] = 0;
	if ((rc = scenario_load(sc, base, &v, err)))
		return rc;
	if (v >= 0) {
		scenario_free(sc);
		return mm_fail(err, MM_EINVAL, "scenario '%s': '%s' is already a variant; write SCENARIO:VARIANT", spec,
			       base);
	}
	if ((*variant = scenario_variant(sc, colon + 1)) >= 0)
		return 0;
	for (int i = 0; i < sc->nvar; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", i ? ", " : "", sc->var[i].name);
	rc = mm_fail(err, MM_ENOENT, "scenario '%s': %s has no variant '%s' (its variants: %s)", spec, sc->path,
		     colon + 1, list);
	scenario_free(sc);
	return rc;
}

int scenario_load(struct scenario *sc, const char *name_or_path, int *variant, struct mm_error *err)
{
	const struct builtin_file *b = builtin_find("scenarios", name_or_path);
	const char *colon = strrchr(name_or_path, ':');
	char origin[600], *text;
	int rc;

	*variant = -1;
	/* SCENARIO:VARIANT, unless the whole name is a file */
	if (!b && colon && colon > name_or_path && colon[1] && access(name_or_path, F_OK))
		return load_one_variant(sc, name_or_path, colon, variant, err);
	if (!b && !strchr(name_or_path, '/') && access(name_or_path, F_OK)) {
		/* a variant name of some builtin scenario? */
		for (int i = 0; i < mmsim_builtin_nfiles; i++) {
			struct scenario tmp;
			int v;

			if (strcmp(mmsim_builtin_files[i].kind, "scenarios"))
				continue;
			snprintf(origin, sizeof(origin), "builtin:scenarios/%s.scn", mmsim_builtin_files[i].name);
			if (scenario_parse(&tmp, origin, mmsim_builtin_files[i].text, err))
				return err ? err->code : MM_EPARSE;
			v = scenario_variant(&tmp, name_or_path);
			if (v >= 0) {
				*sc = tmp;
				sc->builtin = 1;
				*variant = v;
				return 0;
			}
			scenario_free(&tmp);
		}
		return mm_fail(err, MM_ENOENT,
			       "unknown scenario '%s' (not a builtin scenario or variant; 'mmsim list' shows them; "
			       "or give a file path)",
			       name_or_path);
	}
	if (b) {
		snprintf(origin, sizeof(origin), "builtin:scenarios/%s.scn", b->name);
		rc = scenario_parse(sc, origin, b->text, err);
		sc->builtin = rc == 0;
		return rc;
	}
	if ((rc = mm_read_text_file(name_or_path, &text, err)))
		return rc;
	rc = scenario_parse(sc, name_or_path, text, err);
	free(text);
	return rc;
}

void scenario_free(struct scenario *sc)
{
	free(sc->obj);
	free(sc->step);
	free(sc->fn);
	memset(sc, 0, sizeof(*sc));
}

/* ---- compile ------------------------------------------------------------ */

/*
 * Visits of each step per operation, with repeat and every multipliers; a choose's branches by
 * their chances.  The body of an 'as' block counts for a task of role @role (sc->nrole: none),
 * or with @role -1 by the role's share of the tasks (a 'tasks N' role: none).
 */
static void count_visits(const struct program *pr, int from, int to, double mult, int role, double *out)
{
	for (int i = from; i < to; i++) {
		const struct prog_insn *in = &pr->insn[i];

		out[i] += mult;
		if (in->act == SA_REPEAT || in->act == SA_EVERY) {
			double inner = in->act == SA_REPEAT ? mult * (in->unit_pages ? in->mean : (double)in->count)
				       : in->lay	    ? (in->mean > 0 ? mult / in->mean : 0)
							    : mult / (double)in->count;

			count_visits(pr, i + 1, in->match, inner, role, out);
			out[in->match] += inner;
			i = in->match;
		} else if (in->act == SA_CHOOSE) {
			int first_end = in->alt >= 0 ? in->alt : in->match;

			count_visits(pr, i + 1, first_end, mult * in->prob, role, out);
			if (in->alt >= 0) {
				out[in->alt] += mult * in->prob;
				count_visits(pr, in->alt + 1, in->match, mult * (1 - in->prob), role, out);
			}
			out[in->match] += mult;
			i = in->match;
		} else if (in->act == SA_AS) {
			double w = role >= 0 ? (in->role == role) : pr->sc->role[in->role].share / 100.0;

			count_visits(pr, i + 1, in->match, mult * w, role, out);
			out[in->match] += mult * w;
			i = in->match;
		}
	}
}

/*
 * Every lock taken in an operation is released in it, in the mode it was
 * taken, inside the same repeat/every block; a downgrade needs the write
 * side.  Otherwise the simulation would stall or count nonsense, so the
 * scenario is refused here, at the line of the offending step.
 */
static int check_lock_pairs(const struct scenario *sc, int variant, const struct program *pr, struct mm_error *err)
{
	enum { FREE = 0, HELD_READ, HELD_WRITE };
	unsigned char *held = calloc(sc->nobj + 1, 1), *saved[64];
	int depth = 0, rc = 0, *taken_at = calloc(sc->nobj + 1, sizeof(int));

	if (!held || !taken_at) {
		free(held);
		free(taken_at);
		return mm_fail(err, MM_ENOMEM, "out of memory");
	}
	for (int i = 0; i < pr->n && !rc; i++) {
		const struct prog_insn *in = &pr->insn[i];
		const char *name =
		    in->obj >= 0 && in->obj < sc->nobj ? sc->obj[in->obj].name : ""; /* an END has obj 0 */
		int want = in->mode == LM_READ ? HELD_READ : HELD_WRITE;

		switch (in->act) {
		case SA_LOCK:
		case SA_TRYLOCK:
			if (held[in->obj])
				rc = mm_fail(err, MM_EPARSE,
					     "%s:%d: '%s' is taken again while held since line %d (variant %s)",
					     sc->path, in->src_line, name, taken_at[in->obj], sc->var[variant].name);
			held[in->obj] = (unsigned char)want;
			taken_at[in->obj] = in->src_line;
			break;
		case SA_UNLOCK:
			if (held[in->obj] != want)
				rc = mm_fail(err, MM_EPARSE, "%s:%d: '%s' is released %s but %s (variant %s)", sc->path,
					     in->src_line, name, want == HELD_READ ? "as read" : "as write",
					     held[in->obj] == FREE	  ? "is not held here"
					     : held[in->obj] == HELD_READ ? "is held for read"
									  : "is held for write",
					     sc->var[variant].name);
			held[in->obj] = FREE;
			break;
		case SA_DOWNGRADE:
			if (held[in->obj] != HELD_WRITE)
				rc = mm_fail(err, MM_EPARSE,
					     "%s:%d: '%s' is downgraded but not held for write (variant %s)", sc->path,
					     in->src_line, name, sc->var[variant].name);
			held[in->obj] = HELD_READ;
			break;
		case SA_REPEAT:
		case SA_EVERY:
		case SA_CHOOSE:
		case SA_AS:
			/* scenario_compile refuses a program nested deeper than its own 64 */
			assert(depth < (int)(sizeof(saved) / sizeof(saved[0])));
			saved[depth] = malloc(sc->nobj + 1);
			if (!saved[depth]) {
				rc = mm_fail(err, MM_ENOMEM, "out of memory");
				break;
			}
			memcpy(saved[depth++], held, sc->nobj + 1);
			break;
		case SA_ELSE: /* the first branch of a choose ends: it is a block of its own */
		case SA_END:
			depth--;
			for (int o = 0; o < sc->nobj && !rc; o++)
				if (held[o] != saved[depth][o])
					rc = mm_fail(
					    err, MM_EPARSE,
					    "%s:%d: '%s' is %s inside this block but not %s in it (variant %s)",
					    sc->path, taken_at[o], sc->obj[o].name, held[o] ? "taken" : "released",
					    held[o] ? "released" : "taken", sc->var[variant].name);
			if (in->act == SA_ELSE)
				depth++; /* the else branch starts from the same state */
			else
				free(saved[depth]);
			break;
		default:
			break;
		}
	}
	for (int o = 0; o < sc->nobj && !rc; o++)
		if (held[o])
			rc = mm_fail(err, MM_EPARSE,
				     "%s:%d: '%s' is still held at the end of the operation (variant %s)", sc->path,
				     taken_at[o], sc->obj[o].name, sc->var[variant].name);
	while (depth > 0)
		free(saved[--depth]);
	free(held);
	free(taken_at);
	return rc;
}

/* ---- the names a kernel profile may hold ------------------------------- */

/* The kernel profile section a step's name is looked up in, or NULL. */
static const char *step_section(const struct sc_step *st)
{
	switch (st->act) {
	case SA_MEMORY:
	case SA_REPEAT:
	case SA_EVERY:
		return "batch";
	case SA_MISS:
		return "misses";
	case SA_COMPUTE:
	case SA_IPI:
		return "costs";
	default:
		return NULL;
	}
}

/* What a key of each section names, for messages. */
static const struct {
	const char *section, *noun;
} named_sections[] = {
    {"layout", "field or lock"}, {"costs", "cost"}, {"batch", "count or size"}, {"misses", "miss count"}};

struct sc_name {
	const char *section; /* one of named_sections[] */
	char name[2 * SC_NAME];
};

struct sc_names {
	struct sc_name *v;
	int n, cap;
};

static int names_add(struct sc_names *l, const char *section, const char *name)
{
	if (l->n == l->cap) {
		int cap = l->cap ? 2 * l->cap : 256;
		struct sc_name *nv = realloc(l->v, (size_t)cap * sizeof(*nv));

		if (!nv)
			return MM_ENOMEM;
		l->v = nv;
		l->cap = cap;
	}
	l->v[l->n].section = section;
	snprintf(l->v[l->n].name, sizeof(l->v[l->n].name), "%s", name);
	l->n++;
	return 0;
}

/*
 * Every (section, name) @sc refers to: [layout] an object's name, and for a lock LOCK.FIELD for
 * each line of a design of its kind that [layout] may place apart (sim_setup.c lock_subline);
 * [costs], [batch] and [misses] the names its steps give (scenario_compile).
 */
static int names_of(struct sc_names *l, const struct scenario *sc)
{
	int rc = 0;

	for (int o = 0; o < sc->nobj && !rc; o++) {
		const struct sc_object *ob = &sc->obj[o];

		rc = names_add(l, named_sections[0].section, ob->name);
		for (int d = 0; ob->is_lock && ob->kind && lock_designs[d] && !rc; d++) {
			const struct lock_design *ld = lock_designs[d];

			if (strcmp(ld->kind, ob->kind->name))
				continue;
			for (int r = 0; r < ld->nlines && !rc; r++) {
				char buf[2 * SC_NAME];

				if (!ld->lines[r].field || ld->lines[r].kind == LR_PERCPU)
					continue;
				snprintf(buf, sizeof(buf), "%s.%s", ob->name, ld->lines[r].field);
				rc = names_add(l, named_sections[0].section, buf);
			}
		}
	}
	for (int s = 0; s < sc->nsteps && !rc; s++) {
		const char *sec = step_section(&sc->step[s]);

		if ((sc->step[s].act == SA_EVERY && layout_index(sc->step[s].name) >= 0) ||
		    (sc->step[s].act == SA_REPEAT && layout_pages_name(sc->step[s].name) >= 0)) {
			/* a folio layout: the [batch] entries it is built from */
			for (size_t i = 0; i < sizeof(layout_keys) / sizeof(layout_keys[0]) && !rc; i++)
				rc = names_add(l, "batch", layout_keys[i]);
			for (size_t i = 0; i < sizeof(layout_more_keys) / sizeof(layout_more_keys[0]) && !rc; i++)
				rc = names_add(l, "batch", layout_more_keys[i]);
			continue;
		}
		if (sc->step[s].act == SA_REPEAT && unit_repeat(sc->step[s].name))
			continue;

		for (size_t i = 1; sec && sc->step[s].name[0] && i < sizeof(named_sections) / sizeof(named_sections[0]);
		     i++)
			if (!strcmp(named_sections[i].section, sec))
				rc = names_add(l, named_sections[i].section, sc->step[s].name);
	}
	return rc;
}

static int name_cmp(const void *a, const void *b)
{
	const struct sc_name *x = a, *y = b;
	int c = strcmp(x->section, y->section);

	return c ? c : strcmp(x->name, y->name);
}

/* The names of every built-in scenario, sorted; built once, read-only afterwards. */
static const struct sc_names *builtin_names(struct mm_error *err)
{
	static struct sc_names names;
	static int done, rc;

#pragma omp critical(mmsim_scenario_names)
	if (!done) {
		done = 1;
		for (int i = 0; i < mmsim_builtin_nfiles && !rc; i++) {
			struct scenario sc;
			char origin[600];

			if (strcmp(mmsim_builtin_files[i].kind, "scenarios"))
				continue;
			snprintf(origin, sizeof(origin), "builtin:scenarios/%s.scn", mmsim_builtin_files[i].name);
			if (!(rc = scenario_parse(&sc, origin, mmsim_builtin_files[i].text, NULL))) {
				rc = names_of(&names, &sc);
				scenario_free(&sc);
			}
		}
		if (names.n)
			qsort(names.v, (size_t)names.n, sizeof(*names.v), name_cmp);
	}
	if (rc) {
		mm_fail(err, rc, "a built-in scenario does not parse (error %d)", rc);
		return NULL;
	}
	return &names;
}

int scenario_layout_names(const struct scenario *sc, void (*fn)(void *arg, const char *name), void *arg,
			  struct mm_error *err)
{
	struct sc_names own = {0};
	const struct sc_names *l = &own;
	int rc = 0;

	if (sc)
		rc = names_of(&own, sc);
	else if (!(l = builtin_names(err)))
		return err ? err->code : MM_EPARSE;
	if (rc) {
		free(own.v);
		return mm_fail(err, rc, "out of memory for a scenario's names");
	}
	for (int i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].section, named_sections[0].section) &&
		    (i == 0 || strcmp(l->v[i].name, l->v[i - 1].name) || strcmp(l->v[i - 1].section, l->v[i].section)))
			fn(arg, l->v[i].name);
	free(own.v);
	return 0;
}

int scenario_check_kernel_names(const struct kernel_profile *k, const struct scenario *sc, int nsc,
				struct mm_error *err)
{
	const struct sc_names *bi = builtin_names(err);
	struct sc_names own = {0};
	int rc = 0, have_own = 0, nown = 0;
	const char *who = NULL; /* the one scenario of the run that is not built in, if one */

	if (!bi)
		return err ? err->code : MM_EPARSE;
	for (int i = 0; k->p && i < k->p->nentries && !rc; i++) {
		const struct prof_entry *e = &k->p->e[i];
		struct sc_name key;
		size_t s;
		int found;

		for (s = 0; s < sizeof(named_sections) / sizeof(named_sections[0]); s++)
			if (!strcmp(named_sections[s].section, e->section))
				break;
		if (s == sizeof(named_sections) / sizeof(named_sections[0]))
			continue; /* [kernel] and a lock design's section have fixed keys, checked elsewhere */
		key.section = named_sections[s].section;
		snprintf(key.name, sizeof(key.name), "%s", e->key);
		found = bi->n && bsearch(&key, bi->v, (size_t)bi->n, sizeof(*bi->v), name_cmp);
		if (!found && !have_own) {
			have_own = 1;
			for (int j = 0; j < nsc && !rc; j++)
				if (!sc[j].builtin) {
					rc = names_of(&own, &sc[j]);
					who = nown++ ? NULL : sc[j].path;
				}
			if (rc)
				break;
		}
		for (int j = 0; j < own.n && !found; j++)
			found = !name_cmp(&key, &own.v[j]);
		if (!found) {
			/* the nearest of the names this section may hold, the run's scenario's first */
			const char **cand = malloc((size_t)(own.n + bi->n + 1) * sizeof(*cand));
			char dym[2 * SC_NAME + 32] = "";
			int n = 0;

			for (int j = 0; cand && j < own.n; j++)
				if (own.v[j].section == key.section)
					cand[n++] = own.v[j].name;
			for (int j = 0; cand && j < bi->n; j++)
				if (bi->v[j].section == key.section)
					cand[n++] = bi->v[j].name;
			if (cand)
				profile_did_you_mean(dym, sizeof(dym), e->key, cand, n);
			free(cand);
			rc =
			    mm_fail(err, MM_EPARSE,
				    "%s:%d:%d: [%s] key '%s' is not a %s that %s%s%s names, so nothing would read it%s",
				    k->p->path, e->line, e->col, e->section, e->key, named_sections[s].noun,
				    nown == 1  ? "the scenario "
				    : nown > 1 ? "the run's scenarios"
					       : "any built-in scenario",
				    nown == 1 ? who : "", nown ? " or any built-in one" : "", dym);
		}
	}
	free(own.v);
	return rc;
}

/* A step's number: its literal, or the entry NAME of the kernel profile's [@section] (@noun names
 * it in the error). */
static int named(const struct scenario *sc, const struct sc_step *st, const struct kernel_profile *k,
		 const char *section, const char *noun, double *v, struct mm_error *err)
{
	const struct prof_entry *e;

	if (!st->name[0]) {
		*v = st->literal;
		return 0;
	}
	if (!(e = profile_find(k->p, section, st->name)))
		return mm_fail(err, MM_ENOENT, "%s:%d:%d: unknown %s '%s': kernel profile %s has no [%s] %s", sc->path,
			       st->line_no, st->col, noun, st->name, k->p->path, section, st->name);
	*v = e->num;
	return 0;
}

/* ---- folio layouts ------------------------------------------------------ */

/* A [batch] entry a folio layout is built from, a whole number in [lo, hi]. */
static int layout_batch(const struct scenario *sc, const struct sc_step *st, const struct kernel_profile *k,
			const char *key, int64_t lo, int64_t hi, int64_t *v, struct mm_error *err)
{
	const struct prof_entry *e = profile_find(k->p, "batch", key);

	if (!e)
		return mm_fail(err, MM_ENOENT,
			       "%s:%d:%d: the folio layout %s needs [batch] %s, which kernel profile %s lacks",
			       sc->path, st->line_no, st->col, st->name, key, k->p->path);
	if (e->num < (double)lo || e->num > (double)hi || e->num != floor(e->num))
		return mm_fail(err, MM_ERANGE, "%s:%d: [batch] %s = %s: expected a whole number from %lld to %lld",
			       k->p->path, e->line, key, e->value, (long long)lo, (long long)hi);
	*v = (int64_t)e->num;
	return 0;
}

static int ilog2_64(int64_t v)
{
	int r = 0;

	while (v > 1) {
		v >>= 1;
		r++;
	}
	return r;
}

/*
 * The page cache of a file a task faults in from its start, as readahead fills it: rounds of
 * ra_pages pages (the device's read_ahead_kb), the folios of round r of order min(2r, ilog2(ra_pages),
 * folio_max_order) (page_cache_ra_order raises the order by 2 each round and caps it by the window
 * and the mapping's largest order; measured on 6.18 ext4 at read_ahead_kb 128, 512 and 8192: orders
 * 0,2,4,5,5... / 0,2,4,6,7,7... / 0,2,4,6,8,9,9...), each folio naturally aligned.  Then the units
 * of @which (layout_names) over it.
 */
static int layout_build(const struct scenario *sc, const struct sc_step *st, const struct kernel_profile *k, int which,
			struct prog_layout *L, struct mm_error *err)
{
	int64_t pass = 0, pmd = 0, fa = 0, ra = 0, maxo = 0, whole = 0, *end = NULL, *len = NULL, *nf = NULL,
		*fp = NULL, n = 0, cap = 0;
	int read = which >= 2, want_pmd = which & 1, rc;

	if ((rc = layout_batch(sc, st, k, "pages_per_map", 1, 1 << 24, &pass, err)) ||
	    (rc = layout_batch(sc, st, k, "ptes_per_table", 2, 1 << 20, &pmd, err)) ||
	    (rc = layout_batch(sc, st, k, "fault_around_pages", 1, 1 << 20, &fa, err)) ||
	    (rc = layout_batch(sc, st, k, layout_keys[0], 1, 1 << 24, &ra, err)) ||
	    (rc = layout_batch(sc, st, k, layout_keys[1], 0, 20, &maxo, err)) ||
	    (rc = layout_batch(sc, st, k, layout_keys[2], 0, 1, &whole, err)))
		return rc;
	/* the kernel's fault-around window and a PTE page are powers of two; the units assume it */
	if ((fa & (fa - 1)) || (pmd & (pmd - 1)))
		return mm_fail(err, MM_ERANGE, "%s: [batch] %s = %lld: a folio layout needs a power of two", k->p->path,
			       fa & (fa - 1) ? "fault_around_pages" : "ptes_per_table",
			       (long long)(fa & (fa - 1) ? fa : pmd));
	memset(L, 0, sizeof(*L));
	snprintf(L->name, sizeof(L->name), "%s", layout_names[which]);
	L->pass = pass;
	for (int64_t round = 0, q = 0; q < pass; round++) {
		int64_t stop = q + ra < pass ? q + ra : pass;
		int order = (int)(2 * round < 62 ? 2 * round : 62);

		if (order > ilog2_64(ra))
			order = ilog2_64(ra);
		if (order > maxo)
			order = (int)maxo;
		while (q < stop) {
			int o = order;
			int64_t f, u;

			while (o > 0 && ((q & ((INT64_C(1) << o) - 1)) || q + (INT64_C(1) << o) > stop))
				o--;
			f = INT64_C(1) << o;
			L->folios += (f == pmd) == want_pmd;
			/* this folio's units: a PMD mapping, the whole folio, pages or fault-around windows */
			for (int64_t at = q; at < q + f; at += u) {
				int is_pmd = f == pmd;

				if (is_pmd || (whole && (!read || f >= fa)))
					u = f;
				else if (!read)
					u = 1;
				else
					u = fa - at % fa; /* to the end of the window */
				if (u > q + f - at && !(read && !is_pmd && f < fa))
					u = q + f - at;
				if (is_pmd != want_pmd)
					continue;
				/* a read window over several small folios is one unit, ending where it ends */
				if (read && !is_pmd && n > 0 && f < fa && end[n - 1] > at) {
					nf[n - 1]++;
					fp[n - 1] += f;
					continue;
				}
				if (n == cap) {
					int64_t nc = cap ? 2 * cap : 1024, *ne = realloc(end, nc * sizeof(*ne)),
						*nl = ne ? realloc(len, nc * sizeof(*nl)) : NULL,
						*nn = nl ? realloc(nf, nc * sizeof(*nn)) : NULL,
						*np = nn ? realloc(fp, nc * sizeof(*np)) : NULL;

					if (!np) {
						free(ne ? ne : end);
						free(nl ? nl : len);
						free(nn ? nn : nf);
						free(fp);
						return mm_fail(err, MM_ENOMEM, "out of memory");
					}
					end = ne;
					len = nl;
					nf = nn;
					fp = np;
					cap = nc;
				}
				end[n] = at + u < pass ? at + u : pass;
				len[n] = end[n] - at;
				nf[n] = 1;
				fp[n] = f;
				n++;
			}
			q += f;
		}
	}
	L->n = (int)n;
	L->pages = len;
	L->nfolios = nf;
	L->fpages = fp;
	L->gap = n ? malloc(n * sizeof(int64_t)) : NULL;
	if (n && !L->gap) {
		free(end);
		free(len);
		free(nf);
		free(fp);
		L->pages = NULL;
		L->nfolios = NULL;
		L->fpages = NULL;
		return mm_fail(err, MM_ENOMEM, "out of memory");
	}
	for (int64_t j = 0; j < n; j++) {
		L->gap[j] = end[j] - (j ? end[j - 1] : end[n - 1] - pass);
		L->total += len[j];
	}
	L->end = end;
	return 0;
}

/*
 * Where a task @pos pages into a pass stands in @L: the unit whose last page comes next, and the
 * visits since the class's previous unit ended (what the 'every' counter holds there).
 */
void prog_layout_at(const struct prog_layout *L, int64_t pos, int *unit, int64_t *since)
{
	*unit = 0;
	*since = 0;
	if (!L->n || L->pass <= 0)
		return;
	pos %= L->pass;
	for (int j = 0; j < L->n; j++)
		if (L->end[j] > pos) {
			*unit = j;
			*since = pos - (j ? L->end[j - 1] : L->end[L->n - 1] - L->pass);
			return;
		}
	*since = pos - L->end[L->n - 1]; /* past the last unit: unit 0 of the next pass comes next */
}

/* An 'every' of a folio layout: the layout built once per program, the step pointing at it. */
static int compile_layout_every(const struct scenario *sc, const struct sc_step *st, const struct kernel_profile *k,
				struct program *out, struct prog_insn *in, struct mm_error *err)
{
	int which = layout_index(st->name), l, rc;

	for (l = 0; l < out->nlayout && strcmp(out->layout[l].name, st->name); l++)
		;
	if (l == out->nlayout) {
		if (l == PROG_MAX_LAYOUTS)
			return mm_fail(err, MM_ERANGE, "%s:%d: more than %d folio layouts in one variant", sc->path,
				       st->line_no, PROG_MAX_LAYOUTS);
		if ((rc = layout_build(sc, st, k, which, &out->layout[l], err)))
			return rc;
		out->nlayout++;
	}
	in->lay = l + 1;
	in->count = 0; /* no count: the layout's units say when it fires */
	in->mean = out->layout[l].n ? (double)out->layout[l].pass / out->layout[l].n : 0;
	return 0;
}

/*
 * A step of no cost is not in the program: a compute whose cost is 0 under this kernel profile
 * (a guest-only cost such as touch_mapped_private, which bare-metal profiles set to 0), and any
 * repeat, every, as or choose block that this leaves empty.  Kept, such a step was not a no-op: it
 * took the IPI-handler time the task owed and drew a jitter sample for it, ended its operation
 * with that time pending, and added step visits to the units skip-ahead draws its start in (it
 * moved seed 001's gain by 5 points; README, "Known limits").  Indexes of match and alt are
 * renumbered.  0, or MM_ENOMEM.
 */
static int drop_free_steps(struct program *pr)
{
	char *gone = calloc(pr->n + 1, 1);
	int *to = calloc(pr->n + 1, sizeof(int)), k = 0;

	if (!gone || !to) {
		free(gone);
		free(to);
		return MM_ENOMEM;
	}
	for (int i = 0; i < pr->n; i++)
		gone[i] = pr->insn[i].act == SA_COMPUTE && pr->insn[i].ns == 0 && pr->insn[i].cycles == 0;
	/* innermost blocks first: an opener comes after every opener around it */
	for (int i = pr->n - 1; i >= 0; i--) {
		const struct prog_insn *in = &pr->insn[i];
		int empty = 1;

		if (!opens_block(in->act))
			continue;
		for (int j = i + 1; j < in->match && empty; j++)
			empty = gone[j] || (in->act == SA_CHOOSE && j == in->alt);
		if (empty) {
			gone[i] = gone[in->match] = 1;
			if (in->act == SA_CHOOSE && in->alt >= 0)
				gone[in->alt] = 1;
		}
	}
	for (int i = 0; i < pr->n; i++)
		to[i] = gone[i] ? -1 : k++;
	for (int i = 0; i < pr->n; i++) { /* to[i] <= i: each step moves down over ones already read */
		struct prog_insn in = pr->insn[i];

		if (gone[i])
			continue;
		if (opens_block(in.act) || in.act == SA_ELSE || in.act == SA_END)
			in.match = to[in.match];
		if (in.act == SA_CHOOSE && in.alt >= 0)
			in.alt = to[in.alt];
		pr->insn[to[i]] = in;
	}
	pr->n = k;
	free(gone);
	free(to);
	return 0;
}

int scenario_compile(const struct scenario *sc, int variant, const struct kernel_profile *k, struct program *out,
		     struct mm_error *err)
{
	int stack[64], depth = 0, rc;
	sc_varmask bit = SC_VBIT(variant);
	double v = 0; /* set by named() on success; gcc -O2 can't see that */

	memset(out, 0, sizeof(*out));
	if ((rc = lock_check_kernel(k, err)) ||
	    (!k->names_checked && (rc = scenario_check_kernel_names(k, sc, 1, err))))
		return rc;
	out->sc = sc;
	out->variant = variant;
	out->footprint = sc->footprint[variant];
	out->placement = sc->placement;
	out->insn = calloc(sc->nsteps + 1, sizeof(*out->insn));
	if (!out->insn)
		return MM_ENOMEM;
	for (int s = 0; s < sc->nsteps; s++) {
		const struct sc_step *st = &sc->step[s];
		struct prog_insn *in;

		if (!(st->variants & bit)) {
			/* a whole 'only' block or a 'when' step of another variant */
			if (st->act == SA_ONLY || opens_block(st->act))
				s = st->match;
			continue;
		}
		/* a like-variant's inserted block, parsed at depth 0, may sit deep in its base's blocks */
		if ((st->act == SA_ONLY || opens_block(st->act)) && depth == (int)(sizeof(stack) / sizeof(stack[0]))) {
			program_free(out);
			return mm_fail(err, MM_EPARSE, "%s:%d: blocks nested deeper than %d (variant %s)", sc->path,
				       st->line_no, (int)(sizeof(stack) / sizeof(stack[0])), sc->var[variant].name);
		}
		if (st->act == SA_ONLY) {
			stack[depth++] = -1; /* its END disappears too */
			continue;
		}
		if (st->act == SA_END) {
			int open = stack[--depth];

			if (open < 0)
				continue;
			in = &out->insn[out->n];
			memset(in, 0, sizeof(*in));
			in->act = SA_END;
			in->match = open;
			in->src_line = st->line_no;
			/* no kernel function (the END of a repeat or every keeps fn 0, as it always has) */
			if (out->insn[open].act == SA_AS || out->insn[open].act == SA_CHOOSE)
				in->fn = -1;
			if (out->insn[open].act == SA_CHOOSE && out->insn[open].alt >= 0)
				out->insn[out->insn[open].alt].match = out->n;
			out->insn[open].match = out->n++;
			continue;
		}
		in = &out->insn[out->n];
		memset(in, 0, sizeof(*in));
		in->act = st->act;
		in->fn = st->fn;
		in->obj = st->obj;
		in->alt1 = st->alt1;
		in->idx_div = st->idx_div;
		in->mode = st->mode;
		in->src_line = st->line_no;
		in->exp_dist = st->exp_dist;
		if (st->act == SA_EVERY && st->name[0] && layout_index(st->name) >= 0) {
			/* its counter counts the pages of a pass: one visit per operation, so no repeat, every or
			 * choose around it (and so no other layout's every) */
			for (int d = 0; d < depth; d++)
				if (stack[d] >= 0 && out->insn[stack[d]].act != SA_AS) {
					enum sc_act a = out->insn[stack[d]].act;
					int line = out->insn[stack[d]].src_line;

					program_free(out);
					return mm_fail(
					    err, MM_EPARSE,
					    "%s:%d:%d: 'every %s' counts the pages of a pass, one a visit: it "
					    "cannot be inside the %s of line %d",
					    sc->path, st->line_no, st->col, st->name, sc_act_name(a), line);
				}
			if ((rc = compile_layout_every(sc, st, k, out, in, err)))
				return program_free(out), rc;
		} else if (st->act == SA_REPEAT && layout_pages_name(st->name) >= 0) {
			/* 'repeat LAYOUT.pages|units|folios': the pages, units or folios of a pass of the class */
			struct sc_step lst = *st;
			const char *what = strchr(st->name, '.');
			const struct prog_layout *L;

			*strchr(lst.name, '.') = 0;
			if ((rc = compile_layout_every(sc, &lst, k, out, in, err)))
				return program_free(out), rc;
			L = &out->layout[in->lay - 1];
			in->count = !strcmp(what, ".units") ? L->n : !strcmp(what, ".folios") ? L->folios : L->total;
			in->lay = 0;
			in->mean = 0;
		} else if (st->act == SA_REPEAT && unit_repeat(st->name)) {
			const struct prog_insn *open = NULL;

			for (int d = depth - 1; d >= 0 && !open; d--)
				if (stack[d] >= 0 && out->insn[stack[d]].act == SA_EVERY)
					open = &out->insn[stack[d]];
			/* 'every N' inside a layout's: which unit would be meant is not clear */
			for (int d = 0; open && !open->lay && d < depth; d++)
				if (stack[d] >= 0 && out->insn[stack[d]].act == SA_EVERY && out->insn[stack[d]].lay) {
					int line = out->insn[stack[d]].src_line;

					program_free(out);
					return mm_fail(
					    err, MM_EPARSE,
					    "%s:%d:%d: 'repeat %s' is inside an 'every N' inside the folio layout's "
					    "'every' of line %d: put it outside the 'every N' (the folio's pages) "
					    "or the 'every N' outside the layout's",
					    sc->path, st->line_no, st->col, st->name, line);
				}
			if (!open) {
				program_free(out);
				return mm_fail(
				    err, MM_EPARSE,
				    "%s:%d:%d: 'repeat %s' runs once per page of the unit the 'every' around "
				    "it fired on (a folio layout's: %s, %s, %s or %s; or 'every N': N), and "
				    "is not inside one",
				    sc->path, st->line_no, st->col, st->name, layout_names[0], layout_names[1],
				    layout_names[2], layout_names[3]);
			}
			if (!open->lay) {
				/* 'every N' fires once per N visits: a unit of N pages (N folios, none large),
				 * known here */
				in->count =
				    unit_repeat(st->name) == 5 ? 0 : open->count - (unit_repeat(st->name) == 2 ? 1 : 0);
			} else {
				const struct prog_layout *L = &out->layout[open->lay - 1];

				/* unit_others: the unit's pages but the one that faulted */
				in->unit_pages = unit_repeat(st->name);
				if (in->unit_pages == 5) {
					/* the share of the units that are a run of one large folio */
					int64_t large = 0;

					for (int j = 0; j < L->n; j++)
						large += prog_unit_large(L, j);
					in->mean = L->n ? (double)large / L->n : 0;
				} else if (in->unit_pages >= 3) {
					/* a folio that is several units (a page or a window a fault) counts in each */
					int64_t sum = 0;

					for (int j = 0; j < L->n; j++)
						sum += in->unit_pages == 3 ? L->nfolios[j] : L->fpages[j];
					in->mean = L->n ? (double)sum / L->n : 1;
				} else
					in->mean = (L->n ? (double)L->total / L->n : 1) - (in->unit_pages - 1);
				in->count = llround(in->mean) > 0 ? llround(in->mean) : 1; /* for estimates */
			}
		} else if (st->act == SA_MEMORY || st->act == SA_REPEAT || st->act == SA_EVERY) {
			if ((rc = named(sc, st, k, "batch", st->act == SA_MEMORY ? "size" : "count", &v, err)))
				return program_free(out), rc;
			in->count = (int64_t)v;
		}
		if (st->act == SA_MISS && (rc = named(sc, st, k, "misses", "count", &in->misses, err)))
			return program_free(out), rc;
		if (st->act == SA_COMPUTE || st->act == SA_IPI) {
			if ((rc = named(sc, st, k, "costs", "cost", &v, err)))
				return program_free(out), rc;
			if (!st->name[0] && st->literal_unit == 1)
				in->ns = v;
			else
				in->cycles = v;
		}
		in->role = st->role;
		in->alt = -1;
		if (st->act == SA_CHOOSE)
			in->prob = st->literal / 100.0;
		if (st->act == SA_ELSE)
			out->insn[stack[depth - 1]].alt = out->n;
		if (opens_block(st->act))
			stack[depth++] = out->n;
		out->n++;
	}
	if (check_lock_pairs(sc, variant, out, err)) {
		program_free(out);
		return MM_EPARSE;
	}
	if (drop_free_steps(out)) {
		program_free(out);
		return MM_ENOMEM;
	}
	out->visits = calloc(out->n + 1, sizeof(double));
	if (!out->visits) {
		program_free(out);
		return MM_ENOMEM;
	}
	count_visits(out, 0, out->n, 1.0, sc->nrole ? -1 : 0, out->visits);
	for (int i = 0; i < out->n; i++)
		out->units_per_op += out->visits[i];
	if (out->n == 0 || out->units_per_op <= 0) {
		program_free(out);
		return mm_fail(err, MM_EPARSE, "%s: variant '%s' has no steps (of a cost above 0)", sc->path,
			       sc->var[variant].name);
	}
	/* per role; without roles, every task is a task of no role and runs 'visits' */
	out->nrole = sc->nrole;
	out->role_visits = calloc((size_t)(out->nrole + 1) * out->n, sizeof(double));
	if (!out->role_visits) {
		program_free(out);
		return MM_ENOMEM;
	}
	for (int r = 0; r <= out->nrole; r++) {
		double *v = out->role_visits + (size_t)r * out->n;

		if (!out->nrole) {
			memcpy(v, out->visits, out->n * sizeof(double));
			out->role_units[r] = out->units_per_op;
			continue;
		}
		count_visits(out, 0, out->n, 1.0, r, v);
		for (int i = 0; i < out->n; i++)
			out->role_units[r] += v[i];
	}
	return 0;
}

void program_free(struct program *p)
{
	for (int l = 0; l < p->nlayout; l++) {
		free(p->layout[l].gap);
		free(p->layout[l].pages);
		free(p->layout[l].nfolios);
		free(p->layout[l].fpages);
		free(p->layout[l].end);
	}
	free(p->insn);
	free(p->visits);
	free(p->role_visits);
	memset(p, 0, sizeof(*p));
}

double program_mix_visits(const struct program *pr, const int *count, double *out)
{
	double units = 0, n = 0;

	for (int r = 0; r <= pr->nrole; r++)
		n += count[r];
	for (int pc = 0; pc < pr->n; pc++) {
		out[pc] = 0;
		for (int r = 0; r <= pr->nrole && n > 0; r++)
			out[pc] += count[r] * pr->role_visits[(size_t)r * pr->n + pc] / n;
		units += out[pc];
	}
	return units;
}

int scenario_assign_roles(const struct scenario *sc, int ntasks, int *role_of, int *count, struct mm_error *err)
{
	int c[SC_MAX_ROLES + 1] = {0}, a[SC_MAX_ROLES + 1] = {0}, nr = sc->nrole, fixed = 0, rest, given = 0;
	double cum = 0;

	for (int r = 0; r < nr; r++) {
		fixed += sc->role[r].ntasks;
		c[r] = sc->role[r].ntasks;
	}
	for (int r = 0, upto = 0; r < nr && fixed > ntasks; r++)
		if ((upto += sc->role[r].ntasks) > ntasks) /* the line of the first role that does not fit */
			return mm_fail(err, MM_ERANGE,
				       "%s:%d: role '%s' takes %d task%s, but a run of %d task%s leaves it %d (the "
				       "'tasks N' roles take %d in all)",
				       sc->path, sc->role[r].line_no, sc->role[r].name, sc->role[r].ntasks,
				       sc->role[r].ntasks > 1 ? "s" : "", ntasks, ntasks > 1 ? "s" : "",
				       ntasks - (upto - sc->role[r].ntasks), fixed);
	/* the shares split the rest: the first k of them together take round(rest x their sum) */
	rest = ntasks - fixed;
	for (int r = 0; r < nr; r++) {
		long long upto;

		if (sc->role[r].ntasks)
			continue;
		cum += sc->role[r].share;
		upto = llround(rest * (cum < 100 ? cum : 100) / 100.0);
		if (upto > rest)
			upto = rest;
		c[r] = (int)(upto - given);
		given = (int)upto;
	}
	c[nr] = rest - given;
	if (count)
		memcpy(count, c, (nr + 1) * sizeof(int));
	/* Deal the tasks out in proportion: task i goes to the group, of those with tasks left,
	 * whose (dealt + 1/2) / count is least (the first declared on a tie).  Tasks are placed in
	 * order (topo_place_policy), so each role spreads over the sockets like the whole. */
	for (int i = 0; role_of && i < ntasks; i++) {
		int best = -1;

		for (int g = 0; g <= nr; g++)
			if (a[g] < c[g] && (best < 0 || (2LL * a[g] + 1) * c[best] < (2LL * a[best] + 1) * c[g]))
				best = g;
		role_of[i] = best;
		a[best]++;
	}
	return 0;
}

int scenario_uses_cost(const struct scenario *sc, int v, const char *key)
{
	/* live_steps' walk: a block whose opener is not the variant's holds none of its steps */
	for (int i = 0; i < sc->nsteps; i++) {
		const struct sc_step *st = &sc->step[i];

		if (!(st->variants & SC_VBIT(v))) {
			if (st->act == SA_ONLY || opens_block(st->act))
				i = st->match;
			continue;
		}
		if ((st->act == SA_COMPUTE || st->act == SA_IPI) && !strcmp(st->name, key))
			return 1;
	}
	return 0;
}

void op_counts(const struct program *pr, const char *lock, struct op_counts *c)
{
	const struct scenario *sc = pr->sc;

	memset(c, 0, sizeof(*c));
	for (int pc = 0; pc < pr->n; pc++) {
		const struct prog_insn *in = &pr->insn[pc];
		double v = pr->visits[pc];

		/* the user fault's entry: asm_exc_page_fault since 5.8, page_fault before */
		if (in->fn >= 0 &&
		    (!strcmp(sc->fn[in->fn], "asm_exc_page_fault") || !strcmp(sc->fn[in->fn], "page_fault")))
			c->faults += v;
		if (in->act == SA_IPI)
			c->ipis += v;
		if (in->act == SA_MEMORY)
			c->bytes += v * (double)in->count;
		if (in->act == SA_MISS)
			c->misses += v * in->misses;
		if ((in->act == SA_LOCK || in->act == SA_TRYLOCK) && lock && !strcmp(sc->obj[in->obj].name, lock)) {
			if (in->mode == LM_READ)
				c->lock_read += v;
			else
				c->lock_write += v;
			if (in->act == SA_LOCK)
				c->lock_blocking += v;
		}
	}
}

double program_rarest_visits(const struct program *pr)
{
	double rarest = 1;

	for (int pc = 0; pc < pr->n; pc++)
		if (pr->visits[pc] > 0 && pr->visits[pc] < rarest)
			rarest = pr->visits[pc];
	return rarest;
}
