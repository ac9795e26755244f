/* SPDX-License-Identifier: MIT */
#include "profile.h"
#include "builtin.h"

#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* inih reads through us, so that we know line numbers and comments. */
struct reader {
	const char *pos;
	int line;
	char pending[sizeof(((struct prof_entry *)0)->note)]; /* comment lines seen since the last key */
	int pending_cut;				      /* some of them did not fit in pending */
	unsigned pending_tags; /* bit t: some of those lines (even beyond pending's room) carries tag t */
	int col;	       /* column of the current line's first character that is not a blank */
	struct profile *p;
	const char *origin;
	struct mm_error *err;
	int failed;
};

static void append_note(char *dst, size_t cap, const char *text)
{
	size_t len = strlen(dst);

	if (len && len + 1 < cap)
		dst[len++] = ' ', dst[len] = 0;
	snprintf(dst + len, cap - len, "%s", text);
}

/* The tag a comment line of @len bytes carries; the first of the list when it has several. */
static enum prof_tag tag_of(const char *line, size_t len)
{
	static const struct {
		const char *word;
		enum prof_tag tag;
	} tags[] = {{"[measured]", PROF_MEASURED},
		    {"[vendor]", PROF_VENDOR},
		    {"[derived]", PROF_DERIVED},
		    {"[assumed]", PROF_ASSUMED},
		    {"[fitted]", PROF_FITTED}};

	for (size_t i = 0; i < sizeof(tags) / sizeof(tags[0]); i++)
		if (memmem(line, len, tags[i].word, strlen(tags[i].word)))
			return tags[i].tag;
	return PROF_UNTAGGED;
}

static char *reader_next(char *str, int num, void *stream)
{
	struct reader *r = stream;
	const char *s = r->pos, *eol;
	size_t n;

	if (!*s)
		return NULL;
	eol = strchr(s, '\n');
	n = eol ? (size_t)(eol - s + 1) : strlen(s);
	r->line++;
	{
		const char *c = s;

		while (*c == ' ' || *c == '\t')
			c++;
		if (*c == '#' || *c == ';') {
			/* a comment is provenance: keep it whole, and give inih an empty line */
			char text[sizeof(r->pending)];
			size_t k = 0, had = strlen(r->pending);

			c++;
			while (*c == ' ')
				c++;
			while (c < s + n && *c != '\n' && *c != '\r' && k + 1 < sizeof(text))
				text[k++] = *c++;
			text[k] = 0;
			r->pending_tags |= 1u << tag_of(s, n);
			append_note(r->pending, sizeof(r->pending), text);
			r->pending_cut |= c < s + n && *c != '\n' && *c != '\r';
			r->pending_cut |= had + (had > 0) + k >= sizeof(r->pending);
			r->pos = s + n;
			strcpy(str, "\n");
			return str;
		}
		if (*c == '[')
			r->pending[0] = 0, r->pending_tags = 0, r->pending_cut = 0;
		r->col = (int)(c - s) + 1;
	}
	if (n >= (size_t)num) {
		/* inih reads lines of at most num - 1 bytes: refuse, rather than split, a longer one */
		if (!r->failed)
			mm_fail(r->err, MM_EPARSE, "%s:%d: line longer than %d characters (only comments may be)",
				r->origin, r->line, num - 2);
		r->failed = 1;
		return NULL;
	}
	memcpy(str, s, n);
	str[n] = 0;
	r->pos = s + n;
	return str;
}

const char *prof_tag_name(enum prof_tag t)
{
	static const char *const names[] = {"untagged", "measured", "vendor", "derived", "assumed", "fitted"};

	return (unsigned)t < sizeof(names) / sizeof(names[0]) ? names[t] : "?";
}

size_t profile_decimal_len(const char *s)
{
	size_t i = 0, digits;

	if (s[i] == '+' || s[i] == '-')
		i++;
	digits = strspn(s + i, "0123456789");
	i += digits;
	if (s[i] == '.') {
		size_t frac = strspn(s + i + 1, "0123456789");

		digits += frac;
		i += 1 + frac;
	}
	if (!digits)
		return 0;
	if (s[i] == 'e' || s[i] == 'E') {
		size_t j = i + 1 + (s[i + 1] == '+' || s[i + 1] == '-');
		size_t exp = strspn(s + j, "0123456789");

		if (exp)
			i = j + exp;
	}
	return i;
}

/* A key is a name, as [layout] fields and [costs] functions are: not 'key [assumed]'. */
static int is_key_name(const char *s)
{
	return *s && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") == strlen(s);
}

/* Refuse what the fixed buffers of an entry would cut: two names sharing their start would merge. */
static int entry_fits(struct reader *r, const char *section, const char *name, const char *value)
{
	const struct {
		const char *what, *text;
		size_t cap;
	} f[] = {{"section name", section, sizeof(((struct prof_entry *)0)->section)},
		 {"key", name, sizeof(((struct prof_entry *)0)->key)},
		 {"value", value, sizeof(((struct prof_entry *)0)->value)}};

	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		if (strlen(f[i].text) >= f[i].cap)
			return mm_fail(r->err, MM_EPARSE, "%s:%d: %s '%.40s...' is longer than %zu characters",
				       r->origin, r->line, f[i].what, f[i].text, f[i].cap - 1);
	if (!is_key_name(name))
		return mm_fail(r->err, MM_EPARSE,
			       "%s:%d: key '%s' in [%s]: expected a name (letters, digits, '_', '.', '-'); a "
			       "provenance tag goes on the '#' line above it",
			       r->origin, r->line, name, section);
	return 0;
}

static int on_entry(void *user, const char *section, const char *name, const char *value)
{
	struct reader *r = user;
	struct profile *p = r->p;
	struct prof_entry *e;
	char *end;

	if (r->failed)
		return 0; /* keep the first error */
	if (entry_fits(r, section, name, value)) {
		r->failed = 1;
		return 0;
	}
	if (profile_find(p, section, name)) {
		mm_fail(r->err, MM_EPARSE, "%s:%d: key '%s' appears twice in [%s]", r->origin, r->line, name, section);
		r->failed = 1;
		return 0;
	}
	if (p->nentries == p->cap) {
		int cap = p->cap ? 2 * p->cap : 64;
		struct prof_entry *ne = realloc(p->e, cap * sizeof(*ne));

		if (!ne) {
			mm_fail(r->err, MM_ENOMEM, "%s: out of memory", r->origin);
			r->failed = 1;
			return 0;
		}
		p->e = ne;
		p->cap = cap;
	}
	e = &p->e[p->nentries++];
	memset(e, 0, sizeof(*e));
	snprintf(e->section, sizeof(e->section), "%s", section);
	snprintf(e->key, sizeof(e->key), "%s", name);
	snprintf(e->value, sizeof(e->value), "%s", value);
	errno = 0;
	e->num = strtod(value, &end);
	e->is_num =
	    end != value && *end == 0 && errno == 0 && isfinite(e->num) && profile_decimal_len(value) == strlen(value);
	e->line = r->line;
	e->col = r->col;
	snprintf(e->note, sizeof(e->note), "%s", r->pending);
	if (r->pending_cut) { /* say so rather than show a cut sentence as whole */
		size_t len = strlen(e->note);

		memcpy(e->note + (len < sizeof(e->note) - 4 ? len : sizeof(e->note) - 4), "...", 4);
	}
	/* from every comment line, whole: a long note may not fit e->note */
	e->tag = PROF_UNTAGGED;
	for (int t = PROF_MEASURED; t <= PROF_FITTED && !e->tag; t++)
		if (r->pending_tags & (1u << t))
			e->tag = (enum prof_tag)t;
	/* a fitted number's provenance names the points it was fitted on, which every error figure
	 * leaves out (reproduce published): cut, a name past the cut would count as predicted */
	if (e->tag == PROF_FITTED && r->pending_cut) {
		mm_fail(r->err, MM_EPARSE,
			"%s:%d: the provenance of [fitted] %s is longer than %zu characters: the points it names "
			"would not all be read (shorten it)",
			r->origin, r->line, name, sizeof(e->note) - 4);
		r->failed = 1;
		p->nentries--;
		return 0;
	}
	r->pending[0] = 0;
	r->pending_tags = 0;
	r->pending_cut = 0;
	return 1;
}

int profile_parse(struct profile *p, const char *origin, const char *text, struct mm_error *err)
{
	struct reader r = {.pos = text, .p = p, .origin = origin, .err = err};
	const char *slash = strrchr(origin, '/');
	const char *base = slash ? slash + 1 : origin;
	int rc;

	memset(p, 0, sizeof(*p));
	/* messages and later re-reads name the file by this: never a cut one */
	if (strlen(origin) >= sizeof(p->path))
		return mm_fail(err, MM_EINVAL, "%.60s...: a profile's path has at most %zu characters", origin,
			       sizeof(p->path) - 1);
	snprintf(p->path, sizeof(p->path), "%s", origin);
	{
		const char *dot = strrchr(base, '.');

		snprintf(p->name, sizeof(p->name), "%.*s", (int)(dot ? dot - base : (long)strlen(base)), base);
	}
	rc = ini_parse_stream(reader_next, &r, on_entry, &r);
	if (r.failed) {
		profile_free(p);
		return err ? err->code : MM_EPARSE;
	}
	if (rc != 0) {
		profile_free(p);
		return mm_fail(err, MM_EPARSE,
			       "%s:%d: malformed line (expected '[section]', 'key = value' or a '#' comment)", origin,
			       rc);
	}
	return 0;
}

static int read_file(const char *path, char **out, struct mm_error *err)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long len;

	if (!f)
		return mm_fail(err, MM_ENOENT, "%s: cannot open: %s", path, strerror(errno));
	if (fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		fclose(f);
		return mm_fail(err, MM_EIO, "%s: cannot read", path);
	}
	if (len > (16L << 20)) {
		fclose(f);
		return mm_fail(err, MM_ERANGE, "%s: %ld bytes is too large for a profile or scenario", path, len);
	}
	buf = malloc(len + 1);
	if (!buf) {
		fclose(f);
		return mm_fail(err, MM_ENOMEM, "%s: out of memory", path);
	}
	if (fread(buf, 1, len, f) != (size_t)len) {
		free(buf);
		fclose(f);
		return mm_fail(err, MM_EIO, "%s: short read", path);
	}
	buf[len] = 0;
	fclose(f);
	if (strlen(buf) != (size_t)len) {
		free(buf);
		return mm_fail(err, MM_EPARSE, "%s: contains a NUL byte; expected a text file", path);
	}
	*out = buf;
	return 0;
}

int mm_read_text_file(const char *path, char **out, struct mm_error *err)
{
	return read_file(path, out, err);
}

static void list_builtins(const char *kind, char *buf, size_t cap)
{
	const char *const *names = profile_builtin_names(kind);

	buf[0] = 0;
	for (int i = 0; names[i]; i++)
		append_note(buf, cap, names[i]);
}

/* The builtin kernel profile whose [kernel] covers lists @version (one profile
 * stands for releases whose locks, layout and costs are the same). */
static const struct builtin_file *builtin_covering(const char *version)
{
	const char *const *names = profile_builtin_names("kernels");
	const struct builtin_file *found = NULL;

	for (int i = 0; names[i] && !found; i++) {
		struct profile p;
		struct mm_error err = {0};
		const struct prof_entry *e;

		if (profile_parse(&p, names[i], profile_builtin_text("kernels", names[i]), &err))
			continue;
		e = profile_find(&p, "kernel", "covers");
		if (e) {
			char buf[256], *save, *w;

			snprintf(buf, sizeof(buf), "%s", e->value);
			for (w = strtok_r(buf, " ,", &save); w && !found; w = strtok_r(NULL, " ,", &save))
				if (!strcmp(w, version))
					found = builtin_find("kernels", names[i]);
		}
		profile_free(&p);
	}
	return found;
}

/*
 * [kernel] base = PROFILE: a kernel profile that differs from another in a
 * few entries (a layout, a batch) names it and lists only those; every
 * entry of the base it does not set is taken over, provenance and all.
 */
static int inherit(struct profile *p, const char *kind, struct mm_error *err)
{
	static _Thread_local int depth; /* per thread: reproduce published loads profiles in parallel */
	struct prof_entry *e = profile_find(p, "kernel", "base");
	struct profile base;
	int rc;

	if (!e || strcmp(kind, "kernels"))
		return 0;
	if (depth == 4) {
		rc = mm_fail(err, MM_EPARSE, "%s:%d: base profiles nested deeper than 4 (a loop?)", p->path, e->line);
		profile_free(p);
		return rc;
	}
	depth++;
	rc = profile_load(&base, kind, e->value, err);
	depth--;
	if (rc) {
		profile_free(p);
		return rc;
	}
	for (int i = 0; i < base.nentries && !rc; i++) {
		const struct prof_entry *b = &base.e[i];

		if (profile_find(p, b->section, b->key) || !strcmp(b->key, "covers"))
			continue;
		if (p->nentries == p->cap) {
			struct prof_entry *n = realloc(p->e, (size_t)(p->cap * 2 + 8) * sizeof(*n));

			if (!n) {
				rc = mm_fail(err, MM_ENOMEM, "out of memory");
				break;
			}
			p->e = n;
			p->cap = p->cap * 2 + 8;
		}
		p->e[p->nentries++] = *b;
	}
	profile_free(&base);
	if (rc)
		profile_free(p);
	return rc;
}

int profile_load(struct profile *p, const char *kind, const char *name_or_path, struct mm_error *err)
{
	const struct builtin_file *b = builtin_find(kind, name_or_path);
	char origin[600], *text = NULL;
	int rc;

	if (!b && !strcmp(kind, "kernels") && !strncmp(name_or_path, "linux-", 6))
		b = builtin_covering(name_or_path + 6);
	if (b) {
		snprintf(origin, sizeof(origin), "builtin:data/%s/%s.conf", kind, b->name);
		rc = profile_parse(p, origin, b->text, err);
		return rc ? rc : inherit(p, kind, err);
	}
	/* a name without '/' that is no file here is meant as a builtin */
	if (!strchr(name_or_path, '/') && access(name_or_path, F_OK)) {
		char names[512];

		list_builtins(kind, names, sizeof(names));
		return mm_fail(err, MM_ENOENT, "unknown %s profile '%s' (builtin: %s; or give a file path)",
			       strcmp(kind, "machines") ? "kernel" : "machine", name_or_path, names);
	}
	rc = read_file(name_or_path, &text, err);
	if (rc)
		return rc;
	rc = profile_parse(p, name_or_path, text, err);
	free(text);
	return rc ? rc : inherit(p, kind, err);
}

int profile_copy(struct profile *dst, const struct profile *src)
{
	*dst = *src;
	dst->e = malloc((src->cap ? src->cap : 1) * sizeof(*dst->e));
	if (!dst->e)
		return MM_ENOMEM;
	if (src->nentries) /* an empty profile may have no array at all */
		memcpy(dst->e, src->e, src->nentries * sizeof(*dst->e));
	return 0;
}

void profile_free(struct profile *p)
{
	free(p->e);
	memset(p, 0, sizeof(*p));
}

struct prof_entry *profile_find(const struct profile *p, const char *section, const char *key)
{
	for (int i = 0; i < p->nentries; i++)
		if (!strcmp(p->e[i].section, section) && !strcmp(p->e[i].key, key))
			return &p->e[i];
	return NULL;
}

/* Edit distance of @a and @b (optimal string alignment: insert, delete, substitute, or swap two
 * neighbours, each one edit), or a number above @cap once it must exceed @cap. */
static int edit_distance(const char *a, const char *b, int cap)
{
	enum { MAXLEN = 64 };
	int la = (int)strlen(a), lb = (int)strlen(b);
	int d[MAXLEN + 1][MAXLEN + 1];

	if (la > MAXLEN || lb > MAXLEN || abs(la - lb) > cap)
		return cap + 1;
	for (int i = 0; i <= la; i++)
		d[i][0] = i;
	for (int j = 0; j <= lb; j++)
		d[0][j] = j;
	for (int i = 1; i <= la; i++)
		for (int j = 1; j <= lb; j++) {
			int v = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);

			if (d[i - 1][j] + 1 < v)
				v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	return d[la][lb];
}

const char *profile_nearest_name(const char *name, const char *const *names, int n)
{
	/* close: one edit in a short name, two from 6 characters, three from 12; and never more than
	 * a third of the name, so that 'x' is not taken for 'l3' */
	const int len = (int)strlen(name);
	const int cap = len < 6 ? 1 : len < 12 ? 2 : 3;
	const char *best = NULL;
	int best_d = cap + 1;

	for (int i = 0; i < n; i++) {
		const int dist = names[i] ? edit_distance(name, names[i], cap) : cap + 1;

		/* ties: the first of the list (callers list in a fixed order) */
		if (dist < best_d && 3 * dist <= len + 1)
			best = names[i], best_d = dist;
	}
	if (!best && len) { /* else the one name that starts with it and a '_' or '.': pause -> pause_ns */
		int n_prefixed = 0;

		for (int i = 0; i < n; i++)
			if (names[i] && !strncmp(names[i], name, (size_t)len) &&
			    (names[i][len] == '_' || names[i][len] == '.') && n_prefixed++ == 0)
				best = names[i];
		if (n_prefixed > 1)
			best = NULL;
	}
	return best;
}

const char *profile_did_you_mean(char *buf, size_t cap, const char *name, const char *const *names, int n)
{
	const char *near = profile_nearest_name(name, names, n);

	if (near)
		snprintf(buf, cap, " (did you mean '%s'?)", near);
	else if (cap)
		buf[0] = 0;
	return buf;
}

const char *const *profile_builtin_names(const char *kind)
{
	/* Built once per kind from the embedded table; read-only afterwards. */
	static const char *names[3][64];
	static const char *const kinds[3] = {"machines", "kernels", "scenarios"};
	int k, n = 0;

	for (k = 0; k < 3 && strcmp(kinds[k], kind); k++)
		;
	if (k == 3)
		return names[0] + 63; /* an empty list */
#pragma omp critical(mmsim_builtin_names)
	if (!names[k][0]) {
		for (int i = 0; i < mmsim_builtin_nfiles && n < 63; i++)
			if (!strcmp(mmsim_builtin_files[i].kind, kind))
				names[k][n++] = mmsim_builtin_files[i].name;
	}
	return names[k];
}

const char *profile_builtin_text(const char *kind, const char *name)
{
	const struct builtin_file *b = builtin_find(kind, name);

	return b ? b->text : NULL;
}

/* ---- typed views -------------------------------------------------------- */

static int need(const struct profile *p, const char *sec, const char *key, struct prof_entry **out,
		struct mm_error *err)
{
	*out = profile_find(p, sec, key);
	if (!*out)
		return mm_fail(err, MM_EPARSE, "%s: missing key '%s' in section [%s]", p->path, key, sec);
	return 0;
}

static int need_str(const struct profile *p, const char *sec, const char *key, char *dst, size_t cap,
		    struct mm_error *err)
{
	struct prof_entry *e;
	int rc = need(p, sec, key, &e, err);

	if (rc)
		return rc;
	if ((size_t)snprintf(dst, cap, "%s", e->value) >= cap)
		return mm_fail(err, MM_ERANGE, "%s:%d: [%s] %s: '%s' is longer than %zu characters", p->path, e->line,
			       sec, key, e->value, cap - 1);
	return 0;
}

static int64_t ns_to_ps(double ns)
{
	return (int64_t)llround(ns * 1000.0);
}

/* Keys a hardware profile may hold, per section; anything else is a typo. */
static const char *const hw_keys[][13] = {
    {"machine", "name", "description", "topology", "package_hops", 0},
    {"latency", "self", "smt", "l3", "package", "remote", "remote_far", "memory_local", "memory_remote", "atomic", 0},
    {"coherence", "arbitration", "batch_limit", "home_snoop", "serve_ns", 0},
    {"bandwidth", "node_gbs", "task_gbs", 0},
    {"cpu", "smt_factor", "pause_ns", "wakeup_ns", "jitter", "op_jitter", "ipi_ns", "wake_step_ns", "sched_out_ns",
     "sched_in_ns", "corun_factor", "cost_scale", 0},
    {"cache", "llc_mib", 0},
};

static int check_hw_keys(const struct profile *p, struct mm_error *err)
{
	for (int i = 0; i < p->nentries; i++) {
		const struct prof_entry *e = &p->e[i];
		size_t s;
		int ok = 0;

		if (!strcmp(e->section, "frequency"))
			continue;
		for (s = 0; s < sizeof(hw_keys) / sizeof(hw_keys[0]); s++) {
			if (strcmp(hw_keys[s][0], e->section))
				continue;
			for (int k = 1; hw_keys[s][k]; k++)
				ok |= !strcmp(hw_keys[s][k], e->key);
			break;
		}
		if (s == sizeof(hw_keys) / sizeof(hw_keys[0])) {
			static const char *const sections[] = {"machine",   "latency", "coherence", "bandwidth",
							       "frequency", "cpu",     "cache"};
			char dym[96];

			return mm_fail(err, MM_EPARSE,
				       "%s:%d: unknown section [%s] (expected machine, latency, coherence, bandwidth, "
				       "cache, frequency or cpu)%s",
				       p->path, e->line, e->section,
				       profile_did_you_mean(dym, sizeof(dym), e->section, sections,
							    (int)(sizeof(sections) / sizeof(sections[0]))));
		}
		if (!ok) {
			char list[256] = "", dym[96];
			int n = 0;

			for (int k = 1; hw_keys[s][k]; k++, n++)
				append_note(list, sizeof(list), hw_keys[s][k]);
			return mm_fail(err, MM_EPARSE,
				       "%s:%d:%d: [%s] key '%s' is not a key of a machine profile's [%s] (expected one "
				       "of: %s)%s",
				       p->path, e->line, e->col, e->section, e->key, e->section, list,
				       profile_did_you_mean(dym, sizeof(dym), e->key, hw_keys[s] + 1, n));
		}
	}
	return 0;
}

/* A decimal integer as written (no sign, point or exponent): counts, flags, core numbers. */
static int is_digits(const char *s)
{
	return *s && strspn(s, "0123456789") == strlen(s);
}

enum hw_kind { HK_NS, HK_REAL, HK_MIB, HK_INT };

/*
 * The numbers of a hardware profile, in the order they are checked, and their ranges.
 * Latencies and other durations are in ns and become ps: one that is not 0 must be at least
 * 0.001 ns, the simulator's tick, or it would silently round to 0.  Only the keys marked
 * zero_ok may be 0, because there 0 is a case the model handles: an atomic that costs nothing
 * over a plain access, a spinner that re-reads at once (sim.c's refetch), an instant wake-up,
 * an IPI (what-if) or a wake_up_q() step that costs nothing, no jitter, no home snoop.  A line
 * transfer, a DRAM access or a bandwidth is never free.  Counts and flags (HK_INT) are decimal
 * integers; "1e3" or "0x10" is refused.
 */
static const struct hw_num {
	const char *sec, *key;
	enum hw_kind kind;
	double lo, hi; /* HK_NS: of a value that is not 0 */
	int zero_ok;
	int optional; /* absent: dflt */
	double dflt;
	size_t off; /* in struct hw_profile */
} hw_nums[] = {
    {"latency", "self", HK_NS, 0.001, 1e5, 0, 0, 0, offsetof(struct hw_profile, lat_ps[TOPO_SELF])},
    {"latency", "smt", HK_NS, 0.001, 1e5, 0, 0, 0, offsetof(struct hw_profile, lat_ps[TOPO_SMT])},
    {"latency", "l3", HK_NS, 0.001, 1e5, 0, 0, 0, offsetof(struct hw_profile, lat_ps[TOPO_L3])},
    {"latency", "package", HK_NS, 0.001, 1e5, 0, 0, 0, offsetof(struct hw_profile, lat_ps[TOPO_PACKAGE])},
    {"latency", "remote", HK_NS, 0.001, 1e5, 0, 0, 0, offsetof(struct hw_profile, lat_ps[TOPO_REMOTE])},
    /* optional: needed only when package_hops puts packages 2 hops apart (hw_profile_derive) */
    {"latency", "remote_far", HK_NS, 0.001, 1e5, 0, 1, 0, offsetof(struct hw_profile, lat_ps[TOPO_REMOTE_FAR])},
    {"latency", "memory_local", HK_NS, 0.001, 1e5, 0, 0, 0, offsetof(struct hw_profile, mem_local_ps)},
    {"latency", "memory_remote", HK_NS, 0.001, 1e5, 0, 0, 0, offsetof(struct hw_profile, mem_remote_ps)},
    {"latency", "atomic", HK_NS, 0.001, 1e4, 1, 0, 0, offsetof(struct hw_profile, atomic_ps)},
    {"coherence", "batch_limit", HK_INT, 1, 1e6, 0, 0, 0, offsetof(struct hw_profile, batch_limit)},
    {"coherence", "home_snoop", HK_INT, 0, 1, 1, 0, 0, offsetof(struct hw_profile, home_snoop)},
    /* optional: 0, loads of one line granted together are answered at once (README "The coherence
     * model", many sharers) */
    {"coherence", "serve_ns", HK_NS, 0.001, 1e4, 1, 1, 0, offsetof(struct hw_profile, serve_ps)},
    {"bandwidth", "node_gbs", HK_REAL, 0.01, 1e5, 0, 0, 0, offsetof(struct hw_profile, bw_node_gbs)},
    {"bandwidth", "task_gbs", HK_REAL, 0.01, 1e5, 0, 0, 0, offsetof(struct hw_profile, bw_task_gbs)},
    {"cpu", "smt_factor", HK_REAL, 1, 4, 0, 0, 0, offsetof(struct hw_profile, smt_factor)},
    /* optional: work stretches by this with every other CPU busy, in proportion to how many are;
     * 1, not modelled, unless set (mmsim calibrate measures it: a guest's vCPUs share a host) */
    {"cpu", "corun_factor", HK_REAL, 1, 4, 0, 1, 1, offsetof(struct hw_profile, corun_factor)},
    /* optional: the cycles a step of the scenarios' private work or an IPI handler ([costs]) takes
     * on this machine per cycle the kernel profile gives it; 1 (as written) unless set */
    {"cpu", "cost_scale", HK_REAL, 0.1, 10, 0, 1, 1, offsetof(struct hw_profile, cost_scale)},
    {"cpu", "pause_ns", HK_NS, 0.001, 1e5, 1, 0, 0, offsetof(struct hw_profile, pause_ps)},
    {"cpu", "wakeup_ns", HK_NS, 0.001, 1e8, 1, 0, 0, offsetof(struct hw_profile, wakeup_ps)},
    {"cpu", "jitter", HK_REAL, 0, 0.5, 1, 0, 0, offsetof(struct hw_profile, jitter)},
    /* optional: each operation's compute steps all stretched by one factor drawn per operation
     * within +-op_jitter; 0 (not modelled) unless set (mmsim-measure measures it) */
    {"cpu", "op_jitter", HK_REAL, 0, 0.5, 1, 1, 0, offsetof(struct hw_profile, op_jitter)},
    /* optional (profiles older than IPIs): 2 us, README "Profiles" */
    {"cpu", "ipi_ns", HK_NS, 0.001, 1e6, 1, 1, 2000, offsetof(struct hw_profile, ipi_ps)},
    /* optional: each task a wake-up wakes costs the waker this (try_to_wake_up) */
    {"cpu", "wake_step_ns", HK_NS, 0.001, 1e6, 1, 1, 300, offsetof(struct hw_profile, wake_step_ps)},
    /* optional: schedule()'s on-CPU time as a task goes to sleep, and the part of a wake-up's latency
     * the woken task spends back on its CPU; 0 (not modelled) unless set, e.g. by mmsim calibrate */
    {"cpu", "sched_out_ns", HK_NS, 0.001, 1e6, 1, 1, 0, offsetof(struct hw_profile, sched_out_ps)},
    {"cpu", "sched_in_ns", HK_NS, 0.001, 1e6, 1, 1, 0, offsetof(struct hw_profile, sched_in_ps)},
    /* optional: without it, a scenario's 'miss' steps never go cold (README "Cold lines") */
    {"cache", "llc_mib", HK_MIB, 0.01, 1e6, 0, 1, 0, offsetof(struct hw_profile, llc_bytes)},
};

static int hw_num_set(struct hw_profile *hw, const struct profile *p, const struct hw_num *n, struct mm_error *err)
{
	char *dst = (char *)hw + n->off;
	struct prof_entry *e = profile_find(p, n->sec, n->key);
	double v = n->dflt;
	int rc;

	if (!e && !n->optional && (rc = need(p, n->sec, n->key, &e, err)))
		return rc;
	if (e) {
		if (!e->is_num)
			return mm_fail(err, MM_EPARSE, "%s:%d: [%s] %s = '%s': expected a number", p->path, e->line,
				       n->sec, n->key, e->value);
		if (n->kind == HK_INT && !is_digits(e->value))
			return mm_fail(err, MM_EPARSE,
				       "%s:%d: [%s] %s = '%s': expected a whole number (decimal digits)", p->path,
				       e->line, n->sec, n->key, e->value);
		v = e->num;
		if (!(v == 0 && n->zero_ok) && (v < n->lo || v > n->hi))
			return mm_fail(err, MM_ERANGE, "%s:%d: [%s] %s = %g is impossible (expected %s%g to %g)",
				       p->path, e->line, n->sec, n->key, v, n->zero_ok && n->lo > 0 ? "0, or " : "",
				       n->lo, n->hi);
	}
	switch (n->kind) {
	case HK_NS:
		*(int64_t *)dst = ns_to_ps(v);
		break;
	case HK_REAL:
		*(double *)dst = v;
		break;
	case HK_MIB:
		*(double *)dst = v * 1048576.0;
		break;
	case HK_INT:
		*(int *)dst = (int)v;
		break;
	}
	return 0;
}

/*
 * [machine] package_hops = ROW/ROW/...: one row per package, each the hops (0, 1 or 2, separated
 * by spaces) from that package to every package, in hwloc's package order.  A square matrix,
 * symmetric, 0 exactly on the diagonal; that it has as many rows as the topology has packages is
 * checked when the topology is loaded (machine_load).
 */
static int parse_package_hops(struct hw_profile *hw, const struct profile *p, const struct prof_entry *e,
			      struct mm_error *err)
{
	const int max = TOPO_MAX_HOP_PACKAGES;
	int nrows = 0, ncols[TOPO_MAX_HOP_PACKAGES];
	const char *row = e->value;

	for (;;) {
		const char *end = strchr(row, '/');
		size_t len = end ? (size_t)(end - row) : strlen(row);
		char buf[sizeof(e->value)], *save, *w;
		int n = 0;

		if (nrows == max)
			return mm_fail(err, MM_ERANGE, "%s:%d: [machine] package_hops: more than %d rows (packages)",
				       p->path, e->line, max);
		snprintf(buf, sizeof(buf), "%.*s", (int)len, row);
		for (w = strtok_r(buf, " \t", &save); w; w = strtok_r(NULL, " \t", &save), n++) {
			if (strlen(w) != 1 || w[0] < '0' || w[0] > '2')
				return mm_fail(err, MM_EPARSE,
					       "%s:%d: [machine] package_hops: row %d, entry %d: '%s' (expected 0, "
					       "1 or 2, the hops from package %d to package %d)",
					       p->path, e->line, nrows + 1, n + 1, w, nrows, n);
			if (n == max)
				return mm_fail(err, MM_ERANGE,
					       "%s:%d: [machine] package_hops: row %d has more than %d entries",
					       p->path, e->line, nrows + 1, max);
			hw->pkg_hops[nrows * max + n] = (uint8_t)(w[0] - '0');
		}
		if (!n)
			return mm_fail(err, MM_EPARSE,
				       "%s:%d: [machine] package_hops: row %d is empty (expected ROW/ROW/...: one row "
				       "per package, of the hops 0, 1 or 2 to each package)",
				       p->path, e->line, nrows + 1);
		ncols[nrows++] = n;
		if (!end)
			break;
		row = end + 1;
	}
	for (int r = 0; r < nrows; r++)
		if (ncols[r] != nrows)
			return mm_fail(err, MM_EPARSE,
				       "%s:%d: [machine] package_hops: row %d has %d entries but there are %d rows "
				       "(expected a square matrix: one row and one column per package)",
				       p->path, e->line, r + 1, ncols[r], nrows);
	for (int a = 0; a < nrows; a++)
		for (int b = 0; b < nrows; b++) {
			const int h = hw->pkg_hops[a * max + b];

			if ((h == 0) != (a == b))
				return mm_fail(err, MM_EPARSE,
					       "%s:%d: [machine] package_hops: %d hops from package %d to package %d "
					       "(expected 0 from a package to itself and only there)",
					       p->path, e->line, h, a, b);
			if (h != hw->pkg_hops[b * max + a])
				return mm_fail(err, MM_EPARSE,
					       "%s:%d: [machine] package_hops: %d hops from package %d to %d but %d "
					       "back (expected a symmetric matrix)",
					       p->path, e->line, h, a, b, hw->pkg_hops[b * max + a]);
		}
	/* packed, npkg_hops x npkg_hops */
	for (int a = 0; a < nrows; a++)
		memmove(hw->pkg_hops + a * nrows, hw->pkg_hops + a * max, (size_t)nrows);
	hw->npkg_hops = nrows;
	hw->pkg_hops_line = e->line;
	return 0;
}

/* A hop matrix with packages 2 hops apart needs [latency] remote_far, and rules out home_snoop. */
static int check_two_hops(struct hw_profile *hw, const struct profile *p, struct mm_error *err)
{
	const int n = hw->npkg_hops;

	for (int a = 0; a < n; a++)
		for (int b = 0; b < n; b++) {
			if (hw->pkg_hops[a * n + b] != 2)
				continue;
			if (!profile_find(p, "latency", "remote_far"))
				return mm_fail(err, MM_EPARSE,
					       "%s: missing key 'remote_far' in section [latency]: package_hops (line "
					       "%d) puts packages %d and %d two hops apart",
					       p->path, hw->pkg_hops_line, a, b);
			if (hw->home_snoop)
				return mm_fail(err, MM_EPARSE,
					       "%s:%d: [machine] package_hops with packages two hops apart and "
					       "[coherence] home_snoop = 1 together are not modelled",
					       p->path, hw->pkg_hops_line);
			return 0;
		}
	return 0;
}

int hw_profile_derive(struct hw_profile *hw, const struct profile *p, struct mm_error *err)
{
	const struct prof_entry *hops;
	char arb[32];
	int rc;

	memset(hw, 0, sizeof(*hw));
	if ((rc = check_hw_keys(p, err)))
		return rc;
	if ((rc = need_str(p, "machine", "name", hw->name, sizeof(hw->name), err)) ||
	    (rc = need_str(p, "machine", "description", hw->description, sizeof(hw->description), err)) ||
	    (rc = need_str(p, "machine", "topology", hw->topology, sizeof(hw->topology), err)))
		return rc;
	if ((rc = need_str(p, "coherence", "arbitration", arb, sizeof(arb), err)))
		return rc;
	if (!strcmp(arb, "fifo")) {
		hw->arbitration = ARB_FIFO;
	} else if (!strcmp(arb, "local-first")) {
		hw->arbitration = ARB_LOCAL_FIRST;
	} else {
		struct prof_entry *e = profile_find(p, "coherence", "arbitration");

		return mm_fail(err, MM_EPARSE, "%s:%d: arbitration = '%s': expected 'fifo' or 'local-first'", p->path,
			       e->line, arb);
	}
	for (size_t i = 0; i < sizeof(hw_nums) / sizeof(hw_nums[0]); i++)
		if ((rc = hw_num_set(hw, p, &hw_nums[i], err)))
			return rc;
	/* no pair is 2 hops apart without remote_far: what stands in is never used */
	if (!profile_find(p, "latency", "remote_far"))
		hw->lat_ps[TOPO_REMOTE_FAR] = hw->lat_ps[TOPO_REMOTE];
	if ((hops = profile_find(p, "machine", "package_hops")) &&
	    ((rc = parse_package_hops(hw, p, hops, err)) || (rc = check_two_hops(hw, p, err))))
		return rc;

	/* [frequency] ACTIVE_CORES = GHZ, in increasing order of cores */
	for (int i = 0; i < p->nentries; i++) {
		const struct prof_entry *e = &p->e[i];
		char *end;
		long cores;

		if (strcmp(e->section, "frequency"))
			continue;
		cores = strtol(e->key, &end, 10);
		if (*end || !is_digits(e->key) || cores < 1 || cores > (1L << 20))
			return mm_fail(err, MM_EPARSE,
				       "%s:%d: [frequency] key '%s': expected a number of active cores (1, 2, ...)",
				       p->path, e->line, e->key);
		if (!e->is_num || e->num < 0.1 || e->num > 10)
			return mm_fail(err, MM_ERANGE, "%s:%d: [frequency] %s = '%s': expected GHz from 0.1 to 10",
				       p->path, e->line, e->key, e->value);
		if (hw->nfreq == HW_MAX_FREQ)
			return mm_fail(err, MM_ERANGE, "%s:%d: more than %d [frequency] entries", p->path, e->line,
				       HW_MAX_FREQ);
		if (hw->nfreq && cores <= hw->freq_cores[hw->nfreq - 1])
			return mm_fail(err, MM_EPARSE,
				       "%s:%d: [frequency] entries must be in increasing order of active cores",
				       p->path, e->line);
		hw->freq_cores[hw->nfreq] = (int)cores;
		hw->freq_ghz[hw->nfreq++] = e->num;
	}
	if (!hw->nfreq)
		return mm_fail(err, MM_EPARSE, "%s: missing section [frequency] (ACTIVE_CORES = GHZ lines)", p->path);
	return 0;
}

double hw_freq_ghz(const struct hw_profile *hw, int active_cores)
{
	/* The first entry whose core count covers @active_cores; the last one beyond. */
	for (int i = 0; i < hw->nfreq; i++)
		if (active_cores <= hw->freq_cores[i])
			return hw->freq_ghz[i];
	return hw->freq_ghz[hw->nfreq - 1];
}

/* MAJOR.MINOR, as in the profile names linux-6.6 and a scenario's 'kernel 6.6'. */
int profile_is_version(const char *s)
{
	size_t major = strspn(s, "0123456789"), minor;

	if (!major || major > 4 || s[major] != '.')
		return 0;
	minor = strspn(s + major + 1, "0123456789");
	return minor && minor <= 4 && !s[major + 1 + minor];
}

/* [kernel] version and each release [kernel] covers names are versions. */
static int check_versions(const struct profile *p, struct mm_error *err)
{
	const struct prof_entry *e = profile_find(p, "kernel", "version");
	char buf[sizeof(e->value)], *save, *w;

	if (e && !profile_is_version(e->value))
		return mm_fail(err, MM_EPARSE, "%s:%d: [kernel] version = '%s': expected MAJOR.MINOR (e.g. 6.6)",
			       p->path, e->line, e->value);
	e = profile_find(p, "kernel", "covers");
	if (!e)
		return 0;
	snprintf(buf, sizeof(buf), "%s", e->value);
	for (w = strtok_r(buf, " ,", &save); w; w = strtok_r(NULL, " ,", &save))
		if (!profile_is_version(w))
			return mm_fail(err, MM_EPARSE,
				       "%s:%d: [kernel] covers: '%s' is not a version (expected MAJOR.MINOR, e.g. 6.6)",
				       p->path, e->line, w);
	return 0;
}

int kernel_profile_derive(struct kernel_profile *k, const struct profile *p, struct mm_error *err)
{
	static const char *const eras[] = {"3.x", "5.3", "5.11", "6.x", 0};
	static const char *const vmalocks[] = {"none", "vma_lock", 0};
	struct {
		const char *key;
		char *dst;
		size_t cap;
		const char *const *allowed;
	} fields[] = {
	    {"name", k->name, sizeof(k->name), 0},
	    {"version", k->version, sizeof(k->version), 0},
	    /* a lock design's name; the lock layer checks it (lock_check_kernel) */
	    {"spinlock", k->spinlock, sizeof(k->spinlock), 0},
	    {"rwsem_era", k->rwsem_era, sizeof(k->rwsem_era), eras},
	    {"vma_lock", k->vma_lock, sizeof(k->vma_lock), vmalocks},
	};
	int rc;

	memset(k, 0, sizeof(*k));
	/* a misspelled key first: else it would read as the right one missing.  The keys: the
	 * fields above, and covers and base, which kernel profiles carry for people; in the order
	 * the message lists them (the nearest name's ties go to the first) */
	for (int i = 0; i < p->nentries; i++) {
		const char *keys[sizeof(fields) / sizeof(fields[0]) + 2];
		const struct prof_entry *e = &p->e[i];
		char dym[96];
		int known = 0, nkeys = 0;

		if (strcmp(e->section, "kernel"))
			continue;
		for (size_t f = 0; f < sizeof(fields) / sizeof(fields[0]); f++) {
			keys[nkeys++] = fields[f].key;
			if (!strcmp(fields[f].key, "version")) {
				keys[nkeys++] = "covers";
				keys[nkeys++] = "base";
			}
		}
		for (int f = 0; f < nkeys; f++)
			known |= !strcmp(keys[f], e->key);
		if (!known)
			return mm_fail(
			    err, MM_EPARSE,
			    "%s:%d:%d: [kernel] key '%s' is not a key of a kernel profile's [kernel] (expected "
			    "one of: name version covers base spinlock rwsem_era vma_lock)%s",
			    p->path, e->line, e->col, e->key,
			    profile_did_you_mean(dym, sizeof(dym), e->key, keys, nkeys));
	}
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		if ((rc = need_str(p, "kernel", fields[i].key, fields[i].dst, fields[i].cap, err)))
			return rc;
		if (fields[i].allowed) {
			int ok = 0;
			char list[128] = "";

			for (int a = 0; fields[i].allowed[a]; a++) {
				ok |= !strcmp(fields[i].allowed[a], fields[i].dst);
				append_note(list, sizeof(list), fields[i].allowed[a]);
			}
			if (!ok)
				return mm_fail(err, MM_EPARSE, "%s:%d: [kernel] %s = '%s': expected one of: %s",
					       p->path, profile_find(p, "kernel", fields[i].key)->line, fields[i].key,
					       fields[i].dst, list);
		}
	}
	if ((rc = check_versions(p, err)))
		return rc;
	snprintf(k->rwsem, sizeof(k->rwsem), "rwsem");
	for (int i = 0; i < p->nentries; i++) {
		const struct prof_entry *e = &p->e[i];

		/* a kernel function's cost is never 0 (a step that does nothing is left out with 'when');
		 * at least 0.01 cycles, 1 ps at the 10 GHz [frequency] allows, so it never rounds to 0.
		 * The user's first touch of a page mapped ahead of it is 0 where nothing measured it: on
		 * bare metal a page walk within user_touch, on a shadow-paging guest a hypervisor exit */
		if (!strcmp(e->section, "costs")) {
			int zero_ok = !strcmp(e->key, "touch_mapped_private") || !strcmp(e->key, "touch_mapped_shared");

			if (!e->is_num || e->num > 1e10 || (e->num < 0.01 && !(zero_ok && e->num == 0)))
				return mm_fail(err, MM_EPARSE, "%s:%d: [costs] %s = '%s': expected cycles, %s", p->path,
					       e->line, e->key, e->value,
					       zero_ok ? "0 or a number from 0.01 to 1e10"
						       : "a number from 0.01 to 1e10 (a cost is never 0)");
		}
		/* a count is at least 1, but a folio order or a yes/no of the large-folio layout may be 0 */
		if (!strcmp(e->section, "batch") &&
		    (!e->is_num || !is_digits(e->value) || e->num > 1e9 ||
		     e->num < (!strcmp(e->key, "folio_max_order") || !strcmp(e->key, "map_whole_folio") ? 0 : 1)))
			return mm_fail(err, MM_EPARSE,
				       "%s:%d: [batch] %s = '%s': expected a whole number >= %d (decimal digits, at "
				       "most 1000000000)",
				       p->path, e->line, e->key, e->value,
				       !strcmp(e->key, "folio_max_order") || !strcmp(e->key, "map_whole_folio") ? 0
														: 1);
		if (!strcmp(e->section, "misses") && (!e->is_num || e->num < 0 || e->num > 1e6))
			return mm_fail(err, MM_EPARSE,
				       "%s:%d: [misses] %s = '%s': expected DRAM accesses per visit, a number >= 0",
				       p->path, e->line, e->key, e->value);
		/* a line's name is kept as an object's is (at most 63 characters: SC_NAME); cut, two
		 * fields meant to share a line would get two */
		if (!strcmp(e->section, "layout") && strlen(e->value) >= 64)
			return mm_fail(err, MM_EPARSE,
				       "%s:%d: [layout] %s = '%.40s...': a line's name has at most 63 characters",
				       p->path, e->line, e->key, e->value);
		/* another section is a lock design's ([rwsem]): the lock layer checks it */
	}
	k->p = p;
	return 0;
}

int kernel_section_known(const char *section)
{
	static const char *const known[] = {"kernel", "layout", "batch", "costs", "misses", NULL};

	for (int i = 0; known[i]; i++)
		if (!strcmp(known[i], section))
			return 1;
	return 0;
}

int kernel_cost_cycles(const struct kernel_profile *k, const char *name, double *cycles)
{
	const struct prof_entry *e = profile_find(k->p, "costs", name);

	if (!e)
		return MM_ENOENT;
	*cycles = e->num;
	return 0;
}

int kernel_misses(const struct kernel_profile *k, const char *name, double *n)
{
	const struct prof_entry *e = profile_find(k->p, "misses", name);

	if (!e)
		return MM_ENOENT;
	*n = e->num;
	return 0;
}

int kernel_batch(const struct kernel_profile *k, const char *name, int64_t *n)
{
	const struct prof_entry *e = profile_find(k->p, "batch", name);

	if (!e)
		return MM_ENOENT;
	*n = (int64_t)e->num;
	return 0;
}

const char *kernel_line_of(const struct kernel_profile *k, const char *field)
{
	const struct prof_entry *e = profile_find(k->p, "layout", field);

	return e ? e->value : field;
}
